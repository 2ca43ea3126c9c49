//! Eleventh round of new deployments (newdeploys11, issue #17 coverage): the GPUStack performance lab's
//! pages newdeploys3/6/7 left out — gpt-oss-120b on one A100 SXM 80GB (the first MXFP4 MoE row on
//! Ampere), DeepSeek-V3.2 (the first DSA row) and DeepSeek-R1-0528 under vLLM on 8× H200 — each written as
//! the page's serving command reads (`scenarios/validation/{gpt-oss-120b-a100-vllm-0.11-tp1-*,
//! deepseek-v3.2-h200x8-vllm-0.13-tp8-*, deepseek-r1-h200x8-vllm-0.11-tp8-*}.toml`, assumptions listed
//! there) and compared with the **default (uncalibrated) profile** against the same target and known-miss
//! list as `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Sources (github.com/gpustack/gpustack `docs/performance-lab/`, commit 47277d7; each page last changed
//! in 1f37f1b, 2026-01-06), "Other Benchmark Cases": `vllm bench serve --backend openai-chat --endpoint
//! /v1/chat/completions --dataset-name random … --seed 42`, no request rate, no max concurrency (every
//! request at t = 0), compared as tpsim's end-to-end output rate (output tokens ÷ the whole run) against
//! "Output token throughput", as newdeploys3/6/7's bursts:
//!
//! - `gpt-oss-120b/a100.md`: vLLM v0.11.0, baseline `vllm serve openai/gpt-oss-120b --max-model-len 32768`
//!   and optimized `… --async-scheduling --max-num-batched-tokens 4096`, no `-tp` (one GPU; the page's
//!   "3. Parallelism in vLLM" adds `-tp 2` to use its second card): the 4000/200 and 2000/100 bursts of
//!   500;
//! - `deepseek-v3.2/h200.md`: vLLM v0.13.0, `vllm serve deepseek-ai/DeepSeek-V3.2 -tp 8 --tokenizer-mode
//!   deepseek_v32 --reasoning-parser deepseek_v3` (baseline): the "1k random input + 2k generation" burst
//!   of 100 (a decode measurement: 200,000 output tokens) and the 4000/200 and 2000/100 bursts of 500;
//! - `deepseek-r1/h200.md`: vLLM v0.11.0, `vllm serve deepseek-ai/DeepSeek-R1-0528 -tp 8` (baseline): the
//!   4000/200 and 2000/100 bursts of 500.
//!
//! And the "ShareGPT batch size 4" runs of `gpt-oss-120b/a100.md` (baseline and optimized) and
//! `deepseek-r1/h200.md` (100 prompts, `--max-concurrency 4`): a decode measurement, compared as
//! newdeploys3 compares its ShareGPT row — 1000 ÷ tpsim's median TPOT against 1000 ÷ the printed median
//! TPOT, with ShareGPT's lengths as their means.
//!
//! Not taken: the 128/4 bursts (four output tokens: nothing to decode), the 32000/100 bursts (prefill
//! measurements), the ShareGPT bursts of 1000 (a length distribution tpsim's fixed-length workload does not
//! reproduce);
//! the SGLang runs of the two H200 pages (DP attention with `--dp-size 8`, and for DeepSeek-V3.2 the NSA
//! backends `--nsa-prefill-backend fa3 --nsa-decode-backend fa3`: not checked against tpsim's SGLang DSA
//! rules here); `qwen3-235b-a22b/a100.md` (8× A100 SXM: no 8-GPU A100 NVLink preset yet). Also searched
//! and not taken (no row written): PCIe-box sources whose lengths tpsim cannot reproduce — IOG-Foundation/
//! llm-inference-benchmarks (1/2/4/8× RTX 4090, vLLM 0.8.5, ShareGPT at 1-32 QPS: each run lasts as long
//! as its longest ShareGPT output, a length not published), databasemart's RTX 4090 and RTX PRO 5000
//! pages (output totals cut from the stored excerpts), and sgl-project/sglang issue 18870 (8× RTX PRO
//! 6000, MiniMax-M2.5 FP8: only its opening is stored, no figures).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES)
//! gives the measured and predicted TTFT and TPOT. [`every_newdeploys11_row_is_compared`] fails if a row
//! of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::{validate, validate_e2e_row};

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS11_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/gpustack/gpustack docs/performance-lab/gpt-oss-120b/a100.md",
        "gpt-oss-120b",
    ),
    (
        "github.com/gpustack/gpustack docs/performance-lab/deepseek-v3.2/h200.md",
        "DeepSeek-V3.2",
    ),
    (
        "github.com/gpustack/gpustack docs/performance-lab/deepseek-r1/h200.md",
        "DeepSeek-R1-0528",
    ),
];

/// One burst row of source `i`: the row whose notes start with `note` (its output rate checked against
/// the printed figure) against tpsim's end-to-end output rate of `validation/FILE`.
fn burst(i: usize, note: &str, printed: f64, file: &str, label: &str) {
    let (src, model) = NEWDEPLOYS11_SOURCES[i];
    validate_e2e_row((src, model), (note, printed), file, label, 1.0);
}

#[test]
pub(crate) fn validation_gpt_oss_120b_a100_vllm_0_11_bursts() {
    // "Output token throughput (tok/s)": baseline 249.67 (4K) and 395.21 (2K); optimized
    // (--async-scheduling --max-num-batched-tokens 4096) 278.79 and 433.30.
    for (run, stem, flags, rates) in [
        ("baseline", "", "", [249.67, 395.21]),
        ("optimized", "opt-", ", async, 4096 batched", [278.79, 433.30]),
    ] {
        for (k, input, printed) in [("4k", "4K", rates[0]), ("2k", "2K", rates[1])] {
            burst(
                0,
                &format!("{run} random {input} input:"),
                printed,
                &format!("gpt-oss-120b-a100-vllm-0.11-tp1-{stem}burst-{k}.toml"),
                &format!("gpt-oss-120b MXFP4, vLLM 0.11.0{flags}, 1× A100 SXM, burst of 500 ({k})"),
            );
        }
    }
}

#[test]
pub(crate) fn validation_deepseek_v32_h200_vllm_0_13_bursts() {
    // "Output token throughput (tok/s)": 2075.01 (1k in / 2k out, 100 requests), 474.96 (4K), 520.27 (2K).
    for (note, printed, k, what) in [
        (
            "TP 8 1k random input + 2k generation:",
            2075.01,
            "1k2k",
            "burst of 100 (1k/2k)",
        ),
        ("TP 8 random 4K input:", 474.96, "4k", "burst of 500 (4k)"),
        ("TP 8 random 2K input:", 520.27, "2k", "burst of 500 (2k)"),
    ] {
        burst(
            1,
            note,
            printed,
            &format!("deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-{k}.toml"),
            &format!("DeepSeek-V3.2 FP8, vLLM 0.13.0, 8× H200 TP 8, {what}"),
        );
    }
}

#[test]
pub(crate) fn validation_deepseek_r1_h200_vllm_0_11_bursts() {
    // "Output token throughput (tok/s)": 753.67 (4K) and 843.71 (2K).
    for (input, printed, k) in [("4K", 753.67, "4k"), ("2K", 843.71, "2k")] {
        burst(
            2,
            &format!("TP 8 random {input} input:"),
            printed,
            &format!("deepseek-r1-h200x8-vllm-0.11-tp8-burst-{k}.toml"),
            &format!("DeepSeek-R1-0528 FP8, vLLM 0.11.0, 8× H200 TP 8, burst of 500 ({k})"),
        );
    }
}

/// One ShareGPT-at-4-in-flight row of source `i` (notes starting with `note`, stored as 1000 ÷ the median
/// TPOT, rounded to 0.1 tok/s) against 1000 ÷ tpsim's median TPOT of `validation/FILE`, as newdeploys3's
/// ShareGPT row.
fn sharegpt_c4(i: usize, note: &str, median_tpot_ms: f64, file: &str, label: &str) {
    let (src, model) = NEWDEPLOYS11_SOURCES[i];
    let m = measured_throughput(src, model, |n| n.starts_with(note));
    assert!((m - 1000.0 / median_tpot_ms).abs() < 0.05, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]));
}

#[test]
pub(crate) fn validation_gpustack_sharegpt_c4_a100_h200() {
    // "Median TPOT (ms)": 11.44 (gpt-oss-120b, baseline), 10.78 (optimized), 19.13 (DeepSeek-R1-0528).
    sharegpt_c4(
        0,
        "baseline ShareGPT batch size 4:",
        11.44,
        "gpt-oss-120b-a100-vllm-0.11-tp1-sharegpt-c4.toml",
        "gpt-oss-120b MXFP4, vLLM 0.11.0, 1× A100 SXM, ShareGPT c 4 (per-stream TPOT)",
    );
    sharegpt_c4(
        0,
        "optimized ShareGPT batch size 4:",
        10.78,
        "gpt-oss-120b-a100-vllm-0.11-tp1-opt-sharegpt-c4.toml",
        "gpt-oss-120b MXFP4, vLLM 0.11.0, async, 4096 batched, 1× A100 SXM, ShareGPT c 4 (per-stream TPOT)",
    );
    sharegpt_c4(
        2,
        "TP 8 ShareGPT batch size 4:",
        19.13,
        "deepseek-r1-h200x8-vllm-0.11-tp8-sharegpt-c4.toml",
        "DeepSeek-R1-0528 FP8, vLLM 0.11.0, 8× H200 TP 8, ShareGPT c 4 (per-stream TPOT)",
    );
}

#[test]
fn scenario_lengths_are_the_runs_totals_per_request() {
    // Each scenario's prompt_len and output_len are the row's printed token totals ÷ its requests,
    // rounded to the nearest token (e.g. 1,999,249 / 500 = 3,998.498 → 3,998 and 67,259 / 500 = 134.518
    // → 135): the totals are read from the row's notes ("N in / M out tokens"), not from the scenario. (The
    // ShareGPT c 4 scenarios take the same means over their 100 prompts; their headers give the division.)
    let files = [
        (
            0,
            "baseline random 4K input:",
            "gpt-oss-120b-a100-vllm-0.11-tp1-burst-4k.toml",
        ),
        (
            0,
            "baseline random 2K input:",
            "gpt-oss-120b-a100-vllm-0.11-tp1-burst-2k.toml",
        ),
        (
            0,
            "optimized random 4K input:",
            "gpt-oss-120b-a100-vllm-0.11-tp1-opt-burst-4k.toml",
        ),
        (
            0,
            "optimized random 2K input:",
            "gpt-oss-120b-a100-vllm-0.11-tp1-opt-burst-2k.toml",
        ),
        (
            1,
            "TP 8 1k random input + 2k generation:",
            "deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-1k2k.toml",
        ),
        (
            1,
            "TP 8 random 4K input:",
            "deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-4k.toml",
        ),
        (
            1,
            "TP 8 random 2K input:",
            "deepseek-v3.2-h200x8-vllm-0.13-tp8-burst-2k.toml",
        ),
        (
            2,
            "TP 8 random 4K input:",
            "deepseek-r1-h200x8-vllm-0.11-tp8-burst-4k.toml",
        ),
        (
            2,
            "TP 8 random 2K input:",
            "deepseek-r1-h200x8-vllm-0.11-tp8-burst-2k.toml",
        ),
    ];
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, b, o) = (
        t.col("source"),
        t.col("model"),
        t.col("batch_or_concurrency"),
        t.col("notes"),
    );
    for (i, note, file) in files {
        let (src, model) = NEWDEPLOYS11_SOURCES[i];
        let row = t
            .rows
            .iter()
            .find(|r| r.get(s).starts_with(src) && r.get(m) == model && r.get(o).starts_with(note))
            .unwrap_or_else(|| panic!("no row {src} {note}"));
        // "...; 1999249 in / 67259 out tokens, ..."
        let totals = row.get(o).split("; ").find(|p| p.contains(" in / ")).unwrap();
        let mut it = totals.split_whitespace();
        let inp: u64 = it.next().unwrap().parse().unwrap();
        let out: u64 = it.nth(2).unwrap().parse().unwrap();
        let n: u64 = row.get(b).parse().unwrap();
        // Nearest integer of total / n (no total here is a half: 3998.498, 134.518, 1996.786, ...).
        let per_request = |total: u64| (2 * total + n) / (2 * n);
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(scenario_int_key(&text, "num_requests"), n, "{file}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), per_request(inp), "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), per_request(out), "{file}");
    }
}

#[test]
fn every_newdeploys11_row_is_compared() {
    // gpt-oss-120b/a100.md: 6 rows (baseline and optimized: 4K, 2K, ShareGPT c 4); deepseek-v3.2/h200.md:
    // 3; deepseek-r1/h200.md: 3 (4K, 2K, ShareGPT c 4). The tests above compare each once.
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS11_SOURCES), [6, 3, 3]);
}
