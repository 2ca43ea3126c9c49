# Survey command 40: github.com/sgl-project/sgl-cookbook docs/autoregressive/OpenAI/GPT-OSS.md lines 57-60 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
python -m sglang.launch_server \
  --model openai/gpt-oss-120b \
  --reasoning-parser gpt-oss \
  --tp 8
