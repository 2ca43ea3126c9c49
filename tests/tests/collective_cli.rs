//! `tpsim collective` and `tpsim topo` through the CLI: values, schema and bad input.

use crate::common::*;

fn collective_json(args: &[&str]) -> serde_json::Value {
    let mut a = vec!["collective"];
    a.extend_from_slice(args);
    a.push("--json");
    let o = tpsim(&a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    serde_json::from_str(&o.stdout).unwrap()
}

#[test]
fn nccl_analytic_reproduces_the_reference_worked_number() {
    // pcie-collectives.md: 8 ranks Gen5 P2P: latency 20.6 µs; 14 KB ≈ 21.7 µs with a 2 × 22.5 GB/s
    // graph. NCCL 2.30's search on uniform 48 GB/s hops ends at 2 × 24 GB/s (model::nccl tests), so
    // 20.6 + 14,336 / (1000 × 24 × 8/14) = 21.645 µs; tolerance 0.1 µs covers both graphs.
    let j = collective_json(&[
        "--hardware",
        "rtx-pro-6000-8x-2switch-trpro",
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        "--model",
        "nccl-analytic",
        "--sizes",
        "14336",
    ]);
    let r = &j["rows"][0];
    assert!((f(&r["time_us"]) - 21.7).abs() < 0.1, "{r}");
    assert_eq!(r["protocol"], "LL");
    for key in [
        "size_bytes",
        "time_us",
        "algbw_gbps",
        "busbw_gbps",
        "algorithm",
        "protocol",
    ] {
        assert!(!r[key].is_null(), "missing {key}");
    }
    // busbw = algbw × 2(n − 1)/n (nccl-tests' convention) and algbw = size / time.
    let algbw = 14_336.0 / (f(&r["time_us"]) * 1e3);
    assert!((f(&r["algbw_gbps"]) - algbw).abs() < 1e-9);
    assert!((f(&r["busbw_gbps"]) - algbw * 14.0 / 8.0).abs() < 1e-9);
}

#[test]
fn scenario_form_takes_backend_and_env_from_the_file() {
    let j = collective_json(&[&scenario("seed/baseline.toml"), "--sizes", "14K,56K"]);
    assert_eq!(j["gpus"], 8);
    assert_eq!(j["transport"], "shm");
    let j = collective_json(&[&scenario("seed/custom-ar.toml"), "--sizes", "14K"]);
    assert_eq!(j["rows"][0]["algorithm"], "custom one-shot");
    // Sizes above the custom allreduce's 8 MiB limit fall back to NCCL (engine-memory.md).
    let j = collective_json(&[&scenario("seed/custom-ar.toml"), "--sizes", "16M"]);
    assert!(j["rows"][0]["algorithm"].as_str().unwrap().starts_with("nccl"));
}

#[test]
fn compare_adds_measured_columns_and_errors() {
    let dir = scratch("compare");
    let tsv = dir.join("m.tsv");
    std::fs::write(&tsv, "size_bytes\ttime_us\n14336\t20.0\n57344\t25.0\n").unwrap();
    let j = collective_json(&[
        "--hardware",
        "rtx-pro-6000-8x-2switch-trpro",
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        "--sizes",
        "14336,57344,1M",
        "--compare",
        &tsv.display().to_string(),
    ]);
    let rows = j["rows"].as_array().unwrap();
    let e0 = (f(&rows[0]["time_us"]) - 20.0) / 20.0;
    assert!((f(&rows[0]["error"]) - e0).abs() < 1e-12);
    assert!(rows[2]["measured_us"].is_null());
    assert!(f(&j["median_abs_error"]) >= 0.0);
    let o = tpsim(&[
        "collective",
        "--hardware",
        "rtx-pro-6000-8x-2switch-trpro",
        "--sizes",
        "14336",
        "--compare",
        &tsv.display().to_string(),
    ]);
    assert!(
        o.stdout.contains("meas.(us)") && o.stdout.contains("error vs measured"),
        "{}",
        o.stdout
    );
}

#[test]
fn size_lists_and_ranges() {
    let j = collective_json(&[
        "--hardware",
        "rtx-pro-6000-8x-2switch-trpro",
        "--sizes",
        "4K..64K,14336",
    ]);
    let sizes: Vec<u64> = j["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["size_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(sizes, vec![4096, 8192, 16384, 32768, 65536, 14336]);
}

#[test]
fn bad_collective_input_exits_2_with_a_message() {
    let hw = "rtx-pro-6000-8x-2switch-trpro";
    let cases: &[(&[&str], &str)] = &[
        (&["--hardware", hw, "--sizes", "4X"], "unknown unit `X`"),
        (&["--hardware", hw, "--sizes", "8K..4K"], "expected a list"),
        (&["--hardware", hw, "--algo", "magic"], "--algo `magic`"),
        (&["--hardware", hw, "--model", "guess"], "--model `guess`"),
        (&["--hardware", hw, "--op", "broadcast"], "--op `broadcast`"),
        (&["--hardware", hw, "--gpus", "9"], "the hardware has 8 GPUs"),
        (&["--hardware", "dgx-x"], "unknown hardware preset `dgx-x`"),
        (
            &["--hardware", hw, "--env", "NCCL_P2P_LEVEL"],
            "expected KEY=VALUE",
        ),
        (
            &["--hardware", hw, "--env", "NCCL_PROTO=fast"],
            "expected LL, LL128 or Simple",
        ),
        (
            &["--hardware", hw, "--compare", "/nonexistent.tsv"],
            "/nonexistent.tsv",
        ),
        (&[], "give a SCENARIO file or --hardware"),
    ];
    for (args, needle) in cases {
        let mut a = vec!["collective"];
        a.extend_from_slice(args);
        let o = tpsim(&a);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(needle), "{args:?}: {}", o.stderr);
    }
    let dir = scratch("bad-compare");
    let tsv = dir.join("m.tsv");
    std::fs::write(&tsv, "size_bytes\ttime_us\n14336\tfast\n").unwrap();
    let o = tpsim(&[
        "collective",
        "--hardware",
        hw,
        "--compare",
        &tsv.display().to_string(),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("line 2") && o.stderr.contains("time_us"),
        "{}",
        o.stderr
    );
    std::fs::write(&tsv, "size\ttime\n1\t2\n").unwrap();
    let o = tpsim(&[
        "collective",
        "--hardware",
        hw,
        "--compare",
        &tsv.display().to_string(),
    ]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("size_bytes"), "{}", o.stderr);
}

#[test]
fn topo_prints_the_smi_matrix_and_transports() {
    let o = tpsim(&["topo", &scenario("seed/baseline.toml")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let gpu0 = o.stdout.lines().find(|l| l.starts_with("GPU0 ")).unwrap();
    // Seed box: GPU0's peers on its socket are NODE, the other socket's SYS.
    assert_eq!(
        gpu0.split_whitespace().skip(1).take(8).collect::<Vec<_>>(),
        ["X", "NODE", "NODE", "NODE", "SYS", "SYS", "SYS", "SYS"]
    );
    assert!(
        o.stdout.contains("SHM*"),
        "default NCCL: SHM everywhere: {}",
        o.stdout
    );
    assert!(o.stdout.contains("simple order"), "{}", o.stdout);
    let o = tpsim(&[
        "topo",
        "--hardware",
        "rtx-pro-6000-8x-2switch-trpro",
        "--env",
        "NCCL_P2P_LEVEL=SYS",
    ]);
    assert_eq!(o.code, 0);
    let gpu0 = o.stdout.lines().find(|l| l.starts_with("GPU0 ")).unwrap();
    assert_eq!(gpu0.split_whitespace().nth(2), Some("PIX"));
    assert_eq!(gpu0.split_whitespace().nth(5), Some("NODE"));
    assert_eq!(
        o.stdout.matches("SHM").count(),
        1,
        "only the legend may say SHM: {}",
        o.stdout
    );
}

#[test]
fn compare_filter_selects_one_system_of_a_table() {
    let dir = scratch("compare-filter");
    let tsv = dir.join("m.tsv");
    std::fs::write(
        &tsv,
        "system\tsize_bytes\ttime_us\nA\t14336\t20.0\nB\t14336\t40.0\n",
    )
    .unwrap();
    let t = tsv.display().to_string();
    let hw = "rtx-pro-6000-8x-2switch-trpro";
    let b = collective_json(&[
        "--hardware",
        hw,
        "--sizes",
        "14336",
        "--compare",
        &t,
        "--compare-filter",
        "B",
    ]);
    assert_eq!(b["rows"][0]["measured_us"], 40.0);
    let a = collective_json(&["--hardware", hw, "--sizes", "14336", "--compare", &t]);
    assert_eq!(
        a["rows"][0]["measured_us"], 20.0,
        "without a filter the first row of the size counts"
    );
    // The filter needs --compare; topo honours --gpus.
    let o = tpsim(&["collective", "--hardware", hw, "--compare-filter", "B"]);
    assert_eq!(o.code, 2);
    let o = tpsim(&["topo", "--hardware", hw, "--gpus", "2"]);
    assert_eq!(o.code, 0);
    assert!(o.stdout.contains("(2 GPUs shown of 8)"), "{}", o.stdout);
}

#[test]
fn nvlink_boxes_use_nvlink_links_and_latencies() {
    // pcie-collectives.md: NVLink Ring/LL per-step latency 0.6 µs → 8 ranks: 6.6 + 14 × 0.6 = 15.0 µs
    // plus the 14 KB transfer at NVLink rates (a few ns): 15.0–15.5 µs.
    let j = collective_json(&["--hardware", "h200-8x-nvlink", "--sizes", "14336"]);
    let r = &j["rows"][0];
    assert!((15.0..15.5).contains(&f(&r["time_us"])), "{r}");
    assert_eq!(r["algorithm"], "nccl Ring/LL");
    assert!(r["bottleneck"].as_str().unwrap().contains("NVLink"), "{r}");
    let o = tpsim(&["topo", "--hardware", "h200-8x-nvlink"]);
    let gpu0 = o.stdout.lines().find(|l| l.starts_with("GPU0 ")).unwrap();
    assert_eq!(gpu0.split_whitespace().nth(2), Some("NV"));
}

#[test]
fn an_nvlink_gpu_needs_its_nvlink_bandwidth() {
    let dir = scratch("nvlink-params");
    let text = std::fs::read_to_string(scenario("hardware/h200-8x-nvlink.toml")).unwrap();
    let cut = text.find("\nnvlink_bw =").unwrap();
    std::fs::write(dir.join("box.toml"), &text[..cut]).unwrap();
    let o = tpsim(&["topo", "--hardware", &dir.join("box.toml").display().to_string()]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("hardware.params.nvlink_bw"), "{}", o.stderr);
    assert!(
        o.stderr.contains("box.toml"),
        "the preset file is named: {}",
        o.stderr
    );
}

#[test]
fn a_ring_that_mixes_transports_says_so() {
    // ASUS GPUs 0–3 at the default level: 0→1 and 2→3 inside a partition (PIX, P2P), 1→2 and 3→0
    // between partitions (NODE, SHM), as NCCL's log on that box shows (rtx6kpro
    // asus-esc8000a-e13p-broadcom-switches.md, "NCCL Configuration").
    let args = [
        "collective",
        "--hardware",
        "rtx-pro-6000-8x-asus-esc8000a-e13p",
        "--gpus",
        "4",
        "--sizes",
        "64K",
    ];
    let o = tpsim(&args);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("# NCCL: transport shm on 2 of 4 ring hops, p2p on the rest (P2P level PXB)"),
        "{}",
        o.stdout
    );
    let mut json = args.to_vec();
    json.push("--json");
    let j: serde_json::Value = serde_json::from_str(&tpsim(&json).stdout).unwrap();
    assert_eq!(j["shm_hops"], 2);
    assert_eq!(j["transport"], "shm");
    // With P2P allowed everywhere no hop is SHM and the header is the plain one.
    let mut sys = args.to_vec();
    sys.extend(["--env", "NCCL_P2P_LEVEL=SYS"]);
    let o = tpsim(&sys);
    assert!(
        o.stdout.contains("# NCCL: transport p2p (P2P level SYS)"),
        "{}",
        o.stdout
    );
}

#[test]
fn topo_states_the_collapse_rule_of_the_platform() {
    // The ASUS preset: collapse_min_roots 2, collapse_min_sources 2, collapse_factor 0.0504,
    // collapse_reads true (rtx6kpro asus-esc8000a-e13p-broadcom-switches.md).
    let o = tpsim(&["topo", "--hardware", "rtx-pro-6000-8x-asus-esc8000a-e13p"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout.contains(
            "Posted-write collapse: a switch or root port writing to ≥ 2 root complexes from ≥ 2 of its GPUs keeps 5.0 % of its write bandwidth; the data of peer reads counts too (collapse_reads)"
        ),
        "{}",
        o.stdout
    );
    // Intel/V100 preset: collapse_factor 1.0 (never measured there), so no such line.
    let o = tpsim(&["topo", "--hardware", "v100-4x-plx"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stdout.contains("Posted-write collapse"), "{}", o.stdout);
}
