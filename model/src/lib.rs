//! # tpsim-model — what things are and what they cost
//!
//! Pure functions and data, no clock and no randomness: units, hardware and topology, LLM
//! architectures lowered for tensor parallelism, kernel and collective costs, engine memory plans and
//! speculative-decoding arithmetic. The event engine (`tpsim`) and calibration (`tpsim-calibrate`)
//! both build on this crate; it depends on neither (book/src/architecture.md).

pub mod aiter_workspace; // vrows3 (issue #17 point 4): SGLang's aiter MHA workspace on ROCm
pub mod compute;
pub mod curves;
pub mod dp_attention; // issue #17: SGLang DP attention
pub mod hw;
pub mod llm;
pub mod memory;
// SGLang's KV and default-fraction eras by version (issue #17 point 5).
pub mod nccl;
pub mod sglang_eras;
pub mod sglang_fraction_early; // vrows3 (issue #17 point 5): pre-#7054 default fractions by release
pub mod sglang_vlm_fraction; // memlogs (issue #17): SGLang's multimodal fraction reduction by release
// SGLang's piecewise CUDA-graph reserve (issue #17 point 5).
pub mod pipeline; // issue #17: pipeline parallelism
pub mod quick_reduce; // issue #17 point 4: vLLM QuickReduce on ROCm (window, codec payloads)
pub mod rope_cache; // mem49 (issue #17 point 5): RoPE cos/sin caches per engine and release
pub mod sglang_buckets; // sglmem54 (issue #17): SGLang's per-card chunk / decode max_bs defaults by release (0.5.20 bucket, 0.5.22 cap)
pub mod sglang_piecewise;
pub mod sglang_reserve; // sglres53 (issue #17): SGLang 0.5.3 – 0.5.23 default-fraction reserve terms by release
// Issue #19 point 1: NCCL's SHM transport costs from a preset's host facts.
pub mod shm;
pub mod spec;
pub mod state_pool;
pub mod topo;
// vrows4 (issue #17): PyTorch's caching-allocator block sizes (vLLM's weights count).
pub mod torch_alloc;
pub mod units;
// vrows3 (issue #17 point 5): vLLM ≤ 0.12's sorting dummy sampler.
pub mod vllm_flashinfer_sampler;
pub mod vllm_hybrid;
pub mod vllm_nontorch; // nontorch61 (issue #17): the non-torch growth's comm part by release window and transport
pub mod vllm_sliding_check;
pub mod vllm_sort_sampler; // issue #17 (engine-exact memory): vLLM's pages for Mamba-2 / Gated DeltaNet hybrids // installkind: vLLM 0.9–0.11.0 dummy sampler through FlashInfer (no sort)
// vLLM start-up memory from a scenario (issue #17 point 5).
pub mod vllm_batch_defaults; // vllmchunk59 (issue #18): vLLM V1's default token budget and max_num_seqs by release and GPU
pub mod vllm_cascade; // issue #18 (cascade): vLLM v1 cascade attention decision
pub mod vllm_dp;
pub mod vllm_fi_workspace;
pub mod vllm_startup; // issue #17 point 1 (vllmdp): vLLM DP + EP on MoE models, weights per rank
pub mod vllm_v0_memory; // vllmv0mem (issue #17 point 5): vLLM V0's KV-cache sizing by release
pub mod vllm_vit_profile; // hybpage53 (issue #18): the Qwen3-VL encoder's profile-run peak under vLLM

pub use units::{Bandwidth, Bytes, Duration, UnitError};
