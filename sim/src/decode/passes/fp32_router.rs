//! h200gl51 (issue #18): a MoE router whose gate GEMM is fp32 (`tpsim_model::llm` module
//! `router_fp32`: MiniMax-M2, Bailing with `router_dtype = "fp32"`, GLM-4.x MoE under vLLM) runs
//! on the CUDA cores at `gpu.fp32_tflops`, not on the bf16 tensor cores: TF32 stays off in both
//! engines (PyTorch's default `allow_tf32 = False`). Its FLOPs (2 × experts × hidden a token) leave
//! the MoE op's FLOP-bound time and are charged apart at that rate, the datasheet peak (no SGEMM
//! measurement at these shapes was found: a lower bound on the time). Where the GPU gives no
//! `fp32_tflops` nothing changes. The gate's fp32 bytes are the model's (`llm::weights`). The
//! `hidden_states.to(torch.float32)` before vLLM's gate is not a kernel of its own here: vLLM
//! compiles the layer with inductor, which fuses elementwise casts into the neighbouring kernel
//! (not measured).
//!
//! At decode the GEMM is tiny (GLM-4.6, one token: 2 × 160 × 5120 = 1.64 MFLOP, 0.02 µs at
//! 67 TFLOPS); in a prefill chunk it is not: vLLM 0.11.0's 8,192-token chunk
//! (`engine/arg_utils.py`: `max_num_batched_tokens` 8192 for the API server on ≥ 70 GiB GPUs)
//! does 1.342e10 FLOPs a MoE layer, 200.3 µs at 67 TFLOPS against 27.1 µs at the H200's 990 × 0.50.

use crate::scenario::Scenario;
use tpsim_model::llm::{LayerWork, ModelSpec};

/// The FLOPs taken out of MoE layer `l`'s FLOP-bound time over `tokens` rows and the µs charged
/// for them at the FP32 rate: `(0, 0)` for a dense layer, a bf16 router or a GPU without
/// `fp32_tflops`.
pub(super) fn split(s: &Scenario, model: &ModelSpec, l: &LayerWork, tokens: u32) -> (f64, f64) {
    let Some(tflops) = s.hardware.gpu.fp32_tflops else {
        return (0.0, 0.0);
    };
    if !l.is_moe {
        return (0.0, 0.0);
    }
    let flops = model.router_fp32_flops(l.n_experts, tokens).min(l.ffn_flops);
    (flops, flops / (tflops * 1e12) * 1e6)
}
