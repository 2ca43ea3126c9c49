//! families13 (issue #17): StarCoder2 (`Starcoder2ForCausalLM`): biased LayerNorms and projections,
//! a non-gated GELU MLP, tied embeddings, every layer sliding as vLLM builds it (`llm::starcoder2`).

use super::*;

const STARCODER2_3B: &str = include_str!("../../../scenarios/models/starcoder2-3b/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// StarCoder2-3B by hand (exact integers).
///
/// Layer: q 3,072 × 3,072 = 9,437,184 and k + v 2 × 256 × 3,072 = 1,572,864 (qkv 11,010,048) + qkv
/// bias 3,072 + 512 = 3,584; o 9,437,184 + bias 3,072; c_fc 12,288 × 3,072 = 37,748,736 + bias
/// 12,288; c_proj 37,748,736 + bias 3,072; two LayerNorms (weight + bias) 4 × 3,072 = 12,288 →
/// 95,979,008, × 30 = 2,879,370,240. Tied embedding 49,152 × 3,072 = 150,994,944 (49,152 = 768 × 64:
/// no padding); final LayerNorm 2 × 3,072 = 6,144. Total 2,879,370,240 + 150,994,944 + 6,144 =
/// **3,030,371,328** parameters: the Hub's "3.03B" (promptlayer.com/models/starcoder2-3b).
#[test]
fn starcoder2_3b_parameters_by_hand() {
    let s = spec(STARCODER2_3B);
    assert_eq!(s.arch, Architecture::Starcoder2);
    assert!(s.attention_bias && s.tie_word_embeddings);
    assert_eq!((s.head_dim, s.kv_heads), (128, 2));
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 3_030_371_328);
    // tp 2: qkv (12 + 2 × 1) × 128 = 1,792 rows × 3,072 = 5,505,024 + bias 1,792; o 3,072 × 1,536 =
    // 4,718,592 + bias 3,072 (replicated); c_fc 6,144 × 3,072 = 18,874,368 + bias 6,144; c_proj
    // 18,874,368 + bias 3,072; LayerNorms 12,288 → 47,998,720, × 30 = 1,439,961,600; embedding
    // 24,576 × 3,072 = 75,497,472; final LayerNorm 6,144 → 1,515,465,216 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 1_515_465_216);
    // KV cell: 30 layers × 2 KV heads × 2 × 128 × 2 B = 30,720 at tp 1; one head a rank at tp 2
    // (15,360) and replicated past it (tp 4: 15,360).
    assert_eq!(s.kv_cell_bytes(1), 30_720);
    assert_eq!((s.kv_cell_bytes(2), s.kv_cell_bytes(4)), (15_360, 15_360));
}

/// As vLLM 0.19.0 builds it, every one of the 30 layers slides over the config's 4,096 tokens; a
/// null window gives 30 full layers. `use_bias = false` drops 3,584 + 3,072 + 12,288 + 3,072 =
/// 22,016 bias parameters a layer (660,480 in all; the LayerNorm biases stay): 3,029,710,848.
#[test]
fn starcoder2_slides_every_layer_and_reads_use_bias() {
    let s = spec(STARCODER2_3B);
    assert_eq!(s.sliding_window, Some(4096));
    assert_eq!(s.sliding_layers(), 30);
    let full = spec(&STARCODER2_3B.replace("\"sliding_window\": 4096", "\"sliding_window\": null"));
    assert_eq!((full.sliding_layers(), full.sliding_window), (0, None));
    let nb = spec(&STARCODER2_3B.replace("\"use_bias\": true", "\"use_bias\": false"));
    assert!(!nb.attention_bias);
    assert_eq!(nb.weight_bytes_per_rank(1).0, 2 * 3_029_710_848);
    // Untied: a 49,152 × 3,072 LM head of its own (no bias): + 150,994,944.
    let untied = spec(&STARCODER2_3B.replace(
        "\"use_bias\": true,",
        "\"use_bias\": true, \"tie_word_embeddings\": false,",
    ));
    assert_eq!(
        untied.weight_bytes_per_rank(1).0,
        2 * (3_030_371_328 + 150_994_944)
    );
}

/// Both engines compute `head_dim = hidden_size / num_attention_heads` (3,072 / 24 = 128): another
/// explicit `head_dim` is refused naming the key.
#[test]
fn starcoder2_refuses_another_head_dim() {
    let text = STARCODER2_3B.replace(
        "\"hidden_size\": 3072,",
        "\"hidden_size\": 3072, \"head_dim\": 64,",
    );
    let e = ModelSpec::from_config_json(&text, Quantization::bf16())
        .expect_err("head_dim")
        .to_string();
    assert!(e.contains("head_dim") && e.contains("= 128"), "{e}");
}
