//! Issue #19 point 1 (more SHM hosts): 4× RTX PRO 6000 Blackwell on one NUMA node of a dual AMD EPYC 9575F
//! (Turin), each on its own root complex under one host bridge, NCCL 2.29.7 at its default P2P level
//! (NVIDIA/nccl pull request 2080, "Stock (SHM)": tests/data/allreduce.tsv lines 316–324). NCCL 2.29.7
//! `src/graph/paths.cc` line 328 raises the P2P level to SYS on AMD hosts only for ≤ 2 GPUs, so these
//! PHB paths stay beyond the default PXB and every hop goes over SHM.

use crate::common::*;

const SHM: &str = "rtx-pro-6000-4x-turin-same-numa-shm";
/// The source's run: NCCL 2.29.7, Ring (the table's heading).
const RUN: &[&str] = &["--env", "NCCL_ALGO=Ring", "--nccl-version", "2.29.7"];

/// The host facts: DRAM 12 × 6400 MT/s × 8 B × 0.7 = 430.08 GB/s per socket; xGMI 4 × 64 = 256 GB/s
/// (4 links assumed); the fraction carries its rows. Exact arithmetic (tolerance 1e-3).
#[test]
fn turin_host_facts_give_the_host_parameters() {
    let h = assert_shm_host_facts(SHM, 430.08, 256.0, 0.6869, "lines 323-324");
    assert_eq!(h.topology.gpu_count(), 4);
}

/// No NCCL_P2P_LEVEL: all 4 ring hops over SHM (PHB paths beyond the default PXB). JSON `shm_hops`, exact.
#[test]
fn default_level_rings_over_shm() {
    let out = tpsim(&[
        "collective",
        "--hardware",
        SHM,
        "--gpus",
        "4",
        "--sizes",
        "128M",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["shm_hops"], 4);
}

/// Consistency, not accuracy (the fraction was fitted on lines 323-324; the out-of-sample figure is
/// `tpsim-calibrate crossval allreduce` with this system held out). One receiver per Gen5 x16 root port:
/// 0.6869 × 53.6 = 36.818 GB/s per connection; a 4-GPU ring moves 2 × 3/4 of the message through each,
/// so 128 MiB take 1.5 × 134217728 / 36.818e9 = 5468 µs by hand (line 324 measured 5354). The fitted
/// rows within 5 % of their measurements (36.04 and 37.60 GB/s spread ±2.1 % around the mean the
/// fraction carries), the 128 MiB row within 1 % of the hand figure.
#[test]
fn the_fitted_fraction_reproduces_its_rows() {
    let lines = [323usize, 324];
    let sizes: Vec<u64> = lines.iter().map(|&l| allreduce_row(l).2).collect();
    assert_eq!(sizes, [16_777_216, 134_217_728]);
    let pred = times(SHM, "nccl", "4", &sizes, RUN);
    for (l, p) in lines.iter().zip(&pred) {
        let (gpu, n, _, m) = allreduce_row(*l);
        assert_eq!(
            (gpu.as_str(), n.as_str()),
            ("RTX PRO 6000 Blackwell", "4"),
            "line {l}"
        );
        assert!((p / m - 1.0).abs() < 0.05, "{p} µs vs line {l}: {m}");
    }
    let hand = 1.5 * 134_217_728.0 / (0.6869 * 53.6e9) * 1e6;
    assert!((pred[1] / hand - 1.0).abs() < 1e-2, "{} vs {hand}", pred[1]);
}
