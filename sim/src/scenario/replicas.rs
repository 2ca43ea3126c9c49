//! Issue #17 (dp): data-parallel replicas — SGLang's `--dp-size` without `--enable-dp-attention` and
//! vLLM's `--data-parallel-size` on a dense model, both from the scenario key `engine.dp_size`.
//!
//! Each replica is a whole engine on its own tp × pp GPUs with its own KV pool and scheduler; the
//! requests are split among them by a router (`serve::replicas`). The per-rank memory plan is one
//! replica's (every replica is the same).
//!
//! Sources:
//! - SGLang 0.5.9 `managers/data_parallel_controller.py` `launch_dp_schedulers`: replica `r` starts at
//!   GPU `r × tp_size × pp_size × gpu_id_step`, so the replicas take dp × tp × pp GPUs;
//!   `server_args.py` `_handle_load_balance_method`: `load_balance_method` "auto" becomes
//!   "round_robin" outside PD disaggregation; `check_server_args` refuses data parallelism across
//!   nodes without DP attention.
//! - vLLM 0.11.0 `config/parallel.py`: `world_size_across_dp = tp × pp × dp`;
//!   `v1/engine/core_client.py` `DPLBAsyncMPClient.get_core_engine_for_request`: the engine with the
//!   lowest `4 × waiting + running` (its local count bumped at each pick, so an idle, even set of
//!   engines is taken in index order). vLLM 0.11.0 `v1/engine/core.py` runs every DP rank as a
//!   `DPEngineCoreProc` (ranks step together; an idle rank runs `execute_dummy_batch`; batches
//!   padded to the largest across ranks in `gpu_model_runner.py` `get_dp_padding`), dense or MoE;
//!   vLLM 0.19.0 `core.py` runs a dense model's DP ranks as independent engines ("Non-MoE DP ranks
//!   are completely independent"). A MoE model under vLLM DP runs attention data-parallel with the
//!   experts spread over dp × tp ranks (`FusedMoEParallelConfig.make`): `scenario::vllm_dp`.

use super::{EngineKind, Hardware, ScenarioError};
use tpsim_model::llm::ModelSpec;

/// Data-parallel replicas as resolved (1 = a single engine).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Replicas {
    pub count: u32,
    /// What the engine logs or what tpsim approximates, for the scenario's warnings.
    pub warnings: Vec<String>,
}

/// The inputs: the engine, its version, `enable_dp_attention`, `dp_size`, tp and pp as resolved.
#[derive(Debug, Clone, Copy)]
pub struct Input<'a> {
    pub kind: EngineKind,
    /// The release simulated (`crate::engine_release`: `engine.version` or tpsim's current one).
    pub version: &'a str,
    pub enable_dp_attention: bool,
    pub dp_size: Option<u32>,
    pub tp: u32,
    pub pp: u32,
}

/// `(major, minor)` of a version string such as "0.11.0" (None when it does not parse).
fn minor(v: &str) -> Option<(u32, u32)> {
    let mut it = v.trim_start_matches('v').split('.');
    Some((it.next()?.parse().ok()?, it.next()?.parse().ok()?))
}

/// Resolves the replicas of `engine.dp_size` (DP attention, resolved in `scenario::dp_attention`,
/// takes the key first under SGLang).
pub fn resolve(
    i: Input<'_>,
    hw: &Hardware,
    _model: &ModelSpec,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Replicas, ScenarioError> {
    let dp = i.dp_size.unwrap_or(1);
    if dp <= 1 || (i.kind == EngineKind::Sglang && i.enable_dp_attention) {
        return Ok(Replicas {
            count: 1,
            warnings: Vec::new(),
        });
    }
    let box_gpus = hw.topology.gpu_count() as u32;
    let nodes = hw.accel.nodes();
    let per_replica = i.tp.saturating_mul(i.pp.max(1));
    let needed = per_replica.saturating_mul(dp);
    let mut warnings = Vec::new();
    match i.kind {
        EngineKind::Sglang => {
            if needed > box_gpus {
                let message = if needed <= box_gpus.saturating_mul(nodes) {
                    // SGLang 0.5.9 `server_args.py` `check_server_args` (an assertion).
                    format!(
                        "{dp}: the replicas need dp × tp × pp = {needed} GPUs, more than one box's {box_gpus}, and SGLang \
                         refuses: \"multi-node data parallel is not supported unless dp attention!\""
                    )
                } else {
                    format!(
                        "{dp}: the replicas need dp × tp × pp = {needed} GPUs, but the box has {box_gpus}: expected \
                         dp_size ≤ {}",
                        box_gpus / per_replica.max(1)
                    )
                };
                return Err(invalid("engine.dp_size", message));
            }
            warnings.push(format!(
                "SGLang's data-parallel controller runs {dp} replicas of tp {} × pp {} GPUs ({needed} GPUs) and \
                 sends requests round robin (load_balance_method \"auto\" → \"round_robin\"); the memory plan \
                 is per rank of one replica, the serving figures are the replicas' together",
                i.tp,
                i.pp.max(1)
            ));
        }
        EngineKind::Vllm => {
            let all = box_gpus.saturating_mul(nodes);
            if needed > all {
                return Err(invalid(
                    "engine.dp_size",
                    format!(
                        "{dp}: vLLM's data-parallel ranks need data_parallel_size × tp × pp = {needed} GPUs, but the \
                         hardware has {all}: expected dp_size ≤ {}",
                        all / per_replica.max(1)
                    ),
                ));
            }
            // A MoE model under vLLM DP is `scenario::vllm_dp` (resolved before this).
            warnings.push(format!(
                "vLLM runs {dp} data-parallel engines of tp {} × pp {} GPUs ({needed} GPUs); the API server \
                 sends each request to the least-loaded engine, modelled as round robin; the memory plan is \
                 per rank of one engine, the serving figures are the engines' together",
                i.tp,
                i.pp.max(1)
            ));
            // Dense models: lock-step DP ranks until vLLM runs them as independent engines (0.19.0
            // checked; 0.11.0 and 0.12.0 checked lock-step).
            let independent = minor(i.version).is_some_and(|v| v >= (0, 19));
            if !independent {
                warnings.push(format!(
                    "vLLM {} steps the data-parallel ranks of a dense model together (DPEngineCoreProc: an idle \
                     rank runs a dummy batch, batches are padded to the largest rank's); tpsim runs the replicas \
                     independently, as vLLM 0.19 does, so uneven steps are not charged",
                    i.version
                ));
            }
        }
    }
    Ok(Replicas { count: dp, warnings })
}
