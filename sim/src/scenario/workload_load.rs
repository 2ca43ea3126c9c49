//! Issue #18 (load): validation of the `[workload]` keys for open-loop arrivals, length
//! distributions given as data, trace replay and shared prefixes, and of `[slo]`.

use super::{
    HistogramLength, LengthSpec, RandomLength, Resolver, ScenarioError, SloSection, UniformLength, Workload,
    WorkloadSection,
};
use crate::workload::{Arrivals, Load, SharedPrefixSpec, lengths, trace};

/// Longest simulated span of open-loop arrivals, seconds (num_requests / request_rate): 10⁶ s keeps
/// the arrival clock far inside integer picoseconds (u64 holds 1.8·10⁷ s).
const MAX_SPAN_S: f64 = 1e6;

/// bench_serving's generated-shared-prefix defaults (sglang 0.5.9 bench_serving.py argument
/// parser: `--gsp-num-groups` 64, `--gsp-prompts-per-group` 16, `--gsp-system-prompt-len` 2048,
/// `--gsp-question-len` 128, `--gsp-output-len` 256, `--gsp-range-ratio` 1.0).
const GSP_DEFAULTS: (u32, u32, u32, u32, u32, f64) = (64, 16, 2048, 128, 256, 1.0);

impl Resolver<'_> {
    pub(super) fn load(&self, w: &mut WorkloadSection) -> Result<Load, ScenarioError> {
        let mut load = Load::default();
        if let Some(rate) = w.request_rate {
            if rate.is_nan() || rate <= 0.0 {
                return Err(self.invalid(
                    "workload.request_rate",
                    format!("{rate}: expected requests per second > 0, or inf (all at t = 0)"),
                ));
            }
            let k = w.burstiness.unwrap_or(1.0);
            if !(k.is_finite() && k > 0.0 && k <= 1000.0) {
                return Err(self.invalid(
                    "workload.burstiness",
                    format!("{k}: expected a gamma shape in (0, 1000] (1 = Poisson)"),
                ));
            }
            load.arrivals = Arrivals::Open { rate, burstiness: k };
        } else if w.burstiness.is_some() {
            return Err(self.invalid(
                "workload.burstiness",
                "shapes open-loop arrival gaps: set workload.request_rate too",
            ));
        }
        for key in ["prompt_len", "output_len"] {
            let slot = if key == "prompt_len" {
                &mut w.prompt_len
            } else {
                &mut w.output_len
            };
            if let Some(spec) = slot.as_mut() {
                self.length_spec(&format!("workload.{key}"), spec)?;
            }
        }
        if let Some(t) = w.trace.clone() {
            self.trace_workload(w, &t, &mut load)?;
        }
        if let Some(sp) = w.shared_prefix.clone() {
            if w.trace.is_some() {
                return Err(self.invalid(
                    "workload.shared_prefix",
                    "a trace carries its own prefixes: expected trace or shared_prefix, not both",
                ));
            }
            for (set, key) in [
                (w.prompt_len.is_some(), "prompt_len"),
                (w.output_len.is_some(), "output_len"),
            ] {
                if set {
                    return Err(self.invalid(
                        &format!("workload.{key}"),
                        format!("shared_prefix sets the lengths: expected workload.shared_prefix.* instead of {key}"),
                    ));
                }
            }
            let d = GSP_DEFAULTS;
            let spec = SharedPrefixSpec {
                num_groups: sp.num_groups.unwrap_or(d.0),
                prompts_per_group: sp.prompts_per_group.unwrap_or(d.1),
                system_prompt_len: sp.system_prompt_len.unwrap_or(d.2),
                question_len: sp.question_len.unwrap_or(d.3),
                range_ratio: sp.range_ratio.unwrap_or(d.5),
            };
            let out_len = sp.output_len.unwrap_or(d.4);
            for (v, key) in [
                (spec.num_groups, "num_groups"),
                (spec.prompts_per_group, "prompts_per_group"),
                (spec.system_prompt_len, "system_prompt_len"),
                (spec.question_len, "question_len"),
                (out_len, "output_len"),
            ] {
                if v == 0 {
                    return Err(self.invalid(&format!("workload.shared_prefix.{key}"), "expected at least 1"));
                }
            }
            self.range_ratio("workload.shared_prefix.range_ratio", spec.range_ratio)?;
            let n = u64::from(spec.num_groups) * u64::from(spec.prompts_per_group);
            if n > 1_000_000 || w.num_requests.is_some_and(|r| u64::from(r) != n) {
                return Err(self.invalid(
                    "workload.num_requests",
                    format!(
                        "shared_prefix makes num_groups × prompts_per_group = {n} requests: expected num_requests unset or equal, and at most 1,000,000"
                    ),
                ));
            }
            w.num_requests = Some(n as u32);
            let lo = |full: u32| lengths::random_low(full, spec.range_ratio);
            w.prompt_len = Some(LengthSpec::Uniform(UniformLength {
                min: lo(spec.system_prompt_len) + lo(spec.question_len),
                max: spec.system_prompt_len + spec.question_len,
            }));
            w.output_len = Some(LengthSpec::Random(RandomLength {
                random: out_len,
                range_ratio: spec.range_ratio,
            }));
            load.shared_prefix = Some(spec);
        }
        if let Some(c) = w.cached_prompt_len {
            if c == 0 {
                return Err(self.invalid(
                    "workload.cached_prompt_len",
                    "expected at least 1 token (leave it out for a run with nothing cached)",
                ));
            }
            if w.trace.is_some() || w.shared_prefix.is_some() {
                return Err(self.invalid(
                    "workload.cached_prompt_len",
                    "the prompts of a trace or a shared_prefix dataset carry their own prefixes: expected \
                     cached_prompt_len with prompt_len only",
                ));
            }
            load.cached_prompt_len = Some(c);
        }
        if let Some(same) = w.same_prompt {
            if same && w.cached_prompt_len.is_none() {
                return Err(self.invalid(
                    "workload.same_prompt",
                    "expected it with cached_prompt_len (the tokens of the one prompt every request \
                     sends that are in the prefix cache)",
                ));
            }
            if same && !matches!(w.prompt_len, None | Some(LengthSpec::Fixed(_))) {
                return Err(self.invalid(
                    "workload.same_prompt",
                    "expected a fixed prompt_len with it (every request sends one prompt)",
                ));
            }
            load.same_prompt = same;
        }
        Ok(load)
    }

    fn range_ratio(&self, key: &str, r: f64) -> Result<(), ScenarioError> {
        if r.is_finite() && (0.0..=1.0).contains(&r) {
            Ok(())
        } else {
            Err(self.invalid(key, format!("{r}: expected a range ratio from 0 to 1")))
        }
    }

    /// Checks a random length and reads a histogram's bins.
    fn length_spec(&self, key: &str, spec: &mut LengthSpec) -> Result<(), ScenarioError> {
        match spec {
            LengthSpec::Random(r) => {
                if r.random == 0 {
                    return Err(self.invalid(key, "random: expected at least 1 token"));
                }
                self.range_ratio(&format!("{key}.range_ratio"), r.range_ratio)
            }
            LengthSpec::Histogram(h) => {
                let (p, text) = self.read_relative(key, &h.histogram)?;
                let bins = lengths::parse_histogram(&text)
                    .map_err(|(line, m)| self.invalid(key, format!("{}:{line}: {m}", p.display())))?;
                *h = HistogramLength {
                    histogram: h.histogram.clone(),
                    bins: bins.into(),
                };
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn trace_workload(&self, w: &mut WorkloadSection, t: &str, load: &mut Load) -> Result<(), ScenarioError> {
        let key = "workload.trace";
        for (set, other) in [
            (w.prompt_len.is_some(), "prompt_len"),
            (w.output_len.is_some(), "output_len"),
        ] {
            if set {
                return Err(self.invalid(
                    &format!("workload.{other}"),
                    "a trace gives every request's lengths: expected no prompt_len/output_len with trace",
                ));
            }
        }
        let p = self.path.parent().unwrap_or(std::path::Path::new(".")).join(t);
        let spec = trace::validate(&p).map_err(|e| self.invalid(key, e.to_string()))?;
        self.read.borrow_mut().push(p);
        if spec.timed && w.request_rate.is_some() {
            return Err(self.invalid(
                "workload.request_rate",
                "the trace's records carry arrival_ms: expected no request_rate with a timed trace",
            ));
        }
        if w.num_requests.is_some_and(|n| n != spec.records) {
            return Err(self.invalid(
                "workload.num_requests",
                format!(
                    "the trace holds {} records: expected num_requests unset or equal",
                    spec.records
                ),
            ));
        }
        w.num_requests = Some(spec.records);
        w.prompt_len = Some(LengthSpec::Uniform(UniformLength {
            min: spec.prompt.0,
            max: spec.prompt.1,
        }));
        w.output_len = Some(LengthSpec::Uniform(UniformLength {
            min: spec.output.0,
            max: spec.output.1,
        }));
        if spec.timed {
            // Replay at the trace's own times (rate and burstiness unused).
            load.arrivals = Arrivals::Open {
                rate: f64::INFINITY,
                burstiness: 1.0,
            };
        }
        load.trace = Some(spec);
        Ok(())
    }

    /// Open-loop arrivals must fit the integer clock.
    pub(super) fn open_loop_span(&self, w: &Workload) -> Result<(), ScenarioError> {
        if let Arrivals::Open { rate, .. } = w.load.arrivals
            && w.load.trace.is_none()
            && f64::from(w.num_requests) / rate > MAX_SPAN_S
        {
            return Err(self.invalid(
                "workload.request_rate",
                format!(
                    "{rate}: {} requests would arrive over more than {MAX_SPAN_S} s: expected a rate ≥ num_requests / {MAX_SPAN_S}",
                    w.num_requests
                ),
            ));
        }
        Ok(())
    }

    /// `[slo]`: every objective finite and > 0, at least one, percentile in (0, 100].
    pub(super) fn slo(&self, s: SloSection) -> Result<crate::slo::Slo, ScenarioError> {
        for (v, key) in [
            (s.ttft_ms, "slo.ttft_ms"),
            (s.tpot_ms, "slo.tpot_ms"),
            (s.e2e_ms, "slo.e2e_ms"),
        ] {
            if let Some(v) = v
                && !(v.is_finite() && v > 0.0)
            {
                return Err(self.invalid(key, format!("{v}: expected milliseconds > 0")));
            }
        }
        if s.ttft_ms.is_none() && s.tpot_ms.is_none() && s.e2e_ms.is_none() {
            return Err(self.invalid("slo", "expected at least one of ttft_ms, tpot_ms, e2e_ms"));
        }
        let p = s.percentile.unwrap_or(crate::slo::DEFAULT_PERCENTILE);
        if !(p.is_finite() && p > 0.0 && p <= 100.0) {
            return Err(self.invalid(
                "slo.percentile",
                format!("{p}: expected a percentile in (0, 100]"),
            ));
        }
        Ok(crate::slo::Slo {
            ttft_ms: s.ttft_ms,
            tpot_ms: s.tpot_ms,
            e2e_ms: s.e2e_ms,
            percentile: p,
        })
    }
}
