//! Issue #17: SGLang's DP attention in the per-rank memory plan and the scheduler's batch (the
//! iteration graph is `passes::dp_attention`).
//!
//! Each attention group is its own scheduler with its own KV pool (SGLang 0.5.9: one
//! `Scheduler`/`ModelRunner` per attention-DP rank): a rank holds its attention shard's KV heads
//! (`ModelSpec::kv_cell_bytes` at attn_tp) and the group admits `max_running_requests` of its own, the
//! server's `--max-running-requests` divided by dp (`model_runner.py`: `max_running_requests //
//! self.dp_size`, then capped by the request pool). The box so holds dp groups' requests at once.

use crate::scenario::{Engine, Scenario};
use tpsim_model::units::Bytes;

/// The TP size the attention (and so the KV cache and linear-attention state) is sharded by.
pub fn attention_tp(e: &Engine) -> u32 {
    e.dp_attention.map_or(e.tp, |d| d.attn_tp)
}

/// Attention-DP groups (1 without DP attention).
pub fn dp(e: &Engine) -> u32 {
    e.dp_attention.map_or(1, |d| d.dp)
}

/// Target weights one rank loads (`ModelSpec::weight_breakdown_dp_attention` under DP attention).
/// With pipeline parallelism (issue #17): the binding stage's (`pipeline::binding_stage`).
pub fn weights_per_rank(s: &Scenario) -> Bytes {
    if let Some(st) = super::pipeline::binding_stage(s) {
        return Bytes(st.weight_bytes);
    }
    // Issue #17 point 1 (vllmdp): vLLM DP on a MoE model (`tpsim_model::vllm_dp`).
    if let Some(v) = s.engine.vllm_dp {
        return Bytes(
            s.model
                .weight_breakdown_vllm_dp(v.tp, v.dp, v.ep, v.sequence_parallel)
                .total(),
        );
    }
    // dsv4run55 (issue #17): DeepSeek-V4's experts in the format SGLang's release picks on this GPU
    // (`ExpertFormat::sglang_cuda_by_release`).
    if let Some(g) = &s.model.deepseek_v4 {
        let release = crate::engine_args_versions::release(&s.engine.release().version).unwrap_or_default();
        let fmt = tpsim_model::llm::deepseek_v4_weights::ExpertFormat::sglang_cuda_by_release(
            g,
            &release,
            s.hardware.gpu.sm_major(),
        );
        if let Some(b) = s.model.deepseek_v4_breakdown_as(s.engine.tp, fmt) {
            return Bytes(b.total());
        }
    }
    let mut b = match s.engine.dp_attention {
        Some(d) => s.model.weight_breakdown_dp_attention(s.engine.tp, d.attn_tp),
        None => s.model.weight_breakdown(s.engine.tp),
    };
    // dpep17: under expert parallelism (SGLang `--ep-size` = tp, vLLM `--enable-expert-parallel` at
    // dp 1) a rank holds whole experts, not 1/tp of each (`ModelSpec::routed_experts_whole`).
    if s.engine.ep_size > 1 {
        b.routed_experts = s.model.routed_experts_whole(s.engine.ep_size);
    }
    // Issue #17 point 1 (ep): DeepEP's path holds the shared experts whole on every rank.
    let extra = if s.engine.dp_attention.is_none() {
        super::moe_a2a::extra_weights(s)
    } else {
        0
    };
    Bytes(b.total().saturating_add(extra))
}

/// A group's `max_running_requests` from the plan's (computed with the server's setting): with the
/// setting given, that divided by dp and capped by the request pool `max_num_reqs`.
pub fn per_group_running(e: &Engine, planned: u64, max_num_reqs: u64) -> u64 {
    match (e.dp_attention, e.max_running_requests) {
        (Some(d), Some(m)) => (m / u64::from(d.dp)).min(max_num_reqs),
        _ => planned,
    }
}

/// The target's KV cell per token on one rank: at the attention TP, or the binding pipeline
/// stage's (issue #17).
pub fn kv_cell(s: &Scenario) -> u64 {
    match super::pipeline::binding_stage(s) {
        Some(st) => st.kv_cell_bytes,
        None => s.model.kv_cell_bytes(attention_tp(&s.engine)),
    }
}
