//! families14 (issue #17): InternVL 2.5 / 3 / 3.5 (`InternVLChatModel`): an InternViT vision tower,
//! the `mlp1` projector and a language model named by `llm_config.architectures`.
//!
//! The wrapper has no language model of its own: SGLang `models/internvl.py` `InternVLChatModel`
//! builds `Qwen2ForCausalLM`, `InternLM2ForCausalLM`, `Qwen3ForCausalLM` (and `Qwen3MoeForCausalLM`,
//! `GptOssForCausalLM`) on `config.llm_config` and raises `NotImplementedError("<arch> is not
//! implemented.")` for any other; vLLM `models/internvl.py` builds whichever registered model
//! `llm_config.architectures` names (`init_vllm_registered_model`). tpsim lowers `llm_config` as the
//! tower's own architecture ([`tower_arch`]: Qwen2, InternLM2, Llama / InternLM3, Qwen3, Qwen3-MoE
//! or GPT-OSS), so its
//! weights, KV cell and decode cost are that architecture's in each engine; the release and tower
//! refusals of each engine are `sim::scenario::internvl`.
//!
//! The tower (SGLang `models/internvl.py` `InternVisionModel`, vLLM `models/intern_vit.py`; both
//! shard it tensor-parallel at the default encoder mode), all at the model dtype:
//!
//! | part | shape | sharding |
//! |---|---|---|
//! | per block: `norm1`, `norm2` | `norm_type` `layer_norm` (weight + bias) or `rms_norm` (weight), `hidden_size` | replicated |
//! | per block: `ls1`, `ls2` | `hidden_size` each | replicated |
//! | per block: `attn.qkv` | 3·`hidden_size` × `hidden_size`, bias when `qkv_bias` | by heads (QKVParallelLinear) |
//! | per block: `attn.q_norm`, `k_norm` (when `qk_normalization`) | RMSNorm, `hidden_size` each | replicated |
//! | per block: `attn.proj` | `hidden_size` × `hidden_size` + bias | row-parallel, bias whole |
//! | per block: `mlp.fc1`, `fc2` | GELU MLP of `intermediate_size`, biases | column / row (`fc2` bias whole) |
//! | `embeddings.class_embedding` | `hidden_size` | replicated |
//! | `embeddings.patch_embedding` | Conv2d `hidden_size` × 3·`patch_size`² + bias | replicated |
//! | `embeddings.position_embedding` | ((`image_size` / `patch_size`)² + 1) × `hidden_size` | replicated |
//! | `mlp1` | LayerNorm (weight + bias) of 4·`hidden_size`, Linear 4·`hidden_size` → text + bias, GELU, Linear text → text + bias (`downsample_ratio` 0.5: pixel shuffle of 2 × 2) | replicated (plain `nn.Linear` in both engines) |
//!
//! InternVL3-1B (`internvl3-1b` preset): 304,012,288 tower and 4,482,816 projector parameters by this
//! table, with the Qwen2.5-0.5B-layout tower 938,193,024 (`llm::tests_internvl`).
//!
//! Refused, each with the key and what was expected:
//! - `select_layer` other than -1: vLLM builds only the blocks up to the selected one
//!   (`num_hidden_layers + select_layer + 1`), SGLang builds all of them (the engines disagree on the
//!   weights; every InternVL 2.5 / 3 / 3.5 config says -1).
//! - `downsample_ratio` other than 0.5 (both engines size `mlp1` as `int(1 / ratio)²` times the
//!   tower width; every published config says 0.5).
//! - nothing for a tower whose heads tp does not divide (InternViT-6B's 25 heads at tp 2, 4 or 8,
//!   InternVL 2.5 / 3 / 3.5 from 38B up): the engines lay it out differently, both modelled
//!   ([`InternVitAttention`], families26). SGLang from 0.4.10 pads the heads with zero "dummy" heads
//!   to the next multiple of tp (`layers/attention/vision_utils.py`
//!   `update_vit_attn_dummy_heads_config`, `pad_vit_attn_dummy_heads`; 0.4.10's `internvl.py` its
//!   own copy) and shards the padded qkv / proj by heads, its q/k norms `dummy_dim` wide; SGLang
//!   before 0.4.10 (0.4.9's `internvl.py` has no dummy heads) asserts in `VisionAttention`'s
//!   `divide` ("25 is not divisible by 2"), refused in `sim::scenario::internvl`. vLLM (0.10.1.1 an
//!   `InternSdpaAttention`, 0.11.0 … 0.34.0 `InternParallelAttention` with `disable_tp`, both in
//!   `intern_vit.py` `InternVisionEncoderLayer._init_attn`, `num_dummy_heads` 0 from
//!   `internvl.py`) keeps the whole attention on every rank and still shards the MLP
//!   (`ModelSpec::serve_internvl_as_vllm`, set when the scenario names vLLM).
//! - `llm_config.architectures` other than the towers of [`TOWERS`].
//!
//! Not modelled: the data-parallel encoders (SGLang `--mm-enable-dp-encoder`, vLLM
//! `--mm-encoder-tp-mode data`), the vision forward (tpsim costs text-only decode).

use super::config::ModelConfig;
use super::piece::{Fmt, Piece};
use super::vlm::{get, need, vit_depth, width_and_heads};
use super::{Architecture, ModelError, VisionFamily, VisionTower};

/// The wrapper's architecture name.
pub(crate) const INTERNVL: &str = "InternVLChatModel";

/// The language-model classes tpsim lowers inside an `InternVLChatModel`, with the architecture each
/// is lowered as (`config::architecture_of`).
const TOWERS: [(&str, Architecture); 7] = [
    ("Qwen2ForCausalLM", Architecture::Qwen2),
    ("InternLM2ForCausalLM", Architecture::InternLM2),
    ("LlamaForCausalLM", Architecture::Llama),
    // families10 (issue #17): InternLM3 is a Llama in both engines (InternVL3-9B's tower).
    ("InternLM3ForCausalLM", Architecture::Llama),
    ("Qwen3ForCausalLM", Architecture::Qwen3),
    // families26 (issue #17): InternVL3.5's MoE sizes (30B-A3B, 241B-A28B: Qwen3-MoE) and
    // InternVL3.5-GPT-OSS-20B-A4B: SGLang 0.5.9 `internvl.py` builds `Qwen3MoeForCausalLM` and
    // `GptOssForCausalLM` on `llm_config` (the releases: `sim::scenario::internvl`), vLLM any.
    ("Qwen3MoeForCausalLM", Architecture::Qwen3Moe),
    ("GptOssForCausalLM", Architecture::GptOss),
];

/// `llm_config`, which the wrapper requires.
pub(crate) fn llm_config(cfg: &ModelConfig) -> Result<&ModelConfig, ModelError> {
    cfg.llm_config.as_deref().ok_or_else(|| ModelError::MissingField {
        field: "llm_config".into(),
        architecture: INTERNVL.into(),
    })
}

/// The architecture the language model is lowered as: `llm_config.architectures[0]`, one of
/// [`TOWERS`].
///
/// Errors: no `llm_config`, no architecture in it, or one tpsim does not lower inside InternVL.
pub(crate) fn tower_arch(cfg: &ModelConfig) -> Result<Architecture, ModelError> {
    let llm = llm_config(cfg)?;
    let name = llm
        .architectures
        .as_ref()
        .and_then(|a| a.first())
        .ok_or_else(|| ModelError::MissingField {
            field: "llm_config.architectures".into(),
            architecture: INTERNVL.into(),
        })?;
    TOWERS
        .iter()
        .find(|(n, _)| n == name)
        .map(|(_, a)| *a)
        .ok_or_else(|| ModelError::InvalidField {
            field: "llm_config.architectures".into(),
            value: name.clone(),
            expected: format!(
                "one of {} (the InternVL language models tpsim lowers)",
                TOWERS.map(|(n, _)| n).join(", ")
            ),
        })
}

/// The InternViT tower and `mlp1` from `vision_config` and the wrapper's keys: `num_hidden_layers`,
/// `hidden_size`, `intermediate_size`, `num_attention_heads`, `patch_size` and `image_size` required;
/// `norm_type` (`rms_norm`), `qkv_bias` (false) and `qk_normalization` (false) default as in
/// InternVL's `InternVisionConfig`; `downsample_ratio` (0.5) and `select_layer` (-1) as in its
/// `InternVLChatConfig`.
pub(crate) fn internvit(cfg: &ModelConfig, text_hidden: u64) -> Result<VisionTower, ModelError> {
    let an = INTERNVL;
    let (v, hidden, heads) = width_and_heads(cfg.vision_config.as_ref(), "num_attention_heads", an)?;
    let layers = vit_depth(v, "num_hidden_layers", an)?;
    if let Some(s) = cfg.select_layer
        && s != -1
    {
        return Err(ModelError::InvalidField {
            field: "select_layer".into(),
            value: s.to_string(),
            expected:
                "-1: vLLM's internvl.py builds only the blocks up to the selected one, SGLang's all of \
                       them (the engines disagree on the weights)"
                    .into(),
        });
    }
    // 0.5 is exact in binary: any other ratio differs by far more than the margin.
    if let Some(r) = cfg.downsample_ratio
        && (r - 0.5).abs() > 1e-9
    {
        return Err(ModelError::InvalidField {
            field: "downsample_ratio".into(),
            value: r.to_string(),
            expected: "0.5 (the 2 × 2 pixel shuffle of every published InternVL config)".into(),
        });
    }
    let flag = |key: &str, default: bool| -> Result<bool, ModelError> {
        match v.get(key) {
            None | Some(serde_json::Value::Null) => Ok(default),
            Some(serde_json::Value::Bool(b)) => Ok(*b),
            Some(x) => Err(ModelError::InvalidField {
                field: format!("vision_config.{key}"),
                value: x.to_string(),
                expected: "true or false".into(),
            }),
        }
    };
    let layer_norm = match v.get("norm_type").and_then(serde_json::Value::as_str) {
        None | Some("rms_norm") => false,
        Some("layer_norm") => true,
        Some(other) => {
            return Err(ModelError::InvalidField {
                field: "vision_config.norm_type".into(),
                value: other.into(),
                expected: "\"layer_norm\" or \"rms_norm\" (InternViT's NORM2FN)".into(),
            });
        }
    };
    let patch = need(v, "patch_size", an)?;
    let image = need(v, "image_size", an)?;
    let side = image / patch;
    Ok(VisionTower {
        // The learned grid plus the class position.
        pos_emb_cells: side * side + 1,
        // `int(1 / downsample_ratio)²` patches a token.
        merge: 4,
        // Conv2d over RGB: both engines build `in_channels=3`.
        temporal_patch: 3,
        // SGLang's `adjust_mem_fraction_for_vlm` reads `num_hidden_layers` and `hidden_size`.
        sglang_fraction_dims: (get(v, "num_hidden_layers")?.unwrap_or(24), hidden),
        projector_bias: true,
        ..VisionTower::encoder(
            VisionFamily::InternVit {
                layer_norm,
                qkv_bias: flag("qkv_bias", false)?,
                qk_norm: flag("qk_normalization", false)?,
                // SGLang's layout until the scenario names vLLM (`ModelSpec::serve_internvl_as_vllm`).
                whole_attention: false,
            },
            layers,
            hidden,
            need(v, "intermediate_size", an)?,
            heads,
            patch,
            text_hidden,
        )
    })
}

/// The InternViT tower and `mlp1` per rank (module table). At a tp that does not divide the heads
/// the attention is laid out as the engine builds it (module doc, families26): SGLang (≥ 0.4.9.post5)
/// pads the heads to the next multiple of tp and shards qkv / proj by the padded heads, its q/k
/// norms as wide as the padded heads (`vision_utils.py`); vLLM (`whole_attention`) keeps qkv, proj
/// and the q/k norms whole on every rank (`intern_vit.py` `_init_attn`: `disable_tp`).
pub(crate) fn internvit_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i, th) = (v.hidden, v.intermediate, v.text_hidden);
    let (layer_norm, qkv_bias, qk_norm, whole) = match v.family {
        VisionFamily::InternVit {
            layer_norm,
            qkv_bias,
            qk_norm,
            whole_attention,
        } => (layer_norm, qkv_bias, qk_norm, whole_attention),
        _ => (false, false, false, false),
    };
    let norm = if layer_norm { 2 * h } else { h };
    let heads = v.heads.max(1);
    let head_dim = h / heads;
    // (attention width the rank's qkv rows and proj columns cover, whole attention width the q/k
    // norms span): InternViT-6B at tp 4 pads 25 heads to 28, 7 × 128 = 896 a rank, norms 3,584.
    let (rank_width, norm_width) = if heads.is_multiple_of(t) {
        (h / t, h)
    } else if whole {
        (h, h)
    } else {
        let padded = heads.div_ceil(t) * t;
        (padded / t * head_dim, padded * head_dim)
    };
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::vec(2 * norm)); // norm1, norm2
        ps.push(Piece::vec(2 * h)); // ls1, ls2
        ps.push(Piece::new(3 * rank_width, h, Fmt::Model)); // attn.qkv
        if qkv_bias {
            ps.push(Piece::vec(3 * rank_width));
        }
        if qk_norm {
            ps.push(Piece::vec(2 * norm_width)); // q_norm, k_norm (whole width)
        }
        ps.push(Piece::new(h, rank_width, Fmt::Model)); // attn.proj
        ps.push(Piece::vec(h));
        ps.push(Piece::new(i / t, h, Fmt::Model)); // mlp.fc1
        ps.push(Piece::vec(i / t));
        ps.push(Piece::new(h, i / t, Fmt::Model)); // mlp.fc2
        ps.push(Piece::vec(h));
    }
    ps.push(Piece::vec(h)); // class_embedding
    ps.push(Piece::new(h, v.temporal_patch * v.patch * v.patch, Fmt::Model)); // patch_embedding
    ps.push(Piece::vec(h));
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model)); // position_embedding
    // mlp1: LayerNorm, Linear, GELU, Linear (replicated).
    let m = v.merge * h;
    ps.push(Piece::vec(2 * m));
    ps.push(Piece::new(th, m, Fmt::Model));
    ps.push(Piece::vec(th));
    ps.push(Piece::new(th, th, Fmt::Model));
    ps.push(Piece::vec(th));
    ps
}

impl super::ModelSpec {
    /// families26 (issue #17): the model as vLLM serves it — for an InternVL, InternViT's attention
    /// kept whole on every rank where tp does not divide its heads (module doc); any other model is
    /// left as lowered (SGLang's layout).
    pub fn serve_internvl_as_vllm(&mut self) {
        if let Some(v) = self.vision.as_mut()
            && let VisionFamily::InternVit { whole_attention, .. } = &mut v.family
        {
            *whole_attention = true;
        }
    }
}
