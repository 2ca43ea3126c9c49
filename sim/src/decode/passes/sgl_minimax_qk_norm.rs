//! mi300x59 (issue #18): how many q/k-norm statistics allreduces SGLang's MiniMax-M2 attention issues
//! per layer, by release.
//!
//! MiniMax-M2's q and k norms run over all heads (`qk_norm_type = "per_layer"`), so at TP > 1 each
//! norm all-reduces its per-token sum of squares (`MiniMaxM2RMSNormTP`, `models/minimax_m2.py`).
//! Up to SGLang 0.5.7 the attention calls `self.q_norm(q)` and then `self.k_norm(k)`, each norm's
//! `forward` with its own `tensor_model_parallel_all_reduce(variance)`: **two** allreduces a layer
//! (read in the sglang 0.5.6 and 0.5.7 wheels, PyPI). From 0.5.8 it calls
//! `MiniMaxM2RMSNormTP.forward_qk(q_norm, k_norm, q, k)`, which sums q's and k's squares into one
//! tensor (`rms_sumsq_serial`) and all-reduces it **once** (read in the 0.5.8 and 0.5.9 wheels).
//! Each of the two early messages is one fp32 a token, padded as the later one is
//! (`tpsim_model::llm::qk_norm_stats_bytes`); tpsim prices both the same.

use crate::scenario::{EngineKind, Scenario};

/// The first SGLang release whose MiniMax-M2 attention all-reduces the q and k statistics together
/// (`forward_qk`, module doc): 0.5.8.
pub const FIRST_FUSED: (u32, u32, u32) = (0, 5, 8);

/// The q/k-norm statistics allreduces per layer of a model that has them (`qk_norm_allreduces > 0`)
/// under `s`: 2 under SGLang before 0.5.8 (q's, then k's), 1 otherwise (SGLang from 0.5.8, vLLM,
/// or a version that cannot be read).
pub fn allreduces_per_layer(s: &Scenario) -> u32 {
    let early = s.engine.kind == EngineKind::Sglang
        && tpsim_model::sglang_fraction_early::release_post(&s.engine.release().version)
            .is_some_and(|(a, b, c, _)| (a, b, c) < FIRST_FUSED);
    if early { 2 } else { 1 }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn scenario(engine: &str, version: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"mi300x-8x-xgmi\"\n[model]\npreset = \"minimax-m2.5\"\n[engine]\n\
             name = \"{engine}\"\nversion = \"{version}\"\ntp = 4\ntrust_remote_code = true\n\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("minimax-qk-norm.toml")).expect("scenario")
    }

    /// Two under SGLang 0.5.6 and 0.5.7 (`self.q_norm(q)`, `self.k_norm(k)`), one from 0.5.8
    /// (`forward_qk`) and under vLLM.
    #[test]
    fn two_allreduces_a_layer_before_sglang_0_5_8() {
        for (engine, version, want) in [
            ("sglang", "0.5.6", 2),
            ("sglang", "0.5.7", 2),
            ("sglang", "0.5.8", 1),
            ("sglang", "0.5.9", 1),
            ("vllm", "0.12.0", 1),
        ] {
            assert_eq!(
                allreduces_per_layer(&scenario(engine, version)),
                want,
                "{engine} {version}"
            );
        }
    }
}
