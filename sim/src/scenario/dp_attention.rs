//! Issue #17: SGLang's DP attention (`--enable-dp-attention`, `--dp-size`) checked and resolved as
//! SGLang 0.5.9 `server_args.py` does (`_handle_data_parallelism`) plus the refusals of what tpsim
//! does not model.

use super::{EngineKind, ScenarioError};
use tpsim_model::llm::{Architecture, ModelSpec};
use tpsim_model::memory::SglangEra;

/// DP attention as resolved: `dp` attention groups of `attn_tp = tp / dp` ranks each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DpAttention {
    /// `--dp-size`: attention data-parallel groups.
    pub dp: u32,
    /// Attention TP size, tp / dp (SGLang `compute_dp_attention_world_info`).
    pub attn_tp: u32,
    /// SGLang's `chunked_prefill_size` before its DP adjustment (its per-card default in the late-2025
    /// and later eras; `None` in earlier ones), for the warning.
    pub chunked_prefill_size: Option<u64>,
}

impl DpAttention {
    /// What SGLang adjusts and logs at start-up with DP attention on.
    pub fn warnings(&self) -> Vec<String> {
        // SGLang 0.5.9 `_handle_data_parallelism`: chunked_prefill_size //= dp_size with this warning;
        // schedule_conservativeness *= 0.3 (silently).
        let adjusted = match self.chunked_prefill_size {
            Some(c) => (c / u64::from(self.dp)).to_string(),
            None => format!("chunked_prefill_size / {}", self.dp),
        };
        vec![format!(
            "SGLang: \"DP attention is enabled. The chunked prefill size is adjusted to {adjusted} to avoid MoE \
             kernel issues.\" (dp-size {}, attention TP {})",
            self.dp, self.attn_tp
        )]
    }
}

/// Architectures whose SGLang 0.5.9 model builds its layers on `layers/communicator.py`
/// `LayerCommunicator` (which does DP attention's gather before the MLP and scatter after it) and
/// shards attention by `get_attention_tp_size()`: `deepseek_v2.py` (DeepSeek-V2/V3/V3.2, GLM-5
/// through `glm4_moe.py`, Kimi-K2.5 through `kimi_k25.py`, Kimi-VL through `kimi_vl.py`),
/// `glm4_moe.py`, `qwen3.py`, `qwen3_moe.py`, `qwen2_moe.py`, `qwen3_5.py`, `qwen3_next.py`, `minimax_m2.py`,
/// `gpt_oss.py`, `llama4.py`.
fn supported(arch: Architecture) -> bool {
    use Architecture::*;
    matches!(
        arch,
        DeepseekV2
            | DeepseekV3
            | DeepseekV32
            | GlmMoeDsa
            | KimiK25
            | KimiVl
            | Glm4Moe
            | Qwen3
            | Qwen3Moe
            | Qwen2Moe
            | Qwen35Moe
            | Qwen35
            | Qwen3Next
            | MiniMaxM2
            | GptOss
            | Llama4
            // families31 (issue #17): `mistral_large_3.py` subclasses `deepseek_v2.py`'s
            // `DeepseekV3ForCausalLM`.
            | MistralLarge3
    )
}

/// Resolves `engine.enable_dp_attention` / `engine.dp_size`. `invalid(key, message)` builds the
/// scenario's typed error. SGLang turns DP attention off when dp_size is 1; dp_size without DP
/// attention is SGLang's replica data parallelism (tp × dp GPUs, `scenario::replicas`).
pub fn resolve(
    (enable, dp_size): (Option<bool>, Option<u32>),
    kind: EngineKind,
    tp: u32,
    era: SglangEra,
    // The card's MiB and the release's per-card table (sglmem54: `tpsim_model::sglang_buckets`).
    (gpu_mem_mib, table): (u64, tpsim_model::sglang_buckets::BucketTable),
    model: &ModelSpec,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Option<DpAttention>, ScenarioError> {
    let enable = enable.unwrap_or(false);
    let dp = dp_size.unwrap_or(1);
    if dp == 0 {
        return Err(invalid(
            "engine.dp_size",
            "0: expected a data-parallel size ≥ 1".into(),
        ));
    }
    if kind == EngineKind::Vllm && enable {
        return Err(invalid(
            "engine.enable_dp_attention",
            "an SGLang setting (--enable-dp-attention): vLLM's data parallelism is `dp_size` \
             (--data-parallel-size)"
                .into(),
        ));
    }
    // Issue #17 (dp): dp_size without DP attention (and vLLM's dp_size) is data-parallel replicas,
    // resolved in `scenario::replicas`.
    if !enable || kind == EngineKind::Vllm {
        return Ok(None);
    }
    // SGLang 0.5.9 `_handle_data_parallelism`: dp_size 1 turns DP attention off.
    if dp == 1 {
        return Ok(None);
    }
    // SGLang 0.5.9 `_handle_data_parallelism`: `assert self.tp_size % self.dp_size == 0` (no text).
    if !tp.is_multiple_of(dp) {
        return Err(invalid(
            "engine.dp_size",
            format!(
                "{dp}: SGLang refuses (AssertionError in server_args.py _handle_data_parallelism: \
                 `tp_size % dp_size == 0`): expected a dp_size that divides tp {tp}"
            ),
        ));
    }
    // families38 (issue #17): MiniMax-M3 (SGLang from 0.5.16) is refused with what tpsim models of it
    // (`scenario::minimax_m3`), not with the 0.5.9 LayerCommunicator reason below.
    if model.minimax_m3.is_some() {
        return Err(invalid(
            "engine.enable_dp_attention",
            format!(
                "MiniMax-M3 with DP attention is not modelled: {}",
                tpsim_model::llm::minimax_m3::NOT_MODELLED
            ),
        ));
    }
    // dsv4_64 (issue #17): DeepSeek-V4 (SGLang from 0.5.12) likewise, with `scenario::dsv4`'s text.
    if model.deepseek_v4.is_some() {
        return Err(invalid(
            "engine.enable_dp_attention",
            format!(
                "DeepSeek-V4 with DP attention is not modelled: {}",
                tpsim_model::llm::deepseek_v4::NOT_MODELLED
            ),
        ));
    }
    if !supported(model.arch) {
        return Err(invalid(
            "engine.enable_dp_attention",
            format!(
                "{:?}: SGLang 0.5.9's model for this architecture does not use LayerCommunicator, so DP \
                 attention has no gather/scatter around its MLP there; tpsim models DP attention for \
                 DeepSeek-V2/V3/V3.2, Kimi, GLM-4.5/5, Qwen3 (dense and MoE), Qwen2-MoE, Qwen3.5-MoE, \
                 MiniMax-M2, gpt-oss and Llama-4",
                model.arch
            ),
        ));
    }
    // The per-card default chunked_prefill_size (SGLang `_handle_gpu_memory_settings`), for the warning.
    let chunked = (era >= SglangEra::Late2025)
        .then(|| tpsim_model::sglang_buckets::sglang_buckets(gpu_mem_mib, tp, table).0 as u64);
    Ok(Some(DpAttention {
        dp,
        attn_tp: tp / dp,
        chunked_prefill_size: chunked,
    }))
}
