# How much of a second CUDA stream's work a decode step hides: SGLang's shared expert runs on an
# alternate stream beside the routed experts (sim/src/decode/passes/sgl_dual_stream.rs). For pairs of
# memory-bound bf16 GEMM sequences A ("routed") and B ("shared"), each captured in a CUDA graph over
# L layers with distinct weights (working set > L2), time per layer: A alone, B alone, A then B on one
# stream, and A ∥ B (fork to a second stream, join with an event), as SGLang captures it.
# Run on a GPU box with PyTorch: python3 calibrate/scripts/dual-stream-overlap.py > measurements/<host>-dual-stream.tsv
import torch

dev, dt = "cuda", torch.bfloat16
print(f"# {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
print("case\tm\tA_shapes\tB_shapes\tA_bytes\tB_bytes\tA_us\tB_us\tserial_us\tdual_us")


def gemms(shapes, m, layers):
    return [[(torch.randn(m, k, device=dev, dtype=dt), torch.randn(n, k, device=dev, dtype=dt)) for n, k in shapes] for _ in range(layers)]


def run(seq):
    for x, w in seq:
        torch.mm(x, w.t())


def graph_time(body, reps=20):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        body()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        body()
    g.replay()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record()
    for _ in range(reps):
        g.replay()
    b.record()
    torch.cuda.synchronize()
    return a.elapsed_time(b) * 1e3 / reps


cases = {
    # Qwen3-Next-like at TP 4: routed = 10 experts' gate_up (n 256, k 2048) and down (n 2048, k 128);
    # shared = gate_up (n 256, k 2048), down (n 2048, k 128), gate (n 1, k 2048).
    "qwen3next_tp4": ([(256, 2048)] * 10 + [(2048, 128)] * 10, [(256, 2048), (2048, 128), (1, 2048)]),
    # One fused routed kernel reading 10 experts' weights at once vs a shared expert of one expert's size.
    "fused_routed_8M_shared_1M": ([(2560, 2048), (2048, 1280)], [(256, 2048), (2048, 256)]),
    "fused_routed_32M_shared_4M": ([(8192, 2048), (2048, 4096)], [(1024, 2048), (2048, 512)]),
    "equal_8M_8M": ([(2048, 2048)], [(2048, 2048)]),
}
L = 16
for m in (8, 64):
    for name, (sa, sb) in cases.items():
        A, B = gemms(sa, m, L), gemms(sb, m, L)
        ab = sum(2 * n * k for n, k in sa)
        bb = sum(2 * n * k for n, k in sb)
        side = torch.cuda.Stream()

        def dual():
            for la, lb in zip(A, B):
                main = torch.cuda.current_stream()
                side.wait_stream(main)
                run(la)
                with torch.cuda.stream(side):
                    run(lb)
                main.wait_stream(side)

        ta = graph_time(lambda: [run(l) for l in A]) / L
        tb = graph_time(lambda: [run(l) for l in B]) / L
        ts = graph_time(lambda: [(run(la), run(lb)) for la, lb in zip(A, B)]) / L
        td = graph_time(dual) / L
        fa = "+".join(f"{n}x{k}" for n, k in sa)
        fb = "+".join(f"{n}x{k}" for n, k in sb)
        print(f"{name}\t{m}\t{fa}\t{fb}\t{ab}\t{bb}\t{ta:.2f}\t{tb:.2f}\t{ts:.2f}\t{td:.2f}", flush=True)
