//! deploys28 (issue #18): new out-of-sample deployment rows of 2026 models with pinned engine releases, from
//! two sources independent of each other.
//!
//! **1. cloudrift's deplodock experiments** serving nvidia/Kimi-K2.5-NVFP4 on B200 boxes under vLLM and
//! SGLang, which newdeploys19 (the same repository's Qwen3-Coder sweeps on one RTX 5090 / RTX PRO 6000) did
//! not take. Source: github.com/cloudrift-ai/deplodock, read at commit ef84dbe; each file holds the benchmark
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
//! length (the files' token totals confirm it: 4 × 8000 = 32,000 and so on). The row is 1000 ÷ the file's
//! median TPOT against 1000 ÷ tpsim's median TPOT. The vLLM and SGLang runs of the 2026-03-13 baseline share
//! the box, the checkpoint and the workload: the file's SGLang 0.5.9 step (11.80 ms) is 1.74× its vLLM
//! 0.17.0 step (6.77 ms), where tpsim's SGLang step (5.86 ms) is 0.97× its vLLM one (6.04 ms). The three
//! vLLM rows are within ±20 %; the two SGLang rows are known misses in the class of the SGLang-on-SM 10.0 gap
//! (book/src/validation.md, "The B200 step under SGLang"), here about 99 µs a MoE layer at c 1.
//!
//! **2. sgl-project/sglang pull request 31044** ("benchmark: MI300X FP8 speed + accuracy data for
//! MiniMax-M2.7", 2026-07-13): MiniMaxAI/MiniMax-M2.7 FP8 on AMD MI300X under SGLang 0.5.13.post1 (docker
//! `lmsysorg/sglang:v0.5.13.post1-rocm720-mi30x`), `--tp N --ep N --kv-cache-dtype fp8_e4m3 --attention-backend
//! triton --mem-fraction-static 0.85`, `sglang.bench_serving` random 1000/1000 at the cookbook's prompt counts
//! (`docs_new/src/snippets/configs/MiniMaxAI/minimax-m2.7-benchmarks.jsx`, read at 05751c8, holds the same
//! figures). newdeploys8 left this PR for want of a preset; `minimax-m2.7` has been bundled since presets10.
//! The rows taken are TP 2 EP 2 at c 1 and 16 and TP 4 EP 4 at c 64 and 256; the row is 1000 ÷ the table's
//! TPOT (taken as bench_serving's mean TPOT) against 1000 ÷ tpsim's mean TPOT. All four are known misses:
//! tpsim's MI300X step is 0.63-0.71× the table's.
//!
//! Each run is a scenario (`scenarios/validation/kimi-k2.5-nvfp4-b200x*.toml`,
//! `scenarios/validation/minimax-m2.7-mi300x*.toml`, assumptions listed there) compared with the **default
//! (uncalibrated) profile** against [`TARGET`](crate::throughput_rows::TARGET) or listed in
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Searched this round and not taken: vllm pull request 42497 (MiniMax-M2.7 on 4× H800 and 4× H200: the
//! stored excerpts do not say which GPU and which arm each printed block is); sglang issue 18870 (only its
//! opening is stored, as newdeploys11 found); the same repository's `Qwen/Qwen3.5-397B-A17B-FP8/optimal_ctx_
//! pro6000` runs (SGLang `dev-cu13`, no release; the logs hold no result block) and `Qwen3.5-122B-A10B-FP8`
//! (no preset); its Kimi-K2.5 MI350X runs (no MI350X preset); the NVFP4 discussion 7 of
//! nvidia/Qwen3.5-397B-A17B-NVFP4 on 4× RTX PRO 6000 (refused before: no benchmark command); sglang pull
//! request 11125 (Llama-3.3-70B TP 2 under an auto-tune tool: the GPU is not named in the stored text); pull
//! request 31044's TP 8 EP 8 rows (c 1024 and 4096, 2048 and 4096 prompts: a single tpsim run of the c 1024
//! point did not finish in 3.5 minutes of the debug build, too long for a row test; TTFT 3.5 and 18.3 s, a
//! queue); the cookbook's MiniMax-M2.7 GB300 cell (no GB300 preset) and its qwen3.5-benchmarks.jsx (the
//! speed figures were not migrated; what remains is MI300X Qwen3.5-4B, no preset); zmarty.github.io's dual RTX PRO 6000 guide
//! (2025-12-25: launch commands for vLLM 0.12.0, no figures); Gimel12/LLM-backend-benchmark's 2× RTX PRO 6000
//! Server gpt-oss-120b report (vLLM 0.11.0: a chat-window "~200 tokens/second", no benchmark command, prompt
//! or output length).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_deploys28_row_is_compared`] fails if a row of these sources is
//! added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS28_SOURCES: &[(&str, &str)] = &[(SRC, "Kimi-K2.5"), (SRC_31044, "MiniMax-M2.7")];

/// The prefix of every row's source: the two experiment folders `Kimi-K2.5/` and `Kimi-K2.5-NVFP4/`.
const SRC: &str = "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5";

/// The prefix of the MiniMax-M2.7 rows' source: sglang pull request 31044's description.
const SRC_31044: &str = "github.com/sgl-project/sglang pull 31044 (description, 2026-07-13";

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

/// sglang pull request 31044's MI300X rows: (notes prefix, the table's TPOT in ms, scenario file, label).
const MI300X_ROWS: &[(&str, f64, &str, &str)] = &[
    (
        "2x MI300X TP 2 EP 2 random 1000/1000 c 1:",
        14.94,
        "minimax-m2.7-mi300x2-sglang-0.5.13-tp2-ep2-1k1k-c1.toml",
        "MiniMax-M2.7 FP8, SGLang 0.5.13.post1, 2× MI300X TP 2 EP 2, random 1k/1k c 1 (per-stream mean TPOT)",
    ),
    (
        "2x MI300X TP 2 EP 2 random 1000/1000 c 16:",
        31.80,
        "minimax-m2.7-mi300x2-sglang-0.5.13-tp2-ep2-1k1k-c16.toml",
        "MiniMax-M2.7 FP8, SGLang 0.5.13.post1, 2× MI300X TP 2 EP 2, random 1k/1k c 16 (per-stream mean TPOT)",
    ),
    (
        "4x MI300X TP 4 EP 4 random 1000/1000 c 64:",
        42.48,
        "minimax-m2.7-mi300x4-sglang-0.5.13-tp4-ep4-1k1k-c64.toml",
        "MiniMax-M2.7 FP8, SGLang 0.5.13.post1, 4× MI300X TP 4 EP 4, random 1k/1k c 64 (per-stream mean TPOT)",
    ),
    (
        "4x MI300X TP 4 EP 4 random 1000/1000 c 256:",
        71.72,
        "minimax-m2.7-mi300x4-sglang-0.5.13-tp4-ep4-1k1k-c256.toml",
        "MiniMax-M2.7 FP8, SGLang 0.5.13.post1, 4× MI300X TP 4 EP 4, random 1k/1k c 256 (per-stream mean TPOT)",
    ),
];

/// Row `i` of [`MI300X_ROWS`]: 1000 ÷ the table's TPOT (taken as bench_serving's mean TPOT, see the
/// scenarios' headers) against 1000 ÷ tpsim's mean TPOT.
fn mi300x_row(i: usize) {
    let (note, tpot_ms, file, label) = MI300X_ROWS[i];
    // The row holds 1000 ÷ TPOT rounded to 0.01 tok/s (checked within 0.005 by the shared helper).
    compare_mean_tpot_row((SRC_31044, "MiniMax-M2.7", note), tpot_ms, file, label);
}

#[test]
pub(crate) fn validation_minimax_m2_7_mi300x2_sglang_0_5_13_tp2_ep2_c1() {
    // "Low-latency | 2x2 | 1 | 210 | 14.94 | 65 | 33": 1000 ÷ 14.94 = 66.93 tok/s a stream; the table's
    // 65 tok/s (33 a GPU × 2) is the end-to-end rate, TTFT included.
    c1_end_to_end_rate_agrees_with_random_lengths();
    mi300x_row(0);
}

/// The c 1 row's end-to-end rate fits the random lengths the scenarios assume (range ratio 0.0: uniform
/// in 1..=1000, a mean of 500.5 output tokens), not fixed 1000-token outputs: one request at a time takes
/// TTFT + (500.5 − 1) × TPOT = 0.210 + 499.5 × 0.01494 = 7.673 s, 500.5 ÷ 7.673 = 65.2 tok/s, the table's
/// 65; with 1000 tokens it would be 1000 ÷ (0.210 + 999 × 0.01494) = 66.1.
fn c1_end_to_end_rate_agrees_with_random_lengths() {
    let (ttft_s, tpot_s) = (0.210_f64, 0.01494_f64);
    let random = 500.5 / (ttft_s + 499.5 * tpot_s);
    let fixed = 1000.0 / (ttft_s + 999.0 * tpot_s);
    assert!((random - 65.23).abs() < 0.01, "{random}");
    assert!((fixed - 66.07).abs() < 0.01, "{fixed}");
    assert!((random - 65.0).abs() < (fixed - 65.0).abs());
}

#[test]
pub(crate) fn validation_minimax_m2_7_mi300x2_sglang_0_5_13_tp2_ep2_c16() {
    // "Low-latency | 2x2 | 16 | 167 | 31.80 | 486 | 243": 1000 ÷ 31.80 = 31.45 tok/s a stream.
    mi300x_row(1);
}

#[test]
pub(crate) fn validation_minimax_m2_7_mi300x4_sglang_0_5_13_tp4_ep4_c64() {
    // "Balanced | 4x4 | 64 | 419 | 42.48 | 1403 | 351": 1000 ÷ 42.48 = 23.54 tok/s a stream.
    mi300x_row(2);
}

#[test]
pub(crate) fn validation_minimax_m2_7_mi300x4_sglang_0_5_13_tp4_ep4_c256() {
    // "Balanced | 4x4 | 256 | 337 | 71.72 | 3236 | 809": 1000 ÷ 71.72 = 13.94 tok/s a stream.
    mi300x_row(3);
}

#[test]
fn mi300x_scenarios_are_the_prs_runs() {
    // (tp = ep, in flight, prompts): the table's "TP x EP" and concurrency, the jsx's num_prompts.
    let expect: [(u64, u64, u64); 4] = [(2, 1, 64), (2, 16, 256), (4, 64, 512), (4, 256, 1024)];
    for (&(note, _, file, _), (tp, c, n)) in MI300X_ROWS.iter().zip(expect) {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(scenario_int_key(&text, "tp"), tp, "{file}");
        assert_eq!(scenario_int_key(&text, "ep_size"), tp, "{file}");
        assert_eq!(scenario_int_key(&text, "concurrency"), c, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), n, "{file}");
        assert_eq!(random_len(&text, "prompt_len"), Some(1000), "{file}");
        assert_eq!(random_len(&text, "output_len"), Some(1000), "{file}");
        assert!(
            text.contains("\nname = \"sglang\"\nversion = \"0.5.13\""),
            "{file}"
        );
        assert!(text.contains("\npreset = \"minimax-m2.7\"\n"), "{file}");
        assert!(text.contains("\npreset = \"mi300x-8x-xgmi\"\n"), "{file}");
        assert!(text.contains("\nmem_fraction_static = 0.85\n"), "{file}");
        assert!(text.contains("\nattention_backend = \"triton\"\n"), "{file}");
        assert!(text.contains("kv_cache_dtype = \"fp8_e4m3\" }"), "{file}");
        let r = throughput_row(SRC_31044, "MiniMax-M2.7", note);
        assert_eq!((r.tp, r.concurrency), (tp, c), "{file}");
    }
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
    // Five Kimi-K2.5 rows from two deplodock experiment folders, four MiniMax-M2.7 rows of sglang pull
    // request 31044; the tests above compare each once.
    assert_eq!((ROWS.len(), MI300X_ROWS.len()), (5, 4));
    assert_eq!(throughput_rows_per_source(DEPLOYS28_SOURCES), [5, 4]);
}
