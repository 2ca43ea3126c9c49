//! families5 (issue #17): EXAONE 4 (`Exaone4ForCausalLM`) by hand from the bundled presets and the
//! engines' `exaone4.py` (SGLang 0.5.9, vLLM 0.19.0; see `llm::exaone4`).

use super::*;

const EXAONE4_32B: &str = include_str!("../../../scenarios/models/exaone-4.0-32b/config.json");
const EXAONE4_1_2B: &str = include_str!("../../../scenarios/models/exaone-4.0-1.2b/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

fn spec_err(text: &str) -> String {
    ModelSpec::from_config_json(text, Quantization::bf16())
        .expect_err("refused")
        .to_string()
}

/// The 32B preset without its `layer_types` (the layout then comes from `sliding_window_pattern`).
fn without_layer_types(text: &str) -> String {
    let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
    v.as_object_mut().unwrap().remove("layer_types");
    v.to_string()
}

/// EXAONE-4.0-32B's weights and KV cell by hand; the model card's "Number of Parameters (without
/// embeddings): 30.95B" is reproduced.
#[test]
fn exaone4_32b_parameters_by_hand() {
    let s = spec(EXAONE4_32B);
    assert_eq!(s.arch, Architecture::Exaone4);
    assert!(s.qk_norm && !s.qk_norm_full_width && !s.attention_bias && !s.tie_word_embeddings);
    assert_eq!(s.head_dim, 128);
    // Layer: q 5,120 × 5,120 = 26,214,400; k and v 2 × 1,024 × 5,120 = 10,485,760; o 26,214,400;
    // MLP 3 × 27,392 × 5,120 = 420,741,120; post-attention and post-feedforward norms 2 × 5,120 and
    // the per-head q/k norms 2 × 128 → 483,666,176, × 64 = 30,954,635,264; final norm 5,120 →
    // 30,954,640,384 without embeddings (the card's 30.95B). Embedding and untied head
    // 2 × 102,400 × 5,120 = 1,048,576,000 → 32,003,216,384 parameters, 2 B each.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 32_003_216_384);
    // tp 4: embedding + head 2 × 25,600 × 5,120 = 262,144,000; layer: qkv (10 + 2 + 2 heads) 1,792 ×
    // 5,120 = 9,175,040, o 5,120 × 1,280 = 6,553,600, MLP 3 × 6,848 × 5,120 = 105,185,280, norms
    // 10,496 replicated → 120,924,416, × 64 = 7,739,162,624; final norm 5,120 → 8,001,311,744.
    assert_eq!(s.weight_bytes_per_rank(4).0, 2 * 8_001_311_744);
    // Norms (replicated): 64 × 10,496 + 5,120 = 676,864 parameters.
    assert_eq!(s.weight_breakdown(4).norms, 2 * 676_864);
    // KV cell: 64 layers × 8 KV heads × 2 × 128 × 2 B = 262,144 B at tp 1; 65,536 at tp 4.
    assert_eq!(s.kv_cell_bytes(1), 262_144);
    assert_eq!(s.kv_cell_bytes(4), 65_536);
    // 8 KV heads: tp 8 splits them; 40 heads do not split over 16 ranks.
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(16).is_err());
}

/// EXAONE-4.0-1.2B (tied, all full attention with RoPE); the card's 1.07B reproduced.
#[test]
fn exaone4_1_2b_parameters_by_hand() {
    let s = spec(EXAONE4_1_2B);
    assert!(s.tie_word_embeddings);
    assert_eq!(s.head_dim, 64);
    // Layer: q and o 2 × 2,048 × 2,048 = 8,388,608; k and v 2 × 512 × 2,048 = 2,097,152; MLP
    // 3 × 4,096 × 2,048 = 25,165,824; norms 2 × 2,048 + 2 × 64 = 4,224 → 35,655,808, × 30 =
    // 1,069,674,240; final norm 2,048 → 1,069,676,288 (the card's 1.07B); tied embedding
    // 102,400 × 2,048 = 209,715,200 → 1,279,391,488 parameters.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 1_279_391_488);
    // KV cell: 30 × 8 × 2 × 64 × 2 B = 61,440 B.
    assert_eq!(s.kv_cell_bytes(1), 61_440);
    assert_eq!(s.sliding_layers(), 0);
    assert!(s.nope_layers.is_empty());
    // No NoPE layer: every layer launches the 8 attention kernels.
    let fp = s.forward_pass(1, 1);
    assert!(
        fp.layers
            .iter()
            .all(|l| l.attn_kernels == 8 && l.ffn_kernels == 5)
    );
}

/// Three sliding layers (window 4,096) to one full NoPE layer, and the kernels that follow.
#[test]
fn exaone4_32b_slides_three_layers_in_four_without_rope_on_the_fourth() {
    let s = spec(EXAONE4_32B);
    assert_eq!(s.sliding_layers(), 48);
    assert_eq!(s.sliding_window, Some(4096));
    assert_eq!(s.mixers[0], Mixer::SlidingAttention);
    assert_eq!(s.mixers[3], Mixer::Attention);
    assert_eq!(s.nope_layers, (0..16).map(|k| 4 * k + 3).collect::<Vec<u32>>());
    // A decode step reads at most the window on a sliding layer, the whole context on a full one.
    assert_eq!(
        local_kv_tokens(s.mixers[0], s.local_window(s.mixers[0]), 10_000),
        4096
    );
    assert_eq!(
        local_kv_tokens(s.mixers[3], s.local_window(s.mixers[3]), 10_000),
        10_000
    );
    let fp = s.forward_pass(4, 8);
    // qkv, q_norm, k_norm, rotary, attention, o, post-attention norm, add = 8; no rotary: 7.
    assert_eq!(fp.layers[0].attn_kernels, 8);
    assert_eq!(fp.layers[3].attn_kernels, 7);
    // gate_up, SiLU-and-mul, down, post-feedforward norm, add = 5.
    assert_eq!(fp.layers[3].ffn_kernels, 5);
    // Llama's layer for comparison: 5 + 4.
    let llama = spec(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
    let l = &llama.forward_pass(4, 8).layers[0];
    assert_eq!((l.attn_kernels, l.ffn_kernels), (5, 4));
}

/// Without `layer_types`, `"LLLG"` (SGLang: its length) and the integer 4 (transformers'
/// `Exaone4Config` rule) give the same layout; no `sliding_window` means no sliding layer.
#[test]
fn exaone4_pattern_spellings_agree() {
    let bare = without_layer_types(EXAONE4_32B);
    let letters = spec(&bare);
    assert_eq!(letters.mixers, spec(EXAONE4_32B).mixers);
    let int = spec(&bare.replace("\"LLLG\"", "4"));
    assert_eq!(int.mixers, letters.mixers);
    let three = spec(&bare.replace("\"LLLG\"", "\"LLG\""));
    assert_eq!(three.sliding_layers(), 43);
    assert_eq!(three.nope_layers.len(), 21);
    let no_window = spec(&bare.replace("\"sliding_window\":4096", "\"sliding_window\":null"));
    assert_eq!(no_window.sliding_layers(), 0);
    assert!(no_window.nope_layers.is_empty());
}

/// What tpsim refuses in an EXAONE 4 config, each with the key named.
#[test]
fn exaone4_refusals_name_the_key() {
    let with = |k: &str, v: &str| {
        EXAONE4_32B.replacen("\"hidden_act\"", &format!("\"{k}\": {v},\n  \"hidden_act\""), 1)
    };
    for (text, key) in [
        (with("attention_bias", "true"), "attention_bias"),
        (with("bias", "true"), "bias"),
        (with("mlp_bias", "true"), "mlp_bias"),
        (
            EXAONE4_32B.replace("\"head_dim\": 128", "\"head_dim\": 64"),
            "head_dim",
        ),
        (EXAONE4_32B.replace("\"silu\"", "\"gelu\""), "hidden_act"),
        // Three letters (SGLang: a full layer every 3rd) against vLLM's layer_types (every 4th).
        (EXAONE4_32B.replace("\"LLLG\"", "\"LLG\""), "layer_types"),
    ] {
        let e = spec_err(&text);
        assert!(e.contains(key), "{key}: {e}");
    }
    // Gemma-3 takes no letters.
    let gemma = include_str!("../../../scenarios/models/gemma-3-12b-it/config.json");
    let mut v: serde_json::Value = serde_json::from_str(gemma).unwrap();
    v["text_config"]["sliding_window_pattern"] = serde_json::json!("LLLLLG");
    let e = spec_err(&v.to_string());
    assert!(e.contains("sliding_window_pattern"), "{e}");
}

/// SmolLM3 (HuggingFaceTB/SmolLM3-3B) is refused with what the engines do with it, not as unknown.
#[test]
fn smollm3_is_refused_as_served_by_the_transformers_backends_only() {
    let cfg = r#"{"architectures": ["SmolLM3ForCausalLM"], "hidden_size": 2048, "num_hidden_layers": 36,
        "num_attention_heads": 16, "num_key_value_heads": 4, "intermediate_size": 11008, "vocab_size": 128256}"#;
    let e = spec_err(cfg);
    assert!(
        e.contains("SmolLM3ForCausalLM") && e.contains("TransformersForCausalLM"),
        "{e}"
    );
    assert!(e.contains("SGLang 0.5.9 has no model file"), "{e}");
    assert!(!e.contains("expected one of"), "{e}");
}
