//! tritonsplit54 (issue #18): SGLang's Triton decode attention as it runs — the KV splits of its
//! stage-1 kernel, the per-split partial outputs the stage-2 reduce re-reads, the second kernel, the
//! grid against the GPU's SMs / CUs and the KV tiles the busiest program walks in series. longctx18
//! did this for vLLM's TRITON_ATTN (`passes::triton_split`), whose latency floor this reuses.
//!
//! What the releases do (read in the 0.5.7, 0.5.8 and 0.5.13 wheels, `srt/layers/attention/
//! triton_backend.py` (`TritonAttnBackend.__init__`, `get_num_kv_splits`, `init_forward_metadata`,
//! `get_num_kv_splits_triton` — moved to `triton_ops/metadata.py` in 0.5.13, unchanged) and
//! `triton_ops/decode_attention.py` (`decode_attention_fwd`, `_decode_att_m_fwd`,
//! `_decode_grouped_att_m_fwd`, `_decode_softmax_reducev_fwd`); the markers below grepped in 0.4.4.post4,
//! 0.4.5, 0.4.6, 0.4.9, 0.5.3, 0.5.12 and 0.5.14 too):
//! - `max_kv_splits = server_args.triton_attention_num_kv_splits`: 8, set to 16 by
//!   `_handle_amd_specifics` when `is_hip()` (`server_args.py`, 0.4.6 – 0.5.13). 0.5.12+: an MLA model
//!   raises it to `max(base, min(next_pow2(SMs), next_pow2(cdiv(context_len, 32))))`
//!   (`_mla_decode_kv_splits_cap`), 0.5.13+ capped at 256 on gfx942.
//! - The split count per sequence (`get_num_kv_splits_triton`, unless
//!   `SGLANG_TRITON_DECODE_ATTN_STATIC_KV_SPLITS` — not read by tpsim's `[engine.env]`, so the
//!   default dynamic rule — or deterministic inference): with every sequence of one length `L` (a
//!   tpsim pass) the first term is 1 split; the second is `min(cdiv(ext, token_grid), max_kv_splits)`
//!   with `ext = int(SMs × max(log2(L / 64), 1))` and `token_grid = seqs × cdiv(heads, min(16,
//!   heads / kv_heads))` (grouped) or `seqs × heads` (MHA), and the count is `cdiv(L, cdiv(L, that))`.
//!   A sliding layer's count is taken on `min(L, window)` (`update_sliding_window_buffer`).
//! - Stage 1 (`_fwd_grouped_kernel_stage1`, or `_fwd_kernel_stage1` for MHA) runs the grid `(seqs,
//!   head programs, max_kv_splits)`; a program whose split is past the sequence's count exits.
//!   Each split covers `cdiv(cdiv(L, splits), 32) × 32` tokens (`MIN_BLOCK_KV` 32) in tiles of
//!   `BLOCK_N`: grouped 32 (16 on HIP when the key is ≥ 576 wide, MLA), MHA 64 (8 on HIP). Each
//!   tile loads its token indices and then the K and V they address, in one loop body (HIP:
//!   `num_stages = 1`): one device-memory round trip a tile at least, as in `passes::triton_split`.
//!   It writes fp32 `Att_Out` (`v_head_dim`) and `Att_Lse` (1) per sequence, head and split.
//! - Stage 2 (`_fwd_kernel_stage2`, grid `(seqs, heads)`) re-reads those partials for the splits
//!   that ran and writes the output: a second kernel in every layer.
//!
//! The cost (`passes::attention_time`): the partials, `seqs × heads × splits × (v_head_dim + 1) × 4`
//! bytes, are written by stage 1 beside its KV read (in the attention op) and read by stage 2, costed
//! as its own memory-bound kernel (the default class at those bytes plus the output it writes, and
//! the per-kernel cost; its host launch in eager mode was already `sgl_decode_launch`'s), apart from
//! the attention op like `quant_time` so that it does not dilute that op's per-kernel curve lookup
//! (the template's one attention kernel stands for stage 1); the busiest program's tiles × `dram_latency_ns` is a floor on the KV part,
//! where the GPU has a latency figure (`triton_split::latency_floor`). The grid is reported as
//! programs against SMs: with more programs than SMs the floor could bind several times over, but no
//! sourced occupancy (programs resident per SM / CU) is known, so one wave is assumed (a lower bound).
//!
//! Applied to SGLang 0.4.4 – 0.5.14 with the `triton` attention backend (named or SGLang's default for
//! the GPU, `scenario::attention_backend`), decode passes (one query token a sequence) of full and
//! sliding layers, GQA/MHA and MLA. 0.5.15 changed `decode_attention.py` and 0.5.16+ moved it
//! (`sglang/kernels/ops/attention/`): not read, nothing applied. Each layer runs its own heads and
//! widths (a model with two attention kinds, `llm::mimo_v2`, its sliding kind's); `v_head_dim` is
//! `kv_lora_rank` under MLA. The split count is taken on the layer's own query heads per KV head,
//! where SGLang's `get_num_kv_splits` takes the backend's one `num_kv_head` for every layer (the
//! config's `num_key_value_heads`): for a model with two kinds the count of the kind that differs is
//! an approximation.

use super::decode_attn::{DecodeAttn, decode_layer};
use super::triton_split;
use crate::scenario::accel::GpuVendor;
use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{Attention, LayerWork};
use tpsim_model::units::Duration;

/// `MIN_BLOCK_KV` / `_MIN_BLOCK_KV` (`triton_ops/decode_attention.py`, 0.4.4.post4 – 0.5.14): a
/// split's length is a multiple of it.
const MIN_BLOCK_KV: u64 = 32;

/// `BLOCK_H` of the grouped stage-1 kernel and `block_h` of `get_num_kv_splits_triton`.
const BLOCK_H: u64 = 16;

/// One layer's split-KV decode under SGLang's Triton backend (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct SglSplit {
    /// `max_kv_splits`: the grid's third dimension.
    pub max_splits: u64,
    /// KV splits each sequence runs (`get_num_kv_splits_triton`).
    pub splits: u64,
    /// Stage-1 programs that run (seqs × head programs × splits).
    pub programs: u64,
    /// KV tiles the busiest program walks in series.
    pub tiles: u64,
    /// Partial-output bytes stage 1 writes and stage 2 reads (each once): `seqs × heads × splits ×
    /// (v_head_dim + 1) × 4`.
    pub partial_bytes: u64,
    /// The output stage 2 writes: `seqs × heads × v_head_dim × 2` (bf16/fp16 `o`).
    pub out_bytes: u64,
}

impl SglSplit {
    /// Bytes the stage-2 kernel moves: the partials it reads and the output it writes.
    pub fn stage2_bytes(&self) -> u64 {
        self.partial_bytes + self.out_bytes
    }
}

/// The release as (major, minor, patch) when it is one SGLang's split rule was read in.
fn release(s: &Scenario) -> Option<(u32, u32, u32)> {
    let (a, b, c, _) = tpsim_model::sglang_fraction_early::release_post(&s.engine.release().version)?;
    let v = (a, b, c);
    ((0, 4, 4)..=(0, 5, 14)).contains(&v).then_some(v)
}

/// `get_num_kv_splits_triton` for `seqs` sequences all of length `len` (module doc).
fn dynamic_splits(len: u64, seqs: u64, heads: u64, group: u64, max_splits: u64, sms: u64) -> u64 {
    if sms == 0 {
        // `device_core_count <= 0`: every sequence takes `max_kv_splits`.
        return max_splits;
    }
    // `tl.cast(max_seq_len, tl.float32) / 64.0`, `tl.maximum(tl.log2(...), 1.0)`, cast to int32.
    let ext_len = len as f32 / 64.0;
    let ext = (sms as f32 * ext_len.log2().max(1.0)) as u64;
    let token_grid = if group == 1 {
        seqs * heads
    } else {
        seqs * heads.div_ceil(BLOCK_H.min(group))
    };
    let max2 = ext.div_ceil(token_grid.max(1)).min(max_splits).max(1);
    let chunk = len.div_ceil(max2);
    // Uniform lengths: the first term `cdiv(len, cdiv(len, 1))` is 1.
    len.div_ceil(chunk.max(1)).max(1)
}

/// SGLang's Triton split-KV decode of layer `l` in a pass of `seqs` sequences, `tokens` query
/// tokens and context `ctx`; `None` off that backend, release or pass (module doc).
pub(super) fn split(a: &DecodeAttn, l: &LayerWork, seqs: u32, tokens: u32, ctx: u32) -> Option<SglSplit> {
    let s = a.s;
    if s.engine.kind != EngineKind::Sglang || s.engine.attention_backend.as_deref() != Some("triton") {
        return None;
    }
    let v = release(s)?;
    let sliding = decode_layer(l, seqs, tokens, ctx)?;
    let hip = s.hardware.accel.vendor == GpuVendor::Amd;
    let sms = u64::from(s.hardware.gpu.sm_count);
    let tp = u64::from(crate::decode::dp_attention::attention_tp(&s.engine).max(1));
    // Heads a rank runs, the query heads a KV head serves, the key and value widths.
    let (heads, group, lk, lv, mla) = match a.model.attention {
        Attention::Mla {
            kv_lora_rank,
            qk_rope_head_dim,
            ..
        } => {
            let h = (a.model.heads / tp).max(1);
            (h, h, kv_lora_rank + qk_rope_head_dim, kv_lora_rank, true)
        }
        Attention::Gqa { .. } => match (sliding, a.model.mimo_v2) {
            // Two attention kinds (`llm::mimo_v2`: MiMo-V2-Flash, Step-3.5, Gemma 4): a sliding
            // layer runs its own heads and widths (0.5.13 `TritonAttnBackend.__init__`: a second
            // partials buffer of `swa_v_head_dim` for the sliding layers).
            (true, Some(m)) => {
                let h = (m.swa_heads / tp).max(1);
                let kv = (m.swa_kv_heads / tp).max(1);
                (h, (h / kv).max(1), m.swa_head_dim, m.swa_v_head_dim, false)
            }
            (false, Some(m)) => (
                a.kv_heads * a.group,
                a.group,
                a.model.head_dim,
                m.v_head_dim,
                false,
            ),
            (_, None) => (
                a.kv_heads * a.group,
                a.group,
                a.model.head_dim,
                a.model.head_dim,
                false,
            ),
        },
    };
    let base = if hip { 16 } else { 8 };
    let max_splits = if mla && v >= (0, 5, 12) && sms > 0 {
        let ctx_cap = s.engine.context_len.div_ceil(MIN_BLOCK_KV).next_power_of_two();
        let m = base.max(sms.next_power_of_two().min(ctx_cap));
        if hip && v >= (0, 5, 13) { m.min(256) } else { m }
    } else {
        base
    };
    let len = match (sliding, l.kv_window) {
        (true, Some(w)) => u64::from(ctx).min(w),
        _ => u64::from(ctx),
    };
    let seqs = u64::from(seqs);
    let splits = dynamic_splits(len, seqs, heads, group, max_splits, sms);
    let head_programs = if group == 1 {
        heads
    } else {
        heads.div_ceil(BLOCK_H.min(group))
    };
    let block_n = match (group == 1, hip) {
        (true, false) => 64,
        (true, true) => 8,
        (false, true) if lk >= 576 => 16,
        (false, _) => 32,
    };
    let per_split = len.div_ceil(splits).div_ceil(MIN_BLOCK_KV) * MIN_BLOCK_KV;
    Some(SglSplit {
        max_splits,
        splits,
        programs: seqs * head_programs * splits,
        tiles: per_split.min(len).div_ceil(block_n),
        partial_bytes: seqs * heads * splits * (lv + 1) * 4,
        out_bytes: seqs * heads * lv * 2,
    })
}

/// The least time the stage-1 kernel takes to walk its busiest program's tiles (the GPU's
/// device-memory latency a tile, `triton_split::latency_floor`); `None` without a latency figure.
pub(super) fn latency_floor(s: &Scenario, sp: SglSplit) -> Option<Duration> {
    triton_split::latency_floor(
        s,
        triton_split::Split {
            tiles: sp.tiles,
            full_context: false,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;
    use tpsim_model::llm::Mixer;

    /// `model` on one GPU of `hw` under SGLang `version` at `tp` with extra `[engine]` lines.
    fn load(hw: &str, model: &str, version: &str, tp: u32, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n\
             version = \"{version}\"\ntp = {tp}\n{extra}\n[workload]\nconcurrency = 1\nprompt_len = 1024\n\
             output_len = 16\n"
        );
        load_str(&text, Path::new("sgl-triton-split.toml")).expect("scenario")
    }

    /// The first layer of `s`'s model whose mixer is `m`.
    fn layer(s: &Scenario, m: Mixer) -> LayerWork {
        let fp = s.model.forward_pass(s.engine.tp, 1);
        *fp.layers.iter().find(|l| l.mixer == m).expect("layer")
    }

    /// Gemma 4 31B on one MI300X (SGLang's default there: triton; `max_kv_splits` 16 on HIP, 304
    /// CUs), 16 sequences at context 1,030. Sliding layer (32 heads, 16 KV heads, head 256, window
    /// 1,024): 5 splits (the integration test's arithmetic), each cdiv(cdiv(1024, 5), 32) × 32 = 224
    /// tokens = 7 tiles of 32; 16 × cdiv(32, 2) × 5 = 1,280 programs (4.2 × the CUs); partials 16 ×
    /// 32 × 5 × 257 × 4 = 2,631,680 B. Full layer (4 KV heads, head 512, group 8): 16 splits of
    /// cdiv(cdiv(1030, 16) = 65, 32) × 32 = 96 tokens = 3 tiles; 16 × 4 × 16 = 1,024 programs.
    /// Under 0.5.15 (not read) or another backend: nothing.
    #[test]
    fn gemma4_on_mi300x_by_hand() {
        let s = load("mi300x-8x-xgmi", "gemma-4-31b-it", "0.5.13", 1, "");
        assert_eq!(s.engine.attention_backend.as_deref(), Some("triton"));
        let a = DecodeAttn::new(&s, &s.model);
        let slide = layer(&s, Mixer::SlidingAttention);
        let full = layer(&s, Mixer::Attention);
        let sp = split(&a, &slide, 16, 16, 1030).expect("split");
        assert_eq!(
            sp,
            SglSplit {
                max_splits: 16,
                splits: 5,
                programs: 1_280,
                tiles: 7,
                partial_bytes: 2_631_680,
                out_bytes: 262_144,
            }
        );
        let fp = split(&a, &full, 16, 16, 1030).expect("split");
        assert_eq!((fp.splits, fp.tiles, fp.programs), (16, 3, 1_024));
        assert_eq!(fp.partial_bytes, 16 * 32 * 16 * 513 * 4);
        // A prefill or mixed pass: none.
        assert_eq!(split(&a, &slide, 16, 32, 1030), None);
        let later = load("mi300x-8x-xgmi", "gemma-4-31b-it", "0.5.15", 1, "");
        assert_eq!(
            split(&DecodeAttn::new(&later, &later.model), &slide, 16, 16, 1030),
            None
        );
    }

    /// Llama-3.1-8B on one H100 (132 SMs, `max_kv_splits` 8, 353.5 ns a round trip), batch 1 at
    /// 32,768 tokens: 8 splits of 4,096 tokens, 128 tiles of 32 → floor 128 × 353.5 = 45.248 µs.
    /// MHA never arises here; FA3 (the H100 default) is not this backend: nothing.
    #[test]
    fn llama_8b_h100_tiles_and_floor() {
        let s = load(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "0.5.8",
            1,
            "attention_backend = \"triton\"",
        );
        let a = DecodeAttn::new(&s, &s.model);
        let l = layer(&s, Mixer::Attention);
        let sp = split(&a, &l, 1, 1, 32_768).expect("split");
        assert_eq!((sp.max_splits, sp.splits, sp.tiles, sp.programs), (8, 8, 128, 64));
        assert_eq!(latency_floor(&s, sp), Some(Duration::from_ps(45_248_000)));
        let fa3 = load("h100-sxm-1x", "llama-3.1-8b", "0.5.8", 1, "");
        assert_eq!(split(&DecodeAttn::new(&fa3, &fa3.model), &l, 1, 1, 32_768), None);
    }

    /// MLA (DeepSeek-V3, 128 heads, kv_lora_rank 512 + rope 64, one latent head): 0.5.8 keeps
    /// `max_kv_splits` 8; 0.5.12's `_mla_decode_kv_splits_cap` on a B200 (148 SMs): max(8,
    /// min(next_pow2(148) = 256, next_pow2(cdiv(163,840, 32) = 5,120) = 8,192)) = 256. At TP 8, 16
    /// heads a rank, one sequence at 4,096: ext = 148 × log2(64) = 888, token_grid = 1 × cdiv(16, 16)
    /// = 1 → 888 → 8 (0.5.8) or 256 (0.5.12) → chunk 16 → 256 splits; partials 16 × 256 × 513 × 4.
    #[test]
    fn mla_split_cap_by_release() {
        let extra = "attention_backend = \"triton\"";
        let old = load("b200-8x-nvlink", "deepseek-v3", "0.5.8", 8, extra);
        let l = layer(&old, Mixer::Attention);
        let o = split(&DecodeAttn::new(&old, &old.model), &l, 1, 1, 4096).expect("split");
        assert_eq!((o.max_splits, o.splits), (8, 8));
        let new = load("b200-8x-nvlink", "deepseek-v3", "0.5.12", 8, extra);
        let n = split(&DecodeAttn::new(&new, &new.model), &l, 1, 1, 4096).expect("split");
        assert_eq!((n.max_splits, n.splits, n.tiles), (256, 256, 1));
        assert_eq!(n.partial_bytes, 16 * 256 * 513 * 4);
    }

    /// `get_num_kv_splits_triton` by hand. 304 CUs, L = 1,024: ext = 304 × log2(16) = 1,216.
    /// 32 heads of 2 a KV head, 16 sequences: token_grid 16 × cdiv(32, 2) = 256 → cdiv(1216, 256) =
    /// 5 → chunk cdiv(1024, 5) = 205 → cdiv(1024, 205) = 5. One sequence: 76 → max 16. L = 64:
    /// log2(1) = 0 → 1.0 → ext 304; 16 sequences → cdiv(304, 256) = 2 splits. No SMs: max.
    #[test]
    fn split_count_by_hand() {
        assert_eq!(dynamic_splits(1024, 16, 32, 2, 16, 304), 5);
        assert_eq!(dynamic_splits(1024, 1, 32, 2, 16, 304), 16);
        assert_eq!(dynamic_splits(64, 16, 32, 2, 16, 304), 2);
        assert_eq!(dynamic_splits(1024, 16, 32, 2, 8, 0), 8);
        // MHA (group 1): token_grid = seqs × heads = 64 × 32 = 2,048 > 1,216 → 1 split.
        assert_eq!(dynamic_splits(1024, 64, 32, 1, 16, 304), 1);
    }
}
