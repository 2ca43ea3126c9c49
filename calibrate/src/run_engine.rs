//! `tpsim-calibrate run-engine SCENARIO` (issue #17 point 6): runs the real engine on this box with
//! the command `tpsim engine-args` prints, waits for it to serve, runs the engine's own benchmark with
//! the scenario's workload, keeps the server log and the benchmark result in a folder, ingests both
//! (`crate::ingest`) and prints `check` of tpsim's prediction against what was measured.
//!
//! The steps are split so that each can be tested without an engine: [`plan`] (pure: the commands
//! and files), [`execute`] (processes: start, readiness, benchmark, stop) and [`measure`] (ingest and
//! check the captured files). The tests drive `execute` with a fake engine that prints a recorded
//! start-up log and writes a canned benchmark result.
//!
//! Readiness: SGLang logs "The server is fired up and ready to roll!" (0.5.9
//! `srt/entrypoints/http_server.py`, `_wait_and_warmup`); `vllm serve` runs uvicorn, which logs
//! "Application startup complete." (uvicorn `lifespan/on.py`). No HTTP request is made.
//!
//! Benchmarks, with the scenario's workload (`concurrency`, `num_requests`, `prompt_len`,
//! `output_len`) on the engines' random dataset:
//! - SGLang: `python -m sglang.bench_serving --backend sglang --host H --port P --dataset-name random
//!   --random-input-len I --random-output-len O --random-range-ratio R --num-prompts N
//!   --max-concurrency C --output-file DIR/bench.jsonl` (0.5.9 `bench_serving.py`; the random
//!   dataset draws lengths in [R × len, len], so a `{ min, max }` length is len = max, R = min ÷ max;
//!   outputs ignore EOS unless `--disable-ignore-eos`).
//! - vLLM: `vllm bench serve --model M --host H --port P --dataset-name random --random-input-len I
//!   --random-output-len O --random-range-ratio R --num-prompts N --max-concurrency C --ignore-eos
//!   --save-result --result-dir DIR --result-filename bench.json` (0.11.0 `benchmarks/serve.py`,
//!   `benchmarks/datasets.py`: lengths in [len × (1 − R), len × (1 + R)], so len = the midpoint and
//!   R = (max − min) ÷ (max + min)).

use crate::check;
use crate::ingest;
use crate::measurement::{MeasurementFile, Record};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;
use tpsim::Scenario;
use tpsim::engine_args::EngineCommand;
use tpsim::scenario::{EngineKind, LengthSpec};

/// SGLang's readiness line (0.5.9 `http_server.py`).
pub const SGLANG_READY: &str = "The server is fired up and ready to roll!";
/// uvicorn's readiness line under `vllm serve`.
pub const VLLM_READY: &str = "Application startup complete.";

/// What `run-engine` will do: the server and benchmark commands and where their output goes.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct RunPlan {
    pub engine: EngineKind,
    /// The server's argv (program first) and environment additions.
    pub server: Vec<String>,
    pub env: BTreeMap<String, String>,
    /// The benchmark's argv (program first).
    pub bench: Vec<String>,
    /// The command that tells whether the engine is installed (exit 0 = yes).
    pub probe: Vec<String>,
    /// Files written under the output folder.
    pub log: PathBuf,
    pub result: PathBuf,
    /// The log line that says the server is ready.
    pub ready: String,
    /// The scenario's input files, which no output may overwrite.
    #[serde(skip)]
    pub inputs: Vec<PathBuf>,
}

/// How to reach the engine on this box.
#[derive(Debug, Clone)]
pub struct Programs {
    /// The Python interpreter that has SGLang (replaces `python` of the SGLang commands).
    pub python: String,
    /// The `vllm` executable.
    pub vllm: String,
    pub host: String,
    pub port: u16,
}

/// Errors of `run-engine`. `NotInstalled` and `Plan` are bad input (exit 2); the others are
/// failures of the run (exit 1).
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    #[error("{0}")]
    NotInstalled(String),
    #[error("{0}")]
    Plan(String),
    #[error("{0}")]
    Io(String),
    #[error("the server exited before it was ready ({status}); its log: {log}\n{tail}")]
    ServerDied {
        status: String,
        log: String,
        tail: String,
    },
    #[error("the server was not ready after {secs} s; its log: {log}")]
    Timeout { secs: u64, log: String },
    #[error("the benchmark failed ({status}): {command}")]
    Bench { status: String, command: String },
}

impl RunError {
    /// Whether the error is the user's input (exit 2) rather than a failed run (exit 1).
    pub fn is_bad_input(&self) -> bool {
        matches!(self, RunError::NotInstalled(_) | RunError::Plan(_))
    }
}

/// The run's commands for scenario `s`, whose launch command is `cmd`, writing into `dir`.
pub fn plan(s: &Scenario, cmd: &EngineCommand, p: &Programs, dir: &Path) -> Result<RunPlan, RunError> {
    let w = &s.workload;
    unsupported(w)?;
    let port = p.port.to_string();
    let mut server = cmd.argv();
    let (ready, probe, mut bench, result);
    match cmd.engine {
        EngineKind::Sglang => {
            server[0] = p.python.clone();
            // server_args.py `--host`, `--port`.
            server.extend(["--host".into(), p.host.clone(), "--port".into(), port.clone()]);
            ready = SGLANG_READY;
            probe = vec![p.python.clone(), "-c".into(), "import sglang".into()];
            result = dir.join("bench.jsonl");
            let (ilen, iratio) = sglang_len(&w.prompt_len)?;
            let (olen, oratio) = sglang_len(&w.output_len)?;
            if iratio != oratio {
                return Err(RunError::Plan(format!(
                    "SGLang's bench_serving has one --random-range-ratio for prompts and outputs: \
                     workload.prompt_len ({}) and output_len ({}) need the same min/max ratio",
                    w.prompt_len, w.output_len
                )));
            }
            bench = vec![p.python.clone(), "-m".into(), "sglang.bench_serving".into()];
            bench.extend(
                [
                    ("--backend", "sglang".to_string()),
                    ("--host", p.host.clone()),
                    ("--port", port),
                    ("--dataset-name", "random".into()),
                    ("--random-input-len", ilen.to_string()),
                    ("--random-output-len", olen.to_string()),
                    ("--random-range-ratio", iratio),
                    ("--num-prompts", w.num_requests.to_string()),
                    ("--max-concurrency", w.concurrency.to_string()),
                    ("--output-file", result.display().to_string()),
                ]
                .into_iter()
                .flat_map(|(k, v)| [k.to_string(), v]),
            );
        }
        EngineKind::Vllm => {
            server[0] = p.vllm.clone();
            // vllm/entrypoints/openai/cli_args.py `--host`, `--port`.
            server.extend(["--host".into(), p.host.clone(), "--port".into(), port.clone()]);
            ready = VLLM_READY;
            probe = vec![p.vllm.clone(), "--version".into()];
            result = dir.join("bench.json");
            let (ilen, iratio) = vllm_len(&w.prompt_len)?;
            let (olen, oratio) = vllm_len(&w.output_len)?;
            if iratio != oratio {
                return Err(RunError::Plan(format!(
                    "vLLM's bench serve has one --random-range-ratio for prompts and outputs: \
                     workload.prompt_len ({}) and output_len ({}) need the same relative spread",
                    w.prompt_len, w.output_len
                )));
            }
            bench = vec![p.vllm.clone(), "bench".into(), "serve".into()];
            bench.extend(
                [
                    ("--model", cmd.args[0].clone()),
                    ("--host", p.host.clone()),
                    ("--port", port),
                    ("--dataset-name", "random".into()),
                    ("--random-input-len", ilen.to_string()),
                    ("--random-output-len", olen.to_string()),
                    ("--random-range-ratio", iratio),
                    ("--num-prompts", w.num_requests.to_string()),
                    ("--max-concurrency", w.concurrency.to_string()),
                    ("--result-dir", dir.display().to_string()),
                    ("--result-filename", "bench.json".into()),
                ]
                .into_iter()
                .flat_map(|(k, v)| [k.to_string(), v]),
            );
            bench.extend(["--ignore-eos".into(), "--save-result".into()]);
            // Issue #17 (trustcode): the benchmark loads the model's tokenizer itself, so a model the
            // server needs `--trust-remote-code` for needs it there too (vllm-project/recipes
            // NVIDIA/Nemotron-3-Nano-30B-A3B.md `run_performance.sh`: `vllm bench serve … --trust-remote-code`).
            if cmd.args.iter().any(|a| a == "--trust-remote-code") {
                bench.push("--trust-remote-code".into());
            }
        }
    }
    Ok(RunPlan {
        engine: cmd.engine,
        server,
        env: cmd.env.clone(),
        bench,
        probe,
        log: dir.join("server.log"),
        result,
        ready: ready.into(),
        inputs: s.inputs.clone(),
    })
}

/// Issue #18 (load): what the random dataset cannot express (a histogram, a trace, shared
/// prefixes, open-loop arrivals) is refused rather than silently run as something else.
fn unsupported(w: &tpsim::scenario::Workload) -> Result<(), RunError> {
    let what = if w.load.trace.is_some() {
        "workload.trace"
    } else if w.load.shared_prefix.is_some() {
        "workload.shared_prefix"
    } else if !matches!(w.load.arrivals, tpsim::workload::Arrivals::Closed) {
        "workload.request_rate"
    } else {
        return Ok(());
    };
    Err(RunError::Plan(format!(
        "{what}: run-engine drives bench_serving's closed-loop random dataset only"
    )))
}

fn histogram_refused(l: &LengthSpec) -> RunError {
    RunError::Plan(format!(
        "{l}: bench_serving's random dataset has no histogram lengths (use fixed, uniform or random)"
    ))
}

/// SGLang's random lengths in [ratio × len, len]: (len, ratio).
fn sglang_len(l: &LengthSpec) -> Result<(u32, String), RunError> {
    Ok(match l {
        LengthSpec::Fixed(n) => (*n, "1".into()),
        LengthSpec::Uniform(u) => (u.max, ratio(f64::from(u.min) / f64::from(u.max.max(1)))),
        LengthSpec::Random(r) => (r.random, ratio(r.range_ratio)),
        LengthSpec::Histogram(_) => return Err(histogram_refused(l)),
    })
}

/// vLLM's random lengths in [len × (1 − ratio), len × (1 + ratio)]: (len, ratio).
fn vllm_len(l: &LengthSpec) -> Result<(u32, String), RunError> {
    let (a, b) = match l {
        LengthSpec::Fixed(n) => return Ok((*n, "0".into())),
        LengthSpec::Uniform(u) => (f64::from(u.min), f64::from(u.max)),
        LengthSpec::Random(_) => (f64::from(l.min()), f64::from(l.max())),
        LengthSpec::Histogram(_) => return Err(histogram_refused(l)),
    };
    Ok((((a + b) / 2.0).round() as u32, ratio((b - a) / (a + b).max(1.0))))
}

fn ratio(x: f64) -> String {
    let s = format!("{x:.4}");
    s.trim_end_matches('0').trim_end_matches('.').to_string()
}

/// Whether the engine is installed: the probe command starts and exits 0.
pub fn probe(plan: &RunPlan) -> Result<(), RunError> {
    let (name, hint) = match plan.engine {
        EngineKind::Sglang => (
            "SGLang",
            "pip install sglang, or give --python with the interpreter that has it",
        ),
        EngineKind::Vllm => (
            "vLLM",
            "pip install vllm, or give --vllm with the path of its `vllm` command",
        ),
    };
    let shown = plan.probe.join(" ");
    match Command::new(&plan.probe[0])
        .args(&plan.probe[1..])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
    {
        Ok(st) if st.success() => Ok(()),
        Ok(st) => Err(RunError::NotInstalled(format!(
            "{name} is not installed here: `{shown}` failed ({st}); {hint}"
        ))),
        Err(e) => Err(RunError::NotInstalled(format!(
            "{name} is not installed here: `{shown}` cannot start ({e}); {hint}"
        ))),
    }
}

/// Starts the server, waits for its readiness line, runs the benchmark, stops the server. The
/// server's stdout and stderr go to `plan.log`; progress lines go to `err`.
pub fn execute(plan: &RunPlan, startup_timeout: Duration, err: &mut dyn Write) -> Result<(), RunError> {
    let io = |what: &str, e: std::io::Error| RunError::Io(format!("{what}: {e}"));
    let log = tpsim::files::create_output_file(&plan.log, &plan.inputs).map_err(|e| {
        if e.is_bad_input() {
            RunError::Plan(e.to_string())
        } else {
            RunError::Io(e.to_string())
        }
    })?;
    let log2 = log.try_clone().map_err(|e| io("server log", e))?;
    let _ = writeln!(
        err,
        "run-engine: starting {} (log: {})",
        plan.server.join(" "),
        plan.log.display()
    );
    let mut server = Command::new(&plan.server[0])
        .args(&plan.server[1..])
        .envs(&plan.env)
        .stdin(Stdio::null())
        .stdout(log)
        .stderr(log2)
        .spawn()
        .map_err(|e| io(&format!("cannot start `{}`", plan.server[0]), e))?;
    let outcome = wait_ready(&mut server, plan, startup_timeout).and_then(|()| {
        let _ = writeln!(err, "run-engine: server ready; running {}", plan.bench.join(" "));
        let st = Command::new(&plan.bench[0])
            .args(&plan.bench[1..])
            .envs(&plan.env)
            .stdin(Stdio::null())
            .status()
            .map_err(|e| io(&format!("cannot start `{}`", plan.bench[0]), e))?;
        if st.success() {
            Ok(())
        } else {
            Err(RunError::Bench {
                status: st.to_string(),
                command: plan.bench.join(" "),
            })
        }
    });
    stop(&mut server);
    outcome
}

/// Polls the log every [`POLL`] for the readiness line; fails when the server exits first or the
/// time runs out (counted in polls: the crate reads no clock, clippy.toml).
fn wait_ready(server: &mut Child, plan: &RunPlan, timeout: Duration) -> Result<(), RunError> {
    let polls = timeout.as_millis() / POLL.as_millis();
    let mut n = 0u128;
    loop {
        let text = tpsim::files::read_text(&plan.log).unwrap_or_default();
        if text.contains(&plan.ready) {
            return Ok(());
        }
        if let Ok(Some(status)) = server.try_wait() {
            let tail: Vec<&str> = text.lines().rev().take(20).collect();
            return Err(RunError::ServerDied {
                status: status.to_string(),
                log: plan.log.display().to_string(),
                tail: tail.into_iter().rev().collect::<Vec<_>>().join("\n"),
            });
        }
        if n >= polls {
            return Err(RunError::Timeout {
                secs: timeout.as_secs(),
                log: plan.log.display().to_string(),
            });
        }
        n += 1;
        std::thread::sleep(POLL);
    }
}

/// The interval between two looks at a process or its log.
const POLL: Duration = Duration::from_millis(100);

/// Stops the server this run started: SIGTERM by its process id (both engines then stop their
/// worker processes), SIGKILL after 30 s.
fn stop(server: &mut Child) {
    if let Ok(Some(_)) = server.try_wait() {
        return;
    }
    let _ = Command::new("kill")
        .args(["-TERM", &server.id().to_string()])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status();
    // 30 s in polls.
    for _ in 0..300 {
        if let Ok(Some(_)) = server.try_wait() {
            return;
        }
        std::thread::sleep(POLL);
    }
    let _ = server.kill();
    let _ = server.wait();
}

/// Ingests the captured log and benchmark result and checks the scenario's prediction against them.
/// The benchmark result's records name the engine that ran (SGLang's and vLLM's serving results share
/// their keys, which `ingest` reads as SGLang's).
pub fn measure(
    scenario: &Path,
    plan: &RunPlan,
    threshold: f64,
) -> Result<(Vec<(String, MeasurementFile)>, check::Report), RunError> {
    let bad = |e: &dyn std::fmt::Display| RunError::Io(e.to_string());
    let mut files = Vec::new();
    for (path, is_bench) in [(&plan.log, false), (&plan.result, true)] {
        let (mut m, _warnings) = ingest::ingest_files(&[path.as_path()], None, None).map_err(|e| bad(&e))?;
        if is_bench {
            let name = match plan.engine {
                EngineKind::Sglang => "sglang",
                EngineKind::Vllm => "vllm",
            };
            for r in &mut m.records {
                if let Record::DecodeThroughput { engine, .. } = r {
                    *engine = name.into();
                }
            }
        }
        let out = path.with_extension("measurements.json");
        let text = serde_json::to_string_pretty(&m).map_err(|e| bad(&e))? + "\n";
        tpsim::files::write_output(&out, &plan.inputs, text.as_bytes()).map_err(|e| bad(&e))?;
        files.push((path.display().to_string(), m));
    }
    let target = check::Target {
        scenario: Some(scenario.to_path_buf()),
        hardware: None,
        profile: None,
        env: Vec::new(),
    };
    let report = check::check(&target, &files, threshold).map_err(|e| bad(&e))?;
    Ok((files, report))
}

/// `tpsim-calibrate run-engine`'s arguments.
#[derive(Debug, clap::Args)]
pub struct RunEngineArgs {
    /// The scenario TOML file: the engine command is `tpsim engine-args SCENARIO`'s, the benchmark's
    /// load its `[workload]`.
    scenario: PathBuf,
    /// Folder for server.log, the benchmark result and the measurement files (default:
    /// `run-engine-<scenario name>`); created if missing.
    #[arg(long, value_name = "DIR")]
    out: Option<PathBuf>,
    /// The Python interpreter that has SGLang.
    #[arg(long, default_value = "python3", value_name = "PATH")]
    python: String,
    /// vLLM's `vllm` command.
    #[arg(long, default_value = "vllm", value_name = "PATH")]
    vllm: String,
    /// Address the server listens on and the benchmark connects to.
    #[arg(long, default_value = "127.0.0.1")]
    host: String,
    #[arg(long, default_value_t = 30000)]
    port: u16,
    /// Seconds to wait for the server's readiness line.
    #[arg(long, default_value_t = 1800, value_name = "SECONDS")]
    startup_timeout: u64,
    /// `check`'s gate on the median |error|, in percent.
    #[arg(long, default_value_t = 25.0, value_name = "PCT")]
    threshold: f64,
    /// Print the plan (server and benchmark commands, files) as JSON and run nothing.
    #[arg(long)]
    dry_run: bool,
    /// Print the check as one JSON object instead of the table.
    #[arg(long)]
    json: bool,
}

/// Runs `run-engine`; returns the exit code (2 bad input or no engine, 1 failed run or check).
pub fn run(a: RunEngineArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    use crate::cli::{EXIT_BAD_INPUT, EXIT_FAILURE};
    let fail = |err: &mut dyn Write, e: &RunError| {
        let _ = writeln!(err, "error: {e}");
        if e.is_bad_input() {
            EXIT_BAD_INPUT
        } else {
            EXIT_FAILURE
        }
    };
    if !a.threshold.is_finite() || a.threshold < 0.0 {
        let _ = writeln!(
            err,
            "error: --threshold {}: expected a percentage ≥ 0",
            a.threshold
        );
        return EXIT_BAD_INPUT;
    }
    let (s, cmd) = match tpsim::engine_args::for_file(&a.scenario) {
        Ok(v) => v,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            return EXIT_BAD_INPUT;
        }
    };
    let dir = a.out.clone().unwrap_or_else(|| {
        let stem = a
            .scenario
            .file_stem()
            .map_or("scenario".into(), |s| s.to_string_lossy());
        PathBuf::from(format!("run-engine-{stem}"))
    });
    let programs = Programs {
        python: a.python,
        vllm: a.vllm,
        host: a.host,
        port: a.port,
    };
    let p = match plan(&s, &cmd, &programs, &dir) {
        Ok(p) => p,
        Err(e) => return fail(err, &e),
    };
    if a.dry_run {
        let text = serde_json::to_string_pretty(&p).unwrap_or_default();
        return if writeln!(out, "{text}").is_ok() {
            0
        } else {
            EXIT_FAILURE
        };
    }
    if let Err(e) = probe(&p) {
        return fail(err, &e);
    }
    if let Err(e) = std::fs::create_dir_all(&dir) {
        let _ = writeln!(err, "error: cannot create {}: {e}", dir.display());
        return EXIT_FAILURE;
    }
    if let Err(e) = execute(&p, Duration::from_secs(a.startup_timeout), err) {
        return fail(err, &e);
    }
    let (_, report) = match measure(&a.scenario, &p, a.threshold / 100.0) {
        Ok(r) => r,
        Err(e) => return fail(err, &e),
    };
    crate::cli::print_check(&report, a.json, out, err)
}
