//! `tpsim-calibrate check`: per-row errors against tpsim's own commands, the gate, skipped rows and
//! bad input.

// Exact equality is the point: values are copied from printed decimals or computed by the same
// library call on both sides.
#![allow(clippy::float_cmp)]

use crate::common::*;
use serde_json::Value;

/// The nccl-tests fixture (allreduce.tsv rows 26-32) ingested into a scratch measurement file.
fn nccl_measurements(test: &str) -> String {
    let dir = scratch(test);
    let out = dir.join("nccl.json").display().to_string();
    let o = calibrate(&[
        "ingest",
        &fixture("nccl-tests-allreduce-4x-turin.txt"),
        "--out",
        &out,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    out
}

const PRESET: &str = "rtx-pro-6000-4x-turin-same-numa";
const SIZES: &str = "8192,65536,262144,524288,1048576,4194304,16777216";

#[test]
fn collective_rows_match_tpsim_collective_compare() {
    // allreduce.tsv rows 26-32 (4× RTX PRO 6000, EPYC 9575F, same NUMA socket, NCCL 2.28.3
    // nccl-tests default): the same seven sizes through `tpsim collective --compare` (the table,
    // filtered to that system) and through `check` on the nccl-tests fixture built from those rows.
    // Both use NCCL_P2P_LEVEL=SYS, as tests/tests/allreduce_data.rs does for this system.
    let meas = nccl_measurements("vs-collective");
    let o = calibrate(&[
        "check",
        "--hardware",
        PRESET,
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        &meas,
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    let c: Value = serde_json::from_str(&o.stdout).unwrap();
    let t = tpsim(&[
        "collective",
        "--hardware",
        PRESET,
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        "--sizes",
        SIZES,
        "--compare",
        &data("allreduce.tsv"),
        "--compare-filter",
        "4 GPUs same NUMA socket",
        "--json",
    ]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let t: Value = serde_json::from_str(&t.stdout).unwrap();
    let trows = t["rows"].as_array().unwrap();
    let crows = c["rows"].as_array().unwrap();
    assert_eq!(trows.len(), 7);
    assert_eq!(crows.len(), 14, "out-of-place and in-place per size");
    for (k, tr) in trows.iter().enumerate() {
        for cr in &crows[2 * k..2 * k + 2] {
            assert_eq!(
                f(&cr["measured"]),
                f(&tr["measured_us"]),
                "size {}",
                tr["size_bytes"]
            );
            assert_eq!(
                f(&cr["predicted"]),
                f(&tr["time_us"]),
                "size {}",
                tr["size_bytes"]
            );
            assert!(
                (f(&cr["error"]) - f(&tr["error"])).abs() < 1e-12,
                "size {}: check {} vs collective {}",
                tr["size_bytes"],
                cr["error"],
                tr["error"]
            );
        }
    }
    // Each size appears twice with the same error, so the medians agree too.
    assert!((f(&c["median_abs_error"]) - f(&t["median_abs_error"])).abs() < 1e-12);
    assert_eq!(c["checked"], 14);
    assert_eq!(c["skipped"], 0);
    assert_eq!(c["pass"], true);
    let worst = f(&c["worst_ratio"]);
    let by_hand = crows
        .iter()
        .map(|r| {
            let (p, m) = (f(&r["predicted"]), f(&r["measured"]));
            (p / m).max(m / p)
        })
        .fold(0.0, f64::max);
    assert_eq!(worst, by_hand);
}

#[test]
fn the_gate_exits_1_above_the_threshold() {
    let meas = nccl_measurements("gate");
    let args = |th: &'static str| {
        calibrate(&[
            "check",
            "--hardware",
            PRESET,
            "--env",
            "NCCL_P2P_LEVEL=SYS",
            &meas,
            "--threshold",
            th,
        ])
    };
    let json = calibrate(&[
        "check",
        "--hardware",
        PRESET,
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        &meas,
        "--json",
    ]);
    let median = f(&serde_json::from_str::<Value>(&json.stdout).unwrap()["median_abs_error"]) * 100.0;
    assert!(median > 1.0 && median < 99.0, "median {median} %");
    let hi = args("99");
    assert_eq!(hi.code, 0, "{}", hi.stderr);
    assert!(hi.stdout.contains("pass"));
    let lo = args("1");
    assert_eq!(lo.code, 1);
    assert!(lo.stdout.contains("FAIL"));
    assert!(lo.stderr.contains("exceeds the threshold 1.0 %"), "{}", lo.stderr);
    // The text table names every row with its signed error.
    assert!(hi.stdout.contains("allreduce 8192 B on 4 GPUs, out-of-place"));
    assert!(hi.stdout.contains("11.17 us"));
}

#[test]
fn memory_and_decode_rows_against_the_seed_scenario() {
    // The seed log fixture (S3/S4/S5 → 159,294 tokens) against scenarios/seed/baseline.toml, whose
    // plan gives 159,294 (R1): error exactly 0. The decode line at batch 1 against `tpsim run`'s
    // output_tok_s for the same scenario (concurrency 1 already).
    let dir = scratch("seed");
    let meas = dir.join("seed.json").display().to_string();
    let files = [
        fixture("sglang-seed-kimi-tp8.log"),
        fixture("vllm-codellama-7b-h100.log"),
        fixture("nccl-tests-allreduce-4x-turin.txt"),
    ];
    let o = calibrate(&["ingest", &files[0], &files[1], &files[2], "--out", &meas]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let base = scenario("seed/baseline.toml");
    let o = calibrate(&[
        "check",
        "--scenario",
        &base,
        &meas,
        "--json",
        "--threshold",
        "100000",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let c: Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = c["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 2 + 1 + 14);
    assert_eq!(rows[0]["kind"], "engine_memory");
    assert_eq!(f(&rows[0]["predicted"]), 159_294.0);
    assert_eq!(f(&rows[0]["error"]), 0.0);
    let run = tpsim(&["run", &base, "--json"]);
    let run: Value = serde_json::from_str(&run.stdout).unwrap();
    assert_eq!(rows[1]["kind"], "decode_throughput");
    assert_eq!(f(&rows[1]["predicted"]), f(&run["throughput"]["output_tok_s"]));
    assert_eq!(f(&rows[1]["measured"]), 76.0);
    // vLLM record against an SGLang scenario: skipped with the reason.
    assert_eq!(rows[2]["kind"], "engine_memory");
    assert!(rows[2]["skipped"].as_str().unwrap().contains("measured on vllm"));
    // 4-GPU collectives on the scenario's 8-GPU box are predicted (4 of its GPUs).
    assert!(rows[3]["predicted"].is_number());
    assert_eq!(c["skipped"], 1);
}

#[test]
fn unpredictable_records_are_listed_as_skipped() {
    let dir = scratch("skips");
    let m = r#"{"schema":"tpsim-measurements/1","provenance":{"tool":"bench"},"records":[
 {"kind":"gemm","m":1,"n":7168,"k":2048,"dtype":"fp8","time_us":9.5},
 {"kind":"collective","op":"allreduce","n_gpus":16,"size_bytes":8192,"time_us":20.0},
 {"kind":"collective","op":"broadcast","n_gpus":4,"size_bytes":8192,"time_us":20.0},
 {"kind":"collective","op":"allreduce","n_gpus":4,"size_bytes":8192,"time_us":11.17},
 {"kind":"engine_memory","engine":"sglang","kv_tokens":1000},
 {"kind":"decode_throughput","engine":"sglang","batch":1,"tok_s":70.0}
]}"#;
    let file = write(&dir, "m.json", m);
    let o = calibrate(&[
        "check",
        "--hardware",
        PRESET,
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        &file,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let t = &o.stdout;
    assert!(t.contains("1 rows predicted, 5 skipped"), "{t}");
    assert!(t.contains("bf16/fp16 tensor rate only"), "{t}");
    assert!(t.contains("16 GPUs: the hardware has 4"), "{t}");
    assert!(
        t.contains("tpsim models allreduce and allgather, not broadcast"),
        "{t}"
    );
    assert!(t.contains("needs --scenario (the memory plan"), "{t}");
    assert!(t.contains("needs --scenario (tpsim run"), "{t}");
}

#[test]
fn bad_input_exits_2() {
    let dir = scratch("bad");
    let meas = nccl_measurements("bad-meas");
    let cases: Vec<(Vec<String>, &str)> = vec![
        (
            vec!["--hardware".into(), PRESET.into(), "/nonexistent.json".into()],
            "/nonexistent.json",
        ),
        (
            vec![
                "--hardware".into(),
                PRESET.into(),
                write(
                    &dir,
                    "s.json",
                    r#"{"schema":"tpsim-measurements/9","provenance":{"tool":"x"},"records":[]}"#,
                ),
            ],
            "expected `tpsim-measurements/1`",
        ),
        (
            vec![
                "--hardware".into(),
                PRESET.into(),
                write(&dir, "b.json", "{\"schema\": 1}"),
            ],
            "line 1, column",
        ),
        (vec![meas.clone()], "give a SCENARIO file or --hardware PRESET"),
        (
            vec!["--hardware".into(), "no-such-box".into(), meas.clone()],
            "no-such-box",
        ),
        (
            vec![
                "--hardware".into(),
                PRESET.into(),
                "--threshold=-5".into(),
                meas.clone(),
            ],
            "--threshold -5",
        ),
        (
            vec![
                "--hardware".into(),
                PRESET.into(),
                write(
                    &dir,
                    "e.json",
                    r#"{"schema":"tpsim-measurements/1","provenance":{"tool":"x"},"records":[]}"#,
                ),
            ],
            "nothing to check",
        ),
    ];
    for (args, want) in cases {
        let mut a = vec!["check"];
        a.extend(args.iter().map(String::as_str));
        let o = calibrate(&a);
        assert_eq!(o.code, 2, "{args:?}: {}", o.stderr);
        assert!(o.stderr.contains(want), "{args:?}: {}", o.stderr);
    }
}

/// engine-memory.tsv's vLLM 0.19.0 Llama-3.1-8B fp8 row as a scenario (the same one
/// tests/tests/engine_memory.rs checks: observed 78.68 GiB free at start, 8.49 GiB of weights).
const VLLM_SCENARIO: &str = "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\ntp = 1\n\
gpu_memory_utilization = 0.95\n[engine.observed]\nfree_at_start_gib = 78.68\nweights_gib = 8.49\n";

#[test]
fn vllm_kv_tokens_row_and_round_trip() {
    let dir = scratch("vllm");
    let scen = write(&dir, "s.toml", VLLM_SCENARIO);
    // The logged 529,248 tokens against the plan's 529,248 (tests/tests/engine_memory.rs derives it;
    // vrows2: vLLM 0.19's profile-run activation, 1.88484 GiB): error 0.
    let meas = dir.join("v.json").display().to_string();
    let o = calibrate(&[
        "ingest",
        &fixture("vllm-llama-3.1-8b-h100-fp8.log"),
        "--out",
        &meas,
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let o = calibrate(&["check", "--scenario", &scen, &meas, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let c: Value = serde_json::from_str(&o.stdout).unwrap();
    let row = &c["rows"][0];
    assert_eq!(row["kind"], "engine_memory");
    assert_eq!(f(&row["measured"]), 529_248.0);
    assert_eq!(f(&row["predicted"]), 529_248.0);
    assert_eq!(f(&row["error"]), 0.0);
    // `tpsim memory --log` of the same scenario, ingested, gives the plan's tokens back.
    let log = tpsim(&["memory", &scen, "--log"]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    let plan: Value = serde_json::from_str(&tpsim(&["memory", &scen, "--json"]).stdout).unwrap();
    let file = write(&dir, "plan.log", &log.stdout);
    let (v, _) = ingest_ok(&[&file]);
    let m = &v["records"][0];
    assert_eq!(m["engine"], "vllm");
    assert_eq!(m["kv_tokens"], plan["kv_tokens"]);
    assert_eq!(m["kv_tokens"], 529_248);
    assert_eq!(
        f(&m["kv_budget_gib"]),
        (f(&plan["rest_gib"]) * 100.0).round() / 100.0
    );
}

#[test]
fn profile_is_applied_as_tpsim_collective_applies_it() {
    // A profile raising the preset's per-channel NCCL bandwidth from 11.5 to 20 GB/s: check with
    // --profile gives tpsim collective --profile's times, and they differ from the preset's at 16 MiB.
    let dir = scratch("profile");
    let prof = write(
        &dir,
        "p.toml",
        "[provenance]\ntool = \"hand\"\n\n[params.nccl_channel_bw]\nvalue = 20.0\nunit = \"GB/s\"\nsource = \"test\"\n",
    );
    let meas = nccl_measurements("profile-meas");
    let run = |extra: &[&str]| {
        let mut a = vec![
            "check",
            "--hardware",
            PRESET,
            "--env",
            "NCCL_P2P_LEVEL=SYS",
            &meas,
            "--json",
        ];
        a.extend_from_slice(extra);
        let o = calibrate(&a);
        assert_eq!(o.code, 0, "{}", o.stderr);
        serde_json::from_str::<Value>(&o.stdout).unwrap()
    };
    let with = run(&["--profile", &prof]);
    let without = run(&[]);
    let t = tpsim(&[
        "collective",
        "--hardware",
        PRESET,
        "--profile",
        &prof,
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        "--sizes",
        "16777216",
        "--json",
    ]);
    assert_eq!(t.code, 0, "{}", t.stderr);
    let t: Value = serde_json::from_str(&t.stdout).unwrap();
    let last = &with["rows"][13];
    assert_eq!(last["what"], "allreduce 16777216 B on 4 GPUs, in-place");
    assert_eq!(f(&last["predicted"]), f(&t["rows"][0]["time_us"]));
    assert!(f(&last["predicted"]) < f(&without["rows"][13]["predicted"]));
    assert!(with["target"].as_str().unwrap().contains("with profile"));
    // With a scenario the profile belongs in its [hardware] section.
    let o = calibrate(&[
        "check",
        "--scenario",
        &scenario("seed/baseline.toml"),
        "--profile",
        &prof,
        &meas,
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--profile goes with --hardware"),
        "{}",
        o.stderr
    );
}

#[test]
fn gemm_and_p2p_rows_are_predicted_and_gated() {
    let dir = scratch("gemm-p2p");
    // Hand-made records (not measured): one decode GEMV, a same-switch and a cross-switch P2P
    // copy, a same-switch latency and one without peer access, plus rows tpsim cannot predict.
    let m = r#"{"schema":"tpsim-measurements/1","provenance":{"tool":"bench"},"records":[
 {"kind":"gemm","m":1,"n":7168,"k":2048,"dtype":"bf16","time_us":25.0},
 {"kind":"copy_bandwidth","path":"p2p","src":0,"dst":1,"peer_access":true,"size_bytes":67108864,"gbps":50.0},
 {"kind":"p2p_latency","src":0,"dst":1,"peer_access":true,"one_way_us":0.70},
 {"kind":"p2p_latency","src":0,"dst":4,"peer_access":false,"one_way_us":14.0},
 {"kind":"copy_bandwidth","path":"p2p","src":0,"dst":1,"peer_access":false,"size_bytes":67108864,"gbps":10.0},
 {"kind":"copy_bandwidth","path":"h2d","size_bytes":67108864,"gbps":50.0},
 {"kind":"copy_bandwidth","path":"d2d","size_bytes":268435456,"gbps":1400.0},
 {"kind":"p2p_latency","src":0,"dst":9,"one_way_us":1.0}
]}"#;
    let file = write(&dir, "m.json", m);
    let hw = "rtx-pro-6000-8x-2switch-trpro";
    let o = calibrate(&["check", "--hardware", hw, &file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: Value = serde_json::from_str(&o.stdout).unwrap();
    let rows = j["rows"].as_array().unwrap();
    let pred = |i: usize| f(&rows[i]["predicted"]);
    // GEMM 1×7168×2048 bf16: 2 × (2048 + 14 680 064 + 7168) = 29 378 560 B at the Workstation
    // Edition's 1.792 TB/s × 0.893 (server58: the preset's Edition assumed Workstation; KernelForge's
    // measured streaming efficiency) = 1.600256 TB/s → 18.358663 µs (29.4 MFLOP at 250 TFLOP/s is
    // 0.12 µs, below it) + 2 µs kernel overhead (22.515754 at 1.79 TB/s × 0.80 before server58).
    assert!((pred(0) - 20.358_663).abs() < 1e-5, "{}", pred(0));
    assert_eq!(rows[0]["kind"], "gemm");
    // Copy GPU0 → GPU1 behind the same switch: 64 MiB over Gen5 x16 at 53.6 GB/s = 1252.0310 µs,
    // + 2 links × 0.34 µs = 1252.7110 µs → 53.5709 GB/s.
    assert!((pred(1) - 53.570_9).abs() < 1e-4, "{}", pred(1));
    assert_eq!(rows[1]["unit"], "GB/s");
    // Flag latency behind one switch: 2 × 0.34 µs; without peer access: the 14 µs staged latency.
    assert!((pred(2) - 0.68).abs() < 1e-9, "{}", pred(2));
    assert!((pred(3) - 14.0).abs() < 1e-9, "{}", pred(3));
    // d2d of 256 MiB: 2 × 268 435 456 B at 1.792 TB/s × 0.893 = 1.600256 TB/s (server58's
    // Workstation Edition) = 335.491 µs + 2 µs → 1590.77 GB/s (1424.40 at 1.79 × 0.80 before); tpsim's
    // time is whole picoseconds (`SimTime`), the streamed part truncated: 335,490,641 + 2,000,000 ps.
    let ps = (2.0 * 268_435_456.0 / 1.600_256e12 * 1e12_f64).floor() + 2e6;
    let d2d: f64 = 2.0 * 268_435_456.0 / (ps * 1e-12) / 1e9;
    assert!((d2d - 1590.77).abs() < 0.01, "{d2d}");
    assert!((pred(6) - d2d).abs() < 1e-6, "{}", pred(6));
    for (i, why) in [
        (4, "stages the copy through host memory"),
        (5, "not h2d"),
        (7, "GPU 9: the hardware has 8 GPUs"),
    ] {
        let s = rows[i]["skipped"].as_str().unwrap_or_default();
        assert!(s.contains(why), "row {i}: {s}");
    }
    assert_eq!((j["checked"].as_u64(), j["skipped"].as_u64()), (Some(5), Some(3)));
    // Errors: GEMM 20.3587 vs 25 → −18.57 %; copy 53.5709 vs 50 → +7.14 %; latency 0.68 vs 0.70 →
    // −2.86 %; staged 14 vs 14 → 0; d2d 1590.77 vs 1400 → +13.63 %. Median of |e| over the five:
    // the copy row's 53.5709 / 50 − 1 = 7.14 % (the latency row's 2.86 % before server58's Workstation
    // memory); worst ratio 25 / 20.3587 (row 1).
    assert!(
        (f(&j["median_abs_error"]) - (pred(1) / 50.0 - 1.0)).abs() < 1e-9,
        "{}",
        j["median_abs_error"]
    );
    assert!((f(&j["worst_ratio"]) - 25.0 / 20.358_663).abs() < 1e-6);
    assert_eq!(j["worst_row"], 1);
    // The gate counts these rows: 7.14 % passes at 8 %, fails at 7 % (exit 1).
    let o = calibrate(&["check", "--hardware", hw, &file, "--threshold", "8"]);
    assert_eq!(o.code, 0, "{}{}", o.stdout, o.stderr);
    assert!(o.stdout.contains("GPU0→GPU1 one-way latency"), "{}", o.stdout);
    let o = calibrate(&["check", "--hardware", hw, &file, "--threshold", "7"]);
    assert_eq!(o.code, 1, "{}{}", o.stdout, o.stderr);
}
