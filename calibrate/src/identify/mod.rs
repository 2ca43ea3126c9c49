//! `tpsim-calibrate identify` (issue #19 point 4): which box explains what a box measured.
//!
//! Reads an observations file ([`observations`]), enumerates the structural hypotheses
//! ([`hypotheses`]: presets × P2P level × NCCL release × collapse × ACS × ForceP2P), fits each one's
//! continuous parameters with intervals and ranks them by a penalised χ² ([`rank`]); prints the
//! ranked table with each hypothesis's worst-explained observation, says which hypotheses the data
//! excludes and which it cannot tell apart, and writes a hardware profile for the best.

pub mod hypotheses;
pub mod observations;
pub mod rank;

use clap::Args;
use std::fmt::Write as _;
use std::io::Write;
use std::path::PathBuf;
use tpsim::scenario::profile::{ProfileFile, ProfileParam, ProfileProvenance};

/// Bad input of `identify` (exit code 2).
#[derive(Debug, thiserror::Error)]
pub enum IdentifyError {
    #[error("{file}: {message}")]
    Input { file: String, message: String },
    #[error("{0}")]
    Hypothesis(String),
}

/// `tpsim-calibrate identify OBSERVATIONS.toml [--hypotheses DIR|FILE|PRESET…] [--json] [--write-profile OUT]`.
#[derive(Debug, Clone, Args)]
pub struct IdentifyArgs {
    /// The observations (TOML; book/src/identify.md).
    #[arg(value_name = "OBSERVATIONS.toml")]
    pub observations: PathBuf,
    /// Candidate hardware presets instead of the file's `[hypotheses] presets`: directories (their
    /// *.toml), preset files or bundled preset names.
    #[arg(long, value_name = "DIR|FILE|PRESET", num_args = 1..)]
    pub hypotheses: Vec<PathBuf>,
    /// Hold out the observations whose label starts with TEXT (repeatable), besides `[identify] holdout`.
    #[arg(long, value_name = "TEXT")]
    pub holdout: Vec<String>,
    /// Print one JSON object instead of the text.
    #[arg(long)]
    pub json: bool,
    /// Write a hardware profile of the best hypothesis's fitted parameters here.
    #[arg(long, value_name = "OUT.toml")]
    pub write_profile: Option<PathBuf>,
    /// Show this many hypotheses in the text table (all with --json).
    #[arg(long, default_value_t = 20, value_name = "N")]
    pub top: usize,
}

/// The default fitted set: the cross-socket SHM step, the SHM copy bandwidth and NCCL's Simple step
/// latency — the three shared constants that set small-message allreduce time and that issue #19
/// names as set from a single box.
pub const DEFAULT_FIT: [&str; 3] = [
    "shm_cross_socket_step_cost",
    "shm_copy_bw",
    "nccl_simple_step_latency",
];
/// Default prior spread (a factor of 2 from the preset's value costs 1 σ).
pub const DEFAULT_PRIOR_FACTOR: f64 = 2.0;

/// The result of a run.
#[derive(Debug, serde::Serialize)]
pub struct Report {
    pub observations_file: String,
    pub observations: usize,
    pub held_out: Vec<String>,
    pub fit: Vec<String>,
    pub prior_factor: f64,
    pub hypotheses: usize,
    pub ranked: Vec<rank::Ranked>,
    /// Hypotheses within [`rank::TIE_DELTA`] of the best, best included.
    pub cannot_tell_apart: Vec<String>,
    pub excluded: usize,
}

/// Runs identify on `args` without printing.
pub fn identify(args: &IdentifyArgs) -> Result<Report, IdentifyError> {
    let obs = observations::load(&args.observations, &args.holdout)?;
    let hyps = hypotheses::enumerate(&obs.hypotheses, &args.hypotheses, &obs.dir, &obs.file)?;
    let fit_names: Vec<String> = obs
        .identify
        .fit
        .clone()
        .unwrap_or_else(|| DEFAULT_FIT.iter().map(|s| s.to_string()).collect());
    for n in &fit_names {
        if tpsim::scenario::profile::param_unit(n).is_none() {
            return Err(IdentifyError::Input {
                file: obs.file.clone(),
                message: format!(
                    "identify.fit: `{n}` is not a fittable parameter (`tpsim-calibrate fit --help` lists them)"
                ),
            });
        }
    }
    let prior_factor = obs.identify.prior_factor.unwrap_or(DEFAULT_PRIOR_FACTOR);
    if !(prior_factor.is_finite() && prior_factor > 1.0) {
        return Err(IdentifyError::Input {
            file: obs.file.clone(),
            message: format!("identify.prior_factor = {prior_factor}: expected a factor > 1"),
        });
    }
    if obs.identify.output_len == Some(0) {
        return Err(IdentifyError::Input {
            file: obs.file.clone(),
            message: "identify.output_len = 0: expected ≥ 1 token".into(),
        });
    }
    let settings = rank::Settings {
        fit: fit_names.clone(),
        prior_factor,
        output_len: obs.identify.output_len,
    };
    let ranked = rank::rank(&hyps, &obs, &settings);
    let mut held: Vec<String> = Vec::new();
    for o in obs.observations.iter().filter(|o| o.held_out) {
        if !held.contains(&o.group) {
            held.push(o.group.clone());
        }
    }
    Ok(Report {
        observations_file: obs.file.clone(),
        observations: obs.observations.len(),
        held_out: held,
        fit: fit_names,
        prior_factor,
        hypotheses: hyps.len(),
        cannot_tell_apart: ranked
            .iter()
            .filter(|r| r.delta <= rank::TIE_DELTA)
            .map(|r| r.hypothesis.clone())
            .collect(),
        excluded: ranked.iter().filter(|r| r.delta > rank::EXCLUDE_DELTA).count(),
        ranked,
    })
}

fn params_text(r: &rank::Ranked) -> String {
    if r.fitted.is_empty() {
        return "none".into();
    }
    r.fitted
        .iter()
        .map(|p| {
            let ci = match (p.ci_low, p.ci_high) {
                (Some(l), Some(h)) => format!(" [{}, {}]", rank::num(l), rank::num(h)),
                _ => " [no interval]".into(),
            };
            format!("{} {} {}{ci}", p.name, rank::num(p.value), p.unit)
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The text report.
pub fn text(rep: &Report, top: usize) -> String {
    let mut o = String::new();
    let fitted_n = rep
        .ranked
        .first()
        .map_or(0, |r| r.observations.iter().filter(|x| !x.held_out).count());
    let _ = writeln!(
        o,
        "identify: {} — {} observations ({} fitted, held out: {}), {} hypotheses",
        rep.observations_file,
        rep.observations,
        fitted_n,
        if rep.held_out.is_empty() {
            "none".into()
        } else {
            rep.held_out.join(", ")
        },
        rep.hypotheses
    );
    let _ = writeln!(
        o,
        "fitted under each: {} (prior: a factor {} from the preset's value costs 1 σ)",
        rep.fit.join(", "),
        rank::num(rep.prior_factor)
    );
    let _ = writeln!(
        o,
        "score = χ² of the fitted observations + χ² of the priors + 2 × fitted parameters (AIC); Δ ≤ {} cannot be told apart, Δ > {} excluded",
        rank::TIE_DELTA,
        rank::EXCLUDE_DELTA
    );
    let _ = writeln!(
        o,
        "rank   Δscore     χ²obs  k  verdict         held-out  hypothesis — worst-explained observation"
    );
    let leaders: Vec<&rank::Ranked> = rep.ranked.iter().filter(|r| r.same_as.is_none()).collect();
    for r in leaders.iter().take(top) {
        let held = match r.predicts_held_out {
            None => "-",
            Some(true) => "predicts",
            Some(false) => "misses",
        };
        let _ = writeln!(
            o,
            "{:>4} {:>8.2} {:>9.2} {:>2}  {:<15} {:<9} {} — {}",
            r.rank,
            r.delta,
            r.chi2_observations,
            r.fitted.len(),
            r.verdict,
            held,
            r.hypothesis,
            r.worst.as_deref().unwrap_or("-")
        );
        if r.same_count > 0 {
            let _ = writeln!(
                o,
                "{:>47}(+ {} more that predict every observation the same)",
                "", r.same_count
            );
        }
    }
    if leaders.len() > top {
        let _ = writeln!(
            o,
            "... {} more distinct (--top N or --json shows all)",
            leaders.len() - top
        );
    }
    if let Some(b) = rep.ranked.first() {
        let _ = writeln!(o, "\nBest: {}", b.hypothesis);
        let _ = writeln!(o, "  fitted: {}", params_text(b));
        for n in &b.not_fitted {
            let _ = writeln!(o, "  not fitted: {n}");
        }
        let _ = writeln!(
            o,
            "  observation                 observed      predicted   residual"
        );
        for x in &b.observations {
            let pred = match (&x.predicted, &x.failure) {
                (Some(p), _) => rank::num(*p),
                (None, Some(f)) => format!("none ({f})"),
                (None, None) => "none".into(),
            };
            let _ = writeln!(
                o,
                "  {:<26} {:>9} {:<5} {:>9} {:>+8.1}σ{}",
                x.label,
                x.observed,
                x.unit,
                pred,
                x.residual_sigma,
                if x.held_out { "  (held out)" } else { "" }
            );
        }
        if let Some(ok) = b.predicts_held_out {
            let _ = writeln!(
                o,
                "  held-out observations: {}",
                if ok {
                    "predicted within 2 σ"
                } else {
                    "NOT predicted (a residual beyond 2 σ)"
                }
            );
        }
    }
    let _ = writeln!(
        o,
        "\nCannot tell apart (Δ ≤ {}): {} hypotheses, {} distinct",
        rank::TIE_DELTA,
        rep.cannot_tell_apart.len(),
        leaders.iter().filter(|r| r.delta <= rank::TIE_DELTA).count()
    );
    for r in leaders.iter().filter(|r| r.delta <= rank::TIE_DELTA) {
        let more = if r.same_count > 0 {
            format!(" (+ {} the same)", r.same_count)
        } else {
            String::new()
        };
        let _ = writeln!(o, "  #{} {}{more}", r.rank, r.hypothesis);
    }
    let _ = writeln!(
        o,
        "Excluded by the data (Δ > {}): {} of {}",
        rank::EXCLUDE_DELTA,
        rep.excluded,
        rep.hypotheses
    );
    let held: Vec<&rank::Ranked> = rep
        .ranked
        .iter()
        .filter(|r| r.predicts_held_out == Some(true))
        .collect();
    if !rep.held_out.is_empty() {
        let _ = writeln!(
            o,
            "Hypotheses that predict the held-out observations: {} of {}{}",
            held.len(),
            rep.hypotheses,
            held.first()
                .map(|r| format!(" (best ranked: #{} {}, Δ {:.2})", r.rank, r.hypothesis, r.delta))
                .unwrap_or_default()
        );
    }
    o
}

/// The profile of the best hypothesis (its fitted parameters; a `collapse=none` hypothesis also
/// carries `collapse_factor = 1`); its other knobs are scenario settings, listed in the notes.
pub fn profile_text(rep: &Report) -> Option<String> {
    let b = rep.ranked.first()?;
    let source = format!(
        "tpsim-calibrate identify: fitted under `{}` to {} (score {:.2})",
        b.hypothesis, rep.observations_file, b.score
    );
    let mut params: std::collections::BTreeMap<String, ProfileParam> = b
        .fitted
        .iter()
        .map(|p| {
            let v = crate::fit::sig6(p.value);
            (
                p.name.clone(),
                ProfileParam {
                    value: v,
                    ci_low: p.ci_low.map(|l| crate::fit::sig6(l).min(v)),
                    ci_high: p.ci_high.map(|h| crate::fit::sig6(h).max(v)),
                    unit: p.unit.to_string(),
                    source: source.clone(),
                },
            )
        })
        .collect();
    if b.hypothesis.contains("collapse=none") {
        params.insert(
            "collapse_factor".into(),
            ProfileParam {
                value: 1.0,
                ci_low: None,
                ci_high: None,
                unit: String::new(),
                source: "identify hypothesis collapse=none: the platform does not collapse".into(),
            },
        );
    }
    let mut notes = vec![format!("best hypothesis: {}", b.hypothesis)];
    if b.hypothesis.contains("p2p=sys") {
        notes.push("set [engine.env] NCCL_P2P_LEVEL = \"SYS\" in scenarios (hypothesis p2p=sys)".into());
    }
    if b.hypothesis.contains("p2p=disabled") {
        notes.push("set [engine.env] NCCL_P2P_DISABLE = \"1\" in scenarios (hypothesis p2p=disabled)".into());
    }
    if b.hypothesis.contains("acs=on") || b.hypothesis.contains("force_p2p=on") {
        notes.push(
            "acs/force_p2p are preset settings, not profile parameters: set them in a copy of the preset"
                .into(),
        );
    }
    let file = ProfileFile {
        provenance: ProfileProvenance {
            tool: format!("tpsim-calibrate identify {}", env!("CARGO_PKG_VERSION")),
            date: None,
            hardware: Some(b.hypothesis.split(' ').next().unwrap_or_default().to_string()),
            machine: None,
            measurements: vec![rep.observations_file.clone()],
            notes,
            range: None,
        },
        params,
        compute: None,
        correlation: None,
    };
    let body = toml::to_string(&file).ok()?;
    Some(format!(
        "# Hardware profile written by tpsim-calibrate identify (book/src/identify.md).\n# Use it with `[hardware] profile = \"<this file>\"` over the preset named in provenance.hardware.\n{body}"
    ))
}

/// Runs `identify`; returns the exit code (0 ok, 2 bad input, 1 output not written).
pub fn run(args: IdentifyArgs, out: &mut dyn Write, err: &mut dyn Write) -> i32 {
    let rep = match identify(&args) {
        Ok(r) => r,
        Err(e) => {
            let _ = writeln!(err, "tpsim-calibrate identify: {e}");
            return crate::cli::EXIT_BAD_INPUT;
        }
    };
    let written = if args.json {
        serde_json::to_string_pretty(&rep)
            .map_err(std::io::Error::other)
            .and_then(|t| writeln!(out, "{t}"))
    } else {
        write!(out, "{}", text(&rep, args.top))
    };
    if written.is_err() {
        return crate::cli::EXIT_FAILURE;
    }
    if let Some(path) = &args.write_profile {
        let Some(t) = profile_text(&rep) else {
            let _ = writeln!(
                err,
                "tpsim-calibrate identify: no hypothesis to write a profile for"
            );
            return crate::cli::EXIT_FAILURE;
        };
        let inputs = [args.observations.as_path()];
        if let Err(e) = tpsim::files::write_output(path, &inputs, t.as_bytes()) {
            let _ = writeln!(err, "tpsim-calibrate identify: {e}");
            return if e.is_bad_input() {
                crate::cli::EXIT_BAD_INPUT
            } else {
                crate::cli::EXIT_FAILURE
            };
        }
        if !args.json {
            let _ = writeln!(out, "profile written to {}", path.display());
        }
    }
    0
}
