//! Liquid AI LFM2 (`Lfm2ForCausalLM`: LFM2-350M, -700M, -1.2B, -2.6B) and LFM2-MoE
//! (`Lfm2MoeForCausalLM`: LFM2-8B-A1B); families22, issue #17.
//!
//! Each of `num_hidden_layers` layers is either a gated short convolution or a GQA attention (per
//! `layer_types`: `"conv"` / `"full_attention"`; configs without it give `full_attn_idxs`, which HF
//! `Lfm2Config` turns into `layer_types`), each behind `operator_norm`, then a SwiGLU MLP behind
//! `ffn_norm`. The short conv (`ShortConv` in vLLM, `Lfm2ShortConv` in SGLang): `in_proj` makes B, C
//! and x (3 × dim), `B·x` goes through a depthwise causal conv1d of `conv_L_cache` taps, `C·y` through
//! `out_proj`; no norm inside. Its state per request and layer is the conv window: L − 1 past inputs of
//! `dim / tp` channels, no SSM state.
//!
//! Sources, read from the released wheels: vLLM 0.11.1 `model_executor/models/lfm2.py`
//! (`Lfm2MLP`, `Lfm2Attention`, `Lfm2ShortConvDecoderLayer`, `Lfm2ForCausalLM`:
//! `get_mamba_state_shape_from_config` / `_dtype_from_config`), `model_executor/models/lfm2_moe.py`
//! (`Lfm2MoeSparseMoeBlock`: `ReplicatedLinear` gate, `e_score_correction_bias` float32, `FusedMoE`
//! sigmoid scoring; dense MLP of `intermediate_size` before `num_dense_layers`),
//! `model_executor/layers/mamba/short_conv.py` (`ShortConv`: `conv` `ColumnParallelLinear(L_cache,
//! dim)`, `in_proj` `MergedColumnParallelLinear(dim, [dim] × 3)`, `out_proj` `RowParallelLinear`, all
//! with `bias = conv_bias` and no `quant_config`), `model_executor/layers/mamba/mamba_utils.py`
//! (`short_conv_state_shape` = `(conv_kernel − 1, dim / tp)`, `short_conv_state_dtype` =
//! `--mamba-cache-dtype`, `auto` the model dtype). SGLang 0.5.9 `srt/models/lfm2.py`,
//! `srt/models/lfm2_moe.py` (the same pieces; `in_proj` / `out_proj` take `quant_config`; the gate
//! `quant_config=None`, `expert_bias` float32; a separate `lm_head` loaded from `embed_tokens` when the
//! checkpoint has none), `srt/configs/lfm2.py` / `lfm2_moe.py` (`mamba2_cache_params` =
//! `Mamba2StateShape.create(intermediate_size = hidden_size, n_groups = 1, num_heads = tp, head_dim =
//! hidden_size, state_size = 0, conv_kernel = conv_L_cache)` over the `"conv"` layers), and
//! `srt/configs/mamba_utils.py` (conv `(hidden / tp, L − 1)` at `SGLANG_MAMBA_CONV_DTYPE`, default
//! bfloat16; the temporal state `(1, hidden, 0)` holds nothing).
//!
//! | piece (per layer, per rank) | shape | TP rule |
//! |---|---|---|
//! | `operator_norm`, `ffn_norm` | hidden each | replicated |
//! | conv `in_proj` (+ bias with `conv_bias`) | 3 · dim / tp × hidden | column-parallel |
//! | conv `conv` (+ bias) | dim / tp × L | sharded by channel, model dtype |
//! | conv `out_proj` (+ bias, whole) | hidden × dim / tp | row-parallel |
//! | attention `qkv_proj`, `out_proj` | GQA, head_dim = hidden / heads, no bias | as Llama |
//! | attention `q_layernorm`, `k_layernorm` | head_dim each | replicated |
//! | MLP `w1` (+ `w3`), `w2` | 2 × I / tp × hidden, hidden × I / tp | column / row-parallel |
//! | MoE `gate`, expert bias | E × hidden (model dtype), E (fp32) | replicated |
//!
//! The dense LFM2 MLP width: `block_ff_dim` (HF `Lfm2Config` puts it in `intermediate_size`), and with
//! `block_auto_adjust_ff_dim` (HF default true) `int(2 · ff / 3)`, times `block_ffn_dim_multiplier`
//! (default 1.0) truncated, rounded up to `block_multiple_of` (default 256): LFM2-1.2B 12,288 → 8,192.
//! (SGLang rounds only inside its multiplier branch; with the multiplier set, as HF's default sets
//! it, both engines agree.) LFM2-MoE takes `intermediate_size` as it is.
//!
//! Both engines' LM head is the embedding: vLLM ties it (`lm_head.tie_weights(embed_tokens)`); SGLang
//! allocates its own `ParallelLMHead` and copies the embedding into it, one more vocab shard per rank
//! (`sim::scenario` unties it under SGLang).

use serde::Serialize;

use super::config::ModelConfig;
use super::hybrid::{HybridBlocks, Mixer};
use super::nemotron_h::bounded;
use super::piece::{Fmt, Piece};
use super::{Ffn, ModelError, MoeShape, invalid};

/// Bytes of one conv-state element under SGLang: `SGLANG_MAMBA_CONV_DTYPE`, default bfloat16
/// (0.5.9 `configs/mamba_utils.py` `mamba2_state_dtype`).
const SGLANG_CONV_STATE_BYTES: u64 = 2;

/// Kernels of a short-conv layer at decode (vLLM 0.11.1 `short_conv.py` `ShortConv.forward_cuda`,
/// decode path; SGLang 0.5.9 `Lfm2ShortConv.forward`): the (fused add+)RMSNorm, the `in_proj` GEMM,
/// `B·x`, `causal_conv1d_update`, `C·y`, the `out_proj` GEMM = 6.
pub const SHORT_CONV_KERNELS: u32 = 6;

/// Shape of the short-conv layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct ShortConv {
    /// Channels of the conv (`hidden_size`; vLLM reads `conv_dim`, which every config sets equal).
    pub dim: u64,
    /// `conv_L_cache`: the taps of the causal conv (it keeps L − 1 past inputs).
    pub l_cache: u64,
    /// `conv_bias`: in_proj, conv and out_proj carry biases.
    pub bias: bool,
}

impl ShortConv {
    /// The conv window of one request in one layer on one rank, bytes: (L − 1) × dim / tp ×
    /// `elem_bytes` (vLLM `short_conv_state_shape`; SGLang `Mamba2StateShape.create` with no groups
    /// and state 0). LFM2-1.2B at tp 1, 2-byte elements: 2 × 2,048 × 2 = 8,192.
    pub fn conv_state_bytes(&self, tp: u32, elem_bytes: u64) -> u64 {
        let t = u64::from(tp.max(1));
        self.l_cache.saturating_sub(1) * (self.dim / t) * elem_bytes
    }

    /// SGLang's state of one request in one layer on one rank (`mamba_cache_per_req` over one
    /// layer): the conv window at bfloat16, the empty temporal state.
    pub fn state_bytes(&self, tp: u32) -> u64 {
        self.conv_state_bytes(tp, SGLANG_CONV_STATE_BYTES)
    }

    /// FLOPs per token of one layer's conv on one rank: a multiply-add per tap and channel, and the
    /// two gates' multiplies.
    pub fn recurrence_flops(&self, tp: u32) -> f64 {
        let t = u64::from(tp.max(1));
        (2 * (self.l_cache + 1) * (self.dim / t)) as f64
    }

    /// One short-conv layer's mixer pieces on one rank (module table), with the layer's two norms;
    /// `proj_unquantized`: `in_proj` / `out_proj` stay at the model dtype whatever the quantization
    /// (vLLM before 0.27.0, [`ModelSpec::conv_proj_unquantized`]).
    pub(crate) fn pieces(&self, hidden: u64, t: u64, proj_unquantized: bool) -> Vec<Piece> {
        let local = self.dim / t.max(1);
        let proj = if proj_unquantized { Fmt::Model } else { Fmt::Linear };
        let mut ps = vec![
            Piece::vec(hidden), // operator_norm
            Piece::vec(hidden), // ffn_norm
            Piece::new(3 * local, hidden, proj).gemm("conv.in_proj"),
            Piece::new(local, self.l_cache, Fmt::Model), // conv
            Piece::new(hidden, local, proj).gemm("conv.out_proj"),
        ];
        if self.bias {
            ps.push(Piece::vec(3 * local)); // in_proj bias
            ps.push(Piece::vec(local)); // conv bias
            ps.push(Piece::vec(hidden)); // out_proj bias (row-parallel: whole)
        }
        ps
    }
}

/// The layers of an LFM2 / LFM2-MoE model as [`super::config`] needs them: the short-conv shape as
/// the state.
pub(crate) type Blocks = HybridBlocks<ShortConv>;

/// Each layer's mixer from `layer_types` (or `full_attn_idxs`).
fn mixers(text: &ModelConfig, num_layers: u64, an: &str) -> Result<Vec<Mixer>, ModelError> {
    let n = usize::try_from(num_layers).unwrap_or(usize::MAX);
    if let Some(types) = &text.layer_types {
        if types.len() != n {
            return Err(invalid(
                "layer_types",
                format!("{} entries", types.len()),
                format!(
                    "one entry per layer (SGLang 0.5.9 Lfm2MoeConfig: \"layer_types length ({}) must match \
                     num_hidden_layers ({num_layers})\")",
                    types.len()
                ),
            ));
        }
        return types
            .iter()
            .map(|t| match t.as_str() {
                "full_attention" => Ok(Mixer::Attention),
                // SGLang 0.5.9 `configs/lfm2.py` `linear_layer_ids`: `"conv"` or `"short_conv"`.
                "conv" | "short_conv" => Ok(Mixer::Linear),
                other => Err(invalid(
                    "layer_types",
                    format!("\"{other}\""),
                    "\"full_attention\" or \"conv\" (SGLang 0.5.9 configs/lfm2.py keeps conv state only for \
                     \"conv\" / \"short_conv\" layers)"
                        .into(),
                )),
            })
            .collect();
    }
    // HF `Lfm2Config`: `full_attn_idxs` (default every layer) when `layer_types` is absent.
    let Some(idxs) = &text.full_attn_idxs else {
        return Err(ModelError::MissingField {
            field: "layer_types".into(),
            architecture: an.into(),
        });
    };
    if let Some(bad) = idxs.iter().find(|&&i| i >= num_layers) {
        return Err(invalid(
            "full_attn_idxs",
            bad.to_string(),
            format!("layer indices below num_hidden_layers ({num_layers})"),
        ));
    }
    Ok((0..num_layers)
        .map(|i| {
            if idxs.contains(&i) {
                Mixer::Attention
            } else {
                Mixer::Linear
            }
        })
        .collect())
}

/// The dense LFM2 MLP width (module doc).
fn lfm2_ff_dim(text: &ModelConfig, an: &str) -> Result<u64, ModelError> {
    let ff = bounded(
        text.block_ff_dim.or(text.intermediate_size),
        if text.block_ff_dim.is_some() {
            "block_ff_dim"
        } else {
            "intermediate_size"
        },
        an,
    )?;
    if !text.block_auto_adjust_ff_dim.unwrap_or(true) {
        return Ok(ff);
    }
    let multiple = bounded(
        Some(text.block_multiple_of.unwrap_or(256)),
        "block_multiple_of",
        an,
    )?;
    let mult = text.block_ffn_dim_multiplier.unwrap_or(1.0);
    if !(mult.is_finite() && mult > 0.0 && mult <= 64.0) {
        return Err(invalid(
            "block_ffn_dim_multiplier",
            mult.to_string(),
            "a positive number no larger than 64".into(),
        ));
    }
    // Python's int() truncates.
    let adjusted = ((2 * ff / 3) as f64 * mult) as u64;
    Ok(adjusted.div_ceil(multiple) * multiple)
}

/// Each layer's mixer and feed-forward, the MoE shape and the short-conv shape of an LFM2 (`moe =
/// false`) or LFM2-MoE config.
///
/// Errors: `layer_types` of the wrong length or with another type, neither it nor `full_attn_idxs`;
/// `conv_dim` or `block_dim` other than `hidden_size` (vLLM sizes the conv and MLP by them, SGLang by
/// `hidden_size`: no published config differs); `head_dim` other than hidden / heads (vLLM computes
/// it, SGLang reads it); a missing `conv_L_cache`, MLP or MoE width.
pub(crate) fn blocks(
    text: &ModelConfig,
    moe: bool,
    hidden: u64,
    heads: u64,
    num_layers: u64,
    an: &str,
) -> Result<Blocks, ModelError> {
    for (field, v) in [("conv_dim", text.conv_dim), ("block_dim", text.block_dim)] {
        if let Some(d) = v.filter(|&d| d != hidden) {
            return Err(invalid(
                field,
                d.to_string(),
                format!(
                    "hidden_size ({hidden}): vLLM 0.11.1 lfm2.py sizes the layer by {field}, SGLang 0.5.9 by \
                     hidden_size"
                ),
            ));
        }
    }
    if let Some(d) = text.head_dim.filter(|&d| heads > 0 && d != hidden / heads) {
        return Err(invalid(
            "head_dim",
            d.to_string(),
            format!(
                "hidden_size / num_attention_heads = {} (vLLM 0.11.1 lfm2.py computes it; SGLang 0.5.9 reads \
                 head_dim)",
                hidden / heads.max(1)
            ),
        ));
    }
    let mixers = mixers(text, num_layers, an)?;
    let short_conv = ShortConv {
        dim: hidden,
        l_cache: bounded(text.conv_l_cache, "conv_L_cache", an)?,
        bias: text.conv_bias.unwrap_or(false),
    };
    let n = mixers.len();
    if !moe {
        let width = lfm2_ff_dim(text, an)?;
        return Ok(Blocks {
            mixers,
            layers: vec![Ffn::Dense { intermediate: width }; n],
            moe: None,
            dense_intermediate: width,
            first_k_dense_replace: u32::try_from(n).unwrap_or(u32::MAX),
            state: short_conv,
        });
    }
    let shape = MoeShape {
        n_routed_experts: bounded(text.num_experts, "num_experts", an)?,
        num_experts_per_tok: bounded(text.num_experts_per_tok, "num_experts_per_tok", an)?,
        moe_intermediate: bounded(text.moe_intermediate_size, "moe_intermediate_size", an)?,
        n_shared_experts: 0,
    };
    if shape.num_experts_per_tok > shape.n_routed_experts {
        return Err(invalid(
            "num_experts_per_tok",
            shape.num_experts_per_tok.to_string(),
            format!("at most num_experts ({})", shape.n_routed_experts),
        ));
    }
    // HF `Lfm2MoeConfig` / SGLang 0.5.9 `configs/lfm2_moe.py` default `num_dense_layers = 2`.
    let dense_layers = text.num_dense_layers.unwrap_or(2).min(num_layers);
    let width = if dense_layers > 0 {
        bounded(text.intermediate_size, "intermediate_size", an)?
    } else {
        0
    };
    let layers = (0..n as u64)
        .map(|i| {
            if i < dense_layers {
                Ffn::Dense { intermediate: width }
            } else {
                Ffn::Moe(shape)
            }
        })
        .collect();
    Ok(Blocks {
        mixers,
        layers,
        moe: Some(shape),
        dense_intermediate: width,
        first_k_dense_replace: u32::try_from(dense_layers).unwrap_or(u32::MAX),
        state: short_conv,
    })
}

/// The TP refusals of LFM2 / LFM2-MoE beyond the generic ones: the conv width must divide (vLLM
/// `divide(dim, tp)` asserts; SGLang would floor it), and LFM2-MoE's tp may not exceed the experts
/// (both engines: "Tensor parallel size {tp} is greater than the number of experts {E}.").
pub(crate) fn check_tp(sc: &ShortConv, moe: Option<&MoeShape>, tp: u32) -> Option<String> {
    let t = u64::from(tp.max(1));
    if !sc.dim.is_multiple_of(t) {
        return Some(format!(
            "the short conv's {} channels are not divisible by tp {tp} (vLLM short_conv.py shards them with \
             divide; expected a tp that divides {})",
            sc.dim, sc.dim
        ));
    }
    if let Some(m) = moe
        && t > m.n_routed_experts
    {
        return Some(format!(
            "Tensor parallel size {tp} is greater than the number of experts {}. (vLLM 0.11.1 / SGLang 0.5.9 \
             lfm2_moe.py Lfm2MoeSparseMoeBlock)",
            m.n_routed_experts
        ));
    }
    None
}

/// hybrids51: the first vLLM release whose `ShortConv` passes `quant_config` to `in_proj` and
/// `out_proj` (`model_executor/layers/mamba/short_conv.py`: none in the 0.10.2, 0.11.0, 0.11.1, 0.13.0,
/// 0.14.0, 0.15.0, 0.16.0, 0.19.0, 0.22.0 and 0.26.0 wheels; taken, and passed by `lfm2.py` /
/// `lfm2_moe.py`, in 0.27.0, 0.28.0, 0.30.0, 0.32.0 and 0.34.0).
pub const VLLM_QUANTIZED_CONV_PROJ: [u64; 2] = [0, 27];

impl super::ModelSpec {
    /// hybrids51 (issue #17): an LFM2 / LFM2-MoE model as vLLM release `release` (`[major, minor]`)
    /// builds it: before `VLLM_QUANTIZED_CONV_PROJ` the short conv's `in_proj` / `out_proj` are built
    /// without `quant_config`, so they stay 16-bit under an FP8 / AWQ / GPTQ quantization (SGLang
    /// 0.5.9 `Lfm2ShortConv` passes it: the layers are quantized as lowered). Other models: no change.
    pub fn serve_lfm2_as_vllm(&mut self, release: [u64; 2]) {
        self.conv_proj_unquantized = self.short_conv.is_some() && release < VLLM_QUANTIZED_CONV_PROJ;
    }
}
