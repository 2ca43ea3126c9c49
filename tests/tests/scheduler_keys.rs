//! Issue #18 point 1 (schedkeys): the engines' scheduler settings as scenario keys — each reaches the
//! serving loop's plan and changes what it should (sim/src/scenario/scheduler.rs, serve/mod.rs `plan`).
//! Scenarios: Llama-3.1-8B on 1× H100 SXM (80 GiB: SGLang 0.5.9 `_handle_gpu_memory_settings` gives
//! chunked_prefill_size 8192 for 80 GiB cards), page_size 1 (SGLang's default).

use tpsim::decode::{Prediction, plan_memory, predict};
use tpsim::scenario::{Scenario, load_str};
use tpsim::serve::{self, EnginePlan};

fn scn(engine: &str, workload: &str) -> Scenario {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
         [engine]\ntp = 1\n{engine}\n[workload]\n{workload}\n"
    );
    load_str(&text, std::path::Path::new("scheduler_keys.toml")).unwrap()
}

fn run(engine: &str, workload: &str) -> Prediction {
    predict(&scn(engine, workload)).unwrap()
}

fn sglang_settings(engine: &str) -> serve::sglang::Settings {
    let s = scn(engine, "concurrency = 1\nprompt_len = 16\noutput_len = 4");
    match serve::plan(&s, &plan_memory(&s), false).engine {
        EnginePlan::Sglang(set) => set,
        EnginePlan::Vllm(_) => panic!("expected SGLang"),
    }
}

#[test]
fn sglang_keys_reach_the_plan() {
    // Defaults: chunk 8192 (80 GiB card), max_prefill_tokens 16384, conservativeness 1.0.
    let d = sglang_settings("");
    assert_eq!(
        (d.chunked_prefill_size, d.max_prefill_tokens, d.conservativeness),
        (Some(8192), 16384, 1.0)
    );
    let s = sglang_settings(
        "chunked_prefill_size = 512\nmax_prefill_tokens = 3000\nschedule_conservativeness = 2.5",
    );
    assert_eq!(
        (s.chunked_prefill_size, s.max_prefill_tokens, s.conservativeness),
        (Some(512), 3000, 2.5)
    );
    // -1: chunking off (SGLang scheduler.py: size <= 0 → None).
    assert_eq!(
        sglang_settings("chunked_prefill_size = -1").chunked_prefill_size,
        None
    );
}

#[test]
fn chunked_prefill_size_splits_a_long_prompt() {
    // One request, prompt 2048, output 1 (the prefill's token ends it). chunk 512: the adder truncates
    // the prompt to 512 and keeps it as the chunked request; 2048 / 512 = 4 prefill iterations, and
    // the first token comes at the end of the 4th, so TTFT = the prefill time of the 4 chunks plus
    // SGLang's request path before the scheduler's queue (sglfront60: 9.54 − 2 × 2.94 = 3.66 ms).
    let w = "concurrency = 1\nprompt_len = 2048\noutput_len = 1";
    let p = run("chunked_prefill_size = 512", w).main;
    assert_eq!(p.prefill_iterations, 4);
    assert_eq!(p.finished, 1);
    // Both are integer picoseconds; 1e-9 ms allows only the f64 conversion.
    let path_ms = tpsim::serve::sglang_front::request_path().as_ms_f64();
    assert!((path_ms - 3.66).abs() < 1e-9, "{path_ms}");
    assert!((p.ttft.mean_ms() - p.prefill_time.as_ms_f64() - path_ms).abs() < 1e-9);
    // Default chunk 8192 ≥ 2048: one prefill iteration, and a shorter TTFT than four chunks.
    let d = run("", w).main;
    assert_eq!(d.prefill_iterations, 1);
    assert!(
        d.ttft.mean_ms() < p.ttft.mean_ms(),
        "{} vs {}",
        d.ttft.mean_ms(),
        p.ttft.mean_ms()
    );
    // Prompt 10,000 > 8192: two chunks by default (8192 + 1808); -1 (off) prefills it in one.
    let w = "concurrency = 1\nprompt_len = 10000\noutput_len = 1";
    assert_eq!(run("", w).main.prefill_iterations, 2);
    assert_eq!(run("chunked_prefill_size = -1", w).main.prefill_iterations, 1);
}

#[test]
fn max_prefill_tokens_bounds_a_prefill_batch() {
    // 4 requests of prompt 1000, output 1, all waiting at once. PrefillAdder.add_one_req refuses a
    // request whose input ≥ rem_input_tokens unless the batch is empty:
    // - 2001: r1 → rem 1001; r2 1000 < 1001 → rem 1; r3 1000 ≥ 1 → stop: 2 per batch, 2 prefills.
    // - 2000: r1 → rem 1000; r2 1000 ≥ 1000 → stop: 1 per batch, 4 prefills.
    // - default 16384 (chunk 8192 ≥ 4000): all 4 in one prefill.
    let w = "concurrency = 4\nnum_requests = 4\nprompt_len = 1000\noutput_len = 1";
    assert_eq!(run("max_prefill_tokens = 2001", w).main.prefill_iterations, 2);
    assert_eq!(run("max_prefill_tokens = 2000", w).main.prefill_iterations, 4);
    assert_eq!(run("", w).main.prefill_iterations, 1);
}

/// One group of 4 prompts: system prompt 1000 + question 24, output 1, one at a time (concurrency 1).
const GSP: &str = "concurrency = 1\n[workload.shared_prefix]\nnum_groups = 1\nprompts_per_group = 4\n\
                   system_prompt_len = 1000\nquestion_len = 24\noutput_len = 1";
/// The same request alone.
const ONE: &str = "concurrency = 1\n[workload.shared_prefix]\nnum_groups = 1\nprompts_per_group = 1\n\
                   system_prompt_len = 1000\nquestion_len = 24\noutput_len = 1";

#[test]
fn disable_radix_cache_prefills_the_shared_prefix_every_time() {
    // Without the cache each of the 4 requests prefills all 1024 tokens on an idle engine: exactly 4 ×
    // the prefill time of one (integer time).
    let one = run("", ONE).main.prefill_time;
    let off = run("disable_radix_cache = true", GSP).main;
    assert_eq!(off.finished, 4);
    assert_eq!(off.prefill_time, one.times(4));
    // With the cache requests 2–4 reuse the 1000-token prefix and prefill 24 tokens: less time.
    let on = run("", GSP).main.prefill_time;
    assert!(on < one.times(4), "{on:?} vs {:?}", one.times(4));
}

#[test]
fn vllm_no_prefix_caching_prefills_the_shared_prefix_every_time() {
    // vLLM: one request at a time, each of output 1 (its prefill step ends it): without caching the run
    // is 4 identical 1024-token prefill steps back to back, exactly 4 × the makespan of one.
    let one = run("name = \"vllm\"", ONE).main.makespan;
    let off = run("name = \"vllm\"\nenable_prefix_caching = false", GSP).main;
    assert_eq!(off.finished, 4);
    assert_eq!(off.makespan, one.times(4));
    // Caching on (vLLM's default, and stated true): requests 2–4 compute only their 24-token questions
    // (vLLM caches whole 16-token blocks: 62 blocks = 992 tokens hit).
    let on = run("name = \"vllm\"\nenable_prefix_caching = true", GSP)
        .main
        .makespan;
    assert_eq!(on, run("name = \"vllm\"", GSP).main.makespan);
    assert!(on < one.times(4), "{on:?} vs {:?}", one.times(4));
}

#[test]
fn sglang_keys_are_refused_under_vllm() {
    for key in [
        "chunked_prefill_size = 512",
        "max_prefill_tokens = 4096",
        "schedule_conservativeness = 0.5",
        "disable_radix_cache = true",
        "schedule_policy = \"fcfs\"",
        "enable_mixed_chunk = true",
    ] {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\nname = \"vllm\"\ntp = 1\n{key}\n[workload]\nconcurrency = 1\nprompt_len = 16\noutput_len = 4\n"
        );
        let e = load_str(&text, std::path::Path::new("v.toml"))
            .unwrap_err()
            .to_string();
        let name = key.split(' ').next().unwrap();
        assert!(
            e.contains(&format!("engine.{name}"))
                && (e.contains("an SGLang setting") || e.contains("an SGLang flag")),
            "{e}"
        );
    }
}

#[test]
fn mixed_chunk_runs_prefills_with_the_running_decodes() {
    // Concurrency 2, 4 requests of prompt 100, output 10 (the prefill gives token 1), and
    // max_prefill_tokens 100 so that a prefill batch holds one request (the 2nd's input 100 ≥ the
    // 0 tokens left; with mixing the first request of a batch passes at any budget, count 0).
    // Separate (default): P(r1) P(r2) 9×D (both reach 10 together) P(r3) P(r4) 9×D: 4 prefill-only
    // and 18 decode iterations, 22 in all.
    // Mixed: P(r1), M(r2 + r1's decode), 8×D (r1 ends at 10, r2 at 9), M(r3 + r2: r2 ends),
    // M(r4 + r3), 8×D (r3 ends, r4 at 9), D: 1 prefill-only and 20 decoding iterations, 21 in all.
    // sglttft59: SGLang's overlap loop chooses a step before the last one's finishes are known, so
    // r3, sent when r1 ends, is seen one step later (after r2's last decode): P(r1), M(r2 + r1),
    // 8×D, D (r2 ends), P(r3), M(r4 + r3), 8×D, D: 2 prefill-only and 20 decoding iterations.
    let w = "concurrency = 2\nnum_requests = 4\nprompt_len = 100\noutput_len = 10";
    let sep = run("max_prefill_tokens = 100", w).main;
    assert_eq!((sep.prefill_iterations, sep.iterations), (4, 18));
    let mix = run("max_prefill_tokens = 100\nenable_mixed_chunk = true", w).main;
    assert_eq!((mix.prefill_iterations, mix.iterations), (2, 20));
    assert_eq!((sep.finished, mix.finished), (4, 4));
    assert_eq!((sep.output_tokens, mix.output_tokens), (40, 40));
    // SGLang mixes only with chunked prefill on (scheduler.py `is_mixed_chunk`): with -1, as separate.
    let off = run(
        "max_prefill_tokens = 100\nenable_mixed_chunk = true\nchunked_prefill_size = -1",
        w,
    )
    .main;
    assert_eq!((off.prefill_iterations, off.iterations), (4, 18));
}

#[test]
fn vllm_long_prefill_token_threshold_caps_a_step() {
    // vLLM V1 `Scheduler.schedule`: 0 < threshold < new tokens → the step computes threshold tokens.
    // Prompt 2048, output 1, threshold 512: 2048 / 512 = 4 prefill steps (nothing decodes beside
    // them); without it the default token budget (≥ 2048 on an H100) takes the prompt in one step.
    let w = "concurrency = 1\nprompt_len = 2048\noutput_len = 1";
    let p = run("name = \"vllm\"\nlong_prefill_token_threshold = 512", w).main;
    assert_eq!((p.prefill_iterations, p.finished), (4, 1));
    assert_eq!(run("name = \"vllm\"", w).main.prefill_iterations, 1);
    // A threshold at or above the prompt changes nothing (0 < t < n only).
    assert_eq!(
        run("name = \"vllm\"\nlong_prefill_token_threshold = 2048", w)
            .main
            .prefill_iterations,
        1
    );
}

#[test]
fn vllm_enable_chunked_prefill_false_is_overridden_with_a_warning() {
    // vLLM 0.11.0 `_set_default_args` sets it true for generating models: the run is as with true.
    let w = "concurrency = 1\nprompt_len = 2048\noutput_len = 4";
    let s = scn("name = \"vllm\"\nenable_chunked_prefill = false", w);
    assert!(
        s.warnings
            .iter()
            .any(|x| x.contains("enable_chunked_prefill") && x.contains("_set_default_args")),
        "{:?}",
        s.warnings
    );
    let on = scn("name = \"vllm\"\nenable_chunked_prefill = true", w);
    assert!(!on.warnings.iter().any(|x| x.contains("enable_chunked_prefill")));
    assert_eq!(
        predict(&s).unwrap().main.makespan,
        predict(&on).unwrap().main.makespan
    );
}

#[test]
fn vllm_keys_are_refused_under_sglang() {
    for key in [
        "enable_chunked_prefill = true",
        "long_prefill_token_threshold = 512",
    ] {
        let text = format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\ntp = 1\n{key}\n[workload]\nconcurrency = 1\nprompt_len = 16\noutput_len = 4\n"
        );
        let e = load_str(&text, std::path::Path::new("s.toml"))
            .unwrap_err()
            .to_string();
        let name = key.split(' ').next().unwrap();
        assert!(
            e.contains(&format!("engine.{name}")) && e.contains("a vLLM setting"),
            "{e}"
        );
    }
}

#[test]
fn mixed_chunk_is_turned_off_with_eagle_as_sglang_does() {
    // SGLang 0.5.9 `_handle_speculative_decoding`: "Mixed chunked prefill is disabled because of using
    // eagle speculative decoding." — the scenario carries the warning and the plan does not mix.
    let text = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../scenarios/examples/llama-3.1-8b-eagle3-h200-bs1.toml"
    ))
    .unwrap()
    .replace(
        "mem_fraction_static = 0.88",
        "mem_fraction_static = 0.88\nenable_mixed_chunk = true",
    );
    let s = load_str(&text, std::path::Path::new("eagle.toml")).unwrap();
    assert!(
        s.warnings
            .iter()
            .any(|w| w
                .contains("Mixed chunked prefill is disabled because of using eagle speculative decoding")),
        "{:?}",
        s.warnings
    );
    assert!(!s.engine.scheduler.mixed_chunk);
    // Without speculation the same key stays on.
    let plain = scn(
        "enable_mixed_chunk = true",
        "concurrency = 1\nprompt_len = 16\noutput_len = 4",
    );
    assert!(plain.engine.scheduler.mixed_chunk);
}

#[test]
fn schedule_policy_reaches_the_plan() {
    use tpsim::scenario::scheduler::SchedulePolicy;
    assert_eq!(sglang_settings("").policy, SchedulePolicy::Fcfs);
    assert_eq!(
        sglang_settings("schedule_policy = \"lpm\"").policy,
        SchedulePolicy::Lpm
    );
    assert_eq!(
        sglang_settings("schedule_policy = \"lof\"").policy,
        SchedulePolicy::Lof
    );
    // SGLang 0.5.9 `_validate_and_adjust_policy`: lpm without a radix cache is fcfs; tpsim warns.
    let s = scn(
        "schedule_policy = \"lpm\"\ndisable_radix_cache = true",
        "concurrency = 1\nprompt_len = 16\noutput_len = 4",
    );
    assert_eq!(s.engine.scheduler.policy, SchedulePolicy::Fcfs);
    assert!(
        s.warnings
            .iter()
            .any(|w| w.contains("schedule_policy") && w.contains("fcfs")),
        "{:?}",
        s.warnings
    );
}

#[test]
fn the_chunk_size_sets_sglangs_default_fraction() {
    // SGLang 0.5.9 server_args.py `_handle_gpu_memory_settings` (same rule in 0.5.23's memory_hook.py):
    // reserved MiB = 512 + 1.5 × max(chunk, 2048) + 2 × cuda_graph_max_bs + tp/8 × 1024, at least
    // 10,240 on cards over 60 GiB; f = round((gpu − reserved) / gpu, 3). H100 SXM: gpu 81,559 MiB,
    // cuda_graph_max_bs 256 (tp < 4).
    // Default chunk 8192: 512 + 12,288 + 512 + 128 = 13,440 → 68,119 / 81,559 = 0.83521 → 0.835.
    // chunk 16384: 512 + 24,576 + 512 + 128 = 25,728 → 55,831 / 81,559 = 0.68455 → 0.685.
    // chunk 512: max(512, 2048) → 4,224 → the 10,240 floor → 71,319 / 81,559 = 0.87445 → 0.874.
    // chunk −1 (off) with max_prefill_tokens 4096: 512 + 6,144 + 640 = 7,296 → floor → 0.874.
    let w = "concurrency = 1\nprompt_len = 16\noutput_len = 4";
    // Rounded to 3 decimals by the rule: equal within 1e-12.
    let f = |engine: &str, want: f64| {
        let got = scn(engine, w).engine.mem_fraction_static;
        assert!((got - want).abs() < 1e-12, "{engine}: {got} vs {want}");
    };
    f("", 0.835);
    f("chunked_prefill_size = 16384", 0.685);
    f("chunked_prefill_size = 512", 0.874);
    f("chunked_prefill_size = -1\nmax_prefill_tokens = 4096", 0.874);
    // A fraction the user gives is not touched.
    f("chunked_prefill_size = 16384\nmem_fraction_static = 0.8", 0.8);
}
