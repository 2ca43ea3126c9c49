use super::*;

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

#[test]
fn sizes_parse_with_binary_suffixes() {
    assert_eq!(parse_size("4K"), Ok(4096));
    assert_eq!(parse_size("256M"), Ok(268_435_456));
    assert_eq!(parse_size("1g"), Ok(1_073_741_824));
    assert_eq!(parse_size("123"), Ok(123));
    for bad in ["", "4X", "0", "-1", "K", "99999999999999999999G"] {
        let e = parse_size(bad).unwrap_err();
        assert!(e.contains(&format!("`{bad}`")), "{e}");
    }
}

#[test]
fn default_sweep_is_17_doublings_from_4k_to_256m() {
    let r = parse_sizes("4K..256M").unwrap();
    assert_eq!(r, SizeRange::DEFAULT);
    let s = r.sizes();
    // 4 KiB × 2^16 = 256 MiB: 17 sizes.
    assert_eq!(s.len(), 17);
    assert_eq!(s[0], 4096);
    assert_eq!(s[1], 8192);
    assert_eq!(s[16], 268_435_456);
    // A bound that is not lo × 2^j is not exceeded.
    assert_eq!(parse_sizes("4K..20K").unwrap().sizes(), vec![4096, 8192, 16384]);
    assert!(parse_sizes("256M..4K").unwrap_err().contains("larger than"));
    assert!(parse_sizes("4K-256M").unwrap_err().contains("LO..HI"));
}

#[test]
fn only_accepts_family_names() {
    let s = parse_only("mem, nccl").unwrap();
    assert_eq!(s.into_iter().collect::<Vec<_>>(), vec![Family::Mem, Family::Nccl]);
    let e = parse_only("mem,gpu").unwrap_err();
    assert!(
        e.contains("`gpu`") && e.contains("mem, p2p, gemm, stream, nccl"),
        "{e}"
    );
}

#[test]
fn quick_plan_is_smaller_and_full_plan_copies_1_gib() {
    let all: BTreeSet<Family> = Family::ALL.into_iter().collect();
    let full = Plan::new(false, all.clone(), SizeRange::DEFAULT);
    let quick = Plan::new(true, all, SizeRange::DEFAULT);
    assert_eq!(full.d2d_bytes, 1 << 30);
    assert!(quick.d2d_bytes < full.d2d_bytes && quick.iters < full.iters);
    assert!(full.runs(Family::Gemm));
}

#[test]
fn stats_sort_for_median() {
    let s = stats(&[3.0, 1.0, 2.0]).unwrap();
    assert_eq!((s.min, s.median, s.mean), (1.0, 2.0, 2.0));
    let s = stats(&[4.0, 1.0, 3.0, 2.0]).unwrap();
    assert_eq!((s.min, s.median, s.mean), (1.0, 2.5, 2.5));
    assert_eq!(stats(&[]), None);
    assert_eq!(stats(&[1.0, f64::NAN]), None);
}

#[test]
fn bandwidths_in_gb_per_s() {
    // 1 GiB in 10 ms = 1073741824 / 1e7 = 107.3741824 GB/s.
    assert!(close(gbps(1 << 30, 10.0).unwrap(), 107.374_182_4, 1e-9));
    // D2D counts read + write: 2^31 / 5e6 = 429.4967296 GB/s.
    assert!(close(d2d_gbps(1 << 30, 5.0).unwrap(), 429.496_729_6, 1e-9));
    assert_eq!(gbps(1, 0.0), None);
    assert_eq!(gbps(1, f64::INFINITY), None);
}

#[test]
fn busbw_matches_allreduce_tsv_rows() {
    // tests/data/allreduce.tsv line 22: 8 GPUs, 268435456 B, 10226.11 µs → busbw 45.940
    // (printed to 2 decimals: tolerance 0.005).
    let b = allreduce_busbw_gbps(268_435_456, 10_226.11, 8).unwrap();
    assert!(close(b, 45.94, 0.005), "{b}");
    // Line 38: 7 GPUs, 4294967296 B, 177416.89 µs → busbw 41.500 (tolerance 0.001).
    let b = allreduce_busbw_gbps(4_294_967_296, 177_416.89, 7).unwrap();
    assert!(close(b, 41.5, 0.001), "{b}");
    // One GPU moves nothing over the bus.
    assert_eq!(allreduce_busbw_gbps(4096, 10.0, 1), Some(0.0));
    assert_eq!(allreduce_busbw_gbps(4096, 0.0, 8), None);
    assert_eq!(allreduce_busbw_gbps(4096, 10.0, 0), None);
}

#[test]
fn one_way_latency_removes_fixed_cost() {
    // 1000 round trips in 10 ms, 5000 in 30 ms: 20 ms / 4000 = 5 µs per round trip, 2.5 µs one way.
    assert!(close(
        one_way_latency_us(10.0, 1000, 30.0, 5000).unwrap(),
        2.5,
        1e-12
    ));
    assert_eq!(one_way_latency_us(10.0, 5000, 30.0, 1000), None);
    assert_eq!(one_way_latency_us(30.0, 1000, 10.0, 5000), None);
    assert_eq!(one_way_latency_us(f64::NAN, 1000, 10.0, 5000), None);
}

#[test]
fn rotation_spans_twice_l2() {
    // Llama-3.1-8B qkv at TP 8: 768 × 4096 bf16 = 6 MiB; 50 MiB L2 → ⌈100 / 6⌉ = 17 copies.
    assert_eq!(rotation_copies(768 * 4096 * 2, 50 << 20), 17);
    // Kimi-K2.5 LM head shard: 20480 × 7168 × 2 B = 280 MiB > 2 × L2: one copy.
    assert_eq!(rotation_copies(20480 * 7168 * 2, 50 << 20), 1);
    assert_eq!(rotation_copies(1024, 50 << 20), 64);
    assert_eq!(rotation_copies(0, 50 << 20), 1);
}
