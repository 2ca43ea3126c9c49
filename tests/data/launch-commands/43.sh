# Survey command 43: github.com/sgl-project/sgl-cookbook docs/autoregressive/MiniMax/MiniMax-M2.5.md lines 399-406 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
sglang serve \
    --model-path MiniMaxAI/MiniMax-M2.5 \
    --tp 8 \
    --ep 8 \
    --reasoning-parser minimax-append-think \
    --trust-remote-code \
    --mem-fraction-static 0.85 \
    --tool-call-parser minimax-m2
