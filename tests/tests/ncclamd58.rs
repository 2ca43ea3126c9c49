//! Issue #19 (ncclamd58): NCCL's inter-socket bandwidth by release and CPU generation
//! (`tpsim_model::nccl::inter_cpu_bw_gbps`, read off NVIDIA/nccl `src/graph/topo.h` / `topo.cc`
//! `ncclTopoGetInterCpuBw` at the release tags) on the two dual-Turin boxes of the allreduce table:
//! Festr's (`rtx-pro-6000-8x-dual-turin-festr`, allreduce.tsv line 37) and aikitoria's
//! (`rtx-5090-8x-dual-turin-p2p-aikitoria`, lines 325-349, NCCL 2.29.7). Both are EPYC 9575F (Zen 5):
//! every NCCL release through 2.30.7 reads AMD_BW 16 GB/s for them; the per-generation 32 GB/s of commit
//! 2f1c174 is on NCCL's `dev` branch only (first in 2.31). Either way NCCL's search gives both boxes 2
//! runtime channels, so the rule does not explain aikitoria's 4-channel rate.

use crate::common::*;
use tpsim_model::hw::PathClass;
use tpsim_model::nccl::{
    CpuGeneration, NcclEnv, NcclTopoInput, NcclVersion, PathInfo, inter_cpu_bw_gbps, search_ring,
};

const AIKITORIA: &str = "rtx-5090-8x-dual-turin-p2p-aikitoria";
const FESTR: &str = "rtx-pro-6000-8x-dual-turin-festr";

/// The presets carry the CPU facts (EPYC 9575F: Zen 5, CPUID family 1Ah) and NCCL's figure follows the
/// release: aikitoria's run names NCCL 2.29.7 (`nccl-library=22907`, the README's nccl-tests header);
/// Festr's default-graph row names none, and local-inference-lab/rtx6kpro
/// `optimization/nccl-tuning.md` (at e2c2b95, "NCCL Graph XML Fix for AMD Turin") names v2.28.3 for the
/// 2-channel default graph. Both releases: `#define AMD_BW 16.0` (topo.h at v2.28.3-1, v2.29.7-1).
/// NCCL 2.31 (dev, commit 2f1c174): family ≥ 26 → AMD_ZEN5_BW 32.0. Exact constants (tolerance 0).
#[test]
#[allow(clippy::float_cmp)]
fn both_boxes_are_zen5_and_read_16_gbps_in_the_releases_they_ran() {
    for preset in [AIKITORIA, FESTR] {
        let h = tpsim::scenario::hardware_from_preset(preset).expect("preset");
        assert!(h.cpu_amd, "{preset}");
        assert_eq!(h.cpu_generation, Some(CpuGeneration::Zen5), "{preset}");
        for v in [
            NcclVersion::new(28, 3),
            NcclVersion::new(29, 7),
            NcclVersion::new(30, 7),
        ] {
            assert_eq!(
                inter_cpu_bw_gbps(v, h.cpu_amd, h.cpu_generation),
                16.0,
                "{preset} {v}"
            );
        }
        assert_eq!(
            inter_cpu_bw_gbps(NcclVersion::new(31, 0), h.cpu_amd, h.cpu_generation),
            32.0
        );
    }
    // 2.31 is not a release tpsim models: `--nccl-version 2.31.0` is refused with the list.
    let out = tpsim(&[
        "collective",
        "--hardware",
        FESTR,
        "--sizes",
        "32M",
        "--nccl-version",
        "2.31.0",
    ]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("2.30.7"), "{}", out.stderr);
}

/// NCCL's search on the 4 + 4 ring (GPU 0-3 on socket 0, 4-7 on socket 1, one root port each), Gen5 x16
/// GPU links (48 GB/s in NCCL's model), SM 12.0 (the SM ≥ 100 speed array of 2.29.7: 90 … 45, 40, 30,
/// 24, 20, 19, 18). Hops 0→1, 1→2, 2→3, 4→5, 5→6, 6→7 are PHB at 48; 3→4 and 7→0 cross the sockets
/// (SYS, one direction each) at min(48, inter-CPU).
///
/// Stock (16 GB/s, every release): no speed ≥ 18 fits 16 → ring and tree fall back to the simple order,
/// 1 channel × 0.1 GB/s, 2 runtime channels (connect.cc doubles).
///
/// Per generation (32 GB/s: 2.31, or a 2.29.7 built with the patch): ring pass 1 starts at 45 (≤ 48);
/// 45, 40 do not fit 32; 30 fits once (32 − 30 = 2 < 30) → 1 × 30; 24, 20, 19, 18 (each > 0.49 × 30)
/// give 1 channel, no better; DupChannels (30 ≥ 25) → 2 × 15. Tree, min = max = 2 channels: start at the
/// first speed with 2 × s ≤ 48 × 8/7 = 54.9 → 24; two chains need 2 × s ≤ 32 through the one SYS
/// direction they share (same order: NCCL keeps sameChannels on AMD SYS paths), so 24, 20, 19, 18 all
/// fail → simple order, 1 × 0.1. Both graphs keep min(2, 1) = 1 channel → 2 runtime channels. NCCL's
/// own log of that build on Festr's box says the same: "Pattern 4 ... bw 15/15, type SYS/PIX",
/// "Pattern 1 ... bw 0.1/0.1, type SYS/SYS", "2 total channels" (rtx6kpro `optimization/nccl-tuning.md`
/// at e2c2b95, "What NCCL Debug Showed in That Test", patched NCCL 2.29.7). Exact speeds (tolerance 0).
#[test]
#[allow(clippy::float_cmp)]
fn the_search_gives_two_runtime_channels_at_16_and_at_32_gbps() {
    let ring = |sys: f64| {
        let hop = |class, bw_gbps| PathInfo { class, bw_gbps };
        let mut path = vec![hop(PathClass::Phb, 48.0); 8];
        path[3] = hop(PathClass::Sys, sys);
        path[7] = hop(PathClass::Sys, sys);
        NcclTopoInput {
            ranks: 8,
            sm: 120,
            cpu_amd: true,
            gpu_link_gbps: 48.0,
            ring_path: path,
            nvlink: false,
        }
    };
    let env = NcclEnv {
        version: NcclVersion::new(29, 7),
        ..NcclEnv::default()
    };
    let stock = search_ring(&ring(16.0), &env);
    assert!(stock.simple_order_fallback);
    assert_eq!(
        (stock.channels, stock.bw_per_channel_gbps, stock.comm_channels),
        (1, 0.1, 2)
    );
    let patched = search_ring(&ring(32.0), &env);
    assert!(!patched.simple_order_fallback);
    assert_eq!(
        (patched.bw_per_channel_gbps, patched.type_intra),
        (15.0, PathClass::Sys)
    );
    assert_eq!(patched.tree_bw_per_channel_gbps, 0.1);
    assert_eq!((patched.channels, patched.comm_channels), (1, 2));
}

/// The simulator takes the same graph on both presets at the releases they ran: Festr at 2.28.3 and
/// aikitoria at 2.29.7 (`NCCL_P2P_LEVEL=SYS`, as both sources ran): the simple-order fallback and a
/// 2-channel Ring/Simple at 32 MiB.
#[test]
fn both_presets_run_the_fallback_graph_on_two_channels() {
    for (preset, version) in [(FESTR, "2.28.3"), (AIKITORIA, "2.29.7")] {
        let out = tpsim(&[
            "collective",
            "--hardware",
            preset,
            "--gpus",
            "8",
            "--sizes",
            "32M",
            "--env",
            "NCCL_P2P_LEVEL=SYS",
            "--nccl-version",
            version,
            "--json",
        ]);
        assert_eq!(out.code, 0, "{}", out.stderr);
        let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
        assert_eq!(
            v["nccl_graph"], "1 channel(s) × 0.1 GB/s (search failed: simple order)",
            "{preset}"
        );
        assert_eq!(v["rows"][0]["algorithm"], "nccl Ring/Simple", "{preset}");
        assert_eq!(v["rows"][0]["channels"], 2, "{preset}");
    }
}

/// Line 347 (aikitoria, 32 MiB, measured 1284.81 µs) by hand. Ring/Simple on c channels, each capped
/// at the template's nccl_channel_bw 11.5 GB/s, moves 2(n − 1)/n × S = 1.75 × 33554432 = 58720256 B per
/// rank: 58720256 / (c × 11.5e9) s, plus NCCL's Ring/Simple base latency 8.4 µs (tuning.cc
/// `baseLat`) and one Simple step of the box, nccl_simple_step_latency 2.83 µs, for the last piece (the
/// pieces before it overlap the transfer). c = 2 (the graph NCCL's release gives): 8.4 + 2553.0546 +
/// 2.83 = 2564.2846 µs, 2.00× the measured time. c = 4 (`NCCL_MIN_NCHANNELS=4`, the count the rate
/// implies): 8.4 + 1276.5273 + 2.83 = 1287.7573 µs, +0.23 % — the miss is the channel count alone.
/// Tolerance 0.001 µs (picosecond rounding of each transfer).
#[test]
fn line_347_by_hand_on_two_and_four_channels() {
    let by_hand = |c: f64| 8.4 + 1.75 * 33_554_432.0 / (c * 11.5e9) * 1e6 + 2.83;
    assert!((by_hand(2.0) - 2564.2846).abs() < 1e-4);
    assert!((by_hand(4.0) - 1287.7573).abs() < 1e-4);
    let run = |extra: &[&str]| {
        let mut args = vec!["--env", "NCCL_P2P_LEVEL=SYS", "--nccl-version", "2.29.7"];
        args.extend_from_slice(extra);
        times(AIKITORIA, "nccl", "8", &[33_554_432], &args)[0]
    };
    let two = run(&[]);
    let four = run(&["--env", "NCCL_MIN_NCHANNELS=4"]);
    assert!((two - by_hand(2.0)).abs() < 1e-3, "{two}");
    assert!((four - by_hand(4.0)).abs() < 1e-3, "{four}");
    let (gpu, _, size, measured) = allreduce_row(347);
    assert_eq!((gpu.as_str(), size), ("GeForce RTX 5090", 33_554_432));
    assert!((measured - 1284.81).abs() < 1e-9);
    assert!((two / measured - 1.9958).abs() < 1e-3, "{}", two / measured);
    assert!((four / measured - 1.0023).abs() < 1e-3, "{}", four / measured);
}

/// A generation of the other vendor, or an unknown name, is refused naming the key (exit 2).
#[test]
fn a_wrong_generation_is_refused() {
    for (vendor, generation, want) in [
        ("amd", "skylake", "is not a generation of cpu_vendor = \"amd\""),
        ("intel", "zen5", "is not a generation of cpu_vendor = \"intel\""),
        ("amd", "zen6", "expected one of zen2, zen4, zen5"),
    ] {
        let dir = scratch(&format!("{vendor}-{generation}"));
        let file = dir.join("hw.toml");
        std::fs::write(
            &file,
            format!("extends = \"rtx-5090\"\ncpu_vendor = \"{vendor}\"\ncpu_generation = \"{generation}\"\n[topology]\ngpus = [\"socket0/root0\", \"socket1/root1\"]\n"),
        )
        .expect("write");
        let out = tpsim(&[
            "collective",
            "--hardware",
            file.to_str().expect("utf8"),
            "--sizes",
            "1M",
        ]);
        assert_eq!(out.code, 2, "{generation}: {}", out.stderr);
        assert!(out.stderr.contains("hardware.cpu_generation"), "{}", out.stderr);
        assert!(out.stderr.contains(want), "{}", out.stderr);
    }
}

/// A layer that names another vendor without its own generation does not inherit the base's: a file
/// over the kalavai Xeon preset (template `rtx-4090-kalavai-xeon`: intel, "skylake") that says
/// `cpu_vendor = "amd"` loads with no generation (AMD: 16 GB/s in every release); one that keeps
/// intel keeps "skylake" (10 GB/s at NCCL 2.19.3, the host's release). Exact constants (tolerance 0).
#[test]
#[allow(clippy::float_cmp)]
fn another_vendor_drops_the_inherited_generation() {
    let base = data_path("../../scenarios/hardware/rtx-4090-2x-kalavai-xeon-cross-socket.toml");
    let base = base.canonicalize().expect("preset path");
    let v = NcclVersion::new(19, 3);
    for (vendor, want, bw) in [
        ("amd", None, 16.0),
        ("intel", Some(CpuGeneration::IntelSkylake), 10.0),
    ] {
        let dir = scratch(&format!("over-{vendor}"));
        let file = dir.join("hw.toml");
        std::fs::write(
            &file,
            format!(
                "extends = {:?}\ncpu_vendor = \"{vendor}\"\n",
                base.to_str().expect("utf8")
            ),
        )
        .expect("write");
        let h = tpsim::scenario::hardware_from_preset(file.to_str().expect("utf8")).expect("loads");
        assert_eq!(h.cpu_generation, want, "{vendor}");
        assert_eq!(inter_cpu_bw_gbps(v, h.cpu_amd, h.cpu_generation), bw, "{vendor}");
    }
}
