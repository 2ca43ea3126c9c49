//! families38 (issue #17): which MiniMax-M3 deployments tpsim models (`Architecture::MiniMaxM3`,
//! `tpsim_model::llm::minimax_m3`): the bf16 text model under SGLang 0.5.16 – 0.5.23 (the releases
//! read; `sim::scenario::first_release` says 0.5.15 has no `models/minimax_m3.py`) on CUDA at plain
//! tensor parallelism with a bf16 KV cache, and SGLang's model override for it: on Hopper
//! `--attention-backend fa3` and on SM 10.x `fa4` when none is given, then `--page-size 128` when
//! none is given and the backend is that one (0.5.16 – 0.5.18 `arg_groups/overrides.py`
//! `_minimax_m3_overrides`, 0.5.19 – 0.5.23 `arg_groups/model_overrides/minimax_m3.py`: the same
//! rule and log lines in every release read for a bf16 checkpoint and KV cache). The rest is
//! refused, naming what is missing (`minimax_m3::NOT_MODELLED`).

use super::EngineKind;
use tpsim_model::llm::minimax_m3::NOT_MODELLED;
use tpsim_model::llm::{ModelSpec, Quantization};

/// Printed with every MiniMax-M3 scenario: the decode step's MSA kernels are costed as GQA
/// attention over the blocks the index picks, at assumed efficiencies, and no public run was compared.
pub const UNVALIDATED_WARNING: &str = "MiniMax-M3's decode step is an extrapolation: its sparse attention (the \
block indexer over every cached index key, its top-k, attention over the 16 chosen blocks of 128 tokens) is costed \
as GQA attention over those tokens at assumed efficiencies (families38), and no measured MiniMax-M3 run was \
compared; read the throughput as an estimate, not a prediction";

/// The page SGLang's MiniMax-M3 override sets (module doc).
const HOOK_PAGE: u64 = 128;

// The deployment fields the check reads are DeepSeek-V4's (`dsv4::Input`): one struct for both.
use super::dsv4::Input;

/// `Err((key, message))` where tpsim does not model the deployment; `Ok` for any other model.
pub(super) fn check(model: &ModelSpec, i: &Input) -> Result<(), (&'static str, String)> {
    if model.minimax_m3.is_none() {
        return Ok(());
    }
    let refuse = |key: &'static str, what: &str| Err((key, format!("{what}: {NOT_MODELLED}")));
    if i.kind == EngineKind::Vllm {
        return refuse(
            "engine.name",
            "MiniMax-M3 under vLLM (vllm.models.minimax_m3, from 0.24.0) is not modelled (use sglang, 0.5.16 - 0.5.23)",
        );
    }
    let v = crate::engine_args_versions::release(i.version).unwrap_or_default();
    if v > vec![0, 5, 23] {
        return refuse(
            "engine.version",
            &format!(
                "SGLang {} is past 0.5.23, the last release whose MiniMax-M3 pool and override tpsim read",
                i.version
            ),
        );
    }
    let q = model.quantization;
    let bf16 = Quantization::bf16().weights;
    let plain = q.weights == bf16
        && q.expert_format() == bf16
        && q.dense_format() == bf16
        && q.shared_format() == bf16
        && q.online.is_none();
    if !plain {
        return refuse(
            "model.quantization",
            "a quantized MiniMax-M3 (SGLang resolves mxfp8 / minimax_m3_nvfp4 checkpoints to their own runners \
             and, for NVFP4, its own packed pool) is not modelled",
        );
    }
    if q.kv_cache_dtype.bytes(model.dtype) != 2 {
        return refuse(
            "model.quantization.kv_cache_dtype",
            "MiniMax-M3 with an fp8 KV cache (its index-K dtype follows the platform and the fp8 attention-GEMM \
             mode, mem_cache/memory_pool.py get_minimax_sparse_index_dtype) is not modelled",
        );
    }
    if i.rocm {
        return refuse(
            "hardware.gpu",
            "MiniMax-M3 on ROCm (the override's triton backend, AITER) is not modelled",
        );
    }
    if i.speculative {
        return refuse(
            "speculative",
            "MiniMax-M3's MTP / DSpark / DFlash drafts are not modelled",
        );
    }
    if i.dp_attention {
        return refuse(
            "engine.enable_dp_attention",
            "MiniMax-M3 with DP attention is not modelled",
        );
    }
    if i.ep {
        return refuse(
            "engine.ep_size",
            "MiniMax-M3 with expert parallelism is not modelled",
        );
    }
    if i.pp > 1 {
        return refuse(
            "engine.pp_size",
            "MiniMax-M3 with pipeline stages is not modelled",
        );
    }
    Ok(())
}

/// The attention backend SGLang's override picks when none is given: `fa3` on SM 9.x, `fa4` on
/// SM 10.x (bf16 KV; fp8 KV is refused above); `None` elsewhere (the engine's own default stands).
pub(super) fn sglang_default_backend(sm_major: u32) -> Option<&'static str> {
    match sm_major {
        9 => Some("fa3"),
        10 => Some("fa4"),
        _ => None,
    }
}

/// The override's page and its log line on a GPU of `sm_major` with `backend` resolved and
/// `page` as given: page 128 when none is given and the backend is the override's (`fa3` on
/// Hopper; `fa4` or `trtllm_mha` on SM 10.x from 0.5.17, `fa4` only in 0.5.16); the log line
/// (`logger.info`, the same text 0.5.16 – 0.5.23) with the resolved backend and page, and on SM
/// 10.x the MoE runner as given (`auto` when not; the bf16 `triton` override comes after the line). `None` off
/// Hopper and SM 10.x, where the override sets neither.
pub(super) fn sglang_override(
    sm_major: u32,
    version: &str,
    backend: &str,
    page: Option<u64>,
    moe_runner: Option<&str>,
) -> Option<(Option<u64>, String)> {
    let v = crate::engine_args_versions::release(version).unwrap_or_default();
    let page_backend = match sm_major {
        9 => backend == "fa3",
        10 => backend == "fa4" || (backend == "trtllm_mha" && v >= vec![0, 5, 17]),
        _ => return None,
    };
    let page = page.or(page_backend.then_some(HOOK_PAGE));
    let shown = page.map_or("None".to_string(), |p| p.to_string());
    let line = if sm_major == 9 {
        format!(
            "MiniMax-M3 on Hopper: attention_backend={backend}, page_size={shown} (MSA is SM100-only; sparse \
             attention runs on the Triton path)."
        )
    } else {
        format!(
            "MiniMax-M3 on SM100: attention_backend={backend}, page_size={shown}, moe_runner_backend={}.",
            moe_runner.unwrap_or("auto")
        )
    };
    Some((page, line))
}
