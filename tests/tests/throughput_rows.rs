//! Decode throughput against the measured rows of `tests/data/throughput.tsv` (issue #4), with the
//! **default (uncalibrated) profile**: each row runs its scenario under `scenarios/validation/` and the
//! test asserts measured ÷ predicted within [`BAND`]. The measured values are read from the data file,
//! never copied into the scenarios; no preset is tuned per row.
//!
//! Rows compared here (source, engine, quant, GPUs, batch):
//! - rtx6kpro benchmarks/results.md, SGLang, MiniMax-M2.5 NVFP4, 2× RTX PRO 6000, batch 1: 85-89 tok/s;
//! - rtx6kpro benchmarks/results.md, vLLM, MiniMax-M2.5 AWQ, 2× RTX PRO 6000, batch 1: ~114 tok/s;
//! - rtx6kpro benchmarks/results.md, SGLang, MiniMax-M2.5 FP8, 4× RTX PRO 6000, batch 1: ~71 tok/s;
//! - rtx6kpro benchmarks/results.md, SGLang, MiniMax-M2.5 FP8 (EP), 8× RTX PRO 6000, batch 1: ~86 tok/s;
//! - vllm PR 2192, vLLM, Llama 13B fp16, 2× A30 (no NVLink), batch 32: latency 10.43 s (NCCL) → 9.79 s
//!   (custom allreduce), `benchmark_latency` 256 in / 256 out — compared as 32 × 256 ÷ latency against
//!   tpsim's end-to-end output rate (prefill included).
//!
//! Rows not compared here:
//! - every Qwen3.5-397B-A17B row: `tests/tests/throughput_qwen35.rs` (the hybrid architecture's own file);
//! - vllm PR 40852, "vLLM (POC)", DeepSeek-V4 (Flash), 2× RTX PRO 6000 Max-Q: a proof-of-concept
//!   port of an architecture tpsim does not lower, with unknown quantization and speculation (`?`);
//! - haohervchb/sglang-V100 PR 2, "Qwen3.8 Flash Next", 4× V100: a model whose config is not public,
//!   run with MTP on a fork; nothing to lower it from;
//! - rtx6kpro optimization/nccl-tuning.md, "MiniMax-M2.5 (proxy)", 8× RTX PRO 6000: engine and
//!   quantization are `?` (and the batch-100 rows' 5,000 → 10,000 tok/s swing comes from NCCL DRAM
//!   routing settings the row does not give), so no scenario can be written honestly.
//!
//! [`every_row_is_compared_or_skipped_with_a_reason`] fails if the table grows a row none of these
//! lists covers.
//!
//! The band. Observed with the default profile (the table printed by `cargo test -p tpsim-tests --test
//! integration throughput_rows:: -- --nocapture`): measured ÷ predicted 0.46–0.76 for the MiniMax rows and 0.83–0.85
//! for the Llama rows — tpsim is optimistic everywhere. Reasons, none of them row-specific: the
//! template efficiencies are uncalibrated (memory at 80 % of the datasheet bandwidth, 2 µs per kernel,
//! `scenarios/hardware/README.md`; calibration is issue #7), and batch-1 MoE decode on SM 12.0 runs
//! engine kernels far from the bandwidth roof (the 8-GPU FP8 row's note, "tuned MoE kernels", is the
//! community's own evidence that the defaults leave a lot on the table). Hence the lower bound 0.4; the
//! upper bound 1.2 because a measurement faster than 1.2× an optimistic template would mean tpsim
//! counts work the engine does not do (wrong bytes, a missing fusion) — that must fail.

use crate::common::*;

/// Accepted measured ÷ predicted (see the module doc for why).
const BAND: (f64, f64) = (0.4, 1.2);

/// One row of `throughput.tsv` (the columns these tests read).
#[derive(Debug, Clone)]
struct Row {
    source: String,
    engine: String,
    model: String,
    quant: String,
    n_gpus: String,
    batch: String,
    output_tok_s: String,
}

fn rows() -> Vec<Row> {
    let t = read_tsv(&data_path("throughput.tsv"));
    let col = |name: &str| t.col(name);
    let (source, engine, model, quant, n_gpus, batch, out) = (
        col("source"),
        col("engine"),
        col("model"),
        col("quant"),
        col("n_gpus"),
        col("batch_or_concurrency"),
        col("output_tok_s"),
    );
    t.rows
        .iter()
        .map(|r| {
            let get = |i: usize| r.get(i).to_string();
            Row {
                source: get(source),
                engine: get(engine),
                model: get(model),
                quant: get(quant),
                n_gpus: get(n_gpus),
                batch: get(batch),
                output_tok_s: get(out),
            }
        })
        .collect()
}

/// The one row with exactly these engine, model, quant, GPU count and batch columns.
fn row(engine: &str, model: &str, quant: &str, gpus: &str, batch: &str) -> Row {
    let all = rows();
    let found: Vec<&Row> = all
        .iter()
        .filter(|r| {
            r.engine == engine && r.model == model && r.quant == quant && r.n_gpus == gpus && r.batch == batch
        })
        .collect();
    assert_eq!(
        found.len(),
        1,
        "expected one row {engine}/{model}/{quant}/{gpus}/{batch}, found {found:?}"
    );
    found[0].clone()
}

/// "85-89" → (85, 89); "~114" → (114, 114); "70.6" → (70.6, 70.6).
fn range(s: &str) -> (f64, f64) {
    let s = s.trim().trim_start_matches('~');
    let num = |x: &str| {
        x.trim()
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("not a tok/s value: {s}"))
    };
    match s.split_once('-') {
        Some((a, b)) => (num(a), num(b)),
        None => (num(s), num(s)),
    }
}

/// Runs a validation scenario; returns (decode output tok/s, end-to-end output tok/s).
fn predict(file: &str) -> (f64, f64) {
    let v = run_json(&scenario(&format!("validation/{file}")));
    let t = &v["throughput"];
    (f(&t["output_tok_s"]), f(&t["e2e_output_tok_s"]))
}

/// Asserts both ends of a measured range fall in [`BAND`] of the prediction; prints the comparison.
fn check(label: &str, measured: (f64, f64), predicted: f64) -> (f64, f64) {
    let ratios = (measured.0 / predicted, measured.1 / predicted);
    println!(
        "{label}: measured {:.1}–{:.1} tok/s, predicted {predicted:.1} tok/s, ratio {:.3}–{:.3}, band [{}, {}]",
        measured.0, measured.1, ratios.0, ratios.1, BAND.0, BAND.1
    );
    for r in [ratios.0, ratios.1] {
        assert!(
            (BAND.0..=BAND.1).contains(&r),
            "{label}: measured ÷ predicted = {r:.3} is outside [{}, {}] (measured {measured:?}, predicted {predicted:.1})",
            BAND.0,
            BAND.1
        );
    }
    ratios
}

#[test]
fn minimax_m25_nvfp4_sglang_2x_rtx_pro_6000_bs1() {
    // rtx6kpro benchmarks/results.md | SGLang | MiniMax-M2.5 | NVFP4 | 2 GPUs | batch 1 | 85-89 (Festr).
    let r = row("SGLang", "MiniMax-M2.5", "NVFP4", "2", "1");
    let v = run_json(&scenario("validation/minimax-m2.5-nvfp4-sglang-tp2.toml"));
    // SGLang pads the q/k-norm statistics to 16 B, which its custom allreduce takes on 2 GPUs.
    let c = &v["collectives"];
    assert_eq!(c["qk_norm_allreduce_bytes"], 16);
    assert_eq!(c["qk_norm_algorithm"], "custom one-shot");
    check(
        "MiniMax-M2.5 NVFP4, SGLang, 2 GPUs, bs 1",
        range(&r.output_tok_s),
        f(&v["throughput"]["output_tok_s"]),
    );
}

#[test]
fn minimax_m25_awq_vllm_2x_rtx_pro_6000_bs1() {
    // rtx6kpro benchmarks/results.md | vLLM | MiniMax-M2.5 | AWQ | 2 GPUs | batch 1 | ~114 (low ctx).
    let r = row("vLLM", "MiniMax-M2.5", "AWQ", "2", "1");
    let v = run_json(&scenario("validation/minimax-m2.5-awq-vllm-tp2.toml"));
    // vLLM's unpadded 8-byte statistics are not a 16-byte multiple: NCCL even on 2 GPUs.
    let c = &v["collectives"];
    assert_eq!(c["qk_norm_allreduce_bytes"], 8);
    assert!(
        c["qk_norm_algorithm"]
            .as_str()
            .is_some_and(|a| a.starts_with("nccl")),
        "{c}"
    );
    check(
        "MiniMax-M2.5 AWQ, vLLM, 2 GPUs, bs 1",
        range(&r.output_tok_s),
        f(&v["throughput"]["output_tok_s"]),
    );
}

#[test]
fn minimax_m25_fp8_sglang_4x_rtx_pro_6000_bs1() {
    // rtx6kpro benchmarks/results.md | SGLang | MiniMax-M2.5 | FP8 | 4 GPUs | batch 1 | ~71 (defaults).
    let r = row("SGLang", "MiniMax-M2.5", "FP8", "4", "1");
    let v = run_json(&scenario("validation/minimax-m2.5-fp8-sglang-tp4.toml"));
    // 62 layers × (attention + MoE allreduce + q/k-norm statistics) + the embedding's = 187.
    let c = &v["collectives"];
    assert_eq!(c["allreduces_per_pass"], 187);
    // Every one of them is on the decode step's critical path (one chain per layer): 125 hidden-state
    // allreduces of 6 KiB plus 62 q/k-norm ones of 16 B make the step's allreduce time (tolerance
    // 0.1 %: the breakdown is a mean over the iterations of picosecond-rounded task times).
    let want_ms = (125.0 * f(&c["decode_allreduce_us"]) + 62.0 * f(&c["qk_norm_allreduce_us"])) / 1000.0;
    let got_ms = f(&v["breakdown_by_op"]["allreduce"]);
    assert!(
        (got_ms / want_ms - 1.0).abs() < 1e-3,
        "allreduce on the critical path {got_ms} ms vs 125 + 62 calls = {want_ms} ms"
    );
    check(
        "MiniMax-M2.5 FP8, SGLang, 4 GPUs, bs 1",
        range(&r.output_tok_s),
        f(&v["throughput"]["output_tok_s"]),
    );
}

#[test]
fn minimax_m25_fp8_ep_sglang_8x_rtx_pro_6000_bs1() {
    // rtx6kpro benchmarks/results.md | SGLang | MiniMax-M2.5 | FP8 (EP) | 8 GPUs | batch 1 | ~86
    // (tuned MoE kernels).
    let r = row("SGLang", "MiniMax-M2.5", "FP8 (EP)", "8", "1");
    let (pred, _) = predict("minimax-m2.5-fp8-ep-sglang-tp8.toml");
    check(
        "MiniMax-M2.5 FP8 EP, SGLang, 8 GPUs, bs 1",
        range(&r.output_tok_s),
        pred,
    );
}

/// "latency 10.43 s -> 9.79 s" → (10.43, 9.79).
fn latencies(s: &str) -> (f64, f64) {
    let body = s.trim().trim_start_matches("latency").trim();
    let (a, b) = body
        .split_once("->")
        .unwrap_or_else(|| panic!("not a latency pair: {s}"));
    let sec = |x: &str| {
        x.trim()
            .trim_end_matches('s')
            .trim()
            .parse::<f64>()
            .unwrap_or_else(|_| panic!("not seconds: {x}"))
    };
    (sec(a), sec(b))
}

#[test]
fn llama_13b_fp16_vllm_2x_a30_bs32_nccl_and_custom_allreduce() {
    // vllm PR 2192 | vLLM | Llama 13B | fp16 | 2× A30 (no NVLink) | batch 32 | latency 10.43 s (NCCL)
    // → 9.79 s (custom allreduce), benchmark_latency 256 in / 256 out: 32 × 256 output tokens per run.
    let r = row("vLLM", "Llama 13B", "fp16", "2", "32");
    let (nccl_s, custom_s) = latencies(&r.output_tok_s);
    let tokens = 32.0 * 256.0;
    let (_, nccl) = predict("llama-2-13b-a30x2-vllm-nccl.toml");
    let (_, custom) = predict("llama-2-13b-a30x2-vllm-custom.toml");
    let m_nccl = tokens / nccl_s;
    let m_custom = tokens / custom_s;
    check(
        "Llama-2-13B fp16, vLLM, 2× A30, bs 32, NCCL",
        (m_nccl, m_nccl),
        nccl,
    );
    check(
        "Llama-2-13B fp16, vLLM, 2× A30, bs 32, custom AR",
        (m_custom, m_custom),
        custom,
    );
    // The PR's point, the custom allreduce's speedup (10.43 / 9.79 = 1.065), depends only on the
    // allreduce costs, which are validated against allreduce.tsv: predicted within 5 % of it.
    let measured = nccl_s / custom_s;
    let predicted = custom / nccl;
    println!("  custom-allreduce speedup: measured {measured:.3}, predicted {predicted:.3}");
    assert!(predicted > 1.0, "custom allreduce must be faster: {predicted:.3}");
    assert!(
        (measured / predicted - 1.0).abs() < 0.05,
        "speedup measured {measured:.3} vs predicted {predicted:.3}"
    );
}

#[test]
fn every_row_is_compared_or_skipped_with_a_reason() {
    // (engine, model) of the rows compared above, and of those skipped in the module doc.
    let compared = [
        ("SGLang", "MiniMax-M2.5"),
        ("vLLM", "MiniMax-M2.5"),
        ("vLLM", "Llama 13B"),
    ];
    let skipped = [
        ("vLLM (POC)", "DeepSeek-V4 (Flash)"),
        ("SGLang (V100 fork)", "Qwen3.8 Flash Next"),
        ("?", "MiniMax-M2.5 (proxy)"),
    ];
    let all = rows();
    assert!(all.len() >= 50, "throughput.tsv shrank: {} rows", all.len());
    for r in &all {
        let key = (r.engine.as_str(), r.model.as_str());
        let qwen35 = r.model == "Qwen3.5-397B-A17B"; // tests/tests/throughput_qwen35.rs
        assert!(
            qwen35 || compared.contains(&key) || skipped.contains(&key),
            "throughput.tsv row neither compared nor skipped: {} | {} | {} | {}",
            r.source,
            r.engine,
            r.model,
            r.quant
        );
    }
    // The compared set is exactly the five rows the tests above name.
    let n = all
        .iter()
        .filter(|r| compared.contains(&(r.engine.as_str(), r.model.as_str())))
        .count();
    assert_eq!(n, 5);
}
