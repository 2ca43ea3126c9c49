//! families12 (issue #17): Ministral 3 (`Mistral3ForConditionalGeneration` with a `ministral3` text
//! tower) by hand from the bundled presets: the Llama-layout text tower (SGLang `models/ministral3.py`
//! `Ministral3ForCausalLM(LlamaForCausalLM)`), the Pixtral ViT and the patch-merger projector as for
//! Mistral-Small-3.x (`tests_h3`).

use super::*;

const MINISTRAL3_3B: &str =
    include_str!("../../../scenarios/models/ministral-3-3b-instruct-2512-bf16/config.json");
const MINISTRAL3_8B: &str =
    include_str!("../../../scenarios/models/ministral-3-8b-instruct-2512-bf16/config.json");
const MINISTRAL3_14B: &str =
    include_str!("../../../scenarios/models/ministral-3-14b-instruct-2512-bf16/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// The vision side every size shares (tp 1), as `tests_h3::mistral3_weights_per_rank` counts it:
/// 24 Pixtral blocks of 16,779,264 = 402,702,336, patch conv 1024·3·14·14 = 602,112, ln_pre 1,024
/// → 403,305,472; the projector adds its norm 1,024 and merger 1024·4096 = 4,194,304 plus
/// linear_1 1024·H and linear_2 H·H for the text width H.
fn vision_params(h: u64) -> u64 {
    403_305_472 + 1_024 + 4_194_304 + 1_024 * h + h * h
}

/// Ministral 3 8B by hand. Text (Llama layout, 32 heads / 8 KV heads of 128): layer norms 2·4,096 =
/// 8,192; q 4,096·4,096 = 16,777,216; k and v 1,024·4,096 = 4,194,304 each; o 16,777,216; SwiGLU
/// 3·14,336·4,096 = 176,160,768 → 218,112,000 a layer, × 34 = 7,415,808,000; embedding and untied
/// LM head 131,072·4,096 = 536,870,912 each; final norm 4,096 → **8,489,553,920** (the card's "8.4B
/// Language Model"). Vision and projector (H = 4,096): 403,305,472 + 1,024 + 4,194,304 + 4,194,304 +
/// 16,777,216 = 428,472,320 (the card's "0.4B Vision Encoder"). Total 8,918,026,240 × 2 B =
/// 17,836,052,480 B at tp 1. KV: 34 layers × 2 × 8 heads × 128 × 2 B = 139,264 B a token at tp 1.
#[test]
fn ministral3_8b_parameters_by_hand() {
    let s = spec(MINISTRAL3_8B);
    assert_eq!(s.arch, Architecture::Mistral3);
    assert!(s.ministral3 && s.has_vision && !s.tie_word_embeddings);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (34, 32, 8, 128));
    assert_eq!(
        (s.hidden, s.dense_intermediate, s.vocab),
        (4_096, 14_336, 131_072)
    );
    assert_eq!(s.context_len, Some(262_144));
    assert_eq!(vision_params(4_096), 428_472_320);
    assert_eq!(s.weight_breakdown(1).vision, 2 * 428_472_320);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (8_489_553_920 + 428_472_320));
    assert_eq!(s.weight_bytes_per_rank(1).0, 17_836_052_480);
    assert_eq!(s.kv_cell_bytes(1), 139_264);
    assert_eq!(s.kv_cell_bytes(2), 69_632);
}

/// Ministral 3 14B by hand. Text: norms 2·5,120 = 10,240; q 4,096·5,120 = 20,971,520 (head_dim 128 ×
/// 32 heads = 4,096 ≠ 5,120: explicit `head_dim`); k, v 1,024·5,120 = 5,242,880 each; o 20,971,520;
/// SwiGLU 3·16,384·5,120 = 251,658,240 → 304,097,280 a layer, × 40 = 12,163,891,200; embedding and
/// LM head 131,072·5,120 = 671,088,640 each; final norm 5,120 → **13,506,073,600** (the card's "13.5B
/// Language Model"). Vision and projector (H = 5,120): 403,305,472 + 1,024 + 4,194,304 + 5,242,880 +
/// 26,214,400 = 438,958,080 (as Mistral-Small-3.2's). Total 13,945,031,680 × 2 B = 27,890,063,360 B.
/// At tp 4 (SGLang: Pixtral blocks sharded, projector replicated): text 2·32,768·5,120 =
/// 335,544,320 + 40 · (10,240 + 1,536·5,120 + 5,120·1,024 + 3·4,096·5,120 = 76,032,000) + 5,120 =
/// 3,376,829,440; vision 24 · (2,048 + 768·1,024 + 1,024·256 + 2,048·1,024 + 1,024·1,024 =
/// 4,196,352) = 100,712,448 + 602,112 + 1,024 + 35,652,608 = 136,968,192 → 3,513,797,632 × 2 B =
/// 7,027,595,264 B. KV: 40 × 2 × 8 × 128 × 2 B = 163,840 B at tp 1, 40,960 at tp 4.
#[test]
fn ministral3_14b_parameters_by_hand() {
    let s = spec(MINISTRAL3_14B);
    assert!(s.ministral3);
    assert_eq!(
        (s.num_layers, s.hidden, s.dense_intermediate),
        (40, 5_120, 16_384)
    );
    assert_eq!(vision_params(5_120), 438_958_080);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (13_506_073_600 + 438_958_080));
    assert_eq!(s.weight_bytes_per_rank(1).0, 27_890_063_360);
    assert_eq!(s.weight_bytes_per_rank(4).0, 7_027_595_264);
    assert_eq!(s.kv_cell_bytes(1), 163_840);
    assert_eq!(s.kv_cell_bytes(4), 40_960);
    s.validate_tp(4).unwrap();
}

/// Ministral 3 3B by hand, with its tied embedding (Megatron-Bridge's 3B provider and vLLM's recipe:
/// "3B: tied embeddings"). Text: norms 2·3,072 = 6,144; q 4,096·3,072 = 12,582,912; k, v
/// 1,024·3,072 = 3,145,728 each; o 12,582,912; SwiGLU 3·9,216·3,072 = 84,934,656 → 116,398,080 a
/// layer, × 26 = 3,026,350,080; one embedding 131,072·3,072 = 402,653,184; final norm 3,072 →
/// **3,429,006,336** (the "3.4B" of Megatron-Bridge's model list). Vision and projector (H = 3,072):
/// 403,305,472 + 1,024 + 4,194,304 + 3,145,728 + 9,437,184 = 420,083,712. Total 3,849,090,048 × 2 B
/// = 7,698,180,096 B. KV: 26 × 2 × 8 × 128 × 2 B = 106,496 B a token at tp 1.
#[test]
fn ministral3_3b_parameters_by_hand() {
    let s = spec(MINISTRAL3_3B);
    assert!(s.ministral3 && s.tie_word_embeddings);
    assert_eq!((s.num_layers, s.hidden, s.dense_intermediate), (26, 3_072, 9_216));
    assert_eq!(vision_params(3_072), 420_083_712);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (3_429_006_336 + 420_083_712));
    assert_eq!(s.weight_bytes_per_rank(1).0, 7_698_180_096);
    assert_eq!(s.kv_cell_bytes(1), 106_496);
}

/// The Mistral-Small-3.2 preset's text tower (`model_type` "mistral") is not Ministral 3; another
/// text type under `Mistral3ForConditionalGeneration` is refused, naming the key.
#[test]
fn ministral3_flag_and_other_text_types() {
    let small = include_str!("../../../scenarios/models/mistral-small-3.2-24b/config.json");
    assert!(!spec(small).ministral3);
    let other = MINISTRAL3_8B.replace(
        "\"model_type\": \"ministral3\"",
        "\"model_type\": \"deepseek_v3\"",
    );
    let err = ModelSpec::from_config_json(&other, Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(err.contains("text_config.model_type"), "{err}");
    assert!(err.contains("deepseek_v3"), "{err}");
    assert!(err.contains("\"ministral3\""), "{err}");
}
