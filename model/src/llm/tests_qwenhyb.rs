//! qwenhyb (issue #17): the dense Qwen3.5 (`Qwen3_5ForConditionalGeneration`) and Qwen3-Next
//! (`Qwen3NextForCausalLM`) lowered from the bundled presets. Every number is computed by hand in the
//! comment beside it from the published config.json (scenarios/models/*/README.md) and SGLang
//! `models/qwen3_next.py` / `models/qwen3_5.py` sharding (`llm::hybrid` module table).

use super::*;

const QWEN35_9B: &str = include_str!("../../../scenarios/models/qwen3.5-9b/config.json");
const QWEN3_NEXT: &str = include_str!("../../../scenarios/models/qwen3-next-80b-a3b/config.json");

fn bf16() -> Quantization {
    serde_json::from_str(r#"{"dtype":"bf16","kv_cache_dtype":"auto"}"#).expect("bf16 quant")
}

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, bf16()).expect("preset parses")
}

#[test]
fn qwen35_9b_is_a_dense_hybrid() {
    let m = spec(QWEN35_9B);
    assert_eq!(m.arch, Architecture::Qwen35);
    assert_eq!((m.num_layers, m.hidden, m.vocab), (32, 4096, 248_320));
    assert_eq!((m.kv_layers(), m.linear_layers()), (8, 24));
    assert!(m.moe.is_none() && m.layers.iter().all(|l| *l == Ffn::Dense { intermediate: 12_288 }));
    assert!(m.attn_output_gate && m.qk_norm && !m.tie_word_embeddings);
    assert_eq!(m.num_nextn_predict_layers, 1, "mtp_num_hidden_layers");
    // KV cell at tp 2: 8 full layers × 4 / 2 KV heads × 256 × 2 (K, V) × 2 B = 16,384 B.
    assert_eq!(m.kv_cell_bytes(2), 16_384);
    // State per request at tp 2: conv (2 · 2048 + 4096) / 2 = 4096 channels × 3 × 2 B = 24,576 plus
    // SSM 32 / 2 × 128 × 128 × 4 B = 1,048,576, × 24 layers = 25,755,648.
    assert_eq!(m.linear_state_bytes_per_req(2), 25_755_648);
    // The flat text-only spelling lowers the same way.
    let v: serde_json::Value = serde_json::from_str(QWEN35_9B).unwrap();
    let mut flat = v["text_config"].clone();
    flat["architectures"] = serde_json::json!(["Qwen3_5ForCausalLM"]);
    let f = spec(&flat.to_string());
    assert_eq!(
        (f.arch, f.mixers.clone()),
        (Architecture::Qwen35, m.mixers.clone())
    );
    assert!(!f.has_vision && m.has_vision);
}

#[test]
fn qwen35_9b_weights_per_rank_at_tp2() {
    // Per rank at tp 2, in parameters (bf16 = 2 B; A_log fp32 = 4 B):
    // embed + lm_head: 2 × 248,320 / 2 × 4096 = 1,017,118,720; final norm 4096.
    // Linear layer: norms 8192; in_proj_qkvz (2·2048 + 2·4096) / 2 × 4096 = 25,165,824; in_proj_ba
    //   2 × 16 × 4096 = 131,072; conv1d 4096 × 4 = 16,384; dt_bias 16; gated norm 128; out_proj
    //   4096 × 2048 = 8,388,608; MLP 3 × 4096 × 6144 = 75,497,472 → 109,207,696 × 2 B + A_log 16 × 4 B
    //   = 218,415,456 B; × 24 = 5,241,970,944.
    // Full layer: norms 8192; q_proj (with the gate) 8 × 256 × 2 × 4096 = 16,777,216; k, v 2 × 512 ×
    //   4096 = 4,194,304; o_proj 4096 × 2048 = 8,388,608; q/k norms 512; MLP 75,497,472 →
    //   104,866,304 × 2 B = 209,732,608; × 8 = 1,677,860,864.
    // Language model: 2,034,237,440 + 8,192 + 5,241,970,944 + 1,677,860,864 = 8,954,077,440 B
    // (8.339 GiB).
    // Vision tower (`vlm::qwen3_vit`, h 1152, MLP 4304, 27 blocks, out 4096) per rank:
    //   block: LayerNorms 4 × 1152 = 4608; qkv 1728 × 1152 + 1728 = 1,992,384; proj 1152 × 576 +
    //   1152 = 664,704; fc1 2152 × 1152 + 2152 = 2,481,256; fc2 1152 × 2152 + 1152 = 2,480,256 →
    //   7,623,208; × 27 = 205,826,616.
    //   patch Conv3d 1152 × (3 · 2 · 16 · 16) + 1152 = 1,770,624; pos_embed 2304 × 1152 = 2,654,208.
    //   merger: LayerNorm 2304; fc1 2304 × 4608 + 2304 = 10,619,136; fc2 4096 × 2304 + 4096 =
    //   9,441,280 → 20,062,720.
    //   → 230,314,168 × 2 B = 460,628,336 B (0.429 GiB).
    // Total: 9,414,705,776 B = 8.768 GiB.
    let m = spec(QWEN35_9B);
    let v = m.vision.expect("the Qwen3-VL tower");
    assert_eq!(v.family, VisionFamily::Qwen3Vit);
    assert!(m.has_vision);
    assert_eq!(
        (
            v.layers,
            v.hidden,
            v.intermediate,
            v.pos_emb_cells,
            v.merge,
            v.text_hidden,
            v.temporal_patch
        ),
        (27, 1152, 4304, 2304, 4, 4096, 6)
    );
    assert_eq!(m.weight_bytes_per_rank(2).0, 9_414_705_776);
    // Without its vision_config (or as the text-only CausalLM) only the language model counts.
    let mut text_only: serde_json::Value = serde_json::from_str(QWEN35_9B).unwrap();
    text_only.as_object_mut().unwrap().remove("vision_config");
    assert_eq!(
        spec(&text_only.to_string()).weight_bytes_per_rank(2).0,
        8_954_077_440
    );
}

#[test]
fn qwen35_vision_refuses_deepstack_mergers() {
    // Qwen3-VL's own tower (deepstack_visual_indexes [8, 16, 24]) adds mergers tpsim does not model.
    let mut v: serde_json::Value = serde_json::from_str(QWEN35_9B).unwrap();
    v["vision_config"]["deepstack_visual_indexes"] = serde_json::json!([8, 16, 24]);
    let e = ModelSpec::from_config_json(&v.to_string(), bf16()).unwrap_err();
    assert!(e.to_string().contains("deepstack_visual_indexes"), "{e}");
}

#[test]
fn qwen3_next_lowers_moe_with_a_gated_shared_expert() {
    let m = spec(QWEN3_NEXT);
    assert_eq!(m.arch, Architecture::Qwen3Next);
    assert_eq!((m.num_layers, m.hidden, m.vocab), (48, 2048, 151_936));
    // No layer_types in the release: full_attention_interval 4 → layers 3, 7, …, 47 attend.
    assert_eq!((m.kv_layers(), m.linear_layers()), (12, 36));
    assert_eq!((m.mixers[3], m.mixers[4]), (Mixer::Attention, Mixer::Linear));
    let moe = m.moe.expect("moe");
    assert_eq!(test_util::moe_shape(&moe), (512, 10, 512, 1));
    assert!(m.layers.iter().all(|l| matches!(l, Ffn::Moe(_))));
    assert!(m.attn_output_gate && m.qk_norm && !m.tie_word_embeddings);
    // The release names no MTP count; the engines take one (`num_nextn_predict_layers` default 1).
    assert_eq!(m.num_nextn_predict_layers, 1);
    // KV cell: 2 KV heads → 1 per rank at tp 2 and tp 4 (replicated): 12 × 1 × 256 × 2 × 2 B = 12,288.
    assert_eq!(m.kv_cell_bytes(2), 12_288);
    assert_eq!(m.kv_cell_bytes(4), 12_288);
    assert_eq!(m.kv_cell_bytes(1), 24_576);
    // State per request at tp 2: conv 4096 / 2 … (2 · 2048 + 4096) / 2 = 4096 × 3 × 2 = 24,576 plus
    // SSM 16 × 128 × 128 × 4 = 1,048,576, × 36 layers = 38,633,472.
    assert_eq!(m.linear_state_bytes_per_req(2), 38_633_472);
    // tp 8 leaves 2 key heads and 4 value heads per rank; tp 32 does not divide the 16 key heads.
    assert!(m.validate_tp(8).is_ok());
    assert!(m.validate_tp(32).is_err());
}

#[test]
fn qwen3_next_weights_per_rank_at_tp2() {
    // Per rank at tp 2, in parameters (bf16 = 2 B; A_log fp32 = 4 B):
    // embed + lm_head: 2 × 151,936 / 2 × 2048 = 311,164,928; final norm 2048.
    // MoE block (every layer): router 512 × 2048 = 1,048,576; shared_expert_gate 2048; experts
    //   512 × (2 × 256 × 2048 + 2048 × 256) = 805,306,368; shared expert 3 × 2048 × 256 = 1,572,864
    //   → 807,929,856.
    // Linear layer: norms 4096; in_proj_qkvz (2·2048 + 2·4096) / 2 × 2048 = 12,582,912; in_proj_ba
    //   32 × 2048 = 65,536; conv1d 4096 × 4 = 16,384; dt_bias 16; norm 128; out_proj 2048 × 2048 =
    //   4,194,304; + MoE → 824,793,232 × 2 B + 64 B = 1,649,586,528 B; × 36 = 59,385,115,008.
    // Full layer: norms 4096; q_proj 8 × 256 × 2 × 2048 = 8,388,608; k, v 2 × 256 × 2048 =
    //   1,048,576; o_proj 2048 × 2048 = 4,194,304; q/k norms 512; + MoE → 821,565,952 × 2 B =
    //   1,643,131,904; × 12 = 19,717,582,848.
    // Total: 622,329,856 + 4,096 + 59,385,115,008 + 19,717,582,848 = 79,725,031,808 B (74.25 GiB).
    let m = spec(QWEN3_NEXT);
    assert_eq!(m.weight_bytes_per_rank(2).0, 79_725_031_808);
}

const QWEN3_VL_8B: &str = include_str!("../../../scenarios/models/qwen3-vl-8b-instruct/config.json");
const QWEN3_VL_30B: &str = include_str!("../../../scenarios/models/qwen3-vl-30b-a3b-instruct/config.json");

#[test]
fn qwen3_vl_8b_weights_per_rank_at_tp2() {
    let m = spec(QWEN3_VL_8B);
    assert_eq!(m.arch, Architecture::Qwen3Vl);
    assert!(m.has_vision && m.qk_norm && m.moe.is_none() && m.linear_attention.is_none());
    let v = m.vision.expect("tower");
    assert_eq!(
        (v.family, v.deepstack_mergers, v.text_hidden),
        (VisionFamily::Qwen3Vit, 3, 4096)
    );
    // KV cell at tp 2: 36 layers × 8 / 2 KV heads × 128 × 2 × 2 B = 73,728 B.
    assert_eq!(m.kv_cell_bytes(2), 73_728);
    // Per rank at tp 2, parameters: text: embed + lm_head 151,936 × 4096 = 622,329,856, norm 4096;
    // layer: norms 8192, q 2048 × 4096 = 8,388,608, k + v 2 × 512 × 4096 = 4,194,304, o 4096 × 2048
    // = 8,388,608, q/k norms 256, MLP 3 × 4096 × 6144 = 75,497,472 → 96,477,440, × 36 =
    // 3,473,187,840 → 4,095,521,792 × 2 B = 8,191,043,584 B.
    // Vision: the Qwen3.5-9B tower's 230,314,168 (out 4096, `qwen35_9b_weights_per_rank_at_tp2`) plus
    // three DeepStack mergers of (LayerNorm 2 × 4608 = 9216, fc1 2304 × 4608 + 2304 = 10,619,136, fc2
    // 4096 × 2304 + 4096 = 9,441,280) = 20,069,632 → 290,523,064 × 2 B = 581,046,128 B.
    // Total 8,772,089,712 B (8.170 GiB).
    assert_eq!(m.weight_bytes_per_rank(2).0, 8_772_089_712);
}

#[test]
fn qwen3_vl_30b_a3b_lowers_a_qwen3_moe_text_tower() {
    let m = spec(QWEN3_VL_30B);
    assert_eq!(m.arch, Architecture::Qwen3VlMoe);
    let moe = m.moe.expect("moe");
    assert_eq!(test_util::moe_shape(&moe), (128, 8, 768, 0));
    assert!(m.layers.iter().all(|l| matches!(l, Ffn::Moe(_))));
    assert_eq!(m.vision.expect("tower").text_hidden, 2048);
    // KV cell at tp 4: 48 layers × 4 / 4 KV heads × 128 × 2 × 2 B = 24,576 B.
    assert_eq!(m.kv_cell_bytes(4), 24_576);
    // The wrapper needs its vision_config (the engines build the tower from it): refused, naming it.
    let mut text_only: serde_json::Value = serde_json::from_str(QWEN3_VL_30B).unwrap();
    text_only.as_object_mut().unwrap().remove("vision_config");
    let e = ModelSpec::from_config_json(&text_only.to_string(), bf16()).unwrap_err();
    assert!(e.to_string().contains("vision_config"), "{e}");
}
