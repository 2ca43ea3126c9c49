//! families33 (issue #17): SGLang's DeepSeek-V4 KV pools by release — the bytes it budgets a *full*
//! token, the request-scoped bytes it takes off first, and the pool sizes it prints at start-up
//! (`model_executor/pool_configurator.py` `DSV4PoolConfigurator`, read in the 0.5.12 – 0.5.20 wheels).
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
//!
//! 0.5.21 – 0.5.23 price the pools by physical page layout (`_get_paged_kv_bytes_per_token`), add a
//! request-cap mode for the SWA pool and ratio 1 / 2 layers: not read through, [`SglangDsv4Rule::of`]
//! answers `None` for them.
//!
//! Then (`calculate_pool_sizes`, `_compute_dsv4_sizes`): full tokens `int((available − fixed) /
//! bytes_per_full_token)` floored to the page (256: `apply_deepseek_v4_defaults` sets it on CUDA), SWA
//! tokens `int(full × swa_ratio)` floored to the page, c4 `full // 4`, c128 `full // 128`, c4 state
//! `swa // window × ring4`, and the c128 state `swa // window × ring128` (0.5.12 – 0.5.14) or
//! `(max_running_requests + 1) × ring128` (`finalize_with_max_running_requests`, 0.5.15 on).
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
}

impl SglangDsv4Rule {
    /// The rule of SGLang `release` (leading numeric components, `0.5.15.post1` → `[0, 5, 15]`):
    /// `None` before 0.5.12 (no DeepSeek-V4) and from 0.5.21 (not read).
    pub fn of(release: &[u64]) -> Option<SglangDsv4Rule> {
        if release < [0, 5, 12].as_slice() || release >= [0, 5, 21].as_slice() {
            None
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
}

/// SGLang's defaults for DeepSeek-V4 on CUDA, 0.5.12 – 0.5.20 (`deepseek_v4_hook.py`,
/// `arg_groups/overrides.py`, `environ.py`).
pub const SGLANG_DSV4_DEFAULTS: SglangDsv4Settings = SglangDsv4Settings {
    swa_ratio: 0.1,
    speculative: false,
    max_running_requests: 256,
    state_bytes: 4,
    page: 256,
};

/// Layer counts the rule sees: (all, ratio 4, ratio 128).
fn counts(g: &Geometry, rule: SglangDsv4Rule) -> (u64, u64, u64) {
    let list = match rule {
        SglangDsv4Rule::SwaScopedC128 => &g.all_ratios,
        SglangDsv4Rule::RequestScopedC128 => &g.ratios,
    };
    let of = |r: u64| list.iter().filter(|&&x| x == r).count() as u64;
    (list.len() as u64, of(4), of(128))
}

/// Compress-state ring rows a 128-token window (c4, c128).
fn rings(s: &SglangDsv4Settings) -> (u64, u64) {
    if s.speculative { (16, 256) } else { (8, 128) }
}

/// Main-KV bytes of one slot (module doc): 584 for Flash.
pub fn kv_slot_bytes(g: &Geometry) -> u64 {
    g.head_dim - g.rope_dim + 2 * g.rope_dim + 8
}

/// Indexer-key bytes of one compressed slot (module doc): 132 for Flash.
pub fn indexer_slot_bytes(g: &Geometry) -> u64 {
    g.index_head_dim + g.index_head_dim / QUANT_BLOCK * 4
}

/// `bytes_per_full_token` as SGLang prints it in "DSV4 memory calculation" (module doc). Flash at
/// the defaults: 16,072.65 (0.5.12 – 0.5.14, 46 entries), 7,705.45 (0.5.15 – 0.5.20, 43 layers).
pub fn bytes_per_full_token(g: &Geometry, rule: SglangDsv4Rule, s: &SglangDsv4Settings) -> f64 {
    let (n, n4, n128) = counts(g, rule);
    let (n, n4, n128) = (n as f64, n4 as f64, n128 as f64);
    let kv = kv_slot_bytes(g) as f64;
    let index = indexer_slot_bytes(g) as f64;
    let (ring4, ring128) = rings(s);
    let window = g.window as f64;
    let st = s.state_bytes;
    let c4_state = (2 * 2 * g.head_dim * st + 2 * 2 * g.index_head_dim * st) as f64;
    let c128_state = match rule {
        SglangDsv4Rule::SwaScopedC128 => {
            s.swa_ratio * (ring128 as f64 / window) * (2 * g.head_dim * st) as f64 * n128
        }
        SglangDsv4Rule::RequestScopedC128 => 0.0,
    };
    let bytes = s.swa_ratio * kv * n
        + kv / 4.0 * n4
        + kv / 128.0 * n128
        + index / 4.0 * n4
        + s.swa_ratio * (ring4 as f64 / window) * c4_state * n4
        + c128_state;
    if s.speculative {
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

/// The pools SGLang sizes for DeepSeek-V4, in tokens or slots (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
    /// The pool sizes.
    pub pools: SglangDsv4Pools,
}

/// SGLang's sizing for `available` bytes (the profile's rest memory) under `rule` and `s`.
pub fn plan(g: &Geometry, rule: SglangDsv4Rule, s: &SglangDsv4Settings, available: u64) -> SglangDsv4Plan {
    let per_token = bytes_per_full_token(g, rule, s);
    let c128_fixed = c128_state_fixed_bytes(g, rule, s);
    let left = available.saturating_sub(c128_fixed);
    // Python's int() of a non-negative float truncates; `as u64` does the same (saturating).
    let full = (left as f64 / per_token) as u64 / s.page * s.page;
    let swa = (full as f64 * s.swa_ratio) as u64 / s.page * s.page;
    let (ring4, ring128) = rings(s);
    let c128_state = match rule {
        SglangDsv4Rule::SwaScopedC128 => swa / g.window * ring128,
        SglangDsv4Rule::RequestScopedC128 => (s.max_running_requests + 1) * ring128,
    };
    SglangDsv4Plan {
        bytes_per_full_token: per_token,
        c128_fixed,
        pools: SglangDsv4Pools {
            full,
            swa,
            c4: full / 4,
            c128: full / 128,
            c4_state: swa / g.window * ring4,
            c128_state,
        },
    }
}

impl SglangDsv4Plan {
    /// The two lines SGLang logs (`calculate_pool_sizes`, `_to_config`), `available` in bytes: the
    /// 0.5.15 – 0.5.20 text (0.5.12 – 0.5.14 print no `c128_state_fixed`).
    pub fn log_lines(&self, rule: SglangDsv4Rule, available: u64) -> [String; 2] {
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let fixed = match rule {
            SglangDsv4Rule::SwaScopedC128 => String::new(),
            SglangDsv4Rule::RequestScopedC128 => format!("c128_state_fixed={:.2} GB, ", gib(self.c128_fixed)),
        };
        let p = &self.pools;
        [
            format!(
                "DSV4 memory calculation: bytes_per_full_token={:.2}, available_bytes={:.2} GB, {fixed}full_token={}",
                self.bytes_per_full_token,
                gib(available),
                p.full
            ),
            format!(
                "DSV4 pool sizes: full={}, swa={}, c4={}, c128={}, c4_state={}, c128_state={}",
                p.full, p.swa, p.c4, p.c128, p.c4_state, p.c128_state
            ),
        ]
    }
}

/// SGLang 0.5.20's refusal of a SWA pool that cannot admit one request
/// (`MemoryPoolConfigurator.validate_swa_pool_size`, called from `_compute_dsv4_sizes` off the HIP
/// unified pool; 0.5.19 and earlier do not check): `window + page >= swa` is refused with the
/// engine's text. `Ok` for releases before 0.5.20.
pub fn swa_pool_check(
    release: &[u64],
    g: &Geometry,
    pools: &SglangDsv4Pools,
    page: u64,
) -> Result<(), String> {
    if release < [0, 5, 20].as_slice() || g.window + page < pools.swa {
        return Ok(());
    }
    Err(format!(
        "SWA pool ({} tokens) cannot hold even one request: the prefill admission floor is sliding_window_size \
         ({}) + page_size ({page}). Increase --swa-full-tokens-ratio or the total KV budget.",
        pools.swa, g.window
    ))
}
