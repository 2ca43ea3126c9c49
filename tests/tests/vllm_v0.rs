//! Issue #17 (vllmv0): vLLM's V0 engine by release (`sim/src/scenario/vllm_v0.rs`): which releases
//! run it, `engine.use_v1` (`VLLM_USE_V1`) and `engine.num_scheduler_steps`
//! (`--num-scheduler-steps`), their refusals, and the step's host time on the critical path.

use crate::common::*;

/// A one-GPU Llama-3.1-8B vLLM scenario at `version` with `extra` engine lines, one client.
fn write(dir: &std::path::Path, name: &str, version: &str, extra: &str) -> String {
    let p = dir.join(format!("{name}.toml"));
    std::fs::write(
        &p,
        format!(
            "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\nname = \"vllm\"\ntp = 1\nversion = \"{version}\"\nmax_model_len = 4096\n{extra}\n\
             [workload]\nconcurrency = 1\nnum_requests = 2\nprompt_len = 128\noutput_len = 128\n"
        ),
    )
    .unwrap();
    p.to_str().unwrap().to_string()
}

fn v0_line(v: &serde_json::Value) -> Option<String> {
    v["scenario"]["v0_engine"].as_str().map(str::to_string)
}

fn tpot(v: &serde_json::Value) -> f64 {
    f(&v["serving"]["tpot_ms"]["p50"])
}

#[test]
fn releases_pick_the_engine() {
    let dir = scratch("vllmv0-releases");
    // Before 0.6.0: synchronous V0; 0.6–0.7: V0 with async output processing; 0.8 on: V1.
    let sync = run_json(&write(&dir, "v053", "0.5.3.post1", ""));
    assert!(
        v0_line(&sync).is_some_and(|l| l.starts_with("V0, synchronous")),
        "{sync}"
    );
    let asy = run_json(&write(&dir, "v063", "0.6.3", ""));
    assert!(
        v0_line(&asy).is_some_and(|l| l.starts_with("V0, async output")),
        "{asy}"
    );
    let v1 = run_json(&write(&dir, "v091", "0.9.1", ""));
    assert_eq!(v0_line(&v1), None);
    // VLLM_USE_V1 from [engine.env] reads as engine.use_v1.
    let env = run_json(&write(
        &dir,
        "v091env",
        "0.9.1",
        "[engine.env]\nVLLM_USE_V1 = \"0\"",
    ));
    assert!(
        v0_line(&env).is_some_and(|l| l.starts_with("V0, async output")),
        "{env}"
    );
    // 0.7.x: V1 alpha only when asked for.
    let alpha = run_json(&write(&dir, "v070v1", "0.7.3", "use_v1 = true"));
    assert_eq!(v0_line(&alpha), None);
}

#[test]
fn v0_step_host_time_is_on_the_critical_path() {
    // Same release (0.9.1: same memory and graph rules), V1 vs VLLM_USE_V1=0. At one client every
    // decode step's host task is serial with the forward (0.9.1 does not schedule asynchronously), so
    // the TPOT moves by the host times' difference: V0 with async output processing
    // (4 − 0.2) ms = 3.8 ms against engine.costs.host_overhead 0.3 ms (scenarios/engines/vllm.toml):
    // +3.5 ms; with --num-scheduler-steps 8, 3.8 ÷ 8 = 0.475 ms: +0.175 ms. To 0.01 ms.
    let dir = scratch("vllmv0-critical");
    let v1 = tpot(&run_json(&write(&dir, "v1", "0.9.1", "")));
    let v0 = tpot(&run_json(&write(&dir, "v0", "0.9.1", "use_v1 = false")));
    let ms8 = run_json(&write(&dir, "ms8", "0.9.1", "num_scheduler_steps = 8"));
    assert!((v0 - v1 - 3.5).abs() < 0.01, "V0 {v0} vs V1 {v1}");
    assert!(
        (tpot(&ms8) - v1 - 0.175).abs() < 0.01,
        "multi-step {} vs V1 {v1}",
        tpot(&ms8)
    );
    // 0.8–0.10 without VLLM_USE_V1: multi-step falls back to V0 with vLLM's warning.
    let warned = ms8["warnings"].to_string();
    assert!(warned.contains("Falling back to V0"), "{warned}");
    // Synchronous V0 (0.5.3) at one client: 4 ms + 1 × 103.226 µs before each forward.
    let sync = run_json(&write(&dir, "sync", "0.5.3", ""));
    assert!(v0_line(&sync).is_some_and(|l| l.contains("4.103 ms")), "{sync}");
}

#[test]
fn keys_the_release_lacks_are_refused() {
    let dir = scratch("vllmv0-refusals");
    for (name, version, extra, key, text) in [
        (
            "old-v1",
            "0.5.3",
            "use_v1 = true",
            "engine.use_v1",
            "has no V1 engine",
        ),
        (
            "old-steps",
            "0.5.3",
            "num_scheduler_steps = 8",
            "engine.num_scheduler_steps",
            "arrived in 0.6.0",
        ),
        (
            "new-v0",
            "0.11.0",
            "use_v1 = false",
            "engine.use_v1",
            "removed in 0.11.0",
        ),
        (
            "v1-steps",
            "0.9.1",
            "use_v1 = true\nnum_scheduler_steps = 8",
            "engine.num_scheduler_steps",
            "VLLM_USE_V1=1 is not supported with --num-scheduler-steps.",
        ),
        (
            "zero-steps",
            "0.6.3",
            "num_scheduler_steps = 0",
            "engine.num_scheduler_steps",
            "1 to 1024",
        ),
        (
            "v0-async",
            "0.6.3",
            "async_scheduling = true",
            "engine.async_scheduling",
            "V1 setting",
        ),
        (
            "huge-steps",
            "0.6.3",
            "num_scheduler_steps = 99999999999999",
            "engine.num_scheduler_steps",
            "1 to 1024",
        ),
        (
            "negative-steps",
            "0.6.3",
            "num_scheduler_steps = -3",
            "engine.num_scheduler_steps",
            "1 to 1024",
        ),
        (
            "word-v1",
            "0.9.1",
            "use_v1 = \"yes\"",
            "engine.use_v1",
            "expected a boolean",
        ),
        (
            "env-garbage",
            "0.9.1",
            "[engine.env]\nVLLM_USE_V1 = \"maybe\"",
            "engine.env.VLLM_USE_V1",
            "expected \"0\"",
        ),
        (
            "env-clash",
            "0.9.1",
            "use_v1 = true\n[engine.env]\nVLLM_USE_V1 = \"0\"",
            "engine.use_v1",
            "give one",
        ),
    ] {
        let o = tpsim(&["validate", &write(&dir, name, version, extra)]);
        assert_eq!(o.code, 2, "{name}: {}", o.stderr);
        assert!(
            o.stderr.contains(key) && o.stderr.contains(text),
            "{name}: {}",
            o.stderr
        );
    }
}

#[test]
fn engine_args_mirror_the_keys() {
    let dir = scratch("vllmv0-engine-args");
    let o = tpsim(&[
        "engine-args",
        &write(&dir, "ms", "0.9.1", "use_v1 = false\nnum_scheduler_steps = 8"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("VLLM_USE_V1=0") && o.stdout.contains("--num-scheduler-steps 8"),
        "{}",
        o.stdout
    );
}
