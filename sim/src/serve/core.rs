//! The serving loop's state and the event loop itself (issue #18 point 1): requests, the waiting
//! queue, the running set, the KV pool, and the clock, in integer picoseconds.
//!
//! The loop asks the engine's scheduler ([`super::sglang`], [`super::vllm`]) for the next iteration,
//! costs it ([`IterationCosts`]), advances the clock by its makespan and applies what it produced.
//! Requests come from a [`RequestStream`](crate::workload::RequestStream): without an arrival time the client keeps `concurrency`
//! requests in flight (a closed loop: the next is sent when one finishes); with one, the request
//! enters the waiting queue at that time (an open loop). With nothing to run the clock jumps to the
//! next arrival.
//!
//! Under SGLang's DP attention the loop holds one [`Group`] per attention-DP group — its own
//! [`Core`] (KV pool, queues, requests) and scheduler — fed round robin by the data-parallel
//! controller and stepped in lock-step ([`run`]); without it there is one group.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

use tpsim_model::units::Duration;

use super::frontend::{Frontend, Outputs};
use super::kv::KvPool;
use super::stats::{Histogram, Series, SeriesPoint};
use crate::decode::DecodeError;
use crate::workload::{RequestSpec, SharedPrefix};

/// One request in the engine.
#[derive(Debug, Clone, Copy)]
pub struct Req {
    pub arrival: u64,
    pub prompt: u32,
    pub output: u32,
    pub prefix: Option<SharedPrefix>,
    /// Tokens whose KV is computed (the prefix reused from the cache included).
    pub computed: u64,
    /// Output tokens produced so far.
    pub produced: u32,
    /// Pages the request owns (its shared prefix, once cached, is the cache's).
    pub pages: u64,
    /// Tokens of its prefix it holds a cache reference to.
    pub prefix_tokens: u64,
    /// State blocks it holds over a vLLM hybrid's state groups (0 otherwise; [`StateRule`]).
    pub state: u64,
    /// In "align" mode, the tokens computed when it took a boundary step's extra state block per
    /// group, which vLLM frees at its next allocation once computation moved on (None: none held).
    pub state_mark: Option<u64>,
    /// Blocks of tokens its state blocks have covered so far (⌈tokens / block⌉ of its largest
    /// allocation; never trimmed): "align" mode takes its extra block when an allocation goes past it.
    pub state_upto: u64,
    pub first_at: Option<u64>,
    pub last_at: u64,
    pub in_running: bool,
    /// The API server that owns it (issue #18, frontend; 0 without a front end).
    pub server: u32,
    /// After a vLLM preemption with prefix caching: the [`KvPool::free_kept`] tag of its full
    /// pages still cached (0: none), and the shared-prefix tokens they follow.
    pub kept: u64,
    pub kept_after: u64,
    /// Tokens its last prefill covered (prompt + the outputs it was admitted with: SGLang's
    /// `fill_ids`, which `cache_unfinished_req` inserts in the radix tree) and that prefill's
    /// order among all prefills ([`Core::evict_request`] with [`Core::keep_retracted`]).
    pub fill: u64,
    pub fill_stamp: u64,
}

impl Req {
    /// A request that arrives at `arrival` (ns) and holds nothing yet: no KV computed, no pages, no
    /// cache references, no state blocks, not running.
    pub fn new(arrival: u64, prompt: u32, output: u32, prefix: Option<SharedPrefix>) -> Self {
        Req {
            arrival,
            prompt,
            output,
            prefix,
            computed: 0,
            produced: 0,
            pages: 0,
            prefix_tokens: 0,
            state: 0,
            state_mark: None,
            state_upto: 0,
            first_at: None,
            last_at: arrival,
            in_running: false,
            server: 0,
            kept: 0,
            kept_after: 0,
            fill: 0,
            fill_stamp: 0,
        }
    }

    /// Tokens the engine knows for this request: prompt + outputs so far (what a recompute prefills).
    pub fn target(&self) -> u64 {
        u64::from(self.prompt) + u64::from(self.produced)
    }
    /// Whether it is decoding: everything but the last sampled token is in the KV cache.
    pub fn decoding(&self) -> bool {
        self.produced > 0 && self.computed + 1 == self.target()
    }
}

/// What one iteration runs: extend (prefill) parts and decoding requests.
#[derive(Debug, Default)]
pub struct Batch {
    /// (request, tokens computed this iteration) of prefill chunks and recomputes.
    pub extend: Vec<(u32, u64)>,
    /// Requests decoding (one token, or a speculative cycle, each).
    pub decode: Vec<u32>,
}

/// What the loop needs from the cost model: the makespan of an iteration shape and an id the
/// caller uses to sum its breakdowns afterwards.
pub trait IterationCosts {
    /// A decode of `batch` requests (already padded to a CUDA graph) at context `ctx`; `eager` when
    /// the batch is above the largest graph.
    fn decode(&mut self, batch: u32, ctx: u32, eager: bool) -> Result<(usize, Duration), DecodeError>;
    /// A prefill of `seqs` sequences with `tokens` tokens in all.
    fn prefill(&mut self, seqs: u32, tokens: u32) -> Result<(usize, Duration), DecodeError>;
    /// A prefill whose queries also attend over `prefix` cached tokens each (token-weighted over
    /// the sequences): a later chunk of a chunked prompt, or a prompt after a prefix-cache hit
    /// (tests/data/prefill.tsv line 10). Without an override the prefix is not costed.
    fn prefill_after(
        &mut self,
        seqs: u32,
        tokens: u32,
        prefix: u32,
    ) -> Result<(usize, Duration), DecodeError> {
        let _ = prefix;
        self.prefill(seqs, tokens)
    }
    /// One forward with a decode batch and prefill chunks together (vLLM, SGLang mixed chunk):
    /// `batch` decodes at `ctx`; `chunks` = (seqs, tokens, prefix): `seqs` chunks of `tokens` tokens
    /// in all after `prefix` cached tokens each (token-weighted, vllmchunk59).
    fn mixed(
        &mut self,
        batch: u32,
        ctx: u32,
        eager: bool,
        chunks: (u32, u32, u32),
    ) -> Result<(usize, Duration), DecodeError>;
    /// Under SGLang's DP attention, a lock-step forward in SUM_LEN mode (issue #18 leftover
    /// dpsched2): some group extends, or an eager decode over uneven groups. `groups` are the busy
    /// groups' own shapes, largest first (idle groups left out). SGLang gathers only the real
    /// tokens: the MLP/MoE runs on their sum, each group's attention on its own, the step waiting
    /// for the slowest; no CUDA graph.
    fn dp_sum_len(&mut self, groups: &[GroupShape]) -> Result<(usize, Duration), DecodeError>;
    /// sglttft59: how long after a step that completed prefills ends its first tokens reach the
    /// client, given that step (its shape id and time) and the step launched next: SGLang's overlap
    /// scheduler processes a batch's result after launching the next one
    /// (`serve::sglang_first_token`). Zero by default: the tokens leave at the step's end.
    fn first_token_delay(&self, prefill: (usize, Duration), next: (usize, Duration)) -> Duration {
        let _ = (prefill, next);
        Duration::ZERO
    }
    /// sglttft59: SGLang's overlap scheduler runs the loop (`event_loop_overlap`, no speculative
    /// decoding v1): the serving loop then lets a request that arrives during a step be scheduled
    /// one step later, and runs a decode that left nothing running once more before it
    /// (`serve::sglang_first_token`). False by default.
    fn sglang_overlap(&self) -> bool {
        false
    }
}

/// One busy group's part of a SUM_LEN DP-attention step ([`IterationCosts::dp_sum_len`]):
/// its decoding requests (unpadded: the step runs eager) at context `ctx` (bucketed), and its
/// extend parts, `seqs` sequences of `tokens` tokens in all (bucketed).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct GroupShape {
    pub decode: u32,
    pub ctx: u32,
    pub seqs: u32,
    pub tokens: u32,
}

/// The state blocks a running request of a vLLM hybrid Mamba-2 / Gated DeltaNet model holds in its
/// state groups (issue #18, hybridserve), as vLLM 0.19.0's `MambaManager`
/// (`v1/core/single_type_kv_cache_manager.py`) allocates and frees them:
///
/// - `mamba_cache_mode = "none"` (no prefix caching): the state block size is `max_model_len`
///   (`models/config.py` `MambaModelConfig`: `mamba_block_size = max_model_len`), so
///   `get_num_blocks_to_allocate` asks ⌈(tokens + block × num_speculative_blocks) / block⌉ = 1 +
///   `num_speculative_blocks` blocks per group at the first allocation and none after;
/// - "align" (prefix caching, from 0.15): the first allocation takes 1 + `num_speculative_blocks`
///   ("First prefill. Allocate 1 block for running state and the speculative blocks"); an
///   allocation whose tokens reach a new attention block takes one more ("Old request. Needs at
///   most 1 more blocks"), and `remove_skipped_blocks` frees the block before it at the start of
///   the request's next `allocate_slots` (`last_state_block_idx`), so a running request holds 1 +
///   spec blocks and 2 + spec for the step that crosses a block boundary.
///
/// The blocks come from the same pool as the attention blocks (`HybridKVCacheCoordinator`
/// sums each group's `get_num_blocks_to_allocate` against `BlockPool.get_num_free_blocks`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StateRule {
    /// State groups (`VllmHybridLayout::state_groups`).
    pub groups: u64,
    /// Blocks per group held throughout: 1 + speculative tokens.
    pub base: u64,
    /// "align" mode: the boundary step's extra block.
    pub align: bool,
}

/// The engine-independent state.
#[derive(Debug)]
pub struct Core {
    pub now: u64,
    pub reqs: Vec<Req>,
    free_slots: Vec<u32>,
    pub waiting: VecDeque<u32>,
    pub running: Vec<u32>,
    pub kv: KvPool,
    pub batch: Batch,
    pub preemptions: u64,
    pub page: u64,
    /// Requests finished so far.
    pub finished: u64,
    /// A vLLM hybrid's state blocks per request (None otherwise).
    pub state: Option<StateRule>,
    /// vLLM with prefix caching on (and no hybrid state groups): a preempted request's full
    /// pages stay cached in the free queue ([`KvPool::free_kept`]).
    pub keep_preempted: bool,
    /// Issue #18 (sglretract): SGLang with its radix cache on — a retracted request's prompt (its
    /// last prefill's page-aligned tokens) stays in the tree until evicted
    /// ([`KvPool::free_retracted`]); `bigram`: EAGLE's bigram keys cache one token fewer.
    pub keep_retracted: bool,
    pub bigram: bool,
    /// Prefills completed so far (the radix tree's access order).
    pub prefills: u64,
    /// sglttft59: the first tokens of the last step, (request, arrival, time the client would see
    /// them at the step's end), held until the next step is costed: SGLang's overlap scheduler
    /// streams them after that step's launch ([`IterationCosts::first_token_delay`]).
    held_firsts: Vec<(u32, u64, u64)>,
}

impl Core {
    pub fn new(kv: KvPool) -> Self {
        let page = kv.page;
        Core {
            now: 0,
            reqs: Vec::new(),
            free_slots: Vec::new(),
            waiting: VecDeque::new(),
            running: Vec::new(),
            kv,
            batch: Batch::default(),
            preemptions: 0,
            page,
            finished: 0,
            state: None,
            keep_preempted: false,
            keep_retracted: false,
            bigram: false,
            prefills: 0,
            held_firsts: Vec::new(),
        }
    }

    /// [`Core::new`] holding `rule`'s state blocks per running request (a vLLM hybrid).
    pub fn with_state(kv: KvPool, rule: Option<StateRule>) -> Self {
        let mut c = Core::new(kv);
        c.state = rule;
        c
    }

    fn add(&mut self, spec: &RequestSpec, arrival: u64) -> u32 {
        let r = Req::new(
            arrival,
            spec.prompt,
            spec.output,
            spec.prefix.filter(|p| p.len > 0),
        );
        match self.free_slots.pop() {
            Some(i) => {
                self.reqs[i as usize] = r;
                i
            }
            None => {
                self.reqs.push(r);
                (self.reqs.len() - 1) as u32
            }
        }
    }

    /// Makes sure request `id` owns the pages for `tokens` tokens of KV (its cached prefix aside);
    /// false (nothing taken) when the pool cannot supply them.
    pub fn ensure_pages(&mut self, id: u32, tokens: u64) -> bool {
        let r = self.reqs[id as usize];
        let need = self.kv.pages_for(tokens.saturating_sub(r.prefix_tokens));
        let Some(rule) = self.state else {
            if need <= r.pages {
                return true;
            }
            if !self.kv.alloc(need - r.pages) {
                return false;
            }
            self.reqs[id as usize].pages = need;
            return true;
        };
        // A vLLM hybrid ([`StateRule`]): `remove_skipped_blocks` first frees the last boundary
        // step's extra state blocks once computation moved past it, then one check of the
        // attention and state blocks together against the free blocks.
        if let Some(mark) = r.state_mark
            && r.computed > mark
        {
            self.kv.free(rule.groups);
            let q = &mut self.reqs[id as usize];
            q.state -= rule.groups.min(q.state);
            q.state_mark = None;
        }
        let r = self.reqs[id as usize];
        // The boundary is counted on the state's own block positions (`state_upto`), not on the
        // attention pages, which a speculative decode's trimming lowers again.
        let upto = tokens.div_ceil(self.kv.page);
        let (state_new, mark) = if r.state == 0 {
            (rule.groups * rule.base, None)
        } else if rule.align && upto > r.state_upto && r.state_mark.is_none() {
            (rule.groups, Some(r.computed))
        } else {
            (0, r.state_mark)
        };
        let attn_new = need.saturating_sub(r.pages);
        if attn_new + state_new == 0 {
            let q = &mut self.reqs[id as usize];
            q.state_upto = q.state_upto.max(upto);
            return true;
        }
        if !self.kv.alloc(attn_new + state_new) {
            return false;
        }
        let q = &mut self.reqs[id as usize];
        q.pages = q.pages.max(need);
        q.state += state_new;
        q.state_mark = mark;
        q.state_upto = q.state_upto.max(upto);
        true
    }

    /// Pages request `id` still needs for `tokens` tokens of KV.
    pub fn pages_short(&self, id: u32, tokens: u64) -> u64 {
        let r = &self.reqs[id as usize];
        self.kv
            .pages_for(tokens.saturating_sub(r.prefix_tokens))
            .saturating_sub(r.pages)
    }

    /// Frees request `id`'s KV and its prefix reference, keeping its outputs so far: it must
    /// recompute prompt + outputs when it runs again (SGLang `release_req` + `reset_for_retract`,
    /// vLLM `_preempt_request`, both 'recompute'). With [`Core::keep_preempted`] its pages of
    /// full blocks of computed tokens stay cached ([`KvPool::free_kept`]; vLLM hashes only full
    /// blocks, `cache_full_blocks`). With [`Core::keep_retracted`] the pages of its last prefill's
    /// page-aligned tokens past its shared prefix stay in the radix tree
    /// ([`KvPool::free_retracted`]; SGLang 0.5.8 `RadixCache.cache_finished_req` with
    /// `is_insert=False` frees only `kv_indices[cache_protected_len:]`); its outputs since are
    /// freed.
    pub fn evict_request(&mut self, id: u32) {
        let r = self.reqs[id as usize];
        let tag = if self.keep_retracted && self.state.is_none() {
            // `_page_align_keys` of `fill_ids` (EAGLE: the bigram keys, one fewer).
            let keys = r.fill.min(r.computed).saturating_sub(u64::from(self.bigram));
            let node = (keys / self.page)
                .saturating_sub(r.prefix_tokens / self.page)
                .min(r.pages);
            self.kv
                .free_retracted(node, r.pages - node + r.state, r.fill_stamp)
        } else {
            let full = if self.keep_preempted && self.state.is_none() {
                (r.computed / self.page)
                    .saturating_sub(r.prefix_tokens / self.page)
                    .min(r.pages)
            } else {
                0
            };
            self.kv.free_kept(full, r.pages - full + r.state)
        };
        if let (Some(p), true) = (r.prefix, r.prefix_tokens > 0) {
            self.kv.release_prefix(p.group);
        }
        let r = &mut self.reqs[id as usize];
        r.kept = tag;
        r.kept_after = r.prefix_tokens;
        r.pages = 0;
        r.state = 0;
        r.state_mark = None;
        r.state_upto = 0;
        r.prefix_tokens = 0;
        r.computed = 0;
        r.in_running = false;
        self.preemptions += 1;
    }

    /// The page-aligned cached prefix request `id` can reuse now (0 without one or once computed):
    /// its shared prefix's, then, after a vLLM preemption, what is left of its own kept pages
    /// when the shared part before them still hits (vLLM's hash chain), at most
    /// `target − 1` tokens (`get_computed_blocks`: `max_cache_hit_length = num_tokens − 1`).
    pub fn peek_prefix(&self, id: u32, keep_last: bool) -> u64 {
        let r = &self.reqs[id as usize];
        let group = self.peek_group(id, keep_last);
        if r.kept == 0 || r.computed != 0 || group != r.kept_after {
            return group;
        }
        let cap = (r.target() - 1) / self.page * self.page;
        (group + self.kv.kept_pages(r.kept) * self.page).min(cap.max(group))
    }

    fn peek_group(&self, id: u32, keep_last: bool) -> u64 {
        let r = &self.reqs[id as usize];
        match r.prefix {
            // Issue #18 (prefillmix): a prompt of an earlier run is cached from the start, unless
            // the pool cannot hold it next to what is running (then it is computed, and cached).
            Some(p) if r.computed == 0 && p.warm && self.kv.cached_pages(p.group) == 0 => {
                let hit = self.kv.aligned_hit(p.len, r.prompt, keep_last);
                if self.kv.pages_for(hit) <= self.kv.free_or_evictable_pages() {
                    hit
                } else {
                    0
                }
            }
            Some(p) if r.computed == 0 => self.kv.peek_prefix(p.group, p.len, r.prompt, keep_last),
            _ => 0,
        }
    }

    /// Whether request `id` (preempted, with kept pages) taking the `hit` tokens of
    /// [`Core::peek_prefix`] would find the pages for `tokens` tokens: vLLM `allocate_slots`
    /// counts the hit blocks still in the free queue against the free blocks too
    /// (`get_num_blocks_to_allocate`), so the check is the whole request's, asked before anything
    /// is taken (a failed admission leaves the kept pages where they are in the queue).
    pub fn kept_fits(&self, id: u32, hit: u64, tokens: u64) -> bool {
        let r = &self.reqs[id as usize];
        let group = if hit > r.kept_after { r.kept_after } else { hit };
        let lock = match r.prefix {
            Some(p) if group > 0 => self.kv.lock_cost(p.group, group),
            _ => 0,
        };
        self.kv.pages_for(tokens.saturating_sub(group)) + lock <= self.kv.free_or_evictable_pages()
    }

    /// Takes the cached prefix `hit` tokens for request `id` (computed from the cache): its
    /// shared prefix's part, then its kept pages' (which it owns again); kept pages it does not
    /// hit stay free and can no longer hit.
    pub fn take_prefix(&mut self, id: u32, hit: u64) {
        let r = self.reqs[id as usize];
        let own = if r.kept != 0 && hit > r.kept_after {
            hit - r.kept_after
        } else {
            0
        };
        if r.kept != 0 {
            let pages = if own > 0 {
                self.kv.retake(r.kept)
            } else {
                self.kv.forget(r.kept);
                0
            };
            let q = &mut self.reqs[id as usize];
            q.kept = 0;
            q.pages = pages;
            q.computed = own;
        }
        let group = hit - own;
        if group == 0 {
            return;
        }
        if let Some(p) = r.prefix {
            if p.warm && self.kv.cached_pages(p.group) == 0 {
                // `peek_prefix` checked that free and evictable pages hold it.
                let inserted = self.kv.insert_warm(p.group, group);
                debug_assert!(inserted, "a warm prefix found room in peek_prefix");
            }
            self.kv.lock_prefix(p.group);
            let q = &mut self.reqs[id as usize];
            q.prefix_tokens = group;
            q.computed = hit;
        }
    }
}

/// The scheduler of one engine (of one DP-attention group under SGLang's DP attention).
pub trait Scheduler {
    /// Fills `core.batch` with the next iteration; false when there is nothing to run now.
    fn schedule(&mut self, core: &mut Core) -> bool;
    /// Whether the iteration's extend parts run in the same forward as its decodes.
    fn mixed(&self) -> bool;
    /// Under DP attention: whether a prefill in any group keeps every other group from decoding
    /// that iteration (SGLang with speculation, see [`run`]). False by default.
    fn prefill_first(&self) -> bool {
        false
    }
    /// The prefill half of [`Scheduler::schedule`]: a prefill batch if one forms (used when
    /// [`Scheduler::prefill_first`]).
    fn schedule_prefill(&mut self, core: &mut Core) -> bool {
        self.schedule(core)
    }
    /// The decode half of [`Scheduler::schedule`] (used when [`Scheduler::prefill_first`]).
    fn schedule_decode(&mut self, _core: &mut Core) -> bool {
        false
    }
}

/// One scheduler with its state: the engine, or one attention-DP group of SGLang's DP attention
/// (its own KV pool, queues and `max_running_requests` share).
#[derive(Debug)]
pub struct Group<S> {
    pub core: Core,
    pub sched: S,
}
/// What the event loop measured.
#[derive(Debug, Clone, Default)]
pub struct Measured {
    pub decode_iterations: u64,
    pub prefill_iterations: u64,
    pub decode_time: u64,
    pub prefill_time: u64,
    pub end: u64,
    pub output_tokens: u64,
    pub decode_tokens: u64,
    pub request_iterations: u64,
    pub finished: u64,
    pub rejected: u64,
    pub first_rejection: Option<String>,
    pub preemptions: u64,
    pub overloaded: bool,
    /// Highest fraction of all the groups' KV pools together in use after an iteration.
    pub peak_kv_utilisation: f64,
    /// Highest fraction of one group's KV pool in use after an iteration, over the groups (issue
    /// #18 leftover dpsched2: a group filling up while the others are empty); equals
    /// `peak_kv_utilisation` with one group.
    pub peak_group_kv_utilisation: f64,
    /// Most requests running / waiting at once, summed over the groups.
    pub peak_running: u32,
    pub peak_waiting: u32,
    /// Requests whose output SGLang clipped to fit one group's pool (`init_req_max_new_tokens`).
    pub clipped_outputs: u64,
    /// Schedulers stepped in lock-step (SGLang's DP-attention groups; 1 otherwise).
    pub groups: u32,
    pub ttft: Histogram,
    pub itl: Histogram,
    /// Time per accepted token of each request-iteration (the old `tpot_samples`).
    pub token_time: Histogram,
    pub request_tpot: Histogram,
    pub e2e: Histogram,
    pub series: Series,
    /// Finished requests and those meeting every `[slo]` objective (zero without `[slo]`).
    pub goodput: crate::slo::GoodputCounter,
    /// How many iterations ran each cost shape (by the id [`IterationCosts`] gave).
    pub shape_runs: Vec<u64>,
    /// The API-server front end's figures (issue #18, frontend; zero when off).
    pub frontend: super::frontend::Stats,
    /// SGLang's detokenizer process (issue #18, kimitok54; zero when off).
    pub detok: super::detok::Stats,
}

/// Everything the event loop needs besides the engine (closures: no Debug).
#[allow(missing_debug_implementations)]
pub struct Inputs<'a, I: Iterator<Item = RequestSpec>> {
    pub stream: I,
    pub num_requests: u32,
    pub concurrency: u32,
    /// The engine's refusal of a request (prompt, output), if it refuses it.
    pub refuse: &'a dyn Fn(u32, u32) -> Option<String>,
    /// Accepted tokens of one speculative cycle, or None without speculation.
    pub draw: Option<&'a mut dyn FnMut() -> u32>,
    /// CUDA graph batch sizes (empty: every batch as it is).
    pub graphs: &'a [u32],
    /// The context bucket of decode shapes.
    pub bucket: u32,
    /// The scenario's `[slo]`: each finished request is counted good or not (goodput).
    pub slo: Option<&'a crate::slo::Slo>,
    /// The API-server front end's costs (issue #18, frontend; `None`: off).
    pub frontend: Option<super::frontend::Costs>,
    /// SGLang's detokenizer process (issue #18, kimitok54; `None`: not modelled).
    pub detok: Option<super::detok::Costs>,
    /// sglfront60: a request enters its scheduler's waiting queue this long after the client sends
    /// it (SGLang's request path outside the scheduler, `serve::sglang_front`; zero: at once).
    pub request_path: Duration,
    /// vllmttft61: the request path's part per prompt token (vLLM's tokenization,
    /// `serve::vllm_front`; zero: none).
    pub request_path_per_prompt_token: Duration,
    /// SGLang's `max_req_len` of one scheduler (min(context_len − 1, its pool's tokens − 1)): a
    /// request's output is clipped to `max_req_len − prompt − 1` when it reaches a group (None:
    /// vLLM, which does not clip).
    pub max_req_len: Option<u64>,
}

/// Cost of an iteration whose extend part is `seqs` sequences of `tokens` tokens in all (issue #18
/// fidelity, tests/data/prefill.tsv line 5), `cost(t)` giving the simulated shape with `t` extend
/// tokens. The engine computes exactly the scheduled tokens, so the cost is interpolated linearly
/// between the shapes of the bucket boundaries below and above (`bucket` tokens apart; an extend
/// forward is close to linear in its tokens over one bucket), not rounded up to the upper one: 200
/// tokens cost as 200, not as 256 (+28 %). Shapes stay cached per bucket. Below one bucket, or when
/// the lower boundary has fewer tokens than sequences, the exact token count is simulated. The shape
/// index returned is the upper boundary's. Used for prefills and for vLLM's / SGLang's mixed
/// iterations (decodes with prefill chunks) alike.
fn extend_cost(
    seqs: u32,
    tokens: u64,
    bucket: u32,
    cost: &mut dyn FnMut(u32) -> Result<(usize, Duration), DecodeError>,
) -> Result<(usize, Duration), DecodeError> {
    let t = tokens.min(u64::from(u32::MAX / 2)) as u32;
    let bucket = bucket.max(1);
    let hi = t.div_ceil(bucket).max(1) * bucket;
    let lo = hi - bucket;
    if hi == t {
        return cost(hi);
    }
    if lo == 0 || lo < seqs {
        return cost(t.max(1));
    }
    let (shape, t_hi) = cost(hi)?;
    let (_, t_lo) = cost(lo)?;
    // Integer picoseconds: lo + (hi − lo) × (t − lo) ÷ bucket, rounded down (deterministic).
    let (a, b) = (i128::from(t_lo.as_ps()), i128::from(t_hi.as_ps()));
    let ps = a + (b - a) * i128::from(t - lo) / i128::from(bucket);
    Ok((shape, Duration::from_ps(ps.max(0) as u64)))
}

/// The shape of one lock-step iteration over the groups, before CUDA-graph padding.
struct Step {
    /// Decoding requests of the busiest group.
    decode: u32,
    /// The longest decode context over all groups, bucketed.
    ctx: u32,
    /// Extend (prefill) parts and tokens of the busiest group (tokens bucketed).
    seqs: u32,
    ext_tokens: u32,
    /// The busiest group's extend tokens, exact (a lone group's prefill is costed on them).
    ext_raw: u64,
    /// A lone group's extend parts' cached prefix (tokens computed before this iteration), weighted
    /// by their tokens and bucketed; 0 when no part has one. Costed on pure prefill iterations and
    /// (vllmchunk59) on a lone group's mixed steps, not yet in DP-attention steps.
    ext_prefix: u32,
    /// The token bucket of the shapes.
    bucket: u32,
    /// Under DP attention: each busy group's own shape, largest first (empty with one group).
    groups: Vec<GroupShape>,
}

/// `v` rounded up to the context bucket `bucket` (at least one bucket).
fn bucketed(v: u64, bucket: u32) -> u32 {
    (v.min(u64::from(u32::MAX / 2)) as u32).div_ceil(bucket).max(1) * bucket
}

impl Step {
    fn of<S>(groups: &[Group<S>], bucket: u32) -> Step {
        let (mut decode, mut ctx, mut seqs, mut ext) = (0u32, 0u64, 0u32, 0u64);
        let mut shapes = Vec::new();
        // Σ tokens × prefix over the lone group's extend parts (their attention over cached tokens).
        let mut prefix_work = 0u128;
        for g in groups {
            let (c, b) = (&g.core, &g.core.batch);
            let e: u64 = b.extend.iter().map(|e| e.1).sum();
            if groups.len() == 1 {
                for &(id, t) in &b.extend {
                    prefix_work += u128::from(t) * u128::from(c.reqs[id as usize].computed);
                }
            }
            let mut gctx = 0u64;
            for &id in &b.decode {
                gctx = gctx.max(c.reqs[id as usize].computed + 1);
            }
            decode = decode.max(b.decode.len() as u32);
            seqs = seqs.max(b.extend.len() as u32);
            ext = ext.max(e);
            ctx = ctx.max(gctx);
            if groups.len() > 1 && (!b.decode.is_empty() || !b.extend.is_empty()) {
                shapes.push(GroupShape {
                    decode: b.decode.len() as u32,
                    ctx: if b.decode.is_empty() {
                        0
                    } else {
                        bucketed(gctx, bucket)
                    },
                    seqs: b.extend.len() as u32,
                    tokens: if b.extend.is_empty() {
                        0
                    } else {
                        bucketed(e, bucket)
                    },
                });
            }
        }
        shapes.sort_unstable_by(|a, b| b.cmp(a));
        Step {
            decode,
            ctx: bucketed(ctx, bucket),
            seqs,
            ext_tokens: bucketed(ext, bucket),
            ext_raw: ext,
            ext_prefix: match (prefix_work / u128::from(ext.max(1))) as u64 {
                0 => 0,
                p => bucketed(p, bucket),
            },
            bucket,
            groups: shapes,
        }
    }
}

/// Costs the iteration `st` of `groups` groups: (shape id, makespan).
///
/// One group: the batch as it is. Several (SGLang's DP attention): the groups run one forward in
/// lock-step, every MoE/MLP layer gathering all groups' tokens (SGLang 0.5.9
/// `scheduler_dp_attn_mixin.py` `prepare_mlp_sync_batch_raw`: a group with nothing to run gets an
/// idle batch when any group has tokens; `can_cuda_graph` is the minimum over groups, only decode or
/// idle batches replaying a graph; `is_extend_in_batch` the maximum). The gather mode follows
/// `dp_attention.py` `DpPaddingMode`:
/// - some group extends (a prefill, or a prefill in one group and decodes in another): SUM_LEN,
///   each group's attention on its own shape and the MLP/MoE on the summed tokens, eager
///   ([`IterationCosts::dp_sum_len`], issue #18 leftover dpsched2);
/// - every group decodes or idles and a CUDA graph replays: MAX_LEN
///   (`get_default_mode_in_cuda_graph`), every group padded to the busiest group's graph batch —
///   a decode of `groups ×` that batch (the pass builder's MAX_LEN lowering,
///   `passes::dp_attention`);
/// - every group decodes or idles, eager (graphs off, or the busiest group above the largest
///   graph): `get_dp_padding_mode` picks SUM_LEN when Σ tokens × 2 ≤ max × dp (uneven groups, as
///   [`IterationCosts::dp_sum_len`]), MAX_LEN otherwise (`groups ×` the busiest group's batch).
///   Tokens are the groups' decode counts, before SGLang aligns each to a multiple of attn_tp
///   (`forward_batch_info.py` `ceil_align`; exact at attn_tp 1). With speculation (a verify of
///   several tokens a request, [`Scheduler::prefill_first`]) decodes are costed MAX_LEN.
fn cost_step<S: Scheduler>(
    groups: &[Group<S>],
    st: &Step,
    graphs: &[u32],
    costs: &mut dyn IterationCosts,
) -> Result<Option<(usize, Duration)>, DecodeError> {
    let n = groups.len() as u32;
    let mixed = groups[0].sched.mixed();
    let (dec, ext) = (st.decode > 0, st.seqs > 0);
    let r = if n == 1 {
        let (batch, eager) = super::graphs::padded(graphs, st.decode);
        match (dec, ext) {
            (true, false) => costs.decode(batch, st.ctx, eager)?,
            (false, true) => extend_cost(st.seqs, st.ext_raw, st.bucket, &mut |t| {
                costs.prefill_after(st.seqs, t, st.ext_prefix)
            })?,
            (true, true) if mixed => extend_cost(st.seqs, st.ext_raw, st.bucket, &mut |t| {
                costs.mixed(batch, st.ctx, eager, (st.seqs, t, st.ext_prefix))
            })?,
            (true, true) => {
                // Not reached: SGLang without mixed chunk never schedules both.
                let (a, t1) = costs.decode(batch, st.ctx, eager)?;
                let (_, t2) = costs.prefill(st.seqs, st.ext_tokens)?;
                (a, t1 + t2)
            }
            (false, false) => return Ok(None),
        }
    } else {
        let x = |v: u32| v.saturating_mul(n);
        match (dec, ext) {
            (true, false) => {
                let (batch, eager) = super::graphs::padded(graphs, st.decode);
                let replays = !graphs.is_empty() && !eager;
                let sum: u64 = st.groups.iter().map(|g| u64::from(g.decode)).sum();
                let uneven = sum * 2 <= u64::from(st.decode) * u64::from(n);
                if !replays && uneven && !groups[0].sched.prefill_first() {
                    costs.dp_sum_len(&st.groups)?
                } else {
                    costs.decode(x(batch), st.ctx, eager)?
                }
            }
            (_, true) => costs.dp_sum_len(&st.groups)?,
            (false, false) => return Ok(None),
        }
    };
    Ok(Some(r))
}

/// Runs the serving loop to the last request over `groups` (one without DP attention).
///
/// Under SGLang's DP attention each group is a scheduler of its own (SGLang 0.5.9: one `Scheduler`
/// per attention-DP rank, `data_parallel_controller.py` `launch_dp_attention_schedulers`): the
/// controller sends the requests it receives to the groups in turn (`round_robin_scheduler`, the
/// default `load_balance_method` "auto" resolving to round_robin outside PD disaggregation,
/// `server_args.py` `_handle_load_balance_method`), each group admits against its own KV pool and
/// `max_running_requests` share and chooses prefill or decode by itself (`get_next_batch_to_run`),
/// and the groups step together (costed by `cost_step`). With speculation SGLang syncs the
/// groups' prefill batches first (`get_next_batch_to_run`: "prefill and decode batches will not
/// be mixed when spec and dp-attn is enabled"): when any group prefills, the others run idle.
pub fn run<I: Iterator<Item = RequestSpec>, S: Scheduler>(
    groups: &mut [Group<S>],
    costs: &mut dyn IterationCosts,
    mut inp: Inputs<'_, I>,
) -> Result<Measured, DecodeError> {
    assert!(!groups.is_empty(), "the serving loop needs a scheduler");
    let mut m = Measured {
        groups: groups.len().min(u32::MAX as usize) as u32,
        ..Measured::default()
    };
    let mut now = groups[0].core.now;
    let mut pending: Option<RequestSpec> = None;
    let mut sent = 0u32;
    let mut in_flight = 0u32;
    let n = inp.num_requests;
    let mut q_mid: Option<usize> = None;
    let mut q_last: Option<usize> = None;
    // The controller's round-robin counter (advanced by each request it dispatches).
    let mut next_group = 0usize;
    // Open loop under a concurrency cap (bench_serving's `--max-concurrency`): a request whose
    // time has come but finds every slot taken waits on the client side and is sent when a slot
    // frees (at the end of an iteration); its lateness (sent − arrival) measures that backlog.
    let mut blocked = false;
    let mut late_mid: Option<u64> = None;
    let mut late_last: Option<(u64, u64)> = None;
    let mut got_buf: Vec<u32> = Vec::new();
    let waiting = |gs: &[Group<S>]| gs.iter().map(|g| g.core.waiting.len()).sum::<usize>();
    // Issue #18 (frontend): the API servers, the requests in them (ready time, sequence, group,
    // id: they enter the waiting queue in that order), and the last step's outputs not yet handed
    // to them.
    let mut fe = inp.frontend.filter(|c| c.active()).map(Frontend::new);
    let mut in_frontend: BinaryHeap<Reverse<(u64, u64, usize, u32)>> = BinaryHeap::new();
    // sglfront60: SGLang's request path (ps), through the same heap without a server.
    let path = inp.request_path.as_ps();
    // vllmttft61: and per prompt token (vLLM's tokenization).
    let path_per_token = inp.request_path_per_prompt_token.as_ps();
    let mut fe_seq = 0u64;
    let mut outs = Outputs {
        tokens: vec![0; fe.as_ref().map_or(0, Frontend::servers)],
        ..Outputs::default()
    };
    // Issue #18 (kimitok54): SGLang's detokenizer, and the client slots it frees later than the
    // engine finishes their requests (when, how many).
    let mut detok = inp.detok.map(super::detok::Detokenizer::new);
    let mut releases: BinaryHeap<Reverse<(u64, u32)>> = BinaryHeap::new();
    // sglttft59: the last step costed (shape id, time), for the first tokens it holds.
    let mut last_step: Option<(usize, Duration)> = None;
    // sglttft59: SGLang's overlap scheduler decides step K + 1 when step K starts
    // (`serve::sglang_first_token`): a request that arrives while a step runs (`stepped`: this
    // round follows a step) is seen one step later (`held`, with its group); after a decode that
    // left nothing running the GPU runs that decode once more (`tail`, its time) before anything
    // that arrived meanwhile (`hold_until`).
    let overlap = costs.sglang_overlap();
    let mut stepped = false;
    let mut tail: Option<u64> = None;
    let mut hold_until = 0u64;
    let mut held: Vec<(usize, u32)> = Vec::new();
    loop {
        while let Some(&Reverse((t, k))) = releases.peek()
            && t <= now
        {
            releases.pop();
            in_flight -= k;
        }
        // Arrivals up to now: closed-loop requests while a client slot is free, open-loop ones whose
        // time has come.
        loop {
            if pending.is_none() {
                pending = inp.stream.next();
            }
            let Some(spec) = pending else { break };
            let at = match spec.arrival {
                None if in_flight < inp.concurrency => now,
                None => break,
                Some(t) if t.as_ps() <= now && in_flight < inp.concurrency => {
                    if blocked {
                        now
                    } else {
                        t.as_ps()
                    }
                }
                Some(t) if t.as_ps() <= now => {
                    blocked = true;
                    break;
                }
                Some(_) => break,
            };
            pending = None;
            blocked = false;
            sent += 1;
            // The last step's outputs reached the API servers before a request sent at or after
            // their time (FIFO per server in time).
            if let Some(f) = fe.as_mut()
                && outs.at <= at
            {
                outs.flush(f, &mut m.ttft);
            }
            if spec.arrival.is_some() {
                let t = spec.arrival.map_or(0, |t| t.as_ps());
                if sent == n.div_ceil(2) {
                    q_mid = Some(waiting(groups));
                    late_mid = Some(at - t);
                }
                if sent == n {
                    q_last = Some(waiting(groups));
                    late_last = Some((at - t, t));
                }
            }
            if let Some(msg) = (inp.refuse)(spec.prompt, spec.output) {
                m.rejected += 1;
                m.first_rejection.get_or_insert(msg);
                continue;
            }
            in_flight += 1;
            let to = next_group;
            next_group = (next_group + 1) % groups.len();
            let mut spec = spec;
            // SGLang 0.5.9 `scheduler.py` `init_req_max_new_tokens`: max_new_tokens = min(asked,
            // max_req_len − input − 1), silently (the request ends with finish reason "length").
            // The prompt passed `validate_input_length` (< max_req_len − 5), so at least 5 remain:
            // every request fits its group's empty pool.
            if let Some(l) = inp.max_req_len {
                let cap = l.saturating_sub(u64::from(spec.prompt) + 1).max(1);
                if u64::from(spec.output) > cap {
                    spec.output = cap as u32;
                    m.clipped_outputs += 1;
                }
            }
            let core = &mut groups[to].core;
            let id = core.add(&spec, at);
            // sglfront60 / vllmttft61: the request path, a latency (no server) before the queue.
            let path = path.saturating_add(path_per_token.saturating_mul(u64::from(spec.prompt)));
            match fe.as_mut() {
                None if path > 0 => {
                    in_frontend.push(Reverse((at + path, fe_seq, to, id)));
                    fe_seq += 1;
                }
                None if overlap && (stepped || now < hold_until) => held.push((to, id)),
                None => core.waiting.push_back(id),
                Some(f) => {
                    let server = f.assign();
                    core.reqs[id as usize].server = server;
                    // vllmttft61: the request path's latency follows the server's job.
                    let ready = f.input(server, at, spec.prompt).saturating_add(path);
                    in_frontend.push(Reverse((ready, fe_seq, to, id)));
                    fe_seq += 1;
                }
            }
        }
        if let Some(f) = fe.as_mut() {
            outs.flush(f, &mut m.ttft);
        }
        // Requests whose front-end work is done by now enter their scheduler's waiting queue.
        while let Some(&Reverse((ready, _, to, id))) = in_frontend.peek()
            && ready <= now
        {
            in_frontend.pop();
            // sglfront60: one that reached SGLang's scheduler while a step ran is seen a step
            // later, as an arrival is (sglttft59).
            if overlap && (stepped || now < hold_until) {
                held.push((to, id));
            } else {
                groups[to].core.waiting.push_back(id);
            }
        }
        if !stepped && now >= hold_until {
            release_held(groups, &mut held);
        }
        let mut any = false;
        for g in groups.iter_mut() {
            g.core.now = now;
            g.core.batch.extend.clear();
            g.core.batch.decode.clear();
        }
        if groups.len() > 1 && groups[0].sched.prefill_first() {
            for g in groups.iter_mut() {
                any |= g.sched.schedule_prefill(&mut g.core);
            }
            if !any {
                for g in groups.iter_mut() {
                    any |= g.sched.schedule_decode(&mut g.core);
                }
            }
        } else {
            for g in groups.iter_mut() {
                any |= g.sched.schedule(&mut g.core);
            }
        }
        if !any {
            // sglttft59: nothing is launched next, so the last step's result is processed at once.
            for g in groups.iter_mut() {
                flush_firsts(&mut g.core, &mut m.ttft, 0);
            }
            last_step = None;
            if overlap && stepped {
                hold_until = now + tail.take().unwrap_or(0);
                stepped = false;
            }
            if !held.is_empty() {
                // Wait for the GPU (the wasted decode), taking any arrival before it as held.
                if now < hold_until {
                    let next = match pending {
                        Some(RequestSpec { arrival: Some(t), .. }) if t.as_ps() > now => t.as_ps(),
                        _ => u64::MAX,
                    };
                    let freed = releases.peek().map_or(u64::MAX, |r| r.0.0);
                    now = hold_until.min(next).min(freed);
                }
                continue;
            }
            // Idle: jump to the next open-loop arrival or the next request out of the front end.
            let arrival = match pending {
                Some(RequestSpec { arrival: Some(t), .. }) if t.as_ps() > now => Some(t.as_ps()),
                _ => None,
            };
            let ready = in_frontend.peek().map(|r| r.0.0);
            let freed = releases.peek().map(|r| r.0.0);
            if let Some(t) = arrival.into_iter().chain(ready).chain(freed).min() {
                now = t;
                continue;
            }
            if let Some(g) = groups.iter_mut().find(|g| !g.core.waiting.is_empty()) {
                // Nothing runs and the head of the queue can never be admitted: the engine would
                // stall; tpsim counts it refused and moves on.
                if refuse_head(&mut g.core, &mut m) {
                    in_flight -= 1;
                }
                continue;
            }
            break;
        }
        if groups.len() > 1 {
            // Under DP attention a group whose pool is empty yet admits nothing is stuck on the
            // head of its own queue, whatever the other groups run: refused now, not once every
            // group idles. With SGLang's output clipping (at dispatch above) only page rounding
            // or a locked prefix can bring it here.
            for g in groups.iter_mut() {
                let c = &g.core;
                if c.running.is_empty()
                    && c.batch.extend.is_empty()
                    && c.batch.decode.is_empty()
                    && c.kv.utilisation() == 0.0
                    && refuse_head(&mut g.core, &mut m)
                {
                    in_flight -= 1;
                }
            }
        }
        // Cost the iteration.
        let st = Step::of(groups, inp.bucket);
        let Some((shape, dt)) = cost_step(groups, &st, inp.graphs, costs)? else {
            break;
        };
        // sglttft59: the last step's first tokens reach the client once this step is launched.
        if let Some(prev) = last_step.replace((shape, dt)) {
            let delay = costs.first_token_delay(prev, (shape, dt)).as_ps();
            for g in groups.iter_mut() {
                flush_firsts(&mut g.core, &mut m.ttft, delay);
            }
        }
        if m.shape_runs.len() <= shape {
            m.shape_runs.resize(shape + 1, 0);
        }
        m.shape_runs[shape] += 1;
        now += dt.as_ps();
        stepped = true;
        tail = (st.decode > 0).then_some(dt.as_ps());
        if st.decode == 0 {
            m.prefill_iterations += 1;
            m.prefill_time += dt.as_ps();
        } else {
            m.decode_iterations += 1;
            m.decode_time += dt.as_ps();
        }
        outs.at = now;
        // Issue #18 (kimitok54): the step's detokenizer job; the client sees its tokens at its end.
        let client_at = match detok.as_mut() {
            Some(d) => {
                let c = d.costs;
                let cost = groups
                    .iter()
                    .flat_map(|g| detok_counts(&g.core))
                    .fold(0u64, |a, n| a.saturating_add(c.request_ps(n)));
                d.job(now, cost)
            }
            None => now,
        };
        for g in groups.iter_mut() {
            g.core.now = now;
            let o = fe.as_ref().map(|_| &mut outs);
            let done = apply(
                &mut g.core,
                &mut m,
                &mut inp.draw,
                inp.slo,
                &mut got_buf,
                o,
                client_at,
            );
            if client_at > now && done > 0 {
                releases.push(Reverse((client_at, done)));
            } else {
                in_flight -= done;
            }
        }
        let (mut used, mut total, mut running, mut queued, mut preempted) = (0u64, 0u64, 0u32, 0u32, 0u64);
        for g in groups.iter() {
            let kv = &g.core.kv;
            let u = kv.total_pages - kv.free_or_evictable_pages();
            if kv.total_pages > 0 {
                m.peak_group_kv_utilisation =
                    m.peak_group_kv_utilisation.max(u as f64 / kv.total_pages as f64);
            }
            used += u;
            total += kv.total_pages;
            running += g.core.running.len() as u32;
            queued += g.core.waiting.len() as u32;
            preempted += g.core.preemptions;
        }
        // The groups' pools together (one group: `KvPool::utilisation`).
        let util = if total == 0 {
            0.0
        } else {
            used as f64 / total as f64
        };
        m.peak_kv_utilisation = m.peak_kv_utilisation.max(util);
        m.peak_running = m.peak_running.max(running);
        m.peak_waiting = m.peak_waiting.max(queued);
        m.series.offer(SeriesPoint {
            t_ms: now as f64 / 1e9,
            running,
            waiting: queued,
            kv_utilisation: util,
            preemptions: preempted,
        });
        // sglttft59: what arrived before this step was launched is seen by the next decision.
        release_held(groups, &mut held);
    }
    for g in groups.iter_mut() {
        g.core.now = now;
        flush_firsts(&mut g.core, &mut m.ttft, 0);
    }
    m.end = now;
    if let Some(d) = detok {
        // The run ends when the client has its last token.
        m.end = m.end.max(d.stats.last_end_ps);
        m.detok = d.stats;
    }
    if let Some(f) = fe.as_mut() {
        outs.flush(f, &mut m.ttft);
        m.frontend = f.stats.clone();
    }
    m.output_tokens += m.decode_tokens;
    m.preemptions = groups.iter().map(|g| g.core.preemptions).sum();
    // Overloaded (open loop): requests waiting when the last one arrived exceed twice those waiting
    // when the middle one arrived, and 1 % of all requests (at least one): the queue grew over the
    // run instead of settling.
    if let (Some(mid), Some(last)) = (q_mid, q_last) {
        m.overloaded = last > 2 * mid && last as u64 >= (u64::from(n) / 100).max(1);
    }
    // The same rule on the client-side backlog under a concurrency cap: the last request was sent
    // more than twice as late as the middle one, and later than 1 % of the arrival span.
    if let (Some(mid), Some((last, t_last))) = (late_mid, late_last) {
        m.overloaded |= last > 2 * mid && last > t_last / 100;
    }
    Ok(m)
}

/// sglttft59: requests held from the scheduler by SGLang's overlap loop enter their groups'
/// waiting queues, in arrival order.
fn release_held<S>(groups: &mut [Group<S>], held: &mut Vec<(usize, u32)>) {
    for (g, id) in held.drain(..) {
        groups[g].core.waiting.push_back(id);
    }
}

/// sglttft59: records the first tokens `core` holds from the last step `delay` ps after the client
/// would have seen them at that step's end, moving each still-running request's first-token time
/// with them (its TPOT and goodput are taken from it).
fn flush_firsts(core: &mut Core, ttft: &mut Histogram, delay: u64) {
    let Core {
        held_firsts, reqs, ..
    } = core;
    for (id, arrival, at) in held_firsts.drain(..) {
        let t = at.saturating_add(delay);
        ttft.record(Duration::from_ps(t - arrival));
        let r = &mut reqs[id as usize];
        if r.arrival == arrival && r.first_at == Some(at) {
            r.first_at = Some(t);
        }
    }
}

/// Refuses the head of `core`'s waiting queue, which can never be admitted (its prompt and reserved
/// output exceed what the whole pool offers); false when the queue is empty.
fn refuse_head(core: &mut Core, m: &mut Measured) -> bool {
    let Some(id) = core.waiting.pop_front() else {
        return false;
    };
    let r = core.reqs[id as usize];
    m.rejected += 1;
    m.first_rejection.get_or_insert(format!(
        "never scheduled: prompt {} + output {} tokens do not fit the KV pool ({} tokens) \
         beside the scheduler's reservation",
        r.prompt,
        r.output,
        core.kv.total_pages * core.page
    ));
    core.free_slots.push(id);
    true
}

/// Records `k` decode samples of inter-token gap `gap` and per-token time `per_token` (ps) in the
/// ITL and token-time histograms ([`apply`]'s runs of equal samples).
#[inline]
fn record_run(m: &mut Measured, run: Option<(u64, u64, u64)>) {
    if let Some((gap, per_token, k)) = run {
        m.itl.record_n(Duration::from_ps(gap), k);
        m.token_time.record_n(Duration::from_ps(per_token), k);
    }
}

/// Applies what one group's iteration produced at `core.now`: tokens to its decodes and extends,
/// speculative reservations trimmed, finished requests released. Returns the requests finished.
fn apply(
    core: &mut Core,
    m: &mut Measured,
    draw: &mut Option<&mut dyn FnMut() -> u32>,
    slo: Option<&crate::slo::Slo>,
    got_buf: &mut Vec<u32>,
    mut out: Option<&mut Outputs>,
    client_at: u64,
) -> u32 {
    let now = core.now;
    // Decodes: each request gets its accepted tokens.
    got_buf.clear();
    for _ in 0..core.batch.decode.len() {
        got_buf.push(match draw.as_mut() {
            Some(d) => d(),
            None => 1,
        });
    }
    let mut finished_any = false;
    // speed64: the requests of one decode mostly share their gap (all decoded at the last step), so
    // equal (gap, per-token time) samples are counted in a run and recorded once with their count:
    // a histogram keeps only counts and exact sums, so the result is that of recording each.
    let mut run: Option<(u64, u64, u64)> = None;
    for (i, &g) in got_buf.iter().enumerate() {
        let id = core.batch.decode[i];
        let r = &mut core.reqs[id as usize];
        let got = g.min(r.output - r.produced).max(1);
        if let Some(o) = out.as_mut() {
            o.tokens[r.server as usize] += u64::from(got);
        }
        r.computed += u64::from(got);
        r.produced += got;
        m.decode_tokens += u64::from(got);
        m.request_iterations += 1;
        let gap = now - r.last_at;
        let per_token = gap / u64::from(got);
        run = match run {
            Some((g0, t0, k)) if g0 == gap && t0 == per_token => Some((g0, t0, k + 1)),
            prev => {
                record_run(m, prev);
                Some((gap, per_token, 1))
            }
        };
        r.last_at = now;
        if r.produced >= r.output {
            finished_any = true;
        }
    }
    record_run(m, run);
    // Extends: a request whose every known token is now computed samples one.
    for i in 0..core.batch.extend.len() {
        let (id, tokens) = core.batch.extend[i];
        let r = &mut core.reqs[id as usize];
        r.computed += tokens;
        if let Some(p) = r.prefix
            && r.prefix_tokens == 0
            && r.computed >= u64::from(p.len.min(r.prompt))
        {
            let moved = core.kv.insert_prefix(p.group, p.len.min(r.prompt), r.computed);
            let r = &mut core.reqs[id as usize];
            r.pages -= moved.min(r.pages);
            r.prefix_tokens = core.kv.tokens_of(moved);
        }
        core.prefills += 1;
        let stamp = core.prefills;
        let r = &mut core.reqs[id as usize];
        if r.computed >= r.target() {
            // The prefill is done: SGLang's `cache_unfinished_req` inserts its `fill_ids`.
            (r.fill, r.fill_stamp) = (r.target(), stamp);
            r.produced += 1;
            m.output_tokens += 1;
            if let Some(o) = out.as_mut() {
                o.tokens[r.server as usize] += 1;
            }
            let mut held = None;
            match r.first_at {
                // With a front end the client sees it when its chunk is processed (`Outputs::flush`).
                // Issue #18 (kimitok54): with SGLang's detokenizer modelled, when its job ends.
                // sglttft59: without one, held until the next step is costed (`flush_firsts`).
                None => {
                    r.first_at = Some(client_at);
                    match out.as_mut() {
                        Some(o) => o.firsts.push((r.server, r.arrival, now)),
                        None => held = Some((id, r.arrival, client_at)),
                    }
                }
                Some(_) => m.itl.record(Duration::from_ps(now - r.last_at)),
            }
            r.last_at = now;
            if r.produced >= r.output {
                finished_any = true;
            }
            core.held_firsts.extend(held);
            let r = &mut core.reqs[id as usize];
            if !r.in_running {
                r.in_running = true;
                core.running.push(id);
            }
        }
    }
    // Trim speculative reservations to what was kept, and finish requests.
    for i in 0..core.batch.decode.len() {
        let id = core.batch.decode[i];
        let r = core.reqs[id as usize];
        let keep = core.kv.pages_for(r.computed.saturating_sub(r.prefix_tokens));
        if r.pages > keep {
            core.kv.free(r.pages - keep);
            core.reqs[id as usize].pages = keep;
        }
    }
    if finished_any {
        let before = core.running.len();
        let Core {
            running,
            reqs,
            kv,
            free_slots,
            ..
        } = core;
        running.retain(|&id| {
            let r = reqs[id as usize];
            if r.produced < r.output {
                return true;
            }
            kv.free(r.pages + r.state);
            if let (Some(p), true) = (r.prefix, r.prefix_tokens > 0) {
                kv.release_prefix(p.group);
            }
            m.finished += 1;
            // Issue #18 (kimitok54): the client's times (`client_at` = now without a detokenizer).
            let now = client_at;
            m.e2e.record(Duration::from_ps(now - r.arrival));
            if let (Some(slo), Some(f)) = (slo, r.first_at) {
                // vLLM's per-request figures (benchmarks/serve.py): TPOT over the tokens after
                // the first, 0 for a single-token output.
                let tpot = if r.output > 1 {
                    (now - f) as f64 / f64::from(r.output - 1) / 1e9
                } else {
                    0.0
                };
                let o = crate::slo::Outcome {
                    ttft_ms: (f - r.arrival) as f64 / 1e9,
                    tpot_ms: tpot,
                    e2e_ms: (now - r.arrival) as f64 / 1e9,
                };
                m.goodput.record(slo, &o);
            }
            if r.output > 1
                && let Some(f) = r.first_at
            {
                m.request_tpot
                    .record(Duration::from_ps((now - f) / u64::from(r.output - 1)));
            }
            free_slots.push(id);
            false
        });
        let done = before - core.running.len();
        core.finished += done as u64;
        return done as u32;
    }
    0
}

/// Issue #18 (kimitok54): the output-token index (1 = first) of each request that yields a token
/// this step, for the detokenizer's job: decodes, and prefills that complete their prompt.
fn detok_counts(core: &Core) -> impl Iterator<Item = u32> + '_ {
    let decodes = core.batch.decode.iter().map(|&id| {
        let r = &core.reqs[id as usize];
        (r.produced + 1).min(r.output.max(1))
    });
    let firsts = core.batch.extend.iter().filter_map(|&(id, tokens)| {
        let r = &core.reqs[id as usize];
        (r.computed + tokens >= r.target()).then_some(r.produced + 1)
    });
    decodes.chain(firsts)
}
