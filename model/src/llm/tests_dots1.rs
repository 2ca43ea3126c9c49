//! families15 (issue #17): dots.llm1 (`Dots1ForCausalLM`) by hand from the bundled preset and vLLM
//! 0.19.0 `models/dots1.py` (Qwen3-style attention, DeepSeek-V3-style MoE; `llm::dots1`).

use super::*;

const DOTS1: &str = include_str!("../../../scenarios/models/dots.llm1.inst/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// dots.llm1's parameters, weights per rank and KV cell by hand (exact integers).
///
/// Per layer, attention: q, k, v, o 4 × 4,096 × 4,096 = 67,108,864 (32 heads and 32 KV heads of 128, no
/// bias); q_norm + k_norm 2 × 128 = 256; two RMSNorms 2 × 4,096 = 8,192 → 67,117,312, × 62 =
/// 4,161,273,344.
/// Layer 0 (first_k_dense_replace 1): SwiGLU 3 × 4,096 × 10,944 = 134,479,872.
/// Layers 1-61: 128 experts × 3 × 4,096 × 1,408 = 2,214,592,512; shared SwiGLU of 2 × 1,408 = 2,816:
/// 3 × 4,096 × 2,816 = 34,603,008; router 128 × 4,096 = 524,288; e_score_correction_bias 128 →
/// 2,249,719,936, × 61 = 137,232,916,096.
/// Embedding and untied LM head 152,064 × 4,096 = 622,854,144 each (152,064 = 64 × 2,376: no padding);
/// final norm 4,096.
/// Total 4,161,273,344 + 134,479,872 + 137,232,916,096 + 1,245,708,288 + 4,096 =
/// **142,774,381,696** parameters: the card's "142B total".
/// Active per token: the same minus 122 unused experts a MoE layer (122 × 17,301,504 = 2,110,783,488,
/// × 61 = 128,757,792,768) = **14,016,588,928**: the card's "14B activated".
/// Bytes at bf16: the 61 × 128 = 7,808 bias values are fp32 (4 B): 2 × (142,774,381,696 − 7,808) + 4 ×
/// 7,808 = 285,548,779,008.
#[test]
fn dots1_parameters_by_hand() {
    let s = spec(DOTS1);
    assert_eq!(s.arch, Architecture::Dots1);
    assert!(s.qk_norm && s.routing_bias && !s.attention_bias && !s.tie_word_embeddings);
    assert_eq!((s.head_dim, s.kv_heads, s.first_k_dense_replace), (128, 32, 1));
    let total: u64 = 4_161_273_344 + 134_479_872 + 137_232_916_096 + 1_245_708_288 + 4_096;
    assert_eq!(total, 142_774_381_696);
    assert_eq!(total - 61 * 122 * 3 * 4_096 * 1_408, 14_016_588_928);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (total - 7_808) + 4 * 7_808);
    // tp 8: attention (4 + 4 + 4) × 128 = 1,536 rows × 4,096 = 6,291,456 + o 4,096 × 512 = 2,097,152
    // + norms 8,448 → 8,397,056, × 62 = 520,617,472; dense 3 × 4,096 × 1,368 = 16,809,984; MoE layer:
    // experts 128 × 3 × 4,096 × 176 = 276,824,064 + shared 3 × 4,096 × 352 = 4,325,376 + router
    // 524,288 (replicated) → 281,673,728, × 61 = 17,182,097,408 (+ 7,808 fp32 bias); embedding and
    // head 2 × 19,008 × 4,096 = 155,713,536; final norm 4,096 → 17,875,242,496 parameters × 2 B +
    // 7,808 × 4 B = 35,750,516,224.
    assert_eq!(s.weight_bytes_per_rank(8).0, 35_750_516_224);
    // KV cell: 62 layers × 32 KV heads × 2 × 128 × 2 B = 1,015,808 at tp 1; 4 heads a rank at tp 8.
    assert_eq!(s.kv_cell_bytes(1), 1_015_808);
    assert_eq!(s.kv_cell_bytes(8), 126_976);
}

/// Without `topk_method = "noaux_tc"` vLLM builds no `e_score_correction_bias` (7,808 fp32 values
/// fewer: 285,548,779,008 − 31,232 = 285,548,747,776 B); `first_k_dense_replace` 0 makes layer 0 MoE
/// too (+ 2,249,719,936 − 134,479,872 = 2,115,240,064 parameters, with its 128 bias values).
#[test]
fn dots1_reads_topk_method_and_dense_prefix() {
    let nb = spec(&DOTS1.replace("\"topk_method\": \"noaux_tc\",", ""));
    assert!(!nb.routing_bias);
    assert_eq!(nb.weight_bytes_per_rank(1).0, 285_548_747_776);
    let all_moe = spec(&DOTS1.replace("\"first_k_dense_replace\": 1,", "\"first_k_dense_replace\": 0,"));
    assert_eq!(all_moe.first_k_dense_replace, 0);
    assert_eq!(
        all_moe.weight_bytes_per_rank(1).0,
        2 * (142_774_381_696 + 2_115_240_064 - 7_936) + 4 * 7_936
    );
}

/// vLLM's `Dots1MLP` / `Dots1MoE` accept only SiLU: another `hidden_act` is refused with its text.
#[test]
fn dots1_refuses_another_activation() {
    let e = ModelSpec::from_config_json(
        &DOTS1.replace("\"hidden_act\": \"silu\"", "\"hidden_act\": \"gelu\""),
        Quantization::bf16(),
    )
    .expect_err("gelu")
    .to_string();
    assert!(
        e.contains("hidden_act") && e.contains("Only silu is supported"),
        "{e}"
    );
}
