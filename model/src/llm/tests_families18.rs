//! families18 (issue #17): GLM-4.1V (`Glm4vForConditionalGeneration`) by hand from the bundled
//! `glm-4.1v-9b-thinking` preset: GLM-4-9B-0414's dense text tower and GLM-4.5V's GLM-4V ViT
//! (`llm::glm4v`).

use super::test_util::spec;
use super::*;

const GLM41V: &str = include_str!("../../../scenarios/models/glm-4.1v-9b-thinking/config.json");

fn with(f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(GLM41V).unwrap();
    f(&mut v);
    v.to_string()
}

/// GLM-4.1V-9B-Thinking by hand (tolerance: none, integers).
///
/// Text tower (GLM-4-0414 layer, 32 heads / 2 KV heads of 128, QKV bias, untied): a layer has four
/// norms 4·4,096 = 16,384; qkv (4,096 + 2·256)·4,096 = 18,874,368 + bias 4,608; o 4,096² =
/// 16,777,216; SwiGLU 3·13,696·4,096 = 168,296,448 → 203,969,024, × 40 = 8,158,760,960; embedding
/// and LM head 151,552·4,096 = 620,756,992 each; final norm 4,096 → 9,400,279,040.
///
/// ViT (hidden 1,536, block SwiGLU of `out_hidden_size` 4,096): a block has norms 2·1,536 = 3,072;
/// qkv 3·1,536² = 7,077,888; proj 1,536² = 2,359,296; gate_up 2·4,096·1,536 = 12,582,912; down
/// 4,096·1,536 = 6,291,456 → 28,314,624, × 24 = 679,550,976. Conv3d 1,536·3·2·14² = 1,806,336 +
/// bias 1,536; position table (336 / 14)² = 576 × 1,536 = 884,736; post_conv / post norms 3,072;
/// downsample 4,096·1,536·4 = 25,165,824 + bias 4,096; merger proj 4,096² = 16,777,216, LayerNorm
/// 8,192, gate_up 2·13,696·4,096 = 112,197,632, down 56,098,816 → 892,498,432.
///
/// Total 10,292,777,472: the "9B" of the name (a rounded class, not an exact published count).
#[test]
fn glm41v_9b_parameters_by_hand() {
    let s = spec(GLM41V).unwrap();
    assert_eq!(s.arch, Architecture::Glm4v);
    assert!(s.has_vision && !s.tie_word_embeddings && s.attention_bias);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (40, 32, 2, 128));
    assert_eq!(
        (s.hidden, s.dense_intermediate, s.vocab),
        (4_096, 13_696, 151_552)
    );
    assert_eq!(s.context_len, Some(65_536));
    // vLLM 0.11.0 `glm4.py`: a cos/sin cache over 128 × 0.5 = 64.
    assert_eq!(s.rotary_dim, Some(64));
    let v = s.vision.unwrap();
    assert_eq!(v.family, VisionFamily::Glm4vVit);
    assert_eq!(
        (v.layers, v.hidden, v.intermediate, v.heads, v.patch),
        (24, 1_536, 4_096, 12, 14)
    );
    assert_eq!((v.merge, v.text_hidden, v.projector_input), (4, 4_096, 13_696));
    assert_eq!(s.weight_breakdown(1).vision, 2 * 892_498_432);
    let total: u64 = 9_400_279_040 + 892_498_432;
    assert_eq!(total, 10_292_777_472);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total);
    // tp 2. Text: embedding and head 75,776·4,096 = 310,378,496 each; a layer 16,384 + 2,304·4,096
    // (9,437,184) + 2,304 + 4,096·2,048 (8,388,608) + 3·6,848·4,096 (84,148,224) = 101,992,704,
    // × 40 = 4,079,708,160; norm 4,096 → 4,700,469,248. Vision: a block 3,072 + 2,304·1,536
    // (3,538,944) + 1,536·768 (1,179,648) + 4,096·1,536 (6,291,456) + 1,536·2,048 (3,145,728) =
    // 14,158,848, × 24 = 339,812,352; the replicated parts 1,806,336 + 1,536 + 884,736 + 3,072 +
    // 25,165,824 + 4,096 + 16,777,216 + 8,192 = 44,651,008; merger gate_up 13,696·4,096 = 56,098,816,
    // down 4,096·6,848 = 28,049,408 → 468,611,584.
    assert_eq!(s.weight_breakdown(2).vision, 2 * 468_611_584);
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * (4_700_469_248 + 468_611_584));
    // KV: 40 layers × 2 × 2 KV heads × 128 × 2 B = 40,960 B a token at tp 1, 20,480 at tp 2 (one KV
    // head a rank).
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (40_960, 20_480));
    assert!(s.validate_tp(4).is_ok());
    // The tower's 12 heads do not split over 8 ranks (both engines assert it).
    assert!(s.validate_tp(8).is_err());
}

/// The text keys may sit under `text_config` (transformers ≥ 4.57 re-saves): the same model.
#[test]
fn glm41v_nested_text_config_is_the_same_model() {
    let nested = with(|v| {
        let o = v.as_object_mut().unwrap();
        let mut text = serde_json::Map::new();
        for k in [
            "attention_bias",
            "hidden_size",
            "intermediate_size",
            "max_position_embeddings",
            "num_attention_heads",
            "num_hidden_layers",
            "num_key_value_heads",
            "vocab_size",
            "partial_rotary_factor",
            "tie_word_embeddings",
            "torch_dtype",
        ] {
            text.insert(k.into(), o.remove(k).unwrap());
        }
        o.insert("text_config".into(), serde_json::Value::Object(text));
    });
    let a = spec(GLM41V).unwrap();
    let b = spec(&nested).unwrap();
    assert_eq!(a.weight_bytes_per_rank(2).0, b.weight_bytes_per_rank(2).0);
    assert_eq!(a.kv_cell_bytes(2), b.kv_cell_bytes(2));
}

/// Refusals: no `attention_bias` (SGLang defaults it to true, vLLM to false), and the tower's
/// `attention_bias = true` (the GLM-4.5V rule, shared).
#[test]
fn glm41v_refusals_name_the_key() {
    let e = spec(&with(|v| {
        v.as_object_mut().unwrap().remove("attention_bias");
    }))
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("`attention_bias`") && e.contains("SGLang 0.5.9"),
        "{e}"
    );
    let e = spec(&with(|v| v["vision_config"]["attention_bias"] = true.into()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("vision_config.attention_bias"), "{e}");
    // attention_bias false is read as written (no q/k/v bias): 4,608 fewer parameters a layer.
    let nb = spec(&with(|v| v["attention_bias"] = false.into())).unwrap();
    assert!(!nb.attention_bias);
    assert_eq!(
        spec(GLM41V).unwrap().weight_bytes_per_rank(1).0 - nb.weight_bytes_per_rank(1).0,
        2 * 40 * 4_608
    );
}

const AFM_4_5B: &str = include_str!("../../../scenarios/models/afm-4.5b/config.json");

fn afm_with(f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(AFM_4_5B).unwrap();
    f(&mut v);
    v.to_string()
}

/// Arcee AFM-4.5B by hand (exact integers).
///
/// Layer: q 2,560 × 2,560 = 6,553,600; k + v 2 × 4 × 128 × 2,560 = 2,621,440; o 6,553,600; non-gated
/// MLP up + down 2 × 18,432 × 2,560 = 94,371,840; two RMSNorms 5,120 → 110,105,600, × 36 =
/// 3,963,801,600. Embedding and untied head 128,004 × 2,560 = 327,690,240 each; final norm 2,560.
/// Total **4,619,184,640** (the "4.5B" of the name; no published exact count was found). The engines
/// pad the vocabulary to 128,064 (64 × 2,001): 60 rows more in each of the two → 4,619,491,840 loaded
/// at tp 1.
#[test]
fn afm_4_5b_parameters_by_hand() {
    let s = spec(AFM_4_5B).unwrap();
    assert_eq!(s.arch, Architecture::Arcee);
    assert!(!s.attention_bias && !s.tie_word_embeddings && !s.qk_norm && !s.has_vision);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (36, 20, 4, 128));
    assert_eq!(
        (s.hidden, s.dense_intermediate, s.vocab),
        (2_560, 18_432, 128_004)
    );
    let total: u64 = 3_963_801_600 + 2 * 327_690_240 + 2_560;
    assert_eq!(total, 4_619_184_640);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (total + 2 * 60 * 2_560));
    // tp 2: q 1,280 × 2,560 = 3,276,800; k + v 2 × 256 × 2,560 = 1,310,720; o 3,276,800; up + down
    // 2 × 9,216 × 2,560 = 47,185,920; norms 5,120 → 55,055,360, × 36 = 1,981,992,960; embedding and
    // head 2 × 64,032 × 2,560 = 327,843,840; final norm 2,560 → 2,309,839,360 × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 2_309_839_360);
    // KV cell: 36 layers × 4 KV heads × 2 × 128 × 2 B = 73,728 at tp 1; 36,864 at tp 2.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (73_728, 36_864));
    assert!(s.validate_tp(4).is_ok());
    // 20 query heads do not split over 8 ranks.
    assert!(s.validate_tp(8).is_err());
}

/// Refusals name the key: another activation (both engines raise), a tied head (SGLang never ties,
/// vLLM does), biases (the engines read different keys).
#[test]
fn afm_refusals_name_the_key() {
    let e = spec(&afm_with(|v| v["hidden_act"] = "silu".into()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("hidden_act") && e.contains("only supports 'relu2'"),
        "{e}"
    );
    let e = spec(&afm_with(|v| v["tie_word_embeddings"] = true.into()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tie_word_embeddings") && e.contains("Arcee does not tie"),
        "{e}"
    );
    for key in ["attention_bias", "bias", "mlp_bias"] {
        let e = spec(&afm_with(|v| v[key] = true.into())).unwrap_err().to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
}
