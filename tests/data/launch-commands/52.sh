# Survey command 52: github.com/Agent-RL/ReCall issue #43 ("sglang server"), description by kehuitt, 2025-04-23;
# copied as published (test input data).
python3 -m sglang.launch_server \
        --served-model-name ReSearch \
        --model-path xxx/Models/Qwen/Qwen2.5-1.5B-Instruct \
        --tp 4 \
        --context-length 6000 \
        --enable-metrics \
        --dtype bfloat16 \
        --host 127.0.0.1 \
        --port 80 \
        --trust-remote-code \
        --disable-overlap \
        --disable-radix-cache \
        --disable-cuda-graph \
        --mem-fraction-static 0.7
