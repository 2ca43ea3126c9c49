//! Issue #17 (flags): vLLM's `--max-model-len` as users write it, including `auto`.
//!
//! vLLM parses the flag with `human_readable_int` (`25.6k` = 25,600, `1K` = 1,024; 0.11.0 onwards,
//! `engine/arg_utils.py`) and, from 0.14.0, `human_readable_int_or_auto`: `-1` or `auto` (any case)
//! mean "auto-fit" (vLLM PR #29431, in the 0.14.0 wheel and not in 0.13.0's). The model config then
//! keeps the derived length (`config/model.py` `_get_and_verify_max_len`: "If the user didn't specify
//! `max_model_len` or specified -1 (auto-fit)") and, once the KV memory is known,
//! `kv_cache_utils.py` `_auto_fit_max_model_len` binary-searches the largest length from 1 to the
//! derived one whose one-request need fits the available KV memory (`_estimate_max_model_len_from_groups`),
//! logging "Auto-fit max_model_len: reduced from D to L to fit in available GPU memory (X GiB
//! available for KV cache)" or "full model context length D fits in available GPU memory"; with
//! nothing that fits it raises "Cannot auto-fit max_model_len: …". tpsim runs the same search over
//! its own start-up check (`decode::plan_memory`), so the fit follows every KV layout tpsim models
//! (one page size, sliding-window groups, hybrid state pages, decode context parallelism).

use super::{EngineKind, MaxModelLenSpec, Resolver, Scenario, ScenarioError};
use crate::decode::{Verdict, plan_memory};

/// The first vLLM release with `--max-model-len auto` / `-1`.
pub const AUTO_SINCE: [u64; 3] = [0, 14, 0];

impl Resolver<'_> {
    /// `engine.max_model_len` as written: `(tokens, auto)`.
    pub(super) fn max_model_len(
        &self,
        spec: Option<&MaxModelLenSpec>,
        kind: EngineKind,
        version: &str,
    ) -> Result<(Option<u64>, bool), ScenarioError> {
        let Some(spec) = spec else {
            return Ok((None, false));
        };
        let expected = "expected a positive token count (vLLM's human-readable forms such as \"32k\" too), \
                        -1 or \"auto\"";
        let n = match spec {
            MaxModelLenSpec::Number(n) => Some(*n),
            MaxModelLenSpec::Text(t) if t.trim().eq_ignore_ascii_case("auto") => Some(-1),
            MaxModelLenSpec::Text(t) => super::extra_args::human_readable_int(t),
        };
        let n = n.ok_or_else(|| self.invalid("engine.max_model_len", format!("{spec:?}: {expected}")))?;
        if n == -1 {
            let v = crate::engine_args_versions::release(version).unwrap_or_default();
            if kind == EngineKind::Vllm && v.as_slice() < AUTO_SINCE.as_slice() {
                return Err(self.invalid(
                    "engine.max_model_len",
                    format!(
                        "vLLM {version} has no auto-fit (`--max-model-len auto` / `-1` came in vLLM 0.14.0, PR \
                         #29431): its argparse refuses \"auto\" (\"invalid human_readable_int value\") and -1 is \
                         no length; set a token count or engine.version ≥ 0.14.0"
                    ),
                ));
            }
            return Ok((None, true));
        }
        if n < 1 {
            return Err(self.invalid("engine.max_model_len", format!("{n}: {expected}")));
        }
        Ok((Some(n as u64), false))
    }
}

/// vLLM's auto-fit on the resolved scenario `s` (`engine.max_model_len_auto`): sets
/// `engine.max_model_len` to the longest length that passes tpsim's start-up check, and adds vLLM's
/// log line to the warnings.
pub(super) fn auto_fit(s: &mut Scenario) {
    if !s.engine.max_model_len_auto {
        return;
    }
    let derived = s.model.context_len.unwrap_or(s.engine.context_len);
    let fits = |len: u64| {
        let mut t = s.clone();
        t.engine.max_model_len = Some(len);
        !length_refused(&plan_memory(&t).verdict)
    };
    if fits(derived) {
        s.engine.max_model_len = Some(derived);
        s.warnings.push(format!(
            "vLLM: \"Auto-fit max_model_len: full model context length {derived} fits in available GPU memory\""
        ));
        return;
    }
    let (mut lo, mut hi, mut best) = (1u64, derived, 0u64);
    if fits(1) {
        while lo <= hi {
            let mid = lo + (hi - lo) / 2;
            if fits(mid) {
                best = mid;
                lo = mid + 1;
            } else {
                hi = mid - 1;
            }
        }
    }
    if best == 0 {
        // vLLM raises here; the plan at the derived length fails too (its start-up check's text).
        s.engine.max_model_len = Some(derived);
        s.warnings.push(
            "vLLM stops: \"ValueError: Cannot auto-fit max_model_len: not enough GPU memory available to serve even \
             a single token. Try increasing `gpu_memory_utilization`.\""
                .into(),
        );
        return;
    }
    s.engine.max_model_len = Some(best);
    let available = plan_memory(s).rest_gib; // "Available KV cache memory"
    s.warnings.push(format!(
        "vLLM: \"Auto-fit max_model_len: reduced from {derived} to {best} to fit in available GPU memory ({} GiB \
         available for KV cache)\"",
        python_round2(available)
    ));
}

/// Whether the verdict is vLLM's one-request check ("To serve at least one request with the
/// model's max seq len (…)"; "models's" in the hybrid text, as vLLM spells it there).
fn length_refused(v: &Verdict) -> bool {
    matches!(v, Verdict::Oom { message, .. } if message.contains("max seq len ("))
}

/// `str(round(x, 2))` as Python prints it (`format_gib`, vLLM `utils/mem_utils.py`): 29.72, 30.0.
fn python_round2(x: f64) -> String {
    let r = (x * 100.0).round() / 100.0;
    if r.fract() == 0.0 {
        format!("{r:.1}")
    } else {
        format!("{r}")
    }
}
