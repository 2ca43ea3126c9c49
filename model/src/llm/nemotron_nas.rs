//! Llama-Nemotron "NAS" models (`DeciLMForCausalLM`, `model_type` `nemotron-nas`; helper families6,
//! issue #17): Llama-3.3-Nemotron-Super-49B v1/v1.5, Llama-3.1-Nemotron-Ultra-253B. Each decoder
//! layer is a Llama layer whose attention and feed-forward the config's `block_configs` set one by
//! one. Sources: SGLang 0.5.9 `python/sglang/srt/models/nemotron_nas.py` and
//! `configs/model_config.py`, vLLM 0.19.0 `vllm/model_executor/models/nemotron_nas.py`,
//! `transformers_utils/model_arch_config_convertor.py` and `v1/core/kv_cache_utils.py` (all read from
//! the released wheels; SGLang 0.5.2 and vLLM 0.11.0 ship the same model file).
//!
//! | block key | what both engines build | per rank |
//! |---|---|---|
//! | `attention.no_op = false`, `n_heads_in_group = g` | `input_layernorm` + Llama attention with `num_attention_heads / g` KV heads | the generic GQA pieces and one norm |
//! | `attention.no_op = true` | nothing: no norm, no attention, no KV, no all-reduce | — |
//! | `ffn.no_op = false`, `ffn_mult = m` | `post_attention_layernorm` + `LlamaMLP` of `_ffn_mult_to_intermediate_size(m, hidden)` | the generic dense MLP pieces and one norm |
//! | `ffn.no_op = true` | nothing | — |
//! | `replace_with_linear = true` (attention or FFN) | neither engine reads the key: refused here | — |
//!
//! The intermediate width is `int(2 × ffn_mult × hidden / 3)` rounded up to a multiple of 256
//! (`_ffn_mult_to_intermediate_size` / `_find_multiple`, both engines): Super's `ffn_mult` 5.25 at
//! hidden 8,192 → 28,672; 1.3125 → 7,168; 0.5 → 2,730 → 2,816.
//!
//! KV cache. vLLM registers one attention layer per attention block and none for a no-op block
//! (`get_num_layers_by_block_type` counts `not bc.attention.no_op` for `HasNoOps` models), so its
//! cell spans the attention blocks only (Super: 49 of 80). SGLang's pool is sized by
//! `num_effective_layers` (`model_runner.py`: `max(num_hidden_layers, num_attention_layers)`;
//! `model_runner_kv_cache_mixin.py` `get_cell_size_per_token(num_layers)`): every decoder layer,
//! no-op ones included (Super: 80), one KV head count for all (`get_total_num_kv_heads`). Variable
//! KV heads across blocks ("VGQA") are refused: SGLang raises "Variable GQA (VGQA) is not yet
//! supported for nemotron-nas in sglang"; vLLM 0.19 runs them (one `UniformTypeKVCacheSpecs` group of
//! per-layer page sizes) but tpsim's lowering has one KV head count, so it says it does not model them.

use super::config::ModelConfig;
use super::piece::Piece;
use super::{Ffn, Mixer, ModelError, ModelSpec};

/// The block structure of a `DeciLMForCausalLM` config.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Blocks {
    /// Per layer: [`Mixer::Attention`], or [`Mixer::Absent`] for `attention.no_op`.
    pub mixers: Vec<Mixer>,
    /// Per layer: [`Ffn::Dense`] of the `ffn_mult` width, or [`Ffn::Absent`] for `ffn.no_op`.
    pub layers: Vec<Ffn>,
    /// KV heads of every attention block (one count: see the module note on VGQA).
    pub kv_heads: u64,
    /// The widest MLP (vLLM's profile peak uses the dense MLP width: the widest layer's is the peak).
    pub widest: u64,
}

/// `_ffn_mult_to_intermediate_size(ffn_mult, n_embd)` of both engines' `nemotron_nas.py`:
/// `int(2 * ffn_mult * n_embd / 3)` (float arithmetic, truncated), then `_find_multiple(…, 256)`.
pub(crate) fn ffn_mult_to_intermediate(ffn_mult: f64, hidden: u64) -> u64 {
    let raw = (2.0 * ffn_mult * hidden as f64 / 3.0).trunc() as u64;
    // Saturating: a huge `ffn_mult` casts to u64::MAX (cfgfuzz: the multiply overflowed); the
    // caller refuses any width past 2^20.
    raw.div_ceil(256).saturating_mul(256)
}

fn invalid(field: String, value: String, expected: &str) -> ModelError {
    ModelError::InvalidField {
        field,
        value,
        expected: expected.into(),
    }
}

/// Reads `block_configs` (one entry per decoder layer; both engines index it by layer id).
pub(crate) fn blocks(
    text: &ModelConfig,
    hidden: u64,
    heads: u64,
    num_layers: u64,
    an: &str,
) -> Result<Blocks, ModelError> {
    let list = match text.block_configs.as_ref() {
        None | Some(serde_json::Value::Null) => {
            return Err(ModelError::MissingField {
                field: "block_configs".into(),
                architecture: an.into(),
            });
        }
        Some(v) => v.as_array().ok_or_else(|| {
            invalid(
                "block_configs".into(),
                "(not a list)".into(),
                "a list of {\"attention\": {…}, \"ffn\": {…}} objects, one per decoder layer",
            )
        })?,
    };
    if list.len() as u64 != num_layers {
        return Err(invalid(
            "block_configs".into(),
            format!("{} entries", list.len()),
            &format!("one entry per decoder layer: num_hidden_layers = {num_layers}"),
        ));
    }
    let mut out = Blocks {
        mixers: Vec::with_capacity(list.len()),
        layers: Vec::with_capacity(list.len()),
        kv_heads: 0,
        widest: 0,
    };
    let mut kv_counts: Vec<u64> = Vec::new();
    for (i, b) in list.iter().enumerate() {
        let part = |key: &str| b.get(key).filter(|v| v.is_object());
        let flag = |obj: Option<&serde_json::Value>, key: &str| {
            obj.and_then(|o| o.get(key)).and_then(serde_json::Value::as_bool) == Some(true)
        };
        let (attn, ffn) = (part("attention"), part("ffn"));
        if attn.is_none() || ffn.is_none() {
            return Err(invalid(
                format!("block_configs[{i}]"),
                b.to_string(),
                "an object with \"attention\" and \"ffn\" objects",
            ));
        }
        for (what, obj) in [("attention", attn), ("ffn", ffn)] {
            if flag(obj, "replace_with_linear") {
                return Err(invalid(
                    format!("block_configs[{i}].{what}.replace_with_linear"),
                    "true".into(),
                    "false: neither SGLang 0.5.9 nor vLLM 0.19.0 `nemotron_nas.py` builds a linear replacement \
                     (they read only `no_op`), so the checkpoint's layer cannot load",
                ));
            }
        }
        if flag(attn, "no_op") {
            out.mixers.push(Mixer::Absent);
        } else {
            let g = attn
                .and_then(|o| o.get("n_heads_in_group"))
                .and_then(serde_json::Value::as_u64)
                .filter(|&g| g > 0 && heads.is_multiple_of(g));
            let Some(g) = g else {
                return Err(invalid(
                    format!("block_configs[{i}].attention.n_heads_in_group"),
                    attn.and_then(|o| o.get("n_heads_in_group"))
                        .map_or("(absent)".into(), |v| v.to_string()),
                    &format!("a positive divisor of num_attention_heads ({heads}) for an attention block"),
                ));
            };
            kv_counts.push(heads / g);
            out.mixers.push(Mixer::Attention);
        }
        if flag(ffn, "no_op") {
            out.layers.push(Ffn::Absent);
        } else {
            let m = ffn
                .and_then(|o| o.get("ffn_mult"))
                .and_then(serde_json::Value::as_f64);
            let width = m
                .filter(|m| m.is_finite() && *m > 0.0)
                .map(|m| ffn_mult_to_intermediate(m, hidden))
                .filter(|&w| w > 0 && w <= 1 << 20);
            let Some(width) = width else {
                return Err(invalid(
                    format!("block_configs[{i}].ffn.ffn_mult"),
                    ffn.and_then(|o| o.get("ffn_mult"))
                        .map_or("(absent)".into(), |v| v.to_string()),
                    "a positive number whose MLP width int(2 × ffn_mult × hidden / 3), rounded up to 256, \
                     is at most 1,048,576 (SGLang 0.5.9 reads only `ffn_mult`)",
                ));
            };
            out.widest = out.widest.max(width);
            out.layers.push(Ffn::Dense { intermediate: width });
        }
    }
    kv_counts.sort_unstable();
    kv_counts.dedup();
    match kv_counts.as_slice() {
        [] => Err(invalid(
            "block_configs".into(),
            "(every attention block no_op)".into(),
            "at least one attention block: SGLang 0.5.9 raises \"Couldn't determine number of kv heads\", \
             vLLM 0.19.0 \"Could not determine the number of key-value attention heads\"",
        )),
        [kv] => {
            out.kv_heads = *kv;
            Ok(out)
        }
        more => Err(invalid(
            "block_configs[*].attention.n_heads_in_group".into(),
            format!("KV head counts {more:?}"),
            "one KV head count over all attention blocks: SGLang 0.5.9 raises \"Variable GQA (VGQA) is not yet \
             supported for nemotron-nas in sglang\"; vLLM 0.19.0 runs it with per-layer KV pages, which tpsim \
             does not model",
        )),
    }
}

/// The attention half's pieces of layer `i`: an attention block keeps the generic GQA pieces with
/// their two norm vectors (`input_layernorm`, `post_attention_layernorm`) when its FFN is present and
/// one of them when not; a no-op attention block holds only the FFN's `post_attention_layernorm`
/// (or nothing when the FFN is a no-op too).
pub(crate) fn attention_half(mixer: Option<&Mixer>, ffn: &Ffn, generic: &[Piece], hidden: u64) -> Vec<Piece> {
    let ffn_present = !matches!(ffn, Ffn::Absent);
    match (mixer, ffn_present) {
        (Some(Mixer::Absent), true) => vec![Piece::vec(hidden)],
        (Some(Mixer::Absent), false) => Vec::new(),
        // The generic pieces open with the two norm vectors (`ModelSpec::attention_pieces`).
        (_, false) => generic.iter().skip(1).copied().collect(),
        (_, true) => generic.to_vec(),
    }
}

impl ModelSpec {
    /// Decoder layers whose KV SGLang's pool holds: every decoder layer for `DeciLMForCausalLM`
    /// (SGLang sizes the pool by `num_effective_layers`, no-op attention blocks included; see the
    /// module note), else the KV-holding layers ([`ModelSpec::kv_layers`]).
    pub fn sglang_pool_layers(&self) -> u32 {
        if self.arch == super::Architecture::NemotronNas {
            self.num_layers
        } else {
            self.kv_layers()
        }
    }

    /// SGLang's KV cell per token on one rank at `tp`: [`ModelSpec::kv_cell_bytes`] over
    /// [`ModelSpec::sglang_pool_layers`] instead of the KV-holding layers (equal for every model but
    /// `DeciLMForCausalLM`).
    pub fn sglang_kv_cell_bytes(&self, cell: u64) -> u64 {
        let kv = u64::from(self.kv_layers().max(1));
        let pool = u64::from(self.sglang_pool_layers());
        if pool == kv { cell } else { cell / kv * pool }
    }
}
