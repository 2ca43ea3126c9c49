# Survey command 57: github.com/sgl-project/sgl-cookbook docs/autoregressive/Moonshotai/Kimi-K2.5.md lines 460-473 at commit
# 7b5bd9c05e3d86da5161ac2be9b91c19a34bf49d (2026-05-01), copied as published (test input data).
SGLANG_ENABLE_SPEC_V2=1 sglang serve \
  --model-path nvidia/Kimi-K2.5-NVFP4 \
  --tp 8 \
  --reasoning-parser kimi_k2 \
  --tool-call-parser kimi_k2 \
  --kv-cache-dtype fp8_e4m3 \
  --speculative-algorithm=EAGLE3 \
  --speculative-num-steps 3 \
  --speculative-eagle-topk 1 \
  --speculative-num-draft-tokens 4 \
  --speculative-draft-model-path lightseekorg/kimi-k2.5-eagle3 \
  --trust-remote-code \
  --host 0.0.0.0 \
  --port 30000
