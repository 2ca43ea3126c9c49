//! families17 (issue #17): dense ERNIE-4.5 (`Ernie4_5ForCausalLM` / `Ernie4_5_ForCausalLM`,
//! `llm::ernie45`) and dense Hunyuan (`HunYuanDenseV1ForCausalLM`, `llm::hunyuan`) by hand from the
//! bundled presets.

use super::*;

const ERNIE45_03B: &str = include_str!("../../../scenarios/models/ernie-4.5-0.3b-pt/config.json");
const HY_MT2_7B: &str = include_str!("../../../scenarios/models/hy-mt2-7b/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// ERNIE-4.5-0.3B by hand (exact integers).
///
/// Layer: q 1,024 → 16 × 128 = 2,048: 2,097,152; k + v 2 × 1,024 × 2 × 128 = 524,288; o 2,097,152 (no
/// bias: `use_bias` false); SwiGLU 3 × 1,024 × 3,072 = 9,437,184; two RMSNorms 2,048 → 14,157,824,
/// × 18 = 254,840,832. Tied embedding 103,424 × 1,024 = 105,906,176 (103,424 = 64 × 1,616: no
/// padding); final norm 1,024. Total 254,840,832 + 105,906,176 + 1,024 = **360,748,032**: the
/// "360 million parameters" apxml.com/models/ernie-45-03b-base gives (a rounded size, not an engine
/// log).
#[test]
fn ernie45_03b_parameters_by_hand() {
    let s = spec(ERNIE45_03B);
    assert_eq!(s.arch, Architecture::Ernie45);
    assert!(!s.ernie45_legacy_name && !s.attention_bias && !s.qk_norm && s.tie_word_embeddings);
    assert_eq!((s.head_dim, s.heads, s.kv_heads), (128, 16, 2));
    assert!(s.moe.is_none());
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 360_748_032);
    // tp 2: q 1,024 × 1,024 = 1,048,576; k + v 2 × 1,024 × 128 = 262,144; o 1,048,576; SwiGLU
    // 3 × 1,024 × 1,536 = 4,718,592; norms 2,048 → 7,079,936, × 18 = 127,438,848; embedding 51,712 ×
    // 1,024 = 52,953,088; final norm 1,024 → 180,392,960 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 180_392_960);
    // KV cell: 18 layers × 2 KV heads × 2 × 128 × 2 B = 18,432 at tp 1; one head a rank at tp 2
    // (9,216), replicated past it (tp 4: 9,216).
    assert_eq!(s.kv_cell_bytes(1), 18_432);
    assert_eq!((s.kv_cell_bytes(2), s.kv_cell_bytes(4)), (9_216, 9_216));
}

/// The remote-code name lowers to the same model, flagged for the engines' release rules;
/// `use_bias = true` is refused naming the key.
#[test]
fn ernie45_names_and_refusals() {
    let legacy = spec(&ERNIE45_03B.replace("\"Ernie4_5ForCausalLM\"", "\"Ernie4_5_ForCausalLM\""));
    assert_eq!(legacy.arch, Architecture::Ernie45);
    assert!(legacy.ernie45_legacy_name);
    assert_eq!(legacy.weight_bytes_per_rank(1).0, 2 * 360_748_032);
    let e = ModelSpec::from_config_json(
        &ERNIE45_03B.replace("\"use_bias\": false", "\"use_bias\": true"),
        Quantization::bf16(),
    )
    .expect_err("use_bias")
    .to_string();
    assert!(e.contains("use_bias") && e.contains("ernie45.py"), "{e}");
}

/// Hy-MT2-7B (Hunyuan-7B's layout) by hand (exact integers).
///
/// Layer: q 4,096 × 4,096 = 16,777,216; k + v 2 × 4,096 × 8 × 128 = 8,388,608; o 16,777,216; per-head
/// q/k RMSNorms (`use_qk_norm`) 2 × 128 = 256; SwiGLU 3 × 4,096 × 14,336 = 176,160,768; two RMSNorms
/// 8,192 → 218,112,256, × 32 = 6,979,592,192. Tied embedding 128,167 × 4,096 = 524,972,032; final norm
/// 4,096. Total **7,504,568,320** parameters (the "7B" of the name; no published exact count was
/// found). The engines pad the vocabulary to 128,192 (64 × 2,003): 25 × 4,096 = 102,400 rows more at
/// tp 1 → 7,504,670,720 parameters loaded.
#[test]
fn hy_mt2_7b_parameters_by_hand() {
    let s = spec(HY_MT2_7B);
    assert_eq!(s.arch, Architecture::HunYuanDenseV1);
    assert!(s.qk_norm && !s.attention_bias && s.tie_word_embeddings);
    assert_eq!((s.head_dim, s.heads, s.kv_heads), (128, 32, 8));
    assert!(s.moe.is_none());
    let total: u64 = 6_979_592_192 + 524_972_032 + 4_096;
    assert_eq!(total, 7_504_568_320);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (total + 25 * 4_096));
    // tp 2: q 2,048 × 4,096 = 8,388,608; k + v 2 × 512 × 4,096 = 4,194,304; o 8,388,608; q/k norms 256
    // (replicated); SwiGLU 3 × 4,096 × 7,168 = 88,080,384; norms 8,192 → 109,060,352, × 32 =
    // 3,489,931,264; embedding 64,096 × 4,096 = 262,537,216; final norm 4,096 → 3,752,472,576 × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 3_752_472_576);
    // KV cell: 32 layers × 8 KV heads × 2 × 128 × 2 B = 131,072 at tp 1; 65,536 at tp 2.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (131_072, 65_536));
}

/// A dense Hunyuan with experts, a biased MLP or cross-layer attention is refused naming the key;
/// without `head_dim` it reads `attention_head_dim` (here 128 = 4,096 / 32 either way).
#[test]
fn hunyuan_dense_refusals() {
    for (from, to, key) in [
        ("\"use_cla\": false", "\"use_cla\": true", "use_cla"),
        (
            "\"mlp_bias\": false",
            "\"mlp_bias\": false, \"num_experts\": 64",
            "num_experts",
        ),
        ("\"mlp_bias\": false", "\"mlp_bias\": true", "mlp_bias"),
    ] {
        let e = ModelSpec::from_config_json(&HY_MT2_7B.replace(from, to), Quantization::bf16())
            .expect_err(key)
            .to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
    let no_head_dim = spec(&HY_MT2_7B.replace("\"head_dim\": 128,", ""));
    assert_eq!(no_head_dim.head_dim, 128);
}
