//! Helpers shared by the end-to-end tests: run the CLI in-process and locate bundled files.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::PathBuf;

/// Exit code, stdout and stderr of one `tpsim` invocation.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

/// Runs `tpsim ARGS…` through the same entry point as the binary.
pub fn tpsim(args: &[&str]) -> Out {
    let mut argv: Vec<OsString> = vec!["tpsim".into()];
    argv.extend(args.iter().map(OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = tpsim_cli::main_with_args(&argv, &mut out, &mut err);
    Out {
        code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// Path of a file under the repository's `scenarios/`.
pub fn scenario(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(rel)
        .display()
        .to_string()
}

/// Runs `tpsim run FILE --json` and parses the object; panics with stderr on failure. Exit code 3
/// (the engine would not start: the object carries its verdict and no throughput) is not a failure.
pub fn run_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["run", file, "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout)
        .unwrap_or_else(|_| panic!("tpsim run {file} failed ({}): {}", o.code, o.stderr));
    let want = if j["verdict"] == "ok" { 0 } else { 3 };
    assert_eq!(o.code, want, "tpsim run {file}: {}", o.stderr);
    j
}

/// Whether `tpsim validate` / `run` output `o` is SGLang refusing a model that vLLM serves: exit 2
/// with "(use vllm" (no SGLang release serves it, or vLLM from a named release: fam, families17) or
/// "(set a later engine.version)" (SGLang serves it only after the release simulated: families22's
/// LFM2 on the default 0.5.8). Such a preset is checked again under vLLM.
pub fn refused_for_vllm(o: &Out) -> bool {
    o.code == 2 && (o.stderr.contains("(use vllm") || o.stderr.contains("(set a later engine.version)"))
}

/// Where the tests write their scratch files: cargo's per-target `CARGO_TARGET_TMPDIR`
/// (`target/tmp`), not the system's `/tmp`. Names carry no process id, so a rerun reuses its
/// folders instead of leaving one more set behind (stop 62 found 22,950 of them in `/tmp`);
/// `cargo clean` removes them.
pub fn tmp_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// A fresh scratch directory for one test, under [`tmp_root`].
///
/// Every module of the integration test binary runs in one process: the calling file's name keeps
/// their folders apart (`#[track_caller]`).
#[track_caller]
pub fn scratch(name: &str) -> PathBuf {
    let file = std::path::Path::new(std::panic::Location::caller().file());
    let module = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let d = tmp_root().join(format!("tpsim-test-{module}-{name}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// `scenario` (a file path) rewritten to read the calibration profile `profile` (TOML text), both
/// written into `dir` (`p.toml`, `s.toml`); returns the new scenario's path. For tests that feed a
/// profile a bad value and expect the key named in the error.
pub fn with_profile(dir: &std::path::Path, scenario: &str, profile: &str) -> String {
    let prof = dir.join("p.toml");
    std::fs::write(&prof, profile).expect("write profile");
    let text = std::fs::read_to_string(scenario)
        .expect("read scenario")
        .replacen(
            "[hardware]\n",
            &format!("[hardware]\nprofile = {:?}\n", prof.display().to_string()),
            1,
        );
    let s = dir.join("s.toml");
    std::fs::write(&s, text).expect("write scenario");
    s.display().to_string()
}

/// The seed baseline's text with `from` replaced by `to` (exactly once), written to a scratch file.
#[track_caller]
pub fn baseline_with(name: &str, from: &str, to: &str) -> String {
    let text = std::fs::read_to_string(scenario("seed/baseline.toml")).expect("baseline");
    assert_eq!(
        text.matches(from).count(),
        1,
        "`{from}` must occur once in baseline.toml"
    );
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text.replacen(from, to, 1)).expect("write");
    p.display().to_string()
}

/// The memory entry of a `--json` run whose name starts with `prefix`: (name, bytes). For pools
/// whose names carry their sizes (SGLang's hybrid SWA "full" / "sliding" entries).
pub fn pool_entry(run: &serde_json::Value, prefix: &str) -> (String, u64) {
    let e = run["memory"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().unwrap().starts_with(prefix))
        .unwrap_or_else(|| panic!("no entry {prefix}"));
    (
        e["name"].as_str().unwrap().to_string(),
        e["bytes"].as_u64().unwrap(),
    )
}

/// The bytes of the memory entry `name` of a `tpsim run --json` result (`memory.entries`).
#[track_caller]
pub fn entry_bytes(run: &serde_json::Value, name: &str) -> u64 {
    run["memory"]["entries"]
        .as_array()
        .expect("memory.entries")
        .iter()
        .find(|e| e["name"] == name)
        .and_then(|e| e["bytes"].as_u64())
        .unwrap_or_else(|| panic!("no memory entry {name:?}"))
}

pub fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

/// Times (µs) from `tpsim collective --json` for a list of sizes.
pub fn times(preset: &str, algo: &str, gpus: &str, sizes: &[u64], extra: &[&str]) -> Vec<f64> {
    let list = sizes.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let mut args = vec![
        "collective",
        "--hardware",
        preset,
        "--gpus",
        gpus,
        "--algo",
        algo,
        "--sizes",
        &list,
        "--json",
    ];
    args.extend_from_slice(extra);
    let o = tpsim(&args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| f(&r["time_us"]))
        .collect()
}

/// A scenario file of a model read from `config` (a config.json path) on 8× H200 (the
/// `h200-8x-nvlink` preset) at TP 8 under `engine` `version`, c 8, 1,024-token prompts and 64-token
/// outputs, written to `scratch(name)/s.toml`; returns its path. The families suites use it for
/// checkpoints tpsim reads from a config rather than a preset.
#[track_caller]
pub fn config_scenario(name: &str, config: &std::path::Path, engine: &str, version: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\nconfig = \"{}\"\n[engine]\nname = \
         \"{engine}\"\nversion = \"{version}\"\ntp = 8\n[workload]\nconcurrency = 8\nprompt_len = 1024\n\
         output_len = 64\n",
        config.display()
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// A measured table under the repository's `tests/data/` (e.g. `"allreduce.tsv"`).
pub fn data_path(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("data").join(name)
}

/// A model's config.json at `path` lowered with bf16 weights (`ModelSpec::from_config_json`): the
/// tests that need a layer's shapes, a cell size or a kernel count, which depend on the geometry and
/// not on the checkpoint's quantization. Panics naming the file when it is missing or does not lower.
pub fn bf16_spec(path: impl AsRef<std::path::Path>) -> tpsim_model::llm::ModelSpec {
    let p = path.as_ref();
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    tpsim_model::llm::ModelSpec::from_config_json(&text, tpsim_model::llm::Quantization::bf16())
        .unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

/// A bundled preset's config.json (`scenarios/models/NAME/`) lowered with bf16 weights ([`bf16_spec`]).
pub fn preset_spec(name: &str) -> tpsim_model::llm::ModelSpec {
    bf16_spec(scenario(&format!("models/{name}/config.json")))
}

/// The published DeepSeek-V4-Flash config (`tests/data/models/deepseek-v4-flash`) lowered with bf16
/// weights ([`bf16_spec`]); the decode-kernel tests of dsv4dec55 and dsv4k56 read it.
pub fn deepseek_v4_flash() -> tpsim_model::llm::ModelSpec {
    bf16_spec(data_path("models/deepseek-v4-flash/config.json"))
}

/// How many rows of `tests/data/throughput.tsv` each (source prefix, model) pair has, in order: the
/// `every_*_row_is_compared` tests assert these counts so a row added to the table without a test fails.
pub fn throughput_rows_per_source(sources: &[(&str, &str)]) -> Vec<usize> {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m) = (t.col("source"), t.col("model"));
    sources
        .iter()
        .map(|(src, model)| {
            t.rows
                .iter()
                .filter(|r| r.get(s).starts_with(src) && r.get(m) == *model)
                .count()
        })
        .collect()
}

/// The measured `output_tok_s` of the one row of `tests/data/throughput.tsv` with this source prefix
/// and model whose notes `note_matches` accepts; panics unless exactly one row matches. Shared by the
/// newdeploys suites.
#[track_caller]
pub fn measured_throughput(source: &str, model: &str, note_matches: impl Fn(&str) -> bool) -> f64 {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, o, n) = (
        t.col("source"),
        t.col("model"),
        t.col("output_tok_s"),
        t.col("notes"),
    );
    let found: Vec<f64> = t
        .rows
        .iter()
        .filter(|r| r.get(s).starts_with(source) && r.get(m) == model && note_matches(r.get(n)))
        .map(|r| {
            r.get(o)
                .parse::<f64>()
                .unwrap_or_else(|_| panic!("line {}: not a tok/s value: {}", r.line, r.get(o)))
        })
        .collect();
    assert_eq!(found.len(), 1, "expected one row {source} | {model}: {found:?}");
    found[0]
}

/// The row of `tests/data/throughput.tsv` that a newdeploys suite checks its scenario against: the
/// first with this source prefix and model whose notes start with `note` (panics "no row NOTE"
/// without one). Shared by the newdeploys17 … 20 suites.
pub struct ThroughputRow {
    /// `notes`.
    pub notes: String,
    /// `tp`.
    pub tp: u64,
    /// `batch_or_concurrency`.
    pub concurrency: u64,
}

#[track_caller]
pub fn throughput_row(source: &str, model: &str, note: &str) -> ThroughputRow {
    let t = read_tsv(&data_path("throughput.tsv"));
    let (sc, m, o, b, tpc) = (
        t.col("source"),
        t.col("model"),
        t.col("notes"),
        t.col("batch_or_concurrency"),
        t.col("tp"),
    );
    let row = t
        .rows
        .iter()
        .find(|r| r.get(sc).starts_with(source) && r.get(m) == model && r.get(o).starts_with(note))
        .unwrap_or_else(|| panic!("no row {note}"));
    ThroughputRow {
        notes: row.get(o).to_string(),
        tp: row.get(tpc).parse().unwrap(),
        concurrency: row.get(b).parse().unwrap(),
    }
}

/// Compares one per-stream newdeploys row: the measured value of the row with this source prefix,
/// model and notes prefix (checked against 1000 ÷ the source's median TPOT `tpot_ms`, rounded to
/// 0.01 tok/s, so within 0.005) and 1000 ÷ tpsim's median TPOT for `validation/FILE`, held to
/// `throughput_rows`' target. Shared by the newdeploys17, 18 and 19 suites.
#[track_caller]
pub fn compare_tpot_row(row: (&str, &str, &str), tpot_ms: f64, file: &str, label: &str) {
    compare_tpot_stat(row, tpot_ms, file, label, "p50");
}

/// As [`compare_tpot_row`], against 1000 ÷ tpsim's **mean** TPOT: for tables whose TPOT is taken as
/// bench_serving's mean (sglang pull requests 31044, 30812 and 31216; deploys28, deploys29).
#[track_caller]
pub fn compare_mean_tpot_row(row: (&str, &str, &str), tpot_ms: f64, file: &str, label: &str) {
    compare_tpot_stat(row, tpot_ms, file, label, "mean");
}

/// The shared body of [`compare_tpot_row`] and [`compare_mean_tpot_row`]: `stat` is the key of
/// tpsim's `serving.tpot_ms` (`"p50"` or `"mean"`).
#[track_caller]
fn compare_tpot_stat(row: (&str, &str, &str), tpot_ms: f64, file: &str, label: &str, stat: &str) {
    let (src, model, note) = row;
    let m = measured_throughput(src, model, |n| n.starts_with(note));
    assert!((m - 1000.0 / tpot_ms).abs() < 0.005, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    crate::throughput_rows::validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"][stat]));
}

/// `{ random = N, range_ratio = 0.0 }` of scenario key `key` → Some(N); a fixed length → None.
/// Shared by the newdeploys16, 17, 18 and 22 suites.
pub fn random_len(text: &str, key: &str) -> Option<u64> {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key}"));
    let r = line.split("random = ").nth(1)?;
    assert!(line.ends_with("range_ratio = 0.0 }"), "{line}");
    r.split(',').next().and_then(|r| r.trim().parse().ok())
}

#[path = "shared.rs"]
mod shared;
pub use shared::*;

#[path = "fixed_serve.rs"]
pub mod fixed_serve;

#[path = "iog.rs"]
pub mod iog;

/// Columns of tests/data/allreduce.tsv line `line` (1-based, the header is line 1): (gpu, n_gpus,
/// size_bytes, time_us). Shared by the SHM host suites (shm_host_autodl, shm_host_charlie,
/// shm_host_dgx).
#[track_caller]
pub fn allreduce_row(line: usize) -> (String, String, u64, f64) {
    let tsv = std::fs::read_to_string(data_path("allreduce.tsv")).expect("table");
    let l = tsv.lines().nth(line - 1).expect("line");
    let c: Vec<&str> = l.split('\t').collect();
    (
        c[1].to_string(),
        c[2].to_string(),
        c[5].parse().expect("size_bytes"),
        c[6].parse().expect("time_us"),
    )
}

/// The SHM host facts every SHM host suite checks on its preset: DRAM per socket and socket link in
/// GB/s (tolerances 1e-3 and 1e-9: exact arithmetic), the `shm_read_efficiency` it carries and the
/// allreduce.tsv rows its fitted mark names, and two sockets. Returns the hardware for further checks.
#[track_caller]
pub fn assert_shm_host_facts(
    preset: &str,
    dram_gbps: f64,
    socket_link_gbps: f64,
    read_efficiency: f64,
    rows: &str,
) -> tpsim::scenario::Hardware {
    let h = tpsim::scenario::hardware_from_preset(preset).expect("preset");
    let p = &h.params;
    assert!(
        (p.host_memory_bw.as_gbps() - dram_gbps).abs() < 1e-3,
        "{}",
        p.host_memory_bw.as_gbps()
    );
    assert!((p.inter_socket_bw.as_gbps() - socket_link_gbps).abs() < 1e-9);
    assert!((p.shm_read_efficiency.expect("set") - read_efficiency).abs() < 1e-12);
    assert!(h.fitted["shm_read_efficiency"].rows.contains(rows));
    assert_eq!(h.host.as_ref().expect("[host]").sockets, 2);
    h
}

/// Every bundled `scenarios/seed/*.toml` and `scenarios/examples/*.toml`, sorted by path.
pub fn bundled_seed_and_examples() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["seed", "examples"] {
        for e in std::fs::read_dir(scenario(dir)).expect("dir") {
            let p = e.expect("entry").path();
            if p.extension().is_some_and(|x| x == "toml") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Checks that scenario `text` (file `file`) is a `bench_serving` random-lengths run as its throughput row
/// states it: `tp` and `concurrency` against the row's `--tp` / `--max-concurrency` in its `notes`,
/// `num_requests` against `--num-prompts`, and the N of each random length against the note's
/// "… random IN/OUT" (its sixth word; range ratio 0.0, SGLang's default). Shared by the newdeploys18 and
/// newdeploys22 suites.
pub fn assert_bench_serving_random_run(
    text: &str,
    notes: &str,
    note: &str,
    tp: u64,
    concurrency: u64,
    file: &str,
) {
    assert_eq!(scenario_int_key(text, "tp"), tp, "{file}");
    assert!(notes.contains(&format!(" --tp {tp}")), "{file}");
    assert_eq!(scenario_int_key(text, "concurrency"), concurrency, "{file}");
    assert!(
        notes.contains(&format!("--max-concurrency {concurrency}")),
        "{file}"
    );
    let prompts: u64 = notes
        .split("--num-prompts ")
        .nth(1)
        .and_then(|r| r.split_whitespace().next())
        .and_then(|r| r.parse().ok())
        .unwrap_or_else(|| panic!("{file}: no --num-prompts in the row's notes"));
    assert_eq!(scenario_int_key(text, "num_requests"), prompts, "{file}");
    let head: Vec<&str> = note.split_whitespace().collect();
    assert_eq!(head[4], "random", "{file}");
    let (inp, out) = head[5].split_once('/').unwrap();
    assert_eq!(random_len(text, "prompt_len"), inp.parse().ok(), "{file}");
    assert_eq!(random_len(text, "output_len"), out.parse().ok(), "{file}");
}

/// The integer after `key = ` on a line of a scenario's text (a trailing `# comment` ignored): the
/// throughput suites check a scenario's workload lengths against the row's notes with it. Panics, naming
/// the key, when no line sets it.
pub fn scenario_int_key(text: &str, key: &str) -> u64 {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{key} = ")))
        .unwrap_or_else(|| panic!("no {key}"));
    let v = line.split('=').nth(1).unwrap().split('#').next().unwrap();
    v.trim().parse().unwrap()
}

/// A scenario file in the scratch folder `name` for a bundled model `preset` under `engine` at `tp` on the
/// hardware preset `hw` (seed 1; 8 requests in flight, 1,024-token prompts, 64 output tokens): the model
/// family suites load each preset end to end with it. Returns the file's path.
pub fn scenario_for(name: &str, preset: &str, engine: &str, tp: u32, hw: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{preset}\"\n\
         [engine]\nname = \"{engine}\"\ntp = {tp}\n[workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The median of measured figures (statrs: the mean of the two middle values for an even count), as
/// the efficiency suites take a template's fraction from several measurements.
pub fn median(v: &[f64]) -> f64 {
    use statrs::statistics::{Data, Median};
    Data::new(v.to_vec()).median()
}

/// The value of `key` in the TOML file `rel` under `scenarios/`, looked up in the top-level table and
/// then, depth first, in its sub-tables, skipping a key whose value is itself a table (a provenance
/// entry); `None` if no table sets it. Panics on an unreadable file.
pub fn preset_key(rel: &str, key: &str) -> Option<toml::Value> {
    fn find(t: &toml::Table, key: &str) -> Option<toml::Value> {
        t.get(key).filter(|v| !v.is_table()).cloned().or_else(|| {
            t.values()
                .filter_map(toml::Value::as_table)
                .find_map(|t| find(t, key))
        })
    }
    let text = std::fs::read_to_string(scenario(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    let table: toml::Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    find(&table, key)
}

/// shmhost19 (issue #19): the seed box (`rtx-pro-6000-8x-dual-turin-direct`) runs NCCL over SHM on
/// every ring hop and its file has no `[host]` section, so every run on it carries one warning that
/// the SHM rate is the template's (tests/tests/shm_no_host.rs has its full text). Tests that assert
/// other warnings exactly split it off: (how many such lines, the other lines joined by '\n').
pub fn split_seed_shm_warning(stderr: &str) -> (usize, String) {
    const MARK: &str = "NCCL takes SHM on 8 of the 8 ring hops of GPUs 0-7, and <preset \
                        hardware/rtx-pro-6000-8x-dual-turin-direct.toml> has no [host] section";
    let (shm, rest): (Vec<&str>, Vec<&str>) = stderr.trim_end().lines().partition(|l| l.contains(MARK));
    (shm.len(), rest.join("\n"))
}

/// One run of a Millstone AI report (newdeploys20, newdeploys21): (notes prefix, the report's figure
/// in tok/s, scenario file, label, concurrency, prompt tokens, whether the figure is the system (all
/// users') throughput rather than one user's speed).
pub type MillstoneRow = (&'static str, f64, &'static str, &'static str, u64, u64, bool);

/// What every scenario of one Millstone AI report states: the row's source prefix and model in
/// `throughput.tsv`, the hardware and model presets, the engine version and `max_model_len`.
pub struct MillstoneReport {
    /// `source` prefix and `model` of the report's rows in `tests/data/throughput.tsv`.
    pub row: (&'static str, &'static str),
    /// `[hardware] preset`.
    pub hardware: &'static str,
    /// `[model] preset`.
    pub model: &'static str,
    /// `[engine] version`.
    pub version: &'static str,
    /// `max_model_len` (the model's context, which the longest run needs).
    pub max_model_len: u64,
}

/// Compares one Millstone row: the measured value (the report's figure, to 0.05 tok/s as printed)
/// against 1000 ÷ tpsim's median TPOT (per-user rows) or tpsim's end-to-end output rate (the system
/// row), held to `throughput_rows`' target.
#[track_caller]
pub fn compare_millstone_row(report: &MillstoneReport, row: &MillstoneRow) {
    let (note, figure, file, label, _, _, system) = *row;
    let (src, model) = report.row;
    let m = measured_throughput(src, model, |n| n.starts_with(note));
    assert!((m - figure).abs() < 0.05, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    let predicted = if system {
        f(&v["throughput"]["e2e_output_tok_s"])
    } else {
        1000.0 / f(&v["serving"]["tpot_ms"]["p50"])
    };
    crate::throughput_rows::validate(label, (m, m), predicted);
}

/// Checks that each scenario is its Millstone run: the report's presets and release, TP 1, the row's
/// concurrency, an N,000-token prompt for "NK context", 1024 output tokens ("1024 output tokens per
/// request"), prefix caching off ("No prompt caching"), vLLM's default memory fraction 0.9 and the
/// report's `max_model_len`, which the longest prompt plus its output must fit.
#[track_caller]
pub fn check_millstone_scenarios(report: &MillstoneReport, rows: &[MillstoneRow]) {
    let (src, model) = report.row;
    for (note, _, file, _, c, prompt, _) in rows {
        let row = throughput_row(src, model, note);
        let notes = row.notes.as_str();
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        for preset in [report.hardware, report.model] {
            assert!(
                text.contains(&format!("\npreset = \"{preset}\"\n")),
                "{file}: {preset}"
            );
        }
        assert!(
            text.contains(&format!("\nversion = \"{}\"", report.version)),
            "{file}"
        );
        assert!(text.contains("\nenable_prefix_caching = false\n"), "{file}");
        assert!(notes.contains("no prompt caching"), "{file}");
        assert!(text.contains("\ngpu_memory_utilization = 0.9\n"), "{file}");
        assert_eq!(
            scenario_int_key(&text, "max_model_len"),
            report.max_model_len,
            "{file}"
        );
        assert_eq!((row.tp, scenario_int_key(&text, "tp")), (1, 1), "{file}");
        assert_eq!(
            (row.concurrency, scenario_int_key(&text, "concurrency")),
            (*c, *c),
            "{file}"
        );
        assert!(notes.contains(&format!(" c {c}, ")), "{file}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), *prompt, "{file}");
        assert!(
            notes.contains(&format!(", {}K context:", prompt / 1000)),
            "{file}"
        );
        assert_eq!(scenario_int_key(&text, "output_len"), 1024, "{file}");
        assert!(notes.contains("1024 output tokens per request"), "{file}");
        assert!(prompt + 1024 <= report.max_model_len, "{file}");
    }
}

/// The bundled scenario `file` (engine `from`) rewritten for `engine` (same box, tp and workload),
/// optionally with an engine version, in the scratch file `name`/s.toml; returns its path. Shared by
/// the families16 and families18 suites.
pub fn engine_variant(file: &str, from: &str, name: &str, engine: &str, version: Option<&str>) -> String {
    let mut text = std::fs::read_to_string(scenario(file)).unwrap();
    text = text.replace(&format!("name = \"{from}\""), &format!("name = \"{engine}\""));
    if let Some(v) = version {
        text = text.replace("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"));
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The bundled scenario `file` with its text rewritten by `edit`, in the scratch file `name`/s.toml;
/// returns its path. Shared by the families19 and families20 suites.
pub fn edited_variant(file: &str, name: &str, edit: impl Fn(String) -> String) -> String {
    let text = edit(std::fs::read_to_string(scenario(file)).unwrap());
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The vLLM scenario `file` run under SGLang (`context_length` for vLLM's `max_model_len` of
/// `context` tokens), with `extra` engine keys, in the scratch file `name`/s.toml.
pub fn vllm_file_under_sglang(file: &str, name: &str, context: u64, extra: &str) -> String {
    edited_variant(file, name, |t| {
        t.replace("name = \"vllm\"", &format!("name = \"sglang\"\n{extra}"))
            .replace(
                &format!("max_model_len = {context}"),
                &format!("context_length = {context}"),
            )
    })
}

/// SGLang's recurrent-state pool entry of a `--json` run: (requests, bytes).
pub fn state_pool(run: &serde_json::Value) -> (u64, u64) {
    let e = run["memory"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"].as_str().unwrap().starts_with("state pool, "))
        .expect("a state pool entry");
    let name = e["name"].as_str().unwrap();
    let n = name
        .trim_start_matches("state pool, ")
        .trim_end_matches(" requests")
        .parse()
        .unwrap();
    (n, e["bytes"].as_u64().unwrap())
}

/// The memory warnings of a `--json` run.
pub fn memory_warnings(run: &serde_json::Value) -> Vec<String> {
    run["memory"]["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w.as_str().unwrap().to_string())
        .collect()
}

/// Whether one of a `--json` run's warnings contains `text` (hybrids51 and b200pg50's suites).
pub fn warned(run: &serde_json::Value, text: &str) -> bool {
    run["warnings"]
        .as_array()
        .unwrap()
        .iter()
        .any(|w| w.as_str().unwrap().contains(text))
}

/// SGLang's "Disabling overlap schedule since MambaRadixCache is not compatible with overlap
/// schedule currently" (`srt/server_args.py` 0.5.6 – 0.5.8).
pub const MAMBA_RADIX_OVERLAP_OFF: &str =
    "Disabling overlap schedule since MambaRadixCache is not compatible with overlap schedule currently";

/// Asserts that the bundled SGLang scenario `file` runs without the overlap scheduler (SGLang's
/// MambaRadixCache warning) and that, against the same run with `disable_radix_cache = true` plus
/// the `[engine]` lines `extra` (scratch `name`), where SGLang keeps the overlap, the mean TPOT
/// (`throughput.tpot_ms`) is 0.300 ms longer (engines/sglang.toml `host_overhead`, 300 µs, assumed;
/// ± 0.001 ms of rounding).
pub fn assert_overlap_off_costs_host_overhead(file: &str, name: &str, extra: &str, warning: &str) {
    let run = run_json(&scenario(file));
    assert!(warned(&run, warning), "{file}: no warning {warning:?}");
    let no_radix = run_json(&edited_variant(file, name, |t| {
        t.replace(
            "[engine]\n",
            &format!("[engine]\ndisable_radix_cache = true\n{extra}"),
        )
    }));
    assert!(!warned(&no_radix, "Disabling overlap schedule"));
    let d = f(&run["throughput"]["tpot_ms"]) - f(&no_radix["throughput"]["tpot_ms"]);
    assert!((d - 0.300).abs() < 0.001, "{d} ms");
}

/// `tpsim run --json` on one request of `prompt` tokens (two output tokens, alone at 0.001 req/s)
/// of the `model` preset on one GPU of the `hardware` preset under vLLM 0.11.0, tp 1: the run the
/// prefill-rate suites time (gemm_rate, curves56, curves57). `hardware_extra` is TOML appended to
/// `[hardware]`, `engine_extra` to `[engine]`.
pub fn vllm_one_prompt(
    name: &str,
    (hardware, model): (&str, &str),
    prompt: u32,
    hardware_extra: &str,
    engine_extra: &str,
) -> serde_json::Value {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{hardware}\"\n{hardware_extra}\n[model]\npreset = \"{model}\"\n\
         [engine]\nname = \"vllm\"\nversion = \"0.11.0\"\ntp = 1\n{engine_extra}\n[workload]\n\
         request_rate = 0.001\nnum_requests = 1\nprompt_len = {prompt}\noutput_len = 2\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    run_json(&p.display().to_string())
}

/// Asserts that a one-prompt run's p50 TTFT is `hand_ms` (the prefill's FLOPs over the curve's rate,
/// by hand) within 2 % — tpsim adds the last token's LM head, the per-kernel gaps and the host's step
/// costs, a few ms — and that its prefill lies in the curve's measured range.
pub fn assert_prefill_by_hand(j: &serde_json::Value, hand_ms: f64) {
    let ttft = f(&j["serving"]["ttft_ms"]["p50"]);
    assert!(
        ((ttft - hand_ms) / hand_ms).abs() < 0.02,
        "TTFT {ttft} ms against {hand_ms:.1} by hand"
    );
    let p = &j["prefill_calibration"];
    assert_eq!(p["status"], "measured range", "{p}");
}

/// Asserts that two one-prompt runs differing only in their GEMM curve decode alike (p50 TPOT within
/// 0.1 %: decode kernels sit below the curve's first point) and that the `slow` run's TTFT is
/// `ratio` × the `fast` one's (the FLOP part scales, the fixed few ms do not).
pub fn assert_curve_moves_only_prefill(
    slow: &serde_json::Value,
    fast: &serde_json::Value,
    ratio: std::ops::RangeInclusive<f64>,
) {
    let tpot = |j: &serde_json::Value| f(&j["serving"]["tpot_ms"]["p50"]);
    let ttft = |j: &serde_json::Value| f(&j["serving"]["ttft_ms"]["p50"]);
    assert!(
        ((tpot(slow) - tpot(fast)) / tpot(fast)).abs() < 1e-3,
        "{} {}",
        tpot(slow),
        tpot(fast)
    );
    let r = ttft(slow) / ttft(fast);
    assert!(ratio.contains(&r), "TTFT ratio {r}");
}
