//! splitkv49 (issue #18): FlashAttention's split-KV decode at small batches — how many splits the
//! kernel takes, the programs they make against the GPU's SMs, the KV tiles the busiest program walks
//! in series, and the combine kernel launched after it. longctx18 did the same for vLLM's
//! TRITON_ATTN (`passes::triton_split`); this is its FlashAttention counterpart.
//!
//! Where it applies (decode passes: one query token a sequence, `ctx > 0`, full or sliding attention
//! layers of an MHA/GQA model; MLA is not FlashAttention's MHA kernel):
//! - vLLM V1 0.11–0.19 with FLASH_ATTN (named, or vLLM's own pick). `get_flash_attn_version`
//!   (0.11.0 `vllm/attention/utils/fa_utils.py`, 0.19.0 `vllm/v1/attention/backends/fa_utils.py`):
//!   FlashAttention 3 on SM 9.x, else 2; 0.19 prefers FlashAttention 4 on SM 10.x when the build has
//!   it, which tpsim does not know: SM 10.x is left alone from 0.19. 0.12–0.13 and 0.15–0.18 are
//!   taken as 0.11.0 / 0.14.1 / 0.19.0 (read: `v1/attention/backends/flash_attn.py`).
//! - SGLang with `fa3` on SM 9.x (0.5.8 wheel `layers/attention/flashattention_backend.py`:
//!   `num_splits = 0`, FA3's own heuristic, unless deterministic inference).
//!
//! FlashAttention 3 (vllm-project/flash-attention `hopper/`: `flash_api.cpp` `get_num_splits`,
//! `heuristics.h` `num_splits_heuristic`, `tile_size.h` `tile_size_fwd_sm90`,
//! `flash_prepare_scheduler.cu` `prepare_varlen_num_blocks_kernel`, `flash_fwd_launch_template.h`):
//! - Tiles: `kBlockN` from `tile_size_fwd_sm90` with a paged KV cache that TMA cannot read
//!   (`pagedkv_tma` needs `page_size % kBlockN == 0`: vLLM's 16-token blocks and SGLang's 1-token
//!   pages do not), a 16-bit query: head size ≤ 64 → 160 (a decode is not causal there: `seqlen_q ==
//!   1` drops `is_causal` for head sizes ≤ 64 or > 128), ≤ 96 → 128, ≤ 128 → 128, ≤ 192 → 96, ≤ 256
//!   → 80 (64 on a local layer); an fp8 KV cache (e4m3 query): ≤ 64 → 160, ≤ 96 → 128, ≤ 128 → 160,
//!   ≤ 192 → 160 (128 local), ≤ 256 → 128 (64 local). `kBlockM` (for the packed query heads): 192 up to
//!   head size 96, else 128. A local (sliding) layer loads `min(seqlen_k, window + kBlockM)` keys.
//!   `kStages = 2` on SM 9.0: two tiles in flight per program.
//! - The static split count (`params.num_splits`): vLLM under full CUDA graphs passes
//!   `max_num_splits` = 32 (`VLLM_FLASH_ATTN_MAX_NUM_SPLITS_FOR_CUDA_GRAPH` in 0.11.0 `envs.py`, the
//!   attention config's `flash_attn_max_num_splits_for_cuda_graph` from 0.14.1); otherwise 0, and FA3
//!   runs `num_splits_heuristic` on `total_mblocks = KV heads × m blocks` (varlen: "pretending that
//!   batch = 1"): 1 when that fills 80 % of the SMs or the context is ≤ 4 tiles, else the fewest splits
//!   whose wave efficiency `n_waves / ceil(n_waves)` reaches 85 % of the best (at most min(128, SMs,
//!   tiles)).
//! - The dynamic split count per sequence (varlen, up to 992 sequences): `blocks_per_sm =
//!   ceil(total_blocks × 1.1 × KV heads / SMs)` over the batch's tiles, `splits = clamp(cdiv(tiles,
//!   blocks_per_sm), 1, static)`.
//! - `run_mha_fwd_combine` is launched whenever the static count exceeds 1 (even where every
//!   sequence's dynamic count is 1).
//!
//! FlashAttention 2 (vLLM on SM 8.x / 12.x; `csrc/flash_attn/flash_api.cpp` `mha_varlen_fwd`,
//! `set_params_splitkv`, `num_splits_heuristic`): splits only a decode whose query heads can be swapped
//! into the query length (`seqlenq_ngroups_swapped`: one query token, more query than KV heads, no
//! window) — "Only apply split-k for decoding". Then `block_n` = 256 up to head size 64, 128 up to
//! 128, else 64; `num_m_blocks = cdiv(ngroups, 64)`; `num_splits_heuristic(batch × KV heads × m
//! blocks, 2 × SMs (128 threads a block), tiles, 128)`: 1 at 80 % of 2 × SMs, else the fewest
//! *eligible* splits (a split count whose tiles per split differ from one fewer's) within 85 % of the
//! best wave efficiency. The combine kernel runs when that exceeds 1. The split kernel keeps one tile
//! in flight (its K and V loads each overlap the other's GEMM): one round trip a tile.
//!
//! The cost (`passes::attention_time`): the combine kernel is one more launch in the layer's
//! attention op; the busiest program walks `tiles` tiles in series with `stages` in flight, so the
//! layer's KV part is costed at least `tiles × dram_latency_ns / stages` (Little's law per program,
//! `GpuSpec::dram_latency_ns`; none without a latency figure). With FA3's 128-token tiles and SM-filling
//! splits that floor rarely binds (128,000 tokens, 8 KV heads on an H100: 15 splits of 67 tiles, 11.8
//! µs a layer against 156 µs of streaming); the launch is what moves. Not modelled: the split
//! programs' partial-output writes (fp32, `splits × heads × head size` a sequence: small against the
//! KV), FA3's `prepare_varlen_num_blocks` kernel where no scheduler metadata is passed (SGLang, vLLM
//! with several sliding windows: not read in the sgl-kernel build).
//!
//! splitkv50: FlashInfer's split-KV decode ([`flashinfer`]; flashinfer-python 0.6.1 wheel, the
//! release SGLang 0.5.8 pins: `flashinfer/data/include/flashinfer/attention/scheduler.cuh`,
//! `prefill.cuh`, `utils.cuh`, `flashinfer/decode.py`, `flashinfer/utils.py`). Where: SGLang with
//! `flashinfer` (named or its default), vLLM V1 0.11–0.19 with FLASHINFER (named or its pick) off SM
//! 10.x (TRT-LLM attention there); full attention layers of MHA/GQA models. Which kernel: SGLang's
//! `should_use_tensor_core` (0.5.8 wheel `layers/attention/flashinfer_backend.py`: an fp8 KV cache,
//! or a bf16/fp16 one with ≥ 4 query heads a KV head) and vLLM's decode wrapper (`use_tensor_cores=
//! True`, 0.11.0 and 0.19.0 `v1/attention/backends/flashinfer.py`) take the tensor-core path, the
//! prefill kernel: on SM 9.0 `determine_attention_backend` gives it FlashInfer's own FA3 (SM 90)
//! kernel, whose scheduler is not read here (left alone); elsewhere FA2's `PrefillPlan`:
//! `max_batch_size_if_split = 2 × SMs / KV heads`, `cta_tile_q` by the packed query heads
//! (`FA2DetermineCtaTileQ`: 16 up to 16, 64 up to 64, else 128), and `PrefillBinarySearchKVChunkSize`:
//! the least chunk of at least `max(128 / page size, 1)` pages whose `Σ q tiles × cdiv(pages, chunk)`
//! fits `max_batch_size_if_split`; `split_kv = enable_cuda_graph || chunk < pages`. Otherwise the
//! decode kernel's `BatchDecodeWithPagedKVCacheWorkEstimationDispatched`: no split at `batch × KV
//! heads ≥ max_grid_size` (the kernel's occupancy × SMs: at least the SMs, the rest not computed
//! here), else under a CUDA graph always split; eager only when the chunk is shorter than the pages.
//! Either way a split launches `VariableLengthMergeStates` after the main kernel (`prefill.cuh`
//! `BatchPrefillWithPagedKVCacheDispatched`; `decode.cuh` likewise): one more kernel in the layer's
//! attention op, as FlashAttention's combine. SGLang's cuda-graph decode wrappers pass
//! `use_cuda_graph=True` and `disable_split_kv=False` (deterministic inference aside); vLLM's under
//! full decode graphs (`cudagraph_mode.decode_mode() == FULL`). No per-tile floor is costed for
//! FlashInfer (its per-iteration KV tile is not read): the merge launch is what moves.

use super::decode_attn::{DecodeAttn, decode_layer};
use crate::scenario::accel::GpuVendor;
use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{Attention, LayerWork};
use tpsim_model::units::Duration;

/// Which FlashAttention runs the decode.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Fa {
    /// FlashAttention 3 (`hopper/`), SM 9.x.
    V3,
    /// FlashAttention 2 (`csrc/flash_attn/`).
    V2,
}

/// `VLLM_FLASH_ATTN_MAX_NUM_SPLITS_FOR_CUDA_GRAPH` (0.11.0 `envs.py`; the attention config's
/// `flash_attn_max_num_splits_for_cuda_graph` from 0.14.1).
const VLLM_GRAPH_SPLITS: u64 = 32;

/// The `max_splits` both heuristics are called with (`get_num_splits`, `set_params_splitkv`).
const MAX_SPLITS: u64 = 128;

/// FA3's dynamic split runs up to this many sequences (`prepare_varlen_num_blocks`: 32 warps × 31).
const DYNAMIC_MAX_BATCH: u64 = 992;

/// The split-KV launch of one decode pass of one layer (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Split {
    pub fa: Fa,
    /// Splits of each sequence's KV (all sequences of a pass share one context length in tpsim).
    pub splits: u64,
    /// Programs (CTAs) of the main kernel.
    pub programs: u64,
    /// KV tiles the busiest program walks in series.
    pub tiles: u64,
    /// Tiles in flight per program.
    pub stages: u64,
    /// Whether the combine kernel is launched.
    pub combine: bool,
}

/// The FlashAttention version vLLM or SGLang decodes this scenario's model with (module doc), else
/// `None`.
fn version(a: &DecodeAttn) -> Option<Fa> {
    let s = a.s;
    // ROCm runs neither (its compute capability "9.4" is not Hopper's).
    if matches!(a.model.attention, Attention::Mla { .. }) || s.hardware.accel.vendor == GpuVendor::Amd {
        return None;
    }
    let major = tpsim_model::hw::sm_major(&s.hardware.gpu.compute_capability);
    match s.engine.kind {
        EngineKind::Vllm => {
            let m = a.vllm?.runs("FLASH_ATTN", 11, 19)?;
            match major {
                9 => Some(Fa::V3),
                10 if m >= 19 => None,
                8 | 10 | 12 => Some(Fa::V2),
                _ => None,
            }
        }
        EngineKind::Sglang => {
            (major == 9 && s.engine.attention_backend.as_deref() == Some("fa3")).then_some(Fa::V3)
        }
    }
}

/// FA3's `tile_size_fwd_sm90` `(kBlockM, kBlockN)` for a paged KV cache without TMA (module doc).
fn fa3_tile(head_dim: u64, fp8: bool, local: bool) -> (u64, u64) {
    let m = if head_dim <= 96 { 192 } else { 128 };
    let n = match (fp8, head_dim) {
        (false, 0..=64) => 160,
        (false, 65..=128) => 128,
        (false, 129..=192) => 96,
        (false, _) if local => 64,
        (false, _) => 80,
        (true, 0..=64) => 160,
        (true, 65..=96) => 128,
        (true, 97..=128) => 160,
        (true, 129..=192) if local => 128,
        (true, 129..=192) => 160,
        (true, _) if local => 64,
        (true, _) => 128,
    };
    (m, n)
}

/// FA3's `num_splits_heuristic` for a decode (`num_m_blocks` never reaches twice the SMs: the
/// L2-size branch is not taken).
fn fa3_heuristic(total_mblocks: u64, sms: u64, n_blocks: u64) -> u64 {
    if total_mblocks as f32 >= 0.8 * sms as f32 || n_blocks <= 4 {
        return 1;
    }
    let max = MAX_SPLITS.min(sms).min(n_blocks);
    let eff = |s: u64| {
        let waves = (total_mblocks * s) as f32 / sms as f32;
        waves / waves.ceil()
    };
    let best = (1..=max).map(eff).fold(0.0f32, f32::max);
    (1..=max).find(|&s| eff(s) >= 0.85 * best).unwrap_or(1)
}

/// FA2's `num_splits_heuristic(batch_nheads_mblocks, num_SMs, num_n_blocks, 128)`.
fn fa2_heuristic(total: u64, slots: u64, n_blocks: u64) -> u64 {
    if total as f32 >= 0.8 * slots as f32 {
        return 1;
    }
    let max = MAX_SPLITS.min(slots).min(n_blocks);
    let eligible = |s: u64| s == 1 || n_blocks.div_ceil(s) != n_blocks.div_ceil(s - 1);
    let eff = |s: u64| {
        let waves = (total * s) as f32 / slots as f32;
        waves / waves.ceil()
    };
    let best = (1..=max).filter(|&s| eligible(s)).map(eff).fold(0.0f32, f32::max);
    (1..=max)
        .filter(|&s| eligible(s))
        .find(|&s| eff(s) as f64 >= 0.85 * best as f64)
        .unwrap_or(1)
}

/// The split-KV launch of layer `l` in a decode pass of `seqs` sequences, `tokens` query tokens,
/// context `ctx`, or `None` where FlashAttention does not decode it (module doc). `Some` with
/// `splits == 1` and no combine is a decode that does not split.
pub(super) fn split(a: &DecodeAttn, l: &LayerWork, seqs: u32, tokens: u32, ctx: u32) -> Option<Split> {
    let fa = version(a)?;
    let sliding = decode_layer(l, seqs, tokens, ctx)?;
    let (s, model) = (a.s, a.model);
    let (b, ctx) = (u64::from(seqs), u64::from(ctx));
    let (hk, group) = (a.kv_heads, a.group);
    let sms = u64::from(s.hardware.gpu.sm_count.max(1));
    let window = if sliding { l.kv_window } else { None };
    match fa {
        Fa::V3 => {
            let (block_m, block_n) = fa3_tile(model.head_dim, a.fp8_kv, window.is_some());
            let loaded = window.map_or(ctx, |w| ctx.min(w + block_m));
            let n = loaded.div_ceil(block_n);
            let m_blocks = group.div_ceil(block_m);
            let stat = if a.full_graphs {
                VLLM_GRAPH_SPLITS
            } else {
                fa3_heuristic(hk * m_blocks, sms, n)
            };
            let splits = if stat <= 1 || b > DYNAMIC_MAX_BATCH {
                1
            } else {
                let total = b * m_blocks * n;
                let per_sm = (total as f32 * 1.1f32 * hk as f32 / sms as f32).ceil() as u64;
                n.div_ceil(per_sm.max(1)).clamp(1, stat)
            };
            Some(Split {
                fa,
                splits,
                programs: b * hk * m_blocks * splits,
                tiles: n.div_ceil(splits),
                stages: 2,
                combine: stat > 1,
            })
        }
        Fa::V2 => {
            let block_n = match model.head_dim {
                0..=64 => 256,
                65..=128 => 128,
                _ => 64,
            };
            let n = ctx.div_ceil(block_n);
            // `seqlenq_ngroups_swapped`: GQA, no window, head size a multiple of 8.
            let swapped = group > 1 && window.is_none() && model.head_dim.is_multiple_of(8);
            let m_blocks = if swapped { group.div_ceil(64) } else { 1 };
            let heads = if swapped { hk } else { hk * group };
            let splits = if swapped {
                fa2_heuristic(b * heads * m_blocks, 2 * sms, n)
            } else {
                1
            };
            Some(Split {
                fa,
                splits,
                programs: b * heads * m_blocks * splits,
                tiles: n.div_ceil(splits),
                stages: 1,
                combine: splits > 1,
            })
        }
    }
}

/// splitkv50: FlashInfer's split-KV decode of one layer (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct FiSplit {
    /// Whether the tensor-core (prefill-kernel) path runs the decode.
    pub tensor_cores: bool,
    /// KV chunks of each sequence (the tensor-core path; 0 where the decode kernel's occupancy-bound
    /// chunk is not computed).
    pub chunks: u64,
    /// Whether the KV is split, and so `VariableLengthMergeStates` launched.
    pub merge: bool,
}

/// FA2's `PrefillBinarySearchKVChunkSize` for `b` sequences of `pages` pages, `q_tiles` query tiles
/// each: the chunk (pages).
fn fi_chunk(b: u64, q_tiles: u64, pages: u64, max_bs: u64, min_chunk: u64) -> u64 {
    let (mut low, mut high) = (min_chunk, pages.max(1));
    while low < high {
        let mid = (low + high) / 2;
        if b * q_tiles * pages.max(1).div_ceil(mid) > max_bs {
            low = mid + 1;
        } else {
            high = mid;
        }
    }
    low
}

/// FlashInfer's split-KV decode of layer `l` in a decode pass of `seqs` sequences, `tokens` query
/// tokens, context `ctx`, replayed in a CUDA graph or not (`graph`); `None` where FlashInfer does not
/// decode it or its split is not modelled (module doc).
pub(super) fn flashinfer(
    a: &DecodeAttn,
    l: &LayerWork,
    seqs: u32,
    tokens: u32,
    ctx: u32,
    graph: bool,
) -> Option<FiSplit> {
    let s = a.s;
    if matches!(a.model.attention, Attention::Mla { .. }) || s.hardware.accel.vendor == GpuVendor::Amd {
        return None;
    }
    // Full attention layers only.
    if decode_layer(l, seqs, tokens, ctx)? {
        return None;
    }
    let major = tpsim_model::hw::sm_major(&s.hardware.gpu.compute_capability);
    let (hk, group) = (a.kv_heads, a.group);
    let tensor_cores = match s.engine.kind {
        EngineKind::Sglang => {
            if s.engine.attention_backend.as_deref() != Some("flashinfer") {
                return None;
            }
            a.fp8_kv || group >= 4
        }
        EngineKind::Vllm => {
            if major == 10 {
                return None;
            }
            a.vllm?.runs("FLASHINFER", 11, 19)?;
            true
        }
    };
    let (b, sms) = (u64::from(seqs), u64::from(s.hardware.gpu.sm_count.max(1)));
    let page = s.engine.page_size.max(1);
    let pages = u64::from(ctx).div_ceil(page);
    let min_chunk = (128 / page).max(1);
    if tensor_cores {
        // SM 9.0: FlashInfer's own FA3 prefill kernel (`determine_attention_backend`), not read.
        if major == 9 {
            return None;
        }
        let cta_q = match group {
            0..=16 => 16,
            17..=64 => 64,
            _ => 128,
        };
        let q_tiles = group.div_ceil(cta_q);
        let chunk = fi_chunk(b, q_tiles, pages, 2 * sms / hk, min_chunk);
        return Some(FiSplit {
            tensor_cores,
            chunks: pages.max(1).div_ceil(chunk),
            merge: graph || chunk < pages,
        });
    }
    // The decode kernel: max_grid_size (its occupancy × SMs) is at least the SMs; beyond that the
    // decision is not computed here.
    if b * hk >= sms {
        return None;
    }
    let merge = if graph {
        true
    } else if pages <= min_chunk {
        false
    } else if 2 * b * hk <= sms {
        // A chunk of cdiv(pages, 2) already fits: the chunk is shorter than the pages.
        true
    } else {
        return None;
    };
    Some(FiSplit {
        tensor_cores,
        chunks: 0,
        merge,
    })
}

/// The least time the layer's main kernel takes to walk its tiles: the busiest program's tiles × the
/// GPU's device-memory latency ÷ the tiles in flight (module doc); `None` without a latency figure.
pub(super) fn latency_floor(s: &Scenario, sp: Split) -> Option<Duration> {
    let ns = s.hardware.gpu.dram_latency_ns?;
    Some(Duration::from_us_f64(
        sp.tiles as f64 * ns / sp.stages.max(1) as f64 / 1000.0,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    /// The decode-attention facts of `s`'s own model.
    fn attn(s: &Scenario) -> DecodeAttn<'_> {
        DecodeAttn::new(s, &s.model)
    }
    use tpsim_model::llm::Mixer;

    /// `model` on one GPU of `hw` under `engine` `version` with extra `[engine]` lines.
    fn load(hw: &str, model: &str, engine: &str, version: &str, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"{engine}\"\n\
             version = \"{version}\"\ntp = 1\n{extra}\n[workload]\nconcurrency = 1\nprompt_len = 1024\n\
             output_len = 16\n"
        );
        load_str(&text, Path::new("splitkv.toml")).expect("scenario")
    }

    /// The first layer of `s`'s model with mixer `m`.
    fn layer(s: &Scenario, m: Mixer) -> LayerWork {
        let fp = s.model.forward_pass(s.engine.tp, 1);
        *fp.layers.iter().find(|l| l.mixer == m).expect("layer")
    }

    /// Llama-3.1-8B (32 query, 8 KV heads, head size 128) on one H100 SXM (132 SMs) under vLLM 0.14.1
    /// (FA3, FULL_AND_PIECEWISE graphs: static 32 splits). 128,000 tokens: kBlockN 128 → 1,000 tiles;
    /// kBlockM 128 → 1 m block (4 packed heads); blocks_per_sm = ceil(1,000 × 1.1 × 8 / 132) =
    /// ceil(66.67) = 67; splits = cdiv(1,000, 67) = 15 (≤ 32); 8 × 15 = 120 programs walking
    /// cdiv(1,000, 15) = 67 tiles, two in flight: 67 × 353.5 ns / 2 = 11.84225 µs. At 64 sequences
    /// blocks_per_sm = ceil(64,000 × 1.1 × 8 / 132) = 4,267 > 1,000 tiles: 1 split, 512 programs of
    /// 1,000 tiles — and the combine still launches (static 32).
    #[test]
    fn fa3_vllm_full_graphs() {
        let s = load("h100-sxm-1x", "llama-3.1-8b", "vllm", "0.14.1", "");
        let l = layer(&s, Mixer::Attention);
        let sp = split(&attn(&s), &l, 1, 1, 128_000).expect("FA3");
        assert_eq!(
            sp,
            Split {
                fa: Fa::V3,
                splits: 15,
                programs: 120,
                tiles: 67,
                stages: 2,
                combine: true
            }
        );
        assert_eq!(latency_floor(&s, sp), Some(Duration::from_ps(11_842_250)));
        let sp64 = split(&attn(&s), &l, 64, 64, 128_000).expect("FA3");
        assert_eq!(
            (sp64.splits, sp64.programs, sp64.tiles, sp64.combine),
            (1, 512, 1_000, true)
        );
        // A prefill or mixed pass: not a decode.
        assert!(split(&attn(&s), &l, 1, 2, 4096).is_none());
    }

    /// vLLM 0.14.1 eager (`cuda_graph = false`: max_num_splits 0, FA3's heuristic). 512 tokens = 4
    /// tiles: 1 split, no combine. 4,096 tokens = 32 tiles: total_mblocks 8 < 0.8 × 132; the waves'
    /// efficiency 8s / 132 peaks at 0.9697 (s = 16, 32), 85 % of it is 0.8242, first reached at s = 14
    /// (112 / 132 = 0.8485; 13 gives 0.788): static 14. Dynamic: blocks_per_sm = ceil(32 × 1.1 × 8 /
    /// 132) = ceil(2.13) = 3, splits = cdiv(32, 3) = 11 ≤ 14; 88 programs of cdiv(32, 11) = 3 tiles.
    #[test]
    fn fa3_vllm_eager_heuristic() {
        let s = load(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "vllm",
            "0.14.1",
            "cuda_graph = false",
        );
        let l = layer(&s, Mixer::Attention);
        let short = split(&attn(&s), &l, 1, 1, 512).expect("FA3");
        assert_eq!((short.splits, short.combine), (1, false));
        let sp = split(&attn(&s), &l, 1, 1, 4096).expect("FA3");
        assert_eq!((sp.splits, sp.programs, sp.tiles, sp.combine), (11, 88, 3, true));
        assert_eq!(fa3_heuristic(8, 132, 32), 14);
    }

    /// SGLang fa3 (num_splits 0) at 128,000 tokens: static = the heuristic over min(128, 132, 1,000)
    /// splits — the best efficiency is 1.0 (s = 33: 264 / 132), 85 % first reached at s = 15 (120 /
    /// 132 = 0.909; 14 gives 0.848) — and the dynamic 15 of `fa3_vllm_full_graphs` fits under it.
    #[test]
    fn fa3_sglang() {
        let s = load(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "sglang",
            "0.5.8",
            "attention_backend = \"fa3\"",
        );
        let l = layer(&s, Mixer::Attention);
        assert_eq!(fa3_heuristic(8, 132, 1_000), 15);
        let sp = split(&attn(&s), &l, 1, 1, 128_000).expect("FA3");
        assert_eq!((sp.splits, sp.tiles, sp.combine), (15, 67, true));
        // Another SGLang backend: not FlashAttention.
        let fi = load(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "sglang",
            "0.5.8",
            "attention_backend = \"flashinfer\"",
        );
        assert!(split(&attn(&fi), &l, 1, 1, 128_000).is_none());
    }

    /// gpt-oss-20b (head size 64, 64 query / 8 KV heads, window 128) on the H100 under vLLM 0.14.1
    /// (FLASH_ATTN, FA3): kBlockN 160, kBlockM 192. Full layer at 128,000 tokens: 800 tiles,
    /// blocks_per_sm = ceil(800 × 1.1 × 8 / 132) = ceil(53.33) = 54, splits cdiv(800, 54) = 15, tiles
    /// cdiv(800, 15) = 54. Sliding layer: min(128,000, 128 + 192) = 320 keys = 2 tiles, blocks_per_sm
    /// = ceil(2 × 1.1 × 8 / 132) = 1, 2 splits of 1 tile.
    #[test]
    fn fa3_gpt_oss_sliding() {
        let s = load("h100-sxm-1x", "gpt-oss-20b", "vllm", "0.14.1", "");
        let full = split(&attn(&s), &layer(&s, Mixer::Attention), 1, 1, 128_000).expect("FA3");
        assert_eq!((full.splits, full.tiles), (15, 54));
        let slide = split(&attn(&s), &layer(&s, Mixer::SlidingAttention), 1, 1, 128_000).expect("FA3");
        assert_eq!((slide.splits, slide.tiles, slide.programs), (2, 1, 16));
    }

    /// FA2 on one RTX 4090 (128 SMs: 256 two-CTA slots) under vLLM 0.14.1, Llama-3.1-8B at 128,000
    /// tokens: block_n 128 → 1,000 tiles; swapped GQA (4 groups → 1 m block), 8 CTAs a split. Best
    /// efficiency 1.0 (s = 32: 256 / 256); 85 % first reached by s = 28 (224 / 256 = 0.875; 27 gives
    /// 0.844), eligible (cdiv(1,000, 28) = 36 ≠ cdiv(1,000, 27) = 38): 224 programs of 36 tiles, one
    /// in flight: 36 × 252.4 ns = 9.0864 µs.
    #[test]
    fn fa2_vllm_rtx_4090() {
        let s = load("rtx-4090-1x", "llama-3.1-8b", "vllm", "0.14.1", "");
        let l = layer(&s, Mixer::Attention);
        let sp = split(&attn(&s), &l, 1, 1, 128_000).expect("FA2");
        assert_eq!(
            sp,
            Split {
                fa: Fa::V2,
                splits: 28,
                programs: 224,
                tiles: 36,
                stages: 1,
                combine: true
            }
        );
        assert_eq!(latency_floor(&s, sp), Some(Duration::from_ps(9_086_400)));
        // 0.8 × 256 = 204.8: 26 sequences × 8 = 208 CTAs fill the slots, no split.
        let big = split(&attn(&s), &l, 26, 26, 128_000).expect("FA2");
        assert_eq!((big.splits, big.combine), (1, false));
    }

    /// splitkv50: SGLang 0.5.8 on one RTX 4090 (128 SMs) decodes with flashinfer (its default on SM
    /// 8.9). Llama-3.1-8B (32 query, 8 KV heads: 4 a group → the tensor-core path, FA2's
    /// `PrefillPlan`), page 1: max_batch_size_if_split = 2 × 128 / 8 = 32; 4 packed heads ≤ 16 → one
    /// query tile. 128,000 tokens: the least chunk ≥ 128 with cdiv(128,000, chunk) ≤ 32 is 4,000 →
    /// 32 chunks, merged (graph or not: 4,000 < 128,000). 100 tokens: the search starts at 128 ≥ 100
    /// pages, so chunk 128, one chunk; `split_kv = enable_cuda_graph || 128 < 100`: merged under the
    /// graph only.
    #[test]
    fn flashinfer_sglang_tensor_cores() {
        let s = load("rtx-4090-1x", "llama-3.1-8b", "sglang", "0.5.8", "");
        assert_eq!(s.engine.attention_backend.as_deref(), Some("flashinfer"));
        let l = layer(&s, Mixer::Attention);
        let fi = |seqs, ctx, graph| flashinfer(&attn(&s), &l, seqs, seqs, ctx, graph);
        let long = FiSplit {
            tensor_cores: true,
            chunks: 32,
            merge: true,
        };
        assert_eq!(fi(1, 128_000, true), Some(long));
        assert_eq!(fi(1, 128_000, false), Some(long));
        assert_eq!(fi(1, 100, true).map(|f| (f.chunks, f.merge)), Some((1, true)));
        assert_eq!(fi(1, 100, false).map(|f| (f.chunks, f.merge)), Some((1, false)));
        // 8 sequences of 128,000: 8 × cdiv(128,000, chunk) ≤ 32 → chunk 32,000, 4 chunks each.
        assert_eq!(fi(8, 128_000, false).map(|f| f.chunks), Some(4));
        assert_eq!(fi_chunk(8, 1, 128_000, 32, 128), 32_000);
        // A prefill pass: not a decode.
        assert!(flashinfer(&attn(&s), &l, 1, 2, 4096, true).is_none());
        // On the H100 the tensor-core path is FlashInfer's own FA3 kernel: left alone.
        let h = load(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "sglang",
            "0.5.8",
            "attention_backend = \"flashinfer\"",
        );
        assert!(flashinfer(&attn(&h), &l, 1, 1, 128_000, true).is_none());
    }

    /// vLLM 0.14.1 with FLASHINFER named on the RTX 4090: tensor cores always, 16-token blocks →
    /// 128,000 tokens are 8,000 pages, the least chunk ≥ 128 / 16 = 8 pages with cdiv(8,000, chunk) ≤
    /// 32 is 250 → 32 chunks. FLASH_ATTN (vLLM's own pick there) is not FlashInfer.
    #[test]
    fn flashinfer_vllm() {
        let s = load(
            "rtx-4090-1x",
            "llama-3.1-8b",
            "vllm",
            "0.14.1",
            "attention_backend = \"FLASHINFER\"",
        );
        let l = layer(&s, Mixer::Attention);
        let f = flashinfer(&attn(&s), &l, 1, 1, 128_000, true).expect("FlashInfer");
        assert_eq!((f.tensor_cores, f.chunks, f.merge), (true, 32, true));
        let fa = load("rtx-4090-1x", "llama-3.1-8b", "vllm", "0.14.1", "");
        assert!(flashinfer(&attn(&fa), &l, 1, 1, 128_000, true).is_none());
    }

    /// CodeLlama-7B (MHA: 32 KV heads, no group) under SGLang flashinfer takes the decode kernel
    /// (bf16, group 1 < 4). On the RTX 4090's 128 SMs: 1 × 32 < 128 → split under the graph; eager
    /// at 4,096 tokens (> 128 pages) 2 × 32 = 64 ≤ 128, so a chunk of cdiv(4,096, 2) fits and the
    /// KV splits; at 100 tokens (≤ 128 pages) not. 4 sequences × 32 = 128 ≥ 128 SMs: the decision
    /// needs the kernel's occupancy — not modelled.
    #[test]
    fn flashinfer_sglang_decode_kernel() {
        let s = load("rtx-4090-1x", "codellama-7b", "sglang", "0.5.8", "");
        let l = layer(&s, Mixer::Attention);
        let fi = |seqs, ctx, graph| flashinfer(&attn(&s), &l, seqs, seqs, ctx, graph).map(|f| f.merge);
        assert_eq!(fi(1, 100, true), Some(true));
        assert_eq!(fi(1, 4096, false), Some(true));
        assert_eq!(fi(1, 100, false), Some(false));
        assert_eq!(fi(4, 4096, true), None);
        assert!(
            !flashinfer(&attn(&s), &l, 1, 1, 100, true)
                .expect("fi")
                .tensor_cores
        );
    }

    /// FA2's eligibility rule: 64 tiles, 11 splits = 6 × 10 + 4, 12 splits would be 11 splits of 6
    /// (cdiv equal): 12 is skipped. With 4 CTAs on 24 slots the efficiency 4s / 24 reaches 1.0 at s
    /// = 6 (cdiv(64, 6) = 11 ≠ cdiv(64, 5) = 13: eligible); 85 % at s = 6 first (5 gives 0.833).
    #[test]
    fn fa2_heuristic_by_hand() {
        assert_eq!(fa2_heuristic(4, 24, 64), 6);
        assert_eq!(fa2_heuristic(20, 24, 64), 1);
    }
}
