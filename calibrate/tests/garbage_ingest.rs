//! Garbage into `tpsim-calibrate ingest` (DESIGN.md §2.5), beside `garbled_input.rs`'s truncations:
//! every ingest fixture (start-up logs, nccl-tests tables, bench_serving JSON) with one number
//! replaced by `nan`, `inf`, `1e400` or `-0` (six numbers per fixture, drawn from a ChaCha8 stream
//! seeded with [`SEED`]), with 16 of its bytes overwritten by random bytes (often no longer UTF-8),
//! and 1 kB of random bytes alone. Pass: no panic; exit 2 with `error: ` and the file named, or
//! exit 0 with a measurement file whose records hold no `null` (a NaN or infinity serializes as
//! `null`), no non-finite and no negative number.

use crate::common::*;
use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// The stream's seed.
const SEED: u64 = 0x0067_6172_6261_6766;

/// The ingest fixtures: every one `garbled_input.rs` uses, plus vLLM's throughput log.
fn fixtures() -> Vec<&'static str> {
    let mut all = INGEST_FIXTURES.to_vec();
    all.push("vllm-throughput.log");
    all
}

/// Byte ranges of the numbers in `text` (runs of digits and dots that hold a digit).
fn numbers(text: &str) -> Vec<(usize, usize)> {
    let b = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if b[i].is_ascii_digit() {
            let mut j = i;
            while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
                j += 1;
            }
            out.push((i, j));
            i = j;
        } else {
            i += 1;
        }
    }
    out
}

/// Every numeric leaf of `v` is finite and non-negative, and no leaf is null; else the path.
fn clean(v: &serde_json::Value, path: &str) -> Result<(), String> {
    match v {
        serde_json::Value::Null => Err(format!("{path} = null")),
        serde_json::Value::Number(n) => match n.as_f64() {
            Some(x) if x.is_finite() && x >= 0.0 => Ok(()),
            _ => Err(format!("{path} = {n}")),
        },
        serde_json::Value::Array(a) => a
            .iter()
            .enumerate()
            .try_for_each(|(i, x)| clean(x, &format!("{path}[{i}]"))),
        serde_json::Value::Object(o) => o.iter().try_for_each(|(k, x)| clean(x, &format!("{path}.{k}"))),
        _ => Ok(()),
    }
}

/// `ingest FILE` under `catch_unwind`; what went wrong, if anything.
fn check(file: &str, label: &str) -> Option<String> {
    let o = match catch_unwind(AssertUnwindSafe(|| calibrate(&["ingest", file]))) {
        Ok(o) => o,
        Err(p) => {
            let m = panic_message(p.as_ref());
            return Some(format!("{label}: panicked: {m}"));
        }
    };
    match o.code {
        0 => {
            let j: serde_json::Value = match serde_json::from_str(&o.stdout) {
                Ok(j) => j,
                Err(e) => return Some(format!("{label}: exit 0 with bad JSON: {e}")),
            };
            clean(&j["records"], "records")
                .err()
                .map(|e| format!("{label}: {e}"))
        }
        2 if o.stderr.starts_with("error: ") && o.stderr.contains(file) => None,
        n => Some(format!("{label}: exit {n}: {}", o.stderr)),
    }
}

#[test]
fn the_unmutated_fixtures_pass_the_check() {
    let bad: Vec<String> = fixtures()
        .iter()
        .filter_map(|name| check(&fixture(name), name))
        .collect();
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

#[test]
fn ingest_refuses_or_cleans_non_finite_numbers_and_random_bytes() {
    let dir = scratch("garbage");
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let mut bad = Vec::new();
    let mut n = 0;
    for (fi, name) in fixtures().iter().enumerate() {
        let text = std::fs::read_to_string(fixture(name)).expect("fixture");
        let nums = numbers(&text);
        assert!(nums.len() > 6, "{name}: {} numbers", nums.len());
        for k in 0..6 {
            let (a, b) = nums[rng.random_range(0..nums.len())];
            for (vi, v) in ["nan", "inf", "1e400", "-0"].iter().enumerate() {
                let damaged = format!("{}{v}{}", &text[..a], &text[b..]);
                let file = write(&dir, &format!("{fi}-{k}-{vi}-{name}"), &damaged);
                let line = text[..a].matches('\n').count() + 1;
                bad.extend(check(
                    &file,
                    &format!("{name} line {line}: `{}` → {v}", &text[a..b]),
                ));
                n += 1;
            }
        }
        let mut bytes = text.clone().into_bytes();
        for _ in 0..16 {
            let i = rng.random_range(0..bytes.len());
            bytes[i] = rng.random();
        }
        let file = dir.join(format!("{fi}-bytes-{name}"));
        std::fs::write(&file, &bytes).expect("write");
        bad.extend(check(
            &file.display().to_string(),
            &format!("{name} with 16 random bytes"),
        ));
        let noise: Vec<u8> = (0..1024).map(|_| rng.random()).collect();
        let file = dir.join(format!("{fi}-noise.txt"));
        std::fs::write(&file, &noise).expect("write");
        bad.extend(check(&file.display().to_string(), "1 kB of random bytes"));
        n += 2;
    }
    assert!(n > 300, "{n} cases");
    assert!(
        bad.is_empty(),
        "{} of {n} cases failed:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
