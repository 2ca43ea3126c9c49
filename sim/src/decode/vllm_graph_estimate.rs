//! vgraph53 (issue #17): vLLM's CUDA-graph memory estimate, which `determine_available_memory`
//! subtracts from the KV budget by default from vLLM 0.20.0.
//!
//! Read in the PyPI wheels (0.17.1, 0.18.0, 0.19.0, 0.19.1, 0.20.0, 0.21.0, 0.22.0, 0.25.1, 0.26.0 …
//! 0.30.0, 0.32.0, 0.34.0):
//! - `envs.py` `VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS`: absent in 0.17.1; `bool(int(getenv(…,
//!   "0")))` in 0.18.0 – 0.19.1 (opt-in); default `"1"` from 0.20.0 (on). (The log text of 0.20.0 …
//!   0.34.0 says "default since v0.21.0"; the 0.20.0 wheel's default is already `"1"`.)
//! - `v1/worker/gpu_worker.py` `determine_available_memory`: after `profile_run`, the worker calls
//!   `model_runner.profile_cudagraph_memory()` — 0.18.0 – 0.19.1 when not `enforce_eager` and not
//!   ROCm; 0.20.0 – 0.25.1 on CUDA only (`is_cuda()` from 0.21.0, `not is_rocm()` in 0.20.0) with
//!   `cudagraph_mode != NONE`; from 0.26.0 on CUDA or ROCm (`is_cuda_alike()`, vLLM PR 44825); 0.34.0
//!   skips the measurement when the variable is off. The KV budget is `requested_memory −
//!   non_kv_cache_memory − estimate` when the variable is on, the estimate being measured either way.
//! - how the estimate is made: a **measurement**, not arithmetic (0.20.0 `v1/worker/gpu_model_runner.py`
//!   `profile_cudagraph_memory`): for each CUDA-graph mode it captures the first two capture sizes
//!   into a throwaway pool, reading `torch.cuda.mem_get_info()` before and after each, and returns
//!   `max over modes(first capture) + Σ modes (second capture, at least 1 MiB) × (sizes − 1)`; 0.34.0
//!   (`v1/worker/gpu/cudagraph_utils.py` `profile_cudagraph_memory`) captures every PIECEWISE graph and
//!   two FULL ones, extrapolating the FULL ones. No sourced per-graph size exists (vLLM issue 50780:
//!   the FULL graphs "cost ~24 MiB each" on one box while the estimate carries a transient that grows
//!   with `max_num_batched_tokens`), so tpsim takes the figure from the log:
//!   `[engine.observed] cuda_graph_gib` = "Estimated CUDA graph memory: X GiB total" (0.20.0 –
//!   0.26.0 `gpu_model_runner.py`; 0.34.0 prints only the "(estimated)" figure of "CUDA graph pool
//!   memory: … GiB (actual), … GiB (estimated)"). Without it the estimate is not included, and the
//!   plan says so.
//! - the line it prints when the estimate is positive and applied (0.20.0 – 0.34.0): "CUDA graph
//!   memory profiling is enabled (default since v0.21.0). The current --gpu-memory-utilization=%.4f is
//!   equivalent to --gpu-memory-utilization=%.4f without CUDA graph memory profiling. …", the figures
//!   `util`, `round(util − estimate / total, 4)`, `min(round(util + estimate / total, 4), 1.0)`.
//!
//! With `--kv-cache-memory-bytes` the profile (and so the estimate) is skipped.

use crate::scenario::accel::GpuVendor;
use crate::scenario::flashinfer_sampler::triple;
use crate::scenario::{EngineKind, Scenario};

/// The variable's name (`[engine.env]`).
pub const VAR: &str = "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS";

/// What the scenario's vLLM does with the CUDA-graph estimate, in GiB subtracted from the KV budget,
/// with the notes that say so.
#[derive(Debug, Clone, PartialEq)]
pub struct GraphEstimate {
    /// GiB subtracted from the KV budget: the observed estimate when vLLM applies it, else 0.
    pub applied_gib: f64,
    /// True when vLLM applies an estimate that the scenario does not give (the plan leaves it out).
    pub missing: bool,
    /// What vLLM logs about it, or what tpsim leaves out.
    pub notes: Vec<String>,
}

/// Whether the release measures the estimate on this box (module doc), and whether it subtracts it.
fn measured_and_applied(s: &Scenario) -> Option<(bool, [u64; 3])> {
    let e = &s.engine;
    let v = triple(&e.release().version)?;
    let measures = e.kind == EngineKind::Vllm
        && e.v0.is_none()
        && e.kv_cache_memory_bytes.is_none()
        && v >= [0, 18, 0]
        && e.cuda_graph
        && (s.hardware.accel.vendor == GpuVendor::Nvidia || v >= [0, 26, 0]);
    if !measures {
        return None;
    }
    let on = e.cudagraph_estimate_env.unwrap_or(v >= [0, 20, 0]);
    Some((on, v))
}

impl GraphEstimate {
    /// The estimate of scenario `s` whose torch total is `total_gib`.
    pub fn of(s: &Scenario, total_gib: f64) -> Self {
        let observed = s.engine.observed.as_ref().and_then(|o| o.cuda_graph_gib);
        let util = s.engine.gpu_memory_utilization;
        let mut out = GraphEstimate {
            applied_gib: 0.0,
            missing: false,
            notes: Vec::new(),
        };
        let Some((on, v)) = measured_and_applied(s) else {
            if observed.is_some() {
                out.notes.push(format!(
                    "engine.observed.cuda_graph_gib not used: this vLLM start-up ({}) measures no CUDA-graph \
                     estimate before the KV cache (vLLM ≥ 0.18 with CUDA graphs, not --kv-cache-memory-bytes)",
                    s.engine.release().label()
                ));
            }
            return out;
        };
        match (on, observed) {
            (true, Some(g)) => {
                out.applied_gib = g;
                let delta = g / total_gib;
                let round4 = |x: f64| (x * 1e4).round() / 1e4;
                out.notes.push(format!(
                    "vLLM: \"CUDA graph memory profiling is enabled (default since v0.21.0). The current \
                     --gpu-memory-utilization={util:.4} is equivalent to --gpu-memory-utilization={:.4} without \
                     CUDA graph memory profiling. To maintain the same effective KV cache size as before, \
                     increase --gpu-memory-utilization to {:.4}. To disable, set {VAR}=0.\" (the estimate \
                     {g:.2} GiB from engine.observed.cuda_graph_gib, subtracted from the KV budget)",
                    round4(util - delta),
                    round4(util + delta).min(1.0),
                ));
            }
            (true, None) => {
                out.missing = true;
                let why = if v >= [0, 20, 0] {
                    "on by default from vLLM 0.20.0"
                } else {
                    "engine.env sets it"
                };
                out.notes.push(format!(
                    "not included: vLLM's CUDA-graph memory estimate ({VAR}, {why}), which \
                     determine_available_memory subtracts from the KV budget; vLLM measures it by capturing \
                     graphs at start-up (profile_cudagraph_memory) and tpsim does not model it, so the KV \
                     cache here is larger by that estimate (0.17 GiB a rank in noonghunna/club-3090 issue 127, 0.36 GiB in gpustack/runner PR 251). Give \
                     the log's \"Estimated CUDA graph memory: X GiB total\" as engine.observed.cuda_graph_gib, \
                     or set engine.env.{VAR} = \"0\""
                ));
            }
            (false, _) => {
                if v >= [0, 20, 0] {
                    out.notes.push(format!(
                        "vLLM: \"CUDA graph memory profiling is disabled ({VAR}=0). Without it, CUDA graph \
                         memory is not accounted for during KV cache allocation, which may require lowering \
                         --gpu-memory-utilization to avoid OOM.\" (the estimate is not subtracted)"
                    ));
                }
                if observed.is_some() {
                    out.notes.push(format!(
                        "engine.observed.cuda_graph_gib not used: {VAR} is off, the estimate is not subtracted"
                    ));
                }
            }
        }
        out
    }
}
