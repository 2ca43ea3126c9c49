//! Issue #17 (engine-flag lists by version): which of the engines' argument lists a launch command
//! targets, the flags renamed between versions, and the check that every flag `tpsim engine-args`
//! prints is one that version defines.
//!
//! The lists are `tests/data/engine-args/<engine>-<version>.txt`, written by
//! `tests/data/engine-args/extract.py` from each release's source on PyPI (SGLang
//! `sglang/srt/server_args.py`, with its `ServerArgs` `A[T, Arg(...)]` fields from 0.5.14 and
//! `sglang/srt/arg_groups/fields/*.py` from 0.5.20; every release 0.5.8, 0.5.9, 0.5.10 – 0.5.23; vLLM
//! `vllm/engine/arg_utils.py` and the server's `cli_args.py`). flags55 added SGLang 0.4.0,
//! 0.4.0.post1, 0.4.3, 0.4.6, 0.4.10, 0.5.0rc0 – 0.5.7 (with 0.5.3.post3 and 0.5.6.post1) and vLLM 0.2.6, 0.5.3.post1, 0.5.4,
//! 0.8.5, 0.9.1, 0.10.1.1, 0.10.2, 0.13.0, 0.14.1, 0.15.1, 0.16.0, 0.17.0 and 0.25.1: every release a
//! bundled scenario names; flags56 SGLang 0.4.10.post2 and vLLM 0.34.0 (0.33.0 re-extracted). A command for version V is checked against the list of the newest release
//! at or below V; a post-release with a list of its own gets it (SGLang 0.4.0.post1 adds `--ep-size`
//! to 0.4.0's arguments), one without gets its release's.
//!
//! The renames are in `sglang.rs` and `vllm.rs`, each from the newer release's source; the lists in
//! `lists.rs`. Any other flag the version lacks is refused with a message naming the flag, the version and the list.

mod lists;
mod sglang;
mod vllm;

pub use lists::LISTS;
pub use sglang::enable_ep_moe;

use crate::scenario::EngineKind;
use std::collections::BTreeMap;

/// One release's argument list.
#[derive(Debug, Clone, Copy)]
pub struct FlagList {
    pub engine: EngineKind,
    /// The release, `major.minor.patch`.
    pub version: &'static str,
    text: &'static str,
}

/// One accepted flag: its value kind (`flag`, `int`, `int-si`, `float`, `str`, `deprecated`, or a JSON
/// parser `json`, `json-parse`, `json-list`, `json-dataclass`: `scenario::arg_types`) and, when the
/// engine restricts them, the allowed values.
#[derive(Debug, Clone, PartialEq)]
pub struct FlagSpec {
    pub kind: String,
    pub choices: Option<Vec<String>>,
    /// cmdsurvey63: a deprecated alias that stores a value of `kind` (the list's `alias-KIND`: SGLang's
    /// `DeprecatedAliasStoreAction`, 0.5.13 – 0.5.19, e.g. `--cuda-graph-max-bs`): the engine takes
    /// it with a warning, and `tpsim engine-args` prints its replacement where it knows one.
    pub alias: bool,
}

impl FlagList {
    /// The list's file under `tests/data/engine-args/`.
    pub fn file(&self) -> String {
        let e = match self.engine {
            EngineKind::Sglang => "sglang",
            EngineKind::Vllm => "vllm",
        };
        format!("{e}-{}.txt", self.version)
    }

    /// Issue #17 (cmdparse): every name of the row that defines `flag` (its aliases), or `[flag]`.
    pub fn row(&self, flag: &str) -> Vec<String> {
        self.text
            .lines()
            .filter(|l| !l.starts_with('#'))
            .filter_map(|l| l.split('\t').next())
            .map(|names| names.split('|').map(String::from).collect::<Vec<_>>())
            .find(|names| names.iter().any(|n| n == flag))
            .unwrap_or_else(|| vec![flag.to_string()])
    }

    /// flags55: whether the release's server is started as `python -m vllm.entrypoints.openai.api_server
    /// --model MODEL` rather than `vllm serve MODEL`: the vllm-0.2.6 wheel has no console script (no
    /// `entry_points.txt`; 0.5.3.post1's names `vllm = vllm.scripts:main`) and no `cli_args.py`, which
    /// extract.py records in the list's header.
    pub fn vllm_module_server(&self) -> bool {
        self.engine == EngineKind::Vllm
            && self.text.starts_with(&format!(
                "# vLLM {}: `python -m vllm.entrypoints.openai.api_server`",
                self.version
            ))
    }

    /// Whether a boolean flag `--x` of this list also takes `--no-x`: vLLM from 0.8.5, whose
    /// `engine/arg_utils.py` `get_kwargs` gives every bool field `argparse.BooleanOptionalAction`
    /// (flags55: the 0.5.4 and 0.2.6 `arg_utils.py` use no `BooleanOptionalAction`: `store_true` only).
    pub fn negatable(&self) -> bool {
        self.engine == EngineKind::Vllm && list_key(self.version) >= list_key("0.8.5")
    }

    /// Every `--` flag name (each `--` alias a key) with its spec.
    pub fn flags(&self) -> BTreeMap<String, FlagSpec> {
        let mut m = BTreeMap::new();
        for line in self
            .text
            .lines()
            .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        {
            let cols: Vec<&str> = line.split('\t').collect();
            let kind = cols.get(1).copied().unwrap_or("str");
            let spec = FlagSpec {
                kind: kind.strip_prefix("alias-").unwrap_or(kind).to_string(),
                choices: cols.get(2).map(|c| c.split(',').map(String::from).collect()),
                alias: kind.starts_with("alias-"),
            };
            // args58: a row also names its single-dash aliases (`--speculative-config|-sc`, extract.py
            // `flags_of`) for argparse's texts (`FlagList::row`); the keys stay the `--` names, the
            // aliases being read by `scenario::extra_args::canonical`.
            for name in cols[0].split('|').filter(|n| n.starts_with("--")) {
                m.insert(name.to_string(), spec.clone());
            }
        }
        m
    }
}

/// `0.5.8.post1` → `[0, 5, 8]`, `v0.12.0` → `[0, 12, 0]`: the leading numeric components (a
/// post-release counts as its release). `None` when the text starts with no number.
pub fn release(version: &str) -> Option<Vec<u64>> {
    let v = version.trim().trim_start_matches(['v', 'V']);
    let mut out = Vec::new();
    for part in v.split('.') {
        let digits: String = part.chars().take_while(char::is_ascii_digit).collect();
        if digits.is_empty() {
            break;
        }
        out.push(digits.parse().ok()?);
        if digits.len() != part.len() {
            break;
        }
    }
    (!out.is_empty()).then_some(out)
}

/// The list a command for `engine` at `version` is checked against: the newest release at or below
/// it. `None` when the version is older than every list (or unreadable).
pub fn list_for(engine: EngineKind, version: &str) -> Option<&'static FlagList> {
    let want = list_key(version)?;
    LISTS
        .iter()
        .filter(|l| l.engine == engine)
        .filter(|l| list_key(l.version).is_some_and(|r| r <= want))
        .max_by_key(|l| list_key(l.version))
}

/// flags55: the order of releases for picking a list: [`release`] plus the post-release number
/// (`0.4.0.post1` → `[0, 4, 0]` then `[1]`), so a post-release whose argument set differs from its
/// release's (SGLang 0.4.0.post1 adds `--ep-size`, 0.5.3.post3 `--enable-piecewise-cuda-graph`)
/// gets its own list, and one with no list of its own gets its release's. A pre-release
/// (`0.5.0rc0`) counts as its release.
fn list_key(version: &str) -> Option<(Vec<u64>, u64)> {
    let r = release(version)?;
    let post = version
        .rsplit_once(".post")
        .and_then(|(_, n)| n.parse().ok())
        .unwrap_or(0);
    Some((r, post))
}

/// Rewrites `args` (after the program; vLLM's first is the positional model) into `list`'s spelling
/// (the renames above), then checks every flag and value against it. Returns the first flag the
/// version cannot take, as a message for the user.
pub fn adapt(list: &FlagList, args: &mut Vec<String>, notes: &mut Vec<String>) -> Result<(), String> {
    let flags = list.flags();
    let engine = match list.engine {
        EngineKind::Sglang => "SGLang",
        EngineKind::Vllm => "vLLM",
    };
    let positional = usize::from(list.engine == EngineKind::Vllm);
    match list.engine {
        EngineKind::Sglang => sglang::rename(list, &flags, args, notes),
        EngineKind::Vllm => vllm::rename(list, &flags, args, notes),
    }
    let mut i = positional;
    while i < args.len() {
        // flags55: `--flag=value` (vLLM 0.5.x `--enable-chunked-prefill=false`): a boolean flag with an
        // inline value; other kinds are printed as two words.
        if let Some((flag, value)) = args[i].split_once('=')
            && flags.get(flag).is_some_and(|s| s.kind == "flag")
            && ["true", "false"].contains(&value)
        {
            i += 1;
            continue;
        }
        let name = &args[i];
        // Issue #18 point 1 (schedkeys): vLLM gives every bool field both `--x` and `--no-x`
        // (`argparse.BooleanOptionalAction`, vLLM 0.11.0 engine/arg_utils.py `get_kwargs`); the lists hold
        // the positive name only.
        let negated = || {
            let base = format!("--{}", name.strip_prefix("--no-")?);
            flags.get(&base).filter(|f| list.negatable() && f.kind == "flag")
        };
        let Some(spec) = flags.get(name).or_else(negated) else {
            return Err(format!(
                "{engine} {} has no flag {name} (tests/data/engine-args/{}, from the engine's argument definitions); \
                 tpsim has no equivalent to print at this version",
                list.version,
                list.file()
            ));
        };
        if spec.kind == "deprecated" || spec.alias {
            notes.push(format!(
                "{name} is deprecated in {engine} {} (it still starts, with a warning)",
                list.version
            ));
        }
        if matches!(spec.kind.as_str(), "flag" | "deprecated") {
            i += 1;
            continue;
        }
        let Some(v) = args.get(i + 1) else {
            return Err(format!("{name}: {engine} {} expects a value", list.version));
        };
        let ok = match spec.kind.as_str() {
            // Issue #17 (flags): vLLM 0.14.0 on parses --max-model-len with
            // `human_readable_int_or_auto` (`scenario::max_model_len`, which refuses `auto` before).
            "int" if name == "--max-model-len" && v == "auto" => true,
            "int" => v.parse::<i64>().is_ok(),
            "int-si" => crate::scenario::arg_types::sglang_human_int(v).is_ok(),
            "float" => v.parse::<f64>().is_ok_and(f64::is_finite),
            k if crate::scenario::arg_types::is_json(k) => {
                crate::scenario::arg_types::json_error(k, v).is_none()
            }
            _ => !v.starts_with("--"),
        };
        if !ok {
            return Err(format!(
                "{name}: {engine} {} takes {} values, not '{v}'",
                list.version, spec.kind
            ));
        }
        // A list flag takes every following value up to the next flag, each of its kind.
        if LIST_FLAGS.contains(&name.as_str()) {
            let mut j = i + 1;
            while let Some(v) = args.get(j).filter(|v| !v.starts_with("--")) {
                if spec.kind == "int" && v.parse::<i64>().is_err() {
                    return Err(format!(
                        "{name}: {engine} {} takes int values, not '{v}'",
                        list.version
                    ));
                }
                j += 1;
            }
            i = j;
            continue;
        }
        if let Some(c) = spec.choices.as_ref().filter(|c| !c.contains(v)) {
            return Err(format!(
                "{name} {v}: {engine} {} accepts only {} (tests/data/engine-args/{})",
                list.version,
                c.join(", "),
                list.file()
            ));
        }
        i += 2;
    }
    Ok(())
}

/// Flags that take one or more values (`nargs="+"`; the lists do not record it): SGLang 0.5.9
/// `server_args.py` `--cuda-graph-bs`, 0.5.23 `--cuda-graph-bs-decode`; vLLM's `list[int]` fields (`arg_utils.py` `get_kwargs`:
/// `nargs="+"`), `--cuda-graph-sizes` (0.11, 0.12) and `--cudagraph-capture-sizes` (0.12+).
pub(crate) const LIST_FLAGS: [&str; 4] = [
    "--cuda-graph-bs",
    "--cuda-graph-bs-decode",
    "--cuda-graph-sizes",
    "--cudagraph-capture-sizes",
];

/// Removes `flag` (and its value when `with_value`) from `args`.
fn remove_flag(args: &mut Vec<String>, flag: &str, with_value: bool) {
    if let Some(i) = args.iter().position(|a| a == flag) {
        args.remove(i);
        if with_value && i < args.len() {
            args.remove(i);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_map_to_the_newest_list_at_or_below() {
        let v = |e, s| list_for(e, s).map(|l| l.version);
        assert_eq!(v(EngineKind::Sglang, "0.5.8.post1"), Some("0.5.8"));
        assert_eq!(v(EngineKind::Sglang, "v0.5.9"), Some("0.5.9"));
        assert_eq!(v(EngineKind::Sglang, "0.5.12"), Some("0.5.12"));
        assert_eq!(v(EngineKind::Sglang, "0.5.13.post1"), Some("0.5.13"));
        assert_eq!(v(EngineKind::Sglang, "0.5.23"), Some("0.5.23"));
        assert_eq!(v(EngineKind::Sglang, "0.6.0"), Some("0.5.23"));
        // flags55: 0.4.6.post5 has no list of its own: 0.4.6's; before 0.4.0 none.
        assert_eq!(v(EngineKind::Sglang, "0.4.6.post5"), Some("0.4.6"));
        assert_eq!(v(EngineKind::Sglang, "0.3.6"), None);
        assert_eq!(v(EngineKind::Vllm, "0.11.2"), Some("0.11.0"));
        assert_eq!(v(EngineKind::Vllm, "0.12.0"), Some("0.12.0"));
        assert_eq!(v(EngineKind::Vllm, "0.18.1"), Some("0.17.0"));
        assert_eq!(v(EngineKind::Vllm, "0.20.1"), Some("0.19.0"));
        assert_eq!(v(EngineKind::Vllm, "0.33.0"), Some("0.33.0"));
        assert_eq!(v(EngineKind::Vllm, "0.10.2"), Some("0.10.2"));
        assert_eq!(v(EngineKind::Vllm, "0.2.5"), None);
        assert_eq!(v(EngineKind::Vllm, "main"), None);
    }
}
