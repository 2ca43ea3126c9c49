# Survey command 41: github.com/sgl-project/sgl-cookbook docs/autoregressive/Llama/Llama3.1.md lines 286-288 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
sglang serve \
  --model-path Meta-Llama/Llama-3.1-70B \
  --tp 8
