//! Issue #17 (flags): `engine.extra_args`, the flags of the user's launch command that no scenario key
//! states, so that a scenario can say what the command says.
//!
//! Each flag is read as the engine's argument parser reads it, against the argument list of the
//! release simulated (`crate::engine_args_versions`, `tests/data/engine-args/`):
//! - `--name=value` or `--name value…` (the values run to the next flag; a negative number is a
//!   value); vLLM's `FlexibleArgumentParser` (`vllm/utils/argparse_utils.py`, 0.19.0) also takes
//!   `_` for `-` in names, and its short aliases (`-tp`, `-pp`, `-dp`, `-q`, …; `engine/arg_utils.py`
//!   0.19.0) are listed in [`VLLM_SHORT`];
//! - a unique prefix of a flag stands for it (argparse's `allow_abbrev`, on in both engines'
//!   parsers); an ambiguous one is refused with argparse's "ambiguous option" text;
//! - a flag the release does not define is refused with argparse's "unrecognized arguments" text; a
//!   value of the wrong kind or outside the choices with argparse's "invalid … value" texts.
//!
//! Then each accepted flag is one of:
//! - stated by a scenario key ([`KEYED`]): refused, naming the key, so that the prediction reads it;
//! - of no effect on what tpsim predicts ([`NO_EFFECT`], each with why): accepted, noted in
//!   `tpsim engine-args`;
//! - anything else the engine defines: accepted with a warning that tpsim does not model it (the
//!   prediction is the engine's without the flag).

use super::{EngineKind, Resolver, ScenarioError, arg_types};
use crate::engine_args_versions::{FlagList, FlagSpec, list_for};
use std::collections::BTreeMap;

/// What an accepted flag does to the simulation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// No effect on any figure tpsim predicts, and why.
    None(&'static str),
    /// The engine reads it, tpsim does not model it.
    NotModelled,
}

/// One accepted flag of `engine.extra_args`.
#[derive(Debug, Clone, PartialEq)]
pub struct ExtraArg {
    /// The flag as the release's list names it (first name of its row).
    pub flag: String,
    /// The tokens as written (the flag and its values), printed back by `tpsim engine-args`.
    pub written: Vec<String>,
    pub effect: Effect,
}

/// vLLM's single-dash aliases (vLLM 0.19.0 `engine/arg_utils.py` `add_argument` calls), which the
/// extracted lists leave out.
pub const VLLM_SHORT: &[(&str, &str)] = &[
    ("-q", "--quantization"),
    ("-pp", "--pipeline-parallel-size"),
    ("-n", "--nnodes"),
    ("-r", "--node-rank"),
    ("-tp", "--tensor-parallel-size"),
    ("-dcp", "--decode-context-parallel-size"),
    ("-dp", "--data-parallel-size"),
    ("-ep", "--enable-expert-parallel"),
    ("-sc", "--speculative-config"),
    ("-cc", "--compilation-config"),
    ("-ac", "--attention-config"),
];

/// Flags a scenario key states (what `tpsim engine-args` prints for it): (flag, key). SGLang names
/// from `server_args.py` 0.5.8, vLLM's from `engine/arg_utils.py` 0.11.0–0.19.0.
pub const KEYED: &[(&str, &str)] = &[
    // Both engines.
    ("--trust-remote-code", "engine.trust_remote_code"),
    ("--dtype", "engine.dtype"),
    ("--quantization", "engine.quantization"),
    ("--kv-cache-dtype", "model.quantization.kv_cache_dtype"),
    ("--disable-custom-all-reduce", "engine.allreduce = \"nccl\""),
    ("--attention-backend", "engine.attention_backend"),
    // SGLang.
    ("--model-path", "model.preset / model.config"),
    ("--tensor-parallel-size", "engine.tp"),
    ("--tp-size", "engine.tp"),
    ("--mem-fraction-static", "engine.mem_fraction_static"),
    ("--context-length", "engine.context_length"),
    ("--max-running-requests", "engine.max_running_requests"),
    ("--page-size", "engine.page_size"),
    ("--max-total-tokens", "engine.max_total_tokens"),
    ("--disable-cuda-graph", "engine.cuda_graph = false"),
    ("--disable-overlap-schedule", "engine.disable_overlap_schedule"),
    (
        "--enable-piecewise-cuda-graph",
        "engine.enable_piecewise_cuda_graph",
    ),
    (
        "--disable-piecewise-cuda-graph",
        "engine.enable_piecewise_cuda_graph = false",
    ),
    (
        "--disable-prefill-cuda-graph",
        "engine.enable_piecewise_cuda_graph = false",
    ),
    ("--cuda-graph-max-bs", "engine.cuda_graph_max_bs"),
    ("--cuda-graph-bs", "engine.cuda_graph_bs"),
    ("--chunked-prefill-size", "engine.chunked_prefill_size"),
    ("--max-prefill-tokens", "engine.max_prefill_tokens"),
    ("--schedule-conservativeness", "engine.schedule_conservativeness"),
    ("--disable-radix-cache", "engine.disable_radix_cache"),
    ("--schedule-policy", "engine.schedule_policy"),
    ("--enable-mixed-chunk", "engine.enable_mixed_chunk"),
    ("--ep-size", "engine.ep_size"),
    ("--expert-parallel-size", "engine.ep_size"),
    ("--moe-runner-backend", "engine.moe_backend"),
    ("--moe-a2a-backend", "engine.moe_a2a_backend"),
    ("--deepep-mode", "engine.deepep_mode"),
    ("--swa-full-tokens-ratio", "engine.swa_full_tokens_ratio"),
    ("--disable-hybrid-swa-memory", "engine.disable_hybrid_swa_memory"),
    ("--mamba-ssm-dtype", "engine.mamba_ssm_cache_dtype"),
    ("--mamba-scheduler-strategy", "engine.mamba_scheduler_strategy"),
    // cmdsurvey63: SGLang 0.5.14's name for it.
    ("--mamba-radix-cache-strategy", "engine.mamba_scheduler_strategy"),
    ("--enable-dp-attention", "engine.enable_dp_attention"),
    ("--dp-size", "engine.dp_size"),
    ("--pp-size", "engine.pp_size"),
    ("--speculative-algorithm", "[speculative] algorithm"),
    ("--speculative-draft-model-path", "[speculative] draft"),
    ("--speculative-num-steps", "[speculative] num_steps"),
    ("--speculative-eagle-topk", "[speculative] topk"),
    ("--speculative-num-draft-tokens", "[speculative] num_draft_tokens"),
    ("--nnodes", "[hardware.cluster]"),
    ("--node-rank", "[hardware.cluster]"),
    ("--dist-init-addr", "[hardware.cluster]"),
    // vLLM.
    ("--model", "model.preset / model.config (the model served)"),
    ("--gpu-memory-utilization", "engine.gpu_memory_utilization"),
    ("--max-model-len", "engine.max_model_len"),
    (
        "--max-num-seqs",
        "engine.max_num_seqs (or engine.max_running_requests)",
    ),
    ("--max-num-batched-tokens", "engine.max_num_batched_tokens"),
    ("--block-size", "engine.page_size"),
    ("--num-gpu-blocks-override", "engine.max_total_tokens"),
    ("--enforce-eager", "engine.cuda_graph = false"),
    ("--cuda-graph-sizes", "engine.cuda_graph_sizes"),
    ("--cudagraph-capture-sizes", "engine.cudagraph_capture_sizes"),
    (
        "--max-cudagraph-capture-size",
        "engine.max_cudagraph_capture_size",
    ),
    ("--async-scheduling", "engine.async_scheduling"),
    ("--num-scheduler-steps", "engine.num_scheduler_steps"),
    ("--swap-space", "engine.swap_space"),
    ("--enable-chunked-prefill", "engine.enable_chunked_prefill"),
    (
        "--long-prefill-token-threshold",
        "engine.long_prefill_token_threshold",
    ),
    ("--api-server-count", "engine.api_server_count"),
    ("--enable-prefix-caching", "engine.enable_prefix_caching"),
    ("--enable-expert-parallel", "engine.enable_expert_parallel"),
    ("--speculative-config", "[speculative]"),
    (
        "--disable-hybrid-kv-cache-manager",
        "engine.disable_hybrid_kv_cache_manager",
    ),
    ("--kv-cache-memory-bytes", "engine.kv_cache_memory_bytes"),
    ("--mamba-cache-dtype", "engine.mamba_cache_dtype"),
    ("--mamba-ssm-cache-dtype", "engine.mamba_ssm_cache_dtype"),
    ("--data-parallel-size", "engine.dp_size"),
    ("--pipeline-parallel-size", "engine.pp_size"),
    ("--decode-context-parallel-size", "engine.dcp_size"),
    (
        "--distributed-executor-backend",
        "engine.distributed_executor_backend",
    ),
];

const SERVER: &str = "where and how the HTTP server listens: no GPU step or memory depends on it";
const API_TEXT: &str = "how the API server formats requests and parses output text (chat template, tool \
                        calls, reasoning); tpsim's workloads are token counts";
const LOGS: &str = "logging and metrics: no GPU step or memory depends on it";
const LOAD: &str = "how the weights are read at start-up; tpsim predicts memory and steps, not load time";

/// Flags with no effect on what tpsim predicts, and why (each reason read off the flag's use in the
/// engine's source named). A flag here that the release does not define is refused all the same.
pub const NO_EFFECT: &[(&str, &str)] = &[
    ("--host", SERVER),
    ("--port", SERVER),
    ("--uds", SERVER),
    ("--root-path", SERVER),
    ("--fastapi-root-path", SERVER),
    ("--api-key", SERVER),
    ("--admin-api-key", SERVER),
    ("--ssl-keyfile", SERVER),
    ("--ssl-certfile", SERVER),
    ("--ssl-ca-certs", SERVER),
    ("--allowed-origins", SERVER),
    ("--allowed-methods", SERVER),
    ("--allowed-headers", SERVER),
    ("--allow-credentials", SERVER),
    ("--disable-fastapi-docs", SERVER),
    ("--enable-request-id-headers", SERVER),
    ("--served-model-name", "the model's name in the API responses"),
    ("--chat-template", API_TEXT),
    ("--chat-template-content-format", API_TEXT),
    ("--response-role", API_TEXT),
    ("--tool-call-parser", API_TEXT),
    ("--tool-parser-plugin", API_TEXT),
    ("--enable-auto-tool-choice", API_TEXT),
    ("--reasoning-parser", API_TEXT),
    ("--disable-log-requests", LOGS),
    ("--enable-log-requests", LOGS),
    ("--disable-log-stats", LOGS),
    ("--max-log-len", LOGS),
    ("--log-level", LOGS),
    ("--log-level-http", LOGS),
    ("--uvicorn-log-level", LOGS),
    ("--disable-uvicorn-access-log", LOGS),
    ("--enable-log-outputs", LOGS),
    ("--enable-metrics", LOGS),
    ("--enable-cache-report", LOGS),
    ("--enable-prompt-tokens-details", LOGS),
    ("--enable-force-include-usage", LOGS),
    (
        "--tokenizer-mode",
        "which tokenizer implementation turns request text into token ids (vLLM 0.13.0 `tokenizers/`, \
         SGLang 0.5.9 `hf_transformers_utils.get_tokenizer`); tpsim's workloads are token counts",
    ),
    (
        "--config-format",
        "which file the model's shape is read from (vLLM 0.13.0 `transformers_utils/config.py` \
         `get_config`: config.json or Mistral's params.json); tpsim reads it from the scenario's [model]",
    ),
    ("--download-dir", LOAD),
    ("--revision", LOAD),
    ("--model-loader-extra-config", LOAD),
    (
        "--seed",
        "the sampling seed: tpsim draws with its own seeded streams",
    ),
    (
        "--random-seed",
        "the sampling seed: tpsim draws with its own seeded streams",
    ),
    (
        "--mm-processor-cache-type",
        "the host-side cache of processed multimodal inputs; tpsim's workloads are text",
    ),
    (
        "--mm-processor-cache-gb",
        "the host-side cache of processed multimodal inputs; tpsim's workloads are text",
    ),
];

/// SGLang-only reasons (the flag means something else, or is modelled, under vLLM).
const SGLANG_NO_EFFECT: &[(&str, &str)] = &[
    (
        "--sleep-on-idle",
        "only while the scheduler has no work: it waits on its request sockets (SGLang 0.5.8 `scheduler.py` \
         `IdleSleeper`, a zmq poll of up to 1 s) and wakes when a request arrives",
    ),
    (
        "--stream-interval",
        "how often the scheduler sends a streamed request's new tokens to the detokenizer (SGLang 0.5.8 \
         `scheduler_output_processor_mixin.py` `stream_output_generation`: every `stream_interval` output \
         tokens); the GPU steps are the same and tpsim models no SGLang front end",
    ),
];

/// `--load-format` values that only change how the same weights are read (vLLM 0.19.0
/// `config/load.py` / SGLang 0.5.8 `LoadFormat`); others (gguf, bitsandbytes, …) change the weights.
const PLAIN_LOAD_FORMATS: &[&str] = &[
    "auto",
    "pt",
    "safetensors",
    "npcache",
    "dummy",
    "fastsafetensors",
    "runai_streamer",
];

/// cmdsurvey64 (sglang issue 34260, Kimi-K3 with `--dcp-size 8`): flags of `KEYED` whose key is
/// vLLM's although an SGLang release lists the same name. SGLang 0.5.15 – 0.5.23 define their own
/// `--dcp-size|--decode-context-parallel-size` (`server_args.py` field `dcp_size`, "The decode context
/// parallelism size."), which tpsim does not model: in an SGLang scenario the flag is an extra
/// argument, accepted by the engine and warned about, not vLLM's `engine.dcp_size` (which
/// `scenario::dcp` refuses for SGLang as "not an SGLang option").
pub const VLLM_ONLY: &[&str] = &["--decode-context-parallel-size"];

/// Splits `args` into flags, checks each against `list` (engine `kind`) and classifies it. `Err`
/// holds the message (the caller names the key).
pub fn check(kind: EngineKind, list: &FlagList, args: &[String]) -> Result<Vec<ExtraArg>, String> {
    let (_, flags) = super::argv::split(kind, list, args, 0, super::argv::Words::UpToNextFlag)?;
    let mut out = Vec::new();
    for f in flags {
        let positive = f.name.strip_prefix("--no-").map(|n| format!("--{n}"));
        // graphmode: `compilation_config.cudagraph_mode` is stated by `engine.cudagraph_mode`.
        if f.name == "--compilation-config"
            && (f.sub.as_deref() == Some("cudagraph_mode")
                || f.values.iter().any(|v| v.contains("cudagraph_mode")))
        {
            return Err(format!(
                "`{}` sets compilation_config.cudagraph_mode, stated by the scenario key engine.cudagraph_mode: \
                 set that key instead (tpsim reads it there and `tpsim engine-args` prints the flag); the config's \
                 other fields may stay in extra_args",
                f.given
            ));
        }
        let keyed = KEYED
            .iter()
            .filter(|(k, _)| !(kind == EngineKind::Sglang && VLLM_ONLY.contains(k)))
            .find(|(k, _)| *k == f.name || Some(*k) == positive.as_deref());
        if let Some((_, key)) = keyed {
            return Err(format!(
                "`{}` is stated by the scenario key {key}: set that key instead (tpsim reads it there and \
                 `tpsim engine-args` prints the flag)",
                f.given
            ));
        }
        let effect = effect_of(kind, &f.name, &f.values);
        out.push(ExtraArg {
            flag: f.name,
            written: f.written,
            effect,
        });
    }
    Ok(out)
}

/// A flag token: `--name` or a single-dash alias (`-tp`); a negative number is a value.
pub(crate) fn is_flag(t: &str) -> bool {
    t.starts_with('-') && t.parse::<f64>().is_err() && t.len() > 1
}

/// The list's name for `name`: exact, vLLM's `_` spelling or short alias, else a unique prefix.
/// `Err(None)`: unknown; `Err(Some(list))`: an ambiguous prefix and what it could match.
pub(crate) fn canonical(
    kind: EngineKind,
    name: &str,
    flags: &BTreeMap<String, FlagSpec>,
) -> Result<String, Option<String>> {
    let mut n = name.to_string();
    if kind == EngineKind::Vllm {
        if let Some((_, long)) = VLLM_SHORT.iter().find(|(s, _)| *s == name) {
            n = (*long).to_string();
        } else if let Some(rest) = name.strip_prefix("--") {
            n = format!("--{}", rest.replace('_', "-"));
        }
    }
    if flags.contains_key(&n) {
        return Ok(n);
    }
    // vLLM's boolean engine arguments are `argparse.BooleanOptionalAction` (`get_kwargs`, 0.19.0
    // `engine/arg_utils.py`): `--no-NAME` too (the lists name the positive form only).
    if kind == EngineKind::Vllm
        && let Some(rest) = n.strip_prefix("--no-")
        && flags.get(&format!("--{rest}")).is_some_and(|f| f.kind == "flag")
    {
        return Ok(n);
    }
    if !n.starts_with("--") {
        return Err(None);
    }
    let matches: Vec<&String> = flags.keys().filter(|f| f.starts_with(&n)).collect();
    match matches.as_slice() {
        [] => Err(None),
        [one] => Ok((*one).clone()),
        many => Err(Some(
            many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", "),
        )),
    }
}

/// The spec of `flag` (a `--no-NAME` form: NAME's).
pub(crate) fn spec_of<'a>(flag: &str, flags: &'a BTreeMap<String, FlagSpec>) -> &'a FlagSpec {
    flags.get(flag).unwrap_or_else(|| {
        let positive = format!("--{}", flag.trim_start_matches("--no-"));
        &flags[&positive]
    })
}

/// argparse's checks of the values: a switch takes none, the others at least one, numbers parse,
/// JSON parses (`arg_types`), choices hold. `shown`: the flag as argparse names it in its error, its
/// option strings joined by `/` (`--speculative-config/-sc`). The text after "error: ".
pub(crate) fn check_values(
    flag: &str,
    shown: &str,
    spec: &FlagSpec,
    values: &[String],
) -> Result<(), String> {
    match spec.kind.as_str() {
        "flag" => {
            if let Some(v) = values.first() {
                return Err(format!("unrecognized arguments: {v}"));
            }
            return Ok(());
        }
        "deprecated" => return Ok(()),
        _ => {}
    }
    if values.is_empty() {
        return Err(format!("argument {shown}: expected one argument"));
    }
    for v in values {
        if arg_types::is_json(&spec.kind)
            && let Some(e) = arg_types::json_error(&spec.kind, v)
        {
            return Err(format!("argument {shown}: {e}"));
        }
        if spec.kind == "int-si"
            && let Err(e) = arg_types::sglang_human_int(v)
        {
            return Err(format!("argument {shown}: {e}"));
        }
        let ok = match spec.kind.as_str() {
            // vLLM's human-readable ints (`32k`) are max_model_len, max_num_batched_tokens and
            // kv_cache_memory_bytes (0.11.0 `get_kwargs`), all stated by keys; a whole command
            // (`engine.command`, `tpsim import-command`) writes them so, and `--max-model-len auto`
            // (`human_readable_int_or_auto`; before vLLM 0.14 `scenario::max_model_len` refuses it).
            "int" if HUMAN_READABLE.contains(&flag) => {
                human_readable_int(v).is_some() || (flag == "--max-model-len" && v == "auto")
            }
            "int" => v.parse::<i64>().is_ok(),
            "float" => v.parse::<f64>().is_ok(),
            _ => true,
        };
        if !ok {
            return Err(format!("argument {shown}: invalid {} value: '{v}'", spec.kind));
        }
        if let Some(choices) = &spec.choices
            && !choices.iter().any(|c| c == v)
        {
            let list = choices
                .iter()
                .map(|c| format!("'{c}'"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(format!(
                "argument {shown}: invalid choice: '{v}' (choose from {list})"
            ));
        }
    }
    Ok(())
}

/// vLLM's flags parsed by `human_readable_int` (0.11.0 / 0.19.0 `engine/arg_utils.py` `get_kwargs`).
const HUMAN_READABLE: [&str; 3] = [
    "--max-model-len",
    "--max-num-batched-tokens",
    "--kv-cache-memory-bytes",
];

/// vLLM's `human_readable_int` (0.19.0 `engine/arg_utils.py`): `25.6k` = 25,600 (k, m, g, t: powers
/// of 1000), `1K` = 1,024 (K, M, G, T: powers of 1024, whole numbers only), else a plain integer.
pub fn human_readable_int(v: &str) -> Option<i64> {
    let v = v.trim();
    if let Ok(n) = v.parse::<i64>() {
        return Some(n);
    }
    let suffix = v.chars().last()?;
    let number = &v[..v.len() - suffix.len_utf8()];
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit() || c == '.') {
        return None;
    }
    let decimal = match suffix {
        'k' => Some(1e3),
        'm' => Some(1e6),
        'g' => Some(1e9),
        't' => Some(1e12),
        _ => None,
    };
    if let Some(mult) = decimal {
        return Some((number.parse::<f64>().ok()? * mult) as i64);
    }
    let binary: i64 = match suffix {
        'K' => 1 << 10,
        'M' => 1 << 20,
        'G' => 1 << 30,
        'T' => 1 << 40,
        _ => return None,
    };
    number.parse::<i64>().ok()?.checked_mul(binary)
}

fn effect_of(kind: EngineKind, flag: &str, values: &[String]) -> Effect {
    if flag == "--load-format" {
        return if values.iter().all(|v| PLAIN_LOAD_FORMATS.contains(&v.as_str())) {
            Effect::None(LOAD)
        } else {
            Effect::NotModelled
        };
    }
    let positive = flag.strip_prefix("--no-").map(|f| format!("--{f}"));
    let table: &[(&str, &str)] = if kind == EngineKind::Sglang {
        SGLANG_NO_EFFECT
    } else {
        &[]
    };
    NO_EFFECT
        .iter()
        .chain(table)
        .find(|(f, _)| *f == flag || Some(*f) == positive.as_deref())
        .map_or(Effect::NotModelled, |(_, why)| Effect::None(why))
}

impl Resolver<'_> {
    /// `engine.extra_args` for `kind` at `version`: the accepted flags; pushes a warning for each one
    /// tpsim does not model.
    pub(super) fn extra_args(
        &self,
        kind: EngineKind,
        version: &str,
        args: Option<&[String]>,
        warnings: &mut Vec<String>,
    ) -> Result<Vec<ExtraArg>, ScenarioError> {
        let Some(args) = args.filter(|a| !a.is_empty()) else {
            return Ok(Vec::new());
        };
        let list = list_for(kind, version).ok_or_else(|| {
            self.invalid(
                "engine.extra_args",
                format!(
                    "no argument list for this engine at version {version} (tests/data/engine-args/ holds the \
                     releases tpsim checks flags against)"
                ),
            )
        })?;
        let out = check(kind, list, args).map_err(|m| self.invalid("engine.extra_args", m))?;
        // SGLang's KTransformers flags (`server_args.py` from 0.5.6.post1, help "[ktransformers
        // parameter]"; `--kt-weight-path` is "the quantized expert weights for amx kernel") put the
        // routed experts on the host's CPU: a different deployment, not one flag's cost.
        if let Some(a) = out
            .iter()
            .find(|a| kind == EngineKind::Sglang && a.flag.starts_with("--kt-"))
        {
            return Err(self.invalid(
                "engine.extra_args",
                format!(
                    "`{}`: SGLang's KTransformers flags run the routed experts on the host CPU (AMX / AVX \
                     kernels), which tpsim does not model; drop the `--kt-*` flags to predict the GPU-only engine",
                    a.written.join(" ")
                ),
            ));
        }
        for a in out.iter().filter(|a| a.effect == Effect::NotModelled) {
            warnings.push(format!(
                "engine.extra_args: `{}` is accepted by the engine but not modelled by tpsim: the prediction is the \
                 engine's without it",
                a.written.join(" ")
            ));
        }
        Ok(out)
    }
}
