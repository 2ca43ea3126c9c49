//! graphverify: how vLLM settles `cudagraph_mode` against the attention backends' CUDA-graph
//! support (`engine.attention_backend`, given or vLLM's own pick) once the backends are built.
//!
//! Sources (vLLM, read for graphverify; the repository snapshot could not be brought here whole, so
//! the files were read as stored, each version named by its code):
//! - `AttentionCGSupport` (`vllm/v1/attention/backends/utils.py`, later `vllm/v1/attention/backend.py`):
//!   NEVER = 0 < UNIFORM_SINGLE_TOKEN_DECODE = 1 < UNIFORM_BATCH = 2 < ALWAYS = 3; a model's support is
//!   the least of its attention groups' builders (`docs/design/cuda_graphs.md`, "CUDA Graphs
//!   Compatibility of Attention Backends", and the loop over `_attn_group_iterator`).
//! - the levels ([`backend_support`]): the table of `docs/design/cuda_graphs.md` (FlashAttention v2
//!   UNIFORM_BATCH, v3 ALWAYS; Triton ALWAYS; AITER FlashAttention UNIFORM_BATCH; FlashInfer
//!   UNIFORM_SINGLE_TOKEN_DECODE; FlashMLA, FlashInferMLA, FlashInferMLASparse UNIFORM_BATCH; AITER
//!   MLA, CUTLASS MLA, Mamba UNIFORM_SINGLE_TOKEN_DECODE; "Unlisted backends are all declared as
//!   NEVER"), `flash_attn.py` (`ALWAYS if FA version 3 else UNIFORM_BATCH`; FA3 is built for SM 9.0
//!   only), `mla/flashattn_mla.py` (`FlashAttnMLAMetadataBuilder`: UNIFORM_BATCH), `triton_attn.py`
//!   (`TritonAttentionMetadataBuilder`: ALWAYS); NEVER as logged by vLLM for FlexAttention
//!   (`FlexAttentionMetadataBuilder`, gpu_model_runner.py:3663, a 2026-01 log) and TRITON_MLA
//!   (`TritonMLABackend`, gpu_model_runner.py:6050, a 2026-03 log): Triton MLA kept
//!   `MLACommonMetadataBuilder`'s NEVER until vLLM PR 42885 ("Enable FULL cudagraph capture for
//!   TRITON_MLA decode", merged 2026-05-18: `TritonMLAMetadataBuilder` UNIFORM_BATCH, as the 0.25.0
//!   sdist has it); tpsim takes NEVER up to 0.20 and leaves 0.21 on unsettled (the first release with
//!   the PR was not read); GDN (Qwen3-Next / Qwen3.5 linear attention) UNIFORM_BATCH as logged
//!   (`GDNAttentionBackend`, compilation.py:1412). Backends none of these name are left unsettled.
//! - the resolution ([`settle`]): `GPUModelRunner._check_and_update_cudagraph_mode` (≥ 0.11.1, with
//!   `CompilationMode`; 0.11.0's `initialize_cudagraph_capture` the same checks with
//!   `CompilationLevel`; later moved to `vllm/config/compilation.py`), in order: (1) a mode whose
//!   mixed batches run FULL (FULL) with support below ALWAYS: NEVER raises `ValueError`, otherwise
//!   FULL_AND_PIECEWISE when attention is a splitting op (the default: `set_splitting_ops_for_v1`
//!   keeps `_attention_ops` for every mode) with a warning; (2) a mode whose decode runs FULL with
//!   support NEVER: PIECEWISE "because attention is compiled piecewise"; (3) speculative decoding
//!   (uniform decode query length 1 + k > 1) with a FULL decode and support below UNIFORM_BATCH:
//!   PIECEWISE. vLLM 0.10.2's `initialize_cudagraph_capture` lacked (2) and raised instead; tpsim
//!   reads `cudagraph_mode` from 0.11.0 only (`scenario::cudagraph_mode`), where the 0.10 default
//!   PIECEWISE meets none of these checks.

use super::cudagraph_mode::{CudagraphMode, DecodeLaunch};
use super::{Engine, EngineKind, Resolver, ScenarioError};
use tpsim_model::llm::ModelSpec;

/// vLLM's `AttentionCGSupport`, in its order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum CgSupport {
    Never,
    UniformSingleTokenDecode,
    UniformBatch,
    Always,
}

impl CgSupport {
    /// vLLM's name of the level (as its warnings print it).
    pub fn name(self) -> &'static str {
        match self {
            CgSupport::Never => "AttentionCGSupport.NEVER",
            CgSupport::UniformSingleTokenDecode => "AttentionCGSupport.UNIFORM_SINGLE_TOKEN_DECODE",
            CgSupport::UniformBatch => "AttentionCGSupport.UNIFORM_BATCH",
            CgSupport::Always => "AttentionCGSupport.ALWAYS",
        }
    }
}

/// The CUDA-graph support of vLLM attention backend `name` (an `AttentionBackendEnum` member) in
/// release `version` on a GPU of `compute_capability`; `None` for a backend whose level was not
/// read (see the module doc).
pub fn backend_support(name: &str, version: &str, compute_capability: &str) -> Option<CgSupport> {
    use CgSupport::*;
    let before_pr_42885 = crate::engine_args_versions::release(version).is_some_and(|r| r < vec![0, 21]);
    Some(match name {
        // FlashAttention 3 on Hopper only (`fa_utils.get_flash_attn_version`); FA2 elsewhere.
        "FLASH_ATTN" if tpsim_model::hw::sm_major(compute_capability) == 9 => Always,
        "FLASH_ATTN" => UniformBatch,
        "TRITON_ATTN" => Always,
        "ROCM_AITER_FA" | "FLASHMLA" | "FLASHINFER_MLA" | "FLASHINFER_MLA_SPARSE" | "FLASH_ATTN_MLA" => {
            UniformBatch
        }
        // FlashInfer: UNIFORM_BATCH only with TRT-LLM attention on Blackwell (not modelled here).
        "FLASHINFER" | "CUTLASS_MLA" | "ROCM_AITER_MLA" => UniformSingleTokenDecode,
        "FLEX_ATTENTION" => Never,
        "TRITON_MLA" if before_pr_42885 => Never,
        _ => return None,
    })
}

/// The least support over the model's attention groups: the full-attention backend's and, on a
/// hybrid, its Mamba-2 mixer's (UNIFORM_SINGLE_TOKEN_DECODE) or GDN layers' (UNIFORM_BATCH).
///
/// families27 (issue #17): MiniMax-Text-01 / M1's lightning layers use
/// `LinearAttentionMetadataBuilder` (`v1/attention/backends/linear_attn.py`), which declares no support
/// in the 0.10.2, 0.11.0 and 0.11.1 wheels (the base class's NEVER) and UNIFORM_SINGLE_TOKEN_DECODE from
/// the 0.13.0 wheel on (0.12 not read: taken as 0.13); [`lightning_support`].
pub fn model_support(backend: CgSupport, model: &ModelSpec, version: &str) -> CgSupport {
    let mut s = backend;
    if model.arch == tpsim_model::llm::Architecture::MiniMaxText01 && model.linear_layers() > 0 {
        return s.min(lightning_support(version));
    }
    // families22 (issue #17): LFM2's short conv (vLLM 0.11.1 `short_conv_attn.py`
    // `ShortConvAttentionMetadataBuilder` is a `BaseMambaAttentionMetadataBuilder`, as Mamba-2's).
    if model.mamba2.is_some() || model.short_conv.is_some() {
        s = s.min(CgSupport::UniformSingleTokenDecode);
    }
    if model.linear_attention.is_some() {
        s = s.min(CgSupport::UniformBatch);
    }
    s
}

/// families27 (issue #17): the CUDA-graph support of vLLM's lightning-attention builder at `version`
/// ([`model_support`]).
pub fn lightning_support(version: &str) -> CgSupport {
    let r = crate::engine_args_versions::release(version).unwrap_or_default();
    if [r.first().copied().unwrap_or(0), r.get(1).copied().unwrap_or(0)] < [0, 12] {
        CgSupport::Never
    } else {
        CgSupport::UniformSingleTokenDecode
    }
}

/// vLLM's resolution of `mode` against `support` (`backend`: the name the messages give), with
/// speculative decoding or not: the mode it runs and the warning it logs, or its refusal.
pub fn settle(
    mode: CudagraphMode,
    support: CgSupport,
    backend: &str,
    speculative: bool,
) -> Result<(CudagraphMode, Vec<String>), String> {
    let mut mode = mode;
    let mut warnings = Vec::new();
    let head = |m: CudagraphMode| {
        format!(
            "CUDAGraphMode.{} is not supported with {backend} backend (support: {})",
            m.name(),
            support.name()
        )
    };
    if mode.mixed() == DecodeLaunch::Full && support != CgSupport::Always {
        if support == CgSupport::Never {
            return Err(format!(
                "vLLM refuses: \"{}; please try cudagraph_mode=PIECEWISE, and make sure compilation mode is \
                 VLLM_COMPILE\"",
                head(mode)
            ));
        }
        warnings.push(format!(
            "{}; setting cudagraph_mode=FULL_AND_PIECEWISE",
            head(mode)
        ));
        mode = CudagraphMode::FullAndPiecewise;
    }
    if mode.decode() == DecodeLaunch::Full && support == CgSupport::Never {
        warnings.push(format!(
            "{}; setting cudagraph_mode=PIECEWISE because attention is compiled piecewise",
            head(mode)
        ));
        mode = CudagraphMode::Piecewise;
    }
    if mode.decode() == DecodeLaunch::Full && speculative && support < CgSupport::UniformBatch {
        warnings.push(format!(
            "CUDAGraphMode.{} is not supported with spec-decode for attention backend {backend} (support: {}); \
             setting cudagraph_mode=PIECEWISE",
            mode.name(),
            support.name()
        ));
        mode = CudagraphMode::Piecewise;
    }
    Ok((mode, warnings))
}

impl Resolver<'_> {
    /// Settles `engine.cudagraph_mode` against the engine's attention backend (vLLM with graphs
    /// only; after `vllm_attention_backend` has filled in vLLM's own pick).
    pub(super) fn settle_cudagraph_mode(
        &self,
        model: &ModelSpec,
        engine: &mut Engine,
        compute_capability: &str,
        speculative: bool,
        warnings: &mut Vec<String>,
    ) -> Result<(), ScenarioError> {
        if engine.kind != EngineKind::Vllm || !engine.cuda_graph {
            return Ok(());
        }
        let (Some(mode), Some(backend)) = (engine.cudagraph_mode, engine.attention_backend.as_deref()) else {
            return Ok(());
        };
        let version = engine.release().version;
        let Some(b) = backend_support(backend, &version, compute_capability) else {
            return Ok(());
        };
        let support = model_support(b, model, &version);
        // families27 (issue #17): vLLM names the builder with the least support; the lightning
        // layers' when they bind.
        let backend = if model.arch == tpsim_model::llm::Architecture::MiniMaxText01 && support < b {
            "LinearAttentionMetadataBuilder"
        } else {
            backend
        };
        let (settled, mut w) = settle(mode, support, backend, speculative)
            .map_err(|m| self.invalid("engine.cudagraph_mode", m))?;
        engine.cudagraph_mode = Some(settled);
        warnings.append(&mut w);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_and_the_three_checks() {
        // flash_attn.py: ALWAYS with FA3 (SM 9.0), UNIFORM_BATCH with FA2.
        assert_eq!(
            backend_support("FLASH_ATTN", "0.19.0", "9.0"),
            Some(CgSupport::Always)
        );
        assert_eq!(
            backend_support("FLASH_ATTN", "0.19.0", "8.0"),
            Some(CgSupport::UniformBatch)
        );
        assert_eq!(backend_support("TORCH_SDPA", "0.19.0", "9.0"), None);
        // Triton MLA: NEVER before vLLM PR 42885 (2026-05-18); later releases not settled.
        assert_eq!(
            backend_support("TRITON_MLA", "0.19.0", "12.0"),
            Some(CgSupport::Never)
        );
        assert_eq!(backend_support("TRITON_MLA", "0.25.0", "12.0"), None);
        let fp = CudagraphMode::FullAndPiecewise;
        // (1) FULL below ALWAYS: FULL_AND_PIECEWISE; NEVER refuses.
        let (m, _) = settle(CudagraphMode::Full, CgSupport::UniformBatch, "X", false).unwrap();
        assert_eq!(m, fp);
        assert!(settle(CudagraphMode::Full, CgSupport::Never, "X", false).is_err());
        // (2) a FULL decode with NEVER: PIECEWISE, FULL_DECODE_ONLY too (attention split).
        for m in [fp, CudagraphMode::FullDecodeOnly] {
            assert_eq!(
                settle(m, CgSupport::Never, "X", false).unwrap().0,
                CudagraphMode::Piecewise
            );
        }
        // (3) speculative decoding below UNIFORM_BATCH: PIECEWISE; UNIFORM_BATCH keeps FULL decode.
        let one = CgSupport::UniformSingleTokenDecode;
        assert_eq!(settle(fp, one, "X", true).unwrap().0, CudagraphMode::Piecewise);
        assert_eq!(settle(fp, one, "X", false).unwrap().0, fp);
        assert_eq!(settle(fp, CgSupport::UniformBatch, "X", true).unwrap().0, fp);
    }
}
