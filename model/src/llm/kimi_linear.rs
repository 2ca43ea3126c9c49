//! Kimi-Linear (`KimiLinearForCausalLM`: Kimi-Linear-48B-A3B; helper families19, issue #17): a
//! layerwise hybrid of Kimi Delta Attention (KDA, a gated delta rule with per-channel decay and short
//! convolutions on q, k and v) and MLA full-attention layers without rotary embedding, behind a
//! DeepSeek-style MoE (sigmoid router with a correction bias, shared experts, a dense prefix).
//!
//! Sources, read from the released wheels: vLLM 0.19.0 `model_executor/models/kimi_linear.py`
//! (`KimiMLAAttention`, `KimiMoE`, `KimiDecoderLayer`), `model_executor/layers/kda.py`
//! (`KimiDeltaAttention`), `layers/mamba/mamba_utils.py` (`kda_state_shape`, `kda_state_dtype`),
//! `transformers_utils/configs/kimi_linear.py`; 0.11.1's files build the same tensors. SGLang 0.5.8
//! `models/kimi_linear.py`, `configs/kimi_linear.py` (`mamba2_cache_params`), `configs/mamba_utils.py`
//! (`KimiLinearStateShape`, `KimiLinearCacheParams`).
//!
//! Layer `i` is KDA when `i + 1` is in `linear_attn_config.kda_layers` (1-indexed), MLA otherwise
//! (`KimiLinearConfig.is_kda_layer`); it is MoE when `num_experts` is set, `i >=
//! first_k_dense_replace` and `i % moe_layer_freq == 0`, else a dense SwiGLU MLP of
//! `intermediate_size`.
//!
//! | piece (per KDA layer, per rank; P = num_heads × head_dim, d = head_dim, n = num_heads) | shape | TP rule |
//! |---|---|---|
//! | `input_layernorm`, `post_attention_layernorm` | hidden each | replicated |
//! | `q_proj`, `k_proj`, `v_proj` | P / tp × hidden each | `ColumnParallelLinear`, quantizable |
//! | `f_a_proj`, `g_a_proj` | d × hidden each | `ReplicatedLinear`, quantizable |
//! | `f_b_proj`, `g_b_proj` | P / tp × d each | `ColumnParallelLinear`, quantizable |
//! | `b_proj` | n / tp × hidden | `ColumnParallelLinear`, quantizable |
//! | `q_conv1d`, `k_conv1d`, `v_conv1d` | P / tp × conv each, **fp32** | `ColumnParallelLinear(params_dtype=torch.float32)` |
//! | `dt_bias` (P / tp), `A_log` (n / tp) | fp32 | sharded |
//! | `o_norm` (`FusedRMSNormGated(head_dim)`) | d | replicated |
//! | `o_proj` | hidden × P / tp | `RowParallelLinear`, quantizable |
//!
//! The MLA layers: `q_proj` (`ColumnParallelLinear`, no q compression: vLLM asserts `q_lora_rank is
//! None`), `kv_a_proj_with_mqa` (replicated, kv_lora_rank + qk_rope_head_dim), `kv_a_layernorm`,
//! `kv_b_proj`, `o_proj`: tpsim's MLA pieces without `q_lora_rank`. No rotary embedding
//! (`mla_use_nope`, vLLM asserts it true; SGLang builds the layer with `skip_rope=True`), but the
//! cache still holds kv_lora_rank + qk_rope_head_dim values a token per MLA layer. The MoE:
//! `gate` (`ReplicatedLinear(hidden, num_experts)`, unquantized), its `e_score_correction_bias`
//! (`nn.Parameter(torch.empty(num_experts))`: the model dtype in both engines), routed experts of
//! `moe_intermediate_size` (top `num_experts_per_token`), and one shared `KimiMLP` of
//! `moe_intermediate_size × num_shared_experts`.
//!
//! **Recurrent state** per KDA layer per request per rank: three conv states (q, k, v) of P / tp ×
//! (conv − 1) values and a recurrent state of n / tp × d × d (`kda_state_shape` /
//! `KimiLinearStateShape.create`, identical in the two engines). With num_k_heads = num_v_heads = n
//! and head_k = head_v = d this is exactly a Gated DeltaNet state (conv_dim = 2 · key_dim + value_dim
//! = 3P), so tpsim holds the KDA shape as a [`GatedDeltaNet`]. SGLang: conv bf16 (`CONV_DTYPE`), the
//! recurrent state at `SGLANG_MAMBA_SSM_DTYPE` (float32 by default; `--mamba-ssm-dtype`). vLLM: the
//! three conv states at `--mamba-cache-dtype` (`auto` = model dtype) and the recurrent state always
//! float32 (`kda_state_dtype` returns `(state, state, state, torch.float32)`), no speculative slots
//! (`kda_state_shape` takes `num_spec` but does not use it): [`vllm_state_page`].

use super::config::ModelConfig;
use super::hybrid::{GatedDeltaNet, HybridBlocks, Mixer};
use super::piece::{Fmt, Piece};
use super::{Ffn, ModelError, invalid};

/// Kernels of a KDA layer at decode (vLLM 0.19.0 `kda.py` `KimiDeltaAttention.forward` / `_forward`,
/// decode path): fused add+RMSNorm, the q, k, v, b, f_a, f_b, g_a and g_b GEMMs (8), beta's sigmoid,
/// `fused_kda_gate`, the zeroed output buffer, three `causal_conv1d_update`, `fused_recurrent_kda`,
/// the copy into the output, the gated `o_norm`, the `o_proj` GEMM = 19.
pub const KDA_KERNELS: u32 = 19;

/// The layers of a Kimi-Linear model as [`super::config`] needs them: the KDA shape (as a Gated
/// DeltaNet: module doc) as the state.
pub(crate) type Blocks = HybridBlocks<GatedDeltaNet>;

fn required(v: Option<u64>, field: &str, an: &str) -> Result<u64, ModelError> {
    super::nemotron_h::bounded(v, field, an)
}

/// Each layer's mixer and feed-forward, the MoE shape and the KDA shape.
///
/// Errors (the engines' own checks where they have one): no `linear_attn_config` (vLLM's
/// `get_mamba_state_shape_from_config` indexes it), no `kda_layers` / `full_attn_layers` in it (the
/// configs' assertions), a KDA layer outside 1 … num_hidden_layers or none at all, a missing KDA
/// width; `hidden_act` other than silu (both engines raise "Unsupported activation"); a
/// `q_lora_rank` (vLLM asserts `q_lora_rank is None`) or `mla_use_nope` not true (vLLM asserts it).
///
/// families32 (issue #17): with `kimi_k3` the activation and q-compression checks are Kimi-K3's own
/// (`kimi_k3::read`: SiTU allowed, MLA with `q_lora_rank`).
pub(crate) fn blocks(
    text: &ModelConfig,
    num_layers: u64,
    an: &str,
    kimi_k3: bool,
) -> Result<Blocks, ModelError> {
    if let Some(act) = text.hidden_act.as_deref().filter(|a| *a != "silu" && !kimi_k3) {
        return Err(invalid(
            "hidden_act",
            format!("\"{act}\""),
            format!(
                "\"silu\" (vLLM 0.19.0 / SGLang 0.5.8 kimi_linear.py: \"Unsupported activation: {act}. Only silu \
                 is supported for now.\")"
            ),
        ));
    }
    if !kimi_k3 && text.q_lora_rank.is_some_and(|r| r > 0) {
        return Err(invalid(
            "q_lora_rank",
            format!("{:?}", text.q_lora_rank),
            "null (vLLM 0.19.0 kimi_linear.py KimiMLAAttention: `assert self.q_lora_rank is None`)".into(),
        ));
    }
    if text.mla_use_nope != Some(true) {
        return Err(invalid(
            "mla_use_nope",
            format!("{:?}", text.mla_use_nope),
            "true (vLLM 0.19.0 kimi_linear.py KimiMLAAttention: `assert self.use_nope is True`)".into(),
        ));
    }
    let la = text
        .linear_attn_config
        .as_ref()
        .ok_or_else(|| ModelError::MissingField {
            field: "linear_attn_config".into(),
            architecture: an.into(),
        })?;
    let kda_layers = la.kda_layers.as_ref().ok_or_else(|| ModelError::MissingField {
        field: "linear_attn_config.kda_layers".into(),
        architecture: an.into(),
    })?;
    if la.full_attn_layers.is_none() {
        return Err(ModelError::MissingField {
            field: "linear_attn_config.full_attn_layers".into(),
            architecture: an.into(),
        });
    }
    if let Some(bad) = kda_layers.iter().find(|&&l| l == 0 || l > num_layers) {
        return Err(invalid(
            "linear_attn_config.kda_layers",
            bad.to_string(),
            format!(
                "1-indexed layer numbers from 1 to num_hidden_layers = {num_layers} (layer i is KDA when i + 1 is listed)"
            ),
        ));
    }
    if kda_layers.is_empty() {
        return Err(invalid(
            "linear_attn_config.kda_layers",
            "[]".into(),
            "at least one KDA layer (with none the engines build no KDA state: not a hybrid tpsim lowers)"
                .into(),
        ));
    }
    let mixers = (0..num_layers)
        .map(|i| {
            if kda_layers.contains(&(i + 1)) {
                Mixer::Linear
            } else {
                Mixer::Attention
            }
        })
        .collect();
    let n = required(la.num_heads, "linear_attn_config.num_heads", an)?;
    let d = required(la.head_dim, "linear_attn_config.head_dim", an)?;
    let conv = required(
        la.short_conv_kernel_size,
        "linear_attn_config.short_conv_kernel_size",
        an,
    )?;
    let kda = GatedDeltaNet {
        num_k_heads: n,
        num_v_heads: n,
        head_k_dim: d,
        head_v_dim: d,
        conv_kernel: conv,
        // SGLang's default `SGLANG_MAMBA_SSM_DTYPE` float32; no config key declares another.
        ssm_state_bytes: 4,
        declared_ssm_state_bytes: None,
    };
    let dense = required(text.intermediate_size, "intermediate_size", an)?;
    let first_k = text.first_k_dense_replace.unwrap_or(0);
    let freq = text
        .moe_layer_freq
        .as_ref()
        .and_then(super::config::LayerFreq::every)
        .unwrap_or(1)
        .max(1);
    let moe = match text.num_experts {
        None => None,
        Some(e) => {
            let e = required(Some(e), "num_experts", an)?;
            let k = required(text.num_experts_per_token, "num_experts_per_token", an)?;
            let mi = required(text.moe_intermediate_size, "moe_intermediate_size", an)?;
            let shared = text.num_shared_experts.unwrap_or(0);
            Some(super::config::moe_shape(
                (e, k, mi, mi.saturating_mul(shared)),
                [
                    "num_experts_per_token",
                    "moe_intermediate_size",
                    "num_shared_experts",
                ],
            )?)
        }
    };
    let layers = (0..num_layers)
        .map(|i| match moe {
            Some(shape) if i >= first_k && i.is_multiple_of(freq) => Ffn::Moe(shape),
            _ => Ffn::Dense { intermediate: dense },
        })
        .collect();
    Ok(Blocks {
        mixers,
        layers,
        moe,
        dense_intermediate: dense,
        first_k_dense_replace: if moe.is_some() {
            first_k.min(num_layers) as u32
        } else {
            num_layers as u32
        },
        state: kda,
    })
}

/// One KDA layer's pieces on one rank (module table), with the layer's two norms.
///
/// families32 (issue #17): with `full_rank_gate` (Kimi-K3's `use_full_rank_gate`) the gate is one
/// column-parallel `g_proj` of P / tp × hidden in place of `g_a_proj` / `g_b_proj` (SGLang 0.5.23
/// `kimi_k3.py` `KimiK3DeltaAttention`: `fused_qkvg_proj` over [q, k, v, g]).
pub(crate) fn kda_pieces(g: &GatedDeltaNet, hidden: u64, t: u64, full_rank_gate: bool) -> Vec<Piece> {
    let h = hidden;
    let d = g.head_v_dim;
    let p_local = g.value_dim() / t;
    let n_local = g.num_v_heads / t;
    let gate = if full_rank_gate {
        vec![Piece::new(p_local, h, Fmt::Linear).gemm("kda.g_proj")]
    } else {
        vec![
            Piece::new(d, h, Fmt::Linear).gemm("kda.g_a_proj"),
            Piece::new(p_local, d, Fmt::Linear).gemm("kda.g_b_proj"),
        ]
    };
    let mut ps = vec![
        Piece::vec(h), // input_layernorm
        Piece::vec(h), // post_attention_layernorm
        Piece::new(p_local, h, Fmt::Linear).gemm("kda.q_proj"),
        Piece::new(p_local, h, Fmt::Linear).gemm("kda.k_proj"),
        Piece::new(p_local, h, Fmt::Linear).gemm("kda.v_proj"),
        Piece::new(d, h, Fmt::Linear).gemm("kda.f_a_proj"),
        Piece::new(p_local, d, Fmt::Linear).gemm("kda.f_b_proj"),
        Piece::new(p_local, 1, Fmt::Fp32), // dt_bias
        Piece::new(n_local, h, Fmt::Linear).gemm("kda.b_proj"),
        Piece::new(3 * p_local, g.conv_kernel, Fmt::Fp32), // q/k/v_conv1d
        Piece::new(n_local, 1, Fmt::Fp32),                 // A_log
    ];
    ps.extend(gate);
    ps.push(Piece::vec(d)); // o_norm
    ps.push(Piece::new(h, p_local, Fmt::Linear).gemm("kda.o_proj"));
    ps
}

/// vLLM's page of one KDA layer for one request on one rank, bytes: three conv states of P / tp ×
/// (conv − 1) at `conv_bytes` (`--mamba-cache-dtype`) and the n / tp × d × d recurrent state at 4 B
/// (`kda_state_dtype`: always float32). Kimi-Linear-48B-A3B at tp 2, bf16: 3 × 2,048 × 3 × 2 +
/// 16 × 128 × 128 × 4 = 36,864 + 1,048,576 = 1,085,440.
pub fn vllm_state_page(g: &GatedDeltaNet, tp: u32, conv_bytes: u64) -> u64 {
    let t = u64::from(tp.max(1));
    let conv = 3 * (g.value_dim() / t) * g.conv_kernel.saturating_sub(1) * conv_bytes;
    let ssm = (g.num_v_heads / t) * g.head_k_dim * g.head_v_dim * 4;
    conv + ssm
}
