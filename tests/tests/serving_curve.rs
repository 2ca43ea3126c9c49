//! Issue #18: the published-curve check. tpsim's throughput-vs-concurrency curve against a published
//! bench_serving sweep: gpt-oss-120b (MXFP4) under vLLM 0.15.1, TP 8 on 8× H100 SXM, ISL 1024 /
//! OSL 1024, `--max-concurrency` 4, 8, 16, 32, 64 — tests/data/serving-curves.tsv lines 2–6, from
//! https://github.com/SemiAnalysisAI/InferenceX/issues/828 (InferenceX workflow run 22537483477).
//!
//! What is compared is the SHAPE, not the level (the level is the throughput validation's job):
//! - output throughput rises monotonically with concurrency, and so does median TPOT;
//! - the gain per doubling of concurrency: published 1.84, 1.70, 1.64, 1.59 (rows 3/2 … 6/5 of
//!   output_tok_s_per_gpu); tpsim's within ±0.30 of each;
//! - the knee, the first doubling whose gain falls below 1.75× (published: 8 → 16, gain 1.70),
//!   within one concurrency step (tpsim's knee at 8, 16 or 32);
//! - TPOT at 64 over TPOT at 4: published 7.36 / 3.72 = 1.98; tpsim's within ±35 %.
//!
//! On the closed loop before the serving loop of #18 (sched) tpsim gave gains 1.77, 1.69, 1.63, 1.64,
//! its knee at 8 → 16 as published, TPOT 64/4 = 1.92, at levels 23 % above the published output
//! throughput (160 → 1279 vs 130 → 1053 tok/s per GPU; not checked here).

use crate::common::*;

const CONCURRENCY: [u32; 5] = [4, 8, 16, 32, 64];

/// Published rows 2–6: (concurrency, output tok/s per GPU, median TPOT ms).
fn published() -> Vec<(u32, f64, f64)> {
    let t = read_tsv(&data_path("serving-curves.tsv"));
    let (c, o, tp, osl) = (
        t.col("concurrency"),
        t.col("output_tok_s_per_gpu"),
        t.col("tpot_ms"),
        t.col("osl"),
    );
    t.rows
        .iter()
        .take(5)
        .map(|r| {
            assert!((2..=6).contains(&r.line) && r.get(osl) == "1024");
            (
                r.get(c).parse().unwrap(),
                r.get(o).parse().unwrap(),
                r.get(tp).parse().unwrap(),
            )
        })
        .collect()
}

/// tpsim's (output tok/s per GPU, median TPOT ms) at one concurrency.
fn simulate(c: u32) -> (f64, f64) {
    let d = scratch(&format!("c{c}"));
    let p = d.join("s.toml");
    std::fs::write(
        &p,
        format!(
            "seed = 1\n[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[model]\npreset = \"gpt-oss-120b\"\n\
             [engine]\nname = \"vllm\"\ntp = 8\ngpu_memory_utilization = 0.9\n\
             [workload]\nconcurrency = {c}\nnum_requests = {}\nprompt_len = 1024\noutput_len = 1024\n",
            c * 2
        ),
    )
    .unwrap();
    let s = tpsim::scenario::load(&p).unwrap();
    let r = tpsim::decode::predict_with(&s, false).unwrap().main;
    (r.e2e_output_tok_s() / 8.0, r.request_tpot_percentile_ms(50.0))
}

fn knee(gains: &[f64]) -> Option<usize> {
    gains.iter().position(|&g| g < 1.75)
}

#[test]
fn gpt_oss_120b_h100x8_concurrency_curve_shape() {
    let pubd = published();
    assert_eq!(pubd.iter().map(|r| r.0).collect::<Vec<_>>(), CONCURRENCY);
    let sim: Vec<(f64, f64)> = CONCURRENCY.iter().map(|&c| simulate(c)).collect();
    let gains = |v: &[f64]| v.windows(2).map(|w| w[1] / w[0]).collect::<Vec<_>>();
    let pg = gains(&pubd.iter().map(|r| r.1).collect::<Vec<_>>());
    let sg = gains(&sim.iter().map(|r| r.0).collect::<Vec<_>>());
    let report = format!("published gains {pg:.2?}, tpsim {sg:.2?}; tpsim points {sim:.2?}");
    assert!(sg.iter().all(|&g| g > 1.0), "throughput not monotone: {report}");
    assert!(
        sim.windows(2).all(|w| w[1].1 >= w[0].1),
        "TPOT not monotone: {report}"
    );
    for (p, s) in pg.iter().zip(&sg) {
        assert!((p - s).abs() <= 0.30, "gain off by more than 0.30: {report}");
    }
    let (pk, sk) = (knee(&pg), knee(&sg));
    assert_eq!(pk, Some(1), "published knee 8 → 16");
    assert!(
        sk.is_some_and(|k| k.abs_diff(1) <= 1),
        "knee not within one step: {report}"
    );
    let (pr, sr) = (pubd[4].2 / pubd[0].2, sim[4].1 / sim[0].1);
    // TPOT growth from c 4 to c 64 within 0.35 of the published 1.98×. History: within under NCCL;
    // a known miss after autoar (c 4's 22.5 KiB decode allreduces run vLLM's custom kernel, below its
    // 256 KiB max_size at 8 ranks on 9.0, c 64's 360 KiB ones NCCL: 2.83×); back within since
    // hopperstep charges the custom kernel the graph's per-kernel gap on NVLink (vLLM PR 24111's
    // in-graph H100 rows, tests/data/nvlink-custom-ar.tsv): 2.57× (2.57 / 1.98 − 1 = 0.30).
    assert!(
        (sr / pr - 1.0).abs() <= 0.35,
        "TPOT 64/4 published {pr:.2}, tpsim {sr:.2}: {report}"
    );
}

// Issue #18 (curve): two more published sweeps, single GPU, lengths as the sources give them.

/// tpsim's serving statistics at one concurrency of a scenario file (its `concurrency` and
/// `num_requests` lines replaced).
pub(super) struct Point {
    pub(super) out_tok_s: f64,
    pub(super) ttft_mean: f64,
    pub(super) ttft_p50: f64,
    pub(super) ttft_p99: f64,
    pub(super) tpot_p50: f64,
}

fn simulate_file(file: &str, c: u32, requests: u32) -> Point {
    simulate_file_with(file, c, requests, "")
}

/// [`simulate_file`] with `extra` appended to the file (issue #18 frontend: `[engine.costs]` keys).
/// Each distinct `extra` gets its own scratch directory (a hash of it in the name), so tests that
/// append different keys to the same file and concurrency can run in parallel.
pub(super) fn simulate_file_with(file: &str, c: u32, requests: u32, extra: &str) -> Point {
    let text = std::fs::read_to_string(scenario(file)).unwrap() + extra;
    let body: String = text
        .lines()
        .map(|l| {
            if l.starts_with("concurrency = ") {
                format!("concurrency = {c}\n")
            } else if l.starts_with("num_requests = ") {
                format!("num_requests = {requests}\n")
            } else {
                format!("{l}\n")
            }
        })
        .collect();
    // FNV-1a of `extra`: a stable name per appended text.
    let h = extra.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x100_0000_01b3)
    });
    let tag = if extra.is_empty() {
        String::new()
    } else {
        format!("-fe{h:016x}")
    };
    let d = scratch(&format!("{}-c{c}{tag}", file.replace('/', "-")));
    let p = d.join("s.toml");
    std::fs::write(&p, body).unwrap();
    let s = tpsim::scenario::load(&p).unwrap();
    let r = tpsim::decode::predict_with(&s, false).unwrap().main;
    Point {
        out_tok_s: r.e2e_output_tok_s(),
        ttft_mean: r.ttft_ms(),
        ttft_p50: r.ttft_percentile_ms(50.0),
        ttft_p99: r.ttft_percentile_ms(99.0),
        tpot_p50: r.request_tpot_percentile_ms(50.0),
    }
}

/// A `key=value` figure from a row's notes (the TTFT percentiles and req/s the columns lack).
pub(super) fn note(notes: &str, key: &str) -> f64 {
    notes
        .split("; ")
        .find_map(|kv| kv.strip_prefix(&format!("{key}=")))
        .unwrap_or_else(|| panic!("no {key} in notes"))
        .parse()
        .unwrap()
}

/// Mistral-7B-Instruct-v0.3 on one RTX 4090 under vLLM, 256 input tokens, outputs to EOS (mean 100,
/// max 128), 300 prompts, `--max-concurrency` 4, 8, 16, 32, 48: tests/data/serving-curves.tsv lines
/// 12–16, from https://mushfiqrahman.dev/?p=1668 (Part 1 table). Out of sample: no constant of the
/// scenario (`scenarios/examples/mistral-7b-vllm-rtx4090-curve.toml`, the rtx-4090 template) was fitted
/// to these rows; the output mean 100 is the table's own output tok/s ÷ req/s.
///
/// Asserted, tolerances stated before the check and the measured values beside them:
/// - output throughput (every output token over the run, as bench_serving's) at each concurrency within
///   ±10 % of the published (tpsim 201.8, 374.3, 641.5, 972.5, 1165.5 vs 210, 377, 644, 975, 1190:
///   −3.9 … −0.3 %);
/// - the gain per step within ±0.15 (published 1.80, 1.71, 1.51, 1.22; tpsim 1.85, 1.71, 1.52, 1.20);
/// - the knee, the first step whose gain falls below 1.6 (published 16 → 32, "diminishing returns
///   beyond 16"), on the same step;
/// - mean TTFT non-decreasing in concurrency, as published;
/// - median TTFT at 4 and 8 (one 256-token prefill mixed with the running decodes: the prefill cost
///   path at low load) within ±25 % (published 53, 55 ms; tpsim 45.5, 46.3 ms);
/// - TTFT p99 at 48 over p99 at 4 within ±35 % (published 1483 / 157 = 9.4; tpsim 12.1).
///
/// Not asserted (a documented miss, book/src/serving.md "Published curves"): median and mean TTFT
/// at 16–48 (published median 97, 277, 840 ms; tpsim 48, 50, 97 ms). Re-examined (curve2): not the
/// drive — bench_serving at rate inf sends C requests at t = 0 behind `asyncio.Semaphore(C)` and
/// starts a request's clock after the semaphore (vLLM `benchmarks/serve.py` `limited_request_func`),
/// as tpsim's closed loop does — and not the budget: vLLM's default for a GPU under 70 GiB is
/// 2,048 tokens / 256 sequences (`engine/arg_utils.py` `_set_default_args`), which tpsim uses. By
/// Little's law the published row at 48 has 11.87 × 0.667 = 7.9 requests between send and first
/// token (tpsim 3.2) at the same throughput: a queue in front of the scheduler (candidate: vLLM v1's
/// pure-Python `SlowIncrementalDetokenizer` for `--tokenizer-mode mistral` in the API server).
#[test]
fn mistral_7b_rtx4090_vllm_concurrency_curve() {
    let t = read_tsv(&data_path("serving-curves.tsv"));
    let (cc, o, tm, n) = (
        t.col("concurrency"),
        t.col("output_tok_s_per_gpu"),
        t.col("ttft_ms"),
        t.col("notes"),
    );
    let rows: Vec<_> = t.rows.iter().filter(|r| (12..=16).contains(&r.line)).collect();
    assert!(
        rows.iter()
            .all(|r| r.get(0) == "https://mushfiqrahman.dev/?p=1668")
    );
    let conc: Vec<u32> = rows.iter().map(|r| r.get(cc).parse().unwrap()).collect();
    assert_eq!(conc, [4, 8, 16, 32, 48]);
    let pub_out: Vec<f64> = rows.iter().map(|r| r.get(o).parse().unwrap()).collect();
    let pub_ttft: Vec<f64> = rows.iter().map(|r| r.get(tm).parse().unwrap()).collect();
    let pub_p50: Vec<f64> = rows.iter().map(|r| note(r.get(n), "ttft_p50_ms")).collect();
    let pub_p99: Vec<f64> = rows.iter().map(|r| note(r.get(n), "ttft_p99_ms")).collect();
    let sim: Vec<Point> = conc
        .iter()
        .map(|&c| simulate_file("examples/mistral-7b-vllm-rtx4090-curve.toml", c, 300))
        .collect();
    let sim_out: Vec<f64> = sim.iter().map(|p| p.out_tok_s).collect();
    let gains = |v: &[f64]| v.windows(2).map(|w| w[1] / w[0]).collect::<Vec<_>>();
    let (pg, sg) = (gains(&pub_out), gains(&sim_out));
    let report = format!(
        "published out {pub_out:?} gains {pg:.3?}; tpsim out {sim_out:.1?} gains {sg:.3?}; \
         tpsim TTFT mean {:.1?} p50 {:.1?} p99 {:.1?}",
        sim.iter().map(|p| p.ttft_mean).collect::<Vec<_>>(),
        sim.iter().map(|p| p.ttft_p50).collect::<Vec<_>>(),
        sim.iter().map(|p| p.ttft_p99).collect::<Vec<_>>()
    );
    for (p, s) in pub_out.iter().zip(&sim_out) {
        assert!((s / p - 1.0).abs() <= 0.10, "throughput off by > 10 %: {report}");
    }
    for (p, s) in pg.iter().zip(&sg) {
        assert!((p - s).abs() <= 0.15, "gain off by > 0.15: {report}");
    }
    let knee = |g: &[f64]| g.iter().position(|&x| x < 1.6);
    assert_eq!(knee(&pg), Some(2), "published knee 16 → 32");
    assert_eq!(knee(&sg), knee(&pg), "knee not on the published step: {report}");
    assert!(pub_ttft.windows(2).all(|w| w[1] >= w[0]));
    assert!(
        sim.windows(2).all(|w| w[1].ttft_mean >= w[0].ttft_mean),
        "mean TTFT not monotone: {report}"
    );
    for i in 0..2 {
        let r = sim[i].ttft_p50 / pub_p50[i] - 1.0;
        assert!(
            r.abs() <= 0.25,
            "median TTFT at {} off by {r:+.2}: {report}",
            conc[i]
        );
    }
    let (pr, sr) = (pub_p99[4] / pub_p99[0], sim[4].ttft_p99 / sim[0].ttft_p99);
    assert!(
        (sr / pr - 1.0).abs() <= 0.35,
        "TTFT p99 48/4 published {pr:.2}, tpsim {sr:.2}: {report}"
    );
}

/// Llama-3.1-8B-Instruct on one A100 40GB under vLLM, 1024 in / 128 out fixed (--ignore-eos),
/// `--max-concurrency` C with C × 20 prompts (`scenarios/examples/llama-3.1-8b-vllm-a100-40gb-curve.toml`),
/// against the figures https://johnmusgrave.com/p/vllm-throughput-latency-sweep-on states in its
/// summary (its per-concurrency table is not in this project's reach, so these are all it checks):
/// "decode at one request per time runs at about 75 tokens/sec"; "a 6.6x gain" in throughput from
/// C = 1 to 8 "with almost no latency cost"; past 8 "throughput keeps rising but per-token latency
/// climbs and tail latency goes vertical. The knee sits at C=8". Out of sample (the A100 preset is
/// datasheet figures, the memory efficiency derived from gpt-fast's A100 decode (a100pcie), and the A100 FLOP curve fitted to prefill rows of
/// other sources (prefill3); nothing was fitted to this source).
///
/// Asserted: 1000 / TPOT p50 at C = 1 within ±10 % of 75 (tpsim 71.7, −4 %; 78.3 before a100pcie); the C 8/1 throughput
/// gain within ±25 % of 6.6 (tpsim 413.2 / 69.0 = 5.99, −9 %: a documented miss, see
/// book/src/serving.md "Published curves"); the knee: the 8 → 16 gain below the mean per-doubling
/// gain of 1 → 8 (tpsim 1.56 < 1.82), throughput still
/// rising to 64, TPOT p50 rising from 8 on and TTFT p99 growing more than 1.5× per doubling past 8 (tpsim 1.76, 2.00, 1.93).
#[test]
fn llama_3_1_8b_a100_vllm_concurrency_knee() {
    const FILE: &str = "examples/llama-3.1-8b-vllm-a100-40gb-curve.toml";
    let conc = [1u32, 8, 16, 32, 64];
    let sim: Vec<Point> = conc.iter().map(|&c| simulate_file(FILE, c, c * 20)).collect();
    let report = format!(
        "tpsim out {:.1?}, TPOT p50 {:.2?}, TTFT p99 {:.1?}",
        sim.iter().map(|p| p.out_tok_s).collect::<Vec<_>>(),
        sim.iter().map(|p| p.tpot_p50).collect::<Vec<_>>(),
        sim.iter().map(|p| p.ttft_p99).collect::<Vec<_>>()
    );
    println!("{report}");
    let decode_rate = 1000.0 / sim[0].tpot_p50;
    assert!(
        (decode_rate / 75.0 - 1.0).abs() <= 0.10,
        "C = 1 decode {decode_rate:.1} tok/s: {report}"
    );
    let gain8 = sim[1].out_tok_s / sim[0].out_tok_s;
    assert!(
        (gain8 / 6.6 - 1.0).abs() <= 0.25,
        "C 8/1 gain {gain8:.2}: {report}"
    );
    let per_doubling = gain8.cbrt();
    let gain16 = sim[2].out_tok_s / sim[1].out_tok_s;
    assert!(
        gain16 < per_doubling,
        "no bend after 8: {gain16:.2} vs {per_doubling:.2}: {report}"
    );
    assert!(
        sim.windows(2).all(|w| w[1].out_tok_s > w[0].out_tok_s),
        "{report}"
    );
    assert!(
        sim[1..].windows(2).all(|w| w[1].tpot_p50 > w[0].tpot_p50),
        "{report}"
    );
    assert!(
        sim[1..].windows(2).all(|w| w[1].ttft_p99 > 1.5 * w[0].ttft_p99),
        "{report}"
    );
}

/// Llama-3.1-8B-Instruct on one H100 80GB HBM3 under vLLM 0.21.0, concurrency 1, 4, 16, 64 with TTFT
/// p50/p99 and TPOT p50: tests/data/serving-curves.tsv lines 17–20, from
/// https://yobitelcomm.github.io/bench/recipes/concurrency-sweep/ (InferenceBench
/// `llm.inference.chatbot-short`, 2026-05-16). The client is not bench_serving: C Python threads in a
/// closed loop for 120 s, each streaming a chat completion through LiteLLM (max_tokens 128, ten
/// one-line prompts; yobitelcomm/bench `harness/.../drivers/closed_loop.py`, `harness/.../client.py`).
/// Lengths are not published; the scenario's (`scenarios/examples/llama-3.1-8b-vllm-h100-chatbot-curve.toml`)
/// are assumed. Out of sample except TPOT at C = 1: Hopper's `kernel_overhead` was fitted to
/// Llama-3.1-8B batch 1 on one H100 under SGLang (tests/data/spec-decode.tsv line 2).
///
/// Asserted, tolerances stated before the check, the measured values beside them:
/// - TPOT p50 at C = 1 and 4 within ±5 % of the published 6.48, 6.59 ms (tpsim 6.50, 6.52: +0.3 %,
///   −1.0 %), and its 4/1 ratio within ±0.05 of the published 1.017 (tpsim 1.004);
/// - the published knee (throughput peaks at 16: 1384 → 1312 tok/s at 64) is the client's, read
///   from the rows themselves: C ÷ TPOT p50 at 16 and 64 (1463, 1364 tok/s) within 10 % of the
///   published throughput and of each other — tokens reach the client at one rate, ~1.4k tok/s,
///   whatever the concurrency, where an H100 decoding 64 requests of Llama-3.1-8B runs ~6× that;
/// - so tpsim, which models the engine and not the client, must NOT bend at 16: its throughput at
///   64 over 16 above 3 (tpsim 3.66) and TPOT p50 at 64 below 1.2× that at 16 (tpsim 1.08).
///
/// Documented misses (book/src/serving.md "Published curves"), not asserted: the knee (client), TPOT
/// at 16 and 64 (10.94, 46.91 ms published; tpsim 6.64, 7.18: the client's delivery rate), the C 4/1
/// throughput gain (published 4.75, above 4, which no closed loop of the engine alone can give; tpsim
/// 3.94) and TTFT (published p50 13.98 ms at C = 1 against tpsim's 6.79: ~7 ms of HTTP, chat template,
/// tokenisation and LiteLLM per request outside the engine, growing with the client's threads).
#[test]
fn llama_3_1_8b_h100_vllm_chatbot_curve_percentiles() {
    const FILE: &str = "examples/llama-3.1-8b-vllm-h100-chatbot-curve.toml";
    let t = read_tsv(&data_path("serving-curves.tsv"));
    let (cc, o, n) = (
        t.col("concurrency"),
        t.col("output_tok_s_per_gpu"),
        t.col("notes"),
    );
    let rows: Vec<_> = t.rows.iter().filter(|r| (17..=20).contains(&r.line)).collect();
    assert!(
        rows.iter()
            .all(|r| r.get(0) == "https://yobitelcomm.github.io/bench/recipes/concurrency-sweep/")
    );
    let conc: Vec<u32> = rows.iter().map(|r| r.get(cc).parse().unwrap()).collect();
    assert_eq!(conc, [1, 4, 16, 64]);
    let pub_out: Vec<f64> = rows.iter().map(|r| r.get(o).parse().unwrap()).collect();
    let pub_tpot: Vec<f64> = rows.iter().map(|r| note(r.get(n), "tpot_p50_ms")).collect();
    let sim: Vec<Point> = conc.iter().map(|&c| simulate_file(FILE, c, c * 40)).collect();
    let report = format!(
        "tpsim out {:.1?}, TPOT p50 {:.2?}, TTFT p50 {:.2?} p99 {:.2?}",
        sim.iter().map(|p| p.out_tok_s).collect::<Vec<_>>(),
        sim.iter().map(|p| p.tpot_p50).collect::<Vec<_>>(),
        sim.iter().map(|p| p.ttft_p50).collect::<Vec<_>>(),
        sim.iter().map(|p| p.ttft_p99).collect::<Vec<_>>()
    );
    for i in 0..2 {
        let r = sim[i].tpot_p50 / pub_tpot[i] - 1.0;
        assert!(
            r.abs() <= 0.05,
            "TPOT p50 at {} off by {r:+.3}: {report}",
            conc[i]
        );
    }
    let (pr, sr) = (pub_tpot[1] / pub_tpot[0], sim[1].tpot_p50 / sim[0].tpot_p50);
    assert!(
        (pr - sr).abs() <= 0.05,
        "TPOT 4/1 published {pr:.3}, tpsim {sr:.3}: {report}"
    );
    // The client's delivery rate, from the published rows alone.
    let rate: Vec<f64> = (2..4)
        .map(|i| f64::from(conc[i]) / pub_tpot[i] * 1000.0)
        .collect();
    for (i, r) in (2..4).zip(&rate) {
        assert!(
            (r / pub_out[i] - 1.0).abs() <= 0.10,
            "C/TPOT {r:.0} vs {}",
            pub_out[i]
        );
    }
    assert!((rate[1] / rate[0] - 1.0).abs() <= 0.10, "{rate:?}");
    assert!(pub_out[3] < pub_out[2], "published knee at 16");
    // The engine alone does not bend there.
    assert!(sim[3].out_tok_s / sim[2].out_tok_s > 3.0, "{report}");
    assert!(sim[3].tpot_p50 < 1.2 * sim[2].tpot_p50, "{report}");
}

/// The Mistral-7B RTX 4090 curve's published median TTFTs at concurrency 4, 32 and 48 (ms;
/// `tests/data/serving-curves.tsv` lines 12, 15, 16), checked against the source's 53, 277, 840.
pub(super) fn mistral_published_ttft_p50() -> (f64, f64, f64) {
    let t = read_tsv(&data_path("serving-curves.tsv"));
    let n = t.col("notes");
    let p50 = |line: usize| {
        let r = t.rows.iter().find(|r| r.line == line).unwrap();
        note(r.get(n), "ttft_p50_ms")
    };
    let published = (p50(12), p50(15), p50(16));
    assert_eq!(published, (53.0, 277.0, 840.0));
    published
}

/// Issue #18 (frontend): can the API-server front end (`serve::frontend`) carry the Mistral curve's
/// median TTFT at 16–48 (tests/data/serving-curves.tsv lines 14–16: 97, 277, 840 ms)? A diagnostic,
/// not a calibration: vLLM's preset keeps the front-end costs at 0 because of what it shows.
///
/// One parameter, `frontend_output_token_cost` (detokenization + SSE chunk per token, one API
/// server), set by hand so that the median at 48 (line 16) comes within ±25 % of 840 ms: 640 µs
/// gives 712 ms (−15 %). Out of sample, with the tolerances of the main test above:
/// - output throughput at 48 falls to 1082 tok/s, −9 % (published 1190; 0 µs gives −2 %): the
///   server is 69 % busy and the closed loop slows;
/// - the median at 32 (line 15) stays far below: tpsim 156 ms against 277 (−44 %) — the
///   single FIFO server's queue is too steep (busy 69 % at 48, 61 % at 32);
/// - the median at 4 (line 12) rises from 45.5 to 66.7 ms (+26 %, outside the ±25 % the main test
///   holds): with any front-end time the request reaches the engine after the next step began
///   (a step is ~19 ms here), which the published 53 ms does not show.
///
/// So the single server with a per-token cost does not describe this curve; the mechanism stays
/// off (costs 0) until a measured per-token or per-request cost exists.
///
/// The figures above were taken with the RTX 4090 at the flat assumed 0.50 FLOP efficiency; issue
/// #18 (prefillgpus) gave the 4090 a FLOP curve from GEMM measurements (`templates/rtx-4090.toml`),
/// which makes its prefill steps faster. The diagnostic keeps its premise by pinning the flat 0.50
/// inline (`flops_efficiency = 0.5` drops the curve). Under the curve the same 640 µs gives a median
/// at 48 of 629.7 ms (−25.0 %, just outside the hand-set ±25 %) and 1213.9 tok/s at 48 (+2 %: the
/// throughput criterion no longer separates), while the medians at 4 (66.7 ms, +26 %) and 32 (155.0
/// ms, −44 %) still say the single server does not carry the curve.
#[test]
fn mistral_front_end_per_token_cost_does_not_carry_the_curve() {
    const FILE: &str = "examples/mistral-7b-vllm-rtx4090-curve.toml";
    let (p4, p32, p48) = mistral_published_ttft_p50();
    let extra = "\n[hardware.params]\nflops_efficiency = 0.5\n\n[engine.costs]\nfrontend_output_token_cost = \"640us\"\n";
    let at = |c: u32| simulate_file_with(FILE, c, 300, extra);
    let (s4, s32, s48) = (at(4), at(32), at(48));
    let report = format!(
        "TTFT p50 at 4, 32, 48: {:.1}, {:.1}, {:.1} ms; out at 48 {:.1} tok/s",
        s4.ttft_p50, s32.ttft_p50, s48.ttft_p50, s48.out_tok_s
    );
    // In sample (set by hand): the median at 48 within ±25 % of line 16.
    assert!((s48.ttft_p50 / p48 - 1.0).abs() <= 0.25, "{report}");
    // Out of sample: throughput at 48 more than 5 % under the published 1190 (line 16), the
    // median at 32 more than 40 % under line 15's, the median at 4 more than 25 % over line 12's.
    assert!(s48.out_tok_s < 0.95 * 1190.0, "{report}");
    assert!(s32.ttft_p50 < 0.60 * p32, "{report}");
    assert!(s4.ttft_p50 > 1.25 * p4, "{report}");
}
