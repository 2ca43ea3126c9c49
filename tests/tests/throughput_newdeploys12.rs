//! Twelfth round of new deployments (newdeploys12, issue #17 coverage): GLM-4.6 under vLLM on an 8-GPU RTX PRO
//! 6000 Blackwell box without NVLink or PCIe switches (FP8 checkpoint; TP 8 at 1 and 256 in flight, an
//! output-heavy TP 8 run, and PP 8) and on 8× H200 (bf16 checkpoint, TP 8 at 1 and 512 in flight) — the
//! first GLM-4.5-family (`Glm4MoeForCausalLM`) decode rows — each written as the source's compose file
//! launches it (`scenarios/validation/glm-4.6-*.toml`, assumptions listed there) and compared with the
//! **default (uncalibrated) profile** against the same target and known-miss list as
//! `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: cloudrift-ai/server-benchmark at commit f8e34f1, directory `results/pro6000_l40s_h100_h200/`
//! (committed 2025-10-13..17; newdeploys5 took the repository's other directory,
//! `results/rtx4900_rtx5900_pro6000_08_10_2025/`): the `*_zai-org_GLM-4.6-FP8_vllm_benchmark.txt` files of
//! the 8× RTX PRO 6000 box (top level: 1000/1000 at 256 in flight; `single-query/`: 1 in flight;
//! `output-heavy/`: 100/1900 at 256; `pipeline-parallel/`: `--pipeline-parallel-size 8`) and the
//! `h200_x_8_zai-org_GLM-4.6_vllm_benchmark.txt` files of the 8× H200 box (top level: 512 in flight;
//! `single-query/`). Each file holds vLLM's "Serving Benchmark Result" block, the docker compose file that
//! launched the engine (`vllm/vllm-openai:latest`, `--gpu-memory-utilization=0.9 --max-model-len 8192`,
//! `--tool-call-parser glm45 --reasoning-parser glm45`; on the PRO 6000 box `--max-num-seqs 256
//! --kv-cache-dtype fp8`, on the H200 box `--max-num-seqs 512`) and the benchmark command (`vllm bench
//! serve`, random, `--ignore-eos`, openai-chat); the `*_system_info.txt` siblings name the GPUs and hosts
//! (`hardware/rtx-pro-6000-ws-8x-dual-genoa-direct.toml`'s header). "Output token throughput" is compared
//! with tpsim's end-to-end output rate.
//!
//! The model presets `glm-4.6` and `glm-4.6-fp8` are new and reconstructed (`scenarios/models/glm-4.6-fp8/
//! README.md`: the shapes of the vendored GLM-4.7-FP8 config, GLM-4.6 assumed identical; the FP8 layout
//! assumed per-channel).
//!
//! Not taken: the same directory's Qwen3-Coder-480B-A35B AWQ and GLM-4.5-Air AWQ rows (no preset; the
//! AWQ checkpoints' layouts are not established here) on every box, among them its 2× L40S rows (two
//! single-GPU replicas; the Llama 3.3 70B one is the 979-of-1,200 run newdeploys5 set aside).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted TPOT. [`every_newdeploys12_row_is_compared`] fails if a row of this source
//! is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate_e2e_row;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS12_SOURCES: &[(&str, &str)] = &[(
    "github.com/cloudrift-ai/server-benchmark results/pro6000_l40s_h100_h200",
    "GLM-4.6",
)];

/// The rows of this file: (notes prefix, the printed "Output token throughput", scenario file, label).
const ROWS: &[(&str, f64, &str, &str)] = &[
    (
        "TP 8 single query:",
        34.24,
        "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-tp8-c1.toml",
        "GLM-4.6 FP8, vLLM 0.11.0, 8× RTX PRO 6000 (no switch) TP 8, c 1",
    ),
    (
        "TP 8 conc 256:",
        1349.16,
        "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-tp8-c256.toml",
        "GLM-4.6 FP8, vLLM 0.11.0, 8× RTX PRO 6000 (no switch) TP 8, c 256",
    ),
    (
        "TP 8 output-heavy conc 256:",
        1728.34,
        "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-tp8-c256-100-1900.toml",
        "GLM-4.6 FP8, vLLM 0.11.0, 8× RTX PRO 6000 (no switch) TP 8, c 256, 100/1900",
    ),
    (
        "PP 8 conc 256:",
        832.22,
        "glm-4.6-fp8-rtxpro6000x8-vllm-0.11-pp8-c256.toml",
        "GLM-4.6 FP8, vLLM 0.11.0, 8× RTX PRO 6000 (no switch) PP 8, c 256",
    ),
    (
        "H200 TP 8 single query:",
        74.56,
        "glm-4.6-h200x8-vllm-0.11-tp8-c1.toml",
        "GLM-4.6 bf16, vLLM 0.11.0, 8× H200 TP 8, c 1",
    ),
    (
        "H200 TP 8 conc 512:",
        4759.15,
        "glm-4.6-h200x8-vllm-0.11-tp8-c512.toml",
        "GLM-4.6 bf16, vLLM 0.11.0, 8× H200 TP 8, c 512",
    ),
];

/// Compares row `i` of [`ROWS`]: the measured value (checked against the figure the source prints) and
/// tpsim's end-to-end output rate of `validation/FILE`.
fn compare(i: usize) {
    let (note, printed, file, label) = ROWS[i];
    let (src, model) = NEWDEPLOYS12_SOURCES[0];
    validate_e2e_row((src, model), (note, printed), file, label, 1.0);
}

#[test]
pub(crate) fn validation_glm_4_6_fp8_rtx_pro_6000_x8_tp8() {
    // "Output token throughput (tok/s)": 34.24 (c 1), 1349.16 (c 256), 1728.34 (c 256, 100 in / 1900 out).
    for i in 0..3 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_glm_4_6_fp8_rtx_pro_6000_x8_pp8() {
    // "Output token throughput (tok/s)": 832.22 (--tensor-parallel-size 1 --pipeline-parallel-size 8).
    compare(3);
}

#[test]
pub(crate) fn validation_glm_4_6_h200_x8_tp8() {
    // "Output token throughput (tok/s)": 74.56 (c 1), 4759.15 (c 512).
    for i in 4..6 {
        compare(i);
    }
}

#[test]
fn scenario_lengths_are_the_runs_totals_per_request() {
    // Each scenario's num_requests is the run's request count, output_len its generated total ÷ requests
    // (exact: --ignore-eos, e.g. 1,945,600 / 1,024 = 1,900), and prompt_len the client's input total ÷
    // requests rounded to the nearest token (99,839 / 100 = 998.39 → 998; 1,022,553 / 1,024 = 998.59 → 999)
    // plus the 5 tokens GLM-4.6's chat template adds ([gMASK], <sop>, <|user|>, newline, <|assistant|>:
    // assumed, see the scenario headers). The totals are read from the row's notes ("N in / M out
    // tokens, R requests"), not from the scenario.
    const TEMPLATE_TOKENS: u64 = 5;
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, o) = (t.col("source"), t.col("model"), t.col("notes"));
    let (src, model) = NEWDEPLOYS12_SOURCES[0];
    for (note, _, file, _) in ROWS {
        let row = t
            .rows
            .iter()
            .find(|r| r.get(s).starts_with(src) && r.get(m) == model && r.get(o).starts_with(note))
            .unwrap_or_else(|| panic!("no row {note}"));
        // "...; 99839 in / 100000 out tokens, 100 requests, ..."
        let totals = row.get(o).split("; ").find(|p| p.contains(" in / ")).unwrap();
        let w: Vec<&str> = totals.split_whitespace().collect();
        let (inp, out, n): (u64, u64, u64) = (
            w[0].parse().unwrap(),
            w[3].parse().unwrap(),
            w[6].parse().unwrap(),
        );
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(scenario_int_key(&text, "num_requests"), n, "{file}");
        assert_eq!(out % n, 0, "{file}: --ignore-eos outputs are fixed");
        assert_eq!(scenario_int_key(&text, "output_len"), out / n, "{file}");
        assert_eq!(
            scenario_int_key(&text, "prompt_len"),
            (2 * inp + n) / (2 * n) + TEMPLATE_TOKENS,
            "{file}"
        );
    }
}

#[test]
fn every_newdeploys12_row_is_compared() {
    // Four 8× RTX PRO 6000 rows (TP 8 c 1, c 256, output-heavy c 256; PP 8 c 256) and two 8× H200 rows
    // (TP 8 c 1, c 512). The tests above compare each once.
    assert_eq!(ROWS.len(), 6);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS12_SOURCES), [6]);
}
