//! Bad input never panics (DESIGN.md §2.5): a deterministic mutation sweep over every bundled scenario
//! (`scenarios/seed/`, `scenarios/examples/`) and the hardware presets and model `config.json`s they
//! name. Each leaf value is replaced by a bad one (0, -1, 1e300, 2^63-1, a negative float, an empty
//! string, a wrong type, an unknown word) and the mutated input goes through what `tpsim validate`,
//! `tpsim memory` and a shortened `tpsim run` do, in-process under `catch_unwind`. Pass: no panic, no
//! NaN or infinity in the text output, and a rejection (exit 2) names the file and a key.
//!
//! No randomness: the mutation a leaf gets rotates with its index, so every kind reaches every
//! section across the files and the sweep stays within a minute in debug builds.

use crate::common::*;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use toml::Value;

/// The bad values, by name (the name goes into the failure list).
const KINDS: [&str; 9] = [
    "zero",
    "minus-one",
    "1e300",
    "i64-max",
    "negative-float",
    "empty-string",
    "wrong-type",
    "table",
    "unknown-word",
];

/// One step of a path to a leaf: a table key or an array index.
#[derive(Clone, Debug)]
enum Seg {
    Key(String),
    Idx(usize),
}

fn path_text(p: &[Seg]) -> String {
    let mut s = String::new();
    for seg in p {
        match seg {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Idx(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Every leaf of a TOML document (an empty array counts as one).
fn toml_leaves(v: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Table(t) => {
            for (k, x) in t {
                path.push(Seg::Key(k.clone()));
                toml_leaves(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                path.push(Seg::Idx(i));
                toml_leaves(x, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn toml_at<'a>(v: &'a mut Value, path: &[Seg]) -> &'a mut Value {
    path.iter().fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get_mut(k.as_str()).expect("key"),
        Seg::Idx(i) => v.get_mut(*i).expect("index"),
    })
}

/// The bad TOML value of kind `k` for a leaf that held `orig`.
fn toml_bad(k: usize, orig: &Value) -> Value {
    match KINDS[k] {
        "zero" => Value::Integer(0),
        "minus-one" => Value::Integer(-1),
        "1e300" => Value::Float(1e300),
        "i64-max" => Value::Integer(i64::MAX),
        "negative-float" => Value::Float(-0.5),
        "empty-string" => Value::String(String::new()),
        "wrong-type" if orig.is_str() => Value::Integer(12),
        "wrong-type" => Value::String("twelve".into()),
        "table" => Value::Table(toml::Table::from_iter([("x".to_string(), Value::Integer(1))])),
        _ => Value::String("frobnicate".into()),
    }
}

/// Every leaf of a JSON document.
fn json_leaves(v: &serde_json::Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        serde_json::Value::Object(t) => {
            for (k, x) in t {
                path.push(Seg::Key(k.clone()));
                json_leaves(x, path, out);
                path.pop();
            }
        }
        serde_json::Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                path.push(Seg::Idx(i));
                json_leaves(x, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}

fn json_at<'a>(v: &'a mut serde_json::Value, path: &[Seg]) -> &'a mut serde_json::Value {
    path.iter().fold(v, |v, seg| match seg {
        Seg::Key(k) => v.get_mut(k.as_str()).expect("key"),
        Seg::Idx(i) => v.get_mut(*i).expect("index"),
    })
}

/// The bad JSON value of kind `k` for a leaf that held `orig`.
fn json_bad(k: usize, orig: &serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    match KINDS[k] {
        "zero" => json!(0),
        "minus-one" => json!(-1),
        "1e300" => json!(1e300),
        "i64-max" => json!(i64::MAX),
        "negative-float" => json!(-0.5),
        "empty-string" => json!(""),
        "wrong-type" if orig.is_string() => json!(12),
        "wrong-type" => json!("twelve"),
        "table" => json!({"x": 1}),
        _ => json!("frobnicate"),
    }
}

/// The scenario with its workload cut to a couple of short requests (a fast `run`), and relative
/// file references made absolute (the mutated copy lives in a scratch folder).
fn shortened(file: &Path) -> Value {
    let text = std::fs::read_to_string(file).expect("scenario");
    let mut v: Value = toml::from_str(&text).expect("bundled scenario parses");
    let dir = file.parent().expect("dir");
    if let Some(w) = v.get_mut("workload").and_then(Value::as_table_mut) {
        for (key, most) in [("concurrency", 2), ("num_requests", 2), ("output_len", 16)] {
            if let Some(Value::Integer(n)) = w.get_mut(key) {
                *n = (*n).min(most);
            }
        }
    }
    for section in ["hardware", "model"] {
        for key in ["profile", "preset", "config"] {
            if let Some(Value::String(s)) = v.get_mut(section).and_then(|t| t.get_mut(key))
                && tpsim::presets::is_path(s)
            {
                *s = dir.join(&*s).display().to_string();
            }
        }
    }
    v
}

/// One mutated input: the scenario file to run and what was changed, for the failure list.
struct Case {
    scenario: PathBuf,
    /// The file that holds the bad value (the scenario itself or a preset copy).
    mutated: PathBuf,
    label: String,
    key: String,
}

/// Whether a text output shows a NaN or an infinity.
fn non_finite(text: &str) -> bool {
    text.split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == "NaN" || w == "inf" || w == "Infinity")
}

/// Runs `tpsim ARGS` in-process; `Err` with the panic message on a panic.
fn guarded(args: &[&str]) -> Result<Out, String> {
    catch_unwind(AssertUnwindSafe(|| tpsim(args))).map_err(|p| {
        p.downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
            .unwrap_or_default()
    })
}

/// validate, then memory and run when validate accepts it; returns what went wrong (empty: nothing).
fn check(c: &Case, run: bool) -> Vec<String> {
    let mut bad = Vec::new();
    let file = c.scenario.display().to_string();
    let mut commands: Vec<Vec<&str>> = vec![vec!["validate", &file]];
    let v = match guarded(&commands[0]) {
        Ok(o) => o,
        Err(p) => return vec![format!("{}: validate panicked: {p}", c.label)],
    };
    if v.code == 0 {
        commands.push(vec!["memory", &file]);
        if run {
            commands.push(vec!["run", &file]);
        }
    }
    for (i, args) in commands.iter().enumerate() {
        let o = if i == 0 {
            Ok(Out {
                code: v.code,
                stdout: v.stdout.clone(),
                stderr: v.stderr.clone(),
            })
        } else {
            guarded(args)
        };
        let o = match o {
            Ok(o) => o,
            Err(p) => {
                bad.push(format!("{}: {} panicked: {p}", c.label, args[0]));
                continue;
            }
        };
        if non_finite(&o.stdout) {
            bad.push(format!(
                "{}: {} printed a NaN/inf:\n{}",
                c.label, args[0], o.stdout
            ));
        }
        match o.code {
            0 | 3 => {}
            2 => {
                let names_file =
                    o.stderr.contains(&file) || o.stderr.contains(&c.mutated.display().to_string());
                let names_key = o.stderr.contains('`');
                if !(names_file && names_key && o.stderr.starts_with("error: ")) {
                    bad.push(format!(
                        "{}: {} error names no file/key: {}",
                        c.label, args[0], o.stderr
                    ));
                }
            }
            n => bad.push(format!("{}: {} exit {n}: {}", c.label, args[0], o.stderr)),
        }
    }
    let _ = &c.key;
    bad
}

fn write_toml(path: &Path, v: &Value) {
    std::fs::write(path, toml::to_string(v).expect("serialise")).expect("write");
}

#[test]
fn no_scenario_leaf_value_panics() {
    let dir = scratch("scenario");
    let mut bad = Vec::new();
    let mut n = 0usize;
    for (fi, file) in bundled_seed_and_examples().iter().enumerate() {
        let base = shortened(file);
        let mut leaves = Vec::new();
        toml_leaves(&base, &mut Vec::new(), &mut leaves);
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        for (li, leaf) in leaves.iter().enumerate() {
            // Five kinds per leaf, rotating (every kind meets every section across the files); the
            // run only for the first.
            for j in 0..5 {
                let k = (fi + li + 2 * j) % KINDS.len();
                let mut v = base.clone();
                let at = toml_at(&mut v, leaf);
                *at = toml_bad(k, at);
                let s = dir.join(format!("{fi}-{li}-{k}.toml"));
                write_toml(&s, &v);
                let key = path_text(leaf);
                let case = Case {
                    mutated: s.clone(),
                    scenario: s,
                    label: format!("{name} {key} = {}", KINDS[k]),
                    key,
                };
                bad.extend(check(&case, j == 0));
                n += 1;
            }
        }
    }
    assert!(n > 1000, "{n} cases");
    assert_none_failed(&bad, n);
}

/// The bundled seed and example scenarios (shortened) that name each distinct bundled preset of
/// `section` (`hardware` or `model`) first, with the file's index: one mutation sweep per preset.
fn distinct_presets(section: &str) -> Vec<(usize, Value, String)> {
    let mut seen = std::collections::BTreeSet::new();
    let mut out = Vec::new();
    for (fi, file) in bundled_seed_and_examples().iter().enumerate() {
        let base = shortened(file);
        let Some(preset) = base
            .get(section)
            .and_then(|h| h.get("preset"))
            .and_then(Value::as_str)
            .map(str::to_string)
        else {
            continue;
        };
        if tpsim::presets::is_path(&preset) || !seen.insert(preset.clone()) {
            continue;
        }
        out.push((fi, base, preset));
    }
    out
}

/// Fails with every failed case listed.
fn assert_none_failed(bad: &[String], n: usize) {
    assert!(
        bad.is_empty(),
        "{} of {n} cases failed:\n{}",
        bad.len(),
        bad.join("\n")
    );
}

#[test]
fn no_hardware_preset_leaf_value_panics() {
    let dir = scratch("hardware");
    let mut bad = Vec::new();
    let mut n = 0usize;
    for (fi, base, preset) in distinct_presets("hardware") {
        let preset = preset.as_str();
        let text = tpsim::presets::hardware(preset).expect("bundled hardware preset");
        let hw: Value = toml::from_str(text).expect("preset parses");
        let mut leaves = Vec::new();
        toml_leaves(&hw, &mut Vec::new(), &mut leaves);
        for (li, leaf) in leaves.iter().enumerate() {
            let k = (fi + li) % KINDS.len();
            let mut h = hw.clone();
            let at = toml_at(&mut h, leaf);
            *at = toml_bad(k, at);
            let p = dir.join(format!("{fi}-{li}-hw.toml"));
            write_toml(&p, &h);
            let mut v = base.clone();
            v["hardware"]["preset"] = Value::String(p.display().to_string());
            let s = dir.join(format!("{fi}-{li}-scenario.toml"));
            write_toml(&s, &v);
            let key = path_text(leaf);
            let case = Case {
                scenario: s,
                mutated: p,
                label: format!("hardware preset {preset}: {key} = {}", KINDS[k]),
                key,
            };
            bad.extend(check(&case, li % 4 == 0));
            n += 1;
        }
    }
    assert!(n > 100, "{n} cases");
    assert_none_failed(&bad, n);
}

#[test]
fn no_model_config_leaf_value_panics() {
    let dir = scratch("model");
    let mut bad = Vec::new();
    let mut n = 0usize;
    for (fi, base, preset) in distinct_presets("model") {
        let preset = preset.as_str();
        let (config, quant) = tpsim::presets::model(preset).expect("bundled model preset");
        let hf = tpsim::presets::model_hf_quant(preset);
        // The loader reads Python's `Infinity` (Nemotron-H's `time_step_limit`) as null; so does this.
        let cfg: serde_json::Value =
            serde_json::from_str(&config.replace("Infinity", "null")).expect("config parses");
        let mut leaves = Vec::new();
        json_leaves(&cfg, &mut Vec::new(), &mut leaves);
        // A third of the leaves (which third rotates with the file): the sweep stays under a minute.
        for (li, leaf) in leaves.iter().enumerate().filter(|(li, _)| (li + fi) % 3 == 0) {
            let k = (fi + li / 3) % KINDS.len();
            let mut c = cfg.clone();
            let at = json_at(&mut c, leaf);
            *at = json_bad(k, at);
            let m = dir.join(format!("{fi}-{li}"));
            std::fs::create_dir_all(&m).expect("dir");
            std::fs::write(m.join("config.json"), serde_json::to_string(&c).expect("json")).expect("write");
            std::fs::write(m.join("quant.toml"), quant).expect("write");
            if let Some(h) = hf {
                std::fs::write(m.join("hf_quant_config.json"), h).expect("write");
            }
            let mut v = base.clone();
            v["model"]["preset"] = Value::String(m.display().to_string());
            let s = dir.join(format!("{fi}-{li}-scenario.toml"));
            write_toml(&s, &v);
            let key = path_text(leaf);
            let case = Case {
                scenario: s,
                mutated: m.join("config.json"),
                label: format!("model preset {preset}: {key} = {}", KINDS[k]),
                key,
            };
            bad.extend(check(&case, li % 12 == 0));
            n += 1;
        }
    }
    assert!(n > 400, "{n} cases");
    assert_none_failed(&bad, n);
}

/// Bad command-line values exit 2 with a message that names the flag or value and what was expected.
#[test]
fn bad_flags_exit_2_with_a_message() {
    let base = scenario("seed/baseline.toml");
    let hw = "rtx-pro-6000-8x-dual-turin-direct";
    let cases: [(&[&str], &str); 21] = [
        (&["run", &base, "--gpus", "0"], "unexpected argument '--gpus'"),
        (&["run", &base, "--seed", "-1"], "unexpected argument '-1'"),
        (
            &["run", &base, "--seed", "x"],
            "invalid value 'x' for '--seed <SEED>'",
        ),
        (
            &["run", &base, "--concurrency", "0"],
            "unexpected argument '--concurrency'",
        ),
        (
            &["collective", "--hardware", hw, "--gpus", "0", "--sizes", "4K"],
            "--gpus",
        ),
        (
            &["collective", "--hardware", hw, "--gpus", "99", "--sizes", "4K"],
            "--gpus",
        ),
        (&["collective", "--hardware", hw, "--sizes", "1M..4K"], "1M..4K"),
        (&["collective", "--hardware", hw, "--sizes", ""], "--sizes"),
        (
            &["collective", "--hardware", hw, "--sizes", "2T"],
            "expected sizes of at most 1T",
        ),
        (
            &[
                "collective",
                "--hardware",
                hw,
                "--sizes",
                "1..18446744073709551615",
            ],
            "expected sizes of at most 1T",
        ),
        (&["topo", "--hardware", hw, "--gpus", "0"], "--gpus"),
        (&["capacity", &base, "--slo", ""], "--slo"),
        (&["capacity", &base, "--slo", "ttft_p99"], "expected NAME=MS"),
        (
            &["capacity", &base, "--slo", "ttft_p0=5"],
            "expected a percentile in (0, 100]",
        ),
        (
            &["capacity", &base, "--slo", "ttft_p99=-5"],
            "expected milliseconds > 0",
        ),
        (
            &["capacity", &base, "--slo", "ttft_p99=1", "--over", "load"],
            "expected rate or concurrency",
        ),
        (
            &["sweep", &base, "--set", "workload.concurrency="],
            "workload.concurrency",
        ),
        (
            &["sweep", &base, "--set", "workload.concurrency=4:1:1"],
            "goes away from END",
        ),
        (
            &["sweep", &base, "--set", "workload.concurrency=1:4:0"],
            "STEP must not be 0",
        ),
        (
            &[
                "sweep",
                &base,
                "--set",
                "workload.concurrency=-9000000000000000000:9000000000000000000:1",
            ],
            "numbers too large",
        ),
        (
            &[
                "sweep",
                &base,
                "--set",
                "workload.concurrency=1,2",
                "--shard",
                "0/0",
            ],
            "0/0",
        ),
    ];
    let mut bad = Vec::new();
    for (args, says) in cases {
        match guarded(args) {
            Err(p) => bad.push(format!("{args:?} panicked: {p}")),
            Ok(o) if o.code != 2 || !o.stderr.contains(says) => {
                bad.push(format!(
                    "{args:?}: exit {}, expected 2 saying {says:?}: {}",
                    o.code, o.stderr
                ));
            }
            Ok(_) => {}
        }
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// `engine.page_size` above tpsim's limit (2^20 tokens, `MAX_PAGE_TOKENS`) is refused naming the key;
/// at the limit the memory plan and the run answer without overflow (a page of 2^63 tokens
/// overflowed u64 in the plan before the limit: found by the sweep above).
#[test]
fn page_size_past_the_limit_is_refused_and_at_it_runs() {
    assert_eq!(tpsim::scenario::MAX_PAGE_TOKENS, 1_048_576);
    let over = baseline_with("page-over", "page_size = 1", "page_size = 1048577");
    let o = tpsim(&["validate", &over]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(&over)
            && o.stderr.contains("key `engine.page_size`")
            && o.stderr
                .contains("1048577: expected at most 1048576 tokens per page"),
        "{}",
        o.stderr
    );
    let at = baseline_with("page-at", "page_size = 1", "page_size = 1048576");
    for cmd in ["memory", "run"] {
        let o = guarded(&[cmd, &at]).unwrap_or_else(|p| panic!("{cmd} panicked: {p}"));
        assert!(o.code == 0 || o.code == 3, "{cmd}: {}", o.stderr);
        assert!(!non_finite(&o.stdout), "{}", o.stdout);
    }
}
