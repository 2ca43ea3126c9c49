//! Issue #19 point 6: prediction intervals propagated from a profile's fitted intervals, and the
//! calibrated-range flag. The bundled throughput profile (scenarios/profiles/retired/rtx-pro-6000-throughput-
//! fit.toml: kernel_overhead 5.14715 µs, 95 % interval 2.37136–11.1721, fitted on batch-1 rows at
//! tp 2–8) on its own fitted row `MiniMax-M2.5 FP8 SGLang TP4` (scenarios/examples/minimax-m2.5-fp8-
//! tp4-fitted-profile.toml).

use crate::common::*;
use std::path::Path;

const EXAMPLE: &str = "examples/minimax-m2.5-fp8-tp4-fitted-profile.toml";

/// The example's text with `from` replaced by `to` (once), written beside a copy of the profile so
/// that its relative `profile` path still resolves.
#[track_caller]
fn example_with(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario(EXAMPLE)).expect("example");
    assert_eq!(text.matches(from).count(), 1, "`{from}` must occur once");
    let dir = scratch(name);
    std::fs::create_dir_all(dir.join("profiles/retired")).unwrap();
    std::fs::create_dir_all(dir.join("examples")).unwrap();
    std::fs::copy(
        scenario("profiles/retired/rtx-pro-6000-throughput-fit.toml"),
        dir.join("profiles/retired/rtx-pro-6000-throughput-fit.toml"),
    )
    .unwrap();
    let p = dir.join("examples/s.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).unwrap();
    p.display().to_string()
}

/// The example with kernel_overhead set inline (overriding the profile's value) to `us`.
fn tok_s_at(name: &str, us: &str) -> (f64, f64) {
    let file = example_with(
        name,
        "[model]",
        &format!("[hardware.params]\nkernel_overhead = \"{us}us\"\n\n[model]"),
    );
    let j = run_json(&file);
    assert!(
        j.get("intervals").is_none(),
        "an overridden parameter carries no interval"
    );
    (
        f(&j["throughput"]["output_tok_s"]),
        f(&j["throughput"]["tpot_ms"]),
    )
}

#[test]
fn throughput_interval_is_the_kernel_overhead_sensitivity_by_hand() {
    let j = run_json(&scenario(EXAMPLE));
    let iv = &j["intervals"];
    let t = &iv["output_tok_s"];
    // The value is the report's own prediction. The profile's notes record 103.8 tok/s for this row
    // ("fitted row `MiniMax-M2.5 FP8 SGLang TP4`: … predicted 103.8 after") under the model of its
    // fit; the profile is retired, not refitted. Since fp8decode (stop 37) each of the 62 layers
    // also runs 4 per-token-group activation-quantization kernels (before the block-FP8 qkv and o
    // projections and the experts' gate_up and down GEMMs), each paying the fitted
    // kernel_overhead 5.14715 µs, and since vllmfusion SGLang 0.5.8's KV-cache store kernel
    // (`store_cache`, one a layer), and since splitkv50 FlashInfer's split-KV merge kernel (one a
    // layer); at batch 1 their bytes are a few KB. By hand:
    // 1000 / (1000 / 103.8 + 372 × 5.14715e-3 ms) = 86.590 tok/s (89.050 with the 310 before
    // splitkv50, 91.655 with the 248 before vllmfusion); tolerance 0.05 tok/s (the kernels' bytes,
    // ≈ 0.015). server58: the profile fits kernel_overhead only, and the Server template now streams at
    // 0.893 × 1.597 TB/s instead of 0.80 × 1.79: the step's bytes (the floor's weights + KV, 2.974e9 B)
    // take 2.974e9 × (1 / 1.42612e12 − 1 / 1.432e12) s = 0.0086 ms more: 86.526 tok/s. mmnorm61:
    // SGLang 0.5.8+'s q/k norms run `rms_sumsq_serial` + `rms_apply_serial`, one kernel a layer more
    // than the template's one (at one token no `.contiguous()` copies): 372 + 62 = 434 kernels,
    // 1000 / (1000 / 103.8 + 434 × 5.14715e-3 + 0.0086) = 84.201 tok/s.
    let y = f(&t["value"]);
    assert_eq!(y.to_bits(), f(&j["throughput"]["output_tok_s"]).to_bits());
    let fl = &j["floor"];
    let bytes = (f(&fl["weights_read_gib_per_step"]) + f(&fl["kv_read_gib_per_step"])) * (1u64 << 30) as f64;
    let more_ms = bytes * (1.0 / (0.893 * 1.597e12) - 1.0 / (0.80 * 1.79e12)) * 1e3;
    assert!((more_ms - 0.0086).abs() < 0.0001, "{more_ms}");
    let by_hand = 1000.0 / (1000.0 / 103.8 + 434.0 * 5.14715e-3 + more_ms);
    assert!((y - by_hand).abs() < 0.05, "{y} against {by_hand}");
    assert_eq!(
        (t["level"].as_f64(), t["method"].as_str()),
        (Some(0.95), Some("linearised"))
    );
    assert_eq!(iv["correlation"], "single");
    let p = &t["params"][0];
    assert_eq!(p["name"], "kernel_overhead");
    assert_eq!((f(&p["ci_low"]), f(&p["ci_high"])), (2.37136, 11.1721));
    // By hand: rerun with kernel_overhead at each end of its interval (inline), then
    // g = (ln y(11.1721) − ln y(2.37136)) / 2 and the interval is y·e^−|g| … y·e^|g|
    // (book/src/intervals.md). Same arithmetic on the same numbers: tolerance 1e-9 relative.
    let (lo_tok, lo_tpot) = tok_s_at("lo", "2.37136");
    let (hi_tok, hi_tpot) = tok_s_at("hi", "11.1721");
    assert_eq!((f(&p["at_ci_low"]), f(&p["at_ci_high"])), (lo_tok, hi_tok));
    assert!(hi_tok < y && y < lo_tok, "more overhead per kernel, fewer tok/s");
    let g = ((hi_tok.ln() - lo_tok.ln()) / 2.0).abs();
    let (low, high) = (f(&t["low"]), f(&t["high"]));
    assert!((low / (y * (-g).exp()) - 1.0).abs() < 1e-9, "{low}");
    assert!((high / (y * g.exp()) - 1.0).abs() < 1e-9, "{high}");
    assert!(low < y && y < high);
    // A batch-1 step is a fixed chain of kernels each paying kernel_overhead once: TPOT is affine
    // in it, so the slope over [lo, value] equals the slope over [value, hi] (tolerance 1 %).
    let tpot = f(&j["throughput"]["tpot_ms"]);
    let s1 = (tpot - lo_tpot) / (5.14715 - 2.37136);
    let s2 = (hi_tpot - tpot) / (11.1721 - 5.14715);
    assert!((s1 / s2 - 1.0).abs() < 0.01, "{s1} {s2}");
    // TPOT moves the other way; its interval holds its value; TTFT and the allreduce too.
    let tp = &iv["tpot_ms"];
    assert!(f(&tp["low"]) < tpot && tpot < f(&tp["high"]));
    assert_eq!(f(&tp["value"]).to_bits(), tpot.to_bits());
    for k in ["ttft_ms", "decode_allreduce_us"] {
        let x = &iv[k];
        assert!(
            f(&x["low"]) <= f(&x["value"]) && f(&x["value"]) <= f(&x["high"]),
            "{k}: {x}"
        );
    }
    // Batch 1 at tp 4: inside the fitted rows (batch 1–1, tp 2–8).
    let r = &j["calibrated_range"];
    assert_eq!(
        (r["stated"].as_bool(), r["extrapolation"].as_bool()),
        (Some(true), Some(false))
    );
    assert_eq!(r["fitted_on"], "batch 1–1, tp 2–8");
    let o = tpsim(&["run", &scenario(EXAMPLE)]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let line = format!(
        "throughput {y:.1} tok/s (95 % interval {low:.1}–{high:.1}, from profile rtx-pro-6000-throughput-fit.toml's fitted kernel_overhead)"
    );
    assert!(o.stdout.contains(&line), "{line}\n{}", o.stdout);
    assert!(o.stdout.contains("Calibrated range: inside"), "{}", o.stdout);
}

#[test]
fn batch_64_is_an_extrapolation_of_a_batch_1_fit() {
    let file = example_with("b64", "concurrency = 1", "concurrency = 64");
    let j = run_json(&file);
    let r = &j["calibrated_range"];
    assert_eq!(r["extrapolation"].as_bool(), Some(true));
    assert_eq!(
        r["outside"][0],
        "batch 64 is outside the fitted batch 1–1: an extrapolation of the fit"
    );
    let o = tpsim(&["run", &file]);
    assert!(
        o.stdout.contains("Calibrated range: EXTRAPOLATION"),
        "{}",
        o.stdout
    );
    // The interval is still given (the fit's own uncertainty), beside the warning.
    assert!(j["intervals"]["output_tok_s"].is_object());
}

#[test]
fn no_interval_without_a_profile_or_without_fitted_intervals() {
    let j = run_json(&scenario("seed/baseline.toml"));
    assert!(j.get("intervals").is_none() && j.get("calibrated_range").is_none());
    let o = tpsim(&["run", &scenario("seed/baseline.toml")]);
    assert!(!o.stdout.contains("Intervals") && !o.stdout.contains("Calibrated range"));
    // The same profile with the interval removed: no interval field, and the text says why; an
    // old profile without [provenance.range] cannot say whether the scenario is inside it.
    let file = example_with("noci", "[model]", "[model]");
    let prof = Path::new(&file)
        .parent()
        .unwrap()
        .join("../profiles/retired/rtx-pro-6000-throughput-fit.toml");
    let text = std::fs::read_to_string(&prof).unwrap();
    let text = text
        .replace("ci_low = 2.37136\nci_high = 11.1721\n", "")
        .replace("[provenance.range]\nbatch = [1, 1]\ntp = [2, 8]\n", "");
    std::fs::write(&prof, text).unwrap();
    let j = run_json(&file);
    assert!(j.get("intervals").is_none());
    assert_eq!(j["calibrated_range"]["stated"].as_bool(), Some(false));
    let o = tpsim(&["run", &file]);
    assert!(
        o.stdout
            .contains("no fitted intervals in the profile rtx-pro-6000-throughput-fit.toml"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("Calibrated range: not stated"), "{}", o.stdout);
}

#[test]
fn byte_identical_across_runs_and_thread_counts() {
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| tpsim(&["run", &scenario(EXAMPLE), "--json"]).stdout)
    };
    let one = run(1);
    assert!(one.contains("\"intervals\""));
    assert_eq!(one, run(4));
    assert_eq!(one, run(1));
}

/// A two-parameter profile: kernel_overhead and mem_efficiency, with or without a correlation.
fn two_param_profile(corr: Option<f64>) -> String {
    let mut p = String::from(
        "[provenance]\ntool = \"hand\"\n\n[params.kernel_overhead]\nvalue = 6.50248\nci_low = 3.64946\n\
         ci_high = 11.5859\nunit = \"us\"\nsource = \"test\"\n\n[params.mem_efficiency]\nvalue = 0.8\n\
         ci_low = 0.7\nci_high = 0.9\nunit = \"\"\nsource = \"test\"\n",
    );
    if let Some(r) = corr {
        p.push_str(&format!(
            "\n[correlation]\nparams = [\"kernel_overhead\", \"mem_efficiency\"]\nmatrix = [[1.0, {r}], [{r}, 1.0]]\n"
        ));
    }
    p
}

#[test]
fn correlated_parameters_combine_through_the_fits_matrix() {
    let width = |name: &str, corr: Option<f64>| {
        let file = example_with(name, "[model]", "[model]");
        let prof = Path::new(&file)
            .parent()
            .unwrap()
            .join("../profiles/retired/rtx-pro-6000-throughput-fit.toml");
        std::fs::write(&prof, two_param_profile(corr)).unwrap();
        let j = run_json(&file);
        let t = j["intervals"]["output_tok_s"].clone();
        (j["intervals"]["correlation"].as_str().unwrap().to_string(), t)
    };
    let (label, t) = width("indep", None);
    assert_eq!(label, "independent");
    // By hand from the per-parameter runs the JSON lists: gᵢ = (ln y(hi) − ln y(lo)) / 2,
    // w² = g₁² + g₂² + 2 r g₁ g₂ (tolerance 1e-9 relative on ln-widths).
    let g: Vec<f64> = t["params"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| (f(&p["at_ci_high"]).ln() - f(&p["at_ci_low"]).ln()) / 2.0)
        .collect();
    assert_eq!(g.len(), 2);
    // More overhead lowers tok/s (g₁ < 0); more memory efficiency raises it (g₂ > 0).
    assert!(g[0] < 0.0 && g[1] > 0.0, "{g:?}");
    let w = |t: &serde_json::Value| (f(&t["high"]) / f(&t["value"])).ln();
    assert!((w(&t) / (g[0] * g[0] + g[1] * g[1]).sqrt() - 1.0).abs() < 1e-9);
    // Fitted with r = −0.6 (the two trade off against each other): the opposite-signed effects add.
    let (label, tc) = width("corr", Some(-0.6));
    assert_eq!(label, "fit");
    let want = (g[0] * g[0] + g[1] * g[1] - 2.0 * 0.6 * g[0] * g[1]).sqrt();
    assert!((w(&tc) / want - 1.0).abs() < 1e-9, "{} {want}", w(&tc));
    assert!(w(&tc) > w(&t));
    let file = example_with("indep-text", "[model]", "[model]");
    let prof = Path::new(&file)
        .parent()
        .unwrap()
        .join("../profiles/retired/rtx-pro-6000-throughput-fit.toml");
    std::fs::write(&prof, two_param_profile(None)).unwrap();
    let o = tpsim(&["run", &file]);
    assert!(
        o.stdout
            .contains("parameters assumed independent: the profile has no correlation matrix"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("fitted kernel_overhead, mem_efficiency)"),
        "{}",
        o.stdout
    );
}

#[test]
fn collective_with_the_profile_gives_each_time_an_interval() {
    let prof = scenario("profiles/retired/rtx-pro-6000-throughput-fit.toml");
    let args = [
        "collective",
        "--hardware",
        "rtx-pro-6000-8x-1switch",
        "--profile",
        &prof,
        "--gpus",
        "4",
        "--sizes",
        "6K,1M",
    ];
    let o = tpsim(&args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains(
            "# 95 % interval of time(us), linearised from profile rtx-pro-6000-throughput-fit.toml's fitted kernel_overhead (one fitted parameter):"
        ),
        "{}",
        o.stdout
    );
    let mut a = args.to_vec();
    a.push("--json");
    let j: serde_json::Value = serde_json::from_str(&tpsim(&a).stdout).unwrap();
    assert_eq!(j["intervals"], "single");
    for row in j["rows"].as_array().unwrap() {
        let iv = &row["time_us_interval"];
        assert_eq!(f(&iv["value"]).to_bits(), f(&row["time_us"]).to_bits());
        assert!(
            f(&iv["low"]) <= f(&iv["value"]) && f(&iv["value"]) <= f(&iv["high"]),
            "{iv}"
        );
        assert_eq!(iv["params"][0]["name"], "kernel_overhead");
    }
    // Without a profile: no interval anywhere.
    let j: serde_json::Value = serde_json::from_str(
        &tpsim(&[
            "collective",
            "--hardware",
            "rtx-pro-6000-8x-1switch",
            "--gpus",
            "4",
            "--sizes",
            "6K",
            "--json",
        ])
        .stdout,
    )
    .unwrap();
    assert!(j.get("intervals").is_none() && j["rows"][0].get("time_us_interval").is_none());
}

#[test]
fn diff_ratio_interval_moves_the_shared_parameter_on_both_sides() {
    // A = the example (batch 1), B = the same at concurrency 2, one profile: kernel_overhead is the
    // same constant on both sides, so its interval moves A and B together (intervals_diff.rs). By
    // hand from each side's own interval ends (tpsim diff --json carries both reports):
    // r = B/A, ends (B(lo)/A(lo), B(hi)/A(hi)), w = |ln end_hi − ln end_lo| / 2, interval r·e^∓w.
    // Same arithmetic on the same numbers: tolerance 1e-9 relative.
    // Both beside one copy of the profile (B written next to A).
    let a = example_with("diff", "concurrency = 1", "concurrency = 1");
    let b = a.replace("s.toml", "b.toml");
    std::fs::write(
        &b,
        std::fs::read_to_string(&a)
            .unwrap()
            .replacen("concurrency = 1", "concurrency = 2", 1),
    )
    .unwrap();
    let o = tpsim(&["diff", &a, &b, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let side = |s: &str| {
        let t = &j[s]["intervals"]["output_tok_s"];
        let p = &t["params"][0];
        (
            f(&t["value"]),
            f(&p["at_ci_low"]),
            f(&p["at_ci_high"]),
            f(&t["low"]),
            f(&t["high"]),
        )
    };
    let (ya, la, ha, lowa, higha) = side("a");
    let (yb, lb, hb, lowb, highb) = side("b");
    let r = &j["deltas"]["ratio_intervals"][0];
    assert_eq!(
        (r["name"].as_str(), r["profiles"].as_str()),
        (Some("output_tok_s"), Some("shared"))
    );
    let ratio = yb / ya;
    let w = ((hb / ha).ln() - (lb / la).ln()).abs() / 2.0;
    assert!((f(&r["ratio"]) / ratio - 1.0).abs() < 1e-9);
    assert!((f(&r["low"]) / (ratio * (-w).exp()) - 1.0).abs() < 1e-9, "{r}");
    assert!((f(&r["high"]) / (ratio * w.exp()) - 1.0).abs() < 1e-9, "{r}");
    // The shared constant largely cancels: the ratio's relative half-width is below what two
    // independent sides would give, √(wa² + wb²) with each side's own log half-width.
    let (wa, wb) = ((higha / lowa).ln() / 2.0, (highb / lowb).ln() / 2.0);
    assert!(w < (wa * wa + wb * wb).sqrt(), "{w} vs {wa} {wb}");
    // Batch 2 at 1.79× batch 1 (text report): beyond the fit noise.
    assert_eq!(r["beyond_fit_noise"].as_bool(), Some(true));
    let t = tpsim(&["diff", &a, &b]);
    assert!(
        t.stdout.contains("B/A with 95 % intervals")
            && t.stdout
                .contains("beyond the fit noise (shared profile parameters)"),
        "{}",
        t.stdout
    );
}

#[test]
fn diff_without_fitted_intervals_has_no_ratio_intervals() {
    // Neither side has a profile: no ratio intervals and no line in the text.
    let a = scenario("seed/baseline.toml");
    let o = tpsim(&["diff", &a, &a, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["deltas"]["ratio_intervals"].as_array().map(Vec::len), Some(0));
    assert!(!tpsim(&["diff", &a, &a]).stdout.contains("B/A with 95 %"));
}

#[test]
fn diff_ratio_interval_with_two_profile_files_treats_them_as_independent() {
    // B reads another copy of the profile: its kernel_overhead is another fitted constant as far as
    // tpsim can tell, so the two sides' parameters combine independently: w = √(wa'² + wb'²) with
    // wa' = |ln(B/A(lo)) − ln(B/A(hi))| / 2 = A's own log half-width, and likewise for B.
    let a = scenario(EXAMPLE);
    let b = example_with("diff-indep", "concurrency = 1", "concurrency = 2");
    let o = tpsim(&["diff", &a, &b, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let half = |s: &str| {
        let p = &j[s]["intervals"]["output_tok_s"]["params"][0];
        (f(&p["at_ci_high"]).ln() - f(&p["at_ci_low"]).ln()).abs() / 2.0
    };
    let w = (half("a").powi(2) + half("b").powi(2)).sqrt();
    let r = &j["deltas"]["ratio_intervals"][0];
    assert_eq!(r["profiles"].as_str(), Some("independent"));
    let ratio = f(&r["ratio"]);
    assert!((f(&r["low"]) / (ratio * (-w).exp()) - 1.0).abs() < 1e-9, "{r}");
    assert!((f(&r["high"]) / (ratio * w.exp()) - 1.0).abs() < 1e-9, "{r}");
}

#[test]
fn sweep_intervals_match_the_runs_and_are_opt_in() {
    // `tpsim sweep --intervals` gives each point the interval `tpsim run --json` gives the same
    // scenario (same code path: identical bits); without the flag the columns are absent.
    let a = scenario(EXAMPLE);
    let o = tpsim(&[
        "sweep",
        &a,
        "--set",
        "workload.concurrency=1,2",
        "--intervals",
        "--json",
        "-q",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let run = run_json(&a);
    let iv = &run["intervals"];
    let r0 = &rows[0];
    for (col, want) in [
        ("output_tok_s_low", &iv["output_tok_s"]["low"]),
        ("output_tok_s_high", &iv["output_tok_s"]["high"]),
        ("tpot_ms_low", &iv["tpot_ms"]["low"]),
        ("tpot_ms_high", &iv["tpot_ms"]["high"]),
    ] {
        assert_eq!(f(&r0[col]).to_bits(), f(want).to_bits(), "{col}");
    }
    // Concurrency 2: its interval holds its own value.
    let r1 = &rows[1];
    assert!(
        f(&r1["output_tok_s_low"]) < f(&r1["output_tok_s"])
            && f(&r1["output_tok_s"]) < f(&r1["output_tok_s_high"])
    );
    let plain = tpsim(&["sweep", &a, "--set", "workload.concurrency=1", "-q"]);
    assert!(!plain.stdout.contains("output_tok_s_low"), "{}", plain.stdout);
    // No profile: the columns are there with --intervals, empty.
    let seed = scenario("seed/baseline.toml");
    let o = tpsim(&[
        "sweep",
        &seed,
        "--set",
        "workload.output_len=8",
        "--intervals",
        "-q",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let mut lines = o.stdout.lines();
    assert!(
        lines
            .next()
            .unwrap()
            .ends_with("output_tok_s_low,output_tok_s_high,tpot_ms_low,tpot_ms_high")
    );
    assert!(lines.next().unwrap().ends_with(",,,,"), "{}", o.stdout);
}
