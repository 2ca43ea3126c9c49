//! Issue #18 (cascade): whether a vLLM decode step cascades (`tpsim_model::vllm_cascade`) and over
//! how many tokens; [`super::passes::Builder`] then reads that prefix's KV once in the step's
//! full-attention layers.
//!
//! Only vLLM's FLASH_ATTN backend cascades (0.17.0: FlashInfer's builder returns False, the other
//! backends too). A scenario that names `engine.attention_backend` cascades only with `FLASH_ATTN`;
//! without it, vLLM 0.17.0's own choice for a non-MLA model on an NVIDIA GPU
//! (`platforms/cuda.py` `_get_backend_priorities`): FLASHINFER first on SM 10.x, FLASH_ATTN first
//! elsewhere, taken when `FlashAttentionBackend.validate_configuration` accepts it (compute
//! capability ≥ 8.0, head size a multiple of 8 up to 256, KV cache bf16/fp16 — fp8 needs FA3, which
//! `fa_utils.get_flash_attn_version` picks on SM 9.x only —, attention sinks from SM 9.0). An AMD GPU
//! (no SM version) and MLA models never cascade here.

use crate::scenario::{EngineKind, Scenario};
use crate::serve::CommonPrefix;
use tpsim_model::hw::sm_major;
use tpsim_model::llm::{Architecture, Attention};
use tpsim_model::vllm_cascade::{CascadeStep, prefix_len};

/// Whether vLLM runs the scenario's full attention on its FLASH_ATTN backend (see the module doc).
pub(super) fn flash_attn_backend(s: &Scenario) -> bool {
    if s.engine.kind != EngineKind::Vllm {
        return false;
    }
    if let Some(b) = s.engine.attention_backend.as_deref() {
        return b == "FLASH_ATTN";
    }
    let m = &s.model;
    let sm = sm_major(&s.hardware.gpu.compute_capability);
    let kv_bytes = m.quantization.kv_cache_dtype.bytes(m.dtype);
    !matches!(m.attention, Attention::Mla { .. })
        && sm >= 8
        && sm != 10
        && m.head_dim.is_multiple_of(8)
        && m.head_dim <= 256
        && (kv_bytes >= 2 || sm == 9)
        && (m.arch != Architecture::GptOss || sm >= 9)
}

/// The prefix vLLM's decode step attends over once (0: no cascade), for `common` and a step of
/// `query_len` tokens per request (1, or 1 + k in a speculative verify).
pub(super) fn prefix(s: &Scenario, common: CommonPrefix, query_len: u32) -> u32 {
    if common.tokens == 0 || !flash_attn_backend(s) {
        return 0;
    }
    let tp = u64::from(s.engine.tp.max(1));
    let m = &s.model;
    let st = CascadeStep {
        common_tokens: common.tokens,
        min_computed: common.tokens,
        block_size: 1,
        num_reqs: common.reqs,
        query_len,
        // `get_num_attention_heads` = heads // tp; `get_num_kv_heads` = max(1, kv heads // tp).
        num_query_heads: (m.heads / tp).min(u64::from(u32::MAX)) as u32,
        num_kv_heads: (m.kv_heads / tp).max(1).min(u64::from(u32::MAX)) as u32,
        // The full-attention group (sliding and chunked layers are other groups: never cascaded).
        windowed: false,
        num_sms: s.hardware.gpu.sm_count,
        dcp: s.engine.dcp,
    };
    prefix_len(&st).min(u64::from(u32::MAX)) as u32
}
