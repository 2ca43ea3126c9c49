//! Issue #19 point 3: custom allreduce kernels as they run (`sim::custom_kernels`), against
//! measurements. `validation_*`: no constant the prediction uses was fitted to the rows checked;
//! `consistency_*`: one was (named in the test).

use crate::common::*;

const ASUS: &str = "rtx-pro-6000-8x-asus-esc8000a-e13p";
const LUKE: &str = "rtx-pro-6000-8x-3switch-luke";
const SEED_BOX: &str = "rtx-pro-6000-8x-dual-turin-direct";

/// FlashInfer's own table (SGLang 0.5.23 `srt/distributed/device_communicators/pcie_ipc_ar.py`,
/// module docstring: one 8× SM 120 host, GPUs 0–3 and 4–7 on separate NUMA nodes, no switch, bf16,
/// hidden 6144): 12 KiB 5.3 µs, 96 KiB 15.3 µs, 384 KiB 34.6 µs. tpsim runs the kernel FlashInfer's
/// seed policy picks (island push below 32 KiB, staged island ring above) as posted writes on the
/// seed box's preset, whose links and latencies come from P2P bandwidth and ping-pong tests, not
/// from this table. Tolerance: issue #19's 1.5× for custom kernels. (100 MiB, 8.5 ms measured, is
/// predicted 2.1× fast and not asserted: the book says why.)
#[test]
fn validation_flashinfer_pcie_ipc_on_the_switch_free_dual_numa_box() {
    let sizes = [12288, 98304, 393216];
    let measured = [5.3, 15.3, 34.6];
    let p = times(SEED_BOX, "flashinfer-pcie-ipc", "8", &sizes, &[]);
    for ((s, m), p) in sizes.iter().zip(measured).zip(&p) {
        println!(
            "FlashInfer PCIe IPC {s} B: predicted {p:.2} µs, measured {m} µs ({:.2}×)",
            p / m
        );
        assert!(
            p / m <= 1.5 && m / p <= 1.5,
            "{s} B: predicted {p} µs, measured {m} µs"
        );
    }
    // The old model (the staged push with staged-load latencies on every flag) took ≈ 128 µs at
    // 12 KiB; FlashInfer's kernels only store into peers, which the driver does not stage.
    let staged = times(SEED_BOX, "custom-staged-push", "8", &[12288], &[])[0];
    assert!(
        staged > 10.0 * p[0],
        "staged push {staged} µs vs FlashInfer {} µs",
        p[0]
    );
}

/// luke's one-shot pull rows (allreduce.tsv lines 40, 42, 44, 46, 48, 50: 7.5, 7.5, 9.2, 16.5, 25.9,
/// 73.6 µs at 256 B … 256 KiB, 8 GPUs behind 3 Microchip switches): the kernel's launch shape, read
/// round trips and links of the luke preset, whose `kernel_read_outstanding` is unset, as Luke's
/// kernel (`custom-pcie-oneshot`: no end barrier, the 2 µs per-kernel gap of graph replay). Each row
/// within 10 % (predicted today 7.4, 7.6, 9.6, 16.5, 25.7, 80.7 µs: worst +9.6 % at 256 KiB, where
/// the switch uplinks bind; as vLLM's one-shot 7.2, 7.4, 9.4, 16.3, 25.5, 80.5).
#[test]
fn validation_luke_one_shot_rows_within_10_percent() {
    let sizes = [256, 1024, 8192, 32768, 65536, 262144];
    let measured = [7.5, 7.5, 9.2, 16.5, 25.9, 73.6];
    let p = times(LUKE, "custom-pcie-oneshot", "8", &sizes, &[]);
    for ((s, m), p) in sizes.iter().zip(measured).zip(&p) {
        println!("luke one-shot {s} B: predicted {p:.2} µs, measured {m} µs");
        assert!(
            (p - m).abs() / m <= 0.10,
            "{s} B: predicted {p} µs, measured {m} µs"
        );
    }
}

/// The ASUS box's 4-GPU one-shot (p2pmark, rtx6kpro `hardware/asus-esc8000a-e13p-broadcom-switches.md`,
/// "AllReduce: Custom vs NCCL (4 GPU, fp16)"): the preset's `kernel_read_outstanding` (124,400 B) was
/// fitted to the 32 MB row, so that row is in-sample; 64 KB … 4 MB are not (12.3, 17.4, 28.8, 50.9,
/// 95.3, 363 µs). Little's law by hand at 32 MB: 3 × 33,554,432 B read at 124,400 B per 3.56 µs round
/// trip → 100,663,296 × 3.56 / 124,400 = 2881 µs, plus the last window's 124,400 B at the 53.6 GB/s
/// link (2.3 µs), the start barrier and the 2 µs graph-replay gap of Luke's kernel
/// (`custom-pcie-oneshot`; the fit was made on vLLM's one-shot, 2882 µs, within 0.2 % of it).
/// Tolerances: 1 % in-sample, 10 % out. The 64 KB row is the one the last window's serialization
/// decides: without it tpsim gave 9.2 µs (−25 %), now 11.7 (−5 %).
#[test]
fn consistency_asus_4gpu_one_shot_reads_at_the_littles_law_rate() {
    let sizes = [65536, 131072, 262144, 524288, 1048576, 4194304, 33554432];
    let measured = [12.3, 17.4, 28.8, 50.9, 95.3, 363.0];
    let p = times(ASUS, "custom-pcie-oneshot", "4", &sizes, &[]);
    println!("ASUS 4 GPUs one-shot: {p:?} µs (measured {measured:?}, 2882)");
    assert!((p[6] - 2882.0).abs() / 2882.0 <= 0.01, "32 MB: {} µs", p[6]);
    for ((s, m), q) in sizes.iter().zip(measured).zip(&p) {
        assert!((q - m).abs() / m <= 0.10, "{s} B: {q} µs, measured {m}");
    }
    // The bound names itself: the reader's Little's-law link is the busiest.
    let o = tpsim(&[
        "collective",
        "--hardware",
        ASUS,
        "--gpus",
        "4",
        "--algo",
        "custom-pcie-oneshot",
        "--sizes",
        "32M",
        "--json",
    ]);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let b = j["rows"][0]["bottleneck"].as_str().unwrap_or_default();
    assert!(b.starts_with("kernel peer reads into GPU"), "bottleneck {b}");
}

/// A peer read takes the round trip: on 4 GPUs of the ASUS box a 256-byte one-shot (one block, all
/// reads in flight at once) is two barriers plus one read round trip, so it must take longer than
/// the same data pushed (two barriers plus one one-way write); both pay the same per-kernel gap.
/// The measured 6.2 µs (same p2pmark table) is Luke's pull kernel replayed from a CUDA graph (p2pmark
/// 3c39f36 `bench_custom_ar`: start barrier, read round trip, no end barrier, the graph's per-kernel
/// gap), so it is checked against that kernel, within 20 % (7.36 µs today, +18.7 %). Before pcieck
/// it was checked against vLLM's one-shot, which then paid no gap on PCIe (7.14 µs); with the gap
/// that kernel takes 9.14 µs, one barrier and no measurement away.
#[test]
fn validation_reads_pay_the_round_trip_writes_do_not() {
    let pull = times(ASUS, "custom-oneshot", "4", &[256], &[])[0];
    let push = times(ASUS, "custom-push", "4", &[256], &[])[0];
    let luke = times(ASUS, "custom-pcie-oneshot", "4", &[256], &[])[0];
    println!(
        "ASUS 4 GPUs 256 B: pull {pull:.2} µs, push {push:.2} µs, Luke's pull {luke:.2} µs (measured 6.2)"
    );
    assert!(pull > push + 0.5, "pull {pull} µs vs push {push} µs");
    assert!(
        (luke - 6.2).abs() / 6.2 <= 0.20,
        "Luke's pull {luke} µs vs 6.2 measured"
    );
}

const H100_BOX: &str = "h100-sxm-8x-nvlink";

/// The rows of `tests/data/nvlink-custom-ar.tsv` whose `use` column is `use_`: (ranks, size, µs).
fn nvlink_rows(use_: &str, launch: &str) -> Vec<(u64, u64, f64)> {
    let text = std::fs::read_to_string(data_path("nvlink-custom-ar.tsv")).unwrap();
    let mut lines = text.lines();
    let head: Vec<&str> = lines.next().unwrap().split('\t').collect();
    let col = |name: &str| head.iter().position(|h| *h == name).unwrap();
    let (n, s, t, u, l) = (
        col("n_gpus"),
        col("size_bytes"),
        col("time_us"),
        col("use"),
        col("launch"),
    );
    lines
        .map(|line| line.split('\t').collect::<Vec<_>>())
        .filter(|c| c[u] == use_ && c[l] == launch)
        .map(|c| {
            (
                c[n].parse().unwrap(),
                c[s].parse().unwrap(),
                c[t].parse().unwrap(),
            )
        })
        .collect()
}

/// hopperstep: vLLM's one-shot in a CUDA graph on H100 NVLink (vLLM PR #24111,
/// `benchmark_device_communicators.py`, 10 back-to-back `ca_1stage` calls per replayed graph;
/// `nvlink-custom-ar.tsv` lines 2-3): 512 KiB at 2 ranks 7 µs, at 6 ranks 13 µs. No constant of the
/// prediction was fitted to them: the link is the datasheet's 450 GB/s, its latency NCCL's 0.6 µs
/// NVLink step, the gap the H100 template's `kernel_overhead` (3 µs, chosen on decode rows). By hand
/// at 2 ranks: flag barrier 0.6 µs, one read round trip 1.2 µs plus 524,288 B at 450 GB/s 1.17 µs,
/// end barrier 0.6 µs = 3.57 µs, plus the 3 µs gap = 6.57 µs (−6 %). 6 ranks: 8.23 + 3 = 11.23 µs
/// (−14 %). Tolerance 15 % (the table prints whole µs: ±0.5 µs is 7 % of 7 µs). Without the gap the
/// flow alone is −49 % and −37 %: the second assertion is what the rows say about the gap.
#[test]
fn validation_vllm_one_shot_in_a_cuda_graph_on_h100_nvlink() {
    let rows = nvlink_rows("compared", "graph");
    assert_eq!(rows.len(), 2);
    for (n, size, m) in rows {
        let p = times(
            H100_BOX,
            "custom-oneshot",
            &n.to_string(),
            &[size],
            &["--launch", "graph"],
        )[0];
        println!("H100 one-shot {n} ranks {size} B: predicted {p:.2} µs, measured {m} µs");
        assert!((p - m).abs() / m <= 0.15, "{n} ranks: {p} µs vs {m}");
        // The flow alone (the prediction less the 3 µs gap) is more than 35 % fast.
        assert!((p - 3.0) < 0.65 * m, "{n} ranks: {p} µs less the gap vs {m}");
    }
}

/// hopperstep: SGLang PR #2904's eager H100 table of vLLM's kernel (`nvlink-custom-ar.tsv` lines
/// 5-22) bounds the in-graph cost from above: eagerly each call also launches from the host and copies
/// its input into the registered buffer. Every row that vLLM's dispatch runs one-shot (2 ranks: all;
/// 4 ranks: below 512 KiB; 8 ranks: below 256 KiB) must cost less in tpsim's graph than measured
/// eagerly; the closest today is 2 ranks at 32 KiB, 5.47 µs against 8.7 µs.
#[test]
fn validation_vllm_one_shot_in_a_graph_is_below_sglang_pr_2904_eager_rows() {
    let rows = nvlink_rows("upper bound (one-shot sizes)", "eager");
    assert_eq!(rows.len(), 18);
    let one_shot = |n: u64, s: u64| n == 2 || (n == 4 && s < 512 << 10) || (n == 8 && s < 256 << 10);
    let mut checked = 0;
    for (n, size, m) in rows.into_iter().filter(|&(n, s, _)| one_shot(n, s)) {
        let p = times(
            H100_BOX,
            "custom-oneshot",
            &n.to_string(),
            &[size],
            &["--launch", "graph"],
        )[0];
        println!("H100 one-shot {n} ranks {size} B: graph {p:.2} µs, eager measured {m} µs");
        assert!(p < m, "{n} ranks {size} B: {p} µs in a graph vs {m} µs eager");
        checked += 1;
    }
    assert_eq!(checked, 13);
}
