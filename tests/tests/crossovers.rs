//! Crossovers between the custom one-shot allreduce and NCCL (issue #3): the message size below which
//! the custom kernel is faster, predicted by `tpsim collective` against the measured size, within a
//! factor 1.5 (issue #19).
//!
//! Both sides are found the same way: the zero of (custom − NCCL) by linear interpolation between
//! the two neighbouring sizes where the sign changes (measured: the two table rows around it;
//! predicted: a grid of quarter powers of two from 4 KiB). Interpolating both sides matters near the
//! bound: the first losing grid size alone overstates a crossover by up to 2^(1/4) ≈ 19 %.
//!
//! Sources of the measured tables for the ASUS box: local-inference-lab/rtx6kpro
//! `hardware/asus-esc8000a-e13p-broadcom-switches.md`, "AllReduce: Custom vs NCCL (4 GPU, fp16)",
//! measured with `p2pmark --allreduce` at commit 3c39f36 (lukealonso/p2pmark): Luke's PCIe one-shot
//! kernel — start barrier, then every rank loads the whole buffer from every peer and reduces (a
//! pull one-shot, up to 36 blocks × 512 threads), no end barrier (double-buffered flags) — against
//! `ncclAllReduce`, both replayed in CUDA graphs, on GPU0–3 of the ASUS ESC8000A-E13P (one Broadcom
//! PEX890xx chip, two partitions of 2 GPUs, ACS off).
//!
//! Validation or consistency (issue #14): a test is `validation_*` when no constant it depends on was
//! fitted to the box it checks, `consistency_*` when one was: the ASUS preset's `shm_copy_bw` (30.3 GB/s)
//! is read off the same page's 4-GPU default-NCCL busbw and its `collapse_factor` (0.0504) off the same
//! box's collapse measurement, so the default-NCCL crossover and the 8-GPU one-shot are in-sample; its
//! `kernel_read_outstanding` is fitted to the 4-GPU one-shot's 32 MB row (issue #19 point 3). The
//! tolerance is issue #19's target for the crossovers the reference lists (512 KB 4 GPUs Broadcom,
//! 48 KB 8 GPUs cross-NUMA, 32–64 KB 8 GPUs 3 switches, V100 PLX 128–384 KB) and the 4-GPU p2pmark
//! one with `NCCL_P2P_LEVEL=SYS`, and the reference's "120 KB (4 GPUs, switch)" on the c-payne root +
//! leaf switch box, a factor 1.5. The 8-GPU p2pmark crossover on the ASUS box was a named known miss
//! (1.87×, held to issue #3's factor 2) until its preset's `collapse_factor` was read as the collapsed
//! port's measured rate over the port's capacity (shmclass; the book's "Crossovers" says why).
//!
//! Every custom kernel measured here is Luke's PCIe one-shot, so it is predicted as
//! `custom-pcie-oneshot`: vLLM's one-shot without its end barrier, plus the per-kernel gap of the
//! CUDA-graph replay the measurements time (`pcie_one_shot_structure_by_hand`).

use crate::common::*;

const ASUS: &str = "rtx-pro-6000-8x-asus-esc8000a-e13p";
/// Luke's PCIe one-shot, the kernel every crossover table here measured (p2pmark's
/// `pcie_allreduce_kernel` and Luke's SGLang branch): start barrier, pulls, no end barrier, one
/// graph replay's per-kernel gap (`sim::allreduce::CustomAlgo::PcieOneShot`).
const PCIE_ONESHOT: &str = "custom-pcie-oneshot";
/// The WRX90 / TR Pro 7955WX box with c-payne root and leaf switches (GPU0–1 on leaf 1, GPU2–3 on
/// leaf 2, both leaves under root switch 1).
const CPAYNE: &str = "rtx-pro-6000-8x-3switch-trpro-hierarchy";
/// The same host re-cabled as two flat switches of 4 GPUs (GPU0–3 on one switch).
const CPAYNE_FLAT: &str = "rtx-pro-6000-8x-2switch-trpro";

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

fn within(name: &str, predicted: f64, measured: f64, factor: f64) {
    println!(
        "{name}: measured crossover {measured:.0} B, predicted {predicted:.0} B ({:.2}×)",
        predicted / measured
    );
    assert!(
        predicted / measured <= factor && measured / predicted <= factor,
        "{name}: predicted {predicted:.0} B vs measured {measured:.0} B (bound {factor}×)"
    );
}

/// Issue #19's bound for the crossovers the reference lists.
fn within_1_5x(name: &str, predicted: f64, measured: f64) {
    within(name, predicted, measured, 1.5);
}

/// "512 KB (4 GPUs, Broadcom)" (pcie-collectives.md, "Custom allreduce algorithms"): NCCL with its
/// default P2P level, i.e. SHM between the two partitions. p2pmark table of the page's revision
/// 41d9d68 (kept in the current one): 512 KB custom 51.3 < NCCL 72.0 µs, 1 MB 95.8 > 86.5 µs →
/// ≈ 886 KB. (SGLang's startup auto-crossover on the same box, `optimization/pcie-oneshot-allreduce.md`:
/// 512 KB 51.0 < 71.7, 1 MB 95.6 > 85.2 — it reports the last winning size, 512 KB.)
#[test]
fn consistency_asus_4gpu_default_nccl_crossover_within_1_5x() {
    let m = zero((524288.0, 51.3, 72.0), (1048576.0, 95.8, 86.5));
    let p = predicted(ASUS, PCIE_ONESHOT, "4", &[]);
    within_1_5x("ASUS 4 GPUs, NCCL default (SHM between partitions)", p, m);
}

/// The same box and kernel with `NCCL_P2P_LEVEL=SYS`: NCCL uses P2P between the partitions and takes
/// over much earlier. p2pmark table "4 GPU, fp16, NCCL_P2P_LEVEL=SYS" of the page's revision ab80164:
/// 64 KB custom 12.3 < NCCL 13.8 µs, 128 KB 17.5 > 15.5 µs → ≈ 94 KB. (Not the reference's "120 KB
/// (4 GPUs, switch)": that one is SGLang's startup auto-tune on the WRX90 c-payne box, see the book.)
/// Consistency, not validation: the one-shot's side of it runs at the Little's-law rate of the
/// preset's `kernel_read_outstanding`, fitted to this box's 32 MB one-shot row. With the last read
/// window's serialization (`sim::custom_kernels::pull`) the prediction moved from 170 KB (1.82×) to
/// ≈ 130 KB (1.38×), inside issue #19's factor 1.5; as Luke's kernel (no end barrier, the replay
/// gap) ≈ 128 KB (1.37×).
#[test]
fn consistency_asus_4gpu_p2p_level_sys_crossover_within_1_5x() {
    let m = zero((65536.0, 12.3, 13.8), (131072.0, 17.5, 15.5));
    let p = predicted(ASUS, PCIE_ONESHOT, "4", &["--env", "NCCL_P2P_LEVEL=SYS"]);
    within_1_5x("ASUS 4 GPUs, NCCL_P2P_LEVEL=SYS", p, m);
}

/// The two ASUS crossovers differ by NCCL's transport only (the custom kernel is the same): SHM
/// between the partitions must push the crossover up by a large factor (measured ≈ 886 / 94 ≈ 9.4×).
#[test]
fn consistency_asus_shm_moves_the_crossover_up() {
    let shm = predicted(ASUS, PCIE_ONESHOT, "4", &[]);
    let p2p = predicted(ASUS, PCIE_ONESHOT, "4", &["--env", "NCCL_P2P_LEVEL=SYS"]);
    println!("ASUS 4 GPUs: predicted crossover {shm:.0} B with SHM, {p2p:.0} B with P2P");
    assert!(shm / p2p >= 4.0, "SHM {shm} vs P2P {p2p}");
}

/// The luke box, 8 GPUs behind 3 Microchip switches (allreduce.tsv lines 45–48, rtx6kpro
/// `hardware/pcie-bandwidth.md`, "Custom Allreduce vs NCCL"; NCCL with P2P on every pair): 32 KiB
/// custom one-shot 16.5 < NCCL 24.5 µs, 64 KiB 25.9 > 24.1 µs → ≈ 59.5 KB.
#[test]
fn validation_luke_8gpu_crossover_within_1_5x() {
    let m = zero((32768.0, 16.5, 24.5), (65536.0, 25.9, 24.1));
    let p = predicted(
        "rtx-pro-6000-8x-3switch-luke",
        PCIE_ONESHOT,
        "8",
        &["--env", "NCCL_P2P_LEVEL=SYS"],
    );
    within_1_5x("luke, 8 GPUs, NCCL_P2P_LEVEL=SYS", p, m);
}

/// Four V100s behind one PLX switch (allreduce.tsv lines 89–92, haohervchb/sglang-V100 PR #2, both
/// kernels inside CUDA graphs): 128 KiB push 44.5 < NCCL 51.8 µs, 384 KiB push 120.3 > NCCL 83.5 µs,
/// nothing measured in between (the reference: "crossover between 128 and 384 KB") → ≈ 174 KB on the
/// straight line. The prediction (≈ 330 KB) is the closest of these tests to the bound: the V100
/// preset's Gen3 links are derived from Gen4 figures, and NCCL's protocol changes inside the
/// unmeasured interval (its measured slope falls from 0.29 µs/KiB below 128 KiB to 0.12 above), so
/// the line is only an estimate of where the sign changes.
#[test]
fn validation_v100_push_crossover_within_1_5x() {
    let m = zero((131072.0, 44.5, 51.8), (393216.0, 120.3, 83.5));
    let p = predicted("v100-4x-plx", "custom-push", "4", &[]);
    assert!(
        131072.0 < p && p < 393216.0,
        "V100: predicted {p:.0} B outside the measured interval"
    );
    within_1_5x("V100, 4 GPUs, one PLX switch, one-shot push", p, m);
}

/// The ASUS box on all 8 GPUs (GPUs 0–3 on NUMA0, 4–7 on NUMA1; four 2-GPU partitions, each on its
/// own root port): in the one-shot every partition returns the data of its 2 GPUs to readers behind
/// 3 other root ports, so with the preset's `collapse_reads` its port collapses to 0.0504 × 53.6 GB/s
/// (the page's collapsed 2.7 GB/s). By hand at 64 KiB: 2 GPUs × 6 readers outside the partition ×
/// 65,536 B = 786,432 B through 2.7014 GB/s = 291.1 µs, plus the barriers' few µs. (p2pmark measured
/// 503.9 µs on this box, rtx6kpro `hardware/asus-esc8000a-e13p-broadcom-switches.md`, "AllReduce:
/// Custom vs NCCL (8 GPU, fp16)": tpsim stays 1.7× short, see the book.) On 4 GPUs no partition returns data to two root
/// ports, nothing collapses, and the same size takes ≈ 10 µs (measured 12.3).
#[test]
fn consistency_asus_8gpu_one_shot_is_bound_by_collapsed_read_completions() {
    let o = tpsim(&[
        "collective",
        "--hardware",
        ASUS,
        "--gpus",
        "8",
        "--algo",
        PCIE_ONESHOT,
        "--sizes",
        "64K",
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let row = &j["rows"][0];
    let t = f(&row["time_us"]);
    let by_hand = 786_432.0 / (0.0504 * 53.6e9) * 1e6;
    assert!(
        t >= by_hand && t <= by_hand + 10.0,
        "{t} µs vs {by_hand} µs by hand"
    );
    let b = row["bottleneck"].as_str().unwrap_or_default();
    assert!(b.ends_with("write port"), "bottleneck {b}");
    let four = times(ASUS, PCIE_ONESHOT, "4", &[65536], &[])[0];
    assert!(four < 15.0, "4 GPUs: {four} µs");
}

/// "48 KB (8 GPUs cross-NUMA)" (pcie-collectives.md, "Custom allreduce algorithms"): SGLang's startup
/// auto-crossover for Luke's kernel on the dual-EPYC box with GPUs 0–3 on NUMA0 and 4–7 on NUMA1
/// (rtx6kpro `optimization/pcie-oneshot-allreduce.md`, "Auto Crossover Thresholds", whose benchmarks
/// ran on the ASUS ESC8000A-E13P; `models/glm5.md`, "Auto crossover: 48 KB on 8 GPUs"), with NCCL at
/// its defaults (the page's launch commands set no NCCL variable).
#[test]
fn consistency_asus_8gpu_cross_numa_auto_tune_crossover_within_1_5x() {
    let p = predicted(ASUS, PCIE_ONESHOT, "8", &[]);
    within_1_5x(
        "ASUS 8 GPUs cross-NUMA (SGLang auto-tune), NCCL default",
        p,
        49152.0,
    );
}

/// p2pmark on the same 8 GPUs (rtx6kpro `hardware/asus-esc8000a-e13p-broadcom-switches.md`, "AllReduce:
/// Custom vs NCCL (8 GPU, fp16)"): 4 KB custom 30.6 < NCCL 57.2 µs, 8 KB 64.3 > 57.6 → ≈ 7.4 KB, 6.5×
/// below the auto-tune's threshold. Its NCCL column is `NCCL_P2P_LEVEL=SYS` (the setting the page gives
/// next to it): tpsim with SYS predicts it within 0.76–0.94× at 256 B … 32 MB, with the defaults 2.4–3.9×
/// too slow from 256 B to 64 KB. Both the NCCL rows (the 2× bound) and the crossover are asserted.
/// The crossing is steep, so it is set by the one-shot's slope, not by a near-parallel pair of curves.
/// From 4 to 8 KB p2pmark's custom time grows by 33.7 µs; tpsim's by 18.2 µs (2 GPUs × 6 outside
/// readers × 4,096 B through the collapsed port, 0.0504 × 53.6 GB/s = the page's collapsed 2.7 GB/s),
/// asserted here to pin which mechanism sets it. It was a named known miss at 1.87× (13.8 KB) while
/// the preset's factor was 2.7 / 36.8 = 0.073, a collapsed port of 3.9 GB/s; now ≈ 9.3 KB, 1.27×.
#[test]
fn consistency_asus_8gpu_p2pmark_crossover_within_1_5x() {
    let sys = ["--env", "NCCL_P2P_LEVEL=SYS"];
    let sizes = [256, 4096, 8192, 65536, 33554432];
    let measured = [27.1, 57.2, 57.6, 67.8, 2715.0];
    let nccl = times(ASUS, "nccl", "8", &sizes, &sys);
    for ((s, m), p) in sizes.iter().zip(measured).zip(&nccl) {
        assert!(
            p / m <= 2.0 && m / p <= 2.0,
            "NCCL at {s} B: predicted {p} µs, measured {m}"
        );
    }
    let c = times(ASUS, PCIE_ONESHOT, "8", &[4096, 8192], &sys);
    let by_hand = 2.0 * 6.0 * 4096.0 / (0.0504 * 53.6e9) * 1e6;
    assert!(
        (c[1] - c[0] - by_hand).abs() <= 0.01 * by_hand,
        "custom 4 → 8 KB grows {:.2} µs, by hand {by_hand:.2} (±1 %: the flags add ns)",
        c[1] - c[0]
    );
    let m = zero((4096.0, 30.6, 57.2), (8192.0, 64.3, 57.6));
    let p = predicted(ASUS, PCIE_ONESHOT, "8", &sys);
    within_1_5x("ASUS 8 GPUs cross-NUMA (p2pmark), NCCL_P2P_LEVEL=SYS", p, m);
}

/// "120 KB (4 GPUs, switch)" (pcie-collectives.md): SGLang's startup auto-tune of Luke's one-shot at
/// TP=4, bf16, on the WRX90 box with c-payne root + leaf switches (rtx6kpro
/// `hardware/wrx90-cpayne-microchip-switches.md`, "PCIe Oneshot AllReduce Crossover"; the 2-switch
/// page repeats five of its rows). 96 KB custom 32.3 < NCCL 33.8 µs, 128 KB 40.1 > 35.2 → ≈ 106 KB.
/// The 120 KB row (37.6 < 53.6, whence the tuner's 120 KB) is left out: its NCCL time is an outlier
/// between 33.8 and 35.2; with it the zero would be ≈ 126 KB. Predicted ≈ 155 KB (1.47×) on the
/// measured layout (GPU0–3 on two leaves under one root switch), where the one-shot's time grows
/// with the 4 × S its leaf uplink carries. It was a known miss (171 KB, 1.61×) while the kernel was
/// costed as vLLM's one-shot (an end barrier, no graph-replay gap); Luke's kernel has no end barrier
/// and pays the per-kernel gap (`kernel_overhead`, 2 µs assumed in the template, which luke's six
/// one-shot rows agree with: `pcie_one_shot_structure_by_hand`), 0.64 µs more per call here, and
/// the curves cross at a small angle, so that is enough: the margin to 1.5× is 2 %. Consistency,
/// not validation: the shared `nccl_channel_bw` was fitted to rows of the same host in its 2-switch
/// layout (allreduce.tsv 22–25).
#[test]
fn consistency_cpayne_4gpu_auto_tune_crossover_within_1_5x() {
    let m = zero((98304.0, 32.3, 33.8), (131072.0, 40.1, 35.2));
    let p = predicted(CPAYNE, PCIE_ONESHOT, "4", &[]);
    within_1_5x("c-payne root + leaf switches, 4 GPUs (SGLang auto-tune)", p, m);
}

/// Luke's kernel against vLLM's one-shot, by hand (p2pmark 3c39f36 `pcie_allreduce_kernel`: one
/// `multi_gpu_barrier<ngpus, true>` at the start, no barrier after the reduction; vLLM 0.11.0
/// `cross_device_reduce_1stage` ends with a second one): the same pulls and the same per-kernel gap
/// of graph replay (`kernel_overhead` = 2 µs, the template's assumed figure; since pcieck vLLM's
/// kernel pays it on PCIe too), one barrier fewer (its flag's one-way latency). On luke's box a flag
/// crosses GPU → switch → root port → root complex → root port → switch → GPU: 4 × 0.34 + 0.42 =
/// 1.78 µs (pcie-nccl-host.toml, measured ping-pong figures), so Luke's kernel takes 1.78 µs less at
/// every size (±0.01 µs: only picosecond rounding). And the gap is what luke's own rows say
/// (allreduce.tsv lines 40–48: 7.5, 7.5, 9.2, 16.5, 25.9 µs at 256 B … 64 KiB): without it the kernel
/// is predicted 5.41, 5.63, 7.63, 14.51, 23.68 µs, short by 1.57–2.22 µs, median 1.99 — each row
/// within 10 % with it.
#[test]
fn pcie_one_shot_structure_by_hand() {
    let luke = "rtx-pro-6000-8x-3switch-luke";
    let sizes = [256, 1024, 8192, 32768, 65536];
    let vllm = times(luke, "custom-oneshot", "8", &sizes, &[]);
    let pcie = times(luke, PCIE_ONESHOT, "8", &sizes, &[]);
    let by_hand = -(4.0 * 0.34 + 0.42);
    for ((s, v), p) in sizes.iter().zip(&vllm).zip(&pcie) {
        assert!(
            (p - v - by_hand).abs() <= 0.01,
            "{s} B: Luke's {p} µs vs vLLM's {v} µs (by hand +{by_hand:.2})"
        );
    }
    let measured = [7.5, 7.5, 9.2, 16.5, 25.9];
    for ((s, m), p) in sizes.iter().zip(measured).zip(&pcie) {
        println!("luke, Luke's one-shot {s} B: predicted {p:.2} µs, measured {m} µs");
        assert!((p - m).abs() / m <= 0.10, "{s} B: {p} µs vs {m} measured");
    }
}

/// Why the layout matters (the miss was 10× on the flat layout): with GPU0–3 on ONE switch, the
/// one-shot's reads and NCCL's Ring/LL put the same bytes on each GPU's link — 3 × S of read
/// completions, and 2 × 1.5 × S for the ring (a ring allreduce sends 2(n − 1)/n × S per rank, LL's
/// flags double it) — so the two curves run exactly parallel and only NCCL's switch to Simple near
/// 1 MB makes them cross. By hand from 16 to 96 KiB both grow 3 × 81,920 B / 53.6 GB/s = 4.585 µs.
/// Under the root switch, leaf 1's uplink returns GPU0's and GPU1's data to GPU2 and GPU3, 4 × S:
/// from 64 to 128 KiB the one-shot grows 4 × 65,536 B / 53.6 GB/s = 4.891 µs, NCCL's ring still
/// crosses each link once, and the curves cross at ≈ 155 KB.
#[test]
fn cpayne_flat_layout_runs_the_curves_parallel_and_the_hierarchy_does_not() {
    let tol = 0.01; // µs: the flows' rates are exact; only picosecond rounding remains
    let s = [16384, 98304];
    let c = times(CPAYNE_FLAT, PCIE_ONESHOT, "4", &s, &[]);
    let n = times(CPAYNE_FLAT, "nccl", "4", &s, &[]);
    let flat = 3.0 * 81920.0 / 53.6e9 * 1e6;
    assert!((c[1] - c[0] - flat).abs() <= tol, "one-shot {c:?} vs {flat}");
    assert!((n[1] - n[0] - flat).abs() <= tol, "NCCL {n:?} vs {flat}");
    let h = times(CPAYNE, PCIE_ONESHOT, "4", &[65536, 131072], &[]);
    let leaf = 4.0 * 65536.0 / 53.6e9 * 1e6;
    assert!(
        (h[1] - h[0] - leaf).abs() <= tol,
        "hierarchy one-shot {h:?} vs {leaf}"
    );
    let flat_cross = predicted(CPAYNE_FLAT, PCIE_ONESHOT, "4", &[]);
    assert!(flat_cross > 786_432.0, "flat layout crossover {flat_cross:.0} B");
}
