//! NCCL's figure for the link between two CPU nodes (`src/graph/topo.cc` `ncclTopoGetInterCpuBw`,
//! constants in `src/graph/topo.h`), by release and CPU generation (issue #19, ncclamd58).
//!
//! NCCL connects every pair of CPU (NUMA) nodes with one SYS link of this bandwidth per direction
//! (`topo.cc` `ncclTopoConnectCpus`); a GPU pair on two sockets has it as its path's bottleneck, so
//! the ring and tree searches (`search.rs`) cannot run a channel faster than it across the sockets.
//!
//! What each release does, read off NVIDIA/nccl at the tags named:
//!
//! - **AMD x86**: `AMD_BW 16.0` for every CPU, in every release tpsim models (`topo.h` at v2.19.3-1,
//!   v2.21.5-1, v2.23.4-1, v2.25.1-1, v2.27.3-1, v2.28.3-1, v2.29.7-1, v2.30.3-1 and v2.30.7-1).
//!   Commit 2f1c174 ("Fix AMD inter-CPU bandwidth detection: add per-generation values", authored
//!   2026-03-31, committed to branch `dev` 2026-05-26) replaces it by CPUID family: family ≥ 26
//!   (1Ah, Zen 5) `AMD_ZEN5_BW 32.0`, family 25 (19h, Zen 3/4) `AMD_ZEN34_BW 24.0`, else (17h, Zen 1/2)
//!   `AMD_ZEN12_BW 16.0` (`topo.cc` `ncclTopoAddCpu`). `git tag --contains 2f1c174` is empty: no
//!   release through v2.30.7-1 has it; `dev` was at 2.30.5 when it landed and moved to the 2.31.0a0
//!   pre-releases on 2026-06-01, so 2.31 is the first version with it ([`amd_per_generation`]).
//! - **Intel x86**: through 2.25 two tiers, `SKL_QPI_BW 10.0` for family 6 model ≥ 0x55 (Skylake-SP
//!   and later) else `QPI_BW 6.0` (v2.19.3-1 … v2.25.1-1); from 2.26 four tiers, model ≥ 0xCF
//!   (Emerald Rapids) `ERP_QPI_BW 40.0`, ≥ 0x8F (Sapphire Rapids) `SRP_QPI_BW 22.0`, ≥ 0x55
//!   `SKL_QPI_BW 10.0`, else `BDW_QPI_BW 6.0` (v2.26.6-1 … v2.30.7-1). Granite Rapids (model 0xAD,
//!   0xAE) and Sierra Forest (0xAF) sit below 0xCF, so every release through v2.30.7-1 gives them
//!   the Sapphire Rapids tier (22; the Skylake tier, 10, through 2.25); commit 35671f48 ("Correct
//!   Intel CPU Detection to pick higher UPI BW", `dev`, 2026-06-09, in no tag) puts them in
//!   Emerald Rapids' tier (40) from 2.31 (ncclhost59).
//!
//! When a preset does not name the generation, tpsim keeps the figures it used before generations were
//! modelled: 16 GB/s on AMD (every release's) and 22 GB/s on Intel (ASSUMED: the Sapphire Rapids tier of
//! ≥ 2.26; a host whose generation is known should say so, `hardware.cpu_generation`).

use super::NcclVersion;

/// A CPU generation as NCCL's topology tells them apart (its CPUID family and model tiers).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum CpuGeneration {
    /// AMD Zen 1 or Zen 2 (EPYC 7001 Naples, 7002 Rome; CPUID family 17h = 23).
    Zen12,
    /// AMD Zen 3 or Zen 4 (EPYC 7003 Milan, 9004 Genoa, Threadripper 7000; family 19h = 25).
    Zen34,
    /// AMD Zen 5 (EPYC 9005 Turin; family 1Ah = 26).
    Zen5,
    /// Intel before Skylake-SP (Broadwell and older Xeons: family 6, model < 0x55).
    IntelBroadwell,
    /// Intel Xeon Scalable 1st – 3rd generation (Skylake-SP, Cascade Lake, Ice Lake: model ≥ 0x55).
    IntelSkylake,
    /// Intel Sapphire Rapids (4th gen Xeon Scalable: model 0x8F).
    IntelSapphireRapids,
    /// Intel Emerald Rapids and later (model ≥ 0xCF).
    IntelEmeraldRapids,
    /// Intel Granite Rapids / Sierra Forest (6th gen Xeon: models 0xAD, 0xAE, 0xAF), below
    /// Emerald Rapids' model number: Sapphire Rapids' tier through 2.30.7, Emerald Rapids' from
    /// 2.31 (module doc).
    IntelGraniteRapids,
}

/// The names `hardware.cpu_generation` accepts, in [`CpuGeneration`] order.
pub const CPU_GENERATION_NAMES: [&str; 8] = [
    "zen2",
    "zen4",
    "zen5",
    "broadwell",
    "skylake",
    "sapphire-rapids",
    "emerald-rapids",
    "granite-rapids",
];

impl CpuGeneration {
    /// Parses a generation name. Zen 1 and Zen 2 share NCCL's tier, as do Zen 3 and Zen 4, so "zen1"
    /// and "zen3" are accepted too; Cascade Lake and Ice Lake are Skylake's tier.
    pub fn parse(name: &str) -> Option<CpuGeneration> {
        Some(match name {
            "zen1" | "zen2" => CpuGeneration::Zen12,
            "zen3" | "zen4" => CpuGeneration::Zen34,
            "zen5" => CpuGeneration::Zen5,
            "broadwell" => CpuGeneration::IntelBroadwell,
            "skylake" | "cascade-lake" | "ice-lake" => CpuGeneration::IntelSkylake,
            "sapphire-rapids" => CpuGeneration::IntelSapphireRapids,
            "emerald-rapids" => CpuGeneration::IntelEmeraldRapids,
            "granite-rapids" | "sierra-forest" => CpuGeneration::IntelGraniteRapids,
            _ => return None,
        })
    }

    /// Whether this is an AMD generation.
    pub fn is_amd(self) -> bool {
        matches!(
            self,
            CpuGeneration::Zen12 | CpuGeneration::Zen34 | CpuGeneration::Zen5
        )
    }
}

/// `AMD_BW` (`topo.h`, every release through v2.30.7-1), GB/s.
pub const AMD_BW_GBPS: f64 = 16.0;
/// Intel's figure when the preset gives no generation, GB/s: ASSUMED (module doc).
pub const INTEL_UNKNOWN_GENERATION_GBPS: f64 = 22.0;

/// Whether NCCL `version` reads AMD's inter-socket bandwidth by CPU generation (commit 2f1c174, first
/// in 2.31: module doc). False for every release tpsim models (2.19.3 – 2.30.7).
pub fn amd_per_generation(version: NcclVersion) -> bool {
    version >= NcclVersion::new(31, 0)
}

/// NCCL's inter-CPU bandwidth, GB/s per direction, for a host of vendor `cpu_amd` and generation
/// `generation` (None: not given) under NCCL `version` (module doc for each figure's source).
pub fn inter_cpu_bw_gbps(version: NcclVersion, cpu_amd: bool, generation: Option<CpuGeneration>) -> f64 {
    let intel_four_tiers = version >= NcclVersion::new(26, 0);
    match (cpu_amd, generation) {
        (true, Some(g)) if amd_per_generation(version) => match g {
            CpuGeneration::Zen5 => 32.0,
            CpuGeneration::Zen34 => 24.0,
            _ => AMD_BW_GBPS,
        },
        (true, _) => AMD_BW_GBPS,
        (false, None) => INTEL_UNKNOWN_GENERATION_GBPS,
        (false, Some(g)) => match g {
            // Commit 35671f48, first in 2.31 like 2f1c174.
            CpuGeneration::IntelGraniteRapids if version >= NcclVersion::new(31, 0) => 40.0,
            CpuGeneration::IntelEmeraldRapids if intel_four_tiers => 40.0,
            CpuGeneration::IntelGraniteRapids if intel_four_tiers => 22.0,
            CpuGeneration::IntelSapphireRapids if intel_four_tiers => 22.0,
            CpuGeneration::IntelBroadwell => 6.0,
            // Through 2.25 every model ≥ 0x55 is Skylake's tier; an AMD generation on an Intel host
            // is refused where the preset is read.
            _ => 10.0,
        },
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn amd_is_16_in_every_release_and_by_generation_from_2_31() {
        for v in NcclVersion::SUPPORTED {
            for g in [CpuGeneration::Zen12, CpuGeneration::Zen34, CpuGeneration::Zen5] {
                assert_eq!(inter_cpu_bw_gbps(v, true, Some(g)), 16.0, "{v}");
            }
            assert_eq!(inter_cpu_bw_gbps(v, true, None), 16.0);
        }
        let dev = NcclVersion::new(31, 0);
        assert_eq!(inter_cpu_bw_gbps(dev, true, Some(CpuGeneration::Zen5)), 32.0);
        assert_eq!(inter_cpu_bw_gbps(dev, true, Some(CpuGeneration::Zen34)), 24.0);
        assert_eq!(inter_cpu_bw_gbps(dev, true, Some(CpuGeneration::Zen12)), 16.0);
        assert_eq!(inter_cpu_bw_gbps(dev, true, None), 16.0);
    }

    #[test]
    fn intel_two_tiers_through_2_25_four_from_2_26() {
        let old = NcclVersion::new(24, 3);
        let new = NcclVersion::new(26, 6);
        let bw = |v, g| inter_cpu_bw_gbps(v, false, Some(g));
        assert_eq!(bw(old, CpuGeneration::IntelBroadwell), 6.0);
        assert_eq!(bw(old, CpuGeneration::IntelSkylake), 10.0);
        assert_eq!(bw(old, CpuGeneration::IntelSapphireRapids), 10.0);
        assert_eq!(bw(old, CpuGeneration::IntelEmeraldRapids), 10.0);
        assert_eq!(bw(new, CpuGeneration::IntelBroadwell), 6.0);
        assert_eq!(bw(new, CpuGeneration::IntelSkylake), 10.0);
        assert_eq!(bw(new, CpuGeneration::IntelSapphireRapids), 22.0);
        assert_eq!(bw(new, CpuGeneration::IntelEmeraldRapids), 40.0);
        assert_eq!(inter_cpu_bw_gbps(old, false, None), 22.0);
        // ncclhost59: Granite Rapids (0xAD) is ≥ 0x8F but < 0xCF through v2.30.7-1 (topo.cc
        // `ncclTopoAddCpu`), Emerald Rapids' tier on dev (commit 35671f48).
        assert_eq!(bw(old, CpuGeneration::IntelGraniteRapids), 10.0);
        assert_eq!(
            bw(NcclVersion::new(30, 7), CpuGeneration::IntelGraniteRapids),
            22.0
        );
        assert_eq!(
            bw(NcclVersion::new(31, 0), CpuGeneration::IntelGraniteRapids),
            40.0
        );
    }

    #[test]
    fn names_parse_to_their_tiers() {
        for (i, n) in CPU_GENERATION_NAMES.iter().enumerate() {
            let g = CpuGeneration::parse(n).unwrap();
            assert_eq!(g.is_amd(), i < 3, "{n}");
        }
        assert_eq!(CpuGeneration::parse("zen3"), Some(CpuGeneration::Zen34));
        assert_eq!(CpuGeneration::parse("Zen5"), None);
    }
}
