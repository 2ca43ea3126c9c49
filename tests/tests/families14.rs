//! families14 (issue #17): InternVL (`InternVLChatModel`) end to end. The weights are pinned by hand
//! in `model/src/llm/tests_internvl.rs`; here the example runs under both engines as its Qwen2
//! language model plus InternViT and mlp1, SGLang refuses a Llama-layout tower that vLLM serves, and
//! SGLang before its first release with the model is refused.

use crate::common::*;

const INTERNVL_SGLANG: &str = "examples/internvl3-1b-sglang-rtx4090x2.toml";

/// The example rewritten for `engine` (same box, tp and workload), optionally with another model
/// config and an engine version, in a scratch file.
fn variant(name: &str, engine: &str, config: Option<&std::path::Path>, version: Option<&str>) -> String {
    let mut text = std::fs::read_to_string(scenario(INTERNVL_SGLANG)).unwrap();
    text = text.replace("name = \"sglang\"", &format!("name = \"{engine}\""));
    if let Some(c) = config {
        text = text.replace(
            "preset = \"internvl3-1b\"",
            &format!("config = \"{}\"", c.display()),
        );
    }
    if let Some(v) = version {
        text = text.replace("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"));
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The preset's config with another language model class in `llm_config`, in a scratch file.
fn with_tower(name: &str, tower: &str) -> std::path::PathBuf {
    let dir = scratch(name);
    let cfg = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/models/internvl3-1b/config.json"),
    )
    .unwrap()
    .replace("\"Qwen2ForCausalLM\"", &format!("\"{tower}\""));
    let p = dir.join("config.json");
    std::fs::write(&p, cfg).unwrap();
    p
}

/// InternVL3-1B at tp 2: 472,290,432 parameters a rank (`tests_internvl`: 314,876,288 of the Qwen2
/// language model with its vocabulary padded to 151,680 rows, 157,414,144 of InternViT with mlp1
/// replicated) × 2 B = 944,580,864 B is SGLang's weights line exactly and a floor of vLLM's (which
/// adds its RoPE cache, under 1 GiB). Cell: 24 layers × 1 KV head a rank × 2 × 64 × 2 B = 6,144
/// under both; two all-reduces a layer × 24 + the embedding's = 49.
#[test]
fn internvl_example_runs_under_both_engines() {
    let sg = run_json(&scenario(INTERNVL_SGLANG));
    assert_eq!(entry_bytes(&sg, "target weights"), 944_580_864);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 6_144);
    assert_eq!(sg["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 49);
    assert!(f(&sg["throughput"]["tpot_ms"]) > 0.0);

    let vl = run_json(&variant("internvl-vllm", "vllm", None, None));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 944_580_864, "{w}");
    assert!(w < 944_580_864 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 6_144);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 49);
}

/// InternVL3-9B's tower is `InternLM3ForCausalLM` (a Llama in both engines): SGLang's internvl.py
/// raises NotImplementedError for it, refused on `engine.name`; vLLM builds it.
#[test]
fn internvl_llama_tower_is_vllm_only() {
    let cfg = with_tower("internvl-internlm3", "InternLM3ForCausalLM");
    let out = tpsim(&[
        "run",
        &variant("internvl-internlm3-sg", "sglang", Some(&cfg), None),
    ]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.name"), "{}", out.stderr);
    assert!(out.stderr.contains("is not implemented."), "{}", out.stderr);
    let vl = run_json(&variant("internvl-internlm3-vl", "vllm", Some(&cfg), None));
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 6_144);
}

/// SGLang ships InternVL from 0.4.6.post3 and vLLM from 0.5.4 (read from the wheels): SGLang 0.4.5
/// is refused on `engine.version`, naming the file.
#[test]
fn internvl_sglang_before_its_first_release_is_refused() {
    let out = tpsim(&["run", &variant("internvl-sg-045", "sglang", None, Some("0.4.5"))]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("SGLang 0.4.5 has no models/internvl.py"),
        "{}",
        out.stderr
    );
}
