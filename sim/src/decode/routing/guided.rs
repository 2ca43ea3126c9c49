//! rand's `WeightedIndex<f64>` with a constant-time lookup, draw for draw the same.
//!
//! `WeightedIndex::sample` (rand 0.10.4, `distr/weighted/weighted_index.rs`) draws one
//! `Uniform<f64>` over [0, total) and binary-searches the cumulative weights
//! (`partition_point(|w| w <= x)`). On a 16,384-token prefill of 128 experts that search was 80 %
//! of a whole `tpsim run` (wiaperf, `perf record` on gpt-oss-120b-vllm-dp4-tp2-ep-rtx6000x8).
//! [`GuidedIndex`] builds the same cumulative sums in the same order and the same uniform
//! (`Uniform::new(0, total)` is how `WeightedIndex::new` builds its own), then starts from a guide
//! table (Chen & Asau's guide-table method) and walks to the partition point. The partition point
//! of a non-decreasing sequence is unique, so the walk finds the binary search's answer from any
//! start: the guide only makes it short, and float rounding in the bucket can never change the
//! index drawn.

use rand::Rng;
use rand::distr::Distribution;
use rand::distr::Uniform;
use rand::distr::weighted::WeightedIndex;

/// Guide buckets per weight: a few make the walk about one step even for skewed weights.
const BUCKETS_PER_WEIGHT: usize = 4;

/// A weighted index sampler giving exactly `WeightedIndex<f64>`'s draws.
#[derive(Debug, Clone)]
pub struct GuidedIndex {
    /// Cumulative weights w0, w0 + w1, … without the total (`WeightedIndex`'s layout).
    cumulative: Vec<f64>,
    uniform: Uniform<f64>,
    /// `guide[b]`: the answer at the lower edge of bucket b of [0, total).
    guide: Vec<usize>,
    /// Buckets per unit of weight.
    scale: f64,
}

impl GuidedIndex {
    /// `None` exactly where `WeightedIndex::new` fails (empty, negative or all-zero weights).
    pub fn new(weights: &[f64]) -> Option<GuidedIndex> {
        WeightedIndex::new(weights).ok()?;
        let (first, rest) = weights.split_first()?;
        let mut total = *first;
        let mut cumulative = Vec::with_capacity(rest.len());
        for w in rest {
            cumulative.push(total);
            total += w;
        }
        let uniform = Uniform::new(0.0, total).ok()?;
        let buckets = weights.len() * BUCKETS_PER_WEIGHT;
        let scale = buckets as f64 / total;
        let guide = (0..buckets)
            .map(|b| cumulative.partition_point(|w| *w <= b as f64 / scale))
            .collect();
        Some(GuidedIndex {
            cumulative,
            uniform,
            guide,
            scale,
        })
    }
}

impl Distribution<usize> for GuidedIndex {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> usize {
        let x = self.uniform.sample(rng);
        let b = ((x * self.scale) as usize).min(self.guide.len() - 1);
        let mut i = self.guide[b];
        let c = &self.cumulative;
        while i > 0 && c[i - 1] > x {
            i -= 1;
        }
        while i < c.len() && c[i] <= x {
            i += 1;
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::RngStreams;

    /// Draw for draw what `WeightedIndex` gives, on uniform, Zipf and uneven weights with zeros.
    #[test]
    fn same_draws_as_weighted_index() {
        let zipf: Vec<f64> = (1..=384).map(|r| (r as f64).powf(-1.3)).collect();
        let uneven = [0.0, 3.0, 0.0, 0.25, 7.5, 0.0, 1e-9, 2.0];
        for w in [vec![1.0; 128], zipf, uneven.to_vec(), vec![5.0]] {
            let slow = WeightedIndex::new(&w).unwrap();
            let fast = GuidedIndex::new(&w).unwrap();
            let mut a = RngStreams::new(11).stream("guided");
            let mut b = RngStreams::new(11).stream("guided");
            for _ in 0..200_000 {
                assert_eq!(slow.sample(&mut a), fast.sample(&mut b));
            }
        }
        assert!(GuidedIndex::new(&[]).is_none());
        assert!(GuidedIndex::new(&[0.0, 0.0]).is_none());
        assert!(GuidedIndex::new(&[1.0, -1.0]).is_none());
    }
}
