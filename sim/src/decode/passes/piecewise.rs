//! graphmode: a decode layer under vLLM's PIECEWISE CUDA graphs (`scenario::cudagraph_mode`).
//!
//! vLLM compiles the model into pieces split at its `splitting_ops` (the attention op,
//! `vllm::unified_attention_with_output`; `CompilationConfig.set_splitting_ops_for_v1`) and
//! captures each piece; at run time the host replays a piece, calls the attention op eagerly, replays
//! the next piece, and so on. So each attention layer costs the host one eager call of the attention
//! op (one modelled kernel at `engine.costs.launch_overhead`, the eager-host convention of
//! `tests/data/eager-host.tsv`, where the attention of a GPT-2 layer counts one) and one more piece
//! replay ([`PIECEWISE_SPLIT_HOST`]). The calls are serialised on each rank's host thread and the
//! attention waits for its launch; the GPU work inside the pieces needs no host time. When the GPU
//! step per layer is longer than the host's, the host runs ahead and the step does not grow.

use super::Builder;
use crate::decode::DecodeError;
use crate::exec::{Category, Task, TaskGraph, TaskId};
use crate::scenario::Scenario;
use crate::scenario::cudagraph_mode::{DecodeLaunch, PIECEWISE_SPLIT_HOST};

/// Whether a builder for `s` launches decode steps as PIECEWISE graphs (vLLM, graphs on, the
/// mode's decode launch piecewise).
pub(super) fn runs_piecewise(s: &Scenario) -> bool {
    s.engine.cuda_graph
        && s.engine
            .cudagraph_mode
            .is_some_and(|m| m.decode() == DecodeLaunch::Piecewise)
}

impl Builder<'_> {
    /// Under PIECEWISE graphs, each rank's host launch of layer `name`'s attention (its eager
    /// call and one piece replay); none otherwise.
    pub(super) fn piecewise_attention_launch(
        &self,
        g: &mut TaskGraph,
        name: &str,
    ) -> Result<Vec<TaskId>, DecodeError> {
        if !self.piecewise {
            return Ok(Vec::new());
        }
        let cost = self.s.engine.costs.launch_overhead + PIECEWISE_SPLIT_HOST;
        self.launchers
            .iter()
            .map(|&l| {
                g.add(
                    Task::new(
                        format!("launch {name} attention (piecewise)"),
                        Category::Host,
                        cost,
                    )
                    .on([l]),
                )
                .map_err(DecodeError::from)
            })
            .collect()
    }
}
