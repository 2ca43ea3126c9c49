//! gpt-oss (`GptOssForCausalLM`): alternating sliding-window / full attention with per-head sinks,
//! biased projections, and a biased MoE whose routed experts are MXFP4.
//!
//! Config facts (huggingface.co/openai/gpt-oss-20b and openai/gpt-oss-120b `config.json`, read
//! through public copies: github.com/EchoCog/gpt-oss-20b `config.json` at 52971a1 — the 20b config
//! verbatim except that the mirror rewrote `quant_method` to "gptq" — and, for the 120b, a public
//! test's transcription of <https://huggingface.co/openai/gpt-oss-120b/raw/main/config.json> (kiln's
//! gpt-oss test `REAL`, layer_types 18 × [sliding, full]), whose `quant_method` is "mxfp4"): hidden 2880,
//! head_dim 64, 64 query / 8 KV heads, `layer_types` alternating `"sliding_attention"`,
//! `"full_attention"` (layer 0 sliding), `sliding_window` 128, `attention_bias` true,
//! `intermediate_size` 2880, `num_local_experts` 32 (20b) / 128 (120b), `num_experts_per_tok` 4,
//! vocab 201,088, `tie_word_embeddings` false, 24 (20b) / 36 (120b) layers, `max_position_embeddings`
//! 131,072, `quantization_config` = mxfp4 with `modules_to_not_convert` = self_attn, router,
//! embed_tokens, lm_head (so only the routed experts are MXFP4), `swiglu_limit` 7.0 (a clamp inside
//! the activation: no extra weights).
//!
//! Per-rank layout under TP (vLLM `model_executor/models/gpt_oss.py`, read in the library; SGLang's
//! `models/gpt_oss.py` follows the same module structure):
//!
//! | piece | rule |
//! |---|---|
//! | q/k/v (+ bias) | `QKVParallelLinear` with bias: heads split by tp, KV heads replicated when tp > 8 |
//! | o_proj (+ bias) | `RowParallelLinear` with bias: input split by tp, the `hidden` bias on every rank |
//! | `sinks` | one learned logit per query head, `num_attention_heads / tp` per rank, bf16 (fp32 only with `VLLM_USE_TRTLLM_ATTENTION`) |
//! | router (+ bias) | `torch.nn.Linear(hidden, E)` in bf16, replicated |
//! | experts | `FusedMoE`, TP on the intermediate dim in whole MXFP4 blocks: `ceil((I / 32) / tp) × 32` per rank (`load_weights`: `per_rank_intermediate_size_block = cdiv(...)`) |
//! | expert biases | `w13_bias` (E × 2·I_rank) and `w2_bias` (E × hidden) in bf16 (`quantization/mxfp4.py` `create_weights`) |
//!
//! **MXFP4 padding.** vLLM pads each expert's intermediate (per rank) and hidden widths for its MoE
//! kernel (`quantization/mxfp4.py` `create_weights`, later `fused_moe/oracle/mxfp4.py`
//! `mxfp4_round_up_hidden_size_and_intermediate_size`): Marlin: intermediate → multiple of 128, hidden →
//! multiple of 256; FlashInfer TRT-LLM (SM100): 256 / 256; FlashInfer CUTLASS: 128 / 128; Triton:
//! intermediate → 64, hidden unpadded. The quantization's `pad_intermediate` / `pad_hidden` carry it.
//! The presets use Marlin's, which reproduces vLLM 0.19's logged weights for gpt-oss-20b on H100
//! (tests/data/engine-memory.tsv rows 30–31: 13.64 GiB at tp 1, 7.01 GiB at tp 2; tpsim 13.67 / 7.06, see
//! the unit tests) where Triton's would give 12.82 / 6.52 and CUTLASS's 13.24 / 6.84. SGLang's default
//! (triton_kernels) MXFP4 MoE pads the intermediate to 64 and not the hidden, and casts the expert
//! biases to fp32 after loading (SGLang `layers/quantization/mxfp4.py`), i.e. `pad_intermediate = 64`.
//!
//! **vLLM's triton_kernels layout (tritonw).** Where vLLM runs `Mxfp4Backend.TRITON` on SM 9.0 the
//! simulator replaces the quant file's padding with Triton's (×64 / none) and sets
//! `WeightFormat::relayout` (`sim` `scenario::moe_backend::apply_expert_layout`): fp32 expert
//! biases and a swizzled copy of the block scales beside the loaded ones ([`swizzled_scale_copies`]).
//! gpt-oss-120b on one H100, vLLM 0.14.1: 64.35 GiB vs the logged 64.38 (engine-memory.tsv line 63).
//! vgptoss56: the Hopper swizzle needs torch ≥ 2.8.1; vLLM ≤ 0.11.0 (torch 2.8.0) keeps the strided
//! layout, fp32 biases and no copy ([`ExpertRelayout::Fp32Biases`]).

use super::quant::{ExpertRelayout, MXFP4_BLOCK, WeightDtype, WeightFormat};
// `weights` calls into this module, never the reverse: the pieces come from `piece`.
use super::piece::{Fmt, Piece};

/// `x` rounded up to a multiple of `m` (`None`: unchanged).
fn round_up(x: u64, m: Option<u32>) -> u64 {
    match m {
        Some(m) if m > 1 => x.div_ceil(u64::from(m)) * u64::from(m),
        _ => x,
    }
}

/// (hidden, intermediate) of one routed expert as one rank holds it: the intermediate split by tp
/// (MXFP4: in whole 32-blocks, `ceil(I / 32 / tp) × 32`), then both padded per the format.
/// gpt-oss-20b, Marlin padding: tp 1 → (3072, 2944); tp 2 → (3072, 1536).
pub(crate) fn expert_dims(hidden: u64, inter: u64, t: u64, fmt: &WeightFormat) -> (u64, u64) {
    let local = if fmt.dtype == WeightDtype::Mxfp4 {
        inter.div_ceil(MXFP4_BLOCK).div_ceil(t) * MXFP4_BLOCK
    } else {
        inter / t
    };
    (
        round_up(hidden, fmt.pad_hidden),
        round_up(local, fmt.pad_intermediate),
    )
}

/// One routed expert on one rank: w13 (gate+up) and w2 (down) in the expert format, and their
/// biases (sized by the padded widths, as vLLM allocates them): bf16, or fp32 with the triton_kernels
/// re-layout (`WeightFormat::relayout`), which may also add [`swizzled_scale_copies`].
pub(crate) fn expert_pieces(hidden: u64, inter: u64, t: u64, fmt: &WeightFormat) -> Vec<Piece> {
    let (h, i) = expert_dims(hidden, inter, t, fmt);
    let bias = |n: u64| match fmt.relayout {
        ExpertRelayout::AsLoaded => Piece::vec(n),
        ExpertRelayout::Fp32Biases | ExpertRelayout::SwizzledScales { .. } => Piece::new(n, 1, Fmt::Fp32),
    };
    let mut ps = vec![
        Piece::new(2 * i, h, Fmt::Expert).gemm("moe.expert.gate_up_proj"),
        bias(2 * i),
        Piece::new(h, i, Fmt::Expert).gemm("moe.expert.down_proj"),
        bias(h),
    ];
    ps.extend(swizzled_scale_copies(h, i, fmt));
    ps
}

/// The swizzled copies of one expert's MXFP4 block scales that vLLM's triton_kernels backend holds
/// beside the loaded ones (empty unless [`ExpertRelayout::SwizzledScales`]), 1 B each, not read
/// by decode in tpsim's count (the kernel reads the copy instead of the original, already counted).
/// vLLM `quantization/mxfp4.py` `Mxfp4MoEMethod.process_weights_after_loading`, TRITON branch:
/// `_swizzle_mxfp4(layer.w13_weight, layer.w13_weight_scale, num_warps)` (num_warps 8 without
/// EP), keeps the result in `w13_precision_config` and deletes only `layer.w13_weight` /
/// `layer.w2_weight` ("need to delete the original weights to save memory"), so the loaded
/// `w13_weight_scale` / `w2_weight_scale` stay. `utils/mxfp4_utils.py` `_swizzle_mxfp4` on SM 9.0
/// uses triton_kernels' Hopper layouts; `tensor_details/layout_details/hopper_scale.py`
/// `HopperMXScaleLayout.swizzle_data` pads the scale's rows to `2 × num_warps × 2 × 8` = 256 and its
/// block columns to 2. (`hopper_value.py` pads the values' rows to 16 and packed columns to 32 in
/// place of the original: none for gpt-oss's 2 × 2,880 × 1,440 and 2,880 × 1,440.)
/// gpt-oss-120b at tp 1: w13 (5,760 → 5,888) × 90 and w2 (2,880 → 3,072) × 90 bytes per expert.
pub(crate) fn swizzled_scale_copies(h: u64, i: u64, fmt: &WeightFormat) -> Vec<Piece> {
    let ExpertRelayout::SwizzledScales { align_rows: a } = fmt.relayout else {
        return Vec::new();
    };
    let blocks = |k: u64| k.div_ceil(MXFP4_BLOCK).div_ceil(2) * 2;
    [(2 * i, h), (h, i)]
        .into_iter()
        .map(|(rows, cols)| Piece {
            decode: false,
            ..Piece::new(round_up(rows, Some(a)), blocks(cols), Fmt::Byte)
        })
        .collect()
}

/// The attention extras of one layer on one rank: the o_proj bias (`hidden`, every rank) and the
/// sinks (`heads / tp`, bf16).
pub(crate) fn attention_extras(hidden: u64, heads: u64, t: u64) -> Vec<Piece> {
    vec![Piece::vec(hidden), Piece::vec(heads / t)]
}

#[cfg(test)]
mod tests {
    use super::super::{Architecture, Ffn, Mixer, ModelSpec, Quantization};
    use super::{ExpertRelayout, WeightFormat};

    const GPT_OSS_20B: &str = include_str!("../../../scenarios/models/gpt-oss-20b/config.json");
    const GPT_OSS_120B: &str = include_str!("../../../scenarios/models/gpt-oss-120b/config.json");
    const GIB: f64 = (1u64 << 30) as f64;

    /// The presets' `quant.toml` as JSON: MXFP4 experts with vLLM Marlin's padding, the rest bf16.
    fn quant() -> Quantization {
        serde_json::from_str(
            r#"{"dtype":"bf16","experts":{"dtype":"mxfp4","pad_hidden":256,"pad_intermediate":128}}"#,
        )
        .expect("gpt-oss quant")
    }

    fn spec(text: &str) -> ModelSpec {
        ModelSpec::from_config_json(text, quant()).expect("gpt-oss preset")
    }

    #[test]
    fn lowers_the_20b_config() {
        let m = spec(GPT_OSS_20B);
        assert_eq!(m.arch, Architecture::GptOss);
        assert_eq!(
            (m.num_layers, m.hidden, m.vocab, m.heads, m.kv_heads, m.head_dim),
            (24, 2880, 201_088, 64, 8, 64)
        );
        assert_eq!((m.sliding_layers(), m.kv_layers()), (12, 24));
        assert_eq!(
            (m.mixers[0], m.mixers[1]),
            (Mixer::SlidingAttention, Mixer::Attention)
        );
        assert_eq!(m.sliding_window, Some(128));
        assert_eq!(m.kv_layer_counts(), vec![12, 12]);
        assert!(m.attention_bias && !m.tie_word_embeddings);
        let moe = m.moe.unwrap();
        assert_eq!(
            (
                moe.n_routed_experts,
                moe.num_experts_per_tok,
                moe.moe_intermediate
            ),
            (32, 4, 2880)
        );
        assert!(m.layers.iter().all(|l| matches!(l, Ffn::Moe(_))));
        // Without layer_types: vLLM's rule, even layers slide.
        let mut v: serde_json::Value = serde_json::from_str(GPT_OSS_20B).unwrap();
        v.as_object_mut().unwrap().remove("layer_types");
        assert_eq!(spec(&v.to_string()).mixers, m.mixers);
    }

    #[test]
    fn expert_dims_round_to_blocks_then_pad() {
        let f = quant().expert_format();
        // 2880 / 32 = 90 blocks; tp 1: 2880 → ×128 = 2944; tp 2: 45 blocks = 1440 → 1536; tp 4: 23
        // blocks = 736 → 768; tp 8: 12 blocks = 384 → 384. Hidden 2880 → ×256 = 3072.
        for (t, i) in [(1, 2944), (2, 1536), (4, 768), (8, 384)] {
            assert_eq!(super::expert_dims(2880, 2880, t, &f), (3072, i), "tp {t}");
        }
        // MXFP4 = 4.25 bits: a 3072 × 2944 tensor is 3072 × 2944 / 2 + 3072 × 92 scale bytes.
        assert_eq!(f.tensor_bytes(3072, 2944), 4_521_984 + 282_624);
        assert!((f.bytes_per_param() - 4.25 / 8.0).abs() < 1e-12);
    }

    #[test]
    fn weights_20b_match_vllm_h100_rows() {
        let m = spec(GPT_OSS_20B);
        // tp 1: embedding = LM head = 201,088 × 2880 × 2 = 1,158,266,880; final norm 5,760.
        // Per layer: attention = norms 11,520 + qkv (4096 + 1024) × 2880 × 2 = 29,491,200 + its bias
        // 10,240 + o_proj 2880 × 4096 × 2 = 23,592,960 + its bias 5,760 + sinks 128 = 53,111,808;
        // router 32 × 2880 × 2 + 64 = 184,384; one expert (3072, 2944): w13 5888 × 3072 / 2 + 5888 × 96
        // = 9,609,216, bias 11,776, w2 3072 × 2944 / 2 + 3072 × 92 = 4,804,608, bias 6,144 =
        // 14,431,744, × 32 = 461,815,808. Layer 515,112,000 × 24 = 12,362,688,000.
        // Total 14,679,227,520 B = 13.671 GiB; vLLM 0.19 logged 13.64 (engine-memory.tsv row 30): +0.23 %.
        let b1 = m.weight_bytes_per_rank(1).0;
        assert_eq!(b1, 14_679_227_520);
        assert!(((b1 as f64 / GIB) / 13.64 - 1.0).abs() < 0.01);
        // tp 2: embedding + LM head 2 × 100,544 × 2880 × 2 = 1,158,266,880; attention (2048 + 512) ×
        // 2880 × 2 = 14,745,600 + 5,120 + 2880 × 2048 × 2 = 11,796,480 + 5,760 + sinks 64 + norms
        // 11,520 = 26,564,544; router 184,384; expert (3072, 1536): 5,013,504 + 6,144 + 2,506,752 +
        // 6,144 = 7,532,544, × 32 = 241,041,408. Layer 267,790,336 × 24 = 6,426,968,064.
        // Total 7,585,240,704 B = 7.064 GiB; vLLM logged 7.01 (row 31): +0.78 %.
        let b2 = m.weight_bytes_per_rank(2).0;
        assert_eq!(b2, 7_585_240_704);
        assert!(((b2 as f64 / GIB) / 7.01 - 1.0).abs() < 0.01);
    }

    #[test]
    fn weights_20b_under_other_vllm_backends() {
        // Triton (intermediate → ×64, hidden unpadded): one expert at tp 1 (2880, 2880) = 8,812,800 +
        // 11,520 + 4,406,400 + 5,760 = 13,236,480; layer 53,111,808 + 184,384 + 32 × 13,236,480 =
        // 476,863,552; × 24 + 2,316,539,520 = 13,761,264,768 B = 12.82 GiB (−6 % of the logged 13.64).
        // tp 2 (2880, 1472): 4,504,320 + 5,888 + 2,252,160 + 5,760 = 6,768,128; layer 243,329,024;
        // × 24 + 1,158,272,640 = 6,998,169,216 B = 6.52 GiB (−7 % of 7.01).
        let triton: Quantization =
            serde_json::from_str(r#"{"dtype":"bf16","experts":{"dtype":"mxfp4","pad_intermediate":64}}"#)
                .unwrap();
        let m = ModelSpec::from_config_json(GPT_OSS_20B, triton).unwrap();
        assert_eq!(m.weight_bytes_per_rank(1).0, 13_761_264_768);
        assert_eq!(m.weight_bytes_per_rank(2).0, 6_998_169_216);
        // FlashInfer CUTLASS (128 / 128): 14,217,788,544 B = 13.24 GiB and 7,344,395,904 B = 6.84 GiB.
        let cutlass: Quantization = serde_json::from_str(
            r#"{"dtype":"bf16","experts":{"dtype":"mxfp4","pad_hidden":128,"pad_intermediate":128}}"#,
        )
        .unwrap();
        let m = ModelSpec::from_config_json(GPT_OSS_20B, cutlass).unwrap();
        assert_eq!(m.weight_bytes_per_rank(1).0, 14_217_788_544);
        assert_eq!(m.weight_bytes_per_rank(2).0, 7_344_395_904);
    }

    /// vLLM's triton_kernels layout on SM 9.0 (`ExpertRelayout::SwizzledScales` at 256 rows, set by the
    /// simulator for `moe_backend = "triton_kernel"`), one gpt-oss-120b expert by hand:
    /// tp 1 (2880, 2880): w13 5,760 × 1,440 + 5,760 × 90 = 8,812,800; w2 2,880 × 1,440 + 2,880 × 90 =
    /// 4,406,400; fp32 biases (5,760 + 2,880) × 4 = 34,560; the swizzled scale copies (rows → ×256,
    /// block columns → even) 5,888 × 90 + 3,072 × 90 = 806,400: 14,060,160 B (× 128 × 36 =
    /// 64,789,217,280, the routed experts of tests/data/engine-memory.tsv line 63's scenario).
    /// tp 2 (2880, 1440 → 1472): copies 3,072 × 90 + 3,072 × 46 = 417,792; biases (2,944 + 2,880) × 4
    /// = 23,296. The copies are not read by decode (the kernel reads them instead of the originals).
    #[test]
    fn triton_hopper_layout_adds_scale_copies_and_fp32_biases() {
        let mut q: Quantization =
            serde_json::from_str(r#"{"dtype":"bf16","experts":{"dtype":"mxfp4","pad_intermediate":64}}"#)
                .unwrap();
        q.experts.as_mut().unwrap().relayout = ExpertRelayout::SwizzledScales { align_rows: 256 };
        let m = ModelSpec::from_config_json(GPT_OSS_120B, q).unwrap();
        let f = m.quantization.expert_format();
        let tp1 = super::expert_pieces(2880, 2880, 1, &f);
        assert_eq!(m.sum_bytes(&tp1), 14_060_160);
        let copies = super::swizzled_scale_copies(2880, 2880, &f);
        assert_eq!(m.sum_bytes(&copies), 806_400);
        assert!(copies.iter().all(|p| !p.decode));
        assert_eq!(
            m.sum_bytes(&super::swizzled_scale_copies(2880, 1472, &f)),
            417_792
        );
        let tp2 = super::expert_pieces(2880, 2880, 2, &f);
        assert_eq!(
            m.sum_bytes(&tp2),
            2944 * 1440 + 2944 * 90 + 2880 * 736 + 2880 * 46 + 23_296 + 417_792 // 7,197,568
        );
        assert_eq!(m.weight_breakdown(1).routed_experts, 36 * 128 * 14_060_160);
        // Without the layout: no copies, bf16 biases.
        let plain = WeightFormat {
            relayout: ExpertRelayout::AsLoaded,
            ..f
        };
        assert!(super::swizzled_scale_copies(2880, 2880, &plain).is_empty());
        assert_eq!(
            m.sum_bytes(&super::expert_pieces(2880, 2880, 1, &plain)),
            13_236_480
        );
    }

    #[test]
    fn weights_120b_by_tp() {
        let m = spec(GPT_OSS_120B);
        assert_eq!((m.num_layers, m.moe.unwrap().n_routed_experts), (36, 128));
        // Router 128 × 2880 × 2 + 256 = 737,536 at every tp. Embedding + LM head + final norm:
        // tp 1 2,316,539,520; tp 2 1,158,272,640; tp 4 579,139,200; tp 8 289,572,480.
        // tp 1: layer 53,111,808 + 737,536 + 128 × 14,431,744 = 1,901,112,576; × 36 + 2,316,539,520.
        // tp 2: 26,564,544 + 737,536 + 128 × 7,532,544 = 991,467,712.
        // tp 4: attention 11,520 + (1024 + 256) × 2880 × 2 + 2,560 + 2880 × 1024 × 2 + 5,760 + 32 =
        //       13,290,912; expert (3072, 768): 2,506,752 + 3,072 + 1,253,376 + 6,144 = 3,769,344.
        // tp 8: attention (1 KV head) 11,520 + (512 + 128) × 2880 × 2 + 1,280 + 2880 × 512 × 2 + 5,760
        //       + 16 = 6,654,096; expert (3072, 384): 1,253,376 + 1,536 + 626,688 + 6,144 = 1,887,744.
        let want = [
            (1, 36 * 1_901_112_576 + 2_316_539_520u64), // 70,756,592,256 B = 65.90 GiB
            (2, 36 * 991_467_712 + 1_158_272_640),      // 36,851,110,272 B = 34.32 GiB
            (4, 36 * (13_290_912 + 737_536 + 128 * 3_769_344) + 579_139_200), // 18,453,300,480 = 17.19 GiB
            (8, 36 * (6_654_096 + 737_536 + 128 * 1_887_744) + 289_572_480), // 9,254,395,584 = 8.62 GiB
        ];
        for (tp, bytes) in want {
            m.validate_tp(tp).unwrap();
            assert_eq!(m.weight_bytes_per_rank(tp).0, bytes, "tp {tp}");
        }
    }

    #[test]
    fn kv_cell_and_sliding_reads() {
        let m = spec(GPT_OSS_20B);
        // 8 KV heads × 2 × 64 × 24 layers × 2 B = 49,152 at tp 1; 4 heads at tp 2 → 24,576.
        assert_eq!(m.kv_cell_bytes(1), 49_152);
        assert_eq!(m.kv_cell_bytes(2), 24_576);
        // 120b: 36 layers → 73,728 at tp 1, 1 head per rank at tp 8 → 9,216.
        let big = spec(GPT_OSS_120B);
        assert_eq!((big.kv_cell_bytes(1), big.kv_cell_bytes(8)), (73_728, 9_216));
        let fp = m.forward_pass(1, 1);
        assert_eq!(fp.layers[0].kv_window, Some(128));
        assert_eq!(fp.layers[1].kv_window, None);
        assert_eq!(fp.layers[0].kv_bytes_per_token, 2_048);
    }

    #[test]
    fn padding_applies_to_other_moe_models_too() {
        // Qwen3-235B (128 experts of 1536, hidden 4096, 94 layers) at tp 8: 192 per rank.
        let cfg = include_str!("../../../scenarios/models/qwen3-235b-a22b/config.json");
        let per_expert = |q: &str| {
            let m = ModelSpec::from_config_json(cfg, serde_json::from_str(q).unwrap()).unwrap();
            m.weight_breakdown(8).routed_experts / (94 * 128)
        };
        // MXFP4: w13 384 × 4096 / 2 + 384 × 128 = 835,584; w2 4096 × 192 / 2 + 4096 × 6 = 417,792.
        assert_eq!(
            per_expert(r#"{"dtype":"bf16","experts":{"dtype":"mxfp4"}}"#),
            1_253_376
        );
        // Padded to 256: w13 512 × 4096 / 2 + 512 × 128 = 1,114,112; w2 4096 × 128 + 4096 × 8 = 557,056.
        assert_eq!(
            per_expert(r#"{"dtype":"bf16","experts":{"dtype":"mxfp4","pad_intermediate":128}}"#),
            1_671_168
        );
    }

    #[test]
    fn bad_configs_are_named() {
        let mut v: serde_json::Value = serde_json::from_str(GPT_OSS_20B).unwrap();
        v.as_object_mut().unwrap().remove("num_local_experts");
        let e = ModelSpec::from_config_json(&v.to_string(), quant())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("num_local_experts") && e.contains("GptOssForCausalLM"),
            "{e}"
        );
        let mut v: serde_json::Value = serde_json::from_str(GPT_OSS_20B).unwrap();
        v["layer_types"][3] = serde_json::json!("global_attention");
        let e = ModelSpec::from_config_json(&v.to_string(), quant())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("layer_types") && e.contains("sliding_attention"),
            "{e}"
        );
        // Padding belongs to the experts only.
        let bad: Result<Quantization, _> = serde_json::from_str(r#"{"dtype":"bf16","pad_hidden":256}"#);
        assert!(bad.is_err());
    }
}
