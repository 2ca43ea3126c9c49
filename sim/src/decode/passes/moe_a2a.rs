//! Issue #17 point 1 (ep): a MoE layer on SGLang's DeepEP path (`--moe-a2a-backend deepep`).
//!
//! SGLang 0.5.9 `layers/communicator.py`: with an all-to-all backend a sparse layer's MLP input is
//! SCATTERED (`_compute_mlp_mode`), so after the attention the TP group reduce-scatters the hidden
//! states (`_scatter_hidden_states_and_residual`: `attn_tp_reduce_scatter_tensor`, which also sums
//! the attention's partial outputs) instead of all-reducing them; each rank then dispatches its
//! share of the tokens to the ranks of their experts, runs its experts (and the shared experts,
//! whole on every rank) and combines the results back (`token_dispatcher/deepep.py`); the next
//! layer's input is gathered again (`_gather_hidden_states_and_residual`, an all-gather over the
//! TP group), as is the last layer's output (`ScatterMode.model_input_output` is TP_ATTN_FULL).
//! tpsim lowers a sparse layer as attention → reduce-scatter → dispatch → experts → combine →
//! all-gather; dense layers keep their allreduces (`_compute_mlp_mode`: FULL).
//!
//! Dispatch and combine are costed on the box's fabric: every rank sends its per-pair volume
//! (`decode::moe_a2a::volumes`) to every other rank at once, the flows sharing the links, then one
//! flag write (the receiver polls a count written after the data: DeepEP `internode_ll.cu` /
//! `intranode.cu`). The normal kernels also wait on the host for the received counts (DeepEP
//! `csrc/legacy/buffer.hpp`: the CPU spins on the mapped `moe_recv_counter` before allocating the
//! receive tensors), costed as one engine sync (`sync_cost`).

use super::{Builder, Collective, Costs, Pass};
use crate::comm::Comm;
use crate::decode::DecodeError;
use crate::decode::moe_a2a::{fp8_experts, shared_replication, volumes};
use crate::exec::{TaskGraph, TaskId};
use crate::net::{FlowKind, FlowSim};
use crate::scenario::moe_a2a::MoeA2a;
use tpsim_model::llm::LayerWork;
use tpsim_model::units::{Bytes, Duration};

/// One all-to-all on `comm`'s ranks: `per_pair` bytes from every rank to every other, at once,
/// then the slowest pair's flag latency.
pub(super) fn a2a_time(comm: &Comm, per_pair: u64) -> Duration {
    let fab = &comm.fabric;
    let ranks = &comm.ranks;
    if per_pair == 0 || ranks.len() < 2 {
        return Duration::ZERO;
    }
    let mut sim = FlowSim::new(&fab.net);
    let mut flag = Duration::ZERO;
    let mut tag = 0;
    for &a in ranks {
        for &b in ranks {
            if a == b {
                continue;
            }
            let f = fab.flow(a, b, per_pair, Duration::ZERO, FlowKind::Write, tag);
            tag += 1;
            if sim.add_flow(f).is_err() {
                continue;
            }
            flag = flag.max(fab.flag_latency(a, b));
        }
    }
    let end = sim
        .run_to_end()
        .iter()
        .map(|c| c.time)
        .max()
        .unwrap_or(Duration::ZERO);
    end + flag
}

impl Costs {
    /// A dispatch or combine of `per_pair` bytes per pair of ranks (recorded for `params_used`).
    fn a2a(&self, c: Collective, per_pair: u64) -> Duration {
        self.record_pp_send(c);
        a2a_time(&self.comm, per_pair)
    }
}

impl Builder<'_> {
    /// The FFN half of MoE layer `i` on the DeepEP path after the attention tasks `a`: reduce-scatter,
    /// dispatch, experts, combine, all-gather; returns the all-gather.
    pub(super) fn add_moe_a2a(
        &self,
        g: &mut TaskGraph,
        pass: &Pass,
        i: usize,
        l: &LayerWork,
        a2a: MoeA2a,
        a: Vec<TaskId>,
    ) -> Result<TaskId, DecodeError> {
        let label = pass.label;
        let model = pass.model;
        let tp = u64::from(self.s.engine.tp);
        let shape = pass.shape;
        let extend = shape.ctx == 0 || shape.logits < shape.tokens;
        // Tokens padded to a multiple of tp, each rank holding its share.
        let padded = u64::from(shape.tokens).div_ceil(tp) * tp;
        let total = Bytes(padded * model.hidden * model.activation_bytes());
        let rs = self.costs.reduce_scatter(total);
        let mut prev = self.gang(
            g,
            &format!("{label}: L{i} a2a scatter (reduce-scatter)"),
            Collective::ReduceScatter(total.0),
            rs.time,
            a,
        )?;
        let k = l.top_k;
        let v = volumes(
            &a2a,
            (u64::from(shape.tokens), tp),
            (model.hidden, l.n_experts, k),
            fp8_experts(model),
            extend,
        );
        let kernels = if v.low_latency { "low-latency" } else { "normal" };
        let mut t_dispatch = self.costs.a2a(Collective::A2aDispatch(v.dispatch), v.dispatch);
        if !v.low_latency {
            t_dispatch += self.s.engine.costs.sync_cost;
        }
        prev = self.gang(
            g,
            &format!("{label}: L{i} a2a dispatch ({kernels})"),
            Collective::A2aDispatch(v.dispatch),
            t_dispatch,
            vec![prev],
        )?;
        // The experts: the routed ones as under EP (`ffn_time`'s ep branch), the shared experts whole.
        let extra = self
            .a2a_shared
            .borrow_mut()
            .entry((model.hidden, model.layers.len()))
            .or_insert_with(|| shared_replication(model, self.s.engine.tp))
            .get(i)
            .copied()
            .unwrap_or(0);
        let mut lw = *l;
        lw.fixed_ffn_bytes = Bytes(l.fixed_ffn_bytes.0 + extra);
        let (t_ffn, kind) = self.ffn_time(pass, &lw);
        let f = self.per_gpu(g, &format!("{label}: L{i} {kind}"), t_ffn, l.ffn_kernels, &[prev])?;
        let t_combine = self.costs.a2a(Collective::A2aCombine(v.combine), v.combine);
        prev = self.gang(
            g,
            &format!("{label}: L{i} a2a combine ({kernels})"),
            Collective::A2aCombine(v.combine),
            t_combine,
            f,
        )?;
        let ag = self.costs.allgather(total);
        self.gang(
            g,
            &format!("{label}: L{i} a2a gather (all-gather)"),
            Collective::Allgather(total.0),
            ag.time,
            vec![prev],
        )
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs};
    use super::a2a_time;
    use crate::scenario::load_str;
    use std::path::Path;
    use tpsim_model::units::Duration;

    fn scenario(engine: &str) -> crate::scenario::Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.8\"\ntp = 8\n{engine}\n\
             [workload]\nconcurrency = 64\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("a2a-test.toml")).expect("scenario")
    }

    /// h200-8x-nvlink: every GPU has its own 450 GB/s NVLink port each way to the NVSwitch
    /// (`nvlink_bw`, `nvlink_latency` 0.6 µs in the preset). An all-to-all of 1,000,000 B per pair
    /// sends 7 × 1 MB out of each port and receives 7 MB into each: 7e6 / 450e9 = 15.556 µs, plus
    /// the path latency of the flows and one flag write (0.6 µs each): 16.756 µs, ±0.1 µs.
    #[test]
    fn all_to_all_on_nvlink_by_hand() {
        let s = scenario("moe_a2a_backend = \"deepep\"");
        let costs = collective_costs(&s);
        let t = a2a_time(&costs.comm, 1_000_000).as_secs_f64() * 1e6;
        assert!((t - 16.756).abs() < 0.1, "{t} µs");
        assert_eq!(a2a_time(&costs.comm, 0), Duration::ZERO);
    }

    /// Decode of 64 requests under `deepep_mode = auto`: every one of DeepSeek-V3's 58 sparse
    /// layers (layers 3–60) runs reduce-scatter, low-latency dispatch, experts, combine and
    /// all-gather, and its 3 dense layers keep their two allreduces; the dispatch moves 59,264 B per
    /// pair (`decode::moe_a2a` test) and takes what `a2a_time` gives for that.
    #[test]
    fn decode_iteration_runs_the_a2a_path_on_sparse_layers() {
        let s = scenario("moe_a2a_backend = \"deepep\"");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        let names: Vec<(String, Duration)> = shape
            .graph
            .iter()
            .map(|(_, t)| (t.name.clone(), t.duration))
            .collect();
        let count = |k: &str| names.iter().filter(|(n, _)| n.contains(k)).count();
        assert_eq!(count("a2a dispatch (low-latency)"), 58);
        assert_eq!(count("a2a combine (low-latency)"), 58);
        assert_eq!(count("a2a scatter"), 58);
        assert_eq!(count("a2a gather"), 58);
        // 3 dense layers × 2, plus the embedding's.
        assert_eq!(count("allreduce"), 7);
        let d = names
            .iter()
            .find(|(n, _)| n.contains("L3 a2a dispatch"))
            .expect("dispatch")
            .1;
        assert_eq!(d, a2a_time(&costs.comm, 59_264));
        // Normal mode: the host waits for the counts, one engine sync more.
        let s = scenario("moe_a2a_backend = \"deepep\"\ndeepep_mode = \"normal\"");
        assert!(
            !s.engine.cuda_graph,
            "SGLang turns CUDA graphs off for normal mode"
        );
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        assert!(
            shape
                .graph
                .iter()
                .any(|(_, t)| t.name.contains("L3 a2a dispatch (normal)"))
        );
    }
}
