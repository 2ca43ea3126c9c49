//! deploys33 (issue #18): out-of-sample rows for MoE models under recent SGLang releases on datacentre GPUs.
//!
//! Five pages of the SGLang cookbook (github.com/sgl-project/sgl-cookbook, read at 7b5bd9c), each a section 5
//! "Benchmark" of `sglang.bench_serving --backend sglang --dataset-name random --request-rate inf` runs against one
//! launch (three on AMD MI300X, two on 8× B200), random lengths with no `--random-range-ratio` (SGLang's default 0.0: each length uniform in
//! 1..=N, so a 1000/1000 run of 10 prompts has 6101 input and 4220 output tokens, as each block prints):
//!
//! 1. `docs/autoregressive/Llama/Llama4.md` (commit 855445b, 2026-03-18): Llama-4-Scout-17B-16E-Instruct and
//!    Llama-4-Maverick-17B-128E-Instruct (bf16), SGLang 0.5.9 (image lmsysorg/sglang:v0.5.9-rocm720-mi30x), `sglang
//!    serve --tp 8 --context-length 1000000 --trust-remote-code`; 1000/1000 at c 1, 16, 100 (10, 80, 500 prompts).
//! 2. `docs/autoregressive/MiniMax/MiniMax-M2.md` (commit ffd029d, 2026-03-18): MiniMaxAI/MiniMax-M2 (FP8 block),
//!    SGLang 0.5.7 (the Test Environment), `sglang serve --tp-size 4 --trust-remote-code --mem-fraction-static
//!    0.85` on "AMD MI300X GPU(4x)"; 1000/1000 at c 1, 16, 100. Run with the `minimax-m2.5` preset (the same
//!    architecture and shapes; the scenarios say why).
//! 3. `docs/autoregressive/DeepSeek/DeepSeek-V3_1.md` (commit 39b594c, 2026-01-20): deepseek-ai/DeepSeek-V3.1 (FP8
//!    block; the Test Environment says V3.1-Terminus), SGLang 0.5.7, `python -m sglang.launch_server --tp 8` on 8×
//!    MI300X; Chat 1000/1000 at c 1, 16, 100, Reasoning 1000/8000 and Summarization 8000/1000 at c 1, 16, 64 (10,
//!    80, 320 prompts). Run with the `deepseek-v3` preset (V3's shapes, as tests/data/prefill.tsv line 3).
//!
//! 4. `docs/autoregressive/Qwen/Qwen3.md` (commit ec650cf, 2026-01-05), the runs newdeploys17 left ("as slow"):
//!    Qwen3-235B-A22B-Instruct-2507 (bf16) on 8× B200, SGLang 0.5.6, `--tp 8`, Reasoning 1000/8000 and
//!    Summarization 8000/1000 at c 1, 16, 64 (10, 80, 320 prompts), written as newdeploys17's 1000/1000 scenarios.
//!    The same for `docs/autoregressive/GLM/GLM-4.6.md` (commit ec650cf): GLM-4.6 (bf16) on 8× B200, SGLang
//!    0.5.6.post1, `--tp 8`, 1000/8000 and 8000/1000 at c 1, 16, 64.
//! 5. github.com/vllm-project/recipes `StepFun/Step-3.5-Flash.md` (added in e0faabf, 2026-02-02; read at 8959cf6):
//!    stepfun-ai/Step-3.5-Flash (bf16) on 4× H200, "TP4+FP16", `vllm serve --tensor-parallel-size 4
//!    --trust-remote-code` (and the step3p5 parsers), `vllm bench serve --dataset-name random --random-input 2048
//!    --random-output 1024 --max-concurrency 10 --num-prompt 100` (2047 / 1024 tokens a request); the page's
//!    commit installs vLLM's nightly wheel, taken as 0.15.1 (the first release with `models/step3p5.py`).
//!
//! **What is compared**: 1000 ÷ the page's median TPOT against 1000 ÷ tpsim's median TPOT, default (uncalibrated)
//! profile, held to [`TARGET`](crate::throughput_rows::TARGET) or listed in
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The measured value is read from `tests/data/throughput.tsv`,
//! never copied into a scenario. As run (before the lead re-blesses), tpsim's median TPOT against the page's:
//! Scout 5.39 / 10.43 / 18.30 ms against 7.40 / 12.00 / 42.90 (+37.3, +15.1, +134.4 %); Maverick 4.57 / 8.72 / 25.69
//! against 5.96 / 10.22 / 35.37 (+30.5, +17.3, +37.7 %); MiniMax-M2 7.94 / 15.26 / 33.44 against 22.24 / 26.56 /
//! 57.84 (+180.1, +74.1, +73.0 %); DeepSeek-V3.1 chat 10.44 / 21.06 / 45.13 against 23.90 / 35.99 / 76.35 (+128.8,
//! +70.9, +69.2 %), reasoning 10.48 / 20.79 / 38.49 against 24.51 / 34.00 / 55.10 (+133.9, +63.6, +43.2 %),
//! summarization 10.49 / 24.95 / 54.19 against 25.05 / 52.09 / 103.45 (+138.7, +108.8, +90.9 %); Step-3.5-Flash 13.70
//! against 11.87 (−13.4 %); Qwen3-235B on B200 7.85 / 14.32 / 21.16 against 10.24 / 14.91 / 24.07 (1000/8000: +30.5,
//! +4.1, +13.8 %) and 7.86 / 16.05 / 27.67 against 10.33 / 16.66 / 34.27 (8000/1000: +31.5, +3.8, +23.9 %); GLM-4.6 on
//! B200 9.40 / 17.53 / 26.86 against 14.94 / 22.14 / 34.02 (1000/8000: +58.9, +26.3, +26.7 %) and 9.42 / 19.71 / 35.13
//! against 15.03 / 25.73 / 49.04 (8000/1000: +59.5, +30.5, +39.6 %), newdeploys17's GLM-4.6 B200 misses again. Six of
//! 31 within (the Llama 4 c 16 rows, Step-3.5-Flash, the Qwen3 c 16 rows and its 1000/8000 c 64); the B200 c 1 rows
//! repeat newdeploys17's 1000/1000 c 1 miss (+29.2 %); the MI300X rows' misses, all in one direction: tpsim's MI300X step is short of
//! SGLang's on ROCm, as for the earlier SGLang MoE rows on MI300X (newdeploys22's Kimi-Linear, deploys28's
//! MiniMax-M2.7). Nothing was fitted to bring them in.
//!
//! Searched this round and not taken: the cookbook's `Moonshotai/Kimi-K2.md` B200 runs (`--dp 4
//! --enable-dp-attention`: DP attention refused, and ShareGPT lengths), `StepFun/Step3.5.md` (4× H200, "sglang version: 0.5.8", a
//! release tpsim refuses for Step-3.5: SGLang adds `models/step3p5.py` in 0.5.9, families28), `DeepSeek/DeepSeek-V3.md`
//! and `DeepSeek-V3_2.md` (DP attention `--dp 8`, or 16× H800 over two nodes), `NVIDIA/Nemotron3-Nano.md` (a
//! nightly build, B200); vLLM's recipes `GLM/GLM.md` (GLM-4.5-FP8 8k/1k: no GPU named for the output) and
//! `Qwen/Qwen3-Coder-480B-A35B.md` (the FP8 checkpoint benchmarked, launched either TP 8 or DP 8: which is not
//! said), `MiniMax/MiniMax-M2.md` (its output block is a template of "xxx") and `DeepSeek/DeepSeek-V3.md` (one
//! request, the box not tied to the output); the GPUStack lab's `qwen3.5-35b-a3b/h200.md` (guidellm at a constant 1000 req/s, its generation-heavy
//! mean TPOT of 2.48 ms at 200 requests not a decode step, as newdeploys23 found for the qwen3.5-9b pages); the lab's
//! other pages were all taken or refused by earlier rounds except
//! `glm-5.2/h200.md` (no GLM-5.2 preset; not read this round). No PCIe consumer-card source was found.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. [`every_deploys33_row_is_compared`] fails if a
//! row of these sources is added without a test here.

use crate::common::*;

/// Source prefix of the Llama 4 rows (`throughput.tsv`'s source column, before the section).
const SRC_LLAMA4: &str = "github.com/sgl-project/sgl-cookbook docs/autoregressive/Llama/Llama4.md (commit 855445b, 2026-03-18; read at 7b5bd9c)";
/// Source prefix of the MiniMax-M2 rows.
const SRC_MINIMAX_M2: &str = "github.com/sgl-project/sgl-cookbook docs/autoregressive/MiniMax/MiniMax-M2.md (commit ffd029d, 2026-03-18; read at 7b5bd9c)";
/// Source prefix of the DeepSeek-V3.1 rows.
const SRC_DEEPSEEK_V31: &str = "github.com/sgl-project/sgl-cookbook docs/autoregressive/DeepSeek/DeepSeek-V3_1.md (commit 39b594c, 2026-01-20; read at 7b5bd9c)";

/// Source prefix of the Qwen3-235B rows: the page newdeploys17 took the 1000/1000 runs of (its
/// `NEWDEPLOYS17_SOURCES` counts these rows too).
const SRC_QWEN3: &str = "github.com/sgl-project/sgl-cookbook docs/autoregressive/Qwen/Qwen3.md (commit ec650cf, 2026-01-05; read at 7b5bd9c)";

/// Source prefix of the GLM-4.6 rows: the page newdeploys17 took the 1000/1000 runs of (its
/// `NEWDEPLOYS17_SOURCES` counts these rows too).
const SRC_GLM46: &str = "github.com/sgl-project/sgl-cookbook docs/autoregressive/GLM/GLM-4.6.md (commit ec650cf, 2026-01-05; read at 7b5bd9c)";

/// Source prefix of the Step-3.5-Flash row (vLLM's recipe page).
const SRC_STEP35: &str = "github.com/vllm-project/recipes StepFun/Step-3.5-Flash.md (added in e0faabf, 2026-02-02; read at 8959cf6)";

/// The scenario of the Step-3.5-Flash row.
const STEP35_FILE: &str = "step-3.5-flash-h200x4-vllm-0.15.1-tp4-2k1k-c10.toml";

/// The label [`validate`](crate::throughput_rows::validate) files the Step-3.5-Flash row under.
const STEP35_LABEL: &str =
    "Step-3.5-Flash bf16, vLLM 0.15.1 (nightly), 4× H200 TP 4, random 2k/1k c 10 (per-stream TPOT)";

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test accepts a
/// row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS33_SOURCES: &[(&str, &str)] = &[
    (SRC_LLAMA4, "Llama-4-Scout-17B-16E-Instruct"),
    (SRC_LLAMA4, "Llama-4-Maverick-17B-128E-Instruct"),
    (SRC_MINIMAX_M2, "MiniMax-M2"),
    (SRC_DEEPSEEK_V31, "DeepSeek-V3.1"),
    (SRC_STEP35, "Step-3.5-Flash"),
];

/// The Qwen3-235B rows of `throughput.tsv` that are this file's (the 1000/8000 and 8000/1000 runs): the notes of
/// newdeploys17's rows say "random 1000/1000".
fn is_deploys33_qwen3_note(note: &str) -> bool {
    note.starts_with("8x B200 TP 8 random 1000/8000") || note.starts_with("8x B200 TP 8 random 8000/1000")
}

/// One run of a page: what the page states, and the scenario and label tpsim's comparison uses.
struct Row {
    /// Source prefix ([`SRC_LLAMA4`] …).
    src: &'static str,
    /// `throughput.tsv`'s model column.
    model: &'static str,
    /// The GPU as the row's notes name it (`MI300X`, `B200`).
    gpu: &'static str,
    /// The SGLang release of the page's Test Environment.
    version: &'static str,
    /// `--tp`.
    tp: u64,
    /// `--random-input-len`, tokens.
    isl: u64,
    /// `--random-output-len`, tokens.
    osl: u64,
    /// `--max-concurrency`.
    c: u64,
    /// `--num-prompts`.
    prompts: u64,
    /// The block's Median TPOT, ms.
    tpot_ms: f64,
    /// The scenario under `scenarios/validation/`.
    file: &'static str,
    /// The label [`validate`](crate::throughput_rows::validate) files the row under.
    label: &'static str,
}

/// The 18 runs, in the pages' order.
#[rustfmt::skip]
const ROWS: &[Row] = &[
    Row { src: SRC_LLAMA4, model: "Llama-4-Scout-17B-16E-Instruct", gpu: "MI300X", version: "0.5.9", tp: 8, isl: 1000, osl: 1000, c: 1, prompts: 10, tpot_ms: 7.40, file: "llama-4-scout-mi300x8-sglang-0.5.9-tp8-1k1k-c1.toml", label: "Llama-4-Scout-17B-16E bf16, SGLang 0.5.9, 8× MI300X TP 8, random 1k/1k c 1 (per-stream TPOT)" },
    Row { src: SRC_LLAMA4, model: "Llama-4-Scout-17B-16E-Instruct", gpu: "MI300X", version: "0.5.9", tp: 8, isl: 1000, osl: 1000, c: 16, prompts: 80, tpot_ms: 12.00, file: "llama-4-scout-mi300x8-sglang-0.5.9-tp8-1k1k-c16.toml", label: "Llama-4-Scout-17B-16E bf16, SGLang 0.5.9, 8× MI300X TP 8, random 1k/1k c 16 (per-stream TPOT)" },
    Row { src: SRC_LLAMA4, model: "Llama-4-Scout-17B-16E-Instruct", gpu: "MI300X", version: "0.5.9", tp: 8, isl: 1000, osl: 1000, c: 100, prompts: 500, tpot_ms: 42.90, file: "llama-4-scout-mi300x8-sglang-0.5.9-tp8-1k1k-c100.toml", label: "Llama-4-Scout-17B-16E bf16, SGLang 0.5.9, 8× MI300X TP 8, random 1k/1k c 100 (per-stream TPOT)" },
    Row { src: SRC_LLAMA4, model: "Llama-4-Maverick-17B-128E-Instruct", gpu: "MI300X", version: "0.5.9", tp: 8, isl: 1000, osl: 1000, c: 1, prompts: 10, tpot_ms: 5.96, file: "llama-4-maverick-mi300x8-sglang-0.5.9-tp8-1k1k-c1.toml", label: "Llama-4-Maverick-17B-128E bf16, SGLang 0.5.9, 8× MI300X TP 8, random 1k/1k c 1 (per-stream TPOT)" },
    Row { src: SRC_LLAMA4, model: "Llama-4-Maverick-17B-128E-Instruct", gpu: "MI300X", version: "0.5.9", tp: 8, isl: 1000, osl: 1000, c: 16, prompts: 80, tpot_ms: 10.22, file: "llama-4-maverick-mi300x8-sglang-0.5.9-tp8-1k1k-c16.toml", label: "Llama-4-Maverick-17B-128E bf16, SGLang 0.5.9, 8× MI300X TP 8, random 1k/1k c 16 (per-stream TPOT)" },
    Row { src: SRC_LLAMA4, model: "Llama-4-Maverick-17B-128E-Instruct", gpu: "MI300X", version: "0.5.9", tp: 8, isl: 1000, osl: 1000, c: 100, prompts: 500, tpot_ms: 35.37, file: "llama-4-maverick-mi300x8-sglang-0.5.9-tp8-1k1k-c100.toml", label: "Llama-4-Maverick-17B-128E bf16, SGLang 0.5.9, 8× MI300X TP 8, random 1k/1k c 100 (per-stream TPOT)" },
    Row { src: SRC_MINIMAX_M2, model: "MiniMax-M2", gpu: "MI300X", version: "0.5.7", tp: 4, isl: 1000, osl: 1000, c: 1, prompts: 10, tpot_ms: 22.24, file: "minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c1.toml", label: "MiniMax-M2 FP8, SGLang 0.5.7, 4× MI300X TP 4, random 1k/1k c 1 (per-stream TPOT)" },
    Row { src: SRC_MINIMAX_M2, model: "MiniMax-M2", gpu: "MI300X", version: "0.5.7", tp: 4, isl: 1000, osl: 1000, c: 16, prompts: 80, tpot_ms: 26.56, file: "minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c16.toml", label: "MiniMax-M2 FP8, SGLang 0.5.7, 4× MI300X TP 4, random 1k/1k c 16 (per-stream TPOT)" },
    Row { src: SRC_MINIMAX_M2, model: "MiniMax-M2", gpu: "MI300X", version: "0.5.7", tp: 4, isl: 1000, osl: 1000, c: 100, prompts: 500, tpot_ms: 57.84, file: "minimax-m2-mi300x4-sglang-0.5.7-tp4-1k1k-c100.toml", label: "MiniMax-M2 FP8, SGLang 0.5.7, 4× MI300X TP 4, random 1k/1k c 100 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 1000, osl: 1000, c: 1, prompts: 10, tpot_ms: 23.90, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c1.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 1k/1k c 1 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 1000, osl: 1000, c: 16, prompts: 80, tpot_ms: 35.99, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c16.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 1k/1k c 16 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 1000, osl: 1000, c: 100, prompts: 500, tpot_ms: 76.35, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c100.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 1k/1k c 100 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 1000, osl: 8000, c: 1, prompts: 10, tpot_ms: 24.51, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c1.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 1k/8k c 1 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 1000, osl: 8000, c: 16, prompts: 80, tpot_ms: 34.00, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c16.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 1k/8k c 16 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 1000, osl: 8000, c: 64, prompts: 320, tpot_ms: 55.10, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c64.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 1k/8k c 64 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 8000, osl: 1000, c: 1, prompts: 10, tpot_ms: 25.05, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c1.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 8k/1k c 1 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 8000, osl: 1000, c: 16, prompts: 80, tpot_ms: 52.09, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c16.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 8k/1k c 16 (per-stream TPOT)" },
    Row { src: SRC_DEEPSEEK_V31, model: "DeepSeek-V3.1", gpu: "MI300X", version: "0.5.7", tp: 8, isl: 8000, osl: 1000, c: 64, prompts: 320, tpot_ms: 103.45, file: "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c64.toml", label: "DeepSeek-V3.1 FP8, SGLang 0.5.7, 8× MI300X TP 8, random 8k/1k c 64 (per-stream TPOT)" },
    Row { src: SRC_QWEN3, model: "Qwen3-235B-A22B-Instruct-2507", gpu: "B200", version: "0.5.6", tp: 8, isl: 1000, osl: 8000, c: 1, prompts: 10, tpot_ms: 10.24, file: "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k8k-c1.toml", label: "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 1k/8k c 1 (per-stream TPOT)" },
    Row { src: SRC_QWEN3, model: "Qwen3-235B-A22B-Instruct-2507", gpu: "B200", version: "0.5.6", tp: 8, isl: 1000, osl: 8000, c: 16, prompts: 80, tpot_ms: 14.91, file: "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k8k-c16.toml", label: "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 1k/8k c 16 (per-stream TPOT)" },
    Row { src: SRC_QWEN3, model: "Qwen3-235B-A22B-Instruct-2507", gpu: "B200", version: "0.5.6", tp: 8, isl: 1000, osl: 8000, c: 64, prompts: 320, tpot_ms: 24.07, file: "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-1k8k-c64.toml", label: "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 1k/8k c 64 (per-stream TPOT)" },
    Row { src: SRC_QWEN3, model: "Qwen3-235B-A22B-Instruct-2507", gpu: "B200", version: "0.5.6", tp: 8, isl: 8000, osl: 1000, c: 1, prompts: 10, tpot_ms: 10.33, file: "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-8k1k-c1.toml", label: "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 8k/1k c 1 (per-stream TPOT)" },
    Row { src: SRC_QWEN3, model: "Qwen3-235B-A22B-Instruct-2507", gpu: "B200", version: "0.5.6", tp: 8, isl: 8000, osl: 1000, c: 16, prompts: 80, tpot_ms: 16.66, file: "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-8k1k-c16.toml", label: "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 8k/1k c 16 (per-stream TPOT)" },
    Row { src: SRC_QWEN3, model: "Qwen3-235B-A22B-Instruct-2507", gpu: "B200", version: "0.5.6", tp: 8, isl: 8000, osl: 1000, c: 64, prompts: 320, tpot_ms: 34.27, file: "qwen3-235b-a22b-b200x8-sglang-0.5.6-tp8-8k1k-c64.toml", label: "Qwen3-235B-A22B-Instruct-2507 bf16, SGLang 0.5.6, 8× B200 TP 8, random 8k/1k c 64 (per-stream TPOT)" },
    Row { src: SRC_GLM46, model: "GLM-4.6", gpu: "B200", version: "0.5.6.post1", tp: 8, isl: 1000, osl: 8000, c: 1, prompts: 10, tpot_ms: 14.94, file: "glm-4.6-b200x8-sglang-0.5.6-tp8-1k8k-c1.toml", label: "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 1k/8k c 1 (per-stream TPOT)" },
    Row { src: SRC_GLM46, model: "GLM-4.6", gpu: "B200", version: "0.5.6.post1", tp: 8, isl: 1000, osl: 8000, c: 16, prompts: 80, tpot_ms: 22.14, file: "glm-4.6-b200x8-sglang-0.5.6-tp8-1k8k-c16.toml", label: "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 1k/8k c 16 (per-stream TPOT)" },
    Row { src: SRC_GLM46, model: "GLM-4.6", gpu: "B200", version: "0.5.6.post1", tp: 8, isl: 1000, osl: 8000, c: 64, prompts: 320, tpot_ms: 34.02, file: "glm-4.6-b200x8-sglang-0.5.6-tp8-1k8k-c64.toml", label: "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 1k/8k c 64 (per-stream TPOT)" },
    Row { src: SRC_GLM46, model: "GLM-4.6", gpu: "B200", version: "0.5.6.post1", tp: 8, isl: 8000, osl: 1000, c: 1, prompts: 10, tpot_ms: 15.03, file: "glm-4.6-b200x8-sglang-0.5.6-tp8-8k1k-c1.toml", label: "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 8k/1k c 1 (per-stream TPOT)" },
    Row { src: SRC_GLM46, model: "GLM-4.6", gpu: "B200", version: "0.5.6.post1", tp: 8, isl: 8000, osl: 1000, c: 16, prompts: 80, tpot_ms: 25.73, file: "glm-4.6-b200x8-sglang-0.5.6-tp8-8k1k-c16.toml", label: "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 8k/1k c 16 (per-stream TPOT)" },
    Row { src: SRC_GLM46, model: "GLM-4.6", gpu: "B200", version: "0.5.6.post1", tp: 8, isl: 8000, osl: 1000, c: 64, prompts: 320, tpot_ms: 49.04, file: "glm-4.6-b200x8-sglang-0.5.6-tp8-8k1k-c64.toml", label: "GLM-4.6 bf16, SGLang 0.5.6.post1, 8× B200 TP 8, random 8k/1k c 64 (per-stream TPOT)" },
];

/// The row's notes prefix in `throughput.tsv`.
fn note(r: &Row) -> String {
    format!(
        "{}x {} TP {} random {}/{} c {}:",
        r.tp, r.gpu, r.tp, r.isl, r.osl, r.c
    )
}

/// Compares one row: 1000 ÷ the page's median TPOT against 1000 ÷ tpsim's median TPOT.
fn compare(r: &Row) {
    compare_tpot_row((r.src, r.model, &note(r)), r.tpot_ms, r.file, r.label);
}

#[test]
pub(crate) fn validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c1() {
    // 5.1.1 Low Concurrency (Latency-Optimized): median TPOT 7.40 ms → 1000 ÷ 7.40 = 135.14 tok/s a stream.
    compare(&ROWS[0]);
}

#[test]
pub(crate) fn validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c16() {
    // 5.1.2 Medium Concurrency (Balanced): median TPOT 12.00 ms → 1000 ÷ 12.00 = 83.33 tok/s a stream.
    compare(&ROWS[1]);
}

#[test]
pub(crate) fn validation_llama_4_scout_mi300x8_sglang_0_5_9_tp8_1k1k_c100() {
    // 5.1.3 High Concurrency (Throughput-Optimized): median TPOT 42.90 ms → 1000 ÷ 42.90 = 23.31 tok/s a stream.
    compare(&ROWS[2]);
}

#[test]
pub(crate) fn validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c1() {
    // 5.2.1 Low Concurrency (Latency-Optimized): median TPOT 5.96 ms → 1000 ÷ 5.96 = 167.79 tok/s a stream.
    compare(&ROWS[3]);
}

#[test]
pub(crate) fn validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c16() {
    // 5.2.2 Medium Concurrency (Balanced): median TPOT 10.22 ms → 1000 ÷ 10.22 = 97.85 tok/s a stream.
    compare(&ROWS[4]);
}

#[test]
pub(crate) fn validation_llama_4_maverick_mi300x8_sglang_0_5_9_tp8_1k1k_c100() {
    // 5.2.3 High Concurrency (Throughput-Optimized): median TPOT 35.37 ms → 1000 ÷ 35.37 = 28.27 tok/s a stream.
    compare(&ROWS[5]);
}

#[test]
pub(crate) fn validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c1() {
    // 5.1.1 Low Concurrency (Latency-Optimized): median TPOT 22.24 ms → 1000 ÷ 22.24 = 44.96 tok/s a stream.
    compare(&ROWS[6]);
}

#[test]
pub(crate) fn validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c16() {
    // 5.1.2 Medium Concurrency (Balanced): median TPOT 26.56 ms → 1000 ÷ 26.56 = 37.65 tok/s a stream.
    compare(&ROWS[7]);
}

#[test]
pub(crate) fn validation_minimax_m2_mi300x4_sglang_0_5_7_tp4_1k1k_c100() {
    // 5.1.3 High Concurrency (Throughput-Optimized): median TPOT 57.84 ms → 1000 ÷ 57.84 = 17.29 tok/s a stream.
    compare(&ROWS[8]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c1() {
    // 5.1.4 Scenario 1: Chat (1K/1K), Low Concurrency: median TPOT 23.90 ms → 1000 ÷ 23.90 = 41.84 tok/s a stream.
    compare(&ROWS[9]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c16() {
    // 5.1.4 Scenario 1: Chat (1K/1K), Medium Concurrency: median TPOT 35.99 ms → 1000 ÷ 35.99 = 27.79 tok/s a stream.
    compare(&ROWS[10]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k1k_c100() {
    // 5.1.4 Scenario 1: Chat (1K/1K), High Concurrency: median TPOT 76.35 ms → 1000 ÷ 76.35 = 13.10 tok/s a stream.
    compare(&ROWS[11]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c1() {
    // 5.1.4 Scenario 2: Reasoning (1K/8K), Low Concurrency: median TPOT 24.51 ms → 1000 ÷ 24.51 = 40.80 tok/s a stream.
    compare(&ROWS[12]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c16() {
    // 5.1.4 Scenario 2: Reasoning (1K/8K), Medium Concurrency: median TPOT 34.00 ms → 1000 ÷ 34.00 = 29.41 tok/s a stream.
    compare(&ROWS[13]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_1k8k_c64() {
    // 5.1.4 Scenario 2: Reasoning (1K/8K), High Concurrency: median TPOT 55.10 ms → 1000 ÷ 55.10 = 18.15 tok/s a stream.
    compare(&ROWS[14]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c1() {
    // 5.1.4 Scenario 3: Summarization (8K/1K), Low Concurrency: median TPOT 25.05 ms → 1000 ÷ 25.05 = 39.92 tok/s a stream.
    compare(&ROWS[15]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c16() {
    // 5.1.4 Scenario 3: Summarization (8K/1K), Medium Concurrency: median TPOT 52.09 ms → 1000 ÷ 52.09 = 19.20 tok/s a stream.
    compare(&ROWS[16]);
}

#[test]
pub(crate) fn validation_deepseek_v3_1_mi300x8_sglang_0_5_7_tp8_8k1k_c64() {
    // 5.1.4 Scenario 3: Summarization (8K/1K), High Concurrency: median TPOT 103.45 ms → 1000 ÷ 103.45 = 9.67 tok/s a stream.
    compare(&ROWS[17]);
}
#[test]
pub(crate) fn validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c1() {
    // Qwen3.md, random 1000/8000 c 1: median TPOT 10.24 ms → 1000 ÷ 10.24 = 97.66 tok/s a stream.
    compare(&ROWS[18]);
}

#[test]
pub(crate) fn validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c16() {
    // Qwen3.md, random 1000/8000 c 16: median TPOT 14.91 ms → 1000 ÷ 14.91 = 67.07 tok/s a stream.
    compare(&ROWS[19]);
}

#[test]
pub(crate) fn validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_1k8k_c64() {
    // Qwen3.md, random 1000/8000 c 64: median TPOT 24.07 ms → 1000 ÷ 24.07 = 41.55 tok/s a stream.
    compare(&ROWS[20]);
}

#[test]
pub(crate) fn validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c1() {
    // Qwen3.md, random 8000/1000 c 1: median TPOT 10.33 ms → 1000 ÷ 10.33 = 96.81 tok/s a stream.
    compare(&ROWS[21]);
}

#[test]
pub(crate) fn validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c16() {
    // Qwen3.md, random 8000/1000 c 16: median TPOT 16.66 ms → 1000 ÷ 16.66 = 60.02 tok/s a stream.
    compare(&ROWS[22]);
}

#[test]
pub(crate) fn validation_qwen3_235b_a22b_b200x8_sglang_0_5_6_tp8_8k1k_c64() {
    // Qwen3.md, random 8000/1000 c 64: median TPOT 34.27 ms → 1000 ÷ 34.27 = 29.18 tok/s a stream.
    compare(&ROWS[23]);
}

#[test]
pub(crate) fn validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c1() {
    // GLM-4.6.md, random 1000/8000 c 1: median TPOT 14.94 ms → 1000 ÷ 14.94 = 66.93 tok/s a stream.
    compare(&ROWS[24]);
}

#[test]
pub(crate) fn validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c16() {
    // GLM-4.6.md, random 1000/8000 c 16: median TPOT 22.14 ms → 1000 ÷ 22.14 = 45.17 tok/s a stream.
    compare(&ROWS[25]);
}

#[test]
pub(crate) fn validation_glm_4_6_b200x8_sglang_0_5_6_tp8_1k8k_c64() {
    // GLM-4.6.md, random 1000/8000 c 64: median TPOT 34.02 ms → 1000 ÷ 34.02 = 29.39 tok/s a stream.
    compare(&ROWS[26]);
}

#[test]
pub(crate) fn validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c1() {
    // GLM-4.6.md, random 8000/1000 c 1: median TPOT 15.03 ms → 1000 ÷ 15.03 = 66.53 tok/s a stream.
    compare(&ROWS[27]);
}

#[test]
pub(crate) fn validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c16() {
    // GLM-4.6.md, random 8000/1000 c 16: median TPOT 25.73 ms → 1000 ÷ 25.73 = 38.87 tok/s a stream.
    compare(&ROWS[28]);
}

#[test]
pub(crate) fn validation_glm_4_6_b200x8_sglang_0_5_6_tp8_8k1k_c64() {
    // GLM-4.6.md, random 8000/1000 c 64: median TPOT 49.04 ms → 1000 ÷ 49.04 = 20.39 tok/s a stream.
    compare(&ROWS[29]);
}

#[test]
pub(crate) fn validation_step_3_5_flash_h200x4_vllm_0_15_1_tp4_2k1k_c10() {
    // The recipe's "TP4+FP16 on 4*H200" output: median TPOT 11.87 ms → 1000 ÷ 11.87 = 84.25 tok/s a stream.
    compare_tpot_row(
        (
            SRC_STEP35,
            "Step-3.5-Flash",
            "4x H200 TP 4 random 2047/1024 c 10:",
        ),
        11.87,
        STEP35_FILE,
        STEP35_LABEL,
    );
}

/// The Step-3.5-Flash scenario runs the recipe's command: 10 in flight, 100 prompts, 2047 input tokens (the
/// block's 204700 ÷ 100) and 1024 output (102400 ÷ 100) a request, TP 4 under vLLM 0.15.1 on the H200 box.
#[test]
fn step35_scenario_runs_the_recipes_command() {
    let text = std::fs::read_to_string(scenario(&format!("validation/{STEP35_FILE}"))).expect("scenario");
    assert_eq!(scenario_int_key(&text, "concurrency"), 10);
    assert_eq!(scenario_int_key(&text, "num_requests"), 100);
    // 204700 / 100 = 2047, 102400 / 100 = 1024.
    assert_eq!(scenario_int_key(&text, "prompt_len"), 204_700 / 100);
    assert_eq!(scenario_int_key(&text, "output_len"), 102_400 / 100);
    assert_eq!(scenario_int_key(&text, "tp"), 4);
    assert!(text.contains("version = \"0.15.1\"") && text.contains("preset = \"h200-8x-nvlink\""));
    let row = throughput_row(
        SRC_STEP35,
        "Step-3.5-Flash",
        "4x H200 TP 4 random 2047/1024 c 10:",
    );
    assert_eq!((row.tp, row.concurrency), (4, 10));
}

/// Each scenario runs its block's command: `concurrency` = `--max-concurrency`, `num_requests` = `--num-prompts`,
/// both lengths `{ random = N, range_ratio = 0.0 }`, the page's TP and release; the row's notes name the same
/// median TPOT. Fails if a scenario and its row drift apart.
#[test]
fn deploys33_scenarios_run_the_pages_commands() {
    for r in ROWS {
        let text = std::fs::read_to_string(scenario(&format!("validation/{}", r.file))).expect("scenario");
        assert_eq!(scenario_int_key(&text, "concurrency"), r.c, "{}", r.file);
        assert_eq!(scenario_int_key(&text, "num_requests"), r.prompts, "{}", r.file);
        assert_eq!(scenario_int_key(&text, "tp"), r.tp, "{}", r.file);
        assert_eq!(random_len(&text, "prompt_len"), Some(r.isl), "{}", r.file);
        assert_eq!(random_len(&text, "output_len"), Some(r.osl), "{}", r.file);
        let box_preset = if r.gpu == "B200" {
            "b200-8x-nvlink"
        } else {
            "mi300x-8x-xgmi"
        };
        assert!(text.contains(&format!("preset = \"{box_preset}\"")), "{}", r.file);
        assert!(
            text.contains(&format!("version = \"{}\"", r.version)),
            "{}",
            r.file
        );
        let row = throughput_row(r.src, r.model, &note(r));
        assert_eq!((row.tp, row.concurrency), (r.tp, r.c), "{}", r.file);
        assert!(
            row.notes
                .contains(&format!("1000 / median TPOT {:.2} ms", r.tpot_ms)),
            "{}: {}",
            r.file,
            row.notes
        );
    }
}

/// One request at a time the step hardly depends on the lengths: the page's DeepSeek-V3.1 c 1 median TPOT is
/// 23.90 (1k/1k), 24.51 (1k/8k) and 25.05 ms (8k/1k), within 5 %; tpsim's (as run) 10.44, 10.48 and 10.49 ms.
/// Fails if tpsim's 1k/8k or 8k/1k c 1 step is more than 5 % over its 1k/1k one (the page: 2.6 and 4.8 %), i.e.
/// if the context started to dominate tpsim's MI300X c 1 step where the page's does not.
#[test]
fn deepseek_v31_c1_step_is_flat_across_lengths() {
    let tpot =
        |file: &str| f(&run_json(&scenario(&format!("validation/{file}")))["serving"]["tpot_ms"]["p50"]);
    let (a, b, c) = (
        tpot("deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c1.toml"),
        tpot("deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c1.toml"),
        tpot("deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c1.toml"),
    );
    assert!(b / a < 1.05 && c / a < 1.05, "{a} {b} {c}");
    // The page: 24.51 / 23.90 = 1.026, 25.05 / 23.90 = 1.048.
    assert!(ROWS[12].tpot_ms / ROWS[9].tpot_ms < 1.05 && ROWS[15].tpot_ms / ROWS[9].tpot_ms < 1.05);
}

#[test]
fn every_deploys33_row_is_compared() {
    // Scout 3 + Maverick 3 + MiniMax-M2 3 + DeepSeek-V3.1 9 (three scenarios × three concurrencies) in ROWS, and
    // the one Step-3.5-Flash row of vLLM's recipe.
    // And six Qwen3-235B runs on 8× B200 (1000/8000 and 8000/1000 at c 1, 16, 64), whose page newdeploys17 also
    // reads (its three 1000/1000 rows): 9 rows of that page in all.
    // And GLM-4.6's six such runs on 8× B200 (newdeploys17 took its three 1000/1000 rows).
    assert_eq!(ROWS.len(), 30);
    assert_eq!(throughput_rows_per_source(&[(SRC_GLM46, "GLM-4.6")]), [9]);
    assert_eq!(throughput_rows_per_source(DEPLOYS33_SOURCES), [3, 3, 3, 9, 1]);
    assert_eq!(
        throughput_rows_per_source(&[(SRC_QWEN3, "Qwen3-235B-A22B-Instruct-2507")]),
        [9]
    );
    let mine = ROWS
        .iter()
        .filter(|r| r.src == SRC_QWEN3 && is_deploys33_qwen3_note(&note(r)))
        .count();
    assert_eq!(mine, 6);
}
