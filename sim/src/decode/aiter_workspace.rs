//! vrows3 (issue #17 point 4): SGLang's `aiter` attention workspace as a late allocation of the
//! memory plan (`tpsim_model::aiter_workspace`): SGLang with `attention_backend = "aiter"` (its
//! default on ROCm) and an MHA model.

use super::MemKind;
use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::Attention;
use tpsim_model::units::Bytes;

/// The workspace allocation after the KV pool, when the scenario's backend is aiter on an MHA model.
/// `max_bs` is the request-pool size (`max_num_reqs`).
pub(super) fn late(s: &Scenario, max_bs: u64) -> Option<(MemKind, Bytes)> {
    let e = &s.engine;
    if e.kind != EngineKind::Sglang
        || e.attention_backend.as_deref() != Some("aiter")
        || matches!(s.model.attention, Attention::Mla { .. })
    {
        return None;
    }
    // `num_attention_heads // get_attention_tp_size()`.
    let heads = s.model.heads / u64::from(super::dp_attention::attention_tp(e).max(1));
    let bytes = tpsim_model::aiter_workspace::workspace_bytes(max_bs, heads, e.context_len, s.model.head_dim);
    Some((MemKind::AiterWorkspace, Bytes(bytes)))
}
