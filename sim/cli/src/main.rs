//! `tpsim`: thin binary over [`tpsim_cli`].
fn main() {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    let code = tpsim_cli::main_with_args(&args, &mut std::io::stdout(), &mut std::io::stderr());
    std::process::exit(code);
}
