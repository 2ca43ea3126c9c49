//! rope51 (issue #17): the memory table's "target weights" when the scenario's log gives SGLang's
//! "Load weight end … mem usage" — as `engine.observed.weights_gib`, or as the drop of free memory
//! across the load (`free_after_init_gib` − `free_after_weights_gib`, both observed; SGLang 0.5.x
//! `model_executor/model_runner.py` `load_model` logs `mem usage = before − after`). The logged
//! figure holds the parameters, the RoPE cos/sin caches and the allocator's kept segments (and
//! whatever tpsim does not model), so the table shows it as one observed entry: its rows then sum to
//! `total − available` exactly. What tpsim models of it, and the part it does not, is a note.

use super::memory::{MemEntry, MemKind, Source};
use tpsim_model::units::Bytes;

/// Replaces the modelled "target weights", "RoPE cos/sin caches" and "weight-load allocator
/// segments" entries by one observed "target weights" entry of `usage_gib` GiB and returns the note
/// that says what the model gives for them and how far it is from the log (MiB, % of the log).
pub(super) fn fold_observed(entries: &mut Vec<MemEntry>, usage_gib: f64, how: &str) -> String {
    let part = |k: MemKind| -> u64 { entries.iter().filter(|e| e.kind == k).map(|e| e.bytes).sum() };
    let weights = part(MemKind::TargetWeights);
    let rope = part(MemKind::RopeCaches);
    let segments = part(MemKind::LoadSegments);
    let modelled = weights.saturating_add(rope).saturating_add(segments);
    let usage = Bytes::from_gib_f64(usage_gib).0;
    if let Some(e) = entries.iter_mut().find(|e| e.kind == MemKind::TargetWeights) {
        e.bytes = usage;
        e.source = Source::Observed;
    }
    entries.retain(|e| !matches!(e.kind, MemKind::RopeCaches | MemKind::LoadSegments));
    let mib = |b: u64| b as f64 / Bytes::MIB as f64;
    let gap = usage as f64 - modelled as f64;
    let pct = if usage > 0 {
        100.0 * gap / usage as f64
    } else {
        0.0
    };
    format!(
        "target weights: the logged \"Load weight end\" mem usage, {usage_gib:.2} GiB ({how}); tpsim models \
         {:.1} MiB of it (parameters {:.1} + RoPE cos/sin caches {:.1} + weight-load allocator segments {:.1}), \
         {:+.1} MiB ({pct:+.2} %) from the log: the difference is not modelled",
        mib(modelled),
        mib(weights),
        mib(rope),
        mib(segments),
        gap / Bytes::MIB as f64,
    )
}
