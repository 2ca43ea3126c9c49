//! Issue #19 (shmsize53): how NCCL's SHM allreduce grows with size on two-rank hosts, and why the
//! `a100-pcie-80gb-2x-cross-socket` preset keeps its start and slope.
//!
//! The parts of a Ring/LL call over SHM (sim/src/allreduce.rs `nccl_ring_steps`, sim/src/fabric.rs
//! `shm_flow`): NCCL's Ring/LL base latency once (6.6 µs, model/src/nccl), then per step (2 on two
//! ranks) the two legs through host memory, the SHM step cost and NCCL's LL step (1.0 µs), and the
//! data: LL moves 8 payload bytes in each 16-byte line (NVIDIA/nccl 5067397c src/include/device.h
//! `ncclLLFifoLine`: data1, flag1, data2, flag2; src/device/prims_ll.h `readLL` spins on the line's
//! two flags), so its wire bytes are twice the payload, at the host's SHM rate, cut through in
//! pieces of one pass of the block (nthreads × 8 B, at least 4 KiB).
//!
//! What the measured two-rank SHM hosts show: from 8 to 64 KiB they grow by twice the added bytes at
//! their own large-message rate (the two steps' data back to back behind a short step). The A100
//! preset's measured rate is 11.45 GB/s, three times theirs, so the same parts give it a third of
//! their growth; its 40 µs start is the template's 14 µs cross-socket step (fitted on the seed box),
//! and replacing it with the step derived from host facts (0.4 µs, as `[host]` presets do) makes every
//! TP 2 row on the preset faster than measured (book/src/validation.md, "The SHM size dependence":
//! cssnoeasy c 8 +3.0 → +24.7 %, dennislee 7B at 1 prompt +6.7 → +31.5 %).

use crate::common::*;
use tpsim::scenario::hardware_from_preset;
use tpsim_model::units::Duration;

const A100: &str = "a100-pcie-80gb-2x-cross-socket";

/// µs to move `wire` bytes at `gbps` GB/s.
fn us(wire: f64, gbps: f64) -> f64 {
    wire / (gbps * 1e3)
}

/// The preset as shipped, from its parts. Template params (templates/pcie-nccl-host.toml):
/// pcie_hop_latency 0.34, root_complex_latency 0.42 (0.21 a traversal), inter_socket_latency 0.2 µs;
/// the cross-socket step 14 µs (template, fitted on seed-story S2); `shm_copy_bw` 11.45 GB/s
/// (the preset: cssnoeasy nccl-numa-observations.md at 5b67cd2).
/// - Legs: write GPU0 → root0 → socket0 DRAM 0.34 + 0.21 = 0.55; read socket0 DRAM → socket1 →
///   root2 → GPU1 0.2 + 0.21 + 0.34 = 0.75: 1.30 µs. A step: 1.30 + 14 + 1.0 (LL) = 16.30 µs.
/// - 8 B: 6.6 + 2 × 16.30 = 39.20 µs (+ each step's 4 B payload, 8 B wire: 2 × 8 B ÷ 11.45 GB/s = 0.0014).
/// - 8 KiB (1 channel): each step 4096 B payload, 8192 B wire in one piece, 0.7155 µs; the second
///   waits for the first plus a step: 6.6 + 2 × 16.30 + 2 × 0.7155 = 40.631 µs.
/// - 64 KiB (2 channels sharing the pair's connection, 5.725 GB/s each): per channel and step 16384 B
///   payload = 4 pieces of 4096 B (512 threads × 8 B), 8192 B wire, 1.431 µs each. Step 1's pieces
///   are done at 5.72 µs, before step 2's first is released (1.431 + 16.30), so step 2 streams
///   behind it: 6.6 + 2 × 16.30 + 5 × 1.431 = 46.355 µs.
///
/// Growth 8 → 64 KiB: 5.72 µs, where lines 61→64, 107→110 and 240→243 grow 27–43 µs. Tolerance
/// 0.02 µs (picosecond rounding of each part).
#[test]
fn the_a100_presets_shm_allreduce_is_its_parts() {
    let hw = hardware_from_preset(A100).unwrap();
    let p = &hw.params;
    assert_eq!(p.shm_cross_socket_step_cost, Duration::from_us_f64(14.0));
    assert!((p.shm_copy_bw.as_gbps() - 11.45).abs() < 1e-12);
    assert!(
        hw.host.is_none(),
        "no [host]: the per-pair rate and the template's step"
    );
    assert!(
        hw.fitted["shm_cross_socket_step_cost"]
            .rows
            .contains("seed-story S2")
    );
    let step = 0.55 + 0.75 + 14.0 + 1.0;
    let t = times(A100, "nccl", "2", &[8, 8 << 10, 64 << 10], &[]);
    let want = [
        6.6 + 2.0 * step + 2.0 * us(8.0, 11.45),
        6.6 + 2.0 * step + 2.0 * us(8192.0, 11.45),
        6.6 + 2.0 * step + 5.0 * us(8192.0, 11.45 / 2.0),
    ];
    for (got, w) in t.iter().zip(want) {
        assert!((got - w).abs() < 0.02, "{t:?} against {want:?}");
    }
    assert!((t[2] - t[1] - 5.724).abs() < 0.02, "{t:?}");
}

/// The measured hosts' growth is their own rate. On two ranks each of the 2 steps sends half the
/// message over each connection, so from 8 to 64 KiB a connection carries 57344 B more payload, 114688
/// B more on the wire (LL), back to back when the step is short. At each host's own large-message
/// busbw (two ranks: busbw = algbw):
/// - AutoDL 2× RTX 2080 Ti (lines 240, 243; line 257: 1 GiB in 268588 µs = 3.998 GB/s):
///   114688 B ÷ 3.998 GB/s = 28.69 µs against 40.10 − 13.07 = 27.03 measured (−5.8 %);
/// - kalavai, one GPU per socket (lines 107, 110; line 125: 2 GiB in 557166 µs = 3.854 GB/s):
///   29.76 µs against 44.14 − 13.49 = 30.65 (+3.0 %).
///
/// (Lines 61→64, the kalavai pair behind one switch, end on Simple: NCCL 2.19 leaves LL at 44,800 B
/// there, collectives.md "The kalavai host's NCCL".) Tolerance 10 %. The same parts at the A100
/// preset's measured 11.45 GB/s give at most 114688 ÷ 11.45 = 10.02 µs: a third of theirs.
#[test]
fn the_measured_two_rank_growth_is_each_hosts_own_rate() {
    for (small, large, big) in [(240, 243, 257), (107, 110, 125)] {
        let (_, n, s8, t8) = allreduce_row(small);
        let (_, _, s64, t64) = allreduce_row(large);
        let (_, _, sb, tb) = allreduce_row(big);
        assert_eq!((n.as_str(), s8, s64), ("2", 8192, 65536), "line {small}");
        let busbw = sb as f64 / (tb * 1e3);
        let parts = us(2.0 * (s64 - s8) as f64, busbw);
        let measured = t64 - t8;
        assert!(
            (measured / parts - 1.0).abs() < 0.10,
            "lines {small}-{large}: measured {measured:.2} µs, parts {parts:.2} µs at {busbw:.3} GB/s"
        );
        // A host three times as fast grows a third as much: never the 27-43 µs of these hosts.
        assert!(us(2.0 * (s64 - s8) as f64, 11.45) < measured / 2.5);
    }
}

/// The start from host facts, and why the preset does not take it. With the cross-socket step a
/// `[host]` preset derives (0.2 µs shm_step_cost + 0.2 µs inter_socket_latency = 0.4 µs,
/// `tpsim_model::shm::cross_socket_step_cost`, which reproduces the kalavai cross-socket pair's
/// 10.98 µs at 8 B within +22 %, tests/tests/shm_host.rs) a step is 1.30 + 0.4 + 1.0 = 2.70 µs:
/// - 7 KiB: 6.6 + 2 × 2.70 + 2 steps × 7168 wire B (3584 payload) ÷ 11.45 GB/s = 13.252 µs (as
///   shipped 40.452);
/// - 8 KiB: 6.6 + 5.4 + 2 × 0.7155 = 13.431 µs, the 13–17 µs the measured pairs start at;
/// - 64 KiB: both steps' 131072 wire bytes back to back, then one step: 6.6 + 11.447 + 2.70 =
///   20.747 µs.
///
/// On dennislee's Qwen2-7B TP 2 at 1 prompt (57 allreduces of 7 KiB a step; tpsim's TPOT 8.27 ms
/// as shipped) that takes 57 × (40.452 − 13.252) µs = 1.550 ms off the step: 6.72 ms against the
/// measured 8.82 (error +31 %, beyond the 20 % target; +6.7 % as shipped). Tolerances: 0.02 µs on
/// the collective, 0.05 ms on the TPOT.
#[test]
fn the_fact_derived_start_moves_the_out_of_sample_rows_away() {
    let derived =
        tpsim_model::shm::cross_socket_step_cost(Duration::from_us_f64(0.2), Duration::from_us_f64(0.2));
    assert_eq!(derived, Duration::from_us_f64(0.4));
    let dir = scratch("shmsize53-derived");
    let hw = dir.join("a100.toml");
    let preset = std::fs::read_to_string(scenario(&format!("hardware/{A100}.toml"))).unwrap();
    std::fs::write(
        &hw,
        preset.replace(
            "shm_copy_bw = \"11.45GB/s\"",
            "shm_copy_bw = \"11.45GB/s\"\nshm_cross_socket_step_cost = \"0.4us\"",
        ),
    )
    .unwrap();
    let t = times(
        hw.to_str().unwrap(),
        "nccl",
        "2",
        &[7 << 10, 8 << 10, 64 << 10],
        &[],
    );
    let step = 0.55 + 0.75 + 0.4 + 1.0;
    let want = [
        6.6 + 2.0 * step + 2.0 * us(7168.0, 11.45),
        6.6 + 2.0 * step + 2.0 * us(8192.0, 11.45),
        6.6 + us(131072.0, 11.45) + step,
    ];
    for (got, w) in t.iter().zip(want) {
        assert!((got - w).abs() < 0.02, "{t:?} against {want:?}");
    }
    // The serving row, as shipped and with the derived step inline.
    let file = "validation/qwen2-7b-a100x2-vllm-0.10.1-tp2-c1.toml";
    let shipped = f(&run_json(&scenario(file))["serving"]["tpot_ms"]["p50"]);
    let edited = edited_variant(file, "shmsize53-c1", |t| {
        t.replace(
            "[model]",
            "[hardware.params]\nshm_cross_socket_step_cost = \"0.4us\"\n\n[model]",
        )
    });
    let derived_tpot = f(&run_json(&edited)["serving"]["tpot_ms"]["p50"]);
    let saved = 57.0 * (40.452 - 13.252) / 1000.0;
    assert!((shipped - 8.27).abs() < 0.05, "{shipped} ms");
    assert!(
        (derived_tpot - (shipped - saved)).abs() < 0.05,
        "{derived_tpot} ms"
    );
    // 1000 ÷ TPOT against the README's 1000 ÷ 8.82: the shipped start is within the target, the
    // derived one is not.
    assert!((8.82 / shipped - 1.0).abs() < 0.20);
    assert!(8.82 / derived_tpot - 1.0 > 0.25, "{derived_tpot} ms");
}
