//! families4 (issue #17): MiMo (`MiMoForCausalLM`) end to end — the preset loads through a scenario
//! under both engines with the weights pinned by hand in `model/src/llm/tests_mimo.rs` (the Qwen2
//! decoder; the MTP layer is not loaded by the target model).

use crate::common::*;

#[test]
fn mimo_example_runs_under_vllm_with_the_hand_count() {
    let j = run_json(&scenario("examples/mimo-7b-rl-vllm-rtx4090x2.toml"));
    // 3,811,459,072 parameters × 2 B per rank at tp 2 (`tests_mimo::mimo_7b_parameters_by_hand`)
    // plus vLLM's RoPE cache 32,768 × 128 × 2 B = 8 MiB and the allocator's blocks: each layer's
    // down_proj shard 4,096 × 5,504 × 2 B = 43 MiB leaves 1 MiB of its 44 MiB segment and is given
    // it (`vllm_parts::block_overhead`), 36 × 1 MiB; the other projections are whole 2 MiB
    // multiples (qkv 24, o 16, gate_up 86 MiB).
    let extra = entry_bytes(&j, "target weights") - 2 * 3_811_459_072;
    assert_eq!(extra, (8 + 36) << 20);
    // 36 layers × 4 KV heads per rank × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 73_728);
    // Two allreduces a Qwen2 layer (after o_proj and down_proj) × 36 + the vocab-parallel
    // embedding's, each of 16 running tokens × 4,096 × 2 B = 131,072 B.
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 73);
    assert_eq!(
        j["collectives"]["decode_allreduce_bytes"].as_u64().unwrap(),
        131_072
    );
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

#[test]
fn mimo_runs_under_sglang_with_exactly_the_hand_count() {
    let j = run_json(&scenario_for(
        "mimo-sglang",
        "mimo-7b-rl",
        "sglang",
        2,
        "rtx-4090-2x-no-p2p",
    ));
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 3_811_459_072);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 73_728);
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 73);
}

fn mtp_scenario(name: &str, engine: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"mimo-7b-rl\"\n\
         [engine]\nname = \"{engine}\"\ntp = 1\n[speculative]\nalgorithm = \"mtp\"\nnum_steps = 1\n\
         topk = 1\nnum_draft_tokens = 2\nacceptance = {{ per_position = [0.9] }}\n\
         [workload]\nconcurrency = 1\nprompt_len = 256\noutput_len = 128\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// SGLang 0.5.9 drafts with `MiMoMTP` (`configs/model_config.py` renames the draft's architecture):
/// its one layer, `input_proj` and three norms, the embedding and LM head shared with the target
/// (`eagle_worker.py` `set_embed_and_head`), and a draft KV pool of `num_nextn_predict_layers` = 1
/// layer (`model_runner_kv_cache_mixin.py` `profile_max_num_token`).
#[test]
fn mimo_mtp_draft_under_sglang_is_its_one_layer() {
    let j = run_json(&mtp_scenario("mimo-mtp-sglang", "sglang"));
    // One Qwen2 layer 177,223,680 + `input_proj` 8,192 × 4,096 = 33,554,432 + token, hidden and
    // final norms 3 × 4,096 = 210,790,400 parameters × 2 B (`tests_mimo`).
    assert_eq!(entry_bytes(&j, "draft weights"), 2 * 210_790_400);
    // 1 layer × 8 KV heads × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["draft_cell_size_bytes"].as_u64().unwrap(), 4_096);
}

/// vLLM runs MiMo's MTP with `mimo_mtp` from 0.9.0 (vllmmtp64; refused here before): the same layer,
/// replicated `input_proj` and three norms as SGLang's draft, the embedding and the top-level LM head
/// the target's, so the same 2 × 210,790,400 bytes at tp 1 (the default release, 0.19.0).
#[test]
fn mimo_mtp_under_vllm_loads_sglangs_draft_weights() {
    let j = run_json(&mtp_scenario("mimo-mtp-vllm", "vllm"));
    assert_eq!(entry_bytes(&j, "draft weights"), 2 * 210_790_400);
}
