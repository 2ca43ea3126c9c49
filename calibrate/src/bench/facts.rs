//! What `bench` records about the machine (devices, PCIe links, driver, CUDA and NCCL versions)
//! and the assembly of the measurement file. Pure apart from reading sysfs/procfs text; tested
//! without a GPU.

use super::plan::Plan;
use super::shapes::GEMM_TP;
use crate::measurement::{MeasurementFile, Provenance, Record};

/// Properties of one GPU as the driver reports them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceInfo {
    pub ordinal: u32,
    pub name: String,
    pub total_mem_bytes: u64,
    pub sm_count: u32,
    /// Compute capability (major, minor).
    pub cc: (u32, u32),
    /// `domain:bus:device.0` in hex, as `nvidia-smi` prints it.
    pub pci_bus_id: String,
    pub l2_bytes: u64,
    /// Peak memory clock in kHz and bus width in bits (driver attributes 36 and 37).
    pub mem_clock_khz: u64,
    pub mem_bus_bits: u64,
    /// PCIe link now and at most, from Linux sysfs (the driver API has no attribute for them).
    pub pcie: PcieLinks,
}

/// A PCIe link: generation and lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PcieLink {
    pub generation: u32,
    pub lanes: u32,
}

/// A device's PCIe link as trained now and its maximum; `None` where sysfs does not say.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct PcieLinks {
    pub current: Option<PcieLink>,
    pub max: Option<PcieLink>,
}

impl DeviceInfo {
    /// Peak memory bandwidth implied by the driver's clock and bus width: 2 (double data rate) ×
    /// clock × width ÷ 8, in GB/s, as CUDA's `deviceQuery` sample derives it. 0 when unreported.
    pub fn peak_mem_gbps(&self) -> f64 {
        2.0 * self.mem_clock_khz as f64 * 1e3 * (self.mem_bus_bits as f64 / 8.0) / 1e9
    }

    /// One line for the provenance notes.
    pub fn note(&self) -> String {
        let link =
            |l: Option<PcieLink>| l.map_or("?".to_string(), |l| format!("gen{} x{}", l.generation, l.lanes));
        format!(
            "gpu {}: {}, {} MiB, {} SMs, sm_{}{}, L2 {} MiB, pci {} PCIe {} (max {}; an idle GPU may train its link down), peak memory bandwidth from driver attributes {:.0} GB/s",
            self.ordinal,
            self.name,
            self.total_mem_bytes >> 20,
            self.sm_count,
            self.cc.0,
            self.cc.1,
            self.l2_bytes >> 20,
            self.pci_bus_id,
            link(self.pcie.current),
            link(self.pcie.max),
            self.peak_mem_gbps()
        )
    }
}

/// PCIe generation of a sysfs link speed (`32.0 GT/s PCIe`, `8 GT/s`, `2.5 GT/s`): the per-lane
/// rates of generations 1–6 are 2.5, 5, 8, 16, 32 and 64 GT/s (PCI-SIG base specifications).
pub fn pcie_gen(speed: &str) -> Option<u32> {
    let gts: f64 = speed.split_whitespace().next()?.parse().ok()?;
    [2.5, 5.0, 8.0, 16.0, 32.0, 64.0]
        .iter()
        .position(|r| (gts - r).abs() < 0.01)
        .map(|i| i as u32 + 1)
}

/// The link described by the text of sysfs `*_link_speed` and `*_link_width`.
pub fn pcie_link(speed: &str, width: &str) -> Option<PcieLink> {
    Some(PcieLink {
        generation: pcie_gen(speed)?,
        lanes: width.trim().parse().ok().filter(|&w| w > 0)?,
    })
}

/// The current and maximum PCIe link of the device at `bus_id` (`0000:19:00.0`) from
/// `/sys/bus/pci/devices/<bus_id>/{current,max}_link_{speed,width}`.
pub fn pcie_links_from_sysfs(bus_id: &str) -> PcieLinks {
    let read = |f: &str| std::fs::read_to_string(format!("/sys/bus/pci/devices/{bus_id}/{f}")).ok();
    let link = |kind: &str| {
        pcie_link(
            &read(&format!("{kind}_link_speed"))?,
            &read(&format!("{kind}_link_width"))?,
        )
    };
    PcieLinks {
        current: link("current"),
        max: link("max"),
    }
}

/// Format a CUDA driver API version (`cuDriverGetVersion`, 1000 × major + 10 × minor): 12080 → "12.8".
pub fn cuda_version_string(v: i32) -> String {
    format!("{}.{}", v / 1000, (v % 1000) / 10)
}

/// Format an NCCL version code (`ncclGetVersion`; 10000 × major + 100 × minor + patch since 2.9,
/// 1000 × major + 100 × minor + patch before, per `nccl.h` `NCCL_VERSION`): 22703 → "2.27.3".
pub fn nccl_version_string(code: i32) -> String {
    if code >= 20900 {
        format!("{}.{}.{}", code / 10000, (code % 10000) / 100, code % 100)
    } else {
        format!("{}.{}.{}", code / 1000, (code % 1000) / 100, code % 100)
    }
}

/// The kernel-module version from `/proc/driver/nvidia/version`'s first line
/// (`NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu …`, or `… Open Kernel Module for
/// x86_64  575.57.08 …`): the first dotted number after "Kernel Module".
pub fn parse_driver_version(proc_text: &str) -> Option<String> {
    let line = proc_text.lines().next()?;
    let rest = &line[line.find("Kernel Module")? + "Kernel Module".len()..];
    rest.split_whitespace()
        .find(|v| v.contains('.') && v.chars().all(|c| c.is_ascii_digit() || c == '.'))
        .map(str::to_string)
}

/// What `bench` learned about the machine, for the provenance block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MachineFacts {
    pub hostname: Option<String>,
    pub devices: Vec<DeviceInfo>,
    pub driver_version: Option<String>,
    /// `cuDriverGetVersion`.
    pub cuda_driver_api: Option<i32>,
    /// `ncclGetVersion`, when libnccl could be loaded.
    pub nccl_code: Option<i32>,
}

/// Methodology notes written into every bench file, so a reader of the numbers knows what they mean.
pub fn method_notes(plan: &Plan) -> Vec<String> {
    vec![
        format!(
            "timing: CUDA events; {} warm-up calls, then {} repeats of {} timed calls; copies report the best repeat, GEMM and allreduce the median repeat's mean per call",
            plan.warmup, plan.repeats, plan.iters
        ),
        format!("d2d: {} B copy within one GPU; gbps counts read + write (2 x size / time) as CUDA bandwidthTest does", plan.d2d_bytes),
        format!("h2d/d2h/p2p: {} B copies, pinned host memory; p2p peer_access=false is the driver's path without peer mappings (staged through the host)", plan.copy_bytes),
        "p2p latency: NVRTC flag ping-pong, one thread per GPU; peer_access=true puts each flag in the polling GPU's memory, peer_access=false puts both flags in mapped pinned host memory".to_string(),
        format!("gemm: cuBLAS bf16 TN (Y = X W^T, fp32 accumulate), decode shapes of Llama-3.1-8B and Kimi-K2.5 at TP {GEMM_TP}, weights rotated through copies spanning 2x L2; each shape timed eager (back-to-back host launches) and graph (the calls captured in one CUDA graph and replayed); fp8 not measured (cudarc's cublasLt wrapper has no fp8 matmul)"),
        "stream: NVRTC kernel reading bytes with 16-byte loads (256 threads, at most 8 blocks per SM, grid-stride), rotating through a pool of 4x L2 so reads come from HBM (reads of 16 MiB and less repeat within 1000 calls and may partly hit L2); bytes = 0 is an empty kernel; eager and graph as for gemm".to_string(),
        "nccl: bf16 in-place allreduce (sum), one communicator per GPU from ncclCommInitAll, group calls; time_us is the slowest rank; busbw = algbw x 2(n-1)/n".to_string(),
    ]
}

/// Assemble the measurement file: provenance from the machine facts (GPU name of GPU 0, or the
/// distinct names joined by " + " on a mixed box), device lines and method notes, then the records
/// in the order measured, then any warnings (skipped benchmarks).
pub fn assemble(
    facts: &MachineFacts,
    plan: &Plan,
    records: Vec<Record>,
    warnings: Vec<String>,
) -> MeasurementFile {
    let mut names: Vec<&str> = Vec::new();
    for d in &facts.devices {
        if !names.contains(&d.name.as_str()) {
            names.push(&d.name);
        }
    }
    let mut notes: Vec<String> = facts.devices.iter().map(DeviceInfo::note).collect();
    notes.extend(method_notes(plan));
    notes.extend(warnings);
    let provenance = Provenance {
        tool: "bench".to_string(),
        machine: facts.hostname.clone(),
        gpu: (!names.is_empty()).then(|| names.join(" + ")),
        gpu_count: (!facts.devices.is_empty()).then_some(facts.devices.len() as u32),
        driver_version: facts.driver_version.clone(),
        cuda_version: facts.cuda_driver_api.map(cuda_version_string),
        nccl_version: facts.nccl_code.map(nccl_version_string),
        sources: Vec::new(),
        notes,
    };
    let mut file = MeasurementFile::new(provenance);
    file.records = records;
    file
}

/// This machine's host name from the kernel (`/proc/sys/kernel/hostname`), else `/etc/hostname`.
pub fn hostname() -> Option<String> {
    ["/proc/sys/kernel/hostname", "/etc/hostname"]
        .iter()
        .find_map(|p| std::fs::read_to_string(p).ok())
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::plan::{Family, SizeRange, allreduce_busbw_gbps};

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn versions_format() {
        assert_eq!(cuda_version_string(12080), "12.8");
        assert_eq!(cuda_version_string(13000), "13.0");
        assert_eq!(nccl_version_string(22703), "2.27.3");
        assert_eq!(nccl_version_string(2708), "2.7.8");
        let proc_text = "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu Jan 30 2025\nGCC version: gcc 12\n";
        assert_eq!(parse_driver_version(proc_text).as_deref(), Some("570.86.15"));
        let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build\n";
        assert_eq!(parse_driver_version(open).as_deref(), Some("575.57.08"));
        assert_eq!(parse_driver_version("garbage"), None);
    }

    #[test]
    fn pcie_links_from_sysfs_text() {
        // Kernel formats: "32.0 GT/s PCIe" (5.x and later), "8 GT/s" and "2.5 GT/s" (older).
        assert_eq!(pcie_gen("32.0 GT/s PCIe\n"), Some(5));
        assert_eq!(pcie_gen("8 GT/s"), Some(3));
        assert_eq!(pcie_gen("2.5 GT/s"), Some(1));
        assert_eq!(pcie_gen("Unknown"), None);
        assert_eq!(
            pcie_link("16.0 GT/s PCIe\n", "16\n"),
            Some(PcieLink {
                generation: 4,
                lanes: 16
            })
        );
        assert_eq!(pcie_link("16.0 GT/s PCIe", "0"), None);
        assert_eq!(pcie_links_from_sysfs("ffff:ff:ff.9"), PcieLinks::default());
    }

    fn h200(ordinal: u32) -> DeviceInfo {
        DeviceInfo {
            ordinal,
            name: "NVIDIA H200".into(),
            total_mem_bytes: 150_754_820_096,
            sm_count: 132,
            cc: (9, 0),
            pci_bus_id: "0000:19:00.0".into(),
            l2_bytes: 52_428_800,
            mem_clock_khz: 2_619_000,
            mem_bus_bits: 6144,
            pcie: PcieLinks {
                current: Some(PcieLink {
                    generation: 5,
                    lanes: 16,
                }),
                max: None,
            },
        }
    }

    #[test]
    fn device_note_and_peak_bandwidth() {
        // 2 × 2.619 GHz × 6144 bit / 8 = 4022.8 GB/s; 150754820096 B >> 20 = 143771 MiB.
        let d = h200(0);
        assert!(close(d.peak_mem_gbps(), 4022.784, 1e-6));
        assert_eq!(
            d.note(),
            "gpu 0: NVIDIA H200, 143771 MiB, 132 SMs, sm_90, L2 50 MiB, pci 0000:19:00.0 PCIe gen5 x16 (max ?; an idle GPU may train its link down), peak memory bandwidth from driver attributes 4023 GB/s"
        );
    }

    #[test]
    fn assembled_file_round_trips_through_json() {
        let facts = MachineFacts {
            hostname: Some("box1".into()),
            devices: vec![h200(0), h200(1)],
            driver_version: Some("570.86.15".into()),
            cuda_driver_api: Some(12080),
            nccl_code: Some(22703),
        };
        let plan = Plan::new(true, Family::ALL.into_iter().collect(), SizeRange::DEFAULT);
        let records = vec![Record::Collective {
            op: "allreduce".into(),
            n_gpus: 2,
            size_bytes: 4096,
            time_us: 10.0,
            busbw_gbps: allreduce_busbw_gbps(4096, 10.0, 2),
            backend: Some("nccl".into()),
            env: vec![],
            placement: Some("in-place".into()),
        }];
        let f = assemble(&facts, &plan, records, vec!["p2p skipped: one GPU".into()]);
        assert_eq!(f.schema, crate::measurement::SCHEMA);
        let p = &f.provenance;
        assert_eq!(p.tool, "bench");
        assert_eq!(p.gpu.as_deref(), Some("NVIDIA H200"));
        assert_eq!(p.gpu_count, Some(2));
        assert_eq!(p.cuda_version.as_deref(), Some("12.8"));
        assert_eq!(p.nccl_version.as_deref(), Some("2.27.3"));
        assert_eq!(p.notes.len(), 2 + method_notes(&plan).len() + 1);
        assert_eq!(p.notes.last().map(String::as_str), Some("p2p skipped: one GPU"));
        let json = serde_json::to_string_pretty(&f).unwrap();
        let back: MeasurementFile = serde_json::from_str(&json).unwrap();
        assert_eq!(back, f);
        // busbw 4096 / 10 µs = 0.4096 GB/s algbw, × 2·1/2 = 0.4096.
        assert!(json.contains("\"busbw_gbps\": 0.4096"), "{json}");
    }
}
