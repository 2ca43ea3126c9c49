//! `tpsim-calibrate ingest` on the hand-written fixtures (their sources: tests/fixtures/README.md),
//! malformed input (error with file:line, exit 2), partial input (records + warning) and the round
//! trip with `tpsim memory --log`. Values are compared exactly where the parser copies a printed
//! decimal (tolerance 1e-9 for sums).

// Exact equality is the point: values are copied from printed decimals or computed by the same
// library call on both sides.
#![allow(clippy::float_cmp)]

use crate::common::*;
use serde_json::Value;
use tpsim_calibrate::ingest::{Format, detect};

fn records(v: &Value) -> &Vec<Value> {
    v["records"].as_array().expect("records array")
}

#[test]
fn nccl_tests_table_gives_one_record_per_row_and_placement() {
    // allreduce.tsv rows 26-32: 7 sizes × (out-of-place, in-place).
    let (v, err) = ingest_ok(&[&fixture("nccl-tests-allreduce-4x-turin.txt")]);
    assert!(err.is_empty(), "no warnings expected: {err}");
    let r = records(&v);
    assert_eq!(r.len(), 14);
    let first = &r[0];
    assert_eq!(first["kind"], "collective");
    assert_eq!(first["op"], "allreduce");
    assert_eq!(first["n_gpus"], 4);
    assert_eq!(first["size_bytes"], 8192);
    assert_eq!(f(&first["time_us"]), 11.17);
    assert_eq!(f(&first["busbw_gbps"]), 1.10);
    assert_eq!(first["placement"], "out-of-place");
    assert_eq!(first["backend"], "nccl");
    assert_eq!(r[1]["placement"], "in-place");
    let last = &r[13];
    assert_eq!(last["size_bytes"], 16_777_216);
    assert_eq!(f(&last["time_us"]), 552.12);
    assert_eq!(f(&last["busbw_gbps"]), 45.58);
    let sizes: Vec<u64> = r
        .iter()
        .step_by(2)
        .map(|x| x["size_bytes"].as_u64().unwrap())
        .collect();
    assert_eq!(
        sizes,
        [8192, 65536, 262_144, 524_288, 1_048_576, 4_194_304, 16_777_216]
    );
    let p = &v["provenance"];
    assert_eq!(p["tool"], "ingest");
    assert_eq!(p["gpu"], "NVIDIA RTX PRO 6000 Blackwell Server Edition");
    assert_eq!(p["gpu_count"], 4);
    assert_eq!(p["nccl_version"], "2.28.3"); // nccl-library=22803
    assert_eq!(p["machine"], "turin-4x");
    assert!(p.get("notes").is_none());
}

#[test]
fn old_nccl_tests_all_gather_format_with_per_iteration_and_timestamps() {
    // The pre-2023 layout: no version or "test starting" line, bus id `[0x01]`, #wrong as N/A;
    // the op comes from the file name. Numbers are made up for the format; busbw = algbw × 1/2.
    let dir = scratch("old-allgather");
    let text = "\
# nThread 1 nGpus 2 minBytes 1024 maxBytes 2048 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 0 graph: 0
#
# Using devices
#  Rank  0 Group  0 Pid  77 on      box-a device  0 [0x1a] NVIDIA GeForce RTX 4090
#  Rank  1 Group  0 Pid  77 on      box-a device  1 [0x1b] NVIDIA GeForce RTX 4090
#
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
        1024           128     float    none      -1    10.24    0.10    0.05    N/A    10.00    0.10    0.05    N/A
        2048           256     float    none      -1    20.48    0.10    0.05    N/A    20.00    0.10    0.05    N/A  2026-11-29 10:00:00
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 0.05
";
    let file = write(&dir, "all_gather_perf-2x.log", text);
    let (v, err) = ingest_ok(&[&file]);
    assert!(err.is_empty(), "{err}");
    let r = records(&v);
    assert_eq!(r.len(), 4);
    assert_eq!(r[0]["op"], "allgather");
    assert_eq!(r[0]["n_gpus"], 2);
    assert_eq!(f(&r[1]["time_us"]), 10.00);
    assert_eq!(r[3]["size_bytes"], 2048);
    assert_eq!(f(&r[3]["time_us"]), 20.00);
    assert_eq!(v["provenance"]["gpu"], "NVIDIA GeForce RTX 4090");
    // -I 1 rows: four per-iteration columns after each group are read past.
    let per_iter = "\
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 1 iters: 1 agg iters: 1 validation: 1 graph: 0 unalign: 0
           8             2     float     sum      -1     9.50    0.00    0.00       0     9.00    9.90    9.99    1.00     9.40    0.00    0.00       0     9.00    9.80    9.90    1.00
# Avg bus bandwidth    : 0
";
    let file = write(&dir, "x.txt", per_iter);
    let (v, _) = ingest_ok(&[&file]);
    let r = records(&v);
    assert_eq!(r.len(), 2);
    assert_eq!(f(&r[0]["time_us"]), 9.50);
    assert_eq!(f(&r[1]["time_us"]), 9.40);
}

#[test]
fn malformed_nccl_row_names_file_line_and_column() {
    let dir = scratch("bad-nccl");
    let text = std::fs::read_to_string(fixture("nccl-tests-allreduce-4x-turin.txt"))
        .unwrap()
        .replace(
            "65536         16384     float     sum      -1    12.77    5.13    7.70       0    12.77    5.13    7.70",
            "65536         16384     float     sum      -1    12.77    5.13    7.70       0    12.77    5.13    x.yz",
        );
    assert!(text.contains("x.yz"), "the fixture row was found and altered");
    let file = write(&dir, "all_reduce_perf.txt", &text);
    let o = calibrate(&["ingest", &file]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    // Line 15 of the fixture holds the 64 KiB row.
    assert!(
        o.stderr.contains(&format!(
            "{file}:15: in-place busbw (GB/s) `x.yz`: expected a number"
        )),
        "{}",
        o.stderr
    );
    assert!(o.stdout.is_empty());
    // Too few columns, and a row before any header that says how many GPUs ran it.
    let file = write(
        &dir,
        "short.txt",
        "# Collective test starting: all_reduce_perf\n# nThread 1 nGpus 2\n 8 2 float sum -1 1.0 0 0\n",
    );
    let o = calibrate(&["ingest", &file]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains(":3: 3 columns after `root`"), "{}", o.stderr);
    let file = write(
        &dir,
        "nohdr.txt",
        "# Collective test starting: all_reduce_perf\n 8 2 float sum -1 1 0 0 0 1 0 0 0\n",
    );
    let o = calibrate(&["ingest", &file, "--format", "nccl-tests"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains(":2: table row before any"), "{}", o.stderr);
}

#[test]
fn partial_nccl_table_warns_and_keeps_the_rows() {
    let o = calibrate(&["ingest", &fixture("nccl-tests-partial.txt")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("warning: ") && o.stderr.contains("stops before the `# Avg bus bandwidth` footer")
    );
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(records(&v).len(), 6);
    let notes = v["provenance"]["notes"].as_array().unwrap();
    assert!(
        notes[0]
            .as_str()
            .unwrap()
            .contains("nccl-tests-partial.txt: the table stops")
    );
}

#[test]
fn sglang_seed_startup_and_decode_lines() {
    // seed-story S3 94.04, S4 21.71, S5 10.42 GB; 159,294 tokens; f 0.88.
    let (v, err) = ingest_ok(&[&fixture("sglang-seed-kimi-tp8.log")]);
    assert!(err.is_empty(), "{err}");
    let r = records(&v);
    assert_eq!(r.len(), 2);
    let m = &r[0];
    assert_eq!(m["kind"], "engine_memory");
    assert_eq!(m["engine"], "sglang");
    assert_eq!(m["rank"], 0);
    assert_eq!(f(&m["mem_fraction_static"]), 0.88);
    assert_eq!(f(&m["avail_before_load_gib"]), 94.04);
    assert_eq!(f(&m["avail_after_load_gib"]), 21.71);
    assert_eq!(f(&m["weight_mem_gib"]), 72.33);
    assert_eq!(m["kv_tokens"], 159_294);
    assert_eq!(f(&m["kv_size_gib"]), 10.42);
    assert_eq!(f(&m["avail_after_pool_gib"]), 11.28);
    let d = &r[1];
    assert_eq!(d["kind"], "decode_throughput");
    assert_eq!(d["batch"], 1);
    assert_eq!(f(&d["tok_s"]), 76.0);
    assert_eq!(f(&d["accept_len"]), 3.04);
    assert_eq!(d["context_tokens"], 1100);
}

#[test]
fn sglang_gqa_startup_with_graph_capture() {
    // engine-memory.tsv QwQ-32B TP4 on 4× L4.
    let (v, _) = ingest_ok(&[&fixture("sglang-qwq32b-l4-tp4.log")]);
    let m = &records(&v)[0];
    assert_eq!(m["kv_tokens"], 46_611);
    assert!((f(&m["kv_size_gib"]) - 2.84).abs() < 1e-9, "K 1.42 + V 1.42");
    assert_eq!(f(&m["avail_before_load_gib"]), 21.63);
    assert_eq!(f(&m["avail_after_load_gib"]), 6.09);
    assert_eq!(f(&m["weight_mem_gib"]), 15.54);
    assert_eq!(f(&m["avail_after_pool_gib"]), 2.09);
    assert_eq!(f(&m["cuda_graph_mem_gib"]), 0.93);
    assert_eq!(f(&m["avail_after_graph_gib"]), 1.16);
    assert_eq!(f(&m["mem_fraction_static"]), 0.85);
}

#[test]
fn sglang_ranks_and_draft_lines() {
    // Two ranks interleaved (newer `Decode batch,` and `DP0 TP1 EP1` prefixes), an EAGLE draft's
    // second KV line on TP0 (skipped, with a warning). Values are made up for the format.
    let dir = scratch("ranks");
    let text = "\
[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=90.00 GB
[2026-01-01 00:00:00 DP0 TP1 EP1] Load weight begin. avail mem=90.50 GB
[2026-01-01 00:00:01 TP0] Load weight end. elapsed=5.00 s, type=Main, avail mem=30.00 GB, mem usage=60.00 GB.
[2026-01-01 00:00:01 DP0 TP1 EP1] Load weight end. elapsed=5.00 s, type=Main, avail mem=30.25 GB, mem usage=60.25 GB.
[2026-01-01 00:00:02 TP0] KV Cache is allocated. #tokens: 1000, K size: 0.50 GB, V size: 0.50 GB
[2026-01-01 00:00:03 TP0] KV Cache is allocated. #tokens: 1000, K size: 0.01 GB, V size: 0.01 GB
[2026-01-01 00:00:04 TP0] Decode batch, #running-req: 8, #full token: 4096, full token usage: 0.40, accept len: 2.50, accept rate: 0.50, cuda graph: True, gen throughput (token/s): 512.25, #queue-req: 0,
";
    let file = write(&dir, "server.log", text);
    let (v, err) = ingest_ok(&[&file]);
    let r = records(&v);
    assert_eq!(r.len(), 3);
    assert_eq!(r[0]["rank"], 0);
    assert_eq!(r[1]["rank"], 1);
    assert_eq!(f(&r[0]["kv_size_gib"]), 1.0);
    assert_eq!(f(&r[1]["avail_before_load_gib"]), 90.50);
    assert_eq!(f(&r[1]["weight_mem_gib"]), 60.25);
    assert!(r[1].get("kv_tokens").is_none());
    assert_eq!(r[2]["batch"], 8);
    assert_eq!(r[2]["context_tokens"], 4096);
    assert_eq!(f(&r[2]["tok_s"]), 512.25);
    assert!(err.contains("rank TP0: second load-weight/KV lines"), "{err}");
    assert!(
        err.contains("rank TP1: the start-up stops before the `KV Cache is allocated` line"),
        "{err}"
    );
}

#[test]
fn partial_sglang_startup_warns_with_what_was_read() {
    let o = calibrate(&["ingest", &fixture("sglang-partial.log")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stderr.contains("stops before the `KV Cache is allocated` line"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("start-up failed: line 4:") && o.stderr.contains("Not enough memory"));
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let m = &records(&v)[0];
    assert_eq!(f(&m["avail_after_load_gib"]), 21.71);
    assert_eq!(f(&m["mem_fraction_static"]), 0.55);
    assert!(m.get("kv_tokens").is_none());
    assert_eq!(v["provenance"]["notes"].as_array().unwrap().len(), 2);
}

#[test]
fn malformed_sglang_line_names_the_line() {
    let dir = scratch("bad-sglang");
    let text = "[2026-01-01 00:00:00 TP0] Load weight begin. avail mem=90.00 GB\n\
                [2026-01-01 00:00:04 TP0] Decode batch. #running-req: 1, #token: 10, gen throughput (token/s): fast, #queue-req: 0\n";
    let file = write(&dir, "s.log", text);
    let o = calibrate(&["ingest", &file]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains(&format!(
            "{file}:2: gen throughput (token/s) `fast`: expected a number"
        )),
        "{}",
        o.stderr
    );
    let file = write(
        &dir,
        "k.log",
        "[x TP0] KV Cache is allocated. #tokens: many, KV size: 1.00 GB\n",
    );
    let o = calibrate(&["ingest", &file]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains(":1: #tokens `many`: expected a whole number"),
        "{}",
        o.stderr
    );
}

#[test]
fn round_trip_with_tpsim_memory_log() {
    // What `tpsim memory --log` prints, ingested, gives back the plan's KV tokens and free memory.
    let base = scenario("seed/baseline.toml");
    let log = tpsim(&["memory", &base, "--log"]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    let plan = tpsim(&["memory", &base, "--json"]);
    let plan: Value = serde_json::from_str(&plan.stdout).unwrap();
    let dir = scratch("roundtrip");
    let file = write(&dir, "plan.log", &log.stdout);
    let (v, err) = ingest_ok(&[&file]);
    assert!(err.is_empty(), "{err}");
    let r = records(&v);
    assert_eq!(r.len(), 1);
    let m = &r[0];
    assert_eq!(m["kv_tokens"], plan["kv_tokens"]);
    assert_eq!(m["kv_tokens"], 159_294);
    // The log prints GiB with two decimals.
    let two = |x: f64| (x * 100.0).round() / 100.0;
    assert_eq!(f(&m["avail_before_load_gib"]), two(f(&plan["total_gib"])));
    assert_eq!(f(&m["avail_after_load_gib"]), two(f(&plan["available_gib"])));
    assert_eq!(f(&m["kv_size_gib"]), two(f(&plan["kv_pool_gib"])));
    assert!(m.get("rank").is_none());
}

#[test]
fn vllm_startup_and_throughput_lines() {
    // engine-memory.tsv vLLM 0.19.0 CodeLlama-7b on H100.
    let (v, err) = ingest_ok(&[&fixture("vllm-codellama-7b-h100.log")]);
    assert!(err.is_empty(), "{err}");
    let m = &records(&v)[0];
    assert_eq!(m["engine"], "vllm");
    assert_eq!(f(&m["mem_fraction_static"]), 0.95);
    assert_eq!(f(&m["weight_mem_gib"]), 12.56);
    assert_eq!(f(&m["kv_budget_gib"]), 61.66);
    assert_eq!(m["kv_tokens"], 126_256);
    assert_eq!(f(&m["max_concurrency"]), 15.41);
    assert_eq!(m["max_concurrency_request_tokens"], 8192);
    let o = calibrate(&["ingest", &fixture("vllm-throughput.log")]);
    assert_eq!(o.code, 0);
    assert!(o.stderr.contains("1 idle throughput line(s)"), "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let r = records(&v);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["batch"], 1);
    assert_eq!(f(&r[0]["tok_s"]), 70.0);
    assert_eq!(r[0]["measure"], "decode");
}

#[test]
fn sglang_bench_json_results() {
    // spec-decode.tsv PR #4716 row as a bench_serving line (request_rate written as Python's Infinity).
    let (v, _) = ingest_ok(&[&fixture("sglang-bench-serving.jsonl")]);
    let r = &records(&v)[0];
    assert_eq!(r["batch"], 1);
    assert_eq!(f(&r["tok_s"]), 234.54);
    assert_eq!(f(&r["accept_len"]), 5.88);
    assert_eq!(f(&r["tpot_ms"]), 4.26);
    assert_eq!(f(&r["ttft_ms"]), 41.0);
    assert_eq!(r["measure"], "end_to_end");
    // throughput.tsv 70.6 tok/s as bench_one_batch; the prefill-only row is skipped with a warning.
    let (v, err) = ingest_ok(&[&fixture("sglang-bench-one-batch.jsonl")]);
    let r = records(&v);
    assert_eq!(r.len(), 1);
    assert_eq!(f(&r[0]["tok_s"]), 70.6);
    assert!((f(&r[0]["tpot_ms"]) - 14.164).abs() < 1e-9);
    assert_eq!(r[0]["input_len"], 1024);
    assert_eq!(r[0]["measure"], "decode");
    assert!(
        err.contains("line 1: bench_one_batch row without decode steps"),
        "{err}"
    );
    // Malformed: a string where a number belongs, on line 2.
    let dir = scratch("bad-json");
    let file = write(
        &dir,
        "b.jsonl",
        "{\"batch_size\": 1, \"median_decode_throughput\": 10.0}\n{\"batch_size\": \"four\", \"median_decode_throughput\": 10.0}\n",
    );
    let o = calibrate(&["ingest", &file]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains(&format!("{file}:2: `batch_size`: expected a number")),
        "{}",
        o.stderr
    );
    let file = write(
        &dir,
        "c.jsonl",
        "{\"output_throughput\": 1.0,\n \"max_concurrency\": 1,,}\n",
    );
    let o = calibrate(&["ingest", &file]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains(":2: expected a JSON object"), "{}", o.stderr);
}

#[test]
fn formats_are_detected_from_content() {
    let cases = [
        ("nccl-tests-allreduce-4x-turin.txt", Format::NcclTests),
        ("nccl-tests-partial.txt", Format::NcclTests),
        ("sglang-seed-kimi-tp8.log", Format::SglangLog),
        ("sglang-qwq32b-l4-tp4.log", Format::SglangLog),
        ("sglang-partial.log", Format::SglangLog),
        ("vllm-codellama-7b-h100.log", Format::VllmLog),
        ("vllm-throughput.log", Format::VllmLog),
        ("sglang-bench-serving.jsonl", Format::SglangBenchJson),
        ("sglang-bench-one-batch.jsonl", Format::SglangBenchJson),
    ];
    for (file, want) in cases {
        let text = std::fs::read_to_string(fixture(file)).unwrap();
        assert_eq!(detect(&text), Some(want), "{file}");
    }
    let dir = scratch("unknown");
    let file = write(&dir, "notes.txt", "hello\nworld\n");
    let o = calibrate(&["ingest", &file]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("cannot tell the format"), "{}", o.stderr);
    let o = calibrate(&["ingest", &file, "--format", "csv"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--format `csv`: expected auto, nccl-tests"),
        "{}",
        o.stderr
    );
    // A forced format that finds nothing is an error (ingest_limits.rs), not an empty success.
    let o = calibrate(&["ingest", &file, "--format", "vllm-log"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("--format vllm-log found no measurements in it"),
        "{}",
        o.stderr
    );
    let o = calibrate(&["ingest", "/nonexistent/x.log"]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("/nonexistent/x.log"));
}

#[test]
fn several_files_in_order_deterministic_with_label_and_out() {
    let files = [
        fixture("sglang-seed-kimi-tp8.log"),
        fixture("nccl-tests-allreduce-4x-turin.txt"),
    ];
    let dir = scratch("multi");
    let out = dir.join("m.json").display().to_string();
    let args = |o: &str| {
        vec![
            "ingest".to_string(),
            files[0].clone(),
            files[1].clone(),
            "--label".into(),
            "lab-box".into(),
            "--out".into(),
            o.to_string(),
        ]
    };
    let a: Vec<String> = args(&out);
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let o = calibrate(&a);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.is_empty());
    let first = std::fs::read(&out).unwrap();
    let out2 = dir.join("m2.json").display().to_string();
    let b: Vec<String> = args(&out2);
    let b: Vec<&str> = b.iter().map(String::as_str).collect();
    assert_eq!(calibrate(&b).code, 0);
    assert_eq!(first, std::fs::read(&out2).unwrap(), "byte-identical output");
    let v: Value = serde_json::from_slice(&first).unwrap();
    let r = records(&v);
    assert_eq!(r.len(), 2 + 14);
    assert_eq!(r[0]["kind"], "engine_memory");
    assert_eq!(r[1]["kind"], "decode_throughput");
    assert_eq!(r[2]["kind"], "collective");
    let p = &v["provenance"];
    assert_eq!(
        p["machine"], "lab-box",
        "the label wins over the nccl-tests host name"
    );
    assert_eq!(p["sources"].as_array().unwrap().len(), 2);
    // The written file is what `check` reads.
    let back: tpsim_calibrate::measurement::MeasurementFile = serde_json::from_slice(&first).unwrap();
    assert_eq!(back.records.len(), 16);
}

#[test]
fn two_runs_in_one_file_keep_their_own_op_and_gpu_count() {
    // all_reduce_perf on 4 GPUs (cut before its footer) then all_gather_perf on 2, appended to one
    // file; numbers made up for the format.
    let dir = scratch("two-runs");
    let text = "\
# Collective test starting: all_reduce_perf
# nThread 1 nGpus 4 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 1 iters: 1 agg iters: 1 validation: 1 graph: 0 unalign: 0
           8             2     float     sum      -1    12.00    0.00    0.00       0    11.00    0.00    0.00       0
# Collective test starting: all_gather_perf
# nThread 1 nGpus 2 minBytes 8 maxBytes 8 step: 2(factor) warmup iters: 1 iters: 1 agg iters: 1 validation: 1 graph: 0 unalign: 0
           8             2     float    none      -1     7.00    0.00    0.00       0     6.00    0.00    0.00       0
# Avg bus bandwidth    : 0
";
    let file = write(&dir, "runs.txt", text);
    let (v, err) = ingest_ok(&[&file]);
    let r = records(&v);
    assert_eq!(r.len(), 4);
    assert_eq!(
        (r[0]["op"].as_str(), r[0]["n_gpus"].as_u64()),
        (Some("allreduce"), Some(4))
    );
    assert_eq!(
        (r[3]["op"].as_str(), r[3]["n_gpus"].as_u64()),
        (Some("allgather"), Some(2))
    );
    assert_eq!(f(&r[3]["time_us"]), 6.00);
    assert_eq!(
        err.matches("stops before the `# Avg bus bandwidth` footer")
            .count(),
        1,
        "{err}"
    );
}

#[test]
fn round_trip_spring_2026_log_with_memory_profiling_line() {
    // The spring-2026 rules print `Memory profiling: … mem_fraction_static=…, rest_memory=… GB`:
    // the fraction and the KV budget come back too.
    let dir = scratch("spring");
    let text = std::fs::read_to_string(scenario("seed/baseline.toml"))
        .unwrap()
        .replace(
            "[engine.observed]",
            "[engine.costs]\nera = \"spring-2026\"\n\n[engine.observed]",
        );
    let scen = write(&dir, "spring.toml", &text);
    let log = tpsim(&["memory", &scen, "--log"]);
    assert_eq!(log.code, 0, "{}", log.stderr);
    assert!(log.stdout.contains("Memory profiling:"), "{}", log.stdout);
    let plan: Value = serde_json::from_str(&tpsim(&["memory", &scen, "--json"]).stdout).unwrap();
    let file = write(&dir, "plan.log", &log.stdout);
    let (v, err) = ingest_ok(&[&file]);
    assert!(err.is_empty(), "{err}");
    let m = &records(&v)[0];
    assert_eq!(m["kv_tokens"], plan["kv_tokens"]);
    assert_eq!(f(&m["mem_fraction_static"]), 0.88);
    let two = |x: f64| (x * 100.0).round() / 100.0;
    assert_eq!(f(&m["kv_budget_gib"]), two(f(&plan["rest_gib"])));
    // The target's `Load weight end` shows free memory before the draft's weights load (its own
    // line): baseline.toml's observed 21.71; the profile's `available` (20.99) is after them.
    assert_eq!(f(&m["avail_after_load_gib"]), 21.71);
    assert!(f(&plan["available_gib"]) < 21.71);
}

#[test]
fn env_is_stamped_on_collective_records_and_checked() {
    // nccl-tests does not print the NCCL environment; `--env` records it so fit/check pick the
    // transport the run used (the fixture's rows were measured with NCCL_P2P_LEVEL=SYS).
    let o = calibrate(&[
        "ingest",
        &fixture("nccl-tests-allreduce-4x-turin.txt"),
        "--env",
        "NCCL_P2P_LEVEL=SYS",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: Value = serde_json::from_str(&o.stdout).unwrap();
    let recs = records(&v);
    assert_eq!(recs.len(), 14);
    for r in recs {
        assert_eq!(r["env"], serde_json::json!(["NCCL_P2P_LEVEL=SYS"]), "{r}");
    }
    // A misspelt variable is refused with exit 2, naming it.
    let o = calibrate(&[
        "ingest",
        &fixture("nccl-tests-allreduce-4x-turin.txt"),
        "--env",
        "NCCL_P2P_LEVL=SYS",
    ]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("NCCL_P2P_LEVL"), "{}", o.stderr);
    // With the environment, fit can use the rows: the channel rate is determined, but not together
    // with the link rate, which no row is limited by on this box (a singular system, named).
    let dir = scratch("env");
    let meas = dir.join("m.json");
    let o = calibrate(&[
        "ingest",
        &fixture("nccl-tests-allreduce-4x-turin.txt"),
        "--env",
        "NCCL_P2P_LEVEL=SYS",
        "--out",
        &meas.display().to_string(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let m = meas.display().to_string();
    let o = calibrate(&[
        "fit",
        &m,
        "--hardware",
        "rtx-pro-6000-4x-turin-same-numa",
        "--params",
        "pcie_gen5_x16_bw,nccl_channel_bw",
    ]);
    assert_eq!(o.code, 2, "{}{}", o.stdout, o.stderr);
    assert!(
        o.stderr
            .contains("do not determine pcie_gen5_x16_bw, nccl_channel_bw together"),
        "{}",
        o.stderr
    );
    let o = calibrate(&[
        "fit",
        &m,
        "--hardware",
        "rtx-pro-6000-4x-turin-same-numa",
        "--params",
        "nccl_channel_bw",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    // Median |error| 16.9 % before (the book's check example); the fitted channel rate (11.44 GB/s)
    // is within 1 % of the preset's 11.5, so the median stays.
    assert!(
        o.stdout.contains("median |error| before 16.9 %, after 16.9 %"),
        "{}",
        o.stdout
    );
}
