//! sglfront60 (issue #18): SGLang's request path outside the scheduler's steps, as one latency a
//! request.
//!
//! SGLang serves a request through three processes (read in the wheels of 0.4.0.post1 and 0.5.9,
//! `srt/managers/`): the HTTP server and `TokenizerManager` in the main process
//! (`generate_request` → `_tokenize_one_request`, the prompt tokenized there, then
//! `send_to_scheduler.send_pyobj`, a pickled ZMQ message), the `Scheduler` process (whose loop
//! `recv_requests` polls without blocking every round) and the `DetokenizerManager` process
//! (`BatchTokenIDOutput` in, `BatchStrOutput` out over ZMQ, back to the `TokenizerManager`'s
//! `handle_loop`, which wakes the request's HTTP stream). What tpsim already charges of a request's
//! way to its first token:
//!
//! | piece | in tpsim |
//! |---|---|
//! | scheduler round: `recv_requests`, `process_input_requests`, `get_next_batch_to_run` (`PrefillAdder`, radix `match_prefix`), `prepare_for_extend`, `process_batch_result_prefill` | `engine.costs.host_overhead` a step (300 µs, engines/sglang.toml) |
//! | the extend forward's kernels, launched one by one without graphs | `decode::passes` (eager launches, pcglaunch18) |
//! | the overlap loop: the first token streamed after the next batch's launch | [`super::sglang_first_token`] (sglttft59) |
//! | HTTP, `TokenizerManager` (tokenization), the ZMQ hops, `DetokenizerManager`, the stream to the client, the client | **this module**: [`request_path`] |
//!
//! **The figure.** No piece of the last row has a measurement of its own in SGLang; the whole row
//! has one. tenstorrent/tt-inference-server issue 3560 (comment of 2026-05-18) served SGLang over
//! the tt-sglang-plugin's CPU mock, whose `forward()` busy-waits 1 / 380 s = 2.632 ms on the
//! scheduler's thread, and measured at concurrency 1 (`vllm bench serve --backend openai-chat
//! --random-input-len 128 --random-output-len 2048 --num-prompts 4 --max-concurrency 1`) a median
//! TTFT of 9.54 ms and a median TPOT of 2.94 ms. The plugin (github.com/dmadicTT/tt-sglang-plugin,
//! `install.sh`: `SGLANG_TAG` v0.5.11; `pyproject.toml`: `sglang>=0.5.11`) leaves SGLang's
//! processes, ZMQ, sampler and HTTP streaming unchanged (its `HOW_WE_MEASURE_OVERHEAD.md`). The
//! TPOT is one scheduler round with its synchronous forward: forward + 0.308 ms of host work a
//! step. Nothing turns the overlap loop off for a CPU device (0.5.9 and 0.5.11 `server_args.py`
//! `_handle_cpu_backends` set the attention and sampling backends only; 0.5.11 `scheduler.py`
//! makes the CPU schedule stream's `synchronize` a no-op, the lines the plugin's document cites for
//! "no overlap", and `dispatch_event_loop` still picks `event_loop_overlap` on `enable_overlap`,
//! the default), so the overlap loop runs: the prefill's
//! result is processed after the next batch, the first decode, has run `run_batch`, which on the
//! mock is the whole forward. The first token therefore waited two rounds, and the rest,
//! 9.54 − 2 × 2.94 = **3.66 ms**, is the path outside the scheduler's rounds ([`REQUEST_PATH_PS`]).
//! Had the loop not overlapped it would be 9.54 − 2.94 = 6.60 ms ([`NON_OVERLAP_READING_PS`],
//! kept as the bound).
//!
//! **Applied** to every SGLang release: the three-process path is the same in 0.4.0.post1 and
//! 0.5.9 (the figure's release, 0.5.11, is within the releases tpsim serves). The request enters
//! its scheduler's waiting queue that long after the client sends it (`serve::core::run`), so its
//! TTFT and end-to-end latency hold it and a closed-loop client's next request waits for it (the
//! way back of the last token, part of the same figure, is not charged again). It is a latency,
//! not a queue: the `TokenizerManager` is one process, but the figure mixes its CPU time with the
//! client's, the hops' and the other processes', which do not serialize across requests.
//!
//! **Left out, stated.** The figure's prompt was 128 tokens through the chat endpoint (chat
//! template and DeepSeek-R1's tokenizer), on an unnamed host; the cookbook rows post text of
//! 38 – 961 tokens to the native `/generate` (no template). Tokenization per prompt token (no
//! measurement of SGLang's path; the bound sglfront derived, ≤ 5.0 µs a token, is not a figure)
//! and the host's speed are not modelled.

use tpsim_model::units::Duration;

/// tt-inference-server issue 3560's median TTFT over the CPU mock (ps): 9.54 ms.
pub const MOCK_TTFT_PS: u64 = 9_540_000_000;
/// Its median TPOT (ps): 2.94 ms, one scheduler round with its synchronous 2.632 ms forward.
pub const MOCK_TPOT_PS: u64 = 2_940_000_000;

/// The request path outside the scheduler's rounds under the overlap loop (ps): the first token
/// waited two rounds, the prefill's and the first decode's (module doc). 3.66 ms.
pub const REQUEST_PATH_PS: u64 = MOCK_TTFT_PS - 2 * MOCK_TPOT_PS;

/// The same figure read as if the first token waited one round (ps): 6.60 ms, an upper bound.
pub const NON_OVERLAP_READING_PS: u64 = MOCK_TTFT_PS - MOCK_TPOT_PS;

/// SGLang's request path outside the scheduler's steps, the latency from the client's send to the
/// request entering the scheduler's waiting queue, for every release tpsim serves (module doc).
pub fn request_path() -> Duration {
    Duration::from_ps(REQUEST_PATH_PS)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The two readings of tt-inference-server issue 3560's figures, by hand: 9.54 − 2 × 2.94 =
    /// 3.66 ms and 9.54 − 2.94 = 6.60 ms (exact in integer picoseconds).
    #[test]
    fn sglfront60_request_path_from_issue_3560() {
        assert_eq!(REQUEST_PATH_PS, 3_660_000_000);
        assert_eq!(NON_OVERLAP_READING_PS, 6_600_000_000);
        assert_eq!(request_path(), Duration::from_ps(3_660_000_000));
        // The host work of one round, TPOT less the mock's forward (1 / 380 s, rounded to the ps).
        let forward_ps = 1_000_000_000_000u64 / 380;
        // 2,940,000,000 − 2,631,578,947 = 308,421,053 ps (0.308 ms).
        assert_eq!(MOCK_TPOT_PS - forward_ps, 308_421_053);
    }
}
