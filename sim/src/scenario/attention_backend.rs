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
//! - MLA models: Hopper → `fa3`; SM 10.x → `flashinfer`; otherwise `triton` — except the
//!   DeepSeek-V3 class on SM 10.x, `trtllm_mla` from 0.5.4 (mla49, [`sglang_trtllm_mla_model`]).
//!
//! mla49 (issue #18): the MLA rule by release, read in the PyPI wheels' `srt/server_args.py` (0.4.10,
//! 0.4.10.post1, 0.4.10.post2, 0.5.0rc2, 0.5.1, 0.5.2, 0.5.3, 0.5.4, 0.5.5, 0.5.6, 0.5.6.post1, 0.5.8,
//! 0.5.9; no 0.5.0 wheel on PyPI) and `srt/model_executor/model_runner.py` (0.4.10, 0.5.1–0.5.4, where
//! the generic default lived up to 0.5.3, `model_specific_adjustment`):
//! - Generic MLA default, every release read: Hopper with CUDA ≥ 12.3 → `fa3`; `is_sm100_supported()`
//!   (compute capability major 10, CUDA ≥ 12.8; 0.5.5 / 0.5.8 `utils/common.py`) → `flashinfer`;
//!   otherwise `triton` (ROCm and NPU branches aside). The log line: "Attention backend not explicitly
//!   specified. Use flashinfer backend by default." (0.5.8: "Attention backend not specified. …").
//! - `trtllm_mla` is an `--attention-backend` choice from 0.4.10.post1 (absent from 0.4.10's argparse
//!   choices). `_handle_model_specific_adjustments` sets it when no attention, prefill or decode
//!   backend is given, on `is_cuda() and is_sm100_supported()`, for `hf_config.architectures[0]` in:
//!   0.5.4, 0.5.5 `["DeepseekV3ForCausalLM"]` without DSA (`not is_deepseek_nsa`); 0.5.6–0.5.8 the
//!   same list plus `MistralLarge3ForCausalLM` (families31: lowered as DeepSeek-V3) and
//!   `PixtralForConditionalGeneration` (not lowered by tpsim); 0.5.9 also `KimiK25ForConditionalGeneration` (and `GlmMoeDsaForCausalLM`, a DSA model:
//!   `nsa`). It logs "Use trtllm_mla as attention backend on sm100 for DeepseekV3ForCausalLM"
//!   (info). 0.5.3 and earlier: no model rule (DeepSeek on B200 runs `flashinfer`). Kimi-K2 checkpoints
//!   are `DeepseekV3ForCausalLM`; GLM-4.7-Flash (`Glm4MoeLiteForCausalLM`), DeepSeek-V2 and Kimi-VL keep
//!   the generic rule. Releases after 0.5.9 are taken as 0.5.9; an unreadable version gets no
//!   model rule.
//! - With `trtllm_mla` in force (`_handle_attention_backend_compatibility`, every release from
//!   0.4.10.post1; [`sglang_trtllm_mla_settle`]): a GPU that is not SM 10.x refuses ("TRTLLM MLA
//!   backend is only supported on Blackwell GPUs (SM100). Please use a different backend.";
//!   `is_sm100_supported` to 0.5.4, `is_blackwell_supported` — major 10 or 12 — from 0.5.5, the
//!   text "(SM100/SM12x)" in 0.5.9); a page size other than 32 or 64 becomes 64 with the warning
//!   "TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from {page_size} to
//!   64." (`None` when `--page-size` is not given: the check runs before `_handle_page_size` sets 1);
//!   the KV dtype must be `fp8_e4m3` or `auto` (0.5.0rc2–0.5.4), also `fp4_e2m1` (0.5.5–0.5.6.post1),
//!   also `bf16` (0.5.8, 0.5.9), else "TensorRT-LLM MLA backend only supports kv-cache-dtype of …"
//!   (0.4.10.post1: no check); 0.4.10.post1 – 0.5.0rc2 refuse speculative decoding ("trtllm_mla
//!   backend does not support speculative decoding yet.").
//!
//! Not applied: the other model-specific overrides of `_handle_model_specific_adjustments` (e.g. NSA
//! for DeepSeek-V3.2, hybrid-attention models' lists): set `engine.attention_backend` for those.
//!
//! vLLM (issues #17/#18, newdeploys): `--attention-backend` takes a member name of
//! `AttentionBackendEnum` (`vllm/v1/attention/backends/registry.py`, read at commit 0033bf0), parsed by
//! the enum's metaclass, whose refusal text tpsim quotes. The backend in force selects the hardware's
//! `[compute.attention_backends.<name>]` curve under that name (factor 1 without one), as for SGLang.
//!
//! vLLM's own choice without the key (issue #17, vllmattn; NVIDIA only): [`vllm_default`], read from
//! the PyPI sdists of 0.11.0, 0.12.0, 0.13.0, 0.14.1, 0.16.0, 0.17.0 and 0.19.0 and the 0.15.1 wheel
//! (no 0.15 sdist on PyPI) (`vllm/platforms/cuda.py` `get_attn_backend_cls` /
//! `_get_backend_priorities` / `check_and_update_config`, the backends' `validate_configuration`
//! inputs in `vllm/v1/attention/backends/*.py` and `mla/*.py`, and 0.19.0's `platforms/interface.py`
//! `update_block_size_for_backend`). vllmattn2: 0.13.0's `cuda.py` differs from 0.14.1's in import
//! paths only, 0.15.1's from 0.16.0's in logging only, and the nine backends' checks of 0.12.0 and
//! 0.13.0 match 0.14.1's (0.15.1's 0.16.0's); 0.12.0 differs in its MLA block rule (below).
//! 0.20.0 (sdist; 0.20.x taken as 0.20.0): `cuda.py`'s dense priority lists, `check_and_update_config`,
//! `update_block_size_for_backend` and the nine backends' checks are 0.19.0's for tpsim's inputs
//! (TURBOQUANT appended last to the MHA lists; new checks only for non-causal and batch-invariant
//! runs), except FLASH_ATTN taking head sizes up to 512 when FlashAttention 4 is built
//! (`flash_attn.py`), which tpsim does not know: no default for an MHA head size above 256.
//! Releases after 0.20 are not read: no default there.

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

/// SGLang `version` as (major, minor, patch) (a post-release or rc counts as its release).
fn sgl_release(version: &str) -> Option<(u64, u64, u64)> {
    let r = crate::engine_args_versions::release(version)?;
    Some((
        r.first().copied()?,
        r.get(1).copied()?,
        r.get(2).copied().unwrap_or(0),
    ))
}

/// mla49: whether SGLang `version`'s `_handle_model_specific_adjustments` moves `model` to
/// `trtllm_mla` on SM 10.x (module doc): `DeepseekV3ForCausalLM` without DSA from 0.5.4,
/// `KimiK25ForConditionalGeneration` from 0.5.9, `MistralLarge3ForCausalLM` from 0.5.6 (families31).
pub fn sglang_trtllm_mla_model(version: &str, model: &ModelSpec) -> bool {
    use tpsim_model::llm::Architecture as A;
    let Some(v) = sgl_release(version) else {
        return false;
    };
    if model.indexer.is_some() || !matches!(model.attention, Attention::Mla { .. }) {
        return false;
    }
    match model.arch {
        A::DeepseekV3 => v >= (0, 5, 4),
        A::KimiK25 => v >= (0, 5, 9),
        // families31 (issue #17): listed from 0.5.6 (module doc); SGLang serves it from 0.5.6.post1.
        A::MistralLarge3 => v >= (0, 5, 6),
        _ => false,
    }
}

/// SGLang `version`'s default backend for `model` on a GPU of `compute_capability` ("9.0", "12.0",
/// …).
pub fn sglang_default(version: &str, compute_capability: &str, model: &ModelSpec) -> &'static str {
    let major = tpsim_model::hw::sm_major(compute_capability);
    let mla = matches!(model.attention, Attention::Mla { .. });
    if major == 10 && sglang_trtllm_mla_model(version, model) {
        return "trtllm_mla";
    }
    match (mla, major) {
        (_, 9) => "fa3",
        (false, 10) => "trtllm_mha",
        (false, _) => "flashinfer",
        (true, 10) => "flashinfer",
        (true, _) => "triton",
    }
}

/// b200moe49 (issue #18): SGLang's default for `model` on an NVIDIA GPU of `compute_capability` under
/// release `version`, where it differs from 0.5.9's rule ([`sglang_default`]). Read in the PyPI
/// wheels (`srt/model_executor/model_runner.py` of 0.5.2, 0.5.3.post3 and 0.5.4, `srt/server_args.py`
/// `_handle_attention_backend_compatibility` and `_handle_model_specific_adjustments` of 0.5.5,
/// 0.5.6, 0.5.6.post1, 0.5.6.post2, 0.5.7, 0.5.8 and 0.5.9):
/// - MHA models on SM 10.x: 0.5.2–0.5.6 have no Blackwell branch ("1.2 In other cases, we will use
///   flashinfer if available"): `flashinfer`. 0.5.6.post1 and 0.5.6.post2 add `elif is_blackwell()`
///   → `trtllm_mha`, and their `is_blackwell()` (`srt/utils/common.py`) takes compute capability 10
///   and 12: on SM 12.x (RTX PRO 6000, RTX 5090) the default is `trtllm_mha` too, which the same
///   file's check then refuses ([`sglang_trtllm_mha_check`]). 0.5.7 on: `is_sm100_supported()`
///   (major 10 only), 0.5.9's rule.
/// - `GptOssForCausalLM` keeps its own rule (`trtllm_mha` on SM 10.x in 0.5.4–0.5.9), and MLA models
///   the MLA branch, unchanged in these releases.
/// - `Qwen3NextForCausalLM` on SM 10.x: `triton` ("Use triton as attention backend on sm100 for
///   Qwen3NextForCausalLM"; 0.5.6 sets it even over a named backend, 0.5.6.post1–0.5.9 only without
///   one: tpsim applies it to the default). Not read before 0.5.6: no rule there.
///
/// mlactx55: MLA models before 0.4.7 default to `triton` (0.4.6: `fa3` on Hopper) (body).
///
/// Other releases (before 0.5.2, after 0.5.9, unreadable) take [`sglang_default`].
pub fn sglang_default_for(version: &str, compute_capability: &str, model: &ModelSpec) -> &'static str {
    use tpsim_model::llm::Architecture as A;
    // families30 (issue #17): Gemma 4's own default, by release (`scenario::gemma4`).
    if model.arch == A::Gemma4 {
        return super::gemma4::sglang_default(version, tpsim_model::hw::sm_major(compute_capability));
    }
    // families38 (issue #17): SGLang's MiniMax-M3 override (`scenario::minimax_m3`).
    if model.minimax_m3.is_some()
        && let Some(b) =
            super::minimax_m3::sglang_default_backend(tpsim_model::hw::sm_major(compute_capability))
    {
        return b;
    }
    let base = sglang_default(version, compute_capability, model);
    let Some(r) = crate::engine_args_versions::release(version) else {
        return base;
    };
    let v = (
        r.first().copied().unwrap_or(0),
        r.get(1).copied().unwrap_or(0),
        r.get(2).copied().unwrap_or(0),
    );
    // `0.5.6.post1` parses as 0.5.6; the post-releases changed the rule.
    let post = version.contains("post");
    let major = tpsim_model::hw::sm_major(compute_capability);
    // mlactx55 (issue #18): the MLA default before 0.4.7 (`model_executor/model_runner.py`
    // `model_specific_adjustment`): 0.4.0 – 0.4.5 `triton` on every GPU ("MLA optimization is turned
    // on. Use triton backend." in 0.4.0 / 0.4.1 / 0.4.3; 0.4.4.post4 / 0.4.5: "By default, use
    // flashinfer for non-mla attention and triton for mla attention"); 0.4.6 and 0.4.6.post3 `fa3` on
    // Hopper with CUDA ≥ 12.3, else `triton` (the SM 10.x `flashinfer` branch arrives in 0.4.7).
    if matches!(model.attention, Attention::Mla { .. }) && v < (0, 4, 7) {
        return if v >= (0, 4, 6) && major == 9 {
            "fa3"
        } else {
            "triton"
        };
    }
    if !((0, 5, 2)..=(0, 5, 9)).contains(&v) || matches!(model.attention, Attention::Mla { .. }) {
        return base;
    }
    match model.arch {
        A::GptOss => base,
        A::Qwen3Next if major == 10 && v >= (0, 5, 6) => "triton",
        _ if major == 10 && (v < (0, 5, 6) || (v == (0, 5, 6) && !post)) => "flashinfer",
        _ if major == 12 && v == (0, 5, 6) && post => "trtllm_mha",
        _ => base,
    }
}

/// b200moe49: SGLang's check on `trtllm_mha` (`server_args.py` of every 0.5.x wheel read, 0.5.2–0.5.9:
/// `if not is_sm100_supported(): raise ValueError(…)`): the backend, named or the release's default,
/// runs on compute capability 10.x only. `Err` with the engine's text elsewhere.
pub fn sglang_trtllm_mha_check(backend: Option<&str>, compute_capability: &str) -> Result<(), String> {
    if backend == Some("trtllm_mha") && tpsim_model::hw::sm_major(compute_capability) != 10 {
        return Err(
            "SGLang refuses: \"TRTLLM MHA backend is only supported on Blackwell GPUs (SM100). Please use \
                    a different backend.\""
                .to_string(),
        );
    }
    Ok(())
}

/// vLLM's pick without `--attention-backend`, and the KV block size it then runs with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VllmPick {
    /// The `AttentionBackendEnum` member name.
    pub backend: &'static str,
    /// The KV block size in tokens vLLM sets for it (`None`: the block size stays as configured, 16
    /// by default).
    pub block_size: Option<u64>,
}

/// What vLLM's backend selection reads about the model (its `AttentionSelectorConfig`).
#[derive(Debug, Clone, Copy)]
struct Inputs {
    mla: bool,
    /// Head size: the GQA head width; for MLA the cached latent plus rope width (576 for DeepSeek).
    head_size: u64,
    qk_nope_head_dim: u64,
    /// `dtype` is float16/bfloat16 (not float32).
    half: bool,
    fp8_kv: bool,
    /// Attention sinks (gpt-oss: `GptOssForCausalLM` passes `sinks` to its attention layers).
    sink: bool,
    major: u32,
    sm: u32,
}

fn inputs(compute_capability: &str, model: &ModelSpec) -> Inputs {
    use tpsim_model::llm::KvCacheDtype;
    let (mla, head_size, qk_nope_head_dim) = match model.attention {
        // families21 (issue #17): vLLM's MiniCPM3 is plain attention over heads of qk_nope + qk_rope
        // (its `ModelConfig.is_deepseek_mla` does not list `minicpm3`; `tpsim_model::llm` `minicpm`).
        Attention::Mla {
            qk_rope_head_dim,
            qk_nope_head_dim,
            ..
        } if model.mla_as_mha => (false, qk_nope_head_dim + qk_rope_head_dim, 0),
        Attention::Mla {
            kv_lora_rank,
            qk_rope_head_dim,
            qk_nope_head_dim,
            ..
        } => (true, kv_lora_rank + qk_rope_head_dim, qk_nope_head_dim),
        Attention::Gqa { head_dim, .. } => (false, head_dim, 0),
    };
    Inputs {
        mla,
        head_size,
        qk_nope_head_dim,
        half: model.dtype != tpsim_model::llm::WeightDtype::Fp32,
        fp8_kv: matches!(
            model.quantization.kv_cache_dtype,
            KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2
        ),
        sink: model.arch == tpsim_model::llm::Architecture::GptOss,
        major: tpsim_model::hw::sm_major(compute_capability),
        sm: tpsim_model::hw::sm_version(compute_capability),
    }
}

/// vLLM 0.12–0.19 `validate_configuration` reasons for `backend`, in vLLM's order and words, for the
/// nine backends of the CUDA priority lists (`None` for another backend: not modelled). Block sizes:
/// `block` is a user's `--block-size` (0.19 checks it; 0.12–0.18 select with `block_size=None`).
/// Per backend (0.19.0 files; 0.17.0 the same for these fields):
/// - FLASH_ATTN (`flash_attn.py`): fp16/bf16; head size a multiple of 8 up to 256; fp8 KV and sinks
///   only with FlashAttention 3 (`fa_utils.py`: FA3 on SM 9.x only); SM ≥ 8.0; sinks below 9.0 refused.
/// - FLASHINFER (`flashinfer.py`): fp16/bf16; head size 64, 128 or 256; SM 7.5 to 12.1; sinks only
///   with TRT-LLM attention ("SM100": tpsim takes SM 10.x); blocks 16, 32, 64.
/// - TRITON_ATTN (`triton_attn.py`): fp16/bf16/fp32; head size ≥ 32; sinks; any SM.
/// - FLEX_ATTENTION (`flex_attention.py`): fp16/bf16/fp32; no fp8 KV; no sinks.
/// - FLASH_ATTN_MLA (`mla/flashattn_mla.py`): no fp8 KV; SM 9.x. FLASHMLA (`mla/flashmla.py`): SM 9.x
///   or 10.x; block 64. FLASHINFER_MLA (`mla/flashinfer_mla.py`): SM 10.x; qk_nope_head_dim 64, 128
///   or 192; blocks 32, 64. CUTLASS_MLA (`mla/cutlass_mla.py`): SM 10.x; block 128. TRITON_MLA: any.
///   All MLA backends: fp16/bf16.
///
/// Texts that differ by release: the sink reason reads "sink setting not supported" up to 0.17.0
/// (`vllm/v1/attention/backend.py`; 0.12.0/0.13.0 `vllm/attention/backends/abstract.py`), "attention
/// sinks not supported" in 0.19.0; FLASHINFER_MLA's `supports_combination` refuses a
/// qk_nope_head_dim other than 128 in 0.15.1, 0.16.0 and 0.17.0 ("FlashInfer MLA kernel requires
/// qk_nope_head_dim == 128, but got …"; absent in 0.14.1), other than 64, 128 or 192 in 0.19.0.
fn vllm_reasons(backend: &str, m: u64, i: Inputs, block: Option<u64>) -> Option<Vec<String>> {
    let fa3 = i.major == 9;
    let is_mla = matches!(
        backend,
        "FLASH_ATTN_MLA" | "FLASHMLA" | "FLASHINFER_MLA" | "CUTLASS_MLA" | "TRITON_MLA"
    );
    // (head size ok, fp32 ok, fp8 KV ok, sinks ok, SM ok, block sizes (base, multiple-of))
    let (head, fp32, fp8, sink, sm, blocks): (bool, bool, bool, bool, bool, &[u64]) = match backend {
        "FLASH_ATTN" => (
            i.head_size.is_multiple_of(8) && i.head_size <= 256,
            false,
            fa3,
            fa3,
            i.sm >= 80,
            &[16],
        ),
        "FLASHINFER" => (
            [64, 128, 256].contains(&i.head_size),
            false,
            true,
            i.major == 10,
            (75..=121).contains(&i.sm),
            &[16, 32, 64],
        ),
        "TRITON_ATTN" => (i.head_size >= 32, true, true, true, true, &[16]),
        "FLEX_ATTENTION" => (true, true, false, false, true, &[]),
        "FLASH_ATTN_MLA" => (true, false, false, false, i.major == 9, &[16]),
        "FLASHMLA" => (true, false, true, false, i.major == 9 || i.major == 10, &[64]),
        "FLASHINFER_MLA" => (true, false, true, false, i.major == 10, &[32, 64]),
        "CUTLASS_MLA" => (true, false, true, false, i.major == 10, &[128]),
        // fp8 KV from 0.19 (0.12.0–0.14.1: "auto" only; 0.15.1–0.17.0: auto, bfloat16).
        "TRITON_MLA" => (true, false, m >= 19, false, true, &[16]),
        _ => return None,
    };
    let mut r: Vec<String> = Vec::new();
    let mut push = |t: &str| r.push(t.to_string());
    if !head {
        push("head_size not supported");
    }
    if !i.half && !fp32 {
        push("dtype not supported");
    }
    if i.fp8_kv && !fp8 {
        push("kv_cache_dtype not supported");
    }
    if let Some(b) = block
        && !blocks.is_empty()
        && !blocks.iter().any(|s| b.is_multiple_of(*s))
    {
        push("block_size not supported");
    }
    if i.mla != is_mla {
        push(if i.mla {
            "MLA not supported"
        } else {
            "non-MLA not supported"
        });
    }
    if i.sink && !sink {
        push(if m >= 19 {
            "attention sinks not supported"
        } else {
            "sink setting not supported"
        });
    }
    if !sm {
        push("compute capability not supported");
    }
    if backend == "FLASH_ATTN" && i.sink && i.sm < 90 {
        push("sink not supported on compute capability < 9.0");
    }
    // `supports_combination` texts (0.19.0): FlashMLA dense needs Hopper (`ops/flashmla.py`
    // `is_flashmla_dense_supported`), FlashAttention MLA needs FA3 on SM 9.x (`fa_utils.py`),
    // FlashInfer MLA a qk_nope_head_dim of 64, 128 or 192 (0.19), of 128 (0.15.1–0.17.0
    // `mla/flashinfer_mla.py`; 0.18 taken as 0.17).
    match backend {
        "FLASHMLA" if i.major != 9 => push("FlashMLA Dense is only supported on Hopper devices."),
        "FLASH_ATTN_MLA" if i.major != 9 => push("FlashAttention MLA not supported on this device"),
        "FLASHINFER_MLA" if m >= 19 && i.mla && ![64, 128, 192].contains(&i.qk_nope_head_dim) => {
            push("qk_nope_head_dim not in [64, 128, 192]")
        }
        "FLASHINFER_MLA" if (15..19).contains(&m) && i.mla && i.qk_nope_head_dim != 128 => r.push(format!(
            "FlashInfer MLA kernel requires qk_nope_head_dim == 128, but got {}",
            i.qk_nope_head_dim
        )),
        _ => {}
    }
    Some(r)
}

/// The minor of a vLLM 0.x release for vLLM's rules, `None` when unreadable or not 0.x (also read by
/// `decode::passes::decode_attn`).
pub(crate) fn minor(version: &str) -> Option<u64> {
    let r = crate::engine_args_versions::release(version)?;
    (r.first() == Some(&0)).then(|| r.get(1).copied()).flatten()
}

/// vLLM's attention backend without `--attention-backend`, on an NVIDIA GPU of `compute_capability`,
/// for vLLM `version`, the model (MLA or not, head size, dtype, KV dtype, sinks) and a user's
/// `--block-size` (`user_block`); `None` where tpsim has not read the rule (after 0.20, sparse MLA,
/// no valid backend; 0.20 with an MHA head size above 256). Each case below cites `vllm/platforms/cuda.py` of the release:
///
/// - 0.11.0 (`get_attn_backend_cls`, `check_and_update_config`): MLA on SM 10.0 exactly →
///   CUTLASS_MLA with the block forced to 128; on Hopper FLASHMLA, block forced to 64; else
///   TRITON_MLA. MHA on SM 10.0 → FLASHINFER when it takes the head size and dtype; on SM ≥ 8.0 with
///   sinks or an fp8 KV cache off SM 9.0 → TRITON_ATTN; else FLASH_ATTN when it takes the head size
///   and dtype, FLEX_ATTENTION otherwise (float32).
/// - 0.12.0–0.20.0: the first backend of `_get_backend_priorities` with no
///   `validate_configuration` reason (`vllm_reasons`). MHA on SM 10.x: FLASHINFER, FLASH_ATTN,
///   TRITON_ATTN, FLEX_ATTENTION; elsewhere FLASH_ATTN first. MLA on SM 10.x: 0.12.0–0.14.1
///   CUTLASS_MLA, FLASHINFER_MLA, …; 0.15.1+ FLASHINFER_MLA, CUTLASS_MLA, FLASH_ATTN_MLA, FLASHMLA,
///   TRITON_MLA; elsewhere FLASH_ATTN_MLA, FLASHMLA, FLASHINFER_MLA, TRITON_MLA.
/// - Block size, 0.12–0.18 (`check_and_update_config`, MLA only, user's block or 16): SM 10.x →
///   0.13–0.14 CUTLASS_MLA forced to 128 (0.12.0: SM 10.0 exactly, `is_device_capability(100)`;
///   other SM 10.x take FlashMLA's rule, which forces nothing off Hopper); 0.15+ with
///   qk_nope_head_dim 128 FLASHINFER_MLA, block 64 unless
///   32 or a multiple of 64 (other qk_nope: not modelled); Hopper (FlashMLA dense supported) → 64
///   unless a multiple of 64, whichever backend the selector then takes. 0.19
///   (`update_block_size_for_backend`, not for a user's `--block-size`): the backend's preferred size,
///   16 when it takes 16, else its smallest (FLASHMLA 64, FLASHINFER_MLA 32, CUTLASS_MLA 128).
pub fn vllm_default(
    version: &str,
    compute_capability: &str,
    model: &ModelSpec,
    user_block: Option<u64>,
) -> Option<VllmPick> {
    let m = minor(version)?;
    // 0.20.0 FLASH_ATTN: head sizes above 256 only with FlashAttention 4 (`flash_attn.py`).
    if m == 20
        && (!matches!(model.attention, Attention::Mla { .. }) || model.mla_as_mha)
        && inputs(compute_capability, model).head_size > 256
    {
        return None;
    }
    // Sparse MLA (DeepSeek-V3.2, GLM-5: the `*_SPARSE` backends) is not modelled.
    if model.indexer.is_some() {
        return None;
    }
    let i = inputs(compute_capability, model);
    let pick = |backend, block_size| Some(VllmPick { backend, block_size });
    if m == 11 {
        let fi_ok = [64, 128, 256].contains(&i.head_size) && i.half;
        let fa_ok = i.head_size.is_multiple_of(8) && i.head_size <= 256 && i.half;
        return match (i.mla, i.sm) {
            (true, 100) => pick("CUTLASS_MLA", vllm_block(m, i, "CUTLASS_MLA", false, user_block)),
            (true, _) if i.major == 9 => pick("FLASHMLA", vllm_block(m, i, "FLASHMLA", false, user_block)),
            (true, _) => pick("TRITON_MLA", None),
            (false, 100) if fi_ok => pick("FLASHINFER", None),
            (false, s) if s >= 80 && (i.sink || i.fp8_kv) && i.major != 9 => pick("TRITON_ATTN", None),
            (false, s) if s >= 80 && fa_ok => pick("FLASH_ATTN", None),
            (false, _) => pick("FLEX_ATTENTION", None),
        };
    }
    if !(12..=20).contains(&m) {
        return None;
    }
    let list: &[&'static str] = match (i.mla, i.major == 10) {
        (false, true) => &["FLASHINFER", "FLASH_ATTN", "TRITON_ATTN", "FLEX_ATTENTION"],
        (false, false) => &["FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION"],
        (true, true) if m <= 14 => &[
            "CUTLASS_MLA",
            "FLASHINFER_MLA",
            "FLASH_ATTN_MLA",
            "FLASHMLA",
            "TRITON_MLA",
        ],
        (true, true) => &[
            "FLASHINFER_MLA",
            "CUTLASS_MLA",
            "FLASH_ATTN_MLA",
            "FLASHMLA",
            "TRITON_MLA",
        ],
        (true, false) => &["FLASH_ATTN_MLA", "FLASHMLA", "FLASHINFER_MLA", "TRITON_MLA"],
    };
    // 0.19/0.20 validate a user's --block-size; 0.12–0.18 select with block_size=None.
    let sel_block = if m >= 19 { user_block } else { None };
    let backend = *list
        .iter()
        .find(|b| vllm_reasons(b, m, i, sel_block).is_some_and(|r| r.is_empty()))?;
    pick(backend, vllm_block(m, i, backend, false, user_block))
}

/// The KV block size vLLM sets for an MLA model running `backend` (`named`: the scenario named it),
/// when it differs from the configured one (`user_block`, else 16); `None` to keep it. MHA models:
/// always `None` (the MHA backends take 16).
/// - 0.11.0 `check_and_update_config`: FLASHMLA on Hopper → 64 unless 64; CUTLASS_MLA → 128 unless
///   128; FLASHINFER_MLA → 64 unless 32 or 64. Without a name, SM 10.0 runs CUTLASS_MLA, others FlashMLA
///   (forced only where FlashMLA is supported: Hopper).
/// - 0.12.0–0.17.0 (0.18 taken as 0.17): FlashMLA on Hopper → 64 unless a multiple of 64;
///   CUTLASS_MLA → 128 unless a multiple of 128; FLASHINFER_MLA → 64 unless 32 or a multiple of 64.
///   Without a name, SM 10.x: 0.12 CUTLASS_MLA on SM 10.0 only (FlashMLA's rule on SM 10.3: no
///   force); 0.13–0.14 CUTLASS_MLA; 0.15+ FLASHINFER_MLA with qk_nope_head_dim 128, else
///   CUTLASS_MLA's block; elsewhere FlashMLA's (whichever backend the selector then runs).
/// - 0.19.0, 0.20.0 `update_block_size_for_backend` (not with a user's `--block-size`): the backend's
///   `get_preferred_block_size(16)`: FLASHMLA 64, FLASHINFER_MLA 32, CUTLASS_MLA 128, others 16.
fn vllm_block(m: u64, i: Inputs, backend: &str, named: bool, user_block: Option<u64>) -> Option<u64> {
    if !i.mla {
        return None;
    }
    let block = user_block.unwrap_or(16);
    if m >= 19 {
        return match (user_block, backend) {
            (Some(_), _) => None,
            (None, "FLASHMLA") => Some(64),
            (None, "FLASHINFER_MLA") => Some(32),
            (None, "CUTLASS_MLA") => Some(128),
            (None, _) => None,
        };
    }
    let rule = if named || m == 11 {
        backend
    } else if i.major != 10 || (m == 12 && i.sm != 100) {
        "FLASHMLA"
    } else if m <= 14 || i.qk_nope_head_dim != 128 {
        "CUTLASS_MLA"
    } else {
        "FLASHINFER_MLA"
    };
    let keep = match rule {
        "FLASHMLA" if i.major == 9 => (m == 11 && block == 64) || (m > 11 && block.is_multiple_of(64)),
        "CUTLASS_MLA" => (m == 11 && block == 128) || (m > 11 && block.is_multiple_of(128)),
        "FLASHINFER_MLA" => block == 32 || (m == 11 && block == 64) || (m > 11 && block.is_multiple_of(64)),
        _ => true,
    };
    let forced = if rule == "CUTLASS_MLA" { 128 } else { 64 };
    (!keep).then_some(forced)
}

/// vLLM's KV block size for an MLA model on a backend the scenario names (see `vllm_block`);
/// `None` to keep the configured one, or for a release whose rule tpsim has not read.
pub fn vllm_named_block(
    backend: &str,
    version: &str,
    compute_capability: &str,
    model: &ModelSpec,
    user_block: Option<u64>,
) -> Option<u64> {
    let m = minor(version)?;
    if !(11..=20).contains(&m) {
        return None;
    }
    vllm_block(m, inputs(compute_capability, model), backend, true, user_block)
}

/// vLLM 0.12–0.20 on a backend the scenario names: `Err(text)` with vLLM's refusal
/// (`get_attn_backend_cls`: "Selected backend … is not valid for this configuration. Reason: […]")
/// where tpsim models every reason of that backend (FLASH_ATTN, FLASHINFER, TRITON_ATTN,
/// FLEX_ATTENTION, TRITON_MLA, CUTLASS_MLA); `Ok(Some(warning))` for FLASH_ATTN_MLA, FLASHMLA and
/// FLASHINFER_MLA, whose `supports_combination` text tpsim does not reproduce; `Ok(None)` when valid,
/// for another backend, or for a release whose check tpsim has not read (0.11.0 took a named backend
/// unchecked).
pub fn vllm_check(
    backend: &str,
    version: &str,
    compute_capability: &str,
    model: &ModelSpec,
    user_block: Option<u64>,
) -> Result<Option<String>, String> {
    let Some(m) = minor(version) else { return Ok(None) };
    if !(12..=20).contains(&m) {
        return Ok(None);
    }
    let i = inputs(compute_capability, model);
    let block = if m >= 19 { user_block } else { None };
    let Some(reasons) = vllm_reasons(backend, m, i, block) else {
        return Ok(None);
    };
    if reasons.is_empty() {
        return Ok(None);
    }
    let list = reasons
        .iter()
        .map(|r| format!("'{r}'"))
        .collect::<Vec<_>>()
        .join(", ");
    let text = format!(
        "Selected backend AttentionBackendEnum.{backend} is not valid for this configuration. Reason: [{list}]"
    );
    if matches!(backend, "FLASH_ATTN_MLA" | "FLASHMLA" | "FLASHINFER_MLA") {
        Ok(Some(format!(
            "engine.attention_backend {backend}: vLLM {version} would refuse it on SM {compute_capability} \
             (tpsim's reading of its checks: {list})"
        )))
    } else {
        Err(format!("vLLM refuses: \"{text}\""))
    }
}

/// mla49: SGLang `version`'s checks with `trtllm_mla` in force (module doc): `Err(text)` where it
/// refuses (not SM 10.x — or 12.x from 0.5.5 —, a KV dtype it does not take, speculative decoding
/// before 0.5.1); else the page size it runs (64 unless `page_size` is 32 or 64) and its warning
/// when it changes one (`page_given`: `--page-size` was passed; SGLang prints `None` otherwise).
pub fn sglang_trtllm_mla_settle(
    version: &str,
    compute_capability: &str,
    kv: tpsim_model::llm::KvCacheDtype,
    page_size: u64,
    page_given: bool,
    speculative: bool,
) -> Result<(u64, Option<String>), String> {
    use tpsim_model::llm::KvCacheDtype as K;
    // Unreadable versions: the newest rule read (0.5.9).
    let v = sgl_release(version).unwrap_or((0, 5, 9));
    let major = tpsim_model::hw::sm_major(compute_capability);
    let blackwell = major == 10 || (v >= (0, 5, 5) && major == 12);
    if !blackwell {
        let sm = if v >= (0, 5, 9) { "SM100/SM12x" } else { "SM100" };
        return Err(format!(
            "SGLang {version} refuses to start: \"TRTLLM MLA backend is only supported on Blackwell GPUs \
             ({sm}). Please use a different backend.\" (server_args.py; the GPU is SM {compute_capability})"
        ));
    }
    if speculative && v <= (0, 5, 0) {
        return Err(format!(
            "SGLang {version} refuses to start: \"trtllm_mla backend does not support speculative decoding \
             yet.\" (server_args.py)"
        ));
    }
    let takes = match kv {
        K::Auto | K::Fp8E4m3 => true,
        K::Fp4E2m1 => v >= (0, 5, 5),
        K::Bf16 => v >= (0, 5, 8),
        _ => false,
    };
    if !takes && v >= (0, 5, 0) {
        let list = if v >= (0, 5, 8) {
            "fp8_e4m3, fp4_e2m1, bf16, or auto"
        } else if v >= (0, 5, 5) {
            "fp8_e4m3, fp4_e2m1, or auto"
        } else {
            "fp8_e4m3 or auto"
        };
        return Err(format!(
            "SGLang {version} refuses to start: \"TensorRT-LLM MLA backend only supports kv-cache-dtype of \
             {list}.\" (server_args.py): expected model.quantization.kv_cache_dtype one of {list}"
        ));
    }
    if page_size == 32 || page_size == 64 {
        return Ok((page_size, None));
    }
    let from = if page_given {
        page_size.to_string()
    } else {
        "None".to_string()
    };
    Ok((
        64,
        Some(format!(
            "SGLang: TensorRT-LLM MLA only supports page_size of 32 or 64, changing page_size from {from} to 64."
        )),
    ))
}

/// b200pg50 (issue #18): the page size SGLang runs with `trtllm_mha` in force, and its warning when it
/// changes one. Every wheel read (0.5.2, 0.5.3, 0.5.4, 0.5.5, 0.5.6, 0.5.6.post1, 0.5.7, 0.5.8,
/// 0.5.8.post1, 0.5.9 `srt/server_args.py`, `_handle_attention_backend_compatibility` from 0.5.3,
/// `__post_init__` in 0.5.2) has the same check after the SM 10.x refusal
/// ([`sglang_trtllm_mha_check`]): a page size not in 16, 32, 64 becomes 64 with the warning
/// "TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from {page_size} to
/// 64." The check runs before `_handle_page_size` sets an unset page size to 1, so without
/// `--page-size` it prints `None` (`page_given` false) and the engine runs page 64.
pub fn sglang_trtllm_mha_settle(page_size: u64, page_given: bool) -> (u64, Option<String>) {
    if matches!(page_size, 16 | 32 | 64) {
        return (page_size, None);
    }
    let from = if page_given {
        page_size.to_string()
    } else {
        "None".to_string()
    };
    (
        64,
        Some(format!(
            "SGLang: TensorRT-LLM MHA only supports page_size of 16, 32 or 64, changing page_size from {from} to 64."
        )),
    )
}

/// The backend in force: the scenario's (checked against the engine's names) or the engine's default.
pub(super) fn resolve(
    given: Option<String>,
    kind: EngineKind,
    version: &str,
    compute_capability: &str,
    model: &ModelSpec,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Option<String>, ScenarioError> {
    let key = "engine.attention_backend";
    // cmdsurvey57 (vllm issue 31422, `--attention-backend=triton_attn`): from 0.13.0 vLLM reads the
    // name through `AttentionConfig.validate_backend_before`, `AttentionBackendEnum[value.upper()]`
    // (0.13.0 – 0.19.0 `vllm/config/attention.py`; the `--attention-backend` flag and, through
    // `_set_from_env_if_set`, `VLLM_ATTENTION_BACKEND`), so any case is accepted; 0.11 / 0.12 have no
    // such flag and look the environment's name up as written.
    let given = match (kind, given) {
        (EngineKind::Vllm, Some(b)) if minor(version).is_some_and(|m| m >= 13) && b != "CUSTOM" => {
            Some(b.to_ascii_uppercase())
        }
        (_, g) => g,
    };
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
        (_, None) => Ok(Some(
            sglang_default_for(version, compute_capability, model).to_string(),
        )),
    }
}

#[cfg(test)]
#[path = "attention_backend_tests.rs"]
mod tests;
