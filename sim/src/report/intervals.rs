//! Issue #19 point 6: the `intervals` and `calibrated_range` objects of `tpsim run --json`
//! (book/src/json.md). Computed by [`crate::intervals`]; absent when the scenario's profile has no
//! fitted intervals (or no profile is applied).

use serde::Serialize;

/// Confidence level of every interval: the profiles' intervals are 95 % Student-t intervals
/// (calibrate/src/fit/mod.rs, `solve_params`).
pub const LEVEL: f64 = 0.95;

/// The name of the propagation method in the JSON.
pub const METHOD: &str = "linearised";

/// 95 % intervals of the headline figures, propagated from the profile's fitted intervals.
#[derive(Debug, Clone, Serialize)]
pub struct IntervalsReport {
    /// The profile file the intervals come from.
    pub profile: String,
    /// How the parameters' intervals were combined: `fit` (the profile's `[correlation]`),
    /// `independent` (assumed: the profile has no correlation matrix) or `single` (one parameter).
    pub correlation: String,
    /// Figures whose interval could not be formed, and why (e.g. the engine does not start at one end).
    pub notes: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub output_tok_s: Option<FigureInterval>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tpot_ms: Option<FigureInterval>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ttft_ms: Option<FigureInterval>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decode_allreduce_us: Option<FigureInterval>,
}

/// One figure with its interval.
#[derive(Debug, Clone, Serialize)]
pub struct FigureInterval {
    /// The prediction (the same number as the report's own field).
    pub value: f64,
    pub low: f64,
    pub high: f64,
    /// 0.95.
    pub level: f64,
    /// "linearised".
    pub method: &'static str,
    /// Each fitted parameter with the figure predicted at its interval's ends (others at their
    /// values): the finite differences the interval is built from.
    pub params: Vec<ParamEffect>,
}

/// One parameter's effect on one figure.
#[derive(Debug, Clone, Serialize)]
pub struct ParamEffect {
    pub name: String,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The figure with the parameter at `ci_low` / `ci_high`.
    pub at_ci_low: f64,
    pub at_ci_high: f64,
}

/// Whether the scenario lies inside the span of the rows the profile was fitted on.
#[derive(Debug, Clone, Serialize)]
pub struct RangeReport {
    /// The profile file.
    pub profile: String,
    /// False when the profile does not state its range (`[provenance.range]`): nothing can be said.
    pub stated: bool,
    /// True when the profile states its range and the scenario is outside it on some axis.
    pub extrapolation: bool,
    /// One sentence per axis outside the range (empty when inside or not stated).
    pub outside: Vec<String>,
    /// The fitted span, e.g. "batch 1–1, tp 2–8" (empty when not stated).
    pub fitted_on: String,
}
