//! `[speculative] acceptance`: inline rates, a bundled or file profile (`scenarios/acceptance/`), or a
//! replayed trace file, resolved to a [`AcceptanceModel`].

use super::{AcceptanceSection, Resolver, ScenarioError, error};
use crate::presets;
use std::path::Path;
use tpsim_model::spec::{Acceptance, AcceptanceModel, Positional};

const KEY: &str = "speculative.acceptance";

impl Resolver<'_> {
    /// Resolves the acceptance section for a shape of `steps` draft steps.
    pub(super) fn acceptance(
        &self,
        a: AcceptanceSection,
        steps: u32,
    ) -> Result<AcceptanceModel, ScenarioError> {
        let a = match &a.profile {
            None => a,
            Some(r) => {
                let pkey = format!("{KEY}.profile");
                let (file, text) = if presets::is_path(r) {
                    let (p, t) = self.read_relative(&pkey, r)?;
                    (p.display().to_string(), t)
                } else {
                    let t = presets::acceptance(r).ok_or_else(|| {
                        self.invalid(
                            &pkey,
                            format!(
                                "unknown acceptance profile `{r}`; expected one of: {}",
                                presets::names("acceptance").join(", ")
                            ),
                        )
                    })?;
                    (format!("<acceptance profile {r}>"), t.to_string())
                };
                let base: AcceptanceSection = error::parse_toml(&text, Path::new(&file))?;
                for (set, k) in [
                    (base.profile.is_some(), "profile"),
                    (base.trace.is_some(), "trace"),
                ] {
                    if set {
                        return Err(ScenarioError::invalid(
                            Path::new(&file),
                            &text,
                            k,
                            format!("`{k}` is not allowed inside an acceptance profile"),
                        ));
                    }
                }
                a.merged_over(base)
            }
        };
        let forms = [
            a.alpha.is_some(),
            a.per_position.is_some(),
            a.cumulative.is_some(),
            a.trace.is_some(),
        ];
        if forms.iter().filter(|f| **f).count() != 1 {
            return Err(self.invalid(
                KEY,
                "expected exactly one of `alpha`, `per_position`, `cumulative` or `trace` (directly or from the profile)",
            ));
        }
        if let Some(t) = &a.trace {
            if a.siblings.is_some() || a.draft_scores.is_some() {
                return Err(self.invalid(
                    KEY,
                    "`siblings` and `draft_scores` describe positional acceptance; a trace replays lengths",
                ));
            }
            return self.trace(t, steps);
        }
        let chain = match (a.alpha, a.per_position, a.cumulative) {
            (Some(x), _, _) => Acceptance::Alpha(x),
            (_, Some(v), _) => Acceptance::PerPosition(v),
            (_, _, Some(v)) => Acceptance::Cumulative(v),
            _ => unreachable!("exactly one form was checked above"),
        };
        let m = AcceptanceModel::Positional(Positional {
            chain,
            siblings: a.siblings.unwrap_or_default(),
            draft_scores: a.draft_scores,
        });
        m.validate().map_err(|e| self.invalid(KEY, e.to_string()))?;
        Ok(m)
    }

    /// Reads a trace: one accept length (1 to `steps` + 1) per line; blank lines and `#` comments
    /// are skipped. A bad line is reported as file:line.
    fn trace(&self, reference: &str, steps: u32) -> Result<AcceptanceModel, ScenarioError> {
        let tkey = format!("{KEY}.trace");
        let (path, text) = self.read_relative(&tkey, reference)?;
        let mut lengths = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let l = line.split('#').next().unwrap_or("").trim();
            if l.is_empty() {
                continue;
            }
            let bad = |message: String| ScenarioError::Invalid {
                file: path.display().to_string(),
                key: tkey.clone(),
                line: Some(i + 1),
                message,
            };
            let n: u32 = l
                .parse()
                .map_err(|_| bad(format!("`{l}`: expected an accept length, a whole number ≥ 1")))?;
            if n == 0 || n > steps + 1 {
                return Err(bad(format!(
                    "{n}: an accept length counts the bonus token, so 1 to num_steps + 1 = {}",
                    steps + 1
                )));
            }
            lengths.push(n);
        }
        if lengths.is_empty() {
            return Err(ScenarioError::Invalid {
                file: path.display().to_string(),
                key: tkey,
                line: None,
                message: "no accept lengths: expected one number per line".into(),
            });
        }
        Ok(AcceptanceModel::Trace(lengths))
    }
}
