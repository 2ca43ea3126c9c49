//! families7 (issue #17): GLM-4.5V / GLM-4.6V (`Glm4vMoeForConditionalGeneration`), its GLM-4V
//! vision tower.
//!
//! The text tower is GLM-4.5-Air's `Glm4MoeForCausalLM` read from `text_config` and lowered as
//! [`super::Architecture::Glm4Moe`] (dense `first_k_dense_replace` prefix, then MoE with one shared
//! expert and the fp32 `e_score_correction_bias`): SGLang 0.5.9 `models/glm4v_moe.py` builds
//! `Glm4MoeModel(config)`; vLLM 0.11.0 `models/glm4_1v.py` `Glm4vForConditionalGeneration` builds the
//! registered `Glm4MoeForCausalLM` on `config.text_config` (`architectures = ["Glm4MoeForCausalLM"]`
//! for `Glm4vMoeConfig`). Its KV pool is therefore the plain GQA pool of every layer in both engines.
//!
//! The tower (SGLang 0.5.9 `models/glm4v.py` `Glm4vVisionModel`, vLLM 0.11.0 `models/glm4_1v.py`
//! `Glm4vVisionTransformer`; both at the default tensor-parallel encoder), all at the model dtype:
//!
//! | part | shape | sharding |
//! |---|---|---|
//! | per block: `norm1`, `norm2` | RMSNorm, `hidden_size` | replicated |
//! | per block: `attn.qkv` | 3·`hidden_size` × `hidden_size`, no bias | by heads (`num_heads` must divide tp) |
//! | per block: `attn.proj` | `hidden_size` × `hidden_size`, no bias | row-parallel |
//! | per block: `mlp.gate_up_proj` / `down_proj` | SwiGLU of width **`out_hidden_size`** (`intermediate_dim=out_hidden_size`), no bias | column / row |
//! | `patch_embed.proj` | Conv3d `hidden_size` × `in_channels`·`temporal_patch_size`·`patch_size`², bias | replicated |
//! | `embeddings.position_embedding` | (`image_size` / `patch_size`)² × `hidden_size` | replicated |
//! | `post_conv_layernorm`, `post_layernorm` | RMSNorm, `hidden_size` | replicated |
//! | `downsample` | Conv2d `out_hidden_size` × `hidden_size`·`spatial_merge_size`², bias | replicated |
//! | `merger.proj` | `out_hidden_size`², no bias | SGLang `ReplicatedLinear`; vLLM `ColumnParallelLinear(gather_output=True)` |
//! | `merger.post_projection_norm` | LayerNorm (weight + bias), `out_hidden_size` | replicated |
//! | `merger.gate_up_proj` / `down_proj` | SwiGLU of width `intermediate_size`, no bias | column / row |
//!
//! tpsim counts `merger.proj` replicated as SGLang does: under vLLM each rank holds
//! `out_hidden_size² × (1 − 1/tp)` elements less (24 MiB at bf16, tp 4, for GLM-4.5V), not modelled.
//! Published GLM-4.5V (`zai-org/GLM-4.5V`): 858,681,856 tower parameters by this table, and with the
//! text tower 107,710,933,120 — the checkpoint's total as a public dump of its weight index lists it
//! (`llm::tests_glm4v`).
//!
//! Refused: `vision_config.attention_bias` true (SGLang 0.5.9 builds the qkv bias it asks for, vLLM
//! 0.11.0 `Glm4vVisionAttention` never does: the engines would disagree on the weights; every
//! published GLM-4.5V / 4.6V config says false). Both engines shard the tower's attention by heads
//! at the default encoder mode: SGLang 0.5.9 computes `num_dummy_heads` (`vision_utils.
//! update_vit_attn_dummy_heads_config`) but `Glm4vVisionModel` never passes it to its blocks, so
//! `VisionAttention` asserts "12 is not divisible by 8" at tp 8, as vLLM 0.11.0's
//! `dist_utils.divide(num_heads, tp_size)` does; tpsim refuses such a tp (`ModelSpec::check_tp`).
//! The data-parallel encoders (SGLang `--mm-enable-dp-encoder`, vLLM `--mm-encoder-tp-mode data`)
//! are not modelled.
//!
//! **GLM-4.1V** (families18, issue #17: `Glm4vForConditionalGeneration`, GLM-4.1V-9B-Thinking and
//! -Base) puts the same tower (SGLang 0.5.9 `models/glm4v.py` `Glm4vVisionModel` is the class
//! `glm4v_moe.py` imports; vLLM 0.11.0 builds `Glm4vVisionTransformer` for both names) over
//! GLM-4-0414's dense text tower, lowered as [`super::Architecture::Glm4v`] with the layer of
//! [`super::Architecture::Glm4`]: SGLang 0.5.9 `Glm4vForConditionalGeneration` builds
//! `glm4.Glm4Model(config)`, vLLM 0.11.0 the registered `Glm4ForCausalLM` on `config.text_config`
//! (`architectures = ["Glm4ForCausalLM"]` for `model_type` `glm4v`; 0.9.2, its first release, the
//! same). Per layer: fused q/k/v with the bias `attention_bias` asks for, `o_proj` without bias, a
//! SwiGLU of `intermediate_size`, four RMSNorms (`input_layernorm`, `post_self_attn_layernorm`,
//! `post_attention_layernorm`, `post_mlp_layernorm`); untied `lm_head`. Its KV pool is the plain
//! GQA pool of every layer. M-RoPE (`rope_scaling.mrope_section`) changes no size tpsim computes;
//! vLLM's cos/sin cache is `head_dim × partial_rotary_factor` wide ([`vllm_rotary_dim`]).
//! Published GLM-4.1V-9B-Thinking: 9,400,279,040 text-tower and 892,498,432 tower parameters,
//! 10,292,777,472 in all by the table above (`llm::tests_families18`), the Hub's "10.3B".
//!
//! Refused beyond the tower's checks ([`check_dense`]): a config without `attention_bias` (SGLang
//! 0.5.9 `glm4.py` reads `getattr(config, "attention_bias", True)`, vLLM 0.11.0 `glm4.py`
//! `getattr(config, 'attention_bias', False)`: the engines would disagree on the q/k/v bias; the
//! published config says true).

use super::config::ModelConfig;
use super::piece::{Fmt, Piece};
use super::vlm::{get, need, vit_depth, width_and_heads};
use super::{ModelError, VisionFamily, VisionTower};

/// The GLM-4V tower from `vision_config`: `depth`, `hidden_size`, `num_heads`, `intermediate_size`
/// (the merger's width), `patch_size`, `image_size`, `spatial_merge_size` and `out_hidden_size`
/// required; `temporal_patch_size` (2) and `in_channels` (3) default as in transformers'
/// `Glm4vMoeVisionConfig`.
pub(crate) fn glm4v_vit(
    v: Option<&serde_json::Value>,
    text_hidden: u64,
    arch: &str,
) -> Result<VisionTower, ModelError> {
    let (v, hidden, heads) = width_and_heads(v, "num_heads", arch)?;
    let layers = vit_depth(v, "depth", arch)?;
    if v.get("attention_bias").and_then(serde_json::Value::as_bool) == Some(true) {
        return Err(ModelError::InvalidField {
            field: "vision_config.attention_bias".into(),
            value: "true".into(),
            expected: "false: SGLang 0.5.9 glm4v.py builds the vision qkv bias it asks for, vLLM 0.11.0 \
                       glm4_1v.py never does (the engines disagree on the weights)"
                .into(),
        });
    }
    let patch = need(v, "patch_size", arch)?;
    let image = need(v, "image_size", arch)?;
    let out = need(v, "out_hidden_size", arch)?;
    if out != text_hidden {
        return Err(ModelError::InvalidField {
            field: "vision_config.out_hidden_size".into(),
            value: out.to_string(),
            expected: format!("text_config.hidden_size ({text_hidden}): the merger feeds the text tower"),
        });
    }
    let merge = need(v, "spatial_merge_size", arch)?;
    let side = image / patch;
    Ok(VisionTower {
        pos_emb_cells: side * side,
        merge: merge.saturating_mul(merge),
        // The merger's SwiGLU width (`context_dim=vision_config.intermediate_size`).
        projector_input: need(v, "intermediate_size", arch)?,
        temporal_patch: get(v, "temporal_patch_size")?
            .unwrap_or(2)
            .saturating_mul(get(v, "in_channels")?.unwrap_or(3)),
        // SGLang's `adjust_mem_fraction_for_vlm` reads `num_hidden_layers` (absent in GLM-4V: 24).
        sglang_fraction_dims: (get(v, "num_hidden_layers")?.unwrap_or(24), hidden),
        ..VisionTower::encoder(
            VisionFamily::Glm4vVit,
            layers,
            hidden,
            // The blocks' SwiGLU width: both engines pass `out_hidden_size` as the MLP width.
            out,
            heads,
            patch,
            out,
        )
    })
}

/// The GLM-4V tower per rank (module table; `merger.proj` replicated as SGLang holds it).
pub(crate) fn glm4v_vit_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i, o, c) = (v.hidden, v.intermediate, v.text_hidden, v.projector_input);
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::vec(2 * h)); // norm1, norm2
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // attn.qkv, no bias
        ps.push(Piece::new(h, h / t, Fmt::Model)); // attn.proj, no bias
        ps.push(Piece::new(2 * i / t, h, Fmt::Model)); // mlp.gate_up_proj
        ps.push(Piece::new(h, i / t, Fmt::Model)); // mlp.down_proj
    }
    // Conv3d patch embedding with bias; the learned position table.
    ps.push(Piece::new(h, v.temporal_patch * v.patch * v.patch, Fmt::Model));
    ps.push(Piece::vec(h));
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model));
    ps.push(Piece::vec(2 * h)); // post_conv_layernorm, post_layernorm
    // Conv2d downsample (merge × merge kernel) to the text width, with bias.
    ps.push(Piece::new(o, h * v.merge, Fmt::Model));
    ps.push(Piece::vec(o));
    // Merger: proj, LayerNorm (weight + bias), SwiGLU of width `intermediate_size`.
    ps.push(Piece::new(o, o, Fmt::Model));
    ps.push(Piece::vec(2 * o));
    ps.push(Piece::new(2 * c / t, o, Fmt::Model));
    ps.push(Piece::new(o, c / t, Fmt::Model));
    ps
}

/// The rotary width vLLM builds the text tower's cos/sin cache for: vLLM 0.11.0 `models/glm4_moe.py`
/// `Glm4MoeAttention` passes `partial_rotary_factor=getattr(config, "partial_rotary_factor", 0.5)` to
/// `get_rope`, which builds `int(head_dim × factor)` (GLM-4.5V: 128 × 0.5 = 64; its `mrope_section`
/// makes it an `MRotaryEmbedding` with the same cache shape).
///
/// Errors: a factor outside (0, 1].
pub(crate) fn vllm_rotary_dim(text: &ModelConfig, head_dim: u64) -> Result<u64, ModelError> {
    match text.partial_rotary_factor.unwrap_or(0.5) {
        f if f > 0.0 && f <= 1.0 => Ok(((head_dim as f64) * f).floor().max(1.0) as u64),
        f => Err(ModelError::InvalidField {
            field: "text_config.partial_rotary_factor".into(),
            value: f.to_string(),
            expected: "a share of the head in (0, 1]".into(),
        }),
    }
}

/// families18 (issue #17): what GLM-4.1V's text tower refuses: an absent `attention_bias` (module
/// doc; the engines' defaults differ).
pub(crate) fn check_dense(text: &ModelConfig) -> Result<(), ModelError> {
    if text.attention_bias.is_none() {
        return Err(ModelError::MissingField {
            field: "attention_bias".into(),
            architecture: "Glm4vForConditionalGeneration (SGLang 0.5.9 glm4.py defaults it to true, vLLM \
                           0.11.0 glm4.py to false: the engines disagree on the q/k/v bias without it; \
                           GLM-4.1V's published config says true)"
                .into(),
        });
    }
    Ok(())
}
