//! GPU-pair benchmarks (feature `cuda`, ≥ 2 GPUs): peer copy bandwidth (`cuMemcpyPeerAsync`) and
//! one-way latency from a flag ping-pong kernel compiled with NVRTC, for every ordered pair, with
//! peer access off and (where the driver allows it) on.

#![allow(unsafe_code)] // kernel launches and mapped pinned host memory (see the SAFETY notes)

use std::io::Write;
use std::sync::Arc;

use cudarc::driver::sys::{CU_MEMHOSTALLOC_DEVICEMAP, CU_MEMHOSTALLOC_PORTABLE};
use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DevicePtr, LaunchConfig, PushKernelArg,
};

use super::driver::{self, BenchError, Ctx, Timer};
use super::mem::best_ms;
use super::plan::{self, Plan};
use crate::measurement::Record;

/// The ping-pong kernel, one thread per GPU. The initiator writes round number i into the flag its
/// peer polls, then spins until its own flag reaches i; the responder spins first, then answers.
/// Each flag lives where its *reader* polls it (local memory with peer access on; mapped host
/// memory with it off), so every write crosses the link and every poll is a local read.
/// Flag values only grow across runs (round i of a run writes `base + i`, the next run starts
/// above it), so flags never need resetting between runs.
/// A poll budget turns a lost flag into an error code in `status` instead of a hung GPU.
const PINGPONG_CU: &str = r#"
extern "C" __global__ void pingpong(unsigned long long mine_addr, unsigned long long peer_addr,
                                    int base, int round_trips, int initiator,
                                    unsigned long long status_addr) {
    volatile int* mine = (volatile int*)mine_addr;
    volatile int* peer = (volatile int*)peer_addr;
    const long long max_polls = 1LL << 24;
    for (int i = base + 1; i <= base + round_trips; ++i) {
        if (initiator) { *peer = i; __threadfence_system(); }
        long long polls = 0;
        while (*mine < i) {
            if (++polls > max_polls) { *(volatile int*)status_addr = i; return; }
        }
        if (!initiator) { *peer = i; __threadfence_system(); }
    }
}
"#;

/// Per-GPU state: a stream, a timer, copy buffers, the kernel and its status word.
struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    timer: Timer,
    send: CudaSlice<u8>,
    recv: CudaSlice<u8>,
    kernel: Option<CudaFunction>,
    flag: CudaSlice<i32>,
    status: CudaSlice<i32>,
}

fn setup(ctx: &Arc<CudaContext>, plan: &Plan, ptx: Option<&cudarc::nvrtc::Ptx>) -> Result<Gpu, BenchError> {
    let i = ctx.ordinal();
    let on = |what: &str| format!("{what} on GPU {i}");
    let stream = ctx.new_stream().ctx(|| on("creating a stream"))?;
    let n = plan.copy_bytes as usize;
    let kernel = match ptx {
        Some(p) => Some(
            ctx.load_module(p.clone())
                .and_then(|m| m.load_function("pingpong"))
                .ctx(|| on("loading the ping-pong kernel"))?,
        ),
        None => None,
    };
    Ok(Gpu {
        timer: Timer::new(ctx)?,
        send: stream
            .alloc_zeros::<u8>(n)
            .ctx(|| on("allocating a p2p buffer"))?,
        recv: stream
            .alloc_zeros::<u8>(n)
            .ctx(|| on("allocating a p2p buffer"))?,
        flag: stream.alloc_zeros::<i32>(32).ctx(|| on("allocating a flag"))?,
        status: stream
            .alloc_zeros::<i32>(1)
            .ctx(|| on("allocating a status word"))?,
        kernel,
        stream,
        ctx: ctx.clone(),
    })
}

/// Best per-copy time of `a.send` → `b.recv`, issued on `b`'s stream.
fn copy_gbps(plan: &Plan, a: &Gpu, b: &mut Gpu) -> Result<f64, BenchError> {
    let (ia, ib) = (a.ctx.ordinal(), b.ctx.ordinal());
    let Gpu {
        stream, timer, recv, ..
    } = b;
    let ms = best_ms(plan, stream, timer, || {
        stream
            .memcpy_dtod(&a.send, recv)
            .ctx(|| format!("peer copy GPU {ia} -> GPU {ib}"))
    })?;
    plan::gbps(plan.copy_bytes, ms)
        .ok_or_else(|| BenchError::Other(format!("zero time for the copy {ia} -> {ib}")))
}

/// Flag addresses for one ping-pong: (initiator's own flag, responder's own flag).
fn flag_addrs(a: &Gpu, b: &Gpu, host: Option<u64>) -> (u64, u64) {
    match host {
        // Two flags 128 bytes apart (separate cache lines) in mapped pinned memory.
        Some(base) => (base, base + 128),
        None => (a.flag.device_ptr(&a.stream).0, b.flag.device_ptr(&b.stream).0),
    }
}

/// GPU time (ms) on the initiator of `round_trips` round trips between `a` (initiator) and `b`.
fn pingpong_ms(
    a: &mut Gpu,
    b: &mut Gpu,
    host: Option<u64>,
    round_trips: u32,
    epoch: &mut i32,
) -> Result<f64, BenchError> {
    let (ia, ib) = (a.ctx.ordinal(), b.ctx.ordinal());
    let what = || format!("ping-pong GPU {ia} <-> GPU {ib}");
    let (fa, fb) = flag_addrs(a, b, host);
    for g in [&mut *a, &mut *b] {
        g.stream.memset_zeros(&mut g.status).ctx(what)?;
        g.stream.synchronize().ctx(what)?;
    }
    let (ka, kb) = match (&a.kernel, &b.kernel) {
        (Some(ka), Some(kb)) => (ka, kb),
        _ => {
            return Err(BenchError::Other(
                "the ping-pong kernel was not compiled".to_string(),
            ));
        }
    };
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (1, 1, 1),
        shared_mem_bytes: 0,
    };
    let n = round_trips as i32;
    let base = *epoch;
    *epoch = epoch
        .checked_add(n)
        .ok_or_else(|| BenchError::Other("ping-pong flag values exhausted".to_string()))?;
    let (sa, sb) = (a.status.device_ptr(&a.stream).0, b.status.device_ptr(&b.stream).0);
    let (init, resp) = (1i32, 0i32);
    // SAFETY: the kernel's six parameters are (u64, u64, i32, i32, i32, u64) as pushed; the flag and
    // status addresses point at live allocations (device memory of the polling GPU with peer access
    // on, mapped portable pinned memory otherwise) that outlive both kernels, which are
    // synchronised below before anything is freed.
    unsafe {
        b.stream
            .launch_builder(kb)
            .arg(&fb)
            .arg(&fa)
            .arg(&base)
            .arg(&n)
            .arg(&resp)
            .arg(&sb)
            .launch(cfg)
            .ctx(what)?;
    }
    let ms = a.timer.time_ms(&a.stream, || {
        // SAFETY: as above.
        unsafe {
            a.stream
                .launch_builder(ka)
                .arg(&fa)
                .arg(&fb)
                .arg(&base)
                .arg(&n)
                .arg(&init)
                .arg(&sa)
                .launch(cfg)
        }
        .map(|_| ())
        .ctx(what)
    })?;
    b.stream.synchronize().ctx(what)?;
    let st = [
        a.stream.clone_dtoh(&a.status).ctx(what)?[0],
        b.stream.clone_dtoh(&b.status).ctx(what)?[0],
    ];
    if st != [0, 0] {
        return Err(BenchError::Other(format!(
            "{}: a flag never arrived (gave up in round {} / {})",
            what(),
            st[0].max(st[1]),
            round_trips
        )));
    }
    Ok(ms)
}

/// One-way latency (µs): median GPU time of a short and a long run, difference per round trip ÷ 2.
fn latency_us(
    plan: &Plan,
    a: &mut Gpu,
    b: &mut Gpu,
    host: Option<u64>,
    epoch: &mut i32,
) -> Result<f64, BenchError> {
    let (n1, n2) = (plan.pingpong_round_trips / 4, plan.pingpong_round_trips);
    pingpong_ms(a, b, host, n1.max(1), epoch)?; // warm-up: module load, clocks
    let mut t = |n| -> Result<f64, BenchError> {
        let v = (0..plan.repeats.clamp(1, 5))
            .map(|_| pingpong_ms(a, b, host, n, epoch))
            .collect::<Result<Vec<_>, _>>()?;
        plan::stats(&v)
            .map(|s| s.median)
            .ok_or_else(|| BenchError::Other("bad ping-pong timing".to_string()))
    };
    let (t1, t2) = (t(n1.max(1))?, t(n2)?);
    plan::one_way_latency_us(t1, n1.max(1), t2, n2).ok_or_else(|| {
        BenchError::Other(format!(
            "ping-pong times do not grow with round trips ({t1} ms, {t2} ms)"
        ))
    })
}

fn compile_pingpong(err: &mut dyn Write, warnings: &mut Vec<String>) -> Option<cudarc::nvrtc::Ptx> {
    // SAFETY: only dlopen, as in `driver::probe`.
    if !unsafe { cudarc::nvrtc::sys::is_culib_present() } {
        let w =
            "p2p latency skipped: libnvrtc (CUDA toolkit runtime compiler) could not be loaded".to_string();
        let _ = writeln!(err, "warning: {w}");
        warnings.push(w);
        return None;
    }
    match cudarc::nvrtc::compile_ptx(PINGPONG_CU) {
        Ok(p) => Some(p),
        Err(e) => {
            let w = format!("p2p latency skipped: NVRTC could not compile the ping-pong kernel: {e}");
            let _ = writeln!(err, "warning: {w}");
            warnings.push(w);
            None
        }
    }
}

/// Where the peer-off ping-pong keeps its flags, and the next free flag value.
struct Flags {
    /// Device address of the mapped pinned host flags.
    host: Option<u64>,
    /// Flag values used so far (see [`PINGPONG_CU`]).
    epoch: i32,
}

/// Both directions of one pair in one peer-access state.
fn measure_pair(
    plan: &Plan,
    gpus: &mut [Gpu],
    (a, b): (usize, usize),
    peer: bool,
    flags: &mut Flags,
    records: &mut Vec<Record>,
    err: &mut dyn Write,
) -> Result<(), BenchError> {
    for (s, d) in [(a, b), (b, a)] {
        let (src, dst) = pair_mut(gpus, s, d);
        let gbps = copy_gbps(plan, src, dst)?;
        let _ = writeln!(err, "  p2p copy {s} -> {d} peer={peer}: {gbps:8.1} GB/s");
        records.push(Record::CopyBandwidth {
            path: "p2p".to_string(),
            src: Some(s as u32),
            dst: Some(d as u32),
            peer_access: Some(peer),
            size_bytes: plan.copy_bytes,
            gbps,
        });
        if src.kernel.is_some() {
            let us = latency_us(
                plan,
                src,
                dst,
                if peer { None } else { flags.host },
                &mut flags.epoch,
            )?;
            let _ = writeln!(err, "  p2p latency {s} -> {d} peer={peer}: {us:.2} us one way");
            records.push(Record::P2pLatency {
                src: s as u32,
                dst: d as u32,
                peer_access: Some(peer),
                one_way_us: us,
            });
        }
    }
    Ok(())
}

fn pair_mut(gpus: &mut [Gpu], i: usize, j: usize) -> (&mut Gpu, &mut Gpu) {
    if i < j {
        let (l, r) = gpus.split_at_mut(j);
        (&mut l[i], &mut r[0])
    } else {
        let (l, r) = gpus.split_at_mut(i);
        (&mut r[0], &mut l[j])
    }
}

/// Bandwidth and latency for every GPU pair, peer access off then on; `warnings` collects what was
/// skipped (latency without NVRTC, pairs without peer support).
pub fn run(
    ctxs: &[Arc<CudaContext>],
    plan: &Plan,
    records: &mut Vec<Record>,
    warnings: &mut Vec<String>,
    err: &mut dyn Write,
) -> Result<(), BenchError> {
    let ptx = compile_pingpong(err, warnings);
    let mut gpus = ctxs
        .iter()
        .map(|c| setup(c, plan, ptx.as_ref()))
        .collect::<Result<Vec<_>, _>>()?;
    // Mapped, portable pinned memory for the flags of the peer-off ping-pong (64 ints = 256 B).
    // SAFETY: zeroed below before any kernel reads it.
    let mut host_flags = unsafe {
        ctxs[0].alloc_pinned_with_flags::<i32>(64, CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE)
    }
    .ctx(|| "allocating mapped host flags".to_string())?;
    host_flags
        .as_mut_slice()
        .ctx(|| "zeroing host flags".to_string())?
        .fill(0);
    // With unified addressing (every 64-bit Linux CUDA platform) a mapped host pointer is also its
    // device address.
    let host = Some(host_flags.as_mut_ptr().ctx(|| "host flag address".to_string())? as u64);
    let mut flags = Flags { host, epoch: 0 };
    let n = gpus.len();
    for a in 0..n {
        for b in a + 1..n {
            measure_pair(plan, &mut gpus, (a, b), false, &mut flags, records, err)?;
            let can =
                driver::can_access_peer(&ctxs[a], &ctxs[b])? && driver::can_access_peer(&ctxs[b], &ctxs[a])?;
            if !can {
                let w = format!(
                    "p2p {a} <-> {b}: the driver reports no peer access; peer_access=true not measured"
                );
                let _ = writeln!(err, "warning: {w}");
                warnings.push(w);
                continue;
            }
            driver::set_peer_access(&ctxs[a], &ctxs[b], true)?;
            driver::set_peer_access(&ctxs[b], &ctxs[a], true)?;
            let r = measure_pair(plan, &mut gpus, (a, b), true, &mut flags, records, err);
            driver::set_peer_access(&ctxs[a], &ctxs[b], false)?;
            driver::set_peer_access(&ctxs[b], &ctxs[a], false)?;
            r?;
        }
    }
    Ok(())
}
