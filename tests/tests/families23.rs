//! families23 (issue #17): MiMo-V2-Flash (`MiMoV2FlashForCausalLM`) end to end. The parameters are
//! pinned by hand in `model/src/llm/tests_families23.rs` (308,778,780,864, the card's 309B; 15.4B
//! active); here the bundled example runs under SGLang 0.5.8 with its FP8 weights a rank by hand, the
//! engine's hybrid SWA pool is checked against SGLang's formulas by release (0.5.8
//! `get_cell_size_per_token` / `set_num_tokens_hybrid_swa` and 0.5.9's), and the releases and settings
//! tpsim does not serve are refused.

use crate::common::*;

const MIMO: &str = "examples/mimo-v2-flash-sglang-rtxpro6000x4.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(MIMO, name, edit)
}

/// SGLang's profiled token count: int(rest × 2^30 // cell) (`profile_max_num_token`; page 1).
fn profiled_tokens(run: &serde_json::Value) -> u64 {
    let m = &run["memory"];
    let cell = m["cell_size_bytes"].as_u64().unwrap() as f64;
    (f(&m["rest_gib"]) * (1u64 << 30) as f64 / cell).floor() as u64
}

/// The example at tp 4 under SGLang 0.5.8 (tolerance: none, integers).
///
/// Weights a rank: 78,114,045,920 B (the FP8 hand count of `tests_families23`: bf16 o_proj, fp32
/// router, 128×128 fp32 block scales). Cell (0.5.8: the global layer's 1 × (192 + 128) × 2 = 640 B
/// over all 48 layers, plus the sliding layer's 2 × 320 × 2 = 1,280 B over 39): 30,720 + 49,920 =
/// 80,640 B. Pools from the profiled T tokens: full = int(T × 48 / (0.8 × 39 + 9)) = int(T × 48 /
/// 40.2), swa = int(full × 0.8); bytes (full + 1) × 640 × 9 and (swa + 1) × 1,280 × 39. One
/// all-reduce per attention and per feed-forward × 48 + the embedding's = 97.
#[test]
fn mimo_v2_flash_sglang_pools_by_hand() {
    let run = run_json(&scenario(MIMO));
    assert_eq!(entry_bytes(&run, "target weights"), 78_114_045_920);
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64().unwrap(), 80_640);
    let t = profiled_tokens(&run);
    let full = (t as f64 * 48.0 / (0.8 * 39.0 + 9.0)).trunc() as u64;
    let swa = (full as f64 * 0.8).trunc() as u64;
    assert_eq!(run["memory"]["kv_tokens"].as_u64().unwrap(), full);
    let (name, bytes) = pool_entry(&run, "target KV pool, full layers");
    assert!(name.contains(&format!("9 × {full} tokens")), "{name}");
    assert_eq!(bytes, (full + 1) * 640 * 9);
    let (name, bytes) = pool_entry(&run, "target KV pool, SWA layers");
    assert!(name.contains(&format!("39 × {swa} tokens")), "{name}");
    assert_eq!(bytes, (swa + 1) * 1_280 * 39);
    assert_eq!(run["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 97);
    assert!(f(&run["throughput"]["tpot_ms"]) > 0.0);

    // SGLang 0.5.9 (memory era given, as 0.5.9 requires): the cell counts each kind over its own layers,
    // 9 × 640 + 39 × 1,280 = 55,680 B, and the split weighs the bytes: full = int(T × 55,680 / (5,760 +
    // 0.8 × 49,920)) = int(T × 55,680 / 45,696).
    let v9 = variant("mimo-0.5.9", |t| {
        t.replace(
            "version = \"0.5.8\"",
            "version = \"0.5.9\"\ncosts.era = \"late-2025\"",
        )
    });
    let run = run_json(&v9);
    assert_eq!(run["memory"]["cell_size_bytes"].as_u64().unwrap(), 55_680);
    let t = profiled_tokens(&run);
    let full = (t as f64 * 55_680.0 / (5_760.0 + 0.8 * 49_920.0)).trunc() as u64;
    let swa = (full as f64 * 0.8).trunc() as u64;
    assert_eq!(run["memory"]["kv_tokens"].as_u64().unwrap(), full);
    let (name, bytes) = pool_entry(&run, "target KV pool, SWA layers");
    assert!(name.contains(&format!("39 × {swa} tokens")), "{name}");
    assert_eq!(bytes, (swa + 1) * 1_280 * 39);
}

/// What tpsim refuses: SGLang before 0.5.7 (no `models/mimo_v2_flash.py`: the 0.5.6.post2 wheel has
/// none), vLLM (not modelled), the MTP draft (not modelled).
#[test]
fn mimo_v2_flash_refusals() {
    let old = variant("mimo-0.5.6", |t| t.replace("\"0.5.8\"", "\"0.5.6.post2\""));
    let o = tpsim(&["run", &old]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "SGLang 0.5.6.post2 has no models/mimo_v2_flash.py (SGLang adds it in 0.5.7): it cannot serve \
             MiMo-V2-Flash (MiMoV2FlashForCausalLM)"
        ),
        "{}",
        o.stderr
    );
    assert!(
        tpsim(&[
            "run",
            &variant("mimo-0.5.7", |t| t.replace("\"0.5.8\"", "\"0.5.7\""))
        ])
        .code
            == 0
    );
    let vllm = variant("mimo-vllm", |t| {
        t.replace("name = \"sglang\"", "name = \"vllm\"")
            .replace("version = \"0.5.8\"", "version = \"0.22.0\"")
            .replace("context_length", "max_model_len")
    });
    // grok52: vLLM 0.14 – 0.19 is modelled (`grok52::mimo_v2_flash_vllm_pages_by_hand`); vllmnew53:
    // 0.22's FlashAttention-DiffKV cannot start on this SM 12.0 box (`vllmnew53`).
    let o = tpsim(&["run", &vllm]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("\"Sinks are only supported in FlashAttention 3\""),
        "{}",
        o.stderr
    );
    let spec = variant("mimo-spec", |t| {
        t + "\n[speculative]\nalgorithm = \"eagle\"\nnum_steps = 3\nacceptance = { alpha = 0.8 }\n"
    });
    let o = tpsim(&["run", &spec]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("multi-layer MTP draft"), "{}", o.stderr);
}
