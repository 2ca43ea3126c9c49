# Survey command 47: github.com/vllm-project/vllm pull request #29240 ("add RTX_PRO_6000 GLM4.6-FP8 kernel tuning"),
# comment by coval3nte, 2025-11-23: how GLM-4.6-FP8 was run on 8x RTX PRO 6000 Server Edition; copied as published
# (test input data).
vllm serve \
  "zai-org/GLM-4.6-FP8" \
  --tensor-parallel-size 8 \
  --tool-call-parser glm45 \
  --enable-auto-tool-choice \
  --enable-expert-parallel \
  --reasoning-parser glm45 \
  --max-model-len 32768
