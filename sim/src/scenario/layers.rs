//! Hardware files that inherit (issue #15): a hardware preset, a template or a scenario's
//! `[hardware]` may say `extends = "<template>"`; its keys are then merged over the template's key by
//! key, with the rules of a scenario over its preset ([`HardwareSection::merged_over`]): `[params]` and
//! `[gpu]` key by key, `[compute.curves.<class>]` class by class, a `[topology]` with `gpus` whole. A
//! `[fitted.<param>]` mark follows its value: a file that sets a parameter its template marks fitted
//! drops the mark unless it declares it again. Templates may extend templates, up to [`MAX_CHAIN`]
//! files; a bundled file extends a bundled template by name (`scenarios/hardware/templates/`), a file
//! given by path may also name one by a path relative to itself.
//!
//! The resolved [`super::Hardware`] keeps the files it was merged from, lowest first (templates,
//! preset, profile, the scenario), as its [`Layers`]: [`explain`] says which of them a value came
//! from and which values it overrode (`tpsim validate --explain KEY`).

use super::error::{self, ScenarioError};
use super::hardware::check_fitted;
use super::{GpuSection, HardwareSection, ParamsSection, Resolver, profile};
use crate::presets;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Most files one `extends` chain may hold: a preset and up to seven templates below it.
pub const MAX_CHAIN: usize = 8;

/// What a layer of a resolved hardware description is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LayerKind {
    /// A file named by `extends`.
    Template,
    /// The file named by `[hardware] preset` (or by `--hardware`).
    Preset,
    /// The profile named by `[hardware] profile` (or by `--profile`).
    Profile,
    /// The scenario's own `[hardware]` keys.
    Scenario,
}

impl LayerKind {
    /// The word `--explain` prints.
    pub fn as_str(self) -> &'static str {
        match self {
            LayerKind::Template => "template",
            LayerKind::Preset => "preset",
            LayerKind::Profile => "profile",
            LayerKind::Scenario => "scenario",
        }
    }
}

/// One file a hardware description was merged from.
#[derive(Debug, Clone)]
pub struct Layer {
    pub kind: LayerKind,
    /// The file as errors and reports name it: `<preset hardware/NAME.toml>`, `<preset
    /// hardware/templates/NAME.toml>`, or a path.
    pub file: String,
    text: LayerText,
}

#[derive(Debug, Clone)]
enum LayerText {
    Text(String),
    /// A profile: read again only when a value is explained.
    File(PathBuf),
}

impl Layer {
    /// Whether this (bundled or scenario-side) file's text contains `needle`; a profile's is not
    /// read again and answers false.
    pub(super) fn declares(&self, needle: &str) -> bool {
        matches!(&self.text, LayerText::Text(t) if t.contains(needle))
    }

    pub(super) fn profile(file: &Path) -> Layer {
        Layer {
            kind: LayerKind::Profile,
            file: file.display().to_string(),
            text: LayerText::File(file.to_path_buf()),
        }
    }

    pub(super) fn scenario(file: &Path, text: &str) -> Layer {
        Layer {
            kind: LayerKind::Scenario,
            file: file.display().to_string(),
            text: LayerText::Text(text.to_string()),
        }
    }

    fn text(&self) -> String {
        match &self.text {
            LayerText::Text(t) => t.clone(),
            LayerText::File(p) => crate::files::read_text(p).unwrap_or_default(),
        }
    }

    /// Where its hardware keys sit in its text.
    fn prefix(&self) -> &'static str {
        if self.kind == LayerKind::Scenario {
            "hardware."
        } else {
            ""
        }
    }

    /// Its text and its hardware keys as a table (a scenario's `[hardware]`).
    fn parsed(&self) -> (String, toml::Table) {
        let text = self.text();
        let mut table: toml::Table = toml::from_str(&text).unwrap_or_default();
        if self.kind == LayerKind::Scenario {
            table = match table.remove("hardware") {
                Some(toml::Value::Table(t)) => t,
                _ => toml::Table::new(),
            };
        }
        (text, table)
    }

    /// Whether this file writes the dotted key (relative to a hardware file's top level).
    pub fn sets(&self, key: &str) -> bool {
        get(&self.parsed().1, key).is_some()
    }

    /// An error about the hardware key `key` (`hardware.…`), whose value this file supplies: named
    /// by this file and the line where it writes the key.
    pub fn error(&self, key: String, message: String) -> ScenarioError {
        let in_file = key.strip_prefix("hardware.").unwrap_or(&key);
        let line = error::locate(&self.text(), &format!("{}{in_file}", self.prefix()));
        ScenarioError::Invalid {
            file: self.file.clone(),
            key,
            line,
            message,
        }
    }

    /// `FILE:LINE` of the dotted key in this file (`FILE` when it is not written there).
    fn at(&self, text: &str, key: &str) -> String {
        match error::locate(text, &format!("{}{key}", self.prefix())) {
            Some(l) => format!("{}:{l}", self.file),
            None => self.file.clone(),
        }
    }
}

/// The files a resolved hardware description was merged from, lowest first: the templates, the
/// preset, the profile, the scenario.
#[derive(Clone, Default)]
pub struct Layers(Arc<Vec<Layer>>);

impl Layers {
    pub(super) fn new(layers: Vec<Layer>) -> Layers {
        Layers(Arc::new(layers))
    }

    /// Each layer, lowest first.
    pub fn iter(&self) -> impl Iterator<Item = &Layer> {
        self.0.iter()
    }
}

impl std::fmt::Debug for Layers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.0.iter().map(|l| &l.file)).finish()
    }
}

/// A preset or template with every template below it merged in.
#[derive(Debug, Default)]
pub(super) struct Chain {
    /// The merged keys (no `extends`).
    pub section: HardwareSection,
    /// The file that declares each `[fitted]` entry of `section`.
    pub fitted_files: BTreeMap<String, String>,
    /// The files, lowest first.
    pub layers: Vec<Layer>,
}

/// Who names a hardware file.
enum Referrer<'a> {
    /// The scenario's key (`hardware.preset` or `hardware.extends`, or `--hardware`).
    Scenario(&'a str),
    /// A hardware file's `extends`; `rel` is its path relative to the scenario's folder, `None` for
    /// a bundled file.
    File {
        file: &'a Path,
        text: &'a str,
        rel: Option<&'a Path>,
    },
}

impl Resolver<'_> {
    /// Reads the hardware file `reference` that the scenario's `key` names (`hardware.preset` for a
    /// preset, `hardware.extends` for a template) and every template it extends, checks each file
    /// and merges them.
    pub(super) fn hardware_chain(
        &self,
        key: &str,
        reference: &str,
        kind: LayerKind,
    ) -> Result<Chain, ScenarioError> {
        self.chain(&Referrer::Scenario(key), reference, kind, &mut Vec::new())
    }

    fn chain(
        &self,
        from: &Referrer<'_>,
        reference: &str,
        kind: LayerKind,
        seen: &mut Vec<(String, String)>,
    ) -> Result<Chain, ScenarioError> {
        let (file, text, rel) = self.read_hardware_file(from, reference, kind)?;
        let display = file.display().to_string();
        let identity = self.identity(&display, rel.as_deref());
        self.check_no_cycle(from, reference, seen, &identity, &display)?;
        let err = |k: &str, m: String| ScenarioError::invalid(&file, &text, k, m);
        let sec = layer_section(&file, &text, kind)?;
        seen.push((identity, display.clone()));
        let layer = Layer {
            kind,
            file: display.clone(),
            text: LayerText::Text(text.clone()),
        };
        let Some(parent) = sec.extends.clone() else {
            let fitted_files = sec
                .fitted
                .iter()
                .flatten()
                .map(|(n, _)| (n.clone(), display.clone()))
                .collect();
            return Ok(Chain {
                section: sec,
                fitted_files,
                layers: vec![layer],
            });
        };
        if seen.len() >= MAX_CHAIN {
            return Err(err("extends", too_deep(&parent, seen)));
        }
        let here = Referrer::File {
            file: &file,
            text: &text,
            rel: rel.as_deref(),
        };
        let base = self.chain(&here, &parent, LayerKind::Template, seen)?;
        Ok(merge(sec, &display, layer, base))
    }

    /// The file's identity in the chain: its canonical path, relative to the scenario's folder
    /// (bundled files and paths that do not resolve: their name in messages).
    fn identity(&self, display: &str, rel: Option<&Path>) -> String {
        match rel {
            Some(r) => self
                .path
                .parent()
                .unwrap_or(Path::new("."))
                .join(r)
                .canonicalize()
                .map_or_else(|_| display.to_string(), |p| p.display().to_string()),
            None => display.to_string(),
        }
    }

    /// Refuses a file already in the chain below `from`, naming the cycle.
    fn check_no_cycle(
        &self,
        from: &Referrer<'_>,
        reference: &str,
        seen: &[(String, String)],
        identity: &str,
        display: &str,
    ) -> Result<(), ScenarioError> {
        if let Some(i) = seen.iter().position(|(id, _)| *id == identity) {
            let cycle: Vec<&str> = seen[i..]
                .iter()
                .map(|(_, f)| f.as_str())
                .chain([display])
                .collect();
            return Err(refuse(
                self,
                from,
                format!(
                    "`{reference}`: extends cycle {}: expected a chain that ends in a file without `extends`",
                    cycle.join(" → ")
                ),
            ));
        }
        Ok(())
    }

    /// The file `reference` names: its name in messages, its text, and its path relative to the
    /// scenario's folder (`None` when bundled).
    fn read_hardware_file(
        &self,
        from: &Referrer<'_>,
        reference: &str,
        kind: LayerKind,
    ) -> Result<(PathBuf, String, Option<PathBuf>), ScenarioError> {
        let templates = || presets::names("hardware-template").join(", ");
        if presets::is_path(reference) {
            let (key, rel) = match from {
                Referrer::Scenario(key) => (*key, PathBuf::from(reference)),
                Referrer::File { rel: Some(r), .. } => {
                    ("extends", r.parent().unwrap_or(Path::new("")).join(reference))
                }
                Referrer::File { rel: None, .. } => {
                    return Err(refuse(
                        self,
                        from,
                        format!(
                            "`{reference}`: a bundled file extends a bundled template by name; expected one of: {}",
                            templates()
                        ),
                    ));
                }
            };
            return match self.read_relative(key, &rel.display().to_string()) {
                Ok((p, t)) => Ok((p, t, Some(rel))),
                Err(e) => match (from, e) {
                    (Referrer::File { .. }, ScenarioError::Invalid { message, .. }) => Err(refuse(
                        self,
                        from,
                        message.replace("preset file", "template file"),
                    )),
                    (_, e) => Err(e),
                },
            };
        }
        let (text, file) = if kind == LayerKind::Preset {
            let t = presets::hardware(reference).ok_or_else(|| {
                refuse(
                    self,
                    from,
                    format!(
                        "unknown hardware preset `{reference}`; expected one of: {}",
                        presets::names("hardware").join(", ")
                    ),
                )
            })?;
            (t, format!("<preset hardware/{reference}.toml>"))
        } else {
            let t = presets::hardware_template(reference).ok_or_else(|| {
                refuse(
                    self,
                    from,
                    if presets::hardware(reference).is_some() {
                        format!(
                            "`{reference}` is a hardware preset, not a template: expected a template, one of: {} (or a file by its path)",
                            templates()
                        )
                    } else {
                        format!(
                            "unknown hardware template `{reference}`; expected one of: {} (or a file by its path)",
                            templates()
                        )
                    },
                )
            })?;
            (t, format!("<preset hardware/templates/{reference}.toml>"))
        };
        Ok((PathBuf::from(file), text.to_string(), None))
    }
}

/// An error about the reference itself, named where it is written.
/// A preset's or template's own section, parsed, with what only a scenario may name refused and
/// its compute curves and fitted records checked.
fn layer_section(file: &Path, text: &str, kind: LayerKind) -> Result<HardwareSection, ScenarioError> {
    let err = |k: &str, m: String| ScenarioError::invalid(file, text, k, m);
    let sec: HardwareSection = error::parse_toml(text, file)?;
    if sec.preset.is_some() || sec.gpus.is_some() || sec.profile.is_some() {
        let what = if kind == LayerKind::Template {
            "a hardware template"
        } else {
            "a hardware preset file"
        };
        return Err(err(
            "preset",
            format!("{what} cannot itself name a preset, a profile or a GPU count"),
        ));
    }
    if let Some(c) = &sec.compute {
        profile::curves_of(c).map_err(|(k, m)| err(&k, m))?;
    }
    check_fitted(&sec, "fitted", |k, m| err(k, m))?;
    Ok(sec)
}

/// The message for an extends chain longer than [`MAX_CHAIN`] files.
fn too_deep(parent: &str, seen: &[(String, String)]) -> String {
    let files: Vec<&str> = seen.iter().map(|(_, f)| f.as_str()).collect();
    format!(
        "`{parent}`: more than {MAX_CHAIN} files in one extends chain ({} → …): expected a preset and at most {} templates",
        files.join(" → "),
        MAX_CHAIN - 1
    )
}

fn refuse(r: &Resolver<'_>, from: &Referrer<'_>, message: String) -> ScenarioError {
    match from {
        Referrer::Scenario(key) => r.invalid(key, message),
        Referrer::File { file, text, .. } => ScenarioError::invalid(file, text, "extends", message),
    }
}

/// `child` (the file `file`) over the chain `base` below it: key by key as a scenario over its
/// preset; a fitted mark of `base` is dropped where `child` sets the parameter without declaring it
/// fitted again.
fn merge(child: HardwareSection, file: &str, layer: Layer, base: Chain) -> Chain {
    let Chain {
        section: mut base_section,
        fitted_files: base_files,
        mut layers,
    } = base;
    let params = child.params.clone().unwrap_or_default();
    let mut fitted = BTreeMap::new();
    let mut fitted_files = BTreeMap::new();
    for (name, f) in base_section.fitted.take().unwrap_or_default() {
        // A value this file sets is its own, no longer the template's fitted one.
        if !params.is_set(&name) {
            let from = base_files.get(&name).cloned().unwrap_or_default();
            fitted_files.insert(name.clone(), from);
            fitted.insert(name, f);
        }
    }
    for (name, f) in child.fitted.clone().unwrap_or_default() {
        fitted_files.insert(name.clone(), file.to_string());
        fitted.insert(name, f);
    }
    let mut section = child.merged_over(base_section);
    section.fitted = (!fitted.is_empty()).then_some(fitted);
    layers.push(layer);
    Chain {
        section,
        fitted_files,
        layers,
    }
}

/// The value at a dotted key of a table.
fn get<'t>(table: &'t toml::Table, key: &str) -> Option<&'t toml::Value> {
    let mut parts = key.split('.');
    let mut v = table.get(parts.next()?)?;
    for p in parts {
        v = v.as_table()?.get(p)?;
    }
    Some(v)
}

/// The keys `--explain` takes, in words.
pub const EXPLAIN_KEYS: &str = "hardware.name, hardware.cpu_vendor, hardware.cpu_generation, hardware.numa_nodes, hardware.gpu.<key>, hardware.topology.gpus, \
hardware.topology.nodes[.<node>[.<key>]], hardware.params.<key>, hardware.compute.curves.<class>[.<key>], hardware.compute.formats.<dtype>[.<key>], hardware.compute.attention_backends.<name>[.<key>], hardware.compute.moe_backends.<name>[.<key>] or \
hardware.fitted.<param>";

/// How a key merges.
enum Unit {
    /// A key (or a subtree replaced whole: a curve class) that the topmost file setting it supplies.
    Key(String),
    /// `topology.gpus`.
    Gpus,
    /// `topology.nodes…`: from the topmost file with a `[topology]` (its `gpus` replace the nodes too).
    Nodes,
    /// `fitted.<param>`: declared by a file, dropped by a later one that sets the value alone.
    Fitted(String),
}

fn unit_of(key: &str) -> Result<Unit, String> {
    let bad = || format!("key `{key}`: expected {EXPLAIN_KEYS}");
    let parts: Vec<&str> = key.split('.').collect();
    match parts.as_slice() {
        ["name"] | ["cpu_vendor"] | ["cpu_generation"] | ["numa_nodes"] => Ok(Unit::Key(key.to_string())),
        ["gpu", k] if GpuSection::FIELDS.contains(k) => Ok(Unit::Key(key.to_string())),
        ["params", k] if ParamsSection::FIELDS.contains(k) => Ok(Unit::Key(key.to_string())),
        ["gpu", k] | ["params", k] => Err(format!(
            "key `{key}`: `{k}` is not a key of [{}]: expected one of {}",
            parts[0],
            if parts[0] == "gpu" {
                GpuSection::FIELDS.join(", ")
            } else {
                ParamsSection::FIELDS.join(", ")
            }
        )),
        ["topology", "gpus"] => Ok(Unit::Gpus),
        ["topology", "nodes", ..] if parts.len() <= 4 => Ok(Unit::Nodes),
        ["compute", "curves", class, ..] if parts.len() <= 4 => {
            tpsim_model::curves::OpClass::from_key(class).map_err(|e| format!("key `{key}`: {e}"))?;
            Ok(Unit::Key(format!("compute.curves.{class}")))
        }
        ["compute", "attention_backends", b, ..] if parts.len() <= 4 => {
            if !crate::scenario::attention_backend::is_known_backend(b) {
                return Err(format!(
                    "key `{key}`: `{b}` is not an SGLang or vLLM --attention-backend"
                ));
            }
            Ok(Unit::Key(format!("compute.attention_backends.{b}")))
        }
        ["compute", "moe_backends", b, ..] if parts.len() <= 4 => {
            crate::scenario::moe_backend::check(b.to_string()).map_err(|e| format!("key `{key}`: {e}"))?;
            Ok(Unit::Key(format!("compute.moe_backends.{b}")))
        }
        ["compute", "formats", f, ..] if parts.len() <= 4 => {
            tpsim_model::curves::format_from_key(f).map_err(|e| format!("key `{key}`: {e}"))?;
            Ok(Unit::Key(format!("compute.formats.{f}")))
        }
        ["fitted", p, rest @ ..] if rest.is_empty() || rest == ["rows"] || rest == ["refit"] => {
            if profile::param_unit(p).is_none() {
                return Err(format!(
                    "key `{key}`: `{p}` is not a fittable parameter: expected one of {}",
                    profile::PROFILE_PARAMS
                        .iter()
                        .map(|(n, _)| *n)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            Ok(Unit::Fitted((*p).to_string()))
        }
        _ => Err(bad()),
    }
}

/// A layer's value at `key` as `--explain` prints it: the TOML as written, or a profile
/// parameter's `value unit`.
fn shown(layer: &Layer, table: &toml::Table, key: &str) -> Option<String> {
    let v = get(table, key)?;
    if layer.kind == LayerKind::Profile && key.starts_with("params.") {
        let value = v.get("value").map(|x| x.to_string()).unwrap_or_default();
        let unit = v.get("unit").and_then(|u| u.as_str()).unwrap_or("");
        return Some(if unit.is_empty() {
            value
        } else {
            format!("{value} {unit}")
        });
    }
    Some(v.to_string())
}

/// `tpsim validate --explain KEY`: the resolved value of the hardware key `key` (with or without
/// the `hardware.` prefix), the file it came from, and the values it overrode, lowest last. `Err`
/// says which keys are expected.
pub fn explain(hw: &super::Hardware, key: &str) -> Result<String, String> {
    let k = key.strip_prefix("hardware.").unwrap_or(key);
    let unit = unit_of(k)?;
    let parsed: Vec<Parsed<'_>> = hw
        .layers
        .iter()
        .map(|l| {
            let (text, table) = l.parsed();
            (l, text, table)
        })
        .collect();
    let full = format!("hardware.{k}");
    let mut o = String::new();
    // The files that supply the key, lowest first.
    let setters: Vec<&Parsed<'_>> = match &unit {
        Unit::Key(u) => parsed.iter().filter(|(_, _, t)| get(t, u).is_some()).collect(),
        Unit::Gpus => parsed
            .iter()
            .filter(|(_, _, t)| get(t, "topology.gpus").is_some())
            .collect(),
        Unit::Nodes => parsed
            .iter()
            .filter(|(_, _, t)| get(t, "topology.gpus").is_some() || get(t, "topology.nodes").is_some())
            .collect(),
        Unit::Fitted(p) => return Ok(explain_fitted(hw, &parsed, p, k)),
    };
    let Some(((top, text, table), below)) = setters.split_last().map(|(t, b)| (*t, b)) else {
        let default = match k {
            "name" => format!("{:?}", hw.name),
            "cpu_vendor" => "\"amd\"".to_string(),
            "gpu.nvlink" => hw.gpu.nvlink.to_string(),
            "params.collapse_reads" => hw.params.collapse_reads.to_string(),
            _ => String::new(),
        };
        if default.is_empty() {
            let _ = writeln!(o, "{full}: not set");
        } else {
            let _ = writeln!(o, "{full} = {default}");
        }
        let _ = writeln!(
            o,
            "  set in     no file: the default applies (book/src/scenarios.md)"
        );
        return Ok(o);
    };
    match shown(top, table, k) {
        Some(v) => {
            let _ = writeln!(o, "{full} = {v}");
        }
        None => {
            // The topmost file's table replaced the key's and does not set it.
            let _ = writeln!(o, "{full}: not set: the default applies (book/src/scenarios.md)");
        }
    }
    let at = |l: &Layer, text: &str, table: &toml::Table| -> String {
        // Point at the key itself when the file writes it, else at the table that replaced it.
        let anchor = match &unit {
            Unit::Key(u) if get(table, k).is_none() => u.clone(),
            Unit::Nodes if get(table, k).is_none() => "topology".to_string(),
            _ => k.to_string(),
        };
        l.at(text, &anchor)
    };
    let label = if get(table, k).is_some() {
        "set in    "
    } else {
        "not set in"
    };
    let _ = writeln!(o, "  {label} {} ({})", at(top, text, table), top.kind.as_str());
    for (l, text, table) in below.iter().rev() {
        let v = shown(l, table, k).unwrap_or_else(|| "(not set there)".to_string());
        let _ = writeln!(
            o,
            "  overrides  {v} in {} ({})",
            at(l, text, table),
            l.kind.as_str()
        );
    }
    if let Some(p) = k.strip_prefix("params.")
        && profile::param_unit(p).is_some()
    {
        o.push_str(&fitted_line(hw, &parsed, p));
    }
    Ok(o)
}

/// A layer with its text and its hardware keys as a table.
type Parsed<'a> = (&'a Layer, String, toml::Table);

/// What became of the `[fitted]` marks of `param`: the file whose mark stands (if one does) and
/// the marks later files dropped by setting the value alone, as (mark, dropped by).
fn fitted_walk<'a>(
    parsed: &'a [Parsed<'a>],
    param: &str,
) -> (Option<&'a Parsed<'a>>, Vec<(&'a Parsed<'a>, &'a Parsed<'a>)>) {
    let value = format!("params.{param}");
    let mark_key = format!("fitted.{param}");
    let mut mark = None;
    let mut dropped = Vec::new();
    for entry in parsed {
        let (l, _, t) = entry;
        let sets = get(t, &value).is_some();
        // A profile's parameters are fitted by construction.
        let declares = get(t, &mark_key).is_some() || (l.kind == LayerKind::Profile && sets);
        if declares {
            mark = Some(entry);
        } else if sets && let Some(m) = mark.take() {
            dropped.push((m, entry));
        }
    }
    (mark, dropped)
}

fn fitted_line(hw: &super::Hardware, parsed: &[Parsed<'_>], param: &str) -> String {
    let (mark, dropped) = fitted_walk(parsed, param);
    match (hw.fitted.get(param), mark) {
        (Some(f), Some((l, text, _))) => {
            let key = if l.kind == LayerKind::Profile {
                format!("params.{param}")
            } else {
                format!("fitted.{param}")
            };
            format!(
                "  fitted to  {}\n  refit      {}\n  declared   {} ({})\n",
                f.rows,
                f.refit,
                l.at(text, &key),
                l.kind.as_str()
            )
        }
        _ => match dropped.last() {
            Some(((m, mt, _), (d, dt, _))) => format!(
                "  not fitted: the value of {} replaces the fitted one of {}\n",
                d.at(dt, &format!("params.{param}")),
                m.at(mt, &format!("fitted.{param}"))
            ),
            None => String::new(),
        },
    }
}

fn explain_fitted(hw: &super::Hardware, parsed: &[Parsed<'_>], param: &str, key: &str) -> String {
    let full = format!("hardware.{key}");
    let mut o = String::new();
    let (mark, dropped) = fitted_walk(parsed, param);
    match (hw.fitted.get(param), mark) {
        (Some(f), Some((l, text, _))) => {
            let value = match key.rsplit('.').next() {
                Some("rows") => format!("{:?}", f.rows),
                Some("refit") => format!("{:?}", f.refit),
                _ => format!("{{ rows = {:?}, refit = {:?} }}", f.rows, f.refit),
            };
            let k = if l.kind == LayerKind::Profile {
                format!("params.{param}")
            } else {
                key.to_string()
            };
            let _ = writeln!(o, "{full} = {value}");
            let _ = writeln!(o, "  set in     {} ({})", l.at(text, &k), l.kind.as_str());
        }
        _ => {
            let _ = writeln!(o, "{full}: not fitted");
        }
    }
    for ((m, mt, _), (d, dt, _)) in dropped.iter().rev() {
        let _ = writeln!(
            o,
            "  dropped    the mark of {} ({}): {} ({}) sets params.{param} without it",
            m.at(mt, &format!("fitted.{param}")),
            m.kind.as_str(),
            d.at(dt, &format!("params.{param}")),
            d.kind.as_str()
        );
    }
    o
}

#[cfg(test)]
mod tests {
    use super::*;

    fn section(text: &str) -> HardwareSection {
        toml::from_str(text).expect("a hardware section")
    }

    fn layer(file: &str) -> Layer {
        Layer {
            kind: LayerKind::Template,
            file: file.into(),
            text: LayerText::Text(String::new()),
        }
    }

    fn chain(text: &str, file: &str) -> Chain {
        let section = section(text);
        let fitted_files = section
            .fitted
            .iter()
            .flatten()
            .map(|(n, _)| (n.clone(), file.to_string()))
            .collect();
        Chain {
            section,
            fitted_files,
            layers: vec![layer(file)],
        }
    }

    const BASE: &str = "[params]\nshm_copy_bw = \"2GB/s\"\nshm_step_cost = \"0.2us\"\ncollapse_factor = 0.25\n\
        [gpu]\nname = \"g\"\nsm_count = 1\n\
        [fitted.shm_copy_bw]\nrows = \"r\"\nrefit = \"c\"\n\
        [fitted.shm_step_cost]\nrows = \"r\"\nrefit = \"c\"\n\
        [fitted.collapse_factor]\nrows = \"r\"\nrefit = \"c\"\n";

    #[test]
    fn a_child_value_wins_and_drops_the_template_mark_unless_declared_again() {
        let child = section(
            "[params]\nshm_copy_bw = \"3GB/s\"\nshm_step_cost = \"0.3us\"\n[gpu]\nname = \"h\"\n\
             [fitted.shm_step_cost]\nrows = \"mine\"\nrefit = \"c\"\n",
        );
        let m = merge(child, "child", layer("child"), chain(BASE, "base"));
        let p = m.section.params.unwrap();
        assert!((p.shm_copy_bw.unwrap().as_gbps() - 3.0).abs() < 1e-12);
        assert!(
            (p.collapse_factor.unwrap() - 0.25).abs() < 1e-12,
            "kept from the template"
        );
        let g = m.section.gpu.unwrap();
        assert_eq!(g.name.as_deref(), Some("h"));
        assert_eq!(g.sm_count, Some(1));
        let fitted = m.section.fitted.unwrap();
        assert!(!fitted.contains_key("shm_copy_bw"), "set without a mark: dropped");
        assert_eq!(fitted["shm_step_cost"].rows, "mine");
        assert_eq!(m.fitted_files["shm_step_cost"], "child");
        assert_eq!(m.fitted_files["collapse_factor"], "base");
        assert_eq!(fitted.len(), 2);
        assert_eq!(m.layers.len(), 2);
        assert!(m.section.extends.is_none());
    }

    #[test]
    fn a_topology_with_paths_replaces_the_template_s_nodes() {
        let base = "[topology]\ngpus = [\"socket0/root0/switch0\"]\n[topology.nodes.switch0]\ngen = 4\n";
        let only_nodes = section("[topology.nodes.switch0]\ngen = 5\n");
        let m = merge(only_nodes, "c", layer("c"), chain(base, "b"));
        let t = m.section.topology.unwrap();
        assert_eq!(t.gpus.unwrap(), ["socket0/root0/switch0"]);
        assert_eq!(t.nodes.unwrap()["switch0"].pcie_gen, Some(5));
        let paths = section("[topology]\ngpus = [\"socket0/root1\"]\n");
        let m = merge(paths, "c", layer("c"), chain(base, "b"));
        let t = m.section.topology.unwrap();
        assert_eq!(t.gpus.unwrap(), ["socket0/root1"]);
        assert!(t.nodes.is_none());
    }

    #[test]
    fn explain_keys_are_classified_and_others_refused() {
        assert!(
            matches!(unit_of("params.nccl_channel_bw"), Ok(Unit::Key(k)) if k == "params.nccl_channel_bw")
        );
        assert!(
            matches!(unit_of("compute.curves.mlp.points"), Ok(Unit::Key(k)) if k == "compute.curves.mlp")
        );
        assert!(matches!(unit_of("topology.nodes.switch0.gen"), Ok(Unit::Nodes)));
        assert!(matches!(unit_of("topology.gpus"), Ok(Unit::Gpus)));
        assert!(matches!(unit_of("fitted.shm_copy_bw.rows"), Ok(Unit::Fitted(p)) if p == "shm_copy_bw"));
        for bad in [
            "params.bogus",
            "gpu.colour",
            "compute.curves.gemv",
            "fitted.force_p2p",
            "engine.tp",
            "topology",
        ] {
            assert!(unit_of(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn dotted_keys_are_looked_up() {
        let t: toml::Table = toml::from_str("[a.b]\nc = 1\n").unwrap();
        assert_eq!(get(&t, "a.b.c").and_then(toml::Value::as_integer), Some(1));
        assert!(get(&t, "a.x").is_none());
        assert!(get(&t, "a.b.c.d").is_none());
    }
}
