//! Memory copy bandwidth on each GPU (feature `cuda`): device-to-device within the GPU, and
//! host-to-device / device-to-host from pinned host memory. Each figure is the best repeat.

#![allow(unsafe_code)] // pinned host allocation (see the SAFETY note)

use std::io::Write;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaStream};

use super::driver::{BenchError, Ctx, Timer};
use super::plan::{self, Plan};
use crate::measurement::Record;

/// Best per-copy time (ms) of `plan.repeats` batches of `plan.iters` copies, after warm-up.
pub(super) fn best_ms(
    plan: &Plan,
    stream: &Arc<CudaStream>,
    timer: &Timer,
    mut copy: impl FnMut() -> Result<(), BenchError>,
) -> Result<f64, BenchError> {
    for _ in 0..plan.warmup {
        copy()?;
    }
    let mut per_copy = Vec::new();
    for _ in 0..plan.repeats {
        let ms = timer.time_ms(stream, || (0..plan.iters).try_for_each(|_| copy()))?;
        per_copy.push(ms / f64::from(plan.iters.max(1)));
    }
    plan::stats(&per_copy)
        .map(|s| s.min)
        .ok_or_else(|| BenchError::Other("a copy timing was not a finite number".to_string()))
}

fn record(
    records: &mut Vec<Record>,
    err: &mut dyn Write,
    path: &str,
    gpu: u32,
    size_bytes: u64,
    gbps: Option<f64>,
) -> Result<(), BenchError> {
    // The host end of a copy has no GPU index.
    let (src, dst) = match path {
        "h2d" => (None, Some(gpu)),
        "d2h" => (Some(gpu), None),
        _ => (Some(gpu), Some(gpu)),
    };
    let gbps = gbps.ok_or_else(|| BenchError::Other(format!("{path} on GPU {gpu}: zero copy time")))?;
    let _ = writeln!(err, "  mem {path:<3} gpu {gpu}: {size_bytes} B  {gbps:8.1} GB/s");
    records.push(Record::CopyBandwidth {
        path: path.to_string(),
        src,
        dst,
        peer_access: None,
        size_bytes,
        gbps,
    });
    Ok(())
}

/// D2D, H2D and D2H bandwidth of every GPU, appended to `records` as they are measured.
pub fn run(
    ctxs: &[Arc<CudaContext>],
    plan: &Plan,
    records: &mut Vec<Record>,
    err: &mut dyn Write,
) -> Result<(), BenchError> {
    for ctx in ctxs {
        let gpu = ctx.ordinal() as u32;
        let on = |what: &str| format!("{what} on GPU {gpu}");
        let stream = ctx.new_stream().ctx(|| on("creating a stream"))?;
        let timer = Timer::new(ctx)?;

        let d2d = plan.d2d_bytes as usize;
        let src = stream
            .alloc_zeros::<u8>(d2d)
            .ctx(|| on("allocating the d2d source"))?;
        let mut dst = stream
            .alloc_zeros::<u8>(d2d)
            .ctx(|| on("allocating the d2d destination"))?;
        let ms = best_ms(plan, &stream, &timer, || {
            stream.memcpy_dtod(&src, &mut dst).ctx(|| on("d2d copy"))
        })?;
        record(
            records,
            err,
            "d2d",
            gpu,
            plan.d2d_bytes,
            plan::d2d_gbps(plan.d2d_bytes, ms),
        )?;
        drop((src, dst));

        let n = plan.copy_bytes as usize;
        // SAFETY: the allocation is filled below before any copy reads it; flags 0 = plain
        // page-locked memory (not write-combined, which would slow the host-side reads of D2H).
        let mut host =
            unsafe { ctx.alloc_pinned_with_flags::<u8>(n, 0) }.ctx(|| on("allocating pinned host memory"))?;
        host.as_mut_slice()
            .ctx(|| on("filling pinned host memory"))?
            .fill(1);
        let mut dev = stream
            .alloc_zeros::<u8>(n)
            .ctx(|| on("allocating the h2d buffer"))?;
        let ms = best_ms(plan, &stream, &timer, || {
            stream.memcpy_htod(&host, &mut dev).ctx(|| on("h2d copy"))
        })?;
        record(
            records,
            err,
            "h2d",
            gpu,
            plan.copy_bytes,
            plan::gbps(plan.copy_bytes, ms),
        )?;
        let ms = best_ms(plan, &stream, &timer, || {
            stream.memcpy_dtoh(&dev, &mut host).ctx(|| on("d2h copy"))
        })?;
        record(
            records,
            err,
            "d2h",
            gpu,
            plan.copy_bytes,
            plan::gbps(plan.copy_bytes, ms),
        )?;
        stream.synchronize().ctx(|| on("synchronising"))?;
    }
    Ok(())
}
