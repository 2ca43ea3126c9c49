//! Issue #18 (load): `tpsim-calibrate trace-from-bench` turns a bench_serving result into a trace
//! that a scenario replays.

use crate::common::*;
use std::ffi::OsString;

fn calibrate(args: &[&str]) -> (i32, String, String) {
    let mut argv: Vec<OsString> = vec!["tpsim-calibrate".into()];
    argv.extend(args.iter().map(OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = tpsim_calibrate::cli::main_with_args(&argv, &mut out, &mut err);
    (
        code,
        String::from_utf8_lossy(&out).into_owned(),
        String::from_utf8_lossy(&err).into_owned(),
    )
}

#[test]
fn converts_a_bench_serving_result_and_replays_it() {
    // A bench_serving `--output-details` line (sglang 0.5.9 writes input_lens / output_lens per
    // request); the failed third request (output 0) is left out.
    let d = scratch("convert");
    std::fs::write(
        d.join("bench.jsonl"),
        "{\"backend\": \"sglang\", \"max_concurrency\": 2, \"input_lens\": [100, 200, 300], \"output_lens\": [10, 20, 0]}\n",
    )
    .unwrap();
    let (code, out, err) = calibrate(&["trace-from-bench", d.join("bench.jsonl").to_str().unwrap()]);
    assert_eq!(code, 0, "{err}");
    assert_eq!(
        out,
        "{\"prompt\": 100, \"output\": 10}\n{\"prompt\": 200, \"output\": 20}\n"
    );
    assert!(err.contains("left out 1 request"), "{err}");
    std::fs::write(d.join("t.jsonl"), &out).unwrap();
    std::fs::write(
        d.join("s.toml"),
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\ntp = 1\n\
         mem_fraction_static = 0.88\n[workload]\nconcurrency = 2\ntrace = \"t.jsonl\"\n",
    )
    .unwrap();
    let s = tpsim::scenario::load(&d.join("s.toml")).unwrap();
    assert_eq!(s.workload.num_requests, 2);
    assert_eq!(
        (s.workload.prompt_len.min(), s.workload.prompt_len.max()),
        (100, 200)
    );
}

#[test]
fn bad_bench_results_exit_2() {
    let d = scratch("bad");
    for (name, text, what) in [
        (
            "no-details",
            "{\"backend\": \"sglang\"}\n",
            "no run with per-request `input_lens`",
        ),
        (
            "mismatch",
            "{\"input_lens\": [1, 2], \"output_lens\": [1]}\n",
            "2 input_lens but 1 output_lens",
        ),
        ("not-json", "{\"input_lens\": [1]}\nnope\n", ":2: not JSON"),
        (
            "two-runs",
            "{\"input_lens\": [1], \"output_lens\": [1]}\n{\"input_lens\": [1], \"output_lens\": [1]}\n",
            "pick one with --run 1..2",
        ),
        (
            "neg",
            "{\"input_lens\": [-1], \"output_lens\": [1]}\n",
            "is not a token count",
        ),
    ] {
        let p = d.join(format!("{name}.json"));
        std::fs::write(&p, text).unwrap();
        let (code, _, err) = calibrate(&["trace-from-bench", p.to_str().unwrap()]);
        assert_eq!(code, 2, "{name}: {err}");
        assert!(
            err.contains(&format!("{name}.json")) && err.contains(what),
            "{name}: {err}"
        );
    }
}
