//! Issue #17 (cmdparse): the scenario TOML of a launch command (`crate::import_command` finds it,
//! `crate::import_command_flags` reads its flags), checked by loading it and printing its command
//! back (`crate::engine_args`), so that what the engine would refuse is refused here with its text.

use crate::import_command::{self, Launch};
use crate::import_command_flags::{self as flags, DROPPED, Kind};
use crate::presets;
use crate::scenario::extra_args::human_readable_int;
use crate::scenario::{self, EngineKind, ScenarioError, ScenarioFile};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use toml::{Table, Value};

/// Where the box comes from.
#[derive(Debug, Clone)]
pub enum HardwareFrom {
    /// A bundled hardware preset (`scenarios/hardware/<name>.toml`).
    Preset(String),
    /// An existing scenario: its `[hardware]`, and its simulator-only parts (`seed`, `[workload]`,
    /// `[slo]`, `[speculative] acceptance`), which no launch flag states.
    Scenario(PathBuf),
}

/// What the user gives beside the command.
#[derive(Debug, Clone)]
pub struct Options {
    pub hardware: HardwareFrom,
    /// `engine.version` (wins over a Docker image tag).
    pub engine_version: Option<String>,
    /// The model preset, when the command's model path names none.
    pub model_preset: Option<String>,
    /// The served model's own HuggingFace `config.json` (or a directory holding one), when no
    /// bundled preset describes it: written as `[model] config` (an absolute path).
    pub model_config: Option<PathBuf>,
    /// `[speculative] acceptance` as an inline table's body (`alpha = 0.7`), when the command
    /// speculates and the box's scenario gives none.
    pub acceptance: Option<String>,
    /// Where the scenario will be written (relative paths in it resolve from there); `None`: the
    /// box's scenario, else `imported.toml` in the current directory.
    pub output: Option<PathBuf>,
}

/// The imported scenario.
#[derive(Debug, Clone)]
pub struct Imported {
    /// The scenario file's text.
    pub text: String,
    /// What the import left out or assumed (also in the file as `#` lines).
    pub notes: Vec<String>,
    /// The scenario's own warnings when loaded (the engine's adjustments at start-up).
    pub warnings: Vec<String>,
}

/// Reads the launch command in `text` (the whole line or script).
pub fn import(text: &str, o: &Options) -> Result<Imported, String> {
    build(import_command::find(text)?, o).map_err(|e| escaped_blank(text, e))
}

/// cmdsurvey58 (zai-org/GLM-V issue 224: `--mm-encoder-tp-mode data \ ` with a blank after the `\`):
/// a backslash before a blank quotes the blank (Bash manual 3.1.2.1 "Escape Character"), so the
/// word is a blank and the newline after it ends the command; only `\` last on the line continues
/// it. argparse's "unrecognized arguments: " then names an argument that shows as nothing, so the
/// refusal says where it came from.
fn escaped_blank(text: &str, e: String) -> String {
    let line = text.lines().find(|l| {
        let t = l.trim_end();
        t.len() < l.len() && t.ends_with('\\') && !t.ends_with("\\\\")
    });
    match line {
        Some(l) if e.contains("unrecognized arguments: ") => format!(
            "{e} — the line `{}` ends in `\\` followed by a blank: the backslash quotes the blank (an argument \
             of one space) and the newline then ends the command, as in a shell; the lines after it are other \
             commands. Remove the blank after the `\\`",
            l.trim()
        ),
        _ => e,
    }
}

/// [`import`] over words already split (`tpsim import-command -- vllm serve …`).
pub fn import_words(words: Vec<String>, o: &Options) -> Result<Imported, String> {
    build(import_command::find_in(vec![words])?, o)
}

/// Environment variables `[engine.env]` accepts (`scenario::collective_options::KNOWN`, and the
/// SGLang / vLLM variables read by `pcie_ipc.rs`, `moe_a2a.rs`, `quick_reduce.rs`).
fn env_accepted(k: &str) -> bool {
    scenario::collective_options::KNOWN.split(", ").any(|n| n == k)
        || matches!(
            k,
            "SGLANG_ENABLE_PCIE_IPC_ALLREDUCE"
                | "SGLANG_PCIE_IPC_MAX_NUMEL"
                | "SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK"
                | "SGLANG_DEEPEP_BF16_DISPATCH"
                | "VLLM_ROCM_QUICK_REDUCE_QUANTIZATION"
                | "VLLM_ROCM_QUICK_REDUCE_CAST_BF16_TO_FP16"
                | "VLLM_ROCM_QUICK_REDUCE_MAX_SIZE_BYTES_MB"
                // flags56: context lengths above the model's (`scenario::long_context`).
                | "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN"
                | "VLLM_ALLOW_LONG_MAX_MODEL_LEN"
                // dsv4_64: DeepSeek-V4's shared expert at tp 1 (`scenario::dsv4`).
                | "SGLANG_SHARED_EXPERT_TP1"
        )
}

/// The keys a launch command states: `[engine]` (in the order set), `[engine.env]`, `[model]`,
/// `[speculative]`, `engine.extra_args`, and what was left out or assumed. Read by
/// `tpsim import-command` (rendered as a file) and by the scenario key `engine.command`
/// (`scenario::command`, merged into the file's table).
#[derive(Default)]
pub(crate) struct Out {
    pub(crate) engine: Vec<(String, Value)>,
    pub(crate) env: BTreeMap<String, String>,
    pub(crate) model: Table,
    pub(crate) spec: Table,
    pub(crate) extra: Vec<String>,
    pub(crate) notes: Vec<String>,
    /// The model path as the command gives it.
    pub(crate) model_path: String,
    /// The release a Docker image tag names.
    pub(crate) image_version: Option<String>,
    /// `[engine]` keys the command does not write, set to the engine's default (`tp`).
    pub(crate) defaulted: Vec<&'static str>,
}

impl Out {
    fn set(&mut self, key: &str, v: Value) {
        // argparse: the last occurrence of a flag wins.
        self.engine.retain(|(k, _)| k != key);
        self.engine.push((key.to_string(), v));
    }
}

/// Flags whose value no simulation reads: the server's address (`--host`, `--port`, kept in
/// `engine.extra_args` otherwise) and the nodes' rendezvous (`--master-addr`, `--master-port`).
const ADDRESS: &[&str] = &["--host", "--port", "--master-addr", "--master-port"];

/// cmdsurvey57 (sglang issue 6296, `--nnodes 2 --node-rank $1` in a script run once per node; vllm
/// issue 33155, `--port $port`): a node-placement flag (`DROPPED`, left out anyway) or a server
/// address flag (`ADDRESS`) whose value is a shell variable the text does not set is taken out before
/// argparse's type check, with a note; `args` otherwise as given.
fn unset_placement(args: &[String]) -> (Vec<String>, Vec<String>) {
    let mut kept = Vec::new();
    let mut notes = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        let (name, inline) = match a.split_once('=') {
            Some((n, v)) => (n, Some(v)),
            None => (a.as_str(), None),
        };
        let value = inline.or(args.get(i + 1).map(String::as_str));
        let placement = DROPPED.contains(&name);
        if (placement || ADDRESS.contains(&name)) && value.is_some_and(|v| v.starts_with('$')) {
            let written = match inline {
                Some(_) => a.clone(),
                None => format!("{a} {}", value.unwrap_or_default()),
            };
            let why = if placement {
                "the nodes come from the box given (--hardware / --from)"
            } else {
                "the server's address, which no simulation reads"
            };
            notes.push(format!(
                "{written}: {why}, left out (its value is a shell variable the text does not set)"
            ));
            i += if inline.is_some() { 1 } else { 2 };
            continue;
        }
        kept.push(a.clone());
        i += 1;
    }
    (kept, notes)
}

/// Where `[model]` comes from.
pub(crate) enum ModelFrom<'a> {
    /// The command's model path: a preset's name, its HuggingFace id or repository name, or a
    /// directory (relative to the first path) holding a config.json.
    Command(&'a Path),
    /// A preset named beside the command (`--model-preset`).
    Preset(&'a str),
    /// A config.json named beside the command (`--model-config`): a file, or a directory holding one.
    Config(&'a Path),
    /// The scenario's own `[model]` (`engine.command`): its preset, `None` for a config; no
    /// `[model]` key is written (`scenario::command` checks the path against the preset).
    Scenario(Option<&'a str>),
}

fn build(l: Launch, o: &Options) -> Result<Imported, String> {
    let model = match (&o.model_preset, &o.model_config) {
        (Some(_), Some(_)) => return Err("give --model-preset or --model-config, not both".into()),
        (Some(p), None) => ModelFrom::Preset(p),
        (None, Some(c)) => ModelFrom::Config(c),
        (None, None) => ModelFrom::Command(Path::new("")),
    };
    let out = keys(l, o.engine_version.as_deref(), &model)?;
    render_and_check(out, o)
}

/// cmdsurvey58 (sglang issue 19104, the diffusion docs' `sglang serve --model-path
/// black-forest-labs/FLUX.2-klein-4B --text-encoder-cpu-offload …`): `sglang serve` chooses its server
/// by the model before any argparse runs: a directory holding a diffusers `model_index.json` with
/// `_diffusers_version` starts SGLang's diffusion server, with its own arguments (SGLang 0.5.9
/// `sglang/cli/serve.py` `serve`, `cli/utils.py` `is_diffusers_model_path`). Said after the language
/// server's refusal when the model is no bundled preset (a preset is a language model).
fn diffusion_clause(path: &str) -> String {
    format!(
        " — unless `{path}` is a diffusion model: `sglang serve` starts SGLang's diffusion server, with its own \
         arguments, when the model's directory holds a diffusers `model_index.json` (SGLang 0.5.9 `sglang/cli/serve.py`, \
         `cli/utils.py` `is_diffusers_model_path`); tpsim models the language-model server only"
    )
}

/// The keys of launch `l`, its flags read against the argument list of `version` (else the image
/// tag's release, else tpsim's current one). `Err`: the engine's refusal, or why a flag or the model
/// cannot be read.
pub(crate) fn keys(l: Launch, version: Option<&str>, model_from: &ModelFrom) -> Result<Out, String> {
    let sglang = l.engine == EngineKind::Sglang;
    let version = version.map(str::to_string).or(l.image_version.clone());
    let list = flags::list(l.engine, version.as_deref())?;
    // cmdsurvey62 (sglang issue 29562, `sglang serve --model …`): whether `--model` names the model
    // for `sglang serve` is the release's (`import_command::sglang_serve_refusal`); checked before
    // argparse, as `get_model_path` runs first.
    if l.sglang_serve {
        let v = crate::engine_release::release(l.engine, version.as_deref()).version;
        let model_too =
            crate::engine_args_versions::release(&v).is_some_and(|r| r.as_slice() >= [0, 5, 11].as_slice());
        if crate::import_command::serve_model_path(&l.args, model_too).is_none() {
            return Err(crate::import_command::sglang_serve_refusal(model_too));
        }
    }
    let (args, unset) = unset_placement(&l.args);
    let (positional, fl) = flags::parse(l.engine, list, &args).map_err(|e| {
        let e = if l.sglang_serve {
            let e = e.replace("\"launch_server.py: error:", "\"sglang: error:");
            // Only flags the language server lacks point at the other server; a bad value of its own
            // flag (`invalid choice`) does not.
            let unknown = e.contains("error: unrecognized arguments:");
            let path = crate::import_command::serve_model_path(&l.args, true).filter(|_| unknown);
            match path.filter(|p| preset_of(p).is_err()) {
                Some(p) => format!("{e}{}", diffusion_clause(p)),
                None => e,
            }
        } else {
            e
        };
        // cmdsurvey57: a `$NAME` the text does not set reaches argparse only as the shell expands it.
        // cmdsurvey60 (kserve issue 5773, `${ACCESS_LOG_ARGS}` in a template's `vllm serve`): as an
        // argument of its own too, where argparse names it among the unrecognized arguments.
        let unset_word = e
            .split("unrecognized arguments: ")
            .nth(1)
            .and_then(|r| r.split([' ', '"']).find_map(|w| w.strip_prefix('$')));
        let quoted = e.split("value: '$").nth(1).and_then(|r| r.split('\'').next());
        match quoted.or(unset_word) {
            // cmdsurvey58 (kubernetes-sigs/wg-serving PR 72, `--tensor-parallel-size=$(TENSOR_PARALLEL_SIZE)` in
            // a Deployment's `args`): in bash `$(…)` runs a command (Bash manual 3.5.4); in a Kubernetes
            // container's `command`/`args` it is the container's `env` variable of that name (Kubernetes docs,
            // "Define Dependent Environment Variables": `$(VAR_NAME)`), which the manifest holds, not the command.
            Some(v) if v.starts_with('(') => format!(
                "{e} — `${v}` is a command substitution in a shell, or in a Kubernetes manifest's `command`/`args` \
                 the container's `env` variable of that name: tpsim cannot know its value, write it out"
            ),
            Some(v) => format!(
                "{e} — `${v}` is a shell variable the text does not set (a script's argument or the caller's \
                 environment): tpsim cannot know its value, write it out"
            ),
            None => e,
        }
    })?;
    let mut out = Out {
        notes: l.notes.iter().cloned().chain(unset).collect(),
        image_version: l.image_version.clone(),
        ..Out::default()
    };
    out.set(
        "name",
        Value::String(if sglang { "sglang" } else { "vllm" }.into()),
    );
    if let Some(v) = &version {
        out.set("version", Value::String(v.clone()));
    }
    let mut model = positional;
    let mut trust = false;
    let mut quant: Option<String> = None;
    let mut blocks: Option<i64> = None;
    let mut ep_moe = false;
    let mut sgl_spec: BTreeMap<&str, String> = BTreeMap::new();
    let mut dotted_spec: Option<serde_json::Map<String, serde_json::Value>> = None;
    let mut nnodes_mp = false;
    for f in &fl {
        // args58 (cmdsurvey57 row 139): vLLM's executor across boxes (`scenario/executor.rs`): a stated
        // `ray` / `mp` becomes `engine.distributed_executor_backend`; `--nnodes N` > 1 alone is vLLM ≥
        // 0.12.0's `mp` launch (0.12.0 `config/parallel.py`: CUDA with nnodes > 1 defaults to mp).
        if !sglang {
            let value = f.values.first().map(String::as_str);
            if f.name == "--distributed-executor-backend" && matches!(value, Some("ray" | "mp")) {
                out.set(
                    "distributed_executor_backend",
                    Value::String(value.unwrap_or_default().into()),
                );
                continue;
            }
            if f.name == "--nnodes" && value.and_then(|v| v.parse::<u32>().ok()).is_some_and(|n| n > 1) {
                nnodes_mp = true;
            }
            // The head node's address of the `mp` launch: `tpsim engine-args` prints its own
            // placeholder (`engine_args_nodes::HEAD_ADDR`) on every node, so the user's is left out.
            if f.name == "--master-addr" {
                out.notes.push(format!(
                    "{}: node 0's address for vLLM's multi-node launch; tpsim engine-args prints the placeholder \
                     HEAD_NODE_IP, left out",
                    f.written.join(" ")
                ));
                continue;
            }
        }
        if DROPPED.iter().any(|d| f.row.iter().any(|r| r == d)) {
            out.notes.push(format!(
                "{}: the nodes come from the box given (--hardware / --from), left out",
                f.written.join(" ")
            ));
            continue;
        }
        // graphmode: `compilation_config.cudagraph_mode` → `engine.cudagraph_mode`.
        if f.name == "--compilation-config" && compilation_config(&mut out, f)? {
            continue;
        }
        let Some((flag, key, kind, negated)) =
            flags::key_of(f).filter(|&(flag, ..)| !(sglang && flags::VLLM_ONLY.contains(&flag)))
        else {
            out.extra.extend(f.written.iter().cloned());
            continue;
        };
        let v = flags::value(f, kind, negated)?;
        match flag {
            "--model-path" | "--model" => model = Some(str_of(&v)),
            "--trust-remote-code" => trust = true,
            "--quantization" => quant = Some(str_of(&v)),
            "--kv-cache-dtype" => kv_dtype(&mut out, &str_of(&v), sglang)?,
            // `--disable-custom-all-reduce`: NCCL for every allreduce (`engine_args::allreduce`).
            "--disable-custom-all-reduce" => out.set("allreduce", Value::String("nccl".into())),
            "--num-gpu-blocks-override" => blocks = Some(int_of(&v)),
            "--enable-ep-moe" => ep_moe = true,
            "--speculative-config" => match &f.sub {
                Some(sub) => dotted(dotted_spec.get_or_insert_default(), sub, &str_of(&v)),
                None => vllm_spec(&mut out, &str_of(&v))?,
            },
            s if s.starts_with("--speculative-") => {
                sgl_spec.insert(s, str_of(&v));
            }
            _ if kind == Kind::Special => unreachable_flag(flag)?,
            _ => out.set(key, v),
        }
    }
    if nnodes_mp
        && !out
            .engine
            .iter()
            .any(|(k, _)| k == "distributed_executor_backend")
    {
        out.set("distributed_executor_backend", Value::String("mp".into()));
    }
    if !sgl_spec.is_empty() {
        sglang_spec(&mut out, &sgl_spec)?;
    }
    if let Some(obj) = dotted_spec {
        // vLLM appends the merged dotted fields as one `--speculative-config JSON` after the other
        // arguments, so it replaces a JSON value given as a whole (argparse keeps the last).
        out.spec.clear();
        vllm_spec(&mut out, &serde_json::Value::Object(obj).to_string())?;
    }
    if let Some(b) = blocks {
        // `--num-gpu-blocks-override`: blocks of `--block-size` tokens (vLLM's default 16,
        // `CacheConfig.block_size`; `engine_args` prints tokens ÷ block the same way).
        let block = out
            .engine
            .iter()
            .find(|(k, _)| k == "page_size")
            .and_then(|(_, v)| v.as_integer())
            .unwrap_or(16);
        out.set("max_total_tokens", Value::Integer(b * block));
    }
    if !out.engine.iter().any(|(k, _)| k == "tp") {
        // Neither flag given: both engines' default, 1 (SGLang 0.5.8 `ServerArgs.tp_size = 1`,
        // vLLM 0.19.0 `ParallelConfig.tensor_parallel_size = 1`); the scenario needs the key.
        out.set("tp", Value::Integer(1));
        out.defaulted.push("tp");
    }
    if ep_moe {
        enable_ep_moe(&mut out, version.as_deref())?;
    }
    environment(&mut out, &l.env, sglang);
    let model = model.ok_or_else(|| {
        format!(
            "no model in the command: {} needs {}",
            if sglang { "SGLang" } else { "vLLM" },
            if sglang {
                "--model-path"
            } else {
                "the positional MODEL (or --model)"
            }
        )
    })?;
    // cmdsurvey55: a path inside a Docker container is read by the host directory mounted there.
    let model = crate::import_command::unmount(&l.mounts, &model, &mut out.notes);
    out.model_path = model.clone();
    let preset = match model_from {
        ModelFrom::Command(dir) => model_ref(&mut out, &model, None, dir)?,
        ModelFrom::Preset(p) => model_ref(&mut out, &model, Some(p), Path::new(""))?,
        ModelFrom::Config(c) => model_config(&mut out, &model, c)?,
        ModelFrom::Scenario(p) => p.map(str::to_string),
    };
    if let Some(q) = quant {
        quantization(&mut out, &q, preset.as_deref(), sglang);
    }
    // `--trust-remote-code`: stated only where it differs from the preset's sourced entry
    // (`engine_args::preset_trust_remote_code`), which `tpsim engine-args` follows.
    let listed = preset
        .as_deref()
        .and_then(crate::engine_args::preset_trust_remote_code)
        .unwrap_or(false);
    if trust != listed {
        out.set("trust_remote_code", Value::Boolean(trust));
    }
    if !out.extra.is_empty() {
        let v = out.extra.iter().cloned().map(Value::String).collect();
        out.set("extra_args", Value::Array(v));
    }
    Ok(out)
}

/// flags56: SGLang's `--enable-ep-moe` as the command's release runs it (`engine.ep_size`, with the
/// engine's log line as a note), or its refusal (`engine_args_versions::enable_ep_moe`).
fn enable_ep_moe(out: &mut Out, version: Option<&str>) -> Result<(), String> {
    let int = |key: &str| {
        out.engine
            .iter()
            .find(|(k, _)| k == key)
            .and_then(|(_, v)| v.as_integer())
    };
    let tp = int("tp").unwrap_or(1);
    let given = int("ep_size");
    let version = version
        .map(str::to_string)
        .unwrap_or_else(|| crate::engine_release::release(EngineKind::Sglang, None).version);
    let (ep, note) = crate::engine_args_versions::enable_ep_moe(&version, tp, given)?;
    out.set("ep_size", Value::Integer(ep));
    out.notes.push(format!("--enable-ep-moe: {note}"));
    Ok(())
}

/// graphmode: a `--compilation-config` (JSON, or its dotted form) that sets `cudagraph_mode`: the
/// mode goes to `engine.cudagraph_mode`, the other fields stay in `extra_args` as one JSON
/// argument. cmdsurvey62 (vllm-ascend issue 10313, `--compilation-config '{"cudagraph_capture_sizes":
/// [1,4,…], "cudagraph_mode":"FULL_DECODE_ONLY"}'`): `cudagraph_capture_sizes` and
/// `max_cudagraph_capture_size` go to their keys the same way (`engine.cudagraph_capture_sizes` is
/// `compilation_config.cudagraph_capture_sizes` in every release tpsim reads). `false`: it sets none
/// of them (the caller keeps it as written).
fn compilation_config(out: &mut Out, f: &flags::Flag) -> Result<bool, String> {
    let value = f.values.join(" ");
    if let Some(sub) = &f.sub {
        return match sub.as_str() {
            "cudagraph_mode" => {
                out.set("cudagraph_mode", Value::String(value));
                Ok(true)
            }
            "cudagraph_capture_sizes" | "max_cudagraph_capture_size" => {
                let v = serde_json::from_str::<serde_json::Value>(&value)
                    .map_err(|_| format!("--compilation-config.{sub}: expected JSON, not {value}"))?;
                graph_key(out, sub, &v)?;
                Ok(true)
            }
            _ => Ok(false),
        };
    }
    let Ok(serde_json::Value::Object(mut obj)) = serde_json::from_str::<serde_json::Value>(&value) else {
        // vLLM's `-O3` style integer (the optimization level) or text tpsim does not read.
        return Ok(false);
    };
    let mut any = false;
    if let Some(mode) = obj.remove("cudagraph_mode") {
        let mode = mode
            .as_str()
            .ok_or_else(|| format!("--compilation-config cudagraph_mode: expected a string, not {mode}"))?;
        out.set("cudagraph_mode", Value::String(mode.to_string()));
        any = true;
    }
    for key in ["cudagraph_capture_sizes", "max_cudagraph_capture_size"] {
        if let Some(v) = obj.remove(key) {
            graph_key(out, key, &v)?;
            any = true;
        }
    }
    if !any {
        return Ok(false);
    }
    if !obj.is_empty() {
        out.extra.push("--compilation-config".into());
        out.extra.push(serde_json::Value::Object(obj).to_string());
    }
    Ok(true)
}

/// `compilation_config.cudagraph_capture_sizes` (a list of integers) or `max_cudagraph_capture_size`
/// (an integer) as its `engine` key.
fn graph_key(out: &mut Out, key: &str, v: &serde_json::Value) -> Result<(), String> {
    let bad = || {
        format!(
            "--compilation-config {key}: expected {}, not {v}",
            if key == "max_cudagraph_capture_size" {
                "an integer"
            } else {
                "a list of integers"
            }
        )
    };
    let value = match v {
        serde_json::Value::Array(a) if key == "cudagraph_capture_sizes" => Value::Array(
            a.iter()
                .map(|x| x.as_i64().map(Value::Integer).ok_or_else(bad))
                .collect::<Result<_, _>>()?,
        ),
        serde_json::Value::Number(n) if key == "max_cudagraph_capture_size" => {
            Value::Integer(n.as_i64().ok_or_else(bad)?)
        }
        _ => return Err(bad()),
    };
    out.set(key, value);
    Ok(())
}

/// A `Special` flag with no rule here (every `KEYS` entry of that kind has one above).
fn unreachable_flag(flag: &str) -> Result<(), String> {
    Err(format!(
        "{flag}: tpsim import-command has no rule for this flag (a defect: please report it)"
    ))
}

fn str_of(v: &Value) -> String {
    v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())
}

fn int_of(v: &Value) -> i64 {
    v.as_integer().unwrap_or_else(|| str_of(v).parse().unwrap_or(0))
}

/// `--quantization`: tpsim models the engine's own fp8 quantization of a float checkpoint
/// (`engine.quantization = "fp8"`, `scenario::online_quant`). Another method on a preset whose
/// `quant.toml` stores quantized weights names the checkpoint's own format, which the preset states
/// (the engines read it from the checkpoint's `quantization_config` all the same): left to the
/// preset, with a note — except SGLang's `modelopt` / `modelopt_fp4` on an NVFP4 preset, which SGLang's
/// SM 10.x MoE-runner rules read (b200sgl54, `scenario::online_quant`): written as
/// `engine.quantization`. Anything else is written as given, and the scenario loader refuses it with
/// the engines' text.
fn quantization(out: &mut Out, q: &str, preset: Option<&str>, sglang: bool) {
    let stored = preset.and_then(|p| preset_quant(p).ok().flatten()).and_then(|t| {
        // The linear layers' format, else the routed experts' (`quant.toml` `experts`).
        let of = |v: Option<&Value>| {
            v.and_then(|v| v.get("dtype"))
                .and_then(Value::as_str)
                .map(str::to_string)
        };
        [of(Some(&Value::Table(t.clone()))), of(t.get("experts"))]
            .into_iter()
            .flatten()
            .find(|d| !matches!(d.as_str(), "bf16" | "fp16" | "fp32"))
    });
    let read_by_sglang = sglang && matches!(q, "modelopt" | "modelopt_fp4");
    match stored {
        Some(d) if d == "nvfp4" && read_by_sglang => out.set("quantization", Value::String(q.to_string())),
        Some(d) if q != "fp8" => out.notes.push(format!(
            "--quantization {q}: the checkpoint's own format, which the preset {} states (quant.toml dtype = \"{d}\"); \
             no key",
            preset.unwrap_or_default()
        )),
        _ => out.set("quantization", Value::String(q.to_string())),
    }
}

/// `--kv-cache-dtype`, as `[model] quantization.kv_cache_dtype` (tpsim's names: `KvCacheDtype`).
/// SGLang 0.5.8 choices: auto, fp8_e5m2, fp8_e4m3, bf16, bfloat16, fp4_e2m1; vLLM 0.19.0: auto,
/// float16, bfloat16, fp8, fp8_e4m3, fp8_e5m2, fp8_inc, fp8_ds_mla, where `fp8` is e4m3 on CUDA
/// (vLLM `utils/torch_utils.py` `STR_DTYPE_TO_TORCH_DTYPE` maps both to uint8 storage and
/// `current_platform.fp8_dtype()` is `float8_e4m3fn` on CUDA).
fn kv_dtype(out: &mut Out, v: &str, sglang: bool) -> Result<(), String> {
    let name = match v {
        "auto" => return Ok(()),
        "bf16" | "bfloat16" => "bf16",
        "float16" => "fp16",
        "fp8" | "fp8_e4m3" => "fp8_e4m3",
        "fp8_e5m2" => "fp8_e5m2",
        "fp4_e2m1" if sglang => "fp4_e2m1",
        other => {
            return Err(format!(
                "--kv-cache-dtype {other}: accepted by the engine, not modelled by tpsim (its KV dtypes: auto, bf16, \
                 float16, fp8 / fp8_e4m3, fp8_e5m2, SGLang's fp4_e2m1)"
            ));
        }
    };
    out.model
        .insert("kv_cache_dtype".into(), Value::String(name.into()));
    Ok(())
}

/// vLLM's `--speculative-config` JSON (`SpeculativeConfig`, vLLM 0.19.0 `config/speculative.py`):
/// `method`, `model` (the draft), `num_speculative_tokens`, `draft_tensor_parallel_size` become
/// `[speculative]` keys; other fields are noted as not modelled.
fn vllm_spec(out: &mut Out, json: &str) -> Result<(), String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("--speculative-config: not JSON ({e}): {json}"))?;
    let obj = v
        .as_object()
        .ok_or_else(|| format!("--speculative-config: expected a JSON object, not {json}"))?;
    for (k, x) in obj {
        match (k.as_str(), x) {
            ("method", serde_json::Value::String(m)) => {
                out.spec.insert("algorithm".into(), Value::String(m.clone()));
            }
            ("model", serde_json::Value::String(m)) => {
                let p = preset_of(m).map_err(|e| format!("--speculative-config model: {e}"))?;
                out.spec.insert("draft".into(), Value::String(p));
            }
            ("num_speculative_tokens" | "draft_tensor_parallel_size", x) if x.as_i64().is_some() => {
                out.spec
                    .insert(k.clone(), Value::Integer(x.as_i64().unwrap_or(0)));
            }
            _ => out.notes.push(format!(
                "--speculative-config {k} = {x}: not modelled by tpsim (left out)"
            )),
        }
    }
    Ok(())
}

/// One dotted field of a vLLM JSON argument (`--speculative-config.method mtp`) merged into `obj` as
/// vLLM's `FlexibleArgumentParser.parse_args` merges it (vllm-project/vllm
/// `vllm/utils/argparse_utils.py` at 00da11e3, the form its `--help` JSON tip documents): the path
/// split at `.` into nested objects, the value read as JSON (`3` a number, `true` a boolean), else
/// as vLLM's `human_readable_int` (`32k`), else kept as text (`mtp`).
fn dotted(obj: &mut serde_json::Map<String, serde_json::Value>, path: &str, value: &str) {
    let parsed = serde_json::from_str::<serde_json::Value>(value)
        .ok()
        .or_else(|| human_readable_int(value).map(serde_json::Value::from))
        .unwrap_or_else(|| serde_json::Value::String(value.to_string()));
    let mut keys: Vec<&str> = path.split('.').collect();
    let last = keys.pop().unwrap_or_default();
    let mut cur = obj;
    for k in keys {
        let slot = cur
            .entry(k.to_string())
            .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
        if !slot.is_object() {
            *slot = serde_json::Value::Object(serde_json::Map::new());
        }
        let serde_json::Value::Object(next) = slot else {
            return;
        };
        cur = next;
    }
    cur.insert(last.to_string(), parsed);
}

/// SGLang's `--speculative-*` flags (0.5.8 `server_args.py`): EAGLE3 → `eagle3` with its draft;
/// NEXTN, or EAGLE without a draft path (SGLang then drafts with the model's own MTP layers:
/// `server_args.py` sets the draft path to the model for DeepSeek-V3, GLM-4.5 and Qwen3.5's
/// architectures), → `nextn`; anything else is written as given (the scenario loader refuses it).
fn sglang_spec(out: &mut Out, s: &BTreeMap<&str, String>) -> Result<(), String> {
    let algo = s.get("--speculative-algorithm").map(|a| a.to_ascii_uppercase());
    let draft = s.get("--speculative-draft-model-path");
    let name = match (algo.as_deref(), draft) {
        (Some("EAGLE3"), _) => "eagle3".to_string(),
        (Some("NEXTN"), _) | (Some("EAGLE"), None) => "nextn".to_string(),
        (Some(other), _) => other.to_ascii_lowercase(),
        (None, _) => return Err("--speculative-* flags without --speculative-algorithm".into()),
    };
    out.spec.insert("algorithm".into(), Value::String(name));
    if let Some(d) = draft {
        let p = preset_of(d).map_err(|e| format!("--speculative-draft-model-path: {e}"))?;
        out.spec.insert("draft".into(), Value::String(p));
    }
    for (flag, key) in [
        ("--speculative-num-steps", "num_steps"),
        ("--speculative-eagle-topk", "topk"),
        ("--speculative-num-draft-tokens", "num_draft_tokens"),
    ] {
        if let Some(v) = s.get(flag) {
            let n = v
                .parse::<i64>()
                .map_err(|_| format!("{flag}: expected an integer, not '{v}'"))?;
            out.spec.insert(key.into(), Value::Integer(n));
        }
    }
    Ok(())
}

/// The environment: `[engine.env]` for the variables tpsim reads; vLLM's `VLLM_ALL2ALL_BACKEND`
/// and `VLLM_ATTENTION_BACKEND` as their keys (`engine_args` prints them so); the rest noted.
fn environment(out: &mut Out, env: &BTreeMap<String, String>, sglang: bool) {
    let mut ignored = Vec::new();
    for (k, v) in env {
        match k.as_str() {
            "VLLM_ALL2ALL_BACKEND" if !sglang => out.set("all2all_backend", Value::String(v.clone())),
            "VLLM_ATTENTION_BACKEND" if !sglang => out.set("attention_backend", Value::String(v.clone())),
            _ if env_accepted(k) => {
                out.env.insert(k.clone(), v.clone());
            }
            // cmdsurvey63 (rows 222 and 252, and the SGLang MTP recipes): said plainly, not only listed.
            "SGLANG_ENABLE_SPEC_V2" if sglang => out.notes.push(format!(
                "SGLANG_ENABLE_SPEC_V2={v} left out: SGLang's spec v2 keeps the overlap scheduler on with an EAGLE / \
                 EAGLE3 / STANDALONE draft (0.5.9 server_args.py: \"Spec v2 is enabled for eagle/eagle3 speculative \
                 decoding and overlap schedule is turned on.\"); tpsim simulates the speculative step without the \
                 overlap (spec v1), so the prediction is the engine's without it"
            )),
            _ => ignored.push(format!("{k}={v}")),
        }
    }
    if !ignored.is_empty() {
        out.notes.push(format!(
            "environment not read by tpsim (left out; `[engine.env]` takes only the variables it models): {}",
            ignored.join(" ")
        ));
    }
}

/// HuggingFace repository → bundled preset (`scenarios/models/hf-ids.toml` `[ids]`).
fn hf_ids() -> BTreeMap<String, String> {
    #[derive(serde::Deserialize)]
    struct Ids {
        ids: BTreeMap<String, String>,
    }
    toml::from_str::<Ids>(include_str!("../../scenarios/models/hf-ids.toml"))
        .map(|i| i.ids)
        .unwrap_or_default()
}

/// Issue #17 (presets10): other HuggingFace checkpoints → the bundled preset whose config.json
/// geometry and weight format they share (`scenarios/models/hf-ids.toml` `[aliases]`, each entry
/// naming the public copy of the checkpoint's config.json it was compared with).
pub fn hf_aliases() -> BTreeMap<String, String> {
    #[derive(serde::Deserialize)]
    struct Aliases {
        #[serde(default)]
        aliases: BTreeMap<String, String>,
    }
    toml::from_str::<Aliases>(include_str!("../../scenarios/models/hf-ids.toml"))
        .map(|a| a.aliases)
        .unwrap_or_default()
}

/// Every (HuggingFace id, preset) pair: `[ids]` (the preset's own repository) then `[aliases]`.
fn all_ids() -> Vec<(String, String)> {
    let mut v: Vec<(String, String)> = hf_ids().into_iter().map(|(p, id)| (id, p)).collect();
    v.extend(hf_aliases());
    v
}

/// cmdsurvey58 (sglang issue 7883: `--model-path …/models--Qwen--Qwen3-8B/snapshots/2069b3fa…`): the
/// repository a path into the Hugging Face hub cache holds. huggingface_hub stores a model repository
/// in the folder `models--ORG--NAME` (`file_download.py` `repo_folder_name`: "models" and the id's
/// parts joined by `REPO_ID_SEPARATOR`, `--`) and each revision under `snapshots/REVISION`, so the path
/// names `ORG/NAME` (or `NAME` for a repository without an owner) whatever its last component (a
/// commit hash).
pub fn hub_cache_repo(path: &str) -> Option<String> {
    let mut parts = path.trim_end_matches('/').rsplit('/');
    let last = parts.next()?;
    let folder = match last.strip_prefix("models--") {
        Some(f) => f,
        None => {
            let snapshots = parts.next()?;
            let folder = parts.next()?.strip_prefix("models--")?;
            (snapshots == "snapshots").then_some(folder)?
        }
    };
    // A repository without an owner (`gpt2`) is `models--gpt2`.
    match folder.split_once("--") {
        Some((org, name)) => {
            (!org.is_empty() && !name.is_empty() && !name.contains("--")).then(|| format!("{org}/{name}"))
        }
        None => (!folder.is_empty()).then(|| folder.to_string()),
    }
}

/// The bundled preset a model path names: a preset's own name, its HuggingFace id or an alias
/// (`[aliases]`, any case), or a path whose last component is exactly one preset's repository
/// name (`/mnt/MiniMax-M2.5`).
pub fn preset_of(path: &str) -> Result<String, String> {
    let path = path.trim_end_matches('/');
    if let Some(id) = hub_cache_repo(path)
        && let Some((_, p)) = all_ids().iter().find(|(i, _)| i.eq_ignore_ascii_case(&id))
    {
        return Ok(p.clone());
    }
    if presets::model(path).is_some() {
        return Ok(path.to_string());
    }
    let ids = all_ids();
    if let Some((_, p)) = ids.iter().find(|(id, _)| id.eq_ignore_ascii_case(path)) {
        return Ok(p.clone());
    }
    let last = path.rsplit('/').next().unwrap_or(path);
    let mut by_name: Vec<&String> = ids
        .iter()
        .filter(|(id, _)| {
            id.rsplit('/')
                .next()
                .is_some_and(|n| n.eq_ignore_ascii_case(last))
        })
        .map(|(_, p)| p)
        .collect();
    by_name.sort();
    by_name.dedup();
    match by_name.as_slice() {
        // A repository of the same name under another owner may be another checkpoint: the
        // caller notes the match.
        [one] => Ok((*one).clone()),
        [] => Err(format!(
            "`{path}` is no bundled model preset and no HuggingFace id in scenarios/models/hf-ids.toml: name \
             the served model's preset with --model-preset NAME (one of: {}), or add the model as a preset \
             (config.json under scenarios/models/, its id in hf-ids.toml; book: Models)",
            presets::names("model").join(", ")
        )),
        many => Err(format!(
            "`{path}` matches the repositories of several presets ({}): pass --model-preset NAME",
            many.iter().map(|s| s.as_str()).collect::<Vec<_>>().join(", ")
        )),
    }
}

/// `[model]`: `--model-preset`, else the preset the path names, else a local directory holding a
/// config.json (`[model] config`; the path read from `dir`, written as given). Returns the preset (none for a directory).
fn model_ref(out: &mut Out, model: &str, given: Option<&str>, dir: &Path) -> Result<Option<String>, String> {
    if let Some(p) = given {
        if presets::model(p).is_none() {
            return Err(format!(
                "--model-preset {p}: no such bundled preset (expected one of: {})",
                presets::names("model").join(", ")
            ));
        }
        out.notes
            .push(format!("model {model}: read as the preset {p} (--model-preset)"));
        out.model.insert("preset".into(), Value::String(p.into()));
        return Ok(Some(p.into()));
    }
    let cfg = Path::new(model).join("config.json");
    if presets::model(model).is_none() && dir.join(&cfg).is_file() {
        out.model
            .insert("config".into(), Value::String(cfg.display().to_string()));
        return Ok(None);
    }
    let p = preset_of(model)?;
    let exact = presets::model(model).is_some() || hf_ids().values().any(|id| id.eq_ignore_ascii_case(model));
    let trimmed = model.trim_end_matches('/');
    let last = trimmed.rsplit('/').next().unwrap_or(trimmed);
    let alias = hf_aliases().into_iter().find(|(id, _)| {
        id.eq_ignore_ascii_case(trimmed)
            || id
                .rsplit('/')
                .next()
                .is_some_and(|n| n.eq_ignore_ascii_case(last))
    });
    if let Some(id) = hub_cache_repo(model).filter(|_| !exact) {
        out.notes.push(format!(
            "model {model}: a Hugging Face hub cache folder of `{id}` (huggingface_hub's `models--ORG--NAME/snapshots/REVISION`), \
             read as the preset {p}"
        ));
    } else if let (false, Some((id, _))) = (exact, alias) {
        out.notes.push(format!(
            "model {model}: read as the preset {p}: `{id}` has the same config.json geometry and weight format \
             (scenarios/models/hf-ids.toml [aliases]); the printed command names the preset's repository"
        ));
    } else if !exact {
        out.notes.push(format!(
            "model {model}: read as the preset {p}, whose repository has the same name (check it is the same checkpoint)"
        ));
    }
    out.model.insert("preset".into(), Value::String(p.clone()));
    Ok(Some(p))
}

/// `--model-config PATH`: `[model] config` for a model no bundled preset describes (the scenario
/// reads it as any `[model] config`: see book/src/scenarios.md, `[model]`). PATH is a config.json or
/// a directory holding one; written absolute, so the scenario loads wherever it is written.
fn model_config(out: &mut Out, model: &str, given: &Path) -> Result<Option<String>, String> {
    let file = if given.is_dir() {
        given.join("config.json")
    } else {
        given.to_path_buf()
    };
    if !file.is_file() {
        return Err(format!(
            "--model-config {}: no such file (expected a HuggingFace config.json, or a directory holding one)",
            given.display()
        ));
    }
    let abs = std::path::absolute(&file).map_err(|e| format!("--model-config {}: {e}", given.display()))?;
    out.notes.push(format!(
        "model {model}: read from {} (--model-config)",
        abs.display()
    ));
    out.model
        .insert("config".into(), Value::String(abs.display().to_string()));
    Ok(None)
}

/// The scenario's text, then loaded and printed back (`engine_args::command`) to refuse what the
/// scenario or the engine refuses.
fn render_and_check(mut out: Out, o: &Options) -> Result<Imported, String> {
    let mut doc = Table::new();
    let (path, from) = match &o.hardware {
        HardwareFrom::Preset(p) => {
            let mut hw = Table::new();
            hw.insert("preset".into(), Value::String(p.clone()));
            doc.insert("hardware".into(), Value::Table(hw));
            (
                o.output.clone().unwrap_or_else(|| PathBuf::from("imported.toml")),
                None,
            )
        }
        HardwareFrom::Scenario(f) => {
            let text = crate::files::read_text(f).map_err(|e| format!("{}: {e}", f.display()))?;
            let t: Table = toml::from_str(&text).map_err(|e| format!("{}: {e}", f.display()))?;
            let hw = t
                .get("hardware")
                .cloned()
                .ok_or_else(|| format!("{}: no [hardware] table", f.display()))?;
            doc.insert("hardware".into(), hw);
            for k in ["seed", "workload", "slo"] {
                if let Some(v) = t.get(k) {
                    doc.insert(k.into(), v.clone());
                }
            }
            let acc = t.get("speculative").and_then(|s| s.get("acceptance")).cloned();
            (o.output.clone().unwrap_or_else(|| f.clone()), acc)
        }
    };
    if !out.spec.is_empty() {
        let acc = match (&o.acceptance, from) {
            (Some(body), _) => Value::Table(
                toml::from_str::<Table>(body)
                    .map_err(|e| format!("--acceptance: not a TOML table body ({e}): {body}"))?,
            ),
            (None, Some(a)) => a,
            (None, None) => {
                return Err("the command speculates, and the draft's acceptance is in no launch flag: pass --acceptance \
                            'alpha = 0.7' (or 'profile = \"NAME\"'), or --from a scenario whose [speculative] has one"
                    .into());
            }
        };
        out.spec.insert("acceptance".into(), acc);
    }
    let text = render(&doc, &out)?;
    let s = scenario::load_str(&text, &path).map_err(|e| loaded_error(&e, &text))?;
    let raw: ScenarioFile = scenario::parse_toml(&text, &path).map_err(|e| e.to_string())?;
    crate::engine_args::command(&s, &raw, &text).map_err(|e| loaded_error(&e, &text))?;
    Ok(Imported {
        text,
        notes: out.notes,
        warnings: s.warnings,
    })
}

fn loaded_error(e: &ScenarioError, text: &str) -> String {
    format!("the imported scenario does not load: {e}\n--- the scenario ---\n{text}")
}

/// The file: notes as comments, then `seed`, `[hardware]`, `[model]`, `[engine]`, `[engine.env]`,
/// `[speculative]`, `[workload]`, `[slo]`.
fn render(doc: &Table, out: &Out) -> Result<String, String> {
    let ser = |t: &Table| toml::to_string(t).map_err(|e| e.to_string());
    let mut text = String::from(
        "# Written by `tpsim import-command` (issue #17): the launch command's flags as keys.\n",
    );
    for n in &out.notes {
        text.push_str(&format!("# {n}\n"));
    }
    let part = |k: &str| {
        doc.get(k).map(|v| {
            let mut t = Table::new();
            t.insert(k.into(), v.clone());
            t
        })
    };
    if let Some(t) = part("seed") {
        text.push_str(&ser(&t)?);
    }
    for k in ["hardware"] {
        if let Some(t) = part(k) {
            text.push('\n');
            text.push_str(&ser(&t)?);
        }
    }
    let mut model = Table::new();
    let mut m = out.model.clone();
    let kv = m.remove("kv_cache_dtype");
    model.insert("model".into(), Value::Table(m.clone()));
    text.push('\n');
    text.push_str(&ser(&model)?);
    if let Some(kv) = kv {
        text.push_str(&kv_table(m.get("preset").and_then(Value::as_str), kv)?);
    }
    text.push_str("\n[engine]\n");
    for (k, v) in &out.engine {
        text.push_str(&format!("{k} = {v}\n"));
    }
    if !out.env.is_empty() {
        text.push_str("\n[engine.env]\n");
        for (k, v) in &out.env {
            text.push_str(&format!("{k} = {}\n", Value::String(v.clone())));
        }
    }
    if !out.spec.is_empty() {
        let mut t = Table::new();
        t.insert("speculative".into(), Value::Table(out.spec.clone()));
        text.push('\n');
        text.push_str(&ser(&t)?);
    }
    for k in ["workload", "slo"] {
        if let Some(t) = part(k) {
            text.push('\n');
            text.push_str(&ser(&t)?);
        }
    }
    Ok(text)
}

/// `[model.quantization]`: the preset's own `quant.toml` (the checkpoint's format) with the
/// command's KV dtype; without a preset (a config directory) bf16 weights and the KV dtype.
fn quant_table(preset: Option<&str>, kv: Value) -> Result<Table, String> {
    let mut q = match preset {
        Some(p) => preset_quant(p)?.unwrap_or_default(),
        None => Table::new(),
    };
    q.insert("kv_cache_dtype".into(), kv);
    Ok(q)
}

/// A bundled preset's `quant.toml` as a table (`None`: no such preset). attnquant17 (issue #17): a
/// `from = "config"` file is written out as the explicit description its checkpoint resolves to
/// (`tpsim_model::llm::quant_hf`, its own `kv_cache_dtype` applied), since a scenario's
/// `[model.quantization]` has no `from`.
fn preset_quant(preset: &str) -> Result<Option<Table>, String> {
    let Some((config, text)) = presets::model(preset) else {
        return Ok(None);
    };
    if text.trim().is_empty() {
        return Ok(Some(Table::new()));
    }
    let t: Table = toml::from_str(text).map_err(|e| e.to_string())?;
    if t.get("from").is_none() {
        return Ok(Some(t));
    }
    let cfg: serde_json::Value = serde_json::from_str(&tpsim_model::llm::non_finite_to_null(config))
        .map_err(|e| format!("{preset}/config.json: {e}"))?;
    let hf: Option<serde_json::Value> = presets::model_hf_quant(preset)
        .map(serde_json::from_str)
        .transpose()
        .map_err(|e| format!("{preset}/hf_quant_config.json: {e}"))?;
    let q = tpsim_model::llm::quant_hf::from_checkpoint(&cfg, hf.as_ref()).map_err(|e| e.to_string())?;
    let mut out = format_table(&q.weights);
    for (k, f) in [
        ("experts", q.experts),
        ("dense_mlp", q.dense_mlp),
        ("shared_experts", q.shared_experts),
        ("mtp", q.mtp),
        ("mla_down", q.mla_down),
    ] {
        if let Some(f) = f {
            out.insert(k.into(), Value::Table(format_table(&f)));
        }
    }
    // presets58 (issue #17): the attention projections stored apart (`[projections]`).
    let projections: toml::map::Map<String, Value> = q
        .projections
        .named()
        .into_iter()
        .map(|(k, f)| (k.to_string(), Value::Table(format_table(&f))))
        .collect();
    if !projections.is_empty() {
        out.insert("projections".into(), Value::Table(projections));
    }
    let kv = t.get("kv_cache_dtype").cloned().or_else(|| {
        use tpsim_model::llm::KvCacheDtype as K;
        let name = match q.kv_cache_dtype {
            K::Auto => return None,
            K::Bf16 => "bf16",
            K::Fp16 => "fp16",
            K::Fp8E4m3 => "fp8_e4m3",
            K::Fp8E5m2 => "fp8_e5m2",
            K::Fp4E2m1 => "fp4_e2m1",
        };
        Some(Value::String(name.into()))
    });
    if let Some(kv) = kv {
        out.insert("kv_cache_dtype".into(), kv);
    }
    Ok(Some(out))
}

/// One weight format as `quant.toml` keys.
fn format_table(f: &tpsim_model::llm::WeightFormat) -> Table {
    use tpsim_model::llm::ScaleDtype as S;
    let mut t = Table::new();
    t.insert("dtype".into(), Value::String(f.dtype.name().into()));
    if let Some(g) = f.group_size {
        t.insert("group_size".into(), Value::Integer(i64::from(g)));
    }
    if let Some(d) = f.scale_dtype {
        let name = match d {
            S::Bf16 => "bf16",
            S::Fp16 => "fp16",
            S::Fp32 => "fp32",
            S::Fp8 => "fp8",
        };
        t.insert("scale_dtype".into(), Value::String(name.into()));
    }
    if let Some([r, c]) = f.block_size {
        t.insert(
            "block_size".into(),
            Value::Array(vec![Value::Integer(i64::from(r)), Value::Integer(i64::from(c))]),
        );
    }
    for (k, on) in [("zero_point", f.zero_point), ("per_channel", f.per_channel)] {
        if on {
            t.insert(k.into(), Value::Boolean(true));
        }
    }
    for (k, pad) in [
        ("pad_hidden", f.pad_hidden),
        ("pad_intermediate", f.pad_intermediate),
    ] {
        if let Some(p) = pad {
            t.insert(k.into(), Value::Integer(i64::from(p)));
        }
    }
    t
}

/// [`quant_table`] as the file's `[model.quantization]` text.
fn kv_table(preset: Option<&str>, kv: Value) -> Result<String, String> {
    let mut t = Table::new();
    let mut m = Table::new();
    m.insert("quantization".into(), Value::Table(quant_table(preset, kv)?));
    t.insert("model".into(), Value::Table(m));
    // `[model.quantization]` after `[model]`'s keys.
    let s = toml::to_string(&t).map_err(|e| e.to_string())?;
    Ok(format!("\n{}", s.trim_start_matches("[model]\n")))
}

impl Out {
    /// The keys as a scenario table (`engine.command`): `[engine]` with `env` and `extra_args`,
    /// `[model]` (`preset`: the preset whose `quant.toml` a KV dtype joins, when `[model]` is the
    /// scenario's own) and `[speculative]`.
    pub(crate) fn table(&self, preset: Option<&str>) -> Result<Table, String> {
        let mut engine: Table = self.engine.iter().cloned().collect();
        if !self.env.is_empty() {
            let env = self
                .env
                .iter()
                .map(|(k, v)| (k.clone(), Value::String(v.clone())));
            engine.insert("env".into(), Value::Table(env.collect()));
        }
        let mut model = self.model.clone();
        if let Some(kv) = model.remove("kv_cache_dtype") {
            let p = model.get("preset").and_then(Value::as_str).or(preset);
            model.insert("quantization".into(), Value::Table(quant_table(p, kv)?));
        }
        let mut t = Table::new();
        t.insert("engine".into(), Value::Table(engine));
        if !model.is_empty() {
            t.insert("model".into(), Value::Table(model));
        }
        if !self.spec.is_empty() {
            t.insert("speculative".into(), Value::Table(self.spec.clone()));
        }
        Ok(t)
    }
}
