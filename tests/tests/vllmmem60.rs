//! vllmmem60 (issue #17): the release gates of vLLM's profile-run parts that engine-memory.tsv
//! lines 51 and 54 located (`sim/src/decode/vllm_mm_profile.rs`; the rows' figures are asserted in
//! `memlogs`, `hybpage53` and `vmem58`). Each test moves one scenario across the release where vLLM's
//! code changes and asserts the peak activation's step, by hand, to the byte.

use crate::engine_memory_rows::plan_for_line;
use tpsim::decode::MemKind;

fn peak(text: &str) -> u64 {
    let p = plan_for_line(text, 0);
    p.entries
        .iter()
        .find(|e| e.kind == MemKind::PeakActivation)
        .map_or(0, |e| e.bytes)
}

/// Line 51's scenario (Qwen3-Next-80B-A3B, 2× H200, tp 2) at a given release.
fn qwen3_next(version: &str) -> String {
    format!(
        "[hardware]\npreset = \"h200-8x-nvlink\"\n[hardware.gpu]\ntorch_total_gib = 139.81\n[model]\n\
         preset = \"qwen3-next-80b-a3b\"\n[engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 2\n"
    )
}

/// Line 54's scenario (Qwen3-VL-30B-A3B, 4× RTX 3090 as the no-P2P 4090 box, tp 4) at a release.
fn qwen3_vl(version: &str) -> String {
    format!(
        "[hardware]\npreset = \"rtx-4090-4x-no-p2p\"\n[hardware.gpu]\ntorch_total_gib = 23.56\nsm_count = 82\n\
         [model]\npreset = \"qwen3-vl-30b-a3b-instruct\"\n[engine]\nname = \"vllm\"\nversion = \"{version}\"\n\
         tp = 4\nmax_model_len = 65536\n"
    )
}

/// vLLM 0.13.0 still frees the unquantized fused-MoE workspace after each layer (`fused_experts_impl`);
/// 0.14.0's modular kernel keeps it through the dummy sampler. Qwen3-Next at tp 2, 8,192 tokens,
/// top-10, hidden 2,048, expert width 512 / 2: round256(8,192 × 10 × 2,048 × 2) × 2 = 671,088,640 B
/// more at 0.14.0 (the sampler binds in both: the same 0.13 – 0.16 sampler rule).
#[test]
fn moe_workspace_kept_from_0_14() {
    let (a, b) = (peak(&qwen3_next("0.13.0")), peak(&qwen3_next("0.14.0")));
    assert_eq!(b - a, 8_192 * 10 * 2_048 * 2 * 2);
    assert_eq!(b - a, 671_088_640);
}

/// The Qwen3-VL video profile applies to 0.11.0 – 0.12.x: at 0.12.0 the encoder leaves 2,868,903,936 B
/// (hybpage53's line-54 test), at 0.13.0 the image of 16,384 tokens, its pixels 201,326,592 B and
/// its 8,192-wide output 268,435,456 B; the decoder side (the sorting sampler 1,488,519,168 B and
/// the Ampere cuBLAS workspace 8,519,680 B) is the same at both. At 0.14.0 the kept MoE workspace
/// (2,048 × 8 × 2,048 × 2 × 2 = 134,217,728 B) comes back on top of 0.13.0's.
#[test]
fn qwen3_vl_video_profile_until_0_13() {
    let decoder = 1_488_519_168u64 + 8_519_680;
    assert_eq!(peak(&qwen3_vl("0.11.0")), decoder + 2_868_903_936);
    assert_eq!(peak(&qwen3_vl("0.12.0")), decoder + 2_868_903_936);
    assert_eq!(peak(&qwen3_vl("0.13.0")), decoder + 201_326_592 + 268_435_456);
    assert_eq!(
        peak(&qwen3_vl("0.14.0")),
        decoder + 201_326_592 + 268_435_456 + 134_217_728
    );
}

/// The DeepStack buffers count in the weights at every release that has the model: 3 mergers ×
/// 2,048 tokens × 2,048 × 2 B = 25,165,824 B, the same at 0.11.0 and 0.19.0 (`max_num_batched_tokens`
/// 2,048 at both on this 24 GiB card).
#[test]
fn deepstack_buffers_in_the_weights() {
    let weights = |v: &str| {
        let p = plan_for_line(&qwen3_vl(v), 0);
        p.entries
            .iter()
            .find(|e| e.kind == MemKind::TargetWeights)
            .map_or(0, |e| e.bytes)
    };
    let w = weights("0.11.0");
    assert_eq!(w, weights("0.19.0"));
    // 14.7710 GiB against the log's 14.7708 (memlogs), ± 0.0005 GiB.
    assert!((w as f64 / (1u64 << 30) as f64 - 14.7710).abs() < 0.0005);
}
