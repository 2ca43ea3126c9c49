# Survey command 35: github.com/vllm-project/recipes Microsoft/Phi-4.md lines 21-23 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
vllm serve microsoft/Phi-4-mini-instruct \
  --host 0.0.0.0 \
  --max-model-len 4000
