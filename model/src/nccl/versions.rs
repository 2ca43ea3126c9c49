//! The NCCL releases tpsim can model and what differs between them for a single node: the PCI tree
//! Simple step latency, the Ring/LL bandwidth factor, the Hopper and Blackwell bandwidth caps, the
//! SM ≥ 90 search speeds and how `NCCL_ALGO`/`NCCL_PROTO` are parsed. Everything else in
//! `tpsim_model::nccl` is common to them.
//!
//! 2.19.3 (issue #19 point 1: the kalavai host's nvcr pytorch:24.01 image) was added for its
//! single-node tuner only: `git diff v2.19.3-1 v2.21.5-1 -- src/graph/tuning.cc src/graph/search.cc`
//! changes, for one node, the Ring/LL factor, the Hopper `llMaxBws` and the SM 9.0 intra speeds
//! (below); its data movement (`enqueue.cc`, the device primitives) and the rest of its multi-node
//! rules are modelled as 2.21.5's (its multi-node Ring/LL factor is also 1/4).
//!
//! Each figure below was read off NVIDIA/nccl at the tag named (`src/graph/tuning.cc` `hwLat` /
//! `ncclTunerConstantsDefaults`, `llMaxBws`, `perChMax*Bws`, `compCapIndex`; `src/graph/search.cc`
//! `sm100SpeedArrayIntra` and the `ccMin` choice of the speed array; `parseList`).
//!
//! Which NCCL an engine runs: the `nvidia-nccl-cu12` pin of the torch wheel it requires —
//! vLLM 0.11.0 `requirements/cuda.txt` torch==2.8.0 and SGLang 0.5.5 `torch==2.8.0`, whose wheel
//! metadata requires nvidia-nccl-cu12==2.27.3; SGLang 0.5.6, 0.5.8, 0.5.9 and 0.5.10 `torch==2.9.1`,
//! whose wheel requires nvidia-nccl-cu12==2.27.5 (PyPI `torch-2.8.0` / `torch-2.9.1`
//! cp311 manylinux_2_28_x86_64 `.metadata`). Issue #17 (dp): vLLM 0.12.0 (wheel METADATA
//! torch==2.9.0 → nvidia-nccl-cu12==2.27.5), vLLM 0.19.0 (`requirements/cuda.txt` torch==2.10.0 →
//! nvidia-nccl-cu12==2.27.5), vLLM 0.33.0 (torch==2.14.0 → nvidia-nccl-cu13==2.30.7)
//! and SGLang 0.5.23 (torch==2.14.1 → nvidia-nccl-cu13==2.30.7), read from the torch cp311
//! manylinux_2_28_x86_64 wheels' METADATA on PyPI. vllmfloor: vLLM 0.8.5 (torch==2.6.0 →
//! nvidia-nccl-cu12==2.21.5, the same two wheels' METADATA).

use super::tuner::ArchCaps;

/// An NCCL release (2.minor.patch) of [`NcclVersion::SUPPORTED`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct NcclVersion {
    pub minor: u32,
    pub patch: u32,
}

/// How `NCCL_ALGO` / `NCCL_PROTO` are read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ListSyntax {
    /// ≤ 2.23: one comma list, optional leading `^`; unknown names are ignored.
    Flat,
    /// ≥ 2.24: `list;func:list;…` with per-collective prefixes; unknown names or prefixes fail
    /// (`ncclInvalidUsage`).
    Prefixed,
}

/// Unknown or unsupported version text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{given}`: tpsim models NCCL {supported}")]
pub struct VersionError {
    pub given: String,
    pub supported: String,
}

impl NcclVersion {
    /// The releases whose tables were checked (tags `v2.x.y-1` of NVIDIA/nccl).
    pub const SUPPORTED: [NcclVersion; 13] = [
        // Issue #19 point 1: the kalavai SHM host's release (module doc).
        NcclVersion::new(19, 3),
        NcclVersion::new(21, 5),
        NcclVersion::new(22, 3),
        NcclVersion::new(23, 4),
        NcclVersion::new(24, 3),
        NcclVersion::new(26, 6),
        NcclVersion::new(27, 3),
        NcclVersion::new(27, 5),
        NcclVersion::new(27, 7),
        // Issue #19 point 2: the release of the dual-Turin nccl-tests rows (tests/data/allreduce.tsv
        // lines 26-32). Its single-node tables equal 2.28.9's: `git diff v2.28.3-1 v2.28.9-1` of
        // tuning.cc changes only N2 and NVLS entries, of search.cc only the NET search.
        NcclVersion::new(28, 3),
        NcclVersion::new(28, 9),
        NcclVersion::new(29, 7),
        NcclVersion::new(30, 7),
    ];

    /// The release the model was written against (NVIDIA/nccl 2.30.7, `tpsim_model::nccl`).
    pub const LATEST: NcclVersion = NcclVersion::new(30, 7);

    pub const fn new(minor: u32, patch: u32) -> NcclVersion {
        NcclVersion { minor, patch }
    }

    /// "2.27.5", "2.27.5-1" (the git tag's build suffix) or "v2.27.5-1".
    pub fn parse(text: &str) -> Result<NcclVersion, VersionError> {
        let t = text.trim().trim_start_matches('v');
        let t = t.split_once('-').map_or(t, |(v, _)| v);
        let parts: Vec<&str> = t.split('.').collect();
        let v = match parts.as_slice() {
            ["2", minor, patch] => match (minor.parse(), patch.parse()) {
                (Ok(minor), Ok(patch)) => Some(NcclVersion { minor, patch }),
                _ => None,
            },
            _ => None,
        };
        match v {
            Some(v) if Self::SUPPORTED.contains(&v) => Ok(v),
            _ => Err(VersionError {
                given: text.to_string(),
                supported: Self::SUPPORTED
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// PCI per-step latency of Tree/Simple, µs: 28 through 2.22, 4.0 from 2.23 (`hwLat[PCI][TREE]`).
    pub fn pci_tree_simple_latency_us(self) -> f64 {
        if self.minor <= 22 { 28.0 } else { 4.0 }
    }

    /// The factor on a Ring/LL allreduce's bus bandwidth before the `llMaxBws` cap (`tuning.cc`
    /// `ncclTopoTuneModel`): 1/4 through 2.20 (`nNodes > 1 || coll == ncclFuncAllReduce || …` ?
    /// 1.0/4.0 : 1.0/3.0, at v2.19.3-1 and v2.20.5-1), 0.5 from 2.21 (`busBw * .5`, v2.21.5-1).
    /// Halving LL's modelled rate moves NCCL's LL → Simple switch to about a third of the size.
    pub fn ring_ll_allreduce_factor(self) -> f64 {
        if self.minor <= 20 { 0.25 } else { 0.5 }
    }

    /// `NCCL_ALGO`/`NCCL_PROTO` syntax: per-collective prefixes from 2.24 (`parseList` gained
    /// `prefixElems`).
    pub fn list_syntax(self) -> ListSyntax {
        if self.minor >= 24 {
            ListSyntax::Prefixed
        } else {
            ListSyntax::Flat
        }
    }

    /// Whether `NCCL_ALGO` knows "PAT" (added to `ncclAlgoStr` in 2.23; not for allreduce).
    pub fn has_pat(self) -> bool {
        self.minor >= 23
    }

    /// Single-node caps for a compute capability (`tuning.cc`, column N1). Before 2.25 there is no
    /// Blackwell row: SM ≥ 90 takes Hopper's, whose `llMaxBws` is 87.7 through 2.20 (Ampere's; 141.0
    /// from 2.21). 2.25–2.27: Blackwell = 2 × Hopper (ring LL128 73.4,
    /// tree LL128 73.4, tree 77.4); 2.28: tree LL128 55.6, tree 70.0, ring LL128 still 73.4; from
    /// 2.29: ring LL128 40.0.
    pub fn arch_caps(self, sm: u32) -> ArchCaps {
        let hopper = (141.0, 36.7, 36.7, 38.7);
        let (ll, ring128, tree128, tree) = if sm >= 100 && self.minor >= 25 {
            match self.minor {
                25..=27 => (2.0 * 141.0, 2.0 * 36.7, 2.0 * 36.7, 2.0 * 38.7),
                28 => (2.0 * 141.0, 2.0 * 36.7, 55.6, 70.0),
                _ => (2.0 * 141.0, 40.0, 55.6, 70.0),
            }
        } else if sm >= 90 && self.minor <= 20 {
            (87.7, hopper.1, hopper.2, hopper.3)
        } else if sm >= 90 {
            hopper
        } else if sm >= 80 {
            (87.7, 20.0, 20.0, 24.0)
        } else {
            (39.0, 20.0, 20.0, 26.5)
        };
        ArchCaps {
            ll_max_bw: ll,
            per_ch_max_ring_ll128_bw: ring128,
            per_ch_max_tree_ll128_bw: tree128,
            per_ch_max_tree_bw: tree,
        }
    }

    /// The intra-node search speeds, GB/s (`search.cc`): the SM90 array has no 11.0 through 2.20;
    /// SM ≥ 100 uses the SM90 array before 2.25;
    /// its own array ends at 19 in 2.25–2.26, gains 18 in 2.27, gains 45 in 2.29.
    pub fn speed_array(self, sm: u32) -> &'static [f64] {
        const SM100_2_29: [f64; 12] = [
            90.0, 80.0, 70.0, 60.0, 50.0, 45.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0,
        ];
        const SM100_2_27: [f64; 11] = [90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0, 18.0];
        const SM100_2_25: [f64; 10] = [90.0, 80.0, 70.0, 60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 19.0];
        const SM90: [f64; 11] = [60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 11.0, 6.0, 3.0];
        const SM90_2_19: [f64; 10] = [60.0, 50.0, 40.0, 30.0, 24.0, 20.0, 15.0, 12.0, 6.0, 3.0];
        const OLDER: [f64; 13] = [
            40.0, 30.0, 20.0, 18.0, 15.0, 12.0, 10.0, 9.0, 7.0, 6.0, 5.0, 4.0, 3.0,
        ];
        if sm >= 100 && self.minor >= 25 {
            match self.minor {
                25 | 26 => &SM100_2_25,
                27 | 28 => &SM100_2_27,
                _ => &SM100_2_29,
            }
        } else if sm >= 90 && self.minor <= 20 {
            &SM90_2_19
        } else if sm >= 90 {
            &SM90
        } else {
            &OLDER
        }
    }
}

impl Default for NcclVersion {
    fn default() -> Self {
        NcclVersion::LATEST
    }
}

impl std::fmt::Display for NcclVersion {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "2.{}.{}", self.minor, self.patch)
    }
}

/// The NCCL an engine version runs (its torch pin's `nvidia-nccl-cu12`, module doc), or `None` for
/// a version whose pin tpsim has not checked.
pub fn engine_pinned_nccl(engine: &str, version: &str) -> Option<NcclVersion> {
    let v = version.trim().trim_start_matches('v');
    // "0.5.8.post1" pins what "0.5.8" pins.
    let base: String = v.split(".post").next().unwrap_or(v).to_string();
    match (engine, base.as_str()) {
        ("vllm", "0.11.0") | ("sglang", "0.5.5") => Some(NcclVersion::new(27, 3)),
        ("sglang", "0.5.6" | "0.5.8" | "0.5.9" | "0.5.10") => Some(NcclVersion::new(27, 5)),
        // Issue #19 point 2 (launch helper): vLLM 0.12.0 requires torch==2.9.0, whose wheel requires
        // nvidia-nccl-cu12==2.27.5; vLLM 0.33.0 requires torch==2.14.0 and SGLang 0.5.23 torch==2.14.1,
        // whose wheels require nvidia-nccl-cu13==2.30.7 (wheel METADATA of vllm-0.12.0 / vllm-0.33.0 /
        // sglang-0.5.23 and of torch-2.9.0 / 2.14.0 / 2.14.1 cp311 manylinux_2_28_x86_64 on PyPI).
        // Issue #17 (dp): vLLM 0.19.0 requires torch 2.10.0, whose wheel requires nvidia-nccl-cu12 2.27.5.
        ("vllm", "0.12.0" | "0.19.0") => Some(NcclVersion::new(27, 5)),
        ("vllm", "0.33.0") | ("sglang", "0.5.23") => Some(NcclVersion::new(30, 7)),
        // vllmfloor: vLLM 0.8.5 (and 0.8.5.post1) require torch==2.6.0 (wheel METADATA of
        // vllm-0.8.5 / vllm-0.8.5.post1 cp38-abi3 manylinux1_x86_64), whose wheel requires
        // nvidia-nccl-cu12==2.21.5 (torch-2.6.0 cp311 manylinux1_x86_64 METADATA on PyPI). The IOG
        // rows' image vllm/vllm-openai:v0.8.5 installs that torch; pynccl loads its libnccl.so.2.
        ("vllm", "0.8.5") => Some(NcclVersion::new(21, 5)),
        _ => None,
    }
}

#[cfg(test)]
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_refuse() {
        assert_eq!(NcclVersion::parse("2.27.5").unwrap(), NcclVersion::new(27, 5));
        assert_eq!(NcclVersion::parse("v2.30.7-1").unwrap(), NcclVersion::LATEST);
        let e = NcclVersion::parse("2.20.5").unwrap_err();
        assert!(e.to_string().contains("2.19.3, 2.21.5, 2.22.3"), "{e}");
        assert!(NcclVersion::parse("3.0.0").is_err());
        assert!(NcclVersion::parse("2.27").is_err());
    }

    /// The engines' pins (module doc: torch 2.8.0 → 2.27.3, torch 2.9.1 → 2.27.5).
    #[test]
    fn engine_pins() {
        assert_eq!(
            engine_pinned_nccl("vllm", "0.11.0"),
            Some(NcclVersion::new(27, 3))
        );
        assert_eq!(
            engine_pinned_nccl("sglang", "0.5.9"),
            Some(NcclVersion::new(27, 5))
        );
        assert_eq!(
            engine_pinned_nccl("sglang", "0.5.8.post1"),
            Some(NcclVersion::new(27, 5))
        );
        assert_eq!(engine_pinned_nccl("sglang", "0.4.6"), None);
        // Issue #17 (dp): torch 2.9.0 / 2.10.0 → 2.27.5; torch 2.14.0 / 2.14.1 → nvidia-nccl-cu13 2.30.7.
        assert_eq!(
            engine_pinned_nccl("vllm", "0.12.0"),
            Some(NcclVersion::new(27, 5))
        );
        assert_eq!(
            engine_pinned_nccl("vllm", "0.19.0"),
            Some(NcclVersion::new(27, 5))
        );
        assert_eq!(engine_pinned_nccl("vllm", "0.33.0"), Some(NcclVersion::LATEST));
        assert_eq!(engine_pinned_nccl("sglang", "0.5.23"), Some(NcclVersion::LATEST));
        // vllmfloor: vLLM 0.8.5 / 0.8.5.post1 → torch 2.6.0 → nvidia-nccl-cu12 2.21.5.
        assert_eq!(engine_pinned_nccl("vllm", "0.8.5"), Some(NcclVersion::new(21, 5)));
        assert_eq!(
            engine_pinned_nccl("vllm", "0.8.5.post1"),
            Some(NcclVersion::new(21, 5))
        );
        assert_eq!(engine_pinned_nccl("vllm", "0.8.4"), None);
        assert_eq!(NcclVersion::parse("2.28.3").unwrap(), NcclVersion::new(28, 3));
    }

    /// Blackwell caps at the three tags that differ (tuning.cc N1 column: v2.27.5 `{2*36.7, …}`,
    /// `{2*38.7, …}`; v2.28.9 `{55.6, …}`, `{70.0, …}`; v2.30.7 `{40.0, …}`).
    #[test]
    fn blackwell_caps_by_version() {
        let c = NcclVersion::new(27, 5).arch_caps(120);
        assert_eq!(
            (
                c.per_ch_max_ring_ll128_bw,
                c.per_ch_max_tree_ll128_bw,
                c.per_ch_max_tree_bw
            ),
            (73.4, 73.4, 77.4)
        );
        let c = NcclVersion::new(28, 9).arch_caps(100);
        assert_eq!((c.per_ch_max_ring_ll128_bw, c.per_ch_max_tree_bw), (73.4, 70.0));
        let c = NcclVersion::LATEST.arch_caps(120);
        assert_eq!(
            (c.per_ch_max_ring_ll128_bw, c.per_ch_max_tree_ll128_bw),
            (40.0, 55.6)
        );
        // 2.24: no Blackwell index, Hopper's row.
        assert_eq!(NcclVersion::new(24, 3).arch_caps(120).per_ch_max_tree_bw, 38.7);
    }

    #[test]
    fn speeds_and_latency_by_version() {
        assert!(!NcclVersion::new(27, 5).speed_array(120).contains(&45.0));
        assert!(NcclVersion::LATEST.speed_array(120).contains(&45.0));
        assert_eq!(*NcclVersion::new(26, 6).speed_array(120).last().unwrap(), 19.0);
        assert_eq!(NcclVersion::new(24, 3).speed_array(120)[0], 60.0);
        assert_eq!(NcclVersion::new(21, 5).pci_tree_simple_latency_us(), 28.0);
        assert_eq!(NcclVersion::new(23, 4).pci_tree_simple_latency_us(), 4.0);
    }

    /// What 2.19.3 changes for one node against 2.21.5 (`git diff v2.19.3-1 v2.21.5-1`, tuning.cc
    /// and search.cc): Ring/LL allreduce 1/4 of the bus bandwidth against 0.5, Hopper `llMaxBws`
    /// 87.7 against 141.0, no 11.0 in the SM90 intra speeds; Ampere's caps and the older speeds equal.
    #[test]
    fn nccl_2_19_3_single_node_tables() {
        let (old, new) = (NcclVersion::new(19, 3), NcclVersion::new(21, 5));
        assert_eq!(
            (old.ring_ll_allreduce_factor(), new.ring_ll_allreduce_factor()),
            (0.25, 0.5)
        );
        assert_eq!(
            (old.arch_caps(90).ll_max_bw, new.arch_caps(90).ll_max_bw),
            (87.7, 141.0)
        );
        assert_eq!(old.arch_caps(90).per_ch_max_tree_bw, 38.7);
        assert_eq!(old.arch_caps(89), new.arch_caps(89));
        assert!(!old.speed_array(90).contains(&11.0) && new.speed_array(90).contains(&11.0));
        assert_eq!(old.speed_array(89), new.speed_array(89));
        assert_eq!(old.pci_tree_simple_latency_us(), 28.0);
        assert_eq!(old.list_syntax(), ListSyntax::Flat);
    }
}

#[cfg(test)]
// Speeds come straight from NCCL's arrays (or halves of them): exact equality is the point.
#[allow(clippy::float_cmp)]
mod search_tests {
    use super::*;
    use crate::hw::PathClass;
    use crate::nccl::test_inputs::uniform;
    use crate::nccl::{NcclEnv, search_ring};

    /// 8 SM120 GPUs whose ring hops have 46 GB/s in NCCL's model: 2.30 starts at 45 (one channel,
    /// 46 − 45 < 45), which is ≥ 25 and split into 2 × 22.5; 2.27 has no 45 and starts at 40 (one
    /// channel), 30 and 24 give one channel each, 20 gives 2 × 20 = 40, not more than 40, so 1 × 40
    /// stays and is split into 2 × 20 (search.cc `ncclTopoDupChannels`).
    #[test]
    fn sm120_search_differs_between_2_27_and_2_30() {
        let inp = uniform(8, 120, PathClass::Pxb, 46.0);
        let g = search_ring(&inp, &NcclEnv::default());
        assert_eq!((g.channels, g.bw_per_channel_gbps), (2, 22.5));
        let env = NcclEnv {
            version: NcclVersion::new(27, 5),
            ..NcclEnv::default()
        };
        let g = search_ring(&inp, &env);
        assert_eq!((g.channels, g.bw_per_channel_gbps), (2, 20.0));
        // At 48 GB/s both find 2 × 24 (24 × 2 = 48 beats 45 and 40).
        let inp = uniform(8, 120, PathClass::Pxb, 48.0);
        assert_eq!(search_ring(&inp, &env).bw_per_channel_gbps, 24.0);
        assert_eq!(search_ring(&inp, &NcclEnv::default()).bw_per_channel_gbps, 24.0);
    }
}
