//! Issue #17 (dp): data-parallel replicas (SGLang `--dp-size` without DP attention, vLLM
//! `--data-parallel-size` on a dense model) as N serving loops fed by one seeded request stream.
//!
//! The router sends request i (in sending order) to replica i mod k: SGLang 0.5.9's default
//! `round_robin` (`data_parallel_controller.py` `round_robin_scheduler`); vLLM 0.11.0's least-loaded
//! pick (`core_client.py` `DPLBAsyncMPClient`, score 4 × waiting + running, bumped locally at each
//! pick) takes even, equally loaded engines in the same order. Each replica is an independent engine
//! with its own KV pool and scheduler, costed on the same iteration shapes (the replicas are alike).
//!
//! A closed loop of `concurrency` clients keeps at most that many requests in flight, so only
//! k = min(replicas, concurrency) replicas are ever busy at once: tpsim runs k loops with
//! concurrency ⌈C/k⌉ or ⌊C/k⌋ each. An open loop feeds all replicas (a client-side concurrency cap
//! split the same way). The merged figures: counts, times and histograms summed, the end the
//! latest replica's, peaks of running/waiting summed over replicas (an upper bound), the KV
//! utilisation peak the largest replica's, the time series the first replica's.

use super::{Measured, Plan};
use crate::decode::DecodeError;
use crate::workload::RequestStream;

/// The i-th of `k` near-equal shares of `total` (the first `total mod k` get one more).
pub fn share(total: u32, k: u32, i: u32) -> u32 {
    let k = k.max(1);
    total / k + u32::from(i < total % k)
}

/// The replicas that run: all of them in an open loop, at most `concurrency` in a closed loop.
pub fn active(replicas: u32, concurrency: u32, closed: bool) -> u32 {
    if closed {
        replicas.min(concurrency.max(1)).max(1)
    } else {
        replicas.max(1)
    }
}

/// Everything one replica loop takes besides its stream and counts.
#[allow(missing_debug_implementations)]
pub struct Shared<'a> {
    pub plan: &'a Plan,
    pub refuse: &'a dyn Fn(u32, u32) -> Option<String>,
    pub bucket: u32,
    pub slo: Option<&'a crate::slo::Slo>,
}

/// Runs `replicas` loops over the stream `make` builds (once per replica, each keeping its share),
/// and merges what they measured. Returns the merged figures and the replicas that ran.
pub fn run(
    replicas: u32,
    make: &dyn Fn() -> RequestStream,
    prep: &dyn Fn(crate::workload::RequestSpec) -> crate::workload::RequestSpec,
    (num_requests, concurrency): (u32, u32),
    sh: &Shared<'_>,
    mut draw: Option<&mut dyn FnMut() -> u32>,
    costs: &mut dyn super::IterationCosts,
) -> Result<(Measured, u32), DecodeError> {
    let closed = make().next().is_none_or(|r| r.arrival.is_none());
    let k = active(replicas, concurrency, closed);
    let mut merged: Option<Measured> = None;
    for r in 0..k {
        let stream = make()
            .enumerate()
            .filter(move |(i, _)| (*i as u64) % u64::from(k) == u64::from(r))
            .map(|(_, q)| prep(q));
        let d: Option<&mut dyn FnMut() -> u32> = match draw.as_mut() {
            Some(f) => Some(&mut **f),
            None => None,
        };
        let m = super::run(
            sh.plan,
            stream,
            share(num_requests, k, r),
            share(concurrency, k, r).max(1),
            sh.refuse,
            d,
            costs,
            sh.bucket,
            sh.slo,
        )?;
        merged = Some(match merged {
            None => m,
            Some(a) => merge(a, m),
        });
    }
    Ok((merged.unwrap_or_default(), k))
}

/// Two replicas' figures as one deployment's.
pub fn merge(mut a: Measured, b: Measured) -> Measured {
    a.decode_iterations += b.decode_iterations;
    a.prefill_iterations += b.prefill_iterations;
    a.decode_time += b.decode_time;
    a.prefill_time += b.prefill_time;
    a.end = a.end.max(b.end);
    a.output_tokens += b.output_tokens;
    a.decode_tokens += b.decode_tokens;
    a.request_iterations += b.request_iterations;
    a.finished += b.finished;
    a.rejected += b.rejected;
    if a.first_rejection.is_none() {
        a.first_rejection = b.first_rejection;
    }
    a.preemptions += b.preemptions;
    a.overloaded |= b.overloaded;
    a.peak_kv_utilisation = a.peak_kv_utilisation.max(b.peak_kv_utilisation);
    a.peak_group_kv_utilisation = a.peak_group_kv_utilisation.max(b.peak_group_kv_utilisation);
    a.clipped_outputs += b.clipped_outputs;
    a.peak_running = a.peak_running.saturating_add(b.peak_running);
    a.peak_waiting = a.peak_waiting.saturating_add(b.peak_waiting);
    a.ttft.merge(&b.ttft);
    a.itl.merge(&b.itl);
    a.token_time.merge(&b.token_time);
    a.request_tpot.merge(&b.request_tpot);
    a.e2e.merge(&b.e2e);
    a.frontend.merge(&b.frontend);
    a.detok.merge(&b.detok);
    a.goodput.good += b.goodput.good;
    a.goodput.finished += b.goodput.finished;
    if a.shape_runs.len() < b.shape_runs.len() {
        a.shape_runs.resize(b.shape_runs.len(), 0);
    }
    for (x, y) in a.shape_runs.iter_mut().zip(&b.shape_runs) {
        *x += y;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_round_robin() {
        // 10 requests over 4 replicas, round robin: replicas 0, 1 get 3 (i = 0,4,8 / 1,5,9), 2, 3 get 2.
        let s: Vec<u32> = (0..4).map(|i| share(10, 4, i)).collect();
        assert_eq!(s, vec![3, 3, 2, 2]);
        // A closed loop of 3 clients keeps at most 3 of 8 replicas busy; an open loop feeds all 8.
        assert_eq!(active(8, 3, true), 3);
        assert_eq!(active(8, 3, false), 8);
        assert_eq!(active(8, 64, true), 8);
    }
}
