//! `[speculative]` under vLLM (issue #17): vLLM v1's EAGLE proposer (`v1/spec_decode/eagle.py`,
//! methods "eagle3" and "mtp"; and the n-gram proposer, "ngram") drafting a chain of `num_speculative_tokens`, checked with vLLM
//! 0.11.0's rules (`config/speculative.py` `SpeculativeConfig`), with the same acceptance models as
//! SGLang. The draft's weights are those vLLM loads (`vllm_draft_weights`).
//!
//! Qwen3.5's MTP (`method = "mtp"`, model type `qwen3_5_mtp`) needs `engine.version` ≥ 0.17.0
//! ([`QWEN35_MTP_SINCE`]); 0.11.0 (the default) refuses it as before. Read at the Qwen3.5 PR's
//! `models/qwen3_5_mtp.py` (vllm-project/vllm, stored commit 01d99805): one `Qwen3_5DecoderLayer` with
//! `layer_type = "full_attention"` and the target's MoE (`Qwen3_5MoeMTP` adds `QwenNextMixtureOfExperts`),
//! `fc` 2H → H over `[pre_fc_norm_embedding(e); pre_fc_norm_hidden(h)]`, a final norm; with k > 1 the
//! one layer runs again (`spec_step_idx % num_mtp_layers`). The proposer is still the chain of
//! `eagle.py` (later `llm_base_proposer.py`): a first forward over every verified token, then k − 1
//! forwards of one token per request (`for token_index in range(self.num_speculative_tokens - 1)`),
//! so the 0.11.0 iteration graph (`decode::passes::vllm_spec`) is reused; what changed for memory is
//! that the embedding and LM head are shared with the target (`vllm_draft_weights`).
//!
//! Resolved into the shared [`Speculative`] as a chain: `num_steps = num_speculative_tokens`,
//! `topk = 1`, `num_draft_tokens = num_speculative_tokens + 1` (the tokens verified per request: the
//! last sampled token and the k drafts, `gpu_model_runner.py` `uniform_decode_query_len = 1 + k`).

use super::{Engine, Resolver, ScenarioError, Speculative, SpeculativeSection};
use tpsim_model::llm::{Architecture, ModelSpec};
use tpsim_model::units::Bytes;

/// vLLM 0.11.0 `config/speculative.py` `_verify_args`: the target model types EAGLE-3 accepts
/// (a substring match on `hf_text_config.model_type`).
const EAGLE3_TARGETS: [&str; 4] = ["llama", "qwen", "minicpm", "gpt_oss"];

/// The first vLLM release tpsim runs Qwen3.5's MTP under: `model_executor/models/qwen3_5_mtp.py`
/// (`Qwen3_5MoeMTP`) came with the Qwen3.5 support PR vllm-project/vllm#34110 (commit 9562912c); it was
/// not in the 0.16.0 pre-release (SystemPanic/vllm-windows#35) and 0.17.0 is the first release the
/// Qwen3.5 ports name (vllm-project/vllm-metal#154 installs `VLLM_VERSION=0.17.0` for Qwen3.5;
/// vllm-ascend v0.17.0rc1). Nightlies between the two are given as "0.17.0".
pub(crate) const QWEN35_MTP_SINCE: (u32, u32) = (0, 17);

impl Resolver<'_> {
    pub(super) fn vllm_speculative(
        &self,
        s: SpeculativeSection,
        engine: &Engine,
        target: &ModelSpec,
        warnings: &mut Vec<String>,
    ) -> Result<Speculative, ScenarioError> {
        let tp = engine.tp;
        let method = self.vllm_method(s.algorithm.as_deref(), warnings)?;
        let k = self.vllm_num_tokens(&s)?;
        self.vllm_draft_tp(s.draft_tensor_parallel_size, tp, warnings)?;
        let (draft_name, draft, draft_weights) = match method {
            "ngram" => ngram_draft(s.draft.is_some(), target, warnings)
                .map_err(|m| self.invalid("speculative.draft", m))?,
            "eagle3" => {
                let model_type = hf_text_model_type(target.arch);
                if !EAGLE3_TARGETS.iter().any(|t| model_type.contains(t)) {
                    // vLLM's ValueError, with its list and the target's model type.
                    return Err(self.invalid(
                        "speculative.algorithm",
                        format!(
                            "vLLM refuses: \"Eagle3 is only supported for ['llama', 'qwen', 'minicpm', 'gpt_oss'] \
                             models. Got self.target_model_config.hf_text_config.model_type='{model_type}'\""
                        ),
                    ));
                }
                self.draft("eagle3", s.draft, tp, target)?
            }
            _ => {
                // "mtp": the target itself is the draft, through `hf_config_override`; the module and
                // the release that maps it: `vllm_mtp::module`. A target the override does not map falls
                // through the method detection to "draft_model", which vLLM refuses.
                let qwen35 = matches!(target.arch, Architecture::Qwen35Moe | Architecture::Qwen35);
                let version = engine.release().version;
                if let Some(why) = super::vllm_mtp::unmodelled(target.arch) {
                    return Err(self.invalid(
                        "speculative.algorithm",
                        format!(
                            "tpsim does not model vLLM's MTP draft for {} yet ({why}; use engine.name = \"sglang\")",
                            hf_text_model_type(target.arch)
                        ),
                    ));
                }
                let module = super::vllm_mtp::module(target.arch);
                if !module.is_some_and(|m| super::vllm_mtp::at_least(&version, m.since)) {
                    let why = match module {
                        Some(_) if crate::engine_args_versions::release(&version).is_none() => format!(
                            "engine.version `{version}` is no release number, so which vLLM maps an MTP module for \
                             model type {} is unknown (give e.g. \"0.19.0\")",
                            hf_text_model_type(target.arch)
                        ),
                        Some(_) if qwen35 => format!(
                            "{} has no qwen3_5_mtp module: Qwen3.5's MTP arrives in vLLM {}.{}.0 \
                             (set engine.version)",
                            engine.release().label(),
                            QWEN35_MTP_SINCE.0,
                            QWEN35_MTP_SINCE.1
                        ),
                        Some(m) => format!(
                            "{} maps no MTP module for model type {}: `{}` arrives in vLLM {}.{}.{} (set \
                             engine.version)",
                            engine.release().label(),
                            hf_text_model_type(target.arch),
                            m.name,
                            m.since[0],
                            m.since[1],
                            m.since[2]
                        ),
                        None => format!(
                            "vLLM maps no MTP module for model type {} (config/speculative.py, 0.8.5 – 0.19.0)",
                            hf_text_model_type(target.arch)
                        ),
                    };
                    return Err(self.invalid(
                        "speculative.algorithm",
                        format!(
                            "vLLM refuses: \"Speculative decoding with draft model is not supported yet. Please \
                             consider using other speculative decoding methods such as ngram, medusa, eagle, or \
                             mtp.\" ({why})"
                        ),
                    ));
                }
                let (name, spec, sglang_weights) = self.draft("mtp", s.draft, tp, target)?;
                if k > 1 {
                    // vLLM's warning, as its log prints it: the literal pieces join without a space
                    // through 0.16.0 (`config/speculative.py`: "… will run" "multiple times …"); 0.17.0
                    // adds it ("… will run " "multiple …", read in the 0.17.0 and 0.18.0 wheels).
                    let run = if super::vllm_mtp::at_least(&version, [0, 17, 0]) {
                        "run multiple"
                    } else {
                        "runmultiple"
                    };
                    warnings.push(format!(
                        "Enabling num_speculative_tokens > 1 will {run} times of forward on same MTP \
                         layer,which may result in lower acceptance rate (vLLM's warning)"
                    ));
                }
                (name, spec, sglang_weights)
            }
        };
        let draft_weights = vllm_draft_weights(method, &draft, draft_weights, tp, &engine.release().version);
        let section = s.acceptance.ok_or_else(|| {
            self.invalid(
                "speculative.acceptance",
                "missing: expected e.g. acceptance = { alpha = 0.8 }, { per_position = [0.8, 0.7, 0.6] }, { profile = \"kimi-k2.5-eagle3-mtbench\" } or { trace = \"accept.txt\" }",
            )
        })?;
        let acceptance = self.acceptance(section, k)?;
        Ok(Speculative {
            algorithm: method.to_string(),
            draft_name,
            draft,
            draft_weights,
            num_steps: k,
            topk: 1,
            num_draft_tokens: k + 1,
            acceptance,
        })
    }

    /// vLLM's method name (`SpeculativeConfig.method`): "eagle3" (the default here, as in SGLang's
    /// path) or "mtp"; SGLang's upper-case spellings are accepted, the MTP model types are renamed to
    /// "mtp" with vLLM's deprecation warning.
    fn vllm_method(
        &self,
        given: Option<&str>,
        warnings: &mut Vec<String>,
    ) -> Result<&'static str, ScenarioError> {
        let given = given.unwrap_or("eagle3");
        let key = "speculative.algorithm";
        match given.to_ascii_lowercase().as_str() {
            "eagle3" => Ok("eagle3"),
            "mtp" => Ok("mtp"),
            // 0.11.0 `MTP_MODEL_TYPES`; SGLang's "nextn" is the same idea under another name.
            // "qwen3_5_mtp": later builds' `MTP_MODEL_TYPES` (`config/speculative.py`), deprecated the same way.
            m @ ("deepseek_mtp" | "glm4_moe_mtp" | "mimo_mtp" | "ernie_mtp" | "qwen3_next_mtp" | "qwen3_5_mtp"
            | "longcat_flash_mtp") => {
                warnings.push(format!("method `{m}` is deprecated and replaced with mtp. (vLLM's warning)"));
                Ok("mtp")
            }
            "nextn" => Err(self.invalid(key, "`nextn` is SGLang's name: vLLM calls the method \"mtp\"")),
            "eagle" => Err(self.invalid(
                key,
                "EAGLE-1 heads (vLLM method \"eagle\") are not modelled yet: tpsim has no EAGLE-1 draft preset; use \"eagle3\"",
            )),
            "ngram" | "[ngram]" => Ok("ngram"),
            m @ ("medusa" | "mlp_speculator" | "draft_model") => Err(self.invalid(
                key,
                format!("vLLM's method \"{m}\" is not modelled yet: expected \"eagle3\", \"mtp\" or \"ngram\""),
            )),
            _ => Err(self.invalid(
                key,
                format!(
                    "`{given}`: expected one of vLLM's methods \"eagle3\", \"mtp\" or \"ngram\" (SpeculativeConfig.method)"
                ),
            )),
        }
    }

    /// `draft_tensor_parallel_size`: 1 or the target's tp (`_verify_and_get_draft_tp`, vLLM's text
    /// otherwise). vLLM 0.11's v1 worker never reads the result (no use of it under `vllm/v1`): the
    /// drafter is built in the target's parallel groups, so 1 at tp > 1 changes nothing (a note).
    fn vllm_draft_tp(
        &self,
        given: Option<u32>,
        tp: u32,
        warnings: &mut Vec<String>,
    ) -> Result<(), ScenarioError> {
        match given {
            None => Ok(()),
            Some(d) if d == tp => Ok(()),
            Some(1) => {
                warnings.push(format!(
                    "tpsim: speculative.draft_tensor_parallel_size = 1 is accepted by vLLM 0.11 but unused by its v1 worker: \
                     the drafter runs at tp = {tp}"
                ));
                Ok(())
            }
            Some(d) => Err(self.invalid(
                "speculative.draft_tensor_parallel_size",
                format!(
                    "vLLM refuses: \"speculative_draft_tensor_parallel_size={d} cannot be other value than 1 or target \
                     model tensor_parallel_size\" (tp = {tp})"
                ),
            )),
        }
    }

    /// k = `num_speculative_tokens`, or SGLang's `num_steps` with a chain; vLLM has no draft tree
    /// without `speculative_token_tree`, so `topk` > 1 is refused.
    fn vllm_num_tokens(&self, s: &SpeculativeSection) -> Result<u32, ScenarioError> {
        if let Some(topk) = s.topk.filter(|&t| t != 1) {
            return Err(self.invalid(
                "speculative.topk",
                format!(
                    "{topk}: vLLM has no top-k drafting; its EAGLE proposer drafts a chain of num_speculative_tokens \
                     (a tree needs vLLM's speculative_token_tree, not modelled yet): use topk = 1"
                ),
            ));
        }
        let k = match (s.num_speculative_tokens, s.num_steps) {
            (Some(k), Some(steps)) if k != steps => {
                return Err(self.invalid(
                    "speculative.num_steps",
                    format!(
                        "{steps} differs from num_speculative_tokens = {k}: vLLM drafts one token per step; give one of them"
                    ),
                ));
            }
            (Some(k), _) | (None, Some(k)) => k,
            (None, None) => {
                // vLLM's ValueError without the setting (its EAGLE-3 heads carry no n_predict).
                return Err(self.invalid(
                    "speculative.num_speculative_tokens",
                    "missing: vLLM says \"num_speculative_tokens must be provided with speculative model unless \
                     the draft model config contains an n_predict parameter.\" (e.g. num_speculative_tokens = 3)",
                ));
            }
        };
        if k == 0 {
            return Err(self.invalid(
                "speculative.num_speculative_tokens",
                "vLLM refuses: \"Expected num_speculative_tokens to be greater than zero (0).\"",
            ));
        }
        // tpsim's own range, as for SGLang's num_steps (the acceptance models are defined to 16).
        if k > 16 {
            return Err(self.invalid(
                "speculative.num_speculative_tokens",
                format!("{k}: expected 1 to 16"),
            ));
        }
        if let Some(n) = s.num_draft_tokens.filter(|&n| n != k + 1) {
            return Err(self.invalid(
                "speculative.num_draft_tokens",
                format!(
                    "{n}: vLLM verifies num_speculative_tokens + 1 = {} tokens per request (it has no such setting; remove it)",
                    k + 1
                ),
            ));
        }
        Ok(k)
    }
}

/// vLLM's n-gram proposer (`v1/spec_decode/ngram_proposer.py`, prompt lookup with
/// `prompt_lookup_min` = `prompt_lookup_max` = 5 by default): no draft model, weights or KV; the
/// [`Speculative`] carries the target as a placeholder draft that no pass runs.
fn ngram_draft(
    draft_given: bool,
    target: &ModelSpec,
    warnings: &mut Vec<String>,
) -> Result<(String, ModelSpec, Bytes), String> {
    if draft_given {
        return Err(
            "with algorithm = \"ngram\" vLLM has no draft model (its `model` is \"ngram\"): remove `draft`"
                .into(),
        );
    }
    warnings.push(
        "tpsim: vLLM's n-gram proposer runs on the CPU after the bookkeeping sync; its time is not costed, and every \
         request is assumed to get num_speculative_tokens drafts (vLLM proposes none when no n-gram matches)"
            .into(),
    );
    Ok(("ngram (prompt lookup)".into(), target.clone(), Bytes(0)))
}

/// The target's `hf_text_config.model_type` as vLLM reads it (the configs under `scenarios/models/`).
fn hf_text_model_type(arch: Architecture) -> &'static str {
    use Architecture as A;
    match arch {
        A::Llama => "llama",
        A::Qwen2 => "qwen2",
        A::Qwen3 => "qwen3",
        A::Qwen3Moe => "qwen3_moe",
        A::DeepseekV3 | A::KimiK25 | A::KimiVl => "deepseek_v3",
        A::Glm4Moe => "glm4_moe",
        A::Eagle3Llama => "llama",
        A::Qwen35Moe => "qwen3_5_moe_text",
        A::MiniMaxM2 => "minimax_m2",
        A::GptOss => "gpt_oss",
        A::Qwen25Vl => "qwen2_5_vl_text",
        // families16 (issue #17): transformers' `Qwen2VLTextConfig`.
        A::Qwen2Vl => "qwen2_vl_text",
        A::Qwen2Moe => "qwen2_moe",
        A::Phi3 => "phi3",
        A::Granite => "granite",
        A::Glm => "glm",
        A::Glm4 => "glm4",
        A::Mistral3 | A::Mistral => "mistral",
        A::Mllama => "mllama_text_model",
        A::Gemma => "gemma",
        A::Gemma2 => "gemma2",
        A::Gemma3 => "gemma3_text",
        A::Mixtral => "mixtral",
        A::Llama4 => "llama4_text",
        A::DeepseekV2 => "deepseek_v2",
        A::DeepseekV32 => "deepseek_v32",
        A::GlmMoeDsa => "glm_moe_dsa",
        A::GraniteMoe => "granitemoe",
        A::PhiMoe => "phimoe",
        A::LlavaNext => "mistral",
        // phi2 (issue #17).
        A::Phi => "phi",
        // nemotronh (issue #17).
        A::NemotronH => "nemotron_h",
        // qwenhyb (issue #17).
        A::Qwen35 => "qwen3_5_text",
        A::Qwen3Next => "qwen3_next",
        A::Qwen3Vl => "qwen3_vl_text",
        A::Qwen3VlMoe => "qwen3_vl_moe_text",
        // families (issue #17).
        A::GraniteMoeHybrid => "granitemoehybrid",
        A::SeedOss => "seed_oss",
        A::Ernie45Moe => "ernie4_5_moe",
        // families2 (issue #17): the Ling 2.0 configs' `model_type`.
        A::BailingMoeV2 => "bailing_moe",
        A::Cohere2 => "cohere2",
        // families3 (issue #17).
        A::Olmo2 => "olmo2",
        A::Olmoe => "olmoe",
        // families4 (issue #17): the MiMo-7B configs' `model_type`.
        A::Mimo => "mimo",
        // families6 (issue #17): the Llama-Nemotron NAS configs' `model_type`.
        A::NemotronNas => "nemotron-nas",
        // The Hunyuan-A13B config's `model_type` (as its public copies give it).
        A::HunYuanMoeV1 => "hunyuan",
        // families5 (issue #17).
        A::Exaone4 => "exaone4",
        // families7 (issue #17): GLM-4.5V's `text_config.model_type` (vLLM reads the text config).
        A::Glm4vMoe => "glm4v_moe_text",
        // families8 (issue #17): the Command R / R+ configs' `model_type`.
        A::Cohere => "cohere",
        // families10 (issue #17): the GLM-4.7-Flash config's `model_type`.
        A::Glm4MoeLite => "glm4_moe_lite",
        // families11 (issue #17): the InternLM2 configs' `model_type`.
        A::InternLM2 => "internlm2",
        // families13 (issue #17): the StarCoder2 configs' `model_type`.
        A::Starcoder2 => "starcoder2",
        // families15 (issue #17): the dots.llm1 configs' `model_type`.
        A::Dots1 => "dots1",
        // families17 (issue #17): the dense ERNIE-4.5 and Hunyuan configs' `model_type`.
        A::Ernie45 => "ernie4_5",
        A::HunYuanDenseV1 => "hunyuan_v1_dense",
        // families19 (issue #17): the Kimi-Linear config's `model_type`.
        A::KimiLinear => "kimi_linear",
        // families18 (issue #17): GLM-4.1V's text `model_type` (transformers `Glm4vTextConfig`).
        A::Glm4v => "glm4v_text",
        // families18 (issue #17): the Arcee configs' `model_type`.
        A::Arcee => "arcee",
        // families20 (issue #17): the Falcon-H1 configs' `model_type`.
        A::FalconH1 => "falcon_h1",
        // families21 (issue #17): the Apertus, MiniCPM and MiniCPM3 configs' `model_type`.
        A::Apertus => "apertus",
        A::MiniCpm => "minicpm",
        A::MiniCpm3 => "minicpm3",
        // families22 (issue #17): the LFM2 / LFM2-MoE configs' `model_type`.
        A::Lfm2 => "lfm2",
        A::Lfm2Moe => "lfm2_moe",
        // families23 (issue #17): the published config's `model_type`.
        A::MiMoV2Flash => "mimo_v2_flash",
        // families24 (issue #17): the Hub config of Grok-2 says "git" (scenarios/models/grok-2).
        A::Grok1 => "git",
        // families25 (issue #17): the remote config class's `model_type` (vLLM 0.11.0
        // `config/model.py` `is_deepseek_mla` lists "longcat_flash").
        A::LongcatFlash => "longcat_flash",
        // families27 (issue #17): the MiniMax-M1 config says "minimax_m1" (scenarios/models/minimax-m1-80k;
        // MiniMax-Text-01's says "minimax_text_01").
        A::MiniMaxText01 => "minimax_m1",
        // families28 (issue #17): the published config's `model_type`.
        A::Step3p5 => "step3p5",
        // families30 (issue #17): transformers 5.25.0 `Gemma4TextConfig.model_type`.
        A::Gemma4 => "gemma4_text",
        // families32 (issue #17): the published config's `model_type`.
        A::KimiK3 => "kimi_k3",
        // families31 (issue #17): vLLM's `adapt_config_dict` writes "deepseek_v3"
        // (transformers_utils/configs/mistral.py).
        A::MistralLarge3 => "deepseek_v3",
        // families36 (issue #17): the Hy3 config's `model_type` (tests and scenarios/models/hy3).
        A::Hy3 => "hy_v3",
        // dsv4run55 (issue #17): the DeepSeek-V4-Flash config's `model_type`.
        A::DeepseekV4 => "deepseek_v4",
        // families38 (issue #17): MiniMax-M3's text config (refused under vLLM by
        // `scenario::minimax_m3` before this is read); the wrapper's `model_type` is "minimax_m3_vl".
        A::MiniMaxM3 => "minimax_m3",
    }
}

/// The draft's weights per rank as vLLM `version` loads them, from SGLang's figure (`draft.rs`):
/// - EAGLE-3: the same pieces (the embedding shared with the target when its shape matches,
///   `eagle.py` `load_model`; its own LM head of `draft_vocab_size` rows) plus the
///   `draft_id_to_target_id` map, an int64 `nn.Parameter` of `draft_vocab_size` entries
///   (`models/llama_eagle3.py` `Eagle3LlamaForCausalLM.__init__`), replicated.
/// - MTP: the module's projection, norms and head as `vllm_mtp::weights` reads them (DeepSeek's
///   `shared_head` loaded besides the target's LM head before 0.16.0; Qwen3.5's and Qwen3-Next's `fc`
///   column-parallel).
pub(super) fn vllm_draft_weights(
    method: &str,
    draft: &ModelSpec,
    sglang: Bytes,
    tp: u32,
    version: &str,
) -> Bytes {
    match (method, draft.eagle3) {
        ("eagle3", Some(e)) => Bytes(sglang.0 + e.draft_vocab * 8),
        ("eagle3", None) => sglang,
        ("mtp", _) => match super::vllm_mtp::module(draft.arch) {
            Some(m) => super::vllm_mtp::weights(m, draft, sglang, tp, version),
            None => sglang,
        },
        // n-gram: no draft model (its figure is zero).
        _ => sglang,
    }
}
