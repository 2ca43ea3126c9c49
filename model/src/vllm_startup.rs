//! vLLM v1's start-up memory, predicted from a scenario (issue #17 point 5): the parts that
//! `determine_available_memory` subtracts from `total × gpu_memory_utilization` before the KV cache.
//!
//! vLLM 0.11.0 `v1/worker/gpu_worker.py`: `init_device` initialises the distributed environment
//! (NCCL communicators, custom-allreduce buffers) *before* taking `init_snapshot = MemorySnapshot()`,
//! and sets `requested_memory = init_snapshot.total_memory × gpu_memory_utilization`;
//! `determine_available_memory` runs `profile_run` inside `utils.memory_profiling(init_snapshot,
//! weights_memory)` and returns `requested_memory − non_kv_cache_memory`, where
//! `non_kv_cache_memory = weights_memory + torch_peak_increase + non_torch_increase`
//! (`utils/__init__.py` `memory_profiling`). `MemorySnapshot.measure` reads `total_memory` from
//! `torch.cuda.mem_get_info()` — the CUDA driver's total, below nvidia-smi's `memory.total` by the
//! driver's reserve — so the total is a GPU figure of its own (`GpuSpec::torch_total_gib`).
//!
//! The three parts, each from its own rule:
//! - weights: the checkpoint's bytes per rank plus the RoPE cos/sin caches built while loading
//!   ([`rope_cache_bytes`]);
//! - peak activation (`torch_peak_increase`): the largest of the profile run's tensors alive at once
//!   ([`peak_activation`]);
//! - non-torch growth (`non_torch_increase`: memory outside torch's allocator that appears between the
//!   snapshot and the end of the profile run; [`non_torch_growth`]).
//!
//! Where no code-derived rule exists the coefficient is a parameter of `scenarios/engines/vllm.toml`
//! (`[engine.vllm_startup]`), fitted to named rows with the command that refits it.

use crate::units::Bytes;

const GIB: f64 = (1u64 << 30) as f64;

/// vLLM's default scheduler shape (`max_num_batched_tokens`, `max_num_seqs`) for the OpenAI server:
/// vLLM 0.11.0 `engine/arg_utils.py` `EngineArgs._set_default_args`: GPUs with ≥ 70 GiB of total
/// memory whose name does not contain "a100" get 8,192 tokens and 1,024 sequences, others 2,048 and
/// 256; `max_num_seqs` is then capped at `max_num_batched_tokens`. `total_gib` is
/// `get_device_total_memory()` (torch's total).
pub fn default_batch_shape(total_gib: f64, gpu_name: &str) -> (u64, u64) {
    if total_gib >= 70.0 && !gpu_name.to_lowercase().contains("a100") {
        (8_192, 1_024)
    } else {
        (2_048, 256)
    }
}

/// The fitted coefficients of the profile run (`[engine.vllm_startup]` of `engines/vllm.toml`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StartupParams {
    /// Activation present whatever the model (the sampler's small tensors, the dummy batch's
    /// metadata), GiB.
    pub activation_base_gib: f64,
    /// Bytes per logit element of the dummy sampler run at its peak (the logits in the model dtype,
    /// their float32 copy and the sampler's intermediates).
    pub sampler_bytes_per_logit: f64,
    /// Non-torch growth of a single-GPU profile run (kernel images loaded on first launch), GiB.
    pub non_torch_base_gib: f64,
    /// Extra non-torch growth when the tensor-parallel group has more than one rank (NCCL's buffers,
    /// connected on the group's first collective), GiB.
    pub non_torch_comm_gib: f64,
    /// Extra non-torch growth per additional peer of the tensor-parallel group, GiB.
    pub non_torch_per_peer_gib: f64,
}

/// What the profile run of one rank looks like.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ProfileShape {
    /// `max_num_batched_tokens`: tokens of the dummy forward pass (`profile_run` →
    /// `_dummy_run(self.max_num_tokens)`).
    pub max_num_batched_tokens: u64,
    /// `max_num_seqs`: requests of the dummy sampler run (`_dummy_run` returns the last hidden state
    /// of each of `min(max_num_seqs, tokens)` requests; `_dummy_sampler_run` computes their logits).
    pub max_num_seqs: u64,
    /// Text hidden size.
    pub hidden: u64,
    /// Vocabulary (logits per request).
    pub vocab: u64,
    /// Bytes per activation element (the serving dtype).
    pub dtype_bytes: u64,
    /// Bytes that multimodal encoder profiling leaves alive during the decoder's dummy run
    /// ([`encoder_profile_bytes`]); 0 for text-only models.
    pub encoder_bytes: u64,
}

/// Peak activation of vLLM's profile run (`torch_peak_increase`). vLLM 0.11.0
/// `v1/worker/gpu_model_runner.py` `profile_run` keeps the dummy forward pass's `hidden_states`
/// (`max_num_batched_tokens × hidden` in the model dtype) alive through `_dummy_sampler_run` (it
/// deletes them only afterwards), so the peak is reached in the sampler:
/// hidden states + the encoder profiling's leftovers + base + `max_num_seqs × vocab ×
/// sampler_bytes_per_logit` (the last two fitted: the sampler's float32 copies and sort buffers
/// changed between versions and the rows are vLLM 0.19's).
pub fn peak_activation(p: &StartupParams, s: &ProfileShape) -> Bytes {
    let reqs = s.max_num_seqs.min(s.max_num_batched_tokens);
    let hidden_states = s.max_num_batched_tokens * s.hidden * s.dtype_bytes;
    let sampler = p.sampler_bytes_per_logit * (reqs * s.vocab) as f64;
    let base = p.activation_base_gib * GIB;
    Bytes(((hidden_states + s.encoder_bytes) as f64 + sampler + base).round() as u64)
}

/// Non-torch growth of the profile run (`non_torch_increase`) on a rank of a `tp`-rank group: the
/// single-GPU part, plus the communication part when `tp > 1` (fitted; see [`StartupParams`]).
/// vLLM creates its NCCL communicators before the snapshot, but NCCL connects a communicator's
/// buffers on its first collective (lazy connection, NCCL ≥ 2.22 `NCCL_RUNTIME_CONNECT=1`), i.e. in
/// the profile run — which is why this growth appears only with `tp > 1`.
pub fn non_torch_growth(p: &StartupParams, tp: u32) -> Bytes {
    let mut gib = p.non_torch_base_gib;
    if tp > 1 {
        gib += p.non_torch_comm_gib + p.non_torch_per_peer_gib * f64::from(tp - 1);
    }
    Bytes::from_gib_f64(gib)
}

/// One RoPE cos/sin cache as vLLM builds it (`model_executor/layers/rotary_embedding`
/// `RotaryEmbedding._compute_cos_sin_cache`: `max_position × rotary_dim` elements, cast to the
/// model dtype; `LinearScalingRotaryEmbedding` builds `max_position × factor` rows). `get_rope`
/// caches instances by their arguments, so each distinct RoPE is built once per rank. vLLM's "Model
/// loading took X GiB" includes these caches (they are allocated while the model is constructed).
pub fn rope_cache_bytes(max_position: u64, rows_factor: u64, rotary_dim: u64, dtype_bytes: u64) -> Bytes {
    Bytes(max_position * rows_factor * rotary_dim * dtype_bytes)
}

/// Bytes the multimodal encoder profile leaves alive while the decoder's dummy pass and sampler run
/// (vLLM 0.11.0 `gpu_model_runner.py` `profile_run`: the dummy batch of `items` items and the
/// encoder outputs, stored in `encoder_cache["tmp"]`, are released only after the sampler):
/// `items × item_input_bytes + budget_tokens × text_hidden × dtype` (one budget-sized copy of the
/// outputs: see `sim/src/decode/vllm_parts.rs` for why one).
pub fn encoder_profile_bytes(
    items: u64,
    item_input_bytes: u64,
    budget_tokens: u64,
    text_hidden: u64,
    dtype_bytes: u64,
) -> u64 {
    items * item_input_bytes + budget_tokens * text_hidden * dtype_bytes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn params() -> StartupParams {
        StartupParams {
            activation_base_gib: 0.0,
            sampler_bytes_per_logit: 14.0,
            non_torch_base_gib: 0.25,
            non_torch_comm_gib: 1.8,
            non_torch_per_peer_gib: 0.02,
        }
    }

    #[test]
    fn default_shapes_follow_arg_utils() {
        // arg_utils.py 0.11.0: H100 (79.19 GiB) → 8192 / 1024; A100 80 GB → 2048 / 256; A30 → 2048 / 256.
        assert_eq!(default_batch_shape(79.19, "H100 SXM 80GB"), (8_192, 1_024));
        assert_eq!(default_batch_shape(79.15, "NVIDIA A100 80GB PCIe"), (2_048, 256));
        assert_eq!(default_batch_shape(23.5, "A30"), (2_048, 256));
    }

    #[test]
    fn peak_is_hidden_states_plus_sampler() {
        // 8192 × 4096 × 2 B = 64 MiB of hidden states + 1024 × 128,256 × 14 B = 1,838,678,016 B.
        let b = peak_activation(
            &params(),
            &ProfileShape {
                max_num_batched_tokens: 8_192,
                max_num_seqs: 1_024,
                hidden: 4_096,
                vocab: 128_256,
                dtype_bytes: 2,
                encoder_bytes: 0,
            },
        );
        assert_eq!(b.0, 67_108_864 + 1_838_678_016);
        // The sampler sees at most max_num_batched_tokens requests: 256 tokens → 256 requests.
        let small = peak_activation(
            &params(),
            &ProfileShape {
                max_num_batched_tokens: 256,
                max_num_seqs: 1_024,
                hidden: 4_096,
                vocab: 1_000,
                dtype_bytes: 2,
                encoder_bytes: 0,
            },
        );
        assert_eq!(small.0, 256 * 4_096 * 2 + 256 * 1_000 * 14);
    }

    #[test]
    fn non_torch_grows_with_the_group() {
        // tp 1: 0.25 GiB; tp 2: 0.25 + 1.8 + 0.02 = 2.07; tp 4: 0.25 + 1.8 + 0.06 = 2.11.
        let g = |tp| non_torch_growth(&params(), tp).as_gib_f64();
        assert!((g(1) - 0.25).abs() < 1e-9);
        assert!((g(2) - 2.07).abs() < 1e-9);
        assert!((g(4) - 2.11).abs() < 1e-9);
    }

    #[test]
    fn rope_caches() {
        // Llama-3.1: 131,072 × 128 × 2 B = 32 MiB; Gemma-3 global layers, linear factor 8, head 256:
        // 131,072 × 8 × 256 × 2 B = 512 MiB.
        assert_eq!(rope_cache_bytes(131_072, 1, 128, 2).0, 32 << 20);
        assert_eq!(rope_cache_bytes(131_072, 8, 256, 2).0, 512 << 20);
    }
}
