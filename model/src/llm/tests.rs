//! Unit tests pinned to hand-computed values and to the measured references in
//! `tests/data/engine-memory.tsv` / `reference/hardware-and-models.md`.

use super::*;

const KIMI: &str = include_str!("../../../scenarios/models/kimi-k2.5/config.json");
const KIMI_EAGLE3: &str = include_str!("../../../scenarios/models/kimi-k2.5-eagle3/config.json");
const DEEPSEEK_V3: &str = include_str!("../../../scenarios/models/deepseek-v3/config.json");
const LLAMA_8B: &str = include_str!("../../../scenarios/models/llama-3.1-8b/config.json");
const LLAMA_70B: &str = include_str!("../../../scenarios/models/llama-3.1-70b/config.json");
const QWEN3_235B: &str = include_str!("../../../scenarios/models/qwen3-235b-a22b/config.json");
const QWQ_32B: &str = include_str!("../../../scenarios/models/qwq-32b/config.json");
const QWEN25_72B: &str = include_str!("../../../scenarios/models/qwen2.5-72b/config.json");

/// `kimi-k2.5/quant.toml`, written as the equivalent JSON (this crate has no TOML parser; the `tpsim`
/// crate parses the TOML into the same type).
fn kimi_quant() -> Quantization {
    serde_json::from_str(r#"{"dtype":"bf16","experts":{"dtype":"int4","group_size":32,"scale_dtype":"bf16"},"kv_cache_dtype":"auto"}"#)
        .expect("kimi quant")
}

/// `deepseek-v3/quant.toml` as JSON.
fn deepseek_quant() -> Quantization {
    serde_json::from_str(r#"{"dtype":"fp8","block_size":[128,128],"scale_dtype":"fp32"}"#).expect("ds quant")
}

fn spec(text: &str, q: Quantization) -> ModelSpec {
    ModelSpec::from_config_json(text, q).expect("preset parses")
}

fn kimi() -> ModelSpec {
    spec(KIMI, kimi_quant())
}

// ---------------------------------------------------------------- formulas

#[test]
fn distinct_experts_match_reference() {
    // reference/spec-decode.md: Kimi (E = 384, k = 8): 8, 15.8, 31.0, 59.5 for n = 1, 2, 4, 8
    // (tolerance 0.05: the reference rounds to one decimal).
    for (n, want) in [(1, 8.0), (2, 15.8), (4, 31.0), (8, 59.5)] {
        let got = expected_distinct_experts(384, 8, n);
        assert!((got - want).abs() < 0.05, "n={n}: {got} vs {want}");
    }
    assert!(expected_distinct_experts(0, 8, 4).abs() < 1e-12);
    assert!(expected_distinct_experts(384, 8, 0).abs() < 1e-12);
    assert!(
        (expected_distinct_experts(4, 8, 3) - 4.0).abs() < 1e-12,
        "k > E saturates at E"
    );
    assert!(expected_distinct_experts(384, 8, u64::MAX) <= 384.0);
}

#[test]
fn bytes_per_param_per_format() {
    let bf16 = WeightFormat::plain(WeightDtype::Bf16);
    assert_eq!(bf16.tensor_bytes(3, 5), 30);
    let q = kimi_quant();
    let int4 = q.expert_format();
    // INT4, group 32, bf16 scales: 0.5 + 2/32 = 0.5625 B/param.
    assert!((int4.bytes_per_param() - 0.5625).abs() < 1e-12);
    // One Kimi expert gate_proj [2048, 7168]: 2048·7168/2 + 2048·224·2 = 7,340,032 + 917,504.
    assert_eq!(int4.tensor_bytes(2048, 7168), 8_257_536);
    let fp8 = deepseek_quant().weights;
    // fp8 + one fp32 per 128×128 block: 1 + 4/16384.
    assert!((fp8.bytes_per_param() - (1.0 + 4.0 / 16384.0)).abs() < 1e-12);
    // [576, 7168]: 4,128,768 elements + ceil(576/128)=5 × 56 blocks × 4 B.
    assert_eq!(fp8.tensor_bytes(576, 7168), 4_128_768 + 5 * 56 * 4);
    let nvfp4: Quantization = serde_json::from_str(r#"{"dtype":"nvfp4"}"#).expect("nvfp4");
    // 0.5 + 1 fp8 scale per 16 = 0.5625; plus two fp32 per tensor.
    assert!((nvfp4.weights.bytes_per_param() - 0.5625).abs() < 1e-12);
    assert_eq!(nvfp4.weights.tensor_bytes(16, 32), 256 + 32 + 8);
    let asym: Quantization =
        serde_json::from_str(r#"{"dtype":"int4","group_size":128,"scale_dtype":"fp16","zero_point":true}"#)
            .expect("gptq");
    // 0.5 + 2/128 + 0.5/128.
    assert!((asym.weights.bytes_per_param() - (0.5 + 2.5 / 128.0)).abs() < 1e-12);
}

#[test]
fn quantization_rejects_bad_descriptions() {
    let bad = [
        r#"{"dtype":"bf16","colour":"red"}"#,
        r#"{"dtype":"int4"}"#,
        r#"{"dtype":"int4","group_size":0}"#,
        r#"{"dtype":"bf16","group_size":32}"#,
        r#"{"dtype":"fp8","block_size":[0,128]}"#,
        r#"{"dtype":"nvfp4","group_size":32}"#,
        r#"{"dtype":"int3"}"#,
        r#"{"experts":{"dtype":"int4","group_size":32,"bits":4}}"#,
        r#"{"kv_cache_dtype":"fp4"}"#,
    ];
    for text in bad {
        let err = serde_json::from_str::<Quantization>(text);
        assert!(err.is_err(), "accepted {text}");
    }
    let msg = serde_json::from_str::<Quantization>(r#"{"dtype":"int4"}"#)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("group_size"), "{msg}");
    let q: Quantization = serde_json::from_str("{}").expect("empty = bf16");
    assert_eq!(q, Quantization::bf16());
}

// ---------------------------------------------------------------- Kimi-K2.5 (the seed)

#[test]
fn kimi_parses_text_config_and_vision() {
    let s = kimi();
    assert_eq!(s.arch, Architecture::KimiK25);
    assert!(s.has_vision);
    let v = s.vision.expect("vision tower");
    assert!(!v.assumed);
    assert_eq!(
        (v.layers, v.hidden, v.intermediate, v.heads),
        (27, 1152, 4304, 16)
    );
    assert_eq!(
        (s.num_layers, s.hidden, s.vocab, s.heads),
        (61, 7168, 163_840, 64)
    );
    assert_eq!(s.first_k_dense_replace, 1);
    assert_eq!(s.layers.iter().filter(|l| matches!(l, Ffn::Moe(_))).count(), 60);
    assert_eq!(s.num_nextn_predict_layers, 0);
    assert!(!s.tie_word_embeddings);
    assert_eq!(
        s.attention,
        Attention::Mla {
            q_lora_rank: Some(1536),
            kv_lora_rank: 512,
            qk_nope_head_dim: 128,
            qk_rope_head_dim: 64,
            v_head_dim: 128
        }
    );
}

#[test]
fn kimi_cell_size_is_70272() {
    // engine-memory.md: (512 + 64) × 61 × 2 = 70,272, not divided by TP.
    let s = kimi();
    assert_eq!(s.kv_cell_bytes(8), 70_272);
    assert_eq!(s.kv_cell_bytes(1), 70_272);
}

#[test]
fn kimi_weights_per_rank_at_tp8() {
    // Reference: the seed measured 94.04 − 21.71 = 72.33 GiB of free memory consumed by loading,
    // which includes some non-weight allocations, so our figure must lie within 3 % *below* it.
    //
    // Hand arithmetic, bytes per rank at tp 8 (bf16 = 2 B; experts INT4 g32 with bf16 scales):
    //   embedding, lm_head   2 × 20,480 × 7,168 × 2                                  =    587,202,560
    //   attention × 61       fused q_a+kv_a 2,112×7,168×2 = 30,277,632 (replicated)
    //                        + q_b 1,536×1,536×2 = 4,718,592 + kv_b 2,048×512×2 = 2,097,152
    //                        + w_kc, w_vc 2 × 1,024×512×2 = 2,097,152
    //                        + o_proj 7,168×1,024×2 = 14,680,064  → 53,870,592 × 61  =  3,286,106,112
    //   dense MLP (layer 0)  3 × 2,304 × 7,168 × 2                                   =     99,090,432
    //   routed × 60 × 384    gate_up 512×7,168: 1,835,008 + 512×224×2 = 229,376
    //                        down 7,168×256: 917,504 + 7,168×8×2 = 114,688 → 3,096,576 = 71,345,111,040
    //   shared × 60          3 × 256 × 7,168 × 2 = 11,010,048                        =    660,602,880
    //   router × 60          384×7,168×2 + 384×4 (fp32 bias) = 5,506,560            =    330,393,600
    //   norms                61 × (2×7,168 + 1,536 + 512) × 2 + 7,168 × 2            =      2,013,184
    //   vision (27 blocks sharded by 8, patch/pos/projector replicated)             =    222,547,868
    //   total                                                                        = 76,533,067,676
    //                                                                                = 71.28 GiB
    let s = kimi();
    s.validate_tp(8).expect("tp 8 works");
    let b = s.weight_breakdown(8);
    assert_eq!(b.attention, 3_286_106_112);
    assert_eq!(b.routed_experts, 71_345_111_040);
    assert_eq!(b.vision, 222_547_868);
    let total = s.weight_bytes_per_rank(8);
    assert_eq!(total.0, 76_533_067_676);
    let gib = total.as_gib_f64();
    assert!(
        (72.33 * 0.97..=72.33).contains(&gib),
        "{gib} GiB vs 72.33 GiB measured"
    );
}

#[test]
fn kimi_decode_reads_about_6_gb_per_rank() {
    // hardware-and-models.md: "≈ 6.0 GB per GPU at TP 8" per decoded token at batch 1; tolerance 15 %.
    let s = kimi();
    let fp = s.forward_pass(8, 1);
    let gb = fp.weight_bytes().as_gb_f64();
    assert!((gb - 6.0).abs() <= 0.15 * 6.0, "{gb} GB");
    assert_eq!(fp.layers.len(), 61);
    assert!(!fp.layers[0].is_moe && fp.layers[1].is_moe);
    assert!((fp.layers[1].experts_touched - 8.0).abs() < 1e-9);
    // Allreduce message: tokens × 7168 × 2 = 14 KB per token; 2 per layer + the embedding's.
    assert_eq!(fp.allreduce_bytes.0, 14_336);
    assert_eq!(fp.allreduces, 2 * 61 + 1);
    assert_eq!(fp.logits_allgather_bytes.0, 163_840 * 2);
    assert_eq!(fp.fusion_bytes.0, 0);
    // Verifying 8 tokens touches ≈ 59.5 experts per MoE layer and reads more.
    let fp8 = s.forward_pass(8, 8);
    assert!((fp8.layers[5].experts_touched - 59.5).abs() < 0.05);
    assert!(fp8.weight_bytes() > fp.weight_bytes());
    assert!(fp8.flops() > 7.9 * fp.flops() && fp8.flops() < 8.1 * fp.flops());
    // No NaN/inf anywhere, including zero tokens and tp 0.
    for p in [
        s.forward_pass(0, 0),
        s.forward_pass(8, 0),
        s.forward_pass(8, u32::MAX),
    ] {
        assert!(p.flops().is_finite());
        assert!(p.layers.iter().all(|l| l.experts_touched.is_finite()));
    }
}

#[test]
fn kimi_tp_errors_name_the_numbers() {
    let s = kimi();
    let msg = s.validate_tp(3).unwrap_err().to_string();
    assert!(
        msg.contains("64 attention heads") && msg.contains("tp 3"),
        "{msg}"
    );
    assert!(s.validate_tp(0).is_err());
    // 2048 / 128 = 16 per rank: not a multiple of the INT4 group of 32.
    let msg = s.validate_tp(128).unwrap_err().to_string();
    assert!(msg.contains("heads") || msg.contains("group"), "{msg}");
    // tp 16: 64 heads ok, 2048/16 = 128 = 4 groups of 32, vision 16 heads ok.
    s.validate_tp(16).expect("tp 16 works");
}

// ---------------------------------------------------------------- EAGLE-3 draft of Kimi

#[test]
fn kimi_eagle3_draft() {
    let s = spec(KIMI_EAGLE3, Quantization::bf16());
    assert!(s.is_eagle3_draft());
    assert_eq!(s.num_layers, 1);
    // 64 KV heads / tp 8 = 8 heads × (128 + 128) × 1 layer × 2 B = 4,096.
    assert_eq!(s.kv_cell_bytes(8), 4_096);
    // Loaded weights at tp 1 (embedding shared with the target, not loaded):
    //   lm_head 163,840×7,168×2 = 2,348,810,240; fc 7,168×21,504×2 = 308,281,344;
    //   qkv (3×8,192)×14,336×2 = 704,643,072; o 7,168×8,192×2 = 117,440,512;
    //   MLP 3×12,288×7,168×2 = 528,482,304; 4 norms × 7,168 × 2 = 57,344 → 4,007,714,816.
    assert_eq!(s.weight_bytes_per_rank(1).0, 4_007_714_816);
    // The published checkpoint (with its copy of the embedding, 2,348,810,240 B) is ≈ 6 GB bf16
    // (spec-decode.md): 6.36 GB, tolerance 10 %.
    let file_gb = (4_007_714_816u64 + 163_840 * 7_168 * 2) as f64 / 1e9;
    assert!((file_gb - 6.0).abs() < 0.6, "{file_gb}");
    // tp 8: fc replicated 308,281,344 + (2,348,810,240 + 704,643,072 + 117,440,512 + 528,482,304)/8
    //       + norms 57,344 = 770,760,704.
    assert_eq!(s.weight_bytes_per_rank(8).0, 770_760_704);
    let fp = s.forward_pass(8, 4);
    // Draft passes: embedding + attention + MLP allreduces (spec-decode.md: ≈ 3 per draft forward).
    assert_eq!(fp.allreduces, 3);
    assert_eq!(fp.fusion_bytes.0, 308_281_344);
    assert_eq!(fp.logits_allgather_bytes.0, 4 * 163_840 * 2);
}

// ---------------------------------------------------------------- other presets

#[test]
fn llama_8b_matches_sglang_h100_log() {
    // engine-memory.tsv: SGLang H100 Llama-3.1-8B weight_mem 15.09 GiB (derived); tolerance 2 %.
    // embed + lm_head 2 × 128,256×4,096×2 = 2,101,346,304; per layer qkv 6,144×4,096×2 = 50,331,648
    // + o 33,554,432 + MLP 3×14,336×4,096×2 = 352,321,536 + norms 16,384 = 436,224,000 × 32
    // = 13,959,168,000; final norm 8,192 → 16,060,522,496 B = 14.96 GiB.
    let s = spec(LLAMA_8B, Quantization::bf16());
    assert_eq!(s.weight_bytes_per_rank(1).0, 16_060_522_496);
    let gib = s.weight_bytes_per_rank(1).as_gib_f64();
    assert!((gib - 15.09).abs() <= 0.02 * 15.09, "{gib}");
    // engine-memory.md: 8 × 256 × 32 × 2 = 131,072.
    assert_eq!(s.kv_cell_bytes(1), 131_072);
    assert_eq!(s.kv_cell_bytes(4), 32_768);
    // tp 16 > 8 KV heads: replicated, one head per rank.
    assert_eq!(s.kv_cell_bytes(16), 16_384);
    s.validate_tp(16).expect("tp % kv_heads == 0 is allowed");
    let fp = s.forward_pass(1, 1);
    assert_eq!(fp.allreduces, 0);
    assert_eq!(fp.logits_allgather_bytes.0, 0);
}

#[test]
fn llama_70b_tp8() {
    // embed, lm_head 2 × 16,032×8,192×2 = 525,336,576; per layer qkv (1,024+256)×8,192×2 = 20,971,520
    // + o 8,192×1,024×2 = 16,777,216 + MLP 3×3,584×8,192×2 = 176,160,768 + norms 32,768
    // = 213,942,272 × 80 = 17,115,381,760; final norm 16,384 → 17,640,734,720 B = 16.43 GiB.
    let s = spec(LLAMA_70B, Quantization::bf16());
    s.validate_tp(8).expect("tp 8");
    assert_eq!(s.weight_bytes_per_rank(8).0, 17_640_734_720);
    // 1 KV head per rank × 256 × 80 × 2.
    assert_eq!(s.kv_cell_bytes(8), 40_960);
}

#[test]
fn qwen3_235b_tp8() {
    // vocab 151,936 (already a multiple of 64) / 8 = 18,992 rows: embed, lm_head 2 × 155,582,464.
    // per layer: qkv (1,024 + 2×1×128)×4,096×2 = 10,485,760 (4 KV heads replicated at tp 8)
    // + o 8,388,608 + q/k norms 512 + norms 16,384 + router 128×4,096×2 = 1,048,576
    // + experts 128 × 3×192×4,096×2 = 603,979,776 → 623,919,616 × 94 = 58,648,443,904;
    // final norm 8,192 → 58,959,617,024 B = 54.91 GiB.
    let s = spec(QWEN3_235B, Quantization::bf16());
    s.validate_tp(8).expect("tp 8: tp % kv_heads == 0");
    assert_eq!(s.weight_bytes_per_rank(8).0, 58_959_617_024);
    assert_eq!(s.kv_cell_bytes(8), 48_128);
    assert_eq!(s.moe.map(|m| m.n_shared_experts), Some(0));
}

/// presets10 (issue #17, launch command 39): `qwen3-235b-a22b-instruct-2507` is the 235B network again
/// (94 layers, 64 / 4 heads of 128, 128 experts of 1,536, vocab 151,936: the arithmetic of
/// [`qwen3_235b_tp8`], 58,959,617,024 B per rank at tp 8 and 1 KV head × (128 + 128) × 94 × 2 B =
/// 48,128 B per token) with its own context: `max_position_embeddings` 262,144 against the original's
/// 40,960 (exact integers, no tolerance).
#[test]
fn qwen3_235b_instruct_2507_is_the_235b_network_with_262k_positions() {
    let cfg = include_str!("../../../scenarios/models/qwen3-235b-a22b-instruct-2507/config.json");
    let s = spec(cfg, Quantization::bf16());
    assert_eq!(
        (s.num_layers, s.hidden, s.heads, s.kv_heads, s.head_dim, s.vocab),
        (94, 4096, 64, 4, 128, 151_936)
    );
    s.validate_tp(8).expect("tp 8");
    assert_eq!(s.weight_bytes_per_rank(8).0, 58_959_617_024);
    assert_eq!(s.kv_cell_bytes(8), 48_128);
    assert_eq!(s.context_len, Some(262_144));
    assert_eq!(spec(QWEN3_235B, Quantization::bf16()).context_len, Some(40_960));
}

/// presets10 (issue #17, launch command 52): `qwen2.5-1.5b` (Qwen2.5-1.5B-Instruct, tied embeddings).
/// At tp 1 the weights are the checkpoint's parameter total, 1,543,714,304 (the public model report its
/// README names) × 2 B = 3,087,428,608 B: embedding 151,936 × 1,536 = 233,373,696 (shared with the LM
/// head); per layer q 1,536² + k, v 2 × 256 × 1,536 + biases 1,536 + 512 + o 1,536² + MLP 3 × 8,960 ×
/// 1,536 + norms 2 × 1,536 = 46,797,824 × 28 = 1,310,339,072; final norm 1,536. At tp 4: 12 / 4 = 3
/// heads per rank, the 2 KV heads replicated to 1 per rank: KV per token 1 × (128 + 128) × 28 × 2 B =
/// 14,336 (exact integers).
#[test]
fn qwen2_5_1_5b_matches_the_checkpoint_parameter_total() {
    let cfg = include_str!("../../../scenarios/models/qwen2.5-1.5b/config.json");
    let s = spec(cfg, Quantization::bf16());
    assert!(s.tie_word_embeddings);
    assert_eq!(s.weight_bytes_per_rank(1).0, 1_543_714_304 * 2);
    s.validate_tp(4).expect("tp 4");
    assert_eq!(s.kv_cell_bytes(4), 14_336);
    assert_eq!(s.context_len, Some(32_768));
}

#[test]
fn deepseek_v3_fp8_tp8() {
    // fp8 + fp32 per 128×128 block; embed/lm_head/norms/router bf16; MTP layer not loaded.
    // embed, lm_head 2 × 16,160×7,168×2 = 463,339,520.
    // attention per layer: fused q_a+kv_a 2,112×7,168 + 17×56×4 = 15,142,624; q_b 3,072×1,536
    // + 24×12×4 = 4,719,744; kv_b 4,096×512 + 32×4×4 = 2,097,664; w_kc + w_vc (bf16) 4,194,304;
    // o 7,168×2,048 + 56×16×4 = 14,683,648 → 40,837,984 × 61 = 2,491,117,024.
    // dense × 3: 4,608×7,168 + 36×56×4 + 7,168×2,304 + 56×18×4 = 49,557,312 → 148,671,936.
    // MoE × 58: expert 512×7,168 + 4×56×4 + 7,168×256 + 56×2×4 = 5,506,368; × (256 routed + 1 shared)
    // = 1,415,136,576; router 256×7,168×2 + 1,024 = 3,671,040 → 1,418,807,616 × 58 = 82,290,841,728.
    // norms 61 × 32,768 + 14,336 = 2,013,184. Total 85,395,983,392 B = 79.53 GiB.
    let s = spec(DEEPSEEK_V3, deepseek_quant());
    assert_eq!(s.num_nextn_predict_layers, 1);
    assert_eq!(s.num_layers, 61);
    s.validate_tp(8).expect("tp 8");
    assert_eq!(s.weight_bytes_per_rank(8).0, 85_395_983_392);
    assert_eq!(s.kv_cell_bytes(8), 70_272);
    // tp 32: 18,432 / 32 = 576 (dense) and 2,048 / 32 = 64 (experts) per rank are not whole 128-wide
    // fp8 blocks (SGLang `fp8.py` refuses); the first failing width is reported.
    let msg = s.validate_tp(32).unwrap_err().to_string();
    assert!(
        msg.contains("block of 128") && msg.contains("576 per rank"),
        "{msg}"
    );
    s.validate_tp(16)
        .expect("tp 16: 1,152 and 128 per rank are whole blocks");
}

#[test]
fn qwq_32b_tp4_matches_l4_log() {
    // engine-memory.tsv: QwQ-32B tp 4 on L4, weight_mem 15.54 GiB (free-memory drop, includes some
    // non-weight allocations); tolerance 2 %.
    // embed, lm_head 2 × 38,016×5,120×2 = 778,567,680; per layer qkv 1,792×5,120×2 = 18,350,080
    // + bias 3,584 + o 5,120×1,280×2 = 13,107,200 + MLP 3×6,912×5,120×2 = 212,336,640 + norms 20,480
    // = 243,817,984 × 64 = 15,604,350,976; final norm 10,240 → 16,382,928,896 B = 15.26 GiB.
    let s = spec(QWQ_32B, Quantization::bf16());
    s.validate_tp(4).expect("tp 4");
    assert!(s.attention_bias);
    assert_eq!(s.weight_bytes_per_rank(4).0, 16_382_928_896);
    let gib = s.weight_bytes_per_rank(4).as_gib_f64();
    assert!((gib - 15.54).abs() <= 0.02 * 15.54, "{gib}");
}

#[test]
fn qwen2_5_72b_tp2_weights_by_hand() {
    // newdeploys: the preset of the 2× H100 throughput row. Per rank at tp 2 (hidden 8,192, 64 / 8
    // heads of 128, MLP 29,568, vocab 152,064, untied, 80 layers): embed and lm_head
    // 2 × 76,032×8,192×2 = 2,491,416,576; per layer qkv (4,096 + 2 × 512)×8,192×2 = 83,886,080
    // + bias 5,120×2 = 10,240 + o 8,192×4,096×2 = 67,108,864 + MLP 3×14,784×8,192×2 = 726,663,168
    // + norms 2×8,192×2 = 32,768 = 877,701,120 × 80 = 70,216,089,600; final norm 16,384
    // → 72,707,522,560 B = 67.71 GiB, the geometry of kimi-dev-72b, whose vLLM 0.19 log reads 67.82 GiB
    // (engine-memory.tsv line 28, with the RoPE cache); tolerance 1 % against that log.
    let s = spec(QWEN25_72B, Quantization::bf16());
    s.validate_tp(2).expect("tp 2");
    assert!(s.attention_bias);
    assert_eq!(s.weight_bytes_per_rank(2).0, 72_707_522_560);
    let gib = s.weight_bytes_per_rank(2).as_gib_f64();
    assert!((gib - 67.82).abs() <= 0.01 * 67.82, "{gib}");
}

// ---------------------------------------------------------------- bad input

#[test]
fn unsupported_architecture_lists_supported() {
    let err = ModelSpec::from_config_json(r#"{"architectures":["GPT2LMHeadModel"]}"#, Quantization::bf16())
        .unwrap_err();
    match &err {
        ModelError::UnsupportedArchitecture { found, supported } => {
            assert_eq!(found, "GPT2LMHeadModel");
            assert!(supported.contains(&"DeepseekV3ForCausalLM"));
        }
        other => panic!("wrong error {other:?}"),
    }
    assert!(err.to_string().contains("LlamaForCausalLM"));
}

#[test]
fn missing_field_is_named() {
    let text = LLAMA_8B.replace("\"hidden_size\": 4096,", "");
    let msg = ModelSpec::from_config_json(&text, Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("hidden_size"), "{msg}");
    let text = KIMI.replace("\"kv_lora_rank\": 512,", "");
    let msg = ModelSpec::from_config_json(&text, kimi_quant())
        .unwrap_err()
        .to_string();
    assert!(msg.contains("kv_lora_rank"), "{msg}");
}

#[test]
fn bad_input_gives_errors_not_panics() {
    let cases = [
        "",
        "[]",
        "null",
        "{",
        "{}",
        r#"{"architectures":[]}"#,
        r#"{"architectures":"LlamaForCausalLM"}"#,
        r#"{"architectures":["KimiK25ForConditionalGeneration"]}"#,
        r#"{"architectures":["LlamaForCausalLM"],"hidden_size":-1}"#,
        r#"{"architectures":["LlamaForCausalLM"],"hidden_size":0,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":1,"intermediate_size":1}"#,
        r#"{"architectures":["LlamaForCausalLM"],"hidden_size":18446744073709551615,"num_hidden_layers":1,"num_attention_heads":1,"vocab_size":1,"intermediate_size":1}"#,
        r#"{"architectures":["LlamaForCausalLM"],"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":12,"num_key_value_heads":5,"vocab_size":10,"intermediate_size":8}"#,
        r#"{"architectures":["LlamaForCausalLM"],"hidden_size":64,"num_hidden_layers":1,"num_attention_heads":5,"vocab_size":10,"intermediate_size":8}"#,
        r#"{"architectures":["Qwen3MoeForCausalLM"],"hidden_size":64,"num_hidden_layers":2,"num_attention_heads":4,"vocab_size":10,"num_experts":4,"num_experts_per_tok":8,"moe_intermediate_size":8}"#,
        r#"{"architectures":["LlamaForCausalLM"],"torch_dtype":"int8","hidden_size":64,"num_hidden_layers":1,"num_attention_heads":4,"vocab_size":10,"intermediate_size":8}"#,
    ];
    for text in cases {
        assert!(
            ModelSpec::from_config_json(text, Quantization::bf16()).is_err(),
            "accepted {text:?}"
        );
    }
    // An `experts` override on a dense model is a mistake in the description.
    assert!(matches!(
        ModelSpec::from_config_json(LLAMA_8B, kimi_quant()),
        Err(ModelError::InvalidQuantization { .. })
    ));
}

#[test]
fn gqa_kv_heads_must_fit_tp() {
    let text = r#"{"architectures":["Qwen3ForCausalLM"],"hidden_size":768,"num_hidden_layers":2,
        "num_attention_heads":12,"num_key_value_heads":3,"head_dim":64,"vocab_size":1000,"intermediate_size":1536}"#;
    let s = ModelSpec::from_config_json(text, Quantization::bf16()).expect("parses");
    s.validate_tp(3).expect("3 divides 3 KV heads");
    s.validate_tp(6).expect("6 is a multiple of 3 KV heads");
    let msg = s.validate_tp(2).unwrap_err().to_string();
    assert!(msg.contains("3 KV heads") && msg.contains("tp 2"), "{msg}");
    assert!(
        s.validate_tp(5)
            .unwrap_err()
            .to_string()
            .contains("12 attention heads")
    );
}

#[test]
fn multimodal_without_vision_config_assumes_moonvit() {
    let text = KIMI.replace("\"vision_config\"", "\"vision_config_removed\"");
    let s = ModelSpec::from_config_json(&text, kimi_quant()).expect("parses");
    assert!(s.has_vision);
    assert!(s.vision.expect("assumed tower").assumed);
    assert_eq!(s.weight_breakdown(8).vision, 222_547_868);
}

#[test]
fn kimi_verify_of_4_tokens_reads_about_10_gb_per_rank() {
    // Issue #4 / hardware-and-models.md: verifying 4 tokens with independent routing touches
    // 384 × (1 − (1 − 8/384)^4) ≈ 31.0 experts per MoE layer and reads ≈ 10.3 GB per rank at TP 8;
    // tolerance 15 % (the same as the 1-token figure).
    let s = kimi();
    let fp = s.forward_pass(8, 4);
    let gb = fp.weight_bytes().as_gb_f64();
    assert!((gb - 10.3).abs() <= 0.15 * 10.3, "{gb} GB");
    assert!((fp.layers[1].experts_touched - 31.0).abs() < 0.05);
    assert_eq!(fp.allreduce_bytes.0, 4 * 14_336);
}

#[test]
#[allow(clippy::float_cmp)] // integer-valued products: exact equality is the point
fn attention_context_flops_by_hand() {
    // Kimi-K2.5 decode, absorbed MLA, TP 8: 64 / 8 = 8 heads × (512 + 64 + 512) = 8,704 per key;
    // 1 token × 1,024 context × 2 = 17,825,792 FLOP per layer per rank.
    let s = kimi();
    assert_eq!(s.attention_context_flops(8, 1, 1, 1024, false), 17_825_792.0);
    // Prefill of one 1,024-token prompt, un-absorbed: 8 heads × (128 + 64 + 128) = 2,560;
    // 2 × 1024² / 2 × 2,560 = 2,684,354,560.
    assert_eq!(s.attention_context_flops(8, 1024, 1, 0, true), 2_684_354_560.0);
}

#[test]
fn attention_prefix_flops_by_hand() {
    // Llama-3.1-8B at tp 1: one new token over 1,024 cached tokens, 32 heads × (128 + 128) = 8,192
    // per key: 2 × 1 × 1,024 × 8,192 = 16,777,216 FLOP per layer.
    let l = spec(LLAMA_8B, Quantization::bf16());
    assert!((l.attention_prefix_flops(1, 1, 1024) - 16_777_216.0).abs() < 0.5);
    // Kimi-K2.5 at tp 8, an extend's widths (un-absorbed): 8 heads × (128 + 64 + 128) = 2,560;
    // 2 × 1 × 1,024 × 2,560 = 5,242,880.
    assert!((kimi().attention_prefix_flops(8, 1, 1024) - 5_242_880.0).abs() < 0.5);
}

/// vllmchunk59: a 4,000-token prompt's two chunks under vLLM 0.16's 2,048-token budget beside 7
/// decodes (`v1/core/sched/scheduler.py`: 2,041 then 1,959 tokens), Llama-3.1-8B at tp 1, 32 heads
/// × (128 + 128) = 8,192 per key: chunk 1 causal, 2 × 2,041² / 2 × 8,192 = 34,125,258,752 FLOP a
/// layer; chunk 2 causal over itself plus the 2,041 computed tokens, (1,959² + 2 × 1,959 × 2,041) ×
/// 8,192 = 96,946,741,248. Costed at a 4,096-token decode context as before, chunk 1 would be
/// 2 × 2,041 × 4,096 × 8,192 = 136,969,191,424 (4.0×).
#[test]
fn mixed_chunk_flops_by_hand() {
    let l = spec(LLAMA_8B, Quantization::bf16());
    assert!((l.mixed_chunk_flops(1, 1, 2_041, 0) - 34_125_258_752.0).abs() < 1.0);
    assert!((l.mixed_chunk_flops(1, 1, 1_959, 2_041) - 96_946_741_248.0).abs() < 1.0);
    assert!((l.attention_context_flops(1, 2_041, 1, 4_096, false) - 136_969_191_424.0).abs() < 1.0);
}

// ---------------------------------------------------------------- KV cell sizes by dtype

#[test]
fn kv_cells_fp8_and_fp4() {
    // engine-memory.md "Cell size": MLA (512 + 64) × 61 layers × 2 B = 70,272 (bf16), × 1 B = 35,136
    // (fp8); fp4 halves the 1-byte cell and adds one scale byte per 16 elements:
    // 35,136 / 2 + (576 / 16) × 61 = 17,568 + 2,196 = 19,764.
    let with_kv = |text: &str, q: Quantization, kv: &str| {
        let mut q = q;
        q.kv_cache_dtype = serde_json::from_str(&format!("\"{kv}\"")).expect("kv dtype");
        spec(text, q)
    };
    assert_eq!(with_kv(KIMI, kimi_quant(), "auto").kv_cell_bytes(8), 70_272);
    assert_eq!(with_kv(KIMI, kimi_quant(), "fp8_e4m3").kv_cell_bytes(8), 35_136);
    assert_eq!(with_kv(KIMI, kimi_quant(), "fp4_e2m1").kv_cell_bytes(8), 19_764);
    // GQA, Llama-3.1-8B at tp 1: 8 KV heads × (128 + 128) × 32 layers × 1 B = 65,536 (fp8); fp4:
    // 32,768 + 8 × 128 × 32 × 2 / 16 = 32,768 + 4,096 = 36,864.
    assert_eq!(
        with_kv(LLAMA_8B, Quantization::bf16(), "fp8_e4m3").kv_cell_bytes(1),
        65_536
    );
    assert_eq!(
        with_kv(LLAMA_8B, Quantization::bf16(), "fp4_e2m1").kv_cell_bytes(1),
        36_864
    );
}

// ---------------------------------------------------------------- Qwen3.5 (hybrid)

const QWEN35: &str = include_str!("../../../scenarios/models/qwen3.5-397b-a17b/config.json");

/// `qwen3.5-397b-a17b-nvfp4/quant.toml` as JSON: routed experts NVFP4, the rest bf16.
fn qwen35_nvfp4() -> Quantization {
    serde_json::from_str(r#"{"dtype":"bf16","experts":{"dtype":"nvfp4"},"mtp":{"dtype":"bf16"}}"#)
        .expect("qwen3.5 nvfp4 quant")
}

#[test]
fn qwen35_parses_the_hybrid_layout() {
    let m = spec(QWEN35, qwen35_nvfp4());
    assert_eq!(m.arch, Architecture::Qwen35Moe);
    assert_eq!((m.num_layers, m.hidden, m.vocab), (60, 4096, 248_320));
    // layer_types: every 4th layer (index 3, 7, …, 59) is full attention → 15 full + 45 linear.
    assert_eq!((m.kv_layers(), m.linear_layers()), (15, 45));
    assert_eq!(m.mixers[3], Mixer::Attention);
    assert_eq!(m.mixers[0], Mixer::Linear);
    assert!(m.attn_output_gate && m.qk_norm);
    assert_eq!(m.num_nextn_predict_layers, 1, "mtp_num_hidden_layers");
    let moe = m.moe.expect("moe");
    assert_eq!(
        (
            moe.n_routed_experts,
            moe.num_experts_per_tok,
            moe.n_shared_experts
        ),
        (512, 10, 1)
    );
    // Without layer_types, full_attention_interval 4 gives the same layout.
    let v: serde_json::Value = serde_json::from_str(QWEN35).unwrap();
    let mut v2 = v.clone();
    v2["text_config"].as_object_mut().unwrap().remove("layer_types");
    let m2 = spec(&v2.to_string(), qwen35_nvfp4());
    assert_eq!(m2.mixers, m.mixers);
    // The flat CausalLM spelling lowers the same way.
    let mut flat = v["text_config"].clone();
    flat["architectures"] = serde_json::json!(["Qwen3_5MoeForCausalLM"]);
    assert_eq!(spec(&flat.to_string(), qwen35_nvfp4()).mixers, m.mixers);
}

#[test]
fn qwen35_kv_cell_and_state_at_tp4() {
    let m = spec(QWEN35, qwen35_nvfp4());
    // Only the 15 full-attention layers hold KV; 2 KV heads at tp 4 are replicated (1 per rank):
    // 1 × (256 + 256) × 15 × 2 B = 15,360 B/token. tp 1: 2 heads → 30,720.
    assert_eq!(m.kv_cell_bytes(4), 15_360);
    assert_eq!(m.kv_cell_bytes(1), 30_720);
    // SGLang mamba_cache_per_req at tp 4: conv (2·2048 + 8192)/4 = 3072 channels × 3 × 2 B = 18,432
    // plus SSM 16 × 128 × 128 × 4 B = 1,048,576, × 45 layers = 48,015,360.
    let g = m.linear_attention.expect("gdn");
    assert_eq!(g.conv_state_bytes(4), 18_432);
    assert_eq!(g.ssm_state_bytes_per_rank(4), 1_048_576);
    assert_eq!(m.linear_state_bytes_per_req(4), 48_015_360);
}

#[test]
fn qwen35_nvfp4_weights_per_rank_at_tp4() {
    let m = spec(QWEN35, qwen35_nvfp4());
    m.validate_tp(4).expect("tp 4");
    let b = m.weight_breakdown(4);
    // One routed expert's shard (intermediate 1024 / 4 = 256), NVFP4 (0.5 B + one fp8 scale per 16 +
    // 8 B per tensor): gate_up [512, 4096] = 1,048,576 + 131,072 + 8; down [4096, 256] = 524,288 +
    // 65,536 + 8 → 1,769,488 B; × 512 experts × 60 layers = 54,358,671,360.
    assert_eq!(b.routed_experts, 54_358_671_360);
    // Shared expert bf16: (2·256·4096 + 4096·256) × 2 B × 60 = 377,487,360.
    assert_eq!(b.shared_experts, 377_487_360);
    // Router [512, 4096] + shared_expert_gate [1, 4096], bf16, replicated: 4,202,496 × 60.
    assert_eq!(b.router, 252_149_760);
    // Linear layers (× 45): in_proj_qkvz (2·2048 + 2·8192)/4 = 5120 rows, in_proj_ba 32 rows,
    // out_proj 4096 × 2048, all × 4096 inputs, bf16; conv1d 3072 × 4 × 2 B; A_log 16 × 4 B (fp32):
    // (5120·4096 + 32·4096 + 4096·2048) × 2 + 24,576 + 64 = 59,007,040.
    // Full layers (× 15): qkv (2 × 8 × 256 query+gate rows + 2 × 1 × 256 KV rows) × 4096 + o_proj
    // 4096 × 2048, bf16 = 54,525,952. Total 45 × 59,007,040 + 15 × 54,525,952 = 3,473,206,080.
    assert_eq!(b.attention, 3_473_206_080);
    // Embedding and LM head: 248,320 / 4 = 62,080 rows × 4096 × 2 B each.
    assert_eq!((b.embedding, b.lm_head), (508_559_360, 508_559_360));
    // Norms: 60 × 2 × 4096 × 2 B + 45 × (dt_bias 16 + gated norm 128) × 2 B + 15 × q/k norms 2 × 256
    // × 2 B + final 4096 × 2 B = 1,019,552.
    assert_eq!(b.norms, 1_019_552);
    // 59,479,652,832 B = 55.39 GiB per rank (≈ 237.9 GB over 4 ranks with the replicated router and
    // norms; lukealonso's checkpoint is ≈ 233 GB on disk, its README).
    assert_eq!(m.weight_bytes_per_rank(4).0, 59_479_652_832);
}

#[test]
fn qwen35_decode_reads_state_not_kv_in_linear_layers() {
    let m = spec(QWEN35, qwen35_nvfp4());
    let fp = m.forward_pass(4, 1);
    assert_eq!(fp.layers.len(), 60);
    let lin = &fp.layers[0];
    let full = &fp.layers[3];
    assert_eq!((lin.kv_bytes_per_token, lin.state_bytes), (0, 18_432 + 1_048_576));
    assert_eq!((full.kv_bytes_per_token, full.state_bytes), (1024, 0));
    assert_eq!(lin.attn_kernels, 8);
    // GQA 5 + q/k norm 1 + output gate 1.
    assert_eq!(full.attn_kernels, 7);
    // Allreduces: 2 per layer + the embedding's.
    assert_eq!(fp.allreduces, 121);
    // One token touches 10 experts: 10 × 1,769,488 B + shared 6,291,456 + router 4,202,496.
    assert_eq!(lin.ffn_weight_bytes.0, 10 * 1_769_488 + 6_291_456 + 4_202_496);
}

#[test]
fn qwen35_bad_configs_are_named() {
    let v: serde_json::Value = serde_json::from_str(QWEN35).unwrap();
    let mut short = v.clone();
    short["text_config"]["layer_types"] = serde_json::json!(["full_attention"]);
    let e = ModelSpec::from_config_json(&short.to_string(), qwen35_nvfp4()).unwrap_err();
    assert!(
        e.to_string().contains("layer_types") && e.to_string().contains("60"),
        "{e}"
    );
    let mut odd = v.clone();
    odd["text_config"]["layer_types"][0] = serde_json::json!("sliding_attention");
    let e = ModelSpec::from_config_json(&odd.to_string(), qwen35_nvfp4()).unwrap_err();
    assert!(e.to_string().contains("sliding_attention"), "{e}");
    let mut missing = v.clone();
    missing["text_config"]
        .as_object_mut()
        .unwrap()
        .remove("linear_num_value_heads");
    let e = ModelSpec::from_config_json(&missing.to_string(), qwen35_nvfp4()).unwrap_err();
    assert!(e.to_string().contains("linear_num_value_heads"), "{e}");
    let mut nowrap = v.clone();
    nowrap.as_object_mut().unwrap().remove("text_config");
    let e = ModelSpec::from_config_json(&nowrap.to_string(), qwen35_nvfp4()).unwrap_err();
    assert!(e.to_string().contains("text_config"), "{e}");
    // tp 32: 32 query heads divide, but the 16 linear key heads do not.
    let m = spec(QWEN35, qwen35_nvfp4());
    let e = m.validate_tp(32).unwrap_err();
    assert!(e.to_string().contains("16 key heads"), "{e}");
}

#[test]
fn decode_projections_of_llama_8b_at_tp8() {
    // hidden 4096, 32 heads / 8 KV heads of 128, intermediate 14336, vocab 128256 (a multiple of 64).
    let got: Vec<(&str, u64, u64)> = spec(LLAMA_8B, Quantization::bf16())
        .decode_projections(8)
        .iter()
        .map(|p| (p.name, p.n, p.k))
        .collect();
    assert_eq!(
        got,
        [
            ("qkv_proj", (4 + 2) * 128, 4096),
            ("o_proj", 4096, 512),
            ("mlp.gate_up_proj", 2 * 1792, 4096),
            ("mlp.down_proj", 4096, 1792),
            ("lm_head", 16032, 4096),
        ]
    );
}

#[test]
fn decode_projections_cover_the_decode_flops_of_a_dense_model() {
    // Every GEMM of a dense GQA layer is a projection: with the layer's two norms (2 × hidden 8192,
    // which the forward pass counts with the attention), their parameters are the forward pass's.
    let s = spec(LLAMA_70B, Quantization::bf16());
    for tp in [1, 2, 4, 8] {
        let per_layer: u64 = s
            .decode_projections(tp)
            .iter()
            .filter(|p| p.name != "lm_head")
            .map(|p| p.n * p.k)
            .sum();
        let fp = s.forward_pass(tp, 1);
        let l = &fp.layers[0];
        // Exact in f64 (< 2^53).
        assert_eq!(
            2 * (per_layer + 2 * 8192),
            (l.attn_flops + l.ffn_flops) as u64,
            "tp {tp}"
        );
    }
}
