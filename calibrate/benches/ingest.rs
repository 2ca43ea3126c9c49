//! Benchmark of `tpsim-calibrate ingest` on SGLang bench_serving result files (JSONL, one object per
//! line, as `python -m sglang.bench_serving --output-file` appends them) of 2,500, 5,000, 10,000 and
//! 20,000 lines (issue #14): parsing must be linear in the input's size, so the time per line must
//! not grow with the file. Each line is a real-looking result object of about 700 bytes.

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use std::time::Duration as WallDuration;
use tpsim_calibrate::ingest::{Format, parse};

/// `lines` bench_serving results, one per line (deterministic: values from the line index).
fn jsonl(lines: usize) -> String {
    let mut t = String::new();
    for i in 0..lines {
        let c = 1 + i % 64;
        t.push_str(&format!(
            "{{\"backend\": \"sglang\", \"dataset_name\": \"random\", \"request_rate\": Infinity, \
             \"max_concurrency\": {c}, \"sharegpt_output_len\": null, \"random_input_len\": 1024, \
             \"random_output_len\": 1024, \"random_range_ratio\": 0.0, \"duration\": {d}, \
             \"completed\": {n}, \"total_input_tokens\": {ti}, \"total_output_tokens\": {to}, \
             \"request_throughput\": 0.{i:04}, \"input_throughput\": 1{i}.5, \
             \"output_throughput\": {tok}.25, \"mean_e2e_latency_ms\": 12345.6, \
             \"mean_ttft_ms\": 150.{i}, \"median_ttft_ms\": 148.0, \"std_ttft_ms\": NaN, \
             \"mean_tpot_ms\": 12.{i}, \"median_tpot_ms\": 12.0, \"p99_tpot_ms\": 20.0, \
             \"mean_itl_ms\": 12.5, \"accept_length\": 3.{i}, \"concurrency\": {c}.0}}\n",
            d = 10 + i % 7,
            n = 4 * c,
            ti = 4096 * c,
            to = 4096 * c,
            tok = 50 + i % 900,
        ));
    }
    t
}

fn bench(c: &mut Criterion) {
    let mut g = c.benchmark_group("ingest_bench_serving_jsonl");
    g.sample_size(10).measurement_time(WallDuration::from_secs(5));
    for lines in [2_500, 5_000, 10_000, 20_000] {
        let text = jsonl(lines);
        g.throughput(Throughput::Elements(lines as u64));
        g.bench_with_input(BenchmarkId::from_parameter(lines), &text, |b, t| {
            b.iter(|| {
                let p = parse(t, Format::SglangBenchJson, "bench.jsonl").expect("valid");
                assert_eq!(p.records.len(), lines);
            })
        });
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
