//! vLLM's V0 KV-cache sizing by release (issue #17 point 5, vllmv0mem): `vllm/worker/worker.py`
//! `Worker.determine_num_available_blocks`, the rule of every release before 0.8.0 (and of 0.8–0.10
//! with `VLLM_USE_V1=0`). Read from the wheels of vLLM 0.5.3.post1, 0.6.3, 0.6.4.post1, 0.6.5,
//! 0.6.6.post1, 0.7.0 and 0.7.3.
//!
//! In every release the worker runs `model_runner.profile_run()` (a prefill of
//! `max_num_batched_tokens` tokens split over `max_num_seqs` dummy sequences, then the sampler over
//! their `max_num_seqs` last positions) and computes
//! `num_gpu_blocks = int((total_gpu_memory × gpu_memory_utilization − non_kv) // cache_block_size)`,
//! `num_cpu_blocks = int(swap_space_bytes // cache_block_size)`, both floored at 0, with
//! `total_gpu_memory` from `torch.cuda.mem_get_info()` (the driver's total). The distributed
//! executor takes the minimum over the workers. What `non_kv` counts differs by release
//! ([`V0MemoryRule`]). CUDA graphs are captured after the KV cache is allocated
//! (`initialize_cache` → `_warm_up_model` → `capture_model`), so in no V0 release does the block
//! count leave room for them: their memory is taken beyond `total × gpu_memory_utilization`.

/// What `non_kv` (the memory subtracted from `total × gpu_memory_utilization`) counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub enum V0MemoryRule {
    /// Before 0.6.4 (read in 0.5.3.post1 and 0.6.3): `peak_memory = init_gpu_memory −
    /// free_gpu_memory`, the device's free memory at `init_device` (after the CUDA context, before
    /// NCCL) minus the free memory after the profile run, with no `empty_cache` in between: the
    /// weights, the allocator's *reserved* segments of the profile's peak, and everything outside
    /// torch created since (NCCL, cuBLAS workspaces, kernel images).
    FreeDelta,
    /// 0.6.4 / 0.6.4.post1: `peak_memory = memory_stats()["allocated_bytes.all.peak"]` (the
    /// weights and the profile's allocated peak) plus `non_torch_allocations` = the device's used
    /// memory after `empty_cache` minus torch's allocated bytes — which counts the CUDA context
    /// (and any other process on the GPU) as well as NCCL.
    AllocatedPeak,
    /// 0.6.5 on (read in 0.6.5, 0.6.6.post1, 0.7.3): `utils.memory_profiling`:
    /// `non_kv = weights_memory + torch_peak_increase + non_torch_increase`, the non-torch part
    /// measured against the used memory at `init_device` (so the CUDA context and other processes
    /// are not counted; NCCL is). Logged as "model weights take …; non_torch_memory takes …;
    /// PyTorch activation peak memory takes …; the rest of the memory reserved for KV Cache is …".
    Profiling,
}

impl V0MemoryRule {
    /// The rule of a release given as its numeric components (`[0, 6, 4]`). Releases before 0.5.0
    /// were not read; they get [`V0MemoryRule::FreeDelta`] (the caller flags it).
    pub fn of(release: &[u64]) -> Self {
        if release < [0, 6, 4].as_slice() {
            V0MemoryRule::FreeDelta
        } else if release < [0, 6, 5].as_slice() {
            V0MemoryRule::AllocatedPeak
        } else {
            V0MemoryRule::Profiling
        }
    }

    /// One line for `tpsim memory`'s notes.
    pub fn describe(self) -> &'static str {
        match self {
            V0MemoryRule::FreeDelta => {
                "vLLM V0 (< 0.6.4) KV sizing: blocks = (total × gpu_memory_utilization − (free at init − free after the \
                 profile run)) // block bytes; torch's reserved (not allocated) peak is what counts"
            }
            V0MemoryRule::AllocatedPeak => {
                "vLLM V0 (0.6.4) KV sizing: blocks = (total × gpu_memory_utilization − torch's allocated peak − \
                 non-torch memory incl. the CUDA context) // block bytes"
            }
            V0MemoryRule::Profiling => {
                "vLLM V0 (≥ 0.6.5) KV sizing: blocks = (total × gpu_memory_utilization − weights − activation peak − \
                 non-torch growth) // block bytes"
            }
        }
    }
}

/// `--block-size` default of V0 on CUDA: 16 tokens (0.5.3.post1 and 0.6.3 `engine/arg_utils.py`
/// `block_size: int = 16`; 0.7.3 `platforms/cuda.py` `check_and_update_config`:
/// `cache_config.block_size = 16` when unset).
pub const BLOCK_SIZE: u64 = 16;

/// `--swap-space` default: 4 GiB of pinned CPU memory per GPU (0.5.3.post1 `engine/arg_utils.py`
/// `swap_space: int = 4  # GiB`; 0.6.3–0.7.3 `swap_space: float = 4`).
pub const SWAP_SPACE_GIB: f64 = 4.0;

/// `--max-num-seqs` default of V0: 256 (0.5.3.post1 and 0.6.3 `engine/arg_utils.py`
/// `max_num_seqs: int = 256`; 0.6.6.post1 and 0.7.3 `EngineArgs.__post_init__`:
/// `self.max_num_seqs = 256 if not envs.VLLM_USE_V1 else 1024`).
pub const MAX_NUM_SEQS: u64 = 256;

/// `swap_space_bytes` (`config.py` `CacheConfig`: 0.5.3 `swap_space * _GB` with `_GB = 1 << 30`;
/// 0.6.x–0.7.x `int(swap_space * GiB_bytes)`).
pub fn swap_space_bytes(swap_space_gib: f64) -> u64 {
    (swap_space_gib.max(0.0) * (1u64 << 30) as f64) as u64
}

/// V0's default `max_num_batched_tokens` (`config.py` `SchedulerConfig`): with chunked prefill 512
/// before 0.6.5 (0.5.3.post1, 0.6.3, 0.6.4.post1: "the values that have the best balance between
/// ITL and TTFT on A100") and 2048 from 0.6.5 (0.6.5, 0.7.3); without it `max(max_model_len, 2048)`.
/// Chunked prefill is on by default when `max_model_len > 32768` (`engine/arg_utils.py`
/// `use_long_context`) unless the model has a sliding window or speculative decoding is on (the
/// other exclusions — LoRA, prompt adapters, and before 0.6.5 prefix caching — are the caller's).
pub fn default_batch_tokens(release: &[u64], max_model_len: u64, chunked: bool) -> u64 {
    if chunked {
        if release < [0, 6, 5].as_slice() { 512 } else { 2048 }
    } else {
        max_model_len.max(2048)
    }
}

/// The sizing's inputs, bytes.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct V0KvInput {
    /// `torch.cuda.mem_get_info()[1]`.
    pub total_bytes: u64,
    pub gpu_memory_utilization: f64,
    /// What the rule subtracts (see [`V0MemoryRule`]).
    pub non_kv_bytes: u64,
    /// `CacheEngine.get_cache_block_size`: block_size × layers × 2 × kv heads per rank × head size
    /// × dtype bytes.
    pub block_bytes: u64,
    pub block_size: u64,
    pub swap_space_bytes: u64,
    pub max_model_len: u64,
}

/// The sizing's outcome.
#[derive(Debug, Clone, PartialEq)]
pub struct V0KvPlan {
    /// `total × gpu_memory_utilization − non_kv`, bytes (negative when the profile exceeds it).
    pub available_bytes: f64,
    pub gpu_blocks: u64,
    pub cpu_blocks: u64,
    /// `raise_if_cache_size_invalid`'s error, if the start fails.
    pub error: Option<String>,
}

/// V0's block counts and start-up check (`worker.py` `initialize_cache` →
/// `raise_if_cache_size_invalid`, the same text in 0.5.3.post1 and 0.7.3).
pub fn v0_kv_plan(i: &V0KvInput) -> V0KvPlan {
    let available = i.total_bytes as f64 * i.gpu_memory_utilization - i.non_kv_bytes as f64;
    let bb = i.block_bytes.max(1);
    let gpu_blocks = if available > 0.0 {
        (available / bb as f64).floor() as u64
    } else {
        0
    };
    let cpu_blocks = i.swap_space_bytes / bb;
    let max_seq_len = i.block_size * gpu_blocks;
    let error = if gpu_blocks == 0 {
        Some(
            "ValueError: No available memory for the cache blocks. Try increasing `gpu_memory_utilization` when \
             initializing the engine."
                .to_string(),
        )
    } else if i.max_model_len > max_seq_len {
        Some(format!(
            "ValueError: The model's max seq len ({}) is larger than the maximum number of tokens that can be stored \
             in KV cache ({max_seq_len}). Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when \
             initializing the engine.",
            i.max_model_len
        ))
    } else {
        None
    };
    V0KvPlan {
        available_bytes: available,
        gpu_blocks,
        cpu_blocks,
        error,
    }
}

/// The executor's line: "# GPU blocks: N, # CPU blocks: M" (0.5.3.post1–0.6.6.post1
/// `executor/gpu_executor.py` / `distributed_gpu_executor.py`); from 0.7.0 `executor_base.py` logs
/// `"# %s blocks: %d, # CPU blocks: %d"` with `current_platform.dispatch_key` ("CUDA") in 0.7.0,
/// 0.7.1 and 0.7.2, and with `current_platform.device_name` ("cuda") in 0.7.3.
pub fn blocks_line(release: &[u64], gpu_blocks: u64, cpu_blocks: u64) -> String {
    let device = if release < [0, 7].as_slice() {
        "GPU"
    } else if release < [0, 7, 3].as_slice() {
        "CUDA"
    } else {
        "cuda"
    };
    format!("# {device} blocks: {gpu_blocks}, # CPU blocks: {cpu_blocks}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rule_by_release() {
        assert_eq!(V0MemoryRule::of(&[0, 5, 3]), V0MemoryRule::FreeDelta);
        assert_eq!(V0MemoryRule::of(&[0, 6, 3]), V0MemoryRule::FreeDelta);
        assert_eq!(V0MemoryRule::of(&[0, 6, 4]), V0MemoryRule::AllocatedPeak);
        assert_eq!(V0MemoryRule::of(&[0, 6, 5]), V0MemoryRule::Profiling);
        assert_eq!(V0MemoryRule::of(&[0, 7, 3]), V0MemoryRule::Profiling);
    }

    #[test]
    fn batch_tokens_by_release() {
        assert_eq!(default_batch_tokens(&[0, 5, 3], 4096, false), 4096);
        assert_eq!(default_batch_tokens(&[0, 5, 3], 1024, false), 2048);
        assert_eq!(default_batch_tokens(&[0, 6, 3], 131_072, true), 512);
        assert_eq!(default_batch_tokens(&[0, 7, 3], 131_072, true), 2048);
    }

    /// Llama-2-13B at TP 1, fp16: block = 16 × 40 layers × 2 × 40 heads × 128 × 2 B = 13,107,200 B;
    /// 4 GiB / 13,107,200 = 327.68 → 327 CPU blocks. On 40 GiB × 0.9 = 36 GiB with 30 GiB used:
    /// 6 GiB / 13,107,200 = 491.52 → 491 GPU blocks = 7,856 tokens.
    #[test]
    fn blocks_by_hand() {
        const G: u64 = 1 << 30;
        let mut i = V0KvInput {
            total_bytes: 40 * G,
            gpu_memory_utilization: 0.9,
            non_kv_bytes: 30 * G,
            block_bytes: 13_107_200,
            block_size: 16,
            swap_space_bytes: swap_space_bytes(4.0),
            max_model_len: 4096,
        };
        let p = v0_kv_plan(&i);
        assert_eq!((p.gpu_blocks, p.cpu_blocks, p.error.clone()), (491, 327, None));
        assert_eq!(
            blocks_line(&[0, 5, 3], 491, 327),
            "# GPU blocks: 491, # CPU blocks: 327"
        );
        assert_eq!(
            blocks_line(&[0, 7, 3], 491, 327),
            "# cuda blocks: 491, # CPU blocks: 327"
        );
        assert_eq!(
            blocks_line(&[0, 7, 0], 491, 327),
            "# CUDA blocks: 491, # CPU blocks: 327"
        );
        i.max_model_len = 7_857;
        assert!(v0_kv_plan(&i).error.unwrap().contains(
            "(7857) is larger than the maximum number of tokens that can be stored in KV cache (7856)"
        ));
        i.non_kv_bytes = 37 * G;
        let p = v0_kv_plan(&i);
        assert_eq!(p.gpu_blocks, 0);
        assert!(
            p.error
                .unwrap()
                .contains("No available memory for the cache blocks")
        );
    }
}
