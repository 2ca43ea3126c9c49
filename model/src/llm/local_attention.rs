//! Local/global attention families (issue #16): Gemma 1/2/3, Mistral, Mixtral and Llama-4, and the
//! per-layer attention types they use.
//!
//! **Which layers are local** (first rule that applies):
//!
//! | source | rule |
//! |---|---|
//! | `layer_types` present | one entry per layer: `"full_attention"`, `"sliding_attention"` or `"chunked_attention"` |
//! | gpt-oss, Gemma-2 | even layers slide (vLLM `gpt_oss.py`: `layer_idx % 2 == 0`; HF `Gemma2Config` alternates starting with a sliding layer; SGLang `models/gemma2.py` `get_attention_sliding_window_size`) |
//! | Gemma-3 | layer `i` is global iff `(i + 1) % sliding_window_pattern == 0` (HF `Gemma3TextConfig` default pattern 6) |
//! | Mistral / Mixtral | `sliding_window` non-null: every layer slides (vLLM gives every layer a `SlidingWindowSpec`); null: all full |
//! | StarCoder2 (families13) | as Mistral (vLLM 0.19.0 `starcoder2.py` passes no per-layer window: `cache_config.sliding_window` for every layer); SGLang 0.5.8 applies none, which `sim::scenario` restores (`llm::starcoder2`) |
//! | Llama-4 | `attention_chunk_size` set: layer `i` is global NoPE attention iff `(i + 1) % 4 == 0`, chunked local RoPE attention otherwise (SGLang 0.5.8 `configs/model_config.py` `get_hybrid_layer_ids` and `models/llama4.py` `use_rope = (layer_id + 1) % 4 != 0`, both hard-coded) |
//! | Cohere2 (families2) | layer `i` is global iff `(i + 1) % sliding_window_pattern == 0` (HF `Cohere2Config` default pattern 4; vLLM `models/commandr.py`: `(layer_idx + 1) % sliding_window_pattern != 0` slides). SGLang builds Cohere2 as Cohere (`commandr.py`: `class Cohere2ForCausalLM(CohereForCausalLM): pass`, its layers reading `config.sliding_window`) and Cohere2 is not among its hybrid-SWA architectures: the plain pool over every layer, as for Gemma-2/3 |
//! | EXAONE 4 (families5) | `layer_types` when given (vLLM 0.19.0 `exaone4.py`); else no `sliding_window`: all full; else layer `i` is global iff `(i + 1) % p == 0`, `p` the `sliding_window_pattern` integer or its number of letters (`"LLLG"`: 4; SGLang 0.5.9 `exaone4.py` `len(sliding_window_pattern)`; transformers `Exaone4Config` default 4). SGLang 0.5.9 turns its hybrid SWA pool off for it: the plain pool over every layer |
//! | Gemma 1 | all full |
//!
//! **Weights** (SGLang 0.5.8 `models/gemma.py`, `gemma2.py`, `gemma3_causal.py`, `gemma3_mm.py`,
//! `mixtral.py`, `llama4.py`, `mllama4.py`; same TP rules as Llama otherwise):
//!
//! | family | beyond the Llama layout |
//! |---|---|
//! | Gemma 1/2/3 | explicit `head_dim` (not hidden / heads), tied embeddings, 256 k vocabulary; the √hidden embedding normalizer is a constant (no weight) |
//! | Gemma-2/3 | four RMSNorms per layer (input, post-attention, pre- and post-feed-forward) |
//! | Gemma-3 | per-head q/k RMSNorm (`head_dim` each) |
//! | Cohere2 | one LayerNorm (weight only) per layer feeding attention and MLP in parallel (`CohereDecoderLayer`), no biases, tied embeddings; `use_qk_norm`: per-head-distinct q/k LayerNorms sharded with the heads (`llm::cohere`, families8) |
//! | Gemma-3 multimodal | SigLIP tower (encoder blocks TP-split by heads / MLP width as in `VisionAttention(use_qkv_parallel)`, patch conv, position table, post-norm replicated) + projector `mm_input_projection_weight` (vision × text hidden) and `mm_soft_emb_norm` |
//! | Mixtral | every layer MoE, `num_local_experts` experts of `intermediate_size`, replicated router, no shared expert |
//! | Llama-4 | layer `i` is MoE iff `(i + 1) % interleave_moe_layer_step == 0` (`llama4.py` `_is_moe_layer`): routed experts of `intermediate_size`, one shared expert of `intermediate_size`, replicated router; other layers dense MLP of `intermediate_size_mlp`; q/k L2 norm without weights; vision tower (below) |
//!
//! Llama-4's vision tower (`mllama4.py`): `Llama4UnfoldConvolution` (3·p² → hidden, no bias,
//! column-parallel), class embedding, position table of `(image_size / patch)² + 1` rows, pre/post
//! LayerNorms, encoder blocks (qkv/o with bias, MLP with bias, two LayerNorms), the pixel-shuffle MLP
//! (`intermediate_size → projector_input_dim → projector_output_dim`, no bias) and the projector
//! (`vision_output_dim → text hidden`, no bias).

use super::config::SlidingPattern;
use super::hybrid::Mixer;
use super::piece::{Fmt, Piece};
use super::{Architecture, ModelConfig, ModelError, VisionFamily, VisionTower, invalid};

/// Gemma-3's `sliding_window_pattern` when the config omits it (HF `Gemma3TextConfig` default).
const GEMMA3_DEFAULT_PATTERN: u64 = 6;
/// Gemma-3's vocabulary when `text_config` omits it (HF `Gemma3TextConfig` default `vocab_size`; the
/// published gemma-3-27b-it `config.json` relies on it).
pub(crate) const GEMMA3_DEFAULT_VOCAB: u64 = 262_208;
/// Gemma-3's `head_dim` when `text_config` omits it (HF `Gemma3TextConfig` default `head_dim = 256`;
/// the published gemma-3-12b-it `config.json` relies on it).
pub(crate) const GEMMA3_DEFAULT_HEAD_DIM: u64 = 256;
/// Gemma-3's `max_position_embeddings` default (HF `Gemma3TextConfig`).
pub(crate) const GEMMA3_DEFAULT_CONTEXT: u64 = 131_072;
/// Cohere2's `sliding_window_pattern` when the config omits it (HF `Cohere2Config` default).
const COHERE2_DEFAULT_PATTERN: u64 = 4;
/// Llama-4: every 4th layer is global NoPE attention (hard-coded in SGLang, see the module table).
const LLAMA4_GLOBAL_EVERY: u64 = 4;

/// Context tokens of one sequence whose KV a decode step of a layer with this mixer reads, with `ctx`
/// tokens of context: a sliding layer at most `window` (the last ones); a chunked layer the tokens of
/// the current chunk, `ctx − ⌊(ctx − 1) / chunk⌋ × chunk` (1 … chunk); other layers all `ctx`.
/// Gemma-3 (window 1024) at 8192: 1024. Llama-4 (chunk 8192) at 8192: 8192; at 8193: 1; at 33,000: 232.
pub fn local_kv_tokens(mixer: Mixer, window: Option<u64>, ctx: u64) -> u64 {
    match (mixer, window) {
        (Mixer::SlidingAttention, Some(w)) => ctx.min(w),
        (Mixer::ChunkedAttention, Some(c)) if c > 0 && ctx > 0 => ctx - (ctx - 1) / c * c,
        // A DeepSeek sparse-attention layer (DSA: DeepSeek-V3.2, GLM-5) attends to its `index_topk`
        // selected tokens, passed as the window (`llm::dsa`).
        (Mixer::Attention, Some(k)) => ctx.min(k),
        _ => ctx,
    }
}

/// Each layer's mixer and the window / chunk the local ones use.
pub(crate) type LocalLayout = (Vec<Mixer>, Option<u64>, Option<u64>);

/// Each layer's mixer and the window/chunk the local ones use (table above). Returns
/// `(mixers, sliding_window, attention_chunk_size)`.
pub(crate) fn mixers(
    arch: Architecture,
    text: &ModelConfig,
    num_layers: u64,
    an: &str,
) -> Result<LocalLayout, ModelError> {
    let n = num_layers as usize;
    let window = text.sliding_window.filter(|&w| w > 0);
    let chunk = text.attention_chunk_size.filter(|&c| c > 0);
    if let Some(types) = &text.layer_types {
        if types.len() != n {
            return Err(invalid(
                "layer_types",
                format!("{} entries", types.len()),
                format!("one entry per layer (num_hidden_layers = {num_layers})"),
            ));
        }
        let ms = types
            .iter()
            .map(|t| match t.as_str() {
                "full_attention" => Ok(Mixer::Attention),
                "sliding_attention" => Ok(Mixer::SlidingAttention),
                "chunked_attention" => Ok(Mixer::ChunkedAttention),
                other => Err(invalid(
                    "layer_types",
                    format!("\"{other}\""),
                    "\"sliding_attention\", \"chunked_attention\" or \"full_attention\"".into(),
                )),
            })
            .collect::<Result<Vec<_>, _>>()?;
        let need = |m: Mixer, v: Option<u64>, field: &str| -> Result<(), ModelError> {
            if ms.contains(&m) && v.is_none() {
                return Err(ModelError::MissingField {
                    field: field.into(),
                    architecture: an.into(),
                });
            }
            Ok(())
        };
        need(Mixer::SlidingAttention, window, "sliding_window")?;
        need(Mixer::ChunkedAttention, chunk, "attention_chunk_size")?;
        return Ok((ms, window, chunk));
    }
    let by = |f: &dyn Fn(u64) -> Mixer| (0..num_layers).map(f).collect::<Vec<_>>();
    Ok(match arch {
        Architecture::Gemma2 | Architecture::GptOss => {
            let w = window.ok_or_else(|| ModelError::MissingField {
                field: "sliding_window".into(),
                architecture: an.into(),
            })?;
            (
                by(&|i| {
                    if i.is_multiple_of(2) {
                        Mixer::SlidingAttention
                    } else {
                        Mixer::Attention
                    }
                }),
                Some(w),
                None,
            )
        }
        // families5 (issue #17): an EXAONE 4 config without `layer_types` or `sliding_window` has no
        // sliding layer (transformers 4.57.3 `Exaone4Config`: no window, pattern 0).
        Architecture::Exaone4 if window.is_none() => (vec![Mixer::Attention; n], None, None),
        Architecture::Gemma3 | Architecture::Cohere2 | Architecture::Exaone4 => {
            let w = window.ok_or_else(|| ModelError::MissingField {
                field: "sliding_window".into(),
                architecture: an.into(),
            })?;
            let default = match arch {
                Architecture::Cohere2 => COHERE2_DEFAULT_PATTERN,
                Architecture::Exaone4 => super::exaone4::DEFAULT_PATTERN,
                _ => GEMMA3_DEFAULT_PATTERN,
            };
            let p = match &text.sliding_window_pattern {
                None => default,
                Some(SlidingPattern::Period(p)) => *p,
                // families5 (issue #17): EXAONE 4's letters count the period (SGLang 0.5.9
                // `exaone4.py` `len(self.sliding_window_pattern)`); Gemma-3 and Cohere2 take a number.
                Some(SlidingPattern::Letters(l)) if arch == Architecture::Exaone4 => l.chars().count() as u64,
                Some(SlidingPattern::Letters(l)) => {
                    return Err(invalid(
                        "sliding_window_pattern",
                        format!("\"{l}\""),
                        "a positive layer period (an integer)".into(),
                    ));
                }
            };
            if p == 0 {
                return Err(invalid(
                    "sliding_window_pattern",
                    "0".into(),
                    "a positive layer period".into(),
                ));
            }
            (
                by(&|i| {
                    if (i + 1).is_multiple_of(p) {
                        Mixer::Attention
                    } else {
                        Mixer::SlidingAttention
                    }
                }),
                Some(w),
                None,
            )
        }
        // families13 (issue #17): StarCoder2 as vLLM 0.19.0 builds it (`llm::starcoder2`).
        Architecture::Mistral | Architecture::Mixtral | Architecture::Starcoder2 if window.is_some() => {
            (vec![Mixer::SlidingAttention; n], window, None)
        }
        Architecture::Llama4 if chunk.is_some() => (
            by(&|i| {
                if (i + 1).is_multiple_of(LLAMA4_GLOBAL_EVERY) {
                    Mixer::Attention
                } else {
                    Mixer::ChunkedAttention
                }
            }),
            None,
            chunk,
        ),
        _ => (vec![Mixer::Attention; n], None, None),
    })
}

/// Llama-4's NoPE layers (no rotary embedding): from `no_rope_layers` when given (HF convention: one
/// flag per layer, 0 = NoPE), else every 4th layer (`(i + 1) % 4 == 0`, SGLang `llama4.py`). Other
/// families: none.
pub(crate) fn nope_layers(
    arch: Architecture,
    text: &ModelConfig,
    num_layers: u64,
) -> Result<Vec<u32>, ModelError> {
    if arch != Architecture::Llama4 {
        return Ok(Vec::new());
    }
    if let Some(flags) = &text.no_rope_layers {
        if flags.len() as u64 != num_layers {
            return Err(invalid(
                "no_rope_layers",
                format!("{} entries", flags.len()),
                format!("one 0/1 flag per layer (num_hidden_layers = {num_layers})"),
            ));
        }
        return Ok(flags
            .iter()
            .enumerate()
            .filter(|(_, f)| **f == 0)
            .map(|(i, _)| i as u32)
            .collect());
    }
    Ok((0..num_layers)
        .filter(|i| (i + 1).is_multiple_of(LLAMA4_GLOBAL_EVERY))
        .map(|i| i as u32)
        .collect())
}

/// The vision tower of Gemma-3 (SigLIP) or Llama-4, sized from `vision_config`; every size it needs
/// is required by name.
pub(crate) fn vision_tower(
    arch: Architecture,
    v: Option<&serde_json::Value>,
    text_hidden: u64,
    an: &str,
) -> Result<VisionTower, ModelError> {
    let v = v.ok_or_else(|| ModelError::MissingField {
        field: "vision_config".into(),
        architecture: an.into(),
    })?;
    let get = |k: &str| -> Result<u64, ModelError> {
        match v.get(k).and_then(serde_json::Value::as_u64) {
            Some(x) if x > 0 && x <= 1 << 20 => Ok(x),
            Some(x) => Err(invalid(
                &format!("vision_config.{k}"),
                x.to_string(),
                "a positive integer no larger than 1048576".into(),
            )),
            None => Err(ModelError::MissingField {
                field: format!("vision_config.{k}"),
                architecture: an.into(),
            }),
        }
    };
    let layers = get("num_hidden_layers")?;
    let hidden = get("hidden_size")?;
    let patch = get("patch_size")?;
    let image = get("image_size")?;
    if layers > 1024 || patch > image {
        return Err(invalid(
            "vision_config",
            format!("{layers} layers, patch {patch}, image {image}"),
            "at most 1024 layers and a patch no larger than the image".into(),
        ));
    }
    let side = image / patch;
    let (kind, pos, merge, proj_in, proj_mid) = if arch == Architecture::Llama4 {
        // Position table: (image / patch)² + 1 rows (`mllama4.py` `num_patches`).
        (
            VisionFamily::Llama4,
            side * side + 1,
            1,
            get("projector_input_dim")?,
            get("vision_output_dim")?,
        )
    } else {
        (VisionFamily::Siglip, side * side, 1, 0, 0)
    };
    Ok(VisionTower {
        pos_emb_cells: pos,
        merge,
        // The projectors of these two towers are sized by `vision_pieces` below, not by the flag.
        projector_bias: false,
        projector_input: proj_in,
        projector_output: proj_mid,
        // SGLang's fraction dims are the tower's own: `adjust_mem_fraction_for_vlm` reads
        // vision_config.num_hidden_layers / hidden_size.
        ..VisionTower::encoder(
            kind,
            layers,
            hidden,
            get("intermediate_size")?,
            get("num_attention_heads")?,
            patch,
            text_hidden,
        )
    })
}

/// Vision pieces per rank for the SigLIP (Gemma-3) and Llama-4 towers (module table), at model dtype.
pub(crate) fn vision_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i) = (v.hidden, v.intermediate);
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // qkv (column-parallel by heads)
        ps.push(Piece::vec(3 * h / t)); // its bias
        ps.push(Piece::new(h, h / t, Fmt::Model)); // out proj (row-parallel)
        ps.push(Piece::vec(h)); // its bias
        ps.push(Piece::new(i / t, h, Fmt::Model)); // fc1 (column-parallel)
        ps.push(Piece::vec(i / t));
        ps.push(Piece::new(h, i / t, Fmt::Model)); // fc2 (row-parallel)
        ps.push(Piece::vec(h));
        ps.push(Piece::vec(4 * h)); // two LayerNorms, weight + bias
    }
    // Position table: SigLIP's is a `VocabParallelEmbedding` (rows padded to 64, split by tp,
    // `siglip.py`); Llama-4's a plain parameter (replicated).
    let pos_rows = match v.family {
        VisionFamily::Llama4 => v.pos_emb_cells,
        // Only SigLIP and Llama-4 towers reach here (`weights.rs`); the others have their own pieces.
        _ => v.pos_emb_cells.div_ceil(64) * 64 / t,
    };
    ps.push(Piece::new(pos_rows, h, Fmt::Model));
    ps.push(Piece::vec(2 * h)); // post LayerNorm
    match v.family {
        VisionFamily::Llama4 => {
            // Unfold "convolution" (column-parallel, no bias), class embedding, pre LayerNorm.
            ps.push(Piece::new(h / t, 3 * v.patch * v.patch, Fmt::Model));
            ps.push(Piece::vec(h));
            ps.push(Piece::vec(2 * h));
            // Pixel-shuffle MLP: intermediate → projector_input → projector_output (column / row).
            ps.push(Piece::new(v.projector_input / t, i, Fmt::Model));
            ps.push(Piece::new(v.projector_output, v.projector_input / t, Fmt::Model));
            // Projector vision_output_dim → text hidden, replicated.
            ps.push(Piece::new(v.text_hidden, v.projector_output, Fmt::Model));
        }
        _ => {
            // Patch conv (3 × p × p → hidden, with bias), replicated.
            ps.push(Piece::new(h, 3 * v.patch * v.patch, Fmt::Model));
            ps.push(Piece::vec(h));
            // Gemma-3 projector: soft-embedding RMSNorm and the (vision × text) projection.
            ps.push(Piece::vec(h));
            ps.push(Piece::new(h, v.text_hidden, Fmt::Model));
        }
    }
    ps
}

#[cfg(test)]
mod tests {
    use super::{Mixer, local_kv_tokens};

    #[test]
    fn local_reads_are_bounded() {
        assert_eq!(local_kv_tokens(Mixer::SlidingAttention, Some(1024), 8192), 1024);
        assert_eq!(local_kv_tokens(Mixer::SlidingAttention, Some(1024), 100), 100);
        assert_eq!(local_kv_tokens(Mixer::ChunkedAttention, Some(8192), 8192), 8192);
        assert_eq!(local_kv_tokens(Mixer::ChunkedAttention, Some(8192), 8193), 1);
        // 33,000 − ⌊32,999 / 8192⌋ × 8192 = 33,000 − 4 × 8192 = 232.
        assert_eq!(local_kv_tokens(Mixer::ChunkedAttention, Some(8192), 33_000), 232);
        assert_eq!(local_kv_tokens(Mixer::Attention, None, 33_000), 33_000);
        for ctx in 0..40_000 {
            assert!(local_kv_tokens(Mixer::ChunkedAttention, Some(8192), ctx) <= 8192);
            assert!(local_kv_tokens(Mixer::SlidingAttention, Some(1024), ctx) <= 1024);
        }
    }
}
