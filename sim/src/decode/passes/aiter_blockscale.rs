//! mi300x58 (issue #18): SGLang's block-FP8 dense linears on gfx942 (MI300X / MI325X) run AITER's
//! **Triton** `gemm_a8w8_blockscale`, and DeepSeek-V3's fused q_a / kv_a projection had no gfx942
//! tuned config for it in the releases up to 0.5.9.
//!
//! **The kernel.** With `SGLANG_USE_AITER` (set in SGLang's ROCm images) `dispatch_w8a8_block_fp8_linear`
//! returns `aiter_w8a8_block_fp8_linear` on HIP, which quantizes the activations per 1 × 128
//! (`aiter_per1x128_quant`) and calls `gemm_a8w8_blockscale` imported from
//! `aiter.ops.triton.gemm_a8w8_blockscale` — the CK import beside it is commented out
//! (`layers/quantization/fp8_utils.py`, read in the sglang 0.5.7, 0.5.8 and 0.5.9 wheels). The
//! Triton kernel takes its tile from a per-arch, per-(N, K) JSON and, without one, from the arch's
//! default config.
//!
//! **The missing config.** DeepSeek-V3 / R1 / V3.1 (`DeepseekV2AttentionMLA`) project q_a and the
//! latent KV together: `fused_qkv_a_proj_with_mqa`, a `ReplicatedLinear` of hidden 7,168 →
//! `q_lora_rank + kv_lora_rank + qk_rope_head_dim` = 1,536 + 512 + 64 = 2,112 (`models/deepseek_v2.py`,
//! 0.5.7 – 0.5.10), the same shape at every TP. ROCm/aiter pull 1930 (2026-01-29, "[Triton] Add tune
//! config on Mi300x/Mi325x for gemm_A8W8_blockscale used in Deepseek models"): "the tuning configuration
//! for the specific shape (N=2112, K=7168) was missing on mi300x, causing it to fall back to default
//! parameters"; with that one shape tuned, SGLang serving DeepSeek-R1 on MI300X at 1k/1k had a
//! median TPOT of 28.76 → 22.05 ms at concurrency 4 (37.19 → 25.56 at 8, 47.17 → 30.83 at 16). One
//! GEMM a layer changed, so at c 4 the default config cost (28.76 − 22.05) ms ÷ 61 layers =
//! 110.0 µs a layer more than the tuned one: [`UNTUNED_QKV_A_US`]. sglang pull 18242 (2026-02-04,
//! "[ROCm] Optimize Deepseek R1 on MI300X") names the tuned gfx942 DeepSeek GEMM configs as resolved
//! in ROCm/aiter pull 2024, and its other change — `fused_qk_rope_cat_and_cache_mla` on every HIP
//! platform, not only `_use_aiter_gfx95` — is absent from the 0.5.7, 0.5.8 and 0.5.9 wheels (each
//! still guards it by `_use_aiter_gfx95`): those releases' images predate the fix. From 0.5.10 on
//! the config is taken as tuned (assumed for 0.5.10: its image's AITER commit is not read). mi300x59
//! read the pins: SGLang 0.5.8's `docker/rocm.Dockerfile` builds AITER v0.1.9.post1 for gfx942 and the
//! 0.5.9 release's (wheel built 2026-02-23) v0.1.10.post3, neither with a
//! `gfx942-GEMM-A8W8_BLOCKSCALE-N=2112-K=7168.json`; AITER v0.1.11 (2026-03-04) is the first tag with
//! it (ROCm/aiter commit 56055011a6, pull 2024).
//!
//! **What is charged.** [`UNTUNED_QKV_A_US`] a decode pass, per MLA layer of a model with that
//! projection shape, under SGLang ≤ 0.5.9 on a gfx942 GPU (compute capability 9.4) with block-FP8
//! attention weights, on top of the template's cost of the GEMM (which prices it as a tuned,
//! memory-bound kernel). The c 4 figure is applied at every batch (the lowest concurrency measured;
//! c 8 and c 16 differ more, 190.7 and 267.9 µs a layer, which includes what their TPOTs carry of
//! prefill, and are not applied). Prefill chunks are left as they were (the pull measures TPOT
//! only). The other block-FP8 shapes of these models (q_b, o_proj, the shared expert) and other
//! models' shapes (MiniMax-M2's qkv / o) are not charged: no measurement of their default config on
//! gfx942 was found.
//!
//! **mi300x63: q_b and o_proj at TP 8.** AITER v0.1.11's pull 2024 tuned DeepSeek-V3's q_b
//! (N 3,072 × K 1,536) and o_proj (N 7,168 × K 2,048) shapes on gfx942 together with the fused q_a /
//! kv_a (mi300x59 read the tags), so up to SGLang 0.5.9 all three run the Triton default. Their
//! default-config time is measured in SemiAnalysisAI/InferenceX issue 863's trace of one SGLang 0.5.9
//! decode step (`lmsysorg/sglang:v0.5.9-rocm700-mi30x`, DeepSeek-R1 FP8, 8× MI325X TP 8, profile run
//! 22698950054, `dsr1_1k1k_fp8_tp8_ep1_conc64`): its "Dense GEMM (aiter A8W8 blockscale)" class is 189
//! kernels in 11.89 ms = 61 layers × (~123 + ~30 + ~34 µs) + 3 dense layers × (~122 + ~39 µs)
//! (11,407 + 483 = 11,890 µs, the class total to the µs), three block-FP8 GEMMs a layer. The ~123 µs one
//! is the fused q_a / kv_a (tpsim: the template's ≈ 8 µs plus [`UNTUNED_QKV_A_US`], 118 µs, within 4 %
//! of it); the other two, ~30 + ~34 = 64 µs a layer, are q_b and o_proj (the trace's comment mislabels
//! their shapes; their count and class are the trace's). The template already charges them 2 × 4.3 µs
//! of per-kernel cost and their 19,398,656 weight bytes at the trace GPU's 0.80 × 6.0 TB/s (4.04 µs):
//! [`UNTUNED_QB_O_US`] = 64 − 12.64 = 51.36 µs a decode layer more, at TP 8 only (the shapes the trace
//! and pull 2024 name). The kernels run far under the HBM rate (19.4 MB in 64 µs, 0.30 TB/s): the
//! default tile's grid, not the memory, sets their time, so the MI325X figure is applied to the MI300X
//! (the same gfx942 die, 304 CUs; assumed). The trace is at 64 tokens; like pull 1930's c 4 figure it is
//! applied at every decode batch (assumed).

use crate::scenario::{EngineKind, Scenario, accel::GpuVendor};
use tpsim_model::llm::{Attention, LayerWork, Mixer, ModelSpec, WeightDtype};

/// What AITER's default Triton `gemm_a8w8_blockscale` config costs over the tuned one for
/// DeepSeek-V3's fused q_a / kv_a projection (N 2,112, K 7,168) on MI300X, µs a decode layer:
/// ROCm/aiter pull 1930's median TPOT at concurrency 4, (28.76 − 22.05) ms ÷ 61 layers (module doc).
pub const UNTUNED_QKV_A_US: f64 = (28.76 - 22.05) / 61.0 * 1000.0;

/// What AITER's default Triton `gemm_a8w8_blockscale` config costs over tpsim's template for
/// DeepSeek-V3's q_b and o_proj at TP 8 on gfx942, µs a decode layer: InferenceX issue 863's ~30 +
/// ~34 µs less the template's 2 × 4.3 µs and 19,398,656 B at 4.8 TB/s (module doc, mi300x63).
pub const UNTUNED_QB_O_US: f64 = (30.0 + 34.0) - (2.0 * 4.3 + 19_398_656.0 / 4.8e12 * 1e6);

/// The tensor-parallel size at which [`UNTUNED_QB_O_US`] was measured (q_b N 3,072, o_proj K 2,048).
pub const QB_O_TP: u32 = 8;

/// The query heads whose q_b (128 × 192 ÷ 8 = 3,072) and o_proj (128 × 128 ÷ 8 = 2,048) widths at TP 8
/// the trace times: DeepSeek-V3's; Kimi-K2's 64 heads give other shapes, not measured.
pub const QB_O_HEADS: u64 = 128;

/// The fused projection's output width N that pull 1930 tuned (q_lora 1,536 + kv_lora 512 + rope 64).
pub const QKV_A_N: u64 = 2112;

/// Its input width K (DeepSeek-V3's hidden size).
pub const QKV_A_K: u64 = 7168;

/// The last SGLang release whose ROCm image runs the untuned default (module doc): 0.5.9.
pub const LAST_UNTUNED: (u32, u32, u32) = (0, 5, 9);

/// Whether `s` runs `model`'s fused q_a / kv_a projection through AITER's untuned Triton default on
/// gfx942 (module doc): SGLang ≤ 0.5.9, an AMD GPU of compute capability 9.4, MLA with the 2,112 ×
/// 7,168 projection, block-FP8 attention weights.
pub fn applies(s: &Scenario, model: &ModelSpec) -> bool {
    if s.engine.kind != EngineKind::Sglang
        || s.hardware.accel.vendor != GpuVendor::Amd
        || s.hardware.gpu.compute_capability != "9.4"
    {
        return false;
    }
    let untuned_release = tpsim_model::sglang_fraction_early::release_post(&s.engine.release().version)
        .is_some_and(|(a, b, c, _)| (a, b, c) <= LAST_UNTUNED);
    let shape = match model.attention {
        Attention::Mla {
            q_lora_rank: Some(q),
            kv_lora_rank,
            qk_rope_head_dim,
            ..
        } => q + kv_lora_rank + qk_rope_head_dim == QKV_A_N && model.hidden == QKV_A_K,
        _ => false,
    };
    let fmt = model.quantization.mla_down_format();
    let block_fp8 = fmt.dtype == WeightDtype::Fp8 && fmt.block_size.is_some();
    untuned_release && shape && block_fp8
}

/// The extra time of layer `l` in a decode pass (`ctx > 0`) of `model` under `s`: [`UNTUNED_QKV_A_US`]
/// for an attention layer where [`applies`], plus [`UNTUNED_QB_O_US`] at attention TP 8 with 128 query
/// heads (mi300x63), zero otherwise.
pub fn extra_us(s: &Scenario, model: &ModelSpec, l: &LayerWork, ctx: u32) -> f64 {
    let attention = l.attn_kernels > 0 && !matches!(l.mixer, Mixer::Linear);
    if ctx > 0 && attention && applies(s, model) {
        let qb_o =
            if crate::decode::dp_attention::attention_tp(&s.engine) == QB_O_TP && model.heads == QB_O_HEADS {
                UNTUNED_QB_O_US
            } else {
                0.0
            };
        UNTUNED_QKV_A_US + qb_o
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(hw: &str, model: &str, version: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n\
             version = \"{version}\"\ntp = 8\ntrust_remote_code = true\n[workload]\nconcurrency = 1\n\
             prompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("aiter-blockscale.toml")).expect("scenario")
    }

    /// (28.76 − 22.05) ms = 6.71 ms a step; ÷ 61 layers = 0.110 ms = 110.0 µs a layer.
    #[test]
    fn the_charge_is_pull_1930s_c4_step_over_61_layers() {
        assert!((UNTUNED_QKV_A_US - 110.0).abs() < 1e-9, "{UNTUNED_QKV_A_US}");
    }

    /// mi300x63: (30 + 34) − (8.6 + 19,398,656 B ÷ 4.8 TB/s = 4.0414 µs) = 51.3586 µs a layer.
    #[test]
    fn the_qb_o_charge_is_the_traces_two_gemms_less_the_template() {
        assert!((UNTUNED_QB_O_US - 51.3586).abs() < 1e-4, "{UNTUNED_QB_O_US}");
    }

    /// DeepSeek-V3 (block FP8, 1,536 + 512 + 64 = 2,112 over hidden 7,168) on MI300X / MI325X
    /// (gfx942) under 0.5.7 and 0.5.9; not under 0.5.10, not on MI355X (gfx950), not on H200.
    #[test]
    fn the_rule_selects_deepseek_v3_on_gfx942_up_to_0_5_9() {
        for (hw, model, version, want) in [
            ("mi300x-8x-xgmi", "deepseek-v3", "0.5.7", true),
            ("mi300x-8x-xgmi", "deepseek-v3", "0.5.9", true),
            ("mi325x-8x-xgmi", "deepseek-v3", "0.5.9", true),
            ("mi300x-8x-xgmi", "deepseek-v3", "0.5.10", false),
            ("mi355x-8x-xgmi", "deepseek-v3", "0.5.9", false),
            ("h200-8x-nvlink", "deepseek-v3", "0.5.7", false),
        ] {
            let s = scenario(hw, model, version);
            assert_eq!(applies(&s, &s.model), want, "{hw} {model} {version}");
        }
    }
}
