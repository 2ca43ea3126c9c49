//! Issues #17/#18, fourth round (newdeploys4): decode-throughput rows on AMD Instinct MI300X, each
//! written as the source's launch line reads (`scenarios/validation/gpt-oss-120b-mi300x-vllm-0.17-*`),
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
//!   against tpsim's end-to-end output rate.
//!
//! Not taken: PR 1092's "~234 tokens/sec/user (TP=8 conc=4)", a dashboard figure whose run is not
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
];

/// The measured `output_tok_s` of the one row with this source prefix and model whose notes start with
/// `note`.
fn measured(source: usize, note: &str) -> f64 {
    let (src, model) = NEWDEPLOYS4_SOURCES[source];
    measured_throughput(src, model, |n| n.starts_with(note))
}

/// Runs `validation/gpt-oss-120b-mi300x-vllm-0.17-{name}.toml`.
fn run(name: &str) -> serde_json::Value {
    run_json(&scenario(&format!(
        "validation/gpt-oss-120b-mi300x-vllm-0.17-{name}.toml"
    )))
}

#[test]
fn validation_gpt_oss_120b_mi300x_vllm_0_17_tp1() {
    // PR 1061's table: Output TPS 2,008 / 2,561 / 2,990 / 4,271 at 64 / 96 / 128 / 256 in flight.
    for (c, out) in [(64, 2008.0), (96, 2561.0), (128, 2990.0), (256, 4271.0)] {
        let m = measured(0, &format!("TP 1 conc {c}:"));
        assert_eq!(m, out, "c {c}");
        let v = run(&format!("tp1-c{c}"));
        validate(
            &format!("gpt-oss-120b MXFP4, vLLM 0.17.0 (ROCm), 1× MI300X TP 1, c {c}, 1k/1k"),
            (m, m),
            f(&v["throughput"]["e2e_output_tok_s"]),
        );
    }
}

#[test]
fn validation_gpt_oss_120b_mi300x_vllm_0_17_tp8_c1() {
    // PR 1092: Output TPS 247 (Total 493, mean ITL 4.02 ms) at one request at a time.
    let m = measured(1, "TP 8 conc 1:");
    assert_eq!(m, 247.0);
    let v = run("tp8-c1");
    validate(
        "gpt-oss-120b MXFP4, vLLM 0.17.0 (ROCm), 8× MI300X TP 8, c 1, 1k/1k",
        (m, m),
        f(&v["throughput"]["e2e_output_tok_s"]),
    );
}

#[test]
fn every_newdeploys4_row_is_compared() {
    // Four rows of PR 1061, one of PR 1092; the tests above compare each once.
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS4_SOURCES), [4, 1]);
}
