//! mi300x59 (issue #18): how many q/k-norm statistics allreduces SGLang's MiniMax-M2 attention issues
//! per layer, by release.
//!
//! MiniMax-M2's q and k norms run over all heads (`qk_norm_type = "per_layer"`), so at TP > 1 each
//! norm all-reduces its per-token sum of squares (`MiniMaxM2RMSNormTP`, `models/minimax_m2.py`).
//! Up to SGLang 0.5.7 the attention calls `self.q_norm(q)` and then `self.k_norm(k)`, each norm's
//! `forward` with its own `tensor_model_parallel_all_reduce(variance)`: **two** allreduces a layer
//! (read in the sglang 0.5.6 and 0.5.7 wheels, PyPI). From 0.5.8 it calls
//! `MiniMaxM2RMSNormTP.forward_qk(q_norm, k_norm, q, k)`, which sums q's and k's squares into one
//! tensor (`rms_sumsq_serial`) and all-reduces it **once** (read in the 0.5.8 and 0.5.9 wheels).
//! Each of the two early messages is one fp32 a token, padded as the later one is
//! (`tpsim_model::llm::qk_norm_stats_bytes`); tpsim prices both the same.
//!
//! mmnorm61 (issue #17): **the kernels around those allreduces**, read in the sglang 0.5.5 – 0.5.11
//! wheels (`models/minimax_m2.py`; the model first ships in 0.5.5). tpsim's layer template counts
//! one q/k-norm kernel a layer (`tpsim_model::llm::forward::attention_kernels`); SGLang launches:
//! - **0.5.5 – 0.5.7**: `q_norm(q.contiguous())`, `k_norm(k.contiguous())`, each
//!   `MiniMaxM2RMSNormTP.forward` under `@torch.compile(dynamic=True, backend=get_compiler_backend())`
//!   (`"inductor"` on CUDA and ROCm, `utils/common.py`). The graph is cast → square → mean,
//!   all-reduce, divide by the TP size → add ε → rsqrt → multiply → multiply by the weight → cast.
//!   The allreduce is an opaque op (`torch.ops.sglang.outplace_all_reduce` /
//!   `inplace_all_reduce`, or a graph break): inductor cannot fuse across it, so each norm is **two**
//!   kernels at TP > 1 (the reduction to the variance; one pointwise kernel for everything after
//!   the allreduce) and **one** at TP 1 (the reduction with its pointwise epilogue). Eagerly (the
//!   decorator commented out, as AMD's MiniMax-M2 page does) it would be nine a norm; no scenario
//!   key says so, so that is not modelled.
//! - **0.5.8 – 0.5.11** (0.5.11: `MiniMaxM2QKRMSNorm._forward_naive`, the default unless
//!   `SGLANG_USE_FUSED_PARALLEL_QKNORM` is set): `rms_sumsq_serial` (one Triton kernel over q and
//!   k), the allreduce, `rms_apply_serial` (one Triton kernel): **two** kernels a layer at any TP.
//!   Later releases are taken to launch the same (not read).
//! - every release: `q.contiguous()` and `k.contiguous()` on the column slices of the qkv output,
//!   **one copy each** when the pass has more than one token (a one-row slice is already
//!   contiguous: no kernel).
//!
//! The launches beyond the template's one are charged as memory-bound kernels apart from the
//! attention op ([`extra`]), each at tpsim's per-kernel cost, with the bytes of all of them, in
//! decode passes only: a prefill launches them too, but charging them there moved the MiniMax-M2
//! 0.5.7 c 1 row's TTFT by 10 ms (61.39 → 71.94 ms), more than five kernels a layer account for;
//! the prefill's cost of memory-bound kernels is a question of its own (left).

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{ForwardPass, LayerWork, Mixer, ModelSpec};

/// The first SGLang release whose MiniMax-M2 attention all-reduces the q and k statistics together
/// (`forward_qk`, module doc): 0.5.8.
pub const FIRST_FUSED: (u32, u32, u32) = (0, 5, 8);

/// The q/k-norm statistics allreduces per layer of a model that has them (`qk_norm_allreduces > 0`)
/// under `s`: 2 under SGLang before 0.5.8 (q's, then k's), 1 otherwise (SGLang from 0.5.8, vLLM,
/// or a version that cannot be read).
pub fn allreduces_per_layer(s: &Scenario) -> u32 {
    if early(s) { 2 } else { 1 }
}

/// Whether `s` runs an SGLang release before [`FIRST_FUSED`] (a release that cannot be read is
/// taken as a later one, as [`allreduces_per_layer`] does).
fn early(s: &Scenario) -> bool {
    s.engine.kind == EngineKind::Sglang
        && tpsim_model::sglang_fraction_early::release_post(&s.engine.release().version)
            .is_some_and(|(a, b, c, _)| (a, b, c) < FIRST_FUSED)
}

/// Activation bytes of an element (bf16), as the engines run MiniMax-M2's q and k.
const ACT: u64 = 2;
/// Bytes of one fp32 statistic (the variance or sum of squares a token).
const F32: u64 = 4;

/// The q/k-norm kernels SGLang launches in one attention layer of `model` over `tokens` tokens
/// at attention TP size `tp` (module doc), with the bytes they move on one rank: `(kernels,
/// bytes)`. `(0, 0)` outside SGLang or for a model without a whole-width q/k norm.
pub(crate) fn launched(s: &Scenario, model: &ModelSpec, tp: u32, tokens: u32) -> (u32, u64) {
    if s.engine.kind != EngineKind::Sglang || !model.qk_norm_full_width {
        return (0, 0);
    }
    let tp = u64::from(tp.max(1));
    let n = u64::from(tokens);
    // Widths on one rank: the rank's query heads, its KV heads (one at least: SGLang replicates a
    // KV head across the ranks beyond the KV-head count).
    let dq = model.heads / tp * model.head_dim;
    let dk = (model.kv_heads / tp).max(1) * model.head_dim;
    let (mut kernels, mut bytes) = (0u32, 0u64);
    // `.contiguous()` of each column slice: a read and a write of it (more than one row only).
    if tokens > 1 {
        kernels += 2;
        bytes += 2 * ACT * n * (dq + dk);
    }
    let split = tp > 1;
    if early(s) {
        for d in [dq, dk] {
            if split {
                // The reduction reads x, writes the variance; the pointwise kernel reads x, the
                // all-reduced variance and the weight, writes the output.
                kernels += 2;
                bytes += (ACT * n * d + F32 * n) + (ACT * n * d + F32 * n + ACT * d + ACT * n * d);
            } else {
                kernels += 1;
                bytes += ACT * n * d + ACT * d + ACT * n * d;
            }
        }
    } else {
        // `rms_sumsq_serial` reads q and k, writes the padded sums (`(2n + 3) / 4 * 4` fp32);
        // `rms_apply_serial` reads them, the sums and both weights, writes q and k.
        let sums = F32 * (2 * n).div_ceil(4) * 4;
        kernels += 2;
        bytes += (ACT * n * (dq + dk) + sums)
            + (ACT * n * (dq + dk) + sums + ACT * (dq + dk) + ACT * n * (dq + dk));
    }
    (kernels, bytes)
}

/// Whether layer `l` carries the q/k norm's kernels: an attention layer with its kernels.
fn carries(l: &LayerWork) -> bool {
    l.mixer == Mixer::Attention && l.attn_kernels > 0
}

/// The launches beyond the layer template's one q/k-norm kernel in layer `l` of a pass of `tokens`
/// tokens (module doc), with the bytes of all of the site's kernels: `(kernels, bytes)`, `(0, 0)`
/// where none. Only in a decode pass (`decode`, a pass over a context): a prefill launches them
/// too, but its cost (TTFT) is left to the prefill's own calibration (module doc).
pub(crate) fn extra(s: &Scenario, model: &ModelSpec, l: &LayerWork, tokens: u32, decode: bool) -> (u32, u64) {
    if !decode || !carries(l) {
        return (0, 0);
    }
    let tp = crate::decode::dp_attention::attention_tp(&s.engine);
    let (kernels, bytes) = launched(s, model, tp, tokens);
    if kernels <= 1 {
        (0, 0)
    } else {
        (kernels - 1, bytes)
    }
}

/// Adds [`extra`]'s launches to each attention layer's `attn_kernels` in `fp`, a pass of `tokens`
/// tokens (the attention's cost takes them out again and charges them apart).
pub(crate) fn apply(fp: &mut ForwardPass, s: &Scenario, model: &ModelSpec, tokens: u32, decode: bool) {
    for l in &mut fp.layers {
        l.attn_kernels += extra(s, model, l, tokens, decode).0;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(engine: &str, version: &str) -> Scenario {
        scenario_tp(engine, version, 4)
    }

    fn scenario_tp(engine: &str, version: &str, tp: u32) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"mi300x-8x-xgmi\"\n[model]\npreset = \"minimax-m2.5\"\n[engine]\n\
             name = \"{engine}\"\nversion = \"{version}\"\ntp = {tp}\ntrust_remote_code = true\n\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("minimax-qk-norm.toml")).expect("scenario")
    }

    /// Two under SGLang 0.5.6 and 0.5.7 (`self.q_norm(q)`, `self.k_norm(k)`), one from 0.5.8
    /// (`forward_qk`) and under vLLM.
    #[test]
    fn two_allreduces_a_layer_before_sglang_0_5_8() {
        for (engine, version, want) in [
            ("sglang", "0.5.6", 2),
            ("sglang", "0.5.7", 2),
            ("sglang", "0.5.8", 1),
            ("sglang", "0.5.9", 1),
            ("vllm", "0.12.0", 1),
        ] {
            assert_eq!(
                allreduces_per_layer(&scenario(engine, version)),
                want,
                "{engine} {version}"
            );
        }
    }

    /// The q/k-norm launches a layer by release, counted by hand from each wheel's
    /// `models/minimax_m2.py` (module doc), MiniMax-M2.5 (48 query heads, 8 KV heads of 128) at TP 4
    /// (1,536 q and 256 k columns a rank), one token and sixteen:
    /// - 0.5.5 / 0.5.6 / 0.5.7: per norm the compiled reduction and the compiled normalize around
    ///   the allreduce, 2 × 2 = 4; at 16 tokens the two `.contiguous()` copies too, 6;
    /// - 0.5.8 / 0.5.9 / 0.5.11: `rms_sumsq_serial` and `rms_apply_serial`, 2; 4 at 16 tokens;
    /// - vLLM: none of these (its own path, not this pass's).
    ///
    /// Bytes at one token, 0.5.7: q 3 × 2 × 1,536 + 2 × 4 + 2 × 1,536 = 12,296, k 3 × 2 × 256 +
    /// 8 + 512 = 2,056, 14,352 in all; 0.5.8: 4 × 2 × 1,792 (q and k read twice, written once, the
    /// weights once) + 2 × 16 (the sums padded to four fp32) = 14,368.
    #[test]
    fn launches_by_release_counted_from_the_wheels() {
        for (version, one, sixteen) in [
            ("0.5.5", 4, 6),
            ("0.5.6", 4, 6),
            ("0.5.7", 4, 6),
            ("0.5.8", 2, 4),
            ("0.5.9", 2, 4),
            ("0.5.11", 2, 4),
        ] {
            let s = scenario("sglang", version);
            assert_eq!(launched(&s, &s.model, 4, 1).0, one, "{version} one token");
            assert_eq!(launched(&s, &s.model, 4, 16).0, sixteen, "{version} 16 tokens");
        }
        let s = scenario("sglang", "0.5.7");
        assert_eq!(launched(&s, &s.model, 4, 1), (4, 14_352));
        let s = scenario("sglang", "0.5.8");
        assert_eq!(launched(&s, &s.model, 4, 1), (2, 14_368));
        let s = scenario("vllm", "0.12.0");
        assert_eq!(launched(&s, &s.model, 4, 16), (0, 0));
    }

    /// At TP 1 no allreduce splits the compiled graph: 0.5.7's norm is one kernel each (2 a layer),
    /// 0.5.8's still its two Triton kernels. The template's one stays in the attention op, so a
    /// layer of a one-token pass gains 1 under both; at TP 4, 3 under 0.5.7 and 1 under 0.5.8.
    #[test]
    fn extra_launches_beyond_the_template() {
        for (version, tp, want) in [("0.5.7", 1, 1), ("0.5.8", 1, 1), ("0.5.7", 4, 3), ("0.5.8", 4, 1)] {
            let s = scenario_tp("sglang", version, tp);
            let fp = s.model.forward_pass(tp, 1);
            let l = &fp.layers[0];
            assert_eq!(extra(&s, &s.model, l, 1, true).0, want, "{version} TP {tp}");
            assert_eq!(
                extra(&s, &s.model, l, 1, false),
                (0, 0),
                "{version} TP {tp} prefill"
            );
            let mut after = fp.clone();
            apply(&mut after, &s, &s.model, 1, true);
            assert_eq!(
                after.layers[0].attn_kernels,
                l.attn_kernels + want,
                "{version} TP {tp}"
            );
        }
    }
}
