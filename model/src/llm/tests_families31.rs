//! families31 (issue #17): Mistral Large 3 (`MistralLarge3ForCausalLM`, lowered as DeepSeek-V3), by hand
//! from the preset's config (a public copy of the checkpoint's params.json, mapped onto DeepSeek-V3's
//! keys as both engines' `adapt_config_dict` map it) and the engines' `models/deepseek_v2.py`.
use super::*;

const LARGE3: &str = include_str!("../../../scenarios/models/mistral-large-3-675b-instruct-2512/config.json");
const QUANT: &str = include_str!("../../../scenarios/models/mistral-large-3-675b-instruct-2512/quant.toml");

fn spec(q: Quantization) -> ModelSpec {
    ModelSpec::from_config_json(LARGE3, q).expect("Mistral Large 3 lowers")
}

/// The shape, the routing and the parameters (integers, no tolerance) against the model card's
/// "A Granular MoE Language Model with 673B params and 39B active" (mistralai/Mistral-Large-3-675B-
/// Instruct-2512; the 2.5B vision encoder is not lowered).
#[test]
fn mistral_large3_parameters_by_hand() {
    let s = spec(Quantization::bf16());
    assert_eq!(s.arch, Architecture::MistralLarge3);
    assert_eq!(
        (s.num_layers, s.hidden, s.vocab, s.heads),
        (61, 7_168, 131_072, 128)
    );
    assert_eq!(
        s.attention,
        Attention::Mla {
            q_lora_rank: Some(1_536),
            kv_lora_rank: 512,
            qk_nope_head_dim: 128,
            qk_rope_head_dim: 64,
            v_head_dim: 128,
        }
    );
    let moe = s.moe.expect("MoE");
    assert_eq!(
        (
            moe.n_routed_experts,
            moe.num_experts_per_tok,
            moe.moe_intermediate,
            moe.n_shared_experts
        ),
        (128, 4, 4_096, 1)
    );
    // first_k_dense_replace 3: layers 0-2 dense of hidden_dim 16,384, the 58 others MoE.
    assert_eq!(s.layers[2], Ffn::Dense { intermediate: 16_384 });
    assert_eq!(s.layers[3], Ffn::Moe(moe));
    assert_eq!(s.layers.iter().filter(|f| matches!(f, Ffn::Moe(_))).count(), 58);
    // topk_method null: no e_score_correction_bias (`DeepseekV2MoE` makes it for "noaux_tc" only).
    assert!(!s.routing_bias && !s.tie_word_embeddings);
    // Attention a layer: q_a 7,168 × 1,536 = 11,010,048; q_a_norm 1,536; q_b 1,536 × 128 × 192 =
    // 37,748,736; kv_a 7,168 × 576 = 4,128,768; kv_a_norm 512; kv_b 512 × 128 × 256 = 16,777,216;
    // o 128 × 128 × 7,168 = 117,440,512; two layer norms 2 × 7,168 → 187,121,664.
    let attn = 11_010_048 + 1_536 + 37_748_736 + 4_128_768 + 512 + 16_777_216 + 117_440_512 + 14_336;
    assert_eq!(attn, 187_121_664_u64);
    // A dense MLP 3 × 7,168 × 16,384 = 352,321,536; an expert 3 × 7,168 × 4,096 = 88,080,384; a MoE
    // layer 128 + 1 shared experts + router 128 × 7,168 = 917,504 (no bias) = 11,363,287,040.
    let expert = 3 * 7_168 * 4_096_u64;
    let moe_layer = 129 * expert + 917_504;
    assert_eq!(moe_layer, 11_363_287_040);
    // 61 attention blocks + 3 dense + 58 MoE + final norm + untied embedding and head 2 × 131,072 ×
    // 7,168 = 1,879,048,192.
    let total = 61 * attn + 3 * 352_321_536 + 58 * moe_layer + 7_168 + 1_879_048_192;
    assert_eq!(total, 673_421_089_792); // the card's 673B (+0.06 %)
    // bf16 at tp 1: 2 B a parameter, plus the engines' absorbed MLA copies w_kc and w_vc (DeepSeek's
    // `post_load_weights`), 2 × 128 heads × 128 × 512 × 2 B = 33,554,432 a layer, × 61 = 2,046,820,352.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 2_046_820_352);
    // Active: total − 58 layers × 124 idle experts = 39,946,968,064; without the input embedding
    // (939,524,096) 39,007,443,968: the card's 39B.
    let active = total - 58 * 124 * expert;
    assert_eq!(active, 39_946_968_064);
    assert_eq!(active - 939_524_096, 39_007_443_968);
    // MLA cell: (512 + 64) × 2 B × 61 layers = 70,272 B a token, at any tp (the latent is replicated).
    assert_eq!(s.kv_cell_bytes(8), 70_272);
}

/// The FP8 release (quant.toml): block FP8 with fp32 scales per 128 × 128 block on every decoder
/// Linear but the MLA down-projections, bf16 (`mla_down`). At tp 8 the fused q_a + kv_a projection is
/// replicated: (1,536 + 512 + 64) × 7,168 × 2 B = 30,277,632 B a layer in bf16, against 15,138,816 +
/// ⌈2,112 / 128⌉ × ⌈7,168 / 128⌉ × 4 = 17 × 56 × 4 = 3,808 → 15,142,624 B in fp8.
#[test]
fn mistral_large3_fp8_mla_down_bf16() {
    let q: Quantization = toml::from_str(QUANT).expect("quant.toml");
    let mut fp8_down = q;
    fp8_down.mla_down = None;
    let (bf16_down, fp8_down) = (spec(q), spec(fp8_down));
    let d = bf16_down.weight_breakdown(8).attention - fp8_down.weight_breakdown(8).attention;
    assert_eq!(d, 61 * (30_277_632 - 15_142_624));
}

const MINISTRAL3_14B: &str =
    include_str!("../../../scenarios/models/ministral-3-14b-instruct-2512-bf16/config.json");

/// Ministral 3's text model under its own class (`Ministral3ForCausalLM`: SGLang `models/ministral3.py`,
/// vLLM from 0.20.0 `models/mistral.py`), here the 14B preset's `text_config` on its own: the Llama
/// layout of Mistral, no vision tower. Text parameters 13,506,073,600 (`tests_ministral3`) × 2 B at
/// tp 1. At tp 4: embedding and untied head 2 × 131,072 / 4 × 5,120 × 2 = 671,088,640; a layer q and o
/// 2 × 8 heads × 128 × 5,120 × 2 = 20,971,520, k and v 2 × 2 × 128 × 5,120 × 2 = 5,242,880, SwiGLU 3 ×
/// 4,096 × 5,120 × 2 = 125,829,120, norms 2 × 5,120 × 2 = 20,480 → 152,064,000, × 40 = 6,082,560,000;
/// final norm 10,240 → 6,753,658,880 B (the vision-language preset's 7,027,595,264 less its tower).
/// KV: 40 × 2 × 8 × 128 × 2 B = 163,840 B a token at tp 1.
#[test]
fn ministral3_text_model_class_by_hand() {
    let mut v: serde_json::Value = serde_json::from_str(MINISTRAL3_14B).expect("json");
    let mut text = v["text_config"].take();
    text["architectures"] = serde_json::json!(["Ministral3ForCausalLM"]);
    text["torch_dtype"] = "bfloat16".into();
    let s = ModelSpec::from_config_json(&text.to_string(), Quantization::bf16()).expect("lowers");
    assert_eq!(s.arch, Architecture::Mistral);
    assert!(s.ministral3);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 13_506_073_600);
    assert_eq!(
        671_088_640 + 40 * (20_971_520 + 5_242_880 + 125_829_120 + 20_480) + 10_240,
        6_753_658_880_u64
    );
    assert_eq!(s.weight_bytes_per_rank(4).0, 6_753_658_880);
    assert_eq!(s.kv_cell_bytes(1), 163_840);
    // The same config under Mistral's class name is not Ministral 3 for the engines' release rules.
    text["architectures"] = serde_json::json!(["MistralForCausalLM"]);
    let s = ModelSpec::from_config_json(&text.to_string(), Quantization::bf16()).expect("lowers");
    assert!(!s.ministral3);
}
