//! `tpsim diff A.toml B.toml`: both predictions side by side (the same run as `tpsim run`), where the
//! time per iteration moved — by category and by op/collective, sorted by |Δ| — and where the memory
//! and the KV budget moved (the `tpsim memory --against` delta). A side whose engine would not start
//! (OOM) prints the engine's error and still shows its memory.

use super::memory;
use crate::decode;
use crate::report::{self, EngineVerdict, RunReport};
use crate::scenario;
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::Path;

/// One compared quantity: A, B, B − A and B ÷ A (null when A is 0 or either side lacks it).
#[derive(Debug, Clone, Serialize)]
pub struct Change {
    pub name: String,
    pub a: Option<f64>,
    pub b: Option<f64>,
    pub delta: Option<f64>,
    pub ratio: Option<f64>,
}

impl Change {
    fn new(name: &str, a: Option<f64>, b: Option<f64>) -> Change {
        let both = a.zip(b);
        Change {
            name: name.to_string(),
            a,
            b,
            delta: both.map(|(a, b)| b - a),
            ratio: both.filter(|(a, _)| *a != 0.0).map(|(a, b)| b / a),
        }
    }
}

/// Where things moved from A to B.
#[derive(Debug, Clone, Serialize)]
pub struct Deltas {
    /// The headline figures (tok/s, TPOT, TTFT, acceptance, KV tokens, min fraction), fixed order.
    pub summary: Vec<Change>,
    /// Memory verdicts ("ok"/"oom") of A and B.
    pub verdict: (EngineVerdict, EngineVerdict),
    /// Mean critical-path ms per iteration by category, sorted by |Δ| (largest first).
    pub by_category: Vec<Change>,
    /// Mean critical-path ms per iteration by op class / collective, sorted by |Δ|.
    pub by_op: Vec<Change>,
    /// Where memory and the KV budget moved (as `tpsim memory --against --json`).
    pub memory: memory::Delta,
    /// Issue #19 point 6: B ÷ A of the headline figures with 95 % intervals from the profiles'
    /// fitted parameters (`crate::intervals_diff`); empty when neither profile has any.
    pub ratio_intervals: Vec<crate::intervals_diff::RatioInterval>,
}

/// The `tpsim diff --json` object: both `tpsim run --json` reports and the deltas.
#[derive(Debug, Clone, Serialize)]
pub struct DiffReport {
    pub a: RunReport,
    pub b: RunReport,
    pub deltas: Deltas,
}

/// Errors of `tpsim diff`: a scenario that does not load (bad input) or a failed simulation.
#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("{0}")]
    Scenario(#[from] scenario::ScenarioError),
    #[error("{file}: {source}")]
    Decode {
        file: String,
        source: decode::DecodeError,
    },
}

/// Runs both scenarios and compares them.
pub fn diff(a_path: &Path, b_path: &Path) -> Result<DiffReport, DiffError> {
    let sa = scenario::load(a_path)?;
    let sb = scenario::load(b_path)?;
    let run = |s: &scenario::Scenario, path: &Path| {
        decode::predict(s).map_err(|source| DiffError::Decode {
            file: path.display().to_string(),
            source,
        })
    };
    let (pa, pb) = (run(&sa, a_path)?, run(&sb, b_path)?);
    let (mut a, mut b) = (report::build(&sa, &pa), report::build(&sb, &pb));
    // Issue #19 point 6: each side's intervals (as `tpsim run` gives them), then the ratios'.
    for (s, r, path) in [(&sa, &mut a, a_path), (&sb, &mut b, b_path)] {
        crate::intervals::attach(s, r).map_err(|source| DiffError::Decode {
            file: path.display().to_string(),
            source,
        })?;
    }
    let ratio_intervals = crate::intervals_diff::ratio_intervals(&sa, &a, &sb, &b);
    let deltas = Deltas {
        summary: summary(&a, &b),
        verdict: (a.memory.verdict, b.memory.verdict),
        by_category: both_decode(&a, &b, sorted(&a.breakdown, &b.breakdown)),
        by_op: both_decode(&a, &b, sorted(&a.breakdown_by_op, &b.breakdown_by_op)),
        memory: memory::delta(&pa.memory, &pb.memory),
        ratio_intervals,
    };
    Ok(DiffReport { a, b, deltas })
}

fn summary(a: &RunReport, b: &RunReport) -> Vec<Change> {
    let spec = |r: &RunReport, f: fn(&report::SpecReport) -> f64| r.spec.as_ref().map(f);
    // A side whose engine does not run the scenario has no throughput, one without a decode
    // iteration (output_len = 1) no decode figures: their cells stay empty.
    let t = |r: &RunReport, f: fn(&report::Throughput) -> Option<f64>| r.throughput.as_ref().and_then(f);
    vec![
        Change::new("output_tok_s", t(a, |t| t.output_tok_s), t(b, |t| t.output_tok_s)),
        Change::new("tpot_ms", t(a, |t| t.tpot_ms), t(b, |t| t.tpot_ms)),
        Change::new("ttft_ms", t(a, |t| Some(t.ttft_ms)), t(b, |t| Some(t.ttft_ms))),
        Change::new(
            "mean_iteration_ms",
            t(a, |t| t.mean_iteration_ms),
            t(b, |t| t.mean_iteration_ms),
        ),
        Change::new(
            "accept_len_mean",
            spec(a, |s| s.accept_len_mean),
            spec(b, |s| s.accept_len_mean),
        ),
        Change::new(
            "tok_s_without_spec",
            spec(a, |s| s.tok_s_without_spec),
            spec(b, |s| s.tok_s_without_spec),
        ),
        Change::new(
            "kv_tokens",
            Some(a.memory.kv_tokens as f64),
            Some(b.memory.kv_tokens as f64),
        ),
        Change::new(
            "min_mem_fraction_static",
            a.memory.min_mem_fraction_static,
            b.memory.min_mem_fraction_static,
        ),
    ]
}

/// The per-iteration comparison only when both sides decode: an engine that does not start has no
/// iteration to compare (its missing keys would read as 0 ms).
fn both_decode(a: &RunReport, b: &RunReport, v: Vec<Change>) -> Vec<Change> {
    if decodes(a) && decodes(b) { v } else { Vec::new() }
}

/// Whether a report has decode iterations (its engine serves the scenario and output_len > 1).
pub fn decodes(r: &RunReport) -> bool {
    r.throughput.as_ref().is_some_and(|t| t.iterations > 0)
}

/// Every key of either map (a missing key counts as 0 ms), sorted by |Δ| descending, then by name;
/// rows that are 0 on both sides are left out.
fn sorted(a: &BTreeMap<String, f64>, b: &BTreeMap<String, f64>) -> Vec<Change> {
    let keys: std::collections::BTreeSet<&String> = a.keys().chain(b.keys()).collect();
    let mut v: Vec<Change> = keys
        .into_iter()
        .map(|k| {
            let get = |m: &BTreeMap<String, f64>| Some(m.get(k).copied().unwrap_or(0.0));
            Change::new(k, get(a), get(b))
        })
        .filter(|c| c.a != Some(0.0) || c.b != Some(0.0))
        .collect();
    v.sort_by(|x, y| {
        let d = |c: &Change| c.delta.unwrap_or(0.0).abs();
        d(y).total_cmp(&d(x)).then_with(|| x.name.cmp(&y.name))
    });
    v
}
