# Survey command 42: github.com/sgl-project/sgl-cookbook docs/autoregressive/GLM/GLM-4.6.md lines 331-333 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
python -m sglang.launch_server \
  --model zai-org/GLM-4.6 \
  --tp 8
