//! families41 (issue #17): Qwen3-Omni MoE (`Qwen3OmniMoeForConditionalGeneration`) as SGLang serves it:
//! the thinker only. SGLang 0.5.9 `models/qwen3_omni_moe.py` (the 0.5.4 wheel is the first with the
//! file; 0.5.3.post3 has none) builds `Qwen3OmniMoeThinkerForConditionalGeneration`, a
//! `Qwen3VLMoeForConditionalGeneration` (the Qwen3-MoE text model of `thinker_config.text_config`
//! and the Qwen3-VL vision tower of `thinker_config.vision_config`, `llm::vlm::qwen3_vit`) plus the
//! audio encoder below, and `load_weights` skips every `talker.` / `code2wav.` tensor
//! (`enable_talker = False`): the talker and the code-to-waveform decoder are never built. Per decode
//! token only the text model runs; the vision and audio encoders run at prefill.
//!
//! The audio encoder (`Qwen3OmniMoeAudioEncoder`, keys of `thinker_config.audio_config`) per rank at
//! tp `t`, d = `d_model`, f = `encoder_ffn_dim`, c = `downsample_hidden_size`:
//!
//! | part | shape | sharding |
//! |---|---|---|
//! | per layer `self_attn` (`VisionAttention`, `use_qkv_parallel=True`) | qkv 3d/t × d + bias 3d/t, proj d × d/t + bias d | by the attention tp |
//! | per layer `self_attn_layer_norm`, `final_layer_norm` | LayerNorm, 2 × 2d | replicated |
//! | per layer `fc1`, `fc2` (`nn.Linear`) | f × d + f, d × f + d | replicated |
//! | `conv2d1`, `conv2d2`, `conv2d3` (3 × 3, stride 2) | c × 1 × 9 + c, 2 × (c × c × 9 + c) | replicated |
//! | `conv_out` | d × c · ⌈⌈⌈mel / 2⌉ / 2⌉ / 2⌉, no bias | replicated |
//! | `proj1`, `proj2`, `ln_post` | d × d + d, out × d + out, 2d | replicated |
//! | `positional_embedding` (`SinusoidsPositionEmbedding` buffer) | `max_source_positions` × d, float32 | replicated |
//!
//! `VisionAttention` divides the heads by the attention tp (`dist_utils.divide`, an `AssertionError`
//! "20 is not divisible by 8" for the published 20 heads at tp 8): `audio_heads_divide` is that check.
//! SGLang 0.5.4 – 0.5.x builds the vision merger's `ln_q` as an RMSNorm (weight only) where 0.5.9 has
//! a LayerNorm (weight and bias): the bias (1,152 + 3 × 4,608 elements) is counted for every release.

use super::ModelError;
use super::piece::{Fmt, Piece};
use super::vlm::need;

/// The architecture name `llm::config` lowers as a Qwen3-VL-MoE model with this audio encoder.
pub const QWEN3_OMNI: &str = "Qwen3OmniMoeForConditionalGeneration";

/// Qwen3-Omni's audio encoder, sized from `thinker_config.audio_config` (all widths in elements).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct AudioTower {
    /// Encoder layers (`encoder_layers`).
    pub layers: u64,
    /// Encoder width (`d_model`).
    pub d_model: u64,
    /// Encoder MLP width (`encoder_ffn_dim`).
    pub ffn: u64,
    /// Attention heads (`encoder_attention_heads`), divided by the attention tp.
    pub heads: u64,
    /// Mel bins of the input (`num_mel_bins`).
    pub mel_bins: u64,
    /// Channels of the three stride-2 convolutions (`downsample_hidden_size`).
    pub conv_channels: u64,
    /// Width `proj2` maps to (`output_dim`, the text width).
    pub output_dim: u64,
    /// Rows of the float32 sinusoid buffer (`max_source_positions`).
    pub positions: u64,
}

/// The audio encoder of `audio_config` (`None`: the key is required for this architecture).
pub(crate) fn audio_tower(a: Option<&serde_json::Value>) -> Result<AudioTower, ModelError> {
    let a = a.ok_or_else(|| ModelError::MissingField {
        field: "thinker_config.audio_config".into(),
        architecture: QWEN3_OMNI.into(),
    })?;
    let k = |key: &str| need(a, key, QWEN3_OMNI);
    Ok(AudioTower {
        layers: k("encoder_layers")?,
        d_model: k("d_model")?,
        ffn: k("encoder_ffn_dim")?,
        heads: k("encoder_attention_heads")?,
        mel_bins: k("num_mel_bins")?,
        conv_channels: k("downsample_hidden_size")?,
        output_dim: k("output_dim")?,
        positions: k("max_source_positions")?,
    })
}

/// The audio encoder's pieces on one rank at tp `t` (sharding in the module docs).
pub(crate) fn audio_pieces(a: &AudioTower, t: u64) -> Vec<Piece> {
    let (d, f, c) = (a.d_model, a.ffn, a.conv_channels);
    let mut ps = Vec::new();
    for _ in 0..a.layers {
        ps.push(Piece::vec(4 * d)); // self_attn_layer_norm, final_layer_norm (weight + bias)
        ps.push(Piece::new(3 * d / t, d, Fmt::Model)); // self_attn.qkv_proj
        ps.push(Piece::vec(3 * d / t));
        ps.push(Piece::new(d, d / t, Fmt::Model)); // self_attn.proj
        ps.push(Piece::vec(d));
        ps.push(Piece::new(f, d, Fmt::Model)); // fc1
        ps.push(Piece::vec(f));
        ps.push(Piece::new(d, f, Fmt::Model)); // fc2
        ps.push(Piece::vec(d));
    }
    // conv2d1 (1 input plane), conv2d2, conv2d3: 3 × 3 kernels with bias.
    ps.push(Piece::new(c, 9, Fmt::Model));
    ps.push(Piece::vec(c));
    for _ in 0..2 {
        ps.push(Piece::new(c, c * 9, Fmt::Model));
        ps.push(Piece::vec(c));
    }
    // conv_out reads the channels times the mel axis after three stride-2 convolutions.
    let mel = a.mel_bins.div_ceil(2).div_ceil(2).div_ceil(2);
    ps.push(Piece::new(d, c * mel, Fmt::Model));
    ps.push(Piece::new(d, d, Fmt::Model)); // proj1
    ps.push(Piece::vec(d));
    ps.push(Piece::new(a.output_dim, d, Fmt::Model)); // proj2
    ps.push(Piece::vec(a.output_dim));
    ps.push(Piece::vec(2 * d)); // ln_post
    ps.push(Piece::new(a.positions, d, Fmt::Fp32)); // positional_embedding buffer
    ps
}

/// SGLang's check that the attention tp divides the audio heads: `Some(message)` (its
/// `ensure_divisibility` text) when it does not.
pub fn audio_heads_divide(a: &AudioTower, tp: u64) -> Option<String> {
    (tp == 0 || !a.heads.is_multiple_of(tp)).then(|| format!("{} is not divisible by {tp}", a.heads))
}
