//! Issue #17 (cmdparse): the flags of a launch command (`crate::import_command`) read into scenario
//! keys — the table of `crate::engine_args` read backwards — and the rest into `engine.extra_args`.
//!
//! Each flag is read as the engine's argparse reads it, against the argument list of the release
//! (`engine.version` from `--engine-version` or the image tag, else tpsim's current release):
//! vLLM's `_` spelling and short aliases, unique prefixes, `--name=value`, and argparse's refusal
//! texts for an unknown flag or a bad value (`scenario::extra_args`, which checks the same way).
//! A flag one of [`KEYS`] names sets that key; [`DROPPED`] flags describe the cluster, which comes
//! from the box given; every other flag goes to `engine.extra_args` as written.

use crate::engine_args_versions::{FlagList, list_for};
use crate::scenario::EngineKind;
use crate::scenario::argv::{self, Words};
use crate::scenario::extra_args::human_readable_int;
use toml::Value;

/// How a flag's value becomes a key's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A switch: the key is `true` (`--no-NAME`: `false`).
    True,
    /// A switch meaning `false` (`--disable-cuda-graph` → `cuda_graph = false`).
    False,
    Int,
    Float,
    Str,
    /// One or more integers (`nargs="+"`).
    IntList,
    /// vLLM's `human_readable_int` (`32k`), or `auto` / `-1` for `--max-model-len`.
    HumanInt,
    /// Handled by its own rule (model, tp, quantization, KV dtype, speculative, allreduce, blocks).
    Special,
}

/// (flag, scenario key under `[engine]`, how): the reverse of `engine_args`'s table; the flag
/// names are those of `tests/data/engine-args/` (any alias of a flag's row matches). SGLang first,
/// vLLM's after; names both engines share once.
pub const KEYS: &[(&str, &str, Kind)] = &[
    ("--model-path", "", Kind::Special),
    ("--model", "", Kind::Special),
    ("--tp-size", "tp", Kind::Int),
    ("--tensor-parallel-size", "tp", Kind::Int),
    ("--trust-remote-code", "trust_remote_code", Kind::Special),
    ("--dtype", "dtype", Kind::Str),
    ("--quantization", "quantization", Kind::Special),
    ("--kv-cache-dtype", "", Kind::Special),
    ("--disable-custom-all-reduce", "allreduce", Kind::Special),
    ("--attention-backend", "attention_backend", Kind::Str),
    ("--mem-fraction-static", "mem_fraction_static", Kind::Float),
    ("--context-length", "context_length", Kind::Int),
    ("--max-running-requests", "max_running_requests", Kind::Int),
    ("--page-size", "page_size", Kind::Int),
    ("--max-total-tokens", "max_total_tokens", Kind::Int),
    ("--disable-cuda-graph", "cuda_graph", Kind::False),
    (
        "--disable-overlap-schedule",
        "disable_overlap_schedule",
        Kind::True,
    ),
    (
        "--enable-piecewise-cuda-graph",
        "enable_piecewise_cuda_graph",
        Kind::True,
    ),
    // sglres53: prefill graphs off (SGLang 0.5.10 – 0.5.19 `--disable-piecewise-cuda-graph`, 0.5.14 on
    // `--disable-prefill-cuda-graph`: `server_args.py` / `arg_groups/fields/exec_.py`).
    (
        "--disable-piecewise-cuda-graph",
        "enable_piecewise_cuda_graph",
        Kind::False,
    ),
    (
        "--disable-prefill-cuda-graph",
        "enable_piecewise_cuda_graph",
        Kind::False,
    ),
    ("--cuda-graph-max-bs", "cuda_graph_max_bs", Kind::Int),
    ("--cuda-graph-max-bs-decode", "cuda_graph_max_bs", Kind::Int),
    ("--cuda-graph-bs", "cuda_graph_bs", Kind::IntList),
    ("--cuda-graph-bs-decode", "cuda_graph_bs", Kind::IntList),
    ("--chunked-prefill-size", "chunked_prefill_size", Kind::Int),
    ("--max-prefill-tokens", "max_prefill_tokens", Kind::Int),
    (
        "--schedule-conservativeness",
        "schedule_conservativeness",
        Kind::Float,
    ),
    ("--disable-radix-cache", "disable_radix_cache", Kind::True),
    ("--schedule-policy", "schedule_policy", Kind::Str),
    ("--enable-mixed-chunk", "enable_mixed_chunk", Kind::True),
    ("--ep-size", "ep_size", Kind::Int),
    ("--moe-runner-backend", "moe_backend", Kind::Str),
    ("--moe-a2a-backend", "moe_a2a_backend", Kind::Str),
    ("--deepep-mode", "deepep_mode", Kind::Str),
    ("--swa-full-tokens-ratio", "swa_full_tokens_ratio", Kind::Float),
    (
        "--disable-hybrid-swa-memory",
        "disable_hybrid_swa_memory",
        Kind::True,
    ),
    ("--mamba-ssm-dtype", "mamba_ssm_cache_dtype", Kind::Str),
    (
        "--mamba-scheduler-strategy",
        "mamba_scheduler_strategy",
        Kind::Str,
    ),
    // cmdsurvey63: its name from SGLang 0.5.14 (the old one a deprecated alias to 0.5.19).
    (
        "--mamba-radix-cache-strategy",
        "mamba_scheduler_strategy",
        Kind::Str,
    ),
    ("--enable-dp-attention", "enable_dp_attention", Kind::True),
    ("--dp-size", "dp_size", Kind::Int),
    ("--data-parallel-size", "dp_size", Kind::Int),
    ("--pp-size", "pp_size", Kind::Int),
    ("--pipeline-parallel-size", "pp_size", Kind::Int),
    ("--speculative-algorithm", "", Kind::Special),
    ("--speculative-draft-model-path", "", Kind::Special),
    ("--speculative-num-steps", "", Kind::Special),
    ("--speculative-eagle-topk", "", Kind::Special),
    ("--speculative-num-draft-tokens", "", Kind::Special),
    // vLLM.
    ("--gpu-memory-utilization", "gpu_memory_utilization", Kind::Float),
    ("--max-model-len", "max_model_len", Kind::HumanInt),
    ("--max-num-seqs", "max_num_seqs", Kind::Int),
    (
        "--max-num-batched-tokens",
        "max_num_batched_tokens",
        Kind::HumanInt,
    ),
    ("--block-size", "page_size", Kind::Int),
    ("--num-gpu-blocks-override", "", Kind::Special),
    ("--enforce-eager", "cuda_graph", Kind::False),
    ("--cuda-graph-sizes", "cuda_graph_sizes", Kind::IntList),
    (
        "--cudagraph-capture-sizes",
        "cudagraph_capture_sizes",
        Kind::IntList,
    ),
    (
        "--max-cudagraph-capture-size",
        "max_cudagraph_capture_size",
        Kind::Int,
    ),
    ("--async-scheduling", "async_scheduling", Kind::True),
    ("--num-scheduler-steps", "num_scheduler_steps", Kind::Int), // vllmv0: V0 multi-step
    ("--swap-space", "swap_space", Kind::Float),                 // vllmv0mem: V0's CPU blocks
    ("--enable-chunked-prefill", "enable_chunked_prefill", Kind::True),
    (
        "--long-prefill-token-threshold",
        "long_prefill_token_threshold",
        Kind::Int,
    ),
    ("--api-server-count", "api_server_count", Kind::Int),
    ("--enable-prefix-caching", "enable_prefix_caching", Kind::True),
    ("--enable-expert-parallel", "enable_expert_parallel", Kind::True),
    ("--speculative-config", "", Kind::Special),
    (
        "--disable-hybrid-kv-cache-manager",
        "disable_hybrid_kv_cache_manager",
        Kind::True,
    ),
    ("--kv-cache-memory-bytes", "kv_cache_memory_bytes", Kind::HumanInt),
    ("--mamba-cache-dtype", "mamba_cache_dtype", Kind::Str),
    ("--mamba-ssm-cache-dtype", "mamba_ssm_cache_dtype", Kind::Str),
    ("--decode-context-parallel-size", "dcp_size", Kind::Int),
    // flags56: SGLang 0.4.0.post1 – 0.5.4's `--enable-ep-moe` (ep_size = tp_size by release,
    // `engine_args_versions::enable_ep_moe`).
    ("--enable-ep-moe", "ep_size", Kind::Special),
];

/// cmdsurvey64: [`KEYS`] flags that set a vLLM-only key although an SGLang release lists the same
/// name (`scenario::extra_args::VLLM_ONLY`: SGLang's own `--dcp-size`): for SGLang they stay in
/// `engine.extra_args`.
pub use crate::scenario::extra_args::VLLM_ONLY;

/// Flags that place the ranks on nodes (`engine_args_nodes`): the box and its cluster come from
/// `--hardware` / `--from`, so these are left out with a note.
pub const DROPPED: &[&str] = &[
    "--nnodes",
    "--node-rank",
    "--dist-init-addr",
    "--distributed-executor-backend",
];

/// One flag of the command: its name as the release's list has it, the row's other names, its
/// values and the words as written.
#[derive(Debug, Clone)]
pub struct Flag {
    pub name: String,
    pub row: Vec<String>,
    pub values: Vec<String>,
    pub written: Vec<String>,
    /// The field of a dotted JSON argument (`cudagraph_mode` of `-cc.cudagraph_mode=…`).
    pub sub: Option<String>,
}

/// Splits `args` into the positional model (vLLM) and flags, each checked as argparse checks it
/// against `list` (`scenario::argv::split`, the loop `engine.extra_args` goes through too). `Err`:
/// the engine's refusal text.
pub fn parse(
    kind: EngineKind,
    list: &FlagList,
    args: &[String],
) -> Result<(Option<String>, Vec<Flag>), String> {
    // vLLM's one positional, `model_tag` (`vllm serve`); SGLang has none.
    let positionals = usize::from(kind == EngineKind::Vllm);
    let (positional, flags) = argv::split(kind, list, args, positionals, Words::Argparse)?;
    let out = flags
        .into_iter()
        .map(|f| {
            let positive = f.name.strip_prefix("--no-").map(|n| format!("--{n}"));
            let row = list.row(positive.as_deref().unwrap_or(&f.name));
            Flag {
                name: f.name,
                row,
                values: f.values,
                written: f.written,
                sub: f.sub,
            }
        })
        .collect();
    Ok((positional.into_iter().next(), out))
}

/// The entry of [`KEYS`] for a flag, by any name of its row; `negated`: written `--no-NAME`.
pub fn key_of(f: &Flag) -> Option<(&'static str, &'static str, Kind, bool)> {
    let negated = f.name.starts_with("--no-") && !f.row.contains(&f.name);
    KEYS.iter()
        .find(|(flag, _, _)| f.row.iter().any(|r| r == flag))
        .map(|&(flag, key, kind)| (flag, key, kind, negated))
}

/// The value of a keyed flag as TOML. `Err`: why the value cannot be a key's.
pub fn value(f: &Flag, kind: Kind, negated: bool) -> Result<Value, String> {
    let one = || f.values.first().cloned().unwrap_or_default();
    let int = |v: &str| {
        v.parse::<i64>()
            .map_err(|_| format!("{}: expected an integer, not '{v}'", f.name))
    };
    Ok(match kind {
        Kind::True => Value::Boolean(!negated),
        Kind::False => Value::Boolean(negated),
        Kind::Int => Value::Integer(int(&one())?),
        Kind::Float => Value::Float(
            one()
                .parse::<f64>()
                .ok()
                .filter(|x| x.is_finite())
                .ok_or_else(|| format!("{}: expected a number, not '{}'", f.name, one()))?,
        ),
        Kind::Str | Kind::Special => Value::String(one()),
        Kind::IntList => Value::Array(
            f.values
                .iter()
                .map(|v| int(v).map(Value::Integer))
                .collect::<Result<_, _>>()?,
        ),
        Kind::HumanInt => {
            let v = one();
            let max_model_len = f.row.iter().any(|r| r == "--max-model-len");
            match (v.parse::<i64>(), human_readable_int(&v)) {
                (Ok(n), _) => Value::Integer(n),
                // `32k` and `auto`: the scenario reads the same spellings (`scenario::max_model_len`).
                (Err(_), h) if max_model_len && (v.eq_ignore_ascii_case("auto") || h.is_some()) => {
                    Value::String(v)
                }
                // cmdsurvey62 (vllm issue 40585, `--max-num-batched-tokens=8K`): vLLM parses
                // `--max-num-batched-tokens` and `--kv-cache-memory-bytes` with `human_readable_int`
                // too (0.9.2 – 0.19.0 `engine/arg_utils.py` `_compute_kwargs`: `8K` = 8 × 1024, `8k` =
                // 8 × 1000); their keys take integers, so the count is written out.
                (Err(_), Some(n)) if !max_model_len => Value::Integer(n),
                _ => return Err(format!("{}: expected a token count, not '{v}'", f.name)),
            }
        }
    })
}

/// The argument list `kind` at `version` is checked against (tpsim's current release without one).
pub fn list(kind: EngineKind, version: Option<&str>) -> Result<&'static FlagList, String> {
    let v = version
        .map(str::to_string)
        .unwrap_or_else(|| crate::engine_release::release(kind, None).version);
    list_for(kind, &v).ok_or_else(|| {
        format!("no argument list at or below release {v} (tests/data/engine-args/ holds the releases tpsim reads)")
    })
}
