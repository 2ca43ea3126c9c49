//! Issue #19 (shm52): `shm_read_efficiency` is a per-host constant in `crossval allreduce`. No fold fits
//! it: a training system (and the joint fit) reads its own preset's value, and a held-out system gets
//! the median of the other hosts' own values and the ASUS box's (outside the table), the rule
//! `tpsim import-topo` applies to an unmeasured host (`MEDIAN_SHM_READ_EFFICIENCY`).

use crate::common::*;
use std::path::{Path, PathBuf};
use tpsim::scenario::profile as prof;
use tpsim_calibrate::crossval::{allreduce, systems};

fn bundled_systems() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crossval/allreduce-systems.toml")
}

fn bundled() -> systems::Systems {
    systems::load(&bundled_systems(), Path::new(&data("allreduce.tsv"))).unwrap()
}

/// The SHM hosts' own fractions (their presets' `[fitted]` values): kalavai 0.3607, DGX 0.4262, box A
/// 0.5384, charlie0129 0.6068, AutoDL 0.6557, box B 0.6680, PR 2080 0.6869, and the ASUS box's 0.565
/// (`outside`). All systems: eight values, (0.565 + 0.6068) / 2 = 0.5859, the import-topo median.
/// Without one host, seven: the 4th of the sorted rest, 0.6068 when the held-out host is below it
/// (kalavai, DGX, box A), 0.565 when above (charlie0129, AutoDL, box B, PR 2080). A P2P system held out
/// leaves all eight. Exact to 1e-12 (medians of the presets' four-decimal values).
#[test]
fn a_held_out_host_gets_the_median_of_the_other_hosts_fractions() {
    let s = bundled();
    let spec = s.shared.iter().find(|c| c.name == "shm_read_efficiency").unwrap();
    assert!(spec.per_host && spec.outside == [0.565]);
    let all: Vec<usize> = (0..s.systems.len()).collect();
    let (m, n) = allreduce::host_median(&s, &all, spec);
    assert_eq!(n, 8);
    assert!((m - 0.5859).abs() < 1e-12, "{m}");
    assert!((m - tpsim::import_topo::host::MEDIAN_SHM_READ_EFFICIENCY).abs() < 1e-12);
    let want = [
        ("kalavai 4090 host (SHM)", 0.6068),
        ("DGX A100, NCCL_P2P_DISABLE=1 (SHM)", 0.6068),
        ("Syncopate 4x RTX 5090, 2x EPYC 9V74 (SHM)", 0.6068),
        ("charlie0129 8x RTX 4090, 2x EPYC 7542 (SHM)", 0.565),
        ("AutoDL 2x RTX 2080 Ti, one Gen3 switch (SHM)", 0.565),
        ("Syncopate 4x RTX 5090, 1x EPYC 9B14 (SHM)", 0.565),
        (
            "PR 2080: 4x RTX PRO 6000, dual EPYC 9575F, one NUMA node (SHM)",
            0.565,
        ),
        ("c-payne WRX90 (Group A + B)", 0.5859),
    ];
    for (name, v) in want {
        let k = s.systems.iter().position(|x| x.name == name).unwrap();
        let train: Vec<usize> = all.iter().copied().filter(|&j| j != k).collect();
        let (m, n) = allreduce::host_median(&s, &train, spec);
        let held_shm = s.systems[k].class == "shm-host";
        assert_eq!(n, if held_shm { 7 } else { 8 }, "{name}");
        assert!((m - v).abs() < 1e-12, "{name}: {m}");
    }
}

/// A training system reads its own fraction whatever the fold's value, and a held-out one the fold's:
/// the kalavai pair behind one switch (lines 70-79, bandwidth-bound: 2 × 2.2 GB/s over a Gen3 x16
/// uplink of 12.2) at 1.2 × its own 0.3607 moves its 2 GiB row (line 79) to 1 / 1.2 = 0.833 of the
/// time at its own fraction, within 1 % (the ring's fixed part is about 25 µs of 976,025).
#[test]
fn only_a_held_out_system_reads_the_folds_fraction() {
    let s = bundled();
    let k = s
        .systems
        .iter()
        .position(|x| x.name == "kalavai 4090 host (SHM)")
        .unwrap();
    let sys = &s.systems[k];
    let mut params = sys.parts[0].hardware.params.clone();
    let own = prof::get(&params, "shm_read_efficiency").unwrap();
    assert!((own - 0.3607).abs() < 1e-12);
    prof::set(&mut params, "shm_read_efficiency", own * 1.2).unwrap();
    let trained = allreduce::predict_system(sys, &s.shared, &params, false).unwrap();
    assert_eq!(trained, allreduce::predict_bundled(sys));
    let held = allreduce::predict_system(sys, &s.shared, &params, true).unwrap();
    let i = sys.parts[0].lines.iter().position(|&l| l == 79).unwrap();
    let r = held[i] / trained[i];
    assert!(
        (r / (1.0 / 1.2) - 1.0).abs() < 0.01,
        "{} / {} = {r}",
        held[i],
        trained[i]
    );
}

/// `outside` values are read only with `per_host`, and must be valid values of the constant.
#[test]
fn outside_values_need_per_host_and_a_valid_fraction() {
    let text = std::fs::read_to_string(bundled_systems()).unwrap();
    let table = std::fs::read_to_string(data("allreduce.tsv")).unwrap();
    let cases = [
        (
            text.replace("per_host = true\n", ""),
            "shared[2] (shm_read_efficiency).outside: only read with per_host = true",
        ),
        (
            text.replace("outside = [0.565]", "outside = [1.5]"),
            "shared[2] (shm_read_efficiency): outside",
        ),
    ];
    for (t, want) in cases {
        let e = systems::parse(&t, "s.toml", &table, "t.tsv")
            .unwrap_err()
            .to_string();
        assert!(e.contains(want), "{e}");
    }
}
