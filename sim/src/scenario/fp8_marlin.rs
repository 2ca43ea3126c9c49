//! ampere62 (issue #17): vLLM's FP8 Marlin — an fp8 checkpoint served weight-only (fp8 weights
//! dequantized to fp16 / bf16 inside the Marlin kernel, activations in 16 bits).
//!
//! Read in the vLLM wheels: 0.11.0 `quantization/fp8.py` (`Fp8LinearMethod` and `Fp8MoEMethod`:
//! `use_marlin = not current_platform.has_device_capability(89) or envs.VLLM_TEST_FORCE_FP8_MARLIN`,
//! off on ROCm; the same test in `compressed_tensors_moe.py`); 0.24.0
//! `kernels/linear/scaled_mm/marlin.py` (`MarlinFP8ScaledMMLinearKernel.is_supported`: CUDA, and on
//! compute capability ≥ 89 only with `VLLM_TEST_FORCE_FP8_MARLIN`) and `fused_moe/oracle/fp8.py`
//! (`VLLM_TEST_FORCE_FP8_MARLIN` picks `Fp8MoeBackend.MARLIN`, `fused_marlin_moe`); `envs.py` (0.11.0,
//! 0.24.0): the variable is on for `"1"` / `"true"` (stripped, lower-cased), else off.
//! `marlin_utils_fp8.prepare_fp8_layer_for_marlin` logs "Your GPU does not have native support for
//! FP8 computation …" whenever it runs, forced or not.
//!
//! tpsim keeps the decision in [`super::Engine::fp8_marlin`]; the decode passes stream the dense
//! linears' fp8 weight bytes at Marlin's factor where bundled rows give one on the SM
//! (`tpsim_model::llm::w4a16_cost::fp8_marlin_factor`: SM 8.x, borrowed from the int4 kernel's A100
//! rows). Not modelled: the routed experts under `fused_marlin_moe` (no bundled row measures it: their
//! bytes keep the MoE class efficiency), and, when forced on SM ≥ 8.9, the FP8 tensor-core FLOPs and
//! activation-quantization kernels the forced path no longer runs (both said in a note).

use super::accel::GpuVendor;
use super::{Engine, EngineKind, Hardware};
use tpsim_model::llm::online_quant::FP8_TENSOR_CORE_SM;
use tpsim_model::llm::w4a16_cost;
use tpsim_model::llm::{ModelSpec, WeightDtype};

/// vLLM's variable that forces FP8 Marlin on GPUs with FP8 tensor cores (`envs.py`).
pub const VAR: &str = "VLLM_TEST_FORCE_FP8_MARLIN";

/// vLLM's warning when FP8 Marlin runs (`prepare_fp8_layer_for_marlin`, 0.11.0 and 0.24.0).
pub const WARNING: &str = "Your GPU does not have native support for FP8 computation but FP8 quantization \
     is being used. Weight-only FP8 compression will be used leveraging the Marlin kernel.";

/// `VLLM_TEST_FORCE_FP8_MARLIN` as vLLM's `envs.py` reads it: `"1"` or `"true"` after strip and
/// lower-case is on, anything else off.
pub fn force_var(raw: Option<&str>) -> bool {
    raw.is_some_and(|v| matches!(v.trim().to_lowercase().as_str(), "1" | "true"))
}

/// Whether vLLM serves `model`'s fp8 weights through Marlin on `hw` (module doc): vLLM on an
/// NVIDIA GPU, fp8 dense linears or routed experts, and compute capability below 8.9 or `forced`.
pub fn runs(model: &ModelSpec, kind: EngineKind, hw: &Hardware, forced: bool) -> bool {
    let q = &model.quantization;
    let fp8 = q.weights.dtype == WeightDtype::Fp8 || q.expert_format().dtype == WeightDtype::Fp8;
    let sm = tpsim_model::hw::sm_version(&hw.gpu.compute_capability);
    kind == EngineKind::Vllm
        && hw.accel.vendor == GpuVendor::Nvidia
        && fp8
        && (sm < FP8_TENSOR_CORE_SM || forced)
}

/// Sets [`Engine::fp8_marlin`] for `model` on `hw` and lists vLLM's warning and tpsim's kernel note
/// in `warnings` (the warning once: `--quantization fp8` lists it already).
pub fn apply(model: &ModelSpec, eng: &mut Engine, hw: &Hardware, warnings: &mut Vec<String>) {
    eng.fp8_marlin = runs(model, eng.kind, hw, eng.force_fp8_marlin);
    if !eng.fp8_marlin {
        if eng.force_fp8_marlin && eng.kind == EngineKind::Vllm {
            warnings.push(format!(
                "engine.env.{VAR}: set, but this checkpoint has no fp8 weights: nothing runs through FP8 Marlin"
            ));
        }
        return;
    }
    let version = eng.release().version;
    if !warnings
        .iter()
        .any(|w| w.contains("Weight-only FP8 compression will be used"))
    {
        warnings.push(format!("vLLM {version} logs: \"{WARNING}\""));
    }
    let sm = tpsim_model::hw::sm_version(&hw.gpu.compute_capability);
    let why = if sm < FP8_TENSOR_CORE_SM {
        format!("compute capability {sm} < 89")
    } else {
        format!("{VAR}=1")
    };
    let cost = match w4a16_cost::fp8_marlin_factor(sm, 1) {
        Some(f) => format!(
            "tpsim streams the dense linears' fp8 weights at {:.3} of the fp16 GEMM's efficiency at one row \
             (Marlin's int4 rows of SM {}, M {} to {}, borrowed: no FP8 Marlin benchmark on this SM is bundled; \
             tests/data/w4a16-kernels.tsv)",
            f.value, f.measured_sm, f.m_range[0], f.m_range[1]
        ),
        None => format!(
            "no benchmark of it on SM {sm} is bundled: the dense linears' fp8 weights stream at the fp8 format's \
             efficiency, and the FP8 tensor-core FLOPs and activation quantization of the native path are still \
             charged"
        ),
    };
    warnings.push(format!(
        "vLLM {version} runs the fp8 weights through FP8 Marlin ({why}): dense linears with \
         `apply_fp8_marlin_linear`, fp8 routed experts with `fused_marlin_moe` (their cost unmeasured: MoE class \
         efficiency); {cost}"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vLLM's `envs.py` reading: `"1"` / `"true"` in any case, padded, are on; `"yes"`, `"0"`, unset off.
    #[test]
    fn ampere62_force_var_as_vllm_reads_it() {
        assert!(force_var(Some("1")) && force_var(Some(" TRUE ")) && force_var(Some("true")));
        assert!(!force_var(Some("yes")) && !force_var(Some("0")) && !force_var(None));
    }
}
