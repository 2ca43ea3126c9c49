//! families34 (issue #17): Hunyuan V3 (`HYV3ForCausalLM`, published as tencent/Hy3, 295B-A21B) —
//! its config read and its parameters counted; families36: lowered (`Architecture::Hy3`).
//!
//! ## The layers (SGLang 0.5.23 `models/hunyuan_v3.py`)
//!
//! - **Attention** (`HYV3Attention`): GQA, a fused `qkv_proj` (hidden → (heads + 2 × KV heads) ×
//!   `head_dim`) and `o_proj`, no biases, full-width RoPE, per-head q/k RMSNorm when `use_qk_norm`
//!   (else `qk_norm`) is set.
//! - **MLP**: the first `first_k_dense_replace` layers a dense SwiGLU of `intermediate_size`
//!   (`HYV3FeedForward`); the others `HYV3MoEFused`: an fp32 router (`gate`, hidden →
//!   `num_experts`, `params_dtype=torch.float32`), an fp32 `expert_bias` a expert (the correction
//!   bias of sigmoid grouped top-k with one group, `router_scaling_factor` on the output), routed
//!   experts of `moe_intermediate_size` and `num_shared_experts` × that width as one shared MLP.
//! - Two RMSNorms a layer, a final norm, the head untied unless `tie_word_embeddings`.
//!
//! ## Lowered (families36)
//!
//! [`super::Architecture::Hy3`]: GQA attention with per-head q/k norms, the dense prefix and the MoE
//! layers of `feed_forward`, the fp32 router (`ModelSpec::router_fp32`) and the fp32 expert bias
//! (`ModelSpec::routing_bias`), both replicated on every rank; the attention, the dense MLP, the
//! shared MLP and the routed experts sharded as GLM-4.5's (`QKVParallelLinear` / `RowParallelLinear`,
//! `MergedColumnParallelLinear`, `FusedMoE`). The checkpoint's MTP layer (`num_nextn_predict_layers`,
//! stored as `model.layers.80.*`) is skipped by both engines' `load_weights` (SGLang: layer index ≥
//! `num_hidden_layers`; vLLM: `get_spec_layer_idx_from_weight_name`), so it is not counted.
//!
//! Not modelled: the MTP draft (`HYV3ForCausalLMNextN`), the HPC-Ops FP8 attention path, and vLLM
//! 0.20.0 – 0.25.1's `expert_bias` at the model dtype (`nn.Parameter(torch.empty(num_experts))`; from
//! 0.26.0 `dtype=torch.float32`, wheels read 2026-12-06): tpsim holds it fp32 under every release,
//! 192 × 2 B a MoE layer (30,336 B a rank for Hy3) too many under those vLLM releases (known miss).

use super::config::{FeedForward, ModelConfig, req};
use super::{Ffn, ModelError, MoeShape, invalid};

/// The architecture name both engines register: SGLang 0.5.11 – 0.5.23 `models/hunyuan_v3.py`
/// `EntryClass` (0.5.10.post1 has none); vLLM 0.20.0 – 0.34.0 `model_executor/models/registry.py`
/// (module `hy_v3`; 0.19.1 has none).
pub const HYV3: &str = "HYV3ForCausalLM";

/// Hunyuan V3's shape as read from config.json.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Residual width (`hidden_size`; 4,096).
    pub hidden: u64,
    /// Decoder layers (`num_hidden_layers`; 80, MTP layers apart).
    pub layers: u64,
    /// Query heads (`num_attention_heads`; 64).
    pub heads: u64,
    /// KV heads (`num_key_value_heads`; 8).
    pub kv_heads: u64,
    /// Head width (`head_dim`; 128).
    pub head_dim: u64,
    /// Whether q and k have a per-head RMSNorm (`use_qk_norm`, else `qk_norm`; true).
    pub qk_norm: bool,
    /// Leading dense layers (`first_k_dense_replace`; 1).
    pub dense_layers: u64,
    /// Their MLP width (`intermediate_size`; 13,312).
    pub dense_width: u64,
    /// Routed experts (`num_experts`; 192).
    pub experts: u64,
    /// Routed experts a token (`num_experts_per_tok`; 8).
    pub topk: u64,
    /// Routed expert width (`moe_intermediate_size`; 1,536).
    pub expert_width: u64,
    /// Shared experts, one MLP of this many expert widths (`num_shared_experts`; 1).
    pub shared: u64,
    /// Vocabulary (`vocab_size`; 120,832).
    pub vocab: u64,
    /// Whether the head shares the embedding (`tie_word_embeddings`; false).
    pub tied: bool,
}

impl Geometry {
    /// Read Hunyuan V3's keys; a missing or impossible one is an error naming it.
    pub fn read(cfg: &ModelConfig) -> Result<Geometry, ModelError> {
        let g = Geometry {
            hidden: req(cfg.hidden_size, "hidden_size", HYV3)?,
            layers: req(cfg.num_hidden_layers, "num_hidden_layers", HYV3)?,
            heads: req(cfg.num_attention_heads, "num_attention_heads", HYV3)?,
            kv_heads: req(cfg.num_key_value_heads, "num_key_value_heads", HYV3)?,
            head_dim: req(cfg.head_dim, "head_dim", HYV3)?,
            qk_norm: cfg.use_qk_norm.or(cfg.qk_norm).unwrap_or(false),
            dense_layers: cfg.first_k_dense_replace.unwrap_or(0),
            dense_width: req(cfg.intermediate_size, "intermediate_size", HYV3)?,
            experts: req(cfg.num_experts, "num_experts", HYV3)?,
            topk: req(cfg.num_experts_per_tok, "num_experts_per_tok", HYV3)?,
            expert_width: req(cfg.moe_intermediate_size, "moe_intermediate_size", HYV3)?,
            shared: cfg.num_shared_experts.unwrap_or(0),
            vocab: req(cfg.vocab_size, "vocab_size", HYV3)?,
            tied: cfg.tie_word_embeddings.unwrap_or(false),
        };
        if g.dense_layers > g.layers || g.shared > 64 {
            return Err(invalid(
                "first_k_dense_replace / num_shared_experts",
                format!("{} / {}", g.dense_layers, g.shared),
                format!("at most num_hidden_layers ({}) / at most 64", g.layers),
            ));
        }
        if g.topk > g.experts || !g.heads.is_multiple_of(g.kv_heads) {
            return Err(invalid(
                "num_experts_per_tok / num_key_value_heads",
                format!("{} / {}", g.topk, g.kv_heads),
                format!(
                    "at most num_experts ({}) / a divisor of num_attention_heads ({})",
                    g.experts, g.heads
                ),
            ));
        }
        Ok(g)
    }

    /// A layer's attention and its two norms: qkv_proj, o_proj, q/k norms. Hy3: 4,096 × (64 + 16)
    /// × 128 = 41,943,040 + 8,192 × 4,096 = 33,554,432 + 256 → 75,497,728, + 8,192 norms.
    pub fn attention_params(&self) -> u64 {
        let q = self.heads * self.head_dim;
        self.hidden * (q + 2 * self.kv_heads * self.head_dim)
            + q * self.hidden
            + if self.qk_norm { 2 * self.head_dim } else { 0 }
            + 2 * self.hidden
    }

    /// One SwiGLU MLP of `width`: 3 × hidden × width.
    fn mlp_params(&self, width: u64) -> u64 {
        3 * self.hidden * width
    }

    /// A MoE layer's MLP: router, expert bias, routed experts, the shared MLP. Hy3: 786,432 + 192
    /// + 192 × 18,874,368 + 18,874,368 = 3,643,539,648.
    pub fn moe_params(&self) -> u64 {
        self.experts * self.hidden
            + self.experts
            + self.experts * self.mlp_params(self.expert_width)
            + self.mlp_params(self.shared * self.expert_width)
    }

    /// Decoder parameters (MTP layers excluded): dense layers, MoE layers, embedding, head and the
    /// final norm. Hy3: 239,083,776 + 79 × 3,719,045,568 + 989,855,744 + 4,096 = 295,033,543,488
    /// (card: 295B).
    pub fn params(&self) -> u64 {
        let dense = self.attention_params() + self.mlp_params(self.dense_width);
        let moe = self.attention_params() + self.moe_params();
        let embed = self.vocab * self.hidden * if self.tied { 1 } else { 2 };
        self.dense_layers * dense + (self.layers - self.dense_layers) * moe + embed + self.hidden
    }

    /// Parameters a token touches: `num_experts_per_tok` routed experts a MoE layer instead of all.
    /// Hy3: 295,033,543,488 − 79 × 184 × 18,874,368 = 20,675,730,240 (card: 21B).
    pub fn active_params(&self) -> u64 {
        self.params()
            - (self.layers - self.dense_layers)
                * (self.experts - self.topk)
                * self.mlp_params(self.expert_width)
    }
}

/// families36 (issue #17): each layer's feed-forward block, the MoE shape, the dense width and the
/// leading dense layers, from [`Geometry::read`]: layers below `first_k_dense_replace` a dense SwiGLU
/// of `intermediate_size` (`HYV3FeedForward`), the others `HYV3MoEFused` (SGLang 0.5.11 – 0.5.23
/// `hunyuan_v3.py` `HYV3DecoderLayer`: `layer_id < first_k_dense_replace`; vLLM 0.20.0 – 0.34.0
/// `hy_v3.py` the same rule). The shared MLP is `num_shared_experts` × `moe_intermediate_size` wide
/// (vLLM reads `expert_hidden_dim` for both widths; the published config sets both to 1,536), which
/// [`MoeShape`] holds as `num_shared_experts` experts of the routed width.
pub(crate) fn feed_forward(cfg: &ModelConfig, num_layers: u64) -> Result<FeedForward, ModelError> {
    let g = Geometry::read(cfg)?;
    if let Some(w) = cfg.expert_hidden_dim.filter(|w| *w != g.expert_width) {
        return Err(invalid(
            "expert_hidden_dim",
            w.to_string(),
            format!(
                "equal to moe_intermediate_size ({}): SGLang sizes the experts by moe_intermediate_size, vLLM by \
                 expert_hidden_dim, and tpsim models one width",
                g.expert_width
            ),
        ));
    }
    let shape = MoeShape::new(g.experts, g.topk, g.expert_width, g.shared);
    let layers = (0..num_layers)
        .map(|i| {
            if i < g.dense_layers {
                Ffn::Dense {
                    intermediate: g.dense_width,
                }
            } else {
                Ffn::Moe(shape)
            }
        })
        .collect();
    Ok((layers, Some(shape), g.dense_width, g.dense_layers as u32))
}
