//! The calibrate crate's integration tests, in one test binary: each file of this folder is a module of it (issue #14: one
//! executable per crate instead of one per file, so a cold `cargo test --workspace` links far less).
//! `Cargo.toml` sets `autotests = false`, so a new test file must be declared below, which
//! [`every_test_file_is_declared`] checks. Run one module with
//! `cargo test -p tpsim-calibrate --test integration <module>::`, one test with `<module>::<test>`.

mod common;

mod bench_cli;
mod bench_h200;
mod check;
mod crossval;
mod fit_allreduce_data;
mod fit_cli;
mod fit_coverage;
mod fit_curves;
mod fit_host;
mod fit_kernels;
mod fit_round_trip;
mod fit_throughput;
mod garbage_ingest;
// Issue #19 points 4 and 5: identify.
mod garbled_input;
mod identify;
mod ingest;
mod ingest_limits;
mod input_files;
mod outputs;
// Issue #17 point 6: run-engine with a fake engine.
mod run_engine;
// shm52 (issue #19): shm_read_efficiency per host in crossval allreduce.
mod shm52;

/// Every `*.rs` file beside this one is declared as a module above: with `autotests = false` an
/// undeclared file would silently never be built or run.
#[test]
fn every_test_file_is_declared() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let missing = common::undeclared_test_files(&dir, include_str!("main.rs"));
    assert!(
        missing.is_empty(),
        "declare these test files as modules in {}/main.rs: {missing:?}",
        dir.display()
    );
}
