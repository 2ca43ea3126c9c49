//! Weight and KV-cache number formats, and what they cost in bytes.
//!
//! A model enters tpsim as its HuggingFace `config.json` plus a small quantization description
//! (`quant.toml`, parsed by the `tpsim` crate into [`Quantization`]). The description says how the
//! *linear layers inside the decoder* are stored; embeddings, the LM head, norms and the MoE router
//! always stay at the model dtype (that is how every checkpoint tpsim knows is laid out: DeepSeek-V3's
//! FP8 release keeps `embed_tokens`, `lm_head` and `gate.weight` in bf16; Kimi-K2.5's
//! compressed-tensors config lists `lm_head` in `ignore`). One exception, by architecture: MiniMax-M2's
//! router is fp32 (its checkpoint and SGLang's `ReplicatedLinear(params_dtype=torch.float32)`), see
//! `weights.rs`.
//!
//! Sizes are computed per tensor from its (rows, cols) shape, so scale and group layouts round the way
//! the checkpoint does, and a TP shard of a tensor is costed exactly like the shard it is.

use serde::Deserialize;

use super::ModelError;

/// Bytes of one bf16 / fp16 element (IEEE 754 binary16 and bfloat16 are both 16-bit formats).
const HALF_BYTES: u64 = 2;
/// Bytes of one fp32 element (IEEE 754 binary32).
const FP32_BYTES: u64 = 4;
/// NVFP4 micro-block: 16 fp4 (e2m1) values share one fp8 (e4m3) scale
/// (NVIDIA, "NVFP4" format description in the Blackwell tensor-core / TensorRT Model Optimizer docs).
pub const NVFP4_BLOCK: u64 = 16;
/// Per-tensor fp32 values an NVFP4 checkpoint adds: `weight_scale_2` (global scale) and `input_scale`
/// (TensorRT Model Optimizer NVFP4 checkpoint layout, as read by SGLang's `modelopt_quant.py`).
const NVFP4_PER_TENSOR_BYTES: u64 = 2 * FP32_BYTES;
/// Per-tensor fp8 checkpoints (no block size) carry one fp32 `weight_scale` per tensor
/// (vLLM/SGLang `fp8.py`, per-tensor scheme).
const FP8_PER_TENSOR_SCALE_BYTES: u64 = FP32_BYTES;
/// MXFP4 block: 32 fp4 (e2m1) values share one 8-bit power-of-two (E8M0) scale, i.e. 4 + 8/32 = 4.25
/// bits per weight (OCP Microscaling Formats (MX) v1.0 spec, MXFP4: k = 32, scale E8M0; the gpt-oss
/// checkpoints store `*_blocks` as uint8 pairs and `*_scales` as one uint8 per 32 values, vLLM
/// `quantization/mxfp4.py` `mxfp4_block = 32`).
pub const MXFP4_BLOCK: u64 = 32;

/// Storage type of weight elements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum WeightDtype {
    /// bfloat16: 2 bytes.
    Bf16,
    /// IEEE half: 2 bytes.
    Fp16,
    /// IEEE single: 4 bytes (rare for serving; accepted so fp32 `torch_dtype` configs parse).
    Fp32,
    /// fp8 e4m3: 1 byte, plus fp32 scales (per 128×128 block for DeepSeek-style block quantization).
    Fp8,
    /// 4-bit integer, group-quantized along the input dimension: 0.5 byte + one scale per group.
    Int4,
    /// 8-bit integer (compressed-tensors W8A8 INT8): 1 byte + one fp32 scale per output channel
    /// (`per_channel = true`) or per tensor.
    Int8,
    /// NVIDIA fp4 (e2m1) with one fp8 scale per 16 elements: 0.5 + 1/16 byte.
    Nvfp4,
    /// OCP MXFP4: fp4 (e2m1) with one E8M0 (1-byte) scale per 32 elements: 0.5 + 1/32 byte
    /// (4.25 bits). gpt-oss's routed experts ([`MXFP4_BLOCK`]).
    Mxfp4,
}

impl WeightDtype {
    /// Lower-case name as written in `quant.toml`.
    pub fn name(self) -> &'static str {
        match self {
            WeightDtype::Bf16 => "bf16",
            WeightDtype::Fp16 => "fp16",
            WeightDtype::Fp32 => "fp32",
            WeightDtype::Fp8 => "fp8",
            WeightDtype::Int4 => "int4",
            WeightDtype::Int8 => "int8",
            WeightDtype::Nvfp4 => "nvfp4",
            WeightDtype::Mxfp4 => "mxfp4",
        }
    }

    /// Every weight dtype, in declaration order.
    pub const ALL: [WeightDtype; 8] = [
        WeightDtype::Bf16,
        WeightDtype::Fp16,
        WeightDtype::Fp32,
        WeightDtype::Fp8,
        WeightDtype::Int4,
        WeightDtype::Int8,
        WeightDtype::Nvfp4,
        WeightDtype::Mxfp4,
    ];

    /// The dtype written `name` in `quant.toml` (`bf16`, `fp8`, `int4`, …), if any.
    pub fn from_name(name: &str) -> Option<WeightDtype> {
        WeightDtype::ALL.into_iter().find(|d| d.name() == name)
    }

    /// Bytes per element for the unquantized floating types (bf16/fp16/fp32); `None` otherwise.
    pub fn float_bytes(self) -> Option<u64> {
        match self {
            WeightDtype::Bf16 | WeightDtype::Fp16 => Some(HALF_BYTES),
            WeightDtype::Fp32 => Some(FP32_BYTES),
            _ => None,
        }
    }

    /// Parse a HuggingFace `torch_dtype` / `dtype` string ("bfloat16", "float16", "float32").
    pub(crate) fn from_torch(s: &str) -> Option<WeightDtype> {
        match s.trim_start_matches("torch.") {
            "bfloat16" | "bf16" => Some(WeightDtype::Bf16),
            "float16" | "fp16" | "half" => Some(WeightDtype::Fp16),
            "float32" | "fp32" | "float" => Some(WeightDtype::Fp32),
            _ => None,
        }
    }
}

/// Storage type of quantization scales.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ScaleDtype {
    /// 2 bytes (compressed-tensors INT4 checkpoints such as Kimi-K2.5 store bf16 group scales).
    Bf16,
    /// 2 bytes (GPTQ/AWQ checkpoints store fp16 scales).
    Fp16,
    /// 4 bytes (DeepSeek-V3 FP8 `weight_scale_inv`).
    Fp32,
    /// 1 byte (NVFP4 block scales are fp8 e4m3).
    Fp8,
}

impl ScaleDtype {
    /// Bytes of one scale value.
    pub fn bytes(self) -> u64 {
        match self {
            ScaleDtype::Bf16 | ScaleDtype::Fp16 => HALF_BYTES,
            ScaleDtype::Fp32 => FP32_BYTES,
            ScaleDtype::Fp8 => 1,
        }
    }
}

/// How an engine's MoE kernel re-lays routed MXFP4 experts after loading them, which changes the
/// bytes they hold (vLLM `quantization/mxfp4.py` `Mxfp4MoEMethod.process_weights_after_loading`,
/// TRITON branch; `llm::gpt_oss` has the arithmetic).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum ExpertRelayout {
    /// Stored as loaded: bf16 biases, no scale copy.
    #[default]
    AsLoaded,
    /// The expert biases cast from bf16 to fp32, the block scales kept as loaded (vLLM's
    /// triton_kernels backend on SM 9.0 with torch < 2.8.1, whose `_swizzle_mxfp4` keeps the strided
    /// layout: vLLM ≤ 0.11.0; vgptoss56).
    Fp32Biases,
    /// fp32 biases and, beside the loaded E8M0 block scales (1 B per 32 inputs), a swizzled copy of
    /// them whose rows (per expert: w13's 2 × intermediate, w2's hidden) are padded to a multiple of
    /// `align_rows` and whose block columns to an even count (vLLM's triton_kernels backend on SM 9.0
    /// from 0.11.1: 256).
    SwizzledScales {
        /// Row alignment of the swizzled scale copy (256 on SM 9.0: `2 × num_warps × 2 × 8`).
        align_rows: u32,
    },
}

/// How one class of weight tensors is stored. Validated: construct through [`WeightFormat::plain`] or
/// deserialization.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WeightFormat {
    /// Element type.
    pub dtype: WeightDtype,
    /// Elements per scale group along the input dimension (int4: required; nvfp4: always 16).
    pub group_size: Option<u32>,
    /// Scale element type (int4 default bf16; fp8 blocks fp32; nvfp4 fp8).
    pub scale_dtype: Option<ScaleDtype>,
    /// fp8 block quantization `[rows, cols]` per scale, e.g. `[128, 128]` (DeepSeek-V3
    /// `weight_block_size`); `None` = one fp32 scale per tensor.
    pub block_size: Option<[u32; 2]>,
    /// int4 only: asymmetric quantization with a packed 4-bit zero point per group.
    pub zero_point: bool,
    /// fp8 / int8 only: one scale per output channel (row) instead of per tensor or block
    /// (compressed-tensors `strategy = "channel"`; vLLM's `ChannelQuantScaleParameter`, fp32).
    pub per_channel: bool,
    /// Routed experts only: the engine pads the hidden dimension of every expert tensor to a multiple
    /// of this (vLLM's MXFP4 MoE backends, `quantization/mxfp4.py` `create_weights`: Marlin 256,
    /// FlashInfer 128 or 256, Triton none); `None` = no padding. See `llm::gpt_oss`.
    pub pad_hidden: Option<u32>,
    /// Routed experts only: the engine pads each rank's expert intermediate width to a multiple of
    /// this (vLLM Marlin 128, FlashInfer 128 or 256, Triton 64); `None` = no padding.
    pub pad_intermediate: Option<u32>,
    /// Routed MXFP4 experts only: how the engine's MoE kernel re-lays the experts after loading
    /// (vLLM's triton_kernels backend, `llm::gpt_oss`). Set by the simulator from the engine's MoE
    /// backend and release (not a quant.toml key); [`ExpertRelayout::AsLoaded`] otherwise.
    pub relayout: ExpertRelayout,
}

impl WeightFormat {
    /// An unquantized format (bf16, fp16 or fp32 elements, no scales).
    pub fn plain(dtype: WeightDtype) -> WeightFormat {
        WeightFormat {
            dtype,
            group_size: None,
            scale_dtype: None,
            block_size: None,
            zero_point: false,
            per_channel: false,
            pad_hidden: None,
            pad_intermediate: None,
            relayout: ExpertRelayout::AsLoaded,
        }
    }

    /// Exact bytes of a `rows × cols` weight (rows = output features, cols = input features, the
    /// PyTorch `Linear.weight` layout) in this format, scales included.
    ///
    /// - bf16/fp16: 2 B per element; fp32: 4 B.
    /// - fp8: 1 B per element (OCP 8-bit floating point spec, e4m3) + one fp32 scale per
    ///   `block_size` block, rounded up at the edges (DeepSeek-V3 `weight_scale_inv`,
    ///   `ceil(rows/128) × ceil(cols/128)`), or one fp32 scale per tensor without blocks.
    /// - int4: 0.5 B per element (two values per byte; compressed-tensors `pack-quantized` packs 8 per
    ///   int32) + `rows × ceil(cols / group_size)` scales of `scale_dtype`, + the same count of packed
    ///   4-bit zero points when asymmetric (compressed-tensors `symmetric = false`, GPTQ `qzeros`).
    /// - nvfp4: 0.5 B per element + one fp8 scale per 16 input elements + two fp32 per-tensor scales.
    /// - mxfp4: 0.5 B per element + one 1-byte E8M0 scale per 32 input elements (4.25 bits).
    pub fn tensor_bytes(&self, rows: u64, cols: u64) -> u64 {
        let elems = rows.saturating_mul(cols);
        match self.dtype {
            WeightDtype::Bf16 | WeightDtype::Fp16 => elems.saturating_mul(HALF_BYTES),
            WeightDtype::Fp32 => elems.saturating_mul(FP32_BYTES),
            WeightDtype::Fp8 | WeightDtype::Int8 => {
                let scales = match self.block_size {
                    Some([br, bc]) => rows
                        .div_ceil(u64::from(br.max(1)))
                        .saturating_mul(cols.div_ceil(u64::from(bc.max(1))))
                        .saturating_mul(self.scale_bytes()),
                    None if self.per_channel => rows.saturating_mul(self.scale_bytes()),
                    None => FP8_PER_TENSOR_SCALE_BYTES,
                };
                elems.saturating_add(scales)
            }
            WeightDtype::Int4 => {
                let g = u64::from(self.group_size.unwrap_or(1).max(1));
                let groups = rows.saturating_mul(cols.div_ceil(g));
                let mut b = elems
                    .div_ceil(2)
                    .saturating_add(groups.saturating_mul(self.scale_bytes()));
                if self.zero_point {
                    b = b.saturating_add(groups.div_ceil(2));
                }
                b
            }
            WeightDtype::Nvfp4 => {
                let groups = rows.saturating_mul(cols.div_ceil(NVFP4_BLOCK));
                elems
                    .div_ceil(2)
                    .saturating_add(groups.saturating_mul(self.scale_bytes()))
                    .saturating_add(NVFP4_PER_TENSOR_BYTES)
            }
            WeightDtype::Mxfp4 => elems
                .div_ceil(2)
                .saturating_add(rows.saturating_mul(cols.div_ceil(MXFP4_BLOCK))),
        }
    }

    /// Nominal bytes per parameter for a large tensor (edge rounding and per-tensor scalars ignored):
    /// bf16 2, fp8 1 (+ 4 / (128·128) with 128×128 blocks), int4 g32 bf16 0.5625, nvfp4 0.5625.
    pub fn bytes_per_param(&self) -> f64 {
        match self.dtype {
            WeightDtype::Bf16 | WeightDtype::Fp16 => HALF_BYTES as f64,
            WeightDtype::Fp32 => FP32_BYTES as f64,
            WeightDtype::Fp8 | WeightDtype::Int8 => match self.block_size {
                Some([br, bc]) => {
                    1.0 + self.scale_bytes() as f64 / (f64::from(br.max(1)) * f64::from(bc.max(1)))
                }
                None => 1.0,
            },
            WeightDtype::Int4 => {
                let g = f64::from(self.group_size.unwrap_or(1).max(1));
                let zp = if self.zero_point { 0.5 / g } else { 0.0 };
                0.5 + self.scale_bytes() as f64 / g + zp
            }
            WeightDtype::Nvfp4 => 0.5 + self.scale_bytes() as f64 / NVFP4_BLOCK as f64,
            WeightDtype::Mxfp4 => 0.5 + 1.0 / MXFP4_BLOCK as f64,
        }
    }

    /// Bytes of one scale value (defaults: int4 bf16, fp8 fp32, nvfp4 fp8; 0 for unquantized).
    fn scale_bytes(&self) -> u64 {
        match (self.scale_dtype, self.dtype) {
            (Some(s), _) => s.bytes(),
            (None, WeightDtype::Int4) => ScaleDtype::Bf16.bytes(),
            (None, WeightDtype::Fp8 | WeightDtype::Int8) => ScaleDtype::Fp32.bytes(),
            (None, WeightDtype::Nvfp4) | (None, WeightDtype::Mxfp4) => ScaleDtype::Fp8.bytes(),
            (None, _) => 0,
        }
    }

    /// Input-dimension granularity a TP shard must respect (int4 group, fp8 block column count,
    /// nvfp4 block); `None` for unquantized formats.
    pub(crate) fn input_granule(&self) -> Option<u64> {
        match self.dtype {
            WeightDtype::Int4 => self.group_size.map(u64::from),
            WeightDtype::Fp8 => self.block_size.map(|[_, c]| u64::from(c)),
            WeightDtype::Nvfp4 => Some(NVFP4_BLOCK),
            // MXFP4: vLLM splits the intermediate dimension in whole 32-blocks, ceil(blocks / tp) per
            // rank (`models/gpt_oss.py` `per_rank_intermediate_size_block = cdiv(...)`), so any tp that
            // divides the width works; the per-rank width is rounded in `llm::gpt_oss`.
            _ => None,
        }
    }

    /// Output-dimension granularity a column-parallel shard must respect (fp8 block rows).
    pub(crate) fn output_granule(&self) -> Option<u64> {
        match self.dtype {
            WeightDtype::Fp8 => self.block_size.map(|[r, _]| u64::from(r)),
            _ => None,
        }
    }

    fn from_raw(raw: RawFormat, what: &str) -> Result<WeightFormat, ModelError> {
        let bad = |field: &str, expected: &str| ModelError::InvalidQuantization {
            field: format!("{what}{field}"),
            expected: expected.to_string(),
        };
        if raw.group_size == Some(0) {
            return Err(bad(
                "group_size",
                "a positive number of elements per scale group (e.g. 32 or 128)",
            ));
        }
        if let Some([r, c]) = raw.block_size
            && (r == 0 || c == 0)
        {
            return Err(bad("block_size", "two positive numbers, e.g. [128, 128]"));
        }
        match raw.dtype {
            WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp32 => {
                if raw.group_size.is_some()
                    || raw.scale_dtype.is_some()
                    || raw.block_size.is_some()
                    || raw.zero_point
                {
                    return Err(bad(
                        "dtype",
                        "group_size / scale_dtype / block_size / zero_point only with a quantized dtype \
                         (fp8, int4, nvfp4, mxfp4)",
                    ));
                }
            }
            WeightDtype::Fp8 | WeightDtype::Int8 => {
                if raw.group_size.is_some() || raw.zero_point {
                    return Err(bad(
                        "group_size",
                        "no group_size / zero_point for fp8 / int8 (use block_size = [128, 128] or \
                         per_channel = true)",
                    ));
                }
                if raw.per_channel && raw.block_size.is_some() {
                    return Err(bad(
                        "per_channel",
                        "either block_size or per_channel = true, not both",
                    ));
                }
            }
            WeightDtype::Int4 => {
                if raw.group_size.is_none() {
                    return Err(bad(
                        "group_size",
                        "a group_size for int4 weights (e.g. 32 for Kimi-K2.5, 128 for GPTQ)",
                    ));
                }
                if raw.block_size.is_some() {
                    return Err(bad("block_size", "no block_size for int4 (use group_size)"));
                }
            }
            WeightDtype::Mxfp4 => {
                if raw.group_size.is_some_and(|g| u64::from(g) != MXFP4_BLOCK)
                    || raw.block_size.is_some()
                    || raw.zero_point
                    || raw.scale_dtype.is_some_and(|d| d != ScaleDtype::Fp8)
                {
                    return Err(bad(
                        "group_size",
                        "mxfp4 with no group_size (always 32), block_size, zero_point or scale_dtype \
                         (its E8M0 scales are 1 byte)",
                    ));
                }
            }
            WeightDtype::Nvfp4 => {
                if raw.group_size.is_some_and(|g| u64::from(g) != NVFP4_BLOCK) {
                    return Err(bad(
                        "group_size",
                        "16 (NVFP4 always scales blocks of 16) or nothing",
                    ));
                }
                if raw.block_size.is_some() || raw.zero_point {
                    return Err(bad("block_size", "no block_size / zero_point for nvfp4"));
                }
            }
        }
        if raw.per_channel && !matches!(raw.dtype, WeightDtype::Fp8 | WeightDtype::Int8) {
            return Err(bad(
                "per_channel",
                "per_channel = true only with fp8 or int8 (int4 / nvfp4 / mxfp4 scale groups)",
            ));
        }
        for (key, pad) in [
            ("pad_hidden", raw.pad_hidden),
            ("pad_intermediate", raw.pad_intermediate),
        ] {
            if pad == Some(0) {
                return Err(bad(key, "a positive multiple (e.g. 128 or 256) or nothing"));
            }
            if pad.is_some() && what != "experts." {
                return Err(bad(
                    key,
                    "padding only on the routed experts (`experts = { dtype = \"mxfp4\", pad_hidden = 256 }`)",
                ));
            }
        }
        Ok(WeightFormat {
            dtype: raw.dtype,
            group_size: raw.group_size,
            scale_dtype: raw.scale_dtype,
            block_size: raw.block_size,
            zero_point: raw.zero_point,
            per_channel: raw.per_channel,
            pad_hidden: raw.pad_hidden,
            pad_intermediate: raw.pad_intermediate,
            relayout: ExpertRelayout::AsLoaded,
        })
    }
}

/// KV-cache element type (`--kv-cache-dtype`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KvCacheDtype {
    /// Same as the model dtype (SGLang's default `auto`): bf16 for every preset.
    #[default]
    Auto,
    /// bfloat16, 2 bytes.
    Bf16,
    /// IEEE half, 2 bytes.
    Fp16,
    /// fp8 e4m3, 1 byte.
    Fp8E4m3,
    /// fp8 e5m2, 1 byte.
    Fp8E5m2,
    /// fp4 e2m1 (`--kv-cache-dtype fp4_e2m1`): two values per byte plus one scale byte per 16 values
    /// (SGLang's `float4_e2m1fn_x2` pools, see `ModelSpec::kv_cell_bytes`).
    Fp4E2m1,
}

impl KvCacheDtype {
    /// Bytes per cached element, resolving `auto` to the model dtype.
    pub fn bytes(self, model_dtype: WeightDtype) -> u64 {
        match self {
            KvCacheDtype::Auto => model_dtype.float_bytes().unwrap_or(HALF_BYTES),
            KvCacheDtype::Bf16 | KvCacheDtype::Fp16 => HALF_BYTES,
            // fp4: the packed element type is 1 byte (2 values); the halving and scales are applied
            // by the cell-size formula.
            KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2 | KvCacheDtype::Fp4E2m1 => 1,
        }
    }
}

/// The quantization description of a model (`quant.toml`): how decoder linear layers are stored, an
/// optional override for routed experts, and the KV-cache dtype.
///
/// ```toml
/// dtype = "bf16"                                   # attention, dense MLP, shared experts
/// experts = { dtype = "int4", group_size = 32, scale_dtype = "bf16" }
/// kv_cache_dtype = "auto"
/// ```
/// Issue #17 (attnquant17): `dense_mlp = { … }` and `shared_experts = { … }` store the dense MLPs /
/// the shared experts apart from the attention projections (`dtype`), as a ModelOpt checkpoint whose
/// `ignore` list keeps only the attention unquantized does (nvidia/Kimi-K2.5-NVFP4: attention bf16,
/// layer 0's dense MLP, the shared and the routed experts NVFP4). The LM head has no format key: no
/// engine tpsim models quantizes it under these checkpoints (SGLang 0.5.9 `modelopt_quant.py`
/// `_get_quant_method` quantizes `LinearBase` and `FusedMoE` layers only; `ParallelLMHead` is
/// neither), so it stays at the model dtype with the embeddings.
/// Unknown keys are rejected (`deny_unknown_fields`); impossible combinations (int4 without a group
/// size, a group size on bf16) are rejected with [`ModelError::InvalidQuantization`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(try_from = "RawQuantization")]
pub struct Quantization {
    /// Format of the decoder's linear layers (attention projections, dense MLPs, shared experts, and
    /// routed experts unless `experts` overrides it).
    pub weights: WeightFormat,
    /// Format of the routed experts, if different from `weights`.
    pub experts: Option<WeightFormat>,
    /// Issue #17 (attnquant17): format of the dense MLPs (a dense model's MLP, a MoE model's dense
    /// layers), if different from `weights` (quant.toml `dense_mlp`).
    pub dense_mlp: Option<WeightFormat>,
    /// Issue #17 (attnquant17): format of the shared experts, if different from `weights` (quant.toml
    /// `shared_experts`).
    pub shared_experts: Option<WeightFormat>,
    /// KV-cache element type.
    pub kv_cache_dtype: KvCacheDtype,
    /// Format of every linear layer and expert of the MTP/NextN draft layer, when the checkpoint
    /// stores it differently from the target (`mtp = { dtype = "bf16" }`: lukealonso's Qwen3.5 NVFP4
    /// keeps the MTP layer in bf16); `None` = as the target.
    pub mtp: Option<WeightFormat>,
    /// Issue #17 (onlinequant): the linear layers and experts were quantized by the engine at load
    /// time from the checkpoint's float dtype (`--quantization fp8` on an unquantized checkpoint,
    /// `llm::online_quant`), not stored quantized, and how the engine loads them (`load_order`).
    /// `None` = stored as described. Never set by `quant.toml`.
    pub online: Option<crate::llm::online_quant::OnlineLoad>,
    /// families31 (issue #17): format of MLA's replicated down-projections (`q_a_proj` and
    /// `kv_a_proj_with_mqa`, fused as `fused_qkv_a_proj_with_mqa` by both engines), if different from
    /// `weights` (quant.toml `mla_down`): Mistral Large 3's FP8 checkpoint keeps them bf16 (its
    /// compressed-tensors `ignore` lists `re:.*kv_a_proj_with_mqa$` and `re:.*q_a_proj$`).
    pub mla_down: Option<WeightFormat>,
    /// presets58 (issue #17): formats of single attention projections stored apart from the
    /// attention's default (`weights`), quant.toml `[projections]`: nvidia/DeepSeek-V3.1-NVFP4 keeps
    /// `q_b_proj` and `kv_b_proj` bf16 (with `q_a_proj` / `kv_a_proj_with_mqa`: `mla_down`) while
    /// `o_proj` is NVFP4 (its hf_quant_config.json `exclude_modules`).
    pub projections: ProjectionFormats,
}

/// presets58 (issue #17): one attention projection a quant description can store in its own format
/// (quant.toml `[projections]` keys; the checkpoint's module names, as an `ignore` /
/// `exclude_modules` list names them). MLA's `q_a_proj` and `kv_a_proj_with_mqa`, which both engines
/// fuse into one GEMM, are `mla_down`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AttnProjection {
    /// `q_proj`, `k_proj` and `v_proj`, fused as `qkv_proj` by both engines (one format; vLLM
    /// 0.11.0 `quantization/utils/quant_utils.py` `is_layer_skipped` refuses a fused layer whose
    /// shards are quantized differently), or MLA's `q_proj` (no `q_lora_rank`).
    Qkv,
    /// MLA's `q_b_proj` (the query up-projection, column-parallel).
    QB,
    /// MLA's `kv_b_proj` (the key/value up-projection, column-parallel; read at decode only by
    /// engines that run MLA un-absorbed).
    KvB,
    /// The attention output projection `o_proj` (row-parallel).
    O,
    /// presets62 (issue #17): the DSA lightning indexer's quantizable GEMMs `indexer.wq_b` and
    /// `indexer.wk` (replicated; `llm::dsa`). SGLang 0.5.9 `nsa_indexer.py` builds them as
    /// `ReplicatedLinear` with the quant config, so a ModelOpt `exclude_modules` entry
    /// `…self_attn.indexer*` keeps them at the model dtype (nvidia/DeepSeek-V3.2-NVFP4, GLM-5-NVFP4).
    Indexer,
}

impl AttnProjection {
    /// The projection of the GEMM weight named `gemm` (`Piece::gemm` names), if it is one.
    pub fn of_gemm(gemm: &str) -> Option<AttnProjection> {
        match gemm {
            "qkv_proj" | "q_proj" => Some(AttnProjection::Qkv),
            "q_b_proj" => Some(AttnProjection::QB),
            "kv_b_proj" => Some(AttnProjection::KvB),
            "o_proj" => Some(AttnProjection::O),
            "indexer.wq_b" | "indexer.wk" => Some(AttnProjection::Indexer),
            _ => None,
        }
    }
}

/// presets58 (issue #17): per-projection format overrides of the attention (quant.toml
/// `[projections]`); `None` = the attention's default format (`Quantization::weights`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ProjectionFormats {
    /// `qkv_proj` (`q_proj`/`k_proj`/`v_proj`; MLA's `q_proj`).
    pub qkv_proj: Option<WeightFormat>,
    /// MLA `q_b_proj`.
    pub q_b_proj: Option<WeightFormat>,
    /// MLA `kv_b_proj`.
    pub kv_b_proj: Option<WeightFormat>,
    /// `o_proj`.
    pub o_proj: Option<WeightFormat>,
    /// presets62: the DSA indexer's `wq_b` and `wk` (quant.toml key `indexer`).
    pub indexer: Option<WeightFormat>,
}

impl ProjectionFormats {
    /// The override of `p`, if any.
    pub fn get(&self, p: AttnProjection) -> Option<WeightFormat> {
        match p {
            AttnProjection::Qkv => self.qkv_proj,
            AttnProjection::QB => self.q_b_proj,
            AttnProjection::KvB => self.kv_b_proj,
            AttnProjection::O => self.o_proj,
            AttnProjection::Indexer => self.indexer,
        }
    }

    /// The override slot of `p`, mutably.
    pub fn slot_mut(&mut self, p: AttnProjection) -> &mut Option<WeightFormat> {
        match p {
            AttnProjection::Qkv => &mut self.qkv_proj,
            AttnProjection::QB => &mut self.q_b_proj,
            AttnProjection::KvB => &mut self.kv_b_proj,
            AttnProjection::O => &mut self.o_proj,
            AttnProjection::Indexer => &mut self.indexer,
        }
    }

    /// Every override present, mutably (for rules that rewrite all formats alike).
    pub fn iter_mut(&mut self) -> impl Iterator<Item = &mut WeightFormat> {
        [
            &mut self.qkv_proj,
            &mut self.q_b_proj,
            &mut self.kv_b_proj,
            &mut self.o_proj,
            &mut self.indexer,
        ]
        .into_iter()
        .filter_map(Option::as_mut)
    }

    /// Each override present with its quant.toml key.
    pub fn named(&self) -> Vec<(&'static str, WeightFormat)> {
        [
            ("qkv_proj", self.qkv_proj),
            ("q_b_proj", self.q_b_proj),
            ("kv_b_proj", self.kv_b_proj),
            ("o_proj", self.o_proj),
            ("indexer", self.indexer),
        ]
        .into_iter()
        .filter_map(|(k, f)| Some((k, f?)))
        .collect()
    }
}

impl Default for Quantization {
    /// Everything bf16, KV `auto`.
    fn default() -> Self {
        Quantization::bf16()
    }
}

impl Quantization {
    /// Everything bf16 (the HuggingFace release format of most models), KV `auto`.
    pub fn bf16() -> Quantization {
        Quantization {
            weights: WeightFormat::plain(WeightDtype::Bf16),
            experts: None,
            dense_mlp: None,
            shared_experts: None,
            kv_cache_dtype: KvCacheDtype::Auto,
            mtp: None,
            online: None,
            mla_down: None,
            projections: ProjectionFormats::default(),
        }
    }

    /// Format used for routed experts (the override, else the default).
    pub fn expert_format(&self) -> WeightFormat {
        self.experts.unwrap_or(self.weights)
    }

    /// Format used for dense MLPs (the override, else the default).
    pub fn dense_format(&self) -> WeightFormat {
        self.dense_mlp.unwrap_or(self.weights)
    }

    /// Format used for shared experts (the override, else the default).
    pub fn shared_format(&self) -> WeightFormat {
        self.shared_experts.unwrap_or(self.weights)
    }

    /// families31: format used for MLA's down-projections (the override, else the default).
    pub fn mla_down_format(&self) -> WeightFormat {
        self.mla_down.unwrap_or(self.weights)
    }

    /// presets58: format used for the attention projection `p` (the override, else the default).
    pub fn projection_format(&self, p: AttnProjection) -> WeightFormat {
        self.projections.get(p).unwrap_or(self.weights)
    }

    /// Every linear-layer format the description holds, mutably (the default, then each override
    /// present): for rules that rewrite all of them alike (the serving dtype of float linears).
    pub fn formats_mut(&mut self) -> impl Iterator<Item = &mut WeightFormat> {
        std::iter::once(&mut self.weights)
            .chain(self.experts.as_mut())
            .chain(self.dense_mlp.as_mut())
            .chain(self.shared_experts.as_mut())
            .chain(self.mtp.as_mut())
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFormat {
    dtype: WeightDtype,
    #[serde(default)]
    group_size: Option<u32>,
    #[serde(default)]
    scale_dtype: Option<ScaleDtype>,
    #[serde(default)]
    block_size: Option<[u32; 2]>,
    #[serde(default)]
    zero_point: bool,
    #[serde(default)]
    per_channel: bool,
    #[serde(default)]
    pad_hidden: Option<u32>,
    #[serde(default)]
    pad_intermediate: Option<u32>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuantization {
    #[serde(default = "default_dtype")]
    dtype: WeightDtype,
    #[serde(default)]
    group_size: Option<u32>,
    #[serde(default)]
    scale_dtype: Option<ScaleDtype>,
    #[serde(default)]
    block_size: Option<[u32; 2]>,
    #[serde(default)]
    zero_point: bool,
    #[serde(default)]
    per_channel: bool,
    #[serde(default)]
    experts: Option<RawFormat>,
    #[serde(default)]
    dense_mlp: Option<RawFormat>,
    #[serde(default)]
    shared_experts: Option<RawFormat>,
    #[serde(default)]
    kv_cache_dtype: KvCacheDtype,
    #[serde(default)]
    mtp: Option<RawFormat>,
    #[serde(default)]
    mla_down: Option<RawFormat>,
    #[serde(default)]
    projections: Option<RawProjections>,
}

/// presets58: quant.toml `[projections]`, one optional format per attention projection.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct RawProjections {
    #[serde(default)]
    qkv_proj: Option<RawFormat>,
    #[serde(default)]
    q_b_proj: Option<RawFormat>,
    #[serde(default)]
    kv_b_proj: Option<RawFormat>,
    #[serde(default)]
    o_proj: Option<RawFormat>,
    #[serde(default)]
    indexer: Option<RawFormat>,
}

fn default_dtype() -> WeightDtype {
    WeightDtype::Bf16
}

impl TryFrom<RawQuantization> for Quantization {
    type Error = ModelError;
    fn try_from(raw: RawQuantization) -> Result<Self, ModelError> {
        let weights = WeightFormat::from_raw(
            RawFormat {
                dtype: raw.dtype,
                group_size: raw.group_size,
                scale_dtype: raw.scale_dtype,
                block_size: raw.block_size,
                zero_point: raw.zero_point,
                per_channel: raw.per_channel,
                pad_hidden: None,
                pad_intermediate: None,
            },
            "",
        )?;
        let experts = raw
            .experts
            .map(|e| WeightFormat::from_raw(e, "experts."))
            .transpose()?;
        let mtp = raw.mtp.map(|e| WeightFormat::from_raw(e, "mtp.")).transpose()?;
        let dense_mlp = raw
            .dense_mlp
            .map(|e| WeightFormat::from_raw(e, "dense_mlp."))
            .transpose()?;
        let shared_experts = raw
            .shared_experts
            .map(|e| WeightFormat::from_raw(e, "shared_experts."))
            .transpose()?;
        let mla_down = raw
            .mla_down
            .map(|e| WeightFormat::from_raw(e, "mla_down."))
            .transpose()?;
        let mut projections = ProjectionFormats::default();
        if let Some(p) = raw.projections {
            let one = |f: Option<RawFormat>, key: &str| {
                f.map(|e| WeightFormat::from_raw(e, &format!("projections.{key}.")))
                    .transpose()
            };
            projections.qkv_proj = one(p.qkv_proj, "qkv_proj")?;
            projections.q_b_proj = one(p.q_b_proj, "q_b_proj")?;
            projections.kv_b_proj = one(p.kv_b_proj, "kv_b_proj")?;
            projections.o_proj = one(p.o_proj, "o_proj")?;
            projections.indexer = one(p.indexer, "indexer")?;
        }
        Ok(Quantization {
            weights,
            experts,
            dense_mlp,
            shared_experts,
            kv_cache_dtype: raw.kv_cache_dtype,
            mtp,
            online: None,
            mla_down,
            projections,
        })
    }
}
