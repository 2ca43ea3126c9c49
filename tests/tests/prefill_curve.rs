//! Issue #18 (prefill3): the A100 template's FLOP-efficiency curve, `[compute.curves.default]
//! flops_points = [[5e10, 0.50], [4.64e11, E]]` (`scenarios/hardware/templates/a100-sxm4.toml`), and
//! what it is worth out of sample.
//!
//! The shape is fixed beforehand (the template says why): 0.50 up to 5e10 FLOPs per kernel, the
//! plateau `E` from 4.64e11, the best shape of the A100 SXM's measured matmul ceiling. `E` is fitted
//! to the A100 rows of `tests/data/prefill.tsv` from two independent sources: sglang PR 38189
//! (lines 7-11, Qwen2.5-7B, one prompt of 1,024-16,384 tokens, TTFT) and TGI PR 1243 (lines 12-18,
//! Llama-2-13B, 100-400 prompts of 40 tokens, one prefill step). The criterion is the least RMS of
//! ln(predicted ÷ measured) over the rows, on a grid of 0.01.
//!
//! - The joint fit over both sources is the template's value (calibration: its rows are in-sample).
//! - ACCURACY, leave-one-source-out: `E` fitted on one source alone predicts the other source's rows.
//!   Those ratios are the figures book/src/validation.md ("Prefill") reports as accuracy.
//! - Both single-source fits stay under the measured matmul ceiling of the A100 SXM, 267.9 of 312
//!   TFLOPS = 0.859 (stas00/ml-engineering, compute/accelerator/README.md, "Maximum Achievable
//!   Matmul FLOPS comparison table", CUDA 12.1): the fit is not absorbing something a GEMM cannot do.
//!
//! Refit (the full grid 0.60-0.95 for each source and both):
//! `cargo test -p tpsim-tests --test integration prefill_curve:: -- --include-ignored --nocapture`.

use crate::prefill_rows::{FITTED_LINES, ROWS, measured_s, with_curve_ms};

/// The template's fitted plateau efficiency (scenarios/hardware/templates/a100-sxm4.toml).
const TEMPLATE_E: f64 = 0.82;
/// The A100 SXM's measured matmul ceiling ÷ its datasheet: 267.9 ÷ 312 (module docs).
const MAMF_A100_SXM: f64 = 267.9 / 312.0;
/// sglang PR 38189's lines.
const SGLANG: std::ops::RangeInclusive<usize> = 7..=11;
/// TGI PR 1243's lines.
const TGI: std::ops::RangeInclusive<usize> = 12..=18;

/// The rows of `lines`: (line, scenario file, prefill iterations).
fn rows(lines: &std::ops::RangeInclusive<usize>) -> Vec<(usize, &'static str, u64)> {
    ROWS.iter()
        .filter(|r| lines.contains(&r.0))
        .map(|r| (r.0, r.1, r.3))
        .collect()
}

/// predicted ÷ measured of each row of `lines` with the plateau at `e`.
fn ratios(lines: &std::ops::RangeInclusive<usize>, e: f64) -> Vec<(usize, f64)> {
    let points = format!("[[5e10, 0.5], [4.64e11, {e:.2}]]");
    rows(lines)
        .into_iter()
        .map(|(line, file, it)| (line, with_curve_ms(file, it, &points) / (measured_s(line) * 1e3)))
        .collect()
}

/// RMS of ln(predicted ÷ measured) over `r`.
fn rms_log(r: &[(usize, f64)]) -> f64 {
    (r.iter().map(|(_, x)| x.ln().powi(2)).sum::<f64>() / r.len() as f64).sqrt()
}

/// `e` is the grid's best for `lines`: its RMS log error is below its neighbours' (the error is
/// convex in `e` here: one knob scaling the large kernels' time).
fn assert_local_best(lines: &std::ops::RangeInclusive<usize>, e: f64, what: &str) {
    let at = |x: f64| rms_log(&ratios(lines, x));
    let (lo, mid, hi) = (at(e - 0.01), at(e), at(e + 0.01));
    println!(
        "{what}: RMS log error {lo:.4} at {:.2}, {mid:.4} at {e:.2}, {hi:.4} at {:.2}",
        e - 0.01,
        e + 0.01
    );
    assert!(
        mid < lo && mid < hi,
        "{what}: {e:.2} is not the best on the grid ({lo:.4} / {mid:.4} / {hi:.4})"
    );
}

#[test]
fn the_fitted_lines_are_the_two_sources() {
    assert_eq!(*FITTED_LINES.start(), *SGLANG.start());
    assert_eq!(*FITTED_LINES.end(), *TGI.end());
    assert_eq!(rows(&SGLANG).len(), 5);
    assert_eq!(rows(&TGI).len(), 7);
    // The inline curve at the template's value costs what the preset does (same points).
    let (line, file, it) = rows(&SGLANG)[3];
    let inline = with_curve_ms(file, it, "[[5e10, 0.5], [4.64e11, 0.82]]");
    let preset = crate::prefill_rows::predicted_ms(file, it);
    assert!(
        (inline - preset).abs() < 1e-9,
        "line {line}: {inline} vs {preset} ms"
    );
}

/// The joint fit over lines 7-18 is the template's 0.82 (calibration, in-sample).
#[test]
fn joint_fit_is_the_template_value() {
    assert_local_best(&FITTED_LINES, TEMPLATE_E, "both sources (lines 7-18)");
}

// The template's plateau stays under the A100 SXM's measured matmul ceiling.
const _: () = assert!(TEMPLATE_E < MAMF_A100_SXM);

/// Leave one source out: each source's own fit, and what it predicts for the other source's rows.
/// These are the accuracy figures of the book (validation.md, "Prefill").
#[test]
fn leave_one_source_out() {
    let (e_sglang, e_tgi) = (0.79, 0.83);
    assert_local_best(&SGLANG, e_sglang, "sglang PR 38189 alone (lines 7-11)");
    assert_local_best(&TGI, e_tgi, "TGI PR 1243 alone (lines 12-18)");
    assert!(
        e_sglang < MAMF_A100_SXM && e_tgi < MAMF_A100_SXM,
        "a fit above the matmul ceiling"
    );
    // The other source's rows, out of sample, with the figures the book prints (±0.002).
    let tgi_from_sglang = ratios(&TGI, e_sglang);
    let sglang_from_tgi = ratios(&SGLANG, e_tgi);
    let book_tgi = [1.200, 1.092, 1.098, 1.021, 1.063, 0.986, 0.941];
    let book_sglang = [0.966, 0.968, 0.929, 0.932, 1.069];
    let mut errors = Vec::new();
    for ((line, r), want) in tgi_from_sglang
        .iter()
        .zip(book_tgi)
        .chain(sglang_from_tgi.iter().zip(book_sglang))
    {
        println!("prefill.tsv line {line}: predicted ÷ measured {r:.3} (out of sample)");
        assert!(
            (r - want).abs() < 0.002,
            "line {line}: {r:.4}, the book says {want}"
        );
        errors.push((r - 1.0).abs());
    }
    errors.sort_by(f64::total_cmp);
    let median = (errors[5] + errors[6]) / 2.0;
    let within = errors.iter().filter(|e| **e <= 0.20).count();
    println!(
        "leave-one-source-out: median |error| {:.1} %, worst {:.1} %, {within} of 12 within ±20 %",
        median * 100.0,
        errors[11] * 100.0
    );
    assert!(median < 0.07, "median |error| {median:.3}");
    // Before the curve (flat 0.50) the same rows were 1.14-1.76x: the figure this replaces.
    assert!(errors[11] < 0.21, "worst |error| {:.3}", errors[11]);
}

/// The refit: the whole grid 0.60-0.95 for each source and for both (slow; run on purpose).
#[test]
#[ignore = "refit: ~900 runs; cargo test -p tpsim-tests --test integration prefill_curve:: -- --include-ignored --nocapture"]
fn refit_grid() {
    let grid: Vec<f64> = (60..=95).map(|i| f64::from(i) / 100.0).collect();
    for (what, lines) in [
        ("sglang PR 38189 (lines 7-11)", SGLANG),
        ("TGI PR 1243 (lines 12-18)", TGI),
        ("both (lines 7-18)", FITTED_LINES),
    ] {
        let best = grid
            .iter()
            .map(|&e| (e, rms_log(&ratios(&lines, e))))
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("grid");
        println!("{what}: best {:.2} (RMS log error {:.4})", best.0, best.1);
    }
}

/// Issue #18 (prefillmix): the A100 SXM's curve built from GEMM measurements instead of from these rows,
/// as the other GEMM-measured templates are (`templates/a100-sxm4.toml` lists the figures): 0.50 up to
/// 5e10 FLOPs per kernel, then the median of the two SXM matmul ceilings found, stas00/ml-engineering's
/// MAMF 271.2 (the table version `h100-sxm.toml` cites) and zzc0721/torch-performance-test-data's
/// 264.53 TFLOPS (database.md commit 07858687), = 267.9 ÷ 312 = 0.86, from the 4,096³ GEMM's 1.37e11
/// FLOPs. Nothing of lines 7-18 enters it, so its ratios are out of sample: 0.81-1.02, median |error|
/// 8.5 % (the upper of the two middle rows 9.4 %), 12 of 12 within ±20 % — against the fitted curve's
/// leave-one-source-out 6.6 % (worst 20.0 %). Not shipped: the template keeps the fitted 0.82 (a choice
/// for the lead: it would move every A100 SXM prefill). Fails if a row leaves ±20 % under it.
#[test]
fn gemm_measured_sxm_curve_predicts_the_fitted_rows_out_of_sample() {
    let e = (271.2_f64 + 264.53) / 2.0 / 312.0;
    assert!((e - 0.8586).abs() < 5e-4, "plateau {e:.4}");
    let r: Vec<(usize, f64)> = rows(&FITTED_LINES)
        .into_iter()
        .map(|(line, file, it)| {
            let p = with_curve_ms(file, it, "[[5e10, 0.5], [1.37e11, 0.86]]");
            (line, p / (measured_s(line) * 1e3))
        })
        .collect();
    let mut errs: Vec<f64> = r.iter().map(|(_, x)| (x - 1.0).abs()).collect();
    errs.sort_by(f64::total_cmp);
    let median = (errs[5] + errs[6]) / 2.0;
    println!(
        "GEMM-measured A100 SXM curve, lines 7-18 (tpsim ÷ measured): {r:.3?}; median |error| {median:.3}"
    );
    for (line, x) in &r {
        assert!((0.8..=1.2).contains(x), "line {line}: {x:.3} outside ±20 %");
    }
    assert!((median - 0.085).abs() < 0.01, "median |error| {median:.3}");
}
