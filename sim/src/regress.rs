//! The regression gate (`tpsim regress`): `scenarios/baselines.toml` stores the predicted metrics of
//! every scenario file under `scenarios/`; [`measure_all`] recomputes them, [`compare`] checks each metric with its
//! tolerance, [`render`] writes the file back deterministically (`--update`).
//!
//! A scenario file is every `*.toml` under the root, in any folder except the preset folders
//! `hardware/`, `engines/` and `models/`, and except the baselines files (the root's
//! [`BASELINES_FILE`] and the one given with `--baselines`). Keys are paths relative
//! to the root with `/` separators. Floats are stored with [`DECIMALS`] decimals and the recomputed
//! value is rounded the same way before comparing, so an unchanged model compares exactly equal and a
//! re-run of `--update` writes a byte-identical file.

use crate::decode::{self, DecodeError};
use crate::report::{self, RunReport};
use crate::scenario::{self, ScenarioError};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

/// Version of the baselines file format (`schema = 1` at its top).
pub const SCHEMA: u32 = 1;
/// Decimals of every stored float (a storage resolution of this tool, not a model constant).
pub const DECIMALS: usize = 6;
/// Name of the baselines file in the root (`scenarios/baselines.toml`).
pub const BASELINES_FILE: &str = "baselines.toml";
/// Folders under the root that hold presets, not scenarios.
// `nics`: the NIC presets of `[hardware.cluster]` (issue #17 point 4).
// `observations`: `tpsim-calibrate identify`'s observation files (issue #19 point 4), not scenarios.
pub const PRESET_DIRS: &[&str] = &[
    "hardware",
    "engines",
    "models",
    "acceptance",
    "profiles",
    "nics",
    "observations",
];

/// The metrics, in table order, with their default tolerances: the throughput and time metrics
/// within 0.5 % (the design's "honest tolerance" for a deterministic model: any code change that moves
/// them more is a model change), memory metrics exactly (memory sizing is engine arithmetic,
/// DESIGN.md §2.3). Speculative metrics only exist for scenarios that speculate.
pub const METRICS: &[(&str, Tolerance)] = &[
    ("verdict", Tolerance::EXACT),
    ("output_tok_s", Tolerance::rel(0.005)),
    ("tpot_ms", Tolerance::rel(0.005)),
    ("ttft_ms", Tolerance::rel(0.005)),
    ("kv_tokens", Tolerance::EXACT),
    ("min_mem_fraction_static", Tolerance::EXACT),
    ("accept_len_mean", Tolerance::rel(0.005)),
    ("tok_s_without_spec", Tolerance::rel(0.005)),
    ("allreduce_ms_per_iteration", Tolerance::rel(0.005)),
];

/// Errors of the regression gate. `Io`, `Baselines` and `Scenario` are bad input (exit 2);
/// `Decode` is an internal failure.
#[derive(Debug, thiserror::Error)]
pub enum RegressError {
    #[error("{file}: {message}")]
    Io { file: String, message: String },
    /// The baselines file does not parse or holds an unknown metric or a bad tolerance.
    #[error("baselines file: {0}")]
    Baselines(ScenarioError),
    /// A scenario under the root does not load.
    #[error("{0}")]
    Scenario(ScenarioError),
    #[error("{file}: {source}")]
    Decode { file: String, source: DecodeError },
}

/// How far a metric may move: |now − baseline| ≤ max(abs, rel × |baseline|). Both 0: exact.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Relative tolerance, a fraction (0.005 = 0.5 %).
    #[serde(default)]
    pub rel: f64,
    /// Absolute tolerance, in the metric's unit.
    #[serde(default)]
    pub abs: f64,
}

impl Tolerance {
    /// No movement allowed (at the stored resolution).
    pub const EXACT: Tolerance = Tolerance { rel: 0.0, abs: 0.0 };

    /// A relative tolerance (fraction).
    pub const fn rel(rel: f64) -> Tolerance {
        Tolerance { rel, abs: 0.0 }
    }

    fn allows(&self, base: f64, now: f64) -> bool {
        (now - base).abs() <= self.abs.max(self.rel * base.abs())
    }

    /// "±0.5 %", "±0.001", "exact".
    pub fn describe(&self) -> String {
        match (self.rel > 0.0, self.abs > 0.0) {
            (false, false) => "exact".into(),
            (true, false) => format!("±{} %", trim(self.rel * 100.0)),
            (false, true) => format!("±{}", trim(self.abs)),
            (true, true) => format!("±{} % or ±{}", trim(self.rel * 100.0), trim(self.abs)),
        }
    }

    fn to_toml(self) -> String {
        match (self.rel > 0.0, self.abs > 0.0) {
            (false, false) => "{ rel = 0.0 }".into(),
            (true, false) => format!("{{ rel = {} }}", fixed(self.rel)),
            (false, true) => format!("{{ abs = {} }}", fixed(self.abs)),
            (true, true) => format!("{{ rel = {}, abs = {} }}", fixed(self.rel), fixed(self.abs)),
        }
    }
}

/// One metric's value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    Float(f64),
    Int(u64),
    Text(String),
}

impl Value {
    fn to_toml(&self) -> String {
        match self {
            Value::Float(x) => fixed(*x),
            Value::Int(n) => n.to_string(),
            Value::Text(t) => toml::Value::String(t.clone()).to_string(),
        }
    }

    fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Float(x) => Some(*x),
            Value::Int(n) => Some(*n as f64),
            Value::Text(_) => None,
        }
    }
}

impl std::fmt::Display for Value {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Value::Float(x) => write!(f, "{}", trim(*x)),
            Value::Int(n) => write!(f, "{n}"),
            Value::Text(t) => write!(f, "{t}"),
        }
    }
}

/// A float with [`DECIMALS`] decimals (how it is stored).
fn fixed(x: f64) -> String {
    format!("{x:.DECIMALS$}")
}

/// A float with [`DECIMALS`] decimals, trailing zeros removed (for the table).
fn trim(x: f64) -> String {
    let s = fixed(x);
    let s = s.trim_end_matches('0');
    s.strip_suffix('.').unwrap_or(s).to_string()
}

/// A float rounded to the stored resolution.
fn quantize(x: f64) -> f64 {
    fixed(x).parse().unwrap_or(x)
}

/// The metrics of one scenario, by name (only those that apply).
pub type Metrics = BTreeMap<String, Value>;

/// The baselines file, parsed.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Baselines {
    /// Default tolerance per metric (the file's `[tolerance]`, over the built-in defaults).
    pub tolerance: BTreeMap<String, Tolerance>,
    /// Per scenario (relative path): its metrics and its tolerance overrides.
    pub scenarios: BTreeMap<String, (Metrics, BTreeMap<String, Tolerance>)>,
}

/// The metrics the gate stores for one run report.
pub fn metrics(r: &RunReport) -> Metrics {
    let mut m = Metrics::new();
    let mut put = |k: &str, v: Value| {
        m.insert(k.to_string(), v);
    };
    put("verdict", Value::Text(r.verdict.to_string()));
    // An engine that would not start has no throughput (its report has none): only the verdict and
    // the memory metrics are stored.
    if let Some(t) = &r.throughput {
        // Decode figures only when a decode iteration ran (not for output_len = 1).
        if let (Some(tok_s), Some(tpot)) = (t.output_tok_s, t.tpot_ms) {
            put("output_tok_s", Value::Float(tok_s));
            put("tpot_ms", Value::Float(tpot));
        }
        put("ttft_ms", Value::Float(t.ttft_ms));
    }
    put("kv_tokens", Value::Int(r.memory.kv_tokens));
    if let Some(f) = r.memory.min_mem_fraction_static {
        put("min_mem_fraction_static", Value::Float(f));
    }
    if let Some(sp) = &r.spec {
        put("accept_len_mean", Value::Float(sp.accept_len_mean));
        put("tok_s_without_spec", Value::Float(sp.tok_s_without_spec));
    }
    if r.throughput.as_ref().is_some_and(|t| t.iterations > 0) {
        let ar = r.breakdown_by_op.get("allreduce").copied().unwrap_or(0.0);
        put("allreduce_ms_per_iteration", Value::Float(ar));
    }
    for v in m.values_mut() {
        if let Value::Float(x) = v {
            *x = quantize(*x);
        }
    }
    m
}

/// The scenario files under `root` (sorted relative paths with `/`), skipping the preset folders,
/// the root's [`BASELINES_FILE`] and the file `skip` (the baselines in use).
pub fn discover(root: &Path, skip: &Path) -> Result<Vec<String>, RegressError> {
    let skip = skip.canonicalize().ok();
    let mut found = Vec::new();
    let mut stack = vec![(root.to_path_buf(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let rd = std::fs::read_dir(&dir).map_err(|e| RegressError::Io {
            file: dir.display().to_string(),
            message: format!("cannot list the scenario folder: {e}"),
        })?;
        for entry in rd.filter_map(Result::ok) {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let key = if rel.is_empty() {
                name.clone()
            } else {
                format!("{rel}/{name}")
            };
            if path.is_dir() {
                if !(rel.is_empty() && PRESET_DIRS.contains(&name.as_str())) {
                    stack.push((path, key));
                }
            } else if name.ends_with(".toml")
                && path.canonicalize().ok() != skip
                && !(rel.is_empty() && name == BASELINES_FILE)
            {
                found.push(key);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// Runs one scenario as `tpsim run` does and returns its metrics.
pub fn measure(path: &Path) -> Result<Metrics, RegressError> {
    let s = scenario::load(path).map_err(RegressError::Scenario)?;
    let p = decode::predict(&s).map_err(|source| RegressError::Decode {
        file: path.display().to_string(),
        source,
    })?;
    // speed64: the metrics never read the report's fitted constants.
    Ok(metrics(&report::build_with(&s, &p, false)))
}

/// Every file the scenarios under `root` are read from (scenario files, presets, profiles, …).
pub fn inputs(root: &Path, baselines_file: &Path) -> Result<Vec<PathBuf>, RegressError> {
    let mut all = Vec::new();
    for rel in discover(root, baselines_file)? {
        let s = scenario::load(&root.join(&rel)).map_err(RegressError::Scenario)?;
        all.extend(s.inputs);
    }
    Ok(all)
}

/// Recomputes the metrics of every scenario under `root`, keyed by relative path.
pub fn measure_all(root: &Path, baselines_file: &Path) -> Result<BTreeMap<String, Metrics>, RegressError> {
    discover(root, baselines_file)?
        .into_iter()
        .map(|rel| Ok((rel.clone(), measure(&root.join(&rel))?)))
        .collect()
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    schema: u32,
    #[serde(default)]
    tolerance: BTreeMap<String, Tolerance>,
    #[serde(default)]
    scenarios: BTreeMap<String, BTreeMap<String, toml::Value>>,
}

/// Parses the baselines file text; `file` names it in errors.
pub fn parse(text: &str, file: &Path) -> Result<Baselines, RegressError> {
    let raw: File = scenario::parse_toml(text, file).map_err(RegressError::Baselines)?;
    let bad = |key: &str, msg: String| RegressError::Baselines(ScenarioError::invalid(file, text, key, msg));
    if raw.schema != SCHEMA {
        return Err(bad("schema", format!("expected {SCHEMA}, found {}", raw.schema)));
    }
    let check_tol = |prefix: &str, t: &BTreeMap<String, Tolerance>| -> Result<(), RegressError> {
        for (k, tol) in t {
            let key = format!("{prefix}.{k}");
            if !METRICS.iter().any(|(m, _)| m == k) {
                return Err(bad(
                    &key,
                    format!("unknown metric; expected one of: {}", metric_names()),
                ));
            }
            if !(tol.rel >= 0.0 && tol.abs >= 0.0 && tol.rel.is_finite() && tol.abs.is_finite()) {
                return Err(bad(&key, "tolerances must be finite and ≥ 0".into()));
            }
        }
        Ok(())
    };
    check_tol("tolerance", &raw.tolerance)?;
    let mut out = Baselines {
        tolerance: raw.tolerance,
        scenarios: BTreeMap::new(),
    };
    for (name, table) in raw.scenarios {
        let mut metrics = Metrics::new();
        let mut overrides = BTreeMap::new();
        for (k, v) in table {
            let key = format!("scenarios.{}.{k}", toml::Value::String(name.clone()));
            let value = match (k.as_str(), v) {
                ("tolerance", v) => {
                    overrides = v
                        .try_into::<BTreeMap<String, Tolerance>>()
                        .map_err(|e| bad(&key, format!("expected a table of tolerances: {e}")))?;
                    check_tol(&key, &overrides)?;
                    continue;
                }
                (m, _) if !METRICS.iter().any(|(n, _)| *n == m) => {
                    return Err(bad(
                        &key,
                        format!("unknown metric; expected one of: {}", metric_names()),
                    ));
                }
                ("verdict", toml::Value::String(s)) => Value::Text(s),
                ("kv_tokens", toml::Value::Integer(n)) if n >= 0 => Value::Int(n as u64),
                ("verdict" | "kv_tokens", _) => {
                    return Err(bad(
                        &key,
                        "expected a string (verdict) or a non-negative integer (kv_tokens)".into(),
                    ));
                }
                (_, toml::Value::Float(x)) if x.is_finite() => Value::Float(x),
                _ => return Err(bad(&key, "expected a finite float".into())),
            };
            metrics.insert(k, value);
        }
        out.scenarios.insert(name, (metrics, overrides));
    }
    Ok(out)
}

/// Reads and parses the baselines file.
pub fn read(file: &Path) -> Result<Baselines, RegressError> {
    let text = crate::files::read_text(file).map_err(|e| RegressError::Io {
        file: file.display().to_string(),
        message: format!("cannot read the baselines: {e} (create them with `tpsim regress --update`)"),
    })?;
    parse(&text, file)
}

fn metric_names() -> String {
    METRICS.iter().map(|(m, _)| *m).collect::<Vec<_>>().join(", ")
}

impl Baselines {
    /// The tolerance for `metric` of `scenario`: its override, the file's default, the built-in one.
    pub fn tolerance_for(&self, scenario: &str, metric: &str) -> Tolerance {
        self.scenarios
            .get(scenario)
            .and_then(|(_, o)| o.get(metric))
            .or_else(|| self.tolerance.get(metric))
            .copied()
            .or_else(|| METRICS.iter().find(|(m, _)| *m == metric).map(|(_, t)| *t))
            .unwrap_or(Tolerance::EXACT)
    }

    /// New baselines with `now` as the metrics, keeping this file's tolerances (and the overrides of
    /// scenarios that still exist).
    pub fn updated(&self, now: &BTreeMap<String, Metrics>) -> Baselines {
        let mut tolerance: BTreeMap<String, Tolerance> =
            METRICS.iter().map(|(m, t)| (m.to_string(), *t)).collect();
        tolerance.extend(self.tolerance.iter().map(|(k, t)| (k.clone(), *t)));
        Baselines {
            tolerance,
            scenarios: now
                .iter()
                .map(|(k, m)| {
                    let o = self.scenarios.get(k).map(|(_, o)| o.clone()).unwrap_or_default();
                    (k.clone(), (m.clone(), o))
                })
                .collect(),
        }
    }
}

/// The baselines file text: fixed header, `[tolerance]` and one table per scenario, keys sorted and
/// floats with [`DECIMALS`] decimals, so the same predictions always give the same bytes.
pub fn render(b: &Baselines) -> String {
    let mut o = String::new();
    o.push_str(
        "# Predicted metrics of every scenario under scenarios/, checked by `tpsim regress` in CI.\n\
         # A change that moves a prediction must update this file in the same commit:\n\
         #   tpsim regress --update\n\
         # Tolerances: |now - baseline| <= max(abs, rel x |baseline|); rel = 0.0 means exact.\n\
         # Per-scenario overrides go in [scenarios.\"<path>\".tolerance]. Generated file: keep the format.\n\n",
    );
    let _ = writeln!(o, "schema = {SCHEMA}\n\n[tolerance]");
    for (k, t) in &b.tolerance {
        let _ = writeln!(o, "{k} = {}", t.to_toml());
    }
    for (name, (metrics, overrides)) in &b.scenarios {
        let key = toml::Value::String(name.clone()).to_string();
        let _ = writeln!(o, "\n[scenarios.{key}]");
        for (k, v) in metrics {
            let _ = writeln!(o, "{k} = {}", v.to_toml());
        }
        if !overrides.is_empty() {
            let _ = writeln!(o, "\n[scenarios.{key}.tolerance]");
            for (k, t) in overrides {
                let _ = writeln!(o, "{k} = {}", t.to_toml());
            }
        }
    }
    o
}

/// PASS or FAIL of one check.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Status {
    Pass,
    Fail,
}

/// One scenario × metric comparison.
#[derive(Debug, Clone, PartialEq)]
pub struct Row {
    pub scenario: String,
    pub metric: String,
    pub baseline: Option<Value>,
    pub now: Option<Value>,
    /// (now − baseline) ÷ |baseline| × 100, when both are numbers and the baseline is not 0.
    pub change_pct: Option<f64>,
    pub tolerance: Tolerance,
    pub status: Status,
}

/// The outcome of a check.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Outcome {
    pub rows: Vec<Row>,
    /// Scenario files without a baseline.
    pub no_baseline: Vec<String>,
    /// Baselines whose scenario file is gone.
    pub no_scenario: Vec<String>,
}

impl Outcome {
    /// Whether everything passed.
    pub fn passed(&self) -> bool {
        self.no_baseline.is_empty()
            && self.no_scenario.is_empty()
            && self.rows.iter().all(|r| r.status == Status::Pass)
    }
}

/// Compares the recomputed metrics with the baselines.
pub fn compare(base: &Baselines, now: &BTreeMap<String, Metrics>) -> Outcome {
    let mut out = Outcome::default();
    for (name, m_now) in now {
        let Some((m_base, _)) = base.scenarios.get(name) else {
            out.no_baseline.push(name.clone());
            continue;
        };
        for (metric, _) in METRICS {
            let (b, n) = (m_base.get(*metric), m_now.get(*metric));
            if b.is_none() && n.is_none() {
                continue;
            }
            let tolerance = base.tolerance_for(name, metric);
            let nums = b.and_then(Value::as_f64).zip(n.and_then(Value::as_f64));
            let ok = match (b, n, nums) {
                (Some(b), Some(n), None) => b == n,
                (_, _, Some((bv, nv))) => tolerance.allows(bv, nv),
                _ => false,
            };
            out.rows.push(Row {
                scenario: name.clone(),
                metric: metric.to_string(),
                baseline: b.cloned(),
                now: n.cloned(),
                change_pct: nums
                    .filter(|(bv, _)| *bv != 0.0)
                    .map(|(bv, nv)| (nv - bv) / bv.abs() * 100.0),
                tolerance,
                status: if ok { Status::Pass } else { Status::Fail },
            });
        }
    }
    out.no_scenario = base
        .scenarios
        .keys()
        .filter(|k| !now.contains_key(*k))
        .cloned()
        .collect();
    out
}

/// The table of every scenario × metric, then what is missing and the verdict.
pub fn table(o: &Outcome, baselines_file: &str) -> String {
    let mut t = String::new();
    let w = o.rows.iter().map(|r| r.scenario.len()).max().unwrap_or(8).max(8);
    let _ = writeln!(
        t,
        "{:<w$}  {:<26} {:>14} {:>14} {:>9}  {:<10} result",
        "scenario", "metric", "baseline", "now", "change", "tolerance"
    );
    for r in &o.rows {
        let show = |v: &Option<Value>| v.as_ref().map_or("—".to_string(), ToString::to_string);
        let change = match (r.change_pct, &r.baseline, &r.now) {
            (Some(c), _, _) => format!("{c:+.3}%"),
            (None, Some(b), Some(n)) if b == n => "0".into(),
            _ => "—".into(),
        };
        let _ = writeln!(
            t,
            "{:<w$}  {:<26} {:>14} {:>14} {:>9}  {:<10} {}",
            r.scenario,
            r.metric,
            show(&r.baseline),
            show(&r.now),
            change,
            r.tolerance.describe(),
            if r.status == Status::Pass { "PASS" } else { "FAIL" }
        );
    }
    for s in &o.no_baseline {
        let _ = writeln!(
            t,
            "FAIL {s}: no baseline in {baselines_file}; run `tpsim regress --update` and commit the file"
        );
    }
    for s in &o.no_scenario {
        let _ = writeln!(
            t,
            "FAIL {s}: has a baseline in {baselines_file} but no scenario file; run `tpsim regress --update` and commit the file"
        );
    }
    let failed = o.rows.iter().filter(|r| r.status == Status::Fail).count();
    if o.passed() {
        let _ = writeln!(t, "regress: PASS ({} checks)", o.rows.len());
    } else {
        let _ = writeln!(
            t,
            "regress: FAIL ({failed} of {} checks moved beyond tolerance, {} scenarios without baseline, {} baselines without scenario)\n\
             If the change is intended, run `tpsim regress --update` and commit {baselines_file} with it.",
            o.rows.len(),
            o.no_baseline.len(),
            o.no_scenario.len()
        );
    }
    t
}

/// The default root and baselines file, relative to the working directory.
pub fn default_paths(root: Option<PathBuf>, baselines: Option<PathBuf>) -> (PathBuf, PathBuf) {
    let root = root.unwrap_or_else(|| PathBuf::from("scenarios"));
    let file = baselines.unwrap_or_else(|| root.join(BASELINES_FILE));
    (root, file)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tolerance_and_format() {
        assert!(Tolerance::rel(0.005).allows(100.0, 100.5));
        assert!(!Tolerance::rel(0.005).allows(100.0, 100.51));
        assert!(Tolerance::EXACT.allows(3.0, 3.0));
        assert!(!Tolerance::EXACT.allows(3.0, 3.000001));
        assert_eq!(Tolerance::rel(0.005).describe(), "±0.5 %");
        assert_eq!(fixed(1.0 / 3.0), "0.333333");
        assert_eq!(trim(2.5), "2.5");
        assert_eq!(trim(100.0), "100");
        assert!((quantize(0.1234567) - 0.123457).abs() < 1e-15);
    }

    #[test]
    fn render_parse_round_trip() {
        let mut m = Metrics::new();
        m.insert("verdict".into(), Value::Text("ok".into()));
        m.insert("kv_tokens".into(), Value::Int(159_294));
        m.insert("tpot_ms".into(), Value::Float(12.5));
        let now: BTreeMap<String, Metrics> = [("seed/a.toml".to_string(), m)].into();
        let b = Baselines::default().updated(&now);
        let text = render(&b);
        let back = parse(&text, Path::new("b.toml")).unwrap();
        assert_eq!(back, b);
        assert_eq!(render(&back), text);
        assert!(compare(&back, &now).passed());
        let e = parse(
            &text.replace("tpot_ms = 12.500000", "tpot_msx = 12.5"),
            Path::new("b.toml"),
        )
        .unwrap_err();
        assert!(e.to_string().contains("tpot_msx"), "{e}");
        // An integer tolerance reads as a float (TOML users write `abs = 1`).
        let b = parse(
            "schema = 1\n[tolerance]\ntpot_ms = { abs = 1 }\n",
            Path::new("b.toml"),
        );
        assert_eq!(
            b.map(|b| b.tolerance_for("x", "tpot_ms")).ok(),
            Some(Tolerance { rel: 0.0, abs: 1.0 })
        );
    }
}
