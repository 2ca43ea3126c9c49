//! MiniMax-Text-01 and MiniMax-M1 (`MiniMaxText01ForCausalLM`, `MiniMaxM1ForCausalLM`; helper
//! families27, issue #17): 80 layers, lightning (linear) attention in seven of every eight and GQA
//! softmax attention in the eighth, every layer 32 SiLU experts top-2 behind an fp32 router.
//!
//! Sources, read from the released wheels: vLLM 0.11.0 `model_executor/models/minimax_text_01.py`
//! (`MiniMaxText01DecoderLayer`, `MiniMaxText01MoE`, `MiniMaxText01Attention`,
//! `MiniMaxText01ForCausalLM`), `model_executor/layers/mamba/linear_attn.py`
//! (`MiniMaxText01LinearAttention`, `MiniMaxText01RMSNormTP`), `layers/mamba/mamba_utils.py`
//! (`linear_attention_state_shape`, `linear_attention_state_dtype`), `layers/lightning_attn.py`
//! (`linear_decode_forward_triton`); the 0.10.2, 0.19.0 and 0.22.0 wheels build the same tensors.
//! vLLM's registry maps `MiniMaxForCausalLM`, `MiniMaxText01ForCausalLM` and `MiniMaxM1ForCausalLM`
//! to the same class. No SGLang wheel read (0.4.9 … 0.5.23) registers any of the three
//! (`sim::scenario::first_release`).
//!
//! Layer `i` is lightning attention when `attn_type_list[i] == 0`, softmax attention when it is 1
//! (vLLM reads `attn_type_list`, else `decoder_attention_types`, else the HF spelling `layer_types`
//! with `"linear_attention"` / `"full_attention"`, else all softmax). Every layer is MoE when
//! `num_local_experts > 1` (`MiniMaxText01MoE(intermediate_size=config.intermediate_size)`).
//!
//! | piece (per lightning layer, per rank; P = heads × head_dim) | shape | TP rule |
//! |---|---|---|
//! | `input_layernorm`, `post_attention_layernorm` | hidden each | replicated |
//! | `qkv_proj` | 3P / tp × hidden | `ColumnParallelLinear`, quantizable |
//! | `output_gate` | P / tp × hidden | `ColumnParallelLinear`, quantizable |
//! | `norm` (`MiniMaxText01RMSNormTP(P)`) | P / tp | sharded (its variance all-reduced at tp > 1) |
//! | `out_proj` | hidden × P / tp | `RowParallelLinear`, quantizable |
//!
//! The per-head decay `slope_rate` is a buffer built from the head count, not a checkpoint tensor.
//! The softmax layers are tpsim's GQA pieces without biases (`QKVParallelLinear(bias=False)`,
//! `RowParallelLinear(bias=False)`), with a rotary of `rotary_dim` (64 of 128). The MoE: `gate`
//! (`ReplicatedLinear(hidden, num_local_experts, params_dtype=torch.float32, quant_config=None)`)
//! and `FusedMoE` experts. The LM head is cast to float32 (`MiniMaxText01ForCausalLM.__init__`:
//! `self.lm_head.float()`), so it holds 4 B a value ([`super::ModelSpec::lm_head_fp32`]).
//!
//! **Recurrent state** per lightning layer per request per rank: one tensor of heads / tp × head_dim ×
//! head_dim (`linear_attention_state_shape`), at `--mamba-cache-dtype` (`auto` = the model dtype:
//! `linear_attention_state_dtype`); no conv state. tpsim holds it as a [`GatedDeltaNet`] with
//! num_k_heads = num_v_heads = heads, head_k = head_v = head_dim and a conv kernel of 1 (kernel − 1 = 0
//! conv values), whose SSM state is exactly that tensor. MiniMax-M1 at tp 8, bf16: 8 × 128 × 128 × 2
//! = 262,144 B a layer, × 70 layers = 18,350,080 B a request.

use super::config::ModelConfig;
use super::hybrid::{GatedDeltaNet, Mixer};
use super::piece::{Fmt, Piece};
use super::{ModelError, invalid};

/// Kernels of a lightning layer at decode (vLLM 0.11.0 `linear_attn.py`
/// `MiniMaxText01LinearAttention._forward` and `_decode_infer`, `lightning_attn.py`
/// `linear_decode_forward_triton`; the op runs outside torch.compile as the custom op
/// `vllm.linear_attention`, so each torch call is a kernel): the layer's RMSNorm, the `qkv_proj` GEMM,
/// the float32 cast, SiLU, three `contiguous` copies of q, k and v, `_linear_attn_decode_kernel`,
/// the output's rearranging copy, `MiniMaxText01RMSNormTP._forward` (cast, square, mean, rsqrt of the
/// variance plus eps as two, normalise, cast back, weight = 8; its all-reduce of the variance at tp > 1
/// is not among them), the `output_gate` GEMM, sigmoid, the gating multiply, the cast, the `out_proj`
/// GEMM = 1 + 1 + 2 + 3 + 1 + 1 + 8 + 4 + 1 = 22.
pub const LIGHTNING_KERNELS: u32 = 22;

/// Layer mixers and the lightning shape of a MiniMax-Text-01 / M1 config.
pub(crate) struct Blocks {
    /// Each layer's mixer: [`Mixer::Linear`] for lightning, [`Mixer::Attention`] for softmax.
    pub mixers: Vec<Mixer>,
    /// The lightning state's shape (module doc).
    pub lightning: GatedDeltaNet,
}

/// Each layer's mixer and the lightning state's shape.
///
/// Errors: a layer list of another length than `num_hidden_layers`, an entry other than 0 / 1 (vLLM:
/// "Unsupported attention type"), a `layer_types` entry other than the two names (vLLM: "Unsupported
/// layer type"), a `shared_intermediate_size` above 0 (vLLM builds a shared MLP with a fp32
/// coefficient gate; no published MiniMax-Text-01 / M1 config has one, and tpsim does not lower it),
/// `hidden_act` other than silu (`SiluAndMul` and the `FusedMoE` are SiLU whatever the config says;
/// a config that says otherwise is not one of these models), a head count the state cannot split
/// (checked by the caller's TP validation).
pub(crate) fn blocks(
    text: &ModelConfig,
    num_layers: u64,
    heads: u64,
    head_dim: u64,
    dtype_bytes: u64,
    an: &str,
) -> Result<Blocks, ModelError> {
    if let Some(act) = text.hidden_act.as_deref().filter(|a| *a != "silu") {
        return Err(invalid(
            "hidden_act",
            format!("\"{act}\""),
            "\"silu\" (vLLM minimax_text_01.py builds SiluAndMul / a SiLU FusedMoE whatever the config says)"
                .into(),
        ));
    }
    if let Some(s) = text.shared_intermediate_size.filter(|&s| s > 0) {
        return Err(invalid(
            "shared_intermediate_size",
            s.to_string(),
            format!(
                "0 ({an}: vLLM 0.11.0 minimax_text_01.py builds a shared MLP with a coefficient gate when it is \
                 above 0; no published MiniMax-Text-01 / M1 config has one and tpsim does not lower it)"
            ),
        ));
    }
    let mixers = match &text.attn_type_list {
        Some(list) => {
            if list.len() as u64 != num_layers {
                return Err(invalid(
                    "attn_type_list",
                    format!("{} entries", list.len()),
                    format!("one 0 (lightning) or 1 (softmax) per layer: num_hidden_layers = {num_layers}"),
                ));
            }
            list.iter()
                .map(|&t| match t {
                    0 => Ok(Mixer::Linear),
                    1 => Ok(Mixer::Attention),
                    other => Err(invalid(
                        "attn_type_list",
                        other.to_string(),
                        "0 (lightning) or 1 (softmax attention) (vLLM minimax_text_01.py: \"Unsupported attention \
                         type\")"
                            .into(),
                    )),
                })
                .collect::<Result<Vec<_>, _>>()?
        }
        // The HF spelling: "linear_attention" / "full_attention", as Qwen3-Next's.
        None if text.layer_types.is_some() => super::config::hybrid_mixers(text, num_layers, an)?,
        // vLLM: "Default to full attention".
        None => vec![Mixer::Attention; usize::try_from(num_layers).unwrap_or(0)],
    };
    Ok(Blocks {
        mixers,
        lightning: GatedDeltaNet {
            num_k_heads: heads,
            num_v_heads: heads,
            head_k_dim: head_dim,
            head_v_dim: head_dim,
            // No conv state: kernel − 1 = 0 values.
            conv_kernel: 1,
            // vLLM `linear_attention_state_dtype`: `--mamba-cache-dtype` `auto` = the model dtype.
            ssm_state_bytes: dtype_bytes,
            declared_ssm_state_bytes: None,
        },
    })
}

/// One lightning layer's pieces on one rank (module table), with the layer's two norms.
pub(crate) fn lightning_pieces(g: &GatedDeltaNet, hidden: u64, t: u64) -> Vec<Piece> {
    let h = hidden;
    let p_local = g.value_dim() / t;
    vec![
        Piece::vec(h), // input_layernorm
        Piece::vec(h), // post_attention_layernorm
        Piece::new(3 * p_local, h, Fmt::Linear).gemm("lightning.qkv_proj"),
        Piece::new(p_local, h, Fmt::Linear).gemm("lightning.output_gate"),
        Piece::vec(p_local), // norm (MiniMaxText01RMSNormTP)
        Piece::new(h, p_local, Fmt::Linear).gemm("lightning.out_proj"),
    ]
}

/// vLLM's page of one lightning layer for one request on one rank, bytes: heads / tp × head_dim ×
/// head_dim at `state_bytes` (`--mamba-cache-dtype`; `auto` = the model dtype). MiniMax-M1 at tp 8,
/// bf16: 8 × 128 × 128 × 2 = 262,144.
pub fn vllm_state_page(g: &GatedDeltaNet, tp: u32, state_bytes: u64) -> u64 {
    let t = u64::from(tp.max(1));
    (g.num_v_heads / t) * g.head_k_dim * g.head_v_dim * state_bytes
}
