//! families6 (issue #17): Llama-Nemotron NAS (`DeciLMForCausalLM`) end to end — the Super-49B preset
//! runs under both engines with the weights pinned by hand in `model/src/llm/tests_nemotron_nas.rs`;
//! the two engines' KV cells differ because SGLang's pool counts every decoder layer and vLLM only
//! the attention blocks (`llm::nemotron_nas`).

use crate::common::*;

const SUPER: &str = "llama-3.3-nemotron-super-49b-v1";
const BOX4: &str = "rtx-pro-6000-4x-turin-same-numa";

#[test]
fn super_49b_example_runs_under_sglang_with_its_80_layer_pool() {
    let j = run_json(&scenario(
        "examples/llama-3.3-nemotron-super-49b-sglang-rtx6000x4.toml",
    ));
    // 12,467,585,024 parameters × 2 B per rank at tp 4 (`super_49b_parameters_by_hand`).
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 12_467_585_024);
    // SGLang's pool: all 80 layers × 2 KV heads per rank × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 81_920);
    // One allreduce after each of the 49 attention blocks and the 80 MLPs, plus the embedding's; each
    // of 16 running tokens × 8,192 × 2 B.
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 130);
    assert_eq!(
        j["collectives"]["decode_allreduce_bytes"].as_u64().unwrap(),
        262_144
    );
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

#[test]
fn super_49b_under_vllm_holds_kv_for_the_attention_blocks_only() {
    let j = run_json(&scenario_for("nas-vllm", SUPER, "vllm", 4, BOX4));
    // The hand count plus vLLM's RoPE cache 131,072 × 128 × 2 B = 32 MiB and the allocator's blocks:
    // the six 0.5-ffn_mult layers' down_proj shards 8,192 × 704 × 2 B = 11 MiB each leave 1 MiB of
    // their 12 MiB segment and are given it, as are the embedding and LM-head shards (32,064 ×
    // 8,192 × 2 B = 501 MiB of 502) → 8 × 1 MiB; every other shard is a whole 2 MiB multiple.
    let extra = entry_bytes(&j, "target weights") - 2 * 12_467_585_024;
    assert_eq!(extra, (32 + 8) << 20);
    // 49 attention blocks × 2 KV heads per rank × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 50_176);
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 130);
}

/// A block tpsim cannot lower is refused at the CLI with exit 2, the block and key named.
#[test]
fn a_replace_with_linear_block_is_refused_with_exit_2() {
    let cfg = std::fs::read_to_string(format!(
        "{}/../scenarios/models/{SUPER}/config.json",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&cfg).unwrap();
    v["block_configs"][3]["ffn"]["replace_with_linear"] = serde_json::json!(true);
    let d = scratch("nas-linear");
    std::fs::write(d.join("config.json"), v.to_string()).unwrap();
    std::fs::write(
        d.join("s.toml"),
        format!(
            "seed = 1\n[hardware]\npreset = \"{BOX4}\"\n[model]\nconfig = \"config.json\"\n\
             [model.quantization]\ndtype = \"bf16\"\n[engine]\nname = \"sglang\"\ntp = 4\n\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 8\n"
        ),
    )
    .unwrap();
    let o = tpsim(&["run", &d.join("s.toml").display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("block_configs[3].ffn.replace_with_linear"),
        "{}",
        o.stderr
    );
}

/// Hunyuan-A13B (`HunYuanMoEV1ForCausalLM`): the example under SGLang and the preset under vLLM
/// carry the hand count of `model/src/llm/tests_hunyuan.rs` at tp 4.
#[test]
fn hunyuan_a13b_runs_under_both_engines_with_the_hand_count() {
    // tp 4: embedding 32,048 × 4,096 = 131,268,608 (tied); layer: norms 8,192, qkv (1,024 + 2 × 256)
    // × 4,096 = 6,291,456, o 4,096 × 1,024 = 4,194,304, q/k norms 256, router 262,144, experts 64 ×
    // 3 × 768 × 4,096 = 603,979,776, shared MLP 3 × 768 × 4,096 = 9,437,184 → 624,173,312, × 32 =
    // 19,973,545,984; + final norm 4,096 → 20,104,818,688 parameters × 2 B.
    let hand = 2 * 20_104_818_688u64;
    let s = run_json(&scenario("examples/hunyuan-a13b-sglang-rtx6000x4.toml"));
    assert_eq!(entry_bytes(&s, "target weights"), hand);
    // 32 layers × 2 KV heads per rank × 2 × 128 × 2 B.
    assert_eq!(s["memory"]["cell_size_bytes"].as_u64().unwrap(), 32_768);
    // Two allreduces a layer (attention, then the MoE with its shared MLP) + the embedding's.
    assert_eq!(s["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 65);
    assert!(f(&s["throughput"]["tpot_ms"]) > 0.0);
    // The preset's config copies carry no `max_position_embeddings`: the context is given (assumed).
    let d = scratch("hunyuan-vllm");
    std::fs::write(
        d.join("s.toml"),
        format!(
            "seed = 1\n[hardware]\npreset = \"{BOX4}\"\n[model]\npreset = \"hunyuan-a13b-instruct\"\n\
             [engine]\nname = \"vllm\"\ntp = 4\ncontext_length = 32768\n\
             [workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
        ),
    )
    .unwrap();
    let v = run_json(&d.join("s.toml").display().to_string());
    assert_eq!(v["memory"]["cell_size_bytes"].as_u64().unwrap(), 32_768);
    // Beyond the hand count only the small pool's rounding: each layer's q and k norm weights (128 ×
    // 2 B = 256 B) take a 512 B block → 64 × 256 B. No RoPE cache is counted: tpsim sizes it from the
    // config's `max_position_embeddings`, which the preset's public copies lack (vLLM builds one of
    // its default length; a lead, see the preset's README).
    assert_eq!(entry_bytes(&v, "target weights") - hand, 64 * 256);
}
