//! moecall (issue #17): the fixed part of the engines' triton `fused_moe` call on Hopper (SM 9.0)
//! and, b200moe55, B200 (SM 10.0); b200sg63: the fixed kernels of SGLang's TRT-LLM MoE call on B200.
//!
//! The engines' own kernel benchmarks time one whole call (top-k, `moe_align_block_size`, the
//! activation quantizations, w13 GEMM, SiLU-and-mul, w2 GEMM, the sum over the k experts: 8 kernels
//! under vLLM's `benchmarks/kernels/benchmark_moe.py`) at batch 1–64 (`tests/data/moe-kernels-hopper.tsv`,
//! hopmoe). Split into a fixed part and a streaming rate through the batch-4 point and the largest
//! batch (`tests/tests/moe_kernels_hopper.rs`), the three series run with the configs vLLM ships
//! (the "Main" blocks) have fixed parts of 32.82 µs (DeepSeek-R1-0528 FP8, H200, vLLM PR 36559),
//! 28.99 µs (Qwen3-Next-80B-A3B-FP8, H200, same PR) and 38.64 µs (Qwen3-30B-A3B FP8, H100 SXM, vLLM
//! PR 24700). Their median, 32.82 µs over the harness's 8 kernels, is [`FUSED_MOE_KERNEL_US_SM90`]
//! = 4.10 µs a kernel, where the Hopper template charges 3 µs (`hopper-sxm.toml`
//! `kernel_overhead`). Taken per kernel, not per call, because the calls tpsim costs launch
//! different counts: a bf16 call has no activation quantization (6 kernels), a block-FP8 one two
//! quantizations more (8), and the per-kernel form charges each what it launches. Left out: PR
//! 24700's own default configs (never merged) and SGLang's untuned 64-row tile (PR 11730).
//!
//! Which calls: a MoE layer on an NVIDIA SM 9.0 (or, b200moe55, SM 10.0) GPU whose MoE runs the triton `fused_moe` (no
//! `engine.moe_backend` or `triton`, no DeepEP all-to-all) with bf16 / fp16 / fp8 routed experts:
//! the formats that kernel runs in the benchmarks (fp8) or with the same kernels less the
//! quantizations (bf16, fp16: an assumption, no bf16 series was found). INT4 / INT8 / NVFP4 /
//! MXFP4 experts run other kernels (Marlin, CUTLASS, triton_kernels) that no benchmark here times.
//! Other GPUs keep the template's per-kernel cost (SM 10.0: b200moe55 below).
//!
//! h20moe: the untuned call. SGLang's `try_get_optimal_moe_config` reads
//! `configs/triton_X_Y_Z/E=…,N=…,device_name=…json` for the shape and GPU, and without one runs
//! `get_default_config`: for 16/32-bit experts at M ≤ E a 16 × 32 × 64 tile, GROUP_SIZE_M 1, no
//! `num_warps`/`num_stages` (0.5.2 `fused_moe_triton_config.py`). The one Hopper measurement of
//! that default against a tuned file on the same model and release is sglang PR 10404 (merged;
//! Qwen3-Next-80B-A3B bf16 on H200, SGLang 0.5.2, c 8, 1000 / 2000 tokens; the PR adds config files
//! only): output rate 850.96 → 937.94, 1031.49 → 1137.94, 1109.89 → 1239.43 tok/s at TP 2, 4, 8, a
//! per-request step (8 ÷ rate) 0.872, 0.726, 0.753 ms longer untuned, 18.16, 15.12, 15.69 µs for each
//! of the 48 MoE layers. Nearly flat in TP (N a rank 256, 128, 64), so a fixed part of the call,
//! not a rate on its bytes: [`UNTUNED_BF16_CALL_US`], the median, is added to each MoE layer under
//! `engine.moe_tuned_config = false` with bf16 / fp16 experts. Measured at batch 8 on H200 only;
//! applied at other batches and on other SM 9.0 parts unscaled (no batch or GPU series found).
//! The fp8 defaults (a 64-row tile) have no tuned counterpart in the stored text: not charged.
//!
//! b200moe55: the same call on SM 10.0 (B200). Two whole-call series measured on a B200 are in
//! the stored text (`tests/data/moe-kernels-b200.tsv`, `tests/tests/b200moe55.rs`): sglang PR 11816,
//! SGLang's `tuning_fused_moe_triton.py` on DeepSeek-R1 block-FP8 at TP 8 with the shipped
//! `E=257,N=256,…NVIDIA_B200` file (7 kernels: the harness's top-k is outside the call), fixed part
//! 50.02 µs through batch 4 and 24; vLLM PR 31448, `benchmark_moe.py` on Qwen3-Omni-30B-A3B bf16
//! at TP 1 with the default 16 × 32 × 64 tile (6 kernels: top-k, align, w13, SiLU, w2, sum; no
//! quantization), fixed part 27.62 µs through batch 2 and 4 (its largest stored batch; batch 1
//! reads 76 MB, inside the B200's L2). Per kernel 7.145 and 4.604 µs; their median (two series:
//! the mean) is [`FUSED_MOE_KERNEL_US_SM100`] = 5.875 µs, where the B200 template charges Hopper's
//! 3 µs. Both stream at 0.79–0.84 of the driver's 7.67 TB/s, about the template's 0.80. Applied
//! as on SM 9.0 (per kernel, triton path, bf16 / fp16 / fp8 experts); SM 10.3 (B300) and SM 12.x
//! keep the template's cost (no series read).
//!
//! b200moe62: the untuned call on SM 10.0. One B200 pair of the default tile and a tuned file on one
//! shape is in the stored text (`tests/data/moe-untuned-b200.tsv`): sglang PR 7004 (merged; the
//! only file of its `triton_3_3_0` folder, `E=16,N=1024,device_name=NVIDIA_B200.json`, so TP 8),
//! Llama-4-Scout-17B-16E bf16 on 8× B200 at c 16, 1000 / 1000 tokens: TPOT 9.67 → 8.97 ms, over 48
//! MoE layers [`UNTUNED_BF16_CALL_US_SM100`] = 14.583 µs a layer (H200: 15.69). The default there is
//! the same 16 × 32 × 64 tile (M 16 ≤ E 16) the bf16 rows run at M ≤ E. Charged on SM 10.0 with
//! bf16 / fp16 experts only, unscaled in batch as on SM 9.0; block FP8's default (a 64-row tile)
//! has no B200 pair: not charged.
//!
//! b200sg63: SGLang's `flashinfer_trtllm` runner on SM 10.0 with block-FP8 experts
//! (`trtllm_fp8_block_scale_moe`; DeepSeek-V3 / R1 and Llama 4 fp8 from 0.5.5, Qwen3-MoE / Qwen3-Next fp8
//! from 0.5.6: `scenario::moe_backend::sglang_sm100`). The call launches routing (`routingMainKernel`,
//! `routingIndicesClusterKernel`), GEMM1, the activation (`activationDeepSeekKernel`), GEMM2 and
//! `finalizeKernel`; tpsim counts the triton call's six kernels in their place, four of them (top-k, align,
//! SiLU, sum) at the template's per-kernel cost. An nsys profile of that call with DeepSeek routing on one
//! B200 (flashinfer-bench's `moe_fp8_block_scale_ds_routing_topk8_ng8_kg4_e32_h7168_i2048`, 19 workloads,
//! 1,883 calls; `tests/data/trtllm-moe-b200.tsv`) times the four on the small-batch path at 11.0 + 3.6 +
//! 6.8 + 5.6 = [`TRTLLM_FP8_FIXED_KERNELS_US_SM100`] µs; the difference to four template kernels is
//! charged a MoE layer (15.0 µs at 3 µs). `routingMainKernel`'s 11.0 is its average over every workload;
//! the GEMMs (another shape: 32 local experts of 2,048) keep the template's bytes. Not charged: bf16 /
//! NVFP4 experts under the same runner (other calls: the profile times neither), other GPUs.
//!
//! b200host64: the same runner with bf16 / fp16 experts (`trtllm_bf16_moe`: Qwen3-MoE / Qwen3-Next from
//! SGLang 0.5.8, Qwen3.5-MoE from 0.5.9, `layers/moe/fused_moe_triton/layer.py` `FlashInferFusedMoE`). One
//! whole-call table of it is in the stored text (`tests/data/trtllm-moe-b300.tsv`): flashinfer pull 4985's
//! `bench_moe_deepseek.py` on one B300, DeepSeek-V3's shape at EP 8 (32 local experts), CUDA graphs, cold L2.
//! Per touched local expert the call grows (157 − 51) ÷ (10 − 2) = 13.25 µs from 1 token (2 experts,
//! 51 µs) to 8 (10 experts, 157 µs): 88.1 MB of bf16 weights an expert at 6.65 TB/s, the streaming the
//! template already charges at its own rate. The line's intercept, 51 − 2 × 13.25 =
//! [`TRTLLM_BF16_CALL_FIXED_US`] = 24.5 µs, is the call's fixed part: routing, the two GEMMs' latency,
//! finalize (the 2- and 4-token rows, 79 and 117 µs, lie on the line within 2 %: 77.5, 117.25).
//! tpsim counts the triton call's six kernels in its place, so a MoE layer is charged 24.5 − 6 × the
//! template's per-kernel cost (6.5 µs at 3 µs). Applied on SM 10.0 (B200) with the B300's figure (the same Blackwell kernels;
//! no B200 table read: assumed). The same table's TRT-LLM NVFP4 call has a fixed part of
//! 26 − 2 × (64 − 26) ÷ 8 = 16.5 µs with its activation quantization, below what tpsim counts for it
//! (six call kernels and the quantization): no charge, as b200sg63 left it.

use crate::scenario::{EngineKind, Scenario, accel::GpuVendor};
use tpsim_model::llm::{LayerWork, WeightDtype};

/// The fixed cost of one kernel of the triton fused-MoE call on SM 9.0, µs: the median of the
/// three shipped-config series' fixed parts (28.99, 32.82, 38.64 µs; module doc) over the
/// 8 kernels of vLLM's benchmarked call, 32.82 / 8.
pub const FUSED_MOE_KERNEL_US_SM90: f64 = 32.82 / 8.0;

/// b200moe55: the fused-MoE call's fixed cost per kernel on SM 10.0, µs: the median (mean of two)
/// of sglang PR 11816's 50.02 µs over its harness's 7 kernels (7.1453) and vLLM PR 31448's 27.62 µs
/// over 6 (4.6040); module doc, recomputed in `tests/tests/b200moe55.rs`.
pub const FUSED_MOE_KERNEL_US_SM100: f64 = (50.0172 / 7.0 + 27.6240 / 6.0) / 2.0;

/// Kernels of the fused-MoE call itself among a MoE layer's FFN kernels
/// (`tpsim_model::llm::forward::ffn_kernels`: RMSNorm and the router GEMM are not part of it):
/// top-k, `moe_align_block_size`, w13 GEMM, SiLU-and-mul, w2 GEMM, the sum = 6.
pub const FUSED_MOE_CALL_KERNELS: u32 = 6;

/// h20moe: what SGLang's untuned default config adds to a 16/32-bit fused-MoE call on SM 9.0, µs a
/// MoE layer: the median of sglang PR 10404's per-layer step differences (18.16, 15.12, 15.69 µs
/// at TP 2, 4, 8; module doc), each (8 ÷ untuned rate − 8 ÷ tuned rate) ÷ 48 layers.
pub const UNTUNED_BF16_CALL_US: f64 = 15.69;

/// b200moe62: what SGLang's untuned default config adds to a 16/32-bit fused-MoE call on SM 10.0,
/// µs a MoE layer: sglang PR 7004's TPOT difference on 8× B200 (Llama-4-Scout bf16, c 16,
/// 9.67 − 8.97 ms) over its 48 MoE layers (module doc; `tests/data/moe-untuned-b200.tsv` line 2).
pub const UNTUNED_BF16_CALL_US_SM100: f64 = (9.67 - 8.97) * 1000.0 / 48.0;

/// b200sg63: the GPU time of the TRT-LLM FP8 block-scale MoE call's four fixed kernels on a B200, µs:
/// routing main 11.0 + routing cluster indices 3.6 + activation 6.8 + finalize 5.6 (the nsys averages of
/// `tests/data/trtllm-moe-b200.tsv`; module doc).
pub const TRTLLM_FP8_FIXED_KERNELS_US_SM100: f64 = 11.0 + 3.6 + 6.8 + 5.6;

/// Kernels of the triton call tpsim counts in place of those four: top-k, align, SiLU-and-mul, the sum.
pub const TRTLLM_FIXED_KERNELS_COUNTED: u32 = 4;

/// b200host64: the fixed part of FlashInfer's TRT-LLM bf16 MoE call (`trtllm_bf16_moe`), µs: the intercept
/// of flashinfer pull 4985's B300 latencies against the local experts touched, through its 1-token row
/// (2 experts, 51 µs) and 8-token row (10 experts, 157 µs): 51 − 2 × (157 − 51) ÷ 8 (module doc).
pub const TRTLLM_BF16_CALL_FIXED_US: f64 = 51.0 - 2.0 * (157.0 - 51.0) / (10.0 - 2.0);

/// b200host64: what the `flashinfer_trtllm` call with bf16 / fp16 experts costs a MoE layer on SM 10.0
/// over the template's per-kernel cost `kernel_overhead_us` for the [`FUSED_MOE_CALL_KERNELS`] kernels
/// tpsim counts in its place, µs; 0 for other layers, runners, formats and GPUs (module doc).
fn trtllm_bf16_us(s: &Scenario, l: &LayerWork, experts: WeightDtype, kernel_overhead_us: f64) -> f64 {
    let sm = tpsim_model::hw::sm_version(&s.hardware.gpu.compute_capability);
    let applies = l.is_moe
        && sm == 100
        && s.hardware.accel.vendor == GpuVendor::Nvidia
        && s.engine.moe_backend.as_deref() == Some("flashinfer_trtllm")
        && matches!(experts, WeightDtype::Bf16 | WeightDtype::Fp16)
        && s.engine.moe_a2a.is_none();
    if !applies {
        return 0.0;
    }
    (TRTLLM_BF16_CALL_FIXED_US - f64::from(FUSED_MOE_CALL_KERNELS) * kernel_overhead_us).max(0.0)
}

/// b200sg63: what SGLang's `flashinfer_trtllm` call on SM 10.0 with block-FP8 experts costs a MoE layer
/// over the template's per-kernel cost `kernel_overhead_us` for the kernels counted in its place, µs;
/// 0 for other layers, runners, formats and GPUs (module doc).
fn trtllm_fp8_us(s: &Scenario, l: &LayerWork, experts: WeightDtype, kernel_overhead_us: f64) -> f64 {
    let sm = tpsim_model::hw::sm_version(&s.hardware.gpu.compute_capability);
    let applies = l.is_moe
        && sm == 100
        && s.hardware.accel.vendor == GpuVendor::Nvidia
        && s.engine.moe_backend.as_deref() == Some("flashinfer_trtllm")
        && experts == WeightDtype::Fp8
        && s.engine.moe_a2a.is_none();
    if !applies {
        return 0.0;
    }
    (TRTLLM_FP8_FIXED_KERNELS_US_SM100 - f64::from(TRTLLM_FIXED_KERNELS_COUNTED) * kernel_overhead_us)
        .max(0.0)
}

/// The untuned default tile's extra cost a bf16 / fp16 MoE layer on SM version `sm`, µs; `None`
/// where no default-against-tuned pair was read (module doc).
pub fn untuned_bf16_us(sm: u32) -> Option<f64> {
    match sm {
        90 => Some(UNTUNED_BF16_CALL_US),
        100 => Some(UNTUNED_BF16_CALL_US_SM100),
        _ => None,
    }
}

/// The measured per-kernel cost of the fused-MoE call on SM version `sm` (90: Hopper, 100: B200),
/// µs; `None` where no series was read.
pub fn kernel_us(sm: u32) -> Option<f64> {
    match sm {
        90 => Some(FUSED_MOE_KERNEL_US_SM90),
        100 => Some(FUSED_MOE_KERNEL_US_SM100),
        _ => None,
    }
}

/// The fused-MoE call's fixed cost over what the template charges for its kernels, µs, for layer
/// `l` of scenario `s` with routed experts in `experts` and a template per-kernel cost of
/// `kernel_overhead_us`: `(kernel_us(sm) − kernel_overhead_us) ×` (6 + the routed experts'
/// activation quantization kernels, block-FP8: 2), never below 0, plus [`untuned_bf16_us`]
/// (SM 9.0, 10.0) for bf16 / fp16 experts under `engine.moe_tuned_config = false`; under SGLang's
/// `flashinfer_trtllm` runner on SM 10.0 with block-FP8 experts the TRT-LLM call's fixed kernels
/// (b200sg63), with bf16 / fp16 experts the bf16 call's fixed part (b200host64); 0 outside the module
/// doc's calls. h200_63: under vLLM the untuned charge only where
/// the call's tokens `m` are at most the rank's experts `e` (`scenario::vllm_moe_configs`: vLLM's
/// default is the measured 16 × 32 × 64 tile at M ≤ E only).
pub fn extra_us(
    s: &Scenario,
    l: &LayerWork,
    experts: WeightDtype,
    kernel_overhead_us: f64,
    m: u64,
    e: u64,
) -> f64 {
    let sm = tpsim_model::hw::sm_version(&s.hardware.gpu.compute_capability);
    let nvidia = s.hardware.accel.vendor == GpuVendor::Nvidia;
    let triton = matches!(s.engine.moe_backend.as_deref(), None | Some("triton"));
    let format = matches!(experts, WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp8);
    let per_kernel = match kernel_us(sm) {
        Some(k) if l.is_moe && nvidia && triton && format && s.engine.moe_a2a.is_none() => k,
        _ => {
            return trtllm_fp8_us(s, l, experts, kernel_overhead_us)
                + trtllm_bf16_us(s, l, experts, kernel_overhead_us);
        }
    };
    let routed_quant = l.ffn_quant_kernels.saturating_sub(l.shared_quant_kernels);
    let kernels = FUSED_MOE_CALL_KERNELS + routed_quant;
    let fixed = (per_kernel - kernel_overhead_us).max(0.0) * f64::from(kernels);
    let untuned = !s.engine.moe_tuned_config
        && matches!(experts, WeightDtype::Bf16 | WeightDtype::Fp16)
        && (s.engine.kind == EngineKind::Sglang || m <= e);
    fixed + untuned_bf16_us(sm).filter(|_| untuned).unwrap_or(0.0)
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs, durations};
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    /// `model` on `hardware` under `engine` at TP `tp`, `extra` engine lines.
    fn scenario(hardware: &str, model: &str, engine: &str, tp: u32, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hardware}\"\n[model]\npreset = \"{model}\"\n[engine]\n\
             name = \"{engine}\"\ntp = {tp}\ntrust_remote_code = true\n{extra}\
             [workload]\nconcurrency = 8\nprompt_len = 1000\noutput_len = 2000\n"
        );
        load_str(&text, Path::new("moe-call.toml")).expect("scenario")
    }

    fn extra_of(s: &Scenario, layer: usize) -> f64 {
        let l = s.model.forward_pass(8, s.engine.tp).layers[layer];
        let experts = s.model.quantization.expert_format().dtype;
        extra_us(s, &l, experts, 3.0, 8, 512)
    }

    /// The per-kernel figure by hand: the shipped-config fixed parts printed by
    /// `moe_kernels_hopper::shipped_configs_stream_near_the_template_rate_after_a_larger_fixed_part`,
    /// sorted 28.99, 32.82, 38.64; the median 32.82 µs over 8 kernels = 4.1025 µs.
    #[test]
    fn per_kernel_cost_is_the_median_shipped_fixed_part_over_eight() {
        assert!((FUSED_MOE_KERNEL_US_SM90 - 4.1025).abs() < 1e-9);
    }

    /// The Qwen3-Next bf16 rows' shape (SGLang, 8× H200, TP 2, c 8; scenarios/validation/
    /// qwen3-next-80b-h200x8-sglang-tp2-c8.toml): a bf16 call, no quantization kernels, so
    /// 6 × (4.1025 − 3) = 6.615 µs a MoE layer over the template (± 1e-9). Every one of its 48
    /// layers is MoE (`decoder_sparse_step` 1).
    #[test]
    fn qwen3_next_bf16_call_costs_six_kernels_more() {
        let s = scenario("h200-8x-nvlink", "qwen3-next-80b-a3b", "sglang", 2, "");
        assert!((extra_of(&s, 0) - 6.615).abs() < 1e-9, "{}", extra_of(&s, 0));
    }

    /// h20moe: the Qwen3-Next bf16 rows' shape on 8× H20 at TP 4 (SGLang 0.5.2 ships no
    /// `E=512,N=128,device_name=NVIDIA_H20.json`, only the H20-3e's, in `triton_3_4_0`) with
    /// `moe_tuned_config = false` (moetable: also without the key, from the table of shipped
    /// files; `true`: 6.615): 6.615 + 15.69 = 22.305 µs a MoE layer (± 1e-9); the constant is
    /// PR 10404's median per-layer difference, recomputed here from its six output rates. An fp8
    /// untuned call adds nothing over the tuned one (no tuned counterpart measured), and vLLM
    /// refuses the key.
    #[test]
    fn untuned_bf16_call_adds_pr_10404s_median_per_layer_step() {
        let per_layer = |untuned: f64, tuned: f64| (8.0 / untuned - 8.0 / tuned) / 48.0 * 1e6;
        let mut d = [
            per_layer(850.96, 937.94),
            per_layer(1031.49, 1137.94),
            per_layer(1109.89, 1239.43),
        ];
        d.sort_by(f64::total_cmp);
        assert!((d[1] - UNTUNED_BF16_CALL_US).abs() < 0.005, "{d:?}");
        assert!(
            (d[0] - 15.115).abs() < 0.001 && (d[2] - 18.163).abs() < 0.001,
            "{d:?}"
        );
        let off = "moe_tuned_config = false\n";
        let s = scenario("h20-8x-nvlink", "qwen3-next-80b-a3b", "sglang", 4, off);
        assert!((extra_of(&s, 0) - 22.305).abs() < 1e-9, "{}", extra_of(&s, 0));
        let on = "moe_tuned_config = true\n";
        let tuned = scenario("h20-8x-nvlink", "qwen3-next-80b-a3b", "sglang", 4, on);
        // moetable: without the key the table finds no H20 file: the untuned charge.
        let default = scenario("h20-8x-nvlink", "qwen3-next-80b-a3b", "sglang", 4, "");
        assert!(
            (extra_of(&default, 0) - 22.305).abs() < 1e-9,
            "{}",
            extra_of(&default, 0)
        );
        assert!(
            (extra_of(&tuned, 0) - 6.615).abs() < 1e-9,
            "{}",
            extra_of(&tuned, 0)
        );
        let fp8 = scenario("h200-8x-nvlink", "deepseek-v3", "sglang", 8, off);
        assert!((extra_of(&fp8, 3) - 8.82).abs() < 1e-9, "{}", extra_of(&fp8, 3));
        let text = "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"qwen3-next-80b-a3b\"\n\
                    [engine]\nname = \"vllm\"\ntp = 4\nmoe_tuned_config = false\n\
                    [workload]\nconcurrency = 8\nprompt_len = 1000\noutput_len = 2000\n";
        let err = load_str(text, Path::new("moe-call.toml"))
            .expect_err("vLLM refuses the key")
            .to_string();
        assert!(
            err.contains("engine.moe_tuned_config") && err.contains("SGLang"),
            "{err}"
        );
    }

    /// DeepSeek-V3 block-FP8 (first MoE layer 3) under vLLM on 8× H200 at TP 8: the call quantizes
    /// twice before its GEMMs (`llm::act_quant`: 4 quantization kernels, 2 of them the shared
    /// expert's), so (6 + 2) × 1.1025 = 8.82 µs, the benchmarked call's 32.82 − 8 × 3. A dense
    /// layer, DeepEP's all-to-all path, a named non-triton backend and a non-Hopper GPU get 0.
    #[test]
    fn block_fp8_call_counts_its_two_quantizations_and_only_the_triton_path() {
        let s = scenario("h200-8x-nvlink", "deepseek-v3", "vllm", 8, "");
        assert!((extra_of(&s, 3) - 8.82).abs() < 1e-9, "{}", extra_of(&s, 3));
        assert!(extra_of(&s, 0).abs() < 1e-12);
        let cutlass = scenario(
            "h200-8x-nvlink",
            "deepseek-v3",
            "vllm",
            8,
            "moe_backend = \"cutlass\"\n",
        );
        assert!(extra_of(&cutlass, 3).abs() < 1e-12);
        let triton = scenario(
            "h200-8x-nvlink",
            "deepseek-v3",
            "vllm",
            8,
            "moe_backend = \"triton\"\n",
        );
        assert!((extra_of(&triton, 3) - 8.82).abs() < 1e-9);
        let a100 = scenario(
            "a100-sxm4-80gb-4x-dgx-a100-shm",
            "qwen3-next-80b-a3b",
            "vllm",
            4,
            "",
        );
        assert!(extra_of(&a100, 0).abs() < 1e-12);
    }

    /// b200moe55: on 8× B200 (SM 10.0) the per-kernel figure is the two B200 series' mean,
    /// (50.0172 / 7 + 27.6240 / 6) / 2 = (7.14531 + 4.60400) / 2 = 5.87466 µs. GLM-4.6 bf16 under
    /// SGLang 0.5.6.post1 (triton: `Glm4MoeForCausalLM` has no SM 10.x runner rule for bf16): a
    /// 6-kernel call, 6 × 2.87466 = 17.248 µs (± 0.001) with `moe_tuned_config = true`; untuned
    /// (the table's default here: no `E=160,N=192` B200 file, and `false`) it adds (b200moe62) sglang
    /// PR 7004's 700 / 48 = 14.583 µs: 31.831 µs (± 0.001). DeepSeek-V3 block FP8 with a named
    /// triton backend: 8 × 2.87466 = 22.997 µs;
    /// under 0.5.6's own `flashinfer_trtllm` runner no triton cost, but (b200sg63) the TRT-LLM call's
    /// fixed kernels: 27.0 − 4 × 3 = 15.0 µs (± 1e-9). An RTX 5090 (SM 12.0) gets 0.
    #[test]
    fn b200_call_takes_the_b200_series_per_kernel_cost() {
        assert!((FUSED_MOE_KERNEL_US_SM100 - 5.87466).abs() < 1e-5);
        let v = "version = \"0.5.6.post1\"\n";
        let on = format!("{v}moe_tuned_config = true\n");
        let glm_on = scenario("b200-8x-nvlink", "glm-4.6", "sglang", 8, &on);
        assert!(
            (extra_of(&glm_on, 3) - 17.248).abs() < 1e-3,
            "{}",
            extra_of(&glm_on, 3)
        );
        let glm = scenario("b200-8x-nvlink", "glm-4.6", "sglang", 8, v);
        assert!((extra_of(&glm, 3) - 31.831).abs() < 1e-3, "{}", extra_of(&glm, 3));
        let off = format!("{v}moe_tuned_config = false\n");
        let glm_off = scenario("b200-8x-nvlink", "glm-4.6", "sglang", 8, &off);
        assert!(
            (extra_of(&glm_off, 3) - 31.831).abs() < 1e-3,
            "{}",
            extra_of(&glm_off, 3)
        );
        let named = format!("{v}moe_backend = \"triton\"\n");
        let ds = scenario("b200-8x-nvlink", "deepseek-v3", "sglang", 8, &named);
        assert!((extra_of(&ds, 3) - 22.997).abs() < 1e-3, "{}", extra_of(&ds, 3));
        let trtllm = scenario("b200-8x-nvlink", "deepseek-v3", "sglang", 8, v);
        assert_eq!(trtllm.engine.moe_backend.as_deref(), Some("flashinfer_trtllm"));
        assert!(
            (extra_of(&trtllm, 3) - 15.0).abs() < 1e-9,
            "{}",
            extra_of(&trtllm, 3)
        );
        let rtx = scenario("rtx-5090-4x-no-p2p", "qwen3-30b-a3b", "vllm", 4, "");
        assert!(extra_of(&rtx, 0).abs() < 1e-12);
    }

    /// The charge lands in the decode's MoE op: Qwen3-Next bf16 under vLLM on 8× H200 at TP 2 (no
    /// SGLang dual stream), one decode step of 8 tokens, layer 3's MoE costs 6.615 µs more with the
    /// engine's triton path than with a named CUTLASS backend, which bf16 experts give no other cost
    /// (`[compute.moe_backends]` applies to quantized experts only); ± 0.002 µs (integer ns).
    #[test]
    fn the_decode_moe_op_carries_the_charge() {
        let moe_us = |extra: &str| {
            let s = scenario("h200-8x-nvlink", "qwen3-next-80b-a3b", "vllm", 2, extra);
            let costs = collective_costs(&s);
            let mut b = Builder::new(&s, &costs);
            let d = b.simulate(8, 64, false).expect("decode");
            durations(&d.graph, "decode: L3 moe")[0].as_us_f64()
        };
        let triton = moe_us("");
        let cutlass = moe_us("moe_backend = \"cutlass\"\n");
        assert!((triton - cutlass - 6.615).abs() < 0.002, "{triton} {cutlass}");
    }

    /// b200sg63: the TRT-LLM call's fixed kernels by GPU and expert format. The constant by hand,
    /// 11.0 + 3.6 + 6.8 + 5.6 = 27.0 µs (tests/data/trtllm-moe-b200.tsv). DeepSeek-V3 block FP8 under
    /// SGLang 0.5.6.post1 on 8× H200 with `flashinfer_trtllm` named gets nothing (SM 9.0: no profile
    /// read); Qwen3-Next bf16 under 0.5.8 on B200 (`flashinfer_trtllm` by SGLang's rule) gets nothing
    /// (another call); a dense layer of DeepSeek-V3 (layer 0) gets nothing.
    #[test]
    fn trtllm_fixed_kernels_charge_block_fp8_on_sm100_only() {
        assert!((TRTLLM_FP8_FIXED_KERNELS_US_SM100 - 27.0).abs() < 1e-9);
        let v = "version = \"0.5.6.post1\"\n";
        let b200 = scenario("b200-8x-nvlink", "deepseek-v3", "sglang", 8, v);
        assert!(extra_of(&b200, 0).abs() < 1e-12);
        let named = format!("{v}moe_backend = \"flashinfer_trtllm\"\n");
        let h200 = scenario("h200-8x-nvlink", "deepseek-v3", "sglang", 8, &named);
        assert!(extra_of(&h200, 3).abs() < 1e-12, "{}", extra_of(&h200, 3));
        let bf16 = scenario(
            "b200-8x-nvlink",
            "qwen3-next-80b-a3b",
            "sglang",
            2,
            "version = \"0.5.8\"\n",
        );
        assert_eq!(bf16.engine.moe_backend.as_deref(), Some("flashinfer_trtllm"));
        assert!(
            trtllm_fp8_us(
                &bf16,
                &bf16.model.forward_pass(8, 2).layers[0],
                WeightDtype::Bf16,
                3.0
            )
            .abs()
                < 1e-12
        );
    }

    /// b200host64: the bf16 TRT-LLM call's charge. By hand: 51 − 2 × (157 − 51) ÷ 8 = 24.5 µs, less
    /// 6 × 3 µs = 6.5 µs a MoE layer for Qwen3-Next bf16 under SGLang 0.5.8 on B200 (`flashinfer_trtllm` by
    /// SGLang's rule); nothing on H200 with the runner named (SM 9.0), nothing for DeepSeek-V3's block
    /// FP8 (the FP8 call's own 15.0 only), nothing at a per-kernel cost of 5 µs (6 × 5 > 24.5).
    #[test]
    fn trtllm_bf16_call_charges_its_fixed_part_on_sm100_only() {
        assert!((TRTLLM_BF16_CALL_FIXED_US - 24.5).abs() < 1e-12);
        let v = "version = \"0.5.8\"\n";
        let b200 = scenario("b200-8x-nvlink", "qwen3-next-80b-a3b", "sglang", 2, v);
        assert_eq!(b200.engine.moe_backend.as_deref(), Some("flashinfer_trtllm"));
        assert!((extra_of(&b200, 0) - 6.5).abs() < 1e-9, "{}", extra_of(&b200, 0));
        let l = b200.model.forward_pass(8, 2).layers[0];
        assert!(extra_us(&b200, &l, WeightDtype::Bf16, 5.0, 8, 512).abs() < 1e-12);
        let named = format!("{v}moe_backend = \"flashinfer_trtllm\"\n");
        let h200 = scenario("h200-8x-nvlink", "qwen3-next-80b-a3b", "sglang", 2, &named);
        assert!(extra_of(&h200, 0).abs() < 1e-12, "{}", extra_of(&h200, 0));
        let ds = scenario(
            "b200-8x-nvlink",
            "deepseek-v3",
            "sglang",
            8,
            "version = \"0.5.6.post1\"\n",
        );
        assert!((extra_of(&ds, 3) - 15.0).abs() < 1e-9, "{}", extra_of(&ds, 3));
    }
}
