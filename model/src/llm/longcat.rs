//! Meituan LongCat-Flash (`LongcatFlashForCausalLM`; helper families25, issue #17). Sources: SGLang
//! 0.5.8 `python/sglang/srt/models/longcat_flash.py` and `configs/longcat_flash.py`, read from the
//! released wheel (the 0.5.2 wheel, the first with the file, builds the same blocks), and
//! `configs/model_config.py` (`num_attention_layers = num_hidden_layers * 2` for the architecture;
//! `LongcatFlashForCausalLM` in the MLA list, so the KV pool is MLA's).
//!
//! | piece | SGLang | per rank |
//! |---|---|---|
//! | two attention blocks a layer | `self_attn = ModuleList([DeepseekV2AttentionMLA(...) for i in range(2)])`, `layer_id = layer_id * 2 + i` (its own KV layer each) | DeepSeek's MLA pieces, twice |
//! | two dense MLPs a layer | `mlps = ModuleList([LongcatFlashMLP(intermediate_size = ffn_hidden_size)] × 2)`: merged gate/up column-parallel, down row-parallel, SiLU only | column/row-parallel |
//! | one MoE a layer (ScMoE) | `LongcatFlashMoE`: router `ReplicatedLinear(hidden, n_routed_experts + zero_expert_num, params_dtype = rounter_params_dtype)` (fp32 by default) with an `e_score_correction_bias` of the same length and dtype; `FusedMoE(n_routed_experts, moe_topk, moe_intermediate_size = expert_ffn_hidden_size)`; the zero (identity) experts through `zero_experts_compute_triton`, no weights | router replicated; 1/tp of every real expert |
//! | norms | `input_layernorm` × 2, `post_attention_layernorm` × 2 | replicated |
//! | LM head | `ParallelLMHead` (untied) | generic |
//!
//! vLLM 0.11.0 `model_executor/models/longcat_flash.py` builds the same blocks (`FlashDecoderLayer`: two
//! `DeepseekV2MLAAttention`, two `FlashMLP`, `LongcatMoe` with `FusedMoE(zero_expert_num=...)`; the
//! router fp32 by `FlashConfig`'s default `router_dtype = "float32"`) and an MLA KV cache
//! (`config/model.py` `is_deepseek_mla` lists `longcat_flash`), so one lowering serves both engines.
//!
//! tpsim lowers each LongCat layer as two blocks, one per attention block (so the KV pool has
//! `2 × num_layers` MLA layers, as SGLang's): block `2i` carries attention 0, dense MLP 0 and the
//! layer's MoE, block `2i + 1` attention 1 and dense MLP 1. tpsim's MoE shape has shared experts of
//! the routed width, so dense MLP 0 is lowered as `ffn_hidden_size / expert_ffn_hidden_size` shared
//! experts of the MoE block (Chat: 12,288 / 2,048 = 6, the same weights and GEMM widths as one
//! `LongcatFlashMLP`); a width that is not a whole multiple is refused. The norms stay two a block
//! (four a layer, SGLang's count).
//!
//! **Zero experts.** The router picks `moe_topk` of `n_routed_experts + zero_expert_num` (Chat: 12 of
//! 512 + 256); an identity expert reads no weights. tpsim's routing draws the real experts only, so
//! the MoE is lowered with `k = moe_topk × n_routed / (n_routed + zero_expert_num)` experts a token
//! (Chat: 12 × 512 / 768 = 8). Under uniform routing that is exact in expectation: 8 real experts a
//! token, and the expected distinct real experts of `n` tokens `E × (1 − (1 − k/E)^n)` is the same
//! because 8 / 512 = 12 / 768. It matches the model card's ~27B active a token on average (by hand:
//! 18.69B outside the experts and the embedding + 28 × 8 × 37,748,736 = 27.15B). A `k` that is not a
//! whole number of experts is refused. ASSUMED: the trained router's real/zero split varies by token
//! (the card's 18.6B–31.3B); tpsim uses the mean.
//!
//! Not modelled: an overlap of the shortcut MoE with the dense path (SGLang 0.5.8
//! `LongcatFlashDecoderLayer.forward` runs the MoE, then `forward_mlp`'s attention 1 and both dense
//! MLPs, in sequence on one stream; two-batch overlap is not modelled), the elementwise zero-expert
//! kernel (no weights), and the MoE block's second all-reduce ([`ModelSpec::split_moe_allreduce`]) in
//! the simulator's DP-attention and vLLM data-parallel passes (only its plain TP pass adds it).

use super::config::{FeedForward, ModelConfig};
use super::{Architecture, Ffn, ModelError, ModelSpec, MoeShape};

impl ModelSpec {
    /// Whether a MoE block's routed experts and its shared experts are all-reduced apart (two
    /// hidden-state all-reduces at tp > 1 where other MoE blocks have one): LongCat-Flash's MoE
    /// (`LongcatFlashMoE.forward` all-reduces its output) and dense MLP 0 (`forward_mlp`:
    /// `tensor_model_parallel_all_reduce` after `mlps[0]`), SGLang 0.5.8 `models/longcat_flash.py`;
    /// five all-reduces a LongCat layer (two attention, the MoE, two dense MLPs).
    /// families30 (issue #17): Gemma 4's MoE block likewise: the dense MLP and the experts each
    /// all-reduced before their own post-norm (SGLang 0.5.11 `gemma4_causal.py`: `Gemma3MLP`'s
    /// `down_proj` and `FusedMoE(reduce_results=True)`; 0.5.23: `sum_part` of `SumGroup.TP` and of
    /// `SumGroup.MOE_OUTPUT`).
    pub fn split_moe_allreduce(&self) -> bool {
        self.arch == Architecture::LongcatFlash || (self.arch == Architecture::Gemma4 && self.moe.is_some())
    }
}

fn refuse(field: &str, value: String, expected: &str) -> ModelError {
    ModelError::InvalidField {
        field: field.into(),
        value,
        expected: expected.into(),
    }
}

/// The config as SGLang's `LongcatFlashConfig` reads it, in the keys the rest of the lowering uses:
/// `num_hidden_layers` = the attention blocks (2 × `num_layers`, SGLang `model_config.py`
/// `num_attention_layers`), `intermediate_size` = `ffn_hidden_size`, `moe_intermediate_size` =
/// `expert_ffn_hidden_size`, `num_experts_per_tok` = the real experts a token (module doc).
pub(crate) fn filled(cfg: &ModelConfig, an: &str) -> Result<ModelConfig, ModelError> {
    let missing = |field: &str| ModelError::MissingField {
        field: field.into(),
        architecture: an.into(),
    };
    let mut out = cfg.clone();
    // `num_hidden_layers if num_hidden_layers is not None else num_layers` (configs/longcat_flash.py).
    let layers = cfg
        .num_hidden_layers
        .or(cfg.num_layers)
        .ok_or_else(|| missing("num_layers"))?;
    if !(1..=1 << 16).contains(&layers) {
        return Err(refuse("num_layers", layers.to_string(), "1 to 65,536 layers"));
    }
    out.num_hidden_layers = Some(2 * layers);
    // `intermediate_size if intermediate_size is not None else ffn_hidden_size`.
    out.intermediate_size = cfg.intermediate_size.or(cfg.ffn_hidden_size);
    // `moe_intermediate_size = expert_ffn_hidden_size`.
    out.moe_intermediate_size = cfg.expert_ffn_hidden_size.or(cfg.moe_intermediate_size);
    if let Some(act) = cfg.hidden_act.as_deref().filter(|a| *a != "silu") {
        // LongcatFlashMLP / LongcatFlashMoE: ValueError "Unsupported activation: ... Only silu is
        // supported for now."
        return Err(refuse(
            "hidden_act",
            format!("\"{act}\""),
            "\"silu\" (SGLang's longcat_flash.py: \"Only silu is supported for now.\")",
        ));
    }
    let e = cfg.n_routed_experts.ok_or_else(|| missing("n_routed_experts"))?;
    if !(1..=4096).contains(&e) {
        return Err(refuse("n_routed_experts", e.to_string(), "1 to 4,096 experts"));
    }
    let z = zero_experts(cfg)?;
    let k = cfg.moe_topk.ok_or_else(|| missing("moe_topk"))?;
    if k == 0 || k > e + z {
        return Err(refuse(
            "moe_topk",
            k.to_string(),
            &format!("1 to n_routed_experts + zero_expert_num ({})", e + z),
        ));
    }
    if !(k * e).is_multiple_of(e + z) {
        return Err(refuse(
            "moe_topk",
            k.to_string(),
            &format!(
                "a top-k whose share of real experts, moe_topk × {e} / {}, is a whole number (tpsim draws \
                 the real experts only)",
                e + z
            ),
        ));
    }
    out.num_experts_per_tok = Some(k * e / (e + z));
    Ok(out)
}

/// The identity experts beside the real ones (`zero_expert_num`, 0 when absent); SGLang's
/// `zero_experts_compute_triton` is called with `zero_expert_type` (Chat: "identity").
pub(crate) fn zero_experts(cfg: &ModelConfig) -> Result<u64, ModelError> {
    let z = cfg.zero_expert_num.unwrap_or(0);
    if z > 4096 {
        return Err(refuse(
            "zero_expert_num",
            z.to_string(),
            "0 to 4,096 zero experts",
        ));
    }
    if z > 0
        && let Some(t) = cfg.zero_expert_type.as_deref().filter(|t| *t != "identity")
    {
        return Err(refuse(
            "zero_expert_type",
            format!("\"{t}\""),
            "\"identity\" (the zero experts tpsim models: they read no weights)",
        ));
    }
    Ok(z)
}

/// Block `2i`: the MoE with dense MLP 0 as shared experts; block `2i + 1`: dense MLP 1 (module doc).
/// `text` is [`filled`]'s config, `blocks` its `num_hidden_layers`.
pub(crate) fn feed_forward(text: &ModelConfig, blocks: u64, an: &str) -> Result<FeedForward, ModelError> {
    let missing = |field: &str| ModelError::MissingField {
        field: field.into(),
        architecture: an.into(),
    };
    let dense = text.intermediate_size.ok_or_else(|| missing("ffn_hidden_size"))?;
    let mi = text
        .moe_intermediate_size
        .ok_or_else(|| missing("expert_ffn_hidden_size"))?;
    if mi == 0 || mi > 1 << 20 {
        return Err(refuse(
            "expert_ffn_hidden_size",
            mi.to_string(),
            "a positive expert width no larger than 1,048,576",
        ));
    }
    if dense == 0 || !dense.is_multiple_of(mi) || dense / mi > 64 {
        return Err(refuse(
            "ffn_hidden_size",
            dense.to_string(),
            &format!(
                "a dense MLP width that is 1 to 64 whole expert_ffn_hidden_size ({mi}) widths: tpsim lowers \
                 the MoE block's dense MLP as shared experts of the routed width"
            ),
        ));
    }
    let shape = MoeShape {
        n_routed_experts: text.n_routed_experts.unwrap_or(0),
        num_experts_per_tok: text.num_experts_per_tok.unwrap_or(0),
        moe_intermediate: mi,
        n_shared_experts: dense / mi,
    };
    Ok((
        (0..blocks)
            .map(|b| {
                if b % 2 == 0 {
                    Ffn::Moe(shape)
                } else {
                    Ffn::Dense { intermediate: dense }
                }
            })
            .collect(),
        Some(shape),
        dense,
        0,
    ))
}
