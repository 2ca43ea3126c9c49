//! Decode batch sizes as the engines' CUDA graphs see them (issue #18 point 4): a decode batch runs
//! the smallest captured graph that holds it, so it costs the padded size; a batch above the largest
//! captured size runs eager. Bucketing also keeps the shape cache small.
//!
//! - SGLang 0.5.9 `server_args.py` `_generate_cuda_graph_batch_sizes`: without speculation
//!   1, 2, 4, 8, 12, then 16..=256 step 8, 272..<512 step 16, 512..=max step 32; with speculation
//!   1..=8, 10..=32 step 2, 40..=64 step 4, 72..=256 step 8, 272..=max step 16; sizes above
//!   `cuda_graph_max_bs` dropped. `cuda_graph_max_bs` is the user's `--cuda-graph-max-bs`, else the
//!   per-card default of `_handle_gpu_memory_settings` by release (`tpsim_model::sglang_buckets`);
//!   a user's `--cuda-graph-bs` list replaces the generated one (issue #17, graphs:
//!   `scenario::cuda_graphs`).
//! - vLLM 0.11.0 `config/scheduler.py` (`cuda_graph_sizes` defaults to [min(2 × max_num_seqs, 512)])
//!   and `config/__init__.py` `_set_cudagraph_sizes`: one value n gives 1, 2, 4, then multiples of 8
//!   up to n; several values are the list; none above `max_num_batched_tokens`. A
//!   `compilation_config.cudagraph_capture_sizes` list replaces it as given (`config/compilation.py`
//!   `init_with_cudagraph_sizes`: de-duplicated, not filtered).
//! - vLLM 0.12.0 (and 0.14.0, read too) `config/vllm.py` `_set_cudagraph_sizes`: max = min(`max_cudagraph_capture_size`
//!   (default min(2 × max_num_seqs, 512)), `max_num_batched_tokens`); a `--cudagraph-capture-sizes`
//!   list de-duplicated and filtered to `max_num_batched_tokens`, else 1, 2, 4 (each ≤ max),
//!   8..min(max + 1, 256) step 8, 256..=max step 16. (The rounding to multiples of 1 + k for
//!   speculative decoding is not applied: tpsim's vLLM speculative iterations are not padded.)

use crate::scenario::cuda_graphs::{CaptureKeys, VllmGraphRule};
use crate::scenario::{Engine, EngineKind, Scenario};

/// SGLang's `cuda_graph_max_bs` as the engine ends up with it: the scenario's (or the largest of
/// its `cuda_graph_bs`, or 0.5.22+'s default capped at `max_running_requests`), else the per-card
/// default of the release (`tpsim_model::sglang_buckets`, by `gpu_mem_mib` and tp). Its reserve, the
/// DP-attention reserve and the PCIe-IPC workspace read this value.
pub fn sglang_max_bs(e: &Engine, gpu_mem_mib: u64) -> u32 {
    use tpsim_model::sglang_buckets::{bucket_table, sglang_buckets};
    e.cuda_graphs
        .sglang_max_bs
        .unwrap_or_else(|| sglang_buckets(gpu_mem_mib, e.tp, bucket_table(&e.release().version)).1 as u32)
}

/// The captured decode batch sizes, ascending; empty when CUDA graphs are off.
/// `speculative`: the server runs speculative decoding (SGLang's list differs).
pub fn capture_sizes(
    s: &Scenario,
    speculative: bool,
    max_num_seqs: u64,
    max_num_batched_tokens: u64,
) -> Vec<u32> {
    if !s.engine.cuda_graph {
        return Vec::new();
    }
    let keys = &s.engine.cuda_graphs;
    match s.engine.kind {
        EngineKind::Sglang => match &keys.sglang_bs {
            Some(list) => list.clone(),
            None if !speculative && sglang_0_4_0_to_0_4_3(&s.engine.release().version) => sglang_0_4_list(
                &s.engine.release().version,
                keys.sglang_max_bs,
                s.hardware.gpu.memory_total_mib,
                s.engine.tp,
            ),
            None => sglang_list(
                sglang_max_bs(&s.engine, s.hardware.gpu.memory_total_mib),
                speculative,
            ),
        },
        EngineKind::Vllm => vllm_list(keys, max_num_seqs, max_num_batched_tokens).0,
    }
}

/// sched54: whether SGLang `version` is one of 0.4.0 – 0.4.3, whose decode graphs
/// [`sglang_0_4_list`] gives (read in the 0.4.0, 0.4.0.post1, 0.4.1 and 0.4.3 wheels; 0.4.2 taken
/// alike; 0.4.4 on keep 0.5.9's list here, not modelled by release).
pub fn sglang_0_4_0_to_0_4_3(version: &str) -> bool {
    let v = crate::scenario::release_order(version);
    v.as_slice() >= &[0, 4, 0, 0][..] && v.as_slice() < &[0, 4, 4, 0][..]
}

/// sched54: SGLang 0.4.0 – 0.4.3's decode graphs without speculation: `cuda_graph_runner.py`
/// captures 1, 2, 4, then 8..=160 step 8 (`[1, 2, 4] + [i * 8 for i in range(1, 21)]`), none above
/// `cuda_graph_max_bs`, whose default (`server_args.py` `__post_init__`, by nvidia-smi's memory in
/// MB) is 160 from 25,000 MB, below it 8 (0.4.0.x) or, from 0.4.1, 8 under tp 4 and 80 from tp 4.
/// A decode batch above the largest runs eager.
pub fn sglang_0_4_list(version: &str, max_bs: Option<u32>, gpu_mem_mib: u64, tp: u32) -> Vec<u32> {
    let v = crate::scenario::release_order(version);
    let max = max_bs.unwrap_or(if gpu_mem_mib >= 25_000 {
        160
    } else if v.as_slice() < &[0, 4, 1, 0][..] || tp < 4 {
        8
    } else {
        80
    });
    [1, 2, 4]
        .into_iter()
        .chain((8..=160).step_by(8))
        .filter(|&b| b <= max)
        .collect()
}

/// SGLang 0.5.9's generated list up to `max` (`_generate_cuda_graph_batch_sizes`).
pub fn sglang_list(max: u32, speculative: bool) -> Vec<u32> {
    let list: Vec<u32> = if !speculative {
        [1, 2, 4, 8, 12]
            .into_iter()
            .chain((16..=256).step_by(8))
            .chain((272..512).step_by(16))
            .chain((512..=max.max(512)).step_by(32))
            .collect()
    } else {
        (1..=8)
            .chain((10..=32).step_by(2))
            .chain((40..=64).step_by(4))
            .chain((72..=256).step_by(8))
            .chain((272..=max.max(272)).step_by(16))
            .collect()
    };
    list.into_iter().filter(|&b| b <= max).collect()
}

/// vLLM's capture list for the release's rule, ascending, and (0.12) the largest size the engine
/// settles on when it differs from a given `max_cudagraph_capture_size` (vLLM then logs
/// "Truncating max_cudagraph_capture_size to N", or refuses when a list was given too).
pub fn vllm_list(
    keys: &CaptureKeys,
    max_num_seqs: u64,
    max_num_batched_tokens: u64,
) -> (Vec<u32>, Option<u32>) {
    let tokens = u32::try_from(max_num_batched_tokens).unwrap_or(u32::MAX);
    let default_max = (max_num_seqs.saturating_mul(2)).min(512) as u32;
    let dedup = |l: &[u32]| {
        let mut v = l.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    };
    match keys.vllm_rule {
        VllmGraphRule::V0_11 => {
            if let Some(l) = &keys.vllm_capture_sizes {
                return (dedup(l), None);
            }
            let given = keys
                .vllm_cuda_graph_sizes
                .clone()
                .unwrap_or_else(|| vec![default_max]);
            let list = match given.as_slice() {
                [n] => [1u32, 2, 4].into_iter().chain((8..=*n).step_by(8)).collect(),
                l => dedup(l),
            };
            (list.into_iter().filter(|&b| b <= tokens).collect(), None)
        }
        VllmGraphRule::V0_12 => {
            let max = keys.vllm_max.unwrap_or(default_max).min(tokens);
            let list: Vec<u32> = match &keys.vllm_capture_sizes {
                Some(l) => dedup(l).into_iter().filter(|&b| b <= tokens).collect(),
                None => [1u32, 2, 4]
                    .into_iter()
                    .filter(|&b| b <= max)
                    .chain((8..(max.saturating_add(1)).min(256)).step_by(8))
                    .chain((256..=max.max(255)).step_by(16))
                    .collect(),
            };
            let valid = list.last().copied().unwrap_or(0);
            (list, keys.vllm_max.filter(|&m| m != valid).map(|_| valid))
        }
    }
}

/// The batch a decode of `batch` requests runs at: the smallest captured size ≥ `batch`, or
/// `batch` itself above the largest; the bool is true when graphs are on but this batch runs eager.
pub fn padded(sizes: &[u32], batch: u32) -> (u32, bool) {
    match sizes.iter().find(|&&b| b >= batch) {
        Some(&b) => (b, false),
        None => (batch, !sizes.is_empty()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn padding_picks_the_next_graph() {
        // SGLang's list without speculation begins 1, 2, 4, 8, 12, 16, 24: 3 → 4, 13 → 16, 17 → 24.
        let s: Vec<u32> = vec![1, 2, 4, 8, 12, 16, 24];
        assert_eq!(padded(&s, 3), (4, false));
        assert_eq!(padded(&s, 13), (16, false));
        assert_eq!(padded(&s, 17), (24, false));
        // Above the largest graph: eager at its own size.
        assert_eq!(padded(&s, 25), (25, true));
        // Graphs off: every batch as it is, on the eager builder already.
        assert_eq!(padded(&[], 25), (25, false));
    }
}
