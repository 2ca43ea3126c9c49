//! deploys28 (issue #18): new out-of-sample deployment rows of 2026 models with pinned engine releases —
//! cloudrift's deplodock experiments serving nvidia/Kimi-K2.5-NVFP4 on B200 boxes under vLLM and SGLang,
//! which newdeploys19 (the same repository's Qwen3-Coder sweeps on one RTX 5090 / RTX PRO 6000) did not
//! take. Source: github.com/cloudrift-ai/deplodock, read at commit ef84dbe; each file holds the benchmark
//! task, vLLM's "Serving Benchmark Result" block, the docker compose launch and the system information:
//!
//! - `experiments/Kimi-K2.5/baseline_b200/2026-03-13_19-40-32_c599125b/`: one engine on 8× B200 at TP 8,
//!   `vllm/vllm-openai:v0.17.0` and `lmsysorg/sglang:v0.5.9` (pinned image tags), `vllm bench serve
//!   --max-concurrency 1 --num-prompts 4 --random-input-len 8000 --random-output-len 8000`;
//! - `experiments/Kimi-K2.5/optimal_mcr_vllm_b200/2026-03-11_21-45-58_c599125b/b200x8_mc8_np40_mcr8…`: the
//!   same vLLM 0.17.0 engine with `--max-num-seqs 8`, 8 in flight, 40 prompts of 8000/8000;
//! - `experiments/Kimi-K2.5-NVFP4/baseline/2026-03-06_18-47-45_bbafd46d/b200x4_vllm_benchmark.txt`: TP 4 on
//!   four B200, `vllm/vllm-openai:latest` (taken as vLLM 0.16.0, as newdeploys19: 0.17.0 was published on
//!   2026-03-07), `--max-num-seqs 32`, 32 in flight, 80 prompts of 4000/4000;
//! - `experiments/Kimi-K2.5-NVFP4/baseline_sglang/2026-03-09_06-38-55_e571e532/b200x4_sglang_benchmark.txt`:
//!   TP 4 on four B200, SGLang 0.5.9, `--max-running-requests 32 --quantization modelopt`, 16 in flight, 32
//!   prompts of 8000/8000.
//!
//! vLLM's random dataset at its default range ratio 0.0 makes every prompt and output exactly the stated
//! length (the files' token totals confirm it: 4 × 8000 = 32,000 and so on). Each run is a scenario
//! (`scenarios/validation/kimi-k2.5-nvfp4-b200x*.toml`, assumptions listed there: the box is
//! `hardware/b200-8x-nvlink`, the files give no topology matrix) compared with the **default (uncalibrated)
//! profile**: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT, held to
//! [`TARGET`](crate::throughput_rows::TARGET) or listed in [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES).
//! The measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! The vLLM and SGLang runs of the 2026-03-13 baseline share the box, the checkpoint and the workload: the
//! file's SGLang 0.5.9 step (11.80 ms) is 1.74× its vLLM 0.17.0 step (6.77 ms), where tpsim's SGLang step
//! (5.86 ms) is 0.97× its vLLM one (6.04 ms). The three vLLM rows are within ±20 %; the two SGLang rows are
//! known misses in the class of the SGLang-on-SM 10.0 gap (book/src/validation.md, "The B200 step under
//! SGLang"), here at about 99 µs a MoE layer at c 1.
//!
//! Searched this round and not taken: vllm pull request 42497 (MiniMax-M2.7 on 4× H800 and 4× H200: the
//! stored excerpts do not say which GPU and which arm each printed block is); sglang issue 18870 (only its
//! opening is stored, as newdeploys11 found); the same repository's `Qwen/Qwen3.5-397B-A17B-FP8/optimal_ctx_
//! pro6000` runs (SGLang `dev-cu13`, no release; the logs hold no result block) and `Qwen3.5-122B-A10B-FP8`
//! (no preset); its Kimi-K2.5 MI350X runs (no MI350X preset); the NVFP4 discussion 7 of
//! nvidia/Qwen3.5-397B-A17B-NVFP4 on 4× RTX PRO 6000 (refused before: no benchmark command); sglang pull
//! request 11125 (Llama-3.3-70B TP 2 under an auto-tune tool: the GPU is not named in the stored text).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_deploys28_row_is_compared`] fails if a row of these sources is
//! added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS28_SOURCES: &[(&str, &str)] = &[(SRC, "Kimi-K2.5")];

/// The prefix of every row's source: the two experiment folders `Kimi-K2.5/` and `Kimi-K2.5-NVFP4/`.
const SRC: &str = "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5";

/// The rows: (source prefix, notes prefix, the file's median TPOT in ms, scenario file, label).
const ROWS: &[(&str, &str, f64, &str, &str)] = &[
    (
        "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5/baseline_b200/2026-03-13_19-40-32_c599125b, b200x8_vi-vllm",
        "8x B200 TP 8 random 8000/8000 c 1:",
        6.77,
        "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c1.toml",
        "Kimi-K2.5 NVFP4, vLLM 0.17.0, 8× B200 TP 8, random 8k/8k c 1 (per-stream TPOT)",
    ),
    (
        "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5/baseline_b200/2026-03-13_19-40-32_c599125b, b200x8_si-lms-sglang",
        "8x B200 TP 8 random 8000/8000 c 1:",
        11.80,
        "kimi-k2.5-nvfp4-b200x8-sglang-0.5.9-tp8-8k8k-c1.toml",
        "Kimi-K2.5 NVFP4, SGLang 0.5.9, 8× B200 TP 8, random 8k/8k c 1 (per-stream TPOT)",
    ),
    (
        "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5/optimal_mcr_vllm_b200/",
        "8x B200 TP 8 random 8000/8000 c 8:",
        9.14,
        "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c8.toml",
        "Kimi-K2.5 NVFP4, vLLM 0.17.0, 8× B200 TP 8, random 8k/8k c 8 (per-stream TPOT)",
    ),
    (
        "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5-NVFP4/baseline/",
        "4x B200 TP 4 random 4000/4000 c 32:",
        19.45,
        "kimi-k2.5-nvfp4-b200x4-vllm-0.16-tp4-4k4k-c32.toml",
        "Kimi-K2.5 NVFP4, vLLM 0.16.0 (latest, assumed), 4× B200 TP 4, random 4k/4k c 32 (per-stream TPOT)",
    ),
    (
        "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5-NVFP4/baseline_sglang/",
        "4x B200 TP 4 random 8000/8000 c 16:",
        25.80,
        "kimi-k2.5-nvfp4-b200x4-sglang-0.5.9-tp4-8k8k-c16.toml",
        "Kimi-K2.5 NVFP4, SGLang 0.5.9, 4× B200 TP 4, random 8k/8k c 16 (per-stream TPOT)",
    ),
];

/// Row `i` of [`ROWS`]: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT.
fn row(i: usize) {
    let (src, note, tpot_ms, file, label) = ROWS[i];
    compare_tpot_row((src, "Kimi-K2.5", note), tpot_ms, file, label);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c1() {
    // "Median TPOT (ms): 6.77" (mean 6.77): 1000 ÷ 6.77 = 147.71 tok/s a stream; the file's output rate,
    // 32,000 tokens in 217.25 s = 147.30 tok/s, agrees (one stream at a time, TTFT 0.19 s of each 54 s).
    assert!((32_000.0_f64 / 217.25 - 147.30).abs() < 0.005);
    row(0);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x8_sglang_0_5_9_tp8_c1() {
    // "Median TPOT (ms): 11.80": 1000 ÷ 11.80 = 84.75 tok/s; 32,000 tokens in 379.24 s = 84.38 tok/s.
    assert!((32_000.0_f64 / 379.24 - 84.38).abs() < 0.005);
    row(1);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c8() {
    // "Median TPOT (ms): 9.14": 1000 ÷ 9.14 = 109.41 tok/s a stream; 8 streams would emit 875.3 tok/s,
    // the file's output rate is 320,000 ÷ 369.28 = 866.55 (prefills of 8000 tokens between the steps).
    assert!((320_000.0_f64 / 369.28 - 866.55).abs() < 0.005);
    row(2);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x4_vllm_0_16_tp4_c32() {
    // "Median TPOT (ms): 19.45" (mean 18.44): 1000 ÷ 19.45 = 51.41 tok/s a stream.
    assert!((320_000.0_f64 / 215.72 - 1483.40).abs() < 0.005);
    row(3);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x4_sglang_0_5_9_tp4_c16() {
    // "Median TPOT (ms): 25.80" (mean 25.81): 1000 ÷ 25.80 = 38.76 tok/s a stream; 256,000 tokens in
    // 420.53 s = 608.756 tok/s, the file's 608.75: the duration is printed to 0.01 s, so the rate it
    // implies spans 256,000 ÷ 420.535 = 608.748 to 256,000 ÷ 420.525 = 608.763 (± 0.0075).
    assert!((256_000.0_f64 / 420.53 - 608.75).abs() < 0.0075);
    row(4);
}

#[test]
fn scenarios_are_the_files_runs() {
    // (scenario, engine and release, tp, in flight, prompts, prompt = output length, max_num_seqs /
    //  max_running_requests (0: not on the command line)), from each file's compose and bench command.
    let cases: &[(&str, &str, u64, u64, u64, u64, u64)] = &[
        (
            ROWS[0].3,
            "name = \"vllm\"\nversion = \"0.17.0\"",
            8,
            1,
            4,
            8000,
            0,
        ),
        (
            ROWS[1].3,
            "name = \"sglang\"\nversion = \"0.5.9\"",
            8,
            1,
            4,
            8000,
            0,
        ),
        (
            ROWS[2].3,
            "name = \"vllm\"\nversion = \"0.17.0\"",
            8,
            8,
            40,
            8000,
            8,
        ),
        (
            ROWS[3].3,
            "name = \"vllm\"\nversion = \"0.16.0\"",
            4,
            32,
            80,
            4000,
            32,
        ),
        (
            ROWS[4].3,
            "name = \"sglang\"\nversion = \"0.5.9\"",
            4,
            16,
            32,
            8000,
            32,
        ),
    ];
    for &(file, engine, tp, c, n, len, cap) in cases {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert!(text.contains(engine), "{file}");
        assert!(text.contains("\npreset = \"kimi-k2.5-nvfp4\"\n"), "{file}");
        assert!(text.contains("\npreset = \"b200-8x-nvlink\"\n"), "{file}");
        assert_eq!(scenario_int_key(&text, "tp"), tp, "{file}");
        assert_eq!(scenario_int_key(&text, "concurrency"), c, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), n, "{file}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), len, "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), len, "{file}");
        let key = if engine.contains("vllm") {
            assert!(text.contains("\ngpu_memory_utilization = 0.9\n"), "{file}");
            assert_eq!(scenario_int_key(&text, "max_model_len"), 262_144, "{file}");
            "max_num_seqs"
        } else {
            assert!(text.contains("\nmem_fraction_static = 0.9\n"), "{file}");
            assert_eq!(scenario_int_key(&text, "context_length"), 262_144, "{file}");
            "max_running_requests"
        };
        if cap > 0 {
            assert_eq!(scenario_int_key(&text, key), cap, "{file}");
        } else {
            assert!(!text.contains(&format!("\n{key} = ")), "{file}");
        }
    }
}

#[test]
fn rows_carry_the_files_tp_and_concurrency() {
    // The tsv's tp and batch_or_concurrency columns are the compose's --tensor-parallel-size / --tp and the
    // bench command's --max-concurrency of each file.
    let expect: [(u64, u64); 5] = [(8, 1), (8, 1), (8, 8), (4, 32), (4, 16)];
    for (&(src, note, _, file, _), (tp, c)) in ROWS.iter().zip(expect) {
        let r = throughput_row(src, "Kimi-K2.5", note);
        assert_eq!((r.tp, r.concurrency), (tp, c), "{file}");
    }
}

#[test]
fn every_deploys28_row_is_compared() {
    // Five rows of one model from two deplodock experiment folders; the tests above compare each once.
    assert_eq!(ROWS.len(), 5);
    assert_eq!(throughput_rows_per_source(DEPLOYS28_SOURCES), [5]);
}
