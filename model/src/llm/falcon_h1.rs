//! TII Falcon-H1 (`FalconH1ForCausalLM`: Falcon-H1 0.5B, 1.5B, 1.5B-Deep, 3B, 7B, 34B and the
//! Falcon-H1R / Tiny variants; families20, issue #17).
//!
//! Each of `num_hidden_layers` layers runs a Mamba-2 mixer and a GQA attention side by side on the
//! same `input_layernorm` output, adds the two (each scaled by a muP multiplier), then a SwiGLU MLP
//! behind `pre_ff_layernorm`. The muP multipliers (`embedding_multiplier`, `key_multiplier`,
//! `ssm_multipliers`, `mlp_multipliers`, …) scale activations and change no size.
//!
//! tpsim lowers Falcon-H1 layer `i` as two blocks, as Nemotron-H's single-purpose blocks are lowered
//! (`llm::nemotron_h`): block `2i` is the Mamba-2 mixer ([`super::Mixer::Linear`], no feed-forward)
//! carrying `input_layernorm`; block `2i + 1` is the attention ([`super::Mixer::Attention`]) with
//! the MLP, carrying `pre_ff_layernorm`. So the model holds `num_hidden_layers` attention layers with
//! KV and `num_hidden_layers` Mamba-2 states per request, as both engines count them (SGLang 0.5.8
//! `configs/falcon_h1.py`: `full_attention_layer_ids` and `linear_layer_ids` are both every layer;
//! vLLM 0.19.0 `models/falcon_h1.py` `FalconH1ParallelHybrid` registers the mamba layer under index
//! `num_hidden_layers + i`, one KV-cache spec per attention and per mamba layer), and a decode step
//! all-reduces three times per layer as both engines do: vLLM's `o_proj`, `MambaMixer2.out_proj` and
//! `down_proj` are each a reducing `RowParallelLinear`; SGLang's `MambaMixer2.out_proj` reduces,
//! `o_proj` does not (`reduce_results=False`) and the layer communicator reduces the sum before
//! `pre_ff_layernorm`, then `down_proj` reduces.
//!
//! Sources: SGLang 0.5.8 wheel `sglang/srt/configs/falcon_h1.py` (`FalconH1Config`:
//! `mamba_intermediate = mamba_expand × hidden_size if mamba_d_ssm is None else mamba_d_ssm`, the
//! `mamba_n_heads` and head-dimension checks, `mamba2_cache_params` = `Mamba2StateShape.create` over
//! every layer), `sglang/srt/models/falcon_h1.py` (`FalconH1HybridAttentionDecoderLayer`,
//! `FalconH1MLP`), `sglang/srt/layers/attention/mamba/mamba.py` (`MambaMixer2`) and
//! `mixer2_rms_norm_gated.py` (the gated norm's weight only with `use_rms_norm`); vLLM 0.19.0 wheel
//! `vllm/model_executor/models/falcon_h1.py` (`FalconH1SSMDecoderLayer`: `MambaMixer2(intermediate_size
//! = d_ssm, use_rms_norm = mamba_rms_norm, use_bias = mamba_proj_bias, …)`,
//! `FalconH1AttentionDecoderLayer`: `head_dim` from the config else hidden / heads, q/k/v and o
//! without bias, RoPE; `get_mamba_state_shape_from_config` = `mamba2_state_shape(intermediate_size =
//! d_ssm, …)`, `get_mamba_state_dtype_from_config` = `mamba2_state_dtype(model dtype,
//! mamba_cache_dtype, mamba_ssm_cache_dtype)` with no per-model override).
//!
//! | piece (per layer, per rank) | shape | TP rule |
//! |---|---|---|
//! | `input_layernorm`, `pre_ff_layernorm` | hidden each | replicated |
//! | Mamba `in_proj` | (2·I + 2·G·N + H) / tp × hidden, I = `mamba_d_ssm` | column-parallel |
//! | Mamba `conv1d` (+ bias with `mamba_conv_bias`) | (I + 2·G·N) / tp × d_conv | model dtype |
//! | Mamba `A` (fp32), `D`, `dt_bias` | H / tp each | sharded by heads |
//! | Mamba gated norm (only with `mamba_rms_norm`) | I / tp | sharded |
//! | Mamba `out_proj` | hidden × I / tp | row-parallel |
//! | attention `qkv_proj`, `o_proj` | GQA with `head_dim` (KV heads replicated when tp > kv heads) | as Llama |
//! | MLP `gate_up_proj`, `down_proj` | 2 × I_mlp / tp × hidden, hidden × I_mlp / tp | column / row-parallel |
//!
//! Under SGLang (hybrid50, [`ModelSpec::serve_as_sglang`]) two more things are held: `q_norm` /
//! `k_norm` (`RMSNorm(head_dim)`) that no checkpoint loads and the forward never calls (2 × head_dim
//! per layer, 22,528 B for the 7B at bf16; [`ModelSpec::unused_qk_norms`]), and the LM head in
//! float32 (`self.lm_head = self.lm_head.float()` in `__init__`, 0.5.3 – 0.5.23 wheels: 2 B more an
//! element, 399,507,456 B more a rank for the 7B at tp 2; [`ModelSpec::lm_head_fp32`]). The cast runs
//! at construction; the bf16 tensor it replaces is freed before SGLang measures the weights
//! (`get_available_gpu_memory` empties the cache), so only the float32 copy stays.

use super::hybrid::Mixer;
use super::nemotron_h::{Mamba2, bounded, ssm_state_bytes};
use super::piece::Piece;
use super::{Ffn, ModelConfig, ModelError, ModelSpec};

/// The blocks of a Falcon-H1 model as [`super::config`] needs them.
pub(crate) struct Blocks {
    /// Each block's token mixer: Mamba-2, attention, Mamba-2, attention, …
    pub mixers: Vec<Mixer>,
    /// Each block's feed-forward: none on the Mamba-2 blocks, the SwiGLU MLP on the attention ones.
    pub layers: Vec<Ffn>,
    /// The Mamba-2 shape.
    pub mamba2: Mamba2,
    /// `2 × num_hidden_layers`.
    pub blocks: u32,
}

/// The blocks and the Mamba-2 shape of a Falcon-H1 config (module doc).
///
/// Errors, each as the engines check it: `hidden_act` other than `silu` (SGLang / vLLM
/// `FalconH1MLP`: "Unsupported activation: … Only silu is supported for now."); `mamba_n_heads` not
/// dividing the Mamba width (SGLang `FalconH1Config`: "mamba_n_heads must divide mamba_expand *
/// hidden_size"); `mamba_d_head × mamba_n_heads` other than the width ("The dimensions for the Mamba
/// head state do not match the model intermediate_size"); `mamba_n_groups` not dividing the heads;
/// `mamba_proj_bias = true` (not lowered: every published config says false).
pub(crate) fn blocks(
    text: &ModelConfig,
    hidden: u64,
    num_layers: u64,
    intermediate: u64,
    an: &str,
) -> Result<Blocks, ModelError> {
    if let Some(act) = text.hidden_act.as_deref()
        && act != "silu"
    {
        return Err(ModelError::InvalidField {
            field: "hidden_act".into(),
            value: format!("\"{act}\""),
            expected: format!(
                "\"silu\" (SGLang / vLLM FalconH1MLP: \"Unsupported activation: {act}. Only silu is \
                 supported for now.\")"
            ),
        });
    }
    if text.mamba_proj_bias == Some(true) {
        return Err(ModelError::InvalidField {
            field: "mamba_proj_bias".into(),
            value: "true".into(),
            expected: "false: tpsim does not lower biased Mamba-2 in/out projections (every published \
                       Falcon-H1 config says false)"
                .into(),
        });
    }
    let or = |v: Option<u64>, default: u64, field: &str| bounded(Some(v.unwrap_or(default)), field, an);
    // `FalconH1Config` defaults (SGLang 0.5.8 `configs/falcon_h1.py`, HF `FalconH1Config`):
    // mamba_n_heads 128, mamba_n_groups 1, mamba_d_state 256, mamba_d_conv 4, mamba_expand 2,
    // mamba_conv_bias true, mamba_rms_norm false. The width is `mamba_d_ssm`, or `mamba_expand ×
    // hidden_size` when it is null (both engines' `mamba_d_ssm is None` branch); tpsim reads an absent
    // key as null (the config class's own default, 1024, is not taken: every published config
    // states the key).
    let width = match text.mamba_d_ssm {
        Some(d) => bounded(Some(d), "mamba_d_ssm", an)?,
        None => or(text.mamba_expand, 2, "mamba_expand")?.saturating_mul(hidden),
    };
    let num_heads = or(text.mamba_n_heads, 128, "mamba_n_heads")?;
    if !width.is_multiple_of(num_heads) {
        return Err(ModelError::InvalidField {
            field: "mamba_n_heads".into(),
            value: num_heads.to_string(),
            expected: format!(
                "a divisor of the Mamba width {width} (SGLang FalconH1Config: \"mamba_n_heads must divide \
                 mamba_expand * hidden_size\")"
            ),
        });
    }
    let head_dim = match text.mamba_d_head {
        Some(d) => bounded(Some(d), "mamba_d_head", an)?,
        // "auto": width / heads.
        None => width / num_heads,
    };
    if head_dim.saturating_mul(num_heads) != width {
        return Err(ModelError::InvalidField {
            field: "mamba_d_head".into(),
            value: head_dim.to_string(),
            expected: format!(
                "mamba_d_head × mamba_n_heads = the Mamba width {width} (SGLang FalconH1Config: \"The \
                 dimensions for the Mamba head state do not match the model intermediate_size\")"
            ),
        });
    }
    let m = Mamba2 {
        num_heads,
        head_dim,
        n_groups: or(text.mamba_n_groups, 1, "mamba_n_groups")?,
        state_size: or(text.mamba_d_state, 256, "mamba_d_state")?,
        conv_kernel: or(text.mamba_d_conv, 4, "mamba_d_conv")?,
        conv_bias: text.mamba_conv_bias.unwrap_or(true),
        ssm_state_bytes: ssm_state_bytes(text)?,
        gated_norm: text.mamba_rms_norm.unwrap_or(false),
    };
    if !m.num_heads.is_multiple_of(m.n_groups) {
        return Err(ModelError::InvalidField {
            field: "mamba_n_groups".into(),
            value: m.n_groups.to_string(),
            expected: format!("a divisor of mamba_n_heads ({})", m.num_heads),
        });
    }
    let n = usize::try_from(num_layers).unwrap_or(usize::MAX);
    let blocks = u32::try_from(num_layers.saturating_mul(2)).map_err(|_| ModelError::InvalidField {
        field: "num_hidden_layers".into(),
        value: num_layers.to_string(),
        expected: "at most 2^31 layers".into(),
    })?;
    let mixers = [Mixer::Linear, Mixer::Attention].repeat(n);
    let layers = [Ffn::Absent, Ffn::Dense { intermediate }].repeat(n);
    Ok(Blocks {
        mixers,
        layers,
        mamba2: m,
        blocks,
    })
}

/// A Mamba-2 block's pieces on one rank: [`Mamba2::pieces`] (its block norm is the layer's
/// `input_layernorm`, its gated norm only with `mamba_rms_norm`).
pub(crate) fn mamba_block_pieces(m: &Mamba2, hidden: u64, tp: u32) -> Vec<Piece> {
    m.pieces(hidden, tp)
}

impl ModelSpec {
    /// hybrid50: the model as SGLang release `release` (`[major, minor, patch]`; `None` = the newest
    /// read) builds it: Falcon-H1's float32 LM head and unused q/k norms (module doc), Qwen3-Next's
    /// float32 LM head before 0.5.6 (`models/qwen3_next.py` `self.lm_head = self.lm_head.float()` in
    /// the 0.5.2 – 0.5.5.post3 wheels, not in 0.5.6 / 0.5.7 / 0.5.8), a LongRoPE model's rotary
    /// kernels (rope51, [`ModelSpec::rotary_extra_kernels`]), MiniCPM's muP kernels (hybrids51,
    /// [`ModelSpec::sglang_mup`]). Any other model is left as lowered.
    pub fn serve_as_sglang(&mut self, release: Option<[u64; 3]>) {
        // rope51: SGLang's LongRoPE rotary in PyTorch ops (`llm::partial_rotary`).
        self.serve_longrope_as_sglang(release);
        match self.arch {
            super::Architecture::FalconH1 => {
                self.lm_head_fp32 = true;
                self.unused_qk_norms = true;
            }
            super::Architecture::Qwen3Next => {
                self.lm_head_fp32 = release.is_some_and(|r| r < [0, 5, 6]);
            }
            // hybrids51: MiniCPM's muP scalings as separate kernels (`llm::minicpm`).
            super::Architecture::MiniCpm | super::Architecture::MiniCpm3 => self.sglang_mup = true,
            _ => {}
        }
    }
}
