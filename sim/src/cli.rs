//! The `tpsim` command line (clap). Errors in user input exit with code 2 and a message naming the
//! file, the key and what was expected; `--help` on every subcommand explains the options.

use crate::{decode, report, scenario, trace::TraceBuilder};
use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};
use tpsim_model::units::Duration;

/// Exit code for bad input (scenario errors, bad arguments), as clap uses for usage errors.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for an internal failure or an output that cannot be written.
pub const EXIT_FAILURE: i32 = 1;

#[derive(Debug, Parser)]
#[command(
    name = "tpsim",
    version,
    about = "Deterministic simulator of tensor-parallel LLM decoding on PCIe GPU boxes",
    long_about = "tpsim predicts, before you deploy, how many tokens/s a tensor-parallel configuration gives, \
whether the engine starts or dies with \"Not enough memory\", and where each millisecond goes \
(kernels, allreduces, host overhead). Describe the deployment in a scenario TOML file \
(see scenarios/seed/baseline.toml and the book's scenario reference) and run it.",
    after_help = "Examples:\n  tpsim run scenarios/seed/baseline.toml\n  tpsim run scenarios/seed/baseline.toml --json\n  tpsim run scenarios/seed/custom-ar.toml --trace custom.trace.json\n  tpsim validate my-box.toml"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// Predict throughput, latency, the per-iteration breakdown and the memory verdict of a scenario.
    Run {
        /// The scenario TOML file.
        scenario: PathBuf,
        /// Print one JSON object (schema: book/src/json.md) instead of the text report.
        #[arg(long)]
        json: bool,
        /// Write a Chrome/Perfetto trace of the first iterations to FILE (open it in ui.perfetto.dev).
        #[arg(long, value_name = "FILE")]
        trace: Option<PathBuf>,
        /// Override the scenario's `seed`.
        #[arg(long)]
        seed: Option<u64>,
    },
    /// Check a scenario file (schema, presets, semantic rules) without running it.
    Validate {
        /// The scenario TOML file.
        scenario: PathBuf,
    },
}

/// Runs the CLI on `args` (including the program name), writing to `out`/`err`; returns the exit code.
pub fn main_with_args(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let cli = match Cli::try_parse_from(args) {
        Ok(c) => c,
        Err(e) => {
            let code = e.exit_code();
            let text = e.render().to_string();
            let _ = if code == 0 {
                write!(out, "{text}")
            } else {
                write!(err, "{text}")
            };
            return code;
        }
    };
    match cli.command {
        Command::Run {
            scenario,
            json,
            trace,
            seed,
        } => run(&scenario, json, trace.as_deref(), seed, out, err),
        Command::Validate { scenario } => match scenario::load(&scenario) {
            Ok(s) => {
                let _ = writeln!(
                    out,
                    "{}: ok ({} on {} GPUs, tp {}, {})",
                    scenario.display(),
                    s.model_name,
                    s.hardware.topology.gpu_count(),
                    s.engine.tp,
                    if s.speculative.is_some() {
                        "speculative"
                    } else {
                        "no speculation"
                    }
                );
                0
            }
            Err(e) => bad_input(err, &e),
        },
    }
}

fn bad_input(err: &mut dyn Write, e: &dyn std::fmt::Display) -> i32 {
    let _ = writeln!(err, "error: {e}");
    EXIT_BAD_INPUT
}

fn run(
    path: &Path,
    json: bool,
    trace: Option<&Path>,
    seed: Option<u64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let mut s = match scenario::load(path) {
        Ok(s) => s,
        Err(e) => return bad_input(err, &e),
    };
    if let Some(seed) = seed {
        s.seed = seed;
    }
    let p = match decode::predict(&s) {
        Ok(p) => p,
        Err(e) => {
            let _ = writeln!(err, "internal error: {e}");
            return EXIT_FAILURE;
        }
    };
    let r = report::build(&s, &p);
    let written = if json {
        serde_json::to_string_pretty(&r)
            .map_err(std::io::Error::other)
            .and_then(|t| writeln!(out, "{t}"))
    } else {
        write!(out, "{}", report::text(&r))
    };
    if let Err(e) = written {
        let _ = writeln!(err, "error: writing the report: {e}");
        return EXIT_FAILURE;
    }
    if let Some(file) = trace {
        let mut tb = TraceBuilder::new();
        let mut offset = Duration::ZERO;
        for shape in &p.trace_shapes {
            if let Err(e) = tb.add_schedule(&shape.graph, &p.resources, &shape.schedule, offset) {
                let _ = writeln!(err, "internal error: {e}");
                return EXIT_FAILURE;
            }
            offset += shape.schedule.makespan;
        }
        let res = std::fs::File::create(file).and_then(|f| tb.write_to(std::io::BufWriter::new(f)));
        if let Err(e) = res {
            let _ = writeln!(err, "error: {}: cannot write the trace: {e}", file.display());
            return EXIT_FAILURE;
        }
    }
    0
}
