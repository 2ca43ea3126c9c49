//! rope17 (issue #17 point 5): the shape of the RoPE cos/sin cache vLLM builds while it constructs
//! the model — its rotary width and whether it is a multimodal (M-RoPE) cache of four times the
//! positions. `sim::decode::vllm_parts::rope_caches` sizes it; the bytes count in vLLM's "Model
//! loading took".
//!
//! The width, read from the vLLM wheels (0.10.2, 0.11.0, 0.19.0):
//! - `get_rope` (`layers/rotary_embedding/__init__.py`): 0.10.2/0.11.0 take a `rotary_dim` and a
//!   `partial_rotary_factor` and build `int(rotary_dim × factor)` when the factor is below 1; 0.19.0
//!   reads the factor from `rope_parameters` and builds `int(head_size × factor)`.
//! - Qwen3-Next (`models/qwen3_next.py`, 0.10.2: `rotary_dim=head_dim,
//!   partial_rotary_factor=config.partial_rotary_factor`; 0.19.0: `config.rope_parameters`) and the
//!   Qwen3.5 models built on its attention (0.19.0 `models/qwen3_5.py`): 256 × 0.25 = 64.
//! - GLM-4 dense (`models/glm4.py`, 0.10.2: `getattr(config, "partial_rotary_factor", 0.5)`; 0.19.0:
//!   `setdefault("partial_rotary_factor", 0.5)`) and GLM's first HF port (`models/glm.py`: sets
//!   the factor to 0.5 on the config, both releases): head_dim / 2.
//! - Phi-1/1.5/2 (`models/phi.py` 0.10.2: `int(config.partial_rotary_factor × head_size)`; 0.19.0
//!   through `rope_parameters`): phi-2 80 × 0.4 = 32.
//! - Phi-3 family (`models/phi3.py` is `LlamaForCausalLM`; `models/llama.py` 0.10.2:
//!   `getattr(config, "partial_rotary_factor", 1)`): Phi-4-mini 128 × 0.75 = 96.
//! - MiniMax-M2 (0.19.0 `models/minimax_m2.py`: `partial_rotary_factor = rotary_dim / head_dim`
//!   unless `rope_parameters` names one): 64 of 128.
//! - Bailing and the GLM-4.5/4.6/4.5V text towers keep their own rules (`llm::bailing`,
//!   `llm::glm4v`).
//!
//! M-RoPE: `get_rope` builds an `MRotaryEmbedding` when the rope config names `mrope_section`, and
//! `MRotaryEmbedding.__init__` (`rotary_embedding/mrope.py`, 0.10.2, 0.11.0 and 0.19.0) passes
//! `cache_max_position_num = max_position_embeddings * 4` to the base class ("We enlarge
//! max_position_embeddings to 4 times"): the cache has four times the rows. The published configs of
//! every multimodal Qwen (Qwen2-VL, Qwen2.5-VL: `rope_scaling.type = "mrope"`; Qwen3-VL, Qwen3.5:
//! `mrope_section` with `mrope_interleaved`) and of GLM-4.5V name one; tpsim keys it by the
//! architecture because several presets' config.json copies leave `rope_scaling` out.

use super::{Architecture, ModelConfig, ModelError};

/// M-RoPE caches hold this many times `max_position_embeddings` rows (vLLM `mrope.py`).
pub const MROPE_ROWS_FACTOR: u64 = 4;

/// The architectures whose vLLM model builds an M-RoPE cache (module doc).
pub(crate) fn vllm_mrope(arch_name: &str) -> bool {
    matches!(
        arch_name,
        "Qwen2VLForConditionalGeneration"
            | "Qwen2_5_VLForConditionalGeneration"
            | "Qwen3VLForConditionalGeneration"
            | "Qwen3VLMoeForConditionalGeneration"
            | "Qwen3_5ForConditionalGeneration"
            | "Qwen3_5MoeForConditionalGeneration"
            | "Glm4vMoeForConditionalGeneration"
            // families18: GLM-4.1V's published config names `mrope_section` [8, 12, 12]; vLLM
            // 0.11.0 `models/glm4.py` passes `rope_scaling` to `get_rope`.
            | "Glm4vForConditionalGeneration"
    )
}

/// `int(head_dim × factor)` (vLLM `get_rope`), the factor checked as vLLM 0.19 does ("must be
/// between 0.0 and 1.0").
fn scaled(head_dim: u64, factor: f64, field: &str) -> Result<u64, ModelError> {
    if factor > 0.0 && factor <= 1.0 {
        Ok(((head_dim as f64) * factor).floor().max(1.0) as u64)
    } else {
        Err(ModelError::InvalidField {
            field: field.into(),
            value: factor.to_string(),
            expected: "a share of the head in (0, 1] (vLLM get_rope: partial_rotary_factor must be between 0.0 and 1.0)"
                .into(),
        })
    }
}

/// The rotary width vLLM builds the cos/sin cache for when it is not `head_dim` (module doc);
/// `None` = the whole head.
pub(crate) fn vllm_rotary_dim(
    arch: Architecture,
    text: &ModelConfig,
    head_dim: u64,
) -> Result<Option<u64>, ModelError> {
    // presets59's lead: vLLM 0.17.0 / 0.19.0 `transformers_utils/config.py` `patch_rope_parameters`
    // copies a top-level `partial_rotary_factor` into `rope_parameters`, and `get_rope`
    // (`rotary_embedding/__init__.py`) reads it from there, as SGLang 0.5.9 `models/qwen3_5.py`
    // `Qwen3_5Attention` does: a factor only in `rope_parameters` (Qwen3.5-35B-A3B's and
    // -122B-A10B's published configs) counts as well.
    let factor = text.partial_rotary_factor.or_else(|| {
        text.rope_parameters
            .as_ref()
            .and_then(|r| r.get("partial_rotary_factor"))
            .and_then(serde_json::Value::as_f64)
    });
    let dim = match arch {
        Architecture::BailingMoeV2 => Some(super::bailing::vllm_rotary_dim(text, head_dim)?),
        // families18: GLM-4.1V's text tower is vLLM 0.11.0 `models/glm4.py` `Glm4Attention`
        // (`partial_rotary_factor` default 0.5), the same width.
        Architecture::Glm4vMoe | Architecture::Glm4Moe | Architecture::Glm4v => {
            Some(super::glm4v::vllm_rotary_dim(text, head_dim)?)
        }
        // `models/glm.py` (`GlmForCausalLM`) overrides the config's factor with 0.5.
        Architecture::Glm => Some(scaled(head_dim, 0.5, "partial_rotary_factor")?),
        Architecture::Glm4 => Some(scaled(head_dim, factor.unwrap_or(0.5), "partial_rotary_factor")?),
        Architecture::MiniMaxM2 => match (factor, text.rotary_dim) {
            (Some(f), _) => Some(scaled(head_dim, f, "partial_rotary_factor")?),
            (None, Some(r)) if r >= 1 && r <= head_dim => Some(r),
            (None, Some(r)) => {
                return Err(ModelError::InvalidField {
                    field: "rotary_dim".into(),
                    value: r.to_string(),
                    expected: format!(
                        "1 to head_dim {head_dim} (vLLM minimax_m2.py: rotary_dim / head_dim is the rotated share)"
                    ),
                });
            }
            (None, None) => None,
        },
        // families27 (issue #17): vLLM 0.11.0 `minimax_text_01.py` `MiniMaxText01Attention`:
        // `get_rope(head_size=head_dim, rotary_dim=config.rotary_dim)` (head_dim without the key).
        Architecture::MiniMaxText01 => match text.rotary_dim {
            Some(r) if r >= 1 && r <= head_dim => Some(r),
            Some(r) => {
                return Err(ModelError::InvalidField {
                    field: "rotary_dim".into(),
                    value: r.to_string(),
                    expected: format!(
                        "1 to head_dim {head_dim} (vLLM minimax_text_01.py: the rotated width)"
                    ),
                });
            }
            None => None,
        },
        // families38 (issue #17): SGLang 0.5.16 – 0.5.23 `minimax_m3.py` `MiniMaxM3Attention`:
        // `rotary_dim = getattr(config, "rotary_dim", head_dim)` passed to `get_rope` (64 of 128 in the
        // published config); the cache is built that wide.
        Architecture::MiniMaxM3 => match text.rotary_dim {
            Some(r) if r >= 1 && r <= head_dim => Some(r),
            Some(r) => {
                return Err(ModelError::InvalidField {
                    field: "rotary_dim".into(),
                    value: r.to_string(),
                    expected: format!("1 to head_dim {head_dim} (SGLang minimax_m3.py: the rotated width)"),
                });
            }
            None => None,
        },
        Architecture::Qwen3Next
        | Architecture::Qwen35
        | Architecture::Qwen35Moe
        | Architecture::Phi
        | Architecture::Phi3 => match factor {
            Some(f) => Some(scaled(head_dim, f, "partial_rotary_factor")?),
            None => None,
        },
        _ => None,
    };
    Ok(dim.filter(|&d| d != head_dim))
}

/// mem49 (issue #17 point 5): LongRoPE (`rope_scaling` `type` / `rope_type` = `"longrope"`, the
/// Phi-3 family: Phi-3/3.5-mini, Phi-4-mini) and its `original_max_position_embeddings`, taken from
/// the scaling block or, as both engines' `llama.py` copy it there (SGLang 0.5.5
/// `models/llama.py` `LlamaAttention`; vLLM `models/llama.py`), from the config's top level.
/// `get_rope` reads `rope_scaling["original_max_position_embeddings"]` for LongRoPE (SGLang 0.5.5
/// `layers/rotary_embedding.py`; vLLM `rotary_embedding/__init__.py`): without either key the
/// engines fail with a KeyError, refused here naming the key. `None` for every other scaling.
pub(crate) fn longrope_original(text: &ModelConfig) -> Result<Option<u64>, ModelError> {
    let Some(rs) = text.rope_scaling.as_ref().and_then(|v| v.as_object()) else {
        return Ok(None);
    };
    let kind = rs
        .get("rope_type")
        .or_else(|| rs.get("type"))
        .and_then(|v| v.as_str());
    if kind != Some("longrope") {
        return Ok(None);
    }
    let orig = rs
        .get("original_max_position_embeddings")
        .and_then(serde_json::Value::as_u64)
        .or(text.original_max_position_embeddings);
    match orig {
        Some(o) if (1..=1 << 32).contains(&o) => Ok(Some(o)),
        Some(o) => Err(ModelError::InvalidField {
            field: "original_max_position_embeddings".into(),
            value: o.to_string(),
            expected: "a context length of 1 to 4294967296 tokens (the rows of LongRoPE's short-factor cache)".into(),
        }),
        None => Err(ModelError::MissingField {
            field: "original_max_position_embeddings".into(),
            architecture: "rope_scaling type \"longrope\" (get_rope reads rope_scaling[\"original_max_position_embeddings\"])"
                .into(),
        }),
    }
}

/// rope51 (issue #17 point 4): kernels SGLang's `Phi3LongRoPEScaledRotaryEmbedding.forward` launches
/// per layer (`layers/rotary_embedding.py`; the same forward in the 0.4.6, 0.4.9, 0.5.1, 0.5.3, 0.5.5 –
/// 0.5.8 wheels, 0.5.9 only reshaping by `unflatten`, a view): the long-prompt offset (`positions >
/// k`, `torch.any`, `.float()`, `full_like`, `*`, `.long()`, `torch.add`: 7), `index_select` of the
/// cos/sin cache (1), two `repeat`s (2), and for q and for k `x * cos`, the negation and `cat` of
/// `_rotate_neox`, `* sin`, `+` and the `cat` with the pass-through part (2 × 6): 22. The 0.4.3
/// forward rotates the whole head without the pass-through `cat`: 20 (0.4.4 / 0.4.5 unread, taken
/// as 0.4.3). `release` is `[major, minor, patch]`; `None` or a source build's `0.0.0` = the newest.
/// The same count as MiniCPM3's LongRoPE part (`llm::minicpm`, hybrid50).
pub(crate) fn sglang_longrope_kernels(release: Option<[u64; 3]>) -> u32 {
    match release {
        Some(r) if r != [0, 0, 0] && r < [0, 4, 6] => 20,
        _ => 22,
    }
}

impl super::ModelSpec {
    /// rope51: a LongRoPE model's rotary under SGLang `release` is [`sglang_longrope_kernels`] PyTorch
    /// kernels where the layer template counts one fused kernel; MiniCPM3's layer count has them
    /// already (`llm::minicpm`). Every other model is left as lowered.
    pub(crate) fn serve_longrope_as_sglang(&mut self, release: Option<[u64; 3]>) {
        let mla = matches!(self.attention, super::Attention::Mla { .. });
        if self.longrope_original.is_some() && !mla {
            self.rotary_extra_kernels = sglang_longrope_kernels(release) - 1;
        }
    }
}
