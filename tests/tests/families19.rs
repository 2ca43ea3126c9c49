//! families19 (issue #17): Kimi-Linear (`KimiLinearForCausalLM`) end to end. The weights are pinned by
//! hand in `model/src/llm/tests_kimi_linear.rs` (49,122,681,728 parameters, 3,484,459,904 active; the
//! card's "48B" without embedding and head, "3B activated"); here the example runs under vLLM, the same
//! box runs under SGLang, the recurrent state per request is checked under both engines' rules
//! (SGLang 0.5.8 `KimiLinearCacheParams.mamba_cache_per_req`, vLLM 0.19.0 `kda_state_shape` /
//! `kda_state_dtype`), and releases without `models/kimi_linear.py` are refused.

use crate::common::*;

const KIMI_VLLM: &str = "examples/kimi-linear-48b-a3b-vllm-rtxpro6000x2.toml";

/// The example with its text rewritten by `edit`, in a scratch file.
fn variant(name: &str, edit: impl Fn(String) -> String) -> String {
    edited_variant(KIMI_VLLM, name, edit)
}

/// The example under SGLang (`context_length` for vLLM's `max_model_len`), with `extra` engine keys.
fn sglang(name: &str, extra: &str) -> String {
    vllm_file_under_sglang(KIMI_VLLM, name, 131072, extra)
}

/// Kimi-Linear at tp 2 under vLLM: the hand count 49,189,668,608 B a rank (tests_kimi_linear; no RoPE
/// cache: the MLA layers have no rotary embedding) is the floor of the weights line, which adds only
/// the allocator's block rounding (under 64 MiB); the MLA cell (512 + 64) × 7 × 2 = 8,064 B on every
/// rank; two all-reduces a layer × 27 + the embedding's = 55.
#[test]
fn kimi_linear_example_runs_under_vllm() {
    let vl = run_json(&scenario(KIMI_VLLM));
    let w = entry_bytes(&vl, "target weights");
    assert!(w >= 49_189_668_608, "{w}");
    assert!(w < 49_189_668_608 + (64 << 20), "{w}");
    assert_eq!(vl["memory"]["cell_size_bytes"].as_u64().unwrap(), 8_064);
    assert_eq!(vl["collectives"]["allreduces_per_pass"].as_u64().unwrap(), 55);
    assert!(f(&vl["throughput"]["tpot_ms"]) > 0.0);
}

/// The KDA state of one request on one rank at tp 2, 20 KDA layers, by hand.
///
/// SGLang (`KimiLinearStateShape.create` / `mamba_cache_per_req`): three conv states of 4,096 / 2 ×
/// (4 − 1) bf16 values = 3 × 2,048 × 3 × 2 = 36,864 B and a recurrent state of 32 / 2 × 128 × 128 at
/// `SGLANG_MAMBA_SSM_DTYPE` float32 = 1,048,576 B → 1,085,440 B a layer, × 20 = 21,708,800 B a request;
/// with `--mamba-ssm-dtype bfloat16` 36,864 + 524,288 = 561,152 → 11,223,040 B. The pool holds a whole
/// number of requests.
/// vLLM (`kda_state_shape`, `kda_state_dtype`): the same 1,085,440 B page with bf16 conv states (the
/// recurrent state is float32 whatever `--mamba-ssm-cache-dtype` says); the MLA page of one token is
/// 8,064 / 7 = 1,152 B, so the attention block becomes 16 × ⌈1,085,440 / (16 × 1,152)⌉ = 944 tokens and
/// the state page is padded to 944 × 1,152 = 1,087,488 B (+0.19 %). With `--mamba-cache-dtype float32`
/// the conv states double: 73,728 + 1,048,576 = 1,122,304 → 16 × ⌈1,122,304 / 18,432⌉ = 976 tokens.
#[test]
fn kimi_linear_state_per_request_both_engines() {
    let sg = run_json(&sglang("kimi-sglang", ""));
    let (n, bytes) = state_pool(&sg);
    assert!(n > 0);
    assert_eq!(bytes, n * 21_708_800, "{n} requests");
    let sg16 = run_json(&sglang(
        "kimi-sglang-bf16",
        "mamba_ssm_cache_dtype = \"bfloat16\"",
    ));
    let (n16, bytes16) = state_pool(&sg16);
    assert_eq!(bytes16, n16 * 11_223_040, "{n16} requests");

    let vl = run_json(&scenario(KIMI_VLLM));
    let w = memory_warnings(&vl);
    assert!(
        w.iter()
            .any(|l| l.contains("Setting attention block size to 944 tokens")),
        "{w:?}"
    );
    assert!(
        w.iter().any(|l| l.contains("Padding mamba page size by 0.19%")),
        "{w:?}"
    );
    let ssm16 = run_json(&variant("kimi-vllm-ssm16", |t| {
        t.replace("tp = 2\n", "tp = 2\nmamba_ssm_cache_dtype = \"float16\"\n")
    }));
    let w = memory_warnings(&ssm16);
    assert!(
        w.iter()
            .any(|l| l.contains("Setting attention block size to 944 tokens")),
        "{w:?}"
    );
    assert!(
        w.iter()
            .any(|l| l.contains("kda_state_dtype keeps the recurrent state float32")),
        "{w:?}"
    );
    let conv32 = run_json(&variant("kimi-vllm-conv32", |t| {
        t.replace("tp = 2\n", "tp = 2\nmamba_cache_dtype = \"float32\"\n")
    }));
    let w = memory_warnings(&conv32);
    assert!(
        w.iter()
            .any(|l| l.contains("Setting attention block size to 976 tokens")),
        "{w:?}"
    );
}

/// SGLang ships `models/kimi_linear.py` from 0.5.4.post2 and vLLM from 0.11.1 (the wheels' file lists):
/// earlier releases are refused on `engine.version`; the first ones run.
#[test]
fn kimi_linear_before_its_first_releases_is_refused() {
    let run = |p: &str| tpsim(&["run", p]);
    let old = run(&sglang("kimi-sglang-0.5.4.post1", "version = \"0.5.4.post1\""));
    assert_ne!(old.code, 0, "{}", old.stdout);
    assert!(old.stderr.contains("engine.version"), "{}", old.stderr);
    assert!(
        old.stderr
            .contains("SGLang 0.5.4.post1 has no models/kimi_linear.py"),
        "{}",
        old.stderr
    );
    let first = run(&sglang("kimi-sglang-0.5.4.post2", "version = \"0.5.4.post2\""));
    assert!(!first.stderr.contains("kimi_linear.py"), "{}", first.stderr);
    let with = |v: &str| {
        variant(&format!("kimi-vllm-{v}"), |t| {
            t.replace("[engine]\n", &format!("[engine]\nversion = \"{v}\"\n"))
        })
    };
    let old = run(&with("0.11.0"));
    assert_ne!(old.code, 0, "{}", old.stdout);
    assert!(
        old.stderr.contains("vLLM 0.11.0 has no models/kimi_linear.py"),
        "{}",
        old.stderr
    );
    let ok = run(&with("0.11.1"));
    assert!(!ok.stderr.contains("kimi_linear.py"), "{}", ok.stderr);
    assert!(
        ok.stdout.contains("vLLM 0.11.1 (engine.version)"),
        "{}",
        ok.stdout
    );
}
