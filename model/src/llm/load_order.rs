//! vrows4 (issue #17): the weight tensors one rank allocates while vLLM constructs the model, in
//! construction order, so that `crate::torch_alloc` can count them as PyTorch's caching allocator
//! does ("Model loading took X GiB" counts allocated blocks, not tensor bytes).
//!
//! Order (vLLM 0.19.0 `model_loader/base_loader.py` `load_model`: `initialize_model` under the
//! target device allocates every parameter with `torch.empty` before any weight is read;
//! `layers/linear.py` `UnquantizedLinearMethod.create_weights` makes one `[out, in]` tensor per
//! linear layer, merged `qkv_proj` and `gate_up_proj` included, and `process_weights_after_loading`
//! replaces nothing on CUDA; `fused_moe` stacks each expert tensor over the experts):
//! a vision tower and projector first (`models/gemma3_mm.py`, `kimi_vl.py`, `mistral3.py` build
//! them before the language model), then `embed_tokens`, each decoder layer's attention (qkv weight
//! and bias, o_proj; the shared RoPE cache right after the first layer's, `get_rope` being cached,
//! with its float32 temporaries, whose freed blocks later tensors are carved from),
//! its MLP or MoE block, its norms, the final norm and the untied `lm_head`
//! (`models/llama.py`, `models/qwen2.py`). Norms and biases are ≤ 1 MiB: the small pool, where
//! order does not matter.
//!
//! Only unquantized tensors (bf16, fp16, fp32) are listed: a quantized linear layer is several
//! tensors (packed weight, scales, zero points, some repacked after loading) whose shapes
//! `WeightFormat::tensor_bytes` lumps together; their bytes count as they are (not rounded).

use super::ModelSpec;
use super::piece::Piece;
use super::quant::WeightDtype;

/// One step of a rank's model construction, as the caching allocator sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LoadStep {
    /// A tensor of this many bytes is allocated (and kept unless a later step frees it).
    Alloc(u64),
    /// The tensor allocated by the step at this index is freed.
    Free(usize),
}

/// One rank's weight tensors as vLLM allocates them.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct LoadTensors {
    /// Unquantized tensors and the RoPE cache's temporaries, in order.
    pub steps: Vec<LoadStep>,
    /// Bytes of quantized pieces, not listed (their tensor split is not modelled).
    pub unlisted: u64,
}

/// The RoPE cos/sin cache as vLLM 0.19.0 builds it (`layers/rotary_embedding/base.py`
/// `RotaryEmbeddingBase.__init__`, `_compute_cos_sin_cache`; the linear-scaled and Llama-3 variants
/// only change `t` or `inv_freq`): float32 `freqs = t ⊗ inv_freq` `[P, d/2]`, `cos`, `sin`,
/// `cache = cat(cos, sin)` `[P, d]`; the three halves are freed on return, then `cache.to(dtype)`
/// is kept and the float32 cache freed (in float32 `.to` returns the cache itself).
/// `cache_bytes` = `P × d × dtype_bytes`.
fn rope_steps(steps: &mut Vec<LoadStep>, cache_bytes: u64, dtype_bytes: u64) {
    let half = cache_bytes / dtype_bytes.max(1) * 2; // [P, d/2] float32
    let first = steps.len();
    for b in [half, half, half, 2 * half] {
        steps.push(LoadStep::Alloc(b));
    }
    for i in 0..3 {
        steps.push(LoadStep::Free(first + i));
    }
    if dtype_bytes != 4 {
        steps.push(LoadStep::Alloc(cache_bytes));
        steps.push(LoadStep::Free(first + 3));
    }
}

impl ModelSpec {
    /// The weight tensors one TP rank allocates while vLLM builds the model (see the module doc),
    /// with the RoPE cos/sin caches of `rope_bytes` each (none if empty; `dtype_bytes` = the model
    /// dtype's size) built after the first layer's attention. `tp = 0` is treated as 1.
    pub fn vllm_load_tensors(&self, tp: u32, rope_bytes: &[u64], dtype_bytes: u64) -> LoadTensors {
        let inv = self.inventory(tp);
        let mut out = LoadTensors::default();
        let push = |ps: &[Piece], times: u64, out: &mut LoadTensors| {
            for p in ps {
                let bytes = self.piece_bytes(p).saturating_mul(times);
                let f = self.format_of(p.fmt);
                let plain = matches!(f.dtype, WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp32)
                    && f == super::quant::WeightFormat::plain(f.dtype);
                if plain {
                    out.steps.push(LoadStep::Alloc(bytes));
                } else {
                    out.unlisted = out.unlisted.saturating_add(bytes);
                }
            }
        };
        push(&inv.vision, 1, &mut out);
        push(&inv.embed, 1, &mut out);
        for (i, l) in inv.layers.iter().enumerate() {
            push(&l.attn, 1, &mut out);
            if i == 0 {
                for &r in rope_bytes {
                    rope_steps(&mut out.steps, r, dtype_bytes);
                }
            }
            push(&l.ffn.dense, 1, &mut out);
            push(&l.ffn.router, 1, &mut out);
            // FusedMoE: one `[E, 2I, H]` and one `[E, H, I]` tensor for all the rank's experts.
            push(&l.ffn.expert, l.ffn.n_experts, &mut out);
            push(&l.ffn.shared, 1, &mut out);
        }
        push(&inv.final_norm, 1, &mut out);
        push(&inv.lm_head, 1, &mut out);
        push(&inv.draft_fc, 1, &mut out);
        out
    }

    /// What PyTorch's caching allocator holds beyond the weights' own bytes after one rank's vLLM
    /// load (`crate::torch_alloc`), bytes: the steps of [`ModelSpec::vllm_load_tensors`] run in
    /// order, the live blocks minus the live tensors' sizes.
    pub fn vllm_load_block_overhead(&self, tp: u32, rope_bytes: &[u64], dtype_bytes: u64) -> u64 {
        let mut a = crate::torch_alloc::CachingAllocator::new();
        let mut live = Vec::new();
        for step in self.vllm_load_tensors(tp, rope_bytes, dtype_bytes).steps {
            match step {
                LoadStep::Alloc(b) => live.push(Some(a.malloc(b))),
                LoadStep::Free(i) => {
                    if let Some(t) = live.get_mut(i).and_then(Option::take) {
                        a.free(t);
                    }
                    live.push(None);
                }
            }
        }
        a.overhead()
    }
}
