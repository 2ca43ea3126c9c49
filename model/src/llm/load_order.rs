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
//! A quantized linear layer is several tensors, which `WeightFormat::tensor_bytes` lumps together;
//! two formats are split as vLLM 0.19.0 creates them (`quant_tensors`):
//!
//! - fp8 / int8 with one scale per output channel (compressed-tensors `W8A8Fp8` and `W8A8Int8`,
//!   `strategy = "channel"`, dynamic activations): `weight` `[out, in]` of 1 B and `weight_scale`
//!   `[out, 1]` float32 (`compressed_tensors_w8a8_fp8.py` / `_int8.py` `create_weights`,
//!   `utils/fp8_utils.py` `create_fp8_weight_parameter`, `create_fp8_scale_parameter`). After
//!   loading both are kept: the weight is only transposed as a view (`process_weights_after_loading`,
//!   `kernels/linear/scaled_mm/cutlass.py`), so nothing is allocated again.
//! - int4 with group scales, as GPTQ checkpoints load (`gptq_marlin.py`
//!   `GPTQMarlinLinearMethod.create_weights`; the int4 row at hand, line 36, logs "convertible to
//!   gptq_marlin"): `qweight` int32 `[in / 8, out]`, `g_idx` int32 `[in]`, `scales`
//!   `[in / group, out]` in the model dtype and `qzeros` int32 `[in / group, out / 8]`, the last two
//!   created even for symmetric checkpoints. `g_idx` and a symmetric checkpoint's `qzeros` are held
//!   beyond the checkpoint's bytes (`LoadTensors::extra`). On Hopper the kernel is Machete (the log:
//!   "Using MacheteLinearKernel for GPTQMarlinLinearMethod"), whose `process_weights_after_loading`
//!   (`kernels/linear/mixed_precision/machete.py`), module by module once every weight is loaded,
//!   copies `qweight` transposed to a contiguous temporary (`x.data.t().contiguous()`), packs it
//!   into a new tensor of the same size (`machete_prepack_B`), frees the temporary when the call
//!   returns and the old `qweight` when the parameter is replaced; the scales are already
//!   `[in / group, out]`, so `.contiguous()` copies nothing; `g_idx` and `qzeros` stay. The replay
//!   is Machete's on every GPU: elsewhere vLLM takes Marlin (`mixed_precision/marlin.py`), which
//!   also swaps an unused `g_idx` for an empty tensor and repacks with its own kernels; that path
//!   is not modelled (no row checks it).
//!
//! Other quantized formats (per-tensor and block fp8, nvfp4, mxfp4, quantized experts) are not
//! split: their bytes count as they are (not rounded).

use super::ModelSpec;
use super::piece::Piece;
use super::quant::{WeightDtype, WeightFormat};

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
    /// Bytes the listed tensors hold beyond the checkpoint's (`g_idx`, a symmetric GPTQ layer's
    /// `qzeros`).
    pub extra: u64,
}

/// The tensors vLLM 0.19.0 creates for one quantized linear layer (see the module doc).
struct QuantTensors {
    /// Bytes of each tensor, in creation order.
    tensors: Vec<u64>,
    /// Bytes allocated beyond the checkpoint's (`WeightFormat::tensor_bytes`).
    extra: u64,
    /// Index (into `tensors`) of the packed weight Machete re-packs after loading.
    repack: Option<usize>,
}

/// One quantized linear layer of `rows × cols` in format `f`; `None` when the format's split is not
/// modelled.
fn quant_tensors(f: &WeightFormat, rows: u64, cols: u64) -> Option<QuantTensors> {
    let plain_8bit = f.block_size.is_none() && f.per_channel && f.group_size.is_none();
    match f.dtype {
        WeightDtype::Fp8 | WeightDtype::Int8 if plain_8bit => {
            let weight = rows.saturating_mul(cols);
            let scale = f.tensor_bytes(rows, cols).saturating_sub(weight);
            Some(QuantTensors {
                tensors: vec![weight, scale],
                extra: 0,
                repack: None,
            })
        }
        WeightDtype::Int4 if f.group_size.is_some() && f.block_size.is_none() => {
            let packed = rows.saturating_mul(cols).div_ceil(2);
            let g = u64::from(f.group_size.unwrap_or(1).max(1));
            let groups = rows.saturating_mul(cols.div_ceil(g));
            let zeros = groups.div_ceil(2);
            let in_checkpoint_zeros = if f.zero_point { zeros } else { 0 };
            let scales = f
                .tensor_bytes(rows, cols)
                .saturating_sub(packed)
                .saturating_sub(in_checkpoint_zeros);
            let g_idx = cols.saturating_mul(4);
            Some(QuantTensors {
                tensors: vec![packed, g_idx, scales, zeros],
                extra: g_idx.saturating_add(zeros - in_checkpoint_zeros),
                repack: Some(0),
            })
        }
        _ => None,
    }
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
        // Packed weights re-packed after loading: (step index of the old tensor, bytes).
        let mut repack: Vec<(usize, u64)> = Vec::new();
        let mut push = |ps: &[Piece], times: u64, out: &mut LoadTensors| {
            for p in ps {
                let bytes = self.piece_bytes(p).saturating_mul(times);
                let f = self.format_of(p.fmt);
                let plain = matches!(f.dtype, WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp32)
                    && f == WeightFormat::plain(f.dtype);
                let split = (times == 1 && p.count == 1)
                    .then(|| quant_tensors(&f, p.rows, p.cols))
                    .flatten();
                if plain {
                    out.steps.push(LoadStep::Alloc(bytes));
                } else if let Some(q) = split {
                    let first = out.steps.len();
                    out.steps.extend(q.tensors.iter().map(|&b| LoadStep::Alloc(b)));
                    out.extra = out.extra.saturating_add(q.extra);
                    if let Some(i) = q.repack {
                        repack.push((first + i, q.tensors[i]));
                    }
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
        // Machete's repacking, module by module once every weight is loaded: the transposed
        // contiguous copy, the packed result, the copy freed, then the old tensor.
        for (old, bytes) in repack {
            let copy = out.steps.len();
            out.steps.push(LoadStep::Alloc(bytes));
            out.steps.push(LoadStep::Alloc(bytes));
            out.steps.push(LoadStep::Free(copy));
            out.steps.push(LoadStep::Free(old));
        }
        out
    }

    /// What PyTorch's caching allocator holds beyond the weights' own bytes after one rank's vLLM
    /// load (`crate::torch_alloc`), bytes: the steps of [`ModelSpec::vllm_load_tensors`] run in
    /// order, the live blocks minus the live tensors' sizes, plus the tensors' bytes beyond the
    /// checkpoint's (`LoadTensors::extra`).
    pub fn vllm_load_block_overhead(&self, tp: u32, rope_bytes: &[u64], dtype_bytes: u64) -> u64 {
        let mut a = crate::torch_alloc::CachingAllocator::new();
        let mut live = Vec::new();
        let t = self.vllm_load_tensors(tp, rope_bytes, dtype_bytes);
        for step in t.steps {
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
        a.overhead().saturating_add(t.extra)
    }
}
