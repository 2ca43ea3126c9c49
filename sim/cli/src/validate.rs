//! `tpsim validate`: check a scenario (or a hardware preset) without running it; with `--explain KEY`,
//! say which file a hardware value came from and what it overrode (issue #15: presets that inherit).

use super::{EXIT_FAILURE, bad_input, load};
use std::io::Write;
use std::path::PathBuf;
use tpsim::scenario;

#[derive(Debug, clap::Args)]
pub struct ValidateArgs {
    /// The scenario TOML file.
    #[arg(required_unless_present = "hardware", conflicts_with = "hardware")]
    scenario: Option<PathBuf>,
    /// A hardware preset (bundled name or path) instead of a scenario.
    #[arg(long, value_name = "PRESET")]
    hardware: Option<String>,
    /// A hardware profile (`tpsim-calibrate fit`) applied over the --hardware preset's params.
    #[arg(long, value_name = "FILE", requires = "hardware")]
    profile: Option<PathBuf>,
    /// Print the resolved value of a hardware key (e.g. hardware.params.nccl_channel_bw), the file
    /// it came from (template, preset, profile or the scenario) and the values it overrode, instead
    /// of the ok line (repeatable).
    #[arg(long, value_name = "KEY")]
    explain: Vec<String>,
}

pub fn run(a: ValidateArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let (hardware, ok) = match (&a.scenario, &a.hardware) {
        (Some(path), _) => match load(path, err) {
            Ok(s) => {
                // Issue #17 point 1 (vllmdp): vLLM DP on a MoE model names one rank's tp and the ranks.
                let tp = match s.engine.vllm_dp {
                    Some(v) => format!("{} × dp {}", v.tp, v.dp),
                    None => s.engine.tp.to_string(),
                };
                let ok = format!(
                    "{}: ok ({} on {} GPUs, tp {tp}, {})",
                    path.display(),
                    s.model_name,
                    s.hardware.topology.gpu_count(),
                    if s.speculative.is_some() {
                        "speculative"
                    } else {
                        "no speculation"
                    }
                );
                (s.hardware, ok)
            }
            Err(e) => return bad_input(err, &e),
        },
        (None, Some(reference)) => {
            let profile = a.profile.as_ref().map(|p| p.display().to_string());
            match scenario::hardware_from_args(reference, profile.as_deref()) {
                Ok(hw) => {
                    let ok = format!("{reference}: ok ({}, {} GPUs)", hw.name, hw.topology.gpu_count());
                    (hw, ok)
                }
                Err(e) => return bad_input(err, &e),
            }
        }
        // clap requires one of the two.
        (None, None) => return bad_input(err, &"expected a scenario or --hardware PRESET"),
    };
    if a.explain.is_empty() {
        let _ = writeln!(out, "{ok}");
        return 0;
    }
    let mut text = String::new();
    for key in &a.explain {
        match scenario::layers::explain(&hardware, key) {
            Ok(t) => text.push_str(&t),
            Err(m) => return bad_input(err, &format!("--explain: {m}")),
        }
    }
    if write!(out, "{text}").is_err() {
        EXIT_FAILURE
    } else {
        0
    }
}
