//! families29 (issue #17): DeepSeek-V4 (`DeepseekV4ForCausalLM`, `tpsim_model::llm::deepseek_v4`)
//! end to end. tpsim reads the published DeepSeek-V4-Flash config (tests/data/models/deepseek-v4-flash,
//! byte-identical to deepseek-ai/DeepSeek-V4-Flash-0731's) and counts its parameters (pinned by hand
//! in `model/src/llm/tests_families29.rs`: 284,332,240,471, the card's 284B), then refuses it under
//! both engines as not modelled — its compressed KV pools and mHC kernels are not — with exit 2 and no
//! throughput or memory plan.

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

/// `run`, `memory` and `validate` all refuse with exit 2 (bad input: the model, not the engine's
/// verdict), naming the architecture, what was read (43 layers: 2 window-only, 21 ratio-4 with an
/// indexer, 20 ratio-128; 284,332,240,471 parameters) and the first releases read from the wheels'
/// file lists (SGLang 0.5.12: 0.5.11 has no srt/models/deepseek_v4.py; vLLM 0.20.0: 0.19.0 and 0.19.1
/// have no model_executor/models/deepseek_v4.py). The same text under SGLang 0.5.23 and vLLM 0.34.0.
#[test]
fn deepseek_v4_flash_refused_as_not_modelled() {
    for (engine, version) in [("sglang", "0.5.23"), ("vllm", "0.34.0")] {
        let f = flash_scenario(&format!("dsv4-{engine}"), engine, version);
        for cmd in ["run", "memory", "validate"] {
            let o = tpsim(&[cmd, &f]);
            assert_eq!(o.code, 2, "{cmd} {engine}: {} {}", o.stdout, o.stderr);
            assert!(o.stdout.is_empty() || !o.stdout.contains("tok/s"), "{}", o.stdout);
            for part in [
                "architecture `DeepseekV4ForCausalLM` is not modelled",
                "43 layers (2 sliding-window only, 21 CSA with compress ratio 4 and an indexer, 20 HCA",
                "284332240471 parameters",
                "SGLang serves it from 0.5.12",
                "vLLM from 0.20.0",
            ] {
                assert!(
                    o.stderr.contains(part),
                    "{cmd} {engine}: {part} not in {}",
                    o.stderr
                );
            }
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
