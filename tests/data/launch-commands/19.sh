# Survey command 19: github.com/vllm-project/recipes Qwen/Qwen3-Next.md lines 25-28 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
vllm serve Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tensor-parallel-size 4 \
  --served-model-name qwen3-next \
  --enable-prefix-caching
