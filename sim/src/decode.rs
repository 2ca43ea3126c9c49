//! The decode loop, first cut (issue #2; issue #4 and #6 replace the costs, not the shape).
//!
//! Each iteration is a task graph on the simulated GPUs and host: per layer an attention kernel on
//! every rank, an allreduce occupying every rank's stream, an MLP/MoE kernel and a second allreduce;
//! then the LM head and the logits all-gather. With EAGLE-3 (spec v1, overlap scheduler off) an
//! iteration is: host scheduling → draft passes (steps − 1 over batch × topk tokens) → a sync →
//! target verify over batch × num_draft_tokens → accept (sync) → draft extend. Iteration shapes
//! (batch, context bucket, pass mix) are simulated once and reused.

mod memory;
mod passes;

pub use memory::{MemEntry, MemoryPlan, Source, Verdict, plan_memory};
pub use passes::{CollectiveCost, Costs, collective_costs};

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
}

/// Per-iteration statistics of a whole run.
#[derive(Debug, Clone, PartialEq)]
pub struct LoopResult {
    /// Iterations run.
    pub iterations: u64,
    /// Output tokens produced over all requests.
    pub output_tokens: u64,
    /// Total simulated decode time.
    pub total_time: Duration,
    /// Mean time per iteration in ms.
    pub mean_iteration_ms: f64,
    /// Mean accepted tokens per request-iteration (1 without speculation).
    pub accept_len_mean: f64,
    /// Per-request time per output token, ms (sorted samples, one per request-iteration).
    pub tpot_samples_ms: Vec<f64>,
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

/// Runs the scenario: memory plan, then the decode loop (and the no-speculation loop for comparison).
pub fn predict(s: &Scenario) -> Result<Prediction, DecodeError> {
    let memory = plan_memory(s);
    let costs = collective_costs(s);
    let mut builder = passes::Builder::new(s, &costs);
    let rng = RngStreams::new(s.seed);
    let main = run_loop(s, &mut builder, &rng, s.speculative.is_some())?;
    let (without_spec, be) = if s.speculative.is_some() {
        let plain = run_loop(s, &mut builder, &rng, false)?;
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

/// Simulated iterations by (active requests, context bucket, speculating): makespan and breakdown.
type ShapeCache = BTreeMap<(u32, u32, bool), ShapeCost>;

/// What one simulated iteration shape costs: its makespan and critical-path breakdowns.
#[derive(Debug, Clone)]
struct ShapeCost {
    makespan: Duration,
    by_category: BTreeMap<Category, Duration>,
    by_op: BTreeMap<&'static str, Duration>,
}

fn run_loop(
    s: &Scenario,
    b: &mut passes::Builder,
    rng: &RngStreams,
    speculate: bool,
) -> Result<LoopResult, DecodeError> {
    let w = &s.workload;
    let n = w.concurrency as usize;
    let mut remaining = vec![w.output_len as u64; n];
    let mut produced = vec![0u64; n];
    let mut accept_rng = rng.stream("acceptance");
    let spec = s.speculative.as_ref().filter(|_| speculate);
    let mut cache: ShapeCache = BTreeMap::new();
    let mut res = LoopResult {
        iterations: 0,
        output_tokens: 0,
        total_time: Duration::ZERO,
        mean_iteration_ms: 0.0,
        accept_len_mean: 0.0,
        tpot_samples_ms: Vec::new(),
        breakdown_total: BTreeMap::new(),
        by_op_total: BTreeMap::new(),
        distinct_shapes: 0,
    };
    let mut accepted_sum = 0u64;
    let mut request_iterations = 0u64;
    while remaining.iter().any(|&r| r > 0) {
        let active = remaining.iter().filter(|&&r| r > 0).count() as u32;
        // Context of the longest active request, rounded up to the bucket: conservative KV reads.
        let ctx = (0..n)
            .filter(|&i| remaining[i] > 0)
            .map(|i| w.prompt_len as u64 + produced[i])
            .max()
            .unwrap_or(0) as u32;
        let bucket = ctx.div_ceil(CONTEXT_BUCKET).max(1) * CONTEXT_BUCKET;
        let key = (active, bucket, spec.is_some());
        let cost = match cache.get(&key) {
            Some(v) => v.clone(),
            None => {
                let shape = b.simulate(active, bucket, spec.is_some())?;
                let v = ShapeCost {
                    makespan: shape.schedule.makespan,
                    by_category: shape.schedule.critical_path_by_category(),
                    by_op: passes::op_breakdown(&shape.graph, &shape.schedule),
                };
                if speculate == s.speculative.is_some() && b.first_shapes.len() < TRACE_ITERATIONS {
                    b.first_shapes.push(shape);
                }
                cache.insert(key, v.clone());
                v
            }
        };
        let iter_time = cost.makespan;
        for i in 0..n {
            if remaining[i] == 0 {
                continue;
            }
            let got = match spec {
                Some(sp) => sp
                    .acceptance
                    .sample_accept_len(sp.num_steps, || accept_rng.random::<f64>())
                    as u64,
                None => 1,
            };
            let got = got.min(remaining[i]);
            remaining[i] -= got;
            produced[i] += got;
            accepted_sum += got;
            request_iterations += 1;
            res.tpot_samples_ms.push(iter_time.as_ms_f64() / got as f64);
        }
        res.iterations += 1;
        res.total_time += iter_time;
        for (c, d) in cost.by_category {
            *res.breakdown_total.entry(c).or_insert(Duration::ZERO) += d;
        }
        for (op, d) in cost.by_op {
            *res.by_op_total.entry(op).or_insert(Duration::ZERO) += d;
        }
    }
    res.output_tokens = accepted_sum;
    res.mean_iteration_ms = res.total_time.as_ms_f64() / res.iterations.max(1) as f64;
    res.accept_len_mean = accepted_sum as f64 / request_iterations.max(1) as f64;
    res.tpot_samples_ms.sort_by(f64::total_cmp);
    res.distinct_shapes = cache.len();
    Ok(res)
}

impl LoopResult {
    /// Output tokens per second over all requests.
    pub fn output_tok_s(&self) -> f64 {
        let s = self.total_time.as_secs_f64();
        if s > 0.0 {
            self.output_tokens as f64 / s
        } else {
            0.0
        }
    }
    /// Mean time per output token of one request, ms.
    pub fn tpot_ms(&self, concurrency: u32) -> f64 {
        let per_req = self.output_tokens as f64 / concurrency.max(1) as f64;
        if per_req > 0.0 {
            self.total_time.as_ms_f64() / per_req
        } else {
            0.0
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
