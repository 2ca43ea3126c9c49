//! Vision towers of vision-language models, read from `vision_config`.
//!
//! The tower is loaded with the model on every rank and counts in the weights; decode runs the text
//! tower only, so nothing here enters the forward pass. Each family reads these `vision_config` keys:
//!
//! | family | layers | hidden | MLP | heads | patch | other | SGLang fraction dims |
//! |---|---|---|---|---|---|---|---|
//! | MoonViT (Kimi-K2.5) | `vt_num_hidden_layers` | `vt_hidden_size` | `vt_intermediate_size` | `vt_num_attention_heads` | `patch_size` | `init_pos_emb_height × _width`, `merge_kernel_size`, `text_hidden_size` | (layers, hidden) |
//! | Pixtral (Mistral-3) | `num_hidden_layers` | `hidden_size` | `intermediate_size` | `num_attention_heads` | `patch_size` | `num_channels` (3); top level: `spatial_merge_size` (2), `multimodal_projector_bias` (false), `vision_feature_layer` (−1 only) | `num_hidden_layers`, `hidden_size` |
//! | Mllama | `num_hidden_layers` (+ `num_global_layers`) | `hidden_size` | `intermediate_size` | `attention_heads` | `patch_size` | `image_size`, `max_num_tiles`, `supported_aspect_ratios`, `num_channels`, `vision_output_dim` | `num_hidden_layers`, `hidden_size` |
//! | Qwen2.5-VL ViT | `depth` | `hidden_size` | `intermediate_size` | `num_heads` | `patch_size` | `temporal_patch_size` (default 2), `in_chans` (3), `spatial_merge_size`, `out_hidden_size` | `num_hidden_layers` (absent → 24), `hidden_size` |
//! | Qwen2-VL ViT (families16) | `depth` | `embed_dim` | `embed_dim × mlp_ratio` | `num_heads` | `patch_size` | `temporal_patch_size` (2), `in_chans` / `in_channels` (3), `spatial_merge_size` (2 only), `hidden_size` (the merger's output, the text width) | `num_hidden_layers` (absent → 24), `hidden_size` (the text width) |
//! | GLM-4V ViT (GLM-4.5V, GLM-4.6V; `llm::glm4v`) | `depth` | `hidden_size` | `out_hidden_size` (merger: `intermediate_size`) | `num_heads` | `patch_size` | `image_size`, `temporal_patch_size` (2), `in_channels` (3), `spatial_merge_size`, `out_hidden_size` | `num_hidden_layers` (absent → 24), `hidden_size` |
//! | InternViT (InternVL 2.5 / 3 / 3.5; `llm::internvl`) | `num_hidden_layers` | `hidden_size` | `intermediate_size` | `num_attention_heads` | `patch_size` | `image_size`, `norm_type` (`rms_norm`), `qkv_bias` (false), `qk_normalization` (false); top level: `downsample_ratio` (0.5 only), `select_layer` (−1 only) | `num_hidden_layers`, `hidden_size` |
//! | Qwen3-VL ViT (Qwen3-VL, dense Qwen3.5) | `depth` | `hidden_size` | `intermediate_size` | `num_heads` | `patch_size` | `temporal_patch_size` (2), `in_channels` (3), `spatial_merge_size`, `out_hidden_size`, `num_position_embeddings`, `deepstack_visual_indexes` (Qwen3.5: only []) | `num_hidden_layers` (absent → 24), `hidden_size` |
//!
//! "SGLang fraction dims" are the two numbers SGLang's `ServerArgs.adjust_mem_fraction_for_vlm`
//! (SGLang 0.5.9 `server_args.py`) reads with `getattr(vision_config, "num_hidden_layers", 24)` and
//! `getattr(vision_config, "hidden_size", 1024)` to lower its default `mem_fraction_static` by
//! `0.95 × clamp(1 − 0.1 × (layers × hidden² / (24 × 1024²) − 1), 0.8, 1.05)`; the Qwen2.5-VL vision
//! config names its depth `depth`, so the engine sees the default 24 layers.
//!
//! Sharding of the Qwen2.5-VL tower (SGLang 0.5.9 and vLLM 0.11.0 `models/qwen2_5_vl.py` agree):
//! `qkv` column-parallel by heads with bias (`QKVParallelLinear` in vLLM), `proj` row-parallel with
//! bias, the SwiGLU MLP `gate_up_proj` (`MergedColumnParallelLinear`) / `down_proj`
//! (`RowParallelLinear`) with biases, the patch merger's two linears `ColumnParallelLinear` /
//! `RowParallelLinear` with biases; the `Conv3d` patch embedding (no bias), the RMSNorms `norm1`,
//! `norm2` and the merger's `ln_q` are replicated. No learned position embedding (2-D rotary).

//!
//! families16 (issue #17): the Qwen2-VL tower, read from SGLang 0.5.8 `models/qwen2_vl.py` and vLLM
//! 0.11.0 `model_executor/models/qwen2_vl.py` (the same layout in SGLang 0.3.4.post1's and vLLM
//! 0.6.1's, the first releases with the file): per block two `nn.LayerNorm(embed_dim)` (weight +
//! bias, replicated), attention `qkv` `ColumnParallelLinear(embed_dim, 3·embed_dim)` (bias, split by
//! heads) and `proj` `RowParallelLinear` (bias), the QuickGELU MLP `fc1` `ColumnParallelLinear(embed_dim,
//! int(embed_dim·mlp_ratio))` / `fc2` `RowParallelLinear`, both biased (their default `bias=True`);
//! the `Conv3d` patch embedding without bias (replicated); the merger `Qwen2VisionPatchMerger`: a
//! LayerNorm on `embed_dim`, `mlp.0` `ColumnParallelLinear(4·embed_dim, 4·embed_dim)` and `mlp.2`
//! `RowParallelLinear(4·embed_dim, hidden_size)`, biased. Both engines build the merger with its
//! default `spatial_merge_size = 2` whatever the config says, so another value is refused. The
//! vision `hidden_size` is the merger's output (the text width: 1536 for 2B, 3584 for 7B), and it is
//! what SGLang's `adjust_mem_fraction_for_vlm` reads as the tower's width.

use serde::Serialize;

use super::piece::{Fmt, Piece};
use super::{ModelError, VisionTower};

/// The encoder layout of a vision tower.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum VisionFamily {
    /// Kimi-K2.5's MoonViT (LayerNorm, GELU MLP, learned position grid, 2×2 patch-merger projector).
    MoonVit,
    /// Qwen2.5-VL's ViT (RMSNorm, SwiGLU MLP with biases, Conv3d patches over 2 frames, window
    /// attention, 2×2 merger MLP to the text width).
    QwenVit,
    /// families16 (issue #17): Qwen2-VL's ViT (LayerNorm, QuickGELU MLP with biases, Conv3d patches
    /// over 2 frames, full attention in every block, 2×2 merger MLP to the text width).
    Qwen2Vit,
    /// Pixtral ViT of Mistral-3 (RMSNorm, SwiGLU MLP without biases, Conv2d patches, 2-D rotary)
    /// plus the Mistral-3 projector (RMSNorm, patch merger, two linears).
    Pixtral,
    /// Mllama's ViT (LayerNorm, GELU MLP, local + gated global layers, tile and position embeddings)
    /// plus its linear projector from `vision_output_dim`.
    Mllama,
    /// Gemma-3's SigLIP (`siglip_vision_model`) with its projector.
    Siglip,
    /// Llama-4's vision model with its pixel-shuffle adapter and projector.
    Llama4,
    /// fam (issue #16): LLaVA-NeXT's CLIP ViT (LayerNorm, GELU MLP, biases everywhere, class and
    /// learned position embeddings) plus its two-layer projector and `image_newline` (`llava_next`).
    Clip,
    /// qwenhyb (issue #17): the Qwen3-VL ViT of Qwen3-VL and the dense Qwen3.5 (LayerNorm, GELU MLP
    /// with biases, biased Conv3d patches, a learned position grid, 2×2 merger MLP, DeepStack
    /// mergers for Qwen3-VL).
    Qwen3Vit,
    /// families7 (issue #17): the GLM-4V ViT of GLM-4.5V / GLM-4.6V (RMSNorm, SwiGLU MLP of the
    /// text width without biases, biased Conv3d patches, a learned position table, a Conv2d 2×2
    /// downsample to the text width and a SwiGLU merger; `llm::glm4v`).
    Glm4vVit,
    /// families14 (issue #17): InternViT of InternVL 2.5 / 3 / 3.5 (LayerNorm or RMSNorm, layer
    /// scales, GELU MLP with biases, class and learned position embeddings) plus the `mlp1` projector
    /// (`llm::internvl`): whether the norms are LayerNorms, the qkv carries a bias, and q/k are
    /// normalised.
    InternVit {
        /// `norm_type = "layer_norm"` (weight + bias) rather than `rms_norm`.
        layer_norm: bool,
        /// `qkv_bias`.
        qkv_bias: bool,
        /// `qk_normalization` (InternViT-6B): whole-width q_norm and k_norm a block.
        qk_norm: bool,
        /// families26 (issue #17): the attention kept whole on every rank where tp does not divide
        /// the heads, as vLLM builds it (`ModelSpec::serve_internvl_as_vllm`); false: SGLang's
        /// dummy heads (`llm::internvl`).
        whole_attention: bool,
    },
    /// vision54 (issue #17): Gemma 4's vision encoder and `embed_vision` (`llm::gemma4_vit`): RMSNorms,
    /// q/k norms, a gated GELU MLP, a linear patch embedder and a two-axis position table.
    Gemma4Vit {
        /// `num_key_value_heads`.
        kv_heads: u64,
        /// `head_dim`.
        head_dim: u64,
        /// `attention_bias`: qkv and o_proj carry biases.
        attention_bias: bool,
        /// `standardize`: the `std_bias` / `std_scale` vectors.
        standardize: bool,
        /// families39 (issue #17): the tower and `embed_vision` whole on every rank, as vLLM builds
        /// them (`ModelSpec::serve_gemma4_as_vllm`); false: SGLang's tp-sharded tower.
        replicated: bool,
    },
    /// vision54 (issue #17): Kimi-K3's MoonViT3d and `mm_projector`, replicated (`llm::kimi_k3_vit`).
    MoonVit3d {
        /// `qkv_hidden_size`: the attention's width (q, k and v each).
        qkv_hidden: u64,
        /// `mm_hidden_size`: the width the projector merges (the tower's by default).
        mm_hidden: u64,
    },
}

/// Largest accepted vision width/count (as for the text tower).
const MAX_DIM: u64 = 1 << 20;

pub(crate) fn get(v: &serde_json::Value, key: &str) -> Result<Option<u64>, ModelError> {
    match v.get(key) {
        None | Some(serde_json::Value::Null) => Ok(None),
        Some(x) => match x.as_u64() {
            Some(n) if n > 0 && n <= MAX_DIM => Ok(Some(n)),
            _ => Err(ModelError::InvalidField {
                field: format!("vision_config.{key}"),
                value: x.to_string(),
                expected: format!("a positive integer no larger than {MAX_DIM}"),
            }),
        },
    }
}

/// A tower's block count `vision_config.<key>`, required and at most 10,000 (a bound of tpsim's,
/// against a corrupt file, not of the engines).
pub(crate) fn vit_depth(v: &serde_json::Value, key: &str, arch: &str) -> Result<u64, ModelError> {
    let layers = need(v, key, arch)?;
    if layers > 10_000 {
        return Err(ModelError::InvalidField {
            field: format!("vision_config.{key}"),
            value: layers.to_string(),
            expected: "at most 10000 blocks".into(),
        });
    }
    Ok(layers)
}

pub(crate) fn need(v: &serde_json::Value, key: &str, arch: &str) -> Result<u64, ModelError> {
    get(v, key)?.ok_or_else(|| ModelError::MissingField {
        field: format!("vision_config.{key}"),
        architecture: arch.into(),
    })
}

/// `vision_config`, its `hidden_size` and its head count (key `heads_key`), the heads dividing the width.
pub(crate) fn width_and_heads<'a>(
    v: Option<&'a serde_json::Value>,
    heads_key: &str,
    arch: &str,
) -> Result<(&'a serde_json::Value, u64, u64), ModelError> {
    width_key_and_heads(v, "hidden_size", heads_key, arch)
}

/// [`width_and_heads`] with the width read from `width_key` (Qwen2-VL's `embed_dim`).
fn width_key_and_heads<'a>(
    v: Option<&'a serde_json::Value>,
    width_key: &str,
    heads_key: &str,
    arch: &str,
) -> Result<(&'a serde_json::Value, u64, u64), ModelError> {
    let v = v.ok_or_else(|| ModelError::MissingField {
        field: "vision_config".into(),
        architecture: arch.into(),
    })?;
    let hidden = need(v, width_key, arch)?;
    let heads = need(v, heads_key, arch)?;
    if !hidden.is_multiple_of(heads) {
        return Err(ModelError::InvalidField {
            field: format!("vision_config.{heads_key}"),
            value: heads.to_string(),
            expected: format!("a divisor of vision_config.{width_key} ({hidden})"),
        });
    }
    Ok((v, hidden, heads))
}

/// The Qwen2.5-VL tower from `vision_config` (every size key required; `temporal_patch_size`
/// defaults to 2 and `in_chans` to 3 as in transformers' `Qwen2_5_VLVisionConfig`).
pub(crate) fn qwen_vit(
    v: Option<&serde_json::Value>,
    text_hidden: u64,
    arch: &str,
) -> Result<VisionTower, ModelError> {
    let (v, hidden, heads) = width_and_heads(v, "num_heads", arch)?;
    let layers = vit_depth(v, "depth", arch)?;
    let in_chans = get(v, "in_chans")?.or(get(v, "in_channels")?).unwrap_or(3);
    let merge = need(v, "spatial_merge_size", arch)?;
    let intermediate = need(v, "intermediate_size", arch)?;
    let patch = need(v, "patch_size", arch)?;
    let text_hidden = get(v, "out_hidden_size")?.unwrap_or(text_hidden);
    let dims = QwenVitDims {
        layers,
        hidden,
        intermediate,
        heads,
        patch,
        merge: merge.saturating_mul(merge),
        text_hidden,
        in_chans,
    };
    qwen_tower(v, dims, VisionFamily::QwenVit)
}

/// The sizes of a Qwen2-VL / Qwen2.5-VL tower that each reads from its own `vision_config` keys.
struct QwenVitDims {
    layers: u64,
    hidden: u64,
    intermediate: u64,
    heads: u64,
    patch: u64,
    /// Patches merged into one token (2×2 → 4).
    merge: u64,
    /// The merger's output width.
    text_hidden: u64,
    /// `in_chans` / `in_channels`.
    in_chans: u64,
}

/// The Qwen2-VL / Qwen2.5-VL tower from `dims`, reading the keys both share last:
/// `temporal_patch_size` (2) and SGLang's fraction dims (`num_hidden_layers`, absent 24;
/// `hidden_size`, absent 1024: SGLang 0.5.8 `server_args.py` `adjust_mem_fraction_for_vlm`'s
/// `getattr` defaults; Qwen2-VL's `hidden_size` is the merger's output width).
fn qwen_tower(
    v: &serde_json::Value,
    dims: QwenVitDims,
    family: VisionFamily,
) -> Result<VisionTower, ModelError> {
    Ok(VisionTower {
        merge: dims.merge,
        // Conv3d kernel (temporal, patch, patch) over `in_chans` channels.
        temporal_patch: get(v, "temporal_patch_size")?
            .unwrap_or(2)
            .saturating_mul(dims.in_chans),
        sglang_fraction_dims: (
            get(v, "num_hidden_layers")?.unwrap_or(24),
            get(v, "hidden_size")?.unwrap_or(1024),
        ),
        projector_bias: true,
        ..VisionTower::encoder(
            family,
            dims.layers,
            dims.hidden,
            dims.intermediate,
            dims.heads,
            dims.patch,
            dims.text_hidden,
        )
    })
}

/// What differs between the weights of Qwen2.5-VL's and Qwen2-VL's ViT blocks and merger (module
/// doc); Qwen2.5-VL's window attention adds no weight.
#[derive(Debug, Clone, Copy)]
pub(crate) struct QwenVitLayout {
    /// LayerNorms (weight + bias: Qwen2-VL) rather than RMSNorms (weight: Qwen2.5-VL), in the
    /// blocks and the merger's `ln_q`.
    pub layer_norm: bool,
    /// A SwiGLU MLP (`gate_up_proj` 2i wide, `down_proj`: Qwen2.5-VL) rather than `fc1` / `fc2`
    /// (QuickGELU: Qwen2-VL).
    pub swiglu: bool,
}

/// Qwen2.5-VL: RMSNorm, SwiGLU.
pub(crate) const QWEN2_5_VL: QwenVitLayout = QwenVitLayout {
    layer_norm: false,
    swiglu: true,
};

/// families16 (issue #17): Qwen2-VL: LayerNorm, QuickGELU `fc1` / `fc2`.
pub(crate) const QWEN2_VL: QwenVitLayout = QwenVitLayout {
    layer_norm: true,
    swiglu: false,
};

/// The Qwen2.5-VL or Qwen2-VL tower per rank (sharding in the module doc), all at the model dtype.
pub(crate) fn qwen_vit_pieces(v: &VisionTower, t: u64, layout: QwenVitLayout) -> Vec<Piece> {
    let (h, i) = (v.hidden, v.intermediate);
    // Vectors a norm holds: weight (RMSNorm), weight + bias (LayerNorm).
    let norm = if layout.layer_norm { 2 } else { 1 };
    // The MLP's first projection: gate and up (SwiGLU) or fc1.
    let up = if layout.swiglu { 2 * i } else { i };
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::vec(2 * norm * h)); // norm1, norm2
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // attn.qkv
        ps.push(Piece::vec(3 * h / t));
        ps.push(Piece::new(h, h / t, Fmt::Model)); // attn.proj
        ps.push(Piece::vec(h));
        ps.push(Piece::new(up / t, h, Fmt::Model)); // mlp.gate_up_proj / mlp.fc1
        ps.push(Piece::vec(up / t));
        ps.push(Piece::new(h, i / t, Fmt::Model)); // mlp.down_proj / mlp.fc2
        ps.push(Piece::vec(h));
    }
    // Conv3d patch embedding: hidden × (channels·temporal) × patch × patch, no bias.
    ps.push(Piece::new(h, v.temporal_patch * v.patch * v.patch, Fmt::Model));
    // Merger: ln_q on the vision width, then (merge·h → merge·h) and (merge·h → text hidden).
    let m = h * v.merge;
    ps.push(Piece::vec(norm * h));
    ps.push(Piece::new(m / t, m, Fmt::Model));
    ps.push(Piece::vec(m / t));
    ps.push(Piece::new(v.text_hidden, m / t, Fmt::Model));
    ps.push(Piece::vec(v.text_hidden));
    ps
}

/// families16 (issue #17): the Qwen2-VL tower from `vision_config` (module doc): `depth`, `embed_dim`,
/// `num_heads`, `mlp_ratio` and `patch_size` required; `temporal_patch_size` (2), `in_chans` /
/// `in_channels` (3), `spatial_merge_size` (2) and `hidden_size` (the text width) default as in
/// transformers' `Qwen2VLVisionConfig`.
pub(crate) fn qwen2_vit(
    v: Option<&serde_json::Value>,
    text_hidden: u64,
    arch: &str,
) -> Result<VisionTower, ModelError> {
    let (v, hidden, heads) = width_key_and_heads(v, "embed_dim", "num_heads", arch)?;
    let layers = vit_depth(v, "depth", arch)?;
    // `mlp_hidden_dim = int(dim * mlp_ratio)` (both engines' `Qwen2VisionBlock`); 4 in every release.
    let ratio = match v.get("mlp_ratio") {
        None | Some(serde_json::Value::Null) => {
            return Err(ModelError::MissingField {
                field: "vision_config.mlp_ratio".into(),
                architecture: arch.into(),
            });
        }
        Some(x) => x
            .as_f64()
            .filter(|r| *r > 0.0 && *r <= 64.0)
            .ok_or_else(|| ModelError::InvalidField {
                field: "vision_config.mlp_ratio".into(),
                value: x.to_string(),
                expected: "a positive number no larger than 64".into(),
            })?,
    };
    let intermediate = (hidden as f64 * ratio).floor() as u64;
    if intermediate == 0 {
        return Err(ModelError::InvalidField {
            field: "vision_config.mlp_ratio".into(),
            value: ratio.to_string(),
            expected: "a ratio that leaves a non-empty MLP (embed_dim × mlp_ratio ≥ 1)".into(),
        });
    }
    if let Some(m) = get(v, "spatial_merge_size")?
        && m != 2
    {
        return Err(ModelError::InvalidField {
            field: "vision_config.spatial_merge_size".into(),
            value: m.to_string(),
            expected:
                "2 (SGLang's and vLLM's Qwen2VisionPatchMerger is built with its default 2×2 merge whatever \
                       the config says)"
                    .into(),
        });
    }
    let in_chans = get(v, "in_chans")?.or(get(v, "in_channels")?).unwrap_or(3);
    let patch = need(v, "patch_size", arch)?;
    let text_hidden = get(v, "hidden_size")?.unwrap_or(text_hidden);
    let dims = QwenVitDims {
        layers,
        hidden,
        intermediate,
        heads,
        patch,
        merge: 4,
        text_hidden,
        in_chans,
    };
    qwen_tower(v, dims, VisionFamily::Qwen2Vit)
}

// qwenhyb (issue #17): the Qwen3-VL tower of the dense Qwen3.5. SGLang `models/qwen3_vl.py`
// `Qwen3VLMoeVisionModel` (which `models/qwen3_5.py` builds through `Qwen3VLForConditionalGeneration`):
// per block two `nn.LayerNorm`s (weight + bias, replicated), `VisionAttention` with `use_qkv_parallel`
// (qkv column-parallel by heads with bias, `proj` row-parallel with bias), `Qwen3_VisionMLP`
// `linear_fc1` column-parallel / `linear_fc2` row-parallel, both biased; the `Conv3d` patch embedding
// (bias) and the `pos_embed` table of `num_position_embeddings` rows replicated; the merger: a
// LayerNorm on the vision width, `linear_fc1` (4h → 4h) column-parallel and `linear_fc2` (4h →
// `out_hidden_size`) row-parallel, biased; one more such merger per `deepstack_visual_indexes` entry
// (`deepstack_merger_list`, its LayerNorm on 4h: `use_postshuffle_norm`). Qwen3.5's list is empty
// (a non-empty one is refused there); Qwen3-VL's has three.

/// The Qwen3.5 (Qwen3-VL) tower from `vision_config`: `depth`, `hidden_size`, `intermediate_size`,
/// `num_heads`, `patch_size`, `spatial_merge_size`, `num_position_embeddings` required;
/// `temporal_patch_size` (2), `in_channels` (3) and `out_hidden_size` (the text width) default as in
/// transformers' `Qwen3VLVisionConfig`.
pub(crate) fn qwen3_vit(
    v: Option<&serde_json::Value>,
    text_hidden: u64,
    arch: &str,
    deepstack: bool,
) -> Result<VisionTower, ModelError> {
    let (v, hidden, heads) = width_and_heads(v, "num_heads", arch)?;
    let layers = vit_depth(v, "depth", arch)?;
    // Qwen3-VL: one DeepStack merger per listed block; Qwen3.5 takes none (SGLang asserts it).
    let deepstack_mergers = match v.get("deepstack_visual_indexes") {
        None | Some(serde_json::Value::Null) => 0,
        Some(d) => match d.as_array() {
            Some(a) if a.is_empty() || (deepstack && a.len() as u64 <= layers) => a.len() as u64,
            _ => {
                return Err(ModelError::InvalidField {
                    field: "vision_config.deepstack_visual_indexes".into(),
                    value: d.to_string(),
                    expected: if deepstack {
                        format!("a list of at most depth ({layers}) block indexes")
                    } else {
                        "[] (Qwen3.5 consumes no DeepStack features)".into()
                    },
                });
            }
        },
    };
    let merge = need(v, "spatial_merge_size", arch)?;
    let in_chans = get(v, "in_channels")?.unwrap_or(3);
    Ok(VisionTower {
        pos_emb_cells: need(v, "num_position_embeddings", arch)?,
        merge: merge.saturating_mul(merge),
        temporal_patch: get(v, "temporal_patch_size")?
            .unwrap_or(2)
            .saturating_mul(in_chans),
        // SGLang's `adjust_mem_fraction_for_vlm` reads `num_hidden_layers` (absent: 24).
        sglang_fraction_dims: (get(v, "num_hidden_layers")?.unwrap_or(24), hidden),
        projector_bias: true,
        deepstack_mergers,
        ..VisionTower::encoder(
            VisionFamily::Qwen3Vit,
            layers,
            hidden,
            need(v, "intermediate_size", arch)?,
            heads,
            need(v, "patch_size", arch)?,
            get(v, "out_hidden_size")?.unwrap_or(text_hidden),
        )
    })
}

/// The Qwen3.5 (Qwen3-VL) tower per rank (sharding above), all at the model dtype.
pub(crate) fn qwen3_vit_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i) = (v.hidden, v.intermediate);
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::vec(4 * h)); // norm1, norm2 (LayerNorm weight + bias)
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // attn.qkv
        ps.push(Piece::vec(3 * h / t));
        ps.push(Piece::new(h, h / t, Fmt::Model)); // attn.proj
        ps.push(Piece::vec(h));
        ps.push(Piece::new(i / t, h, Fmt::Model)); // mlp.linear_fc1
        ps.push(Piece::vec(i / t));
        ps.push(Piece::new(h, i / t, Fmt::Model)); // mlp.linear_fc2
        ps.push(Piece::vec(h));
    }
    // Conv3d patch embedding with bias, and the learned position grid.
    ps.push(Piece::new(h, v.temporal_patch * v.patch * v.patch, Fmt::Model));
    ps.push(Piece::vec(h));
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model));
    // Merger: LayerNorm on the vision width, (merge·h → merge·h), (merge·h → out_hidden_size).
    let m = h * v.merge;
    ps.push(Piece::vec(2 * h));
    ps.push(Piece::new(m / t, m, Fmt::Model));
    ps.push(Piece::vec(m / t));
    ps.push(Piece::new(v.text_hidden, m / t, Fmt::Model));
    ps.push(Piece::vec(v.text_hidden));
    // Qwen3-VL's DeepStack mergers: the same MLP with its LayerNorm after the 2×2 shuffle (on m).
    for _ in 0..v.deepstack_mergers {
        ps.push(Piece::vec(2 * m));
        ps.push(Piece::new(m / t, m, Fmt::Model));
        ps.push(Piece::vec(m / t));
        ps.push(Piece::new(v.text_hidden, m / t, Fmt::Model));
        ps.push(Piece::vec(v.text_hidden));
    }
    ps
}

/// The Mistral-3 tower from `vision_config` plus the wrapper's projector keys. Only
/// `vision_feature_layer` −1 (absent = −1) is accepted: with another layer vLLM builds fewer blocks
/// (`num_hidden_layers_override`), which tpsim does not model.
pub(crate) fn pixtral(
    cfg: &super::ModelConfig,
    text_hidden: u64,
    arch: &str,
) -> Result<VisionTower, ModelError> {
    let v = cfg
        .vision_config
        .as_ref()
        .ok_or_else(|| ModelError::MissingField {
            field: "vision_config".into(),
            architecture: arch.into(),
        })?;
    if let Some(l) = cfg.vision_feature_layer.filter(|&l| l != -1) {
        return Err(ModelError::InvalidField {
            field: "vision_feature_layer".into(),
            value: l.to_string(),
            expected: "-1 (the last vision layer; other layers are not modelled)".into(),
        });
    }
    let hidden = need(v, "hidden_size", arch)?;
    let heads = need(v, "num_attention_heads", arch)?;
    if !hidden.is_multiple_of(heads) {
        return Err(ModelError::InvalidField {
            field: "vision_config.num_attention_heads".into(),
            value: heads.to_string(),
            expected: format!("a divisor of vision_config.hidden_size ({hidden})"),
        });
    }
    let layers = vit_depth(v, "num_hidden_layers", arch)?;
    let merge = match cfg.spatial_merge_size {
        None => 2,
        Some(m) if m > 0 && m <= 64 => m,
        Some(m) => {
            return Err(ModelError::InvalidField {
                field: "spatial_merge_size".into(),
                value: m.to_string(),
                expected: "a positive integer no larger than 64".into(),
            });
        }
    };
    Ok(VisionTower {
        merge: merge * merge,
        // Conv2d over `num_channels` (one frame).
        temporal_patch: get(v, "num_channels")?.unwrap_or(3),
        projector_bias: cfg.multimodal_projector_bias.unwrap_or(false),
        ..VisionTower::encoder(
            VisionFamily::Pixtral,
            layers,
            hidden,
            need(v, "intermediate_size", arch)?,
            heads,
            need(v, "patch_size", arch)?,
            text_hidden,
        )
    })
}

/// Pixtral tower + Mistral-3 projector per rank (SGLang 0.5.9 sharding, see `weights.rs`).
pub(crate) fn pixtral_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i) = (v.hidden, v.intermediate);
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::vec(2 * h)); // attention_norm, ffn_norm
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // qkv, no bias
        ps.push(Piece::new(h, h / t, Fmt::Model)); // o_proj
        ps.push(Piece::new(2 * i / t, h, Fmt::Model)); // gate_up_proj
        ps.push(Piece::new(h, i / t, Fmt::Model)); // down_proj
    }
    ps.push(Piece::new(h, v.temporal_patch * v.patch * v.patch, Fmt::Model)); // patch_conv, no bias
    ps.push(Piece::vec(h)); // ln_pre
    // Projector, replicated: norm, patch merger (merge·h → h, no bias), linear_1, linear_2.
    ps.push(Piece::vec(h));
    ps.push(Piece::new(h, h * v.merge, Fmt::Model));
    ps.push(Piece::new(v.text_hidden, h, Fmt::Model));
    ps.push(Piece::new(v.text_hidden, v.text_hidden, Fmt::Model));
    if v.projector_bias {
        ps.push(Piece::vec(2 * v.text_hidden));
    }
    ps
}

/// The Mllama tower (SGLang 0.5.9 `models/mllama.py` `MllamaVisionModel`); every size key required.
pub(crate) fn mllama(
    v: Option<&serde_json::Value>,
    text_hidden: u64,
    arch: &str,
) -> Result<VisionTower, ModelError> {
    let (v, hidden, heads) = width_and_heads(v, "attention_heads", arch)?;
    let layers = need(v, "num_hidden_layers", arch)?;
    let global_layers = get(v, "num_global_layers")?.unwrap_or(0);
    if layers + global_layers > 10_000 {
        return Err(ModelError::InvalidField {
            field: "vision_config.num_hidden_layers".into(),
            value: layers.to_string(),
            expected: "at most 10000 blocks".into(),
        });
    }
    let patch = need(v, "patch_size", arch)?;
    let image = need(v, "image_size", arch)?;
    let side = image / patch;
    let aspect_ratios = v
        .get("supported_aspect_ratios")
        .and_then(serde_json::Value::as_array)
        .map(|a| a.len() as u64)
        .filter(|&n| n > 0 && n <= 1024)
        .ok_or_else(|| ModelError::MissingField {
            field: "vision_config.supported_aspect_ratios".into(),
            architecture: arch.into(),
        })?;
    Ok(VisionTower {
        // (image / patch)² patches plus the class token.
        pos_emb_cells: side.saturating_mul(side) + 1,
        temporal_patch: get(v, "num_channels")?.unwrap_or(3),
        projector_bias: true,
        global_layers,
        tiles: need(v, "max_num_tiles", arch)?,
        aspect_ratios,
        projector_in: need(v, "vision_output_dim", arch)?,
        ..VisionTower::encoder(
            VisionFamily::Mllama,
            layers,
            hidden,
            need(v, "intermediate_size", arch)?,
            heads,
            patch,
            text_hidden,
        )
    })
}

/// Mllama tower + projector per rank. SGLang 0.5.9 `models/mllama.py`: the patch embedding is a
/// `ColumnParallelLinear` over output channels (no bias); each encoder layer a `VisionAttention` with
/// `use_qkv_parallel` and its default q/k/v and output biases, `fc1`/`fc2` column/row-parallel with
/// biases, two `nn.LayerNorm`s; global layers add `gate_attn`/`gate_ffn`; class, position, tile and
/// aspect-ratio embeddings, the pre/post LayerNorms and the `ReplicatedLinear` projector (bias) are
/// replicated. `max_aspect_ratio_id` = number of supported aspect ratios, so the tables have that + 1
/// rows.
pub(crate) fn mllama_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i) = (v.hidden, v.intermediate);
    let mut ps = Vec::new();
    for l in 0..v.layers + v.global_layers {
        ps.push(Piece::vec(4 * h)); // input_layernorm, post_attention_layernorm (weight + bias)
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // qkv
        ps.push(Piece::vec(3 * h / t));
        ps.push(Piece::new(h, h / t, Fmt::Model)); // proj
        ps.push(Piece::vec(h));
        ps.push(Piece::new(i / t, h, Fmt::Model)); // fc1
        ps.push(Piece::vec(i / t));
        ps.push(Piece::new(h, i / t, Fmt::Model)); // fc2
        ps.push(Piece::vec(h));
        if l >= v.layers {
            ps.push(Piece::vec(2)); // gate_attn, gate_ffn
        }
    }
    ps.push(Piece::new(
        h / t,
        v.temporal_patch * v.patch * v.patch,
        Fmt::Model,
    )); // patch embedding
    ps.push(Piece::vec(h)); // class_embedding
    let rows = v.aspect_ratios + 1;
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model)); // gated position embedding
    ps.push(Piece::new(rows, v.tiles * v.pos_emb_cells * h, Fmt::Model)); // tile position embedding
    ps.push(Piece::vec(1)); // its gate
    for _ in 0..2 {
        ps.push(Piece::new(rows, v.tiles * h, Fmt::Model)); // pre/post tile positional embedding
        ps.push(Piece::vec(1));
    }
    ps.push(Piece::vec(4 * h)); // layernorm_pre, layernorm_post
    ps.push(Piece::new(v.text_hidden, v.projector_in, Fmt::Model)); // multi_modal_projector
    ps.push(Piece::vec(v.text_hidden));
    ps
}
