//! Issue #19 points 1-2 (done-when: "eager vs graph launch and NCCL 2.28 vs 2.30 give the different
//! small-message results the data shows on the dual-Turin box"). What the data holds, by line of
//! tests/data/allreduce.tsv:
//!
//! - Lines 26-32: 4 RTX PRO 6000 on one socket of the dual EPYC 9575F box, nccl-tests, NCCL 2.28.3,
//!   launched eagerly (no -G in the source). No figure of the same box replayed from a CUDA graph
//!   or run on NCCL 2.30 is published (searched: rtx6kpro optimization/nccl-tuning.md and
//!   pcie-oneshot-allreduce.md at every stored version, hardware/*.md, NVIDIA/nccl PRs 2113 and
//!   2127, reference/*.md), so the box's own eager-vs-graph and 2.28-vs-2.30 differences are not
//!   measured; the tests pin what the model predicts for them and why.
//! - Lines 184-185: 4 H800 over NVLink, a 1 KB Ring allreduce eagerly (3.5 µs) and from a CUDA
//!   graph (0.5 µs), NVIDIA/nccl issue 1984: the one measured eager-vs-graph pair, the source of
//!   `nccl_eager_launch`.

use crate::common::*;

const TURIN4: &str = "rtx-pro-6000-4x-turin-same-numa";

/// The time column of `line` (1-based, header = 1) of allreduce.tsv, after checking that its
/// `algo_proto_if_known` and `notes` columns contain `algo` and `note`.
#[track_caller]
fn measured(line: usize, algo: &str, note: &str) -> (u64, f64) {
    let t = read_tsv(&data_path("allreduce.tsv"));
    let r = t.rows.iter().find(|r| r.line == line).expect("line present");
    assert!(
        r.get(t.col("algo_proto_if_known")).contains(algo),
        "line {line}: {:?}",
        r.cells
    );
    assert!(r.get(t.col("notes")).contains(note), "line {line}: {:?}", r.cells);
    (
        r.get(t.col("size_bytes")).parse().unwrap(),
        r.get(t.col("time_us")).parse().unwrap(),
    )
}

/// (`nccl_graph`, [(algorithm, time µs)]) of `tpsim collective --hardware TURIN4` with `extra`.
fn turin4(sizes: &[u64], extra: &[&str]) -> (String, Vec<(String, f64)>) {
    let list = sizes.iter().map(u64::to_string).collect::<Vec<_>>().join(",");
    let mut args = vec![
        "collective",
        "--hardware",
        TURIN4,
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        "--sizes",
        &list,
        "--json",
    ];
    args.extend_from_slice(extra);
    let o = tpsim(&args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| (r["algorithm"].as_str().unwrap().to_string(), f(&r["time_us"])))
        .collect();
    (j["nccl_graph"].as_str().unwrap().to_string(), rows)
}

/// Lines 26 and 27 (8 KB and 64 KB, eager, NCCL 2.28.3) took 11.17 and 12.77 µs: 3.2× and 3.6× the
/// host's 3.5 µs per eager call (`nccl_eager_launch`, line 184), so the GPU, not the host, sets the
/// pace and a graph replay would not be faster by the host's cost. The model gives the same: eager
/// − graph = 0 µs at both sizes (tolerance: none, the two runs share every GPU-side figure), and the
/// eager prediction is within 30 % of each line (the system's known LL-step miss, crossval
/// `known_miss`: +17 % at 8 KB, +27 % at 64 KB).
#[test]
fn dual_turin_4gpu_eager_equals_graph_where_the_gpu_outruns_the_host_lines_26_27() {
    let (s8, m8) = measured(26, "NCCL default", "NCCL 2.28.3 nccl-tests");
    let (s64, m64) = measured(27, "NCCL default", "NCCL 2.28.3 nccl-tests");
    assert_eq!((s8, s64), (8192, 65536));
    let floor = 3.5;
    assert!(m8 >= 3.0 * floor && m64 >= 3.0 * floor, "{m8} {m64}");
    let (_, eager) = turin4(&[s8, s64], &["--nccl-version", "2.28.3", "--launch", "eager"]);
    let (_, graph) = turin4(&[s8, s64], &["--nccl-version", "2.28.3", "--launch", "graph"]);
    for ((e, g), m) in eager.iter().zip(&graph).zip([m8, m64]) {
        assert_eq!(
            e.1.to_bits(),
            g.1.to_bits(),
            "eager {e:?} vs graph {g:?}: a difference of 0"
        );
        assert!(e.1 > floor, "{e:?}: the GPU's time is above the host's");
        assert!(((e.1 - m) / m).abs() <= 0.30, "eager {e:?} vs measured {m}");
    }
}

/// NCCL 2.28.3 (lines 26-32) and 2.30.7 on the same 4 GPUs: both find 2 channels × 24 GB/s (the
/// 48 GB/s Gen5 hops fit 2 × 24 in both speed arrays: search.cc `sm100SpeedArrayIntra` of 2.28 has no
/// 45, 2.30's 1 × 45 loses to 2 × 24 = 48), and the tuner's Ring/LL, the protocol these sizes take,
/// has the same figures in both (tuning.cc: baseLat, hwLat and llMaxBw unchanged between the tags;
/// LL128, whose Blackwell cap changed from 2 × 36.7 to 40, is off on PCIe). So the release does not
/// move the small-message results of this box: equal times at 8, 64 and 256 KB (lines 26-28).
#[test]
fn nccl_2_28_3_and_2_30_7_agree_on_the_4gpu_turin_box_lines_26_28() {
    let sizes = [8192, 65536, 262_144];
    let (g28, r28) = turin4(&sizes, &["--nccl-version", "2.28.3"]);
    let (g30, r30) = turin4(&sizes, &["--nccl-version", "2.30.7"]);
    assert_eq!(g28, "2 channel(s) × 24.0 GB/s");
    assert_eq!(g30, g28);
    assert_eq!(r28, r30);
    assert!(r28.iter().all(|(a, _)| a == "nccl Ring/LL"), "{r28:?}");
}

/// Lines 184-185 (NVIDIA/nccl issue 1984): 3.5 µs eager vs 0.5 µs from a graph, a measured
/// difference of +3.0 µs. With the GPU taking the graph figure, `Launch::per_call` gives eager =
/// max(0.5, 3.5) = 3.5 and graph = 0.5: the same sign and size, exactly (the parameter was read off
/// line 184, so this checks the mechanism and the template's value, not an independent prediction).
#[test]
fn eager_floor_and_graph_replay_reproduce_lines_184_185() {
    use tpsim::launch::Launch;
    use tpsim_model::units::Duration;
    let (_, eager) = measured(184, "eager launch", "CUDA graph disabled");
    let (_, graph) = measured(185, "CUDA graph launch", "-G 10");
    let hw = tpsim::scenario::hardware_from_preset("h100-sxm-8x-nvlink").unwrap();
    let host = hw.params.nccl_eager_launch;
    assert_eq!(host, Duration::from_us_f64(3.5));
    let gpu = Duration::from_us_f64(graph);
    let e = Launch::Eager.per_call(gpu, host).as_us_f64();
    let g = Launch::Graph.per_call(gpu, host).as_us_f64();
    assert!(
        ((e - g) - (eager - graph)).abs() < 1e-9,
        "{e} − {g} vs {eager} − {graph}"
    );
}

/// `--launch` and `--nccl-version` refuse what they do not know, naming the flag (exit 2).
#[test]
fn bad_launch_and_version_flags() {
    let o = tpsim(&["collective", "--hardware", TURIN4, "--launch", "lazy"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--launch `lazy`: expected eager or graph"),
        "{}",
        o.stderr
    );
    let o = tpsim(&["collective", "--hardware", TURIN4, "--nccl-version", "2.20.5"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--nccl-version `2.20.5`: tpsim models NCCL"),
        "{}",
        o.stderr
    );
}

/// The decode path (Llama-3.1-8B at tp 4 on the 4-GPU Turin box): with CUDA graphs no collective
/// is launched from the host, so a slower eager NCCL call changes nothing (equal TPOT); without them
/// each rank's launcher pays max(engine launch_overhead 5 µs, nccl_eager_launch) per collective, so
/// 40 µs instead of the template's 3.5 µs makes the step slower (at least one collective's launch
/// lands on the critical path: > 0 ms, and at most 35 µs × the step's collectives).
#[test]
fn decode_charges_the_eager_nccl_launch_only_without_cuda_graphs() {
    let run = |name: &str, cuda_graph: bool, launch: &str| -> f64 {
        let text = format!(
            "seed = 1\n[hardware]\npreset = \"{TURIN4}\"\n[hardware.params]\nnccl_eager_launch = \"{launch}\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\ntp = 4\nmem_fraction_static = 0.85\ncuda_graph = {cuda_graph}\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 128\n"
        );
        let p = scratch(name).join("scenario.toml");
        std::fs::write(&p, text).unwrap();
        let o = tpsim(&["run", &p.display().to_string(), "--json"]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        f(&serde_json::from_str::<serde_json::Value>(&o.stdout).unwrap()["throughput"]["tpot_ms"])
    };
    let (g, g_slow) = (run("launch-g", true, "3.5us"), run("launch-g-slow", true, "40us"));
    assert_eq!(g.to_bits(), g_slow.to_bits(), "{g} vs {g_slow}");
    let (e, e_slow) = (
        run("launch-e", false, "3.5us"),
        run("launch-e-slow", false, "40us"),
    );
    assert!(e_slow > e, "{e_slow} vs {e}");
    // Llama-3.1-8B: 32 layers × 2 allreduces = 64 collectives per step (+ the logits' gather).
    assert!(e_slow - e <= 0.035 * 65.0, "{e_slow} vs {e}");
}
