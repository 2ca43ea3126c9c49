//! Checks of vLLM's hybrid page arithmetic against public start-up figures, each worked by hand.

use super::*;
use crate::llm::GatedDeltaNet;

const MIB: u64 = 1 << 20;
const GIB: f64 = (1u64 << 30) as f64;

/// Qwen3.5-9B's Gated DeltaNet (scenarios/models/qwen3.5-9b/config.json: 16 key heads, 32 value
/// heads, 128 × 128, conv kernel 4, `mamba_ssm_dtype` float32).
fn qwen35_9b_gdn() -> GatedDeltaNet {
    GatedDeltaNet {
        num_k_heads: 16,
        num_v_heads: 32,
        head_k_dim: 128,
        head_v_dim: 128,
        conv_kernel: 4,
        ssm_state_bytes: 4,
        declared_ssm_state_bytes: Some(4),
    }
}

/// The feature boundaries, as read in each minor release's wheel (module doc).
#[test]
fn rules_by_release() {
    let r = |v: &[u64]| VllmHybridRules::for_release(Some(v));
    assert_eq!(VllmHybridRules::for_release(None), r(&[0, 19, 0]));
    assert!(!r(&[0, 11, 0]).prefix_caching_allowed && r(&[0, 12, 0]).prefix_caching_allowed);
    assert_eq!(r(&[0, 12]).nemotron_ssm_default, None);
    assert_eq!(r(&[0, 13, 0]).nemotron_ssm_default, Some(2));
    assert_eq!(r(&[0, 19, 1]).nemotron_ssm_default, Some(2));
    assert_eq!(r(&[0, 20, 0]).nemotron_ssm_default, Some(4));
    assert!(!r(&[0, 20, 2]).tokens_from_concurrency && r(&[0, 21, 0]).tokens_from_concurrency);
    assert!(!r(&[0, 25, 0]).prefix_caching_default && r(&[0, 26, 0]).prefix_caching_default);
    assert!(!r(&[0, 16, 0]).gdn_ssm_from_config && r(&[0, 17, 0]).gdn_ssm_from_config);
    assert!(!r(&[0, 14, 1]).align_mode && r(&[0, 15, 0]).align_mode);
    assert!(!r(&[0, 13, 0]).check_by_groups && r(&[0, 14, 0]).check_by_groups);
    assert_eq!((r(&[0, 19]).alignment(32), r(&[0, 20]).alignment(32)), (16, 32));
    assert_eq!(r(&[0, 28]).alignment(8), 16);
    assert_eq!(
        (
            r(&[0, 28]).state_pages(false, 0),
            r(&[0, 28]).state_pages(true, 2)
        ),
        (1, 4)
    );
    assert_eq!(r(&[0, 14]).state_pages(true, 0), 1);
}

/// tests/data/engine-memory.tsv line 49 (vLLM 0.11.0, Nemotron-Nano-9B-v2, tp 1, bf16 states): 4
/// attention layers × 4,096 B per token, 27 Mamba layers of 73,728 + 2,621,440 = 2,695,168 B → block
/// 16 × ⌈2,695,168 / 65,536⌉ = 672, page 2,752,512 B (padded by 2.13 %), groups of 4: 1 + 7. The
/// log's 286 blocks: 286 // 8 × 672 = 23,520 tokens; concurrency at the config's 131,072 tokens:
/// 286 / (⌈131,072 / 672⌉ + 7) = 286 / 203 = 1.41.
#[test]
fn nemotron_nano_9b_v2_at_0_11() {
    let rules = VllmHybridRules::for_release(Some(&[0, 11, 0]));
    let l = vllm_hybrid_layout(&rules, 4, 4_096, 27, 2_695_168, 16);
    assert_eq!(
        (l.block_size, l.page_bytes, l.block_size_raised),
        (672, 2_752_512, true)
    );
    assert_eq!(
        (l.groups.group_size, l.attention_groups, l.state_groups),
        (4, 1, 7)
    );
    let pct = l.padding_pct().unwrap();
    assert!((pct - 2.127).abs() < 1e-3, "{pct}");
    // 286 blocks lie between 2.9327 and 2.9429 GiB of budget.
    assert_eq!(l.num_blocks((2.9330 * GIB) as u64), 286);
    assert_eq!(l.reported_tokens(&rules, 286, 131_072, 1), 23_520);
    assert_eq!(l.blocks_per_request(131_072, 1), 203);
    let c = l.max_concurrency(286, 131_072, 1);
    assert_eq!(format!("{c:.2}"), "1.41");
    // The start-up check at 0.11 counts layers: (4 × 196 + 27) pages.
    assert_eq!(l.needed_bytes(&rules, 4, 27, 131_072, 1), 811 * 2_752_512);
}

/// The public vLLM 0.28.0 note on Qwen3.5-9B (find_string id 59375171630, RTX 4070 Ti Super, tp 1,
/// bf16, `kv_cache_memory_bytes`, prefix caching off): 8 attention layers × 4 KV heads × 256 × 2 × 2
/// = 4,096 B per token per layer; the state page 3 × 8,192 × 2 + 32 × 128 × 128 × 4 = 2,146,304 B
/// (fp32 SSM from `mamba_ssm_dtype`) → block 16 × ⌈2,146,304 / 65,536⌉ = 528, page 2,162,688 B,
/// groups of 8: 1 + 3. Its four runs (tolerance: none, the figures are integers):
///
/// | budget | max_model_len | blocks | per request | logged tokens | logged concurrency |
/// |---|---|---|---|---|---|
/// | 640 MiB | 16,384 | 310 // 8 = 38 | 32 + 3 | 17,788 | 1.09x |
/// | 1 GiB | 16,384 | 496 // 8 = 62 | 35 | 29,023 | 1.77x |
/// | 512 MiB | 12,288 | 248 // 8 = 31 | 24 + 3 | 14,108 | 1.15x |
/// | 640 MiB | 17,728 | 38 | 35 + 3 | 18,207 | — |
#[test]
fn qwen35_9b_at_0_28_reproduces_the_note() {
    let rules = VllmHybridRules::for_release(Some(&[0, 28, 0]));
    let page = gdn_state_page(&qwen35_9b_gdn(), 1, 0, 2, 4);
    assert_eq!(page, 2_146_304);
    let l = vllm_hybrid_layout(&rules, 8, 4_096, 24, page, 16);
    assert_eq!((l.block_size, l.page_bytes), (528, 2_162_688));
    assert_eq!((l.groups.group_size, l.groups.num_groups), (8, 4));
    let pages = rules.state_pages(false, 0);
    for (budget, len, blocks, tokens, conc) in [
        (640 * MIB, 16_384, 38, 17_788, Some("1.09")),
        (1_024 * MIB, 16_384, 62, 29_023, Some("1.77")),
        (512 * MIB, 12_288, 31, 14_108, Some("1.15")),
        (640 * MIB, 17_728, 38, 18_207, None),
    ] {
        assert_eq!(l.num_blocks(budget), blocks, "{budget}");
        assert_eq!(
            l.reported_tokens(&rules, blocks, len, pages),
            tokens,
            "{budget} {len}"
        );
        if let Some(c) = conc {
            assert_eq!(format!("{:.2}", l.max_concurrency(blocks, len, pages)), c);
        }
    }
    // At 0.19's rules the same pool is reported as 38 // 4 × 528 = 4,752 tokens.
    let r19 = VllmHybridRules::for_release(Some(&[0, 19, 0]));
    assert_eq!(l.reported_tokens(&r19, 38, 16_384, 1), 4_752);
}

/// vLLM 0.24.0 start-up of Qwen3.6-35B-A3B nvfp4 on an RTX 5090 (noonghunna/club-3090 issue #612:
/// fp8 KV, `enable_prefix_caching` → "align" mode, max_model_len 131,072): "Available KV cache
/// memory: 5.98 GiB", "GPU KV cache size: 567,978 tokens", "Maximum concurrency … 4.33x". Shape
/// [assumed] Qwen3.5-35B-A3B's config (40 layers, interval 4: 10 attention + 30 Gated DeltaNet; 2 KV
/// heads × 256; 16 / 32 heads × 128; fp32 SSM): attention 2 × 2 × 256 × 1 = 1,024 B per token per
/// layer; state page 49,152 + 2,097,152 = 2,146,304 B = exactly 131 × 16,384 → block 2,096, no
/// padding; groups of 10: 1 + 3; block 10 × 2,146,304 B: 299 blocks need 5.9767 GiB, 300 need 5.9967,
/// so the printed 5.98 (any budget in [5.9767, 5.985) of its rounding interval) holds 299; a
/// request holds ⌈131,072 / 2,096⌉ = 63 + 3 × 2 = 69 → 299 / 69 = 4.333 → int(4.333… × 131,072) =
/// 567,978.
#[test]
fn qwen36_35b_a3b_at_0_24_align_mode() {
    let rules = VllmHybridRules::for_release(Some(&[0, 24, 0]));
    let l = vllm_hybrid_layout(&rules, 10, 1_024, 30, 2_146_304, 16);
    assert_eq!((l.block_size, l.padding_pct()), (2_096, None));
    for gib in [5.977, 5.98, 5.9849] {
        assert_eq!(l.num_blocks((gib * GIB) as u64), 299, "{gib}");
    }
    assert_eq!(l.num_blocks((5.976 * GIB) as u64), 298);
    let pages = rules.state_pages(true, 0);
    assert_eq!(l.blocks_per_request(131_072, pages), 69);
    assert_eq!(l.reported_tokens(&rules, 299, 131_072, pages), 567_978);
    assert_eq!(format!("{:.2}", l.max_concurrency(299, 131_072, pages)), "4.33");
}

/// Qwen3.x-27B FP8 at tp 2 with fp8 KV and prefix caching (mitchross/talos-argocd-proxmox PR #1995,
/// boot log quoted: "GPU KV cache size: 302,921 tokens", "Maximum concurrency for 131,072 tokens per
/// request: 2.31x", 4.99 GiB per rank, "ceil(262144/1568)"; release not given, ≥ 0.21 by the token
/// form). Qwen3.5-27B's shape (scenarios/models/qwen3.5-27b/config.json: 16 attention + 48 linear
/// layers, 4 KV heads × 256, 48 value heads): attention 2 × 2 × 256 × 1 = 1,024 B; state page
/// 3 × 5,120 × 2 + 24 × 128 × 128 × 4 = 1,603,584 B → block 16 × 98 = 1,568 (the PR's figure); groups
/// of 16: 1 + 3; 4.99 GiB → 208 blocks; per request 84 + 3 × 2 = 90 → 2.31x, 302,921 tokens.
#[test]
fn qwen35_27b_tp2_fp8_kv_align_mode() {
    let rules = VllmHybridRules::for_release(Some(&[0, 28, 0]));
    let g = GatedDeltaNet {
        num_v_heads: 48,
        ..qwen35_9b_gdn()
    };
    let page = gdn_state_page(&g, 2, 0, 2, 4);
    assert_eq!(page, 1_603_584);
    let l = vllm_hybrid_layout(&rules, 16, 1_024, 48, page, 16);
    assert_eq!(
        (l.block_size, l.groups.group_size, l.groups.num_groups),
        (1_568, 16, 4)
    );
    let blocks = l.num_blocks((4.99 * GIB) as u64);
    assert_eq!(blocks, 208);
    let pages = rules.state_pages(true, 0);
    assert_eq!(l.reported_tokens(&rules, blocks, 131_072, pages), 302_921);
    assert_eq!(
        format!("{:.2}", l.max_concurrency(blocks, 131_072, pages)),
        "2.31"
    );
}

/// From 0.20 a configured block size larger than 16 is the alignment itself: block 32 on Qwen3.5-9B
/// gives 32 × ⌈2,146,304 / 131,072⌉ = 544 (0.19: 528, as the configured 32 < 528).
#[test]
fn configured_block_size_sets_the_alignment_from_0_20() {
    let page = gdn_state_page(&qwen35_9b_gdn(), 1, 0, 2, 4);
    let at = |v: &[u64]| {
        vllm_hybrid_layout(&VllmHybridRules::for_release(Some(v)), 8, 4_096, 24, page, 32).block_size
    };
    assert_eq!((at(&[0, 19]), at(&[0, 20])), (528, 544));
    // A configured block above the need is kept and the state page padded to it.
    let l = vllm_hybrid_layout(&VllmHybridRules::for_release(None), 8, 4_096, 24, page, 1_024);
    assert_eq!((l.block_size, l.block_size_raised), (1_024, false));
}

/// pro6k56: the SSM-state element size of a Gated DeltaNet layer by release (`gated_delta_net_state_dtype`,
/// the 0.16.0 and 0.17.0 wheels). Up to 0.16 the conv state's dtype whatever the flag or config say
/// (bf16 model, `auto`: 2 B; `--mamba-ssm-cache-dtype float32` ignored: 2 B); from 0.17 the flag, else the
/// config's `mamba_ssm_dtype` (Qwen3.5's float32: 4 B), else the conv state's (Qwen3-Next: 2 B). Exact.
#[test]
fn gdn_ssm_bytes_by_release() {
    let r = |v: &[u64]| VllmHybridRules::for_release(Some(v));
    let (old, new) = (r(&[0, 16, 0]), r(&[0, 17, 0]));
    assert_eq!(old.gdn_ssm_bytes(None, None, 2), 2);
    assert_eq!(old.gdn_ssm_bytes(Some(4), Some(4), 2), 2);
    assert_eq!(old.gdn_ssm_bytes(None, None, 4), 4);
    assert_eq!(new.gdn_ssm_bytes(None, None, 2), 2);
    assert_eq!(new.gdn_ssm_bytes(None, Some(4), 2), 4);
    assert_eq!(new.gdn_ssm_bytes(Some(2), Some(4), 2), 2);
    assert_eq!(new.gdn_ssm_bytes(Some(4), None, 2), 4);
}
