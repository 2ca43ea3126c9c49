//! Issue #17 / #5 coverage: public start-up logs of architectures the coverage table listed as
//! unverified, replayed from the rows of `tests/data/engine-memory.tsv` they were copied to (lines
//! 40-44; the sources are in each row's `source` column and tests/data/README.md). The helpers are
//! those of `engine_memory_rows` (same tolerances: SGLang tokens within 0.3 % and the logged inputs'
//! rounding band; vLLM KV tokens through `check_vllm`; weights within 0.3 % or their measured miss).

use crate::engine_memory_rows::{
    GIB, VllmGeometry, check_sglang, check_weights, num, preset, preset_layer_bytes, preset_weights_gib,
    relative, row, vllm_row,
};
use tpsim_model::memory::{SglangEra, SglangKvInput, sglang_kv_plan};

/// Line 40: SGLang main @ ebaf86d (2026-06-14), Qwen3-14B bf16 on 4× RTX 4090, tp 4,
/// `--mem-fraction-static 0.80`. The log quotes "avail mem=16.00 GB, mem usage=7.08 GB" after the
/// weights, so the free memory before them (SGLang's `total`) is the sum, 23.08 (± 0.01).
/// Cell: Qwen3-14B (preset `qwen3-14b`) 40 layers × 8 KV heads / 4 × 128 × 2 (K, V) × 2 B = 40,960 B.
/// rest = 16.00 − 23.08 × 0.20 = 11.384 GiB → 298,424 tokens; logged 298,447 (−23, −0.008 %). Band:
/// ± (0.005 + 0.2 × 0.01) GiB = ± 184 tokens. The same line logs max_running_requests=3730 =
/// int(298,447 / 40,960 × 512) (context_len 40,960), which the plan reproduces.
#[test]
fn sglang_2026_06_qwen3_14b_rtx4090_tp4() {
    let r = row(40, "Qwen/Qwen3-14B");
    let m = preset("qwen3-14b");
    let cell = m.kv_cell_bytes(4);
    assert_eq!(cell, 40_960);
    let total = num(&r, "avail_before_load_gb");
    assert!((total - (num(&r, "avail_after_load_gb") + num(&r, "weight_mem_gb"))).abs() < 1e-9);
    // The version names no release (a source checkout of 2026-06): spring-2026 rules; without
    // speculation they agree with late 2025 except for the integer truncation of rest × 2^30.
    let p = sglang_kv_plan(&SglangKvInput {
        total_gib: total,
        available_gib: num(&r, "avail_after_load_gb"),
        mem_fraction_static: num(&r, "mem_frac"),
        cell_size: cell,
        page_size: 1,
        max_total_tokens: None,
        era: SglangEra::Spring2026,
        context_len: 40_960,
        max_running_requests: None,
        spec: None,
    });
    let band = (0.005 + (1.0 - num(&r, "mem_frac")) * 0.01) * GIB / cell as f64;
    let (predicted, logged) = check_sglang("qwen3-14b 4x4090", &p, &r, band);
    assert_eq!(predicted, 298_424);
    assert_eq!(logged, 298_447);
    assert_eq!(p.max_running_requests, 3_730);
}

/// Line 40, weights: tpsim's Qwen3-14B per rank at tp 4 against SGLang's "mem usage=7.08 GB" of
/// "Load weight end". SGLang's figure is the drop of free memory across loading, so it also holds
/// what the loader leaves allocated besides the weights; the bundled rows show the same excess
/// (QwQ-32B on 4× L4, line 2: 15.26 vs 15.54 GiB, +0.28). Measured here: the miss asserted below
/// (± 0.01 GiB), recorded in book/src/coverage.md; tpsim's figure is the weights alone.
#[test]
fn sglang_2026_06_qwen3_14b_weights_rtx4090_tp4() {
    let r = row(40, "Qwen/Qwen3-14B");
    let logged = num(&r, "weight_mem_gb");
    let ours = preset_weights_gib("qwen3-14b", 4, None);
    println!("qwen3-14b tp4: tpsim {ours:.4} GiB vs SGLang mem usage {logged} GB");
    assert!((ours - 6.878).abs() < 0.001, "{ours}");
    assert!(((logged - ours) - 0.20).abs() < 0.01, "{}", logged - ours);
}

/// Line 41: vLLM 0.19.0, Qwen1.5-MoE-A2.7B (Qwen2MoeForCausalLM) bf16 on 1× H100. Cell: preset
/// `qwen1.5-moe-a2.7b`, 24 layers × 16 KV heads (MHA) × 128 × 2 × 2 B = 8,192 B per layer.
/// 75.2305 − 26.67 − 2.47 − 0.25 = 45.8405 GiB → 15,646 blocks = 250,336 tokens; logged 15,644 /
/// 250,304 (+32, +0.013 %), inside the inputs' band (± 0.02 GiB = ± 7 blocks).
#[test]
fn vllm_0_19_qwen1_5_moe_a2_7b_h100_tp1() {
    let c = vllm_row(
        "qwen1.5-moe-a2.7b",
        41,
        "Qwen/Qwen1.5-MoE-A2.7B",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("qwen1.5-moe-a2.7b", 1, None, None),
            layers_per_type: &[24],
        },
    );
    assert_eq!(c.predicted_blocks, 15_646);
    assert!(relative(c.predicted_tokens as f64, c.logged_tokens as f64) <= 0.003);
}

/// Line 41, weights: tpsim's `qwen1.5-moe-a2.7b` (60 experts of 1408 + a gated shared expert of 5632,
/// QKV bias, untied 151,936 vocabulary) at tp 1 against "Model loading took 26.67 GiB", within 0.3 %.
#[test]
fn vllm_0_19_qwen1_5_moe_a2_7b_weights_h100_tp1() {
    let ours = preset_weights_gib("qwen1.5-moe-a2.7b", 1, None);
    check_weights(41, "Qwen/Qwen1.5-MoE-A2.7B", ours, 0.0);
}

/// Line 42: vLLM 0.19.0, gemma-7b (GemmaForCausalLM) bf16 on 1× H100. Cell: preset `gemma-7b`, 28
/// layers × 16 KV heads × 256 × 2 × 2 B = 16,384 B per layer. 75.2305 − 15.91 − 3.63 − 0.25 =
/// 55.4405 GiB → 8,110 blocks = 129,760 tokens = logged (exact).
#[test]
fn vllm_0_19_gemma_7b_h100_tp1() {
    let c = vllm_row(
        "gemma-7b",
        42,
        "google/gemma-7b",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("gemma-7b", 1, None, None),
            layers_per_type: &[28],
        },
    );
    assert_eq!(c.predicted_tokens, c.logged_tokens);
}

/// Line 42, weights: tpsim's `gemma-7b` (tied 256,000 × 3072 embedding) at tp 1 against "weights
/// memory: 15.91GiB", within 0.3 %.
#[test]
fn vllm_0_19_gemma_7b_weights_h100_tp1() {
    let ours = preset_weights_gib("gemma-7b", 1, None);
    check_weights(42, "google/gemma-7b", ours, 0.0);
}

/// Line 43: vLLM 0.8.5, Qwen3-30B-A3B (Qwen3MoeForCausalLM) bf16 on 4× A10, tp 4: "Model loading
/// took 14.2474 GiB" on every rank, against tpsim's weights per rank (the geometry of the bundled
/// `qwen3-30b-a3b-fp8` preset lowered in bf16: 128 experts of 768 split 4 ways, 4 KV heads → 1 per
/// rank, untied 151,936 vocabulary split 4 ways), within 0.3 %. The quoted log has no "Available KV
/// cache memory" line, so its KV figure is not replayed.
#[test]
fn vllm_0_8_5_qwen3_30b_a3b_weights_a10_tp4() {
    let ours = preset("qwen3-30b-a3b-fp8").weight_bytes_per_rank(4).0 as f64 / GIB;
    check_weights(43, "Qwen/Qwen3-30B-A3B", ours, 0.0);
}

/// Line 44: vLLM 0.19.0, Llama-4-Scout-17B-16E-Instruct (Llama4ForConditionalGeneration) bf16 on
/// 4× H100, tp 4. Every fourth layer is global (NoPE), the other 36 use chunked local attention
/// (8192), kept as their own KV groups by the hybrid manager (the log's
/// VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=True): groups of 12 layers, 1 + 3 = 4 groups
/// (`vllm_kv_groups`). Page: 8 KV heads / 4 × 128 × 2 × 2 B = 1,024 B per layer per token.
/// 75.2305 − 53.12 − 3.19 − 2.17 = 16.7505 GiB → 91,480 blocks of 12 × 16 tokens → 91,480 // 4 × 16 =
/// 365,920 tokens; logged 365,968 (−48, −0.013 %), inside the inputs' band (± 0.02 GiB).
/// With max_model_len 8192 equal to the chunk, sizing every layer in full (one group of 48, what vLLM
/// 0.11 does with its hybrid manager off) gives the same 22,870 blocks of 16 tokens: this row does not
/// tell the two layouts apart.
#[test]
fn vllm_0_19_llama_4_scout_h100_tp4() {
    let per_layer = preset_layer_bytes("llama-4-scout", 4, None, None);
    assert_eq!(per_layer, 1_024);
    let c = vllm_row(
        "llama-4-scout tp4",
        44,
        "meta-llama/Llama-4-Scout-17B-16E-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: per_layer,
            layers_per_type: &[12, 36],
        },
    );
    assert_eq!(c.predicted_blocks, 91_480);
    assert_eq!(c.predicted_tokens, 365_920);
}

/// Line 44, weights: tpsim's weights per rank of `llama-4-scout` under vLLM at tp 4, as the scenario
/// path plans them (`tpsim::plan_memory`, the figure `tpsim memory` prints: vLLM's sharding of the
/// text tower with 16 experts + shared expert, the vision tower, RoPE caches), against "weights
/// memory: 53.12GiB", within 0.3 %. (The library's `weight_bytes_per_rank`, SGLang's sharding, gives
/// 50.63 GiB here: the vision tower is not sharded the same way by the two engines.)
#[test]
fn vllm_0_19_llama_4_scout_weights_h100_tp4() {
    use tpsim::decode::MemKind;
    let text = "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"llama-4-scout\"\n\
                [engine]\nname = \"vllm\"\ntp = 4\ngpu_memory_utilization = 0.95\nmax_model_len = 8192\n";
    let s = tpsim::scenario::load_str(text, std::path::Path::new("engine-memory.tsv line 44")).unwrap();
    let p = tpsim::plan_memory(&s);
    let ours = p
        .entries
        .iter()
        .find(|e| e.kind == MemKind::TargetWeights)
        .map(|e| e.bytes as f64 / GIB)
        .unwrap();
    check_weights(44, "meta-llama/Llama-4-Scout-17B-16E-Instruct", ours, 0.0);
}
