//! The `[hardware]` section: a preset or template chain, a profile and inline keys resolved into a
//! [`Hardware`], and the fitted-constant records that say where each fitted value came from.

use super::{
    ComputeSection, FittedConstant, FittedSection, GpuSection, Hardware, HardwareSection, HwParams,
    ParamsSection, Resolver, ScenarioError, TopologySection, error, layers, profile,
};
use crate::presets;
use std::collections::BTreeMap;
use std::path::Path;
use tpsim_model::hw::GpuSpec;
use tpsim_model::nccl::{CPU_GENERATION_NAMES, CpuGeneration};
use tpsim_model::topo::Topology;

/// The largest `hardware.gpu.memory_total_mib` tpsim accepts: 16 TiB, its own bound (see the check
/// in `gpu`), 56× the largest bundled GPU (MI355X, 288 GiB: `templates/mi355x.toml`).
const MAX_GPU_MEMORY_MIB: u64 = 16 << 20;
/// The largest `hardware.gpu.dram_latency_ns` tpsim accepts (ns). An input bound, not a fact: the
/// measured figures in the templates are 350–450 ns (h100-sxm 353.5, b200-sxm 432.2); a bound of
/// 1 ms, thousands of times above them, keeps every step's integer picoseconds far from overflow
/// (the garbage sweep found `i64::MAX` ns overflowing the serving loop's clock).
const MAX_DRAM_LATENCY_NS: f64 = 1e6;

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

impl Resolver<'_> {
    pub(super) fn hardware(&self, h: HardwareSection) -> Result<Hardware, ScenarioError> {
        let chain = self.hardware_base(&h)?;
        let base = chain.section;
        let gpus_override = h.gpus;
        let inline_params = h.params.clone().unwrap_or_default();
        let profile_ref = h.profile.clone();
        let inline_compute = h.compute.clone();
        let preset_compute = base.compute.clone().unwrap_or_default();
        let base_compute = preset_compute.clone();
        if let Some(c) = &inline_compute {
            profile::curves_of(c).map_err(|(k, m)| self.invalid(&format!("hardware.{k}"), m))?;
        }
        let mut fitted = self.fitted_constants(&h, &base, &chain.fitted_files, &inline_params)?;
        let m = h.merged_over(base);
        let gpu = self.gpu_spec(m.gpu.clone().unwrap_or_default())?;
        let topology = self.topology(m.topology.clone().unwrap_or_default(), gpus_override)?;
        // Accelerators and multi-node (issue #17 point 4).
        let accel = self.accel(&m, topology.gpu_count() as u32, gpu.nvlink)?;
        let mut params = self.hw_params(m.params.unwrap_or_default())?;
        // Issue #19 point 1: the host's facts replace the shared SHM constants (host.rs).
        let host = match m.host.clone() {
            None => None,
            Some(h) => {
                let facts = self.host(h, &topology)?;
                self.need(params.shm_read_efficiency, "hardware.params.shm_read_efficiency")?;
                super::host::apply(&facts, &inline_params, &mut params, &mut fitted);
                Some(facts)
            }
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
        // A `flops_efficiency` set inline means a flat FLOP rate: it replaces the FLOP points of the
        // preset's and the profile's curves (an inline `[hardware.compute.curves]` still goes over it).
        if inline_params.is_set("flops_efficiency") {
            drop_flop_points(&mut compute);
        }
        if let Some(c) = inline_compute {
            compute = c.merged_over(compute);
        }
        fitted_curves(&compute, &base_compute, &chain.layers, &mut fitted);
        // Every part was checked where it was read (preset, profile, inline).
        let curves =
            profile::curves_of(&compute).map_err(|(k, m)| self.invalid(&format!("hardware.{k}"), m))?;
        self.check_params(&gpu, &params)?;
        let default_flops = compute.curves.get("default").filter(|c| c.flops_points.is_some());
        let flops_range = default_flops.and_then(|c| c.flops_range);
        let flops_curve_source = default_flops.and_then(|c| c.source.clone());
        let cpu_amd = self.cpu_amd(m.cpu_vendor.as_deref())?;
        let cpu_generation = self.cpu_generation(m.cpu_generation.as_deref(), cpu_amd)?;
        let numa_nodes = self.numa_nodes(m.numa_nodes, &topology, host.as_ref())?;
        let layers = self.resolved_layers(chain.layers, profile.as_ref());
        Ok(Hardware {
            name: m.name.unwrap_or_else(|| "custom".into()),
            cpu_amd,
            cpu_generation,
            numa_nodes,
            gpu,
            topology,
            params,
            profile,
            curves,
            flops_range,
            flops_curve_source,
            fitted,
            layers: layers::Layers::new(layers),
            accel,
            host,
        })
    }

    /// The preset (or the template the scenario extends) with every template below it.
    fn hardware_base(&self, h: &HardwareSection) -> Result<layers::Chain, ScenarioError> {
        Ok(match (&h.preset, &h.extends) {
            (Some(_), Some(_)) => {
                return Err(self.invalid(
                    "hardware.extends",
                    "give either `preset` (a hardware preset) or `extends` (a template), not both",
                ));
            }
            (Some(r), None) => self.hardware_chain("hardware.preset", r, layers::LayerKind::Preset)?,
            (None, Some(t)) => self.hardware_chain("hardware.extends", t, layers::LayerKind::Template)?,
            (None, None) => layers::Chain::default(),
        })
    }

    /// The fitted-constant records: the base's (with the file each came from) unless the scenario
    /// sets the value inline, then the scenario's own `[hardware.fitted]`, checked first.
    fn fitted_constants(
        &self,
        h: &HardwareSection,
        base: &HardwareSection,
        fitted_files: &BTreeMap<String, String>,
        inline_params: &ParamsSection,
    ) -> Result<BTreeMap<String, FittedConstant>, ScenarioError> {
        check_fitted(h, "hardware.fitted", |k, m| self.invalid(k, m))?;
        let inline_fitted = h.fitted.clone().unwrap_or_default();
        let mut fitted: BTreeMap<String, FittedConstant> = BTreeMap::new();
        for (name, f) in base.fitted.clone().unwrap_or_default() {
            // A value the scenario sets inline is no longer the fitted one.
            if !inline_params.is_set(&name) {
                let file = fitted_files.get(&name).map_or("", String::as_str);
                fitted.insert(name, fitted_constant(f, file));
            }
        }
        for (name, f) in inline_fitted {
            fitted.insert(name, fitted_constant(f, "the scenario"));
        }
        Ok(fitted)
    }

    /// The PCIe tree of `[hardware.topology]`, and `hardware.gpus`, when given, checked against it.
    fn topology(&self, t: TopologySection, gpus_override: Option<u32>) -> Result<Topology, ScenarioError> {
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
        Ok(topology)
    }

    /// `hardware.cpu_vendor`: AMD (the default) or Intel.
    fn cpu_amd(&self, vendor: Option<&str>) -> Result<bool, ScenarioError> {
        match vendor.unwrap_or("amd") {
            "amd" => Ok(true),
            "intel" => Ok(false),
            other => Err(self.invalid(
                "hardware.cpu_vendor",
                format!("`{other}`: expected \"amd\" or \"intel\""),
            )),
        }
    }

    /// `hardware.numa_nodes` (ncclhost59): 1 (one node for the whole box, AMD NPS0), one a socket, or
    /// `[host]`'s sockets × `numa_nodes_per_socket` where that section says which node each GPU is
    /// on; anything else is refused naming what fits.
    fn numa_nodes(
        &self,
        nodes: Option<u32>,
        topology: &Topology,
        host: Option<&tpsim_model::shm::HostFacts>,
    ) -> Result<Option<u32>, ScenarioError> {
        let Some(n) = nodes else { return Ok(None) };
        let key = "hardware.numa_nodes";
        let sockets = host.map_or(topology.socket_count() as u32, |h| h.sockets);
        let per_socket = host.map_or(1, |h| h.numa_nodes_per_socket);
        if n == 1 && per_socket > 1 {
            return Err(self.invalid(
                key,
                format!(
                    "1, but [host] numa_nodes_per_socket = {per_socket}: expected {} (its sockets × nodes), or no split in [host]",
                    sockets * per_socket
                ),
            ));
        }
        if n == 1 || n == sockets * per_socket {
            return Ok(Some(n));
        }
        let split = if per_socket > 1 {
            String::new()
        } else {
            "; more than one node a socket (NPS2/NPS4, SNC) needs [host] numa_nodes_per_socket and gpu_numa_nodes, which say which node each GPU is on".to_string()
        };
        Err(self.invalid(
            key,
            format!(
                "{n}: expected 1 (one NUMA node for the whole box, NPS0) or {} ({sockets} socket(s) × {per_socket} node(s)){split}",
                sockets * per_socket
            ),
        ))
    }

    /// `hardware.cpu_generation`: one of NCCL's CPU tiers, of the vendor `cpu_vendor` names.
    fn cpu_generation(
        &self,
        name: Option<&str>,
        cpu_amd: bool,
    ) -> Result<Option<CpuGeneration>, ScenarioError> {
        let Some(name) = name else { return Ok(None) };
        let key = "hardware.cpu_generation";
        let expected = || format!("expected one of {}", CPU_GENERATION_NAMES.join(", "));
        let g = CpuGeneration::parse(name)
            .ok_or_else(|| self.invalid(key, format!("`{name}`: {}", expected())))?;
        if g.is_amd() != cpu_amd {
            let vendor = if cpu_amd { "amd" } else { "intel" };
            return Err(self.invalid(
                key,
                format!("`{name}` is not a generation of cpu_vendor = \"{vendor}\""),
            ));
        }
        Ok(Some(g))
    }

    /// The files the hardware was read from, bottom up: the chain's, the profile, the scenario.
    fn resolved_layers(
        &self,
        mut layers: Vec<layers::Layer>,
        profile: Option<&profile::AppliedProfile>,
    ) -> Vec<layers::Layer> {
        if let Some(p) = profile {
            layers.push(layers::Layer::profile(&p.file));
        }
        if !self.text.is_empty() {
            layers.push(layers::Layer::scenario(self.path, self.text));
        }
        layers
    }

    /// The GPU: every key required, with its memory, throughput and PCIe link checked.
    fn gpu_spec(&self, g: GpuSection) -> Result<GpuSpec, ScenarioError> {
        let gpu = GpuSpec {
            name: self.need(g.name, "hardware.gpu.name")?,
            memory_total_mib: self.need(g.memory_total_mib, "hardware.gpu.memory_total_mib")?,
            memory_bandwidth: self.need(g.memory_bandwidth, "hardware.gpu.memory_bandwidth")?,
            bf16_tflops: self.need(g.bf16_tflops, "hardware.gpu.bf16_tflops")?,
            fp8_tflops: g.fp8_tflops,
            fp4_tflops: g.fp4_tflops,
            fp32_tflops: g.fp32_tflops,
            sm_count: self.need(g.sm_count, "hardware.gpu.sm_count")?,
            compute_capability: self.need(g.compute_capability, "hardware.gpu.compute_capability")?,
            pcie_gen: self.need(g.pcie_gen, "hardware.gpu.pcie_gen")?,
            pcie_width: self.need(g.pcie_width, "hardware.gpu.pcie_width")?,
            p2p: self.need(g.p2p, "hardware.gpu.p2p")?,
            nvlink: g.nvlink.unwrap_or(false),
            torch_total_gib: g.torch_total_gib,
            device_name: g.device_name,
            dram_latency_ns: g.dram_latency_ns,
        };
        if gpu.memory_total_mib == 0 {
            return Err(self.invalid("hardware.gpu.memory_total_mib", "must be > 0 MiB"));
        }
        // tpsim's limit, not a GPU's: 16 TiB per GPU keeps the memory plan's byte products (tokens ×
        // cell, batch × width) inside 64 bits; the largest bundled GPU has 288 GiB (294912 MiB).
        if gpu.memory_total_mib > MAX_GPU_MEMORY_MIB {
            return Err(self.invalid(
                "hardware.gpu.memory_total_mib",
                format!(
                    "{} MiB: tpsim models at most {MAX_GPU_MEMORY_MIB} MiB (16 TiB) per GPU",
                    gpu.memory_total_mib
                ),
            ));
        }
        // longctx18: a memory latency is a positive number of ns.
        if let Some(t) = gpu.dram_latency_ns
            && !(t.is_finite() && t > 0.0 && t <= MAX_DRAM_LATENCY_NS)
        {
            return Err(self.invalid(
                "hardware.gpu.dram_latency_ns",
                format!("{t}: expected a positive latency in ns, at most {MAX_DRAM_LATENCY_NS} (1 ms)"),
            ));
        }
        // vLLM memory (issue #17): torch's total is the driver's, at most nvidia-smi's.
        if let Some(t) = gpu.torch_total_gib
            && !(t.is_finite() && t > 0.0 && t <= gpu.memory_total_mib as f64 / 1024.0)
        {
            return Err(self.invalid(
                "hardware.gpu.torch_total_gib",
                format!(
                    "{t}: expected GiB > 0 and at most memory_total_mib / 1024 = {:.2}",
                    gpu.memory_total_mib as f64 / 1024.0
                ),
            ));
        }
        if !(gpu.bf16_tflops.is_finite() && gpu.bf16_tflops > 0.0) {
            return Err(self.invalid("hardware.gpu.bf16_tflops", "expected a finite number > 0"));
        }
        self.low_precision_rates(&gpu, g.vendor.as_deref())?;
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
        Ok(gpu)
    }

    /// fp8rate: `fp8_tflops` / `fp4_tflops`, when given, are finite and above `bf16_tflops` (every
    /// datasheet lists FP8 at 2× and FP4 at 4× the dense bf16 rate), and an NVIDIA GPU has the tensor
    /// cores: FP8 from SM 8.9 (Ada; `llm::online_quant::FP8_TENSOR_CORE_SM`, vLLM
    /// `has_device_capability(89)`), FP4 from SM 10.0 (Blackwell).
    fn low_precision_rates(&self, gpu: &GpuSpec, vendor: Option<&str>) -> Result<(), ScenarioError> {
        let nvidia = vendor.is_none_or(|v| v == "nvidia");
        let sm = tpsim_model::hw::sm_version(&gpu.compute_capability);
        for (key, v, min_sm, what) in [
            (
                "fp8_tflops",
                gpu.fp8_tflops,
                tpsim_model::llm::online_quant::FP8_TENSOR_CORE_SM,
                "FP8 tensor cores start at SM 8.9 (Ada)",
            ),
            (
                "fp4_tflops",
                gpu.fp4_tflops,
                100,
                "FP4 tensor cores start at SM 10.0 (Blackwell)",
            ),
        ] {
            let Some(v) = v else { continue };
            let k = format!("hardware.gpu.{key}");
            if !(v.is_finite() && v > gpu.bf16_tflops) {
                return Err(self.invalid(
                    &k,
                    format!(
                        "{v}: expected a finite number of TFLOP/s above bf16_tflops = {}",
                        gpu.bf16_tflops
                    ),
                ));
            }
            if nvidia && sm < min_sm {
                return Err(self.invalid(
                    &k,
                    format!(
                        "compute capability {} has none: {what}; leave it out (the engines run those weights through Marlin at the bf16 rate)",
                        gpu.compute_capability
                    ),
                ));
            }
        }
        // h200gl51: the CUDA-core FP32 rate is above 0 and below the dense bf16 tensor rate (every
        // datasheet with tensor cores lists it lower: H100 / H200 SXM 67 against 989.5 / 990).
        if let Some(v) = gpu.fp32_tflops
            && !(v.is_finite() && v > 0.0 && v < gpu.bf16_tflops)
        {
            return Err(self.invalid(
                "hardware.gpu.fp32_tflops",
                format!(
                    "{v}: expected a finite number of TFLOP/s above 0 and below bf16_tflops = {}",
                    gpu.bf16_tflops
                ),
            ));
        }
        Ok(())
    }

    /// The calibrated parameters: every key required except the NVLink ones, `pcie_gen3_x16_bw` and `collapse_reads`;
    /// fractions in (0, 1].
    fn hw_params(&self, p: ParamsSection) -> Result<HwParams, ScenarioError> {
        let k = |name: &str| format!("hardware.params.{name}");
        Ok(HwParams {
            context_overhead: self.need(p.context_overhead, &k("context_overhead"))?,
            mem_efficiency: self.frac(p.mem_efficiency, &k("mem_efficiency"))?,
            flops_efficiency: self.frac(p.flops_efficiency, &k("flops_efficiency"))?,
            kernel_overhead: self.need(p.kernel_overhead, &k("kernel_overhead"))?,
            pcie_gen5_x16_bw: self.need(p.pcie_gen5_x16_bw, &k("pcie_gen5_x16_bw"))?,
            pcie_gen4_x16_bw: self.need(p.pcie_gen4_x16_bw, &k("pcie_gen4_x16_bw"))?,
            pcie_gen3_x16_bw: p.pcie_gen3_x16_bw,
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
            // Issue #19 points 1-2 (launch).
            nccl_eager_launch: self.need(p.nccl_eager_launch, &k("nccl_eager_launch"))?,
            // Issue #19 point 1: checked in (0, 1] where given; required by a `[host]` (host.rs).
            shm_read_efficiency: match p.shm_read_efficiency {
                None => None,
                Some(v) => Some(self.frac(Some(v), &k("shm_read_efficiency"))?),
            },
            // Issue #19 point 3.
            kernel_read_outstanding: p.kernel_read_outstanding,
        })
    }

    /// The checks on the parameters as the profile leaves them: NVLink's when the GPU has it, the
    /// staged-read slowdown and the collapse thresholds.
    fn check_params(&self, gpu: &GpuSpec, params: &HwParams) -> Result<(), ScenarioError> {
        let k = |name: &str| format!("hardware.params.{name}");
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
        // Issue #19 point 3: a GPU with no read in flight would never finish a pull kernel.
        if params.kernel_read_outstanding.is_some_and(|b| b.0 == 0) {
            return Err(self.invalid(
                &k("kernel_read_outstanding"),
                "expected a size > 0 (e.g. \"64KiB\")",
            ));
        }
        Ok(())
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
        // Issue #18 (prefillgpus): a profile's fitted `flops_efficiency` is the FLOP rate at every
        // size, as an inline one: the preset's FLOP points go (the profile's own curves, below, stay).
        if applied.iter().any(|(n, _)| n == "flops_efficiency") {
            drop_flop_points(compute);
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
            for (backend, curve) in c.attention_backends {
                if inline_compute.is_some_and(|i| i.attention_backends.contains_key(&backend)) {
                    overridden.push(format!("compute.attention_backends.{backend}"));
                    continue;
                }
                curves.push(format!("attention_backends.{backend}"));
                compute.attention_backends.insert(backend, curve);
            }
            for (backend, m) in c.moe_backends {
                if inline_compute.is_some_and(|i| i.moe_backends.contains_key(&backend)) {
                    overridden.push(format!("compute.moe_backends.{backend}"));
                    continue;
                }
                curves.push(format!("moe_backends.{backend}"));
                compute.moe_backends.insert(backend, m);
            }
            for (format, curve) in c.formats {
                if inline_compute.is_some_and(|i| i.formats.contains_key(&format)) {
                    overridden.push(format!("compute.formats.{format}"));
                    continue;
                }
                curves.push(format!("formats.{format}"));
                compute.formats.insert(format, curve);
            }
        }
        Ok(profile::AppliedProfile {
            file,
            provenance: pf.provenance,
            applied,
            overridden,
            curves,
            correlation: pf.correlation,
        })
    }
}

/// Checks the `[fitted]` entries of `sec`: each names a profile parameter (`profile::PROFILE_PARAMS`)
/// that the same section sets in its `[params]`, with non-empty rows and refit command.
pub(super) fn check_fitted(
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

/// Issue #18 (prefill3): a preset's efficiency curve whose `source` reads `[fitted] ROWS; refit:
/// COMMAND` is a fitted constant too, named `compute.curves.<class>`, as long as neither a profile
/// nor the scenario replaced it; its file is the last preset file that declares the class.
/// A flat `flops_efficiency` (inline or from a profile) replaces every curve's FLOP points and their
/// measured range; a curve left with no points at all is removed.
fn drop_flop_points(compute: &mut ComputeSection) {
    for c in compute.curves.values_mut() {
        c.flops_points = None;
        c.flops_range = None;
    }
    compute
        .curves
        .retain(|_, c| c.points.is_some() || c.flops_points.is_some());
    // fp8rate: the low-precision formats' FLOP curves too (they then borrow the flat value).
    for c in compute.formats.values_mut() {
        c.flops_points = None;
    }
    compute.formats.retain(|_, c| c.points.is_some());
}

fn fitted_curves(
    compute: &ComputeSection,
    preset: &ComputeSection,
    layers: &[layers::Layer],
    fitted: &mut BTreeMap<String, FittedConstant>,
) {
    for (class, c) in &compute.curves {
        let Some(text) = c.source.as_deref().and_then(|s| s.strip_prefix("[fitted] ")) else {
            continue;
        };
        if preset.curves.get(class) != Some(c) {
            continue;
        }
        let (rows, refit) = text.split_once("; refit: ").unwrap_or((text, ""));
        let header = format!("[compute.curves.{class}]");
        let file = layers
            .iter()
            .rev()
            .find(|l| l.declares(&header))
            .map_or_else(String::new, |l| l.file.clone());
        fitted.insert(
            format!("compute.curves.{class}"),
            FittedConstant {
                rows: rows.to_string(),
                refit: refit.to_string(),
                file,
            },
        );
    }
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
