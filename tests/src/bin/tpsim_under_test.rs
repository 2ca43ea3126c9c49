//! `tpsim-under-test`: the `tpsim` binary's `main` (sim/cli/src/main.rs) built inside this crate, so the
//! end-to-end tests can run the CLI as a real process (`env!("CARGO_BIN_EXE_tpsim-under-test")`:
//! exit status, stderr, a panic's exit code 101) — Cargo gives a test only its own package's
//! binaries.
fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let code = tpsim_cli::main_with_args(&args, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
