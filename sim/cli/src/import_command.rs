//! `tpsim import-command` (issue #17, cmdparse): a launch command read into a scenario, the reverse of
//! `tpsim engine-args`; the library reads it (`tpsim::import_command_build`), this file takes the
//! command from the arguments or standard input and writes the TOML.

use super::{bad_input, stdin_text, write_imported};
use std::io::Write;
use std::path::PathBuf;
use tpsim::import_command_build::{self as build, HardwareFrom, Options};

#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("box").required(true).args(["hardware", "from"])))]
pub struct ImportArgs {
    /// The box: a bundled hardware preset (`tpsim validate --hardware NAME` lists its keys).
    #[arg(long, value_name = "PRESET")]
    hardware: Option<String>,
    /// The box from an existing scenario: its [hardware], and the parts no launch flag states
    /// (seed, [workload], [slo], [speculative] acceptance).
    #[arg(long, value_name = "SCENARIO")]
    from: Option<PathBuf>,
    /// engine.version (wins over a Docker image tag; default: the tag, else tpsim's current release).
    #[arg(long, value_name = "X.Y.Z")]
    engine_version: Option<String>,
    /// The model preset, when the command's model path is none of the bundled presets' repositories.
    #[arg(long, value_name = "NAME", conflicts_with = "model_config")]
    model_preset: Option<String>,
    /// The served model's HuggingFace config.json (or a directory holding one), when no bundled
    /// preset describes it: written as [model] config.
    #[arg(long, value_name = "PATH")]
    model_config: Option<PathBuf>,
    /// [speculative] acceptance as an inline table's body, e.g. 'alpha = 0.7' or 'profile = "NAME"'.
    #[arg(long, value_name = "TOML")]
    acceptance: Option<String>,
    /// Write the scenario to FILE (relative paths in it resolve from there) instead of stdout.
    #[arg(short, long, value_name = "FILE")]
    output: Option<PathBuf>,
    /// The launch command: one quoted argument (a whole line, `\` continuations and all), or its
    /// words after `--`; none or `-`: read from standard input.
    // Not `trailing_var_arg`: with it an option after the quoted command (`'vllm serve …' -o x.toml`)
    // became words of the command. The word form needs `--`, so its flags are never read as ours.
    #[arg(value_name = "COMMAND")]
    command: Vec<String>,
}

pub fn run(a: ImportArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let o = Options {
        hardware: match (&a.hardware, &a.from) {
            (Some(h), _) => HardwareFrom::Preset(h.clone()),
            (None, Some(f)) => HardwareFrom::Scenario(f.clone()),
            (None, None) => return bad_input(err, &"give the box: --hardware PRESET or --from SCENARIO"),
        },
        engine_version: a.engine_version,
        model_preset: a.model_preset,
        model_config: a.model_config,
        acceptance: a.acceptance,
        output: a.output.clone(),
    };
    let imported = match a.command.as_slice() {
        [] => stdin_text().and_then(|t| build::import(&t, &o)),
        [one] if one == "-" => stdin_text().and_then(|t| build::import(&t, &o)),
        [one] => build::import(one, &o),
        words => build::import_words(words.to_vec(), &o),
    };
    let imported = match imported {
        Ok(i) => i,
        Err(m) => return bad_input(err, &m),
    };
    let file = a
        .output
        .as_ref()
        .map_or("<stdout>".to_string(), |p| p.display().to_string());
    let inputs: Vec<PathBuf> = a.from.into_iter().collect();
    write_imported(
        &imported.text,
        &imported.notes,
        &imported.warnings,
        &format!("{file}: "),
        a.output.as_deref().map(|p| (p, inputs.as_slice())),
        out,
        err,
    )
}
