//! `tpsim-calibrate fit-host`: SGLang's per-iteration host overhead (`[engine.costs] host_overhead`,
//! the scheduler's CPU work per decode iteration) from logged decode throughput.
//!
//! A `Decode batch … #running-req: R, #token: T, [accept len: L,] gen throughput (token/s): G` line
//! says the engine produced G tokens per second while R requests decoded, L tokens each per
//! iteration (1 without speculation), so one iteration took R · L ÷ G. tpsim predicts the same
//! iteration (batch R, each request at context T ÷ R) with `host_overhead = 0`: the device time,
//! launches and syncs. With the overlap scheduler off (speculative decoding, or
//! `disable_overlap_schedule = true`) the host work adds to the iteration, so each record's residual
//! measured − predicted is one observation of `host_overhead`. The estimate is their mean, with a
//! 95 % Student-t interval (statrs) over the records.

use super::FitError;
use crate::measurement::Record;
use clap::Args;
use statrs::distribution::{ContinuousCDF, StudentsT};
use statrs::statistics::Statistics;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use tpsim::scenario::{self, LengthSpec, Scenario};
use tpsim_model::units::Duration;

/// Output tokens each simulated request decodes when predicting one record's iteration: enough for
/// steady iterations, few enough that the context barely moves (a resolution of the method).
const DECODE_TOKENS: u32 = 16;

/// `tpsim-calibrate fit-host MEAS.json… --scenario FILE [--out costs.toml]`.
#[derive(Debug, Clone, Args)]
pub struct FitHostArgs {
    /// Measurement files; their SGLang `decode_throughput` records (`measure` decode) are used.
    #[arg(required = true, value_name = "MEAS.json")]
    pub measurements: Vec<PathBuf>,
    /// The scenario the server ran (model, engine, TP, speculative settings, hardware/profile).
    #[arg(long, value_name = "FILE")]
    pub scenario: PathBuf,
    /// Write an `[engine.costs]` fragment with the fitted value here.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Date to record in the fragment's comment (never taken from the clock).
    #[arg(long)]
    pub date: Option<String>,
}

/// One record's observation.
#[derive(Debug, Clone, PartialEq)]
pub struct HostRow {
    pub label: String,
    pub batch: u32,
    /// Context per request used for the prediction, tokens.
    pub ctx: u32,
    pub measured_us: f64,
    pub device_us: f64,
}

/// The fitted overhead.
#[derive(Debug, Clone, PartialEq)]
pub struct HostFit {
    pub rows: Vec<HostRow>,
    /// Mean residual and its 95 % interval, µs.
    pub value_us: f64,
    pub ci_low_us: f64,
    pub ci_high_us: f64,
    /// The scenario's own value, µs.
    pub start_us: f64,
}

/// One iteration at `batch` requests of context `ctx` on `s` with no host overhead, µs.
pub fn device_iteration_us(s: &Scenario, batch: u32, ctx: u32) -> Result<f64, String> {
    let mut s = s.clone();
    s.engine.costs.host_overhead = Duration::ZERO;
    s.workload.concurrency = batch;
    s.workload.num_requests = batch;
    s.workload.prompt_len = LengthSpec::Fixed(ctx.max(1));
    s.workload.output_len = LengthSpec::Fixed(DECODE_TOKENS);
    let p = tpsim::decode::predict_with(&s, false).map_err(|e| format!("tpsim run: {e}"))?;
    Ok(p.main.mean_iteration_ms * 1e3)
}

/// The observations of `records` (named `file`) on `s`.
pub fn rows_of(s: &Scenario, file: &str, records: &[Record]) -> Result<Vec<HostRow>, FitError> {
    let spec = s.speculative.is_some();
    let mut out = Vec::new();
    for (k, r) in records.iter().enumerate() {
        let Record::DecodeThroughput {
            engine,
            batch,
            tok_s,
            accept_len,
            context_tokens,
            measure,
            ..
        } = r
        else {
            continue;
        };
        if engine != "sglang" || measure.as_deref().is_some_and(|m| m != "decode") {
            continue;
        }
        let bad = |message: String| FitError::Input {
            file: file.to_string(),
            message: format!("records[{k}]: {message}"),
        };
        if !(tok_s.is_finite() && *tok_s > 0.0) || *batch == 0 {
            // An idle log interval (0 tok/s) says nothing about an iteration.
            continue;
        }
        let len = match (spec, accept_len) {
            (true, Some(l)) if l.is_finite() && *l >= 1.0 => *l,
            (true, _) => {
                return Err(bad(
                    "the scenario speculates, but the record has no accept len ≥ 1: expected the log's `accept len:`"
                        .into(),
                ));
            }
            (false, _) => 1.0,
        };
        let ctx = match context_tokens {
            Some(t) => {
                u32::try_from(t / u64::from(*batch)).map_err(|_| bad(format!("#token {t} too large")))?
            }
            None => match s.workload.prompt_len {
                LengthSpec::Fixed(n) => n,
                _ => {
                    return Err(bad(
                        "no #token in the record and the scenario's prompt_len is not fixed: expected one of them".into(),
                    ));
                }
            },
        };
        let device_us = device_iteration_us(s, *batch, ctx).map_err(bad)?;
        out.push(HostRow {
            label: format!("{file}#{k} batch={batch} ctx={ctx}"),
            batch: *batch,
            ctx,
            measured_us: f64::from(*batch) * len / tok_s * 1e6,
            device_us,
        });
    }
    Ok(out)
}

/// Fits `host_overhead` to `rows` (at least 2).
pub fn fit(s: &Scenario, rows: Vec<HostRow>) -> Result<HostFit, FitError> {
    if rows.len() < 2 {
        return Err(FitError::TooFewRows {
            rows: rows.len(),
            params: 1,
        });
    }
    let r: Vec<f64> = rows.iter().map(|x| x.measured_us - x.device_us).collect();
    let mean = r.iter().mean();
    let se = r.iter().std_dev() / (r.len() as f64).sqrt();
    let t = StudentsT::new(0.0, 1.0, (r.len() - 1) as f64)
        .map_err(|e| FitError::Usage(format!("Student-t: {e}")))?
        .inverse_cdf(0.975);
    if mean <= 0.0 {
        return Err(FitError::Usage(format!(
            "the measured iterations are {:.1} µs faster on average than tpsim's device time alone: a host overhead cannot be negative; the device side is over-predicted (fit the hardware first)",
            -mean
        )));
    }
    Ok(HostFit {
        rows,
        value_us: mean,
        ci_low_us: (mean - t * se).max(0.0),
        ci_high_us: mean + t * se,
        start_us: s.engine.costs.host_overhead.as_us_f64(),
    })
}

/// The printed summary.
pub fn text(f: &HostFit, scenario: &str) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "fit-host on {scenario}: {} decode records; measured iteration = batch × accept len ÷ gen throughput",
        f.rows.len()
    );
    let _ = writeln!(
        o,
        "{:>6} {:>7} {:>14} {:>14} {:>14}",
        "batch", "ctx", "measured us", "device us", "residual us"
    );
    for r in &f.rows {
        let _ = writeln!(
            o,
            "{:>6} {:>7} {:>14.1} {:>14.1} {:>14.1}",
            r.batch,
            r.ctx,
            r.measured_us,
            r.device_us,
            r.measured_us - r.device_us
        );
    }
    let _ = writeln!(
        o,
        "host_overhead {:.1} us [{:.1}, {:.1}] (95 %), scenario {:.1} us",
        f.value_us, f.ci_low_us, f.ci_high_us, f.start_us
    );
    o
}

/// The `[engine.costs]` fragment `--out` writes: the value, with interval and provenance in comments.
pub fn fragment(f: &HostFit, args: &FitHostArgs) -> String {
    let files: Vec<String> = args
        .measurements
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    format!(
        "# host_overhead fitted by tpsim-calibrate fit-host {} (book/src/calibration.md){}.\n# Scenario {}; measurements {}; {} SGLang decode records.\n# 95 % interval [{:.1}, {:.1}] us: mean residual of the measured iteration time over tpsim's device time.\n# Paste into the scenario (or its engine preset):\n[engine.costs]\nhost_overhead = \"{:.1}us\"\n",
        env!("CARGO_PKG_VERSION"),
        args.date.as_deref().map(|d| format!(", {d}")).unwrap_or_default(),
        args.scenario.display(),
        files.join(", "),
        f.rows.len(),
        f.ci_low_us,
        f.ci_high_us,
        f.value_us
    )
}

/// Runs `fit-host`; returns the exit code (0 ok, 2 bad input, 1 cannot write the fragment).
pub fn run(args: FitHostArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    // The fragment must not overwrite a measurement file, the scenario or a file it reads.
    let mut inputs = args.measurements.clone();
    inputs.push(args.scenario.clone());
    if let Ok(s) = tpsim::scenario::load(&args.scenario) {
        inputs.extend(s.inputs);
    }
    let cmd = super::cli::Command::new("fit-host", "[engine.costs]", args.out.as_deref(), &inputs);
    super::cli::run_and_write(
        cmd,
        || {
            execute(&args).map(|f| {
                let summary = text(&f, &args.scenario.display().to_string());
                (summary, Some(fragment(&f, &args)))
            })
        },
        out,
        err,
    )
}

fn execute(args: &FitHostArgs) -> Result<HostFit, FitError> {
    let s = scenario::load(&args.scenario)?;
    if s.speculative.is_none() && s.engine.overlap_schedule {
        return Err(FitError::Usage(format!(
            "{}: SGLang's overlap scheduler hides the host work behind the GPU pass, so the residual does not measure it: use a scenario with disable_overlap_schedule = true (if the server ran with --disable-overlap-schedule) or with speculative decoding",
            args.scenario.display()
        )));
    }
    let mut rows = Vec::new();
    for p in &args.measurements {
        let m = super::rows::read_file(p)?;
        rows.extend(rows_of(&s, &p.display().to_string(), &m.records)?);
    }
    if rows.is_empty() {
        return Err(FitError::Usage(
            "no SGLang decode_throughput record with a positive throughput in the measurement files".into(),
        ));
    }
    fit(&s, rows)
}
