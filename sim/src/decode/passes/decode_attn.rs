//! mend51: what the decode-attention kernel models (`passes::splitkv`, `passes::triton_split`,
//! `passes::aiter_unified`, `passes::fa2_window`) read of a scenario and one pass's model, worked out
//! once per pass (`Builder::pass`) instead of in every layer: vLLM V1's release and decode backend
//! (the one named in `engine.attention_backend`, else vLLM's own pick,
//! `scenario::attention_backend::vllm_default`), the heads one rank holds, the KV-cache dtype and
//! whether vLLM replays full decode graphs. Also the decode-layer test the split-KV models share
//! and the 2-D grid of the Triton unified-attention kernels (vLLM's and AITER's).

use crate::decode::dp_attention::attention_tp;
use crate::scenario::attention_backend::{minor, vllm_default};
use crate::scenario::cudagraph_mode::DecodeLaunch;
use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{KvCacheDtype, LayerWork, Mixer, ModelSpec};

/// The decode-attention facts of one model in a scenario (module doc).
#[derive(Debug, Clone, Copy)]
pub(super) struct DecodeAttn<'a> {
    /// The scenario.
    pub s: &'a Scenario,
    /// The model the pass runs (the target or a draft).
    pub model: &'a ModelSpec,
    /// vLLM V1 (not `engine.v0`) only: its release and decode backend; `None` under SGLang or V0.
    pub vllm: Option<VllmAttn<'a>>,
    /// KV heads one attention rank holds (at least 1: replicated below tp = kv_heads).
    pub kv_heads: u64,
    /// Query heads per KV head on that rank (at least 1).
    pub group: u64,
    /// Whether the KV cache is fp8 (e4m3 or e5m2).
    pub fp8_kv: bool,
    /// vLLM only: a uniform decode replays one full CUDA graph (`cuda_graph` on and a
    /// `cudagraph_mode` whose `decode_mode` is FULL: FULL, FULL_DECODE_ONLY, FULL_AND_PIECEWISE).
    pub full_graphs: bool,
}

/// vLLM V1's release and decode-attention backend.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct VllmAttn<'a> {
    /// The minor of a 0.x release (`None` when the version is unreadable or not 0.x).
    pub minor: Option<u64>,
    /// `engine.attention_backend`, else vLLM's own pick for the model on the GPU (`vllm_default`
    /// without a user block size); `None` where neither gives one.
    pub backend: Option<&'a str>,
}

impl VllmAttn<'_> {
    /// The minor release when it lies in `lo..=hi` and the backend is `backend`.
    pub fn runs(&self, backend: &str, lo: u64, hi: u64) -> Option<u64> {
        self.minor
            .filter(|m| (lo..=hi).contains(m))
            .filter(|_| self.backend == Some(backend))
    }
}

impl<'a> DecodeAttn<'a> {
    /// The facts of `model` in `s` (module doc).
    pub fn new(s: &'a Scenario, model: &'a ModelSpec) -> Self {
        let vllm = (s.engine.kind == EngineKind::Vllm && s.engine.v0.is_none()).then(|| {
            let version = s.engine.release().version;
            let backend = s.engine.attention_backend.as_deref().or_else(|| {
                vllm_default(&version, &s.hardware.gpu.compute_capability, model, None).map(|p| p.backend)
            });
            VllmAttn {
                minor: minor(&version),
                backend,
            }
        });
        let tp = u64::from(attention_tp(&s.engine).max(1));
        let kv_heads = (model.kv_heads / tp).max(1);
        let full_graphs = s.engine.kind == EngineKind::Vllm
            && s.engine.cuda_graph
            && s.engine
                .cudagraph_mode
                .is_some_and(|m| m.decode() == DecodeLaunch::Full);
        DecodeAttn {
            s,
            model,
            vllm,
            kv_heads,
            group: ((model.heads / tp).max(1) / kv_heads).max(1),
            fp8_kv: matches!(
                model.quantization.kv_cache_dtype,
                KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2
            ),
            full_graphs,
        }
    }
}

/// Whether layer `l` in a pass of `seqs` sequences, `tokens` query tokens and context `ctx` is a
/// decode of a full or sliding attention layer: `Some(sliding)`, else `None` (a prefill or mixed
/// pass, a layer without attention kernels, another mixer, or a full layer with a window, which is
/// DSA's top-k rather than an MHA decode).
pub(super) fn decode_layer(l: &LayerWork, seqs: u32, tokens: u32, ctx: u32) -> Option<bool> {
    let sliding = match l.mixer {
        Mixer::Attention => false,
        Mixer::SlidingAttention => true,
        _ => return None,
    };
    // A decode pass: every sequence one query token.
    if ctx == 0 || seqs == 0 || tokens != seqs || l.attn_kernels == 0 {
        return None;
    }
    if !sliding && l.kv_window.is_some() {
        return None;
    }
    Some(sliding)
}

/// The programs of the Triton unified attention's 2-D launch for `seqs` sequences and `tokens`
/// query tokens with `kv_heads` KV heads of `group` query heads each: `BLOCK_M` = 16 up to 16 query
/// heads a KV head (else their next power of two), `BLOCK_Q = BLOCK_M / group`, programs
/// `(tokens // BLOCK_Q + seqs) × kv_heads` (vLLM 0.12.0 `attention/ops/triton_unified_attention.py`
/// `unified_attention`; AITER v0.1.10.post3 `aiter/ops/triton/attention/unified_attention.py`).
pub(super) fn unified_2d_programs(kv_heads: u64, group: u64, seqs: u64, tokens: u64) -> u64 {
    let block_m = if group <= 16 {
        16
    } else {
        group.next_power_of_two()
    };
    let block_q = (block_m / group).max(1);
    (tokens / block_q + seqs) * kv_heads
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    /// `model` on `hw` under `engine` `version` at `tp` with extra `[engine]` lines.
    fn load(hw: &str, model: &str, engine: &str, version: &str, tp: u32, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"{engine}\"\n\
             version = \"{version}\"\ntp = {tp}\n{extra}\n[workload]\nconcurrency = 1\nprompt_len = 1024\n\
             output_len = 16\n"
        );
        load_str(&text, Path::new("decode-attn.toml")).expect("scenario")
    }

    /// gpt-oss-20b (64 query, 8 KV heads) under vLLM 0.14.1 on the RTX PRO 6000 box. TP 2: 8 / 2 =
    /// 4 KV heads a rank, 64 / 2 = 32 query heads → group 8; TP 1: 8 KV heads, group 64 / 8 = 8.
    /// The release reads as minor 14; the backend is the one the scenario resolved (vLLM's own
    /// pick, TRITON_ATTN, as `triton_split`'s tests use it), and `runs` gives the minor only inside
    /// the range and for that backend. The default FULL_AND_PIECEWISE replays full decode graphs;
    /// `cuda_graph = false` does not. Under SGLang there are no vLLM facts.
    #[test]
    fn facts_of_a_pass() {
        let hw = "rtx-pro-6000-2x-turin-same-numa";
        let s = load(hw, "gpt-oss-20b", "vllm", "0.14.1", 2, "");
        let a = DecodeAttn::new(&s, &s.model);
        assert_eq!(
            (a.kv_heads, a.group, a.fp8_kv, a.full_graphs),
            (4, 8, false, true)
        );
        let v = a.vllm.expect("vLLM V1");
        assert_eq!(v.minor, Some(14));
        assert_eq!(v.backend, s.engine.attention_backend.as_deref());
        assert_eq!(v.backend, Some("TRITON_ATTN"));
        assert_eq!(v.runs("TRITON_ATTN", 12, 19), Some(14));
        assert_eq!(v.runs("TRITON_ATTN", 15, 19), None);
        assert_eq!(v.runs("FLASH_ATTN", 11, 19), None);
        let eager = load(hw, "gpt-oss-20b", "vllm", "0.14.1", 1, "cuda_graph = false");
        let e = DecodeAttn::new(&eager, &eager.model);
        assert_eq!((e.kv_heads, e.group, e.full_graphs), (8, 8, false));
        let sgl = load(hw, "gpt-oss-20b", "sglang", "0.5.8", 1, "");
        assert_eq!(DecodeAttn::new(&sgl, &sgl.model).vllm, None);
    }

    /// The 2-D grid: 8 query heads a KV head → BLOCK_M 16, BLOCK_Q 2: 64 decode sequences on 8 KV
    /// heads are (64 // 2 + 64) × 8 = 768 programs; 32 query heads a KV head → BLOCK_M 32, BLOCK_Q 1:
    /// (64 + 64) × 8 = 1,024; 48 → BLOCK_M 64, BLOCK_Q 1 (64 // 48): also 1,024.
    #[test]
    fn unified_2d_grid_by_hand() {
        assert_eq!(unified_2d_programs(8, 8, 64, 64), 768);
        assert_eq!(unified_2d_programs(8, 32, 64, 64), 1_024);
        assert_eq!(unified_2d_programs(8, 48, 64, 64), 1_024);
    }
}
