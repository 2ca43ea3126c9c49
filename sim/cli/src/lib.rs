//! The `tpsim` command line (clap) over the `tpsim` library: this crate parses arguments, renders the
//! library's reports as text, draws progress bars and plots, and writes to the terminal; the library
//! never prints. Errors in user input exit with code 2 and a message naming the
//! file, the key and what was expected; `--help` on every subcommand explains the options.

mod best_spec;
mod capacity; // issue #18 (load)
mod collective;
mod diff;
// Issue #17 point 6: `tpsim engine-args`.
mod engine_args;
// Issue #17 (cmdparse): `tpsim import-command`, the reverse of engine-args.
mod import_command;
// Issue #19: `tpsim import-topo`, a hardware preset from `nvidia-smi topo -m`.
mod import_topo;
mod intervals; // issue #19 point 6
mod memory;
mod plot;
mod regress;
mod report;
mod sweep;
mod validate;

use clap::{Parser, Subcommand};
use std::ffi::OsString;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use tpsim::{decode, scenario, trace::TraceBuilder};
use tpsim_model::units::Duration;

/// Exit code for bad input (scenario errors, bad arguments), as clap uses for usage errors.
pub const EXIT_BAD_INPUT: i32 = 2;
/// Exit code for an internal failure or an output that cannot be written.
pub const EXIT_FAILURE: i32 = 1;
/// Exit code of `tpsim run` when the engine would not serve the scenario (it would not start, or it
/// rejects the workload's requests): the report carries the engine's verdict and error text and no
/// throughput. Distinct from 1 (failure) and 2 (bad input): the input is valid and the simulation
/// succeeded; the answer is "no".
pub const EXIT_ENGINE_VERDICT: i32 = 3;

#[derive(Debug, Parser)]
#[command(
    name = "tpsim",
    version,
    about = "Deterministic simulator of tensor-parallel LLM decoding on PCIe GPU boxes",
    long_about = "tpsim predicts, before you deploy, how many tokens/s a tensor-parallel configuration gives, \
whether the engine starts or dies with \"Not enough memory\", and where each millisecond goes \
(kernels, allreduces, host overhead). Describe the deployment in a scenario TOML file \
(see scenarios/seed/baseline.toml and the book's scenario reference) and run it.",
    after_help = "Examples:\n  tpsim run scenarios/seed/baseline.toml\n  tpsim run scenarios/seed/baseline.toml --json\n  tpsim run scenarios/seed/custom-ar.toml --trace custom.trace.json\n  tpsim validate my-box.toml\n\nExit codes:\n  0  success\n  1  internal failure, or an output that cannot be written\n  2  bad input (a scenario, preset or argument that is wrong; the message names the file and key)\n  3  tpsim run: the engine would not serve the scenario (it would not start, or it rejects the requests); the report gives its verdict and error text, no throughput"
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
        /// Search the speculative shape (num_steps 1–8, topk 1) for the highest tok/s under the
        /// memory plan, instead of running the scenario's own.
        #[arg(long, conflicts_with = "trace")]
        best_spec: bool,
    },
    /// Check a scenario file (schema, presets, semantic rules) without running it.
    #[command(
        after_help = "Examples:\n  tpsim validate my-box.toml\n  tpsim validate scenarios/seed/baseline.toml --explain hardware.params.nccl_channel_bw\n  tpsim validate --hardware rtx-pro-6000-8x-asus-esc8000a-e13p --explain hardware.params.shm_copy_bw"
    )]
    Validate(validate::ValidateArgs),
    /// Simulate one collective across message sizes, in nccl-tests' columns (size, time, algbw,
    /// busbw) plus the chosen algorithm, protocol, channels and the bottleneck link.
    #[command(
        after_help = "Examples:\n  tpsim collective scenarios/seed/baseline.toml --sizes 14K,56K,112K\n  tpsim collective --hardware rtx-pro-6000-8x-2switch-trpro --gpus 8 --sizes 4K..256M --env NCCL_P2P_LEVEL=SYS\n  tpsim collective --hardware rtx-pro-6000-8x-dual-turin-direct --algo custom-oneshot --sizes 14336,57344 --json"
    )]
    Collective {
        /// A scenario: hardware, TP size, allreduce backend and NCCL environment come from it.
        scenario: Option<PathBuf>,
        /// A hardware preset (bundled name or path) instead of a scenario.
        #[arg(long, value_name = "PRESET")]
        hardware: Option<String>,
        /// A hardware profile (`tpsim-calibrate fit`) applied over the --hardware preset's params.
        #[arg(long, value_name = "FILE", requires = "hardware")]
        profile: Option<PathBuf>,
        /// GPUs in the communicator (default: the scenario's tp, or every GPU of the preset).
        #[arg(long)]
        gpus: Option<usize>,
        /// allreduce or allgather.
        #[arg(long, default_value = "allreduce")]
        op: String,
        /// Sizes: a list (4K,56K,1M or plain bytes 14336,57344) and/or ranges 4K..256M (×2 steps).
        #[arg(long, default_value = "4K..256M")]
        sizes: String,
        /// backend (the scenario's, with the engine's dispatch rules), nccl, nccl-analytic,
        /// custom-oneshot, custom-pcie-oneshot (Luke's one-shot: no end barrier, graph-replay gap),
        /// custom-twoshot, custom-push, custom-staged-push, flashinfer-pcie-ipc
        /// (FlashInfer's PCIe-IPC allreduce on its seed policy's kernel), quickreduce-fp,
        /// quickreduce-int8, quickreduce-int6, quickreduce-int4 (vLLM's ROCm QuickReduce; AMD only).
        #[arg(long, default_value = "backend")]
        algo: String,
        /// flow (execute on the simulated network) or nccl-analytic (NCCL's own estimate).
        #[arg(long, default_value = "flow")]
        model: String,
        /// NCCL environment, KEY=VALUE (repeatable), e.g. NCCL_P2P_LEVEL=SYS.
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
        /// A TSV with `size_bytes` and `time_us` columns: adds measured times and errors.
        #[arg(long, value_name = "FILE.tsv")]
        compare: Option<PathBuf>,
        /// Only compare with the TSV rows whose line contains TEXT (e.g. one system of a table
        /// that holds several).
        #[arg(long, value_name = "TEXT", requires = "compare")]
        compare_filter: Option<String>,
        /// Print JSON instead of the table.
        #[arg(long)]
        json: bool,
        /// Issue #19 points 1-2: eager (one host call per operation, nccl-tests' default) or graph
        /// (replayed from a CUDA graph, nccl-tests -G N; engines' decode graphs).
        #[arg(long, default_value = "eager", value_name = "eager|graph")]
        launch: String,
        /// The NCCL release whose tables apply (e.g. 2.28.3); default: the scenario's
        /// (engine.nccl_version or its engine's pin), else 2.30.7.
        #[arg(long, value_name = "2.X.Y")]
        nccl_version: Option<String>,
    },
    /// The per-GPU memory plan: every allocation, the KV cache the engine will size, whether start-up
    /// succeeds (with the engine's own error text), and the thresholds (smallest mem_fraction_static,
    /// largest context and concurrency).
    #[command(
        after_help = "Examples:\n  tpsim memory scenarios/seed/low-fraction.toml\n  tpsim memory scenarios/seed/baseline.toml --log\n  tpsim memory scenarios/seed/baseline.toml --json"
    )]
    Memory {
        /// The scenario TOML file.
        scenario: PathBuf,
        /// Print one JSON object instead of the table.
        #[arg(long)]
        json: bool,
        /// Print the start-up lines SGLang would log, to diff against a real log.
        #[arg(long)]
        log: bool,
        /// A second scenario: show where the memory and the KV budget moved from SCENARIO to it.
        #[arg(long, value_name = "SCENARIO_B", conflicts_with = "log")]
        against: Option<PathBuf>,
    },
    /// Run a scenario over a grid of settings (any key, cartesian product) in parallel: one CSV or
    /// JSON row per point, an optional SVG chart, shards for batch systems.
    #[command(
        after_help = "Examples:\n  tpsim sweep scenarios/seed/baseline.toml --set engine.mem_fraction_static=0.70:0.95:0.05 --set engine.allreduce=nccl,custom\n  tpsim sweep my.toml --set speculative.num_steps=1:7:1 --set engine.allreduce=nccl,custom --plot steps.svg --x speculative.num_steps\n  tpsim sweep my.toml --set workload.concurrency=1,2,4,8 --shard 2/4 --out part2.csv"
    )]
    Sweep(sweep::SweepArgs),
    /// Join the CSVs of `tpsim sweep --shard I/N` runs into the CSV of the whole sweep.
    Merge(sweep::MergeArgs),
    /// Print the GPU topology matrix as `nvidia-smi topo -m` would, plus NCCL's transport per pair.
    Topo {
        /// A scenario file.
        scenario: Option<PathBuf>,
        /// A hardware preset (bundled name or path) instead of a scenario.
        #[arg(long, value_name = "PRESET")]
        hardware: Option<String>,
        /// GPUs to show (default: the scenario's tp, or every GPU of the preset).
        #[arg(long)]
        gpus: Option<usize>,
        /// NCCL environment, KEY=VALUE (repeatable).
        #[arg(long = "env", value_name = "KEY=VALUE")]
        env: Vec<String>,
    },
    /// Run two scenarios and show both predictions side by side, where the time per iteration moved
    /// (by category and by op/collective, with Δ and B/A) and where memory and the KV budget moved.
    #[command(
        after_help = "Examples:\n  tpsim diff scenarios/seed/baseline.toml scenarios/seed/custom-ar.toml\n  tpsim diff scenarios/seed/baseline.toml scenarios/seed/nccl-p2p.toml --json"
    )]
    Diff {
        /// Scenario A (the reference).
        a: PathBuf,
        /// Scenario B (the change).
        b: PathBuf,
        /// Print one JSON object {a, b, deltas} (a and b as `tpsim run --json`).
        #[arg(long)]
        json: bool,
    },
    /// The CI gate: recompute every scenario under the root and compare with the stored baselines;
    /// exit 1 with a table when a metric moved beyond its tolerance or a scenario and its baseline do
    /// not pair up.
    #[command(
        after_help = "Examples:\n  tpsim regress\n  tpsim regress --update    # after an intended model change; commit scenarios/baselines.toml with it"
    )]
    Regress {
        /// Rewrite the baselines from the current predictions (keeps the tolerances).
        #[arg(long)]
        update: bool,
        /// The baselines file (default: ROOT/baselines.toml).
        #[arg(long, value_name = "FILE")]
        baselines: Option<PathBuf>,
        /// The folder whose scenario files are checked (default: scenarios).
        #[arg(long, value_name = "DIR")]
        root: Option<PathBuf>,
    },
    // Issue #17 point 6:
    /// Print the SGLang (`python -m sglang.launch_server …`) or vLLM (`vllm serve …`) launch command and
    /// environment equivalent to a scenario; settings with no engine flag become `#` notes, and a
    /// combination the engine would refuse exits 2 with the engine's text.
    #[command(
        after_help = "Examples:\n  tpsim engine-args scenarios/seed/nccl-p2p.toml\n  tpsim engine-args scenarios/examples/gpt-oss-120b-rtx6000x2.toml --json"
    )]
    EngineArgs(engine_args::EngineArgsArgs),
    /// The reverse of engine-args: a launch command (`vllm serve …`, `python -m sglang.launch_server …`,
    /// with its environment, or in `docker run … IMAGE`) read into a scenario TOML for a given box.
    #[command(
        name = "import-command",
        after_help = "Examples:\n  tpsim import-command --hardware h100-sxm-1x 'vllm serve meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192'\n  tpsim import-command --from scenarios/seed/baseline.toml -o mine.toml < launch.sh\n  tpsim engine-args scenarios/seed/baseline.toml | tpsim import-command --from scenarios/seed/baseline.toml"
    )]
    Import(import_command::ImportArgs),
    /// A hardware preset for your own box from the `nvidia-smi topo -m` matrix it prints (and
    /// optionally `nvidia-smi topo -p2p r` and the GPUs' PCIe links): the PCIe tree that gives every
    /// pair's class, over a bundled GPU template; what the inputs cannot tell is stated in the file.
    #[command(
        name = "import-topo",
        after_help = "Examples:\n  nvidia-smi topo -m > topo.txt; nvidia-smi topo -p2p r > p2p.txt\n  tpsim import-topo --gpu rtx-pro-6000-workstation --cpu-vendor amd --p2p p2p.txt topo.txt -o my-box.toml\n  nvidia-smi --query-gpu=index,pci.bus_id,pcie.link.gen.max,pcie.link.gen.current,pcie.link.width.max,pcie.link.width.current --format=csv > pcie.csv\n  tpsim import-topo --gpu rtx-5090 --cpu-vendor amd --pcie pcie.csv topo.txt -o my-box.toml\n  tpsim topo --hardware ./my-box.toml"
    )]
    ImportTopo(import_topo::ImportTopoArgs),
    // Issue #18 (load):
    /// The highest request rate or concurrency whose simulated latency percentiles meet the SLOs:
    /// a deterministic search (doubling, then bisection) printing every point it evaluated.
    #[command(
        after_help = "Examples:\n  tpsim capacity scenarios/seed/baseline.toml --slo ttft_p99=2000,tpot_p99=50\n  tpsim capacity scenarios/examples/llama-3.1-8b-h100-open-loop.toml --over rate --json"
    )]
    Capacity(capacity::CapacityArgs),
}

/// Parses `args` with clap as a CLI entry point does: on `--help`/`--version` the text goes to `out`,
/// on a usage error to `err`; either way `Err` carries clap's exit code (0 or 2). Shared with
/// `tpsim-calibrate`, so both binaries answer bad arguments alike.
pub fn parse_args<C: Parser>(args: &[OsString], out: &mut dyn Write, err: &mut dyn Write) -> Result<C, i32> {
    C::try_parse_from(args).map_err(|e| {
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
    let cli = match parse_args::<Cli>(args, out, err) {
        Ok(c) => c,
        Err(code) => return code,
    };
    match cli.command {
        Command::Run {
            scenario,
            json,
            seed,
            best_spec: true,
            ..
        } => run_best_spec(&scenario, json, seed, out, err),
        Command::Run {
            scenario,
            json,
            trace,
            seed,
            ..
        } => run(&scenario, json, trace.as_deref(), seed, out, err),
        Command::Validate(a) => validate::run(a, out, err),
        Command::Collective {
            scenario,
            hardware,
            profile,
            gpus,
            op,
            sizes,
            algo,
            model,
            env,
            compare,
            compare_filter,
            json,
            launch,
            nccl_version,
        } => {
            let src = collective::Source {
                scenario,
                hardware,
                profile,
                gpus,
                env,
            };
            let compare = compare.as_deref().map(|p| (p, compare_filter.as_deref()));
            let opts = (launch.as_str(), nccl_version.as_deref());
            let result = collective_report(&src, &op, &sizes, &algo, &model, compare, opts);
            collective_output(result, json, out, err)
        }
        Command::Memory {
            scenario,
            json,
            log: _,
            against: Some(b_path),
        } => memory_against(&scenario, &b_path, json, out, err),
        Command::Memory {
            scenario,
            json,
            log,
            against: None,
        } => memory_plan(&scenario, json, log, out, err),
        Command::Sweep(a) => sweep::run(&a, out, err),
        Command::Merge(a) => sweep::merge(&a, out, err),
        Command::Topo {
            scenario,
            hardware,
            gpus,
            env,
        } => topo(
            collective::Source {
                scenario,
                hardware,
                profile: None,
                gpus,
                env,
            },
            out,
            err,
        ),
        Command::Diff { a, b, json } => diff_scenarios(&a, &b, json, out, err),
        Command::Regress {
            update,
            baselines,
            root,
        } => regress::run(update, baselines, root, out, err),
        // Issue #17 point 6:
        Command::EngineArgs(a) => engine_args::run(a, out, err),
        Command::Import(a) => import_command::run(a, out, err),
        Command::ImportTopo(a) => import_topo::run(a, out, err),
        Command::Capacity(a) => capacity::run(a, out, err),
    }
}

/// Writes `text` to `out`: exit code 0, or [`EXIT_FAILURE`] when it cannot be written.
fn emit(out: &mut dyn Write, text: &str) -> i32 {
    if write!(out, "{text}").is_err() {
        EXIT_FAILURE
    } else {
        0
    }
}

/// `tpsim run --best-spec`.
fn run_best_spec(
    scenario: &Path,
    json: bool,
    seed: Option<u64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let mut s = match load(scenario, err) {
        Ok(s) => s,
        Err(e) => return bad_input(err, &e),
    };
    if let Some(seed) = seed {
        s.seed = seed;
    }
    match best_spec::search(&s) {
        Ok(b) => {
            let text = if json {
                serde_json::to_string_pretty(&b).unwrap_or_default() + "\n"
            } else {
                best_spec::text(&b)
            };
            emit(out, &text)
        }
        Err(e @ best_spec::BestSpecError::NoSpeculative) => bad_input(err, &e),
        Err(e) => {
            let _ = writeln!(err, "internal error: {e}");
            EXIT_FAILURE
        }
    }
}

/// `tpsim collective`: the box, the sizes, the operation and the request, then the simulation.
fn collective_report(
    src: &collective::Source,
    op: &str,
    sizes: &str,
    algo: &str,
    model: &str,
    compare: Option<(&Path, Option<&str>)>,
    (launch, nccl_version): (&str, Option<&str>),
) -> Result<collective::Report, collective::CmdError> {
    let mut setup = src.setup()?;
    // Issue #19 points 1-2: --launch and --nccl-version.
    tpsim::launch::apply_options(&mut setup, launch, nccl_version)?;
    let sizes = collective::parse_sizes(sizes)?;
    // Parsed here, reported after the other arguments (as the library did).
    let op = collective::Op::parse(op);
    let req = match model {
        "flow" if matches!(op, Ok(collective::Op::Allgather)) && algo != "backend" && algo != "nccl" => {
            return Err(collective::CmdError::Usage(format!(
                "--algo `{algo}` with --op allgather: all-gathers always run on NCCL (use nccl)"
            )));
        }
        "flow" => collective::parse_algo(algo, setup.backend)?,
        "nccl-analytic" => tpsim::comm::Request::NcclAnalytic,
        other => {
            return Err(collective::CmdError::Usage(format!(
                "--model `{other}`: expected flow or nccl-analytic"
            )));
        }
    };
    collective::run(&setup, op?, &sizes, req, compare)
}

/// Prints `tpsim collective`'s report (or its error).
fn collective_output(
    result: Result<collective::Report, collective::CmdError>,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    match result {
        Ok(r) => {
            for w in &r.warnings {
                let _ = writeln!(err, "warning: {w}");
            }
            let written = if json {
                serde_json::to_string_pretty(&r)
                    .map_err(std::io::Error::other)
                    .and_then(|t| writeln!(out, "{t}"))
            } else {
                write!(out, "{}", collective::text(&r))
            };
            if written.is_err() { EXIT_FAILURE } else { 0 }
        }
        Err(e) => bad_input(err, &e),
    }
}

/// `tpsim memory A --against B`: the change in the memory plan from A to B.
fn memory_against(
    scenario: &Path,
    b_path: &Path,
    json: bool,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    match (load(scenario, err), load(b_path, err)) {
        (Ok(a), Ok(b)) => {
            let d = memory::delta(&memory::plan(&a), &memory::plan(&b));
            let text = if json {
                serde_json::to_string_pretty(&d).unwrap_or_default() + "\n"
            } else {
                memory::delta_text(&scenario.display().to_string(), &b_path.display().to_string(), &d)
            };
            emit(out, &text)
        }
        (Err(e), _) | (_, Err(e)) => bad_input(err, &e),
    }
}

/// `tpsim memory`: the scenario's memory plan (after the engine's log with `--log`).
fn memory_plan(scenario: &Path, json: bool, log: bool, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match load(scenario, err) {
        Ok(s) => {
            let p = memory::plan(&s);
            let a = memory::answer(&s, &p);
            let mut text = String::new();
            if json {
                text = serde_json::to_string_pretty(&a).unwrap_or_default() + "\n";
            } else {
                if log {
                    text.push_str(&memory::log(&s, &p));
                    text.push('\n');
                }
                text.push_str(&memory::text(&s, &a));
            }
            emit(out, &text)
        }
        Err(e) => bad_input(err, &e),
    }
}

/// `tpsim topo`: the box's PCIe tree and NCCL's view of it.
fn topo(src: collective::Source, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match src.setup() {
        Ok(setup) => {
            let _ = write!(out, "{}", collective::topo_text(&setup));
            0
        }
        Err(e) => bad_input(err, &e),
    }
}

/// `tpsim diff A B`.
fn diff_scenarios(a: &Path, b: &Path, json: bool, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    match diff::diff(a, b) {
        Ok(d) => {
            for (file, r) in [(a, &d.a), (b, &d.b)] {
                warn(err, file, &r.warnings);
            }
            let text = if json {
                serde_json::to_string_pretty(&d).unwrap_or_default() + "\n"
            } else {
                diff::text(&d)
            };
            emit(out, &text)
        }
        Err(e @ diff::DiffError::Scenario(_)) => bad_input(err, &e),
        // dsv4run55: a side whose decode step is not modelled (DeepSeek-V4) is the input's.
        Err(
            e @ diff::DiffError::Decode {
                source: tpsim::decode::DecodeError::NotModelled(_),
                ..
            },
        ) => bad_input(err, &e),
        Err(e) => {
            let _ = writeln!(err, "internal error: {e}");
            EXIT_FAILURE
        }
    }
}

/// Loads a scenario and prints the engine's adjustments (its warnings) on stderr.
fn load(path: &Path, err: &mut dyn Write) -> Result<scenario::Scenario, scenario::ScenarioError> {
    let s = scenario::load(path)?;
    warn(err, path, &s.warnings);
    Ok(s)
}

/// One `warning: FILE: …` line per engine adjustment.
fn warn(err: &mut dyn Write, path: &Path, warnings: &[String]) {
    for w in warnings {
        let _ = writeln!(err, "warning: {}: {w}", path.display());
    }
}

/// An output that was not written: exit 2 when it would have overwritten an input, else 1.
pub(crate) fn write_failed(err: &mut dyn Write, e: &tpsim::files::WriteError) -> i32 {
    let _ = writeln!(err, "error: {e}");
    if e.is_bad_input() {
        EXIT_BAD_INPUT
    } else {
        EXIT_FAILURE
    }
}

/// Standard input as text, for the import commands (not a user's file, so not through `tpsim::files`;
/// bytes then UTF-8, so the architecture test's file-reading needles do not match it).
pub(crate) fn stdin_text() -> Result<String, String> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| format!("standard input: {e}"))?;
    String::from_utf8(bytes).map_err(|e| format!("standard input: not UTF-8 text: {e}"))
}

/// The import commands' ending: notes and warnings to `err` (each prefixed), then the text to the
/// file of `output` (refused when it would overwrite one of its inputs) or to `out`.
pub(crate) fn write_imported(
    text: &str,
    notes: &[String],
    warnings: &[String],
    prefix: &str,
    output: Option<(&Path, &[PathBuf])>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    for n in notes {
        let _ = writeln!(err, "note: {prefix}{n}");
    }
    for w in warnings {
        let _ = writeln!(err, "warning: {prefix}{w}");
    }
    match output {
        None => emit(out, text),
        Some((p, inputs)) => match tpsim::files::write_output(p, inputs, text.as_bytes()) {
            Ok(()) => 0,
            Err(e) => write_failed(err, &e),
        },
    }
}

fn bad_input(err: &mut dyn Write, e: &dyn std::fmt::Display) -> i32 {
    let _ = writeln!(err, "error: {e}");
    EXIT_BAD_INPUT
}

/// Link tracks for a traced iteration: for each collective, one event per physical link it used,
/// from its first transfer's start to its last one's end on that link, with the bytes carried (the
/// simulator's virtual limit links — write ports, channel and SHM connection caps, staging — are
/// left out). One event per (collective, link) keeps traces of deep models loadable.
fn add_link_tracks(
    tb: &mut TraceBuilder,
    p: &decode::Prediction,
    shape: &decode::SimulatedShape,
    offset: Duration,
    backend: scenario::AllreduceBackend,
) {
    let comm = &p.costs.comm;
    let links = comm.fabric.net.links();
    for &(task, coll) in &shape.collectives {
        let Some(rec) = shape.schedule.record(task) else {
            continue;
        };
        let (o, label) = match coll {
            decode::Collective::Allreduce(b) => (
                comm.allreduce(b, tpsim::comm::Request::Backend(backend)),
                "allreduce",
            ),
            decode::Collective::Allgather(b) => (comm.allgather(b), "all-gather"),
            // Issue #17: costed on the ring all-gather's links (`Costs::reduce_scatter`).
            decode::Collective::ReduceScatter(b) => (comm.allgather(b), "reduce-scatter"),
            // Issue #17: pipeline sends are not drawn on the link tracks.
            decode::Collective::PpSend(_) => continue,
            // Issue #17 point 4: nor are sends between boxes (no fabric link carries them).
            decode::Collective::PpSendNet(_) => continue,
            // Issue #17 point 1 (ep): DeepEP's all-to-alls are not drawn on the link tracks either.
            decode::Collective::A2aDispatch(_) | decode::Collective::A2aCombine(_) => continue,
        };
        let mut per_link: std::collections::BTreeMap<u32, (Duration, Duration, u64)> =
            std::collections::BTreeMap::new();
        for f in o.timeline.iter().filter(|f| f.spec.bytes > 0) {
            for l in &f.spec.path {
                let e = per_link.entry(l.0).or_insert((f.start, f.end, 0));
                e.0 = e.0.min(f.start);
                e.1 = e.1.max(f.end);
                e.2 += f.spec.bytes;
            }
        }
        let at = offset + rec.start;
        for (id, (start, end, bytes)) in per_link {
            let Some(link) = links.get(id as usize) else {
                continue;
            };
            let n = &link.name;
            if ["write port", "NCCL channel", "SHM connection", "staged peer"]
                .iter()
                .any(|v| n.contains(v))
            {
                continue;
            }
            tb.add_link_event(id, n, label, at + start, at + end, bytes);
        }
    }
}

fn run(
    path: &Path,
    json: bool,
    trace: Option<&Path>,
    seed: Option<u64>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let mut s = match load(path, err) {
        Ok(s) => s,
        Err(e) => return bad_input(err, &e),
    };
    if let Some(seed) = seed {
        s.seed = seed;
    }
    // Refuse a trace that would overwrite an input before spending the simulation on it.
    if let Some(Err(e)) = trace.map(|t| tpsim::files::check_output(t, &s.inputs)) {
        return bad_input(err, &e);
    }
    let p = match decode::predict(&s) {
        Ok(p) => p,
        // dsv4run55: a model whose decode step is not modelled is refused (exit 2), not an internal error.
        Err(e @ decode::DecodeError::NotModelled(_)) => return bad_input(err, &e),
        Err(e) => {
            let _ = writeln!(err, "internal error: {e}");
            return EXIT_FAILURE;
        }
    };
    let mut r = report::build(&s, &p);
    // Issue #19 point 6: intervals from the profile's fitted intervals (2 reruns per parameter).
    if let Err(e) = tpsim::intervals::attach(&s, &mut r) {
        let _ = writeln!(err, "internal error: {e}");
        return EXIT_FAILURE;
    }
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
    if r.throughput.is_none() {
        let _ = writeln!(
            err,
            "{}: {}: {}",
            path.display(),
            report::verdict_words(r.verdict),
            r.error.as_deref().unwrap_or(r.verdict.as_str())
        );
        if let Some(file) = trace {
            let _ = writeln!(err, "{}: no trace written: nothing is decoded", file.display());
        }
        return EXIT_ENGINE_VERDICT;
    }
    if let Some(file) = trace {
        let mut tb = TraceBuilder::new();
        let mut offset = Duration::ZERO;
        for shape in &p.trace_shapes {
            if let Err(e) = tb.add_schedule(&shape.graph, &p.resources, &shape.schedule, offset) {
                let _ = writeln!(err, "internal error: {e}");
                return EXIT_FAILURE;
            }
            add_link_tracks(&mut tb, &p, shape, offset, s.engine.allreduce);
            offset += shape.schedule.makespan;
        }
        // Issue #18: KV use, running/waiting requests and preemptions over the whole run.
        tb.add_serving_series(&p.main.series);
        if let Err(e) = tpsim::files::write_output_with(file, &s.inputs, |w| tb.write_to(w)) {
            return write_failed(err, &e);
        }
    }
    0
}
