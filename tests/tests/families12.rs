//! families12 (issue #17): Ministral 3 (`Mistral3ForConditionalGeneration` with a `ministral3` text
//! tower) end to end. Both engines build the text tower in the Llama layout (SGLang
//! `models/ministral3.py`; vLLM `models/mistral3.py` through its registry) beside the Pixtral ViT
//! that Mistral-Small-3.x has. The weights are pinned by hand in `model/src/llm/tests_ministral3.rs`;
//! the releases that serve it in `sim/src/scenario/first_release.rs`.

use crate::common::*;

const MINISTRAL_SGLANG: &str = "examples/ministral-3-14b-sglang-rtx4090x4.toml";

/// The example rewritten by `edits` (old, new pairs), in a scratch file.
fn variant(name: &str, edits: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(scenario(MINISTRAL_SGLANG)).unwrap();
    for (old, new) in edits {
        assert!(text.contains(old), "{old}");
        text = text.replace(old, new);
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Ministral-3-14B at tp 4 under SGLang 0.5.8: the weights line is the hand count exactly
/// (3,513,797,632 parameters a rank × 2 B: text 3,376,829,440, Pixtral blocks sharded and the
/// projector replicated, 136,968,192), the KV cell 40 layers × 2 KV heads a rank × 2 × 128 × 2 B =
/// 40,960 B, and two all-reduces a layer × 40 + the vocab-parallel embedding's = 81.
#[test]
fn ministral3_14b_example_runs_under_sglang() {
    let j = run_json(&scenario(MINISTRAL_SGLANG));
    assert_eq!(entry_bytes(&j, "target weights"), 7_027_595_264);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 40_960);
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 81);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

/// Ministral-3-8B at tp 2 under vLLM 0.19.0: KV cell 34 layers × 4 KV heads a rank × 2 × 128 × 2 B =
/// 69,632 B; 2 × 34 + 1 = 69 all-reduces a pass. The sharded checkpoint share is a floor of vLLM's
/// weights line (which adds its RoPE cache and whatever of the projector it replicates): text
/// 2·65,536·4,096 + 34 · (8,192 + 3,072·4,096 + 4,096·2,048 + 3·7,168·4,096 = 109,060,096) + 4,096 =
/// 4,244,918,272 and the Pixtral blocks 24 · 8,390,656 + 602,112 + 1,024 = 201,978,880 →
/// 4,446,897,152 parameters × 2 B.
#[test]
fn ministral3_8b_runs_under_vllm() {
    let v = variant(
        "ministral3-8b-vllm",
        &[
            (
                "ministral-3-14b-instruct-2512-bf16",
                "ministral-3-8b-instruct-2512-bf16",
            ),
            ("name = \"sglang\"", "name = \"vllm\"\nversion = \"0.19.0\""),
            ("tp = 4", "tp = 2"),
            ("context_length = 32768", "max_model_len = 32768"),
        ],
    );
    let j = run_json(&v);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 69_632);
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 69);
    let w = entry_bytes(&j, "target weights");
    assert!(w >= 2 * 4_446_897_152, "{w}");
    assert!(w < 2 * 4_446_897_152 + (1 << 30), "{w}");
}

/// Releases before the model: SGLang 0.5.5 and vLLM 0.11.0 are refused on `engine.version`, naming
/// the engine's file and where the bound comes from.
#[test]
fn ministral3_is_refused_before_its_releases() {
    let s = variant(
        "ministral3-sglang-055",
        &[("name = \"sglang\"", "name = \"sglang\"\nversion = \"0.5.5\"")],
    );
    let out = tpsim(&["run", &s]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("SGLang 0.5.5 has no models/ministral3.py"),
        "{}",
        out.stderr
    );
    let v = variant(
        "ministral3-vllm-0110",
        &[
            ("name = \"sglang\"", "name = \"vllm\"\nversion = \"0.11.0\""),
            ("context_length = 32768", "max_model_len = 32768"),
        ],
    );
    let out = tpsim(&["run", &v]);
    assert_ne!(out.code, 0);
    assert!(
        out.stderr
            .contains("vLLM 0.11.0 has no support for the ministral3 text model"),
        "{}",
        out.stderr
    );
}
