//! Twenty-first round of new deployments (newdeploys21, issues #17/#18): the same site as newdeploys20, another
//! model and box, out of sample. Millstone AI's benchmark report "Qwen3-Coder-Next on 1x H200 SXM"
//! (www.millstoneai.com/inference-benchmark/qwen3-coder-next-fp8-1x-h200-sxm, dated 2026-02-09; the pages corpus
//! holds its opening and its "Executive Summary" table) runs Qwen3-Coder-Next (80B MoE, 512 experts, hybrid
//! Gated DeltaNet + gated attention) in FP8 on one H200 SXM (141 GB) from the site's own streaming client:
//! "Context lengths from 1K - 256K tokens. Concurrency from 1 - 10 requests. 1024 output tokens per request. No
//! prompt caching. No speculative decoding. Full-precision KV cache." Three figures of that table are taken:
//!
//! - "Generation Speed Single Request: 210.8 tok/s (1K context) → 152.8 tok/s (256K context)": the per-user
//!   generation speed of one request at a time, compared with 1000 ÷ tpsim's median TPOT (at 1K context the
//!   379 ms TTFT is 7.8 % of the 4.86 s that 1024 tokens take at 210.8 tok/s: had the report counted it, the
//!   decode step alone would run at 1023 ÷ (4.858 − 0.379 s) = 228.4 tok/s, and tpsim's 186.1 would be
//!   −18.5 % instead of −11.7 %, within either way; at 256K the 20.4 s TTFT is left out by any per-user
//!   generation speed that reaches 152.8: 1024 tokens at 152.8 tok/s take 6.7 s);
//! - "Peak System Throughput: 852.6 tok/s @ 10 concurrent requests, 1K context": all users' output together,
//!   compared with tpsim's end-to-end output rate (every output token over the run).
//!
//! Each run is written as a scenario (`scenarios/validation/qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-*.toml`,
//! assumptions listed there: the stored text names no engine — vLLM, as the same site's gpt-oss-20b report
//! (newdeploys20), is assumed, at 0.15.1, the latest release on 2026-02-09 (PyPI upload 2026-02-05; 0.16.0
//! followed on 2026-02-26); "FP8 precision" is read as Qwen/Qwen3-Coder-Next-FP8 on the
//! `qwen3-next-80b-a3b-fp8` preset, as newdeploys19's Qwen3-Coder-Next rows; "NK context" as an N,000-token
//! prompt; GPU 0 of `h200-8x-nvlink`) and compared with the **default (uncalibrated) profile** against
//! [`TARGET`](crate::throughput_rows::TARGET) and [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The
//! measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Not taken this round (searched: issues, pages and code corpora):
//! - the same site's other reports: only the gpt-oss-20b (newdeploys20) and this one hold their summary
//!   table in the stored text (the gpt-oss-120b reports stop before it, newdeploys20);
//! - vllm-project/recipes pull requests 476 (2026-05-19: Ministral-3 3B / 8B / 14B Instruct 2512 on one
//!   MI300X, `vllm/vllm-openai-rocm:latest`, 1024/1024 at 32 in flight) and 443 (2026-05-06:
//!   Ministral-3-8B-Reasoning-2512): the stored description of 476 stops inside the 3B result (duration
//!   26.65 s, no TPOT) and the 8B / 14B blocks are not held; 476 serves the plain repositories, whose weights
//!   are FP8 (the bundled Ministral 3 presets are the BF16 releases); 443's launch command is not in the
//!   stored text;
//! - lambda.ai's Qwen3-Coder-Next page (2× B200, 4× H100, 4× A100, `vllm bench serve` 8192/1024 at 32 in
//!   flight): no release and no H100 form factor named, and the per-box figures are one throughput each;
//! - devforth.io's gpt-oss-20b pages on L4 / L40S / H100 (2026-02-20) and luminal.com's reports: the stored
//!   text stops before the figures or names no engine; databasemart's RTX PRO 5000 page: the stored table
//!   stops after the input-token row (as newdeploys11 found);
//! - cloudrift's deplodock `optimal_mcr_pro6000` SGLang sweeps of Qwen3-Coder-Next FP8: a
//!   `lmsysorg/sglang:dev-cu13` build, no release (as newdeploys19); vllm-project/vllm pull request 15322
//!   (DeepSeek-R1 on L20 at PP 3 × TP 8 over three nodes: no such preset).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_newdeploys21_row_is_compared`] fails if a row of this source is
//! added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS21_SOURCES: &[(&str, &str)] = &[(
    "https://www.millstoneai.com/inference-benchmark/qwen3-coder-next-fp8-1x-h200-sxm (Millstone AI report dated 2026-02-09",
    "Qwen3-Coder-Next",
)];

/// The rows ([`MillstoneRow`]: notes prefix, the report's figure in tok/s, scenario file, label,
/// concurrency, prompt tokens, whether the figure is the system throughput).
const ROWS: &[MillstoneRow] = &[
    (
        "1x H200 SXM c 1, 1K context:",
        210.8,
        "qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-c1.toml",
        "Qwen3-Coder-Next FP8, vLLM 0.15.1 (assumed), 1× H200 TP 1, 1K context c 1 (per-user generation speed)",
        1,
        1000,
        false,
    ),
    (
        "1x H200 SXM c 10, 1K context:",
        852.6,
        "qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-c10.toml",
        "Qwen3-Coder-Next FP8, vLLM 0.15.1 (assumed), 1× H200 TP 1, 1K context c 10 (system output throughput)",
        10,
        1000,
        true,
    ),
    (
        "1x H200 SXM c 1, 256K context:",
        152.8,
        "qwen3-coder-next-fp8-h200x1-vllm-0.15-tp1-c1-ctx256k.toml",
        "Qwen3-Coder-Next FP8, vLLM 0.15.1 (assumed), 1× H200 TP 1, 256K context c 1 (per-user generation speed)",
        1,
        256_000,
        false,
    ),
];

/// What every scenario of the report states ([`check_millstone_scenarios`]).
const REPORT: MillstoneReport = MillstoneReport {
    row: NEWDEPLOYS21_SOURCES[0],
    hardware: "h200-8x-nvlink",
    model: "qwen3-next-80b-a3b-fp8",
    version: "0.15.1",
    max_model_len: 262_144,
};

/// Compares row `i` of [`ROWS`] ([`compare_millstone_row`]).
fn compare(i: usize) {
    compare_millstone_row(&REPORT, &ROWS[i]);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_h200x1_1k_c1() {
    // "Generation Speed Single Request: 210.8 tok/s (1K context)": a 4.74 ms step (1000 ÷ 210.8).
    compare(0);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_h200x1_1k_c10() {
    // "Peak System Throughput: 852.6 tok/s @ 10 concurrent requests, 1K context": 85.26 tok/s a user, an
    // 11.73 ms step if every token of ten lock-step requests were decode (10 × 1000 ÷ 852.6).
    compare(1);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_h200x1_256k_c1() {
    // "Generation Speed Single Request: … 152.8 tok/s (256K context)": a 6.54 ms step (1000 ÷ 152.8).
    compare(2);
}

#[test]
fn scenarios_are_the_reports_runs() {
    // Each scenario is its run: GPU 0 of the 8× H200 preset, TP 1, the row's concurrency, an N,000-token
    // prompt for "NK context", 1024 output tokens ("1024 output tokens per request"), prefix caching off
    // ("No prompt caching"), vLLM's default memory fraction and the model's 262,144-token context (the 256K
    // run needs it), the FP8 Qwen3-Next preset, vLLM 0.15.1 [assumed].
    check_millstone_scenarios(&REPORT, ROWS);
}

#[test]
fn every_newdeploys21_row_is_compared() {
    // Qwen3-Coder-Next FP8 on one H200: c 1 at 1K and 256K context, c 10 at 1K. The tests above compare
    // each once.
    assert_eq!(ROWS.len(), 3);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS21_SOURCES), [3]);
}
