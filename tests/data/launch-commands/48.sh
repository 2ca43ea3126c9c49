# Survey command 48: github.com/EuroEval/EuroEval issue #1120 ("[MODEL EVALUATION REQUEST] openai/gpt-oss-120b"),
# comment by Mikeriess, 2025-09-01, run with vLLM 0.10.1.1 (its log says so); copied as published without the
# shell prompt `mike@euroeval:/project# ` in front (test input data).
python3 -m vllm.entrypoints.openai.api_server \
    --model openai/gpt-oss-120b \
    --host 0.0.0.0 \
    --port 8000 \
    --tensor-parallel-size 2 \
    --gpu-memory-utilization 0.9
