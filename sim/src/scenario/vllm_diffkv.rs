//! vllmnew53 (issue #17): MiMo-V2-Flash and Step-3.5-Flash (lowered onto it, `tpsim_model::llm::step3p5`)
//! under vLLM, by release. Read from the PyPI wheels (2026-12-06):
//!
//! - **0.14 – 0.19** (`models/mimo_v2_flash.py` of 0.15.1 … 0.19.0; grok52): V padded to the q/k width
//!   (`torch.nn.functional.pad(v, [0, head_dim - v_head_dim])`) before a plain `Attention`, so the page
//!   holds K and V of `head_dim` each (`tpsim_model::llm::mimo_v2::MimoV2Attention::vllm_layer_cell`).
//! - **0.20 on** (`models/mimo_v2_flash.py` 0.20.0, `models/mimo_v2.py` 0.21.0, 0.22.0, 0.25.1, 0.28.0,
//!   0.34.0): "Use DiffKV backend when V has a different head dim than K" — `Attention(…,
//!   head_size_v = v_head_dim)` and `FullAttentionSpec` / `SlidingWindowSpec` page
//!   block × kv heads × (head_size + head_size_v) × dtype (`v1/kv_cache_interface.py`
//!   `real_page_size_bytes`, 0.20.0 … 0.34.0): no padding.
//!   In 0.20.0 – 0.22.0 the backend is always `FlashAttentionDiffKVBackend`, whose impl is
//!   `FlashAttentionImpl`: with the sliding layers' attention sinks it asserts
//!   `flash_attn_supports_sinks()` (`v1/attention/backends/flash_attn.py` 0.20.0: "Sinks are only
//!   supported in FlashAttention 3"), which `fa_utils.py` grants for FA version 3 or 4 only — FA3 on
//!   SM 9.x, FA4 on SM 10.x where the wheel's `is_fa_version_supported(4)`, FA2 elsewhere
//!   (`get_flash_attn_version`). The engine cannot start on other GPUs. From 0.25.1 (0.25.1, 0.28.0,
//!   0.34.0 read) the layer falls back to `TRITON_ATTN_DIFFKV` where FA-DiffKV is not supported on the
//!   device, with the same page (`triton_attn_diffkv.py` `get_kv_cache_shape`: head_size +
//!   head_size_v). 0.23 and 0.24 are not on PyPI's wheels read here: tpsim takes 0.22's rule for them
//!   [assumed]. Whether the SM 10.x wheels ship FA4 is assumed (tpsim lets SM 10.x start).
//!
//! Step-3.5-Flash (`models/step3p5.py`, 0.15.1 … 0.34.0) keeps V at the q/k width (128): a plain
//! `Attention` with `per_layer_sliding_window` on its sliding layers, no sinks, so none of this
//! changes its page; vLLM serves it from 0.15.1 (`scenario::first_release`).

use tpsim_model::llm::ModelSpec;

/// The release as `[major, minor]` (`None` release: the newest, i.e. not before anything).
fn before(version: &str, min: [u64; 2]) -> bool {
    crate::engine_args_versions::release(version)
        .is_some_and(|r| [0, 1].map(|i| r.get(i).copied().unwrap_or(0)) < min)
}

/// Whether vLLM `version` pads V to the q/k width in MiMo-V2-Flash's KV cache (0.14 – 0.19, module doc).
pub(crate) fn pads_v(version: &str) -> bool {
    before(version, [0, 20])
}

/// vLLM's refusal of MiMo-V2-Flash on a GPU of `compute_capability` (`rocm`: an AMD GPU) under
/// `version`: 0.20 – 0.24 force FlashAttention-DiffKV, whose sinks need FA3 (SM 9.x) or FA4 (SM 10.x)
/// (module doc); on ROCm `get_flash_attn_version` returns `None` (0.20.0 `fa_utils.py`), so
/// `flash_attn_supports_sinks()` is false whatever the chip. The key and message, or `None`.
pub(crate) fn check(
    model: &ModelSpec,
    version: &str,
    compute_capability: &str,
    rocm: bool,
) -> Option<(&'static str, String)> {
    let a = model.mimo_v2?;
    // A layer kind on the DiffKV backend (V narrower than K) with sinks.
    let sink_diff_kv =
        (a.swa_sink && a.swa_v_head_dim != a.swa_head_dim) || (a.full_sink && a.v_head_dim != model.head_dim);
    let forced = !pads_v(version) && before(version, [0, 25]);
    let major = tpsim_model::hw::sm_major(compute_capability);
    if !(sink_diff_kv && forced) || (!rocm && (major == 9 || major == 10)) {
        return None;
    }
    Some((
        "engine.version",
        format!(
            "vLLM {version} cannot start MiMo-V2-Flash on this GPU (compute capability {compute_capability}{}): \
             its layers use FlashAttentionDiffKVBackend (V narrower than K), whose attention sinks assert \
             \"Sinks are only supported in FlashAttention 3\" (FA3 needs SM 9.x, FA4 SM 10.x on CUDA; FA2 or \
             none here) (use vLLM ≥ 0.25, which falls back to TRITON_ATTN_DIFFKV, or 0.14 – 0.19, or sglang \
             from 0.5.7)",
            if rocm { ", ROCm" } else { "" }
        ),
    ))
}

/// families40 (issue #17): the tp a fused `qkv_proj` checkpoint (`attention_projection_layout =
/// "fused_qkv"`, MiMo-V2.5-Pro: interleaved in `num_key_value_heads` = 8 chunks) loads at. SGLang 0.5.23
/// `models/mimo_v2.py` `load_mimo_v2_qkv_proj_weight` raises its ValueError when the chunk count is not
/// a multiple of the attention tp (tp 1, 2, 4, 8 load: each rank takes whole chunks, the same
/// `QKVParallelLinear` shard as a split checkpoint). vLLM 0.34.0 `models/mimo_v2.py`
/// `_fused_qkv_kv_chunk_rows` pads each chunk's K and V rows to whole 128-row scale blocks when a rank
/// owns several block-quantized chunks (tp below the chunk count): tpsim has not modelled that padding
/// or loads at other tp, so it takes vLLM at tp = the chunk count only. The key and message, or `None`.
pub(crate) fn fused_qkv(model: &ModelSpec, vllm: bool, tp: u64) -> Option<(&'static str, String)> {
    let chunks = model.mimo_v2?.fused_qkv_chunks;
    if chunks == 0 || tp == 0 {
        return None;
    }
    if !vllm && !chunks.is_multiple_of(tp) {
        return Some((
            "engine.tp",
            format!(
                "SGLang cannot load this checkpoint at tp {tp}: ValueError: MiMoV2 fused qkv_proj checkpoint is \
                 TP={chunks}-interleaved; got attention tp_size={tp} (use a tp dividing {chunks})"
            ),
        ));
    }
    if vllm && tp != chunks {
        return Some((
            "engine.tp",
            format!(
                "tpsim does not model vLLM loading a fused qkv_proj checkpoint (interleaved in {chunks} chunks) at \
                 tp {tp}: below {chunks} vLLM pads each chunk's K and V rows to whole scale blocks \
                 (models/mimo_v2.py _fused_qkv_kv_chunk_rows), not modelled (use tp {chunks}, or sglang)"
            ),
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pads_v_by_release() {
        // grok52's 0.14 – 0.19 pad; 0.20.0's mimo_v2_flash.py passes head_size_v instead.
        assert!(pads_v("0.19.1"));
        assert!(!pads_v("0.20.0"));
        assert!(!pads_v("0.34.0"));
        // The 0.25.1 wheel is the first read with the Triton fallback.
        assert!(before("0.24.0", [0, 25]));
        assert!(!before("0.25.1", [0, 25]));
    }
}
