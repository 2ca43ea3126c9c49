//! families18 (issue #17): GLM-4.1V (`Glm4vForConditionalGeneration`) end to end. The weights are
//! pinned by hand in `model/src/llm/tests_families18.rs`; here the example runs under both engines as
//! GLM-4-0414's text tower plus the GLM-4V ViT, and releases before each engine's first file are
//! refused.

use crate::common::*;

const GLM41V_SGLANG: &str = "examples/glm-4.1v-9b-thinking-sglang-rtx4090x2.toml";

/// The example rewritten for `engine` ([`engine_variant`]).
fn variant(name: &str, engine: &str, version: Option<&str>) -> String {
    engine_variant(GLM41V_SGLANG, "sglang", name, engine, version)
}

/// GLM-4.1V-9B-Thinking at tp 2: 5,169,080,832 parameters a rank (`tests_families18`: 4,700,469,248
/// of the text tower, 468,611,584 of the ViT and merger) × 2 B = 10,338,161,664 B is SGLang's weights
/// line exactly and a floor of vLLM's (which adds its rotary caches, under 1 GiB). Cell: 40 layers ×
/// 1 KV head a rank × 2 × 128 × 2 B = 20,480 under both; two all-reduces a layer × 40 + the
/// embedding's = 81.
#[test]
fn glm41v_example_runs_under_both_engines() {
    let sg = run_json(&scenario(GLM41V_SGLANG));
    assert_eq!(entry_bytes(&sg, "target weights"), 10_338_161_664);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 20_480);
    assert_eq!(sg["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 81);
    assert!(f(&sg["throughput"]["tpot_ms"]) > 0.0);

    let vl = run_json(&variant("glm41v-vllm", "vllm", None));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 10_338_161_664, "{w}");
    assert!(w < 10_338_161_664 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 20_480);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 81);
}

/// SGLang ships `models/glm4v.py` from 0.5.0 (the 0.5.0rc1 wheel) and vLLM registers the model from
/// 0.9.2 (read from the wheels): SGLang 0.4.10.post2 and vLLM 0.9.1 are refused on
/// `engine.version`, naming the file.
#[test]
fn glm41v_before_its_first_release_is_refused() {
    let out = tpsim(&["run", &variant("glm41v-sg-0410", "sglang", Some("0.4.10.post2"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("SGLang 0.4.10.post2 has no models/glm4v.py"),
        "{}",
        out.stderr
    );
    let out = tpsim(&["run", &variant("glm41v-vl-091", "vllm", Some("0.9.1"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("vLLM registers it from 0.9.2"),
        "{}",
        out.stderr
    );
    let out = tpsim(&["run", &variant("glm41v-vl-092", "vllm", Some("0.9.2"))]);
    assert_eq!(out.code, 0, "{}", out.stderr);
}

/// The tower's 12 heads: tp 8 is refused before anything runs (both engines assert the head split).
#[test]
fn glm41v_tp8_is_refused() {
    let text = std::fs::read_to_string(scenario(GLM41V_SGLANG))
        .unwrap()
        .replace("rtx-4090-2x-no-p2p", "rtx-4090-8x-no-p2p")
        .replace("tp = 2", "tp = 8");
    let p = scratch("glm41v-tp8").join("s.toml");
    std::fs::write(&p, text).unwrap();
    let out = tpsim(&["run", &p.display().to_string()]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("12"), "{}", out.stderr);
}

const AFM_VLLM: &str = "examples/afm-4.5b-vllm-rtx4090.toml";

/// The Arcee example rewritten for `engine`, optionally with a version.
fn afm_variant(name: &str, engine: &str, version: Option<&str>) -> String {
    let mut text = std::fs::read_to_string(scenario(AFM_VLLM)).unwrap();
    text = text.replace("name = \"vllm\"", &format!("name = \"{engine}\""));
    if engine == "sglang" {
        text = text.replace("max_model_len = 32768", "context_length = 32768");
    }
    if let Some(v) = version {
        text = text.replace("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"));
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// AFM-4.5B at tp 1: 4,619,491,840 parameters loaded (`tests_families18`: 4,619,184,640 with the
/// vocabulary padded to 128,064) × 2 B = 9,238,983,680 B is SGLang's weights line exactly and a floor
/// of vLLM's (which adds its rotary cache, under 1 GiB). Cell 36 layers × 4 KV heads × 2 × 128 × 2 B =
/// 73,728. At tp 1 no all-reduce.
#[test]
fn afm_example_runs_under_both_engines() {
    let vl = run_json(&scenario(AFM_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 9_238_983_680, "{w}");
    assert!(w < 9_238_983_680 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 73_728);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);

    let sg = run_json(&afm_variant("afm-sglang", "sglang", None));
    assert_eq!(entry_bytes(&sg, "target weights"), 9_238_983_680);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 73_728);
}

/// SGLang ships `models/arcee.py` from 0.4.10, vLLM registers the model from 0.10.0 (read from the
/// wheels): SGLang 0.4.9.post6 and vLLM 0.9.2 are refused on `engine.version`.
#[test]
fn afm_before_its_first_release_is_refused() {
    let out = tpsim(&["run", &afm_variant("afm-sg-049", "sglang", Some("0.4.9.post6"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("SGLang 0.4.9.post6 has no models/arcee.py"),
        "{}",
        out.stderr
    );
    let out = tpsim(&["run", &afm_variant("afm-vl-092", "vllm", Some("0.9.2"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(
        out.stderr.contains("vLLM registers it from 0.10.0"),
        "{}",
        out.stderr
    );
}
