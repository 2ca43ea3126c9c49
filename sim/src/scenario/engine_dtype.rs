//! `engine.dtype` (issue #17): the engines' `--dtype` (auto, half, float16, bfloat16, float,
//! float32). Unquantized weights and activations are held in that dtype, and an `auto` KV cache
//! with them (`model.quantization.kv_cache_dtype` other than `auto` keeps its own).
//!
//! Both engines map the names alike — `half`/`float16` → float16, `float`/`float32` → float32,
//! `bfloat16` (SGLang 0.5.9 `configs/model_config.py` and vLLM 0.11.0 `config/model.py`
//! `_STR_DTYPE_TO_TORCH_DTYPE`) — and log the cast in `_get_and_verify_dtype`: "Upcasting A to B."
//! to float32, "Downcasting A to B." from float32 (info), "Casting A to B." between the 16-bit
//! types (a warning). `auto` keeps the checkpoint's dtype (`dtype.rs` handles a float32
//! checkpoint). vLLM refuses bfloat16 on GPUs before compute capability 8.0
//! (`platforms/cuda.py` `check_if_supports_dtype`).

use super::{EngineKind, Hardware, Resolver, ScenarioError};
use tpsim_model::llm::{ModelSpec, WeightDtype};

/// The names `--dtype` accepts (tests/data/engine-args: the same list for SGLang 0.5.8/0.5.9 and
/// vLLM 0.11.0).
pub const DTYPE_NAMES: [&str; 6] = ["auto", "half", "float16", "bfloat16", "float", "float32"];

/// torch's name of a float dtype, as the engines' log lines print it.
fn torch_name(d: WeightDtype) -> &'static str {
    match d {
        WeightDtype::Fp16 => "torch.float16",
        WeightDtype::Fp32 => "torch.float32",
        _ => "torch.bfloat16",
    }
}

impl Resolver<'_> {
    /// Applies `engine.dtype`; returns true when it set the dtype (anything but `auto`/absent).
    pub(super) fn engine_dtype(
        &self,
        model: &mut ModelSpec,
        kind: EngineKind,
        hw: &Hardware,
        flag: Option<&str>,
        warnings: &mut Vec<String>,
    ) -> Result<bool, ScenarioError> {
        let Some(name) = flag else {
            return Ok(false);
        };
        let d = match name.to_lowercase().as_str() {
            "auto" => return Ok(false),
            "half" | "float16" => WeightDtype::Fp16,
            "bfloat16" => WeightDtype::Bf16,
            "float" | "float32" => WeightDtype::Fp32,
            _ => {
                return Err(self.invalid(
                    "engine.dtype",
                    format!(
                        "Unknown dtype: {name:?} (the engines' text); expected one of {}",
                        DTYPE_NAMES.join(", ")
                    ),
                ));
            }
        };
        if kind == EngineKind::Vllm && d == WeightDtype::Bf16 && hw.gpu.sm_major() < 8 {
            return Err(self.invalid(
                "engine.dtype",
                format!(
                    "vLLM refuses it: \"Bfloat16 is only supported on GPUs with compute capability of at least 8.0. \
                     Your {} GPU has compute capability {}. You can use float16 instead by explicitly setting the \
                     `dtype` flag in CLI, for example: --dtype=half.\"",
                    hw.gpu.name, hw.gpu.compute_capability
                ),
            ));
        }
        let engine = match kind {
            EngineKind::Vllm => "vLLM",
            EngineKind::Sglang => "SGLang",
        };
        let from = model.dtype;
        if d != from {
            let verb = if d == WeightDtype::Fp32 {
                "Upcasting"
            } else if from == WeightDtype::Fp32 {
                "Downcasting"
            } else {
                "Casting"
            };
            warnings.push(format!(
                "{engine}: {verb} {} to {}.",
                torch_name(from),
                torch_name(d)
            ));
        }
        model.dtype = d;
        // Linears stored in a float dtype are loaded in the serving dtype; quantized ones keep theirs.
        let q = &mut model.quantization;
        for f in q.formats_mut() {
            if matches!(f.dtype, WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp32) {
                f.dtype = d;
            }
        }
        Ok(true)
    }
}
