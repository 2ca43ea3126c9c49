//! deploys25 (issue #18): new out-of-sample deployment rows from a source independent of cloudrift —
//! github.com/dennislee22/vLLM-benchmarking (README.md and `log/`, read at commit b474d1e, 2025-09-13): vLLM
//! 0.10.1.1 (every startup log: "vLLM API server version 0.10.1.1") serving Qwen2-7B-Instruct, Qwen2.5-32B
//! and Qwen2-72B in bf16 on A100 80GB GPUs under Cloudera AI pods, measured with vLLM's
//! `benchmarks/benchmark_serving.py --dataset-name random --random-input-len 1024 --random-output-len 1024`
//! and `--num-prompts` 1 or 10 (no `--max-concurrency`: all prompts at once). Each run is written as a
//! scenario (`scenarios/validation/qwen2*-a100*-vllm-0.10.1-*.toml`, assumptions listed there) and compared
//! with the **default (uncalibrated) profile** against [`TARGET`](crate::throughput_rows::TARGET) and
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! **What is compared**: 1000 ÷ the README's median TPOT (the per-stream decode step) against 1000 ÷ tpsim's
//! median TPOT. Rows taken: "Test 2" (7B, two GPUs of one node, TP 2, `--gpu-memory-utilization 0.25`, 1, 10
//! and 50 prompts), "Test 4" (7B, one GPU, `--gpu-memory-utilization 0.25`, 1 prompt), "Test 6"
//! (32B, two GPUs of one node, TP 2, 1 and 10 prompts), "Test 7" (32B, one GPU, 10 prompts), "Test 8"
//! (72B, two GPUs of one node, TP 2, 1 and 10 prompts).
//!
//! **Assumed** (the source does not say): the A100's form factor. The two-GPU same-node log warns "Custom
//! allreduce is disabled because your platform lacks GPU P2P capability", so the GPUs share no P2P path;
//! `hardware/a100-pcie-80gb-2x-cross-socket.toml` (no NVLink, NCCL over SHM) is taken. Qwen2-7B-Instruct and
//! Qwen2-72B run as the `qwen2.5-7b` and `qwen2.5-72b` presets: Qwen2 and Qwen2.5 share these shapes (the
//! Qwen2 technical report, arXiv 2407.10671, Table 1: 7B 28 layers, 3,584 hidden, 28 / 4 heads, 18,944
//! intermediate; 72B 80 layers, 8,192 hidden, 64 / 8 heads, 29,568 intermediate; vocabulary 151,646 padded
//! to 152,064 in both configs), and the 7B log's "Model loading took 14.2488 GiB" is the preset's
//! weights (checked below). The 32B / 72B runs show no launch line and no log: `max_model_len` is 16384 as
//! every log of the repository, and `gpu_memory_utilization` is read off each section title's KV memory
//! a GPU ("Available KV cache memory in each GPU: 8.22 GiB" for the 32B at TP 2 rules out vLLM's default
//! 0.9, which leaves about 40 GiB: 0.5, the repository's other two-GPU setting, is taken; the 72B's 67.7 GiB
//! of weights a rank do not fit under 0.9 at all: 0.95; the 32B on one GPU keeps 0.9), never off a
//! throughput.
//!
//! Not taken: "Test 1" and "Test 9" (two / four pods on different nodes: TP over the pods' network, no
//! preset), the bursts of 50-2000 prompts (the KV pool, and with it the queue, follows the launch line's
//! `--gpu-memory-utilization`, known only for the 7B runs; left for a next round), Test 2's other runs (20,
//! 30, 75-1000 prompts and other lengths) and "Test 3" (7B TP 2 bursts of 500-2000 at 0.5), and the 7B one-GPU rows at 0.5 (Test 5: the same step as Test 4's at
//! one prompt, 11.75 against 11.76 ms). Searched this round and not taken: ure.us's "Local LLM Bench" series
//! (Qwen3-Coder-30B-A3B AWQ and a dense 32B on 1-2 RTX 3090 with and without NVLink: the stored text names
//! no engine release and no prompt or output lengths); arXiv 2512.23029 (llama.cpp); the
//! ollama.linkworksinc.com 4× RTX 3090 post (Gemma-4-31B AWQ: no preset).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_deploys25_row_is_compared`] fails if a row of this source is
//! added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS25_SOURCES: &[(&str, &str)] = &[
    (SRC, "Qwen2-7B-Instruct"),
    (SRC, "Qwen2.5-32B"),
    (SRC, "Qwen2-72B"),
];

const SRC: &str = "github.com/dennislee22/vLLM-benchmarking README.md (commit b474d1e";

/// The rows: (model, notes prefix, the README's median TPOT in ms, scenario file, label).
const ROWS: &[(&str, &str, f64, &str, &str)] = &[
    (
        "Qwen2-7B-Instruct",
        "Test 4 TP 1 c 1:",
        11.76,
        "qwen2-7b-a100-vllm-0.10.1-tp1-c1.toml",
        "Qwen2-7B-Instruct bf16, vLLM 0.10.1.1, 1× A100 80GB (PCIe assumed) TP 1, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        "Qwen2-7B-Instruct",
        "Test 2 TP 2 c 1:",
        8.82,
        "qwen2-7b-a100x2-vllm-0.10.1-tp2-c1.toml",
        "Qwen2-7B-Instruct bf16, vLLM 0.10.1.1, 2× A100 80GB (PCIe assumed) TP 2 (no P2P), random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        "Qwen2-7B-Instruct",
        "Test 2 TP 2 c 10:",
        12.96,
        "qwen2-7b-a100x2-vllm-0.10.1-tp2-c10.toml",
        "Qwen2-7B-Instruct bf16, vLLM 0.10.1.1, 2× A100 80GB (PCIe assumed) TP 2 (no P2P), random 1k/1k c 10 (per-stream TPOT)",
    ),
    (
        "Qwen2-7B-Instruct",
        "Test 2 TP 2 c 50:",
        19.33,
        "qwen2-7b-a100x2-vllm-0.10.1-tp2-c50.toml",
        "Qwen2-7B-Instruct bf16, vLLM 0.10.1.1, 2× A100 80GB (PCIe assumed) TP 2 (no P2P), random 1k/1k c 50 (per-stream TPOT)",
    ),
    (
        "Qwen2.5-32B",
        "Test 6 TP 2 c 1:",
        29.21,
        "qwen2.5-32b-a100x2-vllm-0.10.1-tp2-c1.toml",
        "Qwen2.5-32B bf16, vLLM 0.10.1.1, 2× A100 80GB (PCIe assumed) TP 2 (no P2P), random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        "Qwen2.5-32B",
        "Test 6 TP 2 c 10:",
        39.27,
        "qwen2.5-32b-a100x2-vllm-0.10.1-tp2-c10.toml",
        "Qwen2.5-32B bf16, vLLM 0.10.1.1, 2× A100 80GB (PCIe assumed) TP 2 (no P2P), random 1k/1k c 10 (per-stream TPOT)",
    ),
    (
        "Qwen2.5-32B",
        "Test 7 TP 1 c 10:",
        51.48,
        "qwen2.5-32b-a100-vllm-0.10.1-tp1-c10.toml",
        "Qwen2.5-32B bf16, vLLM 0.10.1.1, 1× A100 80GB (PCIe assumed) TP 1, random 1k/1k c 10 (per-stream TPOT)",
    ),
    (
        "Qwen2-72B",
        "Test 8 TP 2 c 1:",
        58.00,
        "qwen2-72b-a100x2-vllm-0.10.1-tp2-c1.toml",
        "Qwen2-72B bf16, vLLM 0.10.1.1, 2× A100 80GB (PCIe assumed) TP 2 (no P2P), random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        "Qwen2-72B",
        "Test 8 TP 2 c 10:",
        72.93,
        "qwen2-72b-a100x2-vllm-0.10.1-tp2-c10.toml",
        "Qwen2-72B bf16, vLLM 0.10.1.1, 2× A100 80GB (PCIe assumed) TP 2 (no P2P), random 1k/1k c 10 (per-stream TPOT)",
    ),
];

/// Row `i` of [`ROWS`]: 1000 ÷ the README's median TPOT against 1000 ÷ tpsim's.
fn row(i: usize) {
    let (model, note, tpot, file, label) = ROWS[i];
    compare_tpot_row((SRC, model, note), tpot, file, label);
}

#[test]
pub(crate) fn validation_qwen2_7b_a100_vllm_0_10_1_tp1_c1() {
    // "Median TPOT (ms): 11.76" (Test 4, 1 prompt): 1000 ÷ 11.76 = 85.03 tok/s.
    row(0);
}

#[test]
pub(crate) fn validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c1() {
    // "Median TPOT (ms): 8.82" (Test 2, 1 prompt): 1000 ÷ 8.82 = 113.38 tok/s.
    row(1);
}

#[test]
pub(crate) fn validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c10() {
    // "Median TPOT (ms): 12.96" (Test 2, 10 prompts): 1000 ÷ 12.96 = 77.16 tok/s.
    row(2);
}

#[test]
pub(crate) fn validation_qwen2_7b_a100x2_vllm_0_10_1_tp2_c50() {
    // "Median TPOT (ms): 19.33" (Test 2, 50 prompts): 1000 ÷ 19.33 = 51.73 tok/s.
    row(3);
}

#[test]
pub(crate) fn validation_qwen2_5_32b_a100x2_vllm_0_10_1_tp2_c1() {
    // "Median TPOT (ms): 29.21" (Test 6, 1 prompt): 1000 ÷ 29.21 = 34.23 tok/s.
    row(4);
}

#[test]
pub(crate) fn validation_qwen2_5_32b_a100x2_vllm_0_10_1_tp2_c10() {
    // "Median TPOT (ms): 39.27" (Test 6, 10 prompts): 1000 ÷ 39.27 = 25.46 tok/s.
    row(5);
}

#[test]
pub(crate) fn validation_qwen2_5_32b_a100_vllm_0_10_1_tp1_c10() {
    // "Median TPOT (ms): 51.48" (Test 7, 10 prompts): 1000 ÷ 51.48 = 19.43 tok/s.
    row(6);
}

#[test]
pub(crate) fn validation_qwen2_72b_a100x2_vllm_0_10_1_tp2_c1() {
    // "Median TPOT (ms): 58.00" (Test 8, 1 prompt): 1000 ÷ 58.00 = 17.24 tok/s.
    row(7);
}

#[test]
pub(crate) fn validation_qwen2_72b_a100x2_vllm_0_10_1_tp2_c10() {
    // "Median TPOT (ms): 72.93" (Test 8, 10 prompts): 1000 ÷ 72.93 = 13.71 tok/s.
    row(8);
}

#[test]
fn scenarios_are_the_readmes_runs() {
    // Each scenario: the row's TP, all prompts in flight at once (concurrency = num_requests = the
    // --num-prompts), 1024 in / 1024 out, vLLM 0.10.1.1, the A100 box, max_model_len 16384.
    for &(model, note, _, file, _) in ROWS {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        let r = throughput_row(SRC, model, note);
        assert_eq!(scenario_int_key(&text, "tp"), r.tp, "{file}");
        assert_eq!(scenario_int_key(&text, "concurrency"), r.concurrency, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), r.concurrency, "{file}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), 1024, "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), 1024, "{file}");
        assert_eq!(scenario_int_key(&text, "max_model_len"), 16384, "{file}");
        assert!(
            text.contains("\nname = \"vllm\"\nversion = \"0.10.1.1\""),
            "{file}"
        );
        assert!(
            text.contains("\npreset = \"a100-pcie-80gb-2x-cross-socket\"\n"),
            "{file}"
        );
        // gpu_memory_utilization: the 7B logs' 0.25 (one GPU and two); the 32B TP 2 and 72B runs' settings follow the section
        // titles' KV memory (0.5 and 0.95, derived in the scenarios); the 32B TP 1 run keeps vLLM's 0.9.
        let gmu = match (model, r.tp) {
            ("Qwen2-7B-Instruct", _) => Some("0.25"),
            ("Qwen2.5-32B", 2) => Some("0.5"),
            ("Qwen2-72B", _) => Some("0.95"),
            _ => None,
        };
        let line = text.lines().find(|l| l.starts_with("gpu_memory_utilization = "));
        assert_eq!(
            line.map(|l| l.trim_start_matches("gpu_memory_utilization = ")),
            gmu,
            "{file}"
        );
    }
}

#[test]
fn qwen2_7b_runs_as_the_qwen2_5_7b_preset() {
    // Qwen2-7B-Instruct's weights as vLLM 0.10.1.1 loads them: "Model loading took 14.2488 GiB" (one GPU,
    // log/vllm-7B-1gpuA10080GB-0.25GRAM.log). The qwen2.5-7b preset's bf16 parameters: embedding and
    // lm_head 2 × 152,064 × 3,584 = 1,089,994,752; a layer's q and o 2 × 3,584 × 3,584, k and v
    // 2 × 3,584 × 512, the q/k/v biases 3,584 + 2 × 512, the MLP 3 × 3,584 × 18,944 = 203,685,888, two
    // norms 2 × 3,584: 233,057,792 a layer × 28 = 6,525,618,176; + the final norm 3,584 = 7,615,616,512
    // parameters × 2 B = 15,231,233,024 B = 14.185 GiB, the floor of the load. tpsim's load must be the
    // log's within 0.1 % (another shape — Qwen2-7B with a different vocabulary or MLP — moves it by more).
    let v = run_json(&scenario("validation/qwen2-7b-a100-vllm-0.10.1-tp1-c1.toml"));
    let gib = entry_bytes(&v, "target weights") as f64 / (1u64 << 30) as f64;
    assert!(gib >= 15_231_233_024.0 / (1u64 << 30) as f64, "weights {gib} GiB");
    assert!((gib / 14.2488 - 1.0).abs() < 0.001, "weights {gib} GiB");
}

#[test]
fn every_deploys25_row_is_compared() {
    // Nine rows (four 7B, three 32B, two 72B); the tests above compare each once.
    assert_eq!(ROWS.len(), 9);
    assert_eq!(throughput_rows_per_source(DEPLOYS25_SOURCES), [4, 3, 2]);
}
