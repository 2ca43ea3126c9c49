//! NCCL allreduce sweep (feature `cuda`, ≥ 2 GPUs): one communicator per GPU from
//! `ncclCommInitAll` (cudarc `Comm::from_devices`), bf16 in-place sum, all ranks enqueued inside
//! one NCCL group per call, timed with CUDA events on every rank; the slowest rank's time counts.

#![allow(unsafe_code)] // the libnccl probe (see the SAFETY note)

use std::io::Write;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream};
use cudarc::nccl::{Comm, ReduceOp, group_end, group_start};
use half::bf16;

use super::driver::{self, BenchError, Ctx, Timer};
use super::plan::{self, Plan};
use crate::measurement::Record;

fn nccl_err(what: &str, e: impl std::fmt::Debug) -> BenchError {
    BenchError::Other(format!("{what}: NCCL error {e:?}"))
}

/// One allreduce of the first `count` elements of every rank's buffer, as one NCCL group.
fn allreduce(comms: &[Comm], bufs: &mut [CudaSlice<bf16>], count: usize) -> Result<(), BenchError> {
    group_start().map_err(|e| nccl_err("ncclGroupStart", e))?;
    let mut first_err = None;
    for (comm, buf) in comms.iter().zip(bufs.iter_mut()) {
        let mut view = buf.slice_mut(..count);
        if let Err(e) = comm.all_reduce_in_place(&mut view, &ReduceOp::Sum) {
            first_err.get_or_insert(e);
        }
    }
    // The group is closed even after a failed enqueue, so NCCL is left in a usable state.
    group_end().map_err(|e| nccl_err("ncclGroupEnd", e))?;
    match first_err {
        Some(e) => Err(nccl_err("ncclAllReduce", e)),
        None => Ok(()),
    }
}

/// The `NCCL_*` environment in force, sorted, for the records.
fn nccl_env() -> Vec<String> {
    let mut v: Vec<String> = std::env::vars()
        .filter(|(k, _)| k.starts_with("NCCL_"))
        .map(|(k, v)| format!("{k}={v}"))
        .collect();
    v.sort();
    v
}

/// Allreduce over all GPUs at every size of `plan.sizes`, appending one record per size.
pub fn run(
    ctxs: &[Arc<CudaContext>],
    plan: &Plan,
    records: &mut Vec<Record>,
    err: &mut dyn Write,
) -> Result<(), BenchError> {
    // SAFETY: only dlopen, as in `driver::probe`.
    let present = unsafe { cudarc::nccl::sys::is_culib_present() };
    driver::require_library(
        "libnccl.so",
        present,
        " (cudarc looks for `libnccl.so`, not `libnccl.so.2`: install the NCCL development package or \
         point LD_LIBRARY_PATH at a directory with a libnccl.so link, as calibrate/run-on-gpu.sh does)",
    )?;
    let n = ctxs.len();
    let streams = ctxs
        .iter()
        .map(|c| {
            c.new_stream()
                .ctx(|| format!("creating a stream on GPU {}", c.ordinal()))
        })
        .collect::<Result<Vec<Arc<CudaStream>>, _>>()?;
    let comms = Comm::from_devices(streams.clone()).map_err(|e| nccl_err("ncclCommInitAll", e))?;
    let max_elems = plan.sizes.hi.div_ceil(2).max(1) as usize;
    let mut bufs = streams
        .iter()
        .map(|s| {
            s.alloc_zeros::<bf16>(max_elems)
                .ctx(|| "allocating allreduce buffers".to_string())
        })
        .collect::<Result<Vec<_>, _>>()?;
    let timers = ctxs.iter().map(Timer::new).collect::<Result<Vec<_>, _>>()?;
    let env = nccl_env();
    let sync = |what: &str| -> Result<(), BenchError> {
        streams
            .iter()
            .try_for_each(|s| s.synchronize().ctx(|| what.to_string()))
    };
    for size in plan.sizes.sizes() {
        let count = ((size / 2).max(1) as usize).min(max_elems);
        let size_bytes = count as u64 * 2;
        for _ in 0..plan.warmup {
            allreduce(&comms, &mut bufs, count)?;
        }
        sync("allreduce warm-up")?;
        let mut per_call = Vec::new();
        for _ in 0..plan.repeats {
            for (t, s) in timers.iter().zip(&streams) {
                t.start(s)?;
            }
            for _ in 0..plan.iters {
                allreduce(&comms, &mut bufs, count)?;
            }
            let mut slowest = 0.0f64;
            for (t, s) in timers.iter().zip(&streams) {
                slowest = slowest.max(t.stop_ms(s)?);
            }
            per_call.push(slowest * 1e3 / f64::from(plan.iters.max(1)));
        }
        let s =
            plan::stats(&per_call).ok_or_else(|| BenchError::Other("bad allreduce timing".to_string()))?;
        let busbw = plan::allreduce_busbw_gbps(size_bytes, s.median, n as u32);
        let _ = writeln!(
            err,
            "  nccl allreduce n={n} {size_bytes:>10} B {:10.2} us  busbw {:7.2} GB/s",
            s.median,
            busbw.unwrap_or(0.0)
        );
        records.push(Record::Collective {
            op: "allreduce".to_string(),
            n_gpus: n as u32,
            size_bytes,
            time_us: s.median,
            busbw_gbps: busbw,
            backend: Some("nccl".to_string()),
            env: env.clone(),
            placement: Some("in-place".to_string()),
        });
    }
    sync("allreduce")?;
    Ok(())
}
