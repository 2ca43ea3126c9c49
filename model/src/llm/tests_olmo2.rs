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
    // With 4 KV heads, tp 8 replicates them: the gathered k (8 × 128) no longer fits k_norm (4 × 128).
    let gqa = spec(&OLMO2_1B.replace("\"num_key_value_heads\": 16", "\"num_key_value_heads\": 4"));
    assert!(gqa.validate_tp(4).is_ok());
    let e = gqa.validate_tp(8).expect_err("replicated KV heads");
    assert!(e.to_string().contains("expected tp <= 4"), "{e}");
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
        // families9: under the OLMo-3 name, `layer_types` is required (module doc).
        (
            OLMO2_1B.replace("Olmo2ForCausalLM", "Olmo3ForCausalLM"),
            "layer_types",
        ),
        // families9: sliding layers need their window.
        (
            with(
                "layer_types",
                &format!("[{}]", vec!["\"sliding_attention\""; 16].join(",")),
            ),
            "sliding_window",
        ),
    ] {
        let e = ModelSpec::from_config_json(&text, Quantization::bf16()).expect_err(key);
        assert!(e.to_string().contains(key), "{e}");
    }
    // head_dim equal to hidden / heads is accepted.
    assert!(ModelSpec::from_config_json(&with("head_dim", "128"), Quantization::bf16()).is_ok());
}

const OLMOE_1B_7B: &str = include_str!("../../../scenarios/models/olmoe-1b-7b-0924/config.json");

/// OLMoE-1B-7B-0924 by hand; the OLMoE paper's abstract names 7 B parameters with 1 B used per
/// token, and its model listing 6.9 B total / 1.3 B active (a secondary copy: the
/// AIComputing101/llm-leaderboard page for OLMoE-1B-7B lists "Parameters: 6.9B").
#[test]
fn olmoe_1b_7b_parameters_by_hand() {
    let s = spec(OLMOE_1B_7B);
    assert_eq!(s.arch, Architecture::Olmoe);
    assert!(s.qk_norm && !s.attention_bias && !s.tie_word_embeddings && !s.routing_bias);
    let moe = s.moe.expect("every layer MoE");
    assert_eq!(test_util::moe_shape(&moe), (64, 8, 1_024, 0));
    // Embedding and untied LM head 50,304 × 2,048 = 103,022,592 each; final norm 2,048.
    // Layer: q/k/v/o 4 × 2,048² = 16,777,216; router 64 × 2,048 = 131,072; experts 64 × 3 × 1,024 ×
    // 2,048 = 402,653,184; input and post-attention norms 4,096, q_norm 2,048, k_norm 2,048 →
    // 419,569,664, × 16 = 6,713,114,624. Total 6,919,161,856 (6.9 B), 2 B each.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 6_919_161_856);
    // Active per token: 8 of the 64 experts, 50,331,648 a layer instead of 402,653,184: layer
    // 67,248,128 × 16 = 1,075,970,048 + 206,045,184 + 2,048 = 1,282,017,280 (1.3 B).
    // One decode token at tp 1 reads the router and 8 experts of each layer: 2 × (131,072 + 8 ×
    // 6,291,456) = 100,925,440 B.
    let l0 = s.forward_pass(1, 1).layers[0];
    assert!((l0.experts_touched - 8.0).abs() < 1e-9);
    assert_eq!(l0.ffn_weight_bytes.0, 100_925_440);
    // tp 2: embedding + head 2 × 25,152 × 2,048 = 103,022,592; layer: qkv 3,072 × 2,048 = 6,291,456;
    // o 2,048 × 1,024 = 2,097,152; router 131,072 (replicated); experts 64 × 3 × 512 × 2,048 =
    // 201,326,592; norms 8,192 (replicated) → 209,854,464, × 16 = 3,357,671,424; final norm 2,048 →
    // 3,460,696,064 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 3_460_696_064);
    // KV cell: 16 layers × 16 KV heads × 2 × 128 × 2 B = 131,072 B at tp 1.
    assert_eq!(s.kv_cell_bytes(1), 131_072);
    // vLLM's all-gathers of q and k, as OLMo-2's: 1 token at tp 2 → 16 × 128 × 2 B = 4,096 B each.
    assert_eq!(
        s.forward_pass(2, 1).qk_norm_allgather_bytes,
        [Bytes(4_096), Bytes(4_096)]
    );
    // The expert count is read as `num_experts` (HF OlmoeConfig), not Mixtral's `num_local_experts`.
    let e = ModelSpec::from_config_json(
        &OLMOE_1B_7B.replace("\"num_experts\"", "\"n_experts\""),
        Quantization::bf16(),
    )
    .expect_err("num_experts is required");
    assert!(e.to_string().contains("num_experts"), "{e}");
    // Both engines build OLMoE's own LM head: a tied config is refused.
    let tied = OLMOE_1B_7B.replace("\"tie_word_embeddings\": false", "\"tie_word_embeddings\": true");
    let e = ModelSpec::from_config_json(&tied, Quantization::bf16()).expect_err("tied");
    assert!(e.to_string().contains("tie_word_embeddings"), "{e}");
}

const OLMO3_7B: &str = include_str!("../../../scenarios/models/olmo-3-7b-instruct/config.json");

/// families9: Olmo-3-7B-Instruct (`Olmo3ForCausalLM`) lowers as OLMo-2 with 3 sliding layers in 4.
/// By hand: embedding and untied LM head 100,278 × 4,096 = 410,738,688 each; layer q/k/v/o 4 ×
/// 4,096² = 67,108,864, MLP 3 × 11,008 × 4,096 = 135,266,304, post-attention and post-feedforward
/// norms 2 × 4,096, q_norm 4,096 and k_norm 32 × 128 = 4,096 → 202,391,552, × 32 = 6,476,529,664;
/// final norm 4,096: 7,298,011,136 parameters (the published name is "7B"). The engines pad the
/// vocabulary to a multiple of 64, 100,288 rows: + 2 × 10 × 4,096 = 81,920 at tp 1.
#[test]
fn olmo3_7b_parameters_by_hand() {
    let s = spec(OLMO3_7B);
    assert_eq!(s.arch, Architecture::Olmo2);
    assert!(s.qk_norm && !s.attention_bias && !s.tie_word_embeddings);
    assert_eq!(s.head_dim, 128);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (7_298_011_136 + 81_920));
    // tp 2: vocab rows 50,144 → embedding + head 2 × 50,144 × 4,096 = 410,779,648; layer qkv 3 ×
    // 2,048 × 4,096 = 25,165,824, o 8,388,608, MLP 3 × 5,504 × 4,096 = 67,633,152, the four
    // replicated norm vectors 16,384 → 101,203,968, × 32 = 3,238,526,976; final norm 4,096 →
    // 3,649,310,720 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 3_649_310_720);
    // `layer_types`: layers 3, 7, …, 31 full, the other 24 slide over 4,096 tokens.
    assert_eq!(s.sliding_window, Some(4_096));
    assert_eq!(s.sliding_layers(), 24);
    for (i, m) in s.mixers.iter().enumerate() {
        let full = (i + 1) % 4 == 0;
        assert_eq!(*m == Mixer::Attention, full, "layer {i}");
    }
    // KV cell over all 32 layers: 32 × 2 × 32 heads × 128 × 2 B = 524,288 B at tp 1.
    assert_eq!(s.kv_cell_bytes(1), 524_288);
    assert_eq!(s.kv_cell_bytes(2), 262_144);
}
