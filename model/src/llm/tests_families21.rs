//! families21 (issue #17): Apertus (`ApertusForCausalLM`), MiniCPM (`MiniCPMForCausalLM`) and MiniCPM3
//! (`MiniCPM3ForCausalLM`) by hand from the bundled presets (`llm::apertus`, `llm::minicpm`). All
//! figures are exact integers (no tolerance).

use super::test_util::spec;
use super::*;

const APERTUS_8B: &str = include_str!("../../../scenarios/models/apertus-8b-instruct-2509/config.json");
const MINICPM4_8B: &str = include_str!("../../../scenarios/models/minicpm4-8b/config.json");
const MINICPM3_4B: &str = include_str!("../../../scenarios/models/minicpm3-4b/config.json");

fn with(base: &str, f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(base).unwrap();
    f(&mut v);
    v.to_string()
}

/// Apertus-8B by hand.
///
/// Layer: q 4,096² = 16,777,216; k + v 2 × 8 × 128 × 4,096 = 8,388,608; o 16,777,216; non-gated MLP
/// up + down 2 × 21,504 × 4,096 = 176,160,768; two RMSNorms 8,192; per-head q/k norms 2 × 128 = 256;
/// xIELU alpha_p + alpha_n 2 → 218,112,258, × 32 = 6,979,592,256. Embedding and untied head
/// 131,072 × 4,096 = 536,870,912 each; final norm 4,096. Total **8,053,338,176** (the "8B" of the
/// name; no exact published count was found). 131,072 is a multiple of 64: no vocabulary padding.
#[test]
fn apertus_8b_parameters_by_hand() {
    let s = spec(APERTUS_8B).unwrap();
    assert_eq!(s.arch, Architecture::Apertus);
    assert!(s.qk_norm && !s.attention_bias && !s.tie_word_embeddings && !s.has_vision);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (32, 32, 8, 128));
    assert_eq!(
        (s.hidden, s.dense_intermediate, s.vocab),
        (4_096, 21_504, 131_072)
    );
    assert_eq!(s.context_len, Some(65_536));
    let total: u64 = 218_112_258 * 32 + 2 * 536_870_912 + 4_096;
    assert_eq!(total, 8_053_338_176);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total);
    // tp 2: q 2,048 × 4,096 = 8,388,608; k + v 2 × 4 × 128 × 4,096 = 4,194,304; o 8,388,608; up + down
    // 2 × 10,752 × 4,096 = 88,080,384; norms 8,192 + 256 + 2 (replicated) → 109,060,354, × 32 =
    // 3,489,931,328; embedding and head 2 × 65,536 × 4,096 = 536,870,912; final norm 4,096 →
    // 4,026,806,336 × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 4_026_806_336);
    // KV cell: 32 layers × 8 KV heads × 2 × 128 × 2 B = 131,072 at tp 1, 65,536 at tp 2.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (131_072, 65_536));
    assert!(s.validate_tp(8).is_ok());
    // The MLP is two GEMMs (up, down), not the gated three.
    let names: Vec<_> = s.decode_projections(1).iter().map(|p| p.name).collect();
    assert!(
        names.contains(&"mlp.up_proj") && !names.contains(&"mlp.gate_up_proj"),
        "{names:?}"
    );
}

/// Refusals name the key: another activation (both engines raise), biases.
#[test]
fn apertus_refusals_name_the_key() {
    let e = spec(&with(APERTUS_8B, |v| v["hidden_act"] = "silu".into()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("hidden_act") && e.contains("Only xIELU is supported for now"),
        "{e}"
    );
    for key in ["attention_bias", "bias", "mlp_bias"] {
        let e = spec(&with(APERTUS_8B, |v| v[key] = true.into()))
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{key}: {e}");
    }
    // `qk_norm: false` is not read by either engine: the same model.
    let off = spec(&with(APERTUS_8B, |v| v["qk_norm"] = false.into())).unwrap();
    assert_eq!(
        off.weight_bytes_per_rank(1).0,
        spec(APERTUS_8B).unwrap().weight_bytes_per_rank(1).0
    );
}

/// MiniCPM4-8B by hand.
///
/// Layer: q 4,096² = 16,777,216; k + v 2 × 2 × 128 × 4,096 = 2,097,152; o 16,777,216; SwiGLU 3 ×
/// 16,384 × 4,096 = 201,326,592; two RMSNorms 8,192 → 236,986,368, × 32 = 7,583,563,776. Embedding
/// and untied head 73,448 × 4,096 = 300,843,008 each; final norm 4,096. Total **8,185,253,888** (the
/// "8B" of the name). The engines pad the vocabulary to 73,472 (64 × 1,148): 24 rows more in each of
/// the two → 8,185,450,496 loaded at tp 1. The muP keys (`scale_emb` 12, `dim_model_base` 256,
/// `scale_depth` 1.4) change no size.
#[test]
fn minicpm4_8b_parameters_by_hand() {
    let s = spec(MINICPM4_8B).unwrap();
    assert_eq!(s.arch, Architecture::MiniCpm);
    assert!(!s.qk_norm && !s.attention_bias && !s.tie_word_embeddings);
    assert_eq!((s.num_layers, s.heads, s.kv_heads, s.head_dim), (32, 32, 2, 128));
    assert_eq!((s.hidden, s.dense_intermediate, s.vocab), (4_096, 16_384, 73_448));
    assert_eq!(s.context_len, Some(32_768));
    let total: u64 = 236_986_368 * 32 + 2 * 300_843_008 + 4_096;
    assert_eq!(total, 8_185_253_888);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * (total + 2 * 24 * 4_096));
    // tp 2: q 8,388,608; k + v 2 × 1 × 128 × 4,096 = 1,048,576; o 8,388,608; SwiGLU 3 × 8,192 × 4,096 =
    // 100,663,296; norms 8,192 → 118,497,280, × 32 = 3,791,912,960; embedding and head 2 × 36,736 ×
    // 4,096 = 300,941,312; final norm 4,096 → 4,092,858,368 × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 4_092_858_368);
    // KV cell: 32 layers × 2 KV heads × 2 × 128 × 2 B = 32,768 at tp 1; 16,384 at tp 2 (one head a
    // rank).
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (32_768, 16_384));
    // Not MiniCPM3: no vLLM-specific cell.
    assert_eq!(s.vllm_minicpm3_kv_cell(1), None);
    assert_eq!(s.vllm_minicpm3_absorbed_bytes(1), 0);
}

/// MiniCPM refusals: another activation, MoE (MiniCPM-MoE), a `head_dim` the engines ignore.
#[test]
fn minicpm_refusals_name_the_key() {
    let e = spec(&with(MINICPM4_8B, |v| v["hidden_act"] = "fatrelu".into()))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("hidden_act") && e.contains("Only silu is supported for now"),
        "{e}"
    );
    let e = spec(&with(MINICPM4_8B, |v| {
        v["num_experts"] = 8.into();
        v["num_experts_per_tok"] = 2.into();
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("num_experts") && e.contains("MiniCPMMoE"), "{e}");
    let e = spec(&with(MINICPM4_8B, |v| v["head_dim"] = 64.into()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("head_dim") && e.contains("128"), "{e}");
    // head_dim equal to hidden / heads is accepted.
    assert!(spec(&with(MINICPM4_8B, |v| v["head_dim"] = 128.into())).is_ok());
}

/// MiniCPM3-4B by hand (SGLang's layout: the latent cache and the absorbed copies).
///
/// Layer: q_a 2,560 × 768 = 1,966,080 and kv_a_proj_with_mqa 2,560 × (256 + 32) = 737,280 (both
/// replicated); q_a_layernorm 768; q_b 768 × 40 × 96 = 2,949,120; kv_a_layernorm 256; kv_b 256 × 40 ×
/// (64 + 64) = 1,310,720; o 40 × 64 × 2,560 = 6,553,600; SwiGLU 3 × 6,400 × 2,560 = 49,152,000; two
/// RMSNorms 5,120 → 62,674,944, × 62 = 3,885,846,528. Tied embedding (`MiniCPM3Config` default)
/// 73,448 × 2,560 = 188,026,880; final norm 2,560. Total **4,073,875,968** (the "4B" of the name).
/// Loaded by SGLang at tp 1: the vocabulary padded to 73,472 (+24 × 2,560 = 61,440) and the absorbed
/// `w_kc` + `w_vc` copies 62 × 40 × (64 + 64) × 256 = 81,264,640 → 4,155,202,048 × 2 B.
#[test]
fn minicpm3_4b_parameters_by_hand() {
    let s = spec(MINICPM3_4B).unwrap();
    assert_eq!(s.arch, Architecture::MiniCpm3);
    assert!(s.tie_word_embeddings && !s.attention_bias);
    assert_eq!(
        s.attention,
        Attention::Mla {
            q_lora_rank: Some(768),
            kv_lora_rank: 256,
            qk_nope_head_dim: 64,
            qk_rope_head_dim: 32,
            v_head_dim: 64,
        }
    );
    assert_eq!((s.num_layers, s.heads, s.hidden), (62, 40, 2_560));
    assert!(s.moe.is_none());
    assert_eq!((s.dense_intermediate, s.vocab), (6_400, 73_448));
    let total: u64 = 62_674_944 * 62 + 188_026_880 + 2_560;
    assert_eq!(total, 4_073_875_968);
    assert_eq!(
        s.weight_bytes_per_rank(1).0,
        2 * (total + 24 * 2_560 + 81_264_640)
    );
    // tp 2: replicated q_a + kv_a 2,703,360 and norms 768 + 256 + 5,120; q_b 768 × 20 × 96 =
    // 1,474,560; kv_b 256 × 20 × 128 = 655,360; w_kc + w_vc 2 × 20 × 64 × 256 = 655,360; o 20 × 64 ×
    // 2,560 = 3,276,800; SwiGLU 3 × 3,200 × 2,560 = 24,576,000 → 33,347,584, × 62 = 2,067,550,208;
    // tied embedding 36,736 × 2,560 = 94,044,160; final norm 2,560 → 2,161,596,928 × 2 B.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 2_161_596_928);
    // SGLang's cell: the latent (256 + 32) × 62 layers × 2 B = 35,712, on every rank.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (35_712, 35_712));
    // vLLM's: 40 / tp heads × 2 × 96 × 62 × 2 B = 952,320 at tp 1, 476,160 at tp 2; its weights lack
    // the absorbed copies (81,264,640 × 2 B = 162,529,280 at tp 1, half at tp 2).
    assert_eq!(
        (s.vllm_minicpm3_kv_cell(1), s.vllm_minicpm3_kv_cell(2)),
        (Some(952_320), Some(476_160))
    );
    assert_eq!(
        (
            s.vllm_minicpm3_absorbed_bytes(1),
            s.vllm_minicpm3_absorbed_bytes(2)
        ),
        (162_529_280, 81_264_640)
    );
    assert!(s.validate_tp(8).is_ok());
    // As vLLM serves it: that cell, and the weights without the copies (8,310,404,096 − 162,529,280 =
    // 8,147,874,816 B at tp 1); kv_b_proj becomes a decode GEMM.
    // One token: `v_input` and the w_vc transpose are contiguous, two copies fewer.
    assert_eq!(s.forward_pass(1, 1).layers[0].attn_kernels, 40);
    let mut v = s.clone();
    v.serve_minicpm3_as_vllm();
    assert_eq!((v.kv_cell_bytes(1), v.kv_cell_bytes(2)), (952_320, 476_160));
    assert_eq!(v.weight_bytes_per_rank(1).0, 8_310_404_096 - 162_529_280);
    assert_eq!(v.weight_bytes_per_rank(2).0, 2 * 2_161_596_928 - 81_264_640);
    assert!(v.decode_projections(1).iter().any(|p| p.name == "kv_b_proj"));
    assert!(!s.decode_projections(1).iter().any(|p| p.name == "kv_b_proj"));
    // Another model is left as lowered.
    let mut m = spec(MINICPM4_8B).unwrap();
    m.serve_minicpm3_as_vllm();
    assert!(!m.mla_as_mha);
}

/// MiniCPM3 refusals and defaults: `v_head_dim` other than hidden / heads (the engines disagree); an
/// explicit `tie_word_embeddings = false` adds the head.
#[test]
fn minicpm3_v_head_dim_and_tie() {
    let e = spec(&with(MINICPM3_4B, |v| v["v_head_dim"] = 128.into()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("v_head_dim") && e.contains("64"), "{e}");
    let untied = spec(&with(MINICPM3_4B, |v| v["tie_word_embeddings"] = false.into())).unwrap();
    assert_eq!(
        untied.weight_bytes_per_rank(1).0 - spec(MINICPM3_4B).unwrap().weight_bytes_per_rank(1).0,
        2 * 73_472 * 2_560
    );
}

/// hybrid50: the kernels of a MiniCPM3-4B decode layer as SGLang's `minicpm3.py` launches them
/// (`llm::minicpm::SGLANG_MINICPM3_ATTN_KERNELS`): attention 20 + the LongRoPE's 7 + 1 + 2 + 2 × 6 =
/// 42, MLP 4 + the muP scaling and residual add = 6, so 62 × 48 = 2,976 a step against the DeepSeek-V2
/// template's 62 × (11 + 4) = 930. Under vLLM (per-head K/V, `mla_as_mha`) the plain template
/// stays: 5 + 4. Exact.
#[test]
fn minicpm3_sglang_layer_kernels() {
    let s = spec(MINICPM3_4B).unwrap();
    let fp = s.forward_pass(1, 32);
    assert_eq!(fp.layers.len(), 62);
    assert!(
        fp.layers
            .iter()
            .all(|l| (l.attn_kernels, l.ffn_kernels) == (42, 6))
    );
    let total: u32 = fp.layers.iter().map(|l| l.attn_kernels + l.ffn_kernels).sum();
    assert_eq!(total, 2_976);
    // One token: `v_input` and the w_vc transpose are contiguous, two copies fewer.
    assert_eq!(s.forward_pass(1, 1).layers[0].attn_kernels, 40);
    let mut v = s.clone();
    v.serve_minicpm3_as_vllm();
    let l = &v.forward_pass(1, 32).layers[0];
    assert_eq!((l.attn_kernels, l.ffn_kernels), (5, 4));
}
