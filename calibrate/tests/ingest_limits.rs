//! `tpsim-calibrate ingest` refuses what no measurement can be (issue #14, point 3.7): negative or
//! absurd memory, throughput, bandwidth and times, and NaN/Infinity where a number is read, each
//! with the file and the line; a forced `--format` that finds nothing is an error, not an empty
//! success; bench JSONL is parsed in time linear in its size (the benchmark is
//! `cargo bench -p tpsim-calibrate --bench ingest`).

use crate::common::*;
use std::path::PathBuf;

/// Writes `text` to a scratch file and ingests it (with `extra` arguments).
fn ingest_text(test: &str, name: &str, text: &str, extra: &[&str]) -> (Out, String) {
    let p: PathBuf = scratch(test).join(name);
    std::fs::write(&p, text).unwrap();
    let f = p.display().to_string();
    let mut args = vec!["ingest", f.as_str()];
    args.extend_from_slice(extra);
    (calibrate(&args), f)
}

/// Asserts exit 2 and `FILE:LINE: …` with `what` in the message.
fn refused(o: &Out, file: &str, line: usize, what: &str) {
    assert_eq!(o.code, 2, "stdout {}\nstderr {}", o.stdout, o.stderr);
    let at = format!("error: {file}:{line}: ");
    assert!(
        o.stderr.starts_with(&at) && o.stderr.contains(what),
        "expected `{at}…{what}…`, got: {}",
        o.stderr
    );
}

const SGLANG_HEAD: &str = "[2026-03-14 09:19:00 TP0] Load weight begin. avail mem=94.04 GB\n";

#[test]
fn sglang_log_negative_memory_and_absurd_throughput_are_refused_with_the_line() {
    let (o, f) = ingest_text(
        "limits-sglang-mem",
        "server.log",
        &format!(
            "{SGLANG_HEAD}[2026-03-14 09:19:55 TP0] Load weight end. type=X, avail mem=-21.71 GB, mem usage=72.33 GB.\n"
        ),
        &[],
    );
    refused(
        &o,
        &f,
        2,
        "avail mem -21.71: physically impossible, expected 0 to 1024 GiB",
    );
    let (o, f) = ingest_text(
        "limits-sglang-toks",
        "server.log",
        &format!(
            "{SGLANG_HEAD}[2026-03-14 09:30:02 TP0] Decode batch. #running-req: 1, #token: 1100, accept len: 3.04, gen throughput (token/s): 1e12, #queue-req: 0\n"
        ),
        &[],
    );
    refused(
        &o,
        &f,
        2,
        "gen throughput (token/s) 1000000000000: physically impossible",
    );
    let (o, f) = ingest_text(
        "limits-sglang-nan",
        "server.log",
        &format!(
            "{SGLANG_HEAD}[2026-03-14 09:30:02 TP0] Decode batch. #running-req: 1, #token: 1100, accept len: NaN, gen throughput (token/s): 70.0, #queue-req: 0\n"
        ),
        &[],
    );
    refused(&o, &f, 2, "accept len `NaN`: expected a number");
    // A negative budget is what SGLang prints just before "Not enough memory": accepted.
    let (o, _) = ingest_text(
        "limits-sglang-budget",
        "server.log",
        &format!(
            "{SGLANG_HEAD}[2026-03-14 09:19:56 TP0] Memory profiling: mem_fraction_static=0.55, rest_memory=-20.61 GB\n"
        ),
        &[],
    );
    assert_eq!(o.code, 0, "{}", o.stderr);
}

#[test]
fn nccl_tests_negative_bandwidth_is_refused_with_the_line() {
    let text = "# nThread 1 nGpus 4 minBytes 8192 maxBytes 8192 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 validation: 1 graph: 0\n\
                #\n\
                #       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong\n\
                         8192          2048     float     sum      -1    11.17    0.73   -1.10      0    11.02    0.74    1.12      0\n";
    let (o, f) = ingest_text("limits-nccl", "all_reduce_perf.txt", text, &[]);
    refused(
        &o,
        &f,
        4,
        "out-of-place busbw (GB/s) -1.1: physically impossible, expected 0 to 100000 GB/s",
    );
}

#[test]
fn vllm_log_impossible_values_are_refused_with_the_line() {
    let (o, f) = ingest_text(
        "limits-vllm-load",
        "vllm.log",
        "INFO 11-29 10:59:00 [gpu_model_runner.py:1] Model loading took -3.5 GiB and 4.2 seconds\n",
        &[],
    );
    refused(&o, &f, 1, "Model loading took -3.5: physically impossible");
    let (o, f) = ingest_text(
        "limits-vllm-util",
        "vllm.log",
        "INFO 11-29 10:58:00 [core.py:1] engine args {'gpu_memory_utilization': 1.5}\n\
         INFO 11-29 10:59:00 [gpu_model_runner.py:1] Model loading took 3.5 GiB and 4.2 seconds\n",
        &[],
    );
    refused(
        &o,
        &f,
        1,
        "gpu_memory_utilization 1.5: physically impossible, expected 0 to 1",
    );
    let (o, f) = ingest_text(
        "limits-vllm-toks",
        "vllm.log",
        "INFO 11-29 10:59:00 [gpu_model_runner.py:1] Model loading took 3.5 GiB and 4.2 seconds\n\
         INFO 11-29 11:00:10 [loggers.py:123] Engine 000: Avg prompt throughput: 0.0 tokens/s, Avg generation throughput: -70.0 tokens/s, Running: 1 reqs, Waiting: 0 reqs\n",
        &[],
    );
    refused(&o, &f, 2, "Avg generation throughput -70: physically impossible");
}

#[test]
fn bench_json_nan_infinity_and_impossible_values_are_refused_with_the_line() {
    let ok = "{\"output_throughput\": 234.5, \"max_concurrency\": 1, \"request_rate\": Infinity, \"std_ttft_ms\": NaN}\n";
    // NaN and Infinity where tpsim does not read them (request_rate, std_ttft_ms) are fine.
    let (o, _) = ingest_text("limits-json-ok", "bench.jsonl", ok, &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    for (name, bad, what) in [
        (
            "nan",
            "{\"output_throughput\": NaN, \"max_concurrency\": 1}",
            "`output_throughput`: expected a number, found \"NaN\"",
        ),
        (
            "inf",
            "{\"output_throughput\": 50.0, \"max_concurrency\": 1, \"accept_length\": Infinity}",
            "`accept_length`: expected a number, found \"Infinity\"",
        ),
        (
            "neg",
            "{\"output_throughput\": 50.0, \"max_concurrency\": 1, \"mean_ttft_ms\": -41.0}",
            "`mean_ttft_ms` -41: physically impossible, expected 0 to 86400000 ms",
        ),
        (
            "absurd",
            "{\"batch_size\": 4, \"median_decode_throughput\": 5e9}",
            "`median_decode_throughput` 5000000000: physically impossible",
        ),
    ] {
        let (o, f) = ingest_text(
            &format!("limits-json-{name}"),
            "bench.jsonl",
            &format!("{ok}{ok}{bad}\n"),
            &[],
        );
        refused(&o, &f, 3, what);
    }
}

#[test]
fn a_forced_format_that_finds_nothing_is_an_error() {
    let log = fixture("sglang-seed-kimi-tp8.log");
    let o = calibrate(&["ingest", &log, "--format", "vllm-log"]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert_eq!(
        o.stderr.trim_end(),
        format!(
            "error: {log}: --format vllm-log found no measurements in it (its content looks like sglang-log: try --format sglang-log or auto)"
        )
    );
    assert!(o.stdout.is_empty());
    let (o, f) = ingest_text(
        "limits-forced",
        "notes.txt",
        "hello\n",
        &["--format", "nccl-tests"],
    );
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains(&format!(
            "{f}: --format nccl-tests found no measurements in it (its content matches none of the formats ingest reads)"
        )),
        "{}",
        o.stderr
    );
    // The right format forced still works.
    assert_eq!(calibrate(&["ingest", &log, "--format", "sglang-log"]).code, 0);
}

#[test]
fn twenty_thousand_jsonl_lines_parse_and_errors_keep_their_line() {
    // Linear parsing (the line of each object is counted once, not from the top per object); the
    // error on the last of 20,000 lines still names line 20,000.
    let line = "{\"output_throughput\": 234.5, \"max_concurrency\": 4, \"mean_tpot_ms\": 12.5, \"mean_ttft_ms\": 150.0, \"accept_length\": 3.1, \"random_input_len\": 1024, \"random_output_len\": 1024}\n";
    let mut text = line.repeat(19_999);
    let (o, _) = ingest_text("limits-20k-ok", "bench.jsonl", &text, &[]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let v: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(v["records"].as_array().unwrap().len(), 19_999);
    text.push_str("{\"output_throughput\": -1.0, \"max_concurrency\": 4}\n");
    let (o, f) = ingest_text("limits-20k-bad", "bench.jsonl", &text, &[]);
    refused(&o, &f, 20_000, "`output_throughput` -1: physically impossible");
}
