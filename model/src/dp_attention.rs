//! SGLang's data-parallel attention (`--enable-dp-attention --dp-size D`, issue #17): what one rank
//! holds and the memory SGLang reserves for it.
//!
//! With DP attention the `tp` ranks form `D` attention groups of `attn_tp = tp / D` consecutive ranks
//! (SGLang 0.5.9 `layers/dp_attention.py` `compute_dp_attention_world_info`: attention-TP rank =
//! tp_rank % attn_tp_size, attention-DP rank = tp_rank // attn_tp_size). Each group serves its own
//! requests: its attention projections are sharded over `attn_tp` ranks only (SGLang
//! `models/deepseek_v2.py` and the other models built on `layers/communicator.py`
//! `LayerCommunicator` shard attention with `get_attention_tp_size()`), and so is the token
//! embedding (`VocabParallelEmbedding(…, use_attn_tp_group=is_dp_attention_enabled())`). The MLP and
//! MoE stay sharded over all `tp` ranks, and so does the LM head unless `--enable-dp-lm-head` (not
//! modelled: `ParallelLMHead(…, use_attn_tp_group=enable_dp_lm_head)`).
//!
//! The KV cache follows the attention: a rank holds the KV heads of its attention-TP shard
//! (`model_runner_kv_cache_mixin.py` `get_cell_size_per_token` with
//! `get_num_kv_heads(get_attention_tp_size())`), i.e. [`ModelSpec::kv_cell_bytes`] at `attn_tp`; an
//! MLA latent is per token whatever the sharding, but each group's pool holds only its own requests,
//! so the box holds `D` times the requests of plain TP.

use crate::llm::ModelSpec;
use crate::llm::WeightBreakdown;

/// The extra MiB SGLang's default `mem_fraction_static` reserves for DP attention in the late-2025
/// and later eras: `cuda_graph_max_bs × dp × 3`, plus `cuda_graph_max_bs × dp × 1.5` when
/// `cuda_graph_max_bs > 300` (SGLang 0.5.9 `server_args.py` `_handle_gpu_memory_settings`, the
/// "DP attention needs more padding" lines; unchanged in 0.5.5, and in 0.5.23
/// `arg_groups/memory_hook.py`). Added before the 10 GiB floor of cards above 60 GiB.
pub fn sglang_dp_attention_reserve_mib(cuda_graph_max_bs: f64, dp: u32) -> f64 {
    if dp <= 1 {
        return 0.0;
    }
    let d = f64::from(dp);
    let mut r = cuda_graph_max_bs * d * 3.0;
    if cuda_graph_max_bs > 300.0 {
        r += cuda_graph_max_bs * d * 1.5;
    }
    r
}

/// The mid-2025 era's DP-attention reserve, GiB (reference/engine-memory.md, "SGLang eras": "+ 4 GiB
/// with DP attention", PR #7054's table).
pub const SGLANG_MID_2025_DP_ATTENTION_RESERVE_GIB: f64 = 4.0;

impl ModelSpec {
    /// Weights per rank under DP attention: attention projections and the token embedding sharded
    /// over the attention-TP group (`attn_tp = tp / dp`), everything else (MLP, MoE, LM head,
    /// norms, vision tower) as at `tp`. At `attn_tp = tp` this is [`ModelSpec::weight_breakdown`].
    pub fn weight_breakdown_dp_attention(&self, tp: u32, attn_tp: u32) -> WeightBreakdown {
        let full = self.weight_breakdown(tp);
        let attn = self.weight_breakdown(attn_tp);
        WeightBreakdown {
            attention: attn.attention,
            embedding: attn.embedding,
            ..full
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::Quantization;

    /// Kimi-K2.5 (`scenarios/models/kimi-k2.5`, bf16 with int4 experts) at tp 8 with dp 8 (attention
    /// TP 1): the embedding is whole on every rank, 163,840 × 7,168 × 2 B = 2,348,810,240 B (at tp 8:
    /// 20,480 rows, 293,601,280 B); the attention is tp 1's; experts, LM head and vision tower stay at
    /// tp 8's shards.
    #[test]
    fn kimi_dp8_weights_by_component() {
        let q: Quantization = serde_json::from_str(
            r#"{"dtype":"bf16","experts":{"dtype":"int4","group_size":32,"scale_dtype":"bf16"},"kv_cache_dtype":"auto"}"#,
        )
        .expect("quant");
        let m = ModelSpec::from_config_json(include_str!("../../scenarios/models/kimi-k2.5/config.json"), q)
            .expect("kimi");
        let (dp, tp8, tp1) = (
            m.weight_breakdown_dp_attention(8, 1),
            m.weight_breakdown(8),
            m.weight_breakdown(1),
        );
        assert_eq!(dp.embedding, 2_348_810_240);
        assert_eq!(tp8.embedding, 293_601_280);
        assert_eq!(dp.attention, tp1.attention);
        // Less than 8× tp 8's: the MLA down-projections were already replicated.
        assert!(dp.attention > tp8.attention);
        assert_eq!(
            (dp.routed_experts, dp.lm_head, dp.vision, dp.shared_experts),
            (tp8.routed_experts, tp8.lm_head, tp8.vision, tp8.shared_experts)
        );
        // Attention TP = tp: plain TP.
        assert_eq!(m.weight_breakdown_dp_attention(8, 8), tp8);
    }

    /// SGLang 0.5.9 `server_args.py`: on an H200 (141 GiB class, cuda_graph_max_bs 512 at tp ≥ 4)
    /// with dp 8: 512 × 8 × 3 = 12,288 MiB, and since 512 > 300 another 512 × 8 × 1.5 = 6,144 MiB:
    /// 18,432 MiB. At cuda_graph_max_bs 160 (a 48 GiB card, tp ≥ 4) with dp 4: 160 × 4 × 3 = 1,920
    /// MiB and no large-bs term. dp 1 (SGLang turns DP attention off): 0.
    #[test]
    fn reserve_by_hand() {
        // Whole MiB in f64: exact (tolerance 1e-9 only for the float comparison).
        for (bs, dp, want) in [
            (512.0, 8, 18_432.0),
            (160.0, 4, 1_920.0),
            (300.0, 2, 1_800.0),
            (512.0, 1, 0.0),
        ] {
            let got = sglang_dp_attention_reserve_mib(bs, dp);
            assert!((got - want).abs() < 1e-9, "bs {bs} dp {dp}: {got}");
        }
    }
}
