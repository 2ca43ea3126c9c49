//! Issue #17 (vllmv0): vLLM's V0 engine, the engine of every release before 0.8.0 and of 0.8–0.10
//! with `VLLM_USE_V1=0`. V0 runs one synchronous Python loop (`vllm/engine/llm_engine.py`
//! `LLMEngine.step`): the scheduler's `schedule()`, the driver worker's input preparation and the
//! broadcast of the inputs to the other TP ranks (`vllm/worker/model_runner.py`
//! `prepare_model_input`), the forward, the sampler's GPU → CPU copy, then
//! `_process_model_outputs` (detokenization, stop checks, request outputs). The GPU waits for all of
//! it: tpsim's V1 "schedule batch" host task (`engine.costs.host_overhead`) is replaced by the V0
//! step's host time ([`V0Engine::step_host`]), on the critical path.
//!
//! Which engine runs (`Resolver::vllm_v0`):
//! - before 0.6.0: V0, synchronous (nothing overlaps the forward);
//! - 0.6.0–0.7.x: V0 with the asynchronous output processor (vLLM PR 7049, in 0.6.0 on by default:
//!   `_process_model_outputs` runs while the next forward is on the GPU) and, with
//!   `--num-scheduler-steps n` (vLLM PR 7000, in 0.6.0), n decode steps per scheduler call;
//!   `VLLM_USE_V1=1` (`engine.use_v1 = true`) selects the V1 alpha from 0.7.0 (vLLM blog "vLLM V1: A
//!   Major Upgrade to vLLM's Core Architecture", 2025-01-27);
//! - 0.8.0–0.10.x: V1 by default (vLLM 0.8.0 release notes); `VLLM_USE_V1=0` or a V1-unsupported
//!   `--num-scheduler-steps` (0.8.x `engine/arg_utils.py` `_is_v1_supported_oracle`:
//!   `_raise_or_fallback(feature_name="--num-scheduler-steps")`) runs V0;
//! - 0.11.0 on: V0 is gone (vLLM PR 25033 "[V0 Deprecation] Remove LLMEngine"; optimum-neuron PR 1027:
//!   "the V0 engine has been completely removed from vLLM starting with version 0.11.0").
//!
//! The costs are measured figures of V0 at its 0.5.3-era main (July 2024), applied to every V0
//! release (the earlier ones are assumed to cost the same: no measurement of them was found); no
//! figure names its host CPU, so no CPU scaling is applied.

use super::{EngineKind, Resolver, ScenarioError};
use crate::engine_release::Release;
use tpsim_model::units::Duration;
use tpsim_model::vllm_v0_memory::{self as v0mem, V0MemoryRule};

/// The V0 step's host time between two forwards that is not output processing: "Each highlighted
/// redbox is about 4ms of GPU bubble", incurred "on every decode" (vLLM issue 6854, "\[RFC\]:
/// Multi-Step Scheduling", 2024-07-26, Nsight trace of the baseline: the scheduler, the next step's
/// input preparation, the sampled token's GPU → CPU copy and pythonization, output processing).
/// The RFC's runs are Llama-3-8B on one GPU (its PR 7000 command, 1× H100); the trace's batch is not
/// stated, so the 4 ms is taken as the per-step part and the output processing is added per request
/// below. tpsim's 4 ms = [`STEP_BUBBLE`] counts `_process_model_outputs`' own fixed part
/// [`OUTPUT_FIXED`].
pub const STEP_BUBBLE: Duration = Duration::from_ms(4);

/// `_process_model_outputs` at batch 1: 0.2 ms (vLLM issue 6913 "\[RFC\]: Asynchronous Output
/// Processor", 2024-07-29, Llama-3-70B FP8 on 4× H100, 128 input tokens: batch 1 row, TPOT 19 ms).
pub const OUTPUT_FIXED: Duration = Duration::from_us(200);

/// `_process_model_outputs` per running request: issue 6913's table, batch 1 → 32: 0.2 → 3.4 ms, so
/// (3.4 − 0.2) ms / 31 requests = 103.2 µs (103 226 ns).
pub const OUTPUT_PER_REQUEST: Duration = Duration::from_ns(103_226);

/// How the V0 engine overlaps its host work with the forward.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum V0Mode {
    /// Before 0.6.0: the whole step's host time is on the critical path.
    Sync,
    /// 0.6.0 on: the asynchronous output processor runs `_process_model_outputs` of step i while
    /// step i + 1's forward runs (vLLM PR 7049), so only the scheduling and input preparation wait.
    AsyncOutput,
}

/// vLLM's V0 engine as a scenario runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct V0Engine {
    /// Whether output processing overlaps the forward.
    pub mode: V0Mode,
    /// `--num-scheduler-steps` (1 = one scheduler call per decode step).
    pub scheduler_steps: u32,
    /// vllmv0mem: what the release's `determine_num_available_blocks` subtracts
    /// (`tpsim_model::vllm_v0_memory::V0MemoryRule`).
    pub memory: V0MemoryRule,
    /// `--swap-space` in bytes (`engine.swap_space` GiB, default 4): the CPU blocks.
    pub swap_space_bytes: u64,
    /// `--enable-chunked-prefill` as given (`None`: V0's default, on above 32K tokens of context).
    pub enable_chunked_prefill: Option<bool>,
    /// The release is older than 0.5.0, whose sizing code was not read (the 0.5.3 rule is applied).
    pub memory_unread: bool,
}

impl V0Engine {
    /// Host time of one V0 step with `batch` running requests that the GPU waits for:
    /// - [`V0Mode::Sync`]: [`STEP_BUBBLE`] + `batch` × [`OUTPUT_PER_REQUEST`];
    /// - [`V0Mode::AsyncOutput`]: ([`STEP_BUBBLE`] − [`OUTPUT_FIXED`]) ÷ `scheduler_steps` (output
    ///   processing overlaps the forward; multi-step runs the scheduler and input preparation once
    ///   per `scheduler_steps` decode steps: "the 4ms only needs to be incurred once for every 8
    ///   decode", issue 6854). Assumes the overlapped output processing is shorter than the forward.
    pub fn step_host(&self, batch: u32) -> Duration {
        match self.mode {
            V0Mode::Sync => STEP_BUBBLE + OUTPUT_PER_REQUEST.times(u64::from(batch)),
            V0Mode::AsyncOutput => {
                let ps = (STEP_BUBBLE - OUTPUT_FIXED).as_ps() / u64::from(self.scheduler_steps.max(1));
                Duration::from_ps(ps)
            }
        }
    }

    /// "V0 (synchronous: …)" for the report.
    pub fn label(&self) -> String {
        match self.mode {
            V0Mode::Sync => {
                "V0, synchronous (scheduling, input preparation and output processing before each forward)"
                    .to_string()
            }
            V0Mode::AsyncOutput if self.scheduler_steps > 1 => format!(
                "V0, async output processing, {} decode steps per scheduler call",
                self.scheduler_steps
            ),
            V0Mode::AsyncOutput => {
                "V0, async output processing (scheduling and input preparation before each forward)"
                    .to_string()
            }
        }
    }
}

/// The scenario's V0 keys as written.
pub(super) struct V0Keys {
    /// `engine.use_v1` (`VLLM_USE_V1`).
    pub use_v1: Option<bool>,
    /// `engine.num_scheduler_steps` (`--num-scheduler-steps`).
    pub num_scheduler_steps: Option<i64>,
    /// `engine.swap_space` (`--swap-space`, GiB per GPU; vllmv0mem).
    pub swap_space: Option<f64>,
    /// `engine.enable_chunked_prefill` (V0's profile shape depends on it).
    pub enable_chunked_prefill: Option<bool>,
}

impl Resolver<'_> {
    /// `engine.use_v1`, else `VLLM_USE_V1` of `[engine.env]` (`"0"`/`"1"`, as a launch command's
    /// environment imports); both given must agree.
    pub(super) fn use_v1_key(
        &self,
        key: Option<bool>,
        env: Option<&std::collections::BTreeMap<String, String>>,
    ) -> Result<Option<bool>, ScenarioError> {
        let from_env = match env.and_then(|m| m.get("VLLM_USE_V1")).map(|v| v.trim()) {
            None => None,
            Some("0") => Some(false),
            Some("1") => Some(true),
            Some(other) => {
                return Err(self.invalid(
                    "engine.env.VLLM_USE_V1",
                    format!("`{other}`: expected \"0\" (the V0 engine) or \"1\" (V1)"),
                ));
            }
        };
        match (key, from_env) {
            (Some(k), Some(v)) if k != v => Err(self.invalid(
                "engine.use_v1",
                format!(
                    "{k}, but [engine.env] sets VLLM_USE_V1 = {}: give one",
                    u8::from(v)
                ),
            )),
            (k, v) => Ok(k.or(v)),
        }
    }

    /// The V0 engine the scenario runs, `None` for V1 (or SGLang); refuses the keys where the
    /// release has no such setting, with the reason.
    pub(super) fn vllm_v0(
        &self,
        kind: EngineKind,
        release: &Release,
        keys: V0Keys,
        speculative: bool,
        async_scheduling: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Option<V0Engine>, ScenarioError> {
        const USE_V1: &str = "engine.use_v1";
        const STEPS: &str = "engine.num_scheduler_steps";
        const SWAP: &str = "engine.swap_space";
        let swap_space = match keys.swap_space {
            None => v0mem::SWAP_SPACE_GIB,
            // vLLM's `CacheConfig._verify_args` only warns above 40 % (0.7) / 70 % of the CPU memory.
            Some(g) if g.is_finite() && (0.0..=4096.0).contains(&g) => g,
            Some(g) => {
                return Err(self.invalid(SWAP, format!("{g}: expected GiB of CPU swap per GPU, 0 to 4096")));
            }
        };
        if kind != EngineKind::Vllm {
            if keys.swap_space.is_some() {
                return Err(self.invalid(SWAP, "a vLLM setting (--swap-space); SGLang has none"));
            }
            if keys.use_v1.is_some() {
                return Err(self.invalid(USE_V1, "a vLLM setting (VLLM_USE_V1); SGLang has no V0 engine"));
            }
            if keys.num_scheduler_steps.is_some() {
                return Err(self.invalid(STEPS, "a vLLM flag (--num-scheduler-steps); SGLang has none"));
            }
            return Ok(None);
        }
        let steps = match keys.num_scheduler_steps {
            None => None,
            Some(n) if (1..=1024).contains(&n) => Some(n as u32),
            Some(n) => {
                return Err(self.invalid(STEPS, format!("{n}: expected a step count of 1 to 1024")));
            }
        };
        let Some(v) = crate::engine_args_versions::release(&release.version) else {
            return Ok(None);
        };
        let at_least = |major: u64, minor: u64| v >= vec![major, minor];
        let multi = steps.is_some_and(|n| n > 1);
        let v0 = if !at_least(0, 7) {
            if keys.use_v1 == Some(true) {
                return Err(self.invalid(
                    USE_V1,
                    format!(
                        "vLLM {} has no V1 engine (VLLM_USE_V1 first selects the V1 alpha in 0.7.0)",
                        release.version
                    ),
                ));
            }
            true
        } else if !at_least(0, 8) {
            keys.use_v1 != Some(true)
        } else if !at_least(0, 11) {
            match keys.use_v1 {
                Some(false) => true,
                Some(true) => false,
                None if multi => {
                    // vLLM 0.8.x `engine/arg_utils.py` `_raise_or_fallback`: V1 unsupported → V0.
                    warnings.push(
                        "--num-scheduler-steps is not supported by the V1 Engine. Falling back to V0. \
                         (vLLM's warning)"
                            .into(),
                    );
                    true
                }
                None => false,
            }
        } else {
            if keys.use_v1 == Some(false) {
                return Err(self.invalid(
                    USE_V1,
                    format!(
                        "vLLM {} has no V0 engine (removed in 0.11.0, vLLM PR 25033): use a release before 0.11",
                        release.version
                    ),
                ));
            }
            false
        };
        if !v0 {
            if multi {
                // vLLM 0.8.x `_raise_or_fallback` with VLLM_USE_V1=1 set.
                return Err(self.invalid(
                    STEPS,
                    "vLLM refuses it: \"NotImplementedError: VLLM_USE_V1=1 is not supported with \
                     --num-scheduler-steps.\" (multi-step scheduling is a V0 feature)",
                ));
            }
            return Ok(None);
        }
        let mode = if at_least(0, 6) {
            V0Mode::AsyncOutput
        } else {
            if steps.is_some() {
                return Err(self.invalid(
                    STEPS,
                    format!(
                        "vLLM {} has no --num-scheduler-steps (multi-step scheduling arrived in 0.6.0, vLLM PR 7000)",
                        release.version
                    ),
                ));
            }
            V0Mode::Sync
        };
        if speculative {
            return Err(self.invalid(
                "speculative",
                "speculative decoding on vLLM's V0 engine (its spec-decode worker) is not modelled: use a V1 release",
            ));
        }
        if async_scheduling {
            return Err(self.invalid(
                "engine.async_scheduling",
                "--async-scheduling is a V1 setting; the V0 engine this release runs has none",
            ));
        }
        Ok(Some(V0Engine {
            mode,
            scheduler_steps: steps.unwrap_or(1),
            memory: V0MemoryRule::of(&v),
            swap_space_bytes: v0mem::swap_space_bytes(swap_space),
            enable_chunked_prefill: keys.enable_chunked_prefill,
            memory_unread: !at_least(0, 5),
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sync_step_adds_output_processing_per_request() {
        let e = V0Engine {
            mode: V0Mode::Sync,
            scheduler_steps: 1,
            memory: V0MemoryRule::FreeDelta,
            swap_space_bytes: 4 << 30,
            enable_chunked_prefill: None,
            memory_unread: false,
        };
        // 4 ms + 1 × 103.226 µs; 4 ms + 32 × 103.226 µs = 7.303232 ms.
        assert_eq!(e.step_host(1), Duration::from_ns(4_103_226));
        assert_eq!(e.step_host(32), Duration::from_ns(7_303_232));
    }

    #[test]
    fn async_output_and_multi_step_shorten_the_wait() {
        let one = V0Engine {
            mode: V0Mode::AsyncOutput,
            scheduler_steps: 1,
            memory: V0MemoryRule::FreeDelta,
            swap_space_bytes: 4 << 30,
            enable_chunked_prefill: None,
            memory_unread: false,
        };
        // (4 − 0.2) ms = 3.8 ms whatever the batch; ÷ 8 steps = 475 µs.
        assert_eq!(one.step_host(1), Duration::from_us(3800));
        assert_eq!(one.step_host(256), Duration::from_us(3800));
        let eight = V0Engine {
            scheduler_steps: 8,
            ..one
        };
        assert_eq!(eight.step_host(64), Duration::from_us(475));
    }
}
