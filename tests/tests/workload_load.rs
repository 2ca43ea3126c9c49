//! Issue #18 (load): the workload's seeded draws — lengths, arrival gaps, shared prefixes, traces —
//! checked against their distributions' moments computed by hand, and the seeded-order contract.

use crate::common::*;
use tpsim::engine::RngStreams;
use tpsim::scenario::{self, Scenario};
use tpsim::workload::{RequestSpec, RequestStream};

const HEAD: &str = "seed = 7\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
                    [engine]\nname = \"sglang\"\ntp = 1\nmem_fraction_static = 0.88\n";

/// A scenario with this `[workload]` body, written under a scratch folder (so relative paths work).
#[track_caller]
fn scn(name: &str, workload: &str) -> Scenario {
    let d = scratch(name);
    let p = d.join("s.toml");
    let text = format!("{HEAD}[workload]\n{workload}\n");
    std::fs::write(&p, &text).unwrap();
    scenario::load(&p).unwrap_or_else(|e| panic!("{e}"))
}

fn stream(s: &Scenario) -> RequestStream {
    RequestStream::new(s, &RngStreams::new(s.seed))
}

fn mean_sd(v: impl Iterator<Item = f64>) -> (f64, f64, usize) {
    let (mut n, mut s, mut s2) = (0usize, 0.0, 0.0);
    for x in v {
        n += 1;
        s += x;
        s2 += x * x;
    }
    let m = s / n as f64;
    (m, (s2 / n as f64 - m * m).max(0.0).sqrt(), n)
}

const N: u32 = 100_000;

#[test]
fn uniform_prompt_mean() {
    // Uniform 100..=300: mean 200, sd ≈ 201/√12 = 58.0; over 10⁵ draws the mean's sd is 0.18, so
    // ±1 token is 5.4 sd.
    let s = scn(
        "uniform",
        &format!("num_requests = {N}\nprompt_len = {{ min = 100, max = 300 }}\noutput_len = 8"),
    );
    let (m, _, n) = mean_sd(stream(&s).map(|r| f64::from(r.prompt)));
    assert_eq!(n, N as usize);
    assert!((m - 200.0).abs() < 1.0, "mean {m}");
}

#[test]
fn random_dataset_range_ratio() {
    // bench_serving's random lengths (sglang 0.5.9 compute_random_lens): 1000 with ratio 0.5 draws
    // uniformly from max(⌊500⌋, 1) = 500 to 1000: mean 750, sd ≈ 501/√12 = 144.6, mean's sd 0.46;
    // tolerance ±2.5 tokens (5.4 sd). Every draw lies in 500..=1000.
    let s = scn(
        "random",
        &format!("num_requests = {N}\nprompt_len = {{ random = 1000, range_ratio = 0.5 }}\noutput_len = 8"),
    );
    let v: Vec<f64> = stream(&s).map(|r| f64::from(r.prompt)).collect();
    assert!(v.iter().all(|&x| (500.0..=1000.0).contains(&x)));
    let (m, _, _) = mean_sd(v.into_iter());
    assert!((m - 750.0).abs() < 2.5, "mean {m}");
    assert_eq!(s.workload.prompt_len.min(), 500);
    assert!((s.workload.prompt_len.mean() - 750.0).abs() < 1e-12);
}

#[test]
fn histogram_from_data() {
    // Two bins, lengths 1 (weight 1) and 100 (weight 3): mean (1 + 3·100) / 4 = 75.25, sd
    // √(¼·¾)·99 = 42.9, mean's sd over 10⁵ draws 0.136: tolerance ±0.75 (5.5 sd). Share of 1s: ¼ ± 0.006.
    let d = scratch("hist");
    std::fs::write(
        d.join("h.tsv"),
        "min_tokens\tmax_tokens\tweight\n1\t1\t1\n100\t100\t3\n",
    )
    .unwrap();
    let p = d.join("s.toml");
    std::fs::write(
        &p,
        format!("{HEAD}[workload]\nnum_requests = {N}\nprompt_len = 64\noutput_len = {{ histogram = \"h.tsv\" }}\n"),
    )
    .unwrap();
    let s = scenario::load(&p).unwrap();
    assert!((s.workload.output_len.mean() - 75.25).abs() < 1e-12);
    let v: Vec<f64> = stream(&s).map(|r| f64::from(r.output)).collect();
    let ones = v.iter().filter(|&&x| x < 1.5).count() as f64 / v.len() as f64;
    assert!((ones - 0.25).abs() < 0.006, "share of 1s {ones}");
    let (m, _, _) = mean_sd(v.into_iter());
    assert!((m - 75.25).abs() < 0.75, "mean {m}");
}

#[test]
fn shipped_sharegpt_like_histogram_mean() {
    // tests/data/load/sharegpt-like-output.tsv: bin midpoints 32.5, 96.5, 192.5, 384.5, 768.5, 1536.5
    // with weights 203, 182, 225, 200, 128, 62 (Σ 1000): mean 338.004 (the file's own arithmetic), within
    // 0.01 % of the PagedAttention paper's ShareGPT output mean 337.99.
    let h = data_path("load/sharegpt-like-output.tsv");
    let s = scn(
        "sharegpt",
        &format!(
            "num_requests = 1000\nprompt_len = 161\noutput_len = {{ histogram = \"{}\" }}",
            h.display()
        ),
    );
    assert!((s.workload.output_len.mean() - 338.004).abs() < 1e-9);
    assert!((s.workload.output_len.mean() / 337.99 - 1.0).abs() < 0.0001);
}

/// Arrival gaps of an open-loop stream, s.
fn gaps(s: &Scenario) -> Vec<f64> {
    let at: Vec<f64> = stream(s)
        .map(|r: RequestSpec| r.arrival.expect("open loop").as_secs_f64())
        .collect();
    at.windows(2).map(|w| w[1] - w[0]).collect()
}

#[test]
fn poisson_gaps_mean_and_cv() {
    // rate 10 req/s, burstiness 1: exponential gaps, mean 0.1 s, CV 1. Over 10⁵ gaps the mean's
    // relative sd is 1/√10⁵ = 0.32 %: tolerance ±1.5 %; CV within ±0.02 (its sd ≈ 0.003).
    let s = scn(
        "poisson",
        &format!("num_requests = {N}\nrequest_rate = 10.0\nprompt_len = 8\noutput_len = 8"),
    );
    let (m, sd, _) = mean_sd(gaps(&s).into_iter());
    assert!((m / 0.1 - 1.0).abs() < 0.015, "mean gap {m}");
    assert!((sd / m - 1.0).abs() < 0.02, "cv {}", sd / m);
    // The first request goes at t = 0, as bench_serving sends it before the first sleep.
    assert_eq!(stream(&s).next().unwrap().arrival.unwrap().as_ps(), 0);
}

#[test]
fn burstiness_sets_the_cv() {
    // Gamma gaps with shape k have CV 1/√k (vLLM 0.11.0 serve.py get_request): k = 4 → 0.5 (±0.01),
    // k = 0.25 → 2 (±0.06; the heavier tail makes the estimate noisier); mean stays 1/rate (±1.5 %,
    // ±3 % for k = 0.25 whose gaps' sd is twice the mean).
    for (k, cv, tol_cv, tol_m) in [(4.0, 0.5, 0.01, 0.015), (0.25, 2.0, 0.06, 0.03)] {
        let s = scn(
            &format!("burst{k}"),
            &format!(
                "num_requests = {N}\nrequest_rate = 10.0\nburstiness = {k}\nprompt_len = 8\noutput_len = 8"
            ),
        );
        let (m, sd, _) = mean_sd(gaps(&s).into_iter());
        assert!((m / 0.1 - 1.0).abs() < tol_m, "k {k}: mean gap {m}");
        assert!((sd / m - cv).abs() < tol_cv, "k {k}: cv {}", sd / m);
    }
}

#[test]
fn infinite_rate_sends_everything_at_zero() {
    let s = scn(
        "inf",
        "num_requests = 100\nrequest_rate = inf\nprompt_len = 8\noutput_len = 8",
    );
    assert!(stream(&s).all(|r| r.arrival.unwrap().as_ps() == 0));
}

#[test]
fn arrivals_do_not_shift_the_lengths() {
    // Lengths come from the stream "workload" (prompt, then output, per request), arrival gaps from
    // "arrival": the same seed gives the same lengths closed or open loop.
    let w = "num_requests = 1000\nprompt_len = { min = 1, max = 4000 }\noutput_len = { min = 1, max = 4000 }";
    let closed = scn("closed", w);
    let open = scn("open", &format!("{w}\nrequest_rate = 3.0\nburstiness = 0.5"));
    let lens = |s: &Scenario| stream(s).map(|r| (r.prompt, r.output)).collect::<Vec<_>>();
    assert_eq!(lens(&closed), lens(&open));
    assert!(stream(&closed).all(|r| r.arrival.is_none()));
}

#[test]
fn lengths_follow_the_seeded_contract() {
    // The first request's prompt is the first draw of the stream "workload", its output the second.
    use rand::RngExt;
    let s = scn(
        "contract",
        "num_requests = 4\nprompt_len = { min = 10, max = 20 }\noutput_len = { min = 30, max = 40 }",
    );
    let mut rng = RngStreams::new(7).stream("workload");
    let want: Vec<(u32, u32)> = (0..4)
        .map(|_| {
            let p = rng.random_range(10..=20u32);
            (p, rng.random_range(30..=40u32))
        })
        .collect();
    assert_eq!(stream(&s).map(|r| (r.prompt, r.output)).collect::<Vec<_>>(), want);
}

#[test]
fn shared_prefix_groups() {
    // 3 groups × 4 prompts, system prompt 100, question 20, output 5, range_ratio 1 (fixed lengths):
    // 12 requests in group order, each prompt 120 tokens of which the first 100 are its group's.
    let s = scn(
        "gsp",
        "[workload.shared_prefix]\nnum_groups = 3\nprompts_per_group = 4\nsystem_prompt_len = 100\nquestion_len = 20\noutput_len = 5",
    );
    assert_eq!(s.workload.num_requests, 12);
    let v: Vec<RequestSpec> = stream(&s).collect();
    assert_eq!(v.len(), 12);
    for (i, r) in v.iter().enumerate() {
        let p = r.prefix.expect("prefix");
        assert_eq!(
            (p.group, p.len, r.prompt, r.output),
            (i as u32 / 4, 100, 120, 5),
            "request {i}"
        );
    }
    // With range_ratio 0.5 a group's system prompt is drawn once (50..=100) and shared by its prompts.
    let s = scn(
        "gsp-r",
        "[workload.shared_prefix]\nnum_groups = 50\nprompts_per_group = 4\nsystem_prompt_len = 100\nquestion_len = 20\nrange_ratio = 0.5",
    );
    let v: Vec<RequestSpec> = stream(&s).collect();
    for g in v.chunks(4) {
        let len = g[0].prefix.unwrap().len;
        assert!((50..=100).contains(&len));
        assert!(
            g.iter()
                .all(|r| r.prefix.unwrap().len == len && (len + 10..=len + 20).contains(&r.prompt))
        );
    }
    assert!(
        v.iter()
            .map(|r| r.prefix.unwrap().len)
            .collect::<std::collections::BTreeSet<_>>()
            .len()
            > 10
    );
}

#[test]
fn a_million_requests_stream_lazily() {
    // 10⁶ requests drawn one at a time (nothing collected): count and the prompt mean, uniform
    // 1..=2047 → 1024 ± 1.5 (sd 591/√10⁶ = 0.6).
    let s = scn(
        "million",
        "num_requests = 1000000\nconcurrency = 256\nprompt_len = { min = 1, max = 2047 }\noutput_len = 1\nrequest_rate = 1000.0",
    );
    let (m, _, n) = mean_sd(stream(&s).map(|r| f64::from(r.prompt)));
    assert_eq!(n, 1_000_000);
    assert!((m - 1024.0).abs() < 1.5, "{m}");
}

#[test]
fn trace_replay() {
    // Arrivals relative to the first record, in ms; prefix fields carried through.
    let d = scratch("trace");
    std::fs::write(
        d.join("t.jsonl"),
        "# a comment\n{\"arrival_ms\": 1000, \"prompt\": 10, \"output\": 3}\n\n\
         {\"arrival_ms\": 1250.5, \"prompt\": 20, \"output\": 4, \"prefix_group\": 2, \"prefix_len\": 8}\n",
    )
    .unwrap();
    let p = d.join("s.toml");
    std::fs::write(&p, format!("{HEAD}[workload]\ntrace = \"t.jsonl\"\n")).unwrap();
    let s = scenario::load(&p).unwrap();
    assert_eq!(s.workload.num_requests, 2);
    assert!(s.inputs.iter().any(|i| i.ends_with("t.jsonl")));
    let v: Vec<RequestSpec> = stream(&s).collect();
    assert_eq!(v.len(), 2);
    assert_eq!(v[0].arrival.unwrap().as_ps(), 0);
    assert_eq!(v[1].arrival.unwrap().as_ps(), 250_500_000_000); // 250.5 ms
    assert_eq!((v[1].prompt, v[1].output), (20, 4));
    assert_eq!(v[1].prefix.map(|p| (p.group, p.len)), Some((2, 8)));
}

/// `tpsim run` on a scenario replaying `trace`: exit 2, and stderr names the trace file and line.
#[track_caller]
fn bad_trace(name: &str, trace: &str, line: usize, what: &str) {
    let d = scratch(name);
    std::fs::write(d.join("t.jsonl"), trace).unwrap();
    let p = d.join("s.toml");
    std::fs::write(&p, format!("{HEAD}[workload]\ntrace = \"t.jsonl\"\n")).unwrap();
    let o = tpsim(&["run", p.to_str().unwrap()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    let at = format!("t.jsonl:{line}: ");
    assert!(
        o.stderr.contains(&at) && o.stderr.contains(what),
        "{name}: {}",
        o.stderr
    );
    assert!(o.stderr.contains("key `workload.trace`"), "{}", o.stderr);
}

#[test]
fn bad_trace_lines_exit_2_with_file_and_line() {
    let ok = "{\"arrival_ms\": 0, \"prompt\": 10, \"output\": 3}\n";
    bad_trace(
        "json",
        &format!("{ok}{{\"prompt\": 10,\n"),
        2,
        "expected {\"arrival_ms\"",
    );
    bad_trace(
        "unknown",
        &format!("{ok}{{\"arrival_ms\": 1, \"prompt\": 1, \"output\": 1, \"x\": 1}}\n"),
        2,
        "unknown field `x`",
    );
    bad_trace(
        "zero-out",
        &format!("{ok}{ok}{{\"arrival_ms\": 1, \"prompt\": 1, \"output\": 0}}\n"),
        3,
        "output: expected at least 1",
    );
    bad_trace(
        "backwards",
        &format!("{{\"arrival_ms\": 5, \"prompt\": 1, \"output\": 1}}\n{ok}"),
        2,
        "non-decreasing",
    );
    bad_trace(
        "mixed",
        &format!("{ok}{{\"prompt\": 1, \"output\": 1}}\n"),
        2,
        "on every record or on none",
    );
    bad_trace(
        "prefix",
        "{\"prompt\": 4, \"output\": 1, \"prefix_group\": 1, \"prefix_len\": 5}\n",
        1,
        "prefix_len 5 exceeds prompt 4",
    );
    bad_trace(
        "long",
        &format!("{ok}{}\n", " ".repeat(5000)),
        2,
        "longer than 4096 bytes",
    );
    bad_trace("empty", "# nothing\n", 2, "no records");
    // Audit of issue #18: an arrival 10³⁰⁰ ms after the first used to saturate the picosecond clock
    // and "finish" both requests in 34.7 ms; arrivals are held to 10⁶ s (10⁹ ms), as request_rate's
    // num_requests / rate is (scenario/workload_load.rs MAX_SPAN_S).
    bad_trace(
        "far",
        &format!("{ok}{{\"arrival_ms\": 1e300, \"prompt\": 1, \"output\": 1}}\n"),
        2,
        "expected at most 1000000000 ms",
    );
    // Exactly 10⁹ ms after the first record is accepted (the bound is inclusive).
    let d = scratch("trace-edge");
    std::fs::write(
        d.join("t.jsonl"),
        format!("{ok}{{\"arrival_ms\": 1000000000, \"prompt\": 1, \"output\": 1}}\n"),
    )
    .unwrap();
    let p = d.join("s.toml");
    std::fs::write(&p, format!("{HEAD}[workload]\ntrace = \"t.jsonl\"\n")).unwrap();
    let s = scenario::load(&p).unwrap();
    let v: Vec<RequestSpec> = stream(&s).collect();
    assert_eq!(v[1].arrival.unwrap().as_ps(), 1_000_000_000_000_000_000); // 10⁶ s in ps
    // A missing trace file names the file, with no line number (there is no line 0).
    std::fs::write(&p, format!("{HEAD}[workload]\ntrace = \"missing.jsonl\"\n")).unwrap();
    let o = tpsim(&["run", p.to_str().unwrap()]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains("missing.jsonl: cannot read") && !o.stderr.contains("missing.jsonl:0"),
        "{}",
        o.stderr
    );
}
