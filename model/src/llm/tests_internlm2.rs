//! families11 (issue #17): InternLM2 / 2.5 (`InternLM2ForCausalLM`): the Llama layer from a packed
//! `wqkv`, with vLLM's per-layer qkv all-gather at tp > 1 (`llm::internlm2`).

use super::*;

const INTERNLM2_5_7B: &str = include_str!("../../../scenarios/models/internlm2.5-7b-chat/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// InternLM2.5-7B-Chat by hand (exact integers).
///
/// Layer: wqkv (32 + 2 × 8) × 128 × 4,096 = 25,165,824; wo 4,096 × 4,096 = 16,777,216; w1 / w3 / w2
/// 3 × 4,096 × 14,336 = 176,160,768; two norms 8,192 → 218,112,000, × 32 = 6,979,584,000.
/// Embedding and untied `output` 92,544 × 4,096 = 379,060,224 each (92,544 = 1,446 × 64: no
/// padding); final norm 4,096. Total 6,979,584,000 + 758,120,448 + 4,096 = **7,737,708,544**
/// parameters: the count of ChemLLM-7B-Chat's safetensors header (an InternLM2-7B fine-tune with
/// these shapes; 758,120,448 embedding + 6,979,588,096 non-embedding, find_string ids 60319221975 and
/// 60519112762), exactly.
#[test]
fn internlm2_5_7b_parameters_by_hand() {
    let s = spec(INTERNLM2_5_7B);
    assert_eq!(s.arch, Architecture::InternLM2);
    assert!(!s.attention_bias && !s.tie_word_embeddings);
    assert_eq!((s.head_dim, s.kv_heads), (128, 8));
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 7_737_708_544);
    // tp 2: q 8,388,608, k + v 4 heads each 2 × 2,097,152, o 8,388,608, SwiGLU 3 × 4,096 × 7,168 =
    // 88,080,384, norms 8,192 → 109,060,096, × 32 = 3,489,923,072; embedding + output 2 × 46,272 ×
    // 4,096 = 379,060,224; final norm 4,096 → 3,868,987,392 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 3_868_987_392);
    // KV cell: 32 layers × 8 KV heads × 2 × 128 × 2 B = 131,072 at tp 1; 65,536 at tp 2; 16,384 at tp 8.
    assert_eq!(s.kv_cell_bytes(1), 131_072);
    assert_eq!((s.kv_cell_bytes(2), s.kv_cell_bytes(8)), (65_536, 16_384));
    assert!(s.validate_tp(8).is_ok());
    assert!(s.validate_tp(3).is_err());
}

/// vLLM's qkv all-gather: tp × (q_size + 2 × kv_size) columns a token. At tp 2: (16 + 2 × 4) × 128 ×
/// 2 = 6,144 columns × 2 B = 12,288 B a token, 4 tokens 49,152 B; at tp 8: (4 + 2 × 1) × 128 × 8 =
/// 6,144 columns, the same 12,288 B a token (tp ≤ 8 KV heads: no replication). None at tp 1, none
/// for a Llama; the two all-reduces a layer are unchanged (2 × 32 + 1 = 65).
#[test]
fn internlm2_qkv_gather_bytes_by_hand() {
    let s = spec(INTERNLM2_5_7B);
    assert_eq!(s.forward_pass(1, 4).qkv_allgather_bytes, Bytes(0));
    assert_eq!(s.forward_pass(2, 1).qkv_allgather_bytes, Bytes(12_288));
    assert_eq!(s.forward_pass(2, 4).qkv_allgather_bytes, Bytes(49_152));
    assert_eq!(s.forward_pass(8, 1).qkv_allgather_bytes, Bytes(12_288));
    assert_eq!(s.forward_pass(2, 1).allreduces, 65);
    let llama = INTERNLM2_5_7B.replace("InternLM2ForCausalLM", "LlamaForCausalLM");
    assert_eq!(spec(&llama).forward_pass(2, 1).qkv_allgather_bytes, Bytes(0));
    // Same weights as the Llama reading of the same shapes (the packing changes no count).
    assert_eq!(spec(&llama).weight_bytes_per_rank(2), s.weight_bytes_per_rank(2));
}

/// What both engines' `internlm2.py` would not build: a bias, another activation, a `head_dim`
/// other than hidden / heads (4,096 / 32 = 128); and tied embeddings (the engines disagree).
#[test]
fn internlm2_refusals_name_the_key() {
    let err = |from: &str, to: &str| {
        let text = INTERNLM2_5_7B.replace(from, to);
        assert_ne!(text, INTERNLM2_5_7B, "{from}");
        ModelSpec::from_config_json(&text, Quantization::bf16())
            .expect_err(to)
            .to_string()
    };
    let e = err("\"bias\": false", "\"bias\": true");
    assert!(e.contains("bias") && e.contains("bias=False"), "{e}");
    let e = err("\"hidden_act\": \"silu\"", "\"hidden_act\": \"gelu\"");
    assert!(
        e.contains("Unsupported activation: gelu. Only silu is supported for now."),
        "{e}"
    );
    let e = err(
        "\"hidden_size\": 4096,",
        "\"hidden_size\": 4096, \"head_dim\": 64,",
    );
    assert!(e.contains("head_dim") && e.contains("= 128"), "{e}");
    let e = err("\"tie_word_embeddings\": false", "\"tie_word_embeddings\": true");
    assert!(
        e.contains("tie_word_embeddings") && e.contains("SGLang 0.5.8"),
        "{e}"
    );
}
