//! dsv4dec55 (issue #17): DeepSeek-V4's decode layer lowered into the iteration graph (SGLang,
//! plain TP on CUDA; `sim::scenario::dsv4` refuses the rest). [`super::ModelSpec::forward_pass`] replaces
//! each decoder layer's generic work with [`layer_work`]'s; `sim::decode::passes` costs the context
//! reads with [`context_bytes`] and [`context_flops`].
//!
//! ## What a layer reads and computes, per rank (`llm::deepseek_v4` for the geometry)
//!
//! - Attention half: the replicated `wq_a` + `wkv` (block fp8, one fused piece as SGLang stores
//!   them), `q_norm` / `kv_norm`, the column-parallel `wq_b`, the grouped `wo_a` / `wo_b`
//!   (row-parallel, followed by the first all-reduce), the sink, the compressor of a ratio-4 or
//!   ratio-128 layer, the C4 indexer of a ratio-4 layer (`wq_b`, `weights_proj`, its compressor)
//!   and both mHC mixers (fp32, `hc_mult` streams): `deepseek_v4_weights::sglang_layer_bytes`.
//!   Its GEMM FLOPs are 2 × those parameters a token. The context: FlashMLA sparse over the
//!   window and the compressed slots, and the indexer's key scan (`llm::deepseek_v4_decode`
//!   bytes); FLOPs 4 × `head_dim` a slot and query head (QK and PV), 2 × `index_n_heads` ×
//!   `index_head_dim` a scored key (replicated).
//! - Feed-forward half: the router (bf16, fp32 bias past the `num_hash_layers` hash-routed
//!   layers), the shared expert (block fp8) and the expected distinct routed experts in the format
//!   SGLang's release picks (`ExpertFormat::sglang_cuda_by_release`), followed by the second
//!   all-reduce (`deepseek_v4_decode::allreduces_per_layer`).
//!
//! ## Kernels — assumed, class "kernel count"
//!
//! SGLang 0.5.23 `models/deepseek_v4.py` fuses its layer through `hc_boundary` / `mhc` helpers
//! whose launches were not counted kernel by kernel; the counts below follow the module structure
//! (one kernel a GEMM, norm, rotary, store or mixer step) and are assumed:
//! - attention half, ratio 0: mHC pre (mixer GEMM, combine) 2, RMSNorm 1, `wq_a`+`wkv` 1,
//!   `q_norm` + `kv_norm` 2, `wq_b` 1, rotary 1, SWA store 1, FlashMLA sparse and its combine 2,
//!   `wo_a` 1, `wo_b` 1, mHC post 1 = [`ATTN_KERNELS`] = 15; a compressor adds `wkv_gate` and its
//!   compress-and-store ([`COMPRESSOR_KERNELS`] = 2, ratio 128: 17); the C4 indexer adds `wq_b`,
//!   `weights_proj`, its own compressor (2), the key scan and the top-k ([`INDEXER_KERNELS`] = 6,
//!   ratio 4: 23);
//! - feed-forward half: the generic MoE half with shared experts (`forward::ffn_kernels`, 12) and
//!   mHC pre (2) and post (1) = [`FFN_KERNELS`] = 15; a hash layer's table lookup stands where the
//!   top-k is.
//!
//! ## Efficiencies — assumed
//!
//! No kernel of this layer has a measured efficiency in tpsim: the sparse attention and indexer
//! run at the attention class of the engine's backend (assumed, class attention), the projections
//! and mHC mixers at the attention class's GEMM rate on bf16 FLOPs (assumed, class attention: no
//! fp8 tensor rate is claimed for the block-fp8 projections), the experts at the MoE class on bf16
//! FLOPs (assumed, class moe: SM 9.0's W4A16 FlashInfer CUTLASS and DeepGEMM's fp4 path were not
//! measured), the mHC element-wise steps inside those halves. Activation-quantization kernels
//! before the block-fp8 GEMMs are not counted (assumed fused into the kernels above).

use super::deepseek_v4::Geometry;
use super::deepseek_v4_decode::kv_read_bytes;
use super::deepseek_v4_weights::{ExpertFormat, sglang_layer_bytes};
use super::forward::{LayerWork, expected_distinct_experts, ffn_kernels};
use crate::units::Bytes;

/// Kernels of a ratio-0 layer's attention half (module doc; assumed).
pub const ATTN_KERNELS: u32 = 15;
/// Kernels a compressor adds (ratio 4 and 128; module doc; assumed).
pub const COMPRESSOR_KERNELS: u32 = 2;
/// Kernels the C4 indexer adds (ratio 4; module doc; assumed).
pub const INDEXER_KERNELS: u32 = 6;
/// Kernels mHC adds to the feed-forward half: mixer GEMM, combine, post (module doc; assumed).
const FFN_MHC_KERNELS: u32 = 3;
/// Kernels of the feed-forward half (module doc; assumed): 12 + 3 = 15.
pub const FFN_KERNELS: u32 = 12 + FFN_MHC_KERNELS;

/// Kernels of the attention half of a layer of compress ratio `ratio`: 15, 23 (ratio 4), 17 (128).
pub fn attn_kernels(ratio: u64) -> u32 {
    match ratio {
        0 => ATTN_KERNELS,
        4 => ATTN_KERNELS + COMPRESSOR_KERNELS + INDEXER_KERNELS,
        _ => ATTN_KERNELS + COMPRESSOR_KERNELS,
    }
}

/// GEMM parameters of a layer's attention half on one rank at `tp` (module doc): `wq_a` + `wkv`,
/// `wq_b`, `wo_a`, `wo_b`, the compressor's `wkv_gate`, the indexer's `wq_b` and `weights_proj`,
/// both mHC mixers. Flash tp 8, ratio 0: 1,536 × 4,096 + 4,096 × 1,024 + 1,024 × 4,096 (wo_a) +
/// 4,096 × 1,024 (wo_b) + 2 × 24 × 4 × 4,096 = 6,291,456 + 3 × 4,194,304 + 786,432 = 19,660,800.
pub fn attn_gemm_params(g: &Geometry, tp: u64, ratio: u64) -> u64 {
    let (h, tp) = (g.hidden, tp.max(1));
    let q = g.heads * g.head_dim;
    let o = g.o_groups * g.o_lora_rank / tp;
    let m = g.hc_mult;
    let base = (g.q_lora_rank + g.head_dim) * h
        + q / tp * g.q_lora_rank
        + o * (q / g.o_groups)
        + h * o
        + 2 * (2 + m) * m * m * h;
    let gate = |r: u64, d: u64| if r == 4 { 4 * d * h } else { 2 * d * h };
    base + match ratio {
        0 => 0,
        4 => {
            gate(4, g.head_dim)
                + g.index_heads * g.index_head_dim * g.q_lora_rank
                + g.index_heads * h
                + gate(4, g.index_head_dim)
        }
        r => gate(r, g.head_dim),
    }
}

/// Bytes `seqs` requests at `ctx` tokens each read of the KV pools in a layer of ratio `ratio`
/// (`deepseek_v4_decode::kv_read_bytes` × seqs; every rank reads the one replicated KV head).
pub fn context_bytes(g: &Geometry, ratio: u64, ctx: u64, seqs: u64) -> u64 {
    kv_read_bytes(g, ratio, ctx).saturating_mul(seqs)
}

/// FLOPs over the context of one query token at `ctx` tokens in a layer of ratio `ratio` on a rank
/// of `tp` (module doc): 4 × `head_dim` × heads ÷ tp a slot read, plus 2 × `index_n_heads` ×
/// `index_head_dim` a key the indexer scores. Flash tp 8 at 8,192, ratio 4: (128 + 512) slots ×
/// 4 × 512 × 8 + 2,048 × 2 × 64 × 128 = 10,485,760 + 33,554,432 = 44,040,192.
pub fn context_flops(g: &Geometry, tp: u64, ratio: u64, ctx: u64) -> f64 {
    let window = ctx.min(g.window);
    let (slots, scored) = match ratio {
        0 => (window, 0),
        4 => (window + (ctx / 4).min(g.index_topk), ctx / 4),
        r => (window + ctx / r, 0),
    };
    let per_slot = 4 * g.head_dim * (g.heads / tp.max(1));
    (slots * per_slot + scored * 2 * g.index_heads * g.index_head_dim) as f64
}

/// The work of decoder layer `layer` over `tokens` tokens at `tp`, experts in `experts`, built over
/// the generic layer `base` (its mixer and flags kept; module doc for the rest).
pub fn layer_work(
    g: &Geometry,
    tp: u64,
    layer: usize,
    tokens: u64,
    experts: ExpertFormat,
    base: LayerWork,
) -> LayerWork {
    let ratio = g.ratios.get(layer).copied().unwrap_or(0);
    let b = sglang_layer_bytes(g, tp, layer as u64, ratio, experts);
    let nf = tokens as f64;
    let touched = expected_distinct_experts(g.experts, g.topk, tokens);
    let fixed = b.router + b.shared;
    let w = g.expert_width / tp.max(1);
    let expert_params = 3 * g.hidden * w;
    let fixed_params = g.experts * g.hidden + g.shared * expert_params;
    let per_token = fixed_params as f64 + g.topk as f64 * expert_params as f64;
    LayerWork {
        attn_weight_bytes: Bytes(b.attention),
        ffn_weight_bytes: Bytes(fixed.saturating_add((touched * b.expert as f64).round() as u64)),
        attn_flops: 2.0 * attn_gemm_params(g, tp, ratio) as f64 * nf,
        ffn_flops: 2.0 * per_token * nf,
        is_moe: true,
        experts_touched: touched,
        n_experts: g.experts,
        top_k: g.topk,
        expert_shard_bytes: Bytes(b.expert),
        fixed_ffn_bytes: Bytes(fixed),
        attn_kernels: attn_kernels(ratio),
        ffn_kernels: ffn_kernels(true, g.shared > 0) + FFN_MHC_KERNELS,
        attn_quant_kernels: 0,
        attn_quant_bytes: Bytes(0),
        ffn_quant_kernels: 0,
        ffn_quant_bytes: Bytes(0),
        shared_ffn_bytes: Bytes(b.shared),
        shared_ffn_flops: 2.0 * (g.shared * expert_params) as f64 * nf,
        shared_quant_kernels: 0,
        shared_quant_bytes: Bytes(0),
        attn_norm_fed_quant: Default::default(),
        ffn_norm_fed_quant: Default::default(),
        kv_bytes_per_token: super::deepseek_v4_pools::kv_slot_bytes(g),
        kv_window: Some(g.window),
        state_bytes: 0,
        index_bytes_per_token: 0,
        index_flops_per_ctx_token: 0.0,
        attn_low_flops: super::LowFlops::NONE,
        ffn_low_flops: super::LowFlops::NONE,
        expert_low_flops: super::LowFlops::NONE,
        dsv4_ratio: Some(ratio),
        ..base
    }
}
