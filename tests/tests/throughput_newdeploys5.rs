//! Fifth round of new deployments (newdeploys5): decode-throughput rows of cloudrift-ai/server-benchmark
//! — Llama 3.3 70B AWQ INT4 under vLLM on GeForce RTX 4090 / 5090 boxes of two and four cards and on one
//! RTX PRO 6000 Blackwell Workstation Edition — each written as the source's compose file launches it
//! (`scenarios/validation/llama-3.3-70b-awq-*.toml`), compared with the **default (uncalibrated)
//! profile** against the same target and known-miss list as `tests/tests/throughput_rows.rs`
//! ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: cloudrift-ai/server-benchmark at commit f8e34f1, directory
//! `results/rtx4900_rtx5900_pro6000_08_10_2025/`, the `*_Meta-Llama-3.3-70B-Instruct-AWQ-INT4_vllm_benchmark.txt`
//! files (collected 2025-10-08/09; the benchmark of https://www.cloudrift.ai/blog/benchmarking-rtx-gpus-for-llm-inference).
//! Each file holds vLLM's "Serving Benchmark Result" block, the docker compose file that launched the
//! engines (`vllm/vllm-openai:latest`, `--gpu-memory-utilization=0.9`) and the benchmark command
//! (`vllm bench serve`, random 1000/1000, `--ignore-eos`, 1,200 prompts); its `system_info.txt`
//! sibling names the GPUs (nvidia-smi) and the host (a KVM guest). "Output token throughput" is compared
//! with tpsim's end-to-end output rate. The multi-GPU rows split the model by pipeline parallelism
//! (`--pipeline-parallel-size 2`, tp 1), on four cards as two such engines behind nginx.
//!
//! Not taken: the same directory's Qwen3-Coder-30B-A3B AWQ and GLM-4.5-Air AWQ rows (no preset of those
//! checkpoints; the MoE AWQ kernel vLLM takes on SM 8.9 / 12.0 is not established here) and its
//! 2× L40S Llama row (979 of 1,200 requests succeeded: the run failed part-way).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows.
//! [`every_newdeploys5_row_is_compared`] fails if a row of this source is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS5_SOURCES: &[(&str, &str)] = &[(
    "github.com/cloudrift-ai/server-benchmark results/rtx4900_rtx5900_pro6000_08_10_2025",
    "Llama-3.3-70B-Instruct",
)];

/// Runs `validation/llama-3.3-70b-awq-{name}.toml`.
fn run(name: &str) -> serde_json::Value {
    run_json(&scenario(&format!("validation/llama-3.3-70b-awq-{name}.toml")))
}

/// The measured `output_tok_s` of the one row whose notes start with `note`.
fn measured_of(note: &str) -> f64 {
    let (src, model) = NEWDEPLOYS5_SOURCES[0];
    measured_throughput(src, model, |n| n.starts_with(note))
}

/// Compares one row: the measured value (checked against the figure the source prints) and tpsim's
/// end-to-end output rate of `validation/llama-3.3-70b-awq-{file}.toml`.
fn compare(label: &str, note: &str, printed: f64, file: &str) {
    let m = measured_of(note);
    assert!((m - printed).abs() < 1e-9, "{label}: {m}");
    let v = run(file);
    validate(label, (m, m), f(&v["throughput"]["e2e_output_tok_s"]));
}

#[test]
pub(crate) fn validation_llama33_70b_awq_rtx5090x2_vllm_pp2() {
    // rtx5090_x_2: "Output token throughput (tok/s): 615.91" at 400 in flight.
    compare(
        "Llama 3.3 70B AWQ, vLLM 0.11, 2x RTX 5090 PP 2, c 400, 1k/1k",
        "2x RTX 5090 PP 2 conc 400:",
        615.91,
        "rtx5090x2-vllm-0.11-pp2-c400",
    );
}

#[test]
pub(crate) fn validation_llama33_70b_awq_rtx4090x2_vllm_pp2() {
    // rtx4090_x_2: "Output token throughput (tok/s): 233.95" at 400 in flight.
    compare(
        "Llama 3.3 70B AWQ, vLLM 0.11, 2x RTX 4090 PP 2, c 400, 1k/1k",
        "2x RTX 4090 PP 2 conc 400:",
        233.95,
        "rtx4090x2-vllm-0.11-pp2-c400",
    );
}

#[test]
pub(crate) fn validation_llama33_70b_awq_rtx5090x4_vllm_2x_pp2() {
    // rtx5090_x_4: "Output token throughput (tok/s): 1223.42" at 400 in flight over two engines.
    compare(
        "Llama 3.3 70B AWQ, vLLM 0.11, 4x RTX 5090 2 x PP 2, c 400, 1k/1k",
        "4x RTX 5090 2 x PP 2 conc 400:",
        1223.42,
        "rtx5090x4-vllm-0.11-pp2-dp2-c400",
    );
}

#[test]
pub(crate) fn validation_llama33_70b_awq_rtx4090x4_vllm_2x_pp2() {
    // rtx4090_x_4: "Output token throughput (tok/s): 449.26" at 200 in flight over two engines.
    compare(
        "Llama 3.3 70B AWQ, vLLM 0.11, 4x RTX 4090 2 x PP 2, c 200, 1k/1k",
        "4x RTX 4090 2 x PP 2 conc 200:",
        449.26,
        "rtx4090x4-vllm-0.11-pp2-dp2-c200",
    );
}

#[test]
pub(crate) fn validation_llama33_70b_awq_pro6000_vllm_tp1() {
    // pro6000_x_1: "Output token throughput (tok/s): 516.09" at 400 in flight on one card.
    compare(
        "Llama 3.3 70B AWQ, vLLM 0.11, 1x RTX PRO 6000 TP 1, c 400, 1k/1k",
        "1x RTX PRO 6000 TP 1 conc 400:",
        516.09,
        "pro6000-vllm-0.11-tp1-c400",
    );
}

#[test]
fn every_newdeploys5_row_is_compared() {
    // Five rows of the directory; the tests above compare each once.
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS5_SOURCES), [5]);
}
