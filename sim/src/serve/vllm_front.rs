//! vllmttft61 (issue #18): vLLM's request path in the API server before the engine core sees a
//! request, as one latency a request: the tokenizer's microbatch wait and the prompt's
//! tokenization.
//!
//! **What was read** (vLLM wheels 0.9.2, 0.10.1, 0.12.0, 0.16.0, 0.17.0, 0.23.0, 0.24.0). A text
//! prompt sent to the OpenAI server is tokenized by `AsyncMicrobatchTokenizer` (0.17.0
//! `vllm/utils/async_utils.py`, built by `renderers/base.py`; 0.10.1
//! `entrypoints/openai/serving_engine.py`): its `_batch_encode_loop` takes the first queued prompt,
//! then waits until `batch_wait_timeout_s` (default 0.002 s) has passed or `max_batch_size` (32)
//! prompts have queued, and encodes the batch on a single-thread executor. A request that arrives
//! alone — every staggered arrival of a closed loop — therefore waits the whole 2 ms before its
//! tokenization starts ([`MICROBATCH_WAIT_PS`]). The class is absent from 0.9.2 (vLLM PR 19334,
//! "microbatch tokenization", June 2025) and from 0.24.0 (PR 45759 "Remove
//! AsyncMicrobatchTokenizer", June 2026: "uses a 2ms wait_timeout, which is too large for
//! preprocessing"); 0.10.0 was not read and is treated as without it
//! ([`MICROBATCH_RELEASES`]).
//!
//! **Tokenization.** vLLM issue 19012 (simon-mo, 2025-06-02, the issue PR 19334 answers):
//! "for concurrency=1, DGX H100's CPU can do about only about 1k tokens/ms" (`%timeit
//! tokenizer("hi " * 10000)`: 10.7 ms), a HF fast tokenizer on one thread: 1 µs a prompt token
//! ([`TOKENIZE_PER_PROMPT_TOKEN_PS`]), in every release (the tokenizer runs before the engine core
//! in all of them). ASSUMED: the host's CPU and the model's tokenizer run at that rate (Kimi-K2's
//! tiktoken-based tokenizer and the 7 – 48 vCPU guests of the deplodock rows are not measured).
//!
//! **Why a latency, not a queue.** Several prompts queued together are encoded in one batched call
//! (`TOKENIZERS_PARALLELISM`: issue 19012 times 16 such prompts in 31.6 ms, not 16 × 10.7), so a
//! burst does not serialize its tokenization; the wait is a timer, not CPU time. The request enters
//! the engine's waiting queue this long after the client sends it (`serve::core::run`, as SGLang's
//! path, `serve::sglang_front`), and a closed-loop client's next request pays it again. What this
//! makes visible (vllmfront60's rows): when every output has the same length, the closed loop's
//! requests finish one a step, and a request that reaches the queue after the step following its
//! predecessor's end queues behind the prompts sent before it (book/src/validation.md, vllmttft61).
//!
//! **Left out, stated.** HTTP, the renderer, the engine core's input hop, and the API server's
//! output processing of the last token before the client sends its next request (vLLM PR 27869
//! bounds that last at ≤ 29.34 µs a streamed token, `tests/data/frontend-costs.tsv`; not a
//! measurement, not charged).

use tpsim_model::units::Duration;

/// `AsyncMicrobatchTokenizer.batch_wait_timeout_s` = 0.002 s (vLLM 0.10.1 – 0.23.x), in ps.
pub const MICROBATCH_WAIT_PS: u64 = 2_000_000_000;

/// The releases with the microbatch tokenizer: from 0.10.1 (the first read that has it) up to, not
/// including, 0.24.0 (PR 45759 removed it).
pub const MICROBATCH_RELEASES: ([u64; 3], [u64; 3]) = ([0, 10, 1], [0, 24, 0]);

/// Tokenization per prompt token (ps): "about 1k tokens/ms" (vLLM issue 19012), 1 µs.
pub const TOKENIZE_PER_PROMPT_TOKEN_PS: u64 = 1_000_000;

/// vLLM's request path before the engine core: (a fixed latency, a latency per prompt token), for
/// `release` (its numeric components; empty when unknown, then the newest rule: no microbatch wait).
pub fn request_path(release: &[u64]) -> (Duration, Duration) {
    let (from, until) = MICROBATCH_RELEASES;
    let v = [0, 1, 2].map(|i| release.get(i).copied().unwrap_or(0));
    let wait = if !release.is_empty() && v >= from && v < until {
        MICROBATCH_WAIT_PS
    } else {
        0
    };
    (
        Duration::from_ps(wait),
        Duration::from_ps(TOKENIZE_PER_PROMPT_TOKEN_PS),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The gate by release: 2 ms from 0.10.1 through 0.23.x, none before or from 0.24.0; the
    /// tokenization rate in every release (1 µs: 10,000 tokens in 10 ms, issue 19012's "about 1k
    /// tokens/ms").
    #[test]
    fn vllmttft61_request_path_by_release() {
        let ms = Duration::from_ps(MICROBATCH_WAIT_PS);
        let none = Duration::ZERO;
        for (r, want) in [
            (&[0, 9, 2][..], none),
            (&[0, 10, 0], none),
            (&[0, 10, 1], ms),
            (&[0, 17, 0], ms),
            (&[0, 23, 0], ms),
            (&[0, 24, 0], none),
            (&[], none),
        ] {
            assert_eq!(request_path(r).0, want, "{r:?}");
            assert_eq!(request_path(r).1, Duration::from_ps(1_000_000), "{r:?}");
        }
        assert_eq!(MICROBATCH_WAIT_PS, 2_000_000_000);
        assert_eq!(TOKENIZE_PER_PROMPT_TOKEN_PS * 10_000, 10_000_000_000);
    }
}
