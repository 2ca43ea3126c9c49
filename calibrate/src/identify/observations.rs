//! The observations file of `tpsim-calibrate identify` (TOML): what a box measured, each with its
//! relative uncertainty, resolved into [`Observation`]s. Kinds: nccl-tests tables (a log, read by
//! the `ingest` parser), per-allreduce times, decode tok/s of a scenario (one per allreduce backend),
//! and start-up memory figures of a scenario. Paths are relative to the observations file.

use super::IdentifyError;
use crate::fit::rows;
use crate::ingest::{self, Format};
use serde::Deserialize;
use std::path::{Path, PathBuf};
use tpsim::comm::Request;
use tpsim::scenario::AllreduceBackend;

/// The whole file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ObservationsFile {
    #[serde(default)]
    pub identify: IdentifySection,
    #[serde(default)]
    pub hypotheses: super::hypotheses::HypothesesSection,
    #[serde(default)]
    pub nccl_tests: Vec<NcclTestsObs>,
    #[serde(default)]
    pub allreduce: Vec<AllreduceObs>,
    #[serde(default)]
    pub throughput: Vec<ThroughputObs>,
    #[serde(default)]
    pub memory: Vec<MemoryObs>,
}

/// `[identify]`: the fit's settings.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct IdentifySection {
    /// Continuous parameters fitted under every hypothesis (`[hardware.params]` names).
    pub fit: Option<Vec<String>>,
    /// Spread of the prior on each fitted parameter: a move from the preset's value by this factor
    /// costs as much as a one-σ miss of an observation (default 2).
    pub prior_factor: Option<f64>,
    /// Labels (or label prefixes) of observations held out: predicted, never fitted or scored.
    pub holdout: Option<Vec<String>>,
    /// Decode this many output tokens per request in throughput observations (a speed knob).
    pub output_len: Option<u32>,
}

/// `[[nccl_tests]]`: an nccl-tests log (every row of its table becomes an observation).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NcclTestsObs {
    pub label: String,
    pub log: String,
    /// The NCCL environment of the run, `KEY=VALUE` (nccl-tests output does not record it).
    #[serde(default)]
    pub env: Vec<String>,
    pub uncertainty: f64,
    pub source: Option<String>,
}

/// `[[allreduce]]`: a time per allreduce call at one or more sizes.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AllreduceObs {
    pub label: String,
    pub gpus: u32,
    /// Sizes as `tpsim collective --sizes` takes them ("14K,56K,112K").
    pub sizes: String,
    pub time_us: Option<f64>,
    pub at_least_us: Option<f64>,
    pub at_most_us: Option<f64>,
    pub uncertainty: f64,
    /// "nccl" (default) or "custom".
    pub backend: Option<String>,
    #[serde(default)]
    pub env: Vec<String>,
    pub source: Option<String>,
}

/// `[[throughput]]`: decode output tok/s of a scenario (its engine settings say the backend).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ThroughputObs {
    pub label: String,
    pub scenario: String,
    pub tok_s: Option<f64>,
    pub at_least_tok_s: Option<f64>,
    pub at_most_tok_s: Option<f64>,
    pub uncertainty: f64,
    pub source: Option<String>,
}

/// `[[memory]]`: one start-up memory figure of a scenario.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryObs {
    pub label: String,
    pub scenario: String,
    /// kv_cache_gib, free_after_init_gib, free_after_weights_gib or custom_allreduce_buffers_mib.
    pub quantity: String,
    pub value: Option<f64>,
    pub at_least: Option<f64>,
    pub at_most: Option<f64>,
    pub uncertainty: f64,
    /// false: drop the scenario's `[engine.observed]` so that tpsim models free memory itself.
    #[serde(default = "yes")]
    pub use_observed: bool,
    pub source: Option<String>,
}

fn yes() -> bool {
    true
}

/// What an observation says: a value, or a bound (inside it the residual is 0).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Target {
    Value(f64),
    Range { low: Option<f64>, high: Option<f64> },
}

impl Target {
    /// Normalised residual of prediction `p` (> 0): ln(p / target) ÷ σ, 0 inside a range.
    pub fn residual(&self, p: f64, sigma: f64) -> f64 {
        let r = match *self {
            Target::Value(v) => (p / v).ln(),
            Target::Range { low, high } => match (low, high) {
                (Some(l), _) if p < l => (p / l).ln(),
                (_, Some(h)) if p > h => (p / h).ln(),
                _ => 0.0,
            },
        };
        r / sigma
    }

    pub fn text(&self) -> String {
        match *self {
            Target::Value(v) => super::rank::num(v),
            Target::Range { low, high } => match (low, high) {
                (Some(l), Some(h)) => format!("{}–{}", super::rank::num(l), super::rank::num(h)),
                (Some(l), None) => format!("≥ {}", super::rank::num(l)),
                (None, Some(h)) => format!("≤ {}", super::rank::num(h)),
                (None, None) => "any".into(),
            },
        }
    }
}

/// Memory figures a scenario's plan gives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemQuantity {
    KvCacheGib,
    FreeAfterInitGib,
    FreeAfterWeightsGib,
    CustomAllreduceBuffersMib,
}

const MEM_QUANTITIES: &str =
    "kv_cache_gib, free_after_init_gib, free_after_weights_gib or custom_allreduce_buffers_mib";

impl MemQuantity {
    fn parse(s: &str) -> Option<MemQuantity> {
        Some(match s {
            "kv_cache_gib" => MemQuantity::KvCacheGib,
            "free_after_init_gib" => MemQuantity::FreeAfterInitGib,
            "free_after_weights_gib" => MemQuantity::FreeAfterWeightsGib,
            "custom_allreduce_buffers_mib" => MemQuantity::CustomAllreduceBuffersMib,
            _ => return None,
        })
    }

    pub fn unit(self) -> &'static str {
        match self {
            MemQuantity::CustomAllreduceBuffersMib => "MiB",
            _ => "GiB",
        }
    }
}

/// What is observed.
#[derive(Debug, Clone)]
pub enum Kind {
    /// One allreduce call, µs.
    Allreduce {
        gpus: usize,
        size_bytes: u64,
        request: Request,
        env: Vec<String>,
    },
    /// Decode output tok/s of a scenario (its text, and its path for relative presets).
    Throughput { path: PathBuf, text: String },
    /// A memory figure of a scenario's start-up plan.
    Memory {
        path: PathBuf,
        text: String,
        quantity: MemQuantity,
    },
}

impl Kind {
    pub fn unit(&self) -> &'static str {
        match self {
            Kind::Allreduce { .. } => "µs",
            Kind::Throughput { .. } => "tok/s",
            Kind::Memory { quantity, .. } => quantity.unit(),
        }
    }
}

/// One resolved observation.
#[derive(Debug, Clone)]
pub struct Observation {
    /// The entry's label, with the size for allreduce rows (`S2 14336 B`).
    pub label: String,
    /// The entry's label as written (what `holdout` matches).
    pub group: String,
    pub source: String,
    pub kind: Kind,
    pub target: Target,
    /// ln(1 + relative uncertainty): the σ of the log residual.
    pub sigma: f64,
    pub held_out: bool,
}

/// The file, resolved.
#[derive(Debug)]
pub struct Observations {
    pub file: String,
    pub dir: PathBuf,
    pub observations: Vec<Observation>,
    pub identify: IdentifySection,
    pub hypotheses: super::hypotheses::HypothesesSection,
}

fn target(
    bad: &dyn Fn(String) -> IdentifyError,
    keys: [&str; 3],
    value: Option<f64>,
    low: Option<f64>,
    high: Option<f64>,
) -> Result<Target, IdentifyError> {
    for (k, v) in keys.iter().zip([value, low, high]) {
        if let Some(v) = v
            && !(v.is_finite() && v > 0.0)
        {
            return Err(bad(format!("{k} = {v}: expected a value > 0")));
        }
    }
    match (value, low, high) {
        (Some(v), None, None) => Ok(Target::Value(v)),
        (None, l, h) if l.is_some() || h.is_some() => {
            if let (Some(l), Some(h)) = (l, h)
                && l > h
            {
                return Err(bad(format!(
                    "{} {l} > {} {h}: expected low ≤ high",
                    keys[1], keys[2]
                )));
            }
            Ok(Target::Range { low: l, high: h })
        }
        _ => Err(bad(format!(
            "expected either `{}` or `{}`/`{}`",
            keys[0], keys[1], keys[2]
        ))),
    }
}

fn sigma(bad: &dyn Fn(String) -> IdentifyError, u: f64) -> Result<f64, IdentifyError> {
    if u.is_finite() && u > 0.0 && u < 10.0 {
        Ok((1.0 + u).ln())
    } else {
        Err(bad(format!(
            "uncertainty = {u}: expected a relative uncertainty > 0 (0.2 = ±20 %)"
        )))
    }
}

fn read_scenario(
    dir: &Path,
    rel: &str,
    bad: &dyn Fn(String) -> IdentifyError,
) -> Result<(PathBuf, String), IdentifyError> {
    let p = dir.join(rel);
    let text = tpsim::files::read_text(&p)
        .map_err(|e| bad(format!("scenario `{}`: cannot read: {e}", p.display())))?;
    // Loaded once here so that a bad scenario is reported against the observations file.
    tpsim::scenario::load_str(&text, &p).map_err(|e| bad(format!("scenario: {e}")))?;
    Ok((p, text))
}

/// Reads and resolves an observations file; `extra_holdout` adds labels to `[identify] holdout`.
pub fn load(path: &Path, extra_holdout: &[String]) -> Result<Observations, IdentifyError> {
    let file = path.display().to_string();
    let text = tpsim::files::read_text(path).map_err(|e| IdentifyError::Input {
        file: file.clone(),
        message: format!("cannot read: {e}"),
    })?;
    let parsed: ObservationsFile = toml::from_str(&text).map_err(|e| IdentifyError::Input {
        file: file.clone(),
        message: e.to_string().trim_end().to_string(),
    })?;
    let dir = path.parent().unwrap_or(Path::new("")).to_path_buf();
    let mut holdout = parsed.identify.holdout.clone().unwrap_or_default();
    holdout.extend(extra_holdout.iter().cloned());
    let held = |label: &str| holdout.iter().any(|h| label.starts_with(h.as_str()));
    let mut out: Vec<Observation> = Vec::new();
    let err = |key: String| {
        let file = file.clone();
        move |message: String| IdentifyError::Input {
            file: file.clone(),
            message: format!("{key}: {message}"),
        }
    };
    for (i, o) in parsed.nccl_tests.iter().enumerate() {
        let bad = err(format!("nccl_tests[{i}] ({})", o.label));
        let s = sigma(&bad, o.uncertainty)?;
        let log = dir.join(&o.log);
        let (mut m, _) = ingest::ingest_files(&[log.as_path()], Some(Format::NcclTests), None)
            .map_err(|e| bad(e.to_string()))?;
        for r in &mut m.records {
            if let crate::measurement::Record::Collective { env, .. } = r
                && env.is_empty()
            {
                env.extend(o.env.iter().cloned());
            }
        }
        let rows = rows::rows_of(&log.display().to_string(), &m).map_err(|e| bad(e.to_string()))?;
        for r in rows
            .into_iter()
            .filter(|r| matches!(r.op, rows::Op::Collective(tpsim::collective::Op::Allreduce)))
        {
            out.push(Observation {
                label: format!("{} {} B", o.label, r.size_bytes),
                group: o.label.clone(),
                source: o.source.clone().unwrap_or_else(|| o.log.clone()),
                kind: Kind::Allreduce {
                    gpus: r.n_gpus,
                    size_bytes: r.size_bytes,
                    request: r.request,
                    env: r.env_args.clone(),
                },
                target: Target::Value(r.measured_us),
                sigma: s,
                held_out: held(&o.label),
            });
        }
    }
    for (i, o) in parsed.allreduce.iter().enumerate() {
        let bad = err(format!("allreduce[{i}] ({})", o.label));
        let s = sigma(&bad, o.uncertainty)?;
        let t = target(
            &bad,
            ["time_us", "at_least_us", "at_most_us"],
            o.time_us,
            o.at_least_us,
            o.at_most_us,
        )?;
        let sizes = tpsim::collective::parse_sizes(&o.sizes).map_err(|e| bad(format!("sizes: {e}")))?;
        if sizes.is_empty() || sizes.contains(&0) {
            return Err(bad(format!("sizes `{}`: expected sizes > 0 B", o.sizes)));
        }
        if o.gpus < 2 {
            return Err(bad(format!("gpus = {}: expected ≥ 2", o.gpus)));
        }
        tpsim::scenario::nccl_env_from_args(&o.env).map_err(|e| bad(e.to_string()))?;
        let request = match o.backend.as_deref() {
            None | Some("nccl") => Request::Nccl,
            Some("custom") => Request::Backend(AllreduceBackend::Custom),
            Some(b) => return Err(bad(format!("backend `{b}`: expected nccl or custom"))),
        };
        for size in sizes {
            out.push(Observation {
                label: format!("{} {size} B", o.label),
                group: o.label.clone(),
                source: o.source.clone().unwrap_or_default(),
                kind: Kind::Allreduce {
                    gpus: o.gpus as usize,
                    size_bytes: size,
                    request,
                    env: o.env.clone(),
                },
                target: t,
                sigma: s,
                held_out: held(&o.label),
            });
        }
    }
    for (i, o) in parsed.throughput.iter().enumerate() {
        let bad = err(format!("throughput[{i}] ({})", o.label));
        let s = sigma(&bad, o.uncertainty)?;
        let t = target(
            &bad,
            ["tok_s", "at_least_tok_s", "at_most_tok_s"],
            o.tok_s,
            o.at_least_tok_s,
            o.at_most_tok_s,
        )?;
        let (path, text) = read_scenario(&dir, &o.scenario, &bad)?;
        out.push(Observation {
            label: o.label.clone(),
            group: o.label.clone(),
            source: o.source.clone().unwrap_or_default(),
            kind: Kind::Throughput { path, text },
            target: t,
            sigma: s,
            held_out: held(&o.label),
        });
    }
    for (i, o) in parsed.memory.iter().enumerate() {
        let bad = err(format!("memory[{i}] ({})", o.label));
        let s = sigma(&bad, o.uncertainty)?;
        let t = target(
            &bad,
            ["value", "at_least", "at_most"],
            o.value,
            o.at_least,
            o.at_most,
        )?;
        let quantity = MemQuantity::parse(&o.quantity)
            .ok_or_else(|| bad(format!("quantity `{}`: expected {MEM_QUANTITIES}", o.quantity)))?;
        let (path, mut text) = read_scenario(&dir, &o.scenario, &bad)?;
        if !o.use_observed {
            text = super::hypotheses::without_observed(&text).map_err(&bad)?;
        }
        out.push(Observation {
            label: o.label.clone(),
            group: o.label.clone(),
            source: o.source.clone().unwrap_or_default(),
            kind: Kind::Memory { path, text, quantity },
            target: t,
            sigma: s,
            held_out: held(&o.label),
        });
    }
    if out.is_empty() {
        return Err(IdentifyError::Input {
            file,
            message: "no observation: expected at least one [[nccl_tests]], [[allreduce]], [[throughput]] or [[memory]] entry".into(),
        });
    }
    for h in &holdout {
        if !out.iter().any(|o| o.group.starts_with(h.as_str())) {
            return Err(IdentifyError::Input {
                file,
                message: format!("holdout `{h}`: no observation's label starts with it"),
            });
        }
    }
    if out.iter().all(|o| o.held_out) {
        return Err(IdentifyError::Input {
            file,
            message: "every observation is held out: nothing left to identify the box by".into(),
        });
    }
    Ok(Observations {
        file,
        dir,
        observations: out,
        identify: parsed.identify,
        hypotheses: parsed.hypotheses,
    })
}
