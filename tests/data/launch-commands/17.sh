# Survey command 17: github.com/vllm-project/recipes Qwen/Qwen3.md lines 43-52 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
vllm serve Qwen/Qwen3-235B-A22B \
--trust-remote-code \
-tp 4 \
--disable-log-requests \
--swap-space 32 \
--distributed-executor-backend mp \
--max-num-batched-tokens 32768 \
--max-model-len 32768 \
--no-enable-prefix-caching \
--gpu-memory-utilization 0.8
