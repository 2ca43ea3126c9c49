//! Twenty-second round of new deployments (newdeploys22, issues #17/#18): the SGLang cookbook's AMD runs on the
//! harness of newdeploys16-18 (`sglang.bench_serving --backend sglang`, one launch a page, `--max-concurrency`
//! 1, 16 and 100, random 1000/1000), read at github.com/sgl-project/sgl-cookbook commit 7b5bd9c: the first
//! rows of Kimi-Linear (four MI300X, TP 4: the first MI300X rows at TP 4) and of ERNIE 4.5 (one MI300X), and
//! the first SGLang decode rows on ROCm. Each run is written as the page launches it
//! (`scenarios/validation/{kimi-linear-48b-a3b-mi300x4,ernie-4.5-21b-a3b-mi300x1}-sglang-0.5.7-*.toml`,
//! assumptions listed there) and compared with the **default (uncalibrated) profile** against
//! [`TARGET`](crate::throughput_rows::TARGET) and [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The
//! measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Sources (`docs/autoregressive/…`, the section and the commit that added the runs):
//! `Moonshotai/Kimi-Linear.md` (cf33588, 2026-03-10, "Update Kimi-Linear.md for AMD"; section 5.1, "sglang
//! version: 0.5.7", image `lmsysorg/sglang:v0.5.7-rocm700-mi30x`, `SGLANG_ROCM_FUSED_DECODE_MLA=0 python3 -m
//! sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct … --tp 4 --trust-remote-code`,
//! "Hardware: AMD MI300X GPU") and `Ernie/Ernie4.5.md` (d3326e6, 2026-02-03; section 5.1.1 "Standard Scenario
//! Benchmark", "SGLang Version: 0.5.7", `python -m sglang.launch_server --model-path
//! baidu/ERNIE-4.5-21B-A3B-PT --tp 1`, "AMD MI300X GPU (1x)"). The random runs pass no `--random-range-ratio`
//! (lengths uniform in 1..=N). Both checkpoints are the bundled presets' (`kimi-linear-48b-a3b-instruct`,
//! `ernie-4.5-21b-a3b`: bf16); the box is `mi300x-8x-xgmi` (the pages name the GPU only).
//!
//! **What is compared**: the row is 1000 ÷ the page's median TPOT (the per-stream decode step), tpsim's
//! 1000 ÷ its median TPOT.
//!
//! Not taken: the ERNIE page's "Reasoning" (1000/8000) and "Summarization" (8000/1000) runs (slow to simulate
//! in a debug build at c 100, as newdeploys16-18), both pages' accuracy results. Searched this round and not
//! taken: the cookbook's `Qwen/Qwen3-Coder.md` MI300X runs (Qwen3-Coder-480B-A35B-Instruct-FP8 at TP 8 EP 2
//! under `SGLANG_USE_AITER=0`; the bundled preset is the bf16 release), `Mistral/Ministral-3.md` (one MI300X,
//! TP 1, the plain `mistralai/Ministral-3-14B-Instruct-2512` repository whose weights are FP8, newdeploys21;
//! the bundled Ministral 3 presets are the BF16 releases), `MiniMax/MiniMax-M2.7.md` (2× GB300: no preset);
//! vllm-project/vllm pull request 27323 (GLM-4.6 on 8× MI300X, vLLM 0.11.0: its "Before" column is the
//! untuned default MoE config, and the issues corpus's excerpts stop at the 1024/128 run's TTFT, no TPOT), sglang pull request 30812 (GLM-5.1-FP8 on 8×
//! MI300X, SGLang 0.5.13.post1: open, and no preset of GLM-5.1), ROCm/aiter pull request 3422 (GLM-5.1-FP8,
//! vLLM release not named), vllm issue 3297 (8× L40, vLLM 0.3.3, "llama7b": no L40 preset, no model
//! named), evokernel's "Qwen2.5-Coder 32B on 4× L40S" case ("synthesized from public L40S benchmarks", not
//! a run).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_newdeploys22_row_is_compared`] fails if a row of these sources
//! is added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS22_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/Moonshotai/Kimi-Linear.md",
        "Kimi-Linear-48B-A3B-Instruct",
    ),
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/Ernie/Ernie4.5.md",
        "ERNIE-4.5-21B-A3B-PT",
    ),
];

/// The rows: (index into [`NEWDEPLOYS22_SOURCES`], notes prefix, the page's median TPOT in ms, scenario
/// file, label).
const ROWS: &[(usize, &str, f64, &str, &str)] = &[
    (
        0,
        "4x MI300X TP 4 random 1000/1000 c 1:",
        5.33,
        "kimi-linear-48b-a3b-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml",
        "Kimi-Linear-48B-A3B-Instruct bf16, SGLang 0.5.7, 4× MI300X TP 4, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        0,
        "4x MI300X TP 4 random 1000/1000 c 16:",
        10.87,
        "kimi-linear-48b-a3b-mi300x4-sglang-0.5.7-tp4-1k1k-c16.toml",
        "Kimi-Linear-48B-A3B-Instruct bf16, SGLang 0.5.7, 4× MI300X TP 4, random 1k/1k c 16 (per-stream TPOT)",
    ),
    (
        0,
        "4x MI300X TP 4 random 1000/1000 c 100:",
        31.28,
        "kimi-linear-48b-a3b-mi300x4-sglang-0.5.7-tp4-1k1k-c100.toml",
        "Kimi-Linear-48B-A3B-Instruct bf16, SGLang 0.5.7, 4× MI300X TP 4, random 1k/1k c 100 (per-stream TPOT)",
    ),
    (
        1,
        "1x MI300X TP 1 random 1000/1000 c 1:",
        4.09,
        "ernie-4.5-21b-a3b-mi300x1-sglang-0.5.7-tp1-1k1k-c1.toml",
        "ERNIE-4.5-21B-A3B-PT bf16, SGLang 0.5.7, 1× MI300X TP 1, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        1,
        "1x MI300X TP 1 random 1000/1000 c 16:",
        12.16,
        "ernie-4.5-21b-a3b-mi300x1-sglang-0.5.7-tp1-1k1k-c16.toml",
        "ERNIE-4.5-21B-A3B-PT bf16, SGLang 0.5.7, 1× MI300X TP 1, random 1k/1k c 16 (per-stream TPOT)",
    ),
    (
        1,
        "1x MI300X TP 1 random 1000/1000 c 100:",
        24.62,
        "ernie-4.5-21b-a3b-mi300x1-sglang-0.5.7-tp1-1k1k-c100.toml",
        "ERNIE-4.5-21B-A3B-PT bf16, SGLang 0.5.7, 1× MI300X TP 1, random 1k/1k c 100 (per-stream TPOT)",
    ),
];

/// Compares row `i` of [`ROWS`]: the measured value (checked against 1000 ÷ the page's median TPOT,
/// rounded to 0.01 tok/s) and 1000 ÷ tpsim's median TPOT.
fn compare(i: usize) {
    let (s, note, tpot_ms, file, label) = ROWS[i];
    let (src, model) = NEWDEPLOYS22_SOURCES[s];
    compare_tpot_row((src, model, note), tpot_ms, file, label);
}

#[test]
pub(crate) fn validation_kimi_linear_sglang_mi300x4_tp4_c1() {
    // "Median TPOT (ms): 5.33" at 1 in flight: 1000 ÷ 5.33 = 187.62 tok/s.
    compare(0);
}

#[test]
pub(crate) fn validation_kimi_linear_sglang_mi300x4_tp4_c16() {
    // "Median TPOT (ms): 10.87" at 16 in flight: 1000 ÷ 10.87 = 92.00 tok/s.
    compare(1);
}

#[test]
pub(crate) fn validation_kimi_linear_sglang_mi300x4_tp4_c100() {
    // "Median TPOT (ms): 31.28" at 100 in flight: 1000 ÷ 31.28 = 31.97 tok/s.
    compare(2);
}

#[test]
pub(crate) fn validation_ernie_4_5_sglang_mi300x1_tp1_c1() {
    // "Median TPOT (ms): 4.09" at 1 in flight: 1000 ÷ 4.09 = 244.50 tok/s.
    compare(3);
}

#[test]
pub(crate) fn validation_ernie_4_5_sglang_mi300x1_tp1_c16() {
    // "Median TPOT (ms): 12.16" at 16 in flight: 1000 ÷ 12.16 = 82.24 tok/s.
    compare(4);
}

#[test]
pub(crate) fn validation_ernie_4_5_sglang_mi300x1_tp1_c100() {
    // "Median TPOT (ms): 24.62" at 100 in flight: 1000 ÷ 24.62 = 40.62 tok/s.
    compare(5);
}

#[test]
fn scenarios_are_the_pages_runs() {
    // Each scenario is its run: the MI300X preset (the pages name the GPU only), the model preset of the
    // page's checkpoint, SGLang 0.5.7 (both pages' stated release), tp from the row (the launch's --tp), no
    // ep_size and no attention backend (neither launch names one), num_requests and concurrency from the
    // notes' --num-prompts and --max-concurrency, and the N of each random length from the note's "random
    // 1000/1000" (range ratio 0.0, SGLang's default).
    for (s, note, _, file, _) in ROWS {
        let (src, model) = NEWDEPLOYS22_SOURCES[*s];
        let row = throughput_row(src, model, note);
        let notes = row.notes.as_str();
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert!(text.contains("\npreset = \"mi300x-8x-xgmi\"\n"), "{file}");
        let preset = ["kimi-linear-48b-a3b-instruct", "ernie-4.5-21b-a3b"][*s];
        assert!(text.contains(&format!("\npreset = \"{preset}\"\n")), "{file}");
        assert!(
            text.contains("\nname = \"sglang\"\nversion = \"0.5.7\"\n"),
            "{file}"
        );
        assert!(notes.contains("SGLang 0.5.7"), "{file}");
        assert!(!text.contains("ep_size"), "{file}");
        assert!(!text.contains("attention_backend"), "{file}");
        assert_bench_serving_random_run(&text, notes, note, row.tp, row.concurrency, file);
    }
}

#[test]
fn every_newdeploys22_row_is_compared() {
    // Kimi-Linear (4× MI300X) and ERNIE 4.5 (1× MI300X) at c 1, 16 and 100. The tests above compare each
    // once.
    assert_eq!(ROWS.len(), 6);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS22_SOURCES), [3, 3]);
}
