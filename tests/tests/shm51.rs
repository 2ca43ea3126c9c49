//! shm51 (issue #19 point 1): box B's link rate from its own measurement. The Syncopate box B preset
//! (`rtx-5090-4x-syncopate-epyc-9b14`, allreduce.tsv lines 206–225) took its ports as Gen5 x16 from the
//! source's hardware profile, whose PCIe line is box A's word for word (shm50). The same source measured
//! GPU 0's copies to and from pinned host memory on box B (tests/data/pcie-p2p.tsv lines 6–7,
//! `logs/b4/pd_bw.json` at 76829df): 28.24 / 28.67 GB/s, a 16 GT/s x16 link's rate, not Gen5 x16's. The
//! preset now runs its GPUs at Gen4 x16 and its read fraction is re-expressed over that port.

use crate::common::*;
use tpsim::scenario::hardware_from_preset;

const B4: &str = "rtx-5090-4x-syncopate-epyc-9b14";
const MIB256: u64 = 256 << 20;

/// The pinned-copy rate of pcie-p2p.tsv `line` (GB/s), after checking it is box B's GPU 0 and that the
/// value is the json's GiB/s figure × 2³⁰ / 10⁹ (`gib`: 26.3 for H2D, 26.7 for D2H; the json prints one
/// decimal, so within 0.2 %).
fn box_b_copy(line: usize, quantity: &str, gib: f64) -> f64 {
    let t = read_tsv(&data_path("pcie-p2p.tsv"));
    let row = t.rows.iter().find(|r| r.line == line).expect("pcie-p2p.tsv row");
    assert_eq!(row.get(t.col("quantity")), quantity, "line {line}");
    assert_eq!(row.get(t.col("device")), "GeForce RTX 5090", "line {line}");
    assert!(
        row.get(t.col("topology")).starts_with("Syncopate box B"),
        "line {line}"
    );
    let v: f64 = row.get(t.col("value")).parse().expect("a number");
    let from_json = gib * 1.073_741_824;
    assert!(
        (v / from_json - 1.0).abs() < 2e-3,
        "line {line}: {v} vs {from_json}"
    );
    v
}

/// The link rate, by hand. A 16 GT/s x16 link signals 16e9 × 16 × 128/130 ÷ 8 = 31.51 GB/s a direction
/// (PCIe 4.0: 128b/130b encoding); box B's GPU 0 copies at 28.24 (H2D) and 28.67 (D2H) GB/s, 0.896 and
/// 0.910 of it, and at 0.527 / 0.535 of tpsim's Gen5 x16 figure (53.6 GB/s). Box A's lone SHM reader
/// (shm-collectives.tsv line 12, broadcast one way) loads host memory at 50.99 GB/s on a Gen5 x16 root
/// port: a copy engine at Gen5 x16 would not run at 0.55 of that. So the preset's GPUs are Gen4 x16
/// (`[gpu] pcie_gen = 4`; a Gen5 link at x8 has the same rate, which the source cannot separate), and
/// the fraction fitted on line 209 (busbw 16.303 GB/s) is 16.30 / 24.4 = 0.6680 of the template's Gen4
/// x16 figure (was 16.30 / 53.6 = 0.3041): the same 16.30 GB/s per receiving port. Tolerances: the
/// printed digits (1e-3) and the preset's 4-digit fraction of the printed busbw (5e-5; 2e-4 against the
/// busbw from the row's time).
#[test]
fn box_b_copies_at_a_gen4_x16_rate_and_its_fraction_is_of_that_port() {
    let h2d = box_b_copy(6, "h2d_pinned_bw", 26.3);
    let d2h = box_b_copy(7, "d2h_pinned_bw", 26.7);
    let gen4_signal: f64 = 16e9 * 16.0 * 128.0 / 130.0 / 8.0 / 1e9;
    assert!((gen4_signal - 31.5077).abs() < 1e-3, "{gen4_signal}");
    for (v, want) in [(h2d, 0.896), (d2h, 0.910)] {
        assert!((v / gen4_signal - want).abs() < 1e-3, "{v}: {}", v / gen4_signal);
        assert!((v / 53.6) < 0.54, "{v} is not a Gen5 x16 rate");
    }
    let tsv = std::fs::read_to_string(data_path("shm-collectives.tsv")).expect("table");
    let c: Vec<&str> = tsv.lines().nth(11).expect("line 12").split('\t').collect();
    assert!(
        c[3].starts_with("Syncopate box A") && c[4] == "broadcast",
        "line 12"
    );
    let box_a_one_way: f64 = c[9].parse().expect("busbw");
    assert!((box_a_one_way - 50.99).abs() < 1e-9);
    assert!(h2d < 0.56 * box_a_one_way, "{h2d} vs {box_a_one_way}");

    let b = hardware_from_preset(B4).expect("preset");
    assert_eq!((b.gpu.pcie_gen, b.gpu.pcie_width), (4, 16));
    let gen4 = b.params.pcie_gen4_x16_bw.as_gbps();
    assert!((gen4 - 24.4).abs() < 1e-9, "{gen4}");
    let (_, n, size, us) = allreduce_row(209);
    assert_eq!((n.as_str(), size), ("2", MIB256));
    let busbw = size as f64 / us / 1e3;
    assert!((busbw - 16.303).abs() < 1e-3, "{busbw}");
    let eff = b.params.shm_read_efficiency.expect("fitted");
    assert!((eff - 0.6680).abs() < 1e-12, "{eff}");
    // the preset divides the printed busbw (16.30) and keeps 4 digits: (16.3035 − 16.30) / 24.4 =
    // 1.4e-4 plus the rounding (3e-5) from the time-derived figure
    assert!((eff - busbw / gen4).abs() < 2e-4, "{eff} vs {}", busbw / gen4);
    assert!((eff - 16.30 / gen4).abs() < 5e-5, "{eff}");
    assert!(
        (eff * gen4 - 0.3041 * 53.6).abs() < 0.01,
        "the same port rate as before"
    );
    assert!(b.fitted["shm_read_efficiency"].rows.contains("16.30 / 24.4"));
}

/// Where box B's fraction now sits among the SHM hosts' presets: 0.6680 lies between charlie0129's 0.6068
/// and PR 2080's 0.6869 (with AutoDL's 0.6557), where the Gen5 reading (0.3041) put it below all of them.
/// The fractions are the presets' own (exact).
#[test]
fn box_b_joins_the_hosts_that_read_at_about_two_thirds_of_their_port() {
    let eff = |p: &str| {
        hardware_from_preset(p)
            .expect("preset")
            .params
            .shm_read_efficiency
            .expect("an SHM host preset")
    };
    let b = eff(B4);
    let charlie = eff("rtx-4090-8x-epyc-7542-shm");
    let autodl = eff("rtx-2080-ti-2x-autodl-xeon-shm");
    let pr2080 = eff("rtx-pro-6000-4x-turin-same-numa-shm");
    assert!(
        (charlie - 0.6068).abs() < 1e-12 && (pr2080 - 0.6869).abs() < 1e-12,
        "{charlie} {pr2080}"
    );
    assert!((autodl - 0.6557).abs() < 1e-12, "{autodl}");
    assert!(charlie < b && b < pr2080, "{charlie} < {b} < {pr2080}");
    for other in [
        "rtx-4090-4x-kalavai-xeon",
        "a100-sxm4-80gb-4x-dgx-a100-shm",
        "rtx-5090-4x-syncopate-epyc-9v74",
    ] {
        assert!(eff(other) < b, "{other}");
    }
}
