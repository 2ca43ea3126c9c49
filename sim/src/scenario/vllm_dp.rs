//! Issue #17 point 1 (vllmdp): vLLM's data parallelism on a MoE model — `--data-parallel-size D`
//! (with or without `--enable-expert-parallel`) — checked and resolved as vLLM runs it.
//!
//! vLLM sources read (github vllm-project/vllm, the stored copies of `main` after 0.19: the
//! functions named below have the structure tpsim models; versions are named where they differ):
//! - `config/parallel.py`: `world_size_across_dp = world_size × data_parallel_size`; each DP rank
//!   is its own engine core of tp × pp GPUs; `use_sequence_parallel_moe` = the all-to-all backend
//!   is one of `allgather_reducescatter`, `naive` (0.11–0.1x lists), `deepep_*`, … and
//!   `enable_expert_parallel` and tp > 1 and dp > 1.
//! - `model_executor/layers/fused_moe/config.py` `FusedMoEParallelConfig.make`: the MoE layers
//!   shard over dp × tp devices (`flatten_tp_across_dp_and_pcp`): TP-style (every expert split
//!   dp × tp ways) without `enable_expert_parallel`, whole experts on each of EP = dp × tp ranks
//!   with it.
//! - `distributed/device_communicators/all2all.py` `AgRsAll2AllManager` (the default backend):
//!   dispatch = `all_gatherv` over the DP group (the EP group under sequence-parallel MoE), combine
//!   = `reduce_scatterv` over the same group; `NaiveAll2AllManager`: dispatch = one broadcast per
//!   rank of the group, combine = an `all_reduce` of the whole gathered buffer, then a slice.
//! - `v1/engine/core.py` `DPEngineCoreProc`: MoE DP ranks step together (an idle rank runs
//!   `execute_dummy_batch`; `_has_global_unfinished_reqs` keeps the wave going while any rank has
//!   work); `v1/worker/gpu_model_runner.py` / `dp_utils`: every rank's batch is padded to the
//!   largest across DP (`num_tokens_across_dp`) so the CUDA graphs match.
//!
//! The DeepEP, pplx and FlashInfer all-to-all backends are refused (not modelled under vLLM);
//! DeepEP additionally needs NVLink, which a PCIe box has none of.

use super::{EngineKind, Hardware, ScenarioError};
use tpsim_model::llm::{Ffn, ModelSpec};

/// vLLM's `VLLM_ALL2ALL_BACKEND` among those tpsim costs.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// `allgather_reducescatter` (vLLM's default): all-gather dispatch, reduce-scatter combine.
    AllgatherReducescatter,
    /// `naive`: broadcast dispatch, allreduce combine.
    Naive,
}

/// vLLM data parallelism on a MoE model as resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VllmDp {
    /// `--data-parallel-size`: DP ranks (each an engine core with its own scheduler and KV pool).
    pub dp: u32,
    /// `--tensor-parallel-size`: the TP size inside one DP rank (attention, dense layers, LM head).
    pub tp: u32,
    /// `--enable-expert-parallel`: whole experts per rank over EP = dp × tp.
    pub ep: bool,
    pub backend: Backend,
    /// `ParallelConfig.use_sequence_parallel_moe`: each TP rank of a DP rank sends its 1/tp of the
    /// tokens through the EP group (then all-gathers them back inside the TP group).
    pub sequence_parallel: bool,
}

impl VllmDp {
    /// The devices the MoE layers shard over: dp × tp (`flatten_tp_across_dp_and_pcp`).
    pub fn world(&self) -> u32 {
        self.dp * self.tp
    }
}

/// The keys this module reads.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub kind: EngineKind,
    pub dp_size: Option<u32>,
    pub tp: u32,
    pub pp: u32,
    pub dcp: Option<u32>,
    pub enable_expert_parallel: bool,
    pub all2all_backend: Option<&'a str>,
    pub speculative: bool,
}

/// Resolves vLLM DP on a MoE model: `None` for SGLang, dp 1 or a dense model (replicas,
/// `scenario::replicas`). Pushes what vLLM does (and tpsim approximates) to `warnings`.
pub fn resolve(
    i: Input<'_>,
    hw: &Hardware,
    model: &ModelSpec,
    warnings: &mut Vec<String>,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Option<VllmDp>, ScenarioError> {
    let dp = i.dp_size.unwrap_or(1);
    let moe = model.layers.iter().any(|l| matches!(l, Ffn::Moe(_)));
    if i.kind != EngineKind::Vllm || dp <= 1 || !moe {
        return Ok(None);
    }
    let box_gpus = hw.topology.gpu_count() as u32;
    let world = dp.saturating_mul(i.tp);
    if world > box_gpus {
        return Err(invalid(
            "engine.dp_size",
            format!(
                "{dp}: vLLM's DP ranks of a MoE model need data_parallel_size × tp = {world} GPUs, more than the \
                 box's {box_gpus}; DP + EP across boxes is not modelled: expected dp_size ≤ {}",
                box_gpus / i.tp.max(1)
            ),
        ));
    }
    let not_modelled = |key: &str, what: &str| {
        invalid(
            key,
            format!(
                "{what} together with vLLM data parallelism on a MoE model (dp_size {dp}) is not modelled"
            ),
        )
    };
    if i.pp > 1 {
        return Err(not_modelled("engine.pp_size", "pipeline parallelism"));
    }
    if i.dcp.is_some_and(|d| d > 1) {
        return Err(not_modelled("engine.dcp_size", "decode context parallelism"));
    }
    if i.speculative {
        return Err(not_modelled("speculative", "speculative decoding"));
    }
    let name = i.all2all_backend.unwrap_or("allgather_reducescatter");
    if !super::moe_a2a::VLLM_ALL2ALL_BACKENDS.contains(&name) {
        return Err(invalid(
            "engine.all2all_backend",
            format!(
                "`{name}`: expected one of vLLM 0.11's {}",
                super::moe_a2a::VLLM_ALL2ALL_BACKENDS.join(", ")
            ),
        ));
    }
    let backend = match name {
        "allgather_reducescatter" => Backend::AllgatherReducescatter,
        "naive" => Backend::Naive,
        b @ ("deepep_high_throughput" | "deepep_low_latency") if !hw.gpu.nvlink => {
            return Err(invalid(
                "engine.all2all_backend",
                format!(
                    "`{b}`: DeepEP requires \"NVLink for intranode communication\" (DeepEP README, Requirements) \
                     and {} has none; use allgather_reducescatter (vLLM's default) or naive",
                    hw.gpu.name
                ),
            ));
        }
        b => {
            return Err(invalid(
                "engine.all2all_backend",
                format!(
                    "`{b}` under vLLM data parallelism is not modelled: tpsim costs allgather_reducescatter \
                     (vLLM's default) and naive"
                ),
            ));
        }
    };
    let ep = i.enable_expert_parallel;
    let sequence_parallel = ep && i.tp > 1;
    warnings.push(format!(
        "vLLM runs {dp} data-parallel ranks of tp {tp} ({world} GPUs): attention, dense layers and the LM head \
         per rank at tp {tp}, the experts over dp × tp = {world} GPUs ({}); VLLM_ALL2ALL_BACKEND={} {}; the ranks \
         step together (DPEngineCoreProc: idle ranks run dummy batches, every batch padded to the largest rank's), \
         and the API server's least-loaded choice is modelled as an even split of the running requests",
        if ep {
            "whole experts per rank, --enable-expert-parallel"
        } else {
            "each expert split TP-style, no --enable-expert-parallel"
        },
        match backend {
            Backend::AllgatherReducescatter => "allgather_reducescatter",
            Backend::Naive => "naive",
        },
        if sequence_parallel {
            "over the EP group with sequence-parallel MoE (each TP rank sends 1/tp of the tokens)"
        } else {
            "over the DP group"
        },
        tp = i.tp,
    ));
    Ok(Some(VllmDp {
        dp,
        tp: i.tp,
        ep,
        backend,
        sequence_parallel,
    }))
}
