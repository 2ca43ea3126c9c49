//! Issue #18 leftover (dpsched2): one forward under SGLang's DP attention in which some group
//! extends — the SUM_LEN gather mode, each group's attention on its own tokens.
//!
//! SGLang 0.5.9: `layers/dp_attention.py` `DpPaddingMode.get_dp_padding_mode` picks SUM_LEN whenever
//! any group's batch extends (`is_extend_in_batch`, the maximum over groups in
//! `scheduler_dp_attn_mixin.py` `prepare_mlp_sync_batch_raw`). Then, per decoder layer:
//! - each group runs attention over its own tokens (prefill chunks, decodes, or nothing when idle);
//!   the groups run side by side, so the layer waits for the slowest group's attention;
//! - `_dp_gather_via_all_reduce`: each rank writes its group's tokens at its offset in a buffer of
//!   the summed length (`global_dp_buffer_len` = Σ tokens, `forward_batch_info.py`
//!   `prepare_mlp_sync_batch`), zeros elsewhere, and the buffer is all-reduced over the TP group (at
//!   attn_tp > 1 the attention's partial sums add in the same all-reduce: no attention-group
//!   collective);
//! - the MLP/MoE runs sharded over all tp ranks on the summed tokens, and since the mode is not
//!   MAX_LEN it all-reduces its output itself (`communicator.py` `should_use_reduce_scatter` false;
//!   `models/deepseek_v2.py` `DeepseekV2MoE.forward_normal`: `tensor_model_parallel_all_reduce`
//!   when not `use_reduce_scatter`);
//! - `dp_scatter` copies the group's rows back (local, not costed).
//!
//! The logits (`logits_processor.py`) gather the rows that get logits, summed over groups
//! (`global_num_tokens_for_logprob`), with the same all-reduce, and the TP-sharded LM head runs
//! over them. The idle groups add no tokens.

use super::{Builder, Collective, PassShape};
use crate::decode::DecodeError;
use crate::exec::{TaskGraph, TaskId};
use crate::scenario::dp_attention::DpAttention;
use tpsim_model::llm::ModelSpec;
use tpsim_model::units::Bytes;

/// The groups' own shapes in one SUM_LEN step (idle groups left out), in a fixed order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DpSum {
    /// Each busy group's attention shape: a decode batch `all_logits(b, b, ctx)`, a prefill
    /// `extend(seqs, tokens, 0)`, or a mixed chunk as `passes::mixed` shapes it.
    pub groups: Vec<PassShape>,
}

impl DpSum {
    /// The summed shape the MLP/MoE and the LM head run on (context: the longest).
    pub fn global(&self) -> PassShape {
        let mut g = PassShape {
            seqs: 0,
            tokens: 0,
            ctx: 0,
            logits: 0,
            prefix: 0,
            chunks: 0,
            chunk_tokens: 0,
        };
        for s in &self.groups {
            g.seqs = g.seqs.saturating_add(s.seqs);
            g.tokens = g.tokens.saturating_add(s.tokens);
            g.ctx = g.ctx.max(s.ctx);
            g.logits = g.logits.saturating_add(s.logits);
        }
        g
    }
}

impl Builder<'_> {
    /// [`Builder::add_pass_dp`] in SUM_LEN mode over the groups' shapes `sum`; returns the pass's
    /// last task.
    pub(super) fn add_pass_dp_sum(
        &self,
        g: &mut TaskGraph,
        model: &ModelSpec,
        label: &str,
        sum: &DpSum,
        deps: &[TaskId],
        d: DpAttention,
    ) -> Result<TaskId, DecodeError> {
        let tp = self.s.engine.tp;
        let global = sum.global();
        let attns: Vec<_> = sum
            .groups
            .iter()
            .map(|&l| self.pass_at(model, label, l, d.attn_tp))
            .collect();
        let ffn = self.pass_at(model, label, global, tp);
        let row = model.hidden * model.activation_bytes();
        let global_bytes = u64::from(global.tokens) * row;
        let most = sum.groups.iter().map(|s| s.tokens).max().unwrap_or(0);
        let emb = self.per_gpu(
            g,
            &format!("{label}: embed"),
            self.rates.op_time(0.0, 0.0, 1),
            1,
            deps,
        )?;
        // The vocab-parallel embedding's allreduce inside each attention group (the busiest's).
        let mut prev: Vec<TaskId> = if d.attn_tp > 1 {
            let bytes = u64::from(most) * row;
            let t = self.costs.attn_allreduce(bytes);
            let name = format!("{label}: allreduce embed (attn-tp)");
            vec![self.gang(g, &name, Collective::Allreduce(bytes), t, emb)?]
        } else {
            emb
        };
        for (i, lf) in ffn.fp.layers.iter().enumerate() {
            // The slowest group's attention (and its q/k-norm allreduce inside the group).
            let mut t_attn = tpsim_model::units::Duration::ZERO;
            let mut kernels = 1;
            for a in &attns {
                let la = &a.fp.layers[i];
                let t = self.attention_time(a, la)
                    + a.qk_norm
                        .filter(|_| d.attn_tp > 1)
                        .map_or(tpsim_model::units::Duration::ZERO, |(bytes, _)| {
                            self.costs.attn_allreduce(bytes)
                        });
                if t >= t_attn {
                    t_attn = t;
                    kernels = la.attn_kernels;
                }
            }
            let a = self.per_gpu(g, &format!("{label}: L{i} attention"), t_attn, kernels, &prev)?;
            let name = format!("{label}: L{i} dp gather: all-reduce");
            let gathered = self.sum_allreduce(g, &name, global_bytes, a)?;
            let (t_ffn, kind) = self.ffn_time(&ffn, lf);
            let f = self.per_gpu(
                g,
                &format!("{label}: L{i} {kind}"),
                t_ffn,
                lf.ffn_kernels,
                &[gathered],
            )?;
            // Named as the plain TP layer's (op class "allreduce"): the MLP/MoE's own.
            let name = format!("{label}: L{i} allreduce {kind}");
            prev = vec![self.sum_allreduce(g, &name, global_bytes, f)?];
        }
        let logit_bytes = u64::from(global.logits) * row;
        let name = format!("{label}: lm head dp gather: all-reduce");
        let gathered = self.sum_allreduce(g, &name, logit_bytes, prev)?;
        self.add_lm_head(g, &ffn, gathered)
    }

    /// An all-reduce of `bytes` over the whole TP group (the SUM_LEN gather, the MLP's own), task
    /// `name`.
    fn sum_allreduce(
        &self,
        g: &mut TaskGraph,
        name: &str,
        bytes: u64,
        after: Vec<TaskId>,
    ) -> Result<TaskId, DecodeError> {
        let c = self.costs.allreduce(Bytes(bytes));
        self.gang(g, name, Collective::Allreduce(bytes), c.time, after)
    }
}

#[cfg(test)]
mod tests {
    use super::super::dp_attention::tests::scenario;
    use super::super::{Builder, PassShape, collective_costs, durations};
    use super::DpSum;
    use tpsim_model::units::Bytes;

    /// tp 8, dp 8: group A prefills 1 sequence of 1,024 tokens, group B one of 256, six groups idle.
    /// SUM_LEN: per layer the gather is an all-reduce over the 8 ranks of the 1,280 real tokens
    /// (1,280 × 7168 × 2 B = 18,350,080 B), the MoE all-reduces its output at the same size; the
    /// logits gather the 2 last tokens (2 × 7168 × 2 = 28,672 B). The attention is group A's: what
    /// tp 1's prefill of 1,024 tokens costs. MAX_LEN would have gathered 8 × 1,024 tokens: the
    /// padded step costs more.
    #[test]
    fn an_uneven_prefill_gathers_the_real_tokens_and_waits_for_the_slowest_attention() {
        let s = scenario("tp = 8\nenable_dp_attention = true\ndp_size = 8");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        b.set_dp_sum(Some(DpSum {
            groups: vec![PassShape::extend(1, 1024, 0), PassShape::extend(1, 256, 0)],
        }));
        let sum = b.simulate_prefill(2, 1280, false).expect("simulate");
        b.set_dp_sum(None);
        let g = &sum.graph;
        let ar = costs.allreduce(Bytes(18_350_080)).time;
        assert_eq!(durations(g, "prefill: L5 dp gather: all-reduce"), vec![ar]);
        assert_eq!(
            durations(g, "prefill: L5 allreduce moe"),
            vec![ar],
            "the MoE's own all-reduce, at the same size"
        );
        assert_eq!(super::super::op_class("prefill: L5 allreduce moe"), "allreduce");
        assert_eq!(
            durations(g, "prefill: lm head dp gather: all-reduce"),
            vec![costs.allreduce(Bytes(28_672)).time]
        );
        assert!(!g.iter().any(|(_, t)| t.name.contains("reduce-scatter")));

        let tp1 = scenario("tp = 1");
        let c1 = collective_costs(&tp1);
        let mut b1 = Builder::new(&tp1, &c1);
        let plain = b1.simulate_prefill(1, 1024, false).expect("simulate");
        let a_dp = durations(g, "prefill: L5 attention");
        assert_eq!(a_dp.len(), 8);
        assert_eq!(a_dp[0], durations(&plain.graph, "prefill: L5 attention")[0]);

        let padded = b.simulate_prefill(8, 8 * 1024, false).expect("simulate");
        assert!(padded.schedule.makespan > sum.schedule.makespan);
    }
}
