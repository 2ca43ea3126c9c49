//! `tpsim-calibrate fit-throughput`: hardware parameters fitted to end-to-end decode throughput.
//!
//! Input is a table of (scenario file, measured output tok/s) pairs. Each row is predicted by tpsim's
//! own decode simulation (`tpsim::decode::predict_with`, the library entry of `tpsim run`; its
//! `output_tok_s`, decode only) with the chosen `[hardware.params]` replaced by one shared value each,
//! and the values are fitted by the same Huber-robust Levenberg–Marquardt on log tok/s as `fit`
//! ([`super::solve_params`]), with the same 95 % intervals. Rows whose label contains the `--holdout`
//! text are only evaluated, before and after, so a fit on one set of rows can be tested on another.

use super::{Errors, FitError, FitResult, lm};
use clap::Args;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::io::Write;
use std::path::{Path, PathBuf};
use tpsim::scenario::profile::{self as prof, ProfileProvenance};
use tpsim::scenario::{self, Hardware, HwParams, LengthSpec, Scenario};

/// `tpsim-calibrate fit-throughput PAIRS.tsv --hardware PRESET [--params a,b] [--holdout TEXT]`.
#[derive(Debug, Clone, Args)]
pub struct FitThroughputArgs {
    /// Tab-separated pairs: a header with `scenario` (a scenario file, relative to the table's
    /// folder) and `tok_s` (measured decode output tok/s, > 0), optionally `label`; `#` lines are
    /// comments.
    #[arg(value_name = "PAIRS.tsv")]
    pub pairs: PathBuf,
    /// Hardware preset (bundled name or path) whose values of `--params` are the starting point and
    /// which the profile is written against.
    #[arg(long, value_name = "PRESET")]
    pub hardware: String,
    /// Parameters to fit, comma-separated `[hardware.params]` names; each row's scenario gets the
    /// same value of each.
    #[arg(
        long,
        value_name = "a,b",
        value_delimiter = ',',
        default_value = "kernel_overhead,mem_efficiency"
    )]
    pub params: Vec<String>,
    /// Hold out the rows whose label contains TEXT: not fitted, only evaluated before and after.
    #[arg(long, value_name = "TEXT")]
    pub holdout: Option<String>,
    /// Write the profile TOML here (otherwise only the summary is printed).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Date to record in the profile's provenance (never taken from the clock).
    #[arg(long)]
    pub date: Option<String>,
    /// Decode this many output tokens per request instead of each scenario's `output_len`: a speed
    /// knob (each prediction is a whole `tpsim run`, simulated once per 64-token context bucket). At
    /// batch 1 from 512–1024-token prompts the bundled validation rows' predicted tok/s move by
    /// < 0.3 % between 64 and 512 tokens.
    #[arg(long, value_name = "N")]
    pub output_len: Option<u32>,
}

/// One measured row: its scenario and measured decode output tok/s.
#[derive(Debug, Clone)]
pub struct Pair {
    /// The `label` column, or the scenario path as written.
    pub label: String,
    /// The scenario path as written in the table.
    pub file: String,
    pub scenario: Scenario,
    pub measured_tok_s: f64,
    /// Every cell of the row by its column name (extra columns such as `model` or `box` group the
    /// rows for `crossval throughput`).
    pub columns: BTreeMap<String, String>,
}

/// One row's predictions before and after the fit, tok/s.
#[derive(Debug, Clone, PartialEq)]
pub struct RowResult {
    pub label: String,
    pub measured_tok_s: f64,
    pub before_tok_s: f64,
    pub after_tok_s: f64,
    pub held_out: bool,
}

/// The fit and its rows.
#[derive(Debug, Clone)]
pub struct ThroughputFit {
    /// Parameters, intervals, errors (relative error of tok/s) before and after; `hardware` is the
    /// `--hardware` preset with the fitted values.
    pub fit: FitResult,
    pub rows: Vec<RowResult>,
}

/// Reads a pairs table (see [`FitThroughputArgs::pairs`]) and loads each scenario.
pub fn read_pairs(path: &Path) -> Result<Vec<Pair>, FitError> {
    let file = path.display().to_string();
    let text = tpsim::files::read_text(path).map_err(|e| FitError::Input {
        file: file.clone(),
        message: format!("cannot read: {e}"),
    })?;
    let dir = path.parent().unwrap_or(Path::new(""));
    let bad = |line: usize, message: String| FitError::Input {
        file: format!("{file}:{line}"),
        message,
    };
    let mut lines = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim_start().starts_with('#'));
    let Some((hl, header)) = lines.next() else {
        return Err(bad(
            1,
            "empty: expected a header with `scenario` and `tok_s` columns".into(),
        ));
    };
    let header: Vec<&str> = header.split('\t').map(str::trim).collect();
    let col = |name: &str| header.iter().position(|h| *h == name);
    let (Some(si), Some(ti)) = (col("scenario"), col("tok_s")) else {
        return Err(bad(
            hl,
            format!(
                "header `{}`: expected tab-separated columns `scenario` and `tok_s` (and optionally `label`)",
                header.join("\t")
            ),
        ));
    };
    let li = col("label");
    let mut out = Vec::new();
    for (n, line) in lines {
        let f: Vec<&str> = line.split('\t').map(str::trim).collect();
        let get = |k: usize| f.get(k).copied().unwrap_or("");
        let sc = get(si);
        if sc.is_empty() {
            return Err(bad(n, "`scenario` is empty: expected a scenario file".into()));
        }
        let tok_s: f64 = get(ti)
            .parse()
            .ok()
            .filter(|t: &f64| t.is_finite() && *t > 0.0)
            .ok_or_else(|| bad(n, format!("tok_s `{}`: expected measured tok/s > 0", get(ti))))?;
        let scenario = scenario::load(&dir.join(sc)).map_err(|e| bad(n, e.to_string()))?;
        let label = li.map(get).filter(|l| !l.is_empty()).unwrap_or(sc);
        out.push(Pair {
            label: label.to_string(),
            file: sc.to_string(),
            scenario,
            measured_tok_s: tok_s,
            columns: header
                .iter()
                .enumerate()
                .map(|(k, h)| (h.to_string(), get(k).to_string()))
                .collect(),
        });
    }
    if out.is_empty() {
        return Err(bad(hl, "no row under the header".into()));
    }
    Ok(out)
}

/// Makes every pair's scenario decode `n` output tokens per request (`--output-len`).
pub fn set_output_len(pairs: &mut [Pair], n: u32) {
    for p in pairs {
        p.scenario.workload.output_len = LengthSpec::Fixed(n);
    }
}

/// Predicted decode output tok/s of `pair` with parameters `names` taken from `params`.
pub fn predict(pair: &Pair, names: &[String], params: &HwParams) -> Result<f64, String> {
    let mut s = pair.scenario.clone();
    for n in names {
        let v = prof::get(params, n).ok_or_else(|| format!("`{n}` is not set"))?;
        prof::set(&mut s.hardware.params, n, v).map_err(|m| format!("{n}: {m}"))?;
        if n == "flops_efficiency" {
            // The fitted rate stands for every kernel size (issue #18, prefillgpus).
            s.hardware.drop_flop_curves();
        }
    }
    let p = tpsim::decode::predict_with(&s, false).map_err(|e| format!("{}: tpsim run: {e}", pair.label))?;
    let t = p.main.output_tok_s();
    if t.is_finite() && t > 0.0 {
        Ok(t)
    } else {
        Err(format!("{}: the scenario decodes no token", pair.label))
    }
}

fn errors(rows: &[&RowResult], after: bool) -> Option<Errors> {
    if rows.is_empty() {
        return None;
    }
    let e: Vec<f64> = rows
        .iter()
        .map(|r| {
            let p = if after { r.after_tok_s } else { r.before_tok_s };
            ((p - r.measured_tok_s) / r.measured_tok_s).abs()
        })
        .collect();
    Some(Errors {
        rows: e.len(),
        median_abs: lm::median(e.clone()),
        worst_abs: e.iter().copied().fold(0.0, f64::max),
    })
}

/// Fits `names` of `hw` to the pairs whose label does not contain `holdout`.
pub fn fit(
    hw: &Hardware,
    pairs: &[Pair],
    names: &[String],
    holdout: Option<&str>,
) -> Result<ThroughputFit, FitError> {
    let held = |p: &Pair| holdout.is_some_and(|t| p.label.contains(t));
    if let Some(t) = holdout
        && !pairs.iter().any(held)
    {
        return Err(FitError::Usage(format!(
            "--holdout `{t}`: no row label contains it (the first is `{}`)",
            pairs[0].label
        )));
    }
    let train: Vec<&Pair> = pairs.iter().filter(|p| !held(p)).collect();
    if train.is_empty() {
        return Err(FitError::Usage("--holdout leaves no row to fit".into()));
    }
    let y: Vec<f64> = train.iter().map(|p| p.measured_tok_s.ln()).collect();
    // Predictions by (scenario file, bits of the fitted values): the solver evaluates some points
    // more than once, and rows that share a scenario file (several measurements of one
    // configuration) share its predictions. A pure function of its key, so the cache changes no
    // result.
    let mut memo: BTreeMap<(String, Vec<u64>), f64> = BTreeMap::new();
    let mut cached = |p: &Pair, params: &HwParams| -> Result<f64, String> {
        let bits = names
            .iter()
            .map(|n| prof::get(params, n).map_or(u64::MAX, f64::to_bits))
            .collect();
        let key = (p.file.clone(), bits);
        if let Some(v) = memo.get(&key) {
            return Ok(*v);
        }
        let v = predict(p, names, params)?;
        memo.insert(key, v);
        Ok(v)
    };
    let mut model = |params: &HwParams| -> Result<Vec<f64>, String> {
        train.iter().map(|p| cached(p, params).map(f64::ln)).collect()
    };
    let (sol, params, fitted) = super::solve_params(&hw.params, names, &y, &mut model)?;
    let mut rows = Vec::new();
    for p in pairs {
        let before = cached(p, &hw.params).map_err(FitError::Usage)?;
        let after = cached(p, &fitted).map_err(FitError::Usage)?;
        rows.push(RowResult {
            label: p.label.clone(),
            measured_tok_s: p.measured_tok_s,
            before_tok_s: before,
            after_tok_s: after,
            held_out: held(p),
        });
    }
    let (tr, te): (Vec<&RowResult>, Vec<&RowResult>) = rows.iter().partition(|r| !r.held_out);
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let ss_res: f64 = sol.residuals.iter().map(|r| r * r).sum();
    let mut hardware = hw.clone();
    hardware.params = fitted;
    let fit = FitResult {
        params,
        fitted_rows: tr.len(),
        held_out_rows: te.len(),
        r2: if ss_tot > 0.0 { 1.0 - ss_res / ss_tot } else { 1.0 },
        rms_log_error: (ss_res / y.len() as f64).sqrt(),
        downweighted: sol.weights.iter().filter(|w| **w < 0.5).count(),
        before: errors(&tr, false).unwrap_or(Errors {
            rows: 0,
            median_abs: 0.0,
            worst_abs: 0.0,
        }),
        after: errors(&tr, true).unwrap_or(Errors {
            rows: 0,
            median_abs: 0.0,
            worst_abs: 0.0,
        }),
        holdout_before: errors(&te, false),
        holdout_after: errors(&te, true),
        lm_iterations: sol.lm_iterations,
        irls_rounds: sol.irls_rounds,
        hardware,
        correlation: super::correlation_of(&sol.covariance),
        range: tpsim::scenario::profile_fit::ProfileRange {
            batch: tpsim::scenario::profile_fit::span(
                train.iter().map(|p| u64::from(p.scenario.workload.concurrency)),
            ),
            tp: tpsim::scenario::profile_fit::span(train.iter().map(|p| u64::from(p.scenario.engine.tp))),
            ..Default::default()
        },
    };
    Ok(ThroughputFit { fit, rows })
}

/// The per-row table: measured, predicted before and after, and measured ÷ predicted.
pub fn rows_text(f: &ThroughputFit) -> String {
    let mut o = String::new();
    let _ = writeln!(
        o,
        "{:<44} {:>9} {:>9} {:>7} {:>9} {:>7}  set",
        "row", "measured", "before", "ratio", "after", "ratio"
    );
    for r in &f.rows {
        let _ = writeln!(
            o,
            "{:<44} {:>9.1} {:>9.1} {:>7.3} {:>9.1} {:>7.3}  {}",
            r.label,
            r.measured_tok_s,
            r.before_tok_s,
            r.measured_tok_s / r.before_tok_s,
            r.after_tok_s,
            r.measured_tok_s / r.after_tok_s,
            if r.held_out { "held out" } else { "fit" }
        );
    }
    let _ = writeln!(o, "(tok/s; ratio = measured ÷ predicted)");
    o
}

/// Runs `fit-throughput`; returns the exit code (0 ok, 2 bad input, 1 cannot write the profile).
pub fn run(args: FitThroughputArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    // The profile must not overwrite the pairs table, a scenario or a file one reads.
    let mut inputs = vec![args.pairs.clone(), PathBuf::from(&args.hardware)];
    if let Ok(pairs) = read_pairs(&args.pairs) {
        inputs.extend(pairs.into_iter().flat_map(|p| p.scenario.inputs));
    }
    let cmd = super::cli::Command::new("fit-throughput", "profile", args.out.as_deref(), &inputs);
    super::cli::run_and_write(cmd, || execute(&args), out, err)
}

fn execute(args: &FitThroughputArgs) -> Result<(String, Option<String>), FitError> {
    let hw = scenario::hardware_from_preset(&args.hardware)?;
    let mut pairs = read_pairs(&args.pairs)?;
    match args.output_len {
        Some(0) => {
            return Err(FitError::Usage(
                "--output-len 0: expected at least 1 token".into(),
            ));
        }
        Some(n) => set_output_len(&mut pairs, n),
        None => {}
    }
    let names: Vec<String> = args.params.iter().map(|s| s.trim().to_string()).collect();
    let f = fit(&hw, &pairs, &names, args.holdout.as_deref())?;
    let mut summary = super::text(&f.fit, &args.hardware, args.holdout.as_deref())
        .replace("median |error|", "median |error| of tok/s")
        .replace("R² (log time)", "R² (log tok/s)");
    summary.push_str(&rows_text(&f));
    let Some(out) = &args.out else {
        return Ok((summary, None));
    };
    let pct = |e: Errors| (e.median_abs * 100.0, e.worst_abs * 100.0);
    let (b, a) = (pct(f.fit.before), pct(f.fit.after));
    let mut notes = vec![format!(
        "command: tpsim-calibrate fit-throughput {} --hardware {} --params {}{}{}{} --out {}",
        args.pairs.display(),
        args.hardware,
        names.join(","),
        args.output_len
            .map(|n| format!(" --output-len {n}"))
            .unwrap_or_default(),
        args.holdout
            .as_ref()
            .map(|h| format!(" --holdout '{h}'"))
            .unwrap_or_default(),
        args.date
            .as_ref()
            .map(|d| format!(" --date {d}"))
            .unwrap_or_default(),
        out.display()
    )];
    notes.push(format!(
        "fitted on {} rows: median |error| of tok/s before {:.1} %, after {:.1} %; worst before {:.1} %, after {:.1} %",
        f.fit.fitted_rows, b.0, a.0, b.1, a.1
    ));
    if let (Some(t), Some(hb), Some(ha)) = (&args.holdout, f.fit.holdout_before, f.fit.holdout_after) {
        let (hb, ha) = (pct(hb), pct(ha));
        notes.push(format!(
            "held out {} rows whose label contains `{t}`: median |error| of tok/s before {:.1} %, after {:.1} %; worst before {:.1} %, after {:.1} %",
            f.fit.held_out_rows, hb.0, ha.0, hb.1, ha.1
        ));
    }
    for r in &f.rows {
        notes.push(format!(
            "{} row `{}`: measured {} tok/s, predicted {:.1} before, {:.1} after",
            if r.held_out { "held-out" } else { "fitted" },
            r.label,
            r.measured_tok_s,
            r.before_tok_s,
            r.after_tok_s
        ));
    }
    let provenance = ProfileProvenance {
        tool: format!("tpsim-calibrate fit-throughput {}", env!("CARGO_PKG_VERSION")),
        date: args.date.clone(),
        hardware: Some(args.hardware.clone()),
        machine: None,
        measurements: vec![args.pairs.display().to_string()],
        notes,
        range: None,
    };
    let p = super::profile(&f.fit, provenance);
    let body = toml::to_string_pretty(&p).map_err(|e| FitError::Usage(format!("profile: {e}")))?;
    Ok((
        summary,
        Some(format!(
            "# Hardware profile written by tpsim-calibrate fit-throughput (book/src/calibration.md).\n# Use it with `[hardware] profile = \"<this file>\"`.\n{body}"
        )),
    ))
}
