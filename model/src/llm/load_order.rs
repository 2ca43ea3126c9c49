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
//! - int4 with group scales (`load_order::int4`). GPTQ checkpoints (`gptq_marlin.py`
//!   `GPTQMarlinLinearMethod.create_weights`; the int4 row at hand, line 36, logs "convertible to
//!   gptq_marlin"): `qweight` int32 `[in / 8, out]`, `g_idx` int32 `[in]`, `qzeros`
//!   `[in / group, out / 8]` int32 and `scales` `[in / group, out]` in the model dtype, the zeros
//!   created even for symmetric checkpoints. AWQ checkpoints (`awq_marlin.py`
//!   `AWQMarlinLinearMethod`): `qweight` `[in, out / 8]`, `qzeros`, `scales`, no `g_idx`; after
//!   loading they are converted to GPTQ's packing through large int32 temporaries. Both hand the
//!   layer to the kernel `choose_mp_linear_kernel` picks by the GPU ([`Int4Kernel::vllm`]):
//!   Machete on Hopper (SM 9.0; line 36's log: "Using MacheteLinearKernel for
//!   GPTQMarlinLinearMethod"), Marlin on every other GPU (Ampere, Ada, Blackwell). Machete
//!   (`kernels/linear/mixed_precision/machete.py`) repacks `qweight` through a transposed copy and
//!   keeps `g_idx` and the symmetric `qzeros` (held beyond the checkpoint: `LoadTensors::extra`);
//!   Marlin (`mixed_precision/marlin.py`) allocates a workspace of one int32 per SM, frees an unused
//!   `g_idx` and a symmetric `qzeros`, and repacks `qweight` and the scales into new tensors.
//!   Each layer's processing runs module by module once every weight is loaded.
//!
//! Other quantized formats (per-tensor and block fp8, nvfp4, mxfp4, quantized experts) are not
//! split: their bytes count as they are (not rounded).

mod int4;

pub use int4::{Int4Kernel, LoadGpu};

use super::ModelSpec;
use super::piece::{Fmt, Piece};
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

/// The tensors vLLM 0.19.0 creates for one quantized linear layer and what its
/// `process_weights_after_loading` does with them (see the module doc).
struct QuantTensors {
    /// Bytes of each tensor, in creation order.
    tensors: Vec<u64>,
    /// Bytes the layer's tensors hold after processing beyond the checkpoint's
    /// (`WeightFormat::tensor_bytes`).
    extra: u64,
    /// The layer's processing after every weight is loaded, on its own tensors.
    post: Vec<Post>,
}

/// One step of a layer's `process_weights_after_loading`. Tensors are numbered per layer: those
/// `create_weights` made (0, 1, …), then each `New` in turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Post {
    /// A tensor of this many bytes is allocated.
    New(u64),
    /// The layer's tensor of this number is freed.
    Drop(usize),
}

/// One quantized linear layer of `rows × cols` in format `f`; `None` when the format's split is not
/// modelled. int4 layers are processed by the kernel vLLM picks on `gpu`.
fn quant_tensors(f: &WeightFormat, rows: u64, cols: u64, gpu: &LoadGpu) -> Option<QuantTensors> {
    let plain_8bit = f.block_size.is_none() && f.per_channel && f.group_size.is_none();
    match f.dtype {
        WeightDtype::Fp8 | WeightDtype::Int8 if plain_8bit => {
            let weight = rows.saturating_mul(cols);
            let scale = f.tensor_bytes(rows, cols).saturating_sub(weight);
            Some(QuantTensors {
                tensors: vec![weight, scale],
                extra: 0,
                post: Vec::new(),
            })
        }
        WeightDtype::Int4 if f.group_size.is_some() && f.block_size.is_none() => {
            // `rows` output features, `cols` input features (a rank's share).
            let kernel = Int4Kernel::vllm(gpu, f.group_size.unwrap_or(0), f.zero_point, cols, rows)?;
            let packed = rows.saturating_mul(cols).div_ceil(2);
            let g = u64::from(f.group_size.unwrap_or(1).max(1));
            let groups = rows.saturating_mul(cols.div_ceil(g));
            let zeros = groups.div_ceil(2);
            let in_checkpoint_zeros = if f.zero_point { zeros } else { 0 };
            let scales = f
                .tensor_bytes(rows, cols)
                .saturating_sub(packed)
                .saturating_sub(in_checkpoint_zeros);
            // `marlin_make_workspace_new`: `torch.zeros(sms)` int32, one per layer's kernel.
            let workspace = u64::from(gpu.sm_count).saturating_mul(4);
            let s = Int4Sizes {
                packed,
                zeros,
                scales,
                workspace,
            };
            Some(if f.zero_point {
                int4::awq(&s, kernel, gpu.int4.awq_chooser)
            } else {
                int4::gptq(&s, cols.saturating_mul(4), kernel)
            })
        }
        _ => None,
    }
}

/// Issue #17 (onlinequant): one linear layer (or a stacked expert tensor, `cols` × the experts)
/// quantized to fp8 at load time (`llm::online_quant`), as vLLM 0.11.0 does it: `create_weights`
/// makes the `[out, in]` weight in the model dtype (`dtype_bytes` per element; tensor 0);
/// `process_weights_after_loading` runs `ops.scaled_fp8_quant`, which allocates the fp8 output
/// (1) and its fp32 scale (2), and the model-dtype weight is freed when `layer.weight` is replaced
/// (`Fp8MoEMethod` the same with `torch.empty_like(…, dtype=fp8)` for the stacked experts and one
/// scale per expert). The scales are counted at `f`'s size. On a GPU without fp8 tensor cores
/// `prepare_fp8_layer_for_marlin` then adds a workspace of one int32 per SM (`marlin_make_workspace_new`;
/// held beyond the checkpoint) and replaces the scale by per-channel ones in the model dtype;
/// the repack's own int32 copies of the weight (`pack_fp8_to_int32`, `gptq_marlin_repack`) are
/// not modelled.
fn online_fp8_tensors(
    f: &WeightFormat,
    rows: u64,
    cols: u64,
    dtype_bytes: u64,
    gpu: &LoadGpu,
) -> QuantTensors {
    let elems = rows.saturating_mul(cols);
    let scales = f.tensor_bytes(rows, cols).saturating_sub(elems);
    if super::online_quant::uses_marlin(gpu) {
        let workspace = u64::from(gpu.sm_count).saturating_mul(4);
        QuantTensors {
            tensors: vec![elems.saturating_mul(dtype_bytes)],
            extra: workspace,
            post: vec![
                Post::New(elems),
                Post::New(4),
                Post::Drop(0),
                Post::New(workspace),
                Post::New(scales),
                Post::Drop(2),
            ],
        }
    } else {
        QuantTensors {
            tensors: vec![elems.saturating_mul(dtype_bytes)],
            extra: 0,
            post: vec![Post::New(elems), Post::New(scales), Post::Drop(0)],
        }
    }
}

/// Runs one layer's processing `post` on its `created` tensors, the first at step `first`.
fn apply_post(out: &mut LoadTensors, first: usize, created: usize, post: Vec<Post>) {
    let mut ids: Vec<usize> = (first..first + created).collect();
    for step in post {
        match step {
            Post::New(b) => {
                ids.push(out.steps.len());
                out.steps.push(LoadStep::Alloc(b));
            }
            Post::Drop(i) => {
                if let Some(&at) = ids.get(i) {
                    out.steps.push(LoadStep::Free(at));
                }
            }
        }
    }
}

/// The sizes of one int4 group-quantized layer's tensors, bytes.
struct Int4Sizes {
    /// The packed weight (`qweight`, int32 holding 8 values).
    packed: u64,
    /// The packed zero points (`qzeros`, int32 `[in / group, out / 8]`).
    zeros: u64,
    /// The group scales (`[in / group, out]` in the model dtype).
    scales: u64,
    /// Marlin's workspace (`torch.zeros(sm_count)` int32).
    workspace: u64,
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
    /// The weight tensors one TP rank allocates while vLLM builds the model on `gpu` (see the
    /// module doc), with the RoPE cos/sin caches of `rope_bytes` each (none if empty;
    /// `dtype_bytes` = the model dtype's size) built after the first layer's attention. `tp = 0` is
    /// treated as 1.
    pub fn vllm_load_tensors(
        &self,
        tp: u32,
        rope_bytes: &[u64],
        dtype_bytes: u64,
        gpu: &LoadGpu,
    ) -> LoadTensors {
        self.load_tensors(tp, rope_bytes, (0, 4), dtype_bytes, gpu)
    }

    /// [`ModelSpec::vllm_load_tensors`] with, when `layer_rope.0` > 0, a RoPE cache of that many
    /// bytes in elements of `layer_rope.1` bytes (and its float32 temporaries) built in every layer
    /// right after its attention (grok52: SGLang's Grok, `llm::grok`).
    fn load_tensors(
        &self,
        tp: u32,
        rope_bytes: &[u64],
        layer_rope: (u64, u64),
        dtype_bytes: u64,
        gpu: &LoadGpu,
    ) -> LoadTensors {
        let inv = self.inventory(tp);
        let mut out = LoadTensors::default();
        // Each quantized layer's processing after loading: its tensors' step indices, its steps.
        let mut after: Vec<(usize, usize, Vec<Post>)> = Vec::new();
        // Issue #17 (onlinequant): layers materialized and quantized one by one after construction.
        let jit = self.quantization.online == Some(super::online_quant::OnlineLoad::JustInTime);
        let mut just_in_time: Vec<QuantTensors> = Vec::new();
        let mut push = |ps: &[Piece], times: u64, out: &mut LoadTensors| {
            for p in ps {
                let bytes = self.piece_bytes(p).saturating_mul(times);
                let f = self.format_of(p.fmt);
                let plain = (matches!(f.dtype, WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp32)
                    && f == WeightFormat::plain(f.dtype))
                    || matches!(p.fmt, Fmt::Byte);
                let split = (times == 1 && p.count == 1)
                    .then(|| quant_tensors(&f, p.rows, p.cols, gpu))
                    .flatten();
                // Issue #17 (onlinequant): quantized at load time from the model dtype.
                let online = (self.quantization.online.is_some()
                    && matches!(
                        p.fmt,
                        Fmt::Linear | Fmt::Dense | Fmt::Shared | Fmt::Expert | Fmt::MlaDown | Fmt::Proj(_)
                    )
                    && f.dtype == WeightDtype::Fp8)
                    .then(|| {
                        let cols = p.cols.saturating_mul(times).saturating_mul(p.count);
                        online_fp8_tensors(&f, p.rows, cols, dtype_bytes, gpu)
                    });
                if let Some(q) = online {
                    if jit {
                        just_in_time.push(q);
                    } else {
                        let first = out.steps.len();
                        out.steps.extend(q.tensors.iter().map(|&b| LoadStep::Alloc(b)));
                        out.extra = out.extra.saturating_add(q.extra);
                        after.push((first, q.tensors.len(), q.post));
                    }
                } else if plain {
                    out.steps.push(LoadStep::Alloc(bytes));
                } else if let Some(q) = split {
                    let first = out.steps.len();
                    out.steps.extend(q.tensors.iter().map(|&b| LoadStep::Alloc(b)));
                    out.extra = out.extra.saturating_add(q.extra);
                    if !q.post.is_empty() {
                        after.push((first, q.tensors.len(), q.post));
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
            if layer_rope.0 > 0 {
                rope_steps(&mut out.steps, layer_rope.0, layer_rope.1);
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
        // Just-in-time online quantization: each layer allocated in the model dtype as its weights
        // arrive (checkpoint order taken as construction order) and quantized at once.
        for q in just_in_time {
            let first = out.steps.len();
            out.steps.extend(q.tensors.iter().map(|&b| LoadStep::Alloc(b)));
            out.extra = out.extra.saturating_add(q.extra);
            apply_post(&mut out, first, q.tensors.len(), q.post);
        }
        // `process_weights_after_loading`, module by module once every weight is loaded
        // (`model_loader/utils.py`), in construction order.
        for (first, created, post) in after {
            apply_post(&mut out, first, created, post);
        }
        out
    }

    /// What PyTorch's caching allocator holds beyond the weights' own bytes after one rank's vLLM
    /// load on `gpu` (`crate::torch_alloc`), bytes: the steps of [`ModelSpec::vllm_load_tensors`] run in
    /// order, the live blocks minus the live tensors' sizes, plus the tensors' bytes beyond the
    /// checkpoint's (`LoadTensors::extra`).
    pub fn vllm_load_block_overhead(
        &self,
        tp: u32,
        rope_bytes: &[u64],
        dtype_bytes: u64,
        gpu: &LoadGpu,
    ) -> u64 {
        let r = self.vllm_load_replay(tp, rope_bytes, dtype_bytes, gpu);
        r.allocator.overhead().saturating_add(r.extra)
    }

    /// Issue #17 (onlinequant): the most the caching allocator holds at any step of one rank's vLLM
    /// load on `gpu` (allocated blocks, bytes), plus the unlisted quantized pieces. With weights
    /// quantized at load time (`--quantization fp8` on a bf16 checkpoint) this is the model-dtype
    /// weights plus one layer's fp8 copy: vLLM allocates every parameter first and quantizes
    /// module by module afterwards, so a rank needs the unquantized checkpoint's room to load.
    pub fn vllm_load_peak(&self, tp: u32, rope_bytes: &[u64], dtype_bytes: u64, gpu: &LoadGpu) -> u64 {
        let r = self.vllm_load_replay(tp, rope_bytes, dtype_bytes, gpu);
        r.peak.saturating_add(r.unlisted)
    }

    /// mem49 (issue #17 point 5): what SGLang's "Load weight end … mem usage" holds beyond the
    /// weights' and RoPE caches' own bytes on one TP rank, bytes: the tensors of
    /// [`ModelSpec::vllm_load_tensors`] (the same constructor order: SGLang's `DefaultModelLoader`
    /// also builds every parameter under the target device before reading a weight; the
    /// quantized pieces it does not list are left out) with the RoPE caches `rope_bytes` allocated
    /// last (each freeing its float32 temporaries when `rope_dtype_bytes` is below 4), counted as
    /// the segments torch keeps after `empty_cache`
    /// ([`crate::torch_alloc::CachingAllocator::reserved_after_empty_cache`]) minus the live
    /// tensors' bytes. `dtype_bytes` is the model dtype's size. grok52: Grok's per-layer caches
    /// (`ModelSpec::grok_layer_rope`) are taken as float32 (CUDA; see
    /// [`ModelSpec::sglang_load_segment_overhead_grok`]).
    pub fn sglang_load_segment_overhead(
        &self,
        tp: u32,
        rope_bytes: &[u64],
        rope_dtype_bytes: u64,
        dtype_bytes: u64,
        gpu: &LoadGpu,
    ) -> u64 {
        self.sglang_load_segment_overhead_grok(tp, rope_bytes, rope_dtype_bytes, dtype_bytes, 4, gpu)
    }

    /// [`ModelSpec::sglang_load_segment_overhead`] with Grok's per-layer caches of
    /// `layer_rope_elem` bytes an element (`rope_cache::grok_layer_rope_elem`), built inside each
    /// layer after its attention as `grok.py` does (float32 temporaries, cast when the element is
    /// narrower); their own bytes are not counted here (`rope_cache::layer_rope_tensors`).
    pub fn sglang_load_segment_overhead_grok(
        &self,
        tp: u32,
        rope_bytes: &[u64],
        rope_dtype_bytes: u64,
        dtype_bytes: u64,
        layer_rope_elem: u64,
        gpu: &LoadGpu,
    ) -> u64 {
        let layer_rope = crate::rope_cache::layer_rope_tensors(self, layer_rope_elem)
            .first()
            .copied()
            .unwrap_or(0);
        let mut t = self.load_tensors(tp, &[], (layer_rope, layer_rope_elem), dtype_bytes, gpu);
        for &r in rope_bytes {
            rope_steps(&mut t.steps, r, rope_dtype_bytes);
        }
        let (allocator, _) = replay_steps(t.steps);
        allocator
            .reserved_after_empty_cache()
            .saturating_sub(allocator.requested())
    }

    /// The steps of [`ModelSpec::vllm_load_tensors`] run in order through one caching allocator.
    fn vllm_load_replay(&self, tp: u32, rope_bytes: &[u64], dtype_bytes: u64, gpu: &LoadGpu) -> LoadReplay {
        let t = self.vllm_load_tensors(tp, rope_bytes, dtype_bytes, gpu);
        let (allocator, peak) = replay_steps(t.steps);
        LoadReplay {
            allocator,
            peak,
            extra: t.extra,
            unlisted: t.unlisted,
        }
    }
}

/// Runs `steps` in order through a fresh caching allocator (a `Free` step names the index of the
/// step that allocated its tensor and takes that step's place in the count); returns the allocator
/// after the last step and the most it held allocated after any step (bytes).
fn replay_steps(steps: Vec<LoadStep>) -> (crate::torch_alloc::CachingAllocator, u64) {
    let mut allocator = crate::torch_alloc::CachingAllocator::new();
    let mut live = Vec::new();
    let mut peak = 0u64;
    for step in steps {
        match step {
            LoadStep::Alloc(b) => live.push(Some(allocator.malloc(b))),
            LoadStep::Free(i) => {
                if let Some(t) = live.get_mut(i).and_then(Option::take) {
                    allocator.free(t);
                }
                live.push(None);
            }
        }
        peak = peak.max(allocator.allocated());
    }
    (allocator, peak)
}

/// One replayed vLLM load: the allocator after the last step, the most it held allocated at any step
/// (bytes), and the load's `extra` / `unlisted` bytes ([`LoadTensors`]).
struct LoadReplay {
    allocator: crate::torch_alloc::CachingAllocator,
    peak: u64,
    extra: u64,
    unlisted: u64,
}
