//! `tpsim diff`: the seed's NCCL baseline against the forced custom allreduce (seed story R3/R4):
//! the time moves in the allreduces, the memory in the custom-allreduce IPC buffers; both sides are
//! exactly what `tpsim run --json` prints for each file.

use crate::common::*;

fn diff_json(a: &str, b: &str) -> serde_json::Value {
    let o = tpsim(&["diff", a, b, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("valid JSON")
}

/// The entry named `name` of a list of changes.
fn change<'a>(list: &'a serde_json::Value, name: &str) -> &'a serde_json::Value {
    list.as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == name)
        .unwrap_or_else(|| panic!("no {name} in {list}"))
}

#[test]
fn custom_allreduce_moves_the_allreduce_time_and_the_ipc_buffers() {
    let (a, b) = (scenario("seed/baseline.toml"), scenario("seed/custom-ar.toml"));
    let d = diff_json(&a, &b);
    let (ra, rb) = (run_json(&a), run_json(&b));
    // Both sides are the `tpsim run --json` objects, field for field.
    assert_eq!(d["a"], ra);
    assert_eq!(d["b"], rb);
    // The largest move by op is the allreduce: 29.1007 → 20.1306 ms per iteration (the values in
    // scenarios/baselines.toml; 19.8666 before pcieck's per-kernel gap for PCIe custom kernels), ratio
    // 0.6918 — the same as the two runs' breakdown_by_op.
    let by_op = &d["deltas"]["by_op"];
    assert_eq!(by_op[0]["name"], "allreduce", "{by_op}");
    let ar = &by_op[0];
    assert!(
        (f(&ar["a"]) - 29.1007).abs() < 1e-4 && (f(&ar["b"]) - 20.1306).abs() < 1e-4,
        "{ar}"
    );
    let want = f(&rb["breakdown_by_op"]["allreduce"]) / f(&ra["breakdown_by_op"]["allreduce"]);
    assert!(
        (f(&ar["ratio"]) - want).abs() < 1e-12 && (want - 0.6918).abs() < 1e-4,
        "{ar}"
    );
    assert!((f(&ar["delta"]) + 8.9700).abs() < 1e-4, "{ar}");
    // Compute does not move; by category the collective time moves by the same 8.970 ms.
    assert!(f(&change(by_op, "moe")["delta"]).abs() < 1e-12);
    let coll = &d["deltas"]["by_category"][0];
    assert_eq!(coll["name"], "collective");
    assert!((f(&coll["delta"]) + 8.9700).abs() < 1e-4, "{coll}");
    // tok/s: 73.242 → 93.472, ratio 1.2762 = the runs' ratio (server58, the seed box's Server Edition at
    // 0.893 × 1.597 TB/s; 73.308 → 93.579, 1.2765 before; 71.913 → 91.318, 1.2698 before sgldualstream
    // overlapped SGLang's shared expert with the routed experts).
    let tok = change(&d["deltas"]["summary"], "output_tok_s");
    let want = f(&rb["throughput"]["output_tok_s"]) / f(&ra["throughput"]["output_tok_s"]);
    assert!(
        (f(&tok["ratio"]) - want).abs() < 1e-12 && (want - 1.2762).abs() < 1e-4,
        "{tok}"
    );
    // Memory: the 40 MiB of IPC buffers appear on B only (seed-story R3); the logs' observed
    // values move the KV tokens by 159,215 − 159,294 = −79.
    let entries = d["deltas"]["memory"]["entries"].as_array().unwrap();
    let ipc = entries
        .iter()
        .find(|e| e[0] == "custom-allreduce IPC buffers")
        .expect("IPC buffers");
    assert!(
        f(&ipc[1]).abs() < 1e-9 && (f(&ipc[2]) - 40.0).abs() < 1e-9,
        "{ipc}"
    );
    assert_eq!(d["deltas"]["memory"]["kv_tokens"], -79);
    assert_eq!(d["deltas"]["verdict"], serde_json::json!(["ok", "ok"]));

    let o = tpsim(&["diff", &a, &b]);
    assert_eq!(o.code, 0);
    let row = o
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("allreduce "))
        .expect("allreduce row");
    assert!(
        row.contains("29.101") && row.contains("20.131") && row.contains("-8.970") && row.contains("0.692×"),
        "{row}"
    );
    assert!(
        o.stdout.contains("custom-allreduce IPC buffers") && o.stdout.contains("+40.0"),
        "{}",
        o.stdout
    );
}

#[test]
fn modeled_memory_moves_the_kv_budget_by_minus_f_times_the_buffers() {
    // Without the logs' observed values the buffers lower both free-memory figures by 40 MiB, so the
    // KV budget moves by −0.88 × 40 = −35.2 MiB (memory_cli.rs, seed-story R3).
    let dir = scratch("diff-modeled");
    let base = std::fs::read_to_string(scenario("seed/baseline.toml"))
        .unwrap()
        .replacen(
            "free_after_init_gib = 94.04\nfree_after_weights_gib = 21.71\n",
            "",
            1,
        );
    let (a, b) = (dir.join("a.toml"), dir.join("b.toml"));
    std::fs::write(&a, &base).unwrap();
    std::fs::write(
        &b,
        base.replacen("allreduce = \"nccl\"", "allreduce = \"custom\"", 1),
    )
    .unwrap();
    let d = diff_json(&a.display().to_string(), &b.display().to_string());
    let m = &d["deltas"]["memory"];
    assert!((f(&m["rest_mib"]) + 0.88 * 40.0).abs() < 0.01, "{m}");
    assert!((f(&m["from_available_mib"]) + 40.0).abs() < 0.01, "{m}");
    assert!((f(&m["from_total_mib"]) - 0.12 * 40.0).abs() < 0.01, "{m}");
}

#[test]
fn an_oom_side_prints_its_error_and_still_shows_memory() {
    let o = tpsim(&[
        "diff",
        &scenario("seed/baseline.toml"),
        &scenario("seed/low-fraction.toml"),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("B would NOT start")
            && o.stdout
                .contains("Not enough memory. Please try to increase --mem-fraction-static")
            && !o.stdout.contains("A would NOT start"),
        "{}",
        o.stdout
    );
    // R2: 0.55 leaves no KV budget; the memory section still shows the pool vanishing.
    assert!(o.stdout.contains("memory verdict") && o.stdout.contains("oom"));
    assert!(
        o.stdout.contains("target KV pool") && o.stdout.contains("KV tokens -159294"),
        "{}",
        o.stdout
    );
    let o = tpsim(&["diff", &scenario("seed/baseline.toml"), "/nonexistent.toml"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("/nonexistent.toml"), "{}", o.stderr);
}
