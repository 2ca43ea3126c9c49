//! Degenerate and hostile input behaves like the engine (issue #14, point 3): an engine that would
//! not start yields its verdict with its own error text and no throughput (exit 3); where the engine
//! adjusts a setting with a warning, tpsim adjusts and warns; where it refuses, tpsim refuses with
//! its text.

use crate::common::*;

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

const ADJUSTED: &str =
    "speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1";

#[test]
fn sweep_over_num_steps_adjusts_num_draft_tokens_like_sglang_and_warns() {
    let o = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--set",
        "speculative.num_steps=1,2,3,5",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows: Vec<&str> = o.stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{}", o.stdout);
    assert!(rows.iter().all(|r| r.contains(",ok,")), "{}", o.stdout);
    // One warning per adjusted point (num_steps 3 already has 4 draft tokens), in grid order.
    let w: Vec<&str> = o.stderr.lines().collect();
    assert_eq!(w.len(), 3, "{}", o.stderr);
    for (line, (p, steps, n)) in w.iter().zip([(0, 1, 2), (1, 2, 3), (3, 5, 6)]) {
        assert!(
            line.starts_with(&format!(
                "warning: point {p} (speculative.num_steps={steps}): {ADJUSTED}"
            )) && line.ends_with(&format!("speculative.num_draft_tokens 4 → {n})")),
            "{line}"
        );
    }
    // The adjusted points are the chains `--unset speculative.num_draft_tokens` gives.
    let unset = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--unset",
        "speculative.num_draft_tokens",
        "--set",
        "speculative.num_steps=1,2,3,5",
    ]);
    assert_eq!(unset.stdout, o.stdout);
    assert_eq!(unset.stderr, "");
}

#[test]
fn run_adjusts_a_chains_num_draft_tokens_and_reports_the_warning() {
    let file = baseline_with("engine-like-ndt", "num_draft_tokens = 4", "num_draft_tokens = 8");
    let o = tpsim(&["run", &file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stderr.trim_end(),
        format!("warning: {file}: {ADJUSTED} (SGLang's warning; speculative.num_draft_tokens 8 → 4)")
    );
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let w = j["warnings"].as_array().unwrap();
    assert_eq!(w.len(), 1);
    assert!(w[0].as_str().unwrap().starts_with(ADJUSTED));
    assert!(
        j["scenario"]["speculative"]
            .as_str()
            .unwrap()
            .contains("draft_tokens=4")
    );
    // The same prediction as the scenario that says 4.
    let base = run_json(&scenario("seed/baseline.toml"));
    assert_eq!(j["throughput"], base["throughput"]);
    assert_eq!(base["warnings"], serde_json::json!([]));
    // validate and memory print it too.
    for cmd in ["validate", "memory"] {
        let o = tpsim(&[cmd, &file]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(o.stderr.contains(ADJUSTED), "{cmd}: {}", o.stderr);
    }
}

#[test]
fn topk_or_draft_tokens_without_num_steps_is_sglangs_assertion() {
    let file = baseline_with("engine-like-nosteps", "num_steps = 3\n", "");
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("key `speculative.num_steps`")
            && o.stderr.contains(
                "AssertionError (`assert speculative_eagle_topk is None and speculative_num_draft_tokens is None`"
            ),
        "{}",
        o.stderr
    );
}
