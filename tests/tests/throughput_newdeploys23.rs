//! Twenty-third round of new deployments (newdeploys23, issues #17/#18): the GPUStack performance lab's
//! GLM-4.x page on 8× H200 SXM, which earlier rounds (newdeploys3/6/7/11) did not read — GLM-4.6 bf16 under
//! vLLM 0.11.0 at TP 8 (the page's baseline) and GLM-4.6-FP8 under SGLang 0.5.3 at TP 4 (its optimized
//! configuration; the first SGLang 0.5.3 rows). Each run is written as the page's serving command reads
//! (`scenarios/validation/{glm-4.6-h200x8-vllm-0.11-tp8-*,glm-4.6-fp8-h200x4-sglang-0.5.3-tp4-*}.toml`,
//! assumptions listed there) and compared with the **default (uncalibrated) profile** against
//! [`TARGET`](crate::throughput_rows::TARGET) and [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The
//! measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: github.com/gpustack/gpustack `docs/performance-lab/glm-4.x/h200.md` at commit 47277d7 (the page
//! and these runs were added as `glm-4.6/h200.md` in 72aee9d, 2025-10-31; renamed in 69e8a91, last changed
//! in 1f37f1b, 2026-01-06), "Other Benchmark Cases": "Engine Version" vLLM v0.11.0 and SGLang v0.5.3,
//! "8 × NVIDIA H200 SXM GPUs on a single node", every run `vllm bench serve --backend openai-chat --endpoint
//! /v1/chat/completions`:
//!
//! - baseline, `vllm serve zai-org/GLM-4.6 -tp 8`: the 4000/200 and 2000/100 random bursts of 500 (`--seed
//!   42`, no request rate, no max concurrency: every request at t = 0), compared as tpsim's end-to-end
//!   output rate against "Output token throughput", as newdeploys3/6/7/11's bursts; and "ShareGPT batch size
//!   4" (100 prompts, `--max-concurrency 4`), a decode measurement compared as 1000 ÷ tpsim's median TPOT
//!   against 1000 ÷ the printed median TPOT, ShareGPT's lengths as their means (newdeploys3/11);
//! - optimized, `python3 -m sglang.launch_server --model zai-org/GLM-4.6-FP8 --tp 4 --tool-call-parser glm
//!   --reasoning-parser glm45` (the page's table scales it "x2" to eight GPUs: one TP 4 server is
//!   simulated, and the row is that server's printed figure): the same two bursts.
//!
//! Not taken: both configurations' 32000/100 bursts of 100 and 128/4 bursts of 1000 (a prefill
//! measurement, and four output tokens: nothing to decode), the ShareGPT bursts of 1000 of "Choosing the
//! Inference Engine", "Quantization" and "Parallelism" (a length distribution tpsim's fixed-length workload
//! does not reproduce, as newdeploys11). Also read and not taken: the lab's `glm-4.x/h100.md` (8× H100 SXM:
//! only ShareGPT bursts of 1000) and `glm-4.x/a100.md` (8× A100 SXM: no 8-GPU A100 NVLink preset), and its
//! `qwen3.5-9b/h100*.md` pages (vLLM 0.17.1 under guidellm at constant request rates, whose printed median
//! TPOT of 0.11 ms is not a decode step). Searched this round and not taken: vllm issues 3297 (8× L40,
//! no model named) and 7567 (Llama 3.1 70B, no box named in the stored excerpt), vllm pull request 31826
//! (TP 2 ITL, no box named), the NVIDIA forum's "6x Spark" thread (DGX Spark: no preset), ld-singh's RTX
//! A6000 report (vLLM 0.23.0 under its own load generator), cloudrift-ai/server-benchmark (every run with
//! a preset already taken by newdeploys5/12/13).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted figures. [`every_newdeploys23_row_is_compared`] fails if a row of this source
//! is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate_e2e_row;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS23_SOURCES: &[(&str, &str)] = &[(
    "github.com/gpustack/gpustack docs/performance-lab/glm-4.x/h200.md",
    "GLM-4.6",
)];

/// The burst rows: (notes prefix, the page's "Output token throughput" in tok/s, scenario file, label).
const BURSTS: &[(&str, f64, &str, &str)] = &[
    (
        "TP 8 random 4K input:",
        794.52,
        "glm-4.6-h200x8-vllm-0.11-tp8-burst-4k.toml",
        "GLM-4.6 bf16, vLLM 0.11.0, 8× H200 TP 8, burst of 500 (4k)",
    ),
    (
        "TP 8 random 2K input:",
        820.20,
        "glm-4.6-h200x8-vllm-0.11-tp8-burst-2k.toml",
        "GLM-4.6 bf16, vLLM 0.11.0, 8× H200 TP 8, burst of 500 (2k)",
    ),
    (
        "TP 4 random 4K input:",
        712.05,
        "glm-4.6-fp8-h200x4-sglang-0.5.3-tp4-burst-4k.toml",
        "GLM-4.6-FP8, SGLang 0.5.3, 4× H200 TP 4, burst of 500 (4k)",
    ),
    (
        "TP 4 random 2K input:",
        827.27,
        "glm-4.6-fp8-h200x4-sglang-0.5.3-tp4-burst-2k.toml",
        "GLM-4.6-FP8, SGLang 0.5.3, 4× H200 TP 4, burst of 500 (2k)",
    ),
];

/// Burst row `i` of [`BURSTS`]: the measured value (checked against the printed figure) against tpsim's
/// end-to-end output rate (output tokens ÷ the whole run, prefill included).
fn burst(i: usize) {
    let (note, printed, file, label) = BURSTS[i];
    let (src, model) = NEWDEPLOYS23_SOURCES[0];
    validate_e2e_row((src, model), (note, printed), file, label, 1.0);
}

#[test]
pub(crate) fn validation_glm_4_6_h200x8_vllm_0_11_burst_4k() {
    // "Output token throughput (tok/s): 794.52" (500 × 4000/200 at t = 0; 99,801 tokens in 125.61 s).
    burst(0);
}

#[test]
pub(crate) fn validation_glm_4_6_h200x8_vllm_0_11_burst_2k() {
    // "Output token throughput (tok/s): 820.20" (500 × 2000/100 at t = 0; 50,000 tokens in 60.96 s).
    burst(1);
}

#[test]
pub(crate) fn validation_glm_4_6_fp8_h200x4_sglang_0_5_3_burst_4k() {
    // "Output token throughput (tok/s): 712.05" (500 × 4000/200 at t = 0; 99,801 tokens in 140.16 s).
    burst(2);
}

#[test]
pub(crate) fn validation_glm_4_6_fp8_h200x4_sglang_0_5_3_burst_2k() {
    // "Output token throughput (tok/s): 827.27" (500 × 2000/100 at t = 0; 50,000 tokens in 60.44 s).
    burst(3);
}

#[test]
pub(crate) fn validation_glm_4_6_h200x8_vllm_0_11_sharegpt_c4() {
    // "Median TPOT (ms): 17.80" at 4 in flight: 1000 ÷ 17.80 = 56.18 tok/s.
    let (src, model) = NEWDEPLOYS23_SOURCES[0];
    compare_tpot_row(
        (src, model, "TP 8 ShareGPT batch size 4:"),
        17.80,
        "glm-4.6-h200x8-vllm-0.11-tp8-sharegpt-c4.toml",
        "GLM-4.6 bf16, vLLM 0.11.0, 8× H200 TP 8, ShareGPT c 4 (per-stream TPOT)",
    );
}

#[test]
fn scenarios_are_the_pages_runs() {
    // Each scenario is its run: the H200 box, tp from the row (the command's -tp 8 / --tp 4), the engine
    // and release the row names (vLLM 0.11.0 / SGLang 0.5.3, the page's "Engine Version"), the preset of
    // the served checkpoint (zai-org/GLM-4.6 bf16 / GLM-4.6-FP8), and prompt_len and output_len the row's
    // printed token totals ÷ its requests, rounded to the nearest token: 1,999,787 / 500 = 3,999.574 →
    // 4,000 and 99,801 / 500 = 199.602 → 200; 999,429 / 500 = 1,998.858 → 1,999 and 50,000 / 500 = 100;
    // 22,992 / 100 = 229.92 → 230 and 21,794 / 100 = 217.94 → 218. The totals are read from the notes
    // ("N in / M out tokens"), not from the scenario.
    let mut rows: Vec<(&str, &str, u64)> = BURSTS.iter().map(|b| (b.0, b.2, 500)).collect();
    rows.push((
        "TP 8 ShareGPT batch size 4:",
        "glm-4.6-h200x8-vllm-0.11-tp8-sharegpt-c4.toml",
        100,
    ));
    let (src, model) = NEWDEPLOYS23_SOURCES[0];
    for (note, file, requests) in rows {
        let row = throughput_row(src, model, note);
        let notes = row.notes.as_str();
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert!(text.contains("\npreset = \"h200-8x-nvlink\"\n"), "{file}");
        assert_eq!(scenario_int_key(&text, "tp"), row.tp, "{file}");
        assert!(note.starts_with(&format!("TP {} ", row.tp)), "{file}");
        let (engine, version, preset) = if notes.contains("SGLang v0.5.3") {
            ("sglang", "0.5.3", "glm-4.6-fp8")
        } else {
            assert!(notes.contains("vLLM v0.11.0"), "{file}");
            ("vllm", "0.11.0", "glm-4.6")
        };
        assert!(
            text.contains(&format!("\nname = \"{engine}\"\nversion = \"{version}\"")),
            "{file}"
        );
        assert!(text.contains(&format!("\npreset = \"{preset}\"\n")), "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), requests, "{file}");
        let totals = notes.split("; ").find(|p| p.contains(" in / ")).unwrap();
        let mut nums = totals.split_whitespace().filter_map(|w| w.parse::<u64>().ok());
        let (tin, tout) = (nums.next().unwrap(), nums.next().unwrap());
        let mean = |t: u64| (t as f64 / requests as f64).round() as u64;
        assert_eq!(scenario_int_key(&text, "prompt_len"), mean(tin), "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), mean(tout), "{file}");
        if requests == 500 {
            assert!(text.contains("\nrequest_rate = inf\n"), "{file}");
        } else {
            assert_eq!(scenario_int_key(&text, "concurrency"), 4, "{file}");
            assert_eq!(row.concurrency, 4, "{file}");
        }
    }
}

#[test]
fn every_newdeploys23_row_is_compared() {
    // Four bursts and the ShareGPT run at 4 in flight; the tests above compare each once.
    assert_eq!(BURSTS.len() + 1, 5);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS23_SOURCES), [5]);
}
