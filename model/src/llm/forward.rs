//! First-cut work of one forward pass, per rank: bytes of weights read, FLOPs, and the collectives.
//!
//! The decode model (in `tpsim`) turns this into time with the compute and collective cost models.
//! Not included here (context-dependent, left to the compute model): attention over the KV cache,
//! and activations' own memory traffic.

use serde::Serialize;

use super::ModelSpec;
use super::weights::LayerPieces;
use crate::units::Bytes;

/// Work of one decoder layer on one rank.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LayerWork {
    /// Attention weights read (projections + norms; absorbed MLA reads w_kc/w_vc, not kv_b_proj).
    pub attn_weight_bytes: Bytes,
    /// Feed-forward weights read: the whole dense MLP, or router + shared experts + the expected
    /// distinct routed experts' shards.
    pub ffn_weight_bytes: Bytes,
    /// 2 × attention parameters × tokens (projections only; attention over the KV cache excluded).
    pub attn_flops: f64,
    /// 2 × feed-forward parameters used per token × tokens (MoE: router + shared + k experts).
    pub ffn_flops: f64,
    /// Whether the layer is MoE.
    pub is_moe: bool,
    /// Expected distinct routed experts touched (0 for dense layers).
    pub experts_touched: f64,
    /// MoE only: routed experts in the layer, experts per token, the bytes of one routed expert's
    /// shard on this rank and the always-read part (router + shared experts), so that a caller with
    /// another estimate of the distinct experts can recompute `ffn_weight_bytes`.
    pub n_experts: u64,
    pub top_k: u64,
    pub expert_shard_bytes: Bytes,
    pub fixed_ffn_bytes: Bytes,
    /// Kernels the attention half of the layer launches at decode (`attention_kernels`).
    pub attn_kernels: u32,
    /// Kernels the MLP/MoE half launches (`ffn_kernels`).
    pub ffn_kernels: u32,
    /// fp8decode: the attention half's activation-quantization kernels, one per block-FP8
    /// projection (`llm::act_quant`; included in `attn_kernels`, 0 without block-FP8), and the bytes
    /// they move.
    pub attn_quant_kernels: u32,
    pub attn_quant_bytes: Bytes,
    /// The same for the MLP/MoE half (included in `ffn_kernels`).
    pub ffn_quant_kernels: u32,
    pub ffn_quant_bytes: Bytes,
    /// sgldualstream: the shared experts' part of the MoE half on this rank (0 for dense layers
    /// and MoE layers without shared experts): their weight bytes (included in `fixed_ffn_bytes`),
    /// FLOPs (included in `ffn_flops`), and their activation-quantization kernels and bytes
    /// (included in `ffn_quant_kernels` / `ffn_quant_bytes`). An engine that runs the shared
    /// experts on a second CUDA stream beside the routed ones costs the two apart.
    pub shared_ffn_bytes: Bytes,
    pub shared_ffn_flops: f64,
    pub shared_quant_kernels: u32,
    pub shared_quant_bytes: Bytes,
    /// vllmfusion: the part of `attn_quant_*` / `ffn_quant_*` whose input is a sole-consumer
    /// RMSNorm output (`llm::act_quant::NormFedQuant`), which vLLM's compile passes may fuse.
    pub attn_norm_fed_quant: super::NormFedQuant,
    pub ffn_norm_fed_quant: super::NormFedQuant,
    /// The layer's token mixer (hybrids: linear attention or full attention).
    pub mixer: super::Mixer,
    /// KV-cache bytes this layer reads per context token per sequence on this rank (0 for linear
    /// attention): its share of [`ModelSpec::kv_cell_bytes`].
    pub kv_bytes_per_token: u64,
    /// Local (sliding-window or chunked) layers: the most context tokens per sequence a decode step
    /// reads from this layer's KV cache ([`ModelSpec::local_window`]); `None` = the whole context.
    pub kv_window: Option<u64>,
    /// Recurrent (conv + SSM) state of one request in this layer on this rank, bytes (0 for full
    /// attention). A decode step reads it and writes it back (`llm::hybrid`).
    pub state_bytes: u64,
    /// DSA (DeepSeek-V3.2, GLM-5; `llm::dsa`): indexer-key bytes a decode step reads per context
    /// token per sequence — the indexer scores **every** context token, while the MLA part reads
    /// only the `index_topk` selected tokens' latents (`kv_window`). 0 for other models.
    pub index_bytes_per_token: u64,
    /// DSA: FLOPs per query token per context token of the indexer's scoring (replicated on every
    /// rank); 0 for other models.
    pub index_flops_per_ctx_token: f64,
    /// fp8rate: the part of `attn_flops` whose GEMMs have fp8 or NVFP4 weights (`llm::low_flops`).
    pub attn_low_flops: super::LowFlops,
    /// fp8rate: the part of `ffn_flops` outside the routed experts (the dense MLP; a MoE layer's
    /// router and shared experts) whose GEMMs have fp8 or NVFP4 weights.
    pub ffn_low_flops: super::LowFlops,
    /// fp8rate: the routed experts' part of `ffn_flops` in fp8 or NVFP4 (top-k rows per token).
    pub expert_low_flops: super::LowFlops,
    /// dsv4dec55: a DeepSeek-V4 layer's compress ratio (0, 4, 128): its context reads are
    /// `llm::deepseek_v4_layer::context_bytes`, not `kv_bytes_per_token` × context. `None` for
    /// other models.
    pub dsv4_ratio: Option<u64>,
}

/// Kernels of a decode step's attention half, counted from SGLang's layer code (`models/llama.py`
/// `LlamaDecoderLayer`/`LlamaAttention`; `models/deepseek_v2.py` `forward_absorb`):
/// - GQA: fused add+RMSNorm, qkv_proj GEMM, rotary embedding, decode attention, o_proj GEMM = 5, plus
///   one q/k-norm kernel with per-head q/k RMSNorm (Qwen3, GLM);
/// - MLA (absorbed): RMSNorm, fused q_a/kv_a projection, q_a and kv_a layernorms (2), q_b_proj,
///   w_kc batched GEMM, rotary embedding, split-KV decode attention and its reduction (2), w_vc batched
///   GEMM, o_proj = 11.
pub fn attention_kernels(mla: bool, qk_norm: bool) -> u32 {
    if mla { 11 } else { 5 + u32::from(qk_norm) }
}

/// Kernels of the feed-forward half, from the same sources (`layers/moe/fused_moe_triton`):
/// - dense: fused add+RMSNorm, gate_up GEMM, SiluAndMul, down GEMM = 4;
/// - MoE: RMSNorm, router GEMM, top-k selection, moe_align_block_size, fused expert GEMM w13,
///   SiluAndMul, fused expert GEMM w2, sum over the k experts = 8, plus 4 for shared experts
///   (gate_up, act, down, add).
pub fn ffn_kernels(moe: bool, shared: bool) -> u32 {
    match (moe, shared) {
        (false, _) => 4,
        (true, false) => 8,
        (true, true) => 12,
    }
}

/// Work of one forward pass over `tokens` tokens (a decode batch, or a verify pass over the draft
/// tokens), per rank.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ForwardPass {
    /// Tokens processed.
    pub tokens: u32,
    /// Decoder layers, in order.
    pub layers: Vec<LayerWork>,
    /// Embedding rows read: tokens × hidden × dtype ÷ tp (each rank looks up the ids in its vocab
    /// shard).
    pub embed_bytes: Bytes,
    /// LM-head shard read once (tied models: the embedding shard).
    pub lm_head_bytes: Bytes,
    /// 2 × LM-head shard parameters × tokens.
    pub lm_head_flops: f64,
    /// Size of each allreduce: tokens × hidden × activation bytes (bf16: 2) = 14 KB per token for
    /// hidden 7168.
    pub allreduce_bytes: Bytes,
    /// Allreduces per pass: 2 per layer (after attention, after MLP/MoE) plus 1 for the vocab-parallel
    /// embedding (SGLang `VocabParallelEmbedding.forward` all-reduces its masked lookup); 0 at tp 1.
    /// The q/k-norm statistics allreduces are counted apart ([`ForwardPass::qk_norm_allreduces`]).
    pub allreduces: u32,
    /// Extra allreduces of a q/k norm that spans all heads (MiniMax-M2): one per layer at tp > 1,
    /// else 0. Each sums the per-token q and k sums of squares across the TP ranks between the qkv
    /// projection and the normalisation (SGLang `models/minimax_m2.py` `MiniMaxM2QKRMSNorm._forward_naive`:
    /// `rms_sumsq_serial`, `attn_tp_all_reduce`, `rms_apply_serial`).
    pub qk_norm_allreduces: u32,
    /// Size of each of those allreduces as SGLang sends it: [`qk_norm_stats_bytes`] with its padding.
    pub qk_norm_allreduce_bytes: Bytes,
    /// families27 (issue #17): MiniMax-Text-01 / M1's lightning layers normalise their output with
    /// `MiniMaxText01RMSNormTP`, which all-reduces each token's fp32 variance across the TP ranks
    /// (vLLM 0.11.0 `layers/mamba/linear_attn.py` `_forward`: `tensor_model_parallel_all_reduce(variance)
    /// / tp_world`): one allreduce of tokens × 4 B per lightning layer at tp > 1, else 0.
    pub lightning_norm_allreduces: u32,
    /// families3 (issue #17): OLMo-2's whole-width q/k norm all-gathers q and then k in every layer
    /// at tp > 1 (SGLang 0.5.9 / vLLM 0.19.0 `models/olmo2.py` `_apply_qk_norm`): the output bytes per rank
    /// of each of the two gathers (`llm::olmo2::qk_gather_bytes`); `[0, 0]` for other models and at
    /// tp 1.
    pub qk_norm_allgather_bytes: [Bytes; 2],
    /// families11 (issue #17): InternLM2's packed qkv all-gather in every layer at tp > 1, which
    /// vLLM 0.19.0 runs and SGLang 0.5.8 does not (`models/internlm2.py` `split_qkv`): its output
    /// bytes per rank (`llm::internlm2::qkv_gather_bytes`); 0 for other models and at tp 1. The decode
    /// pass emits it under vLLM only.
    pub qkv_allgather_bytes: Bytes,
    /// Output size of the logits all-gather: tokens × padded vocab (draft vocab for EAGLE-3) ×
    /// activation bytes (SGLang `LogitsProcessor` gathers the vocab-sharded logits); 0 at tp 1.
    pub logits_allgather_bytes: Bytes,
    /// EAGLE-3 fusion layer (3 × target hidden → hidden, replicated) weights. It runs only in a draft
    /// pass whose input is the target's captured hidden states (the draft-extend pass), not in the
    /// following draft steps (SGLang `llama_eagle3.py` applies `fc` only to 3H-wide inputs), so it is
    /// reported apart and **not** included in [`ForwardPass::weight_bytes`]. 0 for other models.
    pub fusion_bytes: Bytes,
    /// 2 × fusion parameters × tokens, for the pass that applies it; not in [`ForwardPass::flops`].
    pub fusion_flops: f64,
}

impl ForwardPass {
    /// Total weight bytes read by the pass (layers + embedding rows + LM head).
    pub fn weight_bytes(&self) -> Bytes {
        let layers = self.layers.iter().fold(0u64, |a, l| {
            a.saturating_add(l.attn_weight_bytes.0)
                .saturating_add(l.ffn_weight_bytes.0)
        });
        Bytes(
            layers
                .saturating_add(self.embed_bytes.0)
                .saturating_add(self.lm_head_bytes.0),
        )
    }

    /// Total FLOPs of the pass (layers + LM head).
    pub fn flops(&self) -> f64 {
        self.layers
            .iter()
            .map(|l| l.attn_flops + l.ffn_flops)
            .sum::<f64>()
            + self.lm_head_flops
    }
}

/// Bytes of one q/k-norm statistics allreduce over `tokens` tokens: two fp32 values per token (the
/// q and the k sum of squares).
///
/// - SGLang (`padded = true`) pads the element count to a multiple of 4 so the buffer is 16-byte
///   aligned and its custom allreduce accepts it (`models/minimax_m2.py` `rms_sumsq_serial`:
///   `B_padded = (B + B2 + 3) // 4 * 4` fp32): 16 B for 1 or 2 tokens, 32 B for 3 or 4.
/// - vLLM (`padded = false`) reduces the `[tokens, 2]` fp32 tensor as is
///   (`model_executor/models/minimax_m2.py` → `layers/mamba/linear_attn.py`
///   `_minimax_qk_norm_tp_fallback`, `_all_reduce_variance`): 8 B per token, which its custom
///   allreduce (16-byte multiples only) takes for even token counts only.
pub fn qk_norm_stats_bytes(tokens: u64, padded: bool) -> u64 {
    let elems = 2 * tokens;
    let elems = if padded { elems.div_ceil(4) * 4 } else { elems };
    elems * 4
}

/// Expected number of distinct experts touched when `n` tokens each pick `k` of `e` experts, with
/// routing treated as uniform and independent across tokens: `E · (1 − (1 − k/E)^n)`
/// (`reference/spec-decode.md`, "Cost regularities"). Kimi (E = 384, k = 8): 8, 15.8, 31.0, 59.5 for
/// n = 1, 2, 4, 8. Returns 0 for `e = 0` or `n = 0`, and never more than `e`.
pub fn expected_distinct_experts(e: u64, k: u64, n: u64) -> f64 {
    if e == 0 || n == 0 {
        return 0.0;
    }
    let e_f = e as f64;
    let p = (k.min(e) as f64) / e_f;
    let n_i = i32::try_from(n).unwrap_or(i32::MAX);
    (e_f * (1.0 - (1.0 - p).powi(n_i))).clamp(0.0, e_f)
}

impl ModelSpec {
    /// Per-rank work of one forward pass over `tokens` tokens at this TP size (first cut: weights are
    /// read once per pass; MoE layers read the expected distinct experts). `tp = 0` is treated as 1.
    pub fn forward_pass(&self, tp: u32, tokens: u32) -> ForwardPass {
        let t = u64::from(tp.max(1));
        let n = u64::from(tokens);
        let nf = f64::from(tokens);
        let inv = self.inventory(tp);
        let act = self.activation_bytes();
        // Full attention with an output gate adds one sigmoid-and-multiply kernel (`qwen3_next.py`).
        // A q/k norm over all heads is two kernels (sums of squares, then apply) around its
        // allreduce instead of one fused per-head norm (SGLang `minimax_m2.py`, `_forward_naive`).
        // families21: vLLM's MiniCPM3 runs plain attention over per-head K/V (`mla_as_mha`).
        let full_kernels = attention_kernels(
            matches!(self.attention, super::Attention::Mla { .. }) && !self.mla_as_mha,
            self.qk_norm,
        ) + u32::from(self.attn_output_gate)
            + u32::from(self.qk_norm_full_width)
            // families3 (issue #17): OLMo-2 runs q_norm and k_norm as two RMSNorm kernels (SGLang
            // 0.5.9 `Olmo2Attention._apply_qk_norm`, k on the alternate stream under graph capture)
            // where a per-head q/k norm is one.
            + u32::from(self.arch.whole_width_qk_norm())
            // rope51: SGLang's LongRoPE rotary in PyTorch ops (`llm::partial_rotary`).
            + self.rotary_extra_kernels;
        // MiniMax-M2 casts the hidden states to fp32 for its fp32 router: one more kernel
        // (SGLang `minimax_m2.py` `forward_normal`: `self.gate(hidden_states.to(torch.float32))`).
        let router_cast = u32::from(self.arch == super::Architecture::MiniMaxM2);
        let kv_layers = u64::from(self.kv_layers().max(1));
        let kv_per_layer = self.kv_cell_bytes(tp) / kv_layers;
        // families23 (issue #17): MiMo-V2-Flash's global and sliding layers hold different cells.
        let (kv_per_layer, kv_per_local_layer) = self
            .mimo_v2_layer_cells(tp)
            .unwrap_or((kv_per_layer, kv_per_layer));
        // Gated DeltaNet or (nemotronh) Mamba-2.
        let state = self.recurrent_state_bytes(tp);
        let recurrence = self.recurrence_flops(tp) * nf;
        // DSA: the selected tokens' latents at the pool's layout (fp8: 656 B, bf16: 1,152 B), the
        // indexer keys of every token (132 B) and the scoring FLOPs (`llm::dsa`).
        let kv_bytes = self.quantization.kv_cache_dtype.bytes(self.dtype);
        let dsa = self.indexer.zip(self.nsa_kv(kv_bytes)).map(|(ix, kv)| Dsa {
            latent: kv.latent_pool,
            index: kv.index,
            topk: ix.topk,
            flops: ix.score_flops_per_ctx_token(),
        });

        let c = LayerConsts {
            n,
            nf,
            full_kernels,
            router_cast,
            kv_per_layer,
            kv_per_local_layer,
            state,
            recurrence,
            dsa,
            tp: u64::from(tp.max(1)),
        };
        let layers = inv
            .layers
            .iter()
            .enumerate()
            .map(|(i, l)| self.layer_work(i, l, &c))
            .collect::<Vec<_>>();
        // dsv4dec55 (issue #17): DeepSeek-V4's layers (`llm::deepseek_v4_layer`), experts in SGLang's
        // CUDA default format (`ModelSpec::deepseek_v4_layers` takes the release's).
        let layers = match &self.deepseek_v4 {
            Some(g) => self.deepseek_v4_layers(
                layers,
                tp,
                tokens,
                super::deepseek_v4_weights::ExpertFormat::sglang_cuda(g),
            ),
            None => layers,
        };

        let lm_head_bytes = if inv.lm_head.is_empty() {
            // Tied: the LM head is the embedding shard.
            self.sum_bytes(&inv.embed)
        } else {
            self.sum_bytes(&inv.lm_head)
        };
        let logits_rows = inv.lm_head.first().map_or(inv.vocab_rows, |p| p.rows);
        // One allreduce per present half-layer: two per layer, one per Nemotron-H block.
        // families25 (issue #17): LongCat-Flash's MoE block all-reduces the MoE and dense MLP 0 apart
        // (`ForwardPass::split_moe_allreduce`).
        let halves = layers
            .iter()
            .map(|l| {
                u32::from(l.attn_kernels > 0)
                    + u32::from(l.ffn_kernels > 0)
                    + u32::from(l.is_moe && self.split_moe_allreduce())
            })
            .sum::<u32>();
        let (allreduces, gather) = if t > 1 {
            (
                halves.saturating_add(1),
                n.saturating_mul(logits_rows.saturating_mul(t))
                    .saturating_mul(act),
            )
        } else {
            (0, 0)
        };
        let qk_norm_allreduces = if t > 1 && self.qk_norm_full_width {
            self.num_layers
        } else {
            0
        };
        let lightning_norm_allreduces = if t > 1 && self.arch == super::Architecture::MiniMaxText01 {
            self.linear_layers()
        } else {
            0
        };
        ForwardPass {
            tokens,
            layers,
            qk_norm_allreduces,
            lightning_norm_allreduces,
            qk_norm_allreduce_bytes: Bytes(if qk_norm_allreduces > 0 {
                qk_norm_stats_bytes(n, true)
            } else {
                0
            }),
            qk_norm_allgather_bytes: if self.arch.whole_width_qk_norm() {
                super::olmo2::qk_gather_bytes(n, self.heads, self.kv_heads, self.head_dim, t, act).map(Bytes)
            } else {
                [Bytes(0), Bytes(0)]
            },
            qkv_allgather_bytes: Bytes(if self.arch == super::Architecture::InternLM2 {
                super::internlm2::qkv_gather_bytes(n, self.heads, self.kv_heads, self.head_dim, t, act)
            } else {
                0
            }),
            embed_bytes: Bytes(n.saturating_mul(self.hidden).saturating_mul(act).div_ceil(t)),
            lm_head_bytes: Bytes(lm_head_bytes),
            lm_head_flops: 2.0 * inv.lm_head_params as f64 * nf,
            allreduce_bytes: Bytes(n.saturating_mul(self.hidden).saturating_mul(act)),
            allreduces,
            logits_allgather_bytes: Bytes(gather),
            fusion_bytes: Bytes(self.sum_bytes(&inv.draft_fc)),
            fusion_flops: 2.0 * inv.draft_fc.iter().map(|p| p.params()).sum::<u64>() as f64 * nf,
        }
    }
}

impl ModelSpec {
    /// dsv4dec55: `layers` (a forward pass's, over `tokens` tokens at `tp`) as DeepSeek-V4's layers
    /// with their routed experts in `experts` (`llm::deepseek_v4_layer::layer_work`); unchanged for
    /// other models.
    pub fn deepseek_v4_layers(
        &self,
        layers: Vec<LayerWork>,
        tp: u32,
        tokens: u32,
        experts: super::deepseek_v4_weights::ExpertFormat,
    ) -> Vec<LayerWork> {
        let Some(g) = &self.deepseek_v4 else {
            return layers;
        };
        layers
            .into_iter()
            .enumerate()
            .map(|(i, l)| {
                super::deepseek_v4_layer::layer_work(
                    g,
                    u64::from(tp.max(1)),
                    i,
                    u64::from(tokens),
                    experts,
                    l,
                )
            })
            .collect()
    }
}

/// What every layer of one forward pass shares (see [`ModelSpec::forward_pass`]).
struct LayerConsts {
    /// Tokens, as an integer and as a float.
    n: u64,
    nf: f64,
    /// Kernels of a full-attention half-layer.
    full_kernels: u32,
    /// 1 when the hidden states are cast for an fp32 router (MiniMax-M2), else 0.
    router_cast: u32,
    /// KV-cache bytes per context token of one KV layer on this rank.
    kv_per_layer: u64,
    /// families23 (issue #17): the same for a local (sliding / chunked) layer; equal to
    /// `kv_per_layer` except for MiMo-V2-Flash.
    kv_per_local_layer: u64,
    /// Recurrent state of one request in a linear-attention layer, bytes.
    state: u64,
    /// FLOPs of the linear-attention recurrence over the pass's tokens.
    recurrence: f64,
    /// DSA models' per-layer sparse-attention figures.
    dsa: Option<Dsa>,
    /// families38: the pass's TP size (MiniMax-M3's per-layer reads, `ModelSpec::minimax_m3`).
    tp: u64,
}

/// A DSA layer's decode reads (`llm::dsa`).
#[derive(Clone, Copy)]
struct Dsa {
    /// Latent bytes per selected token.
    latent: u64,
    /// Indexer-key bytes per context token.
    index: u64,
    /// Selected tokens per query (`index_topk`).
    topk: u64,
    /// Indexer FLOPs per query token per context token.
    flops: f64,
}

impl ModelSpec {
    /// The work of decoder layer `i` (its pieces `l`) in a forward pass.
    fn layer_work(&self, i: usize, l: &LayerPieces, c: &LayerConsts) -> LayerWork {
        let LayerConsts {
            n,
            nf,
            full_kernels,
            router_cast,
            kv_per_layer,
            kv_per_local_layer,
            state,
            recurrence,
            dsa,
            tp,
        } = *c;
        // families38 (issue #17): MiniMax-M3 reads its main K/V a layer (not the cell's average with
        // the index keys) and, on an MSA layer, the DSA-like sparse read: the index keys of every
        // context token, the chosen blocks' K/V and the index scoring (`llm::minimax_m3`).
        let (kv_per_layer, kv_per_local_layer, dsa) = match self
            .minimax_m3
            .as_ref()
            .and_then(|g| g.layers.get(i).map(|l| (g, *l)))
        {
            Some((g, l)) => {
                let main = g.main_layer_bytes(tp);
                let msa = g.index.filter(|_| l.sparse).map(|x| Dsa {
                    latent: main,
                    index: g.index_layer_bytes(l),
                    topk: x.topk_blocks * x.block_size,
                    flops: 2.0 * (g.index_heads_rank(tp) * x.dim) as f64,
                });
                (main, main, msa)
            }
            None => (kv_per_layer, kv_per_local_layer, dsa),
        };
        let kv_per_layer = if mixer_is_local(self, i) {
            kv_per_local_layer
        } else {
            kv_per_layer
        };
        let mixer = self.mixers.get(i).copied().unwrap_or(super::Mixer::Attention);
        let linear = mixer == super::Mixer::Linear;
        // families (issue #17): Granite-4.0-H's Mamba-2 layers launch Nemotron-H's Mamba-2 kernels;
        // its attention and feed-forward are the generic ones.
        let nemotron = self.arch == super::Architecture::NemotronH;
        let (attn_kernels, kv_bytes_per_token, state_bytes, extra_flops) = if linear {
            let kernels = if self.mamba2.is_some() {
                super::nemotron_h::MAMBA2_KERNELS
            } else if self.short_conv.is_some() {
                // families22 (issue #17): an LFM2 short-conv layer (`llm::lfm2`).
                super::lfm2::SHORT_CONV_KERNELS
            } else if matches!(
                self.arch,
                super::Architecture::KimiLinear | super::Architecture::KimiK3
            ) {
                // families19 (issue #17): a KDA layer (`llm::kimi_linear`); families32: Kimi-K3's,
                // its [q, k, v, g] one fused GEMM where Kimi-Linear runs g_a and g_b (a kernel fewer,
                // not counted: `llm::kimi_k3`).
                super::kimi_linear::KDA_KERNELS
            } else if self.arch == super::Architecture::MiniMaxText01 {
                // families27 (issue #17): a lightning layer (`llm::minimax01`).
                super::minimax01::LIGHTNING_KERNELS
            } else {
                super::hybrid::LINEAR_ATTENTION_KERNELS
            };
            (kernels, 0, state, recurrence)
        } else if mixer == super::Mixer::Absent {
            // nemotronh (issue #17): an MLP block has no mixer.
            (0, 0, 0, 0.0)
        } else if nemotron || self.arch == super::Architecture::GraniteMoeHybrid {
            // families: Granite-4.0-H's attention has no rotary kernel either (every published
            // config says `position_embedding_type: "nope"`; a "rope" one would launch one more).
            (super::nemotron_h::ATTENTION_KERNELS, kv_per_layer, 0, 0.0)
        } else if self.arch == super::Architecture::Exaone4 {
            // families5 (issue #17): EXAONE 4's post-norm layer, without rotary on its NoPE layers
            // (`llm::exaone4`).
            let nope = self.nope_layers.contains(&(i as u32));
            (super::exaone4::attn_kernels(nope), kv_per_layer, 0, 0.0)
        } else if self.arch == super::Architecture::MiniCpm3 && !self.mla_as_mha {
            // hybrid50: SGLang's MiniCPM3 layer, its PyTorch LongRoPE and copies (`llm::minicpm`).
            (
                super::minicpm::sglang_minicpm3_attn_kernels(n),
                kv_per_layer,
                0,
                0.0,
            )
        } else if self.mimo_v2.is_some_and(|a| a.v_scale) {
            // families23 (issue #17): MiMo-V2-Flash's `v * v_scale` (`llm::mimo_v2`).
            (
                full_kernels + super::mimo_v2::V_SCALE_KERNELS,
                kv_per_layer,
                0,
                0.0,
            )
        } else if self.arch == super::Architecture::MiniCpm && self.sglang_mup {
            // hybrids51: SGLang's MiniCPM layer, its float casts and muP residual (`llm::minicpm`).
            (
                full_kernels + super::minicpm::SGLANG_MINICPM_ATTN_EXTRA,
                kv_per_layer,
                0,
                0.0,
            )
        } else {
            (full_kernels, kv_per_layer, 0, 0.0)
        };
        // families32 (issue #17): Kimi-K3's attention-residual reads before each half and its MLA
        // output gate (`llm::kimi_k3`).
        let (attn_kernels, k3_ffn_extra) = match self.kimi_k3 {
            Some(k3) => (
                attn_kernels + k3.attn_extra_kernels(i, linear),
                k3.ffn_extra_kernels(),
            ),
            None => (attn_kernels, 0),
        };
        // nemotronh (issue #17): a Mamba or attention block has no feed-forward.
        let ffn_absent = matches!(self.layers.get(i), Some(super::Ffn::Absent));
        // A DSA layer (DeepSeek-V3.2, GLM-5) reads its `index_topk` selected tokens' latents, given as its
        // window (`llm::local_kv_tokens`).
        let kv_window = self.local_window(mixer).or(dsa.map(|d| d.topk));
        let (kv_bytes_per_token, index_bytes_per_token, index_flops_per_ctx_token) = match dsa {
            Some(d) if !linear => (d.latent, d.index, d.flops),
            _ => (kv_bytes_per_token, 0, 0.0),
        };
        let attn: Vec<_> = l.attn.iter().filter(|p| p.decode).copied().collect();
        let attn_params: u64 = attn.iter().map(|p| p.params()).sum();
        let f = &l.ffn;
        // fp8decode: one per-token-group quantization kernel before each block-FP8 GEMM, over the
        // pass's tokens (the routed down experts: each token's top-k rows; `llm::act_quant`).
        let aq = self.act_quant(&attn, |_| n);
        let top_k = f.top_k.max(1);
        let sq = self.act_quant(&f.shared, |_| n);
        let fq = self
            .act_quant(&f.dense, |_| n)
            .plus(sq)
            .plus(self.act_quant(&f.expert, |name| {
                if name.contains("down") {
                    n.saturating_mul(top_k)
                } else {
                    n
                }
            }));
        if f.n_experts == 0 {
            let params: u64 = f.dense.iter().map(|p| p.params()).sum();
            LayerWork {
                attn_weight_bytes: Bytes(self.sum_bytes(&attn)),
                ffn_weight_bytes: Bytes(self.sum_bytes(&f.dense)),
                attn_flops: 2.0 * attn_params as f64 * nf + extra_flops,
                ffn_flops: 2.0 * params as f64 * nf,
                is_moe: false,
                experts_touched: 0.0,
                n_experts: 0,
                top_k: 0,
                expert_shard_bytes: Bytes(0),
                fixed_ffn_bytes: Bytes(0),
                attn_kernels: attn_kernels + if attn_kernels > 0 { aq.kernels } else { 0 },
                ffn_kernels: if ffn_absent {
                    0
                } else if nemotron {
                    super::nemotron_h::MLP_KERNELS + fq.kernels
                } else if self.arch == super::Architecture::Exaone4 {
                    // families5 (issue #17): post_feedforward_layernorm and a separate residual add.
                    super::exaone4::MLP_KERNELS + fq.kernels
                } else if (self.arch == super::Architecture::MiniCpm3 && !self.mla_as_mha)
                    || (self.arch == super::Architecture::MiniCpm && self.sglang_mup)
                {
                    // hybrid50: SGLang's MiniCPM3 MLP half with the muP residual (`llm::minicpm`);
                    // hybrids51: MiniCPM's is the same.
                    super::minicpm::SGLANG_MINICPM3_MLP_KERNELS + fq.kernels
                } else {
                    ffn_kernels(false, false) + fq.kernels + k3_ffn_extra
                },
                attn_quant_kernels: if attn_kernels > 0 { aq.kernels } else { 0 },
                attn_quant_bytes: Bytes(if attn_kernels > 0 { aq.bytes } else { 0 }),
                ffn_quant_kernels: if ffn_absent { 0 } else { fq.kernels },
                ffn_quant_bytes: Bytes(if ffn_absent { 0 } else { fq.bytes }),
                shared_ffn_bytes: Bytes(0),
                shared_ffn_flops: 0.0,
                shared_quant_kernels: 0,
                shared_quant_bytes: Bytes(0),
                attn_norm_fed_quant: if attn_kernels > 0 {
                    aq.norm_fed
                } else {
                    Default::default()
                },
                ffn_norm_fed_quant: if ffn_absent {
                    Default::default()
                } else {
                    fq.norm_fed
                },
                mixer,
                kv_bytes_per_token,
                state_bytes,
                kv_window,
                index_bytes_per_token,
                index_flops_per_ctx_token,
                attn_low_flops: self.low_flops(&attn, nf),
                ffn_low_flops: if ffn_absent {
                    super::LowFlops::NONE
                } else {
                    self.low_flops(&f.dense, nf)
                },
                expert_low_flops: super::LowFlops::NONE,
                dsv4_ratio: None,
            }
        } else {
            let touched = expected_distinct_experts(f.n_experts, f.top_k, n);
            // Pieces a decode step reads (not a kernel's idle copy: `Piece::decode`).
            let read: Vec<_> = f.expert.iter().filter(|p| p.decode).copied().collect();
            let expert_bytes = self.sum_bytes(&read) as f64;
            let fixed = self
                .sum_bytes(&f.router)
                .saturating_add(self.sum_bytes(&f.shared));
            let expert_params: u64 = read.iter().map(|p| p.params()).sum();
            let fixed_params: u64 = f.router.iter().chain(&f.shared).map(|p| p.params()).sum();
            let shared_params: u64 = f.shared.iter().map(|p| p.params()).sum();
            let per_token = fixed_params as f64 + f.top_k as f64 * expert_params as f64;
            LayerWork {
                attn_weight_bytes: Bytes(self.sum_bytes(&attn)),
                ffn_weight_bytes: Bytes(fixed.saturating_add((touched * expert_bytes).round() as u64)),
                attn_flops: 2.0 * attn_params as f64 * nf + extra_flops,
                ffn_flops: 2.0 * per_token * nf,
                is_moe: true,
                experts_touched: touched,
                n_experts: f.n_experts,
                top_k: f.top_k,
                expert_shard_bytes: Bytes(expert_bytes.round() as u64),
                fixed_ffn_bytes: Bytes(fixed),
                attn_kernels: attn_kernels + if attn_kernels > 0 { aq.kernels } else { 0 },
                ffn_kernels: ffn_kernels(true, !f.shared.is_empty())
                    + router_cast
                    + fq.kernels
                    + k3_ffn_extra,
                attn_quant_kernels: if attn_kernels > 0 { aq.kernels } else { 0 },
                attn_quant_bytes: Bytes(if attn_kernels > 0 { aq.bytes } else { 0 }),
                ffn_quant_kernels: fq.kernels,
                ffn_quant_bytes: Bytes(fq.bytes),
                shared_ffn_bytes: Bytes(self.sum_bytes(&f.shared)),
                shared_ffn_flops: 2.0 * shared_params as f64 * nf,
                shared_quant_kernels: sq.kernels,
                shared_quant_bytes: Bytes(sq.bytes),
                attn_norm_fed_quant: if attn_kernels > 0 {
                    aq.norm_fed
                } else {
                    Default::default()
                },
                ffn_norm_fed_quant: fq.norm_fed,
                mixer,
                kv_bytes_per_token,
                state_bytes,
                kv_window,
                index_bytes_per_token,
                index_flops_per_ctx_token,
                attn_low_flops: self.low_flops(&attn, nf),
                ffn_low_flops: self.low_flops(&f.router, nf).plus(self.low_flops(&f.shared, nf)),
                expert_low_flops: self.low_flops(&read, f.top_k as f64 * nf),
                dsv4_ratio: None,
            }
        }
    }
}

/// One projection GEMM of a decode step on one rank: Y[m×n] = X[m×k] · Wᵀ, W being n×k.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Projection {
    /// The projection, e.g. `qkv_proj`, `mlp.down_proj`, `moe.expert.gate_up_proj`, `lm_head`.
    pub name: &'static str,
    /// Output features on this rank.
    pub n: u64,
    /// Input features on this rank.
    pub k: u64,
}

impl ModelSpec {
    /// The distinct per-rank projection GEMMs of a decode step at this TP size, in layer order (the
    /// attention half, then the dense MLP or router, routed expert and shared experts), then the LM
    /// head (tied models: the embedding shard). They come from the same per-rank inventory as
    /// [`ModelSpec::weight_breakdown`] and [`ModelSpec::forward_pass`], so the sharding rules
    /// (this crate's `weights` table) are written once. A shape repeated by later layers is listed
    /// once; MLA's absorbed w_kc/w_vc (batched per-head GEMMs over the KV cache) and kv_b_proj
    /// (not read at decode) are left out, as are norms, biases and empty shapes. `tp = 0` is
    /// treated as 1.
    pub fn decode_projections(&self, tp: u32) -> Vec<Projection> {
        let inv = self.inventory(tp);
        let layers = inv.layers.iter().flat_map(|l| {
            l.attn
                .iter()
                .chain(&l.ffn.dense)
                .chain(&l.ffn.router)
                .chain(&l.ffn.expert)
                .chain(&l.ffn.shared)
        });
        let tied = inv.lm_head.is_empty().then(|| {
            // Tied: the LM head multiplies by the embedding shard.
            super::piece::Piece::new(inv.vocab_rows, self.hidden, super::piece::Fmt::Model).gemm("lm_head")
        });
        let mut out: Vec<Projection> = Vec::new();
        for p in layers.chain(&inv.lm_head).chain(tied.as_ref()) {
            let Some(name) = p.gemm else { continue };
            let proj = Projection {
                name,
                n: p.rows,
                k: p.cols,
            };
            if p.decode && proj.n > 0 && proj.k > 0 && !out.contains(&proj) {
                out.push(proj);
            }
        }
        out
    }
}

impl ModelSpec {
    /// FLOPs per rank per layer of attention over the context (the part [`ForwardPass`] leaves out):
    /// - decode (`prefill = false`): each of `tokens` queries scores `ctx` keys and mixes `ctx`
    ///   values: 2 × tokens × ctx × heads/tp × (d_k + d_v); MLA decodes absorbed, in the latent space:
    ///   d_k = kv_lora_rank + qk_rope_head_dim, d_v = kv_lora_rank (SGLang `forward_absorb`);
    /// - prefill (`prefill = true`, `seqs` prompts of tokens / seqs each, causal): half the square,
    ///   2 × seqs × p²/2 × heads/tp × (d_k + d_v), MLA un-absorbed (d_k = nope + rope, d_v = v_head_dim).
    pub fn attention_context_flops(&self, tp: u32, tokens: u32, seqs: u32, ctx: u32, prefill: bool) -> f64 {
        let t = f64::from(tp.max(1));
        let (heads, dk, dv) = match self.attention {
            super::Attention::Mla {
                kv_lora_rank,
                qk_nope_head_dim,
                qk_rope_head_dim,
                v_head_dim,
                ..
            } => {
                if prefill {
                    (self.heads, qk_nope_head_dim + qk_rope_head_dim, v_head_dim)
                } else {
                    (self.heads, kv_lora_rank + qk_rope_head_dim, kv_lora_rank)
                }
            }
            super::Attention::Gqa { heads, head_dim, .. } => (heads, head_dim, head_dim),
        };
        let per_rank_heads = (heads as f64 / t).max(1.0);
        let width = (dk + dv) as f64;
        if prefill {
            let s = f64::from(seqs.max(1));
            let p = f64::from(tokens) / s;
            2.0 * s * p * p / 2.0 * per_rank_heads * width
        } else {
            2.0 * f64::from(tokens) * f64::from(ctx) * per_rank_heads * width
        }
    }

    /// vllmchunk59: FLOPs per rank per layer of a mixed step's prefill chunks (vLLM V1, where a
    /// step's decodes and chunks share one varlen attention call, each query over its own
    /// sequence): `chunks` chunks of `tokens` tokens in all, causal over themselves
    /// ([`ModelSpec::attention_context_flops`] with `prefill = true`), plus each token over the
    /// `prefix` tokens its prompt computed in earlier steps ([`ModelSpec::attention_prefix_flops`]).
    pub fn mixed_chunk_flops(&self, tp: u32, chunks: u32, tokens: u32, prefix: u32) -> f64 {
        let causal = self.attention_context_flops(tp, tokens, chunks.max(1), 0, true);
        match prefix {
            0 => causal,
            p => causal + self.attention_prefix_flops(tp, tokens, p),
        }
    }

    /// FLOPs per rank per layer of an extend's attention over its cached prefix: each of `tokens`
    /// new queries scores `prefix` cached keys and mixes their values, 2 × tokens × prefix ×
    /// heads/tp × (d_k + d_v), at the extend's widths (MLA un-absorbed, as a prefill; a first cut
    /// for SGLang's MLA prefix paths). The causal part over the new tokens themselves is
    /// [`ModelSpec::attention_context_flops`] with `prefill = true`.
    pub fn attention_prefix_flops(&self, tp: u32, tokens: u32, prefix: u32) -> f64 {
        let (heads, width) = match self.attention {
            super::Attention::Mla {
                qk_nope_head_dim,
                qk_rope_head_dim,
                v_head_dim,
                ..
            } => (self.heads, qk_nope_head_dim + qk_rope_head_dim + v_head_dim),
            super::Attention::Gqa { heads, head_dim, .. } => (heads, 2 * head_dim),
        };
        let per_rank_heads = (heads as f64 / f64::from(tp.max(1))).max(1.0);
        2.0 * f64::from(tokens) * f64::from(prefix) * per_rank_heads * width as f64
    }
}

/// Whether decoder layer `i` is local (sliding-window or chunked).
fn mixer_is_local(spec: &ModelSpec, i: usize) -> bool {
    spec.mixers.get(i).is_some_and(|m| m.is_local())
}
