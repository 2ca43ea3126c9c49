//! b200moe55 (issue #18, class B): the triton fused-MoE call's fixed cost on SM 10.0 (B200), from the
//! two whole-call kernel series measured on a B200 that the stored text holds, split as hopmoe split
//! the Hopper ones (`moe_kernels_hopper.rs`): a fixed part and a streaming rate through two batches
//! whose weight reads are above the L2.
//!
//! Source (tests/data/moe-kernels-b200.tsv): sglang PR 11816 (SGLang's `tuning_fused_moe_triton.py`,
//! DeepSeek-R1 block-FP8 at TP 8, the shipped `E=257,N=256,…NVIDIA_B200` file; 7 kernels a call, the
//! harness's top-k outside it) and vllm PR 31448 (`benchmark_moe.py`, Qwen3-Omni-30B-A3B bf16 at TP 1,
//! the default 16 × 32 × 64 tile; 6 kernels: top-k, align, w13, SiLU-and-mul, w2, sum). Routing is
//! random, so a call reads E·(1 − (1 − k/E)^M) experts' full w13 + w2 slices.
//!
//! What tpsim takes from them (`sim/src/decode/passes/moe_call.rs`, `FUSED_MOE_KERNEL_US_SM100`):
//! the median of the two per-kernel fixed parts, 5.875 µs, in place of the B200 template's borrowed
//! 3 µs for each kernel of the triton fused-MoE call (bf16 / fp16 / fp8 experts, no a2a backend).

use crate::common::*;

/// Experts a call touches on average: E·(1 − (1 − k/E)^M).
fn distinct(e: f64, k: f64, m: f64) -> f64 {
    e * (1.0 - (1.0 - k / e).powf(m))
}

/// (fixed µs, streaming bytes/s) of the line through batches `lo` and `hi` of the series whose
/// `source` column starts with `src`.
fn split(src: &str, lo: u32, hi: u32) -> (f64, f64) {
    let t = read_tsv(&data_path("moe-kernels-b200.tsv"));
    let c = |n: &str| t.col(n);
    let num = |r: &TsvRow, n: &str| -> f64 { r.cells[c(n)].parse().expect("number") };
    let at = |b: u32| -> (f64, f64) {
        let r = t
            .rows
            .iter()
            .find(|r| r.cells[c("source")].starts_with(src) && r.cells[c("batch")] == b.to_string())
            .unwrap_or_else(|| panic!("{src} batch {b}"));
        let bytes_per_byte = if r.cells[c("weights")].starts_with("bf16") {
            2.0
        } else {
            1.0
        };
        let expert = 3.0 * num(r, "n_per_rank") * num(r, "hidden") * bytes_per_byte;
        let read = distinct(num(r, "experts"), num(r, "top_k"), f64::from(b)) * expert;
        (read, num(r, "us"))
    };
    let ((b_lo, t_lo), (b_hi, t_hi)) = (at(lo), at(hi));
    let rate = (b_hi - b_lo) / ((t_hi - t_lo) * 1e-6);
    (t_lo - b_lo / rate * 1e6, rate)
}

/// By hand. PR 11816: an expert is 3 × 256 × 7168 B = 5,505,024 B (fp8); batch 4 reads
/// 257·(1 − (248/257)^4) = 34.15 experts = 188.0 MB, batch 24 147.76 = 813.4 MB (both above the
/// B200's 126 MB L2 [lead: freecodecamp's Blackwell memory article]); rate 625.4 MB / 96.71 µs =
/// 6.467 TB/s = 0.843 of the driver's 7.672 TB/s; fixed 79.09 − 188.0 / 6.467 = 50.02 µs, over 7
/// kernels 7.1453. PR 31448: an expert is 3 × 768 × 2048 × 2 B = 9,437,184 B; batch 2 reads 15.50
/// experts = 146.3 MB, batch 4 29.12 = 274.8 MB; rate 128.6 MB / 21.31 µs = 6.033 TB/s = 0.786;
/// fixed 51.87 − 146.3 / 6.033 = 27.62 µs, over 6 kernels 4.6040. Their mean 5.8747 is
/// `FUSED_MOE_KERNEL_US_SM100` (pinned in `passes::moe_call`'s unit test). Tolerances: 0.01 µs and
/// 0.001 of the bandwidth (rounding of the printed figures only).
#[test]
fn b200_series_split_into_the_per_kernel_figure() {
    let (f_sgl, r_sgl) = split("https://github.com/sgl-project/sglang/pull/11816", 4, 24);
    let (f_vllm, r_vllm) = split("https://github.com/vllm-project/vllm/pull/31448", 2, 4);
    assert!((f_sgl - 50.02).abs() < 0.01, "{f_sgl}");
    assert!((r_sgl / 7.672e12 - 0.843).abs() < 0.001, "{r_sgl}");
    assert!((f_vllm - 27.62).abs() < 0.01, "{f_vllm}");
    assert!((r_vllm / 7.672e12 - 0.786).abs() < 0.001, "{r_vllm}");
    let per_kernel = (f_sgl / 7.0 + f_vllm / 6.0) / 2.0;
    assert!((per_kernel - 5.8747).abs() < 0.0005, "{per_kernel}");
    // Both stream near the template's 0.80 of 7.67 TB/s; the fixed parts exceed what the B200
    // template charges for the same kernels (3 µs each: 7 × 3 = 21, 6 × 3 = 18 µs).
    assert!(f_sgl > 7.0 * 3.0 && f_vllm > 6.0 * 3.0);
}

/// The charge on a bundled row, GLM-4.6 bf16 under SGLang 0.5.6.post1 on 8× B200 at TP 8, c 1
/// (triton fused MoE: no SM 10.x runner rule for Glm4Moe bf16): tpsim's MoE op was 3.9977 ms a step
/// (89 MoE layers; b200moe49's decomposition, `tpsim run --json` before this change) and each
/// layer now carries 6 × (5.87466 − 3) = 17.248 µs more: 3.9977 + 89 × 0.017248 = 5.5328 ms; and
/// (b200moe62) the row's untuned bf16 tile (no `E=160,N=192` B200 file) 14.583 µs more a layer (sglang
/// PR 7004): 5.5328 + 89 × 0.014583 = 6.8307 ms (± 0.002 ms: integer-ns rounding of 89 layers and the
/// 4-digit before figure); and (moeroute62) SGLang 0.5.6's `biased_grouped_topk_impl` chain, 9
/// routing launches a MoE layer where the template counted 1, inside the `moe` op: + 89 × 8 × 3 µs =
/// 2.136 ms → 8.9667 ms.
#[test]
fn glm46_b200_row_moe_op_carries_the_b200_call_cost() {
    let v = run_json(&scenario(
        "validation/glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
    ));
    let moe = f(&v["breakdown_by_op"]["moe"]);
    assert!(
        (moe - (3.9977 + 89.0 * (0.017248 + 0.014583 + 8.0 * 0.003))).abs() < 0.002,
        "{moe}"
    );
}

/// The rows SGLang runs on FlashInfer's TRT-LLM MoE on SM 10.0 take no triton call cost:
/// DeepSeek-R1-0528 FP8 under 0.5.6.post1 (`flashinfer_trtllm` for DeepseekV3 fp8, sm100moe) kept
/// its MoE op at 2.3828 ms a step at c 1 (± 0.001 ms), as before this change; b200sg63 then adds the
/// TRT-LLM call's own fixed kernels (15.0 µs in each of its 58 MoE layers, `passes::moe_call`,
/// tests/tests/b200sg63.rs): 2.3828 + 0.870 = 3.2528 ms, still no triton cost.
#[test]
fn trtllm_rows_are_untouched() {
    let v = run_json(&scenario(
        "validation/deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
    ));
    let moe = f(&v["breakdown_by_op"]["moe"]);
    assert!((moe - (2.3828 + 58.0 * 0.015)).abs() < 0.001, "{moe}");
}
