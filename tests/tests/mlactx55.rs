//! mlactx55 (issue #18): SGLang's `fa3` MLA decode against the context, read in the sources of the
//! kernel it launches. The question (kimicook55): does FA3 decode an MLA batch of one without splitting
//! the KV (one CTA streaming the whole context), which would make the step grow at one SM's rate, as the
//! SGLang cookbook's Kimi-K2.5 8× H200 rows do (4.39 µs a context token at batch 1)?
//!
//! What the sources say (book/src/validation.md "MLA decode against context (mlactx55)"):
//! - SGLang 0.5.6.post2, 0.5.8, 0.5.9 `layers/attention/flashattention_backend.py` call
//!   `flash_attn_with_kvcache` for absorbed MLA with `q` = the 64 rope dims, `qv` = the 512 latent
//!   dims, a 1-token page table (decode CUDA graphs slice the page table at its full width,
//!   `max_context_len` columns), `cache_seqlens` (FA3's `seqused_k`), `cu_seqlens_q`, no
//!   `scheduler_metadata`, no `pack_gqa`, and `num_splits` 0 (FA3's heuristic) unless deterministic
//!   inference (0.5.8/0.5.9: or FA4 under graphs).
//! - FA3 (sgl-kernel 0.3.21's `flash_ops`, built from sgl-project/sgl-attn `hopper/`; read at
//!   203b9b3): with `cu_seqlens_q` the call is varlen, so `get_num_splits` takes "batch = 1": total m
//!   blocks = 1 KV head × ceil(8 or 16 packed query heads / kBlockM 64) = 1, far under 0.8 × 132 SMs;
//!   the static bound is the fewest splits within 85 % of the best wave efficiency over
//!   min(128, SMs, width tiles), 109 on an H200 under graphs. `prepare_varlen_num_blocks_kernel`
//!   then gives each request `min(ceil(tiles / blocks_per_sm), 109)` splits with `blocks_per_sm =
//!   ceil(Σ tiles × 1.1 × 1 / SMs)`, tiles of kBlockN = 64 tokens (`tile_size_fwd_sm90`, head dim
//!   64 with `headdim_v` 512). At batch 1 and 1K context: 16 CTAs of one tile; 8K: 64 CTAs of two;
//!   batch 16: 96 CTAs (1K) and 128 (8K) of 132 SMs; batch 100: 200 CTAs. The split kernels are
//!   compiled in (`run_mha_fwd_<90, bf16, 64, 512, Split = true, …>` symbols in the 0.3.21 wheel's
//!   `flash_ops.abi3.so`).
//!
//! So FA3 splits a batch-1 MLA decode over its context: the kernel's CTAs grow with the context,
//! each still streams one or two 64-token tiles, and at batch ≥ 16 the grid nearly fills the chip.
//! Streaming the latent at the HBM rate, which tpsim charges, is what the sources support; the
//! page's 4.39 µs a token is not FA3's split heuristic and stays unexplained. These tests pin tpsim's
//! side at batch 1 on another Hopper (H20, 78 SMs) and at batch 16, where FA3's grid is the widest.

use crate::common::*;

/// Mean TPOT of a run, ms.
fn mean_tpot_ms(file: &str) -> f64 {
    f(&run_json(file)["serving"]["tpot_ms"]["mean"])
}

/// The bundled DeepSeek-V3 8× H20 SGLang row (fa3 by SGLang's default on SM 9.0) as one request of
/// `prompt` prompt and 100 output tokens.
fn h20_one_request(name: &str, prompt: u64) -> String {
    edited_variant("validation/deepseek-v3-fp8-h20x8-sglang-tp8-c8.toml", name, |t| {
        let t = t
            .replace("concurrency = 8\n", "concurrency = 1\n")
            .replace("num_requests = 200\n", "num_requests = 1\n")
            .replace(
                "prompt_len = { random = 1024, range_ratio = 0.0 }",
                &format!("prompt_len = {prompt}"),
            )
            .replace(
                "output_len = { random = 512, range_ratio = 0.0 }",
                "output_len = 100",
            );
        assert!(
            t.contains("concurrency = 1\n")
                && t.contains("num_requests = 1\n")
                && t.contains(&format!("prompt_len = {prompt}\n"))
                && t.contains("output_len = 100\n"),
            "{t}"
        );
        t
    })
}

/// The cookbook's Kimi-K2.5 8× H200 c 16 row as 16 requests of one `prompt` (all of it cached, so the
/// 16 decode together from the first step) and 100 output tokens.
fn kimi_sixteen(name: &str, prompt: u64) -> String {
    edited_variant(
        "validation/kimi-k2.5-h200x8-sglang-0.5.6-tp8-1k1k-c16.toml",
        name,
        |t| {
            let t = t
                .replace("num_requests = 80\n", "num_requests = 16\n")
                .replace(
                    "prompt_len = { random = 1000, range_ratio = 0.0 }",
                    &format!("prompt_len = {prompt}\ncached_prompt_len = {prompt}"),
                )
                .replace(
                    "output_len = { random = 1000, range_ratio = 0.0 }",
                    "output_len = 100",
                );
            assert!(
                t.contains("concurrency = 16\n")
                    && t.contains("num_requests = 16\n")
                    && t.contains(&format!("cached_prompt_len = {prompt}\n"))
                    && t.contains("output_len = 100\n"),
                "{t}"
            );
            t
        },
    )
}

/// Batch 1 on 8× H20 (78 SMs): FA3 gives a 3,000-token decode ceil(3000 / 64) = 47 one-tile CTAs
/// (blocks_per_sm = ceil(47 × 1.1 / 78) = 1; static bound under graphs 55: the row's
/// `context_length` 4096 makes the page table 64 tiles wide, and 55 is the fewest of min(128, 78, 64)
/// splits whose wave efficiency s / 78 reaches 0.85 × 64 / 78), so tpsim's step grows by the latent
/// read at the HBM rate only.
///
/// Hand arithmetic: DeepSeek-V3 (scenarios/models/deepseek-v3/config.json) keeps `kv_lora_rank` 512 +
/// `qk_rope_head_dim` 64 = 576 bf16 values = 1152 B a token a layer on every TP rank, × 61 layers =
/// 70,272 B a context token. Prompts of 3000 and 100 tokens (the row's `context_length` is 4096)
/// differ by 2900 context tokens at every step: 2900 × 70,272 B = 203,788,800 B at the H20's 4.0 TB/s
/// (templates/h20.toml) × mem_efficiency 0.80 (borrowed from pcie-nccl-host, templates/h20.toml) =
/// 3.2e12 B/s: 63.68 µs more a step. Tolerance ±5 % (tpsim's 64-token context buckets: up to 64 of
/// 2900 tokens at either end, 2.2 % each).
#[test]
fn h20_batch_one_mla_step_grows_by_the_latent_at_hbm_rate() {
    let short = h20_one_request("mlactx55-h20-p100", 100);
    let long = h20_one_request("mlactx55-h20-p3000", 3000);
    let grow_us = (mean_tpot_ms(&long) - mean_tpot_ms(&short)) * 1000.0;
    let want_us = 2900.0 * 70_272.0 / 3.2e12 * 1e6; // 63.68 µs
    assert!(
        (grow_us - want_us).abs() <= 0.05 * want_us,
        "tpsim's H20 batch-1 step grows {grow_us:.2} us for 2900 more context tokens, hand arithmetic {want_us:.2} us"
    );
}

/// Batch 16 on 8× H200: FA3's grid is 16 × 6 = 96 CTAs at 1,000 tokens (blocks_per_sm = ceil(16 × 16
/// × 1.1 / 132) = 3, splits ceil(16 / 3) = 6) and 16 × 8 = 128 at 8,000 (ceil(16 × 125 × 1.1 / 132)
/// = 17, ceil(125 / 17) = 8) of 132 SMs, so the latent streams at the chip's rate, as tpsim charges.
///
/// Hand arithmetic: Kimi-K2.5's latent is DeepSeek-V3's, 70,272 B a context token on every rank
/// (kimicook55). Sixteen requests 7000 context tokens longer add 16 × 7000 × 70,272 B =
/// 7,870,464,000 B a step, at the H200's 4.8 TB/s (templates/h200-sxm.toml) × 0.80 = 3.84e12 B/s:
/// 2049.6 µs. Tolerance ±3 % (64-token buckets: at most 64 of 7000 tokens at either end, 0.9 % each).
/// Against the page's batch-1 rate (4.39 µs a token a request, kimicook55) the same 112,000 tokens
/// would add 491.7 ms: this pins that tpsim charges no such per-token term.
#[test]
fn h200_batch_sixteen_mla_step_grows_by_the_latent_at_hbm_rate() {
    let short = kimi_sixteen("mlactx55-k16-p1000", 1000);
    let long = kimi_sixteen("mlactx55-k16-p8000", 8000);
    let grow_us = (mean_tpot_ms(&long) - mean_tpot_ms(&short)) * 1000.0;
    let want_us = 16.0 * 7000.0 * 70_272.0 / 3.84e12 * 1e6; // 2049.6 µs
    assert!(
        (grow_us - want_us).abs() <= 0.03 * want_us,
        "tpsim's H200 batch-16 step grows {grow_us:.1} us for 16 x 7000 more context tokens, hand arithmetic {want_us:.1} us"
    );
}
