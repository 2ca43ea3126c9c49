//! Issue #17 point 4 (ROCm specifics): SGLang on AMD picks `aiter` for MHA models (MLA: only with 16
//! or 128 KV heads per rank, else `triton`), and with `aiter` above 8192 tokens of context scales
//! `mem_fraction_static` by 0.85 to leave room for aiter's non-static workspace (SGLang 0.5.9
//! `server_args.py` `_handle_attention_backend_compatibility`; 0.5.23 `arg_groups/attention_hook.py`).

use crate::common::{scenario, scratch, tpsim};

fn memory(path: &str) -> (serde_json::Value, String) {
    let o = tpsim(&["memory", path, "--json"]);
    assert_eq!(o.code, 0, "{path}: {}", o.stderr);
    (serde_json::from_str(&o.stdout).expect("json"), o.stderr)
}

fn variant(name: &str, extra: &str) -> String {
    let base = std::fs::read_to_string(scenario("examples/llama-3.1-70b-mi300x8.toml")).expect("example");
    let text = base.replacen(
        "mem_fraction_static = 0.85\n",
        &format!("mem_fraction_static = 0.85\n{extra}\n"),
        1,
    );
    assert_ne!(text, base);
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// Llama-3.1-70B (MHA, 131072-token context) on 8× MI300X, stated fraction 0.85: SGLang runs with
/// aiter and 0.85 × 0.85 = 0.7225. rest = available − total × (1 − f) (the late-2025 rule), and
/// KV tokens = ⌊rest × 2^30 / 40960 B⌋ (80 layers × 8/8 KV heads × 128 × 2 × 2 B).
#[test]
fn mha_on_rocm_runs_aiter_and_scales_the_fraction() {
    let (m, stderr) = memory(&scenario("examples/llama-3.1-70b-mi300x8.toml"));
    let f = m["mem_fraction_static"].as_f64().expect("f");
    assert!((f - 0.7225).abs() < 1e-12, "{f}");
    assert!(
        stderr.contains("SGLang scales mem_fraction_static by 0.85 (0.8500 → 0.7225)"),
        "{stderr}"
    );
    let (total, avail, rest) = (
        m["total_gib"].as_f64().unwrap(),
        m["available_gib"].as_f64().unwrap(),
        m["rest_gib"].as_f64().unwrap(),
    );
    assert!((rest - (avail - total * (1.0 - 0.7225))).abs() < 1e-9, "{rest}");
    assert_eq!(m["cell_size_bytes"], 40960);
    let kv = (rest * (1u64 << 30) as f64 / 40960.0).floor() as u64;
    assert_eq!(m["kv_tokens"].as_u64(), Some(kv));
}

/// Not aiter (stated triton), or a context of 8192 tokens: SGLang leaves the fraction alone.
#[test]
fn no_reserve_without_aiter_or_at_8192_tokens() {
    for (name, extra) in [
        ("triton", "attention_backend = \"triton\""),
        ("ctx8192", "context_length = 8192"),
    ] {
        let (m, stderr) = memory(&variant(name, extra));
        assert_eq!(m["mem_fraction_static"].as_f64(), Some(0.85), "{name}");
        assert!(!stderr.contains("aiter"), "{name}: {stderr}");
    }
}

/// Kimi-K2.5 (MLA, 64 KV heads) at tp 8 has 8 per rank: SGLang picks triton, no reserve — the
/// fraction stays the engine-memory.tsv line 3 default 0.8260405859375 (tests/tests/accel.rs).
#[test]
fn mla_with_8_heads_per_rank_runs_triton_without_the_reserve() {
    let (m, stderr) = memory(&scenario("examples/kimi-k2.5-mi355x8.toml"));
    assert_eq!(m["mem_fraction_static"].as_f64(), Some(0.8260405859375));
    assert!(!stderr.contains("aiter"), "{stderr}");
}

/// vrows3 (issue #17 point 4): the workspace the 0.85 makes room for. SGLang 0.5.9
/// `layers/attention/aiter_backend.py` `AiterAttnBackend.__init__` allocates, after the KV pool,
/// `max_bs × heads × ⌈context_len / 256⌉ × head_dim × 4 + 2 × max_bs × heads × ⌈context_len / 256⌉ × 4`
/// bytes (MHA only). Llama-3.1-70B at tp 8: 64 / 8 = 8 heads, head_dim 128, context 131,072 → 512
/// partitions, `max_bs` = the request pool's 4096 slots: 4096 × 8 × 512 × 520 = 8,724,152,320 B =
/// 8320 MiB, listed after the pool as the engine's arithmetic. Kimi-K2.5 (MLA, triton): none.
#[test]
fn aiter_workspace_after_the_pool() {
    let entry = |m: &serde_json::Value| {
        m["entries"]
            .as_array()
            .unwrap()
            .iter()
            .find(|e| e["name"] == "aiter attention workspace")
            .cloned()
    };
    let (m, _) = memory(&scenario("examples/llama-3.1-70b-mi300x8.toml"));
    let e = entry(&m).expect("aiter workspace entry");
    assert_eq!(e["mib"].as_f64(), Some(8320.0));
    assert_eq!(e["moment"], "after pool");
    assert_eq!(e["source"], "engine_rule");
    // At 8192 tokens (32 partitions, no 0.85 scaling) the buffer is 16× smaller: 520 MiB.
    let (m, _) = memory(&variant("ws8192", "context_length = 8192"));
    assert_eq!(entry(&m).expect("entry")["mib"].as_f64(), Some(520.0));
    let (m, _) = memory(&variant("wstriton", "attention_backend = \"triton\""));
    assert!(entry(&m).is_none());
    let (m, _) = memory(&scenario("examples/kimi-k2.5-mi355x8.toml"));
    assert!(entry(&m).is_none());
}
