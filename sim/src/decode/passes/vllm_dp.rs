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

use super::{Builder, Collective, PassShape};
use crate::comm::{Comm, Request};
use crate::decode::DecodeError;
use crate::exec::{TaskGraph, TaskId};
use crate::scenario::Scenario;
use crate::scenario::vllm_dp::{Backend, VllmDp};
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
    (tokens * (model.hidden + experts) * act, tokens * model.hidden * act)
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

impl Builder<'_> {
    /// A collective over the MoE exchange's group: the whole box (EP group, or DP group at tp 1)
    /// or the DP group's own communicator.
    fn group_time(&self, c: Collective) -> Duration {
        match (&self.costs.vllm_dp, c) {
            (Some(comm), Collective::Allreduce(b)) => comm.allreduce(b, Request::Backend(self.costs.backend)).time,
            (Some(comm), Collective::Allgather(b) | Collective::ReduceScatter(b)) => comm.allgather(b).time,
            (_, Collective::Allreduce(b)) => self.costs.allreduce(Bytes(b)).time,
            (_, Collective::Allgather(b)) => self.costs.allgather(Bytes(b)).time,
            (_, Collective::ReduceScatter(b)) => self.costs.reduce_scatter(Bytes(b)).time,
            _ => Duration::ZERO,
        }
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
        };
        let global = PassShape {
            seqs: local.seqs * dp,
            tokens: group_rows,
            ctx: shape.ctx,
            logits: local.logits * dp,
        };
        let attn = self.pass_at(model, label, local, tp);
        let ffn = self.pass_at(model, label, global, v.world());
        // The shared experts' (and router's) bytes as vLLM holds them: whole under
        // sequence-parallel MoE, else at the rank's tp.
        let shared = model.forward_pass(if v.sequence_parallel { 1 } else { tp }, 1);
        let local_bytes = u64::from(local.tokens) * model.hidden * model.activation_bytes();
        let (dispatch, combine) = exchange_bytes(model, u64::from(group_rows));
        let tp_ar = |bytes: u64| self.costs.attn_allreduce(bytes);

        let emb = self.per_gpu(g, &format!("{label}: embed"), self.rates.op_time(0.0, 0.0, 1), 1, deps)?;
        let mut prev: Vec<TaskId> = if tp > 1 {
            let name = format!("{label}: allreduce embed (tp)");
            vec![self.gang(g, &name, Collective::Allreduce(local_bytes), tp_ar(local_bytes), emb)?]
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
            let mut a = self.per_gpu(g, &format!("{label}: L{i} attention"), t_attn, la.attn_kernels, &prev)?;
            if tp > 1 {
                let name = format!("{label}: L{i} allreduce attn (tp)");
                a = vec![self.gang(g, &name, Collective::Allreduce(local_bytes), tp_ar(local_bytes), a)?];
            }
            if !lf.is_moe {
                let (t, kind) = self.ffn_time(&attn, la);
                let f = self.per_gpu(g, &format!("{label}: L{i} {kind}"), t, la.ffn_kernels, &a)?;
                prev = if tp > 1 {
                    let name = format!("{label}: L{i} allreduce {kind} (tp)");
                    vec![self.gang(g, &name, Collective::Allreduce(local_bytes), tp_ar(local_bytes), f)?]
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
            let f = self.per_gpu(g, &format!("{label}: L{i} {kind}"), t_ffn, lf.ffn_kernels, &[gathered])?;
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
                    self.gang(g, &name, Collective::Allreduce(local_bytes), tp_ar(local_bytes), vec![done])?
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
