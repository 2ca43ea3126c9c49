//! Issue #17 (report fixes): two lines of the run report's header that depend on the engine.
//!
//! - The speculative settings in the engine's own terms: SGLang's `--speculative-num-steps`,
//!   `--speculative-eagle-topk`, `--speculative-num-draft-tokens`; vLLM's `--speculative-config`
//!   fields `method` and `num_speculative_tokens` (vLLM 0.11.0 `config/speculative.py`,
//!   `SpeculativeConfig`: a chain of `num_speculative_tokens` drafts, no tree width), as
//!   `tpsim engine-args` prints them.
//! - The NCCL release the collectives are modelled at and where it came from (`engine.nccl_version`,
//!   the engine version's torch pin, or tpsim's default).

use crate::scenario::{EngineKind, Scenario};

/// "eagle3 steps=3 topk=1 draft_tokens=4 draft=…" under SGLang; "eagle3 num_speculative_tokens=3
/// draft=…" under vLLM (its method names: `mtp` for NEXTN/MTP, `ngram` without a draft model).
pub(super) fn speculative_terms(s: &Scenario) -> Option<String> {
    let sp = s.speculative.as_ref()?;
    Some(match s.engine.kind {
        EngineKind::Sglang => format!(
            "{} steps={} topk={} draft_tokens={} draft={}",
            sp.algorithm, sp.num_steps, sp.topk, sp.num_draft_tokens, sp.draft_name
        ),
        EngineKind::Vllm => {
            let method = match sp.algorithm.as_str() {
                "nextn" | "mtp" => "mtp",
                other => other,
            };
            let draft = if method == "ngram" || method == "mtp" {
                String::new()
            } else {
                format!(" draft={}", sp.draft_name)
            };
            format!("{method} num_speculative_tokens={}{draft}", sp.num_steps)
        }
    })
}

/// The NCCL release in use ("2.27.3") and its source ("engine.nccl_version", "sglang 0.5.9's torch
/// pin", "tpsim's NCCL model").
pub(super) fn nccl_version(s: &Scenario) -> (String, String) {
    let source = match s.engine.nccl_version_source.as_str() {
        // scenario/collective_options.rs: neither engine.nccl_version nor a checked torch pin.
        "tpsim's NCCL model" => format!(
            "tpsim's default: no torch pin known for {}, no engine.nccl_version",
            s.engine.release().label()
        ),
        other => other.to_string(),
    };
    (s.engine.env.version.to_string(), source)
}
