//! Allreduce predictions against the measured table `tests/data/allreduce.tsv` (issue #3).
//!
//! Which rows belong to which system, and how each is predicted (preset, NCCL settings, algorithm), is
//! `calibrate/crossval/allreduce-systems.toml`, the one mapping `tpsim-calibrate crossval allreduce` also
//! reads; the prediction comes from the preset's topology and parameters. CONSISTENCY, not validation:
//! the presets' shared collective constants (`nccl_channel_bw`, `shm_copy_bw`, `shm_step_cost`) were
//! fitted to rows of this same table (each preset's `[fitted]` entries name them), so the figures here
//! are in-sample. The out-of-sample figures are leave-one-system-out: `tpsim-calibrate crossval
//! allreduce` (book/src/validation.md). The table printed by
//! `cargo test -p tpsim-tests --test integration allreduce_data:: -- --nocapture` is the one in the book.

use crate::common::*;
use std::path::PathBuf;
use tpsim::comm::Request;
use tpsim_calibrate::crossval::systems;
use tpsim_calibrate::fit::rows;

/// The rows' `p2p_enabled` column says P2P was in use, while NCCL's default level (PXB) would
/// refuse it on paths through the CPU: those users ran with P2P allowed, as the community
/// knowledge base the rows come from recommends (NCCL_P2P_LEVEL=SYS).
const SYS: &[&str] = &["--env", "NCCL_P2P_LEVEL=SYS"];

#[test]
fn consistency_nccl_and_custom_rows_with_the_bundled_presets() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let all = systems::load(
        &root.join("calibrate/crossval/allreduce-systems.toml"),
        &data_path("allreduce.tsv"),
    )
    .expect("the bundled systems file maps the table");
    let mut nccl_err = Vec::new();
    let mut custom_err = Vec::new();
    // Issue #19 point 1: lines 97-183 (the kalavai host's other layouts, appended after issue #3) are
    // predictions from the host's facts, checked in shm_host.rs; issue #3's targets below keep to the
    // 87 rows they were set on (lines 2-96), and every row stays within 2×.
    let mut later_err = Vec::new();
    let mut syncopate_err = Vec::new();
    let mut dgx_err = Vec::new();
    let mut autodl_err = Vec::new();
    let mut charlie_shm_err = Vec::new();
    let mut turin_shm_err = Vec::new();
    println!(
        "{:<5} {:<42} {:>11} {:>10} {:>10} {:>8}  kind",
        "line", "preset", "size", "meas.us", "pred.us", "error"
    );
    for part in all.systems.iter().flat_map(|s| &s.parts) {
        let pred = rows::predict(&part.hardware, &part.rows);
        for ((r, p), line) in part.rows.iter().zip(&pred).zip(&part.lines) {
            let e = (p - r.measured_us) / r.measured_us;
            let custom = matches!(r.request, Request::Custom(_));
            println!(
                "{line:<5} {:<42} {:>11} {:>10.2} {:>10.2} {:>+7.1}%  {}",
                part.preset,
                r.size_bytes,
                r.measured_us,
                p,
                e * 100.0,
                if custom { "custom" } else { "nccl" }
            );
            if *line > 315 {
                // Issue #19 point 1: lines 316-324, 4x RTX PRO 6000 on one NUMA node of a dual EPYC
                // 9575F at NCCL 2.29.7's default P2P level (SHM; NVIDIA/nccl pull request 2080;
                // shm_host_turin.rs).
                turin_shm_err.push(e)
            } else if *line > 257 {
                // Issue #19 point 1: lines 258-282, charlie0129's 8x RTX 4090 on the stock driver (SHM;
                // shm_host_charlie.rs; lines 283-307, the P2P driver, are excluded).
                charlie_shm_err.push(e)
            } else if *line > 229 {
                // Issue #19 point 1: lines 230-257, 2x RTX 2080 Ti over SHM on an AutoDL host
                // (shm_host_autodl.rs).
                autodl_err.push(e)
            } else if *line > 225 {
                // Issue #19 point 1: lines 226-229, a DGX A100 with NCCL_P2P_DISABLE=1 (shm_host_dgx.rs).
                dgx_err.push(e)
            } else if *line > 183 {
                // Issue #19 point 1 (more SHM hosts): lines 186-225, predicted in shm_host_5090.rs.
                syncopate_err.push(e)
            } else if *line > 96 {
                later_err.push(e)
            } else if custom {
                custom_err.push(e)
            } else {
                nccl_err.push(e)
            }
        }
    }
    assert_eq!(
        nccl_err.len() + custom_err.len(),
        87,
        "sized rows of lines 2-96 mapped"
    );
    assert_eq!(later_err.len(), 87, "sized rows of lines 97-183 mapped");
    let stats = |v: &[f64]| {
        let mut a: Vec<f64> = v.iter().map(|e| e.abs()).collect();
        a.sort_by(f64::total_cmp);
        let median = match a.len() {
            0 => 0.0,
            k if k % 2 == 1 => a[k / 2],
            k => (a[k / 2 - 1] + a[k / 2]) / 2.0,
        };
        let worst_ratio = v
            .iter()
            .map(|e| if *e >= 0.0 { 1.0 + e } else { 1.0 / (1.0 + e) })
            .fold(1.0, f64::max);
        (median, worst_ratio, a.len())
    };
    let (nm, nw, nn) = stats(&nccl_err);
    let (cm, cw, cn) = stats(&custom_err);
    println!(
        "NCCL rows: {nn}, median |error| {:.1} %, worst ratio {nw:.2}×",
        nm * 100.0
    );
    println!(
        "custom rows: {cn}, median |error| {:.1} %, worst ratio {cw:.2}×",
        cm * 100.0
    );
    let (lm, lw, ln) = stats(&later_err);
    println!(
        "lines 97-183 (NCCL over SHM, host facts): {ln}, median |error| {:.1} %, worst ratio {lw:.2}×",
        lm * 100.0
    );
    assert!(lw <= 2.0, "a row of lines 97-183 is off by {lw:.2}×");
    assert_eq!(syncopate_err.len(), 40, "sized rows of lines 186-225 mapped");
    let (sm, sw, sn) = stats(&syncopate_err);
    println!(
        "lines 186-225 (NCCL over SHM, two RTX 5090 hosts): {sn}, median |error| {:.1} %, worst ratio {sw:.2}×",
        sm * 100.0
    );
    assert!(sw <= 2.0, "a row of lines 186-225 is off by {sw:.2}×");
    assert_eq!(dgx_err.len(), 4, "sized rows of lines 226-229 mapped");
    let (dm, dw, dn) = stats(&dgx_err);
    println!(
        "lines 226-229 (NCCL over SHM, DGX A100 with P2P disabled): {dn}, median |error| {:.1} %, worst ratio {dw:.2}×",
        dm * 100.0
    );
    assert!(dw <= 2.0, "a row of lines 226-229 is off by {dw:.2}×");
    assert_eq!(autodl_err.len(), 28, "sized rows of lines 230-257 mapped");
    let (am, aw, an) = stats(&autodl_err);
    println!(
        "lines 230-257 (NCCL over SHM, 2x RTX 2080 Ti on an AutoDL host): {an}, median |error| {:.1} %, worst ratio {aw:.2}×",
        am * 100.0
    );
    assert!(aw <= 2.0, "a row of lines 230-257 is off by {aw:.2}×");
    assert_eq!(charlie_shm_err.len(), 25, "sized rows of lines 258-282 mapped");
    let (cm2, cw2, cn2) = stats(&charlie_shm_err);
    println!(
        "lines 258-282 (NCCL over SHM, 8x RTX 4090, 2x EPYC 7542): {cn2}, median |error| {:.1} %, worst ratio {cw2:.2}×",
        cm2 * 100.0
    );
    assert!(cw2 <= 2.0, "a row of lines 258-282 is off by {cw2:.2}×");
    assert_eq!(turin_shm_err.len(), 9, "sized rows of lines 316-324 mapped");
    let (tm, tw, tn) = stats(&turin_shm_err);
    println!(
        "lines 316-324 (NCCL over SHM, 4x RTX PRO 6000, dual EPYC 9575F): {tn}, median |error| {:.1} %, worst ratio {tw:.2}×",
        tm * 100.0
    );
    assert!(tw <= 2.0, "a row of lines 316-324 is off by {tw:.2}×");
    // Issue #3's targets for NCCL: median ≤ 15 %, no row off by more than 2× (in-sample here).
    assert!(nm <= 0.15, "NCCL median |error| {:.1} % exceeds 15 %", nm * 100.0);
    assert!(nw <= 2.0, "an NCCL row is off by {nw:.2}×");
}

#[test]
fn r7_custom_one_shot_wins_at_2_gpus_and_loses_at_8_beyond_tens_of_kb() {
    // seed-story R7 on an 8× RTX PRO 6000 switch box with P2P: 4 KB – 1 MB.
    let sizes: Vec<u64> = (12..=20).map(|p| 1u64 << p).collect();
    let preset = "rtx-pro-6000-8x-3switch-luke";
    let c2 = times(preset, "custom-oneshot", "2", &sizes, SYS);
    let n2 = times(preset, "nccl", "2", &sizes, SYS);
    for i in 0..4 {
        assert!(
            c2[i] < n2[i],
            "2 GPUs, {} B: custom {} vs NCCL {}",
            sizes[i],
            c2[i],
            n2[i]
        );
    }
    let c8 = times(preset, "custom-oneshot", "8", &sizes, SYS);
    let n8 = times(preset, "nccl", "8", &sizes, SYS);
    assert!(c8[0] < n8[0], "8 GPUs, 4 KiB: custom should still win");
    let first_loss = (0..sizes.len())
        .find(|&i| c8[i] > n8[i])
        .expect("custom must lose at 8 GPUs");
    assert!(
        (16 << 10..=256 << 10).contains(&sizes[first_loss]),
        "crossover at {} B",
        sizes[first_loss]
    );
    for i in first_loss..sizes.len() {
        assert!(c8[i] > n8[i], "8 GPUs, {} B: custom should keep losing", sizes[i]);
    }
}

/// pcie-collectives.md ("Channel search"; "Measured on public 8× RTX PRO 6000 boxes"): on dual Turin
/// the AMD inter-socket assumption makes NCCL's search fail, and with P2P the default graph takes
/// "48 µs at 32 KB" (48–56 µs at small sizes). The presets' `nccl_simple_step_latency` (2.83 µs) was
/// derived from that 48 µs as (48 − 8.4) / 14; this checks the derivation holds through the flow
/// executor (data time, channel trimming, the SYS hops' latencies) on both dual-Turin presets: each
/// size must land in the measured 48–56 µs range.
#[test]
fn consistency_dual_turin_default_graph_with_p2p_takes_48_to_56_us() {
    for preset in [
        "rtx-pro-6000-8x-dual-turin-festr",
        "rtx-pro-6000-8x-dual-turin-direct",
    ] {
        let t = times(preset, "nccl", "8", &[14336, 32768, 57344], SYS);
        for us in t {
            assert!((48.0..=56.0).contains(&us), "{preset}: {us} µs");
        }
    }
}
