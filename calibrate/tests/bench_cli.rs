//! `tpsim-calibrate bench` on a machine without a usable GPU: it must say why and exit 1, never
//! panic, and leave no measurement file behind. Argument parsing is checked in-process.

use std::process::Command;

use clap::Parser;
use tpsim_calibrate::bench::cli::{BenchArgs, run};
use tpsim_calibrate::bench::plan::{Family, SizeRange};

#[derive(Debug, Parser)]
struct Wrap {
    #[command(flatten)]
    bench: BenchArgs,
}

fn parse(args: &[&str]) -> Result<BenchArgs, clap::Error> {
    Wrap::try_parse_from(std::iter::once("bench").chain(args.iter().copied())).map(|w| w.bench)
}

#[test]
fn arguments_build_the_plan() {
    let a = parse(&["--quick", "--only", "nccl,mem", "--sizes", "8K..1M"]).unwrap();
    let p = a.plan();
    assert_eq!(
        p.only.iter().copied().collect::<Vec<_>>(),
        vec![Family::Mem, Family::Nccl]
    );
    assert_eq!(
        p.sizes,
        SizeRange {
            lo: 8192,
            hi: 1 << 20
        }
    );
    assert_eq!(p.sizes.sizes().len(), 8); // 8K, 16K, …, 1M
    assert_eq!(p.d2d_bytes, 64 << 20, "quick plan");
    let d = parse(&[]).unwrap().plan();
    assert_eq!(d.sizes, SizeRange::DEFAULT);
    assert_eq!(d.only.len(), 5); // mem, p2p, gemm, stream, nccl
    assert_eq!(d.d2d_bytes, 1 << 30);
    // The full plan's streaming reads: the empty kernel, then 16 KiB × 4^i up to 1 GiB.
    assert_eq!(
        d.stream_sizes,
        vec![
            0,
            16 << 10,
            64 << 10,
            256 << 10,
            1 << 20,
            4 << 20,
            16 << 20,
            64 << 20,
            256 << 20,
            1 << 30
        ]
    );
}

#[test]
fn bad_arguments_are_usage_errors_naming_the_value() {
    let e = parse(&["--only", "mem,gpu"]).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("`gpu`"), "{e}");
    let e = parse(&["--sizes", "256M..4K"]).unwrap_err();
    assert_eq!(e.exit_code(), 2);
    assert!(e.to_string().contains("larger than"), "{e}");
}

/// Whether this machine has an NVIDIA driver; the no-driver tests below only mean something
/// without one (on a GPU box, `bench` would run for real).
fn has_driver() -> bool {
    #[cfg(feature = "gpu")]
    {
        tpsim_calibrate::bench::driver::driver_present()
    }
    #[cfg(not(feature = "gpu"))]
    {
        false
    }
}

#[test]
fn without_a_gpu_run_explains_and_returns_1() {
    if has_driver() {
        eprintln!("skipped: this machine has an NVIDIA driver");
        return;
    }
    let dir = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("tpsim-bench-cli");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("m.json");
    let args = parse(&["--quick", "--out", path.to_str().unwrap()]).unwrap();
    let (mut out, mut err) = (Vec::new(), Vec::new());
    assert_eq!(run(args, &mut out, &mut err), 1);
    let err = String::from_utf8(err).unwrap();
    if cfg!(feature = "gpu") {
        assert!(
            err.contains("no usable NVIDIA driver") && err.contains("libcuda"),
            "{err}"
        );
    } else {
        assert!(
            err.contains("no GPU support") && err.contains("--features cuda"),
            "{err}"
        );
    }
    assert!(out.is_empty());
    assert!(!path.exists(), "no measurement file may be left behind");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn the_binary_exits_1_without_panicking() {
    if has_driver() {
        eprintln!("skipped: this machine has an NVIDIA driver");
        return;
    }
    let o = Command::new(env!("CARGO_BIN_EXE_tpsim-calibrate"))
        .args(["bench", "--quick", "--only", "mem"])
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(!err.contains("panicked"), "{err}");
    assert!(err.starts_with("tpsim-calibrate bench: "), "{err}");
    assert!(o.stdout.is_empty());
}
