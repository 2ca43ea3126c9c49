//! Issue #18 (frontend): the API server in front of the engine's scheduler, as the scenario sets it
//! (`serve::frontend` runs it).
//!
//! Keys: `[engine] api_server_count` (vLLM's `--api-server-count`, vLLM PR #17546, merged May 2025;
//! default 1, "How many API server processes to run") and `[engine.costs] frontend_request_cost`,
//! `frontend_prompt_token_cost`, `frontend_output_token_cost` (CPU time of one API-server process;
//! the engine preset's, 0 when it has none). SGLang's front end is two processes (TokenizerManager
//! with the HTTP server, DetokenizerManager), which this single-server model does not describe:
//! the costs are refused under SGLang rather than modelled wrongly.

use super::{EngineCosts, EngineKind, Resolver, ScenarioError};
use tpsim_model::units::Duration;

/// The front end as configured (all costs zero: off).
#[derive(Debug, Clone, PartialEq)]
pub struct Frontend {
    /// API-server processes (vLLM `--api-server-count`).
    pub api_server_count: u32,
    /// CPU time per request (HTTP, chat template, set-up).
    pub request_cost: Duration,
    /// CPU time per prompt token (tokenization).
    pub prompt_token_cost: Duration,
    /// CPU time per output token (detokenization, SSE chunk).
    pub output_token_cost: Duration,
}

impl Resolver<'_> {
    pub(super) fn frontend(
        &self,
        kind: EngineKind,
        api_server_count: Option<u32>,
        costs: &EngineCosts,
    ) -> Result<Frontend, ScenarioError> {
        let [request_cost, prompt_token_cost, output_token_cost] = costs.frontend_costs;
        if kind == EngineKind::Sglang {
            if api_server_count.is_some() {
                return Err(self.invalid(
                    "engine.api_server_count",
                    "a vLLM setting (--api-server-count): SGLang's front end is its TokenizerManager \
                     and DetokenizerManager processes",
                ));
            }
            let keys = [
                ("engine.costs.frontend_request_cost", request_cost),
                ("engine.costs.frontend_prompt_token_cost", prompt_token_cost),
                ("engine.costs.frontend_output_token_cost", output_token_cost),
            ];
            if let Some((key, _)) = keys.iter().find(|(_, d)| *d > Duration::ZERO) {
                return Err(self.invalid(
                    key,
                    "the API-server front end is modelled for vLLM only (one process tokenizing and \
                     detokenizing); SGLang's tokenizer and detokenizer are separate processes, not modelled",
                ));
            }
        }
        let api_server_count = match api_server_count {
            None => 1,
            Some(0) => {
                return Err(self.invalid(
                    "engine.api_server_count",
                    "0: vLLM needs at least one API server process",
                ));
            }
            Some(n) => n,
        };
        Ok(Frontend {
            api_server_count,
            request_cost,
            prompt_token_cost,
            output_token_cost,
        })
    }
}
