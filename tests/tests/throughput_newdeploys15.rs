//! Fifteenth round of new deployments (newdeploys15, issue #17 coverage): the rest of the IOG Foundation's
//! `llm-inference-benchmarks` results (io.net cloud, June 2025) under vLLM 0.8.5 that newdeploys14
//! (`throughput_newdeploys14.rs`) left out — DeepSeek-R1-Distill-Qwen-14B on 2, 4 and 8 GeForce RTX 4090
//! with tensor parallelism over PCIe (as the new `qwen2.5-14b` preset), DeepSeek-R1-Distill-Qwen-32B and
//! QwQ-32B-Preview on one H100 PCIe (as the new `qwen2.5-32b`), and three 70B Llamas on 2× H100 PCIe
//! (DeepSeek-R1-Distill-Llama-70B and Meta-Llama-3-70B-Instruct in 16 bits, Llama-3.1-Nemotron-70B-
//! Instruct-HF-FP8-dynamic in fp8, all as `llama-3.1-70b`), ShareGPT at 1, 8 and 16 requests a second, each
//! written as the source's README launches it (`scenarios/validation/*-vllm-0.8.5-*.toml`, assumptions
//! listed there) and compared with the **default (uncalibrated) profile** against the same target and
//! known-miss list as `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: github.com/IOG-Foundation/llm-inference-benchmarks at commit 4990a80: the README (vLLM 0.8.5:
//! `vllm/vllm-openai:v0.8.5`; `vllm serve MODEL --disable-log-requests --dtype float16
//! --tensor-parallel-size N`, N every GPU of the box, "Optional: set `--max-model-len` and
//! `--gpu-memory-utilization` as needed"; `run_benchmark.sh`: 200 ShareGPT prompts at 32, 16, 8, 4 and 1
//! requests a second, Poisson, no maximum concurrency) and the result files
//! `results/vllm_200prompts{1,8,16}qps_{MODEL}_sharegpt_{N}x{GPU}.json` (benchmark_serving.py's saved
//! result: totals, duration, output_throughput, TPOT percentiles). The README says nothing of how the
//! two H100 PCIe cards are joined; the scenarios assume the bundled NVLink-bridged pair (their headers).
//!
//! **What is compared** (as newdeploys14): the row is 1000 ÷ the file's median TPOT (the per-stream decode
//! speed at that load) and tpsim's is 1000 ÷ its median TPOT, ShareGPT's lengths taken as their means.
//! At 1 request a second a handful of requests run at once: that row is close to the box's light-load
//! step, the fixed costs without queueing.
//!
//! Not taken: the 4 and 32 requests-a-second files, and newdeploys14's models at 1 request a second; the
//! DeepSeek-R1-Distill-Qwen-14B files on one H100 PCIe (each holds two runs of the same load, and the
//! source does not say which one its README table used); the 1.5B, AceMath-7B, gemma-2-9b-it and phi-4
//! files.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted TPOT. [`every_newdeploys15_row_is_compared`] fails if a row of this source
//! and these models is added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS15_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "DeepSeek-R1-Distill-Qwen-14B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "DeepSeek-R1-Distill-Qwen-32B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "QwQ-32B-Preview",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "DeepSeek-R1-Distill-Llama-70B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "Meta-Llama-3-70B-Instruct",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks",
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
    ),
];

/// The rows of this file: (model, notes prefix, the file's median TPOT in ms, scenario file, label).
const ROWS: &[iog::IogRow] = &[
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "2x RTX 4090 TP 2 ShareGPT 8 qps:",
        75.82,
        "deepseek-r1-distill-qwen-14b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q8.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "2x RTX 4090 TP 2 ShareGPT 16 qps:",
        96.82,
        "deepseek-r1-distill-qwen-14b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q16.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "4x RTX 4090 TP 4 ShareGPT 8 qps:",
        43.32,
        "deepseek-r1-distill-qwen-14b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q8.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "4x RTX 4090 TP 4 ShareGPT 16 qps:",
        52.51,
        "deepseek-r1-distill-qwen-14b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q16.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "8x RTX 4090 TP 8 ShareGPT 8 qps:",
        44.34,
        "deepseek-r1-distill-qwen-14b-rtx4090x8-vllm-0.8.5-tp8-sharegpt-q8.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 8× RTX 4090 TP 8, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "8x RTX 4090 TP 8 ShareGPT 16 qps:",
        55.25,
        "deepseek-r1-distill-qwen-14b-rtx4090x8-vllm-0.8.5-tp8-sharegpt-q16.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 8× RTX 4090 TP 8, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-32B",
        "1x H100 PCIe TP 1 ShareGPT 8 qps:",
        57.59,
        "deepseek-r1-distill-qwen-32b-h100pcie-vllm-0.8.5-tp1-sharegpt-q8.toml",
        "Qwen2.5-32B (DeepSeek-R1-Distill-Qwen-32B), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-32B",
        "1x H100 PCIe TP 1 ShareGPT 16 qps:",
        65.16,
        "deepseek-r1-distill-qwen-32b-h100pcie-vllm-0.8.5-tp1-sharegpt-q16.toml",
        "Qwen2.5-32B (DeepSeek-R1-Distill-Qwen-32B), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "QwQ-32B-Preview",
        "1x H100 PCIe TP 1 ShareGPT 8 qps:",
        57.10,
        "qwq-32b-preview-h100pcie-vllm-0.8.5-tp1-sharegpt-q8.toml",
        "Qwen2.5-32B (QwQ-32B-Preview), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "QwQ-32B-Preview",
        "1x H100 PCIe TP 1 ShareGPT 16 qps:",
        61.94,
        "qwq-32b-preview-h100pcie-vllm-0.8.5-tp1-sharegpt-q16.toml",
        "Qwen2.5-32B (QwQ-32B-Preview), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-70B",
        "2x H100 PCIe TP 2 ShareGPT 8 qps:",
        76.31,
        "deepseek-r1-distill-llama-70b-h100pciex2-vllm-0.8.5-tp2-sharegpt-q8.toml",
        "Llama-3.1-70B (DeepSeek-R1-Distill-Llama-70B), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-70B",
        "2x H100 PCIe TP 2 ShareGPT 16 qps:",
        82.74,
        "deepseek-r1-distill-llama-70b-h100pciex2-vllm-0.8.5-tp2-sharegpt-q16.toml",
        "Llama-3.1-70B (DeepSeek-R1-Distill-Llama-70B), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "Meta-Llama-3-70B-Instruct",
        "2x H100 PCIe TP 2 ShareGPT 8 qps:",
        80.74,
        "meta-llama-3-70b-instruct-h100pciex2-vllm-0.8.5-tp2-sharegpt-q8.toml",
        "Llama-3.1-70B (Meta-Llama-3-70B-Instruct), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "Meta-Llama-3-70B-Instruct",
        "2x H100 PCIe TP 2 ShareGPT 16 qps:",
        106.24,
        "meta-llama-3-70b-instruct-h100pciex2-vllm-0.8.5-tp2-sharegpt-q16.toml",
        "Llama-3.1-70B (Meta-Llama-3-70B-Instruct), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
        "2x H100 PCIe TP 2 ShareGPT 8 qps:",
        43.59,
        "llama-3.1-nemotron-70b-instruct-hf-fp8-dynamic-h100pciex2-vllm-0.8.5-tp2-sharegpt-q8.toml",
        "Llama-3.1-70B FP8 (Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 8 qps (per-stream TPOT)",
    ),
    (
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
        "2x H100 PCIe TP 2 ShareGPT 16 qps:",
        47.29,
        "llama-3.1-nemotron-70b-instruct-hf-fp8-dynamic-h100pciex2-vllm-0.8.5-tp2-sharegpt-q16.toml",
        "Llama-3.1-70B FP8 (Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 16 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "2x RTX 4090 TP 2 ShareGPT 1 qps:",
        25.29,
        "deepseek-r1-distill-qwen-14b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "4x RTX 4090 TP 4 ShareGPT 1 qps:",
        22.03,
        "deepseek-r1-distill-qwen-14b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q1.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "8x RTX 4090 TP 8 ShareGPT 1 qps:",
        18.24,
        "deepseek-r1-distill-qwen-14b-rtx4090x8-vllm-0.8.5-tp8-sharegpt-q1.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 8× RTX 4090 TP 8, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-32B",
        "1x H100 PCIe TP 1 ShareGPT 1 qps:",
        41.32,
        "deepseek-r1-distill-qwen-32b-h100pcie-vllm-0.8.5-tp1-sharegpt-q1.toml",
        "Qwen2.5-32B (DeepSeek-R1-Distill-Qwen-32B), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "QwQ-32B-Preview",
        "1x H100 PCIe TP 1 ShareGPT 1 qps:",
        41.55,
        "qwq-32b-preview-h100pcie-vllm-0.8.5-tp1-sharegpt-q1.toml",
        "Qwen2.5-32B (QwQ-32B-Preview), vLLM 0.8.5, 1× H100 PCIe, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-70B",
        "2x H100 PCIe TP 2 ShareGPT 1 qps:",
        53.28,
        "deepseek-r1-distill-llama-70b-h100pciex2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        "Llama-3.1-70B (DeepSeek-R1-Distill-Llama-70B), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "Meta-Llama-3-70B-Instruct",
        "2x H100 PCIe TP 2 ShareGPT 1 qps:",
        53.10,
        "meta-llama-3-70b-instruct-h100pciex2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        "Llama-3.1-70B (Meta-Llama-3-70B-Instruct), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
        "2x H100 PCIe TP 2 ShareGPT 1 qps:",
        31.95,
        "llama-3.1-nemotron-70b-instruct-hf-fp8-dynamic-h100pciex2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        "Llama-3.1-70B FP8 (Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 1 qps (per-stream TPOT)",
    ),
];

/// Compares row `i` of [`ROWS`] ([`iog::compare`]).
fn compare(i: usize) {
    iog::compare(NEWDEPLOYS15_SOURCES[0].0, &ROWS[i]);
}

#[test]
pub(crate) fn validation_r1_distill_qwen_14b_rtx4090_vllm_0_8_5() {
    // "median_tpot_ms" at 8 and 16 requests a second: 75.82, 96.82 (TP 2), 43.32, 52.51 (TP 4),
    // 44.34, 55.25 (TP 8).
    for i in 0..6 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_qwen2_5_32b_h100_pcie_vllm_0_8_5() {
    // "median_tpot_ms" on one H100 PCIe at 8 and 16 requests a second: 57.59, 65.16
    // (DeepSeek-R1-Distill-Qwen-32B), 57.10, 61.94 (QwQ-32B-Preview).
    for i in 6..10 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_llama_70b_h100_pcie_x2_vllm_0_8_5() {
    // "median_tpot_ms" on 2× H100 PCIe at 8 and 16 requests a second: 76.31, 82.74
    // (DeepSeek-R1-Distill-Llama-70B), 80.74, 106.24 (Meta-Llama-3-70B-Instruct), 43.59, 47.29
    // (Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic).
    for i in 10..16 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_iog_light_load_vllm_0_8_5() {
    // "median_tpot_ms" at 1 request a second: 25.29, 22.03, 18.24 (R1-Distill-Qwen-14B, TP 2, 4, 8 on RTX
    // 4090), 41.32, 41.55 (R1-Distill-Qwen-32B, QwQ-32B-Preview, one H100 PCIe), 53.28, 53.10, 31.95
    // (R1-Distill-Llama-70B, Llama-3-70B, Nemotron-70B FP8-dynamic, 2× H100 PCIe).
    for i in 16..24 {
        compare(i);
    }
}

#[test]
fn scenario_workload_is_the_files_means() {
    iog::workload_is_the_files_means(NEWDEPLOYS15_SOURCES[0].0, ROWS);
}

#[test]
fn every_newdeploys15_row_is_compared() {
    // Twenty-four rows: DeepSeek-R1-Distill-Qwen-14B × 2, 4, 8 RTX 4090, two 32B models × one H100 PCIe
    // and three 70B models × 2 H100 PCIe, each at 1, 8 and 16 requests a second. The tests above compare
    // each once. The source prefix also matches deploys34's six R1-Distill-Qwen-14B rows (4 and 32 req/s on
    // 2, 4, 8 GPUs): 9 + 6 = 15, and deploys35's two rows of each 70B model (4 and 32 req/s): 3 + 2 = 5.
    assert_eq!(ROWS.len(), 24);
    assert_eq!(
        throughput_rows_per_source(NEWDEPLOYS15_SOURCES),
        [15, 3, 3, 5, 5, 5]
    );
}
