//! Memory-bound kernels and the per-kernel fixed cost (feature `cuda`): a streaming read of `bytes`
//! (16-byte loads, grid-stride, every thread folds what it read so the loads stay live) and an empty
//! kernel, each launched `eager` (back-to-back from the host) and `graph` (captured in one CUDA graph
//! and replayed, as engines run decode). The graph rows are what tpsim's kernel cost stands for:
//! bytes ÷ (datasheet bandwidth × mem_efficiency) + kernel_overhead; the empty kernel is that
//! formula at zero bytes, the launch gap alone.

#![allow(unsafe_code)] // kernel launches through cudarc's launch builder (see the SAFETY notes)

use std::io::Write;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, CudaStream, DevicePtr, LaunchConfig, PushKernelArg};

use super::driver::{self, BenchError, Ctx, Timer};
use super::facts::DeviceInfo;
use super::plan::{self, Plan};
use crate::measurement::Record;

/// The two kernels (NVRTC). `stream_read` reads `n16` 16-byte words from `addr`; the store under
/// an impossible condition keeps the compiler from dropping the loads.
const STREAM_CU: &str = r#"
extern "C" __global__ void empty_kernel() {}
extern "C" __global__ void stream_read(unsigned long long addr, unsigned long long n16, unsigned long long sink) {
    const uint4* p = (const uint4*)addr;
    unsigned int acc = 0;
    unsigned long long stride = (unsigned long long)gridDim.x * blockDim.x;
    for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n16; i += stride) {
        uint4 v = p[i];
        acc ^= v.x ^ v.y ^ v.z ^ v.w;
    }
    if (acc == 0x9e3779b9u) { *(unsigned int*)sink = acc; }
}
"#;

/// Threads per block of the streaming read.
const THREADS: u32 = 256;
/// Blocks per SM at most (enough resident warps to cover HBM latency; more only adds tail).
const BLOCKS_PER_SM: u64 = 8;
/// Calls in one graph at most (small reads would otherwise need thousands to span L2).
const MAX_CALLS: u64 = 1000;

/// Time the empty kernel and the streaming read at each of `plan.stream_sizes` on `ctx`'s GPU.
pub fn run(
    ctx: &Arc<CudaContext>,
    info: &DeviceInfo,
    plan: &Plan,
    records: &mut Vec<Record>,
    err: &mut dyn Write,
) -> Result<(), BenchError> {
    // SAFETY: only dlopen, as in `driver::probe`.
    driver::require_library(
        "libnvrtc",
        unsafe { cudarc::nvrtc::sys::is_culib_present() },
        " (CUDA toolkit runtime compiler)",
    )?;
    let gpu = ctx.ordinal();
    let on = |what: &str| format!("{what} on GPU {gpu}");
    let ptx = cudarc::nvrtc::compile_ptx(STREAM_CU)
        .map_err(|e| BenchError::Other(format!("NVRTC could not compile the streaming kernels: {e}")))?;
    let module = ctx.load_module(ptx).ctx(|| on("loading the streaming kernels"))?;
    let empty = module
        .load_function("empty_kernel")
        .ctx(|| on("loading empty_kernel"))?;
    let read = module
        .load_function("stream_read")
        .ctx(|| on("loading stream_read"))?;
    let stream = ctx.new_stream().ctx(|| on("creating a stream"))?;
    let timer = Timer::new(ctx)?;
    let largest = plan.stream_sizes.iter().copied().max().unwrap_or(0);
    // Reads rotate through a pool of at least 4× L2 so that each call's bytes come from HBM.
    let pool_bytes = largest.max(4 * info.l2_bytes).max(16);
    let pool = stream
        .alloc_zeros::<u8>(pool_bytes as usize)
        .ctx(|| on("allocating the streaming pool"))?;
    let sink = stream.alloc_zeros::<u32>(1).ctx(|| on("allocating the sink"))?;
    let (base, _g1) = pool.device_ptr(&stream);
    let (sink_addr, _g2) = sink.device_ptr(&stream);
    let sms = u64::from(info.sm_count.max(1));
    for &bytes in &plan.stream_sizes {
        let slots = (pool_bytes / bytes.max(1)).max(1);
        let calls = (2 * info.l2_bytes)
            .div_ceil(bytes.max(1))
            .clamp(u64::from(plan.iters.max(1)), MAX_CALLS);
        let mut call = 0u64;
        let mut launch_one = || -> Result<(), BenchError> {
            let k = call;
            call += 1;
            if bytes == 0 {
                launch(
                    &stream,
                    &empty,
                    LaunchConfig {
                        grid_dim: (1, 1, 1),
                        block_dim: (32, 1, 1),
                        shared_mem_bytes: 0,
                    },
                    None,
                )
            } else {
                let n16 = bytes / 16;
                let blocks = n16.div_ceil(u64::from(THREADS)).clamp(1, sms * BLOCKS_PER_SM) as u32;
                let addr = base + (k % slots) * bytes;
                launch(
                    &stream,
                    &read,
                    LaunchConfig {
                        grid_dim: (blocks, 1, 1),
                        block_dim: (THREADS, 1, 1),
                        shared_mem_bytes: 0,
                    },
                    Some((addr, n16, sink_addr)),
                )
            }
            .map_err(|e| BenchError::Other(on(&format!("launching the {bytes}-byte read: {e}"))))
        };
        for _ in 0..plan.warmup {
            launch_one()?;
        }
        let (eager, replayed) =
            driver::eager_and_graph_us(&stream, &timer, plan.repeats, (calls, calls), &mut launch_one)?;
        for (launch, per_call) in [("eager", eager), ("graph", replayed)] {
            let s =
                plan::stats(&per_call).ok_or_else(|| BenchError::Other("bad kernel timing".to_string()))?;
            let gbps = plan::gbps(bytes, s.median / 1e3).unwrap_or(0.0);
            let _ = writeln!(
                err,
                "  stream read {bytes:>11} B {launch:<5} {:9.2} us  {gbps:8.1} GB/s",
                s.median
            );
            records.push(Record::Stream {
                bytes,
                time_us: s.median,
                launch: Some(launch.to_string()),
            });
        }
    }
    stream.synchronize().ctx(|| on("synchronising"))?;
    Ok(())
}

/// Launch `f` on `stream`: the empty kernel (no arguments) or the streaming read (address, 16-byte
/// words, sink address).
fn launch(
    stream: &Arc<CudaStream>,
    f: &CudaFunction,
    cfg: LaunchConfig,
    args: Option<(u64, u64, u64)>,
) -> Result<(), cudarc::driver::DriverError> {
    let mut b = stream.launch_builder(f);
    let (addr, n16, sink);
    if let Some(a) = args {
        (addr, n16, sink) = a;
        b.arg(&addr).arg(&n16).arg(&sink);
    }
    // SAFETY: the empty kernel takes no parameters; the streaming read takes (u64, u64, u64) as
    // pushed, its address range [addr, addr + 16·n16) lies inside the pool (slots × bytes ≤ pool)
    // and the sink is a live 4-byte allocation; both outlive every launch (synchronised before the
    // function returns).
    unsafe { b.launch(cfg) }.map(|_| ())
}
