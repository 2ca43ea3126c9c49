//! A mixed iteration (issue #18 point 4): one forward over a decode batch and prefill chunks
//! together, as vLLM v1 runs every step (and SGLang with `--enable-mixed-chunk`).
//!
//! The decode requests' tokens and the chunks' tokens go through the weights once (`tokens` =
//! batch + chunk tokens); attention reads the decode batch's KV at its context (`seqs` = the
//! decode batch) and computes the decodes' queries over it; logits for each decode token and the
//! last token of each chunk. vllmchunk59: the chunks' queries attend causally over their own
//! tokens and their cached prefix (`PassShape::chunk_tokens`, `PassShape::prefix`), not at the
//! decodes' context (before: every chunk token at the decodes' context, a 4,000-token prompt
//! joining decodes at 4k – 8k paying several times its attention).

use super::{Builder, PassShape};
use crate::decode::{DecodeError, SimulatedShape};
use crate::exec::{self, Category, Task, TaskId};

impl Builder<'_> {
    /// Builds and runs one mixed iteration: `batch` decoding requests at context `ctx` plus
    /// `seqs` prefill chunks of `tokens` tokens in all, after `prefix` cached tokens each
    /// (token-weighted; 0 for first chunks).
    pub fn simulate_mixed(
        &mut self,
        batch: u32,
        ctx: u32,
        (seqs, tokens, prefix): (u32, u32, u32),
    ) -> Result<SimulatedShape, DecodeError> {
        let batch = crate::decode::pipeline::micro_batch(self.s, batch);
        let mut g = exec::TaskGraph::new();
        let s = self.s;
        let e = &s.engine;
        let host =
            g.add(Task::new("schedule batch", Category::Host, e.step_host(batch + seqs)).on([self.host]))?;
        let wait: Vec<TaskId> = if e.overlap_schedule {
            Vec::new()
        } else {
            vec![host]
        };
        let shape = PassShape {
            seqs: batch,
            tokens: batch + tokens,
            ctx,
            logits: batch + seqs.min(tokens),
            prefix,
            chunks: seqs,
            chunk_tokens: tokens,
        };
        self.recording.set(true);
        let pass = self.add_pass(&mut g, &s.model, "decode + prefill", shape, &wait);
        self.recording.set(false);
        let pass = pass?;
        g.add(
            Task::new("sync: sampled tokens → host", Category::Sync, e.costs.sync_cost)
                .on([self.host])
                .after([pass, host]),
        )?;
        self.run_shape(g)
    }
}
