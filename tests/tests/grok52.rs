//! grok52 (issue #17): Grok-2's per-layer RoPE caches under SGLang (`tpsim_model::llm::grok`,
//! `rope_cache::layer_rope_tensors`), checked against the public v0.5.2rc2 8× H100 start-up log
//! (tests/data/engine-memory.tsv, the Grok row), and the refusals of a bad `rope_type` block.
//! Figures by hand from `scenarios/models/grok-2/config.json` and SGLang's `models/grok.py`.

use crate::common::*;
use tpsim_model::llm::{ModelSpec, Quantization};
use tpsim_model::rope_cache::{grok_layer_rope_elem, layer_rope_tensors};

const GROK: &str = "examples/grok-2-fp8-sglang-rtxpro6000x8.toml";
const MIB: u64 = 1 << 20;
const GIB: f64 = (1u64 << 30) as f64;

/// Grok-2's config text.
fn grok_config() -> String {
    std::fs::read_to_string(scenario("models/grok-2/config.json")).unwrap()
}

/// The log's set-up: the example on 8× H100 SXM under SGLang 0.5.2 (the log's v0.5.2rc2).
fn h100_log_scenario() -> String {
    edited_variant(GROK, "grok52-h100", |t| {
        t.replace("rtx-pro-6000-8x-1switch", "h100-sxm-8x-nvlink")
            .replace("version = \"0.5.8\"", "version = \"0.5.2\"")
    })
}

/// Grok-2 (`rope_type` "original", `original_max_position_embeddings` 8,192, `scaling_factor` 16,
/// head_dim 128): each of the 64 layers' `ScalingRotaryEmbedding` spans 8,192 × 16 = 131,072 rows ×
/// 128 × 4 B (float32) = 67,108,864 B = 64 MiB: 64 × 64 MiB = 4 GiB a rank (tolerance: none).
#[test]
fn grok2_layer_caches_by_hand() {
    let m = ModelSpec::from_config_json(&grok_config(), Quantization::bf16()).unwrap();
    assert_eq!(m.grok_layer_rope, Some((131_072, 128)));
    let caches = layer_rope_tensors(&m, 4);
    assert_eq!(caches, vec![64 * MIB; 64]);
    assert_eq!(caches.iter().sum::<u64>(), 4u64 << 30);
    // `rope_rotate_half_dims`: half the head rotated, 131,072 × 64 × 4 B = 32 MiB a layer.
    let half = grok_config().replace(
        "\"beta_slow\": 1",
        "\"beta_slow\": 1, \"rope_rotate_half_dims\": true",
    );
    let m = ModelSpec::from_config_json(&half, Quantization::bf16()).unwrap();
    assert_eq!(layer_rope_tensors(&m, 4), vec![32 * MIB; 64]);
    // Off CUDA the cache takes `get_rope_scaling`'s dtype: float32 to 0.5.5, bf16 from 0.5.6 (32 MiB).
    assert_eq!(grok_layer_rope_elem(Some(&[0, 5, 8]), true), 4);
    assert_eq!(grok_layer_rope_elem(Some(&[0, 5, 5]), false), 4);
    assert_eq!(grok_layer_rope_elem(Some(&[0, 5, 6]), false), 2);
    assert_eq!(grok_layer_rope_elem(None, false), 2);
    // Without `rope_type` SGLang keeps only `get_rope`'s shared cache.
    let plain = grok_config().replace("\"rope_type\": \"original\",", "");
    let m = ModelSpec::from_config_json(&plain, Quantization::bf16()).unwrap();
    assert!(layer_rope_tensors(&m, 4).is_empty());
}

/// The v0.5.2rc2 H100 log (8× H100 80 GB SXM, tp 8, `--quantization fp8`): "Load weight end" takes
/// 77.43 − 36.73 = 40.69 GiB a rank, and the pool 903,439 tokens.
///
/// RoPE entry by hand: `get_rope`'s shared cache, 131,072 positions (`max_position_embeddings`) ×
/// 128 × 4 B = 67,108,864 B, plus the 64 layer caches, 64 × 67,108,864 B: 65 × 67,108,864 =
/// 4,362,076,160 B (4,160 MiB; tolerance: none). The online-fp8 weights stay 33,984,696,320 B
/// (`families24`). The layer caches' float32 temporaries (`freqs`, `cos`, `sin`, 32 MiB each),
/// freed between each layer's `o_proj` and its MoE, leave segments that later tensors split, so
/// the kept segments grow from 691.7 MiB (without the layer caches) to 1,985,658,368 B
/// (replayed by `torch_alloc`, pinned). Load usage 33,984,696,320 + 4,362,076,160 +
/// 1,985,658,368 = 40,332,430,848 B = 37.563 GiB: the known miss shrinks from 40.69 − 32.390 =
/// 8.30 GiB (−20.4 %) to 40.69 − 37.563 = 3.127 GiB (−7.7 %; pinned, tolerance 0.005 GiB). The
/// pool: tpsim 894,698 tokens, 0.97 % below the log's 903,439 (was 1,064,234, +17.8 %; pinned at
/// ± 0.01 %).
#[test]
fn grok2_h100_log_with_layer_caches() {
    let run = run_json(&h100_log_scenario());
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 65 * 67_108_864);
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 4_362_076_160);
    let weights = entry_bytes(&run, "target weights");
    assert_eq!(weights, 33_984_696_320);
    let segments = entry_bytes(&run, "weight-load allocator segments");
    assert_eq!(segments, 1_985_658_368);
    let usage = (weights + 4_362_076_160 + segments) as f64 / GIB;
    assert!((usage - 37.563).abs() < 0.001, "{usage}");
    assert!((40.69 - usage - 3.127).abs() < 0.005, "{usage}");
    let tokens = run["memory"]["kv_tokens"].as_u64().unwrap();
    let miss = (tokens as f64 / 903_439.0 - 1.0) * 100.0;
    assert!((miss + 0.97).abs() < 0.01, "{tokens} tokens, {miss} %");
}

/// What makes SGLang's Grok layer raise while it is built: an unknown `rope_type`
/// (`_compute_inv_freq`: "Unknown extrapolation method") and a `rope_type` without
/// `scaling_factor` (`None` in `max_position_embeddings * scaling_factor`); each refused naming the
/// key.
#[test]
fn grok2_rope_type_refusals() {
    let unknown = grok_config().replace("\"rope_type\": \"original\"", "\"rope_type\": \"dynamic\"");
    let e = ModelSpec::from_config_json(&unknown, Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rope_type") && e.contains("Unknown extrapolation method"),
        "{e}"
    );
    let no_factor = grok_config().replace("\"scaling_factor\": 16.0,", "");
    let e = ModelSpec::from_config_json(&no_factor, Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(e.contains("scaling_factor"), "{e}");
}

/// The shared cache's rows by release: SGLang sets `hf_config.context_len` from 0.5.3
/// (`configs/model_config.py`) and Grok's `get_rope` then spans it instead of
/// `max_position_embeddings`. The example (SGLang 0.5.8, `context_length` 32,768): 32,768 × 128 ×
/// 4 B = 16 MiB + the 64 layer caches' 4,096 MiB = 4,112 MiB = 4,311,744,512 B; at 0.5.2 (the log)
/// 131,072 rows, 64 MiB (`grok2_h100_log_with_layer_caches`). Tolerance: none.
#[test]
fn grok2_shared_cache_spans_the_served_context_from_0_5_3() {
    let run = run_json(&scenario(GROK));
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), (16 + 4_096) * MIB);
    assert_eq!(entry_bytes(&run, "RoPE cos/sin caches"), 4_311_744_512);
    let v052 = edited_variant(GROK, "grok52-0.5.2", |t| t.replace("\"0.5.8\"", "\"0.5.2\""));
    assert_eq!(
        entry_bytes(&run_json(&v052), "RoPE cos/sin caches"),
        (64 + 4_096) * MIB
    );
}

fn vllm(m: &ModelSpec, release: &[u64]) -> Vec<u64> {
    use tpsim_model::rope_cache::{RopeRule, rope_cache_tensors};
    rope_cache_tensors(m, RopeRule::vllm(Some(release)), 2)
}

/// vLLM's MLA RoPE caches (`rope_cache`, read from vLLM 0.11.0 … 0.19.0): one `get_rope` instance
/// a rank in the model dtype (bf16, 2 B). DeepSeek-V3 (yarn, factor 40 × original 4,096 = 163,840
/// rows, `qk_rope_head_dim` 64): 163,840 × 64 × 2 B = 20 MiB (SGLang's is float32, 40 MiB).
/// DeepSeek-V3.2: the indexer shares it in 0.11.0 (`Indexer.forward(…, rotary_emb)`), has its own
/// from 0.13.0 (`is_neox_style = not indexer_rope_interleave` = True against False): 2 × 20 MiB.
/// GLM-5 (`indexer_rope_interleave` true: the same arguments, shared; no scaling: 202,752 rows):
/// 202,752 × 64 × 2 = 25,952,256 B. Kimi-VL-A3B (no scaling): 131,072 × 64 × 2 = 16 MiB.
/// Kimi-Linear: none (`rotary_emb=None`). MiniCPM3-4B (LongRoPE, 32,768 + 32,768 rows × 32):
/// vLLM keeps the concatenation, 65,536 × 32 × 2 = 4 MiB; SGLang the three buffers, 2 + 2 + 4 MiB.
#[test]
fn vllm_mla_rope_caches_by_hand() {
    assert_eq!(vllm(&preset_spec("deepseek-v3"), &[0, 11, 0]), vec![20 * MIB]);
    assert_eq!(vllm(&preset_spec("deepseek-v3"), &[0, 19, 0]), vec![20 * MIB]);
    let v32 = preset_spec("deepseek-v3.2");
    assert_eq!(vllm(&v32, &[0, 11, 0]), vec![20 * MIB]);
    assert_eq!(vllm(&v32, &[0, 11, 1]), vec![20 * MIB]);
    assert_eq!(vllm(&v32, &[0, 13, 0]), vec![20 * MIB, 20 * MIB]);
    assert_eq!(vllm(&v32, &[0, 19, 0]), vec![20 * MIB, 20 * MIB]);
    assert_eq!(vllm(&preset_spec("glm-5"), &[0, 19, 0]), vec![25_952_256]);
    assert_eq!(vllm(&preset_spec("kimi-vl-a3b"), &[0, 19, 0]), vec![16 * MIB]);
    assert!(vllm(&preset_spec("kimi-linear-48b-a3b-instruct"), &[0, 19, 0]).is_empty());
    let minicpm3 = preset_spec("minicpm3-4b");
    assert_eq!(vllm(&minicpm3, &[0, 19, 0]), vec![4 * MIB]);
    let sgl = tpsim_model::rope_cache::RopeRule::sglang(Some(&[0, 5, 9]), true);
    assert_eq!(
        tpsim_model::rope_cache::rope_cache_tensors(&minicpm3, sgl, 2),
        vec![2 * MIB, 2 * MIB, 4 * MIB]
    );
}

/// The MiMo-V2-Flash example under vLLM 0.19.0 (tp 4, bf16 KV; `llm::mimo_v2`, `decode::memory`).
fn mimo_vllm(name: &str, version: &str, extra: &str) -> String {
    edited_variant("examples/mimo-v2-flash-sglang-rtxpro6000x4.toml", name, |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("version = \"0.5.8\"", &format!("version = \"{version}\"{extra}"))
            .replace("context_length", "max_model_len")
    })
}

/// MiMo-V2-Flash under vLLM 0.19.0 at tp 4 (`models/mimo_v2_flash.py`: V padded to 192; 9 global
/// layers of 4 KV heads, 39 sliding of 8). Per token and layer on a rank: global max(1, 4 / 4) × 2 ×
/// 192 × 2 B = 768 B, sliding 2 × 2 × 192 × 2 = 1,536 B; `unify_kv_cache_spec_page_size` gives every
/// layer the 1,536 B page (the global layers' blocks hold 32 tokens): cell 48 × 1,536 = 73,728 B.
/// Groups (`_get_kv_cache_groups_uniform_page_size`, counts 39 and 9: 2 × 39 ≥ 3 × 9, so groups of
/// 9): 5 + 1 = 6 groups; a block is 9 × 1,536 × 16 = 221,184 B; the "KV cache" entry is whole
/// blocks and the reported tokens are blocks // 6 × 16. Without the hybrid manager every layer keeps
/// its own page: 9 × 768 + 39 × 1,536 = 66,816 B. vLLM 0.13.0 has no `MiMoV2FlashForCausalLM`.
/// Tolerance: none (integers).
#[test]
fn mimo_v2_flash_vllm_pages_by_hand() {
    let run = run_json(&mimo_vllm("grok52-mimo-vllm", "0.19.0", ""));
    assert_eq!(run["verdict"], "ok");
    let m = &run["memory"];
    assert_eq!(m["cell_size_bytes"].as_u64().unwrap(), 73_728);
    let kv = entry_bytes(&run, "KV cache");
    assert_eq!(kv % 221_184, 0, "{kv}");
    let blocks = kv / 221_184;
    assert_eq!(m["kv_tokens"].as_u64().unwrap(), blocks / 6 * 16);
    let plain = run_json(&mimo_vllm(
        "grok52-mimo-vllm-nohybrid",
        "0.19.0",
        "\ndisable_hybrid_kv_cache_manager = true",
    ));
    assert_eq!(plain["memory"]["cell_size_bytes"].as_u64().unwrap(), 66_816);
    let o = tpsim(&["run", &mimo_vllm("grok52-mimo-vllm-0.13", "0.13.0", "")]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "vLLM 0.13.0 has no models/mimo_v2_flash.py (vLLM adds it in 0.14.0): it cannot serve \
             MiMo-V2-Flash (MiMoV2FlashForCausalLM)"
        ),
        "{}",
        o.stderr
    );
}
