//! Fourteenth round of new deployments (newdeploys14, issue #17 coverage): dense 7-8B models under vLLM
//! 0.8.5 on 1, 2 and 4 GeForce RTX 4090 with tensor parallelism over PCIe, and on one H100 PCIe — the
//! IOG Foundation's `llm-inference-benchmarks` results (io.net cloud, June 2025):
//! DeepSeek-R1-Distill-Llama-8B and Meta-Llama-3-8B-Instruct (as the `llama-3.1-8b` preset) and
//! DeepSeek-R1-Distill-Qwen-7B (as `qwen2.5-7b`), ShareGPT at 8 and 16 requests a second, each written
//! as the source's README launches it (`scenarios/validation/*-{rtx4090x*,h100pcie}-vllm-0.8.5-*.toml`,
//! assumptions listed there) and
//! compared with the **default (uncalibrated) profile** against the same target and known-miss list as
//! `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: github.com/IOG-Foundation/llm-inference-benchmarks at commit 4990a80: the README (vLLM 0.8.5:
//! `vllm/vllm-openai:v0.8.5`, its `scripts/benchmarks` copied from the 0.8.5 release; `vllm serve MODEL
//! --disable-log-requests --dtype float16 --tensor-parallel-size N`, N every GPU of the box;
//! `run_benchmark.sh`: 200 ShareGPT prompts at 32, 16, 8, 4 and 1 requests a second, Poisson, no maximum
//! concurrency) and the result files
//! `results/vllm_200prompts{8,16}qps_{MODEL}_sharegpt_{N}xNVIDIA-GeForce-RTX-4090.json` and
//! `..._1xNVIDIA-H100-PCIe.json`
//! (benchmark_serving.py's saved result: totals, duration, output_throughput, TPOT percentiles).
//!
//! **What is compared.** A 200-request Poisson run's output rate is mostly its arrival rate and its
//! longest requests (ShareGPT's spread, which tpsim does not model), so, as newdeploys3 and newdeploys11
//! do for their ShareGPT rows, the row is 1000 ÷ the file's median TPOT (the per-stream decode speed at
//! that load) and tpsim's is 1000 ÷ its median TPOT, ShareGPT's lengths taken as their means. 8 and
//! 16 requests a second are the two loads between idle (1 and 4: the step at a handful of requests) and
//! the 32 a second of the same files, where the 2- and 4-GPU runs' mean TPOT is twice their median
//! (queueing, not a step cost).
//!
//! Not taken: the same files' DeepSeek-R1-Distill-Qwen-14B rows (2, 4, 8× RTX 4090: no Qwen2.5-14B
//! preset), Meta-Llama-3-8B-Instruct on one RTX 4090, the other H100 PCIe models (AceMath-7B, R1-Distill-
//! Qwen-1.5B/32B, QwQ-32B-Preview, gemma-2-9b-it, phi-4) and the 2× H100 PCIe 70B files, the 1, 4 and 32
//! requests-a-second files.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted TPOT. [`every_newdeploys14_row_is_compared`] fails if a row of this source
//! is added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS14_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "DeepSeek-R1-Distill-Llama-8B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "DeepSeek-R1-Distill-Qwen-7B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "Meta-Llama-3-8B-Instruct",
    ),
];

/// The rows of this file: (model, notes prefix, the file's median TPOT in ms, scenario file, label).
const ROWS: &[iog::IogRow] = &[
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "1x RTX 4090 TP 1 ShareGPT 8 qps:",
        26.90,
        "deepseek-r1-distill-llama-8b-rtx4090x1-vllm-0.8.5-tp1-sharegpt-q8.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 1× RTX 4090, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "1x RTX 4090 TP 1 ShareGPT 16 qps:",
        32.83,
        "deepseek-r1-distill-llama-8b-rtx4090x1-vllm-0.8.5-tp1-sharegpt-q16.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 1× RTX 4090, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "2x RTX 4090 TP 2 ShareGPT 8 qps:",
        23.58,
        "deepseek-r1-distill-llama-8b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q8.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "2x RTX 4090 TP 2 ShareGPT 16 qps:",
        30.35,
        "deepseek-r1-distill-llama-8b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q16.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "4x RTX 4090 TP 4 ShareGPT 8 qps:",
        20.34,
        "deepseek-r1-distill-llama-8b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q8.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "4x RTX 4090 TP 4 ShareGPT 16 qps:",
        28.10,
        "deepseek-r1-distill-llama-8b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q16.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "1x RTX 4090 TP 1 ShareGPT 8 qps:",
        21.94,
        "deepseek-r1-distill-qwen-7b-rtx4090x1-vllm-0.8.5-tp1-sharegpt-q8.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 1× RTX 4090, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "1x RTX 4090 TP 1 ShareGPT 16 qps:",
        24.07,
        "deepseek-r1-distill-qwen-7b-rtx4090x1-vllm-0.8.5-tp1-sharegpt-q16.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 1× RTX 4090, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "2x RTX 4090 TP 2 ShareGPT 8 qps:",
        20.58,
        "deepseek-r1-distill-qwen-7b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q8.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "2x RTX 4090 TP 2 ShareGPT 16 qps:",
        25.52,
        "deepseek-r1-distill-qwen-7b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q16.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "4x RTX 4090 TP 4 ShareGPT 8 qps:",
        17.58,
        "deepseek-r1-distill-qwen-7b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q8.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "4x RTX 4090 TP 4 ShareGPT 16 qps:",
        23.99,
        "deepseek-r1-distill-qwen-7b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q16.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "Meta-Llama-3-8B-Instruct",
        "1x H100 PCIe TP 1 ShareGPT 8 qps:",
        11.80,
        "meta-llama-3-8b-h100pcie-vllm-0.8.5-tp1-sharegpt-q8.toml",
        "Llama-3.1-8B (Meta-Llama-3-8B-Instruct), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "Meta-Llama-3-8B-Instruct",
        "1x H100 PCIe TP 1 ShareGPT 16 qps:",
        12.18,
        "meta-llama-3-8b-h100pcie-vllm-0.8.5-tp1-sharegpt-q16.toml",
        "Llama-3.1-8B (Meta-Llama-3-8B-Instruct), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "1x H100 PCIe TP 1 ShareGPT 8 qps:",
        11.79,
        "deepseek-r1-distill-llama-8b-h100pcie-vllm-0.8.5-tp1-sharegpt-q8.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "1x H100 PCIe TP 1 ShareGPT 16 qps:",
        12.23,
        "deepseek-r1-distill-llama-8b-h100pcie-vllm-0.8.5-tp1-sharegpt-q16.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "1x H100 PCIe TP 1 ShareGPT 8 qps:",
        10.96,
        "deepseek-r1-distill-qwen-7b-h100pcie-vllm-0.8.5-tp1-sharegpt-q8.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "1x H100 PCIe TP 1 ShareGPT 16 qps:",
        11.53,
        "deepseek-r1-distill-qwen-7b-h100pcie-vllm-0.8.5-tp1-sharegpt-q16.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 16 qps (per-stream TPOT)",
    ),
];

/// Compares row `i` of [`ROWS`] ([`iog::compare`]).
fn compare(i: usize) {
    iog::compare(NEWDEPLOYS14_SOURCES[0].0, &ROWS[i]);
}

#[test]
pub(crate) fn validation_r1_distill_llama_8b_rtx4090_vllm_0_8_5() {
    // "median_tpot_ms": 26.90 and 32.83 (1 GPU), 23.58 and 30.35 (TP 2), 20.34 and 28.10 (TP 4), at 8 and
    // 16 requests a second.
    for i in 0..6 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_r1_distill_qwen_7b_rtx4090_vllm_0_8_5() {
    // "median_tpot_ms": 21.94 and 24.07 (1 GPU), 20.58 and 25.52 (TP 2), 17.58 and 23.99 (TP 4).
    for i in 6..12 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_llama_8b_qwen_7b_h100_pcie_vllm_0_8_5() {
    // "median_tpot_ms" on one H100 PCIe at 8 and 16 requests a second: 11.80 and 12.18
    // (Meta-Llama-3-8B-Instruct), 11.79 and 12.23 (DeepSeek-R1-Distill-Llama-8B), 10.96 and 11.53
    // (DeepSeek-R1-Distill-Qwen-7B).
    for i in 12..18 {
        compare(i);
    }
}

#[test]
fn scenario_workload_is_the_files_means() {
    iog::workload_is_the_files_means(NEWDEPLOYS14_SOURCES[0].0, ROWS);
}

#[test]
fn every_newdeploys14_row_is_compared() {
    // Eighteen rows: two models × 1, 2, 4 RTX 4090 × 8, 16 requests a second, and three models × one H100
    // PCIe × 8, 16 requests a second. The tests above compare each once. The source prefix also matches
    // deploys34's six rows of each R1-Distill model (1, 4, 32 req/s on 2 and 4 GPUs): 8 + 6 = 14.
    assert_eq!(ROWS.len(), 18);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS14_SOURCES), [14, 14, 2]);
}
