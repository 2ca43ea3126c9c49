//! families10 (issue #17): InternLM3 (`InternLM3ForCausalLM`), served as Llama by both engines (vLLM
//! `registry.py` → `llama.LlamaForCausalLM`; SGLang `models/llama.py` `InternLM3ForCausalLM`).

use super::*;

const INTERNLM3_8B: &str = include_str!("../../../scenarios/models/internlm3-8b-instruct/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// InternLM3-8B-Instruct by hand (exact integers).
///
/// Layer: q 32 × 128 × 4,096 = 16,777,216; k and v 2 × 128 × 4,096 each = 2,097,152; o 16,777,216;
/// SwiGLU 3 × 4,096 × 10,240 = 125,829,120; two norms 8,192 → 161,488,896, × 48 = 7,751,467,008.
/// Embedding and untied LM head 128,512 × 4,096 = 526,385,152 each (128,512 is a multiple of 64: no
/// padding); final norm 4,096. Total 7,751,467,008 + 1,052,770,304 + 4,096 = **8,804,241,408**
/// parameters (the published name "8B").
#[test]
fn internlm3_8b_parameters_by_hand() {
    let s = spec(INTERNLM3_8B);
    assert_eq!(s.arch, Architecture::Llama);
    assert!(!s.attention_bias && !s.tie_word_embeddings);
    assert_eq!((s.head_dim, s.kv_heads), (128, 2));
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 8_804_241_408);
    // tp 2: q 8,388,608, k + v one head each 1,048,576, o 8,388,608, SwiGLU 62,914,560, norms 8,192
    // → 80,748,544, × 48 = 3,875,930,112; embedding + head 2 × 263,192,576; final norm 4,096 →
    // 4,402,319,360 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 4_402_319_360);
    // KV cell: 48 × 2 KV heads × 2 × 128 × 2 B = 49,152 at tp 1; one head a rank from tp 2 (replicated
    // past tp 2): 24,576.
    assert_eq!(s.kv_cell_bytes(1), 49_152);
    assert_eq!((s.kv_cell_bytes(2), s.kv_cell_bytes(4)), (24_576, 24_576));
    // 32 heads over 8 ranks (KV heads replicated): allowed; 3 ranks: refused.
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(3).is_err());
}
