//! SGLang's detokenizer process as a serial server behind the scheduler (issue #18, kimitok54).
//!
//! SGLang runs one `DetokenizerManager` process (`srt/managers/detokenizer_manager.py`). Each
//! scheduler step sends it one `BatchTokenIDOutput` with every request that produced a token, and
//! `_decode_batch_token_id_output` decodes, for each request, two id lists with the tokenizer's
//! `batch_decode(..., skip_special_tokens=..., spaces_between_special_tokens=...)`:
//! `surr_ids = decode_ids[surr_offset:read_offset]` and `read_ids = decode_ids[surr_offset:]`
//! (`decode_ids` starts with the last `INIT_INCREMENTAL_DETOKENIZATION_OFFSET` = 5 prompt tokens,
//! `schedule_batch.py`). The client sees a token when that job ends.
//!
//! The window commits (`surr_offset = read_offset; read_offset = len(decode_ids)`) only when the
//! new text is non-empty and does not end in U+FFFD in SGLang 0.5.0rc0 – 0.5.10.post1
//! (`if len(new_text) > 0 and not new_text.endswith("�")`); from 0.5.11 it commits on the offsets,
//! whatever the text (sglang PR 13275's rule). Tokens that decode to nothing (a special token such
//! as Kimi's `<|im_end|>`, id 163586, skipped under `skip_special_tokens`: sglang issue 8031, a
//! `bench_serving --backend sglang` run of Kimi-K2-Instruct at its default `ignore_eos`) never
//! commit under the older rule, and `read_ids` then grows with the output: one decode of the whole
//! output each step.
//!
//! tpsim's model: one FIFO server in integer picoseconds. Each step's job costs `token_ps` × the ids
//! the two lists hold, summed over the step's requests: 5 + 6 at a request's first token and 1 + 2
//! after it while the window commits ([`Window::Committed`]); 5 + (5 + n) at its n-th token while it
//! never commits ([`Window::Growing`]). A request's first token, its TPOT, its end-to-end latency and
//! the client's free slot date from the job's end. Left out (stated): `batch_decode`'s per-call work
//! that does not grow with the ids (no measurement), the tokenizer manager's process, the ITL
//! histogram (it stays the engine's step gaps).

/// When the incremental window commits (see the module text).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Window {
    /// The text of each new token commits: about three ids decoded a request-step.
    Committed,
    /// Nothing commits (tokens decoding to empty text under SGLang ≤ 0.5.10.post1): the whole
    /// output is decoded again each step.
    Growing,
}

/// The detokenizer's cost model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Costs {
    /// CPU time of `batch_decode` per token id it decodes (ps).
    pub token_ps: u64,
    /// Whether the window commits.
    pub window: Window,
}

/// `INIT_INCREMENTAL_DETOKENIZATION_OFFSET` (SGLang 0.5.6.post2 – 0.5.10.post1
/// `managers/schedule_batch.py`): prompt tokens a request's `decode_ids` starts with.
pub const INIT_OFFSET: u64 = 5;

impl Costs {
    /// Ids decoded for one request at its `n`-th output token (n ≥ 1): `surr_ids` + `read_ids`.
    pub fn ids(&self, n: u32) -> u64 {
        let n = u64::from(n.max(1));
        match (self.window, n) {
            // surr_ids = the 5 prompt ids, read_ids = those + the first token.
            (_, 1) => INIT_OFFSET + INIT_OFFSET + 1,
            // After a commit surr_ids holds the last committed token, read_ids it and the new one.
            (Window::Committed, _) => 1 + 2,
            // surr_ids stays the 5 prompt ids; read_ids = them + every output token so far.
            (Window::Growing, _) => INIT_OFFSET + INIT_OFFSET + n,
        }
    }

    /// CPU time of one request's share of a step's job at its `n`-th output token (ps).
    pub fn request_ps(&self, n: u32) -> u64 {
        self.token_ps.saturating_mul(self.ids(n))
    }
}

/// What the detokenizer did over a run (zero when off).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// Whether a detokenizer was modelled.
    pub on: bool,
    /// Its busy time (ps).
    pub busy_ps: u64,
    /// Jobs run (engine steps with output).
    pub jobs: u64,
    /// The largest lag of a job's end behind the step that produced it (ps).
    pub max_lag_ps: u64,
    /// When its last job ended (ps).
    pub last_end_ps: u64,
}

impl Stats {
    /// Adds `b`'s figures (data-parallel replicas: one detokenizer each).
    pub fn merge(&mut self, b: &Stats) {
        self.on |= b.on;
        self.busy_ps += b.busy_ps;
        self.jobs += b.jobs;
        self.max_lag_ps = self.max_lag_ps.max(b.max_lag_ps);
        self.last_end_ps = self.last_end_ps.max(b.last_end_ps);
    }

    /// Whether the detokenizer bounds the run: busy at least 90 % of its `end_ps` (a reporting
    /// threshold of tpsim's, not an engine figure).
    pub fn bound(&self, end_ps: u64) -> bool {
        self.on && end_ps > 0 && self.busy_ps.saturating_mul(10) >= end_ps.saturating_mul(9)
    }
}

/// The detokenizer's state: when it is next free.
#[derive(Debug)]
pub struct Detokenizer {
    /// Its costs.
    pub costs: Costs,
    free_at: u64,
    /// What the run measured.
    pub stats: Stats,
}

impl Detokenizer {
    /// Idle at time 0.
    pub fn new(costs: Costs) -> Self {
        Detokenizer {
            costs,
            free_at: 0,
            stats: Stats {
                on: true,
                ..Stats::default()
            },
        }
    }

    /// Runs one step's job of `cost` ps, the step ending at `at`, FIFO: when its chunks are out.
    pub fn job(&mut self, at: u64, cost: u64) -> u64 {
        let start = self.free_at.max(at);
        self.free_at = start.saturating_add(cost);
        let s = &mut self.stats;
        s.busy_ps = s.busy_ps.saturating_add(cost);
        s.jobs += 1;
        s.max_lag_ps = s.max_lag_ps.max(self.free_at - at);
        s.last_end_ps = self.free_at;
        self.free_at
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_per_request_step() {
        let c = Costs {
            token_ps: 1,
            window: Window::Committed,
        };
        // First token: 5 prompt ids in surr, 5 + 1 in read.
        assert_eq!(c.ids(1), 11);
        assert_eq!(c.ids(2), 3);
        assert_eq!(c.ids(900), 3);
        let g = Costs {
            window: Window::Growing,
            ..c
        };
        assert_eq!(g.ids(1), 11);
        assert_eq!(g.ids(2), 12);
        assert_eq!(g.ids(1000), 1010);
    }

    #[test]
    fn fifo_jobs_lag() {
        // 3 ms jobs after 1 ms steps: ends at 4, 7, 10 ms; the third lags its step (3 ms) by 7 ms.
        let ms = 1_000_000_000u64;
        let mut d = Detokenizer::new(Costs {
            token_ps: 0,
            window: Window::Committed,
        });
        assert_eq!(d.job(ms, 3 * ms), 4 * ms);
        assert_eq!(d.job(2 * ms, 3 * ms), 7 * ms);
        assert_eq!(d.job(3 * ms, 3 * ms), 10 * ms);
        assert_eq!(d.stats.max_lag_ps, 7 * ms);
        assert!(d.stats.bound(10 * ms));
        assert!(!d.stats.bound(11 * ms));
    }
}
