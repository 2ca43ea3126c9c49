//! IBM Granite-4.0-H hybrids (`GraniteMoeHybridForCausalLM`: Granite-4.0-H-Micro 3B dense,
//! H-Tiny 7B-A1B, H-Small 32B-A9B; families, issue #17).
//!
//! Each of `num_hidden_layers` layers is a Llama-shaped pre-norm pair — a token mixer, then a
//! feed-forward — where `layer_types[i]` picks the mixer: `"mamba"` (a Mamba-2 mixer, the same
//! `MambaMixer2` as Nemotron-H's, reused from [`super::nemotron_h::Mamba2`]) or `"attention"` (GQA
//! without biases and, with `position_embedding_type = "nope"`, without RoPE). Every layer then has
//! the same feed-forward: a MoE of `num_local_experts` SwiGLU experts of `intermediate_size` (top
//! `num_experts_per_tok`, bias-free replicated router: `GraniteMoeMoE`) plus a shared SwiGLU MLP of
//! `shared_intermediate_size` (`GraniteMoeSharedMLP`: `input_linear` column-parallel with gate and
//! up, `output_linear` row-parallel); with no experts (H-Micro) the shared MLP alone is a dense
//! MLP. tpsim holds the shared MLP as [`super::MoeShape::n_shared_experts`] expert widths
//! (H-Tiny: 1,024 = 2 × 512), as for DeepSeek.
//!
//! Sources: SGLang `python/sglang/srt/models/granitemoehybrid.py`
//! (`GraniteMoeHybridMambaDecoderLayer`, `GraniteMoeHybridAttention`: `head_dim = hidden_size //
//! num_attention_heads`, KV heads replicated when tp > kv heads), `configs/granitemoehybrid.py`
//! (`mamba_intermediate_size = mamba_expand × hidden_size`, which must equal `mamba_d_head ×
//! mamba_n_heads`; `layer_types` entries `mamba` / `attention` only; `mamba_cache_params` =
//! `Mamba2StateShape.create` over the mamba layers); vLLM
//! `model_executor/models/granitemoehybrid.py` (the same layers; `MambaMixer2(intermediate_size =
//! mamba_expand × hidden_size, n_groups = mamba_n_groups, …)`).
//!
//! | piece (per layer, per rank) | shape | TP rule |
//! |---|---|---|
//! | `input_layernorm`, `post_attention_layernorm` | hidden each | replicated |
//! | Mamba-2 mixer (`"mamba"` layers) | as Nemotron-H's (`llm::nemotron_h`) | in_proj / out_proj column / row-parallel, conv1d at model dtype |
//! | attention q/k/v, o (`"attention"` layers) | GQA, head_dim = hidden / heads | as Llama |
//! | router `gate` | E × hidden | replicated |
//! | experts gate+up, down | E × (2 × I_e / tp × hidden + hidden × I_e / tp) | TP-MoE (`FusedMoE`) |
//! | `shared_mlp.input_linear`, `output_linear` | 2 × I_s / tp × hidden, hidden × I_s / tp | column / row-parallel |

use super::hybrid::Mixer;
use super::nemotron_h::{Mamba2, bounded, ssm_state_bytes};
use super::{Ffn, ModelConfig, ModelError, MoeShape};

/// The layers of a Granite-4.0-H model as [`super::config`] needs them.
pub(crate) struct Blocks {
    /// Each layer's token mixer.
    pub mixers: Vec<Mixer>,
    /// Each layer's feed-forward (the same block in every layer).
    pub layers: Vec<Ffn>,
    /// The Mamba-2 shape of the `"mamba"` layers.
    pub mamba2: Mamba2,
    /// The MoE shape, when `num_local_experts` > 0.
    pub moe: Option<MoeShape>,
    /// The dense MLP width (H-Micro: `shared_intermediate_size`), else 0.
    pub dense_intermediate: u64,
}

/// Each layer's mixer and feed-forward, and the Mamba-2 shape, from a Granite-4.0-H config.
///
/// Errors (the engines' own checks where they have one): no `layer_types`, a length other than
/// `num_hidden_layers`, an entry other than `mamba` / `attention` (SGLang `GraniteMoeHybridConfig`
/// raises ValueError for both); `mamba_d_head × mamba_n_heads ≠ mamba_expand × hidden_size` (the same
/// config's ValueError); a shared MLP that is not a whole number of expert widths (tpsim's MoE
/// shape); `mamba_proj_bias = true` (not lowered); `position_embedding_type` other than nope/rope.
pub(crate) fn blocks(
    text: &ModelConfig,
    hidden: u64,
    num_layers: u64,
    an: &str,
) -> Result<Blocks, ModelError> {
    let types = text
        .layer_types
        .as_ref()
        .ok_or_else(|| ModelError::MissingField {
            field: "layer_types".into(),
            architecture: an.into(),
        })?;
    if types.len() as u64 != num_layers {
        return Err(ModelError::InvalidField {
            field: "layer_types".into(),
            value: format!("{} entries", types.len()),
            expected: format!(
                "one entry per layer: num_hidden_layers = {num_layers} (SGLang GraniteMoeHybridConfig: \
                 \"layer_types must have length equal to num_hidden_layers\")"
            ),
        });
    }
    let mixers = types
        .iter()
        .map(|t| match t.as_str() {
            "mamba" => Ok(Mixer::Linear),
            "attention" => Ok(Mixer::Attention),
            other => Err(ModelError::InvalidField {
                field: "layer_types".into(),
                value: format!("\"{other}\""),
                expected: "\"mamba\" or \"attention\" (SGLang GraniteMoeHybridConfig)".into(),
            }),
        })
        .collect::<Result<Vec<_>, _>>()?;
    match text.position_embedding_type.as_deref() {
        None | Some("nope") | Some("rope") => {}
        Some(other) => {
            return Err(ModelError::InvalidField {
                field: "position_embedding_type".into(),
                value: format!("\"{other}\""),
                expected: "\"nope\" or \"rope\"".into(),
            });
        }
    }
    if text.mamba_proj_bias == Some(true) {
        return Err(ModelError::InvalidField {
            field: "mamba_proj_bias".into(),
            value: "true".into(),
            expected: "false: tpsim does not lower biased Mamba-2 in/out projections (every published \
                       Granite-4.0-H config says false)"
                .into(),
        });
    }
    let mamba2 = mamba2(text, hidden, an)?;
    let (layers, moe, dense_intermediate) = feed_forward(text, num_layers, an)?;
    Ok(Blocks {
        mixers,
        layers,
        mamba2,
        moe,
        dense_intermediate,
    })
}

/// The Mamba-2 shape. Defaults are `GraniteMoeHybridConfig`'s (SGLang `configs/granitemoehybrid.py`):
/// `mamba_d_state` 128, `mamba_d_conv` 4, `mamba_expand` 2, `mamba_d_head` 64, `mamba_n_heads` 64,
/// `mamba_n_groups` 1, `mamba_conv_bias` true.
fn mamba2(text: &ModelConfig, hidden: u64, an: &str) -> Result<Mamba2, ModelError> {
    let or = |v: Option<u64>, default: u64, field: &str| bounded(Some(v.unwrap_or(default)), field, an);
    let m = Mamba2 {
        num_heads: or(text.mamba_n_heads, 64, "mamba_n_heads")?,
        head_dim: or(text.mamba_d_head, 64, "mamba_d_head")?,
        n_groups: or(text.mamba_n_groups, 1, "mamba_n_groups")?,
        state_size: or(text.mamba_d_state, 128, "mamba_d_state")?,
        conv_kernel: or(text.mamba_d_conv, 4, "mamba_d_conv")?,
        conv_bias: text.mamba_conv_bias.unwrap_or(true),
        ssm_state_bytes: ssm_state_bytes(text)?,
        gated_norm: true,
    };
    let expand = or(text.mamba_expand, 2, "mamba_expand")?;
    if m.intermediate() != expand * hidden {
        return Err(ModelError::InvalidField {
            field: "mamba_d_head".into(),
            value: m.head_dim.to_string(),
            expected: format!(
                "mamba_d_head × mamba_n_heads = mamba_expand × hidden_size = {} (SGLang \
                 GraniteMoeHybridConfig: \"mamba_d_head ({}) * mamba_n_heads ({}) must equal \
                 mamba_intermediate_size ({})\")",
                expand * hidden,
                m.head_dim,
                m.num_heads,
                expand * hidden
            ),
        });
    }
    if !m.num_heads.is_multiple_of(m.n_groups) {
        return Err(ModelError::InvalidField {
            field: "mamba_n_groups".into(),
            value: m.n_groups.to_string(),
            expected: format!("a divisor of mamba_n_heads ({})", m.num_heads),
        });
    }
    Ok(m)
}

/// The feed-forward of every layer: MoE + shared MLP when `num_local_experts` > 0, else the shared
/// MLP alone as a dense SwiGLU MLP; the MoE shape and the dense width.
fn feed_forward(
    text: &ModelConfig,
    num_layers: u64,
    an: &str,
) -> Result<(Vec<Ffn>, Option<MoeShape>, u64), ModelError> {
    // `GraniteMoeHybridConfig` defaults: num_local_experts 0, shared_intermediate_size 8192.
    let e = text.num_local_experts.unwrap_or(0);
    let shared = text.shared_intermediate_size.unwrap_or(8192);
    if e == 0 {
        let width = bounded(Some(shared), "shared_intermediate_size", an)?;
        let ffn = Ffn::Dense { intermediate: width };
        return Ok(((0..num_layers).map(|_| ffn).collect(), None, width));
    }
    let e = bounded(Some(e), "num_local_experts", an)?;
    let k = bounded(text.num_experts_per_tok, "num_experts_per_tok", an)?;
    let inter = bounded(text.intermediate_size, "intermediate_size", an)?;
    let shape = super::config::moe_shape(
        (e, k, inter, shared),
        [
            "num_experts_per_tok",
            "intermediate_size",
            "shared_intermediate_size",
        ],
    )?;
    Ok(((0..num_layers).map(|_| Ffn::Moe(shape)).collect(), Some(shape), 0))
}

/// A `"mamba"` layer's pieces on one rank: the Mamba-2 mixer with its `input_layernorm` (the block
/// norm of [`Mamba2`]'s pieces) and the `post_attention_layernorm` before the feed-forward.
pub(crate) fn mamba_layer_pieces(m: &Mamba2, hidden: u64, tp: u32) -> Vec<super::piece::Piece> {
    let mut ps = m.pieces(hidden, tp);
    ps.push(super::piece::Piece::vec(hidden));
    ps
}
