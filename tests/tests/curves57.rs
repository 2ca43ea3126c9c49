//! curves57 (issue #18): measured GEMM efficiency curves for two more PCIe cards that borrowed
//! pcie-nccl-host's flat 0.50 FLOP efficiency: the GeForce RTX 3090 Ti (mli/transformers-benchmarks
//! micro_bench.ipynb, fp16 `a @ b` at n = 2048 and 8192) and the A10 (chsasank/device-benchmarks
//! README.md, bf16 `torch.matmul` sweep n = 256 … 6888, one figure). Each point is the source's TFLOPS ÷
//! the template's dense peak (the datasheet figure its `bf16_tflops` comment names), rounded to two
//! digits as the other GEMM-measured templates are; the small-kernel end keeps the assumed 0.50 at 5e10
//! FLOPs (decode unchanged). Cards still without a source keep the flat 0.50
//! (curves56::unsourced_cards_keep_the_flat_efficiency). FP8 side: the RTX 5090 gains a measured FP8 GEMM
//! curve (`[compute.formats.fp8]`, vllm pull 34424's bench_fp8_gemm.py runs). Beyond the brief's list, the
//! V100 SXM2 template gains its fp16 curve (zzc0721/torch-performance-test-data issue 140).

use crate::common::*;
use crate::curves56::{curve, two};

/// Asserts a template's curve: 5e10 → 0.50, then `plateau`, the dense peak `peak` and a flops_range
/// whose ends lie within 0.5 % of `lo` and `hi` (the source's GEMM sizes, 2n³ FLOPs).
pub(crate) fn assert_curve(template: &str, peak: f64, plateau: &[(f64, f64)], (lo, hi): (f64, f64)) {
    let (pts, range, bf16) = curve(template);
    assert!((bf16 - peak).abs() < 1e-9, "{template}: bf16_tflops {bf16}");
    assert_eq!(pts[0], (5e10, 0.50), "{template}: the small-kernel end");
    assert_eq!(&pts[1..], plateau, "{template}: the measured points");
    let (a, b) = range.unwrap_or_else(|| panic!("{template}: no flops_range"));
    assert!((a / lo - 1.0).abs() < 0.005, "{template}: {a} against {lo}");
    assert!((b / hi - 1.0).abs() < 0.005, "{template}: {b} against {hi}");
}

/// RTX 3090 Ti: micro_bench.ipynb's saved output, fp16 n = 8192: 81.314 TFLOPS ÷ 80.0 (84 SMs × 1.86 GHz
/// × 512, the template's derivation) = 1.016, capped at 1.0 as the RTX 3090's; the plateau starts at the
/// 4096³ GEMM (2 × 4096³ = 1.374e11, written 1.37e11, assumed) and the range ends at the largest
/// measured, 2 × 8192³ = 1.0995e12 (written 1.10e12). Its n = 2048 rate, 71.505 ÷ 80.0 = 0.894 at
/// 2 × 2048³ = 1.718e10 FLOPs, lies below 5e10, where the curve keeps 0.50 (decode unchanged).
#[test]
fn rtx_3090_ti_curve_is_the_8192_rate_capped_at_one() {
    let e: f64 = 81.314 / 80.0;
    assert!((e - 1.016).abs() < 5e-4, "{e}");
    let e2: f64 = 71.505 / 80.0;
    assert!((e2 - 0.894).abs() < 5e-4, "{e2}");
    assert!(2.0 * 2048f64.powi(3) < 5e10);
    assert_curve(
        "rtx-3090-ti",
        80.0,
        &[(1.37e11, two(e.min(1.0)))],
        (2.0 * 4096f64.powi(3), 2.0 * 8192f64.powi(3)),
    );
    assert!((two(e.min(1.0)) - 1.0).abs() < 1e-12);
}

/// A10: README row "Nvidia A10 24GB", BF16 56 TFLOPS ÷ 125.0 (datasheet, dense) = 0.448 → 0.45, below
/// the assumed small-kernel 0.50 (the 150 W card, as the L4's 0.47); range 2 × 4096³ = 1.374e11 to the
/// sweep's largest GEMM, 2 × 6888³ = 6.536e11 (written 6.54e11).
#[test]
fn a10_curve_is_the_readme_bf16_figure_over_the_peak() {
    let e: f64 = 56.0 / 125.0;
    assert!((e - 0.448).abs() < 5e-4, "{e}");
    assert_curve(
        "a10",
        125.0,
        &[(1.37e11, two(e))],
        (2.0 * 4096f64.powi(3), 2.0 * 6888f64.powi(3)),
    );
    assert!(two(e) < 0.50);
}

/// V100 SXM2: zzc0721/torch-performance-test-data issue 140 (V100-SXM2-16GB), fp16 4096³ 95.73, 8192³
/// 97.36, 10240³ 89.37 → median 95.73 ÷ 125.0 = 0.766 → 0.77; range 2 × 4096³ to 2 × 10240³ (2.147e12).
#[test]
fn v100_sxm2_curve_is_the_fp16_sweep_median_over_the_peak() {
    let e = median(&[95.73, 97.36, 89.37]) / 125.0;
    assert!((e - 0.766).abs() < 5e-4, "{e}");
    assert_curve(
        "v100-sxm2",
        125.0,
        &[(1.37e11, two(e))],
        (2.0 * 4096f64.powi(3), 2.0 * 10240f64.powi(3)),
    );
}

/// The A10G extends the A10 and keeps its own measured curve (curves56: 0.95 at 1.37e11), not the A10's.
#[test]
fn a10g_keeps_its_own_curve() {
    let hw = tpsim::scenario::hardware_from_preset("a10g-4x-aws-g5-12xlarge").expect("preset");
    let c = format!("{:?}", hw.curves);
    assert!(c.contains("(137000000000.0, 0.95)"), "{c}");
    assert!(!c.contains("0.45"), "{c}");
}

/// One 8,192-token prompt of Qwen3-8B bf16 (config.json: hidden 4,096, 32 heads of 128, 8 KV heads, MLP
/// 12,288, 36 layers) on one GPU of `preset` under vLLM 0.11.0 with an 8,192-token budget (one forward);
/// its `--json` run.
fn qwen3_8b_prompt(name: &str, preset: &str) -> serde_json::Value {
    let engine = "max_num_batched_tokens = 8192\nmax_model_len = 16384";
    vllm_one_prompt(name, (preset, "qwen3-8b"), 8192, "", engine)
}

/// The prefill's FLOPs by hand (the count of curves56's A6000 test): linear 2 × 8,192 × 36 × (4,096 ×
/// 6,144 QKV + 4,096² O + 3 × 4,096 × 12,288 MLP) = 1.13799e14, causal attention 2 × 8,192² × 4,096 × 36
/// = 1.9791e13, total 1.33591e14 FLOP; every kernel ≥ 2.06e11 FLOPs (on the plateau). tpsim adds the last
/// token's LM head, per-kernel gaps and host step costs (a few ms): 2 %.
const QWEN3_8B_8K_FLOP: f64 = 1.13799e14 + 1.9791e13;

/// The A10's prefill runs at the measured 0.45: 1.33591e14 ÷ (0.45 × 125e12) = 2,374.9 ms. Under the
/// old flat 0.50 the same count gives 2,137.5 ms, 10 % shorter: this test fails on it.
#[test]
fn a10_prefill_runs_at_the_measured_plateau_by_hand() {
    prefill_at_plateau("curves57-a10", "a10-1x", 0.45 * 125e12, 2374.9);
}

/// The RTX 3090 Ti's prefill runs at the measured (capped) 1.0: 1.33591e14 ÷ 80e12 = 1,669.9 ms, half
/// the old flat 0.50's 3,339.8 ms.
#[test]
fn rtx_3090_ti_prefill_runs_at_the_measured_plateau_by_hand() {
    prefill_at_plateau("curves57-3090ti", "rtx-3090-ti-4x-epyc-rome", 1.0 * 80e12, 1669.9);
}

/// Qwen3-8B's 8,192-token prefill on one GPU of `preset` at `rate` FLOP/s: `hand_ms` by hand (to
/// 0.5 ms), and tpsim's TTFT within 2 % of it.
fn prefill_at_plateau(name: &str, preset: &str, rate: f64, hand_ms: f64) {
    let by_hand = QWEN3_8B_8K_FLOP / rate * 1e3;
    assert!((by_hand - hand_ms).abs() < 0.5, "{by_hand}");
    assert_prefill_by_hand(&qwen3_8b_prompt(name, preset), by_hand);
}

/// The RTX 5090's measured FP8 curve (`[compute.formats.fp8]`): vllm pull 34424's bench_fp8_gemm.py
/// runs (vLLM 0.15.1, N = 6144, K = 4096, fp8-channel-w-token-a-noquant), TFLOP/s ÷ fp8_tflops 419:
/// M = 512: 260.79 ÷ 419 = 0.622 → 0.62 at 2 × 512 × 6144 × 4096 = 2.577e10 (written 2.58e10);
/// M = 1024: 346.60 ÷ 419 = 0.827 → 0.83 at 5.154e10 (5.15e10); M = 2048: 423.92 ÷ 419 = 1.012, capped
/// at 1.0, at 1.031e11 (1.03e11); M = 4096: 421.86 ÷ 419 = 1.007, capped: flat 1.0 beyond.
#[test]
fn rtx_5090_fp8_curve_is_the_measured_scaled_mm_rates() {
    let shape = |m: f64| 2.0 * m * 6144.0 * 4096.0;
    let pts =
        [(512.0, 260.79), (1024.0, 346.60), (2048.0, 423.92)].map(|(m, t): (f64, f64)| (shape(m), t / 419.0));
    assert!((pts[0].1 - 0.622).abs() < 5e-4 && (pts[1].1 - 0.827).abs() < 5e-4);
    assert!((pts[2].1 - 1.012).abs() < 5e-4);
    let rel = "hardware/templates/rtx-5090.toml";
    let text = std::fs::read_to_string(scenario(rel)).expect("template");
    let t: toml::Value = toml::from_str(&text).expect("toml");
    assert_eq!(t["gpu"]["fp8_tflops"].as_float(), Some(419.0));
    let written: Vec<(f64, f64)> = t["compute"]["formats"]["fp8"]["flops_points"]
        .as_array()
        .expect("flops_points")
        .iter()
        .map(|p| (p[0].as_float().unwrap(), p[1].as_float().unwrap()))
        .collect();
    assert_eq!(written.len(), 3);
    for ((size, eff), (ws, we)) in pts.iter().zip(&written) {
        assert!((ws / size - 1.0).abs() < 0.005, "{ws} against {size}");
        assert!((*we - two(eff.min(1.0))).abs() < 1e-12, "at {ws}: {we}");
    }
    // Resolved on a bundled box: the FP8 curve is the template's, flat 0.62 below its first point and
    // 1.0 beyond its last (M = 4096, 2.06e11: 421.86 ÷ 419 = 1.007, capped); the bf16 curve is unchanged.
    let hw = tpsim::scenario::hardware_from_preset("rtx-5090-4x-no-p2p").expect("preset");
    let fp8 = hw.compute_rates().curves.format_flops[&tpsim_model::llm::WeightDtype::Fp8].clone();
    assert!((fp8.at(1e10) - 0.62).abs() < 1e-12);
    assert!((fp8.at(5.15e10) - 0.83).abs() < 1e-12);
    assert!((fp8.at(shape(4096.0)) - 1.0).abs() < 1e-12);
    let (bf16, _, _) = curve("rtx-5090");
    assert_eq!(bf16, vec![(5e10, 0.50), (1.37e11, 0.87), (1.10e12, 1.00)]);
}
