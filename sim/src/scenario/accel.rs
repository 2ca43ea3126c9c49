//! Accelerators and multi-node hosts (issue #17 point 4): the GPU's vendor (and so its collective
//! library: NCCL or RCCL), AMD's xGMI mesh (`[hardware.xgmi]`) and several boxes joined by NICs
//! (`[hardware.cluster]`, with NIC presets from `scenarios/nics/`). Resolved into [`Accel`]; the
//! fabric builds the xGMI links from it, and `crate::internode` costs transfers between boxes.

use super::{ClusterSection, GpuSection, HardwareSection, Resolver, ScenarioError, XgmiSection, parse_toml};
use crate::presets;
use std::path::Path;
use tpsim_model::units::{Bandwidth, Duration};

/// Who made the GPU: it decides the collective library (NCCL or RCCL) and the engine's platform
/// (CUDA or ROCm).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum GpuVendor {
    #[default]
    Nvidia,
    Amd,
}

impl GpuVendor {
    /// The name a scenario writes: "nvidia" or "amd".
    pub fn as_str(self) -> &'static str {
        match self {
            GpuVendor::Nvidia => "nvidia",
            GpuVendor::Amd => "amd",
        }
    }

    /// The collective library the engines use on it: NCCL on CUDA, RCCL (AMD's fork of NCCL, the
    /// same ring/tree algorithms and protocols) on ROCm — PyTorch's ROCm build ships RCCL under
    /// the "nccl" backend name.
    pub fn collective_library(self) -> &'static str {
        match self {
            GpuVendor::Nvidia => "nccl",
            GpuVendor::Amd => "rccl",
        }
    }

    /// The engine platform: "cuda" or "rocm" (SGLang's `is_hip()`, vLLM's `current_platform`).
    pub fn platform(self) -> &'static str {
        match self {
            GpuVendor::Nvidia => "cuda",
            GpuVendor::Amd => "rocm",
        }
    }
}

/// A fully connected xGMI (Infinity Fabric) mesh: every GPU has one link to each peer.
#[derive(Debug, Clone, PartialEq)]
pub struct Xgmi {
    /// Links per GPU.
    pub links: u32,
    /// Usable bandwidth of one link, per direction.
    pub link_bw: Bandwidth,
    /// One-way GPU → GPU latency over a link.
    pub latency: Duration,
}

impl Xgmi {
    /// All of a GPU's links together, per direction: what a collective whose channels spread over
    /// every link (RCCL's rings on the mesh) can move in or out of one GPU.
    pub fn port_bw(&self) -> Bandwidth {
        self.link_bw
            .scaled(f64::from(self.links.max(1)))
            .unwrap_or(self.link_bw)
    }
}

/// Several boxes joined by NICs.
#[derive(Debug, Clone, PartialEq)]
pub struct Cluster {
    /// Boxes, each the preset's `[topology]`.
    pub nodes: u32,
    pub nic_name: String,
    /// Line rate of one NIC, per direction.
    pub nic_bw: Bandwidth,
    /// One-way latency NIC → switch → NIC.
    pub nic_latency: Duration,
    pub nics_per_node: u32,
    /// GPUDirect RDMA (NIC ↔ GPU memory directly) or staged through host memory.
    pub gpudirect_rdma: bool,
    /// GPUs of one NVLink domain (≥ one box's GPUs): transfers inside it use NVLink.
    pub nvlink_domain_gpus: u32,
}

/// The accelerator facts beyond `GpuSpec`: vendor, xGMI mesh, cluster.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Accel {
    pub vendor: GpuVendor,
    pub xgmi: Option<Xgmi>,
    pub cluster: Option<Cluster>,
}

impl Accel {
    /// Boxes in the cluster (1 without a `[cluster]`).
    pub fn nodes(&self) -> u32 {
        self.cluster.as_ref().map_or(1, |c| c.nodes)
    }
}

/// The note a scenario carries when its GPU's kernel costs were never fitted on that vendor: the
/// bundled fits (the Hopper kernel cost, the profiles) come from NVIDIA GPUs, so on an AMD GPU without
/// a profile the compute times are an extrapolation. A GPU whose template (or scenario) carries an
/// efficiency curve of its own (newgpueff: MI300X, MI355X, from GEMM and stream benchmarks) says so;
/// the per-kernel cost of the AMD templates is read off ROCm decode traces (rocm:
/// templates/amd-instinct.toml, mi355x.toml), not fitted, and the note names it as such.
pub fn extrapolation_warning(hw: &super::Hardware) -> Option<String> {
    if hw.accel.vendor != GpuVendor::Amd || hw.profile.is_some() {
        return None;
    }
    let platform = hw.accel.vendor.platform();
    Some(if hw.curves.is_empty() {
        format!(
            "{}: kernel efficiencies borrowed from NVIDIA fits, per-kernel cost from a {platform} decode \
             trace (no profile fitted on {platform}): compute times are an extrapolation",
            hw.gpu.name
        )
    } else {
        format!(
            "{}: own FLOP-efficiency curve, per-kernel cost from a {platform} decode trace (no profile \
             fitted on {platform}): compute times are an extrapolation",
            hw.gpu.name
        )
    })
}

impl Resolver<'_> {
    /// Resolves `[gpu] vendor`, `[xgmi]` and `[cluster]` of the merged hardware section for a box of
    /// `gpus` GPUs whose GPU has NVLink when `nvlink`.
    pub(super) fn accel(&self, m: &HardwareSection, gpus: u32, nvlink: bool) -> Result<Accel, ScenarioError> {
        let vendor = self.vendor(m.gpu.as_ref())?;
        let xgmi = match m.xgmi.clone() {
            None => None,
            Some(x) => Some(self.xgmi(x, vendor, gpus, nvlink)?),
        };
        let cluster = match m.cluster.clone() {
            None => None,
            Some(c) => Some(self.cluster(c, gpus, nvlink)?),
        };
        Ok(Accel {
            vendor,
            xgmi,
            cluster,
        })
    }

    fn vendor(&self, g: Option<&GpuSection>) -> Result<GpuVendor, ScenarioError> {
        match g.and_then(|g| g.vendor.as_deref()).unwrap_or("nvidia") {
            "nvidia" => Ok(GpuVendor::Nvidia),
            "amd" => Ok(GpuVendor::Amd),
            other => Err(self.invalid(
                "hardware.gpu.vendor",
                format!("`{other}`: expected \"nvidia\" or \"amd\""),
            )),
        }
    }

    fn xgmi(
        &self,
        x: XgmiSection,
        vendor: GpuVendor,
        gpus: u32,
        nvlink: bool,
    ) -> Result<Xgmi, ScenarioError> {
        let k = |n: &str| format!("hardware.xgmi.{n}");
        if vendor != GpuVendor::Amd {
            return Err(self.invalid(
                "hardware.xgmi",
                "xGMI is AMD's Infinity Fabric: expected gpu.vendor = \"amd\"",
            ));
        }
        if nvlink {
            return Err(self.invalid(
                "hardware.xgmi",
                "a box has NVLink or xGMI, not both: expected gpu.nvlink = false",
            ));
        }
        let links = self.need(x.links, &k("links"))?;
        // A fully connected mesh: one link to each peer (AMD's MI300X platform: 7 links for 8 GPUs).
        if links + 1 < gpus || links == 0 {
            return Err(self.invalid(
                &k("links"),
                format!(
                    "{links} links per GPU cannot join {gpus} GPUs fully: expected at least {}",
                    gpus.saturating_sub(1).max(1)
                ),
            ));
        }
        let link_bw = self.need(x.link_bw, &k("link_bw"))?;
        if link_bw.bytes_per_s() == 0 {
            return Err(self.invalid(&k("link_bw"), "expected a bandwidth > 0"));
        }
        Ok(Xgmi {
            links,
            link_bw,
            latency: self.need(x.latency, &k("latency"))?,
        })
    }

    fn cluster(&self, c: ClusterSection, gpus: u32, nvlink: bool) -> Result<Cluster, ScenarioError> {
        let k = |n: &str| format!("hardware.cluster.{n}");
        let c = match c.nic.clone() {
            None => c,
            Some(name) => {
                let text = presets::nic(&name).ok_or_else(|| {
                    self.invalid(
                        &k("nic"),
                        format!(
                            "unknown NIC preset `{name}`; expected one of: {}",
                            presets::names("nic").join(", ")
                        ),
                    )
                })?;
                let nic: ClusterSection = parse_toml(text, Path::new(&format!("<preset nics/{name}.toml>")))?;
                if nic.nodes.is_some() || nic.nic.is_some() {
                    return Err(self.invalid(&k("nic"), "a NIC preset gives NIC keys only"));
                }
                c.merged_over(nic)
            }
        };
        let nodes = c.nodes.unwrap_or(1);
        if !(1..=1024).contains(&nodes) {
            return Err(self.invalid(&k("nodes"), format!("{nodes}: expected 1 to 1024 boxes")));
        }
        let nic_bw = self.need(c.nic_bw, &k("nic_bw"))?;
        if nic_bw.bytes_per_s() == 0 {
            return Err(self.invalid(&k("nic_bw"), "expected a bandwidth > 0"));
        }
        let nics_per_node = c.nics_per_node.unwrap_or(gpus);
        if nics_per_node == 0 || nics_per_node > gpus {
            return Err(self.invalid(
                &k("nics_per_node"),
                format!("{nics_per_node}: expected 1 to {gpus} (one per GPU at most)"),
            ));
        }
        let domain = c.nvlink_domain_gpus.unwrap_or(gpus);
        if c.nvlink_domain_gpus.is_some() {
            if !nvlink {
                return Err(self.invalid(
                    &k("nvlink_domain_gpus"),
                    "an NVLink domain needs NVLink: expected gpu.nvlink = true",
                ));
            }
            if domain < gpus || domain % gpus != 0 {
                return Err(self.invalid(
                    &k("nvlink_domain_gpus"),
                    format!("{domain}: expected a multiple of the box's {gpus} GPUs"),
                ));
            }
        }
        Ok(Cluster {
            nodes,
            nic_name: c.nic_name.unwrap_or_else(|| "custom NIC".into()),
            nic_bw,
            nic_latency: self.need(c.nic_latency, &k("nic_latency"))?,
            nics_per_node,
            // NCCL's default NCCL_NET_GDR_LEVEL lets the NIC use GPUDirect RDMA when it and the GPU
            // share a PCIe switch (PXB), the HGX / MI300X platform layout; a preset without it says so.
            gpudirect_rdma: c.gpudirect_rdma.unwrap_or(true),
            nvlink_domain_gpus: domain,
        })
    }
}
