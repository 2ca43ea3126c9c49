# Survey command 49: github.com/vllm-project/vllm issue #1873 ("I can not improve throughput with tensor-parallel
# on multi-gpus."), description by shatealaboxiaowang, 2023-12-01; copied as published (test input data).
CUDA_VISIBLE_DEVICES=0,1,2,3 python3 -m vllm.entrypoints.openai.api_server --dtype bfloat16 --max-model-len 7000 --tokenizer-mode auto --max-num-batched-tokens 30000 --block-size 16 --swap-space 16 --served-model-name codellama-13b-hf --model /home/models/CodeLlama-13b-hf/ --host 0.0.0.0 --port 8000 --tensor-parallel-size=4 --max-num-seqs 1024
