//! qwen3next / sglgates (issue #17): the kernels SGLang's Qwen-family MoE and gated-attention
//! layers launch beyond the engine-neutral layer template (`tpsim_model::llm::forward::
//! attention_kernels` / `ffn_kernels`), every rank repeating them. Qwen3-Next: 4 per MoE layer (48)
//! and 3 per full-attention layer (12), 228 a forward pass. Qwen3.5-397B-A17B (60 layers, 15 full
//! attention, 45 Gated DeltaNet, 512 experts): 4 · 60 + 3 · 15 + 1 · 45 = 330. A dense Qwen3.5: 3 per
//! full-attention and 1 per Gated DeltaNet layer. Qwen2-MoE: 3 per MoE layer, plus 1 when its expert
//! count is not a power of two up to 256 (Qwen1.5-MoE-A2.7B: 60 experts, 4 per layer).
//!
//! Qwen3.5 is read in SGLang 0.5.9, the first release with `models/qwen3_5.py` (tpsim simulates
//! 0.5.8 when `engine.version` is unset, a release that cannot load Qwen3.5; the rows ran spring-2026
//! builds).
//!
//! Which models (sglgates, each rule read in the release named):
//! - the shared-expert gate: every model whose MoE layer is `Qwen2MoeSparseMoeBlock`
//!   (`models/qwen2_moe.py`, 0.5.2, 0.5.8, 0.5.9): Qwen2-MoE, Qwen3-Next (`qwen3_next.py` imports the
//!   block) and Qwen3.5 MoE (`models/qwen3_5.py`, 0.5.9, the first of those releases that has the
//!   file: `Qwen3_5LinearDecoderLayer` / `Qwen3_5AttentionDecoderLayer` build it for `model_type`
//!   `qwen3_5_moe_text`); 0.5.9's `_forward_shared_experts` is 0.5.8's;
//! - the two-kernel top-k: every model whose router is `TopK` with softmax scoring (those three
//!   and Qwen3-MoE, `qwen3_moe.py` 0.5.9) when the expert count is not one `topkGatingSoftmax` is
//!   instantiated for, and the MoE runner backend leaves the top-k to `fused_topk` (0.5.9
//!   `topk.py` `TopK.forward_cuda`: not `triton_kernel`, `flashinfer_trtllm`, `flashinfer_mxfp4`).
//!   The instantiations are the same 1 … 256 in the SM 10.0 build, which sgl-kernel's
//!   `load_utils.py` loads on every GPU but SM 9.0 (so also on SM 12.0, the RTX PRO 6000 rows), and
//!   in sglang-kernel 0.4.1, SGLang 0.5.10's pin: the stored main-branch source's 512 case is in no
//!   release tpsim simulates;
//! - the output gate's kernels: Qwen3-Next and Qwen3.5 (MoE and dense): 0.5.9's
//!   `Qwen3_5AttentionDecoderLayer.self_attention` is the same code as Qwen3-Next's below;
//! - Qwen3.5's Gated DeltaNet (MoE and dense) is not Qwen3-Next's: `Qwen3_5GatedDeltaNet._forward`
//!   (0.5.9) runs four input GEMMs (`in_proj_qkv`, `in_proj_z`, `in_proj_b`, `in_proj_a`; the
//!   `.contiguous()` of the last two's whole outputs copies nothing), then the GDN backend's
//!   `forward_decode` (`layers/attention/hybrid_linear_attn_backend.py`): `causal_conv1d_update`,
//!   a `torch.split` into views, `fused_sigmoid_gating_delta_rule_update`; then the gated norm and
//!   `out_proj`: with the input norm 9 kernels where the template counts 8 (two GEMMs and the
//!   fused split), one more per linear-attention layer (the state tracking copy runs only with
//!   `mamba_track_mask`, prefix caching of the states, not in these rows).
//!
//! vLLM is left as it is: its `topk_softmax` (vLLM 0.19.0 `_moe_C.abi3.so`) instantiates
//! `topkGating` up to 512 experts (one kernel), and its shared-expert gate (`qwen2_moe.py`
//! `Qwen2MoeMLP.expert_gate`, `qwen3_next.py`) runs under torch.compile, whose fusion of the sigmoid
//! and multiply tpsim has not read.
//!
//! Read in SGLang 0.5.2 (September 2025, the release of sglang PRs 10404 and 10467) and 0.5.8 (the
//! release tpsim simulates): `python/sglang/srt/models/qwen3_next.py` and `models/qwen2_moe.py`,
//! identical in both for what follows.
//!
//! **The MoE block** (`Qwen2MoeSparseMoeBlock`, every one of the 48 layers): the shared expert's
//! output is scaled by `F.sigmoid(self.shared_expert_gate(hidden_states)) * shared_output`
//! (`_forward_shared_experts`), where `shared_expert_gate` is a `hidden → 1` linear layer replicated
//! on every rank (`torch.nn.Linear(config.hidden_size, 1, bias=False)`; 0.5.8: `ReplicatedLinear`
//! where quantized). Three kernels the template's shared expert (gate_up, activation, down, add)
//! does not count: the 1-output GEMM, the sigmoid and the multiply. Each rank runs them on the
//! whole batch: no TP divides them.
//!
//! **The router's top-k over 512 experts** (every layer): `TopK` → `fused_topk` →
//! `sgl_kernel.topk_softmax` (`layers/moe/topk.py`, softmax scoring). Its launcher fuses softmax
//! and top-k in one `topkGatingSoftmax` kernel only for the expert counts it instantiates; the SM 9.0
//! builds of sgl-kernel 0.3.9.post2 (SGLang 0.5.2's pin) and 0.3.21 (0.5.8's pin) instantiate 1 to
//! 256 (`common_ops.abi3.so` symbols `topkGatingSoftmax<…, 1 … 256, …>`), so 512 experts take the
//! launcher's default branch (`sgl-kernel/csrc/moe/moe_topk_softmax_kernels.cu`,
//! `topkGatingSoftmaxKernelLauncher`): `moeSoftmax` into a workspace, then `moeTopK` (0.3.9) /
//! `moeTopKFast` (0.3.21, top-k > 1). One kernel more than the template's one top-k kernel.
//!
//! **The full-attention layers** (`Qwen3HybridAttentionDecoderLayer.self_attention`, 12 of 48):
//! with `attn_output_gate`, `qkv_proj` returns the query and the gate interleaved per head; the
//! code splits them with `torch.chunk(q_gate, 2, dim=-1)` and flattens both with `reshape`, which
//! on those strided halves (each head's half of a 2 · head_dim row) copies: two copy kernels. After
//! the attention, `gate = torch.sigmoid(gate)` and `attn_output = attn_output * gate` are two
//! kernels where the template counts one (`forward.rs`: "one sigmoid-and-multiply kernel"). So
//! three more per full-attention layer. (`_apply_qk_norm` runs q_norm and k_norm as two kernels on
//! two streams under CUDA-graph capture; the template's one q/k-norm kernel stands for the pair, as
//! for Qwen3, and is left as it is.)
//!
//! **The Gated DeltaNet layers** (`Qwen3GatedDeltaNet._forward` with the hybrid backend's
//! `MambaAttnBackend.forward_decode`): input norm, `in_proj_qkvz`, `in_proj_ba` (on the alternate
//! stream), `fused_qkvzba_split_reshape_cat` (num_v_heads / num_k_heads = 2, CUDA graph),
//! `causal_conv1d_update`, `fused_sigmoid_gating_delta_rule_update`, the gated RMSNorm, `out_proj`:
//! the template's 8 (`llm::hybrid::LINEAR_ATTENTION_KERNELS`); nothing added.
//!
//! SGLang runs the shared expert (now with its gate) on the current stream beside the router and
//! routed experts on `alt_stream` (`forward_normal_dual_stream`): `passes::sgl_dual_stream`
//! (sgldualstream) costs that overlap, and the `hidden_states.clone()` the path hands the shared
//! expert from 0.5.3 on (0.5.2 passes them as they are).

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{Architecture, ForwardPass, Mixer, ModelSpec};

/// Kernels added to each MoE layer's feed-forward half for the shared expert's gate:
/// `shared_expert_gate` GEMM, sigmoid, multiply (module doc).
pub(crate) const SHARED_EXPERT_GATE_KERNELS: u32 = 3;

/// Kernels added to each MoE layer's feed-forward half for the router's top-k over an expert count
/// the fused kernel is not instantiated for: `moeSoftmax` and `moeTopK(Fast)` where the template
/// counts one (module doc).
pub(crate) const TOPK_512_EXTRA_KERNELS: u32 = 1;

/// The largest expert count sgl-kernel's `topkGatingSoftmax` is instantiated for: the powers of two
/// 1 … 256, in the SM 9.0 and SM 10.0 builds (the latter also loaded on SM 12.0, `load_utils.py`)
/// of sgl-kernel 0.3.9.post2 (SGLang 0.5.2's pin), 0.3.21 (0.5.8's and 0.5.9's) and sglang-kernel
/// 0.4.1 (0.5.10's) (module doc).
const FUSED_TOPK_MAX_EXPERTS: u64 = 256;

/// Kernels added to each full-attention layer with `attn_output_gate`: the query and gate copies
/// and the second of sigmoid / multiply (module doc).
pub(crate) const OUTPUT_GATE_EXTRA_KERNELS: u32 = 3;

/// Kernels added to each Gated DeltaNet layer of Qwen3.5: `Qwen3_5GatedDeltaNet._forward` (0.5.9)
/// projects with four GEMMs (`in_proj_qkv`, `in_proj_z`, `in_proj_b`, `in_proj_a`) and the GDN
/// backend's `forward_decode` splits `mixed_qkv` with views, where the template counts two GEMMs
/// and the fused split kernel (`llm::hybrid::LINEAR_ATTENTION_KERNELS`): 9 kernels, not 8.
pub(crate) const QWEN35_GDN_EXTRA_KERNELS: u32 = 1;

/// SGLang's MoE runner backends whose `TopK.forward_cuda` does not call `fused_topk`
/// (`layers/moe/topk.py` of 0.5.9: `TRITON_KERNEL` format for `triton_kernel`, `BYPASSED` for
/// `flashinfer_trtllm` and `flashinfer_mxfp4`, whose MoE kernel routes itself).
pub(super) const TOPK_ELSEWHERE_BACKENDS: &[&str] =
    &["triton_kernel", "flashinfer_trtllm", "flashinfer_mxfp4"];

/// The gated full attention: SGLang's `Qwen3HybridAttentionDecoderLayer` (`qwen3_next.py`, 0.5.2,
/// 0.5.8) and `Qwen3_5AttentionDecoderLayer` (`qwen3_5.py`, 0.5.9: the same `torch.chunk` /
/// `reshape` / `sigmoid` / multiply), for the MoE and the dense Qwen3.5 alike.
fn output_gate_arch(arch: Architecture) -> bool {
    matches!(
        arch,
        Architecture::Qwen3Next | Architecture::Qwen35Moe | Architecture::Qwen35
    )
}

/// The models whose MoE layers are SGLang's `Qwen2MoeSparseMoeBlock` (`models/qwen2_moe.py`), which
/// builds `shared_expert_gate` for every checkpoint: Qwen2-MoE itself, Qwen3-Next (`qwen3_next.py`
/// imports it) and Qwen3.5 MoE (`qwen3_5.py`, 0.5.9, for `model_type` `qwen3_5_moe_text`).
pub(super) fn shared_gate_arch(arch: Architecture) -> bool {
    matches!(
        arch,
        Architecture::Qwen2Moe | Architecture::Qwen3Next | Architecture::Qwen35Moe
    )
}

/// The models whose SGLang router is `TopK` with softmax scoring, no grouped top-k and no custom
/// routing, so `fused_topk` → `sgl_kernel.topk_softmax`: the `Qwen2MoeSparseMoeBlock` users
/// ([`shared_gate_arch`]) and Qwen3-MoE (`qwen3_moe.py` `Qwen3MoeSparseMoeBlock`, 0.5.9:
/// `TopK(top_k, renormalize=norm_topk_prob)`; 128 experts in every preset, so fused).
fn softmax_topk_arch(arch: Architecture) -> bool {
    shared_gate_arch(arch) || arch == Architecture::Qwen3Moe
}

/// Whether sgl-kernel's launcher takes its unfused branch for `n_experts`: every count but the
/// powers of two up to [`FUSED_TOPK_MAX_EXPERTS`] (`moe_topk_softmax_kernels.cu`, module doc).
fn unfused_topk(n_experts: u64) -> bool {
    n_experts > FUSED_TOPK_MAX_EXPERTS || !n_experts.is_power_of_two()
}

/// Adds the module doc's kernels to the layers of `fp`, a pass of `model` under `s`; no change for
/// other engines or models.
pub(crate) fn apply(fp: &mut ForwardPass, s: &Scenario, model: &ModelSpec) {
    if s.engine.kind != EngineKind::Sglang {
        return;
    }
    let arch = model.arch;
    let output_gate = output_gate_arch(arch) && model.attn_output_gate;
    let shared_gate = shared_gate_arch(arch) && model.moe.is_some_and(|m| m.n_shared_experts > 0);
    let topk_here = !s
        .engine
        .moe_backend
        .as_deref()
        .is_some_and(|b| TOPK_ELSEWHERE_BACKENDS.contains(&b));
    let split_topk = softmax_topk_arch(arch) && topk_here;
    let qwen35_gdn = matches!(arch, Architecture::Qwen35Moe | Architecture::Qwen35);
    for l in &mut fp.layers {
        if qwen35_gdn && l.mixer == Mixer::Linear && l.attn_kernels > 0 {
            l.attn_kernels += QWEN35_GDN_EXTRA_KERNELS;
        }
        if output_gate && l.mixer == Mixer::Attention && l.attn_kernels > 0 {
            l.attn_kernels += OUTPUT_GATE_EXTRA_KERNELS;
        }
        if l.is_moe && l.ffn_kernels > 0 {
            if shared_gate {
                l.ffn_kernels += SHARED_EXPERT_GATE_KERNELS;
            }
            if split_topk && unfused_topk(l.n_experts) {
                l.ffn_kernels += TOPK_512_EXTRA_KERNELS;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn load(model: &str, engine: &str, tp: u32) -> Scenario {
        load_with(model, engine, tp, "")
    }

    fn load_with(model: &str, engine: &str, tp: u32, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"{model}\"\n[engine]\n\
             name = \"{engine}\"\ntp = {tp}\ntrust_remote_code = true\n{extra}\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("sgl-qwen3-next.toml")).expect("scenario")
    }

    /// Kernel counts of layer 0 (Gated DeltaNet) and layer 3 (full attention) of Qwen3-Next
    /// (`full_attention_interval` 4) in a one-token pass, after the rule.
    fn counts(engine: &str) -> [(u32, u32); 2] {
        let s = load("qwen3-next-80b-a3b", engine, 4);
        let model = &s.model;
        let mut fp = model.forward_pass(4, 1);
        apply(&mut fp, &s, model);
        let k = |i: usize| (fp.layers[i].attn_kernels, fp.layers[i].ffn_kernels);
        [k(0), k(3)]
    }

    #[test]
    fn sglang_qwen3_next_counts_the_gates() {
        // Template: Gated DeltaNet 8; full attention 5 + q/k norm 1 + output gate 1 = 7; MoE with
        // shared expert 12 (`forward.rs`). SGLang adds 3 (shared-expert gate) + 1 (top-k over 512
        // experts) to every MoE half and 3 to the full-attention half: (8, 16) and (10, 16).
        assert_eq!(counts("sglang"), [(8, 16), (10, 16)]);
        // vLLM's qwen3_next.py is other code: unchanged.
        assert_eq!(counts("vllm"), [(8, 12), (7, 12)]);
    }

    /// (attention, feed-forward) kernels the rule adds to each layer of `model` at `tp` under
    /// SGLang (with `extra` engine keys), one token.
    fn added(model: &str, tp: u32, extra: &str) -> Vec<(u32, u32)> {
        let s = load_with(model, "sglang", tp, extra);
        let m = &s.model;
        let before = m.forward_pass(tp, 1);
        let mut fp = before.clone();
        apply(&mut fp, &s, m);
        let d = |a: u32, b: u32| a.checked_sub(b).expect("the rule only adds kernels");
        (fp.layers.iter().zip(&before.layers))
            .map(|(a, b)| (d(a.attn_kernels, b.attn_kernels), d(a.ffn_kernels, b.ffn_kernels)))
            .collect()
    }

    #[test]
    fn sglang_qwen35_moe_counts_the_gates() {
        // sglgates: Qwen3.5-397B-A17B (60 layers, `full_attention_interval` 4, 512 experts, one
        // shared expert) under SGLang: `qwen3_5.py` (0.5.9) builds `Qwen2MoeSparseMoeBlock` in
        // every layer and the gated full attention in layers 3, 7, …: 3 + 1 on every MoE half,
        // 3 on the 15 full-attention halves (Qwen3-Next's counts), and 1 on the 45 Gated DeltaNet
        // halves (four input GEMMs, no split kernel): 240 + 45 + 45 = 330 a pass.
        let a = added("qwen3.5-397b-a17b", 4, "");
        assert_eq!(a.len(), 60);
        assert_eq!((a[0], a[3]), ((1, 4), (3, 4)));
        assert_eq!(a.iter().map(|(x, y)| x + y).sum::<u32>(), 330);
        // Absolute counts of layers 0 and 3: the template's (8, 12) and (7, 12) (forward.rs) plus
        // the rule's; vLLM unchanged.
        let s = load("qwen3.5-397b-a17b", "sglang", 4);
        let mut fp = s.model.forward_pass(4, 1);
        apply(&mut fp, &s, &s.model);
        let k = |i: usize| (fp.layers[i].attn_kernels, fp.layers[i].ffn_kernels);
        assert_eq!([k(0), k(3)], [(9, 16), (10, 16)]);
        let v = load("qwen3.5-397b-a17b", "vllm", 4);
        let before = v.model.forward_pass(4, 1);
        let mut fp = before.clone();
        apply(&mut fp, &v, &v.model);
        assert_eq!(fp, before);
    }

    #[test]
    fn moe_backend_that_routes_itself_keeps_one_topk_kernel() {
        // `flashinfer_trtllm` takes `TopKOutputFormat.BYPASSED` (topk.py 0.5.9): no split top-k,
        // the shared-expert gate stays.
        let a = added("qwen3.5-397b-a17b", 4, "moe_backend = \"flashinfer_trtllm\"\n");
        assert_eq!((a[0], a[3]), ((1, 3), (3, 3)));
    }

    #[test]
    fn dense_qwen35_gets_only_the_attention_kernels() {
        // Qwen3.5-27B: `Qwen2MoeMLP` (no shared-expert gate, no router), gated full attention every
        // 4th layer: 3 kernels on those layers' attention half, 1 on the Gated DeltaNet layers'.
        let a = added("qwen3.5-27b", 4, "");
        assert_eq!((a[0], a[3]), ((1, 0), (3, 0)));
        let n_full = a.iter().filter(|x| x.0 == 3).count();
        assert_eq!(n_full * 4, a.len());
        assert!(a.iter().all(|&(x, y)| y == 0 && (x == 1 || x == 3)));
    }

    #[test]
    fn qwen2_moe_gets_the_gate_and_the_unfused_topk() {
        // Qwen1.5-MoE-A2.7B: `Qwen2MoeSparseMoeBlock` with a shared expert in all 24 layers and 60
        // routed experts, not a power of two, so the launcher's unfused branch: 3 + 1 per layer.
        let a = added("qwen1.5-moe-a2.7b", 2, "");
        assert_eq!(a.len(), 24);
        assert!(a.iter().all(|&x| x == (0, 4)), "{a:?}");
    }

    #[test]
    fn other_models_unchanged() {
        // Qwen3-MoE: softmax top-k over 128 experts (fused) and no shared expert.
        let a = added("qwen3-30b-a3b-fp8", 2, "");
        assert!(a.iter().all(|&x| x == (0, 0)));
    }
}
