//! The structural hypotheses `identify` ranks: hardware presets (candidate topologies) × the knobs
//! tpsim's presets and scenarios already expose, each only where it can change a prediction:
//!
//! - `p2p`: the NCCL P2P level the box really ran with — `as-run` (the observation's own
//!   environment, NCCL's default PXB on AMD hosts otherwise), `sys` (`NCCL_P2P_LEVEL=SYS` was set
//!   somewhere: P2P across root ports and sockets), `disabled` (`NCCL_P2P_DISABLE=1`, or a host that
//!   blocks P2P: every pair on SHM);
//! - `nccl`: the NCCL release (`engine.nccl_version`; its search and tuner tables); `as-run` keeps
//!   the scenario's (its engine version's torch pin, or tpsim's default);
//! - `collapse`: `preset` (the preset's posted-write collapse) or `none` (`collapse_factor = 1`: a
//!   platform that does not collapse);
//! - `acs`: `preset` or `on` (ACS redirect on every switch: peer traffic turns at the root port);
//!   switch presets only;
//! - `force_p2p`: `preset` or `on` (the driver's ForceP2P mode: kernel peer loads not staged
//!   through system memory); presets with direct-attached GPUs only.
//!
//! IOMMU is not a knob: tpsim models no IOMMU effect (an IOMMU that blocks P2P is `p2p = disabled`).

use super::IdentifyError;
use serde::Deserialize;
use std::path::{Path, PathBuf};
use tpsim::scenario::{self, Hardware};

/// `[hypotheses]` of the observations file (each list optional; defaults in [`enumerate`]).
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HypothesesSection {
    /// Hardware presets: bundled names, or files relative to the observations file.
    pub presets: Option<Vec<String>>,
    pub p2p: Option<Vec<String>>,
    pub nccl: Option<Vec<String>>,
    pub collapse: Option<Vec<String>>,
    pub acs: Option<Vec<String>>,
    pub force_p2p: Option<Vec<String>>,
}

/// The NCCL P2P level a hypothesis assumes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum P2p {
    AsRun,
    Sys,
    Disabled,
}

impl P2p {
    pub fn name(self) -> &'static str {
        match self {
            P2p::AsRun => "as-run",
            P2p::Sys => "sys",
            P2p::Disabled => "disabled",
        }
    }

    /// The environment a run with `env` had under this hypothesis.
    pub fn env(self, env: &[String]) -> Vec<String> {
        let mut out = env.to_vec();
        match self {
            P2p::AsRun => {}
            P2p::Sys => {
                if !out.iter().any(|e| e.starts_with("NCCL_P2P_")) {
                    out.push("NCCL_P2P_LEVEL=SYS".into());
                }
            }
            P2p::Disabled => {
                out.retain(|e| !e.starts_with("NCCL_P2P_"));
                out.push("NCCL_P2P_DISABLE=1".into());
            }
        }
        out
    }
}

/// One structural hypothesis.
#[derive(Debug, Clone)]
pub struct Hypothesis {
    /// The preset as given (name or path) and its resolved reference (an absolute path for files).
    pub preset: String,
    pub preset_ref: String,
    pub p2p: P2p,
    /// `None`: as run.
    pub nccl: Option<String>,
    pub collapse_off: bool,
    pub acs_on: bool,
    pub force_p2p: bool,
    /// The preset with this hypothesis's knobs applied (parameters at the preset's values).
    pub hardware: Hardware,
}

impl Hypothesis {
    /// `preset p2p=… nccl=…[ collapse=none][ acs=on][ force_p2p=on]`.
    pub fn name(&self) -> String {
        let mut s = format!(
            "{} p2p={} nccl={}",
            self.preset,
            self.p2p.name(),
            self.nccl.as_deref().unwrap_or("as-run")
        );
        if self.collapse_off {
            s.push_str(" collapse=none");
        }
        if self.acs_on {
            s.push_str(" acs=on");
        }
        if self.force_p2p {
            s.push_str(" force_p2p=on");
        }
        s
    }

    /// `hw` (the preset's, or a fitted copy) with this hypothesis's knobs.
    fn apply(&self, hw: &mut Hardware) {
        if self.collapse_off {
            hw.params.collapse_factor = 1.0;
        }
        if self.acs_on {
            hw.topology.set_switch_acs(true);
        }
        if self.force_p2p {
            hw.params.force_p2p = true;
        }
    }

    /// The scenario `text` (file `path`) as run on this hypothesis, with parameters `params`: the
    /// preset substituted, the P2P environment and NCCL release set, the knobs applied.
    pub fn scenario(
        &self,
        path: &Path,
        text: &str,
        params: &tpsim::scenario::HwParams,
        output_len: Option<u32>,
    ) -> Result<tpsim::scenario::Scenario, String> {
        let mut doc: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
        let hw = table(&mut doc, "hardware");
        hw.insert("preset".into(), toml::Value::String(self.preset_ref.clone()));
        let engine = table(&mut doc, "engine");
        if let Some(v) = &self.nccl {
            engine.insert("nccl_version".into(), toml::Value::String(v.clone()));
        }
        let env = table(engine, "env");
        let as_args: Vec<String> = env
            .iter()
            .map(|(k, v)| format!("{k}={}", v.as_str().unwrap_or_default()))
            .collect();
        env.clear();
        for kv in self.p2p.env(&as_args) {
            if let Some((k, v)) = kv.split_once('=') {
                env.insert(k.into(), toml::Value::String(v.into()));
            }
        }
        let text = toml::to_string(&doc).map_err(|e| e.to_string())?;
        let mut s = scenario::load_str(&text, path).map_err(|e| e.to_string())?;
        s.hardware.params = params.clone();
        self.apply(&mut s.hardware);
        if let Some(n) = output_len {
            s.workload.output_len = tpsim::scenario::LengthSpec::Fixed(n);
        }
        Ok(s)
    }
}

fn table<'a>(doc: &'a mut toml::Table, key: &str) -> &'a mut toml::Table {
    let v = doc
        .entry(key.to_string())
        .or_insert_with(|| toml::Value::Table(toml::Table::new()));
    if !v.is_table() {
        *v = toml::Value::Table(toml::Table::new());
    }
    v.as_table_mut().expect("a table was just put here")
}

/// Scenario text without its `[engine.observed]` (tpsim then models free memory itself).
pub fn without_observed(text: &str) -> Result<String, String> {
    let mut doc: toml::Table = toml::from_str(text).map_err(|e| e.to_string())?;
    if let Some(e) = doc.get_mut("engine").and_then(|e| e.as_table_mut()) {
        e.remove("observed");
    }
    toml::to_string(&doc).map_err(|e| e.to_string())
}

/// Resolves the presets (`--hypotheses` wins over `[hypotheses] presets`): a directory contributes
/// its `*.toml` files in name order, a file itself, anything else is a bundled preset name.
fn presets(
    given: &[PathBuf],
    section: Option<&[String]>,
    dir: &Path,
    file: &str,
) -> Result<Vec<(String, String)>, IdentifyError> {
    let mut out = Vec::new();
    if !given.is_empty() {
        for g in given {
            if g.is_dir() {
                let mut entries: Vec<PathBuf> = std::fs::read_dir(g)
                    .map_err(|e| IdentifyError::Hypothesis(format!("{}: cannot read: {e}", g.display())))?
                    .filter_map(|e| e.ok().map(|e| e.path()))
                    .filter(|p| p.extension().is_some_and(|x| x == "toml"))
                    .collect();
                entries.sort();
                for p in entries {
                    out.push((p.display().to_string(), abs(&p)));
                }
            } else if g.is_file() {
                out.push((g.display().to_string(), abs(g)));
            } else {
                let n = g.display().to_string();
                if tpsim::presets::hardware(&n).is_none() {
                    return Err(IdentifyError::Hypothesis(format!(
                        "--hypotheses `{n}`: not a directory, a file or a bundled hardware preset"
                    )));
                }
                out.push((n.clone(), n));
            }
        }
    } else if let Some(list) = section {
        for n in list {
            let p = dir.join(n);
            if n.ends_with(".toml") {
                if !p.is_file() {
                    return Err(IdentifyError::Input {
                        file: file.into(),
                        message: format!("hypotheses.presets: `{n}`: no such file"),
                    });
                }
                out.push((n.clone(), abs(&p)));
            } else if tpsim::presets::hardware(n).is_some() {
                out.push((n.clone(), n.clone()));
            } else {
                return Err(IdentifyError::Input {
                    file: file.into(),
                    message: format!(
                        "hypotheses.presets: `{n}`: not a bundled hardware preset (`tpsim presets` lists them) nor a .toml file"
                    ),
                });
            }
        }
    }
    if out.is_empty() {
        return Err(IdentifyError::Hypothesis(
            "no hardware preset to try: give `[hypotheses] presets` in the observations file or --hypotheses"
                .into(),
        ));
    }
    Ok(out)
}

fn abs(p: &Path) -> String {
    std::fs::canonicalize(p)
        .unwrap_or_else(|_| p.to_path_buf())
        .display()
        .to_string()
}

fn choices<'a>(
    list: Option<&'a [String]>,
    default: &'a [&'a str],
    key: &str,
    allowed: &[&str],
    file: &str,
) -> Result<Vec<String>, IdentifyError> {
    let v: Vec<String> = match list {
        Some(l) => l.to_vec(),
        None => default.iter().map(|s| s.to_string()).collect(),
    };
    if v.is_empty() {
        return Err(IdentifyError::Input {
            file: file.into(),
            message: format!("hypotheses.{key}: empty: expected some of {}", allowed.join(", ")),
        });
    }
    for x in &v {
        if !allowed.is_empty() && !allowed.contains(&x.as_str()) {
            return Err(IdentifyError::Input {
                file: file.into(),
                message: format!("hypotheses.{key}: `{x}`: expected some of {}", allowed.join(", ")),
            });
        }
    }
    Ok(v)
}

/// Every hypothesis, in a fixed order (preset, p2p, nccl, collapse, acs, force_p2p).
pub fn enumerate(
    section: &HypothesesSection,
    given: &[PathBuf],
    dir: &Path,
    file: &str,
) -> Result<Vec<Hypothesis>, IdentifyError> {
    let presets = presets(given, section.presets.as_deref(), dir, file)?;
    let p2p = choices(
        section.p2p.as_deref(),
        &["as-run", "sys", "disabled"],
        "p2p",
        &["as-run", "sys", "disabled"],
        file,
    )?;
    let nccl = choices(section.nccl.as_deref(), &["as-run"], "nccl", &[], file)?;
    for v in &nccl {
        if v != "as-run" {
            tpsim_model::nccl::NcclVersion::parse(v).map_err(|e| IdentifyError::Input {
                file: file.into(),
                message: format!("hypotheses.nccl: `{v}`: {e}"),
            })?;
        }
    }
    let collapse = choices(
        section.collapse.as_deref(),
        &["preset", "none"],
        "collapse",
        &["preset", "none"],
        file,
    )?;
    let acs = choices(
        section.acs.as_deref(),
        &["preset"],
        "acs",
        &["preset", "on"],
        file,
    )?;
    let force = choices(
        section.force_p2p.as_deref(),
        &["preset"],
        "force_p2p",
        &["preset", "on"],
        file,
    )?;
    let mut out = Vec::new();
    for (name, reference) in presets {
        let hw = scenario::hardware_from_preset(&reference)
            .map_err(|e| IdentifyError::Hypothesis(format!("preset `{name}`: {e}")))?;
        let n = hw.topology.gpu_count();
        let has_switch = hw
            .topology
            .nodes()
            .iter()
            .any(|x| x.kind == tpsim_model::topo::NodeKind::Switch);
        let direct = (0..n).any(|g| hw.topology.is_direct_attach(g));
        for p in &p2p {
            let p = match p.as_str() {
                "sys" => P2p::Sys,
                "disabled" => P2p::Disabled,
                _ => P2p::AsRun,
            };
            for v in &nccl {
                for c in &collapse {
                    // A knob that cannot change anything on this preset is not enumerated.
                    for a in acs.iter().filter(|a| has_switch || a.as_str() == "preset") {
                        for f in force.iter().filter(|f| direct || f.as_str() == "preset") {
                            let mut h = Hypothesis {
                                preset: name.clone(),
                                preset_ref: reference.clone(),
                                p2p: p,
                                nccl: (v != "as-run").then(|| v.clone()),
                                collapse_off: c == "none",
                                acs_on: a == "on"
                                    && !hw
                                        .topology
                                        .nodes()
                                        .iter()
                                        .all(|x| x.acs || x.kind != tpsim_model::topo::NodeKind::Switch),
                                force_p2p: f == "on" && !hw.params.force_p2p,
                                hardware: hw.clone(),
                            };
                            if (a == "on" && !h.acs_on) || (f == "on" && !h.force_p2p) {
                                continue; // already so in the preset: the `preset` entry covers it
                            }
                            let mut hw2 = h.hardware.clone();
                            h.apply(&mut hw2);
                            h.hardware = hw2;
                            out.push(h);
                        }
                    }
                }
            }
        }
    }
    Ok(out)
}
