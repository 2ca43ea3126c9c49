//! Issue #18 (kimitok54): SGLang's detokenizer process on Kimi's tiktoken tokenizer, by release
//! (`serve::detok` runs it).
//!
//! Kimi-K2 and Kimi-K2.5 ship a remote-code slow tokenizer, `tokenization_kimi.py`'s
//! `TikTokenTokenizer(PreTrainedTokenizer)` (huggingface.co/moonshotai/Kimi-K2.5, named by sglang PR
//! 25265). Its `decode(token_ids, **kwargs)` calls tiktoken directly only without keyword
//! arguments; SGLang's detokenizer passes `skip_special_tokens` and `spaces_between_special_tokens`
//! (`detokenizer_manager.py` `_decode_batch_token_id_output`, 0.5.6.post2 – 0.5.23), so every
//! decode runs transformers' Python `_decode` (4.57.1 `tokenization_utils.py`, the pin of SGLang
//! 0.5.6.post2 – 0.5.9), which evaluates `all_special_ids` / `all_special_tokens` once per id.
//! Measured (sglang PR 25309, moonshotai/Kimi-K2-Instruct, one sequence of 80,002 ids,
//! `skip_special_tokens=True`): about 727 ms through that path, 52.57 ms with SGLang's cache of the
//! special tokens (PR 16427, `utils/patch_tokenizer.py`, first in 0.5.8, behind
//! `SGLANG_PATCH_TOKENIZER`, default off in 0.5.8 – 0.5.10.post1 and on from 0.5.11: `environ.py`).
//! tpsim does not read `SGLANG_PATCH_TOKENIZER`: each release's default applies.
//!
//! The incremental window's commit rule by release is `serve::detok`'s: 0.5.0rc0 – 0.5.10.post1
//! (`len(new_text) > 0`) never commit a token that decodes to empty text, 0.5.11+ commit on the
//! offsets. Whether a run's outputs decode to empty text is the workload's
//! (`[workload] empty_text_outputs`).

use super::EngineKind;
use super::first_release::ordered;
use tpsim_model::llm::{Architecture, ModelSpec};
use tpsim_model::units::Duration;

/// The detokenizer of a scenario whose tokenizer takes the slow path.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Detokenizer {
    /// CPU time per id decoded (`serve::detok::Costs::token_ps`).
    pub token_cost: Duration,
    /// Whether the release's window never commits a token that decodes to empty text.
    pub grows_on_empty_text: bool,
}

/// Per id through transformers' `_decode` without SGLang's cache: 727 ms / 80,002 ids = 9.087 µs
/// (sglang PR 25309's "raw HuggingFace kwargs path", Kimi-K2-Instruct, skip_special_tokens=True).
pub const UNCACHED_PS: u64 = 9_087_273;
/// Per id with SGLang's special-token cache (PR 16427): 52.57 ms / 80,002 ids = 0.657 µs (PR
/// 25309's "Before" column, skip_special_tokens=True).
pub const CACHED_PS: u64 = 657_109;

/// Whether `model` is a Kimi-K2 / Kimi-K2.5 checkpoint (its tokenizer `tokenization_kimi.py`):
/// `KimiK25ForConditionalGeneration`, or a `model_type` / name "kimi_k2".
pub fn kimi_tiktoken(model: &ModelSpec) -> bool {
    let n = model.name.to_ascii_lowercase();
    model.arch == Architecture::KimiK25 || n.contains("kimi_k2") || n.contains("kimi-k2")
}

/// The detokenizer SGLang `version` runs for `model` (None: not modelled — vLLM, or a tokenizer
/// other than Kimi's).
pub fn resolve(kind: EngineKind, model: &ModelSpec, version: &str) -> Option<Detokenizer> {
    if kind != EngineKind::Sglang || !kimi_tiktoken(model) {
        return None;
    }
    let v = ordered(version);
    // 0.5.11: SGLANG_PATCH_TOKENIZER on by default, and the offset commit rule.
    let new = v >= ordered("0.5.11");
    Some(Detokenizer {
        token_cost: Duration::from_ps(if new { CACHED_PS } else { UNCACHED_PS }),
        grows_on_empty_text: !new,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_from_pr_25309() {
        // 727 ms / 80,002 = 9.0873 µs; 52.57 ms / 80,002 = 0.65711 µs (to the picosecond).
        assert_eq!(UNCACHED_PS, (727_000_000_000u64 + 40_001) / 80_002);
        assert_eq!(CACHED_PS, (52_570_000_000u64 + 40_001) / 80_002);
    }
}
