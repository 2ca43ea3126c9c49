//! families15 (issue #17): dots.llm1 (`Dots1ForCausalLM`) end to end. The weights are pinned by hand in
//! `model/src/llm/tests_dots1.rs` (142,774,381,696 parameters, 14,016,588,928 active: the card's
//! "142B total / 14B activated"); here the example runs under vLLM, SGLang (no release has a
//! `dots1.py`) is refused on `engine.name`, and vLLM before 0.9.2 on `engine.version`.

use crate::common::*;

const DOTS1_VLLM: &str = "examples/dots.llm1-vllm-l40sx8.toml";

/// The example with `[engine]` rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    let text = edit(std::fs::read_to_string(scenario(DOTS1_VLLM)).unwrap());
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// dots.llm1 at tp 8: the hand count, 17,875,242,496 bf16 parameters a rank × 2 B + 7,808 fp32
/// `e_score_correction_bias` values × 4 B = 35,750,516,224 B, is a floor of vLLM's weights line (which
/// adds its RoPE cache, under 1 GiB); the cell 62 layers × 4 KV heads a rank × 2 × 128 × 2 B =
/// 126,976; two all-reduces a layer (after attention, after the MLP / MoE with its shared expert)
/// × 62 + the embedding's = 125.
#[test]
fn dots1_example_runs_under_vllm() {
    let vl = run_json(&scenario(DOTS1_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 35_750_516_224, "{w}");
    assert!(w < 35_750_516_224 + (1 << 30), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 126_976);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 125);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);
}

/// No SGLang release tpsim models ships `models/dots1.py`: the scenario is refused on `engine.name`,
/// quoting the Transformers fallback SGLang would take.
#[test]
fn dots1_under_sglang_is_refused() {
    let p = variant("dots1-sglang", |t| {
        t.replace("name = \"vllm\"", "name = \"sglang\"")
            .replace("max_model_len = 32768", "context_length = 32768")
    });
    let out = tpsim(&["run", &p]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.name"), "{}", out.stderr);
    assert!(out.stderr.contains("has no models/dots1.py"), "{}", out.stderr);
    assert!(
        out.stderr
            .contains("Dots1ForCausalLM has no SGLang implementation"),
        "{}",
        out.stderr
    );
}

/// vLLM registers the architecture from 0.9.2: 0.9.1 is refused on `engine.version`; 0.9.2 is
/// accepted (the example's box then misses the KV profile by about half a GiB under 0.9.2's sorting
/// sampler, a verdict, not a refusal).
#[test]
fn dots1_vllm_before_its_first_release_is_refused() {
    let with = |v: &str| {
        variant(&format!("dots1-vllm-{v}"), |t| {
            t.replace("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"))
        })
    };
    let out = tpsim(&["run", &with("0.9.1")]);
    assert_ne!(out.code, 0, "{}", out.stdout);
    assert!(out.stderr.contains("engine.version"), "{}", out.stderr);
    assert!(
        out.stderr.contains("vLLM 0.9.1 has no models/dots1.py"),
        "{}",
        out.stderr
    );
    let ok = tpsim(&["run", &with("0.9.2")]);
    assert!(!ok.stderr.contains("dots1.py"), "{}", ok.stderr);
    assert!(ok.stdout.contains("vLLM 0.9.2 (engine.version)"), "{}", ok.stdout);
}
