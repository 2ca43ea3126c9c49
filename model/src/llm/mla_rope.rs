//! rope51 (issue #17): the RoPE cos/sin cache SGLang builds for the DeepSeek-MLA families
//! (DeepSeek-V2/V3/R1/V3.2, Kimi-K2/K2.5, Kimi-VL, GLM-4.7-Flash, GLM-5), read from the
//! `sglang/srt/models/deepseek_v2.py`, `models/glm4_moe_lite.py`, `models/kimi_linear.py`,
//! `layers/attention/nsa/nsa_indexer.py` and `layers/rotary_embedding.py` of the 0.4.3, 0.4.6,
//! 0.5.3, 0.5.5, 0.5.6, 0.5.7, 0.5.8 and 0.5.9 wheels:
//!
//! - `DeepseekV2AttentionMLA.__init__` sets `rope_scaling["rope_type"] = "deepseek_yarn"` whenever
//!   the config has a `rope_scaling`, and asks `get_rope(qk_rope_head_dim, rotary_dim =
//!   qk_rope_head_dim, max_position = max_position_embeddings, …)`. `get_rope` builds a
//!   `DeepseekScalingRotaryEmbedding` with `max_position_embeddings =
//!   rope_scaling["original_max_position_embeddings"]`, whose `_compute_cos_sin_cache` spans
//!   `torch.arange(max_position_embeddings * scaling_factor)` rows: original × `factor` (DeepSeek-V3
//!   4,096 × 40 = 163,840; Kimi-K2.5 4,096 × 64 = 262,144), `qk_rope_head_dim` wide, float32 on CUDA
//!   (`RotaryEmbedding.__init__`, the rule of `rope_cache`). Without `rope_scaling` (GLM-4.7-Flash:
//!   `glm4_moe_lite.py` passes `rope_scaling = None`; GLM-5's `rope_parameters` of type `default`)
//!   it is a plain `RotaryEmbedding` of `max_position_embeddings` rows. The keys are looked up with
//!   `[]`: a scaling block without `factor` or `original_max_position_embeddings` is a KeyError,
//!   refused here naming the key.
//! - From **0.5.7** (not in 0.5.6) `DeepseekScalingRotaryEmbedding._compute_cos_sin_cache` also keeps
//!   `cos_cached_total` and `sin_cached_total`, `cos` / `sin` of `cat(freqs, freqs)` times `mscale`:
//!   two more float32 tensors of rows × `qk_rope_head_dim`, on the GPU (`device="cuda"`).
//! - `get_rope` caches instances by their arguments, so every layer (and the MTP layer) shares one.
//!   The DSA indexer (DeepSeek-V3.2, GLM-5) asks for its own rotary with `is_neox_style` True from
//!   0.5.6 to 0.5.8 (a second instance: the attention's is False), False up to 0.5.5 (shared), and in
//!   0.5.9 `not indexer_rope_interleave` (default False) against the attention's `not
//!   rope_interleave` (default True): GLM-5 (both True) shares, DeepSeek-V3.2 (neither key) does not.
//! - Kimi-Linear's MLA layers pass `skip_rope=True` (`kimi_linear.py`): no cache.
//!
//! MiniCPM3 (MLA with LongRoPE, `minicpm3.py`) builds `Phi3LongRoPEScaledRotaryEmbedding`, sized by
//! `rope_cache` as every LongRoPE model. vLLM's MLA caches (model dtype, the indexer's by release):
//! `rope_cache` (grok52).

use super::ModelError;
use super::config::ModelConfig;

/// The rows of SGLang's `DeepseekScalingRotaryEmbedding` cache for a DeepSeek-MLA config with a
/// `rope_scaling` block: `original_max_position_embeddings × factor` (`torch.arange` of a float end
/// has ⌈end⌉ elements); `None` without the block (a plain cache of `max_position_embeddings` rows).
pub(crate) fn deepseek_yarn_rows(text: &ModelConfig) -> Result<Option<u64>, ModelError> {
    let Some(rs) = text.rope_scaling.as_ref().and_then(|v| v.as_object()) else {
        return Ok(None);
    };
    let missing = |key: &str| {
        ModelError::MissingField {
        field: format!("rope_scaling.{key}"),
        architecture: "an MLA model with rope_scaling (SGLang deepseek_v2.py makes it deepseek_yarn; get_rope reads rope_scaling[\"factor\"] and rope_scaling[\"original_max_position_embeddings\"])"
            .into(),
    }
    };
    let factor = rs
        .get("factor")
        .and_then(serde_json::Value::as_f64)
        .ok_or_else(|| missing("factor"))?;
    let orig = rs
        .get("original_max_position_embeddings")
        .and_then(serde_json::Value::as_u64)
        .ok_or_else(|| missing("original_max_position_embeddings"))?;
    let rows = (orig as f64 * factor).ceil();
    if factor > 0.0 && rows >= 1.0 && rows <= (1u64 << 32) as f64 {
        Ok(Some(rows as u64))
    } else {
        Err(ModelError::InvalidField {
            field: "rope_scaling.factor".into(),
            value: factor.to_string(),
            expected: format!(
                "a positive factor giving 1 to 4294967296 cache rows with original_max_position_embeddings {orig}"
            ),
        })
    }
}

/// SGLang 0.5.9: whether the DSA indexer's rotary differs in `is_neox_style` from the attention's
/// (`not indexer_rope_interleave`, default False, against `not rope_interleave`, default True), so
/// that `get_rope` builds it a cache of its own (module doc).
pub(crate) fn indexer_rope_apart_0_5_9(text: &ModelConfig) -> bool {
    text.indexer_rope_interleave.unwrap_or(false) != text.rope_interleave.unwrap_or(true)
}
