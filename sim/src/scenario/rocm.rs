//! Issue #17 point 4 (ROCm specifics): what SGLang does on an AMD GPU (`is_hip()`) that changes memory.
//!
//! - The default attention backend (SGLang 0.5.9 `server_args.py`,
//!   `_handle_attention_backend_compatibility`, the `is_hip()` branches): `aiter` for MHA models; for
//!   MLA models `aiter` only when the KV heads per rank (`model_config.get_num_kv_heads(tp_size)`) are
//!   16 or 128 ("current aiter only support head number 16 or 128"), else `triton`.
//!   rocm54: that default is taken only when no backend is set by then (0.5.13 `__post_init__` runs
//!   `_handle_model_specific_adjustments` before `_handle_attention_backend_compatibility`, whose
//!   `_get_default_attn_backend` returns `aiter` under `is_hip()` only `if self.attention_backend is
//!   None`). Gemma 4's model rule (0.5.11 on, `scenario::gemma4`) sets its own first — `triton` off
//!   SM 10.x — so Gemma 4 runs `triton` on ROCm, without the AITER reserve or workspace below
//!   (sglang PR 31216 serves Gemma 4 31B bf16 on one MI300X under 0.5.13.post1).
//! - The AITER workspace reserve: with `attention_backend == "aiter"` and a context length above 8192
//!   tokens, SGLang multiplies `mem_fraction_static` by 0.85 (0.5.9 `server_args.py`, same function,
//!   after `_handle_gpu_memory_settings` has set the default, so a stated and a default fraction alike;
//!   0.5.23 `arg_groups/attention_hook.py` keeps it and explains it: aiter's non-static workspace —
//!   `layers/attention/aiter_backend.py` allocates max_bs × heads × ⌈context/256⌉ × (head_dim + 2) × 4
//!   bytes for MHA outside the static pool — needs the room; 0.5.23 lets
//!   `SGLANG_AITER_HONOR_EXPLICIT_MEM_FRACTION=1` keep a stated fraction, which tpsim does not model).
//!   SGLang logs nothing when it scales; the scenario's warning list says it.
//!   The workspace itself is a late allocation of the memory plan (vrows3: `decode/aiter_workspace.rs`,
//!   `tpsim_model::aiter_workspace`).

use tpsim_model::llm::{Architecture, Attention, ModelSpec};

/// SGLang `version`'s default attention backend on ROCm for `model` at tensor-parallel size `tp` on a
/// GPU of compute capability `cc` (module doc): a model rule that names one first (Gemma 4), else the
/// `is_hip()` default.
pub(super) fn sglang_default_backend(model: &ModelSpec, tp: u32, version: &str, cc: &str) -> &'static str {
    if model.arch == Architecture::Gemma4 {
        return super::gemma4::sglang_default(version, tpsim_model::hw::sm_major(cc));
    }
    match model.attention {
        Attention::Mla { .. } => {
            // ModelConfig.get_num_kv_heads(tp): max(1, total KV heads / tp).
            let per_rank = (model.kv_heads / u64::from(tp.max(1))).max(1);
            if per_rank == 16 || per_rank == 128 {
                "aiter"
            } else {
                "triton"
            }
        }
        _ => "aiter",
    }
}

/// The AITER factor on `mem_fraction_static` (SGLang 0.5.9 `server_args.py`: 0.85 above 8192 tokens).
pub const AITER_FRACTION_FACTOR: f64 = 0.85;
/// The context length above which SGLang applies it.
pub const AITER_CONTEXT_THRESHOLD: u64 = 8192;

/// The fraction SGLang runs with, and the warning saying so, when the AITER reserve applies.
pub(super) fn aiter_fraction(
    backend: Option<&str>,
    context_len: Option<u64>,
    f: f64,
) -> Option<(f64, String)> {
    let ctx = context_len?;
    (backend == Some("aiter") && ctx > AITER_CONTEXT_THRESHOLD).then(|| {
        let scaled = f * AITER_FRACTION_FACTOR;
        (
            scaled,
            format!(
                "attention_backend aiter with context_len {ctx} > {AITER_CONTEXT_THRESHOLD}: SGLang scales \
                 mem_fraction_static by {AITER_FRACTION_FACTOR} ({f:.4} → {scaled:.4}) to leave room for aiter's \
                 non-static workspace (server_args.py _handle_attention_backend_compatibility)"
            ),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpsim_model::llm::Quantization;

    fn model(config: &str) -> ModelSpec {
        ModelSpec::from_config_json(config, Quantization::bf16()).unwrap()
    }

    /// SGLang 0.5.9's is_hip() defaults: MHA → aiter; MLA → aiter iff 16 or 128 KV heads per rank.
    /// DeepSeek-V3 has num_key_value_heads 128: tp 8 → 16 per rank (aiter), tp 4 → 32 (triton),
    /// tp 1 → 128 (aiter).
    #[test]
    fn rocm_default_backends() {
        let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
        let ds = model(include_str!("../../../scenarios/models/deepseek-v3/config.json"));
        let d = |m: &ModelSpec, tp: u32| sglang_default_backend(m, tp, "0.5.9", "9.4");
        assert_eq!(d(&llama, 8), "aiter");
        assert_eq!(ds.kv_heads, 128);
        assert_eq!(d(&ds, 8), "aiter");
        assert_eq!(d(&ds, 4), "triton");
        assert_eq!(d(&ds, 1), "aiter");
    }

    /// rocm54: Gemma 4's model rule runs before the `is_hip()` default (SGLang 0.5.13 `__post_init__`):
    /// `triton` on gfx942 ("9.4"), as off SM 10.x on CUDA; an MHA model without a rule keeps `aiter`.
    #[test]
    fn gemma4_takes_its_model_rule_on_rocm() {
        let gemma = model(include_str!(
            "../../../scenarios/models/gemma-4-31b-it/config.json"
        ));
        let llama = model(include_str!("../../../scenarios/models/llama-3.1-8b/config.json"));
        assert_eq!(sglang_default_backend(&gemma, 1, "0.5.13", "9.4"), "triton");
        assert_eq!(sglang_default_backend(&gemma, 8, "0.5.11", "9.4"), "triton");
        assert_eq!(sglang_default_backend(&llama, 1, "0.5.13", "9.4"), "aiter");
    }

    /// 0.85 above 8192 tokens only, aiter only: 0.85 × 0.85 = 0.7225.
    #[test]
    fn aiter_reserve_scales_the_fraction_above_8192_tokens() {
        let (f, w) = aiter_fraction(Some("aiter"), Some(131_072), 0.85).expect("applies");
        assert!((f - 0.7225).abs() < 1e-12);
        assert!(w.contains("0.8500 → 0.7225"), "{w}");
        assert!(aiter_fraction(Some("aiter"), Some(8192), 0.85).is_none());
        assert!(aiter_fraction(Some("triton"), Some(131_072), 0.85).is_none());
        assert!(aiter_fraction(Some("aiter"), None, 0.85).is_none());
    }
}
