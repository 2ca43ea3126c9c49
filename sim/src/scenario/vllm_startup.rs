//! vLLM start-up memory settings (issue #17 point 5): the fitted coefficients of
//! `[engine.costs]` (`vllm_*`, see `tpsim_model::vllm_startup`) and the profile-run shape
//! (`engine.max_num_batched_tokens`, `engine.max_num_seqs`), checked.

use super::schema::CostsSection;
use super::{EngineKind, Resolver, ScenarioError};
use tpsim_model::hw::GpuSpec;
use tpsim_model::vllm_batch_defaults::{Device, default_batch_shape, defaulted_shape};
use tpsim_model::vllm_startup::StartupParams;

/// vllmchunk59 (issue #18): the scheduler shape vLLM starts with (`max_num_batched_tokens`,
/// `max_num_seqs`): the `given` values (`engine.max_num_batched_tokens`, `engine.max_num_seqs`),
/// else the API server's defaults for `gpu` (`total_gib`: the total vLLM reads) under release
/// `version`, with the release's caps at `max_model_len` (`tpsim_model::vllm_batch_defaults`). The
/// V0 engine (`v0`) keeps the 0.9 – 0.27 rule: its own scheduler (prefills apart from decodes) is
/// not modelled, and its profile run has its own shape (`decode::vllm_v0_kv`).
pub(crate) fn vllm_shape(
    gpu: &GpuSpec,
    total_gib: f64,
    (version, v0): (&str, bool),
    given: (Option<u64>, Option<u64>),
    max_model_len: u64,
) -> (u64, u64) {
    let release = if v0 {
        None
    } else {
        crate::engine_args_versions::release(version)
    };
    let device = Device {
        total_gib,
        name: &gpu.name,
        compute_capability: &gpu.compute_capability,
    };
    let defaults = default_batch_shape(device, release.as_deref());
    defaulted_shape(defaults, given, max_model_len, release.as_deref())
}

impl Resolver<'_> {
    /// The vLLM start-up coefficients, when all four keys are set (the bundled `engines/vllm.toml`
    /// sets them; SGLang's preset does not and does not use them).
    pub(super) fn vllm_startup(&self, c: &CostsSection) -> Result<Option<StartupParams>, ScenarioError> {
        let (Some(base), Some(per_logit), Some(comm), Some(per_peer)) = (
            c.vllm_activation_base,
            c.vllm_sampler_bytes_per_logit,
            c.vllm_non_torch_comm,
            c.vllm_non_torch_per_peer,
        ) else {
            return Ok(None);
        };
        if !(per_logit.is_finite() && (0.0..=64.0).contains(&per_logit)) {
            return Err(self.invalid(
                "engine.costs.vllm_sampler_bytes_per_logit",
                format!("{per_logit}: expected bytes per logit element in [0, 64]"),
            ));
        }
        Ok(Some(StartupParams {
            activation_base_gib: base.as_gib_f64(),
            sampler_bytes_per_logit: per_logit,
            non_torch_base_gib: c.non_torch_memory.map_or(0.0, |b| b.as_gib_f64()),
            non_torch_comm_gib: comm.as_gib_f64(),
            non_torch_per_peer_gib: per_peer.as_gib_f64(),
        }))
    }

    /// `--max-num-batched-tokens` / `--max-num-seqs` as the scenario gives them: vLLM settings
    /// (refused under SGLang, like `gpu_memory_utilization`), each ≥ 1 and at most the GPU's memory
    /// in bytes (`gpu_bytes`): vLLM's profile run allocates `[max_num_batched_tokens, hidden]`
    /// activations and `[max_num_seqs, vocab]` logits (vLLM 0.19.0 `gpu_model_runner.py`
    /// `_dummy_run` / `_dummy_sampler_run`), at least one byte per token or sequence, so a larger
    /// value dies with `torch.OutOfMemoryError` before the KV cache is sized — and the products of
    /// the memory plan stay inside 64 bits.
    pub(super) fn vllm_batch_shape(
        &self,
        (tokens, seqs): (Option<u64>, Option<u64>),
        kind: EngineKind,
        gpu_bytes: u64,
    ) -> Result<(Option<u64>, Option<u64>), ScenarioError> {
        for (v, key) in [
            (tokens, "engine.max_num_batched_tokens"),
            (seqs, "engine.max_num_seqs"),
        ] {
            if v.is_some() && kind != EngineKind::Vllm {
                return Err(self.invalid(
                    key,
                    "a vLLM setting: with SGLang use chunked_prefill_size / max_running_requests",
                ));
            }
            if v == Some(0) {
                return Err(self.invalid(key, "expected a count ≥ 1"));
            }
            if let Some(n) = v.filter(|&n| n > gpu_bytes) {
                return Err(self.invalid(
                    key,
                    format!(
                        "{n}: more than the GPU's {gpu_bytes} bytes; vLLM's profile run allocates at least \
                         one byte per batched token and sequence and would stop with torch.OutOfMemoryError"
                    ),
                ));
            }
        }
        Ok((tokens, seqs))
    }
}
