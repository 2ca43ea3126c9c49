//! PyTorch's CUDA caching allocator as `torch.cuda.memory_allocated()` counts a run of
//! allocations and frees: the weights a model constructor creates one tensor at a time, with the
//! temporaries it frees on the way (vrows4, issue #17: vLLM's "Model loading took X GiB" is that
//! count, below).
//!
//! The allocator does not hand out the bytes a tensor asks for but a *block*, and the counter adds
//! the block's size (PyTorch 2.10, the torch vLLM 0.19.0 pins, `c10/cuda/CUDACachingAllocator.cpp`,
//! default configuration, no `expandable_segments`):
//!
//! - every request is rounded up to 512 B (`round_size`, `kMinBlockSize`);
//! - requests ≤ 1 MiB (`kSmallSize`) come from the small pool, whose 2 MiB segments are split
//!   whenever ≥ 512 B would remain: such a tensor costs its rounded size exactly;
//! - larger requests take the smallest cached free block that fits (`get_free_block`, best fit),
//!   else a new segment (`get_allocation_size`): 20 MiB (`kLargeBuffer`) below 10 MiB
//!   (`kMinLargeAlloc`), else the request rounded up to 2 MiB (`kRoundLarge`);
//! - the block is split only if **more than 1 MiB** would remain (`should_split`: `remaining >
//!   kSmallSize` in the large pool); otherwise the whole block is allocated, up to 1 MiB more than
//!   asked. That is the gap: a 115.5 MiB `down_proj` shard takes a 116 MiB block (0.5 MiB over),
//!   a 231 MiB one a 232 MiB block (1 MiB over), while 2 MiB-multiples cost nothing extra.
//!
//! vLLM 0.19.0 measures the load as `DeviceMemoryProfiler.consumed_memory`
//! (`v1/worker/gpu_model_runner.py` `load_model`), the difference of
//! `torch.cuda.max_memory_allocated()` right after `reset_peak_memory_stats()` before and after the
//! load (`platforms/cuda.py` `get_current_memory_usage`, `utils/mem_utils.py`), i.e. the allocated
//! block bytes of everything the load keeps.

use std::collections::{BTreeMap, BTreeSet};

/// All requests are rounded to a multiple of this (`kMinBlockSize`), bytes.
const MIN_BLOCK: u64 = 512;
/// Largest small-pool request (`kSmallSize`), bytes; also the most a large block may exceed its
/// request by without being split.
const SMALL_SIZE: u64 = 1 << 20;
/// Segment for large-pool requests below [`MIN_LARGE_ALLOC`] (`kLargeBuffer`), bytes.
const LARGE_BUFFER: u64 = 20 << 20;
/// Requests from this size get a segment of their own size rounded (`kMinLargeAlloc`), bytes.
const MIN_LARGE_ALLOC: u64 = 10 << 20;
/// Rounding of a large request's own segment (`kRoundLarge`), bytes.
const ROUND_LARGE: u64 = 2 << 20;
/// Segment of the small pool (`kSmallBuffer`), bytes.
const SMALL_BUFFER: u64 = 2 << 20;

/// A tensor handed out by [`CachingAllocator::malloc`], to give back with
/// [`CachingAllocator::free`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tensor {
    /// Bytes asked for.
    bytes: u64,
    /// Large-pool block address; `None` for a small-pool or empty tensor.
    addr: Option<u64>,
}

/// A large-pool block: its size, its segment, and whether a tensor holds it.
#[derive(Debug, Clone, Copy)]
struct Block {
    size: u64,
    segment: u64,
    allocated: bool,
}

/// The allocated-bytes counter of one device's caching allocator (one stream). Segments get
/// increasing addresses in the order they are created; best fit takes the smallest free block, the
/// lowest address among equals (the allocator's `BlockComparatorSize`).
#[derive(Debug, Clone, Default)]
pub struct CachingAllocator {
    /// Large-pool blocks by address.
    blocks: BTreeMap<u64, Block>,
    /// Free large-pool blocks as (size, address).
    free: BTreeSet<(u64, u64)>,
    /// Address of the next segment.
    next_addr: u64,
    /// Segments created.
    segments: u64,
    /// `memory_allocated()`: the sum of the allocated blocks' sizes, bytes.
    allocated: u64,
    /// The sum of the live tensors' requests, bytes.
    requested: u64,
    /// mem49: the small pool's live blocks, bytes (rounded requests).
    small: u64,
}

impl CachingAllocator {
    /// An empty allocator.
    pub fn new() -> CachingAllocator {
        CachingAllocator::default()
    }

    /// Allocates a tensor of `bytes` bytes (0 allocates nothing, as `torch.empty` of no elements).
    pub fn malloc(&mut self, bytes: u64) -> Tensor {
        let size = bytes.div_ceil(MIN_BLOCK).saturating_mul(MIN_BLOCK);
        self.requested = self.requested.saturating_add(bytes);
        if size <= SMALL_SIZE {
            // Small pool: split whenever ≥ 512 B remain, and remainders are multiples of 512.
            self.allocated = self.allocated.saturating_add(size);
            self.small = self.small.saturating_add(size);
            return Tensor { bytes, addr: None };
        }
        let (addr, block) = match self.free.range((size, 0)..).next().copied() {
            Some((s, a)) => {
                self.free.remove(&(s, a));
                (a, self.blocks[&a])
            }
            None => {
                let seg = if size < MIN_LARGE_ALLOC {
                    LARGE_BUFFER
                } else {
                    size.div_ceil(ROUND_LARGE).saturating_mul(ROUND_LARGE)
                };
                let a = self.next_addr;
                // A gap keeps blocks of different segments from ever looking adjacent.
                self.next_addr = a.saturating_add(seg).saturating_add(ROUND_LARGE);
                self.segments += 1;
                let b = Block {
                    size: seg,
                    segment: self.segments,
                    allocated: false,
                };
                (a, b)
            }
        };
        let remaining = block.size - size;
        let taken = if remaining > SMALL_SIZE {
            let rest = Block {
                size: remaining,
                ..block
            };
            self.blocks.insert(addr + size, rest);
            self.free.insert((remaining, addr + size));
            size
        } else {
            block.size
        };
        self.blocks.insert(
            addr,
            Block {
                size: taken,
                allocated: true,
                ..block
            },
        );
        self.allocated = self.allocated.saturating_add(taken);
        Tensor {
            bytes,
            addr: Some(addr),
        }
    }

    /// Frees a tensor: its block returns to the cache, merged with free neighbours of its segment
    /// (`free_block`, `try_merge_blocks`); nothing is returned to the driver.
    pub fn free(&mut self, t: Tensor) {
        self.requested = self.requested.saturating_sub(t.bytes);
        let Some(mut addr) = t.addr else {
            let size = t.bytes.div_ceil(MIN_BLOCK).saturating_mul(MIN_BLOCK);
            self.allocated = self.allocated.saturating_sub(size);
            self.small = self.small.saturating_sub(size);
            return;
        };
        let Some(mut b) = self.blocks.get(&addr).copied() else {
            return;
        };
        self.allocated = self.allocated.saturating_sub(b.size);
        b.allocated = false;
        if let Some((&pa, &p)) = self.blocks.range(..addr).next_back()
            && !p.allocated
            && p.segment == b.segment
            && pa + p.size == addr
        {
            self.free.remove(&(p.size, pa));
            self.blocks.remove(&addr);
            addr = pa;
            b.size += p.size;
        }
        if let Some(&n) = self.blocks.get(&(addr + b.size))
            && !n.allocated
            && n.segment == b.segment
        {
            self.free.remove(&(n.size, addr + b.size));
            self.blocks.remove(&(addr + b.size));
            b.size += n.size;
        }
        self.blocks.insert(addr, b);
        self.free.insert((b.size, addr));
    }

    /// `torch.cuda.memory_allocated()`, bytes.
    pub fn allocated(&self) -> u64 {
        self.allocated
    }

    /// What the live tensors' blocks hold beyond their requests (allocated − requested), bytes.
    pub fn overhead(&self) -> u64 {
        self.allocated.saturating_sub(self.requested)
    }

    /// The sum of the live tensors' requests, bytes.
    pub fn requested(&self) -> u64 {
        self.requested
    }

    /// mem49 (issue #17 point 5): the device memory torch keeps after `torch.cuda.empty_cache()`,
    /// bytes — what `torch.cuda.mem_get_info()` sees of it, and so SGLang's "Load weight end … mem
    /// usage" (`get_available_gpu_memory` empties the cache first, SGLang 0.5.5 `utils/common.py`).
    /// `empty_cache` returns only segments with no allocated block (`release_cached_blocks`), so
    /// every large-pool segment that holds a live tensor stays whole: its unsplit tail and its free
    /// split remainders included. The small pool's live blocks are counted in whole 2 MiB segments
    /// (`kSmallBuffer`; packed in order, as a load that frees no small tensor packs them).
    pub fn reserved_after_empty_cache(&self) -> u64 {
        let mut segments: BTreeMap<u64, (u64, bool)> = BTreeMap::new();
        for b in self.blocks.values() {
            let e = segments.entry(b.segment).or_insert((0, false));
            e.0 = e.0.saturating_add(b.size);
            e.1 |= b.allocated;
        }
        let large: u64 = segments
            .values()
            .filter(|(_, live)| *live)
            .map(|(size, _)| size)
            .sum();
        large.saturating_add(self.small.div_ceil(SMALL_BUFFER).saturating_mul(SMALL_BUFFER))
    }
}

/// `memory_allocated()` after allocating `sizes` (bytes) in order on a fresh allocator, none freed.
pub fn allocated_bytes(sizes: impl IntoIterator<Item = u64>) -> u64 {
    let mut a = CachingAllocator::new();
    sizes.into_iter().for_each(|s| {
        a.malloc(s);
    });
    a.allocated()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    /// mem49: after `empty_cache` a segment with a live tensor stays whole. 12.5 MiB → a 14 MiB
    /// segment, split (1.5 MiB > 1 MiB remain): allocated 12.5 MiB, reserved 14 MiB. 17.5 MiB → an
    /// 18 MiB segment taken whole: 18 MiB both ways. A freed 40 MiB tensor's segment is released.
    /// Three 10 KiB norms: one 2 MiB small segment.
    #[test]
    fn reserved_keeps_live_segments_whole() {
        let mut a = CachingAllocator::new();
        a.malloc(12 * MIB + MIB / 2);
        a.malloc(17 * MIB + MIB / 2);
        let t = a.malloc(40 * MIB);
        a.free(t);
        for _ in 0..3 {
            a.malloc(10_240);
        }
        assert_eq!(a.requested(), 30 * MIB + 30_720);
        assert_eq!(a.allocated(), 30 * MIB + 30_720 + MIB / 2);
        assert_eq!(a.reserved_after_empty_cache(), (14 + 18 + 2) * MIB);
    }

    #[test]
    fn small_requests_cost_their_rounded_size() {
        assert_eq!(allocated_bytes([1]), 512);
        assert_eq!(allocated_bytes([16_384, 513]), 16_384 + 1024);
        assert_eq!(allocated_bytes([MIB]), MIB);
    }

    #[test]
    fn a_large_block_is_not_split_when_at_most_1_mib_would_remain() {
        // 115.5 MiB → a 116 MiB segment, 0.5 MiB left: the whole segment is allocated.
        assert_eq!(allocated_bytes([115 * MIB + MIB / 2]), 116 * MIB);
        // 231 MiB → 232 MiB, 1 MiB left: not "more than 1 MiB", so not split.
        assert_eq!(allocated_bytes([231 * MIB]), 232 * MIB);
        // 64.75 MiB → 66 MiB, 1.25 MiB left: split, the request alone is allocated.
        assert_eq!(allocated_bytes([64 * MIB + 3 * MIB / 4]), 64 * MIB + 3 * MIB / 4);
        // Multiples of 2 MiB cost nothing extra.
        assert_eq!(allocated_bytes([48 * MIB]), 48 * MIB);
    }

    #[test]
    fn mid_sized_requests_share_a_20_mib_segment() {
        // 7.875 MiB splits a 20 MiB segment (12.125 left); 6.125 MiB takes that remainder (6 MiB
        // left, split); 5.5 MiB takes the 6 MiB remainder whole (0.5 MiB left: not split).
        let mut a = CachingAllocator::new();
        a.malloc(7 * MIB + 7 * MIB / 8);
        a.malloc(6 * MIB + MIB / 8);
        assert_eq!(a.overhead(), 0);
        a.malloc(5 * MIB + MIB / 2);
        assert_eq!(a.overhead(), MIB / 2);
        assert_eq!(a.allocated(), 20 * MIB);
    }

    #[test]
    fn freed_blocks_merge_and_serve_later_requests_split() {
        // A request ≥ 10 MiB gets a segment of its own; freeing a 100 MiB tensor caches it; a 31.5 MiB request then splits it (68.5 MiB left) instead of
        // taking a 32 MiB segment whole.
        let mut a = CachingAllocator::new();
        let big = a.malloc(100 * MIB);
        a.free(big);
        assert_eq!(a.allocated(), 0);
        let t = a.malloc(31 * MIB + MIB / 2);
        assert_eq!(a.overhead(), 0);
        // Freed neighbours in one segment merge back: the whole 100 MiB serves a 99.5 MiB request
        // (0.5 MiB left, not split).
        a.free(t);
        a.malloc(99 * MIB + MIB / 2);
        assert_eq!(a.allocated(), 100 * MIB);
        // Small tensors come and go at their rounded size.
        let s = a.malloc(1000);
        assert_eq!(a.allocated(), 100 * MIB + 1024);
        a.free(s);
        assert_eq!(a.allocated(), 100 * MIB);
    }
}
