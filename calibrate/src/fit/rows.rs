//! The rows a fit uses: the `collective` records of measurement files, predicted by tpsim's flow
//! simulation (the code path of `tpsim collective`), and the `gemm` records, predicted by tpsim's
//! kernel cost (`tpsim_model::compute`: max(bytes ÷ achieved bandwidth, FLOPs ÷ achieved rate) + the
//! per-kernel fixed cost), which is how `mem_efficiency`, `flops_efficiency` and `kernel_overhead`
//! are fitted.

use super::FitError;
use crate::measurement::{MeasurementFile, ReadError, Record, SCHEMA};
use std::path::Path;
use tpsim::collective::Op as Collective;
use tpsim::comm::{Comm, Request};
use tpsim::launch::Launch;
use tpsim::scenario::{self, AllreduceBackend, Hardware, NcclEnv};

/// Operation of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    /// An allreduce or all-gather across `n_gpus`.
    Collective(Collective),
    /// One GEMM C[m×n] = A[m×k] · B[k×n] in a 2-byte dtype (bf16/fp16) on one GPU.
    Gemm { m: u64, n: u64, k: u64 },
    /// One memory-bound kernel reading `bytes` (0: an empty kernel) on one GPU.
    Stream { bytes: u64 },
}

impl Op {
    /// Bytes moved and FLOPs of a one-GPU kernel row (`None` for a collective).
    pub fn kernel_bytes_flops(self) -> Option<(f64, f64)> {
        match self {
            Op::Gemm { m, n, k } => Some(crate::predict::gemm_bytes_flops(m, n, k)),
            Op::Stream { bytes } => Some((bytes as f64, 0.0)),
            Op::Collective(_) => None,
        }
    }
}

/// One measured collective call.
#[derive(Debug, Clone)]
pub struct Row {
    /// `FILE#k op n=N size=S backend env…`: what `--holdout TEXT` matches and messages show.
    pub label: String,
    pub op: Op,
    pub n_gpus: usize,
    pub size_bytes: u64,
    pub measured_us: f64,
    /// The NCCL environment as given (`KEY=VALUE`), and parsed.
    pub env_args: Vec<String>,
    pub env: NcclEnv,
    pub request: Request,
    /// Issue #19 points 1-2: how the source launched its calls (eager unless the source used CUDA
    /// graphs); NCCL calls launched eagerly take at least the host's per-call cost.
    pub launch: Launch,
}

/// Reads one measurement file (schema [`SCHEMA`]).
pub fn read_file(path: &Path) -> Result<MeasurementFile, FitError> {
    MeasurementFile::read(path).map_err(|e| FitError::Input {
        file: path.display().to_string(),
        message: match e {
            ReadError::Io(m) => format!("cannot read: {m}"),
            ReadError::Parse { line, message, .. } => format!("line {line}: {message}"),
            ReadError::Schema(found) => format!("schema `{found}`: expected \"{SCHEMA}\""),
        },
    })
}

/// The error of a record whose operands exceed [`tpsim::collective::MAX_SIZE_BYTES`] (1 TiB, more
/// than any GPU holds: the limit `check` and `tpsim collective` apply).
fn too_large(what: &str) -> String {
    format!(
        "{what}: more bytes than any GPU holds (tpsim takes at most {})",
        tpsim::collective::MAX_SIZE_BYTES
    )
}

/// A row measured on one GPU without a collective (a GEMM or a streaming read).
fn one_gpu_row(label: String, op: Op, size_bytes: u64, measured_us: f64) -> Row {
    Row {
        label,
        op,
        n_gpus: 1,
        size_bytes,
        measured_us,
        env_args: Vec::new(),
        env: NcclEnv::default(),
        request: Request::Nccl,
        launch: Launch::Eager,
    }
}

/// The collective records of `m` (named `file` in labels and errors) as rows; other record kinds are
/// skipped. Errors for impossible values (non-positive or non-finite time, zero size or GPUs, an
/// unknown op or NCCL variable).
pub fn rows_of(file: &str, m: &MeasurementFile) -> Result<Vec<Row>, FitError> {
    let mut out = Vec::new();
    let filter = m.launch_filter();
    for (k, r) in m.records.iter().enumerate() {
        if let Record::Gemm {
            m: gm,
            n: gn,
            k: gk,
            dtype,
            time_us,
            launch,
        } = r
        {
            let bad = |message: String| FitError::Input {
                file: file.to_string(),
                message: format!("records[{k}]: {message}"),
            };
            if !filter.compared(launch.as_deref()).map_err(bad)? {
                continue;
            }
            // The hardware presets give the bf16 tensor rate only: other dtypes have no rate to fit.
            if !matches!(dtype.as_str(), "bf16" | "fp16") {
                continue;
            }
            if !(time_us.is_finite() && *time_us > 0.0) {
                return Err(bad(format!("time_us {time_us}: expected a time > 0 µs")));
            }
            if *gm == 0 || *gn == 0 || *gk == 0 {
                return Err(bad("expected m, n, k ≥ 1".into()));
            }
            // Operand bytes (bf16: A m×k, B k×n, C m×n) within the simulator's 1 TiB limit, checked
            // before any product can overflow (inputaudit).
            let size_bytes = gm
                .checked_mul(*gk)
                .zip(gk.checked_mul(*gn))
                .zip(gm.checked_mul(*gn))
                .and_then(|((a, b), c)| a.checked_add(b)?.checked_add(c)?.checked_mul(2))
                .filter(|s| *s <= tpsim::collective::MAX_SIZE_BYTES)
                .ok_or_else(|| bad(too_large(&format!("gemm m={gm} n={gn} k={gk}"))))?;
            out.push(one_gpu_row(
                format!("{file}#{k} gemm m={gm} n={gn} k={gk} {dtype}"),
                Op::Gemm {
                    m: *gm,
                    n: *gn,
                    k: *gk,
                },
                size_bytes,
                *time_us,
            ));
            continue;
        }
        if let Record::Stream {
            bytes,
            time_us,
            launch,
        } = r
        {
            let bad = |message: String| FitError::Input {
                file: file.to_string(),
                message: format!("records[{k}]: {message}"),
            };
            if !filter.compared(launch.as_deref()).map_err(bad)? {
                continue;
            }
            if !(time_us.is_finite() && *time_us > 0.0) {
                return Err(bad(format!("time_us {time_us}: expected a time > 0 µs")));
            }
            if *bytes > tpsim::collective::MAX_SIZE_BYTES {
                return Err(bad(too_large(&format!("stream bytes={bytes}"))));
            }
            out.push(one_gpu_row(
                format!("{file}#{k} stream bytes={bytes}"),
                Op::Stream { bytes: *bytes },
                *bytes,
                *time_us,
            ));
            continue;
        }
        let Record::Collective {
            op,
            n_gpus,
            size_bytes,
            time_us,
            backend,
            env,
            ..
        } = r
        else {
            continue;
        };
        let bad = |message: String| FitError::Input {
            file: file.to_string(),
            message: format!("records[{k}]: {message}"),
        };
        let Some(collective) = Collective::from_name(op) else {
            return Err(bad(format!("op `{op}`: expected allreduce or allgather")));
        };
        let op = Op::Collective(collective);
        if !(time_us.is_finite() && *time_us > 0.0) {
            return Err(bad(format!("time_us {time_us}: expected a time > 0 µs")));
        }
        if *n_gpus < 1 || *size_bytes == 0 {
            return Err(bad("expected n_gpus ≥ 1 and size_bytes ≥ 1".into()));
        }
        if *size_bytes > tpsim::collective::MAX_SIZE_BYTES {
            return Err(bad(too_large(&format!("size_bytes {size_bytes}"))));
        }
        let parsed = scenario::nccl_env_from_args(env).map_err(|e| bad(e.to_string()))?;
        let request = match backend.as_deref() {
            None | Some("nccl") | Some("torch") => Request::Nccl,
            Some("custom") if collective == Collective::Allreduce => {
                Request::Backend(AllreduceBackend::Custom)
            }
            Some(other) => {
                return Err(bad(format!(
                    "backend `{other}`: expected nccl, torch or custom (allreduce only)"
                )));
            }
        };
        let mut label = format!(
            "{file}#{k} {} n={n_gpus} size={size_bytes} {}",
            collective.as_str(),
            backend.as_deref().unwrap_or("nccl")
        );
        for e in env {
            label.push(' ');
            label.push_str(e);
        }
        out.push(Row {
            label,
            op,
            n_gpus: *n_gpus as usize,
            size_bytes: *size_bytes,
            measured_us: *time_us,
            env_args: env.clone(),
            env: parsed,
            request,
            launch: Launch::Eager,
        });
    }
    Ok(out)
}

/// Predicted time of every row, µs, on `hw`: one communicator per (GPU count, environment), each
/// size simulated on the flow network as `tpsim collective` does. Never below 1 ps.
pub fn predict(hw: &Hardware, rows: &[Row]) -> Vec<f64> {
    let mut out = vec![0.0; rows.len()];
    let mut done = vec![false; rows.len()];
    let rates = hw.compute_rates();
    for (r, (o, d)) in rows.iter().zip(out.iter_mut().zip(done.iter_mut())) {
        if let Some((bytes, flops)) = r.op.kernel_bytes_flops() {
            *o = rates.op_time(bytes, flops, 1).as_us_f64().max(1e-6);
            *d = true;
        }
    }
    for i in 0..rows.len() {
        if done[i] {
            continue;
        }
        let comm = Comm::new(hw, rows[i].n_gpus, &rows[i].env);
        for j in i..rows.len() {
            if done[j]
                || rows[j].n_gpus != rows[i].n_gpus
                || rows[j].env_args != rows[i].env_args
                || rows[j].env.version != rows[i].env.version
            {
                continue;
            }
            let r = &rows[j];
            // `simulate`, not the cached `allreduce`: a fit evaluates each parameter set once or
            // twice, so keeping every outcome for the life of the process only grows memory (3.4 GB
            // over the thousands of evaluations of `crossval allreduce`); the result is the same.
            let o = match r.op {
                Op::Collective(Collective::Allreduce) => comm.simulate(r.size_bytes, r.request),
                Op::Collective(Collective::Allgather) => comm.allgather(r.size_bytes),
                Op::Gemm { .. } | Op::Stream { .. } => continue,
            };
            // Issue #19 points 1-2: an eager NCCL call takes at least the host's per-call cost.
            let t = if o.algorithm.starts_with("nccl") {
                r.launch.per_call(o.time, hw.params.nccl_eager_launch)
            } else {
                o.time
            };
            out[j] = t.as_us_f64().max(1e-6);
            done[j] = true;
        }
    }
    out
}
