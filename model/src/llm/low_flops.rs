//! fp8rate (issue #17 point 4): the GEMM FLOPs of a layer whose weights are stored in a
//! low-precision tensor-core format — fp8 (e4m3) or NVFP4 — which the engines run as W8A8 / W4A4
//! GEMMs on GPUs with those tensor cores (SGLang and vLLM: per-tensor/per-channel fp8 through
//! CUTLASS `cutlass_scaled_mm` or `torch._scaled_mm`, block fp8 through DeepGEMM, CUTLASS blockwise
//! or triton `w8a8_block_fp8_matmul`, the fp8 fused-MoE kernels with `use_fp8_w8a8`; NVFP4 through
//! CUTLASS / FlashInfer FP4 GEMMs on SM 10.0 / 12.0). The simulator decides, per GPU and MoE
//! backend, whether these FLOPs run at the format's rate or at the bf16 rate (weight-only Marlin
//! paths: `sim/src/decode/passes/gemm_rate.rs`). Formats without their own tensor-core rate here (int4,
//! int8, mxfp4, 16/32-bit) count nothing.

use serde::Serialize;

use super::ModelSpec;
use super::WeightDtype;
use super::piece::Piece;

/// FLOPs of GEMMs on fp8 and on NVFP4 weights (2 × parameters × rows), a part of an op's FLOPs.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct LowFlops {
    /// FLOPs of GEMMs whose weights are fp8 with per-tensor or per-channel scales (`scaled_mm`).
    pub fp8: f64,
    /// FLOPs of GEMMs whose weights are block-scaled fp8 (`block_size`, e.g. 128 × 128): their
    /// kernel differs by engine (DeepGEMM, CUTLASS blockwise, triton), so the simulator decides their
    /// rate (`passes::gemm_rate`); the compute model costs them at the bf16 rate.
    pub fp8_block: f64,
    /// FLOPs of GEMMs whose weights are NVFP4.
    pub fp4: f64,
}

impl LowFlops {
    /// Nothing in a low-precision format.
    pub const NONE: LowFlops = LowFlops {
        fp8: 0.0,
        fp8_block: 0.0,
        fp4: 0.0,
    };

    /// The parts added.
    pub fn plus(self, o: LowFlops) -> LowFlops {
        LowFlops {
            fp8: self.fp8 + o.fp8,
            fp8_block: self.fp8_block + o.fp8_block,
            fp4: self.fp4 + o.fp4,
        }
    }

    /// Whether every part is zero.
    pub fn is_none(self) -> bool {
        self.fp8 == 0.0 && self.fp8_block == 0.0 && self.fp4 == 0.0
    }
}

impl ModelSpec {
    /// The FLOPs of the pieces among `pieces` read at decode whose format is fp8 or NVFP4, each
    /// multiplied over `rows` rows (tokens; `top_k` × tokens for routed experts): 2 × params × rows,
    /// as `forward` counts every GEMM's FLOPs.
    pub(crate) fn low_flops(&self, pieces: &[Piece], rows: f64) -> LowFlops {
        let mut out = LowFlops::NONE;
        for p in pieces.iter().filter(|p| p.decode) {
            let f = 2.0 * p.params() as f64 * rows;
            let fmt = self.format_of(p.fmt);
            match fmt.dtype {
                WeightDtype::Fp8 if fmt.block_size.is_some() => out.fp8_block += f,
                WeightDtype::Fp8 => out.fp8 += f,
                WeightDtype::Nvfp4 => out.fp4 += f,
                _ => {}
            }
        }
        out
    }
}

#[cfg(test)]
// Exact equality is the point: the FLOP counts are integers well inside f64's exact range.
#[allow(clippy::float_cmp)]
mod tests {
    use crate::llm::{LowFlops, ModelSpec, Quantization};

    const QWEN3_8B: &str = include_str!("../../../scenarios/models/qwen3-8b/config.json");
    const DEEPSEEK_V3: &str = include_str!("../../../scenarios/models/deepseek-v3/config.json");

    fn quant(json: &str) -> Quantization {
        serde_json::from_str(json).expect("quant")
    }

    #[test]
    fn qwen3_8b_fp8_projections_are_low_precision_flops() {
        // Qwen3-8B config: hidden 4,096, 32 heads and 8 KV heads of 128, intermediate 12,288, TP 1.
        // qkv_proj 4,096 × (4,096 + 2 × 1,024) + o_proj 4,096 × 4,096 = 41,943,040 params;
        // gate_up 4,096 × 24,576 + down 12,288 × 4,096 = 150,994,944. Over 4 tokens, 2 × params × 4:
        // 335,544,320 and 1,207,959,552 FLOPs. The q/k and layer norms stay bf16 (not counted).
        let fp8 = ModelSpec::from_config_json(QWEN3_8B, quant(r#"{"dtype":"fp8"}"#)).expect("fp8");
        let l = fp8.forward_pass(1, 4).layers[0];
        assert_eq!(l.attn_low_flops.fp8, 335_544_320.0);
        assert_eq!(l.ffn_low_flops.fp8, 1_207_959_552.0);
        assert_eq!((l.attn_low_flops.fp4, l.expert_low_flops), (0.0, LowFlops::NONE));
        assert_eq!(l.attn_low_flops.fp8_block, 0.0);
        // All of the MLP's FLOPs are fp8 GEMMs; the attention's include the bf16 norms' 2 × params.
        assert_eq!(l.ffn_low_flops.fp8, l.ffn_flops);
        assert!(l.attn_low_flops.fp8 < l.attn_flops);
        // NVFP4 weights count as fp4; bf16 and int4 count nothing.
        let nv = ModelSpec::from_config_json(QWEN3_8B, quant(r#"{"dtype":"nvfp4"}"#)).expect("nvfp4");
        assert_eq!(nv.forward_pass(1, 4).layers[0].ffn_low_flops.fp4, 1_207_959_552.0);
        for q in [r#"{"dtype":"bf16"}"#, r#"{"dtype":"int4","group_size":128}"#] {
            let m = ModelSpec::from_config_json(QWEN3_8B, quant(q)).expect("model");
            let l = m.forward_pass(1, 4).layers[0];
            assert!(l.attn_low_flops.is_none() && l.ffn_low_flops.is_none(), "{q}");
        }
    }

    #[test]
    fn deepseek_v3_routed_and_shared_experts_apart_router_bf16() {
        // DeepSeek-V3 block FP8 at TP 8, 2 tokens, first MoE layer (3): one routed expert's shard is
        // gate_up 7,168 × 512 + down 256 × 7,168 = 5,505,024 params; 8 experts per token →
        // 2 × 5,505,024 × 8 × 2 = 176,160,768 FLOPs. The shared expert (intermediate 2,048, sharded
        // the same): 2 × 5,505,024 × 2 = 22,020,096. The router (256 × 7,168, plus the 256 fp32
        // `e_score_correction_bias` that `forward` counts with it) is not quantized.
        let q = quant(r#"{"dtype":"fp8","block_size":[128,128],"scale_dtype":"fp32"}"#);
        let m = ModelSpec::from_config_json(DEEPSEEK_V3, q).expect("deepseek-v3");
        let l = m.forward_pass(8, 2).layers[3];
        assert_eq!(l.expert_low_flops.fp8_block, 176_160_768.0);
        assert_eq!(l.ffn_low_flops.fp8_block, 22_020_096.0);
        assert_eq!((l.expert_low_flops.fp8, l.ffn_low_flops.fp8), (0.0, 0.0));
        let router = 2.0 * (256.0 * 7168.0 + 256.0) * 2.0;
        assert_eq!(l.ffn_flops, 176_160_768.0 + 22_020_096.0 + router);
    }
}
