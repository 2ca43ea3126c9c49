//! The `tpsim-calibrate` command line (clap), callable in-process for tests. Bad input (unreadable
//! or malformed files, unknown formats, bad arguments) exits with code 2 and a message naming the
//! file, the line and what was expected; `check` exits 1 when the median error is above the
//! threshold.

use crate::{check, ingest};
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::path::PathBuf;

/// Exit code for bad input, as clap uses for usage errors.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for a failed gate (`check` above its threshold) or an output that cannot be written.
pub const EXIT_FAILURE: i32 = 1;

#[derive(Debug, Parser)]
#[command(
    name = "tpsim-calibrate",
    version,
    about = "Calibrate tpsim to your own GPU box: measure, ingest logs, fit a profile, check it",
    long_about = "Workflow: `bench` measures this machine's GPUs (needs the `cuda` feature and a driver), \
`ingest` turns nccl-tests output and SGLang/vLLM logs into measurements, `fit` writes a hardware profile \
that scenarios will consume (issue #7), and `check` compares predictions with measurements."
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Run GPU microbenchmarks (memory, P2P, GEMM, NCCL allreduce) and write a measurement file.
    Bench(crate::bench::cli::BenchArgs),
    /// Parse nccl-tests tables, SGLang/vLLM server logs or SGLang bench JSON into one measurement
    /// file (JSON, schema tpsim-measurements/1), records in file order.
    #[command(
        after_help = "Examples:\n  tpsim-calibrate ingest all_reduce_perf.txt --out box.json --label my-box\n  tpsim-calibrate ingest server.log bench.jsonl --out serve.json\n  tpsim memory scenarios/seed/baseline.toml --log > plan.log && tpsim-calibrate ingest plan.log"
    )]
    Ingest {
        /// Input files, read in order.
        #[arg(required = true)]
        files: Vec<PathBuf>,
        /// Write the measurement file here instead of standard output.
        #[arg(long, value_name = "FILE.json")]
        out: Option<PathBuf>,
        /// auto (detect from the content), nccl-tests, sglang-log, vllm-log or sglang-bench-json.
        #[arg(long, default_value = "auto")]
        format: String,
        /// A name for the machine (provenance.machine), overriding a host name found in the input.
        #[arg(long, value_name = "TEXT")]
        label: Option<String>,
        /// The NCCL environment the runs used, KEY=VALUE (repeatable), e.g. NCCL_P2P_LEVEL=SYS:
        /// nccl-tests output does not record it, and `fit`/`check` need it to choose the transport.
        /// Stamped on every collective record that carries no environment of its own.
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
    },
    /// Fit hardware parameters to measured collectives and GEMMs, with 95 % intervals; write a profile.
    Fit(crate::fit::cli::FitArgs),
    /// Fit SGLang's per-iteration host overhead to logged decode throughput on a scenario, with a
    /// 95 % interval; write an `[engine.costs]` fragment.
    #[command(
        name = "fit-host",
        after_help = "Example:\n  tpsim-calibrate ingest server.log --out serve.json && tpsim-calibrate fit-host serve.json --scenario my.toml --out costs.toml"
    )]
    FitHost(crate::fit::host::FitHostArgs),
    /// Fit hardware parameters (default kernel_overhead, mem_efficiency) to measured end-to-end
    /// decode tok/s of scenarios, with 95 % intervals and an optional held-out set; write a profile.
    #[command(
        name = "fit-throughput",
        after_help = "PAIRS.tsv: tab-separated, header `label  scenario  tok_s` (label optional), scenario paths relative to the table.\nExample:\n  tpsim-calibrate fit-throughput pairs.tsv --hardware rtx-pro-6000-8x-1switch --holdout Qwen --out profile.toml"
    )]
    FitThroughput(crate::fit::throughput::FitThroughputArgs),
    /// Out-of-sample error figures: refit the fitted constants without one system (allreduce) or one
    /// group of rows (throughput, hopper) and predict it, for each in turn; in-sample figures beside.
    #[command(
        after_help = "Examples:\n  tpsim-calibrate crossval allreduce\n  tpsim-calibrate crossval throughput --hardware rtx-pro-6000-8x-1switch --group box --output-len 64\n  tpsim-calibrate crossval hopper --json"
    )]
    Crossval(crate::crossval::CrossvalArgs),
    /// Compare tpsim's predictions with measurements row by row: signed error per row, median
    /// |error| and worst ratio; exit 1 when the median exceeds the threshold.
    #[command(
        after_help = "Examples:\n  tpsim-calibrate check --hardware rtx-pro-6000-4x-turin-same-numa --env NCCL_P2P_LEVEL=SYS box.json\n  tpsim-calibrate check --scenario scenarios/seed/baseline.toml serve.json --threshold 15 --json"
    )]
    Check {
        /// A scenario: hardware, model, engine and workload come from it (all record kinds).
        #[arg(long, value_name = "SCENARIO")]
        scenario: Option<PathBuf>,
        /// A hardware preset instead of a scenario (collective records only).
        #[arg(long, value_name = "PRESET")]
        hardware: Option<String>,
        /// A hardware profile (TOML, as `fit` writes) over the preset's parameters; with
        /// --hardware only (a scenario names its profile in `[hardware] profile`).
        #[arg(long, value_name = "FILE.toml")]
        profile: Option<PathBuf>,
        /// NCCL environment for collective rows, KEY=VALUE (repeatable), e.g. NCCL_P2P_LEVEL=SYS.
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// Gate on the median |error|, in percent.
        #[arg(long, default_value_t = 25.0, value_name = "PCT")]
        threshold: f64,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
        /// Measurement files (tpsim-measurements/1).
        #[arg(required = true)]
        measurements: Vec<PathBuf>,
    },
    // Issue #17 point 6:
    /// Run the real engine on this box: launch `tpsim engine-args SCENARIO`'s command, wait until it
    /// serves, run the engine's benchmark with the scenario's workload, keep log and result in a
    /// folder, ingest them and print `check` of the prediction against the measurement. Exits 2
    /// without the engine installed.
    #[command(
        after_help = "Examples:\n  tpsim-calibrate run-engine scenarios/examples/llama-3.1-8b-h100.toml --out run1\n  tpsim-calibrate run-engine my.toml --python ~/venvs/sglang/bin/python --port 30001\n  tpsim-calibrate run-engine my.toml --dry-run"
    )]
    RunEngine(crate::run_engine::RunEngineArgs),
    // Issue #18 (load):
    /// Turn a bench_serving result with per-request details into a request trace (JSON lines of
    /// prompt and output tokens) for a scenario's `[workload] trace`.
    #[command(
        name = "trace-from-bench",
        after_help = "Example:\n  tpsim-calibrate trace-from-bench bench.jsonl --out trace.jsonl"
    )]
    TraceFromBench(crate::trace_from_bench::TraceFromBenchArgs),
    // Issue #19 point 4:
    /// Rank structural hypotheses (topology presets × P2P level × NCCL release × collapse × ACS ×
    /// ForceP2P) by how well each explains a box's observations after fitting its continuous
    /// parameters; say which the data excludes; write a profile for the best.
    #[command(
        after_help = "Example:\n  tpsim-calibrate identify scenarios/observations/seed.toml --holdout S7 --write-profile seed-profile.toml"
    )]
    Identify(crate::identify::IdentifyArgs),
}

/// Parses `args` as `tpsim` does: `--help`/`--version` text to `out`, a usage error to `err`, and
/// `Err` carrying clap's exit code (0 or 2), so both binaries answer bad arguments alike.
fn parse_args(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> Result<Cli, i32> {
    Cli::try_parse_from(args).map_err(|e| {
        let code = e.exit_code();
        let text = e.render().to_string();
        let _ = if code == 0 {
            write!(out, "{text}")
        } else {
            write!(err, "{text}")
        };
        code
    })
}

/// Runs the CLI on `args` (including the program name), writing to `out`/`err`; returns the exit code.
pub fn main_with_args(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let cli = match parse_args(args, out, err) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match cli.command {
        Command::Bench(args) => crate::bench::cli::run(args, out, err),
        Command::Fit(args) => crate::fit::cli::run(args, out, err),
        Command::FitHost(args) => crate::fit::host::run(args, out, err),
        Command::FitThroughput(args) => crate::fit::throughput::run(args, out, err),
        Command::Crossval(args) => crate::crossval::run(args, out, err),
        // Issue #17 point 6:
        Command::RunEngine(args) => crate::run_engine::run(args, out, err),
        Command::TraceFromBench(args) => crate::trace_from_bench::run(args, out, err),
        Command::Identify(args) => crate::identify::run(args, out, err), // issue #19 point 4
        Command::Ingest {
            files,
            out: out_file,
            format,
            label,
            env,
        } => ingest_cmd(&files, out_file, &format, label.as_deref(), &env, out, err),
        Command::Check {
            scenario,
            hardware,
            profile,
            env,
            threshold,
            json,
            measurements,
        } => {
            let target = check::Target {
                scenario,
                hardware,
                profile,
                env,
            };
            check_cmd(&target, &measurements, threshold, json, out, err)
        }
    }
}

fn bad_input(err: &mut dyn Write, e: &dyn std::fmt::Display) -> i32 {
    let _ = writeln!(err, "error: {e}");
    EXIT_BAD_INPUT
}

fn ingest_cmd(
    files: &[PathBuf],
    out_file: Option<PathBuf>,
    format: &str,
    label: Option<&str>,
    env: &[String],
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    // Same rules as tpsim's `--env` (known NCCL_* names and values), so a typo is an error here.
    if let Err(e) = tpsim::scenario::nccl_env_from_args(env) {
        return bad_input(err, &e);
    }
    let Some(format) = ingest::Format::from_name(format) else {
        return bad_input(
            err,
            &format!(
                "--format `{format}`: expected auto, nccl-tests, sglang-log, vllm-log or sglang-bench-json"
            ),
        );
    };
    let paths: Vec<&std::path::Path> = files.iter().map(PathBuf::as_path).collect();
    // An --out that is one of the inputs would destroy it: refused before anything is read.
    if let Some(Err(e)) = out_file.as_deref().map(|o| tpsim::files::check_output(o, &paths)) {
        return bad_input(err, &e);
    }
    let (mut file, warnings) = match ingest::ingest_files(&paths, format, label) {
        Ok(x) => x,
        Err(e) => return bad_input(err, &e),
    };
    for r in &mut file.records {
        if let crate::measurement::Record::Collective { env: e, .. } = r
            && e.is_empty()
        {
            e.extend(env.iter().cloned());
        }
    }
    for w in &warnings {
        let _ = writeln!(err, "warning: {w}");
    }
    let text = match serde_json::to_string_pretty(&file) {
        Ok(t) => t + "\n",
        Err(e) => {
            let _ = writeln!(err, "internal error: {e}");
            return EXIT_FAILURE;
        }
    };
    match &out_file {
        Some(p) => match tpsim::files::write_output(p, &paths, text.as_bytes()) {
            Ok(()) => 0,
            Err(e) if e.is_bad_input() => bad_input(err, &e),
            Err(e) => {
                let _ = writeln!(err, "error: cannot write the measurement file: {e}");
                EXIT_FAILURE
            }
        },
        None => match write!(out, "{text}") {
            Ok(()) => 0,
            Err(e) => {
                let _ = writeln!(err, "error: cannot write the measurement file: {e}");
                EXIT_FAILURE
            }
        },
    }
}

fn check_cmd(
    target: &check::Target,
    measurements: &[PathBuf],
    threshold: f64,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    if !threshold.is_finite() || threshold < 0.0 {
        return bad_input(
            err,
            &format!("--threshold {threshold}: expected a percentage ≥ 0"),
        );
    }
    let mut files = Vec::new();
    for p in measurements {
        match check::load(p) {
            Ok(m) => files.push((p.display().to_string(), m)),
            Err(e) => return bad_input(err, &e),
        }
    }
    let report = match check::check(target, &files, threshold / 100.0) {
        Ok(r) => r,
        Err(e) => return bad_input(err, &e),
    };
    print_check(&report, json, out, err)
}

/// Writes a `check` report (text, or JSON with `json`) and returns the exit code: 0 when it passes,
/// [`EXIT_FAILURE`] (with the reason on `err`) when the median |error| exceeds the threshold or the
/// output cannot be written. Shared by `check` and `run-engine`.
pub(crate) fn print_check(
    report: &check::Report,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let written = if json {
        serde_json::to_string_pretty(report)
            .map_err(std::io::Error::other)
            .and_then(|t| writeln!(out, "{t}"))
    } else {
        write!(out, "{}", check::text(report))
    };
    if written.is_err() {
        return EXIT_FAILURE;
    }
    if report.pass {
        0
    } else {
        let _ = writeln!(
            err,
            "check failed: median |error| {:.1} % exceeds the threshold {:.1} %",
            report.median_abs_error * 100.0,
            report.threshold * 100.0
        );
        EXIT_FAILURE
    }
}
