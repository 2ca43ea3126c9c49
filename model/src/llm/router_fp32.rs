//! h200gl51 (issue #18): MoE routers whose gate GEMM runs in fp32.
//!
//! vLLM builds GLM-4.5 / 4.6 / 4.7's router (`Glm4MoeForCausalLM`) as a plain `nn.Linear(hidden,
//! n_routed_experts, bias=False, dtype=torch.float32)` and feeds it `hidden_states.to(torch.float32)`
//! (`vllm/model_executor/models/glm4_moe.py` `Glm4MoE.__init__` / `forward`: vLLM 0.10.2 lines 124-128
//! and 189, 0.11.0 lines 124-128 and 205, and vllm-project/vllm main at 002d6073), so the replicated
//! gate weight is fp32 (4 B a parameter, where the checkpoint stores bf16) and its GEMM is an fp32
//! one. SGLang's `Glm4MoeGate` keeps the model dtype (0.5.3 `models/glm4_moe.py` `Glm4MoeGate`:
//! `nn.Parameter(torch.empty((n_routed_experts, hidden_size)))`, `F.linear`): nothing changes there.
//! MiniMax-M2 (SGLang `params_dtype=torch.float32`) and Bailing with `router_dtype = "fp32"` already
//! had fp32 gates (`weights`); [`ModelSpec::router_gate_fp32`] names all three.
//!
//! An fp32 GEMM with fp32 inputs runs on the CUDA cores, not the tensor cores, unless TF32 is
//! allowed: PyTorch's default is `torch.backends.cuda.matmul.allow_tf32 = False` (PyTorch notes
//! "TensorFloat-32 (TF32) on Ampere (and later) devices", since 1.12) and neither vLLM 0.11.0 nor
//! SGLang 0.5.8 sets it or `set_float32_matmul_precision` (their wheels hold no such call). The
//! simulator costs that GEMM at `gpu.fp32_tflops` (`sim` `passes::fp32_router`).

use super::{Architecture, ModelSpec};

impl ModelSpec {
    /// Whether the MoE router's gate weight is fp32 (and its GEMM an fp32 one): MiniMax-M2,
    /// Bailing with `router_dtype = "fp32"`, GLM-4.x MoE under vLLM ([`ModelSpec::serve_glm4_moe_as_vllm`]).
    pub fn router_gate_fp32(&self) -> bool {
        self.arch == Architecture::MiniMaxM2 || self.router_fp32
    }

    /// h200gl51: the model as vLLM serves it — for `Glm4MoeForCausalLM`, an fp32 router gate (module
    /// doc); any other model is left as lowered.
    pub fn serve_glm4_moe_as_vllm(&mut self) {
        if self.arch == Architecture::Glm4Moe {
            self.router_fp32 = true;
        }
    }

    /// The FLOPs of one MoE layer's fp32 router GEMM over `tokens` rows: 2 × router columns (routed
    /// experts, plus LongCat-Flash's zero experts: [`ModelSpec::zero_experts`]) × hidden × tokens
    /// when [`ModelSpec::router_gate_fp32`], else 0 (the gate is replicated: every rank runs all of
    /// it).
    pub fn router_fp32_flops(&self, n_experts: u64, tokens: u32) -> f64 {
        if self.router_gate_fp32() {
            let columns = n_experts.saturating_add(self.zero_experts);
            2.0 * columns as f64 * self.hidden as f64 * f64::from(tokens)
        } else {
            0.0
        }
    }
}

#[cfg(test)]
// Exact equality is the point: the FLOP counts are integers well inside f64's exact range.
#[allow(clippy::float_cmp)]
mod tests {
    use crate::llm::{ModelSpec, Quantization};

    const GLM46: &str = include_str!("../../../scenarios/models/glm-4.6/config.json");

    fn glm46() -> ModelSpec {
        ModelSpec::from_config_json(GLM46, Quantization::bf16()).unwrap()
    }

    /// As lowered (SGLang's layout) GLM-4.6's gate is bf16; under vLLM it is fp32, and each of the
    /// 89 MoE layers' gates (160 × 5120 parameters) grows by 2 B a parameter: 160 × 5120 × 2 × 89
    /// = 145,817,600 B more per rank (replicated, so at any TP).
    #[test]
    fn glm46_gate_is_fp32_under_vllm_only() {
        let sglang = glm46();
        assert!(!sglang.router_gate_fp32());
        let mut vllm = glm46();
        vllm.serve_glm4_moe_as_vllm();
        assert!(vllm.router_gate_fp32());
        let grow = vllm.weight_breakdown(8).total() - sglang.weight_breakdown(8).total();
        assert_eq!(grow, 160 * 5120 * 2 * 89);
        // An 8,192-token chunk: 2 × 160 × 5120 × 8192 = 1.342e10 FLOPs a layer.
        assert_eq!(vllm.router_fp32_flops(160, 8192), 2.0 * 160.0 * 5120.0 * 8192.0);
        assert_eq!(sglang.router_fp32_flops(160, 8192), 0.0);
    }
}
