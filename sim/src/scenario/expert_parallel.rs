//! Issue #17: expert parallelism as each engine names it — SGLang's `--ep-size` and
//! `--moe-a2a-backend`, vLLM's `--enable-expert-parallel` — resolved to the EP size the MoE path
//! uses (`Engine::ep_size`: 1 or tp). `deepep` is resolved further in `scenario::moe_a2a`.

use super::{EngineKind, ScenarioError};
use tpsim_model::llm::{Ffn, ModelSpec};

/// SGLang 0.5.9 `server_args.py` `MOE_A2A_BACKEND_CHOICES`.
const SGLANG_A2A_BACKENDS: [&str; 6] = [
    "none",
    "deepep",
    "mooncake",
    "mori",
    "ascend_fuseep",
    "flashinfer",
];

/// The EP size the scenario asks for (before `engine::ep_size` checks it against tp and the model):
/// - SGLang: `ep_size` as given; `moe_a2a_backend` must be one of SGLang's names, and only `none`
///   (its default: the MoE output is all-reduced over the TP group) and `deepep` (ep_size = tp,
///   SGLang `_handle_a2a_moe`; the all-to-all in `scenario::moe_a2a`) are modelled — the other
///   backends are refused as not modelled;
/// - vLLM: `enable_expert_parallel` gives EP size = tp × dp = tp (vLLM 0.11
///   `layers/fused_moe/config.py` `FusedMoEParallelConfig.make`: `ep_size = tp_size` flattened over
///   dp). With dp = 1 `use_all2all_kernels` is false (it needs dp_size > 1), so the experts are
///   whole per rank and the MoE output is all-reduced: tpsim's `ep_size = tp` path. A dense model
///   has no FusedMoE layer, so vLLM ignores the flag there.
pub fn resolve(
    ep_size: Option<u32>,
    enable_expert_parallel: Option<bool>,
    moe_a2a_backend: Option<&str>,
    (kind, tp): (EngineKind, Option<u32>),
    model: &ModelSpec,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Option<u32>, ScenarioError> {
    match kind {
        EngineKind::Vllm => {
            if ep_size.is_some() {
                return Err(invalid(
                    "engine.ep_size",
                    "an SGLang setting (--ep-size): with vLLM use enable_expert_parallel = true (its EP size is tp × dp)"
                        .into(),
                ));
            }
            if moe_a2a_backend.is_some() {
                return Err(invalid(
                    "engine.moe_a2a_backend",
                    "an SGLang setting (--moe-a2a-backend): vLLM picks its all-to-all with VLLM_ALL2ALL_BACKEND, \
                     used only with data parallelism"
                        .into(),
                ));
            }
            let moe = model.layers.iter().any(|l| matches!(l, Ffn::Moe(_)));
            Ok((enable_expert_parallel.unwrap_or(false) && moe)
                .then_some(tp)
                .flatten())
        }
        EngineKind::Sglang => {
            if enable_expert_parallel.is_some() {
                return Err(invalid(
                    "engine.enable_expert_parallel",
                    "a vLLM setting (--enable-expert-parallel): with SGLang use ep_size".into(),
                ));
            }
            match moe_a2a_backend {
                None | Some("none") => Ok(ep_size),
                // Issue #17 point 1 (ep): DeepEP's all-to-all (`scenario::moe_a2a`); SGLang sets
                // ep_size = tp whatever was given (`_handle_a2a_moe`).
                Some("deepep") => Ok(tp),
                Some(b) if SGLANG_A2A_BACKENDS.contains(&b) => Err(invalid(
                    "engine.moe_a2a_backend",
                    format!(
                        "`{b}`: SGLang would set ep_size = tp and dispatch/combine tokens with an all-to-all; that \
                         path is not modelled yet (only \"none\", the allreduce path)"
                    ),
                )),
                Some(b) => Err(invalid(
                    "engine.moe_a2a_backend",
                    format!(
                        "`{b}`: expected one of SGLang's {}",
                        SGLANG_A2A_BACKENDS.join(", ")
                    ),
                )),
            }
        }
    }
}
