//! families33 (issue #17): what a DeepSeek-V4 decode step reads of the KV pools and which TP
//! all-reduces a layer makes under SGLang — the facts the iteration graph needs (dsv4dec55: lowered
//! by `llm::deepseek_v4_layer`; dsv4run55: the model's memory plan, `llm::deepseek_v4`).
//!
//! ## KV reads (SGLang 0.5.16 `layers/attention/deepseek_v4_backend.py`, decode)
//!
//! Every layer runs one FlashMLA sparse call with the single 512-wide KV head: the request's last
//! `sliding_window` tokens from the SWA pool (`k_cache = swa_k_cache`, `topk_length =
//! swa_topk_lengths`) plus, in a compressed layer, the "extra" compressed slots (`extra_k_cache`,
//! `extra_indices_in_kvcache`): in a ratio-4 (CSA) layer the `index_topk` slots the C4 indexer picks
//! (of `context / 4`), in a ratio-128 (HCA) layer every `context / 128` slot. Each slot is the pool's
//! 584-byte FlashMLA slot (`llm::deepseek_v4_pools::kv_slot_bytes`). The C4 indexer scores every
//! compressed key of its layer: `context / 4` keys of 132 B (`indexer_slot_bytes`) — the same account
//! vllm-project/vllm PR #51209 gives for V4's indexer ("reads (S/4) × 132 B of its own K cache").
//! The KV head is one and replicated, so every TP rank reads all of it.
//!
//! Assumed: the compressed slot counts are `context / ratio` rounded down (a compressor emits a slot
//! per completed group of `ratio` tokens; the partial group lives in the compress state, whose ring
//! reads are not counted here).
//!
//! ## All-reduces (SGLang 0.5.16 `models/deepseek_v4.py`)
//!
//! At tp > 1 without DP attention a layer all-reduces twice, each over `hidden` bf16 values a token
//! (the residual stream before mHC's post-mixing, not the `hc_mult` streams): `wo_b` is a
//! `RowParallelLinear` with `reduce_results = attn_tp_size == tp_size > 1` (`MQALayer.__init__`), and
//! the MoE reduces its experts' partial sums after them (`DeepseekV2MoE`, "MoE-internal post-experts
//! all_reduce"). Same count as DeepSeek-V3's MLA layers.

//!
//! ## The routed experts' kernels (dsv4run55; dsv4dec55 costs them at the MoE class, assumed)
//!
//! With fp4 experts, `--moe-runner-backend auto`, no MoE all-to-all and `SGLANG_DSV4_FP4_DEQUANT`
//! unset: 0.5.12 – 0.5.14 and, off SM 12.0, 0.5.15 – 0.5.18 keep `Fp8MoEMethod`. dsv4k57 corrected
//! what dsv4run55 wrote here (the DeepGEMM runner): in 0.5.16 `Fp8MoEMethod.create_moe_runner` takes
//! DeepGEMM under `auto` only with a DeepEP, Mooncake or NIXL all-to-all
//! (`is_deepgemm_moe_runner_backend_enabled`, `layers/quantization/fp8.py`), so plain TP gets the Triton
//! runner, handed the packed fp4 experts viewed as int8 with `use_fp8_w8a8` (`get_triton_quant_info`): a
//! path not checked to run (the other releases of that range are assumed alike; the cookbook's H200
//! recipes pass `--moe-runner-backend marlin` or `flashinfer_mxfp4`). The model
//! override picks `flashinfer_mxfp4` on SM 12.0 from 0.5.15 (`overrides.py` `_deepseek_v4_sm120_moe`)
//! and on SM 9.0 / 10.0 / 12.0 from 0.5.19 (`model_overrides/deepseek_v4.py`); under it `fp8.py`
//! (0.5.16, 0.5.23: "SM100 uses TRT-LLM; SM90 uses W4A16 and SM120 uses MXFP8xMXFP4") builds
//! `Mxfp4FlashinferCutlassMoEMethod` on SM 9.0 and 12.0 (FlashInfer CUTLASS: W4A16 on Hopper with
//! interleaved weight and scale copies, MXFP8 × MXFP4 on SM 12.0) and `Mxfp4FlashinferTrtllmMoEMethod`
//! on SM 10.0. Their weight bytes are `llm::deepseek_v4_weights::ExpertFormat::sglang_cuda_by_release`'s;
//! their kernel costs are not modelled (no measured efficiency class for any of these MoE kernels).

use super::deepseek_v4::Geometry;
use super::deepseek_v4_pools::{indexer_slot_bytes, kv_slot_bytes};

/// Bytes one request's decode step reads of the KV pools in one layer of compress ratio `ratio` at
/// `context` tokens (module doc). Flash at 8,192 tokens: ratio 0 128 × 584 = 74,752; ratio 4 74,752 +
/// 512 × 584 + 2,048 × 132 = 644,096; ratio 128 74,752 + 64 × 584 = 112,128.
pub fn kv_read_bytes(g: &Geometry, ratio: u64, context: u64) -> u64 {
    let slot = kv_slot_bytes(g);
    let window = context.min(g.window) * slot;
    match ratio {
        0 => window,
        4 => {
            let compressed = context / 4;
            window + compressed.min(g.index_topk) * slot + compressed * indexer_slot_bytes(g)
        }
        r => window + context / r * slot,
    }
}

/// [`kv_read_bytes`] summed over the decoder layers: one request's decode step on every rank.
pub fn step_kv_read_bytes(g: &Geometry, context: u64) -> u64 {
    g.ratios.iter().map(|&r| kv_read_bytes(g, r, context)).sum()
}

/// TP all-reduces a decoder layer makes at tensor-parallel size `tp` without DP attention (module
/// doc): 2 at tp > 1, none at tp 1.
pub fn allreduces_per_layer(tp: u64) -> u64 {
    if tp > 1 { 2 } else { 0 }
}

/// Bytes each of those all-reduces carries a token: `hidden` bf16 values (module doc). Flash: 8,192.
pub fn allreduce_bytes_per_token(g: &Geometry) -> u64 {
    2 * g.hidden
}
