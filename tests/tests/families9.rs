//! families9 (issue #17): OLMo-3 (`Olmo3ForCausalLM`) end to end — both engines build it as OLMo-2
//! (vLLM 0.19.0 `registry.py` maps the name to `olmo2.Olmo2ForCausalLM`; SGLang 0.5.9
//! `configs/olmo3.py` rewrites it to `Olmo2ForCausalLM`), with 24 of its 32 layers sliding over
//! 4,096 tokens (`layer_types`). The weights are pinned by hand in `model/src/llm/tests_olmo2.rs`.

use crate::common::*;

const OLMO3_VLLM: &str = "examples/olmo-3-7b-vllm-rtx6000x2.toml";

/// The example under SGLang 0.5.8 instead of vLLM (SGLang's `context_length` for vLLM's length).
fn under_sglang(name: &str) -> String {
    let text = std::fs::read_to_string(scenario(OLMO3_VLLM))
        .unwrap()
        .replace("name = \"vllm\"", "name = \"sglang\"\nversion = \"0.5.8\"")
        .replace("max_model_len = 65536", "context_length = 65536");
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// The example with the preset's config rewritten so that every layer is full attention.
fn all_full(name: &str) -> String {
    let dir = scratch(name);
    let cfg = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios/models/olmo-3-7b-instruct/config.json"),
    )
    .unwrap()
    .replace("\"sliding_attention\"", "\"full_attention\"");
    std::fs::write(dir.join("config.json"), cfg).unwrap();
    let text = std::fs::read_to_string(scenario(OLMO3_VLLM))
        .unwrap()
        .replace("preset = \"olmo-3-7b-instruct\"", "config = \"config.json\"");
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Olmo-3-7B-Instruct at tp 2 under vLLM: the KV cell 32 layers × 16 heads a rank × 2 × 128 × 2 B =
/// 262,144; the checkpoint's share 3,649,310,720 parameters a rank (vocab padded to 100,288 rows,
/// whole-width q/k norms replicated) is a floor of vLLM's weights line, which adds its RoPE caches.
/// Two all-reduces a layer + the vocab-parallel embedding's.
#[test]
fn olmo3_example_runs_under_vllm() {
    let j = run_json(&scenario(OLMO3_VLLM));
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 262_144);
    let w = entry_bytes(&j, "target weights");
    assert!(w >= 2 * 3_649_310_720, "{w}");
    assert!(w < 2 * 3_649_310_720 + (1 << 30), "{w}");
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

/// Under SGLang the weights are the hand count exactly (no RoPE cache in the line), and the pool is
/// the plain one over every layer (`Olmo2ForCausalLM` is not a hybrid-SWA architecture in SGLang
/// 0.5.9 `model_config.py`): same cell, no SWA pool entry.
#[test]
fn olmo3_under_sglang_has_the_hand_count_and_the_plain_pool() {
    let j = run_json(&under_sglang("olmo3-sglang"));
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 3_649_310_720);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 262_144);
    let names: Vec<&str> = j["memory"]["entries"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|e| e["name"].as_str())
        .collect();
    assert!(names.contains(&"target KV pool"), "{names:?}");
    assert!(!names.iter().any(|n| n.contains("SWA")), "{names:?}");
}

/// The sliding layers read at most 4,096 tokens of an 8,192-token prompt's context at decode: the
/// same model with every layer full attention decodes slower under the same workload.
#[test]
fn olmo3_sliding_layers_make_decode_cheaper_than_all_full() {
    let slid = run_json(&under_sglang("olmo3-slid"));
    let full_p = all_full("olmo3-full");
    let full_s = full_p.replace("s.toml", "sg.toml");
    let text = std::fs::read_to_string(&full_p)
        .unwrap()
        .replace("name = \"vllm\"", "name = \"sglang\"\nversion = \"0.5.8\"")
        .replace("max_model_len = 65536", "context_length = 65536");
    std::fs::write(&full_s, text).unwrap();
    let full = run_json(&full_s);
    let (a, b) = (
        f(&slid["throughput"]["tpot_ms"]),
        f(&full["throughput"]["tpot_ms"]),
    );
    assert!(a < b, "sliding {a} ms, all full {b} ms");
}
