//! Issue #19 (shm55): the dennislee22 A100 box's SHM rate against the measured hosts' read fractions.
//!
//! The nine dennislee22/vLLM-benchmarking rows (vLLM 0.10.1.1, deploys25) run on
//! `a100-pcie-80gb-2x-cross-socket`, whose `shm_copy_bw` is the cssnoeasy box's measured 11.45 GB/s.
//! Its two TP 2 misses want about 4 GB/s a connection (validation.md, "The SHM size dependence
//! (shmsize53)": the what-if with `shm_copy_bw = "4GB/s"`, the measured Intel pairs' rate). Read as a
//! fraction of the A100's own Gen4 x16 link that is below every measured SHM host's fraction and next
//! to the excluded 8x A40 node's pair (lines 308-311), the other data-centre Ampere PCIe pair measured
//! over SHM with one receiver per port. Nothing is fitted: this pins the arithmetic the book states
//! (book/src/collectives.md, "More SHM hosts, and the dennislee host (shm55)"), and tries the one
//! host fact shm52 had not: the GPU count of each host's fitted rows.

use crate::common::*;
use tpsim::scenario::hardware_from_preset;

/// The preset every dennislee TP 2 scenario names (scenarios/validation/*a100x2-vllm-0.10.1-tp2*).
const DENNISLEE: &str = "a100-pcie-80gb-2x-cross-socket";

/// The six TP 2 scenarios of deploys25 (tests/tests/deploys25.rs compares them).
const TP2_SCENARIOS: [&str; 6] = [
    "qwen2-7b-a100x2-vllm-0.10.1-tp2-c1.toml",
    "qwen2-7b-a100x2-vllm-0.10.1-tp2-c10.toml",
    "qwen2-7b-a100x2-vllm-0.10.1-tp2-c50.toml",
    "qwen2.5-32b-a100x2-vllm-0.10.1-tp2-c1.toml",
    "qwen2.5-32b-a100x2-vllm-0.10.1-tp2-c10.toml",
    "qwen2-72b-a100x2-vllm-0.10.1-tp2-c1.toml",
];

/// The SHM host presets that carry their own fitted fraction (shm52's seven table hosts).
const MEASURED: [&str; 7] = [
    "rtx-4090-4x-kalavai-xeon",
    "a100-sxm4-80gb-4x-dgx-a100-shm",
    "rtx-5090-4x-syncopate-epyc-9v74",
    "rtx-4090-8x-epyc-7542-shm",
    "rtx-2080-ti-2x-autodl-xeon-shm",
    "rtx-5090-4x-syncopate-epyc-9b14",
    "rtx-pro-6000-4x-turin-same-numa-shm",
];

/// By hand. The preset's Gen4 x16 rate is the template's `pcie_gen4_x16_bw`, 24.4 GB/s; its per-pair
/// SHM rate 11.45 GB/s is 11.45 / 24.4 = 0.4693 of it (cssnoeasy's average busbw). The what-if rate
/// 4.0 GB/s is 4.0 / 24.4 = 0.1639 of it: below kalavai's 0.3607, the lowest measured host, by
/// 0.1639 / 0.3607 = 0.454x, and 0.1639 / 0.5859 = 0.280x the median an unmeasured host gets. The
/// A40 node's pair (lines 308-311, 2 ranks: size / time per connection) moves 1073741824 / 278168 =
/// 3.860, 2147483648 / 534127 = 4.021, 4294967296 / 1106007 = 3.883, 8589934592 / 2382474 = 3.605 GB/s,
/// mean 3.842, i.e. 0.1575 of the same port, and 4.0 / 3.842 = 1.041: the rate the dennislee rows want
/// is within 5 % of it. Tolerances 1e-3 on the fractions (four-decimal inputs), exact on 24.4.
#[test]
fn dennislee_what_if_rate_reads_below_every_measured_host_and_beside_the_a40_pair() {
    let dir = std::path::PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../scenarios/validation");
    for f in TP2_SCENARIOS {
        let text = std::fs::read_to_string(dir.join(f)).unwrap_or_else(|e| panic!("{f}: {e}"));
        assert!(
            text.contains(&format!("preset = \"{DENNISLEE}\"")),
            "{f} no longer runs on {DENNISLEE}"
        );
    }
    let hw = hardware_from_preset(DENNISLEE).expect("preset");
    let gen4 = hw.params.pcie_gen4_x16_bw.as_gbps();
    assert!((gen4 - 24.4).abs() < 1e-9, "{gen4}");
    let shipped = hw.params.shm_copy_bw.as_gbps();
    assert!((shipped - 11.45).abs() < 1e-9, "{shipped}");
    assert!((shipped / gen4 - 0.4693).abs() < 1e-3);
    assert!(
        hw.params.shm_read_efficiency.is_none(),
        "the preset has no [host]: its rate is the per-pair figure"
    );

    let wanted = 4.0 / gen4;
    assert!((wanted - 0.1639).abs() < 1e-3, "{wanted}");
    let mut fractions: Vec<f64> = MEASURED
        .iter()
        .map(|p| {
            let h = hardware_from_preset(p).unwrap_or_else(|e| panic!("{p}: {e}"));
            h.params
                .shm_read_efficiency
                .unwrap_or_else(|| panic!("{p}: no fraction"))
        })
        .collect();
    fractions.sort_by(f64::total_cmp);
    assert!((fractions[0] - 0.3607).abs() < 1e-12, "{fractions:?}");
    assert!(wanted < fractions[0]);
    assert!((wanted / fractions[0] - 0.454).abs() < 1e-3);
    assert!((wanted / tpsim::import_topo::host::MEDIAN_SHM_READ_EFFICIENCY - 0.280).abs() < 1e-3);

    let a40: Vec<f64> = (308..=311)
        .map(|l| {
            let (gpu, n, size, us) = allreduce_row(l);
            assert_eq!((gpu.as_str(), n.as_str()), ("A40", "2"), "line {l}");
            size as f64 / us / 1e3
        })
        .collect();
    let a40_mean = a40.iter().sum::<f64>() / 4.0;
    assert!((a40_mean - 3.842).abs() < 1e-3, "{a40_mean}");
    assert!((a40_mean / gen4 - 0.1575).abs() < 1e-3);
    assert!((4.0 / a40_mean - 1.041).abs() < 1e-3);
}

/// The GPU count of each host's fitted rows (the brief's last untested fact), from the `n_gpus`
/// column of the rows each preset's `[fitted.shm_read_efficiency]` names, in the order of the
/// fractions (kalavai 0.3607, DGX 0.4262, box A 0.5384, charlie0129 0.6068, AutoDL 0.6557, box B
/// 0.6680, PR 2080 0.6869): 2, 4, 2, 8, 2, 2, 4. By hand: the four 2s share ranks 1-4 (2.5), the two
/// 4s ranks 5-6 (5.5), the 8 rank 7: dx = -1.5 1.5 -1.5 3 -1.5 -1.5 1.5 against dy = -3 ... 3, so
/// Σ dx·dy = 4.5 - 3 + 1.5 + 0 - 1.5 - 3 + 4.5 = 3, Σ dx² = 6 × 2.25 + 9 = 22.5, Σ dy² = 28:
/// rho = 3 / √(22.5 × 28) = 0.120 (tolerance 0.001), far below the 5 % critical value for seven pairs
/// (0.786, Zar 1972, as shm52). The ring length does not order the hosts either.
#[test]
fn the_gpu_count_of_the_fitted_rows_does_not_order_the_fractions() {
    // (preset, fitted rows): the lines shm52's HOSTS names, each set's n_gpus read off the table.
    let hosts: [(&str, &[usize]); 7] = [
        ("rtx-4090-4x-kalavai-xeon", &[70, 79]),
        ("a100-sxm4-80gb-4x-dgx-a100-shm", &[226, 229]),
        ("rtx-5090-4x-syncopate-epyc-9v74", &[189, 193]),
        ("rtx-4090-8x-epyc-7542-shm", &[279, 282]),
        ("rtx-2080-ti-2x-autodl-xeon-shm", &[251, 257]),
        ("rtx-5090-4x-syncopate-epyc-9b14", &[209]),
        ("rtx-pro-6000-4x-turin-same-numa-shm", &[323, 324]),
    ];
    let mut gpus = Vec::new();
    let mut frac = Vec::new();
    for (preset, lines) in hosts {
        let n: Vec<String> = lines.iter().map(|&l| allreduce_row(l).1).collect();
        assert!(n.iter().all(|x| *x == n[0]), "{preset}: {n:?}");
        gpus.push(n[0].parse::<f64>().expect("n_gpus"));
        let h = hardware_from_preset(preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
        frac.push(h.params.shm_read_efficiency.expect("fraction"));
    }
    assert_eq!(gpus, [2.0, 4.0, 2.0, 8.0, 2.0, 2.0, 4.0]);
    assert!(frac.windows(2).all(|w| w[0] < w[1]), "{frac:?}");
    let rho = crate::shm52::spearman(&gpus, &frac);
    assert!((rho - 0.120).abs() < 0.001, "rho {rho:.4}");
    assert!(rho.abs() < 0.786);
}
