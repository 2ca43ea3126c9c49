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
