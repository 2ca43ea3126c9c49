//! Every file tpsim-calibrate reads goes through `tpsim::files` (issue #14, point 3.5): a device, a
//! directory or a file larger than `MAX_INPUT_BYTES` is refused at once with exit 2, naming the file.

use crate::common::*;

fn refused(args: &[&str]) {
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
        o.stderr.contains("/dev/zero") && o.stderr.contains("not a regular file"),
        "tpsim-calibrate {}: {}",
        args.join(" "),
        o.stderr
    );
}

#[test]
fn devices_are_refused_by_every_reading_command() {
    refused(&["ingest", "/dev/zero"]);
    refused(&["ingest", "/dev/zero", "--format", "nccl-tests"]);
    refused(&["fit", "/dev/zero", "--hardware", "rtx-pro-6000-8x-1switch"]);
    refused(&[
        "fit-host",
        "/dev/zero",
        "--scenario",
        &scenario("seed/baseline.toml"),
    ]);
    refused(&[
        "fit-throughput",
        "/dev/zero",
        "--hardware",
        "rtx-pro-6000-8x-1switch",
    ]);
    refused(&["check", "--hardware", "rtx-pro-6000-8x-1switch", "/dev/zero"]);
}

#[test]
fn an_oversized_log_is_refused_before_it_is_read() {
    let d = scratch("oversized");
    let big = d.join("server.log");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(tpsim::files::MAX_INPUT_BYTES + 1).unwrap(); // sparse: no disk used
    let big = big.display().to_string();
    let o = calibrate(&["ingest", &big]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(&big) && o.stderr.contains("larger than the 64 MiB"),
        "{}",
        o.stderr
    );
    let _ = std::fs::remove_dir_all(&d);
}
