//! Garbage in (DESIGN.md §2.5: bad input → a clear error naming the file and key, exit code 2; never a
//! panic, NaN, infinity or hang): a deterministic mutation sweep over every bundled scenario.
//!
//! Each case takes one bundled scenario (`scenarios/seed/`, `scenarios/examples/`,
//! `scenarios/validation/` and its `prefill/`), reads it as a TOML table, replaces one leaf key with a
//! garbage value (see [`MUTATIONS`]: 0, −1, 1, `i64::MAX`, 1e308, −1e−308, NaN, ±inf, a float for an
//! int and an int for a float, "" and a 10 kB string, a bool, an array, a table, the key deleted) or
//! an out-of-range but well-typed value on a known key ([`ABSURD`]), writes it to a scratch file and
//! runs `tpsim run FILE --json` in process under `catch_unwind`. It passes when either
//! - exit code 2 and stderr is `error: FILE…: key `K`: …` (the file and some key named), or
//! - exit code 0/3 and the JSON report's numbers (throughput, serving percentiles, the memory plan)
//!   are present (a NaN or infinity serializes as `null`), finite and non-negative; then
//!   `tpsim engine-args FILE` prints the launch command or refuses it (exit 2, `error: …`).
//!
//! A panic, exit code 1 (internal error), a missing key in the message or a non-finite number fails
//! the test naming the scenario, the key and the mutation. A case running past [`SLOW_CASE`] fails
//! as a hang.
//!
//! The keys a scenario inherits from its presets (the hardware preset and its templates, the engine's
//! costs) get the same garbage as overrides in the scenario ([`preset_keys`]).
//!
//! Sampled, not covered: the cases are every (file, leaf key, mutation) triple, drawn without
//! replacement from a ChaCha8 stream seeded with [`SEED`]; [`DEFAULT_CASES`] of them run by default
//! (half as many preset-key cases; `TPSIM_GARBAGE_CASES=<n>` runs more, e.g. every case in a
//! release build, and `TPSIM_GARBAGE_FROM=<k>` skips the first k). Of [`ABSURD`]'s
//! values, the seed scenarios get every one, every other file one drawn from the stream.
//!
//! Workload cap (to keep a debug build near a minute on two cores): before a mutated scenario runs,
//! its `workload.num_requests` is cut to max(concurrency, 16) and its `workload.output_len` (a
//! number, or a table's `random`/`min`/`max`) to 64, each unless the mutated key is that one. A
//! mutated length or request count runs as mutated: tpsim's own limits bound it (concurrency ≤ 4096,
//! num_requests ≤ 10⁶, prompt + output ≤ 10⁷ tokens).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use toml::{Table, Value};

use crate::common::*;

/// The stream's seed ("garbage" in ASCII, truncated).
const SEED: u64 = 0x0067_6172_6261_6765;
/// Cases drawn by default (measured: see the architecture chapter's test timings).
const DEFAULT_CASES: usize = 500;
/// A single case running longer than this (wall clock) is a hang: the slowest bundled scenario
/// takes 12 s of CPU in a debug build uncapped (minimax-m2.5-fp8-h100-vllm-0.16-tp4-ep4-c4, 40
/// requests) and 10 s capped, and up to 111 s of wall time was seen on a loaded two-core machine.
const SLOW_CASE: Duration = Duration::from_secs(300);

/// One garbage value for a leaf key.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Mutation {
    Int(i64),
    Float(f64),
    /// An int where a float stands and a float where an int stands (else the int 7).
    SwapNumberType,
    EmptyString,
    /// A 10 kB string.
    LongString,
    Bool,
    Array,
    Table,
    Delete,
}

/// Every mutation applied to a leaf.
pub(crate) const MUTATIONS: &[Mutation] = &[
    Mutation::Int(0),
    Mutation::Int(-1),
    Mutation::Int(1),
    Mutation::Int(i64::MAX),
    Mutation::Float(1e308),
    Mutation::Float(-1e-308),
    Mutation::Float(f64::NAN),
    Mutation::Float(f64::INFINITY),
    Mutation::Float(f64::NEG_INFINITY),
    Mutation::SwapNumberType,
    Mutation::EmptyString,
    Mutation::LongString,
    Mutation::Bool,
    Mutation::Array,
    Mutation::Table,
    Mutation::Delete,
];

/// Out-of-range but well-typed values on known keys (set when the file has the section).
const ABSURD: &[(&str, Absurd)] = &[
    ("engine.mem_fraction_static", Absurd::F(1.5)),
    ("engine.mem_fraction_static", Absurd::F(1e-9)),
    ("engine.tp", Absurd::I(3)),
    ("engine.tp", Absurd::I(1 << 20)),
    ("hardware.gpus", Absurd::I(3)),
    ("hardware.gpus", Absurd::I(1 << 31)),
    ("workload.concurrency", Absurd::I(1_000_000_000)),
    ("workload.num_requests", Absurd::I(1_000_000_000_000)),
    ("workload.prompt_len", Absurd::I(1 << 32)),
    ("workload.output_len", Absurd::I((1 << 32) + 1)),
    ("workload.request_rate", Absurd::F(1e-300)),
    ("engine.page_size", Absurd::I(1 << 30)),
    ("engine.max_running_requests", Absurd::I(1 << 40)),
    ("engine.chunked_prefill_size", Absurd::I(-5)),
    ("engine.cuda_graph_max_bs", Absurd::I(1 << 33)),
    ("speculative.num_steps", Absurd::I(1000)),
    ("speculative.topk", Absurd::I(1 << 20)),
    ("speculative.num_draft_tokens", Absurd::I(1 << 20)),
    ("seed", Absurd::I(-1)),
];

#[derive(Debug, Clone, Copy)]
enum Absurd {
    I(i64),
    F(f64),
}

/// Every bundled scenario, sorted.
fn bundled() -> Vec<PathBuf> {
    let mut v = Vec::new();
    for dir in ["seed", "examples", "validation", "validation/prefill"] {
        let d = PathBuf::from(scenario(dir));
        for e in std::fs::read_dir(&d).expect("scenario dir") {
            let p = e.expect("dir entry").path();
            if p.extension().is_some_and(|x| x == "toml") {
                v.push(p);
            }
        }
    }
    v.sort();
    v
}

/// Dotted paths of the leaves of `t` (arrays are leaves).
pub(crate) fn leaves(t: &Table, prefix: &str, out: &mut Vec<String>) {
    for (k, v) in t {
        let path = if prefix.is_empty() {
            k.clone()
        } else {
            format!("{prefix}.{k}")
        };
        match v {
            Value::Table(inner) => leaves(inner, &path, out),
            _ => out.push(path),
        }
    }
}

/// The table holding `path`'s last segment (created when missing), and that segment.
fn slot<'a>(t: &'a mut Table, path: &'a str) -> Option<(&'a mut Table, &'a str)> {
    let mut parts: Vec<&str> = path.split('.').collect();
    let last = parts.pop()?;
    let mut cur = t;
    for p in parts {
        cur = cur
            .entry(p.to_string())
            .or_insert_with(|| Value::Table(Table::new()))
            .as_table_mut()?;
    }
    Some((cur, last))
}

pub(crate) fn mutate(t: &mut Table, path: &str, m: Mutation) {
    let Some((tab, key)) = slot(t, path) else {
        return;
    };
    let old = tab.get(key).cloned();
    let new = match m {
        Mutation::Int(i) => Value::Integer(i),
        Mutation::Float(f) => Value::Float(f),
        Mutation::SwapNumberType => match old {
            Some(Value::Float(f)) if f.is_finite() => Value::Integer(f.round() as i64),
            Some(Value::Integer(i)) => Value::Float(i as f64 + 0.5),
            _ => Value::Integer(7),
        },
        Mutation::EmptyString => Value::String(String::new()),
        Mutation::LongString => Value::String("x".repeat(10_000)),
        Mutation::Bool => Value::Boolean(true),
        Mutation::Array => Value::Array(vec![Value::Integer(1), Value::String("a".into())]),
        Mutation::Table => {
            let mut x = Table::new();
            x.insert("x".into(), Value::Integer(1));
            Value::Table(x)
        }
        Mutation::Delete => {
            tab.remove(key);
            return;
        }
    };
    tab.insert(key.to_string(), new);
}

/// Relative file references (profiles, traces) rewritten against the original folder, so the copy
/// in the scratch folder reads the same files.
fn absolutize(t: &mut Table, dir: &Path) {
    for (_, v) in t.iter_mut() {
        match v {
            Value::Table(inner) => absolutize(inner, dir),
            Value::String(s)
                if (s.starts_with("./") || s.starts_with("../")) && dir.join(s.as_str()).exists() =>
            {
                *s = dir.join(s.as_str()).display().to_string();
            }
            _ => {}
        }
    }
}

/// The workload cap of the module comment: each of `num_requests` and `output_len` unless the
/// mutated key is that one (or inside it).
fn cap_workload(t: &mut Table, mutated: &str) {
    let Some(w) = t.get_mut("workload").and_then(Value::as_table_mut) else {
        return;
    };
    let c = w.get("concurrency").and_then(Value::as_integer).unwrap_or(1);
    if !mutated.starts_with("workload.num_requests")
        && let Some(Value::Integer(n)) = w.get_mut("num_requests")
    {
        *n = (*n).min(c.max(16));
    }
    if !mutated.starts_with("workload.output_len") {
        match w.get_mut("output_len") {
            Some(Value::Integer(o)) => *o = (*o).min(64),
            Some(Value::Table(o)) => {
                for k in ["random", "min", "max"] {
                    if let Some(Value::Integer(v)) = o.get_mut(k) {
                        *v = (*v).min(64);
                    }
                }
            }
            _ => {}
        }
    }
}

/// Number at `j[a][b]…`: Some(finite value) or a description of what is wrong.
fn number(j: &serde_json::Value, path: &[&str]) -> Result<f64, String> {
    let mut v = j;
    for p in path {
        v = &v[*p];
    }
    match v.as_f64() {
        Some(x) if x.is_finite() && x >= 0.0 => Ok(x),
        Some(x) => Err(format!("{} = {x}", path.join("."))),
        None => Err(format!(
            "{} = {v} (a NaN or infinity serializes as null)",
            path.join(".")
        )),
    }
}

/// Checks one `tpsim run --json` report: what the module comment promises.
fn check_report(j: &serde_json::Value) -> Result<(), String> {
    for k in [
        "total_gib",
        "available_gib",
        "mem_fraction_static",
        "cell_size_bytes",
    ] {
        number(j, &["memory", k])?;
    }
    if j["verdict"] != "ok" {
        return Ok(());
    }
    for k in ["kv_pool_gib", "kv_tokens", "headroom_mib"] {
        number(j, &["memory", k])?;
    }
    // DeepSeek-V4's memory plan (`decode::memory` `plan_dsv4`, its compressed pools) computes no
    // smallest fraction: null by design there, a number everywhere else.
    let dsv4 = j["warnings"].as_array().is_some_and(|w| {
        w.iter()
            .any(|w| w.as_str().is_some_and(|w| w.starts_with("DeepSeek-V4")))
    });
    if !dsv4 {
        number(j, &["memory", "min_mem_fraction_static"])?;
    }
    let t = j["throughput"]
        .as_object()
        .ok_or("verdict ok but no throughput")?;
    // Without a decode step (output_len = 1) the per-token figures are absent by design
    // (`tpsim::report::Throughput`), else every figure is a number.
    let decodes = number(j, &["throughput", "iterations"])? > 0.0;
    for k in t.keys() {
        let per_token = [
            "output_tok_s",
            "per_request_tok_s",
            "tpot_ms",
            "itl_p50_ms",
            "itl_p99_ms",
        ];
        if decodes || !(per_token.contains(&k.as_str()) || k == "mean_iteration_ms") || !t[k].is_null() {
            number(j, &["throughput", k])?;
        }
    }
    for k in ["output_tok_s", "tpot_ms"] {
        if decodes && number(j, &["throughput", k])? <= 0.0 {
            return Err(format!("throughput.{k} is 0 with verdict ok"));
        }
    }
    for k in ["e2e_ms", "itl_ms", "tpot_ms", "ttft_ms"] {
        for p in ["mean", "p50", "p90", "p99"] {
            number(j, &["serving", k, p])?;
        }
    }
    for k in ["makespan_ms", "request_throughput", "peak_kv_utilisation"] {
        number(j, &["serving", k])?;
    }
    Ok(())
}

/// Runs `tpsim run FILE --json` on `text` written as `dir/name`; Err describes a defect, Ok the
/// first line of stderr on a refusal (exit 2; else empty). The wall clock only tells a hang (the
/// simulation itself reads none). Shared with `garbage_config.rs`.
#[allow(clippy::disallowed_methods)]
pub(crate) fn run_case(dir: &Path, name: &str, text: &str) -> Result<String, String> {
    let file = dir.join(name);
    std::fs::write(&file, text).expect("write mutated scenario");
    let f = file.display().to_string();
    let start = Instant::now();
    let o = catch_unwind(AssertUnwindSafe(|| tpsim(&["run", &f, "--json"])));
    let took = start.elapsed();
    let o = o.map_err(|p| {
        let msg = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default();
        format!("panic: {msg}")
    })?;
    if took > SLOW_CASE {
        return Err(format!("ran {took:?} (a hang)"));
    }
    match o.code {
        2 => {
            let first = o.stderr.lines().next().unwrap_or("");
            if !first.starts_with(&format!("error: {f}")) {
                return Err(format!("exit 2 without `error: FILE`: {}", o.stderr));
            }
            if !first.contains("key `") && !first.contains("cannot read") {
                return Err(format!("exit 2 names no key: {first}"));
            }
            Ok(first.to_string())
        }
        0 | 3 => {
            let j: serde_json::Value =
                serde_json::from_str(&o.stdout).map_err(|e| format!("exit {} with bad JSON: {e}", o.code))?;
            check_report(&j)?;
            // The same scenario's launch command: printed, or refused with the engine's text.
            let e = catch_unwind(AssertUnwindSafe(|| tpsim(&["engine-args", &f])))
                .map_err(|_| "engine-args panicked".to_string())?;
            match e.code {
                0 => Ok(String::new()),
                2 if e.stderr.starts_with("error: ") => Ok(String::new()),
                c => Err(format!("engine-args: exit {c}: {}", e.stderr)),
            }
        }
        c => Err(format!("exit {c}: {}", o.stderr)),
    }
}

fn cases_to_run() -> usize {
    std::env::var("TPSIM_GARBAGE_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(DEFAULT_CASES)
}

/// `TPSIM_GARBAGE_FROM=<k>` skips the first k drawn cases (0 by default): a longer run after a
/// shorter one runs only the new cases. The preset-key test skips k / 2.
fn cases_to_skip() -> usize {
    std::env::var("TPSIM_GARBAGE_FROM")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

/// Notes one defect on stderr as it is found (seen live with `--nocapture`) and keeps it.
pub(crate) fn found(defects: &mut Vec<String>, d: String) {
    eprintln!("garbage_in defect: {d}");
    defects.push(d);
}

/// Fails naming every defect found (scenario, key, mutation, what happened).
pub(crate) fn report(defects: &[String], ran: usize) {
    assert!(
        defects.is_empty(),
        "{} of {ran} garbage-input cases failed:\n{}",
        defects.len(),
        defects.join("\n")
    );
}

fn read_table(p: &Path) -> Table {
    let text = std::fs::read_to_string(p).expect("read scenario");
    let mut t: Table = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    absolutize(&mut t, p.parent().expect("scenario folder"));
    t
}

/// Runs a seeded sample of `n` (file, key, mutation) cases — `keys[i]` of `tables[i]` crossed with
/// `muts` — through [`run_case`], skipping the first `skip` of the sample, and reports the defects.
/// The sample is the first `n` of a seeded permutation (rand's `partial_shuffle`).
fn sweep(
    tables: &[(PathBuf, Table, Vec<String>)],
    muts: &[Mutation],
    seed: u64,
    n: usize,
    skip: usize,
    scratch_name: &str,
) {
    let mut all: Vec<(usize, usize, usize)> = Vec::new();
    for (fi, (_, _, keys)) in tables.iter().enumerate() {
        for ki in 0..keys.len() {
            for mi in 0..muts.len() {
                all.push((fi, ki, mi));
            }
        }
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let n = n.min(all.len());
    let (sample, _) = all.partial_shuffle(&mut rng, n);
    let dir = scratch(scratch_name);
    let mut defects = Vec::new();
    for &(fi, ki, mi) in &sample[skip.min(n)..] {
        let (p, t, keys) = &tables[fi];
        let mut t = t.clone();
        let (key, m) = (&keys[ki], muts[mi]);
        mutate(&mut t, key, m);
        cap_workload(&mut t, key);
        let name = p.file_name().expect("file name").to_string_lossy();
        let text = toml::to_string(&t).expect("serialize");
        if let Err(e) = run_case(&dir, &name, &text) {
            found(&mut defects, format!("{} {key} {m:?}: {e}", p.display()));
        }
    }
    report(&defects, n);
}

/// The seeded sample of (file, leaf key, mutation) cases over every bundled scenario.
#[test]
fn every_bundled_scenario_survives_garbage_in_its_keys() {
    let files = bundled();
    assert!(files.len() > 150, "bundled scenarios: {}", files.len());
    let tables: Vec<(PathBuf, Table, Vec<String>)> = files
        .into_iter()
        .map(|p| {
            let t = read_table(&p);
            let mut l = Vec::new();
            leaves(&t, "", &mut l);
            (p, t, l)
        })
        .collect();
    sweep(&tables, MUTATIONS, SEED, cases_to_run(), cases_to_skip(), "keys");
}

/// The keys a scenario inherits from its bundled presets, as the dotted scenario keys that override
/// them: `hardware.*` from `scenarios/hardware/<preset>.toml` and the templates it extends,
/// `engine.costs.*` from `scenarios/engines/<name>.toml`.
fn preset_keys(t: &Table) -> Vec<String> {
    let mut out = Vec::new();
    let get = |sec: &str, k: &str| {
        t.get(sec)
            .and_then(|s| s.get(k))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let mut next = get("hardware", "preset").map(|n| scenario(&format!("hardware/{n}.toml")));
    while let Some(file) = next.take() {
        let Ok(text) = std::fs::read_to_string(&file) else {
            break;
        };
        let h: Table = toml::from_str(&text).expect("hardware preset parses");
        let mut l = Vec::new();
        leaves(&h, "hardware", &mut l);
        out.extend(
            l.into_iter()
                .filter(|k| k != "hardware.extends" && k != "hardware.name"),
        );
        next = h
            .get("extends")
            .and_then(Value::as_str)
            .map(|n| scenario(&format!("hardware/templates/{n}.toml")));
    }
    if let Some(name) = get("engine", "name")
        && let Ok(text) = std::fs::read_to_string(scenario(&format!("engines/{name}.toml")))
    {
        let e: Table = toml::from_str(&text).expect("engine preset parses");
        leaves(&e, "engine.costs", &mut out);
    }
    out.sort();
    out.dedup();
    out
}

/// The seeded sample of (file, preset key, mutation) cases: a preset's key overridden from the
/// scenario with a garbage value ([`MUTATIONS`] but deletion, which only drops the override).
#[test]
fn preset_keys_overridden_with_garbage_are_refused_or_bounded() {
    let files = bundled();
    let tables: Vec<(PathBuf, Table, Vec<String>)> = files
        .into_iter()
        .map(|p| {
            let t = read_table(&p);
            let k = preset_keys(&t);
            (p, t, k)
        })
        .collect();
    let muts: Vec<Mutation> = MUTATIONS
        .iter()
        .copied()
        .filter(|m| !matches!(m, Mutation::Delete))
        .collect();
    let cases: usize = tables.iter().map(|(_, _, k)| k.len() * muts.len()).sum();
    assert!(cases > 10_000, "{cases} preset cases");
    sweep(
        &tables,
        &muts,
        SEED ^ 2,
        cases_to_run() / 2,
        cases_to_skip() / 2,
        "presets",
    );
}

/// Every file with the out-of-range values of [`ABSURD`] on the keys it has sections for.
#[test]
fn absurd_but_well_typed_values_are_refused_or_bounded() {
    let dir = scratch("absurd");
    let mut defects = Vec::new();
    let mut ran = 0;
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 1);
    for p in bundled() {
        let base = read_table(&p);
        // One absurd value per file, drawn from the stream, plus the whole list on the seed files.
        let picks: Vec<usize> = if p.to_string_lossy().contains("/seed/") {
            (0..ABSURD.len()).collect()
        } else {
            vec![rng.random_range(0..ABSURD.len())]
        };
        for i in picks {
            let (key, v) = ABSURD[i];
            let section = key.split('.').next().unwrap_or("");
            if key.contains('.') && !base.contains_key(section) {
                continue;
            }
            let mut t = base.clone();
            if let Some((tab, k)) = slot(&mut t, key) {
                let val = match v {
                    Absurd::I(i) => Value::Integer(i),
                    Absurd::F(f) => Value::Float(f),
                };
                tab.insert(k.to_string(), val);
            }
            cap_workload(&mut t, key);
            let name = p.file_name().expect("file name").to_string_lossy();
            let text = toml::to_string(&t).expect("serialize");
            ran += 1;
            if let Err(e) = run_case(&dir, &name, &text) {
                found(&mut defects, format!("{} {key} = {v:?}: {e}", p.display()));
            }
        }
    }
    report(&defects, ran);
}

/// The defects the sweep found (fuzzin), each pinned: the mutated value and what must happen now.
#[test]
fn the_defects_the_sweep_found_stay_fixed() {
    let dir = scratch("found");
    // (scenario, key, value, expected exit code, text stderr or the report must contain)
    let cases: &[(&str, &str, Value, i32, &str)] = &[
        // Was a panic (multiply with overflow in the vLLM profile run's activation bytes).
        (
            "validation/qwen3-235b-fp8-h100x4-vllm-tp4-burst-4k.toml",
            "engine.max_num_batched_tokens",
            Value::Integer(i64::MAX),
            2,
            "key `engine.max_num_batched_tokens`: 9223372036854775807: more than the GPU's",
        ),
        (
            "validation/qwen3-235b-fp8-h100x4-vllm-tp4-burst-4k.toml",
            "engine.max_num_seqs",
            Value::Integer(i64::MAX),
            2,
            "key `engine.max_num_seqs`",
        ),
        // Was a panic (multiply with overflow in the SGLang memory plan's bytes).
        (
            "examples/kimi-k2.5-eagle3-h200x8-bs8.toml",
            "hardware.gpu.memory_total_mib",
            Value::Integer(i64::MAX),
            2,
            "key `hardware.gpu.memory_total_mib`: 9223372036854775807 MiB: tpsim models at most 16777216 MiB",
        ),
        // Was a panic (subtract with overflow): the pool checked against the free memory after the
        // linear-attention state pool, its shortfall computed against the memory before it.
        (
            "validation/qwen3.5-397b-nvfp4-sglang-tp4-bs1-triton.toml",
            "engine.mem_fraction_static",
            Value::Integer(1),
            3,
            "\"verdict\": \"oom\"",
        ),
        // Was a panic (add with overflow in the serving loop's clock): an i64::MAX ns DRAM latency
        // made one step's picoseconds overflow. Now bounded at 1 ms in validation.
        (
            "examples/exaone-4.0-32b-vllm-rtxpro6000x8.toml",
            "hardware.gpu.dram_latency_ns",
            Value::Integer(i64::MAX),
            2,
            "key `hardware.gpu.dram_latency_ns`: 9223372036854776000: expected a positive latency in ns, at most 1000000",
        ),
    ];
    let mut bad = Vec::new();
    for (file, key, v, code, want) in cases {
        let p = PathBuf::from(scenario(file));
        let mut t = read_table(&p);
        if let Some((tab, k)) = slot(&mut t, key) {
            tab.insert(k.to_string(), v.clone());
        }
        let f = dir.join(p.file_name().expect("name"));
        std::fs::write(&f, toml::to_string(&t).expect("serialize")).expect("write");
        let f = f.display().to_string();
        let o = catch_unwind(AssertUnwindSafe(|| tpsim(&["run", &f, "--json"])));
        match o {
            Err(_) => bad.push(format!("{file} {key} = {v}: panicked")),
            Ok(o) if o.code != *code || !(o.stderr.contains(want) || o.stdout.contains(want)) => {
                bad.push(format!(
                    "{file} {key} = {v}: exit {} (want {code} and `{want}`): {}",
                    o.code, o.stderr
                ))
            }
            Ok(_) => {}
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}
