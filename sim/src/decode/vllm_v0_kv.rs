//! vllmv0mem (issue #17 point 5): the KV cache of a scenario that runs vLLM's V0 engine
//! (`scenario::vllm_v0`), sized by the release's own `determine_num_available_blocks`
//! (`tpsim_model::vllm_v0_memory`) instead of V1's rule: V0's profile shape (256 dummy
//! sequences, `max(max_model_len, 2048)` tokens), no start-up free-memory check, whole blocks of
//! 16 tokens, the CPU blocks of `--swap-space`, and V0's own log lines.
//!
//! The parts subtracted are the plan's modelled (or observed) weights, profile peak activation and
//! non-torch growth — the three terms 0.6.5+ logs. Before 0.6.4 vLLM counts torch's *reserved*
//! bytes after the profile run (the caching allocator's segments, ≥ the allocated peak): tpsim has
//! no model of that rounding and uses the allocated figures (said in a note). 0.6.4 counts the CUDA
//! context too (the hardware preset's `context_overhead`).

use crate::scenario::Scenario;
use crate::scenario::vllm_v0::V0Engine;
use tpsim_model::memory::{VllmKvInput, VllmKvPlan};
use tpsim_model::vllm_v0_memory::{self as v0mem, V0KvInput, V0MemoryRule};

const GIB: f64 = (1u64 << 30) as f64;

/// The release's numeric components (`[0, 5, 3]`); V0 always has a release.
fn release(s: &Scenario) -> Vec<u64> {
    crate::engine_args_versions::release(&s.engine.release().version).unwrap_or_default()
}

/// V0's profile shape: `max_num_batched_tokens` (the scenario's, else V0's default for the
/// context and chunked prefill, `v0mem::default_batch_tokens`) and `max_num_seqs` (default 256).
pub(super) fn batch_shape(s: &Scenario, v0: &V0Engine) -> (u64, u64) {
    let len = super::memory::vllm_max_model_len(s);
    let chunked = v0
        .enable_chunked_prefill
        .unwrap_or(len > 32_768 && s.model.sliding_window.is_none() && s.speculative.is_none());
    let tokens = s
        .engine
        .max_num_batched_tokens
        .unwrap_or_else(|| v0mem::default_batch_tokens(&release(s), len, chunked));
    (
        tokens,
        s.engine.max_num_seqs.unwrap_or(v0mem::MAX_NUM_SEQS).min(tokens),
    )
}

/// What V0 prints at start-up, for `tpsim memory --log`.
#[derive(Debug, Clone, PartialEq)]
pub struct V0Log {
    /// 0.6.5 on: the two profiling lines after "Memory profiling takes … seconds".
    pub profiling: Vec<String>,
    /// "# GPU blocks: N, # CPU blocks: M" (0.7: "# cuda blocks").
    pub blocks: String,
    /// 0.6.3 on (`gpu_executor.py`): "Maximum concurrency for L tokens per request: C" as (L, C).
    pub concurrency: Option<(u64, f64)>,
}

/// V0's plan from the parts of `input` (V1's struct: the same three parts), with the notes it adds.
pub(super) fn plan(
    s: &Scenario,
    v0: &V0Engine,
    input: &VllmKvInput,
    max_model_len: u64,
    notes: &mut Vec<String>,
) -> (VllmKvPlan, V0Log) {
    let rel = release(s);
    let context_gib = s.hardware.params.context_overhead.as_gib_f64();
    let mut non_kv_gib = input.weights_gib + input.peak_activation_gib + input.non_torch_gib;
    if v0.memory == V0MemoryRule::AllocatedPeak {
        non_kv_gib += context_gib;
    }
    notes.push(v0.memory.describe().to_string());
    notes.push(
        "vLLM V0's profile-run sampler is costed with the sorting rule of V1 ≤ 0.12 (38 B per logit): V0's sampler \
         also sorts the logits (top-k = vocab − 1), its own buffers were not counted separately"
            .into(),
    );
    if v0.memory == V0MemoryRule::FreeDelta {
        notes.push(
            "vLLM V0 (< 0.6.4) counts torch's reserved segments after the profile run; tpsim counts the allocated \
             peak (the caching allocator's rounding is not modelled): the GPU blocks are an upper bound"
                .into(),
        );
    }
    if v0.memory_unread {
        notes.push(format!(
            "vLLM {}: the KV sizing of releases before 0.5 was not read; the 0.5.3 rule is applied (extrapolation)",
            s.engine.release().version
        ));
    }
    let block_bytes = input.block_size.max(1) * input.cell_size.max(1);
    let total_bytes = (input.total_gib * GIB) as u64;
    let p = v0mem::v0_kv_plan(&V0KvInput {
        total_bytes,
        gpu_memory_utilization: input.gpu_memory_utilization,
        non_kv_bytes: (non_kv_gib.max(0.0) * GIB) as u64,
        block_bytes,
        block_size: input.block_size.max(1),
        swap_space_bytes: v0.swap_space_bytes,
        max_model_len,
    });
    let requested = input.total_gib * input.gpu_memory_utilization;
    let available = p.available_bytes / GIB;
    let mut profiling = Vec::new();
    if v0.memory == V0MemoryRule::Profiling {
        // vLLM 0.6.5–0.7.3 `worker.py` `determine_num_available_blocks`' message.
        profiling.push(format!(
            "the current vLLM instance can use total_gpu_memory ({:.2}GiB) x gpu_memory_utilization ({:.2}) = {:.2}GiB",
            input.total_gib, input.gpu_memory_utilization, requested
        ));
        profiling.push(format!(
            "model weights take {:.2}GiB; non_torch_memory takes {:.2}GiB; PyTorch activation peak memory takes \
             {:.2}GiB; the rest of the memory reserved for KV Cache is {:.2}GiB.",
            input.weights_gib, input.non_torch_gib, input.peak_activation_gib, available
        ));
    }
    let log = V0Log {
        profiling,
        blocks: v0mem::blocks_line(&rel, p.gpu_blocks, p.cpu_blocks),
        // Read in 0.6.3 `executor/gpu_executor.py` (and 0.6.5–0.7.3); 0.5.3.post1 has no such line;
        // the releases between them were not read and are given it from 0.6.3.
        concurrency: (rel.as_slice() >= [0, 6, 3].as_slice()).then(|| {
            let c = (p.gpu_blocks * input.block_size) as f64 / max_model_len.max(1) as f64;
            (max_model_len, c)
        }),
    };
    let plan = VllmKvPlan {
        requested_gib: requested,
        available_kv_gib: available.max(0.0),
        blocks: p.gpu_blocks,
        tokens: p.gpu_blocks * input.block_size.max(1),
        error: p.error,
    };
    (plan, log)
}
