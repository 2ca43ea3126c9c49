//! ttft64 (issue #18): when vLLM's async scheduling lets a new request into a step.
//!
//! Read in the wheels' `v1/engine/core.py` (`run_busy_loop`, `_process_input_queue`,
//! `step_with_batch_queue`) of 0.11.0 and 0.19.0 and `v1/executor/multiproc_executor.py` /
//! `uniproc_executor.py` (`max_concurrent_batches`: 2 with `async_scheduling` at pipeline parallel 1,
//! 0.11.0 – 0.19.0): with a batch queue of 2 the busy loop schedules and launches step K + 1
//! (`scheduler.schedule()`, `execute_model(..., non_block=True)`) and only then blocks on step K's
//! result, processes it (`update_from_output`) and drains the input queue before scheduling K + 2.
//! So K + 2 is decided as K + 1 starts on the GPU, and a request that reaches the engine core while
//! K + 1 runs is first scheduled in K + 3; without async scheduling (`step`: schedule, execute,
//! block, update) it would be in K + 2. This is the admission rule of SGLang's overlap loop
//! (sglttft59), and `serve::core::run` applies it the same way: an arrival during a step is held
//! one step. An idle engine (nothing to schedule) blocks on its input queue and schedules a new
//! request at once, so a request alone (concurrency 1) is not delayed.
//!
//! The step after the last decode of the running requests: 0.12.0 – 0.34.0 `v1/core/sched/
//! scheduler.py` `schedule` skip a running request with output placeholders once
//! `num_computed_tokens + 2 − num_output_placeholders ≥ num_prompt_tokens + max_tokens` ("Async
//! scheduling: Avoid scheduling an extra step when we are sure that the previous step has reached
//! request.max_tokens"); 0.10.x and 0.11.0 have no such check, so the loop runs one more decode of
//! requests that have already finished, as SGLang's overlap loop does, before the GPU is free.
//!
//! Not modelled: the first token's wait for step K + 1's scheduling and launch when they outlast step
//! K's GPU tail (SGLang's `first_token_delay`; vLLM's graph-replayed and piecewise steps are read
//! as GPU-bound here), pipeline parallelism (a queue of `pp` batches, `scenario::vllm_pp_async`),
//! and speculative decoding (tpsim runs vLLM's speculative iteration synchronously).

use crate::scenario::EngineKind;

/// How vLLM's loop schedules ahead for an engine of `kind` at release `version` with async scheduling
/// `async_scheduling` (resolved), `pp` pipeline stages, and speculative decoding `spec`: `None` when
/// it does not (SGLang, vLLM synchronous, pipeline parallel, speculative); `Some(true)` when it also
/// runs the decode after the last running requests finished (releases before 0.12.0), `Some(false)`
/// when it skips it (0.12.0 and later). An unreadable version is taken as a current release.
pub fn schedule_ahead(
    kind: EngineKind,
    version: &str,
    async_scheduling: bool,
    pp: u32,
    spec: bool,
) -> Option<bool> {
    if kind != EngineKind::Vllm || !async_scheduling || pp > 1 || spec {
        return None;
    }
    let before_0_12 = crate::engine_args_versions::release(version).is_some_and(|r| r < vec![0, 12]);
    Some(before_0_12)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ttft64_async_scheduling_schedules_ahead_by_release() {
        // 0.17.0 default (on): ahead, no trailing decode (the max_tokens check of 0.12.0+).
        assert_eq!(
            schedule_ahead(EngineKind::Vllm, "0.17.0", true, 1, false),
            Some(false)
        );
        assert_eq!(
            schedule_ahead(EngineKind::Vllm, "0.12.0", true, 1, false),
            Some(false)
        );
        // 0.10.2 / 0.11.0 with --async-scheduling: ahead, and the trailing decode.
        assert_eq!(
            schedule_ahead(EngineKind::Vllm, "0.10.2", true, 1, false),
            Some(true)
        );
        assert_eq!(
            schedule_ahead(EngineKind::Vllm, "0.11.0", true, 1, false),
            Some(true)
        );
        // Synchronous, pipeline parallel, speculative, SGLang: not this rule.
        assert_eq!(schedule_ahead(EngineKind::Vllm, "0.11.0", false, 1, false), None);
        assert_eq!(schedule_ahead(EngineKind::Vllm, "0.17.0", true, 2, false), None);
        assert_eq!(schedule_ahead(EngineKind::Vllm, "0.17.0", true, 1, true), None);
        assert_eq!(schedule_ahead(EngineKind::Sglang, "0.5.9", true, 1, false), None);
    }
}
