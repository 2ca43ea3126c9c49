//! MiniCPM (`MiniCPMForCausalLM`: MiniCPM 1B/2B, MiniCPM4 0.5B/8B) and MiniCPM3
//! (`MiniCPM3ForCausalLM`: MiniCPM3-4B; helper families21, issue #17). Sources: SGLang 0.5.9
//! `python/sglang/srt/models/minicpm.py` and `minicpm3.py`, vLLM 0.11.0
//! `vllm/model_executor/models/minicpm.py` and `minicpm3.py` (read from the released wheels), and the
//! remote `configuration_minicpm.py` `MiniCPM3Config` of openbmb/MiniCPM3-4B (defaults
//! `tie_word_embeddings=True`, `v_head_dim = qk_nope_head_dim`).
//!
//! **MiniCPM** is the Llama layer (GQA, `bias=False` on every projection whatever the config says,
//! SwiGLU of `intermediate_size`, two RMSNorms a layer) with muP scalings that change no size:
//! `scale_emb` multiplies the embedding, `scale_depth / √layers` each residual branch and
//! `hidden_size / dim_model_base` divides the last hidden state. Both engines take
//! `head_dim = hidden_size / num_attention_heads` (a config `head_dim` is not read). The head is tied
//! with `tie_word_embeddings` (MiniCPM-2B ties, MiniCPM4-8B does not).
//!
//! **MiniCPM3** replaces the attention with DeepSeek-V2's MLA (`q_a_proj` → `q_a_layernorm` →
//! `q_b_proj`; `kv_a_proj_with_mqa` → `kv_a_layernorm` → `kv_b_proj`; `o_proj`), with a dense SwiGLU
//! in every layer and MiniCPM's scalings. The engines store it differently:
//!
//! | | SGLang (`minicpm3.py`, `MiniCPM3AttentionMLA`) | vLLM (`minicpm3.py`, `MiniCPM3Attention`) |
//! |---|---|---|
//! | KV cache | the latent: one `RadixAttention` head of `kv_lora_rank + qk_rope_head_dim`, replicated on every rank | plain `Attention`: `num_heads / tp` heads of `qk_nope_head_dim + qk_rope_head_dim` for K and for V (V zero-padded to the K width) |
//! | decode | absorbed: `w_kc` / `w_vc` copied out of `kv_b_proj` after loading (`post_load_weights`), batched over heads | `kv_b_proj` applied to the latent every step, then MHA over the materialised K/V |
//! | `v_head_dim` | `hidden_size / num_attention_heads` | the config's (`MiniCPM3Config` default: `qk_nope_head_dim`) |
//!
//! So tpsim's MLA layout (`Attention::Mla`, the latent cell, the `w_kc`/`w_vc` copies) is SGLang's;
//! under vLLM the cell is [`ModelSpec::vllm_minicpm3_kv_cell`] and the weights lose the copies
//! ([`ModelSpec::vllm_minicpm3_absorbed_bytes`]). vLLM does not take its MLA path for the model
//! (`ModelConfig.is_deepseek_mla` does not list `minicpm3`).
//!
//! Refused: a `hidden_act` other than `silu` (SGLang 0.5.9 `MiniCPMMLP` / `MiniCPM3MLP` raise
//! "Unsupported activation: … Only silu is supported for now."; vLLM 0.11.0 also takes `fatrelu`,
//! MiniCPM-S, not modelled); `num_experts` (MiniCPM-MoE-8x2B: vLLM builds `MiniCPMMoE`, SGLang 0.5.9
//! dense MLPs, not lowered); a `head_dim` other than `hidden_size / num_attention_heads` (MiniCPM:
//! the engines ignore it); a MiniCPM3 `v_head_dim` other than `hidden_size / num_attention_heads`
//! (the engines would disagree).

use super::config::ModelConfig;
use super::{Attention, KvCacheDtype, ModelError, ModelSpec};

/// hybrid50: kernels of a MiniCPM3 layer's attention half as SGLang launches it (`minicpm3.py`
/// `MiniCPM3DecoderLayer` / `MiniCPM3AttentionMLA.forward`, the same code in the 0.5.3, 0.5.8 and
/// 0.5.9 wheels; `layers/rotary_embedding.py` `Phi3LongRoPEScaledRotaryEmbedding.forward`; the
/// Triton MLA decode, `triton_backend.py`) at a decode step of more than one token, 42 where DeepSeek-V2's
/// `forward_absorb` template counts 11 (`forward::attention_kernels`):
/// - input_layernorm (a plain RMSNorm: the residual is added apart), q_a_proj, q_a_layernorm,
///   q_b_proj, the w_kc bmm, its copy into `q_input`, kv_a_proj_with_mqa (not fused with q_a_proj),
///   `v_input.contiguous()`, kv_a_layernorm, its copy into `k_input`, the copy `q_pe.reshape` makes
///   of the strided rotary slice (k_pe's reshape is a view), the rotated q_pe and k_pe copied back
///   into `q_input` / `k_input`, the decode attention's two Triton kernels (stage 1, stage 2), the
///   w_vc bmm, the copy `flatten(1, 2)` makes of its transpose, o_proj, and the muP residual
///   (`hidden_states * scale_depth / √layers`, then `residual + …`): 20;
/// - the LongRoPE rotary in PyTorch ops, 22: the long-prompt offset (`positions > k`, `torch.any`,
///   `.float()`, `full_like`, `*`, `.long()`, `torch.add`), `index_select` of the cos/sin cache,
///   two `repeat`s, and for q and for k `x * cos`, the negation and `cat` of `_rotate_neox`, `* sin`,
///   `+`, and the `cat` with the (empty) pass-through part: 7 + 1 + 2 + 2 × 6.
///
/// The step's KV store (`set_kv_buffer`) is left inside the attention's launch as for every SGLang
/// model (`sim::decode::passes::sgl_decode_launch`). MiniCPM3-4B, the only published MiniCPM3, sets
/// `rope_scaling.type = "longrope"`; tpsim counts that rotary whatever the config says (a config
/// without it would take the one-kernel rotary: 21 fewer). With one token (a batch-1 decode step)
/// two of the copies are none: `v_input` (`[1, kv_lora_rank]` with a row stride) and the w_vc
/// output's transpose are contiguous once their one-row dimension is ignored, so 40
/// ([`sglang_minicpm3_attn_kernels`]).
pub(crate) const SGLANG_MINICPM3_ATTN_KERNELS: u32 = 42;

/// [`SGLANG_MINICPM3_ATTN_KERNELS`] for a pass of `tokens` tokens: 40 for one token, else 42.
pub(crate) fn sglang_minicpm3_attn_kernels(tokens: u64) -> u32 {
    SGLANG_MINICPM3_ATTN_KERNELS - 2 * u32::from(tokens == 1)
}

/// hybrid50: kernels of a MiniCPM3 layer's MLP half under SGLang (`MiniCPM3DecoderLayer`,
/// `MiniCPM3MLP`): post_attention_layernorm (plain RMSNorm), gate_up_proj, SiluAndMul, down_proj,
/// the muP scaling and the residual add: 6, where the template's fused add+RMSNorm counts 4.
/// hybrids51: MiniCPM's MLP half is the same (`minicpm.py` `MiniCPMDecoderLayer.forward`, the same
/// code in the 0.5.3 – 0.5.9, 0.5.13 and 0.5.23 wheels).
pub(crate) const SGLANG_MINICPM3_MLP_KERNELS: u32 = 6;

/// hybrids51: kernels a MiniCPM layer's attention half launches under SGLang beyond the template's
/// 5 (`minicpm.py` `MiniCPMAttention.forward`, `MiniCPMDecoderLayer.forward`, 0.5.3 – 0.5.9, 0.5.13,
/// 0.5.23 wheels): `q.float()`, `k.float()` before the rotary and `q.to(orig_dtype)`,
/// `k.to(orig_dtype)` after it (4), and the muP residual `residual + hidden_states × scale_depth /
/// √layers` as a multiply and an add where the template's next fused add+RMSNorm adds nothing (2;
/// both layer norms are plain `RMSNorm` calls, one kernel each as in the template): 6. The rotary is
/// counted as the template's one kernel whatever `rope_scaling` says (MiniCPM4's `longrope` runs
/// `Phi3LongRoPEScaledRotaryEmbedding` in PyTorch ops: not counted here).
pub(crate) const SGLANG_MINICPM_ATTN_EXTRA: u32 = 6;

/// hybrids51: kernels a MiniCPM / MiniCPM3 forward pass launches under SGLang beyond the template
/// once per pass (not per layer): `embed_tokens(input_ids) × scale_emb` after the embedding and
/// `hidden_states / scale_width` before the LM head (`MiniCPMModel.forward` /
/// `MiniCPMForCausalLM.forward`, the same in `minicpm3.py`): `(1, 1)`.
pub(crate) const SGLANG_MINICPM_PASS_EXTRA: (u32, u32) = (1, 1);

fn refuse(field: &str, value: String, expected: String) -> ModelError {
    ModelError::InvalidField {
        field: field.into(),
        value,
        expected,
    }
}

/// What tpsim refuses in a MiniCPM or MiniCPM3 config (module doc).
pub(crate) fn check(text: &ModelConfig, mla: bool, hidden: u64, heads: u64) -> Result<(), ModelError> {
    let file = if mla { "minicpm3.py" } else { "minicpm.py" };
    match text.hidden_act.as_deref() {
        Some("silu") | None => {}
        Some(other) => {
            return Err(refuse(
                "hidden_act",
                other.to_string(),
                format!(
                    "\"silu\": SGLang 0.5.9 {file} raises \"Unsupported activation: {other}. Only silu is supported \
                     for now.\" (vLLM 0.11.0 also takes fatrelu, MiniCPM-S, which tpsim does not model)"
                ),
            ));
        }
    }
    if let Some(n) = text.num_experts.filter(|&n| n > 0) {
        return Err(refuse(
            "num_experts",
            n.to_string(),
            "absent or 0: tpsim lowers dense MiniCPM only (MiniCPM-MoE: vLLM 0.11.0 minicpm.py builds MiniCPMMoE, \
             SGLang 0.5.9 minicpm.py dense MLPs)"
                .into(),
        ));
    }
    let width = hidden / heads.max(1);
    if !mla && let Some(d) = text.head_dim.filter(|&d| d != width) {
        return Err(refuse(
            "head_dim",
            d.to_string(),
            format!(
                "absent or {width} (hidden_size / num_attention_heads): SGLang 0.5.9 and vLLM 0.11.0 minicpm.py \
                 size the heads from hidden_size and ignore head_dim"
            ),
        ));
    }
    if mla && let Some(v) = v_head_dim(text).filter(|&v| v != width) {
        return Err(refuse(
            "v_head_dim",
            v.to_string(),
            format!(
                "{width} (hidden_size / num_attention_heads): SGLang 0.5.9 minicpm3.py takes that width, vLLM 0.11.0 \
                 the config's v_head_dim (MiniCPM3Config default qk_nope_head_dim): the engines would disagree"
            ),
        ));
    }
    Ok(())
}

/// MiniCPM3's value width: the config's `v_head_dim`, else `MiniCPM3Config`'s default
/// `qk_nope_head_dim`.
pub(crate) fn v_head_dim(text: &ModelConfig) -> Option<u64> {
    text.v_head_dim.or(text.qk_nope_head_dim)
}

impl ModelSpec {
    /// hybrids51: the kernels an SGLang forward pass of this model launches beyond the template
    /// around the layers — after the embedding and before the LM head — (`(0, 0)` for other models
    /// and under vLLM, whose compiled graph fuses the muP scalings: [`ModelSpec::sglang_mup`]).
    pub fn pass_extra_kernels(&self) -> (u32, u32) {
        if self.sglang_mup {
            SGLANG_MINICPM_PASS_EXTRA
        } else {
            (0, 0)
        }
    }

    /// families21: the model as vLLM serves it — for MiniCPM3, per-head K/V and no absorbed copies
    /// ([`ModelSpec::mla_as_mha`]); any other model is left as lowered.
    pub fn serve_minicpm3_as_vllm(&mut self) {
        if self.arch == super::Architecture::MiniCpm3 && matches!(self.attention, Attention::Mla { .. }) {
            self.mla_as_mha = true;
        }
    }

    /// vLLM's KV cell per token on one rank for MiniCPM3 (`minicpm3.py` `Attention(num_local_heads,
    /// qk_head_dim, num_kv_heads=num_local_heads)`): `heads / tp × 2 × (qk_nope + qk_rope) × layers ×
    /// KV dtype bytes`. MiniCPM3-4B at tp 1: 40 × 2 × 96 × 62 × 2 = 952,320. `None` for any other
    /// model.
    pub fn vllm_minicpm3_kv_cell(&self, tp: u32) -> Option<u64> {
        let Attention::Mla {
            qk_nope_head_dim,
            qk_rope_head_dim,
            ..
        } = self.attention
        else {
            return None;
        };
        if self.arch != super::Architecture::MiniCpm3 {
            return None;
        }
        let t = u64::from(tp.max(1));
        let dt = self.quantization.kv_cache_dtype.bytes(self.dtype);
        Some(
            (self.heads / t)
                .saturating_mul(2 * (qk_nope_head_dim + qk_rope_head_dim))
                .saturating_mul(u64::from(self.kv_layers()))
                .saturating_mul(dt),
        )
    }

    /// The absorbed-decode copies `w_kc` / `w_vc` on one rank that SGLang makes of MiniCPM3's
    /// `kv_b_proj` and vLLM does not: `layers × heads / tp × (qk_nope + v) × kv_lora_rank × model
    /// dtype bytes` (0 for any other model). MiniCPM3-4B at tp 1: 62 × 40 × 128 × 256 × 2 =
    /// 162,529,280.
    pub fn vllm_minicpm3_absorbed_bytes(&self, tp: u32) -> u64 {
        let Attention::Mla {
            kv_lora_rank,
            qk_nope_head_dim,
            v_head_dim,
            ..
        } = self.attention
        else {
            return 0;
        };
        if self.arch != super::Architecture::MiniCpm3 {
            return 0;
        }
        let t = u64::from(tp.max(1));
        u64::from(self.num_layers)
            .saturating_mul(self.heads / t)
            .saturating_mul(qk_nope_head_dim + v_head_dim)
            .saturating_mul(kv_lora_rank)
            .saturating_mul(KvCacheDtype::Auto.bytes(self.dtype))
    }
}
