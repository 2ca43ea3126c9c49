//! Collective options as users set them (issue #17, 3), through the CLI: the custom allreduce's
//! cutoff per engine, `NCCL_PROTO`/`NCCL_ALGO` lists, the NCCL release, a graph file and a tuner
//! table. Each expectation comes from the engine's or NCCL's code at the version named.

use crate::common::*;

/// Llama-3.1-8B at tp `tp` on `preset` under `engine`, custom allreduce on, with `extra_engine`
/// lines in `[engine]` and `env` lines in `[engine.env]`; written to a scratch folder with `files`.
#[track_caller]
fn scenario_file(
    name: &str,
    preset: &str,
    engine: &str,
    tp: u32,
    extra_engine: &str,
    env: &str,
    files: &[(&str, &str)],
) -> String {
    let dir = scratch(name);
    let fraction = if engine == "sglang" {
        "mem_fraction_static = 0.85\n"
    } else {
        ""
    };
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"{preset}\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"{engine}\"\n{fraction}tp = {tp}\nallreduce = \"custom\"\n{extra_engine}\n[engine.env]\n{env}\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 128\n"
    );
    for (f, t) in files {
        std::fs::write(dir.join(f), t).unwrap();
    }
    let p = dir.join("scenario.toml");
    std::fs::write(&p, text).unwrap();
    p.display().to_string()
}

/// (algorithm, protocol, channels, time µs) per size of `tpsim collective FILE --sizes …`.
fn rows(file: &str, extra: &[&str]) -> Vec<(String, String, u64, f64)> {
    let mut a = vec!["collective", file, "--json"];
    a.extend_from_slice(extra);
    let o = tpsim(&a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| {
            (
                r["algorithm"].as_str().unwrap().to_string(),
                r["protocol"].as_str().unwrap_or("").to_string(),
                r["channels"].as_u64().unwrap_or(0),
                f(&r["time_us"]),
            )
        })
        .collect()
}

const SWITCH_BOX: &str = "rtx-pro-6000-8x-2switch-trpro";

/// vLLM 0.11.0 `should_custom_ar`: `inp_size < self.max_size` (8 MiB): an 8 MiB allreduce goes to
/// NCCL. SGLang 0.5.9 `should_custom_ar`: `inp_size <= self.max_size`: it stays on the custom kernel
/// (two-shot: ≥ 256 KiB with 8 ranks, `custom_all_reduce.cuh`). 16 MiB is NCCL under both; 128 KiB
/// is the one-shot under both.
#[test]
fn custom_cutoff_is_strict_in_vllm_and_inclusive_in_sglang() {
    let env = "NCCL_P2P_LEVEL = \"SYS\"";
    let v = scenario_file("vllm", SWITCH_BOX, "vllm", 8, "", env, &[]);
    let s = scenario_file("sglang", SWITCH_BOX, "sglang", 8, "", env, &[]);
    let sizes = ["--sizes", "128K,8M,16M"];
    let algos = |file: &str| rows(file, &sizes).into_iter().map(|r| r.0).collect::<Vec<_>>();
    let v = algos(&v);
    let s = algos(&s);
    assert!(
        v[0].starts_with("custom one-shot") && s[0].starts_with("custom one-shot"),
        "{v:?} {s:?}"
    );
    assert!(v[1].starts_with("nccl"), "vLLM at exactly 8 MiB: {v:?}");
    assert!(
        s[1].starts_with("custom two-shot"),
        "SGLang at exactly 8 MiB: {s:?}"
    );
    assert!(
        v[2].starts_with("nccl") && s[2].starts_with("nccl"),
        "{v:?} {s:?}"
    );
}

/// `engine.custom_allreduce_max_size = "1MiB"` under SGLang: 1 MiB still custom (≤), 2 MiB NCCL.
#[test]
fn custom_allreduce_max_size_key_moves_the_cutoff() {
    let s = scenario_file(
        "maxsize",
        SWITCH_BOX,
        "sglang",
        8,
        "custom_allreduce_max_size = \"1MiB\"",
        "NCCL_P2P_LEVEL = \"SYS\"",
        &[],
    );
    let r = rows(&s, &["--sizes", "1M,2M"]);
    assert!(r[0].0.starts_with("custom"), "{r:?}");
    assert!(r[1].0.starts_with("nccl"), "{r:?}");
}

/// vLLM 0.11.0 `all_reduce_utils.py` `CUSTOM_ALL_REDUCE_MAX_SIZES["9.0"][8]` = 256 KiB (torch
/// symmetric memory on by default): on 8 H200 (compute capability 9.0) a 128 KiB allreduce is
/// custom, 512 KiB is not.
#[test]
fn vllm_on_hopper_lowers_the_cutoff_to_its_symm_mem_table() {
    let v = scenario_file("h200", "h200-8x-nvlink", "vllm", 8, "", "", &[]);
    let r = rows(&v, &["--sizes", "128K,512K"]);
    assert!(r[0].0.starts_with("custom"), "{r:?}");
    assert!(r[1].0.starts_with("nccl"), "{r:?}");
}

/// `NCCL_PROTO=^LL` and `NCCL_PROTO=LL;allreduce:^LL` (NCCL ≥ 2.24 `parseList`) both leave
/// allreduce LL128 + Simple, and naming LL128 that way enables it on PCIe (the default "2" is
/// overwritten). NCCL's estimate at 1 MiB on the 8-GPU switch box (graph 2 × 24 GB/s): Ring/LL128
/// 14 + 14 × 2.5 = 49 µs + 1,048,576 / (1000 × min(48 × 0.92, 2 × 40) × 8/14) = 49 + 41.55 =
/// 90.55 µs, below Ring/Simple (88.2 + 38.2). Tolerance 0.01 µs (printed to 2 decimals).
#[test]
fn proto_lists_and_exclusions_enable_ll128() {
    for proto in ["^LL", "LL;allreduce:^LL"] {
        let s = scenario_file(
            "proto",
            SWITCH_BOX,
            "sglang",
            8,
            "",
            &format!("NCCL_P2P_LEVEL = \"SYS\"\nNCCL_PROTO = \"{proto}\""),
            &[],
        );
        let r = rows(&s, &["--sizes", "1M", "--model", "nccl-analytic"]);
        assert_eq!(r[0].1, "LL128", "{proto}: {r:?}");
        let want = 49.0 + 1_048_576.0 / (1000.0 * 48.0 * 0.92 * 8.0 / 14.0);
        assert!((r[0].3 - want).abs() < 0.01, "{proto}: {} vs {want}", r[0].3);
    }
}

/// The NCCL release: PCI Tree/Simple steps cost 28 µs through 2.22 and 4 µs after (tuning.cc
/// `hwLat`, v2.21.5 vs v2.23.4). With 2 ranks of the 4090 box (SM 8.9: same speeds and caps in
/// both), Tree/Simple forced, NCCL's estimate differs by 2 × (2 − 1) × (28 − 4) = 48 µs.
#[test]
fn nccl_version_changes_the_tree_latency() {
    let env = "NCCL_ALGO = \"Tree\"\nNCCL_PROTO = \"Simple\"";
    let new = scenario_file("v230", "rtx-4090-6x-tinybox", "sglang", 2, "", env, &[]);
    let old = scenario_file(
        "v221",
        "rtx-4090-6x-tinybox",
        "sglang",
        2,
        "nccl_version = \"2.21.5\"",
        env,
        &[],
    );
    let args = ["--sizes", "4K", "--model", "nccl-analytic"];
    let (a, b) = (rows(&new, &args)[0].3, rows(&old, &args)[0].3);
    assert!((b - a - 48.0).abs() < 0.02, "2.21.5 {b} µs vs 2.30.7 {a} µs");
}

/// `NCCL_GRAPH_FILE`: the file's ring graph (1 channel × 10 GB/s) replaces the search's 2 × 24.
#[test]
fn graph_file_replaces_the_search() {
    let xml = r#"<graphs version="1">
  <graph id="0" pattern="4" crossnic="0" nchannels="1" speedintra="10" speedinter="10" latencyinter="0" typeintra="PXB" typeinter="PIX" samechannels="1">
    <channel><gpu dev="0"/><gpu dev="1"/><gpu dev="2"/><gpu dev="3"/><gpu dev="4"/><gpu dev="5"/><gpu dev="6"/><gpu dev="7"/></channel>
  </graph>
</graphs>"#;
    let s = scenario_file(
        "graph",
        SWITCH_BOX,
        "sglang",
        8,
        "",
        "NCCL_P2P_LEVEL = \"SYS\"\nNCCL_GRAPH_FILE = \"ring.xml\"",
        &[("ring.xml", xml)],
    );
    let o = tpsim(&["collective", &s, "--sizes", "16K"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains("graph 1 channel(s) × 10.0 GB/s"),
        "{}",
        o.stdout
    );
}

/// `[engine.nccl_tuner]` with the example conf's single-node row: 16 KiB runs Tree/Simple on the
/// row's 2 channels; 1 MiB (no row) keeps NCCL's Ring/LL on the example plugin's 1 channel
/// (`pluginGetCollInfo` starts from `*nChannels = 1`).
#[test]
fn tuner_table_rows_pick_algorithm_protocol_and_channels() {
    let s = scenario_file(
        "tuner",
        SWITCH_BOX,
        "sglang",
        8,
        "[engine.nccl_tuner]\nrows = [\"allreduce,0,65536,tree,simple,2,1,-1\"]",
        "NCCL_P2P_LEVEL = \"SYS\"",
        &[],
    );
    // The `[engine.env]` table follows the tuner table in the file; both are sub-tables of engine.
    let r = rows(&s, &["--sizes", "16K,1M", "--algo", "nccl"]);
    assert_eq!((r[0].0.as_str(), r[0].2), ("nccl Tree/Simple", 2), "{r:?}");
    assert_eq!((r[1].0.as_str(), r[1].2), ("nccl Ring/LL", 1), "{r:?}");
}

/// `NCCL_BUFFSIZE` = 256 KiB makes Simple's slots 32 KiB instead of 512 KiB (buffSize /
/// NCCL_STEPS), so a 32 MiB Simple ring forwards in 16× more pieces, each paying the step latency:
/// slower than with the default 4 MiB buffer.
#[test]
fn smaller_buffsize_slows_large_simple_rings() {
    let base = scenario_file(
        "buf0",
        SWITCH_BOX,
        "sglang",
        8,
        "",
        "NCCL_P2P_LEVEL = \"SYS\"",
        &[],
    );
    let small = scenario_file(
        "buf1",
        SWITCH_BOX,
        "sglang",
        8,
        "",
        "NCCL_P2P_LEVEL = \"SYS\"\nNCCL_BUFFSIZE = \"262144\"",
        &[],
    );
    let args = ["--sizes", "32M", "--algo", "nccl"];
    let (a, b) = (rows(&base, &args)[0].clone(), rows(&small, &args)[0].clone());
    assert_eq!((a.1.as_str(), b.1.as_str()), ("Simple", "Simple"));
    assert!(b.3 > a.3, "NCCL_BUFFSIZE=256K {} µs vs default {} µs", b.3, a.3);
}

/// `SGLANG_ENABLE_PCIE_IPC_ALLREDUCE=1` on the seed box (SGLang 0.5.23 `pcie_ipc_ar.py`): the
/// backend is tried first and takes bf16 reductions up to its workspace, CUDA-graph max_bs × draft
/// tokens × hidden elements: 512 (96 GB card, tp ≥ 4) × 4 (EAGLE-3 draft tokens) × 7168 (Kimi-K2.5)
/// × 2 B = 29,360,128 B = 28 MiB. So 12 KiB and 28 MiB run FlashInfer's kernels (issue #19 point 3:
/// the island push below 32 KiB, the staged island ring above), 29 MiB NCCL. The scenario names
/// `engine.version = "0.5.23"` (with the late-2025 era named, keeping the memory figures this test
/// was written with; release52 places 0.5.23 in spring-2026). With `engine.version = "0.5.9"` (whose
/// wheel has no pcie_ipc_ar.py; release52: 0.5.8 has no Kimi-K2.5) the variable is ignored, and so it
/// is without `engine.version`, whose release is 0.5.9 (`tpsim::engine_release::CURRENT_SGLANG`).
#[test]
fn pcie_ipc_allreduce_takes_decode_sized_messages() {
    let on = baseline_with(
        "ipc",
        "page_size = 1",
        "page_size = 1\nversion = \"0.5.23\"\n[engine.costs]\nera = \"late-2025\"\n\
         [engine.env]\nSGLANG_ENABLE_PCIE_IPC_ALLREDUCE = \"1\"",
    );
    let r = rows(&on, &["--sizes", "12K,28M,29M"]);
    assert_eq!(
        r[0].0, "flashinfer pcie-ipc ipc_topo_rsag8_push_param_kernel",
        "{r:?}"
    );
    assert_eq!(
        r[1].0, "flashinfer pcie-ipc ipc_topo_rsag8_ring_push_param_kernel",
        "{r:?}"
    );
    assert!(r[2].0.starts_with("nccl"), "{r:?}");
    let old = baseline_with(
        "ipc-old",
        "page_size = 1",
        "page_size = 1\nversion = \"0.5.9\"\n[engine.env]\nSGLANG_ENABLE_PCIE_IPC_ALLREDUCE = \"1\"",
    );
    assert!(rows(&old, &["--sizes", "12K"])[0].0.starts_with("nccl"));
    let o = tpsim(&["validate", &old]);
    assert!(
        o.stderr.contains("has no FlashInfer PCIe-IPC allreduce"),
        "{}",
        o.stderr
    );
    let unversioned = baseline_with(
        "ipc-unversioned",
        "page_size = 1",
        "page_size = 1\n[engine.env]\nSGLANG_ENABLE_PCIE_IPC_ALLREDUCE = \"1\"",
    );
    assert!(rows(&unversioned, &["--sizes", "12K"])[0].0.starts_with("nccl"));
    let o = tpsim(&["validate", &unversioned]);
    assert!(
        o.stderr.contains(
            "SGLang 0.5.9 (assumed: engine.version not set; set engine.version = \"0.5.23\" to use it) has no \
             FlashInfer PCIe-IPC allreduce"
        ),
        "{}",
        o.stderr
    );
}

/// `NCCL_MAX_NCHANNELS=0` and `NCCL_MIN_NCHANNELS=100` as NCCL 2.30.7 `connect.cc` takes them: a
/// maximum below 1 becomes 1 ("setting it to 1"), a minimum above 64 becomes 64 ("limiting to 64"),
/// each reported. With at most 1 channel a 32 MiB Simple ring runs on 1 channel.
#[test]
fn channel_limits_are_clamped_like_nccl() {
    let s = scenario_file(
        "maxch",
        SWITCH_BOX,
        "sglang",
        8,
        "",
        "NCCL_P2P_LEVEL = \"SYS\"\nNCCL_MAX_NCHANNELS = \"0\"",
        &[],
    );
    let o = tpsim(&["validate", &s]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("User asked for a maximum of 0 channels, setting it to 1"),
        "{}",
        o.stderr
    );
    assert_eq!(rows(&s, &["--sizes", "32M", "--algo", "nccl"])[0].2, 1);
    let s = scenario_file(
        "minch",
        SWITCH_BOX,
        "sglang",
        8,
        "",
        "NCCL_MIN_NCHANNELS = \"100\"",
        &[],
    );
    let o = tpsim(&["validate", &s]);
    assert!(
        o.stderr.contains("minimum of 100 channels, limiting to 64"),
        "{}",
        o.stderr
    );
}
