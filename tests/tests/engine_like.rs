//! Degenerate and hostile input behaves like the engine (issue #14, point 3): an engine that would
//! not start yields its verdict with its own error text and no throughput (exit 3); where the engine
//! adjusts a setting with a warning, tpsim adjusts and warns; where it refuses, tpsim refuses with
//! its text.

use crate::common::*;

const NOT_ENOUGH_MEMORY: &str = "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. Current value: self.server_args.mem_fraction_static=0.55";

#[test]
fn run_of_an_engine_that_would_not_start_prints_the_verdict_and_no_throughput() {
    let o = tpsim(&["run", &scenario("seed/low-fraction.toml")]);
    assert_eq!(o.code, 3, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(o.stdout.contains(NOT_ENOUGH_MEMORY), "{}", o.stdout);
    assert!(
        o.stdout.contains("Decode: none — the engine would not start"),
        "{}",
        o.stdout
    );
    for absent in [
        "tok/s",
        "time per output token",
        "Per-iteration breakdown",
        "× the floor",
    ] {
        assert!(!o.stdout.contains(absent), "`{absent}` in:\n{}", o.stdout);
    }
    // One line on stderr beside the seed box's SHM warning: the file, the verdict in words and the
    // engine's text.
    let (shm, rest) = split_seed_shm_warning(&o.stderr);
    assert_eq!(shm, 1, "{}", o.stderr);
    assert_eq!(
        rest,
        format!(
            "{}: the engine would not start: {NOT_ENOUGH_MEMORY}",
            scenario("seed/low-fraction.toml")
        )
    );
}

#[test]
fn run_json_of_an_engine_that_would_not_start_has_the_verdict_and_null_throughput() {
    let o = tpsim(&["run", &scenario("seed/low-fraction.toml"), "--json"]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("the object is still written");
    assert_eq!(j["verdict"], "oom");
    assert_eq!(j["error"], NOT_ENOUGH_MEMORY);
    assert!(j["throughput"].is_null() && j["spec"].is_null(), "{j}");
    assert_eq!(j["breakdown"], serde_json::json!({}));
    assert_eq!(j["breakdown_by_op"], serde_json::json!({}));
    assert_eq!(j["bottleneck"], "none");
    assert!(j["floor"]["gap"].is_null());
    // The memory plan is all there.
    assert_eq!(j["memory"]["verdict"], "oom");
    assert_eq!(j["memory"]["oom"]["message"], NOT_ENOUGH_MEMORY);
    // An engine that starts: verdict ok, no error.
    let b = run_json(&scenario("seed/baseline.toml"));
    assert_eq!(b["verdict"], "ok");
    assert!(b["error"].is_null() && b["throughput"].is_object());
}

#[test]
fn run_with_trace_of_an_engine_that_would_not_start_writes_no_trace() {
    let d = scratch("engine-like-trace");
    let trace = d.join("t.json");
    let o = tpsim(&[
        "run",
        &scenario("seed/low-fraction.toml"),
        "--trace",
        trace.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 3, "{}", o.stderr);
    assert!(!trace.exists(), "nothing is decoded: no trace");
    assert!(o.stderr.contains("no trace written"), "{}", o.stderr);
}

#[test]
fn sweep_marks_points_that_would_not_start_and_goes_on() {
    let o = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--set",
        "engine.mem_fraction_static=0.55,0.88",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let lines: Vec<&str> = o.stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{}", o.stdout);
    assert!(lines[1].starts_with("0,0.55,oom,,,,"), "{}", lines[1]);
    // 71.9 tok/s before sgldualstream overlapped SGLang's shared expert with the routed experts;
    // 72.1 before vllmfusion charged the KV-cache store kernel; 73.30 before server58 gave the seed box's
    // Server Edition its 1.597 TB/s at mem_efficiency 0.893 (1.426 TB/s streamed against 1.432): 73.24.
    assert!(lines[2].starts_with("1,0.88,ok,73.2"), "{}", lines[2]);
}

#[test]
fn diff_against_an_engine_that_would_not_start_shows_no_throughput_for_it() {
    let o = tpsim(&[
        "diff",
        &scenario("seed/baseline.toml"),
        &scenario("seed/low-fraction.toml"),
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert!(j["b"]["throughput"].is_null());
    let tok = j["deltas"]["summary"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "output_tok_s")
        .unwrap();
    assert!(
        tok["a"].is_number() && tok["b"].is_null() && tok["delta"].is_null(),
        "{tok}"
    );
    // No per-iteration comparison against an iteration that never happens.
    assert_eq!(j["deltas"]["by_category"], serde_json::json!([]));
    assert_eq!(j["deltas"]["by_op"], serde_json::json!([]));
    let t = tpsim(&[
        "diff",
        &scenario("seed/baseline.toml"),
        &scenario("seed/low-fraction.toml"),
    ]);
    assert!(
        t.stdout.contains("B would NOT start") && t.stdout.contains("not compared"),
        "{}",
        t.stdout
    );
}

const ADJUSTED: &str =
    "speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1";

#[test]
fn sweep_over_num_steps_adjusts_num_draft_tokens_like_sglang_and_warns() {
    let o = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--set",
        "speculative.num_steps=1,2,3,5",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows: Vec<&str> = o.stdout.lines().skip(1).collect();
    assert_eq!(rows.len(), 4, "{}", o.stdout);
    assert!(rows.iter().all(|r| r.contains(",ok,")), "{}", o.stdout);
    // One warning per adjusted point (num_steps 3 already has 4 draft tokens), in grid order, beside
    // the seed box's SHM warning at every point.
    let (shm, rest) = split_seed_shm_warning(&o.stderr);
    assert_eq!(shm, 4, "{}", o.stderr);
    let w: Vec<&str> = rest.lines().collect();
    assert_eq!(w.len(), 3, "{}", o.stderr);
    for (line, (p, steps, n)) in w.iter().zip([(0, 1, 2), (1, 2, 3), (3, 5, 6)]) {
        assert!(
            line.starts_with(&format!(
                "warning: point {p} (speculative.num_steps={steps}): {ADJUSTED}"
            )) && line.ends_with(&format!("speculative.num_draft_tokens 4 → {n})")),
            "{line}"
        );
    }
    // The adjusted points are the chains `--unset speculative.num_draft_tokens` gives.
    let unset = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--unset",
        "speculative.num_draft_tokens",
        "--set",
        "speculative.num_steps=1,2,3,5",
    ]);
    assert_eq!(unset.stdout, o.stdout);
    assert_eq!(split_seed_shm_warning(&unset.stderr), (4, String::new()));
}

#[test]
fn run_adjusts_a_chains_num_draft_tokens_and_reports_the_warning() {
    let file = baseline_with("engine-like-ndt", "num_draft_tokens = 4", "num_draft_tokens = 8");
    let o = tpsim(&["run", &file, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let (shm, rest) = split_seed_shm_warning(&o.stderr);
    assert_eq!(shm, 1, "{}", o.stderr);
    assert_eq!(
        rest,
        format!("warning: {file}: {ADJUSTED} (SGLang's warning; speculative.num_draft_tokens 8 → 4)")
    );
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let is_shm = |v: &&serde_json::Value| v.as_str().unwrap().starts_with("NCCL takes SHM on 8 of the 8");
    let all = j["warnings"].as_array().unwrap();
    assert_eq!(all.iter().filter(is_shm).count(), 1, "{all:?}");
    let w: Vec<&serde_json::Value> = all.iter().filter(|v| !is_shm(v)).collect();
    assert_eq!(w.len(), 1);
    assert!(w[0].as_str().unwrap().starts_with(ADJUSTED));
    assert!(
        j["scenario"]["speculative"]
            .as_str()
            .unwrap()
            .contains("draft_tokens=4")
    );
    // The same prediction as the scenario that says 4.
    let base = run_json(&scenario("seed/baseline.toml"));
    assert_eq!(j["throughput"], base["throughput"]);
    let base_w = base["warnings"].as_array().unwrap();
    assert_eq!(base_w.len(), 1, "{base_w:?}");
    assert!(is_shm(&&base_w[0]), "{base_w:?}");
    // validate and memory print it too.
    for cmd in ["validate", "memory"] {
        let o = tpsim(&[cmd, &file]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        assert!(o.stderr.contains(ADJUSTED), "{cmd}: {}", o.stderr);
    }
}

#[test]
fn topk_or_draft_tokens_without_num_steps_is_sglangs_assertion() {
    let file = baseline_with("engine-like-nosteps", "num_steps = 3\n", "");
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("key `speculative.num_steps`")
            && o.stderr.contains(
                "AssertionError (`assert speculative_eagle_topk is None and speculative_num_draft_tokens is None`"
            ),
        "{}",
        o.stderr
    );
}

/// `tpsim run` of the seed baseline with `from` replaced by `to`: exit code, stdout, stderr.
fn run_modified(name: &str, from: &str, to: &str, json: bool) -> (Out, String) {
    let file = baseline_with(name, from, to);
    let mut args = vec!["run", file.as_str()];
    if json {
        args.push("--json");
    }
    (tpsim(&args), file)
}

#[test]
fn a_prompt_longer_than_the_context_is_rejected_with_sglangs_text() {
    // Kimi-K2.5: context 262,144 tokens; EAGLE (3 steps, topk 1, 4 draft tokens) reserves
    // max(1 × 3, 4) = 4 slots, which SGLang counts in the input.
    let (o, file) = run_modified(
        "engine-like-long",
        "prompt_len = 1024",
        "prompt_len = 300000",
        false,
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    let text =
        "ValueError: The input (300004 tokens) is longer than the model's context length (262144 tokens).";
    assert!(
        o.stdout.contains(&format!("the engine would answer: {text}")),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("Decode: none — the engine rejects the requests")
    );
    assert!(!o.stdout.contains("tok/s"), "{}", o.stdout);
    let (shm, rest) = split_seed_shm_warning(&o.stderr);
    assert_eq!(shm, 1, "{}", o.stderr);
    assert_eq!(rest, format!("{file}: the engine rejects the requests: {text}"));
    let (o, _) = run_modified(
        "engine-like-long-json",
        "prompt_len = 1024",
        "prompt_len = 300000",
        true,
    );
    assert_eq!(o.code, 3);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "rejected");
    assert_eq!(j["error"], text);
    assert!(j["throughput"].is_null());
    // The engine starts: its memory plan is fine.
    assert_eq!(j["memory"]["verdict"], "ok");
}

#[test]
fn prompt_plus_output_beyond_the_context_is_rejected_with_sglangs_text() {
    let (o, _) = run_modified(
        "engine-like-total",
        "prompt_len = 1024",
        "prompt_len = 262100",
        true,
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "rejected");
    assert_eq!(
        j["error"],
        "ValueError: Requested token count exceeds the model's maximum context length of 262144 tokens. \
         You requested a total of 263128 tokens: 262104 tokens from the input messages and 1024 tokens for \
         the completion. Please reduce the number of tokens in the input messages or the completion to fit \
         within the limit."
    );
    // A range entirely past the context: every request is refused, the shortest too, and the text
    // is the shortest request's (263,000 + 4 reserved slots ≥ 262,144).
    let (o, _) = run_modified(
        "engine-like-range",
        "prompt_len = 1024",
        "prompt_len = { min = 263000, max = 270000 }",
        true,
    );
    assert_eq!(o.code, 3, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        j["error"],
        "ValueError: The input (263004 tokens) is longer than the model's context length (262144 tokens)."
    );
}

#[test]
fn a_range_reaching_past_the_limits_runs_and_the_engine_refuses_only_the_long_requests() {
    // Issue #18 (audit18 gap 1): the engine answers each request on its own, so a workload whose
    // prompt range only reaches past the context (262,144) and the KV pool runs; the requests beyond
    // SGLang's max_req_input_len (min(262,143, 159,293) − 5 = 159,288 on this box's 159,294-token
    // pool) are refused one by one and counted, the rest finish. Seed 1's eight draws from
    // 1,024..=270,000 put one prompt (257,542 tokens) past the pool limit.
    let file = baseline_with(
        "engine-like-range-mixed",
        "prompt_len = 1024",
        "prompt_len = { min = 1024, max = 270000 }\nnum_requests = 8",
    );
    let o = tpsim(&["run", file.as_str(), "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "ok");
    assert_eq!(j["serving"]["rejected"], 1);
    assert_eq!(j["serving"]["finished"], 7);
    assert_eq!(
        j["serving"]["first_rejection"],
        "Input length (257542 tokens) exceeds the maximum allowed length (159288 tokens). Use a shorter \
         input or enable --allow-auto-truncate."
    );
}

#[test]
fn an_empty_prompt_is_rejected_with_sglangs_text() {
    let (o, _) = run_modified("engine-like-empty", "prompt_len = 1024", "prompt_len = 0", true);
    assert_eq!(o.code, 3, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(j["verdict"], "rejected");
    assert_eq!(j["error"], "ValueError: input_ids cannot be empty.");
}

#[test]
fn vllm_rejects_a_prompt_longer_than_max_model_len_with_its_text() {
    let file = scenario("examples/llama-3.1-8b-h100.toml");
    let text = std::fs::read_to_string(&file).unwrap();
    let d = scratch("engine-like-vllm");
    let vllm = d.join("s.toml");
    // The vLLM twin of the Llama example, with max_model_len 4096 and a 5000-token prompt.
    let body = text
        .replace("name = \"sglang\"", "name = \"vllm\"\nmax_model_len = 4096")
        .replace("mem_fraction_static", "gpu_memory_utilization");
    let body = with_line(&body, "prompt_len", "5000");
    std::fs::write(&vllm, body).unwrap();
    let o = tpsim(&["run", vllm.to_str().unwrap(), "--json"]);
    assert_eq!(o.code, 3, "{}\n{}", o.stdout, o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    assert_eq!(
        j["error"],
        "VLLMValidationError: The decoder prompt (length 5000) is longer than the maximum model length of 4096. \
         Make sure that `max_model_len` is no smaller than the number of text tokens."
    );
}

/// `key = …` at the start of a line set to `value` (the line must exist once).
fn with_line(text: &str, key: &str, value: &str) -> String {
    let mut hits = 0;
    let out: Vec<String> = text
        .lines()
        .map(|l| {
            if l.trim_start().starts_with(&format!("{key} =")) {
                hits += 1;
                format!("{key} = {value}")
            } else {
                l.to_string()
            }
        })
        .collect();
    assert_eq!(hits, 1, "`{key} =` must occur once");
    out.join("\n") + "\n"
}

#[test]
fn output_len_1_reports_the_time_to_first_token_and_no_decode_throughput() {
    let (o, _) = run_modified("engine-like-one", "output_len = 1024", "output_len = 1", false);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("Decode: none — every request ends with its first token (output_len = 1)"),
        "{}",
        o.stdout
    );
    // The prefill's 1563.00 ms plus SGLang's detokenizer job for the first token (kimitok54: 11 ids
    // × 9.087273 µs on Kimi's tiktoken tokenizer = 0.09996 ms). server58: 1562.79 → 1563.00 ms of prefill
    // (its bandwidth-bound kernels at the Server Edition's 0.893 × 1.597 TB/s, 0.80 × 1.79 before).
    // sglfront60: plus SGLang's request path outside the scheduler, 9.54 − 2 × 2.94 = 3.66 ms.
    // moeroute62: plus the bf16 cast of the router logits SGLang 0.5.9 runs before Kimi's fused gate
    // above 16 tokens, one kernel in each of the 60 MoE layers at the template's 2 µs: 0.12 ms.
    assert!(
        o.stdout.contains("time to first token 1566.88 ms"),
        "{}",
        o.stdout
    );
    for absent in [
        "0.0 tok/s",
        "0.00 ms",
        "output throughput",
        "Per-iteration breakdown",
    ] {
        assert!(!o.stdout.contains(absent), "`{absent}` in:\n{}", o.stdout);
    }
    let (o, _) = run_modified(
        "engine-like-one-json",
        "output_len = 1024",
        "output_len = 1",
        true,
    );
    assert_eq!(o.code, 0);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).unwrap();
    let t = &j["throughput"];
    assert_eq!(j["verdict"], "ok");
    assert_eq!(t["iterations"], 0);
    assert_eq!(t["output_tokens"], 1);
    for k in [
        "output_tok_s",
        "per_request_tok_s",
        "tpot_ms",
        "itl_p50_ms",
        "itl_p99_ms",
        "mean_iteration_ms",
    ] {
        assert!(t[k].is_null(), "{k}: {}", t[k]);
    }
    assert!(
        f(&t["ttft_ms"]) > 1000.0 && f(&t["e2e_output_tok_s"]) > 0.0,
        "{t}"
    );
    assert!(j["spec"].is_null() && j["floor"]["gap"].is_null());
    assert_eq!(j["breakdown"], serde_json::json!({}));
    assert_eq!(j["bottleneck"], "none");
}

#[test]
fn sweep_marks_rejected_points_and_prefill_only_points() {
    let o = tpsim(&[
        "sweep",
        &scenario("seed/baseline.toml"),
        "--quiet",
        "--set",
        "workload.prompt_len=1024,300000",
        "--set",
        "workload.output_len=1,2",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let rows: Vec<&str> = o.stdout.lines().collect();
    assert!(
        // 1563.103825544 ms before sglfront60's 3.66 ms request path; 1566.763825544 before
        // moeroute62's router-logit cast (60 MoE layers × 2 µs).
        rows[1].starts_with("0,1024,1,ok,,,1566.883825544,,159294,"),
        "{}",
        rows[1]
    );
    // No allreduce time and bottleneck "none" without a decode iteration; then the serving columns
    // (issue #18): TTFT p99, no TPOT, request throughput, preemptions 0, peak KV use.
    assert!(rows[1].contains(",,none,"), "{}", rows[1]);
    assert!(rows[1].split(',').nth(13) == Some(""), "{}", rows[1]);
    // 23.7 tok/s before sgldualstream (the seed's two-token run: one decode step).
    assert!(rows[2].starts_with("1,1024,2,ok,24.1"), "{}", rows[2]);
    assert!(
        rows[3].starts_with("2,300000,1,rejected,,,,,159294,"),
        "{}",
        rows[3]
    );
    assert!(rows[4].starts_with("3,300000,2,rejected,"), "{}", rows[4]);
}

#[test]
fn sweep_threads_beyond_the_points_are_not_spawned() {
    // --threads 100000 over two points spawned 100,000 threads (over a minute); the pool now has
    // min(threads, points) of them: the points run on at most two distinct threads, and the rows
    // are the same as with one thread.
    let sw = tpsim::sweep::Sweep::new(
        std::path::Path::new(&scenario("seed/baseline.toml")),
        &["engine.mem_fraction_static=0.55,0.88".to_string()],
        &[],
    )
    .unwrap();
    let seen = std::sync::Mutex::new(std::collections::BTreeSet::new());
    let tick = || {
        let id = format!("{:?}", std::thread::current().id());
        seen.lock().unwrap().insert(id);
    };
    let many = sw.run(None, 100_000, &tick).unwrap();
    assert!(seen.lock().unwrap().len() <= 2, "{:?}", seen.lock().unwrap());
    assert_eq!(many, sw.run(None, 1, &|| {}).unwrap());
}
