//! Lowering of forward passes to task graphs, and the first-cut collective costs they use.

use super::{DecodeError, SimulatedShape};
use crate::exec::{self, Category, ResourceId, ResourceKind, Resources, Task, TaskGraph, TaskId};
use crate::scenario::{AllreduceBackend, Scenario};
use tpsim_model::collective::{LinkClass, NcclAnalytic, custom_oneshot_first_cut};
use tpsim_model::compute::ComputeRates;
use tpsim_model::hw::{PathClass, Transport, nccl_default_p2p_level, nccl_transport};
use tpsim_model::llm::ModelSpec;
use tpsim_model::units::{Bytes, Duration};

/// Max message size of the custom allreduce (engine-memory.md: max_size 8 MiB default); above it
/// and for sizes not a multiple of 16 the engines fall back to NCCL.
const CUSTOM_AR_MAX_BYTES: u64 = 8 << 20;
/// Custom allreduce at ≤ 8 ranks: one-shot below 256 KiB, two-shot above (engine-memory.md).
const CUSTOM_AR_ONESHOT_BELOW: u64 = 256 << 10;

/// The cost of one collective call and how it was chosen.
#[derive(Debug, Clone, PartialEq)]
pub struct CollectiveCost {
    pub bytes: Bytes,
    pub time: Duration,
    /// e.g. "nccl Ring/LL", "custom one-shot".
    pub algorithm: String,
}

/// How collectives are costed for this scenario.
#[derive(Debug, Clone, PartialEq)]
pub struct Costs {
    pub backend: AllreduceBackend,
    /// NCCL's P2P level in force.
    pub p2p_level: PathClass,
    /// The worst transport on NCCL's ring.
    pub transport: Transport,
    /// Whether kernel peer loads are staged through system memory (direct-attach paths).
    pub staged_peer_loads: bool,
    nccl: NcclAnalytic,
    custom_latency_us: f64,
    custom_read_gbps: f64,
}

/// Derives the collective cost model from the scenario.
pub fn collective_costs(s: &Scenario) -> Costs {
    let hw = &s.hardware;
    let p = &hw.params;
    let env = &s.engine.env;
    let tp = s.engine.tp as usize;
    let level = env
        .p2p_level
        .unwrap_or_else(|| nccl_default_p2p_level(hw.cpu_amd, tp));
    let transport = if env.p2p_disable {
        Transport::Shm
    } else {
        (0..tp)
            .map(|i| {
                nccl_transport(
                    hw.topology.path_class(i, (i + 1) % tp, hw.gpu.nvlink),
                    &hw.gpu,
                    level,
                )
            })
            .max()
            .unwrap_or(Transport::P2p)
    };
    let mut channels = p.nccl_channels;
    if let Some(min) = env.min_nchannels {
        channels = channels.max(min);
    }
    if let Some(max) = env.max_nchannels {
        channels = channels.min(max);
    }
    let (step_latency_us, channel_bw) = match transport {
        Transport::P2p => (None, p.nccl_channel_bw),
        Transport::Shm => (Some(p.shm_step_latency.as_us_f64()), p.shm_channel_bw),
    };
    let nccl = NcclAnalytic {
        ranks: s.engine.tp,
        channels,
        channel_bw_gbps: channel_bw.as_gbps(),
        link: if hw.gpu.nvlink {
            LinkClass::NvLink
        } else {
            LinkClass::Pci
        },
        step_latency_us,
        ll128_enabled: hw.gpu.nvlink,
        algo: env.algo,
        proto: env.proto,
    };
    // Kernel peer loads are staged through system memory on paths through a CPU root complex
    // (pcie-collectives.md, "Driver P2P mode on direct-attach paths").
    let staged =
        (0..tp).any(|a| (0..tp).any(|b| hw.topology.path_class(a, b, hw.gpu.nvlink) >= PathClass::Phb));
    let factor = if staged { p.staged_peer_read_factor } else { 1.0 };
    Costs {
        backend: s.engine.allreduce,
        p2p_level: level,
        transport,
        staged_peer_loads: staged,
        nccl,
        custom_latency_us: p.p2p_latency.as_us_f64(),
        custom_read_gbps: p.peer_read_bw.as_gbps() / factor,
    }
}

impl Costs {
    /// One allreduce of `bytes` per rank.
    pub fn allreduce(&self, bytes: Bytes) -> CollectiveCost {
        let custom_ok = bytes.0 <= CUSTOM_AR_MAX_BYTES && bytes.0.is_multiple_of(16);
        if self.backend == AllreduceBackend::Custom && custom_ok {
            let n = self.nccl.ranks;
            if bytes.0 < CUSTOM_AR_ONESHOT_BELOW || n <= 2 {
                let time = custom_oneshot_first_cut(n, bytes, self.custom_latency_us, self.custom_read_gbps);
                return CollectiveCost {
                    bytes,
                    time,
                    algorithm: "custom one-shot".into(),
                };
            }
            // Two-shot: reduce-scatter + all-gather, 2(n − 1)/n × S in per rank, same two barriers.
            let moved = Bytes(2 * bytes.0 / n as u64);
            let time = custom_oneshot_first_cut(n, moved, self.custom_latency_us, self.custom_read_gbps);
            return CollectiveCost {
                bytes,
                time,
                algorithm: "custom two-shot".into(),
            };
        }
        match self.nccl.allreduce(bytes) {
            Some(e) => CollectiveCost {
                bytes,
                time: e.time,
                algorithm: format!("nccl {}/{}", e.algo.as_str(), e.proto.as_str()),
            },
            None => CollectiveCost {
                bytes,
                time: Duration::ZERO,
                algorithm: "none (NCCL_ALGO/NCCL_PROTO exclude every choice)".into(),
            },
        }
    }

    /// One all-gather ending with `total` bytes per rank (always NCCL).
    pub fn allgather(&self, total: Bytes) -> CollectiveCost {
        match self.nccl.allgather(total) {
            Some(e) => CollectiveCost {
                bytes: total,
                time: e.time,
                algorithm: format!("nccl {}/{}", e.algo.as_str(), e.proto.as_str()),
            },
            None => CollectiveCost {
                bytes: total,
                time: Duration::ZERO,
                algorithm: "none".into(),
            },
        }
    }
}

/// The shape of one forward pass: sequences in the batch, tokens processed (sequences × tokens per
/// sequence) and the context length each sequence attends over.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PassShape {
    pub seqs: u32,
    pub tokens: u32,
    pub ctx: u32,
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
    pub first_shapes: Vec<SimulatedShape>,
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
        let hw = &s.hardware;
        let rates = ComputeRates {
            mem_bytes_per_s: hw.gpu.memory_bandwidth.bytes_per_s() as f64,
            mem_efficiency: hw.params.mem_efficiency,
            flops_per_s: hw.gpu.bf16_tflops * 1e12,
            flops_efficiency: hw.params.flops_efficiency,
            kernel_overhead_us: hw.params.kernel_overhead.as_us_f64(),
        };
        Builder {
            s,
            costs,
            rates,
            resources,
            streams,
            host,
            first_shapes: Vec::new(),
        }
    }

    /// Builds and runs one iteration: `batch` active requests at context `ctx`, with or without the
    /// speculative draft/verify cycle.
    pub fn simulate(&mut self, batch: u32, ctx: u32, speculate: bool) -> Result<SimulatedShape, DecodeError> {
        let mut g = TaskGraph::new();
        let s = self.s;
        let e = &s.engine;
        let host =
            g.add(Task::new("schedule batch", Category::Host, e.costs.host_overhead).on([self.host]))?;
        match s.speculative.as_ref().filter(|_| speculate) {
            None => {
                // Overlap scheduler on (SGLang's default without spec v1): the host's work for the
                // next batch overlaps this GPU pass; the iteration ends with the sampled-token sync.
                let pass = self.add_pass(
                    &mut g,
                    &s.model,
                    "decode",
                    PassShape {
                        seqs: batch,
                        tokens: batch,
                        ctx,
                    },
                    &[],
                )?;
                g.add(
                    Task::new("sync: sampled tokens → host", Category::Sync, e.costs.sync_cost)
                        .on([self.host])
                        .after([pass, host]),
                )?;
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
                        PassShape {
                            seqs: batch,
                            tokens: batch * k,
                            ctx,
                        },
                        &[prev],
                    )?;
                }
                let verify = self.add_pass(
                    &mut g,
                    &s.model,
                    "verify",
                    PassShape {
                        seqs: batch,
                        tokens: batch * n,
                        ctx,
                    },
                    &[prev],
                )?;
                let accept = g.add(
                    Task::new("sync: accept lengths → host", Category::Sync, e.costs.sync_cost)
                        .on([self.host])
                        .after([verify]),
                )?;
                self.add_pass(
                    &mut g,
                    &sp.draft,
                    "draft extend",
                    PassShape {
                        seqs: batch,
                        tokens: batch * n,
                        ctx,
                    },
                    &[accept],
                )?;
            }
        }
        let schedule = exec::run(&g, &self.resources)?;
        Ok(SimulatedShape { graph: g, schedule })
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
        let PassShape { seqs, tokens, ctx } = shape;
        let tp = self.s.engine.tp;
        let fp = model.forward_pass(tp, tokens);
        let kpl = self.s.engine.costs.kernels_per_layer.max(2);
        let layers = fp.layers.len().max(1) as f64;
        // KV bytes read per layer per rank: every sequence's context once (the first-cut attention).
        let kv_per_layer = model.kv_cell_bytes(tp) as f64 / layers * ctx as f64 * seqs as f64;
        let streams = self.streams.clone();
        let per_gpu = |g: &mut TaskGraph,
                       name: String,
                       time: Duration,
                       after: &[TaskId]|
         -> Result<Vec<TaskId>, DecodeError> {
            streams
                .iter()
                .map(|&st| {
                    g.add(
                        Task::new(name.clone(), Category::Compute, time)
                            .on([st])
                            .after(after.iter().copied()),
                    )
                    .map_err(DecodeError::from)
                })
                .collect()
        };
        let gang = |g: &mut TaskGraph,
                    name: String,
                    cat: Category,
                    time: Duration,
                    after: Vec<TaskId>|
         -> Result<TaskId, DecodeError> {
            Ok(g.add(
                Task::new(name, cat, time)
                    .on(streams.iter().copied())
                    .after(after),
            )?)
        };
        let ar = self.costs.allreduce(fp.allreduce_bytes);
        // Vocab-parallel embedding: a lookup and an allreduce of the embeddings (SGLang
        // VocabParallelEmbedding with tp > 1).
        let emb = per_gpu(
            g,
            format!("{label}: embed"),
            self.rates.op_time(0.0, 0.0, 1),
            deps,
        )?;
        let mut prev = gang(
            g,
            format!("{label}: allreduce embed"),
            Category::Collective,
            ar.time,
            emb,
        )?;
        for (i, l) in fp.layers.iter().enumerate() {
            let t_attn =
                self.rates
                    .op_time(l.attn_weight_bytes.0 as f64 + kv_per_layer, l.attn_flops, kpl / 2);
            let a = per_gpu(g, format!("{label}: L{i} attention"), t_attn, &[prev])?;
            prev = gang(
                g,
                format!("{label}: L{i} allreduce attn"),
                Category::Collective,
                ar.time,
                a,
            )?;
            let t_ffn = self
                .rates
                .op_time(l.ffn_weight_bytes.0 as f64, l.ffn_flops, kpl - kpl / 2);
            let kind = if l.is_moe { "moe" } else { "mlp" };
            let f = per_gpu(g, format!("{label}: L{i} {kind}"), t_ffn, &[prev])?;
            prev = gang(
                g,
                format!("{label}: L{i} allreduce {kind}"),
                Category::Collective,
                ar.time,
                f,
            )?;
        }
        let t_head = self.rates.op_time(fp.lm_head_bytes.0 as f64, fp.lm_head_flops, 1);
        let h = per_gpu(g, format!("{label}: lm head"), t_head, &[prev])?;
        let ag = self.costs.allgather(fp.logits_allgather_bytes);
        gang(
            g,
            format!("{label}: all-gather logits"),
            Category::Collective,
            ag.time,
            h,
        )
    }
}
