//! fp8decode: the activation quantization in front of every block-FP8 GEMM.
//!
//! A linear layer stored as block-FP8 (fp8 e4m3 weights with one fp32 scale per 128 × 128 block,
//! DeepSeek-V3's `weight_block_size`) multiplies fp8 activations with one scale per token per
//! 128-wide group of inputs. The engines compute them at run time, in a kernel of their own
//! launched before the GEMM:
//! - SGLang (0.5.3 – 0.5.7, `layers/quantization/fp8_utils.py`): on SM 9.0
//!   `dispatch_w8a8_block_fp8_linear` picks `deepgemm_w8a8_block_fp8_linear_with_fallback`
//!   (`deep_gemm_wrapper.ENABLE_JIT_DEEPGEMM`, on by default on Hopper), which calls
//!   `sglang_per_token_group_quant_fp8` and then `w8a8_block_fp8_matmul_deepgemm`; the CUTLASS and
//!   triton fallbacks (`cutlass_w8a8_block_fp8_linear_with_fallback`,
//!   `triton_w8a8_block_fp8_linear`, the SM 12.0 path) quantize the same way first;
//! - vLLM 0.16 (`W8A8BlockFp8LinearOp.apply`): `QuantFP8` per token group (group 128), then the
//!   block-scaled GEMM (DeepGEMM, CUTLASS `cutlass_scaled_mm` or triton `w8a8_block_fp8_matmul`).
//!   Under torch.compile Inductor may fuse that quantization into the norm or activation kernel
//!   before it; the count here is SGLang's (eager kernels in a CUDA graph), as the rest of
//!   `forward::attention_kernels`;
//! - the fused MoE kernels of both (`invoke_fused_moe_kernel` with a `block_shape`,
//!   `moe_kernel_quantize_input`): `per_token_group_quant_fp8` on the hidden states before the
//!   gate_up experts and on the `tokens × top_k` activated rows before the down experts.
//!
//! So a block-FP8 GEMM costs one more kernel than its weights' stream, reading the input rows in the
//! activation dtype and writing them as fp8 plus one fp32 scale per group. Not modelled: GPUs
//! without fp8 tensor cores (CUDA below SM 8.9) run block-FP8 checkpoints weight-only through
//! Marlin, which quantizes no activations (`online_quant`); per-tensor and per-channel fp8 (a
//! per-token or per-tensor quant kernel of their own) keep their old cost.

use super::ModelSpec;
use super::WeightDtype;
use super::piece::Piece;

/// fp32 bytes of one activation scale (one per token per group).
const SCALE_BYTES: u64 = 4;

/// The activation quantization of one group of pieces: kernels launched and bytes moved.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct ActQuant {
    /// One per distinct block-FP8 projection GEMM.
    pub kernels: u32,
    /// Input rows read in the activation dtype, written as fp8, plus their scales.
    pub bytes: u64,
    /// vllmfusion: the part of `kernels`/`bytes` whose input is an RMSNorm's output read by that
    /// GEMM alone ([`NormFedQuant`]), which an engine may fuse into the norm.
    pub norm_fed: NormFedQuant,
}

impl ActQuant {
    pub(crate) fn plus(self, o: ActQuant) -> ActQuant {
        ActQuant {
            kernels: self.kernels + o.kernels,
            bytes: self.bytes.saturating_add(o.bytes),
            norm_fed: self.norm_fed.plus(o.norm_fed),
        }
    }
}

/// vllmfusion: the activation-quantization kernels (and the bytes they move) of the block-FP8
/// GEMMs whose input is an RMSNorm's output that no other op reads — the ones vLLM's
/// `RMSNormQuantFusionPass` can replace, with the norm, by one `rms_norm_per_block_quant` kernel
/// (vLLM 0.13+, `compilation/fusion.py` `FusedAddRMSNormGroupQuantPattern`,
/// `RMSNormGroupQuantPattern`). Split by where the norm sits, since at TP > 1 vLLM 0.17+ first
/// fuses the residual-stream norms into the allreduce before them (`AllReduceFusionPass`):
/// - `residual`: the residual-stream norms — `input_layernorm` before `qkv_proj` (GQA) or
///   `fused_qkv_a_proj` (MLA with a q LoRA), `post_attention_layernorm` before a dense
///   `mlp.gate_up_proj`;
/// - `inner`: MLA's `q_a_layernorm` before `q_b_proj` (its input is the `fused_qkv_a_proj`
///   output, no allreduce).
///
/// Not norm-fed: `o_proj` (attention output), `down_proj` (SiluAndMul output), the routed and
/// shared experts and GEMMs that share their norm's output with another op (the MoE router,
/// MLA without a q LoRA: `q_proj` and `kv_a_proj`; Gated DeltaNet's two input projections).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize)]
pub struct NormFedQuant {
    /// Kernels and bytes after a residual-stream norm.
    pub residual_kernels: u32,
    pub residual_bytes: u64,
    /// Kernels and bytes after an inner norm (MLA's `q_a_layernorm`).
    pub inner_kernels: u32,
    pub inner_bytes: u64,
}

impl NormFedQuant {
    pub(crate) fn plus(self, o: NormFedQuant) -> NormFedQuant {
        NormFedQuant {
            residual_kernels: self.residual_kernels + o.residual_kernels,
            residual_bytes: self.residual_bytes.saturating_add(o.residual_bytes),
            inner_kernels: self.inner_kernels + o.inner_kernels,
            inner_bytes: self.inner_bytes.saturating_add(o.inner_bytes),
        }
    }

    /// Where `gemm`'s input comes from: `Some(true)` a residual-stream norm, `Some(false)` an inner
    /// norm, `None` not a sole-consumer norm (see the type's doc).
    fn place(gemm: &str) -> Option<bool> {
        match gemm {
            "qkv_proj" | "fused_qkv_a_proj" | "mlp.gate_up_proj" => Some(true),
            "q_b_proj" => Some(false),
            _ => None,
        }
    }
}

impl ModelSpec {
    /// The activation quantization of the distinct block-FP8 projection GEMMs among `pieces` (those
    /// read at decode), each over `rows(name)` input rows: a piece named twice (a GEMM split over
    /// pieces) counts once. Pieces in another format, or not a GEMM's weight, add nothing.
    pub(crate) fn act_quant(&self, pieces: &[Piece], rows: impl Fn(&str) -> u64) -> ActQuant {
        let act = self.activation_bytes();
        let mut seen: Vec<&str> = Vec::new();
        let mut q = ActQuant::default();
        for p in pieces.iter().filter(|p| p.decode) {
            let Some(name) = p.gemm else { continue };
            let f = self.format_of(p.fmt);
            let Some([_, group]) = f.block_size.filter(|_| f.dtype == WeightDtype::Fp8) else {
                continue;
            };
            if seen.contains(&name) {
                continue;
            }
            seen.push(name);
            let r = rows(name);
            let groups = p.cols.div_ceil(u64::from(group.max(1)));
            let per_row = p.cols.saturating_mul(act + 1) + groups * SCALE_BYTES;
            let b = r.saturating_mul(per_row);
            q.kernels += 1;
            q.bytes = q.bytes.saturating_add(b);
            match NormFedQuant::place(name) {
                Some(true) => {
                    q.norm_fed.residual_kernels += 1;
                    q.norm_fed.residual_bytes = q.norm_fed.residual_bytes.saturating_add(b);
                }
                Some(false) => {
                    q.norm_fed.inner_kernels += 1;
                    q.norm_fed.inner_bytes = q.norm_fed.inner_bytes.saturating_add(b);
                }
                None => {}
            }
        }
        q
    }
}

#[cfg(test)]
mod tests {
    use crate::llm::{ModelSpec, NormFedQuant, Quantization};

    const QWEN3_8B: &str = include_str!("../../../scenarios/models/qwen3-8b/config.json");
    const DEEPSEEK_V3: &str = include_str!("../../../scenarios/models/deepseek-v3/config.json");

    fn quant(json: &str) -> Quantization {
        serde_json::from_str(json).expect("quant")
    }
    fn block_fp8() -> Quantization {
        // Qwen/Qwen3-8B-FP8 and deepseek-v3/quant.toml: fp8, 128 × 128 blocks, fp32 scales.
        quant(r#"{"dtype":"fp8","block_size":[128,128],"scale_dtype":"fp32"}"#)
    }

    #[test]
    fn qwen3_8b_block_fp8_adds_one_quant_kernel_per_projection() {
        let fp8 = ModelSpec::from_config_json(QWEN3_8B, block_fp8()).expect("qwen3-8b");
        let bf16 = ModelSpec::from_config_json(QWEN3_8B, quant(r#"{"dtype":"bf16"}"#)).expect("bf16");
        let (q, b) = (fp8.forward_pass(1, 4), bf16.forward_pass(1, 4));
        let (lq, lb) = (q.layers[0], b.layers[0]);
        // GQA with per-head q/k norm: 5 + 1 kernels (`forward::attention_kernels`), + qkv_proj and
        // o_proj quantization; dense MLP 4, + gate_up_proj and down_proj.
        assert_eq!((lb.attn_kernels, lb.ffn_kernels), (6, 4));
        assert_eq!((lq.attn_kernels, lq.ffn_kernels), (8, 6));
        // By hand, 4 tokens, bf16 activations (2 B read + 1 B fp8 written per element, 4 B per
        // 128-group scale): qkv_proj and o_proj both take 4,096 inputs (32 heads × 128):
        // 4 × 2 × (4,096 × 3 + 32 × 4) = 99,328; gate_up_proj 4,096 and down_proj 12,288 inputs:
        // 4 × (12,416 + 12,288 × 3 + 96 × 4) = 198,656.
        assert_eq!(lq.attn_quant_bytes.0, 99_328);
        assert_eq!(lq.ffn_quant_bytes.0, 198_656);
        assert_eq!((lb.attn_quant_bytes.0, lb.ffn_quant_bytes.0), (0, 0));
        // vllmfusion: qkv_proj follows input_layernorm and gate_up_proj post_attention_layernorm
        // (residual-stream norms read by that GEMM alone); o_proj and down_proj follow none.
        // qkv_proj's share: 4 × (4,096 × 3 + 32 × 4) = 49,664; gate_up_proj's the same.
        let nf = |k, b| NormFedQuant {
            residual_kernels: k,
            residual_bytes: b,
            ..NormFedQuant::default()
        };
        assert_eq!(lq.attn_norm_fed_quant, nf(1, 49_664));
        assert_eq!(lq.ffn_norm_fed_quant, nf(1, 49_664));
        assert_eq!(lb.attn_norm_fed_quant, NormFedQuant::default());
        // Per-tensor fp8 (no blocks) keeps its old kernel count.
        let pt = ModelSpec::from_config_json(QWEN3_8B, quant(r#"{"dtype":"fp8"}"#)).expect("fp8");
        let l = pt.forward_pass(1, 4).layers[0];
        assert_eq!((l.attn_kernels, l.ffn_kernels, l.ffn_quant_bytes.0), (6, 4, 0));
    }

    #[test]
    fn deepseek_v3_mla_and_moe_quantize_before_each_block_fp8_gemm() {
        let m = ModelSpec::from_config_json(DEEPSEEK_V3, block_fp8()).expect("deepseek-v3");
        let l = m.forward_pass(8, 2).layers[3]; // the first MoE layer (first_k_dense_replace 3)
        // MLA 11 kernels + fused_qkv_a_proj, q_b_proj, o_proj; MoE with a shared expert 12 + the
        // routed gate_up/down and the shared gate_up/down (the router stays bf16).
        assert_eq!((l.attn_kernels, l.ffn_kernels), (14, 16));
        // 2 tokens, TP 8: fused_qkv_a_proj 7,168 inputs (7,168 × 3 + 56 × 4 = 21,728 per row),
        // q_b_proj 1,536 (4,656), o_proj 16 heads × 128 = 2,048 (6,208): 2 × 32,592 = 65,184.
        assert_eq!(l.attn_quant_bytes.0, 65_184);
        // gate_up (routed and shared) 7,168 inputs over 2 rows each: 2 × 2 × 21,728; down 2,048 / 8 =
        // 256 inputs (776 per row), shared over 2 rows, routed over 2 × top-8 = 16 rows.
        assert_eq!(l.ffn_quant_bytes.0, 4 * 21_728 + 2 * 776 + 16 * 776);
        // vllmfusion: fused_qkv_a_proj follows input_layernorm (2 × 21,728), q_b_proj
        // q_a_layernorm (2 × 4,656); the MoE's norm output also feeds the router: none there.
        let nf = NormFedQuant {
            residual_kernels: 1,
            residual_bytes: 43_456,
            inner_kernels: 1,
            inner_bytes: 9_312,
        };
        assert_eq!(l.attn_norm_fed_quant, nf);
        assert_eq!(l.ffn_norm_fed_quant, NormFedQuant::default());
        // A dense prefix layer's gate_up_proj (7,168 inputs) follows post_attention_layernorm.
        let d = m.forward_pass(8, 2).layers[0];
        assert_eq!(
            (
                d.ffn_norm_fed_quant.residual_kernels,
                d.ffn_norm_fed_quant.residual_bytes
            ),
            (1, 43_456)
        );
    }
}
