//! The serving section of a run report (issue #18 point 5): latency percentiles, request
//! throughput, preemptions, refusals, overload and KV use over time, from the serving loop's
//! streaming statistics (`crate::serve`).

use crate::decode::LoopResult;
use serde::Serialize;

/// Mean and percentiles of one latency, ms.
#[derive(Debug, Clone, Serialize)]
pub struct Latency {
    pub mean: f64,
    pub p50: f64,
    pub p90: f64,
    pub p99: f64,
}

/// How the engine served the workload.
#[derive(Debug, Clone, Serialize)]
pub struct Serving {
    /// Time to first token from the request's arrival (queueing included).
    pub ttft_ms: Latency,
    /// Gaps between a request's successive token deliveries.
    pub itl_ms: Latency,
    /// Per-request TPOT ((last − first token) ÷ (outputs − 1)).
    pub tpot_ms: Latency,
    /// Arrival to last token.
    pub e2e_ms: Latency,
    /// Finished requests per second of simulated time.
    pub request_throughput: f64,
    pub finished: u64,
    /// Requests retracted (SGLang) or preempted (vLLM) to free KV, recomputed later.
    pub preemptions: u64,
    /// Requests the engine refused (not run).
    pub rejected: u64,
    /// The engine's text for the first refused request.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_rejection: Option<String>,
    /// Open loop: the waiting queue grew over the run.
    pub overloaded: bool,
    /// Highest fraction of the KV pool in use (under SGLang's DP attention: all groups' pools
    /// together).
    pub peak_kv_utilisation: f64,
    /// Under SGLang's DP attention (issue #18 leftover dpsched2): the highest fraction of any one
    /// group's pool in use — a group filling up while the others are empty shows here, not in the
    /// sum. Absent with one scheduler.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub peak_group_kv_utilisation: Option<f64>,
    /// DP-attention groups the peaks below are summed over (absent with one scheduler).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dp_groups: Option<u32>,
    /// Most requests running / waiting at once, summed over DP-attention groups.
    pub peak_running: u32,
    pub peak_waiting: u32,
    /// Requests whose output SGLang clipped to max_req_len − prompt − 1 (`init_req_max_new_tokens`);
    /// absent when none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub clipped_outputs: Option<u64>,
    pub prefill_iterations: u64,
    /// First arrival to last token, ms.
    pub makespan_ms: f64,
    /// Running / waiting / KV use / preemptions over time (at most `serve::stats::SERIES_POINTS`).
    pub series: Vec<crate::serve::stats::SeriesPoint>,
    /// The API-server front end (issue #18, frontend), when the engine's costs model one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub frontend: Option<Frontend>,
    /// SGLang's detokenizer process (issue #18, kimitok54), when modelled.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detokenizer: Option<Detokenizer>,
}

/// What SGLang's detokenizer process did (`serve::detok`).
#[derive(Debug, Clone, Serialize)]
pub struct Detokenizer {
    /// Its busy time over the run's makespan (0–1).
    pub busy_fraction: f64,
    /// The largest lag of a step's tokens behind the step, ms.
    pub max_lag_ms: f64,
    /// Busy at least 90 % of the makespan: the detokenizer, not the GPU, paces the client.
    pub bound: bool,
}

fn detokenizer(m: &LoopResult) -> Option<Detokenizer> {
    let d = &m.detok;
    let span = m.makespan.as_ps();
    d.on.then(|| Detokenizer {
        busy_fraction: if span == 0 {
            0.0
        } else {
            d.busy_ps as f64 / span as f64
        },
        max_lag_ms: d.max_lag_ps as f64 / 1e9,
        bound: d.bound(span),
    })
}

/// What the API-server front end did (`serve::frontend`).
#[derive(Debug, Clone, Serialize)]
pub struct Frontend {
    /// API-server processes.
    pub servers: u32,
    /// Their busy time over the run's makespan, averaged over the servers (0–1, can exceed 1
    /// when the last chunks are processed after the engine's last step).
    pub busy_fraction: f64,
    /// Mean and largest wait of a request before its input processing starts, ms.
    pub input_wait_mean_ms: f64,
    pub input_wait_max_ms: f64,
    /// Mean time from a request's send to its entering the engine's waiting queue, ms.
    pub to_engine_mean_ms: f64,
    /// Mean time from the engine's first token to the client's (its output chunk processed), ms.
    pub first_chunk_delay_mean_ms: f64,
}

fn frontend(m: &LoopResult) -> Option<Frontend> {
    let f = &m.frontend;
    if f.servers == 0 {
        return None;
    }
    let ms = |ps: u64| ps as f64 / 1e9;
    let per = |ps: u64, n: u64| if n == 0 { 0.0 } else { ms(ps) / n as f64 };
    let span = m.makespan.as_ps().saturating_mul(u64::from(f.servers));
    Some(Frontend {
        servers: f.servers,
        busy_fraction: if span == 0 {
            0.0
        } else {
            f.busy_ps as f64 / span as f64
        },
        input_wait_mean_ms: per(f.input_wait_ps, f.requests),
        input_wait_max_ms: ms(f.input_wait_max_ps),
        to_engine_mean_ms: per(f.to_engine_ps, f.requests),
        first_chunk_delay_mean_ms: per(f.first_chunk_delay_ps, f.first_chunks),
    })
}

fn latency(mean: f64, p: impl Fn(f64) -> f64) -> Latency {
    Latency {
        mean,
        p50: p(50.0),
        p90: p(90.0),
        p99: p(99.0),
    }
}

/// The serving section of `m`.
pub fn build(m: &LoopResult) -> Serving {
    Serving {
        ttft_ms: latency(m.ttft_ms(), |p| m.ttft_percentile_ms(p)),
        itl_ms: latency(m.itl.mean_ms(), |p| m.itl_percentile_ms(p)),
        tpot_ms: latency(m.tpot_ms(), |p| m.request_tpot_percentile_ms(p)),
        e2e_ms: latency(m.e2e.mean_ms(), |p| m.e2e_percentile_ms(p)),
        request_throughput: m.request_throughput(),
        finished: m.finished,
        preemptions: m.preemptions,
        rejected: m.rejected,
        first_rejection: m.first_rejection.clone(),
        overloaded: m.overloaded,
        peak_kv_utilisation: m.peak_kv_utilisation,
        peak_group_kv_utilisation: (m.groups > 1).then_some(m.peak_group_kv_utilisation),
        dp_groups: (m.groups > 1).then_some(m.groups),
        peak_running: m.peak_running,
        peak_waiting: m.peak_waiting,
        clipped_outputs: (m.clipped_outputs > 0).then_some(m.clipped_outputs),
        prefill_iterations: m.prefill_iterations,
        makespan_ms: m.makespan.as_ms_f64(),
        series: m.series.clone(),
        frontend: frontend(m),
        detokenizer: detokenizer(m),
    }
}
