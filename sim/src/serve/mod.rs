//! The serving loop (issue #18): the engine's scheduler over a request stream, in simulated time.
//!
//! One concern per file: [`core`] (requests, queues, the event loop), [`sglang`] and [`vllm`] (each
//! engine's scheduler, with their sources), [`kv`] (the KV pool in pages, prefix cache),
//! [`graphs`] (CUDA graph batch sizes), [`stats`] (streaming histograms and the time series).
//! `decode.rs` keeps the iteration costs (the shapes of `decode::passes`) and calls [`run`].
//!
//! SGLang's DP attention (issue #18 leftover, dpsched): each of the dp attention groups is a
//! scheduler of its own, as in SGLang 0.5.9 (one `Scheduler` per attention-DP rank), with the
//! memory plan's per-group KV pool and `max_running_requests` share; the data-parallel controller
//! sends requests to the groups round robin (`data_parallel_controller.py`), and the groups step
//! in lock-step (`scheduler_dp_attn_mixin.py` `prepare_mlp_sync_batch_raw`: idle batches, CUDA
//! graphs only when every group decodes or idles): a graph-replayed decode costs the busiest
//! group's shape with every group padded to it (MAX_LEN); a step in which some group extends, or an
//! eager decode over uneven groups, costs each group's attention on its own shape (the slowest
//! taken) and the MLP/MoE on the summed real tokens (SUM_LEN, issue #18 leftover dpsched2).
//! `core::cost_step` has the details. vLLM's DP on a MoE model keeps one scheduler over its
//! ranks' summed pools.

pub mod core;
pub mod detok; // issue #18 (kimitok54): SGLang's detokenizer process
pub mod frontend; // issue #18 (frontend): the API server in front of the scheduler
pub mod graphs;
pub mod kv;
pub mod policy;
pub mod replicas; // issue #17 (dp): data-parallel replicas
pub mod sglang;
pub mod sglang_first_token; // sglttft59: when the overlap scheduler streams a prefill's first tokens
pub mod sglang_front; // sglfront60: SGLang's request path outside the scheduler's steps
pub mod sglang_release; // sched54: SGLang's admission and retraction rules by release
pub mod stats;
pub mod vllm;
pub mod vllm_front; // vllmttft61: vLLM's microbatch tokenizer wait and tokenization

use crate::decode::{DecodeError, MemoryPlan};
use crate::scenario::{EngineKind, Scenario};
use crate::workload::RequestSpec;

pub use self::core::{GroupShape, IterationCosts, Measured};

/// The scheduler settings the scenario and its memory plan give.
#[derive(Debug, Clone)]
pub struct Plan {
    /// KV tokens of one scheduler's pool (one DP-attention group's under SGLang's DP attention).
    pub kv_tokens: u64,
    /// Schedulers stepping in lock-step: SGLang's DP-attention groups (1 without DP attention, and
    /// for vLLM, whose one scheduler holds its DP ranks' summed pools).
    pub groups: u32,
    pub page: u64,
    pub engine: EnginePlan,
    pub graphs: Vec<u32>,
    /// The API-server front end (issue #18, frontend; `None`: not modelled).
    pub frontend: Option<frontend::Costs>,
    /// SGLang's detokenizer process (issue #18, kimitok54; `None`: not modelled).
    pub detok: Option<detok::Costs>,
    /// sglfront60: SGLang's request path outside the scheduler's steps, from the client's send to
    /// the waiting queue ([`sglang_front::request_path`]); vllmttft61: vLLM's fixed part
    /// ([`vllm_front::request_path`], the tokenizer's microbatch wait).
    pub request_path: tpsim_model::units::Duration,
    /// vllmttft61: the request path's part per prompt token (vLLM's tokenization,
    /// [`vllm_front::request_path`]; zero for SGLang, whose figure holds its prompt's).
    pub request_path_per_prompt_token: tpsim_model::units::Duration,
    /// SGLang's `max_req_len` of one scheduler, min(context_len − 1, its pool's tokens − 1)
    /// (`tp_worker.py`): outputs are clipped to it (`core::Inputs::max_req_len`); None for vLLM.
    pub max_req_len: Option<u64>,
    /// A vLLM hybrid Mamba-2 / Gated DeltaNet model (issue #18, hybridserve): the pool in blocks
    /// of the hybrid block size (`kv_tokens` and `page` are then unused), the attention groups a
    /// token page takes a block in, and the state blocks each running request holds.
    pub hybrid: Option<HybridPool>,
}

/// The block pool of a vLLM hybrid ([`Plan::hybrid`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HybridPool {
    /// The memory plan's `num_gpu_blocks` (× dp ranks under vLLM's DP).
    pub blocks: u64,
    pub block_size: u64,
    pub attention_groups: u64,
    pub state: core::StateRule,
}

/// Which scheduler, with its settings.
#[derive(Debug, Clone)]
pub enum EnginePlan {
    Sglang(sglang::Settings),
    Vllm(vllm::Settings),
}

/// DP attention's groups (1 without it).
fn dp_groups(s: &Scenario) -> u64 {
    u64::from(s.engine.dp_attention.map_or(1, |d| d.dp.max(1)))
}

/// The scheduler plan of `s` with memory plan `mem`, speculating or not.
pub fn plan(s: &Scenario, mem: &MemoryPlan, speculate: bool) -> Plan {
    let groups = dp_groups(s);
    let page = s.engine.page_size.max(1);
    let spec = s.speculative.as_ref().filter(|_| speculate);
    let fe = &s.engine.frontend;
    let frontend = Some(frontend::Costs {
        servers: fe.api_server_count,
        request_ps: fe.request_cost.as_ps(),
        prompt_token_ps: fe.prompt_token_cost.as_ps(),
        output_token_ps: fe.output_token_cost.as_ps(),
    })
    .filter(frontend::Costs::active);
    match s.engine.kind {
        EngineKind::Sglang => {
            // Under DP attention each group is a scheduler of its own (`core::run`) with the memory
            // plan's per-group pool and `max_running_requests` (`dp_attention::per_group_running`).
            let max_running = mem
                .max_running_requests
                .map_or(u32::MAX, |m| m.clamp(1, u64::from(u32::MAX)) as u32);
            // `chunked_prefill_size` default: SGLang 0.5.9 `_handle_gpu_memory_settings` by GPU memory
            // and release (`tpsim_model::sglang_buckets`, sglmem54: 4096 on 20 – 35 GiB cards from
            // 0.5.20), divided by dp under DP attention (`_handle_data_parallelism`).
            // Issue #18 point 1 (schedkeys): `engine.chunked_prefill_size` (−1: off),
            // `max_prefill_tokens` and `schedule_conservativeness` replace the defaults when given;
            // DP attention divides / scales them as it does the defaults.
            let keys = &s.engine.scheduler;
            // sched54: before 0.5.3 by the release's own rule (`sglang_release::chunked_prefill_default`).
            let chunk = keys.chunked_prefill_size.unwrap_or_else(|| {
                Some(sglang_release::chunked_prefill_default(
                    &s.engine.release().version,
                    s.hardware.gpu.memory_total_mib,
                    s.engine.tp,
                ))
            });
            let settings = sglang::Settings {
                chunked_prefill_size: chunk.map(|c| (c / groups).max(1)),
                max_prefill_tokens: keys.max_prefill_tokens.unwrap_or(sglang::MAX_PREFILL_TOKENS),
                max_running_requests: max_running,
                // `schedule_conservativeness` 1.0, × 0.3 under DP attention (`_handle_data_parallelism`).
                // SGLang 0.5.9 scheduler.py `is_mixed_chunk`: only with chunked prefill on.
                mixed_chunk: keys.mixed_chunk && chunk.is_some(),
                conservativeness: keys.schedule_conservativeness.unwrap_or(1.0)
                    * if groups > 1 { 0.3 } else { 1.0 },
                // `new_tokens_required_next_decode` (schedule_batch.py): max(steps × topk, draft tokens).
                spec_reserve: spec
                    .map(|sp| u64::from(sp.num_steps * sp.topk).max(u64::from(sp.num_draft_tokens))),
                policy: keys.policy,
                radix_cache: keys.prefix_cache,
                rules: sglang_release::Rules::for_version(&s.engine.release().version),
                // `get_required_tokens` (before 0.5.2): topk × steps + draft tokens per request.
                spec_headroom: spec.map_or(0, |sp| {
                    u64::from(sp.topk * sp.num_steps) + u64::from(sp.num_draft_tokens)
                }),
            };
            let graphs = graphs::capture_sizes(s, spec.is_some(), 0, u64::MAX);
            Plan {
                kv_tokens: mem.kv_tokens,
                groups: groups.min(u64::from(u32::MAX)) as u32,
                page,
                engine: EnginePlan::Sglang(settings),
                graphs,
                frontend,
                detok: s.engine.detokenizer.map(|d| detok::Costs {
                    token_ps: d.token_cost.as_ps(),
                    window: if s.workload.empty_text_outputs && d.grows_on_empty_text {
                        detok::Window::Growing
                    } else {
                        detok::Window::Committed
                    },
                }),
                request_path: sglang_front::request_path(),
                request_path_per_prompt_token: tpsim_model::units::Duration::ZERO,
                max_req_len: Some(
                    s.engine
                        .context_len
                        .saturating_sub(1)
                        .min(mem.kv_tokens.saturating_sub(1)),
                ),
                // SGLang's hybrids hold their recurrent states in the state pool, whose slots cap
                // the running requests through `max_running_requests` above (the memory plan's
                // min(…, slots / 3), `tpsim_model::state_pool`).
                hybrid: None,
            }
        }
        EngineKind::Vllm => {
            // vllmttft61: the microbatch tokenizer's wait (by release) and the prompt's tokenization.
            let release = crate::engine_args_versions::release(&s.engine.release().version);
            let vllm_path = vllm_front::request_path(release.as_deref().unwrap_or(&[]));
            let (tokens, seqs) = crate::decode::vllm_batch_shape(s, mem);
            // Issue #17 point 1 (vllmdp): under DP on a MoE model each of the dp ranks schedules
            // `max_num_seqs` / `max_num_batched_tokens` of its own and captures the same graphs;
            // tpsim's one scheduler over the ranks holds dp times each, and a batch padded to dp ×
            // a capture size pads every rank to that size (`dp_utils`: all to the largest).
            let dp = if s.engine.vllm_dp.is_some() { groups } else { 1 };
            let per_rank_graphs = if spec.is_some() {
                Vec::new()
            } else {
                graphs::capture_sizes(s, false, seqs, tokens)
            };
            let (tokens, seqs) = (tokens.saturating_mul(dp), seqs.saturating_mul(dp));
            // Issue #18 (hybridserve): a hybrid's requests hold attention blocks of the hybrid
            // block size in each attention group plus their state blocks (`core::StateRule`), from
            // the `num_gpu_blocks` the memory report prints; one state block per speculative token
            // (`MambaSpec.num_speculative_blocks` = `num_speculative_tokens`).
            let hybrid = mem.vllm_hybrid_pool.map(|h| HybridPool {
                blocks: h.num_blocks.saturating_mul(groups),
                block_size: h.block_size,
                attention_groups: h.attention_groups,
                state: core::StateRule {
                    groups: h.state_groups,
                    base: 1 + spec.map_or(0, |sp| u64::from(sp.num_steps)),
                    align: h.align,
                },
            });
            Plan {
                kv_tokens: mem.kv_tokens.saturating_mul(groups),
                groups: 1,
                page,
                engine: EnginePlan::Vllm(vllm::Settings {
                    max_num_batched_tokens: tokens,
                    max_num_seqs: seqs.min(u64::from(u32::MAX)) as u32,
                    spec_tokens: spec.map_or(0, |sp| u64::from(sp.num_steps)),
                    long_prefill_token_threshold: s.engine.scheduler.long_prefill_token_threshold,
                    keep_preempted: s.engine.scheduler.prefix_cache,
                }),
                // vLLM pads a speculative decode by tokens, not requests: not modelled; as is.
                graphs: per_rank_graphs
                    .iter()
                    .map(|&g| (u64::from(g) * dp).min(u64::from(u32::MAX)) as u32)
                    .collect(),
                frontend,
                detok: None,
                request_path: vllm_path.0,
                request_path_per_prompt_token: vllm_path.1,
                max_req_len: None,
                hybrid,
            }
        }
    }
}

/// Runs `stream` through the planned scheduler, costing iterations with `costs`.
#[allow(clippy::too_many_arguments)]
pub fn run<'a, I: Iterator<Item = RequestSpec>>(
    p: &'a Plan,
    stream: I,
    num_requests: u32,
    concurrency: u32,
    refuse: &'a dyn Fn(u32, u32) -> Option<String>,
    draw: Option<&'a mut dyn FnMut() -> u32>,
    costs: &mut dyn IterationCosts,
    bucket: u32,
    slo: Option<&'a crate::slo::Slo>,
) -> Result<Measured, DecodeError> {
    let inputs = core::Inputs {
        stream,
        num_requests,
        concurrency,
        refuse,
        draw,
        graphs: &p.graphs,
        bucket,
        slo,
        frontend: p.frontend,
        detok: p.detok,
        request_path: p.request_path,
        request_path_per_prompt_token: p.request_path_per_prompt_token,
        max_req_len: p.max_req_len,
    };
    match &p.engine {
        EnginePlan::Sglang(set) => {
            // Issue #18 (sglretract): with the radix cache on a retracted request's prompt stays
            // in the tree (`core::Core::evict_request`).
            let mut groups: Vec<_> = (0..p.groups.max(1))
                .map(|_| {
                    let mut kv = kv::KvPool::new(p.kv_tokens, p.page);
                    if set.radix_cache {
                        kv = kv.radix();
                    }
                    let mut core = core::Core::new(kv);
                    core.keep_retracted = set.radix_cache;
                    // tpsim's SGLang drafts (eagle3, nextn/mtp) are all EAGLE (`is_eagle`; SGLang
                    // 0.5.8 `server_args.py` maps NEXTN to EAGLE): the radix tree keys bigrams.
                    core.bigram = set.spec_reserve.is_some();
                    core::Group {
                        core,
                        sched: sglang::Sglang::new(set.clone()),
                    }
                })
                .collect();
            core::run(&mut groups, costs, inputs)
        }
        EnginePlan::Vllm(set) => {
            let core = match p.hybrid {
                Some(h) => core::Core::with_state(
                    kv::KvPool::blocks(h.blocks, h.block_size, h.attention_groups),
                    Some(h.state),
                ),
                None => core::Core::new(kv::KvPool::new(p.kv_tokens, p.page)),
            };
            let mut core = core;
            // Issue #18 (preemptcache): with prefix caching on, a preempted request's full blocks
            // keep their hashes in the free queue (`core::Core::evict_request`); not modelled for
            // a hybrid's state groups.
            core.keep_preempted = set.keep_preempted && p.hybrid.is_none();
            let mut groups = [core::Group {
                core,
                sched: vllm::Vllm::new(set.clone()),
            }];
            core::run(&mut groups, costs, inputs)
        }
    }
}
