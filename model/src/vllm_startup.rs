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
//! Every coefficient is a parameter of `scenarios/engines/vllm.toml` (`[engine.costs]`) with its
//! source there; the non-torch ones are fitted to named rows with the command that refits them.

use crate::units::Bytes;

const GIB: f64 = (1u64 << 30) as f64;

/// The coefficients of the profile run (`[engine.vllm_startup]` of `engines/vllm.toml`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StartupParams {
    /// Activation present whatever the model beyond PyTorch's cuBLAS workspace
    /// ([`cublas_workspace_bytes`], computed from the GPU), GiB (the preset cites its check).
    pub activation_base_gib: f64,
    /// float32 bytes per logit element the sampler holds at its peak beside the model-dtype logits
    /// (vLLM 0.19: the float32 copy, the softmax probabilities and the exponential noise: 12).
    pub sampler_bytes_per_logit: f64,
    /// Non-torch growth of a single-GPU profile run (kernel images loaded on first launch), GiB.
    pub non_torch_base_gib: f64,
    /// Extra non-torch growth when the tensor-parallel group has more than one rank (NCCL's buffers,
    /// connected on the group's first collective), GiB. vmemtp57: FlashInfer's allreduce-fusion
    /// workspace is not in it (`crate::vllm_fi_workspace`, added where vLLM builds it).
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
    /// Dense gated-MLP width on this rank (`intermediate_size / tp`; 0 when no layer is dense).
    pub mlp_intermediate: u64,
    /// phi2 (issue #17): the dense MLP is gated (`gate_up_proj` + `SiluAndMul`); false for Phi's
    /// fc1 → GELU → fc2.
    pub mlp_gated: bool,
    /// Vocabulary (logits per request).
    pub vocab: u64,
    /// Bytes per activation element (the serving dtype).
    pub dtype_bytes: u64,
    /// Streaming multiprocessors of the GPU (rows of the Triton top-k/top-p scratch buffer).
    pub sm_count: u64,
    /// Bytes that multimodal encoder profiling leaves alive during the decoder's dummy run
    /// ([`encoder_profile_bytes`]); 0 for text-only models.
    pub encoder_bytes: u64,
    /// The fused-MoE workspace the dummy forward pass allocates and keeps ([`moe_workspace_bytes`]);
    /// 0 for dense models and MoE kernels without a persistent workspace.
    pub moe_workspace: u64,
    /// PyTorch's cuBLAS workspace for this GPU ([`cublas_workspace_bytes`]).
    pub cublas_workspace: u64,
}

/// PyTorch's default cuBLAS workspace, which the caching allocator hands out on the first GEMM of
/// the profile run and which stays allocated (PyTorch `aten/src/ATen/cuda/CublasHandlePool.cpp`
/// `getChosenWorkspaceSize`: `":4096:8"` = 32 MiB on compute capability 9.x–12.x (Hopper,
/// Blackwell), `":4096:2:16:8"` = 4096 KiB × 2 + 16 KiB × 8 before). ROCm builds use hipBLASLt's
/// sizes (not modelled: the CUDA rule is applied).
pub fn cublas_workspace_bytes(sm_major: u32) -> u64 {
    if (9..=12).contains(&sm_major) {
        4096 * 8 * 1024
    } else {
        4096 * 1024 * 2 + 16 * 1024 * 8
    }
}

/// Peak activation of vLLM's profile run (`torch_peak_increase`), as vLLM 0.19.0's
/// `v1/worker/gpu_model_runner.py` `profile_run` allocates it: the larger of the dummy forward
/// pass's peak ([`forward_peak_bytes`]) and the dummy sampler run's ([`sampler_peak_bytes`]), plus
/// what stays allocated through both (the encoder profile's leftovers, the fused-MoE workspace)
/// the cuBLAS workspace and the preset's `activation_base_gib` (0 in vLLM's preset).
pub fn peak_activation(p: &StartupParams, s: &ProfileShape) -> Bytes {
    let peak = forward_peak_bytes(s).max(sampler_peak_bytes(p, s));
    let base = p.activation_base_gib * GIB;
    let kept = s.encoder_bytes + s.moe_workspace + s.cublas_workspace;
    Bytes(((peak + kept) as f64 + base).round() as u64)
}

/// The workspace of vLLM 0.19's Triton fused-MoE experts (the unquantized bf16/fp16 path,
/// `fused_moe/oracle/unquantized.py` → `TritonExperts`): `modular_kernel.py` `_allocate_buffers`
/// takes `workspace13` (shared with the output: `max(M × topk × max(I, K), M × K)` elements) and
/// `workspace2` (`M × topk × max(2I, K)`) from `v1/worker/workspace.py`'s `WorkspaceManager` in one
/// buffer (each part rounded up to 256 B), which keeps it for the process: it is allocated by the
/// profile run's forward pass and still there during the sampler. `M` = the dummy batch's tokens
/// (no chunking), `I` = the expert MLP width on this rank, `K` = hidden.
pub fn moe_workspace_bytes(tokens: u64, top_k: u64, inter: u64, hidden: u64, dtype: u64) -> u64 {
    let round = |b: u64| b.div_ceil(256) * 256;
    let ws13 = (tokens * top_k * inter.max(hidden)).max(tokens * hidden) * dtype;
    let ws2 = tokens * top_k * (2 * inter).max(hidden) * dtype;
    round(ws13) + round(ws2)
}

/// The dummy forward pass over `max_num_batched_tokens` tokens at its widest point, a dense
/// gated MLP: the `gate_up_proj` output `[T, 2I]` and the `SiluAndMul` output `[T, I]` alive at
/// once, beside four `[T, hidden]` tensors of the residual stream (the layer's input and residual,
/// which the compiled pieces hand to each other, the attention output and the new residual of the
/// fused add-norm) — vLLM 0.19.0 `model_executor/models/llama.py` `LlamaMLP` / `LlamaDecoderLayer`.
/// The count of residual tensors is a reading of that dataflow; engine-memory.tsv lines 13 and 20
/// (the two rows whose forward pass binds) agree to +0.02 GiB. MoE-only models: 0 (their sampler
/// binds in every row at hand).
///
/// phi2 (issue #17): a non-gated MLP (vLLM 0.19.0 `models/phi.py` `PhiMLP.forward`: `fc1` output
/// `[T, I]`, then the GELU's output `[T, I]` before `fc1`'s is freed) is `2I` wide at that point,
/// beside the same four residual-stream tensors (`PhiLayer.forward` keeps the residual, the
/// LayerNorm output feeding both branches and the attention output alive through the MLP).
pub fn forward_peak_bytes(s: &ProfileShape) -> u64 {
    if s.mlp_intermediate == 0 {
        return 0;
    }
    let mlp = if s.mlp_gated { 3 } else { 2 } * s.mlp_intermediate;
    s.max_num_batched_tokens * (mlp + 4 * s.hidden) * s.dtype_bytes
}

/// The dummy sampler run at its peak (vLLM 0.19.0 `gpu_model_runner.py` `_dummy_sampler_run`,
/// `v1/sample/sampler.py` `Sampler.forward`, `v1/sample/ops/topk_topp_sampler.py`
/// `forward_native` / `random_sample`, `ops/topk_topp_triton.py` `apply_top_k_top_p_triton`):
/// - the forward pass's `hidden_states` (`T × hidden`, deleted only after the sampler), the
///   gathered last hidden states and their `rand_like` replacement (`2 × reqs × hidden`);
/// - the logits in the model dtype (`compute_logits`, held by `_dummy_sampler_run`) and, per logit,
///   `sampler_bytes_per_logit` float32 bytes: the `.to(float32)` copy, the softmax `probs` and the
///   exponential noise `q` (`empty_like(probs)`). With a float32 model `.to(float32)` is the same
///   tensor, so the model-dtype logits are not counted twice;
/// - the Triton top-k/top-p scratch buffer, cached per device: `min(next_pow2(reqs), SMs) × vocab`
///   float32 rows (batches of 8 or more take the Triton path).
pub fn sampler_peak_bytes(p: &StartupParams, s: &ProfileShape) -> u64 {
    let reqs = s.max_num_seqs.min(s.max_num_batched_tokens);
    let hidden_states = (s.max_num_batched_tokens + 2 * reqs) * s.hidden * s.dtype_bytes;
    let model_dtype_logits = if s.dtype_bytes == 4 { 0 } else { s.dtype_bytes };
    let logits = (reqs * s.vocab) as f64 * (p.sampler_bytes_per_logit + model_dtype_logits as f64);
    let scratch = if reqs >= 8 {
        reqs.next_power_of_two().min(s.sm_count.max(1)) * s.vocab * 4
    } else {
        0
    };
    hidden_states + logits.round() as u64 + scratch
}

/// Non-torch growth of the profile run (`non_torch_increase`) on a rank of a `tp`-rank group: the
/// single-GPU part, plus the communication part when `tp > 1` (fitted; see [`StartupParams`]).
/// vLLM creates its NCCL communicators before the snapshot, but NCCL connects a communicator's
/// buffers on its first collective (lazy connection, NCCL ≥ 2.22 `NCCL_RUNTIME_CONNECT=1`), i.e. in
/// the profile run — which is why this growth appears only with `tp > 1`. vmem58: one communicator
/// is even created inside the window: the tensor-parallel group's torch `ProcessGroupNCCL` (made
/// by `new_group` without a `device_id`, so lazily), whose first collective is the dummy
/// sampler's logits all-gather (vLLM 0.11.0 / 0.19.0 `LogitsProcessor._gather_logits` →
/// `DeviceCommunicatorBase.all_gather` → `dist.all_gather_into_tensor`); over P2P its ring takes
/// [`crate::nccl::p2p_ring_channel_device_bytes`] (12 MiB) a channel on each rank
/// (tests/tests/vmem58.rs: 24 channels would be 0.28 of the fitted 0.34 GiB at tp 2; the channel
/// count is not logged, so the part stays fitted). nontorch61: the scenario path replaces the ring
/// share by the transport's and adds the distributed init before vLLM 0.11.0
/// ([`crate::vllm_nontorch::comm_part_bytes`]).
pub fn non_torch_growth(p: &StartupParams, tp: u32) -> Bytes {
    let mut gib = p.non_torch_base_gib;
    if tp > 1 {
        gib += p.non_torch_comm_gib + p.non_torch_per_peer_gib * f64::from(tp - 1);
    }
    Bytes::from_gib_f64(gib)
}

/// vllmkv (issue #17): the non-torch growth of a pipeline-parallel worker's profile run, GiB,
/// MEASURED (one row, no rule): tests/data/engine-memory.tsv line 24 (vLLM 0.19.0, Llama-3.1-8B,
/// H100, pp 4, tp 1) logs `non_torch_fwd` = 0.07 GiB on every stage, against 0.24–0.25 on the tp-1,
/// pp-1 rows; its memory before the snapshot (`init_non_torch` 1.48 GiB against 0.51) shows that
/// more is set up before the snapshot under pp (the pp group's NCCL communicator). Why the growth
/// is smaller has not been traced; the 0.07 replaces the single-GPU base at pp > 1 (no row has both
/// tp > 1 and pp > 1: there the tp part is added unchanged, [`non_torch_growth_pp`]).
pub const PP_NON_TORCH_GIB: f64 = 0.07;

/// [`non_torch_growth`] of a worker in a `pp`-stage pipeline: at pp > 1 the single-GPU base is
/// [`PP_NON_TORCH_GIB`] (line 24), the tp part unchanged.
pub fn non_torch_growth_pp(p: &StartupParams, tp: u32, pp: u32) -> Bytes {
    if pp > 1 {
        non_torch_growth(
            &StartupParams {
                non_torch_base_gib: PP_NON_TORCH_GIB,
                ..*p
            },
            tp,
        )
    } else {
        non_torch_growth(p, tp)
    }
}

/// vllmold52 (issue #17): the non-torch growth of vLLM 0.10.1.x's profile run on one GPU, GiB,
/// MEASURED (no rule): tests/data/engine-memory.tsv lines 64–65 (vLLM 0.10.1.1, Qwen2-7B-Instruct,
/// one A100 80GB, `--gpu-memory-utilization` 0.25 and 0.5, github.com/dennislee22/vLLM-benchmarking
/// `log/vllm-7B-1gpuA10080GB-*.log`): requested − KV − "Model loading took 14.2488 GiB" − the
/// FlashInfer dummy sampler's peak (571,867,136 B, 0.532595 GiB) = 0.0174 and 0.0177 GiB with torch's total at the
/// 79.25 GiB both pairs of logs imply (tests/tests/vllmold52.rs shows the arithmetic).
/// Why it is not the 0.25 GiB that vLLM 0.19.0 logs on H100: from 0.18.0 `determine_available_memory`
/// runs `profile_cudagraph_memory` (two warm-up-and-capture passes per CUDA-graph mode) inside the
/// `memory_profiling` window, whose residue counts as non-torch growth; 0.10.1.1's window holds only
/// `profile_run` (`v1/worker/gpu_worker.py` read in the 0.10.1.1, 0.10.2, 0.11.0, 0.11.1, 0.13.0 – 0.17.1
/// wheels: no `profile_cudagraph_memory`; 0.18.0, 0.18.1, 0.19.0: inside the window). How much
/// of the difference that explains is not measured: llm-d-benchmark's ~0.12–0.16 H100 logs
/// (config_explorer/empirical-vllm-memory-results.md) show 0.13 GiB at tp 1, so the figure is
/// applied to 0.10.1.x only, whose own H100 row (line 61) it brings 0.02 GiB closer.
pub const V0_10_1_NON_TORCH_GIB: f64 = 0.0175;

/// vllmold52 (issue #17): the extra non-torch growth of a vLLM 0.10.1.x profile run at tp 2, GiB,
/// MEASURED: lines 66–67 (the same model at tp 2 on two A100s without P2P, NCCL over SHM, 0.25 and
/// 0.5: `log/vllm-7B-2gpuA10080GB-*-same-node.log`) give 0.1366 GiB in all (both), less the
/// single-GPU [`V0_10_1_NON_TORCH_GIB`]. Over SHM NCCL's connection buffers live in host memory; a
/// P2P or NVLink group keeps them on the device and grows more (llm-d's ~0.12–0.16 H100 tp 2 log:
/// 0.55 GiB in all), which no 0.10.1 row measures: applied unchanged, and at tp > 2 without a
/// per-peer part (extrapolated).
pub const V0_10_1_NON_TORCH_COMM_GIB: f64 = 0.119;

/// [`non_torch_growth_pp`] with vLLM 0.10.1.x's measured figures ([`V0_10_1_NON_TORCH_GIB`],
/// [`V0_10_1_NON_TORCH_COMM_GIB`], no per-peer part) in place of the preset's 0.19.0 fit.
pub fn non_torch_growth_v0_10_1(p: &StartupParams, tp: u32, pp: u32) -> Bytes {
    non_torch_growth_pp(
        &StartupParams {
            non_torch_base_gib: V0_10_1_NON_TORCH_GIB,
            non_torch_comm_gib: V0_10_1_NON_TORCH_COMM_GIB,
            non_torch_per_peer_gib: 0.0,
            ..*p
        },
        tp,
        pp,
    )
}

/// vllmkv (issue #17): the buffers a non-first pipeline stage receives its input into, allocated
/// by the profile run's first dummy pass and kept: vLLM 0.11.0 `v1/worker/gpu_model_runner.py`
/// `_dummy_run` (not `is_first_rank`: `self.intermediate_tensors =
/// self.model.make_empty_intermediate_tensors(batch_size=self.max_num_tokens, dtype=model dtype)`),
/// which for the decoder models is `models/utils.py` `make_empty_intermediate_tensors_factory(
/// ["hidden_states", "residual"], hidden_size)`: 2 × `max_num_batched_tokens` × hidden × dtype.
/// engine-memory.tsv line 24 (vLLM 0.19.0, pp 4): the last stage logs 2.01 GiB of activation, the
/// tp-1 rows' 1.89 (line 21) plus 2 × 8192 × 4096 × 2 B = 0.125 GiB.
pub fn pp_intermediate_bytes(max_num_batched_tokens: u64, hidden: u64, dtype_bytes: u64) -> u64 {
    2 * max_num_batched_tokens * hidden * dtype_bytes
}

/// CUDA's default per-thread stack (`cudaLimitStackSize`): 1024 B (CUDA Runtime API,
/// `cudaDeviceSetLimit`: "cudaLimitStackSize … The default value is 1024 bytes" — the CUDA C
/// Programming Guide's default). The driver reserves local memory for it at context creation
/// (inside vLLM's `init_snapshot`, so not part of the growth) and grows the reserve, outside torch's
/// allocator, when a kernel needs a larger stack frame.
pub const CUDA_DEFAULT_STACK_BYTES: u64 = 1024;

/// vllmrows (issue #17): stack frames of vLLM 0.19.0's Triton top-k/top-p kernel
/// (`v1/sample/ops/topk_topp_triton.py` `_topk_topp_kernel`, launched by `apply_top_k_top_p_triton`
/// with the defaults num_warps 4, num_stages 3, `BLOCK_SIZE` 8192, `BLOCK_SIZE_TRUNC` 4096, top-k
/// and top-p on, as `_dummy_sampler_run` calls it). `VOCAB_SIZE` is a compile-time constant, so each
/// vocabulary is a kernel of its own: (compute capability major, vocabulary, stack frame bytes per
/// thread), each from `ptxas -v --gpu-name sm_90a` on the PTX that Triton 3.6.0 (torch 2.10.0's,
/// vLLM 0.19.0 pins `torch==2.10.0`) emits for it, pointer and batch arguments 16-divisible as the
/// JIT specialises them. An odd vocabulary leaves the rows unaligned and the kernel spills far more:
/// 1888 B for granite-3.x's 49,155 and 49,159 against 744–880 B for every even vocabulary measured
/// (32,016; 49,156; 51,200; 128,256; 131,072; 151,936; 152,064; 163,840; 201,088; 202,048;
/// 256,000; 262,208), all below [`CUDA_DEFAULT_STACK_BYTES`]. Vocabularies not listed are taken to
/// fit the default stack (no growth).
pub const TOPK_TOPP_STACK_FRAMES: &[(u32, u64, u64)] = &[(9, 49_155, 1_888), (9, 49_159, 1_888)];

/// Resident threads per SM for the local-memory reserve, by compute capability major (CUDA C
/// Programming Guide, "Technical Specifications per Compute Capability": 2048 on 9.0); `None` where
/// no [`TOPK_TOPP_STACK_FRAMES`] entry needs it.
fn max_threads_per_sm(sm_major: u32) -> Option<u64> {
    (sm_major == 9).then_some(2048)
}

/// vllmrows (issue #17): non-torch growth from the dummy sampler's Triton top-k/top-p kernel when
/// its stack frame exceeds CUDA's default stack: the driver raises the per-thread local-memory
/// reserve for every resident thread of the device, `(frame − 1024) × SMs × threads per SM`, and
/// keeps it (the measured window ends after it). 0 where the frame is not in
/// [`TOPK_TOPP_STACK_FRAMES`] or fits the default. granite-3.1-2b on an H100 SXM (132 SMs):
/// (1888 − 1024) × 132 × 2048 = 233,570,304 B = 0.2175 GiB, the 0.46 − 0.25 GiB its log shows
/// beyond the other single-GPU rows (engine-memory.tsv lines 19, 20).
pub fn topk_topp_stack_growth(sm_major: u32, sm_count: u64, vocab: u64) -> Bytes {
    let frame = TOPK_TOPP_STACK_FRAMES
        .iter()
        .find(|&&(major, v, _)| major == sm_major && v == vocab)
        .map(|&(_, _, f)| f);
    match (frame, max_threads_per_sm(sm_major)) {
        (Some(f), Some(threads)) => Bytes(f.saturating_sub(CUDA_DEFAULT_STACK_BYTES) * sm_count * threads),
        _ => Bytes(0),
    }
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
            sampler_bytes_per_logit: 12.0,
            non_torch_base_gib: 0.25,
            non_torch_comm_gib: 1.8,
            non_torch_per_peer_gib: 0.02,
        }
    }

    fn shape(hidden: u64, inter: u64, vocab: u64, dtype: u64) -> ProfileShape {
        ProfileShape {
            max_num_batched_tokens: 8_192,
            max_num_seqs: 1_024,
            hidden,
            mlp_intermediate: inter,
            mlp_gated: true,
            vocab,
            dtype_bytes: dtype,
            sm_count: 132,
            encoder_bytes: 0,
            moe_workspace: 0,
            cublas_workspace: 0,
        }
    }

    #[test]
    fn sampler_binds_with_a_large_vocabulary() {
        // Llama-3.1-8B bf16 on H100: hidden states (8192 + 2 × 1024) × 4096 × 2 = 83,886,080;
        // logits 1024 × 128,256 × (12 + 2) = 1,838,678,016; Triton scratch min(1024, 132) × 128,256 × 4
        // = 67,719,168 → 1,990,283,264 B. Forward: 8192 × (3 × 14,336 + 4 × 4096) × 2 = 973,078,528.
        let p = StartupParams {
            activation_base_gib: 0.0,
            sampler_bytes_per_logit: 12.0,
            ..params()
        };
        let s = shape(4_096, 14_336, 128_256, 2);
        assert_eq!(sampler_peak_bytes(&p, &s), 1_990_283_264);
        assert_eq!(forward_peak_bytes(&s), 973_078_528);
        assert_eq!(peak_activation(&p, &s).0, 1_990_283_264);
        // float32: .to(float32) aliases, 12 B per logit: (8192 + 2048) × 4096 × 4 = 167,772,160
        // + 1,576,009,728 + 67,719,168 = 1,811,501,056.
        assert_eq!(
            sampler_peak_bytes(&p, &shape(4_096, 14_336, 128_256, 4)),
            1_811_501_056
        );
    }

    #[test]
    fn forward_binds_with_a_small_vocabulary() {
        // CodeLlama-7B: forward 8192 × (3 × 11,008 + 4 × 4096) × 2 = 809,500,672 B; sampler
        // 83,886,080 + 1024 × 32,016 × 14 + 132 × 32,016 × 4 = 83,886,080 + 458,981,376 + 16,904,448
        // = 559,771,904 B. Hopper's cuBLAS workspace 32 MiB = 33,554,432 on top.
        let p = StartupParams {
            activation_base_gib: 0.0,
            sampler_bytes_per_logit: 12.0,
            ..params()
        };
        let s = ProfileShape {
            cublas_workspace: cublas_workspace_bytes(9),
            ..shape(4_096, 11_008, 32_016, 2)
        };
        assert_eq!(forward_peak_bytes(&s), 809_500_672);
        assert_eq!(sampler_peak_bytes(&p, &s), 559_771_904);
        assert_eq!(peak_activation(&p, &s).0, 809_500_672 + 33_554_432);
        // Fewer than 8 requests: no Triton scratch; MoE-only (no dense MLP): no forward term.
        let tiny = ProfileShape {
            max_num_batched_tokens: 4,
            ..shape(16, 0, 100, 2)
        };
        assert_eq!(forward_peak_bytes(&tiny), 0);
        assert_eq!(sampler_peak_bytes(&p, &tiny), (4 + 8) * 16 * 2 + 4 * 100 * 14);
    }

    /// phi2 (issue #17): phi-2's non-gated MLP at its widest (fc1 and GELU outputs), and the sampler
    /// binding (engine-memory.tsv line 26 logs activation = 0.79 GiB).
    #[test]
    fn non_gated_mlp_of_phi_2() {
        // Forward: 8192 × (2 × 10,240 + 4 × 2560) × 2 = 503,316,480 B (gated would be 8192 × (3 ×
        // 10,240 + 4 × 2560) × 2 = 671,088,640). Sampler: (8192 + 2 × 1024) × 2560 × 2 = 52,428,800
        // + 1024 × 51,200 × 14 = 734,003,200 + 132 × 51,200 × 4 = 27,033,600 → 813,465,600 B; plus
        // 32 MiB of cuBLAS workspace = 847,020,032 B = 0.789 GiB.
        let p = StartupParams {
            activation_base_gib: 0.0,
            sampler_bytes_per_logit: 12.0,
            ..params()
        };
        let s = ProfileShape {
            mlp_gated: false,
            cublas_workspace: cublas_workspace_bytes(9),
            ..shape(2_560, 10_240, 51_200, 2)
        };
        assert_eq!(forward_peak_bytes(&s), 503_316_480);
        assert_eq!(
            forward_peak_bytes(&ProfileShape { mlp_gated: true, ..s }),
            671_088_640
        );
        assert_eq!(sampler_peak_bytes(&p, &s), 813_465_600);
        assert_eq!(peak_activation(&p, &s).0, 847_020_032);
    }

    #[test]
    fn cublas_workspace_by_generation() {
        // CublasHandlePool.cpp: 32 MiB on Hopper (9.0) and Blackwell (10.0, 12.0); Ampere (8.0) and
        // Volta (7.0): 4096 KiB × 2 + 16 KiB × 8 = 8,519,680 B.
        assert_eq!(cublas_workspace_bytes(9), 33_554_432);
        assert_eq!(cublas_workspace_bytes(12), 33_554_432);
        assert_eq!(cublas_workspace_bytes(8), 8_519_680);
        assert_eq!(cublas_workspace_bytes(7), 8_519_680);
    }

    #[test]
    fn moe_workspace_of_the_triton_experts() {
        // Kimi-VL-A3B at 8192 tokens: top 6, expert MLP 1408, hidden 2048, bf16:
        // ws13 = 8192 × 6 × 2048 × 2 = 201,326,592; ws2 = 8192 × 6 × 2816 × 2 = 276,824,064.
        assert_eq!(
            moe_workspace_bytes(8_192, 6, 1_408, 2_048, 2),
            201_326_592 + 276_824_064
        );
        // A wide expert MLP: ws13 = 8 × 2 × 100 × 2 = 3200 (K = 10 smaller), ws2 = 8 × 2 × 200 × 2 =
        // 6400, each rounded up to 256 B: 3328 + 6400.
        assert_eq!(moe_workspace_bytes(8, 2, 100, 10, 2), 3_328 + 6_400);
    }

    #[test]
    fn non_torch_grows_with_the_group() {
        // tp 1: 0.25 GiB; tp 2: 0.25 + 1.8 + 0.02 = 2.07; tp 4: 0.25 + 1.8 + 0.06 = 2.11.
        let g = |tp| non_torch_growth(&params(), tp).as_gib_f64();
        assert!((g(1) - 0.25).abs() < 1e-9);
        assert!((g(2) - 2.07).abs() < 1e-9);
        assert!((g(4) - 2.11).abs() < 1e-9);
    }

    /// vllmkv: pp > 1 takes line 24's 0.07 GiB as the base (tp 1: 0.07; tp 2: 0.07 + 1.8 + 0.02);
    /// pp 1 is unchanged. Intermediate buffers of Llama-3.1-8B at 8192 tokens: 2 × 8192 × 4096 × 2
    /// = 134,217,728 B (0.125 GiB).
    #[test]
    fn pipeline_stage_terms() {
        let g = |tp, pp| non_torch_growth_pp(&params(), tp, pp).as_gib_f64();
        assert!((g(1, 1) - 0.25).abs() < 1e-9);
        assert!((g(1, 4) - 0.07).abs() < 1e-9);
        assert!((g(2, 2) - 1.89).abs() < 1e-9);
        assert_eq!(pp_intermediate_bytes(8_192, 4_096, 2), 134_217_728);
    }

    /// vllmold52: vLLM 0.10.1.x's measured growth in place of the preset's: tp 1 0.0175 GiB; tp 2
    /// 0.0175 + 0.119 = 0.1365 (engine-memory.tsv lines 66–67's 0.1366); tp 4 the same (no per-peer
    /// part); at pp > 1 the pipeline base 0.07 replaces 0.0175 (0.07 + 0.119 = 0.189 at tp 2).
    #[test]
    fn non_torch_of_vllm_0_10_1() {
        let g = |tp, pp| non_torch_growth_v0_10_1(&params(), tp, pp).as_gib_f64();
        assert!((g(1, 1) - 0.0175).abs() < 1e-9);
        assert!((g(2, 1) - 0.1365).abs() < 1e-9);
        assert!((g(4, 1) - 0.1365).abs() < 1e-9);
        assert!((g(2, 2) - 0.189).abs() < 1e-9);
    }

    /// vllmrows: granite's odd vocabulary on an H100 SXM (132 SMs, 2048 threads per SM):
    /// (1888 − 1024) × 132 × 2048 = 233,570,304 B by hand; an even vocabulary (Llama's 128,256:
    /// 768 B frame by ptxas) and other compute capabilities add nothing.
    #[test]
    fn topk_topp_stack_growth_of_odd_vocabularies() {
        assert_eq!(topk_topp_stack_growth(9, 132, 49_155), Bytes(233_570_304));
        assert_eq!(topk_topp_stack_growth(9, 132, 49_159), Bytes(233_570_304));
        assert_eq!(topk_topp_stack_growth(9, 132, 128_256), Bytes(0));
        assert_eq!(topk_topp_stack_growth(8, 108, 49_155), Bytes(0));
    }

    #[test]
    fn rope_caches() {
        // Llama-3.1: 131,072 × 128 × 2 B = 32 MiB; Gemma-3 global layers, linear factor 8, head 256:
        // 131,072 × 8 × 256 × 2 B = 512 MiB.
        assert_eq!(rope_cache_bytes(131_072, 1, 128, 2).0, 32 << 20);
        assert_eq!(rope_cache_bytes(131_072, 8, 256, 2).0, 512 << 20);
    }
}
