//! The scenario file as written: every field optional so that presets and inline overrides merge
//! key by key; `deny_unknown_fields` everywhere so a typo is an error, not a silent default.

use serde::Deserialize;
use std::collections::BTreeMap;
use tpsim_model::llm::Quantization;
use tpsim_model::units::{Bandwidth, Bytes, Duration};

use super::AllreduceBackend;

/// Declares a section whose fields are all optional, with `merged_over(base)` taking each field
/// from `self` when set and from `base` otherwise.
macro_rules! mergeable {
    ($(#[$m:meta])* pub struct $name:ident { $($(#[$fm:meta])* $f:ident : $t:ty,)* }) => {
        $(#[$m])*
        #[derive(Debug, Clone, Default, Deserialize)]
        #[serde(deny_unknown_fields)]
        pub struct $name { $($(#[$fm])* pub $f: Option<$t>,)* }
        impl $name {
            /// The keys of this section, in declaration order.
            pub const FIELDS: &'static [&'static str] = &[$(stringify!($f)),*];
            /// Field by field: `self` where set, else `base`.
            pub fn merged_over(self, base: Self) -> Self {
                Self { $($f: self.$f.or(base.$f),)* }
            }
            /// Whether the key `name` is set in this section.
            pub fn is_set(&self, name: &str) -> bool {
                match name { $(stringify!($f) => self.$f.is_some(),)* _ => false }
            }
        }
    };
}

/// Top level of a scenario file.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFile {
    /// Seed of every random stream of the run (default 0).
    pub seed: Option<u64>,
    #[serde(default)]
    pub hardware: HardwareSection,
    pub model: Option<ModelSection>,
    pub engine: Option<EngineSection>,
    pub speculative: Option<SpeculativeSection>,
    pub workload: Option<WorkloadSection>,
    /// Issue #18 (load): service-level objectives for goodput and `tpsim capacity`.
    pub slo: Option<SloSection>,
}

/// `[hardware]`: a preset plus overrides, or a whole box inline.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HardwareSection {
    /// Bundled preset name or a path to a hardware TOML file (relative to the scenario).
    pub preset: Option<String>,
    /// A template whose keys this section (or file) is merged over, key by key as a scenario over its
    /// preset: a bundled template name (`scenarios/hardware/templates/<name>.toml`) or a path
    /// relative to the file that names it. Templates may extend templates.
    pub extends: Option<String>,
    /// GPU count the user expects; must match the topology.
    pub gpus: Option<u32>,
    /// A profile written by `tpsim-calibrate fit` (path relative to the scenario): its values go over
    /// the preset's `[params]` and under this section's own `params`.
    pub profile: Option<String>,
    pub name: Option<String>,
    /// "amd" or "intel" (NCCL's default P2P level and inter-socket model depend on it).
    pub cpu_vendor: Option<String>,
    /// The CPU generation as NCCL tiers it ("zen2", "zen4", "zen5", "broadwell", "skylake",
    /// "sapphire-rapids", "emerald-rapids"; `tpsim_model::nccl::CpuGeneration`): NCCL's inter-socket
    /// bandwidth by release (ncclamd58). Absent: the vendor's default figure.
    pub cpu_generation: Option<String>,
    /// NUMA nodes the host's OS reports (lscpu `NUMA node(s)`), where they are not one per socket:
    /// NCCL's CPU nodes are NUMA nodes (ncclhost59, `tpsim_model::nccl::nccl_path_class`). 1 is one
    /// node for the whole box (AMD NPS0); more than one per socket needs `[host]`'s
    /// `numa_nodes_per_socket` and `gpu_numa_nodes`. Absent: one node per socket.
    pub numa_nodes: Option<u32>,
    pub gpu: Option<GpuSection>,
    pub topology: Option<TopologySection>,
    pub params: Option<ParamsSection>,
    /// `[compute]` (`[hardware.compute]` in a scenario): efficiency curves by op class.
    pub compute: Option<ComputeSection>,
    /// `[fitted.<param>]` (`[hardware.fitted.<param>]` in a scenario): the `[params]` values that
    /// were fitted to measurements, each with the rows it was fitted to and the command that refits
    /// it (issue #14: calibration is not validation).
    pub fitted: Option<BTreeMap<String, FittedSection>>,
    // Accelerators and multi-node (issue #17 point 4): sim/src/scenario/accel.rs resolves these.
    /// `[xgmi]` (`[hardware.xgmi]` in a scenario): AMD's Infinity Fabric mesh between the GPUs.
    pub xgmi: Option<XgmiSection>,
    /// `[cluster]` (`[hardware.cluster]` in a scenario): several boxes joined by NICs.
    pub cluster: Option<ClusterSection>,
    // Host-aware SHM costs (issue #19 point 1): sim/src/scenario/host.rs resolves this.
    /// `[host]` (`[hardware.host]` in a scenario): the host's CPU, memory and socket-link facts.
    pub host: Option<HostSection>,
}

/// `[fitted.<param>]`: where a fitted `[params]` value came from. Those rows are then a consistency
/// check of the value, never evidence of accuracy.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FittedSection {
    /// The rows or observation the value was fitted to, e.g.
    /// `tests/data/allreduce.tsv lines 73-79 (2x RTX 4090, no P2P: busbw 2.2 GB/s)`.
    pub rows: String,
    /// The command that refits it from those rows.
    pub refit: String,
}

/// `[compute]` of a hardware preset (`[hardware.compute]` inline, `[compute]` in a profile).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComputeSection {
    /// `[compute.curves.<class>]`, class ∈ default, attention, mlp, moe, lm_head
    /// (`tpsim_model::curves::OpClass`).
    #[serde(default)]
    pub curves: BTreeMap<String, CurveSection>,
    /// `[compute.formats.<dtype>]`, dtype ∈ bf16, fp16, fp32, fp8, int4, int8, nvfp4, mxfp4 (issue #16):
    /// `points = [[bytes per kernel, factor], …]`, the weight-streaming efficiency of that format's
    /// kernels relative to the op class's (`tpsim_model::curves::Curves::formats`).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub formats: BTreeMap<String, CurveSection>,
    /// `[compute.attention_backends.<name>]`, name one of SGLang's `--attention-backend` values
    /// (issue #16): `points = [[bytes per kernel, factor], …]` for the decode attention's KV-cache reads.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attention_backends: BTreeMap<String, CurveSection>,
    /// `[compute.moe_backends.<name>]`, name a MoE kernel backend (`engine.moe_backend`,
    /// `scenario::moe_backend`): `overhead_us`, the fixed time per MoE layer that backend's expert
    /// kernels add on this GPU over the template's streaming cost (sm120decode).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub moe_backends: BTreeMap<String, MoeBackendSection>,
}

/// `[compute.moe_backends.<name>]`: what one MoE kernel backend costs on this GPU beyond the template.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MoeBackendSection {
    /// Fixed extra time per MoE layer (all its expert kernels together), µs, ≥ 0 (0 when absent).
    #[serde(default)]
    pub overhead_us: f64,
    /// burstprefill: the highest fraction of the GPU's dense bf16 peak this backend's expert GEMMs
    /// reach, in (0, 1]: a ceiling on the MoE layer's FLOP rate (prefill-sized batches), leaving
    /// memory-bound (decode) layers as the template costs them. Absent: no ceiling.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flops_efficiency: Option<f64>,
    /// Where the value comes from (data file and rows, derivation).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl ComputeSection {
    /// Class by class and format by format: `self`'s curves replace `base`'s whole.
    pub fn merged_over(self, base: ComputeSection) -> ComputeSection {
        let mut curves = base.curves;
        curves.extend(self.curves);
        let mut formats = base.formats;
        formats.extend(self.formats);
        let mut attention_backends = base.attention_backends;
        attention_backends.extend(self.attention_backends);
        let mut moe_backends = base.moe_backends;
        moe_backends.extend(self.moe_backends);
        ComputeSection {
            curves,
            formats,
            attention_backends,
            moe_backends,
        }
    }
}

/// `[compute.curves.<class>]`: achieved efficiency versus size per kernel, piecewise-linear in
/// ln(size), flat beyond the ends (`tpsim_model::curves::Curve`).
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CurveSection {
    /// `[[bytes per kernel, memory efficiency], …]`, sizes strictly increasing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub points: Option<Vec<[f64; 2]>>,
    /// `[[FLOPs per kernel, FLOP efficiency], …]`, sizes strictly increasing.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flops_points: Option<Vec<[f64; 2]>>,
    /// Optional, with `flops_points` (issue #18, prefillgpus): `[low, high]`, the FLOPs per kernel
    /// over which the FLOP efficiencies rest on measurements. A prefill whose FLOP-bound kernels lie
    /// outside it is reported as an extrapolation (`tpsim run`, JSON `prefill_calibration`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub flops_range: Option<[f64; 2]>,
    /// Optional (written by `fit`): the 95 % interval `[low, high]` of each `points` efficiency.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ci: Option<Vec<[f64; 2]>>,
    /// Optional: how the curve was obtained (`fit: …`, a reference).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<String>,
}

impl HardwareSection {
    /// Overrides in `self` over the preset `base`, section by section and key by key.
    pub fn merged_over(self, base: HardwareSection) -> HardwareSection {
        HardwareSection {
            preset: None,
            extends: None,
            gpus: self.gpus,
            profile: self.profile.or(base.profile),
            name: self.name.or(base.name),
            // ncclamd58: a layer naming another vendor without its own generation does not inherit
            // the base's (a Xeon's "skylake" under cpu_vendor = "amd" would be refused).
            cpu_generation: match (&self.cpu_vendor, &base.cpu_vendor, self.cpu_generation) {
                (_, _, Some(g)) => Some(g),
                (Some(top), below, None) if below.as_deref().unwrap_or("amd") != top => None,
                (_, _, None) => base.cpu_generation,
            },
            cpu_vendor: self.cpu_vendor.or(base.cpu_vendor),
            numa_nodes: self.numa_nodes.or(base.numa_nodes),
            gpu: Some({
                let top = self.gpu.unwrap_or_default();
                // Issue #17 point 5: torch's total describes the memory nvidia-smi's total does; a layer
                // that gives another `memory_total_mib` without its own `torch_total_gib` (the 48 GB
                // RTX 4090 over the 24 GB template) does not inherit the base's.
                let new_memory = top.memory_total_mib.is_some() && top.torch_total_gib.is_none();
                // moetable: likewise a layer naming another GPU without its own `device_name`
                // does not inherit the base's torch device name.
                let new_gpu = top.name.is_some() && top.device_name.is_none();
                let mut g = top.merged_over(base.gpu.unwrap_or_default());
                if new_memory {
                    g.torch_total_gib = None;
                }
                if new_gpu {
                    g.device_name = None;
                }
                g
            }),
            // A topology is replaced whole: node attributes belong to the GPU paths they name.
            topology: match self.topology {
                Some(t) if t.gpus.is_some() => Some(t),
                Some(t) => Some(TopologySection {
                    gpus: base.topology.and_then(|b| b.gpus),
                    nodes: t.nodes,
                }),
                None => base.topology,
            },
            params: Some(
                self.params
                    .unwrap_or_default()
                    .merged_over(base.params.unwrap_or_default()),
            ),
            compute: match (self.compute, base.compute) {
                (Some(s), Some(b)) => Some(s.merged_over(b)),
                (s, b) => s.or(b),
            },
            fitted: match (self.fitted, base.fitted) {
                (Some(s), Some(mut b)) => {
                    b.extend(s);
                    Some(b)
                }
                (s, b) => s.or(b),
            },
            // Accelerators and multi-node (issue #17 point 4): key by key.
            xgmi: merge_opt(self.xgmi, base.xgmi, XgmiSection::merged_over),
            cluster: merge_opt(self.cluster, base.cluster, ClusterSection::merged_over),
            // Host-aware SHM costs (issue #19 point 1): key by key.
            host: merge_opt(self.host, base.host, HostSection::merged_over),
        }
    }
}

/// Both set: `f(top, base)`; else whichever is set.
fn merge_opt<T>(top: Option<T>, base: Option<T>, f: impl Fn(T, T) -> T) -> Option<T> {
    match (top, base) {
        (Some(t), Some(b)) => Some(f(t, b)),
        (t, b) => t.or(b),
    }
}

// Accelerators and multi-node (issue #17 point 4): the `[xgmi]` and `[cluster]` sections.
mergeable! {
    /// `[hardware.xgmi]`: a fully connected Infinity Fabric (xGMI) mesh, every GPU linked to every
    /// other by its own link (AMD Instinct MI300X / MI325X / MI355X platforms).
    pub struct XgmiSection {
        /// Links per GPU (7 in an 8-GPU platform: one to each peer).
        links: u32,
        /// Usable bandwidth of one link, per direction.
        link_bw: Bandwidth,
        /// One-way GPU → GPU latency over a link.
        latency: Duration,
    }
}

// Host-aware SHM costs (issue #19 point 1): the `[host]` section (validated in host.rs).
mergeable! {
    /// `[hardware.host]`: the facts of the host NCCL's SHM transport runs through.
    pub struct HostSection {
        /// CPU model as the source names it.
        cpu_model: String,
        /// Sockets (NUMA nodes of the CPU); the topology's `socketN` segments must fit.
        sockets: u32,
        /// Populated DRAM channels per socket.
        memory_channels: u32,
        /// DIMM transfer rate, MT/s.
        dimm_mts: u32,
        /// Links between two sockets (UPI / xGMI); required with more than one socket.
        socket_links: u32,
        /// Bandwidth of one socket link per direction.
        socket_link_bw: Bandwidth,
        /// `"receiver"` (NCCL's default `NCCL_SHM_LOCALITY`) or `"sender"`.
        shm_buffer: String,
        /// shm49: NUMA nodes per socket (AMD NPS2 / NPS4, Intel SNC2 / SNC3 / SNC4); 1 when absent.
        numa_nodes_per_socket: u32,
        /// shm49: each GPU's NUMA node (`nvidia-smi topo -m`'s NUMA Affinity column); required where
        /// `numa_nodes_per_socket` > 1.
        gpu_numa_nodes: Vec<u32>,
    }
}

mergeable! {
    /// `[hardware.cluster]`: `nodes` copies of the box joined by NICs (NCCL's net transport).
    pub struct ClusterSection {
        /// Boxes (each the `[topology]` above); 1 when absent.
        nodes: u32,
        /// A bundled NIC preset (`scenarios/nics/<name>.toml`) whose keys go under this section's.
        nic: String,
        /// The NIC's marketing name.
        nic_name: String,
        /// Line rate of one NIC port, per direction.
        nic_bw: Bandwidth,
        /// One-way latency through the NIC pair and the switch.
        nic_latency: Duration,
        /// NICs per box ("one per GPU" = the box's GPU count).
        nics_per_node: u32,
        /// GPUDirect RDMA: the NIC reads and writes GPU memory itself; without it every transfer
        /// is staged through a host buffer (NCCL's `NCCL_NET_GDR_LEVEL`).
        gpudirect_rdma: bool,
        /// GPUs sharing one NVLink domain across boxes (GB200 NVL72: 72); transfers inside it use
        /// NVLink, not the NICs. Absent: the box's own GPUs.
        nvlink_domain_gpus: u32,
    }
}

mergeable! {
    /// `[hardware.gpu]`: datasheet figures (see `tpsim_model::hw::GpuSpec`).
    pub struct GpuSection {
        name: String,
        memory_total_mib: u64,
        memory_bandwidth: Bandwidth,
        bf16_tflops: f64,
        /// fp8rate: dense FP8 / FP4 tensor TFLOP/s (`tpsim_model::hw::GpuSpec`).
        fp8_tflops: f64,
        fp4_tflops: f64,
        /// h200gl51: dense FP32 (CUDA-core) TFLOP/s (`tpsim_model::hw::GpuSpec::fp32_tflops`).
        fp32_tflops: f64,
        sm_count: u32,
        compute_capability: String,
        pcie_gen: u32,
        pcie_width: u32,
        p2p: bool,
        nvlink: bool,
        // vLLM memory (issue #17): torch's device total (`torch.cuda.mem_get_info()`), GiB.
        torch_total_gib: f64,
        /// moetable: `torch.cuda.get_device_name()` (`tpsim_model::hw::GpuSpec::device_name`).
        device_name: String,
        /// Accelerators (issue #17 point 4): "nvidia" (default) or "amd"; AMD runs RCCL.
        vendor: String,
        /// longctx18: device-memory load latency in ns (`tpsim_model::hw::GpuSpec::dram_latency_ns`).
        dram_latency_ns: f64,
    }
}

/// `[hardware.topology]`: one path per GPU, e.g. "socket0/root0/switch0".
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TopologySection {
    pub gpus: Option<Vec<String>>,
    /// Per-node attributes (switch uplink generation/width, ACS), keyed by node name.
    pub nodes: Option<BTreeMap<String, tpsim_model::topo::NodeAttrs>>,
}

mergeable! {
    /// `[hardware.params]`: first-cut cost parameters (see the presets for their sources).
    pub struct ParamsSection {
        context_overhead: Bytes,
        mem_efficiency: f64,
        flops_efficiency: f64,
        kernel_overhead: Duration,
        pcie_gen5_x16_bw: Bandwidth,
        pcie_gen4_x16_bw: Bandwidth,
        // Optional: a Gen3 box's own measured figure (absent: half of Gen4, `fabric::pcie_bw`).
        pcie_gen3_x16_bw: Bandwidth,
        pcie_hop_latency: Duration,
        root_complex_latency: Duration,
        root_complex_bw: Bandwidth,
        inter_socket_bw: Bandwidth,
        inter_socket_latency: Duration,
        host_memory_bw: Bandwidth,
        shm_copy_bw: Bandwidth,
        nccl_channel_bw: Bandwidth,
        nccl_simple_step_latency: Duration,
        shm_step_cost: Duration,
        shm_cross_socket_step_cost: Duration,
        collapse_min_roots: u32,
        collapse_min_sources: u32,
        collapse_factor: f64,
        collapse_reads: bool,
        staged_peer_read_factor: f64,
        staged_latency: Duration,
        force_p2p: bool,
        nvlink_bw: Bandwidth,
        nvlink_latency: Duration,
        // Issue #19 points 1-2 (launch): host cost of one eager NCCL call.
        nccl_eager_launch: Duration,
        // Host-aware SHM costs (issue #19 point 1): used with a `[host]` section only.
        /// Fraction of a parent port's link rate its GPUs read NCCL's SHM buffers at.
        shm_read_efficiency: f64,
        // Issue #19 point 3: custom kernels' outstanding peer reads per GPU.
        kernel_read_outstanding: Bytes,
    }
}

/// `[model]`: a preset (name or directory with config.json + quant.toml) or a config.json path.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelSection {
    pub preset: Option<String>,
    pub config: Option<String>,
    pub quantization: Option<Quantization>,
    /// MoE routing skew: 0 (default) = independent uniform routing, the closed form
    /// E·(1 − (1 − k/E)^n); s > 0 = expert popularity ∝ 1 / rank^s, distinct experts estimated by
    /// seeded sampling.
    pub routing_skew: Option<f64>,
}

/// `[engine]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EngineSection {
    /// "sglang" (default).
    pub name: Option<String>,
    /// SGLang version as the user runs it (`0.5.8.post1`): selects the memory era when
    /// `engine.costs.era` is not given (see `tpsim_model::memory::sglang_era_from_version`).
    pub version: Option<String>,
    /// SGLang's `--max-running-requests` (default: 48 with EAGLE in the late-2025 and spring-2026
    /// eras, else min(max_total_num_tokens // 2, max_num_reqs)).
    pub max_running_requests: Option<u64>,
    /// SGLang's `--context-length` (default: the model config's `max_position_embeddings`).
    pub context_length: Option<u64>,
    pub tp: Option<u32>,
    pub mem_fraction_static: Option<f64>,
    pub allreduce: Option<AllreduceBackend>,
    pub page_size: Option<u64>,
    pub max_total_tokens: Option<u64>,
    pub cuda_graph: Option<bool>,
    /// SGLang's `--disable-overlap-schedule`.
    pub disable_overlap_schedule: Option<bool>,
    /// SGLang's `--ep-size`: 1 (TP-sharded experts, default) or `tp` (expert parallelism).
    pub ep_size: Option<u32>,
    /// vLLM's `--gpu-memory-utilization` (vLLM only; default 0.9).
    pub gpu_memory_utilization: Option<f64>,
    /// vLLM's `--max-model-len`: the start fails if one request of this length does not fit (vLLM only).
    /// A token count, or `"auto"` / `-1` (vLLM 0.14.0 on): the longest length that fits the KV
    /// cache, up to the model's (`scenario::max_model_len`).
    pub max_model_len: Option<MaxModelLenSpec>,
    // Local/global attention memory (issue #16):
    /// SGLang's `--swa-full-tokens-ratio` (default 0.8, in (0, 1]).
    pub swa_full_tokens_ratio: Option<f64>,
    /// SGLang's `--disable-hybrid-swa-memory` (default false).
    pub disable_hybrid_swa_memory: Option<bool>,
    /// vLLM's `--disable-hybrid-kv-cache-manager` (default false).
    pub disable_hybrid_kv_cache_manager: Option<bool>,
    // vLLM profile-run shape (issue #17 point 5): `--max-num-batched-tokens` and `--max-num-seqs`
    // (defaults: vLLM's for the GPU and release, `tpsim_model::vllm_batch_defaults`).
    pub max_num_batched_tokens: Option<u64>,
    pub max_num_seqs: Option<u64>,
    /// SGLang's `--enable-piecewise-cuda-graph` (issue #17 point 5): its reserve in the default
    /// `mem_fraction_static` (SGLang 0.5.9 `server_args.py`).
    pub enable_piecewise_cuda_graph: Option<bool>,
    /// graphmode: vLLM's `compilation_config.cudagraph_mode` (NONE, PIECEWISE, FULL,
    /// FULL_DECODE_ONLY, FULL_AND_PIECEWISE; default by release, `scenario::cudagraph_mode`).
    pub cudagraph_mode: Option<String>,
    /// NCCL environment variables, e.g. `NCCL_P2P_LEVEL = "SYS"`.
    pub env: Option<BTreeMap<String, String>>,
    // Collective options (issue #17, 3):
    /// The NCCL release, e.g. "2.27.5" (default: the engine version's torch pin, else 2.30.7).
    pub nccl_version: Option<String>,
    /// `[engine.nccl_tuner]`: NCCL's example tuner plugin's CSV rows.
    pub nccl_tuner: Option<super::NcclTunerSection>,
    /// The custom allreduce's `max_size` (vLLM `CustomAllreduce(max_size)`, SGLang `_MAX_CAR_SIZE`).
    pub custom_allreduce_max_size: Option<tpsim_model::units::Bytes>,
    pub costs: Option<CostsSection>,
    pub observed: Option<ObservedSection>,
    /// SGLang's `--attention-backend` (issue #16; default: SGLang's choice for the GPU and model,
    /// `scenario::attention_backend`).
    pub attention_backend: Option<String>,
    /// The MoE kernel backend the engine runs (SGLang's `--moe-runner-backend`, vLLM's NvFP4 MoE
    /// backend; sm120decode): picks `[compute.moe_backends.<name>]` of the hardware. Default: none
    /// (the template's cost; tpsim does not infer the engine's choice).
    pub moe_backend: Option<String>,
    /// h20moe: whether SGLang's triton fused MoE finds a tuned config file for the deployment's
    /// shape and GPU (`E=…,N=…,device_name=…json` under `fused_moe_triton/configs/triton_X_Y_Z/`).
    /// Default true; false: it runs `get_default_config`'s tile, costed by `passes::moe_call`.
    pub moe_tuned_config: Option<bool>,
    // Issue #17 (parallelism): SGLang DP attention.
    /// SGLang's `--enable-dp-attention` (default false; SGLang turns it off when `dp_size` is 1).
    pub enable_dp_attention: Option<bool>,
    /// SGLang's `--dp-size` / vLLM's `--data-parallel-size` (default 1): with `enable_dp_attention`, the
    /// attention data-parallel size (attention TP = tp / dp_size); without it (and under vLLM, issue #17
    /// dp) the number of data-parallel replicas of tp × pp GPUs each (`scenario::replicas`); under
    /// vLLM on a MoE model (issue #17 point 1, vllmdp) lock-step DP ranks of tp GPUs sharing the
    /// experts over dp × tp (`scenario::vllm_dp`).
    pub dp_size: Option<u32>,
    // Issue #17 (parallelism): pipeline parallelism.
    /// SGLang's `--pp-size` / vLLM's `--pipeline-parallel-size` (default 1): stages of consecutive
    /// layers, each on its own `tp` GPUs (tp × pp GPUs in all).
    pub pp_size: Option<u32>,
    // Issue #17 (parallelism): vLLM decode context parallelism.
    /// vLLM's `--decode-context-parallel-size` (default 1; MLA models, tp divisible by it).
    pub dcp_size: Option<u32>,
    // Issue #17 (parallelism): expert parallelism as the engines name it.
    /// vLLM's `--enable-expert-parallel` (vLLM only): EP size = tp × dp.
    pub enable_expert_parallel: Option<bool>,
    /// SGLang's `--moe-a2a-backend` (default "none": the allreduce path; the all-to-all backends are
    /// refused as not modelled).
    pub moe_a2a_backend: Option<String>,
    // Issue #17 point 1 (ep): the all-to-all MoE path (`scenario/moe_a2a.rs`).
    /// SGLang's `--deepep-mode`: auto (default), normal, low_latency.
    pub deepep_mode: Option<String>,
    /// vLLM's `VLLM_ALL2ALL_BACKEND` (vLLM 0.11 `envs.py` choices; used only with dp > 1).
    pub all2all_backend: Option<String>,
    // Issue #17 (vrows): the engines' `--dtype` (`scenario/engine_dtype.rs`).
    /// `--dtype` of SGLang and vLLM: auto (default), half, float16, bfloat16, float, float32.
    pub dtype: Option<String>,
    // Issue #17 (onlinequant): the engines' `--quantization` (`scenario/online_quant.rs`).
    /// `--quantization` of SGLang and vLLM: `fp8` (quantize an unquantized checkpoint at load
    /// time, or confirm an fp8 one); under SGLang also `modelopt` / `modelopt_fp4` on a ModelOpt
    /// NVFP4 checkpoint (b200sgl54: read by the SM 10.x MoE-runner rules); other methods are refused
    /// as not modelled.
    pub quantization: Option<String>,
    /// vLLM's `--kv-cache-memory-bytes` (vLLM only): the KV budget per rank in bytes, instead of
    /// the profile's `gpu_memory_utilization` rule.
    pub kv_cache_memory_bytes: Option<tpsim_model::units::Bytes>,
    /// vLLM's `--mamba-cache-dtype` (vLLM only): the dtype of the recurrent layers' conv and SSM
    /// state, `auto` (the model dtype) by default; choices by release (`scenario::mamba_dtype`).
    pub mamba_cache_dtype: Option<String>,
    /// vLLM's `--mamba-ssm-cache-dtype` (vLLM only): the SSM state's dtype, `auto` (as
    /// `mamba_cache_dtype`, or what the model's config rule says) by default.
    pub mamba_ssm_cache_dtype: Option<String>,
    /// cmdsurvey62: SGLang's `--mamba-scheduler-strategy` (SGLang only; `auto` by default, `no_buffer`,
    /// `extra_buffer`, 0.5.13 also `extra_buffer_lazy`): how the radix cache keeps a hybrid model's
    /// recurrent state (`scenario::mamba_strategy`).
    pub mamba_scheduler_strategy: Option<String>,
    /// installkind: how vLLM was installed, `pip` (default: `pip install vllm==X`) or `docker`
    /// (the vllm/vllm-openai image, which ships FlashInfer; `scenario::vllm_install`). vLLM only.
    pub install: Option<String>,
    // Issue #18 point 1 (schedkeys): scheduler settings (`scenario/scheduler.rs`).
    /// SGLang's `--chunked-prefill-size` (-1 = off; default by GPU memory).
    pub chunked_prefill_size: Option<i64>,
    /// SGLang's `--max-prefill-tokens` (default 16384).
    pub max_prefill_tokens: Option<u64>,
    /// SGLang's `--schedule-conservativeness` (default 1.0).
    pub schedule_conservativeness: Option<f64>,
    /// SGLang's `--disable-radix-cache` (default false).
    pub disable_radix_cache: Option<bool>,
    /// SGLang's `--schedule-policy` (fcfs only is modelled).
    pub schedule_policy: Option<String>,
    /// vLLM's `--enable-prefix-caching` / `--no-enable-prefix-caching` (default true).
    pub enable_prefix_caching: Option<bool>,
    /// SGLang's `--enable-mixed-chunk` (default false): prefill chunks run with the running decodes.
    pub enable_mixed_chunk: Option<bool>,
    /// vLLM's `--enable-chunked-prefill` (V1 turns it on for generating models whatever is given).
    pub enable_chunked_prefill: Option<bool>,
    /// vLLM's `--long-prefill-token-threshold` (default 0 = off): prompt tokens one request computes per step.
    pub long_prefill_token_threshold: Option<u64>,
    // Issue #18 (frontend): the API server in front of the scheduler (`scenario/frontend.rs`).
    /// vLLM's `--api-server-count` (default 1): API-server processes.
    pub api_server_count: Option<u32>,
    // Issue #17 (graphs): CUDA-graph capture settings and vLLM's async scheduling
    // (`scenario/cuda_graphs.rs`).
    /// SGLang's `--cuda-graph-max-bs` (default by GPU memory and tp, `_handle_gpu_memory_settings`).
    pub cuda_graph_max_bs: Option<i64>,
    /// SGLang's `--cuda-graph-bs` (a list; its largest becomes `cuda_graph_max_bs`).
    pub cuda_graph_bs: Option<Vec<i64>>,
    /// vLLM's `--cuda-graph-sizes` (0.11: one value n = 1, 2, 4, 8…n by 8; several = that list;
    /// 0.12: deprecated alias of `--cudagraph-capture-sizes`; removed later).
    pub cuda_graph_sizes: Option<Vec<i64>>,
    /// vLLM's `compilation_config.cudagraph_capture_sizes` (0.11) / `--cudagraph-capture-sizes` (0.12+).
    pub cudagraph_capture_sizes: Option<Vec<i64>>,
    /// vLLM's `--max-cudagraph-capture-size` (0.12+; default min(2 × max_num_seqs, 512)).
    pub max_cudagraph_capture_size: Option<i64>,
    /// vLLM's `--async-scheduling` (default false): the scheduler's step overlaps the forward.
    pub async_scheduling: Option<bool>,
    /// args58: vLLM's `--distributed-executor-backend` when the ranks span boxes: `ray` (tpsim's
    /// default, the Ray-cluster launch `tpsim engine-args` prints) or `mp` (vLLM ≥ 0.12.0's own
    /// multi-node launch, `--nnodes N --node-rank R --master-addr HEAD`).
    pub distributed_executor_backend: Option<String>,
    // Issue #17 (vllmv0): vLLM's V0 engine (`scenario/vllm_v0.rs`).
    /// `VLLM_USE_V1` (0.7–0.10): `false` runs the V0 engine, `true` the V1 engine; default by release.
    pub use_v1: Option<bool>,
    /// vLLM's `--num-scheduler-steps` (V0, 0.6.0–0.10.x): decode steps per scheduler call.
    pub num_scheduler_steps: Option<i64>,
    /// vLLM's `--swap-space` (GiB of pinned CPU memory per GPU, default 4): V0's CPU blocks (vllmv0mem).
    pub swap_space: Option<f64>,
    // Issue #17 (trustcode): `tpsim engine-args` only; no prediction reads it.
    /// `--trust-remote-code` of SGLang and vLLM: let the engine run the model repository's own
    /// Python (config, tokenizer). Default: the preset's entry in `scenarios/models/hf-ids.toml`
    /// `[trust_remote_code]` (absent: not printed).
    pub trust_remote_code: Option<bool>,
    // Issue #17 (flags): the rest of the user's launch command (`scenario::extra_args`).
    /// Flags (and their values) of the launch command that no key above states, as written:
    /// `["--host", "0.0.0.0", "--port", "8000"]`. Each is checked against the argument list of the
    /// release simulated; those with no effect on the simulation are accepted, those tpsim does not
    /// model are accepted with a warning, a flag a key states is refused (set the key).
    pub extra_args: Option<Vec<String>>,
    /// Issue #17 (cmdkey): the launch command itself (`vllm serve …`, `python -m
    /// sglang.launch_server …`, with environment assignments, `export` lines, `\` continuations or
    /// `docker run`), read into the keys above as `tpsim import-command` reads it; the loader
    /// replaces it by those keys before resolving (`scenario::command`), so a resolved file has none.
    pub command: Option<String>,
}

/// `engine.max_model_len` as written: a token count, `-1` or `"auto"` (vLLM's
/// `human_readable_int_or_auto`, 0.14.0 `engine/arg_utils.py`); checked by `scenario::max_model_len`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum MaxModelLenSpec {
    Number(i64),
    Text(String),
}

mergeable! {
    /// `[engine.costs]`: engine cost and memory parameters over `scenarios/engines/<name>.toml`.
    pub struct CostsSection {
        era: String,
        host_overhead: Duration,
        sync_cost: Duration,
        launch_overhead: Duration,
        custom_allreduce_buffers: Bytes,
        target_cuda_graph_memory: Bytes,
        draft_cuda_graph_memory: Bytes,
        activation_memory: Bytes,
        non_torch_memory: Bytes,
        // vLLM speculative decoding (issue #17): host work per draft step of vLLM's proposer.
        draft_step_overhead: Duration,
        // vLLM start-up parts (issue #17 point 5; tpsim_model::vllm_startup): the profile run's
        // peak activation and non-torch growth beyond `non_torch_memory` (the single-GPU part).
        vllm_activation_base: Bytes,
        vllm_sampler_bytes_per_logit: f64,
        vllm_non_torch_comm: Bytes,
        vllm_non_torch_per_peer: Bytes,
        // Issue #18 (frontend): the API server's CPU time per request, prompt token and output
        // token (`serve::frontend`; all 0: not modelled).
        frontend_request_cost: Duration,
        frontend_prompt_token_cost: Duration,
        frontend_output_token_cost: Duration,
    }
}

/// `[engine.observed]`: what a real start-up log said (GiB, the log's "GB").
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservedSection {
    /// "Init torch distributed ends" / the min over ranks of free memory after init.
    pub free_after_init_gib: Option<f64>,
    /// "Load weight end. ... avail mem=" (min over ranks).
    pub free_after_weights_gib: Option<f64>,
    /// vLLM: free memory when the worker starts.
    pub free_at_start_gib: Option<f64>,
    /// Weight memory: SGLang's "Load weight end. ... mem usage=X GB" (used when
    /// `free_after_weights_gib` is absent: available = total − X), vLLM's "Model loading took X GiB".
    pub weights_gib: Option<f64>,
    /// SGLang: "Capture cuda graph end. ... mem usage=X GB" (replaces the target's modelled CUDA-graph
    /// memory).
    pub cuda_graph_gib: Option<f64>,
    /// vLLM: the profile run's peak activation.
    pub peak_activation_gib: Option<f64>,
    /// vLLM: non-torch memory growth since the snapshot.
    pub non_torch_gib: Option<f64>,
}

/// `[speculative]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SpeculativeSection {
    /// "eagle3".
    pub algorithm: Option<String>,
    /// Draft model preset name or directory.
    pub draft: Option<String>,
    pub num_steps: Option<u32>,
    pub topk: Option<u32>,
    pub num_draft_tokens: Option<u32>,
    pub acceptance: Option<AcceptanceSection>,
    // vLLM speculative decoding (issue #17, `vllm_spec.rs`): vLLM's `num_speculative_tokens` and
    // `draft_tensor_parallel_size`.
    pub num_speculative_tokens: Option<u32>,
    pub draft_tensor_parallel_size: Option<u32>,
}

/// `[speculative] acceptance = { … }`, and the whole of an acceptance profile file
/// (`scenarios/acceptance/<name>.toml`, which may not hold `profile` or `trace`). Exactly one of
/// `alpha`, `per_position`, `cumulative` and `trace` after the profile is applied; inline keys
/// override the profile's.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AcceptanceSection {
    /// Bundled profile name or a path to a profile TOML file (relative to the scenario).
    pub profile: Option<String>,
    /// Path (relative to the scenario) of a file with one accept length per line, replayed in order.
    pub trace: Option<String>,
    pub alpha: Option<f64>,
    pub per_position: Option<Vec<f64>>,
    pub cumulative: Option<Vec<f64>>,
    /// Conditional acceptance of rank 2, 3, … siblings given the better ranks were rejected (trees).
    pub siblings: Option<Vec<f64>>,
    /// The draft's mean probability of its rank 1, 2, … candidates, by which SGLang ranks tree nodes.
    pub draft_scores: Option<Vec<f64>>,
}

impl AcceptanceSection {
    /// Field by field: `self` where set, else `base` (the chain form is taken whole from one side).
    pub fn merged_over(self, base: Self) -> Self {
        let own_chain = self.alpha.is_some()
            || self.per_position.is_some()
            || self.cumulative.is_some()
            || self.trace.is_some();
        let (alpha, per_position, cumulative, trace) = if own_chain {
            (self.alpha, self.per_position, self.cumulative, self.trace)
        } else {
            (base.alpha, base.per_position, base.cumulative, base.trace)
        };
        AcceptanceSection {
            profile: self.profile,
            trace,
            alpha,
            per_position,
            cumulative,
            siblings: self.siblings.or(base.siblings),
            draft_scores: self.draft_scores.or(base.draft_scores),
        }
    }
}

/// `[workload]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WorkloadSection {
    /// Requests in flight (closed loop: a finished request is replaced by the next one).
    pub concurrency: Option<u32>,
    /// Requests in all (default: `concurrency`).
    pub num_requests: Option<u32>,
    /// Prompt tokens per request (sets the starting context): a number or `{ min, max }`.
    pub prompt_len: Option<LengthSpec>,
    /// Output tokens per request: a number or `{ min, max }`.
    pub output_len: Option<LengthSpec>,
    // Issue #18 (load): open-loop arrivals, trace replay and shared prefixes, named as
    // bench_serving names them (sglang 0.5.9 bench_serving.py, vLLM 0.11.0 benchmarks/serve.py).
    /// Open loop: requests per second (`--request-rate`); `inf` sends every request at t = 0.
    /// With it, `concurrency` is the client's `--max-concurrency`.
    pub request_rate: Option<f64>,
    /// Shape of the gamma-distributed gaps between arrivals (`--burstiness`, default 1 = Poisson).
    pub burstiness: Option<f64>,
    /// A JSONL request trace to replay (path relative to the scenario; see `crate::workload::trace`).
    pub trace: Option<String>,
    /// bench_serving's generated-shared-prefix dataset (`--dataset-name generated-shared-prefix`).
    pub shared_prefix: Option<SharedPrefixSection>,
    /// Issue #18 (prefillmix): tokens at the start of every prompt already in the engine's prefix
    /// cache when the run starts — a benchmark repeated with the same `--seed` against a server
    /// that served the same prompts before (vLLM's random dataset draws its prompts from the seed).
    pub cached_prompt_len: Option<u32>,
    /// Issue #18 (decodebench): every request sends the same prompt (voipmonitor's
    /// `llm_decode_bench.py` builds one payload per cell), so the `cached_prompt_len` tokens are one
    /// cache entry shared by all requests, not one per request.
    pub same_prompt: Option<bool>,
    /// Issue #18 (kimitok54): the outputs decode to empty text (special tokens past EOS under
    /// `ignore_eos`); default false (`serve::detok`).
    pub empty_text_outputs: Option<bool>,
}

/// `[workload.shared_prefix]`: `num_groups` system prompts, each followed by `prompts_per_group`
/// questions (bench_serving's `--gsp-*` flags; requests in group order, as `--gsp-ordered`).
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SharedPrefixSection {
    pub num_groups: Option<u32>,
    pub prompts_per_group: Option<u32>,
    pub system_prompt_len: Option<u32>,
    pub question_len: Option<u32>,
    /// Output tokens per request (default: the workload's `output_len`, which must then be fixed).
    pub output_len: Option<u32>,
    /// `--gsp-range-ratio`: each length drawn from `max(⌊len·r⌋, 1)..=len` (default 1 = fixed).
    pub range_ratio: Option<f64>,
}

/// Issue #18 (load): `[slo]`, per-request service-level objectives in ms (bench_serving's
/// `--goodput ttft:… tpot:… e2el:…`) and the percentile `tpsim capacity` holds them at.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SloSection {
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
    /// Percentile (0 < p ≤ 100) of the run's requests that must meet each objective (default 99).
    pub percentile: Option<f64>,
}

/// A token count: fixed, or drawn uniformly from `min..=max` per request (seeded stream "workload").
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum LengthSpec {
    Fixed(u32),
    Uniform(UniformLength),
    // Issue #18 (load): bench_serving's random dataset and a histogram given as data.
    Random(RandomLength),
    Histogram(HistogramLength),
}

/// `{ random = N, range_ratio = r }`: SGLang bench_serving's random dataset (`--random-input-len`,
/// `--random-range-ratio`; `compute_random_lens`, sglang 0.5.9): uniform in `max(⌊N·r⌋, 1)..=N`.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RandomLength {
    pub random: u32,
    pub range_ratio: f64,
}

/// `{ histogram = "file.tsv" }`: bins `min_tokens max_tokens weight` read from a TSV file (path
/// relative to the scenario); a bin is drawn by weight, then a length uniformly inside it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HistogramLength {
    pub histogram: String,
    /// The bins, read when the scenario resolves.
    #[serde(skip)]
    pub bins: std::sync::Arc<[crate::workload::lengths::Bin]>,
}

/// `{ min = …, max = … }`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct UniformLength {
    pub min: u32,
    pub max: u32,
}

impl LengthSpec {
    /// The mean length (for reports and floors).
    pub fn mean(&self) -> f64 {
        match self {
            LengthSpec::Fixed(n) => f64::from(*n),
            LengthSpec::Uniform(u) => (f64::from(u.min) + f64::from(u.max)) / 2.0,
            LengthSpec::Random(r) => {
                let lo = crate::workload::lengths::random_low(r.random, r.range_ratio);
                (f64::from(lo) + f64::from(r.random)) / 2.0
            }
            LengthSpec::Histogram(h) => crate::workload::lengths::hist_mean(&h.bins),
        }
    }
    /// Issue #18 (load): which distribution, in words (`fixed`, `uniform`, `random`, `histogram`).
    pub fn kind(&self) -> &'static str {
        match self {
            LengthSpec::Fixed(_) => "fixed",
            LengthSpec::Uniform(_) => "uniform",
            LengthSpec::Random(_) => "random",
            LengthSpec::Histogram(_) => "histogram",
        }
    }
    /// The largest length it can take.
    pub fn max(&self) -> u32 {
        match self {
            LengthSpec::Fixed(n) => *n,
            LengthSpec::Uniform(u) => u.max,
            LengthSpec::Random(r) => r.random,
            LengthSpec::Histogram(h) => h.bins.iter().map(|b| b.max).max().unwrap_or(0),
        }
    }
    /// The smallest length it can take.
    pub fn min(&self) -> u32 {
        match self {
            LengthSpec::Fixed(n) => *n,
            LengthSpec::Uniform(u) => u.min,
            LengthSpec::Random(r) => crate::workload::lengths::random_low(r.random, r.range_ratio),
            LengthSpec::Histogram(h) => h.bins.iter().map(|b| b.min).min().unwrap_or(0),
        }
    }
}

impl std::fmt::Display for LengthSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LengthSpec::Fixed(n) => write!(f, "{n}"),
            LengthSpec::Uniform(u) => write!(f, "{}..={}", u.min, u.max),
            LengthSpec::Random(_) | LengthSpec::Histogram(_) => {
                write!(f, "{} {}..={}", self.kind(), self.min(), self.max())
            }
        }
    }
}
