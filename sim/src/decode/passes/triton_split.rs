//! longctx18 (issue #18): vLLM's TRITON_ATTN decode attention at small batch — the split-KV ("3-D")
//! kernel, its segment reduce, the KV tiles one program walks in series, and (0.12–0.13) the sliding
//! layers that read their whole context.
//!
//! What the releases do (read from the PyPI wheels, `v1/attention/backends/triton_attn.py` and
//! `attention/ops/triton_unified_attention.py`, `v1/attention/ops/` from 0.14):
//! - 0.13.0, 0.14.1, 0.15.1, 0.17.0, 0.19.0: `MIN_LAUNCH_GRID_SIZE_2D = 128`,
//!   `NUM_PAR_SOFTMAX_SEGMENTS = 16`; the metadata builder sets `seq_threshold_3D =
//!   MIN_LAUNCH_GRID_SIZE_2D // num_kv_heads` (per rank) and, when the compilation config's
//!   `cudagraph_mode` is FULL, FULL_DECODE_ONLY or FULL_AND_PIECEWISE, replaces it with the CUDA-graph
//!   capture size closest to it. `unified_attention` runs `kernel_unified_attention_2d` (one launch)
//!   when `max_seqlen_q > 1` or `num_seqs > seq_threshold_3D`, else `kernel_unified_attention_3d` over
//!   the grid (q blocks, KV heads, 16 segments) and `reduce_segments`: two launches.
//! - 0.12.0: no threshold from the builder; the 3-D kernel runs unless `max_seqlen_q > 1` or
//!   `total_num_q_blocks × num_kv_heads > 128` (`total_num_q_blocks = tokens // BLOCK_Q + seqs`,
//!   `BLOCK_M = 16` up to 16 query heads per KV head, `BLOCK_Q = BLOCK_M / that`).
//! - Each 3-D program walks `tiles_per_segment = cdiv(seq_len, 16 × TILE_SIZE)` tiles of
//!   `TILE_SIZE_DECODE` = 16 tokens (a 16-bit or wider query; 0.13+: 32 for Gemma-3's head size 128/256
//!   with a 1024 window) in one `for j in range(...)` loop. 0.14.1+ start and stop that loop at a
//!   sliding layer's window (`tile_start` / `tile_end` from `first_allowed_key`); 0.12.0 and 0.13.0
//!   do not: a sliding layer's 3-D program loads every tile of the context and masks the scores, so
//!   the layer reads its whole context's KV (the 2-D kernel prunes in all three).
//!
//! The cost. One decode of gpt-oss-20b at TP 1 (64 query, 8 KV heads) is (1 // 2 + 1) × 8 × 16 = 128
//! programs on a 188-SM RTX PRO 6000: one wave, one program of 4 warps an SM. Inside a program each
//! tile's K and V addresses come from the tile's block-table entry and the loop body is in program
//! order, so a tile's loads wait at least one device-memory round trip (`GpuSpec::dram_latency_ns`)
//! — Little's law with a 4 KiB tile (16 tokens × 64 × 2 B, K and V) in flight per program: 128 × 4 KiB
//! = 512 KiB in flight over 332 ns is at most 1.58 TB/s, and less once the index load and the tile's
//! softmax update sit on the same chain (not counted: no sourced figure). The KV part of the layer's
//! attention is therefore costed at least `longest program's tiles × dram_latency_ns` (a lower bound;
//! the streaming cost stands where it is larger). Software pipelining by Triton's `num_stages` would
//! overlap tiles; it is not assumed (the index load sits in the same iteration as the loads it
//! addresses). Without `dram_latency_ns` on the GPU only the reduce launch and the 0.12–0.13 sliding
//! read apply.
//!
//! Applied under vLLM V1 (not `engine.v0`) 0.12–0.19 where the decode attention is TRITON_ATTN —
//! named (`engine.attention_backend`) or vLLM's own pick (`scenario::attention_backend::vllm_default`)
//! — to decode passes (`ctx > 0`, one query token a sequence) of full and sliding attention layers.
//! 0.16 and 0.18 are taken as their neighbours (not read); 0.11 and 0.20 are not read: nothing applied.
//! The capture sizes are vLLM's default list (1, 2, 4, then multiples of 8), not trimmed to
//! `max_num_seqs`.

use super::decode_attn::{DecodeAttn, decode_layer, unified_2d_programs};
use crate::scenario::Scenario;
use tpsim_model::llm::LayerWork;
use tpsim_model::units::Duration;

/// `NUM_PAR_SOFTMAX_SEGMENTS` (0.13–0.19 `triton_attn.py`; 0.12 `NUM_SEGMENTS = 16` in
/// `unified_attention`).
const SEGMENTS: u64 = 16;

/// `MIN_LAUNCH_GRID_SIZE_2D` (0.13–0.19); 0.12's `total_num_q_blocks * num_kv_heads > 128`.
const MIN_GRID_2D: u64 = 128;

/// The split-KV launch of one decode pass of one layer (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Split {
    /// KV tiles the busiest program walks in series.
    pub tiles: u64,
    /// Whether the layer's KV reads cover its whole context (a sliding layer under 0.12–0.13).
    pub full_context: bool,
}

/// The CUDA-graph capture size closest to `n` in vLLM's default list (1, 2, 4, 8, 16, …, 248),
/// the smaller on a tie (`min(capture_sizes, key=…)` returns the first).
fn closest_capture_size(n: u64) -> u64 {
    let sizes = [1u64, 2, 4].into_iter().chain((8..256).step_by(8));
    sizes.min_by_key(|&c| c.abs_diff(n)).unwrap_or(1)
}

/// Tiles of the busiest program: `SEGMENTS` programs split `seq_len` into `tiles_per_segment`
/// tiles each; a pruned sliding layer walks only the tiles of its window (module doc).
fn busiest_tiles(seq_len: u64, tile: u64, window: Option<u64>) -> u64 {
    let num_tiles = seq_len.div_ceil(tile);
    let per_segment = seq_len.div_ceil(SEGMENTS * tile);
    let (start, end) = match window {
        // Decode: context_len = seq_len − 1, the one query at position 0.
        Some(w) => {
            let ctx = seq_len.saturating_sub(1);
            (
                (ctx + 1).saturating_sub(w) / tile,
                (ctx / tile + 1).min(num_tiles),
            )
        }
        None => (0, num_tiles),
    };
    (0..SEGMENTS)
        .map(|g| {
            let lo = (g * per_segment).max(start);
            let hi = ((g + 1) * per_segment).min(end);
            hi.saturating_sub(lo)
        })
        .max()
        .unwrap_or(0)
}

/// The 3-D launch of layer `l` in a decode pass of `seqs` sequences, `tokens` query tokens, context
/// `ctx`, or `None` where vLLM runs the 2-D kernel, another backend, or a prefill (module doc).
pub(super) fn split(a: &DecodeAttn, l: &LayerWork, seqs: u32, tokens: u32, ctx: u32) -> Option<Split> {
    // vLLM V1 0.12–0.19 where TRITON_ATTN decodes the model.
    let m = a.vllm?.runs("TRITON_ATTN", 12, 19)?;
    // A decode pass (`max_seqlen_q == 1`); a full layer with a window is DSA's top-k (not
    // TRITON_ATTN's): left alone.
    let sliding = decode_layer(l, seqs, tokens, ctx)?;
    let (seqs, tokens) = (u64::from(seqs), u64::from(tokens));
    // families39 (issue #17): a two-kind model's sliding layers (`llm::mimo_v2`: MiMo-V2-Flash,
    // Step-3.5, Gemma 4) run the kernel with their own KV heads and head size (vLLM builds one
    // `Attention` a layer with its kind's widths).
    let (kv, head_size) = match (sliding, a.model.mimo_v2) {
        (true, Some(k)) => {
            let tp = u64::from(crate::decode::dp_attention::attention_tp(&a.s.engine).max(1));
            ((k.swa_kv_heads / tp).max(1), k.swa_head_dim)
        }
        _ => (a.kv_heads, a.model.head_dim),
    };
    let three_d = if m == 12 {
        unified_2d_programs(kv, a.group, seqs, tokens) <= MIN_GRID_2D
    } else {
        let threshold = MIN_GRID_2D / kv;
        let threshold = if a.full_graphs {
            closest_capture_size(threshold)
        } else {
            threshold
        };
        seqs <= threshold
    };
    if !three_d {
        return None;
    }
    let window = if sliding { l.kv_window } else { None };
    // `_is_gemma3_attention(head_size, sliding_window)`: the (128 | 256, 1024) signature, which
    // Gemma 4's 256-wide sliding layers share (0.19.0 `triton_unified_attention.py`).
    let gemma3 = m >= 13 && window == Some(1024) && matches!(head_size, 128 | 256);
    let tile = if gemma3 { 32 } else { 16 };
    // 0.12–0.13 do not prune a sliding layer's tiles in the 3-D kernel.
    let prunes = m >= 14;
    let tiles = busiest_tiles(u64::from(ctx), tile, window.filter(|_| prunes));
    Some(Split {
        tiles,
        full_context: sliding && !prunes,
    })
}

/// The least time the layer's 3-D kernel takes to walk its tiles: the busiest program's tiles × the
/// GPU's device-memory latency (module doc); `None` without a latency figure.
pub(super) fn latency_floor(s: &Scenario, sp: Split) -> Option<Duration> {
    let ns = s.hardware.gpu.dram_latency_ns?;
    Some(Duration::from_us_f64(sp.tiles as f64 * ns / 1000.0))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    /// The decode-attention facts of `s`'s own model.
    fn attn(s: &Scenario) -> DecodeAttn<'_> {
        DecodeAttn::new(s, &s.model)
    }
    use tpsim_model::llm::Mixer;

    /// gpt-oss-20b on one RTX PRO 6000 under vLLM `version` with extra `[engine]` lines.
    fn load(version: &str, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"rtx-pro-6000-2x-turin-same-numa\"\n[model]\npreset = \"gpt-oss-20b\"\n\
             [engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 1\n{extra}\n[workload]\n\
             concurrency = 1\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("triton-split.toml")).expect("scenario")
    }

    /// (full layer, sliding layer) of gpt-oss-20b.
    fn layers(s: &Scenario) -> (LayerWork, LayerWork) {
        let fp = s.model.forward_pass(s.engine.tp, 1);
        let f = |m: Mixer| *fp.layers.iter().find(|l| l.mixer == m).expect("layer");
        (f(Mixer::Attention), f(Mixer::SlidingAttention))
    }

    /// 128,000 tokens of context: the busiest full-layer program walks cdiv(128000, 16 × 16) = 500
    /// tiles (8,000 tokens); a pruned sliding layer (window 128, context_len 127,999) walks tiles
    /// 7,992 (= 127,872 // 16) to 7,999 (= 127,999 // 16): 8 tiles, all in the last segment
    /// (tiles 7,500-7,999).
    #[test]
    fn gpt_oss_20b_128k_at_batch_1() {
        let s = load("0.14.1", "");
        let (full, slide) = layers(&s);
        assert_eq!(slide.kv_window, Some(128));
        let f = split(&attn(&s), &full, 1, 1, 128_000).expect("3-D");
        assert_eq!(
            f,
            Split {
                tiles: 500,
                full_context: false
            }
        );
        let w = split(&attn(&s), &slide, 1, 1, 128_000).expect("3-D");
        assert_eq!(
            w,
            Split {
                tiles: 8,
                full_context: false
            }
        );
        // 500 × 332.3 ns = 166.15 µs; 8 × 332.3 = 2.6584 µs (exact to the ps).
        assert_eq!(latency_floor(&s, f), Some(Duration::from_ns(166_150)));
        assert_eq!(latency_floor(&s, w), Some(Duration::from_ps(2_658_400)));
        // 0.13.0 walks every tile of a sliding layer's segment: 500, and reads the whole context.
        let s13 = load("0.13.0", "");
        let w13 = split(&attn(&s13), &slide, 1, 1, 128_000).expect("3-D");
        assert_eq!(
            w13,
            Split {
                tiles: 500,
                full_context: true
            }
        );
    }

    /// The 2-D / 3-D switch at TP 1 (8 KV heads): 0.14.1 with FULL_AND_PIECEWISE graphs — 128 // 8 =
    /// 16, a capture size — 3-D up to 16 sequences, 2-D from 17; 0.12.0's grid rule (s // 2 + s) × 8
    /// ≤ 128: 3-D up to 11 sequences ((5 + 11) × 8 = 128), 2-D from 12 ((6 + 12) × 8 = 144). A
    /// prefill or mixed pass (tokens > seqs) is always 2-D.
    #[test]
    fn the_batch_threshold() {
        let s = load("0.14.1", "");
        let (full, _) = layers(&s);
        assert!(split(&attn(&s), &full, 16, 16, 4096).is_some());
        assert!(split(&attn(&s), &full, 17, 17, 4096).is_none());
        assert!(split(&attn(&s), &full, 1, 2, 4096).is_none());
        assert!(split(&attn(&s), &full, 1, 1024, 0).is_none());
        let s12 = load("0.12.0", "");
        assert!(split(&attn(&s12), &full, 11, 11, 4096).is_some());
        assert!(split(&attn(&s12), &full, 12, 12, 4096).is_none());
    }

    /// Another backend (H100: vLLM 0.14.1 picks FLASH_ATTN, FA3 takes the sinks), or a release not
    /// read (0.11, 0.20): nothing.
    #[test]
    fn only_triton_attn_in_the_releases_read() {
        let (full, _) = layers(&load("0.14.1", ""));
        let text = "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"gpt-oss-20b\"\n[engine]\n\
                    name = \"vllm\"\nversion = \"0.14.1\"\ntp = 1\n[workload]\nconcurrency = 1\n\
                    prompt_len = 1024\noutput_len = 16\n";
        let h100 = load_str(text, Path::new("h100.toml")).expect("scenario");
        assert!(split(&attn(&h100), &full, 1, 1, 4096).is_none());
        for v in ["0.11.0", "0.20.0"] {
            let s = load(v, "");
            assert!(split(&attn(&s), &full, 1, 1, 4096).is_none(), "{v}");
        }
    }

    /// vLLM's capture sizes: 128 // 3 = 42 → 40; 128 // 6 = 21 → 24; 128 // 7 = 18 → 16; 12 → 8
    /// (tie 8/16: the first).
    #[test]
    fn capture_size_rounding() {
        assert_eq!(closest_capture_size(42), 40);
        assert_eq!(closest_capture_size(21), 24);
        assert_eq!(closest_capture_size(18), 16);
        assert_eq!(closest_capture_size(12), 8);
        assert_eq!(closest_capture_size(128), 128);
    }
}
