//! Service-level objectives and goodput (issue #18 point 3).
//!
//! Goodput as `vllm bench serve --goodput` computes it (vLLM 0.11.0 benchmarks/serve.py
//! `calculate_metrics`): a request is good when it meets every objective given (`ttft`, `tpot`,
//! `e2el`, in ms; a request with one output token has TPOT 0), and the request goodput is good
//! requests per second of the run. `tpsim capacity` instead holds each objective at a percentile
//! of the run's requests (`ttft_p99=…`), as serving SLOs are usually stated.

use serde::Serialize;

use crate::decode::LoopResult;

/// The percentile `[slo]` holds its objectives at when `percentile` is not given.
pub const DEFAULT_PERCENTILE: f64 = 99.0;

/// A per-request latency metric.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Metric {
    /// Time to first token (queueing included once the serving loop models it).
    Ttft,
    /// Time per output token of one request: (e2e − TTFT) / (output − 1).
    Tpot,
    /// Inter-token latency: the gap between consecutive tokens of a request.
    Itl,
    /// End-to-end latency of a request (vLLM's `e2el`).
    E2e,
}

impl Metric {
    /// The name `--slo` and the report use.
    pub fn name(self) -> &'static str {
        match self {
            Metric::Ttft => "ttft",
            Metric::Tpot => "tpot",
            Metric::Itl => "itl",
            Metric::E2e => "e2e",
        }
    }

    /// The run's `p`-th percentile of this metric, ms.
    pub fn percentile_ms(self, r: &LoopResult, p: f64) -> f64 {
        match self {
            Metric::Ttft => r.ttft_percentile_ms(p),
            Metric::Tpot => r.request_tpot_percentile_ms(p),
            Metric::Itl => r.itl_percentile_ms(p),
            Metric::E2e => r.e2e_percentile_ms(p),
        }
    }
}

/// The `[slo]` section, resolved.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Slo {
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    pub e2e_ms: Option<f64>,
    /// Percentile of requests that must meet each objective (for `tpsim capacity` and the report).
    pub percentile: f64,
}

/// One objective: the `percentile`-th percentile of `metric` at most `ms`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Target {
    pub metric: Metric,
    pub percentile: f64,
    pub ms: f64,
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}_p{}={}", self.metric.name(), self.percentile, self.ms)
    }
}

impl Target {
    /// Its name as `--slo` writes it (`ttft_p99`).
    pub fn name(&self) -> String {
        format!("{}_p{}", self.metric.name(), self.percentile)
    }
}

impl Slo {
    /// Its objectives, each at the section's percentile.
    pub fn targets(&self) -> Vec<Target> {
        [
            (Metric::Ttft, self.ttft_ms),
            (Metric::Tpot, self.tpot_ms),
            (Metric::E2e, self.e2e_ms),
        ]
        .into_iter()
        .filter_map(|(metric, ms)| {
            ms.map(|ms| Target {
                metric,
                percentile: self.percentile,
                ms,
            })
        })
        .collect()
    }

    /// Whether one request meets every objective (vLLM's `s >= r` for each: meeting it exactly
    /// is good).
    pub fn is_good(&self, o: &Outcome) -> bool {
        self.ttft_ms.is_none_or(|t| t >= o.ttft_ms)
            && self.tpot_ms.is_none_or(|t| t >= o.tpot_ms)
            && self.e2e_ms.is_none_or(|t| t >= o.e2e_ms)
    }
}

/// One finished request's latencies, ms.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Outcome {
    pub ttft_ms: f64,
    /// 0 for a request with a single output token (vLLM counts it so).
    pub tpot_ms: f64,
    pub e2e_ms: f64,
}

/// Counts good requests as the serving loop finishes them (no per-request retention).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GoodputCounter {
    pub good: u64,
    pub finished: u64,
}

impl GoodputCounter {
    /// Records one finished request.
    pub fn record(&mut self, slo: &Slo, o: &Outcome) {
        self.finished += 1;
        if slo.is_good(o) {
            self.good += 1;
        }
    }
}

/// A run's goodput.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Goodput {
    pub good_requests: u64,
    pub requests: u64,
    /// Good requests per second of the run (vLLM's "Request goodput (req/s)").
    pub request_goodput: f64,
    /// Whether the count is exact (every request judged on all objectives together, as it
    /// finished): always true since the serving loop counts it.
    pub exact: bool,
}

/// Goodput of a run under `slo`: the requests the serving loop counted good as they finished
/// ([`GoodputCounter`], fed with the same `slo`), over the run's length from the first arrival to
/// the last token (vLLM's "Request goodput (req/s)" divides by the benchmark's duration).
pub fn goodput(slo: &Slo, r: &LoopResult) -> Goodput {
    let _ = slo; // the loop applied it request by request
    let secs = r.makespan.as_secs_f64();
    let good = r.goodput.good;
    Goodput {
        good_requests: good,
        requests: r.goodput.finished,
        request_goodput: if secs > 0.0 { good as f64 / secs } else { 0.0 },
        exact: true,
    }
}

/// How one objective fares in a run.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Check {
    pub target: Target,
    pub measured_ms: f64,
    pub met: bool,
}

/// Every objective of `targets` checked against the run's percentiles.
pub fn check(targets: &[Target], r: &LoopResult) -> Vec<Check> {
    targets
        .iter()
        .map(|t| {
            let m = t.metric.percentile_ms(r, t.percentile);
            Check {
                target: *t,
                measured_ms: m,
                met: t.ms >= m,
            }
        })
        .collect()
}

/// A bad `--slo` list.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("--slo `{item}`: {message}")]
pub struct SloParseError {
    pub item: String,
    pub message: String,
}

/// Parses `ttft_p99=200,tpot_p90=40` (names `ttft`, `tpot`, `itl`, `e2e` with `_pN`, N in
/// (0, 100]; values in ms, finite and > 0).
pub fn parse_targets(text: &str) -> Result<Vec<Target>, SloParseError> {
    let mut out = Vec::new();
    for item in text.split(',').map(str::trim).filter(|x| !x.is_empty()) {
        let err = |m: String| SloParseError {
            item: item.to_string(),
            message: m,
        };
        let (name, value) = item
            .split_once('=')
            .ok_or_else(|| err("expected NAME=MS, e.g. ttft_p99=200".into()))?;
        let (metric, pct) = name.split_once("_p").ok_or_else(|| {
            err(format!(
                "unknown SLO `{name}`: expected ttft_pN, tpot_pN, itl_pN or e2e_pN"
            ))
        })?;
        let metric = match metric {
            "ttft" => Metric::Ttft,
            "tpot" => Metric::Tpot,
            "itl" => Metric::Itl,
            "e2e" | "e2el" => Metric::E2e,
            _ => {
                return Err(err(format!(
                    "unknown SLO `{name}`: expected ttft_pN, tpot_pN, itl_pN or e2e_pN"
                )));
            }
        };
        let percentile: f64 = pct
            .parse()
            .ok()
            .filter(|p: &f64| p.is_finite() && *p > 0.0 && *p <= 100.0)
            .ok_or_else(|| err(format!("`{name}`: expected a percentile in (0, 100] after _p")))?;
        let ms: f64 = value
            .trim()
            .parse()
            .map_err(|_| err(format!("`{value}`: expected milliseconds")))?;
        if !(ms.is_finite() && ms > 0.0) {
            return Err(err(format!("`{value}`: expected milliseconds > 0")));
        }
        out.push(Target {
            metric,
            percentile,
            ms,
        });
    }
    if out.is_empty() {
        return Err(SloParseError {
            item: text.to_string(),
            message: "expected at least one NAME=MS".into(),
        });
    }
    Ok(out)
}
