//! families34 (issue #17): Qwen4-Exp (`Qwen4ExpForConditionalGeneration`, vLLM's text-only
//! `Qwen4ExpForCausalLM`; the published checkpoint is Qwen/Qwen3.8-Flash-Next) — its config read
//! and its parameters counted, then refused as not modelled.
//!
//! ## What differs from Qwen3.5-MoE (SGLang 0.5.23 `models/qwen4_exp.py`, whose layers subclass
//! `qwen3_5.py`'s)
//!
//! - **Layers**: Gated DeltaNet (`linear_attention`) and gated attention (`full_attention`, also
//!   spelled `qwen_sparse_attention` / `indexed_attention`: `configs/qwen4_exp.py`
//!   `layers_block_type`), each followed by Qwen3.5's MoE (router, routed experts, one shared
//!   expert and its 1-wide gate: `qwen2_moe.py`). The layers' two RMSNorms are removed
//!   (`Qwen4ExpLayerExtensionMixin`), as is the model's final norm (`Qwen4ExpModel.__init__`).
//! - **Gated residual** (`layers/hyperconnection.py` `GatedResidual`, `hc_per_branch_norm`): the
//!   residual is `hc_count` streams; before attention and before the MoE a layer holds a grouped
//!   norm of `hc_count` × hidden, a low-rank read (`input_mix_weight_down` m·hidden → `hc_lowrank`,
//!   `input_mix_weight_up` back) and a write gate (`block_inject_weight` m·hidden → m). The model
//!   ends on one more read without the write gate (`hyper_connection_mixer`).
//! - **QSA** (`layers/attention/qsa/qsa_indexer.py` `QSAIndexer`): on attention layers when
//!   `indexer_n_heads` is set, `index_qk_proj` (hidden → (index heads + index KV heads) × index
//!   dim) and two norms of the index dim; each query attends to `indexer_budget` tokens chosen
//!   from keys compressed `indexer_compress_ratio` to one (`qsa/config.py` `_parse_compressed`
//!   refuses an index KV head count other than 1, a ratio below 2, and a budget / ratio outside
//!   {512, 2,048}).
//! - **N-gram embedding** (`Qwen4ExpPLELayer`, `Qwen4ExpNGramEmbedding`): before each layer of
//!   `ple_layer_ids` (1-indexed), a table of `(ngram_size − 1)` × `heads_per_ngram` hashed heads,
//!   head j of the i-th such layer holding the (i·heads + j + 1)-th prime after
//!   `ngram_vocab_size_base − 1` rows, the sum padded to `make_ngram_vocab_size_divisible_by`,
//!   each row `ple_embed_dim` / heads wide; plus `key_proj` (embed → m·hidden), `value_proj`
//!   (embed → hidden), three grouped norms of m·hidden and a depthwise conv of m·hidden ×
//!   `ple_conv_kernel_size`. SGLang 0.5.20 – 0.5.23 keep the table in pinned host memory by
//!   default on CUDA at bf16 (`arg_groups/model_overrides/qwen4_exp.py`: `ple_offload_embedding`).
//!   families37: vLLM 0.29.0 holds it on the GPU, its rows split over TP
//!   (`models/qwen4_exp/common/ple.py` `PLEVocabParallelEmbedding`, a `VocabParallelEmbedding`);
//!   vLLM 0.30.0 – 0.34.0 in pinned host memory by default (`config/engram.py`
//!   `EngramConfig.cpu_offload`: `VLLM_PLE_CPU_OFFLOAD`, default 1, in 0.30.0; `True` from 0.32.0;
//!   `disk_offload` instead reads rows from the checkpoint files; 0.34.0
//!   `models/qwen4_exp/nvidia/ngram_embedding.py` picks the device, pinned-host or disk class).
//!
//! ## Sharding (families37, read for the lowering still to come; SGLang 0.5.23)
//!
//! The gated residuals' `input_mix_weight_down` / `_up` and `block_inject_weight` are plain
//! `nn.Linear` (`layers/hyperconnection.py` `GatedResidual`) and the n-gram layer's `key_proj` /
//! `value_proj` are `ReplicatedLinear` (`models/qwen4_exp.py` `Qwen4ExpPLELayer`): whole on every
//! rank. The QSA indexer's `index_qk_proj` is `ReplicatedLinear` too
//! (`layers/attention/qsa/qsa_indexer.py`). The n-gram table is a `VocabParallelEmbedding` (rows
//! split over TP) that `ple_offload_embedding` builds on the meta device and replaces by
//! `Qwen4ExpPinnedHostEmbedding` (each rank's row shard in pinned host memory; bf16 or fp8 only).
//! The GDN, attention and MoE layers are Qwen3.5's (`qwen3_5.py`), sharded as tpsim already lowers
//! Qwen3.5-MoE.
//!
//! ## Not modelled
//!
//! Either engine's Qwen4-Exp pools (SGLang `mem_cache/qsa_kv_pool.py` `QSATokenToKVPool`: the
//! full KV of the attention layers, compressed index keys per page, a per-request pending ring,
//! GDN states, the n-gram conv state; vLLM's `vllm/models/qwen4_exp/`), the host-resident n-gram
//! table and its prefetch, and the decode kernels (gated-residual reads and writes, the QSA
//! indexer and sparse attention). A config naming either architecture is therefore refused by
//! `refusal` with what was read and which releases serve it; it never yields a throughput or a
//! memory plan.

use super::config::{ModelConfig, gated_delta_net, req};
use super::hybrid::GatedDeltaNet;
use super::{ModelError, invalid};

/// The names the engines register: SGLang 0.5.20 – 0.5.23 `models/qwen4_exp.py` `EntryClass` (the
/// first only); vLLM 0.29.0 and 0.34.0 `model_executor/models/registry.py` (both, in
/// `vllm.models.qwen4_exp`).
pub const ARCHITECTURES: [&str; 2] = ["Qwen4ExpForConditionalGeneration", "Qwen4ExpForCausalLM"];

/// The compressed top-k widths SGLang's `fast_topk_v2` supports (`qsa/config.py`
/// `_COMPRESSED_BLOCK_TOPK`).
const BLOCK_TOPK: [u64; 2] = [512, 2048];

/// Largest `ngram_vocab_size_base` read: a bound of tpsim's (no engine states one), 50× the
/// published 20,000,000, keeping the prime search short.
const MAX_NGRAM_BASE: u64 = 1 << 30;

/// Most n-gram heads over all n-gram layers (a bound of tpsim's; the published config has 16).
const MAX_NGRAM_HEADS: u64 = 256;

/// The QSA indexer's shape (`indexer_*` keys).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Qsa {
    /// Index query heads (`indexer_n_heads`; 4).
    pub heads: u64,
    /// Index key heads (`indexer_kv_heads`; 1).
    pub kv_heads: u64,
    /// Index head width (`indexer_head_dim`; 128).
    pub head_dim: u64,
    /// Tokens a query attends to (`indexer_budget`; 2,048).
    pub budget: u64,
    /// Tokens one compressed index key stands for (`indexer_compress_ratio`; 4).
    pub ratio: u64,
}

/// Qwen4-Exp's text model as read from config.json (`text_config`, or the top level of an older
/// text-only export: `Qwen4ExpConfig.__init__`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Geometry {
    /// Residual-stream width of one stream (`hidden_size`; 2,560).
    pub hidden: u64,
    /// Whether each decoder layer is an attention layer (else Gated DeltaNet).
    pub attention: Vec<bool>,
    /// Query heads (`num_attention_heads`; 24).
    pub heads: u64,
    /// KV heads (`num_key_value_heads`; 2).
    pub kv_heads: u64,
    /// Attention head width (`head_dim`; 256).
    pub head_dim: u64,
    /// The Gated DeltaNet layers' shape (`linear_*`; 16 key heads, 48 value heads of 128).
    pub gdn: GatedDeltaNet,
    /// Routed experts (`num_experts`; 512).
    pub experts: u64,
    /// Routed experts a token (`num_experts_per_tok`; 10).
    pub topk: u64,
    /// Routed expert width (`moe_intermediate_size`; 640).
    pub expert_width: u64,
    /// Shared expert width (`shared_expert_intermediate_size`; 640).
    pub shared_width: u64,
    /// Vocabulary (`vocab_size`; 248,320).
    pub vocab: u64,
    /// Whether the head shares the embedding (`tie_word_embeddings`; false).
    pub tied: bool,
    /// Gated-residual streams (`hc_count`; 4).
    pub hc_count: u64,
    /// Gated-read low rank (`hc_lowrank`; 320).
    pub hc_lowrank: u64,
    /// The QSA indexer, when the config names one.
    pub qsa: Option<Qsa>,
    /// N-gram layers, 1-indexed, sorted (`ple_layer_ids`; `[2]`).
    pub ple_layers: Vec<u64>,
    /// Width of an n-gram lookup over all heads (`ple_embed_dim`; 2,560).
    pub ple_embed_dim: u64,
    /// The n-gram layer's conv kernel (`ple_conv_kernel_size`; 4).
    pub ple_conv_kernel: u64,
    /// Hashed heads per n-gram layer: (`ngram_size` − 1) × `heads_per_ngram` (16).
    pub ngram_heads: u64,
    /// `ngram_vocab_size_base` (20,000,000).
    pub ngram_base: u64,
    /// `make_ngram_vocab_size_divisible_by` (128).
    pub ngram_pad: u64,
}

/// A positive count or width no larger than `max`.
fn bounded(v: Option<u64>, default: u64, key: &str, max: u64) -> Result<u64, ModelError> {
    match v.unwrap_or(default) {
        x if x == 0 || x > max => Err(invalid(key, x.to_string(), format!("1 to {max}"))),
        x => Ok(x),
    }
}

/// The decoder layers' kinds: `layer_types` read as SGLang's `layers_block_type` reads it, else
/// every `full_attention_interval`-th layer attention (Qwen3-Next's default 4).
fn layer_kinds(text: &ModelConfig, layers: u64) -> Result<Vec<bool>, ModelError> {
    let Some(types) = &text.layer_types else {
        let every = bounded(text.full_attention_interval, 4, "full_attention_interval", layers)?;
        return Ok((1..=layers).map(|i| i.is_multiple_of(every)).collect());
    };
    if types.len() as u64 != layers {
        return Err(invalid(
            "layer_types",
            format!("{} entries", types.len()),
            format!("one entry per layer (num_hidden_layers = {layers})"),
        ));
    }
    types
        .iter()
        .map(|t| match t.as_str() {
            "full_attention" | "qwen_sparse_attention" | "indexed_attention" => Ok(true),
            "linear_attention" => Ok(false),
            other => Err(invalid(
                "layer_types",
                format!("\"{other}\""),
                "\"linear_attention\", \"full_attention\", \"qwen_sparse_attention\" or \"indexed_attention\"".into(),
            )),
        })
        .collect()
}

/// The QSA profile, `None` without `indexer_n_heads`; the engine's refusals otherwise
/// (`qsa/config.py` `_parse_compressed`, its texts).
fn qsa(text: &ModelConfig, an: &str) -> Result<Option<Qsa>, ModelError> {
    if text.indexer_n_heads.is_none() {
        return Ok(None);
    }
    let q = Qsa {
        heads: req(text.indexer_n_heads, "indexer_n_heads", an)?,
        kv_heads: req(text.indexer_kv_heads, "indexer_kv_heads", an)?,
        head_dim: req(text.indexer_head_dim, "indexer_head_dim", an)?,
        budget: req(text.indexer_budget, "indexer_budget", an)?,
        ratio: req(text.indexer_compress_ratio, "indexer_compress_ratio", an)?,
    };
    if q.kv_heads != 1 {
        return Err(invalid(
            "indexer_kv_heads",
            q.kv_heads.to_string(),
            "1 (\"the QSA MQA operators require indexer_kv_heads=1\")".into(),
        ));
    }
    if q.ratio < 2 || !q.budget.is_multiple_of(q.ratio) || !BLOCK_TOPK.contains(&(q.budget / q.ratio)) {
        return Err(invalid(
            "indexer_budget / indexer_compress_ratio",
            format!("{} / {}", q.budget, q.ratio),
            "a ratio of at least 2 dividing the budget, budget / ratio 512 or 2048 (\"fast_topk_v2 requires \
             indexer_budget / indexer_compress_ratio to be one of [512, 2048]\")"
                .into(),
        ));
    }
    Ok(Some(q))
}

/// Whether `n` is prime (trial division; `n` ≤ 2^31 here).
fn is_prime(n: u64) -> bool {
    if n < 2 || (n > 2 && n.is_multiple_of(2)) {
        return n == 2;
    }
    let mut d = 3;
    while d * d <= n {
        if n.is_multiple_of(d) {
            return false;
        }
        d += 2;
    }
    true
}

impl Geometry {
    /// Read Qwen4-Exp's keys with the defaults of SGLang 0.5.23 `Qwen4ExpTextConfig`; a missing or
    /// impossible key is an error naming it.
    pub fn read(cfg: &ModelConfig, an: &str) -> Result<Geometry, ModelError> {
        let text = cfg.text_config.as_deref().unwrap_or(cfg);
        let hidden = req(text.hidden_size, "hidden_size", an)?;
        let layers = req(text.num_hidden_layers, "num_hidden_layers", an)?;
        // `Qwen4ExpTextConfig.__init__`: "Qwen4-Exp requires hc_count > 1, got {hc_count}."
        let hc_count = bounded(text.hc_count, 4, "hc_count", 64)?;
        if hc_count < 2 {
            return Err(invalid(
                "hc_count",
                hc_count.to_string(),
                format!("more than 1 (\"Qwen4-Exp requires hc_count > 1, got {hc_count}.\")"),
            ));
        }
        let ngram_size = bounded(text.ngram_size, 3, "ngram_size", 16)?;
        let per = bounded(text.heads_per_ngram, 8, "heads_per_ngram", MAX_NGRAM_HEADS)?;
        let mut ple_layers = text.ple_layer_ids.clone().unwrap_or_default();
        ple_layers.sort_unstable();
        ple_layers.dedup();
        if let Some(&l) = ple_layers.iter().find(|&&l| l == 0 || l > layers) {
            return Err(invalid(
                "ple_layer_ids",
                l.to_string(),
                format!("layers 1 to {layers}"),
            ));
        }
        let g = Geometry {
            hidden,
            attention: layer_kinds(text, layers)?,
            heads: req(text.num_attention_heads, "num_attention_heads", an)?,
            kv_heads: req(text.num_key_value_heads, "num_key_value_heads", an)?,
            head_dim: req(text.head_dim, "head_dim", an)?,
            gdn: gated_delta_net(text, an)?,
            experts: req(text.num_experts, "num_experts", an)?,
            topk: req(text.num_experts_per_tok, "num_experts_per_tok", an)?,
            expert_width: req(text.moe_intermediate_size, "moe_intermediate_size", an)?,
            shared_width: text.shared_expert_intermediate_size.unwrap_or(0),
            vocab: req(text.vocab_size, "vocab_size", an)?,
            tied: cfg
                .tie_word_embeddings
                .or(text.tie_word_embeddings)
                .unwrap_or(false),
            hc_count,
            hc_lowrank: bounded(text.hc_lowrank, 320, "hc_lowrank", 1 << 20)?,
            qsa: qsa(text, an)?,
            ple_embed_dim: bounded(text.ple_embed_dim, hidden, "ple_embed_dim", 1 << 20)?,
            ple_conv_kernel: bounded(text.ple_conv_kernel_size, 4, "ple_conv_kernel_size", 64)?,
            ngram_heads: (ngram_size - 1) * per,
            ngram_base: bounded(
                text.ngram_vocab_size_base,
                20_000_000,
                "ngram_vocab_size_base",
                MAX_NGRAM_BASE,
            )?,
            ngram_pad: bounded(
                text.make_ngram_vocab_size_divisible_by,
                128,
                "make_ngram_vocab_size_divisible_by",
                1 << 20,
            )?,
            ple_layers,
        };
        // `Qwen4ExpNGramEmbedding.__init__`: "ngram_size must be >= 2" and "ple_embed_dim must be
        // divisible by total ngram heads".
        if ngram_size < 2 || !g.ple_embed_dim.is_multiple_of(g.ngram_heads) {
            return Err(invalid(
                "ngram_size / ple_embed_dim",
                format!("{ngram_size} / {}", g.ple_embed_dim),
                format!(
                    "ngram_size >= 2 and ple_embed_dim divisible by the n-gram heads ({})",
                    g.ngram_heads
                ),
            ));
        }
        if g.ngram_heads * g.ple_layers.len() as u64 > MAX_NGRAM_HEADS {
            return Err(invalid(
                "ple_layer_ids / heads_per_ngram",
                format!("{} heads", g.ngram_heads * g.ple_layers.len() as u64),
                format!("at most {MAX_NGRAM_HEADS} n-gram heads over all n-gram layers"),
            ));
        }
        if g.topk > g.experts || !g.heads.is_multiple_of(g.kv_heads) {
            return Err(invalid(
                "num_experts_per_tok / num_key_value_heads",
                format!("{} / {}", g.topk, g.kv_heads),
                format!(
                    "at most num_experts ({}) / a divisor of num_attention_heads ({})",
                    g.experts, g.heads
                ),
            ));
        }
        Ok(g)
    }

    /// Decoder layers (`num_hidden_layers`).
    pub fn layers(&self) -> u64 {
        self.attention.len() as u64
    }

    /// Attention (QSA) layers. Flash-Next: 12 of 48.
    pub fn attention_layers(&self) -> u64 {
        self.attention.iter().filter(|&&a| a).count() as u64
    }

    /// A gated-residual read (grouped norm, down, up) and, with `write`, its write gate. Flash-Next:
    /// 10,240 + 2 × 10,240 × 320 = 6,563,840, + 10,240 × 4 = 6,604,800.
    pub fn gated_residual_params(&self, write: bool) -> u64 {
        let mh = self.hc_count * self.hidden;
        mh + 2 * mh * self.hc_lowrank + if write { mh * self.hc_count } else { 0 }
    }

    /// A Gated DeltaNet mixer (`qwen3_5.py`): in_proj_qkvz, in_proj_ba, conv1d, A_log, dt_bias,
    /// norm, out_proj. Flash-Next: 41,943,040 + 245,760 + 40,960 + 48 + 48 + 128 + 15,728,640 =
    /// 57,958,624.
    pub fn gdn_params(&self) -> u64 {
        let (g, h) = (&self.gdn, self.hidden);
        h * (2 * g.key_dim() + 2 * g.value_dim())
            + h * 2 * g.num_v_heads
            + g.conv_dim() * g.conv_kernel
            + 2 * g.num_v_heads
            + g.head_v_dim
            + g.value_dim() * h
    }

    /// A gated attention mixer and its indexer: q_proj (query and output gate), k/v_proj,
    /// o_proj, q/k norms; index_qk_proj and two norms. Flash-Next: 31,457,280 + 2,621,440 +
    /// 15,728,640 + 512 = 49,807,872, indexer 1,638,400 + 256 → 51,446,528.
    pub fn attention_params(&self) -> u64 {
        let (h, q, kv) = (
            self.hidden,
            self.heads * self.head_dim,
            self.kv_heads * self.head_dim,
        );
        let index = self
            .qsa
            .map_or(0, |x| h * (x.heads + x.kv_heads) * x.head_dim + 2 * x.head_dim);
        2 * h * q + 2 * h * kv + q * h + 2 * self.head_dim + index
    }

    /// One expert (gate, up, down) of `width`: 3 × hidden × width (Flash-Next, 640: 4,915,200).
    fn expert_params(&self, width: u64) -> u64 {
        3 * self.hidden * width
    }

    /// A layer's MoE: router, routed experts, shared expert and its gate. Flash-Next: 1,310,720 +
    /// 2,516,582,400 + 4,915,200 + 2,560 = 2,522,810,880.
    pub fn moe_params(&self) -> u64 {
        self.experts * self.hidden
            + self.experts * self.expert_params(self.expert_width)
            + self.expert_params(self.shared_width)
            + if self.shared_width > 0 { self.hidden } else { 0 }
    }

    /// Rows of the n-gram table of the `index`-th n-gram layer (0-based): the primes after
    /// `ngram_vocab_size_base − 1` numbered index·heads + 1 to (index + 1)·heads, summed, padded.
    /// Flash-Next, layer 0: 20,000,003 + … + 20,000,171 = 320,001,446 → 320,001,536.
    pub fn ngram_rows(&self, index: u64) -> u64 {
        let (mut p, mut n, mut sum) = (self.ngram_base - 1, 0, 0);
        while n < (index + 1) * self.ngram_heads {
            p += 1;
            if is_prime(p) {
                n += 1;
                if n > index * self.ngram_heads {
                    sum += p;
                }
            }
        }
        sum.div_ceil(self.ngram_pad) * self.ngram_pad
    }

    /// All n-gram tables: rows × (`ple_embed_dim` / heads). Flash-Next: 320,001,536 × 160 =
    /// 51,200,245,760 (card: 51B).
    pub fn ngram_table_params(&self) -> u64 {
        let width = self.ple_embed_dim / self.ngram_heads;
        (0..self.ple_layers.len() as u64)
            .map(|i| self.ngram_rows(i) * width)
            .sum()
    }

    /// An n-gram layer without its table: key_proj, value_proj, three grouped norms, the conv.
    /// Flash-Next: 26,214,400 + 6,553,600 + 30,720 + 40,960 = 32,839,680.
    pub fn ple_layer_params(&self) -> u64 {
        let mh = self.hc_count * self.hidden;
        self.ple_embed_dim * mh + self.ple_embed_dim * self.hidden + 3 * mh + mh * self.ple_conv_kernel
    }

    /// The main model (the card's count): embedding, head unless tied, final read, every layer
    /// (mixer, two gated residuals, MoE) and the n-gram layers without their tables; MTP layers and
    /// the vision tower excluded. Flash-Next: 125,743,653,760 (card: 125B).
    pub fn main_params(&self) -> u64 {
        let embed = self.vocab * self.hidden * if self.tied { 1 } else { 2 };
        let per_layer = 2 * self.gated_residual_params(true) + self.moe_params();
        let layers: u64 = self
            .attention
            .iter()
            .map(|&a| {
                per_layer
                    + if a {
                        self.attention_params()
                    } else {
                        self.gdn_params()
                    }
            })
            .sum();
        embed
            + self.gated_residual_params(false)
            + layers
            + self.ple_layers.len() as u64 * self.ple_layer_params()
    }

    /// Main model plus n-gram tables. Flash-Next: 176,943,899,520.
    pub fn params(&self) -> u64 {
        self.main_params() + self.ngram_table_params()
    }

    /// Main-model parameters a decoded token touches: `num_experts_per_tok` routed experts a layer
    /// instead of all (embedding and head counted whole). Flash-Next: 7,306,994,560; without
    /// embedding and head 6,035,596,160 (card: 6B).
    pub fn active_params(&self) -> u64 {
        self.main_params()
            - self.layers() * (self.experts - self.topk) * self.expert_params(self.expert_width)
    }

    /// Bytes a cached token takes in SGLang's QSA pool at a bf16 KV cache and the default bf16
    /// indexer (`qsa_kv_pool.py`: the attention layers' K and V, plus `qsa_bytes_per_token`: index
    /// key bytes / ratio a layer). Flash-Next: 12 × 2 × 2 × 256 × 2 + 12 × 256 / 4 = 25,344.
    pub fn sglang_kv_bytes_per_token(&self) -> u64 {
        let kv = 2 * self.kv_heads * self.head_dim * 2;
        let index = self.qsa.map_or(0, |q| q.kv_heads * q.head_dim * 2 / q.ratio);
        self.attention_layers() * (kv + index)
    }
}

/// The error a Qwen4-Exp config gets: a [`ModelError`] naming a missing or impossible key, or
/// [`ModelError::NotModelled`] with what was read, which releases serve it and what tpsim lacks.
pub(crate) fn refusal(cfg: &ModelConfig, an: &str) -> ModelError {
    let g = match Geometry::read(cfg, an) {
        Ok(g) => g,
        Err(e) => return e,
    };
    let qsa = g.qsa.map_or("no QSA indexer".to_string(), |q| {
        format!(
            "a QSA indexer of {} heads x {} choosing {} tokens from keys compressed {} to 1",
            q.heads, q.head_dim, q.budget, q.ratio
        )
    });
    ModelError::NotModelled {
        found: an.to_string(),
        why: format!(
            "Qwen4-Exp read from config.json: {} layers ({} Gated DeltaNet, {} gated attention with {}), {} gated-residual \
             streams of {}, {} routed experts top-{} and a shared expert, n-gram embeddings before layers {:?} ({} \
             parameters in their tables); {} main-model parameters ({} active a token) by hand, {} with the tables; SGLang \
             would cache, at tp 1, {} B a token (bf16 KV of the attention layers plus compressed index keys, mem_cache/qsa_kv_pool.py) \
             and {} B of GDN state a request. SGLang serves Qwen4ExpForConditionalGeneration from 0.5.20 \
             (sglang/srt/models/qwen4_exp.py; 0.5.19 has none, and 0.5.20 - 0.5.23 keep the n-gram table in host memory \
             by default on CUDA at bf16) and vLLM both names from 0.29.0 (vllm/models/qwen4_exp; 0.28.0 has none; 0.29.0 holds the n-gram \
             table on the GPU split over TP, {} B at bf16 in all, 0.30.0 - 0.34.0 in pinned host memory by default: \
             EngramConfig.cpu_offload), but tpsim models neither engine's Qwen4-Exp pools (QSA KV \
             and index caches, GDN and n-gram conv states) nor its decode kernels (gated-residual reads and writes, the QSA \
             indexer and sparse attention, the host-side n-gram lookup), so it gives no memory plan or throughput for it",
            g.layers(),
            g.layers() - g.attention_layers(),
            g.attention_layers(),
            qsa,
            g.hc_count,
            g.hidden,
            g.experts,
            g.topk,
            g.ple_layers,
            g.ngram_table_params(),
            g.main_params(),
            g.active_params(),
            g.params(),
            g.sglang_kv_bytes_per_token(),
            (g.layers() - g.attention_layers()) * g.gdn.state_bytes(1),
            2 * g.ngram_table_params(),
        ),
    }
}
