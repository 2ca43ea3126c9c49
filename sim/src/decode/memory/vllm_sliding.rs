//! vLLM's KV-cache groups of a sliding-window model (gpt-oss, Gemma 2 / 3, MiMo-V2-Flash, Step-3.5,
//! Gemma 4: full and sliding layers in groups of `group_size`, the hybrid KV cache manager on, no
//! Mamba state) seen per request: what one request of `max_model_len` tokens holds
//! (`tpsim_model::vllm_sliding_check::SlidingCheck`), for the start-up check (`vllm_sliding_refusal`
//! in the parent) and, families39, for the "GPU KV cache size" line of 0.21.0 on (a memory note: the
//! pool tpsim serves stays `num_blocks // num_groups × block`).
//!
//! vLLM 0.21.0 `v1/core/kv_cache_utils.py` `_report_kv_cache_config`: "GPU KV cache size" =
//! `int(max_concurrency × max_model_len)`, `get_max_concurrency_for_kv_cache_config` = `num_blocks /
//! cdiv(group_size × Σ_groups spec.max_memory_usage_bytes, page × group_size)` — a full group's pages
//! for the whole length, a sliding group's for its window (`cdiv(min(window − 1 +
//! max_num_batched_tokens, len), block) + 1`). 0.20.0 and before: `num_blocks // num_groups ×
//! block_size` (the parent's `VllmKvGroups::reported_tokens`). The same switch as the Mamba hybrids'
//! (`tpsim_model::vllm_hybrid::VllmHybridRules::tokens_from_concurrency`). Public check: vLLM issue
//! 43308 (Gemma 4 31B AWQ, one A100 80GB, the same ~50 GB of KV): "~55k tokens" under 0.20.0, "~525k"
//! under 0.21.0.

use super::{Scenario, VllmLayout};
use tpsim_model::llm::Mixer;
use tpsim_model::vllm_hybrid::VllmHybridRules;
use tpsim_model::vllm_sliding_check::SlidingCheck;

/// The per-request view of the model's groups under its release's rules, and those rules; `None`
/// where the model has no separate sliding-window groups (a Mamba hybrid, one group, no sliding
/// layer or window). Layers are padded to whole groups where the release counts by group (0.14 on).
pub(super) fn check(
    s: &Scenario,
    layout: &VllmLayout,
    total_gib: f64,
) -> Option<(SlidingCheck, VllmHybridRules)> {
    let e = &s.engine;
    let window = s.model.sliding_window?;
    if layout.hybrid.is_some()
        || layout.groups.num_groups < 2
        || !s.model.mixers.contains(&Mixer::SlidingAttention)
    {
        return None;
    }
    let sliding = u64::from(s.model.sliding_layers());
    let full = u64::from(s.model.kv_layers()) - sliding;
    let gs = layout.groups.group_size.max(1);
    let version = e.release().version;
    let rules = VllmHybridRules::for_release(crate::engine_args_versions::release(&version).as_deref());
    let pad = |n: u64| {
        if rules.check_by_groups {
            n.div_ceil(gs) * gs
        } else {
            n
        }
    };
    let (tokens, _) = super::super::vllm_parts::batch_shape(s, total_gib);
    let check = SlidingCheck {
        full_layers: pad(full),
        sliding_layers: pad(sliding),
        window,
        max_num_batched_tokens: tokens,
        block_size: layout.block_size.max(1),
        layer_token_bytes: layout.plan_cell / gs,
        // families39 (issue #17): two page sizes unified (MiMo-V2-Flash, Step-3.5, Gemma 4).
        block_mults: s
            .model
            .mimo_v2_vllm_block_mults(e.tp, crate::scenario::vllm_diffkv::pads_v(&version))
            .unwrap_or((1, 1)),
    };
    Some((check, rules))
}

/// "GPU KV cache size" of a sliding-window model under vLLM 0.21.0 on (module doc): `int(num_blocks /
/// pages a request × max_model_len)`; `None` before 0.21.0 or without sliding groups (the parent's
/// figure is the log's).
pub(super) fn reported_tokens(
    s: &Scenario,
    layout: &VllmLayout,
    num_blocks: u64,
    max_model_len: u64,
    total_gib: f64,
) -> Option<u64> {
    let (check, rules) = check(s, layout, total_gib)?;
    if !rules.tokens_from_concurrency || !rules.check_by_groups {
        return None;
    }
    let gs = layout.groups.group_size.max(1);
    let page = check.block_size.saturating_mul(check.layer_token_bytes).max(1);
    // The layers are whole groups: Σ over groups of a spec's bytes = needed / group_size.
    let pages = (check.needed_bytes(max_model_len) / gs).div_ceil(page).max(1);
    Some((num_blocks as f64 / pages as f64 * max_model_len as f64) as u64)
}

/// The memory note with vLLM 0.21.0+'s "GPU KV cache size" line ([`reported_tokens`]) beside tpsim's
/// pool (`blocks_tokens`: num_blocks, the tokens every group holds at once), which its scheduler
/// serves: a short request fills its sliding groups as much as its full ones.
pub(super) fn reported_note(
    s: &Scenario,
    layout: &VllmLayout,
    (num_blocks, pool_tokens): (u64, u64),
    max_model_len: u64,
    total_gib: f64,
) -> Option<String> {
    let t = reported_tokens(s, layout, num_blocks, max_model_len, total_gib)?;
    Some(format!(
        "vLLM: \"GPU KV cache size: {} tokens\" (0.21.0 on: int(max_concurrency × max_model_len), a \
         request's sliding-window groups holding its window only); tpsim's KV tokens are the {} every group \
         holds at once (num_blocks // groups × block)",
        commas(t),
        commas(pool_tokens)
    ))
}

/// `f"{n:,}"`: digits in groups of three.
fn commas(n: u64) -> String {
    let d = n.to_string();
    let mut out = String::new();
    for (i, c) in d.chars().enumerate() {
        if i > 0 && (d.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn commas_as_python() {
        assert_eq!(super::commas(536_776), "536,776");
        assert_eq!(super::commas(1_000), "1,000");
        assert_eq!(super::commas(999), "999");
    }
}
