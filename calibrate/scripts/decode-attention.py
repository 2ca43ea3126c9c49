# Decode attention (one query token per sequence) over a contiguous bf16 KV cache with PyTorch's SDPA
# (its flash / memory-efficient kernels; not the engines' paged FlashInfer or FA3 kernels): µs per call
# and the KV bytes read per µs, for batches 1–128 and contexts 1k–32k, 32 query heads / 8 KV heads, d 128.
# Run on a GPU box with PyTorch: python3 calibrate/scripts/decode-attention.py > measurements/<host>-decode-attention.tsv
import torch
import torch.nn.functional as F

dev, dt = "cuda", torch.bfloat16
print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}; SDPA, q_len 1, graph-replayed, 2 KV copies alternated")
print("batch\tcontext\tq_heads\tkv_heads\thead_dim\tkv_bytes\ttime_us\ttbps")
H, KV, D = 32, 8, 128
for ctx in (1024, 4096, 16384, 32768):
    for b in (1, 8, 32, 128):
        kv_bytes = 2 * b * KV * ctx * D * 2
        if kv_bytes > 24 << 30:
            continue
        q = torch.randn(b, H, 1, D, device=dev, dtype=dt)
        kvs = [(torch.randn(b, KV, ctx, D, device=dev, dtype=dt), torch.randn(b, KV, ctx, D, device=dev, dtype=dt)) for _ in range(2)]
        fn = lambda i: F.scaled_dot_product_attention(q, kvs[i % 2][0], kvs[i % 2][1], enable_gqa=True)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for i in range(4):
                fn(i)
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(8):
                fn(i)
        g.replay()
        torch.cuda.synchronize()
        a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(10):
            g.replay()
        e.record()
        torch.cuda.synchronize()
        us = a.elapsed_time(e) * 1e3 / 80
        print(f"{b}\t{ctx}\t{H}\t{KV}\t{D}\t{kv_bytes}\t{us:.2f}\t{kv_bytes / us / 1e6:.2f}", flush=True)
        del kvs
