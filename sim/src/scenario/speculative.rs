//! The `[speculative]` section: the draft model, the step/top-k/draft-token shape checked against
//! SGLang's rules, and the acceptance model.

use super::{Engine, Resolver, ScenarioError, Speculative, SpeculativeSection};
use tpsim_model::llm::ModelSpec;

impl Resolver<'_> {
    pub(super) fn speculative(
        &self,
        s: SpeculativeSection,
        engine: &Engine,
        target: &ModelSpec,
        warnings: &mut Vec<String>,
    ) -> Result<Speculative, ScenarioError> {
        // families31 (issue #17): Mistral Large 3's draft is its own EAGLE model (SGLang
        // `MistralLarge3ForCausalLMEagle`, 0.5.6.post1 `models/mistral_large_3_eagle.py`; vLLM
        // `EagleMistralLarge3ForCausalLM`, 0.12.0 `models/mistral_large_3_eagle.py`), not modelled (either engine).
        if target.arch == tpsim_model::llm::Architecture::MistralLarge3 {
            return Err(self.invalid(
                "speculative",
                "Mistral Large 3's EAGLE draft (SGLang's MistralLarge3ForCausalLMEagle, vLLM's EagleMistralLarge3ForCausalLM) is not modelled: remove [speculative]",
            ));
        }
        // families36 (issue #17): Hy3's MTP draft (SGLang `HYV3ForCausalLMNextN`, 0.5.11
        // `models/hunyuan_v3_nextn.py`; vLLM `HYV3MTPModel`, 0.20.0 registry `("hy_v3_mtp", "HYV3MTP")`)
        // is not modelled, nor has any other draft for it been checked (either engine).
        if target.arch == tpsim_model::llm::Architecture::Hy3 {
            return Err(self.invalid(
                "speculative",
                "Hy3's drafts (SGLang's HYV3ForCausalLMNextN, vLLM's HYV3MTPModel) are not modelled: remove [speculative]",
            ));
        }
        // Issue #17: vLLM's proposer and its own settings (`vllm_spec.rs`).
        if engine.kind == super::EngineKind::Vllm {
            return self.vllm_speculative(s, engine, target, warnings);
        }
        if s.num_speculative_tokens.is_some() {
            return Err(self.invalid(
                "speculative.num_speculative_tokens",
                "a vLLM setting: with SGLang use num_steps (and topk, num_draft_tokens)",
            ));
        }
        if s.draft_tensor_parallel_size.is_some() {
            return Err(self.invalid(
                "speculative.draft_tensor_parallel_size",
                "a vLLM setting: SGLang runs the draft at the engine's tp",
            ));
        }
        // families23 (issue #17): SGLang runs MiMo-V2-Flash's three MTP layers as a multi-layer EAGLE
        // draft (`MiMoV2MTP`, spec v2, an SWA-only draft pool: 0.5.8 `server_args.py`,
        // `model_runner_kv_cache_mixin.py` `set_num_tokens_hybrid_swa`), which tpsim does not model.
        // families28 (issue #17): Step-3.5-Flash's three MTP layers likewise (SGLang 0.5.9
        // `server_args.py`: "Enable multi-layer EAGLE speculative decoding for Step3p5ForCausalLM
        // model.", draft class `Step3p5MTP`).
        // families32 (issue #17): Kimi-K3's drafts (SGLang 0.5.23 DSPARK with its own verify backends,
        // `arg_groups/model_overrides/kimi_k3.py`; vLLM's `KimiK3MTPModel`) are not modelled.
        if target.arch == tpsim_model::llm::Architecture::KimiK3 {
            return Err(self.invalid(
                "speculative",
                "Kimi-K3's speculative drafts (SGLang's DSPARK / MTP for KimiK3ForConditionalGeneration) are not \
                 modelled: remove [speculative]",
            ));
        }
        if target.arch == tpsim_model::llm::Architecture::Step3p5 {
            return Err(self.invalid(
                "speculative",
                "Step-3.5-Flash's multi-layer MTP draft (SGLang's Step3p5MTP with spec v2) is not modelled: \
                 remove [speculative]",
            ));
        }
        // families30 (issue #17): Gemma 4's drafts are its own assistant models (SGLang 0.5.23
        // `arg_groups/speculative_hook.py`: a `Gemma4AssistantForCausalLM` draft turns NEXTN / EAGLE into
        // FROZEN_KV_MTP, reading the target's KV; `models/gemma4_mtp.py` from 0.5.12), not modelled.
        if target.arch == tpsim_model::llm::Architecture::Gemma4 {
            return Err(self.invalid(
                "speculative",
                "Gemma 4's assistant (MTP) drafts (SGLang's Gemma4AssistantForCausalLM, run as FROZEN_KV_MTP over \
                 the target's KV) are not modelled: remove [speculative]",
            ));
        }
        if target.mimo_v2.is_some() {
            return Err(self.invalid(
                "speculative",
                "MiMo-V2-Flash's multi-layer MTP draft (SGLang's MiMoV2MTP with spec v2 and an SWA-only draft \
                 pool) is not modelled: remove [speculative]",
            ));
        }
        // families25 (issue #17): LongCat-Flash's MTP draft is SGLang's own class
        // (`LongcatFlashForCausalLMNextN`, 0.5.8 `models/longcat_flash_nextn.py`: one MLA block with a
        // dense MLP, `nextn_use_scmoe` false), not the DeepSeek NextN layer tpsim builds.
        if target.arch == tpsim_model::llm::Architecture::LongcatFlash {
            return Err(self.invalid(
                "speculative",
                "LongCat-Flash's MTP draft (SGLang's LongcatFlashForCausalLMNextN) is not modelled: remove \
                 [speculative]",
            ));
        }
        let tp = engine.tp;
        let algorithm = s.algorithm.unwrap_or_else(|| "eagle3".into());
        let (draft_name, draft, draft_weights) = self.draft(&algorithm, s.draft, tp, target)?;
        let (steps, topk) = self.steps_and_topk(s.num_steps, s.topk, s.num_draft_tokens)?;
        let n = self.num_draft_tokens(s.num_draft_tokens, steps, topk, warnings)?;
        warn_topk_with_pages(topk, engine.page_size, warnings);
        let section = s.acceptance.ok_or_else(|| {
            self.invalid(
                "speculative.acceptance",
                "missing: expected e.g. acceptance = { alpha = 0.8 }, { per_position = [0.8, 0.7, 0.6] }, { profile = \"kimi-k2.5-eagle3-mtbench\" } or { trace = \"accept.txt\" }",
            )
        })?;
        let acceptance = self.acceptance(section, steps)?;
        Ok(Speculative {
            algorithm,
            draft_name,
            draft,
            draft_weights,
            num_steps: steps,
            topk,
            num_draft_tokens: n,
            acceptance,
        })
    }

    /// `num_steps` and `topk`: `num_steps` given whenever the tree is, each within tpsim's range.
    fn steps_and_topk(
        &self,
        num_steps: Option<u32>,
        topk_given: Option<u32>,
        num_draft_tokens: Option<u32>,
    ) -> Result<(u32, u32), ScenarioError> {
        // SGLang (server_args.py, `_handle_speculative_decoding`): without --speculative-num-steps it
        // auto-chooses all three after `assert speculative_eagle_topk is None and
        // speculative_num_draft_tokens is None`, so giving topk or num_draft_tokens alone fails there.
        if num_steps.is_none() && (topk_given.is_some() || num_draft_tokens.is_some()) {
            return Err(self.invalid(
                "speculative.num_steps",
                "missing while topk or num_draft_tokens is set: SGLang then stops with an AssertionError \
                 (`assert speculative_eagle_topk is None and speculative_num_draft_tokens is None`, \
                 server_args.py); set num_steps too",
            ));
        }
        let steps = num_steps.unwrap_or(3);
        let topk = topk_given.unwrap_or(1);
        // Ranges of tpsim's own (SGLang has none): the acceptance models and tree builder are
        // defined up to 16 steps and 16 candidates per step.
        if !(1..=16).contains(&steps) {
            return Err(self.invalid("speculative.num_steps", format!("{steps}: expected 1 to 16")));
        }
        if !(1..=16).contains(&topk) {
            return Err(self.invalid("speculative.topk", format!("{topk}: expected 1 to 16")));
        }
        Ok((steps, topk))
    }

    /// The draft tree's size: `num_steps + 1` for a chain (SGLang adjusts another value, with a
    /// warning), given and within SGLang's candidates for a tree.
    fn num_draft_tokens(
        &self,
        num_draft_tokens: Option<u32>,
        steps: u32,
        topk: u32,
        warnings: &mut Vec<String>,
    ) -> Result<u32, ScenarioError> {
        Ok(if topk == 1 {
            // SGLang adjusts, with a warning, rather than refusing (server_args.py,
            // `_handle_speculative_decoding`: `if speculative_eagle_topk == 1 and
            // speculative_num_draft_tokens != speculative_num_steps + 1`).
            let n = steps + 1;
            if let Some(given) = num_draft_tokens.filter(|&g| g != n) {
                warnings.push(format!(
                    "speculative_num_draft_tokens is adjusted to speculative_num_steps + 1 when speculative_eagle_topk == 1 \
                     (SGLang's warning; speculative.num_draft_tokens {given} → {n})"
                ));
            }
            n
        } else {
            // SGLang's candidates: topk at depth 1, topk² at each further step. More draft tokens
            // than candidates makes the tree builder's top-k selection fail at the first verify, so
            // tpsim refuses them here.
            let most = 1 + topk + (steps - 1) * topk * topk;
            match num_draft_tokens {
                Some(n) if (2..=most).contains(&n) => n,
                Some(n) => {
                    return Err(self.invalid(
                        "speculative.num_draft_tokens",
                        format!("{n}: with topk = {topk} and {steps} steps expected 2 to {most} (root + candidates)"),
                    ));
                }
                None => {
                    return Err(self.invalid(
                        "speculative.num_draft_tokens",
                        format!("missing: with topk = {topk} give the tree's size, 2 to {most}"),
                    ));
                }
            }
        })
    }
}

/// SGLang's warning for a draft tree (topk > 1) over paged attention.
fn warn_topk_with_pages(topk: u32, page_size: u64, warnings: &mut Vec<String>) {
    if topk > 1 && page_size > 1 {
        // SGLang refuses this unless the attention backend is flashinfer (later also fa3 and
        // triton); tpsim does not model the attention backend, so it warns with SGLang's text.
        warnings.push(format!(
            "speculative_eagle_topk > 1 with page_size > 1 is unstable and produces incorrect results for paged \
             attention backends. This combination is only supported for the 'flashinfer' backend. \
             (SGLang's error unless --attention-backend flashinfer; topk = {topk}, page_size = {}; tpsim does \
             not model the attention backend)",
            page_size
        ));
    }
}
