//! Issues #17/#18 (newdeploys): decode-throughput rows of deployments a new user brings, each written as
//! the user's launch line reads (`scenarios/validation/`), compared with the **default (uncalibrated)
//! profile** against the same target and known-miss list as `tests/tests/throughput_rows.rs`
//! ([`TARGET`](crate::throughput_rows::TARGET), [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)).
//! The measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Rows (source, engine, model, GPUs, concurrency → what is compared):
//! - tenstorrent/tt-inference-server issue 143 (comment 2025-04-01): the GPU reference Tenstorrent
//!   measured before porting Qwen2.5-72B-Instruct — vLLM, bf16, TP 2 on two H100 80GB, ISL 128 / OSL 128
//!   at concurrency 1: "Tput User" 32.37 tok/s = 1000 ÷ TPOT 30.9 ms → 1000 ÷ tpsim's median TPOT.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. The prediction uses constants fitted
//! to other data (the Hopper `kernel_overhead`, the collective constants of tests/data/allreduce.tsv),
//! which `tpsim run` lists under "Fitted constants used".
//! [`every_newdeploys_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS_SOURCES: &[(&str, &str)] = &[(
    "https://github.com/tenstorrent/tt-inference-server/issues/143",
    "Qwen2.5-72B-Instruct",
)];

/// The measured `output_tok_s` of the one row with this source prefix and model.
fn measured(source: &str, model: &str) -> f64 {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, o) = (t.col("source"), t.col("model"), t.col("output_tok_s"));
    let found: Vec<f64> = t
        .rows
        .iter()
        .filter(|r| r.get(s).starts_with(source) && r.get(m) == model)
        .map(|r| {
            r.get(o)
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("line {}: not a tok/s value: {}", r.line, r.get(o)))
        })
        .collect();
    assert_eq!(found.len(), 1, "expected one row {source} | {model}: {found:?}");
    found[0]
}

#[test]
fn validation_qwen25_72b_h100_vllm_tp2_c1() {
    // The comment's "Tput User" is 1000 / TPOT: 1000 / 30.9 ms = 32.36 tok/s, stored as printed (32.37,
    // from the unrounded TPOT); to 0.05 tok/s.
    let m = measured(NEWDEPLOYS_SOURCES[0].0, NEWDEPLOYS_SOURCES[0].1);
    assert!((m - 1000.0 / 30.9).abs() < 0.05, "{m}");
    let v = run_json(&scenario("validation/qwen2.5-72b-h100-vllm-tp2-c1.toml"));
    let p = 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]);
    validate(
        "Qwen2.5-72B bf16, vLLM, 2× H100 TP 2, c 1 (128/128)",
        (m, m),
        p,
    );
}

#[test]
fn every_newdeploys_row_is_compared() {
    // One row of these sources; the test above compares it.
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m) = (t.col("source"), t.col("model"));
    let counts: Vec<usize> = NEWDEPLOYS_SOURCES
        .iter()
        .map(|(src, model)| {
            t.rows
                .iter()
                .filter(|r| r.get(s).starts_with(src) && r.get(m) == *model)
                .count()
        })
        .collect();
    assert_eq!(counts, [1]);
}
