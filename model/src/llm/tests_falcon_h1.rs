//! families20 (issue #17): Falcon-H1 (`FalconH1ForCausalLM`) by hand from the bundled
//! `falcon-h1-7b-instruct` preset (`llm::falcon_h1`).

use super::test_util::spec;
use super::*;

const FALCON_H1_7B: &str = include_str!("../../../scenarios/models/falcon-h1-7b-instruct/config.json");

fn with(f: impl FnOnce(&mut serde_json::Map<String, serde_json::Value>)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(FALCON_H1_7B).unwrap();
    f(v.as_object_mut().unwrap());
    v.to_string()
}

/// Falcon-H1-7B-Instruct by hand (tolerance: none, integers).
///
/// A layer (hidden 3,072): attention q 12 × 128 = 1,536 rows, k and v 2 × 128 = 256 each, o back to
/// 3,072: (1,536 + 512) · 3,072 + 3,072 · 1,536 = 11,010,048. Mamba-2 (I = `mamba_d_ssm` 3,072, G 1,
/// N 256, H 24): in_proj (2 · 3,072 + 2 · 256 + 24) · 3,072 = 20,520,960; conv1d (3,072 + 512) · 4 =
/// 14,336 + bias 3,584; A, D, dt_bias 3 · 24 = 72; gated norm 3,072 (`mamba_rms_norm`); out_proj
/// 3,072² = 9,437,184 → 29,979,208. MLP 3 · 12,288 · 3,072 = 113,246,208. Norms 2 · 3,072 = 6,144.
/// Layer 154,241,608, × 44 = 6,786,630,752; embedding and LM head 130,048 · 3,072 = 399,507,456
/// each; final norm 3,072 → 7,585,648,736: the model card's 7.59 B (a rounded size).
#[test]
fn falcon_h1_7b_parameters_by_hand() {
    let s = spec(FALCON_H1_7B).unwrap();
    assert_eq!(s.arch, Architecture::FalconH1);
    // 44 layers lowered as 88 blocks: Mamba-2, attention + MLP, …
    assert_eq!(s.num_layers, 88);
    assert_eq!((s.mixers[0], s.layers[0]), (Mixer::Linear, Ffn::Absent));
    assert_eq!(
        (s.mixers[1], s.layers[1]),
        (Mixer::Attention, Ffn::Dense { intermediate: 12_288 })
    );
    assert_eq!((s.kv_layers(), s.linear_layers()), (44, 44));
    assert_eq!((s.heads, s.kv_heads, s.head_dim, s.hidden), (12, 2, 128, 3_072));
    assert!(!s.tie_word_embeddings && !s.attention_bias);
    let m = s.mamba2.unwrap();
    assert_eq!(
        (m.num_heads, m.head_dim, m.n_groups, m.state_size, m.conv_kernel),
        (24, 128, 1, 256, 4)
    );
    assert!(m.gated_norm && m.conv_bias);
    let layer: u64 = 11_010_048 + 29_979_208 + 113_246_208 + 6_144;
    assert_eq!(layer, 154_241_608);
    let total = 44 * layer + 2 * 399_507_456 + 3_072;
    assert_eq!(total, 7_585_648_736);
    // Bytes: 2 B each, but `A` is float32 in both engines (`MambaMixer2`: `dtype=torch.float32`):
    // 2 B more for each of 44 × 24.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 2 * 44 * 24);
}

/// At tp 2 the one B/C group is replicated to two (`extra_groups_for_head_shards`: G 1 → 2), so each
/// rank's in_proj has 2 · 1,536 + 2 · 2 · 256 / 2 + 12 = 3,596 rows (11,046,912) and its conv 2,048
/// channels (8,192 + bias 2,048); A, D, dt_bias 36; gated norm 1,536; out_proj 3,072 · 1,536 =
/// 4,718,592 → 15,777,316. Attention (6 · 128 + 2 · 128) · 3,072 + 3,072 · 768 = 5,505,024; MLP
/// 3 · 6,144 · 3,072 = 56,623,104; norms 6,144 → 77,911,588 a layer, × 44 = 3,428,109,872; embedding
/// and head 65,024 · 3,072 = 199,753,728 each; final norm 3,072 → 3,827,620,400 parameters,
/// 7,655,240,800 B per rank at 2 B, plus 2 B for each float32 `A` (44 × 12): 7,655,241,856 B
/// (tolerance: none).
#[test]
fn falcon_h1_7b_weights_per_rank_tp2() {
    let s = spec(FALCON_H1_7B).unwrap();
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 3_827_620_400 + 2 * 44 * 12);
    // KV: 44 attention layers × 2 × 1 KV head × 128 × 2 B = 22,528 B a token at tp 2 (45,056 at tp 1).
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (45_056, 22_528));
    // SGLang's state per request at tp 2: conv 2,048 × 3 × 2 B = 12,288, SSM 12 × 128 × 256 × 4 B =
    // 1,572,864 → 1,585,152 a layer, × 44 = 69,746,688.
    assert_eq!(s.mamba2.unwrap().state_bytes(2), 1_585_152);
    assert_eq!(s.linear_state_bytes_per_req(2), 69_746_688);
}

/// hybrid50: as SGLang builds it (`ModelSpec::serve_as_sglang`), tp 2: the LM head in float32 adds
/// 2 B to each of its 65,024 · 3,072 = 199,753,728 elements (399,507,456 B), and the unused q_norm /
/// k_norm add 44 × 2 × 128 × 2 B = 22,528 B: 7,655,241,856 + 399,507,456 + 22,528 = 8,054,771,840 B.
/// The decode reads the head at 4 B: 799,014,912 B. Tied (`tie_word_embeddings`, the 0.5B's config):
/// no separate head (−199,753,728 · 2 B), the embedding cast with it (+199,753,728 · 2 B), so the same
/// 8,054,771,840 − 399,507,456 = 7,655,264,384 B; the decode reads the embedding at 4 B. Tolerance:
/// none.
#[test]
fn falcon_h1_7b_under_sglang_holds_a_float32_head_and_its_qk_norms() {
    let mut s = spec(FALCON_H1_7B).unwrap();
    s.serve_as_sglang(Some([0, 5, 8]));
    assert!(s.lm_head_fp32 && s.unused_qk_norms);
    let b = s.weight_breakdown(2);
    assert_eq!(b.lm_head, 4 * 199_753_728);
    assert_eq!(b.embedding, 2 * 199_753_728);
    assert_eq!(s.weight_bytes_per_rank(2).0, 8_054_771_840);
    assert_eq!(s.forward_pass(2, 1).lm_head_bytes.0, 799_014_912);
    let mut tied = spec(&with(|o| {
        o.insert("tie_word_embeddings".into(), true.into());
    }))
    .unwrap();
    tied.serve_as_sglang(None);
    let b = tied.weight_breakdown(2);
    assert_eq!((b.lm_head, b.embedding), (0, 4 * 199_753_728));
    assert_eq!(tied.weight_bytes_per_rank(2).0, 7_655_264_384);
    assert_eq!(tied.forward_pass(2, 1).lm_head_bytes.0, 799_014_912);
    // vLLM's model (not served as SGLang) keeps the hand count of the test above.
    assert_eq!(
        spec(FALCON_H1_7B).unwrap().weight_bytes_per_rank(2).0,
        7_655_241_856
    );
}

/// Without `mamba_rms_norm` (Falcon-H1-0.5B's and the Tiny models' configs) the gated norm has no
/// weight: 44 × 3,072 = 135,168 parameters fewer.
#[test]
fn falcon_h1_without_mamba_rms_norm_has_no_gated_norm_weight() {
    let s = spec(&with(|o| {
        o.insert("mamba_rms_norm".into(), false.into());
    }))
    .unwrap();
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * (7_585_648_736 - 135_168) + 2 * 44 * 24
    );
}

/// The engines' refusals: a non-SiLU MLP, a head count that does not divide the width, a head
/// width that does not multiply out, biased Mamba projections.
#[test]
fn falcon_h1_refusals() {
    let e = spec(&with(|o| {
        o.insert("hidden_act".into(), "gelu".into());
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("Only silu is supported for now"), "{e}");
    let e = spec(&with(|o| {
        o.insert("mamba_n_heads".into(), 25.into());
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("mamba_n_heads must divide"), "{e}");
    let e = spec(&with(|o| {
        o.insert("mamba_d_head".into(), 64.into());
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("do not match the model intermediate_size"), "{e}");
    let e = spec(&with(|o| {
        o.insert("mamba_proj_bias".into(), true.into());
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("mamba_proj_bias"), "{e}");
    // A null mamba_d_ssm is mamba_expand × hidden_size = 6,144, which 24 heads of 128 do not fill.
    let e = spec(&with(|o| {
        o.insert("mamba_d_ssm".into(), serde_json::Value::Null);
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("6144"), "{e}");
}

/// hybrid50: Qwen3-Next under SGLang holds its LM head in float32 in 0.5.2 – 0.5.5 only
/// (`models/qwen3_next.py`; the 0.5.6 wheel drops the cast). Qwen3-Next-80B-A3B at tp 1: the head is
/// 151,936 (a multiple of 64) × 2,048 = 311,164,928 elements, 2 B more each = 622,329,856 B; the
/// decode reads it at 4 B = 1,244,659,712 B. 0.5.6, the newest (`None`) and vLLM's model: unchanged.
/// Tolerance: none.
#[test]
fn qwen3_next_float32_head_before_sglang_0_5_6() {
    let base = spec(include_str!(
        "../../../scenarios/models/qwen3-next-80b-a3b/config.json"
    ))
    .unwrap();
    let bytes = |r: Option<[u64; 3]>| {
        let mut s = base.clone();
        s.serve_as_sglang(r);
        (
            s.weight_bytes_per_rank(1).0,
            s.forward_pass(1, 1).lm_head_bytes.0,
            s.unused_qk_norms,
        )
    };
    let plain = base.weight_bytes_per_rank(1).0;
    assert_eq!(
        bytes(Some([0, 5, 5])),
        (plain + 622_329_856, 1_244_659_712, false)
    );
    assert_eq!(bytes(Some([0, 5, 2])).0, plain + 622_329_856);
    assert_eq!(bytes(Some([0, 5, 6])), (plain, 622_329_856, false));
    assert_eq!(bytes(None).0, plain);
}
