# Survey command 11 (book/src/scenarios.md "Launch commands surveyed"): github.com/local-inference-lab/rtx6kpro
# models/glm47.md lines 12-52 at commit e2c2b9577c938525d99a4ff62ba4a8ecc47a9990, copied as published (test input data).
docker run --gpus '"device=0,1,2,3"' \
  --ipc=host --shm-size=8g --network=host \
  --ulimit memlock=-1 --ulimit stack=67108864 \
  -v ~/.cache/huggingface:/root/.cache/huggingface \
  -v /mnt:/mnt \
  -v jit-cache:/cache/jit \
  -e NCCL_P2P_LEVEL=4 \
  -e SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=True \
  -e USE_TRITON_W8A8_FP8_KERNEL=1 \
  -e SGL_ENABLE_JIT_DEEPGEMM=0 \
  voipmonitor/sglang:cu130 \
  python3 -m sglang.launch_server \
    --model /mnt/zai-org/GLM-4.7-FP8 \
    --chat-template /mnt/zai-org/GLM-4.7-FP8/chat_template.jinja \
    --served-model-name glm-4.7-fp8 \
    --reasoning-parser glm45 \
    --tool-call-parser glm47 \
    --tensor-parallel-size 4 \
    --kv-cache-dtype fp8_e4m3 \
    --fp8-gemm-backend triton \
    --trust-remote-code \
    --context-length 200000 \
    --mem-fraction-static 0.95 \
    --sleep-on-idle \
    --max-running-requests 48 \
    --chunked-prefill-size 8192 \
    --enable-mixed-chunk \
    --cuda-graph-max-bs 8 \
    --attention-backend flashinfer \
    --disable-shared-experts-fusion \
    --schedule-conservativeness 0.3 \
    --enable-metrics \
    --enable-cache-report \
    --host 0.0.0.0 --port 4999 \
    --speculative-algorithm EAGLE \
    --speculative-num-steps 3 \
    --speculative-eagle-topk 1 \
    --speculative-num-draft-tokens 4 \
    --model-loader-extra-config '{"enable_multithread_load": true, "num_threads": 16}' \
    --enable-hierarchical-cache --hicache-ratio 5 \
    --enable-flashinfer-allreduce-fusion
