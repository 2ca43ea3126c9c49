# Survey command 9 (book/src/scenarios.md "Launch commands surveyed"): github.com/local-inference-lab/rtx6kpro
# models/qwen35-27b.md lines 127-141 at commit e2c2b9577c938525d99a4ff62ba4a8ecc47a9990, copied as published (test input data).
python -m sglang.launch_server \
  --model-path Sehyo/Qwen3.5-27B-NVFP4 \
  --tp-size 1 \
  --host 0.0.0.0 \
  --port 8000 \
  --trust-remote-code \
  --mem-fraction-static 0.85 \
  --quantization modelopt_fp4 \
  --attention-backend triton \
  --moe-runner-backend flashinfer_cutlass \
  --fp4-gemm-backend flashinfer_cudnn \
  --context-length 128000 \
  --reasoning-parser qwen3 \
  --tool-call-parser qwen3_coder \
  --sleep-on-idle
