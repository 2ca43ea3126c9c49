//! Streaming statistics of a serving run (issue #18 point 5): fixed-resolution histograms instead of
//! per-request samples, so a million requests cost a few hundred KiB whatever their number.
//!
//! [`Histogram`] is log-linear over picoseconds, like HdrHistogram with three significant digits:
//! values below 1,024 ps are exact, larger ones fall in one of 512 sub-buckets per power of two, so
//! a recorded value is reported within 1/1,024 of itself (the bucket's midpoint). The buckets are
//! allocated on the first sample. Sums are kept
//! exactly (u128 ps), so means are exact. The resolution is the simulator's, not a physical constant.

use tpsim_model::units::Duration;

/// Sub-buckets per power of two (a resolution of this tool).
const SUB: u64 = 512;
/// Buckets: 2 × SUB exact values, then SUB per octave up to 2^64.
const BUCKETS: usize = (2 * SUB + 54 * SUB) as usize;

/// A fixed-resolution histogram of durations.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    total: u64,
    sum_ps: u128,
}

fn index(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    // v has b = 64 − lz bits, b ≥ 11; keep its top 10 bits (SUB ≤ v >> shift < 2 SUB).
    let shift = 64 - u64::from(v.leading_zeros()) - 10;
    (2 * SUB + (shift - 1) * SUB + ((v >> shift) - SUB)) as usize
}

/// The midpoint of bucket `i` (its exact value below 2 SUB ps).
fn value(i: usize) -> u64 {
    let i = i as u64;
    if i < 2 * SUB {
        return i;
    }
    let shift = (i - 2 * SUB) / SUB + 1;
    let m = (i - 2 * SUB) % SUB + SUB;
    (m << shift) + (1u64 << (shift - 1))
}

impl Histogram {
    /// Records `n` samples of `d` (inlined: the serving loop calls it per request and iteration).
    #[inline]
    pub fn record_n(&mut self, d: Duration, n: u64) {
        if n == 0 {
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS];
        }
        self.counts[index(d.as_ps())] += n;
        self.total += n;
        self.sum_ps += u128::from(d.as_ps()) * u128::from(n);
    }
    /// Adds `o`'s samples (issue #17 dp: replicas' histograms merged; both share the buckets).
    pub fn merge(&mut self, o: &Histogram) {
        if o.total == 0 {
            return;
        }
        if self.counts.is_empty() {
            self.counts = vec![0; BUCKETS];
        }
        for (a, b) in self.counts.iter_mut().zip(&o.counts) {
            *a += b;
        }
        self.total += o.total;
        self.sum_ps += o.sum_ps;
    }
    /// Records one sample.
    #[inline]
    pub fn record(&mut self, d: Duration) {
        self.record_n(d, 1);
    }
    /// Samples recorded.
    pub fn count(&self) -> u64 {
        self.total
    }
    /// Exact mean in ms (0 without samples).
    pub fn mean_ms(&self) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        (self.sum_ps as f64 / self.total as f64) / 1e9
    }
    /// Percentile `p` in [0, 100] by nearest rank, in ms (0 without samples): the bucket holding the
    /// ⌈p/100 · n⌉-th smallest sample, reported at its midpoint.
    pub fn percentile_ms(&self, p: f64) -> f64 {
        if self.total == 0 {
            return 0.0;
        }
        let p = if p.is_finite() { p.clamp(0.0, 100.0) } else { 100.0 };
        let rank = ((p / 100.0) * self.total as f64).ceil().max(1.0) as u64;
        let mut seen = 0u64;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                return value(i) as f64 / 1e9;
            }
        }
        0.0
    }
}

/// One point of the serving time series.
#[derive(Debug, Clone, Copy, PartialEq, serde::Serialize)]
pub struct SeriesPoint {
    /// Simulated time, ms.
    pub t_ms: f64,
    /// Requests running / waiting, summed over SGLang's DP-attention groups.
    pub running: u32,
    pub waiting: u32,
    /// KV pool tokens in use (held by requests or the prefix cache) over the pool (under DP
    /// attention: all groups' pools together; the busiest group's peak is
    /// `report::serving::Serving::peak_group_kv_utilisation`).
    pub kv_utilisation: f64,
    /// Preemptions (vLLM) or retractions (SGLang) so far.
    pub preemptions: u64,
}

/// Most points the time series keeps (a resolution of this tool: the trace and `--json` stay small).
pub const SERIES_POINTS: usize = 256;

/// A time series downsampled as it grows: it keeps every `stride`-th offered point and, when full,
/// drops every other point and doubles the stride. Deterministic, bounded by [`SERIES_POINTS`].
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Series {
    pub points: Vec<SeriesPoint>,
    stride: u64,
    offered: u64,
}

impl Series {
    pub fn offer(&mut self, p: SeriesPoint) {
        if self.stride == 0 {
            self.stride = 1;
        }
        if self.offered.is_multiple_of(self.stride) {
            if self.points.len() == SERIES_POINTS {
                let kept: Vec<SeriesPoint> = self.points.iter().copied().step_by(2).collect();
                self.points = kept;
                self.stride *= 2;
                if !self.offered.is_multiple_of(self.stride) {
                    self.offered += 1;
                    return;
                }
            }
            self.points.push(p);
        }
        self.offered += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_round_trip_within_resolution() {
        for v in [
            0u64,
            1,
            1023,
            1024,
            1025,
            2047,
            2048,
            2049,
            12_345_678,
            50_000_000_000,
            u64::MAX / 3,
        ] {
            let m = value(index(v));
            let err = (m as f64 - v as f64).abs() / (v.max(1) as f64);
            assert!(err <= 1.0 / 1024.0 + 1e-12, "{v} → {m}");
        }
    }

    #[test]
    fn percentiles_by_nearest_rank() {
        let mut h = Histogram::default();
        for ms in 1..=100u64 {
            h.record(Duration::from_ms(ms));
        }
        // p50 of 1..=100 ms by nearest rank is the 50th sample, 50 ms (±1/1024).
        assert!((h.percentile_ms(50.0) - 50.0).abs() <= 50.0 / 1024.0);
        assert!((h.percentile_ms(99.0) - 99.0).abs() <= 99.0 / 1024.0);
        // The mean is exact: 50.5 ms.
        assert!((h.mean_ms() - 50.5).abs() < 1e-9);
    }

    #[test]
    fn series_is_bounded() {
        let mut s = Series::default();
        for i in 0..100_000u32 {
            s.offer(SeriesPoint {
                t_ms: f64::from(i),
                running: i,
                waiting: 0,
                kv_utilisation: 0.0,
                preemptions: 0,
            });
        }
        assert!(s.points.len() <= SERIES_POINTS && s.points.len() > SERIES_POINTS / 4);
    }
}
