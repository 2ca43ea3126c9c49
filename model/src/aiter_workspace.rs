//! vrows3 (issue #17 point 4): the workspace SGLang's `aiter` attention backend allocates on ROCm for
//! MHA models (SGLang 0.5.9 `layers/attention/aiter_backend.py` `AiterAttnBackend.__init__`).
//!
//! `workspace_buffer` holds, per request slot (`max_bs` = `req_to_token_pool.size`, i.e.
//! `max_num_reqs`), per attention head of the rank (`num_attention_heads // attention TP`) and per
//! 256-token partition of the context (`_AITER_PARTITION_SIZE_ROCM`, `⌈context_len / 256⌉`), a float32
//! partial output of `head_dim` values plus two float32 softmax statistics:
//! `max_bs × heads × partitions × (head_dim × 4 + 2 × 4)` bytes. The backend is built by
//! `ModelRunner.init_attention_backend`, after the KV pool (`init_memory_pool`), so the buffer comes
//! out of what `mem_fraction_static` leaves free — the room SGLang makes by scaling the fraction by
//! 0.85 above 8192 tokens (`server_args.py` `_handle_attention_backend_compatibility`). MLA models get
//! no such buffer (`if not self.use_mla`).

/// `_AITER_PARTITION_SIZE_ROCM` (aiter_backend.py, SGLang 0.5.9).
pub const PARTITION_TOKENS: u64 = 256;

/// Bytes of `AiterAttnBackend.workspace_buffer` for an MHA model.
pub fn workspace_bytes(max_bs: u64, heads_per_rank: u64, context_len: u64, head_dim: u64) -> u64 {
    let partitions = context_len.div_ceil(PARTITION_TOKENS);
    max_bs * heads_per_rank * partitions * (head_dim * 4 + 2 * 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_arithmetic() {
        // Llama-3.1-8B at tp 8 (32 / 8 = 4 heads, head_dim 128), context 131,072 → 512 partitions,
        // 4096 request slots: 4096 × 4 × 512 × (512 + 8) = 4,362,076,160 B.
        assert_eq!(workspace_bytes(4_096, 4, 131_072, 128), 4_362_076_160);
        // A partial partition counts whole: 8193 tokens → 33 partitions.
        assert_eq!(workspace_bytes(1, 1, 8_193, 128), 33 * 520);
    }
}
