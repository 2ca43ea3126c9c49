//! `tpsim capacity` (issue #18 point 3): the highest request rate or concurrency whose simulated
//! latency percentiles meet every objective.
//!
//! The search is deterministic (every point is one seeded simulation): from 1 it doubles until an
//! objective fails or the ceiling is reached (bracket), then bisects between the last point that
//! met every objective and the first that failed, to a resolution of 1 request for concurrency and
//! 1 % of the rate for request rate. It assumes the percentiles grow with load (they do in the
//! closed and open loops: more requests share each iteration and queue longer); a non-monotone
//! region inside a bracket is not searched for.
//!
//! An open-loop point the serving loop flags `overloaded` (its waiting queue grows: the rate is past
//! what the engine serves) fails whatever its percentiles, which there measure only how long the run
//! was. A rate answer served at under half its offered rate gets a note: the run's requests all
//! arrived before the load reached a steady state (too few `num_requests` for that rate), so the
//! percentiles are a transient's (issue #18 audit: 200 requests of the open-loop example "met"
//! ttft_p99 = 500 at 84.5 req/s on a box that serves 30; with 2,000 the answer is 30 req/s).

use serde::Serialize;

use crate::scenario::Scenario;
use crate::slo::{self, Check, Target};
use crate::workload::Arrivals;

/// What the search varies.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Over {
    /// Open-loop request rate, req/s.
    Rate,
    /// Closed-loop concurrency (bench_serving `--max-concurrency`).
    Concurrency,
}

impl Over {
    /// Lowest value probed first.
    fn start(self) -> f64 {
        1.0
    }
    /// Highest value searched: 4096 requests in flight (the workload's ceiling) or 2²⁰ req/s.
    pub fn ceiling(self) -> f64 {
        match self {
            Over::Concurrency => 4096.0,
            Over::Rate => 1_048_576.0,
        }
    }
    /// Lowest value searched below 1 (rates only: 2⁻¹⁰ req/s).
    fn floor(self) -> f64 {
        match self {
            Over::Concurrency => 1.0,
            Over::Rate => 1.0 / 1024.0,
        }
    }
    /// Whether `lo` and `hi` are close enough to stop bisecting.
    fn resolved(self, lo: f64, hi: f64) -> bool {
        match self {
            Over::Concurrency => hi - lo <= 1.0,
            Over::Rate => hi - lo <= 0.01 * lo,
        }
    }
    fn mid(self, lo: f64, hi: f64) -> f64 {
        match self {
            Over::Concurrency => ((lo + hi) / 2.0).floor(),
            Over::Rate => (lo + hi) / 2.0,
        }
    }
    /// The resolution, in words.
    pub fn resolution(self) -> &'static str {
        match self {
            Over::Concurrency => "1 request",
            Over::Rate => "1% of the rate",
        }
    }
}

/// One evaluated point.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Point {
    pub x: f64,
    pub checks: Vec<Check>,
    pub met: bool,
    /// Output tokens per second end to end and requests per second, when the engine serves it.
    pub output_tok_s: f64,
    pub request_throughput: f64,
    /// The serving loop's overload flag (open loop: the waiting queue grew); such a point fails.
    pub overloaded: bool,
    /// The engine's refusal, when it would not serve this point.
    pub refused: Option<String>,
}

/// Served ÷ offered request rate below which a rate answer is noted as a transient (½: an assumed
/// threshold for a warning, not a fit; a stable open loop serves its offered rate less the drain
/// of the last requests, 0.90 for the open-loop example's 200 requests at 8 req/s).
pub const TRANSIENT_SERVED_SHARE: f64 = 0.5;

/// The search's answer.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Capacity {
    pub over: Over,
    pub targets: Vec<Target>,
    /// Points in the order evaluated.
    pub points: Vec<Point>,
    /// The highest value meeting every objective (`None`: not even the lowest does).
    pub answer: Option<f64>,
    /// Whether the answer is the search's ceiling (nothing failed below it).
    pub at_ceiling: bool,
    /// The objective that fails just above the answer (or is nearest its limit at the ceiling).
    pub binding: Option<Target>,
    pub resolution: &'static str,
    /// A caveat on the answer (a rate answer served at under half its rate), or `None`.
    pub note: Option<String>,
}

/// Exact equality of two evaluated loads (the search revisits the very values it computed).
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits()
}

/// The search over any evaluation (a simulation, or a stub in tests).
pub fn search<E>(
    over: Over,
    targets: &[Target],
    mut eval: impl FnMut(f64) -> Result<Point, E>,
) -> Result<Capacity, E> {
    let mut points: Vec<Point> = Vec::new();
    let mut at = |x: f64, points: &mut Vec<Point>| -> Result<bool, E> {
        if let Some(p) = points.iter().find(|p| same(p.x, x)) {
            return Ok(p.met);
        }
        let p = eval(x)?;
        let met = p.met;
        points.push(p);
        Ok(met)
    };
    let (mut lo, mut hi): (Option<f64>, Option<f64>) = (None, None);
    let mut x = over.start();
    if at(x, &mut points)? {
        lo = Some(x);
        while x < over.ceiling() {
            x = (x * 2.0).min(over.ceiling());
            if at(x, &mut points)? {
                lo = Some(x);
            } else {
                hi = Some(x);
                break;
            }
        }
    } else {
        hi = Some(x);
        while x > over.floor() {
            x = (x / 2.0).max(over.floor());
            if at(x, &mut points)? {
                lo = Some(x);
                break;
            }
            hi = Some(x);
        }
    }
    if let (Some(mut l), Some(mut h)) = (lo, hi) {
        while !over.resolved(l, h) {
            let m = over.mid(l, h);
            if m <= l || m >= h {
                break;
            }
            if at(m, &mut points)? {
                l = m;
            } else {
                h = m;
            }
        }
        lo = Some(l);
        hi = Some(h);
    }
    let find = |x: Option<f64>| x.and_then(|x| points.iter().find(|p| same(p.x, x)));
    // The binding objective: the one failing at the first point above the answer with the largest
    // measured / target ratio, or at the ceiling the one nearest its limit.
    let at_ceiling = hi.is_none();
    let worst = |p: &Point, failing_only: bool| {
        p.checks
            .iter()
            .filter(|c| !failing_only || !c.met)
            .max_by(|a, b| (a.measured_ms / a.target.ms).total_cmp(&(b.measured_ms / b.target.ms)))
            .map(|c| c.target)
    };
    let binding = match (find(hi), find(lo)) {
        (Some(h), _) => worst(h, true),
        (None, Some(l)) => worst(l, false),
        (None, None) => None,
    };
    let note = find(lo).and_then(|p| transient_note(over, p));
    Ok(Capacity {
        over,
        targets: targets.to_vec(),
        points,
        answer: lo,
        at_ceiling,
        binding,
        resolution: over.resolution(),
        note,
    })
}

/// The note on a rate answer served at under [`TRANSIENT_SERVED_SHARE`] of its offered rate.
fn transient_note(over: Over, p: &Point) -> Option<String> {
    (over == Over::Rate && p.refused.is_none() && p.request_throughput < TRANSIENT_SERVED_SHARE * p.x).then(|| {
        format!(
            "at the answer the run served {:.3} req/s of the {:.3} offered: its requests end before the load \
             reaches a steady state, so the percentiles are a transient's; raise workload.num_requests",
            p.request_throughput, p.x
        )
    })
}

/// Errors of [`capacity`].
#[derive(Debug, thiserror::Error)]
pub enum CapacityError {
    #[error(transparent)]
    Decode(#[from] crate::decode::DecodeError),
    /// The scenario cannot be searched over what was asked (a timed trace over rate).
    #[error("{0}")]
    Unsupported(String),
}

/// The scenario with `x` as its rate or concurrency. Over concurrency the client is a closed loop
/// (a timed trace keeps its own arrivals, capped at `x` in flight); over rate an open loop with
/// the scenario's burstiness, and a closed-loop scenario's `concurrency` no longer caps it
/// (bench_serving's `--max-concurrency` defaults to none).
pub fn at_load(s: &Scenario, over: Over, x: f64) -> Scenario {
    let mut s = s.clone();
    let w = &mut s.workload;
    match over {
        Over::Concurrency => {
            let c = x as u32;
            let fixed = w.load.trace.is_some() || w.load.shared_prefix.is_some();
            if !fixed {
                w.num_requests = w.num_requests.max(c);
            }
            if !w.load.trace.as_ref().is_some_and(|t| t.timed) {
                w.load.arrivals = Arrivals::Closed;
            }
            w.concurrency = c.min(w.num_requests).max(1);
        }
        Over::Rate => {
            let burstiness = match w.load.arrivals {
                Arrivals::Open { burstiness, .. } => burstiness,
                Arrivals::Closed => {
                    w.concurrency = w.num_requests.min(4096);
                    1.0
                }
            };
            w.load.arrivals = Arrivals::Open { rate: x, burstiness };
        }
    }
    s
}

/// Searches `s` (its other settings unchanged) for the highest load meeting `targets`.
pub fn capacity(s: &Scenario, over: Over, targets: &[Target]) -> Result<Capacity, CapacityError> {
    if over == Over::Rate && s.workload.load.trace.as_ref().is_some_and(|t| t.timed) {
        return Err(CapacityError::Unsupported(
            "the trace's records carry arrival_ms: a rate search needs an untimed trace or none".into(),
        ));
    }
    search(over, targets, |x| {
        let sx = at_load(s, over, x);
        let p = crate::decode::predict_with(&sx, false)?;
        // speed64: a search point never reads the report's fitted constants.
        let r = crate::report::build_with(&sx, &p, false);
        if r.throughput.is_none() {
            return Ok(Point {
                x,
                checks: Vec::new(),
                met: false,
                output_tok_s: 0.0,
                request_throughput: 0.0,
                overloaded: false,
                refused: Some(r.error.clone().unwrap_or_else(|| r.verdict.as_str().to_string())),
            });
        }
        let checks = slo::check(targets, &p.main);
        Ok(Point {
            x,
            met: !p.main.overloaded && checks.iter().all(|c| c.met),
            checks,
            output_tok_s: p.main.e2e_output_tok_s(),
            request_throughput: p.main.request_throughput(),
            overloaded: p.main.overloaded,
            refused: None,
        })
    })
}
