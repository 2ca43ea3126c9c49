//! `tpsim engine-args`: the SGLang / vLLM launch command equivalent to a scenario (issue #17 point 6);
//! the library builds it (`tpsim::engine_args`), this file renders it.

use super::{bad_input, emit, warn};
use std::io::Write;
use std::path::PathBuf;
use tpsim::engine_args::{self, EngineCommand};
use tpsim::scenario::EngineKind;

#[derive(Debug, clap::Args)]
pub struct EngineArgsArgs {
    /// The scenario TOML file.
    scenario: PathBuf,
    /// Print one JSON object {engine, version, version_from_scenario, program, args, env, notes,
    /// warnings} instead of the shell command.
    #[arg(long)]
    json: bool,
}

pub fn run(a: EngineArgsArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let (s, cmd) = match engine_args::for_file(&a.scenario) {
        Ok(v) => v,
        Err(e) => return bad_input(err, &e),
    };
    warn(err, &a.scenario, &s.warnings);
    let text = if a.json {
        serde_json::to_string_pretty(&cmd).unwrap_or_default() + "\n"
    } else {
        text(&a.scenario.display().to_string(), &cmd)
    };
    emit(out, &text)
}

/// The command as a shell would take it: `#` comment lines (target version, notes), then the
/// environment assignments and the command, one argument (or flag and value) per line.
pub fn text(file: &str, c: &EngineCommand) -> String {
    let engine = match c.engine {
        EngineKind::Sglang => "SGLang",
        EngineKind::Vllm => "vLLM",
    };
    let mut t = format!(
        "# {file}: {engine} {}{}\n",
        c.version,
        if c.version_from_scenario {
            " (engine.version)"
        } else {
            " (assumed: engine.version not set; set it to pin another)"
        }
    );
    for n in &c.notes {
        t.push_str(&format!("# {n}\n"));
    }
    if c.nodes.is_empty() {
        t.push_str(&command_text(c, &c.args));
        return t;
    }
    // Issue #17 point 4: one block per node.
    for n in &c.nodes {
        let head = if n.node == 0 { " (head)" } else { "" };
        t.push_str(&format!("\n# node {}{head}\n", n.node));
        for line in &n.setup {
            t.push_str(line);
            t.push('\n');
        }
        if !n.args.is_empty() {
            t.push_str(&command_text(c, &n.args));
        }
    }
    t
}

/// The environment assignments and the program with `args`, one argument (or flag and value) per line.
fn command_text(c: &EngineCommand, args: &[String]) -> String {
    let mut t = String::new();
    let mut lines: Vec<String> = c.env.iter().map(|(k, v)| format!("{k}={}", quote(v))).collect();
    lines.push(c.program.iter().map(|p| quote(p)).collect::<Vec<_>>().join(" "));
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        match args.get(i + 1) {
            Some(v) if a.starts_with("--") && !v.starts_with("--") => {
                lines.push(format!("  {a} {}", quote(v)));
                i += 2;
            }
            _ => {
                lines.push(format!("  {}", quote(a)));
                i += 1;
            }
        }
    }
    t.push_str(&lines.join(" \\\n"));
    t.push('\n');
    t
}

/// Single-quotes a word for a POSIX shell unless it is made of safe characters only.
fn quote(w: &str) -> String {
    let safe = |ch: char| ch.is_ascii_alphanumeric() || "_-./:=,+@%".contains(ch);
    if !w.is_empty() && w.chars().all(safe) {
        w.to_string()
    } else {
        format!("'{}'", w.replace('\'', "'\\''"))
    }
}
