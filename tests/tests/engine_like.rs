//! Degenerate and hostile input behaves like the engine (issue #14, point 3): an engine that would
//! not start yields its verdict with its own error text and no throughput (exit 3); where the engine
//! adjusts a setting with a warning, tpsim adjusts and warns; where it refuses, tpsim refuses with
//! its text.

mod common;
use common::*;

const NOT_ENOUGH_MEMORY: &str = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.55";

#[test]
fn run_of_an_engine_that_would_not_start_prints_the_verdict_and_no_throughput() {
    let o = tpsim(&["run", &scenario("seed/low-fraction.toml")]);
    assert_eq!(o.code, 3, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(o.stdout.contains(NOT_ENOUGH_MEMORY), "{}", o.stdout);
    assert!(
        o.stdout.contains("Decode: none — the engine would not start"),
        "{}",
        o.stdout
    );
    for absent in [
        "tok/s",
        "time per output token",
        "Per-iteration breakdown",
        "× the floor",
    ] {
        assert!(!o.stdout.contains(absent), "`{absent}` in:\n{}", o.stdout);
    }
    // One line on stderr: the file, the verdict in words and the engine's text.
    assert_eq!(
        o.stderr.trim_end(),
        format!(
            "{}: the engine would not start: {NOT_ENOUGH_MEMORY}",
            scenario("seed/low-fraction.toml")
        )
    );
}

#[test]
fn run_json_of_an_engine_that_would_not_start_has_the_verdict_and_null_throughput() {
    let o = tpsim(&["run", &scenario("seed/low-fraction.toml"), "--json"]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("the object is still written");
    assert_eq!(j["verdict"], "oom");
    assert_eq!(j["error"], NOT_ENOUGH_MEMORY);
    assert!(j["throughput"].is_null() && j["spec"].is_null(), "{j}");
    assert_eq!(j["breakdown"], serde_json::json!({}));
    assert_eq!(j["breakdown_by_op"], serde_json::json!({}));
    assert_eq!(j["bottleneck"], "none");
    assert!(j["floor"]["gap"].is_null());
    // The memory plan is all there.
    assert_eq!(j["memory"]["verdict"], "oom");
    assert_eq!(j["memory"]["oom"]["message"], NOT_ENOUGH_MEMORY);
    // An engine that starts: verdict ok, no error.
    let b = run_json(&scenario("seed/baseline.toml"));
    assert_eq!(b["verdict"], "ok");
    assert!(b["error"].is_null() && b["throughput"].is_object());
}

#[test]
fn run_with_trace_of_an_engine_that_would_not_start_writes_no_trace() {
    let d = scratch("engine-like-trace");
    let trace = d.join("t.json");
    let o = tpsim(&[
        "run",
        &scenario("seed/low-fraction.toml"),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(!trace.exists(), "nothing is decoded: no trace");
    assert!(o.stderr.contains("no trace written"), "{}", o.stderr);
}

#[test]
fn sweep_marks_points_that_would_not_start_and_goes_on() {
    let o = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--set",
        "engine.mem_fraction_static=0.55,0.88",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", o.stdout);
    assert!(lines[1].starts_with("0,0.55,oom,,,,"), "{}", lines[1]);
    assert!(lines[2].starts_with("1,0.88,ok,72.1"), "{}", lines[2]);
}

#[test]
fn diff_against_an_engine_that_would_not_start_shows_no_throughput_for_it() {
    let o = tpsim(&[
        "diff",
        &scenario("seed/baseline.toml"),
        &scenario("seed/low-fraction.toml"),
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(j["b"]["throughput"].is_null());
    let tok = j["deltas"]["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "output_tok_s")
        .unwrap();
    assert!(
        tok["a"].is_number() && tok["b"].is_null() && tok["delta"].is_null(),
        "{tok}"
    );
    // No per-iteration comparison against an iteration that never happens.
    assert_eq!(j["deltas"]["by_category"], serde_json::json!([]));
    assert_eq!(j["deltas"]["by_op"], serde_json::json!([]));
    let t = tpsim(&[
        "diff",
        &scenario("seed/baseline.toml"),
        &scenario("seed/low-fraction.toml"),
    ]);
    assert!(
        t.stdout.contains("B would NOT start") && t.stdout.contains("not compared"),
        "{}",
        t.stdout
    );
}
