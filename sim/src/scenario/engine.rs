//! The `[engine]` section (with `[engine.env]`, `[engine.costs]` and `[engine.observed]`) resolved
//! into an [`Engine`]: SGLang or vLLM, its memory settings, era, limits and NCCL environment.

use super::{
    CostsSection, Engine, EngineCosts, EngineKind, EngineSection, Hardware, MaxModelLenSpec, NcclEnv,
    Observed, ObservedSection, Resolver, ScenarioError, error,
};
use crate::presets;
use std::collections::BTreeMap;
use std::path::Path;
use tpsim_model::llm::ModelSpec;
use tpsim_model::memory::{DefaultFractionInput, SglangEra};

/// The largest page (tokens) tpsim takes, 2^20: a limit of the simulator, not of an engine, so that
/// page arithmetic (a page times a token's KV bytes, < 2^31, times a count of pages) stays far within
/// 64 bits; engine pages are a few hundred tokens at most (SGLang's `page_size`, vLLM's
/// `block_size`). An input guard (inputaudit: a page of 2^63 tokens overflowed the memory plan).
pub const MAX_PAGE_TOKENS: u64 = 1 << 20;

/// Parses NCCL environment settings given as `KEY=VALUE` strings (the `--env` option).
pub fn nccl_env_from_args(pairs: &[String]) -> Result<NcclEnv, ScenarioError> {
    let mut map = std::collections::BTreeMap::new();
    for p in pairs {
        let Some((k, v)) = p.split_once('=') else {
            return Err(ScenarioError::Invalid {
                file: "--env".into(),
                key: p.clone(),
                line: None,
                message: "expected KEY=VALUE, e.g. NCCL_P2P_LEVEL=SYS".into(),
            });
        };
        map.insert(k.trim().to_string(), v.trim().to_string());
    }
    Resolver {
        path: Path::new("--env"),
        text: "",
        read: Default::default(),
    }
    .nccl_env(map)
}

/// vLLM's assumed maximum length for a config with no length key (`_get_and_verify_max_len`,
/// `default_max_len = 2048` in each release read, from the 0.4-era `config.py` to the Transformers-v5
/// era `config/model.py`).
const VLLM_DEFAULT_MAX_LEN: u64 = 2048;

/// A `--max-model-len` token count as written (a number or vLLM's human-readable form), `None` for
/// `auto`/-1 or anything else.
fn max_model_len_count(spec: &MaxModelLenSpec) -> Option<u64> {
    let n = match spec {
        MaxModelLenSpec::Number(n) => *n,
        MaxModelLenSpec::Text(t) => super::extra_args::human_readable_int(t)?,
    };
    u64::try_from(n).ok().filter(|n| *n >= 1)
}

impl Resolver<'_> {
    pub(super) fn engine(
        &self,
        e: Option<EngineSection>,
        hw: &Hardware,
        (speculative, ngram): (bool, bool),
        model: &ModelSpec,
        declared_quant: Option<&str>,
    ) -> Result<Engine, ScenarioError> {
        let e = e.ok_or_else(|| self.invalid("engine", "missing section: expected at least `tp`"))?;
        let name = e.name.clone().unwrap_or_else(|| "sglang".into());
        let kind = self.engine_kind(&name, &e)?;
        // h3: vLLM ≥ 0.11 removed Mllama (0.11.0 `model_executor/models/registry.py`
        // `_PREVIOUSLY_SUPPORTED_MODELS`: last version 0.10.2); its registry raises this text.
        if kind == EngineKind::Vllm && model.arch == tpsim_model::llm::Architecture::Mllama {
            return Err(self.invalid(
                "engine.name",
                "vLLM refuses the model: \"Model architecture MllamaForConditionalGeneration was supported in \
                 vLLM until v0.10.2, and is not supported anymore. Please use an older version of vLLM if you \
                 want to use this model architecture.\" (use sglang)",
            ));
        }
        // fam (issue #16): SGLang 0.5.9 registers no LlavaNextForConditionalGeneration (`models/llava.py`
        // EntryClass) and would load it through its Transformers fallback (`model_loader/utils.py`
        // `resolve_transformers_arch`), which tpsim does not model.
        if kind == EngineKind::Sglang && model.arch == tpsim_model::llm::Architecture::LlavaNext {
            return Err(self.invalid(
                "engine.name",
                "SGLang has no native LlavaNextForConditionalGeneration: it would log \"LlavaNextForConditionalGeneration \
                 has no SGLang implementation, falling back to Transformers implementation\" and serve it through \
                 the Transformers backend, which tpsim does not model (use vllm)",
            ));
        }
        // families3 (issue #17): SGLang 0.5.9 `models/olmoe.py` builds `q_norm = RMSNorm(hidden_size)`
        // and `k_norm = RMSNorm(hidden_size)` but applies them to the rank's `hidden_size / tp` slice
        // of q and k without gathering (vLLM 0.19.0 all-gathers first): at tp > 1 the norm's width
        // does not match its input.
        if kind == EngineKind::Sglang
            && model.arch == tpsim_model::llm::Architecture::Olmoe
            && e.tp.unwrap_or(1) > 1
        {
            return Err(self.invalid(
                "engine.tp",
                "SGLang 0.5.9's olmoe.py applies q_norm/k_norm built over hidden_size to each rank's hidden_size / tp \
                 slice of q and k without gathering them, so OLMoE runs under SGLang only at tp = 1 (use tp = 1, or \
                 vllm, which all-gathers q and k first)",
            ));
        }
        // families11 (issue #17): vLLM 0.19.0 `models/internlm2.py` `split_qkv` views the gathered qkv
        // as (tokens, num_key_value_heads, heads a rank / KV heads a rank + 2, head_dim); with the KV
        // heads replicated (tp > num_key_value_heads) the sizes do not match and the view fails.
        if kind == EngineKind::Vllm
            && model.arch == tpsim_model::llm::Architecture::InternLM2
            && u64::from(e.tp.unwrap_or(1)) > model.kv_heads
        {
            return Err(self.invalid(
                "engine.tp",
                format!(
                    "vLLM 0.19.0's internlm2.py (split_qkv) views the all-gathered qkv as num_key_value_heads = {} \
                     groups, which fails once the KV heads are replicated: InternLM2 runs under vLLM only at tp ≤ {} \
                     (use a smaller tp, or sglang, which splits the packed wqkv at load)",
                    model.kv_heads, model.kv_heads
                ),
            ));
        }
        let user_era = e.costs.as_ref().and_then(|c| c.era.is_some().then_some(()));
        let costs = self.engine_costs(&name, e.costs)?;
        // Issue #17 (consistency): the release every version-dependent rule below reads.
        let release = crate::engine_release::release(kind, e.version.as_deref());
        // sglmem54: the release's per-card chunk / decode max_bs defaults (0.5.20's 20 – 35 GiB bucket).
        let buckets = tpsim_model::sglang_buckets::bucket_table(&release.version);
        // Issue #17 (families5 … families17): releases without the model's file or registry entry
        // (`scenario::first_release`: EXAONE 4, GLM-4.5V, GLM-4.7-Flash, Ministral 3, StarCoder2,
        // InternVL, dots.llm1, Qwen2-VL, dense ERNIE-4.5 and Hunyuan, Kimi-Linear,
        // GLM-4.1V, Arcee AFM).
        super::first_release::check(kind, model, &release.version).map_err(|(k, m)| self.invalid(k, m))?;
        // families5 (issue #17): SGLang's EXAONE 4 backend refusal (`scenario::exaone4`).
        super::exaone4::sglang_check(kind, model, &release.version, e.attention_backend.as_deref())
            .map_err(|(k, m)| self.invalid(k, m))?;
        // families30 (issue #17): SGLang's Gemma 4 backend refusal by release (`scenario::gemma4`).
        super::gemma4::sglang_check(kind, model, &release.version, e.attention_backend.as_deref())
            .map_err(|(k, m)| self.invalid(k, m))?;
        // families17 (issue #17): the names each release registers for dense ERNIE-4.5 (`scenario::ernie45`).
        super::ernie45::check(kind, model, &release.version).map_err(|(k, m)| self.invalid(k, m))?;
        // families14 (issue #17): SGLang's InternVL towers (`scenario::internvl`).
        super::internvl::check(kind, model, &release.version, e.tp.unwrap_or(1))
            .map_err(|(k, m)| self.invalid(k, m))?;
        // families32 (issue #17): vLLM serves Kimi-K3 from 0.27.0 with a package of its own kernels
        // (`vllm/models/kimi_k3/`: latent-MoE tail, KDA and MLA decode paths) that tpsim has not read.
        if kind == EngineKind::Vllm && model.arch == tpsim_model::llm::Architecture::KimiK3 {
            return Err(self.invalid(
                "engine.name",
                "tpsim does not model Kimi-K3 (KimiK3ForConditionalGeneration) under vLLM: its vllm/models/kimi_k3 \
                 package (0.27.0 on) is not modelled (use sglang, from 0.5.17)",
            ));
        }
        // families39 (issue #17): Gemma 4 under vLLM (`models/gemma4.py` from 0.19.0) is lowered like
        // MiMo-V2-Flash's two attention kinds (`decode::memory::vllm_cell`, vLLM's page unification);
        // its backend rule is `scenario::gemma4::vllm_default`.
        // vllmnew53 (issue #17): MiMo-V2-Flash under vLLM by release (0.14 – 0.19 pad V, 0.20 on keep it
        // at its width; 0.20 – 0.24 cannot start on GPUs without FA3 / FA4: `scenario::vllm_diffkv`);
        // Step-3.5-Flash from 0.15.1 (`scenario::first_release`).
        if kind == EngineKind::Vllm {
            let version = release.version.as_str();
            let rocm = hw.accel.vendor == super::accel::GpuVendor::Amd;
            if let Some((k, m)) = super::vllm_diffkv::check(model, version, &hw.gpu.compute_capability, rocm)
            {
                return Err(self.invalid(k, m));
            }
        }
        // families40 (issue #17): a fused qkv_proj checkpoint (MiMo-V2.5-Pro) loads at the tp its
        // chunks allow (`scenario::vllm_diffkv::fused_qkv`).
        if let Some((k, m)) =
            super::vllm_diffkv::fused_qkv(model, kind == EngineKind::Vllm, u64::from(e.tp.unwrap_or(1)))
        {
            return Err(self.invalid(k, m));
        }
        // families41 (issue #17): Qwen3-Omni's audio encoder (`tpsim_model::llm::qwen3_omni`).
        if let Some(a) = model.vision.and_then(|v| v.audio) {
            if kind == EngineKind::Vllm {
                return Err(self.invalid(
                    "engine.name",
                    "tpsim does not model Qwen3-Omni (Qwen3OmniMoeForConditionalGeneration) under vLLM (its \
                     registry maps it to Qwen3OmniMoeThinkerForConditionalGeneration from 0.11.1, whose audio \
                     encoder is transformers' own, whole on every rank; use sglang, from 0.5.4)",
                ));
            }
            let tp = u64::from(e.tp.unwrap_or(1));
            if let Some(m) = tpsim_model::llm::qwen3_omni::audio_heads_divide(&a, tp) {
                return Err(self.invalid(
                    "engine.tp",
                    format!(
                        "SGLang's VisionAttention divides the audio encoder's {} heads by the attention tp \
                         (`dist_utils.divide`): AssertionError: {m}",
                        a.heads
                    ),
                ));
            }
        }
        // families24 (issue #17): vLLM serves Grok-2 from 0.14.0 to 0.22.0 (`models/grok1.py` reads
        // `residual_moe` from the 0.14.0 wheel; the 0.26.0 registry lists `Grok1ForCausalLM` as removed
        // after 0.24.0); tpsim has not checked its rules against it.
        if kind == EngineKind::Vllm && model.arch == tpsim_model::llm::Architecture::Grok1 {
            return Err(self.invalid(
                "engine.name",
                "tpsim does not model Grok-1 / Grok-2 (Grok1ForCausalLM) under vLLM (use sglang, from 0.5.1 \
                 for Grok-2)",
            ));
        }
        let (era, era_source) =
            self.memory_era(&name, kind, (&release, e.version.as_deref()), user_era, &costs)?;
        // Issue #17: EP as each engine names it (`scenario::expert_parallel`).
        let ep_req = super::expert_parallel::resolve(
            e.ep_size,
            e.enable_expert_parallel,
            e.moe_a2a_backend.as_deref(),
            (kind, e.tp),
            model,
            |k: &str, m: String| self.invalid(k, m),
        )?;
        let tp = self.tp(e.tp, ep_req, hw, model)?;
        // Issue #17: pipeline parallelism and SGLang DP attention (`scenario::pipeline`,
        // `scenario::dp_attention`).
        let invalid = |k: &str, m: String| self.invalid(k, m);
        // families13 (issue #17): the stage plan sees the layers the engine builds, so StarCoder2
        // under SGLang (no window, `scenario::starcoder2`) is one kind of KV layer.
        let served = super::starcoder2::as_served(kind, model);
        let pp = super::pipeline::resolve(e.pp_size, tp, speculative, hw, &served, invalid)?;
        // Issue #17 point 1 (vllmdp): vLLM DP on a MoE model (`scenario::vllm_dp`): its DP ranks run
        // as attention groups of tp GPUs (as SGLang's DP attention does) and the MoE over dp × tp.
        let mut vllm_dp_warnings = Vec::new();
        let vllm_dp = super::vllm_dp::resolve(
            super::vllm_dp::Input {
                kind,
                dp_size: e.dp_size,
                tp,
                pp,
                dcp: e.dcp_size,
                enable_expert_parallel: e.enable_expert_parallel.unwrap_or(false),
                all2all_backend: e.all2all_backend.as_deref(),
                speculative,
            },
            hw,
            model,
            &mut vllm_dp_warnings,
            invalid,
        )?;
        let dp_attention = super::dp_attention::resolve(
            (e.enable_dp_attention, e.dp_size),
            kind,
            tp,
            era,
            (hw.gpu.memory_total_mib, buckets),
            model,
            invalid,
        )?;
        let dp_attention = match vllm_dp {
            Some(v) => Some(super::dp_attention::DpAttention {
                dp: v.dp,
                attn_tp: v.tp,
                chunked_prefill_size: None,
            }),
            None => dp_attention,
        };
        if pp > 1 && dp_attention.is_some() {
            return Err(self.invalid(
                "engine.pp_size",
                "pipeline parallelism together with DP attention is not modelled: use one of them",
            ));
        }
        let dp = dp_attention.map_or(1, |d| d.dp);
        // Issue #17 (dp): data-parallel replicas (`scenario::replicas`).
        let replicas = match vllm_dp {
            Some(_) => super::replicas::Replicas {
                count: 1,
                warnings: vllm_dp_warnings,
            },
            None => super::replicas::resolve(
                super::replicas::Input {
                    kind,
                    version: &release.version,
                    enable_dp_attention: e.enable_dp_attention.unwrap_or(false),
                    dp_size: e.dp_size,
                    tp,
                    pp,
                },
                hw,
                model,
                invalid,
            )?,
        };
        let dcp = super::dcp::resolve(e.dcp_size, kind, tp, model, &release.version, invalid)?;
        // dsv4run55 / families38 (issue #17): the DeepSeek-V4 and MiniMax-M3 deployments tpsim models
        // (`scenario::dsv4`, `scenario::minimax_m3`), both reading one description of the deployment.
        let lowered = super::dsv4::Input {
            kind,
            version: &release.version,
            rocm: hw.accel.vendor == super::accel::GpuVendor::Amd,
            speculative,
            dp_attention: dp_attention.is_some(),
            ep: ep_req.is_some_and(|n| n > 1),
            pp,
            tp,
            moe_backend: e.moe_backend.as_deref(),
            sm: hw.gpu.sm_major(),
        };
        super::dsv4::check(model, &lowered).map_err(|(k, m)| self.invalid(k, m))?;
        super::minimax_m3::check(model, &lowered).map_err(|(k, m)| self.invalid(k, m))?;
        // Issue #17 point 1 (vllmdp): from here `tp` is the MoE's flattened TP, dp × tp
        // (`FusedMoEParallelConfig.make`); `attn_tp` the TP group of one DP rank.
        let attn_tp = tp;
        let tp = vllm_dp.map_or(tp, |v| v.world());
        let ep_req = match vllm_dp {
            Some(v) => v.ep.then_some(tp),
            None => ep_req,
        };
        if dcp > 1 && pp > 1 {
            return Err(self.invalid(
                "engine.dcp_size",
                "decode context parallelism together with pipeline parallelism is not modelled",
            ));
        }
        let spans_boxes = u64::from(attn_tp) * u64::from(pp) > hw.topology.gpu_count().max(1) as u64;
        let mp_nodes = self.executor_backend(
            kind,
            &release.version,
            e.distributed_executor_backend.as_deref(),
            spans_boxes,
        )? && spans_boxes;
        let mut graph_warnings = Vec::new();
        // Issue #17 (graphs): CUDA-graph capture keys and vLLM's async scheduling.
        let (mut cuda_graphs, async_scheduling) = self.cuda_graph_keys(
            super::cuda_graphs::RawKeys {
                cuda_graph_max_bs: e.cuda_graph_max_bs,
                cuda_graph_bs: e.cuda_graph_bs.as_deref(),
                cuda_graph_sizes: e.cuda_graph_sizes.as_deref(),
                cudagraph_capture_sizes: e.cudagraph_capture_sizes.as_deref(),
                max_cudagraph_capture_size: e.max_cudagraph_capture_size,
                async_scheduling: e.async_scheduling,
            },
            super::cuda_graphs::Context {
                kind,
                release: &release,
                pp,
                speculative,
                ngram,
                ray: spans_boxes && !mp_nodes,
            },
            &mut graph_warnings,
        )?;
        // ttft55: vLLM raises gpt-oss's default capture list to 992 / 1,024 (`gpt_oss_graphs`).
        if kind == EngineKind::Vllm && model.arch == tpsim_model::llm::Architecture::GptOss {
            super::gpt_oss_graphs::apply(&mut cuda_graphs, &release.version, &hw.gpu.compute_capability);
        }
        // sglmem54: SGLang 0.5.22+ caps the card's default decode max_bs at the user's
        // --max-running-requests (`tpsim_model::sglang_buckets::capped_default_max_bs`).
        if kind == EngineKind::Sglang && cuda_graphs.sglang_max_bs.is_none() {
            cuda_graphs.sglang_max_bs = tpsim_model::sglang_buckets::capped_default_max_bs(
                &release.version,
                hw.gpu.memory_total_mib,
                tp,
                e.max_running_requests,
            );
        }
        // memlogs (issue #17): SGLang's reduction of the fraction for a multimodal model served with its
        // tower, by release (`tpsim_model::sglang_vlm_fraction`); with an engine preset's era instead
        // of a release, the late eras' `adjust_mem_fraction_for_vlm` as before.
        let vit = model
            .vision
            .as_ref()
            .filter(|_| model.has_vision)
            // families41 (issue #17): Qwen3-Omni's towers sit under `thinker_config`; SGLang 0.5.4 and
            // 0.5.9 `adjust_mem_fraction_for_vlm` read `hf_config.vision_config`, absent at the top
            // level, and return unchanged.
            .filter(|v| v.audio.is_none())
            .map(|v| v.sglang_fraction_dims);
        let vlm_rule = {
            use tpsim_model::sglang_vlm_fraction::{VlmFractionRule, vlm_fraction_rule};
            match (kind, vit, user_era) {
                (EngineKind::Sglang, Some(_), None) => vlm_fraction_rule(&release.version),
                (EngineKind::Sglang, Some(_), Some(())) if era >= SglangEra::Late2025 => {
                    VlmFractionRule::DefaultVitScaled
                }
                _ => VlmFractionRule::None,
            }
        };
        let (f, fraction_is_default) = match e.mem_fraction_static {
            Some(f) => (f, false),
            // vLLM sizes by gpu_memory_utilization instead (below).
            None if kind == EngineKind::Vllm => (0.9, false),
            // Issue #17: the default fraction's rule changed at 0.4.8, after the KV rule (0.4.3).
            None => {
                let fraction_era = match user_era {
                    None => tpsim_model::sglang_eras::sglang_fraction_era_from_version(&release.version)
                        .unwrap_or(era),
                    Some(()) => era,
                };
                let gpu_mib = hw.gpu.memory_total_mib;
                let chunk =
                    super::chunk_reserve::effective_chunk(e.chunked_prefill_size, gpu_mib, tp, buckets);
                // sglres53: the release's prefill-graph, EAGLE and DeepEP terms (`scenario::piecewise`).
                let terms = self.piecewise_reserve(
                    &super::piecewise::ReserveInput {
                        enabled: e.enable_piecewise_cuda_graph,
                        kind,
                        era: fraction_era,
                        version: user_era.is_none().then_some(release.version.as_str()),
                        chunk,
                        model,
                        decode_graphs: e.cuda_graph.unwrap_or(true),
                        speculative,
                        parallel: (dp > 1, pp, dcp > 1),
                        amd: hw.accel.vendor == super::accel::GpuVendor::Amd,
                        deepep: e.moe_a2a_backend.as_deref() == Some("deepep"),
                        caps: (e.max_total_tokens, e.context_length),
                    },
                    &mut graph_warnings,
                )?;
                let mut extra = terms.before_floor_mib;
                // Issue #18: the user's chunk size sets the activation reserve (late eras only).
                if fraction_era >= SglangEra::Late2025 {
                    extra += super::chunk_reserve::activation_reserve_delta_mib(
                        e.chunked_prefill_size,
                        e.max_prefill_tokens,
                        gpu_mib,
                        tp,
                        buckets,
                    );
                }
                let f = self.sglang_default_fraction(
                    fraction_era,
                    hw,
                    (tp, pp, dp),
                    speculative,
                    (extra, cuda_graphs.sglang_max_bs, buckets),
                    (fraction_era >= SglangEra::Late2025).then_some(&terms),
                )?;
                // vrows3 (issue #17 point 5): a pre-#7054 release's own variant of the TP table.
                let early = tpsim_model::sglang_fraction_early::early_rule(&release.version);
                let f = match early {
                    Some(rule) if fraction_era == SglangEra::Early2025 && user_era.is_none() => {
                        tpsim_model::sglang_fraction_early::early_fraction(
                            rule,
                            hw.gpu.memory_total_mib,
                            (tp, pp),
                            speculative,
                            hw.accel.vendor != super::accel::GpuVendor::Amd,
                        )
                    }
                    _ => f,
                };
                (f, true)
            }
        };
        let mem_fraction_vlm_factor = vit.and_then(|d| vlm_rule.factor(fraction_is_default, d));
        let f = f * mem_fraction_vlm_factor.unwrap_or(1.0);
        if !(f.is_finite() && f > 0.0 && f <= 1.0) {
            return Err(self.invalid("engine.mem_fraction_static", format!("{f} is outside (0, 1]")));
        }
        let ep_size = self.ep_size(ep_req, tp, model)?;
        // Tokens per page: SGLang's default page size 1; vLLM's default block size 16.
        let page_size = e
            .page_size
            .unwrap_or(if kind == EngineKind::Vllm { 16 } else { 1 });
        let gpu_memory_utilization = self.vllm_memory(e.gpu_memory_utilization, kind, &costs)?;
        self.check_caps(page_size, e.max_total_tokens, e.max_running_requests)?;
        // SGLang's EAGLE default (late-2025 era on, engine-memory.md "SGLang eras").
        let max_running_requests = e
            .max_running_requests
            .or((speculative && kind == EngineKind::Sglang && era >= SglangEra::Late2025).then_some(48));
        let (context_len, context_warning) = self.context_len(
            e.context_length,
            e.max_model_len.as_ref(),
            kind,
            model,
            (&release.version, e.env.as_ref()),
        )?;
        // SGLang `server_args.py` (0.5.8/0.5.9): `swa_full_tokens_ratio` must be in (0, 1], default 0.8.
        let swa_full_tokens_ratio = e.swa_full_tokens_ratio.unwrap_or(0.8);
        if !(swa_full_tokens_ratio.is_finite() && swa_full_tokens_ratio > 0.0 && swa_full_tokens_ratio <= 1.0)
        {
            return Err(self.invalid(
                "engine.swa_full_tokens_ratio",
                format!("{swa_full_tokens_ratio}: expected a ratio in (0, 1]"),
            ));
        }
        let (max_num_batched_tokens, max_num_seqs) = self.vllm_batch_shape(
            (e.max_num_batched_tokens, e.max_num_seqs),
            kind,
            hw.gpu.memory_total_mib.saturating_mul(1 << 20),
        )?;
        // Issue #17 (3): the NCCL release, the environment read for it, the custom AR cutoff.
        let (nccl_version, nccl_version_source) =
            self.nccl_version(e.nccl_version.as_deref(), &name, &release)?;
        let mut cuda_graph = e.cuda_graph.unwrap_or(true);
        // graphmode: vLLM's cudagraph mode; NONE launches every kernel from the host, as
        // --enforce-eager does (`scenario::cudagraph_mode`).
        let cudagraph_mode = self.cudagraph_mode(
            e.cudagraph_mode.as_deref(),
            kind,
            &release.version,
            cuda_graph,
            &mut graph_warnings,
        )?;
        if cudagraph_mode == Some(super::cudagraph_mode::CudagraphMode::None) {
            cuda_graph = false;
        }
        // Issue #17 (vllmv0): `VLLM_USE_V1` is read as `engine.use_v1`, not as an NCCL/engine variable.
        let use_v1 = match kind {
            EngineKind::Vllm => self.use_v1_key(e.use_v1, e.env.as_ref())?,
            EngineKind::Sglang => e.use_v1,
        };
        let mut env_map = e.env.unwrap_or_default();
        // dsv4_64: read into the model before `engine()` (`scenario::dsv4::read_shared_expert_tp1`).
        env_map.remove(super::dsv4::SHARED_TP1_VAR);
        // flags56: the long-context variables are read by `context_len` and below, not by NCCL.
        let sglang_long = env_map.remove(super::long_context::SGLANG_VAR);
        let vllm_long = env_map.remove(super::long_context::VLLM_VAR);
        let mut flashinfer_sampler_raw = None;
        let mut graph_estimate_raw = None;
        let mut force_fp8_marlin = false;
        if kind == EngineKind::Vllm {
            env_map.remove("VLLM_USE_V1");
            // ampere62: read by the fp8 kernel choice (`scenario::fp8_marlin`), not NCCL.
            force_fp8_marlin =
                super::fp8_marlin::force_var(env_map.remove(super::fp8_marlin::VAR).as_deref());
            // vllmsampler: read by the sampler, not NCCL (`scenario::flashinfer_sampler`).
            flashinfer_sampler_raw = env_map.remove(super::flashinfer_sampler::VAR);
            // vgraph53: read by the worker's memory profile (`decode::vllm_graph_estimate`).
            graph_estimate_raw = env_map.remove("VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS");
        }
        let cudagraph_estimate_env = self.int_flag_var(
            "VLLM_MEMORY_PROFILER_ESTIMATE_CUDAGRAPHS",
            graph_estimate_raw.as_deref(),
        )?;
        // sglmem54: SGLang's post-capture KV sizing is read, not modelled (`scenario::post_capture`).
        let post_capture_note = match kind {
            EngineKind::Sglang => env_map.remove(super::post_capture::VAR).and_then(|raw| {
                super::post_capture::note(
                    &raw,
                    &super::post_capture::PostCaptureInput {
                        version: &release.version,
                        mla: matches!(model.attention, tpsim_model::llm::Attention::Mla { .. }),
                        decode_graphs: e.cuda_graph.unwrap_or(true),
                        dcp: dcp > 1,
                        tpp: tp * pp,
                    },
                )
            }),
            EngineKind::Vllm => None,
        };
        let pcie_ipc_vars = self.take_pcie_ipc_vars(&mut env_map)?;
        let quick_reduce_vars = self.take_quick_reduce_vars(&mut env_map)?; // issue #17 point 4
        let mut collective_warnings = Vec::new();
        collective_warnings.extend(context_warning);
        collective_warnings.extend(post_capture_note);
        // Issue #17 point 1 (ep): the all-to-all MoE path (`scenario::moe_a2a`).
        let moe_a2a = super::moe_a2a::resolve(
            &super::moe_a2a::A2aInput {
                kind,
                moe_a2a_backend: e.moe_a2a_backend.as_deref(),
                deepep_mode: e.deepep_mode.as_deref(),
                all2all_backend: e.all2all_backend.as_deref(),
                enable_expert_parallel: e.enable_expert_parallel.unwrap_or(false),
                tp,
                vllm_dp: vllm_dp.is_some(),
            },
            &mut env_map,
            hw,
            model,
            &mut cuda_graph,
            &mut collective_warnings,
            |k: &str, m: String| self.invalid(k, m),
        )?;
        let env = self.nccl_env_for(
            env_map,
            nccl_version,
            e.nccl_tuner,
            cuda_graph,
            &mut collective_warnings,
        )?;
        let (allreduce, allreduce_default) =
            super::tp_nodes::allreduce(e.allreduce, kind, attn_tp, hw, &mut collective_warnings);
        let custom_limits = self.custom_limits(
            e.custom_allreduce_max_size.map(|b| b.0),
            kind,
            &hw.gpu.compute_capability,
            attn_tp,
            &release.version,
            &mut collective_warnings,
        )?;
        // Issue #17 point 1 (ep): DeepEP together with DP attention or pipeline stages is not modelled.
        if moe_a2a.is_some() && (dp_attention.is_some() || pp > 1) {
            return Err(self.invalid(
                "engine.moe_a2a_backend",
                "`deepep` together with DP attention or pipeline parallelism is not modelled: use it with tp only",
            ));
        }
        let observed = match e.observed {
            None => None,
            Some(o) => Some(self.observed(o)?),
        };
        // sm120decode: the MoE kernel backend, a name the engines use (scenario::moe_backend);
        // moedefault: without the key, the one the engine picks for this release, GPU and expert
        // format, where tpsim has read its rule (`moe_backend::engine_default`); sm100moe: SGLang's
        // SM 10.x rules by architecture and checkpoint quantization (`moe_backend::sglang_sm100`).
        // b200sgl54: the rules read `--quantization` when given, else the checkpoint's config.json method.
        let rules_quant = e.quantization.as_deref().or(declared_quant);
        // families38: the MoE runner as given, for SGLang's MiniMax-M3 override line.
        let moe_runner_given = e.moe_backend.clone();
        let moe_backend = match e.moe_backend {
            None => model.moe.as_ref().and_then(|_| {
                super::moe_backend::for_model(
                    kind,
                    &release.version,
                    &hw.gpu.compute_capability,
                    model,
                    moe_a2a.is_some(),
                    rules_quant,
                )
                .map(String::from)
            }),
            Some(b) => Some(super::moe_backend::check(b).map_err(|m| self.invalid("engine.moe_backend", m))?),
        };
        // h20moe: the untuned fused-MoE cost is SGLang's default tile, measured under SGLang only
        // (sglang PR 10404; `passes::moe_call::UNTUNED_BF16_CALL_US`).
        // moetable: without the key, whether the release ships a config for the shape and GPU
        // (`scenario::moe_configs`; no answer: true, as before the table).
        // h200_63: vLLM 0.8.5 / 0.11.0 likewise (`scenario::vllm_moe_configs`), the same default tile.
        let lookup = if kind == EngineKind::Sglang {
            super::moe_configs::for_deployment
        } else {
            super::vllm_moe_configs::for_deployment
        };
        let moe_config = lookup(&super::moe_configs::Deployment {
            release: &release.version,
            device: hw.gpu.device_name.as_deref(),
            moe: model.moe.as_ref(),
            experts: model.quantization.expert_format(),
            tp,
            ep: ep_size,
            fused_shared: u64::from(crate::decode::passes::sgl_dual_stream::fuses_shared_expert(
                model,
                hw.accel.vendor,
                &hw.gpu.compute_capability,
                ep_size,
                moe_a2a.is_some(),
                moe_backend.as_deref(),
            )),
            triton_nvidia: hw.accel.vendor == super::accel::GpuVendor::Nvidia
                && matches!(moe_backend.as_deref(), None | Some("triton"))
                && moe_a2a.is_none(),
        });
        let moe_tuned_config = e
            .moe_tuned_config
            .unwrap_or(moe_config.as_ref().is_none_or(|l| l.found_in.is_some()));
        let moe_config = moe_config.filter(|_| e.moe_tuned_config.is_none());
        if !moe_tuned_config
            && kind != EngineKind::Sglang
            && !super::vllm_moe_configs::MEASURED_TILE_RELEASES.contains(&release.version.as_str())
        {
            return Err(self.invalid(
                "engine.moe_tuned_config",
                "`false` is costed for SGLang and for vLLM 0.8.5 / 0.11.0, whose default fused-MoE tile \
                 is the one sglang PR 10404 measured; this vLLM release's default is not: remove the key",
            ));
        }
        let backend_given = e.attention_backend.is_some();
        // Issue #16 (h4): the attention backend, checked against the engine's names.
        let attention_backend = super::attention_backend::resolve(
            e.attention_backend,
            kind,
            &release.version,
            &hw.gpu.compute_capability,
            model,
            |k, m| self.invalid(k, m),
        )?;
        // b200moe49: SGLang's `trtllm_mha` runs on SM 10.x only, named or as 0.5.6.post1/post2's default.
        if kind == EngineKind::Sglang {
            super::attention_backend::sglang_trtllm_mha_check(attention_backend.as_deref(), &hw.gpu.compute_capability)
                .map_err(|m| {
                    let why = if backend_given {
                        String::new()
                    } else {
                        format!(
                            " (no engine.attention_backend: SGLang {}'s default for this model on compute capability \
                             {}, whose `is_blackwell()` takes 10.x and 12.x; name another backend)",
                            release.version, hw.gpu.compute_capability
                        )
                    };
                    self.invalid("engine.attention_backend", format!("{m}{why}"))
                })?;
        }
        // Issue #17 point 4: SGLang on ROCm — its default backend there, and the AITER reserve on the
        // fraction (scenario/rocm.rs).
        let attention_backend = match (kind, hw.accel.vendor, backend_given) {
            (EngineKind::Sglang, super::accel::GpuVendor::Amd, false) => Some(
                super::rocm::sglang_default_backend(model, tp, &release.version, &hw.gpu.compute_capability)
                    .to_string(),
            ),
            _ => attention_backend,
        };
        // families38 (issue #17): SGLang's MiniMax-M3 override sets page 128 with its backend on Hopper
        // and SM 10.x when no page is given, and logs what it resolved (`scenario::minimax_m3`).
        let page_size = match (kind, &model.minimax_m3, attention_backend.as_deref()) {
            (EngineKind::Sglang, Some(_), Some(b)) => match super::minimax_m3::sglang_override(
                tpsim_model::hw::sm_major(&hw.gpu.compute_capability),
                &release.version,
                b,
                e.page_size,
                moe_runner_given.as_deref(),
            ) {
                Some((page, line)) => {
                    collective_warnings.push(line);
                    let page = page.unwrap_or(page_size);
                    self.check_caps(page, e.max_total_tokens, e.max_running_requests)?;
                    page
                }
                None => page_size,
            },
            _ => page_size,
        };
        let f = match super::rocm::aiter_fraction(attention_backend.as_deref(), Some(context_len), f) {
            Some((scaled, warning)) if kind == EngineKind::Sglang => {
                collective_warnings.push(warning);
                scaled
            }
            _ => f,
        };
        // Issue #18 point 1 (schedkeys): the scheduler settings (`scenario/scheduler.rs`).
        let mut scheduler = self.scheduler_keys(
            super::scheduler::RawKeys {
                chunked_prefill_size: e.chunked_prefill_size,
                max_prefill_tokens: e.max_prefill_tokens,
                schedule_conservativeness: e.schedule_conservativeness,
                disable_radix_cache: e.disable_radix_cache,
                schedule_policy: e.schedule_policy.clone(),
                enable_prefix_caching: e.enable_prefix_caching,
                enable_mixed_chunk: e.enable_mixed_chunk,
                enable_chunked_prefill: e.enable_chunked_prefill,
                long_prefill_token_threshold: e.long_prefill_token_threshold,
            },
            kind,
            page_size,
            speculative,
            &mut collective_warnings,
        )?;
        // Issue #17 (vllmhybrid): vLLM's prefix caching on a Mamba-2 / Gated DeltaNet hybrid, by release.
        if kind == EngineKind::Vllm && model.linear_layers() > 0 {
            let (on, line) =
                super::scheduler::vllm_hybrid_prefix_caching(e.enable_prefix_caching, &release.version);
            scheduler.prefix_cache = on;
            collective_warnings.extend(line);
            // hybrids51: LFM2's own assertion once prefix caching can be on (0.12 on).
            if let Some(text) = on
                .then(|| super::scheduler::vllm_lfm2_prefix_refusal(model.arch, &release.version))
                .flatten()
            {
                return Err(self.invalid("engine.enable_prefix_caching", text));
            }
        }
        // Issue #17 (vllmv0): the V0 engine of releases before 0.8 (and VLLM_USE_V1=0).
        let v0 = self.vllm_v0(
            kind,
            &release,
            super::vllm_v0::V0Keys {
                use_v1,
                num_scheduler_steps: e.num_scheduler_steps,
                swap_space: e.swap_space,
                enable_chunked_prefill: e.enable_chunked_prefill,
            },
            speculative,
            async_scheduling,
            &mut graph_warnings,
        )?;
        // vllmpp59: vLLM's decode schedule through the pipeline stages with async scheduling.
        let pp_decode = super::vllm_pp_async::vllm_pp_decode(
            kind,
            &release.version,
            pp,
            async_scheduling,
            &mut graph_warnings,
        );
        // vllmchunk59: the shape the scheduler gets (the defaults by release and GPU,
        // `tpsim_model::vllm_batch_defaults`; V0 keeps the 0.9 rule, as the serving loop does).
        let vllm_shape = (kind == EngineKind::Vllm).then(|| {
            super::vllm_shape(
                &hw.gpu,
                hw.gpu.memory_total_mib as f64 / 1024.0,
                (&release.version, v0.is_some()),
                (max_num_batched_tokens, max_num_seqs),
                context_len,
            )
        });
        if let Some((tokens, seqs)) = vllm_shape {
            // Every release refuses a budget below max_num_seqs (`SchedulerConfig` verify).
            if let Some(text) = tpsim_model::vllm_batch_defaults::seqs_above_budget(tokens, seqs) {
                let key = if max_num_batched_tokens.is_some() {
                    "engine.max_num_batched_tokens"
                } else {
                    "engine.max_num_seqs"
                };
                return Err(self.invalid(key, format!("vLLM refuses to start: ValueError \"{text}\"")));
            }
            if cuda_graphs.vllm_max.is_some() {
                // Issue #17 (graphs): vLLM 0.12's truncation warning / consistency error.
                self.vllm_capture_max_check(&cuda_graphs, (tokens, seqs), &mut graph_warnings)?;
            }
        }
        collective_warnings.append(&mut graph_warnings); // issue #17 (graphs)
        collective_warnings.extend(replicas.warnings); // issue #17 (dp)
        let frontend = self.frontend(kind, e.api_server_count, &costs)?; // issue #18 (frontend)
        let detokenizer = super::detokenizer::resolve(kind, model, &release.version); // kimitok54
        // vLLM's `--kv-cache-memory-bytes` (0.11.0 `config/cache.py`, `gpu_worker.py`).
        let kv_cache_memory_bytes = match (e.kv_cache_memory_bytes, kind) {
            (None, _) => None,
            (Some(_), EngineKind::Sglang) => {
                return Err(self.invalid(
                    "engine.kv_cache_memory_bytes",
                    "vLLM's --kv-cache-memory-bytes; SGLang has no such flag (use mem_fraction_static or \
                     max_total_tokens)",
                ));
            }
            (Some(b), EngineKind::Vllm) if b.0 == 0 => {
                return Err(self.invalid(
                    "engine.kv_cache_memory_bytes",
                    "a positive number of bytes (vLLM takes 0 as unset)",
                ));
            }
            (Some(b), EngineKind::Vllm) => Some(b.0),
        };
        // Issue #17 (mambadtype): vLLM's state dtypes, checked against the release's choices.
        let mamba_dtypes = super::mamba_dtype::resolve(
            kind,
            &release.version,
            [e.mamba_cache_dtype, e.mamba_ssm_cache_dtype],
            |k, m| self.invalid(k, m),
        )?;
        // cmdsurvey62 (issue #17): SGLang's `--mamba-scheduler-strategy` (`scenario::mamba_strategy`).
        let mamba_scheduler_strategy =
            super::mamba_strategy::resolve(kind, &release.version, e.mamba_scheduler_strategy.as_deref())
                .map_err(|m| self.invalid("engine.mamba_scheduler_strategy", m))?;
        // families27 (issue #17): vLLM's end of MiniMax-Text-01 / M1, V0 and its fp32-state refusal
        // (`scenario::minimax01`).
        let minimax_notes =
            super::minimax01::check(kind, model, &release.version, v0.is_some(), &mamba_dtypes)
                .map_err(|(k, m)| self.invalid(k, m))?;
        collective_warnings.extend(minimax_notes);
        // installkind: pip wheel or vllm/vllm-openai image (`scenario/vllm_install.rs`).
        let install = super::vllm_install::resolve(kind, e.install.as_deref(), |k, m| self.invalid(k, m))?;
        // vllmsampler: VLLM_USE_FLASHINFER_SAMPLER for this release, install and GPU.
        let flashinfer_sampler_env = self.flashinfer_sampler_var(
            flashinfer_sampler_raw.as_deref(),
            &release.version,
            install,
            hw,
            kind == EngineKind::Vllm && v0.is_none(),
            &mut collective_warnings,
        )?;
        // Issue #17 (flags): `--max-model-len` as written (a count, `32k`, `auto`/-1) and the rest of
        // the launch command.
        let (max_model_len, max_model_len_auto) =
            self.max_model_len(e.max_model_len.as_ref(), kind, &release.version)?;
        // flags56: vLLM's `--max-model-len` above the model's (`scenario::long_context`).
        if kind == EngineKind::Vllm
            && let (Some(n), Some(d)) = (max_model_len, model.context_len)
            && n > d
        {
            use super::long_context::{VLLM_VAR, vllm_allows, vllm_refusal, vllm_warning};
            let v = &release.version;
            if !vllm_allows(v, vllm_long.as_deref()) {
                return Err(self.invalid(
                    "engine.max_model_len",
                    vllm_refusal(v, n, d, vllm_long.as_deref()),
                ));
            }
            collective_warnings.push(format!(
                "{VLLM_VAR}={}: {}",
                vllm_long.as_deref().unwrap_or_default(),
                vllm_warning(v, n, d)
            ));
        }
        for (var, raw, engine) in [
            (super::long_context::SGLANG_VAR, &sglang_long, EngineKind::Sglang),
            (super::long_context::VLLM_VAR, &vllm_long, EngineKind::Vllm),
        ] {
            if raw.is_some() && kind != engine {
                collective_warnings.push(format!(
                    "{var} is {} variable: {} ignores it",
                    if engine == EngineKind::Sglang {
                        "an SGLang"
                    } else {
                        "a vLLM"
                    },
                    if kind == EngineKind::Sglang {
                        "SGLang"
                    } else {
                        "vLLM"
                    }
                ));
            }
        }
        let extra_args = self.extra_args(
            kind,
            &release.version,
            e.extra_args.as_deref(),
            &mut collective_warnings,
        )?;
        Ok(Engine {
            max_model_len_auto,
            extra_args,
            mamba_dtypes,
            mamba_scheduler_strategy,
            install,
            flashinfer_sampler_env,
            cudagraph_estimate_env,
            kv_cache_memory_bytes,
            replicas: replicas.count, // issue #17 (dp)
            vllm_dp,                  // issue #17 point 1 (vllmdp)
            v0,                       // issue #17 (vllmv0)
            scheduler,
            dp_attention,
            pp,
            dcp,
            name,
            version: e.version,
            tp,
            mem_fraction_static: f,
            fraction_is_default,
            mem_fraction_vlm_factor,
            // Issue #17 point 4: no custom allreduce across boxes (`scenario::tp_nodes`); unset: the
            // engine's default (`scenario::allreduce_default`).
            allreduce,
            allreduce_default,
            page_size,
            max_total_tokens: e.max_total_tokens,
            max_running_requests,
            context_len,
            era,
            era_source,
            cuda_graph,
            moe_a2a, // issue #17 point 1 (ep)
            // vLLM: the scheduler's step overlaps the forward only with --async-scheduling (issue #17,
            // graphs; vLLM 0.11.0 `config/scheduler.py` default false), and with pipeline parallelism
            // only where a request's next step need not wait for its token on the host (vllmpp59:
            // from 0.16.0, `vllm_pp_async`).
            overlap_schedule: match kind {
                EngineKind::Sglang => !e.disable_overlap_schedule.unwrap_or(false),
                EngineKind::Vllm if pp > 1 => pp_decode.hides_host(),
                EngineKind::Vllm => async_scheduling,
            },
            cuda_graphs,
            async_scheduling,
            pp_decode,
            mp_nodes,
            kind,
            gpu_memory_utilization,
            max_model_len,
            ep_size: if moe_a2a.is_some() { tp } else { ep_size },
            swa_full_tokens_ratio,
            disable_hybrid_swa_memory: e.disable_hybrid_swa_memory.unwrap_or(false),
            disable_hybrid_kv_cache_manager: e.disable_hybrid_kv_cache_manager.unwrap_or(false),
            env,
            nccl_version_source,
            custom_limits,
            collective_warnings,
            pcie_ipc_vars,
            quick_reduce_vars,
            costs,
            observed,
            attention_backend,
            attention_backend_vllm_default: false,
            page_size_given: e.page_size.is_some(),
            moe_backend,
            moe_tuned_config,
            w4a16_kernel: None,     // set by `scenario::vllm_w4a16`
            w4a16_moe_kernel: None, // set by `scenario::vllm_w4a16_moe`
            force_fp8_marlin,
            fp8_marlin: false, // set by `scenario::fp8_marlin`
            moe_config,
            max_num_batched_tokens,
            max_num_seqs,
            enable_piecewise_cuda_graph: e.enable_piecewise_cuda_graph.unwrap_or(false),
            cudagraph_mode,
            frontend,
            detokenizer,
        })
    }

    /// The engine named `name`, refusing the other engine's memory settings.
    fn engine_kind(&self, name: &str, e: &EngineSection) -> Result<EngineKind, ScenarioError> {
        let kind = match name {
            "sglang" => EngineKind::Sglang,
            "vllm" => EngineKind::Vllm,
            _ => {
                return Err(self.invalid(
                    "engine.name",
                    format!("`{name}`: expected \"sglang\" or \"vllm\""),
                ));
            }
        };
        if kind == EngineKind::Vllm {
            if e.mem_fraction_static.is_some() {
                return Err(self.invalid(
                    "engine.mem_fraction_static",
                    "an SGLang setting: with vLLM use gpu_memory_utilization",
                ));
            }
        } else if e.gpu_memory_utilization.is_some() || e.max_model_len.is_some() {
            return Err(self.invalid(
                "engine.gpu_memory_utilization",
                "a vLLM setting: with SGLang use mem_fraction_static",
            ));
        }
        Ok(kind)
    }

    /// The engine's costs: the bundled preset `engines/<name>.toml` under `[engine.costs]`.
    fn engine_costs(&self, name: &str, inline: Option<CostsSection>) -> Result<EngineCosts, ScenarioError> {
        let preset_text =
            presets::engine(name).ok_or_else(|| self.invalid("engine.name", "no bundled preset"))?;
        let base: CostsSection =
            error::parse_toml(preset_text, Path::new(&format!("<preset engines/{name}.toml>")))?;
        let c = inline.unwrap_or_default().merged_over(base);
        let vllm_startup = self.vllm_startup(&c)?;
        Ok(EngineCosts {
            era: self.need(c.era, "engine.costs.era")?,
            host_overhead: self.need(c.host_overhead, "engine.costs.host_overhead")?,
            sync_cost: self.need(c.sync_cost, "engine.costs.sync_cost")?,
            launch_overhead: self.need(c.launch_overhead, "engine.costs.launch_overhead")?,
            custom_allreduce_buffers: self.need(
                c.custom_allreduce_buffers,
                "engine.costs.custom_allreduce_buffers",
            )?,
            target_cuda_graph_memory: self.need(
                c.target_cuda_graph_memory,
                "engine.costs.target_cuda_graph_memory",
            )?,
            draft_cuda_graph_memory: self
                .need(c.draft_cuda_graph_memory, "engine.costs.draft_cuda_graph_memory")?,
            activation_memory: self.need(c.activation_memory, "engine.costs.activation_memory")?,
            non_torch_memory: c.non_torch_memory,
            // Issue #17: vLLM's proposer steps (optional; SGLang's preset has none).
            draft_step_overhead: c
                .draft_step_overhead
                .unwrap_or(tpsim_model::units::Duration::ZERO),
            vllm_startup,
            // Issue #18 (frontend): optional, 0 (not modelled) unless the preset or scenario sets them.
            frontend_costs: [
                c.frontend_request_cost,
                c.frontend_prompt_token_cost,
                c.frontend_output_token_cost,
            ]
            .map(|d| d.unwrap_or(tpsim_model::units::Duration::ZERO)),
        })
    }

    /// The memory era and where it came from (`Engine::era_source`).
    fn memory_era(
        &self,
        name: &str,
        kind: EngineKind,
        (release, given): (&crate::engine_release::Release, Option<&str>),
        user_era: Option<()>,
        costs: &EngineCosts,
    ) -> Result<(SglangEra, String), ScenarioError> {
        // The era: `engine.costs.era` when the scenario sets it, else from the release
        // (`engine.version`, or tpsim's current SGLang release, whose era is placed).
        let v = release.version.as_str();
        let version_era = match kind {
            EngineKind::Sglang if user_era.is_none() => {
                match tpsim_model::memory::sglang_era_from_version(v) {
                    Some(era) => Some(era),
                    None => {
                        return Err(self.invalid(
                            "engine.version",
                            format!(
                                "`{v}`: tpsim places SGLang releases up to 0.5.23 (the newest read) in a memory era, not this one; set engine.costs.era = \"late-2025\" or \"spring-2026\""
                            ),
                        ));
                    }
                }
            }
            _ => None,
        };
        let era_source = match (user_era, &version_era) {
            (Some(()), _) => "engine.costs.era".to_string(),
            (None, Some(_)) if release.assumed => release.label(),
            (None, Some(_)) => format!("engine.version {}", given.unwrap_or(v)),
            _ => format!("engines/{name}.toml"),
        };
        let era = version_era.or_else(|| SglangEra::parse(&costs.era));
        if kind == EngineKind::Vllm && costs.era != "v1" {
            return Err(self.invalid(
                "engine.costs.era",
                format!(
                    "`{}`: vLLM's memory rules are those of its v1 worker: expected \"v1\"",
                    costs.era
                ),
            ));
        }
        let Some(era) = era.or((kind == EngineKind::Vllm).then_some(SglangEra::Late2025)) else {
            return Err(self.invalid(
                "engine.costs.era",
                format!(
                    "`{}`: expected \"early-2025\", \"mid-2025\", \"late-2025\" or \"spring-2026\"",
                    costs.era
                ),
            ));
        };
        Ok((era, era_source))
    }

    /// The tensor-parallel size, checked against the GPU count and the model's shapes.
    fn tp(
        &self,
        tp: Option<u32>,
        ep_size: Option<u32>,
        hw: &Hardware,
        model: &ModelSpec,
    ) -> Result<u32, ScenarioError> {
        let tp = tp.ok_or_else(|| {
            self.invalid(
                "engine.tp",
                "missing: expected the tensor-parallel size, e.g. tp = 8",
            )
        })?;
        let gpus = hw.topology.gpu_count() as u32;
        // Issue #17 point 4: a TP group larger than one box spans whole boxes (the allreduce crosses
        // the NICs, `decode::passes::tp_net`); checked in `scenario::tp_nodes`.
        let boxes = super::tp_nodes::check(tp, hw, &|k: &str, m: String| self.invalid(k, m))?;
        let gpus = gpus * boxes;
        if tp == 0 || tp > gpus {
            return Err(self.invalid(
                "engine.tp",
                format!("tp = {tp}, but the hardware has {gpus} GPUs: expected 1 ≤ tp ≤ {gpus}"),
            ));
        }
        // With expert parallelism the experts are not split by tp (checked with the EP size).
        model
            .validate_parallel(tp, ep_size.unwrap_or(1))
            .map_err(|err| self.invalid("engine.tp", err.to_string()))?;
        Ok(tp)
    }

    /// SGLang's default `mem_fraction_static` for this era, GPU and (tp, pp, DP-attention size), for
    /// a text-only model (when the scenario gives none). A multimodal model's reduction is applied by
    /// the caller, by release (memlogs: `tpsim_model::sglang_vlm_fraction`; the (layers, hidden)
    /// SGLang's `adjust_mem_fraction_for_vlm` reads from `vision_config`, defaults 24 / 1024, are
    /// `VisionTower::sglang_fraction_dims`).
    fn sglang_default_fraction(
        &self,
        era: SglangEra,
        hw: &Hardware,
        (tp, pp, dp): (u32, u32, u32),
        speculative: bool,
        // The features' extra reserve (MiB), the user's `cuda_graph_max_bs` (issue #17, graphs) and
        // the release's per-card table (sglmem54).
        (extra_reserve_mib, cuda_graph_max_bs, buckets): (
            f64,
            Option<u32>,
            tpsim_model::sglang_buckets::BucketTable,
        ),
        // sglres53: the release's terms after the floor and its decode-graph rule (late eras).
        terms: Option<&tpsim_model::sglang_reserve::ReserveTerms>,
    ) -> Result<f64, ScenarioError> {
        let input = DefaultFractionInput {
            after_floor_mib: terms.map(|t| t.after_floor_mib),
            decode_graph_term: terms.is_none_or(|t| t.decode_term),
            cuda_graph_max_bs,
            era,
            gpu_mem_mib: hw.gpu.memory_total_mib,
            tp,
            pp,
            eagle: speculative,
            vision: None,
            extra_reserve_mib,
            buckets,
        };
        tpsim_model::memory::sglang_default_fraction_dp(&input, dp)
            .map_err(|err| self.invalid("engine.mem_fraction_static", err.to_string()))
    }

    /// The expert-parallel size: 1, or tp with a MoE model.
    fn ep_size(&self, ep_size: Option<u32>, tp: u32, model: &ModelSpec) -> Result<u32, ScenarioError> {
        let ep_size = ep_size.unwrap_or(1);
        if ep_size != 1 && ep_size != tp {
            return Err(self.invalid(
                "engine.ep_size",
                format!("{ep_size}: expected 1 or the tp size ({tp})"),
            ));
        }
        if ep_size > 1
            && !model
                .layers
                .iter()
                .any(|l| matches!(l, tpsim_model::llm::Ffn::Moe(_)))
        {
            return Err(self.invalid("engine.ep_size", "expert parallelism needs a MoE model"));
        }
        Ok(ep_size)
    }

    /// vLLM's memory settings: `gpu_memory_utilization` (default 0.9) and, under vLLM, the engine's
    /// `non_torch_memory`.
    fn vllm_memory(
        &self,
        gpu_memory_utilization: Option<f64>,
        kind: EngineKind,
        costs: &EngineCosts,
    ) -> Result<f64, ScenarioError> {
        let gpu_memory_utilization = gpu_memory_utilization.unwrap_or(0.9);
        if !(gpu_memory_utilization.is_finite()
            && gpu_memory_utilization > 0.0
            && gpu_memory_utilization <= 1.0)
        {
            return Err(self.invalid(
                "engine.gpu_memory_utilization",
                format!("{gpu_memory_utilization} is outside (0, 1]"),
            ));
        }
        if kind == EngineKind::Vllm && costs.non_torch_memory.is_none() {
            return Err(self.invalid(
                "engine.costs.non_torch_memory",
                "missing: expected a value here or in the engine preset",
            ));
        }
        Ok(gpu_memory_utilization)
    }

    /// The page size and the scenario's token and request caps: none may be 0.
    fn check_caps(
        &self,
        page_size: u64,
        max_total_tokens: Option<u64>,
        max_running_requests: Option<u64>,
    ) -> Result<(), ScenarioError> {
        if page_size == 0 {
            return Err(self.invalid("engine.page_size", "expected a page size ≥ 1 token"));
        }
        if page_size > MAX_PAGE_TOKENS {
            return Err(self.invalid(
                "engine.page_size",
                format!("{page_size}: expected at most {MAX_PAGE_TOKENS} tokens per page"),
            ));
        }
        if max_total_tokens == Some(0) {
            return Err(self.invalid(
                "engine.max_total_tokens",
                "0: expected at least 1 token (omit the key for no cap)",
            ));
        }
        if max_running_requests == Some(0) {
            return Err(self.invalid(
                "engine.max_running_requests",
                "0: expected at least 1 request (omit the key for the engine's default)",
            ));
        }
        Ok(())
    }

    /// The context length: `engine.context_length`, else the model config's; with neither, vLLM
    /// takes a `--max-model-len` count as it is, or assumes 2048 tokens with its warning (vLLM
    /// `_get_and_verify_max_len`, `config.py` then `config/model.py`: "If none of the keys were found
    /// in the config, use a default"), where SGLang needs the length.
    fn context_len(
        &self,
        given: Option<u64>,
        max_model_len: Option<&MaxModelLenSpec>,
        kind: EngineKind,
        model: &ModelSpec,
        (version, env): (&str, Option<&BTreeMap<String, String>>),
    ) -> Result<(u64, Option<String>), ScenarioError> {
        // SGLang refuses a length above the model's (`ModelConfig.__init__`), where tpsim would
        // otherwise size per-position tensors for it — unless its variable (or, 0.4.4.post4 –
        // 0.5.0rc0, its default) allows it: then a warning (flags56, `scenario::long_context`).
        let mut warning = None;
        if let (EngineKind::Sglang, Some(c), Some(d)) = (kind, given, model.context_len)
            && c > d
        {
            use super::long_context::{SGLANG_VAR, sglang_allows, sglang_refusal, sglang_warning};
            let raw = env.and_then(|m| m.get(SGLANG_VAR)).map(String::as_str);
            let allowed = sglang_allows(version, raw)
                .map_err(|m| self.invalid(&format!("engine.env.{SGLANG_VAR}"), m))?;
            if !allowed {
                return Err(self.invalid("engine.context_length", sglang_refusal(version, c, d)));
            }
            warning = Some(sglang_warning(version, c, d));
        }
        match given.or(model.context_len) {
            Some(0) => Err(self.invalid("engine.context_length", "0: expected a context length ≥ 1 token")),
            Some(c) => Ok((c, warning)),
            None if kind == EngineKind::Vllm => match max_model_len.and_then(max_model_len_count) {
                Some(n) => Ok((n, None)),
                None => Ok((
                    VLLM_DEFAULT_MAX_LEN,
                    Some(format!(
                        "The model's config.json does not contain any of the keys to determine the original \
                         maximum length of the model. Assuming the model's maximum length is \
                         {VLLM_DEFAULT_MAX_LEN}. (vLLM's warning; set engine.max_model_len for another length)"
                    )),
                )),
            },
            None => Err(self.invalid(
                "engine.context_length",
                "missing: the model config has no max_position_embeddings; set engine.context_length",
            )),
        }
    }

    /// The `[engine.observed]` values read off a server log: GiB ≥ 0, and no more free after the
    /// weights than before them.
    fn observed(&self, o: ObservedSection) -> Result<Observed, ScenarioError> {
        for (v, key) in [
            (o.free_after_init_gib, "engine.observed.free_after_init_gib"),
            (o.free_after_weights_gib, "engine.observed.free_after_weights_gib"),
        ] {
            if let Some(v) = v
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(self.invalid(key, format!("{v}: expected GiB ≥ 0 as the log prints it")));
            }
        }
        if let (Some(a), Some(b)) = (o.free_after_init_gib, o.free_after_weights_gib)
            && b > a
        {
            return Err(self.invalid(
                "engine.observed.free_after_weights_gib",
                format!("{b} GiB free after weights exceeds {a} GiB free before them"),
            ));
        }
        for (v, key) in [
            (o.free_at_start_gib, "engine.observed.free_at_start_gib"),
            (o.weights_gib, "engine.observed.weights_gib"),
            (o.cuda_graph_gib, "engine.observed.cuda_graph_gib"),
            (o.peak_activation_gib, "engine.observed.peak_activation_gib"),
            (o.non_torch_gib, "engine.observed.non_torch_gib"),
        ] {
            if let Some(v) = v
                && !(v.is_finite() && v >= 0.0)
            {
                return Err(self.invalid(key, format!("{v}: expected GiB ≥ 0 as the log prints it")));
            }
        }
        Ok(Observed {
            free_after_init_gib: o.free_after_init_gib,
            free_after_weights_gib: o.free_after_weights_gib,
            free_at_start_gib: o.free_at_start_gib,
            weights_gib: o.weights_gib,
            cuda_graph_gib: o.cuda_graph_gib,
            peak_activation_gib: o.peak_activation_gib,
            non_torch_gib: o.non_torch_gib,
        })
    }

    fn nccl_env(&self, env: std::collections::BTreeMap<String, String>) -> Result<NcclEnv, ScenarioError> {
        self.nccl_env_for(
            env,
            tpsim_model::nccl::NcclVersion::LATEST,
            None,
            true,
            &mut Vec::new(),
        )
    }
}
