//! h3: vision-language models end to end: Qwen2.5-VL's weights and cell through a scenario with SGLang's
//! lowered default fraction (`adjust_mem_fraction_for_vlm`), Mllama under SGLang (one pool over all
//! 100 text layers) and refused under vLLM with the engine's text.
//!
//! Hand arithmetic of the weights: `model/src/llm/tests_h3.rs`.

use crate::common::*;

#[test]
fn qwen25_vl_example_lowers_the_default_fraction() {
    let j = run_json(&scenario("examples/qwen2.5-vl-7b-h100.toml"));
    let m = &j["memory"];
    let weights = m["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "target weights")
        .unwrap();
    // 8,292,166,656 parameters × 2 B (text tower 7,615,616,512 + Qwen ViT 676,550,144).
    assert_eq!(weights["bytes"].as_u64().unwrap(), 16_584_333_312);
    // 4 KV heads × 256 × 28 layers × 2 B.
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 57_344);
    // vision_config has `depth`, not `num_hidden_layers`: SGLang reads 24 × 1280 →
    // 0.95 × (1 − 0.1 × (24·1280²/(24·1024²) − 1)) = 0.95 × 0.94375 = 0.8965625.
    let factor = f(&m["mem_fraction_vlm_factor"]);
    assert!((factor - 0.8965625).abs() < 1e-12, "{factor}");
    assert_eq!(m["mem_fraction_static_default"], true);
    // The fraction is the text-only default (rounded to 3 decimals) times the factor.
    let frac = f(&m["mem_fraction_static"]);
    let base = frac / factor;
    assert!(
        ((base * 1000.0).round() / 1000.0 - base).abs() < 1e-9,
        "{frac} / {factor} = {base}"
    );
}

fn mllama_scenario(name: &str, engine: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"llama-3.2-90b-vision\"\n\
         [engine]\nname = \"{engine}\"\ntp = 8\n[workload]\nconcurrency = 4\nprompt_len = 512\noutput_len = 64\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn mllama_runs_under_sglang_with_one_pool() {
    let j = run_json(&mllama_scenario("mllama-sglang", "sglang"));
    let m = &j["memory"];
    // One KV head per rank × 256 × all 100 layers (cross-attention ones included) × 2 B.
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 51_200);
    let weights = m["entries"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["name"] == "target weights")
        .unwrap();
    assert_eq!(weights["bytes"].as_u64().unwrap(), 22_394_911_094);
}

#[test]
fn mllama_is_refused_by_vllm() {
    let o = tpsim(&["run", &mllama_scenario("mllama-vllm", "vllm")]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("was supported in vLLM until v0.10.2, and is not supported anymore"),
        "{}",
        o.stderr
    );
}
