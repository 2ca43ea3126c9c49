//! Issue #19 (tputrows): decode-throughput validation on the deployments users run — dense Qwen2.5,
//! Qwen3 and Llama-3.1, gpt-oss MoE, on A100 (PCIe and SXM), H100 SXM and RTX 4090, TP 1–8, batch 1–64 — with the
//! **default (uncalibrated) profile**, held to the same target and known-miss list as
//! `tests/tests/throughput_rows.rs` ([`TARGET`], [`KNOWN_MISSES`]). Each row of `tests/data/throughput.tsv`
//! below runs its scenario under `scenarios/validation/`; the measured value is read from the data file,
//! never copied into a scenario, and no preset is tuned per row.
//!
//! Rows (source, engine, model, GPUs, concurrency → what is compared):
//! - cssnoeasy/a100-vllm-benchmark-blog (commit e4226b0), vLLM 0.19.0, Qwen2.5-7B-Instruct fp16,
//!   1 or 2 of 2× A100 80GB PCIe (cross-socket, no NVLink), `vllm bench serve` random 512/256 at 8,
//!   2048/128 at 16 and 2048/512 at 32 concurrent, 100 prompts → output tokens ÷ benchmark duration
//!   (mean of three runs) against tpsim's end-to-end output rate (prefill, ramp-up and drain included);
//! - SemiAnalysisAI/InferenceX issue 828 (workflow run 22537483477), vLLM 0.15.1, gpt-oss-120b MXFP4,
//!   H100 SXM, TP 2 and 4 at concurrency 64, TP 8 at 4 and 64, 1k/1k, concurrency × 10 prompts →
//!   output tok/s per GPU × GPUs against tpsim's end-to-end output rate;
//! - vllm-project/vllm issue 20469, vLLM 0.9.1 `--enforce-eager`, Qwen3-14B-AWQ, 1× A100 80GB,
//!   16000/200 at concurrency 1 → 1000 ÷ median TPOT (20.94 ms) against 1000 ÷ tpsim's median TPOT;
//! - AlexsJones/llmfit pull request 1046, vLLM, Qwen3-8B bf16, 1× RTX 4090, `llmfit bench` (one
//!   non-streaming request of ≤ 300 tokens at a time) → completion tokens ÷ wall time against tpsim's
//!   end-to-end output rate;
//! - johnmusgrave.com (vLLM throughput-latency sweep on NVIDIA A100), vLLM 0.23.0, Llama-3.1-8B-Instruct
//!   BF16, 1× A100 40GB, 1024/128 at concurrency 1: "about 75 tokens/sec" → 1000 ÷ tpsim's median TPOT
//!   (the figure `serving_curve.rs` also holds, at ±10 %);
//! - cssnoeasy/a100-vllm-benchmark-blog docs/reports/a100-quantization-capacity.md (commit 5b67cd2),
//!   vLLM 0.19.0 in eager mode, Qwen3-32B BF16 and Qwen/Qwen3-32B-AWQ, one A100 80GB PCIe, 512x256 at
//!   4–32 and 2048x512 at 4 concurrent → the source's output tok/s against tpsim's end-to-end rate.
//!
//! VALIDATION, out-of-sample: no constant was fitted to any of these rows. The predictions do use
//! constants fitted to other data sets — the A100 SXM prefill FLOP curve (tests/data/prefill.tsv lines
//! 7–18; the A100 PCIe rows use the PCIe card's GEMM-measured curve since issue #18 prefillmix), the Hopper `kernel_overhead` (three other Hopper decode rows), the collective constants
//! (tests/data/allreduce.tsv) — which `tpsim run` lists under "Fitted constants used".
//! [`every_breadth_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const BREADTH_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/cssnoeasy/a100-vllm-benchmark-blog",
        "Qwen2.5-7B-Instruct",
    ),
    (
        "https://github.com/SemiAnalysisAI/InferenceX/issues/828",
        "gpt-oss-120b",
    ),
    (
        "https://github.com/vllm-project/vllm/issues/20469",
        "Qwen3-14B-AWQ",
    ),
    ("https://github.com/AlexsJones/llmfit/pull/1046", "Qwen3-8B"),
    (
        "https://johnmusgrave.com/p/vllm-throughput-latency-sweep-on",
        "Llama-3.1-8B-Instruct",
    ),
    (
        "github.com/cssnoeasy/a100-vllm-benchmark-blog docs/reports/a100-quantization-capacity.md",
        "Qwen3-32B",
    ),
    (
        "github.com/cssnoeasy/a100-vllm-benchmark-blog docs/reports/a100-quantization-capacity.md",
        "Qwen3-32B-AWQ",
    ),
];

/// The measured `output_tok_s` of the one row with this source prefix, model, tp and concurrency
/// ("~x" read as x).
fn measured(source: &str, model: &str, tp: u32, conc: u32) -> f64 {
    measured_noted(source, model, tp, conc, "")
}

/// As [`measured`], among the rows whose notes contain `note` (two workloads at one concurrency).
fn measured_noted(source: &str, model: &str, tp: u32, conc: u32, note: &str) -> f64 {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, tpc, b, o, n) = (
        t.col("source"),
        t.col("model"),
        t.col("tp"),
        t.col("batch_or_concurrency"),
        t.col("output_tok_s"),
        t.col("notes"),
    );
    let found: Vec<f64> = t
        .rows
        .iter()
        .filter(|r| {
            r.get(s).starts_with(source)
                && r.get(m) == model
                && r.get(tpc) == tp.to_string()
                && r.get(b) == conc.to_string()
                && r.get(n).contains(note)
        })
        .map(|r| {
            r.get(o)
                .trim_start_matches('~')
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("line {}: not a tok/s value: {}", r.line, r.get(o)))
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected one row {source} | {model} | tp {tp} | {conc} | {note}: {found:?}"
    );
    found[0]
}

/// tpsim's end-to-end output rate (output tokens ÷ the run's makespan) of a validation scenario.
fn e2e(file: &str) -> f64 {
    let v = run_json(&scenario(&format!("validation/{file}")));
    f(&v["throughput"]["e2e_output_tok_s"])
}

/// Issue #18 (prefillmix): the row is the mean of three runs on one server that had served the same
/// seed's prompts before (vLLM's prefix cache; the scenario files' headers and book/src/validation.md,
/// "Prefill-heavy serving on A100 PCIe"): at c 8 and 16 run 1 is `…-c{conc}.toml` and runs 2-3
/// `…-c{conc}-warm.toml`, compared as (run 1 + 2 × runs 2-3) ÷ 3, the source's arithmetic mean of the
/// three runs' output throughputs; at c 32 every run is `…-c32.toml`.
fn qwen25_a100_pcie(tp: u32, conc: u32, label: &str) {
    let m = measured(BREADTH_SOURCES[0].0, BREADTH_SOURCES[0].1, tp, conc);
    let first = e2e(&format!("qwen2.5-7b-a100pcie-vllm-tp{tp}-c{conc}.toml"));
    let p = if conc == 32 {
        first
    } else {
        let warm = e2e(&format!("qwen2.5-7b-a100pcie-vllm-tp{tp}-c{conc}-warm.toml"));
        (first + 2.0 * warm) / 3.0
    };
    validate(label, (m, m), p);
}

#[test]
pub(crate) fn validation_qwen25_7b_a100_pcie_vllm_tp1_c8() {
    // 512 in / 256 out, 8 concurrent: 2.43 req/s × 256 = 623.18 tok/s (mean of 3 runs; run 1 had an
    // 8 s TTFT p99, runs 2-3 2.63 req/s = 673 tok/s).
    qwen25_a100_pcie(1, 8, "Qwen2.5-7B fp16, vLLM, 1× A100 PCIe, c 8 (512/256)");
}

#[test]
pub(crate) fn validation_qwen25_7b_a100_pcie_vllm_tp2_c8() {
    qwen25_a100_pcie(2, 8, "Qwen2.5-7B fp16, vLLM, 2× A100 PCIe TP 2, c 8 (512/256)");
}

#[test]
pub(crate) fn validation_qwen25_7b_a100_pcie_vllm_tp1_c16() {
    qwen25_a100_pcie(1, 16, "Qwen2.5-7B fp16, vLLM, 1× A100 PCIe, c 16 (2048/128)");
}

#[test]
pub(crate) fn validation_qwen25_7b_a100_pcie_vllm_tp2_c16() {
    qwen25_a100_pcie(2, 16, "Qwen2.5-7B fp16, vLLM, 2× A100 PCIe TP 2, c 16 (2048/128)");
}

#[test]
pub(crate) fn validation_qwen25_7b_a100_pcie_vllm_tp1_c32() {
    qwen25_a100_pcie(1, 32, "Qwen2.5-7B fp16, vLLM, 1× A100 PCIe, c 32 (2048/512)");
}

#[test]
pub(crate) fn validation_qwen25_7b_a100_pcie_vllm_tp2_c32() {
    qwen25_a100_pcie(2, 32, "Qwen2.5-7B fp16, vLLM, 2× A100 PCIe TP 2, c 32 (2048/512)");
}

fn gpt_oss_h100(tp: u32, conc: u32, label: &str) {
    let m = measured(BREADTH_SOURCES[1].0, BREADTH_SOURCES[1].1, tp, conc);
    let p = e2e(&format!("gpt-oss-120b-h100-vllm-tp{tp}-c{conc}.toml"));
    validate(label, (m, m), p);
}

#[test]
pub(crate) fn validation_gpt_oss_120b_h100_vllm_tp2_c64() {
    // 2061.5 tok/s per GPU × 2 = 4123.0.
    gpt_oss_h100(2, 64, "gpt-oss-120b MXFP4, vLLM, 2× H100 TP 2, c 64 (1k/1k)");
}

#[test]
pub(crate) fn validation_gpt_oss_120b_h100_vllm_tp4_c64() {
    // 1571.8 × 4 = 6287.2.
    gpt_oss_h100(4, 64, "gpt-oss-120b MXFP4, vLLM, 4× H100 TP 4, c 64 (1k/1k)");
}

#[test]
pub(crate) fn validation_gpt_oss_120b_h100_vllm_tp8_c4() {
    // 129.6 × 8 = 1036.8 (the level of tests/data/serving-curves.tsv line 2, whose shape
    // tests/tests/serving_curve.rs checks).
    gpt_oss_h100(8, 4, "gpt-oss-120b MXFP4, vLLM, 8× H100 TP 8, c 4 (1k/1k)");
}

#[test]
pub(crate) fn validation_gpt_oss_120b_h100_vllm_tp8_c64() {
    // 1053.2 × 8 = 8425.6 (serving-curves.tsv line 6).
    gpt_oss_h100(8, 64, "gpt-oss-120b MXFP4, vLLM, 8× H100 TP 8, c 64 (1k/1k)");
}

#[test]
pub(crate) fn validation_qwen3_14b_awq_a100_vllm_eager_c1() {
    // The median TPOT 20.94 ms → 1000 / 20.94 = 47.76 tok/s per request, the value stored
    // (to 0.01 tok/s).
    let m = measured(BREADTH_SOURCES[2].0, BREADTH_SOURCES[2].1, 1, 1);
    assert!((m - 1000.0 / 20.94).abs() < 0.01, "{m}");
    let v = run_json(&scenario("validation/qwen3-14b-awq-a100-vllm-eager-c1.toml"));
    // The release, as given (not tpsim's assumed current one).
    let ver = &v["scenario"]["engine_version"];
    assert_eq!(
        (ver["version"].as_str(), ver["assumed"].as_bool()),
        (Some("0.9.1"), Some(false))
    );
    let p = 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]);
    validate(
        "Qwen3-14B AWQ, vLLM eager, 1× A100 80GB, c 1 (16000/200)",
        (m, m),
        p,
    );
}

#[test]
pub(crate) fn validation_qwen3_8b_rtx4090_vllm_c1() {
    let m = measured(BREADTH_SOURCES[3].0, BREADTH_SOURCES[3].1, 1, 1);
    let p = e2e("qwen3-8b-rtx4090-vllm-c1.toml");
    validate("Qwen3-8B bf16, vLLM, 1× RTX 4090, c 1 (llmfit)", (m, m), p);
}

#[test]
pub(crate) fn validation_llama_3_1_8b_a100_40gb_vllm_c1() {
    // "about 75 tokens/sec" (stored as ~75).
    let m = measured(BREADTH_SOURCES[4].0, BREADTH_SOURCES[4].1, 1, 1);
    assert!((m - 75.0).abs() < 1e-9, "{m}");
    let v = run_json(&scenario("validation/llama-3.1-8b-a100-40gb-vllm-c1.toml"));
    let p = 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]);
    validate("Llama-3.1-8B bf16, vLLM, 1× A100 40GB, c 1 (1024/128)", (m, m), p);
}

fn qwen3_32b_a100_pcie_eager(model: &str, file: &str, conc: u32, workload: &str, label: &str) {
    let m = measured_noted(BREADTH_SOURCES[5].0, model, 1, conc, workload);
    let p = e2e(file);
    validate(label, (m, m), p);
}

#[test]
pub(crate) fn validation_qwen3_32b_bf16_a100_pcie_vllm_eager() {
    // The source's 512x256 and 2048x512 closed-loop tables, BF16 column: one A100 80GB PCIe, eager.
    for (conc, inp, workload) in [
        (4, 512, "512x256"),
        (16, 512, "512x256"),
        (32, 512, "512x256"),
        (4, 2048, "2048x512"),
    ] {
        qwen3_32b_a100_pcie_eager(
            "Qwen3-32B",
            &format!("qwen3-32b-bf16-a100pcie-vllm-eager-c{conc}-{inp}.toml"),
            conc,
            workload,
            &format!("Qwen3-32B bf16, vLLM eager, 1× A100 PCIe, c {conc} ({workload})"),
        );
    }
}

#[test]
pub(crate) fn validation_qwen3_32b_awq_a100_pcie_vllm_eager() {
    // The official AWQ column of the 512x256 table (float16 compute).
    for conc in [4, 16] {
        qwen3_32b_a100_pcie_eager(
            "Qwen3-32B-AWQ",
            &format!("qwen3-32b-awq-a100pcie-vllm-eager-c{conc}-512.toml"),
            conc,
            "512x256",
            &format!("Qwen3-32B AWQ, vLLM eager, 1× A100 PCIe, c {conc} (512x256)"),
        );
    }
}

#[test]
fn every_breadth_row_is_compared() {
    // 6 + 4 + 1 + 1 + 1 + 4 + 2 rows of these sources; the tests above compare each once.
    let counts = throughput_rows_per_source(BREADTH_SOURCES);
    assert_eq!(counts, [6, 4, 1, 1, 1, 4, 2]);
}
