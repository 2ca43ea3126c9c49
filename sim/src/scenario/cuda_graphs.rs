//! Issue #17 (graphs): the decode CUDA-graph capture settings and vLLM's async scheduling as users
//! set them on the command line, checked as the engine checks them. The capture lists themselves are
//! built in `serve::graphs` from these keys.
//!
//! Sources:
//! - SGLang 0.5.9 `server_args.py`: `--cuda-graph-max-bs` (int) and `--cuda-graph-bs` (int,
//!   `nargs="+"`); `_handle_gpu_memory_settings` keeps a user's `cuda_graph_max_bs` over the per-card
//!   default, replaces it with `max(cuda_graph_bs)` when a list is given, and computes the default
//!   `mem_fraction_static` reserve from that value; `cuda_graph_runner.py`
//!   `get_batch_sizes_to_capture` sorts and de-duplicates the list and asserts its first size is > 0.
//! - vLLM 0.11.0 `config/scheduler.py` (`cuda_graph_sizes`, `async_scheduling`), `config/__init__.py`
//!   `_set_cudagraph_sizes`, `config/compilation.py` `init_with_cudagraph_sizes` (a
//!   `compilation_config.cudagraph_capture_sizes` list overrides the scheduler's), `engine/arg_utils.py`
//!   `create_engine_config` (async scheduling refused with pipeline parallelism and speculative
//!   decoding).
//! - vLLM 0.12.0 `engine/arg_utils.py` (`--cudagraph-capture-sizes`, `--cuda-graph-sizes` deprecated
//!   as its alias, `--max-cudagraph-capture-size`, the mutual-exclusion errors), `config/vllm.py`
//!   `_set_cudagraph_sizes` (the new default list, the truncation warning and the consistency error)
//!   and the async-scheduling checks of `VllmConfig.__post_init__`.
//! - vLLM 0.19.0 `config/vllm.py` `_set_cudagraph_sizes` (read for issue #17, consistency: the
//!   release a scenario without `engine.version` means, `crate::engine_release`): the same list and
//!   checks as 0.12.0 (it also has an opt-in `performance_mode = "interactivity"` list, not taken),
//!   and `async_scheduling` still defaults to `None`, resolved as in 0.14.0.

use super::{EngineKind, Resolver, ScenarioError};

/// Largest capture size tpsim accepts: a bound of tpsim's (its capture lists are built eagerly),
/// far above any decode batch a box holds (SGLang's and vLLM's largest defaults are 512).
pub const MAX_CAPTURE_SIZE: i64 = 65_536;

/// Which vLLM capture-size rule applies, by release.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum VllmGraphRule {
    /// vLLM 0.11: `--cuda-graph-sizes` (one value n: 1, 2, 4, 8…n by 8), default
    /// [min(2 × max_num_seqs, 512)], filtered to `max_num_batched_tokens`; a
    /// `compilation_config.cudagraph_capture_sizes` list replaces it unfiltered.
    #[default]
    V0_11,
    /// vLLM 0.12 and later: `--cudagraph-capture-sizes` (a list, filtered to
    /// `max_num_batched_tokens`) or the pattern 1, 2, 4, 8…248 by 8, 256…max by 16 up to
    /// `--max-cudagraph-capture-size` (default min(2 × max_num_seqs, 512), at most
    /// `max_num_batched_tokens`).
    V0_12,
}

/// The capture settings a scenario gives (`None`: the engine's default).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CaptureKeys {
    /// SGLang `--cuda-graph-max-bs` as the engine ends up with it: the user's value, or the largest
    /// of `sglang_bs` when a list is given, or (sglmem54) SGLang 0.5.22+'s per-card default capped at
    /// the user's `--max-running-requests` when that lowers it. `None`: the per-card default.
    pub sglang_max_bs: Option<u32>,
    /// SGLang `--cuda-graph-bs`, sorted and de-duplicated (as the graph runner does).
    pub sglang_bs: Option<Vec<u32>>,
    /// The vLLM release's rule.
    pub vllm_rule: VllmGraphRule,
    /// vLLM 0.11 `--cuda-graph-sizes` as given (one value or a list).
    pub vllm_cuda_graph_sizes: Option<Vec<u32>>,
    /// vLLM's explicit list: 0.11 `compilation_config.cudagraph_capture_sizes`, 0.12
    /// `--cudagraph-capture-sizes` (or its deprecated alias `--cuda-graph-sizes`).
    pub vllm_capture_sizes: Option<Vec<u32>>,
    /// vLLM 0.12 `--max-cudagraph-capture-size`.
    pub vllm_max: Option<u32>,
}

/// The raw keys of `[engine]` this module reads.
pub(super) struct RawKeys<'a> {
    pub cuda_graph_max_bs: Option<i64>,
    pub cuda_graph_bs: Option<&'a [i64]>,
    pub cuda_graph_sizes: Option<&'a [i64]>,
    pub cudagraph_capture_sizes: Option<&'a [i64]>,
    pub max_cudagraph_capture_size: Option<i64>,
    pub async_scheduling: Option<bool>,
}

/// What the engine and the scenario decided besides the keys.
pub(super) struct Context<'a> {
    pub kind: EngineKind,
    /// The release simulated (`engine.version` or tpsim's current one).
    pub release: &'a crate::engine_release::Release,
    pub pp: u32,
    pub speculative: bool,
    /// cmdsurvey62: the draft is vLLM's n-gram proposer (`speculative.algorithm = "ngram"`).
    pub ngram: bool,
    /// The ranks span boxes: vLLM runs the Ray executor (`engine_args_nodes`).
    pub ray: bool,
}

/// The vLLM rule of release `version` (`crate::engine_release`: a scenario without
/// `engine.version` is at 0.19.0, the 0.12 rule).
pub fn vllm_rule(version: &str) -> VllmGraphRule {
    match crate::engine_args_versions::release(version) {
        Some(r) if r >= vec![0, 12] => VllmGraphRule::V0_12,
        _ => VllmGraphRule::V0_11,
    }
}

impl Resolver<'_> {
    /// Checks the capture keys and `async_scheduling`; returns the keys and whether vLLM schedules
    /// asynchronously.
    pub(super) fn cuda_graph_keys(
        &self,
        r: RawKeys<'_>,
        cx: Context<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<(CaptureKeys, bool), ScenarioError> {
        let sizes = |key: &str, v: &[i64]| -> Result<Vec<u32>, ScenarioError> {
            if v.is_empty() {
                return Err(self.invalid(key, "an empty list: the engine's flag takes at least one size"));
            }
            v.iter().map(|&x| self.size(key, x)).collect()
        };
        if cx.kind == EngineKind::Sglang {
            for (set, key) in [
                (r.cuda_graph_sizes.is_some(), "engine.cuda_graph_sizes"),
                (
                    r.cudagraph_capture_sizes.is_some(),
                    "engine.cudagraph_capture_sizes",
                ),
                (
                    r.max_cudagraph_capture_size.is_some(),
                    "engine.max_cudagraph_capture_size",
                ),
            ] {
                if set {
                    return Err(self.invalid(
                        key,
                        "a vLLM setting: with SGLang use cuda_graph_max_bs or cuda_graph_bs",
                    ));
                }
            }
            if r.async_scheduling.is_some() {
                return Err(self.invalid(
                    "engine.async_scheduling",
                    "a vLLM flag: SGLang overlaps its scheduler by default (disable_overlap_schedule turns it off)",
                ));
            }
            let max_bs = r
                .cuda_graph_max_bs
                .map(|x| self.size("engine.cuda_graph_max_bs", x))
                .transpose()?;
            let list = match r.cuda_graph_bs {
                Some(v) => {
                    let mut l = sizes("engine.cuda_graph_bs", v)?;
                    l.sort_unstable();
                    l.dedup();
                    Some(l)
                }
                None => None,
            };
            // `_handle_gpu_memory_settings`: `else: self.cuda_graph_max_bs = max(self.cuda_graph_bs)`.
            let list_max = list.as_ref().and_then(|l| l.last().copied());
            if let (Some(m), Some(lm)) = (max_bs, list_max)
                && m != lm
            {
                warnings.push(format!(
                    "engine.cuda_graph_max_bs = {m} is replaced by the largest of engine.cuda_graph_bs, {lm} \
                     (SGLang server_args.py _handle_gpu_memory_settings; it logs nothing)"
                ));
            }
            return Ok((
                CaptureKeys {
                    sglang_max_bs: list_max.or(max_bs),
                    sglang_bs: list,
                    ..Default::default()
                },
                false,
            ));
        }
        for (set, key) in [
            (r.cuda_graph_max_bs.is_some(), "engine.cuda_graph_max_bs"),
            (r.cuda_graph_bs.is_some(), "engine.cuda_graph_bs"),
        ] {
            if set {
                return Err(self.invalid(
                    key,
                    "an SGLang setting: with vLLM use cuda_graph_sizes, cudagraph_capture_sizes or \
                     max_cudagraph_capture_size (by version)",
                ));
            }
        }
        let rule = vllm_rule(&cx.release.version);
        let version = &cx.release.version;
        let given = r
            .cuda_graph_sizes
            .map(|v| sizes("engine.cuda_graph_sizes", v))
            .transpose()?;
        let capture = r
            .cudagraph_capture_sizes
            .map(|v| sizes("engine.cudagraph_capture_sizes", v))
            .transpose()?;
        let max = r
            .max_cudagraph_capture_size
            .map(|x| self.size("engine.max_cudagraph_capture_size", x))
            .transpose()?;
        let mut keys = CaptureKeys {
            vllm_rule: rule,
            ..Default::default()
        };
        match rule {
            VllmGraphRule::V0_11 => {
                if max.is_some() {
                    return Err(self.invalid(
                        "engine.max_cudagraph_capture_size",
                        format!(
                            "vLLM {version} has no --max-cudagraph-capture-size (it came with \
                             0.12.0, config/compilation.py): use cuda_graph_sizes = [N], or set \
                             engine.version to 0.12.0 or later"
                        ),
                    ));
                }
                if given.is_some() && capture.is_some() {
                    warnings.push(
                        "engine.cuda_graph_sizes is unused: compilation_config.cudagraph_capture_sizes \
                         (engine.cudagraph_capture_sizes) replaces the scheduler's list (vLLM 0.11 \
                         config/compilation.py init_with_cudagraph_sizes)"
                            .into(),
                    );
                }
                keys.vllm_cuda_graph_sizes = given;
                keys.vllm_capture_sizes = capture;
            }
            VllmGraphRule::V0_12 => {
                if given.is_some() {
                    // vLLM 0.12.0 arg_utils.py `create_engine_config`.
                    warnings.push(
                        "--cuda-graph-sizes is deprecated and will be removed in v0.13.0 or v1.0.0, whichever \
                         is soonest. Please use --cudagraph-capture-sizes instead."
                            .into(),
                    );
                    if capture.is_some() {
                        return Err(self.invalid(
                            "engine.cudagraph_capture_sizes",
                            "vLLM refuses it: \"ValueError: cudagraph_capture_sizes and compilation_config.\
                             cudagraph_capture_sizes are mutually exclusive\" (engine.cuda_graph_sizes sets the \
                             same list): give one of them",
                        ));
                    }
                }
                keys.vllm_capture_sizes = capture.or(given);
                keys.vllm_max = max;
            }
        }
        let async_scheduling = self.resolve_async(r.async_scheduling, &cx, warnings)?;
        Ok((keys, async_scheduling))
    }

    /// One capture size: 1 ≤ x ≤ [`MAX_CAPTURE_SIZE`].
    fn size(&self, key: &str, x: i64) -> Result<u32, ScenarioError> {
        if x < 1 {
            // SGLang: `assert len(capture_bs) > 0 and capture_bs[0] > 0` (cuda_graph_runner.py);
            // vLLM 0.12: "Maximum cudagraph size should be greater than or equal to 1".
            return Err(self.invalid(key, format!("{x}: expected a batch size ≥ 1")));
        }
        if x > MAX_CAPTURE_SIZE {
            return Err(self.invalid(
                key,
                format!("{x}: tpsim accepts capture sizes up to {MAX_CAPTURE_SIZE} (the engines' defaults stop at 512)"),
            ));
        }
        Ok(x as u32)
    }

    /// Whether vLLM schedules asynchronously: the scenario's `async_scheduling`, else the release's
    /// default ([`AsyncRule`]); refused or turned off, with vLLM's text, where the release does.
    fn resolve_async(
        &self,
        given: Option<bool>,
        cx: &Context<'_>,
        warnings: &mut Vec<String>,
    ) -> Result<bool, ScenarioError> {
        let key = "engine.async_scheduling";
        let rule = async_rule(&cx.release.version);
        let refuse = |text: &str| Err(self.invalid(key, format!("vLLM refuses it: \"ValueError: {text}\"")));
        // tpsim's vLLM speculative iteration (`decode/passes/vllm_spec.rs`) waits for the
        // scheduler's step: async scheduling with drafting is not modelled.
        const SPEC_NOT_MODELLED: &str = "async scheduling with speculative decoding is not modelled: tpsim's vLLM \
             speculative iteration waits for the scheduler's step (vLLM 0.11 refuses the pair; from 0.12 EAGLE/MTP \
             drafting runs with it)";
        // The executor: Ray when the ranks span boxes (`engine_args_nodes`), else `mp`.
        // args58: vLLM 0.19.0 `config/vllm.py` asks the executor class (`supports_async_scheduling`, False
        // for Ray: 0.19.0 `v1/executor/abstract.py`) and words both texts anew (0.18.1 still the old ones).
        let new_texts =
            crate::engine_args_versions::release(&cx.release.version).is_some_and(|r| r >= vec![0, 19]);
        let ray_text = if new_texts {
            "`ray` does not support async scheduling yet."
        } else {
            "Currently, async scheduling only supports `mp`, `uni`, or `external_launcher` distributed \
             executor backend, but you chose `ray`."
        };
        let pp_refused = super::vllm_pp_async::pp_async_rule(&cx.release.version)
            == super::vllm_pp_async::PpAsyncRule::Refused;
        match (given, rule) {
            (Some(false), _) | (None, AsyncRule::V0_11 | AsyncRule::V0_12) => Ok(false),
            (Some(true), AsyncRule::V0_11) => {
                // vLLM 0.11.0 engine/arg_utils.py `create_engine_config`.
                if cx.pp > 1 {
                    return refuse("Async scheduling is not supported with pipeline-parallel-size > 1.");
                }
                if cx.speculative {
                    return refuse("Currently, speculative decoding is not supported with async scheduling.");
                }
                Ok(true)
            }
            (Some(true), AsyncRule::V0_12 | AsyncRule::V0_14) => {
                // vLLM 0.12.0 / 0.14.0 config/vllm.py `VllmConfig.__post_init__` (explicitly enabled);
                // vllmpp59: 0.15.0 drops the pipeline check (`vllm_pp_async`).
                if cx.pp > 1 && pp_refused {
                    return refuse("Async scheduling is not yet compatible with pipeline_parallel_size > 1.");
                }
                // cmdsurvey62 (vllm-ascend issue 10313, `--async-scheduling` with a Qwen3.5 MTP draft at
                // 0.17): from 0.14 the explicit flag runs EAGLE/MTP drafting as the default does (0.17.0
                // `config/vllm.py`: only methods outside `EagleModelTypes` and "draft_model" raise), so it
                // is taken as the default path is, with its warning; n-gram drafting is refused with
                // vLLM's text. 0.12 / 0.13 stay not modelled (tpsim read no explicit-flag rule there).
                if cx.speculative && rule == AsyncRule::V0_14 && cx.ngram {
                    return refuse(
                        "Currently, async scheduling is only supported with EAGLE/MTP/Draft Model kind of \
                         speculative decoding.",
                    );
                }
                if cx.speculative && rule == AsyncRule::V0_14 {
                    if cx.ray {
                        return refuse(ray_text);
                    }
                    warnings.push(SPEC_ASYNC_WARNING.into());
                    return Ok(true);
                }
                if cx.speculative {
                    return Err(self.invalid(key, SPEC_NOT_MODELLED));
                }
                if cx.ray {
                    return refuse(ray_text);
                }
                Ok(true)
            }
            (None, AsyncRule::V0_14) => {
                // vLLM 0.14.0 config/vllm.py: `async_scheduling` None → on unless incompatible
                // (vllmpp59: pipeline parallelism only before 0.15.0).
                if cx.pp > 1 && pp_refused {
                    warnings.push(
                        "Async scheduling is not yet supported with pipeline_parallel_size > 1 and will be \
                         disabled. (vLLM's warning)"
                            .into(),
                    );
                    return Ok(false);
                }
                if cx.ray {
                    warnings.push(if new_texts {
                        "Async scheduling will be disabled because it is not supported with the `ray` distributed \
                         executor backend. (vLLM's warning)"
                            .into()
                    } else {
                        "Async scheduling will be disabled because it is not supported with the `ray` distributed \
                         executor backend (only `mp`, `uni`, and `external_launcher` are supported). (vLLM's warning)"
                            .into()
                    });
                    return Ok(false);
                }
                if cx.speculative {
                    warnings.push(SPEC_ASYNC_WARNING.into());
                }
                Ok(true)
            }
        }
    }
}

/// The note on vLLM ≥ 0.14's async scheduling with EAGLE/MTP drafting, which tpsim runs synchronously.
const SPEC_ASYNC_WARNING: &str = "vLLM >= 0.14 schedules asynchronously by default, with EAGLE/MTP drafting too; tpsim \
                                  models the speculative iteration synchronously (the scheduler's step before the \
                                  verify) and the no-speculation comparison asynchronously";

/// vLLM's async-scheduling rules by release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AsyncRule {
    /// 0.11: off by default; `--async-scheduling` refused with pipeline parallelism or speculation.
    V0_11,
    /// 0.12 and 0.13: off by default; explicit on refused with pipeline parallelism, non-EAGLE
    /// speculation or the Ray executor.
    V0_12,
    /// 0.14 and later (0.14.0 and 0.19.0 read): on by default unless the Ray executor or (0.14.x
    /// only, vllmpp59) pipeline parallel: turned off with vLLM's warning; explicit on refused there.
    V0_14,
}

/// The async-scheduling rule of release `version` (vLLM 0.13.0 `config/scheduler.py` still defaults
/// to `False`; 0.14.0 to `None`, resolved in `config/vllm.py`).
pub fn async_rule(version: &str) -> AsyncRule {
    match crate::engine_args_versions::release(version) {
        Some(r) if r >= vec![0, 14] => AsyncRule::V0_14,
        Some(r) if r >= vec![0, 12] => AsyncRule::V0_12,
        _ => AsyncRule::V0_11,
    }
}

impl Resolver<'_> {
    /// vLLM 0.12's check of `--max-cudagraph-capture-size` against the list it builds
    /// (`config/vllm.py` `_set_cudagraph_sizes`): refused when a list is given too and its largest
    /// size differs, else truncated with vLLM's warning. `tokens`/`seqs`: the scheduler shape (the
    /// scenario's, else vLLM's default for the GPU).
    pub(super) fn vllm_capture_max_check(
        &self,
        keys: &CaptureKeys,
        (tokens, seqs): (u64, u64),
        warnings: &mut Vec<String>,
    ) -> Result<(), ScenarioError> {
        let (_, Some(valid)) = crate::serve::graphs::vllm_list(keys, seqs, tokens) else {
            return Ok(());
        };
        let given = keys.vllm_max.unwrap_or(0);
        if keys.vllm_capture_sizes.is_some() {
            return Err(self.invalid(
                "engine.max_cudagraph_capture_size",
                format!(
                    "vLLM refuses it: \"ValueError: customized max_cudagraph_capture_size(={given}) should be \
                     consistent with the max value of cudagraph_capture_sizes(={valid})\""
                ),
            ));
        }
        warnings.push(format!(
            "Truncating max_cudagraph_capture_size to {valid} (vLLM's warning)"
        ));
        Ok(())
    }
}
