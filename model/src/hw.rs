//! Hardware: GPU specifications, NCCL's path classes (PIX / PXB / PHB / SYS) and transports (P2P or
//! SHM through host memory). The tree itself is in [`crate::topo`].
//! Facts from reference/pcie-collectives.md ("NCCL's tuner", path classes and P2P level).

use crate::units::Bandwidth;
use serde::Deserialize;

/// One GPU model's datasheet figures (reference/hardware-and-models.md), overridable by profiles.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GpuSpec {
    /// Marketing name, e.g. "RTX PRO 6000 Blackwell Server".
    pub name: String,
    /// `nvidia-smi --query-gpu=memory.total` in MiB (SGLang reads this for its default fraction).
    pub memory_total_mib: u64,
    /// Device memory bandwidth (datasheet).
    pub memory_bandwidth: Bandwidth,
    /// Dense bf16 tensor throughput in TFLOP/s (datasheet, *lead*).
    pub bf16_tflops: f64,
    /// fp8rate: dense FP8 tensor throughput in TFLOP/s with FP32 accumulation (datasheet), the rate
    /// the engines' W8A8 fp8 GEMMs run at; `None` on GPUs without FP8 tensor cores (below SM 8.9:
    /// fp8 checkpoints run weight-only through Marlin at the bf16 rate) or without a figure.
    #[serde(default)]
    pub fp8_tflops: Option<f64>,
    /// fp8rate: dense FP4 (NVFP4) tensor throughput in TFLOP/s (datasheet); `None` below SM 10.0
    /// (NVFP4 runs weight-only through Marlin there) or without a figure.
    #[serde(default)]
    pub fp4_tflops: Option<f64>,
    /// h200gl51: dense FP32 throughput in TFLOP/s on the CUDA cores (datasheet), the rate a GEMM on
    /// fp32 weights with fp32 activations runs at when TF32 is off (PyTorch's default
    /// `torch.backends.cuda.matmul.allow_tf32 = False`; neither SGLang 0.5.8 nor vLLM 0.11.0 turns it
    /// on): the fp32 MoE routers (`llm::ModelSpec::router_gate_fp32`). `None`: such GEMMs keep the
    /// bf16 rate, as before the key.
    #[serde(default)]
    pub fp32_tflops: Option<f64>,
    /// Streaming multiprocessors.
    pub sm_count: u32,
    /// Compute capability as "major.minor" (NCCL picks its speed arrays by it).
    pub compute_capability: String,
    /// PCIe generation of the GPU's own link (4 or 5).
    pub pcie_gen: u32,
    /// PCIe lanes of the GPU's own link.
    pub pcie_width: u32,
    /// Whether the stock driver allows peer-to-peer (false on GeForce 4090/5090).
    pub p2p: bool,
    /// Whether the GPUs are joined by NVLink (then every pair is NVLink, path class NVL).
    #[serde(default)]
    pub nvlink: bool,
    /// vLLM memory (issue #17): the device total `torch.cuda.mem_get_info()` reports, in GiB — the
    /// CUDA driver's total, below `memory_total_mib` by the driver's reserve. vLLM sizes
    /// `gpu_memory_utilization` against it. `None`: not known for this GPU (vLLM plans then use
    /// `memory_total_mib`, with a note).
    #[serde(default)]
    pub torch_total_gib: Option<f64>,
    /// moetable: the name `torch.cuda.get_device_name()` returns (e.g. "NVIDIA H200"), which the
    /// engines put, spaces as `_`, in their fused-MoE config file names; `None`: not known (then
    /// tpsim does not look up whether the engine ships a config).
    #[serde(default)]
    pub device_name: Option<String>,
    /// longctx18: the latency of one load that misses L2 and goes to device memory, in ns (a
    /// pointer-chase microbenchmark's main-memory figure at the boost clock); `None`: not known
    /// (then no latency-bound kernel is costed by it). `sim`'s `passes::triton_split` charges vLLM's
    /// split-KV Triton decode attention at least one such round trip per KV tile of a program.
    #[serde(default)]
    pub dram_latency_ns: Option<f64>,
}

/// The major part of a compute capability ("12.0" → 12; 0 when it is not a number). Engines choose
/// defaults by it (SGLang's attention backend and DSA KV dtype, vLLM's preferred dtype).
pub fn sm_major(compute_capability: &str) -> u32 {
    compute_capability
        .split('.')
        .next()
        .and_then(|m| m.trim().parse().ok())
        .unwrap_or(0)
}

/// A compute capability as vLLM's `DeviceCapability.to_int()` writes it: major × 10 + minor
/// ("9.0" → 90, "12.0" → 120, "8.9" → 89; 0 when it is not a number). vLLM picks kernels by it.
pub fn sm_version(compute_capability: &str) -> u32 {
    let mut parts = compute_capability.trim().split('.');
    let major: Option<u32> = parts.next().and_then(|m| m.trim().parse().ok());
    let minor: u32 = parts.next().and_then(|m| m.trim().parse().ok()).unwrap_or(0);
    major.map_or(0, |m| m.saturating_mul(10).saturating_add(minor))
}

impl GpuSpec {
    /// The major part of the compute capability ([`sm_major`]).
    pub fn sm_major(&self) -> u32 {
        sm_major(&self.compute_capability)
    }

    /// NCCL's model of one PCIe link: width × per-lane speed / 80, with lane speeds
    /// Gen4 = 120 and Gen5 = 240 (NCCL `topo.h`, reference/pcie-collectives.md) → 24 / 48 GB/s at x16.
    pub fn nccl_pci_bandwidth_gbps(&self) -> f64 {
        let lane = match self.pcie_gen {
            0..=3 => 60.0, // Gen3: NCCL's PCI_BW 12 GB/s at x16 → 60 per lane.
            4 => 120.0,
            _ => 240.0,
        };
        self.pcie_width as f64 * lane / 80.0
    }
}

/// Path class between two GPUs, ordered from closest to farthest as NCCL orders them
/// (`topo.h`: LOC < NVL < PIX < PXB < PHB < SYS). nvidia-smi's "NODE" is PHB within one socket.
/// Serialized (and displayed) as that name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Deserialize, serde::Serialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum PathClass {
    Loc,
    Nvl,
    Pix,
    Pxb,
    Phb,
    Sys,
}

impl PathClass {
    /// Every class, closest first.
    pub const ALL: [PathClass; 6] = [
        PathClass::Loc,
        PathClass::Nvl,
        PathClass::Pix,
        PathClass::Pxb,
        PathClass::Phb,
        PathClass::Sys,
    ];

    /// The name NCCL and `nvidia-smi topo -m` print.
    pub fn as_str(self) -> &'static str {
        match self {
            PathClass::Loc => "LOC",
            PathClass::Nvl => "NVL",
            PathClass::Pix => "PIX",
            PathClass::Pxb => "PXB",
            PathClass::Phb => "PHB",
            PathClass::Sys => "SYS",
        }
    }
    /// Parses an `NCCL_P2P_LEVEL` value (LOC, NVL, PIX, PXB, PHB, SYS; NODE is accepted as PHB as
    /// NCCL does), or NCCL's legacy integer levels: a value starting with a digit is read as an
    /// integer (C `strtol` base 0: `0x` hex, leading-0 octal), clamped to 5, and mapped 0 → LOC,
    /// 1 → PIX, 2 → PXB, 3 → PHB, 4 and 5 → SYS (NCCL `src/graph/paths.cc`, `levelsOldToNew` in
    /// `ncclGetLevel`, 2.2x–2.30). `None` for anything else.
    pub fn parse_level(s: &str) -> Option<PathClass> {
        let s = s.trim();
        if s.starts_with(|c: char| c.is_ascii_digit()) {
            return Some(match legacy_level(s) {
                0 => PathClass::Loc,
                1 => PathClass::Pix,
                2 => PathClass::Pxb,
                3 => PathClass::Phb,
                _ => PathClass::Sys,
            });
        }
        Some(match s.to_ascii_uppercase().as_str() {
            "LOC" => PathClass::Loc,
            "NVL" => PathClass::Nvl,
            "PIX" => PathClass::Pix,
            "PXB" => PathClass::Pxb,
            "PHB" | "NODE" => PathClass::Phb,
            "SYS" => PathClass::Sys,
            _ => return None,
        })
    }
}

/// The leading integer of a legacy `NCCL_P2P_LEVEL` value as C's `strtol(str, NULL, 0)` reads it
/// (`0x` hex, leading-0 octal, else decimal; digits after the number ignored), saturated at 5, the
/// last index of NCCL's `levelsOldToNew` table (values past it are clamped there).
fn legacy_level(s: &str) -> u32 {
    let (digits, radix) = if let Some(h) = s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        (h, 16)
    } else if s.len() > 1 && s.starts_with('0') {
        (&s[1..], 8)
    } else {
        (s, 10)
    };
    let mut v: u32 = 0;
    for c in digits.chars() {
        match c.to_digit(radix) {
            Some(d) => v = (v * radix + d).min(5),
            None => break,
        }
    }
    v
}

impl std::fmt::Display for PathClass {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The transport NCCL uses between two ranks. Serialized (and displayed) as its lowercase name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Transport {
    /// Direct peer access over PCIe (or NVLink).
    P2p,
    /// NCCL's SHM transport: staged through host DRAM.
    Shm,
}

impl Transport {
    /// Both transports.
    pub const ALL: [Transport; 2] = [Transport::P2p, Transport::Shm];

    /// The lowercase name reports use: "p2p" or "shm".
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::P2p => "p2p",
            Transport::Shm => "shm",
        }
    }
}

impl std::fmt::Display for Transport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vLLM's `DeviceCapability.to_int()`: major × 10 + minor.
    #[test]
    fn sm_version_as_vllm() {
        assert_eq!(sm_version("9.0"), 90);
        assert_eq!(sm_version("8.9"), 89);
        assert_eq!(sm_version("12.0"), 120);
        assert_eq!(sm_version("10"), 100);
        assert_eq!(sm_version("gfx"), 0);
    }

    /// NCCL's legacy integer `NCCL_P2P_LEVEL` (paths.cc `levelsOldToNew` = LOC, PIX, PXB, PHB,
    /// SYS, SYS; clamped at index 5): e.g. the GPUStack lab's `NCCL_P2P_LEVEL=4` means SYS.
    #[test]
    fn legacy_integer_p2p_levels_map_as_nccl() {
        let l = PathClass::parse_level;
        assert_eq!(l("0"), Some(PathClass::Loc));
        assert_eq!(l("1"), Some(PathClass::Pix));
        assert_eq!(l("2"), Some(PathClass::Pxb));
        assert_eq!(l("3"), Some(PathClass::Phb));
        assert_eq!(l("4"), Some(PathClass::Sys));
        assert_eq!(l("5"), Some(PathClass::Sys));
        assert_eq!(l("99"), Some(PathClass::Sys));
        // strtol base 0: hex and octal prefixes; trailing text after the number is ignored.
        assert_eq!(l("0x3"), Some(PathClass::Phb));
        assert_eq!(l("02"), Some(PathClass::Pxb));
        assert_eq!(l("2abc"), Some(PathClass::Pxb));
        assert_eq!(l("-1"), None);
        assert_eq!(l("FAST"), None);
    }

    #[test]
    fn path_class_names_round_trip() {
        for c in PathClass::ALL {
            assert_eq!(PathClass::parse_level(c.as_str()), Some(c));
            assert_eq!(serde_json::to_value(c).unwrap(), c.as_str());
            assert_eq!(c.to_string(), c.as_str());
        }
    }

    #[test]
    fn transport_names_match_serde() {
        for t in Transport::ALL {
            assert_eq!(serde_json::to_value(t).unwrap(), t.as_str());
            assert_eq!(t.to_string(), t.as_str());
        }
    }

    fn rtx() -> GpuSpec {
        GpuSpec {
            name: "RTX PRO 6000".into(),
            memory_total_mib: 97_887,
            memory_bandwidth: Bandwidth::from_gbps(1790.0).unwrap(),
            bf16_tflops: 500.0,
            fp8_tflops: None,
            fp4_tflops: None,
            fp32_tflops: None,
            sm_count: 188,
            compute_capability: "12.0".into(),
            pcie_gen: 5,
            pcie_width: 16,
            p2p: true,
            nvlink: false,
            torch_total_gib: None,
            device_name: None,
            dram_latency_ns: None,
        }
    }

    #[test]
    fn nccl_link_model() {
        assert!((rtx().nccl_pci_bandwidth_gbps() - 48.0).abs() < 1e-9);
    }

    #[test]
    fn p2p_levels_parse() {
        assert_eq!(PathClass::parse_level("node"), Some(PathClass::Phb));
        assert_eq!(PathClass::parse_level("bogus"), None);
    }
}
