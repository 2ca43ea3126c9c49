//! Crossovers between the custom one-shot allreduce and NCCL (issue #3): the message size below which
//! the custom kernel is faster, predicted by `tpsim collective` against the measured size, within a
//! factor 2.
//!
//! Both sides are found the same way: the zero of (custom − NCCL) by linear interpolation between
//! the two neighbouring sizes where the sign changes (measured: the two table rows around it;
//! predicted: a grid of quarter powers of two from 4 KiB). The luke box's crossover (allreduce.tsv)
//! and the V100 one are tested in `allreduce_data.rs`.
//!
//! Sources of the measured tables: local-inference-lab/rtx6kpro
//! `hardware/asus-esc8000a-e13p-broadcom-switches.md`, "AllReduce: Custom vs NCCL (4 GPU, fp16)",
//! measured with `p2pmark --allreduce` at commit 3c39f36 (lukealonso/p2pmark): Luke's PCIe one-shot
//! kernel — start barrier, then every rank loads the whole buffer from every peer and reduces (a
//! pull one-shot, up to 36 blocks × 512 threads), no end barrier (double-buffered flags) — against
//! `ncclAllReduce`, both replayed in CUDA graphs, on GPU0–3 of the ASUS ESC8000A-E13P (one Broadcom
//! PEX890xx chip, two partitions of 2 GPUs, ACS off).

mod common;
use common::*;

const ASUS: &str = "rtx-pro-6000-8x-asus-esc8000a-e13p";

/// Zero of (custom − NCCL) between two sizes, linear in size: `lo`/`hi` = (size, custom, nccl).
fn zero(lo: (f64, f64, f64), hi: (f64, f64, f64)) -> f64 {
    let (s0, c0, n0) = lo;
    let (s1, c1, n1) = hi;
    let (d0, d1) = (c0 - n0, c1 - n1);
    assert!(d0 < 0.0 && d1 >= 0.0, "no sign change: {lo:?} {hi:?}");
    s0 + (s1 - s0) * (-d0) / (d1 - d0)
}

/// The predicted crossover: the first grid size where custom is slower, interpolated with the one
/// before it. Panics when custom wins everywhere up to 2 GiB or loses already at 4 KiB.
fn predicted(preset: &str, custom: &str, gpus: &str, extra: &[&str]) -> f64 {
    let sizes: Vec<u64> = (0..80)
        .map(|i| ((4096.0 * 2f64.powf(i as f64 / 4.0)) as u64) / 16 * 16)
        .collect();
    let c = times(preset, custom, gpus, &sizes, extra);
    let n = times(preset, "nccl", gpus, &sizes, extra);
    let i = (0..sizes.len())
        .find(|&i| c[i] >= n[i])
        .expect("custom should lose at some size");
    assert!(i > 0, "custom loses already at the smallest size");
    zero(
        (sizes[i - 1] as f64, c[i - 1], n[i - 1]),
        (sizes[i] as f64, c[i], n[i]),
    )
}

fn within_2x(name: &str, predicted: f64, measured: f64) {
    println!(
        "{name}: measured crossover {measured:.0} B, predicted {predicted:.0} B ({:.2}×)",
        predicted / measured
    );
    assert!(
        predicted / measured <= 2.0 && measured / predicted <= 2.0,
        "{name}: predicted {predicted:.0} B vs measured {measured:.0} B"
    );
}

/// "512 KB (4 GPUs, Broadcom)" (pcie-collectives.md, "Custom allreduce algorithms"): NCCL with its
/// default P2P level, i.e. SHM between the two partitions. p2pmark table of the page's revision
/// 41d9d68 (kept in the current one): 512 KB custom 51.3 < NCCL 72.0 µs, 1 MB 95.8 > 86.5 µs →
/// ≈ 886 KB. (SGLang's startup auto-crossover on the same box, `optimization/pcie-oneshot-allreduce.md`:
/// 512 KB 51.0 < 71.7, 1 MB 95.6 > 85.2 — it reports the last winning size, 512 KB.)
#[test]
fn asus_4gpu_default_nccl_crossover_within_2x() {
    let m = zero((524288.0, 51.3, 72.0), (1048576.0, 95.8, 86.5));
    let p = predicted(ASUS, "custom-oneshot", "4", &[]);
    within_2x("ASUS 4 GPUs, NCCL default (SHM between partitions)", p, m);
}

/// The same box and kernel with `NCCL_P2P_LEVEL=SYS`: NCCL uses P2P between the partitions and takes
/// over much earlier. p2pmark table "4 GPU, fp16, NCCL_P2P_LEVEL=SYS" of the page's revision ab80164:
/// 64 KB custom 12.3 < NCCL 13.8 µs, 128 KB 17.5 > 15.5 µs → ≈ 94 KB. (Not the reference's "120 KB
/// (4 GPUs, switch)": that one is SGLang's startup auto-tune on the WRX90 c-payne box, see the book.)
#[test]
fn asus_4gpu_p2p_level_sys_crossover_within_2x() {
    let m = zero((65536.0, 12.3, 13.8), (131072.0, 17.5, 15.5));
    let p = predicted(ASUS, "custom-oneshot", "4", &["--env", "NCCL_P2P_LEVEL=SYS"]);
    within_2x("ASUS 4 GPUs, NCCL_P2P_LEVEL=SYS", p, m);
}

/// The two ASUS crossovers differ by NCCL's transport only (the custom kernel is the same): SHM
/// between the partitions must push the crossover up by a large factor (measured ≈ 886 / 94 ≈ 9.4×).
#[test]
fn asus_shm_moves_the_crossover_up() {
    let shm = predicted(ASUS, "custom-oneshot", "4", &[]);
    let p2p = predicted(ASUS, "custom-oneshot", "4", &["--env", "NCCL_P2P_LEVEL=SYS"]);
    println!("ASUS 4 GPUs: predicted crossover {shm:.0} B with SHM, {p2p:.0} B with P2P");
    assert!(shm / p2p >= 4.0, "SHM {shm} vs P2P {p2p}");
}
