//! dsv4run55 (issue #17): which DeepSeek-V4 deployments tpsim models (`Architecture::DeepseekV4`,
//! `tpsim_model::llm::deepseek_v4`): SGLang 0.5.12 – 0.5.23 (the releases whose pool configurator
//! `llm::deepseek_v4_pools` read; `sim::scenario::first_release` says 0.5.11 has no
//! `models/deepseek_v4.py`) on CUDA at plain tensor parallelism. The rest is refused, naming what is
//! missing (`deepseek_v4::NOT_MODELLED`).

use super::EngineKind;
use tpsim_model::llm::ModelSpec;
use tpsim_model::llm::deepseek_v4::NOT_MODELLED;
use tpsim_model::llm::deepseek_v4_pools::SglangDsv4Rule;

/// Printed with every DeepSeek-V4 scenario: its decode step's kernel counts are SGLang 0.5.16's except
/// the MoE's (`tpsim_model::llm::deepseek_v4_layer`, dsv4k56), its efficiencies assumed, and the one
/// public run compared — sglang pull 33109, SGLang 0.5.16 on 4× H200 TP 4, c 1,024, random 8,192 /
/// 1,024, P50 TPOT 123.81 ms under load — is 1.4× tpsim's P50 TPOT (88.92 ms; 1.7× before dsv4k57's Marlin
/// MoE ceiling on the H200) on its scenario
/// (scenarios/validation/deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c1024.toml, tests/tests/dsv4k56.rs:
/// a known miss, so the warning stays).
pub const UNVALIDATED_WARNING: &str = "DeepSeek-V4's decode step is an extrapolation: its kernel counts \
are SGLang 0.5.16's except the MoE's (dsv4k56) and its kernel efficiencies are assumed, not measured; the one \
public run compared (sglang pull 33109: SGLang 0.5.16, 4x H200 TP 4, c 1,024) measured a P50 TPOT 1.4x \
tpsim's; read the throughput as a lower bound on the step, not a prediction";

/// What a scenario sets that the per-architecture deployment checks read (DeepSeek-V4 here,
/// MiniMax-M3 in `scenario::minimax_m3`): built once in `engine.rs` and passed to both.
pub(super) struct Input<'a> {
    pub kind: EngineKind,
    /// The resolved release (`engine_release`).
    pub version: &'a str,
    pub rocm: bool,
    pub speculative: bool,
    pub dp_attention: bool,
    pub ep: bool,
    pub pp: u32,
}

/// `Err((key, message))` where tpsim does not model the deployment; `Ok` for any other model.
pub(super) fn check(model: &ModelSpec, i: &Input) -> Result<(), (&'static str, String)> {
    if model.deepseek_v4.is_none() {
        return Ok(());
    }
    let refuse = |key: &'static str, what: &str| Err((key, format!("{what}: {NOT_MODELLED}")));
    if i.kind == EngineKind::Vllm {
        return refuse(
            "engine.name",
            "DeepSeek-V4 under vLLM (from 0.20.0) is not modelled (use sglang, 0.5.12 - 0.5.23)",
        );
    }
    let v = crate::engine_args_versions::release(i.version).unwrap_or_default();
    if v >= vec![0, 5, 12] && SglangDsv4Rule::of(&v).is_none() {
        return refuse(
            "engine.version",
            &format!(
                "SGLang {} is past 0.5.23, the last release whose DSV4 pool sizing tpsim read",
                i.version
            ),
        );
    }
    if i.rocm {
        return refuse(
            "hardware.gpu",
            "DeepSeek-V4 on ROCm (aiter's e8m0 fp4 scales, the HIP unified pool)",
        );
    }
    if i.speculative {
        return refuse(
            "speculative",
            "DeepSeek-V4's MTP / DSpark drafts are not modelled",
        );
    }
    if i.dp_attention {
        return refuse(
            "engine.enable_dp_attention",
            "DeepSeek-V4 with DP attention is not modelled",
        );
    }
    if i.ep {
        return refuse(
            "engine.ep_size",
            "DeepSeek-V4 with expert parallelism is not modelled",
        );
    }
    if i.pp > 1 {
        return refuse(
            "engine.pp_size",
            "DeepSeek-V4 with pipeline stages is not modelled",
        );
    }
    Ok(())
}
