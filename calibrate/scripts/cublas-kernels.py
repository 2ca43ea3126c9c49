# Which kernels cuBLAS launches for the decode GEMM shapes that `tpsim-calibrate bench` times.
# Run on a GPU box with PyTorch: python3 calibrate/scripts/cublas-kernels.py > measurements/<host>-cublas-kernels.txt
# torch.mm(x, w.t()) in bf16 goes through cuBLAS as bench's cublasGemmEx call does; the profiler lists each
# kernel and its device time (µs). Output of the 2026-12-04 H200 run: measurements/h200-cublas-kernels.txt.
import torch
from torch.profiler import profile, ProfilerActivity
shapes = [(1,768,4096),(1,4096,512),(1,3584,4096),(1,4096,1792),(1,16032,4096),(1,2112,7168),(1,1536,1536),(1,7168,1024),(1,4608,7168),(1,7168,2304),(1,384,7168),(1,512,7168),(1,7168,256),(1,20480,7168),(32,384,7168),(32,768,4096)]
for m,n,k in shapes:
    x = torch.randn(m,k,device='cuda',dtype=torch.bfloat16); w = torch.randn(n,k,device='cuda',dtype=torch.bfloat16)
    for _ in range(3): y = torch.mm(x, w.t())
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        y = torch.mm(x, w.t()); torch.cuda.synchronize()
    ks = [(e.name, round(e.device_time,2)) for e in prof.events() if e.device_type.name == 'CUDA']
    print(f"m={m} n={n} k={k}:", ks, flush=True)
