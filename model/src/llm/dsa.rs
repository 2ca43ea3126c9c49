//! DeepSeek sparse attention (DSA; SGLang calls it NSA): DeepSeek-V3.2(-Exp)
//! (`DeepseekV32ForCausalLM`) and GLM-5 (`GlmMoeDsaForCausalLM`).
//!
//! Every layer is MLA (as DeepSeek-V3) plus a *lightning indexer*: a small multi-head scorer whose
//! single-head key (`index_head_dim` = 128) is cached per token per layer, in fp8 with one fp32
//! scale per 128 values (132 B), whatever the KV dtype. At decode each query scores **every** cached
//! indexer key, keeps the `index_topk` (2048) best tokens, and the MLA attention reads only those
//! tokens' latents (HF transformers `docs/source/en/model_doc/deepseek_v32.md`, "Lightning indexer"
//! and "Fine-grained token selection"; SGLang `layers/attention/nsa/nsa_indexer.py`).
//! The decode traffic this gives per layer — every context token's indexer key plus the selected
//! tokens' latents — is spelled out for the same indexer in vllm-project/vllm PR #51209 (DeepSeek-V4:
//! "reads (S/4) × 132 B of its own K cache, while the main sparse MLA reads only index_topk × 576 B";
//! V3.2/GLM-5 index every token, S × 132 B), and the indexer is TP-replicated, "so every rank pays it
//! in full". `sim/src/decode/passes.rs` adds it to each layer's attention time.
//!
//! ## Weights (SGLang 0.5.9 `layers/attention/nsa/nsa_indexer.py` `Indexer.__init__`), per layer, all
//! replicated on every rank:
//!
//! | piece | shape | format |
//! |---|---|---|
//! | `wq_b` | (index_n_heads · index_head_dim) × q_lora_rank | `ReplicatedLinear` with the quant config (fp8 blocks in the FP8 checkpoints) |
//! | `wk` | index_head_dim × hidden | same |
//! | `weights_proj` | index_n_heads × hidden | `ReplicatedLinear`, `params_dtype = bfloat16` on CUDA, no quant config |
//! | `k_norm` | LayerNorm(index_head_dim), weight + bias | fp32 |
//!
//! ## KV cache per token per layer (engine-exact; research 16-kv-arithmetic.md §2)
//!
//! SGLang pool (`mem_cache/memory_pool.py` `NSATokenToKVPool`, 0.5.9): the latent buffer holds
//! `kv_cache_dim` elements per token — bf16: kv_lora_rank + qk_rope_head_dim = 576 elements (1,152 B);
//! fp8_e4m3 (non-trtllm NSA backends, the fp8 default): `kv_lora_rank + kv_lora_rank / 128 × 4 +
//! qk_rope_head_dim × 2` = 656 B (fp8 nope part, four fp32 scales, rope kept in bf16;
//! `model_runner_kv_cache_mixin.py` `calculate_mla_kv_cache_dim`). The indexer buffer holds
//! `(N + P + 1) // 64` pages of 64 × 132 B.
//!
//! SGLang budget (`model_runner_kv_cache_mixin.py` `get_cell_size_per_token`): see [`NsaBudgetRule`].
//!
//! vLLM 0.11 (`model_executor/models/config.py` `DeepseekV32ForCausalLM.verify_and_update_config`;
//! `v1/kv_cache_interface.py` `MLAAttentionSpec`; `models/deepseek_v2.py` `DeepseekV32IndexerCache`):
//! KV dtype `auto`/fp8 → `fp8_ds_mla` (656 B per token per layer), bf16 → 1,152 B; the indexer cache
//! is an `MLAAttentionSpec(head_size = 132, uint8)`; block size 64 (`platforms/cuda.py`); all layers
//! form one `UniformTypeKVCacheSpecs` group, so tokens = available // (64 · Σ pages) · 64 and vLLM
//! allocates exactly what it budgets.

use serde::Serialize;

use super::ModelSpec;
use super::piece::{Fmt, Piece};

/// Values per fp32 scale in the fp8 latent and the indexer key (`NSATokenToKVPool.quant_block_size`).
pub const NSA_QUANT_BLOCK: u64 = 128;
/// Bytes of one such scale (fp32).
const SCALE_BYTES: u64 = 4;
/// Page size SGLang forces for DSA models on CUDA (`server_args.py`
/// `_handle_model_specific_adjustments`: "Setting page size to 64 for DeepSeek DSA.") and vLLM's
/// block size for the FlashMLA sparse backends (`platforms/cuda.py`).
pub const NSA_PAGE_SIZE: u64 = 64;
/// Tokens per page of SGLang's indexer buffer (`NSATokenToKVPool`: `(size + page_size + 1) //
/// 64` pages of 64 tokens).
const INDEXER_PAGE: u64 = 64;

/// The lightning indexer of a DSA model (config.json `index_n_heads`, `index_head_dim`,
/// `index_topk`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Indexer {
    /// Indexer query heads (`index_n_heads`: 64 for V3.2, 32 for GLM-5).
    pub n_heads: u64,
    /// Width of the indexer query heads and of the single cached key (`index_head_dim`, 128).
    pub head_dim: u64,
    /// Tokens each query attends to (`index_topk`, 2048).
    pub topk: u64,
}

impl Indexer {
    /// Bytes of one cached indexer key (per token per layer): fp8 values plus one fp32 scale per 128
    /// (SGLang `get_cell_size_per_token`: `index_head_dim + index_head_dim // 128 × 4`, uint8):
    /// 128 + 4 = 132.
    pub fn key_bytes(&self) -> u64 {
        self.head_dim + self.head_dim / NSA_QUANT_BLOCK * SCALE_BYTES
    }

    /// FLOPs per query token per context token of the indexer's scoring (each of `n_heads` heads
    /// takes a `head_dim` dot product with the cached key): 2 × n_heads × head_dim. Replicated: every
    /// rank scores all heads (the indexer's weights are `ReplicatedLinear`). V3.2: 2 × 64 × 128 = 16,384.
    pub fn score_flops_per_ctx_token(&self) -> f64 {
        2.0 * (self.n_heads * self.head_dim) as f64
    }

    /// The indexer's weights in one layer on one rank (module table): replicated.
    pub(crate) fn pieces(&self, hidden: u64, q_lora_rank: u64) -> Vec<Piece> {
        vec![
            Piece::new(self.n_heads * self.head_dim, q_lora_rank, Fmt::Linear).gemm("indexer.wq_b"),
            Piece::new(self.head_dim, hidden, Fmt::Linear).gemm("indexer.wk"),
            Piece::new(self.n_heads, hidden, Fmt::Model).gemm("indexer.weights_proj"),
            // k_norm: LayerNorm(dtype = float32), weight + bias.
            Piece::new(2 * self.head_dim, 1, Fmt::Fp32),
        ]
    }
}

/// What SGLang's token budget (`cell_size`) counts for a DSA model, by version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum NsaBudgetRule {
    /// SGLang before PR #11309 (merged 2025-10-07): the plain MLA cell `(kv_lora_rank +
    /// qk_rope_head_dim) × e` per layer; the indexer is not budgeted at all.
    LatentOnly,
    /// PR #11309 through 0.5.16 (`get_cell_size_per_token` in 0.5.5 and 0.5.9): `(kv_lora_rank +
    /// qk_rope_head_dim) × e + 132` per layer, i.e. fp8 576 + 132 = 708 while the pool holds 656 + 132
    /// = 788 (bf16: 1,152 + 132 both).
    LatentAndIndexer,
    /// 0.5.17 on (`model_executor/pool_configurator.py` `_compute_cell_size`): the pool's own
    /// `calculate_mla_kv_cache_dim` × e + 132 = 788 (fp8), 1,284 (bf16) — budget equals allocation.
    Allocated,
}

impl NsaBudgetRule {
    /// The rule of an SGLang build given only its memory era (an `engine.costs.era` without a
    /// release): late-2025 builds budget latent + indexer; spring-2026 builds budget what they
    /// allocate; earlier eras predate DSA support (their rule would be [`NsaBudgetRule::LatentOnly`]).
    /// A named release is keyed by version instead (the fix is in 0.5.17, while the spring-2026 era
    /// starts at 0.5.14: `crate::memory::sglang_era_from_version`), as tpsim's
    /// `decode::memory::nsa_budget_rule` does.
    pub fn for_era(era: crate::memory::SglangEra) -> NsaBudgetRule {
        use crate::memory::SglangEra;
        match era {
            SglangEra::Early2025 | SglangEra::Mid2025 => NsaBudgetRule::LatentOnly,
            SglangEra::Late2025 => NsaBudgetRule::LatentAndIndexer,
            SglangEra::Spring2026 => NsaBudgetRule::Allocated,
        }
    }
}

/// Per-token KV bytes of a DSA model for one KV dtype, per layer and over all layers (not divided
/// by TP: the latent and the indexer key are replicated on every attention rank).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct NsaKv {
    /// KV-holding layers.
    pub layers: u64,
    /// Latent bytes SGLang ≤ 0.5.16 budgets per token per layer: (kv_lora_rank + qk_rope_head_dim) × e
    /// (fp8 576, bf16 1,152).
    pub latent_budget: u64,
    /// Latent bytes the pools hold per token per layer (fp8 656, bf16 1,152); also what a decode step
    /// reads per selected token.
    pub latent_pool: u64,
    /// Indexer key bytes per token per layer (132).
    pub index: u64,
}

impl NsaKv {
    /// SGLang's `cell_size` under `rule`, bytes per token over all layers. V3.2 (61 layers), fp8:
    /// LatentOnly 35,136; LatentAndIndexer 43,188; Allocated 48,068.
    pub fn budget_cell(&self, rule: NsaBudgetRule) -> u64 {
        let per_layer = match rule {
            NsaBudgetRule::LatentOnly => self.latent_budget,
            NsaBudgetRule::LatentAndIndexer => self.latent_budget + self.index,
            NsaBudgetRule::Allocated => self.latent_pool + self.index,
        };
        per_layer * self.layers
    }

    /// Bytes per token the pools hold over all layers (vLLM's cell as well): V3.2 fp8 48,068,
    /// bf16 78,324.
    pub fn pool_cell(&self) -> u64 {
        (self.latent_pool + self.index) * self.layers
    }

    /// Bytes SGLang's `NSATokenToKVPool` allocates for `tokens` tokens with page size `page`: latent
    /// `(tokens + page) × latent_pool` plus indexer `((tokens + page + 1) // 64) × 64 × index`, per
    /// layer. With tokens a multiple of 64 and page 64 this is `(tokens + 64) × pool_cell`.
    pub fn sglang_pool_bytes(&self, tokens: u64, page: u64) -> u64 {
        let latent = (tokens + page).saturating_mul(self.latent_pool);
        let index = ((tokens + page + 1) / INDEXER_PAGE)
            .saturating_mul(INDEXER_PAGE)
            .saturating_mul(self.index);
        latent.saturating_add(index).saturating_mul(self.layers)
    }

    /// What the log line `KV Cache is allocated. #tokens: N, KV size: X GB` prints for X (GiB, two
    /// decimals) — `get_kv_size_bytes` adds the indexer buffers from PR #11309 on; before it the
    /// line printed the latent buffers only.
    pub fn sglang_logged_kv_gib(&self, tokens: u64, page: u64, with_indexer: bool) -> f64 {
        let bytes = if with_indexer {
            self.sglang_pool_bytes(tokens, page)
        } else {
            (tokens + page) * self.latent_pool * self.layers
        };
        bytes as f64 / (1u64 << 30) as f64
    }
}

impl ModelSpec {
    /// The DSA per-token KV layout for a KV element size of `kv_bytes` (1 = fp8_e4m3 /
    /// vLLM fp8_ds_mla, 2 = bf16); `None` for models without an indexer.
    pub fn nsa_kv(&self, kv_bytes: u64) -> Option<NsaKv> {
        let ix = self.indexer?;
        let super::Attention::Mla {
            kv_lora_rank,
            qk_rope_head_dim,
            ..
        } = self.attention
        else {
            return None;
        };
        let latent_budget = (kv_lora_rank + qk_rope_head_dim) * kv_bytes;
        let latent_pool = if kv_bytes == 1 {
            // fp8 nope part + one fp32 scale per 128 + the rope part in bf16.
            kv_lora_rank + kv_lora_rank / NSA_QUANT_BLOCK * SCALE_BYTES + qk_rope_head_dim * 2
        } else {
            latent_budget
        };
        Some(NsaKv {
            layers: u64::from(self.kv_layers()),
            latent_budget,
            latent_pool,
            index: ix.key_bytes(),
        })
    }
}
