//! Issue #17 / #5 coverage: public start-up logs of architectures the coverage table listed as
//! unverified, replayed from the rows of `tests/data/engine-memory.tsv` they were copied to (lines
//! 40-44; the sources are in each row's `source` column and tests/data/README.md). The helpers are
//! those of `engine_memory_rows` (same tolerances: SGLang tokens within 0.3 % and the logged inputs'
//! rounding band; vLLM KV tokens through `check_vllm`; weights within 0.3 % or their measured miss).

use crate::common::preset_spec;
use crate::engine_memory_rows::{
    GIB, VllmGeometry, check_sglang, check_weights, note, num, preset_layer_bytes, preset_weights_gib,
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
    let m = preset_spec("qwen3-14b");
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
/// (QwQ-32B on 4× L4, line 2: 15.26 vs 15.54 GiB, +0.28). mem49: 0.0195 GiB of it is SGLang's RoPE
/// cache, float32 on CUDA (`tpsim_model::rope_cache`: 40,960 positions × 128 × 4 B = 20 MiB), which
/// tpsim now counts with the weights; 0.18 GiB remain. Measured here: the miss asserted below
/// (± 0.01 GiB), recorded in book/src/coverage.md.
#[test]
fn sglang_2026_06_qwen3_14b_weights_rtx4090_tp4() {
    let r = row(40, "Qwen/Qwen3-14B");
    let logged = num(&r, "weight_mem_gb");
    let ours = preset_weights_gib("qwen3-14b", 4, None);
    let rope = (40_960 * 128 * 4) as f64 / GIB;
    println!("qwen3-14b tp4: tpsim {ours:.4} + RoPE {rope:.4} GiB vs SGLang mem usage {logged} GB");
    assert!((ours - 6.878).abs() < 0.001, "{ours}");
    assert!(
        ((logged - ours - rope) - 0.18).abs() < 0.01,
        "{}",
        logged - ours - rope
    );
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
    let ours = preset_spec("qwen3-30b-a3b-fp8").weight_bytes_per_rank(4).0 as f64 / GIB;
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

// Issue #17 (slogs, qwenhyb): SGLang's state pool for hybrid Gated DeltaNet models, checked against a
// public start-up log of the dense Qwen3.5-9B (`Qwen3_5ForConditionalGeneration`), lowered from the
// bundled preset `qwen3.5-9b` (its config.json is the checkpoint's `text_config`, README there).

/// The row of the Qwen3.5-9B log (engine-memory.tsv); every test below reads it through this.
const QWEN35_9B_LINE: usize = 45;

/// Qwen3.5-9B as tpsim lowers it (preset `qwen3.5-9b`: linear_num_key_heads 16,
/// linear_num_value_heads 32, linear_key_head_dim = linear_value_head_dim = 128,
/// linear_conv_kernel_dim 4, mamba_ssm_dtype float32), its Gated DeltaNet shape and linear-layer
/// count: 32 layers with a full-attention layer every 4th → 8 full-attention and 24 linear layers.
fn qwen35_9b_gdn() -> (tpsim_model::llm::GatedDeltaNet, u64) {
    let m = preset_spec("qwen3.5-9b");
    assert_eq!(m.arch, tpsim_model::llm::Architecture::Qwen35);
    assert_eq!((m.num_layers, m.kv_layers(), m.linear_layers()), (32, 8, 24));
    let g = m.linear_attention.expect("a hybrid");
    assert_eq!(
        (
            g.num_k_heads,
            g.num_v_heads,
            g.head_k_dim,
            g.head_v_dim,
            g.conv_kernel,
            g.ssm_state_bytes
        ),
        (16, 32, 128, 128, 4, 4)
    );
    // The whole model's per-request state is the layers' sum (the pool's `per_req`).
    assert_eq!(m.linear_state_bytes_per_req(2), g.state_bytes(2) * 24);
    (g, u64::from(m.linear_layers()))
}

/// Line 45, weights (qwenhyb): tpsim's Qwen3.5-9B per rank at tp 2 — the language model 8.339 GiB plus
/// the Qwen3-VL vision tower 0.429 GiB (SGLang shards its linears; `llm::tests_qwenhyb` has the
/// arithmetic) = 8.768 GiB — against SGLang's "Load weight end … mem usage=8.85 GB". As for line 40
/// (+0.20 GiB) the engine's figure is the drop of free memory across loading and sits above the
/// weights: here by 0.08 GiB (± 0.01: the log's two decimals), recorded in book/src/coverage.md.
/// Without the tower tpsim would be 0.51 GiB (5.8 %) short; with it replicated, 0.34 GiB over.
/// mem49: SGLang's M-RoPE cache is most of it — float32 on CUDA, `max_position_embeddings` rows (no
/// 4× as in vLLM), the 64-dim rotary width (256 × 0.25): 262,144 × 64 × 4 B = 64 MiB = 0.0625 GiB
/// (`tpsim_model::rope_cache`); 0.0175 GiB remain.
#[test]
fn sglang_2026_04_qwen3_5_9b_weights_rtx4090_tp2() {
    let r = row(QWEN35_9B_LINE, "Qwen/Qwen3.5-9B");
    let logged = num(&r, "weight_mem_gb");
    let ours = preset_weights_gib("qwen3.5-9b", 2, None);
    let rope = (262_144 * 64 * 4) as f64 / GIB;
    println!("qwen3.5-9b tp2: tpsim {ours:.4} + RoPE {rope:.4} GiB vs SGLang mem usage {logged} GB");
    assert!((ours - 9_414_705_776.0 / GIB).abs() < 1e-9, "{ours}");
    assert!(
        ((logged - ours - rope) - 0.0175).abs() < 0.01,
        "{}",
        logged - ours - rope
    );
}

/// Line 45, the pool sizes: SGLang 2026-04 (dev11582+g4df60434d), Qwen3.5-9B bf16 on 2× RTX 4090,
/// tp 2, fraction 0.8. Per request and rank, each linear layer holds an SSM state of 32 / 2 × 128 ×
/// 128 × 4 B = 1,048,576 B and a conv state of (2 × 2048 + 4096) / 2 × 3 × 2 B = 24,576 B: 24 layers →
/// `per_req` = 25,755,648 B. The pool allocates max_mamba_cache_size + 1 entries (slot 0 is padding,
/// as the KV pool's + page): 187 × 24 MiB = 4.383 GiB ("ssm_state size: 4.38GB") and 187 × 589,824 B
/// = 0.103 GiB ("conv_state size: 0.10GB"). KV cell: 8 full layers × 4 / 2 KV heads × 256 × 2 × 2 B
/// = 16,384 B (K size 327,311 × 8,192 B = 2.497 GiB, "2.50 GB").
///
/// The split: SGLang gives the state pool rest × 0.9 / 1.9 (`mamba_full_memory_ratio`), in whole
/// slots, and the KV pool what the slots leave (`handle_max_mamba_cache`, tpsim_model::state_pool).
/// The logged pair (186 slots, 327,310 tokens) fixes the engine's rest: 327,310 × 16,384 B + 186 ×
/// per_req = 9.45590 GiB (± one token). From that rest tpsim's split gives back 186 slots, 62 running
/// requests (the log's max_running_requests=62 = 186 / 3) and the 327,310 tokens: the ratio, the
/// per-request state and the order of the two pools are the engine's.
#[test]
fn sglang_2026_04_qwen3_5_9b_state_pool_split_rtx4090_tp2() {
    use tpsim_model::state_pool::sglang_state_pool;
    let r = row(QWEN35_9B_LINE, "Qwen/Qwen3.5-9B");
    let (g, linear_layers) = qwen35_9b_gdn();
    assert_eq!(g.ssm_state_bytes_per_rank(2), 1_048_576);
    assert_eq!(g.conv_state_bytes(2), 24_576);
    let per_req = g.state_bytes(2) * linear_layers;
    assert_eq!(per_req, 25_755_648);
    // The printed sizes of the 187 allocated entries, to the log's two decimals.
    let entries = 186 + 1;
    let ssm = (entries * g.ssm_state_bytes_per_rank(2) * linear_layers) as f64 / GIB;
    let conv = (entries * g.conv_state_bytes(2) * linear_layers) as f64 / GIB;
    assert!((ssm - 4.38).abs() < 0.005, "ssm {ssm}");
    assert!((conv - 0.10).abs() < 0.005, "conv {conv}");
    // The preset's KV cell: 8 full layers × 4 / 2 KV heads × 256 × 2 (K, V) × 2 B.
    let cell = preset_spec("qwen3.5-9b").kv_cell_bytes(2);
    assert_eq!(cell, 8 * (4 / 2) * 256 * 2 * 2);
    assert_eq!(cell, 16_384);
    let logged = num(&r, "kv_tokens") as u64;
    let k = ((logged + 1) * cell / 2) as f64 / GIB;
    assert!((k - num(&r, "k_size_gb")).abs() < 0.005, "K size {k}");
    // The engine's rest, from the logged pair (the KV count is a floor: + half a token).
    let rest = ((logged as f64 + 0.5) * cell as f64 + (186 * per_req) as f64) / GIB;
    assert!((rest - 9.45590).abs() < 1e-5, "{rest}");
    let pool = sglang_state_pool(rest, per_req, None, None);
    assert_eq!(pool.slots, 186);
    assert_eq!(pool.max_running_requests, 62);
    let tokens = (pool.rest_after_gib * GIB) as u64 / cell;
    assert_eq!(tokens, logged);
}

/// Line 45, predicted from the logged free memory as `tpsim memory` does: rest = 14.08 − 22.93 ×
/// 0.2 = 9.494 GiB (± 0.006 from the two-decimal inputs) → 4.4971 GiB for states → 187 slots
/// (logged 186), 62 running requests (logged 62), and 328,234 KV tokens: +924 (+0.28 %) over the
/// logged 327,310, inside the issue's 0.3 % but outside the inputs' rounding band (± 0.006 GiB =
/// ± 393 tokens). The engine's rest (previous test) is 0.038 GiB below the logged free memory's: its
/// profile read less free memory than "Load weight end" printed, or reserved more. Not found in
/// SGLang's `init_torch_distributed` / `profile_max_num_token` (total = the free memory after
/// distributed init, which the log's 22.93 is); a free-memory reading before the 0.19 GB of
/// distributed init (23.12) would give rest 9.456 — the logged figure — but the engine code does not
/// read it there. Recorded in book/src/coverage.md; tpsim keeps the engine's formula.
#[test]
fn sglang_2026_04_qwen3_5_9b_predicted_from_free_memory_rtx4090_tp2() {
    use tpsim_model::state_pool::sglang_state_pool;
    let r = row(QWEN35_9B_LINE, "Qwen/Qwen3.5-9B");
    let (g, linear_layers) = qwen35_9b_gdn();
    let per_req = g.state_bytes(2) * linear_layers;
    let total = num(&r, "avail_before_load_gb");
    let avail = num(&r, "avail_after_load_gb");
    let f = num(&r, "mem_frac");
    let rest = avail - total * (1.0 - f);
    assert!((rest - 9.494).abs() < 1e-9);
    let pool = sglang_state_pool(rest, per_req, None, None);
    assert_eq!(pool.slots, 187);
    assert_eq!(pool.max_running_requests, 62);
    // The KV profile over what the state pool leaves, with the spring-2026 rules.
    let p = sglang_kv_plan(&SglangKvInput {
        total_gib: total,
        available_gib: avail - (rest - pool.rest_after_gib),
        mem_fraction_static: f,
        cell_size: preset_spec("qwen3.5-9b").kv_cell_bytes(2),
        page_size: 1,
        max_total_tokens: None,
        era: SglangEra::Spring2026,
        context_len: 262_144,
        max_running_requests: None,
        spec: None,
    });
    let logged = num(&r, "kv_tokens") as u64;
    println!("qwen3.5-9b tp2: predicted {} vs logged {logged}", p.tokens);
    assert_eq!(p.tokens, 328_234);
    assert!(relative(p.tokens as f64, logged as f64) <= 0.003);
    // The miss in GiB of rest, recorded in coverage.md: 0.038 ± 0.006.
    let miss = (p.tokens - logged) as f64 * 16_384.0 / GIB;
    assert!((miss - 0.014).abs() < 0.001, "{miss}");
}

/// GLM-4.6/4.7 (`Glm4MoeForCausalLM`) as its config.json gives it: a public copy of the GLM-4.6 file
/// (find_string id 66506276105, a converter's test fixture `FULL_CFG`); GLM-4.7 has the same shape
/// (92 layers, hidden 5120, 96 heads, 8 KV heads × 128: find_string id 60918936965, a model table
/// listing zai-org/GLM-4.7 beside GLM-4.5). Only the attention geometry matters to the KV cell.
const GLM_4_7_CONFIG: &str = r#"{
  "architectures": ["Glm4MoeForCausalLM"], "model_type": "glm4_moe",
  "attention_bias": true, "head_dim": 128, "hidden_act": "silu", "hidden_size": 5120,
  "partial_rotary_factor": 0.5, "intermediate_size": 12288, "max_position_embeddings": 202752,
  "moe_intermediate_size": 1536, "norm_topk_prob": true, "num_attention_heads": 96, "n_group": 1,
  "topk_group": 1, "n_routed_experts": 160, "n_shared_experts": 1, "routed_scaling_factor": 2.5,
  "num_experts_per_tok": 8, "first_k_dense_replace": 3, "num_hidden_layers": 92,
  "num_key_value_heads": 8, "rms_norm_eps": 1e-5, "rope_theta": 1000000,
  "num_nextn_predict_layers": 1, "tie_word_embeddings": false, "use_qk_norm": true,
  "vocab_size": 151552, "torch_dtype": "bfloat16"
}"#;

/// Line 46: vLLM 0.15.0rc1, GLM-4.7-FP8 with pipeline_parallel_size 8, max_model_len 202,752,
/// refused at KV init. The refusal's "needed" figure is every one of the 92 layers at the full
/// length (0.15 checked one stage's memory against all stages' layers — the issue's bug), so it
/// pins tpsim's GLM-4.7 cell: 92 × 8 KV heads × 128 × 2 (K, V) × 2 B (KV dtype auto = bf16) =
/// 376,832 B per token at tp 1 (the MTP layer is not a target layer). 202,752 × 376,832 B =
/// 71.156 GiB ("71.16"). The estimate: 28.57 GiB // (16 × 376,832 B) = 5,087 blocks → 81,392 tokens
/// = the logged "estimated maximum model length is 81392" (the printed 28.57 leaves 5,087.1 to
/// 5,088.9 blocks, so 81,408 was possible too: the log says the engine's own figure was below
/// 28.5723 GiB). tpsim's refusal is vLLM's text (the newer "model's" spelling; 0.15.0rc1 printed
/// "models's"); the check is of the cell, the needed-memory arithmetic and the estimate, not of PP.
#[test]
fn vllm_0_15_glm_4_7_refusal_pp8() {
    use tpsim_model::llm::{ModelSpec, Quantization};
    let r = row(46, "zai-org/GLM-4.7-FP8");
    let m = ModelSpec::from_config_json(GLM_4_7_CONFIG, Quantization::bf16()).unwrap();
    assert_eq!(m.num_layers, 92);
    let cell = m.kv_cell_bytes(1);
    assert_eq!(cell, 376_832);
    let len = note(&r, "max_model_len").unwrap() as u64;
    let needed = (len * cell) as f64 / GIB;
    assert!(
        (needed - note(&r, "needed_kv").unwrap()).abs() < 0.005,
        "{needed}"
    );
    let available = note(&r, "available_kv").unwrap();
    // The plan's inputs reproduce the logged available KV memory: requested − weights = 28.57.
    let p = plan_from_available(available, cell, len);
    assert_eq!(p.blocks, 5_087);
    let err = p.error.expect("refused");
    println!("{err}");
    assert!(
        err.contains("max seq len (202752), (71.16 GiB KV cache is needed, which is larger than the available KV cache memory (28.57 GiB)."),
        "{err}"
    );
    let estimate = note(&r, "estimated_len").unwrap() as u64;
    assert!(
        err.ends_with(&format!("the estimated maximum model length is {estimate}.")),
        "{err}"
    );
}

/// The scenario of line 47 (Kimi-K2-Thinking on 8× H200 under vLLM, tp 8, `dcp_size` as given), with
/// the observed parts set so that vLLM's KV budget is the logged "Available KV cache memory": the
/// quoted lines give that figure only, so the weights stand for everything the budget lost (no
/// activation, no non-torch growth) — a replay of the block arithmetic, not a prediction of the
/// budget. The geometry is the bundled `deepseek-v3` preset's: Kimi-K2 has the same 61 MLA layers of
/// kv_lora_rank 512 + qk_rope_head_dim 64 (config of moonshotai/Kimi-K2: find_string id 10065491756),
/// and the MLA cell does not depend on the head count or the experts' format.
fn kimi_k2_thinking_plan(dcp: u32, available_kv_gib: f64) -> tpsim::decode::MemoryPlan {
    let text = |weights: f64| {
        format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n\
             [engine]\nname = \"vllm\"\ntp = 8\ndcp_size = {dcp}\n\
             [engine.observed]\nweights_gib = {weights}\npeak_activation_gib = 0.0\nnon_torch_gib = 0.0\n"
        )
    };
    let load =
        |t: &str| tpsim::scenario::load_str(t, std::path::Path::new("engine-memory.tsv line 47")).unwrap();
    // vLLM's requested memory is the device total × 0.9 (the default utilization, not set in the
    // launch): the weights that leave exactly the logged budget.
    let total = tpsim::plan_memory(&load(&text(10.0))).total_gib;
    tpsim::plan_memory(&load(&text(total * 0.9 - available_kv_gib)))
}

/// Line 47: vLLM (nightly of 2025-11-06), Kimi-K2-Thinking (`DeepseekV3ForCausalLM`, MLA) on 8×
/// H200, tp 8. MLA keeps one latent KV head, replicated on every rank: 61 × (512 + 64) × 2 B =
/// 70,272 B per token at any tp. "Available KV cache memory: 46.80 GiB" → 46.80 × 2^30 //
/// (16 × 70,272) = 44,693 blocks → 715,088 tokens; logged 715,072 (+16, +0.002 %), inside the
/// printed figure's band (± 0.005 GiB = ± 4.8 blocks = ± 76 tokens).
#[test]
fn vllm_2025_11_kimi_k2_thinking_h200_tp8() {
    let r = row(47, "moonshotai/Kimi-K2-Thinking");
    let available = num(&r, "k_size_gb");
    let p = kimi_k2_thinking_plan(1, available);
    assert_eq!(p.cell_size, 70_272);
    let logged = num(&r, "kv_tokens") as u64;
    println!(
        "kimi-k2-thinking tp8: predicted {} vs logged {logged}",
        p.kv_tokens
    );
    assert_eq!(p.kv_tokens, 715_088);
    let band = 0.005 * GIB / 70_272.0;
    assert!((p.kv_tokens as f64 - logged as f64).abs() <= band, "{band}");
}

/// Line 47, with `--decode-context-parallel-size 8`: the same 46.80 GiB, the same blocks (the latent
/// cache keeps its page size; each rank holds every 8th token), and vLLM reports 8× the tokens
/// ("Multiplying the GPU KV cache size by the dcp_world_size 8."): 8 × 715,088 = 5,720,704 against
/// the logged 5,721,088 (−384 = 3 blocks × 16 × 8, −0.007 %; the printed 46.80 allows ± 4.8 blocks,
/// and the two runs' budgets differed by 4 blocks although both printed 46.80).
#[test]
fn vllm_2025_11_kimi_k2_thinking_dcp8_h200_tp8() {
    let r = row(47, "moonshotai/Kimi-K2-Thinking");
    let p = kimi_k2_thinking_plan(8, num(&r, "k_size_gb"));
    assert_eq!(p.cell_size, 70_272);
    let logged = note(&r, "dcp8_tokens").unwrap() as u64;
    assert_eq!(p.kv_tokens, 5_720_704);
    assert!(relative(p.kv_tokens as f64, logged as f64) <= 0.003);
    let band = 8.0 * 0.005 * GIB / 70_272.0;
    assert!((p.kv_tokens as f64 - logged as f64).abs() <= band, "{band}");
    assert!(
        p.notes.iter().any(|n| n.contains("dcp_world_size 8")),
        "{:?}",
        p.notes
    );
}

/// The refusal of line 46 through the scenario path: with one KV group (Llama-3.1-8B) `tpsim memory`
/// names vLLM's estimate — the whole blocks that fit × 16 — and with several groups (Gemma-2's
/// sliding-window and full layers, where vLLM's need caps the window layers' use) the need and the
/// estimate of `tpsim_model::vllm_sliding_check` (sglogs2; before, no estimate was given). The
/// 2,000,000-token length is past both models' positions, so the scenario sets
/// `VLLM_ALLOW_LONG_MAX_MODEL_LEN=1` (flags56: without it vLLM refuses the length before the KV check).
#[test]
fn vllm_refusal_names_the_estimate_for_one_kv_group_only() {
    use tpsim::decode::Verdict;
    let refusal = |model: &str| {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"vllm\"\n\
             tp = 1\ngpu_memory_utilization = 0.3\nmax_model_len = 2000000\n\
             [engine.env]\nVLLM_ALLOW_LONG_MAX_MODEL_LEN = \"1\"\n"
        );
        let s = tpsim::scenario::load_str(&text, std::path::Path::new("refusal.toml")).unwrap();
        let p = tpsim::plan_memory(&s);
        match p.verdict {
            Verdict::Oom { message, .. } => (message, p.kv_tokens),
            v => panic!("{model}: {v:?}"),
        }
    };
    let (m, tokens) = refusal("llama-3.1-8b");
    assert!(m.contains("max seq len (2000000)"), "{m}");
    let n: u64 = m
        .rsplit("the estimated maximum model length is ")
        .next()
        .and_then(|t| t.trim_end_matches('.').parse().ok())
        .unwrap_or_else(|| panic!("no estimate: {m}"));
    assert!(n > 0 && n < 2_000_000 && n.is_multiple_of(16), "{n}");
    // One group: the estimate is the pool the plan sized (what vLLM would have allocated).
    assert_eq!(n, tokens);
    let (g, _) = refusal("gemma-2-2b-it");
    assert!(g.contains("max seq len (2000000)"), "{g}");
    // Several groups (issue #17, sglogs2: `tpsim_model::vllm_sliding_check`): vLLM sums each layer
    // type's need. Gemma-2-2B at tp 1 (13 full + 13 sliding layers, window 4,096, 4 KV heads × 256 ×
    // 2 × 2 B = 4,096 B per token per layer, block 16, max_num_batched_tokens 8,192): full 13 ×
    // 2,000,000 × 4,096 = 106,496,000,000 B, sliding 13 × (⌈(4,095 + 8,192) / 16⌉ + 1 = 769) × 16 ×
    // 4,096 = 655,163,392 B; 107,151,163,392 B = 99.79 GiB.
    assert!(g.contains("(99.79 GiB KV cache is needed"), "{g}");
    assert_eq!(
        format!("{:.2}", (106_496_000_000u64 + 655_163_392) as f64 / GIB),
        "99.79"
    );
    // The estimate is the longest request whose need fits the printed 14.99 GiB budget: 289,920
    // tokens need 289,920 × 13 × 4,096 + 655,163,392 = 16,092,823,552 B = 14.987 GiB; one more block
    // (289,936) would need 14.988 GiB — both inside the printed figure's band, so the line pins the
    // rule, not the last block.
    assert!(g.contains("the estimated maximum model length is 289920."), "{g}");
    let need = |n: u64| (n * 13 * 4_096 + 655_163_392) as f64 / GIB;
    assert!(
        need(289_920) <= 14.995 && need(289_920) > 14.985,
        "{}",
        need(289_920)
    );
}

/// Line 48: vLLM 0.29.1rc1, MiniMax-M2.7 (AWQ) on two DGX Sparks, tp 2, max_model_len 196,608,
/// refused at KV init. tpsim's MiniMax-M2 cell (preset `minimax-m2.5`, the same architecture: 62
/// layers × 8 KV heads / 2 × 128 × 2 × 2 B) = 126,976 B per token per rank; 196,608 × 126,976 B =
/// 23.25 GiB exactly, the logged "23.25 GiB KV cache is needed". The estimate from "22.5 GiB":
/// 22.50 × 2^30 // (16 × 126,976) = 11,891 blocks → 190,256 tokens; logged 190,272 (one block more,
/// −16 tokens), inside the two-decimal budget's band (± 0.005 GiB = ± 2.6 blocks = ± 42 tokens).
/// The reporter's 0.85 run (28.74 GiB → 240,816 tokens) is recorded in the row, not replayed.
#[test]
fn vllm_0_29_minimax_m2_7_refusal_dgx_spark_tp2() {
    let r = row(48, "MiniMax-M2.7 AWQ (recipe minimax-m2.7-awq)");
    let cell = preset_spec("minimax-m2.5").kv_cell_bytes(2);
    assert_eq!(cell, 126_976);
    let len = note(&r, "max_model_len").unwrap() as u64;
    let needed = (len * cell) as f64 / GIB;
    assert!((needed - note(&r, "needed_kv").unwrap()).abs() < 1e-9, "{needed}");
    let available = note(&r, "available_kv").unwrap();
    let p = plan_from_available(available, cell, len);
    let err = p.error.expect("refused");
    assert!(
        err.contains("max seq len (196608), (23.25 GiB KV cache is needed"),
        "{err}"
    );
    assert_eq!(p.tokens, 190_256);
    assert!(
        err.ends_with("the estimated maximum model length is 190256."),
        "{err}"
    );
    let logged = note(&r, "estimated_len").unwrap();
    let band = 0.005 * GIB / cell as f64;
    assert!((p.tokens as f64 - logged).abs() <= band, "{band}");
}

/// vLLM's KV plan when exactly `available` GiB are left for the KV cache (a refusal log quotes that
/// figure, not its parts): 16-token blocks of `cell` bytes, `max_model_len` = `len`.
fn plan_from_available(available: f64, cell: u64, len: u64) -> tpsim_model::memory::VllmKvPlan {
    use tpsim_model::memory::{VllmKvInput, vllm_kv_plan};
    vllm_kv_plan(&VllmKvInput {
        total_gib: 100.0,
        free_at_start_gib: 100.0,
        gpu_memory_utilization: 1.0,
        weights_gib: 100.0 - available,
        peak_activation_gib: 0.0,
        non_torch_gib: 0.0,
        cell_size: cell,
        block_size: 16,
        max_model_len: Some(len),
    })
}

/// mem49 (issue #17 point 5): SGLang's "Load weight end … mem usage" as tpsim now predicts it, per
/// rank: the checkpoint's bytes, the RoPE caches (`tpsim_model::rope_cache`: float32 on CUDA from
/// 0.4.3) and the segments torch keeps after `empty_cache` (`ModelSpec::sglang_load_segment_overhead`;
/// the hand arithmetic of line 40 is `tpsim_model::rope_cache`'s `qwen3_14b_sglang_load_segments_tp4`).
/// Returns (weights, RoPE, segments) in GiB.
fn sglang_load_parts(name: &str, tp: u32, sm_version: u32, sm_count: u32) -> (f64, f64, f64) {
    use tpsim_model::rope_cache::{RopeRule, rope_cache_tensors};
    let m = preset_spec(name);
    let ropes = rope_cache_tensors(&m, RopeRule::sglang(None, true), 2);
    let gpu = tpsim_model::llm::LoadGpu {
        sm_version,
        sm_count,
        cuda: true,
        int4: tpsim_model::llm::vllm_w4a16::Int4Rules::default(),
    };
    let seg = m.sglang_load_segment_overhead(tp, &ropes, 4, 2, &gpu);
    (
        m.weight_bytes_per_rank(tp).0 as f64 / GIB,
        ropes.iter().sum::<u64>() as f64 / GIB,
        seg as f64 / GIB,
    )
}

/// mem49: the SGLang rows whose "mem usage" tpsim's weights fell short of ("the loader's excess"),
/// with the RoPE cache and the kept segments: (line, model, tp, SM version, SM count, the
/// residual asserted ± 0.005 GiB — the log's two decimals). Line 2 (QwQ-32B, 0.4.3.post4, 4× L4 — SM
/// 8.9, 58 SMs), line 40 (Qwen3-14B, 4× RTX 4090 — SM 8.9, 128 SMs), line 45 (Qwen3.5-9B with the
/// Qwen3-VL tower, 2× RTX 4090), line 58 (Qwen3-30B-A3B bf16, one RTX PRO 6000 — SM 12.0, 188 SMs).
/// Found: lines 40, 45 and 58 within the log's rounding (7.0762 vs 7.08, 8.8516 vs 8.85, 56.8926 vs
/// 56.89 GiB; the residuals were +0.20, +0.08 and +0.02 GiB with the checkpoint alone). Line 2 keeps
/// +0.042 GiB (0.27 %) unexplained: a recorded miss (book/src/coverage.md), asserted ± 0.005.
#[test]
fn sglang_mem_usage_with_rope_and_segments() {
    for (line, model, name, tp, sm, sms) in [
        (2, "Qwen/QwQ-32B", "qwq-32b", 4, 89, 58),
        (40, "Qwen/Qwen3-14B", "qwen3-14b", 4, 89, 128),
        (45, "Qwen/Qwen3.5-9B", "qwen3.5-9b", 2, 89, 128),
        (58, "Qwen/Qwen3-30B-A3B", "qwen3-30b-a3b-fp8", 1, 120, 188),
    ] {
        let r = row(line, model);
        let logged = num(&r, "weight_mem_gb");
        let (w, rope, seg) = sglang_load_parts(name, tp, sm, sms);
        println!(
            "line {line} {name} tp {tp}: weights {w:.4} + RoPE {rope:.4} + segments {seg:.4} = {:.4} GiB vs \
             mem usage {logged} (residual {:+.4})",
            w + rope + seg,
            logged - (w + rope + seg)
        );
        let expected = if line == 2 { 0.042 } else { 0.0 };
        let residual = logged - (w + rope + seg);
        assert!((residual - expected).abs() < 0.005, "line {line}: {residual:+.4}");
    }
}
