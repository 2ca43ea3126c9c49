//! mi300xoss (issue #17 point 4): the split-KV reduce kernel of AITER's Triton unified attention
//! (vLLM's `ROCM_AITER_UNIFIED_ATTN` backend on ROCm).
//!
//! vLLM 0.17.0's backend (`v1/attention/backends/rocm_aiter_unified_attn.py`, PyPI wheel) calls
//! `aiter.ops.triton.unified_attention` with the layer's `window_size` and sinks. AITER v0.1.10.post3
//! (the `AITER_BRANCH` of vLLM's `docker/Dockerfile.rocm_base` in March 2026; tag commit 6a0e7b26,
//! 2026-02-11), `aiter/ops/triton/attention/unified_attention.py`, picks per call:
//! - `BLOCK_M = 16` when a KV head has at most 16 query heads (else their next power of two),
//!   `BLOCK_Q = BLOCK_M / (query heads per KV head)`;
//! - `num_2d_prgms = (q_tokens // BLOCK_Q + num_seqs) × kv_heads` (per rank), `target_num_prgms =
//!   4 × CUs`;
//! - the 2-D kernel, one launch, when `sliding_window > 0`, or `max_seqlen_k <= 512`, or
//!   `num_2d_prgms > target_num_prgms`; otherwise `kernel_unified_attention_3d` over segments of the
//!   context **and** `reduce_segments`: two launches.
//!
//! So a full-attention layer (no window) of a small batch over contexts above 512 tokens launches
//! one kernel more than the one attention kernel tpsim counts (`tpsim_model::llm::forward::
//! attention_kernels`). Its bytes (the segments' fp32 partial outputs, ≤ 0.3 MB a layer for
//! gpt-oss at one sequence) are not charged; its fixed per-kernel cost is. The sliding layers always
//! take the 2-D kernel, which starts at the window's first tile (`tile_start` from
//! `first_allowed_key`): they read only their window, as tpsim already charges.
//!
//! Applied only where the scenario names the backend (`engine.attention_backend =
//! "ROCM_AITER_UNIFIED_ATTN"`) under vLLM; `max_seqlen_k` is taken as the pass's context (a decode
//! or mixed pass) or its prompt length (a prefill), the batch's mean, not its longest.

use super::decode_attn::{DecodeAttn, unified_2d_programs};
use crate::scenario::EngineKind;
use tpsim_model::llm::{LayerWork, Mixer};

/// AITER's 2-D / 3-D threshold on the context: `max_seqlen_k <= 512` takes the 2-D kernel
/// (`use_2d_kernel`, AITER v0.1.10.post3).
const MAX_2D_SEQLEN_K: u64 = 512;

/// AITER's target grid: `target_num_prgms = cu_count * 4` (`unified_attention`, v0.1.10.post3).
const PROGRAMS_PER_CU: u64 = 4;

/// Extra kernels layer `l` launches in a pass of `seqs` sequences, `tokens` query tokens and
/// context `ctx` (0 for a prefill) under AITER's unified attention: 1 (the segment reduce) where
/// AITER picks its 3-D kernel, else 0 (module doc).
pub(super) fn reduce_kernels(a: &DecodeAttn, l: &LayerWork, seqs: u32, tokens: u32, ctx: u32) -> u32 {
    let s = a.s;
    if s.engine.kind != EngineKind::Vllm
        || s.engine.attention_backend.as_deref() != Some("ROCM_AITER_UNIFIED_ATTN")
        || l.mixer != Mixer::Attention
        || l.attn_kernels == 0
        || seqs == 0
    {
        return 0;
    }
    let (seqs, tokens) = (u64::from(seqs), u64::from(tokens));
    let seqlen_k = if ctx > 0 {
        u64::from(ctx)
    } else {
        tokens.div_ceil(seqs)
    };
    if seqlen_k <= MAX_2D_SEQLEN_K {
        return 0;
    }
    let programs = unified_2d_programs(a.kv_heads, a.group, seqs, tokens);
    let target = PROGRAMS_PER_CU * u64::from(s.hardware.gpu.sm_count);
    u32::from(programs <= target)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, load_str};
    use std::path::Path;

    /// The decode-attention facts of `s`'s own model.
    fn attn(s: &Scenario) -> DecodeAttn<'_> {
        DecodeAttn::new(s, &s.model)
    }

    /// gpt-oss-120b on the MI300X box (304 CUs) under vLLM 0.17.0 at `tp`, backend line `extra`.
    fn load(tp: u32, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"mi300x-8x-xgmi\"\n[model]\npreset = \"gpt-oss-120b\"\n[engine]\n\
             name = \"vllm\"\nversion = \"0.17.0\"\ntp = {tp}\n{extra}\n[workload]\nconcurrency = 1\n\
             prompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("aiter-unified.toml")).expect("scenario")
    }

    const AITER: &str = "attention_backend = \"ROCM_AITER_UNIFIED_ATTN\"";

    /// (full layer, sliding layer) of gpt-oss-120b: layer 0 slides, layer 1 is full (the
    /// alternating `layer_types` of its config).
    fn layers(s: &Scenario) -> (LayerWork, LayerWork) {
        let fp = s.model.forward_pass(s.engine.tp, 1);
        let full = *fp
            .layers
            .iter()
            .find(|l| l.mixer == Mixer::Attention)
            .expect("full");
        let slide = *fp
            .layers
            .iter()
            .find(|l| l.mixer == Mixer::SlidingAttention)
            .expect("sliding");
        (full, slide)
    }

    /// TP 8 (8 query heads, 1 KV head a rank: BLOCK_M 16, BLOCK_Q 2), one decode sequence at 1,024
    /// tokens: (1 // 2 + 1) × 1 = 1 program ≤ 4 × 304 → 3-D + reduce. A sliding layer: 2-D.
    #[test]
    fn tp8_single_decode_takes_the_3d_kernel_on_full_layers_only() {
        let s = load(8, AITER);
        let (full, slide) = layers(&s);
        assert_eq!(reduce_kernels(&attn(&s), &full, 1, 1, 1024), 1);
        assert_eq!(reduce_kernels(&attn(&s), &slide, 1, 1, 1024), 0);
        // At 512 tokens of context the 2-D kernel runs (`max_seqlen_k <= 512`).
        assert_eq!(reduce_kernels(&attn(&s), &full, 1, 1, 512), 0);
        assert_eq!(reduce_kernels(&attn(&s), &full, 1, 1, 513), 1);
    }

    /// TP 1 (64 query, 8 KV heads: BLOCK_Q 2), decode at 1,383 tokens: B sequences give
    /// (B // 2 + B) × 8 programs against 1,216: 3-D up to B = 101 (1,208), 2-D from 102 (1,224).
    /// A prefill of 922 tokens: (461 + 1) × 8 = 3,696 → 2-D.
    #[test]
    fn tp1_switches_to_2d_above_101_sequences() {
        let s = load(1, AITER);
        let (full, _) = layers(&s);
        assert_eq!(reduce_kernels(&attn(&s), &full, 64, 64, 1383), 1);
        assert_eq!(reduce_kernels(&attn(&s), &full, 101, 101, 1383), 1);
        assert_eq!(reduce_kernels(&attn(&s), &full, 102, 102, 1383), 0);
        assert_eq!(reduce_kernels(&attn(&s), &full, 1, 922, 0), 0);
        // TP 8 prefill of the same prompt: (461 + 1) × 1 = 462 programs → 3-D.
        let s8 = load(8, AITER);
        let (full8, _) = layers(&s8);
        assert_eq!(reduce_kernels(&attn(&s8), &full8, 1, 922, 0), 1);
    }

    /// Another backend, or none named: nothing added.
    #[test]
    fn only_the_named_backend() {
        for extra in ["", "attention_backend = \"TRITON_ATTN\""] {
            let s = load(8, extra);
            let (full, _) = layers(&s);
            assert_eq!(reduce_kernels(&attn(&s), &full, 1, 1, 1024), 0, "{extra}");
        }
    }
}
