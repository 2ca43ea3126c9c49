//! Distinct MoE experts touched by a batch under skewed routing.
//!
//! With independent uniform routing the expected number of distinct experts among n tokens choosing
//! k of E is E·(1 − (1 − k/E)^n) (reference/spec-decode.md; `tpsim_model::llm`), an upper bound:
//! real routing is correlated and lowers it. With `[model] routing_skew = s > 0` expert popularity
//! follows a Zipf law, weight ∝ 1 / rank^s (an assumed shape, s is the user's knob), and the
//! expectation is estimated by sampling from the scenario's seeded "routing" stream: a fixed number of
//! trials, so the estimate is a pure function of (seed, E, k, n, s) and cacheable.

use crate::engine::RngStreams;
use rand::RngExt;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use std::cell::RefCell;
use std::collections::BTreeMap;

/// Trials per estimate: the standard error of the mean is ≈ σ/√256 (≈ 6 % of σ).
const TRIALS: u32 = 256;

/// Estimates of distinct experts, cached per (E, k, n).
#[derive(Debug)]
pub struct Routing {
    skew: f64,
    rng: RngStreams,
    cache: RefCell<BTreeMap<(u64, u64, u32), f64>>,
}

impl Routing {
    pub fn new(skew: f64, seed: u64) -> Routing {
        Routing {
            skew,
            rng: RngStreams::new(seed),
            cache: RefCell::new(BTreeMap::new()),
        }
    }

    /// Expected distinct experts touched by `tokens` tokens each choosing `k` of `e`.
    pub fn distinct(&self, e: u64, k: u64, tokens: u32) -> f64 {
        if e == 0 || k == 0 || tokens == 0 {
            return 0.0;
        }
        if self.skew <= 0.0 {
            return tpsim_model::llm::expected_distinct_experts(e, k, u64::from(tokens));
        }
        let key = (e, k, tokens);
        if let Some(v) = self.cache.borrow().get(&key) {
            return *v;
        }
        let v = self.sample(e, k.min(e), tokens);
        self.cache.borrow_mut().insert(key, v);
        v
    }

    fn sample(&self, e: u64, k: u64, tokens: u32) -> f64 {
        // One stream per (E, k, n): estimates do not depend on the order they are asked in.
        let mut rng = self.rng.stream(&format!("routing/{e}/{k}/{tokens}"));
        let weights: Vec<f64> = (1..=e).map(|r| (r as f64).powf(-self.skew)).collect();
        let Ok(dist) = WeightedIndex::new(&weights) else {
            return tpsim_model::llm::expected_distinct_experts(e, k, u64::from(tokens));
        };
        let mut seen = vec![0u32; e as usize];
        let mut total = 0u64;
        for trial in 1..=TRIALS {
            let mut distinct = 0u64;
            for _ in 0..tokens {
                let mut chosen = 0;
                let mut guard = 0;
                while chosen < k && guard < 64 * k {
                    guard += 1;
                    let x = dist.sample(&mut rng);
                    // A token picks k different experts; `seen == trial * 2 + 1` marks "this token".
                    if seen[x] == trial * 2 + 1 {
                        continue;
                    }
                    if seen[x] != trial * 2 {
                        distinct += 1;
                    }
                    seen[x] = trial * 2 + 1;
                    chosen += 1;
                }
                // Back to "seen in this trial" for the next token.
                for s in seen.iter_mut().filter(|s| **s == trial * 2 + 1) {
                    *s = trial * 2;
                }
            }
            total += distinct;
            let _ = rng.random::<u8>();
        }
        total as f64 / f64::from(TRIALS)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uniform_is_the_closed_form() {
        // spec-decode.md: Kimi E = 384, k = 8: 8, 15.8, 31.0, 59.5 for n = 1, 2, 4, 8.
        let r = Routing::new(0.0, 1);
        assert!((r.distinct(384, 8, 4) - 31.0).abs() < 0.05);
    }

    #[test]
    fn skew_lowers_the_distinct_experts_and_is_reproducible() {
        let a = Routing::new(1.0, 7);
        let b = Routing::new(1.0, 7);
        let one = a.distinct(384, 8, 1);
        // A single token always touches exactly k distinct experts.
        assert!((one - 8.0).abs() < 1e-12, "{one}");
        let eight = a.distinct(384, 8, 8);
        assert_eq!(eight.to_bits(), b.distinct(384, 8, 8).to_bits());
        // Skewed routing concentrates on popular experts: fewer distinct than the uniform 59.5.
        assert!(eight < 59.5 && eight > 8.0, "{eight}");
        let strong = Routing::new(3.0, 7).distinct(384, 8, 8);
        assert!(strong < eight, "{strong} vs {eight}");
    }
}
