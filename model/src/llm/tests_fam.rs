//! fam (issue #16): GraniteMoE, Phi-3.5-MoE and LLaVA-NeXT. Every number is computed by hand in the
//! comment beside it (parameters × 2 bytes for bf16/fp16) and compared with the parameter count the
//! model card publishes.

use super::*;

const GRANITE_MOE_1B: &str = include_str!("../../../scenarios/models/granite-3.1-1b-a400m/config.json");
const PHI_35_MOE: &str = include_str!("../../../scenarios/models/phi-3.5-moe/config.json");
const LLAVA_16_MISTRAL: &str = include_str!("../../../scenarios/models/llava-v1.6-mistral-7b/config.json");

fn bf16() -> Quantization {
    serde_json::from_str(r#"{"dtype":"bf16","kv_cache_dtype":"auto"}"#).expect("bf16 quant")
}

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, bf16()).expect("preset parses")
}

// ---------------------------------------------------------------- GraniteMoE

#[test]
fn granite_moe_1b_lowers_every_layer_moe_without_biases() {
    let s = spec(GRANITE_MOE_1B);
    assert_eq!(s.arch, Architecture::GraniteMoe);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (24, 16, 8, 64));
    let m = s.moe.expect("moe");
    assert_eq!(
        (
            m.n_routed_experts,
            m.num_experts_per_tok,
            m.moe_intermediate,
            m.n_shared_experts
        ),
        (32, 8, 512, 0)
    );
    assert!(s.layers.iter().all(|l| matches!(l, Ffn::Moe(_))));
    assert!(s.tie_word_embeddings && !s.attention_bias && !s.routing_bias && !s.has_vision);
    assert_eq!(s.context_len, Some(131_072));
}

#[test]
fn granite_moe_1b_weights_match_the_model_card() {
    let s = spec(GRANITE_MOE_1B);
    // Per layer: q/o 2 × 1024² = 2,097,152, k/v 2 × 512 × 1024 = 1,048,576, two RMSNorms 2,048,
    // router 32 × 1024 = 32,768, experts 32 × 3 × 512 × 1024 = 50,331,648 → 53,512,192; × 24 =
    // 1,284,292,608. Tied embedding, vocabulary padded to 49,216 rows: 49,216 × 1024 = 50,397,184;
    // final norm 1,024. Total 1,334,690,816 parameters × 2 = 2,669,381,632 B. Unpadded (49,155 rows)
    // 1,334,628,352 = the card's "# Parameters 1.3B" (table in its README).
    assert_eq!(s.weight_bytes_per_rank(1).0, 2_669_381_632);
    assert_eq!(s.weight_breakdown(1).routed_experts, 24 * 50_331_648 * 2);
    assert_eq!(s.weight_breakdown(1).lm_head, 0, "tied");
    // tp 2: embedding 24,608 rows, q/o/k/v halved (4 KV heads per rank), experts 256 wide: per
    // layer 1,572,864 + 2,048 + 32,768 + 25,165,824 = 26,773,504; × 24 = 642,564,096; + 25,198,592
    // + 1,024 = 667,763,712 parameters × 2 = 1,335,527,424 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 1_335_527_424);
}

#[test]
fn granite_moe_1b_kv_cell_and_tp() {
    let s = spec(GRANITE_MOE_1B);
    // 8 KV heads × (64 + 64) × 24 layers × 2 B = 49,152 at tp 1; tp 8: 1 head per rank → 6,144;
    // tp 16: one replicated head, still 6,144.
    assert_eq!(s.kv_cell_bytes(1), 49_152);
    assert_eq!(s.kv_cell_bytes(8), 6_144);
    assert_eq!(s.kv_cell_bytes(16), 6_144);
    assert!(s.validate_tp(8).is_ok());
    // 16 heads do not divide by 3 (nor 512 / 3).
    assert!(s.validate_tp(3).is_err());
    // Decode at batch 1 reads the top-8 experts of 32 in each layer: 8 × 3 × 512 × 1024 × 2 B
    // = 25,165,824 B of expert weights per layer (expected distinct experts for 1 token = k).
    let fp = s.forward_pass(1, 1);
    let ffn: u64 = fp.layers.iter().map(|l| l.ffn_weight_bytes.0).sum();
    // + the router 32 × 1024 × 2 = 65,536 B per layer.
    assert_eq!(ffn, 24 * (25_165_824 + 65_536));
}

// ---------------------------------------------------------------- Phi-3.5-MoE

#[test]
fn phi35_moe_lowers_sixteen_experts_top_two_with_biases() {
    let s = spec(PHI_35_MOE);
    assert_eq!(s.arch, Architecture::PhiMoe);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (32, 32, 8, 128));
    let m = s.moe.expect("moe");
    assert_eq!(
        (
            m.n_routed_experts,
            m.num_experts_per_tok,
            m.moe_intermediate,
            m.n_shared_experts
        ),
        (16, 2, 6400, 0)
    );
    assert!(s.attention_bias && !s.tie_word_embeddings);
    // `sliding_window` 131,072 = max_position_embeddings: lowered as full attention (module docs of
    // `llm::moe_families`).
    assert!(s.mixers.iter().all(|m| *m == Mixer::Attention));
    assert_eq!(s.sliding_window, None);
}

#[test]
fn phi35_moe_weights_match_the_published_41_9b() {
    let s = spec(PHI_35_MOE);
    // Per layer: q/o 2 × 4096² = 33,554,432, k/v 2 × 1024 × 4096 = 8,388,608, q/k/v biases 6,144,
    // o bias 4,096, two LayerNorms with biases 16,384, router 16 × 4096 = 65,536, experts
    // 16 × 3 × 6400 × 4096 = 1,258,291,200 → 1,300,326,400; × 32 = 41,610,444,800. Embedding and
    // LM head 32,064 × 4096 = 131,334,144 each (32,064 is already a multiple of 64), LM-head bias
    // 32,064, final LayerNorm 8,192 → 41,873,153,344 parameters = "41.9B" (model card); × 2 B =
    // 83,746,306,688 B = 77.995 GiB.
    assert_eq!(s.weight_bytes_per_rank(1).0, 83_746_306_688);
    let b = s.weight_breakdown(1);
    assert_eq!(b.lm_head, (131_334_144 + 32_064) * 2);
    assert_eq!(b.norms, (32 * (6_144 + 4_096 + 16_384) + 8_192) * 2);
    // Active per token: 32 × (41,943,040 + 6,144 + 4,096 + 16,384 + 65,536 + 2 × 78,643,200) +
    // embedding + LM head + its bias + final norm = 6,640,999,744 = the card's "6.6B active".
    // tp 4: q/k/v/o and experts split by 4 (2 KV heads per rank), biases of o and the norms
    // replicated: per layer 10,485,760 + 1,536 + 4,096 + 16,384 + 65,536 + 314,572,800 =
    // 325,146,112; × 32 = 10,404,675,584; + 2 × 32,833,536 + 8,016 + 8,192 = 10,470,358,864
    // parameters × 2 = 20,940,717,728 B.
    assert_eq!(s.weight_bytes_per_rank(4).0, 20_940_717_728);
}

#[test]
fn phi35_moe_kv_cell() {
    let s = spec(PHI_35_MOE);
    // 8 KV heads × 256 × 32 layers × 2 B = 131,072 at tp 1; 32,768 at tp 4; 16,384 at tp 8.
    assert_eq!(s.kv_cell_bytes(1), 131_072);
    assert_eq!(s.kv_cell_bytes(4), 32_768);
    assert_eq!(s.kv_cell_bytes(8), 16_384);
    // 6400 / 8 = 800 per rank: tp 8 works; 32 heads / 3 does not.
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(3).is_err());
}

// ---------------------------------------------------------------- LLaVA-NeXT

#[test]
fn llava_16_mistral_fills_text_defaults_and_builds_23_clip_blocks() {
    let s = spec(LLAVA_16_MISTRAL);
    assert_eq!(s.arch, Architecture::LlavaNext);
    // hidden 4096, 32 layers and 32 heads come from transformers' MistralConfig defaults (the file
    // names none of them); head_dim 4096 / 32 = 128; vocab 32,064 and 8 KV heads from the file.
    assert_eq!(
        (s.hidden, s.num_layers, s.heads, s.kv_heads, s.head_dim),
        (4096, 32, 32, 8, 128)
    );
    assert_eq!((s.vocab, s.dense_intermediate), (32_064, 14_336));
    // `"sliding_window": null` in the file: all full attention (MistralConfig's 4096 applies only
    // when the key is absent).
    assert!(s.mixers.iter().all(|m| *m == Mixer::Attention));
    // Served in the root config's float16 (vLLM `_find_dtype`), not text_config's bfloat16.
    assert_eq!(s.dtype, WeightDtype::Fp16);
    assert_eq!(s.context_len, Some(32_768));
    let v = s.vision.expect("tower");
    assert_eq!(v.family, VisionFamily::Clip);
    // vision_feature_layer −2 of 24 → 24 − 2 + 1 = 23 blocks (vLLM `_get_layer_index`).
    assert_eq!(
        (v.layers, v.hidden, v.intermediate, v.heads, v.patch),
        (23, 1024, 4096, 16, 14)
    );
    // (336 / 14)² + 1 = 577 positions.
    assert_eq!(v.pos_emb_cells, 577);
    assert!(v.projector_bias);
}

#[test]
fn llava_16_mistral_weights_match_the_published_7_57b() {
    let s = spec(LLAVA_16_MISTRAL);
    // CLIP block (h 1024, MLP 4096): LayerNorms 4,096; qkv 3,145,728 + 3,072; out 1,048,576 + 1,024;
    // fc1 4,194,304 + 4,096; fc2 4,194,304 + 1,024 → 12,596,224. Embeddings: class 1,024, patch
    // conv 1024 × 3 × 14 × 14 = 602,112, positions 577 × 1024 = 590,848, pre-LayerNorm 2,048.
    // Projector 4096 × 1024 + 4096 + 4096² + 4096 = 20,979,712; image_newline 4,096.
    // vLLM's 23 blocks: 289,713,152 + 1,196,032 + 20,979,712 + 4,096 = 311,892,992 → the vision
    // breakdown in fp16.
    assert_eq!(s.weight_breakdown(1).vision, 311_892_992 * 2);
    // Text (Mistral-7B, vocab 32,064): per layer 41,943,040 + 176,160,768 + 8,192 = 218,112,000;
    // × 32 = 6,979,584,000; embedding + LM head 2 × 131,334,144; final norm 4,096 →
    // 7,242,256,384. Total 7,554,149,376 parameters × 2 = 15,108,298,752 B = 14.071 GiB.
    assert_eq!(s.weight_bytes_per_rank(1).0, 15_108_298_752);
    // The checkpoint also holds the 24th block (12,596,224) and the post-LayerNorm (2,048) vLLM
    // skips: 7,554,149,376 + 12,598,272 = 7,566,747,648 = the card's 7.57B.
    // tp 2, per block: norms 4,096, qkv 1536 × 1024 + 1536, out 1024 × 512 + 1024 (bias
    // replicated), fc1 2048 × 1024 + 2048, fc2 1024 × 2048 + 1024 → 6,301,184; × 23 = 144,927,232;
    // embeddings 1,196,032 replicated; projector 2048 × 1024 + 2048 + 4096 × 2048 + 4096 =
    // 10,491,904; image_newline 4,096 → 156,619,264 parameters × 2 = 313,238,528 B.
    assert_eq!(s.weight_breakdown(2).vision, 313_238_528);
}

#[test]
fn llava_16_mistral_kv_cell_and_sglang_fraction_dims() {
    let s = spec(LLAVA_16_MISTRAL);
    // 8 KV heads × 256 × 32 layers × 2 B = 131,072 at tp 1.
    assert_eq!(s.kv_cell_bytes(1), 131_072);
    assert_eq!(s.kv_cell_bytes(2), 65_536);
    // 16 vision heads: tp 8 works, tp 32 does not (also 32 text heads / 32 works, so the vision
    // check is the one that fails at 64).
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(64).is_err());
    assert_eq!(s.vision.unwrap().sglang_fraction_dims, (24, 1024));
}

#[test]
fn llava_text_defaults_follow_the_text_model_type() {
    // A Llama text tower (llava-v1.6-vicuna style) with no widths: LlamaConfig defaults — MLP 11008,
    // KV heads = heads (32), context 2048; an absent Mistral `sliding_window` is MistralConfig's 4096.
    let vicuna = r#"{"architectures":["LlavaNextForConditionalGeneration"],
        "text_config":{"model_type":"llama","vocab_size":32064},
        "vision_config":{"hidden_size":1024,"image_size":336,"intermediate_size":4096,
          "model_type":"clip_vision_model","num_attention_heads":16,"num_hidden_layers":24,"patch_size":14}}"#;
    let s = spec(vicuna);
    assert_eq!(
        (s.dense_intermediate, s.kv_heads, s.context_len),
        (11_008, 32, Some(2048))
    );
    assert!(s.mixers.iter().all(|m| *m == Mixer::Attention));
    let mistral_no_window = vicuna.replace(r#""model_type":"llama""#, r#""model_type":"mistral""#);
    let m = spec(&mistral_no_window);
    assert_eq!(m.sliding_window, Some(4096));
    assert!(m.mixers.iter().all(|m| *m == Mixer::SlidingAttention));
    // Other text towers and vision towers are refused, naming the field.
    let qwen = vicuna.replace(r#""model_type":"llama""#, r#""model_type":"qwen2""#);
    let e = ModelSpec::from_config_json(&qwen, bf16())
        .unwrap_err()
        .to_string();
    assert!(e.contains("text_config.model_type"), "{e}");
    let siglip = vicuna.replace("clip_vision_model", "siglip_vision_model");
    let e = ModelSpec::from_config_json(&siglip, bf16())
        .unwrap_err()
        .to_string();
    assert!(e.contains("vision_config.model_type"), "{e}");
    let deep = vicuna.replace(r#""text_config""#, r#""vision_feature_layer":-30,"text_config""#);
    let e = ModelSpec::from_config_json(&deep, bf16())
        .unwrap_err()
        .to_string();
    assert!(e.contains("vision_feature_layer"), "{e}");
}

// ---------------------------------------------------------------- presets of existing rules

const KIMI_VL_A3B: &str = include_str!("../../../scenarios/models/kimi-vl-a3b/config.json");
const GLM_4_9B_0414: &str = include_str!("../../../scenarios/models/glm-4-9b-0414/config.json");

#[test]
fn kimi_vl_a3b_preset_weights_and_cell() {
    let s = spec(KIMI_VL_A3B);
    assert_eq!(s.arch, Architecture::KimiVl);
    // MLA: (512 + 64) × 27 layers × 2 B = 31,104 B/token, not divided by tp.
    assert_eq!(s.kv_cell_bytes(1), 31_104);
    assert_eq!(s.kv_cell_bytes(4), 31_104);
    let b = s.weight_breakdown(1);
    // Per layer (q_lora_rank null): q_proj 16 × 192 × 2048 = 6,291,456, kv_a 576 × 2048 = 1,179,648,
    // kv_b 16 × 256 × 512 = 2,097,152, absorbed w_kc + w_vc 2 × 16 × 128 × 512 = 2,097,152, o_proj
    // 2048 × 2048 = 4,194,304 → 15,859,712; × 27 × 2 B = 856,424,448.
    assert_eq!(b.attention, 856_424_448);
    // Layer 0 dense 3 × 11264 × 2048 × 2 B; 26 MoE layers of 64 experts 3 × 1408 × 2048 and a shared
    // expert of 2 × 1408.
    assert_eq!(b.dense_mlp, 138_412_032);
    assert_eq!(b.routed_experts, 26 * 64 * 8_650_752 * 2);
    assert_eq!(b.shared_experts, 26 * 17_301_504 * 2);
    // MoonViT 27 × 1152 (blocks 15,239,504 each = 411,466,608), patch conv + bias 678,528, 64 × 64
    // positions 4,718,592, final and projector norms 4,608, projector 21,238,272 + 9,439,232 →
    // 447,545,840 parameters.
    assert_eq!(b.vision, 447_545_840 * 2);
    // Embedding and LM head 163,840 × 2048 each, routers 26 × (64 × 2048 × 2 B + 64 × 4 B), norms
    // 27 × 4,608 + 2,048 → total 32,928,561,632 B = 30.667 GiB (the vLLM 0.19 check against
    // engine-memory.tsv line 29 is in tests/tests/engine_memory_rows.rs).
    assert_eq!(s.weight_bytes_per_rank(1).0, 32_928_561_632);
}

#[test]
fn glm_4_9b_0414_preset_weights_and_cell() {
    let s = spec(GLM_4_9B_0414);
    assert_eq!(s.arch, Architecture::Glm4);
    assert!(s.attention_bias);
    // 2 KV heads × 256 × 40 layers × 2 B = 40,960 at tp 1; tp 2: one head each → 20,480; tp 4: one
    // replicated head → 20,480.
    assert_eq!(s.kv_cell_bytes(1), 40_960);
    assert_eq!(s.kv_cell_bytes(2), 20_480);
    assert_eq!(s.kv_cell_bytes(4), 20_480);
    // Per layer: q/o 2 × 4096² = 33,554,432, k/v 2 × 256 × 4096 = 2,097,152, q/k/v bias 4,608, MLP
    // 3 × 13696 × 4096 = 168,296,448, four RMSNorms (GLM-4-0414's post-attention and post-MLP norms
    // included) 16,384 → 203,969,024; × 40 = 8,158,760,960; embedding + LM head 2 × 151,552 × 4096
    // = 1,241,513,984; final norm 4,096 → 9,400,279,040 parameters × 2 = 18,800,558,080 B.
    assert_eq!(s.weight_bytes_per_rank(1).0, 18_800_558_080);
}
