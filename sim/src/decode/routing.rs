//! Distinct MoE experts touched by a batch under skewed routing.
//!
//! With independent uniform routing the expected number of distinct experts among n tokens choosing
//! k of E is E·(1 − (1 − k/E)^n) (reference/spec-decode.md; `tpsim_model::llm`), an upper bound:
//! real routing is correlated and lowers it. With `[model] routing_skew = s > 0` expert popularity
//! follows a Zipf law, weight ∝ 1 / rank^s (an assumed shape, s is the user's knob), and the
//! expectation is estimated by sampling from the scenario's seeded "routing" stream: a fixed number of
//! trials, so the estimate is a pure function of (seed, E, k, n, s) and cacheable.

use crate::engine::RngStreams;
use guided::GuidedIndex;
use rand::RngExt;
use rand::distr::Distribution;
use std::cell::RefCell;
use std::collections::BTreeMap;

mod guided;

/// Trials per estimate: the standard error of the mean is ≈ σ/√256 (≈ 6 % of σ).
const TRIALS: u32 = 256;

/// Estimates of distinct experts, cached per (E, k, n).
#[derive(Debug)]
pub struct Routing {
    skew: f64,
    rng: RngStreams,
    cache: RefCell<BTreeMap<(u64, u64, u32), f64>>,
    /// Busiest-rank estimates, per (E, k, n, ranks).
    ep_cache: RefCell<BTreeMap<(u64, u64, u32, u32), f64>>,
}

impl Routing {
    pub fn new(skew: f64, seed: u64) -> Routing {
        Routing {
            skew,
            rng: RngStreams::new(seed),
            cache: RefCell::new(BTreeMap::new()),
            ep_cache: RefCell::new(BTreeMap::new()),
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

    /// Expert parallelism: expected largest number of distinct touched experts that one of `ranks`
    /// ranks owns, each owning a contiguous block of e / ranks experts (SGLang's EP layout). The
    /// busiest rank sets the MoE time of the step. Sampled like [`Routing::distinct`] (uniform routing
    /// included: the maximum has no simple closed form).
    pub fn busiest_rank(&self, e: u64, k: u64, tokens: u32, ranks: u32) -> f64 {
        if e == 0 || k == 0 || tokens == 0 || ranks == 0 {
            return 0.0;
        }
        let key = (e, k, tokens, ranks);
        if let Some(v) = self.ep_cache.borrow().get(&key) {
            return *v;
        }
        let k = k.min(e);
        let mut rng = self.rng.stream(&format!("routing-ep/{e}/{k}/{tokens}/{ranks}"));
        let skew = self.skew.max(0.0);
        let weights: Vec<f64> = (1..=e).map(|r| (r as f64).powf(-skew)).collect();
        let Some(dist) = GuidedIndex::new(&weights) else {
            return 0.0;
        };
        let per_rank = e.div_ceil(u64::from(ranks)) as usize;
        let mut total = 0u64;
        // One buffer each for the whole estimate (same draws as fresh ones per trial and token).
        let mut touched = vec![false; e as usize];
        let mut mine: Vec<usize> = Vec::with_capacity(k as usize);
        for _ in 0..TRIALS {
            touched.fill(false);
            for _ in 0..tokens {
                mine.clear();
                let mut guard = 0;
                while (mine.len() as u64) < k && guard < 64 * k {
                    guard += 1;
                    let x = dist.sample(&mut rng);
                    if !mine.contains(&x) {
                        mine.push(x);
                    }
                }
                for &x in &mine {
                    touched[x] = true;
                }
            }
            let busiest = touched
                .chunks(per_rank)
                .map(|c| c.iter().filter(|t| **t).count())
                .max()
                .unwrap_or(0);
            total += busiest as u64;
        }
        let v = total as f64 / f64::from(TRIALS);
        self.ep_cache.borrow_mut().insert(key, v);
        v
    }

    fn sample(&self, e: u64, k: u64, tokens: u32) -> f64 {
        // One stream per (E, k, n): estimates do not depend on the order they are asked in.
        let mut rng = self.rng.stream(&format!("routing/{e}/{k}/{tokens}"));
        let weights: Vec<f64> = (1..=e).map(|r| (r as f64).powf(-self.skew)).collect();
        let Some(dist) = GuidedIndex::new(&weights) else {
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
    fn expert_parallel_busiest_rank() {
        let r = Routing::new(0.0, 3);
        // One token, k = 8 of 384 experts on 8 ranks of 48: between 8 / 8 = 1 (perfectly spread) and 8.
        let one = r.busiest_rank(384, 8, 1, 8);
        assert!(one > 1.0 && one < 4.0, "{one}");
        // One rank owns everything: the busiest rank touches all distinct experts.
        let all = r.busiest_rank(384, 8, 4, 1);
        assert!((all - 31.0).abs() < 1.0, "{all}");
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
