//! Issue #17: pipeline parallelism in the memory plan and the decode loop (the P2P sends between
//! stages are added by `passes`).
//!
//! Memory: every stage profiles its own rank (its layers' weights and KV cell, the embedding on the
//! first, the LM head on the last) and the engines size the KV cache by the binding stage — vLLM
//! takes the minimum block count over the workers (`v1/engine/core.py` `_initialize_kv_caches`:
//! `min(num_gpu_blocks)` over the workers' KV configs), SGLang the minimum available memory over the
//! world group (`model_runner.py` `get_available_gpu_memory(…, distributed=True)`) with each stage's
//! own layer count in its cell. tpsim plans the stage with the most weights per KV-cell byte
//! (the last on ties: vLLM's last stage also carries the sampler's profile peak, engine-memory.tsv
//! line 24); `[engine.observed]` figures are taken as that stage's.
//!
//! Decode: both engines keep pp micro-batches in flight (vLLM v1 `max_concurrent_batches =
//! pipeline_parallel_size` with its batch queue; SGLang's `event_loop_pp` with pp micro-batches), so
//! in steady state every stage is busy and each micro-batch of ⌈batch / pp⌉ requests advances one
//! token per pass through all stages: an iteration is one micro-batch's pass (all stages in
//! sequence with the hidden states sent between them), and every running request gets its token
//! in that time. vllmpp59: vLLM 0.16+'s V1 runner with async scheduling puts every running request
//! in every step, each step's first stage waiting for the last stage's tokens of the step before
//! (`scenario::vllm_pp_async`): an iteration is then the whole batch's pass, the host's step hidden
//! (the sampled tokens' GPU broadcast, a few bytes a request, is not costed); Model Runner V2
//! (0.34.0) staggers ⌈batch / pp⌉ micro-batches as above, its host's step hidden.

use crate::scenario::Scenario;
use tpsim_model::pipeline::{Partition, Stage};

/// The engine's partition rule.
pub fn partition(s: &Scenario) -> Partition {
    match s.engine.kind {
        crate::scenario::EngineKind::Vllm => Partition::Vllm,
        crate::scenario::EngineKind::Sglang => Partition::Sglang,
    }
}

/// The stages at the scenario's (tp, pp).
pub fn stages(s: &Scenario) -> Vec<Stage> {
    s.model.pipeline_stages(s.engine.tp, s.engine.pp, partition(s))
}

/// The stage whose rank bounds the KV cache (see the module note), when pp > 1.
pub fn binding_stage(s: &Scenario) -> Option<Stage> {
    if s.engine.pp <= 1 {
        return None;
    }
    // Tokens ∝ (budget − weights) / cell: with equal budgets the stage with the largest weights per
    // cell byte at the margin binds. Compare (weights, cell) by budget-free ranking: fewest tokens
    // for a budget of the largest stage's weights plus one GiB (all stages' KV budgets differ from
    // that by their own weights only).
    let st = stages(s);
    let budget = st.iter().map(|x| x.weight_bytes).max()? + (1 << 30);
    st.into_iter().rev().min_by(|a, b| {
        let ta = (budget - a.weight_bytes) as f64 / a.kv_cell_bytes.max(1) as f64;
        let tb = (budget - b.weight_bytes) as f64 / b.kv_cell_bytes.max(1) as f64;
        ta.total_cmp(&tb)
    })
}

/// Requests per micro-batch: ⌈batch / pp⌉; the whole batch without PP, and under vLLM 0.16+'s V1
/// runner with async scheduling, which schedules every running request in every step
/// (vllmpp59: `PpDecode::WholeBatch`, `scenario::vllm_pp_async`).
pub fn micro_batch(s: &Scenario, batch: u32) -> u32 {
    if s.engine.pp_decode == crate::scenario::vllm_pp_async::PpDecode::WholeBatch {
        return batch.max(1);
    }
    batch.div_ceil(s.engine.pp.max(1)).max(1)
}

/// The layer indices after which a stage ends (all but the last stage's end).
pub fn stage_ends(s: &Scenario) -> Vec<usize> {
    if s.engine.pp <= 1 {
        return Vec::new();
    }
    let st = stages(s);
    st[..st.len() - 1]
        .iter()
        .map(|x| x.layers.1 as usize - 1)
        .collect()
}
