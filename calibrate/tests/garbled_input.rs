//! Garbled input never panics `tpsim-calibrate` (DESIGN.md §2.5): every ingest fixture truncated and
//! with lines damaged, a measurement file and a hardware profile with bad leaf values. Pass: no panic,
//! exit 0 (a partial input may be kept with a warning), 1 (a gate) or 2 with `error:` and the file
//! named; no NaN or infinity printed. Deterministic: the damaged lines and bad values rotate by index.

use crate::common::*;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// `tpsim-calibrate ARGS` under `catch_unwind`; what went wrong, if anything. `file` must be named
/// by an exit-2 message.
fn guarded(args: &[&str], file: &str, label: &str) -> Option<String> {
    let o = match catch_unwind(AssertUnwindSafe(|| calibrate(args))) {
        Ok(o) => o,
        Err(p) => {
            let m = panic_message(p.as_ref());
            return Some(format!("{label}: {} panicked: {m}", args[0]));
        }
    };
    let non_finite = o
        .stdout
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == "NaN" || w == "inf" || w == "Infinity");
    if non_finite {
        return Some(format!("{label}: printed a NaN/inf: {}", o.stdout));
    }
    match o.code {
        0 | 1 => None,
        2 if o.stderr.starts_with("error: ") && o.stderr.contains(file) => None,
        n => Some(format!("{label}: exit {n}: {}", o.stderr)),
    }
}

/// The damaged copies of `text`: truncated at a quarter, half and three quarters (mid-line), empty,
/// and every 3rd line (from an offset that rotates with `seed`) cut in half, stripped of its last
/// field, with its digits turned to a 30-digit number, or with a minus sign before its numbers.
fn variants(text: &str, seed: usize) -> Vec<(String, String)> {
    let cut = |f: usize| {
        let mut i = text.len() * f / 4;
        while !text.is_char_boundary(i) {
            i -= 1;
        }
        text[..i].to_string()
    };
    let mut v = vec![
        ("empty".to_string(), String::new()),
        ("quarter".to_string(), cut(1)),
        ("half".to_string(), cut(2)),
        ("three quarters".to_string(), cut(3)),
    ];
    let lines: Vec<&str> = text.lines().collect();
    for (i, line) in lines.iter().enumerate().skip(seed % 3).step_by(3) {
        let damaged = match (i / 3 + seed) % 4 {
            0 => line.chars().take(line.chars().count() / 2).collect::<String>(),
            1 => line
                .rsplit_once([' ', '\t', ','])
                .map_or("", |(a, _)| a)
                .to_string(),
            2 => line
                .chars()
                .map(|c| {
                    if c.is_ascii_digit() {
                        "999999999999999999999999999999".to_string()
                    } else {
                        c.to_string()
                    }
                })
                .collect(),
            _ => line.replace(' ', " -").replace(':', ":-"),
        };
        let mut l = lines.clone();
        l[i] = &damaged;
        v.push((format!("line {} damaged", i + 1), l.join("\n") + "\n"));
    }
    v
}

#[test]
fn ingest_never_panics_on_garbled_fixtures() {
    let dir = scratch("ingest");
    let mut bad = Vec::new();
    let mut n = 0;
    for (fi, name) in INGEST_FIXTURES.iter().enumerate() {
        let text = std::fs::read_to_string(fixture(name)).expect("fixture");
        let format = tpsim_calibrate::ingest::detect(&text).expect("the fixture's format is detected");
        for (vi, (what, damaged)) in variants(&text, fi).into_iter().enumerate() {
            let file = write(&dir, &format!("{fi}-{vi}-{name}"), &damaged);
            let label = format!("{name} {what}");
            bad.extend(guarded(&["ingest", &file], &file, &label));
            bad.extend(guarded(
                &["ingest", &file, "--format", format.name()],
                &file,
                &label,
            ));
            n += 1;
        }
    }
    assert!(n > 60, "{n} variants");
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}

/// The bad JSON values a leaf gets, in rotation.
fn json_bad(k: usize) -> serde_json::Value {
    use serde_json::json;
    [
        json!(0),
        json!(-1),
        json!(1e300),
        json!(i64::MAX),
        json!(-0.5),
        json!(""),
        json!("twelve"),
        json!({"x": 1}),
        json!(null),
        json!([]),
    ][k % 10]
        .clone()
}

#[test]
fn check_never_panics_on_bad_measurement_values() {
    let dir = scratch("check");
    // Hand-made records of every kind `check` predicts (not measurements): an allreduce, a GEMM, two
    // copies and a latency.
    let m = serde_json::json!({"schema":"tpsim-measurements/1","provenance":{"tool":"bench"},"records":[
        {"kind":"collective","op":"allreduce","n_gpus":2,"size_bytes":65536,"time_us":20.0,"env":["NCCL_P2P_LEVEL=SYS"]},
        {"kind":"gemm","m":1,"n":7168,"k":2048,"dtype":"bf16","time_us":25.0},
        {"kind":"copy_bandwidth","path":"p2p","src":0,"dst":1,"peer_access":true,"size_bytes":67108864,"gbps":50.0},
        {"kind":"copy_bandwidth","path":"h2d","size_bytes":67108864,"gbps":50.0},
        {"kind":"p2p_latency","src":0,"dst":1,"peer_access":true,"one_way_us":0.70}
    ]});
    let hw = "rtx-pro-6000-8x-2switch-trpro";
    let o = calibrate(&["check", "--hardware", hw, &write(&dir, "ok.json", &m.to_string())]);
    assert!(
        o.code == 0 || o.code == 1,
        "the unmutated file is accepted: {}",
        o.stderr
    );
    let mut bad = Vec::new();
    let mut n = 0;
    let records = m["records"].as_array().expect("records");
    for (ri, r) in records.iter().enumerate() {
        let keys: Vec<String> = r.as_object().expect("object").keys().cloned().collect();
        for (ki, key) in keys.iter().enumerate() {
            for j in 0..3 {
                let k = ri + ki + 3 * j;
                let mut v = m.clone();
                v["records"][ri][key] = json_bad(k);
                let file = write(&dir, &format!("{ri}-{ki}-{j}.json"), &v.to_string());
                let label = format!("record {ri} {key} = {}", json_bad(k));
                bad.extend(guarded(&["check", "--hardware", hw, &file], &file, &label));
                n += 1;
            }
        }
    }
    assert!(n > 60, "{n} cases");
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}

#[test]
fn check_never_panics_on_bad_profile_values() {
    let dir = scratch("profile");
    let text = std::fs::read_to_string(scenario("profiles/rtx-pro-6000-formats.toml")).expect("profile");
    let base: toml::Value = toml::from_str(&text).expect("profile parses");
    let m = r#"{"schema":"tpsim-measurements/1","provenance":{"tool":"bench"},"records":[
 {"kind":"collective","op":"allreduce","n_gpus":2,"size_bytes":65536,"time_us":20.0,"env":["NCCL_P2P_LEVEL=SYS"]},
 {"kind":"gemm","m":1,"n":7168,"k":2048,"dtype":"bf16","time_us":25.0}]}"#;
    let meas = write(&dir, "m.json", m);
    let hw = "rtx-pro-6000-8x-2switch-trpro";
    let mut leaves = Vec::new();
    leaves_of(&base, &mut Vec::new(), &mut leaves);
    let bad_toml = |k: usize| -> toml::Value {
        use toml::Value::{Float, Integer, String, Table};
        match k % 6 {
            0 => Integer(0),
            1 => Float(-0.5),
            2 => Float(1e300),
            3 => Integer(i64::MAX),
            4 => String("frobnicate".into()),
            _ => Table(toml::Table::new()),
        }
    };
    let mut bad = Vec::new();
    for (li, leaf) in leaves.iter().enumerate() {
        for j in 0..2 {
            let mut v = base.clone();
            let at = leaf.iter().fold(&mut v, |v, k| match k.parse::<usize>() {
                Ok(i) if v.is_array() => &mut v[i],
                _ => &mut v[k.as_str()],
            });
            *at = bad_toml(li + 3 * j);
            let file = write(
                &dir,
                &format!("{li}-{j}.toml"),
                &toml::to_string(&v).expect("toml"),
            );
            let label = format!("profile {} = {}", leaf.join("."), bad_toml(li + 3 * j));
            bad.extend(guarded(
                &["check", "--hardware", hw, "--profile", &file, &meas],
                &file,
                &label,
            ));
        }
    }
    assert!(leaves.len() > 10, "{} leaves", leaves.len());
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}

/// The paths (keys, array indices as numbers) of every leaf of a TOML document.
fn leaves_of(v: &toml::Value, path: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t {
                path.push(k.clone());
                leaves_of(x, path, out);
                path.pop();
            }
        }
        toml::Value::Array(a) if !a.is_empty() => {
            for (i, x) in a.iter().enumerate() {
                path.push(i.to_string());
                leaves_of(x, path, out);
                path.pop();
            }
        }
        _ => out.push(path.clone()),
    }
}
