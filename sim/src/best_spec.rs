//! `tpsim run --best-spec`: search the speculative-decoding shape for the highest output tok/s under
//! the memory plan. Chains (topk = 1, num_draft_tokens = num_steps + 1) of 1 to 8 steps; when the
//! acceptance model describes siblings (`siblings`, needed for a tree to accept anything off the
//! chain), also trees at SpecBundle's depths 3, 5, 7 with topk 2, 4, 8 and 1, 2 or 4 × (steps + 1)
//! draft tokens.

use crate::decode;
use crate::report::EngineVerdict;
use crate::scenario::Scenario;
use serde::Serialize;
use tpsim_model::spec::AcceptanceModel;

/// Steps tried (SGLang's EAGLE-3 chains are typically 1–8 deep; spec-decode.md's measurements span 2–8).
const MAX_STEPS: u32 = 8;

/// The shapes tried, as (num_steps, topk, num_draft_tokens).
fn shapes(acceptance: &AcceptanceModel) -> Vec<(u32, u32, u32)> {
    let mut v: Vec<(u32, u32, u32)> = (1..=MAX_STEPS).map(|s| (s, 1, s + 1)).collect();
    let trees = matches!(acceptance, AcceptanceModel::Positional(p) if !p.siblings.is_empty());
    if trees {
        // Depths of the SpecBundle tree measurements (tests/data/spec-decode.tsv: (5,3,6), (7,4,8)).
        for steps in [3, 5, 7] {
            for topk in [2, 4, 8] {
                let most = 1 + topk + (steps - 1) * topk * topk;
                for n in [steps + 1, 2 * (steps + 1), 4 * (steps + 1)] {
                    if n <= most {
                        v.push((steps, topk, n));
                    }
                }
            }
        }
    }
    v
}

/// One candidate shape.
#[derive(Debug, Clone, Serialize)]
pub struct Candidate {
    pub num_steps: u32,
    pub topk: u32,
    pub num_draft_tokens: u32,
    pub output_tok_s: f64,
    pub accept_len_mean: f64,
    pub iteration_ms: f64,
    /// "ok" or "oom" (an OOM candidate is never the best).
    pub memory_verdict: EngineVerdict,
}

/// The answer.
#[derive(Debug, Clone, Serialize)]
pub struct BestSpec {
    pub tok_s_without_spec: f64,
    pub best: Option<Candidate>,
    pub candidates: Vec<Candidate>,
}

/// Errors: the scenario has no `[speculative]`, or a simulation failed.
#[derive(Debug, thiserror::Error)]
pub enum BestSpecError {
    #[error("--best-spec needs a [speculative] section in the scenario")]
    NoSpeculative,
    #[error("{0}")]
    Decode(#[from] decode::DecodeError),
}

/// Runs every candidate.
pub fn search(s: &Scenario) -> Result<BestSpec, BestSpecError> {
    let Some(sp) = &s.speculative else {
        return Err(BestSpecError::NoSpeculative);
    };
    let mut candidates = Vec::new();
    let mut without = 0.0;
    // Issue #17: vLLM drafts chains only (no top-k without a token tree).
    let chains_only = s.engine.kind == crate::scenario::EngineKind::Vllm;
    for (steps, topk, n) in shapes(&sp.acceptance) {
        if chains_only && topk > 1 {
            continue;
        }
        let mut t = s.clone();
        let mut spec = sp.clone();
        spec.num_steps = steps;
        spec.topk = topk;
        spec.num_draft_tokens = n;
        t.speculative = Some(spec);
        let p = decode::predict(&t)?;
        if let Some(w) = &p.without_spec {
            without = w.output_tok_s();
        }
        candidates.push(Candidate {
            num_steps: steps,
            topk,
            num_draft_tokens: n,
            output_tok_s: p.main.output_tok_s(),
            accept_len_mean: p.main.accept_len_mean,
            iteration_ms: p.main.mean_iteration_ms,
            memory_verdict: EngineVerdict::of_memory(&p.memory.verdict),
        });
    }
    let best = candidates
        .iter()
        .filter(|c| c.memory_verdict == EngineVerdict::Ok)
        .fold(None::<&Candidate>, |b, c| match b {
            Some(b) if b.output_tok_s >= c.output_tok_s => Some(b),
            _ => Some(c),
        })
        .cloned();
    Ok(BestSpec {
        tok_s_without_spec: without,
        best,
        candidates,
    })
}
