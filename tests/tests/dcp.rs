//! Issue #17: vLLM's decode context parallelism (`engine.dcp_size`) in `tpsim memory`.

use crate::common::*;

fn memory_json(file: &str) -> serde_json::Value {
    let o = tpsim(&["memory", file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).expect("JSON")
}

/// vLLM 0.11 `v1/core/kv_cache_utils.py`: the blocks are those of one rank (the MLA cell, 576 × 61 ×
/// 2 = 70,272 B, unchanged), the reported tokens multiplied by the dcp world size: exactly 8 × the
/// tokens without DCP on the same box.
#[test]
fn dcp_multiplies_the_reported_kv_tokens() {
    let f = scenario("examples/deepseek-v3-dcp8-vllm-h200x8.toml");
    let j = memory_json(&f);
    let text = std::fs::read_to_string(&f).expect("example");
    let p = scratch("dcp-off").join("scenario.toml");
    std::fs::write(&p, text.replacen("dcp_size = 8\n", "", 1)).expect("write");
    let plain = memory_json(&p.display().to_string());
    assert_eq!(j["kv_cache"]["cell_size_bytes"], 70_272);
    assert_eq!(plain["kv_cache"]["cell_size_bytes"], 70_272);
    let (t, t0) = (
        j["kv_tokens"].as_u64().unwrap(),
        plain["kv_tokens"].as_u64().unwrap(),
    );
    assert!(t0 > 0);
    assert_eq!(t, 8 * t0);
}

/// `tpsim run` names the DCP exchanges (`dcp` in the breakdown).
#[test]
fn run_reports_the_dcp_collectives() {
    let j = run_json(&scenario("examples/deepseek-v3-dcp8-vllm-h200x8.toml"));
    assert!(f(&j["breakdown_by_op"]["dcp"]) > 0.0, "{}", j["breakdown_by_op"]);
}
