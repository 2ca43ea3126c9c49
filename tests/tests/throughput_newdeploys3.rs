//! Issues #17/#18, third round (newdeploys3): decode-throughput rows of deployments a new user brings,
//! each written as the source's launch line reads (`scenarios/validation/`), compared with the **default
//! (uncalibrated) profile** against the same target and known-miss list as `tests/tests/throughput_rows.rs`
//! ([`TARGET`](crate::throughput_rows::TARGET), [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)).
//! The measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: the GPUStack performance lab (github.com/gpustack/gpustack `docs/performance-lab/`, commit
//! 47277d7), whose pages give the engine release, the serving command and `vllm bench serve`'s printed
//! result. Rows taken: every "Other Benchmark Cases" result of the two multi-GPU H100 pages with a
//! decode phase — the random 4000/200 and 2000/100 bursts (500 requests at once) and the ShareGPT run at
//! 4 in flight; not the 128/4 bursts (4 output tokens: nothing to decode) nor the 32000/100 bursts
//! (3.2 M prompt tokens for 10 k output: a prefill measurement). Compared: bursts → tpsim's end-to-end
//! output rate (output tokens ÷ the run, as the benchmark's "Output token throughput"); ShareGPT →
//! 1000 ÷ tpsim's median TPOT against 1000 ÷ the row's median TPOT.
//! - `gpt-oss-120b/h100.md`, optimized: gpt-oss-120b MXFP4, vLLM v0.10.2 `--async-scheduling -tp 2`
//!   on 2× H100 SXM (ShareGPT c 4, 4K and 2K bursts);
//! - `qwen3-235b-a22b/h100.md`: Qwen3-235B-A22B-Instruct-2507 bf16, vLLM v0.11.0 `-tp 8` on 8× H100
//!   SXM (baseline), and its FP8 checkpoint at `-tp 4 --max-num-batched-tokens 16384` on 4 of them
//!   (optimized); 4K and 2K bursts each.
//!
//!
//! Source: local-inference-lab/rtx6kpro `models/minimax-m25.md` (commit e2c2b95), "Single-Stream Decode
//! Speed": the MiniMax-M2.5 NVFP4 rows under vLLM the table adds to `benchmarks/results.md`'s (2 GPUs
//! ~85, Festr; 4 GPUs ~81 at 20K and ~61 at 100K context, chisleu), with the page's vLLM NVFP4 launch
//! command → 1000 ÷ tpsim's median TPOT.
//!
//! Not taken: the GLM-4.5-Air pages (`glm-4.5-air/h100.md` and `a100.md` print the same "Other Benchmark
//! Cases" numbers digit for digit, on 4× H100 and 4× A100, so which box produced them is not known); the
//! single-GPU pages (no tensor parallelism); the ShareGPT runs at 1000 prompts (lengths not expressible).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows.
//! [`every_newdeploys3_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS3_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/gpustack/gpustack docs/performance-lab/gpt-oss-120b/h100.md",
        "gpt-oss-120b",
    ),
    (
        "github.com/gpustack/gpustack docs/performance-lab/qwen3-235b-a22b/h100.md",
        "Qwen3-235B-A22B-Instruct-2507",
    ),
    (
        "local-inference-lab/rtx6kpro models/minimax-m25.md",
        "MiniMax-M2.5",
    ),
];

/// The measured `output_tok_s` of the one row with this source prefix and model whose notes start with
/// `note`.
fn measured(source: &str, model: &str, note: &str) -> f64 {
    measured_throughput(source, model, |n| n.starts_with(note))
}

/// One burst row: the row's output rate against tpsim's end-to-end output rate of `file`.
fn burst(source: usize, note: &str, file: &str, label: &str) {
    let (src, model) = NEWDEPLOYS3_SOURCES[source];
    let m = measured(src, model, note);
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), f(&v["throughput"]["e2e_output_tok_s"]));
}

#[test]
pub(crate) fn validation_gpt_oss_120b_h100_vllm_0_10_2_tp2_sharegpt_c4() {
    // 1000 / median TPOT 5.74 ms = 174.2 tok/s, stored rounded to 0.1; to 0.05 tok/s.
    let (src, model) = NEWDEPLOYS3_SOURCES[0];
    let m = measured(src, model, "ShareGPT batch size 4:");
    assert!((m - 1000.0 / 5.74).abs() < 0.05, "{m}");
    let v = run_json(&scenario(
        "validation/gpt-oss-120b-h100-vllm-0.10.2-tp2-sharegpt-c4.toml",
    ));
    let p = 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]);
    validate(
        "gpt-oss-120b MXFP4, vLLM 0.10.2, 2× H100 TP 2, ShareGPT c 4 (per-stream TPOT)",
        (m, m),
        p,
    );
}

#[test]
pub(crate) fn validation_gpt_oss_120b_h100_vllm_0_10_2_tp2_bursts() {
    // "Output token throughput" of the 4K and 2K bursts: 1135.29 and 1595.22 tok/s.
    for (k, note) in [("4k", "random 4K input:"), ("2k", "random 2K input:")] {
        burst(
            0,
            note,
            &format!("gpt-oss-120b-h100-vllm-0.10.2-tp2-burst-{k}.toml"),
            &format!("gpt-oss-120b MXFP4, vLLM 0.10.2, 2× H100 TP 2, burst of 500 ({k})"),
        );
    }
}

#[test]
pub(crate) fn validation_qwen3_235b_h100_vllm_tp8_bursts() {
    // Baseline, bf16 on 8× H100: 931.21 (4K) and 1127.26 (2K) tok/s.
    for (k, note) in [("4k", "TP 8 random 4K input:"), ("2k", "TP 8 random 2K input:")] {
        burst(
            1,
            note,
            &format!("qwen3-235b-h100x8-vllm-tp8-burst-{k}.toml"),
            &format!("Qwen3-235B-A22B bf16, vLLM 0.11.0, 8× H100 TP 8, burst of 500 ({k})"),
        );
    }
}

#[test]
pub(crate) fn validation_qwen3_235b_fp8_h100_vllm_tp4_bursts() {
    // Optimized, FP8 on 4× H100 with --max-num-batched-tokens 16384: 717.60 (4K) and 894.84 (2K) tok/s.
    for (k, note) in [
        ("4k", "TP 4 FP8 random 4K input:"),
        ("2k", "TP 4 FP8 random 2K input:"),
    ] {
        burst(
            1,
            note,
            &format!("qwen3-235b-fp8-h100x4-vllm-tp4-burst-{k}.toml"),
            &format!("Qwen3-235B-A22B FP8, vLLM 0.11.0, 4× H100 TP 4, burst of 500 ({k})"),
        );
    }
}

/// One MiniMax-M2.5 NVFP4 vLLM row of rtx6kpro: the page's value against 1000 ÷ tpsim's median TPOT of
/// `file` (single-stream decode speed).
fn minimax_vllm(note: &str, file: &str, label: &str) {
    let (src, model) = NEWDEPLOYS3_SOURCES[2];
    let m = measured(src, model, note);
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]));
}

#[test]
pub(crate) fn validation_minimax_m25_nvfp4_vllm_rtx6000() {
    // The page's "Single-Stream Decode Speed" table: NVFP4 under vLLM, 2 GPUs ~85 (Festr, TP2), 4 GPUs
    // ~81 at 20K and ~61 at 100K context (chisleu).
    minimax_vllm(
        "NVFP4, 2x GPUs, TP2:",
        "minimax-m2.5-nvfp4-vllm-tp2-festr.toml",
        "MiniMax-M2.5 NVFP4, vLLM, 2× RTX PRO 6000 (Festr, root ports) TP 2, bs 1",
    );
    minimax_vllm(
        "NVFP4, 4x GPUs, 20K ctx:",
        "minimax-m2.5-nvfp4-vllm-tp4-20k.toml",
        "MiniMax-M2.5 NVFP4, vLLM, 4× RTX PRO 6000 TP 4, bs 1, 20K context",
    );
    minimax_vllm(
        "NVFP4, 4x GPUs, 100K ctx:",
        "minimax-m2.5-nvfp4-vllm-tp4-100k.toml",
        "MiniMax-M2.5 NVFP4, vLLM, 4× RTX PRO 6000 TP 4, bs 1, 100K context",
    );
}

#[test]
fn every_newdeploys3_row_is_compared() {
    // Three rows of the gpt-oss page, four of the Qwen3-235B page, three of the MiniMax page; the tests
    // above compare each once.
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS3_SOURCES), [3, 4, 3]);
}
