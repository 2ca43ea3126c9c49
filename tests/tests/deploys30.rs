//! deploys30 (issue #18): new out-of-sample rows on a PCIe box, the RTX PRO 6000 Blackwell first.
//!
//! **1. cloudrift's deplodock, `experiments/Qwen3-Coder-Next-FP8/optimal_mcr_pro6000_vllm/2026-03-04_17-31-44_a64f1bc9`**
//! (github.com/cloudrift-ai/deplodock, the sweep committed with PR #62 as 34b13f2a; the files read at 71bbbdb
//! (c 12), 34b13f2 (c 20, 24, 28) and 2a4d374 (c 36)): Qwen/Qwen3-Coder-Next-FP8 under `vllm/vllm-openai:latest` on
//! one RTX PRO 6000 Blackwell Server Edition (a KVM guest of 48 vCPUs of an AMD EPYC 9B45, driver 570.211.01: each
//! file's system information), `--trust-remote-code --gpu-memory-utilization=0.9 --tensor-parallel-size 1
//! --pipeline-parallel-size 1 --max-model-len 131072 --max-num-seqs C` and `vllm bench serve --max-concurrency C
//! --num-prompts 80 --random-input-len 4000 --random-output-len 4000` (vLLM's random dataset, range ratio 0.0: every
//! prompt and output exactly 4000 tokens; each file counts 320,000 of each). newdeploys19 took the sweep's c 8, 16
//! and 32 files; this file takes the five it left below c 40: c 12, 20, 24, 28 and 36, whose median TTFTs are
//! 0.78-0.94 s (no queue; from c 40 on the sweep queues behind a KV pool the files do not log, as newdeploys19
//! found). The release is newdeploys19's assumption ("latest" on 2026-03-04 taken as vLLM 0.16.0), the weights its
//! `qwen3-next-80b-a3b-fp8` preset and the box its `rtx-pro-6000-2x-turin-same-numa` GPU 0.
//!
//! **2. cloudrift's deplodock, `experiments/Kimi-K2.5/optimal_mcr_vllm_b200/2026-03-11_21-45-58_c599125b`** (files
//! read at b8beeb8 (c 16, 40) and 1c8c23d (c 24, 32)): nvidia/Kimi-K2.5-NVFP4 under `vllm/vllm-openai:v0.17.0` (the
//! release is the image tag) on 8× B200 (a GCP KVM guest of two Xeon Platinum 8581C, driver 570.211.01),
//! `--trust-remote-code --gpu-memory-utilization=0.9 --tensor-parallel-size 8 --pipeline-parallel-size 1
//! --data-parallel-size 1 --max-model-len 262144 --max-num-seqs C --tool-call-parser kimi_k2 --reasoning-parser
//! kimi_k2` and `vllm bench serve --trust-remote-code --max-concurrency C --num-prompts 40 --random-input-len 8000
//! --random-output-len 8000`. deploys28 took the sweep's c 8 file; this file takes c 16, 24, 32 and 40 (the sweep's
//! c 12 and 28 files are not taken: the bucket pairs of 16 and 32 add no new step). Not a PCIe box: the sweep is
//! taken because it is the same harness and release as a scenario already in the suite, with a curve. The box and
//! weights are deploys28's (`b200-8x-nvlink`, `kimi-k2.5-nvfp4`). All four are within (+7.9 to +12.7 %).
//!
//! **3. cloudrift's deplodock, `experiments/Qwen3-Coder-Next-FP8/optimal_mcr_pro6000/2026-02-25_10-30-04_711e630e`**
//! (files read at 5880327 (c 8, 12, 16) and 97ecd34 (c 32)): an earlier sweep of the same recipe on another box, one
//! RTX PRO 6000 Blackwell **Workstation** Edition (a KVM guest of 11 vCPUs of an AMD EPYC 9474F, driver 580.65.06),
//! launched with `--max-model-len 8192` instead of 131072, the same client. "latest" on 2026-02-25 is taken as vLLM
//! 0.15.1 (0.16.0 reached PyPI on 2026-02-26), the box as GPU 0 of the same preset (the Workstation and Server
//! Editions share every figure; one GPU at TP 1 exercises no link). Rows c 8, 12, 16 and 32 (the files' c 20, 28,
//! 36 and 40 are not taken: their points sit in the same buckets). c 8 is within (-7.4 %); c 12, 16 and 32 are known
//! misses (-20.4, -24.4, -35.1 %): this sweep's steps are 8-17 % shorter than the 2026-03-04 sweep's at the same C
//! (13.24 / 15.96 ms at c 8, 17.65 / 19.66 at c 16, 24.98 / 28.44 at c 32), where tpsim's are the same (nothing in it
//! depends on --max-model-len or on 0.15.1 against 0.16.0 here). Not the context limit: the same box's context sweep
//! of the same day (**4.** `experiments/Qwen3-Coder-Next-FP8/optimal_ctx_pro6000/2026-02-25_10-30-04_711e630e/
//! pro6000_ctx131072_vllm_benchmark.txt`, read at 5880327: `--max-model-len 131072 --max-num-seqs 16`, 64 prompts at
//! 16 in flight) prints 17.36 ms, within 2 % of the 8k-context file's 17.65; taken as one more row (a known miss,
//! -25.6 %). The release or the card (or the host) is left; not located.
//!
//! **5. cloudrift's deplodock, `experiments/Qwen3-Coder-30B-A3B-Instruct-AWQ/optimal_mcr_rtx5090/2026-02-25_10-10-13_d7b1155c`**
//! (files read at 49987f5): the same day's sweep of the checkpoint newdeploys19 took on 2026-03-03, one GeForce RTX
//! 5090 (a KVM guest of 7 vCPUs of an AMD EPYC 7702, driver 580.65.06), `--max-model-len 8192`, the same client;
//! vLLM 0.15.1 assumed for "latest" as above. Rows c 8 and 12 (from c 16 the 8k-context KV pool of about 16
//! requests and the 80-prompt client queue; not taken). c 8 within (-15.8 %), c 12 a known miss (-24.1 %), as
//! newdeploys19's c 12 of the 2026-03-03 sweep. Its files' steps equal that sweep's within 2 % (8.88 against 8.97 ms
//! at c 8, 12.72 against 12.77 at c 12): on the 5090 with AWQ experts the date (0.15.1 against 0.16.0 assumed) and
//! the context limit change nothing, which leaves the card or host the likelier cause of the Pro 6000 sweeps'
//! difference above (not shown).
//!
//! **What is compared**: 1000 ÷ the file's "Median TPOT (ms)" against 1000 ÷ tpsim's median TPOT, default
//! (uncalibrated) profile, held to [`TARGET`](crate::throughput_rows::TARGET) or listed in
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario. Pro 6000: c 12 (-13.9 %) and c 20 (-18.1 %) are
//! within; c 24, 28 and 36 are known misses (-21.0, -23.8, -26.8 %), the direction and size of newdeploys19's c 32
//! miss on the same sweep (tpsim's per-request step grows faster than the file's). B200: c 16, 24, 32, 40 within.
//! Pro 6000 Workstation, 8k context: c 8 within, c 12, 16, 32 known misses. pro6k56 (vLLM's bfloat16 Gated
//! DeltaNet state, tests/tests/pro6k56.rs): Pro 6000 c 12, 20, 24, 28 within (-9.6, -13.3, -16.1, -18.8 %), c 36 a
//! known miss (-21.6 %); Workstation c 8 and 12 within (-3.6, -16.4 %), c 16, 32 and 128k c 16 known misses
//! (-20.1, -30.6, -21.4 %).
//!
//! **What the curve shows** ([`steps_follow_vllm_cuda_graph_buckets`]): the file's step is flat within each
//! CUDA-graph bucket — c 12 ≈ c 16, c 20 ≈ c 24, c 28 ≈ c 32 — as vLLM 0.16.0 pads a decode batch up to its next
//! captured size (`vllm/config/vllm.py`, PyPI wheel: the largest size is min(max_num_seqs × 2, 512), the sizes
//! [1, 2, 4] then every 8 up to it), and tpsim's is flat in the same places.
//!
//! Searched this round and not taken: sgl-project/sglang issue 18870 (8× RTX PRO 6000, MiniMax-M2.5 FP8, SGLang
//! 0.5.8.post1: still only its opening is stored, as newdeploys11 / deploys24 / deploys28 found); vllm issue 37113's
//! 8× RTX PRO 6000 GLM-5.1 comment (`lukealonso/GLM-5.1-NVFP4`: no NVFP4 preset of GLM-5, a 30000/500 run of 5
//! prompts); local-inference-lab/rtx6kpro `models/glm47.md` (a launch, no figures) and
//! `benchmarks/kimi-glm-ar-benchmark-20260425.md` (custom `voipmonitor` images with EAGLE / MTP speculative decoding,
//! its own decode harness); the GPUStack lab's `glm-4.6/h100.md` (ShareGPT bursts of 1000 only, refused before for
//! the length distribution); noonghunna/club-3090 issues 769 / 851 (Qwen3.6-35B-A3B: no preset, its own harness);
//! vllm pull requests 39183 (RTX PRO 6000 fused-MoE configs: kernel timings only in the stored text), 28280 (an
//! RTX 4090 LoRA kernel, no model preset) and 15322 (refused before: three L20 nodes); sglang pull requests 34750
//! (RTX 5080, granite-3.1-3b-a800m: no preset) and 37498 (8× RTX PRO 5000, GLM-5.3-Flash: no preset, a TPM figure).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives the
//! measured and predicted step. [`every_deploys30_row_is_compared`] fails if a row of this source is added without
//! a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test accepts
/// a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS30_SOURCES: &[(&str, &str)] = &[
    (SRC_PRO6000, "Qwen3-Coder-Next"),
    (SRC_B200, "Kimi-K2.5"),
    (SRC_WS, "Qwen3-Coder-Next"),
    (SRC_WS_CTX, "Qwen3-Coder-Next"),
    (SRC_5090, "Qwen3-Coder-30B-A3B"),
];

/// The prefix of the rows' source: the sweep's files as read by deploys30 (newdeploys19's rows of the same
/// sweep start "(commit 9da9d04)").
const SRC_PRO6000: &str = "github.com/cloudrift-ai/deplodock (files read at 71bbbdb/34b13f2/2a4d374) experiments/Qwen3-Coder-Next-FP8/optimal_mcr_pro6000_vllm/2026-03-04_17-31-44_a64f1bc9";

/// The prefix of the Kimi-K2.5 rows' source: the B200 sweep's files as read by deploys30 (deploys28's c 8 row
/// of the same sweep starts "(read at ef84dbe)").
const SRC_B200: &str = "github.com/cloudrift-ai/deplodock (files read at b8beeb8/1c8c23d) experiments/Kimi-K2.5/optimal_mcr_vllm_b200/2026-03-11_21-45-58_c599125b";

/// The prefix of the Workstation Edition rows' source: the 2026-02-25 sweep's files as read by deploys30.
const SRC_WS: &str = "github.com/cloudrift-ai/deplodock (files read at 5880327/97ecd34) experiments/Qwen3-Coder-Next-FP8/optimal_mcr_pro6000/2026-02-25_10-30-04_711e630e";

/// The source of the Workstation Edition's 128k-context row: the same day's context sweep, c 16.
const SRC_WS_CTX: &str = "github.com/cloudrift-ai/deplodock (file read at 5880327) experiments/Qwen3-Coder-Next-FP8/optimal_ctx_pro6000/2026-02-25_10-30-04_711e630e";

/// The context sweep's row: "Median TPOT (ms)", duration and output rate of its 64 requests at 16 in flight.
const WS_CTX_ROW: Row = (16, 17.36, 304.14, 841.72);

/// The notes prefix of the 128k-context row.
const WS_CTX_NOTE: &str = "1x RTX PRO 6000 Workstation TP 1 random 4000/4000 c 16, 128k context:";

/// The scenario of the 128k-context row.
const WS_CTX_FILE: &str = "qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c16-ctx128k.toml";

/// The Server Edition sweep's box (newdeploys19): GPU 0 of the 2-GPU Server preset.
const SERVER_PRESET: &str = "rtx-pro-6000-2x-turin-same-numa";

/// The Workstation Edition sweep's box (server58): GPU 0 of cloudrift's 8-GPU Workstation preset, the Edition the
/// files name (14001 MHz GDDR7, templates/rtx-pro-6000-workstation.toml).
const WS_PRESET: &str = "rtx-pro-6000-ws-8x-dual-genoa-direct";

/// The prefix of the RTX 5090 rows' source: the 2026-02-25 AWQ sweep's files as read by deploys30.
const SRC_5090: &str = "github.com/cloudrift-ai/deplodock (files read at 49987f5) experiments/Qwen3-Coder-30B-A3B-Instruct-AWQ/optimal_mcr_rtx5090/2026-02-25_10-10-13_d7b1155c";

/// newdeploys19's prefix of the 2026-03-03 RTX 5090 sweep (its c 8 and 12 rows), read by the date test.
const SRC_NEWDEPLOYS19_5090: &str = "github.com/cloudrift-ai/deplodock (commit 9da9d04) experiments/Qwen3-Coder-30B-A3B-Instruct-AWQ/optimal_mcr_rtx5090/2026-03-03_02-07-22_417ad7f8";

/// The 2026-02-25 RTX 5090 sweep's points this file takes, as [`ROWS`].
const RTX5090_ROWS: &[Row] = &[(8, 8.88, 365.50, 875.52), (12, 12.72, 348.72, 917.64)];

/// The notes prefix of an RTX 5090 row at concurrency `c`.
fn rtx5090_note(c: u64) -> String {
    format!("1x RTX 5090 TP 1 random 4000/4000 c {c}, 8k context:")
}

/// The scenario of the RTX 5090 row at concurrency `c`.
fn rtx5090_file(c: u64) -> String {
    format!("qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.15-tp1-4k4k-c{c}-ctx8k.toml")
}

/// Compares row `i` of [`RTX5090_ROWS`]: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT.
fn compare_5090(i: usize) {
    let (c, tpot_ms, _, _) = RTX5090_ROWS[i];
    let label = format!(
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.15.1 (latest), 1× RTX 5090 TP 1, random 4k/4k c {c}, 8k context (per-stream TPOT)"
    );
    compare_tpot_row(
        (SRC_5090, "Qwen3-Coder-30B-A3B", &rtx5090_note(c)),
        tpot_ms,
        &rtx5090_file(c),
        &label,
    );
}

/// newdeploys19's prefix of the same sweep (its c 8, 16 and 32 rows), read by the bucket test.
const SRC_NEWDEPLOYS19: &str = "github.com/cloudrift-ai/deplodock (commit 9da9d04) experiments/Qwen3-Coder-Next-FP8/optimal_mcr_pro6000_vllm/2026-03-04_17-31-44_a64f1bc9";

/// One row: (concurrency, the file's median TPOT in ms, its duration in s, its output token throughput in tok/s).
type Row = (u64, f64, f64, f64);

/// A sweep's rows for the rate check: (rows, source prefix, model, notes prefix of a concurrency).
type Sweep = (&'static [Row], &'static str, &'static str, fn(u64) -> String);

/// A Qwen3-Coder-Next sweep for the scenario check: (rows, source prefix, notes prefix of a concurrency, scenario
/// of a concurrency, engine.version, max_model_len, hardware preset).
type QwenSweep = (
    &'static [Row],
    &'static str,
    fn(u64) -> String,
    fn(u64) -> String,
    &'static str,
    u64,
    &'static str,
);

/// The sweep's points this file takes: "Median TPOT (ms)", "Benchmark duration (s)" and "Output token
/// throughput (tok/s)" of each file.
const ROWS: &[Row] = &[
    (12, 19.83, 562.97, 568.42),
    (20, 25.42, 421.49, 759.21),
    (24, 24.73, 378.64, 845.13),
    (28, 29.07, 355.28, 900.70),
    (36, 32.66, 333.90, 958.36),
];

/// The B200 sweep's points this file takes, as [`ROWS`] (40 prompts of 8000 / 8000 tokens each).
const KIMI_ROWS: &[Row] = &[
    (16, 11.90, 266.51, 1200.69),
    (24, 13.66, 206.75, 1547.75),
    (32, 16.12, 205.37, 1558.13),
    (40, 17.42, 143.37, 2231.92),
];

/// The 2026-02-25 Workstation Edition sweep's points this file takes, as [`ROWS`].
const WS_ROWS: &[Row] = &[
    (8, 13.24, 552.41, 579.28),
    (12, 18.34, 521.86, 613.19),
    (16, 17.65, 376.42, 850.12),
    (32, 24.98, 295.17, 1084.12),
];

/// The notes prefix of a Workstation Edition row at concurrency `c`.
fn ws_note(c: u64) -> String {
    format!("1x RTX PRO 6000 Workstation TP 1 random 4000/4000 c {c}, 8k context:")
}

/// The scenario of the Workstation Edition row at concurrency `c`.
fn ws_file(c: u64) -> String {
    format!("qwen3-coder-next-fp8-pro6000ws1-vllm-0.15-tp1-4k4k-c{c}-ctx8k.toml")
}

/// Compares row `i` of [`WS_ROWS`]: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT.
fn compare_ws(i: usize) {
    let (c, tpot_ms, _, _) = WS_ROWS[i];
    let label = format!(
        "Qwen3-Coder-Next FP8, vLLM 0.15.1 (latest), 1× RTX PRO 6000 Workstation TP 1, random 4k/4k c {c}, 8k context (per-stream TPOT)"
    );
    compare_tpot_row(
        (SRC_WS, "Qwen3-Coder-Next", &ws_note(c)),
        tpot_ms,
        &ws_file(c),
        &label,
    );
}

/// The notes prefix of a Kimi row at concurrency `c` (deploys28's form).
fn kimi_note(c: u64) -> String {
    format!("8x B200 TP 8 random 8000/8000 c {c}:")
}

/// The scenario of the Kimi row at concurrency `c`.
fn kimi_file(c: u64) -> String {
    format!("kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c{c}.toml")
}

/// Compares row `i` of [`KIMI_ROWS`]: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT.
fn compare_kimi(i: usize) {
    let (c, tpot_ms, _, _) = KIMI_ROWS[i];
    let label = format!("Kimi-K2.5 NVFP4, vLLM 0.17.0, 8× B200 TP 8, random 8k/8k c {c} (per-stream TPOT)");
    compare_tpot_row(
        (SRC_B200, "Kimi-K2.5", &kimi_note(c)),
        tpot_ms,
        &kimi_file(c),
        &label,
    );
}

/// The notes prefix of the row at concurrency `c` (newdeploys19's form).
fn note(c: u64) -> String {
    format!("1x RTX PRO 6000 Server TP 1 random 4000/4000 c {c}:")
}

/// The scenario of the row at concurrency `c`.
fn file(c: u64) -> String {
    format!("qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c{c}.toml")
}

/// Compares row `i` of [`ROWS`]: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT.
fn compare(i: usize) {
    let (c, tpot_ms, _, _) = ROWS[i];
    let label = format!(
        "Qwen3-Coder-Next FP8, vLLM 0.16.0 (latest), 1× RTX PRO 6000 TP 1, random 4k/4k c {c} (per-stream TPOT)"
    );
    compare_tpot_row(
        (SRC_PRO6000, "Qwen3-Coder-Next", &note(c)),
        tpot_ms,
        &file(c),
        &label,
    );
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c12() {
    // "Median TPOT (ms): 19.83" → 1000 ÷ 19.83 = 50.43 tok/s a stream.
    compare(0);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c20() {
    // "Median TPOT (ms): 25.42" → 39.34 tok/s.
    compare(1);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c24() {
    // "Median TPOT (ms): 24.73" → 40.44 tok/s.
    compare(2);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c28() {
    // "Median TPOT (ms): 29.07" → 34.40 tok/s.
    compare(3);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000x1_4k4k_c36() {
    // "Median TPOT (ms): 32.66" → 30.62 tok/s.
    compare(4);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c16() {
    // "Median TPOT (ms): 11.90" → 1000 ÷ 11.90 = 84.03 tok/s a stream.
    compare_kimi(0);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c24() {
    // "Median TPOT (ms): 13.66" → 73.21 tok/s.
    compare_kimi(1);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c32() {
    // "Median TPOT (ms): 16.12" → 62.03 tok/s.
    compare_kimi(2);
}

#[test]
pub(crate) fn validation_kimi_k2_5_nvfp4_b200x8_vllm_0_17_tp8_c40() {
    // "Median TPOT (ms): 17.42" → 57.41 tok/s.
    compare_kimi(3);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c8() {
    // "Median TPOT (ms): 13.24" → 1000 ÷ 13.24 = 75.53 tok/s a stream.
    compare_ws(0);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c12() {
    // "Median TPOT (ms): 18.34" → 54.53 tok/s.
    compare_ws(1);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c16() {
    // "Median TPOT (ms): 17.65" → 56.66 tok/s.
    compare_ws(2);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx8k_c32() {
    // "Median TPOT (ms): 24.98" → 40.03 tok/s.
    compare_ws(3);
}

#[test]
pub(crate) fn validation_qwen3_coder_next_fp8_vllm_pro6000ws1_4k4k_ctx128k_c16() {
    // "Median TPOT (ms): 17.36" → 1000 ÷ 17.36 = 57.60 tok/s a stream.
    let (c, tpot_ms, _, _) = WS_CTX_ROW;
    compare_tpot_row(
        (SRC_WS_CTX, "Qwen3-Coder-Next", WS_CTX_NOTE),
        tpot_ms,
        WS_CTX_FILE,
        &format!(
            "Qwen3-Coder-Next FP8, vLLM 0.15.1 (latest), 1× RTX PRO 6000 Workstation TP 1, random 4k/4k c {c}, 128k context (per-stream TPOT)"
        ),
    );
}

#[test]
fn ws_ctx_scenario_is_the_files_run() {
    // The context sweep's file: --max-model-len 131072 --max-num-seqs 16, --max-concurrency 16 --num-prompts 64,
    // 64 × 4000 = 256,000 tokens each way; 256000 ÷ 304.14 = 841.72 tok/s ≤ 16 × 57.60 = 921.7 and more than half.
    let (c, tpot, dur, out) = WS_CTX_ROW;
    assert!((256_000.0 / dur - out).abs() < 0.01);
    assert!(out <= c as f64 * 1000.0 / tpot && out > 0.5 * c as f64 * 1000.0 / tpot);
    let r = throughput_row(SRC_WS_CTX, "Qwen3-Coder-Next", WS_CTX_NOTE);
    let notes = r.notes.as_str();
    let text = std::fs::read_to_string(scenario(&format!("validation/{WS_CTX_FILE}"))).unwrap();
    assert_eq!((r.tp, r.concurrency), (1, c));
    assert!(text.contains("\nversion = \"0.15.1\""));
    assert!(notes.contains("(vLLM 0.15.1 on that date, assumed)"));
    assert!(text.contains(&format!("\npreset = \"{WS_PRESET}\"\n")));
    assert!(text.contains("\npreset = \"qwen3-next-80b-a3b-fp8\"\n"));
    assert_eq!(scenario_int_key(&text, "max_model_len"), 131_072);
    assert!(notes.contains("--max-model-len 131072 --max-num-seqs 16`"));
    assert_eq!(scenario_int_key(&text, "max_num_seqs"), 16);
    assert_eq!(scenario_int_key(&text, "concurrency"), 16);
    assert!(notes.contains("--max-concurrency 16 --num-prompts 64 "));
    assert_eq!(scenario_int_key(&text, "num_requests"), 64);
    assert_eq!(scenario_int_key(&text, "prompt_len"), 4000);
    assert_eq!(scenario_int_key(&text, "output_len"), 4000);
    assert!(notes.contains(&format!(
        "256000 input and 256000 output tokens in {dur:.2} s, output {out:.2} tok/s"
    )));
}

#[test]
pub(crate) fn validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_ctx8k_c8() {
    // "Median TPOT (ms): 8.88" → 1000 ÷ 8.88 = 112.61 tok/s a stream.
    compare_5090(0);
}

#[test]
pub(crate) fn validation_qwen3_coder_30b_awq_vllm_rtx5090x1_4k4k_ctx8k_c12() {
    // "Median TPOT (ms): 12.72" → 78.62 tok/s.
    compare_5090(1);
}

/// The RTX 5090 sweeps of 2026-02-25 (--max-model-len 8192, 0.15.1 assumed) and 2026-03-03 (114688, 0.16.0
/// assumed) agree within 2 % (c 8: 8.88 / 8.97 = 0.990; c 12: 12.72 / 12.77 = 0.996) and tpsim's steps agree
/// within 0.5 %; each scenario is its file's run (the rate and launch checks of the other sweeps: c 8
/// 875.52 ≤ 8 × 112.61 = 900.9, c 12 917.64 ≤ 943.4).
#[test]
fn rtx5090_sweeps_agree_and_scenarios_are_the_files_runs() {
    for &(c, tpot, dur, out) in RTX5090_ROWS {
        let name = rtx5090_file(c);
        assert!((320_000.0 / dur - out).abs() < 0.01, "c {c}");
        let bound = c as f64 * 1000.0 / tpot;
        assert!(out <= bound && out > 0.5 * bound, "c {c}");
        let r = throughput_row(SRC_5090, "Qwen3-Coder-30B-A3B", &rtx5090_note(c));
        let notes = r.notes.as_str();
        assert!(
            notes.contains(&format!("in {dur:.2} s, output {out:.2} tok/s")),
            "{name}"
        );
        let text = std::fs::read_to_string(scenario(&format!("validation/{name}"))).unwrap();
        assert!(text.contains("\npreset = \"rtx-5090-2x-no-p2p\"\n"), "{name}");
        assert!(
            text.contains("\npreset = \"qwen3-coder-30b-a3b-awq\"\n"),
            "{name}"
        );
        assert!(text.contains("\nversion = \"0.15.1\""), "{name}");
        assert!(notes.contains("(vLLM 0.15.1 on that date, assumed)"), "{name}");
        assert_eq!((r.tp, r.concurrency), (1, c), "{name}");
        assert_eq!(scenario_int_key(&text, "concurrency"), c, "{name}");
        assert_eq!(scenario_int_key(&text, "max_num_seqs"), c, "{name}");
        assert!(
            notes.contains(&format!("--max-model-len 8192 --max-num-seqs {c}`")),
            "{name}"
        );
        assert!(
            notes.contains(&format!("--max-concurrency {c} --num-prompts 80 ")),
            "{name}"
        );
        assert_eq!(scenario_int_key(&text, "max_model_len"), 8192, "{name}");
        assert_eq!(scenario_int_key(&text, "num_requests"), 80, "{name}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), 4000, "{name}");
        assert_eq!(scenario_int_key(&text, "output_len"), 4000, "{name}");
        // The two dates agree, in the files and in tpsim.
        let early = 1000.0
            / measured_throughput(SRC_5090, "Qwen3-Coder-30B-A3B", |n| {
                n.starts_with(&rtx5090_note(c))
            });
        let late_note = format!("1x RTX 5090 TP 1 random 4000/4000 c {c}:");
        let late = 1000.0
            / measured_throughput(SRC_NEWDEPLOYS19_5090, "Qwen3-Coder-30B-A3B", |n| {
                n.starts_with(&late_note)
            });
        assert!(
            (early / late - 1.0).abs() < 0.02,
            "c {c}: files {early} against {late}"
        );
        let step = |file_name: String| -> f64 {
            let v = run_json(&scenario(&format!("validation/{file_name}")));
            f(&v["serving"]["tpot_ms"]["p50"])
        };
        let (a, b) = (
            step(name.clone()),
            step(format!(
                "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.16-tp1-4k4k-c{c}.toml"
            )),
        );
        assert!((a / b - 1.0).abs() < 0.005, "c {c}: tpsim {a} against {b}");
    }
}

#[test]
fn files_output_rates_fit_their_tpot() {
    // Each file's output rate is its 320,000 tokens ÷ its duration, to the files' rounding of both (the duration's
    // ±0.005 s moves the rate by 320000 ÷ d² × 0.005: 0.08 tok/s at the B200 c 40 file's 143.37 s, whose
    // 320000 ÷ 143.37 = 2231.99 prints 2231.92), cannot exceed C × 1000 ÷ median TPOT (every stream decoding every
    // step) and is more than half of it (a decode step of most streams). Pro 6000: c 12 568.42 ≤ 12 × 50.43 =
    // 605.1; c 20 759.21 ≤ 786.8; c 24 845.13 ≤ 970.5; c 28 900.70 ≤ 963.2; c 36 958.36 ≤ 1102.3. B200: c 16
    // 1200.69 ≤ 1344.5; c 24 1547.75 ≤ 1756.9; c 32 1558.13 ≤ 1985.1 (40 prompts at 32 in flight: a second wave
    // of 8); c 40 2231.92 ≤ 2296.2. Workstation, 8k context: c 8 579.28 ≤ 604.2; c 12 613.19 ≤ 654.3; c 16
    // 850.12 ≤ 906.5; c 32 1084.12 ≤ 1281.0.
    let sweeps: [Sweep; 3] = [
        (ROWS, SRC_PRO6000, "Qwen3-Coder-Next", note),
        (KIMI_ROWS, SRC_B200, "Kimi-K2.5", kimi_note),
        (WS_ROWS, SRC_WS, "Qwen3-Coder-Next", ws_note),
    ];
    for (rows, src, model, note_of) in sweeps {
        for &(c, tpot, dur, out) in rows {
            let slack = 320_000.0 / (dur * dur) * 0.005 + 0.005;
            assert!(
                (320_000.0 / dur - out).abs() <= slack,
                "c {c}: {dur} s, {out} tok/s"
            );
            let bound = c as f64 * 1000.0 / tpot;
            assert!(out <= bound, "c {c}: {out} > {bound}");
            assert!(out > 0.5 * bound, "c {c}: {out} ≤ half of {bound}");
            let r = throughput_row(src, model, &note_of(c));
            assert!(
                r.notes.contains(&format!("in {dur:.2} s, output {out:.2} tok/s")),
                "c {c}: {}",
                r.notes
            );
        }
    }
}

#[test]
fn scenarios_are_the_files_runs() {
    // Each scenario is its file's run, as newdeploys19's of the same recipe: GPU 0 of an RTX PRO 6000 preset of the
    // Edition the file names (server58: the 2-GPU Server preset for 2026-03-04, cloudrift's 8-GPU Workstation
    // preset for 2026-02-25), the qwen3-next-80b-a3b-fp8 weights, vLLM from docker (0.16.0 for 2026-03-04, 0.15.1 for 2026-02-25),
    // tp 1 (--tensor-parallel-size 1), concurrency and max_num_seqs both C (--max-concurrency C, --max-num-seqs C),
    // 80 requests (--num-prompts 80), fixed 4000-token prompts and outputs, max_model_len the compose's (131072 or
    // 8192), gpu_memory_utilization 0.9.
    let sweeps: [QwenSweep; 2] = [
        (ROWS, SRC_PRO6000, note, file, "0.16.0", 131_072, SERVER_PRESET),
        (WS_ROWS, SRC_WS, ws_note, ws_file, "0.15.1", 8_192, WS_PRESET),
    ];
    for (rows, src, note_of, file_of, version, ctx, preset) in sweeps {
        for &(c, _, _, _) in rows {
            let f = file_of(c);
            let r = throughput_row(src, "Qwen3-Coder-Next", &note_of(c));
            let notes = r.notes.as_str();
            let text = std::fs::read_to_string(scenario(&format!("validation/{f}"))).unwrap();
            assert!(text.contains(&format!("\npreset = \"{preset}\"\n")), "{f}");
            assert!(text.contains("\npreset = \"qwen3-next-80b-a3b-fp8\"\n"), "{f}");
            assert!(text.contains(&format!("\nversion = \"{version}\"")), "{f}");
            assert!(
                notes.contains(&format!("(vLLM {version} on that date, assumed)")),
                "{f}"
            );
            assert!(text.contains("\ninstall = \"docker\""), "{f}");
            assert!(text.contains("\ngpu_memory_utilization = 0.9\n"), "{f}");
            assert!(notes.contains("--gpu-memory-utilization=0.9 "), "{f}");
            assert_eq!((r.tp, r.concurrency), (1, c), "{f}");
            assert_eq!(scenario_int_key(&text, "tp"), 1, "{f}");
            assert!(notes.contains("--tensor-parallel-size 1 "), "{f}");
            assert_eq!(scenario_int_key(&text, "concurrency"), c, "{f}");
            assert_eq!(scenario_int_key(&text, "max_num_seqs"), c, "{f}");
            assert!(notes.contains(&format!("--max-num-seqs {c}`")), "{f}");
            assert!(notes.contains(&format!("--max-concurrency {c} ")), "{f}");
            assert_eq!(scenario_int_key(&text, "max_model_len"), ctx, "{f}");
            assert!(notes.contains(&format!("--max-model-len {ctx} ")), "{f}");
            assert_eq!(scenario_int_key(&text, "num_requests"), 80, "{f}");
            assert!(notes.contains("--num-prompts 80 "), "{f}");
            assert!(
                notes.contains("--random-input-len 4000 --random-output-len 4000"),
                "{f}"
            );
            assert_eq!(scenario_int_key(&text, "prompt_len"), 4000, "{f}");
            assert_eq!(scenario_int_key(&text, "output_len"), 4000, "{f}");
            // 80 requests × 4000 tokens each way, as the file counts them.
            assert!(notes.contains("320000 input and 320000 output tokens"), "{f}");
        }
    }
}

/// The two Qwen3-Coder-Next sweeps differ in the context limit (8192 against 131072), the assumed release (0.15.1
/// against 0.16.0) and the card (Workstation against Server Edition): the 2026-02-25 files' steps are 8-17 %
/// shorter at the same C (c 8: 13.24 against 15.96 ms = 0.83; c 16: 17.65 against 19.66 = 0.90; c 32: 24.98
/// against 28.44 = 0.88). The same box's 128k-context file rules the context limit out (tpsim's two steps are
/// equal within 0.5 %). server58: the card is now in tpsim — the Workstation Edition's 1.792 TB/s against the
/// Server Edition's 1.597 TB/s at the same mem_efficiency, a bandwidth ratio of 1.597 / 1.792 = 0.8912 — and
/// tpsim's Workstation / Server step ratio (12.57 / 13.77 = 0.913, 20.08 / 22.20 = 0.905, 32.53 / 36.14 = 0.900)
/// lies between 0.8912 (an all-memory-bound step) and 0.92 (the fixed launch part dilutes it), within 0.03 of
/// the files' at c 16 and 32; at c 8 the files' 0.830 stays 0.05–0.11 below (qnext57's reading). This test
/// fails if tpsim's step comes to depend on the release or the context limit, or the Editions' ratio moves.
#[test]
fn sweeps_differ_where_tpsim_does_not() {
    let file_step = |src: &str, n: String| -> f64 {
        1000.0 / measured_throughput(src, "Qwen3-Coder-Next", |x| x.starts_with(&n))
    };
    let tpsim = |name: String| -> f64 {
        let v = run_json(&scenario(&format!("validation/{name}")));
        f(&v["serving"]["tpot_ms"]["p50"])
    };
    // Not the context limit: on the 2026-02-25 box the 128k-context file at c 16 is within 3 % of the 8k one
    // (17.36 against 17.65 ms, 0.984), and tpsim's two steps are equal.
    let ctx = file_step(SRC_WS_CTX, WS_CTX_NOTE.to_string()) / file_step(SRC_WS, ws_note(16));
    assert!(
        (ctx - 1.0).abs() < 0.03,
        "files: 128k / 8k context at c 16 = {ctx}"
    );
    let (long, short) = (tpsim(WS_CTX_FILE.to_string()), tpsim(ws_file(16)));
    assert!(
        (long / short - 1.0).abs() < 0.005,
        "tpsim: {long} against {short}"
    );
    for c in [8, 16, 32] {
        let ratio = file_step(SRC_WS, ws_note(c)) / file_step(SRC_NEWDEPLOYS19, note(c));
        assert!((0.80..0.92).contains(&ratio), "c {c}: files {ratio}");
        let (early, late) = (
            tpsim(ws_file(c)),
            tpsim(format!(
                "qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c{c}.toml"
            )),
        );
        let tpsim_ratio = early / late;
        assert!(
            (1.597 / 1.792..0.92).contains(&tpsim_ratio),
            "c {c}: tpsim {early} against {late}"
        );
        let gap = tpsim_ratio - ratio;
        if c == 8 {
            assert!(
                (0.05..0.11).contains(&gap),
                "c 8: files {ratio}, tpsim {tpsim_ratio}"
            );
        } else {
            assert!(gap.abs() < 0.03, "c {c}: files {ratio}, tpsim {tpsim_ratio}");
        }
    }
}

#[test]
fn kimi_scenarios_are_the_files_runs() {
    // As deploys28's c 8 scenario of the same sweep: 8× B200, the kimi-k2.5-nvfp4 weights, vLLM 0.17.0 (the image
    // tag), tp 8 (--tensor-parallel-size 8), concurrency and max_num_seqs both C, 40 requests (--num-prompts 40),
    // fixed 8000-token prompts and outputs, max_model_len 262144, gpu_memory_utilization 0.9.
    for &(c, _, _, _) in KIMI_ROWS {
        let f = kimi_file(c);
        let r = throughput_row(SRC_B200, "Kimi-K2.5", &kimi_note(c));
        let notes = r.notes.as_str();
        let text = std::fs::read_to_string(scenario(&format!("validation/{f}"))).unwrap();
        assert!(text.contains("\npreset = \"b200-8x-nvlink\"\n"), "{f}");
        assert!(text.contains("\npreset = \"kimi-k2.5-nvfp4\"\n"), "{f}");
        assert!(text.contains("\nversion = \"0.17.0\""), "{f}");
        assert!(notes.contains("docker vllm/vllm-openai:v0.17.0,"), "{f}");
        assert!(text.contains("\ngpu_memory_utilization = 0.9\n"), "{f}");
        assert!(notes.contains("--gpu-memory-utilization=0.9 "), "{f}");
        assert_eq!((r.tp, r.concurrency), (8, c), "{f}");
        assert_eq!(scenario_int_key(&text, "tp"), 8, "{f}");
        assert!(notes.contains("--tensor-parallel-size 8 "), "{f}");
        assert_eq!(scenario_int_key(&text, "concurrency"), c, "{f}");
        assert_eq!(scenario_int_key(&text, "max_num_seqs"), c, "{f}");
        assert!(notes.contains(&format!("--max-num-seqs {c} ")), "{f}");
        assert!(notes.contains(&format!("--max-concurrency {c} ")), "{f}");
        assert_eq!(scenario_int_key(&text, "max_model_len"), 262_144, "{f}");
        assert!(notes.contains("--max-model-len 262144 "), "{f}");
        assert_eq!(scenario_int_key(&text, "num_requests"), 40, "{f}");
        assert!(notes.contains("--num-prompts 40 "), "{f}");
        assert!(
            notes.contains("--random-input-len 8000 --random-output-len 8000"),
            "{f}"
        );
        assert_eq!(scenario_int_key(&text, "prompt_len"), 8000, "{f}");
        assert_eq!(scenario_int_key(&text, "output_len"), 8000, "{f}");
        // 40 requests × 8000 tokens each way, as the file counts them.
        assert!(notes.contains("320000 input and 320000 output tokens"), "{f}");
    }
}

/// vLLM 0.16.0 (`vllm/config/vllm.py`, `_set_cudagraph_sizes`): with no sizes given the largest captured size
/// is min(max_num_seqs × 2, 512) and the sizes are [1, 2, 4] then 8, 16, 24, … up to it; a decode batch runs the
/// smallest captured size at least its size. With --max-num-seqs C = 12, 20 and 28 (largest 24, 40, 56) the full
/// batch runs the graphs of 16, 24 and 32 — the sizes the c 16, 24 and 32 runs use — so each pair's step should
/// match, and both the files and tpsim show it. Tolerances: the files within 3 % a pair (19.83 / 19.66 = 1.009,
/// 25.42 / 24.73 = 1.028, 29.07 / 28.44 = 1.022: separate runs of 80 requests), tpsim within 2 % (one padded batch,
/// the attention over the unpadded contexts), against a 24 % (file) and 61 % (tpsim, median ITL 13.87 → 22.26 ms)
/// rise from c 8 to c 12, across a bucket edge.
#[test]
fn steps_follow_vllm_cuda_graph_buckets() {
    let measured = |c: u64| -> f64 {
        let src = if [8, 16, 32].contains(&c) {
            SRC_NEWDEPLOYS19
        } else {
            SRC_PRO6000
        };
        1000.0 / measured_throughput(src, "Qwen3-Coder-Next", |n| n.starts_with(&note(c)))
    };
    let tpsim = |c: u64| -> f64 {
        let v = run_json(&scenario(&format!("validation/{}", file(c))));
        f(&v["serving"]["tpot_ms"]["p50"])
    };
    for (a, b) in [(12, 16), (20, 24), (28, 32)] {
        let (ma, mb) = (measured(a), measured(b));
        assert!(
            (ma / mb - 1.0).abs() < 0.03,
            "file c {a} {ma} ms against c {b} {mb} ms"
        );
        let (ta, tb) = (tpsim(a), tpsim(b));
        assert!(
            (ta / tb - 1.0).abs() < 0.02,
            "tpsim c {a} {ta} ms against c {b} {tb} ms"
        );
    }
    // Across the 8 → 16 edge the step rises in both.
    assert!(measured(12) / measured(8) > 1.2);
    assert!(tpsim(12) / tpsim(8) > 1.2);
}

#[test]
fn every_deploys30_row_is_compared() {
    // Five rows of the Pro 6000 sweep (c 12, 20, 24, 28, 36), four of the B200 sweep (c 16, 24, 32, 40), four of
    // the Workstation Edition sweep (c 8, 12, 16, 32), its context sweep's 128k row and two of the 2026-02-25 RTX
    // 5090 sweep (c 8, 12); the tests above compare each once.
    assert_eq!(
        (ROWS.len(), KIMI_ROWS.len(), WS_ROWS.len(), RTX5090_ROWS.len()),
        (5, 4, 4, 2)
    );
    assert_eq!(throughput_rows_per_source(DEPLOYS30_SOURCES), [5, 4, 4, 1, 2]);
}
