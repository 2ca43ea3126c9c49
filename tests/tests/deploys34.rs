//! deploys34 (issue #18): more multi-GPU tensor-parallel rows on PCIe — the IOG Foundation's RTX 4090 files
//! that newdeploys14 and newdeploys15 left out (their module docs: "Not taken: the 1, 4 and 32
//! requests-a-second files").
//!
//! **Source**: github.com/IOG-Foundation/llm-inference-benchmarks at commit 4990a80 (io.net cloud, June 2025),
//! the README (vLLM 0.8.5: `vllm/vllm-openai:v0.8.5`; `vllm serve MODEL --disable-log-requests --dtype float16
//! --tensor-parallel-size N`, N every GPU of the box; `run_benchmark.sh`: 200 ShareGPT prompts at 32, 16, 8, 4
//! and 1 requests a second, Poisson, no maximum concurrency) and the result files
//! `results/vllm_200prompts{1,4,32}qps_{MODEL}_sharegpt_{N}xNVIDIA-GeForce-RTX-4090.json` (benchmark_serving.py's
//! saved result: totals, duration, output_throughput, TPOT and ITL percentiles). Eighteen rows, every
//! multi-GPU file of those rates not yet compared: DeepSeek-R1-Distill-Llama-8B (as `llama-3.1-8b`) and
//! DeepSeek-R1-Distill-Qwen-7B (as `qwen2.5-7b`) on 2 and 4 GPUs at 1, 4 and 32 req/s, DeepSeek-R1-Distill-
//! Qwen-14B (as `qwen2.5-14b`) on 2, 4 and 8 GPUs at 4 and 32 req/s (its 1 req/s files are newdeploys15's).
//! Each scenario is the same box and launch as the suite's 8 req/s scenario of that model and GPU count
//! (`hardware/rtx-4090-4x-no-p2p` or `-8x-`, NCCL over SHM, every other flag at vLLM 0.8.5's default), only
//! the rate and the file's token totals changed; ShareGPT's lengths are their means (the file's totals ÷ 200).
//!
//! **What is compared** (as newdeploys14 and 15): 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median
//! TPOT, default (uncalibrated) profile, held to [`TARGET`](crate::throughput_rows::TARGET). As run (before the
//! lead re-blesses) every row is a known miss, tpsim fast: at 1 and 4 req/s by +24 to +109 % (newdeploys14's
//! light-load TP class, larger at TP 4 and 8), at 32 req/s by +26 to +93 % (the files' TPOT carries queueing
//! stalls tpsim does not have: [`the_files_tpot_is_flat_from_tp_2_to_tp_4_at_32_qps`]). Reasons in
//! `throughput_rows.rs` (`DEPLOYS34_IOG_LIGHT_MISS`, `DEPLOYS34_IOG_BURST_MISS`).
//!
//! Searched this round and not taken: cloudrift-ai/server-benchmark's `pro6000_l40s_h100_h200/` GLM-4.5-Air AWQ
//! files on 8× RTX PRO 6000 (eight tensor-parallel-1 replicas behind one client, not one TP engine; the
//! single-query file is one GPU); deplodock's other experiments at 9da9d04 (all one GPU, or B200 / MI350X);
//! r/LocalLLaMA 1kkvqti's Qwen3-32B W4A16 TP 2 row (the AWQ row's twin, newdeploys9); a 4× RTX 3090 TP 4
//! Gemma-4-31B AWQ post (ollama.linkworksinc.com, vLLM 0.19.1: one stream, an hourly probe, no lengths);
//! the 2× RTX PRO 6000 Qwen3.5-122B post (SGLang with speculative decoding and custom kernels); evokernel's
//! 4× L40S case (its own citation says "synthesized").
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. [`every_deploys34_row_is_compared`] fails
//! if a row of these files is added without a test here.

use crate::common::*;

/// The source prefix of every row (each row's source continues with its result file).
const SRC: &str = "github.com/IOG-Foundation/llm-inference-benchmarks";

/// The (source prefix, model) of the rows of this file, one prefix a rate; newdeploys14's and 15's
/// prefixes (the bare repository) also match them, so their per-source counts include these.
pub(crate) const DEPLOYS34_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts1qps_",
        "DeepSeek-R1-Distill-Llama-8B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts1qps_",
        "DeepSeek-R1-Distill-Qwen-7B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts4qps_",
        "DeepSeek-R1-Distill-Llama-8B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts4qps_",
        "DeepSeek-R1-Distill-Qwen-7B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts4qps_",
        "DeepSeek-R1-Distill-Qwen-14B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts32qps_",
        "DeepSeek-R1-Distill-Llama-8B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts32qps_",
        "DeepSeek-R1-Distill-Qwen-7B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts32qps_",
        "DeepSeek-R1-Distill-Qwen-14B",
    ),
];

/// The rows: (model, notes prefix, the file's median TPOT in ms, scenario file, label); 1 req/s (0..4),
/// 4 req/s (4..11), 32 req/s (11..18).
const ROWS: &[iog::IogRow] = &[
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "2x RTX 4090 TP 2 ShareGPT 1 qps:",
        16.03,
        "deepseek-r1-distill-llama-8b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "4x RTX 4090 TP 4 ShareGPT 1 qps:",
        10.53,
        "deepseek-r1-distill-llama-8b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q1.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "2x RTX 4090 TP 2 ShareGPT 1 qps:",
        14.42,
        "deepseek-r1-distill-qwen-7b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q1.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "4x RTX 4090 TP 4 ShareGPT 1 qps:",
        8.59,
        "deepseek-r1-distill-qwen-7b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q1.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 1 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "2x RTX 4090 TP 2 ShareGPT 4 qps:",
        18.06,
        "deepseek-r1-distill-llama-8b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q4.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "4x RTX 4090 TP 4 ShareGPT 4 qps:",
        15.54,
        "deepseek-r1-distill-llama-8b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q4.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "2x RTX 4090 TP 2 ShareGPT 4 qps:",
        15.19,
        "deepseek-r1-distill-qwen-7b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q4.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "4x RTX 4090 TP 4 ShareGPT 4 qps:",
        12.11,
        "deepseek-r1-distill-qwen-7b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q4.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "2x RTX 4090 TP 2 ShareGPT 4 qps:",
        50.52,
        "deepseek-r1-distill-qwen-14b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q4.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "4x RTX 4090 TP 4 ShareGPT 4 qps:",
        29.63,
        "deepseek-r1-distill-qwen-14b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q4.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "8x RTX 4090 TP 8 ShareGPT 4 qps:",
        29.66,
        "deepseek-r1-distill-qwen-14b-rtx4090x8-vllm-0.8.5-tp8-sharegpt-q4.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 8× RTX 4090 TP 8, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "2x RTX 4090 TP 2 ShareGPT 32 qps:",
        57.55,
        "deepseek-r1-distill-llama-8b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q32.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-8B",
        "4x RTX 4090 TP 4 ShareGPT 32 qps:",
        59.24,
        "deepseek-r1-distill-llama-8b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q32.toml",
        "Llama-3.1-8B (DeepSeek-R1-Distill-Llama-8B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "2x RTX 4090 TP 2 ShareGPT 32 qps:",
        53.72,
        "deepseek-r1-distill-qwen-7b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q32.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-7B",
        "4x RTX 4090 TP 4 ShareGPT 32 qps:",
        52.02,
        "deepseek-r1-distill-qwen-7b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q32.toml",
        "Qwen2.5-7B (DeepSeek-R1-Distill-Qwen-7B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "2x RTX 4090 TP 2 ShareGPT 32 qps:",
        106.33,
        "deepseek-r1-distill-qwen-14b-rtx4090x2-vllm-0.8.5-tp2-sharegpt-q32.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 2× RTX 4090 TP 2, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "4x RTX 4090 TP 4 ShareGPT 32 qps:",
        106.66,
        "deepseek-r1-distill-qwen-14b-rtx4090x4-vllm-0.8.5-tp4-sharegpt-q32.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 4× RTX 4090 TP 4, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Qwen-14B",
        "8x RTX 4090 TP 8 ShareGPT 32 qps:",
        118.09,
        "deepseek-r1-distill-qwen-14b-rtx4090x8-vllm-0.8.5-tp8-sharegpt-q32.toml",
        "Qwen2.5-14B (DeepSeek-R1-Distill-Qwen-14B), vLLM 0.8.5, 8× RTX 4090 TP 8, ShareGPT 32 qps (per-stream TPOT)",
    ),
];

/// Compares rows `range` of [`ROWS`] ([`iog::compare`]).
fn compare(range: std::ops::Range<usize>) {
    for row in &ROWS[range] {
        iog::compare(SRC, row);
    }
}

#[test]
pub(crate) fn validation_iog_rtx4090_tp_vllm_0_8_5_1qps() {
    // "median_tpot_ms" at 1 request a second: 16.03, 10.53 (R1-Distill-Llama-8B TP 2, 4), 14.42, 8.59
    // (R1-Distill-Qwen-7B TP 2, 4) → 62.4, 95.0, 69.3, 116.4 tok/s a stream.
    compare(0..4);
}

#[test]
pub(crate) fn validation_iog_rtx4090_tp_vllm_0_8_5_4qps() {
    // "median_tpot_ms" at 4 requests a second: 18.06, 15.54 (Llama-8B TP 2, 4), 15.19, 12.11 (Qwen-7B
    // TP 2, 4), 50.52, 29.63, 29.66 (Qwen-14B TP 2, 4, 8) → 55.4, 64.4, 65.8, 82.6, 19.8, 33.7, 33.7 tok/s.
    compare(4..11);
}

#[test]
pub(crate) fn validation_iog_rtx4090_tp_vllm_0_8_5_32qps() {
    // "median_tpot_ms" at 32 requests a second: 57.55, 59.24 (Llama-8B TP 2, 4), 53.72, 52.02 (Qwen-7B
    // TP 2, 4), 106.33, 106.66, 118.09 (Qwen-14B TP 2, 4, 8) → 17.4, 16.9, 18.6, 19.2, 9.4, 9.4, 8.5 tok/s.
    compare(11..18);
}

#[test]
fn scenario_workload_is_the_files_means() {
    iog::workload_is_the_files_means(SRC, ROWS);
}

/// At 32 req/s the files' median TPOT does not fall from TP 2 to TP 4 — 59.24 / 57.55 = 1.029 (Llama-8B),
/// 52.02 / 53.72 = 0.968 (Qwen-7B), 106.66 / 106.33 = 1.003 (Qwen-14B), all within 5 % of 1 — while tpsim's
/// falls by 17-23 % (as run: 34.93 / 42.38 = 0.824, 26.99 / 35.00 = 0.771, 65.46 / 84.62 = 0.774; held
/// below 0.90). At this rate the files' per-request TPOT is set by something that halving each GPU's share
/// does not shorten (their median TTFT is 0.95-5.4 s at TP 2 and 4: a queue), which tpsim does not reproduce.
#[test]
fn the_files_tpot_is_flat_from_tp_2_to_tp_4_at_32_qps() {
    for (tp2, tp4) in [(11, 12), (13, 14), (15, 16)] {
        let (measured2, measured4) = (ROWS[tp2].2, ROWS[tp4].2);
        let r = measured4 / measured2;
        assert!(
            (r - 1.0).abs() < 0.05,
            "{}: measured TP 4 / TP 2 {r:.3}",
            ROWS[tp4].4
        );
        let tpot = |i: usize| {
            f(&run_json(&scenario(&format!("validation/{}", ROWS[i].3)))["serving"]["tpot_ms"]["p50"])
        };
        let t = tpot(tp4) / tpot(tp2);
        assert!(t < 0.90, "{}: tpsim TP 4 / TP 2 {t:.3}", ROWS[tp4].4);
    }
}

#[test]
fn every_deploys34_row_is_compared() {
    // Eighteen rows: Llama-8B and Qwen-7B on 2 and 4 GPUs at 1 req/s (4); the same and Qwen-14B on 2, 4
    // and 8 GPUs at 4 and at 32 req/s (7 + 7). The tests above compare each once.
    assert_eq!(ROWS.len(), 18);
    assert_eq!(
        throughput_rows_per_source(DEPLOYS34_SOURCES),
        [2, 2, 2, 2, 3, 2, 2, 3]
    );
}
