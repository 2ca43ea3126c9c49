//! Decode batch sizes as the engines' CUDA graphs see them (issue #18 point 4): a decode batch runs
//! the smallest captured graph that holds it, so it costs the padded size; a batch above the largest
//! captured size runs eager. Bucketing also keeps the shape cache small.
//!
//! - SGLang 0.5.9 `server_args.py` `_generate_cuda_graph_batch_sizes`: without speculation
//!   1, 2, 4, 8, 12, then 16..=256 step 8, 272..<512 step 16, 512..=max step 32; with speculation
//!   1..=8, 10..=32 step 2, 40..=64 step 4, 72..=256 step 8, 272..=max step 16; sizes above
//!   `cuda_graph_max_bs` dropped. `cuda_graph_max_bs` is the per-card default of
//!   `_handle_gpu_memory_settings` (`tpsim_model::memory::late_2025_buckets`).
//! - vLLM 0.11.0 `config/scheduler.py` (`cuda_graph_sizes` defaults to min(2 × max_num_seqs, 512))
//!   and `config/__init__.py` `_set_cudagraph_sizes`: 1, 2, 4, then multiples of 8 up to that size,
//!   none above `max_num_batched_tokens`.

use crate::scenario::{EngineKind, Scenario};

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
    match s.engine.kind {
        EngineKind::Sglang => {
            let max =
                tpsim_model::memory::late_2025_buckets(s.hardware.gpu.memory_total_mib, s.engine.tp).1 as u32;
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
        EngineKind::Vllm => {
            let max = (max_num_seqs * 2).min(512) as u32;
            [1u32, 2, 4]
                .into_iter()
                .chain((8..=max).step_by(8))
                .filter(|&b| b <= max && u64::from(b) <= max_num_batched_tokens)
                .collect()
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
