//! vllmfusion: two per-layer kernel questions the model crate's engine-neutral layer template
//! (`tpsim_model::llm::forward::attention_kernels`, `act_quant`) leaves to the engine.
//!
//! **RMSNorm + per-token-group FP8 quantization (vLLM).** Read in the vLLM wheels 0.10.2 – 0.19.0:
//! - 0.10.x, 0.11.x: the block-FP8 linear is one opaque custom op
//!   (`fp8_utils.py` `torch.ops.vllm.apply_w8a8_block_fp8_linear`, the `per_token_group_quant_fp8`
//!   call inside it), so no compile pass sees the quantization; `PassConfig.enable_fusion` is off
//!   anyway (0.10.2: `not VLLM_USE_V1`; 0.11.0: `False`). Not fused.
//! - 0.12+: the quantization is `QuantFP8` (`W8A8BlockFp8LinearOp`), and a model with block
//!   weights turns its CUDA op on (`config/vllm.py`: `+quant_fp8` when `has_blocked_weights()`,
//!   vllm issue 25094), which makes the -O2 default `fuse_norm_quant = enable_norm_fusion` true.
//!   0.12's `RMSNormQuantFusionPass` has only per-tensor and per-token patterns: not fused.
//! - 0.13+: `FusedAddRMSNormGroupQuantPattern` / `RMSNormGroupQuantPattern` (group 128 and 64,
//!   row- or column-major scales, ue8m0 or not; CUDA only) replace the norm and the quantization
//!   by `_C.rms_norm_per_block_quant`: the quantization kernel goes, the norm kernel stays.
//! - 0.15.x, 0.16.x: DeepGEMM's quantization (SM 9.0) allocates TMA-aligned scales
//!   (`VLLM_USE_DEEP_GEMM_TMA_ALIGNED_SCALES`, default 1; vllm PR 32619) with `empty_strided`,
//!   which the patterns (`empty` + `permute`) do not match, until vllm PR 33255 ("Fix quant RMS
//!   norm fusion for quantization with TMA-aligned scales", 0.17.0 adds `is_tma_aligned`).
//! - SM 10.x: DeepGEMM's ue8m0 path quantizes with `per_token_group_quant_fp8_packed_for_deepgemm`
//!   (0.13+), which no pattern up to 0.19 matches. Not fused.
//! - 0.17+: at TP > 1 on SM 9.0 / 10.x with FlashInfer, the -O2 default `fuse_allreduce_rms`
//!   (`enable_allreduce_rms_fusion`; TP 2/4/8, no pipeline or data parallelism) runs first
//!   (`pass_manager.py`) and folds each allreduce and the residual norm after it into one FlashInfer
//!   kernel, for inputs up to `FI_ALLREDUCE_FUSION_MAX_SIZE_MB` (SM 9.0: 64 / 2 / 0.5 MB at TP
//!   2 / 4 / 8, `allreduce_rms_fusion.py`); its patterns have no group quantization up to 0.19, so
//!   those norms' quantization stays. MLA's `q_a_layernorm` follows no allreduce and still fuses.
//! - `--enforce-eager` (optimization level O0) compiles nothing; ROCm registers no group pattern.
//!
//! The SiluMul + quantization pass (`ActivationQuantFusionPass`) has per-tensor static FP8 and
//! NVFP4 patterns only (0.12 – 0.19), and the MoE's quantizations run inside the opaque fused-MoE
//! op: those kernels stay. SGLang fuses norm and group quantization only on ROCm gfx950 with
//! `SGLANG_USE_AITER` (0.5.3 – 0.5.9 `layers/communicator.py`, `models/deepseek_v2.py`
//! `fused_rms_fp8_group_quant`), which tpsim does not model; on CUDA it launches
//! `sglang_per_token_group_quant_fp8` before every block-FP8 GEMM.
//!
//! **The KV-cache store.** The layer template counts no kernel for writing the step's new K/V into
//! the paged cache. What the engines launch per full-attention layer:
//! - vLLM 0.10 – 0.19, every CUDA backend (FlashAttention, FlashInfer, Triton, FlexAttention):
//!   one `reshape_and_cache_flash` (Triton: `triton_reshape_and_cache_flash`; MLA:
//!   `concat_and_cache_mla`), which also converts to an fp8 cache. 0.19's RoPE + KV-cache fusion
//!   pass (`enable_rope_kvcache_fusion`) needs ROCm AITER.
//! - SGLang, MHA pool (`mem_cache/memory_pool.py` `MHATokenToKVPool.set_kv_buffer`): up to 0.5.7
//!   two indexed copies (`k_buffer[loc] = k`, `v_buffer[loc] = v`); from 0.5.8 on CUDA one JIT
//!   `store_cache` kernel for both (`_set_kv_buffer_impl`, `can_use_store_cache`). An fp8 cache
//!   first casts k and v (`cache_k.to(self.dtype)`): two more kernels. `Qwen3MoeForCausalLM` and
//!   `BailingMoeV2ForCausalLM` (and `GptOssForCausalLM` before 0.5.8, whose hybrid SWA pool
//!   `enable_fused_set_kv_buffer` excludes from 0.5.8) write a bf16 cache inside the RoPE kernel
//!   (`fused_set_kv_buffer_arg`, CUDA only): no store kernel.
//! - SGLang, MLA pool (`MLATokenToKVPool.set_kv_buffer` / `set_mla_kv_buffer`): one kernel, plus
//!   one cast for an fp8 cache.
//!
//! Each store kernel writes the new tokens' cache cells after reading k and v
//! ([`kv_store_bytes`]).

use crate::scenario::{EngineKind, Scenario, accel::GpuVendor};
use tpsim_model::llm::{Architecture, Attention, ForwardPass, KvCacheDtype, Mixer, ModelSpec};
use tpsim_model::units::Bytes;

/// Which sole-consumer norms (`tpsim_model::llm::NormFedQuant`) vLLM fuses with the quantization
/// after them in a pass of `tokens` tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct NormQuantFusion {
    /// The residual-stream norms (input / post-attention layernorm).
    pub residual: bool,
    /// The inner norms (MLA's `q_a_layernorm`).
    pub inner: bool,
}

/// vLLM's `FI_ALLREDUCE_FUSION_MAX_SIZE_MB` for SM 9.0 (0.17.0 – 0.19.0
/// `compilation/passes/fusion/allreduce_rms_fusion.py`), bytes, at TP `tp`; `None` where FlashInfer's
/// fused allreduce takes no world size of that size (the pass is then off).
fn fi_allreduce_fusion_max_bytes_sm90(tp: u32) -> Option<u64> {
    const MIB: u64 = 1 << 20;
    match tp {
        2 => Some(64 * MIB),
        4 => Some(2 * MIB),
        8 => Some(MIB / 2),
        _ => None,
    }
}

/// The module doc's vLLM rule, for scenario `s` and a pass of `tokens` tokens over a residual
/// stream of `hidden` elements (the allreduce's size, at 2 bytes an element).
pub(crate) fn vllm_norm_quant_fusion(s: &Scenario, tokens: u32, hidden: u64) -> NormQuantFusion {
    const NONE: NormQuantFusion = NormQuantFusion {
        residual: false,
        inner: false,
    };
    let e = &s.engine;
    if e.kind != EngineKind::Vllm || !e.cuda_graph || s.hardware.accel.vendor != GpuVendor::Nvidia {
        return NONE;
    }
    let Some(r) = crate::engine_args_versions::release(&e.release().version) else {
        return NONE;
    };
    let sm = tpsim_model::hw::sm_version(&s.hardware.gpu.compute_capability);
    let deepgemm_sm90 = sm == 90;
    let sm100 = (100..110).contains(&sm);
    if r < vec![0, 13] || sm100 || (deepgemm_sm90 && r >= vec![0, 15] && r < vec![0, 17]) {
        return NONE;
    }
    let allreduce_takes_norm = r >= vec![0, 17]
        && deepgemm_sm90
        && e.pp == 1
        && e.vllm_dp.is_none()
        && e.replicas == 1
        && fi_allreduce_fusion_max_bytes_sm90(e.tp)
            .is_some_and(|max| u64::from(tokens).saturating_mul(hidden).saturating_mul(2) <= max);
    NormQuantFusion {
        residual: !allreduce_takes_norm,
        inner: true,
    }
}

/// Kernels the engine launches per full-attention layer to store the step's new K/V (module doc).
pub(crate) fn kv_store_kernels(s: &Scenario, model: &ModelSpec) -> u32 {
    let fp8 = matches!(
        model.quantization.kv_cache_dtype,
        KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2
    );
    match s.engine.kind {
        EngineKind::Vllm => 1,
        EngineKind::Sglang => {
            let cuda = s.hardware.accel.vendor == GpuVendor::Nvidia;
            let r = crate::engine_args_versions::release(&s.engine.release().version).unwrap_or_default();
            let store_cache = cuda && r >= vec![0, 5, 8];
            if matches!(model.attention, Attention::Mla { .. }) {
                return 1 + u32::from(fp8);
            }
            // dsv4k56: DeepSeek-V4's SWA store is one of its layer's counted launches
            // (`llm::deepseek_v4_layer`: the KV's fused norm + rope + store), not a store apart.
            if model.deepseek_v4.is_some() {
                return 0;
            }
            let bf16 = matches!(
                model.quantization.kv_cache_dtype,
                KvCacheDtype::Auto | KvCacheDtype::Bf16
            ) && model.dtype == tpsim_model::llm::WeightDtype::Bf16;
            let rope_fused = cuda
                && bf16
                && match model.arch {
                    Architecture::Qwen3Moe | Architecture::BailingMoeV2 => true,
                    Architecture::GptOss => !store_cache,
                    _ => false,
                };
            if rope_fused {
                0
            } else {
                (if store_cache { 1 } else { 2 }) + if fp8 { 2 } else { 0 }
            }
        }
    }
}

/// Bytes one store moves in a layer for `tokens` new tokens: each token's cache cell written
/// (`kv_bytes_per_token`) after its k and v are read (counted at the cell's size; an fp8 cache
/// reads its bf16 source at twice that, a third of the store's bytes more, left out).
pub(crate) fn kv_store_bytes(kv_bytes_per_token: u64, tokens: u32) -> f64 {
    2.0 * kv_bytes_per_token as f64 * f64::from(tokens)
}

/// Applies both rules to `fp`, a pass of `tokens` tokens of `model` under `s`: the fused
/// quantizations leave `attn_quant_*` / `ffn_quant_*` and the kernel counts. Returns the store
/// kernels per full-attention layer, which the attention's cost adds ([`layer_store_kernels`]).
pub(crate) fn apply(fp: &mut ForwardPass, s: &Scenario, model: &ModelSpec, tokens: u32) -> u32 {
    // qwen3next: SGLang's Qwen3-Next gate kernels (`passes::sgl_qwen3_next`).
    super::sgl_qwen3_next::apply(fp, s, model);
    // moeroute62: the engine's routing kernels for a biased grouped top-k (`passes::moe_route`).
    super::moe_route::apply(fp, s, model, tokens);
    let fusion = vllm_norm_quant_fusion(s, tokens, model.hidden);
    let store = kv_store_kernels(s, model);
    for l in &mut fp.layers {
        for (kernels, quant_kernels, quant_bytes, nf) in [
            (
                &mut l.attn_kernels,
                &mut l.attn_quant_kernels,
                &mut l.attn_quant_bytes,
                l.attn_norm_fed_quant,
            ),
            (
                &mut l.ffn_kernels,
                &mut l.ffn_quant_kernels,
                &mut l.ffn_quant_bytes,
                l.ffn_norm_fed_quant,
            ),
        ] {
            let (mut k, mut b) = (0u32, 0u64);
            if fusion.residual {
                k += nf.residual_kernels;
                b += nf.residual_bytes;
            }
            if fusion.inner {
                k += nf.inner_kernels;
                b += nf.inner_bytes;
            }
            *kernels = kernels.saturating_sub(k);
            *quant_kernels = quant_kernels.saturating_sub(k);
            *quant_bytes = Bytes(quant_bytes.0.saturating_sub(b));
        }
    }
    store
}

/// The store kernels of layer `l` in a pass whose engine launches `store` per full-attention layer
/// ([`kv_store_kernels`]): GPU work only. They are not host launches of their own: each runs inside
/// the attention module's call (vLLM's attention op, SGLang's `RadixAttention` backend), whose
/// host cost the per-kernel `launch_overhead` (derived per modelled module call,
/// `scenarios/engines/*.toml`) already covers, as it does for a piecewise graph's eager attention.
pub(crate) fn layer_store_kernels(l: &tpsim_model::llm::LayerWork, store: u32) -> u32 {
    if l.mixer == Mixer::Attention && l.attn_kernels > 0 && l.kv_bytes_per_token > 0 {
        store
    } else {
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    /// `model` on `hw` under `engine` (TOML lines of `[engine]`), one request.
    fn load(hw: &str, model: &str, engine: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\n{engine}\n\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("layer-kernels.toml")).expect("scenario")
    }

    fn vllm(hw: &str, tp: u32, version: &str) -> Scenario {
        load(
            hw,
            "qwen3-32b-fp8",
            &format!("name = \"vllm\"\ntp = {tp}\nversion = \"{version}\""),
        )
    }

    const BOTH: NormQuantFusion = NormQuantFusion {
        residual: true,
        inner: true,
    };
    const NONE: NormQuantFusion = NormQuantFusion {
        residual: false,
        inner: false,
    };

    #[test]
    fn vllm_fuses_norm_and_group_quant_from_0_13_except_where_the_patterns_miss() {
        let h100 = "h100-sxm-1x";
        // Qwen3-32B's residual stream: 5,120 elements.
        for (v, want) in [
            ("0.10.2", NONE), // the opaque apply_w8a8_block_fp8_linear op
            ("0.11.0", NONE),
            ("0.12.0", NONE), // no group pattern yet
            ("0.13.0", BOTH),
            ("0.14.0", BOTH),
            ("0.15.1", NONE), // DeepGEMM's TMA-aligned scales (PR 32619) until PR 33255
            ("0.16.0", NONE),
            ("0.17.0", BOTH),
            ("0.19.0", BOTH),
        ] {
            assert_eq!(vllm_norm_quant_fusion(&vllm(h100, 1, v), 4, 5_120), want, "{v}");
        }
        // Off the DeepGEMM path (SM 8.9: CUTLASS / triton) the TMA layout never applies.
        assert_eq!(
            vllm_norm_quant_fusion(&vllm("l40s-8x-pcie", 1, "0.16.0"), 4, 5_120),
            BOTH
        );
        // SM 10.0: DeepGEMM's packed ue8m0 quantization, no pattern; ROCm: no group pattern.
        assert_eq!(
            vllm_norm_quant_fusion(&vllm("b200-8x-nvlink", 1, "0.19.0"), 4, 5_120),
            NONE
        );
        assert_eq!(
            vllm_norm_quant_fusion(&vllm("mi300x-8x-xgmi", 1, "0.19.0"), 4, 5_120),
            NONE
        );
        // --enforce-eager (O0) compiles nothing; SGLang has no such pass on CUDA.
        let eager = load(
            h100,
            "qwen3-32b-fp8",
            "name = \"vllm\"\ntp = 1\nversion = \"0.19.0\"\ncuda_graph = false",
        );
        assert_eq!(vllm_norm_quant_fusion(&eager, 4, 5_120), NONE);
        let sgl = load(h100, "qwen3-32b-fp8", "name = \"sglang\"\ntp = 1");
        assert_eq!(vllm_norm_quant_fusion(&sgl, 4, 5_120), NONE);
    }

    #[test]
    fn vllm_0_17_allreduce_fusion_takes_the_residual_norms_up_to_its_size_limit() {
        let s = vllm("h100-sxm-8x-nvlink", 4, "0.19.0");
        // TP 4 on SM 9.0: 2 MiB = 2,097,152 B; 204 tokens × 5,120 × 2 B = 2,088,960 fit, 205
        // (2,099,200) do not.
        let inner_only = NormQuantFusion {
            residual: false,
            inner: true,
        };
        assert_eq!(vllm_norm_quant_fusion(&s, 204, 5_120), inner_only);
        assert_eq!(vllm_norm_quant_fusion(&s, 205, 5_120), BOTH);
        // 0.14 has no allreduce fusion by default ("fuse_allreduce_rms": False at -O2).
        assert_eq!(
            vllm_norm_quant_fusion(&vllm("h100-sxm-8x-nvlink", 4, "0.14.0"), 8, 5_120),
            BOTH
        );
    }

    #[test]
    fn kv_store_kernels_by_engine_release_and_model() {
        let h100 = "h100-sxm-1x";
        let sgl = |model: &str, extra: &str| {
            let s = load(h100, model, &format!("name = \"sglang\"\ntp = 1\n{extra}"));
            kv_store_kernels(&s, &s.model)
        };
        // vLLM: reshape_and_cache_flash / concat_and_cache_mla, one per layer.
        let v = vllm(h100, 1, "0.11.0");
        assert_eq!(kv_store_kernels(&v, &v.model), 1);
        // SGLang MHA: k and v index copies up to 0.5.7, the JIT store_cache from 0.5.8.
        assert_eq!(sgl("qwen3-32b-fp8", "version = \"0.5.3.post3\""), 2);
        assert_eq!(sgl("qwen3-32b-fp8", "version = \"0.5.8\""), 1);
        // Qwen3-MoE writes a bf16 cache inside its RoPE kernel.
        assert_eq!(sgl("qwen3-30b-a3b-fp8", "version = \"0.5.8\""), 0);
        // MLA: one store.
        let dsv3 = load("h200-8x-nvlink", "deepseek-v3", "name = \"sglang\"\ntp = 8");
        assert_eq!(kv_store_kernels(&dsv3, &dsv3.model), 1);
    }

    #[test]
    fn apply_moves_the_fused_quantization_and_adds_the_store() {
        // Qwen3-32B FP8 on one H100, vLLM 0.17.0, 4 tokens: per layer the attention half had
        // 6 template kernels + 2 quantizations (qkv_proj, o_proj), the MLP 4 + 2 (gate_up, down).
        let s = vllm("h100-sxm-1x", 1, "0.17.0");
        let mut fp = s.model.forward_pass(1, 4);
        let before = fp.layers[0];
        assert_eq!((before.attn_kernels, before.ffn_kernels), (8, 6));
        assert_eq!(apply(&mut fp, &s, &s.model, 4), 1);
        let l = fp.layers[0];
        // qkv_proj's and gate_up_proj's quantizations fuse into their norms (−1 each); the
        // attention's cost adds one KV store, not launched by the host on its own.
        assert_eq!((l.attn_kernels, l.ffn_kernels), (7, 5));
        assert_eq!(layer_store_kernels(&l, 1), 1);
        assert_eq!((l.attn_quant_kernels, l.ffn_quant_kernels), (1, 1));
        // qkv_proj's input: 5,120 elements a row, 4 rows × (5,120 × 3 + 40 × 4) = 62,080 B left.
        assert_eq!(before.attn_quant_bytes.0 - l.attn_quant_bytes.0, 62_080);
        assert_eq!(before.ffn_quant_bytes.0 - l.ffn_quant_bytes.0, 62_080);
    }
}
