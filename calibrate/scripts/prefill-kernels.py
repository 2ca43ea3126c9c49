# Prefill-shaped kernels on one GPU, for the FLOP-efficiency curve of a hardware template: bf16 GEMMs at
# the projection shapes of Qwen3-14B and Llama-3.1-8B (TP 1) for 512 … 16384 tokens, fp8 (per-tensor
# scaled, torch._scaled_mm) at the same shapes, and causal flash attention (SDPA) over 2048-token prompts.
# Run on a GPU box with PyTorch: python3 calibrate/scripts/prefill-kernels.py > measurements/<host>-prefill.tsv
# Each kernel: 3 warm-up calls, then 20 timed calls between CUDA events; the mean per call is printed with
# the FLOPs it does (2mnk for a GEMM; 4·b·h·s²·d / 2 for causal attention, the masked half skipped).
import torch

dev = "cuda"
props = torch.cuda.get_device_properties(0)
print(f"# {props.name}, {props.multi_processor_count} SMs, torch {torch.__version__}")
print("kind\tname\tm\tn\tk\tflops\ttime_us\ttflops")


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


shapes = {
    "qwen3-14b": [("qkv_proj", 7168, 5120), ("o_proj", 5120, 5120), ("gate_up_proj", 34816, 5120), ("down_proj", 5120, 17408)],
    "llama-3.1-8b": [("qkv_proj", 6144, 4096), ("o_proj", 4096, 4096), ("gate_up_proj", 28672, 4096), ("down_proj", 4096, 14336)],
}
for model, projs in shapes.items():
    for name, n, k in projs:
        w = torch.randn(n, k, device=dev, dtype=torch.bfloat16)
        w8 = w.to(torch.float8_e4m3fn)
        one = torch.ones((), device=dev, dtype=torch.float32)
        for m in (512, 2048, 8192, 16384):
            x = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
            fl = 2 * m * n * k
            t = timed(lambda: torch.mm(x, w.t()))
            print(f"gemm_bf16\t{model}/{name}\t{m}\t{n}\t{k}\t{fl}\t{t:.2f}\t{fl / t / 1e6:.1f}", flush=True)
            x8 = x.to(torch.float8_e4m3fn)
            try:
                t = timed(lambda: torch._scaled_mm(x8, w8.t(), scale_a=one, scale_b=one, out_dtype=torch.bfloat16))
                print(f"gemm_fp8\t{model}/{name}\t{m}\t{n}\t{k}\t{fl}\t{t:.2f}\t{fl / t / 1e6:.1f}", flush=True)
            except Exception as e:  # noqa: BLE001 - report and go on
                print(f"# fp8 {model}/{name} m={m}: {e}", flush=True)
            del x, x8

for (h, kvh, d, s, b) in [(40, 8, 128, 2048, 4), (32, 8, 128, 2048, 4), (40, 8, 128, 8192, 1)]:
    q = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16)
    kk = torch.randn(b, kvh, s, d, device=dev, dtype=torch.bfloat16)
    v = torch.randn(b, kvh, s, d, device=dev, dtype=torch.bfloat16)
    fl = 4 * b * h * s * s * d // 2
    t = timed(lambda: torch.nn.functional.scaled_dot_product_attention(q, kk, v, is_causal=True, enable_gqa=True))
    print(f"attn_causal_bf16\th{h}_kv{kvh}_d{d}_b{b}\t{s}\t{s}\t{d}\t{fl}\t{t:.2f}\t{fl / t / 1e6:.1f}", flush=True)
