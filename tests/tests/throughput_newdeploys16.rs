//! Sixteenth round of new deployments (newdeploys16, issue #17 coverage): two SGLang sources. DataCrunch's
//! published `bench_serving` results of December 2024, Llama-3.3-70B-Instruct in bf16 with tensor
//! parallelism 4 on 4× H200 (the first SGLang rows of a dense 70B model and the first of the SGLang 0.4.0
//! line), and the SGLang cookbook's MiniMax-M2.5 page, the FP8 checkpoint at TP 8 with expert parallelism 8 on
//! 8× H100 (SGLang 0.5.9) and 8× B200 (SGLang 0.5.8) — each written as the source launches it
//! (`scenarios/validation/llama-3.3-70b-h200x4-sglang-0.4-tp4-*.toml`,
//! `scenarios/validation/minimax-m2.5-fp8-{h100,b200}x8-sglang-*.toml`, assumptions listed there) and compared
//! with the **default (uncalibrated) profile** against the same target and known-miss list as
//! `tests/tests/throughput_rows.rs` ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! Source: github.com/datacrunch-research/h200-benchmarks at commit c091ef5 (2024-12-14):
//! `sglang/experiments/llama_3_3_70b_sglang.sh` and `docker_dev_commands.txt` (the launch: `python3 -m
//! sglang.launch_server --model-path meta-llama/Llama-3.3-70B-Instruct --tp-size 4 --disable-radix-cache
//! --enable-torch-compile` in the `lmsysorg/sglang:latest` image; the benchmark commands) and the saved
//! results `sglang/outputs/llama_3_3_70b_online_output.jsonl` (random 1024/1024 at 1, 2, 4, 8 and 16
//! requests a second, Poisson) and `llama_3_3_70b_offline_output.jsonl` (bursts at request rate inf), each
//! line bench_serving's summary: totals, duration, output_throughput, median TTFT / ITL / E2E. No
//! `--random-range-ratio` is passed, so the files' `random_range_ratio` is 0.0: every prompt and output
//! length is uniform in 1..=N (SGLang's `sample_random_requests`).
//!
//! **What is compared**: under a request rate (online) the row is 1000 ÷ the file's median ITL, the decode
//! step a stream sees at that load, and tpsim's is 1000 ÷ its median ITL (at a fixed rate the output rate
//! is the arrival rate's, not the server's); for a burst (offline) the row is the file's output_throughput
//! and tpsim's is its end-to-end output rate.
//!
//! Not taken: the sharegpt runs of both files (a length distribution that the stored files do not give),
//! the repository's README tables (their online latencies repeat SGLang's own 4× H100 README figures, and
//! the "Llama 3.1 70B 8 x H200" and 405B rows have no result file at this commit), the Llama-3.1-405B file
//! (no 405B preset) and the DeepSeek-V2.5 DP-attention file.
//!
//! Source (MiniMax-M2.5): github.com/sgl-project/sgl-cookbook `docs/autoregressive/MiniMax/MiniMax-M2.5.md`,
//! read at commit 7b5bd9c: section 5.1 "Speed Benchmark", the 8× B200 runs (SGLang 0.5.8; added in f34d9b4,
//! 2026-02-13: random 1000/1000 at 1, 16 and 100 in flight) and the 8× H100 80GB
//! HBM3 runs (SGLang 0.5.9; added in 7dfb02d, 2026-04-07: 1000/1000 at 1, 16 and 100), each under `sglang
//! serve --model-path MiniMaxAI/MiniMax-M2.5 --tp 8 --ep 8 --reasoning-parser minimax-append-think
//! --trust-remote-code --mem-fraction-static 0.85 --tool-call-parser minimax-m2` and `bench_serving --backend
//! sglang --dataset-name random` with `--num-prompts` 10, 80 or 500 (no range ratio: lengths uniform in
//! 1..=N). The row is 1000 ÷ the page's median TPOT (the per-stream step; a run of 10 requests draws its
//! lengths from bench_serving's seeded stream, tpsim from its own) against 1000 ÷ tpsim's median TPOT. Not
//! taken: the B200 "Summarization" runs (8000/1000 at 1, 16 and 64 in flight: median TPOT 10.01, 16.61,
//! 32.69 ms; tpsim's 5.45, 9.54, 17.53, as far off as the 1000/1000 runs, but the c 64 run alone takes over a
//! minute in a release build, too slow for a debug test), the page's AMD rows and its accuracy results.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES)
//! gives the measured and predicted step, TTFT and run length. [`every_newdeploys16_row_is_compared`]
//! fails if a row of this source is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS16_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/datacrunch-research/h200-benchmarks",
        "Llama-3.3-70B-Instruct",
    ),
    (
        "github.com/sgl-project/sgl-cookbook docs/autoregressive/MiniMax/MiniMax-M2.5.md",
        "MiniMax-M2.5",
    ),
];

/// What a row measures: the per-stream decode speed under a request rate (the file's median ITL in ms), or
/// a burst's output rate (the file's output_throughput in tok/s).
#[derive(Clone, Copy)]
enum Measure {
    /// 1000 ÷ median ITL, the file's `median_itl_ms`.
    Itl(f64),
    /// The file's `output_throughput`.
    Burst(f64),
}

/// The rows of this file: (notes prefix, what the file prints, scenario file, label).
const ROWS: &[(&str, Measure, &str, &str)] = &[
    (
        "4x H200 TP 4 random 1024/1024 rate 1:",
        Measure::Itl(13.638_956),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q1.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 1k/1k 1 req/s (per-stream ITL)",
    ),
    (
        "4x H200 TP 4 random 1024/1024 rate 2:",
        Measure::Itl(14.830_047),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q2.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 1k/1k 2 req/s (per-stream ITL)",
    ),
    (
        "4x H200 TP 4 random 1024/1024 rate 4:",
        Measure::Itl(19.419_891),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q4.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 1k/1k 4 req/s (per-stream ITL)",
    ),
    (
        "4x H200 TP 4 random 1024/1024 rate 8:",
        Measure::Itl(70.763_247),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q8.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 1k/1k 8 req/s (per-stream ITL)",
    ),
    (
        "4x H200 TP 4 random 1024/1024 rate 16:",
        Measure::Itl(179.121_181),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-random1k1k-q16.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 1k/1k 16 req/s (per-stream ITL)",
    ),
    (
        "4x H200 TP 4 random 1024/1024 burst 3000:",
        Measure::Burst(4520.70),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-1k1k.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 1k/1k burst of 3000",
    ),
    (
        "4x H200 TP 4 random 1024/512 burst 4000:",
        Measure::Burst(3492.29),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-1k512.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 1k/512 burst of 4000",
    ),
    (
        "4x H200 TP 4 random 4096/2048 burst 800:",
        Measure::Burst(2051.29),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-4k2k.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 4k/2k burst of 800",
    ),
    (
        "4x H200 TP 4 random 4096/1024 burst 1500:",
        Measure::Burst(1654.99),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-4k1k.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 4k/1k burst of 1500",
    ),
    (
        "4x H200 TP 4 random 256/512 burst 6000:",
        Measure::Burst(6648.44),
        "llama-3.3-70b-h200x4-sglang-0.4-tp4-burst-256-512.toml",
        "Llama-3.1-70B (Llama-3.3-70B-Instruct), SGLang (0.4.0 era), 4× H200 TP 4, random 256/512 burst of 6000",
    ),
];

/// Compares row `i` of [`ROWS`]: the measured value (checked against the figure the file prints: 1000 ÷
/// its median ITL rounded to 0.01 tok/s, or its output_throughput) and tpsim's counterpart.
fn compare(i: usize) {
    let (note, printed, file, label) = ROWS[i];
    let (src, model) = NEWDEPLOYS16_SOURCES[0];
    let m = measured_throughput(src, model, |n| n.starts_with(note));
    let v = run_json(&scenario(&format!("validation/{file}")));
    let predicted = match printed {
        Measure::Itl(itl_ms) => {
            assert!((m - 1000.0 / itl_ms).abs() < 0.005, "{label}: {m}");
            1000.0 / f(&v["serving"]["itl_ms"]["p50"])
        }
        Measure::Burst(tok_s) => {
            assert!((m - tok_s).abs() < 1e-9, "{label}: {m}");
            f(&v["throughput"]["e2e_output_tok_s"])
        }
    };
    validate(label, (m, m), predicted);
}

#[test]
pub(crate) fn validation_llama_3_3_70b_sglang_h200x4_online() {
    // "median_itl_ms" at 1, 2, 4, 8 and 16 requests a second: 13.64, 14.83, 19.42, 70.76, 179.12.
    for i in 0..5 {
        compare(i);
    }
}

#[test]
pub(crate) fn validation_llama_3_3_70b_sglang_h200x4_bursts() {
    // "output_throughput": 4520.70 (3000 × 1k/1k), 3492.29 (4000 × 1k/512), 2051.29 (800 × 4k/2k),
    // 1654.99 (1500 × 4k/1k), 6648.44 (6000 × 256/512).
    for i in 5..10 {
        compare(i);
    }
}

#[test]
fn scenario_workload_is_the_files_run() {
    // Each scenario is its file line's run: num_requests the row's prompts (`--num-prompt`), the request
    // rate from the notes (a burst: inf), the random lengths' N from the notes, range ratio 0.0. The
    // ratio is checked against the file's totals: with lengths uniform in 1..=N the mean is (N + 1) / 2 and
    // the mean of n draws has a standard deviation of √((N² − 1) / 12) / √n; each file's mean input and
    // output lie within 4 of them of (N + 1) / 2 (with ratio 1 every length would be N, twice that).
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, o, b) = (
        t.col("source"),
        t.col("model"),
        t.col("notes"),
        t.col("batch_or_concurrency"),
    );
    let (src, model) = NEWDEPLOYS16_SOURCES[0];
    for (note, _, file, _) in ROWS {
        let row = t
            .rows
            .iter()
            .find(|r| r.get(s).starts_with(src) && r.get(m) == model && r.get(o).starts_with(note))
            .unwrap_or_else(|| panic!("no row {note}"));
        let notes = row.get(o);
        let n: u64 = row.get(b).parse().unwrap();
        // "4x H200 TP 4 random 1024/512 burst 4000: ..." / "... random 1024/1024 rate 8: ..."
        let head: Vec<&str> = note.trim_end_matches(':').split_whitespace().collect();
        let (inp, out) = head[5].split_once('/').unwrap();
        let (inp, out): (u64, u64) = (inp.parse().unwrap(), out.parse().unwrap());
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(scenario_int_key(&text, "tp"), 4, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), n, "{file}");
        assert_eq!(random_len(&text, "prompt_len"), Some(inp), "{file}");
        assert_eq!(random_len(&text, "output_len"), Some(out), "{file}");
        let rate_line = text.lines().find(|l| l.starts_with("request_rate = ")).unwrap();
        match head[6] {
            "rate" => assert_eq!(rate_line, format!("request_rate = {}", head[7]), "{file}"),
            "burst" => {
                assert_eq!(rate_line, "request_rate = inf", "{file}");
                assert_eq!(head[7].parse::<u64>().unwrap(), n, "{file}");
            }
            w => panic!("{note}: {w}"),
        }
        // "...: 1525074 input and 1544818 output tokens in 341.72 s, ..."
        let w: Vec<&str> = notes
            .split("no max concurrency: ")
            .nth(1)
            .unwrap_or_else(|| panic!("{file}: no token totals in the notes"))
            .split_whitespace()
            .collect();
        let (tin, tout): (f64, f64) = (w[0].parse().unwrap(), w[3].parse().unwrap());
        for (total, len) in [(tin, inp), (tout, out)] {
            let l = len as f64;
            let mean = total / n as f64;
            let sd = ((l * l - 1.0) / 12.0).sqrt() / (n as f64).sqrt();
            assert!(
                (mean - (l + 1.0) / 2.0).abs() < 4.0 * sd,
                "{file}: mean length {mean:.1} against (N + 1) / 2 = {} (sd {sd:.1})",
                (l + 1.0) / 2.0
            );
        }
    }
}

/// The MiniMax-M2.5 rows: (notes prefix, the page's median TPOT in ms, scenario file, label).
const MINIMAX_ROWS: &[(&str, f64, &str, &str)] = &[
    (
        "8x H100 80GB HBM3 TP 8 EP 8 random 1000/1000 c 1:",
        8.08,
        "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c1.toml",
        "MiniMax-M2.5 FP8, SGLang 0.5.9, 8× H100 TP 8 EP 8, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        "8x H100 80GB HBM3 TP 8 EP 8 random 1000/1000 c 16:",
        14.98,
        "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c16.toml",
        "MiniMax-M2.5 FP8, SGLang 0.5.9, 8× H100 TP 8 EP 8, random 1k/1k c 16 (per-stream TPOT)",
    ),
    (
        "8x H100 80GB HBM3 TP 8 EP 8 random 1000/1000 c 100:",
        30.09,
        "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c100.toml",
        "MiniMax-M2.5 FP8, SGLang 0.5.9, 8× H100 TP 8 EP 8, random 1k/1k c 100 (per-stream TPOT)",
    ),
    (
        "8x B200 TP 8 EP 8 random 1000/1000 c 1:",
        9.89,
        "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c1.toml",
        "MiniMax-M2.5 FP8, SGLang 0.5.8, 8× B200 TP 8 EP 8, random 1k/1k c 1 (per-stream TPOT)",
    ),
    (
        "8x B200 TP 8 EP 8 random 1000/1000 c 16:",
        16.06,
        "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c16.toml",
        "MiniMax-M2.5 FP8, SGLang 0.5.8, 8× B200 TP 8 EP 8, random 1k/1k c 16 (per-stream TPOT)",
    ),
    (
        "8x B200 TP 8 EP 8 random 1000/1000 c 100:",
        34.29,
        "minimax-m2.5-fp8-b200x8-sglang-0.5.8-tp8-ep8-1k1k-c100.toml",
        "MiniMax-M2.5 FP8, SGLang 0.5.8, 8× B200 TP 8 EP 8, random 1k/1k c 100 (per-stream TPOT)",
    ),
];

/// Compares row `i` of [`MINIMAX_ROWS`]: the measured value (checked against 1000 ÷ the page's median
/// TPOT, rounded to 0.01 tok/s) and 1000 ÷ tpsim's median TPOT.
fn compare_minimax(i: usize) {
    let (note, tpot_ms, file, label) = MINIMAX_ROWS[i];
    let (src, model) = NEWDEPLOYS16_SOURCES[1];
    let m = measured_throughput(src, model, |n| n.starts_with(note));
    assert!((m - 1000.0 / tpot_ms).abs() < 0.005, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]));
}

#[test]
pub(crate) fn validation_minimax_m2_5_fp8_sglang_h100x8_tp8_ep8() {
    // "Median TPOT (ms)" at 1, 16 and 100 in flight: 8.08, 14.98, 30.09 (SGLang 0.5.9).
    for i in 0..3 {
        compare_minimax(i);
    }
}

#[test]
pub(crate) fn validation_minimax_m2_5_fp8_sglang_b200x8_tp8_ep8() {
    // "Median TPOT (ms)" at 1, 16 and 100 in flight: 9.89, 16.06, 34.29 (SGLang 0.5.8).
    for i in 3..6 {
        compare_minimax(i);
    }
}

#[test]
fn minimax_scenarios_are_the_pages_runs() {
    // Each scenario is its run: tp 8, ep 8 and --mem-fraction-static 0.85 from the launch, the release
    // from the row, num_requests and concurrency from the row's --num-prompts and --max-concurrency, and
    // the random lengths' N (range ratio 0.0) from the notes.
    let t = read_tsv(&data_path("throughput.tsv"));
    let (s, m, o, b) = (
        t.col("source"),
        t.col("model"),
        t.col("notes"),
        t.col("batch_or_concurrency"),
    );
    let (src, model) = NEWDEPLOYS16_SOURCES[1];
    for (note, _, file, _) in MINIMAX_ROWS {
        let row = t
            .rows
            .iter()
            .find(|r| r.get(s).starts_with(src) && r.get(m) == model && r.get(o).starts_with(note))
            .unwrap_or_else(|| panic!("no row {note}"));
        let notes = row.get(o);
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(scenario_int_key(&text, "tp"), 8, "{file}");
        assert_eq!(scenario_int_key(&text, "ep_size"), 8, "{file}");
        assert!(text.contains("\nmem_fraction_static = 0.85\n"), "{file}");
        let release = notes
            .split("; SGLang ")
            .nth(1)
            .unwrap()
            .split(',')
            .next()
            .unwrap();
        assert!(
            text.contains(&format!("\nversion = \"{release}\"\n")),
            "{file}: {release}"
        );
        let c: u64 = row.get(b).parse().unwrap();
        assert_eq!(scenario_int_key(&text, "concurrency"), c, "{file}");
        let prompts: u64 = notes
            .split("--num-prompts ")
            .nth(1)
            .and_then(|r| r.split(' ').next())
            .and_then(|r| r.parse().ok())
            .unwrap();
        assert_eq!(scenario_int_key(&text, "num_requests"), prompts, "{file}");
        let head: Vec<&str> = note.split_whitespace().collect();
        let lens = head.iter().position(|w| *w == "random").unwrap() + 1;
        let (inp, out) = head[lens].split_once('/').unwrap();
        assert_eq!(
            random_len(&text, "prompt_len"),
            Some(inp.parse::<u64>().unwrap()),
            "{file}"
        );
        assert_eq!(
            random_len(&text, "output_len"),
            Some(out.parse::<u64>().unwrap()),
            "{file}"
        );
    }
}

#[test]
fn every_newdeploys16_row_is_compared() {
    // DataCrunch: random 1k/1k at 1, 2, 4, 8 and 16 requests a second, and five bursts; the cookbook: three
    // H100 and three B200 MiniMax-M2.5 runs. The tests above compare each once.
    assert_eq!(ROWS.len(), 10);
    assert_eq!(MINIMAX_ROWS.len(), 6);
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS16_SOURCES), [10, 6]);
}
