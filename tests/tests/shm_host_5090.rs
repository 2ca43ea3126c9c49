//! Issue #19 point 1 (more SHM hosts): two more hosts over NCCL's SHM transport, 4× GeForce RTX 5090 on
//! the stock driver, each GPU on its own Gen5 x16 root port (tests/data/allreduce.tsv lines 186–225, the
//! public Syncopate probe: torch.distributed all_reduce of 1–256 MiB). Box A is 2× EPYC 9V74 with GPUs
//! 0/1 on socket 0 and 2/3 on socket 1 (lines 186–205); box B one EPYC 9B14 in NPS4 (lines 206–225).
//! Each box's `shm_read_efficiency` is fitted on one pair (A: lines 189 and 193; B: line 209); the other
//! layouts are predicted from the host's facts, and where they miss the tests say by how much.

use crate::common::*;
use tpsim::scenario::hardware_from_preset;

const A4: &str = "rtx-5090-4x-syncopate-epyc-9v74";
const A_CROSS: &str = "rtx-5090-2x-syncopate-epyc-9v74-cross-socket";
const B4: &str = "rtx-5090-4x-syncopate-epyc-9b14";
const MIB256: u64 = 256 << 20;

/// `time_us` of allreduce.tsv line `line`, after checking that it is a 256 MiB row of `n` RTX 5090s.
fn measured(line: usize, n: &str) -> f64 {
    let tsv = std::fs::read_to_string(data_path("allreduce.tsv")).expect("table");
    let l = tsv.lines().nth(line - 1).expect("line");
    let c: Vec<&str> = l.split('\t').collect();
    assert_eq!(
        (c[1], c[2], c[5]),
        ("GeForce RTX 5090", n, "268435456"),
        "line {line}"
    );
    c[6].parse().expect("time_us")
}

/// The derived parameters. Box A: DRAM 12 × 4800 MT/s × 8 B × 0.7 = 322.56 GB/s; xGMI 4 × 64 = 256 GB/s;
/// the cross-socket step 0.2 µs (template shm_step_cost) + 0.2 µs (inter_socket_latency) = 0.4 µs. Box
/// B: the same DRAM, one socket. The fractions carry their rows. Exact arithmetic (tolerance 1e-3).
#[test]
fn syncopate_host_facts_give_the_host_parameters() {
    let a = hardware_from_preset(A_CROSS).unwrap();
    let p = &a.params;
    assert!(
        (p.host_memory_bw.as_gbps() - 322.56).abs() < 1e-3,
        "{}",
        p.host_memory_bw.as_gbps()
    );
    assert!((p.inter_socket_bw.as_gbps() - 256.0).abs() < 1e-9);
    assert!((p.shm_cross_socket_step_cost.as_us_f64() - 0.4).abs() < 1e-9);
    assert!((p.shm_read_efficiency.expect("set") - 0.5384).abs() < 1e-12);
    assert!(a.fitted["shm_read_efficiency"].rows.contains("lines 189 and 193"));
    assert_eq!(a.host.as_ref().expect("[host]").sockets, 2);
    let b = hardware_from_preset(B4).unwrap();
    assert!((b.params.host_memory_bw.as_gbps() - 322.56).abs() < 1e-3);
    assert!((b.params.shm_read_efficiency.expect("set") - 0.3041).abs() < 1e-12);
    assert!(b.fitted["shm_read_efficiency"].rows.contains("line 209"));
    assert_eq!(b.host.as_ref().expect("[host]").sockets, 1);
    assert_eq!((a.gpu.pcie_gen, b.gpu.pcie_gen), (5, 5));
}

/// Consistency, not accuracy: the fitted pairs reproduce their rows. Box A, lines 189 and 193 (GPUs
/// 0,1 and 2,3, 256 MiB in 9398.75 and 9207.80 µs): one receiver per root port reads at 0.5384 × 53.6 =
/// 28.86 GB/s → 9317 µs (−0.9 %, +1.2 %). Box B, line 209 (16464.98 µs): 0.3041 × 53.6 = 16.30 GB/s →
/// 16484 µs (+0.1 %). Tolerance 2 %.
#[test]
fn the_fitted_pairs_reproduce_their_rows() {
    let a = times(A4, "nccl", "2", &[MIB256], &[])[0];
    for line in [189, 193] {
        let m = measured(line, "2");
        assert!((a / m - 1.0).abs() < 0.02, "{a} µs vs line {line}: {m}");
    }
    let b = times(B4, "nccl", "2", &[MIB256], &[])[0];
    let m = measured(209, "2");
    assert!((b / m - 1.0).abs() < 0.02, "{b} µs vs line 209: {m}");
}

/// Box A out of configuration. All four GPUs (line 205: 15743.23 µs) → 13969 µs, 11 % fast: within the
/// 15 % target. The pairs across sockets (lines 197 and 201: 12072.72 and 12074.64 µs, busbw 22.2 GB/s
/// against 28.8 on one socket) → 9318 µs, 23 % fast: `[host]` charges the crossing only its flag step
/// and the xGMI capacity (4 × 64 GB/s, which 28.9 GB/s of stores do not fill), and these rows show a
/// 22 % cost that no host fact gives yet. The test pins that gap as it stands: fast by 15–30 %.
#[test]
fn box_a_four_gpus_are_predicted_and_the_socket_crossing_is_not() {
    let four = times(A4, "nccl", "4", &[MIB256], &[])[0];
    let m = measured(205, "4");
    assert!((four / m - 1.0).abs() < 0.15, "{four} µs vs line 205: {m}");
    let cross = times(A_CROSS, "nccl", "2", &[MIB256], &[])[0];
    for line in [197, 201] {
        let err = 1.0 - cross / measured(line, "2");
        assert!(
            (0.15..0.30).contains(&err),
            "{cross} µs: {:.1} % fast vs line {line}",
            err * 100.0
        );
    }
}

/// Box B out of configuration: the other pairs (lines 213, 217, 221: 18539.01, 18587.14, 17744.49 µs,
/// across NUMA quadrants, which tpsim does not model) → 16484 µs (−11.1 %, −11.3 %, −7.1 %); all four
/// (line 225: 22560.10 µs) → 24718 µs (+9.6 %). Tolerance 15 %.
#[test]
fn box_b_other_pairs_and_four_gpus_are_predicted() {
    let pair = times(B4, "nccl", "2", &[MIB256], &[])[0];
    for line in [213, 217, 221] {
        let m = measured(line, "2");
        assert!((pair / m - 1.0).abs() < 0.15, "{pair} µs vs line {line}: {m}");
    }
    let four = times(B4, "nccl", "4", &[MIB256], &[])[0];
    let m = measured(225, "4");
    assert!((four / m - 1.0).abs() < 0.15, "{four} µs vs line 225: {m}");
}
