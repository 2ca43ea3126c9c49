# Survey command 55: github.com/vllm-project/recipes Qwen/Qwen3-Coder-480B-A35B.md lines 25-30 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
vllm serve Qwen/Qwen3-Coder-480B-A35B-Instruct \
  --max-model-len 32000 \
  --enable-expert-parallel \
  --tensor-parallel-size 8 \
  --enable-auto-tool-choice \
  --tool-call-parser qwen3_coder
