//! vLLM's data parallelism on a MoE model (`--data-parallel-size D`, issue #17 point 1): what one
//! rank holds.
//!
//! Each DP rank is its own engine core of `tp` GPUs, so everything but the MoE experts is sharded
//! over that rank's `tp` only: attention, token embedding, LM head, dense MLP layers (vLLM
//! `models/deepseek_v2.py` builds them on the TP group). The routed experts shard over all dp × tp
//! devices (`layers/fused_moe/config.py` `FusedMoEParallelConfig.make`,
//! `flatten_tp_across_dp_and_pcp`: TP-style without `--enable-expert-parallel`, whole experts per
//! rank with it; the same bytes per rank when the experts divide evenly). Shared experts follow
//! the TP group, except under sequence-parallel MoE (`ParallelConfig.use_sequence_parallel_moe`):
//! `DeepseekV2MLP(…, disable_tp=is_sequence_parallel)` holds them whole on every rank ("the
//! weights are replicated and no collective ops are needed").

use crate::llm::{ModelSpec, WeightBreakdown};

impl ModelSpec {
    /// Weights per rank under vLLM DP: [`ModelSpec::weight_breakdown`] at the DP rank's `tp` with
    /// the routed experts at `tp × dp`, and the shared experts whole when `shared_whole`
    /// (sequence-parallel MoE). Bytes.
    pub fn weight_breakdown_vllm_dp(&self, tp: u32, dp: u32, shared_whole: bool) -> WeightBreakdown {
        let local = self.weight_breakdown(tp);
        let world = self.weight_breakdown(tp.saturating_mul(dp));
        let shared_experts = if shared_whole {
            self.weight_breakdown(1).shared_experts
        } else {
            local.shared_experts
        };
        WeightBreakdown {
            routed_experts: world.routed_experts,
            shared_experts,
            ..local
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::llm::{ModelSpec, Quantization};

    fn model(dir: &str, config: &str) -> ModelSpec {
        let q: Quantization =
            serde_json::from_str(r#"{"dtype":"bf16","kv_cache_dtype":"auto"}"#).expect("quant");
        ModelSpec::from_config_json(config, q).unwrap_or_else(|e| panic!("{dir}: {e}"))
    }

    /// Qwen3-235B-A22B (bf16; hidden 4,096, 94 layers, 128 experts of 3 × 4,096 × 1,536, vocab
    /// 151,936 untied) at dp 4 × tp 2, by hand: routed experts 94 × 128 × 18,874,368 × 2 B / 8 =
    /// 56,774,098,944 B; embedding and LM head 151,936 × 4,096 × 2 B / 2 = 622,329,856 B each (tp
    /// 2, not 8); attention as at tp 2.
    #[test]
    fn qwen3_235b_dp4_tp2_by_component() {
        let m = model(
            "qwen3-235b-a22b",
            include_str!("../../scenarios/models/qwen3-235b-a22b/config.json"),
        );
        let w = m.weight_breakdown_vllm_dp(2, 4, true);
        assert_eq!(w.routed_experts, 56_774_098_944);
        assert_eq!((w.embedding, w.lm_head), (622_329_856, 622_329_856));
        assert_eq!(w.attention, m.weight_breakdown(2).attention);
        // Same bytes with the experts split TP-style (no EP): 1,536 / 8 = 192 columns each.
        assert_eq!(m.weight_breakdown_vllm_dp(2, 4, false), w);
    }

    /// DeepSeek-V2-Lite (2 shared experts of intermediate 1,408, 26 MoE layers): under
    /// sequence-parallel MoE every rank holds them whole, else at the rank's tp.
    #[test]
    fn shared_experts_whole_under_sequence_parallel() {
        let m = model(
            "deepseek-v2-lite",
            include_str!("../../scenarios/models/deepseek-v2-lite/config.json"),
        );
        assert_eq!(
            m.weight_breakdown_vllm_dp(2, 4, true).shared_experts,
            m.weight_breakdown(1).shared_experts
        );
        assert_eq!(
            m.weight_breakdown_vllm_dp(2, 4, false).shared_experts,
            m.weight_breakdown(2).shared_experts
        );
        // 26 × 3 × 2,048 × 2,816 × 2 B = 899,678,208 B whole.
        assert_eq!(m.weight_breakdown(1).shared_experts, 899_678_208);
    }
}
