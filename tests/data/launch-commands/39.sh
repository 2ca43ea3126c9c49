# Survey command 39: github.com/sgl-project/sgl-cookbook docs/autoregressive/Qwen/Qwen3.md lines 344-346 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
python -m sglang.launch_server \
  --model Qwen/Qwen3-235B-A22B-Instruct-2507 \
  --tp 8
