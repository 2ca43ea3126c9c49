//! NCCL's constants (threads, thresholds, buffer sizes, line formats) with the source of each, the
//! connection buffer and slot sizes, the P2P level in force and the transport of a GPU pair.

use super::{NcclEnv, Proto};
use crate::hw::{PathClass, Transport};

// ---------------------------------------------------------------------------------------------
// Constants (each with its source)
// ---------------------------------------------------------------------------------------------

/// Pipeline depth of every connection's buffer: 8 slots (`device.h` `NCCL_STEPS`).
pub const NCCL_STEPS: u32 = 8;
/// Most channels a communicator can have (`device.h` `MAXCHANNELS`).
pub const MAXCHANNELS: u32 = 64;
/// Most channels the ring search may find (`init.cc`: `ringGraph->maxChannels = MAXCHANNELS / 2`).
pub const RING_SEARCH_MAX_CHANNELS: u32 = MAXCHANNELS / 2;
/// Threads of a warp (`device.h` `WARP_SIZE`).
pub const WARP_SIZE: u32 = 32;
/// Most threads per block for Simple (`device.h` `NCCL_SIMPLE_MAX_NTHREADS`).
pub const NCCL_SIMPLE_MAX_NTHREADS: u32 = 512;
/// Most threads per block for LL (`device.h` `NCCL_LL_MAX_NTHREADS`).
pub const NCCL_LL_MAX_NTHREADS: u32 = 512;
/// Most threads per block for LL128 (`device.h` `NCCL_LL128_MAX_NTHREADS`).
pub const NCCL_LL128_MAX_NTHREADS: u32 = 640;
/// Most threads per block of any kernel; trees always use it (`device.h` `NCCL_MAX_NTHREADS`).
pub const NCCL_MAX_NTHREADS: u32 = 640;
/// Bytes per thread before another channel/thread is worth it, LL (`comm.h` `NCCL_LL_THREAD_THRESHOLD`;
/// multiplied by the rank count for ring LL in `tuning.cc`).
pub const NCCL_LL_THREAD_THRESHOLD: u64 = 8;
/// Same for LL128 (`comm.h` `NCCL_LL128_THREAD_THRESHOLD`).
pub const NCCL_LL128_THREAD_THRESHOLD: u64 = 8;
/// Same for Simple (`comm.h` `NCCL_SIMPLE_THREAD_THRESHOLD`).
pub const NCCL_SIMPLE_THREAD_THRESHOLD: u64 = 64;
/// NCCL's "PCI Gen3 x16" bandwidth, GB/s: ring Simple gets 256 threads when the ring's total
/// bandwidth is at most this (`topo.h` `PCI_BW`, `tuning.cc`).
pub const PCI_BW_GBPS: f64 = 12.0;
/// Per-channel bandwidth NCCL assigns the "simple order" fallback graph, GB/s (`search.cc`).
pub const SIMPLE_ORDER_BW_GBPS: f64 = 0.1;

/// LL payload fraction: 8 data bytes per 16-byte line (`device.h` `union ncclLLFifoLine`).
pub const LL_PAYLOAD_EFFICIENCY: f64 = 8.0 / 16.0;
/// LL128 payload fraction: 120 of 128 bytes (`device.h` `NCCL_LL128_DATAELEMS / NCCL_LL128_LINEELEMS`).
pub const LL128_PAYLOAD_EFFICIENCY: f64 = 120.0 / 128.0;

/// LL connection buffer, bytes: 8 lines/thread × 512 threads × 8 steps × 16 B = 512 KiB
/// (`init.cc` `DEFAULT_LL_BUFFSIZE`).
pub const LL_BUFF_BYTES: u64 = 8 * NCCL_LL_MAX_NTHREADS as u64 * NCCL_STEPS as u64 * 16;
/// LL128 connection buffer, bytes: 120 elements/thread × 640 threads × 8 steps × 8 B = 4,915,200
/// (≈ 4.69 MiB; `init.cc` `DEFAULT_LL128_BUFFSIZE`).
pub const LL128_BUFF_BYTES: u64 = 120 * NCCL_LL128_MAX_NTHREADS as u64 * NCCL_STEPS as u64 * 8;
/// Simple connection buffer, bytes: 4 MiB (`init.cc` `DEFAULT_BUFFSIZE`).
pub const SIMPLE_BUFF_BYTES: u64 = 1 << 22;
/// Buffer slots a ring allreduce chunk spans with Simple (`collectives.h` `ALLREDUCE_CHUNKSTEPS`).
pub const ALLREDUCE_CHUNKSTEPS: u32 = NCCL_STEPS / 2;
/// Buffer slots per slice with Simple (`collectives.h` `ALLREDUCE_SLICESTEPS`).
pub const ALLREDUCE_SLICESTEPS: u32 = NCCL_STEPS / 4;

/// The connection buffer of a protocol, bytes on the wire (`init.cc` `computeBuffSizes` defaults).
pub fn buff_bytes(proto: Proto) -> u64 {
    match proto {
        Proto::Ll => LL_BUFF_BYTES,
        Proto::Ll128 => LL128_BUFF_BYTES,
        Proto::Simple => SIMPLE_BUFF_BYTES,
    }
}

/// One of the `NCCL_STEPS` slots of a connection buffer, bytes on the wire: LL 64 KiB, LL128
/// 614,400 B, Simple 512 KiB (`enqueue.cc` `calcCollChunking`: `stepSize = buffSize / NCCL_STEPS`).
pub fn slot_bytes(proto: Proto) -> u64 {
    buff_bytes(proto) / NCCL_STEPS as u64
}

/// Payload bytes one channel moves per ring-allreduce chunk (`enqueue.cc` `calcCollChunking`):
/// Simple a chunk is `ALLREDUCE_CHUNKSTEPS` slots = 2 MiB (sent in slices of 2 slots); LL half a
/// slot = 32 KiB (the rest is flags); LL128 15/16 of a slot = 576,000 B. This is the buffer ceiling;
/// the last chunk of a message is smaller.
pub fn ring_allreduce_chunk_bytes(proto: Proto) -> u64 {
    let step = slot_bytes(proto);
    match proto {
        Proto::Simple => step * ALLREDUCE_CHUNKSTEPS as u64,
        Proto::Ll => step / 2,
        Proto::Ll128 => step / 16 * 15,
    }
}

/// Alignment of every P2P connection's device allocation, bytes: 2 MiB (`comm.h` `CUDA_IPC_MIN`,
/// applied by `transport/p2p.cc` `p2pSendSetup` / `p2pRecvSetup` with `ALIGN_SIZE`; NCCL 2.27.5).
pub const CUDA_IPC_MIN: u64 = 2 << 20;
/// The head of a connection's send or receive memory, bytes: `struct ncclSendMem` / `ncclRecvMem`
/// are unions padded to `MEM_ALIGN` = 4096 (`comm.h`; NCCL 2.27.5).
pub const CONN_MEM_HEAD_BYTES: u64 = 4096;

/// vmem58 (issue #17): device bytes one ring channel's P2P connections take on each rank, which
/// allocates its send side (to the next rank) and its receive side (from the previous one) on its
/// own GPU (`transport/p2p.cc` `p2pSendSetup`: `sizeof(ncclSendMem)` + the Simple buffer when the
/// connection reads (`p2pGetInfo`: NVLink between Ampere-or-later GPUs by default);
/// `p2pRecvSetup`: `sizeof(ncclRecvMem)` + every protocol's buffer but a read connection's Simple;
/// each rounded up to `CUDA_IPC_MIN`; `transport/generic.cc` `ncclTransportRingConnect` connects
/// every channel of the communicator). Read: 4 MiB + 4 KiB → 6 MiB and 512 KiB + 4,915,200 B + 4
/// KiB → 6 MiB; no read: 4 KiB → 2 MiB and 9,633,792 B + 4 KiB → 10 MiB: 12 MiB either way. Over
/// NCCL's SHM transport the buffers are host memory (not counted here).
pub fn p2p_ring_channel_device_bytes(read: bool) -> u64 {
    let align = |b: u64| b.div_ceil(CUDA_IPC_MIN) * CUDA_IPC_MIN;
    let (send, recv) = if read {
        (SIMPLE_BUFF_BYTES, LL_BUFF_BYTES + LL128_BUFF_BYTES)
    } else {
        (0, LL_BUFF_BYTES + LL128_BUFF_BYTES + SIMPLE_BUFF_BYTES)
    };
    align(CONN_MEM_HEAD_BYTES + send) + align(CONN_MEM_HEAD_BYTES + recv)
}

// ---------------------------------------------------------------------------------------------
// Transport
// ---------------------------------------------------------------------------------------------

/// The P2P level in force (`paths.cc` `ncclTopoCheckP2p`): PXB by default; SYS on an AMD host with
/// at most two GPUs; `NCCL_P2P_LEVEL` replaces either; `NCCL_P2P_DISABLE=1` gives LOC, which no pair
/// of distinct GPUs satisfies, i.e. never P2P (`ncclGetLevel` checks it first).
pub fn p2p_level(env: &NcclEnv, cpu_amd: bool, ranks: u32) -> PathClass {
    if env.p2p_disable {
        return PathClass::Loc;
    }
    if let Some(level) = env.p2p_level {
        return level;
    }
    if cpu_amd && ranks <= 2 {
        PathClass::Sys
    } else {
        PathClass::Pxb
    }
}

/// The transport between two GPUs: P2P when the hardware/driver supports peer access and the
/// path class is within the P2P level, otherwise NCCL's SHM transport through host memory
/// (`paths.cc` `ncclTopoCheckP2p`, `transport/p2p.cc` `canConnect`).
pub fn transport(class: PathClass, p2p_supported: bool, level: PathClass) -> Transport {
    if p2p_supported && class <= level {
        Transport::P2p
    } else {
        Transport::Shm
    }
}

#[cfg(test)]
// Payload fractions are exact constants copied through unchanged: exact equality is the point of
// those assertions.
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn p2p_level_and_transport() {
        let env = NcclEnv::default();
        assert_eq!(p2p_level(&env, false, 8), PathClass::Pxb);
        assert_eq!(p2p_level(&env, true, 8), PathClass::Pxb);
        assert_eq!(p2p_level(&env, true, 2), PathClass::Sys);
        assert_eq!(p2p_level(&env, false, 2), PathClass::Pxb);
        let lvl = NcclEnv {
            p2p_level: Some(PathClass::Sys),
            ..env
        };
        assert_eq!(p2p_level(&lvl, false, 8), PathClass::Sys);
        let off = NcclEnv {
            p2p_disable: true,
            ..lvl
        };
        assert_eq!(p2p_level(&off, true, 2), PathClass::Loc);
        assert_eq!(transport(PathClass::Pix, true, PathClass::Loc), Transport::Shm);

        assert_eq!(transport(PathClass::Pxb, true, PathClass::Pxb), Transport::P2p);
        assert_eq!(transport(PathClass::Phb, true, PathClass::Pxb), Transport::Shm);
        assert_eq!(transport(PathClass::Pix, false, PathClass::Sys), Transport::Shm);
    }

    #[test]
    fn protocol_facts() {
        assert_eq!(NCCL_STEPS, 8);
        assert_eq!(buff_bytes(Proto::Ll), 512 * 1024);
        assert_eq!(buff_bytes(Proto::Ll128), 4_915_200); // ≈ 4.69 MiB
        assert_eq!(buff_bytes(Proto::Simple), 4 << 20);
        assert_eq!(slot_bytes(Proto::Ll), 65_536);
        assert_eq!(slot_bytes(Proto::Ll128), 614_400);
        assert_eq!(slot_bytes(Proto::Simple), 524_288);
        assert_eq!(ring_allreduce_chunk_bytes(Proto::Simple), 2 << 20);
        assert_eq!(ring_allreduce_chunk_bytes(Proto::Ll), 32_768);
        assert_eq!(ring_allreduce_chunk_bytes(Proto::Ll128), 576_000);
        assert_eq!(Proto::Ll.payload_efficiency(), 0.5);
        assert_eq!(Proto::Ll128.payload_efficiency(), 0.9375);
        assert_eq!(Proto::Simple.payload_efficiency(), 1.0);
    }

    #[test]
    fn ring_channel_device_bytes() {
        // Read (NVLink): 6 MiB + 6 MiB; no read (PCIe): 2 MiB + 10 MiB.
        assert_eq!(p2p_ring_channel_device_bytes(true), 12 << 20);
        assert_eq!(p2p_ring_channel_device_bytes(false), 12 << 20);
        assert_eq!(CONN_MEM_HEAD_BYTES + LL_BUFF_BYTES + LL128_BUFF_BYTES, 5_443_584);
        assert_eq!(CONN_MEM_HEAD_BYTES + 9_633_792, 9_637_888);
    }
}
