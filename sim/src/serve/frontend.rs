//! The engine's API-server front end as a queue in front of the scheduler (issue #18, frontend).
//!
//! In vLLM v1 the OpenAI server runs `AsyncLLM` in its own process (`v1/engine/async_llm.py`):
//! it renders the chat template and tokenizes each new request (the input processor) before
//! handing it to the engine core (another process), and its output handler detokenizes every
//! step's outputs (`v1/engine/output_processor.py` `process_outputs`, `v1/engine/detokenizer.py`)
//! and streams them as SSE chunks. One Python process does both, so output processing competes
//! with new requests' input processing for one CPU. `--api-server-count` (vLLM PR #17546, merged
//! May 2025; default 1) runs several such processes, each owning the requests it accepted.
//!
//! tpsim's model: each API server is one FIFO server in integer picoseconds. A request's job
//! (`request_cost` + `prompt_token_cost` × prompt tokens) starts when it is sent; the request
//! enters the engine's waiting queue when that job ends. Each engine step's outputs make one job
//! per server (`output_token_cost` × the tokens of its requests that step: vLLM processes one
//! step's outputs together); a request's first token reaches the client when the job holding it
//! ends. Requests go to the servers round robin. With every cost zero the front end is off and the
//! loop is unchanged. Left out (stated, not modelled): the last chunk's processing before the
//! client sends its next request, and the front end's delay in ITL, TPOT and end-to-end latency
//! (those stay the engine's).

/// The front end's costs, per API-server process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Costs {
    /// API-server processes (vLLM `--api-server-count`), at least 1.
    pub servers: u32,
    /// Per request: HTTP, chat template, request set-up (ps).
    pub request_ps: u64,
    /// Per prompt token: tokenization (ps).
    pub prompt_token_ps: u64,
    /// Per output token: detokenization and its SSE chunk (ps).
    pub output_token_ps: u64,
}

impl Costs {
    /// Whether the front end costs anything (otherwise the loop runs without it).
    pub fn active(&self) -> bool {
        self.request_ps > 0 || self.prompt_token_ps > 0 || self.output_token_ps > 0
    }
}

/// What the front end did over a run (zero when off).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stats {
    /// API-server processes (0: no front end modelled).
    pub servers: u32,
    /// Busy time summed over the servers (ps).
    pub busy_ps: u64,
    /// Requests whose input job ran.
    pub requests: u64,
    /// Their waits before the input job started, summed and the largest (ps).
    pub input_wait_ps: u64,
    pub input_wait_max_ps: u64,
    /// Sent to the engine's waiting queue, summed over requests (ps): wait + input job.
    pub to_engine_ps: u64,
    /// First tokens delivered, and the time from the engine producing each to its chunk's end (ps).
    pub first_chunks: u64,
    pub first_chunk_delay_ps: u64,
}

impl Stats {
    /// Adds `b`'s figures (data-parallel replicas, each with its own API servers).
    pub fn merge(&mut self, b: &Stats) {
        self.servers += b.servers;
        self.busy_ps += b.busy_ps;
        self.requests += b.requests;
        self.input_wait_ps += b.input_wait_ps;
        self.input_wait_max_ps = self.input_wait_max_ps.max(b.input_wait_max_ps);
        self.to_engine_ps += b.to_engine_ps;
        self.first_chunks += b.first_chunks;
        self.first_chunk_delay_ps += b.first_chunk_delay_ps;
    }
}

/// The API servers' state: when each is next free.
#[derive(Debug)]
pub struct Frontend {
    costs: Costs,
    free_at: Vec<u64>,
    next: usize,
    /// What the run measured.
    pub stats: Stats,
}

impl Frontend {
    /// Servers idle at time 0.
    pub fn new(costs: Costs) -> Self {
        let n = costs.servers.max(1);
        Frontend {
            costs,
            free_at: vec![0; n as usize],
            next: 0,
            stats: Stats {
                servers: n,
                ..Stats::default()
            },
        }
    }

    /// The server the next request goes to (round robin).
    pub fn assign(&mut self) -> u32 {
        let s = self.next;
        self.next = (self.next + 1) % self.free_at.len();
        s as u32
    }

    /// Runs job `cost` on `server`, submitted at `at`, FIFO; returns (start, end).
    fn job(&mut self, server: u32, at: u64, cost: u64) -> (u64, u64) {
        let f = &mut self.free_at[server as usize];
        let start = (*f).max(at);
        *f = start.saturating_add(cost);
        self.stats.busy_ps = self.stats.busy_ps.saturating_add(cost);
        (start, *f)
    }

    /// A request of `prompt` tokens sent at `at` to `server`: when it reaches the engine.
    pub fn input(&mut self, server: u32, at: u64, prompt: u32) -> u64 {
        let c = self.costs;
        let cost = c
            .request_ps
            .saturating_add(c.prompt_token_ps.saturating_mul(u64::from(prompt)));
        let (start, end) = self.job(server, at, cost);
        let s = &mut self.stats;
        s.requests += 1;
        s.input_wait_ps += start - at;
        s.input_wait_max_ps = s.input_wait_max_ps.max(start - at);
        s.to_engine_ps += end - at;
        end
    }

    /// One engine step's `tokens` outputs for `server`'s requests, produced at `at`: when their
    /// chunks are out.
    pub fn output(&mut self, server: u32, at: u64, tokens: u64) -> u64 {
        let cost = self.costs.output_token_ps.saturating_mul(tokens);
        self.job(server, at, cost).1
    }

    /// The servers.
    pub fn servers(&self) -> usize {
        self.free_at.len()
    }
}

/// One engine step's outputs, waiting for the front end (they are submitted after any request
/// sent earlier, so each server stays FIFO in time).
#[derive(Debug, Default)]
pub struct Outputs {
    /// When the step ended (ps).
    pub at: u64,
    /// Output tokens per server.
    pub tokens: Vec<u64>,
    /// First tokens: (server, the request's arrival, when the engine produced it).
    pub firsts: Vec<(u32, u64, u64)>,
}

impl Outputs {
    /// Whether nothing waits.
    pub fn is_empty(&self) -> bool {
        self.tokens.iter().all(|&t| t == 0) && self.firsts.is_empty()
    }

    /// Runs the step's jobs on `fe`, recording each first token's TTFT in `ttft`, and clears.
    pub fn flush(&mut self, fe: &mut Frontend, ttft: &mut super::stats::Histogram) {
        if self.is_empty() {
            return;
        }
        let ends: Vec<u64> = (0..fe.servers())
            .map(|s| fe.output(s as u32, self.at, self.tokens.get(s).copied().unwrap_or(0)))
            .collect();
        for &(s, arrival, engine_at) in &self.firsts {
            let end = ends[s as usize];
            ttft.record(tpsim_model::units::Duration::from_ps(end - arrival));
            fe.stats.first_chunks += 1;
            fe.stats.first_chunk_delay_ps += end - engine_at;
        }
        self.tokens.iter_mut().for_each(|t| *t = 0);
        self.firsts.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fifo_server_queues_jobs() {
        // One server, 2 ms per request: sent at 0, 1, 1 ms → in the engine at 2, 4, 6 ms.
        let ms = 1_000_000_000u64;
        let mut fe = Frontend::new(Costs {
            servers: 1,
            request_ps: 2 * ms,
            prompt_token_ps: 0,
            output_token_ps: 0,
        });
        assert_eq!(fe.input(0, 0, 10), 2 * ms);
        assert_eq!(fe.input(0, ms, 10), 4 * ms);
        assert_eq!(fe.input(0, ms, 10), 6 * ms);
        assert_eq!(fe.stats.input_wait_ps, ms + 3 * ms);
        assert_eq!(fe.stats.input_wait_max_ps, 3 * ms);
        assert_eq!(fe.stats.busy_ps, 6 * ms);
    }
}
