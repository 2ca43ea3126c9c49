//! `tpsim collective` (one collective across sizes, in nccl-tests' columns) and `tpsim topo`
//! (the `nvidia-smi topo -m` matrix plus NCCL's transport per pair).

use crate::allreduce::CustomAlgo;
use crate::comm::{Comm, Request};
use crate::scenario::{self, AllreduceBackend, Hardware, NcclEnv, ScenarioError};
use serde::Serialize;
use std::path::Path;
use tpsim_model::hw::{PathClass, Transport};
use tpsim_model::quick_reduce::Regime;
use tpsim_model::units::{Bytes, UnitError};

/// The collective `tpsim collective --op` runs. Serialized as its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Op {
    Allreduce,
    Allgather,
}

impl Op {
    /// Every collective, in `--op`'s documented order.
    pub const ALL: [Op; 2] = [Op::Allreduce, Op::Allgather];

    /// The name `--op` and measurement files use.
    pub fn as_str(self) -> &'static str {
        match self {
            Op::Allreduce => "allreduce",
            Op::Allgather => "allgather",
        }
    }

    /// The collective named `name` (`allreduce` or `allgather`), or None.
    pub fn from_name(name: &str) -> Option<Op> {
        Op::ALL.into_iter().find(|o| o.as_str() == name)
    }

    /// `--op`'s value, with the command's error for any other name.
    pub fn parse(name: &str) -> Result<Op, CmdError> {
        Op::from_name(name)
            .ok_or_else(|| CmdError::Usage(format!("--op `{name}`: expected allreduce or allgather")))
    }
}

impl std::fmt::Display for Op {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// Where the hardware and the NCCL environment come from.
#[derive(Debug, Clone, Default)]
pub struct Source {
    pub scenario: Option<std::path::PathBuf>,
    pub hardware: Option<String>,
    /// A profile (`--profile`, with `--hardware` only) applied over the preset's parameters.
    pub profile: Option<std::path::PathBuf>,
    pub gpus: Option<usize>,
    pub env: Vec<String>,
}

/// The box, the ranks, the environment and the backend a command works on.
#[derive(Debug)]
pub struct Setup {
    pub hardware: Hardware,
    pub gpus: usize,
    pub env: NcclEnv,
    pub backend: AllreduceBackend,
    /// The engine's custom allreduce cutoff (issue #17, 3; default without a scenario).
    pub custom: crate::comm::CustomLimits,
    /// Issue #19 points 1-2: how the NCCL calls are launched (`--launch`; eager by default, as
    /// nccl-tests without `-G`).
    pub launch: crate::launch::Launch,
}

/// Errors of these commands (all bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CmdError {
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("--sizes `{input}`: {source}")]
    Size { input: String, source: UnitError },
    #[error("--sizes `{0}`: expected a list like 4K,56K,1M or a range 4K..256M (powers of two)")]
    Range(String),
    #[error("--sizes `{0}`: expected sizes of at most 1T ({MAX_SIZE_BYTES} bytes)")]
    TooLarge(String),
    #[error("{0}")]
    Usage(String),
    #[error("--compare {file}: {message}")]
    Compare { file: String, message: String },
}

impl Source {
    /// Resolves the setup: a scenario's hardware, TP size, backend and NCCL environment, or a
    /// hardware preset with `--gpus`; `--env` adds to (and overrides) the environment.
    pub fn setup(&self) -> Result<Setup, CmdError> {
        let mut custom = crate::comm::CustomLimits::default();
        let (hardware, tp, mut env, backend) = match (&self.scenario, &self.hardware) {
            (Some(_), None) if self.profile.is_some() => {
                return Err(CmdError::Usage(
                    "--profile goes with --hardware; a scenario names its profile in `[hardware] profile = \"…\"`".into(),
                ));
            }
            (Some(p), None) => {
                let s = scenario::load(p)?;
                custom = s.engine.custom_limits;
                (s.hardware, s.engine.tp as usize, s.engine.env, s.engine.allreduce)
            }
            (None, Some(h)) => {
                let profile = self.profile.as_ref().map(|p| p.display().to_string());
                let hw = scenario::hardware_from_args(h, profile.as_deref())?;
                let n = hw.topology.gpu_count();
                (hw, n, NcclEnv::default(), AllreduceBackend::Nccl)
            }
            (Some(_), Some(_)) => {
                return Err(CmdError::Usage("give a SCENARIO or --hardware, not both".into()));
            }
            (None, None) => {
                return Err(CmdError::Usage(
                    "give a SCENARIO file or --hardware PRESET".into(),
                ));
            }
        };
        if !self.env.is_empty() {
            let extra = scenario::nccl_env_from_args(&self.env)?;
            env.p2p_level = extra.p2p_level.or(env.p2p_level);
            env.p2p_disable |= extra.p2p_disable;
            env.proto_enable = extra.proto_enable.or(env.proto_enable);
            env.algo_enable = extra.algo_enable.or(env.algo_enable);
            env.min_nchannels = extra.min_nchannels.or(env.min_nchannels);
            env.max_nchannels = extra.max_nchannels.or(env.max_nchannels);
            // Issue #17 (3): the other variables (NCCL_GRAPH_FILE relative to the current directory).
            env.nthreads = extra.nthreads.or(env.nthreads);
            env.ll128_nthreads = extra.ll128_nthreads.or(env.ll128_nthreads);
            for (b, e) in env.buffsize.iter_mut().zip(extra.buffsize) {
                *b = e.or(*b);
            }
            env.graph = extra.graph.or(env.graph);
        }
        let gpus = self.gpus.unwrap_or(tp);
        let have = hardware.topology.gpu_count();
        if gpus < 1 || gpus > have {
            return Err(CmdError::Usage(format!(
                "--gpus {gpus}: the hardware has {have} GPUs (expected 1 to {have})"
            )));
        }
        Ok(Setup {
            hardware,
            gpus,
            env,
            backend,
            custom,
            launch: crate::launch::Launch::Eager,
        })
    }
}

/// The largest collective message or copy tpsim simulates (1 TiB): more than any GPU's memory (the
/// largest bundled preset, MI355X, has 288 GiB), so no run or measurement holds one; far larger ones
/// would overflow the simulated network's picosecond clock (u64), and a range up to 2^64 − 1 never
/// ended (inputaudit).
pub const MAX_SIZE_BYTES: u64 = 1 << 40;

/// Parses `--sizes`: a comma list of sizes (`4K,56K,1M`, plain bytes allowed) and/or ranges
/// `A..B` that step by powers of two, as nccl-tests' `-b A -e B -f 2` does.
pub fn parse_sizes(spec: &str) -> Result<Vec<u64>, CmdError> {
    let mut out = Vec::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let parse = |t: &str| {
            let b = t.parse::<Bytes>().map(|b| b.0).map_err(|e| CmdError::Size {
                input: t.to_string(),
                source: e,
            })?;
            if b > MAX_SIZE_BYTES {
                return Err(CmdError::TooLarge(t.to_string()));
            }
            Ok(b)
        };
        if let Some((a, b)) = part.split_once("..") {
            let (mut x, hi) = (parse(a)?, parse(b)?);
            if x == 0 || hi < x {
                return Err(CmdError::Range(part.to_string()));
            }
            while x <= hi {
                out.push(x);
                x = x.saturating_mul(2);
            }
        } else {
            out.push(parse(part)?);
        }
    }
    if out.is_empty() {
        return Err(CmdError::Range(spec.to_string()));
    }
    Ok(out)
}

/// The `--algo` names.
pub fn parse_algo(name: &str, backend: AllreduceBackend) -> Result<Request, CmdError> {
    Ok(match name {
        "backend" => Request::Backend(backend),
        "nccl" => Request::Nccl,
        "nccl-analytic" => Request::NcclAnalytic,
        "custom-oneshot" => Request::Custom(CustomAlgo::OneShot),
        "custom-pcie-oneshot" => Request::Custom(CustomAlgo::PcieOneShot),
        "custom-twoshot" => Request::Custom(CustomAlgo::TwoShot),
        "custom-push" => Request::Custom(CustomAlgo::Push),
        "custom-staged-push" => Request::Custom(CustomAlgo::StagedPush),
        // Issue #19 point 3: FlashInfer's PCIe-IPC allreduce on its seed policy's kernel.
        "flashinfer-pcie-ipc" => Request::Custom(CustomAlgo::FlashinferIpc),
        // Issue #17 point 4: vLLM's QuickReduce (ROCm), by VLLM_ROCM_QUICK_REDUCE_QUANTIZATION level.
        "quickreduce-fp" => Request::Custom(CustomAlgo::QuickReduce(Regime::Fp)),
        "quickreduce-int8" => Request::Custom(CustomAlgo::QuickReduce(Regime::Int8)),
        "quickreduce-int6" => Request::Custom(CustomAlgo::QuickReduce(Regime::Int6)),
        "quickreduce-int4" => Request::Custom(CustomAlgo::QuickReduce(Regime::Int4)),
        other => {
            return Err(CmdError::Usage(format!(
                "--algo `{other}`: expected backend, nccl, nccl-analytic, custom-oneshot, custom-pcie-oneshot, custom-twoshot, custom-push, custom-staged-push, flashinfer-pcie-ipc or quickreduce-fp/-int8/-int6/-int4"
            )));
        }
    })
}

/// One row of `tpsim collective`.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    pub size_bytes: u64,
    pub time_us: f64,
    /// GB/s, 10^9 B/s: size / time.
    pub algbw_gbps: f64,
    /// algbw × 2(n − 1)/n for allreduce, × (n − 1)/n for all-gather (nccl-tests' convention).
    pub busbw_gbps: f64,
    pub algorithm: String,
    pub protocol: String,
    pub channels: u32,
    pub bottleneck: Option<String>,
    pub measured_us: Option<f64>,
    /// (predicted − measured) / measured.
    pub error: Option<f64>,
    /// Issue #19 point 6: 95 % interval of `time_us` from the profile's fitted intervals; absent
    /// without them (crate::intervals_collective).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_us_interval: Option<crate::report::intervals::FigureInterval>,
}

/// The whole `--json` answer.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub hardware: String,
    /// The profile applied over the preset's parameters (file), or null.
    pub profile: Option<String>,
    pub gpus: usize,
    pub op: Op,
    pub transport: Transport,
    /// Ring hops on NCCL's SHM transport (NCCL picks per connection; the others are P2P).
    pub shm_hops: usize,
    pub p2p_level: PathClass,
    pub nccl_graph: String,
    /// Issue #19 points 1-2: eager or graph launch, and the NCCL release whose tables applied.
    pub launch: crate::launch::Launch,
    pub nccl_version: String,
    pub rows: Vec<Row>,
    /// Issue #19 point 1 (shmhost19): what the figures rest on that the box did not give (SHM
    /// costed without host facts); printed on standard error, omitted from `--json` when empty.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    pub median_abs_error: Option<f64>,
    pub worst_abs_error: Option<f64>,
    /// Issue #19 point 6: how the rows' `time_us_interval`s were combined ("single", "fit",
    /// "independent"), or "none: no fitted intervals in the profile"; absent without a profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<String>,
}

/// Runs the collective for each size.
pub fn run(
    setup: &Setup,
    op: Op,
    sizes: &[u64],
    req: Request,
    compare: Option<(&Path, Option<&str>)>,
) -> Result<Report, CmdError> {
    // Issue #17 point 4: QuickReduce only where vLLM runs it.
    if let Request::Custom(CustomAlgo::QuickReduce(_)) = req
        && let Some(why) = crate::quick_reduce::refusal(&setup.hardware, setup.gpus)
    {
        return Err(CmdError::Usage(format!("--algo quickreduce-*: {why}")));
    }
    let comm = Comm::new(&setup.hardware, setup.gpus, &setup.env).with_custom(setup.custom);
    let n = setup.gpus as f64;
    let measured = match compare {
        Some((p, filter)) => Some(read_compare(p, filter)?),
        None => None,
    };
    let mut rows = Vec::new();
    for &size in sizes {
        let o = match op {
            Op::Allreduce => comm.allreduce(size, req),
            Op::Allgather if req == Request::NcclAnalytic => {
                return Err(CmdError::Usage(
                    "--model nccl-analytic covers allreduce only".into(),
                ));
            }
            Op::Allgather => comm.allgather(size),
        };
        // Issue #19 points 1-2: an NCCL call launched eagerly takes at least the host's per-call
        // cost (custom kernels are plain launches: the engine's cost, not NCCL's enqueue).
        let t = if o.algorithm.starts_with("nccl") {
            setup
                .launch
                .per_call(o.time, setup.hardware.params.nccl_eager_launch)
                .as_us_f64()
        } else {
            o.time.as_us_f64()
        };
        let algbw = if t > 0.0 { size as f64 / (t * 1e3) } else { 0.0 };
        let factor = if n > 1.0 {
            if op == Op::Allreduce {
                2.0 * (n - 1.0) / n
            } else {
                (n - 1.0) / n
            }
        } else {
            1.0
        };
        let m = measured
            .as_ref()
            .and_then(|v| v.iter().find(|(s, _)| *s == size).map(|(_, t)| *t));
        rows.push(Row {
            size_bytes: size,
            time_us: t,
            algbw_gbps: algbw,
            busbw_gbps: algbw * factor,
            algorithm: o.algorithm,
            protocol: o.protocol,
            channels: o.channels,
            bottleneck: o.bottleneck,
            measured_us: m,
            error: m.filter(|m| *m > 0.0).map(|m| (t - m) / m),
            time_us_interval: None,
        });
    }
    // Issue #19 point 6.
    let intervals = crate::intervals_collective::attach(setup, op, req, &mut rows);
    let mut errs: Vec<f64> = rows.iter().filter_map(|r| r.error.map(f64::abs)).collect();
    errs.sort_by(f64::total_cmp);
    let median = (!errs.is_empty()).then(|| {
        let k = errs.len();
        if k % 2 == 1 {
            errs[k / 2]
        } else {
            (errs[k / 2 - 1] + errs[k / 2]) / 2.0
        }
    });
    Ok(Report {
        hardware: setup.hardware.name.clone(),
        profile: setup
            .hardware
            .profile
            .as_ref()
            .map(|p| p.file.display().to_string()),
        gpus: setup.gpus,
        op,
        transport: comm.transport,
        shm_hops: comm
            .hop_transports
            .iter()
            .filter(|&&t| t == Transport::Shm)
            .count(),
        p2p_level: comm.level,
        nccl_graph: format!(
            "{} channel(s) × {:.1} GB/s{}",
            comm.graph.channels,
            comm.graph.bw_per_channel_gbps,
            if comm.graph.simple_order_fallback {
                " (search failed: simple order)"
            } else {
                ""
            }
        ),
        launch: setup.launch,
        nccl_version: setup.env.version.to_string(),
        rows,
        // Only where an NCCL ring runs: a forced custom kernel moves no data through host memory.
        warnings: match req {
            Request::Custom(_) => Vec::new(),
            _ => crate::comm::shm_without_host_warning(&setup.hardware, &[setup.gpus], &setup.env)
                .into_iter()
                .collect(),
        },
        median_abs_error: median,
        worst_abs_error: errs.last().copied(),
        intervals,
    })
}

/// Reads `size_bytes` and `time_us` columns of a TSV with a header (tests/data/allreduce.tsv's format).
fn read_compare(p: &Path, filter: Option<&str>) -> Result<Vec<(u64, f64)>, CmdError> {
    let file = p.display().to_string();
    let text = crate::files::read_text(p).map_err(|e| CmdError::Compare {
        file: file.clone(),
        message: e.to_string(),
    })?;
    let mut lines = text.lines();
    let header: Vec<&str> = lines.next().unwrap_or("").split('\t').collect();
    let col = |name: &str| header.iter().position(|h| h.trim() == name);
    let (Some(si), Some(ti)) = (col("size_bytes"), col("time_us")) else {
        return Err(CmdError::Compare {
            file,
            message: "expected a header with `size_bytes` and `time_us` columns".into(),
        });
    };
    let mut out = Vec::new();
    for (i, line) in lines.enumerate() {
        if filter.is_some_and(|f| !line.contains(f)) {
            continue;
        }
        let f: Vec<&str> = line.split('\t').collect();
        let (Some(s), Some(t)) = (f.get(si), f.get(ti)) else {
            continue;
        };
        if s.trim().is_empty() || t.trim().is_empty() {
            continue;
        }
        let s: u64 = s.trim().parse().map_err(|_| CmdError::Compare {
            file: file.clone(),
            message: format!("line {}: size_bytes `{s}` is not an integer", i + 2),
        })?;
        let t: f64 = t
            .trim()
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t >= 0.0)
            .ok_or_else(|| CmdError::Compare {
                file: file.clone(),
                message: format!("line {}: time_us `{t}` is not a time in µs", i + 2),
            })?;
        out.push((s, t));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_names_round_trip() {
        for op in Op::ALL {
            assert_eq!(Op::parse(op.as_str()).unwrap(), op);
            assert_eq!(serde_json::to_value(op).unwrap(), op.as_str());
        }
        assert!(
            matches!(Op::parse("broadcast"), Err(CmdError::Usage(m)) if m == "--op `broadcast`: expected allreduce or allgather")
        );
    }
}
