# Survey command 54: github.com/vllm-project/vllm issue #16901 ("[Bug]: RuntimeError on RTX 5090: no kernel image is
# available for execution on the device"), comment by cyril23, 2025-06-06, quoted there as "TP 1 on 1x RTX 5090"
# (a locally built vLLM image); copied as published (test input data).
sudo docker run --runtime nvidia --gpus all -v ~/.cache/huggingface:/root/.cache/huggingface -p 8000:8000 --env "HUGGING_FACE_HUB_TOKEN=$HUGGING_FACE_HUB_TOKEN" myvllm-kaln27-updated --max-model-len 1024 --model RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8 --disable-log-requests --enable-chunked-prefill --max_num_batched_tokens 2048 --gpu_memory_utilization 0.9
