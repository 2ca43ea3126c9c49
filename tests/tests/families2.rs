//! families2 (issue #17): Ling 2.0 (`BailingMoeV2ForCausalLM`) and the Granite-4.0-H-Small / -Micro
//! presets end to end — the presets load through a scenario with the weights and cells pinned by hand
//! in `model/src/llm/tests_families.rs`, vLLM's RoPE cache is built for the rotated half of the
//! head, and the engines' refusals reach the user with exit 2.

use crate::common::*;

#[test]
fn ling_mini_runs_under_both_engines_with_the_same_weights() {
    let sg = run_json(&scenario_for(
        "ling-sglang",
        "ling-mini-2.0",
        "sglang",
        1,
        "h100-sxm-1x",
    ));
    let vl = run_json(&scenario_for(
        "ling-vllm",
        "ling-mini-2.0",
        "vllm",
        1,
        "h100-sxm-1x",
    ));
    // 16,245,677,056 parameters × 2 B + the fp32 routers (19 × 256 × 2,048 × 4 B = 39,845,888) and
    // expert biases (19 × 256 × 4 B = 19,456): `llm::tests_families::ling_mini_2_0_parameters_by_hand`.
    let by_hand = 32_491_354_112 + 39_845_888 + 19_456;
    assert_eq!(entry_bytes(&sg, "target weights"), by_hand);
    // vLLM adds its RoPE cos/sin cache, built for int(128 × 0.5) = 64 rotary dims (`get_rope`):
    // 32,768 positions × 64 × 2 B = 4,194,304 B, and the caching allocator's block rounding (vrows4),
    // under 1 MiB here. A cache of the full head (8 MiB) would fail the upper bound.
    let extra = entry_bytes(&vl, "target weights") - by_hand;
    assert!((4_194_304..4_194_304 + (1 << 20)).contains(&extra), "{extra}");
    for j in [&sg, &vl] {
        // 20 layers × 4 KV heads × 2 × 128 × 2 B.
        assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 40_960);
        assert_eq!(j["memory"]["verdict"], "ok");
    }
}

#[test]
fn ling_flash_at_tp_3_is_refused_with_exit_2() {
    // 32 attention heads do not split over 3 ranks (both engines assert heads % tp == 0).
    let o = tpsim(&[
        "run",
        &scenario_for("ling-flash-tp3", "ling-flash-2.0", "vllm", 3, "h200-8x-nvlink"),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("32 attention heads are not divisible by tp 3"),
        "{}",
        o.stderr
    );
}

#[test]
fn bailing_activation_other_than_silu_is_refused_with_sglangs_text() {
    let dir = scratch("ling-gelu");
    let mut c: serde_json::Value = serde_json::from_str(
        &std::fs::read_to_string(format!(
            "{}/../scenarios/models/ling-mini-2.0/config.json",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap(),
    )
    .unwrap();
    c["hidden_act"] = "gelu".into();
    std::fs::write(dir.join("config.json"), c.to_string()).unwrap();
    std::fs::write(dir.join("quant.toml"), "dtype = \"bf16\"\n").unwrap();
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"{}\"\n\
         [engine]\nname = \"sglang\"\ntp = 1\n[workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n",
        dir.display()
    );
    let p = dir.join("s.toml");
    std::fs::write(&p, text).unwrap();
    let o = tpsim(&["validate", &p.display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("hidden_act") && o.stderr.contains("Only silu is supported"),
        "{}",
        o.stderr
    );
}

#[test]
fn granite_4_0_h_small_and_micro_load_with_their_hand_counts() {
    // `llm::tests_families`: H-Small 32,207,337,984 parameters × 2 B + A in fp32 (36 × 128 × 2 B);
    // 16,384 B of KV per token. H-Micro 3,191,396,096 × 2 B + 36 × 64 × 2 B; 8,192 B per token.
    // release51: SGLang serves Granite-4.0-H from 0.5.9 (`models/granitemoehybrid.py`), after the
    // default release 0.5.8, so the scenarios name it.
    let at_059 = |p: String| {
        let t = std::fs::read_to_string(&p).unwrap();
        // 0.5.9 lies between tpsim's late-2025 and spring-2026 memory eras: the example's era.
        let t = t.replace("name = \"sglang\"\n", "name = \"sglang\"\nversion = \"0.5.9\"\n")
            + "[engine.costs]\nera = \"late-2025\"\n";
        std::fs::write(&p, t).unwrap();
        p
    };
    let j = run_json(&at_059(scenario_for(
        "h-small",
        "granite-4.0-h-small",
        "sglang",
        2,
        "h100-pcie-2x-nvlink-bridge",
    )));
    // tp 2 is checked through the cell: 8 KV heads → 4 per rank.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 8_192);
    let j = run_json(&at_059(scenario_for(
        "h-micro",
        "granite-4.0-h-micro",
        "sglang",
        1,
        "h100-sxm-1x",
    )));
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 3_191_396_096 + 36 * 64 * 2);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 8_192);
}

#[test]
fn command_r7b_runs_under_both_engines() {
    // `llm::tests_families::command_r7b_parameters_by_hand`: 8,028,033,024 parameters × 2 B.
    let by_hand = 2 * 8_028_033_024;
    let sg = run_json(&scenario_for(
        "cr7b-sglang",
        "command-r7b-12-2024",
        "sglang",
        1,
        "h100-sxm-1x",
    ));
    assert_eq!(entry_bytes(&sg, "target weights"), by_hand);
    let vl = run_json(&scenario("examples/command-r7b-vllm-rtx4090.toml"));
    // vLLM adds its RoPE cos/sin cache (`get_rope` builds one for all layers): 8,192 positions ×
    // 128 × 2 B = 2,097,152 B; the allocator's blocks add nothing here.
    assert_eq!(entry_bytes(&vl, "target weights"), by_hand + 2_097_152);
    for j in [&sg, &vl] {
        // 32 layers × 8 KV heads × 2 × 128 × 2 B.
        assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 131_072);
        assert_eq!(j["memory"]["verdict"], "ok");
    }
}
