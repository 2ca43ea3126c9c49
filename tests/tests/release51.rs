//! Issue #17 (release51): the first SGLang / vLLM release of each model class that had no row in
//! `sim/src/scenario/first_release.rs` (its module doc lists the wheels read and each bound). Every
//! row below loads a bundled model preset under the engine at the release before the first one (the
//! last wheel read without the file or registry entry) and requires the refusal on `engine.version`
//! naming the engine's file and the first release, then at the first release and requires it loads.

use tpsim::scenario::load_str;

/// A scenario for the bundled model `preset` under `engine` at `version` on eight H200s, TP 8 (TP 4
/// where 8 does not divide the model: Granite-4.0-H-Tiny's 12 attention heads, MiniMax-M2.5's 1,536-wide
/// experts over fp8 blocks of 128, 1536 / 8 = 192); SGLang
/// 0.5.9, whose memory era tpsim does not place, names the late-2025 era (as the bundled 0.5.9 rows do).
fn text(preset: &str, engine: &str, version: &str) -> String {
    let tp = if matches!(preset, "granite-4.0-h-tiny" | "minimax-m2.5") {
        4
    } else {
        8
    };
    let era = if version == "0.5.9" {
        "[engine.costs]\nera = \"late-2025\"\n"
    } else {
        ""
    };
    format!(
        "seed = 1\n[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"{preset}\"\n[engine]\n\
         name = \"{engine}\"\nversion = \"{version}\"\ntp = {tp}\n[workload]\nconcurrency = 4\nprompt_len = 256\n\
         output_len = 64\n{era}"
    )
}

fn load(preset: &str, engine: &str, version: &str) -> Result<(), String> {
    load_str(
        &text(preset, engine, version),
        std::path::Path::new("release51.toml"),
    )
    .map(|_| ())
    .map_err(|e| e.to_string())
}

/// (preset, engine, last release without the class, first release with it, the file or entry the
/// refusal names, the clause saying where the bound comes from). Each pair of releases is adjacent on
/// PyPI and both wheels were read (first_release's module doc).
const ROWS: &[(&str, &str, &str, &str, &str, &str)] = &[
    // SGLang 0.5.8.post1 has no sglang/srt/models/granitemoehybrid.py, 0.5.9 has it.
    (
        "granite-4.0-h-tiny",
        "sglang",
        "0.5.8.post1",
        "0.5.9",
        "models/granitemoehybrid.py",
        "SGLang ships it from 0.5.9",
    ),
    // SGLang 0.5.3 has no models/nemotron_h.py, 0.5.3.post1 has it.
    (
        "nemotron-nano-9b-v2",
        "sglang",
        "0.5.3",
        "0.5.3.post1",
        "models/nemotron_h.py",
        "SGLang ships it from 0.5.3.post1",
    ),
    // SGLang 0.5.1.post3 has no models/qwen3_next.py, 0.5.2 has it.
    (
        "qwen3-next-80b-a3b",
        "sglang",
        "0.5.1.post3",
        "0.5.2",
        "models/qwen3_next.py",
        "SGLang ships it from 0.5.2",
    ),
    // SGLang 0.5.4 has no models/minimax_m2.py, 0.5.4.post1 has it; vLLM 0.11.0's registry.py has no
    // "MiniMaxM2ForCausalLM", 0.11.1's has.
    (
        "minimax-m2.5",
        "sglang",
        "0.5.4",
        "0.5.4.post1",
        "models/minimax_m2.py",
        "SGLang ships it from 0.5.4.post1",
    ),
    (
        "minimax-m2.5",
        "vllm",
        "0.11.0",
        "0.11.1",
        "registry entry for MiniMaxM2ForCausalLM",
        "vLLM registers it from 0.11.1",
    ),
    // vLLM 0.14.1's registry has no "KimiK25ForConditionalGeneration", 0.15.0's has.
    (
        "kimi-k2.5",
        "vllm",
        "0.14.1",
        "0.15.0",
        "registry entry for KimiK25ForConditionalGeneration",
        "vLLM registers it from 0.15.0",
    ),
    // Qwen3-VL dense and MoE: SGLang 0.5.2 has neither models/qwen3_vl.py nor qwen3_vl_moe.py, 0.5.3
    // both; vLLM 0.10.2's registry neither entry, 0.11.0's both.
    (
        "qwen3-vl-8b-instruct",
        "sglang",
        "0.5.2",
        "0.5.3",
        "models/qwen3_vl.py",
        "SGLang ships them from 0.5.3",
    ),
    (
        "qwen3-vl-30b-a3b-instruct",
        "sglang",
        "0.5.2",
        "0.5.3",
        "models/qwen3_vl.py",
        "SGLang ships them from 0.5.3",
    ),
    (
        "qwen3-vl-8b-instruct",
        "vllm",
        "0.10.2",
        "0.11.0",
        "Qwen3VLForConditionalGeneration",
        "vLLM registers them from 0.11.0",
    ),
    (
        "qwen3-vl-30b-a3b-instruct",
        "vllm",
        "0.10.2",
        "0.11.0",
        "Qwen3VLMoeForConditionalGeneration",
        "vLLM registers them from 0.11.0",
    ),
    // DeepSeek-V3.2: SGLang 0.5.2's models/deepseek_v2.py EntryClass lacks DeepseekV32ForCausalLM,
    // 0.5.3's has it; vLLM 0.10.2's registry lacks the entry, 0.11.0's has it.
    (
        "deepseek-v3.2",
        "sglang",
        "0.5.2",
        "0.5.3",
        "DeepseekV32ForCausalLM in models/deepseek_v2.py",
        "SGLang registers it from 0.5.3",
    ),
    (
        "deepseek-v3.2",
        "vllm",
        "0.10.2",
        "0.11.0",
        "registry entry for DeepseekV32ForCausalLM",
        "vLLM registers it from 0.11.0",
    ),
    // GLM-5: vLLM 0.15.1's registry lacks "GlmMoeDsaForCausalLM", 0.16.0's has it.
    (
        "glm-5",
        "vllm",
        "0.15.1",
        "0.16.0",
        "registry entry for GlmMoeDsaForCausalLM",
        "vLLM registers it from 0.16.0",
    ),
    // Ling 2.0: SGLang 0.5.2's models/bailing_moe.py lacks BailingMoeV2ForCausalLM, 0.5.3's has it;
    // vLLM 0.10.2's registry lacks the entry, 0.11.0's has it.
    (
        "ling-mini-2.0",
        "sglang",
        "0.5.2",
        "0.5.3",
        "BailingMoeV2ForCausalLM in models/bailing_moe.py",
        "SGLang registers it from 0.5.3",
    ),
    (
        "ling-mini-2.0",
        "vllm",
        "0.10.2",
        "0.11.0",
        "registry entry for BailingMoeV2ForCausalLM",
        "vLLM registers it from 0.11.0",
    ),
    // Llama 4: SGLang 0.4.4.post4 has no models/llama4.py, 0.4.5 has it.
    (
        "llama-4-scout",
        "sglang",
        "0.4.4.post4",
        "0.4.5",
        "models/llama4.py",
        "SGLang ships it from 0.4.5",
    ),
    // gpt-oss: SGLang 0.4.10.post2 has no models/gpt_oss.py, 0.5.0rc0 (counted as 0.5.0) has it.
    (
        "gpt-oss-20b",
        "sglang",
        "0.4.10.post2",
        "0.5.0rc0",
        "models/gpt_oss.py",
        "SGLang ships it from 0.5.0rc0",
    ),
    // GLM-4.5 / 4.6: SGLang 0.4.9.post4 has no models/glm4_moe.py, 0.4.9.post5 has it.
    (
        "glm-4.6",
        "sglang",
        "0.4.9.post4",
        "0.4.9.post5",
        "models/glm4_moe.py",
        "SGLang ships it from 0.4.9.post5",
    ),
];

#[test]
fn each_new_row_refuses_the_release_before_and_accepts_the_first() {
    let mut failures = Vec::new();
    for &(preset, engine, before, first, file, since) in ROWS {
        match load(preset, engine, before) {
            Ok(()) => failures.push(format!("{preset} {engine} {before} loads")),
            Err(e) => {
                let wanted = [
                    "key `engine.version`".to_string(),
                    format!(" {before} has no "),
                    file.to_string(),
                    since.to_string(),
                    "(set a later engine.version)".to_string(),
                ];
                if let Some(w) = wanted.iter().find(|w| !e.contains(w.as_str())) {
                    failures.push(format!("{preset} {engine} {before}: no {w:?} in {e}"));
                }
            }
        }
        if let Err(e) = load(preset, engine, first) {
            failures.push(format!("{preset} {engine} {first} refused: {e}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Seed-OSS: no SGLang wheel read (up to 0.5.23) names SeedOssForCausalLM, so SGLang is refused on
/// `engine.name` with the Transformers fallback line at any release; vLLM (present in 0.10.2, the oldest
/// release read) serves it.
#[test]
fn seed_oss_is_refused_under_sglang_at_any_release() {
    for v in ["0.5.8", "0.5.9"] {
        let e = load("seed-oss-36b-instruct", "sglang", v).unwrap_err();
        assert!(e.contains("key `engine.name`"), "{e}");
        assert!(
            e.contains("\"SeedOssForCausalLM has no SGLang implementation, falling back to Transformers implementation\""),
            "{e}"
        );
        assert!(e.contains("no SGLang release up to 0.5.23 ships one"), "{e}");
    }
    assert!(load("seed-oss-36b-instruct", "vllm", "0.10.2").is_ok());
}

/// The bundled Granite-4.0-H-Tiny SGLang example names 0.5.9 (the first release with
/// granitemoehybrid.py); without it the current default, 0.5.8, is refused.
#[test]
fn granite_example_names_the_first_release() {
    let t = std::fs::read_to_string(crate::common::scenario(
        "examples/granite-4.0-h-tiny-sglang-rtx4090x2.toml",
    ))
    .unwrap();
    assert!(t.contains("version = \"0.5.9\""));
    let e = load("granite-4.0-h-tiny", "sglang", "0.5.8").unwrap_err();
    assert!(
        e.contains("SGLang 0.5.8 has no models/granitemoehybrid.py"),
        "{e}"
    );
}
