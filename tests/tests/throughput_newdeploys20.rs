//! Twentieth round of new deployments (newdeploys20, issues #17/#18): light-load MoE on one PCIe RTX PRO 6000,
//! out of sample. Millstone AI's benchmark report "gpt-oss-20b on 1x RTX Pro 6000 Blackwell"
//! (www.millstoneai.com/inference-benchmark/gpt-oss-20b-mxfp4-1x-rtx-pro-6000-blackwell, dated 2026-01-28; the
//! pages corpus holds its opening and its "Executive Summary" table) runs openai/gpt-oss-20b (MXFP4 experts)
//! under vLLM on one RTX Pro 6000 Blackwell (96 GB) from its own streaming client: "Context lengths from 1K -
//! 128K tokens. Concurrency from 1 - 5 requests. 1024 output tokens per request. No prompt caching. No
//! speculative decoding. Full-precision KV cache." Three figures of that table are taken:
//!
//! - "Generation Speed Single Request: 250.0 tok/s (1K context) → 105.5 tok/s (128K context)": the per-user
//!   generation speed of one request at a time, compared with 1000 ÷ tpsim's median TPOT (at 1K context the
//!   35 ms TTFT is under 1 % of a 1024-token request, so the speed is the decode step whether or not the
//!   report counts the first token; at 128K the 21.4 s TTFT is left out by any per-user generation speed
//!   that reaches 105.5: 1024 tokens at 105.5 tok/s take 9.7 s);
//! - "Peak System Throughput: 642.5 tok/s @ 5 concurrent requests, 1K context": all users' output together,
//!   compared with tpsim's end-to-end output rate (every output token over the run).
//!
//! Each run is written as a scenario (`scenarios/validation/gpt-oss-20b-pro6000x1-vllm-0.14-tp1-*.toml`,
//! assumptions listed there: the release is not named, vLLM 0.14.1 — the latest on 2026-01-28, PyPI upload
//! 2026-01-24; 0.15.0 followed on 2026-01-29 — is assumed; "NK context" is read as an N,000-token prompt; the
//! GPU edition is not named, GPU 0 of `rtx-pro-6000-2x-turin-same-numa` is taken) and compared with the
//! **default (uncalibrated) profile** against [`TARGET`](crate::throughput_rows::TARGET) and
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Not taken this round (searched: issues, pages and code corpora):
//! - the same site's gpt-oss-120b reports (1× and 2× RTX Pro 6000, 1× H100 SXM, 1× H200 SXM, dated
//!   2026-01-30): the stored text stops before each report's summary table; the model page's comparison
//!   table gives only a peak throughput per box (361, 664, 511, 849 tok/s) without the concurrency and
//!   context it was reached at, and the 2× box's parallelism is not stated;
//! - tenstorrent/tt-inference-server issue 340 (Qwen3-30B-A3B on "A100", c 1 sweeps): variant, engine
//!   release and TP not given (already refused by the breadth rows); issue 394 (Qwen3-4B on an RTX 4090):
//!   no preset of Qwen3-4B;
//! - pavlokhmel.com's TP-vs-DP page and databasemart's RTX 4090 / Pro 5000 pages: refused before
//!   (newdeploys10 / newdeploys18: the stored text stops before the figures or names no release);
//! - the r/LocalLLaMA "Qwen3.5-122B at 198 tok/s on 2x RTX PRO 6000" post: no preset of Qwen3.5-122B, and
//!   its headline runs use speculative decoding; vllm issue 16515 / 16901 (2× / 1× RTX 5090, Llama-3.1-8B):
//!   the raw data is an attachment the corpus does not hold, or a rate sweep of inference-benchmarker.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_newdeploys20_row_is_compared`] fails if a row of this source is
//! added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS20_SOURCES: &[(&str, &str)] = &[(
    "https://www.millstoneai.com/inference-benchmark/gpt-oss-20b-mxfp4-1x-rtx-pro-6000-blackwell (Millstone AI report dated 2026-01-28",
    "gpt-oss-20b",
)];

/// The rows ([`MillstoneRow`]: notes prefix, the report's figure in tok/s, scenario file, label,
/// concurrency, prompt tokens, whether the figure is the system throughput).
const ROWS: &[MillstoneRow] = &[
    (
        "1x RTX Pro 6000 c 1, 1K context:",
        250.0,
        "gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c1.toml",
        "gpt-oss-20b MXFP4, vLLM 0.14.1 (assumed), 1× RTX PRO 6000 TP 1, 1K context c 1 (per-user generation speed)",
        1,
        1000,
        false,
    ),
    (
        "1x RTX Pro 6000 c 5, 1K context:",
        642.5,
        "gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c5.toml",
        "gpt-oss-20b MXFP4, vLLM 0.14.1 (assumed), 1× RTX PRO 6000 TP 1, 1K context c 5 (system output throughput)",
        5,
        1000,
        true,
    ),
    (
        "1x RTX Pro 6000 c 1, 128K context:",
        105.5,
        "gpt-oss-20b-pro6000x1-vllm-0.14-tp1-c1-ctx128k.toml",
        "gpt-oss-20b MXFP4, vLLM 0.14.1 (assumed), 1× RTX PRO 6000 TP 1, 128K context c 1 (per-user generation speed)",
        1,
        128_000,
        false,
    ),
];

/// What every scenario of the report states ([`check_millstone_scenarios`]).
const REPORT: MillstoneReport = MillstoneReport {
    row: NEWDEPLOYS20_SOURCES[0],
    hardware: "rtx-pro-6000-2x-turin-same-numa",
    model: "gpt-oss-20b",
    version: "0.14.1",
    max_model_len: 131_072,
};

/// Compares row `i` of [`ROWS`] ([`compare_millstone_row`]).
fn compare(i: usize) {
    compare_millstone_row(&REPORT, &ROWS[i]);
}

#[test]
pub(crate) fn validation_gpt_oss_20b_vllm_pro6000x1_1k_c1() {
    // "Generation Speed Single Request: 250.0 tok/s (1K context)": a 4.0 ms step.
    compare(0);
}

#[test]
pub(crate) fn validation_gpt_oss_20b_vllm_pro6000x1_1k_c5() {
    // "Peak System Throughput: 642.5 tok/s @ 5 concurrent requests, 1K context": 128.5 tok/s a user, a
    // 7.78 ms step if every token of five lock-step requests were decode (5 × 1000 ÷ 642.5).
    compare(1);
}

#[test]
pub(crate) fn validation_gpt_oss_20b_vllm_pro6000x1_128k_c1() {
    // "Generation Speed Single Request: … 105.5 tok/s (128K context)": a 9.48 ms step.
    compare(2);
}

#[test]
fn scenarios_are_the_reports_runs() {
    // Each scenario is its run: GPU 0 of the 2-GPU RTX PRO 6000 preset, TP 1, the row's concurrency, an
    // N,000-token prompt for "NK context", 1024 output tokens ("1024 output tokens per request"), prefix
    // caching off ("No prompt caching"), vLLM's default memory fraction and the model's 131,072-token
    // context (the 128K runs need it), vLLM 0.14.1 [assumed].
    check_millstone_scenarios(&REPORT, ROWS);
}

#[test]
fn every_newdeploys20_row_is_compared() {
    // gpt-oss-20b on one RTX PRO 6000: c 1 at 1K and 128K context, c 5 at 1K. The tests above compare each
    // once.
    assert_eq!(ROWS.len(), 3);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS20_SOURCES), [3]);
}
