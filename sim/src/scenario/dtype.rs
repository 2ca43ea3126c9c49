//! The dtype an engine serves a checkpoint in. With `--dtype auto` (tpsim has no other setting) neither
//! engine keeps a float32 checkpoint in float32:
//! - SGLang 0.5.9 `configs/model_config.py` `_get_and_verify_dtype`: float32 becomes bfloat16 for the
//!   Gemma family (`model_type` starting with "gemma", with an info line naming the version) and float16
//!   for every other model;
//! - vLLM 0.11.0 `config/model.py` `_resolve_auto_dtype`: float32 becomes the platform's preferred dtype,
//!   the first of its supported dtypes — bfloat16 on GPUs of compute capability 8.0 and later, float16
//!   before (`platforms/cuda.py` `supported_dtypes`).
//!
//! Both halves are 2 bytes: activations, allreduce messages and an `auto` KV cache all shrink by half.

use super::{EngineKind, Hardware, Resolver};
use tpsim_model::llm::{Architecture, ModelSpec, WeightDtype};

impl Resolver<'_> {
    /// Serves a float32 checkpoint in the 16-bit dtype the engine picks, with the engine's log line.
    pub(super) fn serving_dtype(
        &self,
        model: &mut ModelSpec,
        kind: EngineKind,
        hw: &Hardware,
        warnings: &mut Vec<String>,
    ) {
        if model.dtype != WeightDtype::Fp32 {
            return;
        }
        let gemma = matches!(
            model.arch,
            Architecture::Gemma | Architecture::Gemma2 | Architecture::Gemma3
        );
        let served = match kind {
            EngineKind::Sglang if gemma => {
                let version = match model.arch {
                    Architecture::Gemma2 => "2",
                    Architecture::Gemma3 => "3",
                    _ => "",
                };
                warnings.push(format!(
                    "SGLang: For Gemma {version}, we downcast float32 to bfloat16 instead of float16 by \
                     default. Please specify `dtype` if you want to use float16."
                ));
                WeightDtype::Bf16
            }
            EngineKind::Sglang => {
                warnings.push("SGLang: Downcasting torch.float32 to torch.float16.".into());
                WeightDtype::Fp16
            }
            EngineKind::Vllm => {
                let major = hw.gpu.sm_major();
                let (dt, name) = if major >= 8 {
                    (WeightDtype::Bf16, "bfloat16")
                } else {
                    (WeightDtype::Fp16, "float16")
                };
                warnings.push(format!("vLLM: Downcasting torch.float32 to torch.{name}."));
                dt
            }
        };
        model.dtype = served;
        let q = &mut model.quantization;
        // The linear layers' formats (attention, and dense MLPs / shared experts when stored apart).
        for f in std::iter::once(&mut q.weights)
            .chain(q.dense_mlp.as_mut())
            .chain(q.shared_experts.as_mut())
            .chain(q.mla_down.as_mut())
            .chain(q.projections.iter_mut())
        {
            if f.dtype == WeightDtype::Fp32 {
                f.dtype = served;
            }
        }
    }
}
