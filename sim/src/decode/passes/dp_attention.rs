//! Issue #17: one forward pass under SGLang's DP attention (`--enable-dp-attention --dp-size D`).
//!
//! SGLang 0.5.9, per decoder layer of a model built on `layers/communicator.py` `LayerCommunicator`
//! (DeepSeek, Qwen3-MoE, …), with `--moe-a2a-backend none` and `moe_dense_tp_size` unset:
//! - each attention group (attn_tp = tp / D ranks) runs attention over its own requests only;
//! - `_gather_hidden_states_and_residual` then gathers every group's tokens for the MLP/MoE,
//!   `dp_gather_partial` (`layers/dp_attention.py`). A decode batch uses `DpPaddingMode.MAX_LEN`
//!   (`get_default_mode_in_cuda_graph`, and `get_dp_padding_mode` whenever sum × 2 > max × D, i.e.
//!   balanced groups): `_dp_gather_via_all_gather` = an all-gather over the whole TP group of every
//!   group's tokens padded to the largest group's count, preceded at attn_tp > 1 by a reduce-scatter
//!   inside the attention group (which also sums the attention's partial o_proj outputs);
//! - the MLP/MoE runs sharded over all tp ranks on the gathered tokens and skips its own allreduce
//!   (`LayerCommunicator.should_use_reduce_scatter` with MAX_LEN);
//! - `CommunicateSummableTensorPairFn._scatter_hidden_states` returns each group its tokens with
//!   `dp_reduce_scatter_tensor`: a reduce-scatter over the TP group, followed at attn_tp > 1 by an
//!   all-gather inside the attention group.
//!
//! The embedding is vocab-parallel over the attention group (`VocabParallelEmbedding(…,
//! use_attn_tp_group=is_dp_attention_enabled())`: an allreduce inside the group, none at attn_tp 1).
//! The logits (`layers/logits_processor.py` `_gather_dp_attn_hidden_states`) gather the hidden states
//! again with `dp_gather_replicate`, run the TP-sharded LM head over all groups' tokens, all-gather
//! the vocab shards over the TP group and keep the group's own rows (`dp_scatter`, a local copy, not
//! costed).
//!
//! tpsim lowers the busiest group: ⌈batch / D⌉ requests (the engine pads every group to it).
//! Attention-group collectives are costed on the first group's ranks (`Costs::attn`); the groups run
//! them at once on disjoint ranks, whose contention on a shared PCIe switch is not modelled.

use super::{Builder, Collective, Costs, Pass, PassShape};
use crate::comm::{Comm, Request};
use crate::decode::DecodeError;
use crate::exec::{TaskGraph, TaskId};
use crate::scenario::Scenario;
use crate::scenario::dp_attention::DpAttention;
use tpsim_model::llm::ModelSpec;
use tpsim_model::units::{Bytes, Duration};

/// The attention group's communicator when it is neither one rank nor the whole TP group.
pub(super) fn attn_comm(s: &Scenario) -> Option<Comm> {
    let d = s.engine.dp_attention?;
    (d.attn_tp > 1 && d.attn_tp < s.engine.tp)
        .then(|| Comm::new(&s.hardware, d.attn_tp as usize, &s.engine.env))
}

impl Costs {
    /// An allreduce inside the attention group (the scenario's backend with its dispatch rules).
    pub(super) fn attn_allreduce(&self, bytes: u64) -> Duration {
        self.attn.as_ref().map_or(Duration::ZERO, |c| {
            c.allreduce(bytes, Request::Backend(self.backend)).time
        })
    }
    /// A ring all-gather (or reduce-scatter, costed alike) inside the attention group.
    pub(super) fn attn_ring(&self, total: u64) -> Duration {
        self.attn
            .as_ref()
            .map_or(Duration::ZERO, |c| c.allgather(total).time)
    }
}

impl<'a> Builder<'a> {
    /// [`Builder::add_pass`] under DP attention `d`; returns the pass's last task.
    pub(super) fn add_pass_dp(
        &self,
        g: &mut TaskGraph,
        model: &ModelSpec,
        label: &str,
        shape: PassShape,
        deps: &[TaskId],
        d: DpAttention,
    ) -> Result<TaskId, DecodeError> {
        let tp = self.s.engine.tp;
        let (dp, attn_tp) = (d.dp, d.attn_tp);
        // The busiest group's share, and every group padded to it (MAX_LEN).
        let local = PassShape {
            seqs: shape.seqs.div_ceil(dp),
            tokens: shape.tokens.div_ceil(dp),
            ctx: shape.ctx,
            logits: shape.logits.div_ceil(dp),
            prefix: shape.prefix,
            // vllmchunk59: a mixed step's chunks are costed apart on one group only (first cut).
            chunks: 0,
            chunk_tokens: 0,
        };
        let global = PassShape {
            seqs: local.seqs * dp,
            tokens: local.tokens * dp,
            ctx: shape.ctx,
            logits: local.logits * dp,
            prefix: shape.prefix,
            // vllmchunk59: a mixed step's chunks are costed apart on one group only (first cut).
            chunks: 0,
            chunk_tokens: 0,
        };
        let attn = self.pass_at(model, label, local, attn_tp);
        let ffn = self.pass_at(model, label, global, tp);
        let act = model.activation_bytes();
        let h = model.hidden;
        let local_bytes = u64::from(local.tokens) * h * act;
        let global_bytes = u64::from(global.tokens) * h * act;

        // Embedding, vocab-parallel over the attention group.
        let emb = self.per_gpu(
            g,
            &format!("{label}: embed"),
            self.rates.op_time(0.0, 0.0, 1),
            1,
            deps,
        )?;
        let mut prev: Vec<TaskId> = if attn_tp > 1 {
            let t = self.costs.attn_allreduce(local_bytes);
            let name = format!("{label}: allreduce embed (attn-tp)");
            vec![self.gang(g, &name, Collective::Allreduce(local_bytes), t, emb)?]
        } else {
            emb
        };
        for (i, (la, lf)) in attn.fp.layers.iter().zip(&ffn.fp.layers).enumerate() {
            // MiniMax-M2's q/k-norm statistics are all-reduced inside the attention group.
            if let Some((bytes, _)) = attn.qk_norm.filter(|_| attn_tp > 1) {
                let t = self.costs.attn_allreduce(bytes);
                let name = format!("{label}: L{i} allreduce qk-norm (attn-tp)");
                prev = vec![self.gang(g, &name, Collective::Allreduce(bytes), t, prev)?];
            }
            let t_attn = self.attention_time(&attn, la);
            let a = self.per_gpu(
                g,
                &format!("{label}: L{i} attention"),
                t_attn,
                la.attn_kernels,
                &prev,
            )?;
            let gathered = self.dp_gather(g, &format!("{label}: L{i}"), local_bytes, global_bytes, a)?;
            let (t_ffn, kind) = self.ffn_time(&ffn, lf);
            let f = self.per_gpu(
                g,
                &format!("{label}: L{i} {kind}"),
                t_ffn,
                lf.ffn_kernels,
                &[gathered],
            )?;
            prev = vec![self.dp_scatter(g, &format!("{label}: L{i}"), local_bytes, global_bytes, f)?];
        }
        // Logits: gather the groups' hidden states again, TP-sharded LM head over all of them.
        let gathered = self.dp_gather(g, &format!("{label}: lm head"), local_bytes, global_bytes, prev)?;
        self.add_lm_head(g, &ffn, gathered)
    }

    /// A [`Pass`] at TP size `tp` without its collectives' costs: `ar_time` zero, the q/k-norm
    /// statistics' bytes (16-B padded) at no time, no q/k or qkv gathers. DP attention and vLLM DP
    /// use it as it is (their passes cost their own exchanges); `Builder::pass` adds the DSA
    /// indexer's kernels and the collectives' costs at the engine's TP size.
    pub(super) fn pass_at<'p>(
        &self,
        model: &'p ModelSpec,
        label: &'p str,
        shape: PassShape,
        tp: u32,
    ) -> Pass<'p>
    where
        'a: 'p,
    {
        let PassShape {
            seqs, tokens, ctx, ..
        } = shape;
        let mut fp = model.forward_pass(tp, tokens);
        // dsv4dec55 (issue #17): DeepSeek-V4's routed experts in the format SGLang's release picks on
        // this GPU (`ExpertFormat::sglang_cuda_by_release`, as the memory plan holds them).
        if let Some(g) = &model.deepseek_v4 {
            let release =
                crate::engine_args_versions::release(&self.s.engine.release().version).unwrap_or_default();
            let fmt = tpsim_model::llm::deepseek_v4_weights::ExpertFormat::sglang_cuda_by_release(
                g,
                &release,
                self.s.hardware.gpu.sm_major(),
            );
            fp.layers = model.deepseek_v4_layers(std::mem::take(&mut fp.layers), tp, tokens, fmt);
            // dsv4k56: the launches by release and MoE runner (`deepseek_v4_layer::sglang_kernels`).
            let marlin = self.s.engine.moe_backend.as_deref() == Some("marlin");
            tpsim_model::llm::deepseek_v4_layer::sglang_kernels(
                &mut fp.layers,
                &release,
                u64::from(tokens),
                marlin,
            );
        }
        // vllmfusion: the engine's fused quantizations and KV-store kernels (`passes::layer_kernels`).
        let kv_store = super::layer_kernels::apply(&mut fp, self.s, model, tokens);
        // mmnorm61: SGLang's MiniMax-M2 q/k-norm launches in a decode pass (`passes::sgl_minimax_qk_norm`).
        super::sgl_minimax_qk_norm::apply(&mut fp, self.s, model, tokens, ctx > 0);
        // Attention over the context: decode reads it from the KV cache (each full-attention layer's
        // `kv_bytes_per_token` × every sequence's context, the first-cut attention) and computes over
        // it; a prefill (ctx = 0) attends causally over its own prompt.
        // vllmchunk59: in a mixed pass only the decodes' tokens attend at `ctx`; the chunks'
        // (`PassShape::chunk_tokens`) attend causally over themselves and their cached prefix,
        // as a prefill does (vLLM V1 runs both in one varlen attention call, each query over its
        // own sequence: FlashAttention `cu_seqlens_q` / `seqused_k`).
        let chunk = if ctx > 0 {
            shape.chunk_tokens.min(tokens)
        } else {
            0
        };
        let attn_ctx_flops = model.attention_context_flops(tp, tokens - chunk, seqs, ctx, ctx == 0);
        let attn_chunk_flops = if chunk > 0 {
            model.mixed_chunk_flops(tp, shape.chunks, chunk, shape.prefix)
        } else {
            0.0
        };
        // An extend after a cached prefix (`PassShape::prefix`) also attends over it.
        let attn_prefix_flops = if ctx == 0 && shape.prefix > 0 {
            model.attention_prefix_flops(tp, tokens, shape.prefix)
        } else {
            0.0
        };
        // Linear-attention layers instead read each sequence's recurrent state and write it back
        // (`llm::hybrid`). A verify pass over n tokens per sequence also stores the n intermediate
        // states (SGLang keeps one per draft token to roll back to the accepted one); a prefill
        // writes only the final state.
        let state_passes = if ctx == 0 {
            2.0
        } else {
            1.0 + f64::from(tokens) / f64::from(seqs.max(1))
        };
        let qk_norm = (fp.qk_norm_allreduces > 0).then(|| {
            let bytes = tpsim_model::llm::qk_norm_stats_bytes(u64::from(tokens), true);
            (bytes, Duration::ZERO)
        });
        Pass {
            model,
            label,
            shape,
            fp,
            ar_time: Duration::ZERO,
            attn_ctx_flops,
            attn_prefix_flops,
            attn_chunk_flops,
            state_passes,
            qk_norm,
            // families27 (issue #17): MiniMax's lightning norm allreduce is vLLM's; DP attention is
            // SGLang's, which does not serve MiniMax.
            lightning_norm: None,
            // families3 (issue #17): OLMo-2's q/k all-gathers are not lowered under DP attention
            // (SGLang's olmo2.py gathers over the TP group, which DP attention re-forms).
            qk_gather: None,
            // families11 (issue #17): InternLM2's qkv all-gather is vLLM's; DP attention is SGLang's.
            qkv_gather: None,
            kv_store,
            attn: super::decode_attn::DecodeAttn::new(self.s, model),
        }
    }

    /// `dp_gather_partial` / `dp_gather_replicate` with MAX_LEN padding: at attn_tp > 1 a
    /// reduce-scatter inside the attention group, then the all-gather over the TP group.
    fn dp_gather(
        &self,
        g: &mut TaskGraph,
        at: &str,
        local_bytes: u64,
        global_bytes: u64,
        mut after: Vec<TaskId>,
    ) -> Result<TaskId, DecodeError> {
        if self.attn_tp() > 1 {
            let t = self.costs.attn_ring(local_bytes);
            let rs = self.gang(
                g,
                &format!("{at} dp gather: reduce-scatter (attn-tp)"),
                Collective::ReduceScatter(local_bytes),
                t,
                after,
            )?;
            after = vec![rs];
        }
        let c = self.costs.allgather(Bytes(global_bytes));
        self.gang(
            g,
            &format!("{at} dp gather: all-gather"),
            Collective::Allgather(global_bytes),
            c.time,
            after,
        )
    }

    /// `dp_reduce_scatter_tensor`: the reduce-scatter over the TP group, then at attn_tp > 1 an
    /// all-gather inside the attention group.
    fn dp_scatter(
        &self,
        g: &mut TaskGraph,
        at: &str,
        local_bytes: u64,
        global_bytes: u64,
        after: Vec<TaskId>,
    ) -> Result<TaskId, DecodeError> {
        let c = self.costs.reduce_scatter(Bytes(global_bytes));
        let rs = self.gang(
            g,
            &format!("{at} dp scatter: reduce-scatter"),
            Collective::ReduceScatter(global_bytes),
            c.time,
            after,
        )?;
        if self.attn_tp() == 1 {
            return Ok(rs);
        }
        let t = self.costs.attn_ring(local_bytes);
        self.gang(
            g,
            &format!("{at} dp scatter: all-gather (attn-tp)"),
            Collective::Allgather(local_bytes),
            t,
            vec![rs],
        )
    }

    fn attn_tp(&self) -> u32 {
        self.s.engine.dp_attention.map_or(self.s.engine.tp, |d| d.attn_tp)
    }
}

#[cfg(test)]
pub(super) mod tests {
    use super::super::{Builder, collective_costs, durations};
    use crate::scenario::load_str;
    use std::path::Path;
    use tpsim_model::units::Bytes;

    /// DeepSeek-V3 on 8× H200 with the engine block `engine` (SGLang 0.5.8); `passes::dp_sum`'s
    /// tests use it too.
    pub(in crate::decode::passes) fn scenario(engine: &str) -> crate::scenario::Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n\
             [engine]\nname = \"sglang\"\nversion = \"0.5.8\"\nmem_fraction_static = 0.8\n{engine}\n\
             [workload]\nconcurrency = 64\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("dp-attention-test.toml")).expect("scenario")
    }

    /// tp 8, dp 8 (attention TP 1), 64 requests: SGLang's layer (communicator.py with MAX_LEN
    /// padding) has no allreduce; per layer one all-gather of the 8 groups' 8 tokens each before the
    /// MLP/MoE and one reduce-scatter after it, each of 64 × 7168 × 2 B = 917,504 B over the 8 ranks;
    /// the logits add one more gather of the hidden states and the vocab all-gather: 61 × 2 + 2
    /// collectives. Each rank's attention over its 8 requests costs what tp 1's attention over 8
    /// requests costs (all 128 heads, the whole latent per token).
    #[test]
    fn dp8_lowers_to_gathers_and_scatters_and_local_attention() {
        let s = scenario("tp = 8\nenable_dp_attention = true\ndp_size = 8");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        let g = &shape.graph;
        let names: Vec<&str> = g.iter().map(|(_, t)| t.name.as_str()).collect();
        assert!(
            !names.iter().any(|n| n.contains("allreduce")),
            "no allreduce at attn_tp 1"
        );
        let gather = durations(g, "decode: L5 dp gather: all-gather");
        let scatter = durations(g, "decode: L5 dp scatter: reduce-scatter");
        assert_eq!((gather.len(), scatter.len()), (1, 1));
        let ag = costs.allgather(Bytes(917_504)).time;
        assert_eq!(gather[0], ag);
        assert_eq!(
            scatter[0], ag,
            "a ring reduce-scatter is costed as the ring all-gather"
        );
        assert_eq!(shape.collectives.len(), 61 * 2 + 2);

        let tp1 = scenario("tp = 1");
        let c1 = collective_costs(&tp1);
        let mut b1 = Builder::new(&tp1, &c1);
        let plain = b1.simulate(8, 1024, false).expect("simulate");
        let a_dp = durations(g, "decode: L5 attention");
        let a_tp1 = durations(&plain.graph, "decode: L5 attention");
        assert_eq!(a_dp.len(), 8);
        assert_eq!(a_dp[0], a_tp1[0]);
    }

    /// tp 8, dp 2 (attention TP 4): the gather is preceded by a reduce-scatter inside the 4-rank
    /// attention group of the group's 32 tokens (32 × 7168 × 2 = 458,752 B) and the scatter is
    /// followed by an all-gather inside it (`_dp_gather_via_all_gather`, `dp_reduce_scatter_tensor`).
    #[test]
    fn dp2_adds_attention_group_collectives() {
        let s = scenario("tp = 8\nenable_dp_attention = true\ndp_size = 2");
        let costs = collective_costs(&s);
        let mut b = Builder::new(&s, &costs);
        let shape = b.simulate(64, 1024, false).expect("simulate");
        let g = &shape.graph;
        let group = costs.attn.as_ref().expect("attention-group communicator");
        assert_eq!(group.ranks, vec![0, 1, 2, 3]);
        let rs = durations(g, "decode: L5 dp gather: reduce-scatter (attn-tp)");
        let ag = durations(g, "decode: L5 dp scatter: all-gather (attn-tp)");
        assert_eq!(rs, vec![group.allgather(458_752).time]);
        assert_eq!(ag, rs);
        assert_eq!(durations(g, "decode: allreduce embed (attn-tp)").len(), 1);
    }
}
