//! sglfront60 (issue #18): SGLang's request path outside the scheduler's steps (HTTP, the
//! TokenizerManager, the ZMQ hops, the DetokenizerManager, the stream and the client) as one
//! latency a request, `tpsim::serve::sglang_front`: 3.66 ms, tenstorrent/tt-inference-server issue
//! 3560's SGLang (v0.5.11, tt-sglang-plugin's CPU mock) median TTFT 9.54 ms less two scheduler
//! rounds of its median TPOT 2.94 ms (the overlap loop's first token waits for the next round).

use crate::common::fixed_serve::{Fixed, run, run_with, sglang_plan};
use tpsim::serve::sglang_front::{NON_OVERLAP_READING_PS, REQUEST_PATH_PS, request_path};

use tpsim::workload::RequestSpec;
use tpsim_model::units::Duration;

/// The path, 3.66 ms, in picoseconds.
const PATH: u64 = 3_660_000_000;

fn ms(ps: u64) -> f64 {
    ps as f64 / 1e9
}

/// The latency's figure from the issue's two medians, by hand: 9.54 − 2 × 2.94 = 3.66 ms (6.60 ms
/// if the first token had waited one round only, the bound the overlap loop's order rules out).
#[test]
fn sglfront60_the_path_is_issue_3560s_ttft_less_two_rounds() {
    assert_eq!(REQUEST_PATH_PS, PATH);
    assert_eq!(NON_OVERLAP_READING_PS, 6_600_000_000);
    assert_eq!(request_path(), Duration::from_ps(PATH));
}

/// By hand, closed loop at concurrency 1 with `fixed_serve`'s costs (prefill 20 ms, decode 10 ms,
/// no overlap rule): prompts of 1,000 tokens, 2 outputs each. With the path, A is sent at 0 and
/// queued at 3.66, prefill [3.66, 23.66] (TTFT 23.66), decode [23.66, 33.66]; B is sent at 33.66,
/// queued at 37.32, prefill [37.32, 57.32] (TTFT 23.66), decode to 67.32. Without it TTFT 20 and
/// the run ends at 60 ms. Exact (integer picoseconds).
#[test]
fn sglfront60_a_closed_loop_request_reaches_the_scheduler_after_the_path() {
    let spec = RequestSpec {
        arrival: None,
        prompt: 1000,
        output: 2,
        prefix: None,
    };
    for (path, ttft, end) in [
        (0, 20_000_000_000u64, 60_000_000_000u64),
        (PATH, 20_000_000_000 + PATH, 60_000_000_000 + 2 * PATH),
    ] {
        let mut p = sglang_plan(100_000, 10, 1000);
        p.request_path = Duration::from_ps(path);
        let m = run(&p, vec![spec, spec], 1);
        assert_eq!((m.finished, m.prefill_iterations, m.decode_iterations), (2, 2, 2));
        assert_eq!(m.end, end, "path {path}");
        assert_eq!(m.ttft.count(), 2);
        assert!(
            (m.ttft.mean_ms() - ms(ttft)).abs() < 1e-9,
            "path {path}: mean TTFT {}",
            m.ttft.mean_ms()
        );
    }
}

/// By hand, open loop under the overlap loop (sglttft59's rule: a request the scheduler receives
/// while a step runs is prefilled after the next one): A (prompt 1,000, 10 outputs) sent at 0,
/// queued at 3.66, prefill [3.66, 23.66], decodes from 23.66 every 10 ms; B (the same) sent at
/// 25 ms reaches the scheduler at 28.66, during A's decode [23.66, 33.66], so the decode
/// [33.66, 43.66] was chosen without it and B's prefill runs [43.66, 63.66]: TTFT A 23.66, B 38.66,
/// mean 31.16 ms. Without the path B (sent at 25, during the decode [20, 30]) is prefilled
/// [40, 60]: TTFT A 20, B 35, mean 27.5. Exact.
#[test]
fn sglfront60_a_request_reaching_the_scheduler_during_a_step_waits_one_step() {
    let at = |t: u64| RequestSpec {
        arrival: Some(Duration::from_ms(t)),
        prompt: 1000,
        output: 10,
        prefix: None,
    };
    for (path, mean) in [(0, 27.5), (PATH, 31.16)] {
        let mut p = sglang_plan(100_000, 10, 1000);
        p.request_path = Duration::from_ps(path);
        // Prefill 20 ms, decode 10 ms, SGLang's overlap loop on, no first-token delay.
        let mut overlap = Fixed {
            overlap: true,
            ..Fixed::default()
        };
        let m = run_with(&p, vec![at(0), at(25)], 2, &mut overlap, 1);
        assert_eq!(m.finished, 2);
        assert!(
            (m.ttft.mean_ms() - mean).abs() < 1e-9,
            "path {path}: mean TTFT {}",
            m.ttft.mean_ms()
        );
    }
}
