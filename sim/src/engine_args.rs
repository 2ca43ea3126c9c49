//! `tpsim engine-args` (issue #17 point 6): the SGLang or vLLM launch command, with its environment,
//! equivalent to a scenario — what a user types to run on a real box what tpsim simulated.
//!
//! The command states what the scenario's file states and nothing more: a key the file leaves out is
//! left to the engine's own default (which tpsim models; a note says so), so a wrong tpsim default
//! shows up as a prediction error against the real run instead of being forced onto the engine.
//! Keys with no engine flag (hardware, costs, observations, acceptance, workload) become notes.
//!
//! Flag names and value forms, each from the engine's argument definitions:
//! - SGLang: `python -m sglang.launch_server`, `ServerArgs.add_cli_args` in `sglang/srt/server_args.py`
//!   (0.5.8 and 0.5.9 alike for every flag used here; `tests/data/engine-args/sglang-*.txt` lists what
//!   each accepts and `tests/tests/engine_args.rs` checks every bundled scenario's command against it).
//! - vLLM: `vllm serve MODEL`, `EngineArgs.add_cli_args` in `vllm/engine/arg_utils.py` (0.11.0), whose
//!   flags are the config dataclass fields with `-` for `_` (`tests/data/engine-args/vllm-0.11.0.txt`).
//!
//! The command targets the release simulated (`crate::engine_release`: `engine.version`, else
//! SGLang 0.5.8 / vLLM 0.19.0) and is spelled and checked against that release's list
//! (`crate::engine_args_versions`).
//!
//! | scenario key | SGLang | vLLM |
//! |---|---|---|
//! | `[model] preset`/`config` | `--model-path` | positional model |
//! | `engine.tp` | `--tp-size` | `--tensor-parallel-size` |
//! | `engine.mem_fraction_static` / `gpu_memory_utilization` | `--mem-fraction-static` | `--gpu-memory-utilization` |
//! | `engine.context_length` / `max_model_len` | `--context-length` | `--max-model-len` |
//! | `engine.max_running_requests` | `--max-running-requests` | `--max-num-seqs` |
//! | `engine.page_size` | `--page-size` | `--block-size` |
//! | `engine.max_total_tokens` | `--max-total-tokens` | `--num-gpu-blocks-override` (tokens ÷ block) |
//! | `model.quantization.kv_cache_dtype` | `--kv-cache-dtype` | `--kv-cache-dtype` |
//! | `engine.cuda_graph = false` | `--disable-cuda-graph` | `--enforce-eager` |
//! | `engine.disable_overlap_schedule` | `--disable-overlap-schedule` | (none) |
//! | `engine.max_num_seqs`, `engine.max_num_batched_tokens` | (refused) | `--max-num-seqs`, `--max-num-batched-tokens` |
//! | `engine.enable_piecewise_cuda_graph` | `--enable-piecewise-cuda-graph`; `false`: `--disable-piecewise-cuda-graph` (0.5.10 – 0.5.19; see `engine_args_versions`) | (refused) |
//! | `engine.cuda_graph_max_bs`, `engine.cuda_graph_bs` | `--cuda-graph-max-bs`, `--cuda-graph-bs` | (refused) |
//! | `engine.cuda_graph_sizes`, `cudagraph_capture_sizes`, `max_cudagraph_capture_size` | (refused) | 0.11: `--cuda-graph-sizes`, `--compilation-config` JSON; 0.12: `--cudagraph-capture-sizes`, `--max-cudagraph-capture-size` |
//! | `engine.async_scheduling` | (refused) | `--async-scheduling` |
//! | `engine.distributed_executor_backend` (ranks across boxes) | (refused) | `"ray"` (default): `ray start` per node, `--distributed-executor-backend ray`; `"mp"` (0.12+): `--nnodes`, `--node-rank`, `--master-addr`, `--headless` off node 0 |
//! | `engine.num_scheduler_steps`, `engine.use_v1` | (refused) | `--num-scheduler-steps`, `VLLM_USE_V1=0/1` (environment) |
//! | `engine.chunked_prefill_size`, `max_prefill_tokens`, `schedule_conservativeness`, `disable_radix_cache`, `schedule_policy` | `--chunked-prefill-size`, … | (refused) |
//! | `engine.enable_prefix_caching` | (refused) | `--enable-prefix-caching` / `--no-enable-prefix-caching` |
//! | `engine.ep_size` | `--ep-size` | `--enable-expert-parallel` (ep = tp) |
//! | `engine.attention_backend` | `--attention-backend` | (refused by the scenario) |
//! | `engine.moe_backend` | `--moe-runner-backend` | (a note: vLLM picks its own) |
//! | `engine.allreduce = "nccl"` (unset or `"custom"`: no flag, the engine's default) | `--disable-custom-all-reduce` | `--disable-custom-all-reduce` |
//! | `[speculative]` | `--speculative-algorithm`, `-draft-model-path`, `-num-steps`, `-eagle-topk`, `-num-draft-tokens` | `--speculative-config` JSON |
//! | `engine.swa_full_tokens_ratio` | `--swa-full-tokens-ratio` | (none) |
//! | `engine.disable_hybrid_swa_memory` | `--disable-hybrid-swa-memory` | (none) |
//! | `engine.disable_hybrid_kv_cache_manager` | (none) | `--disable-hybrid-kv-cache-manager` |
//! | `[engine.env]` | environment | environment |
//! | `engine.deepep_mode` | `--deepep-mode` | (refused) |
//! | `engine.mamba_cache_dtype` | (refused) | `--mamba-cache-dtype` |
//! | `engine.mamba_ssm_cache_dtype` | `--mamba-ssm-dtype` | `--mamba-ssm-cache-dtype` |
//! | `engine.mamba_scheduler_strategy` | `--mamba-scheduler-strategy` (`--mamba-radix-cache-strategy` from 0.5.14) | (refused) |
//! | `engine.all2all_backend` | (refused) | `VLLM_ALL2ALL_BACKEND` (environment) |
//! | `engine.install` (vLLM) | (refused) | a note: the vllm/vllm-openai image, or pip without FlashInfer |
//! | `engine.trust_remote_code` (default: `hf-ids.toml` `[trust_remote_code]`) | `--trust-remote-code` | `--trust-remote-code` |
//! | `model.preset` listed in `hf-ids.toml` `[vllm_mistral_format]` | (none: the path decides) | `--tokenizer-mode mistral --config-format mistral --load-format mistral` |

use crate::presets;
use crate::scenario::{self, AllreduceBackend, EngineKind, Scenario, ScenarioError, ScenarioFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tpsim_model::llm::{KvCacheDtype, WeightDtype};

/// Placeholder printed where the model's HuggingFace repository is not known.
pub const UNKNOWN_MODEL_PATH: &str = "<MODEL_PATH>";

/// A launch command: program, arguments, environment and the notes about what it leaves out.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct EngineCommand {
    pub engine: EngineKind,
    /// The engine version whose flags the command uses: the release simulated
    /// (`crate::engine_release`).
    pub version: String,
    /// Whether `version` is the scenario's `engine.version` (else tpsim's current release).
    pub version_from_scenario: bool,
    /// `["python", "-m", "sglang.launch_server"]` or `["vllm", "serve"]`.
    pub program: Vec<String>,
    /// Arguments after the program: flags and their values (vLLM: the model first, positional).
    pub args: Vec<String>,
    /// Environment variables to set for the server.
    pub env: BTreeMap<String, String>,
    /// What the command leaves to the engine or cannot say (simulator-only settings), one line each.
    pub notes: Vec<String>,
    /// The scenario's warnings: adjustments the engine makes itself at start-up (it logs the same).
    pub warnings: Vec<String>,
    /// Issue #17 point 4: what each node runs when the ranks span boxes (empty: one box, `args`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub nodes: Vec<crate::engine_args_nodes::NodeCommand>,
}

impl EngineCommand {
    /// Program and arguments in one list, as `std::process::Command` takes them.
    pub fn argv(&self) -> Vec<String> {
        self.program.iter().chain(&self.args).cloned().collect()
    }

    /// The value given to `flag` (the text after it), if the command has it.
    pub fn value_of(&self, flag: &str) -> Option<&str> {
        let i = self.args.iter().position(|a| a == flag)?;
        self.args
            .get(i + 1)
            .map(String::as_str)
            .filter(|v| !v.starts_with("--"))
    }
}

/// Loads the scenario at `path` and builds its command.
pub fn for_file(path: &Path) -> Result<(Scenario, EngineCommand), ScenarioError> {
    let s = scenario::load(path)?;
    let text = crate::files::read_text(path).map_err(|e| ScenarioError::Io {
        file: path.display().to_string(),
        message: e.to_string(),
    })?;
    // Issue #17 (cmdkey): `engine.command` read into its keys, as the loader reads it.
    let (raw, _) = scenario::parse_file(&text, path)?;
    let cmd = command(&s, &raw, &text)?;
    Ok((s, cmd))
}

/// The HuggingFace repository of a bundled model preset (`scenarios/models/hf-ids.toml`).
pub fn hf_id(preset: &str) -> Option<String> {
    #[derive(serde::Deserialize)]
    struct Ids {
        ids: BTreeMap<String, String>,
    }
    let ids: Ids = toml::from_str(include_str!("../../scenarios/models/hf-ids.toml")).ok()?;
    ids.ids.get(preset).cloned()
}

/// Issue #17 (trustcode): whether the engine needs `--trust-remote-code` for a bundled model preset
/// (`scenarios/models/hf-ids.toml` `[trust_remote_code]`, each entry with its source); `None`: no
/// source settles it.
pub fn preset_trust_remote_code(preset: &str) -> Option<bool> {
    #[derive(serde::Deserialize)]
    struct Table {
        #[serde(default)]
        trust_remote_code: BTreeMap<String, bool>,
    }
    let t: Table = toml::from_str(include_str!("../../scenarios/models/hf-ids.toml")).ok()?;
    t.trust_remote_code.get(preset).copied()
}

/// Issue #17 (mistralfmt): whether vLLM loads a bundled model preset in Mistral's own format
/// (`scenarios/models/hf-ids.toml` `[vllm_mistral_format]`, each entry with its source): the
/// repository ships `params.json` and no Hugging Face config.json.
pub fn preset_vllm_mistral_format(preset: &str) -> bool {
    #[derive(serde::Deserialize)]
    struct Table {
        #[serde(default)]
        vllm_mistral_format: BTreeMap<String, bool>,
    }
    toml::from_str::<Table>(include_str!("../../scenarios/models/hf-ids.toml"))
        .ok()
        .and_then(|t| t.vllm_mistral_format.get(preset).copied())
        .unwrap_or(false)
}

/// The three flags vLLM reads a Mistral-format checkpoint with (the model cards' launch commands;
/// vLLM 0.12.0 `--tokenizer-mode` choices include `mistral`, `--config-format` and `--load-format`
/// take it as a string: `tests/data/engine-args/vllm-0.12.0.txt`).
const MISTRAL_FORMAT_FLAGS: [&str; 3] = ["--tokenizer-mode", "--config-format", "--load-format"];

/// The command for the resolved scenario `s`, whose file parsed as `raw` (text `text`, for the line
/// of a refused key). Refuses, as the engine would, what it would not start with.
pub fn command(s: &Scenario, raw: &ScenarioFile, text: &str) -> Result<EngineCommand, ScenarioError> {
    let refuse = |key: &str, msg: String| ScenarioError::invalid(&s.file, text, key, msg);
    let e = raw.engine.clone().unwrap_or_default();
    let kind = s.engine.kind;
    let sglang = kind == EngineKind::Sglang;
    // Issue #17 (consistency): the release the rest of tpsim simulates.
    let release = s.engine.release();
    let (version, version_from_scenario) = (release.version, !release.assumed);
    let mut c = Cmd::default();
    let (model_path, model_note) = model_path(s, raw);
    c.notes.extend(model_note);
    let trust = trust_remote_code(&mut c, s, raw, e.trust_remote_code);
    let mut program: Vec<String> = if sglang {
        ["python", "-m", "sglang.launch_server"]
            .map(String::from)
            .to_vec()
    } else {
        ["vllm", "serve"].map(String::from).to_vec()
    };
    if sglang {
        // server_args.py: `--model-path` (alias `--model`).
        c.arg("--model-path", &model_path);
        // `--tensor-parallel-size` / `--tp-size`.
        c.arg("--tp-size", s.engine.tp);
    } else {
        // `vllm serve` takes the model as its positional `model_tag` (vllm/entrypoints/cli/serve.py).
        c.args.push(model_path);
        // Issue #17 point 1 (vllmdp): under DP on a MoE model `engine.tp` is the MoE's dp × tp;
        // the flag is one DP rank's.
        c.arg(
            "--tensor-parallel-size",
            s.engine.vllm_dp.map_or(s.engine.tp, |v| v.tp),
        );
    }
    if trust {
        c.flag("--trust-remote-code");
    }

    // Memory: the fraction the user stated; else the engine's default, which tpsim models.
    match (sglang, e.mem_fraction_static, e.gpu_memory_utilization) {
        (true, Some(f), _) => c.arg("--mem-fraction-static", f),
        (true, None, _) => c.note(format!(
            "engine.mem_fraction_static not set: SGLang picks its default (tpsim models {:.3}, memory era {:?} from {})",
            s.engine.mem_fraction_static, s.engine.era, s.engine.era_source
        )),
        (false, _, Some(u)) => c.arg("--gpu-memory-utilization", u),
        (false, _, None) => c.note("engine.gpu_memory_utilization not set: vLLM's default 0.9".into()),
    }

    // Context length: refused above the model's limit as the engine refuses it.
    let derived = s.model.context_len;
    if let Some(n) = e.context_length {
        if let Some(d) = derived.filter(|d| n > *d) {
            // flags56: allowed by SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN (or its default) with a
            // warning, else refused (`scenario::long_context`); the variable is printed with [engine.env].
            use crate::scenario::long_context::{SGLANG_VAR, sglang_allows, sglang_refusal, sglang_warning};
            let raw = e.env.as_ref().and_then(|m| m.get(SGLANG_VAR)).map(String::as_str);
            if !sglang || !sglang_allows(&version, raw).unwrap_or(false) {
                return Err(refuse("engine.context_length", sglang_refusal(&version, n, d)));
            }
            c.note(sglang_warning(&version, n, d));
        }
        if sglang {
            c.arg("--context-length", n);
        } else {
            c.note("engine.context_length is SGLang's: vLLM's is max_model_len".into());
        }
    }
    if s.engine.max_model_len_auto {
        // Issue #17 (flags): vLLM ≥ 0.14.0 `human_readable_int_or_auto` (`scenario::max_model_len`).
        c.arg("--max-model-len", "auto");
        if let Some(n) = s.engine.max_model_len {
            c.note(format!(
                "--max-model-len auto: vLLM fits the length to the KV memory at start-up (tpsim's fit: {n})"
            ));
        }
    } else if let Some(n) = e.max_model_len.as_ref().and(s.engine.max_model_len) {
        if let Some(d) = derived.filter(|d| n > *d) {
            // vLLM `_get_and_verify_max_len` by release; flags56: VLLM_ALLOW_LONG_MAX_MODEL_LEN turns the
            // refusal into a warning (`scenario::long_context`); the variable is printed with [engine.env].
            use crate::scenario::long_context::{VLLM_VAR, vllm_allows, vllm_refusal, vllm_warning};
            let raw = e.env.as_ref().and_then(|m| m.get(VLLM_VAR)).map(String::as_str);
            if !vllm_allows(&version, raw) {
                return Err(refuse("engine.max_model_len", vllm_refusal(&version, n, d, raw)));
            }
            c.note(vllm_warning(&version, n, d));
        }
        c.arg("--max-model-len", n);
    }

    // Batch and pool limits.
    if let Some(n) = e.max_running_requests {
        c.arg(
            if sglang {
                "--max-running-requests"
            } else {
                "--max-num-seqs"
            },
            n,
        );
    }
    if let Some(p) = e.page_size {
        c.arg(if sglang { "--page-size" } else { "--block-size" }, p);
    }
    if let Some(t) = e.max_total_tokens {
        if sglang {
            c.arg("--max-total-tokens", t);
        } else {
            // CacheConfig.num_gpu_blocks_override: blocks of `block_size` tokens.
            let blocks = t / s.engine.page_size.max(1);
            c.arg("--num-gpu-blocks-override", blocks);
        }
    }

    // vLLM's batch shape (issue #17 point 5; refused under SGLang by the scenario loader): SchedulerConfig
    // `max_num_seqs` / `max_num_batched_tokens` (vLLM 0.11.0 engine/arg_utils.py).
    if !sglang {
        if let Some(n) = e.max_num_seqs.filter(|_| e.max_running_requests.is_none()) {
            c.arg("--max-num-seqs", n);
        }
        if let Some(n) = e.max_num_batched_tokens {
            c.arg("--max-num-batched-tokens", n);
        }
    }
    // SGLang's piecewise CUDA graphs (server_args.py 0.5.9 `--enable-piecewise-cuda-graph`).
    if sglang && e.enable_piecewise_cuda_graph == Some(true) {
        c.flag("--enable-piecewise-cuda-graph");
    }
    // flags53: prefill graphs off (SGLang 0.5.10 server_args.py `--disable-piecewise-cuda-graph`),
    // spelled for each release by `engine_args_versions::adapt`.
    if sglang && e.enable_piecewise_cuda_graph == Some(false) {
        c.flag("--disable-piecewise-cuda-graph");
    }
    graphs(&mut c, s, &e, sglang);
    // Issue #18 point 1 (schedkeys): scheduler settings (SGLang 0.5.9 server_args.py; vLLM 0.11.0
    // engine/arg_utils.py); the loader refuses each under the other engine.
    if let Some(n) = e.chunked_prefill_size.filter(|_| sglang) {
        c.arg("--chunked-prefill-size", n);
    }
    if let Some(n) = e.max_prefill_tokens.filter(|_| sglang) {
        c.arg("--max-prefill-tokens", n);
    }
    if let Some(v) = e.schedule_conservativeness.filter(|_| sglang) {
        c.arg("--schedule-conservativeness", v);
    }
    if sglang && e.disable_radix_cache == Some(true) {
        c.flag("--disable-radix-cache");
    }
    if sglang && e.enable_mixed_chunk == Some(true) {
        c.flag("--enable-mixed-chunk");
    }
    if let Some(p) = e.schedule_policy.as_deref().filter(|_| sglang) {
        c.arg("--schedule-policy", p);
    }
    match e.enable_chunked_prefill.filter(|_| !sglang) {
        Some(true) => c.flag("--enable-chunked-prefill"),
        Some(false) => c.flag("--no-enable-chunked-prefill"),
        None => {}
    }
    if let Some(n) = e.long_prefill_token_threshold.filter(|_| !sglang) {
        c.arg("--long-prefill-token-threshold", n);
    }
    // Issue #18 (frontend): vLLM's API-server processes (refused under SGLang when resolving).
    if let Some(n) = e.api_server_count.filter(|_| !sglang) {
        c.arg("--api-server-count", n);
    }
    match e.enable_prefix_caching.filter(|_| !sglang) {
        Some(true) => c.flag("--enable-prefix-caching"),
        Some(false) => c.flag("--no-enable-prefix-caching"),
        None => {}
    }

    kv_cache_dtype(&mut c, s, raw, sglang).map_err(|m| refuse("model.quantization.kv_cache_dtype", m))?;
    if raw.model.as_ref().is_some_and(|m| m.quantization.is_some()) {
        c.note(
            "model.quantization: the weight format is the checkpoint's (the engine reads its quantization_config); \
             only kv_cache_dtype maps to a flag (engine.quantization gives --quantization)"
                .into(),
        );
    }

    if e.cuda_graph == Some(false) {
        c.flag(if sglang {
            "--disable-cuda-graph"
        } else {
            "--enforce-eager"
        });
    }
    // graphmode: vLLM's `compilation_config.cudagraph_mode` as a JSON `--compilation-config` (the
    // form every release tpsim checks accepts; resolved, refused under SGLang, in
    // `scenario::cudagraph_mode`).
    if let Some(m) = e.cudagraph_mode.as_deref().filter(|_| !sglang) {
        let name = crate::scenario::cudagraph_mode::CudagraphMode::parse(m)
            .map_or(m.to_string(), |m| m.name().to_string());
        c.arg(
            "--compilation-config",
            format!("{{\"cudagraph_mode\": \"{name}\"}}"),
        );
    }
    if e.disable_overlap_schedule == Some(true) {
        if sglang {
            c.flag("--disable-overlap-schedule");
        } else {
            c.note(
                "engine.disable_overlap_schedule: an SGLang flag; vLLM has none (simulator only here)".into(),
            );
        }
    }
    if let Some(ep) = e.ep_size.filter(|&ep| ep > 1) {
        if sglang {
            // `--expert-parallel-size` / `--ep-size` / `--ep`.
            c.arg("--ep-size", ep);
        } else {
            // ParallelConfig.enable_expert_parallel: EP over the whole TP group.
            c.flag("--enable-expert-parallel");
        }
    }
    // Parallelism (issue #17 point 1). SGLang 0.5.9 server_args.py: `--enable-dp-attention`,
    // `--dp-size`, `--pp-size`, `--moe-a2a-backend`; vLLM 0.11.0 arg_utils.py: `--pipeline-parallel-size`,
    // `--decode-context-parallel-size`, `--enable-expert-parallel`. The scenario loader refuses each
    // engine's keys under the other engine.
    if e.enable_dp_attention == Some(true) {
        c.flag("--enable-dp-attention");
    }
    // Issue #17 (dp): vLLM 0.11.0 arg_utils.py `--data-parallel-size` (alias `-dp`).
    if let Some(dp) = e.dp_size {
        c.arg(
            if sglang {
                "--dp-size"
            } else {
                "--data-parallel-size"
            },
            dp,
        );
    }
    // Issue #17: `--dtype` (the same flag and names in SGLang 0.5.9 and vLLM 0.11.0).
    if let Some(d) = &e.dtype {
        c.arg("--dtype", d);
    }
    // Issue #17 (onlinequant): `--quantization` (SGLang 0.5.9 server_args.py, vLLM 0.11.0
    // arg_utils.py; the loader accepts only `fp8`).
    if let Some(q) = &e.quantization {
        c.arg("--quantization", q);
    }
    // vLLM 0.11.0 arg_utils.py `--kv-cache-memory-bytes` (int; refused under SGLang when resolving).
    if let Some(b) = e.kv_cache_memory_bytes.filter(|_| !sglang) {
        c.arg("--kv-cache-memory-bytes", b.0);
    }
    // Issue #17 (mambadtype): vLLM `--mamba-cache-dtype` / `--mamba-ssm-cache-dtype` (the same
    // spelling in 0.11.0 and 0.19.0 arg_utils.py; refused under SGLang when resolving).
    if !sglang {
        if let Some(d) = &e.mamba_cache_dtype {
            c.arg("--mamba-cache-dtype", d);
        }
        if let Some(d) = &e.mamba_ssm_cache_dtype {
            c.arg("--mamba-ssm-cache-dtype", d);
        }
    } else if let Some(d) = &e.mamba_ssm_cache_dtype {
        // Issue #17 (hybridserve): SGLang's `--mamba-ssm-dtype` (0.5.8 / 0.5.9 server_args.py;
        // `engine.mamba_cache_dtype` is refused under SGLang when resolving).
        c.arg("--mamba-ssm-dtype", d);
    }
    // cmdsurvey62: SGLang's `--mamba-scheduler-strategy` (refused under vLLM when resolving).
    if let Some(s) = e.mamba_scheduler_strategy.as_ref().filter(|_| sglang) {
        c.arg("--mamba-scheduler-strategy", s);
    }
    if let Some(pp) = e.pp_size.filter(|&pp| pp > 1) {
        c.arg(
            if sglang {
                "--pp-size"
            } else {
                "--pipeline-parallel-size"
            },
            pp,
        );
    }
    if let Some(dcp) = e.dcp_size.filter(|&d| d > 1) {
        c.arg("--decode-context-parallel-size", dcp);
    }
    // (With `ep_size` > 1 the flag was printed above.)
    if e.enable_expert_parallel == Some(true) && e.ep_size.is_none_or(|ep| ep <= 1) {
        c.flag("--enable-expert-parallel");
    }
    if let Some(b) = &e.moe_a2a_backend {
        c.arg("--moe-a2a-backend", b);
    }
    // Issue #17 point 1 (ep): SGLang 0.5.9 `--deepep-mode`; vLLM 0.11 reads its all-to-all backend
    // from the environment only (`envs.py` VLLM_ALL2ALL_BACKEND; no CLI flag in 0.11.0).
    if let Some(m) = &e.deepep_mode {
        c.arg("--deepep-mode", m);
    }
    if let Some(b) = &e.all2all_backend {
        c.env.insert("VLLM_ALL2ALL_BACKEND".into(), b.clone());
    }
    // newdeploys: vLLM reads `--attention-backend` from the release whose list has it (vllm-0.19.0.txt;
    // vllm PR 26315 turned the attention environment variables into arguments); before, the
    // environment variable `VLLM_ATTENTION_BACKEND` (vllm-0.11.0 / 0.12.0 lists lack the flag).
    let flag_listed = |flag: &str| {
        crate::engine_args_versions::list_for(kind, &version).is_none_or(|l| l.flags().contains_key(flag))
    };
    // flags55: SGLang 0.4.3 - 0.4.5 put an MLA model on FlashInfer only under `--enable-flashinfer-mla`
    // (`model_executor/model_runner.py`; `engine_args_versions` module doc).
    let flashinfer_mla = sglang
        && e.attention_backend.as_deref() == Some("flashinfer")
        && matches!(s.model.attention, tpsim_model::llm::Attention::Mla { .. })
        && crate::engine_args_versions::list_for(kind, &version).is_some_and(|l| {
            l.flags()
                .get("--enable-flashinfer-mla")
                .is_some_and(|f| f.kind == "flag")
        });
    if flashinfer_mla {
        c.flag("--enable-flashinfer-mla");
        c.note(format!(
            "SGLang {version} runs an MLA model on FlashInfer only under --enable-flashinfer-mla (else triton): \
             printed for engine.attention_backend = \"flashinfer\""
        ));
    } else if let Some(b) = &e.attention_backend {
        if sglang || flag_listed("--attention-backend") {
            c.arg("--attention-backend", b);
        } else {
            c.env.insert("VLLM_ATTENTION_BACKEND".into(), b.clone());
        }
    } else if let Some(b) = &s.engine.attention_backend {
        // vllmattn: under vLLM the pick is vLLM's own rule (`scenario::attention_backend::vllm_default`).
        c.note(format!(
            "engine.attention_backend not set: the engine picks its backend (tpsim assumes {b})"
        ));
    } else if !sglang {
        c.note(
            "engine.attention_backend not set: vLLM picks its backend (tpsim has not read its rule for \
             this release or GPU: no attention-backend factor)"
                .to_string(),
        );
    }
    // moedefault: SGLang's `--moe-runner-backend` only when the file states it (0.5.8/0.5.9
    // `server_args.py`; `b12x` is no choice of those releases and is refused by the flag check);
    // vLLM's pick is not spelled as a flag (tpsim's names are its NVFP4 oracle's, not all
    // `--moe-backend` values).
    match (&e.moe_backend, &s.engine.moe_backend) {
        (Some(b), _) if sglang => c.arg("--moe-runner-backend", b),
        (Some(b), _) => c.note(format!(
            "engine.moe_backend = {b}: vLLM picks its MoE kernel backend itself; tpsim costs {b}"
        )),
        (None, Some(b)) => c.note(format!(
            "engine.moe_backend not set: the engine picks its MoE backend (tpsim assumes {b})"
        )),
        (None, None) => {}
    }
    allreduce(&mut c, s, sglang, e.allreduce.is_some());
    // flags55: a release with no custom allreduce (vLLM 0.2.6: no `--disable-custom-all-reduce`,
    // see `engine_args_versions::adapt`) runs NCCL whatever the scenario says.
    if s.engine.allreduce == AllreduceBackend::Custom
        && e.allreduce.is_some()
        && s.engine.tp > 1
        && !flag_listed("--disable-custom-all-reduce")
    {
        c.note(format!(
            "engine.allreduce = \"custom\": stock vLLM {version} has no custom allreduce (its argument list has no \
             --disable-custom-all-reduce): it runs NCCL; the scenario assumes a build that has one"
        ));
    }
    if let Some(r) = e.swa_full_tokens_ratio {
        c.arg("--swa-full-tokens-ratio", r);
    }
    if e.disable_hybrid_swa_memory == Some(true) {
        c.flag("--disable-hybrid-swa-memory");
    }
    if e.disable_hybrid_kv_cache_manager == Some(true) {
        c.flag("--disable-hybrid-kv-cache-manager");
    }
    speculative(&mut c, s, sglang);
    // Issue #17 (vllmv0): the V0 engine's settings (the loader refuses them under SGLang).
    if let Some(n) = e.num_scheduler_steps {
        c.arg("--num-scheduler-steps", n);
    }
    if let Some(g) = e.swap_space {
        c.arg("--swap-space", g); // vllmv0mem
    }
    if let Some(v1) = e.use_v1 {
        c.env
            .insert("VLLM_USE_V1".into(), if v1 { "1" } else { "0" }.into());
    }
    for (k, v) in e.env.unwrap_or_default() {
        c.env.insert(k, v);
    }
    if let Some(i) = s.engine.install {
        c.note(scenario::vllm_install::engine_args_note(i, &version)); // installkind
    }
    simulator_only(&mut c, raw);
    // Issue #17 (flag lists by version): the version's spelling of each flag, or a refusal naming
    // the flag it lacks (engine_args_versions.rs).
    match crate::engine_args_versions::list_for(kind, &version) {
        Some(list) => {
            crate::engine_args_versions::adapt(list, &mut c.args, &mut c.notes)
                .map_err(|m| refuse("engine.version", m))?;
            // flags55: vLLM 0.2.x has no `vllm serve`; its OpenAI server takes the model as `--model`.
            if list.vllm_module_server() {
                program = ["python", "-m", "vllm.entrypoints.openai.api_server"]
                    .map(String::from)
                    .to_vec();
                c.args.insert(0, "--model".into());
                c.note(format!(
                    "vLLM {version} has no `vllm serve` (no console script in its wheel): the OpenAI server module, \
                     the model as --model"
                ));
            }
        }
        None => c.note(format!(
            "no argument list at or below {} {version}: the flags are those of tpsim's oldest list, unchecked",
            if sglang { "SGLang" } else { "vLLM" }
        )),
    }
    // After the keys' flags, before extra_args: an imported command's copies sit in extra_args, in
    // the same place, so a command round-trips.
    mistral_format(&mut c, s, raw);
    extra_args(&mut c, s);
    // Issue #17 point 4: ranks across boxes launch on every node.
    let nodes = crate::engine_args_nodes::per_node(s, &mut c.args, &mut c.notes);
    Ok(EngineCommand {
        engine: kind,
        version,
        version_from_scenario,
        program,
        args: c.args,
        env: c.env,
        notes: c.notes,
        warnings: s.warnings.clone(),
        nodes,
    })
}

/// Issue #17 (graphs): the CUDA-graph capture flags and vLLM's `--async-scheduling`, in the
/// spelling of the targeted release (the loader refuses each engine's keys under the other):
/// SGLang 0.5.9 `server_args.py` `--cuda-graph-max-bs`, `--cuda-graph-bs` (`nargs="+"`); vLLM 0.11.0
/// `--cuda-graph-sizes` (a `list[int]` field: `nargs="+"`, `arg_utils.py` `get_kwargs`) and
/// `compilation_config.cudagraph_capture_sizes` through `--compilation-config` JSON; vLLM 0.12.0
/// `--cudagraph-capture-sizes` (of which `--cuda-graph-sizes` is the deprecated alias) and
/// `--max-cudagraph-capture-size`.
fn graphs(c: &mut Cmd, s: &Scenario, e: &scenario::EngineSection, sglang: bool) {
    let list = |c: &mut Cmd, flag: &str, v: &[i64]| {
        c.flag(flag);
        c.args.extend(v.iter().map(i64::to_string));
    };
    if sglang {
        if let Some(n) = e.cuda_graph_max_bs {
            c.arg("--cuda-graph-max-bs", n);
        }
        if let Some(v) = &e.cuda_graph_bs {
            list(c, "--cuda-graph-bs", v);
        }
        return;
    }
    let new_rule = s.engine.cuda_graphs.vllm_rule == scenario::cuda_graphs::VllmGraphRule::V0_12;
    if let Some(v) = &e.cuda_graph_sizes {
        if new_rule {
            list(c, "--cudagraph-capture-sizes", v);
            c.note(
                "engine.cuda_graph_sizes: vLLM ≥ 0.12 reads --cuda-graph-sizes as the deprecated alias of                  --cudagraph-capture-sizes (a list of sizes); printed in the new spelling"
                    .into(),
            );
        } else {
            list(c, "--cuda-graph-sizes", v);
        }
    }
    if let Some(v) = &e.cudagraph_capture_sizes {
        if new_rule {
            list(c, "--cudagraph-capture-sizes", v);
        } else {
            let sizes: Vec<String> = v.iter().map(i64::to_string).collect();
            c.arg(
                "--compilation-config",
                format!("{{\"cudagraph_capture_sizes\": [{}]}}", sizes.join(", ")),
            );
        }
    }
    if let Some(n) = e.max_cudagraph_capture_size {
        c.arg("--max-cudagraph-capture-size", n);
    }
    if e.async_scheduling == Some(true) {
        c.flag("--async-scheduling");
    }
}

#[derive(Default)]
struct Cmd {
    args: Vec<String>,
    env: BTreeMap<String, String>,
    notes: Vec<String>,
}

impl Cmd {
    fn arg(&mut self, flag: &str, value: impl std::fmt::Display) {
        self.args.push(flag.to_string());
        self.args.push(value.to_string());
    }
    fn flag(&mut self, flag: &str) {
        self.args.push(flag.to_string());
    }
    fn note(&mut self, n: String) {
        self.notes.push(n);
    }
}

/// The model argument: a bundled preset's HuggingFace repository, a preset directory or the directory
/// of a `config.json` (the engines load a directory holding config.json and the weights).
fn model_path(s: &Scenario, raw: &ScenarioFile) -> (String, Option<String>) {
    let m = raw.model.clone().unwrap_or_default();
    let base = s.file.parent().unwrap_or(Path::new("."));
    match (m.preset, m.config) {
        (Some(p), _) if !presets::is_path(&p) => match hf_id(&p) {
            Some(id) => (id, None),
            None => (
                UNKNOWN_MODEL_PATH.into(),
                Some(format!(
                    "model preset `{p}` has no HuggingFace id in scenarios/models/hf-ids.toml: put the checkpoint's path in place of {UNKNOWN_MODEL_PATH}"
                )),
            ),
        },
        (Some(p), _) => (display(&base.join(p)), weights_note()),
        (None, Some(cfg)) => {
            let dir = base.join(cfg);
            let dir = dir
                .parent()
                .map(Path::to_path_buf)
                .unwrap_or_else(|| PathBuf::from("."));
            (display(&dir), weights_note())
        }
        (None, None) => (UNKNOWN_MODEL_PATH.into(), None),
    }
}

/// Issue #17 (trustcode): whether the command carries `--trust-remote-code` (both engines spell it
/// so: SGLang `server_args.py`, vLLM `arg_utils.py`; every list in `tests/data/engine-args/` has it).
/// The scenario's `engine.trust_remote_code` wins; else a bundled preset's `[trust_remote_code]`
/// entry; else, for a model directory whose config.json has `auto_map` (classes in the repository's
/// own Python files), a note: transformers loads those only with the flag.
fn trust_remote_code(c: &mut Cmd, s: &Scenario, raw: &ScenarioFile, stated: Option<bool>) -> bool {
    let m = raw.model.clone().unwrap_or_default();
    let preset = m.preset.as_deref().filter(|p| !presets::is_path(p));
    let listed = preset.and_then(preset_trust_remote_code);
    match (stated, listed) {
        (Some(false), Some(true)) => {
            c.note(format!(
                "engine.trust_remote_code = false: preset `{}` is listed as needing --trust-remote-code \
                 (scenarios/models/hf-ids.toml); the engine may stop at load without it",
                preset.unwrap_or_default()
            ));
            false
        }
        (Some(t), _) => t,
        (None, Some(t)) => t,
        (None, None) => {
            if preset.is_none() {
                let base = s.file.parent().unwrap_or(Path::new("."));
                let cfg = match (&m.preset, &m.config) {
                    (Some(p), _) => Some(base.join(p).join("config.json")),
                    (None, Some(cfg)) => Some(base.join(cfg)),
                    (None, None) => None,
                };
                if let Some(cfg) = cfg.filter(|p| has_auto_map(p)) {
                    c.note(format!(
                        "{} has `auto_map` (model classes in the repository's own Python files): add \
                         --trust-remote-code unless the engine's transformers defines its model_type, or \
                         set engine.trust_remote_code",
                        display(&cfg)
                    ));
                }
            }
            false
        }
    }
}

/// Under vLLM, the Mistral-format flags for a preset listed in `[vllm_mistral_format]`, unless
/// `engine.extra_args` already states the flag (an imported command carries them there).
fn mistral_format(c: &mut Cmd, s: &Scenario, raw: &ScenarioFile) {
    let preset = raw.model.as_ref().and_then(|m| m.preset.as_deref());
    let listed = preset.is_some_and(|p| !presets::is_path(p) && preset_vllm_mistral_format(p));
    if s.engine.kind == EngineKind::Sglang || !listed {
        return;
    }
    let stated = |f: &str| s.engine.extra_args.iter().any(|a| a.flag == f);
    let missing: Vec<&str> = MISTRAL_FORMAT_FLAGS.into_iter().filter(|f| !stated(f)).collect();
    for f in &missing {
        c.arg(f, "mistral");
    }
    if !missing.is_empty() {
        c.note(format!(
            "{}: the checkpoint is in Mistral's format (params.json, no config.json); vLLM reads it with {} \
             (the model card's command; scenarios/models/hf-ids.toml [vllm_mistral_format])",
            preset.unwrap_or_default(),
            missing.join(" mistral, ") + " mistral"
        ));
    }
}

/// Whether the config.json at `path` names an `auto_map` (HF's pointer to repository code; always a
/// top-level key in HF configs). Read as text: some bundled configs hold `Infinity`/`NaN`, which
/// strict JSON refuses. A file that does not read has none here (the scenario loader reports it).
fn has_auto_map(path: &Path) -> bool {
    crate::files::read_text(path).is_ok_and(|t| t.contains("\"auto_map\""))
}

fn weights_note() -> Option<String> {
    Some("the model directory must hold the checkpoint's weights beside config.json".into())
}

fn display(p: &Path) -> String {
    let s = p.display().to_string();
    if s.is_empty() { ".".into() } else { s }
}

/// `--kv-cache-dtype` from the scenario's own `[model] quantization` (every bundled preset says
/// `auto`, the engine's default). SGLang 0.5.9 choices: auto, fp8_e5m2, fp8_e4m3, bf16, bfloat16,
/// fp4_e2m1; vLLM 0.11.0 (`CacheDType`): auto, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc.
fn kv_cache_dtype(c: &mut Cmd, s: &Scenario, raw: &ScenarioFile, sglang: bool) -> Result<(), String> {
    let Some(kv) = raw
        .model
        .as_ref()
        .and_then(|m| m.quantization.as_ref())
        .map(|q| q.kv_cache_dtype)
    else {
        return Ok(());
    };
    let name = match (kv, sglang) {
        (KvCacheDtype::Auto, _) => return Ok(()),
        (KvCacheDtype::Bf16, true) => "bf16",
        (KvCacheDtype::Bf16, false) => "bfloat16",
        (KvCacheDtype::Fp8E4m3, _) => "fp8_e4m3",
        (KvCacheDtype::Fp8E5m2, _) => "fp8_e5m2",
        (KvCacheDtype::Fp4E2m1, true) => "fp4_e2m1",
        (KvCacheDtype::Fp16, _) if s.model.dtype == WeightDtype::Fp16 => {
            c.note("kv_cache_dtype fp16 on an fp16 model: the engine's `auto`".into());
            return Ok(());
        }
        (other, true) => {
            return Err(format!(
                "SGLang has no such --kv-cache-dtype ({other:?}): argparse stops with \"argument --kv-cache-dtype: invalid \
                 choice\" (choose from 'auto', 'fp8_e5m2', 'fp8_e4m3', 'bf16', 'bfloat16', 'fp4_e2m1')"
            ));
        }
        (other, false) => {
            return Err(format!(
                "vLLM has no such --kv-cache-dtype ({other:?}): argparse stops with \"argument --kv-cache-dtype: invalid \
                 choice\" (choose from 'auto', 'bfloat16', 'fp8', 'fp8_e4m3', 'fp8_e5m2', 'fp8_inc')"
            ));
        }
    };
    c.arg("--kv-cache-dtype", name);
    Ok(())
}

/// The TP allreduce: `engine.allreduce = "nccl"` = `--disable-custom-all-reduce`; `custom` or unset =
/// the engine's default (no flag; unset is what `scenario::allreduce_default` resolves).
fn allreduce(c: &mut Cmd, s: &Scenario, sglang: bool, stated: bool) {
    match s.engine.allreduce {
        // One rank has no allreduce; unset leaves the engine to decide, as tpsim's default does.
        _ if s.engine.tp == 1 || !stated => {}
        AllreduceBackend::Nccl => c.flag("--disable-custom-all-reduce"),
        AllreduceBackend::Custom
            if s.engine.tp > 2 && !s.hardware.gpu.nvlink && s.hardware.accel.xgmi.is_none() =>
        {
            // custom_all_reduce.py (SGLang 0.5.9 and vLLM 0.11.0 alike): without full NVLink and with
            // more than two GPUs the communicator disables itself with a warning.
            c.note(format!(
                "engine.allreduce = \"custom\": stock {} disables its custom allreduce on more than two PCIe-only GPUs \
                 (custom_all_reduce.py: \"Custom allreduce is disabled because it's not supported on more than two \
                 PCIe-only GPUs\"); the scenario assumes a locally patched engine",
                if sglang { "SGLang" } else { "vLLM" }
            ));
        }
        AllreduceBackend::Custom => {}
    }
}

/// Speculative decoding: SGLang's `--speculative-*` flags, vLLM's `--speculative-config` JSON.
fn speculative(c: &mut Cmd, s: &Scenario, sglang: bool) {
    let Some(sp) = &s.speculative else { return };
    let mtp = matches!(sp.algorithm.as_str(), "nextn" | "mtp");
    // vLLM's n-gram proposer (`algorithm = "ngram"`, vLLM only) has no draft model.
    let ngram = sp.algorithm == "ngram";
    let draft = (!mtp && !ngram).then(|| hf_id(&sp.draft_name).unwrap_or_else(|| UNKNOWN_MODEL_PATH.into()));
    if draft.as_deref() == Some(UNKNOWN_MODEL_PATH) {
        c.note(format!(
            "draft `{}` has no HuggingFace id: put its path in place of {UNKNOWN_MODEL_PATH}",
            sp.draft_name
        ));
    }
    if sglang {
        // server_args.py choices EAGLE, EAGLE3, NEXTN, STANDALONE, NGRAM (NEXTN becomes EAGLE there).
        c.arg("--speculative-algorithm", if mtp { "NEXTN" } else { "EAGLE3" });
        if let Some(d) = &draft {
            c.arg("--speculative-draft-model-path", d);
        }
        c.arg("--speculative-num-steps", sp.num_steps);
        c.arg("--speculative-eagle-topk", sp.topk);
        c.arg("--speculative-num-draft-tokens", sp.num_draft_tokens);
    } else {
        // vLLM 0.11.0 config/speculative.py SpeculativeConfig: method ∈ SpeculativeMethod, model,
        // num_speculative_tokens (the chain length).
        let mut cfg = serde_json::Map::new();
        let method = if mtp {
            "mtp"
        } else if ngram {
            "ngram"
        } else {
            "eagle3"
        };
        cfg.insert("method".into(), method.into());
        if let Some(d) = draft {
            cfg.insert("model".into(), d.into());
        }
        cfg.insert("num_speculative_tokens".into(), sp.num_steps.into());
        c.arg("--speculative-config", serde_json::Value::Object(cfg));
    }
    c.note("speculative.acceptance: simulator only (the real engine measures its own acceptance)".into());
}

/// Issue #17 (flags): `engine.extra_args` as written (already checked against the release's list when
/// the scenario resolved), after the flags the keys give, each with a note on what tpsim makes of it.
fn extra_args(c: &mut Cmd, s: &Scenario) {
    use crate::scenario::extra_args::Effect;
    for a in &s.engine.extra_args {
        c.args.extend(a.written.iter().cloned());
        c.note(match a.effect {
            Effect::None(why) => format!("engine.extra_args {}: no effect on tpsim's predictions ({why})", a.flag),
            Effect::NotModelled => format!(
                "engine.extra_args {}: accepted by the engine, not modelled by tpsim (predicted as without it)",
                a.flag
            ),
        });
    }
}

/// Notes for the keys the file sets that no engine flag mirrors.
fn simulator_only(c: &mut Cmd, raw: &ScenarioFile) {
    if raw.seed.is_some() {
        c.note("seed: simulator only".into());
    }
    c.note("[hardware]: the box the command runs on (simulator only: no flag describes it)".into());
    if raw.model.as_ref().is_some_and(|m| m.routing_skew.is_some()) {
        c.note("model.routing_skew: simulator only (the real router decides)".into());
    }
    if let Some(e) = &raw.engine {
        if e.costs.is_some() {
            c.note("[engine.costs]: simulator only (tpsim's cost and memory parameters)".into());
        }
        // Issue #17 point 3: the collective options with no engine flag.
        if e.nccl_version.is_some() {
            c.note(
                "engine.nccl_version: the NCCL the installed torch wheel pins (no flag selects it)".into(),
            );
        }
        if e.custom_allreduce_max_size.is_some() {
            c.note(
                "engine.custom_allreduce_max_size: a constant of the engine's custom allreduce (8 MiB); simulator only"
                    .into(),
            );
        }
        if e.nccl_tuner.is_some() {
            c.note(
                "[engine.nccl_tuner]: build NCCL's example tuner (ext-tuner/example) and set NCCL_TUNER_PLUGIN to it \
                 and NCCL_TUNER_CONFIG_FILE to a CSV of these rows"
                    .into(),
            );
        }
        if e.observed.is_some() {
            c.note("[engine.observed]: simulator only (figures read off a start-up log)".into());
        }
        if e.max_total_tokens.is_some() && e.page_size.is_none() && e.name.as_deref() == Some("vllm") {
            c.note(
                "engine.max_total_tokens under vLLM: blocks = tokens / 16 (the default block size)".into(),
            );
        }
    }
    if raw.workload.is_some() {
        c.note("[workload]: the benchmark's input, not the server's (tpsim-calibrate run-engine passes it to the benchmark)".into());
    }
    // Issue #18 (load): the objectives are the benchmark's (`vllm bench serve --goodput`), not the server's.
    if raw.slo.is_some() {
        c.note("[slo]: simulator only (the benchmark's --goodput objectives; tpsim capacity)".into());
    }
}
