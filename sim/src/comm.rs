//! The TP group's communicator: NCCL's decisions (`tpsim_model::nccl`) plus the engine's custom
//! allreduce dispatch rules, executed on the box's flow network ([`crate::allreduce`]). Results are
//! a pure function of the message size, so each size is simulated once and cached. The cache is
//! shared by every communicator of the process built from the same inputs (hardware, group size,
//! NCCL environment), so the points of a sweep that share a box simulate each collective once.

use crate::allreduce::{self, CustomAlgo, NcclPlan, Outcome};
use crate::fabric::Fabric;
use crate::scenario::{AllreduceBackend, Hardware};
use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, PoisonError};
use tpsim_model::hw::{PathClass, Transport};
use tpsim_model::nccl::{self, Algo, Choice, NcclEnv, NcclTopoInput, PathInfo, Proto, RingGraph, TunerTable};
use tpsim_model::units::{Bytes, Duration};

/// Engine rules for the custom allreduce (engine-memory.md, "Custom allreduce: when it runs"):
/// sizes that are multiples of 16 within max_size ([`CustomLimits`]); one-shot for 2 ranks, below
/// 512 KiB with full NVLink and ≤ 4 ranks, below 256 KiB with ≤ 8 ranks; two-shot otherwise (vLLM
/// 0.11.0 `csrc/custom_all_reduce.cuh` `REDUCE_CASE`).
const CUSTOM_ONESHOT_NVLINK4: u64 = 512 << 10;

/// The per-kernel gap every custom allreduce kernel pays before its first flag write (hopperstep,
/// pcieck).
///
/// The custom kernel is one kernel of the engine's CUDA graph, so it pays the gap every other kernel
/// pays (`kernel_overhead`, counted per kernel by `tpsim_model::compute`, which does not count the
/// collectives), on every fabric. In-graph measurements:
/// - NVLink: vLLM PR #24111 (`benchmarks/kernels/benchmark_device_communicators.py`: a graph of 10
///   back-to-back `ca_1stage` calls, wall time ÷ 10) on H100, 512 KiB: 7 µs at 2 ranks (flow alone
///   3.57 µs), 13 µs at 6 ranks (8.23 µs); with the H100 preset's 3 µs gap 6.57 and 11.23
///   (`tests/data/nvlink-custom-ar.tsv`).
/// - PCIe, RTX PRO 6000: Luke's one-shot replayed one kernel per CUDA graph (p2pmark 3c39f36
///   `bench_custom_ar`; allreduce.tsv lines 40–48): the flow alone is 1.57–2.22 µs short at 256 B …
///   64 KiB (median 1.99), the template's 2 µs gap.
/// - PCIe, V100 behind a PLX switch: SGLang-V100 PR #2's one-shot push "measured inside a CUDA graph"
///   (allreduce.tsv lines 82–92, 4 KB … 384 KB): the flow alone is 0.9–1.1 µs short at 4–32 KB.
///
/// Until pcieck only NVLink kernels (and Luke's) paid it; vLLM's/SGLang's PCIe and xGMI kernels did not.
pub fn custom_kernel_gap(hw: &Hardware) -> Duration {
    hw.params.kernel_overhead
}

/// The custom allreduce's size cutoff (issue #17, 3): messages above it go to NCCL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CustomLimits {
    /// `max_size`, bytes.
    pub max_size: u64,
    /// SGLang takes `size <= max_size`, vLLM `size < max_size` (their `should_custom_ar`).
    pub inclusive: bool,
    /// FlashInfer's PCIe-IPC allreduce (SGLang `SGLANG_ENABLE_PCIE_IPC_ALLREDUCE`): the largest
    /// message it takes, bytes; it is tried before the custom kernel and NCCL.
    pub pcie_ipc_max_bytes: Option<u64>,
    /// Issue #17 point 4: vLLM's QuickReduce (ROCm): its regime and the message sizes it takes
    /// (bytes, inclusive); tried before the custom kernel (vLLM `cuda_communicator.py` `all_reduce`).
    pub quick_reduce: Option<(tpsim_model::quick_reduce::Regime, u64, u64)>,
}

impl Default for CustomLimits {
    /// vLLM's and SGLang's 8 MiB, strict (what tpsim applied before the engines were told apart).
    fn default() -> Self {
        CustomLimits {
            max_size: 8 << 20,
            inclusive: false,
            pcie_ipc_max_bytes: None,
            quick_reduce: None,
        }
    }
}
const CUSTOM_ONESHOT_8: u64 = 256 << 10;

/// Simulation grain for LL's cut-through forwarding: a chunk splits into ⌊chunk / grain⌋ pieces of at
/// least 4 KiB, which keeps a 56 KB allreduce (7 KiB chunks) to one piece per chunk and a 256 KB one
/// (8 KiB chunks on 4 channels) to two. A resolution choice of the simulator, like the decode loop's
/// context bucket, not a hardware fact.
const LL_MIN_PIECE: u64 = 4096;

/// Which algorithm a caller asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Request {
    /// The scenario's backend with the engine's dispatch rules.
    Backend(AllreduceBackend),
    /// NCCL as its tuner chooses, executed on the network.
    Nccl,
    /// NCCL's own analytic estimate (no network).
    NcclAnalytic,
    /// One custom kernel, forced.
    Custom(CustomAlgo),
}

/// The communicator of the first `n` GPUs of a box.
#[derive(Debug)]
pub struct Comm {
    pub fabric: Fabric,
    pub ranks: Vec<usize>,
    pub env: NcclEnv,
    pub level: PathClass,
    /// The worst transport of the ring's hops (what `tpsim topo` and the header report).
    pub transport: Transport,
    /// The transport of each ring hop `ranks[r] → ranks[r + 1]` (NCCL chooses per connection).
    pub hop_transports: Vec<Transport>,
    pub graph: RingGraph,
    pub table: TunerTable,
    nvlink: bool,
    /// Time before a custom kernel's first flag write: the box's per-kernel gap (`kernel_overhead`,
    /// see [`custom_kernel_gap`]).
    custom_gap: Duration,
    p2p: bool,
    conn_links: Vec<Vec<crate::net::LinkId>>,
    cache: Arc<Mutex<OutcomeCache>>,
    /// The engine's custom allreduce cutoff (issue #17, 3).
    pub custom: CustomLimits,
}

/// Simulated collectives by (bytes, is all-gather, request).
type OutcomeCache = BTreeMap<(u64, bool, String), Outcome>;

/// Every communicator's cache, by the `Debug` text of its inputs: `Comm::new` reads nothing but
/// (hardware, group size, NCCL environment) and every collective is a pure function of them and
/// the request, so equal inputs give equal outcomes whatever the order points run in.
static SHARED: Mutex<BTreeMap<String, Arc<Mutex<OutcomeCache>>>> = Mutex::new(BTreeMap::new());

fn shared_cache(hw: &Hardware, n: usize, env: &NcclEnv) -> Arc<Mutex<OutcomeCache>> {
    let key = format!("{hw:?}|{n}|{env:?}");
    let mut all = SHARED.lock().unwrap_or_else(PoisonError::into_inner);
    all.entry(key).or_default().clone()
}

/// The path class and NCCL transport of each ring hop `g → g + 1 (mod n)` of GPUs `0..n` of `hw`
/// (NCCL picks the transport per connection: `nccl::transport` at the environment's P2P level).
fn ring_hops(hw: &Hardware, n: usize, env: &NcclEnv) -> Vec<(PathClass, Transport)> {
    let n = n.min(hw.topology.gpu_count());
    let level = nccl::p2p_level(env, hw.cpu_amd, n as u32);
    (0..n)
        .map(|a| {
            // ncclhost59: NCCL's class, from its CPU (NUMA) nodes, not the sockets.
            let class = hw.nccl_path_class(a, (a + 1) % n);
            (class, nccl::transport(class, hw.gpu.p2p, level))
        })
        .collect()
}

/// Issue #19 point 1 (shmhost19): the warning for SHM costed without host facts. When a ring of
/// GPUs `0..n` (one per size in `groups`) has an SHM hop, the hardware has no `[host]` section and
/// its `shm_copy_bw` is still a template's fitted value (fitted on another host), the SHM rate is
/// that host's, not this one's: say so once, naming the file, the value and its rows, and how to give
/// the host's facts. `None` otherwise (P2P only, `[host]` given, or the box's own `shm_copy_bw`).
pub fn shm_without_host_warning(hw: &Hardware, groups: &[usize], env: &NcclEnv) -> Option<String> {
    if hw.host.is_some() {
        return None;
    }
    let mark = hw.fitted.get("shm_copy_bw")?;
    let kinds = |kind| hw.layers.iter().filter(move |l| l.kind == kind);
    if !kinds(crate::scenario::layers::LayerKind::Template).any(|l| l.file == mark.file) {
        return None;
    }
    let (n, shm) = groups
        .iter()
        .filter(|&&n| n > 1)
        .map(|&n| {
            let hops = ring_hops(hw, n, env);
            (
                hops.len(),
                hops.iter().filter(|(_, t)| *t == Transport::Shm).count(),
            )
        })
        .find(|&(_, shm)| shm > 0)?;
    let file = kinds(crate::scenario::layers::LayerKind::Preset)
        .chain(kinds(crate::scenario::layers::LayerKind::Scenario))
        .map(|l| l.file.clone())
        .next()
        .unwrap_or_else(|| hw.name.clone());
    Some(format!(
        "NCCL takes SHM on {shm} of the {n} ring hops of GPUs 0-{last}, and {file} has no [host] section: each \
         SHM connection is costed at shm_copy_bw = {bw:.1} GB/s, the template's value fitted on another host \
         ({}: {}), not this host's rate. Give the host's facts as a [host] section (cpu_model, sockets, \
         memory_channels, dimm_mts, socket_links, socket_link_bw) with [params] shm_read_efficiency \
         (book: collectives.md, \"SHM from host facts\"; `tpsim import-topo --cpu-model NAME --sockets N` \
         writes them)",
        mark.file,
        mark.rows,
        last = n - 1,
        bw = hw.params.shm_copy_bw.as_gbps(),
    ))
}

impl Comm {
    /// Builds the communicator over GPUs `0..n` of `hw` with NCCL environment `env`.
    pub fn new(hw: &Hardware, n: usize, env: &NcclEnv) -> Comm {
        let cache = shared_cache(hw, n, env);
        let mut fabric = Fabric::new(hw);
        let ranks: Vec<usize> = (0..n.min(hw.topology.gpu_count())).collect();
        let n = ranks.len();
        let gpu = &hw.gpu;
        let level = nccl::p2p_level(env, hw.cpu_amd, n as u32);
        // Issue #17 point 4: an xGMI mesh is a peer fabric like NVLink for RCCL's tuner (RCCL reuses
        // NCCL's NVL link type for xGMI); its port is all links together.
        let xgmi = hw.accel.xgmi.as_ref().map(|x| x.port_bw().as_gbps());
        let peer_fabric = gpu.nvlink || xgmi.is_some();
        // NCCL's model of the GPU's own link: NVLink port bandwidth on NVLink boxes, else PCIe.
        let link = match (gpu.nvlink, hw.params.nvlink_bw, xgmi) {
            (_, _, Some(x)) => x,
            (true, Some(nv), _) => nv.as_gbps(),
            _ => gpu.nccl_pci_bandwidth_gbps(),
        };
        let mut ring_path = Vec::with_capacity(n);
        let mut transport = Transport::P2p;
        let mut hop_transports = Vec::with_capacity(n);
        for (class, t) in ring_hops(hw, n, env) {
            transport = transport.max(t);
            hop_transports.push(t);
            // Intel's P2P overhead on PHB hops only, the inter-CPU link on SYS hops (ncclamd58,
            // ncclhost59: `nccl::hop_bw_gbps`).
            let bw = nccl::hop_bw_gbps(class, link, hw.cpu_amd, hw.cpu_generation, env.version);
            ring_path.push(PathInfo { class, bw_gbps: bw });
        }
        let sm = sm_of(&gpu.compute_capability);
        let input = NcclTopoInput {
            ranks: n as u32,
            sm,
            cpu_amd: hw.cpu_amd,
            gpu_link_gbps: link,
            ring_path,
            nvlink: peer_fabric,
        };
        let graph = nccl::search_ring(&input, env);
        let table = nccl::tune(&graph, n as u32, &input, env);
        let max_ch = graph
            .comm_channels
            .max(env.min_nchannels.unwrap_or(0))
            .clamp(1, 64);
        let conn_links = fabric.add_nccl_connections(&ranks, max_ch);
        Comm {
            fabric,
            ranks,
            env: env.clone(),
            level,
            transport,
            hop_transports,
            graph,
            table,
            nvlink: peer_fabric,
            custom_gap: custom_kernel_gap(hw),
            p2p: gpu.p2p,
            conn_links,
            cache,
            custom: CustomLimits::default(),
        }
    }

    /// The same communicator with the engine's custom allreduce cutoff.
    pub fn with_custom(mut self, custom: CustomLimits) -> Comm {
        self.custom = custom;
        self
    }

    /// NCCL's per-call choice for `bytes`.
    pub fn nccl_choice(&self, bytes: u64) -> Option<Choice> {
        self.table.select(Bytes(bytes)).ok()
    }

    fn plan(&self, c: &Choice) -> NcclPlan {
        let eff = c.proto.payload_efficiency();
        // NCCL's per-step figure: what SHM hops pay, and P2P hops except Simple ring steps on PCIe.
        let tuning = Duration::from_us_f64(nccl::hw_latency_us_for(
            self.env.version,
            self.nvlink,
            c.algo,
            c.proto,
        ));
        NcclPlan {
            algo: c.algo,
            proto: c.proto,
            channels: c.channels.max(1),
            base_latency: Duration::from_us_f64(nccl::base_latency_us(c.algo, c.proto)),
            step_latency: self.step_latency(c, tuning),
            shm_step_latency: tuning,
            efficiency: eff,
            // Forwarding granularity. LL is cut-through at the grain of one pass of the block: each
            // thread moves one 16-byte line carrying 8 bytes (device.h), so nthreads × 8 B; LL128
            // and Simple forward whole slots (buffer / NCCL_STEPS).
            slot_bytes: match c.proto {
                Proto::Ll => (u64::from(c.nthreads.max(32)) * 8).max(LL_MIN_PIECE),
                _ => ((self.env.slot_bytes(c.proto) as f64) * eff) as u64,
            },
            shm_hops: self.hop_transports.iter().map(|&t| t == Transport::Shm).collect(),
            // The per-channel cap was measured with large (Simple) messages only.
            conn_links: if c.proto == Proto::Simple {
                self.conn_links.clone()
            } else {
                Vec::new()
            },
        }
    }

    /// The time a step of the chosen protocol takes on a P2P hop beyond its data: NCCL's tuning
    /// figure, except for Simple ring steps on PCIe, where the box's measured
    /// `nccl_simple_step_latency` replaces NCCL's 5.7 µs (which its tuner uses to rank protocols,
    /// not a measured time).
    fn step_latency(&self, c: &Choice, tuning: Duration) -> Duration {
        if c.proto == Proto::Simple && c.algo == Algo::Ring && !self.nvlink {
            self.fabric.params.nccl_simple_step_latency
        } else {
            tuning
        }
    }

    /// One allreduce of `bytes` per rank.
    pub fn allreduce(&self, bytes: u64, req: Request) -> Outcome {
        let key = match req {
            Request::Backend(_) => (bytes, false, format!("{req:?}|{:?}", self.custom)),
            _ => (bytes, false, format!("{req:?}")),
        };
        if let Some(o) = self.cached(&key) {
            return o;
        }
        let o = self.simulate(bytes, req);
        self.store(key, &o);
        o
    }

    /// One allreduce, always simulated (no cache): what the benchmark measures.
    pub fn simulate(&self, bytes: u64, req: Request) -> Outcome {
        let n = self.ranks.len();
        let custom = match req {
            Request::Custom(a) => Some(a),
            Request::Backend(AllreduceBackend::Custom) if self.quick_reduce_takes(bytes).is_some() => {
                self.quick_reduce_takes(bytes)
            }
            // Issue #19 point 3: FlashInfer's own schedule (`custom_kernels::flashinfer_ipc`).
            Request::Backend(_) if self.pcie_ipc_takes(bytes) => Some(CustomAlgo::FlashinferIpc),
            Request::Backend(AllreduceBackend::Custom) => self.custom_dispatch(bytes),
            _ => None,
        };
        if let Some(a) = custom {
            return allreduce::custom(&self.fabric, &self.ranks, bytes, a, self.custom_gap);
        }
        let Some(choice) = self.nccl_choice(bytes) else {
            return Outcome {
                time: Duration::ZERO,
                algorithm: "none (NCCL_ALGO/NCCL_PROTO exclude every choice)".into(),
                protocol: "-".into(),
                channels: 0,
                bottleneck: None,
                flows: 0,
                timeline: Arc::new([]),
            };
        };
        if req == Request::NcclAnalytic || n < 2 {
            return Outcome {
                time: Duration::from_us_f64(choice.time_us),
                algorithm: format!("nccl-analytic {}/{}", choice.algo.as_str(), choice.proto.as_str()),
                protocol: choice.proto.as_str().into(),
                channels: choice.channels,
                bottleneck: None,
                flows: 0,
                timeline: Arc::new([]),
            };
        }
        allreduce::nccl(&self.fabric, &self.ranks, bytes, &self.plan(&choice))
    }

    /// Issue #17 point 4: QuickReduce when its window takes `bytes` (a multiple of 16 inside it).
    fn quick_reduce_takes(&self, bytes: u64) -> Option<CustomAlgo> {
        let (regime, lo, hi) = self.custom.quick_reduce?;
        tpsim_model::quick_reduce::takes(Some((lo, hi)), bytes).then_some(CustomAlgo::QuickReduce(regime))
    }

    /// Whether SGLang's PCIe-IPC backend takes an allreduce of `bytes` (`scenario::pcie_ipc`): on,
    /// 2, 4 or 8 ranks, within its workspace; it needs peer access like the custom kernel.
    fn pcie_ipc_takes(&self, bytes: u64) -> bool {
        self.custom
            .pcie_ipc_max_bytes
            .is_some_and(|m| self.p2p && matches!(self.ranks.len(), 2 | 4 | 8) && bytes > 0 && bytes <= m)
    }

    /// The engine's custom-allreduce dispatch for `bytes` (`None` = falls back to NCCL).
    pub fn custom_dispatch(&self, bytes: u64) -> Option<CustomAlgo> {
        let n = self.ranks.len();
        // The engines also require working P2P between every pair (engine-memory.md).
        let within = if self.custom.inclusive {
            bytes <= self.custom.max_size
        } else {
            bytes < self.custom.max_size
        };
        if !self.p2p || !matches!(n, 2 | 4 | 6 | 8) || !bytes.is_multiple_of(16) || !within {
            return None;
        }
        let one_shot = n == 2
            || (self.nvlink && n <= 4 && bytes < CUSTOM_ONESHOT_NVLINK4)
            || (n <= 8 && bytes < CUSTOM_ONESHOT_8);
        Some(if one_shot {
            CustomAlgo::OneShot
        } else {
            CustomAlgo::TwoShot
        })
    }

    /// An all-gather ending with `total` bytes per rank: NCCL ring, n − 1 steps of total / n.
    pub fn allgather(&self, total: u64) -> Outcome {
        let key = (total, true, String::new());
        if let Some(o) = self.cached(&key) {
            return o;
        }
        let o = match self.table.select(Bytes(total)) {
            Ok(c) if self.ranks.len() >= 2 => {
                allreduce::nccl_allgather(&self.fabric, &self.ranks, total, &self.plan(&c))
            }
            _ => self.simulate(0, Request::Nccl),
        };
        self.store(key, &o);
        o
    }

    fn cached(&self, key: &(u64, bool, String)) -> Option<Outcome> {
        let c = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        c.get(key).cloned()
    }

    fn store(&self, key: (u64, bool, String), o: &Outcome) {
        let mut c = self.cache.lock().unwrap_or_else(PoisonError::into_inner);
        c.entry(key).or_insert_with(|| o.clone());
    }
}

/// "12.0" → 120 (NCCL's compute capability × 10).
pub(crate) fn sm_of(cc: &str) -> u32 {
    let mut it = cc.split('.');
    let major: u32 = it.next().and_then(|x| x.trim().parse().ok()).unwrap_or(8);
    let minor: u32 = it.next().and_then(|x| x.trim().parse().ok()).unwrap_or(0);
    major * 10 + minor.min(9)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::hardware_from_preset;

    /// NCCL picks the transport per connection: on the ASUS box with the default level (PXB) the
    /// partition-local hops 0→1 and 2→3 are P2P (PIX), the hops 1→2 and 3→0 between partitions
    /// (NODE) are SHM (rtx6kpro asus-esc8000a-e13p-broadcom-switches.md, "NCCL Configuration").
    #[test]
    fn ring_hops_carry_their_own_transport() {
        let hw = hardware_from_preset("rtx-pro-6000-8x-asus-esc8000a-e13p").unwrap();
        let c = Comm::new(&hw, 4, &NcclEnv::default());
        use Transport::{P2p, Shm};
        assert_eq!(c.hop_transports, vec![P2p, Shm, P2p, Shm]);
        assert_eq!(c.transport, Shm);
        let sys = NcclEnv {
            p2p_level: Some(PathClass::Sys),
            ..NcclEnv::default()
        };
        let c = Comm::new(&hw, 4, &sys);
        assert_eq!(c.hop_transports, vec![P2p; 4]);
    }

    /// With mixed hops the ring's large-message rate is set by its SHM hops at `shm_copy_bw`
    /// (30.3 GB/s in the ASUS preset), not by SHM everywhere: 32 MiB × 2 × 3/4 ÷ 30.3 GB/s ≈ 1661 µs
    /// of SHM-hop time, so the call must take at least that and not much more (the P2P hops and
    /// latencies are hidden under the SHM hop's pipeline; 10 % allowance).
    #[test]
    fn mixed_ring_is_bound_by_its_shm_hops() {
        let hw = hardware_from_preset("rtx-pro-6000-8x-asus-esc8000a-e13p").unwrap();
        let c = Comm::new(&hw, 4, &NcclEnv::default());
        let bytes = 32u64 << 20;
        let t = c.allreduce(bytes, Request::Nccl).time.as_us_f64();
        let floor = bytes as f64 * 1.5 / 30.3e9 * 1e6;
        assert!(
            t >= floor && t <= floor * 1.1,
            "{t} µs vs SHM-hop floor {floor} µs"
        );
    }
}
