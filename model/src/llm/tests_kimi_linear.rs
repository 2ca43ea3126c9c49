//! families19 (issue #17): Kimi-Linear (`KimiLinearForCausalLM`) by hand from the bundled preset and
//! vLLM 0.19.0 `models/kimi_linear.py` / `layers/kda.py` (SGLang 0.5.8's files build the same tensors;
//! `llm::kimi_linear`).

use super::*;

const KIMI_LINEAR: &str = include_str!("../../../scenarios/models/kimi-linear-48b-a3b-instruct/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// Kimi-Linear-48B-A3B's parameters, weights per rank, KV cell and state by hand (exact integers).
///
/// hidden 2,304; KDA: 32 heads × 128 = P 4,096, conv 4; MLA: 32 heads, qk 128 + 64, v 128, kv_lora 512.
/// KDA layer (20 of them: `kda_layers`): q, k, v 3 × 4,096 × 2,304 = 28,311,552; f_a, g_a 2 × 128 ×
/// 2,304 = 589,824; f_b, g_b 2 × 4,096 × 128 = 1,048,576; b_proj 32 × 2,304 = 73,728; dt_bias 4,096,
/// three convs 3 × 4,096 × 4 = 49,152, A_log 32 (all fp32: 53,280); o_norm 128; o_proj 2,304 × 4,096 =
/// 9,437,184; two RMSNorms 4,608 → 39,518,880, × 20 = 790,377,600.
/// MLA layer (7): q_proj 32 × 192 × 2,304 = 14,155,776; kv_a_proj_with_mqa 576 × 2,304 = 1,327,104;
/// kv_a_layernorm 512; kv_b_proj 32 × 256 × 512 = 4,194,304; o_proj 2,304 × 4,096 = 9,437,184; norms
/// 4,608 → 29,119,488, × 7 = 203,836,416.
/// Layer 0 (`first_k_dense_replace` 1): SwiGLU 3 × 2,304 × 9,216 = 63,700,992.
/// Layers 1-26: 256 experts × 3 × 2,304 × 1,024 = 1,811,939,328; shared 3 × 2,304 × 1,024 = 7,077,888;
/// gate 256 × 2,304 = 589,824; correction bias 256 → 1,819,607,296, × 26 = 47,309,789,696.
/// Embedding and untied head 2 × 163,840 × 2,304 = 754,974,720; final norm 2,304.
/// Total **49,122,681,728** (48,367,707,008 without embedding and head: the card's "48B"); active per
/// token: minus 248 unused experts × 7,077,888 × 26 layers = 45,638,221,824 → 3,484,459,904
/// (2,729,485,184 without embedding and head: the card's "3B activated").
/// Bytes at bf16: the 20 × 53,280 = 1,065,600 KDA fp32 values at 4 B, the rest at 2 B, plus the
/// absorbed MLA copies w_kc + w_vc (7 × 2 × 32 × 128 × 512 = 29,360,128 at 2 B):
/// 2 × (49,122,681,728 − 1,065,600) + 4 × 1,065,600 + 2 × 29,360,128 = 98,306,214,912.
#[test]
fn kimi_linear_48b_parameters_by_hand() {
    let s = spec(KIMI_LINEAR);
    assert_eq!(s.arch, Architecture::KimiLinear);
    assert_eq!(
        (s.linear_layers(), s.kv_layers(), s.first_k_dense_replace),
        (20, 7, 1)
    );
    // 1-indexed lists: layers 3, 7, … 23 and 26 (0-indexed) are MLA.
    let mla: Vec<usize> = (0..27).filter(|&i| s.mixers[i] == Mixer::Attention).collect();
    assert_eq!(mla, [3, 7, 11, 15, 19, 23, 26]);
    assert!(matches!(
        s.attention,
        Attention::Mla {
            q_lora_rank: None,
            kv_lora_rank: 512,
            qk_rope_head_dim: 64,
            ..
        }
    ));
    assert_eq!(s.context_len, Some(1_048_576));
    let total: u64 = 790_377_600 + 203_836_416 + 63_700_992 + 47_309_789_696 + 754_974_720 + 2_304;
    assert_eq!(total, 49_122_681_728);
    assert_eq!(total - 26 * 248 * 3 * 2_304 * 1_024, 3_484_459_904);
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * (total - 1_065_600) + 4 * 1_065_600 + 2 * 29_360_128
    );
    assert_eq!(s.weight_bytes_per_rank(1).0, 98_306_214_912);
    // tp 2: KDA 14,155,776 + 589,824 (replicated f_a, g_a) + 524,288 + 36,864 + 2,048 + 24,576 + 16
    // + 128 + 4,718,592 + 4,608 = 20,056,720 (26,640 fp32); MLA 7,077,888 + 1,327,104 (replicated) +
    // 512 + 2,097,152 + 4,718,592 + 4,608 = 15,225,856; dense 31,850,496; MoE 905,969,664 + 3,538,944 +
    // 589,824 + 256 = 910,098,688; embedding and head 2 × 81,920 × 2,304 = 377,487,360; final norm
    // 2,304 → 20 × 20,056,720 + 7 × 15,225,856 + 31,850,496 + 26 × 910,098,688 + 377,487,360 + 2,304 =
    // 24,579,621,440 parameters; 532,800 fp32; w_kc + w_vc 7 × 2 × 16 × 128 × 512 = 14,680,064:
    // 2 × (24,579,621,440 − 532,800) + 4 × 532,800 + 2 × 14,680,064 = 49,189,668,608.
    assert_eq!(s.weight_bytes_per_rank(2).0, 49_189_668_608);
    // MLA cell: (512 + 64) × 7 MLA layers × 2 B = 8,064, replicated on every rank.
    assert_eq!(s.kv_cell_bytes(1), 8_064);
    assert_eq!(s.kv_cell_bytes(4), 8_064);
    // SGLang's state per request (KimiLinearCacheParams.mamba_cache_per_req, fp32 SSM): tp 2, per KDA
    // layer 3 × 2,048 × 3 × 2 = 36,864 conv + 16 × 128 × 128 × 4 = 1,048,576 → 1,085,440, × 20 =
    // 21,708,800.
    assert_eq!(s.linear_state_bytes_per_req(2), 21_708_800);
    // vLLM's page (fp32 recurrent state whatever --mamba-ssm-cache-dtype, bf16 conv): the same at tp 2.
    let g = s.linear_attention.expect("KDA shape");
    assert_eq!(kda_vllm_state_page(&g, 2, 2), 1_085_440);
    assert_eq!(
        kda_vllm_state_page(&g, 1, 4),
        3 * 4_096 * 3 * 4 + 32 * 128 * 128 * 4
    );
}

/// What the engines refuse: another activation, a q compression, rotary MLA, no KDA list, a KDA layer
/// past the last; and KDA heads that tp does not divide.
#[test]
fn kimi_linear_refusals() {
    let err = |from: &str, to: &str| {
        assert!(KIMI_LINEAR.contains(from), "{from}");
        ModelSpec::from_config_json(&KIMI_LINEAR.replace(from, to), Quantization::bf16())
            .expect_err(to)
            .to_string()
    };
    let e = err("\"hidden_act\": \"silu\"", "\"hidden_act\": \"gelu\"");
    assert!(e.contains("Only silu is supported"), "{e}");
    let e = err("\"q_lora_rank\": null", "\"q_lora_rank\": 1536");
    assert!(e.contains("q_lora_rank is None"), "{e}");
    let e = err("\"mla_use_nope\": true", "\"mla_use_nope\": false");
    assert!(e.contains("use_nope is True"), "{e}");
    let e = err("\"kda_layers\": [1,", "\"kda_layers\": [28, 1,");
    assert!(
        e.contains("linear_attn_config.kda_layers") && e.contains("28"),
        "{e}"
    );
    let e = err("\"full_attn_layers\": [4, 8, 12, 16, 20, 24, 27],", "");
    assert!(e.contains("linear_attn_config.full_attn_layers"), "{e}");
    // 32 KDA and MLA heads: tp 3 divides neither (the MLA heads' rule speaks first), and with 24 KDA
    // heads tp 16 divides the 32 MLA heads but not the KDA heads.
    let s = spec(KIMI_LINEAR);
    assert!(s.validate_tp(3).is_err());
    assert!(s.validate_tp(8).is_ok());
    let s24 = spec(&KIMI_LINEAR.replace("\"num_heads\": 32", "\"num_heads\": 24"));
    let e = s24.validate_tp(16).expect_err("24 KDA heads").to_string();
    assert!(e.contains("KDA layers' 24 heads"), "{e}");
}

/// Without `num_experts` every layer is the dense SwiGLU (`is_moe` false), and the KDA layers follow the
/// list: one KDA layer fewer is one MLA layer more (the cell grows by 576 × 2 = 1,152 B).
#[test]
fn kimi_linear_dense_and_layer_lists() {
    let dense = spec(&KIMI_LINEAR.replace("\"num_experts\": 256,", ""));
    assert!(dense.moe.is_none());
    assert!(
        dense
            .layers
            .iter()
            .all(|f| matches!(f, Ffn::Dense { intermediate: 9_216 }))
    );
    let fewer = spec(&KIMI_LINEAR.replace("\"kda_layers\": [1, 2,", "\"kda_layers\": [2,"));
    assert_eq!((fewer.linear_layers(), fewer.kv_layers()), (19, 8));
    assert_eq!(fewer.kv_cell_bytes(1), 8_064 + 1_152);
}
