//! Seventh round of new deployments (newdeploys7): the GPUStack performance lab's single-GPU bursts of
//! two models tpsim had no row of — Qwen3-32B bf16 (a new preset, `scenarios/models/qwen3-32b`) on one
//! A100 80 GB and gpt-oss-20b (MXFP4 experts) on one H100 and one A100 SXM 80 GB — under vLLM v0.11.0
//! (`vllm serve Qwen/Qwen3-32B --max-model-len 32768` as the page's engine-choice run,
//! `vllm serve openai/gpt-oss-20b`, the pages' "Baseline serving script").
//! Each is written as the page's command reads (`scenarios/validation/{qwen3-32b,gpt-oss-20b}-*.toml`)
//! and compared with the **default (uncalibrated) profile** against the same target and known-miss list
//! as `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Sources (github.com/gpustack/gpustack `docs/performance-lab/`, the stored versions named in the
//! rows), "Other Benchmark Cases", baseline: the random 4000/200 and 2000/100 bursts (`vllm bench serve
//! --backend openai-chat --endpoint /v1/chat/completions --dataset-name random … --num-prompts 500 --seed
//! 42`, no request rate, no max concurrency, no `--ignore-eos`), compared as tpsim's end-to-end output
//! rate (output tokens ÷ the whole run) against "Output token throughput", as newdeploys3's and
//! newdeploys6's bursts:
//!
//! - `qwen3-32b/a100.md` (stored version 10e9444);
//! - `gpt-oss-20b/h100.md` (7b50d50) and `gpt-oss-20b/a100.md` (7ae332a).
//!
//! Not taken: the 128/4 bursts (four output tokens: nothing to decode), the 32000/100 bursts (3.2 M prompt
//! tokens for under 10 k output: prefill measurements), the ShareGPT bursts of 1000 (the prompts' and
//! outputs' lengths are a distribution tpsim's fixed-length workload does not reproduce), the optimized
//! runs (TensorRT-LLM, which tpsim does not model; vLLM `--async-scheduling`, left for a next round),
//! SGLang's runs (one table each, no burst cases); `qwen3-32b/h100.md`'s bursts: its command cannot
//! start on an 80 GB H100 ([`qwen3_32b_h100_command_does_not_start`]).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows.
//! [`every_newdeploys7_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate_e2e_row;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS7_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/gpustack/gpustack docs/performance-lab/qwen3-32b/",
        "Qwen3-32B",
    ),
    (
        "github.com/gpustack/gpustack docs/performance-lab/gpt-oss-20b/",
        "gpt-oss-20b",
    ),
];

/// One burst row of source `i`: the row whose notes start with `note` (its output rate checked against
/// the printed figure) against tpsim's end-to-end output rate of `file`.
fn burst(i: usize, note: &str, printed: f64, file: &str, label: &str) {
    let (src, model) = NEWDEPLOYS7_SOURCES[i];
    validate_e2e_row((src, model), (note, printed), file, label, 1.0);
}

/// The 4K and 2K bursts of one page: (gpu tag in the file name, gpu in the label, the printed rates).
fn page(i: usize, stem: &str, gpu: &str, label_model: &str, rates: [f64; 2]) {
    let tag = if gpu.starts_with("H100") { "H100" } else { "A100" };
    for (k, input, printed) in [("4k", "4K", rates[0]), ("2k", "2K", rates[1])] {
        burst(
            i,
            &format!("{tag} random {input} input:"),
            printed,
            &format!("{stem}-burst-{k}.toml"),
            &format!("{label_model}, vLLM 0.11.0, 1× {gpu}, burst of 500 ({k})"),
        );
    }
}

#[test]
pub(crate) fn validation_qwen3_32b_a100_vllm_0_11_bursts() {
    // "Output token throughput (tok/s)": 87.48 (4K) and 120.27 (2K).
    page(
        0,
        "qwen3-32b-a100-vllm-0.11",
        "A100 80GB",
        "Qwen3-32B bf16",
        [87.48, 120.27],
    );
}

#[test]
pub(crate) fn validation_gpt_oss_20b_h100_vllm_0_11_bursts() {
    // "Output token throughput (tok/s)": 847.43 (4K) and 1443.44 (2K).
    page(
        1,
        "gpt-oss-20b-h100-vllm-0.11",
        "H100 (SXM assumed)",
        "gpt-oss-20b MXFP4",
        [847.43, 1443.44],
    );
}

#[test]
pub(crate) fn validation_gpt_oss_20b_a100_vllm_0_11_bursts() {
    // "Output token throughput (tok/s)": 415.64 (4K) and 813.35 (2K) on "A single NVIDIA A100 SXM 80GB GPU".
    page(
        1,
        "gpt-oss-20b-a100-vllm-0.11",
        "A100 SXM",
        "gpt-oss-20b MXFP4",
        [415.64, 813.35],
    );
}

/// Why `qwen3-32b/h100.md` is not taken: on one H100 SXM 80 GB at vLLM 0.11's defaults the bf16 weights
/// (61.03 GiB) leave 4.35 GiB of KV, 17,808 tokens of 256 KiB (64 layers × 8 KV heads × 128 × 2 × 2 B),
/// fewer than the 32,100 its own 32K burst (32,000 + 100 tokens, one request at a time) needs, so
/// `vllm serve Qwen/Qwen3-32B` refuses with vLLM's "estimated maximum model length is 17808"; with
/// `--max-model-len 32768` too. The page's box or flags are not what it prints (a 94 GB H100 NVL, or a
/// higher `--gpu-memory-utilization`: tpsim's smallest that starts is 0.9713).
#[test]
fn qwen3_32b_h100_command_does_not_start() {
    let s = scenario("validation/qwen3-32b-a100-vllm-0.11-burst-2k.toml");
    let text = std::fs::read_to_string(&s).unwrap();
    let h100 = text.replace("preset = \"a100-sxm4-80gb-1x\"", "preset = \"h100-sxm-1x\"");
    for (name, t) in [
        ("listed", h100.replace("max_model_len = 32768\n", "")),
        ("32768", h100.clone()),
    ] {
        let p = scratch(name).join("qwen3-32b-h100.toml");
        std::fs::write(&p, t).unwrap();
        let out = tpsim(&["run", p.to_str().unwrap()]);
        assert_eq!(out.code, 3, "{name}: {}", out.stderr);
        assert!(
            out.stderr.contains("the estimated maximum model length is 17808"),
            "{name}: {}",
            out.stderr
        );
    }
}

#[test]
fn every_newdeploys7_row_is_compared() {
    // Two Qwen3-32B rows and four gpt-oss-20b rows; the tests above compare each once.
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS7_SOURCES), [2, 4]);
}
