//! nontorch61 (issue #17): the communication share of vLLM's profile-run non-torch growth
//! (`non_torch_increase`), built from what the distributed set-up allocates outside torch's
//! caching allocator, by release window and by NCCL transport.
//!
//! Two facts of the engine decide which of those allocations fall inside the measured window
//! (`init_snapshot` … end of `profile_run`):
//!
//! - **Where the snapshot is taken.** vLLM 0.9.2 – 0.10.2 `v1/worker/gpu_worker.py` `init_device`
//!   takes `self.init_snapshot = MemorySnapshot()` *before* `init_worker_distributed_environment`
//!   (0.9.2 line 140 before 158; 0.10.1 174 before 192; 0.10.2 175 before 193); from 0.11.0 the
//!   distributed environment comes first (0.11.0 169 before 182; 0.11.1 224 / 240; 0.12.0 216 /
//!   232; 0.13.0 224 / 240; 0.19.0 263 / 282; the wheels in /work/wheels). So up to 0.10.2 the
//!   distributed init's device allocations are non-torch growth; from 0.11.0 they are not.
//! - **The transport.** NCCL's P2P transport puts a ring connection's buffers in device memory
//!   ([`crate::nccl::p2p_ring_channel_device_bytes`], 12 MiB a channel on each rank); over its SHM
//!   transport (GPUs without P2P) they are host memory (NCCL 2.27.5 `transport/shm.cc`), so a group
//!   over SHM grows by none of them.
//!
//! What the distributed init allocates on the device, per rank, in a `tp`-rank group (0.10.2):
//! - vLLM's own NCCL communicator (`device_communicators/pynccl.py` `PyNcclCommunicator.__init__`
//!   ends with "A small all_reduce for warmup"), whose first collective connects its ring: the
//!   ring's buffers, as for the torch group below;
//! - the custom allreduce, when it is on ([`custom_ar_device_bytes`]).
//!
//! The torch TP group's `ProcessGroupNCCL` is connected inside the window at every release (vmem58:
//! the dummy sampler's logits all-gather). The preset's fitted communication part
//! (`vllm_non_torch_comm`, vLLM 0.19.0 on H100 NVSwitch) holds its ring at vmem58's
//! [`RING_CHANNELS`] channels; over SHM that share is taken out ([`comm_part_bytes`]).

use crate::nccl::p2p_ring_channel_device_bytes;

/// The ring channels of a TP group's NCCL communicator, ASSUMED (vmem58, tests/tests/vmem58.rs): the
/// 24 channels NCCL prints for 8-rank H100 / H200 communicators; a 2- or 4-rank group's count is
/// not in any log at hand.
pub const RING_CHANNELS: u64 = 24;

/// vLLM's custom-allreduce `max_size` before the symmetric-memory clamp: 8 MiB
/// (`device_communicators/custom_all_reduce.py` `CustomAllreduce.__init__`, `max_size=8192 * 1024`;
/// 0.10.2 and 0.11.0; the clamp `CUSTOM_ALL_REDUCE_MAX_SIZES` applies only with
/// `VLLM_ALLREDUCE_USE_SYMM_MEM`, off by default in 0.10.2's `envs.py`).
pub const CUSTOM_AR_MAX_SIZE: u64 = 8 << 20;

/// `cudaMalloc`'s granularity for allocations of this size, bytes: 2 MiB (the same page NCCL's
/// `CUDA_IPC_MIN` aligns to, `crate::nccl::CUDA_IPC_MIN`).
const CUDA_MALLOC_PAGE: u64 = 2 << 20;

/// Device bytes of vLLM's custom-allreduce buffers on each rank: `create_shared_buffer(
/// ops.meta_size() + max_size)` (the signal flags and the staging buffer) and
/// `create_shared_buffer(max_size)`, each a raw `cudaMalloc` (`csrc/custom_all_reduce.cu`
/// `allocate_shared_buffer_and_handle`), outside torch's allocator; the meta part (a few KiB of
/// `Signal` flags) takes the next 2 MiB page: 10 MiB + 8 MiB = 18 MiB. The peers' buffers are
/// opened by IPC handle and take no memory on this GPU; `rank_data` (8 MiB) is a torch tensor.
pub fn custom_ar_device_bytes() -> u64 {
    let meta = (CUSTOM_AR_MAX_SIZE + 1).div_ceil(CUDA_MALLOC_PAGE) * CUDA_MALLOC_PAGE;
    meta + CUSTOM_AR_MAX_SIZE
}

/// Device bytes of one communicator's connected ring on each rank: [`RING_CHANNELS`] ×
/// [`p2p_ring_channel_device_bytes`] over P2P, 0 over SHM (host memory).
pub fn ring_device_bytes(p2p: bool) -> u64 {
    if p2p {
        RING_CHANNELS * p2p_ring_channel_device_bytes(true)
    } else {
        0
    }
}

/// Whether a vLLM V1 release takes its `init_snapshot` before the distributed init (so the NCCL
/// and custom-allreduce allocations count as non-torch growth): before 0.11.0 (module doc).
pub fn snapshot_precedes_dist_init(version: [u64; 3]) -> bool {
    version < [0, 11, 0]
}

/// vllmmem63 (issue #17): the single-GPU non-torch growth of vLLM's profile run on Ampere / Ada GPUs
/// (SM 8.x) in the releases whose window holds only `profile_run`, GiB, MEASURED (in sample for the
/// rows named, no rule): vLLM 0.10.2 logs "0.02 GiB for non-torch memory" on one 23.53-GiB card
/// (Qwen3-8B-FP8, tests/data/engine-memory.tsv line 74) and on one A100 40GB (Qwen2.5-Omni-7B, line
/// 77), as 0.10.1.1 measures 0.0175 on one A100 80GB (lines 64–65, `crate::vllm_startup::
/// V0_10_1_NON_TORCH_GIB`). The preset's 0.25 GiB is vLLM 0.19.0's on H100, whose window also holds
/// `profile_cudagraph_memory` (0.18.0 on). Hopper is left at the preset's figure: 0.10.2 logs 0.07
/// GiB on one H100 (line 75) and llm-d-benchmark's ~0.11 runs 0.13–0.14 (lines 69–73), so the base
/// depends on the GPU, and no mechanism was located for either figure.
pub const PRE_0_18_SM8_BASE_GIB: f64 = 0.02;

/// vllmmem63: whether [`PRE_0_18_SM8_BASE_GIB`] replaces the preset's single-GPU base: a vLLM V1
/// release from 0.10.2 (0.10.1.x keeps its own measured figures) up to 0.17.x (0.18.0 moved
/// `profile_cudagraph_memory` into the window), on a GPU of compute capability 8.x.
pub fn pre_0_18_sm8_base(version: [u64; 3], sm_major: u32) -> bool {
    ([0, 10, 2]..[0, 18, 0]).contains(&version) && sm_major == 8
}

/// How a TP group of more than one rank is connected, as the non-torch growth needs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GroupLinks {
    /// NCCL's ring runs over P2P (NVLink or PCIe P2P) on every hop; false when any hop is SHM.
    pub p2p: bool,
    /// vLLM's custom allreduce is on (its buffers are allocated).
    pub custom_ar: bool,
    /// enginemem64: the channels the group's NCCL communicator runs (the "N coll channels" of
    /// NCCL_DEBUG=INFO; tpsim's port of NCCL's search, `crate::nccl::RingGraph::comm_channels`),
    /// which sizes its initialisation pages ([`nccl_comm_init_device_bytes`]).
    pub channels: u32,
}

/// The communication part of the non-torch growth of one rank of a `tp`-rank group (`tp > 1`),
/// bytes: the preset's fitted part `fitted_comm` (NVSwitch P2P, with the torch group's ring in it),
/// its ring share replaced by the ring this transport connects ([`ring_device_bytes`]), plus — where
/// the release's snapshot precedes the distributed init — vLLM's own communicator's ring and the
/// custom-allreduce buffers. 0 at `tp` ≤ 1.
///
/// enginemem64: where the ring is not P2P on every hop and the snapshot follows the distributed
/// init (vLLM 0.11.0 on), the window holds only the torch group's lazily created communicator: its
/// initialisation pages ([`nccl_comm_init_device_bytes`] at `links.channels`) and, over SHM, no ring
/// buffers — the fitted NVSwitch remainder is not carried over. Before 0.11.0 the window also holds
/// the process's first NCCL initialisation (vLLM's own communicator: `ncclInitKernelsForDevice`
/// loads every NCCL kernel, `init.cc` `ncclCommInitRankFunc`), which is not sized: the fitted
/// remainder stays there.
pub fn comm_part_bytes(fitted_comm: u64, tp: u32, links: GroupLinks, dist_init_in_window: bool) -> u64 {
    if tp <= 1 {
        return 0;
    }
    if !links.p2p && !dist_init_in_window {
        return nccl_comm_init_device_bytes(links.channels);
    }
    let torch_group = fitted_comm.saturating_sub(ring_device_bytes(true)) + ring_device_bytes(links.p2p);
    let dist_init = if dist_init_in_window {
        ring_device_bytes(links.p2p)
            + if links.custom_ar {
                custom_ar_device_bytes()
            } else {
                0
            }
    } else {
        0
    };
    torch_group + dist_init
}

/// enginemem64 (issue #17): the device allocations one NCCL 2.27.3 communicator makes at its
/// initialisation, per rank, bytes — the tensor-parallel group's torch `ProcessGroupNCCL`, which vLLM
/// 0.11.0 on initialises lazily on its first collective *inside* the profile window (vmem58), so
/// these pages are non-torch growth there, beside the transport's ring buffers
/// ([`ring_device_bytes`]; none over SHM). Counted from the v2.27.3-1 tag (torch 2.8.0's NCCL, vLLM
/// 0.11.0's pin):
/// - `init.cc` `devCommSetup`: `ncclCudaCallocAsync` of the `ncclDevCommAndChannels` block and of
///   `rankToLocalRank` (2 allocations; `collNetDenseToUserRank` only with CollNet);
/// - `channel.cc` `initChannel`, for every initialised channel: `sharedRes->devPeers[c]` (a new
///   communicator's own shared resources), `channel->devPeers` and `channel->devRingUserRanks`
///   (3 allocations);
/// - the channels initialised: the collective channels, then `graph/paths.cc`
///   `ncclTopoComputeP2pChannels` initialises up to `p2pnChannels = pow2Up(nChannels)`
///   ([`nccl_initialised_channels`]);
/// - each allocation is a few KiB, but with cuMem on (`NCCL_CUMEM_ENABLE` -2 = auto, `misc/cudawrap.cc`;
///   vLLM 0.11.0 does not set it) `include/alloc.h` `ncclCudaMallocDebug` → `ncclCuMemAlloc` rounds
///   it up to `CU_MEM_ALLOC_GRANULARITY_MINIMUM` (`ALIGN_SIZE(size, granularity)`), 2 MiB on these
///   GPUs ([`NCCL_CUMEM_PAGE`]).
///
/// The SHM transport itself allocates no device memory by default (`transport/shm.cc`: the FIFOs are
/// host memory, `ncclCuMemHostAlloc` or `ncclShmOpen`; `devFifo` only with
/// `NCCL_SHM_USE_CUDA_MEMCPY`, default 0). The work FIFO and profiler counters are host memory
/// (`ncclCudaHostCalloc`, `init.cc`). `coll_channels` is the communicator's collective channel count
/// (NCCL_DEBUG=INFO prints it: "N coll channels, …"); it depends on the box's PCIe topology.
pub fn nccl_comm_init_device_bytes(coll_channels: u32) -> u64 {
    (NCCL_DEV_COMM_ALLOCS + NCCL_CHANNEL_ALLOCS * u64::from(nccl_initialised_channels(coll_channels)))
        * NCCL_CUMEM_PAGE
}

/// `devCommSetup`'s device allocations without CollNet (NCCL v2.27.3-1 `src/init.cc` lines 447 and
/// 449): the `ncclDevCommAndChannels` block and `rankToLocalRank`.
pub const NCCL_DEV_COMM_ALLOCS: u64 = 2;

/// `initChannel`'s device allocations per channel (NCCL v2.27.3-1 `src/channel.cc` lines 42, 45 and
/// 56): the shared `devPeers`, the channel's `devPeers`, `devRingUserRanks`.
pub const NCCL_CHANNEL_ALLOCS: u64 = 3;

/// The cuMem allocation granularity NCCL rounds each device allocation up to: 2 MiB, the
/// `CU_MEM_ALLOC_GRANULARITY_MINIMUM` of NVIDIA GPUs for device memory (the same 2 MiB page as
/// NCCL's `CUDA_IPC_MIN` and this module's `cudaMalloc` page).
pub const NCCL_CUMEM_PAGE: u64 = CUDA_MALLOC_PAGE;

/// The channels an NCCL 2.27.3 communicator initialises for `coll_channels` collective channels:
/// `ncclTopoComputeP2pChannels` (`src/graph/paths.cc`) sets `p2pnChannels = pow2Up(min(nChannels,
/// NCCL_MAX_P2P_NCHANNELS = MAXCHANNELS))` and runs `initChannel` for channels `nChannels ..
/// p2pnChannels`; so `pow2Up(coll_channels)`, at least 1 (`NCCL_MIN_P2P_NCHANNELS` 1), at most 64
/// (`MAXCHANNELS`).
pub fn nccl_initialised_channels(coll_channels: u32) -> u32 {
    coll_channels.clamp(1, 64).next_power_of_two()
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIB: u64 = 1 << 20;

    #[test]
    fn nontorch61_custom_ar_buffers_by_hand() {
        // 8 MiB + a few KiB → 10 MiB (2 MiB pages), + 8 MiB.
        assert_eq!(custom_ar_device_bytes(), 18 * MIB);
    }

    #[test]
    fn nontorch61_release_window() {
        assert!(snapshot_precedes_dist_init([0, 10, 2]));
        assert!(snapshot_precedes_dist_init([0, 9, 2]));
        assert!(!snapshot_precedes_dist_init([0, 11, 0]));
        assert!(!snapshot_precedes_dist_init([0, 19, 0]));
    }

    #[test]
    fn vllmmem63_sm8_base_window() {
        assert!(pre_0_18_sm8_base([0, 10, 2], 8));
        assert!(pre_0_18_sm8_base([0, 17, 1], 8));
        assert!(!pre_0_18_sm8_base([0, 10, 1], 8));
        assert!(!pre_0_18_sm8_base([0, 18, 0], 8));
        assert!(!pre_0_18_sm8_base([0, 11, 0], 9));
        assert!(!pre_0_18_sm8_base([0, 11, 0], 7));
    }

    #[test]
    fn nontorch61_comm_part_by_transport_and_window() {
        let fitted = 344 * MIB; // 0.32 GiB + 0.02 GiB per peer at tp 2, rounded to MiB here
        let ring = 24 * 12 * MIB;
        let p2p = GroupLinks {
            p2p: true,
            custom_ar: true,
            channels: 36,
        };
        let shm = GroupLinks {
            p2p: false,
            custom_ar: false,
            channels: 4,
        };
        assert_eq!(comm_part_bytes(fitted, 1, p2p, true), 0);
        assert_eq!(comm_part_bytes(fitted, 2, p2p, false), fitted);
        // enginemem64: from 0.11.0 a group not P2P on every hop grows by its NCCL init pages alone,
        // (2 + 3 × 4) × 2 MiB at 4 channels.
        assert_eq!(comm_part_bytes(fitted, 2, shm, false), 28 * MIB);
        assert_eq!(comm_part_bytes(fitted, 2, p2p, true), fitted + ring + 18 * MIB);
        assert_eq!(comm_part_bytes(fitted, 2, shm, true), fitted - ring);
        // A fitted part below the ring saturates at the transport's ring.
        assert_eq!(comm_part_bytes(MIB, 2, shm, true), 0);
    }

    #[test]
    fn enginemem64_nccl_init_pages_by_hand() {
        // (2 + 3 × pow2Up(c)) × 2 MiB.
        assert_eq!(nccl_initialised_channels(0), 1);
        assert_eq!(nccl_initialised_channels(2), 2);
        assert_eq!(nccl_initialised_channels(3), 4);
        assert_eq!(nccl_initialised_channels(6), 8);
        assert_eq!(nccl_initialised_channels(24), 32);
        assert_eq!(nccl_initialised_channels(200), 64);
        assert_eq!(nccl_comm_init_device_bytes(2), 16 * MIB);
        assert_eq!(nccl_comm_init_device_bytes(4), 28 * MIB);
        assert_eq!(nccl_comm_init_device_bytes(6), 52 * MIB);
        assert_eq!(nccl_comm_init_device_bytes(24), 196 * MIB);
    }
}
