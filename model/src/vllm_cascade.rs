//! vLLM v1's cascade attention (issue #18, cascade): when every running request shares the first
//! blocks of its KV cache, the FlashAttention backend may attend over that common prefix once for
//! all queries and over each request's own suffix separately, then merge the two (three kernels:
//! `flash_attn.py` `cascade_attention`). The prefix's KV is then read once per step instead of once
//! per request.
//!
//! Read in vLLM 0.17.0 (the PyPI sdist `vllm-0.17.0.tar.gz`):
//! - `v1/core/single_type_kv_cache_manager.py` `FullAttentionManager.get_num_common_prefix_blocks`:
//!   the leading blocks whose `ref_cnt` equals the number of requests holding blocks; the Mamba
//!   manager returns 0 ("cascade attention is not supported by mamba"), so a hybrid's common prefix
//!   is its full-attention group's;
//! - `v1/worker/gpu_model_runner.py` `_compute_cascade_attn_prefix_len`: common blocks × block size,
//!   capped by the smallest `num_computed_tokens` of the batch and rounded down to the block size;
//!   `cascade_attn_enabled = not model_config.disable_cascade_attn` (default False,
//!   `config/model.py`), off under DBO micro-batching and `VLLM_BATCH_INVARIANT`
//!   (`config/vllm.py`);
//! - `v1/attention/backends/flash_attn.py` `use_cascade_attention`, the decision ([`prefix_len`]);
//!   the FlashInfer backend's builder returns False ("Cascade attention doesn't work, disable it for
//!   now"), Triton, FlexAttention, tree and the ROCm backends False;
//! - the drafter's metadata (`build_for_drafting`) is built with `common_prefix_len = 0`: EAGLE/MTP
//!   draft passes never cascade;
//! - a cascade step cannot replay a FULL CUDA graph (`_determine_batch_execution_and_padding`:
//!   `disable_full=use_cascade_attn`, so the dispatcher picks PIECEWISE, or eager without piecewise
//!   graphs). tpsim does not cost the PIECEWISE replay differently from FULL (as for vLLM's prefill),
//!   which is optimistic for cascade steps.

/// One step's inputs to vLLM's cascade decision, per tensor-parallel rank.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CascadeStep {
    /// Tokens of the leading KV blocks every running request holds (the common blocks × block
    /// size).
    pub common_tokens: u64,
    /// The smallest `num_computed_tokens` over the batch's requests.
    pub min_computed: u64,
    /// The attention group's KV block size (tokens).
    pub block_size: u64,
    /// Requests in the batch (`len(query_lens)`, unpadded).
    pub num_reqs: u32,
    /// Query tokens of every request (1 for a plain decode, 1 + k for a speculative verify).
    pub query_len: u32,
    /// Query heads per rank (`model_config.get_num_attention_heads(parallel_config)`).
    pub num_query_heads: u32,
    /// KV heads per rank (`kv_cache_spec.num_kv_heads`).
    pub num_kv_heads: u32,
    /// ALiBi, sliding-window or chunked-local attention in the group: unsupported.
    pub windowed: bool,
    /// Streaming multiprocessors of the GPU (`num_sms`).
    pub num_sms: u32,
    /// Decode context parallelism (`dcp_world_size`): cascade is off above 1.
    pub dcp: u32,
}

/// The common-prefix length (tokens) vLLM 0.17.0's FlashAttention backend attends over once, or 0
/// when it does not cascade: `_compute_cascade_attn_prefix_len` then `use_cascade_attention`:
///
/// 1. prefix = min(common tokens, min computed), rounded down to the block size;
/// 2. no cascade below 256 tokens ("an arbitrary threshold of 256 tokens"), with ALiBi, a sliding
///    window or local attention, below 8 requests ("an arbitrary threshold of 8 queries"), or under
///    DCP;
/// 3. cascade when FlashDecoding is not used: one query head per KV head, or a query length ≠ 1;
/// 4. otherwise the performance model with 128-token tiles: cascade time = ⌈heads × ⌈reqs / 128⌉ /
///    SMs⌉ waves × prefix tiles, FlashDecoding time = ⌈reqs × kv heads × ⌈q per kv / 128⌉ × prefix
///    tiles / SMs⌉; cascade only when strictly faster.
pub fn prefix_len(st: &CascadeStep) -> u64 {
    let bs = st.block_size.max(1);
    let prefix = st.common_tokens.min(st.min_computed) / bs * bs;
    if prefix < 256 || st.windowed || st.num_reqs < 8 || st.dcp > 1 {
        return 0;
    }
    let kv = u64::from(st.num_kv_heads.max(1));
    let q_per_kv = u64::from(st.num_query_heads) / kv;
    let flash_decoding = q_per_kv > 1 && st.query_len == 1;
    if !flash_decoding {
        return prefix;
    }
    let (q_tile, kv_tile) = (128u64, 128u64);
    let sms = u64::from(st.num_sms.max(1));
    let reqs = u64::from(st.num_reqs);
    let tiles = prefix.div_ceil(kv_tile);
    let cascade_ctas = u64::from(st.num_query_heads) * reqs.div_ceil(q_tile);
    let cascade_time = cascade_ctas.div_ceil(sms) * tiles;
    let fd_ctas = reqs * kv * q_per_kv.div_ceil(q_tile) * tiles;
    let fd_time = fd_ctas.div_ceil(sms);
    if cascade_time < fd_time { prefix } else { 0 }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Qwen3.5-397B-A17B at TP 4 on an RTX PRO 6000 (188 SMs): 32 query heads and 2 KV heads in
    /// its config → 8 query heads and 1 KV head per rank; vLLM's hybrid attention block of 544
    /// tokens (`tpsim memory --log`: "Setting attention block size to 544 tokens").
    fn qwen35(reqs: u32, query_len: u32, common: u64) -> CascadeStep {
        CascadeStep {
            common_tokens: common,
            min_computed: 80_417,
            block_size: 544,
            num_reqs: reqs,
            query_len,
            num_query_heads: 8,
            num_kv_heads: 1,
            windowed: false,
            num_sms: 188,
            dcp: 1,
        }
    }

    #[test]
    fn plain_decode_keeps_flash_decoding_below_one_wave() {
        // By hand (flash_attn.py 0.17.0): the 80,417-token prompt of the ctx-128k cell hits
        // ⌊80,416 / 544⌋ = 147 blocks = 79,968 tokens → ⌈79,968 / 128⌉ = 625 tiles; C 128: cascade
        // ⌈8 × 1 / 188⌉ × 625 = 625, FlashDecoding ⌈128 × 1 × 1 × 625 / 188⌉ = 426 → no cascade;
        // C 16: 625 against ⌈16 × 625 / 188⌉ = 54 → no. With 1 KV head per rank FlashDecoding wins
        // at every C < 188.
        assert_eq!(prefix_len(&qwen35(128, 1, 79_968)), 0);
        assert_eq!(prefix_len(&qwen35(16, 1, 79_968)), 0);
    }

    #[test]
    fn speculative_verify_cascades() {
        // MTP 2: query length 3 is not FlashDecoding → cascade over the whole common prefix.
        assert_eq!(prefix_len(&qwen35(16, 3, 79_968)), 79_968);
        // … but not below 8 requests, nor below 256 tokens.
        assert_eq!(prefix_len(&qwen35(7, 3, 79_968)), 0);
        assert_eq!(prefix_len(&qwen35(16, 3, 0)), 0);
    }

    #[test]
    fn flash_decoding_loses_above_one_wave() {
        // 8 KV heads per rank (Llama-3.1-8B at TP 1: 32 q, 8 kv), 132 SMs (H100 SXM), 64 requests,
        // 4096-token prefix (block 16): tiles 32; cascade ⌈32 × 1 / 132⌉ × 32 = 32, FlashDecoding
        // ⌈64 × 8 × 1 × 32 / 132⌉ = 125 → cascade.
        let st = CascadeStep {
            common_tokens: 4096,
            min_computed: 5000,
            block_size: 16,
            num_reqs: 64,
            query_len: 1,
            num_query_heads: 32,
            num_kv_heads: 8,
            windowed: false,
            num_sms: 132,
            dcp: 1,
        };
        assert_eq!(prefix_len(&st), 4096);
        // A sliding window or DCP turns it off.
        assert_eq!(prefix_len(&CascadeStep { windowed: true, ..st }), 0);
        assert_eq!(prefix_len(&CascadeStep { dcp: 2, ..st }), 0);
        // Capped by the smallest computed length, rounded down to the block: 4010 → 4000.
        assert_eq!(
            prefix_len(&CascadeStep {
                min_computed: 4010,
                ..st
            }),
            4000
        );
    }
}
