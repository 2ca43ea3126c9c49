//! Issues #17/#18, fourth round (newdeploys4): decode-throughput rows of InferenceX (AMD Instinct MI300X;
//! one H100 row), each written as the source's launch line reads (`scenarios/validation/`),
//! compared with the **default (uncalibrated) profile** against the same target and known-miss list as
//! `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: SemiAnalysisAI/InferenceX, two pull requests on its `gptoss-fp4-mi300x-vllm` configuration
//! (gpt-oss-120b MXFP4, image `vllm/vllm-openai-rocm:v0.17.0`), whose launch and benchmark commands are
//! the repository's `benchmarks/single_node/gptoss_fp4_mi300x.sh` and `benchmarks/benchmark_lib.sh` at
//! the merge commits (1k/1k random, range ratio 0.8, `--ignore-eos`, CONC × 10 prompts):
//! - PR 1061 (commit 509c9b6bc; same table in PR 1053): one MI300X, TP 1, at 64, 96, 128 and 256 in
//!   flight — "Output TPS" against tpsim's end-to-end output rate, and the median TPOT beside it;
//! - PR 1092 (commit 5261b0a2d): one 8× MI300X node, TP 8, one request at a time — "Output TPS" 247
//!   against tpsim's end-to-end output rate;
//! - PR 832 (a comment's results, workflow run 22556328494 on the PR's commit 0240833): MiniMax-M2.5 FP8,
//!   vLLM 0.16.0, TP 4 with expert parallelism on 4 H100 at 4 in flight
//!   (`benchmarks/single_node/minimaxm2.5_fp8_h100.sh`, `cudagraph_mode` PIECEWISE) — output throughput
//!   per GPU × 4 against tpsim's end-to-end output rate.
//!
//! Not taken: the same comment's TP 8 / EP 8 figure (measured before the PR's script and config settled:
//! which launch line ran it is not certain); PR 1092's "~234 tokens/sec/user (TP=8 conc=4)", a dashboard figure whose run is not
//! linked and which is per stream, not the output rate `throughput.tsv` holds; SGLang's MI300X tables
//! of MiniMax-M2.7 (sgl-project/sglang PR 31044) and Gemma 4 31B (PR 31216), models without a preset.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows.
//! [`every_newdeploys4_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS4_SOURCES: &[(&str, &str)] = &[
    (
        "https://github.com/SemiAnalysisAI/InferenceX/pull/1061",
        "gpt-oss-120b",
    ),
    (
        "https://github.com/SemiAnalysisAI/InferenceX/pull/1092",
        "gpt-oss-120b",
    ),
    (
        "https://github.com/SemiAnalysisAI/InferenceX/pull/832",
        "MiniMax-M2.5",
    ),
];

/// Runs `validation/gpt-oss-120b-mi300x-vllm-0.17-{name}.toml`.
fn run(name: &str) -> serde_json::Value {
    run_json(&scenario(&format!(
        "validation/gpt-oss-120b-mi300x-vllm-0.17-{name}.toml"
    )))
}

/// The measured `output_tok_s` of the one row of source `source` and its model whose notes start with
/// `note`.
fn measured_of(source: usize, note: &str) -> f64 {
    let (src, model) = NEWDEPLOYS4_SOURCES[source];
    measured_throughput(src, model, |n| n.starts_with(note))
}

#[test]
pub(crate) fn validation_gpt_oss_120b_mi300x_vllm_0_17_tp1() {
    // PR 1061's table: Output TPS 2,008 / 2,561 / 2,990 / 4,271 at 64 / 96 / 128 / 256 in flight.
    for (c, out) in [(64, 2008.0), (96, 2561.0), (128, 2990.0), (256, 4271.0)] {
        let m = measured_of(0, &format!("TP 1 conc {c}:"));
        assert!((m - out).abs() < 1e-9, "c {c}: {m}");
        let v = run(&format!("tp1-c{c}"));
        validate(
            &format!("gpt-oss-120b MXFP4, vLLM 0.17.0 (ROCm), 1× MI300X TP 1, c {c}, 1k/1k"),
            (m, m),
            f(&v["throughput"]["e2e_output_tok_s"]),
        );
    }
}

#[test]
pub(crate) fn validation_gpt_oss_120b_mi300x_vllm_0_17_tp8_c1() {
    // PR 1092: Output TPS 247 (Total 493, mean ITL 4.02 ms) at one request at a time.
    let m = measured_of(1, "TP 8 conc 1:");
    assert!((m - 247.0).abs() < 1e-9, "{m}");
    let v = run("tp8-c1");
    validate(
        "gpt-oss-120b MXFP4, vLLM 0.17.0 (ROCm), 8× MI300X TP 8, c 1, 1k/1k",
        (m, m),
        f(&v["throughput"]["e2e_output_tok_s"]),
    );
}

#[test]
pub(crate) fn validation_minimax_m25_fp8_h100_vllm_0_16_tp4_ep4_c4() {
    // PR 832: output throughput 72.2 tok/s per GPU × 4 GPUs = 288.8 tok/s (mean TPOT 13.34 ms).
    let m = measured_of(2, "TP 4 EP 4 conc 4:");
    assert!((m - 72.2 * 4.0).abs() < 1e-9, "{m}");
    let v = run_json(&scenario(
        "validation/minimax-m2.5-fp8-h100-vllm-0.16-tp4-ep4-c4.toml",
    ));
    validate(
        "MiniMax-M2.5 FP8, vLLM 0.16.0, 4× H100 TP 4 EP 4, c 4, 1k/1k",
        (m, m),
        f(&v["throughput"]["e2e_output_tok_s"]),
    );
}

#[test]
fn every_newdeploys4_row_is_compared() {
    // Four rows of PR 1061, one of PR 1092, one of PR 832; the tests above compare each once.
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS4_SOURCES), [4, 1, 1]);
}
