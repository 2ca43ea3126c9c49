//! LLaVA-NeXT (`LlavaNextForConditionalGeneration`, the llava-hf LLaVA-v1.6 checkpoints; issue #16,
//! helper fam).
//!
//! **Text tower.** The published `text_config` of llava-hf/llava-v1.6-mistral-7b-hf names only what
//! differs from transformers' defaults (no `hidden_size`, `num_hidden_layers`,
//! `num_attention_heads`); the engines build it through transformers' `LlavaNextConfig`, which turns
//! the dict into `CONFIG_MAPPING[text_config["model_type"]]` (default `"llama"`). tpsim fills the
//! keys it reads from those classes' defaults (transformers 4.57.1):
//!
//! | key | `MistralConfig` | `LlamaConfig` |
//! |---|---|---|
//! | `vocab_size` | 32000 | 32000 |
//! | `hidden_size` | 4096 | 4096 |
//! | `intermediate_size` | 14336 | 11008 |
//! | `num_hidden_layers` | 32 | 32 |
//! | `num_attention_heads` | 32 | 32 |
//! | `num_key_value_heads` | 8 | = heads |
//! | `max_position_embeddings` | 131072 | 2048 |
//! | `sliding_window` | 4096 (only when the key is absent; null = none) | — |
//!
//! and the wrapper's `torch_dtype` over the text config's (vLLM's dtype rule). Other `model_type`s are
//! refused.
//!
//! **Vision tower** (vLLM 0.11.0 `models/llava_next.py` → `llava.py` `init_vision_tower_for_llava` →
//! `clip.py` `CLIPVisionModel`). Only `clip_vision_model` is modelled; its keys default as
//! transformers' `CLIPVisionConfig` (hidden 768, MLP 3072, 12 layers, 12 heads, 3 channels, image 224,
//! patch 32), and an absent `vision_config` is `LlavaNextConfig`'s default CLIP (1024, 4096, 24 layers,
//! 16 heads, image 336, patch 14). vLLM builds the encoder only up to the feature layer:
//! `vision_feature_layer` −2 (the default) of 24 → 24 − 2 + 1 = 23 blocks (`_get_layer_index`), and
//! no `post_layernorm` (`require_post_norm=False`). Per rank:
//!
//! | piece | shape per rank |
//! |---|---|
//! | per block: `layer_norm1`, `layer_norm2` (weight + bias) | 4 × h |
//! | `qkv_proj` (`QKVParallelLinear`, bias) | 3h/tp × h + 3h/tp |
//! | `out_proj` (`RowParallelLinear`, bias replicated) | h × h/tp + h |
//! | `fc1` / `fc2` (column / row-parallel, biases) | i/tp × h + i/tp, h × i/tp + h |
//! | `class_embedding`, `patch_embedding` (Conv2d, no bias), `position_embedding` ((image/patch)² + 1 rows), `pre_layrnorm` | replicated |
//! | projector `linear_1` (`ColumnParallelLinear` h → text hidden), `linear_2` (`RowParallelLinear`), biases when `multimodal_projector_bias` (default true) | text/tp × h + text/tp, text × text/tp + text |
//! | `image_newline` | text hidden, replicated |
//!
//! **SGLang.** 0.5.9 registers no `LlavaNextForConditionalGeneration` (`models/llava.py` EntryClass:
//! `LlavaLlamaForCausalLM`, `LlavaQwenForCausalLM`, `LlavaMistralForCausalLM`,
//! `LlavaForConditionalGeneration`); `model_loader/utils.py` `get_model_architecture` would fall back
//! to the Transformers backend ("… has no SGLang implementation, falling back to Transformers
//! implementation"), which tpsim does not model: the scenario resolver refuses SGLang for it.

use super::piece::{Fmt, Piece};
use super::{ModelConfig, ModelError, VisionFamily, VisionTower};

/// Largest accepted vision width/count (as `vlm`).
const MAX_DIM: u64 = 1 << 20;

/// The config with `text_config`'s omitted keys filled from transformers' defaults (module docs).
pub(crate) fn with_text_defaults(cfg: &ModelConfig, arch: &str) -> Result<ModelConfig, ModelError> {
    let mut out = cfg.clone();
    let t = out
        .text_config
        .as_deref_mut()
        .ok_or_else(|| ModelError::MissingField {
            field: "text_config".into(),
            architecture: arch.into(),
        })?;
    // transformers `LlavaNextConfig.__init__`: `text_config.get("model_type", "llama")`.
    let mistral = match t.model_type.as_deref().unwrap_or("llama") {
        "mistral" => true,
        "llama" => false,
        other => {
            return Err(ModelError::InvalidField {
                field: "text_config.model_type".into(),
                value: format!("\"{other}\""),
                expected: "\"mistral\" or \"llama\" (the LLaVA-NeXT text towers tpsim models)".into(),
            });
        }
    };
    // transformers 4.57.1 `MistralConfig` / `LlamaConfig` defaults.
    t.vocab_size.get_or_insert(32_000);
    t.hidden_size.get_or_insert(4096);
    t.intermediate_size
        .get_or_insert(if mistral { 14_336 } else { 11_008 });
    t.num_hidden_layers.get_or_insert(32);
    let heads = *t.num_attention_heads.get_or_insert(32);
    t.num_key_value_heads
        .get_or_insert(if mistral { 8 } else { heads });
    t.max_position_embeddings
        .get_or_insert(if mistral { 131_072 } else { 2048 });
    if mistral && !t.names_sliding_window {
        t.sliding_window = Some(4096);
    }
    // vLLM 0.11.0 `config/model.py` `_find_dtype`: the root config's `torch_dtype` first, the text
    // config's only when the root has none (llava-hf/llava-v1.6-mistral-7b-hf: root float16, text
    // bfloat16 → served in float16).
    if let Some(d) = cfg.torch_dtype.clone().or(cfg.dtype.clone()) {
        t.torch_dtype = Some(d);
        t.dtype = None;
    }
    Ok(out)
}

fn get(v: &serde_json::Value, key: &str, default: u64) -> Result<u64, ModelError> {
    match v.get(key) {
        None | Some(serde_json::Value::Null) => Ok(default),
        Some(x) => match x.as_u64() {
            Some(n) if n > 0 && n <= MAX_DIM => Ok(n),
            _ => Err(ModelError::InvalidField {
                field: format!("vision_config.{key}"),
                value: x.to_string(),
                expected: format!("a positive integer no larger than {MAX_DIM}"),
            }),
        },
    }
}

/// The CLIP tower vLLM builds for this config (module docs).
pub(crate) fn clip(cfg: &ModelConfig, text_hidden: u64, arch: &str) -> Result<VisionTower, ModelError> {
    // `LlavaNextConfig` without a vision_config: its own CLIP-L/336 defaults.
    let (d_hidden, d_inter, d_layers, d_heads, d_image, d_patch) = match &cfg.vision_config {
        None => (1024, 4096, 24, 16, 336, 14),
        Some(_) => (768, 3072, 12, 12, 224, 32),
    };
    let null = serde_json::Value::Null;
    let v = cfg.vision_config.as_ref().unwrap_or(&null);
    if let Some(t) = v.get("model_type").and_then(serde_json::Value::as_str)
        && t != "clip_vision_model"
    {
        return Err(ModelError::InvalidField {
            field: "vision_config.model_type".into(),
            value: format!("\"{t}\""),
            expected: format!("\"clip_vision_model\" (the vision tower tpsim models for {arch})"),
        });
    }
    let hidden = get(v, "hidden_size", d_hidden)?;
    let heads = get(v, "num_attention_heads", d_heads)?;
    if !hidden.is_multiple_of(heads) {
        return Err(ModelError::InvalidField {
            field: "vision_config.num_attention_heads".into(),
            value: heads.to_string(),
            expected: format!("a divisor of vision_config.hidden_size ({hidden})"),
        });
    }
    let all_layers = get(v, "num_hidden_layers", d_layers)?;
    if all_layers > 10_000 {
        return Err(ModelError::InvalidField {
            field: "vision_config.num_hidden_layers".into(),
            value: all_layers.to_string(),
            expected: "at most 10000 blocks".into(),
        });
    }
    // vLLM `_get_layer_index`: negative = from the end (−1 = all blocks), else the count itself;
    // `LlavaNextConfig` default −2.
    let feature = cfg.vision_feature_layer.unwrap_or(-2);
    let n = i64::try_from(all_layers).unwrap_or(i64::MAX);
    let layers = if feature < 0 { n + feature + 1 } else { feature };
    if layers < 1 || layers > n {
        return Err(ModelError::InvalidField {
            field: "vision_feature_layer".into(),
            value: feature.to_string(),
            expected: format!(
                "a layer of the {all_layers}-block vision tower (−{all_layers}..−1 or 1..{all_layers})"
            ),
        });
    }
    let image = get(v, "image_size", d_image)?;
    let patch = get(v, "patch_size", d_patch)?;
    if !image.is_multiple_of(patch) {
        return Err(ModelError::InvalidField {
            field: "vision_config.image_size".into(),
            value: image.to_string(),
            expected: format!(
                "a multiple of vision_config.patch_size ({patch}) (vLLM `CLIPVisionEmbeddings` asserts it)"
            ),
        });
    }
    let side = image / patch;
    Ok(VisionTower {
        // (image / patch)² patches plus the class token.
        pos_emb_cells: side * side + 1,
        temporal_patch: get(v, "num_channels", 3)?,
        sglang_fraction_dims: (all_layers, hidden),
        projector_bias: cfg.multimodal_projector_bias.unwrap_or(true),
        projector_in: hidden,
        ..VisionTower::encoder(
            VisionFamily::Clip,
            layers as u64,
            hidden,
            get(v, "intermediate_size", d_inter)?,
            heads,
            patch,
            text_hidden,
        )
    })
}

/// CLIP tower + projector + `image_newline` per rank (module docs), all at model dtype.
pub(crate) fn clip_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i, th) = (v.hidden, v.intermediate, v.text_hidden);
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::vec(4 * h)); // layer_norm1, layer_norm2: weight + bias
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // qkv_proj
        ps.push(Piece::vec(3 * h / t));
        ps.push(Piece::new(h, h / t, Fmt::Model)); // out_proj
        ps.push(Piece::vec(h));
        ps.push(Piece::new(i / t, h, Fmt::Model)); // fc1
        ps.push(Piece::vec(i / t));
        ps.push(Piece::new(h, i / t, Fmt::Model)); // fc2
        ps.push(Piece::vec(h));
    }
    ps.push(Piece::vec(h)); // class_embedding
    ps.push(Piece::new(h, v.temporal_patch * v.patch * v.patch, Fmt::Model)); // patch_embedding
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model)); // position_embedding
    ps.push(Piece::vec(2 * h)); // pre_layrnorm
    ps.push(Piece::new(th / t, v.projector_in, Fmt::Model)); // linear_1
    ps.push(Piece::new(th, th / t, Fmt::Model)); // linear_2
    if v.projector_bias {
        ps.push(Piece::vec(th / t));
        ps.push(Piece::vec(th));
    }
    ps.push(Piece::vec(th)); // image_newline
    ps
}
