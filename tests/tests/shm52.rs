//! Issue #19 (shm52): the read fraction a host without its own SHM figure gets, and the host facts
//! tried against the measured hosts' fractions.
//!
//! 1. `MEDIAN_SHM_READ_EFFICIENCY` (sim/src/import_topo/host.rs) is the median of the eight measured
//!    SHM hosts' own fractions, each read here from its preset's `[fitted]` value (shm51 moved box B to
//!    0.6680 of its Gen4 x16 port), and the eight no-P2P presets without rows of their own carry it.
//! 2. No `[host]` fact orders the seven hosts of `tests/data/allreduce.tsv`: the Spearman rank
//!    correlation of each fact with the fractions stays below the 5 % two-sided critical value for seven
//!    pairs (0.786: J. H. Zar, "Significance testing of the Spearman rank correlation coefficient",
//!    JASA 67 (1972) 578-580, table 1, n = 7), so crossval's held-out host gets the median, not a fact.

use crate::common::*;
use tpsim::import_topo::host::MEDIAN_SHM_READ_EFFICIENCY;
use tpsim::scenario::hardware_from_preset;

/// The seven SHM hosts of the allreduce table, each with its preset and its fitted rows (the
/// presets' `[fitted.shm_read_efficiency]`), in the order of their fractions.
const HOSTS: [(&str, &str); 7] = [
    ("rtx-4090-4x-kalavai-xeon", "lines 70-79"),
    ("a100-sxm4-80gb-4x-dgx-a100-shm", "lines 226-229"),
    ("rtx-5090-4x-syncopate-epyc-9v74", "lines 189, 193"),
    ("rtx-4090-8x-epyc-7542-shm", "lines 279-282"),
    ("rtx-2080-ti-2x-autodl-xeon-shm", "lines 251-257"),
    ("rtx-5090-4x-syncopate-epyc-9b14", "line 209"),
    ("rtx-pro-6000-4x-turin-same-numa-shm", "lines 323-324"),
];

/// The ASUS ESC8000A-E13P box, outside the table: busbw 30.3 GB/s over SHM with one receiver per
/// Gen5 x16 partition uplink of 53.6 GB/s (rtx6kpro hardware/asus-esc8000a-e13p-broadcom-switches.md;
/// the crossval prior of calibrate/crossval/allreduce-systems.toml): 30.3 / 53.6 = 0.5653, entered as 0.565.
const ASUS: f64 = 0.565;

/// The no-P2P presets that borrow the median (no row of their own).
const BORROWERS: [&str; 10] = [
    "rtx-3090-ti-4x-epyc-rome",
    "rtx-5090-2x-no-p2p",
    "rtx-5090-4x-no-p2p",
    "rtx-5090-8x-no-p2p",
    "rtx-3090-2x-ryzen-5900x",
    "rtx-4090-4x-no-p2p",
    "rtx-4090-8x-no-p2p",
    "rtx-4090-48gb-4x-no-p2p",
    // deploys26 (merged beside shm52): the i9-9900K box of er0080/vllm-benchmarking.
    "rtx-3090-2x-i9-9900k-gen3x8",
    // deploys36: club-3090 @paulp83's Ryzen 9 9950X3D box (issues 851 / 858).
    "rtx-5090-2x-ryzen-9950x3d-gen5x8",
];

fn fraction(preset: &str) -> f64 {
    let hw = hardware_from_preset(preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
    hw.params
        .shm_read_efficiency
        .unwrap_or_else(|| panic!("{preset}: no shm_read_efficiency"))
}

/// The fractions, sorted: 0.3607 kalavai, 0.4262 DGX, 0.5384 box A, 0.565 ASUS, 0.6068 charlie0129,
/// 0.6557 AutoDL, 0.6680 box B, 0.6869 PR 2080; eight values, so the median is the mean of the 4th and
/// 5th: (0.565 + 0.6068) / 2 = 0.5859. Before shm52 the constant was 0.4496 (four hosts, box B at its
/// old 0.3041 of a Gen5 port). Exact to 1e-12 (the presets carry four decimals).
#[test]
fn the_median_is_that_of_the_eight_measured_hosts_and_the_borrowers_carry_it() {
    let mut v: Vec<f64> = HOSTS.iter().map(|(p, _)| fraction(p)).collect();
    let want = [0.3607, 0.4262, 0.5384, 0.6068, 0.6557, 0.6680, 0.6869];
    for ((got, want), (p, rows)) in v.iter().zip(want).zip(HOSTS) {
        assert!((got - want).abs() < 1e-12, "{p} ({rows}): {got}");
    }
    v.push(ASUS);
    v.sort_by(f64::total_cmp);
    let median = (v[3] + v[4]) / 2.0;
    assert!((median - 0.5859).abs() < 1e-12, "{median}");
    assert!((MEDIAN_SHM_READ_EFFICIENCY - 0.5859).abs() < 1e-12);
    for p in BORROWERS {
        assert!((fraction(p) - MEDIAN_SHM_READ_EFFICIENCY).abs() < 1e-12, "{p}");
    }
    // The span the warning states: 0.3607 / 0.5859 = 0.616 (-38 %), 0.6869 / 0.5859 = 1.172 (+17 %).
    assert!((v[0] / median - 0.616).abs() < 0.001 && (v[7] / median - 1.172).abs() < 0.001);
}

/// `tpsim import-topo` without `--shm-read-efficiency` writes the median and says so, with the span
/// (the matrix: `tpsim topo` of rtx-pro-6000-4x-turin-same-numa-shm, as tests/tests/import_topo_host.rs).
#[test]
fn import_topo_writes_the_median_and_its_span() {
    let dir = scratch("shm52-import");
    let topo = tpsim(&["topo", "--hardware", "rtx-pro-6000-4x-turin-same-numa-shm"]);
    assert_eq!(topo.code, 0, "{}", topo.stderr);
    let m = dir.join("m.txt");
    std::fs::write(&m, &topo.stdout).unwrap();
    let o = tpsim(&[
        "import-topo",
        "--gpu",
        "rtx-pro-6000-server",
        "--cpu-vendor",
        "amd",
        "--cpu-model",
        "AMD EPYC 9575F",
        "--sockets",
        "2",
        m.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("shm_read_efficiency = 0.5859 "), "{}", o.stdout);
    assert!(
        o.stderr.contains(
            "note: shm_read_efficiency = 0.5859: the median of the eight measured SHM hosts (they span 0.36-0.69; an assumption within -38 % / +17 %)"
        ),
        "{}",
        o.stderr
    );
}

/// Spearman's rho with tied ranks averaged (Pearson's r on the ranks). Also used by shm55.
pub(crate) fn spearman(x: &[f64], y: &[f64]) -> f64 {
    let rank = |v: &[f64]| -> Vec<f64> {
        v.iter()
            .map(|a| {
                let below = v.iter().filter(|b| b.total_cmp(a).is_lt()).count() as f64;
                let equal = v.iter().filter(|b| b.total_cmp(a).is_eq()).count() as f64;
                below + (equal + 1.0) / 2.0
            })
            .collect()
    };
    let (rx, ry) = (rank(x), rank(y));
    let n = x.len() as f64;
    let (mx, my) = (rx.iter().sum::<f64>() / n, ry.iter().sum::<f64>() / n);
    let c: f64 = rx.iter().zip(&ry).map(|(a, b)| (a - mx) * (b - my)).sum();
    let vx: f64 = rx.iter().map(|a| (a - mx).powi(2)).sum();
    let vy: f64 = ry.iter().map(|b| (b - my).powi(2)).sum();
    c / (vx * vy).sqrt()
}

/// The host facts read off the presets, against the fractions (ranks 1-7 in `HOSTS` order):
/// - DRAM per socket, channels × MT/s × 8 B: 127.968 (kalavai: 6 × 2666 × 8), 204.8 (DGX), 460.8 (box A), 204.8
///   (charlie0129), 127.968 (AutoDL), 460.8 (box B), 614.4 GB/s (PR 2080): ranks 1.5 3.5 5.5 3.5 1.5 5.5 7;
///   against 1..7 (mean 4): Σ dx·dy = 7.5 + 1 − 1.5 + 0 − 2.5 + 3 + 9 = 16.5, Σ dx² = 26.5, Σ dy² = 28:
///   rho = 16.5 / √(26.5 × 28) = 0.606. The CPU generation (Xeon Scalable 1st/2nd, Zen 2, Zen 4, Zen 5)
///   ranks the hosts the same way.
/// - The port's PCIe generation (the GPU link's, switch uplinks the same): 3 4 5 4 3 4 5: ranks 1.5 4
///   6.5 4 1.5 4 6.5: Σ dx·dy = 10, Σ dx² = 25: rho = 10 / √(25 × 28) = 0.378.
/// - Sockets: 2 2 2 2 2 1 2: ranks 4.5 ×6, 1: Σ dx·dy = −7, Σ dx² = 10.5: rho = −0.408.
/// - DRAM of the receiver's NUMA node (per socket ÷ `numa_nodes_per_socket`: charlie0129 and box B are
///   NPS4): 127.968 204.8 460.8 51.2 127.968 115.2 614.4: rho = 0.072.
/// - Receivers per parent port in the fitted rows (the presets' topologies: two per switch uplink on
///   kalavai, DGX and AutoDL, one per root port elsewhere), fewer first: rho = 14 / √(21 × 28) = 0.577.
///
/// Each is below 0.786, the critical value for seven pairs, and the within-fact spread is wide: the two
/// Xeon hosts with the same derived facts read at 0.36 and 0.66, the two Zen 2 hosts at 0.43 and 0.61.
/// Tolerance 0.001 on each rho (the presets' facts are integers; the fractions only enter by rank).
#[test]
fn no_host_fact_orders_the_seven_hosts_read_fractions() {
    let hws: Vec<_> = HOSTS
        .iter()
        .map(|(p, _)| hardware_from_preset(p).unwrap_or_else(|e| panic!("{p}: {e}")))
        .collect();
    let frac: Vec<f64> = HOSTS.iter().map(|(p, _)| fraction(p)).collect();
    let host = |i: usize| {
        hws[i]
            .host
            .as_ref()
            .unwrap_or_else(|| panic!("{}: [host]", HOSTS[i].0))
    };
    let per_socket: Vec<f64> = (0..7)
        .map(|i| host(i).memory_channels as f64 * host(i).dimm_mts as f64 * 8.0 / 1e3)
        .collect();
    let want = [127.968, 204.8, 460.8, 204.8, 127.968, 460.8, 614.4];
    for (i, (g, w)) in per_socket.iter().zip(want).enumerate() {
        assert!((g - w).abs() < 1e-9, "{}: {g}", HOSTS[i].0);
    }
    // NUMA nodes per socket: box B's preset says NPS4; charlie0129's source says NPS4 too (its preset's
    // cpu_model line), which its preset does not model (one GPU per node, no shared node DRAM).
    let nps: Vec<u32> = (0..7).map(|i| host(i).numa_nodes_per_socket).collect();
    assert_eq!(nps, [1, 1, 1, 1, 1, 4, 1]);
    assert!(host(3).cpu_model.contains("NPS4"));
    let per_node: Vec<f64> = (0..7)
        .map(|i| per_socket[i] / if i == 3 { 4.0 } else { nps[i] as f64 })
        .collect();
    let sockets: Vec<f64> = (0..7).map(|i| host(i).sockets as f64).collect();
    let pcie_gen: Vec<f64> = hws.iter().map(|h| h.gpu.pcie_gen as f64).collect();
    assert_eq!(pcie_gen, [3.0, 4.0, 5.0, 4.0, 3.0, 4.0, 5.0]);
    let fewer_receivers = [-2.0, -2.0, -1.0, -1.0, -2.0, -1.0, -1.0];
    let rhos = [
        ("DRAM per socket", spearman(&per_socket, &frac), 0.606),
        ("PCIe generation", spearman(&pcie_gen, &frac), 0.378),
        ("sockets", spearman(&sockets, &frac), -0.408),
        ("DRAM per NUMA node", spearman(&per_node, &frac), 0.072),
        ("receivers per port", spearman(&fewer_receivers, &frac), 0.577),
    ];
    for (fact, rho, want) in rhos {
        assert!((rho - want).abs() < 0.001, "{fact}: rho {rho:.4}, hand {want}");
        assert!(rho.abs() < 0.786, "{fact}: rho {rho:.4} orders the hosts");
    }
}
