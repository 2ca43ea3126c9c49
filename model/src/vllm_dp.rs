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
