//! tpstep: is NCCL's SHM small-message latency the fixed per-step cost tpsim lacks on the IOG Foundation's
//! no-P2P RTX 4090 boxes (vLLM 0.8.5, newdeploys14/15; book/src/validation.md, "The TP step on no-P2P RTX
//! 4090 boxes")? The presets those rows use (`rtx-4090-4x-no-p2p` for 2 and 4 GPUs, `rtx-4090-8x-no-p2p`
//! for 8) against the measured RTX 4090 / 2080 Ti hosts without P2P in tests/data/allreduce.tsv
//! (nccl-tests all_reduce_perf, NCCL over SHM). Nothing here is fitted to the throughput rows.

use crate::common::*;

/// One rank count's points: (GPUs, preset, [(size in bytes, allreduce.tsv lines measuring it)]).
type Points = (&'static str, &'static str, &'static [(u64, &'static [usize])]);

/// The measured rows at 8 B, 4 KiB and 8 KiB. Two ranks:
/// kalavai docker (lines 51-61), kalavai pod (97-107), AutoDL 2080 Ti (230-240); four ranks: kalavai
/// docker (126-136) and pod (155-165); eight ranks: charlie0129's 2× EPYC 7542 (258-268).
const SMALL: &[Points] = &[
    (
        "2",
        "rtx-4090-4x-no-p2p",
        &[
            (8, &[51, 97, 230]),
            (4096, &[60, 106, 239]),
            (8192, &[61, 107, 240]),
        ],
    ),
    (
        "4",
        "rtx-4090-4x-no-p2p",
        &[(8, &[126, 155]), (4096, &[135, 164]), (8192, &[136, 165])],
    ),
    (
        "8",
        "rtx-4090-8x-no-p2p",
        &[(8, &[258]), (4096, &[267]), (8192, &[268])],
    ),
];

/// The small-message latency is right at 2, 4 and 8 ranks: at 8 B, 4 KiB and 8 KiB tpsim's eager NCCL
/// allreduce lies within the measured hosts' range widened by 10 % (by hand from the lines: 2 ranks
/// 8.97-12.25, 11.79-12.53, 13.07-16.82 µs; 4 ranks 18.90-20.46, 20.61-21.98, 22.93-23.52; 8 ranks 38.83,
/// 43.18, 44.02; tpsim 11.20, 11.95, 12.69 / 20.40, 21.52, 22.64 / 40.80, 42.11, 43.41).
#[test]
fn shm_small_message_latency_follows_the_measured_hosts() {
    for (gpus, preset, points) in SMALL {
        let sizes: Vec<u64> = points.iter().map(|p| p.0).collect();
        let pred = times(preset, "nccl", gpus, &sizes, &[]);
        for ((size, lines), p) in points.iter().zip(&pred) {
            let meas: Vec<f64> = lines
                .iter()
                .map(|&l| {
                    let (gpu, n, s, t) = allreduce_row(l);
                    assert!(gpu.starts_with("GeForce RTX"), "line {l}: {gpu}");
                    assert_eq!((n.as_str(), s), (*gpus, *size), "line {l}");
                    t
                })
                .collect();
            let lo = meas.iter().cloned().fold(f64::INFINITY, f64::min);
            let hi = meas.iter().cloned().fold(0.0, f64::max);
            assert!(
                *p >= 0.9 * lo && *p <= 1.1 * hi,
                "{gpus} GPUs, {size} B: tpsim {p} µs outside the measured {lo}-{hi} (±10 %)"
            );
        }
    }
}

/// Between 16 and 64 KiB (the light-load decode messages: batch 3-6 × 5120 × 2 B) the 4-GPU preset is
/// faster than the kalavai 4-GPU host (lines 137-139: 31.99, 44.12, 81.19 µs; tpsim 23.84, 27.28, 34.15:
/// ratios 0.745, 0.618, 0.421 by hand, ±0.02), while the 8-GPU preset is slower than charlie0129's host
/// (lines 269-271: 43.10, 44.18, 45.66 µs; tpsim 44.81, 48.82, 56.84: ratios 1.040, 1.105, 1.245, ±0.02).
/// shm52: the presets' borrowed read fraction 0.4496 → 0.5859 (tpsim 24.88, 29.36, 38.32 and 46.03,
/// 51.25, 61.71 µs before); the signs hold.
/// At TP 8 a host-faithful figure would shorten the step: SHM cannot be the TP 8 gap.
#[test]
fn shm_mid_size_gap_has_opposite_signs_at_four_and_eight_ranks() {
    let sizes = [16_384, 32_768, 65_536];
    for (gpus, preset, lines, ratios) in [
        ("4", "rtx-4090-4x-no-p2p", [137, 138, 139], [0.745, 0.618, 0.421]),
        ("8", "rtx-4090-8x-no-p2p", [269, 270, 271], [1.040, 1.105, 1.245]),
    ] {
        let pred = times(preset, "nccl", gpus, &sizes, &[]);
        for ((l, p), r) in lines.iter().zip(&pred).zip(ratios) {
            let (_, n, s, m) = allreduce_row(*l);
            assert_eq!(n, gpus, "line {l}");
            assert!(sizes.contains(&s), "line {l}");
            assert!((p / m - r).abs() < 0.02, "{gpus} GPUs line {l}: {p} / {m} vs {r}");
        }
    }
}
