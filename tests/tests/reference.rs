//! Issue #4's reference scenarios against public measurements, with the default (uncalibrated)
//! hardware presets.

mod common;
use common::*;

#[test]
fn llama_3_1_8b_on_one_h100_within_15_percent() {
    // data/spec-decode.tsv, first row (SGLang docs, Llama-3.1-8B-Instruct, 1× H100, batch 1):
    // tok_s_base 158.34 tok/s. Tolerance 15 % (issue #4).
    let j = run_json(&scenario("examples/llama-3.1-8b-h100.toml"));
    let tok_s = f(&j["throughput"]["output_tok_s"]);
    assert!((tok_s - 158.34).abs() <= 0.15 * 158.34, "{tok_s} tok/s");
    assert_eq!(j["memory"]["verdict"], "ok");
    // Memory-bound: the 16 GB of bf16 weights at 3.35 TB/s (4.5 ms) is most of the 6.3 ms.
    assert!(f(&j["floor"]["gap"]) < 1.6, "{}", j["floor"]);
}

/// Known gap: the first-cut kernel model (2 µs per kernel, one memory efficiency) predicts a TPOT of
/// ≈ 6.3 ms against the measured 9.22 ms (−32 %); small-kernel latency and INT4 MoE efficiency on
/// Hopper are not modelled yet. Run with `-- --ignored`.
#[test]
#[ignore = "known gap: Kimi-K2.5 on 8x H200 predicted 32 % fast"]
fn kimi_k2_5_on_8_h200_within_20_percent() {
    // reference/spec-decode.md: Kimi-K2.5 INT4 on 8× H200 TP8, SGLang, batch 1, 1k/1k: TPOT 9.22 ms.
    let j = run_json(&scenario("examples/kimi-k2.5-h200x8.toml"));
    let tpot = f(&j["throughput"]["tpot_ms"]);
    assert!((tpot - 9.22).abs() <= 0.20 * 9.22, "{tpot} ms");
}
