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
/// - vLLM 0.11.x–0.19.x, bf16 / fp16 experts, SM 10.x → `None` (the triton fused MoE, the
///   template's; sm100moe). vLLM 0.11.0 (`fused_moe/layer.py` `UnquantizedFusedMoEMethod`), 0.13.0
///   (`fused_moe/unquantized_fused_moe_method.py`) and 0.15.1, 0.17.0, 0.19.0
///   (`fused_moe/oracle/unquantized.py` `select_unquantized_moe_backend`, PyPI wheels): FlashInfer's
///   CUTLASS MoE only with `VLLM_USE_FLASHINFER_MOE_FP16=1` and expert parallelism, its TRT-LLM
///   bf16 MoE (0.17.0 on) only with that and `VLLM_FLASHINFER_MOE_BACKEND=latency`; `envs.py`
///   defaults the flag to 0 in all five, so `UnquantizedMoeBackend.TRITON` ("Using TRITON backend
///   for Unquantized MoE", 0.15.1 on). fp8 experts on SM 10.x: not established (0.13.0
///   `quantization/fp8.py` `get_fp8_moe_backend`: FlashInfer only with `VLLM_USE_FLASHINFER_MOE_FP8`
///   (default 0), then DeepGEMM for block-FP8 when installed and TP < 8 unless
///   `VLLM_MOE_USE_DEEP_GEMM` is set, else CUTLASS's SM100 block-scaled grouped GEMM: which
///   applies depends on the image).
/// - vLLM other releases, other GPUs: not established here (releases before 0.17 and after 0.19 not
///   read — 0.11/0.12 chose in `quantization/modelopt.py` by other rules, and main of 2026 adds
///   FLASHINFER_CUTEDSL_BATCHED and B12X to the oracle; on SM 10.x the TRT-LLM kernels' routing and
///   activation checks are not modelled) → `None`.
/// - SGLang 0.5.8 and 0.5.9, NVFP4 (`modelopt_fp4`) on SM 12.x → `None`: `server_args.py` keeps
///   `--moe-runner-backend auto` off SM 10.x (its model-specific rules set `flashinfer_trtllm` only
///   under `is_sm100_supported()`; 0.5.9 lists Qwen3.5 among them), and with `auto`
///   `ModelOptNvFp4FusedMoEMethod.apply` (`layers/quantization/modelopt_quant.py`) runs sgl-kernel's
///   `cutlass_moe_fp4`, not FlashInfer's kernel: no `[compute.moe_backends]` entry measures it. On
///   SM 10.x that path is named `cutlass` where the checkpoint's config.json declares `modelopt`
///   ([`sglang_sm100`], b200sgl54); SM 12.x is left as it was.
/// - vLLM 0.15.x, MXFP4 experts (gpt-oss), SM 9.0 → `triton_kernel` (issue #18, gptoss). vLLM 0.15.1
///   (PyPI wheel) `model_executor/layers/quantization/mxfp4.py` `get_mxfp4_backend`: on SM 9.0 the
///   FlashInfer MXFP4 BF16 kernel is taken only with `VLLM_USE_FLASHINFER_MOE_MXFP4_BF16=1` (`envs.py`
///   default 0); then Marlin only with `VLLM_MXFP4_USE_MARLIN` set or without triton_kernels, which
///   the wheel vendors (`vllm/third_party/triton_kernels`, `utils/import_utils.py`
///   `has_triton_kernels`), so `Mxfp4Backend.TRITON`: OpenAI's triton_kernels `matmul_ogs`, the
///   library SGLang's `--moe-runner-backend triton_kernel` also runs, hence the name. Other releases
///   (0.19 moved the choice to `fused_moe/oracle/mxfp4.py`) and other GPUs: not read → `None`.
/// - vLLM 0.14.x, the same (tritonw): vllm#33155's 0.14.1 start-up of gpt-oss-120b on one H100 with
///   the default environment logs `mxfp4.py:165 Using Triton backend` (tests/data/engine-memory.tsv
///   line 63); the rule as read in a library copy of `quantization/mxfp4.py` of that era (Marlin only
///   with `VLLM_MXFP4_USE_MARLIN`, SM < 9, no triton_kernels or torch < 2.8.0). vLLM 0.10.1 (torch
///   2.7.1) took Marlin on the same card (line 61's `marlin_utils_fp4` warning): below.
/// - vLLM 0.12.x–0.13.x, MXFP4 experts, SM 9.0 → `triton_kernel` (gptoss11). vLLM 0.12.0 and 0.13.0
///   (PyPI wheels, torch 2.9.0) `quantization/mxfp4.py` `get_mxfp4_backend`: FlashInfer on SM 9.0 only
///   with `VLLM_USE_FLASHINFER_MOE_MXFP4_BF16`; then TRITON when `has_triton_kernels()`, torch ≥ 2.8.0
///   and `(9, 0) <= capability < (11, 0)`, unless `VLLM_MXFP4_USE_MARLIN` (`envs.py` default `None`).
///   Both wheels vendor triton_kernels (`vllm/third_party/triton_kernels`, vllm PR 28788, merged
///   2025-11-18; `utils/import_utils.py` `has_triton_kernels` falls back to it). The layout branch
///   (`create_weights` `round_up(intermediate, 64)`, `_swizzle_mxfp4` with 8 warps) and the
///   `triton_kernel_moe_forward` path (`routing()`, two `matmul_ogs`) are 0.15.1's.
/// - vLLM 0.11.x, MXFP4 experts, SM 9.0 → `marlin` (gptoss11). vLLM 0.11.0 (PyPI wheel, `Requires-Dist:
///   torch==2.8.0`) and 0.11.2 (torch 2.9.0) `quantization/mxfp4.py` `get_mxfp4_backend`: after the
///   FlashInfer branches (SM 9.0 only with `VLLM_USE_FLASHINFER_MOE_MXFP4_BF16`), MARLIN when
///   `get_device_capability()[0] < 9 or not has_triton_kernels() or not is_torch_equal_or_newer(
///   "2.8.0")`. `has_triton_kernels()` (0.11.0 `utils/__init__.py`, 0.11.2 `utils/import_utils.py`)
///   looks for a `triton_kernels` module only: neither wheel vendors it (no `vllm/third_party/
///   triton_kernels`) nor requires it (no `Requires-Dist` of it; vllm issue 27672, 2025-10-28: "users
///   will have to install `triton_kernels` manually"), so a stock install runs Marlin, as 0.10.x's.
///   GPUStack's vLLM 0.11.0 image (gpustack/runner `pack/cuda/Dockerfile` at 9063cc7, 2025-10-29:
///   torch 2.8.0, `uv pip install vllm==0.11.0`, FlashInfer 0.3.1 built from source) installs no
///   triton_kernels (no version of that file names it). Marlin's layout is the preset's padding.
///   0.11.1 was not read: it lies between two wheels with the same rule.
/// - vLLM 0.11.x–0.13.x, MXFP4 experts, SM 8.x (A100, RTX 30/40) and SM 12.x → `marlin`
///   (gptoss11): 0.11's `capability[0] < 9` and 0.12/0.13's `(9, 0) <= capability < (11, 0)` send
///   both to Marlin (no FlashInfer branch names them), as vllm issue 31085 (0.13.0 on an RTX PRO 6000:
///   `mxfp4.py:161 Using Marlin backend`) and issue 30135 (0.12.0, the same card) log. SM 10.x runs
///   FlashInfer's SM100 MXFP4 kernel there (FlashInfer assumed installed, as above; not named) → `None`.
/// - vLLM 0.10.x, MXFP4 experts, SM 9.0 → `marlin` (gptoss). vLLM 0.10.2 (PyPI wheel)
///   `quantization/mxfp4.py` `get_mxfp4_backend`: FlashInfer's SM 9.0 kernel only with
///   `VLLM_USE_FLASHINFER_MOE_MXFP4_BF16`, then Marlin when triton_kernels is not importable or torch
///   is older than 2.8.0. The 0.10.x wheels neither vendor nor require triton_kernels (vllm PR 27370,
///   merged 2025-10-22, made it a dependency: "users have to install triton_kernels manually"), so a
///   stock install runs Marlin, as vLLM 0.10.1's start-up on one H100 logs (engine-memory.tsv line
///   61's `marlin_utils_fp4` warning). Marlin's MoE layer launches the template's 8 kernels and is
///   laid out with the preset's padding, so the pick costs what the template does.
/// - vLLM 0.17.x (ROCm), MXFP4 experts, gfx942 (`"9.4"`: MI300X, MI325X) → `triton_kernel`
///   (gptoss). vLLM 0.17.0 (PyPI wheel) `quantization/mxfp4.py` `get_mxfp4_backend` on ROCm: AITER's
///   CK MXFP4 MoE only on gfx950 (`rocm_aiter_ops.is_enabled() and on_gfx950()`), else
///   `Mxfp4Backend.TRITON` when triton_kernels is importable, which vLLM's ROCm image builds for
///   gpt-oss on MI300X (ROCm/vllm PR 637, "add triton-kernels build for gpt-oss in ROCm base
///   Dockerfile"). gfx950 (`"9.5"`) with AITER runs CK, which no entry costs → `None`.
pub fn engine_default(
    kind: super::EngineKind,
    version: &str,
    compute_capability: &str,
    experts: tpsim_model::llm::WeightDtype,
) -> Option<&'static str> {
    let release = crate::engine_args_versions::release(version)?;
    let sm = tpsim_model::hw::sm_major(compute_capability);
    let nvfp4 = experts == tpsim_model::llm::WeightDtype::Nvfp4;
    let mxfp4 = experts == tpsim_model::llm::WeightDtype::Mxfp4;
    let vllm_minor =
        |m: std::ops::RangeInclusive<u64>| release.len() >= 2 && release[0] == 0 && m.contains(&release[1]);
    match kind {
        super::EngineKind::Vllm if vllm_minor(10..=11) && mxfp4 && compute_capability == "9.0" => {
            Some("marlin")
        }
        super::EngineKind::Vllm if vllm_minor(12..=13) && mxfp4 && compute_capability == "9.0" => {
            Some("triton_kernel")
        }
        super::EngineKind::Vllm if vllm_minor(11..=13) && mxfp4 && (sm == 8 || sm == 12) => Some("marlin"),
        super::EngineKind::Vllm if vllm_minor(17..=17) && mxfp4 && compute_capability == "9.4" => {
            Some("triton_kernel")
        }
        super::EngineKind::Vllm
            if release.len() >= 2
                && release[0] == 0
                && (14..=15).contains(&release[1])
                && mxfp4
                && compute_capability == "9.0" =>
        {
            Some("triton_kernel")
        }
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

/// What SGLang holds in `ServerArgs.quantization` when its model-specific MoE rules run on SM 10.x,
/// as far as tpsim can tell it from the checkpoint (sm100moe). The rules read `self.quantization`,
/// else the checkpoint's `quantization_config.quant_method` (`get_quantization_config(hf_config)`,
/// 0.5.8 `utils/common.py`; 0.5.6 reads the same key inline).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SglQuantization {
    /// No `quantization_config`: a bf16 / fp16 / fp32 checkpoint and no `--quantization` (`None`).
    Unquantized,
    /// `quant_method = "fp8"` with `weight_block_size` (DeepSeek-V3/R1, Qwen3-*-FP8, MiniMax-M2):
    /// tpsim's fp8 with a `block_size` and no engine-side quantization. Assumed: a block-FP8
    /// checkpoint is an `fp8` one (compressed-tensors can also store 128×128 blocks; none bundled).
    Fp8,
    /// b200sgl54: NVFP4 routed experts in a checkpoint whose config.json declares `quant_method =
    /// "modelopt"` (ModelOpt's unified `quantization_config`: nvidia/Kimi-K2.5-NVFP4). The rules
    /// receive "modelopt" as is (`get_quantization_config`, 0.5.9 `utils/common.py`) and test for
    /// "modelopt_fp4" only, so no rule fires ([`sglang_sm100`]).
    ModeloptNvfp4,
    /// b200sgl54: NVFP4 routed experts served with `--quantization modelopt_fp4` (`engine.quantization`),
    /// the name the rules test.
    ModeloptFp4,
    /// Anything else (per-tensor / per-channel fp8, compressed-tensors, ModelOpt NVFP4 whose
    /// `hf_quant_config.json` the rules do not read, int4, MXFP4, online quantization): the rules'
    /// outcome is not established here.
    Unread,
}

/// [`SglQuantization`] of a model's quantization description; `declared` is what SGLang holds in
/// `self.quantization`: `--quantization` when given, else the `quant_method` of the checkpoint's
/// config.json, lower-cased (`None` without a `quantization_config` there).
pub fn sglang_quantization(q: &tpsim_model::llm::Quantization, declared: Option<&str>) -> SglQuantization {
    use tpsim_model::llm::WeightDtype as D;
    let plain = |f: tpsim_model::llm::WeightFormat| matches!(f.dtype, D::Bf16 | D::Fp16 | D::Fp32);
    let e = q.expert_format();
    if q.online.is_some() {
        SglQuantization::Unread
    } else if plain(q.weights) && plain(e) {
        SglQuantization::Unquantized
    } else if e.dtype == D::Fp8 && e.block_size.is_some() {
        SglQuantization::Fp8
    } else if e.dtype == D::Nvfp4 && declared == Some("modelopt") {
        SglQuantization::ModeloptNvfp4
    } else if e.dtype == D::Nvfp4 && declared == Some("modelopt_fp4") {
        SglQuantization::ModeloptFp4
    } else {
        SglQuantization::Unread
    }
}

/// SGLang's own MoE runner pick on SM 10.x (B200, B300, GB200: `is_sm100_supported()`, compute
/// capability major 10 and CUDA ≥ 12.8, 0.5.6 / 0.5.8 `utils/common.py`) with `--moe-runner-backend
/// auto` and no `--moe-a2a-backend` (`a2a`: DeepEP/Mooncake; every rule below needs
/// `moe_a2a_backend == "none"`), read in `srt/server_args.py`
/// (`_handle_model_specific_adjustments`; 0.5.2 `model_specific_adjustments`) of the PyPI wheels
/// 0.5.2, 0.5.3, 0.5.4, 0.5.5, 0.5.6, 0.5.6.post1, 0.5.7, 0.5.8 and 0.5.9 (sm100moe). `None`:
/// `auto`, which for bf16 / fp16 and fp8 experts without DeepEP runs the triton fused MoE
/// (`Fp8MoEMethod.create_moe_runner`: `auto` → `MoeRunnerBackend.TRITON` unless DeepGEMM with
/// DeepEP/Mooncake, 0.5.8 `layers/quantization/fp8.py`) — the template's kernels and the path
/// that reads the tuned-config table (`scenario::moe_configs`) — or a case not read. Per
/// architecture (`hf_config.architectures[0]`):
///
/// - `Qwen3MoeForCausalLM`, `Qwen3VLMoeForConditionalGeneration`, `Qwen3NextForCausalLM`:
///   0.5.6, 0.5.6.post1, 0.5.7 → `flashinfer_trtllm` for `quantization in ("fp8", "modelopt_fp4")`
///   only (bf16 stays `auto`: triton); 0.5.8, 0.5.9 → `flashinfer_trtllm` also for
///   `quantization is None` (bf16). 0.5.2–0.5.5 have no rule for them. Logs
///   "Use flashinfer_trtllm as MoE runner backend on sm100 for Qwen3MoeForCausalLM" (the
///   architecture's name; Qwen3-Next: "… for Qwen3NextForCausalLM").
/// - `Qwen3_5MoeForConditionalGeneration` (tpsim's `Qwen35Moe`): 0.5.9 lists it with Qwen3-Next
///   (fp8 or bf16 → `flashinfer_trtllm`); 0.5.8 has no rule. tpsim does not tell the text-only
///   `Qwen3_5MoeForCausalLM` (not in the list) apart; every bundled preset is the former.
/// - `DeepseekV3ForCausalLM` (DeepSeek-V3/R1, Kimi-K2): 0.5.5–0.5.9 → `flashinfer_trtllm` for
///   `quantization in ["fp8", "modelopt_fp8", "modelopt_fp4"]` ("Use flashinfer_trtllm as MoE
///   runner backend on sm100 for DeepseekV3ForCausalLM"); 0.5.4 for `modelopt_fp4` only (not
///   named: NVFP4 is [`SglQuantization::Unread`]). A bf16 DeepSeek checkpoint is quantized to fp8
///   by the engine there ("Quantization not specified, default to fp8 for DeepSeek on sm100"):
///   not modelled (`None`).
/// - `Llama4ForConditionalGeneration`: 0.5.5–0.5.9 → `flashinfer_trtllm` for `fp8` /
///   `modelopt_fp8` ("Use flashinfer_trtllm as MoE runner backend on SM100 for Llama4").
/// - `GptOssForCausalLM` with MXFP4 experts (`quant_method == "mxfp4"`): 0.5.2–0.5.9 →
///   `flashinfer_mxfp4` ("Detected SM100 and MXFP4 quantization format for GPT-OSS model, enabling
///   FlashInfer MXFP4 MOE kernel."; 0.5.9: "Detected Blackwell and …"); 0.5.6–0.5.8 keep `auto`
///   under `--enable-piecewise-cuda-graph` (off by default). From 0.5.5 the test is
///   `is_blackwell_supported()`, SM 10.x and 12.x: SM 12.x is not applied here.
/// - `Glm4MoeForCausalLM` (GLM-4.5/4.6): 0.5.8, 0.5.9 → `flashinfer_trtllm` for `modelopt_fp4`
///   only (with flashinfer-python ≥ 0.6.2 / 0.6.3): bf16 and fp8 stay `auto` (triton).
/// - `MiniMaxM2ForCausalLM` and every other architecture: no rule (`auto`).
/// - b200sgl54: NVFP4 experts whose config.json declares `quant_method = "modelopt"`
///   ([`SglQuantization::ModeloptNvfp4`]), 0.5.5–0.5.9, every architecture but Nemotron-H → `cutlass`.
///   The rules compare `self.quantization`, set to that "modelopt", with lists naming
///   "modelopt_fp4" (DeepSeek-V3 and, from 0.5.9, `KimiK25ForConditionalGeneration`; Qwen3-MoE /
///   Next; GLM-4.5) or none (MiniMax-M2, 0.5.5–0.5.8's Kimi-K2.5), so `--moe-runner-backend` stays
///   `auto`, and `ModelOptNvFp4FusedMoEMethod.apply` (`layers/quantization/modelopt_quant.py`,
///   0.5.5–0.5.9) then takes neither FlashInfer branch (`is_flashinfer_trtllm()` /
///   `is_flashinfer_cutlass()` / `is_flashinfer_cutedsl()` are false) and runs sgl-kernel's
///   `cutlass_moe_fp4` (`layers/moe/cutlass_moe.py`, the same function in every wheel 0.5.2–0.5.9),
///   the path `--moe-runner-backend cutlass` also reaches: hence the name. Nemotron-H's branch maps
///   "modelopt" to `modelopt_fp4` and `flashinfer_cutlass` (0.5.9; other releases not read) → `None`.
///   With `--quantization modelopt_fp4` ([`SglQuantization::ModeloptFp4`], `engine.quantization`)
///   the lists that name it fire → `flashinfer_trtllm`: DeepSeek-V3 from 0.5.4, Kimi-K2.5 in 0.5.9,
///   Qwen3-MoE / VL-MoE / Next from 0.5.6, Qwen3.5-MoE in 0.5.9, GLM-4.5 from 0.5.8 (0.5.9 with
///   flashinfer-python ≥ 0.6.3, the release it pins). Other architectures under that name are not
///   placed (`None`).
///
/// Releases before 0.5.2 and after 0.5.9 (main of 2026) were not read: `None`.
pub fn sglang_sm100(
    version: &str,
    compute_capability: &str,
    arch: tpsim_model::llm::Architecture,
    quant: SglQuantization,
    experts: tpsim_model::llm::WeightDtype,
    a2a: bool,
) -> Option<&'static str> {
    use tpsim_model::llm::Architecture as A;
    let r = crate::engine_args_versions::release(version)?;
    let v = (
        r.first().copied()?,
        r.get(1).copied()?,
        r.get(2).copied().unwrap_or(0),
    );
    if tpsim_model::hw::sm_major(compute_capability) != 10 || a2a || !((0, 5, 2)..=(0, 5, 9)).contains(&v) {
        return None;
    }
    let nvfp4 = experts == tpsim_model::llm::WeightDtype::Nvfp4;
    if quant == SglQuantization::ModeloptNvfp4 {
        return (nvfp4 && v >= (0, 5, 5) && arch != A::NemotronH).then_some("cutlass");
    }
    if quant == SglQuantization::ModeloptFp4 {
        let listed = match arch {
            A::DeepseekV3 => v >= (0, 5, 4),
            A::KimiK25 | A::Qwen35Moe => v >= (0, 5, 9),
            A::Qwen3Moe | A::Qwen3VlMoe | A::Qwen3Next => v >= (0, 5, 6),
            A::Glm4Moe => v >= (0, 5, 8),
            _ => false,
        };
        return (nvfp4 && listed).then_some("flashinfer_trtllm");
    }
    let fp8 = quant == SglQuantization::Fp8;
    let bf16 = quant == SglQuantization::Unquantized;
    let trtllm = match arch {
        A::Qwen3Moe | A::Qwen3VlMoe | A::Qwen3Next if v >= (0, 5, 8) => fp8 || bf16,
        A::Qwen3Moe | A::Qwen3VlMoe | A::Qwen3Next => v >= (0, 5, 6) && fp8,
        A::Qwen35Moe => v >= (0, 5, 9) && (fp8 || bf16),
        A::DeepseekV3 | A::Llama4 => v >= (0, 5, 5) && fp8,
        // families31 (issue #17): Mistral Large 3 is in the same branch of
        // `_handle_model_specific_adjustments` (0.5.6.post1 … 0.5.9), which sets `quantization` to the
        // checkpoint's method — "compressed-tensors" for Mistral's FP8 release, not one of "fp8",
        // "modelopt_fp8", "modelopt_fp4" — so the MoE runner stays `auto`.
        A::MistralLarge3 => false,
        A::GptOss if experts == tpsim_model::llm::WeightDtype::Mxfp4 => return Some("flashinfer_mxfp4"),
        _ => false,
    };
    trtllm.then_some("flashinfer_trtllm")
}

/// The MoE backend the engine picks for `model` when `engine.moe_backend` is not set: SGLang's
/// SM 10.x rules ([`sglang_sm100`]) first, then [`engine_default`] (by the routed experts' format).
/// `a2a`: an all-to-all MoE backend (`engine.moe_a2a_backend`) is set; `declared`: SGLang's
/// `self.quantization` — `engine.quantization` if set, else the `quant_method` the checkpoint's
/// config.json declares ([`sglang_quantization`]).
pub fn for_model(
    kind: super::EngineKind,
    version: &str,
    compute_capability: &str,
    model: &tpsim_model::llm::ModelSpec,
    a2a: bool,
    declared: Option<&str>,
) -> Option<&'static str> {
    let experts = model.quantization.expert_format().dtype;
    let sgl = match kind {
        super::EngineKind::Sglang => sglang_sm100(
            version,
            compute_capability,
            model.arch,
            sglang_quantization(&model.quantization, declared),
            experts,
            a2a,
        ),
        _ => None,
    };
    sgl.or_else(|| engine_default(kind, version, compute_capability, experts))
}

/// Issue #17 (tritonw): the routed experts as the MoE backend stores them. vLLM's `triton_kernel`
/// (`Mxfp4Backend.TRITON`) on SM 9.0 with MXFP4 experts: `quantization/mxfp4.py` `create_weights`
/// pads each rank's intermediate to ×64 and leaves the hidden size (the `else` branch after Marlin,
/// FlashInfer and ROCm: `round_up(intermediate_size_per_partition, 64)`), and
/// `process_weights_after_loading` casts the expert biases to fp32 and keeps a triton_kernels Hopper
/// swizzled copy of the block scales (rows to ×256: `llm::gpt_oss::swizzled_scale_copies`). The
/// backend decides the layout, so this replaces the padding of the preset's quant.toml (Marlin's).
/// On ROCm gfx942 (`"9.4"`, gptoss) vLLM 0.17.0's `create_weights` takes its ROCm branch instead:
/// intermediate and hidden both rounded up to `mxfp4_utils.get_padding_alignment()`, 128 off gfx950
/// (2880 → 2944), and `_swizzle_mxfp4` keeps triton_kernels' `StridedLayout` for values and scales on
/// gfx942 (no swizzled copy). Its fp32 expert biases (the same `TRITON` branch of
/// `process_weights_after_loading`, ≈ 0.3 % of the expert bytes) are not counted there.
/// Other engines, backends and GPUs: unchanged (the quantization's own padding).
///
/// vgptoss56: the Hopper swizzle needs torch ≥ 2.8.1. `utils/mxfp4_utils.py` `_swizzle_mxfp4`
/// (vLLM 0.10.1.1, 0.10.2, 0.11.0, 0.11.1, 0.11.2, 0.12.0 wheels alike) keeps triton_kernels'
/// `StridedLayout` for values and scales on SM 9.0 when `not is_torch_equal_or_newer("2.8.1")`,
/// with a warning; `StridedLayout.swizzle_data` returns its input (vLLM 0.12.0's vendored
/// `triton_kernels/tensor_details/layout_details/strided.py`), so no copy is held. The wheels pin
/// torch (`Requires-Dist`): 0.10.1.1 `torch==2.7.1`, 0.10.2 and 0.11.0 `torch==2.8.0`, 0.11.1 on
/// `torch==2.9.0`; below 0.11.1 (`release` `TORCH_2_8_1_FROM`) the ×64 padding and the fp32
/// biases stay and the swizzled scale copy goes, and vLLM's warning is pushed onto `warnings`.
/// Where `release` cannot be read the copy is kept (the current releases').
pub fn apply_expert_layout(
    model: &mut tpsim_model::llm::ModelSpec,
    kind: super::EngineKind,
    backend: Option<&str>,
    compute_capability: &str,
    release: &str,
    warnings: &mut Vec<String>,
) {
    if kind != super::EngineKind::Vllm || backend != Some("triton_kernel") {
        return;
    }
    let Some(e) = model.quantization.experts.as_mut() else {
        return;
    };
    if e.dtype != tpsim_model::llm::WeightDtype::Mxfp4 {
        return;
    }
    match compute_capability {
        "9.0" => {
            e.pad_hidden = None;
            e.pad_intermediate = Some(TRITON_PAD_INTERMEDIATE);
            let strided = crate::engine_args_versions::release(release)
                .is_some_and(|r| r.as_slice() < TORCH_2_8_1_FROM.as_slice());
            e.relayout = if strided {
                tpsim_model::llm::ExpertRelayout::Fp32Biases
            } else {
                tpsim_model::llm::ExpertRelayout::SwizzledScales {
                    align_rows: HOPPER_SCALE_ALIGN_ROWS,
                }
            };
            if strided {
                warnings.push(STRIDED_WARNING.to_string());
            }
        }
        "9.4" => {
            e.pad_hidden = Some(ROCM_GFX942_PAD);
            e.pad_intermediate = Some(ROCM_GFX942_PAD);
            e.relayout = tpsim_model::llm::ExpertRelayout::AsLoaded;
        }
        _ => {}
    }
}

/// The first vLLM release whose wheel pins a torch of 2.8.1 or newer (0.11.1: `torch==2.9.0`;
/// 0.11.0: `torch==2.8.0`), so the first whose `_swizzle_mxfp4` swizzles on SM 9.0 (vgptoss56).
const TORCH_2_8_1_FROM: [u64; 3] = [0, 11, 1];

/// vLLM `utils/mxfp4_utils.py` `_swizzle_mxfp4` (0.10.1.1 – 0.12.0 wheels): the `warning_once`
/// text on SM 9.0 with torch < 2.8.1, verbatim (its spelling).
const STRIDED_WARNING: &str = "Mxfp4 on hopper is running on torch < 2.8.1, this cause swizling to be \
disabled, which may cause performance degradation. Please upgrade to torch nightly";

/// vLLM 0.17.0 `quantization/utils/mxfp4_utils.py` `get_padding_alignment`: 256 on gfx950, else 128.
const ROCM_GFX942_PAD: u32 = 128;

/// vLLM `quantization/mxfp4.py` `create_weights` (TRITON on CUDA): `round_up(intermediate, 64)`.
const TRITON_PAD_INTERMEDIATE: u32 = 64;
/// triton_kernels `HopperMXScaleLayout.swizzle_data`: `SWIZZLE_ALIGN_M = 2 * num_warps * 2 * 8`
/// with vLLM's `num_warps = 8` (no EP: `Mxfp4MoEMethod.process_weights_after_loading`).
const HOPPER_SCALE_ALIGN_ROWS: u32 = 2 * 8 * 2 * 8;

/// Kernels a decode MoE layer launches under `backend` beyond the template's count
/// (`tpsim_model::llm::forward::ffn_kernels`: RMSNorm, router GEMM, top-k, moe_align_block_size,
/// w13 GEMM, SiluAndMul, w2 GEMM, sum over the k experts = 8); each costs the hardware's
/// `kernel_overhead` like every other kernel. Counted from the engine's code:
///
/// - vLLM, `triton_kernel` (gpt-oss MXFP4 on SM 9.0, vLLM 0.15.1 wheel): the layer's RMSNorm and
///   router GEMM (`models/gpt_oss.py` `TransformerBlock`/`MLPBlock`), then
///   `Mxfp4MoEMethod.apply_monolithic` → `fused_moe/gpt_oss_triton_kernels_moe.py`
///   `triton_kernel_moe_forward`: `routing()` (vendored `triton_kernels/routing.py`: `_topk_forward`,
///   whose scratchpad makes `Bitmatrix.sum` skip its memset, `_sum_bitmatrix_rows`,
///   `_combined_routing_memset`, `_combined_routing_compute` = 4), `matmul_ogs` w13 with the SwiGLU
///   fused (1; `utils/mxfp4_utils.py` forces `split_k = 1` on SM 9.0, so `reduce_grouped` returns
///   without a kernel), `matmul_ogs` w2 with `scatter_indx` (1) and its `_reduce_grouped` over the
///   4 experts (1: `can_use_fused_scatter` needs `n_expts_act == 1`) = 9, one more than the template.
/// - SGLang, `cutlass` with NVFP4 experts (b200sgl54): `cutlass_moe_fp4` (0.5.9
///   `layers/moe/cutlass_moe.py`) in place of the template's moe_align, w13, SiluAndMul, w2 and sum
///   (5) launches 16: `prepare_moe_input` (sgl-kernel `csrc/moe/prepare_moe_input.cu`,
///   sgl-project/sglang 0794e181: a `torch::zeros` fill, `compute_problem_sizes`,
///   `compute_expert_blockscale_offsets`, `compute_arg_sorts` = 4), `scaled_fp4_experts_quant` with
///   `expert_map` (sgl-kernel `python/sgl_kernel/gemm.py`: `shuffle_rows`, then the quant = 2),
///   `cutlass_fp4_group_mm` (`csrc/moe/nvfp4_blockwise_moe.cu` 414c210f: `__get_group_gemm_starts`,
///   then the grouped GEMM = 2), `silu_and_mul` (1), `scaled_fp4_experts_quant` (1), the second
///   `cutlass_fp4_group_mm` (2), `shuffle_rows` (1), `topk_weights.to(out_dtype)` (1), the multiply
///   (1) and `.sum(dim=1)` (1) = 11 more. The sgl-kernel sources are the stored ones, not 0.3.21's
///   (the release sglang 0.5.9 pins): assumed the same launches.
/// - Every other engine and backend: 0 (not counted).
pub fn extra_kernels(
    kind: super::EngineKind,
    backend: Option<&str>,
    experts: tpsim_model::llm::WeightDtype,
) -> u32 {
    match (kind, backend) {
        (super::EngineKind::Vllm, Some("triton_kernel")) => 1,
        (super::EngineKind::Sglang, Some("cutlass")) if experts == tpsim_model::llm::WeightDtype::Nvfp4 => {
            CUTLASS_MOE_FP4_EXTRA_KERNELS
        }
        _ => 0,
    }
}

/// Kernels SGLang's `cutlass_moe_fp4` launches beyond the template's MoE layer ([`extra_kernels`]):
/// 16 in place of 5.
const CUTLASS_MOE_FP4_EXTRA_KERNELS: u32 = 16 - 5;

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

    /// vLLM 0.15.1 `quantization/mxfp4.py` `get_mxfp4_backend` on SM 9.0 with the default
    /// environment and the vendored triton_kernels: `Mxfp4Backend.TRITON`; not on SM 8.0 (Marlin),
    /// not for other releases (not read) nor other expert formats.
    #[test]
    fn vllm_0_14_0_15_mxfp4_on_sm90_picks_triton_kernel() {
        use tpsim_model::llm::WeightDtype::Mxfp4;
        assert_eq!(
            engine_default(Vllm, "0.15.1", "9.0", Mxfp4),
            Some("triton_kernel")
        );
        assert_eq!(
            engine_default(Vllm, "0.15.0", "9.0", Mxfp4),
            Some("triton_kernel")
        );
        assert_eq!(engine_default(Vllm, "0.15.1", "8.0", Mxfp4), None);
        assert_eq!(engine_default(Vllm, "0.15.1", "10.0", Mxfp4), None);
        assert_eq!(engine_default(Vllm, "0.19.0", "9.0", Mxfp4), None);
        assert_eq!(
            engine_default(Vllm, "0.14.1", "9.0", Mxfp4),
            Some("triton_kernel")
        );
        assert_eq!(engine_default(Vllm, "0.16.0", "9.0", Mxfp4), None);
        assert_eq!(engine_default(Vllm, "0.10.1", "9.0", Mxfp4), Some("marlin"));
        assert_eq!(engine_default(Vllm, "0.10.2", "9.0", Mxfp4), Some("marlin"));
        assert_eq!(engine_default(Vllm, "0.10.2", "8.0", Mxfp4), None);
        assert_eq!(engine_default(Vllm, "0.15.1", "9.0", Nvfp4), None);
        assert_eq!(engine_default(Sglang, "0.5.8", "9.0", Mxfp4), None);
    }

    /// gptoss11: vLLM 0.11.0 / 0.11.2 wheels (`quantization/mxfp4.py` `get_mxfp4_backend`) take
    /// Marlin on SM 9.0 without a `triton_kernels` module, which neither wheel vendors nor requires;
    /// 0.12.0 / 0.13.0 vendor it (`vllm/third_party/triton_kernels`) and take TRITON on SM 9.0. SM 8.x
    /// (`capability[0] < 9`; `(9, 0) <= capability < (11, 0)`) and SM 12.x run Marlin in all four
    /// (vllm issue 31085: 0.13.0 on an RTX PRO 6000 logs `mxfp4.py:161 Using Marlin backend`, that
    /// wheel's line); SM 10.x runs FlashInfer, not named; other formats and engines are not read.
    #[test]
    fn vllm_0_11_marlin_and_0_12_0_13_triton_kernels_on_sm90_marlin_below_sm9() {
        use tpsim_model::llm::WeightDtype::Mxfp4;
        for v in ["0.11.0", "0.11.1", "0.11.2"] {
            assert_eq!(engine_default(Vllm, v, "9.0", Mxfp4), Some("marlin"), "{v}");
        }
        for v in ["0.12.0", "0.13.0"] {
            assert_eq!(
                engine_default(Vllm, v, "9.0", Mxfp4),
                Some("triton_kernel"),
                "{v}"
            );
        }
        for v in ["0.11.0", "0.12.0", "0.13.0"] {
            for cc in ["8.0", "8.6", "8.9", "12.0"] {
                assert_eq!(engine_default(Vllm, v, cc, Mxfp4), Some("marlin"), "{v} {cc}");
            }
            assert_eq!(engine_default(Vllm, v, "10.0", Mxfp4), None, "{v}");
            assert_eq!(engine_default(Vllm, v, "9.4", Mxfp4), None, "{v}");
            assert_eq!(engine_default(Vllm, v, "7.5", Mxfp4), None, "{v}");
            assert_eq!(engine_default(Vllm, v, "9.0", Nvfp4), None, "{v}");
            assert_eq!(engine_default(Vllm, v, "8.0", Bf16), None, "{v}");
        }
        assert_eq!(engine_default(Sglang, "0.5.4", "9.0", Mxfp4), None);
        assert_eq!(engine_default(Sglang, "0.5.4", "8.0", Mxfp4), None);
    }

    /// gptoss: vLLM 0.10.x on SM 9.0 runs Marlin (no triton_kernels in a stock install); vLLM 0.17.x
    /// on ROCm gfx942 ("9.4") runs triton_kernels (AITER's CK MXFP4 MoE is gfx950 only); gfx950
    /// ("9.5", CK) and other releases on gfx942 are not named.
    #[test]
    fn vllm_0_10_marlin_on_sm90_and_0_17_triton_kernels_on_gfx942() {
        use tpsim_model::llm::WeightDtype::Mxfp4;
        assert_eq!(engine_default(Vllm, "0.10.2", "9.0", Mxfp4), Some("marlin"));
        assert_eq!(engine_default(Vllm, "0.10.2", "9.0", Bf16), None);
        assert_eq!(
            engine_default(Vllm, "0.17.0", "9.4", Mxfp4),
            Some("triton_kernel")
        );
        assert_eq!(
            engine_default(Vllm, "0.17.1", "9.4", Mxfp4),
            Some("triton_kernel")
        );
        assert_eq!(engine_default(Vllm, "0.17.0", "9.5", Mxfp4), None);
        assert_eq!(engine_default(Vllm, "0.16.0", "9.4", Mxfp4), None);
        assert_eq!(engine_default(Vllm, "0.17.0", "9.4", Fp8), None);
        assert_eq!(engine_default(Sglang, "0.5.9", "9.4", Mxfp4), None);
    }

    /// 9 kernels in vLLM 0.15.1's triton_kernels MoE layer (RMSNorm, router, 4 routing, w13+SwiGLU,
    /// w2, grouped reduce) against the template's 8; nothing counted for other backends/engines.
    #[test]
    fn vllm_triton_kernel_launches_one_more_kernel_than_the_template() {
        use tpsim_model::llm::WeightDtype::Mxfp4;
        assert_eq!(extra_kernels(Vllm, Some("triton_kernel"), Mxfp4), 1);
        assert_eq!(extra_kernels(Vllm, Some("flashinfer_cutlass"), Nvfp4), 0);
        assert_eq!(extra_kernels(Vllm, None, Bf16), 0);
        assert_eq!(extra_kernels(Sglang, Some("triton_kernel"), Mxfp4), 0);
        // b200sgl54: sgl-kernel's cutlass_moe_fp4, 16 launches for the template's 5; SGLang's
        // `cutlass` on fp8 experts is another function (not counted).
        assert_eq!(extra_kernels(Sglang, Some("cutlass"), Nvfp4), 11);
        assert_eq!(extra_kernels(Sglang, Some("cutlass"), Fp8), 0);
        assert_eq!(extra_kernels(Vllm, Some("cutlass"), Nvfp4), 0);
    }

    /// SGLang 0.5.8 / 0.5.9 `server_args.py` keep `--moe-runner-backend auto` on SM 12.0, and with
    /// `auto` `modelopt_quant.py` runs sgl-kernel's `cutlass_moe_fp4`: no named backend to cost.
    #[test]
    fn sglang_nvfp4_on_sm120_stays_on_the_template() {
        assert_eq!(engine_default(Sglang, "0.5.8", "12.0", Nvfp4), None);
        assert_eq!(engine_default(Sglang, "0.5.9", "12.0", Nvfp4), None);
    }

    /// sm100moe: SGLang's SM 10.x rules for the Qwen3 MoE families, as read in the wheels'
    /// `server_args.py`: 0.5.6 / 0.5.6.post1 / 0.5.7 take `flashinfer_trtllm` for fp8 only, 0.5.8 /
    /// 0.5.9 (and 0.5.8.post1, the same release) also for bf16; 0.5.5 has no rule; SM 10.3 (B300)
    /// is SM 10.x; SM 9.0 / 12.0, DeepEP and releases not read keep `auto` (`None`).
    #[test]
    fn sglang_sm100_qwen3_moe_and_next_by_release() {
        use SglQuantization::{Fp8 as Q8, Unquantized as Q16};
        use tpsim_model::llm::Architecture as A;
        let pick = |v: &str, cc: &str, a: A, q: SglQuantization| sglang_sm100(v, cc, a, q, Bf16, false);
        for a in [A::Qwen3Moe, A::Qwen3VlMoe, A::Qwen3Next] {
            for v in ["0.5.8", "0.5.8.post1", "0.5.9"] {
                assert_eq!(pick(v, "10.0", a, Q16), Some("flashinfer_trtllm"), "{a:?} {v}");
                assert_eq!(pick(v, "10.0", a, Q8), Some("flashinfer_trtllm"), "{a:?} {v}");
            }
            for v in ["0.5.6", "0.5.6.post1", "0.5.7"] {
                assert_eq!(pick(v, "10.0", a, Q16), None, "{a:?} {v}");
                assert_eq!(pick(v, "10.0", a, Q8), Some("flashinfer_trtllm"), "{a:?} {v}");
            }
            assert_eq!(pick("0.5.5", "10.0", a, Q8), None, "{a:?}");
            assert_eq!(pick("0.5.8", "10.3", a, Q16), Some("flashinfer_trtllm"));
            assert_eq!(pick("0.5.8", "9.0", a, Q16), None);
            assert_eq!(pick("0.5.8", "12.0", a, Q16), None);
            assert_eq!(pick("0.5.8", "10.0", a, SglQuantization::Unread), None);
            assert_eq!(pick("0.5.10", "10.0", a, Q16), None);
            assert_eq!(pick("0.4.10", "10.0", a, Q8), None);
            assert_eq!(
                sglang_sm100("0.5.8", "10.0", a, Q16, Bf16, true),
                None,
                "{a:?} DeepEP"
            );
        }
        // Qwen3.5 MoE joins the Qwen3-Next list in 0.5.9 only.
        assert_eq!(
            pick("0.5.9", "10.0", A::Qwen35Moe, Q16),
            Some("flashinfer_trtllm")
        );
        assert_eq!(pick("0.5.9", "10.0", A::Qwen35Moe, Q8), Some("flashinfer_trtllm"));
        assert_eq!(pick("0.5.8", "10.0", A::Qwen35Moe, Q16), None);
    }

    /// sm100moe: GLM-4.5/4.6 (`flashinfer_trtllm` for `modelopt_fp4` only) and MiniMax-M2 (no rule)
    /// keep `auto`, the triton fused MoE, on SM 10.x in bf16 and fp8; DeepSeek-V3 and Llama 4 take
    /// `flashinfer_trtllm` for fp8 from 0.5.5 (not in 0.5.4, not for bf16); gpt-oss MXFP4 takes
    /// `flashinfer_mxfp4` from 0.5.2.
    #[test]
    fn sglang_sm100_other_architectures() {
        use SglQuantization::{Fp8 as Q8, Unquantized as Q16, Unread};
        use tpsim_model::llm::Architecture as A;
        use tpsim_model::llm::WeightDtype::Mxfp4;
        let pick = |v: &str, a: A, q: SglQuantization| sglang_sm100(v, "10.0", a, q, Bf16, false);
        for v in ["0.5.6", "0.5.6.post1", "0.5.8", "0.5.9"] {
            for q in [Q16, Q8] {
                assert_eq!(pick(v, A::Glm4Moe, q), None, "{v}");
                assert_eq!(pick(v, A::MiniMaxM2, q), None, "{v}");
            }
        }
        for a in [A::DeepseekV3, A::Llama4] {
            assert_eq!(pick("0.5.4", a, Q8), None, "{a:?}");
            assert_eq!(pick("0.5.5", a, Q8), Some("flashinfer_trtllm"), "{a:?}");
            assert_eq!(pick("0.5.9", a, Q8), Some("flashinfer_trtllm"), "{a:?}");
            assert_eq!(pick("0.5.8", a, Q16), None, "{a:?}");
        }
        for v in ["0.5.2", "0.5.6", "0.5.9"] {
            assert_eq!(
                sglang_sm100(v, "10.0", A::GptOss, Unread, Mxfp4, false),
                Some("flashinfer_mxfp4"),
                "{v}"
            );
        }
        assert_eq!(
            sglang_sm100("0.5.6", "12.0", A::GptOss, Unread, Mxfp4, false),
            None
        );
        assert_eq!(sglang_sm100("0.5.6", "10.0", A::GptOss, Q16, Bf16, false), None);
    }

    /// b200sgl54: a config.json declaring `quant_method = "modelopt"` with NVFP4 experts matches no
    /// SM 10.x rule in 0.5.5–0.5.9 (their lists name "modelopt_fp4"), so SGLang runs sgl-kernel's
    /// `cutlass_moe_fp4`, named `cutlass`: Kimi-K2.5 (in the DeepSeek list from 0.5.9, in none
    /// before), DeepSeek-V3, Qwen3-MoE, GLM-4.5 alike; Nemotron-H (its own mapping), SM 12.x, 0.5.4
    /// and 0.5.10 are not placed (`None`); DeepEP keeps every rule off.
    #[test]
    fn sglang_sm100_modelopt_declared_nvfp4_runs_cutlass_moe_fp4() {
        use SglQuantization::ModeloptNvfp4 as M;
        use tpsim_model::llm::Architecture as A;
        for v in ["0.5.5", "0.5.6", "0.5.6.post1", "0.5.7", "0.5.8", "0.5.9"] {
            for a in [A::KimiK25, A::DeepseekV3, A::Qwen3Moe, A::Glm4Moe, A::MiniMaxM2] {
                assert_eq!(
                    sglang_sm100(v, "10.0", a, M, Nvfp4, false),
                    Some("cutlass"),
                    "{a:?} {v}"
                );
            }
        }
        assert_eq!(sglang_sm100("0.5.9", "10.0", A::NemotronH, M, Nvfp4, false), None);
        assert_eq!(sglang_sm100("0.5.9", "12.0", A::KimiK25, M, Nvfp4, false), None);
        assert_eq!(sglang_sm100("0.5.4", "10.0", A::KimiK25, M, Nvfp4, false), None);
        assert_eq!(sglang_sm100("0.5.10", "10.0", A::KimiK25, M, Nvfp4, false), None);
        assert_eq!(sglang_sm100("0.5.9", "10.0", A::KimiK25, M, Nvfp4, true), None);
        // `--quantization modelopt_fp4` names what the lists test: FlashInfer's TRT-LLM MoE where the
        // architecture is listed (Kimi-K2.5 from 0.5.9, DeepSeek-V3 from 0.5.4, GLM-4.5 from 0.5.8),
        // not placed elsewhere.
        let named = SglQuantization::ModeloptFp4;
        assert_eq!(
            sglang_sm100("0.5.9", "10.0", A::KimiK25, named, Nvfp4, false),
            Some("flashinfer_trtllm")
        );
        assert_eq!(
            sglang_sm100("0.5.4", "10.0", A::DeepseekV3, named, Nvfp4, false),
            Some("flashinfer_trtllm")
        );
        assert_eq!(
            sglang_sm100("0.5.7", "10.0", A::Glm4Moe, named, Nvfp4, false),
            None
        );
        assert_eq!(
            sglang_sm100("0.5.8", "10.0", A::Glm4Moe, named, Nvfp4, false),
            Some("flashinfer_trtllm")
        );
        assert_eq!(
            sglang_sm100("0.5.9", "10.0", A::MiniMaxM2, named, Nvfp4, false),
            None
        );
        // Before this rule Kimi-K2.5 NVFP4 was not placed at all (the template's kernels).
        assert_eq!(
            sglang_sm100("0.5.9", "10.0", A::KimiK25, SglQuantization::Unread, Nvfp4, false),
            None
        );
    }

    /// What the rules see as `quantization`: no `quantization_config` (bf16) → `None`; block FP8 →
    /// `fp8`; per-tensor FP8 and NVFP4 experts → not read.
    #[test]
    fn sglang_quantization_of_checkpoints() {
        use tpsim_model::llm::{Quantization, WeightFormat};
        let mut q = Quantization::bf16();
        assert_eq!(sglang_quantization(&q, None), SglQuantization::Unquantized);
        let mut f = WeightFormat::plain(Fp8);
        q.weights = f;
        assert_eq!(sglang_quantization(&q, Some("fp8")), SglQuantization::Unread);
        f.block_size = Some([128, 128]);
        q.weights = f;
        assert_eq!(sglang_quantization(&q, Some("fp8")), SglQuantization::Fp8);
        q.experts = Some(WeightFormat::plain(Nvfp4));
        // b200sgl54: NVFP4 declared in config.json as "modelopt" is told apart; an
        // hf_quant_config.json-only checkpoint (nothing in config.json) stays unread.
        assert_eq!(sglang_quantization(&q, None), SglQuantization::Unread);
        assert_eq!(
            sglang_quantization(&q, Some("modelopt")),
            SglQuantization::ModeloptNvfp4
        );
        // `--quantization modelopt_fp4` (engine.quantization) is the name the rules test.
        assert_eq!(
            sglang_quantization(&q, Some("modelopt_fp4")),
            SglQuantization::ModeloptFp4
        );
        assert_eq!(
            sglang_quantization(&q, Some("compressed-tensors")),
            SglQuantization::Unread
        );
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
