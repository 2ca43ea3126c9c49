//! Nineteenth round of new deployments (newdeploys19, issues #17/#18): single-GPU PCIe boxes out of sample.
//! cloudrift's deployment tool github.com/cloudrift-ai/deplodock (read at commit 9da9d04) keeps the raw
//! output of its concurrency sweeps under `experiments/`: each file holds the engine's docker-compose
//! launch, the exact `vllm bench serve` command and vLLM's "Serving Benchmark Result" block. Two sweeps are
//! taken, three points each, on boxes tpsim has a preset for:
//!
//! - `Qwen3-Coder-30B-A3B-Instruct-AWQ/optimal_mcr_rtx5090/2026-03-03_02-07-22_417ad7f8` (PR #54, merged
//!   2026-03-02 as 421ffd6c): QuantTrio/Qwen3-Coder-30B-A3B-Instruct-AWQ on one GeForce RTX 5090 (a KVM guest
//!   of an EPYC 7702), `--max-model-len 114688 --max-num-seqs C`, C = 8, 12, 16;
//! - `Qwen3-Coder-Next-FP8/optimal_mcr_pro6000_vllm/2026-03-04_17-31-44_a64f1bc9` (PR #62, 34b13f2a):
//!   Qwen/Qwen3-Coder-Next-FP8 on one RTX PRO 6000 Blackwell Server Edition (EPYC 9B45 host),
//!   `--max-model-len 131072 --max-num-seqs C`, C = 8, 16, 32.
//!
//! - `Qwen3-Coder-30B-A3B-Instruct-AWQ/vllm_vs_sglang_rtx5090/2026-03-03_01-29-37_417ad7f8` (c4a66ac5) and
//!   `Qwen3-Coder-Next-FP8/vllm_vs_sglang_pro6000/2026-03-04_04-31-54_a64f1bc9` (PR #55, 584a7658): their vLLM
//!   arms, the same launches with `--max-model-len 8192 --max-num-seqs 4`, 8 prompts at 4 in flight (the
//!   SGLang arms are not taken: `--quantization moe_wna16`, a method tpsim does not model, and a
//!   `lmsysorg/sglang:dev-cu13` build with CUDA graphs off, no release).
//!
//! All launch `vllm/vllm-openai:latest` with `--gpu-memory-utilization=0.9 --tensor-parallel-size 1` and run
//! `vllm bench serve --max-concurrency C --num-prompts 80 --random-input-len 4000 --random-output-len 4000`
//! (8 prompts in the vLLM-vs-SGLang run)
//! (vLLM's defaults: random dataset, range ratio 0.0, so every prompt and output is exactly 4000 tokens; the
//! files count 4000 input and 4000 output tokens a request). "latest" on 2026-03-03/04 is taken as vLLM 0.16.0
//! (PyPI upload 2026-02-26; 0.17.0 on 2026-03-07, the day after the repository pinned it). Each run is
//! written as launched (`scenarios/validation/qwen3-coder-*-0.16-tp1-4k4k-c*.toml`, assumptions listed there)
//! and compared with the **default (uncalibrated) profile** against [`TARGET`](crate::throughput_rows::TARGET)
//! and [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! **What is compared**: the row is 1000 ÷ the file's median TPOT (the per-stream decode step), tpsim's
//! 1000 ÷ its median TPOT. Three points of each sweep are taken (5090: c 8, 12, 16; Pro 6000: c 8, 16, 32),
//! all with median TTFTs of 0.78 to 0.84 s (no queue); from c 20 (5090) and c 40 (Pro 6000) the median TTFT
//! rises to 1.8–44 s, a queue behind the KV pool whose size under vLLM 0.16 the files do not log.
//!
//! Not taken this round (searched): every `[bench]` issue of github.com/noonghunna/club-3090 that the issues
//! corpus and the repository snapshot (BENCHMARKS.md) hold serves a model no bundled preset describes —
//! Qwen3.6-27B / Qwen3.6-35B-A3B / Qwen3.8-27B (AutoRound INT4, NVFP4, FP8; mostly with MTP), Gemma 4
//! 12B/26B-A4B/31B, Qwen3-4B-Instruct-2507 (issue 697, 1× RTX 4090 fp8), Tess-4, ThinkingCap, Agents-A1 —
//! and its harness (`scripts/bench.sh`) times single 1000/800-token chat streams; issue 46's `nvidia-smi topo
//! -m` is already tests/data/nvidia-smi-topo/club-3090-issue-46.txt. deplodock's other directories:
//! `results/pro6000_l40s_h100_h200_11_2025` and `results/rtx4900_rtx5900_pro6000_08_10_2025` repeat
//! cloudrift-ai/server-benchmark's files (rows of newdeploys5/12/13); the `optimal_ctx_rtx5090` sweep is the
//! same launch at c 8 with other context limits; Kimi-K2.5-NVFP4 on B200 and Qwen3.5-122B/35B are not PCIe boxes or have no preset. joshua8.ai's
//! vLLM 0.15.1 / 0.16.0rc2 RTX 5090 / PRO 6000 Max-Q page (Qwen3-VL-30B-A3B AWQ: no AWQ preset of that
//! model; its own client times whole batches) and the r/LocalLLaMA Qwen3 Coder post (the same sweeps,
//! summarized).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_newdeploys19_row_is_compared`] fails if a row of these sources
//! is added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS19_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/cloudrift-ai/deplodock (commit 9da9d04) experiments/Qwen3-Coder-30B-A3B-Instruct-AWQ/optimal_mcr_rtx5090/2026-03-03_02-07-22_417ad7f8",
        "Qwen3-Coder-30B-A3B",
    ),
    (
        "github.com/cloudrift-ai/deplodock (commit 9da9d04) experiments/Qwen3-Coder-Next-FP8/optimal_mcr_pro6000_vllm/2026-03-04_17-31-44_a64f1bc9",
        "Qwen3-Coder-Next",
    ),
    (
        "github.com/cloudrift-ai/deplodock (commit 9da9d04) experiments/Qwen3-Coder-30B-A3B-Instruct-AWQ/vllm_vs_sglang_rtx5090/2026-03-03_01-29-37_417ad7f8",
        "Qwen3-Coder-30B-A3B",
    ),
    (
        "github.com/cloudrift-ai/deplodock (commit 9da9d04) experiments/Qwen3-Coder-Next-FP8/vllm_vs_sglang_pro6000/2026-03-04_04-31-54_a64f1bc9",
        "Qwen3-Coder-Next",
    ),
];

/// The rows: (index into [`NEWDEPLOYS19_SOURCES`], notes prefix, the file's median TPOT in ms, scenario
/// file, label, the hardware preset the scenario names, the launch's --max-model-len, the client's
/// --num-prompts).
type Row = (
    usize,
    &'static str,
    f64,
    &'static str,
    &'static str,
    &'static str,
    u64,
    u64,
);
const ROWS: &[Row] = &[
    (
        0,
        "1x RTX 5090 TP 1 random 4000/4000 c 8:",
        8.97,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c8.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.16.0 (latest), 1× RTX 5090 TP 1, random 4k/4k c 8 (per-stream TPOT)",
        "rtx-5090-2x-no-p2p",
        114_688,
        80,
    ),
    (
        0,
        "1x RTX 5090 TP 1 random 4000/4000 c 12:",
        12.77,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c12.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.16.0 (latest), 1× RTX 5090 TP 1, random 4k/4k c 12 (per-stream TPOT)",
        "rtx-5090-2x-no-p2p",
        114_688,
        80,
    ),
    (
        0,
        "1x RTX 5090 TP 1 random 4000/4000 c 16:",
        13.57,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c16.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.16.0 (latest), 1× RTX 5090 TP 1, random 4k/4k c 16 (per-stream TPOT)",
        "rtx-5090-2x-no-p2p",
        114_688,
        80,
    ),
    (
        1,
        "1x RTX PRO 6000 Server TP 1 random 4000/4000 c 8:",
        15.96,
        "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c8.toml",
        "Qwen3-Coder-Next FP8, vLLM 0.16.0 (latest), 1× RTX PRO 6000 TP 1, random 4k/4k c 8 (per-stream TPOT)",
        "rtx-pro-6000-2x-turin-same-numa",
        131_072,
        80,
    ),
    (
        1,
        "1x RTX PRO 6000 Server TP 1 random 4000/4000 c 16:",
        19.66,
        "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c16.toml",
        "Qwen3-Coder-Next FP8, vLLM 0.16.0 (latest), 1× RTX PRO 6000 TP 1, random 4k/4k c 16 (per-stream TPOT)",
        "rtx-pro-6000-2x-turin-same-numa",
        131_072,
        80,
    ),
    (
        1,
        "1x RTX PRO 6000 Server TP 1 random 4000/4000 c 32:",
        28.44,
        "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c32.toml",
        "Qwen3-Coder-Next FP8, vLLM 0.16.0 (latest), 1× RTX PRO 6000 TP 1, random 4k/4k c 32 (per-stream TPOT)",
        "rtx-pro-6000-2x-turin-same-numa",
        131_072,
        80,
    ),
    (
        2,
        "1x RTX 5090 TP 1 random 4000/4000 c 4:",
        7.06,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c4-ctx8k.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.16.0 (latest), 1× RTX 5090 TP 1, random 4k/4k c 4, 8k context (per-stream TPOT)",
        "rtx-5090-2x-no-p2p",
        8_192,
        8,
    ),
    (
        3,
        "1x RTX PRO 6000 Server TP 1 random 4000/4000 c 4:",
        13.05,
        "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c4-ctx8k.toml",
        "Qwen3-Coder-Next FP8, vLLM 0.16.0 (latest), 1× RTX PRO 6000 TP 1, random 4k/4k c 4, 8k context (per-stream TPOT)",
        "rtx-pro-6000-2x-turin-same-numa",
        8_192,
        8,
    ),
];

/// Compares row `i` of [`ROWS`]: the measured value (checked against 1000 ÷ the file's median TPOT,
/// rounded to 0.01 tok/s, so within 0.005) and 1000 ÷ tpsim's median TPOT.
fn compare(i: usize) {
    let (s, note, tpot_ms, file, label, _, _, _) = ROWS[i];
    let (src, model) = NEWDEPLOYS19_SOURCES[s];
    compare_tpot_row((src, model, note), tpot_ms, file, label);
}

#[test]
pub(crate) fn validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k() {
    // "Median TPOT (ms)" at 8, 12 and 16 in flight: 8.97, 12.77, 13.57 → 111.48, 78.31, 73.69 tok/s.
    for i in 0..3 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_c4() {
    // The vLLM arm of the vLLM-vs-SGLang run (--max-model-len 8192, 8 prompts at 4 in flight): "Median TPOT
    // (ms): 7.06" → 141.64 tok/s.
    compare(6);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c4() {
    // The vLLM arm of the vLLM-vs-SGLang run (--max-model-len 8192, 8 prompts at 4 in flight): "Median TPOT
    // (ms): 13.05" → 76.63 tok/s.
    compare(7);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k() {
    // "Median TPOT (ms)" at 8, 16 and 32 in flight: 15.96, 19.66, 28.44 → 62.66, 50.86, 35.16 tok/s.
    for i in 3..6 {
        compare(i);
    }
}

#[test]
fn scenarios_are_the_files_runs() {
    // Each scenario is its run: the hardware preset of its row in ROWS (GPU 0 of a 2-GPU preset of the
    // card, as newdeploys13), tp from the row (the compose's --tensor-parallel-size 1), concurrency and
    // max_num_seqs both the row's C (the compose's --max-num-seqs and the client's --max-concurrency), 80
    // requests (--num-prompts 80), fixed 4000-token prompts and outputs (vLLM's random range ratio 0.0),
    // max_model_len the compose's, gpu_memory_utilization 0.9, vLLM 0.16.0 from docker.
    for (s, note, _, file, _, hw, ctx, prompts) in ROWS {
        let (src, model) = NEWDEPLOYS19_SOURCES[*s];
        let row = throughput_row(src, model, note);
        let notes = row.notes.as_str();
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert!(text.contains(&format!("\npreset = \"{hw}\"\n")), "{file}");
        assert!(text.contains("\nversion = \"0.16.0\""), "{file}");
        assert!(text.contains("\ninstall = \"docker\""), "{file}");
        assert!(text.contains("\ngpu_memory_utilization = 0.9\n"), "{file}");
        assert!(notes.contains("--gpu-memory-utilization=0.9 "), "{file}");
        let tp = row.tp;
        assert_eq!(scenario_int_key(&text, "tp"), tp, "{file}");
        assert!(notes.contains(&format!("--tensor-parallel-size {tp} ")), "{file}");
        let c = row.concurrency;
        assert_eq!(scenario_int_key(&text, "concurrency"), c, "{file}");
        assert_eq!(scenario_int_key(&text, "max_num_seqs"), c, "{file}");
        assert!(notes.contains(&format!("--max-num-seqs {c}`")), "{file}");
        assert!(notes.contains(&format!("--max-concurrency {c} ")), "{file}");
        assert_eq!(scenario_int_key(&text, "max_model_len"), *ctx, "{file}");
        assert!(notes.contains(&format!("--max-model-len {ctx} ")), "{file}");
        assert!(notes.contains(&format!("--num-prompts {prompts} ")), "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), *prompts, "{file}");
        assert!(
            notes.contains("--random-input-len 4000 --random-output-len 4000"),
            "{file}"
        );
        assert_eq!(scenario_int_key(&text, "prompt_len"), 4000, "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), 4000, "{file}");
        // The requests × 4000 tokens each way, as the file counts them.
        let tokens = prompts * 4000;
        assert!(
            notes.contains(&format!("{tokens} input and {tokens} output tokens")),
            "{file}"
        );
    }
}

#[test]
fn every_newdeploys19_row_is_compared() {
    // Qwen3-Coder-30B-A3B AWQ on one RTX 5090 at c 8, 12, 16 (the sweep) and c 4 (the vLLM-vs-SGLang run);
    // Qwen3-Coder-Next FP8 on one RTX PRO 6000 at c 8, 16, 32 and c 4. The tests above compare each once.
    assert_eq!(ROWS.len(), 8);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS19_SOURCES), [3, 3, 1, 1]);
}
