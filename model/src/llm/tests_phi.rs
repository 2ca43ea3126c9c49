//! phi2 (issue #17): phi-2 (`PhiForCausalLM`) lowered from the bundled preset. Every number is
//! computed by hand in the comment beside it and compared with the model card's "2.7 billion
//! parameters" (huggingface.co/microsoft/phi-2) and vLLM 0.19.0's log (engine-memory.tsv line 26).

use super::*;

const PHI_2: &str = include_str!("../../../scenarios/models/phi-2/config.json");

fn fp16() -> Quantization {
    serde_json::from_str(r#"{"dtype":"fp16","kv_cache_dtype":"auto"}"#).expect("fp16 quant")
}

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, fp16()).expect("preset parses")
}

#[test]
fn phi_2_lowers_multi_head_attention_with_biases_and_an_untied_head() {
    let s = spec(PHI_2);
    assert_eq!(s.arch, Architecture::Phi);
    // 2560 / 32 heads = 80 per head; num_key_value_heads 32 (multi-head attention).
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (32, 32, 32, 80));
    assert_eq!((s.hidden, s.dense_intermediate, s.vocab), (2560, 10_240, 51_200));
    assert!(s.attention_bias && !s.tie_word_embeddings && s.moe.is_none());
    assert_eq!(s.context_len, Some(2048));
    // KV cell at tp 1: 32 heads × 2 × 80 × 32 layers × 2 B = 327,680 B (the log's 69.01 GiB for
    // 226,112 tokens: 69.0 × 2^30 / 226,112 ≈ 327,660).
    assert_eq!(s.kv_cell_bytes(1), 327_680);
}

#[test]
fn phi_2_weights_match_the_published_2_7b() {
    let s = spec(PHI_2);
    // Per layer: one LayerNorm (weight + bias) 2 × 2560 = 5,120; qkv 3 × 2560 × 2560 + bias 7,680 =
    // 19,668,480; dense 2560² + bias 2,560 = 6,556,160; fc1 10,240 × 2560 + bias 10,240 =
    // 26,224,640; fc2 2560 × 10,240 + bias 2,560 = 26,216,960 → 78,671,360; × 32 = 2,517,483,520.
    // Embedding 51,200 × 2560 = 131,072,000 (51,200 is a multiple of 64); LM head the same + bias
    // 51,200; final LayerNorm 5,120 → 2,779,683,840 parameters ("2.7 billion", model card) × 2 B =
    // 5,559,367,680 B = 5.178 GiB (vLLM's log: "Model loading took 5.19 GiB", line 26).
    assert_eq!(s.weight_bytes_per_rank(1).0, 5_559_367_680);
    // tp 2: per layer 5,120 + (3 × 1280 × 2560 + 3,840) + (2560 × 1280 + 2,560) + (5120 × 2560 +
    // 5,120) + (2560 × 5120 + 2,560) = 39,340,800; × 32 = 1,258,905,600; embedding 25,600 × 2560 =
    // 65,536,000, LM head 65,536,000 + 25,600, final LayerNorm 5,120 → 1,390,008,320 × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2_780_016_640);
}

#[test]
fn phi_2_mlp_is_not_gated() {
    let s = spec(PHI_2);
    // One token at tp 1: fc1 2 × 10,240 × 2560 and fc2 2 × 2560 × 10,240 FLOPs per layer (no gate):
    // the MLP's GEMM weights are 2 × 26,214,400 × 2 B = 104,857,600 B per layer, + biases 12,800 × 2.
    let fp = s.forward_pass(1, 1);
    let ffn: u64 = fp.layers.iter().map(|l| l.ffn_weight_bytes.0).sum();
    assert_eq!(ffn, 32 * (104_857_600 + 25_600));
}

#[test]
fn tied_phi_is_refused_as_vllm_does() {
    let tied = PHI_2.replace("\"tie_word_embeddings\": false", "\"tie_word_embeddings\": true");
    let e = ModelSpec::from_config_json(&tied, fp16()).expect_err("vLLM asserts untied");
    assert!(e.to_string().contains("tie_word_embeddings"), "{e}");
}
