//! Garbage in, the command line's own inputs (DESIGN.md §2.5): `tpsim sweep --set KEY=V` /
//! `--unset KEY`, `tpsim capacity --slo …`, and a few bad scenarios through the real binary
//! (`tpsim-under-test`, the same `main` built in this crate) for its exit status. Pass: exit 2 with
//! `error: …` naming the key or argument, or exit 0 with no NaN/inf printed; never a panic.
//! Every case is listed (no sampling); the sweeps run over the one-GPU Llama-3.1-8B example with
//! two requests of 16 output tokens, so the file runs in a few seconds.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::common::*;

/// A cheap scenario for the argument cases: one H100, two requests, 16 output tokens.
fn small(dir: &std::path::Path) -> String {
    let text = std::fs::read_to_string(scenario("examples/llama-3.1-8b-h100.toml"))
        .expect("example")
        .replace("output_len = 512", "output_len = 16")
        .replace("concurrency = 1", "concurrency = 1\nnum_requests = 2");
    let f = dir.join("small.toml");
    std::fs::write(&f, text).expect("write");
    f.display().to_string()
}

/// `tpsim ARGS` under `catch_unwind`: Err names what went wrong. With exit 2, stderr must start
/// with `error: ` and contain `named`.
fn guarded(args: &[&str], named: &str) -> Result<i32, String> {
    let o = catch_unwind(AssertUnwindSafe(|| tpsim(args))).map_err(|p| {
        let m = p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| (*s).to_string()))
            .unwrap_or_default();
        format!("{args:?}: panic: {m}")
    })?;
    let non_finite = o
        .stdout
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| w == "NaN" || w == "inf" || w == "Infinity");
    match o.code {
        0 if non_finite => Err(format!("{args:?}: printed a NaN/inf:\n{}", o.stdout)),
        0 => Ok(0),
        2 if o.stderr.starts_with("error: ") && o.stderr.contains(named) => Ok(2),
        c => Err(format!(
            "{args:?}: exit {c}, expected `{named}` named: {}",
            o.stderr
        )),
    }
}

/// Bad `--set` / `--unset` arguments: each is refused naming the argument, or runs.
#[test]
fn sweep_set_and_unset_garbage() {
    let dir = scratch("sweep");
    let s = small(&dir);
    // (the --set argument, what an exit-2 message must contain)
    let sets: &[(&str, &str)] = &[
        ("", "--set"),
        ("=", "--set"),
        ("engine.tp", "engine.tp"),
        ("engine.tp=", "engine.tp"),
        ("engine.tp=1:8:0", "engine.tp"),
        ("engine.tp=8:1:1", "engine.tp"),
        ("engine.tp=1:8:-1", "engine.tp"),
        ("engine.tp=1:1000000000:1", "--set"),
        ("engine.tp=nan", "engine.tp"),
        ("engine.mem_fraction_static=nan", "engine.mem_fraction_static"),
        ("engine.mem_fraction_static=inf", "engine.mem_fraction_static"),
        ("engine.mem_fraction_static=1e400", "engine.mem_fraction_static"),
        ("engine.mem_fraction_static=-0", "engine.mem_fraction_static"),
        (
            "engine.mem_fraction_static=0.5:0.9:nan",
            "engine.mem_fraction_static",
        ),
        (
            "engine.mem_fraction_static=0.5:0.9:1e-300",
            "engine.mem_fraction_static",
        ),
        (
            "engine.mem_fraction_static=0.5:inf:0.1",
            "engine.mem_fraction_static",
        ),
        ("workload.concurrency=1000000000", "workload.concurrency"),
        ("workload.num_requests=1000000000000", "workload.num_requests"),
        ("workload.output_len=4294967297", "workload.output_len"),
        ("nosuch.key=1", "nosuch"),
        ("engine=1", "engine"),
        ("engine..tp=1", "engine..tp"),
        ("seed=-1", "seed"),
        ("seed=18446744073709551616", "seed"),
        ("engine.allreduce=,,,", "engine.allreduce"),
        ("engine.allreduce=\u{0}", "engine.allreduce"),
    ];
    let mut bad = Vec::new();
    for (set, named) in sets {
        if let Err(e) = guarded(&["sweep", &s, "--quiet", "--threads", "1", "--set", set], named) {
            bad.push(e);
        }
    }
    for unset in [
        "",
        "engine",
        "engine.tp",
        "workload",
        "hardware.preset",
        "no.such.key",
        ".",
    ] {
        let args = [
            "sweep",
            &s,
            "--quiet",
            "--threads",
            "1",
            "--unset",
            unset,
            "--set",
            "seed=1",
        ];
        // Without its preset the hardware section misses its GPU: that key is named.
        let named = match unset {
            "" => "--unset",
            "hardware.preset" => "key `hardware.gpu",
            k => k,
        };
        if let Err(e) = guarded(&args, named) {
            bad.push(e);
        }
    }
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}

/// Bad `--slo` lists (and `--over`): refused naming the item, or a bounded search.
#[test]
fn capacity_slo_garbage() {
    let dir = scratch("capacity");
    let s = small(&dir);
    let slos: &[(&str, &str)] = &[
        ("", "--slo"),
        (",", "--slo"),
        ("ttft_p99", "ttft_p99"),
        ("ttft_p99=", "ttft_p99"),
        ("ttft_p99=nan", "nan"),
        ("ttft_p99=inf", "inf"),
        ("ttft_p99=1e400", "1e400"),
        ("ttft_p99=-0", "-0"),
        ("ttft_p99=-5", "-5"),
        ("ttft_p0=100", "ttft_p0"),
        ("ttft_p101=100", "ttft_p101"),
        ("ttft_pnan=100", "ttft_pnan"),
        ("ttft_p1e-300=100", "ttft_p1e-300"),
        ("bogus_p99=100", "bogus_p99"),
        ("tpot=100", "tpot"),
        ("ttft_p99=1e-300", "--slo"),
        ("tpot_p50=1e300", "--slo"),
        ("tpot_p50=5,tpot_p50=6", "--slo"),
    ];
    let mut bad = Vec::new();
    for (slo, named) in slos {
        let arg = format!("--slo={slo}");
        if let Err(e) = guarded(&["capacity", &s, &arg], named) {
            bad.push(e);
        }
    }
    for over in ["", "rate", "RATE", "x"] {
        let arg = format!("--over={over}");
        if let Err(e) = guarded(&["capacity", &s, "--slo", "tpot_p99=50", &arg], "--over") {
            bad.push(e);
        }
    }
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}

/// Through the real binary: a bad scenario exits 2 with the key on stderr, not 101 (a panic).
#[test]
fn the_binary_exits_2_naming_the_key() {
    let dir = scratch("binary");
    let bin = env!("CARGO_BIN_EXE_tpsim-under-test");
    let base = std::fs::read_to_string(scenario("seed/baseline.toml")).expect("baseline");
    let cases: &[(&str, &str, &str)] = &[
        (
            "mem_fraction_static = 0.88",
            "mem_fraction_static = 1.5",
            "engine.mem_fraction_static",
        ),
        ("tp = 8", "tp = 3", "engine.tp"),
        (
            "concurrency = 1",
            "concurrency = 1000000000",
            "workload.concurrency",
        ),
        (
            "output_len = 1024",
            "output_len = 4294967296",
            "workload.output_len",
        ),
        ("num_steps = 3", "num_steps = nan", "speculative.num_steps"),
        ("alpha = 0.82", "alpha = inf", "speculative.acceptance"),
        ("gpus = 8", "gpus = \"\"", "hardware.gpus"),
        (
            "page_size = 1",
            "page_size = 9223372036854775807",
            "engine.page_size",
        ),
    ];
    let mut bad = Vec::new();
    for (i, (from, to, key)) in cases.iter().enumerate() {
        assert!(base.contains(from), "baseline has `{from}`");
        let f = dir.join(format!("case{i}.toml"));
        std::fs::write(&f, base.replacen(from, to, 1)).expect("write");
        let o = std::process::Command::new(bin)
            .args(["run", &f.display().to_string()])
            .output()
            .expect("run tpsim-under-test");
        let stderr = String::from_utf8_lossy(&o.stderr);
        if o.status.code() != Some(2) || !stderr.contains(&format!("key `{key}")) {
            bad.push(format!(
                "{to}: exit {:?}, expected 2 naming `{key}`: {stderr}",
                o.status.code()
            ));
        }
    }
    assert!(bad.is_empty(), "{} failures:\n{}", bad.len(), bad.join("\n"));
}
