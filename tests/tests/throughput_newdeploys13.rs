//! Thirteenth round of new deployments (newdeploys13, issue #17 coverage): Qwen3-Coder-30B-A3B-Instruct AWQ
//! under vLLM on single GPUs — 1, 2 and 4× GeForce RTX 4090, 1, 2 and 4× RTX 5090, 1× RTX PRO 6000 Blackwell
//! Workstation, 2× L40S — the first rows of a Qwen3 MoE (`Qwen3MoeForCausalLM`) with INT4 weights, each
//! written as the source's compose file launches it (`scenarios/validation/qwen3-coder-30b-a3b-awq-*.toml`,
//! assumptions listed there) and compared with the **default (uncalibrated) profile** against the same
//! target and known-miss list as `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: cloudrift-ai/server-benchmark at commit f8e34f1, directory
//! `results/rtx4900_rtx5900_pro6000_08_10_2025/` (collected 2025-10-07/08; newdeploys5 took the Llama 3.3
//! 70B AWQ rows of the same directory, newdeploys12 the GLM-4.6 rows of `results/pro6000_l40s_h100_h200/`,
//! which holds a byte-identical copy of the L40S file): the eight
//! `*_QuantTrio_Qwen3-Coder-30B-A3B-Instruct-AWQ_vllm_benchmark.txt` files. Each holds vLLM's "Serving
//! Benchmark Result" block, the docker compose file that launched the engines (`vllm/vllm-openai:latest`,
//! `--tensor-parallel-size 1 --gpu-memory-utilization=0.9 --max-model-len 8192`) and the benchmark command
//! (`vllm bench serve`, random 1000/1000, `--ignore-eos`, `--max-concurrency 400 --num-prompts 1200`,
//! openai-chat); the `*_system_info.txt` siblings name the GPUs and the KVM hosts.
//!
//! **Several GPUs are separate servers.** On the 2- and 4-GPU boxes the compose file runs one vLLM engine
//! per GPU (`device_ids` '0' … '3', each `--tensor-parallel-size 1`) behind nginx (`least_conn`,
//! `utils/generate_compose.py` of the same commit), and the client sends to nginx. tpsim's `dp_size` on a
//! MoE model under vLLM is vLLM's own data parallelism (ranks stepping together, an all-gather dispatch per
//! MoE layer), not independent servers, so those rows are simulated as ONE engine with its share of the
//! run (400 / N in flight, 1200 / N requests), and the row is compared with N × that engine's end-to-end
//! output rate: with equal engines, least-connections keeps the in-flight requests evenly spread, and the
//! engines share nothing tpsim models (no collective; the host they share is not modelled, see the
//! RTX 5090 ×4 miss). "Output token throughput" is compared with tpsim's end-to-end output rate.
//!
//! The model preset `qwen3-coder-30b-a3b-awq` is new: Qwen3-30B-A3B's shapes and an ASSUMED AutoAWQ
//! layout (int4, group 128, zero points, fp16 scales on attention and experts; its README and quant.toml).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted TPOT. [`every_newdeploys13_row_is_compared`] fails if a row of this source
//! and model is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS13_SOURCES: &[(&str, &str)] = &[(
    "github.com/cloudrift-ai/server-benchmark results/rtx4900_rtx5900_pro6000_08_10_2025",
    "Qwen3-Coder-30B-A3B",
)];

/// The rows of this file: (notes prefix, the printed "Output token throughput", engines behind nginx,
/// scenario file of one engine, label).
const ROWS: &[(&str, f64, u32, &str, &str)] = &[
    (
        "1x RTX 4090 TP 1 conc 400:",
        1131.16,
        1,
        "qwen3-coder-30b-a3b-awq-rtx4090x1-vllm-0.11-tp1-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 1× RTX 4090, c 400",
    ),
    (
        "2x RTX 4090 2 x TP 1 conc 400:",
        2375.81,
        2,
        "qwen3-coder-30b-a3b-awq-rtx4090x2-vllm-0.11-tp1-replica-of-2-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 2× RTX 4090 (2 engines), c 400",
    ),
    (
        "4x RTX 4090 4 x TP 1 conc 400:",
        4457.53,
        4,
        "qwen3-coder-30b-a3b-awq-rtx4090x4-vllm-0.11-tp1-replica-of-4-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 4× RTX 4090 (4 engines), c 400",
    ),
    (
        "1x RTX 5090 TP 1 conc 400:",
        2288.09,
        1,
        "qwen3-coder-30b-a3b-awq-rtx5090x1-vllm-0.11-tp1-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 1× RTX 5090, c 400",
    ),
    (
        "2x RTX 5090 2 x TP 1 conc 400:",
        4211.51,
        2,
        "qwen3-coder-30b-a3b-awq-rtx5090x2-vllm-0.11-tp1-replica-of-2-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 2× RTX 5090 (2 engines), c 400",
    ),
    (
        "4x RTX 5090 4 x TP 1 conc 400:",
        6380.98,
        4,
        "qwen3-coder-30b-a3b-awq-rtx5090x4-vllm-0.11-tp1-replica-of-4-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 4× RTX 5090 (4 engines), c 400",
    ),
    (
        "1x RTX PRO 6000 TP 1 conc 400:",
        4218.26,
        1,
        "qwen3-coder-30b-a3b-awq-pro6000x1-vllm-0.11-tp1-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 1× RTX PRO 6000, c 400",
    ),
    (
        "2x L40S 2 x TP 1 conc 400:",
        3151.00,
        2,
        "qwen3-coder-30b-a3b-awq-l40sx2-vllm-0.11-tp1-replica-of-2-c400.toml",
        "Qwen3-Coder-30B-A3B AWQ, vLLM 0.11.0, 2× L40S (2 engines), c 400",
    ),
];

/// Compares row `i` of [`ROWS`]: the measured value (checked against the figure the source prints) and
/// N × tpsim's end-to-end output rate of one engine, `validation/FILE`.
fn compare(i: usize) {
    let (note, printed, engines, file, label) = ROWS[i];
    let (src, model) = NEWDEPLOYS13_SOURCES[0];
    let m = measured_throughput(src, model, |n| n.starts_with(note));
    assert!((m - printed).abs() < 1e-9, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    let one = f(&v["throughput"]["e2e_output_tok_s"]);
    validate(label, (m, m), f64::from(engines) * one);
}

#[test]
pub(crate) fn validation_qwen3_coder_30b_awq_rtx4090_vllm() {
    // "Output token throughput (tok/s)": 1131.16 (1 GPU), 2375.81 (2 engines), 4457.53 (4 engines).
    for i in 0..3 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_qwen3_coder_30b_awq_rtx5090_vllm() {
    // "Output token throughput (tok/s)": 2288.09 (1 GPU), 4211.51 (2 engines), 6380.98 (4 engines).
    for i in 3..6 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_qwen3_coder_30b_awq_pro6000_l40s_vllm() {
    // "Output token throughput (tok/s)": 4218.26 (1× RTX PRO 6000), 3151.00 (2× L40S, 2 engines).
    for i in 6..8 {
        compare(i);
    }
}

#[test]
fn scenario_workload_is_one_engines_share() {
    // Each scenario is one of the N engines: concurrency 400 / N and num_requests 1200 / N (the client's
    // --max-concurrency 400 --num-prompts 1200, from the row's column and notes), tp 1, output_len the
    // generated total ÷ requests (1,200,000 / 1,200 = 1,000: --ignore-eos), and prompt_len the client's
    // input total ÷ requests rounded (1,196,622 / 1,200 = 997.19 → 997) plus the 8 tokens of the Qwen3
    // chat template around one user message (assumed, see the scenario headers). N is the row's n_gpus.
    const TEMPLATE_TOKENS: u64 = 8;
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, o) = (t.col("source"), t.col("model"), t.col("notes"));
    let (n_gpus, conc) = (t.col("n_gpus"), t.col("batch_or_concurrency"));
    let (src, model) = NEWDEPLOYS13_SOURCES[0];
    for (note, _, engines, file, _) in ROWS {
        let row = t
            .rows
            .iter()
            .find(|r| r.get(s).starts_with(src) && r.get(m) == model && r.get(o).starts_with(note))
            .unwrap_or_else(|| panic!("no row {note}"));
        assert_eq!(row.get(n_gpus), engines.to_string(), "{file}");
        // "...(1200 requests, 1196622 in / 1200000 out tokens, ..."
        let notes = row.get(o);
        let inner = notes.split(" (").nth(1).unwrap();
        let w: Vec<&str> = inner.split_whitespace().collect();
        let (n, inp, out): (u64, u64, u64) = (
            w[0].parse().unwrap(),
            w[2].parse().unwrap(),
            w[5].parse().unwrap(),
        );
        let c: u64 = row.get(conc).parse().unwrap();
        let e = u64::from(*engines);
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(scenario_int_key(&text, "tp"), 1, "{file}");
        assert_eq!(scenario_int_key(&text, "concurrency"), c / e, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), n / e, "{file}");
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
fn every_newdeploys13_row_is_compared() {
    // Eight rows: RTX 4090 ×1/×2/×4, RTX 5090 ×1/×2/×4, RTX PRO 6000 ×1, L40S ×2. The tests above compare
    // each once.
    assert_eq!(ROWS.len(), 8);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS13_SOURCES), [8]);
}
