//! The `bench` subcommand: arguments and entry point, kept apart from `main.rs` so the binary only
//! dispatches to it.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::PathBuf;

use super::plan::{self, Family, Plan, SizeRange};

/// Arguments of `tpsim-calibrate bench`.
#[derive(Debug, Clone, clap::Args)]
pub struct BenchArgs {
    /// Write the measurement file (JSON, schema tpsim-measurements/1) here instead of standard output.
    #[arg(long, value_name = "FILE.json")]
    pub out: Option<PathBuf>,
    /// Small buffers and few iterations: checks the whole path in about a minute; not a calibration.
    #[arg(long)]
    pub quick: bool,
    /// Run only these benchmarks (comma-separated): mem, p2p, gemm, stream, nccl.
    #[arg(long, value_name = "LIST", value_parser = plan::parse_only)]
    pub only: Option<BTreeSet<Family>>,
    /// Allreduce sizes LO..HI, doubling (K, M, G = 2^10, 2^20, 2^30 bytes).
    #[arg(long, value_name = "LO..HI", value_parser = plan::parse_sizes, default_value = "4K..256M")]
    pub sizes: SizeRange,
}

impl BenchArgs {
    /// The plan these arguments ask for.
    pub fn plan(&self) -> Plan {
        let only = self
            .only
            .clone()
            .unwrap_or_else(|| Family::ALL.into_iter().collect());
        Plan::new(self.quick, only, self.sizes)
    }
}

/// Run `bench`: measurements go to `--out` (or `out`), progress and errors to `err`. Exit code 0 on
/// success; 1 when this build or machine cannot run GPU benchmarks (no `cuda` feature, no driver,
/// no GPU), with the reason on `err`; 2 when `--out` cannot be written.
pub fn run(args: BenchArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let plan = args.plan();
    imp::run(&plan, args.out.as_deref(), out, err)
}

#[cfg(not(feature = "gpu"))]
mod imp {
    use std::io::Write;
    use std::path::Path;

    pub fn run(_plan: &super::Plan, _path: Option<&Path>, _out: &mut dyn Write, err: &mut dyn Write) -> i32 {
        let _ = writeln!(
            err,
            "tpsim-calibrate bench: this build has no GPU support; on a machine with an NVIDIA GPU and driver, \
             rebuild with `cargo build --release -p tpsim-calibrate --features cuda` (or run calibrate/run-on-gpu.sh)"
        );
        1
    }
}

#[cfg(feature = "gpu")]
mod imp {
    use std::io::Write;
    use std::path::Path;

    pub fn run(plan: &super::Plan, path: Option<&Path>, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
        // Check the output's folder first: a typo in --out should not cost a full benchmark run.
        // The file itself is written whole at the end (tpsim::files), never half.
        if let Some(p) = path {
            let dir = p
                .parent()
                .filter(|d| !d.as_os_str().is_empty())
                .unwrap_or(Path::new("."));
            if !dir.is_dir() {
                let _ = writeln!(
                    err,
                    "tpsim-calibrate bench: cannot write --out {}: the folder {} does not exist",
                    p.display(),
                    dir.display()
                );
                return 2;
            }
        }
        let measured = match crate::bench::measure(plan, err) {
            Ok(m) => m,
            Err(e) => {
                let _ = writeln!(err, "tpsim-calibrate bench: {e}");
                return 1;
            }
        };
        let json = match serde_json::to_string_pretty(&measured) {
            Ok(j) => j + "\n",
            Err(e) => {
                let _ = writeln!(
                    err,
                    "tpsim-calibrate bench: cannot serialise the measurements: {e}"
                );
                return 1;
            }
        };
        let written = match path {
            Some(p) => {
                tpsim::files::write_output::<&Path>(p, &[], json.as_bytes()).map_err(|e| e.to_string())
            }
            None => out.write_all(json.as_bytes()).map_err(|e| e.to_string()),
        };
        if let Err(e) = written {
            let _ = writeln!(err, "tpsim-calibrate bench: cannot write the measurements: {e}");
            return 2;
        }
        if let Some(p) = path {
            let _ = writeln!(err, "wrote {} records to {}", measured.records.len(), p.display());
        }
        0
    }
}
