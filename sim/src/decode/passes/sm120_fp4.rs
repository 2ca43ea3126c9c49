//! sm120fp4_64 (issue #18): vLLM's W4A4 NVFP4 dense MLP on SM 12.x — FlashInfer's CUTLASS FP4
//! GEMM at decode batch sizes and the activation quantization before each W4A4 linear.
//!
//! What vLLM 0.16–0.19 runs (read in `/work/src/vllm-0.19.0`, the same in 0.16 – 0.18):
//! - `quantization/utils/nvfp4_utils.py` `select_nvfp4_linear_backend`: without
//!   `VLLM_USE_FBGEMM`, `VLLM_USE_NVFP4_CT_EMULATIONS` or `VLLM_NVFP4_GEMM_BACKEND`,
//!   `has_device_capability(100) and has_flashinfer()` picks `FLASHINFER_CUTLASS` — SM 12.0 is
//!   capability 120 ≥ 100 (`platforms/interface.py` `has_device_capability` compares `to_int()`).
//!   Both `ModelOptNvFp4LinearMethod` (`modelopt.py`) and the compressed-tensors W4A4 NVFP4 scheme
//!   call it.
//! - `apply_nvfp4_linear`: `scaled_fp4_quant(x, input_global_scale_inv, …)` (`_custom_ops.py`,
//!   `torch.ops._C.scaled_fp4_quant.out`: one kernel reading the bf16 rows, writing fp4 — two to a
//!   byte — and one fp8 e4m3 scale per 16 elements), then `flashinfer_scaled_fp4_mm(…,
//!   backend="cutlass")` (`utils/flashinfer.py` → `flashinfer.mm_fp4`). One quantization per linear.
//! - Fusion under torch.compile (`config/vllm.py`, the default optimization levels): `fuse_act_quant`
//!   is on for NVFP4 checkpoints (`enable_act_fusion`: "FP4 quant is always custom so Inductor cannot
//!   fuse it"), and `compilation/passes/fusion/act_quant_fusion.py` has one NVFP4 pattern,
//!   `SiluMulNvfp4QuantPattern` → `silu_and_mul_nvfp4_quant`: a SiLU-gated MLP's `down_proj`
//!   quantization is folded into its activation kernel; a GELU-gated one (Gemma's
//!   `gelu_pytorch_tanh`) keeps it. `fuse_norm_quant` is on only where the `rms_norm` or `quant_fp8`
//!   custom op is (`enable_norm_fusion`), off by default under Inductor, so `gate_up_proj` keeps its
//!   quantization kernel. Per dense layer: 1 kernel (SiLU) or 2 (GELU).
//!
//! The GEMM (tests/data/nvfp4-gemm-sm120.tsv): FlashInfer PR 3026's RTX 5090 table times the SM120
//! CUTLASS FP4 GEMM before and after its TRT-LLM port; the "before" kernel is the one vLLM 0.19's
//! backend ran (\[assumed\] from the dates: flashinfer issue 3013 of 2026-04-08, "Using FlashInfer
//! CUTLASS Backend for vLLM is Slow on SM120/121", opened the day after deploys39's bench). Its times
//! are flat in M (M 1 and 64 agree within 1 %) and grow with K almost independently of N: at N = 896
//! (7 CTAs) 7.41 µs at K 1,024 and 25.41 µs at K 5,120, where 5120 × 5120 reaches only 0.45 TB/s of
//! the 5090's 1.79. Each CTA (a 128 × 128 output tile, no split-K) walks the whole K serially; the
//! more CTAs, the slower each (shared memory system). Model, one wave of CTAs
//! (`ceil(M/128) × ceil(N/128)` ≤ SMs):
//!
//! `t = (WALK_FIXED_US + WALK_NS_PER_K × K / 1000) × (1 + CTA_SLOWDOWN × CTAs)` µs,
//!
//! least squares on the relative error over the table's 35 "before" rows — IN-SAMPLE to those kernel
//! rows, nothing fitted to any throughput row: mean |error| 3.7 %, from −7.1 % to +21.9 %
//! (`sm120fp4_64::gemm_model_against_pr3026`). The GEMM costs `max(stream, t)`: where tpsim's
//! weight stream is slower, nothing changes. Applied at M ≤ 128 (one 128-row tile; the table stops
//! at M 64, \[assumed\] flat to the tile's height) and CTAs ≤ SMs (the table's largest is 64 CTAs; the
//! gate_up projections here reach 168 of 188 — an extrapolation, said in the book); larger passes
//! (prefill chunks) keep the template's cost. The RTX PRO 6000 is taken to walk as fast as the RTX
//! 5090 (same GB202 die) \[assumed\].
//!
//! Scope: vLLM 0.16–0.19, SM 12.x, a dense (non-MoE) layer whose MLP is NVFP4 (gated:
//! `gate_up_proj` + `down_proj`). Not modelled: NVFP4 attention projections, shared experts and
//! routed experts (their own kernels), vLLM after 0.19 (FlashInfer with PR 3026's kernel or b12x),
//! SGLang: 0.5.9 runs the same kernel (`modelopt_quant.py` `ModelOptFp4LinearMethod.apply`:
//! `fp4_quantize`, then `fp4_gemm` under `--fp4-gemm-backend` default `flashinfer_cutlass`) with no
//! quantization fused, but no dense NVFP4 SGLang row on SM 12.0 checks it, so it is not wired.

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::compute::ComputeRates;
use tpsim_model::curves::OpClass;
use tpsim_model::llm::{Architecture, LayerWork, ModelSpec, WeightDtype};

/// µs of a CTA's walk independent of K (fitted, in-sample: flashinfer PR 3026's 35 RTX 5090 "before"
/// rows, tests/data/nvfp4-gemm-sm120.tsv; module doc).
pub const WALK_FIXED_US: f64 = 2.8;

/// ns a CTA spends per unit of K (fitted with [`WALK_FIXED_US`], same rows).
pub const WALK_NS_PER_K: f64 = 4.05;

/// Fractional slowdown of every CTA per CTA in flight (fitted with [`WALK_FIXED_US`], same rows).
pub const CTA_SLOWDOWN: f64 = 0.0085;

/// The CUTLASS SM120 FP4 tile's M and N, rows and columns: every SM120 tile of FlashInfer 0.7.4
/// (`jit/gemm/core.py`, "SM120/121 tile configurations", after PR 3026) has CTA M 128 or 256, with N
/// from 32 to 256; the kernel before the port is taken at 128 × 128 \[assumed\].
pub const TILE: u64 = 128;

/// Bytes of one NVFP4 activation scale (fp8 e4m3, `scaled_fp4_quant`), per [`NVFP4_GROUP`] elements.
const SCALE_BYTES: u64 = 1;

/// Elements sharing one NVFP4 scale (`scaled_fp4_quant`: `block_size = 16`).
const NVFP4_GROUP: u64 = 16;

/// The extra cost of one dense NVFP4 MLP layer over the template's (module doc).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Fp4Dense {
    /// µs the two GEMMs' CTA walks take beyond their weight stream.
    pub gemm_extra_us: f64,
    /// `scaled_fp4_quant` kernels launched (1 SiLU-gated, 2 GELU-gated).
    pub quant_kernels: u32,
    /// Bytes those kernels move: bf16 rows read, fp4 written, fp8 scales written.
    pub quant_bytes: u64,
}

/// Whether `s` runs `model`'s dense layer `l` through the path of the module doc: vLLM 0.16–0.19 on
/// SM 12.x, a dense NVFP4 MLP.
pub fn applies(s: &Scenario, model: &ModelSpec, l: &LayerWork) -> bool {
    if s.engine.kind != EngineKind::Vllm
        || tpsim_model::hw::sm_major(&s.hardware.gpu.compute_capability) != 12
        || l.is_moe
        || l.ffn_flops <= 0.0
        || model.quantization.dense_format().dtype != WeightDtype::Nvfp4
    {
        return false;
    }
    let r = crate::engine_args_versions::release(&s.engine.release().version).unwrap_or_default();
    let v = (r.first().copied().unwrap_or(0), r.get(1).copied().unwrap_or(0));
    ((0, 16)..=(0, 19)).contains(&v)
}

/// µs of one CUTLASS SM120 FP4 GEMM of `m` rows, `n` outputs and `k` inputs on a GPU of `sms` SMs
/// (module doc), or `None` outside the one-wave, one-row-tile range it is taken for.
pub fn gemm_us(m: u64, n: u64, k: u64, sms: u32) -> Option<f64> {
    let ctas = m.div_ceil(TILE).max(1) * n.div_ceil(TILE).max(1);
    if m > TILE || ctas > u64::from(sms.max(1)) {
        return None;
    }
    Some((WALK_FIXED_US + WALK_NS_PER_K * k as f64 / 1000.0) * (1.0 + CTA_SLOWDOWN * ctas as f64))
}

/// Whether `model`'s MLP is GELU-gated (Gemma's `gelu_pytorch_tanh`), so that vLLM's only NVFP4
/// activation fusion (`silu_and_mul_nvfp4_quant`) does not apply.
fn gelu_gated(model: &ModelSpec) -> bool {
    matches!(
        model.arch,
        Architecture::Gemma | Architecture::Gemma2 | Architecture::Gemma3 | Architecture::Gemma4
    )
}

/// The extra cost of dense layer `l` over a pass of `tokens` rows (module doc); the GEMMs' stream
/// time is `rates`' cost of each GEMM's share of the layer's MLP bytes (gate_up two thirds, down one
/// third of a gated MLP) as one NVFP4 kernel, less its fixed overhead.
pub fn dense(model: &ModelSpec, l: &LayerWork, tokens: u32, rates: &ComputeRates, sms: u32) -> Fp4Dense {
    let m = u64::from(tokens.max(1));
    let hidden = model.hidden.max(1);
    // A gated MLP holds 3 × hidden × intermediate parameters a rank: ffn_flops = 2 × that × tokens.
    let params = l.ffn_flops / (2.0 * m as f64);
    let inter = (params / (3.0 * hidden as f64)).round().max(0.0) as u64;
    let bytes = l.ffn_weight_bytes.0 as f64;
    let gemms = [
        (2 * inter, hidden, bytes * 2.0 / 3.0),
        (hidden, inter, bytes / 3.0),
    ];
    let mut extra = 0.0;
    for (n, k, b) in gemms {
        let Some(t) = gemm_us(m, n, k, sms) else {
            continue;
        };
        let stream = rates
            .op_time_formats(OpClass::Mlp, &[(b, Some(WeightDtype::Nvfp4))], 0.0, 1)
            .as_us_f64()
            - rates.kernel_overhead_us;
        extra += (t - stream).max(0.0);
    }
    let act = model.activation_bytes();
    let quant_bytes = |k: u64| m.saturating_mul(k * act + k / 2 + k / NVFP4_GROUP * SCALE_BYTES);
    let (quant_kernels, quant_bytes) = if gelu_gated(model) {
        (2, quant_bytes(hidden).saturating_add(quant_bytes(inter)))
    } else {
        (1, quant_bytes(hidden))
    };
    Fp4Dense {
        gemm_extra_us: extra,
        quant_kernels,
        quant_bytes,
    }
}
