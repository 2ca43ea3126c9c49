//! `tpsim-calibrate run-engine` (issue #17 point 6) with a fake engine: a shell script standing in for
//! SGLang's Python that prints a recorded start-up log (`fixtures/sglang-seed-kimi-tp8.log`, numbers
//! from the seed story) followed by SGLang's readiness line, and whose `bench_serving` copies a canned
//! result (`fixtures/run-engine-seed-bench.jsonl`). No network, no GPU.

use crate::common::{calibrate, fixture, scenario, scratch, write};
use std::path::Path;

/// The fake interpreter: `-c` (the import probe) succeeds; `-m sglang.launch_server` prints `log`
/// (then the readiness line unless `ready` is false), records its pid and waits; `-m
/// sglang.bench_serving` copies `result` to its `--output-file`. Every call is appended to CALLS.
fn fake_python(dir: &Path, log: &str, ready: bool, result: &str) -> String {
    let d = dir.display();
    let start = if ready {
        format!(
            "cat '{log}'; echo '[2026-03-14 09:22:12] The server is fired up and ready to roll!'; echo $$ > '{d}/PID'; exec sleep 600"
        )
    } else {
        format!("cat '{log}'; exit 1")
    };
    let script = format!(
        "#!/bin/sh\necho \"$*\" >> '{d}/CALLS'\ncase \"$1\" in\n  -c) exit 0 ;;\n  -m) case \"$2\" in\n    sglang.launch_server) {start} ;;\n    sglang.bench_serving) while [ $# -gt 0 ]; do if [ \"$1\" = --output-file ]; then cp '{result}' \"$2\"; fi; shift; done; exit 0 ;;\n  esac ;;\nesac\nexit 9\n"
    );
    let p = write(dir, "fake-python", &script);
    let st = std::process::Command::new("chmod")
        .args(["+x", &p])
        .status()
        .expect("chmod");
    assert!(st.success());
    p
}

#[test]
fn runs_the_fake_engine_ingests_and_checks() {
    let dir = scratch("e2e");
    let py = fake_python(
        &dir,
        &fixture("sglang-seed-kimi-tp8.log"),
        true,
        &fixture("run-engine-seed-bench.jsonl"),
    );
    let out = dir.join("out");
    let o = calibrate(&[
        "run-engine",
        &scenario("seed/baseline.toml"),
        "--python",
        &py,
        "--out",
        &out.display().to_string(),
        "--startup-timeout",
        "60",
    ]);
    assert_eq!(o.code, 0, "stdout {}\nstderr {}", o.stdout, o.stderr);
    // The check table: the log's KV tokens (159,294, seed story) against the prediction (the same:
    // ⌊(21.71 − 94.04 × 0.12) × 2³⁰⌋ // 70,272), the decode line and the benchmark result (76 tok/s).
    let kv = o
        .stdout
        .lines()
        .find(|l| l.contains("KV tokens"))
        .expect("KV row");
    assert!(kv.contains("159294         159294    +0.0%"), "{kv}");
    let tput: Vec<&str> = o
        .stdout
        .lines()
        .filter(|l| l.contains("tok/s at batch 1"))
        .collect();
    assert_eq!(tput.len(), 2, "{}", o.stdout);
    assert!(tput.iter().all(|l| l.contains("76.00 tok/s")), "{tput:?}");
    // The commands the engine got: the engine-args command plus host/port; the benchmark with the
    // seed's workload (1 request of 1024 + 1024 tokens, concurrency 1).
    let calls = std::fs::read_to_string(dir.join("CALLS")).expect("calls");
    let lines: Vec<&str> = calls.lines().collect();
    assert_eq!(lines[0], "-c import sglang");
    assert!(
        lines[1].starts_with(
            "-m sglang.launch_server --model-path moonshotai/Kimi-K2.5 --tp-size 8 --trust-remote-code \
             --mem-fraction-static 0.88"
        ),
        "{}",
        lines[1]
    );
    assert!(
        lines[1].ends_with("--host 127.0.0.1 --port 30000"),
        "{}",
        lines[1]
    );
    assert!(lines[2].starts_with("-m sglang.bench_serving --backend sglang --host 127.0.0.1 --port 30000 --dataset-name random --random-input-len 1024 --random-output-len 1024 --random-range-ratio 1 --num-prompts 1 --max-concurrency 1 --output-file "), "{}", lines[2]);
    // Captured files.
    let log = std::fs::read_to_string(out.join("server.log")).expect("server.log");
    assert!(log.contains("KV Cache is allocated. #tokens: 159294") && log.contains("ready to roll"));
    assert!(out.join("bench.jsonl").exists() && out.join("server.measurements.json").exists());
    assert!(out.join("bench.measurements.json").exists());
    // The server it started (by its pid) was stopped.
    let pid = std::fs::read_to_string(dir.join("PID")).expect("pid");
    let alive = std::process::Command::new("kill")
        .args(["-0", pid.trim()])
        .stderr(std::process::Stdio::null())
        .status()
        .expect("kill -0");
    assert!(!alive.success(), "the fake server {pid} still runs");
}

#[test]
fn a_server_that_dies_at_start_up_fails_with_its_log() {
    let dir = scratch("dies");
    let py = fake_python(
        &dir,
        &fixture("sglang-partial.log"),
        false,
        &fixture("run-engine-seed-bench.jsonl"),
    );
    let o = calibrate(&[
        "run-engine",
        &scenario("seed/low-fraction.toml"),
        "--python",
        &py,
        "--out",
        &dir.join("out").display().to_string(),
    ]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr.contains("the server exited before it was ready"),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("Not enough memory"), "{}", o.stderr);
    // No benchmark ran.
    let calls = std::fs::read_to_string(dir.join("CALLS")).expect("calls");
    assert!(!calls.contains("bench_serving"), "{calls}");
}

#[test]
fn without_the_engine_exit_2() {
    let o = calibrate(&[
        "run-engine",
        &scenario("seed/baseline.toml"),
        "--python",
        "/nonexistent/python3",
    ]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("SGLang is not installed here"), "{}", o.stderr);
    let o = calibrate(&[
        "run-engine",
        &scenario("examples/gpt-oss-120b-rtx6000x2.toml"),
        "--vllm",
        "/nonexistent/vllm",
    ]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("vLLM is not installed here"), "{}", o.stderr);
}

/// Lengths drawn from a range: SGLang's bench takes [ratio × len, len] → len 1536 / 768, ratio
/// 512 / 1536 = 256 / 768 = 0.3333; vLLM's [len × (1 − r), len × (1 + r)] → len (512 + 1536) / 2 =
/// 1024 and (256 + 768) / 2 = 512, r = 1024 / 2048 = 512 / 1024 = 0.5.
#[test]
fn dry_run_maps_length_ranges_per_engine() {
    let dir = scratch("dry");
    let body = "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[workload]\nconcurrency = 4\nnum_requests = 32\nprompt_len = { min = 512, max = 1536 }\noutput_len = { min = 256, max = 768 }\n";
    let sg = write(&dir, "sg.toml", &format!("{body}[engine]\ntp = 1\n"));
    let vl = write(
        &dir,
        "vl.toml",
        &format!("{body}[engine]\nname = \"vllm\"\ntp = 1\n"),
    );
    let args = |f: &str| {
        let o = calibrate(&["run-engine", f, "--dry-run", "--out", "runs/x"]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
        j["bench"]
            .as_array()
            .expect("bench")
            .iter()
            .map(|v| v.as_str().unwrap().to_string())
            .collect::<Vec<_>>()
            .join(" ")
    };
    let b = args(&sg);
    assert!(b.contains("--random-input-len 1536 --random-output-len 768 --random-range-ratio 0.3333 --num-prompts 32 --max-concurrency 4"), "{b}");
    let b = args(&vl);
    assert!(
        b.starts_with("vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct"),
        "{b}"
    );
    assert!(b.contains("--random-input-len 1024 --random-output-len 512 --random-range-ratio 0.5 --num-prompts 32 --max-concurrency 4"), "{b}");
    assert!(
        b.ends_with("--result-dir runs/x --result-filename bench.json --ignore-eos --save-result"),
        "{b}"
    );
    // Issue #17 (trustcode): a server started with --trust-remote-code gets a benchmark that loads
    // the tokenizer with it too (`vllm bench serve … --trust-remote-code`, vllm-project/recipes
    // NVIDIA/Nemotron-3-Nano-30B-A3B.md); the llama command above has neither.
    let vt = write(
        &dir,
        "vt.toml",
        &format!("{body}[engine]\nname = \"vllm\"\ntp = 1\ntrust_remote_code = true\n"),
    );
    let b = args(&vt);
    assert!(
        b.ends_with("--ignore-eos --save-result --trust-remote-code"),
        "{b}"
    );
}
