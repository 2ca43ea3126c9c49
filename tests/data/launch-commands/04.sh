# Survey command 4 (book/src/scenarios.md "Launch commands surveyed"): github.com/local-inference-lab/rtx6kpro
# inference-engines/vllm.md lines 193-202 at commit e2c2b9577c938525d99a4ff62ba4a8ecc47a9990, copied as published (test input data).
vllm serve Qwen3.5-397B-A17B-FP8 \
  --port 9501 \
  --tensor-parallel-size 8 \
  --max-model-len -1 \
  --reasoning-parser qwen3 \
  --enable-auto-tool-choice \
  --tool-call-parser qwen3_coder \
  --gpu-memory-utilization 0.9 \
  --served-model-name llm_model \
  --speculative-config '{"method":"qwen3_next_mtp","num_speculative_tokens":2}'
