//! deploys35 (issue #18): new decode rows on multi-GPU PCIe boxes — the IOG Foundation's 2× H100 PCIe files
//! that newdeploys15 left out (its module doc: "Not taken: the 4 and 32 requests-a-second files").
//!
//! **Source**: github.com/IOG-Foundation/llm-inference-benchmarks at commit 4990a80 (io.net cloud, June 2025),
//! the README (vLLM 0.8.5: `vllm/vllm-openai:v0.8.5`; `vllm serve MODEL --disable-log-requests --dtype float16
//! --tensor-parallel-size N`, N every GPU of the box; `run_benchmark.sh`: 200 ShareGPT prompts at 32, 16, 8, 4
//! and 1 requests a second, Poisson, no maximum concurrency) and the result files
//! `results/vllm_200prompts{4,32}qps_{MODEL}_sharegpt_2xNVIDIA-H100-PCIe.json` (benchmark_serving.py's saved
//! result: totals, duration, output_throughput, TPOT and ITL percentiles). Six rows, every 2-GPU file of
//! those rates: DeepSeek-R1-Distill-Llama-70B and Meta-Llama-3-70B-Instruct in 16 bits and
//! Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic (all as `llama-3.1-70b`) at 4 and 32 req/s. Each scenario
//! is the same box and launch as newdeploys15's 16 req/s scenario of that model
//! (`hardware/h100-pcie-2x-nvlink-bridge`, the 16-bit runs at the assumed `gpu_memory_utilization` 0.95,
//! every other flag at vLLM 0.8.5's default), only the rate and the file's token totals changed; ShareGPT's
//! lengths are their means (the file's totals ÷ 200).
//!
//! **What is compared** (as newdeploys15): 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT,
//! default (uncalibrated) profile, held to [`TARGET`](crate::throughput_rows::TARGET) or listed in
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES) with its decomposition. The figures as run (before
//! the lead re-blesses) are in the tests' comments and in `book/src/validation.md` "New deployments
//! (deploys35)".
//!
//! Searched this round and not taken (pages, issues and code corpora; repositories fetched):
//! cloudrift-ai/server-benchmark at f8e34f1 (its `l40s_x_2_…` files in both result folders are two
//! tensor-parallel-1 replicas behind nginx, `--tensor-parallel-size 1`, not one TP engine, and every other
//! multi-GPU file with a preset is taken); cloudrift-ai/deplodock at 9da9d04 (the same commit deploys34
//! read: the `Qwen3.5-35B-A3B/optimal_ctx_rtx4090` run failed to rent its box, `benchmark.log` "503 Service
//! Unavailable", and `Qwen3.5-397B-A17B-FP8/optimal_*_pro6000` hold recipes only); the IOG repository's
//! other files (every multi-GPU RTX 4090 file is compared by newdeploys14/15 and deploys34); the
//! r/LocalLLaMA 1kkvqti 2× RTX 3090 FP8 and W8A8 TP 2 rows (FP8 and INT8 weights on Ampere, as newdeploys9
//! found); the r/LocalLLaMA 1o387tc RTX 4090 / 5090 post (pipeline parallel and nginx replicas: the
//! server-benchmark files above); vllm pull request 31826 (TP 2 ITL, no box named, as newdeploys23 found)
//! and issue 22479 (2× RTX PRO 6000 TP 2 under 0.10: a start-up failure, no figures); evokernel's 4× L40S
//! "case" (synthesized, its own attestation says so); the ai-hpc.github.io L40S ×12 pages (commands, no
//! results); pavlokhmel.com's TP-vs-DP page (8× H100 SXM in a XE9680: NVSwitch, not PCIe); noonghunna/club-3090's
//! `[bench]` issues 698 and 851 (2× RTX 3090 NVLink, 2× RTX 5090 TP 2 under vLLM 0.25: Qwen3.6 AutoRound INT4
//! checkpoints with FP8 KV and MTP speculation, a single-stream "decode TPS"; no Qwen3.6 preset).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. [`every_deploys35_row_is_compared`]
//! fails if a row of these files is added without a test here.

use crate::common::*;

/// The source prefix of every row (each row's source continues with its result file).
const SRC: &str = "github.com/IOG-Foundation/llm-inference-benchmarks";

/// The (source prefix, model) of the rows of this file, one prefix a rate; newdeploys15's prefixes (the
/// bare repository) also match them, so its per-source counts include these.
pub(crate) const DEPLOYS35_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts4qps_",
        "DeepSeek-R1-Distill-Llama-70B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts4qps_",
        "Meta-Llama-3-70B-Instruct",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts4qps_",
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts32qps_",
        "DeepSeek-R1-Distill-Llama-70B",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts32qps_",
        "Meta-Llama-3-70B-Instruct",
    ),
    (
        "github.com/IOG-Foundation/llm-inference-benchmarks (commit 4990a80), results/vllm_200prompts32qps_",
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
    ),
];

/// The rows: (model, notes prefix, the file's median TPOT in ms, scenario file, label); 4 req/s (0..3),
/// 32 req/s (3..6).
const ROWS: &[iog::IogRow] = &[
    (
        "DeepSeek-R1-Distill-Llama-70B",
        "2x H100 PCIe TP 2 ShareGPT 4 qps:",
        70.19,
        "deepseek-r1-distill-llama-70b-h100pciex2-vllm-0.8.5-tp2-sharegpt-q4.toml",
        "Llama-3.1-70B (DeepSeek-R1-Distill-Llama-70B), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "Meta-Llama-3-70B-Instruct",
        "2x H100 PCIe TP 2 ShareGPT 4 qps:",
        69.83,
        "meta-llama-3-70b-instruct-h100pciex2-vllm-0.8.5-tp2-sharegpt-q4.toml",
        "Llama-3.1-70B (Meta-Llama-3-70B-Instruct), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
        "2x H100 PCIe TP 2 ShareGPT 4 qps:",
        39.92,
        "llama-3.1-nemotron-70b-instruct-hf-fp8-dynamic-h100pciex2-vllm-0.8.5-tp2-sharegpt-q4.toml",
        "Llama-3.1-70B FP8 (Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 4 qps (per-stream TPOT)",
    ),
    (
        "DeepSeek-R1-Distill-Llama-70B",
        "2x H100 PCIe TP 2 ShareGPT 32 qps:",
        82.88,
        "deepseek-r1-distill-llama-70b-h100pciex2-vllm-0.8.5-tp2-sharegpt-q32.toml",
        "Llama-3.1-70B (DeepSeek-R1-Distill-Llama-70B), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "Meta-Llama-3-70B-Instruct",
        "2x H100 PCIe TP 2 ShareGPT 32 qps:",
        96.23,
        "meta-llama-3-70b-instruct-h100pciex2-vllm-0.8.5-tp2-sharegpt-q32.toml",
        "Llama-3.1-70B (Meta-Llama-3-70B-Instruct), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 32 qps (per-stream TPOT)",
    ),
    (
        "Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic",
        "2x H100 PCIe TP 2 ShareGPT 32 qps:",
        67.98,
        "llama-3.1-nemotron-70b-instruct-hf-fp8-dynamic-h100pciex2-vllm-0.8.5-tp2-sharegpt-q32.toml",
        "Llama-3.1-70B FP8 (Llama-3.1-Nemotron-70B-Instruct-HF-FP8-dynamic), vLLM 0.8.5, 2× H100 PCIe TP 2, ShareGPT 32 qps (per-stream TPOT)",
    ),
];

/// Compares rows `range` of [`ROWS`] ([`iog::compare`]).
fn compare(range: std::ops::Range<usize>) {
    for row in &ROWS[range] {
        iog::compare(SRC, row);
    }
}

#[test]
pub(crate) fn validation_iog_h100_pcie_x2_vllm_0_8_5_4qps() {
    // "median_tpot_ms" at 4 requests a second: 70.19 (R1-Distill-Llama-70B), 69.83 (Llama-3-70B), 39.92
    // (Nemotron-70B FP8-dynamic) → 14.25, 14.32, 25.05 tok/s a stream.
    compare(0..3);
}

#[test]
pub(crate) fn validation_iog_h100_pcie_x2_vllm_0_8_5_32qps() {
    // "median_tpot_ms" at 32 requests a second: 82.88, 96.23, 67.98 → 12.07, 10.39, 14.71 tok/s a stream.
    compare(3..6);
}

#[test]
fn scenario_workload_is_the_files_means() {
    iog::workload_is_the_files_means(SRC, ROWS);
}

/// The files' median ITL at 4 req/s, in [`ROWS`] order (`median_itl_ms` of the three 4 req/s result files:
/// 57.42, 56.99, 39.77 ms).
const ITL_4QPS_MS: [f64; 3] = [57.42, 56.99, 39.77];

/// At 4 req/s tpsim forms no queue: no preemption, at most 50 requests running, median TTFT under 100 ms
/// and its median TPOT within 3 % of its median ITL (as run: 0, 46 / 43 / 27, 77-80 / 43 ms, 1.02 / 1.01 /
/// 1.01). So the known-miss reason's split holds: what a file's median TPOT has over its median ITL (12.8,
/// 12.8 and 0.15 ms) is stall time tpsim cannot produce at this load, and the ITL gap (9.1, 9.0, 13.8 ms,
/// held above 5 ms) is its step. The FP8 file's TPOT is its ITL within 1 % (no stalls: the miss is the step
/// alone); the 16-bit files' TPOT is above 1.2× their ITL.
#[test]
fn the_4qps_misses_split_into_step_and_stalls() {
    for (i, row) in ROWS[..3].iter().enumerate() {
        let v = run_json(&scenario(&format!("validation/{}", row.3)));
        let s = &v["serving"];
        let (tpot, itl) = (f(&s["tpot_ms"]["p50"]), f(&s["itl_ms"]["p50"]));
        assert_eq!(s["preemptions"].as_u64(), Some(0), "{}", row.4);
        assert!(s["peak_running"].as_u64().unwrap() <= 50, "{}", row.4);
        assert!(f(&s["ttft_ms"]["p50"]) < 100.0, "{}", row.4);
        assert!(tpot / itl < 1.03, "{}: tpsim TPOT / ITL {:.3}", row.4, tpot / itl);
        assert!(
            ITL_4QPS_MS[i] - itl > 5.0,
            "{}: step gap {:.2} ms",
            row.4,
            ITL_4QPS_MS[i] - itl
        );
        let stall = row.2 / ITL_4QPS_MS[i];
        assert!(
            if i == 2 { stall < 1.01 } else { stall > 1.2 },
            "{}: file TPOT / ITL {stall:.3}",
            row.4
        );
    }
}

#[test]
fn every_deploys35_row_is_compared() {
    // Six rows: three 70B models on 2× H100 PCIe at 4 and at 32 req/s. The tests above compare each once.
    assert_eq!(ROWS.len(), 6);
    assert_eq!(throughput_rows_per_source(DEPLOYS35_SOURCES), [1; 6]);
}
