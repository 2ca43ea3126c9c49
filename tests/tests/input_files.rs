//! Every file tpsim reads is a regular file of bounded size (issue #14, point 3.5): a scenario, a
//! `preset = "…"` path, a profile, a TSV or a baselines file that is a device, a directory or a FIFO,
//! or larger than `tpsim::files::MAX_INPUT_BYTES`, is refused at once with exit 2 and a message
//! naming the file — `preset = "/dev/zero"` used to read forever.

use crate::common::*;

/// The seed baseline with its hardware preset replaced by `preset` (a path).
fn with_hardware_preset(name: &str, preset: &str) -> String {
    baseline_with(
        name,
        "preset = \"rtx-pro-6000-8x-dual-turin-direct\"",
        &format!("preset = \"{preset}\""),
    )
}

fn refused(o: &Out, file: &str, what: &str) {
    assert_eq!(o.code, 2, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(o.stderr.starts_with("error: "), "{}", o.stderr);
    assert!(o.stderr.contains(file), "must name {file}: {}", o.stderr);
    assert!(o.stderr.contains(what), "must say `{what}`: {}", o.stderr);
}

#[test]
fn a_preset_that_is_a_device_is_refused_not_read_forever() {
    let s = with_hardware_preset("files-devzero", "/dev/zero");
    let o = tpsim(&["run", &s]);
    refused(
        &o,
        "`/dev/zero`: not a regular file (a character device): expected a file",
        "key `hardware.preset`",
    );
    assert!(o.stderr.contains(&s), "the scenario is named too: {}", o.stderr);
    // A directory where a preset file belongs.
    let o = tpsim(&["run", &with_hardware_preset("files-dir", "/tmp")]);
    refused(&o, "`/tmp`", "not a regular file (a directory)");
}

#[test]
fn scenario_files_must_be_regular_and_bounded() {
    for cmd in ["run", "validate", "memory"] {
        refused(
            &tpsim(&[cmd, "/dev/zero"]),
            "/dev/zero: cannot read: not a regular file (a character device)",
            "expected a file",
        );
    }
    let d = scratch("files-big");
    let big = d.join("big.toml");
    let f = std::fs::File::create(&big).unwrap();
    f.set_len(tpsim::files::MAX_INPUT_BYTES + 1).unwrap(); // sparse: no disk used
    let big = big.display().to_string();
    refused(
        &tpsim(&["run", &big]),
        &big,
        "larger than the 64 MiB an input file may have",
    );
    refused(
        &tpsim(&["sweep", &big, "--set", "seed=1,2"]),
        &big,
        "larger than the 64 MiB",
    );
}

#[test]
fn a_fifo_is_refused_without_blocking() {
    let d = scratch("files-fifo");
    let fifo = d.join("scenario.toml");
    // mkfifo(1): no writer ever opens it, so reading it would block forever.
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        eprintln!("mkfifo unavailable: skipped");
        return;
    }
    let fifo = fifo.display().to_string();
    refused(&tpsim(&["run", &fifo]), &fifo, "not a regular file (a FIFO)");
}

#[test]
fn every_other_input_of_tpsim_is_checked_too() {
    // --profile, --compare, --hardware PATH, merge inputs, the baselines.
    refused(
        &tpsim(&[
            "collective",
            "--hardware",
            "rtx-pro-6000-8x-1switch",
            "--profile",
            "/dev/zero",
        ]),
        "/dev/zero",
        "not a regular file",
    );
    refused(
        &tpsim(&[
            "collective",
            "--hardware",
            "rtx-pro-6000-8x-1switch",
            "--sizes",
            "4K",
            "--compare",
            "/dev/zero",
        ]),
        "/dev/zero",
        "not a regular file",
    );
    refused(
        &tpsim(&["topo", "--hardware", "/dev/zero"]),
        "/dev/zero",
        "not a regular file",
    );
    refused(&tpsim(&["merge", "/dev/zero"]), "/dev/zero", "not a regular file");
    refused(
        &tpsim(&["regress", "--baselines", "/dev/zero"]),
        "/dev/zero",
        "not a regular file",
    );
}
