//! families11 (issue #17): InternLM2 / 2.5 (`InternLM2ForCausalLM`) end to end. The weights are pinned
//! by hand in `model/src/llm/tests_internlm2.rs`, the per-layer qkv all-gather's task in
//! `sim/src/decode/passes/internlm2_tests.rs`; here the example runs under both engines and vLLM's
//! tp > num_key_value_heads is refused.

use crate::common::*;

const INTERNLM2_VLLM: &str = "examples/internlm2.5-7b-vllm-rtx6000x2.toml";

/// The example rewritten for SGLang (same box, tp and workload), in a scratch file.
fn under_sglang(name: &str) -> String {
    let text = std::fs::read_to_string(scenario(INTERNLM2_VLLM))
        .unwrap()
        .replace("name = \"vllm\"", "name = \"sglang\"")
        .replace("max_model_len = 32768", "context_length = 32768");
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// InternLM2.5-7B-Chat at tp 2 under vLLM: the hand count 3,868,987,392 parameters a rank × 2 B is a
/// floor of vLLM's weights line (which adds its RoPE cache, under 1 GiB); the cell 32 layers × 4 KV
/// heads a rank × 2 × 128 × 2 B = 65,536; two all-reduces a layer × 32 + the embedding's = 65 (the
/// qkv all-gathers are not all-reduces). The all-gather time per step is larger than SGLang's on the
/// same scenario, which gathers only the logits.
#[test]
fn internlm2_example_gathers_qkv_under_vllm_only() {
    let vl = run_json(&scenario(INTERNLM2_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 2 * 3_868_987_392, "{w}");
    assert!(w < 2 * 3_868_987_392 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);

    // Under SGLang the weights line is the hand count exactly; same cell and all-reduces.
    let sg = run_json(&under_sglang("internlm2-sglang"));
    assert_eq!(entry_bytes(&sg, "target weights"), 2 * 3_868_987_392);
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    assert_eq!(sg["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
    let ag = |j: &serde_json::Value| j["breakdown_by_op"].get("allgather").map_or(0.0, f);
    assert!(ag(&vl) > ag(&sg), "vLLM {} vs SGLang {}", ag(&vl), ag(&sg));
}

/// A config with one KV head (a variant of the preset's) at tp 2: vLLM's `split_qkv` view fails with
/// replicated KV heads, so tpsim refuses `engine.tp` naming the file; SGLang replicates the head and runs.
#[test]
fn internlm2_vllm_refuses_replicated_kv_heads() {
    let dir = scratch("internlm2-kv1");
    let cfg = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios/models/internlm2.5-7b-chat/config.json"),
    )
    .unwrap()
    .replace("\"num_key_value_heads\": 8", "\"num_key_value_heads\": 1");
    std::fs::write(dir.join("config.json"), cfg).unwrap();
    let scen = |engine: &str, ctx: &str| {
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"rtx-4090-2x-no-p2p\"\n[model]\nconfig = \"{}\"\n\
             [engine]\nname = \"{engine}\"\ntp = 2\n{ctx} = 4096\n\
             [workload]\nconcurrency = 4\nprompt_len = 512\noutput_len = 32\n",
            dir.join("config.json").display()
        );
        let p = dir.join(format!("{engine}.toml"));
        std::fs::write(&p, text).unwrap();
        p.display().to_string()
    };
    let out = tpsim(&["run", &scen("vllm", "max_model_len")]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.tp"), "{}", out.stderr);
    assert!(
        out.stderr.contains("InternLM2 runs under vLLM only at tp ≤ 1"),
        "{}",
        out.stderr
    );
    let sg = run_json(&scen("sglang", "context_length"));
    // One KV head replicated on both ranks: 32 layers × 1 × 2 × 128 × 2 B = 16,384.
    assert_eq!(sg["memory"]["cell_size_bytes"].as_u64().unwrap(), 16_384);
}
