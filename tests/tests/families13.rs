//! families13 (issue #17): StarCoder2 (`Starcoder2ForCausalLM`) end to end. The weights are pinned by
//! hand in `model/src/llm/tests_starcoder2.rs`; here the example runs under both engines, vLLM's
//! window shortens the attention reads and SGLang's absent window changes nothing, and SGLang before
//! its first release with the model is refused.

use crate::common::*;

const STARCODER2_VLLM: &str = "examples/starcoder2-3b-vllm-rtx4090x2.toml";

/// The example rewritten for SGLang (same box, tp and workload), optionally with another model
/// config, in a scratch file.
fn variant(name: &str, engine: &str, config: Option<&std::path::Path>) -> String {
    let mut text = std::fs::read_to_string(scenario(STARCODER2_VLLM)).unwrap();
    if engine == "sglang" {
        text = text
            .replace("name = \"vllm\"", "name = \"sglang\"")
            .replace("max_model_len = 16384", "context_length = 16384");
    }
    if let Some(c) = config {
        text = text.replace(
            "preset = \"starcoder2-3b\"",
            &format!("config = \"{}\"", c.display()),
        );
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The preset's config with `sliding_window` null (every layer full attention), in a scratch file.
fn windowless(name: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    let cfg = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios/models/starcoder2-3b/config.json"),
    )
    .unwrap()
    .replace("\"sliding_window\": 4096", "\"sliding_window\": null");
    let p = dir.join("config.json");
    std::fs::write(&p, cfg).unwrap();
    p
}

/// StarCoder2-3B at tp 2: the hand count 1,515,465,216 parameters a rank × 2 B is SGLang's weights
/// line exactly and a floor of vLLM's (which adds its RoPE cache, under 1 GiB); the cell 30 layers ×
/// 1 KV head a rank × 2 × 128 × 2 B = 15,360 under both; two all-reduces a layer × 30 + the
/// embedding's = 61.
#[test]
fn starcoder2_example_runs_under_both_engines() {
    let vl = run_json(&scenario(STARCODER2_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 2 * 1_515_465_216, "{w}");
    assert!(w < 2 * 1_515_465_216 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 15_360);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 61);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);

    let sg = run_json(&variant("starcoder2-sglang", "sglang", None));
    assert_eq!(entry_bytes(&sg, "target weights"), 2 * 1_515_465_216);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 15_360);
    assert_eq!(sg["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 61);
}

/// With 8,192-token prompts (twice the 4,096 window), vLLM's sliding layers read at most 4,096
/// tokens of KV a sequence. On two H100 NVL (FlashAttention 3) the attention time per iteration is
/// below that of the same scenario with the window removed; on the example's RTX 4090s vLLM's FA2
/// reads a sliding layer's KV once per query head (12 a KV head here, `decode::passes::fa2_window`),
/// so the window costs more than full attention would. SGLang applies no window: the preset and the
/// windowless config give the same figures, to the last digit.
#[test]
fn starcoder2_window_is_vllm_only() {
    let cfg = windowless("starcoder2-nowindow");
    let attn = |j: &serde_json::Value| f(&j["breakdown_by_op"]["attention"]);
    let on_h100 = |name: &str, c: Option<&std::path::Path>| {
        let p = variant(name, "vllm", c);
        let text = std::fs::read_to_string(&p)
            .unwrap()
            .replace("rtx-4090-2x-no-p2p", "h100-nvl-2x-nvlink-bridge");
        std::fs::write(&p, text).unwrap();
        run_json(&p)
    };
    let (h, h_full) = (
        on_h100("starcoder2-h100", None),
        on_h100("starcoder2-h100-full", Some(&cfg)),
    );
    assert!(
        attn(&h) < attn(&h_full),
        "window {} vs full {}",
        attn(&h),
        attn(&h_full)
    );
    let vl = run_json(&scenario(STARCODER2_VLLM));
    let vl_full = run_json(&variant("starcoder2-vllm-full", "vllm", Some(&cfg)));
    assert!(
        attn(&vl) > attn(&vl_full),
        "window {} vs full {}",
        attn(&vl),
        attn(&vl_full)
    );

    let sg = run_json(&variant("starcoder2-sglang-w", "sglang", None));
    let sg_full = run_json(&variant("starcoder2-sglang-full", "sglang", Some(&cfg)));
    assert_eq!(
        sg["breakdown_by_op"]["attention"],
        sg_full["breakdown_by_op"]["attention"]
    );
    assert_eq!(
        sg["throughput"]["tpot_ms"].as_f64(),
        sg_full["throughput"]["tpot_ms"].as_f64()
    );
    assert_eq!(
        sg["memory"]["kv_tokens"].as_u64(),
        sg_full["memory"]["kv_tokens"].as_u64()
    );
}

/// SGLang ships `models/starcoder2.py` from 0.5.3 (read from the wheels): 0.5.2 is refused on
/// `engine.version`, naming the file.
#[test]
fn starcoder2_sglang_before_its_first_release_is_refused() {
    let p = variant("starcoder2-sglang-052", "sglang", None);
    let text = std::fs::read_to_string(&p)
        .unwrap()
        .replace("[engine]\n", "[engine]\nversion = \"0.5.2\"\n");
    std::fs::write(&p, text).unwrap();
    let out = tpsim(&["run", &p]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("SGLang 0.5.2 has no models/starcoder2.py"),
        "{}",
        out.stderr
    );
}

/// The example at tp 1 × pp 2 on its two GPUs. Under SGLang the model has one kind of KV layer
/// (no window), so the stage plan accepts it: each stage holds 15 of the 30 layers, its cell 15
/// layers × 2 KV heads × 2 (K and V) × 128 × 2 B = 15,360 B. vLLM keeps the window on every layer,
/// a layout tpsim's stage plan does not divide: refused on `engine.pp_size`.
#[test]
fn starcoder2_pipeline_under_sglang() {
    let pp = |name: &str, engine: &str| {
        let p = variant(name, engine, None);
        let text = std::fs::read_to_string(&p)
            .unwrap()
            .replace("tp = 2\n", "tp = 1\npp_size = 2\n");
        std::fs::write(&p, text).unwrap();
        p
    };
    let sg = run_json(&pp("starcoder2-sglang-pp", "sglang"));
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 15_360);
    assert!(f(&sg["throughput"]["tpot_ms"]) > 0.0);
    let out = tpsim(&["run", &pp("starcoder2-vllm-pp", "vllm")]);
    assert_eq!(out.code, 2, "{}", out.stdout);
    assert!(out.stderr.contains("engine.pp_size"), "{}", out.stderr);
    assert!(out.stderr.contains("mixes layer kinds"), "{}", out.stderr);
}
