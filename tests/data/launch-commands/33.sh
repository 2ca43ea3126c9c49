# Survey command 33: github.com/vllm-project/recipes Seed/Seed-OSS-36B.md lines 42-47 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
vllm serve ByteDance-Seed/Seed-OSS-36B-Instruct \
    --host localhost \
    --port 8000 \
    --tensor-parallel-size 8 \
    --enable-auto-tool-choice \
    --tool-call-parser seed_oss
