//! vllmdsv3: the kernels vLLM launches per DSA layer (DeepSeek-V3.2) for the lightning indexer,
//! beside the MLA attention that the engine-neutral template counts
//! (`tpsim_model::llm::forward::attention_kernels`: 11 for MLA, with or without an indexer).
//!
//! The indexer's bytes (its replicated `wq_b`, `wk`, `weights_proj` weights, every context token's
//! 132-byte key) and FLOPs are costed already (`tpsim_model::llm::dsa`, `passes::attention_time`);
//! its kernels were not, so each of them lacked the per-kernel fixed cost (`kernel_overhead`) and,
//! under an eager launch, its host launch.
//!
//! Read in the vLLM 0.13.0 wheel (`model_executor/models/deepseek_v2.py`, `Indexer.forward` and
//! `sparse_attn_indexer`), at decode, per layer and rank:
//! 1. `wq_b(qr)`: a block-FP8 linear (`ReplicatedLinear` with the quant config): its activation
//!    quantization and its GEMM (DeepGEMM `fp8_gemm_nt` on SM 9.0);
//! 2. `wk(hidden_states)`: the same, quantization and GEMM;
//! 3. `k_norm` (LayerNorm), the rotary embedding of `k_pe` and the `torch.cat` of k: at least one
//!    kernel (torch.compile may fuse these elementwise ops into one);
//! 4. the rotary embedding of `q_pe` and the `torch.cat` of q: at least one kernel (its input is
//!    the `wq_b` GEMM's output and its output feeds an opaque op, so it stands alone);
//! 5. `per_token_group_quant_fp8(q)`: one kernel;
//! 6. `weights_proj(hidden_states)`: a bf16 GEMM (`quant_config=None`);
//! 7. `weights.unsqueeze(-1) * q_scale * softmax_scale * n_head ** -0.5`: one elementwise kernel
//!    (after the quantization's scale, an opaque op's output);
//! 8. inside the `sparse_attn_indexer` custom op: `ops.indexer_k_quant_and_cache`, the
//!    `topk_indices_buffer[...] = -1` fill, DeepGEMM's `fp8_paged_mqa_logits` and
//!    `torch.ops._C.top_k_per_row_decode`: four kernels.
//!
//! That is 13 kernels, of which the two activation quantizations of steps 1 and 2 are counted
//! already by `tpsim_model::llm::act_quant` (the pieces `indexer.wq_b` and `indexer.wk`, neither
//! fed by a norm alone, so vLLM 0.13's norm-quant fusion keeps them): [`VLLM_0_13_EXTRA_KERNELS`]
//! = 11 more. The count is a lower bound where Inductor's fusion is uncertain (steps 3, 4, 7).
//!
//! Only vLLM 0.13 is read. vLLM 0.11.0's `sparse_attn_indexer` selects the top 2,048 at decode
//! with eager torch ops instead (`torch.arange` positions, a mask against `seq_lens`,
//! `masked_fill`, `topk`, a cast: more kernels than 0.13's one `top_k_per_row_decode`), not counted
//! here; other releases and SGLang's NSA indexer keep the template's count.

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::ForwardPass;

/// Indexer kernels per DSA layer that vLLM 0.13 launches beyond the template's MLA count and the
/// activation quantizations already counted (module doc: 13 − 2).
pub(crate) const VLLM_0_13_EXTRA_KERNELS: u32 = 11;

/// The indexer kernels per DSA layer that `s`'s engine launches beyond the template's count: vLLM
/// 0.13.x → [`VLLM_0_13_EXTRA_KERNELS`], anything else 0 (not read).
pub(crate) fn extra_kernels(s: &Scenario) -> u32 {
    if s.engine.kind != EngineKind::Vllm {
        return 0;
    }
    let r = crate::engine_args_versions::release(&s.engine.release().version).unwrap_or_default();
    if r.len() >= 2 && r[0] == 0 && r[1] == 13 {
        VLLM_0_13_EXTRA_KERNELS
    } else {
        0
    }
}

/// Adds [`extra_kernels`] to every DSA layer of `fp` (a layer with an indexer key cache and an
/// attention half).
pub(crate) fn apply(fp: &mut ForwardPass, s: &Scenario) {
    let extra = extra_kernels(s);
    if extra == 0 {
        return;
    }
    for l in &mut fp.layers {
        if l.index_bytes_per_token > 0 && l.attn_kernels > 0 {
            l.attn_kernels += extra;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(model: &str, engine: &str, version: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"{model}\"\n\
             [engine]\nname = \"{engine}\"\nversion = \"{version}\"\ntp = 8\n\
             [workload]\nconcurrency = 4\nprompt_len = 1000\noutput_len = 100\n"
        );
        load_str(&text, Path::new("dsa-indexer.toml")).expect("scenario")
    }

    fn attn_kernels(s: &Scenario) -> (u32, u32) {
        let mut fp = s.model.forward_pass(s.engine.tp, 4);
        let before = fp.layers[3].attn_kernels;
        apply(&mut fp, s);
        (before, fp.layers[3].attn_kernels)
    }

    #[test]
    fn vllm_0_13_adds_eleven_indexer_kernels_to_each_dsa_layer() {
        // 13 kernels read in Indexer.forward + sparse_attn_indexer, less the 2 activation quants.
        let s = scenario("deepseek-v3.2", "vllm", "0.13.0");
        let (before, after) = attn_kernels(&s);
        assert_eq!(after, before + 11);
    }

    #[test]
    fn other_engines_releases_and_models_keep_the_template_count() {
        for (model, engine, version) in [
            ("deepseek-v3.2", "vllm", "0.11.0"),
            ("deepseek-v3.2", "sglang", "0.5.7"),
            ("deepseek-v3", "vllm", "0.13.0"),
        ] {
            let s = scenario(model, engine, version);
            let (before, after) = attn_kernels(&s);
            assert_eq!(after, before, "{model} {engine} {version}");
        }
    }
}
