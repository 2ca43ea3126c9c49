//! vLLM/SGLang's pull kernels (one-shot `cross_device_reduce_1stage`, two-shot
//! `cross_device_reduce_2stage`; vLLM 0.11.0 `csrc/custom_all_reduce.cuh`, which SGLang's
//! sgl-kernel carries as its `custom_all_reduce.cuh`) as they read over PCIe.
//!
//! A peer read is non-posted: the request crosses the path, the completion comes back, so one read
//! takes the **round trip** (twice the path's one-way latency). A reader keeps a bounded number of
//! bytes in flight, so by Little's law its read rate is at most `in_flight / round_trip`:
//! - the kernel's own bound, from its launch shape: `threads = 512`, `blocks = min(36, ⌈packs /
//!   512⌉)` (`allreduce()`: `kMaxBlocks`/`defaultBlockLimit` 36), each thread loading one 16-byte
//!   pack from every rank per loop iteration (`packed_reduce`, unrolled over `ngpus`) before it can
//!   add — so `min(packs in range, blocks × 512) × peers × 16` bytes;
//! - the GPU's bound, `kernel_read_outstanding` (its outstanding non-posted requests × their size),
//!   a box parameter (see the presets).
//!
//! While a reader's bytes fit in the smaller bound, every read is in flight at once and takes one
//! round trip plus its share of the links: `rtt + total / link`. Beyond it, the reader's reads share
//! a link of `in_flight / round_trip`: window `k` of `in_flight` bytes returns from `(k + 1) × rtt`
//! on and streams in at the link for `in_flight / link`, so `n = total / in_flight` windows end at
//! `total × rtt / in_flight + in_flight / link` — the round trip is inside the rate, and the last
//! window's serialization is the flows' latency. Where the reader's own link binds, the two regimes
//! meet at `total = in_flight` (both `rtt + in_flight / link`); behind a busier shared link the
//! uncapped side reads slower than `link`, and the capped side starts up to a few percent lower
//! (ASUS, 4 GPUs: 10.18 µs at 40 KiB, 9.75 µs at 44 KiB; without the tail it fell to 7.43). Staged paths (the
//! driver's system-memory staging) keep their own link and latency (`Fabric::peer_read`).

use crate::fabric::Fabric;
use tpsim_model::units::{Bandwidth, Duration};

/// `custom_all_reduce.cuh` (vLLM 0.11.0) `allreduce()`: the default `threads = 512`.
pub const THREADS: u64 = 512;
/// `kMaxBlocks` / `defaultBlockLimit` = 36 (same file).
pub const MAX_BLOCKS: u64 = 36;
/// One `packed_t` load: 16 bytes (`array_t<T, 16 / sizeof(T)>`).
pub const PACK_BYTES: u64 = 16;

/// Blocks the kernel launches for a message of `bytes`: `min(36, ⌈packs / 512⌉)`, at least 1.
pub fn blocks(bytes: u64) -> u64 {
    let packs = bytes.div_ceil(PACK_BYTES);
    packs.div_ceil(THREADS).clamp(1, MAX_BLOCKS)
}

/// Bytes of peer reads one rank's kernel has in flight while it reads `range_bytes` (the packs its
/// grid-stride loop covers) from each of `peers` peers, for a message of `message_bytes`.
pub fn kernel_in_flight(message_bytes: u64, range_bytes: u64, peers: u64) -> u64 {
    let active = range_bytes
        .div_ceil(PACK_BYTES)
        .min(blocks(message_bytes) * THREADS);
    active * peers * PACK_BYTES
}

/// How one reader's reads of a phase run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ReaderPlan {
    /// The read rate's Little's-law cap (bytes/s), when it binds below the reader's own link.
    pub cap: Option<Bandwidth>,
    /// Latency each read flow carries: the round trip, or, when the cap holds the round trip, the
    /// last window's serialization `in_flight / link`.
    pub latency: Duration,
}

/// The plan of reader `r` (a GPU index) pulling `range_bytes` from each of `peers` (GPU indices)
/// for a message of `message_bytes`. Staged pairs are left to `Fabric::peer_read`.
pub fn reader_plan(
    fab: &Fabric,
    r: usize,
    peers: &[usize],
    message_bytes: u64,
    range_bytes: u64,
) -> ReaderPlan {
    let rtt = peers
        .iter()
        .filter(|&&p| !fab.is_staged(r, p))
        .map(|&p| fab.path(p, r).latency + fab.path(r, p).latency)
        .max()
        .unwrap_or(Duration::ZERO);
    let total = range_bytes.saturating_mul(peers.len() as u64);
    let mut in_flight = kernel_in_flight(message_bytes, range_bytes, peers.len() as u64);
    if let Some(cap) = fab.params.kernel_read_outstanding {
        in_flight = in_flight.min(cap.0);
    }
    let link = fab.gpu_in_capacity(r).unwrap_or(f64::INFINITY);
    if rtt == Duration::ZERO || in_flight == 0 || total <= in_flight {
        return ReaderPlan {
            cap: None,
            latency: rtt,
        };
    }
    let rate = in_flight as f64 / rtt.as_secs_f64();
    if rate >= link {
        return ReaderPlan {
            cap: None,
            latency: rtt,
        };
    }
    // The last window streams in at the reader's link (`link` is finite here: rate < link).
    let tail = Duration::from_us_f64(in_flight as f64 / link * 1e6);
    match Bandwidth::from_bytes_per_s(rate.floor().max(1.0) as u64) {
        Some(b) => ReaderPlan {
            cap: Some(b),
            latency: tail,
        },
        None => ReaderPlan {
            cap: None,
            latency: rtt,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn launch_shape_follows_the_engine() {
        // 8 KiB = 512 packs → 1 block; 64 KiB = 4096 packs → 8 blocks; 1 MiB → 128 → capped at 36.
        assert_eq!(blocks(8192), 1);
        assert_eq!(blocks(65536), 8);
        assert_eq!(blocks(1 << 20), 36);
        assert_eq!(blocks(16), 1);
        // 4 GPUs, 32 KiB one-shot: 2048 packs, 4 blocks × 512 threads cover them all: every pack
        // of the 3 peers in flight = 3 × 32 KiB.
        assert_eq!(kernel_in_flight(32768, 32768, 3), 3 * 32768);
        // 8 GPUs, 1 MiB: 36 × 512 threads × 7 peers × 16 B = 2,064,384 B in flight.
        assert_eq!(kernel_in_flight(1 << 20, 1 << 20, 7), 2_064_384);
    }
}
