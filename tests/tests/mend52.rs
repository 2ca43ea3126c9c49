//! mend52 (issue #17): Phi-3.5-MoE's LongRoPE. The preset's `config.json` now carries the published
//! `rope_scaling` block's `type = "longrope"` and `original_max_position_embeddings` 4,096
//! (scenarios/models/phi-3.5-moe/README.md has the sources), so both engines' `get_rope` builds
//! `Phi3LongRoPEScaledRotaryEmbedding` (`models/phimoe.py` passes `config.rope_scaling`: vLLM 0.11.0,
//! SGLang 0.5.9): the caches of `tpsim_model::rope_cache` and, under SGLang, the rotary's PyTorch
//! kernels of `llm::partial_rotary::sglang_longrope_kernels` (rope51).

use crate::common::*;

const PHI: &str = "examples/phi-3.5-moe-rtx6000x2.toml";

/// The example (vLLM 0.19.0 assumed, TP 2, bf16): vLLM ≥ 0.7 keeps LongRoPE's concatenated cache,
/// (4,096 + 131,072) rows × head_dim 128 × 2 B = 34,603,008 B, 16.5 × 2 MiB, so the caching
/// allocator's 17 × 2 MiB segment (≤ 1 MiB left) is counted whole (vrows4): + 1,048,576 B. The plain
/// cache before, 131,072 × 128 × 2 B = 33,554,432 B, filled its 16 segments. "target weights": the
/// rest, 41,877,487,104 B (41,911,041,536 B before − 33,554,432 B), + 34,603,008 + 1,048,576 =
/// 41,913,138,688 B. The KV pool loses those 2,097,152 B: / 65,536 B a token (32 layers × 8 / 2 KV
/// heads × 128 × 2 (K, V) × 2 B) = 32 tokens, 712,208 → 712,176. The decode step is unchanged
/// (vLLM's rotary is one kernel as lowered). vmemtp57: FlashInfer's allreduce-fusion workspace (3 ×
/// 512 MiB) is no longer counted on a PCIe box (no multicast, no workspace), so the pool gains
/// 1,610,612,736 B / 65,536 B = 24,576 tokens: 712,176 + 24,576 = 736,752. Exact.
#[test]
fn phi35_moe_example_builds_longrope_caches_under_vllm() {
    let run = run_json(&scenario(PHI));
    assert_eq!(entry_bytes(&run, "target weights"), 41_913_138_688);
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64(), Some(65_536));
    assert_eq!(run["memory"]["kv_tokens"].as_u64(), Some(712_208 - 32 + 24_576));
}

/// The example under SGLang 0.5.8, against the same run with the preset's config without
/// `rope_scaling` (the file before mend52, a scratch preset):
/// - RoPE entry: the three model-dtype buffers, short 4,096 × 128 × 2 B = 1,048,576, long 131,072 ×
///   128 × 2 B = 33,554,432 and their concatenation 34,603,008: 69,206,016 B (plain: the float32
///   cache, 131,072 × 128 × 4 B = 67,108,864 B);
/// - each layer's rotary is 22 PyTorch kernels where the template counts 1: 32 layers × 21 × 2 µs
///   (`kernel_overhead`, hardware template pcie-nccl-host.toml, assumed) = 1.344 ms more a decode
///   step (± 1 µs of rounding);
/// - the pool: 2,097,152 B more RoPE and 2,097,152 B more kept allocator segments (the allocator
///   replay: the concatenation's half-filled last 2 MiB segment, the short cache's 2 MiB small-pool
///   segment) = 4,194,304 B / 65,536 B = 64 tokens fewer.
#[test]
fn phi35_moe_longrope_under_sglang() {
    let sglang = |t: String| {
        t.replace("name = \"vllm\"", "name = \"sglang\"\nversion = \"0.5.8\"")
            .replace("gpu_memory_utilization = 0.9      # vLLM's default\n", "")
            .replace(
                "page_size = 16                    # vLLM's default block size\n",
                "",
            )
    };
    let run = run_json(&edited_variant(PHI, "mend52-phi-sglang", sglang));
    let dir = scratch("mend52-phi-plain-model");
    let config = std::fs::read_to_string(scenario("models/phi-3.5-moe/config.json")).unwrap();
    let mut v: serde_json::Value = serde_json::from_str(&config).unwrap();
    assert!(v.as_object_mut().unwrap().remove("rope_scaling").is_some());
    std::fs::write(dir.join("config.json"), v.to_string()).unwrap();
    let quant = std::fs::read_to_string(scenario("models/phi-3.5-moe/quant.toml")).unwrap();
    std::fs::write(dir.join("quant.toml"), quant).unwrap();
    let model = dir.display().to_string();
    let plain = run_json(&edited_variant(PHI, "mend52-phi-sglang-plain", |t| {
        sglang(t).replace("preset = \"phi-3.5-moe\"", &format!("preset = {model:?}"))
    }));
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 69_206_016);
    assert_eq!(entry_bytes(&plain, "RoPE cos/sin caches"), 67_108_864);
    let d = f(&run["throughput"]["tpot_ms"]) - f(&plain["throughput"]["tpot_ms"]);
    assert!((d - 1.344).abs() < 0.001, "{d} ms");
    let kv = |j: &serde_json::Value| j["memory"]["kv_tokens"].as_u64().unwrap();
    assert_eq!(kv(&plain) - kv(&run), 64);
}
