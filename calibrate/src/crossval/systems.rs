//! The allreduce systems file (`calibrate/crossval/allreduce-systems.toml`, schema
//! `tpsim-crossval-systems/1`) and the rows of the measured table it selects.
//!
//! The file lists the shared constants with their priors, the measured systems (each one box, with
//! one or more row sets: the table's rows whose `topology` and `algo_proto_if_known` columns contain
//! the set's strings, predicted on a preset with an NCCL environment and an algorithm), and the sized
//! rows that are not predicted, with the reason. Every row of the table with a size and a time must
//! belong to exactly one set or exclusion: a row added to the table must be classified here.

use super::CrossvalError;
use crate::fit::{Op, Row};
use serde::Deserialize;
use std::path::Path;
use tpsim::collective::parse_algo;
use tpsim::comm::Request;
use tpsim::launch::Launch;
use tpsim::scenario::{self, AllreduceBackend, Hardware, NcclEnv, profile as prof};

/// The schema string the file must carry.
pub const SCHEMA: &str = "tpsim-crossval-systems/1";

/// The system classes, by the path an allreduce's data takes between GPUs (the fabric model's three
/// transports): P2P through PCIe switches (the GPUs' traffic turns inside a switch), P2P through the
/// CPU's root complex (direct-attach root ports, one or two sockets), and SHM through host memory
/// (no P2P: NCCL's SHM transport).
pub const CLASSES: [&str; 3] = ["p2p-switch", "p2p-root-complex", "shm-host"];

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSpec {
    schema: String,
    shared: Vec<SharedSpec>,
    system: Vec<SystemSpec>,
    #[serde(default)]
    excluded: Vec<ExcludedSpec>,
}

/// A shared constant: a `[hardware.params]` name, its prior (profile unit) and where the prior comes
/// from.
#[derive(Debug, Clone, PartialEq, Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields)]
pub struct SharedSpec {
    pub name: String,
    pub prior: f64,
    pub source: String,
    /// shm52: a constant each host carries in its own preset (`[fitted]` on its own rows), so no fit
    /// moves it: a training system keeps its preset's value, and a held-out system gets the median of
    /// the training systems' preset values and `outside` (values measured on hosts outside the table),
    /// the rule `tpsim import-topo` applies to a host without its own figure
    /// (`MEDIAN_SHM_READ_EFFICIENCY`).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub per_host: bool,
    /// With `per_host`: the constant's values on measured hosts outside the table (profile unit).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub outside: Vec<f64>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SystemSpec {
    name: String,
    /// The system's class (issue #19's target is per class): how its GPUs exchange data.
    class: String,
    #[serde(default)]
    keep: Vec<String>,
    /// Why this system's leave-one-out median misses the target (`crossval allreduce --check`).
    #[serde(default)]
    known_miss: Option<String>,
    rows: Vec<SetSpec>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct SetSpec {
    topology: String,
    algorithm: String,
    preset: String,
    #[serde(default)]
    env: Vec<String>,
    #[serde(default = "nccl")]
    algo: String,
    /// Issue #19 points 1-2: `eager` (default: nccl-tests without -G, torch.distributed) or `graph`
    /// (the source replayed its calls from a CUDA graph).
    #[serde(default = "eager")]
    launch: String,
    /// Issue #19 point 1: the NCCL release the source ran (`2.19.3`, …; one of
    /// `NcclVersion::SUPPORTED`), when it says; default tpsim's model (2.30.7).
    #[serde(default)]
    nccl_version: Option<String>,
}

fn eager() -> String {
    "eager".into()
}

fn nccl() -> String {
    "nccl".into()
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct ExcludedSpec {
    topology: String,
    reason: String,
}

/// One row set of a system: its preset, the rows and their lines in the table.
#[derive(Debug, Clone)]
pub struct Part {
    pub preset: String,
    pub hardware: Hardware,
    pub rows: Vec<Row>,
    /// 1-based line of each row in the table (the header is line 1).
    pub lines: Vec<usize>,
}

/// One measured system (one box).
#[derive(Debug, Clone)]
pub struct System {
    pub name: String,
    /// How its GPUs exchange data, one of [`CLASSES`] (issue #19: "median |error| ≤ 20 % per system
    /// class").
    pub class: String,
    /// Shared constants that stay at the preset's value on this system.
    pub keep: Vec<String>,
    /// Why its out-of-sample median misses the target, when it does (the systems file's
    /// `known_miss`; `crossval allreduce --check` holds the list to the figures).
    pub known_miss: Option<String>,
    pub parts: Vec<Part>,
}

impl System {
    /// Number of rows over all parts.
    pub fn rows(&self) -> usize {
        self.parts.iter().map(|p| p.rows.len()).sum()
    }
}

/// Sized rows left out, with the reason.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Excluded {
    pub reason: String,
    pub lines: Vec<usize>,
}

/// The systems file applied to the table.
#[derive(Debug, Clone)]
pub struct Systems {
    pub shared: Vec<SharedSpec>,
    pub systems: Vec<System>,
    pub excluded: Vec<Excluded>,
    /// Rows without a size or a time (sweep averages).
    pub unsized_rows: usize,
}

/// What a row of the table belongs to: set `b` of system `a`, or exclusion `e`.
#[derive(Debug, Clone, Copy)]
enum Claim {
    Set(usize, usize),
    Excluded(usize),
}

fn input(file: &str, message: String) -> CrossvalError {
    CrossvalError::Input {
        file: file.to_string(),
        message,
    }
}

/// Reads the systems file `systems` and selects the rows of the table `data` (paths as given, for
/// messages).
pub fn load(systems: &Path, data: &Path) -> Result<Systems, CrossvalError> {
    let sf = systems.display().to_string();
    let text = tpsim::files::read_text(systems).map_err(|e| input(&sf, format!("cannot read: {e}")))?;
    let df = data.display().to_string();
    let table = tpsim::files::read_text(data).map_err(|e| input(&df, format!("cannot read: {e}")))?;
    parse(&text, &sf, &table, &df)
}

/// [`load`] on the texts of the two files (named `sf` and `df` in messages).
pub fn parse(text: &str, sf: &str, table: &str, df: &str) -> Result<Systems, CrossvalError> {
    let spec: FileSpec = toml::from_str(text).map_err(|e| input(sf, e.to_string().trim_end().to_string()))?;
    if spec.schema != SCHEMA {
        return Err(input(
            sf,
            format!("schema `{}`: expected \"{SCHEMA}\"", spec.schema),
        ));
    }
    check_shared(&spec.shared, sf)?;
    if spec.system.is_empty() {
        return Err(input(sf, "no [[system]]: expected at least one".into()));
    }
    let mut systems = Vec::new();
    for (i, s) in spec.system.iter().enumerate() {
        systems.push((s, resolve_system(&spec, i, s, sf)?));
    }
    let (excluded, unsized_rows) = select_rows(&spec, &mut systems, sf, table, df)?;
    let mut out = Vec::new();
    for (s, parts) in systems {
        let parts: Vec<Part> = parts.into_iter().map(|(p, _, _)| p).collect();
        if let Some(p) = parts.iter().position(|p| p.rows.is_empty()) {
            return Err(input(
                sf,
                format!(
                    "system `{}` rows[{p}]: no row of {df} matches topology `{}` and algorithm `{}`",
                    s.name, s.rows[p].topology, s.rows[p].algorithm
                ),
            ));
        }
        out.push(System {
            name: s.name.clone(),
            class: s.class.clone(),
            keep: s.keep.clone(),
            known_miss: s.known_miss.clone(),
            parts,
        });
    }
    Ok(Systems {
        shared: spec.shared,
        systems: out,
        excluded,
        unsized_rows,
    })
}

/// A row set being filled: the part, with the parsed environment and request its rows carry.
type PendingPart = (Part, NcclEnv, Request);

/// The `[[shared]]` constants: each named once, with a valid positive prior.
fn check_shared(shared: &[SharedSpec], sf: &str) -> Result<(), CrossvalError> {
    for (i, s) in shared.iter().enumerate() {
        let key = format!("shared[{i}]");
        if shared[..i].iter().any(|o| o.name == s.name) {
            return Err(input(sf, format!("{key}.name: `{}` is listed twice", s.name)));
        }
        prof::check(&s.name, s.prior).map_err(|m| input(sf, format!("{key} ({}): prior {m}", s.name)))?;
        for v in &s.outside {
            prof::check(&s.name, *v).map_err(|m| input(sf, format!("{key} ({}): outside {m}", s.name)))?;
        }
        if !s.per_host && !s.outside.is_empty() {
            return Err(input(
                sf,
                format!("{key} ({}).outside: only read with per_host = true", s.name),
            ));
        }
        if s.prior <= 0.0 {
            return Err(input(
                sf,
                format!(
                    "{key} ({}).prior: expected a value > 0 (the fit runs on the logarithm)",
                    s.name
                ),
            ));
        }
    }
    Ok(())
}

/// System number `i` of the file, checked, with its row sets' presets, environments and requests
/// resolved (and no rows yet).
fn resolve_system(
    spec: &FileSpec,
    i: usize,
    s: &SystemSpec,
    sf: &str,
) -> Result<Vec<PendingPart>, CrossvalError> {
    let key = format!("system[{i}] ({})", s.name);
    if spec.system[..i].iter().any(|o| o.name == s.name) {
        return Err(input(sf, format!("{key}.name: listed twice")));
    }
    for k in &s.keep {
        if !spec.shared.iter().any(|x| x.name == *k) {
            return Err(input(
                sf,
                format!("{key}.keep: `{k}` is not a [[shared]] constant"),
            ));
        }
    }
    if !CLASSES.contains(&s.class.as_str()) {
        return Err(input(
            sf,
            format!(
                "{key}.class: `{}`: expected one of {}",
                s.class,
                CLASSES.map(|c| format!("\"{c}\"")).join(", ")
            ),
        ));
    }
    if s.rows.is_empty() {
        return Err(input(sf, format!("{key}.rows: expected at least one row set")));
    }
    let mut parts = Vec::new();
    for (j, r) in s.rows.iter().enumerate() {
        let key = format!("{key}.rows[{j}]");
        let hardware =
            scenario::hardware_from_preset(&r.preset).map_err(|e| input(sf, format!("{key}.preset: {e}")))?;
        // A shared constant the preset leaves unset is one its box does not use (issue #19 point 1:
        // `shm_read_efficiency` without a `[host]`); the fit's value is set on it all the same. Only a
        // constant the system keeps at its preset's value must be set there.
        for n in spec.shared.iter().map(|x| &x.name).filter(|n| s.keep.contains(n)) {
            if prof::get(&hardware.params, n).is_none() {
                return Err(input(
                    sf,
                    format!("{key}.preset `{}`: `{n}` is not set", r.preset),
                ));
            }
        }
        let mut env =
            scenario::nccl_env_from_args(&r.env).map_err(|e| input(sf, format!("{key}.env: {e}")))?;
        if let Some(v) = &r.nccl_version {
            env.version = tpsim_model::nccl::NcclVersion::parse(v)
                .map_err(|e| input(sf, format!("{key}.nccl_version: {e}")))?;
        }
        let request =
            parse_algo(&r.algo, AllreduceBackend::Nccl).map_err(|e| input(sf, format!("{key}.algo: {e}")))?;
        if Launch::from_name(&r.launch).is_none() {
            return Err(input(
                sf,
                format!("{key}.launch: `{}`: expected eager or graph", r.launch),
            ));
        }
        // Kept whole for the rows: the parsed environment and request.
        parts.push((
            Part {
                preset: r.preset.clone(),
                hardware,
                rows: Vec::new(),
                lines: Vec::new(),
            },
            env,
            request,
        ));
    }
    Ok(parts)
}

/// The table's columns that the selection reads.
struct Columns {
    topology: usize,
    n_gpus: usize,
    size_bytes: usize,
    time_us: usize,
    algo: usize,
}

impl Columns {
    fn find(header: &[&str], df: &str) -> Result<Columns, CrossvalError> {
        let col = |name: &str| {
            header.iter().position(|h| *h == name).ok_or_else(|| {
                input(
                    &format!("{df}:1"),
                    format!("expected a header with a `{name}` column"),
                )
            })
        };
        Ok(Columns {
            topology: col("topology")?,
            n_gpus: col("n_gpus")?,
            size_bytes: col("size_bytes")?,
            time_us: col("time_us")?,
            algo: col("algo_proto_if_known")?,
        })
    }
}

/// Hands every sized row of the table to the one set or exclusion that claims it; returns the
/// exclusions with their lines and the number of unsized rows.
fn select_rows(
    spec: &FileSpec,
    systems: &mut [(&SystemSpec, Vec<PendingPart>)],
    sf: &str,
    table: &str,
    df: &str,
) -> Result<(Vec<Excluded>, usize), CrossvalError> {
    let mut lines = table.lines().enumerate().map(|(i, l)| (i + 1, l));
    let header: Vec<&str> = lines
        .next()
        .map(|(_, l)| l.split('\t').map(str::trim).collect())
        .unwrap_or_default();
    let cols = Columns::find(&header, df)?;
    let mut excluded: Vec<Excluded> = spec
        .excluded
        .iter()
        .map(|e| Excluded {
            reason: e.reason.clone(),
            lines: Vec::new(),
        })
        .collect();
    let mut unsized_rows = 0;
    for (line, l) in lines {
        if l.trim().is_empty() {
            continue;
        }
        let f: Vec<&str> = l.split('\t').map(str::trim).collect();
        let get = |k: usize| f.get(k).copied().unwrap_or("");
        if get(cols.size_bytes).is_empty() || get(cols.time_us).is_empty() {
            unsized_rows += 1;
            continue;
        }
        let at = format!("{df}:{line}");
        let (topo, algo) = (get(cols.topology), get(cols.algo));
        let (a, b) = match claim(spec, systems, sf, &at, topo, algo)? {
            Claim::Set(a, b) => (a, b),
            Claim::Excluded(e) => {
                excluded[e].lines.push(line);
                continue;
            }
        };
        let (s, parts) = &mut systems[a];
        add_row(s, b, &mut parts[b], &at, line, &cols, get)?;
    }
    Ok((excluded, unsized_rows))
}

/// The one set or exclusion that matches a row's topology and algorithm.
fn claim(
    spec: &FileSpec,
    systems: &[(&SystemSpec, Vec<PendingPart>)],
    sf: &str,
    at: &str,
    topo: &str,
    algo: &str,
) -> Result<Claim, CrossvalError> {
    // Every set or exclusion that matches, with a name for messages.
    let mut claims: Vec<(Claim, String)> = Vec::new();
    for (a, (s, _)) in systems.iter().enumerate() {
        for (b, r) in s.rows.iter().enumerate() {
            if topo.contains(&r.topology) && algo.contains(&r.algorithm) {
                claims.push((Claim::Set(a, b), format!("system `{}` rows[{b}]", s.name)));
            }
        }
    }
    for (e, x) in spec.excluded.iter().enumerate() {
        if topo.contains(&x.topology) {
            claims.push((Claim::Excluded(e), format!("excluded[{e}]")));
        }
    }
    match claims.len() {
        0 => Err(input(
            at,
            format!(
                "no [[system.rows]] set or [[excluded]] entry of {sf} matches this row (topology `{topo}`, algo_proto_if_known `{algo}`): expected exactly one"
            ),
        )),
        1 => Ok(claims[0].0),
        _ => Err(input(
            at,
            format!(
                "{} of {sf} all match this row: expected exactly one",
                claims.iter().map(|c| c.1.as_str()).collect::<Vec<_>>().join(", ")
            ),
        )),
    }
}

/// Reads a claimed row's GPU count, size and time into row set `b` of system `s`.
fn add_row<'f>(
    s: &SystemSpec,
    b: usize,
    (part, env, request): &mut PendingPart,
    at: &str,
    line: usize,
    cols: &Columns,
    get: impl Fn(usize) -> &'f str,
) -> Result<(), CrossvalError> {
    let bad = |what: &str, v: &str, want: &str| input(at, format!("{what} `{v}`: expected {want}"));
    let n: usize = get(cols.n_gpus)
        .parse()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| bad("n_gpus", get(cols.n_gpus), "an integer ≥ 1"))?;
    let size: u64 = get(cols.size_bytes)
        .parse()
        .ok()
        .filter(|s| (1..=tpsim::collective::MAX_SIZE_BYTES).contains(s))
        .ok_or_else(|| {
            bad(
                "size_bytes",
                get(cols.size_bytes),
                "an integer from 1 to 1 TiB (1099511627776)",
            )
        })?;
    let t: f64 = get(cols.time_us)
        .parse()
        .ok()
        .filter(|t: &f64| t.is_finite() && *t > 0.0)
        .ok_or_else(|| bad("time_us", get(cols.time_us), "a time in µs > 0"))?;
    let have = part.hardware.topology.gpu_count();
    if n > have {
        return Err(input(
            at,
            format!(
                "n_gpus {n}: preset `{}` (system `{}`) has {have} GPUs",
                part.preset, s.name
            ),
        ));
    }
    part.rows.push(Row {
        label: format!("{at} {} n={n} size={size}", s.name),
        op: Op::Collective(tpsim::collective::Op::Allreduce),
        n_gpus: n,
        size_bytes: size,
        measured_us: t,
        env_args: s.rows[b].env.clone(),
        env: env.clone(),
        request: *request,
        launch: Launch::from_name(&s.rows[b].launch).unwrap_or_default(),
    });
    part.lines.push(line);
    Ok(())
}
