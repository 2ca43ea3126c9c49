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

/// shm49 (NUMA modes): this host is NPS1 (one NUMA node a socket), so all four receive buffers share the
/// socket's 12 channels. Were it set to NPS4 with the four GPUs in one quadrant (a what-if, not a
/// measured box), their buffers would share that node's 12 / 4 = 3 channels: 3 × 6400 MT/s × 8 B × 0.7
/// = 107.52 GB/s a direction, 26.88 GB/s for each of the four connections, below the port's 0.6869 ×
/// 53.6 = 36.818. By hand 128 MiB then take 1.5 × 134217728 / 26.88e9 = 7489.9 µs (NPS1: 5468 µs);
/// with one GPU per quadrant each node's 107.52 GB/s carries one connection and the NPS1 time stands.
/// ncclhost59: NCCL's CPU nodes are those NUMA nodes, so one GPU a quadrant makes every hop SYS at
/// AMD_BW 16 GB/s and NCCL's search falls back to the simple order (2 runtime channels, not 4); the
/// root port's SHM reads still bind, so the time moves by the flows' picosecond rounding only
/// (5483.580448 → 5483.580544 µs). Tolerance 1 % on the hand figure, 1e-6 relative for the unchanged
/// one (it was 1e-9 while the quadrants did not split NCCL's graph).
#[test]
fn an_nps4_quadrant_holding_all_four_buffers_binds_the_ring() {
    let dir = scratch("nps4");
    let with = |nodes: &str| {
        let p = dir.join(format!("nps4-{}.toml", nodes.replace([',', ' '], "")));
        std::fs::write(
            &p,
            format!(
                "extends = \"{}\"\n[host]\nnuma_nodes_per_socket = 4\ngpu_numa_nodes = [{nodes}]\n",
                scenario(&format!("hardware/{SHM}.toml"))
            ),
        )
        .unwrap();
        p.display().to_string()
    };
    let size = [134_217_728u64];
    let stock = times(SHM, "nccl", "4", &size, RUN)[0];
    let one = times(&with("0, 0, 0, 0"), "nccl", "4", &size, RUN)[0];
    let spread = times(&with("0, 1, 2, 3"), "nccl", "4", &size, RUN)[0];
    let hand: f64 = 1.5 * 134_217_728.0 / (3.0 * 6400.0 * 8.0 * 0.7 / 4.0 * 1e6) * 1e6;
    assert!((hand - 7489.9).abs() < 0.1, "{hand}");
    assert!((one / hand - 1.0).abs() < 1e-2, "{one} vs {hand}");
    assert!((spread / stock - 1.0).abs() < 1e-6, "{spread} vs {stock}");
}
