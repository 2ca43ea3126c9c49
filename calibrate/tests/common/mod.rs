//! Helpers for the calibrate tests: run `tpsim-calibrate` and `tpsim` in-process, locate fixtures,
//! write scratch files.
#![allow(dead_code)]

use std::ffi::OsString;
use std::path::PathBuf;

/// Exit code, stdout and stderr of one invocation.
pub struct Out {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

fn run(
    main: fn(&[OsString], &mut dyn std::io::Write, &mut dyn std::io::Write) -> i32,
    name: &str,
    args: &[&str],
) -> Out {
    let mut argv: Vec<OsString> = vec![name.into()];
    argv.extend(args.iter().map(OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = main(&argv, &mut out, &mut err);
    Out {
        code,
        stdout: String::from_utf8_lossy(&out).into_owned(),
        stderr: String::from_utf8_lossy(&err).into_owned(),
    }
}

/// `tpsim-calibrate ARGS…` through the binary's entry point.
pub fn calibrate(args: &[&str]) -> Out {
    run(tpsim_calibrate::cli::main_with_args, "tpsim-calibrate", args)
}

/// `tpsim ARGS…` through the binary's entry point.
pub fn tpsim(args: &[&str]) -> Out {
    run(tpsim_cli::main_with_args, "tpsim", args)
}

/// A fixture under `calibrate/tests/fixtures/`.
pub fn fixture(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
        .display()
        .to_string()
}

/// A file under the repository's `scenarios/`.
pub fn scenario(rel: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../scenarios")
        .join(rel)
        .display()
        .to_string()
}

/// A measured table under the repository's `tests/data/`.
pub fn data(name: &str) -> String {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/data")
        .join(name)
        .display()
        .to_string()
}

/// Where the tests write their scratch files: cargo's per-target `CARGO_TARGET_TMPDIR`
/// (`target/tmp`), not the system's `/tmp`; names carry no process id, so a rerun reuses its
/// folders instead of leaving one more set behind, and `cargo clean` removes them.
pub fn tmp_root() -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
}

/// A fresh scratch directory for one test, under [`tmp_root`].
///
/// Every module of the integration test binary runs in one process: the calling file's name keeps
/// their folders apart (`#[track_caller]`).
#[track_caller]
pub fn scratch(test: &str) -> PathBuf {
    let file = std::path::Path::new(std::panic::Location::caller().file());
    let module = file
        .file_stem()
        .map_or_else(String::new, |s| s.to_string_lossy().into_owned());
    let d = tmp_root().join(format!("tpsim-calibrate-{module}-{test}"));
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).expect("scratch dir");
    d
}

/// Writes `text` to `dir/name` and returns the path.
pub fn write(dir: &std::path::Path, name: &str, text: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, text).expect("write scratch file");
    p.display().to_string()
}

/// `ingest FILES… [extra]` that must succeed; the parsed JSON and stderr.
pub fn ingest_ok(args: &[&str]) -> (serde_json::Value, String) {
    let mut a = vec!["ingest"];
    a.extend_from_slice(args);
    let o = calibrate(&a);
    assert_eq!(o.code, 0, "ingest {args:?}: {}", o.stderr);
    (serde_json::from_str(&o.stdout).expect("valid JSON"), o.stderr)
}

/// A JSON number as f64 (panics otherwise).
pub fn f(v: &serde_json::Value) -> f64 {
    v.as_f64().unwrap_or_else(|| panic!("not a number: {v}"))
}

#[path = "../../../tests/tests/common/shared.rs"]
mod shared;
pub use shared::*;

/// The ingest fixtures under tests/fixtures the garbage suites feed to `tpsim-calibrate` (logs,
/// nccl-tests tables, bench JSON).
pub const INGEST_FIXTURES: [&str; 11] = [
    "nccl-tests-allreduce-4x-turin.txt",
    "nccl-tests-partial.txt",
    "run-engine-seed-bench.jsonl",
    "sglang-bench-one-batch.jsonl",
    "sglang-bench-serving.jsonl",
    "sglang-decode-llama-8b-h100.log",
    "sglang-partial.log",
    "sglang-qwq32b-l4-tp4.log",
    "sglang-seed-kimi-tp8.log",
    "vllm-codellama-7b-h100.log",
    "vllm-llama-3.1-8b-h100-fp8.log",
];

/// The text of a caught panic's payload (a `String` or a `&str`; empty otherwise).
pub fn panic_message(p: &(dyn std::any::Any + Send)) -> String {
    p.downcast_ref::<String>()
        .cloned()
        .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
        .unwrap_or_default()
}
