//! sglttft59 (issue #18): when SGLang streams the first token of a prefill batch, read from the PyPI
//! wheels of SGLang 0.4.0.post1 and 0.5.9.
//!
//! - **Without the overlap scheduler** (`--disable-overlap-schedule`, speculative decoding v1:
//!   `event_loop_normal`) a batch's result is processed right after its forward
//!   (`run_batch` then `process_batch_result`): the first tokens leave when the prefill step ends.
//! - **With it** (`event_loop_overlap`, the default) the result of batch N is processed after batch
//!   N + 1 has been scheduled and launched: 0.5.9 `scheduler.py` runs `get_next_batch_to_run`,
//!   `run_batch(batch)` and only then `pop_and_process` of the previous batch, whose
//!   `process_batch_result_prefill` (`scheduler_output_processor_mixin.py`) waits on N's
//!   `copy_done` event, recorded on the forward stream right after N's forward, so before N + 1's
//!   kernels; 0.4.0.post1's `event_loop_overlap` does the same with the worker thread of
//!   `tp_worker_overlap_thread.py` (`resolve_batch_result`: `copy_done.synchronize()`, then
//!   `launch_done.wait()` for the batch the thread launches next). So the first token does **not**
//!   wait for a whole decode step after the prefill (the hypothesis of issue #18's ttftload58 leads):
//!   it waits for N's GPU work and for the host's scheduling and launch of N + 1, which overlap N's
//!   GPU tail. The delay past N's end is max(0, host(N + 1) − (N − host(N))): zero when the prefill
//!   is GPU-bound (its GPU tail covers the next launch), up to the next batch's host time when
//!   both are host-bound — two eager prefills in a row, the next one launching kernel by kernel.
//!   When nothing runs next (`batch is None`) the previous batch is processed at once (0.5.9:
//!   `if self.last_batch: pop_and_process()`; 0.4.0.post1: `if self.last_batch:`).
//! - **The same order delays admission.** Batch N + 1 is chosen (`get_next_batch_to_run`) before
//!   N's result is processed, so from the requests received before N started: a request received
//!   while N runs is first seen when N + 1 is already queued behind it on the GPU, and is prefilled
//!   after N + 1 (`serve::core::run` holds it one step). And `update_running_batch` filters only
//!   the finished requests it knows of: after the decode in which the last running requests finish,
//!   the loop has already launched one more decode of them, which the GPU runs (its result then
//!   discarded) before a request that arrived meanwhile — at concurrency 1, every request but the
//!   first waits for it (`core::run` runs the last decode's time once more; not counted as an
//!   iteration). 0.4.0.post1's loop has the same order (`get_next_batch_to_run`, `run_batch`, then
//!   `process_batch_result` of the last batch).
//! - 0.5.9's `is_disable_overlap_for_batch` processes the previous extend batch before launching a
//!   consecutive one only when `SGLANG_DISABLE_CONSECUTIVE_PREFILL_OVERLAP` is set (`environ.py`:
//!   default False; absent from 0.4.0.post1): the default is modelled, the variable is not read.
//!
//! First cut: a step's host time is its critical path's host part (`exec::Category::Host`: the
//! scheduling task and, eager, the kernel launches), what of it the GPU cannot hide.

use tpsim_model::units::Duration;

/// One costed step as this rule needs it: its makespan and the host part of its critical path.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepHost {
    /// The step's whole time (picoseconds, as `exec` schedules it).
    pub makespan: Duration,
    /// The host time on its critical path (scheduling and kernel launches the GPU did not hide).
    pub host: Duration,
}

/// How long after a prefill step `prefill` ends SGLang's overlap scheduler streams its first
/// tokens, when `next` is the step launched after it (module doc): the next step's host time past
/// the prefill's GPU tail (its makespan less its own host time), or zero.
pub fn overlap_first_token_delay(prefill: StepHost, next: StepHost) -> Duration {
    let gpu_tail = prefill.makespan.saturating_sub(prefill.host);
    next.host.saturating_sub(gpu_tail)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(v: f64) -> Duration {
        Duration::from_ps((v * 1e9) as u64)
    }

    /// By hand: a 10 ms prefill whose critical path holds 8 ms of host time has a 2 ms GPU tail.
    /// Followed by an 8 ms-host eager prefill its tokens wait 8 − 2 = 6 ms; followed by a graph
    /// decode with 0.3 ms of host on its path, 0 (0.3 < 2); a GPU-bound prefill (1 ms host of 10)
    /// followed by the same eager prefill: 8 − 9 < 0 → 0 (SGLang 0.5.9 `event_loop_overlap`).
    #[test]
    fn sglttft59_first_token_waits_only_for_the_next_launch_past_the_gpu_tail() {
        let eager = StepHost {
            makespan: ms(10.0),
            host: ms(8.0),
        };
        let decode = StepHost {
            makespan: ms(2.0),
            host: ms(0.3),
        };
        let gpu_bound = StepHost {
            makespan: ms(10.0),
            host: ms(1.0),
        };
        assert_eq!(overlap_first_token_delay(eager, eager), ms(6.0));
        assert_eq!(overlap_first_token_delay(eager, decode), Duration::ZERO);
        assert_eq!(overlap_first_token_delay(gpu_bound, eager), Duration::ZERO);
    }
}
