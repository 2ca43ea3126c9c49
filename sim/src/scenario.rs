//! Scenario files: the TOML schema, preset resolution and validation.
//!
//! A scenario has `seed` and the sections `[hardware]`, `[model]`, `[engine]` (with `[engine.env]`,
//! `[engine.costs]`, `[engine.observed]`), `[speculative]` and `[workload]`. Hardware, models and
//! engine costs come from preset data files (see [`crate::presets`]); every key of a hardware or
//! engine preset can be overridden inline. Unknown keys are errors everywhere. Every error names the
//! file, the TOML key path, the line when known, and what was expected (book/src/scenarios.md).
//!
//! This file holds the resolved types, [`load`] and [`load_str`], and the `Resolver` that walks the
//! parsed file; each section's resolver is in its own file: `hardware.rs` (with the fitted-constant
//! records), `model.rs`, `engine.rs`, `speculative.rs` (with `draft.rs` and `acceptance.rs`) and
//! `workload.rs`.

mod acceptance;
pub mod allreduce_default; // issues #17 point 3, #19 point 3: the engine's default allreduce
// Issue #17 (3): collective options (NCCL env lists, version, tuner table, custom AR cutoff).
pub(crate) mod collective_options;
mod pcie_ipc; // issue #17 (3): SGLANG_ENABLE_PCIE_IPC_ALLREDUCE
mod rocm; // issue #17 point 4: SGLang on ROCm (aiter default backend, AITER fraction reserve)
pub use collective_options::NcclTunerSection;
pub use pcie_ipc::PcieIpcVars;
// sglmem54 (issue #17): SGLANG_ENABLE_POST_CAPTURE_KV_SIZING read and reported, not modelled.
mod post_capture;
mod quick_reduce; // issue #17 point 4: vLLM QuickReduce from [engine.env]
pub use quick_reduce::QuickReduceVars;
// Issue #17 point 4: accelerators (vendor, xGMI) and multi-node clusters.
pub mod accel;
pub mod arg_types; // args58 (issue #17): the engines' value parsers behind the lists' kinds
pub mod argv; // issue #17 (cmdkey): a launch command's words as argparse splits them
pub mod command; // issue #17 (cmdkey): engine.command, the launch command read into keys
// Issue #16 (h4): engine.attention_backend.
pub mod attention_backend;
mod chunk_reserve; // issue #18: the user's chunk size in SGLang's default fraction
pub mod cuda_graphs; // issue #17 (graphs): CUDA-graph capture keys, vLLM async scheduling
pub mod cudagraph_mode; // graphmode: vLLM's compilation_config.cudagraph_mode
pub mod cudagraph_support; // graphverify: the mode settled against the attention backend
pub mod dcp; // issue #17: vLLM decode context parallelism
pub mod detokenizer; // issue #18 (kimitok54): SGLang's detokenizer on Kimi's tiktoken tokenizer, by release
pub mod dp_attention; // issue #17: SGLang DP attention
mod draft;
mod dsa; // h2 (issue #16): DeepSeek DSA start-up adjustments
mod dtype;
mod engine;
mod engine_dtype; // issue #17: engine.dtype (`--dtype`)
mod ernie45; // families17 (issue #17): the releases that serve dense ERNIE-4.5 and dense Hunyuan
mod error;
mod exaone4; // families5 (issue #17): SGLang and EXAONE 4
mod executor; // args58 (issue #17): vLLM's executor across boxes (`mp` from 0.12.0, else Ray)
pub mod expert_parallel;
pub mod extra_args; // issue #17 (flags): engine.extra_args, the rest of the launch command
mod first_release; // issue #17: the first release of each engine that serves a model class (one table)
/// sched54: a release's order key (major, minor, patch, post), for rules that change by release.
pub(crate) use first_release::ordered as release_order;
pub(crate) use vllm_startup::vllm_shape; // vllmchunk59
mod dsv4; // dsv4run55 (issue #17): the DeepSeek-V4 deployments tpsim models
pub mod flashinfer_sampler; // vllmsampler: VLLM_USE_FLASHINFER_SAMPLER by vLLM release
pub mod fp8_marlin; // ampere62 (issue #17): vLLM's FP8 Marlin (weight-only fp8) by SM and VLLM_TEST_FORCE_FP8_MARLIN
pub mod frontend; // issue #18 (frontend): the API server in front of the scheduler
mod gemma4; // families30 (issue #17): SGLang's attention backends for Gemma 4
mod gpt_oss_graphs; // ttft55 (issue #18): vLLM's gpt-oss capture list by release
mod hardware;
mod host; // issue #19 point 1: [host] facts → SHM parameters
mod internvl; // families14 (issue #17): the engine releases and towers that serve InternVL
pub mod layers;
pub(crate) mod long_context;
pub mod mamba_dtype; // issue #17: vLLM --mamba-cache-dtype / --mamba-ssm-cache-dtype
pub mod mamba_strategy; // cmdsurvey62 (issue #17): SGLang --mamba-scheduler-strategy
mod max_model_len; // issue #17 (flags): --max-model-len as written, auto-fit // issue #17: EP options as the engines name them
mod minimax01; // families27 (issue #17): vLLM's end of MiniMax-Text-01 / M1, its V0 and fp32-state refusals
mod minimax_m3; // families38 (issue #17): the MiniMax-M3 deployments tpsim models
mod model;
pub mod moe_a2a; // issue #17 point 1 (ep): the all-to-all MoE path (DeepEP)
pub mod moe_backend; // sm120decode: engine.moe_backend → [compute.moe_backends]
pub mod moe_configs; // moetable: the fused-MoE configs SGLang ships → engine.moe_tuned_config
pub mod online_quant; // issue #17 (onlinequant): engine.quantization (`--quantization`)
mod piecewise; // issue #17 point 5: SGLang piecewise CUDA-graph reserve
pub mod pipeline; // issue #17: pipeline parallelism
pub mod pipeline_nodes; // issue #17 point 4: pipeline stages across boxes
pub mod profile;
pub mod profile_fit; // issue #19 point 6: a profile's correlation and calibrated range
pub mod replicas; // issue #17 (dp): data-parallel replicas
pub mod scheduler; // issue #18 point 1 (schedkeys): scheduler settings
mod schema;
pub mod sglang_overlap; // b200pg50, hybrids51 (issues #17, #18): SGLang's mamba radix cache overlap / radix rules by release
mod speculative;
mod starcoder2; // families13 (issue #17): StarCoder2's window under SGLang, its first releases
pub mod tp_nodes; // issue #17 point 4: a TP group across boxes
pub(crate) mod vllm_diffkv; // vllmnew53 (issue #17): MiMo-V2-Flash's V width and DiffKV backend under vLLM by release
pub mod vllm_dp; // issue #17 point 1 (vllmdp): vLLM DP + EP on MoE models
pub mod vllm_install; // installkind (issues #17 point 5, #18): engine.install, pip wheel or docker image
pub mod vllm_moe_configs; // h200_63: the fused-MoE configs vLLM 0.8.5 / 0.11.0 ship → engine.moe_tuned_config
mod vllm_mtp; // issue #17: vLLM's MTP modules by target and release
pub mod vllm_pp_async; // vllmpp59 (issue #17): vLLM async scheduling with pipeline parallelism, by release
mod vllm_spec; // issue #17: speculative decoding under vLLM
mod vllm_startup; // issue #17 point 5: vLLM start-up memory settings
pub mod vllm_v0; // issue #17 (vllmv0): vLLM's V0 engine (releases before 0.8, VLLM_USE_V1=0)
pub mod vllm_w4a16; // w4a16_60 (issue #17): vLLM's AWQ / GPTQ method, kernel and refusals by release
pub mod vllm_w4a16_moe; // moew4a16_62 (issue #17): the kernel vLLM runs W4A16 routed experts with
mod workload;
mod workload_load; // issue #18 (load): arrivals, traces, shared prefixes, [slo] // flags56 (issue #17): context lengths above the model's, by release and env

pub use engine::{MAX_PAGE_TOKENS, nccl_env_from_args};
pub use error::{ScenarioError, parse_toml};
pub use hardware::{hardware_from_args, hardware_from_preset};
pub use schema::*;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tpsim_model::hw::GpuSpec;
use tpsim_model::llm::ModelSpec;
use tpsim_model::memory::SglangEra;
use tpsim_model::spec::AcceptanceModel;
use tpsim_model::topo::Topology;
use tpsim_model::units::{Bandwidth, Bytes, Duration};

/// A fully resolved, validated scenario: what the simulation runs on.
#[derive(Debug, Clone)]
pub struct Scenario {
    /// The file it came from (for messages).
    pub file: PathBuf,
    pub seed: u64,
    pub hardware: Hardware,
    /// Preset name or path of the target model.
    pub model_name: String,
    pub model: ModelSpec,
    /// `[model] routing_skew` (0 = uniform independent routing).
    pub routing_skew: f64,
    pub engine: Engine,
    pub speculative: Option<Speculative>,
    pub workload: Workload,
    /// Issue #18 (load): the `[slo]` section, if any (goodput and `tpsim capacity`).
    pub slo: Option<crate::slo::Slo>,
    /// Settings the engine would adjust at start-up, each with the warning it logs (e.g. SGLang's
    /// "speculative_num_draft_tokens is adjusted to …"): the scenario resolves to the adjusted value,
    /// and the CLI prints these on stderr and in the JSON report.
    pub warnings: Vec<String>,
    /// The files it was read from: the scenario file, then every preset, `config.json`,
    /// `quant.toml`, profile and acceptance trace it named (an output must not overwrite one).
    pub inputs: Vec<PathBuf>,
}

/// Resolved hardware.
#[derive(Debug, Clone)]
pub struct Hardware {
    pub name: String,
    pub cpu_amd: bool,
    /// `hardware.cpu_generation`: the CPU generation NCCL's inter-socket bandwidth is read by
    /// (`tpsim_model::nccl::inter_cpu_bw_gbps`); None when the preset does not give it.
    pub cpu_generation: Option<tpsim_model::nccl::CpuGeneration>,
    /// `hardware.numa_nodes` (ncclhost59): the NUMA nodes the host reports, where given; `Some(1)`
    /// puts every GPU on one NCCL CPU node ([`Hardware::nccl_cpu_node`]).
    pub numa_nodes: Option<u32>,
    pub gpu: GpuSpec,
    pub topology: Topology,
    pub params: HwParams,
    /// The profile applied over the preset, if any, and which parameters came from it.
    pub profile: Option<profile::AppliedProfile>,
    /// Efficiency curves by op class (preset < profile < inline `[hardware.compute]`, class by
    /// class); empty when none is given, and then the single efficiencies of `params` apply.
    pub curves: tpsim_model::curves::Curves,
    /// Issue #18 (prefillgpus): the FLOPs per kernel over which the `default` class's FLOP curve
    /// rests on measurements (`[compute.curves.default] flops_range`); `None` when that class has no
    /// FLOP curve (the flat `flops_efficiency` applies) or its curve states no range.
    pub flops_range: Option<[f64; 2]>,
    /// The `source` of that FLOP curve, when it has one (printed beside the prefill calibration).
    pub flops_curve_source: Option<String>,
    /// The `params` whose value was fitted to measurements, by name: the preset's `[fitted]`
    /// entries (less those the scenario overrode inline) and every parameter a profile supplied.
    pub fitted: BTreeMap<String, FittedConstant>,
    /// The files it was merged from, lowest first: templates, preset, profile, the scenario
    /// (`tpsim validate --explain`).
    pub layers: layers::Layers,
    /// Issue #17 point 4: the GPU's vendor, an xGMI mesh, a multi-node cluster.
    pub accel: accel::Accel,
    /// Issue #19 point 1: the host facts of `[host]`, when the preset describes its host.
    pub host: Option<tpsim_model::shm::HostFacts>,
}

/// A fitted parameter's provenance: the rows it was fitted to, the command that refits it and the
/// file that declared it (a preset or a profile).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FittedConstant {
    pub rows: String,
    pub refit: String,
    pub file: String,
}

impl Hardware {
    /// The CPU node NCCL files GPU `g` under (ncclhost59): NCCL makes one CPU node per NUMA node
    /// (`tpsim_model::nccl::nccl_path_class`'s module). The GPU's node from `[host]
    /// gpu_numa_nodes` where a socket is split (NPS2/NPS4, SNC); one node for every GPU with
    /// `numa_nodes = 1` (NPS0); else its socket. An opaque id: only equality between GPUs means
    /// anything.
    pub fn nccl_cpu_node(&self, g: usize) -> usize {
        if let Some(h) = &self.host
            && h.numa_nodes_per_socket > 1
            && let Some(&n) = h.gpu_numa_nodes.get(g)
        {
            return n as usize;
        }
        if self.numa_nodes == Some(1) {
            return 0;
        }
        self.topology.socket_of(g)
    }

    /// Whether the box joins every GPU pair by a peer fabric (NVLink, or an xGMI mesh: issue #17
    /// point 4), which NCCL classes NVL whatever the PCIe tree.
    pub fn peer_fabric(&self) -> bool {
        self.gpu.nvlink || self.accel.xgmi.is_some()
    }

    /// NCCL's path class between GPUs `a` and `b` (ncclhost59): the PCIe tree's class with the
    /// pair's CPU nodes ([`Hardware::nccl_cpu_node`]) deciding PHB or SYS above the switches
    /// (`tpsim_model::nccl::nccl_path_class`). The class NCCL's transport and search read.
    pub fn nccl_path_class(&self, a: usize, b: usize) -> tpsim_model::hw::PathClass {
        let same_node = self.nccl_cpu_node(a) == self.nccl_cpu_node(b);
        tpsim_model::nccl::nccl_path_class(self.topology.path_class(a, b, self.peer_fabric()), same_node)
    }

    /// How `nvidia-smi topo -m` labels the pair (nccl60): the tree's label with the pair's NUMA
    /// nodes (the same nodes NCCL files GPUs under) deciding SYS against PHB / NODE
    /// (`tpsim_model::topo::Topology::smi_label`).
    pub fn smi_label(&self, a: usize, b: usize) -> &'static str {
        let same_node = self.nccl_cpu_node(a) == self.nccl_cpu_node(b);
        self.topology.smi_label(a, b, self.peer_fabric(), same_node)
    }

    /// Issue #18 (prefillgpus): a `flops_efficiency` that is being fitted (or set) stands for every
    /// kernel size, as an inline `flops_efficiency` does in a scenario: the FLOP points of the
    /// curves (and their measured range) are dropped, memory curves kept.
    pub fn drop_flop_curves(&mut self) {
        for c in self.curves.classes.values_mut() {
            c.flops = None;
        }
        // fp8rate: the low-precision formats' FLOP curves go too (they borrow the single value).
        self.curves.format_flops.clear();
        self.curves.classes.retain(|_, c| c.mem.is_some());
        self.flops_range = None;
        self.flops_curve_source = None;
    }

    /// The GPU's achieved kernel rates: datasheet bandwidth and bf16 rate times the preset's (or
    /// profile's) efficiencies, plus the per-kernel fixed cost. The one place both the simulation and
    /// `tpsim-calibrate fit` build them from.
    pub fn compute_rates(&self) -> tpsim_model::compute::ComputeRates {
        tpsim_model::compute::ComputeRates {
            mem_bytes_per_s: self.gpu.memory_bandwidth.bytes_per_s() as f64,
            mem_efficiency: self.params.mem_efficiency,
            flops_per_s: self.gpu.bf16_tflops * 1e12,
            flops_efficiency: self.params.flops_efficiency,
            fp8_flops_per_s: self.gpu.fp8_tflops.map(|t| t * 1e12),
            fp4_flops_per_s: self.gpu.fp4_tflops.map(|t| t * 1e12),
            kernel_overhead_us: self.params.kernel_overhead.as_us_f64(),
            curves: self.curves.clone(),
        }
    }
}

/// Resolved hardware cost parameters (all required after merging preset and overrides). Each is
/// documented, with its source, in the hardware preset files and book/src/scenarios.md.
#[derive(Debug, Clone, PartialEq)]
pub struct HwParams {
    /// Free memory lost to the CUDA context and NCCL before the engine measures `total`.
    pub context_overhead: Bytes,
    /// Achieved fraction of the datasheet memory bandwidth for weight streaming.
    pub mem_efficiency: f64,
    /// Achieved fraction of the datasheet FLOP rate for decode GEMMs.
    pub flops_efficiency: f64,
    /// Fixed cost per kernel inside a CUDA graph.
    pub kernel_overhead: Duration,
    /// Effective per-direction bandwidth of a Gen5 / Gen4 x16 link (scaled by width / 16).
    pub pcie_gen5_x16_bw: Bandwidth,
    pub pcie_gen4_x16_bw: Bandwidth,
    /// Effective per-direction bandwidth of a Gen3 x16 link, where a preset has a measured Gen3
    /// figure; `None`: half of `pcie_gen4_x16_bw` (PCIe spec: 8 vs 16 GT/s per lane).
    pub pcie_gen3_x16_bw: Option<Bandwidth>,
    /// One-way latency of one PCIe link traversal (GPU or switch uplink).
    pub pcie_hop_latency: Duration,
    /// Extra one-way latency of turning through a CPU root complex.
    pub root_complex_latency: Duration,
    /// Per-direction bandwidth of a root complex's connection to the CPU fabric.
    pub root_complex_bw: Bandwidth,
    /// Per-direction bandwidth and one-way latency of the inter-socket link.
    pub inter_socket_bw: Bandwidth,
    pub inter_socket_latency: Duration,
    /// Host DRAM bandwidth per socket available to SHM staging.
    pub host_memory_bw: Bandwidth,
    /// Throughput of NCCL's SHM transport per connection (its copy path through host memory).
    pub shm_copy_bw: Bandwidth,
    /// Throughput of one NCCL channel's connection between two ranks.
    pub nccl_channel_bw: Bandwidth,
    /// Time one step of NCCL's Simple protocol takes on a PCIe ring hop, beyond moving its data
    /// (the flag/fence protocol of a step). NCCL's tuner models it as 5.7 µs on PCIe; the flow
    /// executor uses this measured figure instead (NVLink hops keep NCCL's NVLink figure).
    pub nccl_simple_step_latency: Duration,
    /// Software cost of one SHM step, within a socket and across sockets.
    pub shm_step_cost: Duration,
    pub shm_cross_socket_step_cost: Duration,
    /// Posted-write collapse rule: a source writing to ≥ `collapse_min_roots` destination root
    /// complexes from ≥ `collapse_min_sources` GPUs keeps `collapse_factor` of its write bandwidth.
    pub collapse_min_roots: u32,
    pub collapse_min_sources: u32,
    pub collapse_factor: f64,
    /// Whether the data of peer reads (their completions, flowing owner → reader) counts for the
    /// collapse rule like posted writes. Off unless a preset has evidence for its platform: the
    /// reference measured reads unaffected on the paths it tried (pcie-collectives.md).
    pub collapse_reads: bool,
    /// Slowdown of kernel peer loads staged through system memory, and their latency.
    pub staged_peer_read_factor: f64,
    pub staged_latency: Duration,
    /// Driver ForceP2P mode: kernel peer loads are never staged.
    pub force_p2p: bool,
    /// Per-direction bandwidth of each GPU's NVLink port and the one-way latency GPU → GPU over
    /// NVLink (required when `gpu.nvlink = true`, unused otherwise).
    pub nvlink_bw: Option<Bandwidth>,
    pub nvlink_latency: Option<Duration>,
    /// Issue #19 points 1-2: host time of one eager NCCL collective call per rank (NCCL's enqueue
    /// and kernel launch); back-to-back eager calls take at least this (`crate::launch`).
    pub nccl_eager_launch: Duration,
    /// Issue #19 point 1: with a `[host]`, the fraction of a GPU parent port's link rate at which
    /// the GPUs behind it read NCCL's SHM buffers from host memory (shared by them); required then.
    pub shm_read_efficiency: Option<f64>,
    // Issue #19 point 3 (custom kernels as they run, `crate::custom_kernels`):
    /// Bytes of kernel peer reads one GPU keeps in flight over PCIe (its outstanding non-posted
    /// requests × their size): with the read round trip, the Little's-law bound on a custom
    /// kernel's per-reader read rate. `None`: only the kernel's own launch shape bounds it.
    pub kernel_read_outstanding: Option<tpsim_model::units::Bytes>,
}

/// Allreduce backend of the TP group.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum AllreduceBackend {
    /// NCCL (what stock SGLang uses on > 2 PCIe GPUs).
    Nccl,
    /// SGLang's custom one-shot/two-shot kernel, forced on (a local patch on PCIe).
    Custom,
}

/// NCCL environment variables that change the transport or the tuner (see `tpsim_model::nccl`).
pub use tpsim_model::nccl::NcclEnv;

/// Resolved engine settings.
#[derive(Debug, Clone)]
pub struct Engine {
    pub name: String,
    /// `engine.version` as the scenario gives it; rules read [`Engine::release`] instead.
    pub version: Option<String>,
    pub tp: u32,
    pub mem_fraction_static: f64,
    /// Whether `mem_fraction_static` is SGLang's default for the era (not given in the scenario).
    pub fraction_is_default: bool,
    /// The factor SGLang's multimodal rule of this release applied to the fraction (memlogs, issue
    /// #17: `tpsim_model::sglang_vlm_fraction`), already in `mem_fraction_static`; None when none did.
    pub mem_fraction_vlm_factor: Option<f64>,
    pub allreduce: AllreduceBackend,
    /// `None` when the scenario set `engine.allreduce`; otherwise why the engine's default is
    /// [`Engine::allreduce`] (`scenario::allreduce_default`), e.g. "vLLM custom allreduce, 8 fully
    /// connected GPUs".
    pub allreduce_default: Option<String>,
    pub page_size: u64,
    pub max_total_tokens: Option<u64>,
    /// `--max-running-requests` as configured, or the era's speculative default (48).
    pub max_running_requests: Option<u64>,
    /// SGLang's `context_len`: `--context-length` or the model's `max_position_embeddings`.
    pub context_len: u64,
    /// SGLang memory era in force (vLLM: unused) and where it came from.
    pub era: SglangEra,
    pub era_source: String,
    pub cuda_graph: bool,
    /// Which engine's memory rules apply.
    pub kind: EngineKind,
    /// vLLM's `--gpu-memory-utilization` (default 0.9) and `--max-model-len`.
    pub gpu_memory_utilization: f64,
    pub max_model_len: Option<u64>,
    /// Issue #17 (flags): `max_model_len = "auto"` (vLLM ≥ 0.14.0): `max_model_len` is the auto-fit
    /// length, set after the memory plan (`scenario::max_model_len::auto_fit`).
    pub max_model_len_auto: bool,
    /// Issue #17 (flags): `engine.extra_args`, the rest of the launch command, checked and classified.
    pub extra_args: Vec<extra_args::ExtraArg>,
    /// The host prepares the next batch while the GPU runs this one: SGLang's overlap scheduler (on
    /// unless `disable_overlap_schedule = true`; spec v1 never overlaps), vLLM's async scheduling
    /// (off unless `async_scheduling = true`, vLLM 0.11.0 `config/scheduler.py`; with pipeline
    /// parallelism only where [`Engine::pp_decode`] hides the host's step, vllmpp59).
    pub overlap_schedule: bool,
    /// Expert parallelism size: 1 (experts TP-sharded) or `tp` (each rank owns whole experts).
    pub ep_size: u32,
    // Local/global attention memory (issue #16):
    /// SGLang's `--swa-full-tokens-ratio` (default 0.8): SWA-pool tokens per full-pool token.
    pub swa_full_tokens_ratio: f64,
    /// SGLang's `--disable-hybrid-swa-memory` as configured (the engine may also set it itself).
    pub disable_hybrid_swa_memory: bool,
    /// vLLM's `--disable-hybrid-kv-cache-manager` as configured.
    pub disable_hybrid_kv_cache_manager: bool,
    pub env: NcclEnv,
    // Collective options (issue #17, 3):
    /// Where `env.version` came from (`engine.nccl_version`, the engine version's pin, or the model's).
    pub nccl_version_source: String,
    /// The custom allreduce's size cutoff (`engine.custom_allreduce_max_size` or the engine's).
    pub custom_limits: crate::comm::CustomLimits,
    /// Warnings of the collective options, moved to the scenario's list.
    pub collective_warnings: Vec<String>,
    /// SGLang's PCIe-IPC allreduce variables from `[engine.env]`.
    pub pcie_ipc_vars: PcieIpcVars,
    /// Issue #17 point 4: vLLM's QuickReduce variables from `[engine.env]`.
    pub quick_reduce_vars: QuickReduceVars,
    pub costs: EngineCosts,
    pub observed: Option<Observed>,
    /// Issue #16: the decode attention backend (SGLang's `--attention-backend`, given or its default
    /// for the GPU and model; `None` under vLLM), which picks `[compute.attention_backends]`.
    pub attention_backend: Option<String>,
    /// vllmattn: `attention_backend` is vLLM's own pick (`attention_backend::vllm_default`), not the
    /// scenario's.
    pub attention_backend_vllm_default: bool,
    /// vllmattn: `engine.page_size` was given (vLLM's `--block-size`), so vLLM 0.19 keeps it.
    pub page_size_given: bool,
    /// sm120decode: the MoE kernel backend (`engine.moe_backend`, else the engine's own pick where
    /// tpsim has read it: `scenario::moe_backend::engine_default`), which picks
    /// `[compute.moe_backends]`; `None`: the template's cost.
    pub moe_backend: Option<String>,
    /// h20moe: `engine.moe_tuned_config`: false when SGLang's triton fused MoE runs its untuned
    /// default config (no config file for the shape and GPU; `passes::moe_call`). Default (moetable):
    /// the table of shipped files (`scenario::moe_configs`) where tpsim can look it up, else true.
    pub moe_tuned_config: bool,
    /// moetable: SGLang's config lookup when `engine.moe_tuned_config` is not set and tpsim could
    /// make it (`scenario::moe_configs`), which set `moe_tuned_config`; `None` otherwise.
    pub moe_config: Option<moe_configs::Lookup>,
    /// w4a16cost61: the linear kernel vLLM runs a W4A16 (AWQ / GPTQ) checkpoint's dense linears with
    /// (`scenario::vllm_w4a16`); `None` for any other checkpoint, engine or vendor. The decode passes
    /// cost its int4 weight bytes at the kernel's measured factor (`tpsim_model::llm::w4a16_cost`).
    pub w4a16_kernel: Option<tpsim_model::llm::vllm_w4a16::W4a16Kernel>,
    /// ampere62: `[engine.env]` `VLLM_TEST_FORCE_FP8_MARLIN` as vLLM reads it (vLLM only).
    pub force_fp8_marlin: bool,
    /// ampere62: vLLM serves the fp8 weights weight-only through FP8 Marlin (SM < 8.9, or forced;
    /// `scenario::fp8_marlin`); the decode passes stream dense fp8 bytes at Marlin's factor.
    pub fp8_marlin: bool,
    /// moew4a16_62: the kernel vLLM runs a W4A16 checkpoint's routed experts with
    /// (`scenario::vllm_w4a16_moe`); `None` for any other checkpoint, engine or vendor. The decode
    /// passes cost `fused_marlin_moe` from its measured fit where the SM has one
    /// (`tpsim_model::llm::w4a16_moe_cost`).
    pub w4a16_moe_kernel: Option<tpsim_model::llm::w4a16_moe_cost::W4a16MoeKernel>,
    /// vLLM's `--max-num-batched-tokens` / `--max-num-seqs` as configured (issue #17 point 5;
    /// `None`: vLLM's default for the GPU).
    pub max_num_batched_tokens: Option<u64>,
    pub max_num_seqs: Option<u64>,
    /// SGLang's `--enable-piecewise-cuda-graph` (issue #17 point 5).
    pub enable_piecewise_cuda_graph: bool,
    /// graphmode: vLLM's cudagraph mode as the engine settles on it (`None` under SGLang;
    /// `scenario::cudagraph_mode`). NONE also sets `cuda_graph` false.
    pub cudagraph_mode: Option<cudagraph_mode::CudagraphMode>,
    /// Issue #18 (frontend): the API-server front end (`serve::frontend`).
    pub frontend: frontend::Frontend,
    /// Issue #18 (kimitok54): SGLang's detokenizer where it decodes Kimi's slow tokenizer
    /// (`scenario::detokenizer`, `serve::detok`); None: not modelled.
    pub detokenizer: Option<detokenizer::Detokenizer>,
    /// vLLM's `--kv-cache-memory-bytes`: the KV budget per rank, bytes, replacing the profile's
    /// `gpu_memory_utilization` rule (`tpsim_model::memory::vllm_kv_plan_with_bytes`).
    pub kv_cache_memory_bytes: Option<u64>,
    /// vLLM's `--mamba-cache-dtype` / `--mamba-ssm-cache-dtype` (issue #17; `scenario::mamba_dtype`):
    /// the recurrent layers' state dtypes, `auto` when not given.
    pub mamba_dtypes: mamba_dtype::MambaDtypes,
    /// cmdsurvey62: SGLang's `--mamba-scheduler-strategy` as stated (`None`: `auto`).
    pub mamba_scheduler_strategy: Option<String>,
    /// installkind (issues #17 point 5, #18): vLLM's `engine.install` (`scenario::vllm_install`),
    /// `None` when not given (a plain pip install).
    pub install: Option<vllm_install::VllmInstall>,
    /// vllmsampler (issue #17 point 5): `VLLM_USE_FLASHINFER_SAMPLER` of `[engine.env]` as vLLM
    /// reads it (`bool(int(value))`; `None`: unset), checked for the release
    /// (`scenario::flashinfer_sampler`). vLLM only.
    pub flashinfer_sampler_env: Option<bool>,
    /// vgraph53 (issue #17): `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS` of `[engine.env]` as vLLM reads
    /// it (`bool(int(value))`; `None`: unset, the release's default; `decode::vllm_graph_estimate`).
    pub cudagraph_estimate_env: Option<bool>,
    // Issue #17 (parallelism): SGLang DP attention.
    /// SGLang's DP attention when on (`enable_dp_attention` with `dp_size` > 1), else `None`.
    pub dp_attention: Option<dp_attention::DpAttention>,
    /// Pipeline-parallel stages (SGLang `--pp-size`, vLLM `--pipeline-parallel-size`; 1 = none).
    pub pp: u32,
    /// vLLM's decode context parallel size (1 = none).
    pub dcp: u32,
    /// Issue #17 point 1 (ep): SGLang's all-to-all MoE path (DeepEP) when on.
    pub moe_a2a: Option<moe_a2a::MoeA2a>,
    /// Issue #18 point 1 (schedkeys): the scheduler settings as configured.
    pub scheduler: scheduler::SchedulerKeys,
    /// Issue #17 (graphs): the decode CUDA-graph capture settings as configured (`serve::graphs`
    /// builds the lists from them).
    pub cuda_graphs: cuda_graphs::CaptureKeys,
    /// Issue #17 (graphs): vLLM's `--async-scheduling` (the scheduler's step overlaps the forward;
    /// `overlap_schedule` follows it under vLLM).
    pub async_scheduling: bool,
    /// vllmpp59: how decode steps go through the pipeline stages (vLLM's async scheduling changes it
    /// by release, `vllm_pp_async`); `MicroBatches` without pipeline parallelism.
    pub pp_decode: vllm_pp_async::PpDecode,
    /// args58: vLLM's executor is `mp` across boxes (`engine.distributed_executor_backend = "mp"`,
    /// vLLM ≥ 0.12.0 `--nnodes`): `tpsim engine-args` prints one `vllm serve` per node, no Ray.
    pub mp_nodes: bool,
    /// Issue #17 (dp): data-parallel replicas (SGLang `--dp-size` without DP attention, vLLM
    /// `--data-parallel-size` on a dense model), each a whole engine on tp × pp GPUs; 1 = one engine.
    pub replicas: u32,
    /// Issue #17 point 1 (vllmdp): vLLM's data parallelism on a MoE model (`dp_attention` then
    /// holds its dp ranks with attention at the rank's tp, and `tp` is the MoE's dp × tp).
    pub vllm_dp: Option<vllm_dp::VllmDp>,
    /// Issue #17 (vllmv0): vLLM's V0 engine when the release runs it (`None`: V1, or SGLang); its
    /// step's host time replaces `costs.host_overhead` (`scenario::vllm_v0`).
    pub v0: Option<vllm_v0::V0Engine>,
}

/// Resolved engine cost and memory parameters.
#[derive(Debug, Clone, PartialEq)]
pub struct EngineCosts {
    pub era: String,
    pub host_overhead: Duration,
    pub sync_cost: Duration,
    /// Host cost of launching one kernel without CUDA graphs (per rank, serialised).
    pub launch_overhead: Duration,
    pub custom_allreduce_buffers: Bytes,
    pub target_cuda_graph_memory: Bytes,
    pub draft_cuda_graph_memory: Bytes,
    pub activation_memory: Bytes,
    /// vLLM: non-torch memory growth during its profile (NCCL, CUDA context growth).
    pub non_torch_memory: Option<Bytes>,
    // vLLM speculative decoding (issue #17):
    /// Host time before each draft forward of vLLM's EAGLE proposer (0 unless the preset sets it).
    pub draft_step_overhead: Duration,
    /// vLLM start-up parts (issue #17 point 5): the profile run's fitted coefficients.
    pub vllm_startup: Option<tpsim_model::vllm_startup::StartupParams>,
    /// Issue #18 (frontend): API-server CPU time per request, prompt token, output token.
    pub frontend_costs: [Duration; 3],
}

/// Values read off a real start-up log (GiB, as the engine prints "GB").
#[derive(Debug, Clone, PartialEq)]
pub struct Observed {
    pub free_after_init_gib: Option<f64>,
    pub free_after_weights_gib: Option<f64>,
    pub free_at_start_gib: Option<f64>,
    pub weights_gib: Option<f64>,
    pub cuda_graph_gib: Option<f64>,
    pub peak_activation_gib: Option<f64>,
    pub non_torch_gib: Option<f64>,
}

/// Which engine's rules apply.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineKind {
    Sglang,
    Vllm,
}

impl Engine {
    /// The release simulated: `engine.version`, else the engine's current release
    /// (`crate::engine_release`). Every version-dependent rule reads this.
    pub fn release(&self) -> crate::engine_release::Release {
        crate::engine_release::release(self.kind, self.version.as_deref())
    }

    /// The host time of one engine step with `requests` scheduled that the step's host task costs:
    /// the V0 engine's step ([`vllm_v0::V0Engine::step_host`]) when the release runs V0, else
    /// `costs.host_overhead`.
    pub fn step_host(&self, requests: u32) -> Duration {
        match &self.v0 {
            Some(v0) => v0.step_host(requests),
            None => self.costs.host_overhead,
        }
    }
}

/// Resolved speculative decoding.
#[derive(Debug, Clone)]
pub struct Speculative {
    pub algorithm: String,
    pub draft_name: String,
    pub draft: ModelSpec,
    /// Draft weights per rank (an MTP layer shares the target's embedding and LM head).
    pub draft_weights: Bytes,
    pub num_steps: u32,
    pub topk: u32,
    pub num_draft_tokens: u32,
    pub acceptance: AcceptanceModel,
}

/// Resolved workload.
#[derive(Debug, Clone, PartialEq)]
pub struct Workload {
    pub concurrency: u32,
    pub num_requests: u32,
    pub prompt_len: LengthSpec,
    pub output_len: LengthSpec,
    /// Issue #18 (load): how requests arrive, a trace to replay, shared prompt prefixes.
    pub load: crate::workload::Load,
    /// Issue #18 (kimitok54): the outputs decode to empty text (special tokens generated past EOS
    /// under the client's `ignore_eos`): SGLang ≤ 0.5.10.post1's detokenizer window then grows.
    pub empty_text_outputs: bool,
}

/// Reads, parses, resolves and validates a scenario file.
pub fn load(path: &Path) -> Result<Scenario, ScenarioError> {
    let text = crate::files::read_text(path).map_err(|e| ScenarioError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    load_str(&text, path)
}

/// Parses, resolves and validates scenario text; `path` names it in errors and anchors relative
/// preset paths.
pub fn load_str(text: &str, path: &Path) -> Result<Scenario, ScenarioError> {
    let (file, notes) = parse_file(text, path)?;
    let mut s = Resolver {
        path,
        text,
        read: Default::default(),
    }
    .resolve(file)?;
    // Issue #17 (cmdkey): what `engine.command` left out (`command::expand`).
    s.warnings
        .extend(notes.into_iter().map(|n| format!("engine.command: {n}")));
    Ok(s)
}

/// Parses scenario text into its sections, with `engine.command` read into the keys it states
/// (`command::expand`); also the notes of what the command left out (empty without one).
pub fn parse_file(text: &str, path: &Path) -> Result<(ScenarioFile, Vec<String>), ScenarioError> {
    let mut table: toml::Table = error::parse_toml(text, path)?;
    match command::expand(&mut table, path, text)? {
        None => Ok((error::parse_toml(text, path)?, Vec::new())),
        Some(notes) => Ok((error::parse_value(toml::Value::Table(table), text, path)?, notes)),
    }
}

struct Resolver<'a> {
    path: &'a Path,
    text: &'a str,
    /// The files read so far besides `path` (presets, configs, profiles, traces).
    read: std::cell::RefCell<Vec<PathBuf>>,
}

impl Resolver<'_> {
    fn invalid(&self, key: &str, message: impl Into<String>) -> ScenarioError {
        ScenarioError::invalid(self.path, self.text, key, message.into())
    }

    fn need<T>(&self, v: Option<T>, key: &str) -> Result<T, ScenarioError> {
        v.ok_or_else(|| self.invalid(key, "missing: expected a value here or in the preset"))
    }

    fn frac(&self, v: Option<f64>, key: &str) -> Result<f64, ScenarioError> {
        let v = self.need(v, key)?;
        if v.is_finite() && v > 0.0 && v <= 1.0 {
            Ok(v)
        } else {
            Err(self.invalid(key, format!("{v} is outside (0, 1]")))
        }
    }

    fn read_relative(&self, key: &str, reference: &str) -> Result<(PathBuf, String), ScenarioError> {
        let base = self.path.parent().unwrap_or(Path::new("."));
        let p = base.join(reference);
        match crate::files::read_text(&p) {
            Ok(t) => {
                self.read.borrow_mut().push(p.clone());
                Ok((p, t))
            }
            Err(e) => Err(self.invalid(key, format!("cannot read preset file `{}`: {e}", p.display()))),
        }
    }

    /// vllmattn: under vLLM on NVIDIA, without `engine.attention_backend`, vLLM's own pick and the
    /// KV block size it forces (the page size, unless a hybrid model's own rules set it); with the key,
    /// vLLM's refusal or a warning where it would not take that backend (`attention_backend.rs`).
    fn vllm_attention_backend(
        &self,
        model: &ModelSpec,
        engine: &mut Engine,
        hardware: &Hardware,
        warnings: &mut Vec<String>,
    ) -> Result<(), ScenarioError> {
        if engine.kind != EngineKind::Vllm || hardware.accel.vendor != accel::GpuVendor::Nvidia {
            return Ok(());
        }
        let version = engine.release().version;
        let cc = hardware.gpu.compute_capability.clone();
        let user_block = engine.page_size_given.then_some(engine.page_size);
        // families39 (issue #17): Gemma 4's model rule sets the backend first (`gemma4::vllm_default`).
        if engine.attention_backend.is_none()
            && let Some((b, line)) = gemma4::vllm_default(model, &version, tpsim_model::hw::sm_major(&cc))
        {
            engine.attention_backend = Some(b.to_string());
            engine.attention_backend_vllm_default = true;
            warnings.push(line);
            return Ok(());
        }
        match engine.attention_backend.clone() {
            None => {
                if let Some(p) = attention_backend::vllm_default(&version, &cc, model, user_block) {
                    engine.attention_backend = Some(p.backend.to_string());
                    engine.attention_backend_vllm_default = true;
                    // vLLM 0.19 leaves hybrid models' block size to their own rules; the forced
                    // sizes are MLA's. families19: Kimi-Linear is an MLA hybrid; its block size follows
                    // the hybrid alignment of `model::vllm_hybrid` (approx. in its coverage row).
                    if let Some(b) = p.block_size
                        && model.linear_attention.is_none()
                        && model.mamba2.is_none()
                        && model.short_conv.is_none()
                    {
                        engine.page_size = b;
                    }
                }
            }
            Some(b) => {
                match attention_backend::vllm_check(&b, &version, &cc, model, user_block) {
                    Ok(Some(w)) => warnings.push(w),
                    Ok(None) => {}
                    Err(m) => return Err(self.invalid("engine.attention_backend", m)),
                }
                if let Some(block) = attention_backend::vllm_named_block(&b, &version, &cc, model, user_block)
                {
                    engine.page_size = block;
                }
            }
        }
        Ok(())
    }

    fn resolve(&self, f: ScenarioFile) -> Result<Scenario, ScenarioError> {
        let hardware = self.hardware(f.hardware)?;
        let routing_skew = f.model.as_ref().and_then(|m| m.routing_skew).unwrap_or(0.0);
        if !(routing_skew.is_finite() && (0.0..=8.0).contains(&routing_skew)) {
            return Err(self.invalid(
                "model.routing_skew",
                format!("{routing_skew}: expected a skew from 0 (uniform) to 8"),
            ));
        }
        let (model_name, mut model, quant_method, declared_quant) = self.model("model", f.model)?;
        let speculative = f.speculative.is_some();
        let dtype_flag = f.engine.as_ref().and_then(|e| e.dtype.clone()); // issue #17: --dtype
        let quant_flag = f.engine.as_ref().and_then(|e| e.quantization.clone()); // --quantization
        // families21 (issue #17): vLLM builds MiniCPM3 with per-head K/V, not SGLang's MLA latent
        // (`tpsim_model::llm` module `minicpm`), before its attention backend is picked.
        if f.engine.as_ref().and_then(|e| e.name.as_deref()) == Some("vllm") {
            model.serve_minicpm3_as_vllm();
            // h200gl51 (issue #18): vLLM's GLM-4.x MoE router gate is an fp32 nn.Linear
            // (`tpsim_model::llm` module `router_fp32`).
            model.serve_glm4_moe_as_vllm();
            // families26 (issue #17): vLLM keeps InternViT's attention whole on every rank where tp
            // does not divide its heads; SGLang pads dummy heads (`tpsim_model::llm` module `internvl`).
            model.serve_internvl_as_vllm();
            // families39 (issue #17): vLLM keeps Gemma 4's vision tower whole on every rank
            // (`tpsim_model::llm` module `gemma4_vit`).
            model.serve_gemma4_as_vllm();
        }
        // cmdsurvey62: vLLM's explicit `--async-scheduling` takes EAGLE/MTP drafting, not n-gram.
        let ngram = f
            .speculative
            .as_ref()
            .and_then(|s| s.algorithm.as_deref())
            .is_some_and(|a| a.trim_matches(['[', ']']) == "ngram");
        // dsv4_64: SGLang's `SGLANG_SHARED_EXPERT_TP1` shapes DeepSeek-V4's rank before its tp rule.
        let shared_tp1_note = {
            let e = f.engine.as_ref();
            let kind = match e.and_then(|e| e.name.as_deref()) {
                Some("vllm") => EngineKind::Vllm,
                _ => EngineKind::Sglang,
            };
            let raw = e
                .and_then(|e| e.env.as_ref())
                .and_then(|m| m.get(dsv4::SHARED_TP1_VAR))
                .map(String::as_str);
            dsv4::read_shared_expert_tp1(&mut model, kind, raw)
        };
        let mut engine = self.engine(
            f.engine,
            &hardware,
            (speculative, ngram),
            &model,
            declared_quant.as_deref(),
        )?;
        let mut warnings = Vec::new();
        warnings.extend(shared_tp1_note);
        warnings.append(&mut engine.collective_warnings); // issue #17 (3)
        // Issue #19 point 1 (shmhost19): SHM costed without host facts, for every group whose
        // communicator the passes build (decode/passes.rs, dp_attention.rs, dcp.rs, vllm_dp.rs).
        let groups = [
            Some(engine.tp),
            engine.dp_attention.map(|d| d.attn_tp),
            Some(engine.dcp),
            engine
                .vllm_dp
                .filter(|v| v.tp > 1 && !v.sequence_parallel)
                .map(|v| v.dp),
        ];
        let groups: Vec<usize> = groups.into_iter().flatten().map(|n| n as usize).collect();
        warnings.extend(crate::comm::shm_without_host_warning(
            &hardware,
            &groups,
            &engine.env,
        ));
        if !self.engine_dtype(
            &mut model,
            engine.kind,
            &hardware,
            dtype_flag.as_deref(),
            &mut warnings,
        )? {
            self.serving_dtype(&mut model, engine.kind, &hardware, &mut warnings);
        }
        // Issue #17 (onlinequant): `--quantization fp8`, on the serving dtype.
        self.engine_quantization(
            &mut model,
            quant_method.as_deref(),
            &engine,
            &hardware,
            quant_flag.as_deref(),
            &mut warnings,
        )?;
        // w4a16_60: vLLM's AWQ / GPTQ method and kernel, its log lines and refusals, by release.
        self.vllm_w4a16(
            &model,
            quant_method.as_deref(),
            &mut engine,
            &hardware,
            &mut warnings,
        )?;
        // ampere62: vLLM's FP8 Marlin (weight-only fp8 below SM 8.9, or forced).
        fp8_marlin::apply(&model, &mut engine, &hardware, &mut warnings);
        // moew4a16_62: the kernel vLLM runs W4A16 routed experts with, its log line.
        self.vllm_w4a16_moe(
            &model,
            quant_method.as_deref(),
            &mut engine,
            &hardware,
            &mut warnings,
        );
        // vllmattn: vLLM's own attention backend (after the serving dtype, which it reads).
        self.vllm_attention_backend(&model, &mut engine, &hardware, &mut warnings)?;
        // graphverify: vLLM's cudagraph mode against that backend's CUDA-graph support.
        let cc = hardware.gpu.compute_capability.clone();
        self.settle_cudagraph_mode(&model, &mut engine, &cc, speculative, &mut warnings)?;
        // Issue #17 (tritonw): the routed experts as the engine's MoE backend lays them out.
        moe_backend::apply_expert_layout(
            &mut model,
            engine.kind,
            engine.moe_backend.as_deref(),
            &hardware.gpu.compute_capability,
            &engine.release().version,
            &mut warnings,
        );
        // h20moe: the untuned fused-MoE charge is one measurement (`decode::passes::moe_call`).
        if !engine.moe_tuned_config && model.moe.is_some() {
            let sm = tpsim_model::hw::sm_version(&hardware.gpu.compute_capability);
            let bf16 = matches!(
                model.quantization.expert_format().dtype,
                tpsim_model::llm::WeightDtype::Bf16 | tpsim_model::llm::WeightDtype::Fp16
            );
            let w = match sm {
                90 if bf16 => {
                    "engine.moe_tuned_config = false: SGLang's untuned fused-MoE tile is charged a fixed time per \
                     MoE layer measured at batch 8 on H200 (sglang PR 10404, Qwen3-Next bf16); at other batches \
                     and GPUs an extrapolation"
                }
                // b200moe62: the SM 10.0 pair (`decode::passes::moe_call::UNTUNED_BF16_CALL_US_SM100`).
                100 if bf16 => {
                    "engine.moe_tuned_config = false: SGLang's untuned fused-MoE tile is charged a fixed time per \
                     MoE layer measured at c 16 on 8× B200 (sglang PR 7004, Llama-4-Scout bf16); at other batches \
                     and shapes an extrapolation"
                }
                _ => {
                    "engine.moe_tuned_config = false: not charged: the untuned fused-MoE cost is measured for bf16 / \
                     fp16 routed experts on SM 9.0 and SM 10.0 only (sglang PRs 10404, 7004)"
                }
            };
            // moetable: where the table set the default, the engine's own log line first.
            match &engine.moe_config {
                // h200_63: vLLM's line and folder (`scenario::vllm_moe_configs`).
                Some(l) if l.found_in.is_none() && engine.kind == EngineKind::Vllm => warnings.push(format!(
                    "vLLM {} ships no fused-MoE config `{}` (scenarios/engines/moe-configs/vllm.toml): the \
                     engine logs \"Using default MoE config. Performance might be sub-optimal! Config file \
                     not found at ['…/fused_moe/configs/{}']\" and at M ≤ E runs SGLang 0.5.2's default \
                     16 × 32 × 64 tile (at M > E its 64 × 64 × 32, not charged); {}",
                    engine.release().version,
                    l.file,
                    l.file,
                    w.trim_start_matches("engine.moe_tuned_config = false: ")
                )),
                Some(l) if l.found_in.is_none() => warnings.push(format!(
                    "SGLang {} ships no fused-MoE config `{}` (scenarios/engines/moe-configs/sglang.toml): the \
                     engine logs \"Using default MoE kernel config. Performance might be sub-optimal! Config \
                     file not found at …/configs/{}/{}\"; {}",
                    engine.release().version,
                    l.file,
                    l.first_folder,
                    l.file,
                    w.trim_start_matches("engine.moe_tuned_config = false: ")
                )),
                _ => warnings.push(w.to_string()),
            }
        }
        // families13 (issue #17): SGLang applies no StarCoder2 window (`scenario::starcoder2`).
        starcoder2::sglang_full_attention(engine.kind, &mut model);
        self.dsa_adjust(&mut model, &mut engine, &hardware, &mut warnings)?;
        // mla49 (issue #18): SGLang's checks and page size with `trtllm_mla` in force.
        if engine.kind == EngineKind::Sglang && engine.attention_backend.as_deref() == Some("trtllm_mla") {
            let (page, warning) = attention_backend::sglang_trtllm_mla_settle(
                &engine.release().version,
                &hardware.gpu.compute_capability,
                model.quantization.kv_cache_dtype,
                engine.page_size,
                engine.page_size_given,
                speculative,
            )
            .map_err(|m| self.invalid("engine.attention_backend", m))?;
            engine.page_size = page;
            warnings.extend(warning);
        }
        // b200pg50 (issue #18): SGLang's page size with `trtllm_mha` in force (16, 32 or 64, else 64).
        if engine.kind == EngineKind::Sglang && engine.attention_backend.as_deref() == Some("trtllm_mha") {
            let (page, warning) =
                attention_backend::sglang_trtllm_mha_settle(engine.page_size, engine.page_size_given);
            // `check_server_args` asserts the chunk size on the settled page size.
            if let Some(Some(n)) = engine.scheduler.chunked_prefill_size
                && !n.is_multiple_of(page)
            {
                return Err(self.invalid(
                    "engine.chunked_prefill_size",
                    format!(
                        "{n} with trtllm_mha's page_size {page}: SGLang refuses to start: \"chunked_prefill_size \
                         must be divisible by page_size\""
                    ),
                ));
            }
            engine.page_size = page;
            warnings.extend(warning);
        }
        // b200pg50 (issue #18): the overlap scheduler / radix cache SGLang turns off for MambaRadixCache.
        if engine.kind == EngineKind::Sglang {
            // hybrids51: the other hybrids' rules by release, and SGLang's refusals.
            let s = sglang_overlap::settle(&sglang_overlap::Launch {
                version: &engine.release().version,
                arch: model.arch,
                has_linear: model.linear_layers() > 0,
                backend: engine.attention_backend.as_deref(),
                overlap: engine.overlap_schedule,
                radix_cache: engine.scheduler.prefix_cache,
                speculative,
                rocm: hardware.accel.vendor == accel::GpuVendor::Amd,
                strategy: engine.mamba_scheduler_strategy.as_deref(),
            })
            .map_err(|m| self.invalid("engine.disable_radix_cache", m))?;
            engine.overlap_schedule = s.overlap;
            engine.scheduler.prefix_cache = s.radix_cache;
            warnings.extend(s.warnings);
            // `_validate_and_adjust_policy`: a cache-aware policy without the radix cache is fcfs.
            if !s.radix_cache && engine.scheduler.policy == scheduler::SchedulePolicy::Lpm {
                engine.scheduler.policy = scheduler::SchedulePolicy::Fcfs;
            }
        }
        // hybrids51: `_handle_pipeline_parallelism` (server_args.py, the 0.4.9 and 0.5.1 – 0.5.23 wheels)
        // sets `disable_overlap_schedule` with pp > 1 and logs this line. SGLang's `event_loop_pp` then
        // schedules micro-batch k + 1 while micro-batch k runs, which tpsim's pipelined iteration keeps
        // (`decode::pipeline`): the timing is unchanged (assumed), the line is reported.
        if engine.kind == EngineKind::Sglang && engine.pp > 1 {
            warnings.push(
                "SGLang: Pipeline parallelism is incompatible with overlap schedule. (tpsim: event_loop_pp still \
                 schedules the next micro-batch while the current one runs; kept, assumed)"
                    .to_string(),
            );
        }
        // Issue #17 (hybridserve): SGLang's `--mamba-ssm-dtype` and its default by release.
        if engine.kind == EngineKind::Sglang {
            mamba_dtype::apply_sglang(&mut model, &engine.release().version, &engine.mamba_dtypes);
            // hybrid50: SGLang's float32 LM heads (Falcon-H1; Qwen3-Next before 0.5.6) and Falcon-H1's
            // unused q/k norms (`ModelSpec::serve_as_sglang`).
            let rel = crate::engine_args_versions::release(&engine.release().version)
                .map(|r| [0, 1, 2].map(|i| r.get(i).copied().unwrap_or(0)));
            model.serve_as_sglang(rel);
            // families32 (issue #17): Kimi-K3's attention-residual kernels by GPU (`llm::kimi_k3`).
            let hidden = model.hidden;
            if let Some(k3) = model.kimi_k3.as_mut() {
                k3.serve_on(&hardware.gpu.compute_capability, hidden);
            }
        }
        // families27 (issue #17): vLLM keeps MiniMax's lightning state at `--mamba-cache-dtype`
        // (`linear_attention_state_dtype`; `auto` = the model dtype, the lowering's): the decode reads
        // and writes it at that width.
        if engine.kind == EngineKind::Vllm
            && model.arch == tpsim_model::llm::Architecture::MiniMaxText01
            && let (Some(g), Some(name)) = (
                model.linear_attention.as_mut(),
                engine.mamba_dtypes.cache.as_deref(),
            )
        {
            g.ssm_state_bytes = mamba_dtype::bytes_of(name);
        }
        // pro6k56: vLLM's Gated DeltaNet SSM state at the width it allocates (`mamba_dtype::apply_vllm`).
        if engine.kind == EngineKind::Vllm {
            mamba_dtype::apply_vllm(&mut model, &engine.release().version, &engine.mamba_dtypes);
        }
        // families22 (issue #17): SGLang 0.5.9's LFM2 / LFM2-MoE build their own `ParallelLMHead` and
        // copy `embed_tokens` into it when the checkpoint has no `lm_head.weight` (`models/lfm2.py`,
        // `models/lfm2_moe.py` `load_weights`): one more vocab shard per rank than vLLM's tied head.
        if engine.kind == EngineKind::Sglang
            && matches!(
                model.arch,
                tpsim_model::llm::Architecture::Lfm2 | tpsim_model::llm::Architecture::Lfm2Moe
            )
        {
            model.tie_word_embeddings = false;
        }
        // hybrids51 (issue #17): vLLM's short-conv projections unquantized before 0.27.0.
        if engine.kind == EngineKind::Vllm
            && let Some(r) = crate::engine_args_versions::release(&engine.release().version)
        {
            model.serve_lfm2_as_vllm([0, 1].map(|i| r.get(i).copied().unwrap_or(0)));
        }
        // families22 (issue #17): vLLM 0.10.2's `Lfm2ForCausalLM` asserts the V1 engine.
        if engine.v0.is_some() && model.short_conv.is_some() {
            return Err(self.invalid(
                "engine.use_v1",
                "Lfm2ForCausalLM doesn't support vLLM v0. Please enable v1 (vLLM 0.10.2 models/lfm2.py)",
            ));
        }
        // Issue #17: what SGLang adjusts (and logs) when DP attention is on.
        if engine.vllm_dp.is_none() {
            warnings.extend(engine.dp_attention.iter().flat_map(|d| d.warnings()));
        }
        // Issue #17 point 4: a GPU no fit has seen gets its decode times by extrapolation.
        if let Some(w) = accel::extrapolation_warning(&hardware) {
            warnings.push(w);
        }
        // Honest output (dsv4dec55, dsv4k56): DeepSeek-V4's decode layer is lowered with assumed
        // efficiencies (its MoE kernel count too), and the one public run compared (sglang PR 33109) is slower.
        if model.deepseek_v4.is_some() {
            warnings.push(dsv4::UNVALIDATED_WARNING.to_string());
        }
        // families38 (issue #17): MiniMax-M3's sparse decode is costed at assumed efficiencies.
        if model.minimax_m3.is_some() {
            warnings.push(minimax_m3::UNVALIDATED_WARNING.to_string());
        }
        let speculative = match f.speculative {
            Some(s) => Some(self.speculative(s, &engine, &model, &mut warnings)?),
            None => None,
        };
        // Issue #17 (3): FlashInfer's PCIe-IPC allreduce, sized by the decode width.
        engine.custom_limits.pcie_ipc_max_bytes = self.pcie_ipc_max_bytes(
            &engine.pcie_ipc_vars,
            engine.kind,
            &engine.release(),
            engine.tp,
            u64::from(crate::serve::graphs::sglang_max_bs(
                &engine,
                hardware.gpu.memory_total_mib,
            )),
            engine.cuda_graph,
            speculative.as_ref().map(|s| u64::from(s.num_draft_tokens)),
            model.hidden,
            &mut warnings,
        );
        // Issue #17 point 4: vLLM's QuickReduce window (scenario/quick_reduce.rs).
        engine.custom_limits.quick_reduce = quick_reduce::window(
            &engine.quick_reduce_vars,
            engine.kind,
            engine.allreduce,
            engine.tp,
            &hardware,
            model.dtype,
            &mut warnings,
        );
        let workload = self.workload(f.workload.unwrap_or_default())?;
        let slo = f.slo.map(|x| self.slo(x)).transpose()?; // issue #18 (load)
        // Issue #17 point 1 (ep): DeepEP's low-latency buffer against the decode batch.
        warnings.extend(moe_a2a::batch_warning(
            engine.moe_a2a,
            engine.tp,
            workload.concurrency,
        ));
        let mut scenario = Scenario {
            file: self.path.to_path_buf(),
            seed: f.seed.unwrap_or(0),
            hardware,
            model_name,
            model,
            routing_skew,
            engine,
            speculative,
            workload,
            slo,
            warnings,
            inputs: std::iter::once(self.path.to_path_buf())
                .chain(self.read.take())
                .collect(),
        };
        // Issue #17 (flags): vLLM's `--max-model-len auto`, fitted on the start-up plan.
        max_model_len::auto_fit(&mut scenario);
        Ok(scenario)
    }
}
