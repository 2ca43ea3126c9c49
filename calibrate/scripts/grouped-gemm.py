# MoE-shaped grouped GEMMs (torch._grouped_mm, bf16): E experts each multiplying its own tokens by its
# own weights in one kernel, as a routed-expert layer does; µs per call and the fraction of the bf16
# datasheet rate / of HBM bandwidth. Tokens per expert from decode (1–8) to prefill (256–2048).
# Run on a GPU box with PyTorch ≥ 2.8: python3 calibrate/scripts/grouped-gemm.py > measurements/<host>-grouped-gemm.tsv
import torch

dev, dt = "cuda", torch.bfloat16
print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}; 3 warm-up + 20 timed calls, CUDA events")
print("experts\ttokens_per_expert\tn\tk\tflops\tbytes\ttime_us\ttflops")


def timed(fn, iters=20):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(iters):
        fn()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3 / iters


# (experts active, n, k): Qwen3-Next-like TP 1 gate_up (n 1024, k 2048) and down (n 2048, k 512);
# DeepSeek-V3-like TP 8 gate_up (n 512, k 7168) and down (n 7168, k 256).
for e, n, k in [(10, 1024, 2048), (10, 2048, 512), (64, 512, 7168), (64, 7168, 256)]:
    w = torch.randn(e, k, n, device=dev, dtype=dt)
    for t in (1, 8, 64, 256, 2048):
        x = torch.randn(e * t, k, device=dev, dtype=dt)
        offs = torch.arange(t, e * t + 1, t, device=dev, dtype=torch.int32)
        try:
            us = timed(lambda: torch._grouped_mm(x, w, offs=offs))
        except Exception as ex:  # noqa: BLE001 - report and go on
            print(f"# e={e} t={t} n={n} k={k}: {ex}", flush=True)
            continue
        flops = 2 * e * t * n * k
        nbytes = 2 * (e * k * n + e * t * k + e * t * n)
        print(f"{e}\t{t}\t{n}\t{k}\t{flops}\t{nbytes}\t{us:.2f}\t{flops / us / 1e6:.1f}", flush=True)
