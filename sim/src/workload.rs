//! Request streams (issue #18 point 2): the requests a benchmark client sends, drawn lazily from the
//! seeded "workload" stream so that a million requests cost no memory of their own.
//!
//! This module is the interface between workloads (what arrives: closed or open loop, lengths,
//! traces, shared prefixes) and the serving loop (what the engine's scheduler does with it). The
//! loop pulls [`RequestSpec`]s from a [`RequestStream`] in order; nothing here knows the engine.

use rand::RngExt;
use rand_chacha::ChaCha8Rng;
use tpsim_model::units::Duration;

use crate::engine::RngStreams;
use crate::scenario::{LengthSpec, Scenario, Workload};

/// A prompt prefix shared by several requests (a system prompt, a few-shot preamble): requests of
/// the same `group` start with the same `len` tokens, which a prefix cache can reuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedPrefix {
    /// Which shared prefix (requests with equal groups share their first `len` tokens).
    pub group: u32,
    /// Tokens of the prompt that belong to the shared prefix (≤ the prompt length).
    pub len: u32,
}

/// One request as the client sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RequestSpec {
    /// When the client sends it, for open-loop workloads (Poisson arrivals, a trace); `None` in a
    /// closed loop, where the client sends it as soon as one of its `concurrency` slots is free.
    pub arrival: Option<Duration>,
    /// Prompt tokens (prefix included).
    pub prompt: u32,
    /// Output tokens requested (`max_tokens`, with `ignore_eos` as bench_serving sends them).
    pub output: u32,
    /// The shared prefix this prompt starts with, if any.
    pub prefix: Option<SharedPrefix>,
}

/// The requests of a workload, in sending order, drawn one at a time.
#[derive(Debug)]
pub struct RequestStream {
    workload: Workload,
    rng: ChaCha8Rng,
    next: u32,
}

impl RequestStream {
    /// The stream of `s`'s workload, drawing from the seeded stream "workload" of `rng`.
    pub fn new(s: &Scenario, rng: &RngStreams) -> Self {
        RequestStream {
            workload: s.workload.clone(),
            rng: rng.stream("workload"),
            next: 0,
        }
    }

    /// Requests in all (sent and still to send).
    pub fn len(&self) -> u32 {
        self.workload.num_requests
    }

    /// Whether the workload has no request at all.
    pub fn is_empty(&self) -> bool {
        self.workload.num_requests == 0
    }

    fn draw(&mut self, l: LengthSpec) -> u32 {
        match l {
            LengthSpec::Fixed(n) => n,
            LengthSpec::Uniform(u) => self.rng.random_range(u.min..=u.max),
        }
    }
}

impl Iterator for RequestStream {
    type Item = RequestSpec;

    /// The next request: its prompt length is drawn, then its output length (this order is part of
    /// the seeded contract: changing it changes every prediction with ranged lengths).
    fn next(&mut self) -> Option<RequestSpec> {
        if self.next >= self.workload.num_requests {
            return None;
        }
        self.next += 1;
        let prompt = self.draw(self.workload.prompt_len);
        let output = self.draw(self.workload.output_len);
        Some(RequestSpec {
            arrival: None,
            prompt,
            output,
            prefix: None,
        })
    }
}
