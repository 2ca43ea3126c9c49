//! Issue #17 point 4: pipeline stages across the boxes of a `[hardware.cluster]`.
//!
//! Ranks are laid out box by box with tp fastest (vLLM 0.11 `distributed/parallel_state.py`
//! `initialize_model_parallel`; SGLang 0.5.9 `pp_rank * tp_size + tp_rank`): stage s holds global
//! GPUs [s·tp, (s+1)·tp). tpsim costs a TP group inside one box only, so a stage must not straddle
//! two boxes: tp must divide the box's GPU count once the stages leave the first box.

use super::{Hardware, ScenarioError};

/// Refuses a (tp, pp) whose stages would straddle a box boundary.
pub fn check(
    tp: u32,
    pp: u32,
    hw: &Hardware,
    invalid: &impl Fn(&str, String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    let gpus = hw.topology.gpu_count() as u32;
    if tp.saturating_mul(pp) <= gpus || tp == 0 || gpus.is_multiple_of(tp) {
        return Ok(());
    }
    Err(invalid(
        "engine.pp_size",
        format!(
            "tp {tp} × pp {pp} spans {} boxes of {gpus} GPUs, but {gpus} is not a multiple of tp {tp}: \
             a stage would straddle two boxes (tpsim keeps a TP group inside one box); expected tp \
             dividing {gpus}",
            (tp * pp).div_ceil(gpus)
        ),
    ))
}
