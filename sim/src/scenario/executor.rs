//! args58 (issue #17, cmdsurvey57 row 139): vLLM's distributed executor when the ranks span boxes.
//!
//! - vLLM 0.11.x: `arg_utils.py` has no `--nnodes`; a multi-node launch is a Ray cluster
//!   (`engine_args_nodes`).
//! - vLLM 0.12.0 on (`config/parallel.py` `ParallelConfig.__post_init__`, 0.12.0 – 0.34.0): with
//!   `--nnodes N` > 1 on CUDA the default backend is `mp` (one `vllm serve` per node, the others
//!   `--headless`: 0.12.0 `entrypoints/cli/serve.py` `run_headless`), and `nnodes > 1` with any backend
//!   but `mp` / `uni` is refused ("nnodes > 1 can only be set when distributed executor backend is mp
//!   or uni."). Without `--nnodes` a world larger than the node's GPUs needs `--distributed-executor-backend
//!   ray` (else "Tensor parallel size (…) cannot be larger than the number of available GPUs (…)").
//! - Async scheduling (`cuda_graphs::resolve_async`) is turned off for `ray` only (0.14.0 – 0.19.0
//!   `config/vllm.py`: `mp`, `uni` and `external_launcher` support it), so an `mp` multi-node launch keeps it.

use super::{EngineKind, Resolver, ScenarioError};

const KEY: &str = "engine.distributed_executor_backend";

impl Resolver<'_> {
    /// Whether `engine.distributed_executor_backend` asks for vLLM's `mp` executor across boxes
    /// (`spans_boxes`); `ray` or unset: the Ray cluster. Refused for SGLang, for a value tpsim does
    /// not model, and for `mp` across boxes before vLLM 0.12.0 (no `--nnodes`).
    pub(super) fn executor_backend(
        &self,
        kind: EngineKind,
        version: &str,
        given: Option<&str>,
        spans_boxes: bool,
    ) -> Result<bool, ScenarioError> {
        let Some(b) = given else {
            return Ok(false);
        };
        if kind == EngineKind::Sglang {
            return Err(self.invalid(
                KEY,
                "a vLLM flag; SGLang places the ranks with --nnodes/--node-rank/--dist-init-addr".to_string(),
            ));
        }
        match b {
            "ray" => Ok(false),
            "mp" => {
                let before_nnodes = crate::engine_args_versions::release(version).is_some_and(|r| r < vec![0, 12]);
                if spans_boxes && before_nnodes {
                    return Err(self.invalid(
                        KEY,
                        format!(
                            "\"mp\" across boxes: vLLM {version} has no --nnodes (tests/data/engine-args/vllm-0.11.0.txt; \
                             added in 0.12.0, vllm-0.12.0.txt); its multi-node launch is a Ray cluster (\"ray\")"
                        ),
                    ));
                }
                Ok(true)
            }
            other => Err(self.invalid(
                KEY,
                format!("\"{other}\": expected \"mp\" or \"ray\" (\"uni\" and \"external_launcher\" are not modelled)"),
            )),
        }
    }
}
