//! Sweeps (issue #8): the cartesian product of `--set` keys over one scenario, each point predicted
//! exactly as `tpsim run` predicts it, in parallel with results in input order; CSV/JSON rows, shards
//! and their merge, and an SVG chart (`plot`).
//!
//! A point is the scenario's TOML text parsed as a table, the point's keys set by dotted path,
//! re-serialised and resolved with [`scenario::load_str`] under the original path (so relative presets
//! resolve as in the file). Point `i` of a product is numbered in row-major order: the first `--set`
//! is the outermost loop. Every point is a pure function of its text, so rows are byte-identical
//! whatever the thread count or shard.

pub mod keys;

use crate::report::EngineVerdict;
use crate::scenario::{self, Scenario, ScenarioError};
use crate::{decode, report};
use keys::Axis;
use rayon::prelude::*;
use std::path::{Path, PathBuf};

/// Errors of a sweep. `Set`, `Point`, `Shard` and `Merge` are bad input (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum SweepError {
    #[error("--set {arg}: {message}")]
    Set { arg: String, message: String },
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// A point whose scenario does not resolve; `point` names its index and settings.
    #[error("point {index} ({settings}): {message}")]
    Point {
        index: usize,
        settings: String,
        message: String,
    },
    #[error("--shard {0}: expected I/N with 1 ≤ I ≤ N, e.g. 2/8")]
    Shard(String),
    #[error("{0}")]
    Usage(String),
    #[error("{file}: {message}")]
    Merge { file: String, message: String },
    /// An output (--out, --plot) that is one of the inputs, or cannot be written.
    #[error("{0}")]
    Write(#[from] crate::files::WriteError),
    #[error("internal error at point {index}: {message}")]
    Internal { index: usize, message: String },
    /// Writing an output (CSV, JSON, SVG) failed.
    #[error("{0}")]
    Output(String),
}

impl SweepError {
    /// Whether the error is the user's input (exit code 2) rather than an internal failure.
    pub fn is_bad_input(&self) -> bool {
        match self {
            SweepError::Internal { .. } | SweepError::Output(_) => false,
            SweepError::Write(w) => w.is_bad_input(),
            _ => true,
        }
    }
}

/// Which slice of the points to run: point `i` belongs to shard `i % count + 1` (a stride, so
/// every shard gets a mix of cheap and expensive points, and a missing shard leaves gaps that
/// `merge` detects).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Shard {
    /// 1-based.
    pub index: usize,
    pub count: usize,
}

impl Shard {
    /// Parses `I/N`.
    pub fn parse(t: &str) -> Result<Shard, SweepError> {
        let bad = || SweepError::Shard(t.to_string());
        let (i, n) = t.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            i.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether point `i` (0-based) is in this shard.
    pub fn contains(&self, i: usize) -> bool {
        i % self.count == self.index - 1
    }
}

/// A sweep: the base scenario's text and path, and the swept keys in the order given.
#[derive(Debug, Clone)]
pub struct Sweep {
    pub path: PathBuf,
    /// The files the base scenario was read from (outputs must not overwrite them).
    pub inputs: Vec<PathBuf>,
    pub base: toml::Table,
    pub axes: Vec<Axis>,
    /// Issue #19 point 6 (`tpsim sweep --intervals`): give each point's tok/s and TPOT their 95 %
    /// intervals from the profile's fitted parameters (2 more predictions per fitted parameter).
    pub intervals: bool,
}

impl Sweep {
    /// Reads the scenario file, removes the `unset` keys (so their defaults apply, e.g.
    /// `speculative.num_draft_tokens` = num_steps + 1) and parses the `--set` arguments.
    pub fn new(path: &Path, sets: &[String], unset: &[String]) -> Result<Sweep, SweepError> {
        let text = crate::files::read_text(path).map_err(|e| ScenarioError::Io {
            file: path.display().to_string(),
            message: e.to_string(),
        })?;
        // Resolve the base once: a broken scenario is reported as itself, not as point 0.
        let inputs = scenario::load_str(&text, path)?.inputs;
        let mut base: toml::Table = text.parse().map_err(|e: toml::de::Error| ScenarioError::Parse {
            file: path.display().to_string(),
            key: String::new(),
            line: None,
            col: None,
            message: e.message().trim().to_string(),
        })?;
        // Issue #17 (cmdkey): the command's keys, so that a `--set` of one of them is a point, not
        // a conflict with the command.
        scenario::command::expand(&mut base, path, &text)?;
        for k in unset {
            keys::remove(&mut base, k).map_err(|m| SweepError::Usage(format!("--unset {k}: {m}")))?;
        }
        if sets.is_empty() {
            return Err(SweepError::Usage(
                "give at least one --set KEY=V1,V2,… or --set KEY=START:END:STEP".into(),
            ));
        }
        let axes = sets
            .iter()
            .map(|s| Axis::parse(s))
            .collect::<Result<Vec<_>, _>>()?;
        for (i, a) in axes.iter().enumerate() {
            if axes[..i].iter().any(|b| b.key == a.key) {
                return Err(SweepError::Usage(format!(
                    "--set {}: the key is set twice",
                    a.key
                )));
            }
        }
        let total = axes
            .iter()
            .try_fold(1u64, |n, a| n.checked_mul(a.values.len() as u64));
        if total.is_none_or(|t| t > keys::MAX_VALUES_PER_KEY) {
            return Err(SweepError::Usage(format!(
                "the product of the --set values exceeds {} points",
                keys::MAX_VALUES_PER_KEY
            )));
        }
        Ok(Sweep {
            path: path.to_path_buf(),
            inputs,
            base,
            axes,
            intervals: false,
        })
    }

    /// Number of points in the product.
    pub fn len(&self) -> usize {
        self.axes.iter().map(|a| a.values.len()).product()
    }

    /// Whether the product is empty (never, for a sweep built by `new`).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The value index of each axis at point `i` (first axis outermost).
    pub fn choice(&self, mut i: usize) -> Vec<usize> {
        let mut c = vec![0; self.axes.len()];
        for (k, a) in self.axes.iter().enumerate().rev() {
            c[k] = i % a.values.len();
            i /= a.values.len();
        }
        c
    }

    /// "engine.allreduce=nccl, speculative.num_steps=3" for point `i`.
    pub fn settings(&self, i: usize) -> String {
        self.axes
            .iter()
            .zip(self.choice(i))
            .map(|(a, v)| format!("{}={}", a.key, a.values[v].text))
            .collect::<Vec<_>>()
            .join(", ")
    }

    /// Whether rows carry `accept_len_mean`: the base speculates or a `speculative.` key is swept
    /// (decided from the inputs alone, so every shard writes the same header).
    pub fn has_spec_column(&self) -> bool {
        self.base.contains_key("speculative") || self.axes.iter().any(|a| a.key.starts_with("speculative."))
    }

    /// The scenario of point `i`.
    pub fn scenario(&self, i: usize) -> Result<Scenario, SweepError> {
        let point = |message: String| SweepError::Point {
            index: i,
            settings: self.settings(i),
            message,
        };
        let mut t = self.base.clone();
        for (a, v) in self.axes.iter().zip(self.choice(i)) {
            keys::set(&mut t, &a.key, &a.values[v]).map_err(|m| point(format!("key `{}`: {m}", a.key)))?;
        }
        let text = toml::to_string(&t).map_err(|e| point(e.to_string()))?;
        scenario::load_str(&text, &self.path).map_err(|e| point(without_line(e, &self.path).to_string()))
    }

    /// Runs the points of `shard` (all points when `None`) on `threads` threads (0: rayon's
    /// default), never more threads than points ([`pool_size`]), calling `tick` after each; rows
    /// come back in point order.
    pub fn run(
        &self,
        shard: Option<Shard>,
        threads: usize,
        tick: &(dyn Fn() + Sync),
    ) -> Result<Vec<Row>, SweepError> {
        let points: Vec<usize> = (0..self.len())
            .filter(|&i| shard.is_none_or(|s| s.contains(i)))
            .collect();
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(pool_size(threads, points.len()))
            .build()
            .map_err(|e| SweepError::Usage(format!("--threads {threads}: {e}")))?;
        // Results are collected in point order and the first error *in that order* is reported
        // (rayon's own Result collection may return any failing point's error).
        pool.install(|| {
            // Resolve every point first, so a bad key fails in a moment, before any simulation.
            let scenarios: Vec<Result<Scenario, SweepError>> =
                points.par_iter().map(|&i| self.scenario(i)).collect();
            let scenarios = scenarios.into_iter().collect::<Result<Vec<_>, _>>()?;
            let rows: Vec<Result<Row, SweepError>> = points
                .par_iter()
                .zip(scenarios)
                .map(|(&i, s)| {
                    let row = self.row(i, &s);
                    tick();
                    row
                })
                .collect();
            rows.into_iter().collect()
        })
    }

    fn row(&self, i: usize, s: &Scenario) -> Result<Row, SweepError> {
        let choice = self.choice(i);
        let mem = decode::plan_memory(s);
        let mut row = Row {
            point: i,
            inputs: self
                .axes
                .iter()
                .zip(&choice)
                .map(|(a, &v)| a.values[v].clone())
                .collect(),
            verdict: EngineVerdict::Oom,
            kv_tokens: mem.kv_tokens,
            min_mem_fraction_static: mem.min_mem_fraction_static.filter(|f| f.is_finite()),
            perf: None,
            warnings: s.warnings.clone(),
        };
        if mem.verdict != decode::Verdict::Ok {
            return Ok(row);
        }
        // The engine starts but refuses the requests (e.g. a prompt longer than the context).
        if decode::rejection(s).is_some() {
            row.verdict = EngineVerdict::Rejected;
            return Ok(row);
        }
        // Sweep rows need no comparison with plain decoding: skip that second loop.
        // Nor the trace's graphs: every shape may come from the shape cache.
        let opts = decode::Options {
            compare_without_spec: false,
            trace: false,
            shape_cache: true,
        };
        let p = decode::predict_opts(s, &opts).map_err(|e| match e {
            // dsv4run55: a model whose decode step is not modelled is the input's (exit 2).
            decode::DecodeError::NotModelled(m) => SweepError::Usage(format!("point {i}: {m}")),
            e => SweepError::Internal {
                index: i,
                message: e.to_string(),
            },
        })?;
        // speed64: a row never reads the report's fitted constants.
        let r = report::build_with(s, &p, false);
        row.verdict = r.verdict;
        if let Some(t) = &r.throughput {
            // Without a decode iteration (output_len = 1) only the prefill figures exist.
            let decoded = t.iterations > 0;
            row.perf = Some(Perf {
                output_tok_s: t.output_tok_s,
                tpot_ms: t.tpot_ms,
                ttft_ms: t.ttft_ms,
                accept_len_mean: s
                    .speculative
                    .as_ref()
                    .filter(|_| decoded)
                    .map(|_| p.main.accept_len_mean),
                allreduce_ms_per_iter: decoded
                    .then(|| r.breakdown_by_op.get("allreduce").copied().unwrap_or(0.0)),
                bottleneck: r.bottleneck.clone(),
                ttft_p99_ms: p.main.ttft_percentile_ms(99.0),
                tpot_p99_ms: decoded.then(|| p.main.request_tpot_percentile_ms(99.0)),
                request_throughput: p.main.request_throughput(),
                preemptions: p.main.preemptions,
                peak_kv_utilisation: p.main.peak_kv_utilisation,
                frontend_busy: r
                    .serving
                    .as_ref()
                    .and_then(|sv| sv.frontend.as_ref())
                    .map(|f| f.busy_fraction),
                overloaded: p.main.overloaded,
                intervals: [None; 4],
            });
            if self.intervals {
                let iv = crate::intervals::propagate(s, &r).map_err(|e| SweepError::Internal {
                    index: i,
                    message: e.to_string(),
                })?;
                if let (Some(iv), Some(perf)) = (iv, row.perf.as_mut()) {
                    let ends = |f: &Option<crate::report::intervals::FigureInterval>| {
                        f.as_ref().map(|f| (f.low, f.high))
                    };
                    let (t, p) = (ends(&iv.output_tok_s), ends(&iv.tpot_ms));
                    perf.intervals = [t.map(|x| x.0), t.map(|x| x.1), p.map(|x| x.0), p.map(|x| x.1)];
                }
            }
        }
        Ok(row)
    }
}

/// Threads of a sweep's pool: `threads` (0: one per core) but never more than `points` — an idle
/// thread costs a stack and a spin, and `--threads 100000` over two points used to spawn them all.
/// 0 means rayon's default (one per core, or RAYON_NUM_THREADS).
pub fn pool_size(threads: usize, points: usize) -> usize {
    let points = points.max(1);
    if threads == 0 {
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        if points < cores { points } else { 0 }
    } else {
        threads.min(points)
    }
}

/// Errors in a point's re-serialised text carry lines of that text, not of the user's file: drop
/// them (the key and message still say what is wrong).
fn without_line(e: ScenarioError, path: &Path) -> ScenarioError {
    let ours = |f: &str| f == path.display().to_string();
    match e {
        ScenarioError::Parse {
            file, key, message, ..
        } if ours(&file) => ScenarioError::Parse {
            file,
            key,
            line: None,
            col: None,
            message,
        },
        ScenarioError::Invalid {
            file, key, message, ..
        } if ours(&file) => ScenarioError::Invalid {
            file,
            key,
            line: None,
            message,
        },
        other => other,
    }
}

/// Performance metrics of a point that starts (never NaN: `tpsim run` reports the same numbers).
#[derive(Debug, Clone, PartialEq)]
pub struct Perf {
    /// Output tokens per second during decode (`None` without a decode iteration, output_len = 1).
    pub output_tok_s: Option<f64>,
    /// Mean time per output token, ms (`None` likewise).
    pub tpot_ms: Option<f64>,
    /// Mean time to first token, ms.
    pub ttft_ms: f64,
    /// Mean accepted tokens per iteration (speculative points only).
    pub accept_len_mean: Option<f64>,
    /// Allreduce time on the critical path of one iteration, ms (`None` without an iteration).
    pub allreduce_ms_per_iter: Option<f64>,
    /// The category with the most time per iteration.
    pub bottleneck: String,
    // Issue #18: the serving loop's figures, so that a sweep can plot load against them.
    /// 99th percentile of time to first token (from arrival: queueing counts), ms.
    pub ttft_p99_ms: f64,
    /// 99th percentile of the per-request time per output token, ms (`None` without decoding).
    pub tpot_p99_ms: Option<f64>,
    /// Finished requests per second of simulated time.
    pub request_throughput: f64,
    /// Retractions (SGLang) or preemptions (vLLM) over the run.
    pub preemptions: u64,
    /// Peak share of the KV pool in use, 0 to 1.
    pub peak_kv_utilisation: f64,
    /// Issue #18 (frontend): the API servers' busy fraction (`None` without a front end).
    pub frontend_busy: Option<f64>,
    /// Issue #18 audit: the serving loop's overload flag (`serving.overloaded` of `tpsim run`: an
    /// open loop whose waiting queue grows), so a rate sweep says where the engine stops keeping up.
    pub overloaded: bool,
    /// Issue #19 point 6 (`--intervals`): the 95 % interval ends of tok/s and TPOT, in
    /// [`INTERVAL_COLUMNS`] order (`None` without fitted intervals or without `--intervals`).
    pub intervals: [Option<f64>; 4],
}

/// The columns `tpsim sweep --intervals` adds after the metrics.
pub const INTERVAL_COLUMNS: [&str; 4] = [
    "output_tok_s_low",
    "output_tok_s_high",
    "tpot_ms_low",
    "tpot_ms_high",
];

/// One point's row.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    /// 0-based index in the full product.
    pub point: usize,
    /// The value of each swept key, in `--set` order.
    pub inputs: Vec<keys::Value>,
    /// "ok", "oom" or "rejected".
    pub verdict: EngineVerdict,
    /// KV cache tokens the engine sizes (max_total_num_tokens).
    pub kv_tokens: u64,
    /// Smallest mem_fraction_static that starts, when one does.
    pub min_mem_fraction_static: Option<f64>,
    /// `None` for OOM points.
    pub perf: Option<Perf>,
    /// The engine's adjustments of this point's settings, with its warnings (printed on stderr,
    /// not written to the rows).
    pub warnings: Vec<String>,
}

/// The metric columns after the swept keys.
pub fn metric_columns(spec: bool, intervals: bool) -> Vec<&'static str> {
    let mut c = vec!["verdict", "output_tok_s", "tpot_ms", "ttft_ms"];
    if spec {
        c.push("accept_len_mean");
    }
    c.extend([
        "kv_tokens",
        "min_mem_fraction_static",
        "allreduce_ms_per_iter",
        "bottleneck",
        // Issue #18: serving under load.
        "ttft_p99_ms",
        "tpot_p99_ms",
        "request_throughput",
        "preemptions",
        "peak_kv_utilisation",
        // Issue #18 (frontend): the API server's busy fraction (empty without a front end).
        "frontend_busy",
        // Issue #18 audit: `true` when the open loop is overloaded (empty when nothing ran).
        "overloaded",
    ]);
    if intervals {
        c.extend(INTERVAL_COLUMNS);
    }
    c
}

/// The numeric metrics a chart can show.
pub const PLOTTABLE: &[&str] = &[
    "output_tok_s",
    "tpot_ms",
    "ttft_ms",
    "accept_len_mean",
    "kv_tokens",
    "min_mem_fraction_static",
    "allreduce_ms_per_iter",
    "ttft_p99_ms",
    "tpot_p99_ms",
    "request_throughput",
    "preemptions",
    "peak_kv_utilisation",
    "frontend_busy",
    // Issue #19 point 6: with --intervals.
    "output_tok_s_low",
    "output_tok_s_high",
    "tpot_ms_low",
    "tpot_ms_high",
];

impl Row {
    /// A numeric metric by column name (`None` when empty: OOM, or not speculative).
    pub fn metric(&self, name: &str) -> Option<f64> {
        let p = self.perf.as_ref();
        let v = match name {
            "output_tok_s" => p.and_then(|p| p.output_tok_s),
            "tpot_ms" => p.and_then(|p| p.tpot_ms),
            "ttft_ms" => p.map(|p| p.ttft_ms),
            "accept_len_mean" => p.and_then(|p| p.accept_len_mean),
            "kv_tokens" => Some(self.kv_tokens as f64),
            "min_mem_fraction_static" => self.min_mem_fraction_static,
            "allreduce_ms_per_iter" => p.and_then(|p| p.allreduce_ms_per_iter),
            "ttft_p99_ms" => p.map(|p| p.ttft_p99_ms),
            "tpot_p99_ms" => p.and_then(|p| p.tpot_p99_ms),
            "request_throughput" => p.map(|p| p.request_throughput),
            "preemptions" => p.map(|p| p.preemptions as f64),
            "peak_kv_utilisation" => p.map(|p| p.peak_kv_utilisation),
            "frontend_busy" => p.and_then(|p| p.frontend_busy),
            c => INTERVAL_COLUMNS
                .iter()
                .position(|x| *x == c)
                .and_then(|k| p.and_then(|p| p.intervals[k])),
        };
        v.filter(|v| v.is_finite())
    }

    /// The metric cells in `metric_columns` order; empty strings for missing values.
    fn metric_cells(&self, spec: bool, intervals: bool) -> Vec<String> {
        let num = |name| self.metric(name).map_or_else(String::new, |v| v.to_string());
        metric_columns(spec, intervals)
            .into_iter()
            .map(|c| match c {
                "verdict" => self.verdict.to_string(),
                "bottleneck" => self
                    .perf
                    .as_ref()
                    .map_or_else(String::new, |p| p.bottleneck.clone()),
                "kv_tokens" => self.kv_tokens.to_string(),
                "overloaded" => self
                    .perf
                    .as_ref()
                    .map_or_else(String::new, |p| p.overloaded.to_string()),
                c => num(c),
            })
            .collect()
    }
}

/// Writes the CSV: `point`, the swept keys, then the metrics; one line per row.
pub fn write_csv(sweep: &Sweep, rows: &[Row], out: &mut dyn std::io::Write) -> Result<(), csv::Error> {
    let spec = sweep.has_spec_column();
    let mut w = csv::Writer::from_writer(out);
    let mut header = vec!["point".to_string()];
    header.extend(sweep.axes.iter().map(|a| a.key.clone()));
    header.extend(
        metric_columns(spec, sweep.intervals)
            .into_iter()
            .map(String::from),
    );
    w.write_record(&header)?;
    for r in rows {
        let mut rec = vec![r.point.to_string()];
        rec.extend(r.inputs.iter().map(|v| v.text.clone()));
        rec.extend(r.metric_cells(spec, sweep.intervals));
        w.write_record(&rec)?;
    }
    w.flush()?;
    Ok(())
}

/// The rows as a JSON array of objects (swept keys with their TOML types; empty metrics as null).
pub fn to_json(sweep: &Sweep, rows: &[Row]) -> serde_json::Value {
    let spec = sweep.has_spec_column();
    let rows = rows
        .iter()
        .map(|r| {
            let mut o = serde_json::Map::new();
            o.insert("point".into(), r.point.into());
            for (a, v) in sweep.axes.iter().zip(&r.inputs) {
                let j = match &v.toml {
                    toml::Value::Integer(i) => (*i).into(),
                    toml::Value::Float(f) => {
                        serde_json::Number::from_f64(*f).map_or(serde_json::Value::Null, Into::into)
                    }
                    toml::Value::Boolean(b) => (*b).into(),
                    _ => v.text.clone().into(),
                };
                o.insert(a.key.clone(), j);
            }
            for c in metric_columns(spec, sweep.intervals) {
                let j = match c {
                    "verdict" => r.verdict.as_str().into(),
                    "bottleneck" => r
                        .perf
                        .as_ref()
                        .map_or(serde_json::Value::Null, |p| p.bottleneck.clone().into()),
                    "kv_tokens" => r.kv_tokens.into(),
                    "overloaded" => r
                        .perf
                        .as_ref()
                        .map_or(serde_json::Value::Null, |p| p.overloaded.into()),
                    c => r
                        .metric(c)
                        .and_then(serde_json::Number::from_f64)
                        .map_or(serde_json::Value::Null, Into::into),
                };
                o.insert(c.into(), j);
            }
            serde_json::Value::Object(o)
        })
        .collect();
    serde_json::Value::Array(rows)
}

/// Joins shard CSVs into the CSV of the unsharded sweep: same header in every file, rows ordered by
/// `point`, no point twice and none missing between 0 and the largest.
pub fn merge(files: &[PathBuf], out: &mut dyn std::io::Write) -> Result<(), SweepError> {
    let mut header: Option<csv::StringRecord> = None;
    let mut rows: Vec<(usize, csv::StringRecord)> = Vec::new();
    for f in files {
        let err = |message: String| SweepError::Merge {
            file: f.display().to_string(),
            message,
        };
        let bytes = crate::files::read_bytes(f).map_err(|e| err(format!("cannot read: {e}")))?;
        let mut r = csv::Reader::from_reader(bytes.as_slice());
        let h = r.headers().map_err(|e| err(e.to_string()))?.clone();
        if h.get(0) != Some("point") {
            return Err(err(
                "not a `tpsim sweep` CSV: the first column is not `point`".into()
            ));
        }
        match &header {
            Some(first) if *first != h => {
                return Err(err(format!(
                    "its columns differ from {}'s: shards of one sweep have the same --set keys",
                    files[0].display()
                )));
            }
            Some(_) => {}
            None => header = Some(h),
        }
        for rec in r.records() {
            let rec = rec.map_err(|e| err(e.to_string()))?;
            let p = rec.get(0).and_then(|p| p.parse::<usize>().ok()).ok_or_else(|| {
                err(format!(
                    "line {}: `point` is not an index",
                    rec.position().map_or(0, |p| p.line())
                ))
            })?;
            rows.push((p, rec));
        }
    }
    rows.sort_by_key(|r| r.0);
    if let Some(w) = rows.windows(2).find(|w| w[0].0 == w[1].0) {
        return Err(SweepError::Usage(format!(
            "point {} appears twice in the inputs",
            w[0].0
        )));
    }
    if let Some(missing) = rows.iter().enumerate().find(|(k, r)| *k != r.0) {
        return Err(SweepError::Usage(format!(
            "point {} is missing: is a shard left out?",
            missing.0
        )));
    }
    let io = |e: csv::Error| SweepError::Output(format!("writing the merged CSV: {e}"));
    let mut w = csv::Writer::from_writer(out);
    if let Some(h) = header {
        w.write_record(&h).map_err(io)?;
    }
    for (_, rec) in &rows {
        w.write_record(rec).map_err(io)?;
    }
    w.flush().map_err(|e| io(e.into()))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::pool_size;

    #[test]
    fn the_pool_never_has_more_threads_than_points() {
        assert_eq!(pool_size(100_000, 2), 2);
        assert_eq!(pool_size(3, 10), 3);
        assert_eq!(pool_size(8, 8), 8);
        // An empty shard still needs a pool of one.
        assert_eq!(pool_size(4, 0), 1);
        // Default: one per core, capped by the points (0 = rayon's own default).
        let cores = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
        assert_eq!(pool_size(0, 1), if cores > 1 { 1 } else { 0 });
        assert_eq!(pool_size(0, cores + 5), 0);
    }
}
