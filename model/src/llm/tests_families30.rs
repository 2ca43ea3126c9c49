//! families30 (issue #17): Gemma 4 (`Gemma4ForConditionalGeneration`, `llm::gemma4`), by hand from
//! SGLang 0.5.23 `models/gemma4_causal.py`, transformers 5.25.0 `configuration_gemma4.py` and the
//! preset's config.
use super::*;

const G31B: &str = include_str!("../../../scenarios/models/gemma-4-31b-it/config.json");
const G26B: &str = include_str!("../../../scenarios/models/gemma-4-26b-a4b-it/config.json");

fn spec() -> ModelSpec {
    ModelSpec::from_config_json(G31B, Quantization::bf16()).expect("Gemma 4 31B lowers")
}

/// The preset with `text_config[key]` set to `val`.
fn with(key: &str, val: serde_json::Value) -> Result<ModelSpec, ModelError> {
    let mut v: serde_json::Value = serde_json::from_str(G31B).unwrap();
    v["text_config"][key] = val;
    ModelSpec::from_config_json(&v.to_string(), Quantization::bf16())
}

#[test]
fn gemma4_31b_parameters_by_hand() {
    let s = spec();
    assert_eq!(s.arch, Architecture::Gemma4);
    // The spec's GQA is the full kind: 32 heads, `num_global_key_value_heads` 4 (k_eq_v), 512 wide.
    assert_eq!(
        (s.num_layers, s.hidden, s.vocab, s.heads, s.kv_heads, s.head_dim),
        (60, 5_376, 262_144, 32, 4, 512)
    );
    // layer_types: (5 sliding + 1 full) × 10 → 50 sliding of window 1,024.
    assert_eq!(s.sliding_layers(), 50);
    assert_eq!(s.sliding_window, Some(1_024));
    let a = s.mimo_v2.expect("two attention kinds");
    assert_eq!(
        (a.swa_heads, a.swa_kv_heads, a.swa_head_dim, a.swa_v_head_dim),
        (32, 16, 256, 256)
    );
    assert_eq!(a.v_head_dim, 512);
    assert!(a.qk_norms && a.gemma_norms && !a.head_gate && !a.swa_sink && !a.v_scale);
    assert!(s.tie_word_embeddings && s.moe.is_none());
    assert_eq!(s.layers[0], Ffn::Dense { intermediate: 21_504 });
    // Checkpoint parameters (integers, no tolerance). Sliding layer: q 5,376 × 32 × 256 = 44,040,192;
    // k, v 5,376 × 16 × 256 = 22,020,096 each; o 44,040,192 → 132,120,576; MLP 3 × 5,376 × 21,504 =
    // 346,816,512; four norms 4 × 5,376 = 21,504; q/k norms 2 × 256; layer_scalar 1 → 478,959,105.
    let swa = 132_120_576 + 346_816_512 + 21_504 + 512 + 1;
    assert_eq!(swa, 478_959_105_u64);
    // Full layer (k_eq_v: no v_proj in the checkpoint): q 5,376 × 32 × 512 = 88,080,384; k 5,376 × 4 ×
    // 512 = 11,010,048; o 88,080,384 → 187,170,816; MLP 346,816,512; norms 21,504; q/k norms 2 × 512;
    // layer_scalar 1 → 534,009,857.
    let full = 187_170_816 + 346_816_512 + 21_504 + 1_024 + 1;
    assert_eq!(full, 534_009_857_u64);
    // 50 sliding + 10 full + final norm + tied embedding 262,144 × 5,376 = 1,409,286,144.
    let total = 50 * swa + 10 * full + 5_376 + 1_409_286_144;
    assert_eq!(total, 30_697_345_340); // the card's "30.7B"
    // What the engines load at tp 1: the V slot of each full layer too (SGLang `QKVParallelLinear(…,
    // kv_heads)` filled from k_proj; vLLM 0.34.0 loads K into both slots): 10 × 11,010,048 more, 2 B each.
    // vision54: plus the vision tower and `embed_vision` (`llm::gemma4_vit`; 575,743,536 at tp 1,
    // 303,272,496 at tp 2, by hand in `tests/tests/vision54.rs`).
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * (total + 10 * 11_010_048 + 575_743_536)
    );
    // tp 2: embedding 131,072 × 5,376 = 704,643,072; sliding layer qkv (16 × 256 + 2 × 8 × 256) × 5,376
    // = 44,040,192, o 5,376 × 4,096 = 22,020,096, MLP 3 × 5,376 × 10,752 = 173,408,256, replicated
    // norms 21,504 + 512 + 1 → 239,490,561; full layer qkv (16 × 512 + 2 × 2 × 512) × 5,376 =
    // 55,050,240, o 5,376 × 8,192 = 44,040,192, MLP 173,408,256, norms 21,504 + 1,024 + 1 →
    // 272,521,217; final norm 5,376 → 15,404,388,668 parameters, 30,808,777,336 B.
    let tp2 = 704_643_072 + 50 * 239_490_561 + 10 * 272_521_217 + 5_376_u64;
    assert_eq!(tp2, 15_404_388_668);
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * (tp2 + 303_272_496));
    // KV a token and layer (K and V, bf16): tp 1 full 4 × (512 + 512) × 2 = 8,192 B, sliding 16 ×
    // (256 + 256) × 2 = 16,384 B; tp 2 half of each. SGLang's hybrid cell (0.5.9 on: each kind over
    // its own layers): tp 1 10 × 8,192 + 50 × 16,384 = 901,120 B; tp 2 450,560 B.
    assert_eq!(s.mimo_v2_layer_cells(1), Some((8_192, 16_384)));
    assert_eq!(s.mimo_v2_layer_cells(2), Some((4_096, 8_192)));
    assert_eq!(s.mimo_v2_sglang_cell(1, false), Some(901_120));
    assert_eq!(s.mimo_v2_sglang_cell(2, false), Some(450_560));
    // tp 8: full 4 KV heads → one a rank (max(1, 4 / 8)), 1 × 1,024 × 2 = 2,048 B; sliding 2 × 512 × 2
    // = 2,048 B → 60 × 2,048 = 122,880 B.
    assert_eq!(s.mimo_v2_sglang_cell(8, false), Some(122_880));
}

/// transformers 5.25.0 `Gemma4TextConfig.__post_init__`: the last layer forced to full attention;
/// without `attention_k_eq_v` the full layers keep `num_key_value_heads`; `global_head_dim` defaults
/// to 512.
#[test]
fn gemma4_config_rules() {
    let mut types = vec![serde_json::json!("sliding_attention"); 60];
    types[5] = "full_attention".into();
    let s = with("layer_types", types.into()).unwrap();
    // Layer 5 full and the forced last layer: 58 sliding.
    assert_eq!(s.sliding_layers(), 58);
    let s = with("attention_k_eq_v", false.into()).unwrap();
    assert_eq!((s.kv_heads, s.head_dim), (16, 512));
    let mut v: serde_json::Value = serde_json::from_str(G31B).unwrap();
    v["text_config"]
        .as_object_mut()
        .unwrap()
        .remove("global_head_dim");
    let s = ModelSpec::from_config_json(&v.to_string(), Quantization::bf16()).unwrap();
    assert_eq!(s.head_dim, gemma4::DEFAULT_GLOBAL_HEAD_DIM);
}

/// The variants tpsim does not model are refused on the key that asks for them.
#[test]
fn gemma4_refusals() {
    let e = with("hidden_size_per_layer_input", 256.into())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("hidden_size_per_layer_input") && e.contains("E2B"),
        "{e}"
    );
    let e = with("num_kv_shared_layers", 20.into()).unwrap_err().to_string();
    assert!(
        e.contains("num_kv_shared_layers") && e.contains("KV sharing"),
        "{e}"
    );
    // The MoE block needs its experts' shape (transformers' defaults are None).
    let e = with("enable_moe_block", true.into()).unwrap_err().to_string();
    assert!(e.contains("moe_intermediate_size"), "{e}");
    // 26B-A4B with a dense MLP that is not whole experts wide.
    let mut v: serde_json::Value = serde_json::from_str(G26B).unwrap();
    v["text_config"]["intermediate_size"] = 2_000.into();
    let e = ModelSpec::from_config_json(&v.to_string(), Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(e.contains("intermediate_size") && e.contains("704"), "{e}");
    let e = with("num_global_key_value_heads", 5.into())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("num_global_key_value_heads") && e.contains("32"),
        "{e}"
    );
    // SGLang's `Gemma4Attention`: the heads divide by tp (32 heads: tp 3 refused).
    assert!(spec().validate_tp(3).is_err());
    assert!(spec().validate_tp(8).is_ok());
}

/// Gemma 4 26B-A4B: the MoE block beside the dense MLP in every layer (SGLang 0.5.23
/// `gemma4_causal.py` `Gemma4DecoderLayer` with `enable_moe_block`: `Gemma4Router` — a weightless
/// RMSNorm, `scale` of hidden, `proj` hidden × E replicated —, `Gemma4MoE` — `per_expert_scale` of E,
/// `FusedMoE(num_experts, moe_intermediate_size, top_k_experts)` —, three more norms).
#[test]
fn gemma4_26b_a4b_parameters_by_hand() {
    let s = ModelSpec::from_config_json(G26B, Quantization::bf16()).expect("Gemma 4 26B-A4B lowers");
    assert_eq!(
        (s.num_layers, s.hidden, s.vocab, s.heads, s.kv_heads, s.head_dim),
        (30, 2_816, 262_144, 16, 2, 512)
    );
    assert_eq!(s.sliding_layers(), 25);
    let moe = s.moe.expect("MoE block");
    // The dense MLP of 2,112 = 3 × 704 as three shared experts.
    assert_eq!(
        (
            moe.n_routed_experts,
            moe.num_experts_per_tok,
            moe.moe_intermediate,
            moe.n_shared_experts
        ),
        (128, 8, 704, 3)
    );
    assert!(s.layers.iter().all(|l| *l == Ffn::Moe(moe)));
    assert!(s.split_moe_allreduce() && !s.router_fp32 && !s.routing_bias);
    // Checkpoint parameters (integers, no tolerance). Sliding attention: q 2,816 × 16 × 256 =
    // 11,534,336, k and v 2,816 × 8 × 256 = 5,767,168 each, o 11,534,336 → 34,603,008. Full (no
    // v_proj): q 2,816 × 16 × 512 = 23,068,672, k 2,816 × 2 × 512 = 2,883,584, o 23,068,672 →
    // 49,020,928. Dense MLP 3 × 2,816 × 2,112 = 17,842,176; experts 128 × 3 × 2,816 × 704 =
    // 761,266,176; router proj 128 × 2,816 = 360,448, scale 2,816, per_expert_scale 128; seven norms
    // 7 × 2,816 = 19,712; q/k norms 2 × 256 (2 × 512 full); layer_scalar 1.
    let ffn = 17_842_176 + 761_266_176 + 360_448 + 2_816 + 128 + 19_712 + 1;
    let swa = 34_603_008 + ffn + 512;
    let full = 49_020_928 + ffn + 1_024;
    assert_eq!((swa, full), (814_094_977_u64, 828_513_409_u64));
    // 25 sliding + 5 full + final norm + tied embedding 262,144 × 2,816 = 738,197,504.
    let total = 25 * swa + 5 * full + 2_816 + 738_197_504;
    assert_eq!(total, 25_233_141_790); // the card's "25.2B"
    // Active: 120 idle experts a layer × 3 × 2,816 × 704 = 5,947,392 each, 30 layers.
    assert_eq!(total - 30 * 120 * 5_947_392, 3_822_530_590); // the card's "3.8B"
    // Loaded at tp 1: the full layers' V slots too (5 × 2,883,584), 2 B a parameter.
    // vision54: plus the tower and `embed_vision` (572,794,416 at tp 1, `tests/tests/vision54.rs`).
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * (total + 5 * 2_883_584 + 572_794_416)
    );
    // KV a token at tp 4: full max(1, 2 / 4) = 1 head × (512 + 512) × 2 B = 2,048; sliding 8 / 4 = 2 ×
    // (256 + 256) × 2 = 2,048 → 30 × 2,048 = 61,440 B.
    assert_eq!(s.mimo_v2_layer_cells(4), Some((2_048, 2_048)));
    assert_eq!(s.mimo_v2_sglang_cell(4, false), Some(61_440));
}
