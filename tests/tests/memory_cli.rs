//! `tpsim memory`: the plan, its thresholds and the start-up log lines (seed story R1, R2).

mod common;
use common::*;

#[test]
fn baseline_plan_log_and_thresholds() {
    let o = tpsim(&["memory", &scenario("seed/baseline.toml"), "--log"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // R1: (159,294 + 1) × 70,272 B = 10.4252 GiB, printed with SGLang's 2 decimals.
    assert!(
        o.stdout
            .contains("KV Cache is allocated. #tokens: 159294, KV size: 10.43 GB"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("Load weight end. avail mem=21.71 GB, mem usage=72.33 GB."),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("max_total_num_tokens=159294"), "{}", o.stdout);
    assert!(
        o.stdout
            .contains("smallest mem_fraction_static that starts: 0.7691"),
        "{}",
        o.stdout
    );
    let o = tpsim(&["memory", &scenario("seed/baseline.toml"), "--json"]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "ok");
    // 159,294 tokens ÷ (1,024 + 1,024) per request = 77 requests; ÷ 1 request = 159,294 tokens.
    assert_eq!(j["max_concurrency_at_context"], 77);
    assert_eq!(j["max_context_at_concurrency"], 159_294);
    assert!(
        j["entries"]
            .as_array()
            .unwrap()
            .iter()
            .any(|e| e["name"] == "draft KV pool")
    );
}

#[test]
fn low_fraction_prints_sglangs_error() {
    // R2: the log stops at the KV profile with SGLang's own message.
    let o = tpsim(&["memory", &scenario("seed/low-fraction.toml"), "--log"]);
    assert_eq!(o.code, 0);
    assert!(
        o.stdout
            .contains("RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.")
    );
    assert!(!o.stdout.contains("KV Cache is allocated"));
    let j: serde_json::Value =
        serde_json::from_str(&tpsim(&["memory", &scenario("seed/low-fraction.toml"), "--json"]).stdout)
            .unwrap();
    assert_eq!(j["verdict"], "oom");
    assert!(f(&j["missing_mib"]) > 21_000.0, "{j}");
    let o = tpsim(&["memory", "/nonexistent.toml"]);
    assert_eq!(o.code, 2);
}
