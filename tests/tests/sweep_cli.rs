//! `tpsim sweep` and `tpsim merge` (issue #8): rows in input order equal to single `tpsim run`s,
//! identical for any thread count, shards that merge back byte for byte, OOM rows, ranges, errors,
//! and the SVG chart.

use crate::common::*;

/// The seed baseline without `num_draft_tokens`, so every `num_steps` resolves (topk = 1 chains get
/// num_steps + 1, scenario.rs): what `--unset speculative.num_draft_tokens` does to a sweep.
fn chain_baseline(name: &str) -> String {
    baseline_with(name, "num_draft_tokens = 4\n", "")
}

/// CSV text → header and rows of cells (no quoting occurs in these sweeps' cells).
fn parse_csv(t: &str) -> (Vec<String>, Vec<Vec<String>>) {
    let mut lines = t
        .lines()
        .map(|l| l.split(',').map(String::from).collect::<Vec<_>>());
    let header = lines.next().expect("header");
    (header, lines.collect())
}

fn cell<'a>(header: &[String], row: &'a [String], col: &str) -> &'a str {
    let i = header
        .iter()
        .position(|h| h == col)
        .unwrap_or_else(|| panic!("no column {col}"));
    &row[i]
}

/// A numeric cell, parsed by serde_json's own float parser: `tpsim run --json` and the CSV print the
/// same shortest round-trip digits, and serde_json (without `float_roundtrip`) may land one ulp away
/// from the exact value, so the same parser on both sides makes equal digits compare equal.
fn num(header: &[String], row: &[String], col: &str) -> f64 {
    serde_json::from_str(cell(header, row, col)).unwrap_or_else(|_| panic!("{col} is not a number: {row:?}"))
}

const STEPS: [&str; 4] = [
    "--set",
    "speculative.num_steps=1,3,5",
    "--set",
    "engine.allreduce=nccl,custom",
];

#[test]
fn rows_in_input_order_equal_single_runs_for_any_threads_and_shards() {
    // The sweep runs on the seed baseline itself; the single runs on a copy without the key.
    let base = scenario("seed/baseline.toml");
    let file = chain_baseline("sweep-steps");
    let args = |extra: &[&str]| {
        let mut a = vec![
            "sweep",
            base.as_str(),
            "--quiet",
            "--unset",
            "speculative.num_draft_tokens",
        ];
        a.extend(STEPS);
        a.extend(extra);
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |extra: &[&str]| {
        let a = args(extra);
        let o = tpsim(&a.iter().map(String::as_str).collect::<Vec<_>>());
        assert_eq!(o.code, 0, "{}", o.stderr);
        o.stdout
    };
    let one = run(&["--threads", "1"]);
    let two = run(&["--threads", "2"]);
    assert_eq!(one, two, "1 and 2 threads must give identical CSV");

    let (h, rows) = parse_csv(&one);
    assert_eq!(
        h,
        [
            "point",
            "speculative.num_steps",
            "engine.allreduce",
            "verdict",
            "output_tok_s",
            "tpot_ms",
            "ttft_ms",
            "accept_len_mean",
            "kv_tokens",
            "min_mem_fraction_static",
            "allreduce_ms_per_iter",
            "bottleneck",
            "ttft_p99_ms",
            "tpot_p99_ms",
            "request_throughput",
            "preemptions",
            "peak_kv_utilisation",
            "frontend_busy",
            "overloaded"
        ]
    );
    // First --set outermost: (1, nccl), (1, custom), (3, nccl), …
    let order: Vec<(String, String)> = rows.iter().map(|r| (r[1].clone(), r[2].clone())).collect();
    let want: Vec<(String, String)> = ["1", "3", "5"]
        .iter()
        .flat_map(|s| ["nccl", "custom"].map(|b| (s.to_string(), b.to_string())))
        .collect();
    assert_eq!(order, want);

    // Each row equals `tpsim run --json` of the same settings, exactly (both print the same f64
    // with a shortest round-trip formatting, so parsing gives the same bits).
    for (k, r) in rows.iter().enumerate() {
        assert_eq!(r[0], k.to_string());
        let text = std::fs::read_to_string(&file).unwrap();
        let text = text
            .replace("num_steps = 3", &format!("num_steps = {}", r[1]))
            .replace("allreduce = \"nccl\"", &format!("allreduce = \"{}\"", r[2]));
        let single = scratch(&format!("sweep-single-{k}")).join("s.toml");
        std::fs::write(&single, text).unwrap();
        let j = run_json(&single.display().to_string());
        assert_eq!(cell(&h, r, "verdict"), "ok");
        for (col, json) in [
            ("output_tok_s", &j["throughput"]["output_tok_s"]),
            ("tpot_ms", &j["throughput"]["tpot_ms"]),
            ("ttft_ms", &j["throughput"]["ttft_ms"]),
            ("accept_len_mean", &j["spec"]["accept_len_mean"]),
            ("kv_tokens", &j["memory"]["kv_tokens"]),
            ("min_mem_fraction_static", &j["memory"]["min_mem_fraction_static"]),
            ("allreduce_ms_per_iter", &j["breakdown_by_op"]["allreduce"]),
            ("ttft_p99_ms", &j["serving"]["ttft_ms"]["p99"]),
            ("tpot_p99_ms", &j["serving"]["tpot_ms"]["p99"]),
            ("request_throughput", &j["serving"]["request_throughput"]),
            ("preemptions", &j["serving"]["preemptions"]),
            ("peak_kv_utilisation", &j["serving"]["peak_kv_utilisation"]),
        ] {
            // Exact: the same bits (tolerance zero).
            let (a, b) = (num(&h, r, col), f(json));
            assert_eq!(a.to_bits(), b.to_bits(), "row {k} {col}: sweep {a} vs run {b}");
        }
        assert_eq!(cell(&h, r, "bottleneck"), j["bottleneck"].as_str().unwrap());
    }
    // The sweep really moved things: deeper chains accept more (α = 0.82: 1.82 at 1 step, 3.04 at 3).
    assert!(num(&h, &rows[0], "accept_len_mean") < num(&h, &rows[2], "accept_len_mean"));

    // Shards (stride: 1/2 holds points 0, 2, 4) merge back into exactly the unsharded bytes.
    let d = scratch("sweep-shards");
    let (a, b) = (d.join("a.csv"), d.join("b.csv"));
    let (a_s, b_s) = (a.display().to_string(), b.display().to_string());
    run(&["--shard", "1/2", "--out", &a_s]);
    run(&["--shard", "2/2", "--out", &b_s, "--threads", "1"]);
    let (_, a_rows) = parse_csv(&std::fs::read_to_string(&a).unwrap());
    assert_eq!(
        a_rows.iter().map(|r| r[0].as_str()).collect::<Vec<_>>(),
        ["0", "2", "4"]
    );
    let m = tpsim(&["merge", &b_s, &a_s]);
    assert_eq!(m.code, 0, "{}", m.stderr);
    assert_eq!(
        m.stdout, one,
        "merged shards must equal the unsharded CSV byte for byte"
    );
    // A left-out shard leaves a gap; the same shard twice is a duplicate.
    let m = tpsim(&["merge", &b_s]);
    assert_eq!(m.code, 2);
    assert!(m.stderr.contains("point 0 is missing"), "{}", m.stderr);
    let m = tpsim(&["merge", &a_s, &a_s]);
    assert_eq!(m.code, 2);
    assert!(m.stderr.contains("point 0 appears twice"), "{}", m.stderr);
}

#[test]
fn oom_points_are_rows_without_metrics_and_json_and_plot_show_them() {
    let base = scenario("seed/baseline.toml");
    let d = scratch("sweep-oom");
    let svg = d.join("chart.svg").display().to_string();
    let o = tpsim(&[
        "sweep",
        &base,
        "--quiet",
        "--set",
        "engine.mem_fraction_static=0.70,0.88",
        "--set",
        "engine.allreduce=nccl,custom",
        "--plot",
        &svg,
        "--x",
        "engine.mem_fraction_static",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (h, rows) = parse_csv(&o.stdout);
    assert_eq!(rows.len(), 4);
    for r in &rows[..2] {
        // 0.70 is below the seed's smallest fraction that starts, 0.7691 (seed story R2; printed
        // by `tpsim memory` with 4 decimals, hence the 5e-5 tolerance).
        assert_eq!(cell(&h, r, "verdict"), "oom");
        for c in [
            "output_tok_s",
            "tpot_ms",
            "ttft_ms",
            "accept_len_mean",
            "allreduce_ms_per_iter",
            "bottleneck",
        ] {
            assert_eq!(cell(&h, r, c), "", "{c} must be empty for an OOM point");
        }
        assert!(
            (num(&h, r, "min_mem_fraction_static") - 0.7691).abs() < 5e-5,
            "{r:?}"
        );
    }
    // 0.88 with NCCL: the seed's 159,294 KV tokens (R1).
    assert_eq!(cell(&h, &rows[2], "verdict"), "ok");
    assert_eq!(cell(&h, &rows[2], "kv_tokens"), "159294");
    assert!(!o.stdout.contains("NaN") && !o.stdout.contains("inf"));

    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(chart.starts_with("<svg"), "{}", &chart[..80.min(chart.len())]);
    for t in [
        "OOM",
        "engine.allreduce=nccl",
        "engine.allreduce=custom",
        "output throughput (tokens/s)",
    ] {
        assert!(chart.contains(t), "the chart lacks `{t}`");
    }

    let o = tpsim(&[
        "sweep",
        &base,
        "--quiet",
        "--json",
        "--set",
        "engine.mem_fraction_static=0.70,0.88",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j[0]["verdict"], "oom");
    assert!(j[0]["output_tok_s"].is_null());
    assert_eq!(j[1]["engine.mem_fraction_static"], 0.88);
    assert_eq!(j[1]["kv_tokens"], 159_294);
    assert!(f(&j[1]["output_tok_s"]) > 0.0);
}

#[test]
fn range_gives_exact_decimal_points() {
    let o = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--set",
        "engine.mem_fraction_static=0.80:0.90:0.05",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (h, rows) = parse_csv(&o.stdout);
    let fr: Vec<&str> = rows
        .iter()
        .map(|r| cell(&h, r, "engine.mem_fraction_static"))
        .collect();
    assert_eq!(fr, ["0.80", "0.85", "0.90"]);
    // More static memory, more KV: strictly increasing token counts.
    let kv: Vec<f64> = rows.iter().map(|r| num(&h, r, "kv_tokens")).collect();
    assert!(kv[0] < kv[1] && kv[1] < kv[2], "{kv:?}");
}

#[test]
fn bad_keys_and_values_exit_2_naming_the_point_and_key() {
    let base = scenario("seed/baseline.toml");
    let o = tpsim(&["sweep", &base, "--set", "engine.bogus_knob=1,2"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("point 0 (engine.bogus_knob=1)"), "{}", o.stderr);
    assert!(o.stderr.contains("bogus_knob"), "{}", o.stderr);

    let o = tpsim(&["sweep", &base, "--set", "engine.allreduce=nccl,carrier-pigeon"]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("point 1 (engine.allreduce=carrier-pigeon)"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("engine.allreduce"), "{}", o.stderr);

    // num_steps 1 with the baseline's num_draft_tokens = 4: SGLang adjusts it (topk = 1) and warns.
    let o = tpsim(&["sweep", &base, "--set", "speculative.num_steps=1"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("speculative.num_draft_tokens 4 → 2"),
        "{}",
        o.stderr
    );

    for (args, needle) in [
        (
            vec!["--set", "engine.mem_fraction_static=0.9:0.8:0.05"],
            "goes away from END",
        ),
        (vec!["--set", "noequals"], "expected KEY="),
        // Several bad points: the first in grid order is reported, whatever the threads.
        (
            vec![
                "--set",
                "engine.allreduce=pigeon,owl,nccl,raven",
                "--threads",
                "2",
            ],
            "point 0 (engine.allreduce=pigeon)",
        ),
        (
            vec!["--set", "engine.tp=8", "--unset", "engine.nope"],
            "--unset engine.nope",
        ),
        (vec!["--set", "engine.tp=8", "--shard", "3/2"], "--shard 3/2"),
        (
            vec![
                "--set",
                "engine.tp=8",
                "--plot",
                "x.svg",
                "--x",
                "engine.page_size",
            ],
            "not a swept key",
        ),
    ] {
        let mut a = vec!["sweep", base.as_str()];
        a.extend(args);
        let o = tpsim(&a);
        assert_eq!(o.code, 2, "{a:?}: {}", o.stderr);
        assert!(o.stderr.contains(needle), "{a:?}: {}", o.stderr);
    }
}

/// Issue #18 point 3: preemptions and KV use "as a plot from sweeps". Llama-3.1-8B on one H100,
/// vLLM, 64 clients of 1024 + 1024 tokens (all 64 hold 64 × 2048 = 131,072 tokens at their ends),
/// `max_model_len = 4096` so every pool below starts. At gpu_memory_utilization 0.9 the pool
/// (443,568 tokens, tpsim's plan) holds them all: no preemption. At 0.25 (21,904 tokens = 1,369
/// blocks of 16) vLLM admits by the blocks a request holds now (`allocate_slots`), not by its final
/// length: more run than ⌊21,904 ÷ 2,048⌋ = 10 fit at their ends, at most ⌊1,369 ÷ 64⌋ = 21 (a
/// 1,024-token prompt holds 64 blocks), so the pool fills and requests are preempted.
#[test]
fn preemptions_and_kv_use_plot_from_a_sweep() {
    let d = scratch("sweep-preempt");
    let file = d.join("k.toml");
    std::fs::write(
        &file,
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
         tp = 1\nmax_model_len = 4096\ngpu_memory_utilization = 0.9\n[workload]\nconcurrency = 64\n\
         num_requests = 256\nprompt_len = 1024\noutput_len = 1024\n",
    )
    .unwrap();
    let svg = d.join("preemptions.svg").display().to_string();
    let o = tpsim(&[
        "sweep",
        file.to_str().unwrap(),
        "--quiet",
        "--set",
        "engine.gpu_memory_utilization=0.25,0.9",
        "--metric",
        "preemptions",
        "--plot",
        &svg,
        "--x",
        "engine.gpu_memory_utilization",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (h, rows) = parse_csv(&o.stdout);
    assert_eq!(cell(&h, &rows[0], "kv_tokens"), "21904");
    assert_eq!(cell(&h, &rows[1], "kv_tokens"), "443568");
    assert!(num(&h, &rows[0], "preemptions") > 0.0, "{:?}", rows[0]);
    assert_eq!(cell(&h, &rows[0], "peak_kv_utilisation"), "1");
    assert_eq!(cell(&h, &rows[1], "preemptions"), "0");
    // 131,072 of 443,568 tokens at most: below 0.2955 (+ the prompts' last partial blocks: none, 1024 and 2048 are whole blocks).
    assert!(num(&h, &rows[1], "peak_kv_utilisation") <= 131_072.0 / 443_568.0 + 1e-12);
    let chart = std::fs::read_to_string(&svg).unwrap();
    assert!(
        chart.contains("preemptions vs engine.gpu_memory_utilization"),
        "{}",
        &chart[..400]
    );
    // The admitted batch at 0.25, from `tpsim run`: between 10 and 21 (see above).
    let text = std::fs::read_to_string(&file).unwrap().replace("= 0.9", "= 0.25");
    std::fs::write(&file, text).unwrap();
    let j = run_json(file.to_str().unwrap());
    let peak = j["serving"]["peak_running"].as_u64().unwrap();
    assert!((11..=21).contains(&peak), "{peak}");
}

/// Issue #18 "Done when": at open-loop rates past saturation the report says the system is
/// overloaded — in a rate sweep too. The open-loop example with 600 requests: at 8 req/s the queue
/// stays empty, at 200 req/s (about 8× what the box serves) it grows (the same points as
/// `serving::open_loop_rates_past_saturation_report_overload`, which checks them in `tpsim run`).
#[test]
fn a_rate_sweep_marks_the_overloaded_points() {
    let text = std::fs::read_to_string(scenario("examples/llama-3.1-8b-h100-open-loop.toml"))
        .unwrap()
        .replace("num_requests = 200", "num_requests = 600");
    let d = scratch("sweep-overload");
    let file = d.join("open.toml");
    std::fs::write(&file, text).unwrap();
    let f = file.to_str().unwrap();
    let o = tpsim(&["sweep", f, "--quiet", "--set", "workload.request_rate=8,200"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (h, rows) = parse_csv(&o.stdout);
    assert_eq!(cell(&h, &rows[0], "overloaded"), "false");
    assert_eq!(cell(&h, &rows[1], "overloaded"), "true");
    let j = tpsim(&[
        "sweep",
        f,
        "--quiet",
        "--json",
        "--set",
        "workload.request_rate=8,200",
    ]);
    assert_eq!(j.code, 0, "{}", j.stderr);
    let v: serde_json::Value = serde_json::from_str(&j.stdout).unwrap();
    assert_eq!(v[0]["overloaded"], false, "{v}");
    assert_eq!(v[1]["overloaded"], true, "{v}");
}
