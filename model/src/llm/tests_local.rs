//! Local/global attention families (issue #16): layer types, weights per rank and KV cells, pinned to
//! hand-computed values (arithmetic in the comments; bf16 = 2 B; vocabularies already multiples of 64).

use super::*;

const GEMMA3_27B: &str = include_str!("../../../scenarios/models/gemma-3-27b-it/config.json");
const SCOUT: &str = include_str!("../../../scenarios/models/llama-4-scout/config.json");
const MAVERICK: &str = include_str!("../../../scenarios/models/llama-4-maverick/config.json");
const MIXTRAL_8X7B: &str = include_str!("../../../scenarios/models/mixtral-8x7b/config.json");
const GEMMA_2B: &str = include_str!("../../../scenarios/models/gemma-2b/config.json");
const GEMMA2_9B: &str = include_str!("../../../scenarios/models/gemma-2-9b/config.json");
const MISTRAL_7B: &str = include_str!("../../../scenarios/models/mistral-7b-v0.3/config.json");
const MIXTRAL_8X22B: &str = include_str!("../../../scenarios/models/mixtral-8x22b/config.json");

fn bf16() -> Quantization {
    serde_json::from_str(r#"{"dtype":"bf16"}"#).expect("bf16")
}

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, bf16()).expect("preset parses")
}

fn edit(text: &str, f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    f(&mut v);
    v.to_string()
}

#[test]
fn gemma3_layer_types_and_defaults() {
    let m = spec(GEMMA3_27B);
    assert_eq!(m.arch, Architecture::Gemma3);
    // 62 layers, global iff (i + 1) % 6 == 0: layers 5, 11, …, 59 → 10 full, 52 sliding.
    assert_eq!((m.num_layers, m.sliding_layers(), m.kv_layers()), (62, 52, 62));
    assert_eq!(m.kv_layer_counts(), vec![52, 10]);
    assert_eq!(
        (m.mixers[4], m.mixers[5]),
        (Mixer::SlidingAttention, Mixer::Attention)
    );
    assert_eq!(m.sliding_window, Some(1024));
    // HF Gemma3TextConfig defaults fill what the sparse published config omits.
    assert_eq!((m.vocab, m.context_len), (262_208, Some(131_072)));
    assert!(m.tie_word_embeddings && m.qk_norm && m.has_vision);
    // Explicit head_dim 128 (hidden / heads would be 168).
    assert_eq!((m.heads, m.kv_heads, m.head_dim), (32, 16, 128));
    // `layer_types`, when present, wins over the pattern.
    let lt = edit(GEMMA3_27B, |v| {
        v["text_config"]["layer_types"] = serde_json::json!(
            (0..62)
                .map(|i| if i % 2 == 0 {
                    "sliding_attention"
                } else {
                    "full_attention"
                })
                .collect::<Vec<_>>()
        );
    });
    assert_eq!(spec(&lt).kv_layer_counts(), vec![31, 31]);
    // The pattern is read when given.
    let p2 = edit(GEMMA3_27B, |v| {
        v["text_config"]["sliding_window_pattern"] = serde_json::json!(2)
    });
    assert_eq!(spec(&p2).sliding_layers(), 31);
}

#[test]
fn gemma3_weights_per_rank() {
    let m = spec(GEMMA3_27B);
    // tp 2. Embedding (tied) 131,104 × 5376 × 2 = 1,409,630,208; final norm 10,752.
    // Layer attention: 4 norms 4 × 5376 + qkv (2048 + 2048) × 5376 + o 5376 × 2048 + q/k norms 2 × 128
    // = 33,051,904 params = 66,103,808 B; MLP 3 × 10,752 × 5376 × 2 = 346,816,512 B.
    // SigLIP block at tp 2: qkv 1728 × 1152 + 1728 + out 1152 × 576 + 1152 + fc1 2152 × 1152 + 2152 +
    // fc2 1152 × 2152 + 1152 + 2 LayerNorms 4608 = 7,623,208 params = 15,246,416 B; × 27 = 411,653,232.
    // Stem + projector: position table 4096 / 2 × 1152 + post-LN 2304 + patch conv 1152 × 588 + 1152
    // + soft-emb norm 1152 + projection 1152 × 5376 = 9,234,432 params = 18,468,864 B.
    // Total 1,409,630,208 + 10,752 + 62 × 412,920,320 + 430,122,096 = 27,440,822,896 B = 25.56 GiB.
    let b = m.weight_breakdown(2);
    assert_eq!(b.vision, 430_122_096);
    assert_eq!(b.lm_head, 0);
    assert_eq!(m.weight_bytes_per_rank(2).0, 27_440_822_896);
    // tp 1: 27,432,406,640 parameters (Gemma-3-27B's published count is 27.4 B).
    assert_eq!(m.weight_bytes_per_rank(1).0, 2 * 27_432_406_640);
    m.validate_tp(2).unwrap();
    // 16 KV heads: tp 4 splits them; the vision tower's 16 heads too.
    m.validate_tp(4).unwrap();
}

#[test]
fn gemma3_kv_cell() {
    let m = spec(GEMMA3_27B);
    // 16 KV heads / tp 2 = 8 × (128 + 128) × 62 layers × 2 B = 253,952 (research 16-kv-arithmetic.md §1.3).
    assert_eq!(m.kv_cell_bytes(2), 253_952);
    // Per layer 8 × 256 × 2 = 4096 B.
    let fp = m.forward_pass(2, 1);
    assert_eq!(fp.layers[0].kv_bytes_per_token, 4_096);
    assert_eq!(fp.layers[0].kv_window, Some(1024));
    assert_eq!(fp.layers[5].kv_window, None);
}

#[test]
fn llama4_scout_layers_weights_kv() {
    let m = spec(SCOUT);
    assert_eq!(m.arch, Architecture::Llama4);
    // 48 layers: (i + 1) % 4 == 0 → 12 global NoPE layers, 36 chunked.
    assert_eq!((m.sliding_layers(), m.kv_layers()), (36, 48));
    assert_eq!(m.kv_layer_counts(), vec![36, 12]);
    assert_eq!(
        (m.mixers[2], m.mixers[3]),
        (Mixer::ChunkedAttention, Mixer::Attention)
    );
    assert_eq!(m.attention_chunk_size, Some(8192));
    assert_eq!(m.nope_layers, (0..12).map(|k| 4 * k + 3).collect::<Vec<u32>>());
    // interleave_moe_layer_step 1: every layer MoE, 16 experts of 8192 + 1 shared, top 1.
    assert!(m.layers.iter().all(|l| matches!(l, Ffn::Moe(_))));
    assert_eq!(m.moe.unwrap().n_shared_experts, 1);
    assert!(!m.qk_norm && !m.tie_word_embeddings);
    // tp 4: embedding = LM head = 50,512 × 5120 × 2 = 517,242,880; final norm 10,240.
    // Attention: norms 2 × 5120 + qkv (1280 + 512) × 5120 + o 5120 × 1280 = 15,738,880 params
    // = 31,477,760 B. Expert (and shared expert): 3 × 2048 × 5120 × 2 = 62,914,560 B; router 16 × 5120 × 2
    // = 163,840. Layer 31,477,760 + 17 × 62,914,560 + 163,840 = 1,101,189,120; × 48 = 52,857,077,760.
    // Vision at tp 4: block (1056 × 1408 + 1056 + 1408 × 352 + 1408 + 1408 × 1408 + 1408 + 1408 × 1408
    // + 1408 + 5632) × 2 = 11,916,608, × 34 = 405,164,672; stem and adapter: position table 577 × 1408,
    // post/pre LN 2 × 2816, unfold 352 × 588, class 1408, pixel-shuffle MLP 1024 × 5632 + 4096 × 1024,
    // projector 5120 × 4096 = 31,959,424 params = 63,918,848 B. Vision 469,083,520.
    // Total 2 × 517,242,880 + 10,240 + 52,857,077,760 + 469,083,520 = 54,360,657,280 B = 50.63 GiB.
    let b = m.weight_breakdown(4);
    assert_eq!(b.vision, 469_083_520);
    assert_eq!(m.weight_bytes_per_rank(4).0, 54_360_657_280);
    // tp 1: 108,641,793,536 parameters (Scout is published as 109 B total).
    assert_eq!(m.weight_bytes_per_rank(1).0, 2 * 108_641_793_536);
    // KV: 8 heads / tp 4 = 2 × 256 × 48 × 2 = 49,152 B per token per rank.
    assert_eq!(m.kv_cell_bytes(4), 49_152);
    let fp = m.forward_pass(4, 1);
    assert_eq!(fp.layers[0].kv_window, Some(8192));
    assert_eq!(fp.layers[3].kv_window, None);
}

#[test]
fn llama4_maverick_interleaves_moe() {
    let m = spec(MAVERICK);
    // interleave_moe_layer_step 2: odd layers (i + 1 even) MoE with 128 experts, even layers dense 16384.
    assert!(matches!(m.layers[0], Ffn::Dense { intermediate: 16384 }));
    assert!(matches!(m.layers[1], Ffn::Moe(_)));
    assert_eq!(m.layers.iter().filter(|l| matches!(l, Ffn::Moe(_))).count(), 24);
    // tp 8: embedding = LM head 25,256 × 5120 × 2 = 258,621,440; attention (640 + 256) × 5120 + 5120 ×
    // 640 + 10,240 = 7,874,560 params = 15,749,120 B; expert 3 × 1024 × 5120 × 2 = 31,457,280; router
    // 128 × 5120 × 2 = 1,310,720; dense 3 × 2048 × 5120 × 2 = 62,914,560.
    // MoE layer 15,749,120 + 129 × 31,457,280 + 1,310,720 = 4,075,048,960; dense layer 78,663,680.
    // Vision at tp 8: 34 × 5,966,752 + (577 × 1408 + 5632 + 176 × 588 + 1408 + 512 × 5632 + 4096 × 512 +
    // 5120 × 4096) × 2 = 202,869,568 + 53,750,400 = 256,619,968.
    // Total 517,242,880 + 10,240 + 24 × (4,075,048,960 + 78,663,680) + 256,619,968 = 100,462,976,448 B.
    assert_eq!(m.weight_bytes_per_rank(8).0, 100_462_976_448);
    // tp 1: 401,583,781,376 parameters (Maverick is published as 400 B total).
    assert_eq!(m.weight_bytes_per_rank(1).0, 2 * 401_583_781_376);
    m.validate_tp(8).unwrap();
}

#[test]
fn mixtral_weights_and_kv() {
    let m = spec(MIXTRAL_8X7B);
    assert_eq!(m.arch, Architecture::Mixtral);
    // `sliding_window: null`: every layer full attention.
    assert_eq!((m.sliding_layers(), m.sliding_window), (0, None));
    // tp 2: embedding = LM head 16,000 × 4096 × 2 = 131,072,000 each; attention (2048 + 1024) × 4096 +
    // 4096 × 2048 + 8192 = 20,979,712 params = 41,959,424 B; expert 3 × 7168 × 4096 × 2 = 176,160,768;
    // router 8 × 4096 × 2 = 65,536. Layer 41,959,424 + 8 × 176,160,768 + 65,536 = 1,451,311,104;
    // × 32 + 262,144,000 + 8,192 = 46,704,107,520 B (= 46.70 B parameters at tp 1, as published).
    assert_eq!(m.weight_bytes_per_rank(2).0, 46_704_107_520);
    assert_eq!(m.weight_bytes_per_rank(1).0, 93_405_585_408);
    // KV at tp 2: 4 heads × 256 × 32 × 2 = 65,536.
    assert_eq!(m.kv_cell_bytes(2), 65_536);
    // A non-null window makes every layer slide (Mistral v0.1 style).
    let sw = edit(MIXTRAL_8X7B, |v| v["sliding_window"] = serde_json::json!(4096));
    let s = spec(&sw);
    assert_eq!((s.sliding_layers(), s.kv_layer_counts()), (32, vec![32]));
    let big = spec(MIXTRAL_8X22B);
    // 8x22B at tp 1: 140,620,634,112 parameters (141 B published).
    assert_eq!(big.weight_bytes_per_rank(1).0, 2 * 140_620_634_112);
}

#[test]
fn local_kv_reads_are_bounded_by_the_window() {
    // Decode at 100,000 tokens of context: local layers read at most their window/chunk of KV per
    // sequence, full layers the whole context.
    for (text, window) in [(GEMMA3_27B, 1024u64), (SCOUT, 8192)] {
        let m = spec(text);
        let fp = m.forward_pass(2, 1);
        for (i, l) in fp.layers.iter().enumerate() {
            if m.mixers[i].is_local() {
                assert_eq!(l.kv_window, Some(window), "layer {i}");
            } else {
                assert_eq!(l.kv_window, None, "layer {i}");
            }
        }
    }
}

#[test]
fn bad_local_configs_are_named() {
    let e = ModelSpec::from_config_json(
        &edit(SCOUT, |v| {
            v["text_config"]["layer_types"] = serde_json::json!(vec!["chunked_attention"; 48]);
            v["text_config"]
                .as_object_mut()
                .unwrap()
                .remove("attention_chunk_size");
        }),
        bf16(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("attention_chunk_size"), "{e}");
    let e = ModelSpec::from_config_json(
        &edit(MAVERICK, |v| {
            v["text_config"]
                .as_object_mut()
                .unwrap()
                .remove("intermediate_size_mlp");
        }),
        bf16(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("intermediate_size_mlp"), "{e}");
    let e = ModelSpec::from_config_json(
        &edit(GEMMA3_27B, |v| {
            v["vision_config"].as_object_mut().unwrap().remove("patch_size");
        }),
        bf16(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("vision_config.patch_size"), "{e}");
    let e = ModelSpec::from_config_json(
        &edit(GEMMA3_27B, |v| {
            v["text_config"]["sliding_window_pattern"] = serde_json::json!(0)
        }),
        bf16(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("sliding_window_pattern"), "{e}");
}

#[test]
fn gemma1_weights_and_kv() {
    let m = spec(GEMMA_2B);
    assert_eq!(m.arch, Architecture::Gemma);
    // Explicit head_dim 256 (= 2048 / 8 here too), 1 KV head (MQA), tied 256,000-row embedding, all
    // layers full attention.
    assert_eq!((m.head_dim, m.kv_heads, m.sliding_layers()), (256, 1, 0));
    assert!(m.tie_word_embeddings && !m.qk_norm);
    // tp 1: embedding 256,000 × 2048 = 524,288,000 + final norm 2048; per layer norms 2 × 2048 + qkv
    // (2048 + 512) × 2048 + o 2048 × 2048 + MLP 3 × 16,384 × 2048 = 110,104,576; × 18 = 1,981,882,368.
    // 2,506,172,416 parameters (Gemma-2B: 2.51 B) × 2 B.
    assert_eq!(m.weight_bytes_per_rank(1).0, 5_012_344_832);
    // tp 2: the single KV head is replicated: embedding 128,000 × 2048 × 2 = 524,288,000; layer (4096 +
    // (1024 + 512) × 2048 + 2048 × 1024 + 3 × 8192 × 2048) × 2 = 111,157,248; × 18 + 4096 =
    // 2,525,122,560.
    assert_eq!(m.weight_bytes_per_rank(2).0, 2_525_122_560);
    // KV: 1 head × 512 × 18 × 2 = 18,432 B at tp 1 and (replicated) at tp 2.
    assert_eq!((m.kv_cell_bytes(1), m.kv_cell_bytes(2)), (18_432, 18_432));
}

#[test]
fn gemma2_alternates_and_weights() {
    let m = spec(GEMMA2_9B);
    assert_eq!(m.arch, Architecture::Gemma2);
    // No layer_types: even layers slide (window 4096), odd ones full: 21 + 21.
    assert_eq!(m.kv_layer_counts(), vec![21, 21]);
    assert_eq!(
        (m.mixers[0], m.mixers[1]),
        (Mixer::SlidingAttention, Mixer::Attention)
    );
    assert_eq!(m.sliding_window, Some(4096));
    // tp 1: per layer 4 norms 14,336 + qkv (4096 + 4096) × 3584 + o 3584 × 4096 + MLP 3 × 14,336 × 3584
    // = 198,195,200; × 42 + embedding 917,504,000 + 3584 = 9,241,705,984 parameters (9.24 B published).
    assert_eq!(m.weight_bytes_per_rank(1).0, 2 * 9_241_705_984);
    assert_eq!(m.weight_bytes_per_rank(2).0, 9_242_311_680);
    // KV at tp 2: 4 heads × 512 × 42 × 2 = 172,032.
    assert_eq!(m.kv_cell_bytes(2), 172_032);
}

#[test]
fn mistral_weights_and_kv() {
    let m = spec(MISTRAL_7B);
    assert_eq!(m.arch, Architecture::Mistral);
    // v0.3: `sliding_window: null` → all full attention.
    assert_eq!((m.sliding_layers(), m.sliding_window), (0, None));
    // tp 1: 2 × 32,768 × 4096 + 4096 + 32 × (8192 + (4096 + 2048) × 4096 + 4096 × 4096 + 3 × 14,336 ×
    // 4096) = 7,248,023,552 parameters (7.25 B published).
    assert_eq!(m.weight_bytes_per_rank(1).0, 14_496_047_104);
    assert_eq!(m.weight_bytes_per_rank(2).0, 7_248_289_792);
    // KV at tp 1: 8 × 256 × 32 × 2 = 131,072.
    assert_eq!(m.kv_cell_bytes(1), 131_072);
    // v0.1's `sliding_window: 4096`: every layer slides, one attention type.
    let v01 = spec(&edit(MISTRAL_7B, |v| {
        v["sliding_window"] = serde_json::json!(4096)
    }));
    assert_eq!((v01.sliding_layers(), v01.kv_layer_counts()), (32, vec![32]));
}

#[test]
fn gemma3_text_only_class() {
    // Gemma3ForCausalLM: the text config at top level, no vision tower. The 27B text weights at tp 2 are
    // the multimodal total minus the SigLIP tower: 27,440,822,896 − 430,122,096 = 27,010,700,800.
    let text = edit(GEMMA3_27B, |v| {
        let mut t = v["text_config"].clone();
        t["architectures"] = serde_json::json!(["Gemma3ForCausalLM"]);
        *v = t;
    });
    let m = spec(&text);
    assert_eq!(
        (m.arch, m.has_vision, m.sliding_layers()),
        (Architecture::Gemma3, false, 52)
    );
    assert_eq!(m.weight_bytes_per_rank(2).0, 27_010_700_800);
}

// h5 (issue #16): Gemma-3 text configs that omit `head_dim` (the published gemma-3-12b-it does).
#[test]
fn gemma3_head_dim_defaults_to_256() {
    // gemma-3-12b-it's text_config has no head_dim: HF `Gemma3TextConfig` defaults it to 256, not
    // hidden / heads = 3840 / 16 = 240. KV cell at tp 1: 8 KV heads × 2 × 256 × 48 layers × 2 B =
    // 393,216 B (240 would give 368,640).
    let m = spec(include_str!(
        "../../../scenarios/models/gemma-3-12b-it/config.json"
    ));
    assert_eq!(m.kv_cell_bytes(1), 393_216);
    // An explicit head_dim still wins (the 27B: 128).
    let m27 = spec(GEMMA3_27B);
    assert_eq!(m27.kv_cell_bytes(1), 16 * 2 * 128 * 62 * 2);
}
