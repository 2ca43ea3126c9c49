//! families16 (issue #17): Qwen2-VL (`Qwen2VLForConditionalGeneration`) end to end. The weights are
//! pinned by hand in `model/src/llm/tests_qwen2_vl.rs`; here the example runs under both engines as
//! its Qwen2 text tower plus the Qwen2-VL ViT, SGLang lowers its default fraction for the tower by the
//! config's vision `hidden_size`, and releases before each engine's first `qwen2_vl.py` are refused.

use crate::common::*;

const QWEN2_VL_VLLM: &str = "examples/qwen2-vl-7b-vllm-rtx4090x2.toml";

/// The example rewritten for `engine` ([`engine_variant`]).
fn variant(name: &str, engine: &str, version: Option<&str>) -> String {
    engine_variant(QWEN2_VL_VLLM, "vllm", name, engine, version)
}

/// Qwen2-VL-7B at tp 2: 4,146,668,544 parameters a rank (`tests_qwen2_vl`: 3,807,910,400 of the
/// text tower, 338,758,144 of the ViT and merger, all sharded) × 2 B = 8,293,337,088 B is SGLang's
/// weights line exactly and a floor of vLLM's (which adds its rotary caches, under 1 GiB). Cell: 28
/// layers × 2 KV heads a rank × 2 × 128 × 2 B = 28,672 under both; two all-reduces a layer × 28 +
/// the embedding's = 57.
#[test]
fn qwen2_vl_example_runs_under_both_engines() {
    let vl = run_json(&scenario(QWEN2_VL_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 8_293_337_088, "{w}");
    assert!(w < 8_293_337_088 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 28_672);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 57);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);

    let sg = run_json(&variant("qwen2-vl-sglang", "sglang", None));
    assert_eq!(entry_bytes(&sg, "target weights"), 8_293_337_088);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 28_672);
    assert_eq!(sg["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 57);
}

/// SGLang 0.5.8 `adjust_mem_fraction_for_vlm` reads `vision_config.num_hidden_layers` (absent: 24)
/// and `vision_config.hidden_size`, which for Qwen2-VL is the merger's output, 3,584: complexity
/// 24 × 3,584² / (24 × 1,024²) = 12.25, factor 1 − 0.1 × 11.25 = −0.125 clamped to 0.8, × 0.95 =
/// 0.76 of the default fraction. The text report names the factor (printed to 4 places).
#[test]
fn qwen2_vl_sglang_fraction_uses_the_merger_width() {
    let out = tpsim(&["run", &variant("qwen2-vl-sglang-frac", "sglang", None)]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("× 0.7600 for the vision tower"),
        "{}",
        out.stdout
    );
}

/// SGLang ships `models/qwen2_vl.py` from 0.3.4.post1 and vLLM from 0.6.1 (read from the wheels):
/// SGLang 0.3.4 and vLLM 0.6.0 are refused on `engine.version`, naming the file.
#[test]
fn qwen2_vl_before_its_first_release_is_refused() {
    let out = tpsim(&["run", &variant("qwen2-vl-sg-034", "sglang", Some("0.3.4"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("SGLang 0.3.4 has no models/qwen2_vl.py"),
        "{}",
        out.stderr
    );
    let out = tpsim(&["run", &variant("qwen2-vl-vl-060", "vllm", Some("0.6.0"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr
            .contains("vLLM 0.6.0 has no model_executor/models/qwen2_vl.py"),
        "{}",
        out.stderr
    );
}
