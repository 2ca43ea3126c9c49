//! families16 (issue #17): Qwen2-VL (`Qwen2VLForConditionalGeneration`) by hand from the bundled
//! `qwen2-vl-7b` preset: the Qwen2-7B-layout text tower and the Qwen2-VL ViT (`llm::vlm`).

use super::*;

const QWEN2_VL_7B: &str = include_str!("../../../scenarios/models/qwen2-vl-7b/config.json");

fn spec(text: &str) -> Result<ModelSpec, ModelError> {
    ModelSpec::from_config_json(text, Quantization::bf16())
}

fn with(f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(QWEN2_VL_7B).unwrap();
    f(&mut v);
    v.to_string()
}

/// Qwen2-VL-7B by hand (tolerance: none, integers).
///
/// Text tower (Qwen2, 28 heads / 4 KV heads of 128, untied): a layer has norms 2·3,584 = 7,168; qkv
/// (3,584 + 2·512)·3,584 = 16,515,072 + bias 4,608; o 3,584² = 12,845,056; SwiGLU 3·18,944·3,584 =
/// 203,685,888 → 233,057,792, × 28 = 6,525,618,176; embedding and LM head 152,064·3,584 =
/// 544,997,376 each; final norm 3,584 → 7,615,616,512.
///
/// ViT (embed_dim 1,280, MLP 1,280 × 4 = 5,120): a block has LayerNorms 4·1,280 = 5,120; qkv
/// 3,840·1,280 + 3,840 = 4,919,040; proj 1,280² + 1,280 = 1,639,680; fc1 5,120·1,280 + 5,120 =
/// 6,558,720; fc2 1,280·5,120 + 1,280 = 6,554,880 → 19,677,440, × 32 = 629,678,080; Conv3d
/// 1,280·3·2·14·14 = 1,505,280; merger ln_q 2·1,280 = 2,560, 5,120² + 5,120 = 26,219,520, 3,584·5,120
/// + 3,584 = 18,353,664 → 44,575,744. Vision 675,759,104.
///
/// Total 8,291,375,616: the Hub's "8.29B" for Qwen/Qwen2-VL-7B-Instruct.
#[test]
fn qwen2_vl_7b_parameters_by_hand() {
    let s = spec(QWEN2_VL_7B).unwrap();
    assert_eq!(s.arch, Architecture::Qwen2Vl);
    assert!(s.has_vision && !s.tie_word_embeddings && s.attention_bias);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (28, 28, 4, 128));
    assert_eq!(
        (s.hidden, s.dense_intermediate, s.vocab),
        (3_584, 18_944, 152_064)
    );
    let v = s.vision.unwrap();
    assert_eq!(v.family, VisionFamily::Qwen2Vit);
    assert_eq!(
        (v.layers, v.hidden, v.intermediate, v.heads, v.patch),
        (32, 1_280, 5_120, 16, 14)
    );
    assert_eq!((v.merge, v.text_hidden, v.temporal_patch), (4, 3_584, 6));
    // SGLang's `getattr(vision_config, "num_hidden_layers", 24)` and `hidden_size`: the key is
    // `depth` (→ 24) and `hidden_size` is the merger's output, 3,584.
    assert_eq!(v.sglang_fraction_dims, (24, 3_584));
    assert_eq!(s.weight_breakdown(1).vision, 2 * 675_759_104);
    let total: u64 = 7_615_616_512 + 675_759_104;
    assert_eq!(total, 8_291_375_616);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total);
    // tp 2. Text: embedding and head 76,032·3,584 = 272,498,688 each; a layer 7,168 + 2,304·3,584
    // (8,257,536) + 2,304 + 3,584·1,792 (6,422,528) + 3·9,472·3,584 (101,842,944) = 116,532,480,
    // × 28 = 3,262,909,440; norm 3,584 → 3,807,910,400. Vision: a block 5,120 + 1,920·1,280
    // (2,457,600) + 1,920 + 1,280·640 (819,200) + 1,280 + 2,560·1,280 (3,276,800) + 2,560 +
    // 1,280·2,560 (3,276,800) + 1,280 = 9,842,560, × 32 = 314,961,920; Conv3d 1,505,280; merger
    // 2,560 + 2,560·5,120 (13,107,200) + 2,560 + 3,584·2,560 (9,175,040) + 3,584 = 22,290,944 →
    // 338,758,144.
    assert_eq!(s.weight_breakdown(2).vision, 2 * 338_758_144);
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * (3_807_910_400 + 338_758_144));
    // KV: 28 layers × 2 × 4 KV heads × 128 × 2 B = 57,344 B a token at tp 1, 28,672 at tp 2.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (57_344, 28_672));
    assert!(s.validate_tp(4).is_ok());
    // 28 query heads do not split over 8 ranks.
    assert!(s.validate_tp(8).is_err());
}

/// Qwen2-VL-2B: the 7B file with Qwen2-1.5B's text sizes (hidden 1,536, MLP 8,960, 12 heads, 2 KV
/// heads, vocabulary 151,936, tied head) and the merger to 1,536 (its `vision_config.hidden_size`).
///
/// Text: a layer 2·1,536 + (1,536 + 512)·1,536 (3,145,728) + 2,048 + 1,536² (2,359,296) +
/// 3·8,960·1,536 (41,287,680) = 46,797,824, × 28 = 1,310,339,072; embedding 151,936·1,536 =
/// 233,373,696 (tied: once); norm 1,536 → 1,543,714,304. Vision: blocks and Conv3d as the 7B's
/// (631,183,360) + merger 2,560 + 26,219,520 + 1,536·5,120 + 1,536 (7,865,856) = 34,087,936 →
/// 665,271,296. Total 2,208,985,600: "Parameters 2.21" (billions) on the Hub-mirroring page
/// ai-nexus-293.pages.dev/model/huggingface:qwen:qwen2-vl-2b-instruct (tolerance: its rounding,
/// ±0.005 B).
#[test]
fn qwen2_vl_2b_parameters_by_hand() {
    let text = with(|v| {
        v["hidden_size"] = 1536.into();
        v["intermediate_size"] = 8960.into();
        v["num_attention_heads"] = 12.into();
        v["num_key_value_heads"] = 2.into();
        v["vocab_size"] = 151_936.into();
        v["tie_word_embeddings"] = true.into();
        v["vision_config"]["hidden_size"] = 1536.into();
    });
    let s = spec(&text).unwrap();
    assert!(s.tie_word_embeddings);
    assert_eq!(s.weight_breakdown(1).vision, 2 * 665_271_296);
    let total: u64 = 1_543_714_304 + 665_271_296;
    assert_eq!(total, 2_208_985_600);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total);
    assert!((total as f64 / 1e9 - 2.21).abs() <= 0.005);
    // 12 query heads split over 2 and 4 ranks (the 2 KV heads replicated at 4), not over 8.
    assert!(s.validate_tp(4).is_ok());
    assert!(s.validate_tp(8).is_err());
}

/// Keys the engines build differently, or that the tower cannot be read without, are refused with
/// the key named.
#[test]
fn qwen2_vl_refusals_name_the_key() {
    let e = spec(&with(|v| v["vision_config"]["spatial_merge_size"] = 1.into())).unwrap_err();
    let m = e.to_string();
    assert!(
        m.contains("vision_config.spatial_merge_size") && m.contains("2×2"),
        "{m}"
    );
    let e = spec(&with(|v| {
        v["vision_config"].as_object_mut().unwrap().remove("mlp_ratio");
    }))
    .unwrap_err();
    assert!(e.to_string().contains("vision_config.mlp_ratio"), "{e}");
    let e = spec(&with(|v| v["vision_config"]["num_heads"] = 12.into())).unwrap_err();
    assert!(
        e.to_string()
            .contains("a divisor of vision_config.embed_dim (1280)"),
        "{e}"
    );
    let e = spec(&with(|v| {
        v.as_object_mut().unwrap().remove("vision_config");
    }))
    .unwrap_err();
    assert!(e.to_string().contains("vision_config"), "{e}");
    // A fractional ratio is read as the engines do, `int(embed_dim * mlp_ratio)`: 1,280 × 2.5 = 3,200.
    let s = spec(&with(|v| v["vision_config"]["mlp_ratio"] = 2.5.into())).unwrap();
    assert_eq!(s.vision.unwrap().intermediate, 3_200);
}

/// The text tower is Qwen2's: lowered as a `Qwen2ForCausalLM` file of the same keys, the same KV
/// cell and the same text weights (the vision tower excepted).
#[test]
fn qwen2_vl_text_tower_is_qwen2() {
    let s = spec(QWEN2_VL_7B).unwrap();
    let q = spec(&with(|v| {
        v["architectures"] = serde_json::json!(["Qwen2ForCausalLM"]);
        v["model_type"] = "qwen2".into();
        v.as_object_mut().unwrap().remove("vision_config");
    }))
    .unwrap();
    assert_eq!(q.arch, Architecture::Qwen2);
    for tp in [1, 2, 4] {
        assert_eq!(s.kv_cell_bytes(tp), q.kv_cell_bytes(tp));
        assert_eq!(
            s.weight_bytes_per_rank(tp).0 - s.weight_breakdown(tp).vision,
            q.weight_bytes_per_rank(tp).0
        );
    }
}
