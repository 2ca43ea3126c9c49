//! hwpresets64 (issue #17 point 4): hardware presets for boxes the launch-command survey names and tpsim
//! lacked: 8× A100 SXM4 80 / 40 GB on an NVSwitch board (DGX / HGX A100), 2× and 4× H200 NVL on their
//! NVLink bridge, and one GH200 (96 GB HBM3, "NVIDIA GH200 480GB"). Each resolves with the datasheet and
//! nvidia-smi figures its file cites, shows the NVLink matrix its source shows, starts a model at its TP,
//! and prices a small allreduce at NCCL's NVLink latency. None is calibrated: no allreduce or throughput
//! row of these boxes is in tests/data.

use crate::common::*;
use tpsim::scenario::hardware_from_preset;

fn gbps(b: tpsim_model::units::Bandwidth) -> f64 {
    b.bytes_per_s() as f64 / 1e9
}

/// The GPU rows of `tpsim topo --hardware PRESET`: one line per GPU, its peers' classes.
fn topo_rows(preset: &str) -> Vec<Vec<String>> {
    let o = tpsim(&["topo", "--hardware", preset]);
    assert_eq!(o.code, 0, "{preset}: {}", o.stderr);
    // The first matrix (path classes) ends at its legend; the transport matrix below repeats GPU rows.
    let first = o.stdout.split("Legend:").next().unwrap_or_default();
    first
        .lines()
        .filter(|l| l.starts_with("GPU") && !l.starts_with("GPU0   GPU1"))
        .map(|l| l.split_whitespace().map(str::to_string).collect())
        .collect()
}

/// Every pair of `preset`'s `n` GPUs is NVLink ("NV"), as the source's `nvidia-smi topo -m` shows it.
fn assert_full_nvlink(preset: &str, n: usize) {
    let rows = topo_rows(preset);
    assert_eq!(rows.len(), n, "{preset}: {rows:?}");
    for (i, r) in rows.iter().enumerate() {
        for j in 0..n {
            let want = if i == j { "X" } else { "NV" };
            assert_eq!(r[1 + j], want, "{preset}: GPU{i} -> GPU{j}: {r:?}");
        }
    }
}

/// DGX / HGX A100: A100 datasheet (SXM: BF16 312 TFLOPS dense, 108 SMs, NVLink 600 GB/s bidirectional =
/// 300 per direction; 80 GB HBM2e 2,039 GB/s = 81920 MiB, 40 GB HBM2 1,555 GB/s = 40960 MiB). NVIDIA/nccl
/// issue 1505's `nvidia-smi topo -m` of a DGX A100: NV12 between all eight; GPUs 0-3 on NUMA 3 and 1
/// (socket 0), 4-7 on NUMA 7 and 5 (socket 1), two per PCIe switch. Host AMD (2× EPYC 7742).
#[test]
fn a100_nvswitch_boxes_have_datasheet_figures_and_an_nvlink_matrix() {
    for (preset, mib, gbs) in [
        ("a100-sxm4-80gb-8x-nvswitch", 81_920, 2039.0),
        ("a100-sxm4-40gb-8x-nvswitch", 40_960, 1555.0),
    ] {
        let hw = hardware_from_preset(preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
        let g = &hw.gpu;
        assert_eq!(g.memory_total_mib, mib, "{preset}");
        assert!((gbps(g.memory_bandwidth) - gbs).abs() < 1e-6, "{preset}");
        assert!((g.bf16_tflops - 312.0).abs() < 1e-9, "{preset}");
        assert_eq!((g.sm_count, g.compute_capability.as_str()), (108, "8.0"));
        assert!(g.nvlink, "{preset}");
        let nv = hw.params.nvlink_bw.expect("nvlink_bw");
        assert!((gbps(nv) - 300.0).abs() < 1e-6, "{preset}: {}", gbps(nv));
        assert!(hw.cpu_amd, "{preset}");
        assert_full_nvlink(preset, 8);
        let rows = topo_rows(preset);
        let sockets: Vec<&str> = rows
            .iter()
            .map(|r| r.last().unwrap().split('/').next().unwrap())
            .collect();
        assert_eq!(
            sockets,
            [0, 0, 0, 0, 1, 1, 1, 1].map(|s| if s == 0 { "socket0" } else { "socket1" })
        );
        // Two GPUs per switch: GPU0 and GPU1 share a path, GPU1 and GPU2 do not.
        assert_eq!(rows[0].last(), rows[1].last(), "{preset}");
        assert_ne!(rows[1].last(), rows[2].last(), "{preset}");
    }
}

/// H200 NVL: H200 datasheet, NVL column (141 GB, 4.8 TB/s, BF16 1,671 and FP8 3,341 TFLOPS with sparsity
/// → 835.5 / 1,670.5 dense, FP32 60; NVLink bridge 900 GB/s per GPU = 450 per direction); nvidia-smi
/// 143771 MiB and 132 SMs from public lines. 2-way: the pair on NVLink; 4-way: a full mesh, every pair NV.
#[test]
fn h200_nvl_bridges_have_datasheet_figures_and_join_every_pair() {
    for (preset, n) in [("h200-nvl-2x-nvlink-bridge", 2), ("h200-nvl-4x-nvlink-bridge", 4)] {
        let hw = hardware_from_preset(preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
        let g = &hw.gpu;
        assert_eq!(g.memory_total_mib, 143_771, "{preset}");
        assert!((gbps(g.memory_bandwidth) - 4800.0).abs() < 1e-6, "{preset}");
        assert!((g.bf16_tflops - 1671.0 / 2.0).abs() < 1e-9, "{preset}");
        assert_eq!(g.fp8_tflops, Some(3341.0 / 2.0), "{preset}");
        assert_eq!(g.fp32_tflops, Some(60.0), "{preset}");
        assert_eq!((g.sm_count, g.compute_capability.as_str()), (132, "9.0"));
        assert_eq!(g.device_name.as_deref(), Some("NVIDIA H200 NVL"));
        assert_eq!((g.pcie_gen, g.pcie_width), (5, 16), "{preset}");
        assert!(g.nvlink, "{preset}");
        let nv = hw.params.nvlink_bw.expect("nvlink_bw");
        assert!((gbps(nv) - 450.0).abs() < 1e-6, "{preset}");
        assert_full_nvlink(preset, n);
    }
}

/// GH200 480GB (96 GB HBM3): nvidia-smi 97871 MiB, datasheet "up to 4TB/s", BF16 1,979 with sparsity →
/// 989 dense as the H100 SXM it extends, 132 SMs, SM 9.0. No PyTorch total was found: none is inherited
/// from the H100 (79.19 GiB would be wrong here), so `tpsim memory` shows 97871 / 1024 = 95.58 GiB.
#[test]
fn gh200_has_the_96gb_hbm3_figures() {
    let hw = hardware_from_preset("gh200-1x").unwrap();
    let g = &hw.gpu;
    assert_eq!(g.memory_total_mib, 97_871);
    assert!((gbps(g.memory_bandwidth) - 4000.0).abs() < 1e-6);
    assert!((g.bf16_tflops - 989.0).abs() < 1e-9);
    assert_eq!((g.sm_count, g.compute_capability.as_str()), (132, "9.0"));
    assert_eq!(g.device_name.as_deref(), Some("NVIDIA GH200 480GB"));
    assert_eq!(g.torch_total_gib, None);
    assert!(!g.nvlink);
    assert_eq!(hw.topology.gpu_count(), 1);
    assert!((97_871.0f64 / 1024.0 - 95.58).abs() < 0.005);
}

fn memory_of(preset: &str, model: &str, tp: usize) -> Out {
    let file = scratch(&format!("{preset}-{model}")).join("s.toml");
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{preset}\"\n[model]\npreset = \"{model}\"\n[engine]\n\
         name = \"vllm\"\ntp = {tp}\nmax_model_len = 8192\n[workload]\nconcurrency = 8\n\
         prompt_len = 1024\noutput_len = 64\n"
    );
    std::fs::write(&file, text).unwrap();
    let o = tpsim(&["memory", &file.display().to_string()]);
    assert_eq!(o.code, 0, "{preset}: {}", o.stderr);
    o
}

/// Llama-3.1-70B bf16 is 134,602.5 MiB of weights (70.6 B parameters × 2 B; `tpsim memory` on one GPU):
/// 16.4 GiB a rank at TP 8 fits the A100 40 GB's 0.9 × 40 = 36 GiB, 65.7 GiB at TP 2 and 32.9 at TP 4
/// fit the H200 NVL's 0.9 × 139.80; on one GH200 its 131.45 GiB exceed the 95.58 GiB card (vLLM's
/// OOM at weight loading), while Llama-3.1-8B (15 GiB) starts there.
#[test]
fn each_box_starts_a_model_at_its_tp() {
    for (preset, model, tp) in [
        ("a100-sxm4-80gb-8x-nvswitch", "llama-3.1-70b", 8),
        ("a100-sxm4-40gb-8x-nvswitch", "llama-3.1-70b", 8),
        ("h200-nvl-2x-nvlink-bridge", "llama-3.1-70b", 2),
        ("h200-nvl-4x-nvlink-bridge", "llama-3.1-70b", 4),
        ("gh200-1x", "llama-3.1-8b", 1),
    ] {
        let o = memory_of(preset, model, tp);
        assert!(o.stdout.contains("Verdict: starts"), "{preset}: {}", o.stdout);
    }
    let o = memory_of("gh200-1x", "llama-3.1-70b", 1);
    assert!(
        o.stdout.contains("total (free after init) 95.58 GiB"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("Verdict: OOM at weight loading"),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("131.45 GiB per rank"), "{}", o.stdout);
    assert!((134_602.5f64 / 1024.0 - 131.45).abs() < 0.005);
}

fn collective(preset: &str, sizes: &str) -> Vec<serde_json::Value> {
    let o = tpsim(&["collective", "--hardware", preset, "--sizes", sizes, "--json"]);
    assert_eq!(o.code, 0, "{preset}: {}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    j["rows"].as_array().unwrap().clone()
}

/// A 14 KB allreduce is NCCL Ring/LL over NVLink on every new multi-GPU box: 6.6 µs base + 0.6 µs per
/// NVLink step (NCCL tuning.cc hwLat; pcie-collectives.md), 2(n − 1) steps: n = 2 → 7.8, n = 4 → 10.2,
/// n = 8 → 15.0 µs, plus the 14 KB itself (< 0.3 µs at ≥ 300 GB/s). At 256 MiB the A100 ring is bound by
/// its NVLink port, 300 GB/s per direction: each GPU sends 2 × 7/8 × 268,435,456 B = 469.8 MB →
/// ≥ 1,565.9 µs; the step latencies add < 5 %.
#[test]
fn a_small_allreduce_costs_nccls_nvlink_latency() {
    for (preset, hand_us) in [
        ("h200-nvl-2x-nvlink-bridge", 7.8),
        ("h200-nvl-4x-nvlink-bridge", 10.2),
        ("a100-sxm4-80gb-8x-nvswitch", 15.0),
        ("a100-sxm4-40gb-8x-nvswitch", 15.0),
    ] {
        let r = collective(preset, "14336");
        assert_eq!(r[0]["algorithm"], "nccl Ring/LL", "{preset}");
        assert!(
            r[0]["bottleneck"].as_str().unwrap().contains("NVLink"),
            "{}",
            r[0]
        );
        let t = f(&r[0]["time_us"]);
        assert!((hand_us..hand_us + 0.3).contains(&t), "{preset}: {t}");
    }
    let r = collective("a100-sxm4-80gb-8x-nvswitch", "256M");
    let t = f(&r[0]["time_us"]);
    let bound_us: f64 = 2.0 * 7.0 / 8.0 * 268_435_456.0 / 300e9 * 1e6;
    assert!((bound_us - 1565.87).abs() < 0.01, "{bound_us}");
    assert!(t >= bound_us && t < 1.05 * bound_us, "{t}");
}
