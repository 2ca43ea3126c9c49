//! Whether the engine accepts the workload's requests: the length checks SGLang and vLLM make before
//! a request reaches the scheduler, with their own error texts. A refused request never runs, so a
//! workload the engine refuses has the verdict "rejected" and no throughput.
//!
//! Sources (quoted texts are the engines' own):
//! - SGLang `GenerateReqInput._determine_batch_size` (io_struct.py): empty `input_ids` →
//!   `ValueError: input_ids cannot be empty.`
//! - SGLang `TokenizerManager._validate_one_request` (tokenizer_manager.py): the input counts the
//!   prompt plus `num_reserved_tokens` (EAGLE stores the draft tokens in the output slots:
//!   max(topk × num_steps, num_draft_tokens), 0 without speculation); input ≥ `context_len` →
//!   "The input (N tokens) is longer than the model's context length (C tokens)."; input +
//!   max_new_tokens > `context_len` → "Requested token count exceeds the model's maximum context
//!   length of C tokens. …". tpsim's requests always carry max_new_tokens (bench_serving's
//!   `--random-output-len`), and `allow_auto_truncate` is off (SGLang's default).
//! - vLLM `InputProcessor._validate_prompt_len` (v1/engine/input_processor.py): an empty prompt, a
//!   prompt longer than `max_model_len`, and one exactly as long (no room for the first output
//!   token); the OpenAI server (`vllm serve`, what bench_serving talks to) then refuses a
//!   `max_tokens` that does not fit beside the prompt.

use crate::scenario::{EngineKind, Scenario};

/// The engine's error text when it refuses **every** request of the workload, or `None`. The
/// checks only grow with the lengths (an empty prompt aside), so every request is refused exactly
/// when the least demanding one is: the shortest non-empty prompt with the shortest output (an
/// all-empty prompt range is refused as empty). A workload whose ranges only reach past a limit
/// runs: the serving loop refuses the requests beyond it one by one, as the engine answers each
/// request on its own, and counts them (issue #18: `rejected`, `first_refusal`).
pub fn rejection(s: &Scenario) -> Option<String> {
    let output = u64::from(s.workload.output_len.min());
    if s.workload.prompt_len.max() == 0 {
        return refusal(s, 0, output);
    }
    let prompt = u64::from(s.workload.prompt_len.min().max(1));
    refusal(s, prompt, output)
}

/// The engine's error text for one request of `prompt` and `output` tokens, or `None` if accepted.
pub fn refusal(s: &Scenario, prompt: u64, output: u64) -> Option<String> {
    match s.engine.kind {
        EngineKind::Sglang => sglang(s, prompt, output, prompt == 0),
        EngineKind::Vllm => vllm(s, prompt, output, prompt == 0),
    }
}

fn sglang(s: &Scenario, prompt: u64, output: u64, empty: bool) -> Option<String> {
    if empty {
        return Some("ValueError: input_ids cannot be empty.".into());
    }
    let ctx = s.engine.context_len;
    let reserved = s.speculative.as_ref().map_or(0, |sp| {
        u64::from(sp.topk * sp.num_steps).max(u64::from(sp.num_draft_tokens))
    });
    let input = prompt + reserved;
    if input >= ctx {
        return Some(format!(
            "ValueError: The input ({input} tokens) is longer than the model's context length ({ctx} tokens)."
        ));
    }
    if input + output > ctx {
        return Some(format!(
            "ValueError: Requested token count exceeds the model's maximum context length of {ctx} tokens. \
             You requested a total of {} tokens: {input} tokens from the input messages and {output} tokens \
             for the completion. Please reduce the number of tokens in the input messages or the completion \
             to fit within the limit.",
            input + output
        ));
    }
    None
}

fn vllm(s: &Scenario, prompt: u64, output: u64, empty: bool) -> Option<String> {
    if empty {
        return Some("VLLMValidationError: The decoder prompt cannot be empty".into());
    }
    let max = s.engine.max_model_len.unwrap_or(s.engine.context_len);
    if prompt > max {
        return Some(format!(
            "VLLMValidationError: The decoder prompt (length {prompt}) is longer than the maximum model length \
             of {max}. Make sure that `max_model_len` is no smaller than the number of text tokens."
        ));
    }
    if prompt == max {
        return Some(format!(
            "VLLMValidationError: The decoder prompt (length {prompt}) plus the number of requested output \
             tokens (at least 1) is longer than the maximum model length of {max}. Make sure that \
             `max_model_len` is no smaller than the number of text tokens (prompt + requested output tokens)."
        ));
    }
    if prompt + output > max {
        return Some(format!(
            "'max_tokens' or 'max_completion_tokens' is too large: {output}. This model's maximum context \
             length is {max} tokens and your request has {prompt} input tokens ({output} > {max} - {prompt})."
        ));
    }
    None
}
