//! One speculative iteration as vLLM 0.11.0's v1 worker runs it (issue #17), chain drafting with
//! k = `num_speculative_tokens`:
//!
//! 1. the scheduler's step (`async_scheduling` is off by default in 0.11, `config/scheduler.py`, so
//!    the GPU waits for it; from 0.14 vLLM overlaps it with EAGLE drafting too, which tpsim does not
//!    model: `scenario::cuda_graphs` warns);
//! 2. the target verify: one forward over every request's last token and its k drafts, B × (1 + k)
//!    tokens, logits for all of them (`gpu_model_runner.py`: `uniform_decode_query_len = 1 + k`, the
//!    spec-decode `logits_indices`), then the rejection sampler (a few small kernels, not costed);
//! 3. the drafter (`eagle.py` `EagleProposer.propose`), run before the bookkeeping sync because the
//!    padded drafter batch reads the sampled tokens on the GPU (`use_padded_batch_for_eagle`): its
//!    first forward takes every token the target just processed, B × (1 + k) (EAGLE-3 first fuses
//!    their three captured hidden states, `combine_hidden_states`), with logits at each request's
//!    last accepted token only (`last_token_indices`); then k − 1 forwards of one token per request;
//! 4. the bookkeeping sync (`_bookkeeping_sync`: the sampled tokens `.tolist()`), which waits for the
//!    drafter's kernels queued before it.
//!
//! Before each draft forward the proposer's Python loop does host work (the drafting attention
//! metadata, `build_for_drafting`, and the eager tensor updates of positions, sequence lengths and
//! slot mappings between steps): `[engine.costs] draft_step_overhead` on the scheduler thread, the
//! forward waiting for it.
//!
//! After a prefill the drafter runs the same way: a first forward over the prompt tokens, then
//! k − 1 single-token forwards. CUDA-graph padding of the token counts (the capture sizes 1, 2, 4,
//! 8, 16, … that `uniform_decode` batches of B × (1 + k) tokens are padded to) is not costed.
//!
//! vLLM 0.17.0 (issue #18 vllmmtp, read in the PyPI wheel; book/src/validation.md, "The vLLM 0.17 MTP
//! step"): the same chain. The drafter replays PIECEWISE graphs only (`eagle.py`
//! `initialize_cudagraph_keys`), its `compute_logits(…).argmax` over the full vocabulary runs outside
//! them (costed: the draft passes' LM head reads the whole head shard); FA2's `UNIFORM_BATCH` graph
//! support (`flash_attn.py`) lets the verify replay full graphs on SM 12.0. Async scheduling is on by
//! default with EAGLE/MTP (`config/vllm.py`) and the padded drafter batch avoids host syncs, so the
//! proposer's host work overlaps the verify there; tpsim keeps it in series (the fitted
//! `draft_step_overhead` was measured that way), which is pessimistic for those releases.

use super::{Builder, DecodeError, PassShape};
use crate::exec::{Category, Task, TaskGraph, TaskId};
use crate::scenario::Speculative;
use tpsim_model::units::Duration;

impl Builder<'_> {
    /// The verify, the drafter and the bookkeeping sync of one decode iteration, after `host`.
    pub(super) fn vllm_spec_iteration(
        &self,
        g: &mut TaskGraph,
        sp: &Speculative,
        batch: u32,
        ctx: u32,
        host: TaskId,
    ) -> Result<(), DecodeError> {
        let k = sp.num_steps;
        let verify = self.add_pass(
            g,
            &self.s.model,
            "verify",
            PassShape::all_logits(batch, batch * (k + 1), ctx),
            &[host],
        )?;
        let last = self.vllm_drafter(g, sp, batch, batch * (k + 1), ctx, verify)?;
        g.add(
            Task::new(
                "sync: sampled tokens → host",
                Category::Sync,
                self.s.engine.costs.sync_cost,
            )
            .on([self.host])
            .after([last]),
        )?;
        Ok(())
    }

    /// `EagleProposer.propose` after `after`: the first draft forward over `first_tokens` tokens
    /// (logits for the last of each of `batch` requests), then k − 1 forwards of `batch` tokens.
    /// Returns the last task.
    pub(super) fn vllm_drafter(
        &self,
        g: &mut TaskGraph,
        sp: &Speculative,
        batch: u32,
        first_tokens: u32,
        ctx: u32,
        after: TaskId,
    ) -> Result<TaskId, DecodeError> {
        // The n-gram proposer runs on the CPU after the bookkeeping sync (`gpu_model_runner.py`:
        // methods without the padded drafter batch), not costed: no GPU work.
        if sp.algorithm == "ngram" {
            return Ok(after);
        }
        // EAGLE-3's fusion fc (3H → H, replicated) over every input token of the first forward.
        let fp = sp.draft.forward_pass(self.s.engine.tp, first_tokens);
        let after = self.proposer_host_step(g, 1, after)?;
        let deps = if fp.fusion_bytes.0 > 0 {
            let t = self.rates.op_time(fp.fusion_bytes.0 as f64, fp.fusion_flops, 1);
            self.per_gpu(g, "draft 1: fusion fc", t, 1, &[after])?
        } else {
            vec![after]
        };
        let mut prev = self.add_pass(
            g,
            &sp.draft,
            "draft 1",
            PassShape::extend(batch, first_tokens, ctx),
            &deps,
        )?;
        // After a prefill (ctx 0) the later steps attend over the prompt.
        let later_ctx = ctx.max(first_tokens / batch.max(1));
        for step in 2..=sp.num_steps {
            let host = self.proposer_host_step(g, step, prev)?;
            prev = self.add_pass(
                g,
                &sp.draft,
                &format!("draft {step}"),
                PassShape::all_logits(batch, batch, later_ctx),
                &[host],
            )?;
        }
        Ok(prev)
    }

    /// The proposer's host work before draft forward `step`, after `after` (no task when the
    /// engine's `draft_step_overhead` is 0).
    fn proposer_host_step(&self, g: &mut TaskGraph, step: u32, after: TaskId) -> Result<TaskId, DecodeError> {
        let cost = self.s.engine.costs.draft_step_overhead;
        if cost == Duration::ZERO {
            return Ok(after);
        }
        Ok(g.add(
            Task::new(
                format!("draft {step}: schedule proposer step (host)"),
                Category::Host,
                cost,
            )
            .on([self.host])
            .after([after]),
        )?)
    }
}
