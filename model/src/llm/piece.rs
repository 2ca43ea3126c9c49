//! One weight tensor as one rank holds it ([`Piece`]) and the format it is stored in ([`Fmt`]): the
//! vocabulary shared by the per-rank inventory (`weights`) and the architecture-specific pieces it
//! asks for (`gpt_oss`, `hybrid`).
//!
//! Dependencies in `llm` point one way: `weights` → `gpt_oss`, `hybrid` → `piece`. The architecture
//! modules build pieces; only `weights` assembles them into an inventory, and nothing here imports
//! `weights`.

/// Which format a tensor is stored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fmt {
    /// Model dtype (embeddings, LM head, norms, router, biases, vision tower, MLA absorbed copies).
    Model,
    /// fp32 regardless of model dtype (DeepSeek `e_score_correction_bias`).
    Fp32,
    /// The quantization's default linear-layer format.
    Linear,
    /// The quantization's routed-expert format.
    Expert,
    /// Issue #17 (attnquant17): the quantization's dense-MLP format (`Quantization::dense_format`).
    /// Set by `ModelSpec::inventory` on the `Linear` pieces of a layer's dense MLP.
    Dense,
    /// Issue #17 (attnquant17): the quantization's shared-expert format
    /// (`Quantization::shared_format`). Set by `ModelSpec::inventory` on the `Linear` pieces of a
    /// layer's shared experts.
    Shared,
    /// families31 (issue #17): the quantization's MLA down-projection format
    /// (`Quantization::mla_down_format`: `fused_qkv_a_proj` / `kv_a_proj`).
    MlaDown,
    /// presets58 (issue #17): the quantization's format of one attention projection
    /// (`Quantization::projection_format`, quant.toml `[projections]`). Set by `ModelSpec::inventory`
    /// on the `Linear` attention pieces named as that projection's GEMM.
    Proj(super::quant::AttnProjection),
    /// Raw bytes, one per element, no scales (a kernel's re-laid copy of E8M0 block scales).
    Byte,
}

/// One weight tensor as held by one rank.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Piece {
    /// Output features held by this rank.
    pub rows: u64,
    /// Input features held by this rank.
    pub cols: u64,
    /// Identical tensors of this shape (experts).
    pub count: u64,
    /// Storage format.
    pub fmt: Fmt,
    /// Read by a decode forward pass (false for kv_b_proj, replaced by w_kc/w_vc in absorbed MLA).
    pub decode: bool,
    /// The projection's name when the piece is the weight of a linear layer's GEMM (`qkv_proj`,
    /// `mlp.down_proj`, …; see `ModelSpec::decode_projections`); `None` for norms, biases, the
    /// embedding and MLA's batched absorbed copies.
    pub gemm: Option<&'static str>,
}

impl Piece {
    pub(crate) fn new(rows: u64, cols: u64, fmt: Fmt) -> Piece {
        Piece {
            rows,
            cols,
            count: 1,
            fmt,
            decode: true,
            gemm: None,
        }
    }
    /// The same piece, named as the weight of the projection GEMM `name`.
    pub(crate) fn gemm(self, name: &'static str) -> Piece {
        Piece {
            gemm: Some(name),
            ..self
        }
    }
    /// A 1-D parameter (norm weight, bias) of `n` elements at model dtype.
    pub(crate) fn vec(n: u64) -> Piece {
        Piece::new(n, 1, Fmt::Model)
    }
    /// Parameters held by the rank.
    pub fn params(&self) -> u64 {
        self.rows.saturating_mul(self.cols).saturating_mul(self.count)
    }
}
