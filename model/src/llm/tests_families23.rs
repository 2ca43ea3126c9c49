//! families23 (issue #17): MiMo-V2-Flash (`MiMoV2FlashForCausalLM`) by hand from the bundled
//! `mimo-v2-flash` preset (`llm::mimo_v2`).

use super::test_util::{assert_mixers, spec, with};
use super::*;

const MIMO_V2_FLASH: &str = include_str!("../../../scenarios/models/mimo-v2-flash/config.json");

/// MiMo-V2-Flash by hand (tolerance: none, integers).
///
/// Layers: `hybrid_layer_pattern` global at 0, 5, 11, 17, 23, 29, 35, 41, 47 (9), sliding elsewhere
/// (39); `moe_layer_freq` dense at 0, MoE at 1–47.
/// Attention: q 64 × 192 × 4,096 = 50,331,648; o 4,096 × 64 × 128 = 33,554,432. Global: k 4 × 192 ×
/// 4,096 = 3,145,728, v 4 × 128 × 4,096 = 2,097,152 → 89,128,960. Sliding: k 8 × 192 × 4,096 =
/// 6,291,456, v 8 × 128 × 4,096 = 4,194,304, sink 64 → 94,371,904.
/// Dense MLP (layer 0): 3 × 16,384 × 4,096 = 201,326,592. MoE layer: 256 experts × 3 × 2,048 × 4,096
/// (25,165,824 each) = 6,442,450,944, gate 256 × 4,096 = 1,048,576, bias 256 → 6,443,499,776.
/// Embedding and untied head 2 × 152,576 × 4,096 = 1,249,902,592; norms 48 × 2 × 4,096 + 4,096.
/// Total 1,249,902,592 + 9 × 89,128,960 + 39 × 94,371,904 + 201,326,592 + 47 × 6,443,499,776 +
/// 397,312 = **308,778,780,864** (the card's 309B; the 3 MTP layers excluded). Active: the same with 8
/// experts a MoE layer: 47 × (201,326,592 + 1,048,832) = 9,511,644,928 → **15,445,936,320** (the
/// card's 15B).
#[test]
fn mimo_v2_flash_parameters_by_hand() {
    let s = spec(MIMO_V2_FLASH).unwrap();
    assert_eq!(s.arch, Architecture::MiMoV2Flash);
    assert_eq!(
        (s.num_layers, s.heads, s.kv_heads, s.head_dim, s.hidden, s.vocab),
        (48, 64, 4, 192, 4_096, 152_576)
    );
    let global = [0usize, 5, 11, 17, 23, 29, 35, 41, 47];
    assert_mixers(&s, &global, Mixer::Attention, Mixer::SlidingAttention);
    assert_eq!(
        (s.kv_layers(), s.sliding_layers(), s.sliding_window),
        (48, 39, Some(128))
    );
    assert_eq!(s.layers[0], Ffn::Dense { intermediate: 16_384 });
    let moe = MoeShape {
        n_routed_experts: 256,
        num_experts_per_tok: 8,
        moe_intermediate: 2_048,
        n_shared_experts: 0,
    };
    assert!(s.layers[1..].iter().all(|l| *l == Ffn::Moe(moe)));
    assert_eq!((s.first_k_dense_replace, s.num_nextn_predict_layers), (1, 3));
    assert!(!s.tie_word_embeddings && s.router_fp32 && s.routing_bias && !s.attention_bias);
    let a = s.mimo_v2.unwrap();
    assert_eq!(
        (
            a.v_head_dim,
            a.swa_heads,
            a.swa_kv_heads,
            a.swa_head_dim,
            a.swa_v_head_dim
        ),
        (128, 64, 8, 192, 128)
    );
    assert!(a.swa_sink && !a.full_sink && a.v_scale && a.two_rope_bases);
    // SGLang `get_rope`: int(192 × 0.334) = int(64.128) = 64 rotary dims; bases 5,000,000 (global) and
    // 10,000 (sliding): two fp32 caches of 262,144 × 64 × 4 B = 67,108,864 B each.
    assert_eq!(s.rotary_dim, Some(64));
    let rule = crate::rope_cache::RopeRule::sglang(Some(&[0, 5, 8][..]), true);
    assert_eq!(
        crate::rope_cache::rope_cache_tensors(&s, rule, 2),
        vec![67_108_864, 67_108_864]
    );
    let total: u64 = 1_249_902_592
        + 9 * 89_128_960
        + 39 * 94_371_904
        + 201_326_592
        + 47 * 6_443_499_776
        + 48 * 2 * 4_096
        + 4_096;
    assert_eq!(total, 308_778_780_864);
    let active: u64 = total - 47 * 248 * 25_165_824;
    assert_eq!(active, 15_445_936_320);
    // bf16 at tp 1: 2 B a parameter, the fp32 router weight and bias 2 B more each: 47 × 1,048,832 ×
    // 2 = 98,590,208.
    assert_eq!(s.weight_bytes_per_rank(1).0, 2 * total + 98_590_208);
}

/// The FP8 checkpoint at tp 4 by hand (tolerance: none; 128×128 blocks, fp32 scales rounded up at the
/// edges; bf16 o_proj, module `mimo_v2`).
///
/// Embedding and head: 2 × 38,144 × 4,096 × 2 B = 624,951,296. Global layer: norms 16,384; qkv (16 ×
/// 192 + 1 × 320 = 3,392 rows) × 4,096 = 13,893,632 + ⌈3,392 / 128⌉ = 27 × 32 × 4 = 3,456; o_proj
/// 4,096 × 2,048 × 2 = 16,777,216 → 30,690,688. Sliding layer: qkv 3,712 rows → 15,204,352 + 29 × 32 ×
/// 4 = 3,712; sink 16 × 2 = 32 → 32,001,696. Dense MLP: gate_up 8,192 × 4,096 + 64 × 32 × 4 =
/// 33,562,624, down 4,096 × 4,096 + 32 × 32 × 4 = 16,781,312 → 50,343,936. MoE layer: 256 × (1,024 ×
/// 4,096 + 8 × 32 × 4 + 4,096 × 512 + 32 × 4 × 4) = 256 × 6,292,992 = 1,611,005,952, gate 256 × 4,096
/// × 4 = 4,194,304, bias 1,024 → 1,615,201,280. Total 624,951,296 + 9 × 30,690,688 + 39 × 32,001,696 +
/// 50,343,936 + 47 × 1,615,201,280 + 8,192 = **78,114,045,920 B** (72.75 GiB) a rank.
#[test]
fn mimo_v2_flash_fp8_tp4_weights_by_hand() {
    let q = Quantization {
        weights: WeightFormat {
            dtype: WeightDtype::Fp8,
            block_size: Some([128, 128]),
            ..WeightFormat::plain(WeightDtype::Fp8)
        },
        ..Quantization::bf16()
    };
    let s = ModelSpec::from_config_json(MIMO_V2_FLASH, q).unwrap();
    assert_eq!(s.weight_bytes_per_rank(4).0, 78_114_045_920);
}

/// KV per token by hand (tolerance: none): a global layer caches max(1, 4 / tp) × (192 + 128) × 2 B,
/// a sliding one max(1, 8 / tp) × 320 × 2 B. tp 1: 2,560 and 5,120 → 9 × 2,560 + 39 × 5,120 =
/// 222,720; tp 4: 640 and 1,280 → 55,680; tp 8: 640 and 640 (one replicated head each) → 30,720.
/// SGLang 0.5.7 / 0.5.8 count the global cell over all 48 layers: tp 4 48 × 640 + 39 × 1,280 =
/// 80,640; 0.5.9 the layer kinds apart: 55,680.
#[test]
fn mimo_v2_flash_kv_cells_by_hand() {
    let s = spec(MIMO_V2_FLASH).unwrap();
    assert_eq!(s.mimo_v2_layer_cells(4), Some((640, 1_280)));
    assert_eq!(
        (s.kv_cell_bytes(1), s.kv_cell_bytes(4), s.kv_cell_bytes(8)),
        (222_720, 55_680, 30_720)
    );
    assert_eq!(s.mimo_v2_sglang_cell(4, true), Some(80_640));
    assert_eq!(s.mimo_v2_sglang_cell(4, false), Some(55_680));
}

/// SGLang's refusals: tp must divide the heads (64) and suit both KV-head counts; tp ≤ 256 experts;
/// a non-silu activation; a pattern of the wrong length.
#[test]
fn mimo_v2_flash_refusals() {
    let s = spec(MIMO_V2_FLASH).unwrap();
    assert!(s.validate_tp(8).is_ok());
    let e = s.validate_tp(3).unwrap_err().to_string();
    assert!(e.contains("not divisible by tp 3"), "{e}");
    let swa = with(MIMO_V2_FLASH, |m| {
        m.insert("swa_num_key_value_heads".into(), 6.into());
    });
    let e = spec(&swa).unwrap().validate_tp(4).unwrap_err().to_string();
    assert!(e.contains("6 sliding-window KV heads"), "{e}");
    let act = with(MIMO_V2_FLASH, |m| {
        m.insert("hidden_act".into(), "gelu".into());
    });
    assert!(
        spec(&act)
            .unwrap_err()
            .to_string()
            .contains("Only silu is supported")
    );
    let short = with(MIMO_V2_FLASH, |m| {
        m.insert("hybrid_layer_pattern".into(), serde_json::json!([0, 1]));
    });
    let e = spec(&short).unwrap_err().to_string();
    assert!(
        e.contains("hybrid_layer_pattern") && e.contains("48 entries"),
        "{e}"
    );
}

/// The layer cells against a public SGLang start-up log (tolerance: the log's two decimals): sglang PR
/// 15464 (2025-12-19, 4× B200, tp 4, bf16 KV) prints for the sliding pool "KV Cache is allocated.
/// #tokens: 1496958, K size: 41.76 GB, V size: 27.84 GB", for the full pool "K size: 4.82 GB, V size:
/// 3.21 GB" and "SWAKVPool mem usage: 77.63 GB, swa size: 1496958, full size: 1496958" (GB = 2^30 B in
/// SGLang's `memory_pool.py`). By hand at tp 4: sliding K 39 × 2 heads × 192 × 2 B × 1,496,958 /
/// 2^30 = 41.758, V (× 128) 27.838; full K 9 × 1 × 192 × 2 B × 1,496,958 / 2^30 = 4.818, V 3.212;
/// both pools (39 × 1,280 + 9 × 640) × 1,496,958 / 2^30 = 77.626. (That run's equal pool sizes are a
/// swa_full_tokens_ratio of 1.0, not the 0.8 default tpsim takes: its launch command is not in the
/// log; see the coverage row.)
#[test]
fn mimo_v2_flash_layer_cells_match_the_sglang_log() {
    let s = spec(MIMO_V2_FLASH).unwrap();
    let (full, swa) = s.mimo_v2_layer_cells(4).unwrap();
    let tokens = 1_496_958f64;
    let gib = |layers: u64, cell: u64| (layers * cell) as f64 * tokens / (1u64 << 30) as f64;
    let a = s.mimo_v2.unwrap();
    // K and V apart: the cell's share of 192 and 128 in 320.
    let k = |layers: u64, cell: u64| gib(layers, cell) * a.swa_head_dim as f64 / 320.0;
    let v = |layers: u64, cell: u64| gib(layers, cell) * a.swa_v_head_dim as f64 / 320.0;
    for (got, logged) in [
        (k(39, swa), 41.76),
        (v(39, swa), 27.84),
        (k(9, full), 4.82),
        (v(9, full), 3.21),
        (gib(39, swa) + gib(9, full), 77.63),
    ] {
        assert!((got - logged).abs() < 0.005, "{got} vs the log's {logged}");
    }
}
