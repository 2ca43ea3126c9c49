//! Issue #17 point 4 (consumer cards): the RTX 5090 (2×, 4×) and RTX 4090 24 GB (4×, 8×) boxes users
//! run, beside the existing 2× 4090, 4× 4090 48 GB and 8× 5090 presets. Each carries its card's
//! datasheet figures (templates/rtx-5090.toml, templates/rtx-4090.toml; NVIDIA's product pages and
//! architecture whitepapers named in the preset headers) and the stock driver's missing P2P, so NCCL
//! falls back to its SHM transport. The only SHM measurement is 2× RTX 4090 (allreduce.tsv, the
//! kalavai rows, lines 51–79); every new box reproduces it on two of its GPUs.

use crate::common::*;
use tpsim::scenario::accel::GpuVendor;
use tpsim::scenario::hardware_from_preset;

/// (preset, GPUs, memory.total MiB, PCIe generation).
const PRESETS: [(&str, usize, u64, u32); 4] = [
    ("rtx-5090-2x-no-p2p", 2, 32_607, 5),
    ("rtx-5090-4x-no-p2p", 4, 32_607, 5),
    ("rtx-4090-4x-no-p2p", 4, 24_564, 4),
    ("rtx-4090-8x-no-p2p", 8, 24_564, 4),
];

#[test]
fn consumer_presets_carry_the_datasheet_figures_and_no_p2p() {
    for (name, gpus, mib, pcie) in PRESETS {
        let hw = hardware_from_preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert_eq!(hw.topology.gpu_count(), gpus, "{name}");
        assert_eq!(hw.gpu.memory_total_mib, mib, "{name}");
        assert_eq!(hw.gpu.pcie_gen, pcie, "{name}");
        // GeForce on the stock driver: no P2P (pcie-collectives.md, "P2P support").
        assert!(!hw.gpu.p2p, "{name}");
        assert_eq!(hw.accel.vendor, GpuVendor::Nvidia, "{name}");
        // Memory bandwidth: 1792 GB/s (5090, listed 1.8 TB/s) and 1008 GB/s (4090, listed 1.0 TB/s).
        let tbs = hw.gpu.memory_bandwidth.bytes_per_s() as f64 / 1e12;
        let want = if pcie == 5 { 1.8 } else { 1.0 };
        assert!((tbs - want).abs() < 1e-9, "{name}: {tbs}");
        let o = tpsim(&["validate", "--hardware", name]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
    }
}

/// NCCL over SHM on two GPUs of each box against the 2× RTX 4090 measurement: allreduce.tsv line 68
/// (1 MiB, 538.5 µs) and line 73 (32 MiB, 15190 µs). The model gives 499.0 µs (−7.3 %) and
/// 15267 µs (+0.5 %): tolerances 10 % and 2 %. The 5090 boxes inherit the same SHM figures (assumed:
/// the host copy, not the card's link, binds — 2.2 GB/s against Gen5's 53.6 GB/s).
#[test]
fn two_gpus_of_each_box_reproduce_the_shm_measurement() {
    for (name, ..) in PRESETS {
        let t = times(name, "nccl", "2", &[1 << 20, 32 << 20], &[]);
        assert!((t[0] / 538.5 - 1.0).abs() < 0.10, "{name}: {} µs at 1 MiB", t[0]);
        assert!(
            (t[1] / 15190.0 - 1.0).abs() < 0.02,
            "{name}: {} µs at 32 MiB",
            t[1]
        );
    }
}

/// More ranks over SHM cost more: each ring step is a host copy, so 4 and 8 GPUs take longer than 2
/// at the same size (ring: 2(n − 1)/n of the data per rank, 1.0 → 1.5 → 1.75), and the 8-GPU box
/// crosses sockets (the 14 µs cross-socket SHM step of the template).
#[test]
fn more_shm_ranks_take_longer() {
    let t2 = times("rtx-4090-8x-no-p2p", "nccl", "2", &[32 << 20], &[])[0];
    let t4 = times("rtx-4090-8x-no-p2p", "nccl", "4", &[32 << 20], &[])[0];
    let t8 = times("rtx-4090-8x-no-p2p", "nccl", "8", &[32 << 20], &[])[0];
    assert!(t2 < t4 && t4 < t8, "{t2} {t4} {t8}");
    // Bandwidth-bound at 32 MiB: t4 / t2 within 10 % of 1.5 (the ring's data ratio).
    assert!((t4 / t2 / 1.5 - 1.0).abs() < 0.10, "{}", t4 / t2);
}
