//! Pipeline parallelism (issue #17): which layers each stage holds, and what a stage's rank loads.
//!
//! Both engines give each stage a contiguous range of decoder layers; the first stage also holds
//! the token embedding, the last the final norm and the LM head (vLLM 0.11 `models/llama.py`
//! `LlamaModel`: `embed_tokens` only `if get_pp_group().is_first_rank`, `norm` and `lm_head` only on
//! the last rank, `PPMissingLayer` elsewhere; SGLang 0.5.9 `models/llama.py` alike). A stage of a
//! multimodal model keeps its vision tower on the first stage.

use crate::llm::ModelSpec;

/// Which engine's partition rule applies.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partition {
    /// vLLM 0.11 `distributed/utils.py` `get_pp_indices`: `layers // pp` each; the remainder goes
    /// one layer each to the partitions before the last, from the second-to-last backwards.
    Vllm,
    /// SGLang 0.5.9 `distributed/utils.py` `get_pp_indices`: `layers // pp` each; the last
    /// `remainder` partitions get one more.
    Sglang,
}

/// The `[start, end)` layer range of each of `pp` stages over `layers` decoder layers (without the
/// `VLLM_PP_LAYER_PARTITION` / `SGLANG_PP_LAYER_PARTITION` overrides).
pub fn stage_ranges(layers: u32, pp: u32, rule: Partition) -> Vec<(u32, u32)> {
    let pp = pp.max(1);
    let base = layers / pp;
    let rem = layers % pp;
    let sizes: Vec<u32> = (0..pp)
        .map(|i| {
            let extra = match rule {
                // partitions[-i] += 1 for i in 2..rem+2: indices pp-2, pp-3, …, pp-1-rem.
                Partition::Vllm => i + 1 < pp && i + 1 + rem >= pp,
                Partition::Sglang => i >= pp - rem,
            };
            base + u32::from(extra)
        })
        .collect();
    let mut start = 0;
    sizes
        .iter()
        .map(|&n| {
            let r = (start, start + n);
            start += n;
            r
        })
        .collect()
}

/// One stage's rank: its bytes of weights and its share of the KV cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stage {
    pub index: u32,
    pub layers: (u32, u32),
    /// Weights one TP rank of this stage loads, bytes.
    pub weight_bytes: u64,
    /// KV bytes per token on one rank of this stage (its KV-holding layers only).
    pub kv_cell_bytes: u64,
}

impl ModelSpec {
    /// The stages of this model at (tp, pp) under `rule`.
    pub fn pipeline_stages(&self, tp: u32, pp: u32, rule: Partition) -> Vec<Stage> {
        let inv = self.inventory(tp);
        let full_cell = self.kv_cell_bytes(tp);
        let kv_layers = u64::from(self.kv_layers().max(1));
        let ranges = stage_ranges(self.num_layers, pp, rule);
        let last = ranges.len().saturating_sub(1);
        ranges
            .iter()
            .enumerate()
            .map(|(i, &(a, b))| {
                let mut w: u64 = inv.layers[a as usize..b as usize]
                    .iter()
                    .map(|l| {
                        self.sum_bytes(&l.attn)
                            + self.sum_bytes(&l.ffn.dense)
                            + self.sum_bytes(&l.ffn.router)
                            + self.sum_bytes(&l.ffn.shared)
                            + self.sum_bytes(&l.ffn.expert).saturating_mul(l.ffn.n_experts)
                    })
                    .sum();
                if i == 0 {
                    w += self.sum_bytes(&inv.embed) + self.sum_bytes(&inv.vision);
                }
                if i == last {
                    w += self.sum_bytes(&inv.lm_head) + self.sum_bytes(&inv.final_norm);
                    // Tied embeddings: the last stage holds the LM head's own copy of the table.
                    if self.tie_word_embeddings && last > 0 {
                        w += self.sum_bytes(&inv.embed);
                    }
                }
                // families6 (issue #17): SGLang's pool holds every layer of a Llama-Nemotron NAS
                // model, no-op attention blocks included (`llm::nemotron_nas`).
                let pool_all =
                    rule == Partition::Sglang && self.arch == crate::llm::Architecture::NemotronNas;
                let stage_kv = (a..b)
                    .filter(|&l| {
                        // Recurrent and (nemotronh) mixer-less blocks hold no KV.
                        pool_all
                            || !matches!(
                                self.mixers.get(l as usize),
                                Some(crate::llm::Mixer::Linear | crate::llm::Mixer::Absent)
                            )
                    })
                    .count() as u64;
                Stage {
                    index: i as u32,
                    layers: (a, b),
                    weight_bytes: w,
                    kv_cell_bytes: full_cell / kv_layers * stage_kv,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// vLLM: 61 layers over 4 → 15 each, remainder 1 to partitions[-2]: [15, 15, 16, 15]; 62 over 4 →
    /// remainder 2 to [-2] and [-3]: [15, 16, 16, 15]. SGLang: the last `remainder` partitions:
    /// [15, 15, 15, 16] and [15, 15, 16, 16]. 80 over 2: [40, 40] for both.
    #[test]
    fn partitions_as_the_engines_split() {
        let sizes = |l, pp, r| -> Vec<u32> { stage_ranges(l, pp, r).iter().map(|(a, b)| b - a).collect() };
        assert_eq!(sizes(61, 4, Partition::Vllm), vec![15, 15, 16, 15]);
        assert_eq!(sizes(62, 4, Partition::Vllm), vec![15, 16, 16, 15]);
        assert_eq!(sizes(61, 4, Partition::Sglang), vec![15, 15, 15, 16]);
        assert_eq!(sizes(62, 4, Partition::Sglang), vec![15, 15, 16, 16]);
        assert_eq!(sizes(80, 2, Partition::Vllm), vec![40, 40]);
        assert_eq!(stage_ranges(32, 4, Partition::Vllm)[3], (24, 32));
    }

    /// Llama-3.1-8B at pp 4 (bf16): each stage 8 layers of 218,112,000 parameters (q 4096², k/v
    /// 4096 × 1024 each, o 4096², gate/up/down 3 × 4096 × 14,336, two 4096 norms) = 3,489,792,000 B;
    /// the first adds the embedding 128,256 × 4,096 × 2 = 1,050,673,152 B, the last the LM head (the
    /// same) and the final norm 8,192 B. vLLM's log (engine-memory.tsv line 24, pp 4) reports "Model
    /// loading took 4.26 GiB" on PP0/PP3 and 3.28 GiB on PP1/PP2: 4,540,465,152 B = 4.2287 GiB and
    /// 3.2501 GiB (the log's figures include ~0.03 GiB of buffers). KV: 8 of 32 layers of 131,072 B.
    #[test]
    fn llama_8b_pp4_stages() {
        let q: crate::llm::Quantization =
            serde_json::from_str(r#"{"dtype":"bf16","kv_cache_dtype":"auto"}"#).expect("quant");
        let m =
            ModelSpec::from_config_json(include_str!("../../scenarios/models/llama-3.1-8b/config.json"), q)
                .expect("llama");
        let st = m.pipeline_stages(1, 4, Partition::Vllm);
        let w: Vec<u64> = st.iter().map(|s| s.weight_bytes).collect();
        assert_eq!(
            w,
            vec![4_540_465_152, 3_489_792_000, 3_489_792_000, 4_540_473_344]
        );
        assert!(st.iter().all(|s| s.kv_cell_bytes == 32_768));
        let all: u64 = w.iter().sum();
        assert_eq!(all, m.weight_bytes_per_rank(1).0);
    }
}
