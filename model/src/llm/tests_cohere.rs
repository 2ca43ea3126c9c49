//! families8 (issue #17): Command R / R+ (`CohereForCausalLM`) by hand from the bundled presets and
//! the engines' `commandr.py` (SGLang 0.5.9, vLLM 0.19.0; see `llm::cohere`).

use super::*;

const COMMAND_R: &str = include_str!("../../../scenarios/models/command-r-08-2024/config.json");
const COMMAND_R_PLUS: &str = include_str!("../../../scenarios/models/command-r-plus-08-2024/config.json");
const COMMAND_R7B: &str = include_str!("../../../scenarios/models/command-r7b-12-2024/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// The preset with `key` set to `value`.
fn with(text: &str, key: &str, value: serde_json::Value) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    v[key] = value;
    v.to_string()
}

/// Command R 08-2024: 40 layers of GQA 64 × 128 / 8 KV heads, every layer full attention, one
/// LayerNorm per layer, tied 256k embedding, no q/k norms.
#[test]
fn command_r_08_2024_parameters_by_hand() {
    let s = spec(COMMAND_R);
    assert_eq!(s.arch, Architecture::Cohere);
    assert!(s.tie_word_embeddings && !s.attention_bias && !s.qk_norm);
    assert!(s.mixers.iter().all(|&m| m == Mixer::Attention));
    assert_eq!(s.sliding_window, None);
    // Layer: LayerNorm 8,192; qkv (64 + 2 × 8) × 128 × 8,192 = 83,886,080; o 8,192 × 8,192 =
    // 67,108,864; MLP 3 × 24,576 × 8,192 = 603,979,776 → 754,982,912, × 40 = 30,199,316,480.
    // Embedding 256,000 × 8,192 = 2,097,152,000 (tied); final LayerNorm 8,192.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 32_296_476_672);
    // tp 4: vocab rows 64,000 → 524,288,000; layer 8,192 + (16 + 2 × 2) × 128 × 8,192 = 20,971,520 +
    // 8,192 × 2,048 = 16,777,216 + 3 × 6,144 × 8,192 = 150,994,944 → 188,751,872, × 40 =
    // 7,550,074,880; + 8,192.
    assert_eq!(s.weight_bytes_per_rank(4).0, 2 * 8_074_371_072);
    // KV: 40 layers × 2 × 8 KV heads × 128 × 2 B = 163,840 per token at tp 1; 2 heads a rank at tp 4.
    assert_eq!(s.kv_cell_bytes(1), 163_840);
    assert_eq!(s.kv_cell_bytes(4), 40_960);
    assert_eq!(s.context_len, Some(131_072));
}

/// Command R+ 08-2024: 64 layers of GQA 96 × 128 / 8 KV heads with Cohere's per-head q/k LayerNorms
/// (`use_qk_norm`), sharded with the heads. The model card's "104 billion parameters" is the total.
#[test]
fn command_r_plus_08_2024_parameters_by_hand() {
    let s = spec(COMMAND_R_PLUS);
    assert_eq!(s.arch, Architecture::Cohere);
    assert!(s.tie_word_embeddings && s.qk_norm);
    // Layer: LayerNorm 12,288; qkv (96 + 16) × 128 × 12,288 = 176,160,768; o 12,288² =
    // 150,994,944; MLP 3 × 33,792 × 12,288 = 1,245,708,288; q/k norms (96 + 8) × 128 = 13,312 →
    // 1,572,889,600, × 64 = 100,664,934,400. Embedding 256,000 × 12,288 = 3,145,728,000; final 12,288.
    let params = s.weight_bytes_per_rank(1).0 / 2;
    assert_eq!(params, 103_810_674_688);
    assert!((params as f64 / 1e9 - 104.0).abs() < 0.5, "{params}");
    // tp 4: vocab 64,000 × 12,288 = 786,432,000; layer 12,288 + (24 + 2 × 2) × 128 × 12,288 =
    // 44,040,192 + 12,288 × 3,072 = 37,748,736 + 3 × 8,448 × 12,288 = 311,427,072 + q/k norms
    // (24 + 2) × 128 = 3,328 → 393,231,616, × 64 = 25,166,823,424; + 12,288.
    assert_eq!(s.weight_bytes_per_rank(4).0, 2 * 25_953_267_712);
    // tp 8: one KV head a rank, so one k-norm row: layer 12,288 + (12 + 2) × 128 × 12,288 =
    // 22,020,096 + 12,288 × 1,536 = 18,874,368 + 3 × 4,224 × 12,288 = 155,713,536 + (12 + 1) × 128 =
    // 1,664 → 196,621,952, × 64 = 12,583,804,928; vocab 32,000 × 12,288 = 393,216,000; + 12,288.
    assert_eq!(s.weight_bytes_per_rank(8).0, 2 * 12_977_033_216);
    // KV: 64 × 2 × 8 × 128 × 2 B = 262,144 per token at tp 1; one KV head a rank at tp 8.
    assert_eq!(s.kv_cell_bytes(1), 262_144);
    assert_eq!(s.kv_cell_bytes(8), 32_768);
}

/// Command R v01's layout (MHA: 64 KV heads, SwiGLU 22,528, 8,192 positions; the published
/// c4ai-command-r-v01 shapes) through the 08-2024 preset: 34,980,831,232 parameters, the card's "35
/// billion".
#[test]
fn command_r_v01_shapes_by_hand() {
    let mut v: serde_json::Value = serde_json::from_str(COMMAND_R).unwrap();
    v["num_key_value_heads"] = 64.into();
    v["intermediate_size"] = 22_528.into();
    v["max_position_embeddings"] = 8_192.into();
    let s = spec(&v.to_string());
    // Layer 8,192 + 3 × 8,192² = 201,326,592 + 8,192² = 67,108,864 + 3 × 22,528 × 8,192 =
    // 553,648,128 → 822,091,776, × 40 = 32,883,671,040; + 2,097,152,000 + 8,192.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 34_980_831_232);
    // KV: 40 × 2 × 64 × 128 × 2 B = 1,310,720 per token at tp 1.
    assert_eq!(s.kv_cell_bytes(1), 1_310_720);
}

/// What both engines' `commandr.py` do not build: untied embeddings (vLLM asserts them tied) and a
/// `head_dim` other than hidden / heads (both compute it so); for Command R7B too.
#[test]
fn cohere_refusals() {
    for base in [COMMAND_R, COMMAND_R7B] {
        let e = ModelSpec::from_config_json(
            &with(base, "tie_word_embeddings", false.into()),
            Quantization::bf16(),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("tie_word_embeddings") && e.contains("asserts"), "{e}");
        let e = ModelSpec::from_config_json(&with(base, "head_dim", 96.into()), Quantization::bf16())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("head_dim") && e.contains("hidden_size / num_attention_heads = 128"),
            "{e}"
        );
    }
    // Attention biases are never built, whatever the config says.
    assert!(!spec(&with(COMMAND_R, "attention_bias", true.into())).attention_bias);
}

/// Command R7B with `use_qk_norm` (no published Cohere2 config sets it) now gets the same per-head
/// LayerNorms as R+: (32 + 8) × 128 = 5,120 more parameters a layer at tp 1, × 32 layers.
#[test]
fn cohere2_qk_norm_is_lowered_like_cohere() {
    let plain = spec(COMMAND_R7B).weight_bytes_per_rank(1).0;
    let normed = spec(&with(COMMAND_R7B, "use_qk_norm", true.into()));
    assert!(normed.qk_norm);
    assert_eq!(normed.weight_bytes_per_rank(1).0 - plain, 2 * 32 * 5_120);
}
