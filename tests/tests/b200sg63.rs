//! b200sg63 (issue #18): the fixed kernels of SGLang's `flashinfer_trtllm` MoE runner on SM 10.0 (B200).
//!
//! Source (tests/data/trtllm-moe-b200.tsv): an nsys profile of FlashInfer's TRT-LLM FP8 block-scale MoE
//! (`trtllm_fp8_block_scale_moe`, DeepSeek routing, top-8 of 256 experts in 8 groups) on one B200,
//! flashinfer-bench's 19 workloads of `moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048`.
//! The call's kernels that do not stream expert weights — routing main and cluster indices, the
//! activation, finalize — average 11.0, 3.6, 6.8 and 5.6 µs on the small-batch path, where tpsim counted
//! four kernels (top-k, align, SiLU, sum) at the B200 template's 3 µs each. The difference, 15.0 µs a MoE
//! layer, is what `sim/src/decode/passes/moe_call.rs` (`TRTLLM_FP8_FIXED_KERNELS_US_SM100`) adds on SM 10.0
//! to a block-FP8 MoE layer under `flashinfer_trtllm`.

use crate::common::*;

/// The B200 template's per-kernel cost: `templates/b200-sxm.toml` extends `hopper-sxm`, whose
/// `kernel_overhead` is 3 µs.
const TEMPLATE_KERNEL_US: f64 = 3.0;

/// By hand: 11.0 + 3.6 + 6.8 + 5.6 = 27.0 µs of the four charged rows, less 4 × 3 µs = 15.0 µs (± 1e-9),
/// the figure `deepseek_r1_b200_row_carries_the_trtllm_kernels` finds applied; the large-batch kernels (cooperative routing, the vectorised
/// finalize, the medium and large activations) and the GEMMs are not charged.
#[test]
fn profile_fixed_kernels_give_the_trtllm_overhead() {
    let t = read_tsv(&data_path("trtllm-moe-b200.tsv"));
    let c = |n: &str| t.col(n);
    let charged: Vec<f64> = t
        .rows
        .iter()
        .filter(|r| r.cells[c("use")].starts_with("fixed kernel: charged"))
        .map(|r| r.cells[c("avg_us")].parse().expect("avg_us"))
        .collect();
    assert_eq!(charged.len(), 4, "{charged:?}");
    let sum: f64 = charged.iter().sum();
    assert!((sum - 27.0).abs() < 1e-9, "{sum}");
    let overhead = sum - 4.0 * TEMPLATE_KERNEL_US;
    assert!((overhead - 15.0).abs() < 1e-9, "{overhead}");
    let template =
        std::fs::read_to_string(scenario("hardware/templates/b200-sxm.toml")).expect("b200-sxm.toml");
    assert!(template.contains("extends = \"hopper-sxm\"") && !template.contains("\nkernel_overhead"));
    let hopper =
        std::fs::read_to_string(scenario("hardware/templates/hopper-sxm.toml")).expect("hopper-sxm.toml");
    assert!(
        hopper.contains("\nkernel_overhead = \"3us\""),
        "template kernel cost moved"
    );
}

/// The charge on a bundled row: DeepSeek-R1-0528 FP8 under SGLang 0.5.6.post1 on 8× B200, TP 8, c 1
/// (`flashinfer_trtllm`, block-FP8 experts; 58 MoE layers of 61). Its `moe` op a step was 2.3828 ms
/// before this change (`tpsim run --json`, this branch's parent b5f2f193) and is 58 × 15.0 µs = 0.870 ms
/// longer (± 0.002 ms: integer-ns rounding over 58 layers).
#[test]
fn deepseek_r1_b200_row_carries_the_trtllm_kernels() {
    let v = run_json(&scenario(
        "validation/deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
    ));
    let moe = f(&v["breakdown_by_op"]["moe"]);
    assert!((moe - (2.3828 + 58.0 * 0.015)).abs() < 0.002, "{moe}");
}

// b200host64 charges the bf16 TRT-LLM call's fixed part (flashinfer pull 4985): the Qwen3-Coder-Next
// pin that stood here moved to `b200host64::qwen3_coder_next_row_carries_the_bf16_call`.

/// NVFP4 experts under the same runner are not charged either (`trtllm_fp4_block_scale_moe`, another
/// call): Kimi-K2.5 NVFP4 under SGLang 0.5.9 with `--quantization modelopt_fp4` (`flashinfer_trtllm`,
/// b200sgl54) keeps the `moe` op of the same launch on `cutlass` less b200sgl54's 60 × 11 × 3 µs
/// = 1.98 ms (± 0.001 ms).
#[test]
fn nvfp4_trtllm_row_takes_no_charge() {
    let file = "validation/kimi-k2.5-nvfp4-b200x8-sglang-0.5.9-tp8-8k8k-c1.toml";
    let fp4 = edited_variant(file, "b200sg63-fp4", |t| {
        t.replace("[engine]\n", "[engine]\nquantization = \"modelopt_fp4\"\n")
    });
    let moe = |v: &serde_json::Value| f(&v["breakdown_by_op"]["moe"]);
    let d = moe(&run_json(&scenario(file))) - moe(&run_json(&fp4));
    assert!((d - 1.98).abs() < 0.001, "{d}");
}

/// The measured median TPOT (ms) of `tests/data/throughput.tsv` line `line`, read from its notes'
/// "c 64: 1000 / median TPOT X ms".
fn measured_c64_tpot(line: usize) -> f64 {
    let t = read_tsv(&data_path("throughput.tsv"));
    let r = t.rows.iter().find(|r| r.line == line).expect("row");
    let notes = &r.cells[t.col("notes")];
    let (_, rest) = notes.split_once("c 64: 1000 / median TPOT ").expect("TPOT");
    rest.split(' ').next().expect("figure").parse().expect("number")
}

/// The decomposition's under-load finding (book/src/validation.md, b200sg63): at the same 64 in flight,
/// the sgl-cookbook's 8k/1k runs (an arrival every ~8 steps) are slower than its 1k/8k runs (every
/// ~63) by more than tpsim's step is: GLM-4.6 measured 49.04 − 34.02 = 15.02 ms (lines 366, 363),
/// tpsim 40.37 − 30.55 = 9.82; Qwen3-235B 34.27 − 24.07 = 10.20 ms (lines 360, 357), tpsim
/// 29.14 − 22.53 = 6.61 (`tpsim run --json`, p50, ± 0.05 ms). Both 1k/8k rows are within ±20 %, both
/// 8k/1k rows above +17 %: the part tpsim lacks under load grows with the prefills that interrupt the
/// decode, not with the batch.
#[test]
fn under_load_gap_follows_the_arrivals_not_the_batch() {
    let p50 =
        |file: &str| f(&run_json(&scenario(&format!("validation/{file}")))["serving"]["tpot_ms"]["p50"]);
    for (model, lines, tpsim_ms) in [
        ("glm-4.6", (366, 363), (40.37, 30.55)),
        ("qwen3-235b-a22b", (360, 357), (29.14, 22.53)),
    ] {
        let (m8k, m1k) = (measured_c64_tpot(lines.0), measured_c64_tpot(lines.1));
        let t8k = p50(&format!("{model}-b200x8-sglang-0.5.6-tp8-8k1k-c64.toml"));
        let t1k = p50(&format!("{model}-b200x8-sglang-0.5.6-tp8-1k8k-c64.toml"));
        assert!(
            (t8k - tpsim_ms.0).abs() < 0.05 && (t1k - tpsim_ms.1).abs() < 0.05,
            "{model}: {t8k} {t1k}"
        );
        assert!(
            (m8k - m1k) - (t8k - t1k) > 3.5,
            "{model}: {m8k} {m1k} {t8k} {t1k}"
        );
        assert!((m1k / t1k - 1.0).abs() < 0.2, "{model} 1k/8k {}", m1k / t1k);
        assert!(m8k / t8k - 1.0 > 0.17, "{model} 8k/1k {}", m8k / t8k);
    }
}
