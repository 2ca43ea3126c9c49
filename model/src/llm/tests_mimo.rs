//! families4 (issue #17): MiMo (`MiMoForCausalLM`) by hand from the bundled preset and the engines'
//! `mimo.py` (SGLang 0.5.9, vLLM 0.19.0): the Qwen2 decoder, the MTP layers not loaded.

use super::*;

const MIMO_7B_RL: &str = include_str!("../../../scenarios/models/mimo-7b-rl/config.json");

fn spec(text: &str) -> ModelSpec {
    ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset parses")
}

/// MiMo-7B-RL's weights, KV cell and TP rule by hand.
#[test]
fn mimo_7b_parameters_by_hand() {
    let s = spec(MIMO_7B_RL);
    assert_eq!(s.arch, Architecture::Mimo);
    assert_eq!(architecture_of("MiMoForCausalLM"), Some(Architecture::Mimo));
    assert!(s.attention_bias && !s.tie_word_embeddings && !s.qk_norm);
    assert_eq!(s.head_dim, 128);
    // Embedding and untied LM head 151,680 × 4,096 = 621,281,280 each; final norm 4,096.
    // Layer: q 4,096 × 4,096 = 16,777,216 + bias 4,096; k and v 1,024 × 4,096 = 4,194,304 + bias
    // 1,024 each; o 16,777,216 → 41,949,184; MLP 3 × 11,008 × 4,096 = 135,266,304; two norms 8,192
    // → 177,223,680, × 36 = 6,380,052,480. Total 7,622,619,136 parameters, 2 B each (the MTP
    // layer is not loaded: `mimo.py` `load_weights` skips `mtp_layers`).
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * 7_622_619_136);
    // tp 2: vocab rows 75,840 (151,680 is a multiple of 64) → embedding + head 2 × 75,840 × 4,096 =
    // 621,281,280; layer: q 2,048 × 4,096 = 8,388,608 + 2,048, k and v 512 × 4,096 = 2,097,152 + 512
    // each, o 8,388,608 → 20,974,592; MLP 3 × 5,504 × 4,096 = 67,633,152; norms 8,192 (replicated)
    // → 88,615,936, × 36 = 3,190,173,696; final norm 4,096 → 3,811,459,072 parameters × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 3_811_459_072);
    // Of which 1-D parameters: the norms (replicated, not halved) 36 × 8,192 + 4,096 = 299,008 and
    // the rank's QKV biases 36 × (2,048 + 512 + 512) = 110,592 → 409,600 parameters.
    assert_eq!(s.weight_breakdown(2).norms, 2 * 409_600);
    // KV cell: 36 layers × 8 KV heads × 2 × 128 × 2 B = 147,456 B at tp 1; 73,728 at tp 2.
    assert_eq!(s.kv_cell_bytes(1), 147_456);
    assert_eq!(s.kv_cell_bytes(2), 73_728);
    assert!(s.validate_tp(8).is_ok());
    // 32 heads do not split over 3 ranks.
    assert!(s.validate_tp(3).is_err());
}

/// The MTP layers change nothing the target model loads or runs; the lowering is Qwen2's.
#[test]
fn mimo_is_the_qwen2_lowering_without_its_mtp_layers() {
    let s = spec(MIMO_7B_RL);
    let two_mtp = spec(&MIMO_7B_RL.replace(
        "\"num_nextn_predict_layers\": 1",
        "\"num_nextn_predict_layers\": 2",
    ));
    assert_eq!(two_mtp.weight_bytes_per_rank(2), s.weight_bytes_per_rank(2));
    let qwen2 = spec(&MIMO_7B_RL.replace("MiMoForCausalLM", "Qwen2ForCausalLM"));
    assert_eq!(qwen2.arch, Architecture::Qwen2);
    for tp in [1, 2, 4] {
        assert_eq!(qwen2.weight_bytes_per_rank(tp), s.weight_bytes_per_rank(tp));
        assert_eq!(qwen2.kv_cell_bytes(tp), s.kv_cell_bytes(tp));
        assert_eq!(qwen2.forward_pass(tp, 8), s.forward_pass(tp, 8));
    }
    // The published total with the one MTP layer: token and hidden norms 2 × 4,096, `input_proj`
    // 8,192 × 4,096 = 33,554,432 (no bias, vLLM 0.19.0 `mimo_mtp.py`), one Qwen2 layer 177,223,680
    // and its final norm 4,096 → 210,790,400; 7,622,619,136 + 210,790,400 = 7,833,409,536, the
    // Hub's "7.8B" (a listing page's capture; not an engine log).
    assert_eq!(
        7_622_619_136u64 + 2 * 4_096 + 8_192 * 4_096 + 177_223_680 + 4_096,
        7_833_409_536
    );
}
