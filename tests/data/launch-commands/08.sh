# Survey command 8 (book/src/scenarios.md "Launch commands surveyed"): github.com/local-inference-lab/rtx6kpro
# models/minimax-m25.md lines 155-172 at commit e2c2b9577c938525d99a4ff62ba4a8ecc47a9990, copied as published (test input data).
SGL_DISABLE_TP_MEMORY_INBALANCE_CHECK=True \
NCCL_P2P_LEVEL=4 \
SGLANG_ENABLE_JIT_DEEPGEMM=0 \
python3 -m sglang.launch_server \
  --model lukealonso/MiniMax-M2.5-NVFP4 \
  --served-model-name MiniMax-M2.5 \
  --reasoning-parser minimax \
  --enable-torch-compile \
  --trust-remote-code \
  --tp 2 \
  --mem-fraction-static 0.93 \
  --max-running-requests 16 \
  --quantization modelopt_fp4 \
  --attention-backend flashinfer \
  --moe-runner-backend flashinfer_cutlass \
  --enable-pcie-oneshot-allreduce \
  --sleep-on-idle \
  --host 0.0.0.0 --port 5000
