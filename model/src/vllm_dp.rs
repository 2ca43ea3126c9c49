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
    /// the routed experts over `tp × dp` devices, and the shared experts whole when `shared_whole`
    /// (sequence-parallel MoE). Bytes.
    ///
    /// Without `ep` the experts are split TP-style over the dp × tp devices (every expert's
    /// intermediate / (dp × tp) columns; `FusedMoEParallelConfig.make` returns `tp_size` = the
    /// flattened size, `ep_size` 1). With `ep` each device holds whole experts, the busiest
    /// ⌈E / (dp × tp)⌉ of them (vLLM 0.12.0 wheel's `model_executor/layers/fused_moe/config.py`
    /// `FusedMoEParallelConfig.make`: `ep_size = tp_size` flattened, `tp_size = 1`;
    /// `model_executor/layers/fused_moe/layer.py` `determine_expert_map`: `base_experts =
    /// global_num_experts // ep_size`, one more on the first `remainder` ranks). The two differ by
    /// the per-tensor scales of block formats (NVFP4's two fp32 scales a tensor are held once per
    /// expert shard: E × 16 B a layer split TP-style, E / ep × 16 B whole) and by group rounding.
    /// The routed experts one rank holds under expert parallelism over `ep` ranks: whole experts,
    /// the busiest rank ⌈E / ep⌉ of them a MoE layer (vLLM 0.12.0 wheel's
    /// `model_executor/layers/fused_moe/layer.py` `determine_expert_map`; SGLang 0.5.9
    /// `layers/moe/fused_moe_triton/layer.py` `num_local_experts = num_experts // ep_size`, which
    /// `validate_parallel` requires to divide). Differs from [`ModelSpec::weight_breakdown`]'s
    /// TP-split experts only where a shard's scales round up (block-FP8 rows that are no whole
    /// number of blocks, NVFP4's per-tensor scales held by every shard). Bytes.
    pub fn routed_experts_whole(&self, ep: u32) -> u64 {
        let u = u64::from(ep.max(1));
        self.inventory(1).layers.iter().fold(0u64, |a, l| {
            a.saturating_add(
                self.sum_bytes(&l.ffn.expert)
                    .saturating_mul(l.ffn.n_experts.div_ceil(u)),
            )
        })
    }

    pub fn weight_breakdown_vllm_dp(
        &self,
        tp: u32,
        dp: u32,
        ep: bool,
        shared_whole: bool,
    ) -> WeightBreakdown {
        let local = self.weight_breakdown(tp);
        let world = tp.saturating_mul(dp).max(1);
        let routed_experts = if ep {
            self.routed_experts_whole(world)
        } else {
            self.weight_breakdown(world).routed_experts
        };
        let shared_experts = if shared_whole {
            self.weight_breakdown(1).shared_experts
        } else {
            local.shared_experts
        };
        WeightBreakdown {
            routed_experts,
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
        let w = m.weight_breakdown_vllm_dp(2, 4, true, true);
        assert_eq!(w.routed_experts, 56_774_098_944);
        assert_eq!((w.embedding, w.lm_head), (622_329_856, 622_329_856));
        assert_eq!(w.attention, m.weight_breakdown(2).attention);
        // Same bytes with the experts split TP-style (no EP): 1,536 / 8 = 192 columns each.
        assert_eq!(m.weight_breakdown_vllm_dp(2, 4, false, true), w);
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
            m.weight_breakdown_vllm_dp(2, 4, true, true).shared_experts,
            m.weight_breakdown(1).shared_experts
        );
        assert_eq!(
            m.weight_breakdown_vllm_dp(2, 4, true, false).shared_experts,
            m.weight_breakdown(2).shared_experts
        );
        // 26 × 3 × 2,048 × 2,816 × 2 B = 899,678,208 B whole.
        assert_eq!(m.weight_breakdown(1).shared_experts, 899_678_208);
    }

    /// dpep17 (launch command 59, `vllm serve nvidia/Qwen3.5-397B-A17B-NVFP4 -dp 4
    /// --enable-expert-parallel`): Qwen3.5-397B-A17B (hidden 4,096; 60 layers, 45 Gated DeltaNet and
    /// 15 full attention; 512 experts of intermediate 1,024, one shared of 1,024; vocab 248,320
    /// untied) with NVFP4 routed experts (0.5 B a weight + one fp8 scale per 16 + two fp32 per-tensor
    /// scales, 8 B a tensor) and the rest bf16. Per rank at dp 4 × tp 1, by hand (exact):
    /// - everything but the routed experts at tp 1 (each DP rank is an engine of tp 1):
    ///   - DeltaNet layer: in_proj_qkvz (2 × 2,048 + 2 × 8,192 = 20,480 rows) + in_proj_ba (2 × 64 =
    ///     128 rows) + out_proj (4,096 rows × 8,192), all × 4,096 inputs: 117,964,800 × 2 B =
    ///     235,929,600; conv1d 12,288 × 4 × 2 B = 98,304; A_log 64 × 4 B = 256 → 236,028,160; × 45 =
    ///     10,621,267,200;
    ///   - full-attention layer: qkv (2 × 32 × 256 query + gate rows + 2 × 2 × 256 KV rows = 17,408)
    ///     × 4,096 + o_proj 4,096 × 8,192 = 104,857,600 × 2 B = 209,715,200; × 15 = 3,145,728,000;
    ///     attention 13,766,995,200 (4 × tp 4's 3,473,206,080 less the KV rows tp 4 replicates, its 2
    ///     KV heads held once a rank: 15 × (4 × 512 − 1,024) × 4,096 × 2 B = 125,829,120);
    ///   - embedding and LM head 248,320 × 4,096 × 2 B = 2,034,237,440 each;
    ///   - shared experts 60 × 3 × 1,024 × 4,096 × 2 B = 1,509,949,440; routers 60 × (512 + 1) ×
    ///     4,096 × 2 B = 252,149,760; norms 60 × 2 × 4,096 × 2 + 45 × (64 + 128) × 2 + 15 × 2 × 256
    ///     × 2 + 4,096 × 2 = 1,023,872;
    /// - routed experts, whole, 512 / 4 = 128 a rank: gate_up [2,048, 4,096] 4,194,304 + 524,288 + 8
    ///   = 4,718,600; down [4,096, 1,024] 2,097,152 + 262,144 + 8 = 2,359,304 → 7,077,904 an expert;
    ///   × 128 × 60 = 54,358,302,720 (split TP-style over 4 the per-tensor scales would be held by
    ///   all 512 shards: 1,769,488 × 512 × 60 = 54,358,671,360, 368,640 B more).
    ///
    /// Total 73,956,895,872 B = 68.88 GiB a rank, not tp 4's 59,479,652,832 (55.39 GiB): the
    /// attention and embeddings are whole on each DP rank.
    #[test]
    fn qwen3_5_nvfp4_dp4_tp1_ep_by_hand() {
        let q: Quantization = serde_json::from_str(
            r#"{"dtype":"bf16","experts":{"dtype":"nvfp4"},"mtp":{"dtype":"bf16"},"kv_cache_dtype":"fp8_e4m3"}"#,
        )
        .expect("quant");
        let m = ModelSpec::from_config_json(
            include_str!("../../scenarios/models/qwen3.5-397b-a17b-nvfp4-nvidia/config.json"),
            q,
        )
        .expect("qwen3.5");
        let w = m.weight_breakdown_vllm_dp(1, 4, true, false);
        assert_eq!(w.attention, 13_766_995_200);
        assert_eq!((w.embedding, w.lm_head), (2_034_237_440, 2_034_237_440));
        assert_eq!(w.shared_experts, 1_509_949_440);
        assert_eq!((w.router, w.norms, w.dense_mlp), (252_149_760, 1_023_872, 0));
        assert_eq!(w.routed_experts, 54_358_302_720);
        assert_eq!(w.total(), 73_956_895_872);
        // Without --enable-expert-parallel the experts split TP-style over the 4 devices.
        assert_eq!(
            m.weight_breakdown_vllm_dp(1, 4, false, false).routed_experts,
            54_358_671_360
        );
        // dp 2 × tp 2 with EP (sequence-parallel MoE: shared experts whole): attention and
        // embeddings at tp 2, the same 128 experts a rank.
        let w2 = m.weight_breakdown_vllm_dp(2, 2, true, true);
        assert_eq!(w2.routed_experts, 54_358_302_720);
        assert_eq!(w2.attention, m.weight_breakdown(2).attention);
        assert_eq!(w2.embedding, 1_017_118_720);
        assert_eq!(w2.shared_experts, 1_509_949_440);
        // 512 experts over dp 3 (indivisible): the busiest rank holds ⌈512 / 3⌉ = 171.
        assert_eq!(
            m.weight_breakdown_vllm_dp(1, 3, true, false).routed_experts,
            7_077_904 * 171 * 60
        );
    }
}
