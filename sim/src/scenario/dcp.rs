//! Issue #17: vLLM's decode context parallelism (`--decode-context-parallel-size`, vLLM 0.11),
//! checked as vLLM checks it.

use super::{EngineKind, ScenarioError};
use tpsim_model::llm::{Attention, ModelSpec};

/// The DCP size: 1 by default. vLLM 0.11 splits each TP group into tp / dcp groups of dcp
/// consecutive ranks (`distributed/parallel_state.py` `initialize_model_parallel`).
pub fn resolve(
    dcp_size: Option<u32>,
    kind: EngineKind,
    tp: u32,
    model: &ModelSpec,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<u32, ScenarioError> {
    let dcp = dcp_size.unwrap_or(1);
    if dcp == 0 {
        return Err(invalid("engine.dcp_size", "0: expected a DCP size ≥ 1".into()));
    }
    if dcp_size.is_some() && kind != EngineKind::Vllm {
        return Err(invalid(
            "engine.dcp_size",
            "a vLLM setting (--decode-context-parallel-size): not an SGLang option".into(),
        ));
    }
    if dcp == 1 {
        return Ok(1);
    }
    // vLLM 0.11 `engine/arg_utils.py` `create_engine_config` (its f-string lacks the space).
    if !tp.is_multiple_of(dcp) {
        return Err(invalid(
            "engine.dcp_size",
            format!("vLLM refuses: \"tp_size={tp} must be divisible bydcp_size={dcp}.\""),
        ));
    }
    // Only vLLM 0.11's MLA backends (FlashMLA, FlashAttention-MLA, CUTLASS MLA, Triton MLA) set
    // `can_return_lse_for_decode`; `gpu_model_runner.py` asserts it for every layer under DCP.
    if !matches!(model.attention, Attention::Mla { .. }) {
        return Err(invalid(
            "engine.dcp_size",
            "vLLM refuses: \"DCP requires attention impls to return the softmax lse for decode, but the impl \
             FlashAttentionImpl does not return the softmax lse for decode.\" (vLLM 0.11 supports DCP with MLA \
             models only)"
                .into(),
        ));
    }
    // `v1/attention/backends/mla/common.py` `forward`: `assert not fp8_attention`.
    if model.quantization.kv_cache_dtype.bytes(model.dtype) < 2 {
        return Err(invalid(
            "engine.dcp_size",
            "vLLM refuses: \"DCP not support fp8 kvcache now.\"".into(),
        ));
    }
    if model.nsa_kv(2).is_some() {
        return Err(invalid(
            "engine.dcp_size",
            "DCP with DSA (sparse MLA) models is not modelled".into(),
        ));
    }
    Ok(dcp)
}
