//! Issue #17 (report fixes): the run report's header names the NCCL release the collectives use and
//! where it came from, and states speculative decoding in the engine's own terms — vLLM's
//! `num_speculative_tokens` (vLLM 0.11.0 `config/speculative.py`, `SpeculativeConfig`), SGLang's
//! `num_steps`/`topk`/`num_draft_tokens` (`server_args.py`).

use crate::common::{run_json, scenario, scratch, tpsim};

/// The vLLM EAGLE-3 example states `num_speculative_tokens = 3`: the header says so, in vLLM's words,
/// and none of SGLang's.
#[test]
fn vllm_speculation_in_vllm_terms() {
    let f = scenario("examples/llama-3.1-8b-eagle3-vllm-h100.toml");
    let j = run_json(&f);
    assert_eq!(
        j["scenario"]["speculative"],
        "eagle3 num_speculative_tokens=3 draft=llama-3.1-8b-eagle3"
    );
    let o = tpsim(&["run", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let spec = o
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("spec "))
        .expect("spec line");
    assert!(spec.contains("num_speculative_tokens=3"), "{spec}");
    assert!(
        !spec.contains("topk") && !spec.contains("draft_tokens") && !spec.contains("steps="),
        "{spec}"
    );
}

/// SGLang scenarios keep SGLang's terms (the seed's [speculative]: EAGLE-3, 3 steps, topk 1, 4 draft tokens).
#[test]
fn sglang_speculation_in_sglang_terms() {
    let j = run_json(&scenario("seed/baseline.toml"));
    let sp = j["scenario"]["speculative"].as_str().expect("speculative");
    assert!(
        sp.contains("steps=") && sp.contains("topk=") && sp.contains("draft_tokens="),
        "{sp}"
    );
}

/// The NCCL release and its source. Pins from model/src/nccl/versions.rs: vLLM 0.11.0 requires
/// torch==2.8.0 → nvidia-nccl-cu12==2.27.3; SGLang 0.5.8 torch==2.9.1 → 2.27.5. Without a version
/// the release is tpsim's current one (`tpsim::engine_release`): vLLM 0.19.0, torch 2.10.0 → 2.27.5,
/// said to be assumed.
#[test]
fn nccl_version_and_its_source() {
    let j = run_json(&scenario("examples/deepseek-v3-pp2-tp8-vllm-h200x16-2node.toml"));
    assert_eq!(j["scenario"]["nccl_version"], "2.27.3");
    assert_eq!(j["scenario"]["nccl_version_source"], "vllm 0.11.0's torch pin");
    let j = run_json(&scenario("examples/gemma-3-27b-rtx6000x2.toml"));
    assert_eq!(j["scenario"]["nccl_version"], "2.27.5");
    assert_eq!(j["scenario"]["nccl_version_source"], "sglang 0.5.8's torch pin");
    let j = run_json(&scenario("examples/llama-3.1-8b-eagle3-vllm-h100.toml"));
    assert_eq!(j["scenario"]["nccl_version"], "2.27.5");
    assert_eq!(
        j["scenario"]["nccl_version_source"],
        "vllm 0.19.0's torch pin (assumed: engine.version not set)"
    );
    // Stated explicitly: that release, from engine.nccl_version, on the text report too.
    let base = std::fs::read_to_string(scenario("seed/baseline.toml")).expect("seed");
    let text = base.replacen("[engine]\n", "[engine]\nnccl_version = \"2.26.6\"\n", 1);
    assert_ne!(text, base);
    let p = scratch("nccl").join("s.toml");
    std::fs::write(&p, text).expect("write");
    let o = tpsim(&["run", p.to_str().expect("utf-8")]);
    assert!(
        o.stdout.contains("  nccl      2.26.6 (engine.nccl_version)"),
        "{}{}",
        o.stdout,
        o.stderr
    );
}
