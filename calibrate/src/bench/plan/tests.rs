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
    assert!(e.contains("`gpu`") && e.contains("mem, p2p, gemm, nccl"), "{e}");
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
    // /work/shared/data/allreduce.tsv line 22: 8 GPUs, 268435456 B, 10226.11 µs → busbw 45.940
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

fn shape(ps: &[Projection], name: &str) -> (u64, u64) {
    let p = ps
        .iter()
        .find(|p| p.name == name)
        .unwrap_or_else(|| panic!("no {name} in {ps:?}"));
    (p.n, p.k)
}

#[test]
fn llama_8b_projections_at_tp8() {
    // config.json: hidden 4096, 32 heads, 8 KV heads, head_dim 128, intermediate 14336, vocab 128256.
    let ps = gemm_projections().unwrap();
    assert_eq!(shape(&ps, "llama-3.1-8b/qkv_proj"), ((4 + 2) * 128, 4096));
    assert_eq!(shape(&ps, "llama-3.1-8b/o_proj"), (4096, 512));
    assert_eq!(shape(&ps, "llama-3.1-8b/mlp.gate_up_proj"), (2 * 1792, 4096));
    assert_eq!(shape(&ps, "llama-3.1-8b/mlp.down_proj"), (4096, 1792));
    assert_eq!(shape(&ps, "llama-3.1-8b/lm_head"), (16032, 4096));
    assert_eq!(ps.iter().filter(|p| p.name.starts_with("llama")).count(), 5);
}

#[test]
fn kimi_k25_projections_at_tp8() {
    // config.json: hidden 7168, 64 heads, q_lora 1536, kv_lora 512, qk_nope 128, qk_rope 64,
    // v_head 128, intermediate 18432, 384 experts of 2048, 1 shared, vocab 163840.
    let ps = gemm_projections().unwrap();
    assert_eq!(shape(&ps, "kimi-k2.5/fused_qkv_a_proj"), (1536 + 512 + 64, 7168));
    assert_eq!(shape(&ps, "kimi-k2.5/q_b_proj"), (8 * 192, 1536));
    assert_eq!(shape(&ps, "kimi-k2.5/o_proj"), (7168, 1024));
    assert_eq!(shape(&ps, "kimi-k2.5/mlp.gate_up_proj"), (4608, 7168));
    assert_eq!(shape(&ps, "kimi-k2.5/mlp.down_proj"), (7168, 2304));
    assert_eq!(shape(&ps, "kimi-k2.5/moe.router"), (384, 7168));
    assert_eq!(shape(&ps, "kimi-k2.5/moe.expert.gate_up_proj"), (512, 7168));
    assert_eq!(shape(&ps, "kimi-k2.5/moe.expert.down_proj"), (7168, 256));
    assert_eq!(shape(&ps, "kimi-k2.5/moe.shared.down_proj"), (7168, 256));
    assert_eq!(shape(&ps, "kimi-k2.5/lm_head"), (20480, 7168));
    // Expert and shared expert shards coincide: timed once.
    let d = distinct_shapes(&ps);
    let (_, _, names) = d.iter().find(|(n, k, _)| (*n, *k) == (7168, 256)).unwrap();
    assert_eq!(
        names,
        &["kimi-k2.5/moe.expert.down_proj", "kimi-k2.5/moe.shared.down_proj"]
    );
    assert_eq!(d.len(), ps.len() - 2);
}

#[test]
fn versions_format() {
    assert_eq!(cuda_version_string(12080), "12.8");
    assert_eq!(cuda_version_string(13000), "13.0");
    assert_eq!(nccl_version_string(22703), "2.27.3");
    assert_eq!(nccl_version_string(2708), "2.7.8");
    let proc_text =
        "NVRM version: NVIDIA UNIX x86_64 Kernel Module  570.86.15  Thu Jan 30 2025\nGCC version: gcc 12\n";
    assert_eq!(parse_driver_version(proc_text).as_deref(), Some("570.86.15"));
    let open = "NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  575.57.08  Release Build\n";
    assert_eq!(parse_driver_version(open).as_deref(), Some("575.57.08"));
    assert_eq!(parse_driver_version("garbage"), None);
}

#[test]
fn pcie_links_from_sysfs_text() {
    // Kernel formats: "32.0 GT/s PCIe" (5.x and later), "8 GT/s" and "2.5 GT/s" (older).
    assert_eq!(pcie_gen("32.0 GT/s PCIe\n"), Some(5));
    assert_eq!(pcie_gen("8 GT/s"), Some(3));
    assert_eq!(pcie_gen("2.5 GT/s"), Some(1));
    assert_eq!(pcie_gen("Unknown"), None);
    assert_eq!(
        pcie_link("16.0 GT/s PCIe\n", "16\n"),
        Some(PcieLink {
            generation: 4,
            lanes: 16
        })
    );
    assert_eq!(pcie_link("16.0 GT/s PCIe", "0"), None);
    assert_eq!(pcie_links_from_sysfs("ffff:ff:ff.9"), PcieLinks::default());
}

fn h200(ordinal: u32) -> DeviceInfo {
    DeviceInfo {
        ordinal,
        name: "NVIDIA H200".into(),
        total_mem_bytes: 150_754_820_096,
        sm_count: 132,
        cc: (9, 0),
        pci_bus_id: "0000:19:00.0".into(),
        l2_bytes: 52_428_800,
        mem_clock_khz: 2_619_000,
        mem_bus_bits: 6144,
        pcie: PcieLinks {
            current: Some(PcieLink {
                generation: 5,
                lanes: 16,
            }),
            max: None,
        },
    }
}

#[test]
fn device_note_and_peak_bandwidth() {
    // 2 × 2.619 GHz × 6144 bit / 8 = 4022.8 GB/s; 150754820096 B >> 20 = 143771 MiB.
    let d = h200(0);
    assert!(close(d.peak_mem_gbps(), 4022.784, 1e-6));
    assert_eq!(
        d.note(),
        "gpu 0: NVIDIA H200, 143771 MiB, 132 SMs, sm_90, L2 50 MiB, pci 0000:19:00.0 PCIe gen5 x16 (max ?; an idle GPU may train its link down), peak memory bandwidth from driver attributes 4023 GB/s"
    );
}

#[test]
fn assembled_file_round_trips_through_json() {
    let facts = MachineFacts {
        hostname: Some("box1".into()),
        devices: vec![h200(0), h200(1)],
        driver_version: Some("570.86.15".into()),
        cuda_driver_api: Some(12080),
        nccl_code: Some(22703),
    };
    let plan = Plan::new(true, Family::ALL.into_iter().collect(), SizeRange::DEFAULT);
    let records = vec![Record::Collective {
        op: "allreduce".into(),
        n_gpus: 2,
        size_bytes: 4096,
        time_us: 10.0,
        busbw_gbps: allreduce_busbw_gbps(4096, 10.0, 2),
        backend: Some("nccl".into()),
        env: vec![],
        placement: Some("in-place".into()),
    }];
    let f = assemble(&facts, &plan, records, vec!["p2p skipped: one GPU".into()]);
    assert_eq!(f.schema, crate::measurement::SCHEMA);
    let p = &f.provenance;
    assert_eq!(p.tool, "bench");
    assert_eq!(p.gpu.as_deref(), Some("NVIDIA H200"));
    assert_eq!(p.gpu_count, Some(2));
    assert_eq!(p.cuda_version.as_deref(), Some("12.8"));
    assert_eq!(p.nccl_version.as_deref(), Some("2.27.3"));
    assert_eq!(p.notes.len(), 2 + method_notes(&plan).len() + 1);
    assert_eq!(p.notes.last().map(String::as_str), Some("p2p skipped: one GPU"));
    let json = serde_json::to_string_pretty(&f).unwrap();
    let back: MeasurementFile = serde_json::from_str(&json).unwrap();
    assert_eq!(back, f);
    // busbw 4096 / 10 µs = 0.4096 GB/s algbw, × 2·1/2 = 0.4096.
    assert!(json.contains("\"busbw_gbps\": 0.4096"), "{json}");
}
