//! families28 (issue #17): Step-3.5-Flash (`Step3p5ForCausalLM`, `llm::step3p5`), by hand from SGLang
//! 0.5.9 `models/step3p5.py` and the preset's config.
use super::*;

const FLASH: &str = include_str!("../../../scenarios/models/step-3.5-flash/config.json");

fn spec() -> ModelSpec {
    ModelSpec::from_config_json(FLASH, Quantization::bf16()).expect("Step-3.5-Flash lowers")
}

#[test]
fn step3p5_flash_parameters_by_hand() {
    let s = spec();
    assert_eq!(s.arch, Architecture::Step3p5);
    assert_eq!(
        (s.num_layers, s.hidden, s.vocab, s.heads, s.kv_heads, s.head_dim),
        (45, 4_096, 128_896, 64, 8, 128)
    );
    // layer_types: full at every 4th layer (0, 4, …, 44) → 12 full, 33 sliding (the 3 MTP entries
    // after layer 44 are not read).
    assert_eq!(s.sliding_layers(), 33);
    assert_eq!(s.sliding_window, Some(512));
    let a = s.mimo_v2.expect("two attention kinds");
    assert_eq!((a.swa_heads, a.swa_kv_heads, a.swa_head_dim), (96, 8, 128));
    assert!(a.head_gate && a.qk_norms && !a.swa_sink && !a.v_scale);
    // moe_layers_enum "3,…,44": 3 dense layers then 42 MoE of 288 × 1,280 top-8 + 1 shared expert.
    let moe = s.moe.expect("MoE");
    assert_eq!(test_util::moe_shape(&moe), (288, 8, 1_280, 1));
    assert_eq!(s.layers[2], Ffn::Dense { intermediate: 11_264 });
    assert_eq!(s.layers[3], Ffn::Moe(moe));
    assert_eq!(s.layers.iter().filter(|f| matches!(f, Ffn::Moe(_))).count(), 42);
    assert!(s.router_fp32 && s.routing_bias && !s.tie_word_embeddings);
    // Parameters (integers, no tolerance). Attention, full layer: q 4,096 × 64 × 128 = 33,554,432;
    // k + v 2 × 4,096 × 8 × 128 = 8,388,608; o 33,554,432; g_proj 4,096 × 64 = 262,144; q/k norms
    // 2 × 128 → 75,759,872. Sliding layer (96 heads): 50,331,648 + 8,388,608 + 50,331,648 + 393,216
    // + 256 = 109,445,376.
    let full = 33_554_432 + 8_388_608 + 33_554_432 + 262_144 + 256;
    let swa = 50_331_648 + 8_388_608 + 50_331_648 + 393_216 + 256;
    assert_eq!((full, swa), (75_759_872_u64, 109_445_376_u64));
    // Dense MLP 3 × 4,096 × 11,264 = 138,412,032; an expert 3 × 4,096 × 1,280 = 15,728,640; a MoE
    // layer 288 experts + 1 shared + router 288 × 4,096 = 1,179,648 + bias 288 = 4,546,756,896.
    let moe_layer = 289 * 15_728_640 + 1_179_648 + 288;
    assert_eq!(moe_layer, 4_546_756_896_u64);
    // 12 full + 33 sliding + 3 dense + 42 MoE + 45 × 2 norms of 4,096 + final norm + embedding and
    // untied head 2 × 128,896 × 4,096 = 1,055,916,032.
    let total = 12 * full + 33 * swa + 3 * 138_412_032 + 42 * moe_layer + 90 * 4_096 + 4_096 + 1_055_916_032;
    assert_eq!(total, 196_956_130_368); // the card's "196B" (+0.5 %); the 3 MTP layers not counted
    // Active (the card's "11B"): total − 42 layers × 280 idle experts × 15,728,640 = 11,987,323,968;
    // without the input embedding (527,958,016) 11,459,365,952.
    let active = total - 42 * 280 * 15_728_640;
    assert_eq!(active, 11_987_323_968);
    assert_eq!(active - 527_958_016, 11_459_365_952);
    // bf16 at tp 1: 2 B a parameter, the fp32 router 2 B more a weight (42 × 1,179,648 × 2 =
    // 99,090,432) and its fp32 bias 2 B more (42 × 288 × 2 = 24,192).
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 99_090_432 + 24_192);
    // KV a token at tp 8: every layer 1 KV head (8 / 8) × (128 + 128) × 2 B = 512 B; 45 layers →
    // 23,040 B (SGLang 0.5.9 sizes each kind over its own layers: 12 × 512 + 33 × 512).
    assert_eq!(s.mimo_v2_layer_cells(8), Some((512, 512)));
    assert_eq!(s.mimo_v2_sglang_cell(8, false), Some(23_040));
}

/// The refusals of `llm::step3p5`: a shared expert not one expert wide, a MoE id past the layers, an
/// unknown layer type; SGLang's tp ≤ experts and head divisibility (`mimo_v2::check_tp`).
#[test]
fn step3p5_flash_refusals() {
    let with = |key: &str, val: serde_json::Value| {
        let mut v: serde_json::Value = serde_json::from_str(FLASH).unwrap();
        v[key] = val;
        ModelSpec::from_config_json(&v.to_string(), Quantization::bf16())
    };
    let e = with("share_expert_dim", 2_560.into()).unwrap_err().to_string();
    assert!(e.contains("share_expert_dim") && e.contains("1280"), "{e}");
    let e = with("moe_layers_enum", "3,45".into()).unwrap_err().to_string();
    assert!(
        e.contains("moe_layers_enum") && e.contains("below num_hidden_layers = 45"),
        "{e}"
    );
    let e = with("layer_types", serde_json::json!(vec!["chunked_attention"; 48]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("chunked_attention"), "{e}");
    let e = with("layer_types", serde_json::json!(vec!["full_attention"; 40]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("at least num_hidden_layers = 45"), "{e}");
    // 96 sliding heads divide tp 8 but not tp 5; 64 full heads do not divide 5 either.
    let s = spec();
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(5).is_err());
}
