//! sglttft59 (issue #18): when SGLang streams a prefill's first token under its overlap scheduler
//! (`tpsim::serve::sglang_first_token`, read from SGLang 0.5.9 `managers/scheduler.py`
//! `event_loop_overlap` and `scheduler_output_processor_mixin.py` `process_batch_result_prefill`,
//! and 0.4.0.post1 `tp_worker_overlap_thread.py` `resolve_batch_result`): the result of batch N is
//! processed after batch N + 1 is launched, waiting on N's `copy_done` event, not on N + 1's forward.

use crate::common::fixed_serve::sglang_plan;
use tpsim::decode::DecodeError;
use tpsim::serve::sglang_first_token::{StepHost, overlap_first_token_delay};
use tpsim::serve::{self, GroupShape, IterationCosts};
use tpsim::workload::RequestSpec;
use tpsim_model::units::Duration;

/// A host-bound eager prefill: 10 ms, 8 ms of it host time on the critical path (shape 1); a
/// graph decode: 2 ms, 0.3 ms host (shape 0). `overlap`: SGLang's overlap scheduler on.
struct HostBound {
    overlap: bool,
}

const PREFILL: StepHost = StepHost {
    makespan: Duration::from_ps(10_000_000_000),
    host: Duration::from_ps(8_000_000_000),
};
const DECODE: StepHost = StepHost {
    makespan: Duration::from_ps(2_000_000_000),
    host: Duration::from_ps(300_000_000),
};

impl IterationCosts for HostBound {
    fn decode(&mut self, _: u32, _: u32, _: bool) -> Result<(usize, Duration), DecodeError> {
        Ok((0, DECODE.makespan))
    }
    fn prefill(&mut self, _: u32, _: u32) -> Result<(usize, Duration), DecodeError> {
        Ok((1, PREFILL.makespan))
    }
    fn mixed(
        &mut self,
        _: u32,
        _: u32,
        _: bool,
        _: (u32, u32, u32),
    ) -> Result<(usize, Duration), DecodeError> {
        unreachable!("mixed chunk off")
    }
    fn dp_sum_len(&mut self, _: &[GroupShape]) -> Result<(usize, Duration), DecodeError> {
        unreachable!("one scheduler: no DP-attention step")
    }
    fn first_token_delay(&self, prefill: (usize, Duration), next: (usize, Duration)) -> Duration {
        let step = |(i, _): (usize, Duration)| if i == 1 { PREFILL } else { DECODE };
        if self.overlap {
            overlap_first_token_delay(step(prefill), step(next))
        } else {
            Duration::ZERO
        }
    }
    fn sglang_overlap(&self) -> bool {
        self.overlap
    }
}

/// Runs `n` copies of `spec` at `concurrency` through SGLang 0.5.9's scheduler with
/// `chunked_prefill_size` 1,000, context bucket 1, the overlap scheduler on or off.
fn run(spec: RequestSpec, n: u32, concurrency: u32, overlap: bool) -> serve::Measured {
    let never = |_: u32, _: u32| None;
    let plan = sglang_plan(100_000, 10, 1000);
    let reqs = std::iter::repeat_n(spec, n as usize);
    serve::run(
        &plan,
        reqs,
        n,
        concurrency,
        &never,
        None,
        &mut HostBound { overlap },
        1,
        None,
    )
    .unwrap()
}

/// By hand: two 1,000-token prompts (3 outputs each) at t 0, `chunked_prefill_size` 1,000, so
/// SGLang 0.5.9's `PrefillAdder` takes one a batch (`rem_chunk_tokens` reaches 0 after the first):
/// prefill A [0, 10], prefill B [10, 20] (a prefill batch goes before the decode), decode A + B
/// [20, 22], [22, 24]. Without the overlap scheduler the first tokens leave at the steps' ends:
/// TTFT A 10, B 20 ms (mean 15). With it A's result is processed after B's launch: its 8 ms host
/// time past A's 2 ms GPU tail, 6 ms later: A 16 ms; B's after the decode's launch, whose 0.3 ms
/// host the prefill's 2 ms tail hides: 20 ms (mean 18). A's TPOT moves with its first token:
/// (24 − 16) ÷ 2 = 4 ms against (24 − 10) ÷ 2 = 7; B's (24 − 20) ÷ 2 = 2 (means 3 and 4.5). Exact
/// (integer time; histogram sums exact).
#[test]
fn sglttft59_consecutive_eager_prefills_delay_the_first_token_by_the_next_launch() {
    let spec = RequestSpec {
        arrival: None,
        prompt: 1000,
        output: 3,
        prefix: None,
    };
    for (overlap, ttft_mean, tpot_mean) in [(false, 15.0, 4.5), (true, 18.0, 3.0)] {
        let m = run(spec, 2, 2, overlap);
        assert_eq!((m.finished, m.prefill_iterations, m.decode_iterations), (2, 2, 2));
        assert_eq!(m.end, 24_000_000_000);
        assert_eq!(m.ttft.count(), 2);
        assert!(
            (m.ttft.mean_ms() - ttft_mean).abs() < 1e-9,
            "overlap {overlap}: {}",
            m.ttft.mean_ms()
        );
        assert!(
            (m.request_tpot.mean_ms() - tpot_mean).abs() < 1e-9,
            "overlap {overlap}: {}",
            m.request_tpot.mean_ms()
        );
    }
}

/// By hand, concurrency 1 (closed loop), prompts 1,000, 2 outputs: prefill A [0, 10], decode A
/// [10, 12] (its first token: the decode's 0.3 ms host is hidden by the prefill's 2 ms GPU tail, so
/// TTFT A 10 ms), A finishes at 12 and B is sent at 12. Without the overlap scheduler B is prefilled
/// at once: [12, 22], TTFT 10, decode [22, 24], end 24. With it SGLang has launched A's next decode
/// before seeing A finish (0.5.9 `get_next_batch_to_run` runs before `pop_and_process` of the last
/// batch; `update_running_batch` filters only finished requests it knows of), so the GPU runs that
/// 2 ms decode again and B, received meanwhile, is prefilled at 14: [14, 24], TTFT 12 ms (mean
/// 11), decode [24, 26], end 26. Exact.
#[test]
fn sglttft59_a_closed_loop_request_waits_for_the_decode_launched_before_the_last_finished() {
    let spec = RequestSpec {
        arrival: None,
        prompt: 1000,
        output: 2,
        prefix: None,
    };
    for (overlap, ttft_mean, end_ms) in [(false, 10.0, 24), (true, 11.0, 26)] {
        let m = run(spec, 2, 1, overlap);
        assert_eq!((m.finished, m.prefill_iterations, m.decode_iterations), (2, 2, 2));
        assert!(
            (m.ttft.mean_ms() - ttft_mean).abs() < 1e-9,
            "overlap {overlap}: {}",
            m.ttft.mean_ms()
        );
        assert_eq!(m.end, end_ms * 1_000_000_000, "overlap {overlap}");
    }
}

/// By hand, open loop: A (prompt 1,000, 3 outputs) at t 0, B (same) at t 11 ms, during A's first
/// decode [10, 12]. Without the overlap scheduler B is prefilled when that decode ends: [12, 22],
/// TTFT 11 ms. With it the decode [12, 14] was launched before B was received, so B's prefill runs
/// [14, 24]: TTFT 13 ms. A: 10 ms both ways (the decode after its prefill launches within the
/// prefill's GPU tail). Means 10.5 and 11.5 ms. Exact.
#[test]
fn sglttft59_an_arrival_during_a_step_is_scheduled_one_step_later() {
    let at = |ms: u64| RequestSpec {
        arrival: Some(Duration::from_ms(ms)),
        prompt: 1000,
        output: 3,
        prefix: None,
    };
    for (overlap, ttft_mean) in [(false, 10.5), (true, 11.5)] {
        let never = |_: u32, _: u32| None;
        let plan = sglang_plan(100_000, 10, 1000);
        let m = serve::run(
            &plan,
            [at(0), at(11)].into_iter(),
            2,
            2,
            &never,
            None,
            &mut HostBound { overlap },
            1,
            None,
        )
        .unwrap();
        assert_eq!(m.finished, 2);
        assert!(
            (m.ttft.mean_ms() - ttft_mean).abs() < 1e-9,
            "overlap {overlap}: {}",
            m.ttft.mean_ms()
        );
    }
}
