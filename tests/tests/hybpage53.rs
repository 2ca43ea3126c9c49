//! hybpage53 (issue #18): why vLLM 0.25.1 ran fewer Qwen3.5-9B requests than tpsim on one RTX 3090
//! (deploys26, er0080's sweep: peak KV use 25 % at c 4, 100 % at c 16, 13.1 running at c 64).
//!
//! The per-request accounting of vLLM's hybrid KV manager is not the cause: at the same lengths
//! and the same rules the TP 2 c 64 point, 64 requests running, read 25 % of a pool tpsim sized at
//! 1,229 blocks and vLLM at about 1,280 (64 × 5 ÷ 0.25), so a request takes the 5 blocks tpsim
//! gives it ([`the_hybrid_managers_blocks_per_request_at_0_25_1`]). The TP 1 pool was the miss:
//! 25 % at c 4 is 20 blocks of about 80, where tpsim had 185. vLLM's profile run first runs the
//! vision encoder on one image of 16,384 tokens (Qwen3.5 is `Qwen3_5ForConditionalGeneration`),
//! whose forward peak (1.66 GiB at tp 1) sets the torch peak; tpsim counted only the decoder's
//! (0.31 GiB). `tpsim_model::vllm_vit_profile` now counts it; the pool is 100 blocks. Out of
//! sample: nothing here was fitted to er0080's rows.

use crate::common::*;
use tpsim_model::vllm_hybrid::{VllmHybridRules, gdn_state_page, vllm_hybrid_layout};

const TP1: &str = "validation/qwen3.5-9b-rtx3090x1-vllm-0.25-tp1-c";
const TP2_C64: &str = "validation/qwen3.5-9b-rtx3090x2-vllm-0.25-tp2-c64.toml";

/// Bytes of one block of the Qwen3.5-9B pool at tp 1: 8 layers a group × 528 tokens × 4,096 B
/// (4 KV heads × 256 × K and V × 2 B of one full-attention layer).
const BLOCK_TP1: u64 = 8 * 528 * 4096;
/// At tp 2: 2 KV heads a rank, 2,048 B a token and layer.
const BLOCK_TP2: u64 = 8 * 528 * 2048;

fn tp1(c: u32) -> serde_json::Value {
    run_json(&scenario(&format!("{TP1}{c}.toml")))
}

#[test]
fn the_hybrid_managers_blocks_per_request_at_0_25_1() {
    // vLLM 0.25.1, Qwen3.5-9B at tp 1, prefix caching off (hybrids: off before 0.26,
    // `ModelConfig.is_prefix_caching_supported`), so `mamba_cache_mode` "none" and the mamba block
    // is max_model_len (`models/config.py`: `cache_config.mamba_block_size = max_model_len`): one
    // state block a request and state group (`MambaManager` allocates ⌈tokens / 8,192⌉ = 1).
    let rules = VllmHybridRules::for_release(Some(&[0, 25, 1]));
    assert!(!rules.prefix_caching_default);
    assert_eq!(rules.state_pages(false, 0), 1);
    // State page: conv 3 × 8,192 × 2 B + SSM 32 × 128 × 128 × 4 B = 49,152 + 2,097,152 = 2,146,304;
    // block 16 × ⌈2,146,304 / (16 × 4,096)⌉ = 16 × 33 = 528 tokens.
    let s = tpsim::scenario::load_str(
        "[hardware]\npreset = \"rtx-3090-2x-i9-9900k-gen3x8\"\n[model]\npreset = \"qwen3.5-9b\"\n\
         [engine]\nname = \"vllm\"\nversion = \"0.25.1\"\ntp = 1\n",
        std::path::Path::new("hybpage53.rs"),
    )
    .unwrap();
    let g = s
        .model
        .linear_attention
        .expect("Qwen3.5-9B is a Gated DeltaNet hybrid");
    let page = gdn_state_page(&g, 1, 0, 2, 4);
    assert_eq!(page, 2_146_304);
    let l = vllm_hybrid_layout(&rules, 8, 4096, 24, page, 16);
    assert_eq!((l.block_size, l.groups.group_size), (528, 8));
    assert_eq!((l.attention_groups, l.state_groups), (1, 3));
    assert_eq!(l.block_bytes(), BLOCK_TP1);
    // A 512 + 128 request at its longest: ⌈640 / 528⌉ = 2 attention blocks + 3 state blocks.
    assert_eq!(l.blocks_per_request(640, 1), 5);
}

#[test]
fn the_profile_peak_is_the_vision_encoders_forward() {
    // One image of 16,384 tokens = 65,536 patches; per patch 1,536 pixel values + 1,152 position
    // embedding + 2 × 1,152 (x, norm2(x)) + 2 × 4,304 (fc1 and its GELU) = 13,600 values × 2 B =
    // 1,782,579,200 B, plus PyTorch's cuBLAS workspace on SM 8.6 (4,096 KiB × 2 + 16 KiB × 8 =
    // 8,519,680 B): 1,791,098,880 B. The decoder's dummy pass was 329,187,328 B (0.31 GiB).
    let v = tp1(4);
    assert_eq!(entry_bytes(&v, "peak activation (profile run)"), 1_791_098_880);
    // tp 2: the MLP halves, 1,536 + 3,456 + 4,304 = 9,296 values: 1,218,445,312 + 8,519,680 B.
    let v2 = run_json(&scenario(TP2_C64));
    assert_eq!(entry_bytes(&v2, "peak activation (profile run)"), 1_226_964_992);
}

#[test]
fn tp1_pool_and_kv_use_by_hand() {
    // The pool before: 2.9842 GiB, 185 blocks. The peak grows by 1,791,098,880 − 329,187,328 =
    // 1,461,911,552 B (1.3615 GiB): rest 1.6227 GiB, ⌊1.6227 GiB / 17,301,504 B⌋ = 100 blocks.
    let v = tp1(4);
    let kv = entry_bytes(&v, "KV cache");
    assert_eq!(kv, 100 * BLOCK_TP1);
    // "GPU KV cache size": int(100 / (16 + 3) × 8,192) = 43,115 tokens (0.21 on).
    assert_eq!(v["memory"]["kv_tokens"], 43_115);
    // Peak KV use: 4 requests × 5 blocks ÷ 100 = 20 % at c 4 (the source: 25 %), 16 × 5 = 80 % at
    // c 16 (the source: 100 % with 7 waiting), the pool full at c 64 with ⌊100 / 5⌋ = 20 running at
    // 640 tokens and up to 25 while prompts still take 4 (the source: 13.1 running on average).
    assert!((f(&v["serving"]["peak_kv_utilisation"]) - 0.20).abs() < 1e-9);
    let v16 = tp1(16);
    assert!((f(&v16["serving"]["peak_kv_utilisation"]) - 0.80).abs() < 1e-9);
    let v64 = tp1(64);
    assert!((f(&v64["serving"]["peak_kv_utilisation"]) - 1.0).abs() < 1e-9);
    assert_eq!(v64["serving"]["peak_running"], 25);
    // The remainder, kept visible: the source's 25 % at c 4 is 20 blocks of 78.4 … 81.6 (24.5 … 25.5 %),
    // 18.4 … 21.6 blocks (0.296 … 0.348 GiB) fewer than tpsim's 100. vLLM ≥ 0.20 also subtracts its CUDA-graph
    // memory estimate (`VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`, default on; 0.13 – 0.52 GiB in the
    // Qwen3.x logs read), which tpsim does not model.
    let source_blocks = (20.0 / 0.255, 20.0 / 0.245);
    let ours = (kv / BLOCK_TP1) as f64;
    let gap_gib = |b: f64| (ours - b) * BLOCK_TP1 as f64 / (1u64 << 30) as f64;
    assert!(
        (gap_gib(source_blocks.1) - 0.296).abs() < 0.005 && (gap_gib(source_blocks.0) - 0.348).abs() < 0.005
    );
}

#[test]
fn tp2_c64_kv_use_by_hand() {
    // 64 requests × 5 blocks of a pool of ⌊10.5657 GiB / 8,650,752 B⌋ = 1,311 blocks: 24.4 % (the
    // source: 25 %; 28.4 % with 1,125 blocks before vmemtp57, 26.0 % before the encoder peak). tpsim's
    // tp-2 non-torch growth is 0.25 + 0.32 + 0.02 = 0.59 GiB here (vmemtp57: the H100 fit's 2.09 held
    // 1.5 GiB of FlashInfer's fusion workspace, which vLLM builds only on NVSwitch Hopper /
    // Blackwell); this box runs NCCL over SHM (vllmold52 measured 0.137 GiB in all for vLLM 0.10.1
    // over SHM): the 0.32 + 0.02 comm part is the H100 fit's, not this box's.
    // nontorch61: two RTX 3090s have no P2P, so NCCL's rings run over SHM and their buffers are host
    // memory: the fitted comm part's ring share (24 × 12 MiB = 301,989,888 B) leaves the non-torch
    // growth (0.59 → 0.30875 GiB), 34.9 blocks more → 1,346 (320 / 1,346 = 23.8 %).
    // enginemem64: from vLLM 0.11.0 the SHM group's growth is its NCCL init pages alone, (2 + 3 × 2)
    // × 2 MiB = 16 MiB at this box's 2 channels: 0.25 + 0.015625 = 0.265625 GiB, 0.043125 GiB less,
    // 5.35 blocks more → 1,351 (320 / 1,351 = 23.7 %).
    let v = run_json(&scenario(TP2_C64));
    assert_eq!(entry_bytes(&v, "KV cache"), 1_351 * BLOCK_TP2);
    assert_eq!(v["serving"]["peak_running"], 64);
    assert!((f(&v["serving"]["peak_kv_utilisation"]) - 320.0 / 1_351.0).abs() < 1e-9);
}

#[test]
fn line_54_qwen3_vl_30b_pool_with_the_encoder_terms() {
    // tests/data/engine-memory.tsv line 54 (out of sample: not a fit row): vLLM 0.11.0,
    // Qwen3-VL-30B-A3B-Instruct bf16 on 4× RTX 3090, tp 4, gpu_memory_utilization 0.9,
    // "Available KV cache memory: 2.31 GiB"; the 4090 box stands in with the 3090's torch total
    // (23.56 GiB) and 82 SMs.
    // vllmmem60: the log says "Encoder cache will be initialized with a budget of 153600 tokens, and
    // profiled with 1 video items of the maximum feature size": vLLM 0.11.0 `qwen3_vl.py` counts a
    // video's soft tokens × 12.5, so the dummy item is a video of 12,288 soft tokens (49,152
    // patches), and `profile_run` expands its output to the 153,600-token budget
    // (`output.new_zeros((encoder_budget, …))`), `text_hidden × (1 + 3 DeepStack mergers)` = 8,192
    // wide, while the original output (the loop variable) and the batch's pixels stay alive:
    // 150,994,944 + 201,326,592 + 2,516,582,400 = 2,868,903,936 B beside the decoder's peak. That is
    // the sorting sampler's (2,048 + 2 × 256) × 2,048 × 2 + 256 × 151,936 × 38 = 1,488,519,168 B +
    // the Ampere cuBLAS workspace 8,519,680 B; 0.11.0 frees the fused-MoE workspace after each layer
    // (`fused_experts_impl`), so its 134,217,728 B no longer add. Peak 4,365,942,784 B (4.0661 GiB;
    // 2,101,018,624 B before: the image rule of 0.13+, 16,384 tokens, with the MoE workspace kept).
    // With the weights at 14.7710 GiB (the DeepStack buffers, memlogs) and the tp-4 non-torch
    // growth 0.63 GiB the pool is 1.7369 GiB against the logged 2.31: 0.57 GiB SHORT (+1.56 over
    // before). The log's peak + non-torch is 4.1182 … 4.1282 GiB, so with this peak its non-torch
    // growth is 0.052 … 0.062 GiB, where tpsim applies the H100 NVSwitch fit's 0.63 (vLLM 0.19's
    // 0.25 base + the torch group's NCCL ring buffers, which over SHM are host memory): the recorded
    // miss is now in that part.
    let text = "[hardware]\npreset = \"rtx-4090-4x-no-p2p\"\n[hardware.gpu]\ntorch_total_gib = 23.56\n\
                sm_count = 82\n[model]\npreset = \"qwen3-vl-30b-a3b-instruct\"\n[engine]\nname = \"vllm\"\n\
                version = \"0.11.0\"\ntp = 4\nmax_model_len = 65536\n";
    let dir = scratch("hybpage53-line54");
    let file = dir.join("line54.toml");
    std::fs::write(&file, text).unwrap();
    let v = run_json(file.to_str().unwrap());
    let decoder = (2_048 + 2 * 256) * 2_048 * 2 + 256 * 151_936 * 38 + 8_519_680;
    let video = 49_152 * 1_536 * 2 + 12_288 * 8_192 * 2 + 153_600 * 8_192 * 2;
    assert_eq!((decoder, video), (1_497_038_848, 2_868_903_936));
    assert_eq!(entry_bytes(&v, "peak activation (profile run)"), decoder + video);
    // nontorch61: over SHM (4 PCIe 3090s, no P2P) the torch group's ring buffers are host memory:
    // the non-torch growth is 0.25 + (0.32 − 0.28125) + 3 × 0.02 = 0.34875 GiB (0.63 before), the
    // pool 1.7369 + 0.28125 = 2.0181 GiB, 0.29 GiB short of the log (0.57 before).
    // vllmmem63: the Ampere / Ada base before vLLM 0.18 is 0.02 GiB, not 0.25: the growth is
    // 0.11875 GiB and the pool 2.2481 GiB, 0.062 GiB short of the log (0.29 before).
    // enginemem64: the torch group's NCCL init pages (28 MiB at 4 channels) in place of the fitted
    // remainder: the growth is 0.04734 GiB and the pool 2.31954 GiB, 0.0095 GiB over the log.
    let rest = f(&v["memory"]["rest_gib"]);
    assert!((rest - 2.31954).abs() < 0.0005, "{rest}");
    // Tolerance: the log's printed KV figure, ± 0.005 GiB.
    assert!((rest - 2.31 - 0.0095).abs() < 0.006, "{rest}");
}
