//! Issue #17: vLLM's decode context parallelism (`--decode-context-parallel-size`, vLLM 0.11),
//! checked as vLLM checks it.

use super::{EngineKind, ScenarioError};
use tpsim_model::llm::{Attention, ModelSpec};

/// The first vLLM release whose MLA decode takes DCP with an fp8 KV cache: PR #44044 (merge commit
/// 49f2104c53, 2026-06-24) removed `assert not fp8_attention, "DCP not support fp8 kvcache now."`
/// from `model_executor/layers/attention/mla_attention.py`; the assert is still at line 803 of the
/// vllm-0.24.0 sdist on PyPI and absent from vllm-0.25.0's.
const VLLM_DCP_FP8_KV: [u64; 2] = [0, 25];

/// The DCP size: 1 by default. vLLM 0.11 splits each TP group into tp / dcp groups of dcp
/// consecutive ranks (`distributed/parallel_state.py` `initialize_model_parallel`). `version` is
/// the vLLM release the scenario runs (`engine_release::release`): it decides the fp8-KV refusal.
pub fn resolve(
    dcp_size: Option<u32>,
    kind: EngineKind,
    tp: u32,
    model: &ModelSpec,
    version: &str,
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
    // Only vLLM 0.11.0's MLA backends (FlashMLA, FlashAttention-MLA, CUTLASS MLA, Triton MLA) set
    // `can_return_lse_for_decode`; `gpu_model_runner.py` asserts it for every layer under DCP.
    // cmdsurvey62 (vllm issue 40585, Qwen3.5 with `-dcp 4` at 0.18.0): from 0.11.1 `FlashAttentionImpl`
    // sets it too (`v1/attention/backends/flash_attn.py` of the 0.11.1 – 0.17.0 wheels; FlashInfer's
    // in 0.17.0), so vLLM runs DCP on GQA models there; tpsim models DCP for MLA models only.
    if !matches!(model.attention, Attention::Mla { .. }) {
        let gqa_lse = crate::engine_args_versions::release(version)
            .is_some_and(|r| r.as_slice() >= [0, 11, 1].as_slice());
        return Err(invalid(
            "engine.dcp_size",
            if gqa_lse {
                format!(
                    "DCP on a model without MLA is not modelled: vLLM {version} runs it (FlashAttention returns \
                     the softmax lse for decode from 0.11.1, `flash_attn.py` `can_return_lse_for_decode`), tpsim \
                     splits only MLA's latent cache"
                )
            } else {
                "vLLM refuses: \"DCP requires attention impls to return the softmax lse for decode, but the impl \
                 FlashAttentionImpl does not return the softmax lse for decode.\" (vLLM 0.11.0 supports DCP with \
                 MLA models only)"
                    .into()
            },
        ));
    }
    // `v1/attention/backends/mla/common.py` `forward` (0.11; `mla_attention.py` later):
    // `assert not fp8_attention` until 0.25.0 ([`VLLM_DCP_FP8_KV`]). From 0.25.0 Triton MLA still
    // gathers bf16 queries (`TritonMLAImpl`: `supports_quant_query_input = False` under an fp8
    // cache), which is what `passes::dcp::dcp_bytes` costs; backends that gather fp8 queries are
    // costed at the activation width (an over-estimate of the q all-gather).
    let before_fp8 = crate::engine_args_versions::release(version)
        .is_none_or(|r| [r.first().copied().unwrap_or(0), r.get(1).copied().unwrap_or(0)] < VLLM_DCP_FP8_KV);
    if model.quantization.kv_cache_dtype.bytes(model.dtype) < 2 && before_fp8 {
        return Err(invalid(
            "engine.dcp_size",
            format!(
                "vLLM refuses: \"DCP not support fp8 kvcache now.\" (vLLM {version}; DCP with an fp8 KV \
                 cache runs from vLLM 0.25.0, PR #44044)"
            ),
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

#[cfg(test)]
mod tests {
    use crate::scenario::load_str;
    use std::path::Path;

    /// Kimi-K2.5 (MLA) with an fp8 KV cache, vLLM TP 8 + DCP 8 at `version` (none: tpsim's
    /// current vLLM, 0.19.0).
    fn load(version: Option<&str>) -> Result<crate::scenario::Scenario, String> {
        let v = version.map_or(String::new(), |v| format!("version = \"{v}\"\n"));
        let text = format!(
            "[hardware]\npreset = \"rtx-pro-6000-8x-4switch-grimulkan\"\n\
             [model]\npreset = \"kimi-k2.5\"\nquantization = {{ dtype = \"bf16\", experts = {{ dtype = \
             \"int4\", group_size = 32, scale_dtype = \"bf16\" }}, kv_cache_dtype = \"fp8_e4m3\" }}\n\
             [engine]\nname = \"vllm\"\ntp = 8\ndcp_size = 8\nattention_backend = \"TRITON_MLA\"\n{v}\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("dcp-fp8.toml")).map_err(|e| e.to_string())
    }

    /// vLLM 0.24.0's `mla_attention.py` (PyPI sdist, line 803) still asserts "DCP not support fp8
    /// kvcache now."; 0.25.0's has no such assert (PR #44044). The refusal follows
    /// `engine.version`: 0.19.0 (unversioned) and 0.24.0 refuse with vLLM's text, 0.25.0 and a
    /// later release run with dcp 8.
    #[test]
    fn fp8_kv_with_dcp_is_refused_before_vllm_0_25() {
        for v in [None, Some("0.24.0"), Some("0.24.1.dev12")] {
            let e = load(v).expect_err("refused");
            assert!(
                e.contains("engine.dcp_size") && e.contains("DCP not support fp8 kvcache now."),
                "{v:?}: {e}"
            );
        }
        for v in ["0.25.0", "v0.26.0"] {
            let s = load(Some(v)).unwrap_or_else(|e| panic!("{v}: {e}"));
            assert_eq!(s.engine.dcp, 8, "{v}");
        }
    }
}
