//! families22 (issue #17): LFM2 (`Lfm2ForCausalLM`) and LFM2-MoE (`Lfm2MoeForCausalLM`) end to end. The
//! weights are pinned by hand in `model/src/llm/tests_families22.rs` (LFM2-1.2B 1,170,340,608
//! parameters, the model card's count; LFM2-8B-A1B 8,339,930,560, the card's "8.3B"); here the example
//! runs under vLLM, LFM2-1.2B on the same box under both engines, the short-conv state per request is
//! checked under both engines' rules (SGLang 0.5.9 `Lfm2Config.mamba2_cache_params`: a
//! `Mamba2StateShape` with no SSM state over the conv layers, bf16; vLLM 0.11.1
//! `short_conv_state_shape` at `--mamba-cache-dtype`), SGLang's own LM head is counted, and releases
//! without the model files are refused.

use crate::common::*;

const LFM2_MOE_VLLM: &str = "examples/lfm2-8b-a1b-vllm-rtx4090x2.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(LFM2_MOE_VLLM, name, edit)
}

/// The example with LFM2-1.2B for LFM2-8B-A1B, with its text further rewritten by `edit`.
fn dense(name: &str, edit: impl Fn(String) -> String) -> String {
    variant(name, |t| {
        edit(t.replace("preset = \"lfm2-8b-a1b\"", "preset = \"lfm2-1.2b\""))
    })
}

/// SGLang 0.5.9 keys: the first release with `models/lfm2.py`, whose memory era tpsim asks for (the
/// late-2025 rules of 0.5.8, as the bundled 0.5.9 validation rows name them).
const SGLANG_0_5_9: &str = "version = \"0.5.9\"\ncosts.era = \"late-2025\"";

/// LFM2-8B-A1B at tp 2 under vLLM: the hand count a rank (2 B a parameter, the fp32 expert bias 2 B
/// more): embedding 32,768 × 2,048 = 67,108,864; 18 conv mixers of 3 × 1,024 × 2,048 + 1,024 × 3 +
/// 2,048 × 1,024 = 8,391,680; 6 attention mixers of (16 × 64 + 2 × 4 × 64) × 2,048 + 2,048 × 1,024 +
/// 128 = 5,243,008; 24 × 4,096 norms; 2 dense MLPs of 3 × 3,584 × 2,048 = 22,020,096; 22 MoE layers
/// of 32 × 3 × 896 × 2,048 + 65,536 + 32 = 176,226,336; final norm 2,048 → 4,170,737,088 parameters,
/// 8,341,475,584 B. That is the floor of the weights line, which adds vLLM's RoPE cache (128,000
/// positions × 64, under 256 MiB) and the allocator's rounding. The 6 attention layers cache 6 × 2 × 4
/// × 64 × 2 = 6,144 B a token a rank; one all-reduce a mixer (o / out_proj) and one a feed-forward
/// (down_proj, the experts' sum) × 24 + the embedding's = 49.
#[test]
fn lfm2_moe_example_runs_under_vllm() {
    let vl = run_json(&scenario(LFM2_MOE_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 8_341_475_584, "{w}");
    assert!(w < 8_341_475_584 + (256 << 20), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 6_144);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 49);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);
}

/// The short-conv state of one request on one rank at tp 2, by hand, LFM2-1.2B (10 conv layers of
/// 2,048 channels, `conv_L_cache` 3: each keeps 3 − 1 = 2 inputs of 2,048 / 2 = 1,024 channels).
///
/// SGLang 0.5.9 (`Mamba2StateShape.create(intermediate_size = 2,048, n_groups = 1, state_size = 0,
/// …)`: conv (1,024, 2) at bf16, temporal (1, 2,048, 0) empty): 4,096 B a layer, × 10 = 40,960 B a
/// request; the pool holds a whole number of requests. vLLM (`short_conv_state_shape`: (2, 1,024) at
/// the model dtype): a 4,096 B page; one token of one attention layer is 4 × 64 × 2 × 2 = 1,024 B, so
/// a 16-token block (16,384 B) already holds the page: no "Setting attention block size" line, the
/// page padded by (16,384 − 4,096) / 4,096 = 300.00 %. With `--mamba-cache-dtype float32` the page is
/// 8,192 B: padded by 100.00 %. The SSM flag changes nothing (no SSM state).
#[test]
fn lfm2_state_per_request_both_engines() {
    let sg = run_json(&dense("lfm2-sglang", |t| {
        t.replace("name = \"vllm\"", &format!("name = \"sglang\"\n{SGLANG_0_5_9}"))
            .replace("max_model_len = 32768", "context_length = 32768")
    }));
    let (n, bytes) = state_pool(&sg);
    assert!(n > 0);
    assert_eq!(bytes, n * 40_960, "{n} requests");

    let vl = run_json(&dense("lfm2-vllm", |t| t));
    let w = memory_warnings(&vl);
    assert!(
        w.iter().any(|l| l.contains("Padding mamba page size by 300.00%")),
        "{w:?}"
    );
    assert!(
        !w.iter().any(|l| l.contains("Setting attention block size")),
        "{w:?}"
    );
    let conv32 = run_json(&dense("lfm2-vllm-conv32", |t| {
        t.replace("tp = 2\n", "tp = 2\nmamba_cache_dtype = \"float32\"\n")
    }));
    let w = memory_warnings(&conv32);
    assert!(
        w.iter().any(|l| l.contains("Padding mamba page size by 100.00%")),
        "{w:?}"
    );
    let ssm32 = run_json(&dense("lfm2-vllm-ssm32", |t| {
        t.replace("tp = 2\n", "tp = 2\nmamba_ssm_cache_dtype = \"float32\"\n")
    }));
    let w = memory_warnings(&ssm32);
    assert!(
        w.iter().any(|l| l.contains("Padding mamba page size by 300.00%")),
        "{w:?}"
    );
}

/// The LM head under each engine, LFM2-1.2B at tp 2: vLLM ties it to the embedding; SGLang 0.5.9 builds
/// its own `ParallelLMHead` and copies the embedding into it. SGLang's weights line is the hand count
/// exactly: 585,204,480 parameters a rank (tests_families22) + the head's 32,768 × 2,048 = 67,108,864
/// → 652,313,344 × 2 B = 1,304,626,688; vLLM's is at least 1,170,408,960 (no second head) plus its
/// RoPE cache.
#[test]
fn lfm2_lm_head_per_engine() {
    let sg = run_json(&dense("lfm2-sglang-head", |t| {
        t.replace("name = \"vllm\"", &format!("name = \"sglang\"\n{SGLANG_0_5_9}"))
            .replace("max_model_len = 32768", "context_length = 32768")
    }));
    assert_eq!(entry_bytes(&sg, "target weights"), 1_304_626_688);
    let vl = run_json(&dense("lfm2-vllm-head", |t| t));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 1_170_408_960, "{w}");
    assert!(w < 1_170_408_960 + (256 << 20), "{w}");
}

/// SGLang ships `models/lfm2.py` and `models/lfm2_moe.py` from 0.5.9, vLLM `models/lfm2.py` from 0.10.2
/// and `models/lfm2_moe.py` from 0.11.1 (the wheels' file lists): earlier releases are refused on
/// `engine.version`; vLLM 0.10.2's V0 engine is refused as its `Lfm2ForCausalLM` asserts.
#[test]
fn lfm2_before_its_first_releases_is_refused() {
    let run = |p: &str| tpsim(&["run", p]);
    let old = run(&variant("lfm2-moe-sglang-0.5.8", |t| {
        t.replace("name = \"vllm\"", "name = \"sglang\"\nversion = \"0.5.8\"")
            .replace("max_model_len = 32768", "context_length = 32768")
    }));
    assert_ne!(old.code, 0, "{}", old.stdout);
    assert!(
        old.stderr.contains("SGLang 0.5.8 has no models/lfm2_moe.py"),
        "{}",
        old.stderr
    );
    let with = |v: &str| {
        variant(&format!("lfm2-moe-vllm-{v}"), |t| {
            t.replace("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"))
        })
    };
    let old = run(&with("0.11.0"));
    assert_ne!(old.code, 0, "{}", old.stdout);
    assert!(
        old.stderr.contains("vLLM 0.11.0 has no models/lfm2_moe.py"),
        "{}",
        old.stderr
    );
    let ok = run(&with("0.11.1"));
    assert_eq!(ok.code, 0, "{}", ok.stderr);
    let old = run(&dense("lfm2-vllm-0.10.1", |t| {
        t.replace("[engine]\n", "[engine]\nversion = \"0.10.1\"\n")
    }));
    assert!(
        old.stderr.contains("vLLM 0.10.1 has no models/lfm2.py"),
        "{}",
        old.stderr
    );
    let v0 = run(&dense("lfm2-vllm-v0", |t| {
        t.replace("[engine]\n", "[engine]\nversion = \"0.10.2\"\nuse_v1 = false\n")
    }));
    assert_ne!(v0.code, 0, "{}", v0.stdout);
    assert!(
        v0.stderr
            .contains("Lfm2ForCausalLM doesn't support vLLM v0. Please enable v1"),
        "{}",
        v0.stderr
    );
    let v1 = run(&dense("lfm2-vllm-0.10.2", |t| {
        t.replace("[engine]\n", "[engine]\nversion = \"0.10.2\"\n")
    }));
    assert_eq!(v1.code, 0, "{}", v1.stderr);
}
