//! families3 (issue #17): OLMo-2 (`Olmo2ForCausalLM`) and OLMoE (`OlmoeForCausalLM`) end to end —
//! the presets load through a scenario with the weights pinned by hand in
//! `model/src/llm/tests_olmo2.rs`, the per-layer q/k all-gathers reach the decode step, and SGLang's
//! OLMoE at tp > 1 is refused with exit 2.

use crate::common::*;

#[test]
fn olmo2_example_gathers_q_and_k_in_every_layer() {
    let j = run_json(&scenario("examples/olmo-2-1b-sglang-rtx4090x2.toml"));
    // 742,524,928 parameters × 2 B per rank at tp 2 (`tests_olmo2::olmo2_1b_parameters_by_hand`).
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 742_524_928);
    // 16 layers × 8 KV heads × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    // The decode step spends time in the q/k all-gathers (absent from a Llama-layout model).
    let ag = f(&j["breakdown_by_op"]["allgather"]);
    assert!(ag > 0.0, "{ag}");
    let tp1 = run_json(&scenario_for(
        "olmo2-tp1",
        "olmo-2-0425-1b",
        "sglang",
        1,
        "rtx-4090-1x",
    ));
    assert!(
        tp1["breakdown_by_op"]
            .get("allgather")
            .is_none_or(|v| f(v) == 0.0)
    );
}

#[test]
fn olmoe_runs_under_vllm_at_tp_2_and_sglang_at_tp_1() {
    let vl = run_json(&scenario_for(
        "olmoe-vllm",
        "olmoe-1b-7b-0924",
        "vllm",
        2,
        "rtx-4090-2x-no-p2p",
    ));
    let sg = run_json(&scenario_for(
        "olmoe-sglang",
        "olmoe-1b-7b-0924",
        "sglang",
        1,
        "h100-sxm-1x",
    ));
    // SGLang loads exactly the hand count (tp 1: 6,919,161,856 × 2 B); vLLM's tp-2 shard is
    // 3,460,696,064 × 2 B plus its RoPE cache and allocator rounding (under 8 MiB here).
    assert_eq!(entry_bytes(&sg, "target weights"), 2 * 6_919_161_856);
    let extra = entry_bytes(&vl, "target weights") - 2 * 3_460_696_064;
    assert!(extra < 8 << 20, "{extra}");
    assert!(f(&vl["breakdown_by_op"]["allgather"]) > 0.0);
}

#[test]
fn olmoe_under_sglang_at_tp_2_is_refused_with_exit_2() {
    let o = tpsim(&[
        "run",
        &scenario_for(
            "olmoe-sglang-tp2",
            "olmoe-1b-7b-0924",
            "sglang",
            2,
            "rtx-4090-2x-no-p2p",
        ),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("engine.tp") && o.stderr.contains("olmoe.py"),
        "{}",
        o.stderr
    );
}
