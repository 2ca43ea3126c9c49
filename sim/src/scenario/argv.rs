//! Issue #17 (cmdkey): the words of a launch command split into flags and their values as the
//! engine's argparse splits them, against the release's argument list — the one loop both
//! `engine.extra_args` (`scenario::extra_args::check`) and a whole command (`engine.command`,
//! `tpsim import-command`: `crate::import_command_flags::parse`) go through.
//!
//! Names are read by `extra_args::canonical` (vLLM's `_` spelling and short aliases, `--no-NAME`,
//! unique prefixes), values checked by `extra_args::check_values`; a refusal carries argparse's text
//! (`launch_server.py: error: …` / `vllm serve: error: …`) and the list it was checked against.

use super::extra_args::{canonical, check_values, is_flag, spec_of};
use super::{EngineKind, arg_types};
use crate::engine_args_versions::{FlagList, FlagSpec, LIST_FLAGS};

/// Which words after a flag are its values.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Words {
    /// As argparse takes them from a launch command: none for a switch (`flag`, `deprecated`), one
    /// for a valued flag, one or more for the `nargs="+"` flags (`engine_args_versions::LIST_FLAGS`);
    /// a word left over is a positional (vLLM's model) or refused.
    Argparse,
    /// Every word up to the next flag (`engine.extra_args`, a list with no positional): a word a
    /// switch cannot take is then refused by `check_values` with argparse's "unrecognized arguments".
    UpToNextFlag,
}

/// One flag of the words.
#[derive(Debug, Clone, PartialEq)]
pub struct Flag {
    /// The name as written, without `=value` (`--tp`, `-tp`, `--max_model_len`).
    pub given: String,
    /// The name as the release's list has it (`--tp-size`; a `--no-NAME` form kept as such).
    pub name: String,
    /// Its values (an inline `=value` first).
    pub values: Vec<String>,
    /// The words as written: the flag and its values.
    pub written: Vec<String>,
    /// vLLM's dotted form of a JSON config argument: the field after the first dot
    /// (`-cc.cudagraph_mode=PIECEWISE` → `cudagraph_mode`; `FlexibleArgumentParser`, 0.19.0
    /// `utils/argparse_utils.py`). Only `--*-config` flags take it.
    pub sub: Option<String>,
}

/// argparse's refusal of `kind`'s launch program at the list's release: `message` is the text after
/// "error: ".
pub fn refusal(kind: EngineKind, list: &FlagList, message: &str) -> String {
    let (engine, prog) = match kind {
        EngineKind::Sglang => ("SGLang", "launch_server.py"),
        EngineKind::Vllm => ("vLLM", "vllm serve"),
    };
    format!(
        "{engine} {} refuses it: argparse stops with \"{prog}: error: {message}\" (the release's flags: \
         tests/data/engine-args/{})",
        list.version,
        list.file()
    )
}

/// Splits `args` into at most `positionals` positional words (vLLM's `model_tag`: 1; SGLang and
/// `engine.extra_args`: 0) and flags, each name resolved and its values checked against `list`.
/// `Err`: argparse's refusal ([`refusal`]) of the first word it stops at.
pub fn split(
    kind: EngineKind,
    list: &FlagList,
    args: &[String],
    positionals: usize,
    words: Words,
) -> Result<(Vec<String>, Vec<Flag>), String> {
    let flags = list.flags();
    let refuse = |m: String| refusal(kind, list, &m);
    let mut positional = Vec::new();
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let tok = args[i].trim();
        if !is_flag(tok) {
            if positional.len() < positionals {
                positional.push(tok.to_string());
                i += 1;
                continue;
            }
            return Err(refuse(format!("unrecognized arguments: {tok}")));
        }
        // cmdsurvey57 (vllm issue 33155, `-O3`): `FlexibleArgumentParser.parse_args` rewrites `-ON` /
        // `-O=N` before argparse runs: 0.10.1 – 0.11.x `-O.level=N` of `--compilation-config` (alias
        // `-O`; `vllm/utils/__init__.py`), 0.12.0+ `--optimization-level N` where the release has
        // that flag (0.13.0 – 0.25.1 `vllm/utils/argparse_utils.py`).
        let level = (kind == EngineKind::Vllm)
            .then(|| tok.strip_prefix("-O"))
            .flatten()
            .filter(|l| !l.is_empty() && !l.starts_with('.'))
            .map(|l| l.strip_prefix('=').unwrap_or(l).to_string());
        let rewritten;
        let (given, inline) = match level {
            Some(l) => {
                rewritten = if flags.contains_key("--optimization-level") {
                    "--optimization-level"
                } else {
                    "--compilation-config"
                };
                (rewritten, Some(l))
            }
            None => match tok.split_once('=') {
                Some((n, v)) => (n, Some(v.to_string())),
                None => (tok, None),
            },
        };
        let (given, sub) = match given.split_once('.').filter(|_| kind == EngineKind::Vllm) {
            Some((n, s)) => (n, Some(s.to_string())),
            None => (given, None),
        };
        let name = canonical(kind, given, &flags).map_err(|m| match m {
            None => refuse(format!("unrecognized arguments: {given}")),
            Some(c) => refuse(format!("ambiguous option: {given} could match {c}")),
        })?;
        if sub.is_some() && !name.ends_with("-config") {
            return Err(refuse(format!("unrecognized arguments: {tok}")));
        }
        let spec = spec_of(&name, &flags);
        let (takes, many) = match words {
            Words::Argparse => (
                !matches!(spec.kind.as_str(), "flag" | "deprecated"),
                LIST_FLAGS.contains(&name.as_str()),
            ),
            Words::UpToNextFlag => (true, true),
        };
        let mut values: Vec<String> = inline.into_iter().collect();
        let mut written = vec![args[i].clone()];
        i += 1;
        while i < args.len() && takes && !is_flag(args[i].trim()) && (values.is_empty() || many) {
            values.push(args[i].trim().to_string());
            written.push(args[i].clone());
            i += 1;
        }
        // A dotted field (`--speculative-config.method mtp`) is one key's value, not the JSON text.
        let field_spec;
        let spec = if sub.is_some() && arg_types::is_json(&spec.kind) {
            field_spec = FlagSpec {
                kind: "str".into(),
                choices: None,
                alias: false,
            };
            &field_spec
        } else {
            spec
        };
        let positive = name.strip_prefix("--no-").map(|n| format!("--{n}"));
        let shown = list.row(positive.as_deref().unwrap_or(&name)).join("/");
        check_values(&name, &shown, spec, &values).map_err(refuse)?;
        out.push(Flag {
            given: given.to_string(),
            name,
            values,
            written,
            sub,
        });
    }
    Ok((positional, out))
}
