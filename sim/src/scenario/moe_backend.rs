//! sm120decode (issues #18/#19): `engine.moe_backend`, the MoE kernel backend a deployment runs, which
//! picks the hardware's `[compute.moe_backends.<name>]` (a fixed cost per MoE layer over the
//! template). tpsim does not infer the engine's own choice: without the key every MoE layer costs what
//! the template says.
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
