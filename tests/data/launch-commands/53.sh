# Survey command 53: github.com/sgl-project/sglang issue #7227 ("[Roadmap] TODO"), comment by RodriMora,
# 2025-06-19, on an RTX 5090; copied as published (test input data).
CUDA_VISIBLE_DEVICES=2 python -m sglang.launch_server --model-path /mnt/llms/models/Qwen/Qwen3-8B-FP8/ --tp 1 --context-length 8000 --port 5001 --host 0.0.0.0
