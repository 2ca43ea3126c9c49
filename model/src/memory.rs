//! Engine memory arithmetic: SGLang's KV-pool sizing and the start-up verdict
//! (reference/engine-memory.md). First cut of issue #5: the late-2025 SGLang era (the seed's), where
//! the draft's KV pool has the target's token count and the draft's weights, KV and CUDA graphs come
//! out of the (1 − mem_fraction_static) reserve.
//!
//! SGLang computes in Python floats on GiB values (bytes / 2^30):
//! `rest = available − total × (1 − f)`, `tokens = int(rest × 2^30 // cell_size)`. We reproduce that
//! arithmetic exactly, including CPython's float floor division.

use crate::units::Bytes;

/// SGLang's start-up failure text when the KV budget is not positive (late-2025 era,
/// `model_runner.py`).
pub const SGLANG_NOT_ENOUGH_MEMORY: &str =
    "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.";

/// PyTorch's allocator failure, which is what an allocation after the KV pool (draft weights, draft
/// KV, CUDA-graph capture) dies with.
pub const TORCH_OOM: &str = "torch.OutOfMemoryError: CUDA out of memory.";

/// CPython's `float // float` for finite operands (Objects/floatobject.c `float_floor_div`):
/// the quotient of (a − fmod(a, b)) / b, adjusted to the floor and snapped to the nearest integer.
/// Differs from `(a / b).floor()` in rare rounding cases; SGLang's token count goes through it.
pub fn python_floordiv(a: f64, b: f64) -> f64 {
    let m = a % b;
    let mut div = (a - m) / b;
    if m != 0.0 && ((b < 0.0) != (m < 0.0)) {
        div -= 1.0;
    }
    if div != 0.0 {
        let f = div.floor();
        if div - f > 0.5 { f + 1.0 } else { f }
    } else {
        0.0f64.copysign(a / b)
    }
}

/// Inputs of SGLang's KV sizing on one TP group.
#[derive(Debug, Clone, PartialEq)]
pub struct SglangKvInput {
    /// Free memory after distributed init, minimum over ranks, GiB (the log's "GB").
    pub total_gib: f64,
    /// Free memory after the target's weights, minimum over ranks, GiB.
    pub available_gib: f64,
    /// `--mem-fraction-static`.
    pub mem_fraction_static: f64,
    /// Bytes per token per rank of the target's KV cache.
    pub cell_size: u64,
    /// `--page-size` (tokens per page).
    pub page_size: u64,
    /// `--max-total-tokens`, which can only lower the count.
    pub max_total_tokens: Option<u64>,
    /// Which era's arithmetic applies (see [`SglangEra`]).
    pub era: SglangEra,
    /// The model's `context_len` (config `max_position_embeddings` or `--context-length`): sizes the
    /// request pool `max_num_reqs`.
    pub context_len: u64,
    /// `--max-running-requests` as configured (or the era's speculative default), if any.
    pub max_running_requests: Option<u64>,
    /// The speculative shape when a draft runs (its pool rules differ by era).
    pub spec: Option<SpecShape>,
}

/// `--speculative-num-steps`, `--speculative-eagle-topk`, `--speculative-num-draft-tokens`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SpecShape {
    pub num_steps: u64,
    pub topk: u64,
    pub num_draft_tokens: u64,
}

/// SGLang's KV plan and its verdict.
#[derive(Debug, Clone, PartialEq)]
pub struct SglangKvPlan {
    /// `available − total × (1 − f)`, GiB; negative means the start fails.
    pub rest_gib: f64,
    /// Tokens from the profile, before caps (may be ≤ 0).
    pub profiled_tokens: i64,
    /// `max_total_num_tokens` after the cap and page rounding (0 when the start fails).
    pub tokens: u64,
    /// Bytes allocated for the pool: (tokens + page_size) × cell_size (one padded page).
    pub pool_bytes: Bytes,
    /// The (1 − f) × total reserve outside the pool, in bytes.
    pub reserve_bytes: Bytes,
    /// Free memory right after the pool is allocated (available − pool), in bytes.
    pub free_after_pool: Bytes,
    /// Whether the engine gets past the KV profile step.
    pub starts: bool,
    /// Whether the pool fits in the free memory (only the mid-2025 speculative inflation can make
    /// it larger than `rest`; PyTorch then fails the allocation).
    pub pool_fits: bool,
    /// Size of the request pool (`max_num_reqs`): configured, or
    /// min(max(int(profiled / context_len × 512), 2048), 4096).
    pub max_num_reqs: u64,
    /// The scheduler's `max_running_requests`: min(configured or tokens // 2, max_num_reqs).
    pub max_running_requests: u64,
    /// Token slots of the draft's KV pool (0 without speculation): the target's count, except in
    /// the early-2025 era (profiled + max_num_reqs × steps + 100, capped).
    pub draft_tokens: u64,
}

/// SGLang's KV sizing (reference/engine-memory.md, start-up steps 5–8, and the eras table):
/// `rest = available − total × (1 − f)`; tokens = rest × 2^30 // cell_size (a float floor division up
/// to late 2025, `int(rest × 2^30) // cell_size` in integers from spring 2026, where `cell_size` already
/// includes the draft's share, see [`sglang_spring_cell_size`]); in the mid-2025 era a speculative run
/// adds max_num_reqs × (steps × topk + draft_tokens) + 100 tokens beyond the profile
/// (`model_runner.py`, "draft_runner_cache_size"); then the `--max-total-tokens` cap and the page floor.
pub fn sglang_kv_plan(i: &SglangKvInput) -> SglangKvPlan {
    const GIB: f64 = (1u64 << 30) as f64;
    let rest = i.available_gib - i.total_gib * (1.0 - i.mem_fraction_static);
    let profiled = if !(rest.is_finite() && i.cell_size > 0) {
        0
    } else if i.era >= SglangEra::Spring2026 {
        // `int(rest_memory * (1 << 30))` truncates toward zero; `//` on ints floors.
        ((rest * GIB).trunc() as i64).div_euclid(i.cell_size as i64)
    } else {
        python_floordiv(rest * GIB, i.cell_size as f64) as i64
    };
    let max_num_reqs = i.max_running_requests.unwrap_or_else(|| {
        // `int(tokens / context_len * 512)`, then min(max(·, 2048), 4096).
        let x = (profiled as f64 / i.context_len.max(1) as f64 * 512.0).trunc();
        x.clamp(2048.0, 4096.0) as u64
    });
    let page = i.page_size.max(1);
    let cap_and_floor = |t: i64| -> u64 {
        let mut t = t.max(0) as u64;
        if let Some(cap) = i.max_total_tokens {
            t = t.min(cap);
        }
        t / page * page
    };
    let inflated = match (i.era, i.spec) {
        (SglangEra::Mid2025, Some(sp)) => {
            profiled + (max_num_reqs * (sp.num_steps * sp.topk + sp.num_draft_tokens) + 100) as i64
        }
        _ => profiled,
    };
    let tokens = cap_and_floor(inflated);
    let draft_tokens = match (i.era, i.spec) {
        (_, None) => 0,
        (SglangEra::Early2025, Some(sp)) => {
            cap_and_floor(profiled + (max_num_reqs * sp.num_steps + 100) as i64)
        }
        _ => tokens,
    };
    let starts = tokens > 0;
    let pool = if starts { (tokens + page) * i.cell_size } else { 0 };
    let available = Bytes::from_gib_f64(i.available_gib.max(0.0));
    SglangKvPlan {
        rest_gib: rest,
        profiled_tokens: profiled,
        tokens,
        pool_bytes: Bytes(pool),
        reserve_bytes: Bytes::from_gib_f64((i.total_gib * (1.0 - i.mem_fraction_static)).max(0.0)),
        free_after_pool: Bytes(available.0.saturating_sub(pool)),
        starts,
        pool_fits: pool <= available.0,
        max_num_reqs,
        max_running_requests: i.max_running_requests.unwrap_or(tokens / 2).min(max_num_reqs),
        draft_tokens: if starts { draft_tokens } else { 0 },
    }
}

/// Spring-2026 era: the target's cell size scaled so that an EAGLE draft's KV pool (same token
/// count, assumed the target's per-layer geometry) is inside the budget:
/// `int(cell × (1 + draft_layers / target_layers))` (engine-memory.md, eras table).
pub fn sglang_spring_cell_size(cell: u64, draft_layers: u32, target_layers: u32) -> u64 {
    if draft_layers == 0 || target_layers == 0 {
        return cell;
    }
    (cell as f64 * (1.0 + f64::from(draft_layers) / f64::from(target_layers))).trunc() as u64
}

/// The error text of each era when the profile yields no tokens (engine-memory.md step 7). Late-2025
/// builds append the value with Python's `{expr=}` f-string form (`Current value:
/// self.server_args.mem_fraction_static=0.88`, model_runner_kv_cache_mixin.py); spring-2026 builds
/// print `Current value: mem_fraction_static=0.88` (pool_configurator.py).
pub fn sglang_not_enough_memory(era: SglangEra, mem_fraction_static: f64) -> String {
    let f = python_float_repr(mem_fraction_static);
    match era {
        SglangEra::Early2025 | SglangEra::Mid2025 => SGLANG_NOT_ENOUGH_MEMORY.to_string(),
        SglangEra::Late2025 => {
            format!("{SGLANG_NOT_ENOUGH_MEMORY} Current value: self.server_args.mem_fraction_static={f}")
        }
        SglangEra::Spring2026 => {
            format!("{SGLANG_NOT_ENOUGH_MEMORY} Current value: mem_fraction_static={f}")
        }
    }
}

/// Spring-2026 builds check the budget before sizing the pool: when `rest ≤ 0` they raise this
/// instead of "Not enough memory", with the minimum viable fraction 1 − available / total (no page
/// term) to 4 decimals and the suggestion ⌈1000 × minimum⌉ / 1000 (model_runner_kv_cache_mixin.py,
/// "draft weights are now counted"; engine-memory.md step 7).
pub fn sglang_no_kv_memory_error(mem_fraction_static: f64, available_gib: f64, total_gib: f64) -> String {
    let minimum = 1.0 - available_gib / total_gib;
    let suggested = (minimum * 1000.0).ceil() / 1000.0;
    format!(
        "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static={}. \
         Raise --mem-fraction-static above {suggested:.3} (minimum viable = 1 - available/pre = {minimum:.4}). \
         If using speculative decoding, draft weights are now counted.",
        python_float_repr(mem_fraction_static)
    )
}

/// Python's `repr(float)` for finite values: the shortest round-trip digits (as Rust's `Display`),
/// with `.0` on integral values.
fn python_float_repr(x: f64) -> String {
    let s = format!("{x}");
    if x.is_finite() && !s.contains(['.', 'e']) {
        format!("{s}.0")
    } else {
        s
    }
}

/// Maps an SGLang version string (`0.5.2rc2`, `v0.5.8.post1`, `~0.4.3`) to its memory era.
/// Boundaries: the shared, inflated speculative pool (mid-2025 KV rule) is in the 0.4.3.post4 wheel
/// (`model_runner.py`; the ~0.4.2 docs row, engine-memory.tsv line 10, predates it) and the era is
/// logged by v0.5.2rc2 (Grok-2 row); the default fraction changed later, in 0.4.8
/// (`crate::sglang_eras::sglang_fraction_era_from_version`); late-2025 rules from v0.5.3, still in
/// v0.5.8.post1 (engine-memory.tsv, Kimi-K2.5 MI355X row). release52 read the PyPI wheels 0.5.9 …
/// 0.5.23: the spring-2026 rules arrive together in **0.5.14** (2026-06-26) — the EAGLE/STANDALONE
/// cell scaling `int(cell × (1 + eagle_draft_num_layers / num_layers))` in
/// `model_executor/pool_configurator.py` (`__init__` of the default configurator; 0.5.11–0.5.13
/// scale the cell for DFLASH only), the `rest_memory <= 0` "Loaded weights leave no GPU memory for
/// the KV cache" ValueError in `model_runner_kv_cache_mixin.py` `_profile_available_bytes`, and
/// `server_args.py` `_handle_gpu_memory_settings` without the speculative reserve (0.5.13 still
/// adds 4 GiB for EAGLE, 6 GiB for STANDALONE). So 0.5.3–0.5.13 are late-2025 and 0.5.14–0.5.23
/// spring-2026. Rules that moved inside an era are keyed by version where tpsim models them (the
/// DSA budget, 0.5.17, `NsaBudgetRule`; MiMo-V2's bytes-weighted SWA split, 0.5.9) and otherwise
/// are known misses (engine_release.rs module doc). Versions after 0.5.23 (0.5.24, 0.6 …: none on
/// PyPI when read, 2026-12-06) and unparsable text are `None`: the caller asks for
/// `engine.costs.era`.
pub fn sglang_era_from_version(version: &str) -> Option<SglangEra> {
    let v = version.trim().trim_start_matches(['~', 'v', 'V']);
    let mut parts = v.split('.').map(|p| {
        let digits: String = p.chars().take_while(char::is_ascii_digit).collect();
        digits.parse::<u32>().ok()
    });
    let major = parts.next()??;
    let minor = parts.next()??;
    let patch = parts.next().flatten().unwrap_or(0);
    Some(match (major, minor, patch) {
        (0, 0..=3, _) | (0, 4, 0..=2) => SglangEra::Early2025,
        (0, 4, _) | (0, 5, 0..=2) => SglangEra::Mid2025,
        (0, 5, 3..=13) => SglangEra::Late2025,
        (0, 5, 14..=23) => SglangEra::Spring2026,
        _ => return None,
    })
}

/// The smallest mem_fraction_static for which the profile yields at least one page of tokens:
/// solve available − total × (1 − f) = page × cell / 2^30 for f. Returns `None` when even f = 1
/// does not start (weights alone exceed the free memory).
pub fn sglang_min_fraction(
    total_gib: f64,
    available_gib: f64,
    cell_size: u64,
    page_size: u64,
) -> Option<f64> {
    if total_gib <= 0.0 {
        return None;
    }
    // In f64: a page size near 2^64 (bad input) must not overflow u64.
    let need = page_size.max(1) as f64 * cell_size as f64 / (1u64 << 30) as f64;
    let f = 1.0 - (available_gib - need) / total_gib;
    (f <= 1.0).then_some(f.max(0.0))
}

/// One allocation that happens after the KV pool, checked against what the pool left.
#[derive(Debug, Clone, PartialEq)]
pub struct LateAllocation {
    /// What it is, e.g. "draft KV pool".
    pub name: String,
    pub bytes: Bytes,
}

/// Outcome of walking the allocations after the pool.
#[derive(Debug, Clone, PartialEq)]
pub enum LateVerdict {
    /// Everything fits; `headroom` is what is left after the last allocation.
    Fits { headroom: Bytes },
    /// Allocation `index` does not fit; `missing` is by how much.
    Fails { index: usize, missing: Bytes },
}

/// Walks the allocations in order against `free` bytes.
pub fn check_late_allocations(free: Bytes, allocs: &[LateAllocation]) -> LateVerdict {
    let mut left = free.0;
    for (index, a) in allocs.iter().enumerate() {
        if a.bytes.0 > left {
            return LateVerdict::Fails {
                index,
                missing: Bytes(a.bytes.0 - left),
            };
        }
        left -= a.bytes.0;
    }
    LateVerdict::Fits {
        headroom: Bytes(left),
    }
}

/// SGLang eras whose memory rules differ (reference/engine-memory.md, "SGLang eras").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SglangEra {
    /// ≤ mid-2025: default fraction by TP size.
    Early2025,
    /// mid-2025 → autumn 2025: default fraction by GPU memory (PR #7054).
    Mid2025,
    /// late 2025 → spring 2026, PyPI 0.5.3–0.5.13 (the seed's, 0.5.9): reserved memory from chunked
    /// prefill and graph sizes.
    Late2025,
    /// spring 2026 →, PyPI 0.5.14–0.5.23 ([`sglang_era_from_version`]): the target cell size carries
    /// the draft's KV, the speculative reserve is gone.
    Spring2026,
}

impl SglangEra {
    /// The name used in engine presets and scenarios.
    pub fn name(self) -> &'static str {
        match self {
            SglangEra::Early2025 => "early-2025",
            SglangEra::Mid2025 => "mid-2025",
            SglangEra::Late2025 => "late-2025",
            SglangEra::Spring2026 => "spring-2026",
        }
    }

    /// Parses the names used in engine presets and scenarios.
    pub fn parse(s: &str) -> Option<SglangEra> {
        Some(match s {
            "early-2025" => SglangEra::Early2025,
            "mid-2025" => SglangEra::Mid2025,
            "late-2025" => SglangEra::Late2025,
            "spring-2026" => SglangEra::Spring2026,
            _ => return None,
        })
    }
}

/// SGLang's per-card defaults of (chunked_prefill_size, cuda_graph_max_bs) from late 2025
/// (`server_args.py`, GPU-memory buckets in MiB): < 20 GiB 2048 / 8; < 35 GiB 2048 / 24 (80 at
/// tp ≥ 4); < 60 GiB 4096 / 32 (160); < 90 GiB and < 160 GiB 8192 / 256 (512); larger 16384 / 512. The
/// largest bucket is checked against engine-memory.tsv's MI355X row (see [`sglang_default_fraction`]).
/// The table of 0.5.9 – 0.5.19 (read in each wheel); 0.5.20 raised the < 35 GiB bucket
/// (`crate::sglang_buckets`, which the rules call with the release's table).
pub fn late_2025_buckets(gpu_mem_mib: u64, tp: u32) -> (f64, f64) {
    let gib = gpu_mem_mib as f64 / 1024.0;
    let wide = tp >= 4;
    if gib < 20.0 {
        (2048.0, 8.0)
    } else if gib < 35.0 {
        (2048.0, if wide { 80.0 } else { 24.0 })
    } else if gib < 60.0 {
        (4096.0, if wide { 160.0 } else { 32.0 })
    } else if gib < 160.0 {
        (8192.0, if wide { 512.0 } else { 256.0 })
    } else {
        (16384.0, 512.0)
    }
}

/// What SGLang's default `--mem-fraction-static` depends on.
#[derive(Debug, Clone, PartialEq)]
pub struct DefaultFractionInput {
    pub era: SglangEra,
    /// nvidia-smi `memory.total` in MiB, minimum over the visible GPUs.
    pub gpu_mem_mib: u64,
    pub tp: u32,
    /// Pipeline-parallel size (1 here).
    pub pp: u32,
    /// Speculative decoding of the EAGLE family.
    pub eagle: bool,
    /// (vit_layers, vit_hidden) of a multimodal model served with its vision tower.
    pub vision: Option<(u64, u64)>,
    /// Late-2025 / spring-2026 rules: reserve (MiB) added before the 10 GiB floor by optional
    /// features — SGLang's piecewise CUDA graphs (`crate::sglang_piecewise`, issue #17); the hook
    /// for DP attention's reserve. 0 otherwise.
    pub extra_reserve_mib: f64,
    /// The user's `--cuda-graph-max-bs` (or the largest of `--cuda-graph-bs`), which the late
    /// eras' reserve uses in place of the per-card default (SGLang 0.5.9 `_handle_gpu_memory_settings`
    /// sets the default only when it is `None`; issue #17, graphs). `None`: [`late_2025_buckets`].
    pub cuda_graph_max_bs: Option<u32>,
    /// sglres53: MiB the release adds after the 10 GiB floor (its EAGLE term and DeepEP's,
    /// `crate::sglang_reserve::reserve_terms`), in place of the era's EAGLE term; `None`: the era's
    /// (2 GiB with EAGLE in late 2025, none in spring 2026).
    pub after_floor_mib: Option<f64>,
    /// sglres53: whether 2 × `cuda_graph_max_bs` is counted (SGLang 0.5.15 on skips it when decode
    /// graphs are off, `crate::sglang_reserve::ReserveRule::decode_term_needs_graphs`).
    pub decode_graph_term: bool,
    /// sglmem54: the release's per-card defaults (`crate::sglang_buckets`: 0.5.20's 20 – 35 GiB bucket).
    pub buckets: crate::sglang_buckets::BucketTable,
}

/// Why a default fraction cannot be derived.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DefaultFractionError {
    #[error("the GPU reports no memory, so SGLang's default cannot be derived; set mem_fraction_static")]
    NoMemory,
}

/// SGLang's default `--mem-fraction-static` (engine-memory.md, "SGLang eras"):
/// - early 2025: by TP size: tp ≥ 16 → 0.79, ≥ 8 → 0.81, ≥ 4 → 0.85, ≥ 2 → 0.87, else 0.88;
/// - mid 2025: reserved GiB = 2.8 + tp·pp/10 (< 35 GiB cards), 9.5 + tp·pp/2 (< 90), 12 + tp·pp/2
///   (< 160), 32 (larger), + 2 with EAGLE; f = round((gpu − reserved) / gpu, 3);
/// - late 2025 (and spring 2026 without the EAGLE reserve): reserved MiB = 512 + 1.5 × max(chunked_prefill_size, 2048) + 2 × cuda_graph_max_bs plus
///   tp·pp/8 × 1024, at least 10 GiB on cards > 60 GiB, plus 2 GiB with EAGLE; f = round((gpu − reserved) / gpu, 3),
///   multiplied for multimodal models by 0.95 × clamp(1 − 0.1 × (vit_layers × vit_hidden² / (24 × 1024²)
///   − 1), 0.8, 1.05), the base rounded to 3 decimals first; chunked_prefill_size / cuda_graph_max_bs
///   from [`late_2025_buckets`].
pub fn sglang_default_fraction(i: &DefaultFractionInput) -> Result<f64, DefaultFractionError> {
    sglang_default_fraction_dp(i, 1)
}

/// [`sglang_default_fraction`] with SGLang's DP attention at attention-DP size `dp` (1 = off; issue
/// #17): its reserve (`dp_attention::sglang_dp_attention_reserve_mib`, mid 2025: + 4 GiB) is added
/// before the late eras' 10 GiB floor.
pub fn sglang_default_fraction_dp(i: &DefaultFractionInput, dp: u32) -> Result<f64, DefaultFractionError> {
    let gpu_gib = i.gpu_mem_mib as f64 / 1024.0;
    let tpp = f64::from(i.tp * i.pp.max(1));
    Ok(match i.era {
        SglangEra::Early2025 => match i.tp {
            16.. => 0.79,
            8.. => 0.81,
            4.. => 0.85,
            2.. => 0.87,
            _ => 0.88,
        },
        SglangEra::Mid2025 => {
            let mut reserved = if gpu_gib < 35.0 {
                2.8 + tpp / 10.0
            } else if gpu_gib < 90.0 {
                9.5 + tpp / 2.0
            } else if gpu_gib < 160.0 {
                12.0 + tpp / 2.0
            } else {
                32.0
            };
            if i.eagle {
                reserved += 2.0;
            }
            if dp > 1 {
                reserved += crate::dp_attention::SGLANG_MID_2025_DP_ATTENTION_RESERVE_GIB;
            }
            ((gpu_gib - reserved) / gpu_gib * 1000.0).round() / 1000.0
        }
        SglangEra::Late2025 | SglangEra::Spring2026 => {
            if i.gpu_mem_mib == 0 {
                return Err(DefaultFractionError::NoMemory);
            }
            let (chunked, default_bs) = crate::sglang_buckets::sglang_buckets(i.gpu_mem_mib, i.tp, i.buckets);
            let graph_bs = i.cuda_graph_max_bs.map_or(default_bs, f64::from);
            let decode = if i.decode_graph_term { 2.0 * graph_bs } else { 0.0 };
            let mut reserved =
                512.0 + 1.5 * chunked.max(2048.0) + decode + tpp / 8.0 * 1024.0 + i.extra_reserve_mib;
            reserved += crate::dp_attention::sglang_dp_attention_reserve_mib(graph_bs, dp);
            if gpu_gib > 60.0 {
                reserved = reserved.max(10.0 * 1024.0);
            }
            // Spring 2026 removed the speculative reserve (the draft is inside the KV budget); a
            // release's own terms replace the era's (sglres53).
            reserved += match i.after_floor_mib {
                Some(mib) => mib,
                None if i.eagle && i.era == SglangEra::Late2025 => 2.0 * 1024.0,
                None => 0.0,
            };
            let gpu = i.gpu_mem_mib as f64;
            // Rounded to 3 decimals before the vision factor: engine-memory.tsv's Kimi-K2.5 row on
            // MI355X (294,912 MiB, tp 8, reserved 27,136 MiB) logged 0.8260405859375 =
            // round(0.907986, 3) × 0.909736 (its 27 × 1152 MoonViT), not 0.907986 × 0.909736.
            let mut f = ((gpu - reserved) / gpu * 1000.0).round() / 1000.0;
            if let Some((layers, hidden)) = i.vision {
                f *= sglang_vlm_fraction_factor(layers, hidden);
            }
            f
        }
    })
}

/// The factor SGLang multiplies its default `mem_fraction_static` by for a multimodal model served
/// with its vision tower (SGLang 0.5.9 `server_args.py` `ServerArgs.adjust_mem_fraction_for_vlm`):
/// 0.95 × clamp(1 − 0.1 × (layers × hidden² / (24 × 1024²) − 1), 0.8, 1.05), with the
/// `vision_config` layers and hidden size as the engine reads them (`VisionTower::sglang_fraction_dims`).
pub fn sglang_vlm_fraction_factor(layers: u64, hidden: u64) -> f64 {
    let x = layers as f64 * (hidden as f64).powi(2) / (24.0 * 1024.0 * 1024.0);
    0.95 * (1.0 - 0.1 * (x - 1.0)).clamp(0.8, 1.05)
}

/// vLLM v1's KV sizing (reference/engine-memory.md, "vLLM"): `requested = total × gpu_memory_utilization`;
/// the start fails if the free memory at start-up is below it; the KV cache gets what the weights, the
/// profiled peak activation and the non-torch growth leave of `requested`, cut into whole blocks.
#[derive(Debug, Clone, PartialEq)]
pub struct VllmKvInput {
    /// Device memory, GiB (torch's total).
    pub total_gib: f64,
    /// Free memory when the worker starts, GiB.
    pub free_at_start_gib: f64,
    pub gpu_memory_utilization: f64,
    /// "Model loading took X GiB".
    pub weights_gib: f64,
    /// Peak activation of the profile run (max_num_batched_tokens), GiB.
    pub peak_activation_gib: f64,
    /// Non-torch memory growth since the snapshot (NCCL, CUDA graphs' private pools, …), GiB.
    pub non_torch_gib: f64,
    /// Bytes per token per rank over all layers.
    pub cell_size: u64,
    /// `--block-size` (tokens per block).
    pub block_size: u64,
    /// `--max-model-len`: the start fails if one request of this length does not fit.
    pub max_model_len: Option<u64>,
}

/// vLLM's plan.
#[derive(Debug, Clone, PartialEq)]
pub struct VllmKvPlan {
    pub requested_gib: f64,
    /// "Available KV cache memory: X GiB".
    pub available_kv_gib: f64,
    pub blocks: u64,
    /// "GPU KV cache size: N tokens".
    pub tokens: u64,
    /// The failure text, if the start fails.
    pub error: Option<String>,
}

/// vLLM v1's KV sizing.
pub fn vllm_kv_plan(i: &VllmKvInput) -> VllmKvPlan {
    vllm_kv_plan_from(i, None)
}

/// vLLM v1's KV sizing with `--kv-cache-memory-bytes` (vLLM 0.11.0 `v1/worker/gpu_worker.py`
/// `determine_available_memory`): the profile run still happens but its figures are not used; the
/// KV budget is the `bytes` given ("reserved … GiB memory for KV Cache as specified by
/// kv_cache_memory_bytes config and skipped memory profiling. This does not respect the
/// gpu_memory_utilization config."), in whole blocks as usual. The start-up free-memory check
/// (`init_device`) still compares the free memory with total × gpu_memory_utilization.
pub fn vllm_kv_plan_with_bytes(i: &VllmKvInput, bytes: u64) -> VllmKvPlan {
    vllm_kv_plan_from(i, Some(bytes as f64 / (1u64 << 30) as f64))
}

fn vllm_kv_plan_from(i: &VllmKvInput, kv_gib: Option<f64>) -> VllmKvPlan {
    const GIB: f64 = (1u64 << 30) as f64;
    let requested = i.total_gib * i.gpu_memory_utilization;
    let mut plan = VllmKvPlan {
        requested_gib: requested,
        available_kv_gib: 0.0,
        blocks: 0,
        tokens: 0,
        error: None,
    };
    if i.free_at_start_gib < requested {
        plan.error = Some(format!(
            "ValueError: Free memory on device ({:.2}/{:.2} GiB) on startup is less than desired GPU memory utilization ({}, {:.2} GiB).",
            i.free_at_start_gib, i.total_gib, i.gpu_memory_utilization, requested
        ));
        return plan;
    }
    let available = kv_gib.unwrap_or(requested - i.weights_gib - i.peak_activation_gib - i.non_torch_gib);
    plan.available_kv_gib = available;
    let per_block = (i.block_size.max(1) * i.cell_size.max(1)) as f64;
    if available <= 0.0 {
        plan.error = Some("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.".into());
        return plan;
    }
    plan.blocks = (available * GIB / per_block).floor() as u64;
    plan.tokens = plan.blocks * i.block_size.max(1);
    if plan.blocks == 0 {
        plan.error = Some("ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when initializing the engine.".into());
    } else if let Some(len) = i.max_model_len {
        plan.error = vllm_max_len_refusal(len, 1, i.cell_size, plan.tokens, available);
    }
    plan
}

/// vLLM's start-up check that one request of `len` tokens fits the KV cache, for one page size:
/// `kv_cache_utils.py` `_check_enough_kv_cache_memory` (0.9 onwards) compares
/// `max_memory_usage_bytes` — ⌈len / dcp⌉ tokens' pages (`kv_cache_interface.py`
/// `FullAttentionSpec.max_memory_usage_bytes`: "each dcp rank only need save
/// (max_model_len//dcp_world_size) tokens locally") — with the available KV memory. `tokens` is the
/// pool's whole blocks × block size on one rank, `available_gib` what the profile left, `cell` bytes
/// per token per rank. The refusal names `estimate_max_model_len`, the longest request that fits
/// (a binary search over the same need): tokens × dcp here. `None` when it fits.
pub fn vllm_max_len_refusal(
    len: u64,
    dcp: u64,
    cell: u64,
    tokens: u64,
    available_gib: f64,
) -> Option<String> {
    const GIB: f64 = (1u64 << 30) as f64;
    let dcp = dcp.max(1);
    let per_rank = len.div_ceil(dcp);
    if tokens >= per_rank {
        return None;
    }
    let estimate = if tokens > 0 {
        format!(
            " Based on the available memory, the estimated maximum model length is {}.",
            tokens * dcp
        )
    } else {
        String::new()
    };
    Some(format!(
        "ValueError: To serve at least one request with the model's max seq len ({len}), ({:.2} GiB KV cache is needed, which is larger than the available KV cache memory ({:.2} GiB).{estimate}",
        // In f64: a user's length may be any positive i64, whose bytes overflow u64.
        per_rank as f64 * cell as f64 / GIB,
        available_gib
    ))
}

/// SGLang's token split between the full-attention and the sliding-window (local) pools of its hybrid
/// SWA KV pool (Llama-4, gpt-oss; `SWAKVPool`), from `tokens` = `max_total_num_tokens` after the
/// `--max-total-tokens` cap and the page floor:
///
/// - late 2025 (0.5.8 `model_runner_kv_cache_mixin.py` `set_num_tokens_hybrid_swa`): full =
///   int(tokens × layers / (ratio × swa_layers + full_layers)) (a float division), swa = int(full × ratio);
/// - spring 2026 (0.5.9, same function, per-token bytes of a full layer `Fb` and of a sliding one `Sb`:
///   equal for Llama-4 and gpt-oss, families23 (issue #17): MiMo-V2-Flash's differ): full =
///   int(tokens × (Fb × full_layers + Sb × swa_layers) / (Fb × full_layers + ratio × Sb × swa_layers));
///   swa = int(full × ratio);
///
/// then both floored to the page; a model without full layers puts every token in the SWA pool.
/// Llama-4 at tp 4 (36 chunked + 12 full layers, ratio 0.8), tokens 1,000,000: full = int(48,000,000 /
/// 40.8) = 1,176,470, swa = int(941,176.0) = 941,176.
pub fn sglang_swa_split(
    era: SglangEra,
    tokens: u64,
    full_layers: u64,
    swa_layers: u64,
    (full_layer_bytes, swa_layer_bytes): (u64, u64),
    ratio: f64,
    page_size: u64,
) -> SglangSwaSplit {
    let page = page_size.max(1);
    if full_layers == 0 {
        return SglangSwaSplit {
            full_tokens: 0,
            swa_tokens: tokens / page * page,
        };
    }
    let full = if era >= SglangEra::Spring2026 {
        let (fb, sb) = (full_layer_bytes as f64, swa_layer_bytes as f64);
        let total = (tokens as f64) * (fb * full_layers as f64 + sb * swa_layers as f64);
        (total / (fb * full_layers as f64 + ratio * sb * swa_layers as f64)).trunc()
    } else {
        let total = (tokens * (full_layers + swa_layers)) as f64;
        (total / (ratio * swa_layers as f64 + full_layers as f64)).trunc()
    };
    let full = full.max(0.0) as u64;
    let swa = (full as f64 * ratio).trunc().max(0.0) as u64;
    SglangSwaSplit {
        full_tokens: full / page * page,
        swa_tokens: swa / page * page,
    }
}

/// Token slots of SGLang's two hybrid pools ([`sglang_swa_split`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SglangSwaSplit {
    /// `full_max_total_num_tokens` (the engine's `max_total_num_tokens` from then on).
    pub full_tokens: u64,
    /// `swa_max_total_num_tokens`.
    pub swa_tokens: u64,
}

/// vLLM v1's KV-cache groups for a model whose attention layers come in several types with one page
/// size (sliding-window + full attention: Gemma-2/3, gpt-oss). vLLM
/// (`v1/core/kv_cache_utils.py`, `_get_kv_cache_groups_uniform_page_size`) splits each type into
/// groups of `group_size` layers — the smallest type's layer count, or the largest's when
/// max < 1.5 × min — padding the last group of a type; every block then holds one page for each of
/// `group_size` layers (`get_kv_cache_config_from_groups`: `num_blocks = available // page_size //
/// group_size`) and the log reports `num_blocks // num_groups × block_size` tokens
/// (`_report_kv_cache_config`). A model with one attention type is one group of all its layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VllmKvGroups {
    /// Layers whose pages share one block.
    pub group_size: u64,
    /// KV-cache groups (block tables).
    pub num_groups: u64,
}

/// Groups for the given layer counts per attention type (e.g. `[5, 29]`: Gemma-3-4B's 5 full and 29
/// sliding-window layers → groups of 5, 1 + 6 = 7 groups, one padding layer). Empty or zero counts
/// give one group of one layer.
pub fn vllm_kv_groups(layers_per_type: &[u64]) -> VllmKvGroups {
    let counts: Vec<u64> = layers_per_type.iter().copied().filter(|&n| n > 0).collect();
    let (Some(&min), Some(&max)) = (counts.iter().min(), counts.iter().max()) else {
        return VllmKvGroups {
            group_size: 1,
            num_groups: 1,
        };
    };
    // `if max_num_layers < min_num_layers * 1.5: group_size = max_num_layers`, in integers.
    let group_size = if 2 * max < 3 * min { max } else { min };
    VllmKvGroups {
        group_size,
        num_groups: counts.iter().map(|n| n.div_ceil(group_size)).sum(),
    }
}

impl VllmKvGroups {
    /// The `cell_size` to give [`vllm_kv_plan`] so that its `blocks` are vLLM's `num_blocks`: bytes
    /// per token of one layer's page (per rank) × `group_size`.
    pub fn cell_size(&self, per_layer_token_bytes: u64) -> u64 {
        per_layer_token_bytes * self.group_size
    }

    /// "GPU KV cache size: N tokens" for `blocks` blocks: `blocks // num_groups × block_size`. For a
    /// single group this is [`VllmKvPlan::tokens`]; for several it is not.
    pub fn reported_tokens(&self, blocks: u64, block_size: u64) -> u64 {
        blocks / self.num_groups.max(1) * block_size
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seed(f: f64, total: f64, avail: f64) -> SglangKvPlan {
        sglang_kv_plan(&SglangKvInput {
            total_gib: total,
            available_gib: avail,
            mem_fraction_static: f,
            cell_size: 70_272,
            page_size: 1,
            max_total_tokens: None,
            era: SglangEra::Late2025,
            context_len: 262_144,
            max_running_requests: None,
            spec: None,
        })
    }

    /// Issue #17 (graphs): a user's `--cuda-graph-max-bs` replaces the per-card default in the late
    /// eras' reserve and in DP attention's (SGLang 0.5.9 `_handle_gpu_memory_settings` reads
    /// `self.cuda_graph_max_bs` after defaulting only a `None`). H100 (81,559 MiB), tp 8, dp 8, chunk
    /// 8192: base 512 + 12,288 + 2 × bs + 1,024; DP adds bs × 8 × 3, + bs × 8 × 1.5 above 300:
    /// bs 512 (default) → 14,848 + 18,432 = 33,280 → round(48,279 / 81,559, 3) = 0.592;
    /// bs 128 → 14,080 + 3,072 = 17,152 → round(64,407 / 81,559, 3) = 0.790;
    /// bs 320 → 14,464 + 7,680 + 3,840 = 25,984 → round(55,575 / 81,559, 3) = 0.681.
    #[test]
    fn users_cuda_graph_max_bs_sets_the_reserves() {
        let i = |bs: Option<u32>| DefaultFractionInput {
            era: SglangEra::Late2025,
            gpu_mem_mib: 81_559,
            tp: 8,
            pp: 1,
            eagle: false,
            vision: None,
            extra_reserve_mib: 0.0,
            after_floor_mib: None,
            decode_graph_term: true,
            buckets: crate::sglang_buckets::BucketTable::Late2025,
            cuda_graph_max_bs: bs,
        };
        for (bs, want) in [
            (None, 0.592),
            (Some(512), 0.592),
            (Some(128), 0.790),
            (Some(320), 0.681),
        ] {
            let got = sglang_default_fraction_dp(&i(bs), 8).unwrap();
            assert!((got - want).abs() < 1e-12, "{bs:?}: {got}");
        }
    }

    #[test]
    fn seed_r1_kv_at_088() {
        // seed-story R1: 21.71 − 94.04 × 0.12 = 10.4252 GiB; × 2^30 // 70,272 = 159,294 tokens;
        // pool (159,294 + 1) × 70,272 B = 10.4252 GiB, which the log prints as ≈ 10.42–10.43 GB.
        let p = seed(0.88, 94.04, 21.71);
        assert!((p.rest_gib - 10.4252).abs() < 1e-9);
        assert_eq!(p.tokens, 159_294);
        assert_eq!(p.pool_bytes, Bytes(159_295 * 70_272));
        assert!((p.pool_bytes.as_gib_f64() - 10.4252).abs() < 1e-3);
        assert!(p.starts);
    }

    #[test]
    fn seed_r2_fails_at_055() {
        // seed-story R2: 21.71 − 94.04 × 0.45 = −20.608 GiB → no tokens → "Not enough memory".
        let p = seed(0.55, 94.04, 21.71);
        assert!((p.rest_gib + 20.608).abs() < 1e-9);
        assert!(!p.starts);
        assert_eq!(p.tokens, 0);
        // Minimum fraction: 1 − (21.71 − 70,272 / 2^30) / 94.04 = 0.769141…
        let f = sglang_min_fraction(94.04, 21.71, 70_272, 1).unwrap();
        assert!((f - 0.769_141_487).abs() < 1e-8, "{f}");
    }

    #[test]
    fn seed_r3_custom_allreduce_moves_budget_by_f_times_delta() {
        // R3: buffers Δ allocated before `total` lower both terms → rest changes by −f × Δ.
        let delta = 0.04;
        let a = seed(0.88, 94.04, 21.71);
        let b = seed(0.88, 94.04 - delta, 21.71 - delta);
        assert!(((b.rest_gib - a.rest_gib) + 0.88 * delta).abs() < 1e-9);
        assert!(b.starts);
    }

    fn seed_input(era: SglangEra, spec: bool) -> SglangKvInput {
        SglangKvInput {
            total_gib: 94.04,
            available_gib: 21.71,
            mem_fraction_static: 0.88,
            cell_size: 70_272,
            page_size: 1,
            max_total_tokens: None,
            era,
            context_len: 262_144,
            max_running_requests: None,
            spec: spec.then_some(SpecShape {
                num_steps: 3,
                topk: 1,
                num_draft_tokens: 4,
            }),
        }
    }

    #[test]
    fn request_limits_late_2025() {
        // max_num_reqs = min(max(int(159,294 / 262,144 × 512), 2048), 4096) = min(max(311, 2048), 4096)
        // = 2048; max_running_requests = min(159,294 // 2, 2048) = 2048 (model_runner_kv_cache_mixin.py,
        // scheduler). With EAGLE the late-2025 server sets max_running_requests = 48 (engine-memory.md).
        let p = sglang_kv_plan(&seed_input(SglangEra::Late2025, false));
        assert_eq!((p.max_num_reqs, p.max_running_requests), (2048, 2048));
        let mut i = seed_input(SglangEra::Late2025, true);
        i.max_running_requests = Some(48);
        let p = sglang_kv_plan(&i);
        assert_eq!((p.tokens, p.draft_tokens), (159_294, 159_294));
        assert_eq!((p.max_num_reqs, p.max_running_requests), (48, 48));
        // A small pool: 1,000 tokens → max_running_requests = 1,000 // 2 = 500.
        let mut i = seed_input(SglangEra::Late2025, false);
        i.max_total_tokens = Some(1_000);
        assert_eq!(sglang_kv_plan(&i).max_running_requests, 500);
    }

    #[test]
    fn draft_pools_by_era() {
        // Mid-2025: the shared pool is inflated by 2048 × (3 × 1 + 4) + 100 = 14,436 tokens beyond the
        // profiled 159,294 → 173,730 for target and draft alike (model_runner.py, draft_runner_cache_size).
        let p = sglang_kv_plan(&seed_input(SglangEra::Mid2025, true));
        assert_eq!(
            (p.profiled_tokens, p.tokens, p.draft_tokens),
            (159_294, 173_730, 173_730)
        );
        assert_eq!(p.pool_bytes, Bytes(173_731 * 70_272));
        assert!(p.pool_fits);
        // Early-2025: the target keeps the profile, the draft gets 2048 × 3 + 100 = 6,244 more.
        let p = sglang_kv_plan(&seed_input(SglangEra::Early2025, true));
        assert_eq!((p.tokens, p.draft_tokens), (159_294, 165_538));
        // Mid-2025 at f = 0.76: rest = 21.71 − 94.04 × 0.24 = −0.8596 GiB → −0.8596 × 2^30 / 70,272 =
        // −13,134.4 → −13,135 by floor division (Python), + 14,436 = 1,301 tokens: the engine starts
        // where the late-2025 rule fails.
        let mut i = seed_input(SglangEra::Mid2025, true);
        i.mem_fraction_static = 0.76;
        let p = sglang_kv_plan(&i);
        assert_eq!((p.profiled_tokens, p.tokens), (-13_135, 1_301));
        assert!(p.starts);
        i.era = SglangEra::Late2025;
        assert!(!sglang_kv_plan(&i).starts);
    }

    #[test]
    fn spring_2026_cell_and_integer_arithmetic() {
        // Kimi-K2.5 (61 layers) + a 1-layer EAGLE-3 draft: int(70,272 × (1 + 1/61)) = 71,424 B; then
        // int(10.4252 × 2^30) = 11,193,973,263 B // 71,424 = 156,725 tokens (vs 159,294 in late 2025,
        // where the draft pool came out of the reserve instead).
        assert_eq!(sglang_spring_cell_size(70_272, 1, 61), 71_424);
        assert_eq!(sglang_spring_cell_size(70_272, 0, 61), 70_272);
        let mut i = seed_input(SglangEra::Spring2026, true);
        i.cell_size = 71_424;
        let p = sglang_kv_plan(&i);
        assert_eq!((p.tokens, p.draft_tokens), (156_725, 156_725));
    }

    #[test]
    fn error_texts_by_era() {
        assert_eq!(
            sglang_not_enough_memory(SglangEra::Mid2025, 0.55),
            "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."
        );
        assert_eq!(
            sglang_not_enough_memory(SglangEra::Late2025, 0.55),
            "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.55"
        );
        assert_eq!(
            sglang_not_enough_memory(SglangEra::Spring2026, 1.0),
            "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: mem_fraction_static=1.0"
        );
    }

    #[test]
    fn spring_error_names_the_minimum_viable_fraction() {
        // engine-memory.tsv, DeepSeek-V4-Pro on 8× H200 (image 2026-07), 12.25 GiB free after weights of
        // 137.90 GiB before them, f = 0.88: 1 − 12.25 / 137.90 = 0.911167 → "0.9112", suggestion 0.912.
        let m = sglang_no_kv_memory_error(0.88, 12.25, 137.90);
        assert_eq!(
            m,
            "ValueError: Loaded weights leave no GPU memory for the KV cache under --mem-fraction-static=0.88. \
             Raise --mem-fraction-static above 0.912 (minimum viable = 1 - available/pre = 0.9112). \
             If using speculative decoding, draft weights are now counted."
        );
    }

    #[test]
    fn eras_from_versions() {
        // engine-memory.tsv rows: ~0.4.2 (early: line 10's EAGLE pool), ~0.4.3.post4 (mid KV rule: its
        // wheel's model_runner inflates the shared speculative pool), v0.5.2rc2 (mid, Grok-2's auto
        // fraction 0.831), v0.5.8.post1 (late).
        assert_eq!(sglang_era_from_version("~0.4.2"), Some(SglangEra::Early2025));
        assert_eq!(sglang_era_from_version("~0.4.3.post4"), Some(SglangEra::Mid2025));
        assert_eq!(sglang_era_from_version("0.4.7"), Some(SglangEra::Mid2025));
        assert_eq!(sglang_era_from_version("v0.5.2rc2"), Some(SglangEra::Mid2025));
        assert_eq!(sglang_era_from_version("0.5.3"), Some(SglangEra::Late2025));
        assert_eq!(sglang_era_from_version("v0.5.8.post1"), Some(SglangEra::Late2025));
        // release52: the boundary read from the wheels (0.5.13 still reserves 4 GiB for EAGLE and
        // does not scale the cell; 0.5.14 does), and nothing after the last release read, 0.5.23.
        assert_eq!(sglang_era_from_version("0.5.9"), Some(SglangEra::Late2025));
        assert_eq!(sglang_era_from_version("0.5.13.post1"), Some(SglangEra::Late2025));
        assert_eq!(sglang_era_from_version("0.5.14"), Some(SglangEra::Spring2026));
        assert_eq!(sglang_era_from_version("0.5.23"), Some(SglangEra::Spring2026));
        assert_eq!(sglang_era_from_version("0.5.24"), None);
        assert_eq!(sglang_era_from_version("0.6.1"), None);
        assert_eq!(sglang_era_from_version("main"), None);
    }

    #[test]
    fn spring_default_fraction_drops_the_speculative_reserve() {
        // 97,887 MiB, tp 8: reserved 14,848 MiB without the +2,048 EAGLE reserve →
        // round(83,039 / 97,887, 3) = round(0.848315, 3) = 0.848.
        let i = DefaultFractionInput {
            era: SglangEra::Spring2026,
            gpu_mem_mib: 97_887,
            tp: 8,
            pp: 1,
            eagle: true,
            vision: None,
            extra_reserve_mib: 0.0,
            after_floor_mib: None,
            decode_graph_term: true,
            buckets: crate::sglang_buckets::BucketTable::Late2025,
            cuda_graph_max_bs: None,
        };
        assert!((sglang_default_fraction(&i).unwrap() - 0.848).abs() < 1e-12);
    }

    #[test]
    fn page_rounding_and_cap() {
        let mut i = SglangKvInput {
            total_gib: 94.04,
            available_gib: 21.71,
            mem_fraction_static: 0.88,
            cell_size: 70_272,
            page_size: 64,
            max_total_tokens: None,
            era: SglangEra::Late2025,
            context_len: 262_144,
            max_running_requests: None,
            spec: None,
        };
        assert_eq!(sglang_kv_plan(&i).tokens, 159_232); // 159,294 floored to a multiple of 64.
        i.max_total_tokens = Some(100_000);
        assert_eq!(sglang_kv_plan(&i).tokens, 99_968);
    }

    #[test]
    fn swa_split_by_era() {
        // Llama-4 Scout: 36 chunked + 12 full layers (equal geometry, 1024 B per layer per token), ratio
        // 0.8, page 1. Late 2025: int(1,000,000 × 48 / (0.8 × 36 + 12)) = int(48,000,000 / 40.8) =
        // 1,176,470; swa = int(1,176,470 × 0.8) = int(941,176.0) = 941,176.
        let s = sglang_swa_split(SglangEra::Late2025, 1_000_000, 12, 36, (1024, 1024), 0.8, 1);
        assert_eq!((s.full_tokens, s.swa_tokens), (1_176_470, 941_176));
        // Spring 2026, bytes form: 1,000,000 × 48 × 1024 / (12 × 1024 + 0.8 × 36 × 1024) = the same
        // quotient 1,176,470.58… → 1,176,470.
        let s = sglang_swa_split(SglangEra::Spring2026, 1_000_000, 12, 36, (1024, 1024), 0.8, 1);
        assert_eq!((s.full_tokens, s.swa_tokens), (1_176_470, 941_176));
        // Page 64: 1,176,470 → 1,176,448; 941,176 → 941,120.
        let s = sglang_swa_split(SglangEra::Late2025, 1_000_000, 12, 36, (1024, 1024), 0.8, 64);
        assert_eq!((s.full_tokens, s.swa_tokens), (1_176_448, 941_120));
        // Ratio 1: the split is the uniform pool.
        let s = sglang_swa_split(SglangEra::Late2025, 1_000_000, 12, 36, (1024, 1024), 1.0, 1);
        assert_eq!((s.full_tokens, s.swa_tokens), (1_000_000, 1_000_000));
        // No full layers: every token is a window token.
        let s = sglang_swa_split(SglangEra::Late2025, 1_000_001, 0, 36, (1024, 1024), 0.8, 16);
        assert_eq!((s.full_tokens, s.swa_tokens), (0, 1_000_000));
    }

    #[test]
    #[allow(clippy::float_cmp)] // integer-valued results: exact equality is the point
    fn floordiv_matches_python() {
        assert_eq!(python_floordiv(7.0, 2.0), 3.0);
        assert_eq!(python_floordiv(-7.0, 2.0), -4.0);
        assert_eq!(python_floordiv(0.0, 3.0), 0.0);
        // Python: 1.0 // 0.1 == 9.0 (not 10.0, which (1.0/0.1).floor() gives).
        assert_eq!(python_floordiv(1.0, 0.1), 9.0);
    }

    #[test]
    fn default_fractions_by_era() {
        // engine-memory.tsv: Grok-2 on 8× H100 80 GB under SGLang v0.5.2rc2 (mid-2025 era) logged the
        // automatic fraction 0.831: gpu 81,559 MiB = 79.647 GiB, reserved 9.5 + 8/2 = 13.5 GiB →
        // (79.647 − 13.5) / 79.647 = 0.83050 → 0.831.
        let mut i = DefaultFractionInput {
            era: SglangEra::Mid2025,
            gpu_mem_mib: 81_559,
            tp: 8,
            pp: 1,
            eagle: false,
            vision: None,
            extra_reserve_mib: 0.0,
            after_floor_mib: None,
            decode_graph_term: true,
            buckets: crate::sglang_buckets::BucketTable::Late2025,
            cuda_graph_max_bs: None,
        };
        assert!((sglang_default_fraction(&i).unwrap() - 0.831).abs() < 1e-12);
        i.era = SglangEra::Early2025;
        assert!((sglang_default_fraction(&i).unwrap() - 0.81).abs() < 1e-12);
        // Late 2025, the seed box: 97,887 MiB, tp 8 → 512 + 1.5 × 8192 + 2 × 512 + 1024 = 14,848 MiB,
        // + 2,048 for EAGLE = 16,896 → round((97,887 − 16,896) / 97,887, 3) = round(0.827393, 3) = 0.827.
        let seed = DefaultFractionInput {
            era: SglangEra::Late2025,
            gpu_mem_mib: 97_887,
            tp: 8,
            pp: 1,
            eagle: true,
            vision: None,
            extra_reserve_mib: 0.0,
            after_floor_mib: None,
            decode_graph_term: true,
            buckets: crate::sglang_buckets::BucketTable::Late2025,
            cuda_graph_max_bs: None,
        };
        assert!((sglang_default_fraction(&seed).unwrap() - 0.827).abs() < 1e-12);
        // With a vision tower of 27 layers × 1152 wide: x = 27 × 1152² / (24 × 1024²) = 1.423828…,
        // factor 0.95 × (1 − 0.0423828) = 0.909736…
        let v = DefaultFractionInput {
            vision: Some((27, 1152)),
            extra_reserve_mib: 0.0,
            after_floor_mib: None,
            decode_graph_term: true,
            buckets: crate::sglang_buckets::BucketTable::Late2025,
            cuda_graph_max_bs: None,
            ..seed.clone()
        };
        let x = 27.0 * 1152.0f64.powi(2) / (24.0 * 1024.0 * 1024.0);
        let want = 0.827 * 0.95 * (1.0 - 0.1 * (x - 1.0));
        assert!((sglang_default_fraction(&v).unwrap() - want).abs() < 1e-12);
        // engine-memory.tsv, Kimi-K2.5 TP 8 on MI355X under v0.5.8.post1 (late 2025), no speculation:
        // 294,912 MiB → bucket 16,384 / 512: reserved 512 + 24,576 + 1,024 + 1,024 = 27,136 MiB;
        // round(267,776 / 294,912, 3) = 0.908; × 0.909736 (MoonViT 27 × 1152) = 0.8260405859375, the
        // logged value.
        let mi355x = DefaultFractionInput {
            gpu_mem_mib: 294_912,
            eagle: false,
            ..v
        };
        assert!((sglang_default_fraction(&mi355x).unwrap() - 0.826_040_585_937_5).abs() < 1e-12);
        // An H100 (81,559 MiB, tp 8, EAGLE): 8192 / 512 bucket, reserved 14,848 + 2,048 →
        // round(64,663 / 81,559, 3) = round(0.792837, 3) = 0.793.
        let h100 = DefaultFractionInput {
            gpu_mem_mib: 81_559,
            ..seed
        };
        assert!((sglang_default_fraction(&h100).unwrap() - 0.793).abs() < 1e-12);
        assert_eq!(late_2025_buckets(24_564, 1), (2048.0, 24.0));
        assert_eq!(late_2025_buckets(46_068, 8), (4096.0, 160.0));
    }

    #[test]
    fn vllm_blocks_from_the_logs() {
        // engine-memory.tsv, vLLM 0.19.0, Llama-3.1-8B-Instruct on H100, fp8 KV (32 layers × 8 KV heads ×
        // (128 + 128) × 1 B = 65,536 B/token): "Available KV cache memory: 58.11 GiB" → 58.11 × 2^30 /
        // (16 × 65,536) = 59,504.6 → 59,504 blocks = 952,064 tokens; logged 952,032 (the 2-decimal GiB
        // print allows ± 82 tokens). Requested 79.65 × 0.95 = 75.67 GiB; 75.67 − 14.99 (weights) − 2.57
        // (activation + non-torch: 2.5675, derived from this row) = 58.11.
        let i = VllmKvInput {
            total_gib: 79.65,
            free_at_start_gib: 78.68,
            gpu_memory_utilization: 0.95,
            weights_gib: 14.99,
            peak_activation_gib: 2.0,
            non_torch_gib: 0.5675,
            cell_size: 65_536,
            block_size: 16,
            max_model_len: None,
        };
        let p = vllm_kv_plan(&i);
        assert!(
            (p.available_kv_gib - 58.11).abs() < 1e-3,
            "{}",
            p.available_kv_gib
        );
        assert_eq!(p.tokens, 952_064);
        assert!((p.tokens as f64 - 952_032.0).abs() <= 82.0);
        assert!(p.error.is_none());
        // Start-up check: 0.99 × 79.65 = 78.85 GiB > 78.68 free.
        let p = vllm_kv_plan(&VllmKvInput {
            gpu_memory_utilization: 0.99,
            ..i.clone()
        });
        assert!(
            p.error
                .as_deref()
                .unwrap_or("")
                .contains("less than desired GPU memory utilization")
        );
        // Weights beyond the requested share: no blocks.
        let p = vllm_kv_plan(&VllmKvInput {
            weights_gib: 80.0,
            ..i.clone()
        });
        assert!(
            p.error
                .as_deref()
                .unwrap_or("")
                .contains("No available memory for the cache blocks")
        );
        let p = vllm_kv_plan(&VllmKvInput {
            max_model_len: Some(2_000_000),
            ..i
        });
        assert!(p.error.as_deref().unwrap_or("").contains("max seq len (2000000)"));
    }

    #[test]
    fn vllm_hybrid_groups() {
        // vLLM 0.19 logs (engine-memory.tsv, llm-d-planner rows): Gemma-3-4B has 5 full + 29 sliding
        // layers → groups of 5, 7 groups, and the log warns "Add 1 padding layers"; 204,817 blocks are
        // reported as 204,817 // 7 × 16 = 468,144 tokens. Gemma-2-2B 13 + 13 → one group size of 13,
        // 2 groups: 83,770 blocks → 670,160 tokens. gpt-oss-20b with an EAGLE draft (12 sw + 13 full,
        // the source's own example) → 13 since 13 < 1.5 × 12.
        let g = vllm_kv_groups(&[5, 29]);
        assert_eq!((g.group_size, g.num_groups), (5, 7));
        assert_eq!(g.reported_tokens(204_817, 16), 468_144);
        assert_eq!(g.cell_size(4_096), 20_480);
        let g = vllm_kv_groups(&[13, 13]);
        assert_eq!((g.group_size, g.num_groups), (13, 2));
        assert_eq!(g.reported_tokens(83_770, 16), 670_160);
        assert_eq!(vllm_kv_groups(&[12, 13]).group_size, 13);
        assert_eq!(
            vllm_kv_groups(&[8, 40]),
            VllmKvGroups {
                group_size: 8,
                num_groups: 6
            }
        );
        // One attention type: one group of all layers, tokens = blocks × block_size.
        let g = vllm_kv_groups(&[32]);
        assert_eq!(
            (g.group_size, g.num_groups, g.reported_tokens(7_891, 16)),
            (32, 1, 126_256)
        );
        assert_eq!(
            vllm_kv_groups(&[]),
            VllmKvGroups {
                group_size: 1,
                num_groups: 1
            }
        );
    }

    #[test]
    fn late_allocations() {
        let allocs = vec![
            LateAllocation {
                name: "a".into(),
                bytes: Bytes(60),
            },
            LateAllocation {
                name: "b".into(),
                bytes: Bytes(50),
            },
        ];
        assert_eq!(
            check_late_allocations(Bytes(100), &allocs),
            LateVerdict::Fails {
                index: 1,
                missing: Bytes(10)
            }
        );
        assert_eq!(
            check_late_allocations(Bytes(120), &allocs),
            LateVerdict::Fits { headroom: Bytes(10) }
        );
    }
}
