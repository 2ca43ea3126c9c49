//! tpsim-calibrate's outputs never overwrite an input (issue #14, point 3.4): `ingest --out`,
//! `fit --out`, `fit-host --out`, `fit-throughput --out` that name one of the command's inputs are
//! refused with exit 2 before any work, and the input is untouched.

use crate::common::*;
use std::path::Path;

fn refused(args: &[&str], input: &Path) {
    let before = std::fs::read(input).unwrap();
    let o = calibrate(args);
    assert_eq!(
        o.code,
        2,
        "tpsim-calibrate {}: stdout {}\nstderr {}",
        args.join(" "),
        o.stdout,
        o.stderr
    );
    assert!(
        o.stderr
            .contains("refusing to write: it is the same file as the input")
            && o.stderr.contains(&input.display().to_string()),
        "{}",
        o.stderr
    );
    assert_eq!(
        std::fs::read(input).unwrap(),
        before,
        "{} changed",
        input.display()
    );
}

#[test]
fn outputs_that_are_inputs_are_refused() {
    let d = scratch("outputs-same");
    // ingest: the log itself.
    let log = d.join("nccl.txt");
    std::fs::copy(fixture("nccl-tests-allreduce-4x-turin.txt"), &log).unwrap();
    let l = log.to_str().unwrap();
    refused(&["ingest", l, "--out", l], &log);
    // A measurement file, then fit and fit-host writing over it.
    let meas = d.join("m.json");
    let o = calibrate(&["ingest", l, "--out", meas.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let m = meas.to_str().unwrap();
    refused(
        &[
            "fit",
            m,
            "--hardware",
            "rtx-pro-6000-4x-turin-same-numa",
            "--out",
            m,
        ],
        &meas,
    );
    let s = d.join("s.toml");
    std::fs::copy(scenario("seed/baseline.toml"), &s).unwrap();
    let sp = s.to_str().unwrap();
    refused(&["fit-host", m, "--scenario", sp, "--out", sp], &s);
    refused(&["fit-host", m, "--scenario", sp, "--out", m], &meas);
    // fit-throughput: the pairs table.
    let pairs = d.join("pairs.tsv");
    std::fs::write(&pairs, format!("label\tscenario\ttok_s\nseed\t{sp}\t70\n")).unwrap();
    let p = pairs.to_str().unwrap();
    refused(
        &[
            "fit-throughput",
            p,
            "--hardware",
            "rtx-pro-6000-8x-dual-turin-direct",
            "--out",
            p,
        ],
        &pairs,
    );
    // ... and a scenario it names.
    refused(
        &[
            "fit-throughput",
            p,
            "--hardware",
            "rtx-pro-6000-8x-dual-turin-direct",
            "--out",
            sp,
        ],
        &s,
    );
}
