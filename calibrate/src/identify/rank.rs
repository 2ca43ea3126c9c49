//! Fit, score and rank the hypotheses.
//!
//! Under each hypothesis the continuous parameters (`[identify] fit`) are fitted to the observations
//! not held out by the project's fitter ([`crate::fit::solve_params`]: Huber-robust
//! Levenberg–Marquardt in log-parameter space, 95 % Student-t intervals). Every row of that fit is a
//! normalised log residual, ln(predicted ÷ observed) ÷ σ with σ = ln(1 + the observation's relative
//! uncertainty) (0 inside a bound), plus one prior row per fitted parameter,
//! ln(value ÷ preset value) ÷ ln(prior_factor): the preset's value is sourced, so moving it costs.
//! A parameter no observation responds to under a hypothesis (a 25 % change moves no prediction by
//! 0.1 %) is not fitted there.
//!
//! The score is the penalised χ² at the fit: Σ residual² over the fitted observations + Σ prior
//! rows² + 2 k (k fitted parameters: Akaike's penalty, AIC = χ² + 2k for Gaussian errors of known
//! σ). Δ = score − best score; following Burnham & Anderson, *Model Selection and Multimodel
//! Inference* (2nd ed., 2002), §2.6, a hypothesis with Δ ≤ 2 cannot be told apart from the best and
//! one with Δ > 10 is excluded by the data. Held-out observations are predicted at the fitted values
//! and shown, never scored.

use super::hypotheses::Hypothesis;
use super::observations::{Kind, MemQuantity, Observation, Observations};
use crate::fit::{self, FitError, FittedParam, rows};
use rayon::prelude::*;
use serde::Serialize;
use tpsim::scenario::profile as prof;
use tpsim::scenario::{AllreduceBackend, Hardware, HwParams};

/// Δ score up to which a hypothesis cannot be told apart from the best (Burnham & Anderson §2.6).
pub const TIE_DELTA: f64 = 2.0;
/// Δ score beyond which the data excludes a hypothesis (Burnham & Anderson §2.6: "essentially no
/// support").
pub const EXCLUDE_DELTA: f64 = 10.0;
/// Normalised residual charged to an observation a hypothesis cannot produce at all (the engine
/// would not start, the scenario decodes nothing): a 10 σ miss, worse than any excluded fit's row.
pub const NO_PREDICTION_RESIDUAL: f64 = 10.0;
/// A held-out observation counts as predicted when its residual is within 2 σ.
pub const HELD_OUT_SIGMAS: f64 = 2.0;
/// The sensitivity probe: a parameter moved by this factor must move some prediction by more than
/// [`MIN_LOG_CHANGE`] to be fitted.
const PROBE_FACTOR: f64 = 1.25;
const MIN_LOG_CHANGE: f64 = 1e-3;
/// Parameters that move a start-up memory figure (`tpsim_model` memory plan: the CUDA context).
const MEMORY_PARAMS: [&str; 1] = ["context_overhead"];

/// The fit's settings.
#[derive(Debug, Clone)]
pub struct Settings {
    pub fit: Vec<String>,
    pub prior_factor: f64,
    pub output_len: Option<u32>,
}

/// One observation under one hypothesis.
#[derive(Debug, Clone, Serialize)]
pub struct ObsResult {
    pub label: String,
    pub unit: &'static str,
    pub observed: String,
    pub predicted: Option<f64>,
    /// Why there is no prediction.
    pub failure: Option<String>,
    pub residual_sigma: f64,
    pub held_out: bool,
}

/// One fitted parameter.
#[derive(Debug, Clone, Serialize)]
pub struct ParamResult {
    pub name: String,
    pub unit: &'static str,
    pub start: f64,
    pub value: f64,
    /// 95 % interval; absent when the fit could not give one.
    pub ci_low: Option<f64>,
    pub ci_high: Option<f64>,
}

/// A hypothesis after its fit.
#[derive(Debug, Clone, Serialize)]
pub struct Ranked {
    pub rank: usize,
    pub hypothesis: String,
    pub score: f64,
    pub delta: f64,
    /// best, tied, less-supported or excluded.
    pub verdict: &'static str,
    pub chi2_observations: f64,
    pub chi2_prior: f64,
    pub fitted: Vec<ParamResult>,
    /// Parameters of `[identify] fit` not fitted here, with the reason.
    pub not_fitted: Vec<String>,
    /// The worst-explained fitted observation (label and residual): the reason for the score.
    pub worst: Option<String>,
    /// Held-out observations: all within 2 σ (None when none is held out).
    pub predicts_held_out: Option<bool>,
    pub observations: Vec<ObsResult>,
    /// The rank of a better-ranked hypothesis that predicts every observation (held-out ones too)
    /// the same and scores the same: the data cannot separate the two at all.
    pub same_as: Option<usize>,
    /// How many lower-ranked hypotheses are the same as this one.
    pub same_count: usize,
    #[serde(skip)]
    pub hardware: Hardware,
    #[serde(skip)]
    pub index: usize,
}

/// Shortest plain text of a value: 4 significant digits, no exponent for the sizes used here.
pub fn num(v: f64) -> String {
    if !v.is_finite() {
        return "—".into();
    }
    let a = v.abs();
    let d = if a >= 1000.0 {
        0
    } else if a >= 100.0 {
        1
    } else if a >= 10.0 {
        2
    } else {
        3
    };
    format!("{v:.d$}")
}

/// Predicted value of every observation in `obs` on hypothesis `h` with parameters `params`.
pub fn predict_all(
    h: &Hypothesis,
    params: &HwParams,
    obs: &[&Observation],
    settings: &Settings,
) -> Vec<Result<f64, String>> {
    let mut hw = h.hardware.clone();
    hw.params = params.clone();
    let mut out: Vec<Result<f64, String>> = vec![Err(String::new()); obs.len()];
    let mut ar_rows = Vec::new();
    let mut ar_index = Vec::new();
    for (i, o) in obs.iter().enumerate() {
        match &o.kind {
            Kind::Allreduce {
                gpus,
                size_bytes,
                request,
                env,
            } => {
                if *gpus > hw.topology.gpu_count() {
                    out[i] = Err(format!("{gpus} GPUs: the preset has {}", hw.topology.gpu_count()));
                    continue;
                }
                let env_args = h.p2p.env(env);
                let mut parsed = match tpsim::scenario::nccl_env_from_args(&env_args) {
                    Ok(e) => e,
                    Err(e) => {
                        out[i] = Err(e.to_string());
                        continue;
                    }
                };
                if let Some(v) = &h.nccl
                    && let Ok(v) = tpsim_model::nccl::NcclVersion::parse(v)
                {
                    parsed.version = v;
                }
                ar_rows.push(rows::Row {
                    label: o.label.clone(),
                    op: rows::Op::Collective(tpsim::collective::Op::Allreduce),
                    n_gpus: *gpus,
                    size_bytes: *size_bytes,
                    measured_us: 1.0,
                    env_args,
                    env: parsed,
                    request: *request,
                    // `[[allreduce]]` times come from an engine's decode (a profile or a log),
                    // which replays its collectives in CUDA graphs (issue #19 point 1).
                    launch: tpsim::launch::Launch::Graph,
                });
                ar_index.push(i);
            }
            Kind::Throughput { path, text } => {
                out[i] = h
                    .scenario(path, text, params, settings.output_len)
                    .and_then(|s| {
                        tpsim::decode::predict_with(&s, false)
                            .map_err(|e| format!("the engine would not start: {e}"))
                    })
                    .and_then(|p| {
                        let t = p.main.output_tok_s();
                        if t.is_finite() && t > 0.0 {
                            Ok(t)
                        } else {
                            Err("the scenario decodes no token".into())
                        }
                    });
            }
            Kind::Memory { path, text, quantity } => {
                out[i] = h.scenario(path, text, params, None).and_then(|s| {
                    let plan = tpsim::decode::plan_memory(&s);
                    let v = match quantity {
                        MemQuantity::KvCacheGib => plan.kv_pool.0 as f64 / (1u64 << 30) as f64,
                        MemQuantity::FreeAfterInitGib => plan.total_gib,
                        MemQuantity::FreeAfterWeightsGib => plan.available_gib,
                        MemQuantity::CustomAllreduceBuffersMib => {
                            if s.engine.allreduce == AllreduceBackend::Custom {
                                s.engine.costs.custom_allreduce_buffers.0 as f64 / (1u64 << 20) as f64
                            } else {
                                0.0
                            }
                        }
                    };
                    if v.is_finite() && v > 0.0 {
                        Ok(v)
                    } else {
                        Err("the plan has none (or the engine would not start)".into())
                    }
                });
            }
        }
    }
    if !ar_rows.is_empty() {
        for (i, t) in ar_index.into_iter().zip(rows::predict(&hw, &ar_rows)) {
            out[i] = Ok(t);
        }
    }
    out
}

fn residual(o: &Observation, p: &Result<f64, String>) -> f64 {
    match p {
        Ok(v) => o.target.residual(*v, o.sigma),
        Err(_) => NO_PREDICTION_RESIDUAL,
    }
}

/// Fits and scores one hypothesis.
fn fit_one(h: &Hypothesis, index: usize, obs: &Observations, settings: &Settings) -> Ranked {
    // Memory figures depend on no fitted parameter unless `context_overhead` is fitted: they are
    // predicted once, after the fit, instead of at every step of it.
    let memory_fitted = settings.fit.iter().any(|n| MEMORY_PARAMS.contains(&n.as_str()));
    let fitted_obs: Vec<&Observation> = obs
        .observations
        .iter()
        .filter(|o| !o.held_out && (memory_fitted || !matches!(o.kind, Kind::Memory { .. })))
        .collect();
    let start = h.hardware.params.clone();
    let base = predict_all(h, &start, &fitted_obs, settings);
    // Parameters some observation responds to under this hypothesis.
    let mut names = Vec::new();
    let mut not_fitted = Vec::new();
    for n in &settings.fit {
        let Some(v) = prof::get(&start, n).filter(|v| *v > 0.0) else {
            not_fitted.push(format!("{n}: not set (or 0) on this preset"));
            continue;
        };
        let mut p = start.clone();
        let probe = match prof::param_unit(n) {
            Some(prof::ParamUnit::Fraction) if v * PROBE_FACTOR > 1.0 => v / PROBE_FACTOR,
            _ => v * PROBE_FACTOR,
        };
        if prof::set(&mut p, n, probe).is_err() {
            not_fitted.push(format!("{n}: cannot be probed"));
            continue;
        }
        let moved = predict_all(h, &p, &fitted_obs, settings)
            .iter()
            .zip(&base)
            .any(|(a, b)| match (a, b) {
                (Ok(a), Ok(b)) => (a / b).ln().abs() > MIN_LOG_CHANGE,
                (Ok(_), Err(_)) | (Err(_), Ok(_)) => true,
                _ => false,
            });
        if moved {
            names.push(n.clone());
        } else {
            not_fitted.push(format!("{n}: no observation responds to it here"));
        }
    }
    let prior_sigma = settings.prior_factor.ln();
    let mut params = start.clone();
    let mut fitted: Vec<FittedParam> = Vec::new();
    let mut have_ci = true;
    while !names.is_empty() {
        let n_obs = fitted_obs.len();
        let y = vec![0.0; n_obs + names.len()];
        let fo = &fitted_obs;
        let nm = names.clone();
        let mut model = |p: &HwParams| -> Result<Vec<f64>, String> {
            let preds = predict_all(h, p, fo, settings);
            let mut r: Vec<f64> = fo.iter().zip(&preds).map(|(o, p)| residual(o, p)).collect();
            for n in &nm {
                let v = prof::get(p, n).unwrap_or(1.0);
                let s = prof::get(&start, n).unwrap_or(1.0);
                r.push((v / s).ln() / prior_sigma);
            }
            Ok(r)
        };
        match fit::solve_params(&start, &names, &y, &mut model) {
            Ok((_, f, p)) => {
                fitted = f;
                params = p;
                break;
            }
            Err(FitError::Collinear(_, b)) | Err(FitError::Insensitive(b)) => {
                not_fitted.push(format!(
                    "{b}: not separable from the others on these observations"
                ));
                names.retain(|x| *x != b);
            }
            Err(FitError::Singular(_)) => match fit::solve_params_estimate(&start, &names, &y, &mut model) {
                Ok((_, f, p)) => {
                    fitted = f;
                    params = p;
                    have_ci = false;
                    break;
                }
                Err(e) => {
                    not_fitted.push(format!("all: {e}"));
                    names.clear();
                }
            },
            Err(e) => {
                not_fitted.push(format!("all: {e}"));
                names.clear();
            }
        }
    }
    let all: Vec<&Observation> = obs.observations.iter().collect();
    let preds = predict_all(h, &params, &all, settings);
    let mut chi2 = 0.0;
    let mut worst: Option<(f64, String)> = None;
    let mut held_ok: Option<bool> = None;
    let observations: Vec<ObsResult> = all
        .iter()
        .zip(&preds)
        .map(|(o, p)| {
            let r = residual(o, p);
            if o.held_out {
                let ok = r.abs() <= HELD_OUT_SIGMAS;
                held_ok = Some(held_ok.unwrap_or(true) && ok);
            } else {
                chi2 += r * r;
                if worst.as_ref().is_none_or(|(w, _)| r.abs() > *w) {
                    worst = Some((r.abs(), format!("{} {:+.1}σ", o.label, r)));
                }
            }
            ObsResult {
                label: o.label.clone(),
                unit: o.kind.unit(),
                observed: o.target.text(),
                predicted: p.as_ref().ok().copied(),
                failure: p.as_ref().err().cloned(),
                residual_sigma: r,
                held_out: o.held_out,
            }
        })
        .collect();
    let chi2_prior: f64 = fitted
        .iter()
        .map(|f| ((f.value / f.start).ln() / prior_sigma).powi(2))
        .sum();
    let k = fitted.len();
    let mut hardware = h.hardware.clone();
    hardware.params = params;
    Ranked {
        rank: 0,
        hypothesis: h.name(),
        score: chi2 + chi2_prior + 2.0 * k as f64,
        delta: 0.0,
        verdict: "",
        chi2_observations: chi2,
        chi2_prior,
        fitted: fitted
            .iter()
            .map(|f| ParamResult {
                name: f.name.clone(),
                unit: f.unit.as_str(),
                start: f.start,
                value: f.value,
                ci_low: (have_ci && f.ci_low.is_finite()).then_some(f.ci_low),
                ci_high: (have_ci && f.ci_high.is_finite()).then_some(f.ci_high),
            })
            .collect(),
        not_fitted,
        worst: worst.map(|(_, w)| w),
        predicts_held_out: held_ok,
        observations,
        same_as: None,
        same_count: 0,
        hardware,
        index,
    }
}

/// Fits every hypothesis (in parallel, collected in order) and ranks them by score (ties keep the
/// enumeration order).
pub fn rank(hyps: &[Hypothesis], obs: &Observations, settings: &Settings) -> Vec<Ranked> {
    let mut out: Vec<Ranked> = hyps
        .par_iter()
        .enumerate()
        .map(|(i, h)| fit_one(h, i, obs, settings))
        .collect();
    out.sort_by(|a, b| a.score.total_cmp(&b.score).then(a.index.cmp(&b.index)));
    let best = out.first().map_or(0.0, |r| r.score);
    for (i, r) in out.iter_mut().enumerate() {
        r.rank = i + 1;
        r.delta = r.score - best;
        r.verdict = if i == 0 {
            "best"
        } else if r.delta <= TIE_DELTA {
            "tied"
        } else if r.delta <= EXCLUDE_DELTA {
            "less-supported"
        } else {
            "excluded"
        };
    }
    for i in 0..out.len() {
        let leader = (0..i).find(|&j| out[j].same_as.is_none() && same(&out[j], &out[i]));
        if let Some(j) = leader {
            out[i].same_as = Some(out[j].rank);
            out[j].same_count += 1;
        }
    }
    out
}

/// Same score and the same prediction of every observation (relative 1e-9).
fn same(a: &Ranked, b: &Ranked) -> bool {
    let close = |x: f64, y: f64| (x - y).abs() <= 1e-9 * x.abs().max(y.abs()).max(1e-12);
    close(a.score, b.score)
        && a.observations
            .iter()
            .zip(&b.observations)
            .all(|(x, y)| match (x.predicted, y.predicted) {
                (Some(p), Some(q)) => close(p, q),
                (None, None) => true,
                _ => false,
            })
}
