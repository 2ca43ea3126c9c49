//! SGLang's pool of per-request recurrent states for hybrid linear-attention models (Qwen3.5's Gated
//! DeltaNet layers), carved out of the KV budget before the KV pool is sized.
//!
//! Source: SGLang `model_executor/pool_configurator.py` (spring 2026; `model_runner_kv_cache_mixin.py`
//! before), `_profile_available_bytes` → `_handle_max_mamba_cache(rest)` with the server defaults
//! `mamba_full_memory_ratio = 0.9`, `max_mamba_cache_size = None`, radix cache on,
//! `mamba_scheduler_strategy = "no_buffer"`:
//!
//! - budget = rest × r / (1 + r) GiB (r = `mamba_full_memory_ratio`);
//! - without speculation: slots = ⌊budget × 2^30 / per_req⌋;
//! - with speculation (D = `speculative_num_draft_tokens`, ratio = `_calculate_mamba_ratio()` = 3
//!   with the radix cache and no extra buffer): slots = ⌊budget × 2^30 / (per_req × (1 + D / ratio))⌋,
//!   and the intermediate states of min(max_running_requests, slots / ratio) requests × D are
//!   reserved too;
//! - the KV pool then gets rest − slots × per_req (− intermediate) GiB, and `_resolve_max_num_reqs`
//!   caps the running requests at slots / ratio.
//!
//! `per_req` is `mamba_cache_per_req` ([`crate::llm::ModelSpec::linear_state_bytes_per_req`]).

/// SGLang's default `--mamba-full-memory-ratio` (server_args.py).
pub const SGLANG_MAMBA_FULL_MEMORY_RATIO: f64 = 0.9;
/// `_calculate_mamba_ratio()` with the radix cache on and `mamba_scheduler_strategy = "no_buffer"`
/// (`MAMBA_CACHE_SIZE_MAX_RUNNING_REQUESTS_RATIO`): state slots kept per running request.
pub const SGLANG_MAMBA_SLOTS_PER_REQUEST: u64 = 3;

/// The state pool SGLang reserves on one rank.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SglangStatePool {
    /// `max_mamba_cache_size`: request states the pool holds.
    pub slots: u64,
    /// slots × per_req, bytes.
    pub bytes: u64,
    /// Speculative intermediate states (one per draft token of each capped request), bytes.
    pub intermediate_bytes: u64,
    /// What is left for the KV pool, GiB (`rest` minus both).
    pub rest_after_gib: f64,
    /// Cap on running requests: slots / 3.
    pub max_running_requests: u64,
}

/// The pool for `rest_gib` (SGLang's `rest_memory`, GiB), `per_req` bytes of state per request,
/// and the speculative draft-token count and configured `--max-running-requests`, if any. With
/// speculation and no configured cap, SGLang requires one (it asserts); slots / 3 is used then.
pub fn sglang_state_pool(
    rest_gib: f64,
    per_req: u64,
    num_draft_tokens: Option<u64>,
    max_running_requests: Option<u64>,
) -> SglangStatePool {
    const GIB: f64 = (1u64 << 30) as f64;
    let r = SGLANG_MAMBA_FULL_MEMORY_RATIO;
    let budget = (rest_gib * r / (1.0 + r)).max(0.0) * GIB;
    let ratio = SGLANG_MAMBA_SLOTS_PER_REQUEST;
    let per = per_req.max(1) as f64;
    let (slots, intermediate) = match num_draft_tokens {
        None => ((budget / per).floor() as u64, 0),
        Some(d) => {
            let slots = (budget / (per * (1.0 + d as f64 / ratio as f64))).floor() as u64;
            let capped = max_running_requests.unwrap_or(slots / ratio).min(slots / ratio);
            (slots, per_req.saturating_mul(capped).saturating_mul(d))
        }
    };
    let bytes = slots.saturating_mul(per_req);
    SglangStatePool {
        slots,
        bytes,
        intermediate_bytes: intermediate,
        rest_after_gib: rest_gib - (bytes as f64 + intermediate as f64) / GIB,
        max_running_requests: slots / ratio,
    }
}

/// SGLang's 0.5.8 slot count with `--disable-radix-cache` and neither `--max-mamba-cache-size`
/// nor `--max-running-requests` (`handle_max_mamba_cache`: "sets the max_mamba_cache_size based on
/// the max_running_requests", else 512).
pub const SGLANG_0_5_8_NO_RADIX_SLOTS: u64 = 512;

/// The state pool with `--disable-radix-cache` and no speculation (SGLang 0.5.8 / 0.5.9
/// `model_executor/model_runner_kv_cache_mixin.py` `handle_max_mamba_cache`, and the cap where
/// `max_num_reqs = min(max_num_reqs, max_mamba_cache_size // ratio)` with `ratio = 1` when the radix
/// cache is off): `slots` = `max_running` (the server's `--max-running-requests`, already divided
/// among DP-attention groups) when given; otherwise 0.5.8 takes [`SGLANG_0_5_8_NO_RADIX_SLOTS`]
/// (`fixed_default`) and 0.5.9 the ratio rule of [`sglang_state_pool`]. Every slot can run a request:
/// `max_running_requests` = slots. The pool may exceed `rest` (0.5.8's 512 states of a large model):
/// `rest_after_gib` is then negative and the KV profile fails as the engine's would.
pub fn sglang_state_pool_without_radix(
    rest_gib: f64,
    per_req: u64,
    max_running: Option<u64>,
    fixed_default: Option<u64>,
) -> SglangStatePool {
    const GIB: f64 = (1u64 << 30) as f64;
    let slots = match (max_running, fixed_default) {
        (Some(m), _) => m,
        (None, Some(d)) => d,
        (None, None) => sglang_state_pool(rest_gib, per_req, None, None).slots,
    };
    let bytes = slots.saturating_mul(per_req);
    SglangStatePool {
        slots,
        bytes,
        intermediate_bytes: 0,
        rest_after_gib: rest_gib - bytes as f64 / GIB,
        max_running_requests: slots,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn qwen35_tp4_pool_by_hand() {
        // per_req = 48,015,360 B (Qwen3.5-397B at tp 4, fp32 SSM state). rest = 19 GiB:
        // budget = 19 × 0.9 / 1.9 = 9 GiB = 9,663,676,416 B → 201 slots (201 × 48,015,360 =
        // 9,651,087,360 B = 8.98828 GiB); KV keeps 19 − 8.98828 = 10.01172 GiB; 201 / 3 = 67 requests.
        let p = sglang_state_pool(19.0, 48_015_360, None, None);
        assert_eq!(p.slots, 201);
        assert_eq!(p.bytes, 9_651_087_360);
        assert_eq!(p.max_running_requests, 67);
        assert!((p.rest_after_gib - (19.0 - 9_651_087_360.0 / 1_073_741_824.0)).abs() < 1e-12);
        // MTP with 4 draft tokens: slots = 9 GiB / (per_req × (1 + 4/3)) = 86; capped = min(48, 28)
        // = 28 → intermediate 28 × 4 × per_req.
        let q = sglang_state_pool(19.0, 48_015_360, Some(4), Some(48));
        assert_eq!(q.slots, 86);
        assert_eq!(q.intermediate_bytes, 28 * 4 * 48_015_360);
        // Nothing left: no slots, never negative sizes.
        let z = sglang_state_pool(-1.0, 48_015_360, None, None);
        assert_eq!((z.slots, z.bytes), (0, 0));
    }

    #[test]
    fn without_radix_cache_every_slot_runs() {
        // 0.5.9 without --max-running-requests: the ratio rule's 201 slots, all of them running
        // (ratio 1), not 201 / 3 = 67.
        let p = sglang_state_pool_without_radix(19.0, 48_015_360, None, None);
        assert_eq!((p.slots, p.max_running_requests), (201, 201));
        // --max-running-requests 48: 48 slots (48 × 48,015,360 B out of rest).
        let q = sglang_state_pool_without_radix(19.0, 48_015_360, Some(48), None);
        assert_eq!(
            (q.slots, q.bytes, q.max_running_requests),
            (48, 48 * 48_015_360, 48)
        );
        // 0.5.8 without either: 512 slots = 22.9 GiB > 19 GiB: negative rest.
        let r = sglang_state_pool_without_radix(19.0, 48_015_360, None, Some(SGLANG_0_5_8_NO_RADIX_SLOTS));
        assert_eq!(r.slots, 512);
        assert!(r.rest_after_gib < 0.0);
    }
}
