//! vrows3 (issue #17 point 5): which dummy-sampler rule vLLM's profile run follows, by the
//! release simulated (`crate::engine_release`: `engine.version`, else 0.19.0).
//!
//! - vLLM 0.11.0 and 0.12.0 (`v1/sample/ops/topk_topp_sampler.py` `apply_top_k_top_p`, read at both
//!   tags): the PyTorch-native filter sorts the logits (`tpsim_model::vllm_sort_sampler`, 38 B per
//!   logit at its peak), checked against six vLLM ~0.11 start-ups (tests/tests/vllm_sort_sampler.rs).
//! - vLLM 0.19.0: the Triton top-k/top-p kernel filters in place
//!   (`tpsim_model::vllm_startup::sampler_peak_bytes`), checked against the 0.19.0 rows of
//!   engine-memory.tsv, so also a scenario without `engine.version`.
//! - Releases in between: not read; 0.19.0's rule is applied with a note.

use crate::engine_args_versions::release;
use crate::scenario::{EngineKind, Scenario};

/// The newest release read with the sorting filter.
const LAST_SORTING: [u64; 2] = [0, 12];
/// The release the in-place rule was read at.
const FIRST_READ_IN_PLACE: [u64; 2] = [0, 19];

/// The scenario's vLLM release as (major, minor), if readable.
fn minor(s: &Scenario) -> Option<[u64; 2]> {
    if s.engine.kind != EngineKind::Vllm {
        return None;
    }
    let r = release(&s.engine.release().version)?;
    Some([r[0], r.get(1).copied().unwrap_or(0)])
}

/// Whether the profile run's dummy sampler sorts the logits (vLLM ≤ 0.12).
pub(super) fn sorts(s: &Scenario) -> bool {
    minor(s).is_some_and(|v| v <= LAST_SORTING)
}

/// A note for releases between the two read (0.13 … 0.18): the rule applied is 0.19.0's.
pub(super) fn note(s: &Scenario) -> Option<String> {
    let v = minor(s)?;
    (v > LAST_SORTING && v < FIRST_READ_IN_PLACE).then(|| {
        format!(
            "vLLM {}: the profile run's dummy sampler is modelled as 0.19.0's (in-place Triton top-k/top-p); \
             0.12.0 still sorted the logits (38 B per logit instead of 14) — releases 0.13–0.18 are not read",
            s.engine.release().version
        )
    })
}
