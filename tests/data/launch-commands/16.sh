# Survey command 16 (book/src/scenarios.md "Launch commands surveyed"): github.com/WohimLee/vLLM-Tutorial
# 6.openai_server/src/launch_vllm.sh at commit 71237e1a3d99ce61077525743b8f543fa71e4a44, the uncommented
# command, copied as published.
python -m vllm.entrypoints.openai.api_server \
  --host 0.0.0.0 \
  --port 6666 \
  --model models/Qwen3-8B \
  --max-model-len 8192 \
  --gpu-memory-utilization 0.85 \
  --max-num-seqs 64 \
  --tensor-parallel-size 1
