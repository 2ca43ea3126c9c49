//! The draft's share of vLLM's memory plan (issue #17), as vLLM 0.11.0 sizes it:
//!
//! - weights: `gpu_model_runner.py` `load_model` loads the drafter (`self.drafter.load_model`) inside
//!   the same `DeviceMemoryProfiler` block as the target, so "Model loading took … GiB" counts both
//!   and the KV budget subtracts both (`scenario::vllm_spec::vllm_draft_weights` for the pieces);
//! - KV: the drafter's attention layers register in the same static forward context as the target's
//!   (`eagle.py` `load_model`: the draft layers are the `Attention` layers the draft model added), so
//!   `get_kv_cache_spec` gives them KV specs like any layer; with one attention type they join the
//!   target's single KV-cache group (`validate_same_kv_cache_group` asserts all draft layers share
//!   one group), and every block holds the draft layers' pages too: the cell per token grows by the
//!   draft's cell, at the engine's one `cache_dtype`. The draft's KV therefore has as many token
//!   slots as the target's.

use crate::scenario::Scenario;
use tpsim_model::units::Bytes;

/// The draft's weights (per rank) and KV cell (bytes per token per rank) under vLLM; zero without
/// speculation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct DraftMemory {
    pub weights: Bytes,
    pub cell: u64,
}

impl DraftMemory {
    pub fn of(s: &Scenario) -> Self {
        // The n-gram proposer has no model.
        let Some(sp) = s.speculative.as_ref().filter(|sp| sp.algorithm != "ngram") else {
            return DraftMemory::default();
        };
        let mut draft = sp.draft.clone();
        // vLLM's `cache_config.cache_dtype` is engine-wide: the draft's pages use the target's.
        draft.quantization.kv_cache_dtype = s.model.quantization.kv_cache_dtype;
        draft.dtype = s.model.dtype;
        DraftMemory {
            weights: sp.draft_weights,
            cell: draft.kv_cell_bytes(s.engine.tp),
        }
    }
}
