# Decode GEMMs at the batches where they turn from memory-bound to FLOP-bound: bf16 torch.mm of m tokens
# (m = 32 … 512) by layer weights (Llama-3.1-8B and Qwen3-14B at TP 1, Kimi-K2.5 dense layers at TP 8),
# weights rotated through copies spanning 4× L2, each call captured in one CUDA graph and replayed.
# Run on a GPU box with PyTorch: python3 calibrate/scripts/decode-batch-gemms.py > measurements/<host>-decode-batch-gemms.tsv
import torch

dev, dt = "cuda", torch.bfloat16
l2 = torch.cuda.get_device_properties(0).L2_cache_size
print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}, L2 {l2} B; µs per GEMM, graph-replayed")
print("name\tm\tn\tk\tflops\tbytes\ttime_us\ttbps\ttflops")
shapes = [("llama-3.1-8b/qkv_proj", 6144, 4096), ("llama-3.1-8b/gate_up_proj", 28672, 4096),
          ("llama-3.1-8b/down_proj", 4096, 14336), ("qwen3-14b/gate_up_proj", 34816, 5120),
          ("qwen3-14b/o_proj", 5120, 5120), ("kimi-k2.5/mlp.gate_up_proj", 4608, 7168),
          ("kimi-k2.5/fused_qkv_a_proj", 2112, 7168)]
for name, n, k in shapes:
    wbytes = 2 * n * k
    copies = max(1, min(64, (4 * l2 + wbytes - 1) // wbytes))
    ws = [torch.randn(n, k, device=dev, dtype=dt) for _ in range(copies)]
    for m in (32, 64, 128, 256, 512):
        x = torch.randn(m, k, device=dev, dtype=dt)
        calls = max(copies, 8)
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for i in range(calls):
                torch.mm(x, ws[i % copies].t())
        torch.cuda.current_stream().wait_stream(s)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g):
            for i in range(calls):
                torch.mm(x, ws[i % copies].t())
        g.replay()
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(10):
            g.replay()
        b.record()
        torch.cuda.synchronize()
        us = a.elapsed_time(b) * 1e3 / (10 * calls)
        flops = 2 * m * n * k
        nbytes = 2 * (m * k + n * k + m * n)
        print(f"{name}\t{m}\t{n}\t{k}\t{flops}\t{nbytes}\t{us:.2f}\t{nbytes / us / 1e6:.2f}\t{flops / us / 1e6:.1f}", flush=True)
