//! families14 (issue #17): InternVL (`InternVLChatModel`) by hand from the bundled `internvl3-1b`
//! preset: the Qwen2.5-0.5B-layout language model of `llm_config` lowered as Qwen2, InternViT-300M
//! and `mlp1` (`llm::internvl`).

use super::*;

const INTERNVL3_1B: &str = include_str!("../../../scenarios/models/internvl3-1b/config.json");

fn spec(text: &str) -> Result<ModelSpec, ModelError> {
    ModelSpec::from_config_json(text, Quantization::bf16())
}

fn with(f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(INTERNVL3_1B).unwrap();
    f(&mut v);
    v.to_string()
}

/// InternVL3-1B by hand (tolerance: none, integers).
///
/// Language model (Qwen2, 14 heads / 2 KV heads of 64, untied): a layer has norms 2·896 = 1,792;
/// q 896·896 + bias 896 = 803,712; k and v 128·896 + 128 = 114,816 each; o 896·896 = 802,816; SwiGLU
/// 3·4,864·896 = 13,074,432 → 14,912,384, × 24 = 357,897,216; final norm 896 → 357,898,112
/// non-embedding parameters (Qwen2.5-0.5B's card: "Number of Parameters (Non-Embedding): 0.36B");
/// embedding and LM head 151,674·896 = 135,899,904 each → 629,697,920.
///
/// InternViT-300M (LayerNorm, qkv bias): a block has norms 4·1,024 = 4,096; ls1/ls2 2,048; qkv
/// 3,072·1,024 + 3,072 = 3,148,800; proj 1,024² + 1,024 = 1,049,600; fc1 4,096·1,024 + 4,096 =
/// 4,198,400; fc2 1,024·4,096 + 1,024 = 4,195,328 → 12,598,272, × 24 = 302,358,528; class 1,024;
/// patch conv 1,024·3·14² + 1,024 = 603,136; positions (32² + 1)·1,024 = 1,049,600 → 304,012,288
/// (the "300M" of its name). mlp1: LayerNorm 2·4,096 = 8,192; 896·4,096 + 896 = 3,670,912; 896² + 896 =
/// 803,712 → 4,482,816.
///
/// Total 938,193,024: the InternVL3 paper's Table 1 "0.9B" for InternVL3-1B (as a public summary
/// copies it, find_string id 55794825236). The engines pad the vocabulary to 64 rows (151,680): 6
/// rows of 896 more in the embedding and in the head, so tp 1 holds 2 × 938,203,776 B.
#[test]
fn internvl3_1b_parameters_by_hand() {
    let s = spec(INTERNVL3_1B).unwrap();
    assert_eq!(s.arch, Architecture::Qwen2);
    assert!(s.has_vision && !s.tie_word_embeddings && s.attention_bias);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (24, 14, 2, 64));
    assert_eq!((s.hidden, s.dense_intermediate, s.vocab), (896, 4_864, 151_674));
    assert_eq!(s.context_len, Some(32_768));
    let v = s.vision.unwrap();
    assert_eq!(
        v.family,
        VisionFamily::InternVit {
            layer_norm: true,
            qkv_bias: true,
            qk_norm: false,
            whole_attention: false
        }
    );
    assert_eq!(v.sglang_fraction_dims, (24, 1_024));
    assert_eq!(s.weight_breakdown(1).vision, 2 * (304_012_288 + 4_482_816));
    let total: u64 = 629_697_920 + 304_012_288 + 4_482_816;
    assert_eq!(total, 938_193_024);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (total + 2 * 6 * 896));
    assert_eq!(s.weight_bytes_per_rank(1).0, 1_876_407_552);
    // tp 2. Text: embedding and head 75,840·896 = 67,952,640 each; a layer 1,792 + 401,856 +
    // 2 × 57,408 + 401,408 + 6,537,216 = 7,457,088, × 24 = 178,970,112; norm 896 → 314,876,288.
    // Vision: a block 4,096 + 2,048 + 1,572,864 + 1,536 + 524,288 + 1,024 + 2,097,152 + 2,048 +
    // 2,097,152 + 1,024 = 6,303,232, × 24 = 151,277,568; embeddings 1,024 + 603,136 + 1,049,600 and
    // the replicated mlp1 4,482,816 → 157,414,144.
    assert_eq!(s.weight_breakdown(2).vision, 2 * 157_414_144);
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * (314_876_288 + 157_414_144));
    // KV: 24 layers × 2 × 2 KV heads × 64 × 2 B = 12,288 B a token at tp 1, 6,144 at tp 2.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (12_288, 6_144));
    assert!(s.validate_tp(2).is_ok());
    // 14 query heads do not split over 4 ranks.
    assert!(s.validate_tp(4).is_err());
}

/// The language model is the `llm_config` tower lowered on its own: the same KV cell and decode
/// layers, and the weights less InternViT and mlp1.
#[test]
fn internvl_language_model_is_its_llm_config() {
    let s = spec(INTERNVL3_1B).unwrap();
    let v: serde_json::Value = serde_json::from_str(INTERNVL3_1B).unwrap();
    let mut text = v["llm_config"].clone();
    text["tie_word_embeddings"] = serde_json::json!(false);
    let t = spec(&text.to_string()).expect("llm_config lowers as Qwen2ForCausalLM");
    assert_eq!(t.arch, Architecture::Qwen2);
    assert_eq!(s.kv_cell_bytes(1), t.kv_cell_bytes(1));
    assert_eq!(
        s.weight_bytes_per_rank(1).0 - t.weight_bytes_per_rank(1).0,
        2 * (304_012_288 + 4_482_816)
    );
    assert_eq!(
        s.forward_pass(2, 8).layers.len(),
        t.forward_pass(2, 8).layers.len()
    );
}

/// The tower named by `llm_config.architectures` decides the architecture: an InternLM2 tower
/// lowers as InternLM2, an InternLM3 or Llama one as Llama, a Qwen3 one as Qwen3.
#[test]
fn internvl_tower_decides_the_architecture() {
    for (name, arch) in [
        ("InternLM2ForCausalLM", Architecture::InternLM2),
        ("LlamaForCausalLM", Architecture::Llama),
        ("InternLM3ForCausalLM", Architecture::Llama),
        ("Qwen3ForCausalLM", Architecture::Qwen3),
    ] {
        let t = with(|v| {
            v["llm_config"]["architectures"] = serde_json::json!([name]);
            // An explicit head_dim (896 / 14), as the Qwen3 configs carry it.
            v["llm_config"]["head_dim"] = serde_json::json!(64);
        });
        let s = spec(&t).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(s.arch, arch, "{name}");
        assert!(s.has_vision, "{name}");
    }
}

/// What tpsim refuses in an InternVL config, each with the key and what was expected.
#[test]
fn internvl_refusals() {
    let err = |t: String| spec(&t).unwrap_err().to_string();
    // families26: GptOssForCausalLM and Qwen3MoeForCausalLM are lowered; another tower is refused.
    let e = err(with(|v| {
        v["llm_config"]["architectures"] = serde_json::json!(["MistralForCausalLM"])
    }));
    assert!(
        e.contains("llm_config.architectures") && e.contains("MistralForCausalLM"),
        "{e}"
    );
    let e = err(with(|v| {
        v.as_object_mut().unwrap().remove("llm_config");
    }));
    assert!(e.contains("llm_config"), "{e}");
    let e = err(with(|v| v["select_layer"] = serde_json::json!(-4)));
    assert!(e.contains("select_layer") && e.contains("vLLM"), "{e}");
    let e = err(with(|v| v["downsample_ratio"] = serde_json::json!(0.25)));
    assert!(e.contains("downsample_ratio"), "{e}");
    let e = err(with(|v| {
        v["vision_config"]["norm_type"] = serde_json::json!("batch_norm")
    }));
    assert!(e.contains("vision_config.norm_type"), "{e}");
    let e = err(with(|v| {
        v["vision_config"].as_object_mut().unwrap().remove("image_size");
    }));
    assert!(e.contains("vision_config.image_size"), "{e}");
    // families26: InternViT-6B's 25 heads at tp 2 are served (SGLang pads dummy heads, vLLM keeps
    // the attention whole; `tests_families26`), a non-InternViT tower's are still refused (tests.rs).
    let s = spec(&with(|v| {
        v["vision_config"]["hidden_size"] = serde_json::json!(3_200);
        v["vision_config"]["num_attention_heads"] = serde_json::json!(25);
        v["vision_config"]["intermediate_size"] = serde_json::json!(12_800);
    }))
    .unwrap();
    assert!(s.validate_tp(2).is_ok());
}

/// RMSNorm blocks without qkv bias but with q/k norms (InternViT-6B's layout): a block holds 1,024 +
/// 2,048 (norms, layer scales) + 3,145,728 (qkv) + 2,048 (q/k norms) + 1,049,600 + 4,198,400 +
/// 4,195,328 = 12,594,176 at tp 1, 3,072 parameters fewer than the LayerNorm + bias block
/// (12,598,272: −2,048 norm biases −3,072 qkv bias +2,048 q/k norms); × 24 = −73,728.
#[test]
fn internvit_rms_norm_and_qk_norm_layout() {
    let base = spec(INTERNVL3_1B).unwrap().weight_breakdown(1).vision;
    let s = spec(&with(|v| {
        v["vision_config"]["norm_type"] = serde_json::json!("rms_norm");
        v["vision_config"]["qkv_bias"] = serde_json::json!(false);
        v["vision_config"]["qk_normalization"] = serde_json::json!(true);
    }))
    .unwrap();
    assert_eq!(base - s.weight_breakdown(1).vision, 2 * 24 * 3_072);
}
