//! DeepSeek DSA (V3.2, GLM-5), DeepSeek-V2-Lite (h2, issue #16).

use super::*;

const V32: &str = include_str!("../../../scenarios/models/deepseek-v3.2/config.json");
const GLM5: &str = include_str!("../../../scenarios/models/glm-5/config.json");
const GLM5_FP8: &str = include_str!("../../../scenarios/models/glm-5-fp8/config.json");
const V2_LITE: &str = include_str!("../../../scenarios/models/deepseek-v2-lite/config.json");
const V3: &str = include_str!("../../../scenarios/models/deepseek-v3/config.json");

/// The presets' quant.toml as JSON (this crate has no TOML parser): fp8 128×128 blocks, or bf16.
fn fp8() -> Quantization {
    serde_json::from_str(r#"{"dtype":"fp8","block_size":[128,128],"scale_dtype":"fp32"}"#).expect("fp8 quant")
}

fn load(dir: &str) -> ModelSpec {
    let (c, q) = match dir {
        "deepseek-v3.2" => (V32, fp8()),
        "glm-5" => (GLM5, Quantization::bf16()),
        "glm-5-fp8" => (GLM5_FP8, fp8()),
        "deepseek-v2-lite" => (V2_LITE, Quantization::bf16()),
        _ => (V3, fp8()),
    };
    ModelSpec::from_config_json(c, q).expect("preset parses")
}

#[test]
fn v32_lowers_with_its_indexer() {
    let m = load("deepseek-v3.2");
    assert_eq!(m.arch, Architecture::DeepseekV32);
    assert_eq!(
        m.indexer,
        Some(Indexer {
            n_heads: 64,
            head_dim: 128,
            topk: 2048
        })
    );
    assert!(m.routing_bias, "noaux_tc routing keeps the fp32 correction bias");
    // The indexer is the only difference from DeepSeek-V3, replicated on every rank. Per layer at fp8
    // 128×128 blocks: wq_b 8192 × 1536 = 12,582,912 B + 64 × 12 scales × 4 = 3,072; wk 128 × 7168 =
    // 917,504 + 56 × 4 = 224; weights_proj bf16 64 × 7168 × 2 = 917,504; k_norm fp32 2 × 128 × 4 =
    // 1,024 → 14,422,240 B × 61 layers = 879,756,640 B, the same at every tp.
    for tp in [1, 8] {
        let d = m.weight_bytes_per_rank(tp).0 - load("deepseek-v3").weight_bytes_per_rank(tp).0;
        assert_eq!(d, 879_756_640, "tp {tp}");
    }
    assert_eq!(m.weight_bytes_per_rank(8).0, 86_275_740_032);
}

#[test]
fn nsa_kv_bytes_per_token() {
    // V3.2, 61 layers (16-kv-arithmetic.md §2.2–2.4): fp8 latent 576 budgeted, 512 + 512/128 × 4 + 64 × 2
    // = 656 in the pool; indexer 128 + 128/128 × 4 = 132.
    let m = load("deepseek-v3.2");
    let f = m.nsa_kv(1).expect("dsa");
    assert_eq!(
        (f.latent_budget, f.latent_pool, f.index, f.layers),
        (576, 656, 132, 61)
    );
    assert_eq!(f.budget_cell(NsaBudgetRule::LatentOnly), 576 * 61); // 35,136
    assert_eq!(f.budget_cell(NsaBudgetRule::LatentAndIndexer), 708 * 61); // 43,188
    assert_eq!(f.budget_cell(NsaBudgetRule::Allocated), 788 * 61); // 48,068
    assert_eq!(f.pool_cell(), 48_068);
    // bf16: 1,152 + 132 = 1,284 per layer, budget = allocation.
    let b = m.nsa_kv(2).expect("dsa");
    assert_eq!(b.budget_cell(NsaBudgetRule::LatentAndIndexer), 78_324);
    assert_eq!(b.pool_cell(), 78_324);
    // GLM-5, 78 layers, same latent geometry (kv_lora 512, rope 64, index_head_dim 128): fp8 budget
    // 708 × 78 = 55,224, pool 788 × 78 = 61,464; bf16 1,284 × 78 = 100,152.
    let g = load("glm-5-fp8");
    assert_eq!(g.arch, Architecture::GlmMoeDsa);
    let gf = g.nsa_kv(1).expect("dsa");
    assert_eq!(
        (gf.budget_cell(NsaBudgetRule::LatentAndIndexer), gf.pool_cell()),
        (55_224, 61_464)
    );
    assert_eq!(g.nsa_kv(2).expect("dsa").pool_cell(), 100_152);
    // Pool for N = 64 × k tokens with page 64: (N + 64) × cell exactly (the indexer's (N + 65) // 64
    // pages = N/64 + 1); N = 1000 (not a page multiple): latent 1,064 × 656, indexer (1,065 // 64 = 16)
    // × 64 × 132, per layer.
    assert_eq!(f.sglang_pool_bytes(128, 64), 192 * 48_068);
    assert_eq!(f.sglang_pool_bytes(1000, 64), (1064 * 656 + 16 * 64 * 132) * 61);
    // Non-DSA models have none.
    assert!(load("deepseek-v3").nsa_kv(1).is_none());
}

#[test]
fn sglang_pr_11309_kv_lines() {
    // https://github.com/sgl-project/sglang/pull/11309 (DeepSeek-V3.2-Exp, same geometry as V3.2: 61
    // layers; 8× B200 → fp8_e4m3 KV by default, page 64), tolerance: the log's two decimals.
    // Before the PR: "KV Cache is allocated. #tokens: 1462784, KV size: 54.52 GB" printed the latent
    // buffers only: (1,462,784 + 64) × 61 × 656 = 58,537,325,568 B = 54.517 GiB; "KV size including
    // index is actually 65.49 GB": + indexer → 70,316,177,664 B = 65.487 GiB.
    let f = load("deepseek-v3.2").nsa_kv(1).expect("dsa");
    assert!((f.sglang_logged_kv_gib(1_462_784, 64, false) - 54.52).abs() < 0.005);
    assert!((f.sglang_logged_kv_gib(1_462_784, 64, true) - 65.49).abs() < 0.005);
    // With the PR: "#tokens: 975424, KV size: 43.67 GB" (indexer included): 975,488 × 48,068 =
    // 46,889,757,184 B = 43.669 GiB.
    assert!((f.sglang_logged_kv_gib(975_424, 64, true) - 43.67).abs() < 0.005);
    // Before the PR the budget was the latent only (35,136 B/token): the profile's 1,462,784 tokens
    // are 47.87 GiB of `rest`, the pool 65.49 GiB: 17.62 GiB beyond the budget came out of the
    // (1 − 0.8) reserve. The token counts themselves need the run's free memory and fraction, which
    // the PR does not print (and DP attention is not modelled): not checked here.
    let over = f.sglang_pool_bytes(1_462_784, 64) as f64 - 1_462_784.0 * 35_136.0;
    assert!((over / (1u64 << 30) as f64 - 17.62).abs() < 0.005);
}

#[test]
fn dsa_config_errors_name_the_field() {
    let no_topk = V32.replace("\"index_topk\": 2048,", "");
    match ModelSpec::from_config_json(&no_topk, fp8()) {
        Err(ModelError::MissingField { field, .. }) => assert_eq!(field, "index_topk"),
        other => panic!("{other:?}"),
    }
    let bad = V32.replace("\"index_head_dim\": 128", "\"index_head_dim\": 64");
    match ModelSpec::from_config_json(&bad, fp8()) {
        Err(ModelError::InvalidField { field, .. }) => assert_eq!(field, "index_head_dim"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn glm5_forward_follows_its_layer_types() {
    // GLM-5: 3 dense layers then 75 MoE layers (first_k_dense_replace 3), every layer MLA + indexer.
    let mut m = load("glm-5-fp8");
    m.quantization.kv_cache_dtype = KvCacheDtype::Fp8E4m3;
    let fp = m.forward_pass(8, 4);
    assert_eq!(fp.layers.iter().filter(|l| l.is_moe).count(), 75);
    assert!(fp.layers[..3].iter().all(|l| !l.is_moe));
    for l in &fp.layers {
        // The 2048 selected tokens' 656-B fp8 latents, every token's 132-B indexer key, and the
        // indexer's 2 × 32 heads × 128 = 8,192 FLOPs per query per context token.
        assert_eq!((l.kv_bytes_per_token, l.kv_window), (656, Some(2048)));
        assert_eq!(l.index_bytes_per_token, 132);
        assert!((l.index_flops_per_ctx_token - 8_192.0).abs() < 1e-9);
    }
    // bf16 KV: 1,152-B latents.
    m.quantization.kv_cache_dtype = KvCacheDtype::Bf16;
    assert_eq!(m.forward_pass(8, 1).layers[0].kv_bytes_per_token, 1_152);
    // DeepSeek-V3 (no indexer) keeps whole-context reads.
    let v3 = load("deepseek-v3").forward_pass(8, 1);
    assert_eq!(
        (v3.layers[0].kv_window, v3.layers[0].index_bytes_per_token),
        (None, 0)
    );
}

#[test]
fn deepseek_v2_lite_lowering() {
    let m = load("deepseek-v2-lite");
    assert_eq!(m.arch, Architecture::DeepseekV2);
    assert!(matches!(
        m.attention,
        Attention::Mla {
            q_lora_rank: None,
            ..
        }
    ));
    assert!(!m.routing_bias, "greedy routing: no e_score_correction_bias");
    assert!(m.indexer.is_none());
    assert_eq!(m.layers.iter().filter(|l| matches!(l, Ffn::Moe(_))).count(), 26);
    // KV cell: 27 layers × (512 + 64) × 2 B = 31,104, not divided by tp.
    assert_eq!((m.kv_cell_bytes(1), m.kv_cell_bytes(2)), (31_104, 31_104));
    // vllm-project/vllm#15871 (vLLM 0.8.3.dev, max_model_len 32768): "(0.95 GiB KV cache is needed,
    // which is larger than the available KV cache memory (0.93 GiB)": 31,104 × 32,768 = 0.949 GiB.
    let p = crate::memory::vllm_kv_plan(&crate::memory::VllmKvInput {
        total_gib: 22.0,
        free_at_start_gib: 22.0,
        gpu_memory_utilization: 1.0,
        weights_gib: 20.0,
        peak_activation_gib: 1.07,
        non_torch_gib: 0.0,
        cell_size: m.kv_cell_bytes(2),
        block_size: 16,
        max_model_len: Some(32_768),
    });
    let err = p.error.expect("refused");
    assert!(
        err.contains("max seq len (32768), (0.95 GiB KV cache is needed"),
        "{err}"
    );
    assert!(err.contains("(0.93 GiB)"), "{err}");
    // vllm-project/vllm#20665 (4× L4, PP 2 × TP 2): vLLM gives the first stage 14 of the 27 layers
    // (`get_pp_indices`: the remainder goes to partitions[-2]) → 14 × 1,152 = 16,128 B per token;
    // "Available KV cache memory: 12.13 GiB" → 12.13 × 2^30 // (16 × 16,128) = 50,473 blocks; the
    // 13-layer stage (11.33 GiB, 14,976 B) has 50,770; the minimum, 50,473 × 16 = 807,568 tokens vs the
    // logged 807,792 (−0.03 %; the two-decimal GiB allows ±21 blocks = ±333 tokens). tpsim has no PP:
    // the per-stage arithmetic is checked with the stage's layer count.
    let per_layer = m.kv_cell_bytes(2) / 27;
    let blocks =
        |gib: f64, layers: u64| (gib * (1u64 << 30) as f64 / (16 * per_layer * layers) as f64).floor() as u64;
    let tokens = blocks(12.13, 14).min(blocks(11.33, 13)) * 16;
    assert_eq!(tokens, 807_568);
    assert!((tokens as f64 - 807_792.0).abs() <= 333.0);
}

#[test]
fn kimi_vl_reuses_the_kimi_k25_lowering() {
    // No published Kimi-VL-A3B config.json was reachable here (no preset). The wrapper lowers like
    // Kimi-K2.5's: MLA MoE text tower from `text_config`, MoonViT from `vision_config`. Checked on the
    // Kimi-K2.5 file with only the architecture renamed: same weights, KV cell and vision tower.
    const KIMI: &str = include_str!("../../../scenarios/models/kimi-k2.5/config.json");
    let q: Quantization = serde_json::from_str(
        r#"{"dtype":"bf16","experts":{"dtype":"int4","group_size":32,"scale_dtype":"bf16"},"kv_cache_dtype":"auto"}"#,
    )
    .expect("quant");
    let k25 = ModelSpec::from_config_json(KIMI, q).expect("k2.5");
    let vl_text = KIMI.replace(
        "KimiK25ForConditionalGeneration",
        "KimiVLForConditionalGeneration",
    );
    let vl = ModelSpec::from_config_json(&vl_text, q).expect("kimi-vl");
    assert_eq!(vl.arch, Architecture::KimiVl);
    assert!(vl.has_vision);
    assert_eq!(vl.vision, k25.vision);
    assert_eq!(vl.weight_breakdown(8), k25.weight_breakdown(8));
    assert_eq!(vl.kv_cell_bytes(8), 70_272); // 576 × 61 × 2, not divided by tp
    assert!(vl.indexer.is_none());
}
