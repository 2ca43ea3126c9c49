//! fp8decode: what a block-FP8 linear costs at decode on Hopper — its GEMM against DeepGEMM's own
//! M 64 timings, and the per-token-group activation quantization kernel the engines launch before it
//! (`tpsim_model` `llm::act_quant`; book/src/validation.md, "Block-FP8 decode (fp8decode)").
//!
//! Source (tests/data/deepgemm-normal.tsv): DeepGEMM's README table "Normal GEMMs for dense models"
//! (deepseek-ai/DeepGEMM a6d97a1), six M 64 shapes on H800 (HBM3, 3.35 TB/s as the H100 SXM), kernel
//! time from `bench_kineto`. A least-squares line through (bytes, µs) gives the GEMM's fixed part and
//! streaming rate; the H100 template charges a decode GEMM `kernel_overhead` (3 µs, hopper-sxm.toml)
//! plus its bytes at `mem_efficiency` (0.80, pcie-nccl-host.toml) of 3.35 TB/s. Nothing is fitted.

use crate::common::*;

/// HBM3 bandwidth of the H800 SXM and H100 SXM (H100 template `memory_bandwidth`), bytes/s.
const HBM3_BYTES_PER_S: f64 = 3.35e12;

/// (bytes, µs) of each M 64 row: bytes m·k + k·n + 2·m·n as the README's test counts them, time from
/// its TFLOPS (2·m·n·k FLOPs).
fn deepgemm_m64() -> Vec<(f64, f64)> {
    let t = read_tsv(&data_path("deepgemm-normal.tsv"));
    let (m, n, k, tf) = (t.col("m"), t.col("n"), t.col("k"), t.col("tflops"));
    t.rows
        .iter()
        .filter(|r| r.get(m) == "64")
        .map(|r| {
            let num = |i: usize| -> f64 {
                r.get(i)
                    .parse()
                    .unwrap_or_else(|_| panic!("line {}: not a number: {}", r.line, r.get(i)))
            };
            let (m, n, k) = (num(m), num(n), num(k));
            let us = 2.0 * m * n * k / (num(tf) * 1e12) * 1e6;
            (m * k + k * n + 2.0 * m * n, us)
        })
        .collect()
}

/// A `[params]` value of a hardware template, as written.
fn template_param(file: &str, key: &str) -> toml::Value {
    let text = std::fs::read_to_string(scenario(&format!("hardware/templates/{file}")))
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let v: toml::Value = toml::from_str(&text).unwrap_or_else(|e| panic!("{file}: {e}"));
    v["params"][key].clone()
}

#[test]
fn deepgemm_m64_gemms_are_not_slower_than_the_h100_template_charges() {
    let rows = deepgemm_m64();
    assert_eq!(rows.len(), 6, "the README's six M 64 shapes");
    // Least squares µs = a + bytes / rate. By hand from the table: a = 2.27 µs, rate 2,813 GB/s
    // (0.840 of 3.35 TB/s).
    let n = rows.len() as f64;
    let mx = rows.iter().map(|r| r.0).sum::<f64>() / n;
    let my = rows.iter().map(|r| r.1).sum::<f64>() / n;
    let slope = rows.iter().map(|r| (r.0 - mx) * (r.1 - my)).sum::<f64>()
        / rows.iter().map(|r| (r.0 - mx).powi(2)).sum::<f64>();
    let fixed_us = my - slope * mx;
    let fraction = 1e6 / slope / HBM3_BYTES_PER_S;
    assert!((fixed_us - 2.27).abs() < 0.01, "fixed part {fixed_us:.3} µs");
    assert!(
        (fraction - 0.840).abs() < 0.001,
        "streaming fraction {fraction:.4}"
    );
    // The H100 template: 3 µs per kernel, 0.80 of the datasheet for weight streams.
    let overhead = template_param("hopper-sxm.toml", "kernel_overhead");
    assert_eq!(overhead.as_str(), Some("3us"));
    let eff = template_param("pcie-nccl-host.toml", "mem_efficiency")
        .as_float()
        .expect("mem_efficiency");
    // DeepGEMM streams faster (0.840 > 0.80) after a smaller fixed part (2.27 < 3 µs): at M ≤ 64 the
    // block-FP8 GEMM itself is not where tpsim is optimistic.
    assert!(fraction > eff && fixed_us < 3.0);
    // Over the six shapes the template's cost is 108.8 µs against the measured 100.1 (+8.6 %, ± 0.2).
    let tpsim: f64 = rows
        .iter()
        .map(|r| 3.0 + r.0 / (eff * HBM3_BYTES_PER_S) * 1e6)
        .sum();
    let measured: f64 = rows.iter().map(|r| r.1).sum();
    assert!(
        (tpsim / measured - 1.086).abs() < 0.002,
        "{tpsim:.1} vs {measured:.1} µs"
    );
}

/// Decode step (ms) and the attention and MLP ops' times (ms) of a scenario's `tpsim run --json`.
fn step_ops(file: &str) -> (f64, f64, f64) {
    let v = run_json(&scenario(file));
    let ops = &v["breakdown_by_op"];
    (
        f(&v["throughput"]["tpot_ms"]),
        f(&ops["attention"]),
        f(&ops["mlp"]),
    )
}

#[test]
fn qwen3_8b_block_fp8_pays_one_quant_kernel_per_projection_and_bf16_none() {
    // The GPUStack pair (throughput_newdeploys6.rs): one H100, SGLang 0.5.3.post3, c 4. The FP8 row's
    // attention and MLP ops each carry 36 layers × 2 quantization kernels × 3 µs = 0.216 ms more than
    // the same weights would cost without them, plus 36 × 99,328 and 36 × 198,656 bytes
    // (act_quant's unit test) at 0.80 × 3.35 TB/s = 1.3 and 2.7 µs.
    let (_, fa, fm) = step_ops("validation/qwen3-8b-fp8-h100-sglang-0.5.3-sharegpt-c4.toml");
    let (_, ba, bm) = step_ops("validation/qwen3-8b-h100-sglang-0.5.3-sharegpt-c4.toml");
    // Weight bytes per layer, by hand (Qwen3-8B: hidden 4,096, 32 + 2 × 8 heads of 128, MLP 12,288):
    // attention 4,096 × 6,144 + 4,096 × 4,096 = 41.9 M parameters, MLP 3 × 4,096 × 12,288 = 151.0 M;
    // fp8 with 128 × 128 fp32 block scales is 1 + 4 / 16,384 B a parameter, bf16 2 B. The ops differ
    // by the weights' halving and the quantization; what the ops share (norms, KV reads, kernels)
    // cancels in (bf16 − fp8) − weight difference.
    let rate = 0.80 * HBM3_BYTES_PER_S;
    let layers = 36.0;
    let attn_params = 4096.0 * 6144.0 + 4096.0 * 4096.0;
    let mlp_params = 3.0 * 4096.0 * 12288.0;
    let saved = |p: f64| layers * p * (2.0 - (1.0 + 4.0 / 16384.0)) / rate * 1e3;
    let quant = |bytes: f64| layers * (2.0 * 3e-3 + bytes / rate * 1e3);
    let attn_extra = fa - (ba - saved(attn_params));
    let mlp_extra = fm - (bm - saved(mlp_params));
    assert!(
        (attn_extra - quant(99_328.0)).abs() < 0.01,
        "attention: {attn_extra:.4} ms over the halved weights, want {:.4}",
        quant(99_328.0)
    );
    assert!(
        (mlp_extra - quant(198_656.0)).abs() < 0.01,
        "mlp: {mlp_extra:.4} ms over the halved weights, want {:.4}",
        quant(198_656.0)
    );
}
