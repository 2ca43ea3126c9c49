//! Issue #17 point 1 (ep): what SGLang's DeepEP path (`scenario::moe_a2a`) changes in memory and
//! the volumes its dispatch and combine move.
//!
//! Memory (SGLang 0.5.9):
//! - `models/deepseek_v2.py` `DeepseekV2MoE.__init__` builds the shared experts with `tp_size=1`
//!   when a DeepEP/Mooncake/… backend is on: every rank holds them whole;
//! - `token_dispatcher/deepep.py` `DeepEPBuffer.get_deepep_buffer` allocates DeepEP's buffers at the
//!   first dispatch (after the KV pool, during CUDA-graph capture or the first batch).
//!
//! Volumes (each rank holds ⌈T / tp⌉ of the batch's T tokens: the MoE input is SCATTERED,
//! `layers/communicator.py` `_compute_mlp_mode`), with uniform routing over E experts, k per token,
//! E / R on each of the R ranks:
//! - low latency (DeepEP `internode_ll.cu`): one message per (token, expert) copy — ⌈t·k / R⌉ copies
//!   to each other rank; a dispatch message is an int4 header + FP8 hidden + one float scale per
//!   128 channels (BF16 hidden with `SGLANG_DEEPEP_BF16_DISPATCH`), a combine message BF16 hidden;
//! - normal (DeepEP `intranode.cu`): one message per (token, destination rank), a rank receiving a
//!   token when at least one of its k experts lives there, p = 1 − C(E − E/R, k) / C(E, k); the
//!   message carries the hidden (FP8 + scales when the experts are FP8 — SGLang quantises before the
//!   dispatch for DeepGEMM — else BF16) and the k int64 top-k indices and k float weights; the
//!   combine returns BF16 hidden and the k weights.

use crate::scenario::Scenario;
use crate::scenario::moe_a2a::MoeA2a;
use tpsim_model::llm::{Ffn, ModelSpec, WeightDtype};

/// Per MoE layer, the bytes of the shared experts (and router) one rank holds beyond its TP shard
/// when they are replicated (fixed FFN bytes at tp 1 less those at `tp`); 0 for other layers.
pub fn shared_replication(model: &ModelSpec, tp: u32) -> Vec<u64> {
    let full = model.forward_pass(1, 1);
    let shard = model.forward_pass(tp, 1);
    full.layers
        .iter()
        .zip(&shard.layers)
        .map(|(a, b)| {
            if a.is_moe {
                a.fixed_ffn_bytes.0.saturating_sub(b.fixed_ffn_bytes.0)
            } else {
                0
            }
        })
        .collect()
}

/// The extra weight bytes per rank under the DeepEP path (0 without it).
pub fn extra_weights(s: &Scenario) -> u64 {
    if s.engine.moe_a2a.is_none() {
        return 0;
    }
    shared_replication(&s.model, s.engine.tp).iter().sum()
}

/// DeepEP's buffers on one rank (None without the path).
pub fn buffer_bytes(s: &Scenario) -> Option<u64> {
    let a = s.engine.moe_a2a?;
    let experts = s.model.layers.iter().find_map(|l| match l {
        Ffn::Moe(m) => Some(m.n_routed_experts),
        _ => None,
    })?;
    Some(a.buffer_bytes(s.model.hidden, u64::from(s.engine.tp), experts))
}

/// The per-pair bytes of one dispatch and one combine, and whether the low-latency kernels run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct A2aVolumes {
    pub dispatch: u64,
    pub combine: u64,
    pub low_latency: bool,
}

/// Probability that a token has at least one of its `k` experts on a given rank of `ranks`, with
/// `experts` experts spread evenly: 1 − C(E − E/R, k) / C(E, k).
pub fn rank_hit_probability(experts: u64, k: u64, ranks: u64) -> f64 {
    let e = experts as f64;
    let local = (experts / ranks.max(1)) as f64;
    let miss: f64 = (0..k)
        .map(|i| ((e - local - i as f64) / (e - i as f64)).max(0.0))
        .product();
    1.0 - miss
}

/// The volumes for `tokens` tokens in the batch, on `ranks` ranks.
pub fn volumes(
    a: &MoeA2a,
    (tokens, ranks): (u64, u64),
    (hidden, experts, k): (u64, u64, u64),
    fp8_experts: bool,
    extend: bool,
) -> A2aVolumes {
    let ranks = ranks.max(1);
    let t = tokens.div_ceil(ranks);
    let scales = hidden / 128;
    let low_latency = a.mode.low_latency_for(extend);
    if low_latency {
        let copies = (t * k).div_ceil(ranks);
        let hidden_msg = if a.bf16_dispatch {
            hidden * 2
        } else {
            hidden + scales * 4
        };
        A2aVolumes {
            dispatch: copies * (16 + hidden_msg),
            combine: copies * hidden * 2,
            low_latency,
        }
    } else {
        let sent = (t as f64 * rank_hit_probability(experts, k, ranks)).ceil() as u64;
        let hidden_msg = if fp8_experts && !a.bf16_dispatch {
            hidden + scales * 4
        } else {
            hidden * 2
        };
        A2aVolumes {
            dispatch: sent * (hidden_msg + k * 8 + k * 4),
            combine: sent * (hidden * 2 + k * 4),
            low_latency,
        }
    }
}

/// Whether the routed experts are stored in FP8 (SGLang then dispatches FP8 in normal mode).
pub fn fp8_experts(model: &ModelSpec) -> bool {
    model.quantization.expert_format().dtype == WeightDtype::Fp8
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::moe_a2a::DeepEpMode;

    const LL: MoeA2a = MoeA2a {
        mode: DeepEpMode::Auto,
        max_dispatch_tokens_per_rank: 128,
        bf16_dispatch: false,
    };

    /// DeepSeek-V3 (hidden 7,168, 256 experts, top-8) on 8 ranks, 64 decode tokens: 8 per rank,
    /// 8 × 8 / 8 = 8 copies to each other rank; dispatch 8 × (16 + 7,168 + 56 × 4) = 59,264 B,
    /// combine 8 × 14,336 = 114,688 B.
    #[test]
    fn low_latency_volumes_by_hand() {
        let v = volumes(&LL, (64, 8), (7_168, 256, 8), true, false);
        assert_eq!(
            v,
            A2aVolumes {
                dispatch: 59_264,
                combine: 114_688,
                low_latency: true
            }
        );
    }

    /// Normal mode (a prefill under auto), 800 tokens on 8 ranks: 100 per rank; p = 1 − Π_{i<8}
    /// (224 − i)/(256 − i) = 1 − 0.33817 = 0.66183 (224/256 · 223/255 · … · 217/249 = 0.33817),
    /// so ⌈66.18⌉ = 67 tokens to each other rank; dispatch 67 × (7,168 + 224 + 64 + 32) =
    /// 501,696 B; combine 67 × (14,336 + 32) = 962,656 B.
    #[test]
    fn normal_volumes_by_hand() {
        let p = rank_hit_probability(256, 8, 8);
        assert!((p - 0.66183).abs() < 1e-5, "{p}");
        let v = volumes(&LL, (800, 8), (7_168, 256, 8), true, true);
        assert_eq!((v.dispatch, v.combine, v.low_latency), (501_696, 962_656, false));
    }
}
