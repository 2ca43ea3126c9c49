//! NVIDIA Nemotron-H hybrids (`NemotronHForCausalLM`: Nemotron-H-8B/47B/56B,
//! NVIDIA-Nemotron-Nano-9B/12B-v2): a stack of single-purpose blocks read from
//! `hybrid_override_pattern`, one character per block — `M` Mamba-2, `*` attention, `-` MLP, `E` MoE.
//! Each block is one pre-norm residual unit (RMSNorm → mixer or feed-forward → one row-parallel
//! output → one all-reduce), so tpsim lowers block `i` as layer `i` with a mixer and no
//! feed-forward (`M`, `*`) or a feed-forward and no mixer (`-`, `E`): [`super::Mixer::Absent`],
//! [`super::Ffn::Absent`].
//!
//! Sources: SGLang `python/sglang/srt/configs/nemotron_h.py` (`NemotronHConfig`,
//! `mamba2_cache_params`), `configs/mamba_utils.py` (`Mamba2StateShape.create`,
//! `extra_groups_for_head_shards`, `mamba2_state_dtype`), `models/nemotron_h.py`; vLLM
//! `model_executor/layers/mamba/mamba_mixer2.py` (`MambaMixer2`, `Mixer2RMSNormGated`),
//! `layers/mamba/mamba_utils.py` (`MambaStateShapeCalculator.mamba2_state_shape`,
//! `MambaStateDtypeCalculator.mamba2_state_dtype`), `models/nemotron_h.py`.
//!
//! | piece (per block, per rank) | shape | TP rule |
//! |---|---|---|
//! | block `norm` | hidden | replicated |
//! | Mamba `in_proj` | (2·I + 2·G·N + H) / tp × hidden, I = H × P | column-parallel (z, x, B, C, dt), quantizable |
//! | Mamba `conv1d` weight (+ bias with `use_conv_bias`) | conv_dim / tp × d_conv, conv_dim = I + 2·G·N | `ColumnParallelLinear(quant_config=None)`: model dtype |
//! | Mamba `A` (fp32), `D`, `dt_bias` | H / tp each | sharded by heads |
//! | Mamba gated `norm` | I / tp | sharded (`Mixer2RMSNormGated`) |
//! | Mamba `out_proj` | hidden × I / tp | row-parallel, quantizable |
//! | attention q/k/v, o | GQA (no bias, no RoPE, no q/k norm) | as Llama |
//! | MLP `up_proj`, `down_proj` (squared ReLU, not gated) | I_mlp / tp × hidden, hidden × I_mlp / tp | column / row-parallel |
//! | MoE (`E`) gate + fp32 `e_score_correction_bias` | E × hidden, E | replicated |
//! | MoE routed experts `up_proj`, `down_proj` (squared ReLU, not gated) | E × (I_e / tp × hidden + hidden × I_e / tp) | TP-MoE (`FusedMoE`) |
//! | MoE shared expert (`NemotronHMLP`) | as the MLP, width `moe_shared_expert_intermediate_size` | column / row-parallel |
//!
//! (H = `mamba_num_heads`, P = `mamba_head_dim`, N = `ssm_state_size`, G = `n_groups`.) When tp
//! does not divide G, the engines replicate groups so every head shard has its group: G becomes
//! G + (tp − G) (`extra_groups_for_head_shards`; both engines' state shape use this form).
//!
//! Per request and rank a Mamba-2 block holds a conv state of conv_dim / tp × (d_conv − 1) and an
//! SSM state of H / tp × P × N. SGLang: conv bf16 (`SGLANG_MAMBA_CONV_DTYPE` default), SSM
//! `mamba_ssm_dtype` of the config else float32 (`mamba2_state_dtype`). vLLM: both at
//! `--mamba-cache-dtype` / `--mamba-ssm-cache-dtype`, `auto` = the model dtype up to 0.12, the SSM state
//! float16 from 0.13 and float32 from 0.20 (its pages: `crate::vllm_hybrid`). A decode step's
//! `selective_state_update` reads the SSM state and writes it back, `causal_conv1d_update` the same
//! for the conv state: one read and one write per Mamba block per request, as for Gated DeltaNet.

use serde::Serialize;

use super::piece::{Fmt, Piece};
use super::{Attention, Ffn, Mixer, ModelConfig, ModelError, ModelSpec};

/// Bytes of one conv-state element in SGLang: `SGLANG_MAMBA_CONV_DTYPE` default bfloat16
/// (`configs/mamba_utils.py` `mamba2_state_dtype`).
const CONV_STATE_BYTES: u64 = 2;

/// Kernels of a Mamba-2 block at decode (vLLM `mamba_mixer2.py` `MambaMixer2.forward_cuda` decode
/// path): fused add+RMSNorm, in_proj GEMM, causal_conv1d_update, selective_state_update, the gated
/// RMSNorm, out_proj GEMM = 6.
pub const MAMBA2_KERNELS: u32 = 6;

/// Kernels of a Nemotron-H MLP block at decode: fused add+RMSNorm, up_proj GEMM, squared ReLU,
/// down_proj GEMM = 4 (vLLM `models/nemotron_h.py` `NemotronHMLP`: `ReLUSquaredActivation`).
pub const MLP_KERNELS: u32 = 4;

/// Kernels of a Nemotron-H attention block at decode: fused add+RMSNorm, qkv_proj GEMM, decode
/// attention, o_proj GEMM = 4 (no rotary embedding: `NemotronHAttention` has none).
pub const ATTENTION_KERNELS: u32 = 4;

/// Shape of the Mamba-2 mixer of a Nemotron-H model (config keys in parentheses).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Mamba2 {
    /// SSM heads H (`mamba_num_heads`).
    pub num_heads: u64,
    /// Channels per head P (`mamba_head_dim`); the inner width is H × P.
    pub head_dim: u64,
    /// B/C groups G (`n_groups`).
    pub n_groups: u64,
    /// State width N (`ssm_state_size`).
    pub state_size: u64,
    /// Causal-conv width (`conv_kernel`); the conv keeps d_conv − 1 past inputs.
    pub conv_kernel: u64,
    /// `use_conv_bias` (default true): conv1d carries a bias.
    pub conv_bias: bool,
    /// Bytes of one SSM-state element (config `mamba_ssm_dtype`, SGLang's default float32 = 4).
    pub ssm_state_bytes: u64,
    /// families20 (issue #17): the gated norm carries a weight (`Mixer2RMSNormGated` with
    /// `use_rms_norm`): true for Nemotron-H and Granite-4.0-H, Falcon-H1's `mamba_rms_norm`.
    #[serde(skip)]
    pub gated_norm: bool,
}

impl Mamba2 {
    /// Inner width I = H × P (SGLang `mamba2_cache_params`: `intermediate_size=mamba_num_heads *
    /// mamba_head_dim`).
    pub fn intermediate(&self) -> u64 {
        self.num_heads * self.head_dim
    }

    /// Groups after replication at this TP size: G, or G + (tp − G) when tp does not divide G
    /// (`extra_groups_for_head_shards`, SGLang `configs/mamba_utils.py` and vLLM
    /// `MambaStateShapeCalculator`).
    pub fn groups_at(&self, tp: u32) -> u64 {
        let t = u64::from(tp.max(1));
        if self.n_groups.is_multiple_of(t) {
            self.n_groups
        } else {
            self.n_groups + t.saturating_sub(self.n_groups)
        }
    }

    /// Channels of the causal conv (x, B, C): I + 2 × groups × N.
    pub fn conv_dim(&self, tp: u32) -> u64 {
        self.intermediate() + 2 * self.groups_at(tp) * self.state_size
    }

    /// Conv state of one request in one block on one rank, bytes: conv_dim / tp × (d_conv − 1) × 2.
    /// Nemotron-Nano-9B-v2 at tp 1: (10,240 + 2 × 8 × 128) × 3 × 2 = 73,728.
    pub fn conv_state_bytes(&self, tp: u32) -> u64 {
        let t = u64::from(tp.max(1));
        self.conv_dim(tp) / t * self.conv_kernel.saturating_sub(1) * CONV_STATE_BYTES
    }

    /// SSM state of one request in one block on one rank, bytes: H / tp × P × N × ssm bytes.
    /// Nemotron-Nano-9B-v2 at tp 1, fp32: 128 × 80 × 128 × 4 = 5,242,880.
    pub fn ssm_state_bytes_per_rank(&self, tp: u32) -> u64 {
        let t = u64::from(tp.max(1));
        (self.num_heads / t)
            .saturating_mul(self.head_dim)
            .saturating_mul(self.state_size)
            .saturating_mul(self.ssm_state_bytes)
    }

    /// Conv + SSM state of one request in one block on one rank, bytes.
    pub fn state_bytes(&self, tp: u32) -> u64 {
        self.conv_state_bytes(tp)
            .saturating_add(self.ssm_state_bytes_per_rank(tp))
    }

    /// FLOPs of the recurrence per token per rank: 3 multiply-adds per SSM-state element (decay,
    /// the dt·B·x update, the C·h read-out of `selective_state_update`).
    pub fn recurrence_flops(&self, tp: u32) -> f64 {
        let t = u64::from(tp.max(1));
        6.0 * ((self.num_heads / t) * self.head_dim * self.state_size) as f64
    }

    /// One Mamba-2 block's pieces on one rank (module table), with its block norm.
    pub(crate) fn pieces(&self, hidden: u64, tp: u32) -> Vec<Piece> {
        let t = u64::from(tp.max(1));
        let i_local = self.intermediate() / t;
        let h_local = self.num_heads / t;
        let conv_local = self.conv_dim(tp) / t;
        let in_rows = 2 * i_local + (2 * self.groups_at(tp) * self.state_size) / t + h_local;
        let mut ps = vec![
            Piece::vec(hidden), // block norm
            Piece::new(in_rows, hidden, Fmt::Linear).gemm("mamba.in_proj"),
            Piece::new(conv_local, self.conv_kernel, Fmt::Model), // conv1d
        ];
        if self.conv_bias {
            ps.push(Piece::vec(conv_local));
        }
        ps.extend([
            Piece::new(h_local, 1, Fmt::Fp32), // A
            Piece::vec(h_local),               // D
            Piece::vec(h_local),               // dt_bias
        ]);
        if self.gated_norm {
            ps.push(Piece::vec(i_local)); // gated RMSNorm
        }
        ps.push(Piece::new(hidden, i_local, Fmt::Linear).gemm("mamba.out_proj"));
        ps
    }
}

/// vLLM's kernel block alignment for hybrid models: the smallest kernel block size of the
/// FlashAttention backend (`get_supported_kernel_block_sizes()` → `MultipleOf(16)`; the constant 16
/// in 0.10/0.11), `platforms/interface.py` `_align_hybrid_block_size` (`models/config.py`
/// `HybridAttentionMambaModelConfig.verify_and_update_config` before).
pub const VLLM_KERNEL_BLOCK_ALIGNMENT: u64 = 16;

impl Mamba2 {
    /// vLLM's page of one Mamba-2 layer for one request on one rank (`MambaSpec.page_size_bytes`:
    /// the conv and SSM state shapes of `MambaStateShapeCalculator.mamba2_state_shape` at
    /// `--mamba-cache-dtype` and `--mamba-ssm-cache-dtype`, `auto` = the model dtype), bytes.
    /// Nemotron-Nano-9B-v2 at tp 1, bf16 both: 73,728 + 2,621,440 = 2,695,168.
    pub fn vllm_page_bytes(&self, tp: u32, conv_bytes: u64, ssm_bytes: u64) -> u64 {
        let t = u64::from(tp.max(1));
        let conv = self.conv_dim(tp) / t * self.conv_kernel.saturating_sub(1) * conv_bytes;
        let ssm = (self.num_heads / t) * self.head_dim * self.state_size * ssm_bytes;
        conv + ssm
    }
}

/// The attention block size vLLM sets for a hybrid so that one attention page (block × KV bytes per
/// token of one layer) holds at least one mamba page, without prefix caching:
/// `alignment × ⌈mamba_page / (alignment × attn_page_1_token)⌉`, raised from `block_size` only
/// when larger (vLLM logs "Setting attention block size to N tokens to ensure that attention page
/// size is >= mamba page size."; `platforms/interface.py` `_align_hybrid_block_size`).
/// Nemotron-Nano-9B-v2 at tp 1: 16 × ⌈2,695,168 / (16 × 4,096)⌉ = 672.
pub fn vllm_attention_block_size(mamba_page: u64, attn_page_1_token: u64, block_size: u64) -> u64 {
    let a = VLLM_KERNEL_BLOCK_ALIGNMENT;
    let needed = a * mamba_page.div_ceil((a * attn_page_1_token).max(1));
    needed.max(block_size)
}

/// A Nemotron-H attention block on one rank: norm, fused q/k/v (KV heads replicated when
/// tp > kv_heads), o_proj; no biases.
pub(crate) fn attention_pieces(spec: &ModelSpec, tp: u32) -> Vec<Piece> {
    let t = u64::from(tp.max(1));
    let h = spec.hidden;
    let Attention::Gqa {
        heads,
        kv_heads,
        head_dim,
    } = spec.attention
    else {
        return Vec::new();
    };
    let q_rows = heads / t * head_dim;
    let kv_rows = 2 * (kv_heads / t).max(1) * head_dim;
    vec![
        Piece::vec(h),
        Piece::new(q_rows + kv_rows, h, Fmt::Linear).gemm("qkv_proj"),
        Piece::new(h, heads / t * head_dim, Fmt::Linear).gemm("o_proj"),
    ]
}

/// A Nemotron-H MLP block on one rank: norm, up_proj (column-parallel), down_proj (row-parallel).
pub(crate) fn mlp_pieces(hidden: u64, intermediate: u64, tp: u32) -> Vec<Piece> {
    let local = intermediate / u64::from(tp.max(1));
    vec![
        Piece::vec(hidden),
        Piece::new(local, hidden, Fmt::Linear).gemm("mlp.up_proj"),
        Piece::new(hidden, local, Fmt::Linear).gemm("mlp.down_proj"),
    ]
}

/// Each block's (mixer, feed-forward) from `hybrid_override_pattern`, and the Mamba-2 shape.
///
/// Errors: no pattern, a character other than `M * - E`, a pattern whose length is not
/// `num_hidden_layers`, a missing Mamba or MoE key, a latent MoE.
pub(crate) fn blocks(
    text: &ModelConfig,
    num_layers: u64,
    an: &str,
) -> Result<(Vec<Mixer>, Vec<Ffn>, Mamba2), ModelError> {
    let pattern = text
        .hybrid_override_pattern
        .as_deref()
        .ok_or_else(|| ModelError::MissingField {
            field: "hybrid_override_pattern".into(),
            architecture: an.into(),
        })?;
    if pattern.chars().count() as u64 != num_layers {
        return Err(ModelError::InvalidField {
            field: "hybrid_override_pattern".into(),
            value: format!("{} characters", pattern.chars().count()),
            expected: format!("one character per layer: num_hidden_layers = {num_layers}"),
        });
    }
    let req = |v: Option<u64>, field: &str| bounded(v, field, an);
    let intermediate = req(text.intermediate_size, "intermediate_size")?;
    let mut mixers = Vec::with_capacity(pattern.len());
    let mut ffns = Vec::with_capacity(pattern.len());
    for c in pattern.chars() {
        let (m, f) = match c {
            'M' => (Mixer::Linear, Ffn::Absent),
            '*' => (Mixer::Attention, Ffn::Absent),
            '-' => (Mixer::Absent, Ffn::Dense { intermediate }),
            'E' => (Mixer::Absent, Ffn::Moe(moe_shape(text, an)?)),
            other => {
                return Err(ModelError::InvalidField {
                    field: "hybrid_override_pattern".into(),
                    value: format!("'{other}'"),
                    expected: "only 'M' (Mamba-2), '*' (attention), '-' (MLP) or 'E' (MoE), as SGLang's \
                               NemotronHConfig accepts"
                        .into(),
                });
            }
        };
        mixers.push(m);
        ffns.push(f);
    }
    let ssm_state_bytes = ssm_state_bytes(text)?;
    let m = Mamba2 {
        num_heads: req(text.mamba_num_heads, "mamba_num_heads")?,
        head_dim: req(text.mamba_head_dim, "mamba_head_dim")?,
        n_groups: req(text.n_groups, "n_groups")?,
        state_size: req(text.ssm_state_size, "ssm_state_size")?,
        // SGLang/HF `NemotronHConfig` default `mamba_d_conv=4` (stored as `conv_kernel`).
        conv_kernel: match text.conv_kernel {
            None => 4,
            Some(k) => req(Some(k), "conv_kernel")?,
        },
        // HF `NemotronHConfig` default `use_conv_bias=True`.
        conv_bias: text.use_conv_bias.unwrap_or(true),
        ssm_state_bytes,
        gated_norm: true,
    };
    if !m.num_heads.is_multiple_of(m.n_groups) {
        return Err(ModelError::InvalidField {
            field: "n_groups".into(),
            value: m.n_groups.to_string(),
            expected: format!("a divisor of mamba_num_heads ({})", m.num_heads),
        });
    }
    Ok((mixers, ffns, m))
}

/// Bytes of one SSM-state element in SGLang: the config's `mamba_ssm_dtype`, else float32
/// (`SGLANG_MAMBA_SSM_DTYPE` default, `configs/mamba_utils.py` `mamba2_state_dtype`). Shared by every
/// Mamba-2 family (Nemotron-H, Granite-4.0-H).
pub(crate) fn ssm_state_bytes(text: &ModelConfig) -> Result<u64, ModelError> {
    match text.mamba_ssm_dtype.as_deref() {
        None | Some("float32") => Ok(4),
        Some("bfloat16") | Some("float16") => Ok(2),
        Some(other) => Err(ModelError::InvalidField {
            field: "mamba_ssm_dtype".into(),
            value: other.into(),
            expected: "float32, bfloat16 or float16".into(),
        }),
    }
}

/// A required size key of `architecture` `an`: present, positive and at most 2^20 (a bound of tpsim's
/// against corrupt files, not of the engines).
pub(crate) fn bounded(v: Option<u64>, field: &str, an: &str) -> Result<u64, ModelError> {
    match v {
        Some(x) if x > 0 && x <= 1 << 20 => Ok(x),
        Some(x) => Err(ModelError::InvalidField {
            field: field.into(),
            value: x.to_string(),
            expected: "a positive integer no larger than 1048576".into(),
        }),
        None => Err(ModelError::MissingField {
            field: field.into(),
            architecture: an.into(),
        }),
    }
}

/// The MoE block's shape (`NemotronHMoE`, vLLM `models/nemotron_h.py`): `n_routed_experts` experts
/// of `moe_intermediate_size`, `num_experts_per_tok` per token, and a shared expert of
/// `moe_shared_expert_intermediate_size` × `n_shared_experts`, expressed as
/// [`super::MoeShape::n_shared_experts`] expert widths (Nemotron-3-Nano-30B-A3B: 3,712 = 2 × 1,856).
/// Latent MoE (`moe_latent_size`, Nemotron-3-Super) is refused.
fn moe_shape(text: &ModelConfig, an: &str) -> Result<super::MoeShape, ModelError> {
    let need = |v: Option<u64>, field: &str| bounded(v, field, an);
    if text.moe_latent_size.is_some() {
        return Err(ModelError::InvalidField {
            field: "moe_latent_size".into(),
            value: "set".into(),
            expected: "null: tpsim does not lower Nemotron-H's latent MoE (fc1/fc2_latent_proj) yet".into(),
        });
    }
    let e = need(text.n_routed_experts, "n_routed_experts")?;
    let k = need(text.num_experts_per_tok, "num_experts_per_tok")?;
    let inter = need(text.moe_intermediate_size, "moe_intermediate_size")?;
    // Saturating and bounded as any width (cfgfuzz: the product of two unbounded keys).
    let shared = text
        .n_shared_experts
        .unwrap_or(0)
        .saturating_mul(text.moe_shared_expert_intermediate_size.unwrap_or(inter));
    if !shared.is_multiple_of(inter) || shared > super::config::MAX_DIM {
        return Err(ModelError::InvalidField {
            field: "moe_shared_expert_intermediate_size".into(),
            value: shared.to_string(),
            expected: format!(
                "a multiple of moe_intermediate_size ({inter}) (tpsim's MoE shape) no larger than {}",
                super::config::MAX_DIM
            ),
        });
    }
    if k > e {
        return Err(ModelError::InvalidField {
            field: "num_experts_per_tok".into(),
            value: k.to_string(),
            expected: format!("at most n_routed_experts ({e})"),
        });
    }
    Ok(super::MoeShape::new(e, k, inter, shared / inter))
}

/// The MoE block of one rank, split as the inventory wants it: (router = block norm + fp32-computed
/// gate + fp32 `e_score_correction_bias`, one routed expert's non-gated `up_proj` / `down_proj`
/// shards, the shared expert's). vLLM `NemotronHMoE`: `GateLinear(hidden, E)` replicated,
/// `FusedMoE(activation=relu2 without mul)` (TP-MoE: 1/tp of every expert), shared experts
/// `NemotronHMLP` column/row-parallel.
pub(crate) fn moe_pieces(hidden: u64, m: &super::MoeShape, tp: u32) -> (Vec<Piece>, Vec<Piece>, Vec<Piece>) {
    let t = u64::from(tp.max(1));
    let local = m.moe_intermediate / t;
    let router = vec![
        Piece::vec(hidden),
        Piece::new(m.n_routed_experts, hidden, Fmt::Model).gemm("moe.router"),
        Piece::new(m.n_routed_experts, 1, Fmt::Fp32),
    ];
    let expert = vec![
        Piece::new(local, hidden, Fmt::Expert).gemm("moe.expert.up_proj"),
        Piece::new(hidden, local, Fmt::Expert).gemm("moe.expert.down_proj"),
    ];
    let shared = if m.n_shared_experts > 0 {
        let s = m.moe_intermediate * m.n_shared_experts / t;
        vec![
            Piece::new(s, hidden, Fmt::Linear).gemm("moe.shared.up_proj"),
            Piece::new(hidden, s, Fmt::Linear).gemm("moe.shared.down_proj"),
        ]
    } else {
        Vec::new()
    };
    (router, expert, shared)
}

/// The refusal of a TP size the Mamba-2 blocks cannot take: vLLM `MambaMixer2` asserts
/// "Tensor parallel world size must divide num heads." (and SGLang's `divide` of the conv dim and
/// heads fails the same way).
pub(crate) fn check_tp(m: &Mamba2, tp: u32) -> Option<String> {
    let t = u64::from(tp.max(1));
    let conv = m.conv_dim(tp);
    if !m.num_heads.is_multiple_of(t) || !conv.is_multiple_of(t) {
        return Some(format!(
            "the Mamba-2 blocks' {} heads (conv dim {conv}) are not divisible by tp {tp} (vLLM \
             mamba_mixer2.py: \"Tensor parallel world size must divide num heads.\")",
            m.num_heads
        ));
    }
    None
}

/// `text` with the non-finite numbers Python's `json` writes (`Infinity`, `-Infinity`, `NaN`)
/// replaced by `null` outside strings: Nemotron-H's published config.json has
/// `"time_step_limit": [0.0, Infinity]`, which strict JSON parsers refuse. tpsim reads none of
/// those keys; a key it reads that holds one is then absent (a missing-field error or the
/// default). Both readings of a config.json use it (the model's and a `from = "config"`
/// quant.toml's), so they agree on such a file.
pub fn non_finite_to_null(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("Infinity") && !text.contains("NaN") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        } else if let Some(w) = ["-Infinity", "Infinity", "NaN"]
            .into_iter()
            .find(|w| rest.starts_with(w))
        {
            out.push_str("null");
            rest = &rest[w.len()..];
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    std::borrow::Cow::Owned(out)
}

impl ModelSpec {
    /// Mamba-2 blocks (0 for other models).
    pub fn mamba2_layers(&self) -> u32 {
        if self.mamba2.is_none() {
            return 0;
        }
        self.linear_layers()
    }

    /// Recurrent state of one request in one recurrent layer on one rank, bytes (Gated DeltaNet
    /// or Mamba-2; 0 for models without).
    pub fn recurrent_state_bytes(&self, tp: u32) -> u64 {
        // families22 (issue #17): LFM2's conv window (`llm::lfm2`).
        if let Some(sc) = self.short_conv {
            return sc.state_bytes(tp);
        }
        match (self.linear_attention, self.mamba2) {
            (Some(g), _) => g.state_bytes(tp),
            (None, Some(m)) => m.state_bytes(tp),
            (None, None) => 0,
        }
    }

    /// FLOPs per token of one recurrent layer's state update on one rank.
    pub fn recurrence_flops(&self, tp: u32) -> f64 {
        if let Some(sc) = self.short_conv {
            return sc.recurrence_flops(tp);
        }
        match (self.linear_attention, self.mamba2) {
            (Some(g), _) => g.recurrence_flops(tp),
            (None, Some(m)) => m.recurrence_flops(tp),
            (None, None) => 0.0,
        }
    }
}
