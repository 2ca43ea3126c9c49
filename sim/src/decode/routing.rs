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
        let skew = self.skew.max(0.0);
        let weights: Vec<f64> = (1..=e).map(|r| (r as f64).powf(-skew)).collect();
        let per_rank = e.div_ceil(u64::from(ranks)) as usize;
        // Past saturation every trial touches every expert: the busiest rank owns a full block.
        if u64::from(tokens) >= saturation_tokens(&weights, k) {
            let v = per_rank.min(e as usize) as f64;
            self.ep_cache.borrow_mut().insert(key, v);
            return v;
        }
        let mut rng = self.rng.stream(&format!("routing-ep/{e}/{k}/{tokens}/{ranks}"));
        let Some(dist) = GuidedIndex::new(&weights) else {
            return 0.0;
        };
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
        // Past saturation every trial touches all `e` experts (see [`saturation_tokens`]).
        if u64::from(tokens) >= saturation_tokens(&weights, k.min(e)) {
            return e as f64;
        }
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

/// Probability bound below which a sampled estimate is taken as saturated: the chance that any of
/// the 256 trials leaves an expert untouched (a numerical tolerance, not a model parameter).
const SATURATION_EPS: f64 = 1e-12;

/// Tokens from which every expert is touched in every trial but with probability below
/// [`SATURATION_EPS`] (u64::MAX when no finite count reaches it). A token choosing k distinct experts
/// draw by draw (each draw renormalised over the experts not yet chosen) misses expert i with chance
/// at most (1 − p_i)^k, p_i its single-draw probability, so by the union bound over experts and
/// trials the chance that one of [`TRIALS`] trials of n tokens misses an expert is at most
/// TRIALS · E · (1 − p_min)^(k·n). Past this count the sampled estimates equal their saturated values
/// (all E experts; a full block for the busiest rank) except on that negligible chance, so they are
/// returned without drawing: prefill chunks of thousands of tokens used to cost
/// TRIALS × tokens × k draws each (3 s for a MiniMax-M2.5 EP 8 run at c 100, 95 % of it here).
fn saturation_tokens(weights: &[f64], k: u64) -> u64 {
    let total: f64 = weights.iter().sum();
    let p_min = weights.iter().copied().fold(f64::INFINITY, f64::min) / total;
    if !(p_min > 0.0 && p_min < 1.0 && total.is_finite()) {
        return u64::MAX;
    }
    let need = (f64::from(TRIALS) * weights.len() as f64 / SATURATION_EPS).ln();
    let n = (need / (k.max(1) as f64 * -(1.0 - p_min).ln())).ceil();
    if n.is_finite() && n < u64::MAX as f64 {
        n as u64
    } else {
        u64::MAX
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

    /// Uniform E = 256, k = 8: ln(256 · 256 / 1e-12) = 38.7214, −ln(1 − 1/256) = 0.0039139;
    /// 38.7214 / (8 × 0.0039139) = 1236.7 → 1,237 tokens. Past it the estimates are the saturated
    /// values without a draw; just below it the sampled ones already are (MiniMax-M2.5's 256 experts).
    #[test]
    fn saturation_is_where_sampling_already_saturates() {
        let w = vec![1.0; 256];
        assert_eq!(saturation_tokens(&w, 8), 1_237);
        let r = Routing::new(0.0, 5);
        // Exact values (a full block of 32 in every trial), compared to 1e-12.
        let exact = |a: f64, b: f64| (a - b).abs() < 1e-12;
        assert!(exact(r.busiest_rank(256, 8, 1_237, 8), 32.0));
        assert!(exact(r.busiest_rank(256, 8, 1_236, 8), 32.0));
        let s = Routing::new(0.5, 5);
        assert!(exact(s.distinct(256, 8, 100_000), 256.0));
        // Zipf weights 1 / r: p_min = 1 / (256 · H_256) ≈ 6.4e-4, so thousands of tokens.
        let z: Vec<f64> = (1..=256).map(|r| 1.0 / r as f64).collect();
        let n = saturation_tokens(&z, 8);
        assert!((7_000..8_000).contains(&n), "{n}");
        assert_eq!(saturation_tokens(&[1.0], 1), u64::MAX);
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
