//! families3 (issue #17): OLMo-2 (`Olmo2ForCausalLM`) by hand from the bundled preset and the
//! engines' `olmo2.py` (SGLang 0.5.9, vLLM 0.19.0; see `llm::olmo2`).

use super::*;

const OLMO2_1B: &str = include_str!("../../../scenarios/models/olmo-2-0425-1b/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// OLMo-2-0425-1B's weights, KV cell and TP rule by hand.
#[test]
fn olmo2_1b_parameters_by_hand() {
    let s = spec(OLMO2_1B);
    assert_eq!(s.arch, Architecture::Olmo2);
    assert!(s.qk_norm && !s.attention_bias && !s.tie_word_embeddings);
    assert_eq!(s.head_dim, 128);
    // Embedding and untied LM head 100,352 × 2,048 = 205,520,896 each; final norm 2,048.
    // Layer: q/k/v/o 4 × 2,048 × 2,048 = 16,777,216; MLP 3 × 8,192 × 2,048 = 50,331,648;
    // post-attention and post-feedforward norms 2 × 2,048; q_norm 2,048 (hidden) and k_norm
    // 16 × 128 = 2,048 → 67,117,056, × 16 = 1,073,872,896. Total 1,484,916,736 parameters, 2 B each.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 1_484_916_736);
    // tp 2: vocab rows 50,176 (100,352 is a multiple of 64) → embedding + head 2 × 50,176 × 2,048 =
    // 205,520,896; layer: qkv (8 q + 8 k + 8 v heads) 3,072 × 2,048 = 6,291,456; o 2,048 × 1,024 =
    // 2,097,152; MLP 3 × 4,096 × 2,048 = 25,165,824; two layer norms 4,096 and the whole-width q/k
    // norms 4,096 on every rank → 33,562,624, × 16 = 537,001,984; final norm 2,048 → 742,524,928
    // parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 742_524_928);
    // Of which norms (replicated, not halved): 16 × 8,192 + 2,048 = 133,120 parameters.
    assert_eq!(s.weight_breakdown(2).norms, 2 * 133_120);
    // KV cell: 16 layers × 16 KV heads × 2 × 128 × 2 B = 131,072 B at tp 1; 65,536 at tp 2.
    assert_eq!(s.kv_cell_bytes(1), 131_072);
    assert_eq!(s.kv_cell_bytes(2), 65_536);
    assert!(s.validate_tp(8).is_ok());
    // 16 heads do not split over 3 ranks (both engines assert heads % tp == 0).
    assert!(s.validate_tp(3).is_err());
}

/// The two all-gathers of `_apply_qk_norm` per layer, and the extra norm kernel.
#[test]
fn olmo2_gathers_q_and_k_at_tp_above_one() {
    let s = spec(OLMO2_1B);
    // tp 1: no gather.
    let fp1 = s.forward_pass(1, 1);
    assert_eq!(fp1.qk_norm_allgather_bytes, [Bytes(0), Bytes(0)]);
    // tp 2, 4 tokens: q gathered to 4 × 16 × 128 × 2 B = 16,384 B, k (16 KV heads) the same.
    let fp = s.forward_pass(2, 4);
    assert_eq!(fp.qk_norm_allgather_bytes, [Bytes(16_384), Bytes(16_384)]);
    // Attention half: the 5 kernels of a GQA layer + 1 q/k norm + 1 for the second RMSNorm.
    assert_eq!(fp.layers[0].attn_kernels, 7);
    // Not MiniMax's statistics allreduce.
    assert_eq!(fp.qk_norm_allreduces, 0);
    // A Llama-layout model gathers nothing.
    let llama = spec(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
    assert_eq!(
        llama.forward_pass(2, 4).qk_norm_allgather_bytes,
        [Bytes(0), Bytes(0)]
    );
}

/// What tpsim refuses in an OLMo-2 config, each with the key named.
#[test]
fn olmo2_refusals_name_the_key() {
    let with = |k: &str, v: &str| {
        OLMO2_1B.replacen("\"hidden_act\"", &format!("\"{k}\": {v},\n  \"hidden_act\""), 1)
    };
    let biased = OLMO2_1B.replace("\"attention_bias\": false", "\"attention_bias\": true");
    for (text, key) in [
        (biased, "attention_bias"),
        (with("head_dim", "64"), "head_dim"),
        (
            with(
                "layer_types",
                &format!("[{}]", vec!["\"sliding_attention\""; 16].join(",")),
            ),
            "layer_types",
        ),
    ] {
        let e = ModelSpec::from_config_json(&text, Quantization::bf16()).expect_err(key);
        assert!(e.to_string().contains(key), "{e}");
    }
    // head_dim equal to hidden / heads is accepted.
    assert!(ModelSpec::from_config_json(&with("head_dim", "128"), Quantization::bf16()).is_ok());
}
