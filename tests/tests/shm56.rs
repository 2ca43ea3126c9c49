//! Issue #19 (shm56): mylesgoose's 8× GeForce RTX 4090 with P2P disabled on a two-socket AMD Genoa host
//! (tinygrad/open-gpu-kernel-modules#17, comment of 2025-01-14: `NCCL_DEBUG=INFO ./all_reduce_perf -g 8`
//! at nccl-tests' default 32 MiB, NCCL 2.24.3, GPUs at buses 0x01 … 0xe1, host GENOA2D24G-2L). The stored
//! copy holds the run's header only, not its table, so the preset `rtx-4090-8x-genoa2d24g-shm` carries the
//! rule tpsim ships for an unmeasured SHM host (the median read fraction, shm52) and these tests pin what
//! it predicts for the source's run, out of sample by construction: no row of this box was fitted.

use crate::common::*;

const GENOA: &str = "rtx-4090-8x-genoa2d24g-shm";
const CHARLIE: &str = "rtx-4090-8x-epyc-7542-shm";
const MIB32: u64 = 33_554_432;

/// The host facts from the AMD EPYC 9004 platform: DRAM 12 channels × 4800 MT/s × 8 B × 0.7 (the
/// `tpsim_model::shm::dram_bw` derating) = 322.56 GB/s per socket; xGMI 4 links × 64 GB/s = 256 GB/s
/// (4 links assumed); the read fraction is the shm52 median 0.5859 and says so. Exact arithmetic
/// (tolerances 1e-3 and 1e-9, `assert_shm_host_facts`). P2P is off (the source's first run).
#[test]
fn genoa_host_facts_give_the_host_parameters() {
    let h = assert_shm_host_facts(
        GENOA,
        322.56,
        256.0,
        0.5859,
        "the median of the eight measured SHM hosts",
    );
    assert!(!h.gpu.p2p, "P2P disabled: NCCL over SHM");
    assert!(
        h.fitted["shm_read_efficiency"]
            .rows
            .contains("Not validated on this box")
    );
}

/// The source's run, predicted: 8 ranks, 32 MiB, NCCL 2.24.3. Every ring hop is SHM (JSON `shm_hops` 8,
/// exact), Ring/Simple, bound by the SHM reads into a GPU's own root port. By hand: one receiver per
/// Gen4 x16 port reads 0.5859 × 24.4 = 14.296 GB/s; the ring moves 2 × 7/8 of the message through each
/// connection, 1.75 × 33554432 B / 14.296e9 B/s = 4107.5 µs; tpsim adds its step latencies (within 1 %).
/// busbw is nccl-tests' algbw × 2(n − 1)/n = algbw × 1.75 (tolerance 1e-9, the same float arithmetic),
/// and algbw = 33554432 B / time.
#[test]
fn the_sources_32_mib_run_is_predicted_from_the_median_fraction() {
    let out = tpsim(&[
        "collective",
        "--hardware",
        GENOA,
        "--gpus",
        "8",
        "--sizes",
        "32M",
        "--nccl-version",
        "2.24.3",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["shm_hops"], 8);
    let r = &v["rows"][0];
    assert_eq!(r["algorithm"], "nccl Ring/Simple");
    assert!(
        r["bottleneck"]
            .as_str()
            .expect("str")
            .starts_with("SHM reads into root"),
        "{r}"
    );
    let t = f(&r["time_us"]);
    let hand = 1.75 * MIB32 as f64 / (0.5859 * 24.4e9) * 1e6;
    assert!((hand - 4107.5).abs() < 0.1, "{hand}");
    assert!((t / hand - 1.0).abs() < 0.01, "{t} vs {hand}");
    let algbw = f(&r["algbw_gbps"]);
    assert!((algbw - MIB32 as f64 / t / 1e3).abs() < 1e-9, "{algbw}");
    assert!((f(&r["busbw_gbps"]) - algbw * 2.0 * 7.0 / 8.0).abs() < 1e-9);
}

/// The same layout on Zen 2 (charlie0129's 2× EPYC 7542: 8 RTX 4090, one per Gen4 x16 root port, 4 + 4,
/// nccl-tests -g 8) measured 32 MiB in 3905.60 µs (tests/data/allreduce.tsv line 280: busbw 15.04,
/// by hand 33554432 / 3905.60 µs × 1.75 = 15.035 GB/s). With the median fraction the Genoa box comes out
/// 5–6 % slower than that row (4123 / 3905.6 = 1.056; the fractions' ratio 0.6068 / 0.5859 = 1.036 plus
/// the step latencies), and the spread of the measured hosts' fractions (0.3607 … 0.6869, shm52)
/// brackets its busbw between 0.3607 × 24.4 = 8.80 and 0.6869 × 24.4 = 16.76 GB/s: the box's own table
/// decides where in that range Genoa's DDR5 and xGMI put it (book: collectives.md, shm56). Tolerances:
/// 0.5 % on the printed busbw, 1e-2 on the ratio.
#[test]
fn the_prediction_beside_the_same_layout_on_zen_2() {
    let (gpu, n, size, meas) = allreduce_row(280);
    assert_eq!((gpu.as_str(), n.as_str(), size), ("GeForce RTX 4090", "8", MIB32));
    assert!((meas - 3905.6).abs() < 1e-9);
    let busbw = MIB32 as f64 / meas / 1e3 * 1.75;
    assert!((busbw / 15.04 - 1.0).abs() < 0.005, "{busbw}");
    let g = times(GENOA, "nccl", "8", &[MIB32], &["--nccl-version", "2.24.3"])[0];
    let c = times(CHARLIE, "nccl", "8", &[MIB32], &[])[0];
    assert!((g / meas - 1.056).abs() < 1e-2, "{g} / {meas}");
    assert!(
        g > c,
        "the median (0.5859) reads below charlie0129's own 0.6068: {g} vs {c}"
    );
    let g_busbw = MIB32 as f64 / g / 1e3 * 1.75;
    assert!(g_busbw > 0.3607 * 24.4 && g_busbw < 0.6869 * 24.4, "{g_busbw}");
}
