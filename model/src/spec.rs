//! Speculative-decoding arithmetic (reference/spec-decode.md): acceptance models and the
//! expected acceptance length τ (which counts the bonus token, τ ≥ 1).

use serde::Deserialize;

pub mod tree;
pub use tree::{AcceptanceModel, DraftTree, Positional, Sampler};

/// How draft tokens are accepted along a chain (topk = 1).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "snake_case", deny_unknown_fields)]
pub enum Acceptance {
    /// i.i.d. acceptance rate α per position (Leviathan et al. 2023).
    Alpha(f64),
    /// Conditional acceptance a1, a2, … of position i given all before it were accepted; positions
    /// beyond the list reuse its last value.
    PerPosition(Vec<f64>),
    /// Marginal probability that draft position i is accepted (a1, a1·a2, …), as drafter model cards
    /// and SpecForge report them; must be non-increasing. Positions beyond the list are rejected.
    Cumulative(Vec<f64>),
}

/// Errors in an acceptance description.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum AcceptanceError {
    #[error("acceptance rate {0} is outside [0, 1]")]
    OutOfRange(f64),
    #[error("per_position is empty: expected at least one rate in [0, 1]")]
    Empty,
    #[error("`{0}` is empty: expected at least one rate in [0, 1]")]
    EmptyList(&'static str),
    #[error("cumulative acceptance must not increase along the chain ({0} after {1})")]
    Increasing(f64, f64),
}

impl Acceptance {
    /// Checks every rate is finite and in [0, 1].
    pub fn validate(&self) -> Result<(), AcceptanceError> {
        let rates: &[f64] = match self {
            Acceptance::Alpha(a) => std::slice::from_ref(a),
            Acceptance::PerPosition(v) | Acceptance::Cumulative(v) if v.is_empty() => {
                return Err(AcceptanceError::Empty);
            }
            Acceptance::PerPosition(v) | Acceptance::Cumulative(v) => v,
        };
        if let Acceptance::Cumulative(v) = self
            && let Some(w) = v.windows(2).find(|w| w[1] > w[0])
        {
            return Err(AcceptanceError::Increasing(w[1], w[0]));
        }
        match rates
            .iter()
            .find(|r| !(r.is_finite() && (0.0..=1.0).contains(*r)))
        {
            Some(r) => Err(AcceptanceError::OutOfRange(*r)),
            None => Ok(()),
        }
    }

    /// Conditional acceptance rate of draft position `i` (0-based).
    pub fn rate(&self, i: usize) -> f64 {
        match self {
            Acceptance::Alpha(a) => *a,
            Acceptance::PerPosition(v) => v.get(i).or(v.last()).copied().unwrap_or(0.0),
            Acceptance::Cumulative(v) => {
                let here = v.get(i).copied().unwrap_or(0.0);
                let before = if i == 0 {
                    1.0
                } else {
                    v.get(i - 1).copied().unwrap_or(0.0)
                };
                if before > 0.0 { here / before } else { 0.0 }
            }
        }
    }

    /// Expected acceptance length for a chain of `drafts` tokens: 1 + a1 + a1·a2 + … (the α case is
    /// (1 − α^(γ+1)) / (1 − α)).
    pub fn expected_accept_len(&self, drafts: u32) -> f64 {
        let mut tau = 1.0;
        let mut p = 1.0;
        for i in 0..drafts as usize {
            p *= self.rate(i);
            tau += p;
        }
        tau
    }

    /// One accept length from uniform draws in [0, 1): position i is accepted while `u_i < a_i`.
    pub fn sample_accept_len(&self, drafts: u32, mut uniforms: impl FnMut() -> f64) -> u32 {
        let mut n = 1;
        for i in 0..drafts as usize {
            if uniforms() < self.rate(i) {
                n += 1;
            } else {
                break;
            }
        }
        n
    }
}

/// The acceptance length at which speculation breaks even: τ such that τ / iteration = 1 / step.
pub fn break_even_accept_len(iteration_s: f64, plain_step_s: f64) -> f64 {
    if plain_step_s > 0.0 {
        iteration_s / plain_step_s
    } else {
        f64::INFINITY
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cumulative_reference_example() {
        // spec-decode.md: Kimi-K2.6 MLA drafter on 8× H200, 0.633 / 0.404 / 0.264 → τ ≈ 2.30. Those are
        // marginal (cumulative) rates: τ = 1 + 0.633 + 0.404 + 0.264 = 2.301.
        let a = Acceptance::Cumulative(vec![0.633, 0.404, 0.264]);
        assert!((a.expected_accept_len(3) - 2.301).abs() < 1e-12);
        assert!((a.rate(1) - 0.404 / 0.633).abs() < 1e-12);
        // Read as conditional rates the same numbers give 1 + a1 + a1a2 + a1a2a3 = 1.956.
        let c = Acceptance::PerPosition(vec![0.633, 0.404, 0.264]);
        assert!((c.expected_accept_len(3) - 1.956_245_248).abs() < 1e-9);
        assert!(Acceptance::Cumulative(vec![0.5, 0.6]).validate().is_err());
    }

    #[test]
    fn alpha_closed_form() {
        let a = Acceptance::Alpha(0.8);
        let closed = (1.0 - 0.8f64.powi(4)) / (1.0 - 0.8);
        assert!((a.expected_accept_len(3) - closed).abs() < 1e-12);
        assert!((a.expected_accept_len(3) - 2.952).abs() < 1e-12);
    }

    #[test]
    fn sampling_walks_the_chain() {
        let a = Acceptance::Alpha(0.5);
        let mut u = [0.1, 0.2, 0.9].into_iter();
        assert_eq!(a.sample_accept_len(3, || u.next().unwrap_or(1.0)), 3);
        let mut u = [0.7].into_iter();
        assert_eq!(a.sample_accept_len(3, || u.next().unwrap_or(1.0)), 1);
    }

    #[test]
    fn validation() {
        assert!(Acceptance::Alpha(1.2).validate().is_err());
        assert!(Acceptance::Alpha(f64::NAN).validate().is_err());
        assert!(Acceptance::PerPosition(vec![]).validate().is_err());
        assert!(Acceptance::PerPosition(vec![0.5, 0.3]).validate().is_ok());
    }

    #[test]
    fn break_even() {
        assert!((break_even_accept_len(0.038, 0.030) - 1.2666).abs() < 1e-3);
    }
}
