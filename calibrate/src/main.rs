//! `tpsim-calibrate`: measurements on real GPUs, log ingestion and fitting of hardware profiles.
//!
//! Skeleton (issue #2): the subcommands are declared so that `--help` shows the workflow; each one
//! says plainly that it is not implemented yet (issue #7) and exits with code 1.

use clap::{Parser, Subcommand};
use std::path::PathBuf;

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
    Bench(tpsim_calibrate::bench::cli::BenchArgs),
    /// Parse nccl-tests tables, SGLang/vLLM server logs or bench JSON into measurements.
    Ingest { files: Vec<PathBuf> },
    /// Fit hardware parameters to measured collectives, with 95 % intervals; write a profile.
    Fit(tpsim_calibrate::fit::cli::FitArgs),
    /// Compare predictions with measurements row by row; non-zero exit above a threshold.
    Check {
        profile: PathBuf,
        measurements: Vec<PathBuf>,
    },
}

fn main() {
    let cli = Cli::parse();
    let what = match cli.command {
        Command::Bench(args) => {
            let code = tpsim_calibrate::bench::cli::run(args, &mut std::io::stdout(), &mut std::io::stderr());
            std::process::exit(code);
        }
        Command::Ingest { .. } => "ingest",
        Command::Fit(args) => {
            let code = tpsim_calibrate::fit::cli::run(args, &mut std::io::stdout(), &mut std::io::stderr());
            std::process::exit(code);
        }
        Command::Check { .. } => "check",
    };
    eprintln!("tpsim-calibrate {what}: not implemented yet (arrives with issue #7)");
    std::process::exit(1);
}
