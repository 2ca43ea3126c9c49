# Survey command 50: github.com/vllm-project/vllm issue #14452 ("[Doc]: Steps to run vLLM on your RTX5080 or 5090!"),
# comment by JiapengLi, 2025-04-23, on 2x RTX 5090 with vLLM 0.8.5.dev169 (its log says so); copied as published
# without the shell prompt `root@470dedf7290d:/models# ` in front (test input data).
python3 -m vllm.entrypoints.openai.api_server   --model /models/QwQ-32B-unsloth-bnb-4bit   --pipeline-parallel-size 2   --trust-remote-code   --gpu-memory-utilization 0.85   --max-model-len 60000   --enable-reasoning   --reasoning-parser deepseek_r1   --device cuda
