//! families5 (issue #17): EXAONE 4 (`Exaone4ForCausalLM`) end to end — the presets load through a
//! scenario with the weights pinned by hand in `model/src/llm/tests_exaone4.rs`, SGLang 0.5.9's
//! start-up rules for it (no hybrid SWA pool, an attention backend required with sliding layers)
//! apply, and SGLang before 0.5.9 (no `models/exaone4.py`) is refused with exit 2.

use crate::common::*;

/// An EXAONE 4 scenario under SGLang at `version`, with `extra` engine keys.
fn sglang(name: &str, preset: &str, tp: u32, version: &str, extra: &str) -> String {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"rtx-pro-6000-8x-1switch\"\n[model]\npreset = \"{preset}\"\n\
         [engine]\nname = \"sglang\"\ntp = {tp}\nversion = \"{version}\"\n{extra}\n[engine.costs]\nera = \"spring-2026\"\n\
         [workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n"
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

#[test]
fn exaone4_example_runs_under_vllm() {
    let j = run_json(&scenario("examples/exaone-4.0-32b-vllm-rtxpro6000x8.toml"));
    // 64 layers × 1 KV head per rank (8 over tp 8) × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 32_768);
    // Two allreduces a layer (after o_proj and down_proj) × 64 + the vocab-parallel embedding's.
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 129);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

#[test]
fn exaone4_32b_under_sglang_0_5_9_loads_the_hand_count_in_the_plain_pool() {
    let j = run_json(&sglang(
        "exaone-32b",
        "exaone-4.0-32b",
        4,
        "0.5.9",
        "attention_backend = \"triton\"",
    ));
    // 8,001,311,744 parameters × 2 B per rank at tp 4 (`tests_exaone4::exaone4_32b_parameters_by_hand`).
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 8_001_311_744);
    // The plain pool: every layer's KV, 64 × 2 KV heads × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    let w = j["memory"]["warnings"].to_string();
    assert!(
        w.contains("Disabling hybrid SWA memory for Exaone4ForCausalLM"),
        "{w}"
    );
    // The tied 1.2B has no sliding layer and needs no backend: 1,279,391,488 parameters × 2 B.
    let small = run_json(&sglang("exaone-1b", "exaone-4.0-1.2b", 1, "0.5.9", ""));
    assert_eq!(entry_bytes(&small, "target weights"), 2 * 1_279_391_488);
    assert_eq!(small["memory"]["cell_size_bytes"].as_u64().unwrap(), 61_440);
}

/// vLLM registers Exaone4ForCausalLM from 0.10.0 (0.9.2's registry lacks it).
#[test]
fn exaone4_under_vllm_before_0_10_is_refused() {
    let text = std::fs::read_to_string(scenario("examples/exaone-4.0-32b-vllm-rtxpro6000x8.toml"))
        .unwrap()
        .replace("tp = 8\n", "tp = 8\nversion = \"0.9.2\"\n");
    let p = scratch("exaone-vllm-092").join("s.toml");
    std::fs::write(&p, text).unwrap();
    let o = tpsim(&["run", &p.display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("vLLM 0.9.2 has no models/exaone4.py"),
        "{}",
        o.stderr
    );
}

#[test]
fn exaone4_under_sglang_is_refused_before_0_5_9_and_without_a_backend() {
    for (name, version, extra, says) in [
        (
            "exaone-058",
            "0.5.8",
            "attention_backend = \"triton\"",
            "no models/exaone4.py",
        ),
        ("exaone-none", "0.5.9", "", "but got None"),
        (
            "exaone-fi",
            "0.5.9",
            "attention_backend = \"flashinfer\"",
            "but got flashinfer",
        ),
    ] {
        let o = tpsim(&["run", &sglang(name, "exaone-4.0-32b", 4, version, extra)]);
        assert_eq!(o.code, 2, "{name}: {}", o.stdout);
        assert!(o.stderr.contains(says), "{name}: {}", o.stderr);
    }
}
