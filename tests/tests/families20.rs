//! families20 (issue #17): Falcon-H1 (`FalconH1ForCausalLM`) end to end. The weights are pinned by hand
//! in `model/src/llm/tests_falcon_h1.rs` (7,585,648,736 parameters, the card's "7.59B"); here the
//! example runs under vLLM, the same box runs under SGLang, the Mamba-2 state per request is checked
//! under both engines' rules (SGLang 0.5.8 `FalconH1Config.mamba2_cache_params` over every layer, vLLM
//! 0.19.0 `mamba2_state_shape` / `mamba2_state_dtype` with no per-model rule), and releases without
//! `models/falcon_h1.py` are refused.

use crate::common::*;

const FALCON_VLLM: &str = "examples/falcon-h1-7b-vllm-rtx4090x2.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(FALCON_VLLM, name, edit)
}

/// The example under SGLang (`context_length` for vLLM's `max_model_len`), with `extra` engine keys.
fn sglang(name: &str, extra: &str) -> String {
    vllm_file_under_sglang(FALCON_VLLM, name, 32768, extra)
}

/// Falcon-H1-7B at tp 2 under vLLM: the hand count 7,655,241,856 B a rank (tests_falcon_h1: 2 B a
/// parameter, fp32 `A`) is the floor of the weights line, which adds vLLM's RoPE cache (262,144
/// positions × 128, under 256 MiB) and the allocator's block rounding; the 44 attention layers cache
/// 44 × 2 × 1 × 128 × 2 = 22,528 B a token a rank; three all-reduces a layer (o_proj, the Mamba
/// out_proj, down_proj) × 44 + the embedding's = 133.
#[test]
fn falcon_h1_example_runs_under_vllm() {
    let vl = run_json(&scenario(FALCON_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 7_655_241_856, "{w}");
    assert!(w < 7_655_241_856 + (256 << 20), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 22_528);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 133);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);
}

/// hybrid50: the same box under SGLang holds the LM head in float32 and the unused q_norm / k_norm
/// (`models/falcon_h1.py`, 0.5.3 – 0.5.23): the hand count 7,655,241,856 + 65,024 · 3,072 · 2 B
/// (399,507,456) + 44 × 2 × 128 × 2 B (22,528) = 8,054,771,840 B a rank (tests_falcon_h1) is the floor
/// of the weights line, which adds SGLang's allocator rounding (under 256 MiB).
#[test]
fn falcon_h1_under_sglang_holds_a_float32_head() {
    let sg = run_json(&sglang("falcon-sglang-weights", ""));
    let w = entry_bytes(&sg, "target weights");
    assert!(w >= 8_054_771_840, "{w}");
    assert!(w < 8_054_771_840 + (256 << 20), "{w}");
}

/// The Mamba-2 state of one request on one rank at tp 2, 44 layers, by hand. At tp 2 the one B/C group
/// is replicated to two (`extra_groups_for_head_shards`), so the conv covers (3,072 + 2 · 2 · 256) / 2
/// = 2,048 channels × (4 − 1) = 6,144 values and the SSM state 24 / 2 × 128 × 256 = 393,216 values.
///
/// SGLang (`Mamba2StateShape.create`, conv bf16, SSM float32 by default): 12,288 + 1,572,864 =
/// 1,585,152 B a layer, × 44 = 69,746,688 B a request; the pool holds a whole number of requests.
/// vLLM (`mamba2_state_dtype`: both at the model dtype, Falcon-H1 having no per-model rule, so no
/// "Updating mamba_ssm_cache_dtype" line): 12,288 + 786,432 = 798,720 B; the attention page of one
/// token is 22,528 / 44 = 512 B, so the block becomes 16 × ⌈798,720 / 8,192⌉ = 16 × 98 = 1,568 tokens
/// and the state page is padded to 1,568 × 512 = 802,816 B (+4,096 B, 0.51 %). With
/// `--mamba-ssm-cache-dtype float32`: 12,288 + 1,572,864 = 1,585,152 → 16 × ⌈193.5⌉ = 3,104 tokens.
#[test]
fn falcon_h1_state_per_request_both_engines() {
    let sg = run_json(&sglang("falcon-sglang", ""));
    let (n, bytes) = state_pool(&sg);
    assert!(n > 0);
    assert_eq!(bytes, n * 69_746_688, "{n} requests");

    let vl = run_json(&scenario(FALCON_VLLM));
    let w = memory_warnings(&vl);
    assert!(
        w.iter()
            .any(|l| l.contains("Setting attention block size to 1568 tokens")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|l| l.contains("Padding mamba page size by 0.51%")),
        "{w:?}"
    );
    assert!(
        !w.iter().any(|l| l.contains("Updating mamba_ssm_cache_dtype")),
        "{w:?}"
    );
    let ssm32 = run_json(&variant("falcon-vllm-ssm32", |t| {
        t.replace("tp = 2\n", "tp = 2\nmamba_ssm_cache_dtype = \"float32\"\n")
    }));
    let w = memory_warnings(&ssm32);
    assert!(
        w.iter()
            .any(|l| l.contains("Setting attention block size to 3104 tokens")),
        "{w:?}"
    );
}

/// SGLang ships `models/falcon_h1.py` from 0.5.3 (0.5.3rc2's wheel) and vLLM from 0.9.0 (the wheels'
/// file lists): earlier releases are refused on `engine.version`; the first ones run.
#[test]
fn falcon_h1_before_its_first_releases_is_refused() {
    let run = |p: &str| tpsim(&["run", p]);
    let old = run(&sglang("falcon-sglang-0.5.2", "version = \"0.5.2\""));
    assert_ne!(old.code, 0, "{}", old.stdout);
    assert!(old.stderr.contains("engine.version"), "{}", old.stderr);
    assert!(
        old.stderr.contains("SGLang 0.5.2 has no models/falcon_h1.py"),
        "{}",
        old.stderr
    );
    let first = run(&sglang("falcon-sglang-0.5.3", "version = \"0.5.3\""));
    assert!(!first.stderr.contains("falcon_h1.py"), "{}", first.stderr);
    let with = |v: &str| {
        variant(&format!("falcon-vllm-{v}"), |t| {
            t.replace("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"))
        })
    };
    let old = run(&with("0.8.5"));
    assert_ne!(old.code, 0, "{}", old.stdout);
    assert!(
        old.stderr.contains("vLLM 0.8.5 has no models/falcon_h1.py"),
        "{}",
        old.stderr
    );
    let ok = run(&with("0.11.0"));
    assert!(!ok.stderr.contains("falcon_h1.py"), "{}", ok.stderr);
    assert!(
        ok.stdout.contains("vLLM 0.11.0 (engine.version)"),
        "{}",
        ok.stdout
    );
}
