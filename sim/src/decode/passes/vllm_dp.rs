//! Issue #17 point 1 (vllmdp): one forward pass under vLLM's data parallelism on a MoE model
//! (`--data-parallel-size D`, `scenario::vllm_dp`).
//!
//! vLLM (the stored `main` after 0.19; `scenario::vllm_dp` names the files), per decoder layer:
//! - each DP rank runs attention over its own requests at its `tp`, then the TP group's
//!   allreduce (`RowParallelLinear` o_proj);
//! - a dense layer runs its MLP at the rank's `tp` with the TP allreduce (no DP exchange);
//! - a MoE layer (`FusedMoE`, naive dispatch/combine: `dp_size > 1`): the dispatch gathers the
//!   hidden states and router logits of every rank of the group (`dispatch_router_logits`), the
//!   experts (sharded over dp × tp) run over all of them, and the combine returns each rank its
//!   own rows — `allgather_reducescatter`: an all-gather and a reduce-scatter; `naive`: one
//!   broadcast per rank (costed as the all-gather it adds up to) and an allreduce of the whole
//!   buffer. The group is the DP group (dp ranks, each rank's whole batch), after which the TP
//!   group all-reduces the partial expert sums (`maybe_all_reduce_tensor_model_parallel`); with
//!   sequence-parallel MoE (EP, tp > 1) each TP rank sends its ⌈t / tp⌉ rows over the EP group
//!   (dp × tp ranks) and the TP group all-gathers the rows back (`tensor_model_parallel_all_gather`),
//!   the shared experts then running whole on the rank's rows (`disable_tp=is_sequence_parallel`).
//! - the LM head runs at the rank's `tp` over its own requests; its logits are all-gathered in
//!   the TP group.
//!
//! The ranks step together and every rank's batch is padded to the largest (`dp_utils`
//! `num_tokens_across_dp`): tpsim lowers the busiest rank, ⌈batch / D⌉ requests, and gathers D
//! times that. Router logits are counted at the activation dtype. The DP group's collectives at
//! tp > 1 without sequence parallelism are costed on the box's first dp GPUs.

use super::{Builder, Collective, Costs, PassShape};
use crate::comm::{Comm, Request};
use crate::decode::DecodeError;
use crate::exec::{TaskGraph, TaskId};
use crate::scenario::Scenario;
use crate::scenario::vllm_dp::{Backend, VllmDp};
use serde::Serialize;
use tpsim_model::llm::{Ffn, ModelSpec};
use tpsim_model::units::{Bytes, Duration};

/// The DP group's communicator when it is neither the whole box nor one rank (tp > 1 without
/// sequence-parallel MoE).
pub(super) fn dp_group_comm(s: &Scenario) -> Option<Comm> {
    let v = s.engine.vllm_dp?;
    (v.tp > 1 && !v.sequence_parallel).then(|| Comm::new(&s.hardware, v.dp as usize, &s.engine.env))
}

/// The bytes one MoE layer's dispatch gathers and its combine returns, per rank, for `tokens`
/// rows in the group's buffer: hidden states plus router logits (one per routed expert) at the
/// activation dtype in, hidden states out.
pub fn exchange_bytes(model: &ModelSpec, tokens: u64) -> (u64, u64) {
    let act = model.activation_bytes();
    let experts = model
        .layers
        .iter()
        .find_map(|l| match l {
            Ffn::Moe(m) => Some(m.n_routed_experts),
            _ => None,
        })
        .unwrap_or(0);
    (
        tokens * (model.hidden + experts) * act,
        tokens * model.hidden * act,
    )
}

/// Rows in the MoE group's buffer and the rows each rank holds after attention, for a batch of
/// `tokens` tokens: each rank ⌈tokens / dp⌉ (padded to the largest rank); sequence-parallel
/// MoE sends ⌈local / tp⌉ of them from each of dp × tp ranks.
pub fn moe_rows(v: &VllmDp, tokens: u32) -> (u32, u32) {
    let local = tokens.div_ceil(v.dp);
    let group = if v.sequence_parallel {
        local.div_ceil(v.tp) * v.world()
    } else {
        local * v.dp
    };
    (group, local)
}

/// A collective over the MoE exchange's group: the whole box (EP group, or DP group at tp 1) or
/// the DP group's own communicator.
fn group_time(costs: &Costs, c: Collective) -> Duration {
    match (&costs.vllm_dp, c) {
        (Some(comm), Collective::Allreduce(b)) => comm.allreduce(b, Request::Backend(costs.backend)).time,
        (Some(comm), Collective::Allgather(b) | Collective::ReduceScatter(b)) => comm.allgather(b).time,
        (_, Collective::Allreduce(b)) => costs.allreduce(Bytes(b)).time,
        (_, Collective::Allgather(b)) => costs.allgather(Bytes(b)).time,
        (_, Collective::ReduceScatter(b)) => costs.reduce_scatter(Bytes(b)).time,
        _ => Duration::ZERO,
    }
}

/// rope17 (issue #17): one decode pass's MoE exchange under vLLM DP, as `tpsim run --json` reports
/// it in `collectives.moe_exchange` (the same sizes and times the pass's graph is built with).
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct MoeExchange {
    /// vLLM's all2all backend: `allgather_reducescatter` or `naive`.
    pub backend: &'static str,
    /// Ranks of the exchange group: dp × tp under sequence-parallel MoE (EP at tp > 1), else dp.
    pub group_ranks: u32,
    /// Rows in the group's buffer (every rank padded to the busiest).
    pub rows: u32,
    /// MoE layers in a pass: each runs one dispatch and one combine.
    pub calls_per_pass: u32,
    /// The dispatch's collective (`all-gather`) and the bytes each rank ends with: hidden states
    /// plus router logits of every row at the activation dtype.
    pub dispatch: &'static str,
    pub dispatch_bytes: u64,
    pub dispatch_us: f64,
    /// The combine's collective (`reduce-scatter`, or `allreduce` under `naive`) over the hidden
    /// states of every row.
    pub combine: &'static str,
    pub combine_bytes: u64,
    pub combine_us: f64,
    /// After the combine, inside each DP rank's TP group (tp > 1): the rows' all-gather under
    /// sequence-parallel MoE, else the allreduce of the partial expert sums; `null` at tp 1.
    pub tp_after_combine: Option<&'static str>,
    pub tp_after_combine_bytes: Option<u64>,
    pub tp_after_combine_us: Option<f64>,
}

/// The MoE exchange of one decode pass of `batch` requests (one token each) under vLLM DP;
/// `None` off vLLM DP or on a model without MoE layers.
pub fn moe_exchange(s: &Scenario, costs: &Costs, batch: u32) -> Option<MoeExchange> {
    let v = s.engine.vllm_dp?;
    let model = &s.model;
    let layers = model.layers.iter().filter(|l| matches!(l, Ffn::Moe(_))).count() as u32;
    if layers == 0 {
        return None;
    }
    let (rows, local) = moe_rows(&v, batch);
    let (dispatch, combine) = exchange_bytes(model, u64::from(rows));
    let (c, combine_name, backend) = match v.backend {
        Backend::AllgatherReducescatter => (
            Collective::ReduceScatter(combine),
            "reduce-scatter",
            "allgather_reducescatter",
        ),
        Backend::Naive => (Collective::Allreduce(combine), "allreduce", "naive"),
    };
    let local_bytes = u64::from(local) * model.hidden * model.activation_bytes();
    let after = (v.tp > 1).then(|| {
        if v.sequence_parallel {
            ("all-gather", costs.attn_ring(local_bytes))
        } else {
            ("allreduce", costs.attn_allreduce(local_bytes))
        }
    });
    Some(MoeExchange {
        backend,
        group_ranks: if v.sequence_parallel { v.world() } else { v.dp },
        rows,
        calls_per_pass: layers,
        dispatch: "all-gather",
        dispatch_bytes: dispatch,
        dispatch_us: group_time(costs, Collective::Allgather(dispatch)).as_us_f64(),
        combine: combine_name,
        combine_bytes: combine,
        combine_us: group_time(costs, c).as_us_f64(),
        tp_after_combine: after.map(|a| a.0),
        tp_after_combine_bytes: after.map(|_| local_bytes),
        tp_after_combine_us: after.map(|a| a.1.as_us_f64()),
    })
}

impl Builder<'_> {
    /// A collective over the MoE exchange's group ([`group_time`]).
    fn group_time(&self, c: Collective) -> Duration {
        group_time(self.costs, c)
    }

    /// [`Builder::add_pass`] under vLLM DP on a MoE model; returns the pass's last task.
    pub(super) fn add_pass_vllm_dp(
        &self,
        g: &mut TaskGraph,
        model: &ModelSpec,
        label: &str,
        shape: PassShape,
        deps: &[TaskId],
        v: VllmDp,
    ) -> Result<TaskId, DecodeError> {
        let (dp, tp) = (v.dp, v.tp);
        let (group_rows, local_rows) = moe_rows(&v, shape.tokens);
        let local = PassShape {
            seqs: shape.seqs.div_ceil(dp),
            tokens: local_rows,
            ctx: shape.ctx,
            logits: shape.logits.div_ceil(dp),
            prefix: shape.prefix,
            // vllmchunk59: a mixed step's chunks are costed apart on one group only (first cut).
            chunks: 0,
            chunk_tokens: 0,
        };
        let global = PassShape {
            seqs: local.seqs * dp,
            tokens: group_rows,
            ctx: shape.ctx,
            logits: local.logits * dp,
            prefix: shape.prefix,
            // vllmchunk59: a mixed step's chunks are costed apart on one group only (first cut).
            chunks: 0,
            chunk_tokens: 0,
        };
        let attn = self.pass_at(model, label, local, tp);
        let ffn = self.pass_at(model, label, global, v.world());
        // The shared experts' (and router's) bytes as vLLM holds them: whole under
        // sequence-parallel MoE, else at the rank's tp.
        let shared = model.forward_pass(if v.sequence_parallel { 1 } else { tp }, 1);
        let local_bytes = u64::from(local.tokens) * model.hidden * model.activation_bytes();
        let (dispatch, combine) = exchange_bytes(model, u64::from(group_rows));
        let tp_ar = |bytes: u64| self.costs.attn_allreduce(bytes);

        let emb = self.per_gpu(
            g,
            &format!("{label}: embed"),
            self.rates.op_time(0.0, 0.0, 1),
            1,
            deps,
        )?;
        let mut prev: Vec<TaskId> = if tp > 1 {
            let name = format!("{label}: allreduce embed (tp)");
            vec![self.gang(
                g,
                &name,
                Collective::Allreduce(local_bytes),
                tp_ar(local_bytes),
                emb,
            )?]
        } else {
            emb
        };
        for (i, ((la, lf), ls)) in attn
            .fp
            .layers
            .iter()
            .zip(&ffn.fp.layers)
            .zip(&shared.layers)
            .enumerate()
        {
            if let Some((bytes, _)) = attn.qk_norm.filter(|_| tp > 1) {
                let name = format!("{label}: L{i} allreduce qk-norm (tp)");
                prev = vec![self.gang(g, &name, Collective::Allreduce(bytes), tp_ar(bytes), prev)?];
            }
            let t_attn = self.attention_time(&attn, la);
            // graphverify: under PIECEWISE the host launches the attention between pieces, as on
            // the TP path (`passes::piecewise`); the MoE exchanges are not splitting ops.
            prev.extend(self.piecewise_attention_launch(g, &format!("{label}: L{i}"))?);
            let mut a = self.per_gpu(
                g,
                &format!("{label}: L{i} attention"),
                t_attn,
                la.attn_kernels,
                &prev,
            )?;
            if tp > 1 {
                let name = format!("{label}: L{i} allreduce attn (tp)");
                a = vec![self.gang(
                    g,
                    &name,
                    Collective::Allreduce(local_bytes),
                    tp_ar(local_bytes),
                    a,
                )?];
            }
            if !lf.is_moe {
                let (t, kind) = self.ffn_time(&attn, la);
                let f = self.per_gpu(g, &format!("{label}: L{i} {kind}"), t, la.ffn_kernels, &a)?;
                prev = if tp > 1 {
                    let name = format!("{label}: L{i} allreduce {kind} (tp)");
                    vec![self.gang(
                        g,
                        &name,
                        Collective::Allreduce(local_bytes),
                        tp_ar(local_bytes),
                        f,
                    )?]
                } else {
                    f
                };
                continue;
            }
            let d = Collective::Allgather(dispatch);
            let name = format!("{label}: L{i} moe dispatch: all-gather");
            let gathered = self.gang(g, &name, d, self.group_time(d), a)?;
            let mut l = *lf;
            l.fixed_ffn_bytes = ls.fixed_ffn_bytes;
            let (t_ffn, kind) = self.ffn_time(&ffn, &l);
            let f = self.per_gpu(
                g,
                &format!("{label}: L{i} {kind}"),
                t_ffn,
                lf.ffn_kernels,
                &[gathered],
            )?;
            let (c, what) = match v.backend {
                Backend::AllgatherReducescatter => (Collective::ReduceScatter(combine), "reduce-scatter"),
                Backend::Naive => (Collective::Allreduce(combine), "allreduce"),
            };
            let name = format!("{label}: L{i} moe combine: {what}");
            let mut done = self.gang(g, &name, c, self.group_time(c), f)?;
            if tp > 1 {
                done = if v.sequence_parallel {
                    let name = format!("{label}: L{i} moe all-gather rows (tp)");
                    let t = self.costs.attn_ring(local_bytes);
                    self.gang(g, &name, Collective::Allgather(local_bytes), t, vec![done])?
                } else {
                    let name = format!("{label}: L{i} allreduce moe (tp)");
                    self.gang(
                        g,
                        &name,
                        Collective::Allreduce(local_bytes),
                        tp_ar(local_bytes),
                        vec![done],
                    )?
                };
            }
            prev = vec![done];
        }
        self.add_lm_head_tp(g, &attn, prev)
    }

    /// The LM head of one DP rank at its tp; the logits all-gathered inside the TP group.
    fn add_lm_head_tp(
        &self,
        g: &mut TaskGraph,
        pass: &super::Pass,
        prev: Vec<TaskId>,
    ) -> Result<TaskId, DecodeError> {
        let PassShape { tokens, logits, .. } = pass.shape;
        let fp = &pass.fp;
        let rows = f64::from(logits) / f64::from(tokens.max(1));
        let t_head = self.rates.op_time_formats(
            tpsim_model::curves::OpClass::LmHead,
            &[(fp.lm_head_bytes.0 as f64, Some(pass.model.dtype))],
            fp.lm_head_flops * rows,
            1,
        );
        let h = self.per_gpu(g, &format!("{}: lm head", pass.label), t_head, 1, &prev)?;
        let gather = fp.logits_allgather_bytes.0 / u64::from(tokens.max(1)) * u64::from(logits);
        let t = self.costs.attn_ring(gather);
        let name = format!("{}: all-gather logits (tp)", pass.label);
        self.gang(g, &name, Collective::Allgather(gather), t, h)
    }
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs, durations};
    use crate::scenario::load_str;
    use std::path::Path;

    /// Qwen3-235B-A22B (hidden 4,096, 128 experts, 94 MoE layers) under vLLM 0.19.0 on 8× RTX PRO
    /// 6000 (one PCIe switch) with the engine lines `engine`.
    fn scenario(engine: &str) -> crate::scenario::Scenario {
        let text = format!(
            "[hardware]\npreset = \"rtx-pro-6000-8x-1switch\"\n[model]\npreset = \"qwen3-235b-a22b\"\n\
             [engine]\nname = \"vllm\"\nversion = \"0.19.0\"\nmax_model_len = 8192\n{engine}\n\
             [workload]\nconcurrency = 64\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("vllm-dp-test.toml")).expect("scenario")
    }

    /// dp 8 × tp 1 with EP, 64 requests: 8 per rank; each MoE layer all-gathers 64 rows of hidden
    /// (4,096) + router logits (128) at 2 B = 64 × 4,224 × 2 = 540,672 B over the 8 ranks and
    /// reduce-scatters 64 × 4,096 × 2 = 524,288 B; no allreduce at tp 1. 94 layers × 2 + the
    /// logits gather (one rank: free) = 189 collectives.
    #[test]
    fn dp8_tp1_gathers_and_scatters_over_the_box() {
        let s = scenario("tp = 1\ndp_size = 8\nenable_expert_parallel = true");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        let g = &shape.graph;
        assert_eq!(
            durations(g, "decode: L7 moe dispatch: all-gather"),
            vec![costs.allgather(tpsim_model::units::Bytes(540_672)).time]
        );
        assert_eq!(
            durations(g, "decode: L7 moe combine: reduce-scatter"),
            vec![costs.allgather(tpsim_model::units::Bytes(524_288)).time]
        );
        let names: Vec<&str> = g.iter().map(|(_, t)| t.name.as_str()).collect();
        assert!(
            !names.iter().any(|n| n.contains("allreduce")),
            "no allreduce at tp 1"
        );
        assert_eq!(shape.collectives.len(), 94 * 2 + 1);
    }

    /// dp 4 × tp 2 with EP (sequence-parallel MoE): 16 requests per DP rank, 8 rows per TP rank,
    /// 8 × 8 = 64 rows over the EP group: the same 540,672 / 524,288 B as above; inside each DP
    /// rank the attention allreduce and the rows' all-gather of 16 × 4,096 × 2 = 131,072 B over 2
    /// ranks.
    #[test]
    fn dp4_tp2_ep_is_sequence_parallel() {
        let s = scenario("tp = 2\ndp_size = 4\nenable_expert_parallel = true");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        let g = &shape.graph;
        let tp2 = costs.attn.as_ref().expect("the DP rank's TP group");
        assert_eq!(tp2.ranks, vec![0, 1]);
        assert_eq!(
            durations(g, "decode: L7 moe dispatch: all-gather"),
            vec![costs.allgather(tpsim_model::units::Bytes(540_672)).time]
        );
        assert_eq!(
            durations(g, "decode: L7 moe all-gather rows (tp)"),
            vec![tp2.allgather(131_072).time]
        );
        assert_eq!(durations(g, "decode: L7 allreduce attn (tp)").len(), 1);
        assert!(durations(g, "decode: L7 allreduce moe (tp)").is_empty());
    }

    /// dp 4 × tp 2 without EP: the DP group (4 ranks) gathers each rank's 16 rows, 64 rows in all
    /// (540,672 B), reduce-scatters 524,288 B, then the TP group all-reduces the partial expert sums
    /// (131,072 B).
    #[test]
    fn dp4_tp2_without_ep_exchanges_over_the_dp_group() {
        let s = scenario("tp = 2\ndp_size = 4");
        let costs = collective_costs(&s);
        let dpg = costs.vllm_dp.as_ref().expect("the DP group");
        assert_eq!(dpg.ranks.len(), 4);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        let g = &shape.graph;
        assert_eq!(
            durations(g, "decode: L7 moe dispatch: all-gather"),
            vec![dpg.allgather(540_672).time]
        );
        assert_eq!(
            durations(g, "decode: L7 moe combine: reduce-scatter"),
            vec![dpg.allgather(524_288).time]
        );
        assert_eq!(durations(g, "decode: L7 allreduce moe (tp)").len(), 1);
    }

    /// Lock-step padding: 9 requests over 8 DP ranks put 2 on the busiest, and every rank is padded
    /// to it — the iteration costs exactly what 16 requests cost, more than 8.
    #[test]
    fn uneven_split_costs_the_busiest_rank() {
        let s = scenario("tp = 1\ndp_size = 8\nenable_expert_parallel = true");
        let costs = collective_costs(&s);
        let span = |batch| {
            let mut b = Builder::new(&s, &costs);
            b.simulate(batch, 1024, false)
                .expect("simulate")
                .schedule
                .makespan
        };
        let (t8, t9, t16) = (span(8), span(9), span(16));
        assert_eq!(t9, t16);
        assert!(t9 > t8, "{t9:?} vs {t8:?}");
    }

    /// `naive`: the combine all-reduces the whole gathered buffer (524,288 B) over the group.
    #[test]
    fn naive_combines_with_an_allreduce() {
        let s = scenario("tp = 1\ndp_size = 8\nenable_expert_parallel = true\nall2all_backend = \"naive\"");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        assert_eq!(
            durations(&shape.graph, "decode: L7 moe combine: allreduce"),
            vec![costs.allreduce(tpsim_model::units::Bytes(524_288)).time]
        );
    }
}
