//! Scenario files: the TOML schema, preset resolution and validation.
//!
//! A scenario has `seed` and the sections `[hardware]`, `[model]`, `[engine]` (with `[engine.env]`,
//! `[engine.costs]`, `[engine.observed]`), `[speculative]` and `[workload]`. Hardware, models and
//! engine costs come from preset data files (see [`crate::presets`]); every key of a hardware or
//! engine preset can be overridden inline. Unknown keys are errors everywhere. Every error names the
//! file, the TOML key path, the line when known, and what was expected (book/src/scenarios.md).

mod acceptance;
mod draft;
mod error;
pub mod layers;
pub mod profile;
mod schema;

pub use error::{ScenarioError, parse_toml};
pub use schema::*;

use crate::presets;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tpsim_model::hw::{GpuSpec, PathClass};
use tpsim_model::llm::{ModelSpec, Quantization};
use tpsim_model::memory::{DefaultFractionInput, SglangEra, sglang_default_fraction};
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
    pub gpu: GpuSpec,
    pub topology: Topology,
    pub params: HwParams,
    /// The profile applied over the preset, if any, and which parameters came from it.
    pub profile: Option<profile::AppliedProfile>,
    /// Efficiency curves by op class (preset < profile < inline `[hardware.compute]`, class by
    /// class); empty when none is given, and then the single efficiencies of `params` apply.
    pub curves: tpsim_model::curves::Curves,
    /// The `params` whose value was fitted to measurements, by name: the preset's `[fitted]`
    /// entries (less those the scenario overrode inline) and every parameter a profile supplied.
    pub fitted: BTreeMap<String, FittedConstant>,
    /// The files it was merged from, lowest first: templates, preset, profile, the scenario
    /// (`tpsim validate --explain`).
    pub layers: layers::Layers,
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
    /// The GPU's achieved kernel rates: datasheet bandwidth and bf16 rate times the preset's (or
    /// profile's) efficiencies, plus the per-kernel fixed cost. The one place both the simulation and
    /// `tpsim-calibrate fit` build them from.
    pub fn compute_rates(&self) -> tpsim_model::compute::ComputeRates {
        tpsim_model::compute::ComputeRates {
            mem_bytes_per_s: self.gpu.memory_bandwidth.bytes_per_s() as f64,
            mem_efficiency: self.params.mem_efficiency,
            flops_per_s: self.gpu.bf16_tflops * 1e12,
            flops_efficiency: self.params.flops_efficiency,
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
    pub version: Option<String>,
    pub tp: u32,
    pub mem_fraction_static: f64,
    /// Whether `mem_fraction_static` is SGLang's default for the era (not given in the scenario).
    pub fraction_is_default: bool,
    pub allreduce: AllreduceBackend,
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
    /// SGLang's overlap scheduler (on unless `disable_overlap_schedule = true`; spec v1 never
    /// overlaps): the host prepares the next batch while the GPU runs this one.
    pub overlap_schedule: bool,
    /// Expert parallelism size: 1 (experts TP-sharded) or `tp` (each rank owns whole experts).
    pub ep_size: u32,
    pub env: NcclEnv,
    pub costs: EngineCosts,
    pub observed: Option<Observed>,
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
    let file: ScenarioFile = error::parse_toml(text, path)?;
    Resolver {
        path,
        text,
        read: Default::default(),
    }
    .resolve(file)
}

/// Resolves a hardware preset given on the command line (a bundled name or a path relative to the
/// current directory), with the same checks as in a scenario.
pub fn hardware_from_preset(reference: &str) -> Result<Hardware, ScenarioError> {
    hardware_from_args(reference, None)
}

/// [`hardware_from_preset`] with a profile (`--profile FILE`, relative to the current directory)
/// applied over the preset's parameters.
pub fn hardware_from_args(reference: &str, profile: Option<&str>) -> Result<Hardware, ScenarioError> {
    const CLI: &str = "./--hardware";
    let r = Resolver {
        path: Path::new(CLI),
        text: "",
        read: Default::default(),
    };
    let section = HardwareSection {
        preset: Some(reference.to_string()),
        profile: profile.map(str::to_string),
        ..HardwareSection::default()
    };
    r.hardware(section).map_err(|e| {
        match e
            .rename_key("hardware.preset", "--hardware")
            .rename_key("hardware.profile", "--profile")
        {
            // Errors in the preset's own values belong to the preset file: name it and its line.
            ScenarioError::Invalid {
                file,
                key,
                line,
                message,
            } if file == CLI && key != "--hardware" && key != "--profile" => {
                let in_file = key.strip_prefix("hardware.").unwrap_or(&key);
                // A value a template supplies: name the template and its line.
                let template = r
                    .hardware_chain("hardware.preset", reference, layers::LayerKind::Preset)
                    .ok()
                    .and_then(|c| c.layers.into_iter().rev().find(|l| l.sets(in_file)))
                    .filter(|l| l.kind == layers::LayerKind::Template);
                if let Some(l) = template {
                    return l.error(key, message);
                }
                let text = if presets::is_path(reference) {
                    crate::files::read_text(Path::new(reference)).unwrap_or_default()
                } else {
                    presets::hardware(reference).unwrap_or_default().to_string()
                };
                let line = error::locate(&text, in_file).or(line);
                ScenarioError::Invalid {
                    file: reference.to_string(),
                    key,
                    line,
                    message,
                }
            }
            other => other,
        }
    })
}

/// Parses NCCL environment settings given as `KEY=VALUE` strings (the `--env` option).
pub fn nccl_env_from_args(pairs: &[String]) -> Result<NcclEnv, ScenarioError> {
    let mut map = std::collections::BTreeMap::new();
    for p in pairs {
        let Some((k, v)) = p.split_once('=') else {
            return Err(ScenarioError::Invalid {
                file: "--env".into(),
                key: p.clone(),
                line: None,
                message: "expected KEY=VALUE, e.g. NCCL_P2P_LEVEL=SYS".into(),
            });
        };
        map.insert(k.trim().to_string(), v.trim().to_string());
    }
    Resolver {
        path: Path::new("--env"),
        text: "",
        read: Default::default(),
    }
    .nccl_env(map)
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

    fn resolve(&self, f: ScenarioFile) -> Result<Scenario, ScenarioError> {
        let hardware = self.hardware(f.hardware)?;
        let routing_skew = f.model.as_ref().and_then(|m| m.routing_skew).unwrap_or(0.0);
        if !(routing_skew.is_finite() && (0.0..=8.0).contains(&routing_skew)) {
            return Err(self.invalid(
                "model.routing_skew",
                format!("{routing_skew}: expected a skew from 0 (uniform) to 8"),
            ));
        }
        let (model_name, model) = self.model("model", f.model)?;
        let speculative = f.speculative.is_some();
        let engine = self.engine(f.engine, &hardware, speculative, &model)?;
        let mut warnings = Vec::new();
        let speculative = match f.speculative {
            Some(s) => Some(self.speculative(s, &engine, &model, &mut warnings)?),
            None => None,
        };
        let workload = self.workload(f.workload.unwrap_or_default())?;
        Ok(Scenario {
            file: self.path.to_path_buf(),
            seed: f.seed.unwrap_or(0),
            hardware,
            model_name,
            model,
            routing_skew,
            engine,
            speculative,
            workload,
            warnings,
            inputs: std::iter::once(self.path.to_path_buf())
                .chain(self.read.take())
                .collect(),
        })
    }

    fn hardware(&self, h: HardwareSection) -> Result<Hardware, ScenarioError> {
        // The preset (or the template the scenario extends) with every template below it.
        let chain = match (&h.preset, &h.extends) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    "hardware.extends",
                    "give either `preset` (a hardware preset) or `extends` (a template), not both",
                ));
            }
            (Some(r), None) => self.hardware_chain("hardware.preset", r, layers::LayerKind::Preset)?,
            (None, Some(t)) => self.hardware_chain("hardware.extends", t, layers::LayerKind::Template)?,
            (None, None) => layers::Chain::default(),
        };
        let base = chain.section;
        let gpus_override = h.gpus;
        let inline_params = h.params.clone().unwrap_or_default();
        let profile_ref = h.profile.clone();
        let inline_compute = h.compute.clone();
        let preset_compute = base.compute.clone().unwrap_or_default();
        if let Some(c) = &inline_compute {
            profile::curves_of(c).map_err(|(k, m)| self.invalid(&format!("hardware.{k}"), m))?;
        }
        check_fitted(&h, "hardware.fitted", |k, m| self.invalid(k, m))?;
        let inline_fitted = h.fitted.clone().unwrap_or_default();
        let mut fitted: BTreeMap<String, FittedConstant> = BTreeMap::new();
        for (name, f) in base.fitted.clone().unwrap_or_default() {
            // A value the scenario sets inline is no longer the fitted one.
            if !inline_params.is_set(&name) {
                let file = chain.fitted_files.get(&name).map_or("", String::as_str);
                fitted.insert(name, fitted_constant(f, file));
            }
        }
        for (name, f) in inline_fitted {
            fitted.insert(name, fitted_constant(f, "the scenario"));
        }
        let m = h.merged_over(base);
        let g = m.gpu.unwrap_or_default();
        let gpu = GpuSpec {
            name: self.need(g.name, "hardware.gpu.name")?,
            memory_total_mib: self.need(g.memory_total_mib, "hardware.gpu.memory_total_mib")?,
            memory_bandwidth: self.need(g.memory_bandwidth, "hardware.gpu.memory_bandwidth")?,
            bf16_tflops: self.need(g.bf16_tflops, "hardware.gpu.bf16_tflops")?,
            sm_count: self.need(g.sm_count, "hardware.gpu.sm_count")?,
            compute_capability: self.need(g.compute_capability, "hardware.gpu.compute_capability")?,
            pcie_gen: self.need(g.pcie_gen, "hardware.gpu.pcie_gen")?,
            pcie_width: self.need(g.pcie_width, "hardware.gpu.pcie_width")?,
            p2p: self.need(g.p2p, "hardware.gpu.p2p")?,
            nvlink: g.nvlink.unwrap_or(false),
        };
        if gpu.memory_total_mib == 0 {
            return Err(self.invalid("hardware.gpu.memory_total_mib", "must be > 0 MiB"));
        }
        if !(gpu.bf16_tflops.is_finite() && gpu.bf16_tflops > 0.0) {
            return Err(self.invalid("hardware.gpu.bf16_tflops", "expected a finite number > 0"));
        }
        if !(3..=6).contains(&gpu.pcie_gen) {
            return Err(self.invalid(
                "hardware.gpu.pcie_gen",
                format!("{} is not a PCIe generation: expected 3, 4, 5 or 6", gpu.pcie_gen),
            ));
        }
        if ![1, 2, 4, 8, 16].contains(&gpu.pcie_width) {
            return Err(self.invalid(
                "hardware.gpu.pcie_width",
                format!(
                    "x{} is not a PCIe width: expected 1, 2, 4, 8 or 16",
                    gpu.pcie_width
                ),
            ));
        }
        let t = m.topology.unwrap_or_default();
        let paths = self.need(t.gpus, "hardware.topology.gpus")?;
        let topology = Topology::new(&paths, &t.nodes.unwrap_or_default())
            .map_err(|e| self.invalid("hardware.topology.gpus", e.to_string()))?;
        if let Some(n) = gpus_override
            && n as usize != topology.gpu_count()
        {
            return Err(self.invalid(
                "hardware.gpus",
                format!(
                    "{n} GPUs, but the topology lists {}: expected them to match",
                    topology.gpu_count()
                ),
            ));
        }
        let p = m.params.unwrap_or_default();
        let k = |name: &str| format!("hardware.params.{name}");
        let mut params = HwParams {
            context_overhead: self.need(p.context_overhead, &k("context_overhead"))?,
            mem_efficiency: self.frac(p.mem_efficiency, &k("mem_efficiency"))?,
            flops_efficiency: self.frac(p.flops_efficiency, &k("flops_efficiency"))?,
            kernel_overhead: self.need(p.kernel_overhead, &k("kernel_overhead"))?,
            pcie_gen5_x16_bw: self.need(p.pcie_gen5_x16_bw, &k("pcie_gen5_x16_bw"))?,
            pcie_gen4_x16_bw: self.need(p.pcie_gen4_x16_bw, &k("pcie_gen4_x16_bw"))?,
            pcie_hop_latency: self.need(p.pcie_hop_latency, &k("pcie_hop_latency"))?,
            root_complex_latency: self.need(p.root_complex_latency, &k("root_complex_latency"))?,
            root_complex_bw: self.need(p.root_complex_bw, &k("root_complex_bw"))?,
            inter_socket_bw: self.need(p.inter_socket_bw, &k("inter_socket_bw"))?,
            inter_socket_latency: self.need(p.inter_socket_latency, &k("inter_socket_latency"))?,
            host_memory_bw: self.need(p.host_memory_bw, &k("host_memory_bw"))?,
            shm_copy_bw: self.need(p.shm_copy_bw, &k("shm_copy_bw"))?,
            nccl_channel_bw: self.need(p.nccl_channel_bw, &k("nccl_channel_bw"))?,
            nccl_simple_step_latency: self
                .need(p.nccl_simple_step_latency, &k("nccl_simple_step_latency"))?,
            shm_step_cost: self.need(p.shm_step_cost, &k("shm_step_cost"))?,
            shm_cross_socket_step_cost: self
                .need(p.shm_cross_socket_step_cost, &k("shm_cross_socket_step_cost"))?,
            collapse_min_roots: self.need(p.collapse_min_roots, &k("collapse_min_roots"))?,
            collapse_min_sources: self.need(p.collapse_min_sources, &k("collapse_min_sources"))?,
            collapse_factor: self.frac(p.collapse_factor, &k("collapse_factor"))?,
            collapse_reads: p.collapse_reads.unwrap_or(false),
            staged_peer_read_factor: self.need(p.staged_peer_read_factor, &k("staged_peer_read_factor"))?,
            staged_latency: self.need(p.staged_latency, &k("staged_latency"))?,
            force_p2p: self.need(p.force_p2p, &k("force_p2p"))?,
            nvlink_bw: p.nvlink_bw,
            nvlink_latency: p.nvlink_latency,
        };
        let mut compute = preset_compute;
        let profile = match profile_ref {
            None => None,
            Some(r) => Some(self.apply_profile(
                &r,
                &inline_params,
                &mut params,
                inline_compute.as_ref(),
                &mut compute,
            )?),
        };
        if let Some(p) = &profile {
            for (name, _) in &p.applied {
                fitted.insert(name.clone(), profile_fitted(p));
            }
        }
        if let Some(c) = inline_compute {
            compute = c.merged_over(compute);
        }
        // Every part was checked where it was read (preset, profile, inline).
        let curves =
            profile::curves_of(&compute).map_err(|(k, m)| self.invalid(&format!("hardware.{k}"), m))?;
        if gpu.nvlink {
            self.need(params.nvlink_bw, &k("nvlink_bw"))?;
            self.need(params.nvlink_latency, &k("nvlink_latency"))?;
        }
        if !(params.staged_peer_read_factor.is_finite() && params.staged_peer_read_factor >= 1.0) {
            return Err(self.invalid(&k("staged_peer_read_factor"), "expected a slowdown factor ≥ 1"));
        }
        if params.collapse_min_roots == 0 || params.collapse_min_sources == 0 {
            return Err(self.invalid(&k("collapse_min_roots"), "expected thresholds ≥ 1"));
        }
        let cpu_amd = match m.cpu_vendor.as_deref().unwrap_or("amd") {
            "amd" => true,
            "intel" => false,
            other => {
                return Err(self.invalid(
                    "hardware.cpu_vendor",
                    format!("`{other}`: expected \"amd\" or \"intel\""),
                ));
            }
        };
        let mut layers = chain.layers;
        if let Some(p) = &profile {
            layers.push(layers::Layer::profile(&p.file));
        }
        if !self.text.is_empty() {
            layers.push(layers::Layer::scenario(self.path, self.text));
        }
        Ok(Hardware {
            name: m.name.unwrap_or_else(|| "custom".into()),
            cpu_amd,
            gpu,
            topology,
            params,
            profile,
            curves,
            fitted,
            layers: layers::Layers::new(layers),
        })
    }

    /// Reads the profile `reference` (relative to this file) and sets each of its parameters that
    /// the inline `[hardware.params]` does not set: preset < profile < inline.
    fn apply_profile(
        &self,
        reference: &str,
        inline: &ParamsSection,
        params: &mut HwParams,
        inline_compute: Option<&ComputeSection>,
        compute: &mut ComputeSection,
    ) -> Result<profile::AppliedProfile, ScenarioError> {
        let file = self.path.parent().unwrap_or(Path::new(".")).join(reference);
        if let Err(e) = crate::files::check_input(&file) {
            return Err(self.invalid(
                "hardware.profile",
                format!("cannot read profile file `{}`: {e}", file.display()),
            ));
        }
        let pf = profile::read(&file)?;
        self.read.borrow_mut().push(file.clone());
        let mut applied = Vec::new();
        let mut overridden = Vec::new();
        for (name, v) in pf.params {
            if inline.is_set(&name) {
                overridden.push(name);
                continue;
            }
            // `profile::read` has checked every name and value.
            profile::set(params, &name, v.value)
                .map_err(|m| ScenarioError::invalid(&file, "", &format!("params.{name}.value"), m))?;
            applied.push((name, v));
        }
        let mut curves = Vec::new();
        if let Some(c) = pf.compute {
            for (class, curve) in c.curves {
                if inline_compute.is_some_and(|i| i.curves.contains_key(&class)) {
                    overridden.push(format!("compute.curves.{class}"));
                    continue;
                }
                curves.push(class.clone());
                compute.curves.insert(class, curve);
            }
        }
        Ok(profile::AppliedProfile {
            file,
            provenance: pf.provenance,
            applied,
            overridden,
            curves,
        })
    }

    fn model(&self, key: &str, m: Option<ModelSection>) -> Result<(String, ModelSpec), ScenarioError> {
        let m = m.ok_or_else(|| {
            self.invalid(
                key,
                "missing section: expected a model preset, e.g. preset = \"kimi-k2.5\"",
            )
        })?;
        let pkey = format!("{key}.preset");
        let (name, config, quant_text) = match (&m.preset, &m.config) {
            (Some(r), None) if !presets::is_path(r) => {
                let (c, q) = presets::model(r).ok_or_else(|| {
                    self.invalid(
                        &pkey,
                        format!(
                            "unknown model preset `{r}`; expected one of: {}",
                            presets::names("model").join(", ")
                        ),
                    )
                })?;
                (r.clone(), c.to_string(), Some(q.to_string()))
            }
            (Some(r), None) => {
                let (_, c) = self.read_relative(&pkey, &format!("{r}/config.json"))?;
                let (_, q) = self.read_relative(&pkey, &format!("{r}/quant.toml"))?;
                (r.clone(), c, Some(q))
            }
            (None, Some(c)) => {
                let (_, text) = self.read_relative(&format!("{key}.config"), c)?;
                (c.clone(), text, None)
            }
            (Some(_), Some(_)) => return Err(self.invalid(key, "give either `preset` or `config`, not both")),
            (None, None) => {
                return Err(self.invalid(
                    key,
                    "expected `preset = \"<name or dir>\"` or `config = \"<config.json>\"`",
                ));
            }
        };
        let quant: Quantization = match (m.quantization, quant_text) {
            (Some(q), _) => q,
            (None, Some(t)) => error::parse_toml(&t, Path::new(&format!("<model {name}/quant.toml>")))?,
            (None, None) => Quantization::default(),
        };
        // Name the key the user wrote: a config error is about `model.config` when the file came
        // from there, else about the preset that supplied it.
        let ckey = if m.config.is_some() {
            format!("{key}.config")
        } else {
            pkey
        };
        let spec =
            ModelSpec::from_config_json(&config, quant).map_err(|e| self.invalid(&ckey, e.to_string()))?;
        Ok((name, spec))
    }

    fn engine(
        &self,
        e: Option<EngineSection>,
        hw: &Hardware,
        speculative: bool,
        model: &ModelSpec,
    ) -> Result<Engine, ScenarioError> {
        let e = e.ok_or_else(|| self.invalid("engine", "missing section: expected at least `tp`"))?;
        let name = e.name.clone().unwrap_or_else(|| "sglang".into());
        let kind = match name.as_str() {
            "sglang" => EngineKind::Sglang,
            "vllm" => EngineKind::Vllm,
            _ => {
                return Err(self.invalid(
                    "engine.name",
                    format!("`{name}`: expected \"sglang\" or \"vllm\""),
                ));
            }
        };
        if kind == EngineKind::Vllm {
            if e.mem_fraction_static.is_some() {
                return Err(self.invalid(
                    "engine.mem_fraction_static",
                    "an SGLang setting: with vLLM use gpu_memory_utilization",
                ));
            }
            if speculative {
                return Err(self.invalid(
                    "engine.name",
                    "speculative decoding under vLLM is not modelled yet (issue #6): use sglang",
                ));
            }
        } else if e.gpu_memory_utilization.is_some() || e.max_model_len.is_some() {
            return Err(self.invalid(
                "engine.gpu_memory_utilization",
                "a vLLM setting: with SGLang use mem_fraction_static",
            ));
        }
        let preset_text =
            presets::engine(&name).ok_or_else(|| self.invalid("engine.name", "no bundled preset"))?;
        let base: CostsSection =
            error::parse_toml(preset_text, Path::new(&format!("<preset engines/{name}.toml>")))?;
        let user_era = e.costs.as_ref().and_then(|c| c.era.is_some().then_some(()));
        let c = e.costs.unwrap_or_default().merged_over(base);
        let costs = EngineCosts {
            era: self.need(c.era, "engine.costs.era")?,
            host_overhead: self.need(c.host_overhead, "engine.costs.host_overhead")?,
            sync_cost: self.need(c.sync_cost, "engine.costs.sync_cost")?,
            launch_overhead: self.need(c.launch_overhead, "engine.costs.launch_overhead")?,
            custom_allreduce_buffers: self.need(
                c.custom_allreduce_buffers,
                "engine.costs.custom_allreduce_buffers",
            )?,
            target_cuda_graph_memory: self.need(
                c.target_cuda_graph_memory,
                "engine.costs.target_cuda_graph_memory",
            )?,
            draft_cuda_graph_memory: self
                .need(c.draft_cuda_graph_memory, "engine.costs.draft_cuda_graph_memory")?,
            activation_memory: self.need(c.activation_memory, "engine.costs.activation_memory")?,
            non_torch_memory: c.non_torch_memory,
        };
        // The era: `engine.costs.era` when the scenario sets it, else from `engine.version`, else the
        // engine preset's.
        let version_era = match (&e.version, kind) {
            (Some(v), EngineKind::Sglang) if user_era.is_none() => {
                match tpsim_model::memory::sglang_era_from_version(v) {
                    Some(era) => Some(era),
                    None => {
                        return Err(self.invalid(
                            "engine.version",
                            format!(
                                "`{v}`: tpsim cannot place this SGLang version in a memory era (0.5.9–0.5.x fall between late-2025 and spring-2026 rules); set engine.costs.era = \"late-2025\" or \"spring-2026\""
                            ),
                        ));
                    }
                }
            }
            _ => None,
        };
        let era_source = match (user_era, &version_era, &e.version) {
            (Some(()), _, _) => "engine.costs.era".to_string(),
            (None, Some(_), Some(v)) => format!("engine.version {v}"),
            _ => format!("engines/{name}.toml"),
        };
        let era = version_era.or_else(|| SglangEra::parse(&costs.era));
        if kind == EngineKind::Vllm && costs.era != "v1" {
            return Err(self.invalid(
                "engine.costs.era",
                format!(
                    "`{}`: vLLM's memory rules are those of its v1 worker: expected \"v1\"",
                    costs.era
                ),
            ));
        }
        let Some(era) = era.or((kind == EngineKind::Vllm).then_some(SglangEra::Late2025)) else {
            return Err(self.invalid(
                "engine.costs.era",
                format!(
                    "`{}`: expected \"early-2025\", \"mid-2025\", \"late-2025\" or \"spring-2026\"",
                    costs.era
                ),
            ));
        };
        let tp = e.tp.ok_or_else(|| {
            self.invalid(
                "engine.tp",
                "missing: expected the tensor-parallel size, e.g. tp = 8",
            )
        })?;
        let gpus = hw.topology.gpu_count() as u32;
        if tp == 0 || tp > gpus {
            return Err(self.invalid(
                "engine.tp",
                format!("tp = {tp}, but the hardware has {gpus} GPUs: expected 1 ≤ tp ≤ {gpus}"),
            ));
        }
        // With expert parallelism the experts are not split by tp (checked with the EP size).
        model
            .validate_parallel(tp, e.ep_size.unwrap_or(1))
            .map_err(|err| self.invalid("engine.tp", err.to_string()))?;
        let (f, fraction_is_default) = match e.mem_fraction_static {
            Some(f) => (f, false),
            // vLLM sizes by gpu_memory_utilization instead (below).
            None if kind == EngineKind::Vllm => (0.9, false),
            None => {
                let input = DefaultFractionInput {
                    era,
                    gpu_mem_mib: hw.gpu.memory_total_mib,
                    tp,
                    pp: 1,
                    eagle: speculative,
                    vision: model
                        .vision
                        .as_ref()
                        .filter(|_| model.has_vision)
                        .map(|v| (v.layers, v.hidden)),
                };
                let f = sglang_default_fraction(&input)
                    .map_err(|err| self.invalid("engine.mem_fraction_static", err.to_string()))?;
                (f, true)
            }
        };
        if !(f.is_finite() && f > 0.0 && f <= 1.0) {
            return Err(self.invalid("engine.mem_fraction_static", format!("{f} is outside (0, 1]")));
        }
        let ep_size = e.ep_size.unwrap_or(1);
        if ep_size != 1 && ep_size != tp {
            return Err(self.invalid(
                "engine.ep_size",
                format!("{ep_size}: expected 1 or the tp size ({tp})"),
            ));
        }
        if ep_size > 1
            && !model
                .layers
                .iter()
                .any(|l| matches!(l, tpsim_model::llm::Ffn::Moe(_)))
        {
            return Err(self.invalid("engine.ep_size", "expert parallelism needs a MoE model"));
        }
        // Tokens per page: SGLang's default page size 1; vLLM's default block size 16.
        let page_size = e
            .page_size
            .unwrap_or(if kind == EngineKind::Vllm { 16 } else { 1 });
        let gpu_memory_utilization = e.gpu_memory_utilization.unwrap_or(0.9);
        if !(gpu_memory_utilization.is_finite()
            && gpu_memory_utilization > 0.0
            && gpu_memory_utilization <= 1.0)
        {
            return Err(self.invalid(
                "engine.gpu_memory_utilization",
                format!("{gpu_memory_utilization} is outside (0, 1]"),
            ));
        }
        if kind == EngineKind::Vllm && costs.non_torch_memory.is_none() {
            return Err(self.invalid(
                "engine.costs.non_torch_memory",
                "missing: expected a value here or in the engine preset",
            ));
        }
        if page_size == 0 {
            return Err(self.invalid("engine.page_size", "expected a page size ≥ 1 token"));
        }
        if e.max_total_tokens == Some(0) {
            return Err(self.invalid(
                "engine.max_total_tokens",
                "0: expected at least 1 token (omit the key for no cap)",
            ));
        }
        if e.max_running_requests == Some(0) {
            return Err(self.invalid(
                "engine.max_running_requests",
                "0: expected at least 1 request (omit the key for the engine's default)",
            ));
        }
        // SGLang's EAGLE default (late-2025 era on, engine-memory.md "SGLang eras").
        let max_running_requests = e
            .max_running_requests
            .or((speculative && kind == EngineKind::Sglang && era >= SglangEra::Late2025).then_some(48));
        let context_len = match e.context_length.or(model.context_len) {
            Some(0) => {
                return Err(self.invalid("engine.context_length", "0: expected a context length ≥ 1 token"));
            }
            Some(c) => c,
            None => {
                return Err(self.invalid(
                    "engine.context_length",
                    "missing: the model config has no max_position_embeddings; set engine.context_length",
                ));
            }
        };
        let env = self.nccl_env(e.env.unwrap_or_default())?;
        let observed = match e.observed {
            None => None,
            Some(o) => {
                for (v, key) in [
                    (o.free_after_init_gib, "engine.observed.free_after_init_gib"),
                    (o.free_after_weights_gib, "engine.observed.free_after_weights_gib"),
                ] {
                    if let Some(v) = v
                        && !(v.is_finite() && v >= 0.0)
                    {
                        return Err(self.invalid(key, format!("{v}: expected GiB ≥ 0 as the log prints it")));
                    }
                }
                if let (Some(a), Some(b)) = (o.free_after_init_gib, o.free_after_weights_gib)
                    && b > a
                {
                    return Err(self.invalid(
                        "engine.observed.free_after_weights_gib",
                        format!("{b} GiB free after weights exceeds {a} GiB free before them"),
                    ));
                }
                for (v, key) in [
                    (o.free_at_start_gib, "engine.observed.free_at_start_gib"),
                    (o.weights_gib, "engine.observed.weights_gib"),
                    (o.cuda_graph_gib, "engine.observed.cuda_graph_gib"),
                    (o.peak_activation_gib, "engine.observed.peak_activation_gib"),
                    (o.non_torch_gib, "engine.observed.non_torch_gib"),
                ] {
                    if let Some(v) = v
                        && !(v.is_finite() && v >= 0.0)
                    {
                        return Err(self.invalid(key, format!("{v}: expected GiB ≥ 0 as the log prints it")));
                    }
                }
                Some(Observed {
                    free_after_init_gib: o.free_after_init_gib,
                    free_after_weights_gib: o.free_after_weights_gib,
                    free_at_start_gib: o.free_at_start_gib,
                    weights_gib: o.weights_gib,
                    cuda_graph_gib: o.cuda_graph_gib,
                    peak_activation_gib: o.peak_activation_gib,
                    non_torch_gib: o.non_torch_gib,
                })
            }
        };
        Ok(Engine {
            name,
            version: e.version,
            tp,
            mem_fraction_static: f,
            fraction_is_default,
            allreduce: e.allreduce.unwrap_or(AllreduceBackend::Nccl),
            page_size,
            max_total_tokens: e.max_total_tokens,
            max_running_requests,
            context_len,
            era,
            era_source,
            cuda_graph: e.cuda_graph.unwrap_or(true),
            overlap_schedule: !e.disable_overlap_schedule.unwrap_or(false),
            kind,
            gpu_memory_utilization,
            max_model_len: e.max_model_len,
            ep_size,
            env,
            costs,
            observed,
        })
    }

    fn nccl_env(&self, env: std::collections::BTreeMap<String, String>) -> Result<NcclEnv, ScenarioError> {
        use tpsim_model::nccl::{Algo, Proto};
        let mut out = NcclEnv::default();
        for (k, v) in env {
            let key = format!("engine.env.{k}");
            match k.as_str() {
                "NCCL_P2P_LEVEL" => {
                    out.p2p_level = Some(PathClass::parse_level(&v).ok_or_else(|| {
                        self.invalid(
                            &key,
                            format!("`{v}`: expected LOC, NVL, PIX, PXB, PHB (NODE) or SYS"),
                        )
                    })?)
                }
                "NCCL_P2P_DISABLE" => {
                    out.p2p_disable = match v.as_str() {
                        "1" => true,
                        "0" => false,
                        _ => return Err(self.invalid(&key, format!("`{v}`: expected \"0\" or \"1\""))),
                    }
                }
                "NCCL_PROTO" => {
                    out.proto = Some(match v.to_ascii_uppercase().as_str() {
                        "LL" => Proto::Ll,
                        "LL128" => Proto::Ll128,
                        "SIMPLE" => Proto::Simple,
                        _ => return Err(self.invalid(&key, format!("`{v}`: expected LL, LL128 or Simple"))),
                    })
                }
                "NCCL_ALGO" => {
                    out.algo =
                        Some(match v.to_ascii_uppercase().as_str() {
                            "RING" => Algo::Ring,
                            "TREE" => Algo::Tree,
                            _ => return Err(self.invalid(
                                &key,
                                format!(
                                    "`{v}`: expected Ring or Tree (NVLS/CollNet do not exist on PCIe boxes)"
                                ),
                            )),
                        })
                }
                "NCCL_MIN_NCHANNELS" | "NCCL_MAX_NCHANNELS" => {
                    let n: u32 = v.parse().ok().filter(|n| (1..=64).contains(n)).ok_or_else(|| {
                        self.invalid(&key, format!("`{v}`: expected an integer from 1 to 64"))
                    })?;
                    if k == "NCCL_MIN_NCHANNELS" {
                        out.min_nchannels = Some(n);
                    } else {
                        out.max_nchannels = Some(n);
                    }
                }
                _ => {
                    return Err(self.invalid(
                        &key,
                        "unknown variable: expected one of NCCL_P2P_LEVEL, NCCL_P2P_DISABLE, NCCL_PROTO, NCCL_ALGO, NCCL_MIN_NCHANNELS, NCCL_MAX_NCHANNELS",
                    ));
                }
            }
        }
        Ok(out)
    }

    fn speculative(
        &self,
        s: SpeculativeSection,
        engine: &Engine,
        target: &ModelSpec,
        warnings: &mut Vec<String>,
    ) -> Result<Speculative, ScenarioError> {
        let tp = engine.tp;
        let algorithm = s.algorithm.unwrap_or_else(|| "eagle3".into());
        let (draft_name, draft, draft_weights) = self.draft(&algorithm, s.draft, tp, target)?;
        // SGLang (server_args.py, `_handle_speculative_decoding`): without --speculative-num-steps it
        // auto-chooses all three after `assert speculative_eagle_topk is None and
        // speculative_num_draft_tokens is None`, so giving topk or num_draft_tokens alone fails there.
        if s.num_steps.is_none() && (s.topk.is_some() || s.num_draft_tokens.is_some()) {
            return Err(self.invalid(
                "speculative.num_steps",
                "missing while topk or num_draft_tokens is set: SGLang then stops with an AssertionError \
                 (`assert speculative_eagle_topk is None and speculative_num_draft_tokens is None`, \
                 server_args.py); set num_steps too",
            ));
        }
        let steps = s.num_steps.unwrap_or(3);
        let topk = s.topk.unwrap_or(1);
        // Ranges of tpsim's own (SGLang has none): the acceptance models and tree builder are
        // defined up to 16 steps and 16 candidates per step.
        if !(1..=16).contains(&steps) {
            return Err(self.invalid("speculative.num_steps", format!("{steps}: expected 1 to 16")));
        }
        if !(1..=16).contains(&topk) {
            return Err(self.invalid("speculative.topk", format!("{topk}: expected 1 to 16")));
        }
        let n = if topk == 1 {
            // SGLang adjusts, with a warning, rather than refusing (server_args.py,
            // `_handle_speculative_decoding`: `if speculative_eagle_topk == 1 and
            // speculative_num_draft_tokens != speculative_num_steps + 1`).
            let n = steps + 1;
            if let Some(given) = s.num_draft_tokens.filter(|&g| g != n) {
                warnings.push(format!(
                    "speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1 \
                     (SGLang's warning; speculative.num_draft_tokens {given} → {n})"
                ));
            }
            n
        } else {
            // SGLang's candidates: topk at depth 1, topk² at each further step. More draft tokens
            // than candidates makes the tree builder's top-k selection fail at the first verify, so
            // tpsim refuses them here.
            let most = 1 + topk + (steps - 1) * topk * topk;
            match s.num_draft_tokens {
                Some(n) if (2..=most).contains(&n) => n,
                Some(n) => {
                    return Err(self.invalid(
                        "speculative.num_draft_tokens",
                        format!("{n}: with topk = {topk} and {steps} steps expected 2 to {most} (root + candidates)"),
                    ));
                }
                None => {
                    return Err(self.invalid(
                        "speculative.num_draft_tokens",
                        format!("missing: with topk = {topk} give the tree's size, 2 to {most}"),
                    ));
                }
            }
        };
        if topk > 1 && engine.page_size > 1 {
            // SGLang refuses this unless the attention backend is flashinfer (later also fa3 and
            // triton); tpsim does not model the attention backend, so it warns with SGLang's text.
            warnings.push(format!(
                "speculative_eagle_topk > 1 with page_size > 1 is unstable and produces incorrect results for paged \
                 attention backends. This combination is only supported for the 'flashinfer' backend. \
                 (SGLang's error unless --attention-backend flashinfer; topk = {topk}, page_size = {}; tpsim does \
                 not model the attention backend)",
                engine.page_size
            ));
        }
        let section = s.acceptance.ok_or_else(|| {
            self.invalid(
                "speculative.acceptance",
                "missing: expected e.g. acceptance = { alpha = 0.8 }, { per_position = [0.8, 0.7, 0.6] }, { profile = \"kimi-k2.5-eagle3-mtbench\" } or { trace = \"accept.txt\" }",
            )
        })?;
        let acceptance = self.acceptance(section, steps)?;
        Ok(Speculative {
            algorithm,
            draft_name,
            draft,
            draft_weights,
            num_steps: steps,
            topk,
            num_draft_tokens: n,
            acceptance,
        })
    }

    fn workload(&self, w: WorkloadSection) -> Result<Workload, ScenarioError> {
        let concurrency = w.concurrency.unwrap_or(1);
        let out = Workload {
            concurrency,
            num_requests: w.num_requests.unwrap_or(concurrency),
            prompt_len: w.prompt_len.unwrap_or(LengthSpec::Fixed(1024)),
            output_len: w.output_len.unwrap_or(LengthSpec::Fixed(1024)),
        };
        if out.concurrency == 0 || out.concurrency > 4096 {
            return Err(self.invalid(
                "workload.concurrency",
                format!("{}: expected 1 to 4096 requests", out.concurrency),
            ));
        }
        if out.num_requests < out.concurrency || out.num_requests > 1_000_000 {
            return Err(self.invalid(
                "workload.num_requests",
                format!(
                    "{}: expected concurrency ({}) to 1,000,000 requests",
                    out.num_requests, out.concurrency
                ),
            ));
        }
        for (len, key) in [
            (out.prompt_len, "workload.prompt_len"),
            (out.output_len, "workload.output_len"),
        ] {
            if len.min() > len.max() {
                return Err(self.invalid(key, format!("{len}: min must not exceed max")));
            }
        }
        if out.output_len.min() == 0 {
            return Err(self.invalid("workload.output_len", "expected at least 1 output token"));
        }
        if out.prompt_len.max().saturating_add(out.output_len.max()) > 10_000_000 {
            return Err(self.invalid(
                "workload.prompt_len",
                "prompt_len + output_len exceeds 10M tokens",
            ));
        }
        Ok(out)
    }
}

/// Checks the `[fitted]` entries of `sec`: each names a profile parameter (`profile::PROFILE_PARAMS`)
/// that the same section sets in its `[params]`, with non-empty rows and refit command.
fn check_fitted(
    sec: &HardwareSection,
    prefix: &str,
    err: impl Fn(&str, String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    let params = sec.params.clone().unwrap_or_default();
    for (name, f) in sec.fitted.iter().flatten() {
        let key = format!("{prefix}.{name}");
        if profile::param_unit(name).is_none() {
            return Err(err(
                &key,
                format!(
                    "`{name}` is not a fittable parameter: expected one of {}",
                    profile::PROFILE_PARAMS
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if !params.is_set(name) {
            return Err(err(
                &key,
                format!("`{name}` is marked fitted but this file's [params] does not set it"),
            ));
        }
        if f.rows.trim().is_empty() || f.refit.trim().is_empty() {
            return Err(err(
                &key,
                "expected non-empty `rows` (what it was fitted to) and `refit` (the command that refits it)"
                    .into(),
            ));
        }
    }
    Ok(())
}

fn fitted_constant(f: FittedSection, file: &str) -> FittedConstant {
    FittedConstant {
        rows: f.rows,
        refit: f.refit,
        file: file.to_string(),
    }
}

/// A profile's parameters are fitted by construction: its measurement files are their rows, and the
/// command its notes record (`command: …`) refits them.
fn profile_fitted(p: &profile::AppliedProfile) -> FittedConstant {
    let refit = p
        .provenance
        .notes
        .iter()
        .find_map(|n| n.strip_prefix("command: "))
        .map(str::to_string)
        .unwrap_or_else(|| p.provenance.tool.clone());
    let rows = if p.provenance.measurements.is_empty() {
        "the measurements named in the profile".to_string()
    } else {
        p.provenance.measurements.join(", ")
    };
    FittedConstant {
        rows,
        refit,
        file: p.file.display().to_string(),
    }
}
