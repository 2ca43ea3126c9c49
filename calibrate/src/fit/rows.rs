//! The rows a fit uses: the `collective` records of measurement files, and their predictions by
//! tpsim's flow simulation (the code path of `tpsim collective`).

use super::FitError;
use crate::measurement::{MeasurementFile, Record, SCHEMA};
use std::path::Path;
use tpsim::comm::{Comm, Request};
use tpsim::scenario::{self, AllreduceBackend, Hardware, NcclEnv};

/// Collective operation of a row.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Op {
    Allreduce,
    Allgather,
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
}

/// Reads one measurement file (schema [`SCHEMA`]).
pub fn read_file(path: &Path) -> Result<MeasurementFile, FitError> {
    let file = path.display().to_string();
    let text = std::fs::read_to_string(path).map_err(|e| FitError::Input {
        file: file.clone(),
        message: format!("cannot read: {e}"),
    })?;
    let m: MeasurementFile = serde_json::from_str(&text).map_err(|e| FitError::Input {
        file: file.clone(),
        message: format!("line {}: {e}", e.line()),
    })?;
    if m.schema != SCHEMA {
        return Err(FitError::Input {
            file,
            message: format!("schema `{}`: expected \"{SCHEMA}\"", m.schema),
        });
    }
    Ok(m)
}

/// The collective records of `m` (named `file` in labels and errors) as rows; other record kinds are
/// skipped. Errors for impossible values (non-positive or non-finite time, zero size or GPUs, an
/// unknown op or NCCL variable).
pub fn rows_of(file: &str, m: &MeasurementFile) -> Result<Vec<Row>, FitError> {
    let mut out = Vec::new();
    for (k, r) in m.records.iter().enumerate() {
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
        let op = match op.as_str() {
            "allreduce" => Op::Allreduce,
            "allgather" => Op::Allgather,
            other => return Err(bad(format!("op `{other}`: expected allreduce or allgather"))),
        };
        if !(time_us.is_finite() && *time_us > 0.0) {
            return Err(bad(format!("time_us {time_us}: expected a time > 0 µs")));
        }
        if *n_gpus < 1 || *size_bytes == 0 {
            return Err(bad("expected n_gpus ≥ 1 and size_bytes ≥ 1".into()));
        }
        let parsed = scenario::nccl_env_from_args(env).map_err(|e| bad(e.to_string()))?;
        let request = match backend.as_deref() {
            None | Some("nccl") | Some("torch") => Request::Nccl,
            Some("custom") if op == Op::Allreduce => Request::Backend(AllreduceBackend::Custom),
            Some(other) => {
                return Err(bad(format!(
                    "backend `{other}`: expected nccl, torch or custom (allreduce only)"
                )));
            }
        };
        let mut label = format!(
            "{file}#{k} {} n={n_gpus} size={size_bytes} {}",
            match op {
                Op::Allreduce => "allreduce",
                Op::Allgather => "allgather",
            },
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
        });
    }
    Ok(out)
}

/// Predicted time of every row, µs, on `hw`: one communicator per (GPU count, environment), each
/// size simulated on the flow network as `tpsim collective` does. Never below 1 ps.
pub fn predict(hw: &Hardware, rows: &[Row]) -> Vec<f64> {
    let mut out = vec![0.0; rows.len()];
    let mut done = vec![false; rows.len()];
    for i in 0..rows.len() {
        if done[i] {
            continue;
        }
        let comm = Comm::new(hw, rows[i].n_gpus, &rows[i].env);
        for j in i..rows.len() {
            if done[j] || rows[j].n_gpus != rows[i].n_gpus || rows[j].env_args != rows[i].env_args {
                continue;
            }
            let r = &rows[j];
            let o = match r.op {
                Op::Allreduce => comm.allreduce(r.size_bytes, r.request),
                Op::Allgather => comm.allgather(r.size_bytes),
            };
            out[j] = o.time.as_us_f64().max(1e-6);
            done[j] = true;
        }
    }
    out
}
