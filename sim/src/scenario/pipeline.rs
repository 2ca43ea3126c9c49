//! Issue #17: pipeline parallelism (SGLang `--pp-size`, vLLM `--pipeline-parallel-size`) checked
//! against the box and the model.

use super::{Hardware, ScenarioError};
use tpsim_model::llm::ModelSpec;

/// The pipeline-parallel size: 1 by default; tp × pp GPUs must exist, and every stage must hold at
/// least one layer.
pub fn resolve(
    pp_size: Option<u32>,
    tp: u32,
    speculative: bool,
    hw: &Hardware,
    model: &ModelSpec,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<u32, ScenarioError> {
    let pp = pp_size.unwrap_or(1);
    if pp == 0 {
        return Err(invalid(
            "engine.pp_size",
            "0: expected a pipeline size ≥ 1".into(),
        ));
    }
    if pp == 1 {
        return Ok(1);
    }
    // Issue #17 point 4: stages placed box by box may span the boxes of a cluster.
    let gpus = hw.topology.gpu_count() as u32 * hw.accel.nodes();
    if tp.saturating_mul(pp) > gpus {
        return Err(invalid(
            "engine.pp_size",
            format!(
                "tp {tp} × pp {pp} = {} GPUs, but the hardware has {gpus}: expected tp × pp ≤ {gpus}",
                tp * pp
            ),
        ));
    }
    super::pipeline_nodes::check(tp, pp, hw, &invalid)?;
    if pp > model.num_layers {
        return Err(invalid(
            "engine.pp_size",
            format!(
                "{pp} stages for {} layers: expected at most one stage per layer",
                model.num_layers
            ),
        ));
    }
    if speculative {
        return Err(invalid(
            "engine.pp_size",
            "speculative decoding with pipeline parallelism is not modelled: use pp_size = 1".into(),
        ));
    }
    // Hybrid and local-attention layouts split their pools per layer type; tpsim's stage plan
    // divides one uniform cell.
    if model.linear_attention.is_some() || model.sliding_layers() > 0 || model.nsa_kv(1).is_some() {
        return Err(invalid(
            "engine.pp_size",
            format!(
                "pipeline parallelism is modelled for models with one kind of KV layer; {} mixes layer kinds",
                model.name
            ),
        ));
    }
    Ok(pp)
}
