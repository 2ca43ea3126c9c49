//! families8 (issue #17): Command R / R+ (`CohereForCausalLM`) end to end — the presets load through
//! the bundled examples with the weights pinned by hand in `model/src/llm/tests_cohere.rs`, both
//! engines size the plain GQA pool over every layer, and the collectives are the two all-reduces of a
//! Llama layer (the parallel block still reduces after o_proj and after down_proj: SGLang 0.5.9 /
//! vLLM 0.19.0 `models/commandr.py`, both `RowParallelLinear` with the default `reduce_results`).

use crate::common::*;

const R_SGLANG: &str = "examples/command-r-sglang-rtx6000x2.toml";
const R_PLUS_VLLM: &str = "examples/command-r-plus-vllm-rtx6000x4.toml";

/// `example` rewritten by `edits` (old, new pairs), in a scratch file.
fn variant(example: &str, name: &str, edits: &[(&str, &str)]) -> String {
    let mut text = std::fs::read_to_string(scenario(example)).unwrap();
    for (old, new) in edits {
        assert!(text.contains(old), "{old}");
        text = text.replace(old, new);
    }
    let p = scratch(name).join("s.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// Command R 08-2024 at tp 2 under SGLang: per rank, vocab rows 128,000 × 8,192 = 1,048,576,000;
/// layer 8,192 + (32 + 2 × 4) × 128 × 8,192 = 41,943,040 + 8,192 × 4,096 = 33,554,432 + 3 × 12,288 ×
/// 8,192 = 301,989,888 → 377,495,552, × 40 = 15,099,822,080; final LayerNorm 8,192: 16,148,406,272
/// parameters × 2 B.
#[test]
fn command_r_example_runs_under_sglang_with_the_hand_count() {
    let j = run_json(&scenario(R_SGLANG));
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 16_148_406_272);
    // 40 layers × 4 KV heads a rank × 2 × 128 × 2 B.
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 81_920);
    // Two all-reduces a layer × 40 + the vocab-parallel embedding's.
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 81);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

/// Command R+ 08-2024 at tp 4 under vLLM: the KV cell 64 × 2 × 2 × 128 × 2 B = 65,536; the
/// checkpoint's share 25,953,267,712 parameters a rank (q/k LayerNorms included) is a floor of vLLM's
/// weights line, which adds its RoPE cache.
#[test]
fn command_r_plus_example_runs_under_vllm() {
    let j = run_json(&scenario(R_PLUS_VLLM));
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 65_536);
    let w = entry_bytes(&j, "target weights");
    assert!(w >= 2 * 25_953_267_712, "{w}");
    // The RoPE cache is far below 1 GiB: the rest is the checkpoint's share.
    assert!(w < 2 * 25_953_267_712 + (1 << 30), "{w}");
    assert_eq!(j["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 129);
    assert!(f(&j["throughput"]["tpot_ms"]) > 0.0);
}

/// At tp 8 each rank keeps one of the 8 KV heads (and one k-norm row): the cell halves to 32,768.
/// Under SGLang the weights are the hand count at tp 8, 12,977,033,216 parameters.
#[test]
fn command_r_plus_at_tp8_under_sglang() {
    let p = variant(
        R_PLUS_VLLM,
        "command-r-plus-tp8-sgl",
        &[
            ("name = \"vllm\"", "name = \"sglang\"\nversion = \"0.5.8\""),
            ("tp = 4", "tp = 8"),
            ("max_model_len = 32768", "context_length = 32768"),
            ("rtx-pro-6000-4x-turin-same-numa", "rtx-pro-6000-8x-1switch"),
        ],
    );
    let j = run_json(&p);
    assert_eq!(j["memory"]["cell_size_bytes"].as_u64().unwrap(), 32_768);
    assert_eq!(entry_bytes(&j, "target weights"), 2 * 12_977_033_216);
}

/// 193 GiB of bf16 weights (the hand count at tp 1, 103,810,674,688 × 2 B = 193.36 GiB, plus vLLM's
/// RoPE cache) do not fit one 96 GB card: the memory verdict says so at weight loading.
#[test]
fn command_r_plus_at_tp1_does_not_fit() {
    let p = variant(R_PLUS_VLLM, "command-r-plus-tp1", &[("tp = 4", "tp = 1")]);
    let o = tpsim(&["memory", &p]);
    assert!(
        o.stdout.contains("Verdict: OOM at weight loading"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("193.39 GiB per rank"), "{}", o.stdout);
}
