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
}

/// SGLang's KV sizing (reference/engine-memory.md, start-up steps 5–8).
pub fn sglang_kv_plan(i: &SglangKvInput) -> SglangKvPlan {
    const GIB: f64 = (1u64 << 30) as f64;
    let rest = i.available_gib - i.total_gib * (1.0 - i.mem_fraction_static);
    let profiled = if rest.is_finite() && i.cell_size > 0 {
        python_floordiv(rest * GIB, i.cell_size as f64) as i64
    } else {
        0
    };
    let mut tokens = profiled.max(0) as u64;
    if let Some(cap) = i.max_total_tokens {
        tokens = tokens.min(cap);
    }
    let page = i.page_size.max(1);
    tokens = tokens / page * page;
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
    }
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
    let need = (page_size.max(1) * cell_size) as f64 / (1u64 << 30) as f64;
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
        })
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

    #[test]
    fn page_rounding_and_cap() {
        let mut i = SglangKvInput {
            total_gib: 94.04,
            available_gib: 21.71,
            mem_fraction_static: 0.88,
            cell_size: 70_272,
            page_size: 64,
            max_total_tokens: None,
        };
        assert_eq!(sglang_kv_plan(&i).tokens, 159_232); // 159,294 floored to a multiple of 64.
        i.max_total_tokens = Some(100_000);
        assert_eq!(sglang_kv_plan(&i).tokens, 99_968);
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
