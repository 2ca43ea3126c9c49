//! speed64: sweeps and runs made cheaper without changing a figure. Sweep rows, regression metrics,
//! capacity points and interval figures build their report without `fitted_constants` (whose
//! search re-simulates every collective per perturbed parameter); `KvPool::pages_for` divides by a
//! shift for power-of-two pages; a decode's equal inter-token samples are recorded in the
//! histograms as one run with its count. Each test checks the exact values the slower code gave.

use crate::common::fixed_serve::{run, sglang_plan};
use crate::common::scenario;
use std::path::Path;
use tpsim::serve::kv::KvPool;
use tpsim::serve::stats::Histogram;
use tpsim::workload::RequestSpec;
use tpsim_model::units::Duration;

/// Pages for `tokens` = ⌈tokens / page⌉ × groups, by hand: page 16 (vLLM's block): 0 → 0, 1 → 1,
/// 16 → 1, 17 → 2, 1,000 → ⌈62.5⌉ = 63, u64::MAX = 2^64 − 1 → 2^60 (2^60 − 1 whole pages and 15
/// tokens more); page 1 (SGLang's default): 5 → 5; page 3 (not a power of two, `div_ceil`): 7 → 3;
/// a pool of 2 block groups in 16-token pages: 17 → 2 × 2 = 4. Exact.
#[test]
fn pages_for_is_the_ceiling_of_tokens_over_the_page() {
    let p16 = KvPool::new(1 << 20, 16);
    let got: Vec<u64> = [0, 1, 16, 17, 1000, u64::MAX]
        .iter()
        .map(|&t| p16.pages_for(t))
        .collect();
    assert_eq!(got, [0, 1, 1, 2, 63, 1 << 60]);
    assert_eq!(KvPool::new(1 << 20, 1).pages_for(5), 5);
    assert_eq!(KvPool::new(1 << 20, 3).pages_for(7), 3);
    assert_eq!(KvPool::blocks(1 << 16, 16, 2).pages_for(17), 4);
}

/// A run of k equal samples recorded with their count is the histogram of recording each: 3 × 10 ms
/// and 2 × 30 ms either way give count 5, mean (30 + 60) / 5 = 18 ms, median 10 ms, p99 30 ms (each
/// within a bucket's 1/1,024 of the value). Exact equality of the whole histogram.
#[test]
fn a_run_recorded_with_its_count_equals_each_sample_recorded() {
    let (ten, thirty) = (Duration::from_ms(10), Duration::from_ms(30));
    let mut each = Histogram::default();
    for d in [ten, thirty, ten, ten, thirty] {
        each.record(d);
    }
    let mut runs = Histogram::default();
    runs.record_n(ten, 3);
    runs.record_n(thirty, 2);
    assert_eq!(each, runs);
    assert_eq!(runs.count(), 5);
    assert!((runs.mean_ms() - 18.0).abs() < 1e-9, "{}", runs.mean_ms());
    assert!((runs.percentile_ms(50.0) - 10.0).abs() <= 10.0 / 1024.0);
    assert!((runs.percentile_ms(99.0) - 30.0).abs() <= 30.0 / 1024.0);
}

/// Decode batches whose requests have different gaps (a run breaks inside one step), SGLang 0.5.9
/// rules, fixed costs (prefill 20 ms, decode 10 ms), closed loop at concurrency 2, prompts of 100
/// tokens, outputs A 2, B 4, C 3 tokens. By hand: 0–20 ms prefill A, B (first tokens at 20); 20–30
/// decode A, B (gaps 10, 10; A done, C sent); 30–50 prefill C (first token at 50); 50–60 decode B, C
/// (gaps 30 and 10); 60–70 decode B, C (10, 10; both done). Inter-token samples 10, 10, 30, 10, 10,
/// 10: count 6, mean 80 / 6 = 13.333 ms, p99 30 ms; the per-token time is the same (one token a
/// step). Exact counts; means within 1e-9 ms; percentiles within a bucket (1/1,024).
#[test]
fn decode_gaps_of_one_step_are_all_recorded() {
    let reqs = [2, 4, 3]
        .map(|output| RequestSpec {
            arrival: None,
            prompt: 100,
            output,
            prefix: None,
        })
        .to_vec();
    let m = run(&sglang_plan(100_000, 2, 8192), reqs, 2);
    assert_eq!(m.itl.count(), 6);
    assert_eq!(m.token_time.count(), 6);
    assert!((m.itl.mean_ms() - 80.0 / 6.0).abs() < 1e-9, "{}", m.itl.mean_ms());
    assert!((m.token_time.mean_ms() - 80.0 / 6.0).abs() < 1e-9);
    assert!((m.itl.percentile_ms(99.0) - 30.0).abs() <= 30.0 / 1024.0);
    assert!((m.itl.percentile_ms(50.0) - 10.0).abs() <= 10.0 / 1024.0);
}

/// `report::build_with(.., false)` is `report::build` but for `fitted_constants`, left empty: on the
/// seed scenario (2× RTX 6000 over host shared memory) the full report lists the three SHM
/// constants its allreduces read (`shm_copy_bw`, `shm_cross_socket_step_cost`, `shm_step_cost`, as
/// `tpsim run --json` shows), and with that field emptied the two JSON texts are byte-identical.
#[test]
fn a_report_without_fitted_constants_differs_in_nothing_else() {
    let s = tpsim::scenario::load(Path::new(&scenario("seed/baseline.toml"))).expect("bundled scenario");
    let p = tpsim::decode::predict(&s).expect("predicts");
    let mut full = tpsim::report::build(&s, &p);
    let lean = tpsim::report::build_with(&s, &p, false);
    let names: Vec<&str> = full.fitted_constants.iter().map(|f| f.name.as_str()).collect();
    assert_eq!(
        names,
        ["shm_copy_bw", "shm_cross_socket_step_cost", "shm_step_cost"]
    );
    assert!(lean.fitted_constants.is_empty());
    full.fitted_constants.clear();
    let json = |r: &tpsim::report::RunReport| serde_json::to_string(r).expect("serialises");
    assert_eq!(json(&full), json(&lean));
}
