//! Issue #18 point 1 (schedkeys): the engines' scheduler settings as users set them on the command
//! line, checked the way the engine checks them, for the serving loop (`serve::plan`).
//!
//! Sources: SGLang 0.5.9 `server_args.py` (`--chunked-prefill-size`, `--max-prefill-tokens`,
//! `--schedule-conservativeness`, `--disable-radix-cache`, `--schedule-policy` and their checks in
//! `check_server_args`), `managers/scheduler.py` (`chunked_prefill_size <= 0` means off);
//! vLLM 0.11.0 `engine/arg_utils.py` (`--enable-prefix-caching` / `--no-enable-prefix-caching`, on by
//! default for a generating model in V1).

use super::{EngineKind, Resolver, ScenarioError};

/// The scheduler settings a scenario gives (`None`: the engine's default, as `serve::plan` models it).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct SchedulerKeys {
    /// SGLang `--chunked-prefill-size`: `Some(None)` = −1 (chunking off), `Some(Some(n))` = n tokens.
    pub chunked_prefill_size: Option<Option<u64>>,
    /// SGLang `--max-prefill-tokens`.
    pub max_prefill_tokens: Option<u64>,
    /// SGLang `--schedule-conservativeness`.
    pub schedule_conservativeness: Option<f64>,
    /// Prefix reuse: SGLang's radix cache (off with `--disable-radix-cache`), vLLM's prefix caching
    /// (`--enable-prefix-caching`, default on). True by default in both.
    pub prefix_cache: bool,
    /// SGLang `--enable-mixed-chunk` (after SGLang's own adjustment: off with speculation).
    pub mixed_chunk: bool,
    /// vLLM `--long-prefill-token-threshold` (0: off).
    pub long_prefill_token_threshold: u64,
    /// SGLang `--schedule-policy` (after SGLang's own adjustment: `lpm` is `fcfs` without a radix cache).
    pub policy: SchedulePolicy,
}

/// SGLang's waiting-queue order (`--schedule-policy`), the choices tpsim models.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum SchedulePolicy {
    /// First come, first served (SGLang 0.5.9's default, `server_args.py`).
    #[default]
    Fcfs,
    /// Longest cached prefix first, with in-batch prefix caching (`schedule_policy.py`).
    Lpm,
    /// Longest output (`max_new_tokens`) first (`schedule_policy.py` `_sort_by_longest_output`).
    Lof,
}

/// The raw keys of `[engine]` this module reads.
pub(super) struct RawKeys {
    pub chunked_prefill_size: Option<i64>,
    pub max_prefill_tokens: Option<u64>,
    pub schedule_conservativeness: Option<f64>,
    pub disable_radix_cache: Option<bool>,
    pub schedule_policy: Option<String>,
    pub enable_prefix_caching: Option<bool>,
    pub enable_mixed_chunk: Option<bool>,
    pub enable_chunked_prefill: Option<bool>,
    pub long_prefill_token_threshold: Option<u64>,
}

/// SGLang 0.5.9 `server_args.py` `--schedule-policy` choices.
const SGLANG_POLICIES: [&str; 7] = [
    "lpm",
    "random",
    "fcfs",
    "dfs-weight",
    "lof",
    "priority",
    "routing-key",
];

impl Resolver<'_> {
    pub(super) fn scheduler_keys(
        &self,
        r: RawKeys,
        kind: EngineKind,
        page_size: u64,
        speculative: bool,
        warnings: &mut Vec<String>,
    ) -> Result<SchedulerKeys, ScenarioError> {
        let sglang_only = |key: &str| {
            self.invalid(
                key,
                "an SGLang setting: vLLM's scheduler is set with max_num_batched_tokens, max_num_seqs and \
                 enable_prefix_caching",
            )
        };
        if kind == EngineKind::Vllm {
            if r.chunked_prefill_size.is_some() {
                return Err(sglang_only("engine.chunked_prefill_size"));
            }
            if r.max_prefill_tokens.is_some() {
                return Err(sglang_only("engine.max_prefill_tokens"));
            }
            if r.schedule_conservativeness.is_some() {
                return Err(sglang_only("engine.schedule_conservativeness"));
            }
            if r.disable_radix_cache.is_some() {
                return Err(sglang_only("engine.disable_radix_cache"));
            }
            if r.schedule_policy.is_some() {
                return Err(sglang_only("engine.schedule_policy"));
            }
            if r.enable_mixed_chunk.is_some() {
                return Err(self.invalid(
                    "engine.enable_mixed_chunk",
                    "an SGLang flag: vLLM 0.11's V1 scheduler always runs prefill chunks with the decodes",
                ));
            }
            // vLLM 0.11.0 arg_utils.py `_set_default_args`: "V1 always uses chunked prefills and prefix
            // caching for non-pooling tasks" — it sets enable_chunked_prefill = True over the user's
            // value, silently; tpsim says so.
            if r.enable_chunked_prefill == Some(false) {
                warnings.push(
                    "engine.enable_chunked_prefill = false: vLLM 0.11's V1 engine turns chunked prefill on for \
                     generating models whatever is given (arg_utils.py `_set_default_args`); modelled as on"
                        .into(),
                );
            }
            return Ok(SchedulerKeys {
                prefix_cache: r.enable_prefix_caching.unwrap_or(true),
                long_prefill_token_threshold: r.long_prefill_token_threshold.unwrap_or(0),
                ..Default::default()
            });
        }
        if r.enable_prefix_caching.is_some() {
            return Err(self.invalid(
                "engine.enable_prefix_caching",
                "a vLLM setting: with SGLang use disable_radix_cache",
            ));
        }
        if r.enable_chunked_prefill.is_some() {
            return Err(self.invalid(
                "engine.enable_chunked_prefill",
                "a vLLM setting: with SGLang use chunked_prefill_size (-1 = off)",
            ));
        }
        if r.long_prefill_token_threshold.is_some() {
            return Err(self.invalid(
                "engine.long_prefill_token_threshold",
                "a vLLM setting: with SGLang use chunked_prefill_size",
            ));
        }
        // SGLang's scheduler treats any size <= 0 as off (`scheduler.py`: "-1 means disable"); tpsim
        // takes −1 only, the documented value. A positive size must be a whole number of pages
        // (`check_server_args`).
        let chunked_prefill_size = match r.chunked_prefill_size {
            None => None,
            Some(-1) => Some(None),
            Some(n) if n > 0 => {
                if !(n as u64).is_multiple_of(page_size.max(1)) {
                    return Err(self.invalid(
                        "engine.chunked_prefill_size",
                        format!(
                            "{n} with page_size {page_size}: SGLang refuses to start: \"chunked_prefill_size must be \
                             divisible by page_size\""
                        ),
                    ));
                }
                Some(Some(n as u64))
            }
            Some(n) => {
                return Err(self.invalid(
                    "engine.chunked_prefill_size",
                    format!("{n}: expected a positive token count, or -1 to turn chunked prefill off"),
                ));
            }
        };
        if r.max_prefill_tokens == Some(0) {
            return Err(self.invalid(
                "engine.max_prefill_tokens",
                "0: expected a positive token count (SGLang's default is 16384)",
            ));
        }
        if let Some(c) = r.schedule_conservativeness
            && !(c.is_finite() && c > 0.0)
        {
            return Err(self.invalid(
                "engine.schedule_conservativeness",
                format!("{c}: expected a positive number (SGLang's default is 1.0)"),
            ));
        }
        if let Some(p) = r.schedule_policy.as_deref()
            && !SGLANG_POLICIES.contains(&p)
        {
            return Err(self.invalid(
                "engine.schedule_policy",
                format!(
                    "`{p}`: SGLang's --schedule-policy: invalid choice (choose from {})",
                    SGLANG_POLICIES.map(|c| format!("'{c}'")).join(", ")
                ),
            ));
        }
        let policy = match r.schedule_policy.as_deref() {
            None | Some("fcfs") => SchedulePolicy::Fcfs,
            Some("lof") => SchedulePolicy::Lof,
            // SGLang 0.5.9 schedule_policy.py `_validate_and_adjust_policy`: a cache-aware policy with the
            // radix cache disabled becomes fcfs (silently; tpsim says so).
            Some("lpm") if r.disable_radix_cache == Some(true) => {
                warnings.push(
                    "engine.schedule_policy = \"lpm\": SGLang orders the queue fcfs when the radix cache is \
                     disabled (schedule_policy.py `_validate_and_adjust_policy`)"
                        .into(),
                );
                SchedulePolicy::Fcfs
            }
            Some("lpm") => SchedulePolicy::Lpm,
            Some(p) => {
                return Err(self.invalid(
                    "engine.schedule_policy",
                    format!("`{p}`: tpsim models SGLang's fcfs, lpm and lof orders only"),
                ));
            }
        };
        // SGLang 0.5.9 `_handle_speculative_decoding`: EAGLE turns mixed chunk off with this warning.
        let mut mixed_chunk = r.enable_mixed_chunk.unwrap_or(false);
        if mixed_chunk && speculative {
            mixed_chunk = false;
            warnings.push(
                "engine.enable_mixed_chunk: SGLang turns it off: \"Mixed chunked prefill is disabled because of \
                 using eagle speculative decoding.\""
                    .into(),
            );
        }
        Ok(SchedulerKeys {
            chunked_prefill_size,
            max_prefill_tokens: r.max_prefill_tokens,
            schedule_conservativeness: r.schedule_conservativeness,
            prefix_cache: !r.disable_radix_cache.unwrap_or(false),
            mixed_chunk,
            long_prefill_token_threshold: 0,
            policy,
        })
    }
}

/// vLLM's prefix caching for a hybrid Mamba-2 / Gated DeltaNet model (issue #17; release rules in
/// `tpsim_model::vllm_hybrid::VllmHybridRules`): 0.11 turns it off whatever is given (`models/config.py`
/// `MambaModelConfig`, its log line); 0.12 – 0.25 leave it off unless `--enable-prefix-caching`
/// (`ModelConfig.is_prefix_caching_supported`: hybrids not supported by default); from 0.26 on by
/// default; no `engine.version`: 0.19.0's. Returns the setting and the line to report.
pub(super) fn vllm_hybrid_prefix_caching(given: Option<bool>, version: &str) -> (bool, Option<String>) {
    let rel = crate::engine_args_versions::release(version);
    let rules = tpsim_model::vllm_hybrid::VllmHybridRules::for_release(rel.as_deref());
    if !rules.prefix_caching_allowed {
        let line = "vLLM: Hybrid or mamba-based model detected: disabling prefix caching since it is not yet supported.";
        return (false, Some(line.into()));
    }
    match given {
        Some(on) => (on, None),
        None if rules.prefix_caching_default => (true, None),
        None => (
            false,
            Some(
                "engine.enable_prefix_caching: vLLM leaves prefix caching off by default for hybrid models before \
                 0.26 (`ModelConfig.is_prefix_caching_supported`); modelled as off"
                    .into(),
            ),
        ),
    }
}

/// hybrids51 (issue #17): vLLM's LFM2 models assert prefix caching off in their constructor
/// (`Lfm2ForCausalLM.__init__`: "Lfm2 currently does not support prefix caching", `Lfm2MoeForCausalLM`:
/// "Lfm2Moe currently does not support prefix caching"): present in the 0.10.2, 0.11.0, 0.11.1, 0.13.0
/// and 0.14.0 wheels' `models/lfm2.py`, gone from 0.15.0's; in `models/lfm2_moe.py` (from 0.11.1) up
/// to 0.15.0, gone from 0.16.0's. Before 0.12 `MambaModelConfig` has already turned prefix caching
/// off, so the assertion only fires where prefix caching is on (`vllm_hybrid_prefix_caching`).
/// Returns the refusal for `arch` at `version` with prefix caching on, `None` when vLLM starts.
pub(super) fn vllm_lfm2_prefix_refusal(
    arch: tpsim_model::llm::Architecture,
    version: &str,
) -> Option<String> {
    use tpsim_model::llm::Architecture as A;
    let r = crate::engine_args_versions::release(version)?;
    let m = [0, 1].map(|i| r.get(i).copied().unwrap_or(0));
    let (name, gone) = match arch {
        A::Lfm2 => ("Lfm2", [0, 15]),
        A::Lfm2Moe => ("Lfm2Moe", [0, 16]),
        _ => return None,
    };
    (m < gone).then(|| {
        format!(
            "true: vLLM {version} refuses to start: AssertionError \"{name} currently does not support prefix \
             caching\" (models/{}.py, asserted up to {}.{}): leave engine.enable_prefix_caching unset or false",
            if arch == A::Lfm2 { "lfm2" } else { "lfm2_moe" },
            gone[0],
            gone[1] - 1
        )
    })
}
