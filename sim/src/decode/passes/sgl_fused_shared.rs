//! sglstep (issue #17): SGLang's DeepSeek-V3/R1 shared expert fused into the routed MoE kernel.
//!
//! `DeepseekV2ForCausalLM.determine_num_fused_shared_experts` (read in the SGLang wheels 0.4.8 and
//! 0.5.8, `python/sglang/srt/models/deepseek_v2.py`; the rule of when it applies is
//! [`sgl_dual_stream::fused_shared_expert`](super::sgl_dual_stream::fused_shared_expert)) sets
//! `num_fused_shared_experts = n_shared_experts` unless `--disable-shared-experts-fusion`. The
//! layer then builds its routed `FusedMoE` with `n_routed_experts + 1` experts and
//! `top_k = num_experts_per_tok + 1` (the top-k kernel appends the shared expert to every token's
//! choice), and `DeepseekV2MoE._forward_shared_experts` returns `None`: `forward_normal` runs no
//! shared MLP and skips `final_hidden_states + shared_output` (0.4.8: `forward_normal` lines
//! "shared_output = self._forward_shared_experts(hidden_states)" / "if shared_output is not None";
//! 0.5.8 the same, and `forward` leaves the dual-stream path when `num_fused_shared_experts != 0`).
//!
//! So the layer launches none of the kernels the template counts for the shared expert (its
//! gate_up GEMM, SiluAndMul, down GEMM and the add: `tpsim_model::llm::forward::ffn_kernels`'s
//! "plus 4 for shared experts") nor the per-token-group FP8 quantization before its two GEMMs
//! (`LayerWork::shared_quant_kernels`): the fused MoE quantizes the layer's input once for all
//! its experts and its intermediate once for all `top_k + 1` rows (`invoke_fused_moe_kernel`).
//! What the shared expert reads and computes stays: its weights are one more expert's tiles in
//! the fused GEMMs, read once whatever the batch (all of it is in `fixed_ffn_bytes`), and its FLOPs
//! stay in `ffn_flops`. The quantization bytes are left as they are: the shared gate_up's input
//! is the routed one's (quantized once now: at most hidden × 3 B per token less, 21.7 kB for
//! DeepSeek-V3, 0.05 µs at 8 tokens on 4 TB/s) while its down rows join the routed down's.
//! Not applied before 0.4.8 (not read).

use super::sgl_dual_stream;
use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{LayerWork, ModelSpec};

/// Kernels of the shared expert the fused layout does not launch, besides its quantization
/// kernels: gate_up GEMM, SiluAndMul, down GEMM (`sgl_dual_stream::SHARED_MLP_KERNELS`) and the
/// `final_hidden_states + shared_output` add (module doc).
pub(crate) const FUSED_AWAY_KERNELS: u32 = sgl_dual_stream::SHARED_MLP_KERNELS + 1;

/// Whether SGLang (release `version`, 0.4.8 on) fuses `model`'s shared expert into the routed MoE
/// kernel under `s` (module doc).
pub(crate) fn fuses(s: &Scenario, model: &ModelSpec) -> bool {
    let release_read = tpsim_model::sglang_fraction_early::release_post(&s.engine.release().version)
        .is_some_and(|(a, b, c, _)| (a, b, c) >= (0, 4, 8));
    s.engine.kind == EngineKind::Sglang && release_read && sgl_dual_stream::fused_shared_expert(s, model)
}

/// Layer `l` of `model` as SGLang runs it under `s`: a MoE layer with a shared expert in the fused
/// layout less the shared expert's kernels and quantization kernels (module doc); every other
/// layer as it is.
pub(crate) fn layer(s: &Scenario, model: &ModelSpec, l: &LayerWork) -> LayerWork {
    let mut out = *l;
    if !l.is_moe || l.shared_ffn_bytes.0 == 0 || !fuses(s, model) {
        return out;
    }
    let quant = l.shared_quant_kernels.min(l.ffn_quant_kernels);
    out.ffn_kernels = l.ffn_kernels.saturating_sub(FUSED_AWAY_KERNELS + quant);
    out.ffn_quant_kernels = l.ffn_quant_kernels - quant;
    out.shared_quant_kernels = 0;
    out
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs, durations};
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    /// `model` on 8× H200 (NVLink) under SGLang `version` at TP 8, `extra` engine lines.
    fn scenario(model: &str, version: &str, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"{model}\"\n[engine]\n\
             name = \"sglang\"\nversion = \"{version}\"\ntp = 8\ntrust_remote_code = true\n{extra}\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("sgl-fused-shared.toml")).expect("scenario")
    }

    /// Layer 3's (the first MoE layer's) MoE half of a one-token decode, µs on rank 0.
    fn moe_us(s: &Scenario) -> f64 {
        let costs = collective_costs(s);
        let mut b = Builder::new(s, &costs);
        let d = b.simulate(1, 64, false).expect("decode");
        durations(&d.graph, "decode: L3 moe")[0].as_us_f64()
    }

    /// DeepSeek-V3 block-FP8's first MoE layer (`llm::act_quant`'s test: 16 kernels, of which 4
    /// quantize, 2 of them before the shared expert's GEMMs) as SGLang 0.5.8 runs it fused: 16 − 4
    /// (shared gate_up, SiluAndMul, down, add) − 2 = 10 kernels, 2 quantizing. Kimi-K2.5 (384
    /// routed experts) and DeepSeek-V3 under EP 8 keep theirs.
    #[test]
    fn deepseek_v3_fused_layer_drops_the_shared_expert_kernels() {
        let s = scenario("deepseek-v3", "0.5.8", "");
        let l = s.model.forward_pass(8, 1).layers[3];
        assert_eq!(
            (l.ffn_kernels, l.ffn_quant_kernels, l.shared_quant_kernels),
            (16, 4, 2)
        );
        let f = layer(&s, &s.model, &l);
        assert_eq!((f.ffn_kernels, f.ffn_quant_kernels), (10, 2));
        assert_eq!(
            (f.ffn_quant_bytes, f.fixed_ffn_bytes, f.ffn_flops),
            (l.ffn_quant_bytes, l.fixed_ffn_bytes, l.ffn_flops)
        );
        // release52: Kimi-K2.5 at 0.5.9, its first release (0.5.8 has no `models/kimi_k25.py`).
        let k = scenario("kimi-k2.5", "0.5.9", "");
        let kl = k.model.forward_pass(8, 1).layers[3];
        assert_eq!(layer(&k, &k.model, &kl), kl);
        let ep = scenario("deepseek-v3", "0.5.8", "ep_size = 8\n");
        assert_eq!(layer(&ep, &ep.model, &l), l);
    }

    /// The decode's MoE half: 0.4.7 (fusion not read: serial shared expert, and no dual stream in
    /// that release's `deepseek_v2.py`) costs 6 kernels more than 0.5.8 at the H200 template's 3 µs
    /// each (hopper-sxm `kernel_overhead`), the same bytes: 18 µs (± 0.01: integer nanoseconds).
    #[test]
    fn fused_layer_saves_six_kernel_costs_a_decode_layer() {
        let fused = moe_us(&scenario("deepseek-v3", "0.5.8", ""));
        let serial = moe_us(&scenario("deepseek-v3", "0.4.7", ""));
        assert!(
            (serial - fused - 18.0).abs() < 0.01,
            "0.4.7 {serial} µs, 0.5.8 {fused} µs"
        );
    }
}
