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
//! ## Kernels — counted from SGLang 0.5.16 (dsv4k56), the MoE part assumed
//!
//! dsv4k56 counted the launches of one decode layer on CUDA SM 9.0 from the SGLang 0.5.16 wheel
//! (PyPI), with the environment defaults of its `srt/environ.py` (`SGLANG_OPT_FUSE_WQA_WKV`,
//! `SGLANG_OPT_FP8_WO_A_GEMM`, `SGLANG_OPT_DEEPGEMM_HC_PRENORM`, `SGLANG_OPT_USE_TILELANG_MHC_PRE` /
//! `_POST` on, `SGLANG_OPT_FUSE_MHC_POST_PRE` off, `SGLANG_OPT_USE_COMPRESSOR_V2` and
//! `SGLANG_OPT_USE_TOPK_V2` on) and a batch above `MQALayer._multi_stream_bs_limit` (64 on Hopper: the
//! single-stream `_forward_prepare`, the path of the c 1,024 rows; the alternate streams below it
//! overlap the same launches). A block-fp8 linear is two launches, the activation's per-token-group
//! quant and the DeepGEMM GEMM (`layers/quantization/fp8_utils.py`
//! `deepgemm_w8a8_block_fp8_linear_with_fallback`).
//! - attention half, ratio 0 ([`ATTN_KERNELS`] = 17): mHC pre 2 (`kernels/ops/layernorm/mhc.py`
//!   `mhc_pre`: DeepGEMM `tf32_hc_prenorm_gemm` and `mhc_pre_big_fuse_with_norm_tilelang`, the input
//!   RMSNorm fused into it: `DeepseekV4DecoderLayer.hc_pre` returns `norm_fused`); `wqkv_a` 2
//!   (`MQALayer._forward_prepare`, fused `wq_a` + `wkv`); `q_norm` 1; `wq_b` 2; `fused_q_norm_rope` 1
//!   (`_compute_q_b`); the KV's norm + rope + SWA store 1 (`_compute_kv_to_cache`:
//!   `set_swa_key_buffer_radix_fused_norm_rope`); FlashMLA sparse decode 2
//!   (`layers/attention/deepseek_v4_backend.py` `forward`: `flash_mla_with_kvcache`, its split-KV
//!   kernel and combine — the combine assumed from FlashMLA's design, not read); the inverse rope 1
//!   (`fused_rope_inplace(..., inverse=True)`); `wo_a` 2 (`sglang_per_token_group_quant_fp8` and
//!   `deep_gemm.fp8_einsum` on SM 9.0); `wo_b` 2; mHC post 1 (`mhc_post`, one TileLang kernel);
//! - a compressor ([`COMPRESSOR_KERNELS`] = 3; ratio 128: 20): `wkv_gate` (`Compressor.compute_kv_score`,
//!   `linear_bf16_fp32`), `compress_forward` and `compress_norm_rope_store`
//!   (`layers/attention/dsv4/compressor_v2.py` `_forward_compress_all_in_one`);
//! - the C4 indexer ([`INDEXER_KERNELS`] = 9; ratio 4: 17 + 3 + 9 = 29): `weights_proj` 1 (counted as
//!   one GEMM), its `wq_b` 2, `fused_q_indexer_rope_hadamard_quant` 1 (`dsv4/indexer.py`
//!   `C4Indexer.compute_q`), its own compressor 3 (`forward_indexer_compressor`), the paged MQA logits 1
//!   (`forward_c4_indexer`: the non-paged plan needs ≥ 8,192 query tokens,
//!   `SGLANG_OPT_DSV4_NONPAGED_INDEXER_MIN_QUERY_TOKENS`) and `topk_transform_512_v2` 1;
//! - feed-forward half ([`FFN_KERNELS`] = 14): mHC pre 2 (the post-attention RMSNorm fused, as above)
//!   and post 1, counted; the MoE is the generic MoE half with shared experts
//!   (`forward::ffn_kernels`, 12) less its RMSNorm (fused into mHC pre): 11, **assumed** — the routed
//!   experts' runner (Marlin, FlashInfer MXFP4, DeepGEMM fp4 by release and flags) was not read kernel
//!   by kernel; a hash layer's table lookup stands where the top-k is.
//!
//! By backend and release ([`sglang_kernels`]):
//! - `--moe-runner-backend marlin` ([`MARLIN_FFN_KERNELS`] = 21, counted from 0.5.16): mHC 3; the
//!   router GEMM 1 and top-k 1 (`models/deepseek_v2.py` `DeepseekV2MoE.forward_normal` /
//!   `forward_normal_dual_stream`; a hash layer's `hash_topk` in its place); the routed experts 11
//!   (`layers/moe/moe_runner/marlin.py` hands `swiglu_limit` to `fused_moe_triton/fused_marlin_moe.py`
//!   `fused_marlin_moe`: the workspace's `torch.zeros` 1, `moe_align_block_size` 1 (one launch
//!   assumed), the intermediate cache's `torch.zeros` 1, `moe_wna16_marlin_gemm` w13 1,
//!   `swiglu_limit_func` 5 (two clamps, silu, multiply, copy: Flash's `swiglu_limit` is 10.0), w2 1 and
//!   the MXFP4 path's `torch.sum` 1); the shared expert 4 (`DeepseekV2MLP.forward` with `swiglu_limit`:
//!   `gate_up_proj` quant + GEMM 2, `silu_and_mul_contig_post_quant` 1, DeepGEMM `gemm_nt_f8f8bf16` 1);
//!   `maybe_fuse_routed_scale_and_shared_add` 1. The shared expert runs on the alternate stream under
//!   a CUDA graph (`forward_normal_dual_stream`): the same launches, overlapped (not modelled).
//! - from 0.5.19 `SGLANG_OPT_FUSE_MHC_POST_PRE` is on (`srt/environ.py`: off in 0.5.12 and 0.5.16),
//!   and `kernels/ops/layernorm/mhc.py` `mhc_fused_post_pre` (0.5.19) merges one half's mHC post with
//!   the next half's pre into 2 launches (`mhc_fused_post_pre_fma_tilelang`, then
//!   `mhc_pre_big_fuse_with_norm_tilelang`) at ≤ 32 tokens (`fma_token_threshold`), and into the
//!   unfused 3 above: each half one launch fewer at ≤ 32 tokens, but the last layer's feed-forward
//!   half, whose post `DeepseekV4Model` completes alone.
//!
//! CUDA graphs: the counts are GPU launches; whether the host pays for them is the graph rule's
//! (`sim::serve::graphs`). SGLang 0.5.16 `server_args.py` `_handle_gpu_memory_settings` gives a card of
//! 90 – 160 GiB (H200) `cuda_graph_max_bs` 512 at tp ≥ 4 (256 below) and the DeepSeek-V4 hook leaves it;
//! 0.5.22+ caps the default at `max_running_requests` (256 from the hook): a c 1,024 run's 256-request
//! decode step is graphed in both.
//!
//! Not counted: at tp > 1 on SM 9.0 `wo_a`'s quant reads `o.reshape(T * G, D).contiguous()` of the
//! attention output sliced from its 64-head padding (`MQALayer.forward`), which is not a view: likely
//! one copy more a layer (read late, not added); the metadata kernels run once a step (not a layer),
//! and 0.5.23's further fusions
//! (`models/deepseek_v4_mhc.py`, `deepseek_v4_boundary.py`, `kernels/ops/gemm/dsv4_wo_a.py`): the 0.5.16
//! counts are used for every release 0.5.12 – 0.5.23 (assumed for the others).
//!
//! ## Efficiencies — assumed
//!
//! No kernel of this layer has a measured efficiency in tpsim: the sparse attention and indexer
//! run at the attention class of the engine's backend (assumed, class attention), the projections
//! and mHC mixers at the attention class's GEMM rate on bf16 FLOPs (assumed, class attention: no
//! fp8 tensor rate is claimed for the block-fp8 projections), the experts at the MoE class on bf16
//! FLOPs (assumed, class moe: SM 9.0's W4A16 FlashInfer CUTLASS and DeepGEMM's fp4 path were not
//! measured), the mHC element-wise steps inside those halves. dsv4k57: under `--moe-runner-backend
//! marlin` on an H100 or H200 the feed-forward half is held to the template's Marlin ceiling
//! (`[compute.moe_backends.marlin]`, 0.257 of the bf16 peak: sglang PR 38884's nsys capture of these
//! experts at a 16,384-token prefill forward on H100), which binds prefill chunks, not decode steps. The activation-quantization launches
//! before the block-fp8 GEMMs are counted above (dsv4k56); their bytes and time beyond a launch are not
//! modelled (assumed small beside the GEMMs they feed).

use super::deepseek_v4::Geometry;
use super::deepseek_v4_decode::kv_read_bytes;
use super::deepseek_v4_weights::{ExpertFormat, sglang_layer_bytes};
use super::forward::{LayerWork, expected_distinct_experts, ffn_kernels};
use crate::units::Bytes;

/// Kernels of a ratio-0 layer's attention half (module doc; counted, SGLang 0.5.16):
/// 2 + 2 + 1 + 2 + 1 + 1 + 2 + 1 + 2 + 2 + 1 = 17.
pub const ATTN_KERNELS: u32 = 17;
/// Kernels a compressor adds (ratio 4 and 128; module doc; counted): `wkv_gate`, compress, store = 3.
pub const COMPRESSOR_KERNELS: u32 = 3;
/// Kernels the C4 indexer adds (ratio 4; module doc; counted): 1 + 2 + 1 + 3 + 1 + 1 = 9.
pub const INDEXER_KERNELS: u32 = 9;
/// Kernels mHC adds to the feed-forward half: pre (prenorm GEMM, fused mixer + norm) 2, post 1
/// (module doc; counted).
const FFN_MHC_KERNELS: u32 = 3;
/// The generic MoE half's RMSNorm, which SGLang fuses into mHC pre (module doc; counted).
const FFN_NORM_FUSED: u32 = 1;
/// Kernels of the feed-forward half (module doc): 12 − 1 + 3 = 14 (the MoE's 11 assumed).
pub const FFN_KERNELS: u32 = 12 - FFN_NORM_FUSED + FFN_MHC_KERNELS;

/// Kernels of the feed-forward half under `--moe-runner-backend marlin` (module doc; counted, SGLang
/// 0.5.16): mHC 3 + router 1 + top-k 1 + Marlin experts 11 + shared expert 4 + add 1 = 21.
pub const MARLIN_FFN_KERNELS: u32 = 3 + 1 + 1 + 11 + 4 + 1;

/// Tokens up to which SGLang 0.5.19+ fuses an mHC post with the next pre into one FMA kernel
/// (`kernels/ops/layernorm/mhc.py` `mhc_fused_post_pre`, `fma_token_threshold = 32`).
const FUSED_MHC_MAX_TOKENS: u64 = 32;

/// SGLang's launches by release and MoE runner over [`layer_work`]'s 0.5.16 counts (module doc):
/// `marlin` sets every feed-forward half to [`MARLIN_FFN_KERNELS`]; from 0.5.19 (`release`, as
/// `[0, 5, 19]`) a pass of at most 32 `tokens` launches one kernel fewer a half (mHC post fused with
/// the next pre), except the last layer's feed-forward half.
pub fn sglang_kernels(layers: &mut [LayerWork], release: &[u64], tokens: u64, marlin: bool) {
    let fused = release >= [0, 5, 19].as_slice() && tokens <= FUSED_MHC_MAX_TOKENS;
    let last = layers.len().saturating_sub(1);
    for (i, l) in layers.iter_mut().enumerate() {
        if marlin {
            l.ffn_kernels = MARLIN_FFN_KERNELS;
        }
        if fused {
            l.attn_kernels = l.attn_kernels.saturating_sub(1);
            if i != last {
                l.ffn_kernels = l.ffn_kernels.saturating_sub(1);
            }
        }
    }
}

/// Kernels of the attention half of a layer of compress ratio `ratio`: 17, 29 (ratio 4), 20 (128).
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
    // dsv4_64: the shared expert's GEMMs are whole on every rank with `SGLANG_SHARED_EXPERT_TP1`.
    let shared_params = if g.shared_expert_tp1 {
        3 * g.hidden * g.expert_width
    } else {
        expert_params
    };
    let fixed_params = g.experts * g.hidden + g.shared * shared_params;
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
        ffn_kernels: ffn_kernels(true, g.shared > 0) - FFN_NORM_FUSED + FFN_MHC_KERNELS,
        attn_quant_kernels: 0,
        attn_quant_bytes: Bytes(0),
        ffn_quant_kernels: 0,
        ffn_quant_bytes: Bytes(0),
        shared_ffn_bytes: Bytes(b.shared),
        shared_ffn_flops: 2.0 * (g.shared * shared_params) as f64 * nf,
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
