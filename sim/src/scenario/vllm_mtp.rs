//! vLLM's MTP drafts by target and release (issue #17): which `*_mtp` module vLLM maps a target to,
//! from which release, and how the draft's weights load beside the target's.
//!
//! **Which module.** `SpeculativeConfig.hf_config_override` (`config/speculative.py`; `config.py` in
//! 0.9.x, `config/__init__.py` in 0.10.x) rewrites the target's model type to its MTP module; a
//! target it does not rewrite falls through to "draft_model", which vLLM refuses. The releases below are
//! the first PyPI wheel whose override names the target, read from every release 0.8.5 – 0.19.0
//! (0.9.0, 0.9.1, 0.9.2, 0.10.0, 0.10.1, 0.10.2, 0.11.0, 0.12.0, 0.13.0, 0.14.1, 0.15.0, 0.15.1, 0.16.0,
//! 0.17.0, 0.18.0).
//! GLM-4.7-Flash's and GLM-5's modules arrive with the model's registry entry (0.15.0, 0.16.0): an
//! earlier release refuses the model itself (`scenario::first_release`) before this is read.
//!
//! **What loads.** Every MTP module builds its own embedding and the proposer replaces it with the
//! target's (`eagle.py` `load_model`: "Sharing target model embedding weights"), and rebinds a
//! top-level `lm_head` to the target's (`method != "eagle3"`). Modules with a `shared_head` in each MTP
//! layer (DeepSeek, GLM-4.x, Step-3.5: `SharedHead`, an RMSNorm and a `ParallelLMHead` of the full
//! vocabulary) keep that head loaded besides the target's until 0.16.0, whose `_maybe_share_lm_head`
//! replaces each `shared_head.head` by the target's LM head ("Shared target model lm_head with MTP
//! shared_head.head."; absent from 0.15.1's `eagle.py`). vLLM counts the weights as the memory allocated
//! after both loads (`gpu_model_runner.py` `load_model` under `DeviceMemoryProfiler`, whose reading is
//! `torch.cuda.max_memory_allocated` after a peak reset), so a replaced tensor costs nothing.

use tpsim_model::llm::{Architecture, ModelSpec};
use tpsim_model::units::Bytes;

/// Where the MTP draft's 2H → H projection over `[norm(embedding); norm(hidden)]` sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Proj {
    /// In each MTP layer, an `nn.Linear` whole on every rank as SGLang's (`eh_proj`, MiMo's
    /// `input_proj`), with three norms a layer (`enorm`, `hnorm` and the `shared_head.norm` or MiMo's
    /// `final_layernorm`).
    PerLayer,
    /// Once in the predictor, a `ColumnParallelLinear(gather_output=True)` (`fc` of Qwen3-Next and
    /// Qwen3.5: H / tp output rows a rank), with three norms in all (`pre_fc_norm_embedding`,
    /// `pre_fc_norm_hidden`, `norm`).
    Predictor,
}

/// Where the MTP module's LM head sits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Head {
    /// A top-level `lm_head`, rebound to the target's by the proposer: no memory of its own.
    Top,
    /// A `shared_head` (RMSNorm + `ParallelLMHead`) in each MTP layer: its head loaded besides the
    /// target's before [`SHARED_HEAD_SHARED_SINCE`], the target's from then.
    PerLayer,
}

/// One target family's MTP module under vLLM.
#[derive(Clone, Copy, Debug)]
pub(super) struct MtpModule {
    /// vLLM's module (`model_executor/models/<name>.py`), the model type the override writes.
    pub name: &'static str,
    /// The first release whose override maps the target to it (`[major, minor, patch]`).
    pub since: [u64; 3],
    /// The 2H → H projection and the norms around it.
    pub proj: Proj,
    /// Where its LM head sits.
    pub head: Head,
}

/// The first release whose proposer replaces each MTP layer's `shared_head.head` by the target's
/// LM head (vLLM 0.16.0 `v1/spec_decode/eagle.py` `_maybe_share_lm_head`; not in 0.15.1).
pub(super) const SHARED_HEAD_SHARED_SINCE: [u64; 3] = [0, 16, 0];

/// The MTP module vLLM runs for `arch`'s MTP layers, when tpsim models it (module doc for the
/// releases). `None`: vLLM maps no module for it in any release read, or tpsim does not model it
/// (see [`unmodelled`]).
pub(super) fn module(arch: Architecture) -> Option<MtpModule> {
    use Architecture as A;
    let m = |name, since, proj, head| MtpModule {
        name,
        since,
        proj,
        head,
    };
    Some(match arch {
        // `deepseek_mtp.py` is in every wheel read (0.8.5 on); DeepSeek-V3.2 is mapped with V3 from
        // its first release (0.11.0 `("deepseek_v3", "deepseek_v32")`).
        A::DeepseekV3 | A::DeepseekV32 => m("deepseek_mtp", [0, 0, 0], Proj::PerLayer, Head::PerLayer),
        // GLM-5's `glm_moe_dsa` joins the DeepSeek override in 0.16.0 (absent from 0.15.1).
        A::GlmMoeDsa => m("deepseek_mtp", [0, 16, 0], Proj::PerLayer, Head::PerLayer),
        // `architectures[0] == "Glm4MoeForCausalLM"` from 0.10.0 (absent from 0.9.2).
        A::Glm4Moe => m("glm4_moe_mtp", [0, 10, 0], Proj::PerLayer, Head::PerLayer),
        // `"Glm4MoeLiteForCausalLM"` from 0.15.0 (absent from 0.14.1).
        A::Glm4MoeLite => m("glm4_moe_lite_mtp", [0, 15, 0], Proj::PerLayer, Head::PerLayer),
        // `model_type == "step3p5"` from 0.15.1 (absent from 0.15.0).
        A::Step3p5 => m("step3p5_mtp", [0, 15, 1], Proj::PerLayer, Head::PerLayer),
        // `architectures[0] == "MiMoForCausalLM"` from 0.9.0 (absent from 0.8.5): `token_layernorm`,
        // `hidden_layernorm`, `input_proj` (`nn.Linear`), the block, `final_layernorm`.
        A::Mimo => m("mimo_mtp", [0, 9, 0], Proj::PerLayer, Head::Top),
        // `model_type == "qwen3_next"` from 0.10.2 (absent from 0.10.1): `fc` column-parallel,
        // `pre_fc_norm_embedding`, `pre_fc_norm_hidden`, the block, `norm`.
        A::Qwen3Next => m("qwen3_next_mtp", [0, 10, 2], Proj::Predictor, Head::Top),
        // `("qwen3_5", "qwen3_5_moe")` from 0.17.0 (`vllm_spec::QWEN35_MTP_SINCE`), the same layout.
        A::Qwen35 | A::Qwen35Moe => m("qwen3_5_mtp", [0, 17, 0], Proj::Predictor, Head::Top),
        _ => return None,
    })
}

/// Targets whose vLLM MTP module tpsim does not model, with why (the scenario is refused with
/// tpsim's own text; vLLM would run it from the release named).
pub(super) fn unmodelled(arch: Architecture) -> Option<&'static str> {
    use Architecture as A;
    Some(match arch {
        // 0.10.2 `models/ernie_mtp.py`: the MTP block is a dense `LlamaDecoderLayer` for the MoE
        // target, a layer tpsim's MTP draft (the target's last layer) does not build.
        A::Ernie45Moe => "vLLM 0.10.2 on runs `ernie_mtp` with a dense Llama block, not modelled",
        // families25: 0.11.0 `models/longcat_flash_mtp.py`, one MLA block with a dense MLP.
        A::LongcatFlash => {
            "vLLM 0.11.0 on runs `longcat_flash_mtp` (one MLA block with a dense MLP), not modelled"
        }
        _ => return None,
    })
}

/// Whether `version` is at or after `since` (`None` version text: not after).
pub(super) fn at_least(version: &str, since: [u64; 3]) -> bool {
    crate::engine_args_versions::release(version).is_some_and(|r| {
        let get = |i: usize| r.get(i).copied().unwrap_or(0);
        [get(0), get(1), get(2)] >= since
    })
}

/// The MTP draft's weights per rank as vLLM `version` loads them, from SGLang's figure `sglang`
/// (`scenario::draft`: the `n` MTP layers, a replicated 2H → H projection and two norms a layer, and
/// the model's final norm; the target's embedding and LM head), for `draft` at `tp`.
pub(super) fn weights(m: MtpModule, draft: &ModelSpec, sglang: Bytes, tp: u32, version: &str) -> Bytes {
    let act = draft.activation_bytes();
    let n = u64::from(draft.num_layers);
    let norm = draft.hidden * act;
    let fc = 2 * draft.hidden * draft.hidden * act;
    let sglang_extra = n * fc + (2 * n + 1) * norm;
    let own = match m.proj {
        Proj::PerLayer => n * fc + 3 * n * norm,
        Proj::Predictor => fc / u64::from(tp.max(1)) + 3 * norm,
    };
    let mut w = sglang.0.saturating_sub(sglang_extra) + own;
    if m.head == Head::PerLayer && !at_least(version, SHARED_HEAD_SHARED_SINCE) {
        w += n * draft.weight_breakdown(tp).lm_head;
    }
    Bytes(w)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The release comparison reads post- and dev-releases as their release.
    #[test]
    fn at_least_reads_releases() {
        assert!(at_least("0.16.0", SHARED_HEAD_SHARED_SINCE));
        assert!(at_least("0.19.1rc1.dev42+gd56e95223", SHARED_HEAD_SHARED_SINCE));
        assert!(!at_least("0.15.1", SHARED_HEAD_SHARED_SINCE));
        assert!(at_least("0.15.1", [0, 15, 1]) && !at_least("0.15.0", [0, 15, 1]));
        assert!(!at_least("nightly", [0, 0, 1]));
    }
}
