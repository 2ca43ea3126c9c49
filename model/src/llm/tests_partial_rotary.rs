//! rope17 (issue #17 point 5): vLLM's RoPE cache shape from the bundled presets (`llm::partial_rotary`
//! names the vLLM files each rule is read from). Exact integers; the cache bytes are
//! `max_position_embeddings × rows × rotary_dim × 2 B` (bf16/fp16 models, `vllm_startup::rope_cache_bytes`).

use super::*;
use crate::vllm_startup::rope_cache_bytes;

/// The bundled preset's config.json (compiled in: the model crate reads no file).
fn config(name: &str) -> &'static str {
    match name {
        "qwen3-next-80b-a3b" => include_str!("../../../scenarios/models/qwen3-next-80b-a3b/config.json"),
        "qwen3.5-9b" => include_str!("../../../scenarios/models/qwen3.5-9b/config.json"),
        "qwen3.5-397b-a17b-nvfp4-nvidia" => {
            include_str!("../../../scenarios/models/qwen3.5-397b-a17b-nvfp4-nvidia/config.json")
        }
        "glm-4-9b-0414" => include_str!("../../../scenarios/models/glm-4-9b-0414/config.json"),
        "phi-2" => include_str!("../../../scenarios/models/phi-2/config.json"),
        "phi-4-mini" => include_str!("../../../scenarios/models/phi-4-mini/config.json"),
        "phi-3.5-mini" => include_str!("../../../scenarios/models/phi-3.5-mini/config.json"),
        "minimax-m2.5" => include_str!("../../../scenarios/models/minimax-m2.5/config.json"),
        "ling-mini-2.0" => include_str!("../../../scenarios/models/ling-mini-2.0/config.json"),
        "glm-4.5v" => include_str!("../../../scenarios/models/glm-4.5v/config.json"),
        "qwen3-vl-30b-a3b-instruct" => {
            include_str!("../../../scenarios/models/qwen3-vl-30b-a3b-instruct/config.json")
        }
        "qwen2.5-vl-7b" => include_str!("../../../scenarios/models/qwen2.5-vl-7b/config.json"),
        "llama-3.1-8b" => include_str!("../../../scenarios/models/llama-3.1-8b/config.json"),
        _ => panic!("no preset {name} in this test"),
    }
}

fn preset(name: &str) -> ModelSpec {
    ModelSpec::from_config_json(config(name), Quantization::bf16()).expect("preset lowers")
}

/// The cache vLLM builds for one preset, bytes.
fn cache(m: &ModelSpec) -> u64 {
    let rows = if m.vllm_mrope { MROPE_ROWS_FACTOR } else { 1 };
    rope_cache_bytes(
        m.context_len.unwrap(),
        rows,
        m.rotary_dim.unwrap_or(m.head_dim),
        2,
    )
    .0
}

/// Width and M-RoPE by preset, and the cache by hand:
/// - qwen3-next-80b-a3b: 256 × 0.25 = 64, plain: 262,144 × 64 × 2 = 33,554,432 (tpsim built it at
///   256: 134,217,728, 96 MiB more);
/// - qwen3.5-9b / qwen3.5-397b-a17b-nvfp4-nvidia: 64, M-RoPE: 262,144 × 4 × 64 × 2 = 134,217,728 (the
///   figure tpsim had at 256 × 1 row: unchanged);
/// - glm-4-9b-0414: 128 × 0.5 = 64: 131,072 × 64 × 2 = 16,777,216;
/// - phi-2: head 2,560 / 32 = 80 × 0.4 = 32: 2,048 × 32 × 2 = 131,072;
/// - phi-4-mini: head 3,072 / 24 = 128 × 0.75 = 96: 131,072 × 96 × 2 = 25,165,824;
/// - phi-3.5-mini: no factor, the whole 96: 131,072 × 96 × 2 = 25,165,824;
/// - minimax-m2.5: `rotary_dim` 64 of 128: 196,608 × 64 × 2 = 25,165,824;
/// - ling-mini-2.0: 128 × 0.5 = 64: 32,768 × 64 × 2 = 4,194,304;
/// - glm-4.5v: 64, M-RoPE: 65,536 × 4 × 64 × 2 = 33,554,432;
/// - qwen3-vl-30b-a3b-instruct: 128, M-RoPE: 262,144 × 4 × 128 × 2 = 268,435,456;
/// - qwen2.5-vl-7b: head 3,584 / 28 = 128, M-RoPE: 128,000 × 4 × 128 × 2 = 131,072,000;
/// - llama-3.1-8b: 128, plain: 131,072 × 128 × 2 = 33,554,432.
#[test]
fn vllm_rope_cache_by_preset() {
    let cases: [(&str, Option<u64>, bool, u64); 13] = [
        ("qwen3-next-80b-a3b", Some(64), false, 33_554_432),
        ("qwen3.5-9b", Some(64), true, 134_217_728),
        ("qwen3.5-397b-a17b-nvfp4-nvidia", Some(64), true, 134_217_728),
        ("glm-4-9b-0414", Some(64), false, 16_777_216),
        ("phi-2", Some(32), false, 131_072),
        ("phi-4-mini", Some(96), false, 25_165_824),
        ("phi-3.5-mini", None, false, 25_165_824),
        ("minimax-m2.5", Some(64), false, 25_165_824),
        ("ling-mini-2.0", Some(64), false, 4_194_304),
        ("glm-4.5v", Some(64), true, 33_554_432),
        ("qwen3-vl-30b-a3b-instruct", None, true, 268_435_456),
        ("qwen2.5-vl-7b", None, true, 131_072_000),
        ("llama-3.1-8b", None, false, 33_554_432),
    ];
    for (name, dim, mrope, bytes) in cases {
        let m = preset(name);
        assert_eq!((m.rotary_dim, m.vllm_mrope), (dim, mrope), "{name}");
        assert_eq!(cache(&m), bytes, "{name}");
    }
}

/// A factor outside (0, 1] is refused naming the key, as vLLM 0.19's `get_rope` refuses it
/// ("partial_rotary_factor=… must be between 0.0 and 1.0"); MiniMax-M2's `rotary_dim` beyond the
/// head likewise.
#[test]
fn vllm_rope_bad_factor_refused() {
    let text = config("phi-2");
    let bad = text.replace("\"partial_rotary_factor\": 0.4", "\"partial_rotary_factor\": 1.5");
    assert_ne!(bad, text);
    let e = ModelSpec::from_config_json(&bad, Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("partial_rotary_factor") && e.contains("1.5") && e.contains("(0, 1]"),
        "{e}"
    );
    let text = config("minimax-m2.5");
    let bad = text.replace("\"rotary_dim\": 64", "\"rotary_dim\": 256");
    assert_ne!(bad, text);
    let e = ModelSpec::from_config_json(&bad, Quantization::bf16())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("rotary_dim") && e.contains("256") && e.contains("head_dim 128"),
        "{e}"
    );
}
