//! qwen3next (issue #17): the kernels SGLang's Qwen3-Next layers launch beyond the engine-neutral
//! layer template (`tpsim_model::llm::forward::attention_kernels` / `ffn_kernels`): 4 per MoE
//! layer (48) and 3 per full-attention layer (12), 228 a forward pass, every rank repeating them.
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
//! Like the rest of tpsim, the kernels are costed one after the other: SGLang runs the shared
//! expert (now with its gate) on the current stream beside the router and routed experts on
//! `alt_stream` for batches up to 1,024 tokens (`forward_normal_dual_stream`), an overlap tpsim
//! does not model for any MoE model (its fitted per-kernel cost is what absorbs it). 0.5.8's
//! dual-stream path also copies the hidden states for the shared expert
//! (`self._forward_shared_experts(hidden_states.clone())`; 0.5.2 passes them as they are): one more
//! kernel in 0.5.8 from a release between the two not located, so not charged.

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{Architecture, ForwardPass, Mixer, ModelSpec};

/// Kernels added to each MoE layer's feed-forward half for the shared expert's gate:
/// `shared_expert_gate` GEMM, sigmoid, multiply (module doc).
pub(crate) const SHARED_EXPERT_GATE_KERNELS: u32 = 3;

/// Kernels added to each MoE layer's feed-forward half for the router's top-k over 512 experts:
/// `moeSoftmax` and `moeTopK(Fast)` where the template counts one (module doc).
pub(crate) const TOPK_512_EXTRA_KERNELS: u32 = 1;

/// The largest expert count sgl-kernel's SM 9.0 `topkGatingSoftmax` is instantiated for
/// (0.3.9.post2, 0.3.21; module doc).
const FUSED_TOPK_MAX_EXPERTS: u64 = 256;

/// Kernels added to each full-attention layer with `attn_output_gate`: the query and gate copies
/// and the second of sigmoid / multiply (module doc).
pub(crate) const OUTPUT_GATE_EXTRA_KERNELS: u32 = 3;

/// Whether the rule applies: SGLang running `Qwen3NextForCausalLM`.
fn applies(s: &Scenario, model: &ModelSpec) -> bool {
    s.engine.kind == EngineKind::Sglang && model.arch == Architecture::Qwen3Next
}

/// Adds the module doc's kernels to the layers of `fp`, a pass of `model` under `s`; no change for
/// other engines or models.
pub(crate) fn apply(fp: &mut ForwardPass, s: &Scenario, model: &ModelSpec) {
    if !applies(s, model) {
        return;
    }
    for l in &mut fp.layers {
        if l.mixer == Mixer::Attention && model.attn_output_gate && l.attn_kernels > 0 {
            l.attn_kernels += OUTPUT_GATE_EXTRA_KERNELS;
        }
        if l.is_moe && l.ffn_kernels > 0 {
            l.ffn_kernels += SHARED_EXPERT_GATE_KERNELS;
            if l.n_experts > FUSED_TOPK_MAX_EXPERTS || !l.n_experts.is_power_of_two() {
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
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"{model}\"\n[engine]\n\
             name = \"{engine}\"\ntp = {tp}\ntrust_remote_code = true\n\
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

    #[test]
    fn other_models_unchanged() {
        // Qwen3.5 reuses these layers in other code (SGLang `qwen3_5.py`, not read here): unchanged,
        // as is a MoE model without either gate.
        for (name, tp) in [("qwen3.5-397b-a17b", 4), ("qwen3-30b-a3b-fp8", 2)] {
            let s = load(name, "sglang", tp);
            let model = &s.model;
            let before = model.forward_pass(tp, 1);
            let mut fp = before.clone();
            apply(&mut fp, &s, model);
            assert_eq!(fp, before, "{name}");
        }
    }
}
