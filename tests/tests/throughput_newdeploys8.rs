//! Eighth round of new deployments (newdeploys8): GPUs tpsim had no throughput row of — B200, H20, MI355X,
//! and MI300X under a dense model — and two families new to the table's SGLang rows (Qwen3-Next, DeepSeek-V3
//! on H20). Each source prints a full benchmark result (or its output-throughput table) beside its launch
//! and benchmark commands:
//!
//! - github.com/vllm-project/recipes `Qwen/Qwen3-Next.md` at commit 1bc2b47, "B200 Outputs": Qwen3-Next-80B
//!   bf16, vLLM TP 4 on B200, random 2048/1024 at `--max-concurrency 256` (vLLM 0.10.2 assumed);
//! - vllm-project/recipes pull request 431: Qwen3Guard-Gen-8B (Qwen3-8B's architecture) on one MI300X,
//!   random 1024/1024 at 32 in flight;
//! - vllm-project/recipes `Llama/Llama3.3-70B-ROCm.md` at commit 584c0c6: Llama-3.3-70B FP8 with an FP8 KV
//!   cache on one MI355X, random 8192/1024 at 64 in flight;
//! - github.com/sgl-project/sglang pull request 10404 (merged): Qwen3-Next-80B bf16 under SGLang on H200 at
//!   TP 2, 4, 8, random 1000/2000 at 8 in flight, the "After" column (the tuned fused-MoE config SGLang
//!   shipped from then on);
//! - sglang pull request 10467 (closed unmerged): the same model and benchmark on H20 at TP 4 and 8, 32 in
//!   flight, the "Before" column (a stock SGLang never had the PR's config);
//! - sglang pull request 7631 (merged): DeepSeek-V3-0324 FP8 under SGLang on 8× H20, random 1024/512 (range
//!   ratio 0.0) at 8 in flight, "Result (with Moe config)".
//!
//! Each is written as its source's command reads (`scenarios/validation/{qwen3-next-80b-b200x8,
//! qwen3-8b-mi300x, llama-3.3-70b-fp8-mi355x, qwen3-next-80b-h200x8, qwen3-next-80b-h20x8,
//! deepseek-v3-fp8-h20x8}-*.toml`, assumptions listed there) and compared with the **default (uncalibrated)
//! profile**: tpsim's end-to-end output rate (output tokens ÷ the whole run) against "Output token
//! throughput", with the target and known-miss list of `tests/tests/throughput_rows.rs`
//! ([`TARGET`](crate::throughput_rows::TARGET), [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The
//! measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Not taken: the B200 MTP run (the page's `qwen3_next_mtp` with 4 speculative tokens, acceptance not
//! printed), the MI355X MXFP4 run (no MXFP4 dense preset), the Llama-3.1-405B runs and the Ministral-3 runs
//! (no presets), recipe outputs that name no GPU, sglang pull request 7631's Qwen3 sections (whose result
//! blocks the stored text does not show), the H20-3e (141 GB) runs of sglang pull request 6835 and vLLM
//! pull requests 19315 and 19401 (no H20-3e preset: its bandwidth is not in a source the project holds), and
//! sglang pull request 5846's H20 table (its benchmark command is only referenced, #5740), and the MI300X
//! SGLang tables of sglang pull requests 31044 (MiniMax-M2.7), 31216 (Gemma 4 31B), 30179 (Qwen3.5-4B):
//! no presets for those models.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Two of twelve are within ±20 % (H200
//! TP 2, and TP 4 since qwen3next counted SGLang's Qwen3-Next gate and top-k kernels,
//! `sim/src/decode/passes/sgl_qwen3_next.rs`); each miss's reason (KNOWN_MISSES) gives the step and
//! TTFT decomposition.
//! [`every_newdeploys8_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate_e2e_row;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS8_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/vllm-project/recipes Qwen/Qwen3-Next.md",
        "Qwen3-Next-80B-A3B-Instruct",
    ),
    ("github.com/vllm-project/recipes pull 431", "Qwen3Guard-Gen-8B"),
    (
        "github.com/vllm-project/recipes Llama/Llama3.3-70B-ROCm.md",
        "Llama-3.3-70B-Instruct-FP8-KV",
    ),
    (
        "github.com/sgl-project/sglang pull 10404",
        "Qwen3-Next-80B-A3B-Instruct",
    ),
    (
        "github.com/sgl-project/sglang pull 10467",
        "Qwen3-Next-80B-A3B-Instruct",
    ),
    ("github.com/sgl-project/sglang pull 7631", "DeepSeek-V3-0324"),
];

/// The row of source `i` whose notes start with `note` (its rate checked against the printed figure),
/// against tpsim's end-to-end output rate of `validation/FILE`.
fn row(i: usize, note: &str, printed: f64, file: &str, label: &str) {
    let (src, model) = NEWDEPLOYS8_SOURCES[i];
    validate_e2e_row((src, model), (note, printed), file, label, 1.0);
}

#[test]
pub(crate) fn validation_qwen3_next_b200_vllm_tp4_c256() {
    // "Output token throughput (tok/s): 8118.18".
    row(
        0,
        "B200 TP 4 random 2048/1024:",
        8118.18,
        "qwen3-next-80b-b200x8-vllm-0.10.2-tp4-c256.toml",
        "Qwen3-Next-80B-A3B bf16, vLLM 0.10.2, 4× B200 TP 4, c 256 (2048/1024)",
    );
}

#[test]
pub(crate) fn validation_qwen3_8b_mi300x_vllm_tp1_c32() {
    // "Output token throughput (tok/s): 2701.39".
    row(
        1,
        "MI300X TP 1 random 1024/1024:",
        2701.39,
        "qwen3-8b-mi300x-vllm-rocm-tp1-c32.toml",
        "Qwen3Guard-Gen-8B (Qwen3-8B) bf16, vLLM ROCm, 1× MI300X, c 32 (1k/1k)",
    );
}

#[test]
pub(crate) fn validation_llama_3_3_70b_fp8_mi355x_vllm_tp1_c64() {
    // "Output token throughput (tok/s): 873.98".
    row(
        2,
        "MI355X TP 1 random 8192/1024:",
        873.98,
        "llama-3.3-70b-fp8-mi355x-vllm-rocm-tp1-c64.toml",
        "Llama-3.3-70B FP8 (FP8 KV), vLLM ROCm, 1× MI355X, c 64 (8k/1k)",
    );
}

#[test]
pub(crate) fn validation_qwen3_next_h200_sglang_c8() {
    // The "After Output Token Throughput (tok/s)" column: 937.94 (TP 2), 1137.94 (TP 4), 1239.43 (TP 8).
    for (tp, printed) in [(2, 937.94), (4, 1137.94), (8, 1239.43)] {
        row(
            3,
            &format!("H200 TP {tp} random 1000/2000:"),
            printed,
            &format!("qwen3-next-80b-h200x8-sglang-tp{tp}-c8.toml"),
            &format!("Qwen3-Next-80B-A3B bf16, SGLang, {tp}× H200 TP {tp}, c 8 (1000/2000)"),
        );
    }
}

#[test]
pub(crate) fn validation_qwen3_next_h20_sglang_c32() {
    // The "Before Output Token Throughput (tok/s)" column: 1980.89 (TP 4), 2378.39 (TP 8).
    for (tp, printed) in [(4, 1980.89), (8, 2378.39)] {
        row(
            4,
            &format!("H20 TP {tp} random 1000/2000:"),
            printed,
            &format!("qwen3-next-80b-h20x8-sglang-tp{tp}-c32.toml"),
            &format!("Qwen3-Next-80B-A3B bf16, SGLang, {tp}× H20 TP {tp}, c 32 (1000/2000)"),
        );
    }
}

#[test]
pub(crate) fn validation_deepseek_v3_h20_sglang_tp8_c8() {
    // "Output token throughput (tok/s): 328.08" (with the PR's tuned fused-MoE config).
    row(
        5,
        "H20 TP 8 random 1024/512",
        328.08,
        "deepseek-v3-fp8-h20x8-sglang-tp8-c8.toml",
        "DeepSeek-V3-0324 FP8, SGLang, 8× H20 TP 8, c 8 (random 1024/512)",
    );
}

#[test]
fn every_newdeploys8_row_is_compared() {
    // One row per recipes source, three H200 rows, two H20 Qwen3-Next rows, one H20 DeepSeek row; the
    // tests above compare each once.
    assert_eq!(
        throughput_rows_per_source(NEWDEPLOYS8_SOURCES),
        [1, 1, 1, 3, 2, 1]
    );
}
