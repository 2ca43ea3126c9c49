//! sm120decode (issues #18/#19): `engine.moe_backend`, the MoE kernel backend a deployment runs, which
//! picks the hardware's `[compute.moe_backends.<name>]` (a fixed cost per MoE layer over the
//! template). Without the key the engine's own choice is used where tpsim has read it for the release
//! simulated ([`engine_default`], moedefault); elsewhere every MoE layer costs what the template says.
//!
//! Names, as the engines spell them: SGLang's `--moe-runner-backend` choices (`server_args.py`
//! `MOE_RUNNER_BACKEND_CHOICES`, sgl-project/sglang main of 2026: auto, deep_gemm, triton, triton_kernel,
//! flashinfer_trtllm, experimental_sgl_trtllm, flashinfer_trtllm_routed, flashinfer_cutlass,
//! flashinfer_mxfp4, flashinfer_cutedsl, cutlass, aiter, marlin, humming, experimental_sgl_marlin,
//! hpc_ops, megamoe, intel_xpu); vLLM's NVFP4 MoE backends lower-cased (`fused_moe/oracle/nvfp4.py`
//! `NvFp4MoeBackend`: flashinfer_trtllm, flashinfer_cutedsl, flashinfer_cutlass, vllm_cutlass, marlin);
//! and `b12x`, the community SM 12.0 MoE kernels (lukealonso/b12x) that
//! `voipmonitor/sglang:cu130` runs with `--moe-runner-backend b12x` (local-inference-lab/rtx6kpro
//! models/qwen35-397b.md) and later vLLM/FlashInfer builds wrap (FlashInfer `B12xMoEWrapper`).

/// Every name `engine.moe_backend` and `[compute.moe_backends.<name>]` accept.
pub const MOE_BACKENDS: &[&str] = &[
    "auto",
    "deep_gemm",
    "triton",
    "triton_kernel",
    "flashinfer_trtllm",
    "experimental_sgl_trtllm",
    "flashinfer_trtllm_routed",
    "flashinfer_cutlass",
    "flashinfer_mxfp4",
    "flashinfer_cutedsl",
    "cutlass",
    "aiter",
    "marlin",
    "humming",
    "experimental_sgl_marlin",
    "hpc_ops",
    "megamoe",
    "intel_xpu",
    "vllm_cutlass",
    "b12x",
];

/// The MoE kernel backend the engine picks itself when `engine.moe_backend` is not set, for the
/// release simulated (`version`, from `crate::engine_release`), the GPU's compute capability
/// (`"12.0"`) and the routed experts' weight type; `None` where tpsim has not read the engine's rule
/// for that case, or where the engine's pick has no name in [`MOE_BACKENDS`] (then the template's
/// cost applies, as without a backend). Read from the engines' code:
///
/// - vLLM 0.17.x–0.19.x, NVFP4 experts, SM 12.x → `flashinfer_cutlass`. vLLM 0.17.0, 0.18.0 and
///   0.19.0 (PyPI wheels; the function is the same in the three)
///   `model_executor/layers/fused_moe/oracle/nvfp4.py` `select_nvfp4_moe_backend`, with
///   `--moe-backend auto` and neither `VLLM_USE_FLASHINFER_MOE_FP4` nor `VLLM_TEST_FORCE_FP8_MARLIN`
///   set, takes the first of FLASHINFER_TRTLLM, FLASHINFER_CUTEDSL, FLASHINFER_CUTLASS, VLLM_CUTLASS,
///   MARLIN whose kernel supports the device: `experts/trtllm_nvfp4_moe.py` and
///   `flashinfer_cutedsl_moe.py` (0.19.0: `experts/`) `_supports_current_device` need the SM 10.x
///   family;
///   `flashinfer_cutlass_moe.py` `FlashInferExperts` takes SM 9.0 and the 10.x/11.x/12.x families and
///   nvfp4 weights with nvfp4 activations from SM 10.0 up (`_supports_quant_scheme`). tpsim assumes
///   FlashInfer is installed (it is a dependency of the vLLM wheel) and W4A4 NVFP4 (modelopt).
/// - vLLM other releases, other GPUs: not established here (releases before 0.17 and after 0.19 not
///   read — 0.11/0.12 chose in `quantization/modelopt.py` by other rules, and main of 2026 adds
///   FLASHINFER_CUTEDSL_BATCHED and B12X to the oracle; on SM 10.x the TRT-LLM kernels' routing and
///   activation checks are not modelled) → `None`.
/// - SGLang 0.5.8 and 0.5.9, NVFP4 (`modelopt_fp4`) on SM 12.x → `None`: `server_args.py` keeps
///   `--moe-runner-backend auto` off SM 10.x (its model-specific rules set `flashinfer_trtllm` only
///   under `is_sm100_supported()`; 0.5.9 lists Qwen3.5 among them), and with `auto`
///   `ModelOptNvFp4FusedMoEMethod.apply` (`layers/quantization/modelopt_quant.py`) runs sgl-kernel's
///   `cutlass_moe_fp4`, not FlashInfer's kernel: no `[compute.moe_backends]` entry measures it.
pub fn engine_default(
    kind: super::EngineKind,
    version: &str,
    compute_capability: &str,
    experts: tpsim_model::llm::WeightDtype,
) -> Option<&'static str> {
    let release = crate::engine_args_versions::release(version)?;
    let sm = tpsim_model::hw::sm_major(compute_capability);
    let nvfp4 = experts == tpsim_model::llm::WeightDtype::Nvfp4;
    match kind {
        super::EngineKind::Vllm
            if release.len() >= 2
                && release[0] == 0
                && (17..=19).contains(&release[1])
                && nvfp4
                && sm == 12 =>
        {
            Some("flashinfer_cutlass")
        }
        _ => None,
    }
}

/// `name` if it is one of [`MOE_BACKENDS`], else what was expected.
pub fn check(name: String) -> Result<String, String> {
    if MOE_BACKENDS.contains(&name.as_str()) {
        Ok(name)
    } else {
        Err(format!(
            "`{name}` is not a MoE kernel backend: expected one of {}",
            MOE_BACKENDS.join(", ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::EngineKind::{Sglang, Vllm};
    use tpsim_model::llm::WeightDtype::{Bf16, Fp8, Nvfp4};

    /// vLLM 0.17.0 / 0.18.0 / 0.19.0 `fused_moe/oracle/nvfp4.py`: on SM 12.0 (RTX PRO 6000, "12.0")
    /// and SM 12.x the FLASHINFER_TRTLLM and FLASHINFER_CUTEDSL kernels refuse the device (SM 10.x
    /// family only) and FLASHINFER_CUTLASS is the first that takes it; `0.19.1` is the same minor.
    #[test]
    fn vllm_0_17_to_0_19_nvfp4_on_sm120_picks_flashinfer_cutlass() {
        for v in ["0.17.0", "0.18.0", "0.19.0", "0.19.1"] {
            assert_eq!(
                engine_default(Vllm, v, "12.0", Nvfp4),
                Some("flashinfer_cutlass"),
                "{v}"
            );
        }
        assert_eq!(
            engine_default(Vllm, "0.19.0", "12.1", Nvfp4),
            Some("flashinfer_cutlass")
        );
    }

    /// Not read: other vLLM releases (0.11/0.12 chose in `quantization/modelopt.py`; 0.16, 0.20 and
    /// 0.33.0 not checked), SM 10.x (TRT-LLM kernel's routing checks not modelled), other expert formats (the
    /// NVFP4 oracle only), unreadable versions.
    #[test]
    fn vllm_outside_the_read_rule_has_no_default() {
        assert_eq!(engine_default(Vllm, "0.12.0", "12.0", Nvfp4), None);
        assert_eq!(engine_default(Vllm, "0.16.0", "12.0", Nvfp4), None);
        assert_eq!(engine_default(Vllm, "0.20.0", "12.0", Nvfp4), None);
        assert_eq!(engine_default(Vllm, "0.33.0", "12.0", Nvfp4), None);
        assert_eq!(engine_default(Vllm, "0.19.0", "10.0", Nvfp4), None);
        assert_eq!(engine_default(Vllm, "0.19.0", "9.0", Nvfp4), None);
        assert_eq!(engine_default(Vllm, "0.19.0", "12.0", Fp8), None);
        assert_eq!(engine_default(Vllm, "0.19.0", "12.0", Bf16), None);
        assert_eq!(engine_default(Vllm, "main", "12.0", Nvfp4), None);
    }

    /// SGLang 0.5.8 / 0.5.9 `server_args.py` keep `--moe-runner-backend auto` on SM 12.0, and with
    /// `auto` `modelopt_quant.py` runs sgl-kernel's `cutlass_moe_fp4`: no named backend to cost.
    #[test]
    fn sglang_nvfp4_on_sm120_stays_on_the_template() {
        assert_eq!(engine_default(Sglang, "0.5.8", "12.0", Nvfp4), None);
        assert_eq!(engine_default(Sglang, "0.5.9", "12.0", Nvfp4), None);
    }

    #[test]
    fn known_names_pass_and_others_name_the_choices() {
        assert_eq!(check("flashinfer_cutlass".into()).unwrap(), "flashinfer_cutlass");
        assert_eq!(check("b12x".into()).unwrap(), "b12x");
        let e = check("cutlas".into()).unwrap_err();
        assert!(
            e.contains("`cutlas`") && e.contains("flashinfer_cutlass, flashinfer_mxfp4"),
            "{e}"
        );
    }
}
