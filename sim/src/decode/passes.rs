//! Lowering of forward passes to task graphs, and the first-cut collective costs they use.

use super::{DecodeError, SimulatedShape};

mod aiter_blockscale; // mi300x58: AITER's untuned Triton blockscale GEMM for DeepSeek-V3's q_a/kv_a on gfx942 (SGLang <= 0.5.9)
mod aiter_unified; // mi300xoss: AITER unified attention's 3-D split-KV reduce kernel (vLLM ROCm)
mod dcp; // issue #17: vLLM decode context parallelism
mod decode_attn; // mend51: the decode-attention facts of a pass's model, worked out once a pass
mod dp_attention; // issue #17: SGLang DP attention's pass
mod dp_sum; // issue #18 leftover (dpsched2): DP attention's SUM_LEN step
mod dsa_indexer; // vllmdsv3: vLLM 0.13's lightning-indexer kernels per DSA layer
mod fa2_window; // a40misses: FA2 reads a sliding layer's KV once per query head (vLLM V1)
mod fp32_router; // h200gl51: fp32 MoE router GEMMs at the CUDA-core FP32 rate
mod gemm_rate; // fp8rate: which GEMM FLOPs run at the FP8 / FP4 tensor-core rate
#[cfg(test)]
mod internlm2_tests; // families11: vLLM's InternLM2 qkv all-gather per layer
mod layer_kernels; // vllmfusion: vLLM's norm + FP8-quant fusion; the KV-cache store kernels
pub use dp_sum::DpSum;
mod moe_a2a; // issue #17 point 1 (ep): a MoE layer on DeepEP's all-to-all path
mod moe_call; // moecall: the triton fused-MoE call's measured fixed cost on SM 9.0 / 10.0; b200sg63: the TRT-LLM call's on SM 10.0
pub(crate) mod moe_route; // moeroute62: each engine's routing kernels for biased grouped top-k
mod piecewise; // graphmode: vLLM PIECEWISE graphs, attention launched by the host
pub(super) mod pipeline; // issue #17: sends between pipeline stages
pub(super) mod pipeline_net; // issue #17 point 4: stage sends across boxes
mod sgl_decode_launch; // c1llama18: SGLang's eager decode launches per layer beyond the template
pub(crate) mod sgl_dual_stream; // sgldualstream: SGLang's shared experts on a second CUDA stream
mod sgl_fused_shared; // sglstep: SGLang's DeepSeek-V3 shared expert fused into the routed MoE
mod sgl_gdn_prefill; // sglprefill61: Qwen3-Next's eager split / reshape / cat chain in SGLang's extend before 0.5.10
mod sgl_minimax_qk_norm; // mi300x59: MiniMax-M2's q and k norm allreduces, two a layer before SGLang 0.5.8
mod sgl_mla_kv_b; // ttft63: SGLang 0.5.6.x's MLA extend projects through kv_b_proj twice
mod sgl_prefill_launch; // pcglaunch18: SGLang's extend launches per layer, eager and piecewise
mod sgl_qwen3_next; // qwen3next: SGLang's Qwen3-Next shared-expert and output-gate kernels
mod sgl_triton_split; // tritonsplit54: SGLang's Triton split-KV decode: splits, partials, stage 2, serial tiles
pub mod sm120_fp4; // sm120fp4_64: vLLM 0.16-0.19's NVFP4 dense MLP on SM 12.x: FlashInfer CUTLASS FP4 GEMM walk, scaled_fp4_quant
mod splitkv; // splitkv49: FlashAttention 3 / 2 split-KV decode (vLLM FLASH_ATTN, SGLang fa3): combine launch, serial tiles
pub(crate) mod tp_net; // issue #17 point 4: the TP allreduce across boxes
mod triton_split; // longctx18: vLLM TRITON_ATTN's split-KV decode: reduce, serial tiles, 0.12-0.13 sliding reads
pub mod vllm_dp; // issue #17 point 1 (vllmdp): vLLM DP on a MoE model
mod w4a16_moe; // moew4a16_62: vLLM's fused Marlin MoE call on W4A16 routed experts, from its measured fit
mod w4a16_rate; // w4a16cost61: the W4A16 kernel's streaming factor on the dense linears' int4 bytes
use crate::comm::{Comm, Request};
use crate::exec::{self, Category, ResourceId, ResourceKind, Resources, Task, TaskGraph, TaskId};
use crate::scenario::cudagraph_mode::DecodeLaunch;
use crate::scenario::{AllreduceBackend, Hardware, Scenario, profile};
use decode_attn::DecodeAttn;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Mutex, PoisonError};
use tpsim_model::compute::ComputeRates;
use tpsim_model::curves::OpClass;
use tpsim_model::hw::{PathClass, Transport};
use tpsim_model::llm::{ForwardPass, LayerWork, ModelSpec};
use tpsim_model::units::{Bytes, Duration};

mod mixed; // issue #18: decode and prefill chunks in one forward
mod vllm_spec; // issue #17: vLLM's speculative iteration

/// The cost of one collective call and how it was chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveCost {
    pub bytes: Bytes,
    pub time: Duration,
    /// e.g. "nccl Ring/LL", "custom one-shot".
    pub algorithm: String,
}

/// How collectives are costed for this scenario: the TP group's communicator on the flow network.
#[derive(Debug)]
pub struct Costs {
    pub backend: AllreduceBackend,
    pub comm: Comm,
    /// Every distinct collective the prediction asked for: which hardware parameters a prediction
    /// used is derived from these ([`Costs::params_used`]).
    calls: Mutex<BTreeSet<Collective>>,
    /// While a shape is built for the process-wide shape cache (`decode::shape_cache`), the
    /// collectives it asks for, so that a later hit records them as the build would have.
    tap: Mutex<Option<BTreeSet<Collective>>>,
    // Issue #17 (DP attention): the attention-TP group's communicator when 1 < attn_tp < tp.
    pub attn: Option<Comm>,
    // Issue #17 (vLLM DCP): the DCP group's communicator when dcp > 1.
    pub dcp: Option<Comm>,
    // Issue #17 point 4: the TP group across boxes when tp is larger than one box.
    pub tp_net: Option<tp_net::TpNet>,
    // Issue #17 point 1 (vllmdp): vLLM's DP group when it is neither the box nor one rank.
    pub vllm_dp: Option<Comm>,
}

/// Derives the collective cost model from the scenario.
pub fn collective_costs(s: &Scenario) -> Costs {
    let comm =
        Comm::new(&s.hardware, s.engine.tp as usize, &s.engine.env).with_custom(s.engine.custom_limits);
    Costs {
        backend: s.engine.allreduce,
        tp_net: tp_net::tp_net(s, &comm),
        comm,
        calls: Mutex::new(BTreeSet::new()),
        tap: Mutex::new(None),
        attn: dp_attention::attn_comm(s),
        dcp: dcp::dcp_comm(s),
        vllm_dp: vllm_dp::dp_group_comm(s),
    }
}

impl Costs {
    /// NCCL's P2P level in force.
    pub fn p2p_level(&self) -> PathClass {
        self.comm.level
    }
    /// The worst transport on NCCL's ring.
    pub fn transport(&self) -> Transport {
        self.comm.transport
    }
    /// Whether any pair's kernel peer loads are staged through system memory.
    pub fn staged_peer_loads(&self) -> bool {
        let r = &self.comm.ranks;
        r.iter()
            .any(|&a| r.iter().any(|&b| a != b && self.comm.fabric.is_staged(a, b)))
    }
    /// One allreduce of `bytes` per rank, simulated on the network.
    pub fn allreduce(&self, bytes: Bytes) -> CollectiveCost {
        self.record(Collective::Allreduce(bytes.0));
        // Issue #17 point 4: across boxes, NCCL's ring or tree over the NICs as its multi-node tuner
        // picks (no custom kernel spans boxes).
        if let Some(net) = &self.tp_net {
            let (time, algo, proto) = net.allreduce(bytes.0);
            return CollectiveCost {
                bytes,
                time,
                algorithm: format!("nccl {algo:?}/{proto:?} across {} boxes (net)", net.nodes),
            };
        }
        let o = self.comm.allreduce(bytes.0, Request::Backend(self.backend));
        CollectiveCost {
            bytes,
            time: o.time,
            algorithm: o.algorithm,
        }
    }
    /// One all-gather ending with `total` bytes per rank (always NCCL).
    pub fn allgather(&self, total: Bytes) -> CollectiveCost {
        self.record(Collective::Allgather(total.0));
        let o = self.comm.allgather(total.0);
        CollectiveCost {
            bytes: total,
            time: o.time,
            algorithm: o.algorithm,
        }
    }

    /// One reduce-scatter of `total` bytes per rank in (always NCCL; issue #17). NCCL's ring
    /// reduce-scatter moves the same n − 1 steps of total / n as the ring all-gather ending with
    /// `total` bytes (NCCL `device/reduce_scatter.h` and `all_gather.h` `runRing`; the tuner's
    /// `ncclFuncSteps` counts both as nranks − 1), so it is costed as that all-gather; the
    /// reduction's arithmetic is not costed.
    pub fn reduce_scatter(&self, total: Bytes) -> CollectiveCost {
        self.record(Collective::ReduceScatter(total.0));
        let o = self.comm.allgather(total.0);
        CollectiveCost {
            bytes: total,
            time: o.time,
            algorithm: format!("reduce-scatter as {}", o.algorithm),
        }
    }

    /// Notes a pipeline send (issue #17) among the prediction's collectives.
    pub fn record_pp_send(&self, c: Collective) {
        self.record(c);
    }

    fn record(&self, c: Collective) {
        self.calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(c);
        if let Some(t) = self.tap.lock().unwrap_or_else(PoisonError::into_inner).as_mut() {
            t.insert(c);
        }
    }

    /// Starts noting the collectives asked for (for [`Costs::take_tap`]).
    pub(crate) fn start_tap(&self) {
        *self.tap.lock().unwrap_or_else(PoisonError::into_inner) = Some(BTreeSet::new());
    }

    /// The collectives asked for since [`Costs::start_tap`], in order of the set; stops noting.
    pub(crate) fn take_tap(&self) -> Vec<Collective> {
        let t = self.tap.lock().unwrap_or_else(PoisonError::into_inner).take();
        t.map_or_else(Vec::new, |t| t.into_iter().collect())
    }

    /// Records `calls` as asked for (a cached shape's collectives, `decode::shape_cache`).
    pub(crate) fn replay_calls(&self, calls: &[Collective]) {
        for &c in calls {
            self.record(c);
        }
    }

    /// Which of `names` (hardware parameters, `profile::PROFILE_PARAMS` names) the collectives of
    /// this prediction depend on: a parameter counts as used when changing it (by a quarter, kept in
    /// its valid range) changes the time of at least one collective the prediction asked for. Exact
    /// for what was simulated, whatever path (SHM hop, Simple step, collapse, staged load) reads it.
    pub fn params_used(&self, hw: &Hardware, names: &[&str]) -> Vec<String> {
        let calls: Vec<Collective> = self
            .calls
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .copied()
            .collect();
        let n = self.comm.ranks.len();
        // A pure function of its inputs, asked again by every sweep point on the same box: computed
        // once per process (each perturbation builds a communicator, about a fifth of a sweep point).
        let key = format!(
            "{hw:?}|{n}|{:?}|{:?}|{:?}|{calls:?}|{names:?}",
            self.comm.env, self.comm.custom, self.backend
        );
        if let Some(hit) = USED.lock().unwrap_or_else(PoisonError::into_inner).get(&key) {
            return hit.clone();
        }
        let time = |comm: &Comm, c: &Collective| match *c {
            Collective::Allreduce(b) => comm.allreduce(b, Request::Backend(self.backend)).time,
            Collective::Allgather(b) | Collective::ReduceScatter(b) => comm.allgather(b).time,
            Collective::PpSend(b) => pipeline::send_time(comm, n, 0, b),
            Collective::PpSendNet(_) => Duration::ZERO,
            // Issue #17 point 1 (ep): DeepEP's all-to-alls.
            Collective::A2aDispatch(b) | Collective::A2aCombine(b) => moe_a2a::a2a_time(comm, b),
        };
        // Issue #17 point 4: a stage send between boxes reads the hardware's cluster as well.
        let time = |comm: &Comm, h: &Hardware, c: &Collective| match *c {
            Collective::PpSendNet(b) => (0..h.topology.gpu_count() / n.max(1))
                .find_map(|k| pipeline_net::send_time(h, n, k, b))
                .unwrap_or(Duration::ZERO),
            _ => time(comm, c),
        };
        let base: Vec<Duration> = calls.iter().map(|c| time(&self.comm, hw, c)).collect();
        let used: Vec<String> = names
            .iter()
            .filter(|name| {
                let Some(v) = profile::get(&hw.params, name) else {
                    return false;
                };
                // Fractions move down (they are ≤ 1), everything else up; a zero duration moves to 1 µs.
                let moved = match profile::param_unit(name) {
                    Some(profile::ParamUnit::Fraction) => v * 0.75,
                    _ if v <= 0.0 => 1.0,
                    _ => v * 1.25,
                };
                let mut h = hw.clone();
                if profile::set(&mut h.params, name, moved).is_err() {
                    return false;
                }
                let comm = Comm::new(&h, n, &self.comm.env).with_custom(self.comm.custom);
                calls.iter().zip(&base).any(|(c, t)| time(&comm, &h, c) != *t)
            })
            .map(|s| s.to_string())
            .collect();
        USED.lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key, used.clone());
        used
    }
}

/// [`Costs::params_used`]'s answers by the `Debug` text of its inputs (hardware, group size, NCCL
/// environment, backend, calls, names): equal inputs give equal answers whatever the order points run.
static USED: Mutex<BTreeMap<String, Vec<String>>> = Mutex::new(BTreeMap::new());

/// A collective task's kind and size in bytes per rank (the all-gather's: its output).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Collective {
    Allreduce(u64),
    Allgather(u64),
    /// Issue #17 (DP attention): a reduce-scatter with `u64` bytes per rank in.
    ReduceScatter(u64),
    /// Issue #17 (pipeline): each rank's send of `u64` bytes to the next stage.
    PpSend(u64),
    /// Issue #17 point 4: the same send between boxes of a cluster.
    PpSendNet(u64),
    // Issue #17 point 1 (ep): DeepEP's dispatch and combine, `u64` bytes from each rank to each other.
    A2aDispatch(u64),
    A2aCombine(u64),
}

/// The shape of one forward pass: sequences in the batch, tokens processed (sequences × tokens per
/// sequence), the context length each sequence attends over, and how many of the tokens get logits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassShape {
    pub seqs: u32,
    pub tokens: u32,
    pub ctx: u32,
    /// Tokens whose logits the LM head computes and the all-gather gathers: every token of a decode,
    /// draft or verify pass, but only the last token of each sequence in an extend pass (prefill,
    /// draft extend). SGLang `layers/logits_processor.py` keeps all rows only for decode, target
    /// verify, and draft extend with full hidden capture; extend batches without logprobs are pruned
    /// to `last_index`, and `speculative/eagle_worker.py` `forward_draft_extend_after_decode` runs
    /// with capture LAST and `num_tokens_for_logprob_per_req = 1`. vLLM likewise samples only at the
    /// last token of each request (its `logits_indices`).
    pub logits: u32,
    /// An extend pass's cached prefix: the tokens each of its queries attends over besides its own
    /// causal part (a later chunk of a long prompt, or a prompt after a prefix-cache hit), token-
    /// weighted over the sequences; 0 for a fresh prompt and for decode-like passes. In a mixed pass
    /// (`chunk_tokens` > 0) the prefill chunks' cached prefix.
    pub prefix: u32,
    /// vllmchunk59: a mixed pass's prefill chunks (vLLM V1's every step with a prompt being
    /// computed, `passes::mixed`): their number, and their tokens among `tokens`; 0 otherwise.
    /// Their attention is causal over their own tokens plus `prefix`, not at the decodes' `ctx`.
    pub chunks: u32,
    pub chunk_tokens: u32,
}

impl PassShape {
    /// A pass whose every token gets logits (decode, draft steps, target verify).
    pub fn all_logits(seqs: u32, tokens: u32, ctx: u32) -> Self {
        PassShape {
            seqs,
            tokens,
            ctx,
            logits: tokens,
            prefix: 0,
            chunks: 0,
            chunk_tokens: 0,
        }
    }
    /// An extend pass: logits for the last token of each sequence only (prefill, draft extend).
    pub fn extend(seqs: u32, tokens: u32, ctx: u32) -> Self {
        PassShape {
            seqs,
            tokens,
            ctx,
            logits: seqs.min(tokens),
            prefix: 0,
            chunks: 0,
            chunk_tokens: 0,
        }
    }
}

/// Builds and simulates iteration graphs over one set of resources.
#[derive(Debug)]
pub struct Builder<'a> {
    s: &'a Scenario,
    costs: &'a Costs,
    rates: ComputeRates,
    pub resources: Resources,
    streams: Vec<ResourceId>,
    host: ResourceId,
    /// Each rank's launching host thread, when some pass runs eager or as vLLM PIECEWISE graphs
    /// (empty when every pass replays full CUDA graphs).
    launchers: Vec<ResourceId>,
    /// graphmode / graphverify: how uniform decode passes and prefill or mixed passes are launched
    /// (`passes::piecewise::launches`): under PIECEWISE only each layer's attention is launched by
    /// the host, eager every kernel, full graphs none.
    launches: (DecodeLaunch, DecodeLaunch),
    /// Distinct-expert estimates for the scenario's routing skew.
    routing: super::routing::Routing,
    /// The collective tasks of the graph being built, with their sizes (for link tracks in traces).
    collectives: std::cell::RefCell<Vec<(TaskId, Collective)>>,
    pub first_shapes: Vec<SimulatedShape>,
    /// Issue #17 point 1 (ep): replicated shared-expert bytes per layer, by (hidden, layers) of a model.
    a2a_shared: std::cell::RefCell<BTreeMap<(u64, usize), Vec<u64>>>,
    /// Issue #18 leftover (dpsched2): under DP attention, the groups' own shapes of the step being
    /// built when some group extends (SUM_LEN, [`DpSum`]); None: the MAX_LEN lowering.
    dp_sum: Option<DpSum>,
    /// Issue #18 (prefillgpus): whether the pass being built carries prompt tokens (a prefill, or a
    /// mixed step with prefill chunks); its FLOP-bound kernels go into `prefill_kernels`.
    recording: std::cell::Cell<bool>,
    /// The FLOP-bound kernels of every prefill (and mixed) shape built so far.
    prefill_kernels: std::cell::RefCell<PrefillKernels>,
    /// While a shape is built for the process-wide shape cache (`decode::shape_cache`), every
    /// addition to `prefill_kernels` in order, so that a later hit replays the same additions.
    kernel_log: std::cell::RefCell<Option<Vec<KernelAdd>>>,
}

/// One addition to [`PrefillKernels`]: FLOPs per kernel, FLOPs, inside the measured range.
pub type KernelAdd = (f64, f64, bool);

/// The FLOP-bound kernels of the prefill shapes a builder costed (each distinct shape once, every
/// layer counted): their FLOPs per kernel and how many FLOPs lie outside the domain the hardware's
/// FLOP curve was measured on: dense bf16/fp16 GEMMs (no MoE op, no quantized weights) within
/// `Hardware::flops_range`. Issue #18 (prefillgpus): the report's
/// `prefill_calibration`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct PrefillKernels {
    /// Smallest and largest FLOPs per kernel of a FLOP-bound prefill op (0 when there was none).
    pub min: f64,
    pub max: f64,
    /// FLOPs of the FLOP-bound prefill ops, and of those whose FLOPs per kernel lie outside the
    /// measured range (all of them without a range).
    pub flops: f64,
    pub outside_flops: f64,
}

impl PrefillKernels {
    /// Adds `flops` FLOPs run in kernels of `per_kernel` FLOPs each, `inside` the measured range
    /// or not.
    pub fn add(&mut self, per_kernel: f64, flops: f64, inside: bool) {
        if self.flops == 0.0 {
            (self.min, self.max) = (per_kernel, per_kernel);
        } else {
            self.min = self.min.min(per_kernel);
            self.max = self.max.max(per_kernel);
        }
        self.flops += flops;
        if !inside {
            self.outside_flops += flops;
        }
    }

    /// Both records together.
    pub fn merged(self, o: PrefillKernels) -> PrefillKernels {
        if o.flops == 0.0 {
            return self;
        }
        if self.flops == 0.0 {
            return o;
        }
        PrefillKernels {
            min: self.min.min(o.min),
            max: self.max.max(o.max),
            flops: self.flops + o.flops,
            outside_flops: self.outside_flops + o.outside_flops,
        }
    }
}

impl<'a> Builder<'a> {
    pub fn new(s: &'a Scenario, costs: &'a Costs) -> Self {
        let mut resources = Resources::new();
        let streams = (0..s.engine.tp)
            .map(|g| {
                resources.add(
                    ResourceKind::GpuStream { gpu: g, stream: 0 },
                    format!("GPU {g} compute"),
                )
            })
            .collect();
        let host = resources.add(ResourceKind::Host { thread: 0 }, "scheduler".into());
        let launches = piecewise::launches(s);
        // pcglaunch18: SGLang's piecewise prefill graphs launch split ops (`passes::sgl_prefill_launch`).
        let sgl_pcg =
            s.engine.kind == crate::scenario::EngineKind::Sglang && s.engine.enable_piecewise_cuda_graph;
        let launchers = if launches == (DecodeLaunch::Full, DecodeLaunch::Full) && !sgl_pcg {
            Vec::new()
        } else {
            (0..s.engine.tp)
                .map(|r| resources.add(ResourceKind::Host { thread: 1 + r }, format!("rank {r} launcher")))
                .collect()
        };
        let rates = s.hardware.compute_rates();
        Builder {
            s,
            costs,
            rates,
            resources,
            streams,
            host,
            launchers,
            launches,
            routing: super::routing::Routing::new(s.routing_skew, s.seed),
            collectives: std::cell::RefCell::new(Vec::new()),
            first_shapes: Vec::new(),
            a2a_shared: std::cell::RefCell::new(BTreeMap::new()),
            dp_sum: None,
            recording: std::cell::Cell::new(false),
            prefill_kernels: std::cell::RefCell::new(PrefillKernels::default()),
            kernel_log: std::cell::RefCell::new(None),
        }
    }

    /// Starts logging the additions to the prefill-kernel record (for [`Builder::take_kernel_log`]).
    pub fn start_kernel_log(&self) {
        *self.kernel_log.borrow_mut() = Some(Vec::new());
    }

    /// The additions since [`Builder::start_kernel_log`], in order; stops logging.
    pub fn take_kernel_log(&self) -> Vec<KernelAdd> {
        self.kernel_log.borrow_mut().take().unwrap_or_default()
    }

    /// Makes the additions of `log` again, in order (a cached shape's: the same floating-point
    /// sums as building it).
    pub fn replay_kernel_log(&self, log: &[KernelAdd]) {
        let mut k = self.prefill_kernels.borrow_mut();
        for &(per, flops, inside) in log {
            k.add(per, flops, inside);
        }
    }

    /// The FLOP-bound kernels of the prefill (and mixed) shapes this builder has costed.
    pub fn prefill_kernels(&self) -> PrefillKernels {
        *self.prefill_kernels.borrow()
    }

    /// Records an op of a prefill pass when it is FLOP-bound (`ComputeRates::flop_bound_kernel_flops`).
    fn record_prefill_op(
        &self,
        class: OpClass,
        parts: &[(f64, Option<tpsim_model::llm::WeightDtype>)],
        backend: Option<&str>,
        flops: f64,
        low: tpsim_model::llm::LowFlops,
        kernels: u32,
    ) {
        if !self.recording.get() {
            return;
        }
        if let Some(per) = self
            .rates
            .flop_bound_gemm_flops(class, parts, backend, flops, low, kernels)
        {
            // The curves were measured on dense bf16/fp16 GEMMs: an MoE op (grouped GEMMs) or one
            // whose weights are quantized lies outside their domain whatever its size.
            use tpsim_model::llm::WeightDtype;
            let dense16 = class != OpClass::Moe
                && parts.iter().all(|&(b, f)| {
                    b == 0.0 || f.is_none_or(|d| matches!(d, WeightDtype::Bf16 | WeightDtype::Fp16))
                });
            let inside = dense16
                && self
                    .s
                    .hardware
                    .flops_range
                    .is_some_and(|[lo, hi]| per >= lo && per <= hi);
            self.prefill_kernels.borrow_mut().add(per, flops, inside);
            if let Some(log) = self.kernel_log.borrow_mut().as_mut() {
                log.push((per, flops, inside));
            }
        }
    }

    /// Issue #18 leftover (dpsched2): the next passes built lower SGLang's DP attention in SUM_LEN
    /// mode over the groups' shapes `sum` (None: back to MAX_LEN, every group padded to the
    /// busiest). Ignored without DP attention.
    pub fn set_dp_sum(&mut self, sum: Option<DpSum>) {
        self.dp_sum = sum;
    }

    /// The collective costs this builder uses.
    pub fn costs(&self) -> &'a Costs {
        self.costs
    }

    /// The scenario this builder lowers passes for.
    pub fn scenario(&self) -> &'a Scenario {
        self.s
    }

    /// Builds and runs the prefill of `requests` new requests with `tokens` prompt tokens in all: the
    /// scheduler's work, one target pass over every prompt token (and, with EAGLE-3, one draft pass
    /// over them), then the sync that returns the first tokens. First cut: attention over the prompt
    /// itself is not costed (issue #4).
    pub fn simulate_prefill(
        &mut self,
        requests: u32,
        tokens: u32,
        speculate: bool,
    ) -> Result<SimulatedShape, DecodeError> {
        self.simulate_prefill_after(requests, tokens, 0, speculate)
    }

    /// [`Builder::simulate_prefill`] of an extend whose queries also attend over `prefix` cached
    /// tokens each (token-weighted over the sequences): a later chunk of a chunked prompt, or a
    /// prompt after a prefix-cache hit. SGLang's extend attention reads the prefix from the KV pool
    /// (`forward_batch.extend_prefix_lens`); tests/data/prefill.tsv line 10.
    pub fn simulate_prefill_after(
        &mut self,
        requests: u32,
        tokens: u32,
        prefix: u32,
        speculate: bool,
    ) -> Result<SimulatedShape, DecodeError> {
        let mut g = TaskGraph::new();
        let s = self.s;
        let e = &s.engine;
        let host =
            g.add(Task::new("schedule prefill", Category::Host, e.step_host(requests)).on([self.host]))?;
        let shape = PassShape {
            prefix,
            ..PassShape::extend(requests, tokens, 0)
        };
        self.recording.set(true);
        let last = self.add_pass(&mut g, &s.model, "prefill", shape, &[host]);
        self.recording.set(false);
        let mut last = last?;
        if let Some(sp) = s.speculative.as_ref().filter(|_| speculate) {
            last = if e.kind == crate::scenario::EngineKind::Vllm {
                // Issue #17: vLLM drafts after the prefill too (`vllm_spec`).
                self.vllm_drafter(&mut g, sp, requests, tokens, 0, last)?
            } else {
                self.add_pass(&mut g, &sp.draft, "draft prefill", shape, &[last])?
            };
        }
        g.add(
            Task::new("sync: first tokens → host", Category::Sync, e.costs.sync_cost)
                .on([self.host])
                .after([last]),
        )?;
        self.run_shape(g)
    }

    /// Schedules a built iteration graph on the box's resources and hands it back with the
    /// collectives its passes recorded (which it takes, leaving the record empty for the next).
    fn run_shape(&mut self, g: TaskGraph) -> Result<SimulatedShape, DecodeError> {
        let schedule = exec::run(&g, &self.resources)?;
        let collectives = std::mem::take(&mut *self.collectives.borrow_mut());
        Ok(SimulatedShape {
            graph: g,
            schedule,
            collectives,
        })
    }

    /// Builds and runs one iteration: `batch` active requests at context `ctx`, with or without the
    /// speculative draft/verify cycle.
    pub fn simulate(&mut self, batch: u32, ctx: u32, speculate: bool) -> Result<SimulatedShape, DecodeError> {
        // Issue #17: with pipeline parallelism an iteration is one micro-batch's pass through the
        // stages (`decode::pipeline`).
        let batch = super::pipeline::micro_batch(self.s, batch);
        let mut g = TaskGraph::new();
        let s = self.s;
        let e = &s.engine;
        let host = g.add(Task::new("schedule batch", Category::Host, e.step_host(batch)).on([self.host]))?;
        match s.speculative.as_ref().filter(|_| speculate) {
            None => {
                // Overlap scheduler on (SGLang's default without spec v1): the host's work for the
                // next batch overlaps this GPU pass; with --disable-overlap-schedule the pass waits
                // for it. The iteration ends with the sampled-token sync.
                let wait: Vec<TaskId> = if e.overlap_schedule {
                    Vec::new()
                } else {
                    vec![host]
                };
                let pass = self.add_pass(
                    &mut g,
                    &s.model,
                    "decode",
                    PassShape::all_logits(batch, batch, ctx),
                    &wait,
                )?;
                g.add(
                    Task::new("sync: sampled tokens → host", Category::Sync, e.costs.sync_cost)
                        .on([self.host])
                        .after([pass, host]),
                )?;
            }
            // Issue #17: vLLM's verify-then-draft iteration (`vllm_spec`).
            Some(sp) if e.kind == crate::scenario::EngineKind::Vllm => {
                self.vllm_spec_iteration(&mut g, sp, batch, ctx, host)?;
            }
            Some(sp) => {
                let k = sp.topk;
                let n = sp.num_draft_tokens;
                let mut prev = g.add(
                    Task::new(
                        "sync: draft KV slot allocation",
                        Category::Sync,
                        e.costs.sync_cost,
                    )
                    .on([self.host])
                    .after([host]),
                )?;
                for step in 1..sp.num_steps {
                    prev = self.add_pass(
                        &mut g,
                        &sp.draft,
                        &format!("draft {step}"),
                        PassShape::all_logits(batch, batch * k, ctx),
                        &[prev],
                    )?;
                }
                let verify = self.add_pass(
                    &mut g,
                    &s.model,
                    "verify",
                    PassShape::all_logits(batch, batch * n, ctx),
                    &[prev],
                )?;
                let accept = g.add(
                    Task::new("sync: accept lengths → host", Category::Sync, e.costs.sync_cost)
                        .on([self.host])
                        .after([verify]),
                )?;
                // Draft extend over the accepted tokens, at most num_steps + 1 per request (a tree is
                // num_steps deep), the graph padded to that (SGLang
                // `eagle_draft_extend_cuda_graph_runner.py`: num_tokens_per_bs = steps + 1).
                let extend = batch * (sp.num_steps + 1);
                // EAGLE-3 fuses the target's three captured hidden states (3H → H, replicated on every
                // rank) only in this pass: the later draft steps feed the draft's own H-wide state
                // (model::llm::forward, `ForwardPass::fusion_bytes`).
                let fp = sp.draft.forward_pass(self.s.engine.tp, extend);
                let after = if fp.fusion_bytes.0 > 0 {
                    let t = self.rates.op_time(fp.fusion_bytes.0 as f64, fp.fusion_flops, 1);
                    self.per_gpu(&mut g, "draft extend: fusion fc", t, 1, &[accept])?
                } else {
                    vec![accept]
                };
                self.add_pass(
                    &mut g,
                    &sp.draft,
                    "draft extend",
                    PassShape::extend(batch, extend, ctx),
                    &after,
                )?;
            }
        }
        self.run_shape(g)
    }

    /// Adds `kernels` kernels' worth of work on every rank after `after`. With CUDA graphs the
    /// kernels are replayed by the GPU; in eager mode each rank's host thread first dispatches them
    /// (`launch_overhead` each: the Python module call, the aten dispatch and the launch of one
    /// modelled kernel, issue #18 eagerhost, `tests/data/eager-host.tsv`), serialised on that
    /// thread, and the GPU work waits for its launch.
    fn per_gpu(
        &self,
        g: &mut TaskGraph,
        name: &str,
        time: Duration,
        kernels: u32,
        after: &[TaskId],
    ) -> Result<Vec<TaskId>, DecodeError> {
        let mut out = Vec::with_capacity(self.streams.len());
        for (r, &st) in self.streams.iter().enumerate() {
            let mut deps: Vec<TaskId> = after.to_vec();
            if let Some(&launcher) = self
                .launchers
                .get(r)
                .filter(|_| self.launch() == DecodeLaunch::Eager)
            {
                let cost = self.s.engine.costs.launch_overhead.times(u64::from(kernels));
                deps.push(g.add(Task::new(format!("launch {name}"), Category::Host, cost).on([launcher]))?);
            }
            out.push(
                g.add(
                    Task::new(name.to_string(), Category::Compute, time)
                        .on([st])
                        .after(deps),
                )?,
            );
        }
        Ok(out)
    }

    /// A collective occupying every rank's stream (launched like one kernel per rank). Issue #19
    /// points 1-2: in eager mode the host pays the longer of the engine's per-kernel launch and one
    /// eager NCCL call (`nccl_eager_launch`, `crate::launch`); from a CUDA graph nothing.
    fn gang(
        &self,
        g: &mut TaskGraph,
        name: &str,
        coll: Collective,
        time: Duration,
        mut after: Vec<TaskId>,
    ) -> Result<TaskId, DecodeError> {
        // Issue #18 (eagerhost): with one rank the engines launch no allreduce or all-gather
        // (`RowParallelLinear.forward` in vLLM's and SGLang's `layers/linear.py` reduces only
        // `if self.reduce_results and self.tp_size > 1`; vLLM's `GroupCoordinator` in
        // `distributed/parallel_state.py` returns the input at world size 1).
        let skipped =
            self.streams.len() == 1 && matches!(coll, Collective::Allreduce(_) | Collective::Allgather(_));
        // graphmode: under PIECEWISE graphs the collectives are inside the captured pieces.
        let eager = self.launch() == DecodeLaunch::Eager;
        for &launcher in self.launchers.iter().filter(|_| !skipped && eager) {
            let cost = (self.s.engine.costs.launch_overhead).max(self.s.hardware.params.nccl_eager_launch);
            after.push(g.add(Task::new(format!("launch {name}"), Category::Host, cost).on([launcher]))?);
        }
        let id = g.add(
            Task::new(name.to_string(), Category::Collective, time)
                .on(self.streams.iter().copied())
                .after(after),
        )?;
        self.collectives.borrow_mut().push((id, coll));
        Ok(id)
    }

    /// Adds one forward pass of `model` over `tokens` tokens on every rank; returns its last task.
    fn add_pass(
        &self,
        g: &mut TaskGraph,
        model: &ModelSpec,
        label: &str,
        shape: PassShape,
        deps: &[TaskId],
    ) -> Result<TaskId, DecodeError> {
        // Issue #17 point 1 (vllmdp): vLLM DP on a MoE model (`passes::vllm_dp`).
        if let Some(v) = self.s.engine.vllm_dp {
            return self.add_pass_vllm_dp(g, model, label, shape, deps, v);
        }
        if let Some(d) = self.s.engine.dp_attention {
            if let Some(sum) = &self.dp_sum {
                return self.add_pass_dp_sum(g, model, label, sum, deps, d);
            }
            return self.add_pass_dp(g, model, label, shape, deps, d);
        }
        let pass = self.pass(model, label, shape);
        let mut prev = self.add_embed(g, &pass, deps)?;
        // Issue #17: the layers after which a pipeline stage hands over to the next.
        let ends = super::pipeline::stage_ends(self.s);
        for (i, l) in pass.fp.layers.iter().enumerate() {
            prev = self.add_layer(g, &pass, i, l, prev)?;
            if let Some(k) = ends.iter().position(|&e| e == i) {
                let bytes = pipeline::send_bytes(shape.tokens, model.hidden, model.activation_bytes());
                let tp = self.s.engine.tp as usize;
                let stages_per_box = (self.s.hardware.topology.gpu_count() / tp.max(1)).max(1);
                // Issue #17 point 4: a boundary between boxes goes over the NICs.
                let (t, net, coll) = match pipeline_net::send_time(&self.s.hardware, tp, k, bytes) {
                    Some(t) => (t, " (net)", Collective::PpSendNet(bytes)),
                    // Boxes are alike: boundary k inside box b is costed as its twin in box 0.
                    None => (
                        pipeline::send_time(&self.costs.comm, tp, k % stages_per_box, bytes),
                        "",
                        Collective::PpSend(bytes),
                    ),
                };
                self.costs.record_pp_send(coll);
                prev = self.gang(
                    g,
                    &format!("{label}: pp send{net} stage {k} → {}", k + 1),
                    coll,
                    t,
                    vec![prev],
                )?;
            }
        }
        self.add_lm_head(g, &pass, prev)
    }

    /// What every layer of one forward pass shares: its op list, the cost of its hidden-state
    /// allreduce and of its q/k-norm one, and the attention's context terms.
    fn pass<'p>(&self, model: &'p ModelSpec, label: &'p str, shape: PassShape) -> Pass<'p>
    where
        'a: 'p,
    {
        let tokens = shape.tokens;
        // mend51: the op list, its fused and KV-store kernels and the attention's context terms as
        // DP attention builds them (`dp_attention::pass_at`), at the engine's TP size.
        let mut pass = self.pass_at(model, label, shape, self.s.engine.tp);
        // vllmdsv3: vLLM's lightning-indexer kernels in each DSA layer (`passes::dsa_indexer`).
        dsa_indexer::apply(&mut pass.fp, self.s);
        let fp = &pass.fp;
        let ar = self.costs.allreduce(fp.allreduce_bytes);
        // A q/k norm over all heads (MiniMax-M2) all-reduces its per-token statistics once per layer
        // (model::llm::forward `qk_norm_allreduces`); SGLang pads the message to 16 B, vLLM does not.
        let qk_norm = (fp.qk_norm_allreduces > 0).then(|| {
            let padded = self.s.engine.kind == crate::scenario::EngineKind::Sglang;
            let bytes = tpsim_model::llm::qk_norm_stats_bytes(u64::from(tokens), padded);
            (bytes, self.costs.allreduce(Bytes(bytes)).time)
        });
        // families3 (issue #17): OLMo-2 all-gathers q and then k in every layer at tp > 1
        // (model::llm::forward `qk_norm_allgather_bytes`; NCCL all-gathers in both engines).
        let qk_gather = (fp.qk_norm_allgather_bytes[0].0 > 0).then(|| {
            fp.qk_norm_allgather_bytes
                .map(|b| (b.0, self.costs.allgather(b).time))
        });
        // families11 (issue #17): vLLM's InternLM2 all-gathers the packed qkv output in every layer
        // at tp > 1 (model::llm::forward `qkv_allgather_bytes`); SGLang splits the rows at load.
        let qkv_gather = (fp.qkv_allgather_bytes.0 > 0
            && self.s.engine.kind == crate::scenario::EngineKind::Vllm)
            .then(|| {
                (
                    fp.qkv_allgather_bytes.0,
                    self.costs.allgather(fp.qkv_allgather_bytes).time,
                )
            });
        pass.ar_time = ar.time;
        pass.qk_norm = qk_norm;
        // families27 (issue #17): MiniMax's lightning norm, one fp32 value a token.
        pass.lightning_norm = (fp.lightning_norm_allreduces > 0).then(|| {
            let bytes = 4 * u64::from(tokens);
            (bytes, self.costs.allreduce(Bytes(bytes)).time)
        });
        pass.qk_gather = qk_gather;
        pass.qkv_gather = qkv_gather;
        pass
    }

    /// Vocab-parallel embedding: a lookup and an allreduce of the embeddings (SGLang
    /// VocabParallelEmbedding with tp > 1).
    fn add_embed(&self, g: &mut TaskGraph, pass: &Pass, deps: &[TaskId]) -> Result<TaskId, DecodeError> {
        let label = pass.label;
        // hybrids51: MiniCPM's `× scale_emb` under SGLang is one more kernel (`llm::minicpm`).
        let k = 1 + pass.model.pass_extra_kernels().0;
        let emb = self.per_gpu(
            g,
            &format!("{label}: embed"),
            self.rates.op_time(0.0, 0.0, k),
            k,
            deps,
        )?;
        self.gang(
            g,
            &format!("{label}: allreduce embed"),
            Collective::Allreduce(pass.fp.allreduce_bytes.0),
            pass.ar_time,
            emb,
        )
    }

    /// One layer `i` after `prev`: its q/k-norm allreduce (if any), attention and allreduce, FFN
    /// (MLP or MoE) and allreduce; returns its last task.
    fn add_layer(
        &self,
        g: &mut TaskGraph,
        pass: &Pass,
        i: usize,
        l: &LayerWork,
        mut prev: TaskId,
    ) -> Result<TaskId, DecodeError> {
        let label = pass.label;
        if let Some((bytes, time)) = pass.qk_norm {
            // In the engine it sits between the qkv projection and the attention kernel; all of a
            // layer's tasks run in one chain on every stream, so placing it before the attention
            // task gives the same times. mi300x59: SGLang before 0.5.8 issues q's and k's apart.
            for j in 0..sgl_minimax_qk_norm::allreduces_per_layer(self.s) {
                let name = if j == 0 {
                    String::new()
                } else {
                    format!(" {}", j + 1)
                };
                prev = self.gang(
                    g,
                    &format!("{label}: L{i} allreduce qk-norm{name}"),
                    Collective::Allreduce(bytes),
                    time,
                    vec![prev],
                )?;
            }
        }
        // families27 (issue #17): a lightning layer's norm variance allreduce, between the decode
        // kernel and the output gate; placed before the layer's tasks as the one above.
        if let Some((bytes, time)) = pass
            .lightning_norm
            .filter(|_| l.mixer == tpsim_model::llm::Mixer::Linear)
        {
            prev = self.gang(
                g,
                &format!("{label}: L{i} allreduce lightning norm"),
                Collective::Allreduce(bytes),
                time,
                vec![prev],
            )?;
        }
        // families3 (issue #17): OLMo-2's q and k all-gathers, between the qkv projection and the
        // attention kernel like the statistics allreduce above (`model::llm::olmo2`).
        for (name, (bytes, time)) in ["q", "k"].iter().zip(pass.qk_gather.into_iter().flatten()) {
            prev = self.gang(
                g,
                &format!("{label}: L{i} all-gather qk-norm {name}"),
                Collective::Allgather(bytes),
                time,
                vec![prev],
            )?;
        }
        // families11 (issue #17): vLLM's InternLM2 qkv all-gather, between the qkv projection and the
        // attention kernel like the gathers above (`model::llm::internlm2`).
        if let Some((bytes, time)) = pass.qkv_gather {
            prev = self.gang(
                g,
                &format!("{label}: L{i} all-gather qkv"),
                Collective::Allgather(bytes),
                time,
                vec![prev],
            )?;
        }
        // nemotronh (issue #17): a Nemotron-H block is one half-layer (a mixer or an MLP), each with
        // its own allreduce; the absent half launches nothing.
        if l.attn_kernels == 0 {
            return self.add_ffn(g, pass, i, l, prev);
        }
        let t_attn = self.attention_time(pass, l);
        // graphmode: under vLLM PIECEWISE graphs the host launches the attention between pieces.
        let mut deps = vec![prev];
        deps.extend(self.piecewise_attention_launch(g, &format!("{label}: L{i}"))?);
        // pcglaunch18: SGLang's prefill launches beyond the template (`passes::sgl_prefill_launch`).
        let (extra_attn, _) = self.sgl_eager_extra(pass, l);
        deps.extend(self.sgl_pcg_launch(
            g,
            &format!("{label}: L{i} attention"),
            self.sgl_pcg_attention(pass, l),
        )?);
        let a = self.per_gpu(
            g,
            &format!("{label}: L{i} attention"),
            t_attn,
            l.attn_kernels
                + self.aiter_reduce_kernels(pass, l)
                + self.triton_reduce_kernels(pass, l)
                + extra_attn,
            &deps,
        )?;
        // Issue #17: vLLM DCP's exchanges around the attention kernel (`passes::dcp`).
        let a = self.add_dcp(g, pass, i, a)?;
        // Issue #17 point 1 (ep): a sparse layer on DeepEP's all-to-all path (`passes::moe_a2a`).
        if let Some(a2a) = self.s.engine.moe_a2a.filter(|_| l.is_moe) {
            return self.add_moe_a2a(g, pass, i, l, a2a, a);
        }
        let mut a = a;
        a.extend(self.sgl_pcg_allreduce(g, pass, &format!("{label}: L{i} allreduce attn"))?);
        prev = self.gang(
            g,
            &format!("{label}: L{i} allreduce attn"),
            Collective::Allreduce(pass.fp.allreduce_bytes.0),
            pass.ar_time,
            a,
        )?;
        if l.ffn_kernels == 0 {
            return Ok(prev);
        }
        self.add_ffn(g, pass, i, l, prev)
    }

    /// Layer `i`'s FFN (MLP or MoE) and its allreduce after `prev`; returns the allreduce.
    fn add_ffn(
        &self,
        g: &mut TaskGraph,
        pass: &Pass,
        i: usize,
        l: &LayerWork,
        prev: TaskId,
    ) -> Result<TaskId, DecodeError> {
        let label = pass.label;
        let (t_ffn, kind) = self.ffn_time(pass, l);
        // sglstep: the kernels SGLang launches (`passes::sgl_fused_shared`).
        let kernels =
            sgl_fused_shared::layer(self.s, pass.model, l).ffn_kernels + self.sgl_eager_extra(pass, l).1;
        let mut f = self.per_gpu(g, &format!("{label}: L{i} {kind}"), t_ffn, kernels, &[prev])?;
        f.extend(self.sgl_pcg_allreduce(g, pass, &format!("{label}: L{i} allreduce {kind}"))?);
        let ar = self.gang(
            g,
            &format!("{label}: L{i} allreduce {kind}"),
            Collective::Allreduce(pass.fp.allreduce_bytes.0),
            pass.ar_time,
            f,
        )?;
        // families25 (issue #17): LongCat-Flash all-reduces its MoE and dense MLP 0 apart
        // (`ModelSpec::split_moe_allreduce`); the second one is costed after the first.
        if l.is_moe && pass.model.split_moe_allreduce() {
            return self.gang(
                g,
                &format!("{label}: L{i} allreduce dense MLP 0"),
                Collective::Allreduce(pass.fp.allreduce_bytes.0),
                pass.ar_time,
                vec![ar],
            );
        }
        Ok(ar)
    }

    /// mi300xoss: the segment-reduce kernel AITER's unified attention adds to layer `l` in `pass`
    /// (`passes::aiter_unified`; 0 off that backend).
    fn aiter_reduce_kernels(&self, pass: &Pass, l: &LayerWork) -> u32 {
        let PassShape {
            seqs, tokens, ctx, ..
        } = pass.shape;
        aiter_unified::reduce_kernels(&pass.attn, l, seqs, tokens, ctx)
    }

    /// longctx18: vLLM TRITON_ATTN's split-KV decode launch for layer `l` in `pass`
    /// (`passes::triton_split`; `None` off it).
    fn triton_split(&self, pass: &Pass, l: &LayerWork) -> Option<triton_split::Split> {
        let PassShape {
            seqs, tokens, ctx, ..
        } = pass.shape;
        triton_split::split(&pass.attn, l, seqs, tokens, ctx)
    }

    /// longctx18: the segment-reduce kernel of TRITON_ATTN's 3-D decode (1 where it runs, else 0).
    fn triton_reduce_kernels(&self, pass: &Pass, l: &LayerWork) -> u32 {
        u32::from(self.triton_split(pass, l).is_some())
    }

    /// tritonsplit54: SGLang's Triton split-KV decode of layer `l` in `pass`
    /// (`passes::sgl_triton_split`; `None` off it).
    fn sgl_triton_split(&self, pass: &Pass, l: &LayerWork) -> Option<sgl_triton_split::SglSplit> {
        let PassShape {
            seqs, tokens, ctx, ..
        } = pass.shape;
        sgl_triton_split::split(&pass.attn, l, seqs, tokens, ctx)
    }

    /// splitkv49: FlashAttention's split-KV decode launch for layer `l` in `pass` (`passes::splitkv`;
    /// `None` off it).
    fn fa_split(&self, pass: &Pass, l: &LayerWork) -> Option<splitkv::Split> {
        let PassShape {
            seqs, tokens, ctx, ..
        } = pass.shape;
        splitkv::split(&pass.attn, l, seqs, tokens, ctx)
    }

    /// splitkv49: FlashAttention's split-KV combine kernel (1 where it is launched, else 0). It is
    /// launched by the C++ op that launches the main kernel (`run_mha_fwd_combine`), not by another
    /// Python-level call: it adds GPU work (the per-kernel cost in `attention_time`), not an eager
    /// host launch (`per_gpu`'s `launch_overhead`).
    fn fa_combine_kernels(&self, pass: &Pass, l: &LayerWork) -> u32 {
        u32::from(self.fa_split(pass, l).is_some_and(|sp| sp.combine)) + self.fi_merge_kernels(pass, l)
    }

    /// splitkv50: FlashInfer's `VariableLengthMergeStates` after a split-KV decode (1 where it is
    /// launched, else 0; `passes::splitkv::flashinfer`), launched by the same C++ op as the main
    /// kernel, like FlashAttention's combine. The pass replays a CUDA graph when it is launched full.
    fn fi_merge_kernels(&self, pass: &Pass, l: &LayerWork) -> u32 {
        let PassShape {
            seqs, tokens, ctx, ..
        } = pass.shape;
        let graph = self.launch() == DecodeLaunch::Full;
        u32::from(splitkv::flashinfer(&pass.attn, l, seqs, tokens, ctx, graph).is_some_and(|f| f.merge))
    }

    /// The attention block's time: its weights, the KV cache (or recurrent state) it reads over the
    /// context and the FLOPs over it.
    fn attention_time(&self, pass: &Pass, l: &LayerWork) -> Duration {
        let PassShape {
            seqs, tokens, ctx, ..
        } = pass.shape;
        let attn_ctx_flops = pass.attn_ctx_flops;
        let linear = l.mixer == tpsim_model::llm::Mixer::Linear;
        // A sliding-window layer (gpt-oss) reads at most its window of each sequence's KV; decode
        // FLOPs scale the same way. A prefill (ctx = 0) keeps the causal full-prompt count (an
        // overestimate for sliding layers with prompts longer than the window).
        // A chunked layer (Llama-4) reads the current chunk (`llm::local_kv_tokens`).
        let kv_ctx = tpsim_model::llm::local_kv_tokens(l.mixer, l.kv_window, u64::from(ctx)) as f64;
        // longctx18: vLLM 0.12-0.13's TRITON_ATTN 3-D decode kernel does not prune a sliding layer's
        // tiles: it reads the whole context (`passes::triton_split`).
        let split = self.triton_split(pass, l);
        let kv_ctx = if split.is_some_and(|sp| sp.full_context) {
            f64::from(ctx)
        } else {
            kv_ctx
        };
        // Issue #17 (vLLM DCP): each rank holds and reads 1/dcp of a decode's context (`passes::dcp`).
        let kv_ctx = if ctx > 0 && self.s.engine.dcp > 1 {
            (kv_ctx / f64::from(self.s.engine.dcp)).ceil()
        } else {
            kv_ctx
        };
        // a40misses: vLLM V1 on FlashAttention-2 decodes a sliding layer without packing its query
        // heads, reading the layer's KV once per query head (`passes::fa2_window`).
        let reads = if ctx > 0 {
            fa2_window::kv_read_factor(&pass.attn, l) as f64
        } else {
            1.0
        };
        let context_bytes = if linear {
            l.state_bytes as f64 * f64::from(seqs) * pass.state_passes
        } else {
            l.kv_bytes_per_token as f64 * kv_ctx * f64::from(seqs) * reads
        };
        let ctx_flops = if linear {
            0.0
        } else if ctx > 0 {
            attn_ctx_flops * kv_ctx / f64::from(ctx)
        } else {
            attn_ctx_flops
        };
        // An extend's cached prefix (`PassShape::prefix`): each sequence's prefix KV is read from
        // the pool (at most a sliding layer's window) and every new query attends over it.
        let prefix = pass.shape.prefix;
        let (context_bytes, ctx_flops) = if !linear && ctx == 0 && prefix > 0 {
            let kv_p = tpsim_model::llm::local_kv_tokens(l.mixer, l.kv_window, u64::from(prefix)) as f64;
            (
                context_bytes + l.kv_bytes_per_token as f64 * kv_p * f64::from(seqs),
                ctx_flops + pass.attn_prefix_flops * kv_p / f64::from(prefix),
            )
        } else {
            (context_bytes, ctx_flops)
        };
        // vllmchunk59: a mixed pass's chunks read their cached prefix's KV (at most a sliding
        // layer's window) and compute their own causal attention (`Pass::attn_chunk_flops`).
        let (context_bytes, ctx_flops) = if !linear && ctx > 0 && pass.shape.chunk_tokens > 0 {
            let kv_p = tpsim_model::llm::local_kv_tokens(l.mixer, l.kv_window, u64::from(prefix)) as f64;
            (
                context_bytes + l.kv_bytes_per_token as f64 * kv_p * f64::from(pass.shape.chunks),
                ctx_flops + pass.attn_chunk_flops,
            )
        } else {
            (context_bytes, ctx_flops)
        };
        // DSA (DeepSeek-V3.2, GLM-5; model::llm::dsa): besides the `index_topk` selected tokens'
        // latents (the window above), the indexer reads every context token's key and scores it
        // (a prefill scores its own prompt causally: half the square).
        let (context_bytes, ctx_flops) = if l.index_bytes_per_token > 0 {
            let scored = if ctx > 0 {
                f64::from(tokens) * f64::from(ctx)
            } else {
                f64::from(tokens) * f64::from(tokens) / f64::from(seqs.max(1)) / 2.0
            };
            (
                context_bytes + l.index_bytes_per_token as f64 * f64::from(ctx) * f64::from(seqs),
                ctx_flops + l.index_flops_per_ctx_token * scored,
            )
        } else {
            (context_bytes, ctx_flops)
        };
        // dsv4dec55 (issue #17): a DeepSeek-V4 layer reads its window, its compressed slots and the
        // indexer's keys (`llm::deepseek_v4_layer`), not `kv_bytes_per_token` over the context.
        let (context_bytes, ctx_flops) = match (l.dsv4_ratio, &pass.model.deepseek_v4) {
            (Some(r), Some(g)) if ctx > 0 => (
                tpsim_model::llm::deepseek_v4_layer::context_bytes(g, r, u64::from(ctx), u64::from(seqs))
                    as f64,
                tpsim_model::llm::deepseek_v4_layer::context_flops(
                    g,
                    u64::from(self.s.engine.tp),
                    r,
                    u64::from(ctx),
                ) * f64::from(tokens),
            ),
            _ => (context_bytes, ctx_flops),
        };
        // tritonsplit54: SGLang's Triton stage-1 kernel writes its per-split partial outputs
        // (`passes::sgl_triton_split`); the stage-2 kernel that re-reads them is costed apart below.
        let sgl_split = self.sgl_triton_split(pass, l);
        let context_bytes = context_bytes + sgl_split.map_or(0.0, |sp| sp.partial_bytes as f64);
        let dense_fmt = pass.model.quantization.weights.dtype;
        // Weight bytes stream at their format's factor (`[compute.formats]`, issue #16; 1 without
        // one), the KV-cache / state reads at the class's efficiency × the engine's attention
        // backend's factor (`[compute.attention_backends]`, 1 without one).
        let parts = [
            (l.attn_weight_bytes.0 as f64, Some(dense_fmt)),
            (context_bytes, None),
        ];
        // fp8decode: the block-FP8 projections' activation-quantization kernels are counted in
        // `attn_kernels` (launches) but costed apart (`quant_time`): they do no GEMM FLOPs.
        // mi300xoss: AITER's 3-D unified attention adds its segment reduce (`passes::aiter_unified`).
        // vllmdsv3: the indexer's small kernels (`passes::dsa_indexer`, counted in `attn_kernels`
        // for their launches) are costed apart, at their fixed cost only (their bytes and FLOPs are
        // the indexer terms above), so they do not dilute the attention's per-kernel curve lookup.
        let indexer = if l.index_bytes_per_token > 0 {
            dsa_indexer::extra_kernels(self.s)
        } else {
            0
        };
        // mmnorm61: SGLang's MiniMax-M2 q/k-norm launches beyond the template's one
        // (`passes::sgl_minimax_qk_norm`, counted in `attn_kernels`), costed apart like `quant_time`.
        let qk_extra = sgl_minimax_qk_norm::extra(self.s, pass.model, l, tokens, ctx > 0);
        let kernels = l.attn_kernels - l.attn_quant_kernels - indexer - qk_extra.0
            + self.aiter_reduce_kernels(pass, l)
            + u32::from(split.is_some())
            + self.fa_combine_kernels(pass, l);
        let backend = self.s.engine.attention_backend.as_deref();
        // fp8rate: the projections on fp8 / NVFP4 weights at their tensor-core rate
        // (`passes::gemm_rate`); the attention over the context stays at the bf16 rate.
        let attn_low = self.dense_low_flops(l.attn_low_flops);
        self.record_prefill_op(
            OpClass::Attention,
            &parts,
            backend,
            l.attn_flops + ctx_flops,
            attn_low,
            kernels,
        );
        // w4a16cost61: the projections' int4 bytes at the W4A16 kernel's factor (`passes::w4a16_rate`).
        let rates = self.dense_rates(pass.shape.tokens);
        let t = rates.op_time_gemms(
            OpClass::Attention,
            &parts,
            backend,
            l.attn_flops + ctx_flops,
            attn_low,
            kernels,
        );
        // longctx18: the 3-D kernel's busiest program walks its KV tiles in series, at least one
        // device-memory round trip each (`passes::triton_split`): where that exceeds what the KV
        // read and its FLOPs add to the block's streaming cost, the difference is added.
        // splitkv49: FlashAttention's split programs likewise (`passes::splitkv`), with its tiles in
        // flight per program.
        // tritonsplit54: SGLang's Triton stage-1 programs likewise (`passes::sgl_triton_split`).
        let floor = split
            .and_then(|sp| triton_split::latency_floor(self.s, sp))
            .or_else(|| sgl_split.and_then(|sp| sgl_triton_split::latency_floor(self.s, sp)))
            .or_else(|| {
                self.fa_split(pass, l)
                    .and_then(|sp| splitkv::latency_floor(self.s, sp))
            });
        let t = match floor {
            Some(floor) => {
                let without = rates.op_time_gemms(
                    OpClass::Attention,
                    &[parts[0], (0.0, None)],
                    backend,
                    l.attn_flops,
                    attn_low,
                    kernels,
                );
                let kv = t.saturating_sub(without);
                t + floor.saturating_sub(kv)
            }
            None => t,
        };
        // tritonsplit54: SGLang's stage-2 reduce, its own memory-bound kernel (`passes::sgl_triton_split`):
        // like `quant_time`, apart from the attention op so that it does not dilute its per-kernel
        // curve lookup.
        let stage2 = sgl_split.map_or(Duration::ZERO, |sp| {
            self.rates
                .op_time_for(OpClass::Default, sp.stage2_bytes() as f64, 0.0, 1)
        });
        t + stage2
            + self.quant_time(l.attn_quant_bytes.0, l.attn_quant_kernels)
            + self.quant_time(qk_extra.1, qk_extra.0)
            + Duration::from_us_f64(f64::from(indexer) * self.rates.kernel_overhead_us)
            + self.kv_store_time(pass, l)
            + self.trtllm_mla_time(pass, l)
            + Duration::from_us_f64(aiter_blockscale::extra_us(self.s, pass.model, l, pass.shape.ctx))
    }

    /// mla49: SGLang `trtllm_mla`'s decode-side cast and q concat (`sgl_decode_launch::
    /// trtllm_mla_decode_gpu`), costed as their own memory-bound op like `quant_time` (default class
    /// at their bytes per kernel, plus each kernel's fixed cost). Zero outside a decode pass.
    fn trtllm_mla_time(&self, pass: &Pass, l: &LayerWork) -> Duration {
        if pass.shape.ctx == 0 || l.attn_kernels == 0 || matches!(l.mixer, tpsim_model::llm::Mixer::Linear) {
            return Duration::ZERO;
        }
        let heads = pass.model.heads / u64::from(super::dp_attention::attention_tp(&self.s.engine).max(1));
        let (kernels, bytes) = sgl_decode_launch::trtllm_mla_decode_gpu(
            self.s,
            pass.model,
            heads,
            pass.shape.tokens,
            pass.shape.seqs,
        );
        if kernels == 0 {
            return Duration::ZERO;
        }
        self.rates.op_time_for(OpClass::Default, bytes, 0.0, kernels)
    }

    /// vllmfusion: the KV-cache store of a decode pass's new tokens in layer `l`
    /// (`passes::layer_kernels`): the engine's store kernels, costed as their own memory-bound op
    /// like `quant_time` (no FLOPs, so the attention's FLOP-curve lookup is unchanged), moving
    /// `layer_kernels::kv_store_bytes`. GPU work only: no host launch of its own. A prefill
    /// (`ctx == 0`) is left as it was: the prefill FLOP-efficiency curve was fitted to measured
    /// prefill times, which hold the store already (`tests/tests/prefill_curve.rs`), so charging it
    /// apart would count it twice until that curve is refitted.
    fn kv_store_time(&self, pass: &Pass, l: &LayerWork) -> Duration {
        let kernels = layer_kernels::layer_store_kernels(l, pass.kv_store);
        if kernels == 0 || pass.shape.ctx == 0 {
            return Duration::ZERO;
        }
        let bytes = layer_kernels::kv_store_bytes(l.kv_bytes_per_token, pass.shape.tokens);
        self.rates.op_time_for(OpClass::Default, bytes, 0.0, kernels)
    }

    /// fp8decode: the per-token-group activation quantization before a half-layer's block-FP8 GEMMs
    /// (`tpsim_model::llm::act_quant`): `kernels` kernels moving `bytes`, costed as their own
    /// memory-bound op (the default class at their bytes per kernel, plus each kernel's fixed cost).
    /// Zero without block-FP8 weights.
    fn quant_time(&self, bytes: u64, kernels: u32) -> Duration {
        if kernels == 0 {
            return Duration::ZERO;
        }
        self.rates
            .op_time_for(OpClass::Default, bytes as f64, 0.0, kernels)
    }

    /// The FFN block's time and its kind ("mlp" or "moe"): the weights it reads (MoE: the experts
    /// the routing touches) in their formats.
    fn ffn_time(&self, pass: &Pass, l: &LayerWork) -> (Duration, &'static str) {
        // sglstep: SGLang's DeepSeek-V3 shared expert in the routed kernel (`passes::sgl_fused_shared`).
        let l = &sgl_fused_shared::layer(self.s, pass.model, l);
        let tokens = pass.shape.tokens;
        let tp = self.s.engine.tp;
        // attnquant17 (issue #17): the dense MLP / shared experts in their own formats.
        let dense_fmt = if l.is_moe {
            pass.model.quantization.shared_format().dtype
        } else {
            pass.model.quantization.dense_format().dtype
        };
        let expert_fmt = pass.model.quantization.expert_format().dtype;
        // MoE weights read: the always-read part plus one shard per distinct expert touched, with
        // the scenario's routing model (the closed form when routing is uniform).
        let ffn_bytes = if l.is_moe && self.s.engine.ep_size > 1 {
            // Expert parallelism: each rank owns whole experts; the busiest rank reads its
            // touched experts in full (tp shards' worth each) and sets the step's pace.
            let busiest = self.routing.busiest_rank(l.n_experts, l.top_k, tokens, tp);
            l.fixed_ffn_bytes.0 as f64 + busiest * l.expert_shard_bytes.0 as f64 * f64::from(tp)
        } else if l.is_moe {
            let touched = self.routing.distinct(l.n_experts, l.top_k, tokens);
            l.fixed_ffn_bytes.0 as f64 + touched * l.expert_shard_bytes.0 as f64
        } else {
            l.ffn_weight_bytes.0 as f64
        };
        let (class, kind) = if l.is_moe {
            (OpClass::Moe, "moe")
        } else {
            (OpClass::Mlp, "mlp")
        };
        // Routed experts in their format, the always-read part (router, shared experts) in the
        // dense one.
        let ffn_parts = if l.is_moe {
            let fixed = (l.fixed_ffn_bytes.0 as f64).min(ffn_bytes);
            [(fixed, Some(dense_fmt)), (ffn_bytes - fixed, Some(expert_fmt))]
        } else {
            [(ffn_bytes, Some(dense_fmt)), (0.0, None)]
        };
        // Issue #18 (gptoss): a MoE backend whose layer launches more kernels than the template
        // counts (`scenario::moe_backend::extra_kernels`: vLLM's triton_kernels path, one more).
        // fp8decode: the activation-quantization kernels are costed apart (`quant_time`).
        let ffn_kernels = l.ffn_kernels - l.ffn_quant_kernels;
        let ffn_kernels = if l.is_moe {
            ffn_kernels
                + crate::scenario::moe_backend::extra_kernels(
                    self.s.engine.kind,
                    self.s.engine.moe_backend.as_deref(),
                    pass.model.quantization.expert_format().dtype,
                )
        } else {
            ffn_kernels
        };
        // fp8rate: GEMMs on fp8 / NVFP4 weights at their tensor-core rate (`passes::gemm_rate`).
        let low = self.ffn_low_flops(l);
        // h200gl51: an fp32 router GEMM at the CUDA-core FP32 rate (`passes::fp32_router`).
        let (router_flops, router_us) = fp32_router::split(self.s, pass.model, l, tokens);
        let ffn_flops = l.ffn_flops - router_flops;
        self.record_prefill_op(class, &ffn_parts, None, ffn_flops, low, ffn_kernels);
        // w4a16cost61: a dense MLP's int4 bytes at the W4A16 kernel's factor (`passes::w4a16_rate`);
        // moew4a16_62: a MoE layer's under vLLM's fused Marlin MoE at its fit's (`passes::w4a16_moe`),
        // else the GPU's rates.
        let marlin_moe = if l.is_moe { self.marlin_moe_fit() } else { None };
        let rates = match (l.is_moe, marlin_moe) {
            (true, Some(f)) => std::borrow::Cow::Owned(w4a16_rate::scaled_format(
                &self.rates,
                tpsim_model::llm::WeightDtype::Int4,
                f.factor,
            )),
            (true, None) => std::borrow::Cow::Borrowed(&self.rates),
            (false, _) => self.dense_rates(tokens),
        };
        let t_ffn = rates.op_time_gemms(class, &ffn_parts, None, ffn_flops, low, ffn_kernels)
            + Duration::from_us_f64(router_us);
        // The MoE kernel backend's fixed cost per layer (`[compute.moe_backends]`, picked by
        // `engine.moe_backend`; 0 without one): on SM 12.0 FlashInfer's CUTLASS NVFP4 grouped GEMM
        // costs a flat extra per layer over b12x at every batch (tests/data/moe-backend-sm120.tsv).
        // Quantized routed experts only: the backends measured are quantized grouped GEMMs, and a
        // 16/32-bit MoE (the NVFP4 checkpoints' bf16 MTP layer) runs the engine's unquantized kernel.
        // dsv4k57: DeepSeek-V4's routed experts are fp4 (or block fp8) in every format SGLang loads
        // (`llm::deepseek_v4_weights::ExpertFormat`), whatever the model's generic quantization says.
        let quantized_experts = pass.model.deepseek_v4.is_some()
            || !matches!(
                expert_fmt,
                tpsim_model::llm::WeightDtype::Bf16
                    | tpsim_model::llm::WeightDtype::Fp16
                    | tpsim_model::llm::WeightDtype::Fp32
            );
        let mut backend_fixed_us = 0.0;
        let t_ffn = if l.is_moe && quantized_experts {
            // moew4a16_62: vLLM's fused Marlin MoE is the `marlin` backend's kernel.
            let backend = (self.s.engine.moe_backend.as_deref()).or(marlin_moe.map(|_| "marlin"));
            let extra = self.rates.curves.moe_backend_overhead_us(backend)
                + marlin_moe.map_or(0.0, |f| w4a16_moe::extra_us(&f, self.rates.kernel_overhead_us));
            backend_fixed_us = extra;
            // burstprefill: the backend's FLOP-efficiency ceiling (`[compute.moe_backends]
            // flops_efficiency`; H100 Marlin: sglang PR 38884's nsys capture, 25.7 % of the bf16
            // peak at a 16,384-token prefill forward). Costed as the op's FLOP time at the ceiling
            // with its kernels' overhead: it binds only where the FLOPs outweigh the memory time
            // (prefill chunks), so a memory-bound decode layer costs what it did.
            let t_ffn = match self.rates.curves.moe_backend_flops_efficiency(backend) {
                Some(eff) => t_ffn.max(Duration::from_us_f64(
                    l.ffn_flops / (self.rates.flops_per_s * eff) * 1e6
                        + f64::from(ffn_kernels) * self.rates.kernel_overhead_us,
                )),
                None => t_ffn,
            };
            t_ffn + Duration::from_us_f64(extra)
        } else {
            t_ffn
        };
        // moecall: the triton fused-MoE call's fixed cost on SM 9.0 (b200moe55: and SM 10.0) over the
        // template's per-kernel cost (`passes::moe_call`), a fixed cost of the routed call like the backend's.
        // h200_63: the call's M (the pass's tokens) against the rank's experts, for vLLM's default tile.
        let rank_experts = pass.model.moe.as_ref().map_or(0, |m| {
            m.n_routed_experts / u64::from(self.s.engine.ep_size.max(1))
        });
        let call_extra = moe_call::extra_us(
            self.s,
            l,
            expert_fmt,
            self.rates.kernel_overhead_us,
            u64::from(tokens),
            rank_experts,
        );
        backend_fixed_us += call_extra;
        let t_ffn = t_ffn + Duration::from_us_f64(call_extra);
        // sm120fp4_64: vLLM's W4A4 NVFP4 dense MLP on SM 12.x (`passes::sm120_fp4`): the CUTLASS FP4
        // GEMMs' CTA walk beyond the weight stream and the `scaled_fp4_quant` kernels.
        let t_ffn = if sm120_fp4::applies(self.s, pass.model, l) {
            let sms = self.s.hardware.gpu.sm_count;
            let f = sm120_fp4::dense(pass.model, l, tokens, &self.rates, sms);
            t_ffn + Duration::from_us_f64(f.gemm_extra_us) + self.quant_time(f.quant_bytes, f.quant_kernels)
        } else {
            t_ffn
        };
        // sgldualstream: SGLang's shared experts on a second CUDA stream (`passes::sgl_dual_stream`).
        let core = sgl_dual_stream::SerialFfn {
            time: t_ffn,
            kernels: ffn_kernels,
            backend_fixed_us,
            class,
            parts: ffn_parts,
        };
        if let Some(t) = self.dual_stream_ffn(pass, l, &core) {
            return (t, kind);
        }
        (
            t_ffn + self.quant_time(l.ffn_quant_bytes.0, l.ffn_quant_kernels),
            kind,
        )
    }

    /// The LM head after `prev` and the all-gather of its logits; returns the gather.
    fn add_lm_head(&self, g: &mut TaskGraph, pass: &Pass, prev: TaskId) -> Result<TaskId, DecodeError> {
        let (label, fp) = (pass.label, &pass.fp);
        let PassShape { tokens, logits, .. } = pass.shape;
        // The LM head reads its whole shard whatever the row count; its FLOPs and the gathered
        // logits scale with the rows that get logits (`PassShape::logits`).
        let rows = f64::from(logits) / f64::from(tokens.max(1));
        // The LM head stays at the model dtype (`llm::quant`).
        let t_head = self.rates.op_time_formats(
            OpClass::LmHead,
            &[(fp.lm_head_bytes.0 as f64, Some(pass.model.dtype))],
            fp.lm_head_flops * rows,
            1,
        );
        // hybrids51: MiniCPM's `/ scale_width` under SGLang, one kernel before the head (`llm::minicpm`).
        let scale = pass.model.pass_extra_kernels().1;
        let before = if scale > 0 {
            let t = self.rates.op_time(0.0, 0.0, scale);
            self.per_gpu(g, &format!("{label}: muP scale_width"), t, scale, &[prev])?
        } else {
            vec![prev]
        };
        let h = self.per_gpu(g, &format!("{label}: lm head"), t_head, 1, &before)?;
        let gather = Bytes(fp.logits_allgather_bytes.0 / u64::from(tokens.max(1)) * u64::from(logits));
        let ag = self.costs.allgather(gather);
        self.gang(
            g,
            &format!("{label}: all-gather logits"),
            Collective::Allgather(gather.0),
            ag.time,
            h,
        )
    }
}

/// One forward pass being lowered (`Builder::add_pass`): what its layers share.
struct Pass<'p> {
    model: &'p ModelSpec,
    label: &'p str,
    shape: PassShape,
    fp: ForwardPass,
    /// The hidden-state allreduce after the embedding and each attention and FFN block.
    ar_time: Duration,
    /// Attention FLOPs over the context (`ModelSpec::attention_context_flops`).
    attn_ctx_flops: f64,
    /// An extend's attention FLOPs over its cached prefix (`ModelSpec::attention_prefix_flops`).
    attn_prefix_flops: f64,
    /// vllmchunk59: a mixed pass's prefill chunks' attention FLOPs, causal over their own tokens
    /// plus their cached prefix (`PassShape::chunk_tokens`); 0 otherwise.
    attn_chunk_flops: f64,
    /// How many times a linear-attention layer moves each sequence's recurrent state.
    state_passes: f64,
    /// The q/k-norm statistics allreduce, bytes and time, when the model has one.
    qk_norm: Option<(u64, Duration)>,
    /// families27 (issue #17): the lightning layers' output-norm variance allreduce (tokens × 4 B,
    /// `model::llm::forward` `lightning_norm_allreduces`), bytes and time, when the model has one.
    lightning_norm: Option<(u64, Duration)>,
    /// families3 (issue #17): OLMo-2's q and k all-gathers per layer, bytes and time each.
    qk_gather: Option<[(u64, Duration); 2]>,
    /// families11 (issue #17): vLLM's InternLM2 qkv all-gather per layer, bytes and time.
    qkv_gather: Option<(u64, Duration)>,
    /// vllmfusion: KV-store kernels per full-attention layer (`passes::layer_kernels`), costed by
    /// `kv_store_time`.
    kv_store: u32,
    /// mend51: the decode-attention facts of `model` (`passes::decode_attn`), once a pass rather
    /// than in every layer.
    attn: DecodeAttn<'p>,
}

/// The op class of a task, from the names [`Builder`] gives its tasks.
pub fn op_class(name: &str) -> &'static str {
    const CLASSES: [(&str, &str); 23] = [
        ("launch ", "launch"),
        ("fusion", "fusion"),
        // Issue #17 (pipeline): the hidden states' send to the next stage.
        // Issue #17 point 4: the same send between boxes, over the NICs.
        ("pp send (net)", "pp_send_net"),
        ("pp send", "pp_send"),
        // Issue #17 (vLLM DCP): the query/LSE all-gathers and the output reduce-scatter.
        (" dcp ", "dcp"),
        // Issue #17 (DP attention): the gather before and the scatter after each MLP/MoE.
        ("dp gather", "dp_gather"),
        ("dp scatter", "dp_scatter"),
        // Issue #17 point 1 (ep): DeepEP's path around a sparse layer.
        ("a2a scatter", "a2a_scatter"),
        ("a2a dispatch", "a2a_dispatch"),
        ("a2a combine", "a2a_combine"),
        ("a2a gather", "a2a_gather"),
        // Issue #17 point 1 (vllmdp): vLLM DP's exchange around a MoE layer.
        ("moe dispatch", "moe_dispatch"),
        ("moe combine", "moe_combine"),
        ("allreduce", "allreduce"),
        ("all-gather", "allgather"),
        ("attention", "attention"),
        (" moe", "moe"),
        (" mlp", "mlp"),
        ("lm head", "lm_head"),
        ("embed", "embed"),
        ("sync", "sync"),
        ("schedule", "host"),
        ("", "other"),
    ];
    CLASSES
        .iter()
        .find(|(k, _)| contains(name.as_bytes(), k.as_bytes()))
        .map_or("other", |(_, v)| v)
}

/// `str::contains` for the short names and patterns of [`op_class`], as a plain scan: the same
/// answer, without the SIMD searcher's setup per call, which made `op_breakdown` about a sixth of a
/// sweep's time (wiaperf, `perf record` of a seed sweep).
fn contains(hay: &[u8], needle: &[u8]) -> bool {
    let Some((&first, rest)) = needle.split_first() else {
        return true;
    };
    hay.len() >= needle.len()
        && (0..=hay.len() - needle.len()).any(|i| hay[i] == first && hay[i + 1..].starts_with(rest))
}

/// Where an iteration's makespan went along the critical path, by op class; gaps count as "idle".
/// Sums exactly to the makespan (like `Schedule::critical_path_by_category`).
pub fn op_breakdown(
    g: &TaskGraph,
    schedule: &exec::Schedule,
) -> std::collections::BTreeMap<&'static str, Duration> {
    let mut m = std::collections::BTreeMap::new();
    let mut prev = Duration::ZERO;
    m.insert("idle", Duration::ZERO);
    for id in schedule.critical_path() {
        let (Some(rec), Some(task)) = (schedule.record(id), g.get(id)) else {
            continue;
        };
        *m.entry("idle").or_insert(Duration::ZERO) += rec.start - prev;
        *m.entry(op_class(&task.name)).or_insert(Duration::ZERO) += rec.end - rec.start;
        prev = rec.end;
    }
    m
}

/// Test helper for the pass modules: the durations of the tasks named `name`, in graph order.
#[cfg(test)]
fn durations(g: &crate::exec::TaskGraph, name: &str) -> Vec<tpsim_model::units::Duration> {
    g.iter()
        .filter(|(_, t)| t.name == name)
        .map(|(_, t)| t.duration)
        .collect()
}

#[cfg(test)]
mod op_class_tests {
    use super::{contains, op_class};

    /// The plain scan answers as `str::contains` does, on task names of every kind the builder
    /// writes and on the edge cases (empty needle, needle longer than the name, match at the end).
    #[test]
    fn contains_is_str_contains() {
        let names = [
            "decode: L3 attention",
            "verify: L60 allreduce moe",
            "launch decode: L0 mlp",
            "draft 2: lm head",
            "prefill: pp send (net) stage 0 → 1",
            "decode: L1 dcp all-gather q",
            "x",
            "",
        ];
        let needles = [
            "",
            " moe",
            "moe",
            "allreduce",
            "e",
            "stage 0 → 1",
            "x",
            "xx",
            "attention",
        ];
        for n in names {
            for k in needles {
                assert_eq!(contains(n.as_bytes(), k.as_bytes()), n.contains(k), "{n:?} {k:?}");
            }
        }
        assert_eq!(op_class("verify: L60 allreduce moe"), "allreduce");
        assert_eq!(op_class("decode: L60 moe"), "moe");
        assert_eq!(op_class("launch decode: L0 mlp"), "launch");
        assert_eq!(op_class("scheduler"), "host");
        assert_eq!(op_class("idle gap"), "other");
    }
}
