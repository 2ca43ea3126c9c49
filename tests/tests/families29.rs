//! families29 (issue #17): DeepSeek-V4 (`DeepseekV4ForCausalLM`, `tpsim_model::llm::deepseek_v4`)
//! end to end. tpsim reads the published DeepSeek-V4-Flash config (tests/data/models/deepseek-v4-flash,
//! byte-identical to deepseek-ai/DeepSeek-V4-Flash-0731's) and counts its parameters (pinned by hand
//! in `model/src/llm/tests_families29.rs`: 284,332,240,471, the card's 284B). dsv4run55: lowered; SGLang
//! gives its memory plan, `run` and vLLM still refuse it with exit 2 and no throughput.

use crate::common::*;

/// A scenario of the Flash config (bf16 as `[model] config` reads it) on 8× H200 under `engine`.
fn flash_scenario(name: &str, engine: &str, version: &str) -> String {
    let config = data_path("models/deepseek-v4-flash/config.json");
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\nconfig = \"{}\"\n[engine]\nname = \
         \"{engine}\"\nversion = \"{version}\"\ntp = 8\n[workload]\nconcurrency = 8\nprompt_len = 1024\n\
         output_len = 64\n",
        config.display()
    );
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// dsv4run55: lowered now. Under SGLang 0.5.23 `validate` and `memory` answer (the plan: tests in the
/// dsv4run55 suite) and `run` refuses with exit 2, naming the decode step it does not model; under vLLM
/// 0.34.0 all three refuse with exit 2, naming vLLM and the SGLang releases modelled. No throughput.
#[test]
fn deepseek_v4_flash_refused_as_not_modelled() {
    let f = flash_scenario("dsv4-sglang", "sglang", "0.5.23");
    for (cmd, code) in [("validate", 0), ("memory", 0), ("run", 2)] {
        let o = tpsim(&[cmd, &f]);
        assert_eq!(o.code, code, "{cmd}: {} {}", o.stdout, o.stderr);
        assert!(!o.stdout.contains("tok/s"), "{}", o.stdout);
    }
    let o = tpsim(&["run", &f]);
    assert!(
        o.stderr
            .contains("tpsim does not model DeepSeek-V4's decode step yet"),
        "{}",
        o.stderr
    );
    let f = flash_scenario("dsv4-vllm", "vllm", "0.34.0");
    for cmd in ["run", "memory", "validate"] {
        let o = tpsim(&[cmd, &f]);
        assert_eq!(o.code, 2, "{cmd} vllm: {} {}", o.stdout, o.stderr);
        for part in [
            "DeepSeek-V4 under vLLM (from 0.20.0) is not modelled",
            "use sglang, 0.5.12 - 0.5.23",
        ] {
            assert!(o.stderr.contains(part), "{cmd}: {part} not in {}", o.stderr);
        }
    }
}

/// A config that breaks an engine rule is refused for that rule, not as "not modelled": SGLang
/// 0.5.12 `MQALayer.__init__` asserts a compress ratio in {0, 4, 128} and one KV head.
#[test]
fn deepseek_v4_bad_config_names_its_key() {
    let src = std::fs::read_to_string(data_path("models/deepseek-v4-flash/config.json")).expect("read");
    for (from, to, key) in [
        (
            "\"num_key_value_heads\": 1",
            "\"num_key_value_heads\": 8",
            "num_key_value_heads",
        ),
        ("[0, 0, 4, 128,", "[0, 0, 2, 128,", "compress_ratios"),
    ] {
        assert!(src.contains(from), "{from}");
        let dir = scratch(&format!("dsv4-bad-{key}"));
        let cfg = dir.join("config.json");
        std::fs::write(&cfg, src.replacen(from, to, 1)).expect("write");
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\nconfig = \"{}\"\n[engine]\nname = \
             \"sglang\"\ntp = 8\n[workload]\nconcurrency = 8\nprompt_len = 1024\noutput_len = 64\n",
            cfg.display()
        );
        let f = dir.join("s.toml");
        std::fs::write(&f, text).expect("write");
        let o = tpsim(&["run", &f.display().to_string()]);
        assert_eq!(o.code, 2, "{}", o.stderr);
        assert!(o.stderr.contains(&format!("`{key}`")), "{key}: {}", o.stderr);
        assert!(!o.stderr.contains("is not modelled"), "{}", o.stderr);
    }
}
