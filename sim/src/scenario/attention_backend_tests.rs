//! Tests of `attention_backend` (split out to keep the module short; vllmattn2).

use super::*;
use tpsim_model::llm::Quantization;

fn model(config: &str) -> ModelSpec {
    ModelSpec::from_config_json(config, Quantization::bf16()).unwrap()
}

/// b200pg50: one row of a by-release table of SGLang's default: every version in `versions` on
/// compute capability `cc` picks `want` for `model` under `rule` ([`sglang_default`], 0.5.9's rule
/// with the MLA model rule, or [`sglang_default_for`], the rule by release).
type Rule = fn(&str, &str, &ModelSpec) -> &'static str;

fn check_defaults(rule: Rule, rows: &[(&[&str], &str, &ModelSpec, &str)]) {
    for (versions, cc, model, want) in rows {
        for v in *versions {
            assert_eq!(rule(v, cc, model), *want, "{v} on SM {cc}, {}", model.name);
        }
    }
}

#[test]
fn sglang_defaults_by_arch_and_attention() {
    let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
    let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
    // MHA: H100/H200 fa3, B200 trtllm_mha, RTX PRO 6000 (12.0) and Ampere flashinfer. MLA: Hopper
    // fa3, SM 10.x flashinfer (DeepSeek-V3 before 0.5.4), else triton.
    check_defaults(
        sglang_default,
        &[
            (&["0.5.9"], "9.0", &llama, "fa3"),
            (&["0.5.9"], "10.0", &llama, "trtllm_mha"),
            (&["0.5.9"], "12.0", &llama, "flashinfer"),
            (&["0.5.9"], "8.0", &llama, "flashinfer"),
            (&["0.5.9"], "9.0", &ds, "fa3"),
            (&["0.5.3"], "10.0", &ds, "flashinfer"),
            (&["0.5.9"], "12.0", &ds, "triton"),
        ],
    );
}

/// mla49: SGLang's MLA default on SM 10.x by release and architecture (module doc; the wheels'
/// `server_args.py` `_handle_model_specific_adjustments`): `DeepseekV3ForCausalLM` (DeepSeek-V3,
/// Kimi-K2) → `trtllm_mla` from 0.5.4 (0.5.3 has no model rule: the generic `flashinfer`);
/// `KimiK25ForConditionalGeneration` only from 0.5.9 (0.5.8's list lacks it); GLM-4.7-Flash
/// (`Glm4MoeLiteForCausalLM`) never; DeepSeek-V3.2 (DSA: `is_deepseek_nsa`) never; Hopper keeps
/// `fa3`; an SM 12.0 GPU is not `is_sm100_supported` (`triton`).
#[test]
fn sglang_trtllm_mla_default_by_release() {
    let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
    let k2 = model(include_str!(
        "../../../scenarios/models/kimi-k2-instruct/config.json"
    ));
    let k25 = model(include_str!("../../../scenarios/models/kimi-k2.5/config.json"));
    let glm = model(include_str!(
        "../../../scenarios/models/glm-4.7-flash/config.json"
    ));
    let v32 = model(include_str!(
        "../../../scenarios/models/deepseek-v3.2/config.json"
    ));
    let before: &[&str] = &["0.4.10", "0.4.10.post2", "0.5.0rc2", "0.5.1", "0.5.2", "0.5.3"];
    let from: &[&str] = &[
        "0.5.4",
        "0.5.5",
        "0.5.6.post1",
        "0.5.7",
        "0.5.8",
        "0.5.9",
        "0.5.10",
    ];
    check_defaults(
        sglang_default,
        &[
            (before, "10.0", &ds, "flashinfer"),
            (from, "10.0", &ds, "trtllm_mla"),
            (from, "10.0", &k2, "trtllm_mla"),
            (from, "9.0", &ds, "fa3"),
            (from, "12.0", &ds, "triton"),
            (from, "10.0", &glm, "flashinfer"),
            (from, "10.0", &v32, "flashinfer"),
            (&["0.5.8"], "10.0", &k25, "flashinfer"),
            (&["0.5.9"], "10.0", &k25, "trtllm_mla"),
            // An unreadable version: no model rule.
            (&["main"], "10.0", &ds, "flashinfer"),
        ],
    );
}

/// mla49: `_handle_attention_backend_compatibility`'s checks with `trtllm_mla` in force: page 1
/// (not given: SGLang prints `None`) and 16 become 64, 32 and 64 stay; an SM 9.0 GPU refuses in every
/// release, an SM 12.0 one up to 0.5.4 (`is_sm100_supported`) but not from 0.5.5
/// (`is_blackwell_supported`); fp8_e5m2 KV refuses from 0.5.0rc2 (0.4.10.post1 has no check), bf16
/// up to 0.5.6.post1, fp4_e2m1 up to 0.5.4; speculative decoding refuses up to 0.5.0rc2 only.
#[test]
fn sglang_trtllm_mla_checks() {
    use tpsim_model::llm::KvCacheDtype as K;
    let ok = |v, cc, kv, page, given, spec| sglang_trtllm_mla_settle(v, cc, kv, page, given, spec);
    let (page, w) = ok("0.5.6.post1", "10.0", K::Auto, 1, false, false).unwrap();
    assert_eq!(page, 64);
    assert_eq!(
        w.as_deref(),
        Some(
            "SGLang: TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from None to 64."
        )
    );
    let (page, w) = ok("0.5.6.post1", "10.0", K::Auto, 16, true, false).unwrap();
    assert_eq!(page, 64);
    assert!(w.unwrap().contains("changing page_size from 16 to 64."));
    assert_eq!(
        ok("0.5.6.post1", "10.0", K::Fp8E4m3, 32, true, false).unwrap(),
        (32, None)
    );
    assert_eq!(
        ok("0.5.6.post1", "10.0", K::Auto, 64, true, false).unwrap(),
        (64, None)
    );
    let e = ok("0.5.6.post1", "9.0", K::Auto, 1, false, false).unwrap_err();
    assert!(
        e.contains("only supported on Blackwell GPUs (SM100). Please use"),
        "{e}"
    );
    let e = ok("0.5.9", "9.0", K::Auto, 1, false, false).unwrap_err();
    assert!(e.contains("Blackwell GPUs (SM100/SM12x)"), "{e}");
    assert!(ok("0.5.4", "12.0", K::Auto, 1, false, false).is_err());
    assert!(ok("0.5.5", "12.0", K::Auto, 1, false, false).is_ok());
    assert!(ok("0.4.10.post1", "10.0", K::Fp8E5m2, 1, false, false).is_ok());
    let e = ok("0.5.3", "10.0", K::Fp8E5m2, 1, false, false).unwrap_err();
    assert!(e.contains("kv-cache-dtype of fp8_e4m3 or auto."), "{e}");
    let e = ok("0.5.6.post1", "10.0", K::Bf16, 1, false, false).unwrap_err();
    assert!(
        e.contains("kv-cache-dtype of fp8_e4m3, fp4_e2m1, or auto."),
        "{e}"
    );
    assert!(ok("0.5.8", "10.0", K::Bf16, 1, false, false).is_ok());
    assert!(ok("0.5.4", "10.0", K::Fp4E2m1, 1, false, false).is_err());
    assert!(ok("0.5.5", "10.0", K::Fp4E2m1, 1, false, false).is_ok());
    let e = ok("0.5.0rc2", "10.0", K::Auto, 1, false, true).unwrap_err();
    assert!(e.contains("does not support speculative decoding yet."), "{e}");
    assert!(ok("0.5.1", "10.0", K::Auto, 1, false, true).is_ok());
}

#[test]
fn names_are_checked_per_engine() {
    let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
    let err = |k: &str, m: String| ScenarioError::Io {
        file: k.to_string(),
        message: m,
    };
    let r = resolve(None, EngineKind::Sglang, "0.5.9", "12.0", &llama, err);
    assert_eq!(r.unwrap().as_deref(), Some("flashinfer"));
    let r = resolve(
        Some("triton".into()),
        EngineKind::Sglang,
        "0.5.9",
        "12.0",
        &llama,
        err,
    );
    assert_eq!(r.unwrap().as_deref(), Some("triton"));
    let e = resolve(
        Some("flash_attn".into()),
        EngineKind::Sglang,
        "0.5.9",
        "12.0",
        &llama,
        err,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("engine.attention_backend") && e.contains("fa3, fa4, flashinfer"),
        "{e}"
    );
    assert_eq!(
        resolve(None, EngineKind::Vllm, "0.11.0", "12.0", &llama, err).unwrap(),
        None
    );
    // vLLM: its enum's member names, upper case as its parser reads them.
    let r = resolve(
        Some("TRITON_MLA".into()),
        EngineKind::Vllm,
        "0.11.0",
        "12.0",
        &llama,
        err,
    );
    assert_eq!(r.unwrap().as_deref(), Some("TRITON_MLA"));
    let e = resolve(
        Some("triton".into()),
        EngineKind::Vllm,
        "0.11.0",
        "12.0",
        &llama,
        err,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("Unknown attention backend: 'triton'. Valid options are: FLASH_ATTN, FLASH_ATTN_DIFFKV,")
            && e.ends_with("CPU_ATTN, TURBOQUANT, CUSTOM\""),
        "{e}"
    );
    let e = resolve(
        Some("CUSTOM".into()),
        EngineKind::Vllm,
        "0.11.0",
        "12.0",
        &llama,
        err,
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("Backend CUSTOM must be registered before use"), "{e}");
}

/// vllmattn: vLLM's pick, worked by hand from each release's `vllm/platforms/cuda.py` priority
/// list and the backends' checks (PyPI sdists 0.11.0, 0.14.1, 0.16.0, 0.17.0, 0.19.0; the
/// per-backend facts are listed on `vllm_reasons`, `vllm_default` and `vllm_block`). Exact.
#[test]
fn vllm_defaults_by_release_gpu_and_model() {
    use tpsim_model::llm::{KvCacheDtype, WeightDtype};
    let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
    let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
    let oss = model(include_str!("../../../scenarios/models/gpt-oss-120b/config.json"));
    let mut llama_fp8 = llama.clone();
    llama_fp8.quantization.kv_cache_dtype = KvCacheDtype::Fp8E4m3;
    let mut ds_fp8 = ds.clone();
    ds_fp8.quantization.kv_cache_dtype = KvCacheDtype::Fp8E4m3;
    let mut llama_f32 = llama.clone();
    llama_f32.dtype = WeightDtype::Fp32;
    let p =
        |v: &str, cc: &str, m: &ModelSpec| vllm_default(v, cc, m, None).map(|p| (p.backend, p.block_size));
    // Hopper MHA: FLASH_ATTN first in every release (0.11.0: "FlashAttention is the default for
    // SM 8.0+"; 0.14+: first of the non-SM-10 list, FA3 on SM 9.0).
    assert_eq!(p("0.19.0", "9.0", &llama), Some(("FLASH_ATTN", None)));
    assert_eq!(p("0.11.0", "9.0", &llama), Some(("FLASH_ATTN", None)));
    // fp8 KV: FA3 on Hopper takes it; FA2 on SM 12.0 does not → FLASHINFER (0.19), TRITON_ATTN
    // (0.11.0: sinks or fp8 KV off SM 9.0).
    assert_eq!(p("0.19.0", "9.0", &llama_fp8), Some(("FLASH_ATTN", None)));
    assert_eq!(p("0.19.0", "12.0", &llama_fp8), Some(("FLASHINFER", None)));
    assert_eq!(p("0.11.0", "12.0", &llama_fp8), Some(("TRITON_ATTN", None)));
    // SM 12.0 MHA: FLASH_ATTN (SM ≥ 8.0); SM 10.0: FLASHINFER first.
    assert_eq!(p("0.19.0", "12.0", &llama), Some(("FLASH_ATTN", None)));
    assert_eq!(p("0.19.0", "10.0", &llama), Some(("FLASHINFER", None)));
    assert_eq!(p("0.11.0", "10.0", &llama), Some(("FLASHINFER", None)));
    // Hopper MLA: 0.19 FLASH_ATTN_MLA at block 16; 0.17/0.16/0.14 FLASH_ATTN_MLA but the block
    // forced to 64 for FlashMLA in `check_and_update_config`; 0.11.0 FLASHMLA, block 64.
    assert_eq!(p("0.19.0", "9.0", &ds), Some(("FLASH_ATTN_MLA", None)));
    assert_eq!(p("0.17.0", "9.0", &ds), Some(("FLASH_ATTN_MLA", Some(64))));
    assert_eq!(p("0.14.1", "9.0", &ds), Some(("FLASH_ATTN_MLA", Some(64))));
    assert_eq!(p("0.11.0", "9.0", &ds), Some(("FLASHMLA", Some(64))));
    // fp8 KV on Hopper: FLASH_ATTN_MLA refuses it → FLASHMLA, preferred block 64 (0.19).
    assert_eq!(p("0.19.0", "9.0", &ds_fp8), Some(("FLASHMLA", Some(64))));
    // SM 12.0 MLA: FLASH_ATTN_MLA (9.x), FLASHMLA (9/10), FLASHINFER_MLA (10.x) off → TRITON_MLA.
    assert_eq!(p("0.19.0", "12.0", &ds), Some(("TRITON_MLA", None)));
    assert_eq!(p("0.11.0", "12.0", &ds), Some(("TRITON_MLA", None)));
    // …with fp8 KV: TRITON_MLA takes it from 0.19 only; 0.17.0 has no valid backend (vLLM raises
    // "No valid attention backend found"): no pick.
    assert_eq!(p("0.19.0", "12.0", &ds_fp8), Some(("TRITON_MLA", None)));
    assert_eq!(p("0.17.0", "12.0", &ds_fp8), None);
    // SM 10.0 MLA (qk_nope_head_dim 128): 0.19 FLASHINFER_MLA, preferred block min(32, 64) = 32;
    // 0.17 FLASHINFER_MLA forced to 64; 0.14.1 and 0.11.0 CUTLASS_MLA forced to 128.
    assert_eq!(p("0.19.0", "10.0", &ds), Some(("FLASHINFER_MLA", Some(32))));
    assert_eq!(p("0.17.0", "10.0", &ds), Some(("FLASHINFER_MLA", Some(64))));
    assert_eq!(p("0.14.1", "10.0", &ds), Some(("CUTLASS_MLA", Some(128))));
    assert_eq!(p("0.11.0", "10.0", &ds), Some(("CUTLASS_MLA", Some(128))));
    // float32: FLASH_ATTN and FLASHINFER take fp16/bf16 only → TRITON_ATTN (0.19);
    // 0.11.0 falls back to FLEX_ATTENTION.
    assert_eq!(p("0.19.0", "9.0", &llama_f32), Some(("TRITON_ATTN", None)));
    assert_eq!(p("0.11.0", "9.0", &llama_f32), Some(("FLEX_ATTENTION", None)));
    // gpt-oss sinks: FA3 on Hopper takes them; FlashInfer only with TRT-LLM attention (SM 10.x);
    // SM 12.0 and Ampere → TRITON_ATTN.
    assert_eq!(p("0.19.0", "9.0", &oss), Some(("FLASH_ATTN", None)));
    assert_eq!(p("0.19.0", "10.0", &oss), Some(("FLASHINFER", None)));
    assert_eq!(p("0.19.0", "12.0", &oss), Some(("TRITON_ATTN", None)));
    assert_eq!(p("0.19.0", "8.0", &oss), Some(("TRITON_ATTN", None)));
    assert_eq!(p("0.11.0", "12.0", &oss), Some(("TRITON_ATTN", None)));
    // Out of sample: vllm#33155 (tests/data/engine-memory.tsv, vLLM 0.14.1, gpt-oss-120b, one
    // H100) logs "Using FLASH_ATTN attention backend".
    assert_eq!(p("0.14.1", "9.0", &oss), Some(("FLASH_ATTN", None)));
    // 0.20.0: 0.19.0's rules for these inputs; releases not read (after 0.20): no pick.
    assert_eq!(p("0.20.0", "9.0", &llama), Some(("FLASH_ATTN", None)));
    assert_eq!(p("0.20.2", "10.0", &ds), Some(("FLASHINFER_MLA", Some(32))));
    assert_eq!(p("0.20.0", "9.0", &ds_fp8), Some(("FLASHMLA", Some(64))));
    assert_eq!(p("0.20.0", "12.0", &ds_fp8), Some(("TRITON_MLA", None)));
    assert_eq!(p("0.20.0", "12.0", &oss), Some(("TRITON_ATTN", None)));
    let mut wide = llama.clone();
    if let Attention::Gqa { head_dim, .. } = &mut wide.attention {
        *head_dim = 512;
    }
    assert_eq!(p("0.20.0", "9.0", &wide), None);
    assert_eq!(p("0.21.0", "9.0", &llama), None);
    // 0.19 with a user's --block-size 16: FLASHINFER_MLA (32, 64) and CUTLASS_MLA (128) refuse
    // it, FLASH_ATTN_MLA and FLASHMLA are off SM 10 → TRITON_MLA, block kept.
    assert_eq!(
        vllm_default("0.19.0", "10.0", &ds, Some(16)),
        Some(VllmPick {
            backend: "TRITON_MLA",
            block_size: None
        })
    );
}

/// vllmattn2: vLLM 0.12.0, 0.13.0 and 0.15.1, worked by hand from their `vllm/platforms/cuda.py`
/// (0.12.0/0.13.0 sdists, 0.15.1 wheel) and the backends' checks (`vllm_reasons`). Exact.
#[test]
fn vllm_defaults_for_0_12_0_13_0_15() {
    use tpsim_model::llm::KvCacheDtype;
    let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
    let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
    let oss = model(include_str!("../../../scenarios/models/gpt-oss-120b/config.json"));
    let mut llama_fp8 = llama.clone();
    llama_fp8.quantization.kv_cache_dtype = KvCacheDtype::Fp8E4m3;
    let mut ds_fp8 = ds.clone();
    ds_fp8.quantization.kv_cache_dtype = KvCacheDtype::Fp8E4m3;
    // An MLA model with qk_nope_head_dim 192 (FlashInfer MLA's kernel constraint, 0.15–0.17).
    let mut ds192 = ds.clone();
    if let Attention::Mla { qk_nope_head_dim, .. } = &mut ds192.attention {
        *qk_nope_head_dim = 192;
    }
    let p =
        |v: &str, cc: &str, m: &ModelSpec| vllm_default(v, cc, m, None).map(|p| (p.backend, p.block_size));
    for v in ["0.12.0", "0.13.0", "0.15.1"] {
        // MHA: FLASH_ATTN first off SM 10.x (FA2 needs SM ≥ 8.0), FLASHINFER first on SM 10.x.
        assert_eq!(p(v, "8.0", &llama), Some(("FLASH_ATTN", None)), "{v}");
        assert_eq!(p(v, "9.0", &llama), Some(("FLASH_ATTN", None)), "{v}");
        assert_eq!(p(v, "10.0", &llama), Some(("FLASHINFER", None)), "{v}");
        assert_eq!(p(v, "12.0", &llama), Some(("FLASH_ATTN", None)), "{v}");
        // fp8 KV: FA3 (SM 9.x) takes it; FA2 on SM 12.0 does not → FLASHINFER.
        assert_eq!(p(v, "9.0", &llama_fp8), Some(("FLASH_ATTN", None)), "{v}");
        assert_eq!(p(v, "12.0", &llama_fp8), Some(("FLASHINFER", None)), "{v}");
        // Sinks: FLASH_ATTN refuses them below SM 9.0, FLASHINFER off SM 10.x → TRITON_ATTN.
        assert_eq!(p(v, "8.0", &oss), Some(("TRITON_ATTN", None)), "{v}");
        assert_eq!(p(v, "10.0", &oss), Some(("FLASHINFER", None)), "{v}");
        // Hopper MLA: FLASH_ATTN_MLA, block forced to FlashMLA's 64 (16 % 64 ≠ 0); fp8 KV:
        // FLASH_ATTN_MLA refuses it → FLASHMLA, same block.
        assert_eq!(p(v, "9.0", &ds), Some(("FLASH_ATTN_MLA", Some(64))), "{v}");
        assert_eq!(p(v, "9.0", &ds_fp8), Some(("FLASHMLA", Some(64))), "{v}");
        // SM 12.0 MLA: only TRITON_MLA passes; with fp8 KV not even it (fp8 from 0.19).
        assert_eq!(p(v, "12.0", &ds), Some(("TRITON_MLA", None)), "{v}");
        assert_eq!(p(v, "12.0", &ds_fp8), None, "{v}");
    }
    // SM 10.0 MLA: 0.12/0.13 CUTLASS_MLA first, block forced to 128; 0.15.1 FLASHINFER_MLA first,
    // block forced to 64 (16 is neither 32 nor a multiple of 64).
    assert_eq!(p("0.12.0", "10.0", &ds), Some(("CUTLASS_MLA", Some(128))));
    assert_eq!(p("0.13.0", "10.0", &ds), Some(("CUTLASS_MLA", Some(128))));
    assert_eq!(p("0.15.1", "10.0", &ds), Some(("FLASHINFER_MLA", Some(64))));
    // SM 10.3 (B300): 0.12.0 forces CUTLASS's 128 on SM 10.0 only (`is_device_capability(100)`)
    // and FlashMLA's 64 on Hopper only → block kept; 0.13.0 on the SM 10.x family → 128.
    assert_eq!(p("0.12.0", "10.3", &ds), Some(("CUTLASS_MLA", None)));
    assert_eq!(p("0.13.0", "10.3", &ds), Some(("CUTLASS_MLA", Some(128))));
    // qk_nope_head_dim 192 on SM 10.0: FLASHINFER_MLA's combination check refuses it in
    // 0.15.1–0.17.0 → CUTLASS_MLA at 128; 0.19.0 takes 64/128/192 → FLASHINFER_MLA at 32.
    assert_eq!(p("0.15.1", "10.0", &ds192), Some(("CUTLASS_MLA", Some(128))));
    assert_eq!(p("0.17.0", "10.0", &ds192), Some(("CUTLASS_MLA", Some(128))));
    assert_eq!(p("0.19.0", "10.0", &ds192), Some(("FLASHINFER_MLA", Some(32))));
    // Named backends: 0.12.0 refuses with the same text (its sink reason's wording).
    assert_eq!(
        vllm_check("FLASH_ATTN", "0.12.0", "8.0", &oss, None),
        Err(
            "vLLM refuses: \"Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this \
             configuration. Reason: ['sink setting not supported', 'sink not supported on \
             compute capability < 9.0']\""
                .to_string()
        )
    );
    let w = vllm_check("FLASHINFER_MLA", "0.15.1", "10.0", &ds192, None)
        .unwrap()
        .unwrap();
    assert!(
        w.contains("FlashInfer MLA kernel requires qk_nope_head_dim == 128, but got 192"),
        "{w}"
    );
    assert_eq!(
        vllm_check("FLASHINFER_MLA", "0.14.1", "10.0", &ds192, None),
        Ok(None)
    );
    assert_eq!(
        vllm_named_block("FLASHINFER_MLA", "0.13.0", "10.0", &ds, None),
        Some(64)
    );
}

/// vllmattn: vLLM 0.12–0.19 refuses a named backend its checks reject, with
/// `get_attn_backend_cls`'s text; FlashMLA off Hopper only warns (combination text not certain).
#[test]
fn vllm_refuses_unsuitable_named_backends() {
    use tpsim_model::llm::WeightDtype;
    let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
    let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
    let oss = model(include_str!("../../../scenarios/models/gpt-oss-120b/config.json"));
    let mut llama_f32 = llama.clone();
    llama_f32.dtype = WeightDtype::Fp32;
    assert_eq!(
        vllm_check("FLASH_ATTN", "0.19.0", "9.0", &llama_f32, None),
        Err(
            "vLLM refuses: \"Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this \
             configuration. Reason: ['dtype not supported']\""
                .to_string()
        )
    );
    // FA2 on an A100 with gpt-oss's sinks: both the sink check and the combination check.
    assert_eq!(
        vllm_check("FLASH_ATTN", "0.17.0", "8.0", &oss, None),
        Err(
            "vLLM refuses: \"Selected backend AttentionBackendEnum.FLASH_ATTN is not valid for this \
             configuration. Reason: ['sink setting not supported', 'sink not supported on \
             compute capability < 9.0']\""
                .to_string()
        )
    );
    // An MHA backend for an MLA model.
    assert!(
        vllm_check("FLASHINFER", "0.19.0", "12.0", &ds, None)
            .unwrap_err()
            .contains("Reason: ['head_size not supported', 'MLA not supported']")
    );
    let w = vllm_check("FLASHMLA", "0.19.0", "12.0", &ds, None)
        .unwrap()
        .unwrap();
    assert!(w.contains("compute capability not supported"), "{w}");
    assert_eq!(vllm_check("TRITON_MLA", "0.19.0", "12.0", &ds, None), Ok(None));
    // 0.11.0 took a named backend unchecked.
    assert_eq!(
        vllm_check("FLASH_ATTN", "0.11.0", "9.0", &llama_f32, None),
        Ok(None)
    );
    // Named FLASHMLA forces its block: 64 on Hopper (0.17.0; 0.19.0 preferred size), none when the
    // user's --block-size is a multiple of 64 (0.17.0) or given at all (0.19.0).
    assert_eq!(vllm_named_block("FLASHMLA", "0.17.0", "9.0", &ds, None), Some(64));
    assert_eq!(
        vllm_named_block("FLASHMLA", "0.17.0", "9.0", &ds, Some(128)),
        None
    );
    assert_eq!(vllm_named_block("FLASHMLA", "0.19.0", "9.0", &ds, None), Some(64));
    assert_eq!(vllm_named_block("FLASHMLA", "0.19.0", "9.0", &ds, Some(16)), None);
    assert_eq!(
        vllm_named_block("CUTLASS_MLA", "0.11.0", "10.0", &ds, None),
        Some(128)
    );
    assert_eq!(
        vllm_named_block("FLASH_ATTN", "0.19.0", "9.0", &llama, None),
        None
    );
}

/// mla49: the DeepSeek-R1-0528 8× B200 run of the SGLang cookbook as
/// `scenarios/validation/deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml` sets it (0.5.6.post1, TP 8,
/// no backend given): SGLang picks `trtllm_mla` and its page size 64, where `--attention-backend
/// flashinfer` keeps page 1. The KV cell is MLA's latent and rope per layer, replicated on each rank:
/// 61 layers × (512 + 64) × 2 B = 70,272 B a token. The pool floors the profiled tokens to the page:
/// flashinfer's 1,094,063 tokens (page 1; 1,094,659 before rope51, whose DeepSeek yarn cos/sin cache,
/// 163,840 × 64 × 4 B = 41,943,040 B = 596.9 tokens, comes out of available at 0.5.6; 1,095,184 before
/// mem50, whose kept weight-load segments, 36,855,808 B = 524.5 tokens, do too) = 17,094 × 64 + 47 →
/// 1,094,016 under `trtllm_mla`, and allocates one padded page more: (1,094,016 + 64) × 70,272 =
/// 76,883,189,760 B (flashinfer: (1,094,063 + 1) × 70,272 = 76,882,065,408 B). Exact (integers).
#[test]
fn deepseek_b200_trtllm_mla_pages_the_pool() {
    let text = |backend: &str| {
        format!(
            "[hardware]\npreset = \"b200-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n[engine]\nname = \"sglang\"\n\
             version = \"0.5.6.post1\"\ntp = 8\n{backend}\n[workload]\nconcurrency = 1\nprompt_len = 1000\n\
             output_len = 1000\n"
        )
    };
    let load =
        |t: String| crate::scenario::load_str(&t, std::path::Path::new("mla49.toml")).expect("scenario");
    let trt = load(text(""));
    let fi = load(text("attention_backend = \"flashinfer\""));
    assert_eq!(trt.engine.attention_backend.as_deref(), Some("trtllm_mla"));
    assert_eq!((trt.engine.page_size, fi.engine.page_size), (64, 1));
    assert!(
        trt.warnings
            .iter()
            .any(|w| w.contains("changing page_size from None to 64."))
    );
    let (pt, pf) = (crate::plan_memory(&trt), crate::plan_memory(&fi));
    assert_eq!((pt.cell_size, pf.cell_size), (70_272, 70_272));
    assert_eq!(pf.kv_tokens, 1_094_063);
    assert_eq!(pt.kv_tokens, 1_094_016);
    assert_eq!(pt.kv_tokens, 17_094 * 64);
    assert_eq!(pt.kv_pool.0, 76_883_189_760);
    assert_eq!(pf.kv_pool.0, 76_882_065_408);
}

/// b200moe49: SGLang's default by release (`sglang_default_for`, read in the 0.5.2–0.5.9 wheels).
/// An MHA model on SM 10.0 runs `flashinfer` through 0.5.6 and `trtllm_mha` from 0.5.6.post1; on
/// SM 12.0 0.5.6.post1 / post2's `is_blackwell()` picks `trtllm_mha`, 0.5.7 on `flashinfer` again;
/// Hopper keeps `fa3`; gpt-oss keeps its own `trtllm_mha` on SM 10.0 in 0.5.6; Qwen3-Next takes
/// `triton` on SM 10.0 from 0.5.6 (not on SM 12.0); MLA keeps `flashinfer` on SM 10.0; releases not
/// read (0.4.10, 0.5.10) keep 0.5.9's rule.
#[test]
fn sglang_defaults_by_release() {
    let qwen3 = model(include_str!(
        "../../../scenarios/models/qwen3-235b-a22b/config.json"
    ));
    let oss = model(include_str!("../../../scenarios/models/gpt-oss-120b/config.json"));
    let next = model(include_str!(
        "../../../scenarios/models/qwen3-next-80b-a3b/config.json"
    ));
    let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
    let to_056: &[&str] = &["0.5.2", "0.5.3.post3", "0.5.4", "0.5.5", "0.5.6"];
    let posts: &[&str] = &["0.5.6.post1", "0.5.6.post2"];
    let from_057: &[&str] = &["0.5.7", "0.5.8", "0.5.8.post1", "0.5.9"];
    let next_from: &[&str] = &["0.5.6", "0.5.6.post1", "0.5.7", "0.5.8", "0.5.9"];
    check_defaults(
        sglang_default_for,
        &[
            (to_056, "10.0", &qwen3, "flashinfer"),
            (to_056, "12.0", &qwen3, "flashinfer"),
            (to_056, "9.0", &qwen3, "fa3"),
            (posts, "10.0", &qwen3, "trtllm_mha"),
            (posts, "12.0", &qwen3, "trtllm_mha"),
            (from_057, "10.0", &qwen3, "trtllm_mha"),
            (from_057, "12.0", &qwen3, "flashinfer"),
            (&["0.5.6"], "10.0", &oss, "trtllm_mha"),
            (next_from, "10.0", &next, "triton"),
            (&["0.5.8"], "12.0", &next, "flashinfer"),
            (&["0.5.5"], "10.0", &next, "flashinfer"),
            // DeepSeek-V3/R1 on SM 10.x: `trtllm_mla` from 0.5.4 (mla49, `sglang_trtllm_mla_model`),
            // before it `flashinfer`.
            (&["0.5.6"], "10.0", &ds, "trtllm_mla"),
            (&["0.5.3"], "10.0", &ds, "flashinfer"),
            // Releases not read: 0.5.9's rule.
            (&["0.4.10", "0.5.10"], "10.0", &qwen3, "trtllm_mha"),
        ],
    );
}

/// b200moe49: `trtllm_mha` off SM 10.x is refused with SGLang's text (named on an H100, or as the
/// 0.5.6.post1 default on an RTX PRO 6000); on a B200 it runs.
#[test]
fn sglang_refuses_trtllm_mha_off_sm100() {
    let text =
        "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different backend.";
    for cc in ["9.0", "12.0", "8.0"] {
        let e = sglang_trtllm_mha_check(Some("trtllm_mha"), cc).unwrap_err();
        assert!(e.contains(text), "{e}");
    }
    assert!(sglang_trtllm_mha_check(Some("trtllm_mha"), "10.0").is_ok());
    assert!(sglang_trtllm_mha_check(Some("flashinfer"), "12.0").is_ok());
    assert!(sglang_trtllm_mha_check(None, "12.0").is_ok());
}

/// b200moe49: the refusal through a whole scenario. Llama-3.1-8B at TP 1 under SGLang on one RTX
/// PRO 6000 (SM 12.0): 0.5.6.post1 without a backend defaults to `trtllm_mha` and is refused (the
/// text says it was the default); naming `flashinfer` starts; 0.5.8 defaults to `flashinfer`. A
/// named `trtllm_mha` on an H100 (SM 9.0) is refused under 0.5.8; on a B200 it loads.
#[test]
fn scenarios_refuse_trtllm_mha_off_sm100() {
    use crate::scenario::load_str;
    use std::path::Path;
    let load = |hw: &str, version: &str, extra: &str| {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
             version = \"{version}\"\ntp = 1\n{extra}\n[workload]\nconcurrency = 1\nprompt_len = 1024\n\
             output_len = 16\n"
        );
        load_str(&text, Path::new("trtllm-mha.toml"))
    };
    let pro = "rtx-pro-6000-2x-turin-same-numa";
    let text =
        "TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use a different backend.";
    let e = load(pro, "0.5.6.post1", "").unwrap_err().to_string();
    assert!(
        e.contains(text) && e.contains("engine.attention_backend") && e.contains("default"),
        "{e}"
    );
    let s = load(pro, "0.5.6.post1", "attention_backend = \"flashinfer\"").unwrap();
    assert_eq!(s.engine.attention_backend.as_deref(), Some("flashinfer"));
    let s = load(pro, "0.5.8", "").unwrap();
    assert_eq!(s.engine.attention_backend.as_deref(), Some("flashinfer"));
    let e = load(
        "h100-sxm-8x-nvlink",
        "0.5.8",
        "attention_backend = \"trtllm_mha\"",
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains(text) && !e.contains("default"), "{e}");
    let s = load("b200-8x-nvlink", "0.5.6", "").unwrap();
    assert_eq!(s.engine.attention_backend.as_deref(), Some("flashinfer"));
    let s = load("b200-8x-nvlink", "0.5.6.post1", "").unwrap();
    assert_eq!(s.engine.attention_backend.as_deref(), Some("trtllm_mha"));
}

/// b200pg50: `trtllm_mha`'s page size (every wheel read, 0.5.2–0.5.9): 16, 32 and 64 are kept; any
/// other becomes 64 with SGLang's warning, naming `None` when `--page-size` was not given.
#[test]
fn sglang_trtllm_mha_page_size() {
    for p in [16, 32, 64] {
        assert_eq!(sglang_trtllm_mha_settle(p, true), (p, None));
    }
    let (p, w) = sglang_trtllm_mha_settle(1, false);
    assert_eq!(p, 64);
    assert_eq!(
        w.as_deref(),
        Some(
            "SGLang: TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from None to 64."
        )
    );
    let (p, w) = sglang_trtllm_mha_settle(128, true);
    assert_eq!(p, 64);
    assert!(w.unwrap().ends_with("changing page_size from 128 to 64."));
}

/// b200pg50: Llama-3.1-8B at TP 1 on one B200 under SGLang 0.5.8: the default `trtllm_mha` runs page
/// 64 (warned), `--attention-backend flashinfer` page 1. The KV cell: 32 layers × 8 KV heads × 128 ×
/// 2 (K, V) × 2 B = 131,072 B a token. The pool floors flashinfer's token count to whole pages and
/// allocates one padded page more (as mla49's `trtllm_mla` test): flashinfer's 1,123,171 tokens (1,123,695
/// before mem50, whose float32 RoPE cache, 131,072 positions × 128 × 4 B = 67,108,864 B, and kept
/// weight-load segments, 1,564,672 B, come out of available: 523.9 tokens; page 1, pool
/// (1,123,171 + 1) × 131,072 = 147,216,400,384 B) = 17,549 × 64 + 35 → 1,123,136 under
/// `trtllm_mha`, pool (1,123,136 + 64) × 131,072 = 147,220,070,400 B. Exact (integers). A named `--page-size 32` is kept
/// without a warning; a chunked-prefill size that is no whole number of the settled 64-token pages is
/// refused with SGLang's assertion text.
#[test]
fn b200_trtllm_mha_pages_the_pool() {
    let text = |extra: &str| {
        format!(
            "[hardware]\npreset = \"b200-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
             version = \"0.5.8\"\ntp = 1\n{extra}\n[workload]\nconcurrency = 1\nprompt_len = 1000\n\
             output_len = 1000\n"
        )
    };
    let load = |t: String| crate::scenario::load_str(&t, std::path::Path::new("b200pg50.toml"));
    let trt = load(text("")).expect("scenario");
    let fi = load(text("attention_backend = \"flashinfer\"")).expect("scenario");
    assert_eq!(trt.engine.attention_backend.as_deref(), Some("trtllm_mha"));
    assert_eq!((trt.engine.page_size, fi.engine.page_size), (64, 1));
    assert!(trt.warnings.iter().any(|w| {
        w.contains("MHA only supports page_size of 16, 32 or 64, changing page_size from None to 64.")
    }));
    assert!(
        !fi.warnings
            .iter()
            .any(|w| w.contains("MHA only supports page_size"))
    );
    let (pt, pf) = (crate::plan_memory(&trt), crate::plan_memory(&fi));
    assert_eq!((pt.cell_size, pf.cell_size), (131_072, 131_072));
    assert_eq!(pf.kv_tokens, 1_123_171);
    assert_eq!(pt.kv_tokens, 1_123_136);
    assert_eq!(pt.kv_tokens, 17_549 * 64);
    assert_eq!(pf.kv_pool.0, 1_123_172 * 131_072);
    assert_eq!(pt.kv_pool.0, 1_123_200 * 131_072);
    assert_eq!(pt.kv_pool.0, 147_220_070_400);
    let named = load(text("page_size = 32")).expect("scenario");
    assert_eq!(named.engine.page_size, 32);
    assert!(
        !named
            .warnings
            .iter()
            .any(|w| w.contains("MHA only supports page_size"))
    );
    let e = load(text("chunked_prefill_size = 8200")).unwrap_err().to_string();
    assert!(
        e.contains("engine.chunked_prefill_size") && e.contains("must be divisible by page_size"),
        "{e}"
    );
}

/// mlactx55 (issue #18): SGLang's MLA default before 0.4.7 (`model_executor/model_runner.py`
/// `model_specific_adjustment` of the 0.4.0, 0.4.1, 0.4.3, 0.4.4.post4, 0.4.5, 0.4.6, 0.4.6.post3 and
/// 0.4.7 wheels): `triton` on every GPU to 0.4.5; 0.4.6 `fa3` on Hopper, `triton` elsewhere (SM 10.x
/// included); 0.4.7 adds SM 10.x `flashinfer`.
#[test]
fn sglang_mla_default_before_0_4_7() {
    let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
    let early: &[&str] = &["0.4.0", "0.4.1", "0.4.3", "0.4.4.post4", "0.4.5"];
    check_defaults(
        sglang_default_for,
        &[
            (early, "9.0", &ds, "triton"),
            (early, "10.0", &ds, "triton"),
            (early, "8.0", &ds, "triton"),
            (&["0.4.6", "0.4.6.post3"], "9.0", &ds, "fa3"),
            (&["0.4.6", "0.4.6.post3"], "10.0", &ds, "triton"),
            (&["0.4.7", "0.4.10", "0.5.9"], "9.0", &ds, "fa3"),
            (&["0.4.7", "0.4.10"], "10.0", &ds, "flashinfer"),
        ],
    );
}
