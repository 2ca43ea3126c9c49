//! Kimi-K3 (`KimiK3ForConditionalGeneration`, and its text-only entry class `KimiK3LinearForCausalLM`;
//! helper families32, issue #17): Kimi-Linear's layerwise hybrid of KDA and MLA layers
//! (`llm::kimi_linear`) with four changes, read from SGLang 0.5.23 `models/kimi_k3.py` and
//! `configs/kimi_k3.py` / `configs/kimi_linear.py` (the 0.5.17 wheel, the first to ship the file,
//! builds the same modules):
//!
//! | change | config key | pieces per rank (t = tp) | SGLang 0.5.23 `kimi_k3.py` |
//! |---|---|---|---|
//! | full-rank KDA gate | `linear_attn_config.use_full_rank_gate` | `g_proj` P / t × hidden in place of `g_a_proj` / `g_b_proj` | `KimiK3DeltaAttention` (`fused_qkvg_proj`) |
//! | MLA output gate | `mla_use_output_gate` | `g_proj` heads / t × v_head_dim × hidden (column-parallel) | `KimiK3MLAAttention` |
//! | MLA q compression | `q_lora_rank` | DeepSeek-V3's q_a / q_a_layernorm / q_b pieces | `KimiK3MLAAttention(DeepseekV2AttentionMLA)` |
//! | attention residuals | `attn_res_block_size` | per layer `self_attention_res_norm`, `mlp_res_norm` (hidden each), `self_attention_res_proj`, `mlp_res_proj` (1 × hidden each, `ReplicatedLinear(quant_config=None)`); once `output_attn_res_norm` + `output_attn_res_proj` | `KimiK3DecoderLayer`, `KimiK3LinearModel` |
//! | latent MoE | `routed_expert_hidden_size`, `latent_moe_use_norm` | `routed_expert_down_proj` latent × hidden, `routed_expert_norm` (latent), `routed_expert_up_proj` hidden × latent, all replicated at the model dtype; routed experts of hidden = latent | `KimiK3MoE` |
//!
//! The MoE router is DeepSeek's `MoEGate` (0.5.23 `deepseek_v2.py`): the weight at the model dtype
//! (no `router_fp32` key), the `noaux_tc` correction bias float32. Shared experts: one `KimiK3MLP` of
//! `moe_intermediate_size × num_shared_experts`, TP-sharded. The activation is SiTU (`hidden_act =
//! "situ"`, `SituAndMul`) or SiLU; anything else is refused with the engine's text.
//!
//! **State and cache** are Kimi-Linear's: a KDA layer holds three conv states and one n / t × d × d
//! recurrent state per request (`KimiLinearConfig.mamba2_cache_params`, sized over the attention-TP
//! group); an MLA layer caches kv_lora_rank + qk_rope_head_dim values a token (SGLang
//! `configs/model_config.py` treats `KimiK3ForConditionalGeneration` as MLA, as Kimi-Linear).
//!
//! **Known misses** (recorded in the coverage row): the MoonViT3d vision tower and `mm_projector`
//! (about 0.44 B parameters in the published checkpoint) are not counted; the MoE's [latent |
//! shared] all-reduce (SGLang's fused front: 3,584 + 7,168 values a token) is costed as one
//! hidden-wide all-reduce; the attention-residual bank's reads (an activation buffer) and the SiTU
//! kernels' cost difference from SiLU are not modelled; the KDA [q, k, v, g] and MoE-front GEMM
//! fusions (fewer launches) and the latent norm / up-projection launches are not counted. Counted
//! ([`KimiK3::serve_on`]): the MLA gate's kernels and the attention-residual reads' Triton kernels.

use super::config::ModelConfig;
use super::piece::{Fmt, Piece};
use super::{ModelError, invalid};

/// Kimi-K3's facts beyond Kimi-Linear's layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KimiK3 {
    /// KDA layers gate with one full-rank `g_proj` (`linear_attn_config.use_full_rank_gate`).
    pub full_rank_gate: bool,
    /// MLA layers gate their output with a column-parallel `g_proj` (`mla_use_output_gate`).
    pub mla_output_gate: bool,
    /// Attention residuals present (`attn_res_block_size` set).
    pub attn_res: bool,
    /// The routed experts' latent width (`routed_expert_hidden_size`); `None`: the hidden size.
    pub latent: Option<u64>,
    /// An RMSNorm over the latent routed output (`latent_moe_use_norm`).
    pub latent_norm: bool,
    /// Kernels one attention-residual read launches beyond the RMSNorm it replaces, as served
    /// ([`KimiK3::serve_on`]): 0 as lowered.
    pub attn_res_extra: u32,
}

/// Kernels an attention-residual read adds where SGLang takes its Triton pipeline (0.5.23
/// `layers/attn_residual.py` `_aggregate_fused`: `_score_kernel` and `_combine_kernel`, then the
/// standard RMSNorm the layer would run anyway).
pub const ATTN_RES_TRITON_EXTRA: u32 = 2;

/// Kernels the MLA output gate adds (SGLang 0.5.23 `kimi_k3.py` `KimiK3MLAAttention`: the `g_proj`
/// GEMM in `_compute_output_gate` and one `mla_output_gate` kernel for x × sigmoid(gate)).
pub const MLA_GATE_KERNELS: u32 = 2;

/// Reads Kimi-K3's keys from the text config.
///
/// Errors: `hidden_act` other than silu / situ (SGLang 0.5.23 `kimi_k3.py` `KimiK3MLP`: "Unsupported
/// activation: {hidden_act}"); a zero `routed_expert_hidden_size` or `attn_res_block_size`.
pub(crate) fn read(text: &ModelConfig, an: &str) -> Result<KimiK3, ModelError> {
    if let Some(act) = text
        .hidden_act
        .as_deref()
        .filter(|a| !matches!(*a, "silu" | "situ"))
    {
        return Err(invalid(
            "hidden_act",
            format!("\"{act}\""),
            format!(
                "\"silu\" or \"situ\" (SGLang 0.5.23 kimi_k3.py KimiK3MLP: \"Unsupported activation: {act}\")"
            ),
        ));
    }
    let latent = match text.routed_expert_hidden_size {
        Some(0) => {
            return Err(invalid(
                "routed_expert_hidden_size",
                "0".into(),
                format!("a positive latent width for {an}'s routed experts, or absent"),
            ));
        }
        other => other,
    };
    if text.attn_res_block_size == Some(0) {
        return Err(invalid(
            "attn_res_block_size",
            "0".into(),
            "a positive number of layers per attention-residual block, or absent".into(),
        ));
    }
    let full_rank_gate = text
        .linear_attn_config
        .as_ref()
        .and_then(|l| l.use_full_rank_gate)
        .unwrap_or(false);
    Ok(KimiK3 {
        full_rank_gate,
        mla_output_gate: text.mla_use_output_gate.unwrap_or(false),
        attn_res: text.attn_res_block_size.is_some(),
        latent,
        latent_norm: latent.is_some() && text.latent_moe_use_norm.unwrap_or(false),
        attn_res_extra: 0,
    })
}

impl KimiK3 {
    /// The model as SGLang serves it on a GPU of `compute_capability` (e.g. "9.0"): an
    /// attention-residual read is one fused TMA kernel that also applies the output RMSNorm on SM
    /// 10.x / 11.x with hidden 7,168 (0.5.23 `layers/attn_residual.py` `_use_fast`: major >= 10 and
    /// not 12), else [`ATTN_RES_TRITON_EXTRA`] more kernels.
    pub fn serve_on(&mut self, compute_capability: &str, hidden: u64) {
        let major = crate::hw::sm_major(compute_capability);
        let fast = major >= 10 && major != 12 && hidden == 7_168;
        self.attn_res_extra = if self.attn_res && !fast {
            ATTN_RES_TRITON_EXTRA
        } else {
            0
        };
    }

    /// Extra kernels of layer `i`'s attention half: the residual read before it (none in layer 0,
    /// whose read has no block yet: `_aggregate`'s caller "just out_norm(prefix_sum)") and, on an MLA
    /// layer, the output gate's [`MLA_GATE_KERNELS`].
    pub(crate) fn attn_extra_kernels(&self, i: usize, linear: bool) -> u32 {
        let read = if i > 0 { self.attn_res_extra } else { 0 };
        let gate = if !linear && self.mla_output_gate {
            MLA_GATE_KERNELS
        } else {
            0
        };
        read + gate
    }

    /// Extra kernels of a feed-forward half: the residual read before it.
    pub(crate) fn ffn_extra_kernels(&self) -> u32 {
        self.attn_res_extra
    }

    /// A layer's attention-residual pieces (module table): two norms of `hidden` and two 1 × hidden
    /// projections at the model dtype; none without attention residuals.
    pub(crate) fn attn_res_pieces(&self, hidden: u64) -> Vec<Piece> {
        if !self.attn_res {
            return Vec::new();
        }
        vec![
            Piece::vec(hidden), // self_attention_res_norm
            Piece::vec(hidden), // mlp_res_norm
            Piece::new(1, hidden, Fmt::Model).gemm("attn_res.self_attention_res_proj"),
            Piece::new(1, hidden, Fmt::Model).gemm("attn_res.mlp_res_proj"),
        ]
    }

    /// The model's final attention-residual read: `output_attn_res_norm` and `output_attn_res_proj`.
    pub(crate) fn output_pieces(&self, hidden: u64) -> Vec<Piece> {
        if !self.attn_res {
            return Vec::new();
        }
        vec![
            Piece::vec(hidden),
            Piece::new(1, hidden, Fmt::Model).gemm("attn_res.output_attn_res_proj"),
        ]
    }

    /// The MLA layer's output gate on one rank: heads / tp × v_head_dim rows over the hidden size,
    /// quantizable as the attention (`ColumnParallelLinear(quant_config=quant_config)`).
    pub(crate) fn mla_gate_pieces(&self, hidden: u64, heads: u64, v_head_dim: u64, t: u64) -> Vec<Piece> {
        if !self.mla_output_gate {
            return Vec::new();
        }
        vec![Piece::new(heads / t * v_head_dim, hidden, Fmt::Linear).gemm("mla.g_proj")]
    }

    /// The routed experts' hidden width: the latent one where set.
    pub fn expert_hidden(&self, hidden: u64) -> u64 {
        self.latent.unwrap_or(hidden)
    }

    /// The latent projections and norm of a MoE layer, replicated on every rank at the model dtype
    /// (`ReplicatedLinear`, `quant_config=None` unless the checkpoint's config declares
    /// `supports_kimi_k3_quantized_latent_projections`, which compressed-tensors does not).
    pub(crate) fn latent_pieces(&self, hidden: u64) -> Vec<Piece> {
        let Some(l) = self.latent else {
            return Vec::new();
        };
        let mut ps = vec![Piece::new(l, hidden, Fmt::Model).gemm("moe.routed_expert_down_proj")];
        if self.latent_norm {
            ps.push(Piece::vec(l));
        }
        ps.push(Piece::new(hidden, l, Fmt::Model).gemm("moe.routed_expert_up_proj"));
        ps
    }
}
