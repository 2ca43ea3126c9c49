# Survey command 7 (book/src/scenarios.md "Launch commands surveyed"): github.com/local-inference-lab/rtx6kpro
# models/minimax-m25.md lines 71-81 at commit e2c2b9577c938525d99a4ff62ba4a8ecc47a9990, copied as published (test input data).
vllm serve MiniMaxAI/MiniMax-M2.5 \
    --served-model-name llm_model \
    --tool-call-parser minimax_m2 \
    --reasoning-parser minimax_m2_append_think \
    --enable-auto-tool-choice \
    --tensor-parallel-size 8 \
    --enable-expert-parallel \
    --gpu-memory-utilization 0.9 \
    --max-model-len -1 \
    --trust-remote-code \
    --port 9504
