//! c1llama18 (issue #18): the host launches of SGLang's decode step per decoder layer under
//! `--disable-cuda-graph` (eager decode) beyond the modelled kernels, read from the PyPI wheels as
//! pcglaunch18 read the extend (`passes::sgl_prefill_launch`).
//!
//! **What `launch_overhead` already covers.** `engines/sglang.toml` derives `launch_overhead` from
//! a GPT-2 decode step at batch 1 counted as one launch per modelled module (125 a step). That
//! step's attention module stores its new K/V (`mem_cache/memory_pool.py` `set_kv_buffer`) and its
//! bf16 linears quantize nothing. So a decode layer is charged here only what GPT-2's batch-1 step
//! did not launch; the KV store stays inside the attention module's launch, as
//! `layer_kernels::layer_store_kernels` says (a prefill charges it, since the GPT-2 prefill is
//! eager in both runs of the derivation and cancels).
//!
//! Read in the 0.5.5 wheel (`layers/attention/*_backend.py` `forward_decode`, `models/llama.py`,
//! `layers/quantization/fp8_utils.py`), the same in the 0.3.0 wheel (`layers/radix_attention.py`,
//! `layers/decode_attention.py`, September 2024):
//! - **Activation quantization** of a per-tensor / per-channel FP8 linear on an FP8 GPU
//!   (`apply_fp8_linear`: `static_quant_fp8` or `sglang_per_token_quant_fp8`, then
//!   `fp8_scaled_mm`), one per linear, at any batch: a GQA layer's `qkv_proj` and `o_proj`, a dense
//!   MLP's `gate_up_proj` and `down_proj` (`sgl_prefill_launch::per_tensor_fp8`).
//! - **The q copy.** `models/llama.py` passes q as a column slice of `qkv.split(...)`. FA3
//!   (`q.contiguous().view(...)` before `flash_attn_with_kvcache`), FlashInfer
//!   (`decode_wrapper.forward(q.contiguous()...)`) and `trtllm_mha` (`q.contiguous()` before
//!   `trtllm_batch_decode_with_kv_cache`) copy it when the step has more than one token: a
//!   `[1, q_size]` slice is already contiguous (PyTorch ignores the stride of a size-1 dimension),
//!   so a batch-1 step copies nothing. With an fp8 KV cache FA3 and `trtllm_mha` first cast q
//!   (`q.to(kv dtype)`), one kernel at any batch, after which `contiguous()` is a no-op. Triton
//!   reshapes q (`q.reshape(-1, heads × head_dim)`, a view). MLA passes `q_nope` and `q_rope`
//!   apart (FA3, FlashInfer, Triton): 0.
//! - **Triton's second decode kernel.** `decode_attention_fwd` runs `_fwd_kernel_stage1` (or its
//!   grouped form) and then `_fwd_kernel_stage2` (the softmax-reduce over the KV splits): two
//!   launches where the layer template counts one attention kernel. FA3 and FlashInfer launch
//!   one from Python (a split-KV combine inside their compiled code is not visible in the wheel
//!   and not counted).
//! - **`trtllm_mla`** (`trtllm_mla_backend.py`): beyond FA3's MLA decode, `forward_batch.seq_lens
//!   .to(torch.int32)` for the kernel (one cast each layer) and, with a bf16 cache,
//!   `concat_mla_absorb_q` of `q_nope` and `q_rope` (with fp8, `mla_rope_quantize_fp8` does the
//!   rope the model skips and the merge: no extra). Its extend of a fresh prompt (ragged
//!   `trtllm_ragged_attention_deepseek`) launches what FA3's does.

use crate::scenario::{EngineKind, Scenario};
use tpsim_model::llm::{Attention, KvCacheDtype, LayerWork, Mixer, ModelSpec};

fn softmax(l: &LayerWork) -> bool {
    l.attn_kernels > 0 && !matches!(l.mixer, Mixer::Linear | Mixer::Absent)
}

fn fp8_kv(model: &ModelSpec) -> bool {
    matches!(
        model.quantization.kv_cache_dtype,
        KvCacheDtype::Fp8E4m3 | KvCacheDtype::Fp8E5m2
    )
}

/// Launches an eager SGLang decode step of `tokens` tokens adds to layer `l`'s attention half and
/// FFN half beyond the modelled kernels (module doc).
pub(crate) fn eager_extra(s: &Scenario, model: &ModelSpec, l: &LayerWork, tokens: u32) -> (u32, u32) {
    if s.engine.kind != EngineKind::Sglang {
        return (0, 0);
    }
    let mla = matches!(model.attention, Attention::Mla { .. });
    let quant = super::sgl_prefill_launch::per_tensor_fp8(s, model) && !mla;
    let backend = s.engine.attention_backend.as_deref();
    let attn = if softmax(l) {
        let q = match (backend, mla) {
            (Some("trtllm_mla"), true) => 1 + u32::from(!fp8_kv(model)),
            (_, true) => 0,
            (Some("triton"), false) => 1,
            (Some("fa3" | "trtllm_mha"), false) if fp8_kv(model) => 1,
            (_, false) => u32::from(tokens > 1),
        };
        q + 2 * u32::from(quant)
    } else {
        0
    };
    let ffn = if l.ffn_kernels > 0 && !l.is_moe && quant {
        2
    } else {
        0
    };
    (attn, ffn)
}

/// mla49: the GPU work `trtllm_mla`'s decode adds to an MLA layer beyond the one attention kernel
/// of the template, in every launch mode (inside a captured graph too: `forward_decode` runs per
/// layer at capture; 0.5.6.post1 `layers/attention/trtllm_mla_backend.py`): the `seq_lens` cast to
/// int32 for `trtllm_batch_decode_with_kv_cache_mla` (reads `seqs` int64, writes int32: 12 B a
/// sequence) and, with a 16-bit cache, `_concat_mla_absorb_q_general` of `q_nope` [tokens, heads,
/// 512] and `q_rope` [tokens, heads, 64] into [tokens, heads, 576] (read and written, 2 B each:
/// tokens × heads × (kv_lora_rank + qk_rope_head_dim) × 4 B). (kernels, bytes); (0, 0) for another
/// backend, engine or attention, and for an extend (its ragged prefill launches what FA3's does).
/// `heads`: the query heads on a rank.
pub(crate) fn trtllm_mla_decode_gpu(
    s: &Scenario,
    model: &ModelSpec,
    heads: u64,
    tokens: u32,
    seqs: u32,
) -> (u32, f64) {
    let Attention::Mla {
        kv_lora_rank,
        qk_rope_head_dim,
        ..
    } = model.attention
    else {
        return (0, 0.0);
    };
    if s.engine.kind != EngineKind::Sglang || s.engine.attention_backend.as_deref() != Some("trtllm_mla") {
        return (0, 0.0);
    }
    let cast = 12.0 * f64::from(seqs);
    if fp8_kv(model) {
        (1, cast)
    } else {
        let concat = f64::from(tokens) * heads as f64 * (kv_lora_rank + qk_rope_head_dim) as f64 * 4.0;
        (2, cast + concat)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn load(hw: &str, model: &str, engine: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n\
             cuda_graph = false\n{engine}\n[workload]\nconcurrency = 1\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("sgl-decode-launch.toml")).expect("scenario")
    }

    /// Llama-3.1-8B `--quantization fp8` at TP 8 on H200 (FA3), 0.5.5, eager decode: tpsim's
    /// template 5 | 4 kernels and 2 allreduces; + 4 activation quantizations
    /// (`fp8_utils.py` `apply_fp8_linear` → `static_quant_fp8` / `sglang_per_token_quant_fp8`,
    /// one each in `qkv_proj`, `o_proj` | `gate_up_proj`, `down_proj`) = 2 | 2 at batch 1, where
    /// FA3's `q.contiguous()` (`flashattention_backend.py` `forward_decode`) copies nothing;
    /// 3 | 2 at batch 8 (a `[8, 512]` column slice of the `[8, 768]` qkv output is copied). A
    /// layer: 5 + 4 + 2 + 2 + 2 = 15 launches at batch 1, 16 at batch 8. bf16: 0 | 0 at batch 1.
    #[test]
    fn llama_fp8_tp8_decode_counts() {
        let s = load(
            "h200-8x-nvlink",
            "llama-3.1-8b",
            "version = \"0.5.5\"\ntp = 8\nquantization = \"fp8\"",
        );
        assert_eq!(s.engine.attention_backend.as_deref(), Some("fa3"));
        let l = s.model.forward_pass(8, 1).layers[0];
        assert_eq!((l.attn_kernels, l.ffn_kernels), (5, 4));
        assert_eq!(eager_extra(&s, &s.model, &l, 1), (2, 2));
        assert_eq!(l.attn_kernels + 2 + l.ffn_kernels + 2 + 2, 15);
        assert_eq!(eager_extra(&s, &s.model, &l, 8), (3, 2));
        let bf16 = load("h200-8x-nvlink", "llama-3.1-8b", "version = \"0.5.5\"\ntp = 8");
        assert_eq!(eager_extra(&bf16, &bf16.model, &l, 1), (0, 0));
        assert_eq!(eager_extra(&bf16, &bf16.model, &l, 8), (1, 0));
    }

    /// Triton's `decode_attention_fwd` launches stage 1 and stage 2 (0.5.5
    /// `triton_ops/decode_attention.py`; 0.3.0 `layers/decode_attention.py`): one more than the
    /// template at any batch, and q is a view (`q.reshape`): no copy. FlashInfer copies q only
    /// above batch 1.
    #[test]
    fn triton_and_flashinfer_decode() {
        let t = load(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "tp = 1\nattention_backend = \"triton\"",
        );
        let l = t.model.forward_pass(1, 1).layers[0];
        assert_eq!(eager_extra(&t, &t.model, &l, 1), (1, 0));
        assert_eq!(eager_extra(&t, &t.model, &l, 8), (1, 0));
        let f = load(
            "h100-sxm-1x",
            "llama-3.1-8b",
            "tp = 1\nattention_backend = \"flashinfer\"",
        );
        assert_eq!(eager_extra(&f, &f.model, &l, 1), (0, 0));
        assert_eq!(eager_extra(&f, &f.model, &l, 8), (1, 0));
    }

    /// MLA (DeepSeek-V3, block FP8: its quantizations are in the template): FA3 passes q_nope and
    /// q_rope apart, 0; `trtllm_mla` casts `seq_lens` to int32 and concatenates q (bf16 cache): 2.
    #[test]
    fn mla_decode() {
        let s = load("h200-8x-nvlink", "deepseek-v3", "tp = 8");
        let l = s.model.forward_pass(8, 1).layers[3];
        assert!(l.is_moe);
        assert_eq!(eager_extra(&s, &s.model, &l, 4), (0, 0));
        let t = load(
            "b200-8x-nvlink",
            "deepseek-v3",
            "tp = 8\nattention_backend = \"trtllm_mla\"",
        );
        assert_eq!(eager_extra(&t, &t.model, &l, 4), (2, 0));
    }

    /// mla49: `trtllm_mla`'s decode GPU work (`trtllm_mla_decode_gpu`) for DeepSeek-V3 at TP 8 on
    /// B200, SGLang 0.5.6.post1's own pick: 128 / 8 = 16 query heads a rank; 16 sequences of one
    /// token: the cast 12 × 16 = 192 B, the bf16 q concat 16 × 16 × (512 + 64) × 4 = 589,824 B: 2
    /// kernels, 590,016 B. An fp8 cache: the cast alone (1 kernel, 192 B). flashinfer: nothing.
    #[test]
    fn trtllm_mla_decode_gpu_work() {
        let t = load(
            "b200-8x-nvlink",
            "deepseek-v3",
            "version = \"0.5.6.post1\"\ntp = 8",
        );
        assert_eq!(t.engine.attention_backend.as_deref(), Some("trtllm_mla"));
        assert_eq!(trtllm_mla_decode_gpu(&t, &t.model, 16, 16, 16), (2, 590_016.0));
        let f8 = load(
            "b200-8x-nvlink",
            "deepseek-v3",
            "version = \"0.5.6.post1\"\ntp = 8\n[model.quantization]\nkv_cache_dtype = \"fp8_e4m3\"",
        );
        assert_eq!(trtllm_mla_decode_gpu(&f8, &f8.model, 16, 16, 16), (1, 192.0));
        let fi = load(
            "b200-8x-nvlink",
            "deepseek-v3",
            "version = \"0.5.6.post1\"\ntp = 8\nattention_backend = \"flashinfer\"",
        );
        assert_eq!(trtllm_mla_decode_gpu(&fi, &fi.model, 16, 16, 16), (0, 0.0));
    }
}
