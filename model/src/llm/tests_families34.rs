//! families34 (issue #17): Qwen4-Exp (`Qwen4ExpForConditionalGeneration`, `llm::qwen4_exp`): the
//! Qwen3.8-Flash-Next config read and its parameters counted by hand from SGLang 0.5.23
//! `models/qwen4_exp.py`, `models/qwen3_5.py`, `models/qwen2_moe.py`, `layers/hyperconnection.py`
//! and `layers/attention/qsa/qsa_indexer.py`, then the refusal.
use super::qwen4_exp::Geometry;
use super::*;

const FLASH_NEXT: &str = include_str!("../../../tests/data/models/qwen3.8-flash-next/config.json");

fn flash_next() -> Geometry {
    let cfg = config::ModelConfig::from_json(FLASH_NEXT).expect("parses");
    Geometry::read(&cfg, "Qwen4ExpForConditionalGeneration").expect("Qwen3.8-Flash-Next reads")
}

/// Parameters by hand (exact integers; tolerance none). h = 2,560, m = 4 streams, m·h = 10,240.
/// - gated residual: norm 10,240 + down 10,240 × 320 + up 320 × 10,240 + write gate 10,240 × 4 =
///   10,240 + 3,276,800 + 3,276,800 + 40,960 = 6,604,800 (final read, no gate: 6,563,840);
/// - GDN: in_proj_qkvz 2,560 × (2 × 2,048 + 2 × 6,144) = 41,943,040; in_proj_ba 2,560 × 96 =
///   245,760; conv1d (2 × 2,048 + 6,144) × 4 = 40,960; A_log 48, dt_bias 48, norm 128; out_proj
///   6,144 × 2,560 = 15,728,640 → 57,958,624;
/// - attention: q_proj 2,560 × 24 × 256 × 2 = 31,457,280; k, v 2 × 2,560 × 512 = 2,621,440; o_proj
///   6,144 × 2,560 = 15,728,640; q/k norms 512 → 49,807,872; indexer 2,560 × 5 × 128 + 256 =
///   1,638,656 → 51,446,528;
/// - MoE: router 512 × 2,560 = 1,310,720; experts 512 × 3 × 2,560 × 640 = 2,516,582,400; shared
///   4,915,200 and its gate 2,560 → 2,522,810,880;
/// - n-gram layer: key_proj 2,560 × 10,240 = 26,214,400; value_proj 2,560 × 2,560 = 6,553,600;
///   3 norms 30,720; conv 40,960 → 32,839,680; table: the 16 primes from 20,000,003 to 20,000,171
///   sum to 320,001,446, padded to 128 → 320,001,536 rows × 2,560 / 16 = 160 → 51,200,245,760.
///
/// 36 GDN layers × (57,958,624 + 2 × 6,604,800 + 2,522,810,880) = 36 × 2,593,979,104 =
/// 93,383,247,744; 12 attention layers × (51,446,528 + 13,209,600 + 2,522,810,880) = 12 ×
/// 2,587,467,008 = 31,049,604,096; embedding and head 2 × 248,320 × 2,560 = 1,271,398,400; + the
/// final read 6,563,840 and the n-gram layer 32,839,680 → 125,743,653,760 (card: 125B). With the
/// table 176,943,899,520. Active: less 48 × 502 × 4,915,200 = 118,436,659,200 → 7,306,994,560;
/// without embedding and head 6,035,596,160 (card: 6B).
#[test]
fn qwen3_8_flash_next_parameters_by_hand() {
    let g = flash_next();
    assert_eq!(
        (g.layers(), g.attention_layers(), g.hidden, g.hc_count),
        (48, 12, 2_560, 4)
    );
    assert_eq!(
        (g.ple_layers.clone(), g.ngram_heads, g.ple_embed_dim),
        (vec![2], 16, 2_560)
    );
    assert_eq!(g.gated_residual_params(true), 6_604_800);
    assert_eq!(g.gated_residual_params(false), 6_563_840);
    assert_eq!(g.gdn_params(), 57_958_624);
    assert_eq!(g.attention_params(), 51_446_528);
    assert_eq!(g.moe_params(), 2_522_810_880);
    assert_eq!(g.ple_layer_params(), 32_839_680);
    assert_eq!(g.ngram_rows(0), 320_001_536);
    assert_eq!(g.ngram_table_params(), 51_200_245_760);
    let layers = 36 * 2_593_979_104_u64 + 12 * 2_587_467_008;
    assert_eq!(layers, 124_432_851_840);
    assert_eq!(g.main_params(), layers + 1_271_398_400 + 6_563_840 + 32_839_680);
    assert_eq!(g.main_params(), 125_743_653_760);
    assert_eq!(g.params(), 176_943_899_520);
    assert_eq!(g.active_params(), 7_306_994_560);
    assert_eq!(g.active_params() - 1_271_398_400, 6_035_596_160);
}

/// SGLang's QSA pool a token at bf16 (`qsa_kv_pool.py`): 12 layers × (K and V 2 × 2 heads × 256 ×
/// 2 B = 2,048, + index key 1 × 128 × 2 B / 4 = 64) = 25,344 B. GDN state a request (tp 1, fp32
/// recurrent state): 36 × (48 × 128 × 128 × 4 + 10,240 × 3 × 2) = 36 × 3,207,168 = 115,458,048 B.
#[test]
fn qwen3_8_flash_next_cache_bytes_by_hand() {
    let g = flash_next();
    assert_eq!(g.sglang_kv_bytes_per_token(), 25_344);
    assert_eq!(36 * g.gdn.state_bytes(1), 115_458_048);
}

/// The config is refused as not modelled, naming what was read and the first releases (SGLang
/// 0.5.20, vLLM 0.29.0), never lowered.
#[test]
fn qwen4_exp_is_refused_as_not_modelled() {
    let e = ModelSpec::from_config_json(FLASH_NEXT, Quantization::bf16())
        .expect_err("not modelled")
        .to_string();
    for part in [
        "architecture `Qwen4ExpForConditionalGeneration` is not modelled",
        "48 layers (36 Gated DeltaNet, 12 gated attention with a QSA indexer of 4 heads x 128 choosing 2048 tokens",
        "n-gram embeddings before layers [2] (51200245760 parameters in their tables)",
        "125743653760 main-model parameters (7306994560 active a token) by hand, 176943899520 with the tables",
        "25344 B a token",
        "115458048 B of GDN state a request",
        "from 0.5.20",
        "vLLM both names from 0.29.0",
    ] {
        assert!(e.contains(part), "{part} not in {e}");
    }
}

/// Bad keys are named with the engine's rule, not "not modelled": SGLang's QSA profile refuses a
/// second index KV head and a budget / ratio outside {512, 2,048}; `Qwen4ExpTextConfig` refuses
/// one stream; a layer type it does not know; a missing GDN key.
#[test]
fn qwen4_exp_bad_keys_are_named() {
    let cases = [
        (
            "\"indexer_kv_heads\": 1",
            "\"indexer_kv_heads\": 2",
            "indexer_kv_heads=1",
        ),
        (
            "\"indexer_budget\": 2048",
            "\"indexer_budget\": 1024",
            "one of [512, 2048]",
        ),
        (
            "\"hc_count\": 4",
            "\"hc_count\": 1",
            "Qwen4-Exp requires hc_count > 1, got 1.",
        ),
        (
            "\"linear_attention\",",
            "\"sliding_attention\",",
            "`layer_types` = \"sliding_attention\"",
        ),
        (
            "\"linear_num_key_heads\": 16,",
            "",
            "missing `linear_num_key_heads`",
        ),
        (
            "\"heads_per_ngram\": 8",
            "\"heads_per_ngram\": 7",
            "divisible by the n-gram heads (14)",
        ),
    ];
    for (from, to, want) in cases {
        assert!(FLASH_NEXT.contains(from), "{from}");
        let text = FLASH_NEXT.replacen(from, to, 1);
        let e = ModelSpec::from_config_json(&text, Quantization::bf16())
            .expect_err(want)
            .to_string();
        assert!(e.contains(want), "{want} not in {e}");
        assert!(!e.contains("is not modelled"), "{e}");
    }
}

/// vLLM's text-only name reads the same keys at the top level (`Qwen4ExpConfig`'s older text-only
/// layout) and is refused the same way.
#[test]
fn qwen4_exp_causal_lm_name_is_refused_too() {
    let v: serde_json::Value = serde_json::from_str(FLASH_NEXT).expect("json");
    let mut text = v["text_config"].clone();
    text["architectures"] = serde_json::json!(["Qwen4ExpForCausalLM"]);
    let e = ModelSpec::from_config_json(&text.to_string(), Quantization::bf16())
        .expect_err("not modelled")
        .to_string();
    assert!(
        e.contains("architecture `Qwen4ExpForCausalLM` is not modelled"),
        "{e}"
    );
    assert!(e.contains("125743653760 main-model parameters"), "{e}");
}

/// Hunyuan V4 and Mistral Large 4 are refused by name under every name the engines register, with
/// the first releases read from the wheels (SGLang 0.5.20 / none through 0.5.23; vLLM 0.29.0 /
/// 0.34.0), whatever else their config holds. (MiniMax-M3, refused by name here until families37,
/// is read and counted: `llm::minimax_m3`, its tests in the integration suite families37.)
#[test]
fn minimax_m3_hunyuan_v4_mistral_large_4_are_refused_by_name() {
    for (arch, sglang, vllm) in [
        ("HYV4ForCausalLM", "SGLang from 0.5.20", "vLLM from 0.29.0"),
        (
            "MistralLarge4ForCausalLM",
            "no SGLang release read",
            "vLLM from 0.34.0",
        ),
    ] {
        let cfg = format!(r#"{{"architectures": ["{arch}"], "hidden_size": 6144, "num_hidden_layers": 60}}"#);
        let e = ModelSpec::from_config_json(&cfg, Quantization::bf16())
            .expect_err("refused")
            .to_string();
        assert!(
            e.contains(&format!("architecture `{arch}` is not modelled")),
            "{e}"
        );
        assert!(e.contains(sglang) && e.contains(vllm), "{arch}: {e}");
        assert!(e.contains("read no config.json"), "{e}");
    }
}

const HY3: &str = include_str!("../../../scenarios/models/hy3/config.json");

/// Hy3's parameters by hand (exact integers; tolerance none), SGLang 0.5.23 `hunyuan_v3.py`:
/// attention 4,096 × (64 + 2 × 8) × 128 = 41,943,040 + o_proj 8,192 × 4,096 = 33,554,432 + q/k norms
/// 256 + two layer norms 8,192 = 75,505,920; dense layer 0: + 3 × 4,096 × 13,312 = 163,577,856 →
/// 239,083,776; a MoE layer: router 192 × 4,096 = 786,432, expert bias 192, experts 192 × 3 × 4,096 ×
/// 1,536 = 3,623,878,656, shared 18,874,368 → 3,643,539,648, + attention → 3,719,045,568; 79 of them
/// 293,804,599,872; embedding and head 2 × 120,832 × 4,096 = 989,855,744; final norm 4,096 →
/// 295,033,543,488 (card: 295B). Active: less 79 × 184 × 18,874,368 = 274,357,813,248 →
/// 20,675,730,240 (card: 21B).
#[test]
fn hy3_parameters_by_hand() {
    let cfg = config::ModelConfig::from_json(HY3).expect("parses");
    let g = super::hy3::Geometry::read(&cfg).expect("Hy3 reads");
    assert_eq!(
        (g.layers, g.dense_layers, g.experts, g.topk, g.shared),
        (80, 1, 192, 8, 1)
    );
    assert!(g.qk_norm);
    assert_eq!(g.attention_params(), 75_505_920);
    assert_eq!(g.moe_params(), 3_643_539_648);
    assert_eq!(g.params(), 239_083_776 + 79 * 3_719_045_568 + 989_855_744 + 4_096);
    assert_eq!(g.params(), 295_033_543_488);
    assert_eq!(g.active_params(), 295_033_543_488 - 274_357_813_248);
    assert_eq!(g.active_params(), 20_675_730_240);
    // families36: lowered now (`Architecture::Hy3`); its bytes are pinned in `llm::tests_families36`.
    let s = ModelSpec::from_config_json(HY3, Quantization::bf16()).expect("Hy3 lowers");
    assert_eq!(s.arch, super::Architecture::Hy3);
    let bad = HY3.replacen("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 7", 1);
    let e = ModelSpec::from_config_json(&bad, Quantization::bf16())
        .expect_err("bad")
        .to_string();
    assert!(e.contains("num_key_value_heads"), "{e}");
}
