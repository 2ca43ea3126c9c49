//! families22 (issue #17): LFM2 (`Lfm2ForCausalLM`) and LFM2-MoE (`Lfm2MoeForCausalLM`) by hand from
//! the bundled `lfm2-1.2b` and `lfm2-8b-a1b` presets (`llm::lfm2`).

use super::test_util::{assert_mixers, spec, with};
use super::*;

const LFM2_1_2B: &str = include_str!("../../../scenarios/models/lfm2-1.2b/config.json");
const LFM2_8B_A1B: &str = include_str!("../../../scenarios/models/lfm2-8b-a1b/config.json");

/// LFM2-1.2B by hand (tolerance: none, integers).
///
/// MLP width: `block_ff_dim` 12,288 auto-adjusted: int(2 × 12,288 / 3) = 8,192, × 1.0, rounded up to
/// 256 → 8,192; SwiGLU 3 × 8,192 × 2,048 = 50,331,648. Conv layer (dim 2,048, L 3, no bias): in_proj
/// 3 × 2,048 × 2,048 = 12,582,912; conv 2,048 × 3 = 6,144; out_proj 2,048² = 4,194,304 → 16,783,360.
/// Attention (32 heads of 2,048 / 32 = 64, 8 KV heads): q 2,048 × 2,048 = 4,194,304; k, v 512 × 2,048
/// each = 2,097,152; out 4,194,304; q/k layernorms 2 × 64 = 128 → 10,485,888. Norms 2 × 2,048 a layer.
/// Conv layers (10): 16,783,360 + 50,331,648 + 4,096 = 67,119,104; attention layers (6, at 2, 5, 8,
/// 10, 12, 14): 10,485,888 + 50,331,648 + 4,096 = 60,821,632. Tied embedding 65,536 × 2,048 =
/// 134,217,728; final norm 2,048. Total 134,217,728 + 671,191,040 + 364,929,792 + 2,048 =
/// **1,170,340,608**: the model card's count exactly.
#[test]
fn lfm2_1_2b_parameters_by_hand() {
    let s = spec(LFM2_1_2B).unwrap();
    assert_eq!(s.arch, Architecture::Lfm2);
    assert_eq!(
        (s.num_layers, s.heads, s.kv_heads, s.head_dim, s.hidden),
        (16, 32, 8, 64, 2_048)
    );
    let attn = [2usize, 5, 8, 10, 12, 14];
    assert_mixers(&s, &attn, Mixer::Attention, Mixer::Linear);
    assert_eq!((s.kv_layers(), s.linear_layers()), (6, 10));
    assert!(s.layers.iter().all(|l| *l == Ffn::Dense { intermediate: 8_192 }));
    assert!(s.tie_word_embeddings && s.qk_norm && !s.attention_bias && s.moe.is_none());
    assert_eq!(
        s.short_conv,
        Some(ShortConv {
            dim: 2_048,
            l_cache: 3,
            bias: false
        })
    );
    let total: u64 = 134_217_728 + 10 * 67_119_104 + 6 * 60_821_632 + 2_048;
    assert_eq!(total, 1_170_340_608);
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total);
    // tp 2: embedding 32,768 × 2,048 = 67,108,864; conv layer 3 × 1,024 × 2,048 + 1,024 × 3 +
    // 2,048 × 1,024 + 4,096 + 3 × 4,096 × 2,048 = 33,561,600; attention layer (16 × 64 + 2 × 4 × 64)
    // × 2,048 + 2,048 × 1,024 + 128 + 4,096 + 25,165,824 = 30,412,928 → 67,108,864 + 335,616,000 +
    // 182,477,568 + 2,048 = 585,204,480.
    assert_eq!(s.weight_bytes_per_rank(2).0, 2 * 585_204_480);
    // KV: 6 layers × 2 × 8 heads × 64 × 2 B = 12,288 a token at tp 1, 4 heads a rank at tp 2.
    assert_eq!((s.kv_cell_bytes(1), s.kv_cell_bytes(2)), (12_288, 6_144));
    // SGLang's state per request: 10 conv layers × 2 × 2,048 / tp × 2 B (no SSM state).
    assert_eq!(s.linear_state_bytes_per_req(1), 81_920);
    assert_eq!(s.linear_state_bytes_per_req(2), 40_960);
    // vLLM's page: (3 − 1) × 2,048 / 2 × 2 B at tp 2.
    assert_eq!(s.short_conv.unwrap().conv_state_bytes(2, 2), 4_096);
}

/// LFM2-8B-A1B by hand (tolerance: none, integers).
///
/// 24 layers, attention at 2, 6, 10, 14, 18, 21 (6), conv elsewhere (18). Mixers as LFM2-1.2B's
/// (hidden 2,048): conv 16,783,360, attention 10,485,888; norms 4,096 a layer. Layers 0 and 1: dense
/// SwiGLU of `intermediate_size` 7,168 (no auto-adjust): 3 × 7,168 × 2,048 = 44,040,192. Layers 2–23:
/// 32 experts of 3 × 1,792 × 2,048 = 11,010,048 → 352,321,536; gate 32 × 2,048 = 65,536; expert bias
/// 32 (fp32) → 352,387,104. Tied embedding 65,536 × 2,048 = 134,217,728; final norm 2,048. Total
/// 134,217,728 + 18 × 16,783,360 + 6 × 10,485,888 + 24 × 4,096 + 2 × 44,040,192 + 22 × 352,387,104 +
/// 2,048 = **8,339,930,560** (the card's "8.3B"); active (4 of 32 experts): 8,339,930,560 − 22 × 28 ×
/// 11,010,048 = 1,557,740,992 (the card's "1.5B").
#[test]
fn lfm2_8b_a1b_parameters_by_hand() {
    let s = spec(LFM2_8B_A1B).unwrap();
    assert_eq!(s.arch, Architecture::Lfm2Moe);
    assert_eq!((s.num_layers, s.kv_layers(), s.linear_layers()), (24, 6, 18));
    assert_eq!(s.mixers[21], Mixer::Attention);
    assert_eq!(s.mixers[22], Mixer::Linear);
    let shape = MoeShape {
        n_routed_experts: 32,
        num_experts_per_tok: 4,
        moe_intermediate: 1_792,
        n_shared_experts: 0,
    };
    assert_eq!(s.moe, Some(shape));
    assert_eq!(s.layers[1], Ffn::Dense { intermediate: 7_168 });
    assert_eq!(s.layers[2], Ffn::Moe(shape));
    assert_eq!(s.first_k_dense_replace, 2);
    assert!(s.routing_bias && s.tie_word_embeddings && s.qk_norm);
    let total: u64 = 134_217_728
        + 18 * 16_783_360
        + 6 * 10_485_888
        + 24 * 4_096
        + 2 * 44_040_192
        + 22 * 352_387_104
        + 2_048;
    assert_eq!(total, 8_339_930_560);
    assert_eq!(total - 22 * 28 * 11_010_048, 1_557_740_992);
    // The expert bias is float32: 2 B more for each of 22 × 32.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 2 * 22 * 32);
    // KV as LFM2-1.2B's per attention layer: 6 × 2 × 8 × 64 × 2 B = 12,288 a token; state 18 × 8,192.
    assert_eq!(s.kv_cell_bytes(1), 12_288);
    assert_eq!(s.linear_state_bytes_per_req(1), 147_456);
}

/// What the engines refuse, and the defaults they fill in.
#[test]
fn lfm2_refusals_and_defaults() {
    // tp must divide the conv width and the heads; LFM2-MoE's tp may not exceed its 32 experts.
    assert!(spec(LFM2_1_2B).unwrap().validate_tp(8).is_ok());
    let e = spec(&with(LFM2_8B_A1B, |v| v["num_experts"] = 4.into()))
        .unwrap()
        .validate_tp(8)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("Tensor parallel size 8 is greater than the number of experts 4"),
        "{e}"
    );
    // conv_dim / block_dim other than hidden_size, and head_dim other than hidden / heads.
    for (k, v) in [("conv_dim", 1_024u64), ("block_dim", 4_096), ("head_dim", 128)] {
        let e = spec(&with(LFM2_1_2B, |m| {
            m.insert(k.into(), v.into());
        }))
        .unwrap_err()
        .to_string();
        assert!(e.contains(k), "{k}: {e}");
    }
    // A layer type neither engine builds, and a layer_types list of the wrong length.
    let e = spec(&with(LFM2_8B_A1B, |v| v["layer_types"][0] = "mamba".into()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("layer_types") && e.contains("mamba"), "{e}");
    let e = spec(&with(LFM2_8B_A1B, |v| v["num_hidden_layers"] = 23.into()))
        .unwrap_err()
        .to_string();
    assert!(e.contains("must match num_hidden_layers (23)"), "{e}");
    // Neither layer_types nor full_attn_idxs.
    let e = spec(&with(LFM2_1_2B, |v| {
        v.remove("full_attn_idxs");
    }))
    .unwrap_err()
    .to_string();
    assert!(e.contains("layer_types"), "{e}");
    // Without auto-adjust the MLP is block_ff_dim as it is; with multiplier 1.5 int(8,192 × 1.5) =
    // 12,288, a multiple of 256.
    let s = spec(&with(LFM2_1_2B, |v| v["block_auto_adjust_ff_dim"] = false.into())).unwrap();
    assert_eq!(s.dense_intermediate, 12_288);
    let s = spec(&with(LFM2_1_2B, |v| v["block_ffn_dim_multiplier"] = 1.3.into())).unwrap();
    // int(8,192 × 1.3) = 10,649 → ⌈10,649 / 256⌉ × 256 = 42 × 256 = 10,752.
    assert_eq!(s.dense_intermediate, 10_752);
    // A conv bias adds 3 × 2,048 + 2,048 + 2,048 = 10,240 per conv layer.
    let base = spec(LFM2_1_2B).unwrap().weight_bytes_per_rank(1).0;
    let biased = spec(&with(LFM2_1_2B, |v| v["conv_bias"] = true.into()))
        .unwrap()
        .weight_bytes_per_rank(1)
        .0;
    assert_eq!(biased - base, 2 * 10 * 10_240);
}
