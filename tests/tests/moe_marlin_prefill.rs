//! burstprefill: the FLOP-efficiency ceiling of Marlin's MoE grouped GEMM on H100
//! (`[compute.moe_backends.marlin] flops_efficiency` in `scenarios/hardware/templates/h100-sxm.toml`);
//! gptoss11: the same on A100 (`a100-sxm4.toml`, the tests at the end of this file).
//!
//! Source: sgl-project/sglang PR 38884, an nsys capture of a live W4A16 server on 8× H100 (three
//! 16,384-token chunked-prefill forwards): the Marlin MoE GEMMs do 1.237 TFLOP per layer per GPU in
//! 4.863 ms, 254 TFLOPS, 25.7 % of the H100's 989 TFLOPS dense bf16 peak. vLLM 0.10.x runs Marlin for
//! gpt-oss's MXFP4 experts on SM 9.0 (`tpsim::scenario::moe_backend::engine_default`), so that release's
//! prefill MoE layers cost their FLOPs at 0.257 of the peak instead of the default curve's rate; decode
//! layers, memory-bound, cost what they did.
//!
//! The hand computation (gpt-oss-120b, `scenarios/models/gpt-oss-120b`: hidden 2880, 128 experts, top 4,
//! 36 layers; vLLM Marlin's padding at TP 2, `llm::gpt_oss`: hidden 3072, intermediate 1536 per rank):
//! - a routed expert per rank: w13 2 × 1536 × 3072 + w2 3072 × 1536 = 14,155,776 weights, + 2 × 1536 +
//!   3072 biases = 14,161,920 parameters; the router 2880 × 128 + 128 = 368,768;
//! - a 2,048-token prompt (one prefill chunk): F = 2 × 2048 × (368,768 + 4 × 14,161,920)
//!   = 233,539,371,008 FLOPs per MoE layer, over the template's 8 kernels 2.92e10 per kernel, below
//!   the default curve's first point (5e10 → 0.50, flat beyond the ends), so FLOP-bound at 0.50 (its
//!   memory time, 128 touched experts ≈ 1.0 GB at 80 % of 3.35 TB/s ≈ 0.37 ms, is below F ÷ (0.5 ×
//!   989 TFLOPS) = 0.472 ms);
//! - Marlin against a backend without an entry (vLLM's `triton` fused MoE name: the template's cost):
//!   36 × F ÷ 989e12 × (1 ÷ 0.257 − 1 ÷ 0.5) = 16.0754 ms more time to first token.

use crate::common::*;

/// gpt-oss-120b on 2 of the 8× H100 SXM box, vLLM 0.10.2 TP 2, one request of 2,048 prompt tokens
/// and 2 output tokens, with `engine_lines` added to `[engine]`.
fn gpt_oss(engine_lines: &str, tag: &str) -> String {
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n\n[model]\npreset = \"gpt-oss-120b\"\n\n\
         [engine]\nname = \"vllm\"\nversion = \"0.10.2\"\ntp = 2\n{engine_lines}\n[workload]\n\
         concurrency = 1\nnum_requests = 1\nprompt_len = 2048\noutput_len = 2\n"
    );
    let p = scratch(&format!("moe-marlin-prefill-{tag}")).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

/// FLOPs of one gpt-oss-120b MoE layer per rank at TP 2 for a 2,048-token chunk (module docs).
const MOE_LAYER_FLOPS_2048: f64 = 2.0 * 2048.0 * (368_768.0 + 4.0 * 14_161_920.0);

/// The Marlin layer's extra time over the template's, all 36 layers, ms (module docs: 16.0754).
fn marlin_extra_ms() -> f64 {
    36.0 * MOE_LAYER_FLOPS_2048 / 989e12 * (1.0 / 0.257 - 1.0 / 0.5) * 1e3
}

/// vLLM 0.10.2's default MXFP4 backend on SM 9.0 (Marlin) costs the 2,048-token prefill's MoE layers
/// at 25.7 % of the bf16 peak: 16.0754 ms more TTFT than the template's 50 %; ±0.01 ms (integer-ns op
/// times, the biases' share of the FLOPs).
#[test]
fn marlin_prefill_moe_runs_at_a_quarter_of_the_bf16_peak() {
    assert!(
        (marlin_extra_ms() - 16.0754).abs() < 5e-4,
        "{}",
        marlin_extra_ms()
    );
    let marlin = run_json(&gpt_oss("", "default"));
    let template = run_json(&gpt_oss("moe_backend = \"triton\"\n", "triton"));
    let d = f(&marlin["throughput"]["ttft_ms"]) - f(&template["throughput"]["ttft_ms"]);
    assert!(
        (d - marlin_extra_ms()).abs() < 0.01,
        "{d} vs {}",
        marlin_extra_ms()
    );
    // Stating the default gives the same.
    let stated = run_json(&gpt_oss("moe_backend = \"marlin\"\n", "marlin"));
    assert_eq!(stated["throughput"]["ttft_ms"], marlin["throughput"]["ttft_ms"]);
}

/// The ceiling does not bind at decode: one request's MoE layer (4 experts, ≈ 0.11 GFLOP) is
/// memory-bound, so the median TPOT is the template's to the last digit.
#[test]
fn marlin_decode_step_is_the_templates() {
    let marlin = run_json(&gpt_oss("", "decode-default"));
    let template = run_json(&gpt_oss("moe_backend = \"triton\"\n", "decode-triton"));
    assert_eq!(
        marlin["serving"]["tpot_ms"]["p50"],
        template["serving"]["tpot_ms"]["p50"]
    );
}

/// A `flops_efficiency` outside (0, 1] in a profile: exit 2 naming the key.
#[test]
fn a_flops_efficiency_above_one_is_refused() {
    let dir = scratch("moe-marlin-bad-profile");
    let s = with_profile(
        &dir,
        &gpt_oss("", "badprof"),
        "[provenance]\ntool = \"hand\"\ndate = \"2026-12-03\"\nhardware = \"h100-sxm-8x-nvlink\"\n\n\
         [compute.moe_backends.marlin]\nflops_efficiency = 1.5\n",
    );
    let o = tpsim(&["run", &s]);
    assert!(
        o.code == 2 && o.stderr.contains("compute.moe_backends.marlin.flops_efficiency"),
        "{} {}",
        o.code,
        o.stderr
    );
}

// gptoss11: the same ceiling on A100 (`[compute.moe_backends.marlin]` in
// `scenarios/hardware/templates/a100-sxm4.toml`), which vLLM 0.11–0.13 reach by their own rule on SM 8.x
// (`get_mxfp4_backend`: `capability[0] < 9`, 0.12/0.13 `(9, 0) <= capability < (11, 0)`).
//
// Source: vllm-project/vllm PR 2497, comment of 2024-01-24 (IST-DASLab/marlin bench.py on an A100, named
// by its figures in the template): dense Marlin 141.124 TFLOPS at M 4000, 0.452 of the A100's 312.
// The hand computation (gpt-oss-20b, `scenarios/models/gpt-oss-20b`: hidden 2880, 32 experts, top 4,
// 24 layers; Marlin's padding at TP 1: hidden 3072, intermediate 2944):
// - a routed expert: w13 2 × 2944 × 3072 + w2 3072 × 2944 = 27,131,904 weights, + 2 × 2944 + 3072
//   biases = 27,140,864 parameters; the router 2880 × 32 + 32 = 92,192;
// - a 1,024-token prompt (one chunk of vLLM's A100 default 2,048): F = 2 × 1024 × (92,192 + 4 ×
//   27,140,864) = 222,526,767,104 FLOPs per MoE layer, 2.78e10 per kernel over 8, under the A100
//   curve's first point (5e10 → 0.50, flat below), FLOP-bound (32 experts ≈ 0.46 GB at 0.73 × 2,039
//   GB/s ≈ 0.31 ms against F ÷ (0.5 × 312 TFLOPS) = 1.43 ms);
// - Marlin against the template (`moe_backend = "triton"`, no entry): 24 × F ÷ 312e12 × (1 ÷ 0.452 −
//   1 ÷ 0.5) = 3.6356 ms more time to first token.

/// gpt-oss-20b on one A100 SXM4 80 GB, vLLM 0.11.0, one request of 1,024 prompt tokens and 2 output
/// tokens, with `engine_lines` added to `[engine]`.
fn gpt_oss_20b_a100(engine_lines: &str, tag: &str) -> String {
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"a100-sxm4-80gb-1x\"\n\n[model]\npreset = \"gpt-oss-20b\"\n\n\
         [engine]\nname = \"vllm\"\nversion = \"0.11.0\"\ntp = 1\n{engine_lines}\n[workload]\n\
         concurrency = 1\nnum_requests = 1\nprompt_len = 1024\noutput_len = 2\n"
    );
    let p = scratch(&format!("moe-marlin-a100-{tag}")).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

/// The A100 entry is the sourced figure: 141.124 TFLOPS ÷ 312 = 0.4523, written 0.452 (±0.0005, its
/// rounding).
#[test]
fn a100_marlin_ceiling_is_vllm_pr_2497s_dense_marlin_rate() {
    let text = std::fs::read_to_string(scenario("hardware/templates/a100-sxm4.toml")).unwrap();
    let t: toml::Value = toml::from_str(&text).unwrap();
    let e = t["compute"]["moe_backends"]["marlin"]["flops_efficiency"]
        .as_float()
        .unwrap();
    assert!((e - 141.124 / 312.0).abs() < 5e-4, "{e}");
}

/// vLLM 0.11.0's default MXFP4 backend on SM 8.0 (Marlin) costs the 1,024-token prefill's MoE layers
/// at 45.2 % of the A100's bf16 peak: 3.6356 ms more TTFT than the template's 50 % (module notes);
/// ±0.01 ms (integer-ns op times). Stating `marlin` gives the same.
#[test]
fn a100_marlin_prefill_moe_runs_at_the_measured_dense_marlin_rate() {
    let f_layer: f64 = 2.0 * 1024.0 * (92_192.0 + 4.0 * 27_140_864.0);
    assert!((f_layer - 222_526_767_104.0).abs() < 1.0, "{f_layer}");
    let extra = 24.0 * f_layer / 312e12 * (1.0 / 0.452 - 1.0 / 0.5) * 1e3;
    assert!((extra - 3.6356).abs() < 5e-4, "{extra}");
    let marlin = run_json(&gpt_oss_20b_a100("", "default"));
    let template = run_json(&gpt_oss_20b_a100("moe_backend = \"triton\"\n", "triton"));
    let d = f(&marlin["throughput"]["ttft_ms"]) - f(&template["throughput"]["ttft_ms"]);
    assert!((d - extra).abs() < 0.01, "{d} vs {extra}");
    let stated = run_json(&gpt_oss_20b_a100("moe_backend = \"marlin\"\n", "marlin"));
    assert_eq!(stated["throughput"]["ttft_ms"], marlin["throughput"]["ttft_ms"]);
}
