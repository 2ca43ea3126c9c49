//! a40misses (issue #17): FlashAttention-2's decode of a sliding-window layer reads its KV once per
//! **query** head, not once per KV head.
//!
//! vLLM's V1 FlashAttention backend passes a sliding layer's window as `window_size =
//! (sliding_window - 1, 0)` and a full layer's as `(-1, -1)` (vLLM 0.8.5 wheel,
//! `v1/attention/backends/flash_attn.py`, `FlashAttentionImpl.__init__` and its
//! `flash_attn_varlen_func(..., window_size=self.sliding_window, ...)` call). FlashAttention-2's
//! `mha_varlen_fwd` (vllm-project/flash-attention `csrc/flash_attn/flash_api.cpp`, commit 04325b6)
//! packs a decode's query heads of one KV head into one tile only when
//! `seqlenq_ngroups_swapped = max_seqlen_q == 1 && num_heads > num_heads_k && window_size_left < 0
//! && window_size_right < 0 && ...`, decided before the window is clipped to the context; only that
//! branch sets up split-KV ("Only apply split-k for decoding"). A sliding layer (right window 0, not
//! below 0) so runs one thread block per (sequence, query head), each streaming its KV head's cache:
//! the layer's KV bytes are read `num_heads / num_heads_k` times (per rank), where a full layer
//! reads them once. Whether a block finds its sibling's KV in L2 is not modelled (A40: 6 MB of L2
//! against hundreds of KB of KV per sequence and head), so this is the no-reuse count.
//!
//! Where it applies (each condition read, nothing fitted):
//! - vLLM's V1 engine (`engine.v0` unset) with its FlashAttention backend: named
//!   (`engine.attention_backend = "FLASH_ATTN"`), the default tpsim picks for the release
//!   (`scenario::attention_backend::vllm_default`, 0.11–0.20), or — without a pick — a 0.8.x
//!   release, whose V1 selector returns `FlashAttentionBackend` on every GPU of SM ≥ 8.0 (vLLM 0.8.5
//!   `platforms/cuda.py`, `get_attn_backend_cls`); 0.9–0.10 are not read and are left uncharged;
//! - FlashAttention **2**: vLLM picks FA3 only on SM 9.x (0.8.5 `attention/utils/fa_utils.py`,
//!   `get_flash_attn_version`), and this is applied on SM 8.x and 12.x only (SM 10.x: later releases
//!   carry FA4 there, not read);
//! - a decode pass (one query token per sequence) of a `SlidingAttention` layer with grouped KV heads.
//!   A forward that also carries a prefill chunk has `max_seqlen_q > 1`, where no layer is swapped;
//!   that extra cost of mixed steps is not modelled.

use super::decode_attn::DecodeAttn;
use tpsim_model::llm::{LayerWork, Mixer};

/// The number of times a decode pass of layer `l` reads that layer's KV cache on one rank: the
/// query heads per KV head on the rank where FlashAttention-2 does not pack them (module doc), else
/// 1.
pub(super) fn kv_read_factor(a: &DecodeAttn, l: &LayerWork) -> u64 {
    if l.mixer != Mixer::SlidingAttention || !fa2_v1(a) {
        return 1;
    }
    // Query heads per KV head on the rank (a rank holds at least one KV head).
    a.group
}

/// Whether the scenario's decode attention runs vLLM V1's FlashAttention backend on
/// FlashAttention-2 (module doc).
fn fa2_v1(a: &DecodeAttn) -> bool {
    let Some(v) = a.vllm else { return false };
    let cc = a.s.hardware.gpu.compute_capability.as_str();
    if !(cc.starts_with("8.") || cc.starts_with("12.")) {
        return false;
    }
    match v.backend {
        Some(b) => b == "FLASH_ATTN",
        None => v.minor == Some(8),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::{Scenario, load_str};
    use std::path::Path;

    /// `model` on `hw` under vLLM `version` with extra `[engine]` lines, one request.
    fn load(hw: &str, model: &str, version: &str, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"vllm\"\n\
             tp = 1\nversion = \"{version}\"\n{extra}\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("fa2-window.toml")).expect("scenario")
    }

    /// The factor of gemma-3-12b-it's layer `i` (layers 0–4 sliding, 5 global: sliding_window_pattern 6).
    fn factor(s: &Scenario, i: usize) -> u64 {
        let fp = s.model.forward_pass(1, 4);
        kv_read_factor(&DecodeAttn::new(s, &s.model), &fp.layers[i])
    }

    #[test]
    fn gemma_3_sliding_layers_read_their_kv_once_per_query_head_on_fa2() {
        // gemma-3-12b-it: 16 query heads, 8 KV heads: each sliding layer's KV is read 16 / 8 = 2 times
        // on an A40 (SM 8.6) under vLLM 0.8.5; the global layer (index 5) once.
        let a40 = load("a40-1x", "gemma-3-12b-it", "0.8.5", "");
        assert_eq!(factor(&a40, 0), 2);
        assert_eq!(factor(&a40, 4), 2);
        assert_eq!(factor(&a40, 5), 1);
        // FA3 on Hopper packs the heads: no factor.
        let h100 = load("h100-sxm-1x", "gemma-3-12b-it", "0.8.5", "");
        assert_eq!(factor(&h100, 0), 1);
        // vLLM 0.9 / 0.10 without a backend named: not read, not charged; named FLASH_ATTN: charged.
        assert_eq!(factor(&load("a40-1x", "gemma-3-12b-it", "0.10.0", ""), 0), 1);
        let named = load(
            "a40-1x",
            "gemma-3-12b-it",
            "0.10.0",
            "attention_backend = \"FLASH_ATTN\"",
        );
        assert_eq!(factor(&named, 0), 2);
        // Another backend (FlashInfer) named: not this kernel.
        let fi = load(
            "a40-1x",
            "gemma-3-12b-it",
            "0.8.5",
            "attention_backend = \"FLASHINFER\"",
        );
        assert_eq!(factor(&fi, 0), 1);
        // A model without sliding layers (Llama-3.1-8B, GQA 4) is untouched.
        let llama = load("a40-1x", "llama-3.1-8b", "0.8.5", "");
        assert_eq!(factor(&llama, 0), 1);
    }
}
