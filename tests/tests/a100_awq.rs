//! a100awq: what the three eager A100 AWQ known misses (Qwen3-14B-AWQ c 1, Qwen3-32B-AWQ c 4 and c 16,
//! `throughput_breadth.rs`) are not. Stop 35 left a lead that tpsim's A100 int4 (AWQ) GEMM cost is
//! too high: pie-project/pie PR 348's tested-on table (2026-05-07, one A100-SXM4-80GB) gives
//! Qwen2.5-72B-Instruct-AWQ (AWQ-Marlin, 80 layers) 14.50 ms per token under vLLM directly, where tpsim
//! gives 27.7 ms. That figure is below the time it takes to read the weights once at the datasheet
//! bandwidth, so it cannot be a batch-1 decode step of that model on that GPU and is no evidence on
//! the int4 cost. The book has the rest (validation.md, "The eager A100 AWQ rows (a100awq)").

use crate::common::*;

/// The lead's deployment: Qwen2.5-72B with Qwen's AWQ checkpoint format (int4, group 128, fp16
/// scales, 4-bit zero points; `quant.toml` of the rows' scenarios), vLLM's default (CUDA graphs), one
/// A100 SXM4 80GB, batch 1, a short prompt (the PR's haiku prompt, 128 output tokens).
const PIE_72B_AWQ: &str = r#"seed = 1
[hardware]
preset = "a100-sxm4-80gb-1x"
[model]
preset = "qwen2.5-72b"
quantization = { dtype = "int4", group_size = 128, scale_dtype = "fp16", zero_point = true, kv_cache_dtype = "auto" }
[engine]
name = "vllm"
tp = 1
gpu_memory_utilization = 0.95
max_model_len = 4096
[workload]
concurrency = 1
num_requests = 3
prompt_len = 16
output_len = 128
"#;

/// pie PR 348, "vllm-direct ms/tok" of its Qwen2.5-72B-Instruct-AWQ row.
const PIE_VLLM_DIRECT_MS: f64 = 14.50;

#[test]
fn pie_pr348_72b_awq_step_is_below_the_weight_read_floor() {
    // Hand arithmetic from scenarios/models/qwen2.5-72b/config.json (hidden 8192, intermediate 29568,
    // 80 layers, 64 query / 8 KV heads of 128, vocabulary 152064, untied LM head):
    // linear parameters per layer q 8192² + k, v 2 × 8192 × 1024 + o 8192² + gate, up, down
    // 3 × 8192 × 29568 = 877,658,112; × 80 = 70,212,648,960, at 0.5 + 2/128 + 0.5/128 B each
    // (int4, an fp16 scale and a 4-bit zero per 128) = 36,477,665,280 B; qkv biases 80 × 10,240 × 2 B,
    // norms (80 × 2 + 1) × 8192 × 2 B, the bf16 LM head 152064 × 8192 × 2 = 2,491,416,576 B: in all
    // 38,973,358,080 B = 36.2968 GiB read per step.
    let hand_bytes = 38_973_358_080.0_f64;
    let p = scratch("pie72b").join("scenario.toml");
    std::fs::write(&p, PIE_72B_AWQ).expect("write");
    let v = run_json(&p.display().to_string());
    let gib = f(&v["floor"]["weights_read_gib_per_step"]);
    assert!(
        (gib * f64::from(1u32 << 30) / hand_bytes - 1.0).abs() < 1e-6,
        "{gib} GiB"
    );
    // At the template's 2,039 GB/s (a100-sxm4-80gb.toml, datasheet) that is 19.11 ms before any KV.
    let floor = f(&v["floor"]["memory_floor_ms_per_step"]);
    assert!(
        (floor / (hand_bytes / 2039e9 * 1e3) - 1.0).abs() < 1e-3,
        "{floor}"
    );
    // The PR's 14.50 ms is 0.76× the floor: not a batch-1 decode step of these weights on this GPU.
    let ratio = PIE_VLLM_DIRECT_MS / floor;
    assert!((ratio - 0.759).abs() < 0.005, "{ratio}");
    // tpsim's step stays where the A100 decode efficiency puts it: ≥ 1 / 0.73 of the floor
    // (templates/a100-sxm4.toml mem_efficiency, ampere_mem_efficiency.rs), 33.82 ms = 1.77× (27.83
    // before ampere62 streamed the int4 linears at vLLM's AWQ Marlin kernel's measured A100 factor,
    // vllm PR 2497's rows: `ampere62::marlin_on_an_a100_streams_at_the_pr_2497_factor`; 27.67 before
    // vllmfusion charged vLLM's KV-cache store, one kernel in each of the 80 layers).
    let tpot = f(&v["throughput"]["tpot_ms"]);
    assert!((tpot - 33.82).abs() < 0.05, "{tpot}");
    assert!(tpot / floor >= 1.0 / 0.73, "{tpot} vs {floor}");
}
