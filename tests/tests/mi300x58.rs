//! mi300x58 (issue #18): SGLang's MI300X decode step for DeepSeek-V3-shaped models. SGLang 0.5.7 – 0.5.9
//! run every block-FP8 dense linear on ROCm through AITER's Triton `gemm_a8w8_blockscale`
//! (`layers/quantization/fp8_utils.py`: the CK import is commented out), and DeepSeek-V3's fused q_a /
//! kv_a projection (N 2,112, K 7,168) had no gfx942 tuned config for it until after 0.5.9 (ROCm/aiter
//! pull 1930; sglang pull 18242). `sim::decode::passes::aiter_blockscale` charges what pull 1930 measured
//! on MI300X; these tests hold the arithmetic and its effect on the deploys33 DeepSeek-V3.1 rows
//! (book: validation.md, "MI300X decode step (mi300x58)"). Nothing here is fitted to a throughput row.

use crate::common::{f, run_json, scratch};

/// ROCm/aiter pull 1930 (2026-01-29), "Test Result": SGLang serving DeepSeek-R1 on MI300X, 1k/1k,
/// median TPOT before and after tuning the one shape (N=2112, K=7168), ms, at concurrency 4, 8, 16.
const PULL_1930: [(u32, f64, f64); 3] = [(4, 28.76, 22.05), (8, 37.19, 25.56), (16, 47.17, 30.83)];

/// DeepSeek-V3 / R1's decoder layers (`num_hidden_layers` 61), each with one fused q_a / kv_a GEMM.
const LAYERS: f64 = 61.0;

/// The per-layer charge: (28.76 − 22.05) ms = 6.71 ms a step at c 4; ÷ 61 layers = 0.1100 ms = 110.0 µs.
/// At c 8 and 16 the same difference is (37.19 − 25.56) ÷ 61 = 190.7 µs and (47.17 − 30.83) ÷ 61 =
/// 267.9 µs: larger, not applied (their TPOTs carry more prefill); the c 4 figure is the smallest.
#[test]
fn pull_1930_costs_110_us_a_layer_at_c4() {
    let per_layer: Vec<f64> = PULL_1930
        .iter()
        .map(|(_, before, after)| (before - after) / LAYERS * 1000.0)
        .collect();
    assert!((per_layer[0] - 110.0).abs() < 0.05, "{per_layer:?}");
    assert!((per_layer[1] - 190.66).abs() < 0.05, "{per_layer:?}");
    assert!((per_layer[2] - 267.87).abs() < 0.05, "{per_layer:?}");
    assert!(per_layer.windows(2).all(|w| w[0] < w[1]), "{per_layer:?}");
}

/// DeepSeek-V3 on 8× MI300X under SGLang `version`, TP 8, one request of 1,000 prompt and 65 output
/// tokens: tpsim's median TPOT, ms.
fn deepseek_c1_tpot_ms(version: &str, hw: &str) -> f64 {
    let d = scratch(&format!("ds-{hw}-{version}"));
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"deepseek-v3\"\n[engine]\n\
         name = \"sglang\"\nversion = \"{version}\"\ntp = 8\n[workload]\nconcurrency = 1\n\
         num_requests = 1\nprompt_len = 1000\noutput_len = 65\n"
    );
    let p = d.join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    f(&run_json(&p.display().to_string())["serving"]["tpot_ms"]["p50"])
}

/// One request at a time the decode step under 0.5.9 (untuned) is 61 × 110.0 µs = 6.71 ms longer than
/// under 0.5.10 (taken as tuned), and 61 × 51.36 µs = 3.13 ms more for q_b and o_proj (mi300x63): 9.84 ms, everything else equal between the two releases for this model on
/// MI300X (± 0.02 ms: integer-nanosecond steps, the median over 64 of them). On MI355X (gfx950, its
/// own tuned tables; the rule is gfx942's) the two releases cost the same step (± 0.02 ms).
#[test]
fn the_untuned_release_adds_61_charges_a_step_on_gfx942_only() {
    let gfx942 =
        deepseek_c1_tpot_ms("0.5.9", "mi300x-8x-xgmi") - deepseek_c1_tpot_ms("0.5.10", "mi300x-8x-xgmi");
    assert!((gfx942 - 9.84).abs() < 0.02, "MI300X 0.5.9 − 0.5.10: {gfx942} ms");
    let gfx950 =
        deepseek_c1_tpot_ms("0.5.9", "mi355x-8x-xgmi") - deepseek_c1_tpot_ms("0.5.10", "mi355x-8x-xgmi");
    assert!(gfx950.abs() < 0.02, "MI355X 0.5.9 − 0.5.10: {gfx950} ms");
}

/// The deploys33 1k/1k c 1 row (SGLang cookbook DeepSeek-V3_1.md, 8× MI300X, 0.5.7): tpsim's median
/// TPOT was 10.44 ms; with the charge 10.44 + 6.71 = 17.15 ms, against the page's 23.90: +128.8 % →
/// +39.4 %; mi300x63 charges q_b and o_proj too (61 × 51.36 µs = 3.13 ms): 20.28 ms (± 0.02), 23.90 ÷
/// 20.28 − 1 = +17.9 %, within; what remains, 23.90 − 20.28 = 3.62 ms, is 59.3 µs a layer.
#[test]
fn deepseek_v31_mi300x_c1_row_moves_by_the_charge() {
    let file = crate::common::scenario("validation/deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c1.toml");
    let t = f(&run_json(&file)["serving"]["tpot_ms"]["p50"]);
    assert!((t - 20.28).abs() < 0.02, "{t}");
    let err = 23.90 / t - 1.0;
    assert!((err - 0.179).abs() < 0.002, "{err}");
    let left_us = (23.90 - t) / LAYERS * 1000.0;
    assert!((left_us - 59.3).abs() < 0.5, "{left_us}");
}
