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

/// How a builder for `s` launches (uniform decode steps, prefill and mixed steps): everything
/// eager without graphs; vLLM's mode's `decode_mode` and `mixed_mode` (graphverify: a mixed step
/// under FULL_AND_PIECEWISE runs PIECEWISE, under FULL_DECODE_ONLY eager); full graphs otherwise
/// (SGLang: its eager prefill is the eager builder's, `decode::prefill_is_eager`).
pub(super) fn launches(s: &Scenario) -> (DecodeLaunch, DecodeLaunch) {
    match s.engine.cudagraph_mode {
        _ if !s.engine.cuda_graph => (DecodeLaunch::Eager, DecodeLaunch::Eager),
        Some(m) => (m.decode(), m.mixed()),
        None => (DecodeLaunch::Full, DecodeLaunch::Full),
    }
}

impl Builder<'_> {
    /// How the pass being built is launched: the mixed launch while a pass with prompt tokens is
    /// built (a prefill or a mixed step, `recording`), the decode launch otherwise.
    pub(super) fn launch(&self) -> DecodeLaunch {
        if self.recording.get() {
            self.launches.1
        } else {
            self.launches.0
        }
    }

    /// Under PIECEWISE graphs, each rank's host launch of layer `name`'s attention (its eager
    /// call and one piece replay); none otherwise.
    pub(super) fn piecewise_attention_launch(
        &self,
        g: &mut TaskGraph,
        name: &str,
    ) -> Result<Vec<TaskId>, DecodeError> {
        if self.launch() != DecodeLaunch::Piecewise {
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

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs, durations};
    use crate::scenario::load_str;
    use std::path::Path;
    use tpsim_model::units::Duration;

    /// Qwen2.5-7B (28 layers) under vLLM 0.11.0 on `hardware` with the engine lines `engine`.
    fn scenario(hardware: &str, model: &str, engine: &str) -> crate::scenario::Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hardware}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"vllm\"\n\
             version = \"0.11.0\"\nmax_model_len = 8192\n{engine}\n[workload]\nconcurrency = 8\n\
             prompt_len = 256\noutput_len = 16\n"
        );
        load_str(&text, Path::new("piecewise-test.toml")).expect("scenario")
    }

    /// The host tasks of `g` that launch a layer's attention between PIECEWISE pieces.
    fn piece_launches(g: &crate::exec::TaskGraph) -> Vec<Duration> {
        g.iter()
            .filter(|(_, t)| t.name.ends_with("attention (piecewise)"))
            .map(|(_, t)| t.duration)
            .collect()
    }

    /// graphverify: vLLM's `CUDAGraphMode` (compilation.py) FULL_AND_PIECEWISE = (FULL, PIECEWISE):
    /// a uniform decode replays one graph, a mixed step runs the pieces with each of the 28 layers'
    /// attention launched by the host (eagerhost's 28.1 µs + vLLM PR 9715's 9.75 µs = 37.85 µs);
    /// FULL_DECODE_ONLY = (FULL, NONE): the mixed step eager, every kernel launched; FULL: none.
    #[test]
    fn mixed_steps_run_the_modes_mixed_launch() {
        let launch = |m: &str| {
            let s = scenario(
                "h100-sxm-1x",
                "qwen2.5-7b",
                &format!("tp = 1\ncudagraph_mode = \"{m}\""),
            );
            let costs = collective_costs(&s);
            let mut b = Builder::new(&s, &costs);
            let d = b.simulate(8, 1024, false).expect("decode");
            let x = b.simulate_mixed(8, 1024, (1, 256, 0)).expect("mixed");
            let eager = x
                .graph
                .iter()
                .filter(|(_, t)| t.name.starts_with("launch ") && !t.name.ends_with("(piecewise)"))
                .count();
            (piece_launches(&d.graph), piece_launches(&x.graph), eager)
        };
        let (d, x, eager) = launch("FULL_AND_PIECEWISE");
        assert!(d.is_empty(), "{d:?}");
        assert_eq!(x, vec![Duration::from_ns(28_100 + 9_750); 28]);
        assert_eq!(eager, 0);
        let (d, x, eager) = launch("FULL_DECODE_ONLY");
        assert!(d.is_empty() && x.is_empty());
        assert!(eager > 28, "{eager} eager launches");
        assert_eq!(launch("FULL"), (vec![], vec![], 0));
        // PIECEWISE: the decode step as well.
        let (d, x, _) = launch("PIECEWISE");
        assert_eq!((d.len(), x.len()), (28, 28));
    }

    /// graphverify: vLLM DP on a MoE model (Qwen3-235B-A22B, 94 layers, dp 8 × tp 1) under
    /// PIECEWISE: each rank's host launches each layer's attention (8 × 94 launches of 37.85 µs);
    /// the MoE exchanges stay inside the pieces (not splitting ops: `CompilationConfig._attention_ops`).
    #[test]
    fn vllm_dp_decode_launches_attention_between_pieces() {
        let s = scenario(
            "rtx-pro-6000-8x-1switch",
            "qwen3-235b-a22b",
            "tp = 1\ndp_size = 8\nenable_expert_parallel = true\ncudagraph_mode = \"PIECEWISE\"",
        );
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        let l = piece_launches(&shape.graph);
        assert_eq!(l.len(), 8 * 94);
        assert!(
            l.iter()
                .all(|&d| d == s.engine.costs.launch_overhead + super::PIECEWISE_SPLIT_HOST)
        );
        assert_eq!(
            durations(&shape.graph, "launch decode: L7 moe dispatch: all-gather"),
            vec![]
        );
    }
}
