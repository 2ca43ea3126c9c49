//! families (issue #17): Granite-4.0-H (`GraniteMoeHybridForCausalLM`) lowered from the bundled
//! preset. Every number is computed by hand in the comment beside it from the preset's config.json
//! and the engine rules in `llm::granite_hybrid` / `llm::nemotron_h`.

use super::*;

const H_TINY: &str = include_str!("../../../scenarios/models/granite-4.0-h-tiny/config.json");
const H_SMALL: &str = include_str!("../../../scenarios/models/granite-4.0-h-small/config.json");
const H_MICRO: &str = include_str!("../../../scenarios/models/granite-4.0-h-micro/config.json");
const ERNIE_21B: &str = include_str!("../../../scenarios/models/ernie-4.5-21b-a3b/config.json");
const LING_MINI: &str = include_str!("../../../scenarios/models/ling-mini-2.0/config.json");
const LING_FLASH: &str = include_str!("../../../scenarios/models/ling-flash-2.0/config.json");
const COMMAND_R7B: &str = include_str!("../../../scenarios/models/command-r7b-12-2024/config.json");
const SEED_OSS_36B: &str = include_str!("../../../scenarios/models/seed-oss-36b-instruct/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

#[test]
fn granite_4_0_h_tiny_layers_follow_layer_types() {
    let s = spec(H_TINY);
    assert_eq!(s.arch, Architecture::GraniteMoeHybrid);
    // 40 layers: attention at 5, 15, 25, 35; the other 36 Mamba-2.
    assert_eq!(s.num_layers, 40);
    assert_eq!(s.linear_layers(), 36);
    assert_eq!(s.mamba2_layers(), 36);
    assert_eq!(s.kv_layers(), 4);
    assert_eq!(s.mixers[5], Mixer::Attention);
    assert_eq!(s.mixers[4], Mixer::Linear);
    // Every layer: 64 experts of 512, top 6, plus the shared MLP of 1,024 = 2 expert widths.
    let moe = MoeShape {
        n_routed_experts: 64,
        num_experts_per_tok: 6,
        moe_intermediate: 512,
        n_shared_experts: 2,
    };
    assert!(s.layers.iter().all(|f| *f == Ffn::Moe(moe)));
    assert_eq!(s.moe, Some(moe));
    assert!(!s.routing_bias && !s.attention_bias && s.tie_word_embeddings);
    // head_dim = hidden / heads = 1,536 / 12 = 128 (the engines' `GraniteMoeHybridAttention`).
    assert_eq!(s.head_dim, 128);
    // KV cell: 4 attention layers × 4 KV heads × 2 × 128 × 2 B = 8,192 B at tp 1; 4,096 at tp 2;
    // 2,048 at tp 4 (one KV head per rank).
    assert_eq!(s.kv_cell_bytes(1), 8_192);
    assert_eq!(s.kv_cell_bytes(2), 4_096);
    assert_eq!(s.kv_cell_bytes(4), 2_048);
    assert!(s.validate_tp(1).is_ok() && s.validate_tp(2).is_ok() && s.validate_tp(4).is_ok());
    // 12 attention heads do not split over 8 ranks (both engines assert heads % tp == 0).
    assert!(s.validate_tp(8).is_err());
}

/// The checkpoint's parameter count as llama.cpp prints it when loading the GGUF of
/// `ibm-granite/granite-4.0-h-tiny` ("print_info: model params = 6.94 B", koboldcpp issue #1781):
/// the GGUF holds the same tensors (tied embeddings, no LM head).
#[test]
fn granite_4_0_h_tiny_parameters_match_llama_cpp() {
    let s = spec(H_TINY);
    // Embedding 100,352 × 1,536 = 154,140,672 (tied); final norm 1,536.
    // Mamba layer (I = 48 × 64 = 3,072, conv_dim = 3,072 + 2 × 1 × 128 = 3,328): in_proj
    // (2 × 3,072 + 256 + 48) × 1,536 = 9,904,128; conv1d 3,328 × 4 + bias 3,328 = 16,640; A, D,
    // dt_bias 3 × 48; gated norm 3,072; out_proj 1,536 × 3,072 = 4,718,592 → 14,642,576, × 36 =
    // 527,132,736. Attention layer: q 1,536 × 1,536, k and v 512 × 1,536 each, o 1,536 × 1,536 =
    // 6,291,456, × 4 = 25,165,824. Every layer: two norms 3,072; router 64 × 1,536 = 98,304; experts
    // 64 × 3 × 512 × 1,536 = 150,994,944; shared MLP 3 × 1,024 × 1,536 = 4,718,592 → 155,814,912,
    // × 40 = 6,232,596,480. Total 6,939,037,248 parameters.
    // Bytes at tp 1: 2 B each, plus A's fp32 half: 36 × 48 × 2 B = 3,456 → 13,878,077,952.
    let bytes = s.weight_bytes_per_rank(1).0;
    assert_eq!(bytes, 13_878_077_952);
    let params = (bytes - 3_456) / 2;
    assert_eq!(params, 6_939_037_248);
    // llama.cpp prints two decimals: 6.94 B, i.e. within ±0.005 B.
    assert!((params as f64 / 1e9 - 6.94).abs() < 0.005, "{params}");
}

#[test]
fn granite_4_0_h_tiny_weights_at_tp_2_by_hand() {
    let s = spec(H_TINY);
    // tp 2: the single B/C group is replicated so both head shards have it (groups 1 → 2;
    // `extra_groups_for_head_shards`): conv_dim 3,072 + 2 × 2 × 128 = 3,584.
    // Mamba layer: norms 2 × 1,536; in_proj (2 × 1,536 + 512 / 2 + 24) × 1,536 = 5,148,672; conv1d
    // 1,792 × 4 + 1,792; D, dt_bias 2 × 24; gated norm 1,536; out_proj 1,536 × 1,536 = 2,359,296 →
    // 7,521,584 × 2 B + A 24 × 4 B = 15,043,264 B, × 36 = 541,557,504.
    // Attention layer: norms 3,072; qkv (6 + 2 × 2) × 128 × 1,536 = 1,966,080; o 1,536 × 768 =
    // 1,179,648 → 3,148,800 × 2 B, × 4 = 25,190,400.
    // FFN: router 98,304 (replicated); experts 64 × 3 × 256 × 1,536 = 75,497,472; shared 3 × 512 ×
    // 1,536 = 2,359,296 → 77,955,072 × 2 B, × 40 = 6,236,405,760.
    // Embedding 50,176 × 1,536 × 2 B = 154,140,672; final norm 3,072 B.
    // Total 154,140,672 + 541,557,504 + 25,190,400 + 6,236,405,760 + 3,072 = 6,957,297,408.
    assert_eq!(s.weight_bytes_per_rank(2).0, 6_957_297_408);
}

#[test]
fn granite_4_0_h_tiny_state_per_request_is_sglangs_mamba_cache_per_req() {
    let s = spec(H_TINY);
    let m = s.mamba2.expect("Mamba-2 shape");
    assert_eq!(
        (m.num_heads, m.head_dim, m.n_groups, m.state_size, m.conv_kernel),
        (48, 64, 1, 128, 4)
    );
    // SGLang `Mamba2StateShape.create`: conv (3,328 / tp) × 3 bf16; temporal (48 / tp) × 64 × 128
    // fp32 (`SGLANG_MAMBA_SSM_DTYPE` default). tp 1: 19,968 + 1,572,864 = 1,592,832 per layer,
    // × 36 = 57,341,952 B per request.
    assert_eq!(m.conv_state_bytes(1), 19_968);
    assert_eq!(m.ssm_state_bytes_per_rank(1), 1_572_864);
    assert_eq!(s.linear_state_bytes_per_req(1), 57_341_952);
    // tp 2: conv (3,584 / 2) × 3 × 2 = 10,752; temporal 24 × 64 × 128 × 4 = 786,432 → 797,184,
    // × 36 = 28,698,624.
    assert_eq!(s.linear_state_bytes_per_req(2), 28_698_624);
}

#[test]
fn granite_hybrid_refuses_what_the_engines_refuse() {
    let v: serde_json::Value = serde_json::from_str(H_TINY).unwrap();
    let with = |key: &str, value: serde_json::Value| {
        let mut c = v.clone();
        c[key] = value;
        ModelSpec::from_config_json(&c.to_string(), Quantization::bf16()).unwrap_err()
    };
    // SGLang GraniteMoeHybridConfig: mamba_d_head × mamba_n_heads must equal mamba_expand × hidden.
    let e = with("mamba_d_head", 32.into()).to_string();
    assert!(e.contains("mamba_d_head") && e.contains("3072"), "{e}");
    // layer_types entries are "mamba" or "attention", one per layer.
    let e = with("layer_types", serde_json::json!(vec!["mamba"; 39])).to_string();
    assert!(e.contains("layer_types") && e.contains("39 entries"), "{e}");
    let e = with("layer_types", serde_json::json!(vec!["linear_attention"; 40])).to_string();
    assert!(e.contains("\"linear_attention\""), "{e}");
    // A shared MLP that is not whole expert widths (tpsim's MoE shape).
    let e = with("shared_intermediate_size", 1000.into()).to_string();
    assert!(e.contains("shared_intermediate_size"), "{e}");
}

#[test]
fn granite_hybrid_without_experts_is_a_dense_shared_mlp() {
    // Granite-4.0-H-Micro's layout: no experts, the shared MLP alone in every layer (the engines
    // build `shared_mlp` only). Widths here are H-Tiny's with `num_local_experts` 0.
    let mut c: serde_json::Value = serde_json::from_str(H_TINY).unwrap();
    c["num_local_experts"] = 0.into();
    c["num_experts_per_tok"] = 0.into();
    let s = ModelSpec::from_config_json(&c.to_string(), Quantization::bf16()).unwrap();
    assert_eq!(s.moe, None);
    assert!(s.layers.iter().all(|f| *f == Ffn::Dense { intermediate: 1_024 }));
    assert_eq!(s.dense_intermediate, 1_024);
    // Tiny's total less the routers and experts: 40 × (98,304 + 150,994,944) = 6,043,729,920
    // parameters fewer → 895,307,328 × 2 B + 3,456 = 1,790,618,112 B.
    assert_eq!(s.weight_bytes_per_rank(1).0, 1_790_618_112);
}

/// Seed-OSS-36B-Instruct's parameter count as a public model table lists it from the checkpoint
/// ("params/index" 36,151,104,512 for Seed-OSS-36B-Instruct and -Base; find_string id 57091266702).
#[test]
fn seed_oss_36b_parameters_match_the_checkpoint() {
    let s = spec(SEED_OSS_36B);
    assert_eq!(s.arch, Architecture::SeedOss);
    assert!(s.attention_bias && !s.tie_word_embeddings);
    // head_dim is explicit: 128, so q is 80 × 128 = 10,240 wide, twice the hidden size.
    assert_eq!(s.head_dim, 128);
    // Embedding and untied LM head 155,136 × 5,120 = 794,296,320 each; final norm 5,120.
    // Layer: q 10,240 × 5,120 = 52,428,800; k, v 2 × 1,024 × 5,120 = 10,485,760; q/k/v bias 12,288;
    // o 5,120 × 10,240 = 52,428,800 (no bias); MLP 3 × 27,648 × 5,120 = 424,673,280; norms 10,240 →
    // 540,039,168, × 64 = 34,562,506,752. Total 36,151,104,512 parameters, 2 B each.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 36_151_104_512);
    // tp 2: vocab rows 77,568 (155,136 is a multiple of 64) → embedding + head 2 × 77,568 × 5,120 =
    // 794,296,320; layer: norms 10,240; qkv (5,120 + 1,024) × 5,120 = 31,457,280 + bias 6,144; o
    // 5,120 × 5,120 = 26,214,400; MLP 3 × 13,824 × 5,120 = 212,336,640 → 270,024,704, × 64 =
    // 17,281,581,056; final norm 5,120 → 18,075,882,496 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 18_075_882_496);
    // KV cell: 64 layers × 8 KV heads × 2 × 128 × 2 B = 262,144 B at tp 1; 32,768 at tp 8.
    assert_eq!(s.kv_cell_bytes(1), 262_144);
    assert_eq!(s.kv_cell_bytes(8), 32_768);
    assert!(s.validate_tp(8).is_ok());
    // 80 heads do not split over 3 ranks (both engines assert heads % tp == 0).
    assert!(s.validate_tp(3).is_err());
}

/// ERNIE-4.5-21B-A3B by hand. The published size is "21.8B" (a public restatement of the config,
/// find_string id 70957858900: "21.8B in all"); tpsim's count must round to it (±0.05 B).
#[test]
fn ernie_4_5_21b_a3b_parameters_by_hand() {
    let s = spec(ERNIE_21B);
    assert_eq!(s.arch, Architecture::Ernie45Moe);
    // Layer 0 dense (moe_layer_start_index 1), layers 1..=27 MoE (interval 1).
    assert_eq!(s.layers[0], Ffn::Dense { intermediate: 12_288 });
    let moe = MoeShape {
        n_routed_experts: 64,
        num_experts_per_tok: 6,
        moe_intermediate: 1_536,
        n_shared_experts: 2,
    };
    assert!(s.layers[1..].iter().all(|f| *f == Ffn::Moe(moe)));
    assert_eq!(s.first_k_dense_replace, 1);
    // Embedding 103,424 × 2,560 = 264,765,440 (tied); final norm 2,560.
    // Attention: q 2,560 × 2,560, k and v 512 × 2,560 each, o 2,560 × 2,560 = 15,728,640; norms 5,120
    // → 15,733,760, × 28 = 440,545,280. Dense MLP (layer 0): 3 × 12,288 × 2,560 = 94,371,840.
    // MoE layer: router 64 × 2,560 = 163,840 + correction bias 64 (model dtype, SGLang `MoEGate`);
    // experts 64 × 3 × 1,536 × 2,560 = 754,974,720; shared 3 × 3,072 × 2,560 = 23,592,960 →
    // 778,731,584, × 27 = 21,025,752,768. Total 21,825,437,888 parameters, 2 B each.
    let params = s.weight_bytes_per_rank(1).0 / 2;
    assert_eq!(params, 21_825_437_888);
    assert!((params as f64 / 1e9 - 21.8).abs() < 0.05, "{params}");
    // tp 2: vocab rows 51,712; attention (1,280 + 512) × 2,560 + 2,560 × 1,280 + norms = 7,869,440,
    // × 28 = 220,344,320; dense 3 × 6,144 × 2,560 = 47,185,920; MoE router 163,904 (replicated) +
    // experts 64 × 3 × 768 × 2,560 = 377,487,360 + shared 3 × 1,536 × 2,560 = 11,796,480 →
    // 389,447,744, × 27 = 10,515,089,088; embedding 132,382,720; final norm 2,560 →
    // 10,915,004,608 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 10_915_004_608);
    // KV cell: 28 layers × 4 KV heads × 2 × 128 × 2 B = 57,344 at tp 1; one KV head per rank from
    // tp 4: 14,336.
    assert_eq!(s.kv_cell_bytes(1), 57_344);
    assert_eq!(s.kv_cell_bytes(4), 14_336);
    assert!(s.validate_tp(4).is_ok());
    // 20 heads do not split over 8 ranks.
    assert!(s.validate_tp(8).is_err());
}

#[test]
fn ernie_moe_layers_follow_start_end_and_interval() {
    let mut c: serde_json::Value = serde_json::from_str(ERNIE_21B).unwrap();
    // SGLang `Ernie4DecoderLayer`: start ≤ i ≤ end and (i − start) % interval == 0.
    c["moe_layer_start_index"] = 2.into();
    c["moe_layer_end_index"] = 9.into();
    c["moe_layer_interval"] = 3.into();
    let s = ModelSpec::from_config_json(&c.to_string(), Quantization::bf16()).unwrap();
    let moe: Vec<usize> = (0..28).filter(|&i| matches!(s.layers[i], Ffn::Moe(_))).collect();
    assert_eq!(moe, vec![2, 5, 8]);
    assert_eq!(s.first_k_dense_replace, 2);
    c["use_bias"] = true.into();
    let e = ModelSpec::from_config_json(&c.to_string(), Quantization::bf16()).unwrap_err();
    assert!(e.to_string().contains("use_bias"), "{e}");
}

/// families2 (issue #17): Ling-mini-2.0 by hand. The published sizes are "16.26B" total and "789M"
/// activated non-embedding parameters (the Ling-V2 README, ant-yy/Ling-V2 README.md; deepwiki's
/// Ling-V2 model-variants table); tpsim's counts must round to them (±0.005 B, ±0.5 M).
#[test]
fn ling_mini_2_0_parameters_by_hand() {
    let s = spec(LING_MINI);
    assert_eq!(s.arch, Architecture::BailingMoeV2);
    // Layer 0 dense (first_k_dense_replace 1), layers 1..=19 MoE: 256 experts of 512, top 8, one
    // shared expert of 512.
    assert_eq!(s.layers[0], Ffn::Dense { intermediate: 5_120 });
    let moe = MoeShape {
        n_routed_experts: 256,
        num_experts_per_tok: 8,
        moe_intermediate: 512,
        n_shared_experts: 1,
    };
    assert!(s.layers[1..].iter().all(|f| *f == Ffn::Moe(moe)));
    assert_eq!(s.first_k_dense_replace, 1);
    assert!(s.qk_norm && s.routing_bias && s.router_fp32 && !s.attention_bias && !s.tie_word_embeddings);
    // Parameters: embedding and LM head 2 × 157,184 × 2,048 = 643,825,664. Attention per layer:
    // query_key_value (16 + 2 × 4) × 128 × 2,048 = 6,291,456 + dense 2,048 × 2,048 = 4,194,304 + q/k
    // norms 256 + layer norms 4,096 = 10,490,112, × 20 = 209,802,240. Dense layer 0: 3 × 5,120 ×
    // 2,048 = 31,457,280. MoE layer: experts 256 × 3 × 512 × 2,048 = 805,306,368 + shared 3 × 512 ×
    // 2,048 = 3,145,728 + router 256 × 2,048 = 524,288 → 808,976,384, × 19 = 15,370,551,296; expert
    // bias 256 × 19 = 4,864. Final norm 2,048. Total 16,255,643,392.
    let total: u64 = 643_825_664 + 209_802_240 + 31_457_280 + 15_370_551_296 + 4_864 + 2_048;
    assert_eq!(total, 16_255_643_392);
    assert!((total as f64 / 1e9 - 16.26).abs() < 0.005, "{total}");
    // Activated non-embedding: attention 209,802,240 + dense 31,457,280 + per MoE layer (8 experts
    // 25,165,824 + shared 3,145,728 + router 524,288) × 19 = 547,880,960 + final norm 2,048 =
    // 789,142,528 ("789M").
    let active: u64 = 209_802_240 + 31_457_280 + 19 * (25_165_824 + 3_145_728 + 524_288) + 2_048;
    assert!((active as f64 / 1e6 - 789.0).abs() < 0.5, "{active}");
    // Bytes at tp 1: the routers fp32 (router_dtype "fp32": 19 × 524,288 × 4 = 39,845,888), the
    // expert biases fp32 (4,864 × 4 = 19,456), the other 16,255,643,392 − 9,961,472 − 4,864 =
    // 16,245,677,056 parameters × 2 B = 32,491,354,112 → 32,531,219,456 B (30.30 GiB).
    assert_eq!(s.weight_bytes_per_rank(1).0, 32_491_354_112 + 39_845_888 + 19_456);
    // tp 2: vocab rows 78,592 → embedding + head 321,912,832; attention ((8 + 2 × 2) × 128 × 2,048 =
    // 3,145,728 + 2,048 × 1,024 = 2,097,152 + 4,352 norms) × 20 = 104,944,640; dense 3 × 2,560 ×
    // 2,048 = 15,728,640; MoE (256 × 3 × 256 × 2,048 = 402,653,184 + shared 3 × 256 × 2,048 =
    // 1,572,864) × 19 = 7,680,294,912; final norm 2,048 → 8,122,883,072 × 2 B = 16,245,766,144, plus
    // the replicated fp32 routers and biases 39,865,344 → 16,285,631,488 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 16_245_766_144 + 39_865_344);
    // KV cell: 20 layers × 4 KV heads × 2 × 128 × 2 B = 40,960 at tp 1; one KV head per rank at tp 4
    // (10,240), and still one at tp 8, each head held by two ranks (`max(1, 4 // 8)` in both engines).
    assert_eq!(s.kv_cell_bytes(1), 40_960);
    assert_eq!(s.kv_cell_bytes(4), 10_240);
    assert_eq!(s.kv_cell_bytes(8), 10_240);
    assert!(s.validate_tp(8).is_ok());
    // 16 heads do not split over 3 ranks (both engines assert heads % tp == 0).
    assert!(s.validate_tp(3).is_err());
}

/// families2 (issue #17): Ling-flash-2.0 against its checkpoint. The Hugging Face API's record of
/// inclusionAI/Ling-flash-2.0 (sha 649f8b9, copied in daniel-p-green/alain-ai-learning-platform
/// out/research-inclusionai-ling-flash-2-0/sources/huggingface/model.json) counts BF16
/// 102,889,697,280 + F32 7,936 parameters; tpsim's count by hand must equal both exactly.
#[test]
fn ling_flash_2_0_parameters_match_the_checkpoint() {
    let s = spec(LING_FLASH);
    assert_eq!(s.arch, Architecture::BailingMoeV2);
    assert_eq!(s.layers[0], Ffn::Dense { intermediate: 9_216 });
    let moe = MoeShape {
        n_routed_experts: 256,
        num_experts_per_tok: 8,
        moe_intermediate: 1_024,
        n_shared_experts: 1,
    };
    assert!(s.layers[1..].iter().all(|f| *f == Ffn::Moe(moe)));
    // BF16: embedding + head 2 × 157,184 × 4,096 = 1,287,651,328; attention ((32 + 8) × 128 × 4,096
    // = 20,971,520 + 4,096 × 4,096 = 16,777,216 + 256 + 8,192) × 32 = 1,208,229,888; dense 3 × 9,216
    // × 4,096 = 113,246,208; MoE (256 × 3 × 1,024 × 4,096 = 3,221,225,472 + shared 12,582,912 +
    // router 1,048,576) × 31 = 100,280,565,760; final norm 4,096 → 102,889,697,280.
    let bf16: u64 = 1_287_651_328 + 1_208_229_888 + 113_246_208 + 100_280_565_760 + 4_096;
    assert_eq!(bf16, 102_889_697_280);
    // F32: the 31 MoE layers' expert_bias, 31 × 256 = 7,936 (the checkpoint stores no MTP layer).
    assert_eq!(31 * 256, 7_936);
    // Bytes at tp 1: routers in fp32 (31 × 1,048,576 × 4 = 130,023,424) instead of the checkpoint's
    // bf16, the rest 2 B each: (102,889,697,280 − 32,505,856) × 2 = 205,714,382,848; biases 31,744.
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        205_714_382_848 + 130_023_424 + 31_744
    );
    // vLLM's RoPE cache is built for int(128 × 0.5) = 64 rotary dims (`get_rope`).
    assert_eq!(s.rotary_dim, Some(64));
    // KV cell: 32 layers × 4 KV heads × 2 × 128 × 2 B = 65,536 at tp 1, 16,384 at tp 4.
    assert_eq!(s.kv_cell_bytes(1), 65_536);
    assert_eq!(s.kv_cell_bytes(4), 16_384);
}

/// families2 (issue #17): the engines' refusals and the router's dtype follow the config.
#[test]
fn bailing_refusals_and_router_dtype() {
    let mut c: serde_json::Value = serde_json::from_str(LING_MINI).unwrap();
    let bytes = spec(LING_MINI).weight_bytes_per_rank(1).0;
    // Without router_dtype both engines keep the router at the model dtype: 19 × 524,288 × 2 B less.
    c.as_object_mut().unwrap().remove("router_dtype");
    let s = ModelSpec::from_config_json(&c.to_string(), Quantization::bf16()).unwrap();
    assert_eq!(bytes - s.weight_bytes_per_rank(1).0, 19 * 524_288 * 2);
    let refuse = |key: &str, v: serde_json::Value, word: &str| {
        let mut c: serde_json::Value = serde_json::from_str(LING_MINI).unwrap();
        c[key] = v;
        let e = ModelSpec::from_config_json(&c.to_string(), Quantization::bf16()).unwrap_err();
        assert!(e.to_string().contains(word), "{key}: {e}");
    };
    // SGLang: "Unsupported activation: gelu. Only silu is supported for now."
    refuse("hidden_act", "gelu".into(), "Only silu is supported");
    // Both engines: sigmoid needs the correction bias, softmax refuses it.
    refuse(
        "score_function",
        "softmax".into(),
        "(softmax, None) or (sigmoid, not None)",
    );
    // SGLang: 0 < topk_group <= n_group.
    refuse("topk_group", 9.into(), "0 < topk_group <= n_group");
    refuse("use_bias", true.into(), "use_bias");
    refuse(
        "first_k_dense_replace",
        serde_json::Value::Null,
        "first_k_dense_replace",
    );
}

/// families2 (issue #17): Granite-4.0-H-Small against its checkpoint's size. A public preflight table
/// of Hugging Face metadata lists `ibm-granite/granite-4.0-h-small` at 59.99 (GiB of safetensors;
/// the same table gives H-Tiny 12.93, which is 6,939,037,248 × 2 B; find_string id 54508429823);
/// tpsim's count by hand × 2 B must round to it.
#[test]
fn granite_4_0_h_small_parameters_match_the_checkpoint_size() {
    let s = spec(H_SMALL);
    assert_eq!(s.arch, Architecture::GraniteMoeHybrid);
    assert_eq!((s.mamba2_layers(), s.kv_layers()), (36, 4));
    let moe = MoeShape {
        n_routed_experts: 72,
        num_experts_per_tok: 10,
        moe_intermediate: 768,
        n_shared_experts: 2,
    };
    assert!(s.layers.iter().all(|f| *f == Ffn::Moe(moe)));
    // Embedding 100,352 × 4,096 = 411,041,792 (tied); final norm 4,096.
    // Mamba layer (I = 128 × 64 = 8,192, conv_dim 8,192 + 2 × 128 = 8,448): in_proj (2 × 8,192 + 256
    // + 128) × 4,096 = 68,681,728; conv1d 8,448 × 4 + bias 8,448 = 42,240; A, D, dt_bias 3 × 128;
    // gated norm 8,192; out_proj 4,096 × 8,192 = 33,554,432 → 102,286,976, × 36 = 3,682,331,136.
    // Attention layer (head_dim 4,096 / 32 = 128): q and o 4,096 × 4,096 each, k and v 1,024 × 4,096
    // each = 41,943,040, × 4 = 167,772,160. Every layer: norms 8,192; router 72 × 4,096 = 294,912;
    // experts 72 × 3 × 768 × 4,096 = 679,477,248; shared 3 × 1,536 × 4,096 = 18,874,368 →
    // 698,654,720, × 40 = 27,946,188,800. Total 32,207,337,984 parameters.
    let params: u64 = 411_041_792 + 3_682_331_136 + 167_772_160 + 27_946_188_800 + 4_096;
    assert_eq!(params, 32_207_337_984);
    // Bytes at tp 1: 2 B each plus A's fp32 half, 36 × 128 × 2 B = 9,216.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * params + 9_216);
    // The checkpoint: 2 × 32,207,337,984 B = 59.9908 GiB → "59.99" (4 KV heads would give 59.96).
    let gib = (2 * params) as f64 / (1u64 << 30) as f64;
    assert!((gib - 59.99).abs() < 0.005, "{gib}");
    // KV cell: 4 attention layers × 8 KV heads × 2 × 128 × 2 B = 16,384 at tp 1, 2,048 at tp 8.
    assert_eq!(s.kv_cell_bytes(1), 16_384);
    assert_eq!(s.kv_cell_bytes(8), 2_048);
    // SGLang's state per request: conv 8,448 × 3 × 2 B = 50,688 + temporal 128 × 64 × 128 × 4 B =
    // 4,194,304 → 4,244,992 per layer, × 36 = 152,819,712 B at tp 1.
    assert_eq!(s.linear_state_bytes_per_req(1), 152_819_712);
    assert!(s.validate_tp(8).is_ok());
    // 32 heads do not split over 3 ranks.
    assert!(s.validate_tp(3).is_err());
}

/// families2 (issue #17): Granite-4.0-H-Micro, the dense hybrid (no experts: the shared MLP is the
/// layer's MLP). IBM publishes it as "3B" (ibm.com/granite/docs: "Hybrid, Dense, 3B total"); tpsim's
/// count by hand must be of that size (3.0-3.5 B: the release rounds to one figure).
#[test]
fn granite_4_0_h_micro_parameters_by_hand() {
    let s = spec(H_MICRO);
    assert_eq!(s.moe, None);
    assert!(s.layers.iter().all(|f| *f == Ffn::Dense { intermediate: 8_192 }));
    // head_dim 2,048 / 32 = 64 (the engines' GraniteMoeHybridAttention).
    assert_eq!(s.head_dim, 64);
    // Embedding 100,352 × 2,048 = 205,520,896 (tied); final norm 2,048.
    // Mamba layer (I = 64 × 64 = 4,096, conv_dim 4,352): in_proj (8,192 + 256 + 64) × 2,048 =
    // 17,432,576; conv1d 4,352 × 5 = 21,760; A, D, dt_bias 192; gated norm 4,096; out_proj 2,048 ×
    // 4,096 = 8,388,608 → 25,847,232, × 36 = 930,500,352. Attention: q and o 2,048 × 2,048, k and v
    // 512 × 2,048 = 10,485,760, × 4 = 41,943,040. Every layer: norms 4,096 + MLP 3 × 8,192 × 2,048 =
    // 50,331,648 → 50,335,744, × 40 = 2,013,429,760. Total 3,191,396,096.
    let params: u64 = 205_520_896 + 930_500_352 + 41_943_040 + 2_013_429_760 + 2_048;
    assert_eq!(params, 3_191_396_096);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * params + 36 * 64 * 2);
    assert!((3.0..3.5).contains(&(params as f64 / 1e9)), "{params}");
    // KV cell: 4 layers × 8 KV heads × 2 × 64 × 2 B = 8,192 at tp 1 (the "~8 kB" a public port
    // states, find_string id 67448469407).
    assert_eq!(s.kv_cell_bytes(1), 8_192);
}

/// families2 (issue #17): Command R7B (`Cohere2ForCausalLM`) by hand. Cohere publishes it as a "7B"
/// model (HF transformers' Cohere2 page: "a 7B billion parameter model"); that is its non-embedding
/// count (6.98 B), 8.03 B with the tied 256k embedding.
#[test]
fn command_r7b_parameters_by_hand() {
    let s = spec(COMMAND_R7B);
    assert_eq!(s.arch, Architecture::Cohere2);
    assert!(s.tie_word_embeddings && !s.attention_bias && !s.qk_norm);
    // 3 sliding layers to 1 global: layer i is global iff (i + 1) % 4 == 0 (window 4,096).
    let global: Vec<usize> = (0..32).filter(|&i| s.mixers[i] == Mixer::Attention).collect();
    assert_eq!(global, vec![3, 7, 11, 15, 19, 23, 27, 31]);
    assert_eq!(s.sliding_layers(), 24);
    assert_eq!(s.sliding_window, Some(4_096));
    // Embedding 256,000 × 4,096 = 1,048,576,000 (tied); final LayerNorm 4,096. Layer: one LayerNorm
    // 4,096; qkv (32 + 2 × 8) × 128 × 4,096 = 25,165,824; o 4,096 × 4,096 = 16,777,216; MLP 3 ×
    // 14,336 × 4,096 = 176,160,768 → 218,107,904, × 32 = 6,979,452,928. Total 8,028,033,024.
    let params = s.weight_bytes_per_rank(1).0 / 2;
    assert_eq!(params, 8_028_033_024);
    let non_embedding = params - 1_048_576_000;
    assert!((non_embedding as f64 / 1e9 - 7.0).abs() < 0.05, "{non_embedding}");
    // tp 2: vocab rows 128,000 → 524,288,000; layer 4,096 + (16 + 8) × 128 × 4,096 = 12,582,912 +
    // 4,096 × 2,048 = 8,388,608 + 3 × 7,168 × 4,096 = 88,080,384 → 109,056,000, × 32 =
    // 3,489,792,000; final norm 4,096 → 4,014,084,096 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 4_014_084_096);
    // KV cell over all 32 layers (SGLang's plain pool): 8 KV heads × 2 × 128 × 2 B × 32 = 131,072.
    assert_eq!(s.kv_cell_bytes(1), 131_072);
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(3).is_err());
    // Cohere's per-head q/k LayerNorms are lowered since families8 (`tests_cohere`).
}
