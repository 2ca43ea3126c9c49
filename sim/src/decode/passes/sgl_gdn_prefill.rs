//! sglprefill61 (issue #18): the copies SGLang's Qwen3-Next Gated DeltaNet layer launches in an
//! eager extend (prefill) before 0.5.10, beyond the template's one fused split kernel.
//!
//! `Qwen3GatedDeltaNet.forward` (`models/qwen3_next.py`) rearranges the projected `qkvz` and `ba`
//! rows into `mixed_qkv`, `z`, `b` and `a`. With `num_v_heads / num_k_heads` in {1, 2, 4} it calls
//! the one Triton kernel `fused_qkvzba_split_reshape_cat` — tpsim's template counts that kernel
//! (`tpsim_model::llm::hybrid::LINEAR_ATTENTION_KERNELS`, `passes::sgl_qwen3_next`). But before
//! 0.5.10 the fused kernel is gated on `forward_batch.forward_mode.is_cuda_graph()` (read in the 0.5.3,
//! 0.5.6, 0.5.8 and 0.5.9 wheels), so an extend runs the eager chain instead:
//! `fix_query_key_value_ordering` views `qkvz` as `[T, k heads a rank, …]` and `torch.split`s it;
//! `value.reshape`, `z.reshape`, `b.reshape` and `a.reshape` merge the k-head dimension with a split
//! slice's, which a view cannot do when a rank holds more than one k head: 4 copy kernels; then
//! `forward` flattens `query` and `key` the same way (2 copies; `value` is contiguous by then) and
//! `torch.cat`s the three (1): 7 kernels where the template counts 1. From 0.5.10 (wheel read; sglang
//! PR 18917, "Enable fused_qkvzba_split_reshape_cat also for prefill", merged 2026-02-17) the fused
//! kernel runs whatever the mode (0.5.11 read too). With one k head a rank every reshape is a view and
//! only the `cat` launches: no extra.
//!
//! PR 18917's profile of the chain (GPU not named): ≈ 248 µs a layer, ≈ 120 µs saved a layer with the
//! fused kernel, "~5-6 ms per prefill request" on Qwen3-Next-80B-A3B. tpsim charges the 6 extra
//! launches at `launch_overhead` (31.7 µs: 190 µs a layer host-side) plus their per-kernel GPU cost;
//! the copies' bytes (a few MB a layer at 1,000 tokens) are not costed.
//!
//! Qwen3.5's Gated DeltaNet (`Qwen3_5GatedDeltaNet`, `models/qwen3_5.py`) projects with four GEMMs
//! and does not run this chain; other GDN models are not read: no extra.

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{Architecture, LayerWork, Mixer, ModelSpec};

/// Kernels the eager chain launches beyond the fused kernel: 7 (4 reshape copies, 2 flatten copies,
/// the `cat`) − 1 (module doc).
pub(crate) const EAGER_CHAIN_EXTRA_KERNELS: u32 = 6;

/// The first SGLang release whose Qwen3-Next extend runs the fused kernel (0.5.10 wheel,
/// `qwen3_next.py`: the `is_cuda_graph` gate gone; module doc).
const FUSED_IN_PREFILL_FROM: [u64; 3] = [0, 5, 10];

/// The extra kernels of layer `l` of `model` in an eager SGLang extend under `s` (module doc): 6 on
/// a Qwen3-Next Gated DeltaNet layer before 0.5.10 when a rank holds more than one k head and the
/// fused kernel's head ratio applies, else 0.
pub(crate) fn eager_extend_extra(s: &Scenario, model: &ModelSpec, l: &LayerWork) -> u32 {
    if s.engine.kind != EngineKind::Sglang
        || model.arch != Architecture::Qwen3Next
        || l.mixer != Mixer::Linear
        || l.attn_kernels == 0
    {
        return 0;
    }
    let Some(gdn) = model.linear_attention else {
        return 0;
    };
    let release = crate::engine_args_versions::release(&s.engine.release().version);
    let before_fused = release.is_some_and(|r| r < FUSED_IN_PREFILL_FROM.to_vec());
    let ratio_fused = gdn.num_k_heads > 0 && [1, 2, 4].contains(&(gdn.num_v_heads / gdn.num_k_heads));
    let k_heads_a_rank = gdn.num_k_heads / u64::from(s.engine.tp.max(1));
    if before_fused && ratio_fused && k_heads_a_rank > 1 {
        EAGER_CHAIN_EXTRA_KERNELS
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn load(model: &str, version: &str, tp: u32) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"b200-8x-nvlink\"\n[model]\npreset = \"{model}\"\n[engine]\n\
             name = \"sglang\"\nversion = \"{version}\"\ntp = {tp}\n\
             [workload]\nconcurrency = 1\nprompt_len = 1000\noutput_len = 16\n"
        );
        load_str(&text, Path::new("sgl-gdn-prefill.toml")).expect("scenario")
    }

    fn extras(s: &Scenario) -> (u32, usize) {
        let m = &s.model;
        let fp = m.forward_pass(s.engine.tp, 1000);
        let linear = fp.layers.iter().filter(|l| l.mixer == Mixer::Linear).count();
        let total = fp.layers.iter().map(|l| eager_extend_extra(s, m, l)).sum();
        (total, linear)
    }

    /// Qwen3-Next-80B-A3B (16 k heads, 32 v heads, 36 Gated DeltaNet layers of 48) at TP 8 (2 k
    /// heads a rank): 6 × 36 = 216 extra launches on 0.5.6, 0.5.8 and 0.5.9; none on 0.5.10 and
    /// 0.5.11 (the fused kernel); none at TP 16 on 0.5.9 (one k head a rank: views).
    #[test]
    fn sglprefill61_qwen3_next_eager_chain_by_release() {
        for v in ["0.5.6", "0.5.8", "0.5.9"] {
            assert_eq!(extras(&load("qwen3-next-80b-a3b", v, 8)), (216, 36), "{v}");
        }
        for v in ["0.5.10", "0.5.11"] {
            assert_eq!(extras(&load("qwen3-next-80b-a3b", v, 8)).0, 0, "{v}");
        }
        // Qwen3-Coder-Next at TP 2 (8 k heads a rank), 0.5.8: the same 216.
        assert_eq!(extras(&load("qwen3-coder-next", "0.5.8", 2)).0, 216);
        // Another architecture: nothing.
        assert_eq!(extras(&load("qwen3-235b-a22b", "0.5.8", 8)).0, 0);
    }
}
