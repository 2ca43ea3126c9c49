//! b200pg50 (issue #18): what SGLang settles on the B200 rows beyond the backend choice — the page
//! size under `trtllm_mha` (`scenario::attention_backend::sglang_trtllm_mha_settle`) and the overlap
//! scheduler it turns off for MambaRadixCache (`scenario::sglang_overlap`), through the bundled
//! validation scenarios of the SGLang cookbook's B200 runs.
//!
//! Source: the PyPI wheels' `srt/server_args.py` (0.5.2–0.5.9; 0.5.8.post1 byte-identical to 0.5.8).

use crate::common::*;

const GLM: &str = "validation/glm-4.6-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml";
const NEXT: &str = "validation/qwen3-next-80b-a3b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml";

/// GLM-4.6 bf16 at TP 8 under 0.5.6.post1 runs `trtllm_mha` with page 64 (warned, `None`: the page
/// was not given). Its KV cell: 92 layers × 8 KV heads / 8 ranks × 128 × 2 (K, V) × 2 B = 47,104 B a
/// token per rank. Since mem50 the float32 RoPE cache (202,752 positions × 64 rotary dims × 4 B =
/// 51,904,512 B) and the kept weight-load segments (171,538,816 B, `sglang_load_segment_overhead`)
/// come out of available, so the pool holds 1,566,842 tokens at page 1 (named `flashinfer`;
/// 1,571,585 before mem50: 223,443,328 B / 47,104 B = 4,743.6 tokens fewer) and floors to
/// 24,481 × 64 = 1,566,784 tokens at page 64 (1,566,842 = 24,481 × 64 + 58). Exact.
#[test]
fn glm46_trtllm_mha_runs_page_64() {
    let run = run_json(&scenario(GLM));
    assert!(warned(
        &run,
        "TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from None to 64."
    ));
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64(), Some(47_104));
    assert_eq!(run["memory"]["kv_tokens"].as_u64(), Some(1_566_784));
    let fi = run_json(&edited_variant(GLM, "b200pg50-glm-fi", |t| {
        t.replace("[engine]\n", "[engine]\nattention_backend = \"flashinfer\"\n")
    }));
    assert!(!warned(&fi, "MHA only supports page_size"));
    assert_eq!(fi["memory"]["kv_tokens"].as_u64(), Some(1_566_842));
}

/// Qwen3-Next under 0.5.6 with the radix cache on: SGLang turns the overlap scheduler off, so each
/// decode step waits for the scheduler's host work (engines/sglang.toml `host_overhead`, 300 µs,
/// assumed): at batch 1 the decode TPOT (`throughput.tpot_ms`: 3.475 → 3.775 ms) grows by 0.300 ms (± 1 µs of rounding) against the same run
/// with `disable_radix_cache = true`, where SGLang keeps the overlap (the ShareGPT-mean workload
/// shares no prefix, so the cache itself changes nothing).
#[test]
fn qwen3_next_056_runs_without_the_overlap_scheduler() {
    assert_overlap_off_costs_host_overhead(NEXT, "b200pg50-next-noradix", "", MAMBA_RADIX_OVERLAP_OFF);
}

/// 0.5.8 (and 0.5.8.post1) put the MambaRadixCache block under `Glm4MoeForCausalLM`: GLM-4.6 loses the
/// overlap scheduler there (the no_buffer text), Qwen3-Next keeps it (the Coder-Next 0.5.8 row).
#[test]
fn release_058_moves_the_rule_to_glm4_moe() {
    let glm = run_json(&edited_variant(GLM, "b200pg50-glm-058", |t| {
        t.replace("version = \"0.5.6.post1\"", "version = \"0.5.8\"")
    }));
    assert!(warned(
        &glm,
        "Disabling overlap schedule since MambaRadixCache no_buffer is not compatible with overlap schedule"
    ));
    let coder = run_json(&scenario(
        "validation/qwen3-coder-next-b200x2-sglang-0.5.8-tp2-1k1k-c1.toml",
    ));
    assert!(!warned(&coder, "Disabling overlap schedule"));
}
