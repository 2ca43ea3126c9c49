# Survey command 51: github.com/sgl-project/sglang issue #991 ("On NVIDIA GeForce RTX 4090, is sglang supported for
# deploying models with tp >1?"), description by ChuanhongLi, 2024-08-08; copied as published without the shell
# prompt `root@localhost:/sgl-workspace/sglang/python# ` in front (test input data).
CUDA_VISIBLE_DEVICES=4,5 python3 -m sglang.launch_server --model-path /workspace/sdb/models/QWen/Qwen2-7B-Instruct/ --tp 2
