//! The decode loop, first cut (issue #2; issue #4 and #6 replace the costs, not the shape).
//!
//! Each iteration is a task graph on the simulated GPUs and host: per layer an attention kernel on
//! every rank, an allreduce occupying every rank's stream, an MLP/MoE kernel and a second allreduce;
//! then the LM head and the logits all-gather. With EAGLE-3 (spec v1, overlap scheduler off) an
//! iteration is: host scheduling → draft passes (steps − 1 over batch × topk tokens) → a sync →
//! target verify over batch × num_draft_tokens → accept (sync) → draft extend. Iteration shapes
//! (batch, context bucket, pass mix) are simulated once and reused.

mod admission;
mod dp_attention; // issue #17: SGLang DP attention's memory and batch
mod memory;
pub mod moe_a2a; // issue #17 point 1 (ep): DeepEP's memory and volumes
mod passes;
mod pipeline; // issue #17: pipeline stages' memory and micro-batches
pub mod routing;
mod vllm_parts;
mod vllm_spec_memory; // issue #17: the draft in vLLM's memory plan // issue #17 point 5: vLLM start-up parts from the scenario

pub use admission::rejection;
pub use memory::{MemEntry, MemKind, MemoryPlan, Moment, Source, Verdict, plan_memory};
pub use passes::{Collective, CollectiveCost, Costs, collective_costs};

use crate::engine::RngStreams;
use crate::exec::{self, Category, Resources, Schedule, TaskGraph};
use crate::scenario::Scenario;
use rand::RngExt;
use std::collections::BTreeMap;
use tpsim_model::spec::break_even_accept_len;
use tpsim_model::units::Duration;

/// Errors while simulating (bugs in graph building, reported rather than panicked on).
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("internal task-graph error: {0}")]
    Exec(#[from] exec::ExecError),
}

/// One simulated iteration shape: its graph and schedule.
#[derive(Debug, Clone)]
pub struct SimulatedShape {
    pub graph: TaskGraph,
    pub schedule: Schedule,
    /// The collective tasks and their sizes.
    pub collectives: Vec<(exec::TaskId, passes::Collective)>,
}

/// Per-iteration statistics of a whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopResult {
    /// Iterations run.
    pub iterations: u64,
    /// Output tokens produced over all requests (the prefill's first tokens included).
    pub output_tokens: u64,
    /// Output tokens produced by decode iterations.
    pub decode_tokens: u64,
    /// Total simulated decode time (prefill excluded).
    pub total_time: Duration,
    /// Total simulated prefill time.
    pub prefill_time: Duration,
    /// Mean time per iteration in ms.
    pub mean_iteration_ms: f64,
    /// Mean accepted tokens per request-iteration (1 without speculation).
    pub accept_len_mean: f64,
    /// Per-request time per output token, ms (sorted samples, one per request-iteration).
    pub tpot_samples_ms: Vec<f64>,
    /// Time to first token, ms (sorted, one per request): the prefill pass that admitted it.
    pub ttft_samples_ms: Vec<f64>,
    /// Time per output token of each finished request that decoded (in finishing order), ms.
    pub request_tpot_ms: Vec<f64>,
    /// Critical-path breakdown summed over iterations, by category.
    pub breakdown_total: BTreeMap<Category, Duration>,
    /// Critical-path time summed over iterations by op class (attention, moe, mlp, lm_head,
    /// embed, allreduce, allgather, host, sync, idle).
    pub by_op_total: BTreeMap<&'static str, Duration>,
    /// Distinct shapes simulated.
    pub distinct_shapes: usize,
}

/// Everything a run predicts.
#[derive(Debug)]
pub struct Prediction {
    pub memory: MemoryPlan,
    pub costs: Costs,
    pub main: LoopResult,
    /// The same box without speculation (only when the scenario speculates).
    pub without_spec: Option<LoopResult>,
    /// Mean acceptance length at which speculation breaks even (only when speculating).
    pub break_even_accept_len: Option<f64>,
    /// Resources and the first iterations' graphs, for `--trace`.
    pub resources: Resources,
    pub trace_shapes: Vec<SimulatedShape>,
}

/// Simulation granularity for the context length: iterations whose context falls in the same bucket
/// of this many tokens share one simulated shape (its attention costed at the bucket's end, so the
/// error is at most one bucket of KV reads). A resolution of the simulator, not a physical constant.
pub const CONTEXT_BUCKET: u32 = 64;

/// How many iterations `--trace` lays out.
pub const TRACE_ITERATIONS: usize = 2;

/// Requests decoding at once: the workload's concurrency, capped by the engine's
/// `max_running_requests` (SGLang's scheduler; the rest wait in the queue).
/// Under DP attention (issue #17) each of the dp groups admits its own `max_running_requests`.
pub fn running_requests(s: &Scenario, memory: &MemoryPlan) -> u32 {
    let groups = u64::from(dp_attention::dp(&s.engine));
    memory
        .max_running_requests
        .map_or(s.workload.concurrency, |m| {
            s.workload
                .concurrency
                .min(m.saturating_mul(groups).min(u64::from(u32::MAX)) as u32)
        })
        .max(1)
}

/// Runs the scenario: memory plan, then the decode loop (and the no-speculation loop for comparison).
pub fn predict(s: &Scenario) -> Result<Prediction, DecodeError> {
    predict_with(s, true)
}

/// [`predict`], optionally without the no-speculation comparison loop (`without_spec` is then
/// `None`). The main loop's results are the same either way: each loop draws its own streams.
pub fn predict_with(s: &Scenario, compare_without_spec: bool) -> Result<Prediction, DecodeError> {
    let memory = plan_memory(s);
    let costs = collective_costs(s);
    let mut builder = passes::Builder::new(s, &costs);
    let rng = RngStreams::new(s.seed);
    let max_batch = running_requests(s, &memory);
    let main = run_loop(s, &mut builder, &rng, s.speculative.is_some(), max_batch)?;
    let (without_spec, be) = if s.speculative.is_some() && compare_without_spec {
        let plain = run_loop(s, &mut builder, &rng, false, max_batch)?;
        let be = break_even_accept_len(main.mean_iteration_ms, plain.mean_iteration_ms);
        (Some(plain), be.is_finite().then_some(be))
    } else {
        (None, None)
    };
    let trace_shapes = std::mem::take(&mut builder.first_shapes);
    let resources = builder.resources.clone();
    drop(builder);
    Ok(Prediction {
        memory,
        costs,
        main,
        without_spec,
        break_even_accept_len: be,
        resources,
        trace_shapes,
    })
}

/// Simulated shapes by (kind, batch, bucket and speculating): makespan and breakdowns.
type ShapeCache = BTreeMap<(u32, u32, u32), ShapeCost>;

/// What one simulated iteration shape costs: its makespan and critical-path breakdowns.
#[derive(Debug, Clone)]
struct ShapeCost {
    makespan: Duration,
    by_category: BTreeMap<Category, Duration>,
    by_op: BTreeMap<&'static str, Duration>,
}

/// One request of the closed loop.
#[derive(Debug, Clone, Copy)]
struct Request {
    prompt: u32,
    remaining: u64,
    produced: u64,
    /// Decode time spent while this request was in the batch.
    decode_time: Duration,
}

/// Every request of the workload, in order, from the seeded request stream ([`crate::workload`]).
fn draw_requests(s: &Scenario, rng: &RngStreams) -> Vec<Request> {
    crate::workload::RequestStream::new(s, rng)
        .map(|r| Request {
            prompt: r.prompt,
            remaining: u64::from(r.output),
            produced: 0,
            decode_time: Duration::ZERO,
        })
        .collect()
}

/// Simulates a shape once and caches its cost.
fn shape_cost(
    cache: &mut ShapeCache,
    key: (u32, u32, u32),
    b: &mut passes::Builder,
    trace: bool,
    build: impl FnOnce(&mut passes::Builder) -> Result<SimulatedShape, DecodeError>,
) -> Result<ShapeCost, DecodeError> {
    if let Some(v) = cache.get(&key) {
        return Ok(v.clone());
    }
    let shape = build(b)?;
    let v = ShapeCost {
        makespan: shape.schedule.makespan,
        by_category: shape.schedule.critical_path_by_category(),
        by_op: passes::op_breakdown(&shape.graph, &shape.schedule),
    };
    if trace && b.first_shapes.len() < TRACE_ITERATIONS {
        b.first_shapes.push(shape);
    }
    cache.insert(key, v.clone());
    Ok(v)
}

/// The closed loop: `concurrency` requests in flight; a new request is admitted as soon as one
/// finishes, its prompt prefilled (one prefill pass for all admitted at once, which yields their
/// first token), then it joins the decode batch.
fn run_loop(
    s: &Scenario,
    b: &mut passes::Builder,
    rng: &RngStreams,
    speculate: bool,
    max_batch: u32,
) -> Result<LoopResult, DecodeError> {
    let mut queue = draw_requests(s, rng).into_iter();
    let mut active: Vec<Request> = Vec::new();
    let mut accept_rng = rng.stream("acceptance");
    let spec = s.speculative.as_ref().filter(|_| speculate);
    let mut sampler = spec.map(|sp| sp.acceptance.sampler(sp.num_steps, sp.topk, sp.num_draft_tokens));
    let trace = speculate == s.speculative.is_some();
    // Keys: (kind 0 = decode / 1 = prefill, batch, context or token bucket) × speculating.
    let mut cache: ShapeCache = BTreeMap::new();
    let mut res = LoopResult {
        iterations: 0,
        output_tokens: 0,
        total_time: Duration::ZERO,
        prefill_time: Duration::ZERO,
        mean_iteration_ms: 0.0,
        accept_len_mean: 0.0,
        tpot_samples_ms: Vec::new(),
        ttft_samples_ms: Vec::new(),
        request_tpot_ms: Vec::new(),
        breakdown_total: BTreeMap::new(),
        by_op_total: BTreeMap::new(),
        distinct_shapes: 0,
        decode_tokens: 0,
    };
    let mut accepted_sum = 0u64;
    let mut request_iterations = 0u64;
    loop {
        // Admit new requests and prefill them together.
        let mut admitted: Vec<Request> = Vec::new();
        while active.len() + admitted.len() < max_batch as usize {
            match queue.next() {
                Some(r) => admitted.push(r),
                None => break,
            }
        }
        if !admitted.is_empty() {
            let n = admitted.len() as u32;
            let tokens: u32 = admitted.iter().map(|r| r.prompt).sum();
            let bucket = tokens.div_ceil(CONTEXT_BUCKET).max(1) * CONTEXT_BUCKET;
            let key = (1, n, bucket + u32::from(spec.is_some()));
            let cost = shape_cost(&mut cache, key, b, false, |b| {
                b.simulate_prefill(n, bucket, spec.is_some())
            })?;
            res.prefill_time += cost.makespan;
            for mut r in admitted {
                res.ttft_samples_ms.push(cost.makespan.as_ms_f64());
                r.remaining -= 1;
                r.produced += 1;
                res.output_tokens += 1;
                if r.remaining > 0 {
                    active.push(r);
                }
            }
            continue;
        }
        if active.is_empty() {
            break;
        }
        let batch = active.len() as u32;
        // Context of the longest active request, rounded up to the bucket: conservative KV reads.
        let ctx = active
            .iter()
            .map(|r| u64::from(r.prompt) + r.produced)
            .max()
            .unwrap_or(0) as u32;
        let bucket = ctx.div_ceil(CONTEXT_BUCKET).max(1) * CONTEXT_BUCKET;
        let key = (0, batch, bucket * 2 + u32::from(spec.is_some()));
        let cost = shape_cost(&mut cache, key, b, trace, |b| {
            b.simulate(batch, bucket, spec.is_some())
        })?;
        let iter_time = cost.makespan;
        for r in active.iter_mut() {
            let got = match sampler.as_mut() {
                Some(sm) => u64::from(sm.draw(|| accept_rng.random::<f64>())),
                None => 1,
            };
            let got = got.min(r.remaining);
            r.remaining -= got;
            r.produced += got;
            accepted_sum += got;
            request_iterations += 1;
            res.tpot_samples_ms.push(iter_time.as_ms_f64() / got as f64);
            r.decode_time += iter_time;
            if r.remaining == 0 {
                // TPOT as bench_serving defines it: decode time over the tokens after the first.
                res.request_tpot_ms
                    .push(r.decode_time.as_ms_f64() / (r.produced - 1).max(1) as f64);
            }
        }
        active.retain(|r| r.remaining > 0);
        res.iterations += 1;
        res.total_time += iter_time;
        for (c, d) in cost.by_category {
            *res.breakdown_total.entry(c).or_insert(Duration::ZERO) += d;
        }
        for (op, d) in cost.by_op {
            *res.by_op_total.entry(op).or_insert(Duration::ZERO) += d;
        }
    }
    res.output_tokens += accepted_sum;
    res.decode_tokens = accepted_sum;
    res.mean_iteration_ms = res.total_time.as_ms_f64() / res.iterations.max(1) as f64;
    res.accept_len_mean = accepted_sum as f64 / request_iterations.max(1) as f64;
    res.tpot_samples_ms.sort_by(f64::total_cmp);
    res.ttft_samples_ms.sort_by(f64::total_cmp);
    res.distinct_shapes = cache.len();
    Ok(res)
}

impl LoopResult {
    /// Output tokens per second during decode (prefill time and first tokens excluded), as SGLang's
    /// "gen throughput" log line reports it.
    pub fn output_tok_s(&self) -> f64 {
        let s = self.total_time.as_secs_f64();
        if s > 0.0 {
            self.decode_tokens as f64 / s
        } else {
            0.0
        }
    }
    /// Output tokens per second end to end: every output token over decode plus prefill time.
    pub fn e2e_output_tok_s(&self) -> f64 {
        let s = (self.total_time + self.prefill_time).as_secs_f64();
        if s > 0.0 {
            self.output_tokens as f64 / s
        } else {
            0.0
        }
    }
    /// Mean time to first token, ms.
    pub fn ttft_ms(&self) -> f64 {
        let v = &self.ttft_samples_ms;
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    }
    /// Mean time per output token of one request, ms.
    pub fn tpot_ms(&self) -> f64 {
        let v = &self.request_tpot_ms;
        if v.is_empty() {
            0.0
        } else {
            v.iter().sum::<f64>() / v.len() as f64
        }
    }
    /// Percentile `p` in [0, 100] of the per-token time samples (nearest rank).
    pub fn tpot_percentile_ms(&self, p: f64) -> f64 {
        let v = &self.tpot_samples_ms;
        if v.is_empty() {
            return 0.0;
        }
        let rank = ((p / 100.0) * v.len() as f64).ceil().max(1.0) as usize;
        v[rank.min(v.len()) - 1]
    }
    /// Mean critical-path time per iteration by op class, ms.
    pub fn by_op_ms(&self) -> BTreeMap<String, f64> {
        let n = self.iterations.max(1) as f64;
        self.by_op_total
            .iter()
            .map(|(c, d)| (c.to_string(), d.as_ms_f64() / n))
            .collect()
    }

    /// Mean critical-path time per iteration by category, ms.
    pub fn breakdown_ms(&self) -> BTreeMap<Category, f64> {
        let n = self.iterations.max(1) as f64;
        self.breakdown_total
            .iter()
            .map(|(c, d)| (*c, d.as_ms_f64() / n))
            .collect()
    }
}
