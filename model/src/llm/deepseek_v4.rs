//! families29 (issue #17): DeepSeek-V4 (`DeepseekV4ForCausalLM`: DeepSeek-V4-Flash 284B-A13B,
//! DeepSeek-V4-Pro 1.6T-A49B) — its config read and its parameters counted, then refused as not
//! modelled.
//!
//! ## What differs from DeepSeek-V3 / V3.2 (SGLang 0.5.12 `models/deepseek_v4.py`)
//!
//! - **Attention** (`MQALayer.__init__`): one KV head of `head_dim` (512, the last
//!   `qk_rope_head_dim` = 64 of them rotary) instead of MLA's latent; `wq_a` (hidden → `q_lora_rank`)
//!   and `wkv` (hidden → `head_dim`) replicated, `q_norm` and `kv_norm`, `wq_b` (`q_lora_rank` →
//!   heads × `head_dim`) column-parallel, a grouped low-rank output — `wo_a` (heads × `head_dim` /
//!   `o_groups` → `o_groups` × `o_lora_rank`, column-parallel) then `wo_b` (`o_groups` × `o_lora_rank`
//!   → hidden, row-parallel) — and an fp32 attention sink a head. The engine asserts
//!   `num_key_value_heads == 1` and a compress ratio in {0, 4, 128}.
//! - **Per-layer compression** (`compress_ratios`, one entry a layer then the MTP layers): 0 keeps
//!   only the 128-token sliding window (`sliding_window`); 4 (CSA) adds a compressor and an indexer
//!   (`C4Indexer`: `wq_b` `q_lora_rank` → `index_n_heads` × `index_head_dim`, `weights_proj` hidden →
//!   `index_n_heads`, and its own compressor of `index_head_dim`); 128 (HCA) a compressor alone.
//!   A compressor (`layers/attention/dsv4/compressor.py` `Compressor.__init__`) of width `d` and
//!   ratio `r` holds `ape` (r × c·d, fp32), `wkv_gate` (hidden → 2·c·d, bf16) and an fp32 norm of
//!   `d`, where c = 2 for the overlapping ratio 4 and 1 otherwise (`is_overlap_compress`).
//! - **mHC** (`DeepseekV4DecoderLayer.__init__`): `hc_mult` residual streams; a layer holds
//!   `hc_{attn,ffn}_fn` ((2 + m)·m × m·hidden, fp32), `_base` ((2 + m)·m) and `_scale` (3); the model
//!   (`DeepseekV4Model`) `hc_head_fn` (m × m·hidden), `hc_head_base` (m) and `hc_head_scale` (1).
//! - **MoE** (`deepseek_v2.DeepseekV2MoE` with `is_deepseek_v4`): every layer; the first
//!   `num_hash_layers` route by token hash (`HashTopK`, an int `tid2eid` table, not counted as
//!   parameters) and have no `e_score_correction_bias` (`MoEGate`).
//!
//! The parameters a token touches count the embedding row, attention, compressors, indexer, norms,
//! mHC, router and the shared expert of every layer, and `num_experts_per_tok` routed experts.
//!
//! ## Lowered (dsv4run55)
//!
//! `Architecture::DeepseekV4`: the spec carries this [`Geometry`] (`ModelSpec::deepseek_v4`), the
//! GQA shape of its query heads over one `head_dim`-wide KV head, and a MoE with shared experts in
//! every layer (`feed_forward`). Its weights a rank are `llm::deepseek_v4_weights`' (SGLang's
//! formats on CUDA, `ModelSpec::weight_breakdown`), and `sim::decode::dsv4_memory` sizes its pools
//! with `llm::deepseek_v4_pools::plan` by the scenario's SGLang release (0.5.12 – 0.5.23).
//!
//! ## Not modelled
//!
//! dsv4dec55: the decode step is in the iteration graph (`llm::deepseek_v4_layer`, its kernel counts
//! and efficiencies assumed; `llm::deepseek_v4_decode` holds its KV reads and all-reduces), so
//! `tpsim run` predicts it. Still refused: vLLM's pools (`vllm/models/deepseek_v4/`), the
//! MTP / DSpark drafts, DP attention, expert parallelism and ROCm are refused too ([`NOT_MODELLED`]).

use super::config::ModelConfig;
pub use super::deepseek_v4_pools::SglangDsv4Pools;
use super::deepseek_v4_pools::{SGLANG_DSV4_DEFAULTS, SglangDsv4Rule, SglangDsv4Settings};
use super::{ModelError, invalid, missing_field};

/// The architecture name both engines register (SGLang 0.5.12 `models/deepseek_v4.py`
/// `EntryClass`; vLLM 0.20.0 `model_executor/models/registry.py`, whose 0.19.0 and 0.19.1 have no
/// DeepSeek-V4 entry; from 0.22.0 it points at `vllm/models/deepseek_v4/`).
pub const DEEPSEEK_V4: &str = "DeepseekV4ForCausalLM";

/// The compress ratios SGLang accepts (`MQALayer.__init__`: `assert compress_ratio in [0, 4,
/// 128]`).
const RATIOS: [u64; 3] = [0, 4, 128];

/// DeepSeek-V4's shape as read from config.json (SGLang 0.5.12 `configs/deepseek_v4.py` names).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct Geometry {
    /// Residual-stream width (`hidden_size`; Flash 4,096).
    pub hidden: u64,
    /// Query heads (`num_attention_heads`; 64).
    pub heads: u64,
    /// Width of the query heads and of the single KV head (`head_dim`; 512).
    pub head_dim: u64,
    /// Its rotary part (`qk_rope_head_dim`; 64).
    pub rope_dim: u64,
    /// Query low rank (`q_lora_rank`; 1,024).
    pub q_lora_rank: u64,
    /// Output low rank a group (`o_lora_rank`; 1,024).
    pub o_lora_rank: u64,
    /// Output groups (`o_groups`; 8).
    pub o_groups: u64,
    /// Indexer heads (`index_n_heads`; 64).
    pub index_heads: u64,
    /// Indexer head width (`index_head_dim`; 128).
    pub index_head_dim: u64,
    /// Compressed slots the C4 indexer selects for a query (`index_topk`; 512; families33).
    pub index_topk: u64,
    /// Sliding window every layer keeps, tokens (`sliding_window`; 128).
    pub window: u64,
    /// mHC residual streams (`hc_mult`; 4).
    pub hc_mult: u64,
    /// Routed experts (`n_routed_experts`; 256).
    pub experts: u64,
    /// Width of each expert, routed or shared (`moe_intermediate_size`; 2,048).
    pub expert_width: u64,
    /// Shared experts (`n_shared_experts`; 1).
    pub shared: u64,
    /// Routed experts a token (`num_experts_per_tok`; 6).
    pub topk: u64,
    /// Vocabulary (`vocab_size`; 129,280).
    pub vocab: u64,
    /// Leading hash-routed layers (`num_hash_layers`; 3).
    pub hash_layers: u64,
    /// Compress ratio of each decoder layer (the first `num_hidden_layers` entries of
    /// `compress_ratios`; the rest are the MTP layers').
    pub ratios: Vec<u64>,
    /// `compress_ratios` as written, MTP / draft entries included: SGLang 0.5.12's budget counts
    /// every entry (`DSV4PoolConfigurator.num_layers_total = len(compression_ratios)`).
    pub all_ratios: Vec<u64>,
    /// dsv4run55: the routed experts are fp4 (`expert_dtype = "fp4"`); otherwise block fp8
    /// (`llm::deepseek_v4_weights::ExpertFormat`).
    pub fp4_experts: bool,
    /// dsv4_64: SGLang builds the shared expert at tp 1, whole on every rank
    /// (`SGLANG_SHARED_EXPERT_TP1=1`; 0.5.12 `models/deepseek_v2.py` `DeepseekV2MoE.__init__`:
    /// `DeepseekV2MLP(..., tp_rank=0, tp_size=1)`, "for DSV4 checkpoints whose shared scales are not
    /// divisible by the global TP size"). Not a config.json key: the scenario sets it from
    /// `engine.env` (`sim::scenario::dsv4`). Its output is added after the routed experts' allreduce,
    /// so the allreduce count is unchanged; its GEMMs read the whole expert on every rank.
    pub shared_expert_tp1: bool,
}

fn req(v: Option<u64>, key: &str) -> Result<u64, ModelError> {
    match v {
        None => Err(missing_field(key, DEEPSEEK_V4)),
        Some(0) => Err(invalid(key, "0".into(), "a positive integer".into())),
        Some(x) if x > 1 << 20 => Err(invalid(key, x.to_string(), "at most 2^20".into())),
        Some(x) => Ok(x),
    }
}

impl Geometry {
    /// Read DeepSeek-V4's keys; a missing or impossible one is an error naming it.
    pub fn read(cfg: &ModelConfig) -> Result<Geometry, ModelError> {
        let layers = req(cfg.num_hidden_layers, "num_hidden_layers")?;
        let kv_heads = cfg.num_key_value_heads.unwrap_or(1);
        if kv_heads != 1 {
            // SGLang 0.5.12 `MQALayer.__init__`: `assert config.num_key_value_heads == 1`.
            return Err(invalid(
                "num_key_value_heads",
                kv_heads.to_string(),
                "1 (DeepSeek-V4 has one KV head)".into(),
            ));
        }
        let ratios = cfg
            .compress_ratios
            .clone()
            .ok_or_else(|| missing_field("compress_ratios", DEEPSEEK_V4))?;
        if (ratios.len() as u64) < layers {
            return Err(invalid(
                "compress_ratios",
                format!("{} entries", ratios.len()),
                format!("one entry per decoder layer (num_hidden_layers = {layers}), then the MTP layers'"),
            ));
        }
        let all_ratios = ratios.clone();
        let ratios: Vec<u64> = ratios.into_iter().take(layers as usize).collect();
        if let Some(r) = all_ratios.iter().find(|r| !RATIOS.contains(r)) {
            return Err(invalid(
                "compress_ratios",
                r.to_string(),
                "0, 4 or 128 for every layer".into(),
            ));
        }
        let g = Geometry {
            hidden: req(cfg.hidden_size, "hidden_size")?,
            heads: req(cfg.num_attention_heads, "num_attention_heads")?,
            head_dim: req(cfg.head_dim, "head_dim")?,
            rope_dim: req(cfg.qk_rope_head_dim, "qk_rope_head_dim")?,
            q_lora_rank: req(cfg.q_lora_rank, "q_lora_rank")?,
            o_lora_rank: req(cfg.o_lora_rank, "o_lora_rank")?,
            o_groups: req(cfg.o_groups, "o_groups")?,
            index_heads: req(cfg.index_n_heads, "index_n_heads")?,
            index_head_dim: req(cfg.index_head_dim, "index_head_dim")?,
            index_topk: req(cfg.index_topk, "index_topk")?,
            window: req(cfg.sliding_window, "sliding_window")?,
            hc_mult: req(cfg.hc_mult, "hc_mult")?,
            experts: req(cfg.n_routed_experts, "n_routed_experts")?,
            expert_width: req(cfg.moe_intermediate_size, "moe_intermediate_size")?,
            shared: cfg.n_shared_experts.unwrap_or(0),
            topk: req(cfg.num_experts_per_tok, "num_experts_per_tok")?,
            vocab: req(cfg.vocab_size, "vocab_size")?,
            hash_layers: cfg.num_hash_layers.unwrap_or(0),
            ratios,
            all_ratios,
            fp4_experts: match cfg.expert_dtype.as_deref() {
                None | Some("fp8") => false,
                Some("fp4") => true,
                Some(other) => {
                    return Err(invalid(
                        "expert_dtype",
                        other.into(),
                        "fp4 or fp8 (SGLang's is_fp4_expert)".into(),
                    ));
                }
            },
            shared_expert_tp1: false,
        };
        if g.rope_dim >= g.head_dim {
            return Err(invalid(
                "qk_rope_head_dim",
                g.rope_dim.to_string(),
                format!("less than head_dim ({})", g.head_dim),
            ));
        }
        if !g.heads.is_multiple_of(g.o_groups) {
            return Err(invalid(
                "o_groups",
                g.o_groups.to_string(),
                format!("a divisor of num_attention_heads ({})", g.heads),
            ));
        }
        if g.topk > g.experts {
            return Err(invalid(
                "num_experts_per_tok",
                g.topk.to_string(),
                format!("at most n_routed_experts ({})", g.experts),
            ));
        }
        if g.shared > 1 << 10 || g.hash_layers > layers {
            return Err(invalid(
                "n_shared_experts / num_hash_layers",
                format!("{} / {}", g.shared, g.hash_layers),
                format!("at most 1,024 shared experts and at most num_hidden_layers ({layers}) hash layers"),
            ));
        }
        Ok(g)
    }

    /// Decoder layers whose compress ratio is `ratio`. Flash: 0 → 2, 4 → 21, 128 → 20.
    pub fn layers_of_ratio(&self, ratio: u64) -> u64 {
        self.ratios.iter().filter(|&&r| r == ratio).count() as u64
    }

    /// One layer's attention without compressors: wq_a, q_norm, wkv, kv_norm, wq_b, wo_a, wo_b and
    /// the sink. Flash: 4,194,304 + 1,024 + 2,097,152 + 512 + 3 × 33,554,432 + 64 = 106,956,352.
    pub fn attention_params(&self) -> u64 {
        let (h, qd) = (self.hidden, self.heads * self.head_dim);
        let o = self.o_groups * self.o_lora_rank;
        h * self.q_lora_rank
            + self.q_lora_rank
            + h * self.head_dim
            + self.head_dim
            + self.q_lora_rank * qd
            + qd / self.o_groups * o
            + o * h
            + self.heads
    }

    /// A compressor of width `width` at ratio `ratio` (module doc): ape + wkv_gate + norm.
    fn compressor_params(&self, ratio: u64, width: u64) -> u64 {
        let c = if ratio == 4 { 2 } else { 1 };
        ratio * c * width + self.hidden * 2 * c * width + width
    }

    /// What a layer of compress ratio `ratio` adds to its attention. Flash, ratio 4: compressor
    /// 4 × 1,024 + 4,096 × 2,048 + 512 = 8,393,216, indexer `wq_b` 8,388,608 and `weights_proj`
    /// 262,144, its compressor 4 × 256 + 4,096 × 512 + 128 = 2,098,304 → 19,142,272; ratio 128:
    /// 128 × 512 + 4,096 × 1,024 + 512 = 4,260,352; ratio 0: nothing.
    pub fn compression_params(&self, ratio: u64) -> u64 {
        match ratio {
            0 => 0,
            4 => {
                self.compressor_params(4, self.head_dim)
                    + self.q_lora_rank * self.index_heads * self.index_head_dim
                    + self.hidden * self.index_heads
                    + self.compressor_params(4, self.index_head_dim)
            }
            r => self.compressor_params(r, self.head_dim),
        }
    }

    /// One routed or shared expert (gate, up, down): 3 × hidden × width.
    fn expert_params(&self) -> u64 {
        3 * self.hidden * self.expert_width
    }

    /// A layer's parameters apart from its routed experts and compression: attention, two norms,
    /// mHC, router (and its correction bias past the hash layers) and the shared experts.
    fn dense_layer_params(&self, layer: u64) -> u64 {
        let m = self.hc_mult;
        let mix = (2 + m) * m;
        let mhc = 2 * (mix * m * self.hidden + mix + 3);
        let bias = if layer < self.hash_layers { 0 } else { self.experts };
        self.attention_params()
            + 2 * self.hidden
            + mhc
            + self.experts * self.hidden
            + bias
            + self.shared * self.expert_params()
    }

    /// Embedding, untied head, final norm and the model's mHC head (`hc_head_fn`, base, scale).
    fn top_params(&self) -> u64 {
        let m = self.hc_mult;
        2 * self.vocab * self.hidden + self.hidden + m * m * self.hidden + m + 1
    }

    /// Parameters of the decoder (MTP layers excluded). Flash: 284,332,240,471 (card: 284B).
    pub fn params(&self) -> u64 {
        let layers: u64 = (0..self.ratios.len() as u64)
            .map(|i| {
                self.dense_layer_params(i)
                    + self.experts * self.expert_params()
                    + self.compression_params(self.ratios[i as usize])
            })
            .sum();
        layers + self.top_params()
    }

    /// Parameters a decoded token touches: `num_experts_per_tok` routed experts a layer instead of
    /// all, the embedding row not counted twice (its full table is). Flash: 13,799,632,471 (card:
    /// 13B).
    pub fn active_params(&self) -> u64 {
        self.params() - self.layers() * (self.experts - self.topk) * self.expert_params()
    }

    /// Decoder layers (`num_hidden_layers`).
    pub fn layers(&self) -> u64 {
        self.ratios.len() as u64
    }

    /// families33: parameters one rank holds under SGLang tensor parallelism at `tp` (no DP
    /// attention, no expert parallelism; SGLang 0.5.16 `models/deepseek_v4.py` `MQALayer.__init__`,
    /// `layers/attention/dsv4/{compressor,indexer}.py`, `deepseek_v2.py` `DeepseekV2MoE` / `MoEGate`,
    /// `layers/vocab_parallel_embedding.py`). Replicated on every rank: `wqkv_a` (or `wq_a` + `wkv`),
    /// `q_norm`, `kv_norm`, the fp32 sink of all heads, both compressors and the indexer
    /// (`ReplicatedLinear`, `nn.Parameter`), the layer norms, mHC, the router and its bias, the final
    /// norm and `hc_head_*`. Split by `tp`: `wq_b` and `wo_a` (`ColumnParallelLinear`), `wo_b`
    /// (`RowParallelLinear`), every routed and shared expert's width (`FusedMoE`), the embedding and
    /// head rows (vocab padded to 64, then divided). `tp` must divide the heads, `o_groups` (the
    /// layer views its output as `o_groups // tp` local groups), the expert width and the padded
    /// vocabulary. Flash at tp 8: 36,274,024,023 (hand sum in tests/tests/families33.rs).
    pub fn sglang_rank_params(&self, tp: u64) -> Result<u64, ModelError> {
        let vocab = self.vocab.div_ceil(super::weights::VOCAB_PADDING) * super::weights::VOCAB_PADDING;
        for (what, n) in [
            ("num_attention_heads", self.heads),
            ("o_groups", self.o_groups),
            ("moe_intermediate_size", self.expert_width),
            ("vocab_size (padded to 64)", vocab),
        ] {
            if tp == 0 || !n.is_multiple_of(tp) {
                return Err(ModelError::InvalidTp {
                    tp: u32::try_from(tp).unwrap_or(u32::MAX),
                    model: DEEPSEEK_V4.into(),
                    reason: format!("{what} = {n} is not divisible by tp {tp} (DeepSeek-V4 splits it by tp)"),
                });
            }
        }
        let sharded_attention = self.q_lora_rank * self.heads * self.head_dim
            + self.heads * self.head_dim / self.o_groups * self.o_groups * self.o_lora_rank
            + self.o_groups * self.o_lora_rank * self.hidden;
        let replicated_attention = self.attention_params() - sharded_attention;
        // dsv4_64: with `SGLANG_SHARED_EXPERT_TP1` the shared expert is whole on every rank.
        let (split_shared, whole_shared) = if self.shared_expert_tp1 {
            (0, self.shared * self.expert_params())
        } else {
            (self.shared, 0)
        };
        let experts = (self.experts + split_shared) * self.expert_params();
        let layers: u64 = (0..self.layers())
            .map(|i| {
                let dense =
                    self.dense_layer_params(i) - self.attention_params() - self.shared * self.expert_params();
                replicated_attention
                    + dense
                    + whole_shared
                    + self.compression_params(self.ratios[i as usize])
                    + (sharded_attention + experts) / tp
            })
            .sum();
        let m = self.hc_mult;
        let top = 2 * vocab / tp * self.hidden + self.hidden + m * m * self.hidden + m + 1;
        Ok(layers + top)
    }

    /// dsv4_64: SGLang's quantized-MoE check (0.5.12 `model_executor/model_runner.py`
    /// `check_quantized_moe_compatibility`; 0.5.23 `model_runner_components/moe_ep_setup.py`, the same
    /// text), run before the model is built for any checkpoint whose `quantization_config` has a
    /// `weight_block_size` (`block_n` here, its first entry): without `SGLANG_SHARED_EXPERT_TP1`
    /// (`shared_expert_tp1`) the expert width over `moe_tp_size` = tp / ep must be a multiple of
    /// `block_n`, whatever the experts' own format. `Err` is SGLang's ValueError text. Pro at tp 16:
    /// 3,072 / 16 = 192, 192 % 128 = 64 → refused; with the variable, no check here (the routed
    /// experts' method checks its own width: `sim::scenario::dsv4`).
    pub fn sglang_quantized_moe_check(&self, tp: u64, ep: u64, block_n: Option<u64>) -> Result<(), String> {
        let (Some(n), false) = (block_n.filter(|&n| n > 0), self.shared_expert_tp1) else {
            return Ok(());
        };
        let moe_tp = tp / ep.max(1);
        if moe_tp == 0 || !self.expert_width.is_multiple_of(moe_tp) {
            return Ok(()); // the divisibility check above names it
        }
        if !(self.expert_width / moe_tp).is_multiple_of(n) {
            return Err(format!(
                "For quantized MoE models, please make sure (moe_intermediate_size={} / moe_tp_size={moe_tp}) % \
                 weight_block_size_n={n} == 0 where moe_tp_size is equal to tp_size ({tp}) divided by ep_size ({}). \
                 You can fix this by setting arguments `--tp` and `--ep` correctly. (SGLang model_runner.py \
                 check_quantized_moe_compatibility; it is skipped with SGLANG_SHARED_EXPERT_TP1=1)",
                self.expert_width,
                ep.max(1)
            ));
        }
        Ok(())
    }
}

/// SGLang 0.5.12 – 0.5.14's DeepSeek-V4 defaults (`arg_groups/deepseek_v4_hook.py`
/// `apply_deepseek_v4_defaults`): `--swa-full-tokens-ratio` left at its 0.8 default becomes 0.1
/// ("Setting swa_full_tokens_ratio to 0.1"), page size 256 on CUDA, KV dtype `auto` → fp8_e4m3; 0.5.12
/// and 0.5.13 refuse any other ("{dtype} is not supported for DeepseekV4ForCausalLM") and default
/// max running requests to 256, 0.5.14 also accepts bfloat16.
pub const SGLANG_0_5_12_SWA_RATIO: f64 = 0.1;

/// SGLang 0.5.12 – 0.5.14's KV budget for DeepSeek-V4, bytes per *full* token
/// (`model_executor/pool_configurator.py` `DSV4PoolConfigurator._get_bytes_per_full_token`, the
/// same text in the 0.5.12 and 0.5.13 wheels), with online c128 compression and HiSparse off (their
/// defaults, `environ.py` `SGLANG_OPT_USE_ONLINE_COMPRESS = False`). 0.5.14 gives the same at its
/// defaults (it adds `SGLANG_DSV4_COMPRESS_STATE_DTYPE`, default float32, and still sets the ratio
/// to 0.1 and page 256); 0.5.15 takes the c128 state out of the per-token budget ("C128 state is
/// request-scoped", ratio 0), which this function does not model (Flash: 16,072.65 − 8,192 =
/// 7,880.65 B); later releases were not read through:
///
/// - a main KV slot `kv = nope + 2 × rope + 8` B (fp8 nope, bf16 rope, 8 B of scales and pad:
///   448 + 128 + 8 = 584), an indexer key `index_head_dim + index_head_dim / 128 × 4` (132);
/// - per full token: `swa_ratio × kv × N` (the sliding-window pool, N = every `compress_ratios`
///   entry) + `kv / 4 × N4` + `kv / 128 × N128` + `indexer / 4 × N4`;
/// - the compress states, fp32, in rings of 8 (c4) / 128 (c128) slots a 128-token window
///   (`get_compress_state_ring_size`; 16 / 256 with speculative decoding), per SWA token:
///   `swa_ratio × ring4 / window × (2·2·head_dim·4 + 2·2·index_head_dim·4) × N4 + swa_ratio ×
///   ring128 / window × 2·head_dim·4 × N128`;
/// - with speculative decoding the whole × (N + 1) / N (one draft layer).
///
/// N counts the MTP / draft entries of `compress_ratios` although the pool allocates
/// `num_hidden_layers` layers (`model_runner_kv_cache_mixin.py`: `layer_num = num_effective_layers`).
pub fn sglang_0_5_12_bytes_per_full_token(g: &Geometry, swa_ratio: f64, speculative: bool) -> f64 {
    let s = SglangDsv4Settings {
        swa_ratio,
        speculative,
        ..SGLANG_DSV4_DEFAULTS
    };
    super::deepseek_v4_pools::bytes_per_full_token(g, SglangDsv4Rule::SwaScopedC128, &s)
}

/// SGLang 0.5.12 – 0.5.14's page size for DeepSeek-V4 on CUDA (`apply_deepseek_v4_defaults`: "setting
/// page_size to 256"; the KV mixin asserts it).
pub const SGLANG_DSV4_PAGE: u64 = 256;

/// [`SglangDsv4Pools`] for `available` bytes (what SGLang's profile leaves for KV), at
/// [`sglang_0_5_12_bytes_per_full_token`] with the same `swa_ratio` and `speculative`
/// (`DSV4PoolConfigurator.calculate_pool_sizes` and `_compute_dsv4_sizes`; families33:
/// `llm::deepseek_v4_pools::plan` under [`SglangDsv4Rule::SwaScopedC128`]).
pub fn sglang_0_5_12_pools(
    g: &Geometry,
    available: u64,
    swa_ratio: f64,
    speculative: bool,
) -> SglangDsv4Pools {
    let s = SglangDsv4Settings {
        swa_ratio,
        speculative,
        page: SGLANG_DSV4_PAGE,
        ..SGLANG_DSV4_DEFAULTS
    };
    // SwaScopedC128 never refuses (only 0.5.23's rule does).
    super::deepseek_v4_pools::plan(g, SglangDsv4Rule::SwaScopedC128, &s, available)
        .map(|p| p.pools)
        .unwrap_or_default()
}

/// dsv4run55 (issue #17): every decoder layer's feed-forward, a MoE of `n_routed_experts` experts
/// (`num_experts_per_tok` a token) with `n_shared_experts` shared ones of the same width (SGLang
/// 0.5.16 `deepseek_v2.DeepseekV2MoE` with `is_deepseek_v4`: no dense prefix; the hash-routed first
/// layers differ only in their router, `MoEGate` without `e_score_correction_bias`).
pub(crate) fn feed_forward(g: &Geometry) -> super::config::FeedForward {
    let shape = super::MoeShape::new(g.experts, g.topk, g.expert_width, g.shared);
    super::config::moe_where(g.layers(), shape, 0, |_| true)
}

/// dsv4run55: what tpsim still does not model of DeepSeek-V4, for the refusals that name it
/// (`sim::scenario`: vLLM, drafts, DP attention, expert parallelism).
pub const NOT_MODELLED: &str = "tpsim models DeepSeek-V4 under SGLang 0.5.12 - 0.5.23 on CUDA at plain tensor \
     parallelism (its memory plan from llm::deepseek_v4_weights and llm::deepseek_v4_pools); not vLLM's pools \
     (vllm/models/deepseek_v4/), MTP / DSpark drafts, DP attention, expert parallelism or ROCm";
