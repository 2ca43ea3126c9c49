//! Percentiles of a run's latencies (issue #18 point 3).
//!
//! Stub until the serving loop lands: computed from the sample vectors the closed loop keeps
//! today; the serving loop's streaming statistics (#18 sched) replace these at merge.

use super::LoopResult;

/// Nearest-rank percentile `p` in [0, 100] of sorted samples (0 when there are none).
fn nearest_rank(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let rank = ((p / 100.0) * sorted.len() as f64).ceil().max(1.0) as usize;
    sorted[rank.min(sorted.len()) - 1]
}

impl LoopResult {
    /// Percentile `p` of time to first token, ms.
    pub fn ttft_percentile_ms(&self, p: f64) -> f64 {
        nearest_rank(&self.ttft_samples_ms, p)
    }

    /// Percentile `p` of inter-token latency, ms (stub: the per-iteration token times).
    pub fn itl_percentile_ms(&self, p: f64) -> f64 {
        self.tpot_percentile_ms(p)
    }

    /// Percentile `p` of per-request TPOT, ms.
    pub fn request_tpot_percentile_ms(&self, p: f64) -> f64 {
        let mut v = self.request_tpot_ms.clone();
        v.sort_by(f64::total_cmp);
        nearest_rank(&v, p)
    }

    /// Percentile `p` of end-to-end latency, ms (stub: TTFT and TPOT percentiles at `p` with the
    /// mean output length; the loop does not keep per-request end times yet).
    pub fn e2e_percentile_ms(&self, p: f64) -> f64 {
        self.ttft_percentile_ms(p) + self.request_tpot_percentile_ms(p) * self.mean_decoded()
    }

    /// Stub: the `i`-th request's end-to-end latency, estimated as its TTFT sample plus the mean
    /// per-request TPOT times the mean decoded tokens (used by goodput's e2e count).
    pub fn e2e_sample_ms(&self, i: usize) -> f64 {
        let tpot = if self.request_tpot_ms.is_empty() {
            0.0
        } else {
            self.request_tpot_ms.iter().sum::<f64>() / self.request_tpot_ms.len() as f64
        };
        self.ttft_samples_ms.get(i).copied().unwrap_or(0.0) + tpot * self.mean_decoded()
    }

    /// Mean output tokens after the first, per request.
    fn mean_decoded(&self) -> f64 {
        let n = self.ttft_samples_ms.len();
        if n == 0 {
            0.0
        } else {
            self.decode_tokens as f64 / n as f64
        }
    }

    /// Finished requests per second of simulated time (prefill and decode).
    pub fn request_throughput(&self) -> f64 {
        let s = (self.total_time + self.prefill_time).as_secs_f64();
        if s > 0.0 {
            self.ttft_samples_ms.len() as f64 / s
        } else {
            0.0
        }
    }
}
