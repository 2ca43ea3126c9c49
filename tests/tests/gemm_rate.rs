//! gemmrate: the H100 SXM's FLOP rate at prefill sizes is the bf16 rate measured on the GEMM shapes
//! a model's layers run, 0.72 of the 989 TFLOPS peak (`scenarios/hardware/templates/h100-sxm.toml`,
//! `[compute.curves.default]`: the median of eight torch.mm bf16 rows at M 4,096–16,384 tokens in
//! vllm-project/vllm PRs 23939 and 23280, 713.05 TFLOPS = 0.721, kept to two digits), not the best-shape ceiling (0.80, the
//! stas00/ml-engineering MAMF table). Decode-sized kernels (≤ 5e10 FLOPs) keep the template's 0.50.

use crate::common::*;

/// One request of `prompt` tokens of Qwen3-14B bf16 on one H100 SXM, with `extra` in `[hardware]`.
fn one_prompt(name: &str, prompt: u32, extra: &str) -> serde_json::Value {
    vllm_one_prompt(name, ("h100-sxm-1x", "qwen3-14b"), prompt, extra, "")
}

/// Qwen3-14B (config.json: hidden 5,120, 40 heads of 128, 8 KV heads, MLP 17,408, 40 layers), one
/// 8,192-token prompt, one forward (vLLM 0.11's H100 token budget is 8,192), by hand:
/// - linear layers: 2 × 8,192 × 40 × (5,120 × (5,120 + 2 × 1,024) + 5,120 × 5,120 + 3 × 5,120 ×
///   17,408) = 2.1640e14 FLOP;
/// - causal attention: 40 × 2 × 8,192² × 5,120 = 2.7488e13 FLOP;
/// - every one of these kernels is ≥ 2.9e11 FLOPs, on the curve's plateau: 2.4389e14 ÷ (0.72 ×
///   989e12) = 342.5 ms.
///
/// tpsim's TTFT adds the LM head of the last token, the per-kernel gaps and the host's step costs
/// (≈ 2 ms in all at the old plateau: 310.45 ms against 308.2 by the same count): tolerance 2 %.
/// The old plateau (0.80) gives 308.2 ms by hand, 10 % below: this test fails on it. vllmttft61:
/// the TTFT also carries vLLM 0.11's request path before the engine sees the prompt, the tokenizer's
/// 2 ms microbatch wait and 8,192 × 1 µs of tokenization (`tpsim::serve::vllm_front`): 10.192 ms
/// added to the hand figure.
#[test]
fn h100_prefill_runs_at_the_layer_shape_bf16_rate_by_hand() {
    let linear: f64 =
        2.0 * 8192.0 * 40.0 * (5120.0 * (5120.0 + 2.0 * 1024.0) + 5120.0 * 5120.0 + 3.0 * 5120.0 * 17408.0);
    let attention: f64 = 40.0 * 2.0 * 8192.0 * 8192.0 * 5120.0;
    assert!((linear / 2.1640e14 - 1.0).abs() < 1e-3, "{linear}");
    assert!((attention / 2.7488e13 - 1.0).abs() < 1e-3, "{attention}");
    let hand_ms = (linear + attention) / (0.72 * 989e12) * 1e3;
    assert!((hand_ms - 342.5).abs() < 0.5, "{hand_ms}");
    assert_prefill_by_hand(&one_prompt("h100-8k", 8192, ""), hand_ms + 10.192);
}

/// Decode steps do not move: a decode kernel of Qwen3-14B at batch 1 is far below 5e10 FLOPs, where
/// the curve keeps 0.50 whatever the plateau. The same one-prompt run with the old plateau written
/// inline (`[[5e10, 0.50], [1.37e11, 0.80]]`) has the same TPOT to 0.1 %, and a TTFT 0.80 ÷ 0.72
/// = 1.111× shorter in its FLOP part (checked: between 1.100× and 1.112× overall, the fixed
/// ≈ 2 ms not scaling).
#[test]
fn h100_decode_is_unchanged_by_the_plateau() {
    let new = one_prompt("h100-new", 8192, "");
    let old = one_prompt(
        "h100-old",
        8192,
        "[hardware.compute.curves.default]\nflops_points = [[5e10, 0.50], [1.37e11, 0.80]]\n\
         flops_range = [1.37e11, 2.15e12]\n",
    );
    assert_curve_moves_only_prefill(&new, &old, 1.100..=1.112);
}
