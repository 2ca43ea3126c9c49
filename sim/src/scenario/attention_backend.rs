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
//! set `engine.attention_backend` for those. vLLM's backend selection is not modelled: a backend given
//! for vLLM is refused, and vLLM scenarios get no backend factor.

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
        (EngineKind::Vllm, Some(b)) => Err(invalid(
            key,
            format!(
                "`{b}`: vLLM's attention backend selection is not modelled; expected no attention_backend with vLLM"
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
        let e = resolve(Some("triton".into()), EngineKind::Vllm, "12.0", &llama, err)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not modelled"), "{e}");
    }
}
