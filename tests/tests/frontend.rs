//! Issue #18 (frontend): the API-server front end as a FIFO queue in front of the scheduler
//! (`tpsim::serve::frontend`). The queue cases drive `tpsim::serve` with fixed iteration costs
//! (prefill 20 ms, decode 10 ms, mixed 25 ms) and fixed front-end costs, so every TTFT is computed
//! by hand below; the scenario cases check the keys and their refusals.

use super::common::fixed_serve::{run, vllm_plan};
use tpsim::serve::{Plan, frontend};
use tpsim::workload::RequestSpec;
use tpsim_model::units::Duration;

fn load(text: &str) -> tpsim::scenario::Scenario {
    tpsim::scenario::load_str(text, std::path::Path::new("frontend.toml")).unwrap()
}

fn load_err(text: &str) -> String {
    tpsim::scenario::load_str(text, std::path::Path::new("frontend.toml"))
        .unwrap_err()
        .to_string()
}

const MS: u64 = 1_000_000_000;

/// vLLM's scheduler (token budget 8192, 256 sequences) with the front end `fe`.
fn plan(fe: Option<frontend::Costs>) -> Plan {
    Plan {
        frontend: fe,
        ..vllm_plan(100_000)
    }
}

/// 5 ms per request, 1 ms per output token, on `servers` API servers.
fn costs(servers: u32) -> frontend::Costs {
    frontend::Costs {
        servers,
        request_ps: 5 * MS,
        prompt_token_ps: 0,
        output_token_ps: MS,
    }
}

fn two() -> Vec<RequestSpec> {
    (0..2)
        .map(|_| RequestSpec {
            arrival: None,
            prompt: 16,
            output: 3,
            prefix: None,
        })
        .collect()
}

/// The percentile's bucket midpoint is within 1/1,024 of the sample (`serve::stats`).
fn near(got_ms: f64, want_ms: f64) {
    assert!(
        (got_ms - want_ms).abs() <= want_ms / 1024.0,
        "{got_ms} vs {want_ms}"
    );
}

#[test]
fn one_api_server_queues_the_second_request_and_its_first_chunk() {
    // Two requests (16 prompt, 3 output tokens) sent together at t = 0, one API server.
    // Without a front end both are prefilled in one step: TTFT 20, 20 ms.
    let m0 = run(&plan(None), two(), 2);
    near(m0.ttft.percentile_ms(0.0), 20.0);
    near(m0.ttft.percentile_ms(100.0), 20.0);
    assert_eq!(m0.frontend, frontend::Stats::default());
    // With it, by hand: inputs r0 0→5, r1 5→10 ms (FIFO). The engine is idle until 5 ms, prefills
    // r0 alone 5→25; its first token's chunk runs 25→26 (1 token): TTFT 26 ms. r1 entered the
    // queue at 10 ms and runs mixed with r0's decode 25→50; that step's chunk (2 tokens) 50→52:
    // TTFT 52 ms. Then decodes 50→60 (chunk 60→62) and 60→70 (r1's last, 70→71).
    let m = run(&plan(Some(costs(1))), two(), 2);
    near(m.ttft.percentile_ms(0.0), 26.0);
    near(m.ttft.percentile_ms(100.0), 52.0);
    assert!((m.ttft.mean_ms() - 39.0).abs() < 1e-9, "{}", m.ttft.mean_ms());
    assert_eq!(m.end, 70 * MS);
    assert_eq!(
        m.frontend,
        frontend::Stats {
            servers: 1,
            busy_ps: (5 + 5 + 1 + 2 + 2 + 1) * MS,
            requests: 2,
            input_wait_ps: 5 * MS,
            input_wait_max_ps: 5 * MS,
            to_engine_ps: (5 + 10) * MS,
            first_chunks: 2,
            first_chunk_delay_ps: (1 + 2) * MS,
        }
    );
}

#[test]
fn a_second_api_server_takes_the_queue_away() {
    // `api_server_count = 2`: r0 and r1 are processed in parallel 0→5 ms, prefilled together
    // 5→25, and each server sends one first chunk 25→26: TTFT 26, 26 ms.
    let m = run(&plan(Some(costs(2))), two(), 2);
    near(m.ttft.percentile_ms(0.0), 26.0);
    near(m.ttft.percentile_ms(100.0), 26.0);
    assert_eq!(m.frontend.input_wait_ps, 0);
    assert_eq!(m.frontend.servers, 2);
}

#[test]
fn a_request_sent_during_a_step_is_processed_before_that_steps_outputs() {
    // Open loop: r0 at 0, r1 at 22 ms, one server. r0: input 0→5, prefill 5→25, first chunk
    // 25→26 (TTFT 26). r1 was sent at 22, during the prefill: its input runs 22→27, before the
    // step's output chunk (submitted at 25), which then runs 27→28: r0's TTFT is 28 ms, not 26.
    // r1 enters the queue at 27; the step at 25 is r0's decode alone 25→35; r1 is prefilled with
    // r0's decode 35→60 (mixed), chunk 60→62: TTFT 62 − 22 = 40 ms.
    let reqs = vec![
        RequestSpec {
            arrival: Some(Duration::ZERO),
            prompt: 16,
            output: 3,
            prefix: None,
        },
        RequestSpec {
            arrival: Some(Duration::from_ms(22)),
            prompt: 16,
            output: 3,
            prefix: None,
        },
    ];
    let m = run(&plan(Some(costs(1))), reqs, 64);
    near(m.ttft.percentile_ms(0.0), 28.0);
    near(m.ttft.percentile_ms(100.0), 40.0);
    assert_eq!(m.frontend.input_wait_max_ps, 0);
    assert_eq!(m.frontend.first_chunk_delay_ps, (3 + 2) * MS);
}

const BASE: &str = r#"
[hardware]
preset = "rtx-4090-1x"
[model]
preset = "mistral-7b-v0.3"
[engine]
name = "vllm"
tp = 1
[workload]
prompt_len = 256
output_len = 32
num_requests = 8
concurrency = 4
"#;

#[test]
fn the_keys_resolve_and_sglang_refuses_them() {
    let s = load(&format!(
        "{}\n[engine.costs]\nfrontend_request_cost = \"3ms\"\n",
        BASE.replace("[workload]", "api_server_count = 2\n[workload]")
    ));
    assert_eq!(s.engine.frontend.api_server_count, 2);
    assert_eq!(s.engine.frontend.request_cost, Duration::from_ms(3));
    // The vLLM preset sets no front-end cost: off by default.
    let d = load(BASE);
    assert_eq!(d.engine.frontend.request_cost, Duration::ZERO);
    assert_eq!(d.engine.frontend.output_token_cost, Duration::ZERO);
    let e = load_err(
        &BASE
            .replace("\"vllm\"", "\"sglang\"")
            .replace("[workload]", "api_server_count = 2\n[workload]"),
    );
    assert!(
        e.contains("engine.api_server_count") && e.contains("a vLLM setting"),
        "{e}"
    );
    let e = load_err(&format!(
        "{}\n[engine.costs]\nfrontend_output_token_cost = \"50us\"\n",
        BASE.replace("\"vllm\"", "\"sglang\"")
    ));
    assert!(
        e.contains("engine.costs.frontend_output_token_cost") && e.contains("vLLM only"),
        "{e}"
    );
    let e = load_err(&BASE.replace("[workload]", "api_server_count = 0\n[workload]"));
    assert!(e.contains("engine.api_server_count"), "{e}");
}

/// Garbage in the front-end keys: an error naming the key, exit code 2, never a panic.
#[test]
fn bad_front_end_values_exit_2_naming_the_key() {
    let dir = super::common::scratch("frontend-bad");
    for (extra, key) in [
        (
            "[engine.costs]\nfrontend_request_cost = \"fast\"\n",
            "frontend_request_cost",
        ),
        (
            "[engine.costs]\nfrontend_output_token_cost = \"-3ms\"\n",
            "frontend_output_token_cost",
        ),
        (
            "[engine.costs]\nfrontend_prompt_token_cost = 5\n",
            "frontend_prompt_token_cost",
        ),
    ] {
        let f = dir.join(format!("{key}.toml"));
        std::fs::write(&f, format!("{BASE}\n{extra}")).unwrap();
        let out = super::common::tpsim(&["run", f.to_str().unwrap()]);
        assert_eq!(out.code, 2, "{key}: {}", out.stderr);
        assert!(out.stderr.contains(key), "{key}: {}", out.stderr);
    }
    let f = dir.join("count.toml");
    std::fs::write(
        &f,
        BASE.replace("[workload]", "api_server_count = \"two\"\n[workload]"),
    )
    .unwrap();
    let out = super::common::tpsim(&["run", f.to_str().unwrap()]);
    assert_eq!(out.code, 2, "{}", out.stderr);
    assert!(out.stderr.contains("api_server_count"), "{}", out.stderr);
}

/// `tpsim run` reports the front end in its Serving section and `serving.frontend` of `--json`,
/// and `tpsim sweep` in its `frontend_busy` column; without front-end costs neither appears.
#[test]
fn run_and_sweep_report_the_front_end() {
    use super::common::{run_json, scratch, tpsim};
    let d = scratch("frontend-cli");
    let on = d.join("on.toml");
    let off = d.join("off.toml");
    std::fs::write(
        &on,
        format!("{BASE}\n[engine.costs]\nfrontend_request_cost = \"2ms\"\nfrontend_output_token_cost = \"100us\"\n"),
    )
    .unwrap();
    std::fs::write(&off, BASE).unwrap();
    let (on, off) = (on.display().to_string(), off.display().to_string());
    let j = run_json(&on);
    let f = &j["serving"]["frontend"];
    assert_eq!(f["servers"], 1);
    // 8 requests: 8 × 2 ms of input work at least, so the input waits are positive (4 sent at once).
    let busy = f["busy_fraction"].as_f64().unwrap();
    assert!(busy > 0.0 && busy < 1.0, "{f}");
    assert!(f["input_wait_max_ms"].as_f64().unwrap() >= 6.0, "{f}");
    assert!(run_json(&off)["serving"].get("frontend").is_none());
    let out = tpsim(&["run", &on]);
    assert_eq!(out.code, 0, "{}", out.stderr);
    assert!(
        out.stdout.contains("front end (1 API server): busy "),
        "{}",
        out.stdout
    );
    let sw = tpsim(&["sweep", &on, "--set", "workload.concurrency=1,4", "-q"]);
    assert_eq!(sw.code, 0, "{}", sw.stderr);
    let lines: Vec<&str> = sw.stdout.lines().collect();
    let col = lines[0].split(',').position(|c| c == "frontend_busy").unwrap();
    for l in &lines[1..] {
        let v: f64 = l.split(',').nth(col).unwrap().parse().unwrap();
        assert!(v > 0.0 && v < 1.0, "{l}");
    }
}
