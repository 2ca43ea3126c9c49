# Survey command 56: github.com/sgl-project/sgl-cookbook docs/autoregressive/Llama/Llama3.3-70B.md lines 63-68 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
python -m sglang.launch_server \
  --model-path meta-llama/Llama-3.3-70B-Instruct \
  --tool-call-parser llama3 \
  --tp 1 \
  --host 0.0.0.0 \
  --port 30000
