//! Iteration-time ratios of EAGLE-3 (iteration ÷ plain decode step) against the regularities of
//! reference/spec-decode.md "Cost regularities" (SGLang on H200, SpecForge data, topk = 1):
//! Kimi-K2 at batch 8 ≈ 1.52 + 0.155 × steps; dense Llama-3.1-8B at batch 1 ≈ 1.17 + 0.066 × steps.
//! Checked at steps 3, 5 and 7, the chain shapes the SpecBundle data was measured at, within 20 %
//! (issue #6's target). Kimi-K2.5 stands in for Kimi-K2 (same architecture; see the scenario file).
//!
//! CONSISTENCY, not validation: the Hopper presets' `kernel_overhead` (3 µs) was chosen against these
//! two ratios and two throughput figures (the presets' `[fitted.kernel_overhead]`), so passing here is
//! in-sample. The out-of-sample figure is `tpsim-calibrate crossval hopper` (book/src/validation.md).

use crate::common::*;

/// `spec.iteration_ratio` of `file` with `steps` draft steps (chain: num_draft_tokens = steps + 1).
fn ratio(name: &str, file: &str, steps: u32) -> f64 {
    let text = std::fs::read_to_string(scenario(file)).expect("scenario");
    let text = text
        .replacen("num_steps = 3", &format!("num_steps = {steps}"), 1)
        .replacen(
            "num_draft_tokens = 4",
            &format!("num_draft_tokens = {}", steps + 1),
            1,
        );
    let p = scratch(&format!("{name}-{steps}")).join("s.toml");
    // Bundled profiles are found by name; the scenario has no relative paths.
    std::fs::write(&p, text).expect("write");
    let j = run_json(&p.display().to_string());
    f(&j["spec"]["iteration_ratio"])
}

fn check(name: &str, file: &str, intercept: f64, slope: f64) {
    for steps in [3, 5, 7] {
        let want = intercept + slope * f64::from(steps);
        let got = ratio(name, file, steps);
        let err = (got - want) / want;
        assert!(
            err.abs() <= 0.20,
            "{name} steps {steps}: ratio {got:.3} vs {want:.3} ({:+.1} %)",
            err * 100.0
        );
    }
}

#[test]
fn consistency_hopper_kimi_on_8_h200_at_batch_8() {
    // Simulated (this tree): 1.819 / 2.167 / 2.416 against 1.985 / 2.295 / 2.605 (−8 %, −6 %, −7 %);
    // the MoE verify pass (experts touched by 8 × (steps + 1) tokens) dominates.
    check("kimi", "examples/kimi-k2.5-eagle3-h200x8-bs8.toml", 1.52, 0.155);
}

#[test]
fn consistency_hopper_llama_8b_on_one_h200_at_batch_1() {
    // Simulated: 1.221 / 1.317 / 1.413 against 1.368 / 1.500 / 1.632 (−11 %, −12 %, −13 %): a
    // simulated draft step costs 0.048 plain steps against the measured 0.066 (one layer, a 32k-row
    // LM head and per-kernel overheads; small-kernel costs are likely under-counted).
    check("llama", "examples/llama-3.1-8b-eagle3-h200-bs1.toml", 1.17, 0.066);
}
