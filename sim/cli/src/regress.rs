//! `tpsim regress [--update]`: the CI gate over `scenarios/baselines.toml` (logic in
//! [`tpsim::regress`]). Exit 0 when every metric is within tolerance, 1 when any moved or a scenario
//! and its baseline do not pair up, 2 for bad input (a malformed baselines file, a broken scenario).

use super::{EXIT_BAD_INPUT, EXIT_FAILURE};
use std::io::Write;
use std::path::PathBuf;
use tpsim::regress::{self, RegressError};

/// Runs the command.
pub fn run(
    update: bool,
    baselines: Option<PathBuf>,
    root: Option<PathBuf>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> i32 {
    let (root, file) = regress::default_paths(root, baselines);
    let shown = file.display().to_string();
    let result = (|| -> Result<i32, RegressError> {
        let old = if update && !file.exists() {
            regress::Baselines::default()
        } else {
            regress::read(&file)?
        };
        let now = regress::measure_all(&root, &file)?;
        if update {
            let text = regress::render(&old.updated(&now));
            // The baselines file is its own to rewrite; never a scenario or a file one reads.
            let inputs = regress::inputs(&root, &file)?;
            if let Err(e) = tpsim::files::write_output(&file, &inputs, text.as_bytes()) {
                return Ok(super::write_failed(err, &e));
            }
            let _ = writeln!(out, "wrote {shown}: {} scenarios", now.len());
            return Ok(0);
        }
        let o = regress::compare(&old, &now);
        let _ = write!(out, "{}", regress::table(&o, &shown));
        Ok(if o.passed() { 0 } else { EXIT_FAILURE })
    })();
    match result {
        Ok(code) => code,
        Err(e @ RegressError::Decode { .. }) => {
            let _ = writeln!(err, "internal error: {e}");
            EXIT_FAILURE
        }
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            EXIT_BAD_INPUT
        }
    }
}
