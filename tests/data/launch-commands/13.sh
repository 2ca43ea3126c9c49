# Survey command 13 (book/src/scenarios.md "Launch commands surveyed"): docs.sglang.io
# basic_usage/deepseek_v32.html, "Launch with TP + DP (Recommended)", copied as published.
python -m sglang.launch_server --model deepseek-ai/DeepSeek-V3.2-Exp --tp 8 --dp 8 --enable-dp-attention
