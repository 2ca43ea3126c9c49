//! vllmpp59 (issue #17): vLLM's async scheduling with pipeline parallelism, and how its decode steps
//! then run through the stages, by release (read in each release's wheel from PyPI).
//!
//! Whether vLLM takes async scheduling at pp > 1:
//! - 0.11.0 `engine/arg_utils.py` `create_engine_config` and 0.12.0 – 0.14.1 `config/vllm.py`
//!   `VllmConfig.__post_init__` (0.14.1 lines 564–568 and 590–596): refused when set, and from 0.14
//!   (default `None`) turned off with a warning (`cuda_graphs::resolve_async`).
//! - 0.15.0 `config/vllm.py` (lines 568–622): the pipeline check is gone; async scheduling stays on.
//!   But 0.15.0 `v1/core/sched/scheduler.py` (lines 347–352, "do not schedule another step for the
//!   same request while it still has output placeholders for PP") holds a request until its token
//!   is back in the engine core, as the synchronous scheduler does (vLLM PR #32359).
//! - 0.16.0 (vLLM PR #32618): the hold is gone; the last stage broadcasts the sampled tokens to the
//!   other stages on the GPU (`v1/worker/gpu_model_runner.py` `_pp_broadcast_prev_sampled_token_ids`,
//!   line 3815; `scheduler.py` line 1020 then sends no token ids). Every running request is scheduled
//!   in every step, and a step's first stage waits for the previous step's tokens: the stages take
//!   the whole batch one after another (vLLM PR #42187 calls these "pipeline parallel bubbles").
//!   0.16.0 – 0.22.x `multiproc_executor.py` `max_concurrent_batches`: pp.
//! - 0.23.0 – 0.33.x: Model Runner V2 (`config/vllm.py` `use_v2_model_runner`) staggers decodes: a
//!   request is eligible again `pp_size` steps later (`v1/core/sched/async_scheduler.py`
//!   `next_decode_eligible_step`, 0.23.0 lines 38–41) with pp + 1 batches in flight
//!   (`max_concurrent_batches`, 0.23.0 lines 496–506); the V1 runner keeps 0.16's schedule. V2 is the
//!   default only for the architectures of `DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES` (0.23.0: Llama,
//!   Mistral, Qwen3 dense and unquantized; the list changes by release) or with
//!   `VLLM_USE_V2_MODEL_RUNNER`, which tpsim does not read: it takes the V1 runner there, with a
//!   warning.
//! - 0.34.0: one runner (no `use_v2_model_runner`); `async_scheduler.py` lines 14–16 and 45 stagger
//!   decodes by `pp_size` (XPU aside), `config/vllm.py` lines 560–566: pp + 1 batches in flight.

use super::EngineKind;

/// How vLLM treats async scheduling at `pipeline_parallel_size > 1`, by release.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PpAsyncRule {
    /// Before 0.15.0: refused when set, off by default (from 0.14 with vLLM's warning).
    Refused,
    /// 0.15.x: kept, but a request waits for its token before its next step.
    Held,
    /// 0.16.0 and later: kept, the tokens broadcast from the last stage on the GPU.
    Full,
}

/// The rule of vLLM release `version` (module note).
pub fn pp_async_rule(version: &str) -> PpAsyncRule {
    match crate::engine_args_versions::release(version) {
        Some(r) if r >= vec![0, 16] => PpAsyncRule::Full,
        Some(r) if r >= vec![0, 15] => PpAsyncRule::Held,
        _ => PpAsyncRule::Refused,
    }
}

/// How the decode steps of a pipeline-parallel engine go through the stages.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum PpDecode {
    /// ⌈batch / pp⌉ requests per micro-batch, pp micro-batches in flight; a micro-batch's next step
    /// is scheduled once its tokens are back on the host (its host step on its path unless the
    /// engine overlaps it: SGLang's overlap scheduler). SGLang, vLLM without async scheduling, vLLM
    /// 0.15 with it. Also the value without pipeline parallelism.
    #[default]
    MicroBatches,
    /// vLLM 0.16+ V1 runner with async scheduling: every running request in every step, the stages
    /// one after another; the host's step hidden behind the GPU's.
    WholeBatch,
    /// vLLM Model Runner V2 with async scheduling (0.34.0; 0.23+ for its models): micro-batches of
    /// ⌈batch / pp⌉ staggered `pp` steps apart, pp + 1 in flight; the host's step hidden.
    Staggered,
}

impl PpDecode {
    /// Whether the host's step for the next batch runs beside the GPU's pass (vLLM; SGLang follows
    /// its own overlap scheduler).
    pub fn hides_host(self) -> bool {
        self != PpDecode::MicroBatches
    }
}

/// The decode schedule of a vLLM engine at `pp` stages, release `version`, with async scheduling
/// on or off as resolved; pushes tpsim's warning where the runner is not known (0.23 – 0.33).
pub fn vllm_pp_decode(
    kind: EngineKind,
    version: &str,
    pp: u32,
    async_scheduling: bool,
    warnings: &mut Vec<String>,
) -> PpDecode {
    if kind != EngineKind::Vllm || pp <= 1 || !async_scheduling {
        return PpDecode::MicroBatches;
    }
    let r = crate::engine_args_versions::release(version).unwrap_or_default();
    match pp_async_rule(version) {
        PpAsyncRule::Refused | PpAsyncRule::Held => PpDecode::MicroBatches,
        PpAsyncRule::Full if r >= vec![0, 34] => PpDecode::Staggered,
        PpAsyncRule::Full if r >= vec![0, 23] => {
            warnings.push(format!(
                "vLLM {version} staggers pipeline-parallel decodes with Model Runner V2 only (its default \
                 for the architectures of DEFAULT_V2_MODEL_RUNNER_ARCHITECTURES, or VLLM_USE_V2_MODEL_RUNNER=1); \
                 tpsim takes the V1 runner: every running request in every step, the stages in turn"
            ));
            PpDecode::WholeBatch
        }
        PpAsyncRule::Full => PpDecode::WholeBatch,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn vllmpp59_rule_by_release() {
        for (v, want) in [
            ("0.11.0", PpAsyncRule::Refused),
            ("0.14.1", PpAsyncRule::Refused),
            ("0.15.0", PpAsyncRule::Held),
            ("0.15.1", PpAsyncRule::Held),
            ("0.16.0", PpAsyncRule::Full),
            ("0.34.0", PpAsyncRule::Full),
        ] {
            assert_eq!(pp_async_rule(v), want, "{v}");
        }
    }

    #[test]
    fn vllmpp59_decode_by_release() {
        let mut w = Vec::new();
        let d =
            |v: &str, pp: u32, a: bool, w: &mut Vec<String>| vllm_pp_decode(EngineKind::Vllm, v, pp, a, w);
        assert_eq!(d("0.15.1", 2, true, &mut w), PpDecode::MicroBatches);
        assert_eq!(d("0.16.0", 2, true, &mut w), PpDecode::WholeBatch);
        assert_eq!(d("0.22.0", 4, true, &mut w), PpDecode::WholeBatch);
        assert_eq!(d("0.16.0", 2, false, &mut w), PpDecode::MicroBatches);
        assert_eq!(d("0.16.0", 1, true, &mut w), PpDecode::MicroBatches);
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(d("0.23.0", 2, true, &mut w), PpDecode::WholeBatch);
        assert_eq!(w.len(), 1);
        assert_eq!(d("0.34.0", 2, true, &mut w), PpDecode::Staggered);
        assert_eq!(w.len(), 1);
        assert_eq!(
            vllm_pp_decode(EngineKind::Sglang, "0.5.9", 2, true, &mut w),
            PpDecode::MicroBatches
        );
    }
}
