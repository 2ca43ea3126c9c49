# Survey command 46: github.com/sgl-project/sgl-cookbook docs/autoregressive/Qwen/Qwen3-Next.md lines 185-189 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
python -m sglang.launch_server \
  --model Qwen/Qwen3-Next-80B-A3B-Instruct \
  --tp 8 \
  --host 0.0.0.0 \
  --port 8000
