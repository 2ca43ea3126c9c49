//! `engine.quantization` (issue #17, onlinequant): the engines' `--quantization`. Only `fp8` is
//! modelled: on an unquantized (bf16/fp16) checkpoint both engines quantize the linear layers and
//! routed experts to fp8 while loading (`tpsim_model::llm::online_quant` has what each keeps); on
//! a checkpoint that declares `quant_method = "fp8"` the flag only confirms it. b200sgl54: SGLang's
//! `modelopt` / `modelopt_fp4` on a ModelOpt NVFP4 checkpoint confirm it too; the name reaches
//! SGLang's SM 10.x MoE-runner rules (`moe_backend::sglang_sm100`).
//!
//! The engines' checks, in their order and with their texts:
//! - the name must be one of the engine's `--quantization` choices (argparse; the lists in
//!   tests/data/engine-args: SGLang 0.5.9 `server_args.py`, vLLM 0.11.0 `arg_utils.py`);
//! - a checkpoint that declares another method is refused (vLLM 0.11.0 `config/model.py` and
//!   SGLang 0.5.9 `configs/model_config.py` `_verify_quantization`: "Quantization method specified
//!   in the model config (X) does not match the quantization method specified in the
//!   `quantization` argument (Y).");
//! - the GPU's compute capability must reach `Fp8Config.get_min_capability()` (80; vLLM
//!   `model_executor/model_loader/utils.py`-era `_get_quantization_config`, the same text in SGLang);
//! - the activation dtype must be one of `Fp8Config.get_supported_act_dtypes()` (bfloat16, half):
//!   a float32 model is refused ("torch.float32 is not supported for quantization method fp8.
//!   Supported dtypes: [torch.bfloat16, torch.float16]").
//!
//! On CUDA GPUs below compute capability 8.9 both engines run fp8 weight-only through Marlin and log
//! a warning, repeated here.
//!
//! When the weights are quantized ([`OnlineLoad`]): SGLang 0.5.9 and vLLM up to 0.13 (an
//! `engine.version` of 0.11.0, 0.12.0, 0.13.x) after every weight is loaded in the model dtype;
//! vLLM from 0.14 (PR #31914) layer by layer as each is loaded — also without `engine.version`,
//! whose release is 0.19.0 (`crate::engine_release`).

use super::accel::GpuVendor;
use super::{Engine, EngineKind, Hardware, Resolver, ScenarioError};
use tpsim_model::hw::sm_version;
use tpsim_model::llm::online_quant::{FP8_MIN_CAPABILITY, OnlineEngine, OnlineLoad, uses_marlin};
use tpsim_model::llm::{LoadGpu, ModelSpec, WeightDtype};

/// SGLang 0.5.9's `--quantization` choices (tests/data/engine-args/sglang-0.5.9.txt line 27).
pub const SGLANG_METHODS: [&str; 23] = [
    "awq",
    "fp8",
    "mxfp8",
    "gptq",
    "marlin",
    "gptq_marlin",
    "awq_marlin",
    "bitsandbytes",
    "gguf",
    "modelopt",
    "modelopt_fp8",
    "modelopt_fp4",
    "petit_nvfp4",
    "w8a8_int8",
    "w8a8_fp8",
    "moe_wna16",
    "qoq",
    "w4afp8",
    "mxfp4",
    "auto-round",
    "compressed-tensors",
    "modelslim",
    "quark_int4fp8_moe",
];

/// vLLM 0.11.0's `--quantization` choices (tests/data/engine-args/vllm-0.11.0.txt line 23).
pub const VLLM_METHODS: [&str; 28] = [
    "awq",
    "deepspeedfp",
    "tpu_int8",
    "fp8",
    "ptpc_fp8",
    "fbgemm_fp8",
    "modelopt",
    "modelopt_fp4",
    "bitblas",
    "gguf",
    "gptq_marlin_24",
    "gptq_marlin",
    "gptq_bitblas",
    "awq_marlin",
    "gptq",
    "compressed-tensors",
    "bitsandbytes",
    "hqq",
    "experts_int8",
    "ipex",
    "quark",
    "moe_wna16",
    "torchao",
    "auto-round",
    "rtn",
    "inc",
    "mxfp4",
    "petit_nvfp4",
];

/// The warning both engines log when fp8 runs through Marlin (`prepare_fp8_layer_for_marlin`,
/// vLLM 0.11.0 `quantization/utils/marlin_utils_fp8.py`).
const MARLIN_WARNING: &str = "Your GPU does not have native support for FP8 computation but FP8 quantization \
     is being used. Weight-only FP8 compression will be used leveraging the Marlin kernel. This may degrade \
     performance for compute-heavy workloads.";

impl Resolver<'_> {
    /// Applies `engine.quantization` to `model`, whose checkpoint declares `method`, under the
    /// engine `eng` (its kind and version; see the module doc). Runs after `engine.dtype`, so
    /// `model.dtype` is the serving dtype.
    pub(super) fn engine_quantization(
        &self,
        model: &mut ModelSpec,
        method: Option<&str>,
        eng: &Engine,
        hw: &Hardware,
        flag: Option<&str>,
        warnings: &mut Vec<String>,
    ) -> Result<(), ScenarioError> {
        let Some(name) = flag else {
            return Ok(());
        };
        let (kind, release) = (eng.kind, eng.release());
        let key = "engine.quantization";
        let (engine, choices): (&str, &[&str]) = match kind {
            EngineKind::Vllm => ("vLLM", &VLLM_METHODS),
            EngineKind::Sglang => ("SGLang", &SGLANG_METHODS),
        };
        if !choices.contains(&name) {
            return Err(self.invalid(
                key,
                format!(
                    "{engine} refuses it: \"argument --quantization: invalid choice: '{name}'\"; expected one of \
                     {}",
                    choices.join(", ")
                ),
            ));
        }
        // b200sgl54: SGLang's `modelopt` / `modelopt_fp4` on a ModelOpt NVFP4 checkpoint (declared
        // "modelopt") names the checkpoint's own format (0.5.9 `configs/model_config.py`
        // `_verify_quantization`: "modelopt_fp4" is compatible with "modelopt"): the weights stay as
        // stored; only SGLang's SM 10.x MoE-runner rules read the name (`moe_backend::sglang_sm100`).
        let nvfp4 = model.quantization.expert_format().dtype == WeightDtype::Nvfp4;
        if kind == EngineKind::Sglang
            && matches!(name, "modelopt" | "modelopt_fp4")
            && method == Some("modelopt")
            && nvfp4
        {
            return Ok(());
        }
        if name != "fp8" {
            return Err(self.invalid(
                key,
                format!(
                    "`{name}` is one of {engine}'s methods but is not modelled; tpsim models `fp8` (an \
                     unquantized checkpoint quantized at load time, or an fp8 checkpoint)"
                ),
            ));
        }
        match method {
            Some("fp8") => return Ok(()), // the checkpoint's own method: nothing changes
            Some(m) => {
                return Err(self.invalid(
                    key,
                    format!(
                        "{engine} refuses it: \"Quantization method specified in the model config ({m}) does not \
                         match the quantization method specified in the `quantization` argument ({name}).\""
                    ),
                ));
            }
            None => {}
        }
        let q = &model.quantization;
        if let Some(d) = [q.weights.dtype, q.expert_format().dtype]
            .into_iter()
            .find(|d| d.float_bytes().is_none())
        {
            return Err(self.invalid(
                key,
                format!(
                    "the model's quantization stores the weights as {} but its config.json declares no \
                     `quantization_config`, so the method the engine would check is unknown; `fp8` is \
                     modelled on an unquantized checkpoint or one that declares `quant_method = \"fp8\"`",
                    d.name()
                ),
            ));
        }
        let gpu = match hw.accel.vendor {
            GpuVendor::Nvidia => LoadGpu::nvidia(&hw.gpu),
            GpuVendor::Amd => LoadGpu::rocm(&hw.gpu),
        };
        let sm = sm_version(&hw.gpu.compute_capability);
        if gpu.cuda && sm < FP8_MIN_CAPABILITY {
            return Err(self.invalid(
                key,
                format!(
                    "{engine} refuses it: \"The quantization method fp8 is not supported for the current GPU. \
                     Minimum capability: {FP8_MIN_CAPABILITY}. Current capability: {sm}.\""
                ),
            ));
        }
        if model.dtype == WeightDtype::Fp32 {
            return Err(self.invalid(
                key,
                format!(
                    "{engine} refuses it: \"torch.float32 is not supported for quantization method fp8. \
                     Supported dtypes: [torch.bfloat16, torch.float16]\""
                ),
            ));
        }
        if uses_marlin(&gpu) {
            warnings.push(format!("{engine}: {MARLIN_WARNING}"));
        }
        let (online, load) = match kind {
            EngineKind::Vllm => {
                let up_to_0_13 = crate::engine_args_versions::release(&release.version)
                    .is_some_and(|r| r.get(..2).is_some_and(|mm| mm <= [0, 13].as_slice()));
                let load = if up_to_0_13 {
                    OnlineLoad::AfterLoading
                } else {
                    OnlineLoad::JustInTime
                };
                (OnlineEngine::Vllm, load)
            }
            EngineKind::Sglang => (OnlineEngine::Sglang, OnlineLoad::AfterLoading),
        };
        model.quantization = model.quantization.online_fp8(online, &gpu, model.dtype, load);
        Ok(())
    }
}
