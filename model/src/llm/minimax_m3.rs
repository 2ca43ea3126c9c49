//! families37 (issue #17): MiniMax-M3 (`MiniMaxM3SparseForCausalLM`, and the vision-language
//! wrapper `MiniMaxM3SparseForConditionalGeneration` whose `text_config` holds the text model) —
//! its config read and its parameters counted (families34 refused it by name without reading a
//! config). families38: the text model is lowered (`Architecture::MiniMaxM3`) for SGLang; the
//! wrapper is still refused (its CLIP tower's layout a rank is not counted).
//!
//! ## What the engines build (SGLang 0.5.23 `models/minimax_m3.py`)
//!
//! - **Attention** (`MiniMaxM3Attention`): GQA, `qkv_proj` hidden → (heads + 2 × KV heads) ×
//!   `head_dim`, `o_proj` back, per-head q/k RMSNorm (`qk_norm_type` "per_head"; the sparse
//!   layers assert it), partial RoPE over `rotary_dim`. On the layers `sparse_attention_freq`
//!   marks, MiniMax sparse attention (MSA): `index_qkv_proj` hidden → (index heads + 1 index key
//!   head) × `sparse_index_dim`, plus an index value head and `index_o_proj` unless
//!   `sparse_disable_index_value` marks the layer, and index q/k norms; each query reads the
//!   `sparse_topk_blocks` KV blocks of `sparse_block_size` tokens its index scores highest.
//!   The index projections are split over min(tp, index heads) ranks
//!   (`idx_head_tp_size`, a `ReplicatedParallelGroup` of tp / that many copies), the one index key
//!   head whole on each ([`Geometry::index_heads_rank`], `index_pieces`).
//! - **MLP** (`MiniMaxM3DecoderLayer._is_layer_sparse`): where `moe_layer_freq` is 0 a dense
//!   SwiGLU of `dense_intermediate_size`; elsewhere `MiniMaxM3MoE`: a replicated router
//!   (`gate`, `num_local_experts` × hidden; bf16 under `SGLANG_OPT_USE_BF16_ROUTER_GEMM`, default
//!   True in `environ.py` of every release 0.5.16 – 0.5.23), an fp32 `e_score_correction_bias`
//!   when `use_routing_bias`, `num_local_experts` experts of `intermediate_size` and, with
//!   `n_shared_experts`, one shared MLP of `intermediate_size` × `n_shared_experts` (TP-split
//!   without DeepEP / MegaMoE).
//! - **Pool** (`mem_cache/memory_pool.py` `MiniMaxSparseKVPool`; its budget per token
//!   `model_executor/pool_configurator.py` `_compute_cell_size`, the same sum in 0.5.16, 0.5.20 and
//!   0.5.23): a main K/V pool over every layer at the KV heads a rank, an index-K pool (one head of
//!   the index width) for the sparse layers without an index value, an index-K/V pool for those
//!   with one, at the KV cache dtype (bf16 here; fp8 KV changes the index dtype by platform and is
//!   refused, `sim::scenario::minimax_m3`).
//!
//! The published checkpoint's config (MiniMaxAI/MiniMax-M3, `tests/data/models/minimax-m3`) marks
//! layers 0 – 2 dense and full-attention and 3 – 59 MoE and sparse, none with an index value, so
//! its tensors are exactly those counted here: a public weight inventory of that checkpoint lists
//! 427,040,140,160 parameters, 426,174,572,928 of them the text model tpsim counts and 865,567,232
//! the vision tower, projector and patch-merge MLP (integration suites `families37`, `families38`).
//!
//! ## Not modelled
//!
//! vLLM's MSA (`vllm/models/minimax_m3/`), the wrapper's vision tower, quantized checkpoints
//! (mxfp8, NVFP4: `arg_groups/model_overrides/minimax_m3.py` resolves their own pools and
//! runners), an fp8 KV cache, drafts, DP attention, expert and pipeline parallelism: refused by
//! `sim::scenario::minimax_m3` with [`NOT_MODELLED`]. The decode step's MSA kernels (the block
//! indexer, its top-k, block-sparse attention) are costed with assumed efficiencies
//! (`ModelSpec::forward_pass` reads each MSA layer as a DSA layer: the index keys of the whole
//! context, the K/V of the 16 × 128 chosen tokens, the index scoring FLOPs).

use super::config::{ModelConfig, req};
use super::{ModelError, invalid};

/// families38: the text model's name, the one tpsim lowers (`Architecture::MiniMaxM3`).
pub const TEXT: &str = "MiniMaxM3SparseForCausalLM";

/// families38: what tpsim models of MiniMax-M3, for the refusals that name what it does not.
pub const NOT_MODELLED: &str = "tpsim models MiniMax-M3's text model (MiniMaxM3SparseForCausalLM) at bf16 under \
     SGLang 0.5.16 - 0.5.23 on CUDA at plain tensor parallelism with a bf16 KV cache (weights by \
     models/minimax_m3.py, the MiniMaxSparseKVPool budget of model_executor/pool_configurator.py); not vLLM's MSA \
     (vllm/models/minimax_m3/), the vision-language wrapper's tower, mxfp8 / NVFP4 checkpoints, an fp8 KV cache, \
     drafts, DP attention, expert or pipeline parallelism, or ROCm";

/// The names the engines register: SGLang 0.5.16 – 0.5.23 `models/minimax_m3.py` and
/// `minimax_m3_vl.py` `EntryClass`; vLLM 0.24.0 – 0.34.0 `vllm.models.minimax_m3` (families34).
pub const ARCHITECTURES: [&str; 2] = [
    "MiniMaxM3SparseForCausalLM",
    "MiniMaxM3SparseForConditionalGeneration",
];

/// Bytes of a bf16 KV-cache element (the pool's dtype at `kv_cache_dtype` "auto" on a bf16
/// checkpoint; the index pools take the same dtype unless an index dtype is given).
const BF16: u64 = 2;

/// The MSA indexer's shape (`sparse_attention_config`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Index {
    /// Index query heads (`sparse_num_index_heads`; 4).
    pub heads: u64,
    /// Index head width (`sparse_index_dim`; 128).
    pub dim: u64,
    /// KV blocks a query reads (`sparse_topk_blocks`; 16).
    pub topk_blocks: u64,
    /// Tokens a block holds (`sparse_block_size`; 128).
    pub block_size: u64,
}

/// One decoder layer's kinds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layer {
    /// A MoE layer (`moe_layer_freq` non-zero), else a dense MLP.
    pub moe: bool,
    /// A sparse-attention layer (`sparse_attention_freq` non-zero).
    pub sparse: bool,
    /// A sparse layer with an index value head and `index_o_proj`.
    pub index_value: bool,
}

/// MiniMax-M3's text model as read from config.json (`text_config`, else the top level).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Residual width (`hidden_size`; 6,144).
    pub hidden: u64,
    /// Query heads (`num_attention_heads`; 64).
    pub heads: u64,
    /// KV heads (`num_key_value_heads`; 4).
    pub kv_heads: u64,
    /// Attention head width (`head_dim`; 128).
    pub head_dim: u64,
    /// Vocabulary (`vocab_size`; 200,064).
    pub vocab: u64,
    /// Whether the head shares the embedding (`tie_word_embeddings`; false).
    pub tied: bool,
    /// The decoder layers.
    pub layers: Vec<Layer>,
    /// Routed experts (`num_local_experts`; 128).
    pub experts: u64,
    /// Routed experts a token (`num_experts_per_tok`; 4).
    pub topk: u64,
    /// Routed expert width (`intermediate_size`; 3,072).
    pub expert_width: u64,
    /// Shared MLP width: `intermediate_size` × `n_shared_experts` (3,072), 0 without one.
    pub shared_width: u64,
    /// Dense MLP width (`dense_intermediate_size`; 12,288).
    pub dense_width: u64,
    /// Whether the router has an fp32 correction bias (`use_routing_bias`; true).
    pub routing_bias: bool,
    /// The MSA indexer, when `sparse_attention_config` turns sparse attention on.
    pub index: Option<Index>,
    /// MTP modules in the checkpoint (`num_mtp_modules`; 7), not part of the target model.
    pub mtp_modules: u64,
}

/// Per-layer 0/1 list `list` (key `key`) read as booleans, one entry per layer.
fn per_layer(list: &[u64], key: &str, layers: u64) -> Result<Vec<bool>, ModelError> {
    if list.len() as u64 != layers {
        return Err(invalid(
            key,
            format!("{} entries", list.len()),
            format!("one entry per layer (num_hidden_layers = {layers})"),
        ));
    }
    Ok(list.iter().map(|&f| f != 0).collect())
}

impl Geometry {
    /// Read MiniMax-M3's keys as SGLang 0.5.23 `models/minimax_m3.py` reads them; a missing or
    /// impossible key is an error naming it.
    pub fn read(cfg: &ModelConfig, an: &str) -> Result<Geometry, ModelError> {
        let text = cfg.text_config.as_deref().unwrap_or(cfg);
        let hidden = req(text.hidden_size, "hidden_size", an)?;
        let n = req(text.num_hidden_layers, "num_hidden_layers", an)?;
        let heads = req(text.num_attention_heads, "num_attention_heads", an)?;
        // `_is_layer_sparse`: `moe_layer_freq[layer_id] != 0`, every layer MoE without the key.
        let moe = match &text.moe_layer_freq {
            None => vec![true; n as usize],
            Some(f) => match f.every() {
                Some(_) => {
                    return Err(invalid(
                        "moe_layer_freq",
                        "a single period".into(),
                        "a 0/1 list, one entry per layer (MiniMax-M3 indexes it by layer)".into(),
                    ));
                }
                None => per_layer(f.per_layer().unwrap_or(&[]), "moe_layer_freq", n)?,
            },
        };
        let sparse_cfg = text
            .sparse_attention_config
            .as_ref()
            .filter(|s| s.use_sparse_attention.unwrap_or(false));
        let (index, sparse, no_value) = match sparse_cfg {
            None => (None, vec![false; n as usize], vec![false; n as usize]),
            Some(s) => {
                let freq = s.sparse_attention_freq.as_deref().ok_or_else(|| {
                    invalid(
                        "sparse_attention_config.sparse_attention_freq",
                        "absent".into(),
                        "a 0/1 list, one entry per layer (SGLang indexes it unguarded)".into(),
                    )
                })?;
                let sparse = per_layer(freq, "sparse_attention_config.sparse_attention_freq", n)?;
                let no_value = match &s.sparse_disable_index_value {
                    None => vec![false; n as usize],
                    Some(l) => per_layer(l, "sparse_attention_config.sparse_disable_index_value", n)?,
                };
                let index = Index {
                    heads: req(
                        s.sparse_num_index_heads,
                        "sparse_attention_config.sparse_num_index_heads",
                        an,
                    )?,
                    dim: req(s.sparse_index_dim, "sparse_attention_config.sparse_index_dim", an)?,
                    topk_blocks: req(
                        s.sparse_topk_blocks,
                        "sparse_attention_config.sparse_topk_blocks",
                        an,
                    )?,
                    block_size: req(
                        s.sparse_block_size,
                        "sparse_attention_config.sparse_block_size",
                        an,
                    )?,
                };
                (Some(index), sparse, no_value)
            }
        };
        // `MiniMaxM3Attention.__init__`: "sparse attention only supports qk_norm_type='per_head'".
        let norm_type = text.qk_norm_type.as_deref().unwrap_or("per_layer");
        if sparse.iter().any(|&s| s) && norm_type != "per_head" {
            return Err(invalid(
                "qk_norm_type",
                format!("\"{norm_type}\""),
                "\"per_head\" on a model with sparse layers (\"sparse attention only supports qk_norm_type='per_head'\")"
                    .into(),
            ));
        }
        let expert_width = req(text.intermediate_size, "intermediate_size", an)?;
        let g = Geometry {
            hidden,
            heads,
            kv_heads: req(text.num_key_value_heads, "num_key_value_heads", an)?,
            head_dim: text.head_dim.unwrap_or(hidden / heads.max(1)),
            vocab: req(text.vocab_size, "vocab_size", an)?,
            tied: cfg
                .tie_word_embeddings
                .or(text.tie_word_embeddings)
                .unwrap_or(false),
            layers: (0..n as usize)
                .map(|i| Layer {
                    moe: moe[i],
                    sparse: sparse[i],
                    index_value: sparse[i] && !no_value[i],
                })
                .collect(),
            experts: req(text.num_local_experts, "num_local_experts", an)?,
            topk: req(text.num_experts_per_tok, "num_experts_per_tok", an)?,
            expert_width,
            shared_width: expert_width * text.n_shared_experts.unwrap_or(0),
            dense_width: if moe.iter().all(|&m| m) {
                0
            } else {
                req(text.dense_intermediate_size, "dense_intermediate_size", an)?
            },
            routing_bias: text.use_routing_bias.unwrap_or(false),
            index,
            mtp_modules: text.num_mtp_modules.unwrap_or(0),
        };
        if g.topk > g.experts || g.kv_heads == 0 || !g.heads.is_multiple_of(g.kv_heads) {
            return Err(invalid(
                "num_experts_per_tok / num_key_value_heads",
                format!("{} / {}", g.topk, g.kv_heads),
                format!(
                    "at most num_local_experts ({}) / a divisor of num_attention_heads ({})",
                    g.experts, g.heads
                ),
            ));
        }
        Ok(g)
    }

    /// Sparse-attention layers (published config: 57 of 60).
    pub fn sparse_layers(&self) -> u64 {
        self.layers.iter().filter(|l| l.sparse).count() as u64
    }

    /// MoE layers (published config: 57 of 60).
    pub fn moe_layers(&self) -> u64 {
        self.layers.iter().filter(|l| l.moe).count() as u64
    }

    /// A layer's attention: qkv_proj, o_proj, per-head q/k norms; on a sparse layer the index
    /// projections and norms. Published: 6,144 × 9,216 + 8,192 × 6,144 + 256 = 106,955,008;
    /// sparse without index value + 6,144 × 640 + 256 = 3,932,416.
    pub fn attention_params(&self, l: Layer) -> u64 {
        let (h, d) = (self.hidden, self.head_dim);
        let base = h * (self.heads + 2 * self.kv_heads) * d + self.heads * d * h + 2 * d;
        let index = match self.index {
            Some(x) if l.sparse => {
                let value = if l.index_value {
                    h * x.dim + x.heads * x.dim * h
                } else {
                    0
                };
                h * (x.heads + 1) * x.dim + value + 2 * x.dim
            }
            _ => 0,
        };
        base + index
    }

    /// A gated MLP (gate, up, down) of `width`.
    fn mlp_params(&self, width: u64) -> u64 {
        3 * self.hidden * width
    }

    /// A MoE layer's MLP: router, correction bias, experts, shared MLP. Published: 786,432 + 128 +
    /// 128 × 56,623,104 + 56,623,104 = 7,305,166,976.
    pub fn moe_params(&self) -> u64 {
        self.experts * self.hidden
            + if self.routing_bias { self.experts } else { 0 }
            + self.experts * self.mlp_params(self.expert_width)
            + self.mlp_params(self.shared_width)
    }

    /// The text model without MTP modules: embedding, head unless tied, final norm, every
    /// layer's two norms, attention and MLP. Published: 426,174,572,928.
    pub fn params(&self) -> u64 {
        let embed = self.vocab * self.hidden * if self.tied { 1 } else { 2 };
        let layers: u64 = self
            .layers
            .iter()
            .map(|&l| {
                2 * self.hidden
                    + self.attention_params(l)
                    + if l.moe {
                        self.moe_params()
                    } else {
                        self.mlp_params(self.dense_width)
                    }
            })
            .sum();
        embed + self.hidden + layers
    }

    /// Parameters a decoded token touches: `num_experts_per_tok` routed experts a MoE layer
    /// instead of all. Published: 25,962,473,856; without embedding and head 23,504,087,424.
    pub fn active_params(&self) -> u64 {
        self.params() - self.moe_layers() * (self.experts - self.topk) * self.mlp_params(self.expert_width)
    }

    /// Bytes a cached token takes on one rank of `tp` in SGLang's `MiniMaxSparseKVPool` at a bf16
    /// KV cache: every layer's K and V at max(1, KV heads / tp) heads, plus one index key head
    /// (and an index value head where the layer has one) of the index width a sparse layer.
    /// Published, tp 1: 60 × 2 × 4 × 128 × 2 + 57 × 128 × 2 = 137,472; tp 8: 30,720 + 14,592 =
    /// 45,312.
    pub fn sglang_kv_bytes_per_token(&self, tp: u64) -> u64 {
        let kv = (self.kv_heads / tp.max(1)).max(1);
        let main = self.layers.len() as u64 * 2 * kv * self.head_dim * BF16;
        let index: u64 = match self.index {
            None => 0,
            Some(x) => self
                .layers
                .iter()
                .filter(|l| l.sparse)
                .map(|l| if l.index_value { 2 } else { 1 } * x.dim * BF16)
                .sum(),
        };
        main + index
    }
}

impl Geometry {
    /// families38: one rank's MSA index pieces of layer `l` at `tp` (SGLang 0.5.23
    /// `MiniMaxM3Attention`): `index_qkv_proj` over `idx_tp = min(tp, index heads)` ranks — index
    /// heads / idx_tp query heads, the one index key head whole (`QKVParallelLinear` replicates a
    /// KV head it cannot split), an index value head where the layer has one — `index_o_proj` where it
    /// has one, and the index q/k RMSNorms (`index_head_dim` each). Published, tp 8, a sparse layer:
    /// (1 + 1) × 128 rows × 6,144 and 2 × 128; none on a dense-attention layer.
    pub(crate) fn index_pieces(&self, l: Layer, tp: u64) -> Vec<super::piece::Piece> {
        use super::piece::{Fmt, Piece};
        let Some(x) = self.index.filter(|_| l.sparse) else {
            return Vec::new();
        };
        let idx_tp = tp.max(1).min(x.heads.max(1));
        let q_rows = x.heads / idx_tp * x.dim;
        let v_rows = if l.index_value { x.dim } else { 0 };
        let mut ps =
            vec![Piece::new(q_rows + x.dim + v_rows, self.hidden, Fmt::Linear).gemm("index_qkv_proj")];
        if l.index_value {
            ps.push(Piece::new(self.hidden, q_rows, Fmt::Linear).gemm("index_o_proj"));
        }
        ps.push(Piece::vec(x.dim));
        ps.push(Piece::vec(x.dim));
        ps
    }

    /// families38: main-pool bytes a token takes in one layer on a rank of `tp`: K and V at max(1,
    /// KV heads / tp) heads of `head_dim`, bf16 (published, tp 8: 2 × 1 × 128 × 2 = 512).
    pub fn main_layer_bytes(&self, tp: u64) -> u64 {
        2 * (self.kv_heads / tp.max(1)).max(1) * self.head_dim * BF16
    }

    /// families38: index-pool bytes a token takes in layer `l`: one index key (and an index value
    /// where the layer has one) of the index width, bf16; 0 on a dense-attention layer (published, a
    /// sparse layer: 128 × 2 = 256).
    pub fn index_layer_bytes(&self, l: Layer) -> u64 {
        match self.index {
            Some(x) if l.sparse => (if l.index_value { 2 } else { 1 }) * x.dim * BF16,
            _ => 0,
        }
    }

    /// families38: K/V and index bytes one decoded token reads a step on a rank of `tp` at `ctx`
    /// tokens of context: every layer's main K/V over the context, an MSA layer's over at most the
    /// `sparse_topk_blocks` × `sparse_block_size` chosen tokens plus its index keys over the whole
    /// context (the forward pass's reads, `ModelSpec::forward_pass`). Published, tp 8, 32,768
    /// tokens: 3 × 512 × 32,768 + 57 × (512 × 2,048 + 256 × 32,768) = 50,331,648 + 537,919,488 =
    /// 588,251,136.
    pub fn step_kv_read_bytes(&self, tp: u64, ctx: u64) -> u64 {
        let main = self.main_layer_bytes(tp);
        self.layers
            .iter()
            .map(|&l| match self.index {
                Some(x) if l.sparse => {
                    main * ctx.min(x.topk_blocks * x.block_size) + self.index_layer_bytes(l) * ctx
                }
                _ => main * ctx,
            })
            .sum()
    }

    /// families38: index query heads a rank of `tp` scores with: index heads / min(tp, index heads)
    /// (`MiniMaxM3Attention.num_idx_heads`; published, tp 8: 4 / 4 = 1).
    pub fn index_heads_rank(&self, tp: u64) -> u64 {
        self.index.map_or(0, |x| x.heads / tp.max(1).min(x.heads.max(1)))
    }
}

/// families38: MiniMax-M3's feed-forward layer by layer (dense where `moe_layer_freq` is 0,
/// `llm::config::feed_forward`): the MoE shape with its one shared MLP of `intermediate_size` ×
/// `n_shared_experts` (tpsim's shared experts are each the expert width), the dense width and how
/// many layers lead dense.
pub(crate) fn feed_forward(g: &Geometry) -> super::config::FeedForward {
    let shared = g.shared_width.checked_div(g.expert_width).unwrap_or(0);
    let shape = super::MoeShape::new(g.experts, g.topk, g.expert_width, shared);
    let layers = g
        .layers
        .iter()
        .map(|l| {
            if l.moe {
                super::Ffn::Moe(shape)
            } else {
                super::Ffn::Dense {
                    intermediate: g.dense_width,
                }
            }
        })
        .collect();
    let leading_dense = g.layers.iter().take_while(|l| !l.moe).count() as u32;
    (layers, Some(shape), g.dense_width, leading_dense)
}

/// The error a MiniMax-M3 config gets: a [`ModelError`] naming a missing or impossible key, or
/// [`ModelError::NotModelled`] with what was read, which releases serve it and what tpsim lacks.
/// families38: only the vision-language wrapper gets it (the text model is lowered).
pub(crate) fn refusal(cfg: &ModelConfig, an: &str) -> ModelError {
    let g = match Geometry::read(cfg, an) {
        Ok(g) => g,
        Err(e) => return e,
    };
    let msa = g.index.map_or("no sparse attention".to_string(), |x| {
        format!(
            "MiniMax sparse attention (MSA) on {} layers: an indexer of {} heads x {} choosing {} blocks of {} tokens a query",
            g.sparse_layers(),
            x.heads,
            x.dim,
            x.topk_blocks,
            x.block_size
        )
    });
    ModelError::NotModelled {
        found: an.to_string(),
        why: format!(
            "MiniMax-M3 read from config.json: {} layers of GQA ({} query / {} KV heads of {}) with {}, {} MoE layers \
             ({} routed experts top-{} of width {} and a shared MLP of {}) and {} dense MLP layers of {}; {} parameters \
             by hand without the {} MTP modules and the vision tower ({} active a token); SGLang would cache {} B a \
             token at tp 1 and {} B a rank at tp 8 (bf16 K and V of every layer plus the index keys, \
             mem_cache/memory_pool.py MiniMaxSparseKVPool). SGLang serves both names from 0.5.16 \
             (sglang/srt/models/minimax_m3.py and minimax_m3_vl.py; 0.5.15 has none) and vLLM from 0.24.0 \
             (vllm.models.minimax_m3; 0.23.0 registers no MiniMaxM3 architecture). tpsim lowers the text model \
             (name MiniMaxM3SparseForCausalLM with the text_config keys at the top level) but not this wrapper's \
             vision tower (minimax_vl_common.py: a TP-split CLIP encoder, projector and patch merger), so it gives no \
             memory plan or throughput for it; {NOT_MODELLED}",
            g.layers.len(),
            g.heads,
            g.kv_heads,
            g.head_dim,
            msa,
            g.moe_layers(),
            g.experts,
            g.topk,
            g.expert_width,
            g.shared_width,
            g.layers.len() as u64 - g.moe_layers(),
            g.dense_width,
            g.params(),
            g.mtp_modules,
            g.active_params(),
            g.sglang_kv_bytes_per_token(1),
            g.sglang_kv_bytes_per_token(8),
        ),
    }
}
