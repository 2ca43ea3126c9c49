# Survey command 21: github.com/vllm-project/recipes Qwen/Qwen3-Next.md lines 63-66 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct  \
--tokenizer-mode auto  --gpu-memory-utilization 0.8 \
--speculative-config '{"method": "qwen3_next_mtp", "num_speculative_tokens": 2}' \
--tensor-parallel-size 4 --no-enable-chunked-prefill 
