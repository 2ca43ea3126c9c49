//! `tpsim-calibrate check`: tpsim's prediction against every measured record it can predict.
//!
//! - `Collective` records: the same library call `tpsim collective` makes (`tpsim::collective::run`
//!   on the scenario's or preset's box, the record's GPU count and NCCL environment plus `--env`),
//!   so a row's error equals `tpsim collective --compare` on the same size.
//! - `EngineMemory` records: the KV tokens of the scenario's memory plan (`tpsim memory`), as the
//!   scenario states it (its `[engine.observed]` values included, the record's are not injected).
//! - `Gemm` records (bf16/fp16): the kernel cost the decode passes use, with the hardware's (or
//!   profile's) efficiencies and curves (class `default`), [`crate::predict::gemm_us`].
//! - `CopyBandwidth` records within one GPU (`d2d`): 2 × size through the kernel cost;
//!   between two GPUs with peer access: one flow between the pair on the
//!   box's flow network; `P2pLatency` records: the fabric's flag latency (staged without peer
//!   access), [`crate::predict`].
//! - `DecodeThroughput` records: `tpsim run` of the scenario with the workload's concurrency (and,
//!   when the record fixed them, prompt and output lengths) set to the record's; decode tok/s
//!   (SGLang's "gen throughput") or end-to-end output tok/s, as the record's `measure` says.
//!
//! The error is signed, (predicted − measured) / measured. The gate is the median |error| over
//! predicted rows; the worst ratio is max(predicted/measured, measured/predicted).

use crate::measurement::{MeasurementFile, ReadError, Record, SCHEMA};
use crate::predict;
use serde::Serialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use tpsim::collective::{self, CmdError};
use tpsim::comm::Request;
use tpsim::scenario::{self, AllreduceBackend, EngineKind, LengthSpec, Scenario};

/// What the predictions run on.
#[derive(Debug, Clone, Default)]
pub struct Target {
    pub scenario: Option<PathBuf>,
    pub hardware: Option<String>,
    /// A hardware profile over the preset (with `hardware` only; a scenario names its own in
    /// `[hardware] profile`), as `tpsim collective --profile` applies it.
    pub profile: Option<PathBuf>,
    /// Extra NCCL environment (`KEY=VALUE`) for collective rows.
    pub env: Vec<String>,
}

/// Errors of `check` (all bad input: exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum CheckError {
    #[error("{file}: {message}")]
    Read { file: String, message: String },
    #[error("{file}: schema `{found}`: expected `{SCHEMA}`")]
    Schema { file: String, found: String },
    #[error("{0}")]
    Target(#[from] CmdError),
    #[error("{0}")]
    Scenario(#[from] scenario::ScenarioError),
    #[error("none of the {0} records can be predicted (see the skipped list); nothing to check")]
    Nothing(usize),
}

/// One record's row.
#[derive(Debug, Clone, Serialize)]
pub struct Row {
    /// 1-based position over all records of all files, in the order given.
    pub index: usize,
    pub file: String,
    pub kind: &'static str,
    /// What was measured, in words (`allreduce 8192 B on 4 GPUs, out-of-place`).
    pub what: String,
    /// Unit of `measured` and `predicted`: `us`, `tokens` or `tok/s`.
    pub unit: &'static str,
    pub measured: f64,
    pub predicted: Option<f64>,
    /// (predicted − measured) / measured.
    pub error: Option<f64>,
    /// Why tpsim cannot predict this record.
    pub skipped: Option<String>,
}

impl Row {
    /// This row, not compared: no prediction, no error, `why` in its place.
    fn into_skip(self, why: impl Into<String>) -> Row {
        Row {
            predicted: None,
            error: None,
            skipped: Some(why.into()),
            ..self
        }
    }
}

/// The whole `--json` answer.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    pub target: String,
    pub rows: Vec<Row>,
    pub checked: usize,
    pub skipped: usize,
    /// Median of |error| over predicted rows (a fraction).
    pub median_abs_error: f64,
    /// Largest max(predicted/measured, measured/predicted) over predicted rows, and its row.
    pub worst_ratio: Option<f64>,
    pub worst_row: Option<usize>,
    /// The gate (a fraction): `pass` is median_abs_error ≤ threshold.
    pub threshold: f64,
    pub pass: bool,
}

/// The skip reason of a row above [`tpsim::collective::MAX_SIZE_BYTES`] (1 TiB, more than any GPU
/// holds; inputaudit: a 2^63-byte copy overflowed the simulated network's clock).
fn too_large(size_bytes: u64) -> String {
    format!(
        "{size_bytes} bytes: more than any GPU holds (tpsim takes at most {})",
        tpsim::collective::MAX_SIZE_BYTES
    )
}

/// Reads a measurement file (schema checked).
pub fn load(path: &Path) -> Result<MeasurementFile, CheckError> {
    let file = path.display().to_string();
    MeasurementFile::read(path).map_err(|e| match e {
        ReadError::Io(message) => CheckError::Read { file, message },
        ReadError::Parse {
            line,
            column,
            message,
        } => CheckError::Read {
            file,
            message: format!(
                "line {line}, column {column}: {message} (expected a {SCHEMA} measurement file, as `ingest` writes)"
            ),
        },
        ReadError::Schema(found) => CheckError::Schema { file, found },
    })
}

fn skip(
    index: usize,
    file: &str,
    kind: &'static str,
    what: String,
    unit: &'static str,
    measured: f64,
    why: impl Into<String>,
) -> Row {
    Row {
        index,
        file: file.to_string(),
        kind,
        what,
        unit,
        measured,
        predicted: None,
        error: None,
        skipped: Some(why.into()),
    }
}

/// Collective rows predicted together: (GPUs, NCCL env, op, request).
type GroupKey = (usize, Vec<String>, collective::Op, String);
/// Decode runs shared by equal records: (batch, prompt length, output length, end to end).
type RunKey = (u32, Option<u64>, Option<u64>, bool);

/// Compares every record of `files` (path, contents) with tpsim's prediction.
pub fn check(
    target: &Target,
    files: &[(String, MeasurementFile)],
    threshold: f64,
) -> Result<Report, CheckError> {
    let base = collective::Source {
        scenario: target.scenario.clone(),
        hardware: target.hardware.clone(),
        profile: target.profile.clone(),
        gpus: None,
        env: target.env.clone(),
    }
    .setup()?;
    let scen: Option<Scenario> = match &target.scenario {
        Some(p) => Some(scenario::load(p)?),
        None => None,
    };
    let mut checker = Checker {
        target,
        have: base.hardware.topology.gpu_count(),
        base: &base,
        scen: scen.as_ref(),
        rows: Vec::new(),
        groups: BTreeMap::new(),
        requests: BTreeMap::new(),
        memory_plan: None,
        runs: BTreeMap::new(),
    };
    let mut index = 0;
    for (file, m) in files {
        let filter = m.launch_filter();
        for r in &m.records {
            index += 1;
            let row = match r {
                Record::Gemm { launch, .. } | Record::Stream { launch, .. } => match filter.compared(launch.as_deref()) {
                    Ok(true) => checker.record(index, file, r),
                    Ok(false) => checker.record(index, file, r).into_skip(
                        "eager launches (the host's launch rate); this file's graph-timed rows are compared instead",
                    ),
                    Err(e) => checker.record(index, file, r).into_skip(e),
                },
                _ => checker.record(index, file, r),
            };
            checker.rows.push(row);
        }
    }
    checker.predict_collectives();
    summarize(target_name(target, &base.hardware.name), checker.rows, threshold)
}

/// One measured record's row before the verdict: where it came from and what it measured.
struct Measured<'a> {
    index: usize,
    file: &'a str,
    kind: &'static str,
    what: String,
    unit: &'static str,
    measured: f64,
}

impl Measured<'_> {
    fn skip(&self, why: impl Into<String>) -> Row {
        skip(
            self.index,
            self.file,
            self.kind,
            self.what.clone(),
            self.unit,
            self.measured,
            why,
        )
    }

    fn predicted(self, p: f64) -> Row {
        predicted(
            self.index,
            self.file,
            self.kind,
            self.what,
            self.unit,
            self.measured,
            p,
        )
    }

    /// A row whose prediction is filled in later (collectives, predicted per group).
    fn pending(self) -> Row {
        Row {
            index: self.index,
            file: self.file.to_string(),
            kind: self.kind,
            what: self.what,
            unit: self.unit,
            measured: self.measured,
            predicted: None,
            error: None,
            skipped: None,
        }
    }
}

/// The state of one `check`: the rows so far and what is shared between records.
struct Checker<'a> {
    target: &'a Target,
    base: &'a collective::Setup,
    /// GPUs in the box.
    have: usize,
    scen: Option<&'a Scenario>,
    rows: Vec<Row>,
    /// Collective rows are predicted per (GPUs, env, op, request) group, sizes in one call.
    groups: BTreeMap<GroupKey, Vec<(usize, u64)>>,
    requests: BTreeMap<String, Request>,
    memory_plan: Option<tpsim::decode::MemoryPlan>,
    runs: BTreeMap<RunKey, Result<f64, String>>,
}

impl Checker<'_> {
    /// The row of record number `index` of `file`.
    fn record(&mut self, index: usize, file: &str, r: &Record) -> Row {
        let at = |kind, what, unit, measured| Measured {
            index,
            file,
            kind,
            what,
            unit,
            measured,
        };
        match r {
            Record::Collective {
                op,
                n_gpus,
                size_bytes,
                time_us,
                backend,
                env,
                placement,
                ..
            } => {
                let what = format!(
                    "{op} {size_bytes} B on {n_gpus} GPUs{}",
                    placement.as_deref().map(|p| format!(", {p}")).unwrap_or_default()
                );
                let row = at("collective", what, "us", *time_us);
                self.collective(row, op, *n_gpus, *size_bytes, backend.as_deref(), env)
            }
            Record::EngineMemory {
                engine,
                rank,
                kv_tokens,
                ..
            } => {
                let what = format!(
                    "{engine} KV tokens{}",
                    rank.map(|r| format!(", rank {r}")).unwrap_or_default()
                );
                let measured = kv_tokens.unwrap_or(0) as f64;
                self.engine_memory(at("engine_memory", what, "tokens", measured), engine, *kv_tokens)
            }
            Record::DecodeThroughput {
                engine,
                batch,
                tok_s,
                input_len,
                output_len,
                measure,
                ..
            } => {
                let e2e = measure.as_deref() == Some("end_to_end");
                let what = format!(
                    "{engine} {} tok/s at batch {batch}",
                    if e2e { "end-to-end" } else { "decode" }
                );
                let row = at("decode_throughput", what, "tok/s", *tok_s);
                self.decode_throughput(row, engine, (*batch, *input_len, *output_len, e2e))
            }
            Record::Gemm {
                m,
                n,
                k,
                dtype,
                time_us,
                launch,
            } => {
                let what = format!("{dtype} GEMM {m}×{n}×{k}")
                    + &launch.as_deref().map(|l| format!(", {l}")).unwrap_or_default();
                self.gemm(at("gemm", what, "us", *time_us), dtype, *m, *n, *k)
            }
            Record::CopyBandwidth {
                path,
                src,
                dst,
                peer_access,
                size_bytes,
                gbps,
            } => {
                let what = match (src, dst) {
                    (Some(a), Some(b)) => format!("{path} copy GPU{a}→GPU{b} {size_bytes} B"),
                    _ => format!("{path} copy {size_bytes} B"),
                };
                let row = at("copy_bandwidth", what, "GB/s", *gbps);
                self.copy_bandwidth(row, path, (*src, *dst), *peer_access, *size_bytes)
            }
            Record::P2pLatency {
                src,
                dst,
                peer_access,
                one_way_us,
            } => {
                let what = format!(
                    "GPU{src}→GPU{dst} one-way latency{}",
                    if *peer_access == Some(false) {
                        ", no peer access"
                    } else {
                        ""
                    }
                );
                let row = at("p2p_latency", what, "us", *one_way_us);
                self.p2p_latency(row, *src, *dst, *peer_access)
            }
            Record::Stream {
                bytes,
                time_us,
                launch,
            } => {
                let what = match bytes {
                    0 => "empty kernel".to_string(),
                    b => format!("streaming read {b} B"),
                } + &launch.as_deref().map(|l| format!(", {l}")).unwrap_or_default();
                let row = at("stream", what, "us", *time_us);
                if !(time_us.is_finite() && *time_us > 0.0) {
                    row.skip("expected a time > 0 µs")
                } else if *bytes > tpsim::collective::MAX_SIZE_BYTES {
                    row.skip(too_large(*bytes))
                } else {
                    row.predicted(predict::stream_us(&self.base.hardware, *bytes))
                }
            }
        }
    }

    /// A collective row waits for its group's prediction ([`Self::predict_collectives`]).
    fn collective(
        &mut self,
        row: Measured,
        op: &str,
        n_gpus: u32,
        size_bytes: u64,
        backend: Option<&str>,
        env: &[String],
    ) -> Row {
        let n = n_gpus as usize;
        let Some(coll) = collective::Op::from_name(op) else {
            return row.skip(format!("tpsim models allreduce and allgather, not {op}"));
        };
        if n < 1 || n > self.have {
            return row.skip(format!("{n} GPUs: the hardware has {}", self.have));
        }
        if size_bytes > tpsim::collective::MAX_SIZE_BYTES {
            return row.skip(too_large(size_bytes));
        }
        if row.measured <= 0.0 {
            return row.skip("measured time is not positive");
        }
        let req = match (backend, self.base.backend) {
            (Some("nccl"), AllreduceBackend::Custom) => Request::Nccl,
            (Some("custom"), _) => Request::Backend(AllreduceBackend::Custom),
            _ => Request::Backend(self.base.backend),
        };
        let key = format!("{req:?}");
        self.requests.insert(key.clone(), req);
        let mut e = self.target.env.clone();
        e.extend(env.iter().cloned());
        let row_at = self.rows.len();
        self.groups
            .entry((n, e, coll, key))
            .or_default()
            .push((row_at, size_bytes));
        row.pending()
    }

    fn engine_memory(&mut self, row: Measured, engine: &str, kv_tokens: Option<u64>) -> Row {
        let Some(s) = self.scen else {
            return row.skip("needs --scenario (the memory plan needs a model and an engine)");
        };
        if kv_tokens.is_none() {
            return row.skip("the record has no KV token count");
        }
        if engine_name(s) != engine {
            return row.skip(format!(
                "measured on {engine}; the scenario runs {}",
                engine_name(s)
            ));
        }
        let plan = self
            .memory_plan
            .get_or_insert_with(|| tpsim::decode::plan_memory(s));
        let p = plan.kv_tokens as f64;
        row.predicted(p)
    }

    fn decode_throughput(&mut self, row: Measured, engine: &str, key: RunKey) -> Row {
        let Some(s) = self.scen else {
            return row.skip("needs --scenario (tpsim run needs a model and an engine)");
        };
        if engine_name(s) != engine {
            return row.skip(format!(
                "measured on {engine}; the scenario runs {}",
                engine_name(s)
            ));
        }
        if row.measured <= 0.0 {
            return row.skip("measured throughput is 0 (an idle log interval)");
        }
        let (batch, input_len, output_len, e2e) = key;
        if batch == 0 || batch > 4096 {
            return row.skip("batch outside 1..4096 (the scenario limit)");
        }
        let p = self
            .runs
            .entry(key)
            .or_insert_with(|| run_at(s, batch, input_len, output_len, e2e))
            .clone();
        match p {
            Ok(p) => row.predicted(p),
            Err(why) => row.skip(why),
        }
    }

    fn gemm(&self, row: Measured, dtype: &str, m: u64, n: u64, k: u64) -> Row {
        let time_us = row.measured;
        if !matches!(dtype, "bf16" | "fp16") {
            row.skip("the hardware presets give the bf16/fp16 tensor rate only")
        } else if m == 0 || n == 0 || k == 0 || !(time_us.is_finite() && time_us > 0.0) {
            row.skip("expected m, n, k ≥ 1 and a time > 0 µs")
        } else {
            let p = predict::gemm_us(&self.base.hardware, m, n, k);
            row.predicted(p)
        }
    }

    fn copy_bandwidth(
        &self,
        row: Measured,
        path: &str,
        (src, dst): (Option<u32>, Option<u32>),
        peer_access: Option<bool>,
        size_bytes: u64,
    ) -> Row {
        let gbps = row.measured;
        if size_bytes > tpsim::collective::MAX_SIZE_BYTES {
            return row.skip(too_large(size_bytes));
        }
        if path == "d2d" && size_bytes > 0 && gbps.is_finite() && gbps > 0.0 {
            let p = predict::d2d_gbps(&self.base.hardware, size_bytes);
            return row.predicted(p);
        }
        let (Some(a), Some(b), "p2p") = (src, dst, path) else {
            return row.skip(format!(
                "tpsim predicts d2d copies and p2p copies between two named GPUs, not {path}"
            ));
        };
        if peer_access == Some(false) || !self.base.hardware.gpu.p2p {
            return row.skip(
                "without peer access the driver stages the copy through host memory, which tpsim does not model",
            );
        }
        if !(gbps.is_finite() && gbps > 0.0) {
            return row.skip("measured bandwidth is not positive");
        }
        match predict::p2p_copy_gbps(&self.base.hardware, a, b, size_bytes) {
            Ok(p) => row.predicted(p),
            Err(e) => row.skip(e.to_string()),
        }
    }

    fn p2p_latency(&self, row: Measured, src: u32, dst: u32, peer_access: Option<bool>) -> Row {
        let one_way_us = row.measured;
        if !(one_way_us.is_finite() && one_way_us > 0.0) {
            return row.skip("measured latency is not positive");
        }
        match predict::p2p_latency_us(&self.base.hardware, src, dst, peer_access) {
            Ok(p) => row.predicted(p),
            Err(e) => row.skip(e.to_string()),
        }
    }

    /// Predicts each collective group's sizes in one `tpsim collective` call and fills in its rows.
    fn predict_collectives(&mut self) {
        let target = self.target;
        for ((n, env, op, key), members) in &self.groups {
            let setup = collective::Source {
                scenario: target.scenario.clone(),
                hardware: target.hardware.clone(),
                profile: target.profile.clone(),
                gpus: Some(*n),
                env: env.clone(),
            }
            .setup();
            let sizes: Vec<u64> = members.iter().map(|m| m.1).collect();
            let result = setup.and_then(|s| collective::run(&s, *op, &sizes, self.requests[key], None));
            match result {
                Ok(report) => {
                    for ((at, _), r) in members.iter().zip(&report.rows) {
                        let row = &mut self.rows[*at];
                        row.predicted = Some(r.time_us);
                        row.error = Some((r.time_us - row.measured) / row.measured);
                    }
                }
                Err(e) => {
                    for (at, _) in members {
                        self.rows[*at].skipped = Some(e.to_string());
                    }
                }
            }
        }
    }
}

fn engine_name(s: &Scenario) -> &'static str {
    match s.engine.kind {
        EngineKind::Vllm => "vllm",
        _ => "sglang",
    }
}

fn predicted(
    index: usize,
    file: &str,
    kind: &'static str,
    what: String,
    unit: &'static str,
    measured: f64,
    p: f64,
) -> Row {
    Row {
        index,
        file: file.to_string(),
        kind,
        what,
        unit,
        measured,
        predicted: Some(p),
        error: (measured > 0.0).then(|| (p - measured) / measured),
        skipped: None,
    }
}

/// `tpsim run` of the scenario at a batch (and lengths), tok/s.
fn run_at(
    s: &Scenario,
    batch: u32,
    input: Option<u64>,
    output: Option<u64>,
    e2e: bool,
) -> Result<f64, String> {
    let mut s = s.clone();
    s.workload.concurrency = batch;
    s.workload.num_requests = batch;
    let len = |v: u64| {
        u32::try_from(v)
            .map(LengthSpec::Fixed)
            .map_err(|_| format!("length {v} too large"))
    };
    if let Some(i) = input {
        s.workload.prompt_len = len(i.max(1))?;
    }
    if let Some(o) = output {
        s.workload.output_len = len(o.max(1))?;
    }
    let p = tpsim::decode::predict(&s).map_err(|e| format!("tpsim run: {e}"))?;
    Ok(if e2e {
        p.main.e2e_output_tok_s()
    } else {
        p.main.output_tok_s()
    })
}

fn target_name(t: &Target, hw: &str) -> String {
    let mut s = match &t.scenario {
        Some(p) => format!("scenario {}", p.display()),
        None => format!("hardware {hw}"),
    };
    if let Some(p) = &t.profile {
        let _ = write!(s, " with profile {}", p.display());
    }
    if !t.env.is_empty() {
        let _ = write!(s, " ({})", t.env.join(" "));
    }
    s
}

fn summarize(target: String, rows: Vec<Row>, threshold: f64) -> Result<Report, CheckError> {
    let mut errs: Vec<f64> = rows.iter().filter_map(|r| r.error.map(f64::abs)).collect();
    if errs.is_empty() {
        return Err(CheckError::Nothing(rows.len()));
    }
    errs.sort_by(f64::total_cmp);
    let k = errs.len();
    let median = if k % 2 == 1 {
        errs[k / 2]
    } else {
        (errs[k / 2 - 1] + errs[k / 2]) / 2.0
    };
    let mut worst: Option<(f64, usize)> = None;
    for r in &rows {
        if let Some(p) = r.predicted
            && p > 0.0
            && r.measured > 0.0
        {
            let ratio = (p / r.measured).max(r.measured / p);
            if worst.is_none_or(|(w, _)| ratio > w) {
                worst = Some((ratio, r.index));
            }
        }
    }
    let checked = rows.iter().filter(|r| r.error.is_some()).count();
    Ok(Report {
        target,
        skipped: rows.len() - checked,
        checked,
        rows,
        median_abs_error: median,
        worst_ratio: worst.map(|w| w.0),
        worst_row: worst.map(|w| w.1),
        threshold,
        pass: median <= threshold,
    })
}

/// The text table.
pub fn text(r: &Report) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "# check against {}: {} rows predicted, {} skipped",
        r.target, r.checked, r.skipped
    );
    let _ = writeln!(
        o,
        "#{:>4}  {:<18} {:<46} {:>14} {:>14} {:>8}",
        "row", "kind", "record", "measured", "predicted", "error"
    );
    let unit = |v: f64, u: &str| match u {
        "tokens" => format!("{v:.0}"),
        "" => "-".to_string(),
        _ => format!("{v:.2} {u}"),
    };
    for x in r.rows.iter().filter(|x| x.error.is_some()) {
        let _ = writeln!(
            o,
            " {:>4}  {:<18} {:<46} {:>14} {:>14} {:>+7.1}%",
            x.index,
            x.kind,
            x.what,
            unit(x.measured, x.unit),
            unit(x.predicted.unwrap_or(0.0), x.unit),
            x.error.unwrap_or(0.0) * 100.0
        );
    }
    let skipped: Vec<&Row> = r.rows.iter().filter(|x| x.error.is_none()).collect();
    if !skipped.is_empty() {
        let _ = writeln!(o, "# skipped:");
        for x in skipped {
            let _ = writeln!(
                o,
                " {:>4}  {:<18} {:<46} {}",
                x.index,
                x.kind,
                x.what,
                x.skipped.as_deref().unwrap_or("no prediction")
            );
        }
    }
    let _ = write!(
        o,
        "# median |error| {:.1} % over {} rows (threshold {:.1} %): {}",
        r.median_abs_error * 100.0,
        r.checked,
        r.threshold * 100.0,
        if r.pass { "pass" } else { "FAIL" }
    );
    if let (Some(w), Some(i)) = (r.worst_ratio, r.worst_row) {
        let _ = write!(o, "; worst ratio {w:.2}× (row {i})");
    }
    let _ = writeln!(o);
    o
}
