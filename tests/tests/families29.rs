//! families29 (issue #17): DeepSeek-V4 (`DeepseekV4ForCausalLM`, `tpsim_model::llm::deepseek_v4`)
//! end to end. tpsim reads the published DeepSeek-V4-Flash config (tests/data/models/deepseek-v4-flash,
//! byte-identical to deepseek-ai/DeepSeek-V4-Flash-0731's) and counts its parameters (pinned by hand
//! in `model/src/llm/tests_families29.rs`: 284,332,240,471, the card's 284B). dsv4run55: lowered; SGLang
//! gives its memory plan and (dsv4dec55) a throughput flagged as an extrapolation; vLLM still refuses it
//! with exit 2 and no throughput.

use crate::common::*;

/// dsv4run55: lowered now; dsv4dec55: its decode step too. Under SGLang 0.5.23 `validate`, `memory`
/// and `run` answer (exit 0; the plan and step are pinned in the dsv4run55 and dsv4dec55 suites) and
/// `run`'s throughput comes with the warning that the step is an extrapolation; under vLLM 0.34.0 all
/// three refuse with exit 2, naming vLLM and the SGLang releases modelled, and print no throughput.
#[test]
fn deepseek_v4_flash_runs_under_sglang_and_vllm_is_refused() {
    let f = config_scenario(
        "dsv4-sglang",
        &data_path("models/deepseek-v4-flash/config.json"),
        "sglang",
        "0.5.23",
    );
    for cmd in ["validate", "memory", "run"] {
        let o = tpsim(&[cmd, &f]);
        assert_eq!(o.code, 0, "{cmd}: {} {}", o.stdout, o.stderr);
        assert!(
            o.stderr.contains("DeepSeek-V4's decode step is an extrapolation"),
            "{cmd}: {}",
            o.stderr
        );
    }
    let o = tpsim(&["run", &f]);
    assert!(o.stdout.contains("tok/s"), "{}", o.stdout);
    let f = config_scenario(
        "dsv4-vllm",
        &data_path("models/deepseek-v4-flash/config.json"),
        "vllm",
        "0.34.0",
    );
    for cmd in ["run", "memory", "validate"] {
        let o = tpsim(&[cmd, &f]);
        assert_eq!(o.code, 2, "{cmd} vllm: {} {}", o.stdout, o.stderr);
        assert!(!o.stdout.contains("tok/s"), "{}", o.stdout);
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
