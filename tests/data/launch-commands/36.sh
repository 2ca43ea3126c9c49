# Survey command 36: github.com/vllm-project/recipes Tencent-Hunyuan/Hunyuan-Instruct.md lines 17-18 at commit
# 8959cf64189c71d36e11c6a30335f923f261b1f7 (2026-08-21), copied as published (test input data).
export VLLM_ROCM_USE_AITER=1
vllm serve tencent/Hunyuan-A13B-Instruct --tensor-parallel-size 2 --trust-remote-code 
