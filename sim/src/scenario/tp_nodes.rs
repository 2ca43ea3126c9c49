//! Issue #17 point 4: a TP group larger than one box of a `[hardware.cluster]` (tp 16 on two 8-GPU
//! boxes). Ranks are laid out box by box (SGLang 0.5.9 and vLLM 0.11: global rank = node rank × GPUs
//! per node + local rank), and tpsim's per-node launch (`engine_args_nodes`) gives every node a full
//! box, so the group must fill whole boxes: tp a multiple of the box's GPU count.

use super::{AllreduceBackend, Hardware, ScenarioError};

/// The boxes a TP group of `tp` occupies: 1 when it fits in one box (or is larger than the whole
/// cluster: the caller's GPU-count check reports that), else tp ÷ box GPUs; refuses a tp that
/// would leave part of a box.
pub fn check(
    tp: u32,
    hw: &Hardware,
    invalid: &impl Fn(&str, String) -> ScenarioError,
) -> Result<u32, ScenarioError> {
    let gpus = (hw.topology.gpu_count() as u32).max(1);
    let nodes = hw.accel.nodes();
    if tp <= gpus || tp > gpus.saturating_mul(nodes) {
        return Ok(1);
    }
    if !tp.is_multiple_of(gpus) {
        return Err(invalid(
            "engine.tp",
            format!(
                "tp = {tp} spans {} boxes of {gpus} GPUs but does not fill them: expected tp a multiple \
                 of {gpus} (whole boxes) up to {}",
                tp.div_ceil(gpus),
                gpus * nodes
            ),
        ));
    }
    Ok(tp / gpus)
}

/// The allreduce backend in force and, when the scenario left `engine.allreduce` unset, the engine
/// default's reason (`scenario::allreduce_default`). SGLang (0.5.9 `custom_all_reduce.py`) and vLLM
/// (0.11.0 `custom_all_reduce.py`) skip their custom allreduce when the group is not all on one
/// node, with the warning quoted below, so a `custom` TP group across boxes runs NCCL.
pub fn allreduce(
    given: Option<AllreduceBackend>,
    kind: super::EngineKind,
    tp: u32,
    hw: &Hardware,
    warnings: &mut Vec<String>,
) -> (AllreduceBackend, Option<String>) {
    let Some(given) = given else {
        let (b, why) = super::allreduce_default::engine_default(kind, tp, hw);
        return (b, Some(why));
    };
    if given == AllreduceBackend::Custom && tp as usize > hw.topology.gpu_count() {
        warnings.push(format!(
            "allreduce = \"custom\" with tp = {tp} across boxes: the engine logs \"Custom allreduce is \
             disabled because this process group spans across nodes.\" and uses NCCL"
        ));
        return (AllreduceBackend::Nccl, None);
    }
    (given, None)
}
