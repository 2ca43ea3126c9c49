//! mem49 (issue #17 point 5): the RoPE cos/sin caches an engine builds while it constructs the
//! model, per engine and release, as the tensors they are (bytes each). They are allocated on the
//! GPU before the weights are measured, so they count in vLLM's "Model loading took X GiB" and in
//! SGLang's "Load weight end … mem usage" (the drop of free memory across `load_model`, SGLang
//! 0.5.5 `model_executor/model_runner.py`), i.e. in the memory the KV profile does not get.
//!
//! `get_rope` caches instances by their arguments (both engines), so each distinct RoPE is one
//! cache per rank, shared by every layer that asks for it. What each builds, read from the wheels:
//!
//! - **SGLang ≥ 0.4.3** (`sglang/srt/layers/rotary_embedding.py` of 0.4.3, 0.4.6, 0.4.9, 0.5.1,
//!   0.5.5, 0.5.8): `RotaryEmbedding.__init__` keeps the cache in **float32** on CUDA ("cache needs
//!   to be in FP32 for numerical stability": `if not _is_cuda: cache = cache.to(dtype)`), and the
//!   model-dtype copy made at the first forward comes after the KV pool. Rows:
//!   `max_position_embeddings` (`MRotaryEmbedding` passes it unchanged: no 4× as in vLLM), times
//!   the factor for linear scaling. On ROCm the cache is cast to the model dtype.
//! - **SGLang 0.4.2**: its own `rotary_embedding.py`, cast to the model dtype (`cache =
//!   cache.to(dtype)`); **SGLang ≤ 0.4.1** imports vLLM's `get_rope` (0.4.1 `models/llama.py`,
//!   `models/qwen2.py`), vLLM 0.6's rules: model dtype, no M-RoPE enlargement (vLLM 0.6.4.post1
//!   `MRotaryEmbedding`).
//! - **vLLM** (`rotary_embedding`, 0.10.2 … 0.19.0; `llm::partial_rotary` has the widths): model
//!   dtype; M-RoPE 4 × `max_position_embeddings` rows (`mrope.py`); Gemma-3 a plain cache and its
//!   global layers' linear ×8 cache (`models/gemma3.py`).
//! - **LongRoPE** (Phi-3 family, `Phi3LongRoPEScaledRotaryEmbedding`, both engines, model dtype):
//!   a short-factor cache of `original_max_position_embeddings` rows and a long-factor cache of
//!   `max_position_embeddings` rows, concatenated. vLLM ≥ 0.7.0 (0.7.0, 0.7.3, 0.8.5, 0.9.2,
//!   0.10.x, 0.11.0, 0.13.0, 0.15.1, 0.19.0) registers only the concatenation (the two halves are
//!   temporaries); vLLM ≤ 0.6 (0.6.4.post1, 0.6.6.post1) and every SGLang release read (0.4.3,
//!   0.5.5, 0.5.9) register all three buffers: `short_cos_sin_cache`, `long_cos_sin_cache` and
//!   `long_short_cos_sin_cache`, twice the rows.
//! - Gemma-3 under SGLang (`models/gemma3_causal.py`, 0.5.5): no `get_rope`; `Gemma3RotaryEmbedding`
//!   computes cos/sin per forward from `inv_freq` (no positions cache).
//! - Nemotron-H: none (its attention has no rotary embedding).
//! - rope51: **MLA models under SGLang** (`llm::mla_rope` has the sources): the DeepSeek families'
//!   `DeepseekScalingRotaryEmbedding` of `original_max_position_embeddings × factor` rows (a plain
//!   cache of `max_position_embeddings` rows without `rope_scaling`), `qk_rope_head_dim` wide, with
//!   from 0.5.7 its float32 `cos_cached_total` / `sin_cached_total` of the same shape; a second
//!   instance for the DSA indexer in 0.5.6 – 0.5.8 (and in 0.5.9 when its `is_neox_style` differs);
//!   none for Kimi-Linear; MiniCPM3's LongRoPE buffers on `qk_rope_head_dim`.
//! - grok52: **MLA models under vLLM** (`vllm/model_executor/layers/rotary_embedding/__init__.py`
//!   `get_rope`, `deepseek_scaling_rope.py`, `base.py`, `models/deepseek_v2.py` of 0.11.0 and
//!   0.19.0): `DeepseekV2MLAAttention` renames a non-default scaling to `deepseek_yarn`; `get_rope`
//!   keeps one instance per argument tuple in `_ROPE_DICT` (one cache a rank, shared by every layer
//!   and the MTP layer) whose `_compute_cos_sin_cache` spans `original_max_position_embeddings ×
//!   factor` rows, `qk_rope_head_dim` wide, cast to the **model dtype** (`RotaryEmbedding.__init__`:
//!   `cache.to(dtype)`, FlashInfer's float32 path commented out); no `cos_cached_total`. A plain
//!   cache of `max_position_embeddings` rows without scaling (GLM-4.7-Flash, GLM-5). Built while
//!   the model is constructed, so it is inside "Model loading took" (the weights' figure, outside
//!   the KV profile). The DSA indexer (DeepSeek-V3.2, GLM-5): 0.11.0 and 0.11.1 pass the attention's
//!   `rotary_emb` to the `Indexer` (shared); from 0.13.0 (0.13.0 … 0.19.0 read) it asks `get_rope`
//!   with `is_neox_style = not indexer_rope_interleave` (default False) against the attention's
//!   False: a cache of its own unless `indexer_rope_interleave` is true (GLM-5 shares, DeepSeek-V3.2
//!   does not). Kimi-Linear passes `rotary_emb=None` (`kimi_linear.py`, `use_nope`): none.
//!   MiniCPM3's LongRoPE keeps the concatenation only (≥ 0.7, as for every LongRoPE model).

use crate::llm::{Architecture, Attention, MROPE_ROWS_FACTOR, ModelSpec};
use crate::vllm_startup::rope_cache_bytes;

/// rope51: whether the DSA indexer's `get_rope` gets an instance (a cache) of its own in SGLang
/// (`llm::mla_rope`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum IndexerRope {
    /// ≤ 0.5.5: the same arguments as the attention's, one shared cache.
    Shared,
    /// 0.5.6 – 0.5.8: `is_neox_style=True` against the attention's False, a cache of its own.
    Apart,
    /// ≥ 0.5.9: apart when `indexer_rope_interleave` and `rope_interleave` make the styles differ
    /// (`ModelSpec::indexer_rope_apart_0_5_9`).
    ByConfig,
    /// grok52: vLLM ≥ 0.13.0: apart unless `indexer_rope_interleave` is true
    /// (`ModelSpec::indexer_rope_apart_vllm`).
    VllmByConfig,
}

/// How one engine release builds its RoPE caches (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RopeRule {
    /// `RotaryEmbedding`'s cache kept in float32 (SGLang ≥ 0.4.3 on CUDA); else the model dtype.
    pub fp32: bool,
    /// Rows per position of an M-RoPE cache: 4 (vLLM `mrope.py`) or 1 (SGLang).
    pub mrope_rows: u64,
    /// LongRoPE keeps the short and long caches beside their concatenation (SGLang, vLLM ≤ 0.6).
    pub longrope_three_buffers: bool,
    /// Gemma-3 builds `get_rope` caches (vLLM: plain + linear ×8); SGLang's Gemma-3 builds none.
    pub gemma3_caches: bool,
    /// rope51: the MLA models' caches are modelled (SGLang; vLLM's from grok52).
    pub mla_caches: bool,
    /// rope51: `DeepseekScalingRotaryEmbedding` keeps float32 `cos_cached_total` and
    /// `sin_cached_total` beside its cache (SGLang ≥ 0.5.7).
    pub deepseek_totals: bool,
    /// rope51: the DSA indexer's cache (SGLang, by release).
    pub indexer: IndexerRope,
}

impl RopeRule {
    /// vLLM at `release` (leading numeric components, e.g. `[0, 19, 0]`; `None`: the newest rules).
    pub fn vllm(release: Option<&[u64]>) -> RopeRule {
        let before_0_7 = matches!(release, Some([0, minor, ..]) if *minor < 7);
        // grok52: the indexer's own `get_rope` from 0.13.0 (0.12 unread: taken as 0.11's).
        let before_0_13 = matches!(release, Some([0, minor, ..]) if *minor < 13);
        RopeRule {
            fp32: false,
            mrope_rows: MROPE_ROWS_FACTOR,
            longrope_three_buffers: before_0_7,
            gemma3_caches: true,
            mla_caches: true,
            deepseek_totals: false,
            indexer: if before_0_13 {
                IndexerRope::Shared
            } else {
                IndexerRope::VllmByConfig
            },
        }
    }

    /// SGLang at `release` on CUDA (`cuda = false`: ROCm and the other platforms, model dtype).
    /// `None`, or a source build's `0.0.0.devN`, means the newest rules.
    pub fn sglang(release: Option<&[u64]>, cuda: bool) -> RopeRule {
        let at = match release {
            Some([0, 0, 0, ..]) | None => (u64::MAX, 0, 0),
            Some([a]) => (*a, 0, 0),
            Some([a, b]) => (*a, *b, 0),
            Some([a, b, c, ..]) => (*a, *b, *c),
            Some([]) => (u64::MAX, 0, 0),
        };
        RopeRule {
            fp32: cuda && at >= (0, 4, 3),
            mrope_rows: 1,
            longrope_three_buffers: true,
            gemma3_caches: false,
            mla_caches: true,
            deepseek_totals: at >= (0, 5, 7),
            indexer: if at >= (0, 5, 9) {
                IndexerRope::ByConfig
            } else if at >= (0, 5, 6) {
                IndexerRope::Apart
            } else {
                IndexerRope::Shared
            },
        }
    }
}

/// rope51: the caches SGLang builds for an MLA model (module doc; `llm::mla_rope`), bytes per
/// tensor; `width` is `qk_rope_head_dim`.
fn mla_rope_tensors(m: &ModelSpec, rule: RopeRule, dtype_bytes: u64, width: u64) -> Vec<u64> {
    // Kimi-Linear's MLA layers pass `skip_rope=True` (`kimi_linear.py`).
    // families32 (issue #17): Kimi-K3's too (`kimi_k3.py` `KimiK3MLAAttention`: `skip_rope=True`).
    if !rule.mla_caches || matches!(m.arch, Architecture::KimiLinear | Architecture::KimiK3) {
        return Vec::new();
    }
    if let (Some(orig), Some(len)) = (m.longrope_original, m.context_len) {
        // MiniCPM3 (`minicpm3.py`): `Phi3LongRoPEScaledRotaryEmbedding`, model dtype, three buffers.
        let short = rope_cache_bytes(orig, 1, width, dtype_bytes).0;
        let long = rope_cache_bytes(len, 1, width, dtype_bytes).0;
        return if rule.longrope_three_buffers {
            vec![short, long, short + long]
        } else {
            vec![short + long]
        };
    }
    let Some(rows) = m.deepseek_yarn_rows.or(m.context_len) else {
        return Vec::new();
    };
    let elem = if rule.fp32 { 4 } else { dtype_bytes };
    let mut one = vec![rope_cache_bytes(rows, 1, width, elem).0];
    if rule.deepseek_totals && m.deepseek_yarn_rows.is_some() {
        let total = rope_cache_bytes(rows, 1, width, 4).0;
        one.extend([total, total]);
    }
    let apart = m.indexer.is_some()
        && match rule.indexer {
            IndexerRope::Shared => false,
            IndexerRope::Apart => true,
            IndexerRope::ByConfig => m.indexer_rope_apart_0_5_9,
            IndexerRope::VllmByConfig => m.indexer_rope_apart_vllm,
        };
    if apart {
        one.extend(one.clone());
    }
    one
}

/// grok52 (issue #17): the caches SGLang's Grok builds one per layer (`ModelSpec::grok_layer_rope`,
/// `llm::grok`), `elem_bytes` an element ([`grok_layer_rope_elem`]), bytes per tensor, beside
/// [`rope_cache_tensors`]' shared ones; empty for every other model.
pub fn layer_rope_tensors(m: &ModelSpec, elem_bytes: u64) -> Vec<u64> {
    match m.grok_layer_rope {
        Some((rows, width)) => {
            let one = rope_cache_bytes(rows, 1, width, elem_bytes).0;
            vec![one; m.num_layers as usize]
        }
        None => Vec::new(),
    }
}

/// grok52: the element size of Grok's per-layer caches under SGLang at `release` (`None`: the
/// newest): float32 on CUDA (`RotaryEmbedding.__init__` keeps it); elsewhere the `dtype` that
/// `grok.py`'s `get_rope_scaling` passes, `torch.float` up to 0.5.5 and `torch.bfloat16` from 0.5.6
/// (read in the 0.5.5, 0.5.6, 0.5.6.post2, 0.5.7 and 0.5.8 wheels).
pub fn grok_layer_rope_elem(release: Option<&[u64]>, cuda: bool) -> u64 {
    let up_to_0_5_5 = release.is_some_and(|r| [0, 1, 2].map(|i| r.get(i).copied().unwrap_or(0)) <= [0, 5, 5]);
    if cuda || up_to_0_5_5 { 4 } else { 2 }
}

/// The RoPE caches `m` builds on one rank under `rule`, bytes per tensor; `dtype_bytes` is the
/// model dtype's width. Rows are `context_len` (`max_position_embeddings`); the width is
/// `ModelSpec::rotary_dim` where the model rotates part of the head, else `head_dim`.
pub fn rope_cache_tensors(m: &ModelSpec, rule: RopeRule, dtype_bytes: u64) -> Vec<u64> {
    if let Attention::Mla { qk_rope_head_dim, .. } = m.attention {
        return mla_rope_tensors(m, rule, dtype_bytes, qk_rope_head_dim);
    }
    let len = match m.context_len {
        None => return Vec::new(),
        _ if m.arch == Architecture::NemotronH => return Vec::new(),
        _ if m.arch == Architecture::Gemma3 && !rule.gemma3_caches => return Vec::new(),
        Some(len) => len,
    };
    let dim = m.rotary_dim.unwrap_or(m.head_dim);
    if let Some(orig) = m.longrope_original {
        let short = rope_cache_bytes(orig, 1, dim, dtype_bytes).0;
        let long = rope_cache_bytes(len, 1, dim, dtype_bytes).0;
        return if rule.longrope_three_buffers {
            vec![short, long, short + long]
        } else {
            vec![short + long]
        };
    }
    let elem = if rule.fp32 { 4 } else { dtype_bytes };
    let rows = if m.vllm_mrope { rule.mrope_rows } else { 1 };
    let plain = rope_cache_bytes(len, rows, dim, elem).0;
    if m.arch == Architecture::Gemma3 {
        vec![plain, rope_cache_bytes(len, 8, m.head_dim, elem).0]
    } else if let Some(a) = m.mimo_v2.filter(|a| a.two_rope_bases) {
        // families23 (issue #17): MiMo-V2-Flash's global and sliding bases, one cache each
        // (`llm::mimo_v2`). families30: with full rotation the sliding kind's cache is as wide as its
        // own heads (Gemma 4: 256 against the full kind's 512; `llm::gemma4`).
        let swa_dim = if m.rotary_dim.is_some() {
            dim
        } else {
            a.swa_head_dim
        };
        // sglmem54: Step-3.5's full kind rotates half its head (`llm::step3p5`): its cache is that wide.
        let full = match a.full_rotary_dim {
            Some(d) => rope_cache_bytes(len, rows, d, elem).0,
            None => plain,
        };
        vec![full, rope_cache_bytes(len, rows, swa_dim, elem).0]
    } else {
        vec![plain]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::llm::{ModelSpec, Quantization};

    /// A bundled preset's config.json (compiled in: the model crate reads no file).
    fn preset(name: &str) -> ModelSpec {
        let text = match name {
            "qwen3-14b" => include_str!("../../scenarios/models/qwen3-14b/config.json"),
            "qwen3.5-9b" => include_str!("../../scenarios/models/qwen3.5-9b/config.json"),
            "qwen3.5-35b-a3b" => include_str!("../../scenarios/models/qwen3.5-35b-a3b/config.json"),
            "phi-3.5-mini" => include_str!("../../scenarios/models/phi-3.5-mini/config.json"),
            "phi-4-mini" => include_str!("../../scenarios/models/phi-4-mini/config.json"),
            "gemma-3-12b-it" => include_str!("../../scenarios/models/gemma-3-12b-it/config.json"),
            "step-3.5-flash" => include_str!("../../scenarios/models/step-3.5-flash/config.json"),
            _ => panic!("no preset {name} in this test"),
        };
        ModelSpec::from_config_json(text, Quantization::bf16()).expect("preset lowers")
    }

    /// Qwen3-14B (`max_position_embeddings` 40,960, head_dim 128) under SGLang 0.5.5 on CUDA: one
    /// float32 cache, 40,960 × 128 × 4 B = 20,971,520 B = 20 MiB; the model dtype (SGLang 0.4.2,
    /// ROCm) halves it, 10 MiB; vLLM 0.19: 10 MiB.
    #[test]
    fn qwen3_14b_fp32_in_sglang() {
        let m = preset("qwen3-14b");
        let sgl = RopeRule::sglang(Some(&[0, 5, 5]), true);
        assert_eq!(rope_cache_tensors(&m, sgl, 2), vec![20_971_520]);
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::sglang(Some(&[0, 4, 2]), true), 2),
            vec![10_485_760]
        );
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::sglang(Some(&[0, 5, 5]), false), 2),
            vec![10_485_760]
        );
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::vllm(Some(&[0, 19, 0])), 2),
            vec![10_485_760]
        );
        // A source build's version (engine-memory.tsv line 45: 0.0.0.dev11582) is the newest rules
        // (rope51: the MLA rules moved after 0.5.5, so the newest are no longer 0.5.5's).
        let newest = RopeRule::sglang(None, true);
        assert_eq!(RopeRule::sglang(Some(&[0, 0, 0]), true), newest);
        assert_eq!((newest.fp32, newest.mrope_rows), (sgl.fp32, sgl.mrope_rows));
        assert_eq!(rope_cache_tensors(&m, newest, 2), vec![20_971_520]);
    }

    /// Qwen3.5-9B (M-RoPE, `max_position_embeddings` 262,144, head_dim 256 × partial factor 0.25 =
    /// 64): SGLang keeps 262,144 rows (no 4×) × 64 × 4 B = 67,108,864 B = 64 MiB; vLLM 4 × 262,144 ×
    /// 64 × 2 B = 128 MiB.
    #[test]
    fn qwen3_5_9b_mrope_rows_per_engine() {
        let m = preset("qwen3.5-9b");
        assert_eq!(m.context_len, Some(262_144));
        assert_eq!(m.rotary_dim, Some(64));
        assert!(m.vllm_mrope);
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::sglang(Some(&[0, 5, 8]), true), 2),
            vec![64 << 20]
        );
        assert_eq!(rope_cache_tensors(&m, RopeRule::vllm(None), 2), vec![128 << 20]);
    }

    /// Qwen3.5-35B-A3B's published config keeps `partial_rotary_factor` 0.25 inside
    /// `rope_parameters` only (no top-level key, unlike Qwen3.5-9B's copy). vLLM 0.17.0 / 0.19.0
    /// `get_rope` reads it from `rope_parameters` (`rotary_embedding/__init__.py`): 256 × 0.25 = 64
    /// wide, so the M-RoPE cache is 4 × 262,144 × 64 × 2 B = 128 MiB, not the whole head's 512 MiB.
    #[test]
    fn qwen3_5_35b_a3b_reads_its_factor_from_rope_parameters() {
        let m = preset("qwen3.5-35b-a3b");
        assert_eq!((m.head_dim, m.rotary_dim), (256, Some(64)));
        assert_eq!(rope_cache_tensors(&m, RopeRule::vllm(None), 2), vec![128 << 20]);
    }

    /// Phi-3.5-mini (LongRoPE: `original_max_position_embeddings` 4,096, `max_position_embeddings`
    /// 131,072, head_dim 3072 / 32 = 96, bf16). Short 4,096 × 96 × 2 B = 786,432 B; long 131,072 ×
    /// 96 × 2 B = 25,165,824 B; concatenation 25,952,256 B (24.75 MiB). vLLM ≥ 0.7 keeps the
    /// concatenation only; SGLang (and vLLM 0.6) all three: 51,904,512 B (49.5 MiB). Not float32 in
    /// SGLang: `Phi3LongRoPEScaledRotaryEmbedding` casts each cache to the model dtype.
    #[test]
    fn phi_3_5_mini_longrope_caches() {
        let m = preset("phi-3.5-mini");
        assert_eq!(
            (m.longrope_original, m.context_len, m.head_dim),
            (Some(4_096), Some(131_072), 96)
        );
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::vllm(Some(&[0, 19, 0])), 2),
            vec![25_952_256]
        );
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::vllm(Some(&[0, 7, 0])), 2),
            vec![25_952_256]
        );
        let three = vec![786_432, 25_165_824, 25_952_256];
        assert_eq!(rope_cache_tensors(&m, RopeRule::vllm(Some(&[0, 6, 4])), 2), three);
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::sglang(Some(&[0, 5, 5]), true), 2),
            three
        );
        assert_eq!(three.iter().sum::<u64>(), 51_904_512);
    }

    /// Phi-4-mini: LongRoPE as Phi-3.5-mini (4,096 / 131,072 rows) on a partial rotary width,
    /// 128 × 0.75 = 96: the same bytes, 25,952,256 B under vLLM, 51,904,512 B under SGLang.
    #[test]
    fn phi_4_mini_longrope_partial_width() {
        let m = preset("phi-4-mini");
        assert_eq!(
            (m.longrope_original, m.rotary_dim, m.head_dim),
            (Some(4_096), Some(96), 128)
        );
        assert_eq!(rope_cache_tensors(&m, RopeRule::vllm(None), 2), vec![25_952_256]);
        let sgl: u64 = rope_cache_tensors(&m, RopeRule::sglang(None, true), 2)
            .iter()
            .sum();
        assert_eq!(sgl, 51_904_512);
    }

    /// Gemma-3 (gemma-3-12b-it, 131,072 positions, head_dim 256): vLLM's two caches (0.0625 GiB +
    /// the ×8 linear one, 0.5 GiB); SGLang's `gemma3_causal.py` builds none.
    #[test]
    fn gemma3_per_engine() {
        let m = preset("gemma-3-12b-it");
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::vllm(None), 2),
            vec![64 << 20, 512 << 20]
        );
        assert!(rope_cache_tensors(&m, RopeRule::sglang(None, true), 2).is_empty());
    }

    /// sglmem54: Step-3.5-Flash's two caches, one per `get_rope` width (`llm::step3p5`): the full
    /// layers rotate int(128 × 0.5) = 64, the sliding layers 128, over 262,144 positions. SGLang
    /// (float32 on CUDA): 262,144 × 64 × 4 = 67,108,864 B and 262,144 × 128 × 4 = 134,217,728 B;
    /// vLLM (bf16): 33,554,432 and 67,108,864 B. Without `partial_rotary_factors` one 128-wide cache.
    #[test]
    fn step3p5_two_widths() {
        let m = preset("step-3.5-flash");
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::sglang(None, true), 2),
            vec![67_108_864, 134_217_728]
        );
        assert_eq!(
            rope_cache_tensors(&m, RopeRule::vllm(None), 2),
            vec![33_554_432, 67_108_864]
        );
        let text = include_str!("../../scenarios/models/step-3.5-flash/config.json");
        let mut v: serde_json::Value = serde_json::from_str(text).unwrap();
        v.as_object_mut().unwrap().remove("partial_rotary_factors");
        let one = ModelSpec::from_config_json(&v.to_string(), Quantization::bf16()).unwrap();
        assert_eq!(
            rope_cache_tensors(&one, RopeRule::vllm(None), 2),
            vec![67_108_864]
        );
    }

    /// mem49: SGLang's "mem usage" of Qwen3-14B at tp 4 on an RTX 4090 (engine-memory.tsv line
    /// 40, logged 7.08 GB), beyond the checkpoint's 6.878 GiB: the float32 RoPE cache (20 MiB) and the
    /// segments torch keeps after `empty_cache` (`ModelSpec::sglang_load_segment_overhead`). By hand,
    /// per layer (bf16): qkv (10 + 2 + 2) × 128 × 5120 × 2 B = 17.5 MiB in an 18 MiB segment taken
    /// whole (+0.5); o_proj 5120 × 1280 × 2 B = 12.5 MiB in a 14 MiB segment (+1.5, split: the free
    /// tail stays reserved); gate_up 8704 × 5120 × 2 B = 85 MiB in 86 MiB whole (+1); down 5120 ×
    /// 4352 × 2 B = 42.5 MiB in 44 MiB (+1.5): 4.5 MiB × 40 layers = 180 MiB. Embedding and LM head
    /// 37,984 × 5120 × 2 B = 370.9375 MiB each in 372 MiB segments: +2.125 MiB. The norms (40 × (2 ×
    /// 10,240 + 2 × 256) + 10,240 = 849,920 B asked) fill one 2 MiB small segment: +1,247,232 B. The
    /// RoPE cache's float32 temporaries (10, 10, 10, 20 MiB) are freed, their segments released; the
    /// 20 MiB cache fills its own. Total 182.125 MiB + 1,247,232 B = 192,219,136 B = 0.1790 GiB;
    /// with the weights and the cache, 6.878 + 0.0195 + 0.1790 = 7.077 GiB against the logged 7.08
    /// (± 0.005: two decimals).
    #[test]
    fn qwen3_14b_sglang_load_segments_tp4() {
        let m = preset("qwen3-14b");
        let ropes = rope_cache_tensors(&m, RopeRule::sglang(None, true), 2);
        assert_eq!(ropes, vec![20 << 20]);
        let gpu = crate::llm::LoadGpu {
            sm_version: 89,
            sm_count: 128,
            cuda: true,
            int4: crate::llm::vllm_w4a16::Int4Rules::default(),
        };
        let over = m.sglang_load_segment_overhead(4, &ropes, 4, 2, &gpu);
        assert_eq!(over, 182 * (1 << 20) + (1 << 17) + 1_247_232);
        assert_eq!(over, 192_219_136);
        let gib = |b: u64| b as f64 / (1u64 << 30) as f64;
        let usage = gib(m.weight_bytes_per_rank(4).0) + gib(ropes[0]) + gib(over);
        assert!((usage - 7.08).abs() < 0.005, "{usage}");
    }

    /// A LongRoPE block without `original_max_position_embeddings` is refused naming the key (the
    /// engines' `get_rope` raises KeyError).
    #[test]
    fn longrope_needs_its_original_context() {
        let text = r#"{"architectures": ["Phi3ForCausalLM"], "hidden_size": 3072, "num_attention_heads": 32,
            "num_key_value_heads": 32, "num_hidden_layers": 32, "intermediate_size": 8192, "vocab_size": 32064,
            "max_position_embeddings": 131072, "torch_dtype": "bfloat16",
            "rope_scaling": {"type": "longrope", "short_factor": [1.0], "long_factor": [1.0]}}"#;
        let e = ModelSpec::from_config_json(text, Quantization::bf16())
            .unwrap_err()
            .to_string();
        assert!(e.contains("original_max_position_embeddings"), "{e}");
    }
}
