//! families29 (issue #17): DeepSeek-V4 (`DeepseekV4ForCausalLM`, `llm::deepseek_v4`): its config read
//! and its parameters counted by hand from SGLang 0.5.12 `models/deepseek_v4.py`,
//! `layers/attention/dsv4/{compressor,indexer}.py` and `models/deepseek_v2.py` (`MoEGate`); dsv4run55:
//! its lowering.
use super::deepseek_v4::Geometry;
use super::*;

const FLASH: &str = include_str!("../../../tests/data/models/deepseek-v4-flash/config.json");

fn flash() -> Geometry {
    let cfg = config::ModelConfig::from_json(FLASH).expect("parses");
    Geometry::read(&cfg).expect("DeepSeek-V4-Flash reads")
}

/// Parameters by hand (exact integers; tolerance none). Per layer:
/// - attention: wq_a 4,096 × 1,024 = 4,194,304; q_norm 1,024; wkv 4,096 × 512 = 2,097,152; kv_norm
///   512; wq_b 1,024 × 64 × 512 = 33,554,432; wo_a (32,768 / 8) × (8 × 1,024) = 33,554,432; wo_b
///   8,192 × 4,096 = 33,554,432; sink 64 → 106,956,352;
/// - norms 2 × 4,096 = 8,192; mHC 2 × (24 × 16,384 + 24 + 3) = 786,486 (mix (2 + 4) × 4 = 24);
/// - router 256 × 4,096 = 1,048,576, its bias 256 past the 3 hash layers; shared expert 3 × 4,096 ×
///   2,048 = 25,165,824; routed 256 × 25,165,824 = 6,442,450,944;
/// - compression (ratio 4, 21 layers): 8,393,216 + 8,388,608 + 262,144 + 2,098,304 = 19,142,272;
///   (ratio 128, 20 layers): 4,260,352.
///
/// A layer without compression: 106,956,352 + 8,192 + 786,486 + 1,048,576 + 25,165,824 +
/// 6,442,450,944 = 6,576,416,374 (+ 256 past the hash layers). 43 × 6,576,416,374 + 40 × 256 +
/// 21 × 19,142,272 + 20 × 4,260,352 = 282,785,904,082 + 10,240 + 401,987,712 + 85,207,040 =
/// 283,273,109,074; top: 2 × 129,280 × 4,096 + 4,096 + 16 × 4,096 + 4 + 1 = 1,059,131,397 →
/// 284,332,240,471 (card: 284B). Active: less 43 × 250 × 25,165,824 = 270,532,608,000 →
/// 13,799,632,471 (card: 13B).
#[test]
fn deepseek_v4_flash_parameters_by_hand() {
    let g = flash();
    assert_eq!(
        (g.layers(), g.hidden, g.heads, g.head_dim, g.rope_dim),
        (43, 4_096, 64, 512, 64)
    );
    assert_eq!(
        (g.layers_of_ratio(0), g.layers_of_ratio(4), g.layers_of_ratio(128)),
        (2, 21, 20)
    );
    assert_eq!(
        (g.hc_mult, g.o_groups, g.o_lora_rank, g.hash_layers, g.window),
        (4, 8, 1_024, 3, 128)
    );
    assert_eq!(g.attention_params(), 106_956_352);
    assert_eq!(g.compression_params(4), 19_142_272);
    assert_eq!(g.compression_params(128), 4_260_352);
    assert_eq!(g.compression_params(0), 0);
    let plain = 106_956_352_u64 + 8_192 + 786_486 + 1_048_576 + 25_165_824 + 6_442_450_944;
    assert_eq!(plain, 6_576_416_374);
    let layers = 43 * plain + 40 * 256 + 21 * 19_142_272 + 20 * 4_260_352;
    assert_eq!(layers, 283_273_109_074);
    assert_eq!(g.params(), layers + 1_059_131_397);
    assert_eq!(g.params(), 284_332_240_471);
    assert_eq!(g.active_params(), 284_332_240_471 - 270_532_608_000);
    assert_eq!(g.active_params(), 13_799_632_471);
}

/// dsv4run55: the config lowers as `Architecture::DeepseekV4`, carrying its geometry, 64 query heads
/// over one 512-wide KV head, a MoE of 256 experts top-6 with one shared expert of 2,048 in each of the
/// 43 layers, and SGLang's weights a rank at tp 8 (families35's hand sum, fp4 experts with fp32
/// scales: 23,882,237,020 B; exact). tp 3 is refused with the geometry's text.
#[test]
fn deepseek_v4_lowers() {
    let s = ModelSpec::from_config_json(FLASH, Quantization::bf16()).expect("lowers");
    assert_eq!(s.arch, super::Architecture::DeepseekV4);
    assert_eq!((s.heads, s.kv_heads, s.head_dim, s.num_layers), (64, 1, 512, 43));
    assert_eq!(s.first_k_dense_replace, 0);
    assert_eq!(s.moe, Some(super::MoeShape::new(256, 6, 2048, 1)));
    assert!(s.deepseek_v4.as_ref().is_some_and(|g| g.fp4_experts));
    assert_eq!(s.weight_breakdown(8).total(), 23_882_237_020);
    let e = s.validate_tp(3).expect_err("tp 3").to_string();
    assert!(
        e.contains("num_attention_heads = 64 is not divisible by tp 3"),
        "{e}"
    );
}

/// Bad keys are named: a compress ratio SGLang's assert rejects, a list shorter than the layers, a
/// second KV head, a missing mHC width.
#[test]
fn deepseek_v4_bad_keys_are_named() {
    let cases = [
        (
            "\"compress_ratios\": [0, 0, 4,",
            "\"compress_ratios\": [0, 0, 8,",
            "`compress_ratios` = 8",
        ),
        (
            "\"num_hidden_layers\": 43",
            "\"num_hidden_layers\": 47",
            "`compress_ratios` = 46 entries",
        ),
        (
            "\"num_key_value_heads\": 1",
            "\"num_key_value_heads\": 2",
            "`num_key_value_heads` = 2",
        ),
        ("\"hc_mult\": 4,", "", "missing `hc_mult`"),
        ("\"o_groups\": 8", "\"o_groups\": 7", "`o_groups` = 7"),
    ];
    for (from, to, want) in cases {
        assert!(FLASH.contains(from), "{from}");
        let text = FLASH.replacen(from, to, 1);
        let e = ModelSpec::from_config_json(&text, Quantization::bf16())
            .expect_err(want)
            .to_string();
        assert!(e.contains(want), "{want} not in {e}");
        assert!(!e.contains("is not modelled"), "{e}");
    }
}

/// GLM-5-Next is refused by name under both names the engines register, with the first releases
/// (SGLang 0.5.20, vLLM 0.30.0), whatever else its config holds.
#[test]
fn glm5_next_is_refused_by_name() {
    for arch in ["Glm5NextForConditionalGeneration", "Glm5NextForCausalLM"] {
        let cfg = format!(r#"{{"architectures": ["{arch}"], "hidden_size": 4096, "num_hidden_layers": 45}}"#);
        let e = ModelSpec::from_config_json(&cfg, Quantization::bf16())
            .expect_err("refused")
            .to_string();
        assert!(
            e.contains(&format!("architecture `{arch}` is not modelled")),
            "{e}"
        );
        assert!(
            e.contains("SGLang from 0.5.20") && e.contains("vLLM from 0.30.0"),
            "{e}"
        );
        assert!(e.contains("no public config.json"), "{e}");
    }
}

/// SGLang 0.5.12 – 0.5.14's budget a full token for the Flash config (tolerance 1e-9 relative: the
/// engine's own float arithmetic). kv 448 + 128 + 8 = 584, indexer 132; all 46 `compress_ratios`
/// entries count (43 layers + 3 draft entries, all 0), 21 of ratio 4, 20 of ratio 128:
/// 0.1 × 584 × 46 = 2,686.4; 584 / 4 × 21 = 3,066; 584 / 128 × 20 = 91.25; 132 / 4 × 21 = 693;
/// 0.1 × 8 / 128 × 8,192 × 21 = 1,075.2; 0.1 × 128 / 128 × 4,096 × 20 = 8,192; 0.1 × 8 / 128 ×
/// 2,048 × 21 = 268.8 → 16,072.65 B. Speculative: rings 16 / 256, × 47 / 46: (2,686.4 + 3,066 +
/// 91.25 + 693 + 2,150.4 + 16,384 + 537.6) × 47 / 46 = 25,608.65 × 47 / 46 = 26,165.36...
#[test]
fn deepseek_v4_sglang_0_5_12_budget_by_hand() {
    let g = flash();
    assert_eq!(g.all_ratios.len(), 46);
    let b = deepseek_v4::sglang_0_5_12_bytes_per_full_token(&g, deepseek_v4::SGLANG_0_5_12_SWA_RATIO, false);
    let hand = 2_686.4 + 3_066.0 + 91.25 + 693.0 + 1_075.2 + 8_192.0 + 268.8;
    assert!((hand - 16_072.65_f64).abs() < 1e-9);
    assert!((b - hand).abs() <= 1e-9 * hand, "{b}");
    let s = deepseek_v4::sglang_0_5_12_bytes_per_full_token(&g, 0.1, true);
    let hand = (2_686.4 + 3_066.0 + 91.25 + 693.0 + 2_150.4 + 16_384.0 + 537.6) * 47.0 / 46.0;
    assert!((s - hand).abs() <= 1e-9 * hand, "{s} vs {hand}");
    // dsv4run55: the model lowers now; the refusal that named this budget is gone (the memory plan
    // prints it: tests/tests/dsv4run55.rs).
}

/// SGLang 0.5.12's pools from 60 GiB left for KV (exact integers once the float division is taken;
/// tolerance none): 64,424,509,440 / 16,072.65 = 4,008,331.5 → 4,008,331 → 15,657 pages of 256 =
/// 4,008,192 full tokens; swa int(400,819.2) = 400,819 → 1,565 pages = 400,640; c4 4,008,192 / 4 =
/// 1,002,048; c128 / 128 = 31,314; states 400,640 // 128 = 3,130 windows × 8 = 25,040 and × 128 =
/// 400,640.
#[test]
fn deepseek_v4_sglang_0_5_12_pools_by_hand() {
    let g = flash();
    let p = deepseek_v4::sglang_0_5_12_pools(&g, 60 << 30, 0.1, false);
    assert_eq!(
        (p.full, p.swa, p.c4, p.c128, p.c4_state, p.c128_state),
        (4_008_192, 400_640, 1_002_048, 31_314, 25_040, 400_640)
    );
}
