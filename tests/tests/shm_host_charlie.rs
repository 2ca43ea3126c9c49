//! Issue #19 point 1 (more SHM hosts): charlie0129's 8× GeForce RTX 4090 in a two-socket AMD EPYC 7542 host
//! (NPS4, one GPU per Gen4 x16 root port; charlie0129/blog content/post/rtx4090-p2p-unlocked/index.md at
//! 5af924f): nccl-tests all_reduce_perf -g 8 on the stock driver (tests/data/allreduce.tsv lines
//! 258–282, NCCL over SHM). Its run with tinygrad's P2P driver (lines 283–307) is excluded from the
//! cross-validation (calibrate/crossval/allreduce-systems.toml says why).

use crate::common::*;

const SHM: &str = "rtx-4090-8x-epyc-7542-shm";

/// The host facts the source states: DRAM 8 × 3200 MT/s × 8 B × 0.7 = 143.36 GB/s per socket; xGMI
/// 4 × 32 = 128 GB/s (4 links assumed); the fraction carries its rows. Exact arithmetic (tolerance 1e-3).
#[test]
fn charlie_host_facts_give_the_host_parameters() {
    let h = assert_shm_host_facts(SHM, 143.36, 128.0, 0.6068, "lines 279-282");
    assert!(!h.gpu.p2p, "stock driver: P2P connectivity matrix all 0");
}

/// Stock driver: all 8 ring hops over SHM, the two socket crossings included. JSON `shm_hops`, exact.
#[test]
fn stock_driver_rings_over_shm() {
    let out = tpsim(&[
        "collective",
        "--hardware",
        SHM,
        "--gpus",
        "8",
        "--sizes",
        "128M",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["shm_hops"], 8);
}

/// Consistency, not accuracy (the fraction was fitted on lines 279-282; the out-of-sample figure is
/// `tpsim-calibrate crossval allreduce` with this system held out). One receiver per Gen4 x16 root port:
/// 0.6068 × 24.4 = 14.806 GB/s per connection; an 8-GPU ring moves 2 × 7/8 of the message through each,
/// so 128 MiB take 1.75 × 134217728 / 14.806e9 = 15864 µs by hand (line 282 measured 16253). The fitted
/// rows within 5 % of their measurements (their busbw spreads ±2.4 % around the mean the fraction
/// carries), the 128 MiB row within 1 % of the hand figure.
#[test]
fn the_fitted_fraction_reproduces_its_rows() {
    let lines: Vec<usize> = (279..=282).collect();
    let sizes: Vec<u64> = lines.iter().map(|&l| allreduce_row(l).2).collect();
    assert_eq!(sizes, [16_777_216, 33_554_432, 67_108_864, 134_217_728]);
    let pred = times(SHM, "nccl", "8", &sizes, &[]);
    for (l, p) in lines.iter().zip(&pred) {
        let (gpu, n, _, m) = allreduce_row(*l);
        assert_eq!((gpu.as_str(), n.as_str()), ("GeForce RTX 4090", "8"), "line {l}");
        assert!((p / m - 1.0).abs() < 0.05, "{p} µs vs line {l}: {m}");
    }
    let hand = 1.75 * 134_217_728.0 / (0.6068 * 24.4e9) * 1e6;
    assert!((pred[3] / hand - 1.0).abs() < 1e-2, "{} vs {hand}", pred[3]);
}
