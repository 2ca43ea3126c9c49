//! Issue #19 done-when (the 4× V100 PLX rows): the Gen3 x16 link of a box behind a PLX Gen3 switch
//! carries a measured Gen3 figure (`pcie_gen3_x16_bw`, tests/data/pcie-p2p.tsv) instead of half of
//! the Gen4 one. The V100 preset is the only one that sets it; every other preset keeps the derived
//! half of Gen4, so no other system's prediction moves.
//!
//! Validation, not consistency: the Gen3 figure comes from another box (NVIDIA/nccl issue 44, two
//! Maxwell GTX Titan X under one 80-lane PLX Gen3 switch), not from allreduce.tsv lines 81–92.

use crate::common::*;
use tpsim_model::units::Bandwidth;

const V100: &str = "v100-4x-plx";

/// The measured per-direction Gen3 P2P figure of pcie-p2p.tsv line 2 (GB/s), after checking the row
/// against its own time: 10,000,000 B in 886 µs.
fn measured_gen3_gbps() -> f64 {
    let t = read_tsv(&data_path("pcie-p2p.tsv"));
    let row = t.rows.iter().find(|r| r.line == 2).expect("pcie-p2p.tsv line 2");
    assert_eq!(row.get(t.col("quantity")), "p2p_bw_per_direction");
    assert_eq!(row.get(t.col("pcie_gen")), "3");
    assert!(row.get(t.col("topology")).contains("one 80-lane PLX Gen3 switch"));
    let v: f64 = row.get(t.col("value")).parse().expect("a number");
    // The source prints busbw 11.28 for 0.886 ms: 1e7 B / 886e-6 s = 11.287 GB/s. The printed
    // figure rounds the time (3 digits); within 0.1 %.
    let from_time = 1e7 / 886e-6 / 1e9;
    assert!((v - from_time).abs() / from_time < 1e-3, "{v} vs {from_time:.3}");
    v
}

#[test]
fn v100_plx_gen3_link_is_the_measured_figure() {
    let v = measured_gen3_gbps();
    let hw = tpsim::scenario::hardware_from_preset(V100).unwrap();
    assert_eq!(hw.params.pcie_gen3_x16_bw, Bandwidth::from_gbps(v));
    // The GPU links of the box (Gen3 x16) carry it: 11.28e9 B/s each way, exact (no scaling).
    let fab = tpsim::fabric::Fabric::new(&hw);
    for g in 0..4 {
        for name in [format!("GPU{g}→switch0"), format!("switch0→GPU{g}")] {
            let l = fab
                .net
                .links()
                .iter()
                .find(|l| l.name == name)
                .unwrap_or_else(|| panic!("no link {name}"));
            // Integer bytes per second: equal to within 1 B/s.
            assert!(
                (l.capacity_bps - v * 1e9).abs() < 1.0,
                "{name}: {}",
                l.capacity_bps
            );
        }
    }
}

#[test]
fn presets_without_a_measured_gen3_figure_keep_half_of_gen4() {
    // Nothing else moves: every other bundled preset leaves the key unset, so its Gen3 links (the
    // kalavai Xeon host's, for one) stay at half of Gen4: 24.4 / 2 = 12.2 GB/s.
    for name in tpsim::presets::names("hardware") {
        let hw = tpsim::scenario::hardware_from_preset(name).unwrap();
        if name == V100 {
            continue;
        }
        assert_eq!(hw.params.pcie_gen3_x16_bw, None, "{name}");
    }
    let hw = tpsim::scenario::hardware_from_preset("rtx-4090-4x-kalavai-xeon").unwrap();
    assert_eq!(hw.gpu.pcie_gen, 3);
    let fab = tpsim::fabric::Fabric::new(&hw);
    let up = fab
        .net
        .links()
        .iter()
        .find(|l| l.name.starts_with("GPU0→"))
        .expect("GPU0's uplink");
    assert!(
        (up.capacity_bps - 12.2e9).abs() < 1.0,
        "{}: {}",
        up.name,
        up.capacity_bps
    );
}

#[test]
fn validation_v100_push_384k_from_the_gen3_figure() {
    // allreduce.tsv line 92: one-shot push, 4 V100s under one PLX switch, 384 KB (393,216 B) in
    // 120.3 µs. By hand from the preset: each GPU writes its buffer to 3 peers over its own Gen3 link
    // (3 × 393,216 B = 1,179,648 B at 11.28 GB/s = 104.58 µs, the three flows sharing the uplink and
    // each peer's downlink taking three), plus three one-way flag/data latencies on the same-switch
    // path (start barrier, the writes' last byte, end barrier): 3 × 2 × 0.34 µs = 2.04 µs, plus the
    // per-kernel gap of the CUDA graph the source timed it in (pcieck: `kernel_overhead`, the
    // template's assumed 2 µs). Total 108.62 µs (106.62 before pcieck, 98.73 with the derived
    // 12.2 GB/s): −9.7 % against the measurement, inside the 15 % target of issue #3.
    let hand = 3.0 * 393_216.0 / 11.28e3 + 3.0 * 0.68 + 2.0;
    let t = times(V100, "custom-push", "4", &[393_216], &[])[0];
    assert!((t - hand).abs() < 0.01, "predicted {t:.3} µs vs hand {hand:.3}");
    let err = (t - 120.3) / 120.3;
    assert!(err.abs() <= 0.15, "{:.1} % vs line 92", err * 100.0);
}
