//! families6 (issue #17): Hunyuan-A13B (`HunYuanMoEV1ForCausalLM`) by hand from the bundled preset
//! and the engines' `hunyuan.py` (SGLang 0.5.9) / `hunyuan_v1.py` (vLLM 0.19.0).

use super::test_util::spec;
use super::*;

const A13B: &str = include_str!("../../../scenarios/models/hunyuan-a13b-instruct/config.json");

/// Hunyuan-A13B's weights, KV cell and MoE shape by hand.
#[test]
fn a13b_parameters_by_hand() {
    let s = spec(A13B).expect("preset lowers");
    assert_eq!(s.arch, Architecture::HunYuanMoeV1);
    assert_eq!(
        architecture_of("HunYuanMoEV1ForCausalLM"),
        Some(Architecture::HunYuanMoeV1)
    );
    // The per-layer lists of 32 equal values are read as one value each.
    assert_eq!(
        s.moe,
        Some(MoeShape {
            n_routed_experts: 64,
            num_experts_per_tok: 8,
            moe_intermediate: 3_072,
            n_shared_experts: 1,
        })
    );
    assert!(s.qk_norm && s.tie_word_embeddings && !s.attention_bias && !s.routing_bias);
    // tp 1. Tied embedding of 128,167 rows padded to 128,192 (64-row padding) × 4,096 =
    // 525,074,432; final norm 4,096. Layer: two norms 8,192; qkv (4,096 + 2 × 1,024) × 4,096 =
    // 25,165,824; o 16,777,216; q/k norms 2 × 128 → 41,951,488. Router 64 × 4,096 = 262,144
    // (replicated, bias-free); 64 experts × 3 × 3,072 × 4,096 = 2,415,919,104; shared MLP 3 × 3,072
    // × 4,096 = 37,748,736 → 2,495,881,472 a layer, × 32 = 79,868,207,104. Total 80,393,285,632
    // (the checkpoint's own, with 128,167 embedding rows: 80,393,183,232 — the card's "80B").
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 80_393_285_632);
    // tp 2: embedding 64,096 × 4,096 = 262,537,216; layer: norms 8,192, qkv (2,048 + 2 × 512) ×
    // 4,096 = 12,582,912, o 8,388,608, q/k norms 256, router 262,144, experts 64 × 3 × 1,536 ×
    // 4,096 = 1,207,959,552, shared 18,874,368 → 1,248,076,032, × 32 = 39,938,433,024; + 4,096.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 40_200_974_336);
    // KV: 32 layers × 8 KV heads × 2 × 128 × 2 B = 131,072 at tp 1; 65,536 at tp 2.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (131_072, 65_536));
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(3).is_err());
    // Every layer MoE with a shared MLP: 12 feed-forward kernels (`forward::ffn_kernels`), and the
    // per-head q/k norm adds one to the attention half's 5.
    let p = s.forward_pass(2, 4);
    assert_eq!((p.layers[0].attn_kernels, p.layers[0].ffn_kernels), (6, 12));
    assert_eq!(p.allreduces, 2 * 32 + 1);
}

/// Both engines raise for tp above the expert count; tpsim refuses what it does not lower.
#[test]
fn a13b_refusals() {
    let err = |text: &str| spec(text).unwrap_err().to_string();
    // 4 experts at tp 8 (heads and KV heads would allow it).
    let mut v: serde_json::Value = serde_json::from_str(A13B).unwrap();
    v["num_experts"] = serde_json::json!(4);
    v["moe_topk"] = serde_json::json!(2);
    let s = spec(&v.to_string()).expect("a 4-expert variant lowers");
    assert_eq!(s.moe.unwrap().num_experts_per_tok, 2);
    let e = s.validate_tp(8).unwrap_err().to_string();
    assert!(
        e.contains("Tensor parallel size 8 is greater than the number of experts 4"),
        "{e}"
    );
    // Cross-layer attention.
    let cla = A13B.replace("\"use_cla\": false", "\"use_cla\": true");
    assert!(err(&cla).contains("use_cla"));
    // Per-layer top-k that differs between layers.
    let mixed = A13B.replacen("[8, 8,", "[4, 8,", 1);
    assert!(
        err(&mixed).contains("must hold one value repeated"),
        "{}",
        err(&mixed)
    );
    // A shared MLP that is not a whole number of expert widths.
    let odd = A13B.replace("\"intermediate_size\": 3072", "\"intermediate_size\": 1000");
    assert!(err(&odd).contains("num_shared_expert"), "{}", err(&odd));
}
