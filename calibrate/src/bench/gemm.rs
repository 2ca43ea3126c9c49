//! GEMM/GEMV at decode shapes (feature `cuda`): cuBLAS bf16 on GPU 0, Y[m×n] = X[m×k] · Wᵀ with W
//! stored n×k as the engines store linear weights, for m ∈ [`GEMM_M`] and the projection shapes of
//! [`shapes::gemm_projections`]. Weights rotate through enough copies to miss L2, as in a real decode
//! step. fp8 is not measured: cudarc's cuBLASLt wrapper has no fp8 matmul.
//!
//! Each shape is timed twice: `eager` (back-to-back cuBLAS calls from the host) and `graph` (the
//! same calls captured once in a CUDA graph and replayed, as SGLang and vLLM run decode). The first
//! H200 run (measurements/h200-1gpu-quick.json, eager only) showed why both are needed: small
//! shapes took 8–17 µs eager for 1–2 µs of weights, the host's launch rate rather than the GPU's
//! time, and a fit of those rows put `kernel_overhead` at 8 µs.

#![allow(unsafe_code)] // cuBLAS calls (see the SAFETY note)

use std::io::Write;
use std::sync::Arc;

use cudarc::cublas::sys::cublasOperation_t;
use cudarc::cublas::{CudaBlas, Gemm, GemmConfig};
use cudarc::driver::{CudaContext, CudaSlice};
use half::bf16;

use super::driver::{self, BenchError, Ctx, Timer};
use super::facts::DeviceInfo;
use super::plan::{self, Plan};
use super::shapes::{self, GEMM_M};
use crate::measurement::Record;

/// Time every decode shape on `ctx`'s GPU, appending one record per (m, n, k).
pub fn run(
    ctx: &Arc<CudaContext>,
    info: &DeviceInfo,
    plan: &Plan,
    records: &mut Vec<Record>,
    err: &mut dyn Write,
) -> Result<(), BenchError> {
    // SAFETY: only dlopen, as in `driver::probe`.
    driver::require_library(
        "libcublas",
        unsafe { cudarc::cublas::sys::is_culib_present() },
        " (CUDA toolkit's cuBLAS)",
    )?;
    let shapes = shapes::distinct_shapes(&shapes::gemm_projections().map_err(BenchError::Other)?);
    let gpu = ctx.ordinal();
    let on = |what: &str| format!("{what} on GPU {gpu}");
    let stream = ctx.new_stream().ctx(|| on("creating a stream"))?;
    let blas = CudaBlas::new(stream.clone())
        .map_err(|e| BenchError::Other(on(&format!("creating a cuBLAS handle: {e}"))))?;
    let timer = Timer::new(ctx)?;
    let m_max = GEMM_M.iter().copied().max().unwrap_or(1) as usize;
    for (n, k, names) in shapes {
        let (nu, ku) = (n as usize, k as usize);
        let copies = plan::rotation_copies(n * k * 2, info.l2_bytes);
        let fill = vec![bf16::from_f32(0.01); nu * ku];
        let mut ws: Vec<CudaSlice<bf16>> = Vec::new();
        for _ in 0..copies {
            let mut w = stream
                .alloc_zeros::<bf16>(nu * ku)
                .ctx(|| on("allocating GEMM weights"))?;
            stream
                .memcpy_htod(&fill, &mut w)
                .ctx(|| on("filling GEMM weights"))?;
            ws.push(w);
        }
        let mut x = stream
            .alloc_zeros::<bf16>(m_max * ku)
            .ctx(|| on("allocating GEMM input"))?;
        stream
            .memcpy_htod(&vec![bf16::from_f32(0.5); m_max * ku], &mut x)
            .ctx(|| on("filling GEMM input"))?;
        let mut y = stream
            .alloc_zeros::<bf16>(m_max * nu)
            .ctx(|| on("allocating GEMM output"))?;
        for m in GEMM_M {
            // Column-major cuBLAS view of the row-major problem: Yᵀ (n×m) = W (k×n, transposed) · Xᵀ (k×m).
            let cfg = GemmConfig {
                transa: cublasOperation_t::CUBLAS_OP_T,
                transb: cublasOperation_t::CUBLAS_OP_N,
                m: n as i32,
                n: m as i32,
                k: k as i32,
                alpha: bf16::ONE,
                lda: k as i32,
                ldb: k as i32,
                beta: bf16::ZERO,
                ldc: n as i32,
            };
            let mut call = 0usize;
            let mut gemm = || {
                let w = &ws[call % ws.len()];
                call += 1;
                // SAFETY: W holds n·k, X ≥ m·k and Y ≥ m·n bf16 elements, matching cfg's
                // dimensions and leading dimensions.
                unsafe { blas.gemm(cfg, w, &x, &mut y) }
                    .map_err(|e| BenchError::Other(on(&format!("cuBLAS gemm m={m} n={n} k={k}: {e}"))))
            };
            for _ in 0..plan.warmup.max(copies) {
                gemm()?;
            }
            // The graph holds enough calls to cycle through every weight copy.
            let in_graph = u64::from(plan.iters.max(copies).max(1));
            let (eager, replayed) = driver::eager_and_graph_us(
                &stream,
                &timer,
                plan.repeats,
                (u64::from(plan.iters), in_graph),
                &mut gemm,
            )?;
            for (launch, per_call) in [("eager", eager), ("graph", replayed)] {
                let s =
                    plan::stats(&per_call).ok_or_else(|| BenchError::Other("bad GEMM timing".to_string()))?;
                let _ = writeln!(
                    err,
                    "  gemm bf16 m={m:<2} n={n:<6} k={k:<6} {launch:<5} {:9.2} us  ({})",
                    s.median,
                    names.join(", ")
                );
                records.push(Record::Gemm {
                    m,
                    n,
                    k,
                    dtype: "bf16".to_string(),
                    time_us: s.median,
                    launch: Some(launch.to_string()),
                });
            }
        }
        stream.synchronize().ctx(|| on("synchronising"))?;
    }
    Ok(())
}
