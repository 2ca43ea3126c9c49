//! Issue #17 point 4: vLLM's QuickReduce from `[engine.env]` (vLLM 0.11.0 `envs.py`):
//! `VLLM_ROCM_QUICK_REDUCE_QUANTIZATION` (FP, INT8, INT6, INT4, NONE; default NONE = off),
//! `VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16` (true unless the value, lower-cased, is neither
//! "true" nor "1"), `VLLM_ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB` (an integer). vLLM builds QuickReduce
//! only with its custom allreduce on (`cuda_communicator.py`: inside `if use_custom_allreduce`), on
//! ROCm MI300-class GPUs, world sizes 2/4/8 (`sim::quick_reduce::refusal`), for fp16/bf16 models;
//! elsewhere it stays off — tpsim warns and leaves it off. When on, allreduces inside its window
//! (`tpsim_model::quick_reduce::window`) run as `CustomAlgo::QuickReduce` before the custom kernel.

use super::{EngineKind, Hardware, Resolver, ScenarioError};
use crate::scenario::AllreduceBackend;
use std::collections::BTreeMap;
use tpsim_model::llm::WeightDtype;
use tpsim_model::quick_reduce::{self as qr, Regime};

/// The three variables, taken out of `[engine.env]` before NCCL reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QuickReduceVars {
    pub regime: Option<Regime>,
    /// `VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16` (`None`: unset, vLLM's default true).
    pub cast_bf16_to_fp16: Option<bool>,
    pub max_size_mb: Option<u64>,
}

const PREFIX: &str = "engine.env.VLLM_ROCM_QUICK_REDUCE_";

impl Resolver<'_> {
    /// Removes and parses the QuickReduce variables; a value vLLM rejects is refused with its text.
    pub(super) fn take_quick_reduce_vars(
        &self,
        env: &mut BTreeMap<String, String>,
    ) -> Result<QuickReduceVars, ScenarioError> {
        let mut out = QuickReduceVars::default();
        if let Some(v) = env.remove("VLLM_ROCM_QUICK_REDUCE_QUANTIZATION") {
            // envs.py env_with_choices (case-sensitive by default).
            out.regime = Regime::parse(&v).map_err(|m| self.invalid(&format!("{PREFIX}QUANTIZATION"), m))?;
        }
        if let Some(v) = env.remove("VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16") {
            out.cast_bf16_to_fp16 = Some(matches!(v.to_lowercase().as_str(), "true" | "1"));
        }
        if let Some(v) = env.remove("VLLM_ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB") {
            // envs.py maybe_convert_int: Python's int().
            let n: i64 = v.trim().parse().map_err(|_| {
                self.invalid(
                    &format!("{PREFIX}MAX_SIZE_BYTES_MB"),
                    format!("\"ValueError: invalid literal for int() with base 10: '{v}'\" (vLLM's text; expected MB as an integer)"),
                )
            })?;
            if n < 1 {
                return Err(self.invalid(
                    &format!("{PREFIX}MAX_SIZE_BYTES_MB"),
                    format!(
                        "{n}: vLLM warns \"You should not set a max_size smaller than 1MB\"; expected ≥ 1"
                    ),
                ));
            }
            out.max_size_mb = Some(n as u64);
        }
        Ok(out)
    }
}

/// The regime and window (bytes, inclusive) QuickReduce runs with, or `None` with a warning saying
/// why vLLM leaves it off.
pub(super) fn window(
    vars: &QuickReduceVars,
    kind: EngineKind,
    allreduce: AllreduceBackend,
    tp: u32,
    hw: &Hardware,
    dtype: WeightDtype,
    warnings: &mut Vec<String>,
) -> Option<(Regime, u64, u64)> {
    let regime = vars.regime?;
    let off = |why: String| {
        format!(
            "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION={}: off — {why}",
            regime.as_str()
        )
    };
    if kind != EngineKind::Vllm {
        warnings.push(off("a vLLM variable; SGLang does not read it".into()));
        return None;
    }
    if tp <= 1 {
        return None;
    }
    if allreduce != AllreduceBackend::Custom {
        warnings.push(off(
            "vLLM builds its quick allreduce only with the custom allreduce on (cuda_communicator.py); set engine.allreduce = \"custom\"".into(),
        ));
        return None;
    }
    if let Some(why) = crate::quick_reduce::refusal(hw, tp as usize) {
        warnings.push(off(why));
        return None;
    }
    let bf16 = match dtype {
        WeightDtype::Fp16 => false,
        WeightDtype::Bf16 => true,
        other => {
            warnings.push(off(format!(
                "\"Custom quick allreduce disabled: only supports float16 and float16, but get {other:?}.\""
            )));
            return None;
        }
    };
    let w = qr::window(
        bf16,
        vars.cast_bf16_to_fp16.unwrap_or(true),
        tp,
        regime,
        vars.max_size_mb,
    );
    if w.is_none() {
        warnings.push(off(
            "its size window is empty (max size below the minimum for this dtype and world size)".into(),
        ));
    }
    w.map(|(lo, hi)| (regime, lo, hi))
}
