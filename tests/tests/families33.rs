//! families33 (issue #17): SGLang's DeepSeek-V4 KV pools by release (`tpsim_model::llm::deepseek_v4_pools`),
//! checked by hand against `model_executor/pool_configurator.py` `DSV4PoolConfigurator` of the 0.5.12,
//! 0.5.15 and 0.5.20 wheels, and against the one public start-up log tpsim holds (a DSv4 branch of
//! May 2026 on 8× H20, engine-memory.tsv line 6).

use crate::common::*;
use tpsim_model::llm::ModelConfig;
use tpsim_model::llm::deepseek_v4::Geometry;
use tpsim_model::llm::deepseek_v4_pools::{
    SGLANG_DSV4_DEFAULTS, SglangDsv4Plan, SglangDsv4Pools, SglangDsv4Rule, SglangDsv4Settings,
    bytes_per_full_token, bytes_per_swa_token, c128_state_fixed_bytes, indexer_slot_bytes, kv_slot_bytes,
    paged_slot_bytes, plan, swa_cap_tokens, swa_pool_check,
};

/// The published DeepSeek-V4-Flash config (43 layers; `compress_ratios` of 46 entries, the last three
/// the DSpark draft stages).
fn flash() -> Geometry {
    let text = std::fs::read_to_string(data_path("models/deepseek-v4-flash/config.json")).expect("config");
    let cfg = ModelConfig::from_json(&text).expect("parses");
    Geometry::read(&cfg).expect("DeepSeek-V4-Flash reads")
}

/// Which rule each release follows, read in the wheels: 0.5.12 – 0.5.14 price the c128 state per SWA
/// token (`c128_state_ratio = self.c128_ring_size / self.swa_page_size`), 0.5.15 – 0.5.19 share one
/// configurator text at the defaults (their diffs move `mr.server_args` to `kvc` / `get_schedule()`
/// and add an assert on speculative ring sizes), 0.5.20 adds only HIP's unified pool; 0.5.21 – 0.5.23
/// price pages by layout and can cap the SWA pool (0.5.23 read, 0.5.21 / 0.5.22 diffed: they differ only
/// for ratio 1 / 2 layers); 0.5.11 serves no DeepSeek-V4, 0.5.24 is not read.
#[test]
fn dsv4_rule_by_release() {
    let of = |r: &[u64]| SglangDsv4Rule::of(r);
    assert_eq!(of(&[0, 5, 11]), None);
    assert_eq!(of(&[0, 5, 12]), Some(SglangDsv4Rule::SwaScopedC128));
    assert_eq!(of(&[0, 5, 14]), Some(SglangDsv4Rule::SwaScopedC128));
    assert_eq!(of(&[0, 5, 15]), Some(SglangDsv4Rule::RequestScopedC128));
    assert_eq!(of(&[0, 5, 20]), Some(SglangDsv4Rule::RequestScopedC128));
    assert_eq!(of(&[0, 5, 21]), Some(SglangDsv4Rule::PagedCap));
    assert_eq!(of(&[0, 5, 22]), Some(SglangDsv4Rule::PagedCap));
    assert_eq!(of(&[0, 5, 23]), Some(SglangDsv4Rule::PagedCap));
    assert_eq!(of(&[0, 5, 24]), None);
}

/// Bytes a full token, Flash, SGLang 0.5.15 – 0.5.20 at the defaults (fp8 KV, ratio 0.1, fp32 state,
/// no speculation), 43 decoder layers (21 of ratio 4, 20 of ratio 128). Slot 448 + 2 × 64 + 8 = 584,
/// indexer key 128 + 4 = 132:
/// SWA 0.1 × 584 × 43 = 2,511.2; c4 584 / 4 × 21 = 3,066; c128 584 / 128 × 20 = 91.25; indexer 132 / 4
/// × 21 = 693; c4 state 0.1 × 8 / 128 × (2·2·512·4 + 2·2·128·4 = 10,240) × 21 = 1,344 → 7,705.45.
/// 0.5.12 – 0.5.14 (families29): 16,072.65 over all 46 entries. Tolerance 1e-9 relative (float sums).
#[test]
fn dsv4_bytes_per_full_token_by_hand() {
    let g = flash();
    assert_eq!((kv_slot_bytes(&g), indexer_slot_bytes(&g)), (584, 132));
    let d = SGLANG_DSV4_DEFAULTS;
    let hand = 2_511.2 + 3_066.0 + 91.25 + 693.0 + 1_344.0;
    assert!((hand - 7_705.45_f64).abs() < 1e-9);
    let b = bytes_per_full_token(&g, SglangDsv4Rule::RequestScopedC128, &d);
    assert!((b - hand).abs() <= 1e-9 * hand, "{b}");
    let old = bytes_per_full_token(&g, SglangDsv4Rule::SwaScopedC128, &d);
    assert!((old - 16_072.65).abs() <= 1e-9 * 16_072.65, "{old}");
    // bf16 compress state (SGLANG_DSV4_COMPRESS_STATE_DTYPE=bf16): the c4 state halves, 1,344 → 672.
    let bf16 = SglangDsv4Settings { state_bytes: 2, ..d };
    let b2 = bytes_per_full_token(&g, SglangDsv4Rule::RequestScopedC128, &bf16);
    assert!((b2 - (hand - 672.0)).abs() <= 1e-9 * hand, "{b2}");
}

/// The c128 state taken off first (0.5.15 on): 256 + 1 request slots × ring 128 + 128 + 1 = 33,025 rows
/// → 259 × 128 = 33,152; × 2 × 512 × 4 B × 20 layers = 2,715,811,840 B (2.53 GiB). Exact integers.
#[test]
fn dsv4_c128_state_fixed_by_hand() {
    let g = flash();
    let d = SGLANG_DSV4_DEFAULTS;
    assert_eq!(33_152_u64 * 1_024 * 4 * 20, 2_715_811_840);
    assert_eq!(
        c128_state_fixed_bytes(&g, SglangDsv4Rule::RequestScopedC128, &d),
        2_715_811_840
    );
    assert_eq!(c128_state_fixed_bytes(&g, SglangDsv4Rule::SwaScopedC128, &d), 0);
    // --max-running-requests 64: 65 × 128 + 129 = 8,449 → 67 × 128 = 8,576 rows → 702,545,920 B.
    let s = SglangDsv4Settings {
        max_running_requests: 64,
        ..d
    };
    assert_eq!(
        c128_state_fixed_bytes(&g, SglangDsv4Rule::RequestScopedC128, &s),
        8_576 * 1_024 * 4 * 20
    );
}

/// Pools from 60 GiB of rest memory under 0.5.15 – 0.5.20 (exact integers once the float division is
/// taken; tolerance none): 64,424,509,440 − 2,715,811,840 = 61,708,697,600; / 7,705.45 = 8,008,448.25
/// → 8,008,448 = 31,283 pages of 256; SWA int(800,844.8) = 800,844 → 3,128 pages = 800,768; c4
/// 2,002,112; c128 62,566; c4 state 800,768 // 128 × 8 = 50,048; c128 state 257 × 128 = 32,896. The
/// log lines are SGLang's text with these numbers (0.5.17's, and 0.5.20's longer first line).
#[test]
fn dsv4_pools_for_an_example_rank_by_hand() {
    let g = flash();
    let rule = SglangDsv4Rule::RequestScopedC128;
    let avail = 60_u64 << 30;
    let p = plan(&g, rule, &SGLANG_DSV4_DEFAULTS, avail).expect("plan");
    let q = p.pools;
    assert_eq!(
        (q.full, q.swa, q.c4, q.c128, q.c4_state, q.c128_state),
        (8_008_448, 800_768, 2_002_112, 62_566, 50_048, 32_896)
    );
    assert_eq!(
        p.log_lines(&[0, 5, 17], &SGLANG_DSV4_DEFAULTS, avail),
        [
            "DSV4 memory calculation: bytes_per_full_token=7705.45, available_bytes=60.00 GB, \
             c128_state_fixed=2.53 GB, full_token=8008448",
            "DSV4 pool sizes: full=8008448, swa=800768, c4=2002112, c128=62566, c4_state=50048, c128_state=32896"
        ]
    );
    assert_eq!(
        p.log_lines(&[0, 5, 20], &SGLANG_DSV4_DEFAULTS, avail)[0],
        "DSV4 memory calculation: unified=False, unified_fp8=False, bytes_per_full_token=7705.45, \
         available_bytes=60.00 GB, c128_state_fixed=2.53 GB, swa_ring_fixed=0.00 GB, c4_state_fixed=0.00 GB, \
         full_token=8008448"
    );
}

/// The DSv4 branch log (May 2026, 8× H20, fp8_e4m3, mem fraction 0.60; find_string id 54684172587,
/// engine-memory.tsv line 6) prints `bytes_per_full_token=15955.85, available_bytes=19.58 GB,
/// full_token=1317632`. The 0.5.12 rule gives 15,955.85 for 44 `compress_ratios` entries and for no
/// other count (43: 15,897.45; 46: 16,072.65): 0.1 × 584 × 44 = 2,569.6 + 3,066 + 91.25 + 693 +
/// 1,344 (c4 state) + 0.1 × 128 / 128 × 4,096 × 20 = 8,192 → 15,955.85 — the config it loaded had the
/// 43 layers and one MTP layer (`num_nextn_predict_layers` = 1), before the DSpark stages; assumed, as
/// the log names no revision. Tokens: 19.58 GiB = 21,023,864,913.92 B / 15,955.85 = 1,317,627.4 →
/// 1,317,376 (5,146 pages); logged 1,317,632, one page more. Tolerance: the printed 19.58 is rounded
/// to ± 0.005 GiB = ± 336 tokens (19.575 → 1,317,120, 19.585 → 1,317,888).
#[test]
fn dsv4_branch_log_on_h20_by_the_0_5_12_rule() {
    let mut g = flash();
    g.all_ratios.truncate(44);
    let rule = SglangDsv4Rule::SwaScopedC128;
    let b = bytes_per_full_token(&g, rule, &SGLANG_DSV4_DEFAULTS);
    assert!((b - 15_955.85).abs() < 0.005, "{b}");
    let avail = (19.58 * (1u64 << 30) as f64) as u64;
    let p = plan(&g, rule, &SGLANG_DSV4_DEFAULTS, avail).expect("plan");
    assert_eq!(p.pools.full, 1_317_376);
    let logged = 1_317_632_i64;
    assert!((p.pools.full as i64 - logged).abs() <= 336, "{}", p.pools.full);
    assert_eq!(
        p.log_lines(&[0, 5, 12], &SGLANG_DSV4_DEFAULTS, avail)[0],
        "DSV4 memory calculation: bytes_per_full_token=15955.85, available_bytes=19.58 GB, full_token=1317376"
    );
    // The fixture's other log (f = 0.88, kv_cache_dtype='bf16') prints the same coefficient — the rule
    // prices the FlashMLA slot whatever the KV dtype — and `available_bytes=45.78 GB, full_token=3080960`:
    // 45.78 GiB = 49,155,900,702.72 B / 15,955.85 = 3,080,744.7 → 3,080,704, one page under again (band
    // ± 336 tokens: 45.775 → 3,080,192, 45.785 → 3,080,960).
    let avail = (45.78 * (1u64 << 30) as f64) as u64;
    let p = plan(&g, rule, &SGLANG_DSV4_DEFAULTS, avail).expect("plan");
    assert_eq!(p.pools.full, 3_080_704);
    assert!(
        (p.pools.full as i64 - 3_080_960_i64).abs() <= 336,
        "{}",
        p.pools.full
    );
}

/// dsv4run55: `tpsim memory` gives the plan now and prints SGLang 0.5.17's budget line: 7,705.45 B a
/// full token after 2,715,811,840 B (2.53 GiB) of c128 state (hand values in the tests here).
#[test]
fn dsv4_refusal_names_both_budgets() {
    let config = data_path("models/deepseek-v4-flash/config.json");
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\nconfig = \"{}\"\n[engine]\nname = \
         \"sglang\"\nversion = \"0.5.17\"\ntp = 8\n[workload]\nconcurrency = 8\nprompt_len = 1024\n\
         output_len = 64\n",
        config.display()
    );
    let p = scratch("families33-dsv4").join("s.toml");
    std::fs::write(&p, text).expect("write");
    let o = tpsim(&["memory", &p.display().to_string()]);
    assert_eq!(o.code, 0, "{} {}", o.stdout, o.stderr);
    let o = tpsim(&["memory", &p.display().to_string(), "--log"]);
    assert!(
        o.stdout
            .contains("DSV4 memory calculation: bytes_per_full_token=7705.45, available_bytes=")
            && o.stdout.contains("c128_state_fixed=2.53 GB"),
        "{}",
        o.stdout
    );
}

/// SGLang 0.5.20 refuses a SWA pool at or below window + page (128 + 256 = 384 tokens) with its text;
/// 0.5.19 starts. From 30 MiB of rest memory under the defaults: 31,457,280 − 2,715,811,840 < 0 → 0
/// full tokens, SWA 0 ≤ 384 → refused. From 60 GiB (800,768 SWA tokens, above) → starts. The bound:
/// 384 SWA tokens is refused (`>=`), 385 is not. A 0.5.23 cap-mode plan is never checked.
#[test]
fn dsv4_swa_floor_refusal_from_0_5_20() {
    let g = flash();
    let rule = SglangDsv4Rule::RequestScopedC128;
    let small = plan(&g, rule, &SGLANG_DSV4_DEFAULTS, 30 << 20).expect("plan");
    assert_eq!((small.pools.full, small.pools.swa), (0, 0));
    let e = swa_pool_check(&[0, 5, 20], &g, &small, 256).expect_err("refused");
    assert_eq!(
        e,
        "SWA pool (0 tokens) cannot hold even one request: the prefill admission floor is sliding_window_size \
         (128) + page_size (256). Increase --swa-full-tokens-ratio or the total KV budget."
    );
    assert!(swa_pool_check(&[0, 5, 19], &g, &small, 256).is_ok());
    let big = plan(&g, rule, &SGLANG_DSV4_DEFAULTS, 60 << 30).expect("plan");
    assert!(swa_pool_check(&[0, 5, 20], &g, &big, 256).is_ok());
    let with_swa = |swa: u64| SglangDsv4Plan {
        pools: SglangDsv4Pools { swa, ..big.pools },
        ..big
    };
    assert!(swa_pool_check(&[0, 5, 20], &g, &with_swa(384), 256).is_err());
    assert!(swa_pool_check(&[0, 5, 20], &g, &with_swa(385), 256).is_ok());
    let capped = SglangDsv4Plan {
        swa_cap: Some(384),
        ..with_swa(384)
    };
    assert!(swa_pool_check(&[0, 5, 23], &g, &capped, 256).is_ok());
}

/// SGLang 0.5.23's cap mode (module doc of `deepseek_v4_pools`): DeepSeek-V4.1's default, never a V4
/// config's (its override declares the ratio 0.1 before the cache hook records it as given), so reached
/// here with `swa_ratio_explicit = false` on Flash's shape (fp8, 256 requests, chunked prefill 8,192,
/// radix cache and overlap scheduler on), 60 GiB of rest memory. Exact integers where SGLang's are; the
/// float coefficients to 1e-9 relative.
/// - Paged slots (V4 layout, pages padded to 576 B): page 256: 256 × 584 = 149,504 → 260 × 576 = 149,760
///   → 585 a slot; c4 page 64: 37,376 → 65 × 576 = 37,440 → 585; c128 page 2: 1,168 → 3 × 576 = 1,728 → 864.
/// - A SWA slot: 585 × 43 + 8 / 256 × (8,192 + 2,048) × 21 = 25,155 + 6,720 = 31,875 B.
/// - A full token (cap mode: compressed pools only): (585 + 132) / 4 × 21 + 864 / 128 × 20 = 3,764.25 +
///   135 = 3,899.25 B.
/// - SWA cap: (128 + 128 + 256 + 256) × 256 + 2 × 8,192 + 256 = 213,248, + 4 × 256 tails × (128 + 256) =
///   393,216 → 606,464 tokens (2,369 pages); × 31,875 = 19,331,040,000 B fixed (18.00 GiB).
/// - Full: (64,424,509,440 − 2,715,811,840 − 19,331,040,000) / 3,899.25 = 42,377,657,600 / 3,899.25 =
///   10,868,156.08 → 10,867,968 (42,453 pages); c4 2,716,992, c128 84,906, c4 state 2,369 × 8 = 18,952,
///   c128 state 257 × 128 = 32,896.
#[test]
fn dsv4_sglang_0_5_23_cap_mode_by_hand() {
    let g = flash();
    let rule = SglangDsv4Rule::PagedCap;
    const { assert!(SGLANG_DSV4_DEFAULTS.swa_ratio_explicit) };
    let d = SglangDsv4Settings {
        swa_ratio_explicit: false,
        ..SGLANG_DSV4_DEFAULTS
    };
    // Exact in binary floating point (585, 864, 584 are integers); tolerance 1e-9.
    for (got, want) in [
        (paged_slot_bytes(&g, rule, 256), 585.0),
        (paged_slot_bytes(&g, rule, 64), 585.0),
        (paged_slot_bytes(&g, rule, 2), 864.0),
        (paged_slot_bytes(&g, SglangDsv4Rule::RequestScopedC128, 2), 584.0),
    ] {
        assert!((got - want).abs() < 1e-9, "{got} vs {want}");
    }
    let swa = bytes_per_swa_token(&g, rule, &d);
    assert!((swa - 31_875.0).abs() <= 1e-9 * 31_875.0, "{swa}");
    let full = bytes_per_full_token(&g, rule, &d);
    assert!((full - 3_899.25).abs() <= 1e-9 * 3_899.25, "{full}");
    assert_eq!(swa_cap_tokens(&g, &d), 606_464);
    let avail = 60_u64 << 30;
    let p = plan(&g, rule, &d, avail).expect("plan");
    assert_eq!((p.swa_cap, p.c128_fixed), (Some(606_464), 2_715_811_840));
    assert!((p.swa_fixed - 19_331_040_000.0).abs() < 1e-3, "{}", p.swa_fixed);
    let q = p.pools;
    assert_eq!(
        (q.full, q.swa, q.c4, q.c128, q.c4_state, q.c128_state),
        (10_867_968, 606_464, 2_716_992, 84_906, 18_952, 32_896)
    );
    assert_eq!(
        p.log_lines(&[0, 5, 23], &d, avail),
        [
            "DSV4 SWA sizing: mode=cap, swa_tokens=606464, request_cap+headroom=606464, prefix_tails=1024",
            "DSV4 memory calculation: unified=False, unified_fp8=False, dspark_draft_bf16=False, \
             bytes_per_full_token=3899.25, available_bytes=60.00 GB, c128_state_fixed=2.53 GB, \
             c2_state_fixed=0.00 GB, swa_fixed=18.00 GB, swa_ring_fixed=0.00 GB, c4_state_fixed=0.00 GB, \
             full_token=10867968",
            "DSV4 pool sizes: full=10867968, swa=606464, c4=2716992, c128=84906, c4_state=18952, c128_state=32896",
        ]
    );
}

/// 0.5.23 at DeepSeek-V4's defaults (ratio mode: the override's 0.1 counts as given) and its refusals.
/// Ratio mode: 0.1 ×
/// 31,875 + 3,899.25 = 7,086.75 B a full token; (64,424,509,440 − 2,715,811,840) / 7,086.75 =
/// 8,707,615.99 → 8,707,584; SWA int(870,758.4) = 870,758 → 870,656; c4 state 3,401 pages × 8 = 27,208.
/// Cap mode from 20 GiB: 21,474,836,480 − 2,715,811,840 − 19,331,040,000 < 0 → no full page → SGLang's
/// RuntimeError text (18.00 GB of cap, 20.00 GB available). Cap mode with speculative decoding is refused
/// as not modelled; ratio mode with it is sized. Without the radix cache the cap has no tails: 213,248 → 213,248 (833 pages).
#[test]
fn dsv4_sglang_0_5_23_ratio_mode_and_refusals() {
    let g = flash();
    let rule = SglangDsv4Rule::PagedCap;
    let ratio = SGLANG_DSV4_DEFAULTS;
    let cap = SglangDsv4Settings {
        swa_ratio_explicit: false,
        ..SGLANG_DSV4_DEFAULTS
    };
    let b = bytes_per_full_token(&g, rule, &ratio);
    assert!((b - 7_086.75).abs() <= 1e-9 * 7_086.75, "{b}");
    let p = plan(&g, rule, &ratio, 60 << 30).expect("plan");
    assert_eq!(p.swa_cap, None);
    assert_eq!(
        (p.pools.full, p.pools.swa, p.pools.c4_state),
        (8_707_584, 870_656, 27_208)
    );
    assert_eq!(
        p.log_lines(&[0, 5, 23], &ratio, 60 << 30),
        [
            "DSV4 SWA sizing: mode=ratio (explicit), swa_tokens=870656, swa_full_tokens_ratio=0.1",
            "DSV4 memory calculation: unified=False, unified_fp8=False, dspark_draft_bf16=False, \
             bytes_per_full_token=7086.75, available_bytes=60.00 GB, c128_state_fixed=2.53 GB, \
             c2_state_fixed=0.00 GB, swa_fixed=0.00 GB, swa_ring_fixed=0.00 GB, c4_state_fixed=0.00 GB, \
             full_token=8707584",
            "DSV4 pool sizes: full=8707584, swa=870656, c4=2176896, c128=68028, c4_state=27208, c128_state=32896",
        ]
    );
    assert!(swa_pool_check(&[0, 5, 23], &g, &p, 256).is_ok());
    let e = plan(&g, rule, &cap, 20 << 30).expect_err("no room");
    assert_eq!(
        e,
        "The DSV4 SWA pool cap (606464 tokens, 18.00 GB) leaves no room for the full KV pool within the available \
         20.00 GB. Reduce --max-running-requests, lower --swa-prefix-tails or SGLANG_SWA_EVICTION_INTERVAL, or \
         increase --mem-fraction-static."
    );
    let spec = SglangDsv4Settings {
        speculative: true,
        ..cap
    };
    assert!(plan(&g, rule, &spec, 60 << 30).is_err());
    let spec_ratio = SglangDsv4Settings {
        speculative: true,
        ..SGLANG_DSV4_DEFAULTS
    };
    assert!(plan(&g, rule, &spec_ratio, 60 << 30).is_ok());
    let no_radix = SglangDsv4Settings {
        radix_cache: false,
        ..cap
    };
    assert_eq!(swa_cap_tokens(&g, &no_radix), 213_248);
}

/// One request's decode step at 8,192 tokens of context, Flash (exact integers; tolerance none):
/// window 128 × 584 = 74,752 B in every layer; a ratio-4 layer adds min(8,192 / 4 = 2,048, 512) = 512
/// selected slots × 584 = 299,008 and the indexer's 2,048 keys × 132 = 270,336 → 644,096; a ratio-128
/// layer 8,192 / 128 = 64 slots × 584 = 37,376 → 112,128. 2 × 74,752 + 21 × 644,096 + 20 × 112,128 =
/// 149,504 + 13,526,016 + 2,242,560 = 15,918,080 B. At 64 tokens: 64 × 584 = 37,376 a layer, plus 16 ×
/// (584 + 132) = 11,456 in a ratio-4 layer, nothing more in a ratio-128 one (64 / 128 = 0 slots) → 43
/// × 37,376 + 21 × 11,456 = 1,607,168 + 240,576 = 1,847,744. Two all-reduces a layer at tp > 1, of
/// 4,096 bf16 values (8,192 B) a token; none at tp 1.
#[test]
fn dsv4_decode_reads_and_allreduces_by_hand() {
    use tpsim_model::llm::deepseek_v4_decode::{
        allreduce_bytes_per_token, allreduces_per_layer, kv_read_bytes, step_kv_read_bytes,
    };
    let g = flash();
    assert_eq!(g.index_topk, 512);
    assert_eq!(kv_read_bytes(&g, 0, 8_192), 74_752);
    assert_eq!(kv_read_bytes(&g, 4, 8_192), 644_096);
    assert_eq!(kv_read_bytes(&g, 128, 8_192), 112_128);
    assert_eq!(step_kv_read_bytes(&g, 8_192), 15_918_080);
    assert_eq!(step_kv_read_bytes(&g, 64), 1_847_744);
    assert_eq!((allreduces_per_layer(8), allreduces_per_layer(1)), (2, 0));
    assert_eq!(allreduce_bytes_per_token(&g), 8_192);
}

/// Parameters a rank holds under SGLang TP 8, Flash (exact integers; tolerance none). Replicated a
/// layer: wqkv_a 4,096 × (1,024 + 512) = 6,291,456, q_norm 1,024, kv_norm 512, sink 64 → 6,293,056;
/// norms 8,192 + mHC 786,486 + router 1,048,576 = 1,843,254 (+ 256 bias past the 3 hash layers);
/// compression as counted in families29 (19,142,272 at ratio 4, 4,260,352 at 128). Split by 8: wq_b,
/// wo_a, wo_b 3 × 33,554,432 + shared 25,165,824 + routed 256 × 25,165,824 = 6,568,280,064 / 8 =
/// 821,035,008. A plain layer 829,171,318; 43 × it + 40 × 256 + 21 × 19,142,272 + 20 × 4,260,352 =
/// 36,141,571,666. Top: 2 × 129,280 / 8 × 4,096 = 132,382,720 + norm 4,096 + hc_head 65,541 =
/// 132,452,357 → 36,274,024,023. At tp 1 it is the whole decoder, 284,332,240,471 (families29). tp 16
/// is refused: o_groups = 8 is not divisible by 16.
#[test]
fn dsv4_rank_params_under_sglang_tp_by_hand() {
    let g = flash();
    assert_eq!(829_171_318_u64, 6_293_056 + 1_843_254 + 821_035_008);
    assert_eq!(
        g.sglang_rank_params(8).expect("tp 8"),
        36_141_571_666 + 132_452_357
    );
    assert_eq!(g.sglang_rank_params(8).expect("tp 8"), 36_274_024_023);
    assert_eq!(g.sglang_rank_params(1).expect("tp 1"), g.params());
    let e = g.sglang_rank_params(16).expect_err("tp 16").to_string();
    assert!(e.contains("o_groups = 8 is not divisible by tp 16"), "{e}");
}
