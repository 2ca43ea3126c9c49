//! Seventeenth round of new deployments (newdeploys17, issues #17/#18): the SGLang cookbook's other B200
//! speed benchmarks, on the harness of its MiniMax-M2.5 page (newdeploys16): `sglang.bench_serving
//! --backend sglang` against one launch per page, read at github.com/sgl-project/sgl-cookbook commit 7b5bd9c.
//! Each run is written as the page launches it (`scenarios/validation/{glm-4.6,qwen3-235b-a22b,
//! qwen3-next-80b-a3b,qwen3-coder-next,gpt-oss-120b}-b200x*-sglang-*.toml`, assumptions listed there) and
//! compared with the **default (uncalibrated) profile** against the same target and known-miss list as
//! `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Sources (`docs/autoregressive/…`, section 5.1 "Speed Benchmark" of each; the commit that added the runs):
//! `GLM/GLM-4.6.md` (ec650cf, 2026-01-05; SGLang 0.5.6.post1, `--tp 8`), `Qwen/Qwen3.md` (ec650cf;
//! Qwen3-235B-A22B-Instruct-2507, 0.5.6, `--tp 8`), `Qwen/Qwen3-Next.md` (ec650cf; Qwen3-Next-80B-A3B-Instruct,
//! 0.5.6, `--tp 8`), `Qwen/Qwen3-Coder-Next.md` (32b6cb5, 2026-02-11; 0.5.8+, `--tp 2` on 2× B200) and
//! `OpenAI/GPT-OSS.md` (ec650cf; gpt-oss-120b, 0.5.6, `--tp 8`). The random runs pass no
//! `--random-range-ratio` (lengths uniform in 1..=N); the Qwen3-Next and GPT-OSS runs pass no
//! `--dataset-name` (bench_serving's ShareGPT default), written as every request at the page's mean lengths.
//!
//! **What is compared**: the row is 1000 ÷ the page's median TPOT (the per-stream decode step), tpsim's
//! 1000 ÷ its median TPOT.
//!
//! Taken: the c 1, 16 and 100 runs of the random 1000/1000 ("Chat" / "Standard") scenario of GLM-4.6,
//! Qwen3-235B and Qwen3-Coder-Next (as newdeploys16 took MiniMax-M2.5's; the c 100 runs take about a second
//! each in a release build), and the c 1 ShareGPT runs of Qwen3-Next and gpt-oss-120b. Not taken: their
//! ShareGPT c 100 runs (1,000 prompts of unknown lengths), the
//! 1000/8000 and 8000/1000 runs (as slow), the pages' AMD rows and accuracy results, and the StepFun
//! `Step3-VL-10B.md` run (no bundled preset describes Step3-VL's config; b200 compared it as `qwen3-8b`'s
//! text tower by a third-party table, not a row). The pages name no H100 or H200 run.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows; the MoE models on B200 were known to be
//! 1.6-1.95× optimistic in tpsim before they were added (book/src/validation.md, "The B200 step under SGLang
//! (b200)"). Each miss's reason (KNOWN_MISSES) gives the measured and predicted step.
//! [`every_newdeploys17_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS17_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/GLM/GLM-4.6.md",
        "GLM-4.6",
    ),
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/Qwen/Qwen3.md",
        "Qwen3-235B-A22B-Instruct-2507",
    ),
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/Qwen/Qwen3-Next.md",
        "Qwen3-Next-80B-A3B-Instruct",
    ),
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/Qwen/Qwen3-Coder-Next.md",
        "Qwen3-Coder-Next",
    ),
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/OpenAI/GPT-OSS.md",
        "gpt-oss-120b",
    ),
];

/// The rows: (index into [`NEWDEPLOYS17_SOURCES`], notes prefix, the page's median TPOT in ms, scenario
/// file, label).
const ROWS: &[(usize, &str, f64, &str, &str)] = &[
    (
        0,
        "8x B200 TP 8 random 1000/1000 c 1:",
        14.80,
        "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
        "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        0,
        "8x B200 TP 8 random 1000/1000 c 16:",
        24.55,
        "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c16.toml",
        "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 1k/1k c 16 (per-stream TPOT)",
    ),
    (
        0,
        "8x B200 TP 8 random 1000/1000 c 100:",
        52.20,
        "glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c100.toml",
        "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 1k/1k c 100 (per-stream TPOT)",
    ),
    (
        1,
        "8x B200 TP 8 random 1000/1000 c 1:",
        10.12,
        "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
        "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        1,
        "8x B200 TP 8 random 1000/1000 c 16:",
        16.12,
        "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c16.toml",
        "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 1k/1k c 16 (per-stream TPOT)",
    ),
    (
        1,
        "8x B200 TP 8 random 1000/1000 c 100:",
        34.04,
        "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k1k-c100.toml",
        "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 1k/1k c 100 (per-stream TPOT)",
    ),
    (
        2,
        "8x B200 TP 8 ShareGPT c 1:",
        6.17,
        "qwen3-next-80b-a3b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
        "Qwen3-Next-80B-A3B-Instruct bf16, SGLang 0.5.6, 8× B200 TP 8, ShareGPT c 1 (per-stream TPOT)",
    ),
    (
        3,
        "2x B200 TP 2 random 1000/1000 c 1:",
        6.23,
        "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1.toml",
        "Qwen3-Coder-Next bf16, SGLang 0.5.8+, 2× B200 TP 2, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        3,
        "2x B200 TP 2 random 1000/1000 c 16:",
        13.59,
        "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c16.toml",
        "Qwen3-Coder-Next bf16, SGLang 0.5.8+, 2× B200 TP 2, random 1k/1k c 16 (per-stream TPOT)",
    ),
    (
        3,
        "2x B200 TP 2 random 1000/1000 c 100:",
        41.78,
        "qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c100.toml",
        "Qwen3-Coder-Next bf16, SGLang 0.5.8+, 2× B200 TP 2, random 1k/1k c 100 (per-stream TPOT)",
    ),
    (
        4,
        "8x B200 TP 8 ShareGPT c 1:",
        2.31,
        "gpt-oss-120b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
        "gpt-oss-120b MXFP4, SGLang 0.5.6, 8× B200 TP 8, ShareGPT c 1 (per-stream TPOT)",
    ),
];

/// Compares row `i` of [`ROWS`]: the measured value (checked against 1000 ÷ the page's median TPOT,
/// rounded to 0.01 tok/s) and 1000 ÷ tpsim's median TPOT.
fn compare(i: usize) {
    let (s, note, tpot_ms, file, label) = ROWS[i];
    let (src, model) = NEWDEPLOYS17_SOURCES[s];
    compare_tpot_row((src, model, note), tpot_ms, file, label);
}

#[test]
pub(crate) fn validation_glm_4_6_sglang_b200x8_tp8() {
    // "Median TPOT (ms)" at 1, 16 and 100 in flight: 14.80, 24.55, 52.20 (SGLang 0.5.6.post1).
    for i in 0..3 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_qwen3_235b_sglang_b200x8_tp8() {
    // "Median TPOT (ms)" at 1, 16 and 100 in flight: 10.12, 16.12, 34.04 (SGLang 0.5.6).
    for i in 3..6 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_qwen3_next_sglang_b200_tp8_tp2() {
    // "Median TPOT (ms)": Qwen3-Next TP 8 ShareGPT c 1 6.17 (0.5.6); Qwen3-Coder-Next TP 2 1000/1000 at 1
    // 16 and 100 in flight 6.23, 13.59, 41.78 (0.5.8+).
    for i in 6..10 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_gpt_oss_120b_sglang_b200x8_tp8() {
    // "Median TPOT (ms)" ShareGPT c 1: 2.31 (SGLang 0.5.6).
    compare(10);
}

#[test]
fn scenarios_are_the_pages_runs() {
    // Each scenario is its run: hardware b200-8x-nvlink, tp from the row (the launch's --tp), no ep_size,
    // num_requests and concurrency from the notes' --num-prompts / --num-prompt and --max-concurrency, and
    // for a random run the N of each length (range ratio 0.0). For a ShareGPT run each length is the page's
    // total over its requests, rounded: Qwen3-Next 33839 / 100 = 338.39 -> 338 and 21640 / 100 = 216.4 ->
    // 216; gpt-oss 33178 / 100 = 331.78 -> 332 and 21251 / 100 = 212.51 -> 213.
    for (s, note, _, file, _) in ROWS {
        let (src, model) = NEWDEPLOYS17_SOURCES[*s];
        let row = throughput_row(src, model, note);
        let notes = row.notes.as_str();
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert!(text.contains("\npreset = \"b200-8x-nvlink\"\n"), "{file}");
        assert!(!text.contains("ep_size"), "{file}");
        let tp = row.tp;
        assert_eq!(scenario_int_key(&text, "tp"), tp, "{file}");
        assert!(notes.contains(&format!(" --tp {tp}")), "{file}");
        let c = row.concurrency;
        assert_eq!(scenario_int_key(&text, "concurrency"), c, "{file}");
        assert!(notes.contains(&format!("--max-concurrency {c}")), "{file}");
        let prompts: u64 = notes
            .split("--num-prompt")
            .nth(1)
            .map(|r| r.trim_start_matches('s'))
            .and_then(|r| r.split_whitespace().next())
            .and_then(|r| r.parse().ok())
            .unwrap();
        assert_eq!(scenario_int_key(&text, "num_requests"), prompts, "{file}");
        let head: Vec<&str> = note.split_whitespace().collect();
        if head[4] == "random" {
            let (inp, out) = head[5].split_once('/').unwrap();
            assert_eq!(random_len(&text, "prompt_len"), inp.parse().ok(), "{file}");
            assert_eq!(random_len(&text, "output_len"), out.parse().ok(), "{file}");
        } else {
            assert_eq!(head[4], "ShareGPT", "{file}");
            // "...: 33839 input and 21640 output tokens in ..."
            let w: Vec<&str> = notes
                .split("(default dataset: ShareGPT): ")
                .nth(1)
                .unwrap()
                .split_whitespace()
                .collect();
            let (tin, tout): (f64, f64) = (w[0].parse().unwrap(), w[3].parse().unwrap());
            let mean = |tot: f64| (tot / prompts as f64).round() as u64;
            assert_eq!(scenario_int_key(&text, "prompt_len"), mean(tin), "{file}");
            assert_eq!(scenario_int_key(&text, "output_len"), mean(tout), "{file}");
        }
    }
}

#[test]
fn every_newdeploys17_row_is_compared() {
    // GLM-4.6, Qwen3-235B and Qwen3-Coder-Next at c 1, 16 and 100, Qwen3-Next c 1,
    // gpt-oss-120b c 1. The tests above compare each once.
    assert_eq!(ROWS.len(), 11);
    // GLM-4.6.md and Qwen3.md: 3 rows here each and the pages' six 1000/8000 and 8000/1000 runs that deploys33
    // added and compares (tests/tests/deploys33.rs).
    assert_eq!(
        throughput_rows_per_source(NEWDEPLOYS17_SOURCES),
        [3 + 6, 3 + 6, 1, 3, 1]
    );
}
