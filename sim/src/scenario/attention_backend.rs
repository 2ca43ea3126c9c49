//! `engine.attention_backend` (issue #16): the decode attention kernel, whose KV-cache reads stream at
//! the hardware's `[compute.attention_backends.<name>]` factor (1 without one).
//!
//! SGLang: the names `--attention-backend` accepts (SGLang 0.5.9 `server_args.py`
//! `ATTENTION_BACKEND_CHOICES`), and its default when none is given, paraphrasing
//! `ServerArgs._handle_attention_backend_compatibility` (0.5.9) for NVIDIA GPUs:
//! - MHA models: Hopper (SM 9.0, CUDA ≥ 12.3 assumed) → `fa3`; SM 10.x (B200/GB200/B300) → `trtllm_mha`
//!   (both only without speculative decoding with topk > 1; tpsim assumes topk 1 here); otherwise
//!   `flashinfer` (assumed installed; SGLang falls back to `triton` without it). SM 12.0 (RTX PRO 6000,
//!   RTX 5090) is not SM 10.x: `flashinfer`.
//! - MLA models: Hopper → `fa3`; SM 10.x → `flashinfer`; otherwise `triton`.
//!
//! Not applied: the model-specific overrides earlier in SGLang's `_handle_model_specific_adjustments`
//! (e.g. NSA for DeepSeek-V3.2, `trtllm_mla` for DeepSeek on SM 10.x, hybrid-attention models' lists):
//! set `engine.attention_backend` for those.
//!
//! vLLM (issues #17/#18, newdeploys): `--attention-backend` takes a member name of
//! `AttentionBackendEnum` (`vllm/v1/attention/backends/registry.py`, read at commit 0033bf0), parsed by
//! the enum's metaclass, whose refusal text tpsim quotes. vLLM's own choice when none is given is not
//! modelled: a vLLM scenario without the key has no backend (no factor); one with it selects the
//! hardware's `[compute.attention_backends.<name>]` curve under that name (factor 1 without one), as
//! for SGLang. Not checked: whether the backend supports the model (MLA or not), the GPU or the KV
//! dtype (vLLM's `validate_configuration` reasons).

use super::{EngineKind, ScenarioError};
use tpsim_model::llm::{Attention, ModelSpec};

/// SGLang 0.5.9 `ATTENTION_BACKEND_CHOICES`.
pub const SGLANG_ATTENTION_BACKENDS: [&str; 17] = [
    "triton",
    "torch_native",
    "flex_attention",
    "nsa",
    "cutlass_mla",
    "fa3",
    "fa4",
    "flashinfer",
    "flashmla",
    "trtllm_mla",
    "trtllm_mha",
    "dual_chunk_flash_attn",
    "aiter",
    "wave",
    "intel_amx",
    "ascend",
    "intel_xpu",
];

/// Whether `name` is one of SGLang's backend names.
pub fn is_sglang_backend(name: &str) -> bool {
    SGLANG_ATTENTION_BACKENDS.contains(&name)
}

/// vLLM's `AttentionBackendEnum` member names (`vllm/v1/attention/backends/registry.py` at commit
/// 0033bf0, in the file's order; `CUSTOM`, a placeholder that must be registered before use, left out).
pub const VLLM_ATTENTION_BACKENDS: [&str; 25] = [
    "FLASH_ATTN",
    "FLASH_ATTN_DIFFKV",
    "TRITON_ATTN",
    "ROCM_ATTN",
    "ROCM_AITER_MLA",
    "ROCM_AITER_TRITON_MLA",
    "ROCM_AITER_FA",
    "ROCM_AITER_MLA_SPARSE",
    "XPU_MLA_SPARSE",
    "TORCH_SDPA",
    "FLASHINFER",
    "FLASHINFER_MLA",
    "FLASHINFER_MLA_SPARSE",
    "TRITON_MLA",
    "TRITON_MLA_SPARSE",
    "CUTLASS_MLA",
    "FLASHMLA",
    "FLASHMLA_SPARSE",
    "FLASH_ATTN_MLA",
    "NO_ATTENTION",
    "FLEX_ATTENTION",
    "TREE_ATTN",
    "ROCM_AITER_UNIFIED_ATTN",
    "CPU_ATTN",
    "TURBOQUANT",
];

/// Whether `name` is one of vLLM's backend names.
pub fn is_vllm_backend(name: &str) -> bool {
    VLLM_ATTENTION_BACKENDS.contains(&name)
}

/// Whether `name` names a backend of either engine (a hardware curve may be written for either).
pub fn is_known_backend(name: &str) -> bool {
    is_sglang_backend(name) || is_vllm_backend(name)
}

/// SGLang's default backend for `model` on a GPU of `compute_capability` ("9.0", "12.0", …).
pub fn sglang_default(compute_capability: &str, model: &ModelSpec) -> &'static str {
    let major = tpsim_model::hw::sm_major(compute_capability);
    let mla = matches!(model.attention, Attention::Mla { .. });
    match (mla, major) {
        (_, 9) => "fa3",
        (false, 10) => "trtllm_mha",
        (false, _) => "flashinfer",
        (true, 10) => "flashinfer",
        (true, _) => "triton",
    }
}

/// The backend in force: the scenario's (checked against the engine's names) or the engine's default.
pub(super) fn resolve(
    given: Option<String>,
    kind: EngineKind,
    compute_capability: &str,
    model: &ModelSpec,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Option<String>, ScenarioError> {
    let key = "engine.attention_backend";
    match (kind, given) {
        (EngineKind::Vllm, None) => Ok(None),
        (EngineKind::Vllm, Some(b)) if is_vllm_backend(&b) => Ok(Some(b)),
        // The registry's placeholder: `get_path` refuses it unregistered.
        (EngineKind::Vllm, Some(b)) if b == "CUSTOM" => Err(invalid(
            key,
            "vLLM refuses: \"Backend CUSTOM must be registered before use. Use \
             register_backend(Backend.CUSTOM, 'your.module.YourClass')\""
                .to_string(),
        )),
        // `_AttentionBackendEnumMeta.__getitem__`'s message (its list includes CUSTOM).
        (EngineKind::Vllm, Some(b)) => Err(invalid(
            key,
            format!(
                "vLLM refuses: \"Unknown attention backend: '{b}'. Valid options are: {}, CUSTOM\"",
                VLLM_ATTENTION_BACKENDS.join(", ")
            ),
        )),
        (_, Some(b)) if is_sglang_backend(&b) => Ok(Some(b)),
        (_, Some(b)) => Err(invalid(
            key,
            format!(
                "`{b}` is not an SGLang --attention-backend: expected one of {}",
                SGLANG_ATTENTION_BACKENDS.join(", ")
            ),
        )),
        (_, None) => Ok(Some(sglang_default(compute_capability, model).to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpsim_model::llm::Quantization;

    fn model(config: &str) -> ModelSpec {
        ModelSpec::from_config_json(config, Quantization::bf16()).unwrap()
    }

    #[test]
    fn sglang_defaults_by_arch_and_attention() {
        let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
        let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
        // MHA: H100/H200 fa3, B200 trtllm_mha, RTX PRO 6000 (12.0) and Ampere flashinfer.
        assert_eq!(sglang_default("9.0", &llama), "fa3");
        assert_eq!(sglang_default("10.0", &llama), "trtllm_mha");
        assert_eq!(sglang_default("12.0", &llama), "flashinfer");
        assert_eq!(sglang_default("8.0", &llama), "flashinfer");
        // MLA: Hopper fa3, SM 10.x flashinfer, else triton.
        assert_eq!(sglang_default("9.0", &ds), "fa3");
        assert_eq!(sglang_default("10.0", &ds), "flashinfer");
        assert_eq!(sglang_default("12.0", &ds), "triton");
    }

    #[test]
    fn names_are_checked_per_engine() {
        let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
        let err = |k: &str, m: String| ScenarioError::Io {
            file: k.to_string(),
            message: m,
        };
        let r = resolve(None, EngineKind::Sglang, "12.0", &llama, err);
        assert_eq!(r.unwrap().as_deref(), Some("flashinfer"));
        let r = resolve(Some("triton".into()), EngineKind::Sglang, "12.0", &llama, err);
        assert_eq!(r.unwrap().as_deref(), Some("triton"));
        let e = resolve(Some("flash_attn".into()), EngineKind::Sglang, "12.0", &llama, err)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("engine.attention_backend") && e.contains("fa3, fa4, flashinfer"),
            "{e}"
        );
        assert_eq!(
            resolve(None, EngineKind::Vllm, "12.0", &llama, err).unwrap(),
            None
        );
        // vLLM: its enum's member names, upper case as its parser reads them.
        let r = resolve(Some("TRITON_MLA".into()), EngineKind::Vllm, "12.0", &llama, err);
        assert_eq!(r.unwrap().as_deref(), Some("TRITON_MLA"));
        let e = resolve(Some("triton".into()), EngineKind::Vllm, "12.0", &llama, err)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains(
                "Unknown attention backend: 'triton'. Valid options are: FLASH_ATTN, FLASH_ATTN_DIFFKV,"
            ) && e.ends_with("CPU_ATTN, TURBOQUANT, CUSTOM\""),
            "{e}"
        );
        let e = resolve(Some("CUSTOM".into()), EngineKind::Vllm, "12.0", &llama, err)
            .unwrap_err()
            .to_string();
        assert!(e.contains("Backend CUSTOM must be registered before use"), "{e}");
    }
}
