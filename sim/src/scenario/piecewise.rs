//! SGLang's `--enable-piecewise-cuda-graph` (issue #17 point 5): checked and turned into the reserve
//! its default `mem_fraction_static` adds (`tpsim_model::sglang_piecewise`).

use super::{EngineKind, Resolver, ScenarioError};
use tpsim_model::llm::{Attention, ModelSpec};
use tpsim_model::memory::SglangEra;
use tpsim_model::sglang_piecewise::piecewise_reserve_mib;

impl Resolver<'_> {
    /// The reserve (MiB) `enable_piecewise_cuda_graph` adds to SGLang's default fraction: 0 when off;
    /// refused under vLLM (an SGLang flag) and before the late-2025 era (tpsim models SGLang 0.5.9's
    /// rule). `chunk`: the chunk size SGLang works with (`chunk_reserve::effective_chunk`).
    pub(super) fn piecewise_reserve(
        &self,
        enabled: Option<bool>,
        kind: EngineKind,
        era: SglangEra,
        chunk: Option<u64>,
        model: &ModelSpec,
    ) -> Result<f64, ScenarioError> {
        if !enabled.unwrap_or(false) {
            return Ok(0.0);
        }
        let key = "engine.enable_piecewise_cuda_graph";
        if kind == EngineKind::Vllm {
            return Err(self.invalid(
                key,
                "an SGLang flag: vLLM compiles piecewise CUDA graphs by default",
            ));
        }
        if era < SglangEra::Late2025 {
            return Err(self.invalid(
                key,
                "tpsim models the piecewise CUDA-graph reserve of SGLang 0.5.9 (late-2025 and spring-2026 eras) only",
            ));
        }
        // `piecewise_cuda_graph_max_tokens` = chunked_prefill_size (the user's or the bucket's,
        // `chunk_reserve::effective_chunk`); −1 (off) captures no size (0 here).
        let mla = matches!(model.attention, Attention::Mla { .. });
        Ok(piecewise_reserve_mib(chunk.unwrap_or(0), mla))
    }
}
