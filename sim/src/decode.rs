//! The decode loop, first cut (issue #2; issue #4 and #6 replace the costs, not the shape).
//!
//! Each iteration is a task graph on the simulated GPUs and host: per layer an attention kernel on
//! every rank, an allreduce occupying every rank's stream, an MLP/MoE kernel and a second allreduce;
//! then the LM head and the logits all-gather. With EAGLE-3 (spec v1, overlap scheduler off) an
//! iteration is: host scheduling → draft passes (steps − 1 over batch × topk tokens) → a sync →
//! target verify over batch × num_draft_tokens → accept (sync) → draft extend. Iteration shapes
//! (batch, context bucket, pass mix) are simulated once and reused.

mod admission;
mod aiter_workspace; // vrows3 (issue #17 point 4): SGLang's aiter workspace on ROCm
mod dp_attention; // issue #17: SGLang DP attention's memory and batch
mod load_usage; // rope51 (issue #17): an observed "Load weight end" mem usage in the table
mod memory;
pub mod moe_a2a; // issue #17 point 1 (ep): DeepEP's memory and volumes
pub(crate) mod passes;
pub use passes::PrefillKernels;
pub use passes::sm120_fp4; // sm120fp4_64: the SM 12.x NVFP4 dense GEMM model, for the tests
// Issue #17 point 1 (vllmdp): the MoE exchange of vLLM DP on a MoE model, for the tests.
pub use passes::vllm_dp::{
    MoeExchange, exchange_bytes as vllm_dp_exchange_bytes, moe_rows as vllm_dp_moe_rows,
};
mod pipeline; // issue #17: pipeline stages' memory and micro-batches
pub mod routing;
mod shape_cache; // sweepfast: iteration shape costs shared by every prediction of the process
mod vllm_fi_workspace; // vmemtp57 (issue #17): FlashInfer's allreduce-fusion workspace in vLLM's profile
mod vllm_graph_estimate;
mod vllm_hybrid; // issue #17 (engine-exact memory): vLLM's pages for Mamba-2 / Gated DeltaNet hybrids
mod vllm_mm_profile; // vllmmem60 (issue #17): 0.10 – 0.13 profile-run parts (MoE workspace, Qwen3-VL video)
mod vllm_parts;
mod vllm_sampler_rule; // vrows3 (issue #17 point 5): the dummy sampler's rule by vLLM version
mod vllm_spec_memory;
mod vllm_v0_kv; // vllmv0mem (issue #17 point 5): vLLM V0's KV sizing by release // issue #17: the draft in vLLM's memory plan // issue #17 point 5: vLLM start-up parts from the scenario // vgraph53 (issue #17): vLLM ≥ 0.20's CUDA-graph estimate in the KV budget

pub use admission::rejection;
pub use memory::{MemEntry, MemKind, MemoryPlan, Moment, Source, Verdict, VllmHybridPool, plan_memory};
pub use passes::{Collective, CollectiveCost, Costs, collective_costs};
pub use vllm_graph_estimate::GraphEstimate;
pub use vllm_v0_kv::V0Log; // vllmv0mem // vgraph53

use crate::engine::RngStreams;
use crate::exec::{self, Category, Resources, Schedule, TaskGraph};
use crate::scenario::Scenario;
use crate::serve;
use rand::RngExt;
use std::collections::BTreeMap;
use tpsim_model::spec::break_even_accept_len;
use tpsim_model::units::Duration;

/// Errors while simulating (bugs in graph building, reported rather than panicked on).
#[derive(Debug, thiserror::Error)]
pub enum DecodeError {
    #[error("internal task-graph error: {0}")]
    Exec(#[from] exec::ExecError),
    /// dsv4run55 (issue #17): the engine starts but tpsim has no cost model for the model's decode
    /// step (DeepSeek-V4: `tpsim memory` answers, `tpsim run` refuses); the text says what is missing.
    #[error("{0}")]
    NotModelled(String),
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
    /// Iterations that decoded (vLLM's mixed iterations included).
    pub iterations: u64,
    /// Prefill-only iterations.
    pub prefill_iterations: u64,
    /// Output tokens produced over all requests (the prefill's first tokens included).
    pub output_tokens: u64,
    /// Output tokens produced by decode iterations.
    pub decode_tokens: u64,
    /// Total simulated time of the iterations that decoded (prefill-only iterations excluded).
    pub total_time: Duration,
    /// Total simulated time of the prefill-only iterations.
    pub prefill_time: Duration,
    /// Simulated time from the first request to the last token (idle gaps of an open loop included).
    pub makespan: Duration,
    /// Mean time per decode iteration in ms.
    pub mean_iteration_ms: f64,
    /// Mean accepted tokens per request-iteration (1 without speculation).
    pub accept_len_mean: f64,
    /// Requests that finished.
    pub finished: u64,
    /// Retractions (SGLang) or preemptions (vLLM): a running request's KV freed, to recompute later.
    pub preemptions: u64,
    /// Requests the engine refused (longer than the context or the KV pool); not run.
    pub rejected: u64,
    /// The engine's text for the first refused request.
    pub first_rejection: Option<String>,
    /// Open loop only: the waiting queue grew over the run (`serve::core::run` says how it decides).
    pub overloaded: bool,
    /// Highest fraction of the KV pool held by requests and referenced prefixes after an iteration
    /// (under SGLang's DP attention: all the groups' pools together).
    pub peak_kv_utilisation: f64,
    /// Issue #18 leftover (dpsched2): the highest fraction of any one scheduler's pool in use (the
    /// busiest DP-attention group's; `peak_kv_utilisation` with one scheduler).
    pub peak_group_kv_utilisation: f64,
    /// Most requests running / waiting at once (summed over DP-attention groups and replicas).
    pub peak_running: u32,
    pub peak_waiting: u32,
    /// Schedulers stepped in lock-step (SGLang's DP-attention groups; 1 otherwise).
    pub groups: u32,
    /// Requests whose output SGLang clipped to fit a scheduler's pool (`init_req_max_new_tokens`).
    pub clipped_outputs: u64,
    /// Streaming histograms: time to first token (from arrival), inter-token gaps, per-token time
    /// of each request-iteration (gap ÷ accepted tokens), per-request TPOT, end-to-end latency.
    pub ttft: serve::stats::Histogram,
    pub itl: serve::stats::Histogram,
    pub token_time: serve::stats::Histogram,
    pub request_tpot: serve::stats::Histogram,
    pub e2e: serve::stats::Histogram,
    /// Running / waiting / KV utilisation / preemptions over time (bounded, downsampled).
    pub series: Vec<serve::stats::SeriesPoint>,
    /// Finished requests and those meeting every objective of the scenario's `[slo]` (issue #18:
    /// counted per request as it finishes; zero without `[slo]`).
    pub goodput: crate::slo::GoodputCounter,
    /// The API-server front end's figures (issue #18, frontend; `servers` 0 when not modelled).
    pub frontend: serve::frontend::Stats,
    /// SGLang's detokenizer process (issue #18, kimitok54; `on` false when not modelled).
    pub detok: serve::detok::Stats,
    /// Request-iterations of decode (one per request per decode iteration it took part in): over
    /// `iterations`, the mean running batch.
    pub request_iterations: u64,
    /// Critical-path breakdown summed over decode iterations, by category.
    pub breakdown_total: BTreeMap<Category, Duration>,
    /// Critical-path time summed over decode iterations by op class (attention, moe, mlp, lm_head,
    /// embed, allreduce, allgather, host, sync, idle).
    pub by_op_total: BTreeMap<&'static str, Duration>,
    /// Issue #18 (prefillgpus): the FLOP-bound kernels of the prefill and mixed shapes simulated
    /// (each distinct shape once), against the hardware's measured FLOP range.
    pub prefill_kernels: passes::PrefillKernels,
    /// Distinct shapes simulated.
    pub distinct_shapes: usize,
    /// Issue #17 (dp): data-parallel replicas that served (1 without): the iteration counts and
    /// times above are summed over them, so the throughputs multiply by it.
    pub replicas: u32,
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
    s.workload.concurrency.min(running_cap(s, memory)).max(1)
}

/// The scheduler's cap on running requests: SGLang's `max_running_requests` (× dp groups under DP
/// attention), unbounded (u32::MAX) when the plan has none (vLLM: `max_num_seqs`, see
/// [`vllm_batch_shape`]).
pub fn running_cap(s: &Scenario, memory: &MemoryPlan) -> u32 {
    let groups = u64::from(dp_attention::dp(&s.engine));
    memory.max_running_requests.map_or(u32::MAX, |m| {
        m.saturating_mul(groups).clamp(1, u64::from(u32::MAX)) as u32
    })
}

/// vLLM's `max_num_batched_tokens` and `max_num_seqs` (the scenario's or the defaults for the GPU).
pub fn vllm_batch_shape(s: &Scenario, memory: &MemoryPlan) -> (u64, u64) {
    vllm_parts::batch_shape(s, memory.total_gib)
}

/// Runs the scenario: memory plan, then the decode loop (and the no-speculation loop for comparison).
pub fn predict(s: &Scenario) -> Result<Prediction, DecodeError> {
    predict_with(s, true)
}

/// [`predict`], optionally without the no-speculation comparison loop (`without_spec` is then
/// `None`). The main loop's results are the same either way: each loop draws its own streams.
pub fn predict_with(s: &Scenario, compare_without_spec: bool) -> Result<Prediction, DecodeError> {
    predict_opts(
        s,
        &Options {
            compare_without_spec,
            ..Options::default()
        },
    )
}

/// How [`predict_opts`] runs. The figures are the same for every choice.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    /// Also run the no-speculation comparison loop (speculative scenarios only).
    pub compare_without_spec: bool,
    /// Keep the first iterations' graphs for `--trace` (`Prediction::trace_shapes`; those decode
    /// shapes are then built even when the shape cache has them).
    pub trace: bool,
    /// Take shape costs from the process-wide shape cache and put new ones there (sweepfast);
    /// false builds every shape of the prediction (the reference the cache is checked against).
    pub shape_cache: bool,
}

impl Default for Options {
    /// `tpsim run`'s: comparison loop, trace shapes, shape cache.
    fn default() -> Self {
        Options {
            compare_without_spec: true,
            trace: true,
            shape_cache: true,
        }
    }
}

/// [`predict`] as `opts` says.
pub fn predict_opts(s: &Scenario, opts: &Options) -> Result<Prediction, DecodeError> {
    let compare_without_spec = opts.compare_without_spec;
    let memory = plan_memory(s);
    // dsv4run55 refused DeepSeek-V4 here; dsv4dec55 (issue #17) lowers its decode layer
    // (`llm::deepseek_v4_layer`), so a plan that starts runs.
    let costs = collective_costs(s);
    let mut builder = passes::Builder::new(s, &costs);
    // Decode batches above the largest CUDA graph run eager (issue #18 point 4).
    let eager_s = s.engine.cuda_graph.then(|| {
        let mut e = s.clone();
        e.engine.cuda_graph = false;
        e
    });
    let mut eager = eager_s.as_ref().map(|e| passes::Builder::new(e, &costs));
    let rng = RngStreams::new(s.seed);
    let cache = Cache {
        table: opts.shape_cache.then(|| shape_cache::table(s)),
        trace: opts.trace,
    };
    let main = run_loop(
        s,
        &memory,
        &mut builder,
        eager.as_mut(),
        &rng,
        s.speculative.is_some(),
        &cache,
    )?;
    let (without_spec, be) = if s.speculative.is_some() && compare_without_spec {
        let plain = run_loop(s, &memory, &mut builder, eager.as_mut(), &rng, false, &cache)?;
        let be = break_even_accept_len(main.mean_iteration_ms, plain.mean_iteration_ms);
        (Some(plain), be.is_finite().then_some(be))
    } else {
        (None, None)
    };
    drop(eager);
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

/// A prediction's view of the process-wide shape cache: its scenario's table, and whether the
/// first decode shapes must be built anyway for `--trace`.
struct Cache {
    table: Option<std::sync::Arc<shape_cache::Table>>,
    trace: bool,
}

/// What one simulated iteration shape costs: its makespan and critical-path breakdowns.
#[derive(Debug, Clone)]
struct ShapeCost {
    makespan: Duration,
    by_category: BTreeMap<Category, Duration>,
    by_op: BTreeMap<&'static str, Duration>,
}

impl ShapeCost {
    fn of(shape: &SimulatedShape) -> Self {
        ShapeCost {
            makespan: shape.schedule.makespan,
            by_category: shape.schedule.critical_path_by_category(),
            by_op: passes::op_breakdown(&shape.graph, &shape.schedule),
        }
    }
    /// Two shapes run one after the other.
    fn then(mut self, o: &ShapeCost) -> Self {
        self.makespan += o.makespan;
        for (c, d) in &o.by_category {
            *self.by_category.entry(*c).or_insert(Duration::ZERO) += *d;
        }
        for (k, d) in &o.by_op {
            *self.by_op.entry(k).or_insert(Duration::ZERO) += *d;
        }
        self
    }
}

/// Shape key: (kind 0 decode / 1 prefill / 2 mixed, batch, context, prefill seqs, prefill tokens,
/// eager).
/// (kind, batch, ctx, seqs, tokens, prefix, eager); vllmchunk59: a mixed shape's chunk prefix.
type ShapeKey = (u8, u32, u32, u32, u32, u32, bool);

/// The serving loop's cost model: each distinct iteration shape simulated once on the pass builder
/// (an eager builder for decode batches above the largest CUDA graph), then reused.
struct Shapes<'b, 'a> {
    b: &'b mut passes::Builder<'a>,
    eager: Option<&'b mut passes::Builder<'a>>,
    spec: bool,
    trace: bool,
    /// The process-wide costs of this scenario's shapes (`shape_cache`; None: not used).
    table: Option<&'b shape_cache::Table>,
    index: BTreeMap<ShapeKey, usize>,
    /// Issue #18 leftover (dpsched2): DP-attention SUM_LEN steps, by the groups' shapes.
    dp_index: BTreeMap<Vec<serve::GroupShape>, usize>,
    costs: Vec<ShapeCost>,
    /// ttft54: vLLM V1's largest CUDA-graph capture size; a forward with more tokens runs without
    /// graphs ([`vllm_graph_limit`]). None: no such rule (SGLang, V0, graphs off).
    graph_limit: Option<u32>,
}

impl<'a> Shapes<'_, 'a> {
    /// The shape `key` of this loop: its index and makespan, from this loop's shapes, else from
    /// the process-wide cache (when `shared`), else built by `build`.
    fn get(
        &mut self,
        key: ShapeKey,
        shared: bool,
        build: impl FnOnce(&mut Self) -> Result<ShapeCost, DecodeError>,
    ) -> Result<(usize, Duration), DecodeError> {
        if let Some(&i) = self.index.get(&key) {
            return Ok((i, self.costs[i].makespan));
        }
        let c = if shared {
            let spec = self.spec;
            self.cached(shape_cache::Key::Shape { spec, shape: key }, build)?
        } else {
            build(self)?
        };
        let t = c.makespan;
        self.costs.push(c);
        self.index.insert(key, self.costs.len() - 1);
        Ok((self.costs.len() - 1, t))
    }

    /// The cost of `key` from the process-wide cache, its build's side effects made again (the
    /// builders' prefill-kernel additions in order, the collectives asked for); on a miss, built by
    /// `build` with those side effects logged, and stored.
    fn cached(
        &mut self,
        key: shape_cache::Key,
        build: impl FnOnce(&mut Self) -> Result<ShapeCost, DecodeError>,
    ) -> Result<ShapeCost, DecodeError> {
        let Some(table) = self.table else {
            return build(self);
        };
        if let Some(e) = table.get(&key) {
            self.b.replay_kernel_log(&e.main_log);
            if let Some(x) = self.eager.as_ref() {
                x.replay_kernel_log(&e.eager_log);
            }
            self.b.costs().replay_calls(&e.calls);
            return Ok(e.cost.clone());
        }
        self.b.start_kernel_log();
        if let Some(x) = self.eager.as_ref() {
            x.start_kernel_log();
        }
        self.b.costs().start_tap();
        let c = build(self);
        // Stop logging whether or not the build succeeded.
        let main_log = self.b.take_kernel_log();
        let eager_log = self
            .eager
            .as_ref()
            .map(|x| x.take_kernel_log())
            .unwrap_or_default();
        let calls = self.b.costs().take_tap();
        let c = c?;
        let entry = shape_cache::Entry {
            cost: c.clone(),
            main_log,
            eager_log,
            calls,
        };
        table.insert(key, entry);
        Ok(c)
    }

    fn builder(&mut self, eager: bool) -> &mut passes::Builder<'a> {
        match (eager, self.eager.as_mut()) {
            (true, Some(e)) => e,
            _ => self.b,
        }
    }
}

impl serve::IterationCosts for Shapes<'_, '_> {
    fn decode(&mut self, batch: u32, ctx: u32, eager: bool) -> Result<(usize, Duration), DecodeError> {
        let (spec, trace) = (self.spec, self.trace && !eager);
        // The first shapes of a traced run are built for their graphs.
        let shared = !(trace && self.b.first_shapes.len() < TRACE_ITERATIONS);
        self.get((0, batch, ctx, 0, 0, 0, eager), shared, |me| {
            let shape = me.builder(eager).simulate(batch, ctx, spec)?;
            let c = ShapeCost::of(&shape);
            if trace && me.b.first_shapes.len() < TRACE_ITERATIONS {
                me.b.first_shapes.push(shape);
            }
            Ok(c)
        })
    }
    fn prefill(&mut self, seqs: u32, tokens: u32) -> Result<(usize, Duration), DecodeError> {
        self.prefill_after(seqs, tokens, 0)
    }
    fn prefill_after(
        &mut self,
        seqs: u32,
        tokens: u32,
        prefix: u32,
    ) -> Result<(usize, Duration), DecodeError> {
        let spec = self.spec;
        let eager = prefill_is_eager(self.b.scenario()) || self.graph_limit.is_some_and(|m| tokens > m);
        // A prefill's key keeps its cached prefix in the context slot (0 for a fresh prompt).
        self.get((1, 0, prefix, seqs, tokens, 0, eager), true, |me| {
            Ok(ShapeCost::of(
                &me.builder(eager)
                    .simulate_prefill_after(seqs, tokens, prefix, spec)?,
            ))
        })
    }
    fn mixed(
        &mut self,
        batch: u32,
        ctx: u32,
        eager: bool,
        (seqs, tokens, prefix): (u32, u32, u32),
    ) -> Result<(usize, Duration), DecodeError> {
        let spec = self.spec;
        // ttft54: the decodes and the chunks together above the largest graph run without one
        // (the decode batch as padded: at most the next capture size over the scheduled tokens).
        let eager = eager || self.graph_limit.is_some_and(|m| batch.saturating_add(tokens) > m);
        self.get((2, batch, ctx, seqs, tokens, prefix, eager), true, |me| {
            if spec {
                // A speculative iteration with prefill chunks: costed as the speculative decode
                // followed by the chunks' prefill (one forward in vLLM; a first cut).
                let d = ShapeCost::of(&me.builder(eager).simulate(batch, ctx, true)?);
                let p = ShapeCost::of(&me.b.simulate_prefill(seqs, tokens, true)?);
                Ok(d.then(&p))
            } else {
                Ok(ShapeCost::of(&me.builder(eager).simulate_mixed(
                    batch,
                    ctx,
                    (seqs, tokens, prefix),
                )?))
            }
        })
    }
    fn dp_sum_len(&mut self, groups: &[serve::GroupShape]) -> Result<(usize, Duration), DecodeError> {
        if let Some(&i) = self.dp_index.get(groups) {
            return Ok((i, self.costs[i].makespan));
        }
        let key = shape_cache::Key::Dp {
            spec: self.spec,
            groups: groups.to_vec(),
        };
        let c = self.cached(key, |me| me.build_dp_sum_len(groups))?;
        let t = c.makespan;
        self.costs.push(c);
        self.dp_index.insert(groups.to_vec(), self.costs.len() - 1);
        Ok((self.costs.len() - 1, t))
    }
    /// sglttft59: under SGLang's overlap scheduler (on, no speculative decoding v1, which runs
    /// `event_loop_normal`) a prefill's first tokens wait for the next step's launch past the
    /// prefill's GPU tail (`serve::sglang_first_token`); each step's host time is the host part of
    /// its shape's critical path, its makespan the step's own (interpolated extends included).
    fn sglang_overlap(&self) -> bool {
        let e = &self.b.scenario().engine;
        e.kind == crate::scenario::EngineKind::Sglang && e.overlap_schedule && !self.spec
    }
    fn first_token_delay(&self, prefill: (usize, Duration), next: (usize, Duration)) -> Duration {
        if !self.sglang_overlap() {
            return Duration::ZERO;
        }
        let step = |(i, makespan): (usize, Duration)| serve::sglang_first_token::StepHost {
            makespan,
            host: self
                .costs
                .get(i)
                .and_then(|c| c.by_category.get(&Category::Host).copied())
                .unwrap_or(Duration::ZERO)
                .min(makespan),
        };
        serve::sglang_first_token::overlap_first_token_delay(step(prefill), step(next))
    }
}

impl Shapes<'_, '_> {
    /// Builds an SGLang DP-attention SUM_LEN step over the groups' shapes.
    fn build_dp_sum_len(&mut self, groups: &[serve::GroupShape]) -> Result<ShapeCost, DecodeError> {
        let sum = passes::DpSum {
            groups: groups.iter().map(|g| group_pass_shape(*g)).collect(),
        };
        let (mut dec, mut ctx, mut seqs, mut tokens) = (0u32, 0u32, 0u32, 0u32);
        for g in groups {
            dec = dec.saturating_add(g.decode);
            ctx = ctx.max(g.ctx);
            seqs = seqs.saturating_add(g.seqs);
            tokens = tokens.saturating_add(g.tokens);
        }
        let spec = self.spec;
        // A prefill (the idle groups aside) keeps the prefill's builder; with a decode in the step
        // no CUDA graph replays (`can_cuda_graph` is the minimum over groups): the eager builder.
        let b = self.builder(dec > 0);
        b.set_dp_sum(Some(sum));
        let shape = match (dec, seqs) {
            (0, _) => b.simulate_prefill(seqs, tokens, spec),
            // An eager decode over uneven groups (never with speculation: `serve::core::cost_step`).
            (_, 0) => b.simulate(dec, ctx, false),
            // With speculation SGLang never mixes prefill and decode groups (`serve::core::run`).
            _ => b.simulate_mixed(dec, ctx, (seqs, tokens, 0)),
        };
        b.set_dp_sum(None);
        Ok(ShapeCost::of(&shape?))
    }
}

/// One DP-attention group's attention shape (issue #18 leftover dpsched2): its decodes
/// (`PassShape::all_logits`), its prefill chunks (`PassShape::extend`), or both in one mixed chunk
/// as `passes::mixed` shapes them.
fn group_pass_shape(g: serve::GroupShape) -> passes::PassShape {
    match (g.decode, g.seqs) {
        (0, _) => passes::PassShape::extend(g.seqs, g.tokens, 0),
        (d, 0) => passes::PassShape::all_logits(d, d, g.ctx),
        (d, s) => passes::PassShape {
            seqs: d,
            tokens: d + g.tokens,
            ctx: g.ctx,
            logits: d + s.min(g.tokens),
            prefix: 0,
            // vllmchunk59: SGLang's DP-attention mixed chunk keeps the first cut (the chunks'
            // attention at the decodes' context).
            chunks: 0,
            chunk_tokens: 0,
        },
    }
}

/// Whether the engine runs a prefill (extend) batch without CUDA graphs, each kernel launched by
/// the host (tests/data/prefill.tsv). SGLang replays graphs only for decode, target-verify and idle
/// batches: `model_executor/model_runner.py` `_forward_raw` takes the graph runner only when
/// `forward_mode.is_cuda_graph()` (DECODE, TARGET_VERIFY, IDLE in `forward_batch_info.py`), and an
/// EXTEND batch goes to `forward_extend`, eager, unless `--enable-piecewise-cuda-graph` captured it
/// (whose launches outside the pieces `passes::sgl_prefill_launch` charges, as it does the eager
/// launches beyond the layer template).
/// vLLM v1 keeps its graph cost up to its largest capture size and runs eager above it
/// ([`vllm_graph_limit`], ttft54).
fn prefill_is_eager(s: &Scenario) -> bool {
    s.engine.kind == crate::scenario::EngineKind::Sglang && !s.engine.enable_piecewise_cuda_graph
}

/// ttft54: the largest number of tokens vLLM V1 runs a forward of under a CUDA graph, `graphs` being
/// the plan's capture sizes; None for SGLang (its rule is [`prefill_is_eager`]), V0, graphs off and
/// speculative runs (whose plan lists no graphs: their padding is not modelled).
/// A prefill or mixed forward with more scheduled tokens runs with `CUDAGraphMode.NONE`: every
/// kernel of the compiled model launched by the host. vLLM 0.10.1.1 and 0.11.0
/// `v1/worker/gpu_model_runner.py` pad to a graph only when `num_scheduled_tokens <=
/// self.cudagraph_batch_sizes[-1]` ("Eager mode" otherwise) and `v1/cudagraph_dispatcher.py`
/// `dispatch` finds no key for the unpadded count; 0.17.0 and 0.19.0 `dispatch` return NONE when
/// `num_tokens > max_cudagraph_capture_size`. The default largest size is
/// min(2 × `max_num_seqs`, 512) (0.11.0 `config/scheduler.py`), so a 1,000-token prompt at
/// concurrency 1 runs ungraphed.
fn vllm_graph_limit(s: &Scenario, graphs: &[u32]) -> Option<u32> {
    let v1 = s.engine.kind == crate::scenario::EngineKind::Vllm && s.engine.v0.is_none();
    v1.then(|| graphs.last().copied()).flatten()
}

/// The engine's refusal of one request (`admission`), with SGLang's scheduler check against the KV
/// pool: SGLang 0.5.9 `tp_worker.py` sets `max_req_input_len` = min(context_len − 1,
/// max_total_num_tokens − 1) − 5 and `managers/utils.py` `validate_input_length` refuses a prompt
/// that reaches it.
fn refusal(s: &Scenario, memory: &MemoryPlan, prompt: u32, output: u32) -> Option<String> {
    if let Some(m) = admission::refusal(s, u64::from(prompt), u64::from(output)) {
        return Some(m);
    }
    if s.engine.kind == crate::scenario::EngineKind::Sglang {
        let max_len = s
            .engine
            .context_len
            .saturating_sub(1)
            .min(memory.kv_tokens.saturating_sub(1));
        let max_input = max_len.saturating_sub(5);
        if u64::from(prompt) >= max_input {
            return Some(format!(
                "Input length ({prompt} tokens) exceeds the maximum allowed length ({max_input} tokens). \
                 Use a shorter input or enable --allow-auto-truncate."
            ));
        }
    }
    None
}

/// The serving loop (`crate::serve`) over the workload's request stream, costed on the shapes of
/// `b` (and `eager` for decode batches above the largest CUDA graph).
fn run_loop<'a>(
    s: &Scenario,
    memory: &MemoryPlan,
    b: &mut passes::Builder<'a>,
    eager: Option<&mut passes::Builder<'a>>,
    rng: &RngStreams,
    speculate: bool,
    shared: &Cache,
) -> Result<LoopResult, DecodeError> {
    // Issue #18 point 1 (schedkeys): without prefix reuse (SGLang `--disable-radix-cache`, vLLM
    // `--no-enable-prefix-caching`) no request finds its shared prefix cached.
    let cache = s.engine.scheduler.prefix_cache;
    let prep = move |mut r: crate::workload::RequestSpec| {
        if !cache {
            r.prefix = None;
        }
        r
    };
    let mut accept_rng = rng.stream("acceptance");
    let spec = s.speculative.as_ref().filter(|_| speculate);
    let mut sampler = spec.map(|sp| sp.acceptance.sampler(sp.num_steps, sp.topk, sp.num_draft_tokens));
    let trace = shared.trace && speculate == s.speculative.is_some();
    let plan = serve::plan(s, memory, speculate);
    let mut shapes = Shapes {
        b,
        eager,
        spec: spec.is_some(),
        trace,
        table: shared.table.as_deref(),
        index: BTreeMap::new(),
        dp_index: BTreeMap::new(),
        costs: Vec::new(),
        graph_limit: vllm_graph_limit(s, &plan.graphs),
    };
    let mut draw_fn = sampler
        .as_mut()
        .map(|sm| move || sm.draw(|| accept_rng.random::<f64>()));
    let draw: Option<&mut dyn FnMut() -> u32> = draw_fn.as_mut().map(|f| f as &mut dyn FnMut() -> u32);
    let refuse = |p: u32, o: u32| refusal(s, memory, p, o);
    // Issue #17 (dp): data-parallel replicas run as one loop each over their share of the stream.
    let (m, replicas) = if s.engine.replicas > 1 {
        let shared = serve::replicas::Shared {
            plan: &plan,
            refuse: &refuse,
            bucket: CONTEXT_BUCKET,
            slo: s.slo.as_ref(),
        };
        serve::replicas::run(
            s.engine.replicas,
            &|| crate::workload::RequestStream::new(s, rng),
            &prep,
            (s.workload.num_requests, s.workload.concurrency),
            &shared,
            draw,
            &mut shapes,
        )?
    } else {
        let m = serve::run(
            &plan,
            crate::workload::RequestStream::new(s, rng).map(prep),
            s.workload.num_requests,
            s.workload.concurrency,
            &refuse,
            draw,
            &mut shapes,
            CONTEXT_BUCKET,
            s.slo.as_ref(),
        )?;
        (m, 1)
    };
    let mut breakdown_total = BTreeMap::new();
    let mut by_op_total = BTreeMap::new();
    for (i, &n) in m.shape_runs.iter().enumerate() {
        let c = &shapes.costs[i];
        // Breakdowns are per decode iteration: prefill-only shapes (kind 1) are left out.
        let prefill_only = shapes.index.iter().any(|(k, &j)| j == i && k.0 == 1);
        if n == 0 || prefill_only {
            continue;
        }
        for (k, d) in &c.by_category {
            *breakdown_total.entry(*k).or_insert(Duration::ZERO) += d.times(n);
        }
        for (k, d) in &c.by_op {
            *by_op_total.entry(*k).or_insert(Duration::ZERO) += d.times(n);
        }
    }
    let total_time = Duration::from_ps(m.decode_time);
    let eager_kernels = shapes
        .eager
        .as_ref()
        .map(|e| e.prefill_kernels())
        .unwrap_or_default();
    let prefill_kernels = shapes.b.prefill_kernels().merged(eager_kernels);
    Ok(LoopResult {
        iterations: m.decode_iterations,
        prefill_iterations: m.prefill_iterations,
        output_tokens: m.output_tokens,
        decode_tokens: m.decode_tokens,
        total_time,
        prefill_time: Duration::from_ps(m.prefill_time),
        makespan: Duration::from_ps(m.end),
        mean_iteration_ms: total_time.as_ms_f64() / m.decode_iterations.max(1) as f64,
        accept_len_mean: m.decode_tokens as f64 / m.request_iterations.max(1) as f64,
        finished: m.finished,
        preemptions: m.preemptions,
        rejected: m.rejected,
        first_rejection: m.first_rejection,
        overloaded: m.overloaded,
        peak_kv_utilisation: m.peak_kv_utilisation,
        peak_group_kv_utilisation: m.peak_group_kv_utilisation,
        peak_running: m.peak_running,
        peak_waiting: m.peak_waiting,
        groups: m.groups,
        clipped_outputs: m.clipped_outputs,
        ttft: m.ttft,
        itl: m.itl,
        token_time: m.token_time,
        request_tpot: m.request_tpot,
        e2e: m.e2e,
        series: m.series.points,
        goodput: m.goodput,
        frontend: m.frontend,
        detok: m.detok,
        request_iterations: m.request_iterations,
        breakdown_total,
        by_op_total,
        distinct_shapes: shapes.costs.len(),
        replicas,
        prefill_kernels,
    })
}

impl LoopResult {
    /// Mean requests per decode iteration (the running batch as the scheduler let it be; 0
    /// without a decode iteration).
    pub fn mean_batch(&self) -> f64 {
        if self.iterations == 0 {
            0.0
        } else {
            self.request_iterations as f64 / self.iterations as f64
        }
    }

    /// Output tokens per second during decode (prefill time and first tokens excluded), as SGLang's
    /// "gen throughput" log line reports it.
    pub fn output_tok_s(&self) -> f64 {
        let s = self.total_time.as_secs_f64();
        if s > 0.0 {
            self.decode_tokens as f64 / s * f64::from(self.replicas.max(1))
        } else {
            0.0
        }
    }
    /// Output tokens per second end to end: every output token over decode plus prefill time.
    pub fn e2e_output_tok_s(&self) -> f64 {
        let s = (self.total_time + self.prefill_time).as_secs_f64();
        if s > 0.0 {
            self.output_tokens as f64 / s * f64::from(self.replicas.max(1))
        } else {
            0.0
        }
    }
    /// Mean time to first token from arrival (queueing included), ms.
    pub fn ttft_ms(&self) -> f64 {
        self.ttft.mean_ms()
    }
    /// Mean time per output token of one request (bench_serving's TPOT: (last − first token) ÷
    /// (outputs − 1), over requests with more than one output), ms.
    pub fn tpot_ms(&self) -> f64 {
        self.request_tpot.mean_ms()
    }
    /// Percentile `p` in [0, 100] of the per-token time samples (one per request-iteration: the gap
    /// since the request's previous token over the tokens it got), nearest rank.
    pub fn tpot_percentile_ms(&self, p: f64) -> f64 {
        self.token_time.percentile_ms(p)
    }
    /// Percentile `p` of the time to first token, ms.
    pub fn ttft_percentile_ms(&self, p: f64) -> f64 {
        self.ttft.percentile_ms(p)
    }
    /// Percentile `p` of the inter-token latency (gaps between a request's successive deliveries), ms.
    pub fn itl_percentile_ms(&self, p: f64) -> f64 {
        self.itl.percentile_ms(p)
    }
    /// Percentile `p` of the end-to-end latency (arrival to last token), ms.
    pub fn e2e_percentile_ms(&self, p: f64) -> f64 {
        self.e2e.percentile_ms(p)
    }
    /// Percentile `p` of the per-request TPOT, ms.
    pub fn request_tpot_percentile_ms(&self, p: f64) -> f64 {
        self.request_tpot.percentile_ms(p)
    }
    /// Finished requests per second of simulated time (first arrival to last token).
    pub fn request_throughput(&self) -> f64 {
        let t = self.makespan.as_secs_f64();
        if t > 0.0 { self.finished as f64 / t } else { 0.0 }
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
