//! b200host64 (issue #18): SGLang's `flashinfer_trtllm` MoE runner with bf16 experts on SM 10.0 (B200).
//!
//! Source (tests/data/trtllm-moe-b300.tsv): flashinfer pull 4985's `bench_moe_deepseek.py` table on one B300,
//! DeepSeek-V3's MoE shape with 32 local experts (EP 8 simulated), CUDA graphs, CUPTI, cold L2: whole-call
//! latencies of the TRT-LLM bf16 call (`trtllm_bf16_moe`, what SGLang 0.5.8+ runs for Qwen3-MoE / Qwen3-Next
//! bf16 on SM 100) and of the TRT-LLM NVFP4 call against the local experts each token count touched. The
//! line through the 1- and 8-token rows gives each call's fixed part; `sim/src/decode/passes/moe_call.rs`
//! (`TRTLLM_BF16_CALL_FIXED_US`) charges the bf16 one over the six kernels tpsim counts in its place.

use crate::common::*;

/// The B200 template's per-kernel cost (`templates/b200-sxm.toml` extends `hopper-sxm`: 3 µs; checked by
/// `b200sg63::profile_fixed_kernels_give_the_trtllm_overhead`).
const TEMPLATE_KERNEL_US: f64 = 3.0;

/// Kernels of the triton call tpsim counts in the TRT-LLM call's place: top-k, align, w13, SiLU, w2, sum.
const CALL_KERNELS: f64 = 6.0;

/// (active local experts, latency µs) of `column` at `tokens` in the PR 4985 table.
fn point(column: &str, tokens: u32) -> (f64, f64) {
    let t = read_tsv(&data_path("trtllm-moe-b300.tsv"));
    let r = t
        .rows
        .iter()
        .find(|r| r.cells[t.col("tokens")] == tokens.to_string())
        .expect("row");
    let experts: f64 = r.cells[t.col("active_local_experts")].parse().expect("experts");
    let ms: f64 = r.cells[t.col(column)].parse().expect("ms");
    (experts, ms * 1000.0)
}

/// (µs a touched expert, intercept µs) of the line through the 1- and 8-token rows of `column`.
fn line(column: &str) -> (f64, f64) {
    let ((e1, t1), (e8, t8)) = (point(column, 1), point(column, 8));
    let slope = (t8 - t1) / (e8 - e1);
    (slope, t1 - e1 * slope)
}

/// By hand: TRT-LLM BF16 51 µs at 1 token (2 experts), 157 at 8 (10): (157 − 51) ÷ 8 = 13.25 µs an
/// expert, 51 − 2 × 13.25 = 24.5 µs fixed (± 1e-9), less 6 × 3 µs = 6.5 µs a MoE layer. The rows left
/// out of the line check it: 2 tokens (4 experts) 51 + 2 × 13.25 = 77.5 against 79, 4 tokens (7
/// experts) 117.25 against 117, both within 2 %. An expert's bf16 weights, 3 × 7,168 × 2,048 × 2 B =
/// 88.08 MB, in 13.25 µs is 6.65 TB/s, within 10 % of the template's streaming (0.80 of the HBM's
/// 8 TB/s on the B300 = 6.4 TB/s): the slope is the weights, the intercept the call's fixed part.
#[test]
fn pr4985_bf16_line_gives_the_fixed_part() {
    let (slope, fixed) = line("trtllm_bf16_ms");
    assert!((slope - 13.25).abs() < 1e-9, "{slope}");
    assert!((fixed - 24.5).abs() < 1e-9, "{fixed}");
    assert!((fixed - CALL_KERNELS * TEMPLATE_KERNEL_US - 6.5).abs() < 1e-9);
    for tokens in [2, 4] {
        let (e, t) = point("trtllm_bf16_ms", tokens);
        let on_line = fixed + e * slope;
        assert!(
            (on_line / t - 1.0).abs() < 0.02,
            "{tokens}: {on_line} against {t}"
        );
    }
    let tb_s = 3.0 * 7168.0 * 2048.0 * 2.0 / (slope * 1e-6) / 1e12;
    assert!((tb_s / (0.80 * 8.0) - 1.0).abs() < 0.10, "{tb_s}");
}

/// By hand: TRT-LLM NVFP4 26 µs at 1 token, 64 at 8: (64 − 26) ÷ 8 = 4.75 µs an expert, 26 − 2 × 4.75 =
/// 16.5 µs fixed with its activation quantization (± 1e-9), under the 6 × 3 = 18 µs tpsim counts for the
/// call's kernels alone: the NVFP4 TRT-LLM call takes no charge (b200sg63's
/// `nvfp4_trtllm_row_takes_no_charge` stands).
#[test]
fn pr4985_nvfp4_trtllm_fixed_part_is_under_the_count() {
    let (slope, fixed) = line("trtllm_nvfp4_ms");
    assert!((slope - 4.75).abs() < 1e-9, "{slope}");
    assert!((fixed - 16.5).abs() < 1e-9, "{fixed}");
    assert!(fixed < CALL_KERNELS * TEMPLATE_KERNEL_US);
}

/// The charge on the bundled rows: Qwen3-Coder-Next (the Qwen3-Next preset, bf16, 48 MoE layers) under
/// SGLang 0.5.8 on 2× B200, TP 2 (`flashinfer_trtllm` by SGLang's rule). At c 1 its `moe` op was 1.5729 ms
/// a step (b200sg63's pin, replaced by this test) and is 48 × 6.5 µs = 0.312 ms longer: 1.8849 ms
/// (± 0.001 ms); its median TPOT 3.7518 → 4.0638 ms (± 0.005 ms, the prefills the step carries), against
/// the cookbook's 6.23 ms (throughput.tsv line 226, 160.51 tok/s): still a known miss, 45 µs a MoE
/// layer short.
#[test]
fn qwen3_coder_next_row_carries_the_bf16_call() {
    let v = run_json(&scenario(
        "validation/qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1.toml",
    ));
    let moe = f(&v["breakdown_by_op"]["moe"]);
    assert!((moe - (1.5729 + 48.0 * 0.0065)).abs() < 0.001, "{moe}");
    let p50 = f(&v["serving"]["tpot_ms"]["p50"]);
    assert!((p50 - (3.7518 + 48.0 * 0.0065)).abs() < 0.005, "{p50}");
    let gap_us = (1000.0 / 160.51 - p50) / 48.0 * 1000.0;
    assert!((gap_us - 45.1).abs() < 0.5, "{gap_us}");
}

/// The DeepSeek-R1 c 1 lead (book/src/validation.md, b200host64; not a model input). InferenceX issue 819's
/// B200 trace of the same deployment (SGLang 0.5.6, DeepSeek-R1-0528 FP8, 8× B200 TP 8, conc 4, 8 decode
/// steps captured) lists 224.70 ms of GPU time, 156.70 of it allreduce (the other ranks' wait included). By
/// hand: (224.70 − 156.70) ÷ 8 = 8.50 ms of kernels a step if the totals span the 8 steps; tpsim's c 1 step
/// less its allreduce is 7.587 − 0.678 = 6.909 ms (`tpsim run --json`, ± 0.01 ms), short by 1.59 ms — the
/// row's own miss, 9.15 − 7.587 = 1.56 ms, to within 0.1 ms. A change to tpsim's B200 step moves this.
#[test]
fn inferencex_819_kernel_time_matches_the_deepseek_c1_miss_at_eight_steps() {
    let t = read_tsv(&data_path("decode-trace-b200.tsv"));
    let ms = |cat: &str| -> f64 {
        let r = t
            .rows
            .iter()
            .find(|r| r.cells[t.col("category")] == cat)
            .expect(cat);
        r.cells[t.col("gpu_ms")].parse().expect("gpu_ms")
    };
    let parts: f64 = t
        .rows
        .iter()
        .filter(|r| r.cells[t.col("category")] != "TOTAL")
        .map(|r| r.cells[t.col("gpu_ms")].parse::<f64>().expect("gpu_ms"))
        .sum();
    assert!((parts - ms("TOTAL")).abs() < 0.01, "{parts}");
    let kernels_a_step = (ms("TOTAL") - ms("AllReduce / Communication")) / 8.0;
    assert!((kernels_a_step - 8.50).abs() < 1e-9, "{kernels_a_step}");
    let v = run_json(&scenario(
        "validation/deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml",
    ));
    let step = f(&v["serving"]["tpot_ms"]["p50"]);
    let non_ar = step - f(&v["breakdown_by_op"]["allreduce"]);
    assert!((non_ar - 6.909).abs() < 0.01, "{non_ar}");
    let (trace_gap, row_gap) = (kernels_a_step - non_ar, 9.15 - step);
    assert!((trace_gap - row_gap).abs() < 0.1, "{trace_gap} {row_gap}");
}
