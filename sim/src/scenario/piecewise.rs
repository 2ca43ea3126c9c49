//! SGLang's prefill (piecewise) CUDA graphs and the other release-keyed terms of its default
//! `mem_fraction_static` reserve (issue #17 point 5; sglres53: `tpsim_model::sglang_reserve`, read in
//! the 0.5.9 – 0.5.23 wheels). `engine.enable_piecewise_cuda_graph` is SGLang 0.5.9's
//! `--enable-piecewise-cuda-graph`; `false` is `--disable-piecewise-cuda-graph` from 0.5.10
//! (`--cuda-graph-backend-prefill disabled` from 0.5.20, where the old flag is gone).

use super::{EngineKind, Resolver, ScenarioError};
use tpsim_model::llm::{Attention, ModelSpec};
use tpsim_model::memory::SglangEra;
use tpsim_model::sglang_reserve::{GraphContext, ReserveTerms, era_rule, reserve_rule, reserve_terms};

/// What the reserve reads from the rest of the engine section.
pub(super) struct ReserveInput<'a> {
    pub enabled: Option<bool>,
    pub kind: EngineKind,
    pub era: SglangEra,
    /// The release when the era comes from it (`None` with `engine.costs.era`: the era's rule).
    pub version: Option<&'a str>,
    /// The chunk size SGLang works with (`chunk_reserve::effective_chunk`).
    pub chunk: Option<u64>,
    pub model: &'a ModelSpec,
    /// `--disable-cuda-graph` not given.
    pub decode_graphs: bool,
    pub speculative: bool,
    /// (DP attention, pp, decode context parallelism > 1).
    pub parallel: (bool, u32, bool),
    pub amd: bool,
    pub deepep: bool,
    /// (`max_total_tokens`, `context_length`) as the user gave them.
    pub caps: (Option<u64>, Option<u64>),
}

impl Resolver<'_> {
    /// The release's reserve terms (`ReserveTerms`; all zero for vLLM or before the late-2025 era,
    /// whose rules have no such terms). `enable_piecewise_cuda_graph` is refused under vLLM (an
    /// SGLang flag) and before the late-2025 era; SGLang's deprecation texts go to `warnings`.
    pub(super) fn piecewise_reserve(
        &self,
        i: &ReserveInput,
        warnings: &mut Vec<String>,
    ) -> Result<ReserveTerms, ScenarioError> {
        let key = "engine.enable_piecewise_cuda_graph";
        if i.enabled == Some(true) && i.kind == EngineKind::Vllm {
            return Err(self.invalid(
                key,
                "an SGLang flag: vLLM compiles piecewise CUDA graphs by default",
            ));
        }
        if i.enabled == Some(true) && i.era < SglangEra::Late2025 {
            return Err(self.invalid(
                key,
                "tpsim models the piecewise CUDA-graph reserve of SGLang 0.5.3 – 0.5.23 (0.5.9's rule to 0.5.9; late-2025 and spring-2026 eras) only",
            ));
        }
        let none = ReserveTerms {
            prefill_graphs: false,
            before_floor_mib: 0.0,
            after_floor_mib: 0.0,
            decode_term: true,
        };
        if i.kind == EngineKind::Vllm || i.era < SglangEra::Late2025 {
            return Ok(none);
        }
        let rule = match i.version.and_then(reserve_rule) {
            Some(r) => r,
            None => era_rule(i.era == SglangEra::Spring2026),
        };
        match (i.enabled, rule.patch) {
            // `DeprecatedAction` (0.5.10 – 0.5.13 server_args.py): a no-op with this text.
            (Some(true), 10..=13) => warnings.push(
                "The command line argument '--enable-piecewise-cuda-graph' is deprecated and will be removed in \
                 future versions."
                    .into(),
            ),
            (Some(true), 14..) => warnings.push(format!(
                "SGLang 0.5.{} has no --enable-piecewise-cuda-graph: read as an explicit prefill backend \
                 (--cuda-graph-backend-prefill {}), which skips the auto-disable rules",
                rule.patch,
                if rule.patch == 14 { "tc_piecewise" } else { "breakable" }
            )),
            // `DeprecatedStoreConstAction` (0.5.14 – 0.5.19, `arg_groups/argparse_actions.py`).
            (Some(false), 14..=19) => warnings.push(
                "'--disable-piecewise-cuda-graph' is deprecated and will be removed in a future release. Use \
                 '--cuda-graph-backend-prefill=disabled' instead."
                    .into(),
            ),
            _ => {}
        }
        let c = GraphContext {
            user_prefill: i.enabled,
            decode_graphs: i.decode_graphs,
            arch: i.model.arch,
            mla: matches!(i.model.attention, Attention::Mla { .. }),
            multimodal: i.model.has_vision || i.model.sglang_multimodal,
            speculative: i.speculative,
            dp_attention: i.parallel.0,
            pp: i.parallel.1,
            amd: i.amd,
            deepep: i.deepep,
            dcp: i.parallel.2,
        };
        Ok(reserve_terms(&rule, &c, i.chunk, i.caps))
    }
}
