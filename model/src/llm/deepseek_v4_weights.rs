//! families35 (issue #17): the bytes of DeepSeek-V4's weights one rank holds under SGLang tensor
//! parallelism, in the formats SGLang allocates them from the checkpoint's (SGLang 0.5.16
//! `models/deepseek_v4.py`, `layers/quantization/fp8.py`, `layers/attention/dsv4/{compressor,indexer}.py`,
//! `models/deepseek_v2.py`; the same shapes as [`Geometry::sglang_rank_params`] counts).
//!
//! The checkpoint (`quantization_config`: fp8 e4m3, `weight_block_size` 128 × 128, `scale_fmt`
//! ue8m0; `expert_dtype` fp4) stores the linear layers of attention, the indexer's `wq_b` and the
//! shared expert as block fp8, the routed experts as fp4 (e2m1, two a byte) with one scale per 32
//! inputs, and the rest in bf16 / fp32. SGLang allocates:
//!
//! - block fp8 (`Fp8LinearMethod`): 1 B an element + one fp32 `weight_scale_inv` per 128 × 128
//!   block, for `wqkv_a` (fused `wq_a` + `wkv`, `SGLANG_OPT_FUSE_WQA_WKV` default on), `wq_b`,
//!   `wo_a` (fp8 while `SGLANG_OPT_FP8_WO_A_GEMM` is on, its default; bf16 otherwise), `wo_b`, the
//!   indexer's `wq_b` and the shared expert's gate/up and down;
//! - routed experts, fp4 layout (`Fp8MoEMethod.create_weights` with `is_fp4_expert`): int8
//!   holding two fp4 values and scales of `fp4_block_k = 32` inputs, float32 on CUDA
//!   ([`ExpertFormat::Fp4Fp32Scales`], the default) and float8_e8m0fnu under aiter (ROCm,
//!   [`ExpertFormat::Fp4E8m0Scales`]); with `SGLANG_DSV4_FP4_DEQUANT=1` or a checkpoint with fp8
//!   experts they are block fp8 ([`ExpertFormat::Fp8Block`]);
//! - bf16: the compressors' `wkv_gate` (`quant_config=None`), the indexer's `weights_proj`, the
//!   router weight (model dtype), RMSNorm weights of the layers, `q_norm`, `kv_norm`, the final
//!   norm, the embedding and head rows (vocab padded to 64, split by tp);
//! - fp32: the attention sink (all heads on every rank), the compressors' `ape` and norms, mHC
//!   (`hc_*_fn`, `_base`, `_scale`, `hc_head_*`), the routers' `e_score_correction_bias` (not on
//!   the hash-routed layers).
//!
//! By release: the 0.5.12 wheel hard-codes the float32 fp4 scales; 0.5.13 – 0.5.20 pick float8_e8m0fnu
//! under aiter and float32 otherwise, 0.5.21 – 0.5.23 also e8m0 on XPU (`fp4_scale_dtype`; 0.5.13,
//! 0.5.14, 0.5.16, 0.5.20 – 0.5.23 read);
//! `SGLANG_DSV4_FP4_EXPERTS`, `SGLANG_OPT_FP8_WO_A_GEMM` and `SGLANG_OPT_FUSE_WQA_WKV` default on in
//! 0.5.12, 0.5.14, 0.5.16, 0.5.20 and 0.5.23 (`environ.py`), so these bytes hold for every release that
//! serves DeepSeek-V4 on CUDA. The shared expert stays a separate block-fp8 MLP: 0.5.16
//! `determine_num_fused_shared_experts` fuses it only under `--enforce-shared-experts-fusion`.
//!
//! Not counted: buffers that are not parameters (the two `precompute_freqs_cis` tables,
//! `lru_cache(2)`, 1,048,576 positions × 32 complex64 = 256 MiB each; the rotary caches; the
//! hash layers' `tid2eid` tables), the re-layout SGLang makes of the fp4 scales after loading on
//! SM 10.x with DeepGEMM (`transform_sf_into_required_layout`) and the MTP / draft layers (loaded
//! only with speculative decoding).
//!
//! The Flash checkpoint's payload (families33: 166,878,536,440 B in 48 shards) is reconciled with
//! these formats at tp 1 with 1-byte ue8m0 scales: the 43 decoder layers, embedding, head and mHC
//! head come to 155,997,129,180 B, a further layer of the same kind 3,559,944,536 B, and the
//! remaining 10,881,407,260 B match the three DSpark draft stages (`compress_ratios` entries 43 –
//! 45: 3 × 3,559,944,536 = 10,679,833,608 B) plus 201,573,652 B of their own projections (not
//! read); with 4-byte fp4 scales the payload would be exceeded by 15.1 GB.

use super::deepseek_v4::Geometry;
use super::quant::{MXFP4_BLOCK, ScaleDtype, WeightDtype, WeightFormat};
use super::weights::WeightBreakdown;
use super::{ModelError, ModelSpec};

/// How SGLang holds DeepSeek-V4's routed experts (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExpertFormat {
    /// fp4 with one float32 scale per 32 inputs: SGLang's CUDA default (`fp4_scale_dtype = float32`
    /// when not aiter): 0.5 + 4 / 32 = 0.625 B a parameter.
    Fp4Fp32Scales,
    /// fp4 with one float8_e8m0fnu scale per 32 inputs (aiter, and the checkpoint): 0.53125 B.
    Fp4E8m0Scales,
    /// Block fp8 (`SGLANG_DSV4_FP4_DEQUANT=1`, or a checkpoint whose experts are fp8).
    Fp8Block,
}

/// One rank's weights by part, bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct RankWeightBytes {
    /// Routed experts of every layer (their share of each expert's width).
    pub routed_experts: u64,
    /// Attention, compressors, indexer, norms, mHC, routers and shared experts of every layer.
    pub layers_other: u64,
    /// Embedding and head rows, the final norm and the mHC head.
    pub top: u64,
}

impl RankWeightBytes {
    /// All of it, bytes.
    pub fn total(&self) -> u64 {
        self.routed_experts + self.layers_other + self.top
    }
}

/// DeepSeek-V3-style block fp8 (`weight_block_size` [128, 128], fp32 scales).
fn block_fp8() -> WeightFormat {
    WeightFormat {
        block_size: Some([128, 128]),
        scale_dtype: Some(ScaleDtype::Fp32),
        ..WeightFormat::plain(WeightDtype::Fp8)
    }
}

impl ExpertFormat {
    /// The [`WeightFormat`] whose `tensor_bytes` equals this layout's: fp4 with fp32 scales is
    /// byte-for-byte a 4-bit format of group 32 with fp32 scales (0.5 B an element + 4 B a group).
    fn format(self) -> WeightFormat {
        match self {
            ExpertFormat::Fp4Fp32Scales => WeightFormat {
                group_size: Some(MXFP4_BLOCK as u32),
                scale_dtype: Some(ScaleDtype::Fp32),
                ..WeightFormat::plain(WeightDtype::Int4)
            },
            ExpertFormat::Fp4E8m0Scales => WeightFormat::plain(WeightDtype::Mxfp4),
            ExpertFormat::Fp8Block => block_fp8(),
        }
    }
}

/// Bytes of `n` elements of 2 (bf16) or 4 (fp32) bytes.
const BF16: u64 = 2;
const FP32: u64 = 4;

/// dsv4dec55: one decoder layer's weights on one rank, bytes, split as the decode step reads them
/// (`llm::deepseek_v4_layer`). Sums to what [`sglang_rank_weight_bytes`] counts a layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayerBytes {
    /// Attention (wq_a + wkv fused, wq_b, wo_a, wo_b in block fp8; q / kv norms; the fp32 sink),
    /// the compressor(s) and indexer of its ratio, the two RMSNorms and both mHC mixers (fp32).
    pub attention: u64,
    /// The router (bf16) and, past the hash layers, its fp32 correction bias.
    pub router: u64,
    /// The shared experts' shards (block fp8; whole with `SGLANG_SHARED_EXPERT_TP1`).
    pub shared: u64,
    /// One routed expert's shard (gate, up, down) in the experts' format.
    pub expert: u64,
}

/// dsv4dec55: [`LayerBytes`] of decoder layer `layer` (compress ratio `ratio`) at `tp`, experts in
/// `experts`; `tp` must divide the widths ([`Geometry::sglang_rank_params`] checks it).
pub fn sglang_layer_bytes(
    g: &Geometry,
    tp: u64,
    layer: u64,
    ratio: u64,
    experts: ExpertFormat,
) -> LayerBytes {
    let (h, fp8, bf16) = (g.hidden, block_fp8(), WeightFormat::plain(WeightDtype::Bf16));
    let tp = tp.max(1);
    let q = g.heads * g.head_dim;
    let attention = fp8.tensor_bytes(g.q_lora_rank + g.head_dim, h)
        + fp8.tensor_bytes(q / tp, g.q_lora_rank)
        + fp8.tensor_bytes(g.o_groups * g.o_lora_rank / tp, q / g.o_groups)
        + fp8.tensor_bytes(h, g.o_groups * g.o_lora_rank / tp)
        + BF16 * (g.q_lora_rank + g.head_dim)
        + FP32 * g.heads;
    let compressor = |ratio: u64, width: u64| {
        let c = if ratio == 4 { 2 } else { 1 };
        FP32 * ratio * c * width + bf16.tensor_bytes(2 * c * width, h) + FP32 * width
    };
    let w = g.expert_width / tp;
    let ef = experts.format();
    let m = g.hc_mult;
    let mix = (2 + m) * m;
    let compression = match ratio {
        0 => 0,
        4 => {
            compressor(4, g.head_dim)
                + fp8.tensor_bytes(g.index_heads * g.index_head_dim, g.q_lora_rank)
                + bf16.tensor_bytes(g.index_heads, h)
                + compressor(4, g.index_head_dim)
        }
        r => compressor(r, g.head_dim),
    };
    let bias = if layer < g.hash_layers {
        0
    } else {
        FP32 * g.experts
    };
    LayerBytes {
        attention: attention + compression + BF16 * 2 * h + FP32 * 2 * (mix * m * h + mix + 3),
        router: bf16.tensor_bytes(g.experts, h) + bias,
        // dsv4_64: whole on every rank with `SGLANG_SHARED_EXPERT_TP1` (`Geometry::shared_expert_tp1`).
        shared: {
            let ws = if g.shared_expert_tp1 { g.expert_width } else { w };
            g.shared * (fp8.tensor_bytes(2 * ws, h) + fp8.tensor_bytes(h, ws))
        },
        expert: ef.tensor_bytes(2 * w, h) + ef.tensor_bytes(h, w),
    }
}

/// Bytes one rank holds at `tp` (SGLang, no DP attention or expert parallelism), experts in
/// `experts`; `tp` must divide what [`Geometry::sglang_rank_params`] requires. Flash at tp 8:
/// 23,882,237,020 B with fp4 / fp32 scales, 36,876,256,348 B with block-fp8 experts (hand sums in
/// tests/tests/families35.rs).
pub fn sglang_rank_weight_bytes(
    g: &Geometry,
    tp: u64,
    experts: ExpertFormat,
) -> Result<RankWeightBytes, ModelError> {
    // The divisibility checks and their error text.
    g.sglang_rank_params(tp)?;
    let h = g.hidden;
    let bf16 = WeightFormat::plain(WeightDtype::Bf16);
    let m = g.hc_mult;
    let mut out = RankWeightBytes::default();
    for (i, &ratio) in g.ratios.iter().enumerate() {
        let l = sglang_layer_bytes(g, tp, i as u64, ratio, experts);
        out.layers_other += l.attention + l.router + l.shared;
        out.routed_experts += g.experts * l.expert;
    }
    let vocab = g.vocab.div_ceil(super::weights::VOCAB_PADDING) * super::weights::VOCAB_PADDING;
    out.top = 2 * bf16.tensor_bytes(vocab / tp, h) + BF16 * h + FP32 * (m * m * h + m + 1);
    Ok(out)
}

impl ExpertFormat {
    /// dsv4run55: the format SGLang holds a checkpoint's routed experts in on CUDA: fp4 experts
    /// (`expert_dtype = "fp4"`) with float32 scales (`fp4_scale_dtype`, not aiter), else block fp8.
    /// ROCm's e8m0 scales (aiter) are not chosen here: tpsim serves DeepSeek-V4 on CUDA only.
    pub fn sglang_cuda(g: &Geometry) -> ExpertFormat {
        if g.fp4_experts {
            ExpertFormat::Fp4Fp32Scales
        } else {
            ExpertFormat::Fp8Block
        }
    }
}

impl ExpertFormat {
    /// dsv4run55: the format SGLang `release` ends up holding fp4 experts in on a CUDA GPU of SM major
    /// `sm` with `--moe-runner-backend auto`, no MoE all-to-all and `SGLANG_DSV4_FP4_DEQUANT` unset
    /// (read in the wheels): the model override picks `flashinfer_mxfp4` on SM 12.0 from 0.5.15
    /// (`arg_groups/overrides.py` `_deepseek_v4_sm120_moe`, 0.5.15 – 0.5.18) and on SM 9.0, 10.0 and
    /// 12.0 from 0.5.19 (`arg_groups/model_overrides/deepseek_v4.py`, 0.5.19 – 0.5.23); 0.5.12 – 0.5.14
    /// have neither. Under it SM 9.0 / 12.0 run `Mxfp4FlashinferCutlassMoEMethod`, whose
    /// `create_weights` keeps the checkpoint's e8m0 scales ("instead of staging them as FP32"; its SM
    /// 9.0 interleaved copies replace the originals), and SM 10.0 `Mxfp4FlashinferTrtllmMoEMethod`,
    /// which converts the scales to float8_e8m0fnu after loading (assumed: its shuffled layout takes
    /// the same bytes). Otherwise `Fp8MoEMethod` with float32 scales ([`ExpertFormat::sglang_cuda`]).
    pub fn sglang_cuda_by_release(g: &Geometry, release: &[u64], sm: u32) -> ExpertFormat {
        if !g.fp4_experts {
            return ExpertFormat::Fp8Block;
        }
        let flashinfer = if release >= [0, 5, 19].as_slice() {
            matches!(sm, 9 | 10 | 12)
        } else {
            release >= [0, 5, 15].as_slice() && sm == 12
        };
        if flashinfer {
            ExpertFormat::Fp4E8m0Scales
        } else {
            ExpertFormat::Fp4Fp32Scales
        }
    }
}

impl ModelSpec {
    /// dsv4run55: [`ModelSpec::weight_breakdown`] of a DeepSeek-V4 rank with its experts in `experts`
    /// (`None` for other models or a `tp` the model refuses).
    pub fn deepseek_v4_breakdown_as(&self, tp: u32, experts: ExpertFormat) -> Option<WeightBreakdown> {
        let g = self.deepseek_v4.as_ref()?;
        let mut b = self.deepseek_v4_breakdown(tp)?;
        b.routed_experts = sglang_rank_weight_bytes(g, u64::from(tp), experts)
            .ok()?
            .routed_experts;
        Some(b)
    }

    /// dsv4run55 (issue #17): a DeepSeek-V4 rank's weights at `tp` as a [`WeightBreakdown`]:
    /// [`sglang_rank_weight_bytes`] in [`ExpertFormat::sglang_cuda`], the routed experts as such,
    /// everything else of a layer (attention, compressors, indexer, norms, mHC, router, shared
    /// expert) as `attention`, the embedding and head rows apart and the final norm and mHC head as
    /// `norms`. `None` for other models, or a `tp` the model refuses (`validate_tp` names why).
    pub(crate) fn deepseek_v4_breakdown(&self, tp: u32) -> Option<WeightBreakdown> {
        let g = self.deepseek_v4.as_ref()?;
        let t = u64::from(tp);
        let b = sglang_rank_weight_bytes(g, t, ExpertFormat::sglang_cuda(g)).ok()?;
        let vocab = g.vocab.div_ceil(super::weights::VOCAB_PADDING) * super::weights::VOCAB_PADDING;
        let rows = WeightFormat::plain(WeightDtype::Bf16).tensor_bytes(vocab / t, g.hidden);
        Some(WeightBreakdown {
            embedding: rows,
            lm_head: rows,
            attention: b.layers_other,
            routed_experts: b.routed_experts,
            norms: b.top - 2 * rows,
            ..WeightBreakdown::default()
        })
    }
}

/// dsv4run55: the two RoPE tables SGLang builds for DeepSeek-V4 outside the parameters (module doc,
/// "Not counted": `precompute_freqs_cis` under `lru_cache(2)`, one a RoPE base — `rope_theta` and
/// `compress_rope_theta`), each `positions × rope_dim / 2` complex64 values (8 B). Flash at 1,048,576
/// positions: 2 × 1,048,576 × 32 × 8 = 536,870,912 B (families35's reading of the load log).
pub fn sglang_freqs_cis_bytes(g: &Geometry, positions: u64) -> u64 {
    2 * positions * (g.rope_dim / 2) * 8
}
