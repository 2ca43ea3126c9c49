//! deploys24 (issue #18): new out-of-sample deployment rows — cloudrift-ai/server-benchmark's
//! Qwen3-Coder-480B-A35B-Instruct AWQ runs (QuantTrio's checkpoint) under vLLM on its 8× RTX PRO 6000
//! Blackwell Workstation box (PCIe, no switch, no NVLink: two TP-4 expert-parallel engines, or two PP-4
//! engines, behind nginx) and on an 8× H200 box (two TP-4 engines), which earlier rounds left for want of a
//! preset (newdeploys12: "Not taken: the same directory's Qwen3-Coder-480B-A35B AWQ … rows"). Each run is
//! written as its compose file reads (`scenarios/validation/qwen3-coder-480b-awq-*.toml`, assumptions listed
//! there: vLLM 0.11.0 for `latest`, the AWQ layout int4 g128 with zero points on attention and experts, the
//! chat template's 8 tokens) and compared with the **default (uncalibrated) profile** against
//! [`TARGET`](crate::throughput_rows::TARGET) and [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). The
//! measured value is read from `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: github.com/cloudrift-ai/server-benchmark, `results/pro6000_l40s_h100_h200/` (files read at the
//! commits each row names), each file vLLM's "Serving Benchmark Result" block, the docker compose file and
//! the `vllm bench serve` command:
//!
//! - the rows at 256 / 512 in flight (two engines, nginx spreading the client's requests): one engine is
//!   simulated with half the concurrency and half the requests, and the box is **2 ×** its end-to-end
//!   output rate, compared with the file's "Output token throughput" (the rule of newdeploys13's replica
//!   rows);
//! - the `single-query/` rows (one request in flight, one engine busy at a time): 1000 ÷ tpsim's median
//!   TPOT against 1000 ÷ the file's median TPOT.
//!
//! Read and not taken this round: the same directory's GLM-4.5-Air AWQ runs (no GLM-4.5-Air preset); the
//! GPUStack lab's `qwen3-32b/h100.md` (vLLM 0.11.0 baseline `vllm serve Qwen/Qwen3-32B` on one H100: its 4K
//! and 2K bursts of 500 ran, and so did its 32K burst, where tpsim's vLLM 0.11.0 plan for an 80 GB H100
//! refuses to start at 32,768 tokens of context — 4.35 GiB of KV after a 5.6 GiB profile peak, 17,808
//! tokens — so either the lab's H100 is a 94 GB H100 NVL or tpsim's profile peak on SM 9.0 is too high: a
//! lead for the memory model, not a row); the SGLang cookbook's `Qwen/Qwen3-Coder-480B-A35B.md` (the FP8
//! checkpoint on MI300X at TP 8 EP 2, as newdeploys22 found for `Qwen3-Coder.md`) and `GLM/GLM-4.7.md`
//! (commands, no results); sgl-project/sglang issue 18870 (8× RTX PRO 6000 MiniMax-M2.5: only its opening
//! is stored).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted figures. [`every_deploys24_row_is_compared`] fails if a row of this source is
//! added without a test here.

use crate::common::*;
use crate::throughput_rows::{validate, validate_e2e_row};

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS24_SOURCES: &[(&str, &str)] = &[(
    "github.com/cloudrift-ai/server-benchmark results/pro6000_l40s_h100_h200",
    "Qwen3-Coder-480B-A35B-Instruct",
)];

/// The two-replica throughput rows: (notes prefix, the file's "Output token throughput" in tok/s,
/// scenario file, label).
const REPLICAS: &[(&str, f64, &str, &str)] = &[
    (
        "2 TP-4 replicas random 1000/1000 c 256:",
        2248.18,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-tp4-ep-replica-of-2-c256.toml",
        "Qwen3-Coder-480B-A35B AWQ, vLLM 0.11.0, 8× RTX PRO 6000 as 2 × TP 4 EP, random 1k/1k c 256",
    ),
    (
        "2 TP-4 replicas random 100/1900 c 256:",
        2900.54,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-tp4-ep-replica-of-2-c256-100-1900.toml",
        "Qwen3-Coder-480B-A35B AWQ, vLLM 0.11.0, 8× RTX PRO 6000 as 2 × TP 4 EP, random 100/1900 c 256",
    ),
    (
        "2 PP-4 replicas random 1000/1000 c 256:",
        1355.32,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-pp4-replica-of-2-c256.toml",
        "Qwen3-Coder-480B-A35B AWQ, vLLM 0.11.0, 8× RTX PRO 6000 as 2 × PP 4, random 1k/1k c 256",
    ),
    (
        "2 TP-4 replicas random 1000/1000 c 512:",
        4863.73,
        "qwen3-coder-480b-awq-h200x8-vllm-0.11-tp4-ep-replica-of-2-c512.toml",
        "Qwen3-Coder-480B-A35B AWQ, vLLM 0.11.0, 8× H200 as 2 × TP 4 EP, random 1k/1k c 512",
    ),
];

/// The single-query rows: (row's GPU, the file's median TPOT in ms, scenario file, label).
const SINGLE: &[(&str, f64, &str, &str)] = &[
    (
        "RTX PRO 6000 Blackwell Workstation",
        11.34,
        "qwen3-coder-480b-awq-rtxpro6000x8-vllm-0.11-tp4-ep-replica-of-2-c1.toml",
        "Qwen3-Coder-480B-A35B AWQ, vLLM 0.11.0, 8× RTX PRO 6000 as 2 × TP 4 EP, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        "H200",
        9.55,
        "qwen3-coder-480b-awq-h200x8-vllm-0.11-tp4-ep-replica-of-2-c1.toml",
        "Qwen3-Coder-480B-A35B AWQ, vLLM 0.11.0, 8× H200 as 2 × TP 4 EP, random 1k/1k c 1 (per-stream TPOT)",
    ),
];

/// Replica row `i` of [`REPLICAS`]: the measured value (checked against the printed figure) against 2 ×
/// one engine's end-to-end output rate (output tokens ÷ the whole run, prefill included).
fn replica(i: usize) {
    let (note, printed, file, label) = REPLICAS[i];
    let (src, model) = DEPLOYS24_SOURCES[0];
    validate_e2e_row((src, model), (note, printed), file, label, 2.0);
}

/// Single-query row `i` of [`SINGLE`]: 1000 ÷ tpsim's median TPOT against 1000 ÷ the file's.
fn single(i: usize) {
    let (_, tpot, file, label) = SINGLE[i];
    let (src, model) = DEPLOYS24_SOURCES[0];
    let note = "2 TP-4 replicas random 1000/1000 c 1:";
    // Two rows share the note; the GPU tells them apart (`measured_throughput` wants exactly one).
    let m = 1000.0 / tpot;
    let gpu_rows = measured_for_gpu(src, model, note, SINGLE[i].0);
    assert!((gpu_rows - m).abs() < 0.005, "{label}: {gpu_rows}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(
        label,
        (gpu_rows, gpu_rows),
        1000.0 / f(&v["serving"]["tpot_ms"]["p50"]),
    );
}

/// The `output_tok_s` of the one row of this source and model whose notes start with `note` on `gpu`.
fn measured_for_gpu(src: &str, model: &str, note: &str, gpu: &str) -> f64 {
    let tsv = std::fs::read_to_string(data_path("throughput.tsv")).unwrap();
    let found: Vec<f64> = tsv
        .lines()
        .map(|l| l.split('\t').collect::<Vec<_>>())
        .filter(|c| c.len() == 11 && c[0].starts_with(src) && c[2] == model && c[4] == gpu)
        .filter(|c| c[10].starts_with(note))
        .map(|c| c[9].parse::<f64>().unwrap())
        .collect();
    assert_eq!(found.len(), 1, "{note} on {gpu}: {found:?}");
    found[0]
}

#[test]
pub(crate) fn validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c256() {
    // "Output token throughput (tok/s): 2248.18" (1,024 × 1000/1000 at 256 in flight, 455.48 s).
    replica(0);
}

#[test]
pub(crate) fn validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c256_100_1900() {
    // "Output token throughput (tok/s): 2900.54" (1,024 × 100/1900 at 256 in flight, 670.77 s).
    replica(1);
}

#[test]
pub(crate) fn validation_qwen3_coder_480b_awq_rtxpro6000x8_pp4_c256() {
    // "Output token throughput (tok/s): 1355.32" (1,024 × 1000/1000 at 256 in flight, 755.54 s).
    replica(2);
}

#[test]
pub(crate) fn validation_qwen3_coder_480b_awq_h200x8_tp4_ep_c512() {
    // "Output token throughput (tok/s): 4863.73" (2,048 × 1000/1000 at 512 in flight, 421.08 s).
    replica(3);
}

#[test]
pub(crate) fn validation_qwen3_coder_480b_awq_rtxpro6000x8_tp4_ep_c1() {
    // "Median TPOT (ms): 11.34" at 1 in flight: 1000 ÷ 11.34 = 88.18 tok/s.
    single(0);
}

#[test]
pub(crate) fn validation_qwen3_coder_480b_awq_h200x8_tp4_ep_c1() {
    // "Median TPOT (ms): 9.55" at 1 in flight: 1000 ÷ 9.55 = 104.71 tok/s.
    single(1);
}

#[test]
fn scenarios_are_the_files_runs() {
    // Each scenario is one engine of its file's two: tp and pp from the compose command (tp 4 EP, or
    // tp 1 × pp 4), the box by the row's GPU, half the client's concurrency and prompts (256 / 2 = 128,
    // 1,024 / 2 = 512; 512 / 2 = 256, 2,048 / 2 = 1,024; a single query keeps 1 in flight and 100 / 2 = 50
    // requests), and the lengths from the printed totals: output = generated ÷ requests (1,024,000 /
    // 1,024 = 1,000; 1,945,600 / 1,024 = 1,900; 2,048,000 / 2,048 = 1,000; 100,000 / 100 = 1,000), prompt
    // = input ÷ requests, rounded, + the Qwen3 chat template's 8 tokens (1,021,272 / 1,024 = 997.34 → 997
    // + 8 = 1,005; 102,225 / 1,024 = 99.83 → 100 + 8 = 108; 2,042,926 / 2,048 = 997.52 → 998 + 8 = 1,006;
    // 99,626 / 100 = 996.26 → 996 + 8 = 1,004).
    let (src, model) = DEPLOYS24_SOURCES[0];
    let cases: &[(&str, &str, u64, u64, u64, u64, u64)] = &[
        // (file, box preset, tp, concurrency, requests, prompt, output)
        (
            REPLICAS[0].2,
            "rtx-pro-6000-ws-8x-dual-genoa-direct",
            4,
            128,
            512,
            1005,
            1000,
        ),
        (
            REPLICAS[1].2,
            "rtx-pro-6000-ws-8x-dual-genoa-direct",
            4,
            128,
            512,
            108,
            1900,
        ),
        (
            REPLICAS[2].2,
            "rtx-pro-6000-ws-8x-dual-genoa-direct",
            1,
            128,
            512,
            1005,
            1000,
        ),
        (REPLICAS[3].2, "h200-8x-nvlink", 4, 256, 1024, 1006, 1000),
        (
            SINGLE[0].2,
            "rtx-pro-6000-ws-8x-dual-genoa-direct",
            4,
            1,
            50,
            1004,
            1000,
        ),
        (SINGLE[1].2, "h200-8x-nvlink", 4, 1, 50, 1004, 1000),
    ];
    for &(file, hw, tp, conc, reqs, prompt, output) in cases {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert!(text.contains(&format!("\npreset = \"{hw}\"\n")), "{file}");
        assert!(
            text.contains("\npreset = \"qwen3-coder-480b-a35b-instruct\"\n"),
            "{file}"
        );
        assert!(text.contains("dtype = \"int4\", group_size = 128"), "{file}");
        assert!(text.contains("\nname = \"vllm\"\nversion = \"0.11.0\""), "{file}");
        assert!(text.contains("\nenable_expert_parallel = true"), "{file}");
        assert_eq!(scenario_int_key(&text, "tp"), tp, "{file}");
        assert_eq!(scenario_int_key(&text, "concurrency"), conc, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), reqs, "{file}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), prompt, "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), output, "{file}");
        if tp == 1 {
            assert_eq!(scenario_int_key(&text, "pp_size"), 4, "{file}");
        }
    }
    // The rows say the same: twice the scenario's concurrency in flight, its tp.
    for (note, _, file, _) in REPLICAS {
        let row = throughput_row(src, model, note);
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(
            row.concurrency,
            2 * scenario_int_key(&text, "concurrency"),
            "{file}"
        );
        assert_eq!(row.tp, scenario_int_key(&text, "tp"), "{file}");
    }
}

#[test]
fn every_deploys24_row_is_compared() {
    // Four two-replica throughput rows and two single-query rows; the tests above compare each once.
    assert_eq!(REPLICAS.len() + SINGLE.len(), 6);
    assert_eq!(throughput_rows_per_source(DEPLOYS24_SOURCES), [6]);
}
