//! families7 (issue #17): GLM-4.5V (`Glm4vMoeForConditionalGeneration`) by hand from the bundled
//! preset and the engines' model files (SGLang 0.5.9 `models/glm4v_moe.py` + `glm4v.py`, vLLM
//! 0.11.0 `models/glm4_1v.py`); see `llm::glm4v`.

use super::test_util::spec;
use super::*;

const GLM45V: &str = include_str!("../../../scenarios/models/glm-4.5v/config.json");

/// The fp32 `e_score_correction_bias` elements (45 MoE layers × 128 experts): 4 bytes each, the
/// rest 2.
const FP32_ELEMENTS: u64 = 45 * 128;

/// GLM-4.5V's parameters by hand: the checkpoint's total as a public dump of its weight list gives it
/// (find_string id 62538297598: "参数总量: 107,710,933,120", 46 safetensors files, 18,106 tensors).
#[test]
fn glm45v_parameters_by_hand() {
    let s = spec(GLM45V).expect("preset lowers");
    assert_eq!(s.arch, Architecture::Glm4vMoe);
    assert_eq!(
        architecture_of("Glm4vMoeForConditionalGeneration"),
        Some(Architecture::Glm4vMoe)
    );
    assert!(s.has_vision && s.attention_bias && !s.qk_norm && s.routing_bias && !s.tie_word_embeddings);
    assert_eq!(
        s.moe,
        Some(MoeShape {
            n_routed_experts: 128,
            num_experts_per_tok: 8,
            moe_intermediate: 1_408,
            n_shared_experts: 1,
        })
    );
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (46, 96, 8, 128));
    assert_eq!(s.num_nextn_predict_layers, 0, "GLM-4.5V ships no MTP layer");
    // vLLM's RoPE cache covers 128 × partial_rotary_factor 0.5 = 64 dims (`glm4v::vllm_rotary_dim`).
    assert_eq!(s.rotary_dim, Some(64));
    // Text, tp 1. Embedding and untied head 2 × 151,552 × 4,096 = 1,241,513,984; final norm 4,096.
    // Attention a layer: norms 8,192; q 12,288 × 4,096 + bias 12,288; k, v 1,024 × 4,096 + bias
    // 1,024 each; o 4,096 × 12,288 → 109,074,432, × 46 = 5,017,423,872. Layer 0 dense MLP 3 × 10,944
    // × 4,096 = 134,479,872. MoE layers: 128 experts × 3 × 1,408 × 4,096 = 2,214,592,512, shared
    // 17,301,504, router 524,288, score bias 128 → 2,232,418,432, × 45 = 100,458,829,440.
    // Text: 106,852,251,264.
    // Vision (`llm::glm4v` table): blocks 24 × (3,072 + 4,608 × 1,536 + 1,536² + 2 × 4,096 × 1,536
    // + 1,536 × 4,096) = 679,550,976; Conv3d 1,536 × 1,176 + 1,536 = 1,807,872; positions 576 ×
    // 1,536 = 884,736; two norms 3,072; downsample 4,096 × 1,536 × 4 + 4,096 = 25,169,920; merger
    // 4,096² + 8,192 + 3 × 10,944 × 4,096 = 151,265,280 → 858,681,856.
    let total: u64 = 106_852_251_264 + 858_681_856;
    assert_eq!(total, 107_710_933_120);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 2 * FP32_ELEMENTS);
    // tp 4. Text: embedding + head 2 × 37,888 × 4,096 = 310,378,496; norm 4,096; attention (q 3,072,
    // k/v 256 rows) 27,274,752 × 46 = 1,254,638,592; dense 3 × 2,736 × 4,096 = 33,619,968; MoE
    // (experts 128 × 3 × 352 × 4,096, shared 3 × 352 × 4,096, router and bias replicated)
    // 558,497,920 × 45 = 25,132,406,400 → 26,731,047,552. Vision: blocks 24 × 7,080,960 =
    // 169,943,040; replicated 1,807,872 + 884,736 + 3,072 + 25,169,920; merger 16,777,216 + 8,192 +
    // 3 × 2,736 × 4,096 = 50,405,376 → 248,214,016.
    assert_eq!(
        s.weight_bytes_per_rank(4).0,
        2 * (26_731_047_552 + 248_214_016) + 2 * FP32_ELEMENTS
    );
    // KV: 46 layers × 2 × 8 KV heads × 128 × 2 B = 188,416 at tp 1; 47,104 at tp 4 (both engines'
    // plain GQA pool over every layer).
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(4)), (188_416, 47_104));
    assert!(s.validate_tp(4).is_ok());
    // 12 vision heads at tp 8: both engines assert ("12 is not divisible by 8").
    let e = s.validate_tp(8).unwrap_err().to_string();
    assert!(
        e.contains("vision tower's 12 heads are not divisible by tp 8"),
        "{e}"
    );
    // One dense layer then MoE with a shared expert: two all-reduces a layer plus the head's gather.
    let p = s.forward_pass(4, 4);
    assert_eq!(p.allreduces, 2 * 46 + 1);
}

/// The text tower is GLM-4.5-Air's `Glm4MoeForCausalLM`: the same `text_config` lowered on its own
/// gives the same KV cell and the weights less the tower.
#[test]
fn glm45v_text_tower_is_glm4_moe() {
    let s = spec(GLM45V).unwrap();
    let v: serde_json::Value = serde_json::from_str(GLM45V).unwrap();
    let mut text = v["text_config"].clone();
    text["architectures"] = serde_json::json!(["Glm4MoeForCausalLM"]);
    text["tie_word_embeddings"] = serde_json::json!(false);
    let t = spec(&text.to_string()).expect("the text tower lowers as Glm4MoeForCausalLM");
    assert_eq!(t.arch, Architecture::Glm4Moe);
    for tp in [1, 2, 4] {
        assert_eq!(s.kv_cell_bytes(tp), t.kv_cell_bytes(tp));
    }
    assert_eq!(
        s.weight_bytes_per_rank(1).0 - t.weight_bytes_per_rank(1).0,
        2 * 858_681_856
    );
    assert_eq!(
        s.forward_pass(2, 8).layers.len(),
        t.forward_pass(2, 8).layers.len()
    );
}

/// What tpsim refuses in a GLM-4.5V config, each with the key and what was expected.
#[test]
fn glm45v_refusals() {
    let err = |text: &str| spec(text).unwrap_err().to_string();
    let v: serde_json::Value = serde_json::from_str(GLM45V).unwrap();
    // A biased vision qkv: SGLang builds it, vLLM does not.
    let mut b = v.clone();
    b["vision_config"]["attention_bias"] = serde_json::json!(true);
    let e = err(&b.to_string());
    assert!(
        e.contains("vision_config.attention_bias") && e.contains("vLLM 0.11.0"),
        "{e}"
    );
    // The merger must feed the text width.
    let mut o = v.clone();
    o["vision_config"]["out_hidden_size"] = serde_json::json!(5120);
    assert!(err(&o.to_string()).contains("vision_config.out_hidden_size"));
    // Missing pieces name their key.
    let mut m = v.clone();
    m["vision_config"].as_object_mut().unwrap().remove("image_size");
    assert!(err(&m.to_string()).contains("vision_config.image_size"));
    let mut r = v.clone();
    r["text_config"]["partial_rotary_factor"] = serde_json::json!(1.5);
    assert!(err(&r.to_string()).contains("text_config.partial_rotary_factor"));
    let mut n = v.clone();
    n.as_object_mut().unwrap().remove("text_config");
    assert!(err(&n.to_string()).contains("text_config"));
    // A merger width that tp does not divide.
    let mut w = v;
    w["vision_config"]["intermediate_size"] = serde_json::json!(10946);
    let s = spec(&w.to_string()).unwrap();
    let e = s.validate_tp(4).unwrap_err().to_string();
    assert!(e.contains("vision merger's MLP width 10946"), "{e}");
}
