# Survey command 58: github.com/vllm-project/recipes moonshotai/Kimi-K2.5.md lines 142-150 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
export VLLM_USE_FLASHINFER_MOE_FP4=1

vllm serve nvidia/Kimi-K2.5-NVFP4 -tp 4 \
    --mm-encoder-tp-mode data \
    --compilation_config.pass_config.fuse_allreduce_rms true \
    --tool-call-parser kimi_k2 \
    --reasoning-parser kimi_k2 \
    --enable-auto-tool-choice \
    --trust-remote-code
