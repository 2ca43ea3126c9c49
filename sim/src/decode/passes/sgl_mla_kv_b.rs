//! ttft63 (issue #18): SGLang 0.5.6's MLA extend projects the latent through `kv_b_proj` twice.
//!
//! A fresh prompt's extend of a `DeepseekV2AttentionMLA` layer (DeepSeek-V2 / V3 / R1, Kimi-K2,
//! Kimi-VL; not the DSA models, whose NSA backend dispatches apart) runs un-absorbed, through
//! `forward_normal_prepare` (`models/deepseek_v2.py`): every backend's dispatcher sends an extend
//! with no cached prefix there outside piecewise graphs and deterministic mode (`trtllm_mla` and
//! `fa4` as `MHA_CHUNKED_KV`, FA3 / FlashInfer / FlashMLA / CUTLASS MLA as `MHA_ONE_SHOT` or
//! `MHA_CHUNKED_KV`, Triton and aiter as `MHA`; all three call `forward_normal_prepare`).
//!
//! In SGLang 0.5.6, 0.5.6.post1 and 0.5.6.post2 (the PyPI wheels' `forward_normal_prepare`) that
//! function computes `kv = self.kv_b_proj(kv_a)[0]` in the branch that applies `kv_a_layernorm`
//! (the CUDA and non-gfx950 path; gfx950's branch projects the quantized `kv_a` there), then, after
//! the rope and the latent store, projects again with `kv = self.kv_b_proj(kv_a)[0]` and uses only
//! the second result. 0.5.5 (one projection after the store) and 0.5.7 (the second projection
//! only, under an `if _use_aiter_gfx95 … else` of its own) run it once; so does 0.5.8's
//! `deepseek_common/attention_forward_methods/forward_mha.py`.
//!
//! tpsim's layer template counts the MLA attention as its absorbed form (`forward::attention_kernels`),
//! whose `w_kc` / `w_vc` GEMMs carry one `kv_b_proj`'s FLOPs; the second projection is launched
//! on top: its GEMM, and with a block-FP8 `kv_b_proj` the `sglang_per_token_group_quant_fp8` before
//! it (`llm::act_quant`): 2 launches a layer for DeepSeek-R1's block-FP8 checkpoint, 1 for a bf16
//! `kv_b_proj` (`F.linear`). Other formats (NVFP4, …) were not read and count one. Its GPU time is
//! not added: at TP 8 the GEMM is 512 × 16 heads × 256 (2 MiB of fp8 weights), 2.5 GFLOP over a
//! 600-token prompt, about 1 µs on a B200 beside the 31.7 µs a launch costs the host.

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{Architecture, Attention, LayerWork, ModelSpec, WeightDtype};

/// Whether `version` is an SGLang release whose `forward_normal_prepare` projects through
/// `kv_b_proj` twice (0.5.6 – 0.5.6.post2, module doc); an unversioned scenario (newest read) is not.
pub(crate) fn projects_twice(version: &str) -> bool {
    crate::engine_args_versions::release(version).is_some_and(|r| r == vec![0, 5, 6])
}

/// The launches of the second `kv_b_proj` SGLang's eager extend adds to MLA layer `l` of `model`
/// under `s` (module doc); 0 for other engines, releases, models and layers.
pub(crate) fn extra_launches(s: &Scenario, model: &ModelSpec, l: &LayerWork) -> u32 {
    let mla_class = matches!(
        model.arch,
        Architecture::DeepseekV2 | Architecture::DeepseekV3 | Architecture::KimiVl | Architecture::KimiK25
    );
    if s.engine.kind != EngineKind::Sglang
        || !mla_class
        || !matches!(model.attention, Attention::Mla { .. })
        || l.attn_kernels == 0
        || !projects_twice(&s.engine.release().version)
    {
        return 0;
    }
    let q = &model.quantization;
    let f = q.projections.kv_b_proj.unwrap_or(q.weights);
    1 + u32::from(f.dtype == WeightDtype::Fp8 && f.block_size.is_some())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn load(model: &str, version: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"b200-8x-nvlink\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n\
             version = \"{version}\"\ntp = 8\n[workload]\nconcurrency = 1\nprompt_len = 1000\noutput_len = 16\n"
        );
        load_str(&text, Path::new("sgl-mla-kv-b.toml")).expect("scenario")
    }

    /// The wheels' rule: 0.5.6, .post1 and .post2 project twice; 0.5.5 and 0.5.7 once.
    #[test]
    fn ttft63_kv_b_twice_by_release() {
        for (v, want) in [
            ("0.5.5", false),
            ("0.5.6", true),
            ("0.5.6.post1", true),
            ("0.5.6.post2", true),
            ("0.5.7", false),
            ("0.5.8", false),
        ] {
            assert_eq!(projects_twice(v), want, "{v}");
        }
    }

    /// DeepSeek-R1's block-FP8 `kv_b_proj` on 0.5.6.post1: quantization + GEMM = 2 a layer (dense
    /// prefix and MoE layers alike); 0.5.7: none; a GQA model: none.
    #[test]
    fn ttft63_kv_b_twice_launches() {
        let s = load("deepseek-v3", "0.5.6.post1");
        let fp = s.model.forward_pass(8, 1000);
        assert_eq!(extra_launches(&s, &s.model, &fp.layers[0]), 2);
        assert_eq!(extra_launches(&s, &s.model, &fp.layers[3]), 2);
        let s7 = load("deepseek-v3", "0.5.7");
        assert_eq!(extra_launches(&s7, &s7.model, &fp.layers[3]), 0);
        let g = load("qwen3-235b-a22b", "0.5.6");
        let gl = g.model.forward_pass(8, 1000).layers[0];
        assert_eq!(extra_launches(&g, &g.model, &gl), 0);
    }
}
