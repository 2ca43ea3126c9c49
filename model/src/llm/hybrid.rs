//! Hybrid linear-attention models (Qwen3.5 MoE): which layers attend over a KV cache and which carry
//! a fixed-size recurrent state, and what that state costs.
//!
//! Qwen3.5-397B-A17B (config.json, public copies; `Qwen/Qwen3.5-397B-A17B`) has 60 layers; layer `i`
//! is full attention when `(i + 1) % full_attention_interval == 0` (interval 4: 15 layers), Gated
//! DeltaNet linear attention otherwise (45 layers). Verified in SGLang
//! `python/sglang/srt/models/qwen3_next.py` (the Qwen3-Next layers Qwen3.5 reuses):
//!
//! | piece | shape (whole model) | TP rule |
//! |---|---|---|
//! | `in_proj_qkvz` | (2 · key_dim + 2 · value_dim) × H | `ColumnParallelLinear`, quantizable |
//! | `in_proj_ba` | 2 · num_v_heads × H | `ColumnParallelLinear`, quantizable |
//! | `conv1d` | conv_dim × kernel, conv_dim = 2 · key_dim + value_dim | `ColumnParallelLinear` with `quant_config=None` (model dtype) |
//! | `A_log` (fp32), `dt_bias` | num_v_heads | sharded (`sharded_weight_loader(0)`) |
//! | `norm` (gated RMSNorm) | head_v_dim | replicated |
//! | `out_proj` | H × value_dim | `RowParallelLinear`, quantizable |
//!
//! with key_dim = linear_num_key_heads × linear_key_head_dim and value_dim = linear_num_value_heads ×
//! linear_value_head_dim. (Qwen3.5 checkpoints split `in_proj_qkvz`/`in_proj_ba` into `in_proj_qkv`,
//! `in_proj_z`, `in_proj_b`, `in_proj_a`; the parameter count is the same.) The full-attention layers
//! use `QKVParallelLinear(hidden, head_dim, heads × (1 + attn_output_gate), kv_heads)`: with the output
//! gate, q_proj is twice as wide; KV heads are replicated when tp > kv_heads
//! (`num_kv_heads = max(1, kv_heads // tp)`), and q/k carry per-head RMSNorms.
//!
//! Per-request state (SGLang `configs/qwen3_next.py` `mamba2_cache_params` — `hybrid_gdn_params` in
//! older builds — which `configs/qwen3_5.py` `Qwen3_5TextConfig` inherits, and `configs/mamba_utils.py`
//! `Mamba2CacheParams.mamba_cache_per_req`): per linear layer and rank, a conv state of (conv_dim / tp)
//! × (kernel − 1) bf16 values (`CONV_DTYPE = torch.bfloat16`) and a temporal (SSM) state of
//! (num_v_heads / tp) × head_k_dim × head_v_dim values of `SGLANG_MAMBA_SSM_DTYPE`, default float32.
//! The MTP draft is full attention (`configs/qwen3_5.py` `Qwen3_5MTPTextConfig`:
//! `full_attention_interval = 1`). vLLM's
//! `MambaStateDtypeCalculator.gated_delta_net_state_dtype` takes the SSM dtype from the config's
//! `mamba_ssm_dtype` for Qwen3.5 (`vllm/model_executor/models/config.py`). Each decode step's
//! recurrent kernel (`fused_sigmoid_gating_delta_rule_update` / `causal_conv1d_update`) loads the
//! request's state and stores it back in place: one read and one write per layer per request.

use serde::Serialize;

use super::{Ffn, ModelSpec, MoeShape};
// `weights` calls into this module, never the reverse: the pieces come from `piece`.
use super::piece::{Fmt, Piece};

/// Bytes of one conv-state element: SGLang's `CONV_DTYPE = torch.bfloat16` (`configs/mamba_utils.py`).
const CONV_STATE_BYTES: u64 = 2;

/// The token mixer of one decoder layer.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum Mixer {
    /// Softmax attention over the KV cache (GQA or MLA, per [`super::Attention`]).
    Attention,
    /// Gated DeltaNet linear attention: a fixed-size recurrent state per request, no KV cache.
    Linear,
    /// Softmax attention over at most the last [`super::ModelSpec::sliding_window`] tokens of each
    /// sequence (gpt-oss, Gemma-2/3, Mistral `"sliding_attention"` layers, `llm::local_attention`): it
    /// holds KV like full attention, but a decode step reads only the window.
    SlidingAttention,
    /// Chunked local attention (Llama-4 RoPE layers, `attention_chunk_size`): a token attends to the
    /// earlier tokens of its own chunk of [`super::ModelSpec::attention_chunk_size`] positions, so a
    /// decode step reads at most one chunk of KV per sequence (`llm::local_attention`).
    ChunkedAttention,
    /// No token mixer: a Nemotron-H MLP block (`llm::nemotron_h`); no KV, no state.
    Absent,
}

impl Mixer {
    /// Whether the layer attends over a local window (sliding or chunked) rather than the whole
    /// context.
    pub fn is_local(self) -> bool {
        matches!(self, Mixer::SlidingAttention | Mixer::ChunkedAttention)
    }
}

/// Shape of the Gated DeltaNet layers (config.json `linear_*` keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct GatedDeltaNet {
    /// `linear_num_key_heads` (queries share them).
    pub num_k_heads: u64,
    /// `linear_num_value_heads`.
    pub num_v_heads: u64,
    /// `linear_key_head_dim`.
    pub head_k_dim: u64,
    /// `linear_value_head_dim`.
    pub head_v_dim: u64,
    /// `linear_conv_kernel_dim` (the causal conv keeps kernel − 1 past inputs).
    pub conv_kernel: u64,
    /// Bytes of one SSM-state element (config `mamba_ssm_dtype`; SGLang's default float32 = 4).
    pub ssm_state_bytes: u64,
    /// Bytes of one SSM-state element as the config declares it (`mamba_ssm_dtype`), `None` when it
    /// does not: vLLM then keeps the model dtype (`crate::vllm_hybrid`).
    pub declared_ssm_state_bytes: Option<u64>,
}

impl GatedDeltaNet {
    /// num_k_heads × head_k_dim.
    pub fn key_dim(&self) -> u64 {
        self.num_k_heads * self.head_k_dim
    }
    /// num_v_heads × head_v_dim.
    pub fn value_dim(&self) -> u64 {
        self.num_v_heads * self.head_v_dim
    }
    /// Channels of the causal conv: q, k and v (2 · key_dim + value_dim).
    pub fn conv_dim(&self) -> u64 {
        2 * self.key_dim() + self.value_dim()
    }
    /// Conv state of one request in one layer on one rank, bytes: (conv_dim / tp) × (kernel − 1) × 2.
    pub fn conv_state_bytes(&self, tp: u32) -> u64 {
        let t = u64::from(tp.max(1));
        self.conv_dim() / t * self.conv_kernel.saturating_sub(1) * CONV_STATE_BYTES
    }
    /// SSM state of one request in one layer on one rank, bytes:
    /// (num_v_heads / tp) × head_k_dim × head_v_dim × ssm bytes. Qwen3.5-397B at tp 4, fp32:
    /// 16 × 128 × 128 × 4 = 1,048,576.
    pub fn ssm_state_bytes_per_rank(&self, tp: u32) -> u64 {
        let t = u64::from(tp.max(1));
        (self.num_v_heads / t)
            .saturating_mul(self.head_k_dim)
            .saturating_mul(self.head_v_dim)
            .saturating_mul(self.ssm_state_bytes)
    }
    /// Conv + SSM state of one request in one layer on one rank, bytes.
    pub fn state_bytes(&self, tp: u32) -> u64 {
        self.conv_state_bytes(tp)
            .saturating_add(self.ssm_state_bytes_per_rank(tp))
    }

    /// FLOPs of the recurrence per token per rank: 4 multiply-adds per state element (decay,
    /// kᵀS, the rank-1 delta update, qS: the gated delta rule of `fused_sigmoid_gating_delta_rule_update`).
    pub fn recurrence_flops(&self, tp: u32) -> f64 {
        let t = u64::from(tp.max(1));
        8.0 * ((self.num_v_heads / t) * self.head_k_dim * self.head_v_dim) as f64
    }

    /// One linear-attention layer's mixer pieces on one rank (table above), plus the layer's two norms.
    pub(crate) fn pieces(&self, hidden: u64, t: u64) -> Vec<Piece> {
        let h = hidden;
        let v_local = self.num_v_heads / t;
        vec![
            Piece::vec(h), // input_layernorm
            Piece::vec(h), // post_attention_layernorm
            Piece::new((2 * self.key_dim() + 2 * self.value_dim()) / t, h, Fmt::Linear).gemm("in_proj_qkvz"), // in_proj_qkvz
            Piece::new(2 * v_local, h, Fmt::Linear).gemm("in_proj_ba"), // in_proj_ba
            Piece::new(self.conv_dim() / t, self.conv_kernel, Fmt::Model), // conv1d
            Piece::new(v_local, 1, Fmt::Fp32),                          // A_log
            Piece::vec(v_local),                                        // dt_bias
            Piece::vec(self.head_v_dim),                                // norm
            Piece::new(h, self.value_dim() / t, Fmt::Linear).gemm("out_proj"), // out_proj
        ]
    }
}

/// Kernels of a linear-attention half-layer at decode (SGLang `qwen3_next.py`
/// `Qwen3GatedDeltaNet.forward` with CUDA graphs): fused add+RMSNorm, in_proj_qkvz GEMM, in_proj_ba
/// GEMM, the fused qkvzba split, causal_conv1d_update, the fused gating + delta-rule update, the gated
/// RMSNorm, out_proj GEMM = 8.
pub const LINEAR_ATTENTION_KERNELS: u32 = 8;

/// The layers of a hybrid model with dense or MoE feed-forwards (LFM2 / LFM2-MoE's `lfm2::blocks`,
/// Kimi-Linear's `kimi_linear::blocks`) as [`super::config`] needs them, with the shape `S` of its
/// recurrent mixer.
pub(crate) struct HybridBlocks<S> {
    /// Each layer's mixer: [`Mixer::Linear`] for the recurrent one, [`Mixer::Attention`] otherwise.
    pub mixers: Vec<Mixer>,
    /// Each layer's feed-forward.
    pub layers: Vec<Ffn>,
    /// The MoE shape, when the model has experts.
    pub moe: Option<MoeShape>,
    /// The dense layers' MLP width.
    pub dense_intermediate: u64,
    /// Leading dense layers (all of them without experts).
    pub first_k_dense_replace: u32,
    /// The recurrent mixer's shape (LFM2's short conv, Kimi-Linear's KDA as a Gated DeltaNet).
    pub state: S,
}

impl<S> HybridBlocks<S> {
    /// Sets `spec`'s mixers, feed-forwards, MoE shape, dense width and dense prefix from these
    /// blocks; returns the recurrent mixer's shape for the caller to place.
    pub fn apply(self, spec: &mut ModelSpec) -> S {
        spec.moe = self.moe;
        spec.dense_intermediate = self.dense_intermediate;
        spec.first_k_dense_replace = self.first_k_dense_replace;
        spec.mixers = self.mixers;
        spec.layers = self.layers;
        self.state
    }
}

impl ModelSpec {
    /// Layers that hold KV cache (full and sliding-window attention): all layers except a hybrid's
    /// linear ones.
    pub fn kv_layers(&self) -> u32 {
        if self.mixers.is_empty() {
            return self.num_layers;
        }
        self.mixers
            .iter()
            .filter(|m| !matches!(m, Mixer::Linear | Mixer::Absent))
            .count() as u32
    }

    /// KV-holding layers per attention type, as vLLM groups them (`memory::vllm_kv_groups`):
    /// `[local, full]` for a model with both local (sliding-window or chunked) and full layers
    /// (gpt-oss-20b: `[12, 12]`), else `[kv_layers]`.
    pub fn kv_layer_counts(&self) -> Vec<u64> {
        let sliding = u64::from(self.sliding_layers());
        let full = u64::from(self.kv_layers()) - sliding;
        match (sliding, full) {
            (0, _) => vec![full],
            // Every layer local (Mistral with a window): one attention type.
            (_, 0) => vec![sliding],
            _ => vec![sliding, full],
        }
    }

    /// Local attention layers: sliding-window and chunked (gpt-oss, Gemma-2/3, Mistral, Llama-4; 0
    /// for models with only full attention).
    pub fn sliding_layers(&self) -> u32 {
        self.mixers.iter().filter(|m| m.is_local()).count() as u32
    }

    /// The most context tokens per sequence a decode step of a layer with this mixer reads:
    /// `sliding_window` for sliding layers, `attention_chunk_size` for chunked ones, `None` (the whole
    /// context) otherwise.
    pub fn local_window(&self, mixer: Mixer) -> Option<u64> {
        match mixer {
            Mixer::SlidingAttention => self.sliding_window,
            Mixer::ChunkedAttention => self.attention_chunk_size,
            Mixer::Attention | Mixer::Linear | Mixer::Absent => None,
        }
    }

    /// Linear-attention layers (0 for non-hybrid models).
    pub fn linear_layers(&self) -> u32 {
        self.mixers.iter().filter(|m| **m == Mixer::Linear).count() as u32
    }

    /// Recurrent state of one request on one rank over all linear layers, bytes: SGLang's
    /// `mamba_cache_per_req`. Qwen3.5-397B at tp 4: (3072 × 3 × 2 + 16 × 128 × 128 × 4) × 45 =
    /// 48,015,360. 0 for non-hybrid models.
    pub fn linear_state_bytes_per_req(&self, tp: u32) -> u64 {
        // Gated DeltaNet or (nemotronh) Mamba-2 layers.
        self.recurrent_state_bytes(tp)
            .saturating_mul(u64::from(self.linear_layers()))
    }
}
