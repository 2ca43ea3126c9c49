//! Issue #18 (prefillgpus), honest output: `tpsim run` says whether a prefill/TTFT figure rests on
//! measured FLOP efficiencies. The GPU's FLOP curve (`[compute.curves.default] flops_points`) was
//! measured on dense bf16/fp16 GEMMs over `flops_range` FLOPs per kernel; a FLOP-bound prefill kernel
//! outside that domain (another size, an MoE op, quantized weights) runs at an extrapolated
//! efficiency, and a GPU without a curve at the flat assumed `flops_efficiency`. JSON
//! `prefill_calibration` (book/src/json.md), text "Prefill FLOP rate:".

use crate::common::*;

/// One scenario under `scenarios/validation/prefill/` with `extra` appended (inline TOML tables),
/// run with `--json`.
fn run_with(file: &str, name: &str, extra: &str) -> serde_json::Value {
    let base = std::fs::read_to_string(scenario(&format!("validation/prefill/{file}"))).expect("scenario");
    let p = scratch(name).join(file);
    std::fs::write(&p, format!("{base}\n{extra}\n")).expect("write scenario");
    run_json(&p.display().to_string())
}

fn close(a: f64, b: f64, rel: f64) -> bool {
    ((a - b) / b).abs() <= rel
}

/// prefill.tsv line 22's scenario: eight 256-token Mistral-7B prompts in one 2,048-token step on an
/// RTX 4090 (curve measured over 1.37e11–2.15e12 FLOPs per kernel, `templates/rtx-4090.toml`).
/// By hand (mistral-7b-v0.3: hidden 4,096, 32 heads of 128, 8 KV heads, MLP 14,336, 32 layers):
/// - MLP: 2 × 2,048 × 3 × 4,096 × 14,336 = 7.2155e11 FLOP over its 4 kernels = 1.8039e11 each (inside);
/// - attention block: projections 2 × 2,048 × 4,096 × (4,096 + 2 × 1,024 + 4,096) = 1.7180e11, plus
///   causal attention 8 × 256² / 2 × 2 × (32 × 256) = 4.295e9: 1.7609e11 over 5 kernels = 3.522e10
///   each, below the range.
///
/// So 1.7609e11 ÷ (1.7609e11 + 7.2155e11) = 19.62 % of the FLOP-bound FLOPs lie outside (every layer
/// alike; the last token's LM head is memory-bound). Tolerance 0.1 % on the sizes, 0.001 on the share.
#[test]
fn rtx4090_prefill_is_partly_an_extrapolation_by_hand() {
    let j = run_json(&scenario(
        "validation/prefill/mistral-7b-rtx4090-vllm-bs8-in256.toml",
    ));
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "extrapolation", "{p}");
    let mlp: f64 = 2.0 * 2048.0 * 3.0 * 4096.0 * 14336.0;
    let attn: f64 = 2.0 * 2048.0 * 4096.0 * (4096.0 + 2.0 * 1024.0 + 4096.0)
        + 8.0 * 256.0 * 256.0 / 2.0 * 2.0 * (32.0 * 256.0);
    assert!(close(f(&p["kernel_flops"][0]), attn / 5.0, 1e-3), "{p}");
    assert!(close(f(&p["kernel_flops"][1]), mlp / 4.0, 1e-3), "{p}");
    assert_eq!(p["measured_range"][0].as_f64(), Some(1.37e11));
    assert_eq!(p["measured_range"][1].as_f64(), Some(2.15e12));
    let share = attn / (attn + mlp);
    assert!((share - 0.1962).abs() < 5e-4, "hand figure {share}");
    assert!((f(&p["outside_share"]) - share).abs() < 1e-3, "{p}");
    let note = p["note"].as_str().unwrap();
    assert!(
        note.contains("20 %") && note.contains("1.37e11–2.15e12"),
        "{note}"
    );
    // The text report says the same, with the curve's source.
    let o = tpsim(&[
        "run",
        &scenario("validation/prefill/mistral-7b-rtx4090-vllm-bs8-in256.toml"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("Prefill FLOP rate: prefill/TTFT partly an extrapolation"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("  curve: [measured] bf16 torch.mm sweeps"),
        "{}",
        o.stdout
    );
}

/// A GPU without a FLOP curve (the L40S keeps the flat assumed 0.50, `templates/l40s.toml`): the
/// prefill/TTFT is uncalibrated, whatever its size. prefill.tsv line 19: Llama-3.1-8B, 8,192 tokens;
/// its MLP kernels are 2 × 8,192 × 3 × 4,096 × 14,336 ÷ 4 = 7.2155e11 FLOPs each (the largest).
#[test]
fn gpu_without_a_curve_is_uncalibrated() {
    let j = run_json(&scenario(
        "validation/prefill/llama31-8b-l40s-vllm-bs1-in8192.toml",
    ));
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "uncalibrated", "{p}");
    assert!(
        p["measured_range"].is_null() && p["curve_source"].is_null(),
        "{p}"
    );
    assert!((f(&p["outside_share"]) - 1.0).abs() < 1e-12, "{p}");
    let mlp: f64 = 2.0 * 8192.0 * 3.0 * 4096.0 * 14336.0 / 4.0;
    assert!(close(f(&p["kernel_flops"][1]), mlp, 1e-3), "{p}");
    let note = p["note"].as_str().unwrap();
    assert!(
        note.contains("no FLOP-efficiency curve") && note.contains("flat flops_efficiency 0.5"),
        "{note}"
    );
}

/// The same L40S prefill with an inline curve whose measured range holds every kernel: "measured
/// range", nothing outside. With a range that starts above the attention block's kernels (2 ×
/// 8,192 × 4,096 × 12,288 + 8,192² × 8,192 = 1.3744e12 ÷ 5 = 2.749e11; tpsim's smallest, 2.474e11,
/// adds the block's norm and RoPE FLOPs), only the MLP's lie inside. A curve without a range is
/// uncalibrated: no kernel is known to lie on measurements.
#[test]
fn inline_curve_range_decides_the_status() {
    let curve = "[hardware.compute.curves.default]\nflops_points = [[5e10, 0.5], [1.37e11, 0.6]]\n";
    let j = run_with(
        "llama31-8b-l40s-vllm-bs1-in8192.toml",
        "inside",
        &format!("{curve}flops_range = [1e11, 1e12]\n"),
    );
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "measured range", "{p}");
    assert!(f(&p["outside_share"]).abs() < 1e-12, "{p}");
    let j = run_with(
        "llama31-8b-l40s-vllm-bs1-in8192.toml",
        "above",
        &format!("{curve}flops_range = [3e11, 1e12]\n"),
    );
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "extrapolation", "{p}");
    let share = f(&p["outside_share"]);
    assert!(share > 0.0 && share < 0.5, "attention's share only: {share}");
    let j = run_with("llama31-8b-l40s-vllm-bs1-in8192.toml", "norange", curve);
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "uncalibrated", "{p}");
    assert!(
        p["note"].as_str().unwrap().contains("states no measured range"),
        "{p}"
    );
}

/// MoE ops and quantized weights lie outside a curve measured on dense bf16 GEMMs whatever their
/// size: prefill.tsv line 3 (DeepSeek-V3.1, FP8 block weights, MoE, 8× H200 under the H200 curve)
/// has no FLOP-bound kernel inside, so all of its FLOPs count as outside.
#[test]
fn moe_and_fp8_prefill_is_outside_the_curve() {
    let j = run_json(&scenario(
        "validation/prefill/dsv31-h200x8-sglang-bs16-in512.toml",
    ));
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "extrapolation", "{p}");
    assert!((f(&p["outside_share"]) - 1.0).abs() < 1e-12, "{p}");
    assert!(
        p["note"]
            .as_str()
            .unwrap()
            .contains("MoE and quantized-weight ops count as outside")
    );
}

/// The A100 curve's range is the span of its own fitted rows (lines 7-18, 1.35e10–1.70e12 FLOPs per
/// kernel): line 9's kernels (1.92e11–8.34e11) lie inside it.
#[test]
fn a100_rows_lie_inside_their_curve_range() {
    let j = run_json(&scenario(
        "validation/prefill/qwen25-7b-a100-sglang-bs1-in8192.toml",
    ));
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "measured range", "{p}");
    assert_eq!(p["measured_range"][0].as_f64(), Some(1.35e10));
    assert_eq!(p["measured_range"][1].as_f64(), Some(1.70e12));
}

/// A bad `flops_range` is an exit-2 error naming the key and what was expected.
#[test]
fn bad_flops_range_is_refused() {
    for (name, extra, want) in [
        (
            "nocurve",
            "[hardware.compute.curves.default]\npoints = [[1e6, 0.5]]\nflops_range = [1e11, 1e12]\n",
            "expected `flops_points` beside it",
        ),
        (
            "reversed",
            "[hardware.compute.curves.default]\nflops_points = [[5e10, 0.5]]\nflops_range = [1e12, 1e11]\n",
            "0 < low < high",
        ),
    ] {
        let base = std::fs::read_to_string(scenario(
            "validation/prefill/llama31-8b-l40s-vllm-bs1-in8192.toml",
        ))
        .expect("scenario");
        let p = scratch(name).join("s.toml");
        std::fs::write(&p, format!("{base}\n{extra}")).expect("write");
        let o = tpsim(&["run", &p.display().to_string()]);
        assert_eq!(o.code, 2, "{name}: {}", o.stderr);
        assert!(
            o.stderr.contains("hardware.compute.curves.default.flops_range") && o.stderr.contains(want),
            "{name}: {}",
            o.stderr
        );
    }
}

/// A profile's fitted `flops_efficiency` is the FLOP rate at every kernel size, as an inline one: it
/// drops the preset's FLOP curve. prefill.tsv line 22's scenario with a profile setting 0.50 costs
/// the step as the flat 0.50 did before the RTX 4090 had a curve (349.43 ms, `git show` of the
/// baselines before prefillgpus: 349.427 ms; tolerance 0.01 ms), and its prefill is uncalibrated.
#[test]
fn a_profile_flops_efficiency_drops_the_preset_curve() {
    let d = scratch("profile");
    std::fs::write(
        d.join("flat.toml"),
        "[provenance]\ntool = \"test\"\n\n[params.flops_efficiency]\nvalue = 0.5\nunit = \"\"\nsource = \"test: flat\"\n",
    )
    .expect("profile");
    let base = std::fs::read_to_string(scenario(
        "validation/prefill/mistral-7b-rtx4090-vllm-bs8-in256.toml",
    ))
    .expect("scenario");
    let text = base.replace(
        "preset = \"rtx-4090-1x\"",
        "preset = \"rtx-4090-1x\"\nprofile = \"flat.toml\"",
    );
    assert_ne!(text, base);
    let p = d.join("s.toml");
    std::fs::write(&p, text).expect("scenario");
    let j = run_json(&p.display().to_string());
    let ms = f(&j["throughput"]["prefill_time_ms"]);
    assert!((ms - 349.427).abs() < 0.01, "{ms}");
    assert_eq!(j["prefill_calibration"]["status"], "uncalibrated");
}
