//! families33 (issue #17): SGLang's DeepSeek-V4 KV pools by release — the bytes it budgets a *full*
//! token, the request-scoped bytes it takes off first, and the pool sizes it prints at start-up
//! (`model_executor/pool_configurator.py` `DSV4PoolConfigurator`, read in the 0.5.12 – 0.5.23 wheels).
//!
//! A full token is one position of the request's whole context. Each decoder layer keeps a
//! sliding-window pool (`--swa-full-tokens-ratio` × full tokens), and layers of compress ratio 4 / 128
//! a compressed pool of full / 4 resp. full / 128 slots; ratio-4 layers add an indexer cache (one key
//! a compressed slot) and compress-state rings (fp32 partial sums). Per slot, on CUDA at the default
//! switches (HiSparse off, `SGLANG_OPT_USE_ONLINE_COMPRESS` off, not the HIP unified pool):
//!
//! - main KV (FlashMLA layout): `nope + 2 × rope + 8` B (fp8 nope, bf16 rope, 8 B of scales and pad):
//!   Flash 448 + 128 + 8 = 584;
//! - indexer key: `index_head_dim + index_head_dim / 128 × 4` (fp8 and one fp32 scale a 128) = 132;
//! - c4 compress state, per ring row: `2 × 2 × head_dim × s` (overlapped kv and score) plus the
//!   indexer's `2 × 2 × index_head_dim × s`; c128: `2 × head_dim × s`; `s` the state dtype (fp32 = 4,
//!   `SGLANG_DSV4_COMPRESS_STATE_DTYPE` from 0.5.14, default float32); rings of 8 (c4) / 128 (c128)
//!   rows, 16 / 256 with speculative decoding (`deepseek_v4_memory_pool.py`
//!   `get_compress_state_ring_size`), one ring a 128-token window of the SWA pool (`swa_page_size =
//!   window_size`).
//!
//! What changed between releases ([`SglangDsv4Rule`]):
//!
//! - **0.5.12 – 0.5.14** ([`SglangDsv4Rule::SwaScopedC128`]): the c128 state is priced per SWA token
//!   like the c4 state, and the layer count is every `compress_ratios` entry, MTP / draft stages
//!   included (`num_layers_total = len(cfg.compress_ratios)`);
//! - **0.5.15 – 0.5.20** ([`SglangDsv4Rule::RequestScopedC128`]): "C128 state is request-scoped":
//!   its bytes leave the per-token coefficient and are taken off the budget first, for
//!   `max_running_requests + 1` request slots of one ring each (rows padded to 128;
//!   `_get_c128_state_fixed_bytes`), and the layers are the stage's decoder layers
//!   (`cfg.compress_ratios[start_layer:end_layer]`, `end_layer = num_hidden_layers` at pp 1).
//!   Every one of these releases defaults `--max-running-requests` to 256 for the model
//!   (`deepseek_v4_hook.py`: "Setting max_running_requests to 256"). 0.5.20 adds the HIP unified
//!   pool (off on CUDA: `is_unified_kv_triton` needs HIP) and a SWA-pool size check that refuses
//!   to start ([`swa_pool_check`]); its CUDA sizing is 0.5.19's.
//! - **0.5.21 – 0.5.23** ([`SglangDsv4Rule::PagedCap`], read in the 0.5.23 wheel and diffed against
//!   0.5.21 / 0.5.22: their differences touch only ratio 1 / 2 layers, which a DeepSeek-V4 config
//!   cannot have, and `max(1, …)` guards): slots are priced by their physical page
//!   (`_get_paged_kv_bytes_per_token`: `KVLayout.V4.page_bytes(p) / p`, a page of `p × 584` B padded
//!   to a multiple of 576 — `sglang/kernels/ops/attention/dsv4/kv_layout.py`; the V4 layout is the
//!   default, `SGLANG_DSV4_KV_LAYOUT = "v4"`, on every GPU), the SWA pool at page 256 (585 B a slot),
//!   the c4 pool at page 64 (585 B), the c128 pool at page 2 (1,728 / 2 = 864 B); the c4 state ring is
//!   one a *page* of the SWA pool (`ring / page_size`, no longer `/ window`). The SWA pool is sized
//!   by the ratio when `--swa-full-tokens-ratio` counts as given — and for DeepSeek-V4 it always does:
//!   the model override (`arg_groups/model_overrides/deepseek_v4.py`) declares 0.1 for any
//!   `model_type` but `deepseek_v41` before the cache hook (`kv_cache_hook.py`
//!   `handle_cache_compatibility`, later in `arg_groups/pipeline.py`) records the ratio as explicitly
//!   set. Otherwise (DeepSeek-V4.1's default, reachable here with `swa_ratio_explicit = false`) it is in
//!   **cap mode** (`_resolve_swa_cap_tokens`):
//!   sized from the request cap (`compute_swa_request_cap`: per request `window + eviction interval
//!   (128, SGLANG_SWA_EVICTION_INTERVAL) + page` trailing tokens and a page of decode, × requests,
//!   plus `2 × chunked_prefill_size + page` with the overlap scheduler, `1 ×` without) plus room for
//!   `4 × max_running_requests` radix prefix tails of `window + page` each (0 with the radix cache
//!   off), page-aligned; those SWA tokens and their c4 state are fixed bytes taken off first, and a
//!   full token is priced by its compressed pools only. With the ratio given, the 0.5.15 shape holds
//!   at the paged prices. Speculative decoding changes the cap's decode allocation (not modelled:
//!   [`plan`] refuses cap mode with it; ratio mode takes the rings of 16 / 256 and the (N + 1) / N
//!   inflation as before).
//!
//! Then (`calculate_pool_sizes`, `_compute_dsv4_sizes`): full tokens `int((available − fixed) /
//! bytes_per_full_token)` floored to the page (256: `apply_deepseek_v4_defaults` sets it on CUDA), SWA
//! tokens `int(full × swa_ratio)` floored to the page (the cap itself in cap mode), c4 `full // 4`,
//! c128 `full // 128`, c4 state `swa // window × ring4` (`swa // page × ring4` from 0.5.21), and the
//! c128 state `swa // window × ring128` (0.5.12 – 0.5.14) or `(max_running_requests + 1) × ring128`
//! (`finalize_with_max_running_requests`, 0.5.15 on).
//! `max_total_num_tokens` is the full count.

use super::deepseek_v4::Geometry;

/// Values per fp32 scale in the fp8 latent and the indexer key (SGLang
/// `_get_bytes_per_full_token`: `quant_block_size = 128`).
const QUANT_BLOCK: u64 = 128;

/// Which of SGLang's DeepSeek-V4 sizing rules a release follows (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SglangDsv4Rule {
    /// 0.5.12 – 0.5.14: c128 state per SWA token, every `compress_ratios` entry counted.
    SwaScopedC128,
    /// 0.5.15 – 0.5.20: c128 state for the request slots, taken off the budget first; decoder
    /// layers only.
    RequestScopedC128,
    /// 0.5.21 – 0.5.23: [`SglangDsv4Rule::RequestScopedC128`] at page-padded slot prices, the SWA
    /// pool from the request cap unless `--swa-full-tokens-ratio` counts as given.
    PagedCap,
}

impl SglangDsv4Rule {
    /// The rule of SGLang `release` (leading numeric components, `0.5.15.post1` → `[0, 5, 15]`):
    /// `None` before 0.5.12 (no DeepSeek-V4) and after 0.5.23 (not read).
    pub fn of(release: &[u64]) -> Option<SglangDsv4Rule> {
        if release < [0, 5, 12].as_slice() || release >= [0, 5, 24].as_slice() {
            None
        } else if release >= [0, 5, 21].as_slice() {
            Some(SglangDsv4Rule::PagedCap)
        } else if release < [0, 5, 15].as_slice() {
            Some(SglangDsv4Rule::SwaScopedC128)
        } else {
            Some(SglangDsv4Rule::RequestScopedC128)
        }
    }
}

/// The server settings SGLang's DeepSeek-V4 sizing reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SglangDsv4Settings {
    /// `--swa-full-tokens-ratio` as the hook leaves it (its 0.8 default becomes 0.1: "Setting
    /// swa_full_tokens_ratio to 0.1").
    pub swa_ratio: f64,
    /// Speculative decoding on (rings 16 / 256, budget × (N + 1) / N for one draft layer).
    pub speculative: bool,
    /// `--max-running-requests` per attention-DP worker (the hook's default: 256).
    pub max_running_requests: u64,
    /// Bytes of a compress-state element (`SGLANG_DSV4_COMPRESS_STATE_DTYPE`: float32 → 4, bf16 → 2;
    /// 0.5.12 / 0.5.13 always 4).
    pub state_bytes: u64,
    /// Tokens a page (256 on CUDA).
    pub page: u64,
    /// 0.5.23: `--swa-full-tokens-ratio` counts as given (ratio mode instead of cap mode): always for
    /// DeepSeek-V4, whose model override declares 0.1 first (module doc).
    pub swa_ratio_explicit: bool,
    /// 0.5.23 cap mode: `--chunked-prefill-size` as resolved (SGLang's default depends on the GPU).
    pub chunked_prefill_size: u64,
    /// 0.5.23 cap mode: the radix cache is on (room for prefix tails).
    pub radix_cache: bool,
    /// 0.5.23 cap mode: the overlap scheduler is on (two prefill chunks in flight).
    pub overlap_schedule: bool,
}

/// SGLang's defaults for DeepSeek-V4 on CUDA, 0.5.12 – 0.5.20 (`deepseek_v4_hook.py`,
/// `arg_groups/overrides.py`, `environ.py`).
pub const SGLANG_DSV4_DEFAULTS: SglangDsv4Settings = SglangDsv4Settings {
    swa_ratio: 0.1,
    speculative: false,
    max_running_requests: 256,
    state_bytes: 4,
    page: 256,
    swa_ratio_explicit: true,
    // The value the DSv4-branch H20 log prints (engine-memory.tsv line 6); callers pass the resolved one.
    chunked_prefill_size: 8_192,
    radix_cache: true,
    overlap_schedule: true,
};

/// Layer counts the rule sees: (all, ratio 4, ratio 128).
fn counts(g: &Geometry, rule: SglangDsv4Rule) -> (u64, u64, u64) {
    let list = match rule {
        SglangDsv4Rule::SwaScopedC128 => &g.all_ratios,
        SglangDsv4Rule::RequestScopedC128 | SglangDsv4Rule::PagedCap => &g.ratios,
    };
    let of = |r: u64| list.iter().filter(|&&x| x == r).count() as u64;
    (list.len() as u64, of(4), of(128))
}

/// Compress-state ring rows (c4, c128).
fn rings(s: &SglangDsv4Settings) -> (u64, u64) {
    if s.speculative { (16, 256) } else { (8, 128) }
}

/// 0.5.23's page alignment of the V4 layout (`KVLayout.V4.page_align`: FlashMLA's 576-byte TMA row).
const V4_PAGE_ALIGN: u64 = 576;

/// Tokens of SGLang's SWA eviction interval (`SGLANG_SWA_EVICTION_INTERVAL`, default 128, 0.5.23
/// `environ.py`), in the request cap.
const SWA_EVICTION_INTERVAL: u64 = 128;

/// Main-KV bytes of one slot (module doc): 584 for Flash.
pub fn kv_slot_bytes(g: &Geometry) -> u64 {
    g.head_dim - g.rope_dim + 2 * g.rope_dim + 8
}

/// Indexer-key bytes of one compressed slot (module doc): 132 for Flash.
pub fn indexer_slot_bytes(g: &Geometry) -> u64 {
    g.index_head_dim + g.index_head_dim / QUANT_BLOCK * 4
}

/// Bytes a slot costs in a pool of `page` tokens a page: 0.5.23 pads each page to a multiple of 576
/// B (`KVLayout.page_bytes`), earlier rules price the bare slot. Flash under 0.5.23: 585 at pages of
/// 256 and 64, 864 at a page of 2.
pub fn paged_slot_bytes(g: &Geometry, rule: SglangDsv4Rule, page: u64) -> f64 {
    let slot = kv_slot_bytes(g);
    match rule {
        SglangDsv4Rule::PagedCap => {
            (page * slot).div_ceil(V4_PAGE_ALIGN) as f64 * V4_PAGE_ALIGN as f64 / page as f64
        }
        _ => slot as f64,
    }
}

/// Whether the SWA pool is sized from the request cap (0.5.23 without `--swa-full-tokens-ratio`,
/// with chunked prefill on: `_resolve_swa_cap_tokens`).
fn cap_mode(rule: SglangDsv4Rule, s: &SglangDsv4Settings) -> bool {
    rule == SglangDsv4Rule::PagedCap && !s.swa_ratio_explicit && s.chunked_prefill_size > 0
}

/// Bytes one SWA slot costs over the layers (`_get_bytes_per_swa_token` in 0.5.23; the SWA terms of
/// `_get_bytes_per_full_token` before): the slot in every layer, the c4 state rows (kv and score of
/// the attention and the indexer) a window (before 0.5.23) or a page (0.5.23) of SWA tokens, and
/// under 0.5.12 – 0.5.14 the c128 state rows too. Flash, 0.5.23: 585 × 43 + 8 / 256 × 10,240 × 21 =
/// 31,875.
pub fn bytes_per_swa_token(g: &Geometry, rule: SglangDsv4Rule, s: &SglangDsv4Settings) -> f64 {
    let (n, n4, n128) = counts(g, rule);
    let (ring4, ring128) = rings(s);
    let per = match rule {
        SglangDsv4Rule::PagedCap => s.page,
        _ => g.window,
    } as f64;
    let st = s.state_bytes;
    let c4_state = (2 * 2 * g.head_dim * st + 2 * 2 * g.index_head_dim * st) as f64;
    let c128 = match rule {
        SglangDsv4Rule::SwaScopedC128 => ring128 as f64 / per * (2 * g.head_dim * st) as f64 * n128 as f64,
        _ => 0.0,
    };
    paged_slot_bytes(g, rule, s.page) * n as f64 + ring4 as f64 / per * c4_state * n4 as f64 + c128
}

/// `bytes_per_full_token` as SGLang prints it in "DSV4 memory calculation" (module doc). Flash at
/// the defaults: 16,072.65 (0.5.12 – 0.5.14, 46 entries), 7,705.45 (0.5.15 – 0.5.20, 43 layers),
/// 7,086.75 (0.5.23, paged prices), 3,899.25 (0.5.23 cap mode: compressed pools only).
pub fn bytes_per_full_token(g: &Geometry, rule: SglangDsv4Rule, s: &SglangDsv4Settings) -> f64 {
    let (n, n4, n128) = counts(g, rule);
    let swa = if cap_mode(rule, s) {
        0.0
    } else {
        s.swa_ratio * bytes_per_swa_token(g, rule, s)
    };
    let c4 = (paged_slot_bytes(g, rule, s.page / 4) / 4.0 + indexer_slot_bytes(g) as f64 / 4.0) * n4 as f64;
    let c128 = paged_slot_bytes(g, rule, s.page / 128) / 128.0 * n128 as f64;
    let bytes = swa + c4 + c128;
    if s.speculative {
        let n = n as f64;
        bytes * (n + 1.0) / n
    } else {
        bytes
    }
}

/// The c128 compress-state bytes taken off the budget before the per-token division (0.5.15 on,
/// `_get_c128_state_fixed_bytes`): rows `(slots × ring + ring + 1)` rounded up to 128, slots =
/// `max_running_requests + 1`, × `2 × head_dim × state_bytes` × ratio-128 layers. 0 under
/// [`SglangDsv4Rule::SwaScopedC128`]. Flash at the defaults: 33,152 × 1,024 × 4 × 20 = 2,715,811,840.
pub fn c128_state_fixed_bytes(g: &Geometry, rule: SglangDsv4Rule, s: &SglangDsv4Settings) -> u64 {
    if rule == SglangDsv4Rule::SwaScopedC128 {
        return 0;
    }
    let (_, _, n128) = counts(g, rule);
    let ring = rings(s).1;
    let rows = ((s.max_running_requests + 1) * ring + ring + 1).div_ceil(128) * 128;
    rows * 2 * g.head_dim * s.state_bytes * n128
}

/// 0.5.23's SWA tokens in cap mode (`_resolve_swa_cap_tokens`, `compute_swa_request_cap`, without
/// speculative decoding or PD disaggregation): per request `window + 128 + page` trailing tokens and a
/// page of decode, × `max(1, max_running_requests)`, plus `chunks × chunked_prefill_size + page`
/// (2 chunks with the overlap scheduler), plus `4 × max_running_requests` prefix tails of `window +
/// page` (none without the radix cache), rounded up to the page. Flash at the defaults (chunked 8,192):
/// 768 × 256 + 16,384 + 256 = 213,248; + 1,024 × 384 = 393,216 → 606,464.
pub fn swa_cap_tokens(g: &Geometry, s: &SglangDsv4Settings) -> u64 {
    let per_request = g.window + SWA_EVICTION_INTERVAL + s.page + s.page;
    let chunks = if s.overlap_schedule { 2 } else { 1 };
    let cap = per_request * s.max_running_requests.max(1) + chunks * s.chunked_prefill_size + s.page;
    let tails = if s.radix_cache {
        4 * s.max_running_requests
    } else {
        0
    };
    (cap + tails * (g.window + s.page)).div_ceil(s.page) * s.page
}

/// The pools SGLang sizes for DeepSeek-V4, in tokens or slots (module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct SglangDsv4Pools {
    /// Full tokens (`max_total_num_tokens`).
    pub full: u64,
    /// Sliding-window tokens.
    pub swa: u64,
    /// c4 compressed slots.
    pub c4: u64,
    /// c128 compressed slots.
    pub c128: u64,
    /// c4 compress-state rows.
    pub c4_state: u64,
    /// c128 compress-state rows.
    pub c128_state: u64,
}

/// SGLang's DeepSeek-V4 sizing for one rank: the coefficient, the fixed bytes and the pools.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SglangDsv4Plan {
    /// Bytes a full token ([`bytes_per_full_token`]).
    pub bytes_per_full_token: f64,
    /// Request-scoped bytes taken off first ([`c128_state_fixed_bytes`]).
    pub c128_fixed: u64,
    /// 0.5.23 cap mode: the SWA tokens reserved ([`swa_cap_tokens`]); `None` in ratio mode.
    pub swa_cap: Option<u64>,
    /// Bytes of those SWA tokens, taken off first: `swa_cap × bytes_per_swa_token` (0 in ratio mode).
    pub swa_fixed: f64,
    /// The pool sizes.
    pub pools: SglangDsv4Pools,
}

/// SGLang's sizing for `available` bytes (the profile's rest memory) under `rule` and `s`, or the
/// engine's refusal: 0.5.21 – 0.5.23's "The DSV4 SWA pool cap … leaves no room for the full KV pool"
/// when cap mode leaves no full page; cap mode with speculative decoding is refused as not modelled.
pub fn plan(
    g: &Geometry,
    rule: SglangDsv4Rule,
    s: &SglangDsv4Settings,
    available: u64,
) -> Result<SglangDsv4Plan, String> {
    if cap_mode(rule, s) && s.speculative {
        return Err(
            "tpsim does not model SGLang 0.5.21 - 0.5.23's DeepSeek-V4 SWA request cap with speculative \
                    decoding (compute_swa_request_cap's speculative decode allocation)"
                .into(),
        );
    }
    let per_token = bytes_per_full_token(g, rule, s);
    let c128_fixed = c128_state_fixed_bytes(g, rule, s);
    let swa_cap = cap_mode(rule, s).then(|| swa_cap_tokens(g, s));
    let swa_fixed = swa_cap.map_or(0.0, |t| t as f64 * bytes_per_swa_token(g, rule, s));
    let left = (available as f64 - c128_fixed as f64 - swa_fixed).max(0.0);
    // Python's int() of a non-negative float truncates; `as u64` does the same (saturating).
    let full = (left / per_token) as u64 / s.page * s.page;
    let gib = |b: f64| b / (1u64 << 30) as f64;
    if let Some(cap) = swa_cap
        && full == 0
    {
        return Err(format!(
            "The DSV4 SWA pool cap ({cap} tokens, {:.2} GB) leaves no room for the full KV pool within the \
             available {:.2} GB. Reduce --max-running-requests, lower --swa-prefix-tails or \
             SGLANG_SWA_EVICTION_INTERVAL, or increase --mem-fraction-static.",
            gib(swa_fixed),
            gib(available as f64)
        ));
    }
    let swa = swa_cap.unwrap_or((full as f64 * s.swa_ratio) as u64 / s.page * s.page);
    let (ring4, ring128) = rings(s);
    let (state_per, c128_state) = match rule {
        SglangDsv4Rule::SwaScopedC128 => (g.window, swa / g.window * ring128),
        SglangDsv4Rule::RequestScopedC128 => (g.window, (s.max_running_requests + 1) * ring128),
        SglangDsv4Rule::PagedCap => (s.page, (s.max_running_requests + 1) * ring128),
    };
    Ok(SglangDsv4Plan {
        bytes_per_full_token: per_token,
        c128_fixed,
        swa_cap,
        swa_fixed,
        pools: SglangDsv4Pools {
            full,
            swa,
            c4: full / 4,
            c128: full / 128,
            c4_state: swa / state_per * ring4,
            c128_state,
        },
    })
}

impl SglangDsv4Plan {
    /// The lines SGLang `release` logs (`calculate_pool_sizes`, `_compute_dsv4_sizes`, `_to_config`),
    /// `available` in bytes: 0.5.12 – 0.5.14 print the coefficient, the budget and the full tokens;
    /// 0.5.15 – 0.5.19 add `c128_state_fixed`; 0.5.20 adds the unified-pool switches and the ring and c4
    /// fixed parts; 0.5.21 – 0.5.23 print the SWA sizing mode first and every fixed part.
    pub fn log_lines(&self, release: &[u64], s: &SglangDsv4Settings, available: u64) -> Vec<String> {
        let gib = |b: f64| b / (1u64 << 30) as f64;
        let p = &self.pools;
        let (coef, avail, c128) = (
            self.bytes_per_full_token,
            gib(available as f64),
            gib(self.c128_fixed as f64),
        );
        let mut out = Vec::new();
        let calc = if release < [0, 5, 15].as_slice() {
            format!(
                "DSV4 memory calculation: bytes_per_full_token={coef:.2}, available_bytes={avail:.2} GB, full_token={}",
                p.full
            )
        } else if release < [0, 5, 20].as_slice() {
            format!(
                "DSV4 memory calculation: bytes_per_full_token={coef:.2}, available_bytes={avail:.2} GB, \
                 c128_state_fixed={c128:.2} GB, full_token={}",
                p.full
            )
        } else if release < [0, 5, 21].as_slice() {
            format!(
                "DSV4 memory calculation: unified=False, unified_fp8=False, bytes_per_full_token={coef:.2}, \
                 available_bytes={avail:.2} GB, c128_state_fixed={c128:.2} GB, swa_ring_fixed=0.00 GB, \
                 c4_state_fixed=0.00 GB, full_token={}",
                p.full
            )
        } else {
            out.push(match self.swa_cap {
                Some(cap) => {
                    let tails = if s.radix_cache { 4 * s.max_running_requests } else { 0 };
                    format!(
                        "DSV4 SWA sizing: mode=cap, swa_tokens={}, request_cap+headroom={cap}, prefix_tails={tails}",
                        p.swa
                    )
                }
                None => format!(
                    "DSV4 SWA sizing: mode=ratio (explicit), swa_tokens={}, swa_full_tokens_ratio={}",
                    p.swa, s.swa_ratio
                ),
            });
            format!(
                "DSV4 memory calculation: unified=False, unified_fp8=False, dspark_draft_bf16=False, \
                 bytes_per_full_token={coef:.2}, available_bytes={avail:.2} GB, c128_state_fixed={c128:.2} GB, \
                 c2_state_fixed=0.00 GB, swa_fixed={:.2} GB, swa_ring_fixed=0.00 GB, c4_state_fixed=0.00 GB, \
                 full_token={}",
                gib(self.swa_fixed),
                p.full
            )
        };
        out.push(calc);
        out.push(format!(
            "DSV4 pool sizes: full={}, swa={}, c4={}, c128={}, c4_state={}, c128_state={}",
            p.full, p.swa, p.c4, p.c128, p.c4_state, p.c128_state
        ));
        out
    }
}

/// SGLang's refusal of a SWA pool that cannot admit one request
/// (`MemoryPoolConfigurator.validate_swa_pool_size`, called from `_compute_dsv4_sizes` in ratio mode
/// off the HIP unified pool, 0.5.20 on; 0.5.19 and earlier do not check, 0.5.23's cap mode sizes from
/// the request floor and skips it): `window + page >= swa` is refused with the engine's text.
pub fn swa_pool_check(release: &[u64], g: &Geometry, plan: &SglangDsv4Plan, page: u64) -> Result<(), String> {
    let swa = plan.pools.swa;
    if release < [0, 5, 20].as_slice() || plan.swa_cap.is_some() || g.window + page < swa {
        return Ok(());
    }
    Err(format!(
        "SWA pool ({swa} tokens) cannot hold even one request: the prefill admission floor is sliding_window_size \
         ({}) + page_size ({page}). Increase --swa-full-tokens-ratio or the total KV budget.",
        g.window
    ))
}
