//! Per-rank weight inventory under SGLang tensor parallelism.
//!
//! Sharding rules (SGLang `python/sglang/srt/…`):
//!
//! | piece | rule | source |
//! |---|---|---|
//! | token embedding | vocab-parallel: rows (vocab padded to 64) split by tp | `layers/vocab_parallel_embedding.py` `VocabParallelEmbedding` |
//! | LM head | vocab-parallel like the embedding; nothing extra if tied | same file, `ParallelLMHead` |
//! | GQA q/k/v | column-parallel by heads; KV heads replicated when tp > kv_heads | `layers/linear.py` `QKVParallelLinear` |
//! | o_proj, MLP down, expert down | row-parallel: input dim split by tp | `layers/linear.py` `RowParallelLinear` |
//! | MLP gate/up, shared experts | column-parallel: intermediate split by tp | `MergedColumnParallelLinear`, `models/deepseek_v2.py` `DeepseekV2MLP` |
//! | MLA q_a_proj + kv_a_proj_with_mqa (+ their norms) | **replicated** | `models/deepseek_v2.py` `fused_qkv_a_proj_with_mqa` = `ReplicatedLinear` |
//! | MLA q_b_proj, kv_b_proj | column-parallel by heads | `models/deepseek_v2.py` (`ColumnParallelLinear`) |
//! | MLA w_kc / w_vc | extra per-rank copies of kv_b_proj at model dtype, made after loading for the absorbed decode path | `models/deepseek_v2.py` `post_load_weights` (`.contiguous()` copies; fp8 is dequantized first) |
//! | MoE router (`gate`) and its score-correction bias | **replicated** (MiniMax-M2: gate in fp32) | `models/deepseek_v2.py` `MoEGate`; `models/qwen3_moe.py` `ReplicatedLinear`; `models/minimax_m2.py` (`params_dtype=torch.float32`) |
//! | MiniMax-M2 q/k norm over all heads | sharded with the heads | `models/minimax_m2.py` `MiniMaxM2RMSNormTP` |
//! | routed experts | TP-MoE: every rank holds every expert, 1/tp of its intermediate | `layers/moe/fused_moe_triton/layer.py` `FusedMoE` (no expert parallelism) |
//! | norms | replicated | `layers/layernorm.py` `RMSNorm` |
//! | MTP/NextN layers | not loaded by the target (they are the draft) | `models/deepseek_v2.py` skips `model.layers.{num_hidden_layers}` |
//! | vision encoder blocks | qkv/o and MLP split by tp; patch embedding, position embedding, norms and projector replicated | `models/kimi_k25.py` (`VisionAttention(use_qkv_parallel=True)`, `MLP2` = Column/RowParallelLinear, `K2VLMultiModalProjector` = `ReplicatedLinear`); all replicated with `--mm-enable-dp-encoder` |
//! | Qwen3.5 full attention | q_proj twice as wide with `attn_output_gate` (queries + gate), KV heads replicated like GQA | `models/qwen3_next.py` `Qwen3HybridAttentionDecoderLayer` |
//! | Qwen3.5 linear attention (Gated DeltaNet) | projections column/row-parallel, conv1d at model dtype; see `llm::hybrid` | `models/qwen3_next.py` `Qwen3GatedDeltaNet` |
//! | Qwen3.5 shared expert and its 1-output `shared_expert_gate` | shared expert column/row-parallel; gate replicated | `models/qwen2_moe.py` `Qwen2MoeSparseMoeBlock` |
//! | Qwen2-MoE (h3) | as Qwen3.5's MoE block: router `ReplicatedLinear`, `FusedMoE` experts, shared expert `Qwen2MoeMLP` column/row-parallel, `shared_expert_gate` = `torch.nn.Linear(hidden, 1)` replicated; QKV bias | SGLang 0.5.9 / vLLM 0.11.0 `models/qwen2_moe.py` |
//! | Phi-3 (h3) | checkpoint's fused `qkv_proj` / `gate_up_proj` split by the engine into the Llama pieces: same shards | SGLang 0.5.9 `models/llama.py` `Phi3ForCausalLM`, vLLM 0.11.0 `models/phi3.py` (a `LlamaForCausalLM`) |
//! | Granite 3.x (h3) | Llama pieces; `embedding_multiplier`, `residual_multiplier`, `attention_multiplier`, `logits_scaling` are scalars | SGLang 0.5.9 / vLLM 0.11.0 `models/granite.py` |
//! | GLM-4 dense (h3) | Llama pieces with a QKV bias (`attention_bias`); `Glm4ForCausalLM` adds two replicated RMSNorms per layer | vLLM 0.11.0 `models/glm.py` (`GlmForCausalLM(LlamaForCausalLM)`), SGLang 0.5.9 / vLLM 0.11.0 `models/glm4.py` |
//! | Mistral-3 Pixtral tower + projector (h3) | blocks sharded (SGLang `models/pixtral.py` `PixtralHFVisionModel`: `VisionAttention`, `MergedColumnParallelLinear` / `RowParallelLinear`); patch conv, norms and the whole projector replicated (SGLang 0.5.9 `models/mistral.py` uses transformers' `Mistral3MultiModalProjector`, plain `nn.Linear`; vLLM 0.11.0 shards `linear_1`/`linear_2`) | see `llm::vlm` |
//! | Qwen2.5-VL vision tower (h3) | blocks and merger column/row-parallel with biases, Conv3d patch embedding and norms replicated | see `llm::vlm` |
//! | gpt-oss | q/k/v/o biases, per-head sinks (split with the heads), biased replicated router, biased experts split in whole MXFP4 blocks and padded as the engine pads them | vLLM `models/gpt_oss.py`, `quantization/mxfp4.py`; see `llm::gpt_oss` |
//! | Gemma 1/2/3, Mistral, Mixtral, Llama-4 | extra norms, SigLIP / Llama-4 vision towers, interleaved MoE with a shared expert: see `llm::local_attention` | SGLang `models/gemma*.py`, `mixtral.py`, `llama4.py`, `mllama4.py`, `siglip.py` |
//! | GraniteMoE, Phi-3.5-MoE (fam) | Mixtral-like MoE; Phi's LayerNorm, o_proj and LM-head biases | see `llm::moe_families` |
//! | LLaVA-NeXT CLIP tower + projector (fam) | blocks column/row-parallel with biases, built up to `vision_feature_layer`; embeddings and norms replicated; projector column/row-parallel | see `llm::llava_next` |
//! | DSA indexer (DeepSeek-V3.2, GLM-5) | wq_b, wk (quantizable), weights_proj (bf16), k_norm (fp32): all replicated | `layers/attention/nsa/nsa_indexer.py` `Indexer`; see `llm::dsa` |
//! | Granite-4.0-H (families) | Llama-shaped layers whose mixer is Mamba-2 (as Nemotron-H's) or GQA attention, each with a MoE of SwiGLU experts plus a shared SwiGLU MLP (column / row-parallel), or that MLP alone | see `llm::granite_hybrid` |
//! | Nemotron-H (nemotronh) | one block per layer: Mamba-2 (in_proj / out_proj column / row-parallel, conv1d at model dtype, A fp32, D, dt_bias, gated norm sharded by heads), GQA attention without biases, squared-ReLU MLP up/down; one norm per block | see `llm::nemotron_h` |
//! | EAGLE-3 draft | embedding shared with the target (not loaded twice); fusion `fc` (3H → H) replicated; attention input is 2H | `models/llama_eagle3.py` (`fc = nn.Linear`), `speculative/eagle_worker.py` `set_embed` |
//!
//! Small tensors whose size the engine does not document (compressed-tensors `weight_shape`, NVFP4
//! `input_scale`s beyond the per-tensor pair, rotary caches) are not counted: they are < 1 MiB per rank.

use serde::Serialize;

// Dependencies point one way: this module uses `piece`, `gpt_oss` and `hybrid`; none of them uses it.
use super::piece::{Fmt, Piece};
use super::quant::{WeightDtype, WeightFormat};
use super::{Attention, Ffn, ModelSpec, MoeShape, VisionTower};

/// SGLang pads the vocabulary of `VocabParallelEmbedding`/`ParallelLMHead` to a multiple of 64
/// (`DEFAULT_VOCAB_PADDING_SIZE`, `layers/vocab_parallel_embedding.py`).
pub(crate) const VOCAB_PADDING: u64 = 64;

/// The feed-forward pieces of one layer, split by role.
#[derive(Debug, Clone, Default)]
pub(crate) struct FfnPieces {
    /// Dense MLP (empty for MoE layers).
    pub dense: Vec<Piece>,
    /// Router (+ correction bias).
    pub router: Vec<Piece>,
    /// One routed expert's tensors (count 1), per rank.
    pub expert: Vec<Piece>,
    /// Routed experts held (E), 0 for dense layers.
    pub n_experts: u64,
    /// Experts per token (k).
    pub top_k: u64,
    /// Shared experts.
    pub shared: Vec<Piece>,
}

/// One decoder layer held by one rank.
#[derive(Debug, Clone, Default)]
pub(crate) struct LayerPieces {
    /// Attention projections and the layer's norms.
    pub attn: Vec<Piece>,
    /// Feed-forward.
    pub ffn: FfnPieces,
}

/// Everything one rank holds.
#[derive(Debug, Clone, Default)]
pub(crate) struct Inventory {
    /// Token embedding shard (empty for EAGLE-3 drafts, which use the target's).
    pub embed: Vec<Piece>,
    /// Rows of the vocab shard the embedding/LM head holds.
    pub vocab_rows: u64,
    /// LM head shard (empty when tied to the embedding).
    pub lm_head: Vec<Piece>,
    /// Parameters of the LM-head matmul per rank (tied: the embedding shard).
    pub lm_head_params: u64,
    /// EAGLE-3 fusion layer and extra norms.
    pub draft_fc: Vec<Piece>,
    /// Decoder layers.
    pub layers: Vec<LayerPieces>,
    /// Final norm.
    pub final_norm: Vec<Piece>,
    /// Vision tower.
    pub vision: Vec<Piece>,
}

/// Bytes of weights per rank by component (what `weight_bytes_per_rank` sums).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
pub struct WeightBreakdown {
    /// Token embedding shard (0 for EAGLE-3 drafts: shared with the target).
    pub embedding: u64,
    /// LM head shard (0 when tied).
    pub lm_head: u64,
    /// Attention projections, including replicated MLA down-projections and absorbed copies.
    pub attention: u64,
    /// Dense MLPs.
    pub dense_mlp: u64,
    /// Routed experts (1/tp of each).
    pub routed_experts: u64,
    /// Shared experts.
    pub shared_experts: u64,
    /// MoE routers (replicated).
    pub router: u64,
    /// Norms and biases (1-D parameters; replicated unless they belong to a sharded projection).
    pub norms: u64,
    /// Vision tower and projector.
    pub vision: u64,
    /// EAGLE-3 fusion layer (replicated).
    pub draft_fc: u64,
}

impl WeightBreakdown {
    /// Sum of all components, bytes.
    pub fn total(&self) -> u64 {
        [
            self.embedding,
            self.lm_head,
            self.attention,
            self.dense_mlp,
            self.routed_experts,
            self.shared_experts,
            self.router,
            self.norms,
            self.vision,
            self.draft_fc,
        ]
        .iter()
        .fold(0u64, |a, &b| a.saturating_add(b))
    }
}

impl ModelSpec {
    /// The format a piece is stored in.
    pub(crate) fn format_of(&self, fmt: Fmt) -> WeightFormat {
        match fmt {
            Fmt::Model => WeightFormat::plain(self.dtype),
            Fmt::Fp32 => WeightFormat::plain(WeightDtype::Fp32),
            Fmt::Linear => self.quantization.weights,
            Fmt::Expert => self.quantization.expert_format(),
            Fmt::Dense => self.quantization.dense_format(),
            Fmt::Shared => self.quantization.shared_format(),
            Fmt::MlaDown => self.quantization.mla_down_format(),
            Fmt::Proj(p) => self.quantization.projection_format(p),
            // One byte per element; `piece_bytes` counts it without int8's per-tensor scale.
            Fmt::Byte => WeightFormat::plain(WeightDtype::Int8),
        }
    }

    /// Bytes of a piece (all its copies).
    pub(crate) fn piece_bytes(&self, p: &Piece) -> u64 {
        let one = match p.fmt {
            Fmt::Byte => p.rows.saturating_mul(p.cols),
            f => self.format_of(f).tensor_bytes(p.rows, p.cols),
        };
        one.saturating_mul(p.count)
    }

    pub(crate) fn sum_bytes(&self, ps: &[Piece]) -> u64 {
        ps.iter().fold(0u64, |a, p| a.saturating_add(self.piece_bytes(p)))
    }

    /// Weights per rank by component, bytes. The sharding rules and their SGLang sources are listed
    /// in this module's table (`model/src/llm/weights.rs`). `tp = 0` is treated as 1.
    pub fn weight_breakdown(&self, tp: u32) -> WeightBreakdown {
        // dsv4run55 (issue #17): DeepSeek-V4's bytes in SGLang's formats (`llm::deepseek_v4_weights`).
        if let Some(b) = self.deepseek_v4_breakdown(tp) {
            return b;
        }
        let inv = self.inventory(tp);
        let mut b = WeightBreakdown {
            embedding: self.sum_bytes(&inv.embed),
            lm_head: self.sum_bytes(&inv.lm_head),
            draft_fc: self.sum_bytes(&inv.draft_fc),
            vision: self.sum_bytes(&inv.vision),
            norms: self.sum_bytes(&inv.final_norm),
            ..WeightBreakdown::default()
        };
        for l in &inv.layers {
            for p in &l.attn {
                let bytes = self.piece_bytes(p);
                if p.cols == 1 && p.fmt == Fmt::Model {
                    b.norms = b.norms.saturating_add(bytes);
                } else {
                    b.attention = b.attention.saturating_add(bytes);
                }
            }
            b.dense_mlp = b.dense_mlp.saturating_add(self.sum_bytes(&l.ffn.dense));
            b.router = b.router.saturating_add(self.sum_bytes(&l.ffn.router));
            b.shared_experts = b.shared_experts.saturating_add(self.sum_bytes(&l.ffn.shared));
            b.routed_experts = b
                .routed_experts
                .saturating_add(self.sum_bytes(&l.ffn.expert).saturating_mul(l.ffn.n_experts));
        }
        b
    }

    /// presets58 (issue #17): the quant.toml `[projections]` keys that name a projection no
    /// attention piece of this architecture is built as (e.g. `q_b_proj` on a GQA model, or any key on
    /// a module that leaves its attention GEMMs unnamed): an override the weights and the cost would
    /// otherwise ignore without a word. Empty when every override applies.
    pub fn unmatched_projection_overrides(&self) -> Vec<&'static str> {
        use super::quant::AttnProjection as A;
        let inv = self.inventory(1);
        let built: Vec<A> = inv
            .layers
            .iter()
            .flat_map(|l| l.attn.iter())
            .filter_map(|p| match p.fmt {
                Fmt::Proj(a) => Some(a),
                _ => None,
            })
            .collect();
        let keys = [
            (A::Qkv, "qkv_proj"),
            (A::QB, "q_b_proj"),
            (A::KvB, "kv_b_proj"),
            (A::O, "o_proj"),
            (A::Indexer, "indexer"),
        ];
        keys.into_iter()
            .filter(|&(a, _)| self.quantization.projections.get(a).is_some() && !built.contains(&a))
            .map(|(_, k)| k)
            .collect()
    }

    /// What one rank holds at this TP size.
    pub(crate) fn inventory(&self, tp: u32) -> Inventory {
        let mut inv = self.inventory_pieces(tp);
        // Issue #17 (attnquant17): the dense MLPs and the shared experts are stored in their own
        // formats when the quantization gives them one (`Quantization::dense_format`,
        // `shared_format`); the architecture modules build them as `Linear`.
        for l in &mut inv.layers {
            for (pieces, fmt) in [(&mut l.ffn.dense, Fmt::Dense), (&mut l.ffn.shared, Fmt::Shared)] {
                for p in pieces.iter_mut().filter(|p| p.fmt == Fmt::Linear) {
                    p.fmt = fmt;
                }
            }
            // presets58 (issue #17): an attention projection stored in its own format
            // (`Quantization::projections`), found by its GEMM's name.
            if self.quantization.projections != super::quant::ProjectionFormats::default() {
                for p in l.attn.iter_mut().filter(|p| p.fmt == Fmt::Linear) {
                    if let Some(a) = p.gemm.and_then(super::quant::AttnProjection::of_gemm) {
                        p.fmt = Fmt::Proj(a);
                    }
                }
            }
        }
        inv
    }

    fn inventory_pieces(&self, tp: u32) -> Inventory {
        let t = u64::from(tp.max(1));
        let h = self.hidden;
        let mut inv = Inventory::default();

        // Vocab-parallel embedding / LM head. hybrid50: SGLang's float32 LM head
        // (`ModelSpec::lm_head_fp32`); a tied head is the embedding module, cast with it.
        let head_fmt = if self.lm_head_fp32 { Fmt::Fp32 } else { Fmt::Model };
        let embed_fmt = if self.tie_word_embeddings {
            head_fmt
        } else {
            Fmt::Model
        };
        let padded = self.vocab.div_ceil(VOCAB_PADDING) * VOCAB_PADDING;
        inv.vocab_rows = padded.div_ceil(t);
        if self.arch == super::Architecture::Mllama {
            // h3: Mllama's embed_tokens has vocab + 8 rows (SGLang 0.5.9 `models/mllama.py`
            // `VocabParallelEmbedding(config.vocab_size + 8, …)`); the LM head keeps vocab_size.
            let rows = (self.vocab + 8).div_ceil(VOCAB_PADDING) * VOCAB_PADDING;
            inv.embed.push(Piece::new(rows.div_ceil(t), h, Fmt::Model));
        } else if self.eagle3.is_none() {
            inv.embed.push(Piece::new(inv.vocab_rows, h, embed_fmt));
        }
        if let Some(e) = self.eagle3 {
            let rows = (e.draft_vocab.div_ceil(VOCAB_PADDING) * VOCAB_PADDING).div_ceil(t);
            inv.lm_head.push(Piece::new(rows, h, Fmt::Model).gemm("lm_head"));
            inv.lm_head_params = rows * h;
            // Fusion of three target hidden states (replicated).
            inv.draft_fc.push(Piece::new(h, 3 * e.target_hidden, Fmt::Model));
        } else if self.tie_word_embeddings {
            inv.lm_head_params = inv.vocab_rows * h;
        } else {
            inv.lm_head
                .push(Piece::new(inv.vocab_rows, h, head_fmt).gemm("lm_head"));
            inv.lm_head_params = inv.vocab_rows * h;
        }
        inv.final_norm.push(Piece::vec(h));
        // fam (issue #16): Phi-3.5-MoE's final LayerNorm bias and LM-head bias (`llm::moe_families`).
        if self.arch == super::Architecture::PhiMoe {
            let (norm_bias, head_bias) = super::moe_families::phimoe_top_extras(h, inv.vocab_rows);
            inv.final_norm.push(norm_bias);
            if !self.tie_word_embeddings {
                inv.lm_head.push(head_bias);
            }
        }
        // phi2 (issue #17): Phi's final LayerNorm bias and LM-head bias (`llm::phi`).
        if self.arch == super::Architecture::Phi {
            let (norm_bias, head_bias) = super::phi::top_extras(h, inv.vocab_rows);
            inv.final_norm.push(norm_bias);
            inv.lm_head.push(head_bias);
        }
        // families13 (issue #17): StarCoder2's final LayerNorm bias (its LM head has none; `llm::starcoder2`).
        if self.arch == super::Architecture::Starcoder2 {
            inv.final_norm.push(Piece::vec(h));
        }

        let mut attn = self.attention_pieces(t);
        // families32 (issue #17): Kimi-K3's MLA output gate and each layer's attention-residual
        // pieces (`llm::kimi_k3`); its final attention-residual read beside the final norm.
        if let (Some(k3), super::Attention::Mla { v_head_dim, .. }) = (self.kimi_k3, self.attention) {
            attn.extend(k3.mla_gate_pieces(h, self.heads, v_head_dim, t));
            attn.extend(k3.attn_res_pieces(h));
            inv.final_norm.extend(k3.output_pieces(h));
        }
        // families (issue #17): Granite-4.0-H's Mamba-2 layers (`llm::granite_hybrid`).
        // families19 (issue #17): Kimi-Linear's KDA layers (`llm::kimi_linear`).
        let linear = self.linear_attention.map(|g| {
            if self.arch == super::Architecture::KimiLinear {
                super::kimi_linear::kda_pieces(&g, h, t, false)
            } else if let Some(k3) = self.kimi_k3 {
                // families32 (issue #17): Kimi-K3's full-rank gate and attention residuals.
                let mut ps = super::kimi_linear::kda_pieces(&g, h, t, k3.full_rank_gate);
                ps.extend(k3.attn_res_pieces(h));
                ps
            } else if self.arch == super::Architecture::MiniMaxText01 {
                // families27 (issue #17): MiniMax's lightning layers (`llm::minimax01`).
                super::minimax01::lightning_pieces(&g, h, t)
            } else {
                g.pieces(h, t)
            }
        });
        let linear = linear.or_else(|| {
            self.mamba2
                .filter(|_| self.arch == super::Architecture::GraniteMoeHybrid)
                .map(|m| {
                    super::granite_hybrid::mamba_layer_pieces(&m, h, u32::try_from(t).unwrap_or(u32::MAX))
                })
        });
        // families20 (issue #17): Falcon-H1's Mamba-2 blocks, each with the layer's input_layernorm
        // (`llm::falcon_h1`).
        let linear = linear.or_else(|| {
            self.mamba2
                .filter(|_| self.arch == super::Architecture::FalconH1)
                .map(|m| super::falcon_h1::mamba_block_pieces(&m, h, u32::try_from(t).unwrap_or(u32::MAX)))
        });
        // families22 (issue #17): LFM2's short-conv layers, each with its two norms (`llm::lfm2`).
        let linear = linear.or_else(|| {
            self.short_conv
                .map(|sc| sc.pieces(h, t, self.conv_proj_unquantized))
        });
        // nemotronh (issue #17): one block per layer, each a Mamba-2 mixer, an attention or an MLP
        // with its own norm (`llm::nemotron_h`).
        if let Some(m) = self
            .mamba2
            .filter(|_| self.arch == super::Architecture::NemotronH)
        {
            let tp = u32::try_from(t).unwrap_or(u32::MAX);
            inv.layers = self
                .mixers
                .iter()
                .zip(&self.layers)
                .map(|(mixer, ffn)| LayerPieces {
                    attn: match mixer {
                        super::Mixer::Linear => m.pieces(h, tp),
                        super::Mixer::Absent => Vec::new(),
                        _ => super::nemotron_h::attention_pieces(self, tp),
                    },
                    ffn: match *ffn {
                        Ffn::Dense { intermediate } => FfnPieces {
                            dense: super::nemotron_h::mlp_pieces(h, intermediate, tp),
                            ..FfnPieces::default()
                        },
                        Ffn::Moe(shape) => {
                            let (router, expert, shared) = super::nemotron_h::moe_pieces(h, &shape, tp);
                            FfnPieces {
                                dense: Vec::new(),
                                router,
                                expert,
                                n_experts: shape.n_routed_experts,
                                top_k: shape.num_experts_per_tok,
                                shared,
                            }
                        }
                        Ffn::Absent => FfnPieces::default(),
                    },
                })
                .collect();
            return inv;
        }
        inv.layers = self
            .layers
            .iter()
            .enumerate()
            .map(|(i, ffn)| LayerPieces {
                attn: match (self.mixers.get(i), &linear) {
                    (Some(super::Mixer::Linear), Some(l)) => l.clone(),
                    // families6 (issue #17): a Llama-Nemotron NAS block's norms follow which of its
                    // halves are present (`llm::nemotron_nas`).
                    (m, _) if self.arch == super::Architecture::NemotronNas => {
                        super::nemotron_nas::attention_half(m, ffn, &attn, h)
                    }
                    // families23 (issue #17): MiMo-V2-Flash's global or sliding attention, each with
                    // its own heads (`llm::mimo_v2`).
                    (m, _) if self.mimo_v2.is_some() => match self.mimo_v2 {
                        Some(a) => super::mimo_v2::attention_pieces(
                            &a,
                            m.is_some_and(|m| m.is_local()),
                            (h, self.heads, self.kv_heads, self.head_dim),
                            t,
                        ),
                        None => attn.clone(),
                    },
                    _ => attn.clone(),
                },
                ffn: self.ffn_pieces(ffn, t),
            })
            .collect();
        // families38 (issue #17): MiniMax-M3's MSA index projections and norms on its sparse layers
        // (`llm::minimax_m3::Geometry::index_pieces`).
        if let Some(g) = &self.minimax_m3 {
            for (l, kind) in inv.layers.iter_mut().zip(&g.layers) {
                l.attn.extend(g.index_pieces(*kind, t));
            }
        }
        // h3: Mllama cross-attention layers add q_norm, k_norm (head_dim each) and the two tanh gates
        // (SGLang 0.5.9 `models/mllama.py` `MllamaTextCrossAttention`, `MllamaCrossAttentionDecoderLayer`).
        for &i in &self.cross_attention_layers {
            if let Some(l) = inv.layers.get_mut(i as usize) {
                l.attn.push(Piece::vec(2 * self.head_dim));
                l.attn.push(Piece::vec(2));
            }
        }

        if let Some(v) = self.vision {
            inv.vision = match v.family {
                super::VisionFamily::MoonVit => vision_pieces(&v, t),
                // h3: generic towers (`llm::vlm`).
                super::VisionFamily::QwenVit => super::vlm::qwen_vit_pieces(&v, t, super::vlm::QWEN2_5_VL),
                // families16 (issue #17): Qwen2-VL.
                super::VisionFamily::Qwen2Vit => super::vlm::qwen_vit_pieces(&v, t, super::vlm::QWEN2_VL),
                super::VisionFamily::Pixtral => super::vlm::pixtral_pieces(&v, t),
                super::VisionFamily::Mllama => super::vlm::mllama_pieces(&v, t),
                // Local/global attention families (issue #16): SigLIP (Gemma-3), Llama-4.
                super::VisionFamily::Siglip | super::VisionFamily::Llama4 => {
                    super::local_attention::vision_pieces(&v, t)
                }
                // fam (issue #16): LLaVA-NeXT's CLIP tower, projector and image_newline.
                super::VisionFamily::Clip => super::llava_next::clip_pieces(&v, t),
                // families41 (issue #17): Qwen3-Omni's audio encoder beside its Qwen3-VL tower.
                super::VisionFamily::Qwen3Vit => {
                    let mut ps = super::vlm::qwen3_vit_pieces(&v, t);
                    if let Some(a) = v.audio {
                        ps.extend(super::qwen3_omni::audio_pieces(&a, t));
                    }
                    ps
                }
                // families7 (issue #17): GLM-4.5V / GLM-4.6V.
                super::VisionFamily::Glm4vVit => super::glm4v::glm4v_vit_pieces(&v, t),
                // families14 (issue #17): InternVL's InternViT and mlp1; families26: each engine's
                // layout where tp does not divide the heads.
                super::VisionFamily::InternVit { .. } => super::internvl::internvit_pieces(&v, t),
                // vision54 (issue #17): Gemma 4's tower (sharded) and Kimi-K3's (replicated).
                super::VisionFamily::Gemma4Vit { .. } => super::gemma4_vit::gemma4_vit_pieces(&v, t),
                super::VisionFamily::MoonVit3d { .. } => super::kimi_k3_vit::kimi_k3_vit_pieces(&v),
            };
        }
        inv
    }

    fn attention_pieces(&self, t: u64) -> Vec<Piece> {
        let h = self.hidden;
        // Layer norms: input_layernorm + post_attention_layernorm; families2 (issue #17): Cohere2's
        // parallel block has the one `input_layernorm` (a LayerNorm without bias; SGLang / vLLM
        // `models/commandr.py` `CohereDecoderLayer`); families8: Command R / R+ likewise.
        // families20 (issue #17): Falcon-H1's attention block holds the layer's pre_ff_layernorm, its
        // input_layernorm being the Mamba-2 block's (`llm::falcon_h1`).
        let mut ps = if matches!(
            self.arch,
            super::Architecture::Cohere2 | super::Architecture::Cohere | super::Architecture::FalconH1
        ) {
            vec![Piece::vec(h)]
        } else if self.arch == super::Architecture::Grok1 {
            // families24 (issue #17): Grok's four norms a layer (SGLang 0.5.8 `grok.py`
            // `Grok1DecoderLayer`: pre_attn_norm, post_attn_norm, pre_moe_norm, post_moe_norm).
            vec![Piece::vec(h); 4]
        } else {
            vec![Piece::vec(h), Piece::vec(h)]
        };
        match self.attention {
            Attention::Gqa {
                heads,
                kv_heads,
                head_dim,
            } => {
                // EAGLE-3's midlayer attends over [embedding ‖ fused feature]: 2H inputs.
                let attn_in = if self.eagle3.is_some() { 2 * h } else { h };
                // With an output gate (Qwen3.5) q_proj also produces a same-sized gate.
                let q_rows = heads / t * head_dim * (1 + u64::from(self.attn_output_gate));
                let kv_rows = 2 * (kv_heads / t).max(1) * head_dim;
                ps.push(Piece::new(q_rows + kv_rows, attn_in, Fmt::Linear).gemm("qkv_proj"));
                if self.attention_bias {
                    ps.push(Piece::vec(q_rows + kv_rows));
                }
                ps.push(Piece::new(h, heads / t * head_dim, Fmt::Linear).gemm("o_proj"));
                if self.arch.whole_width_qk_norm() {
                    // families3 (issue #17): OLMo-2's / OLMoE's whole-width q/k norms, replicated
                    // (`llm::olmo2::qk_norm_pieces`).
                    ps.extend(super::olmo2::qk_norm_pieces(h, kv_heads, head_dim));
                } else if self.qk_norm
                    && matches!(
                        self.arch,
                        super::Architecture::Cohere | super::Architecture::Cohere2
                    )
                {
                    // families8 (issue #17): Cohere's per-head q/k LayerNorms, sharded with the
                    // heads (`llm::cohere::qk_norm_pieces`).
                    ps.extend(super::cohere::qk_norm_pieces(heads, kv_heads, head_dim, t));
                } else if self.qk_norm_full_width {
                    // One norm over all heads, sharded with the heads (SGLang `MiniMaxM2RMSNormTP`:
                    // `num_heads / tp × head_dim`, one replicated head when tp > kv_heads).
                    ps.push(Piece::vec(heads / t * head_dim));
                    ps.push(Piece::vec((kv_heads / t).max(1) * head_dim));
                } else if self.qk_norm || self.unused_qk_norms {
                    // hybrid50: Falcon-H1 under SGLang builds q_norm / k_norm it never loads nor
                    // calls (`ModelSpec::unused_qk_norms`): allocated all the same.
                    ps.push(Piece::vec(head_dim));
                    ps.push(Piece::vec(head_dim));
                }
                if self.eagle3.is_some() {
                    // hidden_norm on the fused feature.
                    ps.push(Piece::vec(h));
                }
                if self.arch == super::Architecture::GptOss {
                    ps.extend(super::gpt_oss::attention_extras(h, heads, t));
                }
                // fam (issue #16): Phi-3.5-MoE's o_proj and LayerNorm biases (`llm::moe_families`).
                if self.arch == super::Architecture::PhiMoe {
                    ps.extend(super::moe_families::phimoe_layer_extras(h, self.attention_bias));
                }
                // phi2 (issue #17): Phi's `dense` bias (its one LayerNorm's weight + bias are the two
                // generic norm vectors above; `llm::phi`).
                if self.arch == super::Architecture::Phi {
                    ps.extend(super::phi::layer_extras(h));
                }
                // families13 (issue #17): StarCoder2's two LayerNorm biases and `o_proj` bias
                // (`llm::starcoder2`; the q/k/v bias is the generic `attention_bias` piece above).
                if self.arch == super::Architecture::Starcoder2 {
                    ps.extend(super::starcoder2::layer_extras(h, self.attention_bias));
                }
                // h3: GLM-4-0414 adds post_self_attn_layernorm and post_mlp_layernorm (SGLang 0.5.9
                // `models/glm4.py` `Glm4DecoderLayer`, vLLM 0.11.0 `models/glm4.py`), replicated;
                // families18: GLM-4.1V's text tower is the same `Glm4DecoderLayer`.
                // Gemma-2/3: pre- and post-feed-forward RMSNorms beside the usual two (issue #16).
                if matches!(
                    self.arch,
                    super::Architecture::Glm4
                        | super::Architecture::Glm4v
                        | super::Architecture::Gemma2
                        | super::Architecture::Gemma3
                ) {
                    ps.push(Piece::vec(h));
                    ps.push(Piece::vec(h));
                }
            }
            Attention::Mla {
                q_lora_rank,
                kv_lora_rank,
                qk_nope_head_dim,
                qk_rope_head_dim,
                v_head_dim,
            } => {
                let local = self.heads / t;
                let qk = qk_nope_head_dim + qk_rope_head_dim;
                match q_lora_rank {
                    Some(r) => {
                        // fused_qkv_a_proj_with_mqa: replicated on every rank.
                        ps.push(
                            Piece::new(r + kv_lora_rank + qk_rope_head_dim, h, Fmt::MlaDown)
                                .gemm("fused_qkv_a_proj"),
                        );
                        ps.push(Piece::vec(r));
                        ps.push(Piece::new(local * qk, r, Fmt::Linear).gemm("q_b_proj"));
                    }
                    None => {
                        ps.push(Piece::new(local * qk, h, Fmt::Linear).gemm("q_proj"));
                        ps.push(
                            Piece::new(kv_lora_rank + qk_rope_head_dim, h, Fmt::MlaDown).gemm("kv_a_proj"),
                        );
                    }
                }
                ps.push(Piece::vec(kv_lora_rank));
                let mut kv_b = Piece::new(local * (qk_nope_head_dim + v_head_dim), kv_lora_rank, Fmt::Linear);
                // families21 (issue #17): vLLM's MiniCPM3 applies kv_b_proj to every step's latent and
                // makes no absorbed copies (`ModelSpec::mla_as_mha`, `llm::minicpm`).
                kv_b.decode = self.mla_as_mha;
                if self.mla_as_mha {
                    ps.push(kv_b.gemm("kv_b_proj"));
                } else {
                    // Named, though not read at decode (`decode` false): its format may be its own
                    // (presets58, `Quantization::projections`).
                    ps.push(kv_b.gemm("kv_b_proj"));
                    ps.push(Piece::new(local * qk_nope_head_dim, kv_lora_rank, Fmt::Model)); // w_kc
                    ps.push(Piece::new(local * v_head_dim, kv_lora_rank, Fmt::Model)); // w_vc
                }
                ps.push(Piece::new(h, local * v_head_dim, Fmt::Linear).gemm("o_proj"));
                // h2 (issue #16): the DSA lightning indexer, replicated (`llm::dsa`).
                if let (Some(ix), Some(r)) = (self.indexer, q_lora_rank) {
                    ps.extend(ix.pieces(h, r));
                }
            }
        }
        ps
    }

    fn ffn_pieces(&self, ffn: &Ffn, t: u64) -> FfnPieces {
        let h = self.hidden;
        let mlp = |inter: u64, fmt: Fmt, names: [&'static str; 2]| -> Vec<Piece> {
            let local = inter / t;
            vec![
                Piece::new(2 * local, h, fmt).gemm(names[0]),
                Piece::new(h, local, fmt).gemm(names[1]),
            ]
        };
        match *ffn {
            // phi2 (issue #17): Phi's non-gated fc1/GELU/fc2 MLP with biases (`llm::phi`).
            Ffn::Dense { intermediate } if self.arch == super::Architecture::Phi => FfnPieces {
                dense: super::phi::mlp_pieces(h, intermediate, t),
                ..FfnPieces::default()
            },
            // families13 (issue #17): StarCoder2's non-gated c_fc / GELU / c_proj MLP (`llm::starcoder2`).
            Ffn::Dense { intermediate } if self.arch == super::Architecture::Starcoder2 => FfnPieces {
                dense: super::starcoder2::mlp_pieces(h, intermediate, t, self.attention_bias),
                ..FfnPieces::default()
            },
            // families18 (issue #17): Arcee's non-gated up_proj / ReLU² / down_proj MLP (`llm::arcee`).
            Ffn::Dense { intermediate } if self.arch == super::Architecture::Arcee => FfnPieces {
                dense: super::arcee::mlp_pieces(h, intermediate, t),
                ..FfnPieces::default()
            },
            // families21 (issue #17): Apertus's up_proj / xIELU / down_proj MLP and its two learned
            // xIELU scalars (`llm::apertus`).
            Ffn::Dense { intermediate } if self.arch == super::Architecture::Apertus => FfnPieces {
                dense: super::apertus::mlp_pieces(h, intermediate, t),
                ..FfnPieces::default()
            },
            Ffn::Dense { intermediate } => FfnPieces {
                dense: mlp(intermediate, Fmt::Linear, ["mlp.gate_up_proj", "mlp.down_proj"]),
                ..FfnPieces::default()
            },
            // nemotronh (issue #17): a Mamba or attention block has no feed-forward.
            Ffn::Absent => FfnPieces::default(),
            Ffn::Moe(MoeShape {
                n_routed_experts: e,
                num_experts_per_tok: k,
                moe_intermediate,
                n_shared_experts,
            }) => {
                // MiniMax-M2's router is fp32 whatever the checkpoint stores (SGLang `minimax_m2.py`:
                // `gate = ReplicatedLinear(..., params_dtype=torch.float32)`).
                // families2 (issue #17): Bailing's with `router_dtype = "fp32"` (`llm::bailing`).
                // h200gl51: GLM-4.x MoE's under vLLM (`llm::router_fp32`).
                let gate_fmt = if self.router_gate_fp32() {
                    Fmt::Fp32
                } else {
                    Fmt::Model
                };
                // families25 (issue #17): LongCat-Flash's router scores its zero experts too (SGLang
                // 0.5.8 `LongcatFlashRouter`: `n_routed_experts + zero_expert_num` columns and bias
                // entries, `llm::longcat`); 0 for other models.
                let columns = e + self.zero_experts;
                let mut router = vec![Piece::new(columns, h, gate_fmt).gemm("moe.router")];
                if self.routing_bias {
                    // e_score_correction_bias, fp32 in the checkpoint and in the engine.
                    router.push(Piece::new(columns, 1, Fmt::Fp32));
                }
                // families (issue #17): ERNIE-4.5's `e_score_correction_bias` is a plain parameter
                // of SGLang's `MoEGate`, at the model dtype (`llm::ernie`).
                // families19 (issue #17): Kimi-Linear's likewise (`KimiMoE`: `nn.Parameter(torch.empty(
                // num_experts))`, `llm::kimi_linear`).
                if matches!(
                    self.arch,
                    super::Architecture::Ernie45Moe | super::Architecture::KimiLinear
                ) {
                    router.push(Piece::vec(e));
                }
                if matches!(
                    self.arch,
                    super::Architecture::Qwen35Moe
                        | super::Architecture::Qwen2Moe
                        | super::Architecture::Qwen3Next
                ) {
                    // shared_expert_gate: hidden → 1, replicated (`qwen2_moe.py`).
                    router.push(Piece::new(1, h, Fmt::Model));
                }
                let expert = if self.arch == super::Architecture::GptOss {
                    // Router bias, replicated (`gpt_oss.py` `torch.nn.Linear`); biased, padded experts.
                    router.push(Piece::vec(e));
                    super::gpt_oss::expert_pieces(h, moe_intermediate, t, &self.quantization.expert_format())
                } else {
                    // Whole MXFP4 blocks per rank and the format's padding, if any (`llm::gpt_oss`); with
                    // neither this is (hidden, intermediate / tp).
                    let fmt = self.quantization.expert_format();
                    // families32 (issue #17): Kimi-K3's routed experts run in the latent width, behind
                    // replicated down / up projections (`llm::kimi_k3`).
                    let eh_in = self.kimi_k3.map_or(h, |k3| k3.expert_hidden(h));
                    if let Some(k3) = self.kimi_k3 {
                        router.extend(k3.latent_pieces(h));
                    }
                    let (eh, ei) = super::gpt_oss::expert_dims(eh_in, moe_intermediate, t, &fmt);
                    let mut ps = vec![
                        Piece::new(2 * ei, eh, Fmt::Expert).gemm("moe.expert.gate_up_proj"),
                        Piece::new(eh, ei, Fmt::Expert).gemm("moe.expert.down_proj"),
                    ];
                    ps.extend(super::gpt_oss::swizzled_scale_copies(eh, ei, &fmt));
                    ps
                };
                FfnPieces {
                    dense: Vec::new(),
                    router,
                    expert,
                    n_experts: e,
                    top_k: k,
                    shared: if n_shared_experts > 0 {
                        mlp(
                            moe_intermediate * n_shared_experts,
                            Fmt::Linear,
                            ["moe.shared.gate_up_proj", "moe.shared.down_proj"],
                        )
                    } else {
                        Vec::new()
                    },
                }
            }
        }
    }
}

/// MoonViT tower + projector per rank (`models/kimi_k25.py`): encoder blocks TP-sharded,
/// everything else replicated, all at model dtype.
fn vision_pieces(v: &VisionTower, t: u64) -> Vec<Piece> {
    let (h, i) = (v.hidden, v.intermediate);
    let mut ps = Vec::new();
    for _ in 0..v.layers {
        ps.push(Piece::new(3 * h / t, h, Fmt::Model)); // wqkv (column-parallel by heads)
        ps.push(Piece::vec(3 * h / t)); // its bias
        ps.push(Piece::new(h, h / t, Fmt::Model)); // wo (row-parallel)
        ps.push(Piece::vec(h)); // its bias (replicated)
        ps.push(Piece::new(i / t, h, Fmt::Model)); // fc0 (column-parallel)
        ps.push(Piece::vec(i / t));
        ps.push(Piece::new(h, i / t, Fmt::Model)); // fc1 (row-parallel)
        ps.push(Piece::vec(h));
        ps.push(Piece::vec(4 * h)); // norm0, norm1: weight + bias
    }
    ps.push(Piece::new(h, 3 * v.patch * v.patch, Fmt::Model)); // patch embedding conv
    ps.push(Piece::vec(h));
    ps.push(Piece::new(v.pos_emb_cells, h, Fmt::Model)); // learned position embedding
    ps.push(Piece::vec(2 * h)); // final layernorm
    let merged = h * v.merge;
    ps.push(Piece::vec(2 * h)); // projector pre-norm
    ps.push(Piece::new(merged, merged, Fmt::Model)); // linear_1
    ps.push(Piece::vec(merged));
    ps.push(Piece::new(v.text_hidden, merged, Fmt::Model)); // linear_2
    ps.push(Piece::vec(v.text_hidden));
    ps
}
