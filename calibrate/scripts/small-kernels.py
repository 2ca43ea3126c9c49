# The small kernels of a decode step, timed the way engines run them: each op repeated in a chain of 200
# inside one CUDA graph, replayed; µs per op, and the CUDA kernels one op launches (torch profiler). Ops:
# RMSNorm, residual add, SiLU-and-mul (torch composite), embedding lookup, router softmax + top-k, greedy
# argmax over the vocabulary, a copy — at decode batches 1, 8, 64 and hidden sizes 4096 / 7168.
# Run on a GPU box with PyTorch: python3 calibrate/scripts/small-kernels.py > measurements/<host>-small-kernels.tsv
import torch
import torch.nn.functional as F
from torch.profiler import profile, ProfilerActivity

dev, dt = "cuda", torch.bfloat16
print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}; chain of 200 ops per graph, 20 replays")
print("op\tbatch\thidden\tbytes_per_op\tkernels_per_op\tus_per_op")
CHAIN = 200


def kernels_of(fn):
    fn()
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        fn()
        torch.cuda.synchronize()
    return sum(1 for e in prof.events() if e.device_type.name == "CUDA")


def graph_us(fn):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(3):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(CHAIN):
            fn()
    g.replay()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(20):
        g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3 / (20 * CHAIN)


for hidden in (4096, 7168):
    w = torch.randn(hidden, device=dev, dtype=dt)
    emb = torch.randn(151936, hidden, device=dev, dtype=dt)
    for batch in (1, 8, 64):
        x = torch.randn(batch, hidden, device=dev, dtype=dt)
        y = torch.randn(batch, hidden, device=dev, dtype=dt)
        out = torch.empty_like(x)
        gu = torch.randn(batch, 2 * hidden // 4, device=dev, dtype=dt)  # gate_up of a TP 8 MLP-ish width
        ids = torch.randint(0, 151936, (batch,), device=dev)
        router = torch.randn(batch, 512, device=dev, dtype=torch.float32)
        logits = torch.randn(batch, 151936, device=dev, dtype=torch.float32)
        e = x.element_size()
        ops = {
            "rms_norm": (lambda: F.rms_norm(x, (hidden,), w, 1e-6), 2 * batch * hidden * e + hidden * e),
            "residual_add": (lambda: torch.add(x, y, out=out), 3 * batch * hidden * e),
            "silu_and_mul": (lambda: F.silu(gu[:, : gu.shape[1] // 2]) * gu[:, gu.shape[1] // 2 :], 2 * gu.numel() * e),
            "embedding": (lambda: F.embedding(ids, emb), 2 * batch * hidden * e),
            "router_softmax_topk": (lambda: torch.topk(torch.softmax(router, dim=-1), 10, dim=-1), router.numel() * 4),
            "argmax_vocab": (lambda: torch.argmax(logits, dim=-1), logits.numel() * 4),
            "copy": (lambda: out.copy_(x), 2 * batch * hidden * e),
        }
        for name, (fn, nbytes) in ops.items():
            k = kernels_of(fn)
            t = graph_us(fn)
            print(f"{name}\t{batch}\t{hidden}\t{nbytes}\t{k}\t{t:.3f}", flush=True)
