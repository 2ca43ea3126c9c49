//! Issue #19 point 1 (more SHM hosts): two more hosts over NCCL's SHM transport, 4× GeForce RTX 5090 on
//! the stock driver, each GPU on its own root port (tests/data/allreduce.tsv lines 186–225, the public
//! Syncopate probe: torch.distributed all_reduce of 1–256 MiB): Gen5 x16 on box A, Gen4 x16 rate on box B
//! (shm51: its GPU 0's pinned copies, the preset's `[gpu]`). Box A is 2× EPYC 9V74 with GPUs
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
    assert!((b.params.shm_read_efficiency.expect("set") - 0.6680).abs() < 1e-12);
    assert!(b.fitted["shm_read_efficiency"].rows.contains("line 209"));
    assert_eq!(b.host.as_ref().expect("[host]").sockets, 1);
    // shm51: box B's links run at Gen4 x16 rate (H2D 28.24 GB/s on GPU 0, logs/b4/pd_bw.json).
    assert_eq!((a.gpu.pcie_gen, b.gpu.pcie_gen), (5, 4));
}

/// Consistency, not accuracy: the fitted pairs reproduce their rows. Box A, lines 189 and 193 (GPUs
/// 0,1 and 2,3, 256 MiB in 9398.75 and 9207.80 µs): one receiver per root port reads at 0.5384 × 53.6 =
/// 28.86 GB/s → 9317 µs (−0.9 %, +1.2 %). Box B, line 209 (16464.98 µs): 0.6680 × 24.4 = 16.30 GB/s
/// (shm51: the Gen4 x16 port; 0.3041 × 53.6 before, the same rate) → 16484 µs (+0.1 %). Tolerance 2 %.
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

/// shm50 (issue #19 point 1): box A's other collectives. One row of tests/data/shm-collectives.tsv
/// lines 9–20 (the Syncopate probe `scripts/probe_collective_bw.py` at 6c0be55, the same box and day as
/// allreduce.tsv lines 186–205): (collective, n_gpus, each connection's GB/s). Every row moves 256 MiB
/// (268435456 B); each ring connection carries busbw (2 ranks: all_reduce and broadcast busbw = size /
/// time, all_gather and reduce_scatter 0.5 × size / time; 4 ranks: all_reduce 1.5 ×, all_gather and
/// reduce_scatter 0.75 ×, the ring broadcast 1 ×), which is checked against the
/// row's time (the json's figures printed to 2 decimals: within 0.5 %).
fn box_a_collective(line: usize) -> (String, String, f64) {
    let tsv = std::fs::read_to_string(data_path("shm-collectives.tsv")).expect("table");
    let l = tsv.lines().nth(line - 1).expect("line");
    let c: Vec<&str> = l.split('\t').collect();
    assert_eq!((c[1], c[6]), ("GeForce RTX 5090", "268435456"), "line {line}");
    assert!(c[3].starts_with("Syncopate box A"), "line {line}");
    let (coll, n) = (c[4].to_string(), c[2].to_string());
    let us: f64 = c[7].parse().expect("time_us");
    let busbw: f64 = c[9].parse().expect("busbw");
    let factor = match (coll.as_str(), n.as_str()) {
        ("all_reduce", "4") => 1.5,
        ("all_gather" | "reduce_scatter", "4") => 0.75,
        ("all_gather" | "reduce_scatter", "2") => 0.5,
        ("all_reduce" | "broadcast", "2") | ("broadcast", "4") => 1.0,
        other => panic!("line {line}: {other:?}"),
    };
    let from_time = factor * MIB256 as f64 / us / 1e3;
    assert!(
        (busbw / from_time - 1.0).abs() < 5e-3,
        "line {line}: {busbw} vs {from_time}"
    );
    (coll, n, busbw)
}

/// The per-collective probe ran on the box of allreduce.tsv lines 186–205: its all_reduce rows (lines 9,
/// 13, 17: 9526.58, 12062.61, 15554.28 µs) repeat lines 189, 197 and 205 (9398.75, 12072.72, 15743.23)
/// within 1.5 % (+1.4, −0.1, −1.2 %).
#[test]
fn box_a_collective_probe_repeats_its_allreduce_rows() {
    for (line, ar_line, n) in [(9, 189, "2"), (13, 197, "2"), (17, 205, "4")] {
        let (coll, gpus, _) = box_a_collective(line);
        assert_eq!((coll.as_str(), gpus.as_str()), ("all_reduce", n));
        let tsv = std::fs::read_to_string(data_path("shm-collectives.tsv")).unwrap();
        let us: f64 = tsv
            .lines()
            .nth(line - 1)
            .unwrap()
            .split('\t')
            .nth(7)
            .unwrap()
            .parse()
            .unwrap();
        let m = measured(ar_line, n);
        assert!(
            (us / m - 1.0).abs() < 0.015,
            "line {line}: {us} vs {ar_line}: {m}"
        );
    }
}

/// The one-way read is at the port on both hosts that have one. Box A's broadcast (line 12: GPU 0 only
/// writes into host memory, GPU 1 only reads it) moves 50.99 GB/s: 50.99 / 53.6 = 0.951 of GPU 1's Gen5
/// x16 root port; the AutoDL pair's (line 6) 11.09 / 12.2 = 0.909 of its Gen3 x16 uplink. Two-way, box A
/// moves 28.18 GB/s a connection (line 9, all_reduce: 0.526 of the port; the preset's fitted 0.5384 ×
/// 53.6 = 28.86, tpsim's Ring/Simple 28.81), 1.81× slower than one way; AutoDL 2.77× (the test above in
/// shm_host_autodl). So the lone reader's rate does not separate the hosts: both read at 0.91–0.95 of
/// their port, and the fitted fraction's spread is the two-way slowdown, which differs between the two
/// hosts (1.81× a connection here, 1.39× a shared uplink there). Tolerances: printed digits.
#[test]
fn box_a_one_way_reads_run_at_the_port_as_autodls_do() {
    let (c, n, one_way) = box_a_collective(12);
    assert_eq!((c.as_str(), n.as_str()), ("broadcast", "2"));
    let (c, _, two_way) = box_a_collective(9);
    assert_eq!(c, "all_reduce");
    let port = 53.6;
    assert!((one_way / port - 0.951).abs() < 1e-3, "{}", one_way / port);
    let autodl: f64 = 11.09 / 12.2;
    assert!((autodl - 0.909).abs() < 1e-3);
    for f in [one_way / port, autodl] {
        assert!((0.90..0.96).contains(&f), "{f}");
    }
    assert!((one_way / two_way - 1.81).abs() < 5e-3, "{}", one_way / two_way);
    let pred = times(A4, "nccl", "2", &[MIB256], &[])[0];
    let pred_rate = MIB256 as f64 / pred / 1e3;
    assert!((pred_rate / (0.5384 * port) - 1.0).abs() < 5e-3, "{pred_rate}");
}

/// On box A each GPU moves the same SHM bytes (stores into host memory plus loads from it) whether it
/// only writes, only reads, or does both: per GPU at 256 MiB, broadcast 50.99 GB/s one way (line 12),
/// all_gather 2 × 25.51 = 51.02 (line 10), reduce_scatter 2 × 25.42 = 50.84 (line 11): within 0.5 %;
/// all_reduce 2 × 28.18 = 56.36 (line 9, its two phases overlapped), 10.5 % more. The AutoDL pair, whose
/// GPUs share a switch uplink, does not follow it: broadcast 11.09 against all_gather 2 × 3.79 = 7.58 and
/// all_reduce 2 × 4.00 = 8.00 (shm-collectives.tsv lines 5–6, allreduce.tsv line 257): 0.68 and 0.72.
/// A budget on a GPU's SHM loads plus stores would fit box A alone; it is recorded, not modelled.
#[test]
fn box_a_moves_the_same_shm_bytes_per_gpu_one_way_and_two_way() {
    let bcast = box_a_collective(12).2;
    let ag = 2.0 * box_a_collective(10).2;
    let rs = 2.0 * box_a_collective(11).2;
    let ar = 2.0 * box_a_collective(9).2;
    for v in [ag, rs] {
        assert!((v / bcast - 1.0).abs() < 5e-3, "{v} vs {bcast}");
    }
    assert!((ar / bcast - 1.105).abs() < 5e-3, "{}", ar / bcast);
    for two_way in [2.0 * 3.79, 2.0 * 4.00] {
        assert!(two_way / 11.09 < 0.75, "{two_way}");
    }
}

/// Crossing sockets (GPUs 0,2 against 0,1) costs box A's collectives unevenly: broadcast 46.39 against
/// 50.99 GB/s (lines 16, 12: −9.0 %), all_gather 25.08 against 25.51 (lines 14, 10: −1.7 %),
/// reduce_scatter 19.73 against 25.42 (lines 15, 11: −22.4 %), all_reduce 22.25 against 28.18 (lines 13,
/// 9: −21.0 %). The copies cross almost free, the reductions lose a fifth. tpsim charges the crossing its
/// flag step and the xGMI capacity only: its all_gather on the two presets (GPUs 0,1 of
/// rtx-5090-4x-syncopate-epyc-9v74; the cross-socket preset) comes out 4666.33 and 4666.73 µs, a ratio
/// of 1.000 against the measured 0.983 (within 2 %), and its all_reduce 9317.27 and 9317.67 µs, 1.000
/// against 0.790. So box A's cross-socket all_reduce miss (lines 194–201, −23 %) sits in the
/// reduction, which moves the same bytes as the all_gather. Against the measured times tpsim's all_gather
/// is fast by 11.3 % (one socket, 5262.34 µs) and 12.8 % (across, 5350.71 µs), like its all_reduce on
/// the same rows (the preset's fraction is fitted on all_reduce, which runs 10 % above all_gather here),
/// and by 1.4 % on four GPUs (line 18: 7090.99 against 6992.20 µs). Tolerances: printed digits, and the
/// prediction's ratios to 1e-3.
#[test]
fn box_a_crossing_sockets_costs_the_reductions_not_the_copies() {
    let ratio = |cross: usize, same: usize| box_a_collective(cross).2 / box_a_collective(same).2;
    let measured_ratios = [ratio(16, 12), ratio(14, 10), ratio(15, 11), ratio(13, 9)];
    for (m, want) in measured_ratios.iter().zip([0.910, 0.983, 0.776, 0.790]) {
        assert!((m - want).abs() < 2e-3, "{m} vs {want}");
    }
    let ag = |p: &str| times(p, "nccl", "2", &[MIB256], &["--op", "allgather"])[0];
    let (ag_same, ag_cross) = (ag(A4), ag(A_CROSS));
    let ar_same = times(A4, "nccl", "2", &[MIB256], &[])[0];
    let ar_cross = times(A_CROSS, "nccl", "2", &[MIB256], &[])[0];
    assert!((ag_same / ag_cross - 1.0).abs() < 1e-3);
    assert!((ar_same / ar_cross - 1.0).abs() < 1e-3);
    // the model's crossing ratio (1.000) against the copies (0.983) and the reductions (0.790)
    assert!((ag_same / ag_cross - measured_ratios[1]).abs() < 0.02);
    assert!((ar_same / ar_cross - measured_ratios[3]).abs() > 0.15);
    let tsv = std::fs::read_to_string(data_path("shm-collectives.tsv")).unwrap();
    let us = |line: usize| -> f64 {
        tsv.lines()
            .nth(line - 1)
            .unwrap()
            .split('\t')
            .nth(7)
            .unwrap()
            .parse()
            .unwrap()
    };
    for (pred, line, err) in [(ag_same, 10, -0.113), (ag_cross, 14, -0.128)] {
        let e = pred / us(line) - 1.0;
        assert!((e - err).abs() < 2e-3, "line {line}: {pred} µs, {e:+.4}");
    }
    let four = times(A4, "nccl", "4", &[MIB256], &["--op", "allgather"])[0];
    assert_eq!(box_a_collective(18).0, "all_gather");
    let e = four / us(18) - 1.0;
    assert!((e + 0.014).abs() < 2e-3, "{four} µs, {e:+.4}");
}
