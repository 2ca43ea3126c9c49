//! vision54 (issue #17): the vision tower of Gemma 4 (`Gemma4ForConditionalGeneration`, 31B and
//! 26B-A4B) as SGLang builds it: 0.5.23 `models/gemma4_vision.py` (`Gemma4VisionEncoder`) and
//! `models/gemma4_mm.py` (`Gemma4MultimodalEmbedder` as `embed_vision`); the 0.5.11 (first) and
//! 0.5.17 wheels build the same modules. The config class is transformers' (`from transformers
//! import Gemma4VisionConfig`):
//! a key the checkpoint leaves out takes transformers 5.25.0 `models/gemma4/configuration_gemma4.py`
//! `Gemma4VisionConfig`'s default (hidden 768, MLP 3,072, 16 layers, 12 heads and KV heads of 64,
//! patch 16, position table 10,240, `attention_bias` false, `standardize` false).
//!
//! | part | shape | sharding (t = tp) |
//! |---|---|---|
//! | per layer `self_attn.qkv` | (heads + 2 × kv_heads) × head_dim × hidden (+ bias with `attention_bias`) | `ClippableQKVParallelLinear`: by heads |
//! | per layer `self_attn.o_proj` | hidden × heads × head_dim (+ bias) | `ClippableRowParallelLinear` |
//! | per layer `q_norm`, `k_norm` | head_dim each (`v_norm` has no weight) | replicated |
//! | per layer `mlp.gate_up`, `mlp.down_proj` | 2 × intermediate × hidden, hidden × intermediate, no bias | column / row |
//! | per layer four RMSNorms | 4 × hidden | replicated |
//! | `patch_embedder.input_proj` | hidden × 3 · patch², no bias (`nn.Linear`) | replicated |
//! | `patch_embedder.position_embedding_table` | 2 × position_embedding_size × hidden | replicated |
//! | `std_bias`, `std_scale` (with `standardize`) | 2 × hidden (persistent buffers, in the checkpoint) | replicated |
//! | `embed_vision.embedding_projection` | text hidden × hidden, no bias (its pre-norm has no weight) | `ReplicatedLinear` |
//!
//! Not counted (non-persistent buffers a few hundred bytes each): the clippable linears' four scalar
//! clip bounds, the weightless norms' ones-vectors. The 31B and 26B-A4B checkpoints carry no audio
//! tower (`audio_config` null; the E2B / E4B that do are refused by `llm::gemma4`). The tower runs on
//! the first pipeline stage only (`gemma4_mm.py`); tpsim serves pp = 1.

use super::piece::{Fmt, Piece};
use super::vlm::{VisionFamily, get, vit_depth};
use super::{ModelError, VisionTower};

/// transformers 5.25.0 `Gemma4VisionConfig` defaults (see the module docs).
const DEFAULT_HIDDEN: u64 = 768;
const DEFAULT_INTERMEDIATE: u64 = 3_072;
const DEFAULT_LAYERS: u64 = 16;
const DEFAULT_HEADS: u64 = 12;
const DEFAULT_HEAD_DIM: u64 = 64;
const DEFAULT_PATCH: u64 = 16;
const DEFAULT_POSITIONS: u64 = 10 * 1024;

/// The Gemma 4 tower of `vision_config` (keys absent: transformers' defaults), projecting to
/// `text_hidden`. Refused with SGLang 0.5.23's text: a `hidden_activation` other than
/// `gelu_pytorch_tanh` (`Gemma4VisionMLP` raises it).
pub(crate) fn gemma4_vit(
    v: &serde_json::Value,
    text_hidden: u64,
    arch: &str,
) -> Result<VisionTower, ModelError> {
    let flag = |key: &str| v.get(key).and_then(serde_json::Value::as_bool).unwrap_or(false);
    if let Some(act) = v.get("hidden_activation").and_then(serde_json::Value::as_str)
        && act != "gelu_pytorch_tanh"
    {
        return Err(ModelError::InvalidField {
            field: "vision_config.hidden_activation".into(),
            value: format!("\"{act}\""),
            expected: format!(
                "\"gelu_pytorch_tanh\" (SGLang 0.5.23 `Gemma4VisionMLP`: \"Gemma4VisionMLP expects \
                 hidden_activation='gelu_pytorch_tanh', got '{act}'\"; {arch})"
            ),
        });
    }
    let layers = match v.get("num_hidden_layers") {
        None | Some(serde_json::Value::Null) => DEFAULT_LAYERS,
        Some(_) => vit_depth(v, "num_hidden_layers", arch)?,
    };
    let hidden = get(v, "hidden_size")?.unwrap_or(DEFAULT_HIDDEN);
    let heads = get(v, "num_attention_heads")?.unwrap_or(DEFAULT_HEADS);
    Ok(VisionTower {
        // Both rows of the (2, position_embedding_size, hidden) table.
        pos_emb_cells: 2 * get(v, "position_embedding_size")?.unwrap_or(DEFAULT_POSITIONS),
        // SGLang's fraction dims are the tower's own: `adjust_mem_fraction_for_vlm` reads the config
        // object's attributes, the class defaults where the file omits them (16 × 768).
        ..VisionTower::encoder(
            VisionFamily::Gemma4Vit {
                kv_heads: get(v, "num_key_value_heads")?.unwrap_or(DEFAULT_HEADS),
                head_dim: get(v, "head_dim")?.unwrap_or(DEFAULT_HEAD_DIM),
                attention_bias: flag("attention_bias"),
                standardize: flag("standardize"),
                replicated: false,
            },
            layers,
            hidden,
            get(v, "intermediate_size")?.unwrap_or(DEFAULT_INTERMEDIATE),
            heads,
            get(v, "patch_size")?.unwrap_or(DEFAULT_PATCH),
            text_hidden,
        )
    })
}

/// The Gemma 4 tower and `embed_vision` a rank holds at tp `t` (module table); the whole of them
/// when `replicated` (vLLM, [`ModelSpec::serve_gemma4_as_vllm`]).
pub(crate) fn gemma4_vit_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let VisionFamily::Gemma4Vit {
        kv_heads,
        head_dim,
        attention_bias,
        standardize,
        replicated,
    } = v.family
    else {
        return Vec::new();
    };
    let t = if replicated { 1 } else { t };
    let (h, i) = (v.hidden, v.intermediate);
    // KV heads below tp are replicated, one a rank (SGLang `QKVParallelLinear`).
    let qkv = (v.heads / t + 2 * (kv_heads / t).max(1)) * head_dim;
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::new(qkv, h, Fmt::Model));
        ps.push(Piece::new(h, v.heads * head_dim / t, Fmt::Model));
        if attention_bias {
            ps.push(Piece::vec(qkv));
            ps.push(Piece::vec(h));
        }
        ps.push(Piece::vec(2 * head_dim)); // q_norm, k_norm
        ps.push(Piece::new(2 * i / t, h, Fmt::Model)); // gate_up
        ps.push(Piece::new(h, i / t, Fmt::Model)); // down_proj
        ps.push(Piece::vec(4 * h)); // the four RMSNorms
    }
    ps.push(Piece::new(h, 3 * v.patch * v.patch, Fmt::Model)); // input_proj
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model)); // position table
    if standardize {
        ps.push(Piece::vec(2 * h)); // std_bias, std_scale
    }
    ps.push(Piece::new(v.text_hidden, h, Fmt::Model)); // embed_vision.embedding_projection
    ps
}

impl super::ModelSpec {
    /// families39 (issue #17): vLLM builds Gemma 4's vision tower with transformers'
    /// `AutoModel.from_config(config.vision_config)` and `embed_vision.embedding_projection` as a
    /// `ReplicatedLinear` (vLLM 0.19.0 and 0.34.0 `model_executor/models/gemma4_mm.py`
    /// `Gemma4ForConditionalGeneration.__init__`, `Gemma4MultimodalEmbedder`): plain `nn.Linear`s,
    /// whole on every rank, where SGLang shards the tower by tp. No-op for other models.
    pub fn serve_gemma4_as_vllm(&mut self) {
        if let Some(v) = self.vision.as_mut()
            && let VisionFamily::Gemma4Vit { replicated, .. } = &mut v.family
        {
            *replicated = true;
        }
    }
}
