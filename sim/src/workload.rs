//! Request streams (issue #18 point 2): the requests a benchmark client sends, drawn lazily from the
//! seeded "workload" stream so that a million requests cost no memory of their own.
//!
//! This module is the interface between workloads (what arrives: closed or open loop, lengths,
//! traces, shared prefixes) and the serving loop (what the engine's scheduler does with it). The
//! loop pulls [`RequestSpec`]s from a [`RequestStream`] in order; nothing here knows the engine.

use rand_chacha::ChaCha8Rng;
use tpsim_model::units::Duration;

use crate::engine::RngStreams;
use crate::scenario::{LengthSpec, Scenario, Workload};

// Issue #18 (load): arrivals, length distributions, traces, shared prefixes.
pub mod arrivals;
pub mod lengths;
pub mod trace;
pub use arrivals::Arrivals;

/// bench_serving's generated-shared-prefix dataset, resolved: `num_groups` system prompts (each
/// `max(⌊system_prompt_len·r⌋,1)..=system_prompt_len` tokens, drawn once per group from the seeded
/// stream "prefix"), each followed by `prompts_per_group` questions (lengths from "workload").
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SharedPrefixSpec {
    pub num_groups: u32,
    pub prompts_per_group: u32,
    pub system_prompt_len: u32,
    pub question_len: u32,
    pub range_ratio: f64,
}

/// Issue #18 (load): how a workload's requests arrive and where they come from.
#[derive(Debug, Clone, PartialEq)]
pub struct Load {
    pub arrivals: Arrivals,
    /// A trace to replay instead of drawing lengths.
    pub trace: Option<trace::TraceSpec>,
    pub shared_prefix: Option<SharedPrefixSpec>,
    /// Issue #18 (prefillmix): `workload.cached_prompt_len`, tokens of every prompt cached before
    /// the run (each request its own prefix group, already computed).
    pub cached_prompt_len: Option<u32>,
    /// Issue #18 (decodebench): `workload.same_prompt`: the cached prompt is one prefix group shared
    /// by every request (a benchmark that sends one payload), not a group per request.
    pub same_prompt: bool,
}

impl Default for Load {
    fn default() -> Self {
        Load {
            arrivals: Arrivals::Closed,
            trace: None,
            shared_prefix: None,
            cached_prompt_len: None,
            same_prompt: false,
        }
    }
}

/// A prompt prefix shared by several requests (a system prompt, a few-shot preamble): requests of
/// the same `group` start with the same `len` tokens, which a prefix cache can reuse.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SharedPrefix {
    /// Which shared prefix (requests with equal groups share their first `len` tokens).
    pub group: u32,
    /// Tokens of the prompt that belong to the shared prefix (≤ the prompt length).
    pub len: u32,
    /// Issue #18 (prefillmix): the prefix was computed by an earlier run and is in the cache when
    /// this run starts (`workload.cached_prompt_len`), not only once a request of this run wrote it.
    pub warm: bool,
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
///
/// Seeded streams: lengths from "workload" (prompt, then output, per request: the order every
/// existing prediction depends on), arrival gaps from "arrival", system-prompt lengths of shared
/// prefixes from "prefix"; so adding arrivals or prefixes does not shift the lengths.
#[derive(Debug)]
pub struct RequestStream {
    workload: Workload,
    rng: ChaCha8Rng,
    gaps: ChaCha8Rng,
    prefix_rng: ChaCha8Rng,
    next: u32,
    /// Arrival time of the next open-loop request, ps.
    clock_ps: u64,
    /// The current shared-prefix group's system prompt length.
    group_len: u32,
    trace: Option<trace::TraceReader>,
    /// Set when a trace line fails on the second read (the file changed since it was validated):
    /// the stream then ends early, and the loop can report it.
    pub error: Option<trace::TraceError>,
}

impl RequestStream {
    /// The stream of `s`'s workload, drawing from the seeded stream "workload" of `rng`.
    pub fn new(s: &Scenario, rng: &RngStreams) -> Self {
        let (trace, error) = match &s.workload.load.trace {
            Some(t) => match trace::TraceReader::open(&t.path) {
                Ok(r) => (Some(r), None),
                Err(e) => (None, Some(e)),
            },
            None => (None, None),
        };
        RequestStream {
            workload: s.workload.clone(),
            rng: rng.stream("workload"),
            gaps: rng.stream("arrival"),
            prefix_rng: rng.stream("prefix"),
            next: 0,
            clock_ps: 0,
            group_len: 0,
            trace,
            error,
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

    /// The arrival of the request about to be sent, then the clock advanced by one gap.
    fn arrival(&mut self) -> Option<Duration> {
        match self.workload.load.arrivals {
            Arrivals::Closed => None,
            Arrivals::Open { rate, burstiness } => {
                let at = Duration::from_ps(self.clock_ps);
                let gap = arrivals::gap_s(&mut self.gaps, rate, burstiness);
                let ps = (gap * 1e12).round();
                let ps = if ps.is_finite() && ps > 0.0 {
                    ps.min(u64::MAX as f64) as u64
                } else {
                    0
                };
                self.clock_ps = self.clock_ps.saturating_add(ps);
                Some(at)
            }
        }
    }

    fn next_from_trace(&mut self) -> Option<RequestSpec> {
        let r = self.trace.as_mut()?.next_record()?;
        match r {
            Ok((rec, at_ms)) => Some(RequestSpec {
                // A timed trace replays its own times; an untimed one takes the workload's
                // arrivals (a closed loop, or `request_rate`).
                arrival: match at_ms {
                    Some(ms) => Some(Duration::from_ps_f64((ms * 1e9).round())),
                    None => self.arrival(),
                },
                prompt: rec.prompt,
                output: rec.output,
                prefix: rec
                    .prefix_group
                    .zip(rec.prefix_len)
                    .map(|(group, len)| SharedPrefix {
                        group,
                        len,
                        warm: false,
                    }),
            }),
            Err(e) => {
                self.error = Some(e);
                self.trace = None;
                None
            }
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
        let i = self.next;
        self.next += 1;
        if self.workload.load.trace.is_some() {
            return self.next_from_trace();
        }
        let arrival = self.arrival();
        if let Some(sp) = self.workload.load.shared_prefix {
            let group = i / sp.prompts_per_group.max(1);
            if i.is_multiple_of(sp.prompts_per_group.max(1)) {
                let sys = LengthSpec::Random(crate::scenario::RandomLength {
                    random: sp.system_prompt_len,
                    range_ratio: sp.range_ratio,
                });
                self.group_len = lengths::draw(&sys, &mut self.prefix_rng);
            }
            let question = lengths::draw(
                &LengthSpec::Random(crate::scenario::RandomLength {
                    random: sp.question_len,
                    range_ratio: sp.range_ratio,
                }),
                &mut self.rng,
            );
            let output = lengths::draw(&self.workload.output_len, &mut self.rng);
            return Some(RequestSpec {
                arrival,
                prompt: self.group_len + question,
                output,
                prefix: Some(SharedPrefix {
                    group,
                    len: self.group_len,
                    warm: false,
                }),
            });
        }
        let prompt = lengths::draw(&self.workload.prompt_len, &mut self.rng);
        let output = lengths::draw(&self.workload.output_len, &mut self.rng);
        // Issue #18 (prefillmix): a prompt an earlier run computed is its own prefix group, cached
        // from the start; at most prompt − 1 tokens of it are reused, as both engines recompute the
        // last prompt token to sample from it (vLLM 0.19.0 `v1/core/kv_cache_manager.py`
        // `get_computed_blocks`: `max_cache_hit_length = request.num_tokens - 1`; SGLang
        // `schedule_batch.py` `adjust_max_prefix_ids`: `max_prefix_len = input_len - 1`).
        // Issue #18 (decodebench): with `same_prompt` every request reuses one entry (group 0).
        let group = if self.workload.load.same_prompt { 0 } else { i };
        let prefix = self.workload.load.cached_prompt_len.map(|c| SharedPrefix {
            group,
            len: c.min(prompt.saturating_sub(1)),
            warm: true,
        });
        Some(RequestSpec {
            arrival,
            prompt,
            output,
            prefix,
        })
    }
}
