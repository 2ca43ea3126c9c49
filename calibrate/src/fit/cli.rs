//! The `fit` subcommand: arguments, the run, the printed summary and the profile file.

use super::{FitError, Row, rows};
use clap::Args;
use std::io::Write;
use std::path::PathBuf;
use tpsim::scenario::{self, profile::ProfileProvenance};

/// `tpsim-calibrate fit MEAS.json… --hardware PRESET [--params a,b] [--out profile.toml]`.
#[derive(Debug, Clone, Args)]
pub struct FitArgs {
    /// Measurement files (`tpsim-measurements/1` JSON); their `collective` records (link, protocol
    /// and SHM parameters) and bf16/fp16 `gemm` records (mem_efficiency, flops_efficiency,
    /// kernel_overhead) are fitted.
    #[arg(required = true, value_name = "MEAS.json")]
    pub measurements: Vec<PathBuf>,
    /// Hardware preset (bundled name or path) whose parameters are the starting point.
    #[arg(long, value_name = "PRESET")]
    pub hardware: String,
    /// Only the rows measured on this many GPUs.
    #[arg(long, value_name = "N")]
    pub gpus: Option<u32>,
    /// Parameters to fit, comma-separated `[hardware.params]` names (default: the PCIe link bandwidth
    /// of the GPUs' generation and pcie_hop_latency, each only if some row is sensitive to it).
    #[arg(long, value_name = "a,b,c", value_delimiter = ',')]
    pub params: Vec<String>,
    /// Write the profile TOML here (otherwise only the summary is printed).
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Hold out the rows whose label (`FILE#k op n=N size=S backend env…`) contains TEXT: they are
    /// not fitted, only evaluated before and after.
    #[arg(long, value_name = "TEXT")]
    pub holdout: Option<String>,
    /// Date to record in the profile's provenance (never taken from the clock).
    #[arg(long)]
    pub date: Option<String>,
    /// Machine name to record (default: the first measurement file's `machine`).
    #[arg(long)]
    pub machine: Option<String>,
    /// Fit the gemm records as the `default` class's memory-efficiency curve (one point per power of
    /// 4 of the bytes with ≥ 3 memory-bound rows) instead of as single parameters; the other records
    /// still fit `--params`.
    #[arg(long)]
    pub curves: bool,
}

/// Runs `fit`; returns the exit code (0 ok, 2 bad input, 1 cannot write the profile).
pub fn run(args: FitArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    // The profile must not overwrite a measurement file or a --hardware preset path.
    let mut inputs = args.measurements.clone();
    inputs.push(std::path::PathBuf::from(&args.hardware));
    let cmd = Command::new("fit", "profile", args.out.as_deref(), &inputs);
    run_and_write(cmd, || execute(&args), out, err)
}

/// A fitting subcommand as [`run_and_write`] runs it.
pub(crate) struct Command<'a> {
    /// Its name in messages (`fit`, `fit-throughput`, `fit-host`).
    pub name: &'a str,
    /// `--out`: where the file goes, if anywhere.
    pub out: Option<&'a std::path::Path>,
    /// The files it reads, which `--out` must not overwrite.
    pub inputs: &'a [PathBuf],
    /// What the file is, in the "… written to PATH" line.
    pub written: &'a str,
}

impl<'a> Command<'a> {
    /// Subcommand `name` writing its `written` file to `out`, reading `inputs`.
    pub fn new(
        name: &'a str,
        written: &'a str,
        out: Option<&'a std::path::Path>,
        inputs: &'a [PathBuf],
    ) -> Self {
        Command {
            name,
            out,
            inputs,
            written,
        }
    }
}

/// The shared run of the fitting subcommands: refuses an `--out` that names one of the inputs
/// (exit 2), runs `execute`, prints its summary and writes the file text it returns (if any) to
/// `--out`; returns the exit code (0 ok, 2 bad input or a fit error, 1 the file cannot be written).
pub(crate) fn run_and_write(
    cmd: Command,
    execute: impl FnOnce() -> Result<(String, Option<String>), FitError>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let name = cmd.name;
    if let Some(Err(e)) = cmd.out.map(|o| tpsim::files::check_output(o, cmd.inputs)) {
        let _ = writeln!(err, "tpsim-calibrate {name}: {e}");
        return 2;
    }
    match execute() {
        Ok((summary, file)) => {
            let _ = write!(out, "{summary}");
            if let (Some(path), Some(text)) = (cmd.out, file) {
                if let Err(e) = tpsim::files::write_output(path, cmd.inputs, text.as_bytes()) {
                    let _ = writeln!(err, "tpsim-calibrate {name}: {e}");
                    return if e.is_bad_input() { 2 } else { 1 };
                }
                let _ = writeln!(out, "{} written to {}", cmd.written, path.display());
            }
            0
        }
        Err(e) => {
            let _ = writeln!(err, "tpsim-calibrate {name}: {e}");
            2
        }
    }
}

fn execute(args: &FitArgs) -> Result<(String, Option<String>), FitError> {
    let mut hw = scenario::hardware_from_preset(&args.hardware)?;
    // A fitted `flops_efficiency` is the rate at every size: the preset's FLOP curve would hide it
    // from the large GEMMs (issue #18, prefillgpus; a profile's value drops it the same way).
    if args.params.iter().any(|p| p.trim() == "flops_efficiency") {
        hw.drop_flop_curves();
    }
    let mut all: Vec<Row> = Vec::new();
    let mut machine = args.machine.clone();
    let mut files = Vec::new();
    let mut quant = Vec::new();
    for p in &args.measurements {
        let m = rows::read_file(p)?;
        let name = p.display().to_string();
        machine = machine.or(m.provenance.machine.clone());
        all.extend(rows::rows_of(&name, &m)?);
        if args.curves {
            quant.extend(super::curves::quant_gemms_of(&name, &m)?);
        }
        files.push(name);
    }
    if let Some(n) = args.gpus {
        all.retain(|r| r.n_gpus == n as usize);
    }
    if all.is_empty() {
        return Err(FitError::Usage(format!(
            "no collective or bf16/fp16 gemm record{} in {}",
            args.gpus.map(|n| format!(" on {n} GPUs")).unwrap_or_default(),
            files.join(", ")
        )));
    }
    // Issue #16: with the default curve fitted, quantized gemm rows give each format's factor.
    let mut formats = Vec::new();
    let curve = if args.curves {
        let c = super::curves::fit_curve(&hw, &all)?;
        formats = super::curves::fit_formats(&c.hardware, &quant)?;
        all.retain(|r| r.op.kernel_bytes_flops().is_none());
        if all.is_empty() && args.params.is_empty() {
            return curve_only(args, &c, &formats, machine, files);
        }
        Some(c)
    } else {
        None
    };
    if all.is_empty() {
        return Err(FitError::Usage(
            "--params with --curves: no collective record left to fit them".into(),
        ));
    }
    let defaulted = args.params.is_empty();
    let mut names: Vec<String> = if defaulted {
        super::default_params(&hw)
    } else {
        args.params.iter().map(|s| s.trim().to_string()).collect()
    };
    let holdout = args.holdout.clone();
    let is_held = |r: &Row| holdout.as_deref().is_some_and(|t| r.label.contains(t));
    if holdout.is_some() && !all.iter().any(is_held) {
        return Err(FitError::Usage(format!(
            "--holdout `{}`: no row label contains it (labels look like `{}`)",
            holdout.as_deref().unwrap_or(""),
            all[0].label
        )));
    }
    // Default parameters the rows cannot pin are dropped with a note; named ones are an error.
    let mut dropped = Vec::new();
    let r = loop {
        match super::fit(&hw, &all, &names, &is_held) {
            Err(FitError::Insensitive(n)) if defaulted && names.len() > 1 => {
                names.retain(|x| *x != n);
                dropped.push(n);
            }
            other => break other?,
        }
    };
    let mut summary = String::new();
    for n in &dropped {
        summary.push_str(&format!(
            "note: no row is sensitive to {n}: left at the preset's value (default --params)\n"
        ));
    }
    summary.push_str(&super::text(&r, &args.hardware, args.holdout.as_deref()));
    if let Some(c) = &curve {
        summary.push_str(&super::curve_text(c));
        summary.push_str(&super::formats_text(&formats));
    }
    let profile = if args.out.is_some() {
        let mut notes = vec![format!(
            "fitted on {} rows; median |error| before {:.1} %, after {:.1} %",
            r.fitted_rows,
            r.before.median_abs * 100.0,
            r.after.median_abs * 100.0
        )];
        if let (Some(t), Some(b), Some(a)) = (&args.holdout, r.holdout_before, r.holdout_after) {
            notes.push(format!(
                "held out {} rows matching `{t}`: median |error| before {:.1} %, after {:.1} %",
                b.rows,
                b.median_abs * 100.0,
                a.median_abs * 100.0
            ));
        }
        if let Some(c) = &curve {
            notes.push(format!(
                "curve fitted on {} gemm rows; median |error| before {:.1} %, after {:.1} %",
                c.rows,
                c.before.median_abs * 100.0,
                c.after.median_abs * 100.0
            ));
        }
        let provenance = ProfileProvenance {
            tool: format!("tpsim-calibrate fit {}", env!("CARGO_PKG_VERSION")),
            date: args.date.clone(),
            hardware: Some(args.hardware.clone()),
            machine,
            measurements: files,
            notes,
            range: None,
        };
        let mut p = super::profile(&r, provenance);
        p.compute = curve.as_ref().map(|c| {
            let mut sec = super::curve_section(c);
            super::add_formats(&mut sec, &formats);
            sec
        });
        let body = toml::to_string(&p).map_err(|e| FitError::Usage(format!("profile: {e}")))?;
        Some(header(&body))
    } else {
        None
    };
    Ok((summary, profile))
}

fn header(body: &str) -> String {
    format!(
        "# Hardware profile written by tpsim-calibrate fit (book/src/calibration.md).\n# Use it with `[hardware] profile = \"<this file>\"` or `tpsim collective --profile <this file>`.\n{body}"
    )
}

/// `--curves` on gemm records alone: the curve's summary and a profile holding only the curve.
fn curve_only(
    args: &FitArgs,
    c: &super::curves::CurveFit,
    formats: &[super::curves::FormatFit],
    machine: Option<String>,
    files: Vec<String>,
) -> Result<(String, Option<String>), FitError> {
    let summary =
        format!("fit on {}: ", args.hardware) + &super::curve_text(c) + &super::formats_text(formats);
    let profile = if args.out.is_some() {
        let p = scenario::profile::ProfileFile {
            provenance: ProfileProvenance {
                tool: format!("tpsim-calibrate fit {}", env!("CARGO_PKG_VERSION")),
                date: args.date.clone(),
                hardware: Some(args.hardware.clone()),
                machine,
                measurements: files,
                notes: vec![format!(
                    "curve fitted on {} rows; median |error| before {:.1} %, after {:.1} %",
                    c.rows,
                    c.before.median_abs * 100.0,
                    c.after.median_abs * 100.0
                )],
                range: None,
            },
            params: Default::default(),
            compute: Some({
                let mut sec = super::curve_section(c);
                super::add_formats(&mut sec, formats);
                sec
            }),
            correlation: None,
        };
        let body = toml::to_string(&p).map_err(|e| FitError::Usage(format!("profile: {e}")))?;
        Some(header(&body))
    } else {
        None
    };
    Ok((summary, profile))
}
