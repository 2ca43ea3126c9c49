//! Issue #19 point 1 (more SHM hosts): 2× GeForce RTX 2080 Ti on the stock driver behind one PCIe Gen3
//! switch of an AutoDL two-socket Xeon host (tests/data/allreduce.tsv lines 230–257: nccl-tests
//! all_reduce_perf -g 2, 8 B – 1 GiB; Anthony-Hoo/Anthony-Hoo.github.io
//! posts/AutoDL_Multi-GPU_Interconnection_Test.md at 37e805e), the fifth host over NCCL's SHM transport.

use crate::common::*;

const AUTODL: &str = "rtx-2080-ti-2x-autodl-xeon-shm";

/// The host facts: DRAM 6 × 2666 MT/s × 8 B × 0.7 = 89.5776 GB/s per socket; UPI 2 × 20.8 = 41.6 GB/s;
/// the GPUs' links train at Gen3; the fraction carries its rows. Exact arithmetic (tolerance 1e-3).
#[test]
fn autodl_host_facts_give_the_host_parameters() {
    let h = assert_shm_host_facts(AUTODL, 89.5776, 41.6, 0.6557, "lines 251-257");
    assert_eq!(h.gpu.pcie_gen, 3);
    assert!(
        !h.gpu.p2p,
        "stock GeForce driver: no P2P (the source's topo -p2p: NS)"
    );
}

/// Without P2P both ring hops go through host memory (SHM). JSON `shm_hops`, exact.
#[test]
fn both_ring_hops_are_shm() {
    let out = tpsim(&[
        "collective",
        "--hardware",
        AUTODL,
        "--gpus",
        "2",
        "--sizes",
        "1G",
        "--json",
    ]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    let v: serde_json::Value = serde_json::from_str(&out.stdout).expect("json");
    assert_eq!(v["shm_hops"], 2);
}

/// Consistency, not accuracy (the fraction was fitted on lines 251-257; the out-of-sample figure is
/// `tpsim-calibrate crossval allreduce` with this system held out). Two receivers share the switch's
/// Gen3 x16 uplink: 0.6557 × 12.2 / 2 = 3.99977 GB/s per connection; a 2-GPU ring moves 2 × 1/2 of the
/// message through each, so 1 GiB takes 1073741824 / 3.99977e9 = 268451 µs by hand (line 257 measured
/// 268588). The fitted rows within 1 % of their measurements, the 1 GiB row within 0.5 % of the hand
/// figure (what is left is the fixed per-step part).
#[test]
fn the_fitted_fraction_reproduces_its_rows() {
    let lines: Vec<usize> = (251..=257).collect();
    let sizes: Vec<u64> = lines.iter().map(|&l| allreduce_row(l).2).collect();
    assert_eq!(sizes[0], 16_777_216);
    assert_eq!(sizes[6], 1_073_741_824);
    let pred = times(AUTODL, "nccl", "2", &sizes, &[]);
    for (l, p) in lines.iter().zip(&pred) {
        let (gpu, n, _, m) = allreduce_row(*l);
        assert_eq!(
            (gpu.as_str(), n.as_str()),
            ("GeForce RTX 2080 Ti", "2"),
            "line {l}"
        );
        assert!((p / m - 1.0).abs() < 0.01, "{p} µs vs line {l}: {m}");
    }
    let hand = 1_073_741_824.0 / (0.6557 * 12.2e9 / 2.0) * 1e6;
    assert!((pred[6] / hand - 1.0).abs() < 5e-3, "{} vs {hand}", pred[6]);
}

/// One row of `tests/data/shm-collectives.tsv` (the same host's other nccl-tests collectives over
/// SHM): (collective, direction, size in bytes, measured µs), after checking it is this host's and that
/// its busbw follows from its time (nccl-tests: all_gather and alltoall busbw = algbw / 2 with 2
/// ranks, broadcast and reduce busbw = algbw; printed to 2 decimals, so within 1 %).
fn shm_collective_row(line: usize) -> (String, String, u64, f64) {
    let t = read_tsv(&data_path("shm-collectives.tsv"));
    let r = t.rows.iter().find(|r| r.line == line).expect("row");
    assert_eq!(r.get(t.col("gpu")), "GeForce RTX 2080 Ti", "line {line}");
    assert!(r.get(t.col("topology")).contains("0xb4/0xb5"), "line {line}");
    let coll = r.get(t.col("collective")).to_string();
    let size: u64 = r.get(t.col("size_bytes")).parse().expect("size");
    let us: f64 = r.get(t.col("time_us")).parse().expect("time");
    let busbw: f64 = r.get(t.col("busbw_GBps")).parse().expect("busbw");
    let per_conn = if coll == "broadcast" || coll == "reduce" {
        1.0
    } else {
        0.5
    };
    let from_time = size as f64 / us / 1e3 * per_conn;
    assert!(
        (busbw / from_time - 1.0).abs() < 0.01,
        "line {line}: {busbw} vs {from_time}"
    );
    (coll, r.get(t.col("direction")).to_string(), size, us)
}

/// shmhost3 (issue #19 point 1): the read fraction, fitted on this host's allreduce rows, predicts the
/// same pair's all_gather (shm-collectives.tsv lines 2–5), where each GPU also reads from and writes
/// to host memory at once. Out of sample for the collective, not for the host. By hand at 1 GiB: each
/// receiver takes half the message at 0.6557 × 12.2 / 2 = 3.99977 GB/s, 536870912 / 3.99977e9 =
/// 134226 µs, measured 141614 (−5.2 %). The measured all_gather is still ramping at 16–256 MiB (busbw
/// 3.18 → 3.35) where the allreduce is flat at 3.99 from 16 MiB (lines 251–253): tpsim, flat, comes
/// out 16–20 % fast there. Asserted: every row predicted fast and within the project's ±20 %, the
/// 1 GiB row within 6 %.
#[test]
fn the_same_hosts_allgather_follows_its_allreduce_fraction() {
    let rows: Vec<_> = (2..=5).map(shm_collective_row).collect();
    assert!(rows.iter().all(|r| r.0 == "all_gather" && r.1 == "two-way"));
    let sizes: Vec<u64> = rows.iter().map(|r| r.2).collect();
    let pred = times(AUTODL, "nccl", "2", &sizes, &["--op", "allgather"]);
    for (r, p) in rows.iter().zip(&pred) {
        let err = p / r.3 - 1.0;
        assert!(
            (-0.20..0.0).contains(&err),
            "{} B: {p} µs vs {} ({err:+.3})",
            r.2,
            r.3
        );
    }
    assert!(
        (pred[3] / rows[3].3 - 1.0).abs() < 0.06,
        "{} vs {}",
        pred[3],
        rows[3].3
    );
    let hand = 536_870_912.0 / (0.6557 * 12.2e9 / 2.0) * 1e6;
    assert!((pred[3] / hand - 1.0).abs() < 1e-3, "{} vs {hand}", pred[3]);
}

/// shmhost3 (issue #19 point 1): on this one host the SHM rate depends on whether the links carry
/// reads and writes at once. broadcast and reduce (lines 6–7: one GPU only writes into host memory,
/// the other only reads it) move 1 GiB at 11.09 and 11.14 GB/s; all_gather, alltoall and allreduce
/// (lines 5, 8 and allreduce.tsv line 257: both GPUs read and write) at 3.79, 4.61 and 4.00 per
/// connection. The one-way receiver, alone on the switch uplink, reads 1.39× the port rate the fitted
/// fraction gives two-way (0.6557 × 12.2 = 8.0 GB/s, what tpsim would give one receiver alone), and
/// the one-way/two-way ratio per connection (2.77–2.79) is wider than the spread of the fitted fraction
/// over all six SHM hosts (0.6680 / 0.3607 = 1.85: box B's at its Gen4 port, shm51; kalavai's; 2.16 with
/// box B's Gen5 reading): the fraction is a two-way figure, and a
/// mechanism that caps reads alone (outstanding read requests of the GPU over a fixed round trip)
/// would cap the one-way rows too. Ratios from the measured times (tolerances: printed digits).
#[test]
fn one_way_reads_outrun_the_two_way_fraction_by_more_than_the_hosts_spread() {
    let one_way: Vec<f64> = [6, 7]
        .into_iter()
        .map(|l| {
            let (c, d, size, us) = shm_collective_row(l);
            assert_eq!(d, "one-way", "line {l} ({c})");
            size as f64 / us / 1e3
        })
        .collect();
    let (_, _, size, us) = allreduce_row(257);
    let two_way = size as f64 / us / 1e3;
    // the model: two receivers share fraction × link; one receiver alone would take all of it
    let pred = times(AUTODL, "nccl", "2", &[size], &[]);
    let port = 2.0 * size as f64 / pred[0] / 1e3;
    assert!((port - 0.6557 * 12.2).abs() < 0.01, "{port}");
    for ow in &one_way {
        assert!(
            (1.38..1.40).contains(&(ow / port)),
            "{ow} vs the model's port {port}"
        );
        assert!(
            (2.77..2.79).contains(&(ow / two_way)),
            "{ow} vs two-way {two_way}"
        );
    }
    let fractions: Vec<f64> = [
        AUTODL,
        "rtx-4090-8x-epyc-7542-shm",
        "rtx-5090-4x-syncopate-epyc-9v74",
        "a100-sxm4-80gb-4x-dgx-a100-shm",
        "rtx-4090-4x-kalavai-xeon",
        "rtx-5090-4x-syncopate-epyc-9b14",
    ]
    .iter()
    .map(|p| {
        let h = tpsim::scenario::hardware_from_preset(p).expect("preset");
        h.params.shm_read_efficiency.expect("fitted")
    })
    .collect();
    let spread =
        fractions.iter().cloned().fold(0.0, f64::max) / fractions.iter().cloned().fold(1.0, f64::min);
    assert!((spread - 0.6680 / 0.3607).abs() < 1e-9, "{spread}");
    assert!(one_way.iter().all(|ow| ow / two_way > 1.25 * spread));
}
