//! families24 (issue #17): Grok-2 (`Grok1ForCausalLM`, `llm::grok`), by hand from SGLang 0.5.8
//! `models/grok.py` and the preset's config.
use super::*;

const GROK2: &str = include_str!("../../../scenarios/models/grok-2/config.json");

fn spec(q: Quantization) -> ModelSpec {
    ModelSpec::from_config_json(GROK2, q).expect("Grok-2 lowers")
}

#[test]
fn grok2_parameters_by_hand() {
    let s = spec(Quantization::bf16());
    assert_eq!(s.arch, Architecture::Grok1);
    // Residual MLP 32,768 = 2 shared experts of 16,384 (`llm::grok`).
    let moe = s.moe.expect("MoE");
    assert_eq!(test_util::moe_shape(&moe), (8, 2, 16_384, 2));
    assert!(s.router_fp32);
    assert!(!s.tie_word_embeddings && !s.attention_bias);
    assert_eq!(
        (s.num_layers, s.heads, s.kv_heads, s.head_dim, s.hidden, s.vocab),
        (64, 64, 8, 128, 8_192, 131_072)
    );
    // Per layer (tolerance: none, integers): q 8,192 × 8,192 + k, v 2 × 1,024 × 8,192 + o 8,192 ×
    // 8,192 = 150,994,944; experts 8 × 3 × 8,192 × 16,384 = 3,221,225,472; residual MLP 3 × 8,192 ×
    // 32,768 = 805,306,368; router 8 × 8,192 = 65,536; four norms 4 × 8,192 = 32,768 → 4,177,625,088.
    // 64 layers = 267,368,005,632; + embedding and untied head 2 × 131,072 × 8,192 = 2,147,483,648;
    // + the final norm 8,192 → 269,515,497,472, the count of the Hub discussion
    // (hf.fast360.xyz/xai-org/grok-2/discussions/6), the card's "~270B".
    let total: u64 =
        64 * (150_994_944 + 3_221_225_472 + 805_306_368 + 65_536 + 32_768) + 2_147_483_648 + 8_192;
    assert_eq!(total, 269_515_497_472);
    // Active: 2 of 8 experts: total − 64 × 6 × 402,653,184 = 114,896,674,816 (the discussion says
    // 115,019,056,768, 0.1 % more, without its arithmetic; both are the card's "~115B").
    assert_eq!(total - 64 * 6 * 402_653_184, 114_896_674_816);
    // bf16 at tp 1: 2 B a parameter, the fp32 router 2 B more: 64 × 65,536 × 2 = 8,388,608.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 8_388_608);
    // KV a token at tp 8: 64 layers × 1 KV head × 128 × 2 (K, V) × 2 B = 32,768.
    assert_eq!(s.kv_cell_bytes(8), 32_768);
}

/// The residual MLP must be whole routed widths (tpsim's shared experts), and the router's default
/// top-k is SGLang's `getattr(config, "num_experts_per_tok", 2)`.
#[test]
fn grok_residual_width_and_defaults() {
    let mut v: serde_json::Value = serde_json::from_str(GROK2).unwrap();
    v["intermediate_size"] = 20_000.into();
    let e = ModelSpec::from_config_json(&v.to_string(), Quantization::bf16()).unwrap_err();
    assert!(e.to_string().contains("intermediate_size"), "{e}");
    let mut v: serde_json::Value = serde_json::from_str(GROK2).unwrap();
    let o = v.as_object_mut().unwrap();
    o.remove("num_experts_per_tok");
    o.insert("residual_moe".into(), false.into());
    let s = ModelSpec::from_config_json(&v.to_string(), Quantization::bf16()).unwrap();
    let moe = s.moe.unwrap();
    assert_eq!((moe.num_experts_per_tok, moe.n_shared_experts), (2, 0));
}
