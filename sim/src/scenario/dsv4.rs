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
    /// dsv4_64: the tensor-parallel size, the MoE runner as given (`engine.moe_backend`, `None`
    /// auto) and the GPU's SM major, for the routed experts' width rule ([`routed_expert_rule`]).
    pub tp: u32,
    pub moe_backend: Option<&'a str>,
    pub sm: u32,
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
    // dsv4_64: SGLang's own refusal of the routed experts' width comes before what tpsim leaves out.
    if !i.ep
        && let Err(m) = routed_expert_rule(model, i.tp, i.moe_backend, &v, i.sm)
    {
        return Err(("engine.tp", m));
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

/// dsv4_64: SGLang's environment variable that builds the shared expert at tp 1 (module
/// `tpsim_model::llm::deepseek_v4`, `Geometry::shared_expert_tp1`); an `EnvBool` in `environ.py`
/// of 0.5.12 – 0.5.23 (not in 0.5.9's).
pub(super) const SHARED_TP1_VAR: &str = "SGLANG_SHARED_EXPERT_TP1";

/// dsv4_64: reads `SGLANG_SHARED_EXPERT_TP1` (`raw`, taken out of `[engine.env]`) into a
/// DeepSeek-V4 model served by SGLang; the note says where it is not read. SGLang's `EnvBool.parse`:
/// true / 1 / yes / y, false / 0 / no / n, any case; anything else `EnvField.get` warns about
/// and reads the default (off).
pub(super) fn read_shared_expert_tp1(
    model: &mut ModelSpec,
    kind: EngineKind,
    raw: Option<&str>,
) -> Option<String> {
    let raw = raw?;
    let on = match raw.to_lowercase().as_str() {
        "true" | "1" | "yes" | "y" => true,
        "false" | "0" | "no" | "n" => false,
        _ => {
            return Some(format!(
                "engine.env.{SHARED_TP1_VAR}: \"{raw}\" is not a valid boolean value: SGLang warns and keeps the \
                 default (off)"
            ));
        }
    };
    match (&mut model.deepseek_v4, kind) {
        (Some(g), EngineKind::Sglang) => {
            g.shared_expert_tp1 = on;
            None
        }
        (_, EngineKind::Vllm) => Some(format!(
            "engine.env.{SHARED_TP1_VAR}: an SGLang variable; vLLM ignores it"
        )),
        (None, _) => Some(format!(
            "engine.env.{SHARED_TP1_VAR}: tpsim reads it for DeepSeek-V4 only (SGLang also keeps DeepSeek-V2/V3's \
             shared expert whole with it, not modelled); ignored"
        )),
    }
}

/// dsv4_64: the width rule of the method SGLang builds DeepSeek-V4's routed experts with (0.5.12 –
/// 0.5.23 `layers/quantization/fp8.py` `Fp8Config.get_quant_method`), at `tp` (no expert
/// parallelism: refused in [`check`]); `moe_backend` as the scenario gives it (`None`: auto), `sm`
/// the GPU's SM major. `Err` is the engine's ValueError text.
/// - fp4 experts with `--moe-runner-backend marlin`: `Mxfp4MarlinMoEMethod.create_weights`
///   checks no width (fp4 blocks of 32 inputs).
/// - fp4 experts under `flashinfer_mxfp4` (given, or the model override's pick for auto:
///   `ExpertFormat::sglang_cuda_by_release`) on SM 9.0 / 12.0: `Mxfp4FlashinferCutlassMoEMethod`
///   requires hidden and the width a rank multiples of 128; on SM 10.0 the TRT-LLM method checks none.
/// - otherwise `Fp8MoEMethod.create_weights` with block quantization: the width a rank must be a
///   multiple of `block_n` (and of `block_k` at tp > 1; both 128 in DeepSeek-V4's config).
///
/// Pro (3,072 wide) at tp 16: 192 a rank: marlin and TRT-LLM accept it, the others refuse
/// (192 % 128 = 64).
pub(super) fn routed_expert_rule(
    model: &ModelSpec,
    tp: u32,
    moe_backend: Option<&str>,
    release: &[u64],
    sm: u32,
) -> Result<(), String> {
    use tpsim_model::llm::deepseek_v4_weights::ExpertFormat;
    let Some(g) = &model.deepseek_v4 else {
        return Ok(());
    };
    let t = u64::from(tp.max(1));
    if !g.expert_width.is_multiple_of(t) {
        return Ok(()); // `validate_parallel` names it
    }
    let w = g.expert_width / t;
    let backend = match moe_backend {
        None | Some("auto")
            if ExpertFormat::sglang_cuda_by_release(g, release, sm) == ExpertFormat::Fp4E8m0Scales =>
        {
            "flashinfer_mxfp4"
        }
        None => "auto",
        Some(b) => b,
    };
    if g.fp4_experts && backend == "marlin" {
        return Ok(());
    }
    if g.fp4_experts && backend == "flashinfer_mxfp4" {
        if sm == 10 || (g.hidden.is_multiple_of(128) && w.is_multiple_of(128)) {
            return Ok(());
        }
        return Err(format!(
            "Mxfp4FlashinferCutlassMoEMethod requires hidden_size and intermediate_size_per_partition to be \
             multiples of 128 (got hidden={}, intermediate={w}). (SGLang mxfp4_flashinfer_cutlass_moe.py, the \
             flashinfer_mxfp4 MoE runner on SM {sm}.0)",
            g.hidden
        ));
    }
    let q = model.quantization.weights;
    let Some(n) = q
        .block_size
        .filter(|_| q.dtype == tpsim_model::llm::WeightDtype::Fp8)
        .map(|[n, _]| u64::from(n))
    else {
        return Ok(());
    };
    if n > 0 && !w.is_multiple_of(n) {
        return Err(format!(
            "The output_size of gate's and up's weight = {w} is not divisible by weight quantization block_n = {n}. \
             (SGLang fp8.py Fp8MoEMethod.create_weights, the {backend} MoE runner; fp4 experts need \
             `--moe-runner-backend marlin` at this tp)"
        ));
    }
    Ok(())
}
