//! Garbage in, a user's own model `config.json` (DESIGN.md §2.5: bad input → a clear error naming
//! the file and key, exit code 2; never a panic, NaN, infinity or hang; a valid but absurd model
//! gives finite figures or a refusal). `garbage_in.rs` mutates scenarios and presets; this sweep
//! mutates every bundled model's `scenarios/models/<name>/config.json` and runs it as a preset
//! directory (`[model] preset = "<dir>"`, the path a user's own checkpoint folder takes, with the
//! preset's `quant.toml` beside it) through `garbage_in`'s checks ([`run_case`]).
//!
//! Host: each model runs on the first of [`HOSTS`] where its unmutated config runs (exit 0): 8×
//! H200 with SGLang at tp 8, 4, 2, 1, then vLLM, then 16 H200 (GLM-5 in bf16), then a stated
//! context length (Hunyuan-A13B has no `max_position_embeddings`); two requests of 128 + 8 tokens.
//!
//! Cases:
//! - every (model, JSON leaf, [`MUTATIONS`]) triple: each key of the file, nested objects
//!   (`text_config`, `vision_config`, `rope_scaling`, `quantization_config`, …) and the first three
//!   entries of each list (`architectures`, `layer_types`, `block_configs`, …), the objects and lists
//!   themselves included: 0, −1, 1, 3, a prime under 2^20, 2^20, `i64::MAX`, 2^64 − 1, 1e308, −1e−308,
//!   `"NaN"`, the bare `NaN`/`Infinity` Python's `json` writes, a float for an int and back, `""`,
//!   `"x"`, a bool, null, a list, an object, a list one entry short or two long, the key deleted;
//!   sampled without replacement from a ChaCha8 stream seeded with [`SEED`]: [`DEFAULT_CASES`] by
//!   default, `TPSIM_GARBAGE_CONFIG_CASES=<n>` for more (63 000 in all);
//! - [`SHAPES`]: well-typed but inconsistent shapes on the text model's keys (heads not dividing
//!   the width, more KV heads than heads, more experts per token than experts, intermediate or
//!   vocabulary 0, a layer-type list one short): one per model drawn from the stream, every one
//!   with `TPSIM_GARBAGE_CONFIG_CASES` set.
//!
//! Pass: `garbage_in`'s (exit 2 with `error: FILE…: key `K`` or a finite, non-negative report and
//! a launch command or its refusal); and a type error in config.json names the JSON key it is in
//! (`config.json could not be parsed: key `text_config.num_attention_heads`: …`).

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use rand::RngExt;
use rand::seq::SliceRandom;
use rand_chacha::ChaCha8Rng;
use rand_chacha::rand_core::SeedableRng;
use serde_json::{Map, Value};

use crate::common::*;
use crate::garbage_in::{found, report, run_case};

/// The stream's seed ("cfgfuzz" in ASCII).
const SEED: u64 = 0x0063_6667_6675_7a7a;
/// Cases drawn by default (the debug build runs them in about a minute on two cores).
const DEFAULT_CASES: usize = 300;

/// (hardware preset, engine, tp, extra `[engine]` line): tried in order for each model.
const HOSTS: &[(&str, &str, u32, &str)] = &[
    ("h200-8x-nvlink", "sglang", 8, ""),
    ("h200-8x-nvlink", "sglang", 4, ""),
    ("h200-8x-nvlink", "sglang", 2, ""),
    ("h200-8x-nvlink", "sglang", 1, ""),
    ("h200-8x-nvlink", "vllm", 8, ""),
    ("h200-16x-2node-ib", "sglang", 16, ""),
    ("h200-8x-nvlink", "sglang", 8, "context_length = 4096"),
    // release51: Granite-4.0-H (SGLang from 0.5.9, after the default 0.5.8; 12 attention heads).
    ("h200-8x-nvlink", "vllm", 2, ""),
    // families27: MiniMax-M1 (vLLM only; its 10,240,000-position config needs a served length the
    // pool holds, as the example's `--max-model-len 4096`).
    ("h200-8x-nvlink", "vllm", 8, "max_model_len = 4096"),
    // families30: Gemma 4 (SGLang from 0.5.11, after the default 0.5.9).
    ("h200-8x-nvlink", "sglang", 2, "version = \"0.5.23\""),
    // families32: Kimi-K3 (SGLang from 0.5.17; 1.5 TB of weights need 16 ranks; a served length the
    // pool holds, as the example's 131,072).
    (
        "h200-16x-2node-ib",
        "sglang",
        16,
        "version = \"0.5.23\"\ncontext_length = 131072",
    ),
    // families40: MiMo-V2.5-Pro (SGLang from 0.5.11; its fused q/k/v loads at a tp dividing 8, and
    // 120.55 GiB of weights a rank need all 8 H200s: the example's shape).
    ("h200-8x-nvlink", "sglang", 8, "version = \"0.5.23\""),
];

/// One garbage value for a JSON leaf.
#[derive(Debug, Clone, Copy)]
enum Mutation {
    Int(i64),
    U64Max,
    Float(f64),
    /// The string "NaN".
    NanString,
    /// Python's bare `NaN` / `Infinity` (not JSON; `json.dumps` writes them).
    NanLiteral,
    InfLiteral,
    /// An int where a float stands and a float where an int stands (else 7).
    SwapNumberType,
    Str(&'static str),
    Bool,
    Null,
    Array,
    Object,
    /// A list one entry short (a non-list becomes `[]`).
    ListShort,
    /// A list two entries long (its first entry repeated; a non-list becomes `[1, 1]`).
    ListLong,
    Delete,
}

const MUTATIONS: &[Mutation] = &[
    Mutation::Int(0),
    Mutation::Int(-1),
    Mutation::Int(1),
    Mutation::Int(3),
    Mutation::Int(999_983),
    Mutation::Int(1 << 20),
    Mutation::Int(i64::MAX),
    Mutation::U64Max,
    Mutation::Float(1e308),
    Mutation::Float(-1e-308),
    Mutation::NanString,
    Mutation::NanLiteral,
    Mutation::InfLiteral,
    Mutation::SwapNumberType,
    Mutation::Str(""),
    Mutation::Str("x"),
    Mutation::Bool,
    Mutation::Null,
    Mutation::Array,
    Mutation::Object,
    Mutation::ListShort,
    Mutation::ListLong,
    Mutation::Delete,
];

/// Marker strings replaced by the bare literals after serializing.
const NAN_MARK: &str = "__cfgfuzz_nan__";
const INF_MARK: &str = "__cfgfuzz_inf__";

/// Inconsistent but well-typed shapes, on the text model's section (`text_config` when present).
#[derive(Debug, Clone, Copy)]
enum Shape {
    /// `num_attention_heads` + 1 (the width no longer divides when `head_dim` is derived).
    HeadsPlusOne,
    /// `hidden_size` + 1.
    HiddenPlusOne,
    /// `head_dim` = 7.
    OddHeadDim,
    /// `num_key_value_heads` = 2 × `num_attention_heads`.
    KvAboveHeads,
    /// `num_experts_per_tok` = the routed experts + 1.
    TopKAboveExperts,
    IntermediateZero,
    VocabZero,
    /// `layer_types` (or `layers_block_type`, `hybrid_override_pattern`'s list forms) one short.
    LayerTypesShort,
}

const SHAPES: &[Shape] = &[
    Shape::HeadsPlusOne,
    Shape::HiddenPlusOne,
    Shape::OddHeadDim,
    Shape::KvAboveHeads,
    Shape::TopKAboveExperts,
    Shape::IntermediateZero,
    Shape::VocabZero,
    Shape::LayerTypesShort,
];

/// One step of a path into the JSON.
#[derive(Debug, Clone)]
enum Seg {
    Key(String),
    Idx(usize),
}

fn show(path: &[Seg]) -> String {
    let mut s = String::new();
    for p in path {
        match p {
            Seg::Key(k) if s.is_empty() => s.push_str(k),
            Seg::Key(k) => {
                s.push('.');
                s.push_str(k);
            }
            Seg::Idx(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Paths of the leaves of `v`, the objects and lists themselves, and the first three entries of
/// each list.
fn leaves(v: &Value, path: &mut Vec<Seg>, out: &mut Vec<Vec<Seg>>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                path.push(Seg::Key(k.clone()));
                leaves(x, path, out);
                path.pop();
            }
        }
        Value::Array(a) => {
            for (i, x) in a.iter().take(3).enumerate() {
                path.push(Seg::Idx(i));
                leaves(x, path, out);
                path.pop();
            }
        }
        _ => {}
    }
    if !path.is_empty() {
        out.push(path.clone());
    }
}

/// The value at `path`'s parent and its last step.
fn parent<'a>(v: &'a mut Value, path: &[Seg]) -> Option<&'a mut Value> {
    let mut cur = v;
    for p in &path[..path.len().checked_sub(1)?] {
        cur = match p {
            Seg::Key(k) => cur.get_mut(k.as_str())?,
            Seg::Idx(i) => cur.get_mut(*i)?,
        };
    }
    Some(cur)
}

fn mutate(v: &mut Value, path: &[Seg], m: Mutation) {
    let Some(par) = parent(v, path) else {
        return;
    };
    let last = &path[path.len() - 1];
    let old = match last {
        Seg::Key(k) => par.get(k.as_str()).cloned(),
        Seg::Idx(i) => par.get(*i).cloned(),
    };
    let new = match m {
        Mutation::Int(i) => Value::from(i),
        Mutation::U64Max => Value::from(u64::MAX),
        Mutation::Float(f) => Value::from(f),
        Mutation::NanString => Value::from("NaN"),
        Mutation::NanLiteral => Value::from(NAN_MARK),
        Mutation::InfLiteral => Value::from(INF_MARK),
        Mutation::SwapNumberType => match old.as_ref().and_then(Value::as_f64) {
            Some(f) if old.as_ref().is_some_and(Value::is_f64) => Value::from(f.round() as i64),
            Some(f) => Value::from(f + 0.5),
            None => Value::from(7),
        },
        Mutation::Str(s) => Value::from(s),
        Mutation::Bool => Value::Bool(true),
        Mutation::Null => Value::Null,
        Mutation::Array => serde_json::json!([1, "a"]),
        Mutation::Object => serde_json::json!({"x": 1}),
        Mutation::ListShort => match old {
            Some(Value::Array(mut a)) => {
                a.pop();
                Value::Array(a)
            }
            _ => serde_json::json!([]),
        },
        Mutation::ListLong => match old {
            Some(Value::Array(mut a)) => {
                let first = a.first().cloned().unwrap_or(Value::from(1));
                a.extend([first.clone(), first]);
                Value::Array(a)
            }
            _ => serde_json::json!([1, 1]),
        },
        Mutation::Delete => {
            match (par, last) {
                (Value::Object(m), Seg::Key(k)) => {
                    m.remove(k);
                }
                (Value::Array(a), Seg::Idx(i)) if *i < a.len() => {
                    a.remove(*i);
                }
                _ => {}
            }
            return;
        }
    };
    match (par, last) {
        (Value::Object(m), Seg::Key(k)) => {
            m.insert(k.clone(), new);
        }
        (Value::Array(a), Seg::Idx(i)) if *i < a.len() => a[*i] = new,
        _ => {}
    }
}

/// The text model's section: `text_config` (or `llm_config`) when present, else the top level.
fn text_section(v: &mut Value) -> Option<&mut Map<String, Value>> {
    let nested = ["text_config", "llm_config"]
        .into_iter()
        .find(|k| v.get(*k).is_some_and(Value::is_object));
    match nested {
        Some(k) => v.get_mut(k)?.as_object_mut(),
        None => v.as_object_mut(),
    }
}

/// Applies `s`; false when the model has no key for it.
fn shape(v: &mut Value, s: Shape) -> bool {
    let Some(t) = text_section(v) else {
        return false;
    };
    let int = |t: &Map<String, Value>, k: &str| t.get(k).and_then(Value::as_u64);
    let set = |t: &mut Map<String, Value>, k: &str, x: u64| {
        t.insert(k.to_string(), Value::from(x));
    };
    match s {
        Shape::HeadsPlusOne | Shape::HiddenPlusOne => {
            let k = if matches!(s, Shape::HeadsPlusOne) {
                "num_attention_heads"
            } else {
                "hidden_size"
            };
            let Some(x) = int(t, k) else { return false };
            set(t, k, x + 1);
        }
        Shape::OddHeadDim => set(t, "head_dim", 7),
        Shape::KvAboveHeads => {
            let Some(h) = int(t, "num_attention_heads") else {
                return false;
            };
            set(t, "num_key_value_heads", 2 * h);
        }
        Shape::TopKAboveExperts => {
            let experts = [
                "num_local_experts",
                "num_experts",
                "n_routed_experts",
                "moe_num_experts",
            ]
            .into_iter()
            .find_map(|k| int(t, k));
            let Some(e) = experts else { return false };
            set(t, "num_experts_per_tok", e + 1);
        }
        Shape::IntermediateZero => set(t, "intermediate_size", 0),
        Shape::VocabZero => set(t, "vocab_size", 0),
        Shape::LayerTypesShort => {
            let list = ["layer_types", "layers_block_type", "block_configs"]
                .into_iter()
                .find(|k| t.get(*k).is_some_and(Value::is_array));
            let Some(k) = list else { return false };
            if let Some(Value::Array(a)) = t.get_mut(k) {
                a.pop();
            }
        }
    }
    true
}

/// JSON text with the NaN/Infinity markers written as Python's bare literals.
fn render(v: &Value) -> String {
    serde_json::to_string_pretty(v)
        .expect("serialize")
        .replace(&format!("\"{NAN_MARK}\""), "NaN")
        .replace(&format!("\"{INF_MARK}\""), "Infinity")
}

/// Every bundled model folder with a config.json, sorted.
fn models() -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(scenario("models"))
        .expect("models dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.join("config.json").exists())
        .collect();
    v.sort();
    v
}

/// A scenario running the preset directory `dir` on `host`; with `bare`, its config.json alone
/// (`[model] config = "<dir>/config.json"`: bf16 weights, no quant.toml).
fn scenario_text(dir: &Path, host: (&str, &str, u32, &str), bare: bool) -> String {
    let (hw, engine, tp, extra) = host;
    let model = if bare {
        format!(
            "config = {}",
            Value::from(dir.join("config.json").display().to_string())
        )
    } else {
        format!("preset = {}", Value::from(dir.display().to_string()))
    };
    format!(
        "seed = 1\n[hardware]\npreset = \"{hw}\"\n[model]\n{model}\n[engine]\nname = \"{engine}\"\n\
         tp = {tp}\n{extra}\n[workload]\nconcurrency = 2\nnum_requests = 2\nprompt_len = 128\noutput_len = 8\n"
    )
}

/// Writes `model`'s folder into `dir/model` with `config` as its config.json.
fn write_model(dir: &Path, model: &Path, config: &str) -> PathBuf {
    let to = dir.join("model");
    std::fs::create_dir_all(&to).expect("model dir");
    for e in std::fs::read_dir(model).expect("model folder") {
        let p = e.expect("entry").path();
        let name = p.file_name().expect("name").to_string_lossy().into_owned();
        if name != "config.json" && !name.ends_with(".md") && p.is_file() {
            std::fs::copy(&p, to.join(&name)).expect("copy");
        }
    }
    std::fs::write(to.join("config.json"), config).expect("write config");
    to
}

/// The first host of [`HOSTS`] on which `model`'s own config runs (exit 0).
fn host_of(dir: &Path, model: &Path) -> Option<(&'static str, &'static str, u32, &'static str)> {
    let text = std::fs::read_to_string(model.join("config.json")).expect("config");
    let m = write_model(dir, model, &text);
    HOSTS.iter().copied().find(|h| {
        let f = dir.join("host.toml");
        std::fs::write(&f, scenario_text(&m, *h, false)).expect("write");
        let o = catch_unwind(AssertUnwindSafe(|| {
            tpsim(&["run", &f.display().to_string(), "--json"])
        }));
        o.is_ok_and(|o| o.code == 0)
    })
}

/// One mutated config through [`run_case`] (as a preset directory, or with `bare` as `[model]
/// config`), plus: a JSON type error names its key.
fn case(
    dir: &Path,
    model: &Path,
    host: (&str, &str, u32, &str),
    bare: bool,
    config: &str,
    key: &str,
) -> Result<(), String> {
    let m = write_model(dir, model, config);
    let first = run_case(dir, "s.toml", &scenario_text(&m, host, bare))?;
    if first.contains("could not be parsed") && !(first.contains("key `") && first.contains(key)) {
        return Err(format!("a type error not naming the key `{key}`: {first}"));
    }
    if first.contains("`?`") || first.contains("key `.`") {
        return Err(format!("a placeholder for a key: {first}"));
    }
    Ok(())
}

fn cases_to_run() -> Option<usize> {
    std::env::var("TPSIM_GARBAGE_CONFIG_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
}

type Loaded = (PathBuf, Value, (&'static str, &'static str, u32, &'static str));

/// Every bundled model with its parsed config and host; a model none of [`HOSTS`] runs fails.
fn loaded(dir: &Path) -> Vec<Loaded> {
    let mut missing = Vec::new();
    let mut out = Vec::new();
    for m in models() {
        let text = std::fs::read_to_string(m.join("config.json")).expect("config");
        let v: Value = serde_json::from_str(&tpsim_model::llm::non_finite_to_null(&text)).expect("json");
        match host_of(dir, &m) {
            Some(h) => out.push((m, v, h)),
            None => missing.push(m.display().to_string()),
        }
    }
    assert!(missing.is_empty(), "no host runs: {missing:?}");
    assert!(out.len() > 80, "bundled models: {}", out.len());
    out
}

/// The seeded sample of (model, JSON leaf, mutation) cases.
#[test]
fn every_bundled_model_config_survives_garbage_in_its_keys() {
    let dir = scratch("keys");
    let models = loaded(&dir);
    let mut all: Vec<(usize, Vec<Seg>, usize)> = Vec::new();
    for (mi, (_, v, _)) in models.iter().enumerate() {
        let mut l = Vec::new();
        leaves(v, &mut Vec::new(), &mut l);
        for p in l {
            for k in 0..MUTATIONS.len() {
                all.push((mi, p.clone(), k));
            }
        }
    }
    assert!(all.len() > 50_000, "{} cases", all.len());
    let n = cases_to_run().unwrap_or(DEFAULT_CASES).min(all.len());
    let mut rng = ChaCha8Rng::seed_from_u64(SEED);
    let (sample, _) = all.partial_shuffle(&mut rng, n);
    let mut defects = Vec::new();
    for (i, (mi, path, k)) in sample.iter().enumerate() {
        // Every fourth case reads the config.json alone (`[model] config`), the rest the folder.
        let bare = i % 4 == 3;
        let (model, v, host) = &models[*mi];
        let mut v = v.clone();
        mutate(&mut v, path, MUTATIONS[*k]);
        let key = path
            .iter()
            .filter_map(|s| match s {
                Seg::Key(k) => Some(k.as_str()),
                Seg::Idx(_) => None,
            })
            .next_back()
            .unwrap_or("");
        if let Err(e) = case(&dir, model, *host, bare, &render(&v), key) {
            let name = model.file_name().expect("name").to_string_lossy();
            let how = if bare { " (model.config)" } else { "" };
            found(
                &mut defects,
                format!("{name}{how} {} {:?}: {e}", show(path), MUTATIONS[*k]),
            );
        }
    }
    report(&defects, n);
}

/// [`SHAPES`] on every model: one drawn per model, each with `TPSIM_GARBAGE_CONFIG_CASES` set.
#[test]
fn inconsistent_shapes_are_refused_or_bounded() {
    let dir = scratch("shapes");
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 1);
    let every = cases_to_run().is_some();
    let mut defects = Vec::new();
    let mut ran = 0;
    for (model, v, host) in loaded(&dir) {
        let picks: Vec<usize> = if every {
            (0..SHAPES.len()).collect()
        } else {
            vec![rng.random_range(0..SHAPES.len())]
        };
        for i in picks {
            let mut v = v.clone();
            if !shape(&mut v, SHAPES[i]) {
                continue;
            }
            ran += 1;
            if let Err(e) = case(&dir, &model, host, false, &render(&v), "") {
                let name = model.file_name().expect("name").to_string_lossy();
                found(&mut defects, format!("{name} {:?}: {e}", SHAPES[i]));
            }
        }
    }
    assert!(ran > 40, "{ran} shape cases");
    report(&defects, ran);
}

/// The defects this sweep found (cfgfuzz), each pinned: the mutation and the message now given.
#[test]
fn the_config_defects_found_stay_fixed() {
    let dir = scratch("found");
    // (model, JSON path as keys, value, text the first stderr line must contain)
    let cases: &[(&str, &[&str], Value, &str)] = &[
        // Was "key `engine.context_length`: 0: …", a key the scenario never wrote.
        (
            "qwen3-8b",
            &["max_position_embeddings"],
            Value::from(0),
            "key `model.preset`: config.json field `max_position_embeddings` = 0 is invalid",
        ),
        // A wrong JSON type named only its line and column ("invalid type: string \"x\", expected
        // u64 at line 1 column 501"); the key path is named now, nested ones with their parent.
        (
            "qwen3.5-9b",
            &["text_config", "num_attention_heads"],
            Value::from("x"),
            "could not be parsed: key `text_config.num_attention_heads`: invalid type: string \"x\"",
        ),
        // Was a panic (multiply with overflow in vLLM's RoPE cache size, max_position × rotary dim).
        (
            "exaone-4.0-32b",
            &["max_position_embeddings"],
            Value::from(i64::MAX),
            "config.json field `max_position_embeddings` = 9223372036854775807 is invalid (expected a context \
             length of 1 to 4294967296 tokens)",
        ),
        // Was a panic (multiply with overflow summing the layer's bytes): a shared width of 2^62
        // made 2^53 shared experts.
        (
            "ling-mini-2.0",
            &["moe_shared_expert_intermediate_size"],
            Value::from(1_u64 << 62),
            "config.json field `moe_shared_expert_intermediate_size × num_shared_experts` = 4611686018427387904 \
             is invalid (expected a multiple of moe_intermediate_size (512) no larger than 1048576)",
        ),
        // Was a panic (multiply with overflow rounding the MLP width up to 256).
        (
            "llama-3.1-nemotron-ultra-253b-v1",
            &["block_configs", "2", "ffn", "ffn_mult"],
            Value::from(4.6e18),
            "config.json field `block_configs[2].ffn.ffn_mult` = 4.6e+18 is invalid",
        ),
        (
            "command-r7b-12-2024",
            &["sliding_window_pattern"],
            Value::from(4.5),
            "could not be parsed: key `sliding_window_pattern`",
        ),
    ];
    let mut bad = Vec::new();
    // A config.json cut short: was "key `?`: EOF while parsing a value" (the parser's placeholder
    // for a key not read yet); now the line and column alone.
    let model = PathBuf::from(scenario("models/qwen3-8b"));
    let m = write_model(&dir, &model, "{\"architectures\": [\"Qwen3ForCausalLM\"],\n");
    let f = dir.join("s.toml");
    std::fs::write(&f, scenario_text(&m, HOSTS[0], true)).expect("write");
    let o = tpsim(&["run", &f.display().to_string(), "--json"]);
    let want =
        "key `model.config`: config.json could not be parsed: EOF while parsing a value at line 2 column 0";
    if o.code != 2 || !o.stderr.contains(want) {
        bad.push(format!(
            "truncated config.json: exit {} (want 2 and `{want}`): {}",
            o.code, o.stderr
        ));
    }
    // Every width at its bound on vLLM: was a panic (add with overflow in the caching allocator's
    // replay of the load order); now refused for its size.
    let model = PathBuf::from(scenario("models/qwen3-235b-a22b"));
    let text = std::fs::read_to_string(model.join("config.json")).expect("config");
    let mut v: Value = serde_json::from_str(&text).expect("json");
    for (k, x) in [
        ("num_experts", 1_u64 << 20),
        ("hidden_size", 1 << 20),
        ("moe_intermediate_size", 1 << 20),
        ("num_hidden_layers", 10_000),
    ] {
        v[k] = Value::from(x);
    }
    let m = write_model(&dir, &model, &render(&v));
    let f = dir.join("s.toml");
    std::fs::write(&f, scenario_text(&m, ("h200-8x-nvlink", "vllm", 8, ""), false)).expect("write");
    let o = tpsim(&["run", &f.display().to_string(), "--json"]);
    let want = "config.json describes 18446744073709551615 bytes of weights (unsharded); tpsim models at most \
                1125899906842624 bytes";
    if o.code != 2 || !o.stderr.contains(want) {
        bad.push(format!(
            "qwen3-235b-a22b at the bounds on vLLM: exit {} (want 2 and `{want}`): {}",
            o.code, o.stderr
        ));
    }
    // A preset folder's quant.toml with a wrong type: was `error: <model DIR/quant.toml>:2:18: …`,
    // a pseudo-name; now the file's own path.
    let model = PathBuf::from(scenario("models/llama-3.1-8b"));
    let config = std::fs::read_to_string(model.join("config.json")).expect("config");
    let m = write_model(&dir, &model, &config);
    std::fs::write(m.join("quant.toml"), "dtype = \"bf16\"\nkv_cache_dtype = 0\n").expect("write");
    let f = dir.join("s.toml");
    std::fs::write(&f, scenario_text(&m, HOSTS[0], false)).expect("write");
    let o = tpsim(&["run", &f.display().to_string(), "--json"]);
    let want = format!(
        "error: {}:2:18: key `kv_cache_dtype`",
        m.join("quant.toml").display()
    );
    if o.code != 2 || !o.stderr.starts_with(&want) {
        bad.push(format!(
            "quant.toml kv_cache_dtype = 0: exit {} (want 2 and `{want}`): {}",
            o.code, o.stderr
        ));
    }
    for (name, path, val, want) in cases {
        let model = PathBuf::from(scenario(&format!("models/{name}")));
        let text = std::fs::read_to_string(model.join("config.json")).expect("config");
        let mut v: Value = serde_json::from_str(&text).expect("json");
        let segs: Vec<Seg> = path
            .iter()
            .map(|k| k.parse().map_or_else(|_| Seg::Key((*k).to_string()), Seg::Idx))
            .collect();
        if let Some(Value::Object(m)) = parent(&mut v, &segs) {
            m.insert(path[path.len() - 1].to_string(), val.clone());
        }
        let m = write_model(&dir, &model, &render(&v));
        let f = dir.join("s.toml");
        std::fs::write(&f, scenario_text(&m, HOSTS[0], false)).expect("write");
        let o = tpsim(&["run", &f.display().to_string(), "--json"]);
        let first = o.stderr.lines().next().unwrap_or("");
        if o.code != 2 || !first.contains(want) {
            bad.push(format!(
                "{name} {path:?} = {val}: exit {} (want 2 and `{want}`): {first}",
                o.code
            ));
        }
    }
    // Python's bare `Infinity` in a checkpoint read with `from = "config"`: the quantization
    // reading refused it as "config.json is not JSON" while the model reading takes it as null
    // (Nemotron-H's `time_step_limit`); both read it as null now, and the FP8 model runs.
    let model = PathBuf::from(scenario("models/qwen3-32b-fp8"));
    let text = std::fs::read_to_string(model.join("config.json")).expect("config");
    let mut v: Value = serde_json::from_str(&text).expect("json");
    v["time_step_limit"] = serde_json::json!([0.0, INF_MARK]);
    let m = write_model(&dir, &model, &render(&v));
    assert!(
        std::fs::read_to_string(m.join("config.json"))
            .expect("read")
            .contains("Infinity")
    );
    let f = dir.join("s.toml");
    std::fs::write(&f, scenario_text(&m, HOSTS[0], false)).expect("write");
    let o = tpsim(&["run", &f.display().to_string(), "--json"]);
    if o.code != 0 {
        bad.push(format!(
            "qwen3-32b-fp8 with Infinity: exit {}: {}",
            o.code, o.stderr
        ));
    }
    assert!(bad.is_empty(), "{}", bad.join("\n"));
}

/// Whole-file garbage: every model's config.json cut at a point drawn from the stream, and one
/// model's replaced by an empty file, a list, `null`, a string, a byte-order mark before the
/// object and bytes that are not UTF-8; each read both ways (folder and `[model] config`). All must
/// be refused (exit 2) naming the file's key; none may panic.
#[test]
fn whole_file_garbage_is_refused() {
    let dir = scratch("files");
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 2);
    let mut defects = Vec::new();
    let mut ran = 0;
    let mut check = |model: &Path, text: &[u8], what: &str, defects: &mut Vec<String>| {
        for bare in [false, true] {
            let m = write_model(&dir, model, "");
            std::fs::write(m.join("config.json"), text).expect("write");
            let f = dir.join("s.toml");
            std::fs::write(&f, scenario_text(&m, HOSTS[0], bare)).expect("write");
            let f = f.display().to_string();
            let o = catch_unwind(AssertUnwindSafe(|| tpsim(&["run", &f, "--json"])));
            let key = if bare {
                "key `model.config`"
            } else {
                "key `model.preset`"
            };
            let name = model.file_name().expect("name").to_string_lossy();
            match o {
                Err(_) => found(defects, format!("{name} {what} (bare {bare}): panicked")),
                Ok(o)
                    if o.code != 2
                        || !o.stderr.starts_with(&format!("error: {f}"))
                        || !o.stderr.contains(key) =>
                {
                    found(
                        defects,
                        format!("{name} {what} (bare {bare}): exit {}: {}", o.code, o.stderr),
                    )
                }
                Ok(_) => {}
            }
            ran += 1;
        }
    };
    for model in models() {
        let text = std::fs::read(model.join("config.json")).expect("config");
        // Before the closing brace: any such prefix is not a complete object.
        let end = text.iter().rposition(|b| *b == b'}').expect("a closing brace");
        let cut = rng.random_range(1..end);
        check(&model, &text[..cut], &format!("cut at byte {cut}"), &mut defects);
    }
    let model = PathBuf::from(scenario("models/llama-3.1-8b"));
    let text = std::fs::read(model.join("config.json")).expect("config");
    let bom: Vec<u8> = [&[0xEF, 0xBB, 0xBF][..], &text].concat();
    let latin: Vec<u8> = [&text[..10], &[0xFF, 0xFE][..], &text[10..]].concat();
    for (what, t) in [
        ("empty", &b""[..]),
        ("a list", &b"[1, 2]"[..]),
        ("null", &b"null"[..]),
        ("a string", &b"\"config\""[..]),
        ("a byte-order mark", &bom[..]),
        ("non-UTF-8 bytes", &latin[..]),
    ] {
        check(&model, t, what, &mut defects);
    }
    report(&defects, ran);
}

/// Keys a quant.toml may hold that a preset's file may lack (`tpsim_model::llm::Quantization`).
const QUANT_KEYS: &[&str] = &[
    "dtype",
    "block_size",
    "group_size",
    "scale_dtype",
    "zero_point",
    "per_channel",
    "experts",
    "kv_cache_dtype",
];

/// A preset folder's `quant.toml` with garbage: each of its keys and of [`QUANT_KEYS`] given
/// `garbage_in`'s mutations (a seeded sample, [`DEFAULT_CASES`] / 2; the same variable scales it).
/// Pass: exit 2 whose first line names the scenario or the quant.toml's own path, and a key; or
/// `garbage_in`'s checks of a report.
#[test]
fn a_preset_folders_quant_toml_with_garbage_is_refused_or_bounded() {
    use crate::garbage_in::{MUTATIONS as TOML_MUTATIONS, leaves as toml_leaves, mutate as toml_mutate};
    let dir = scratch("quant");
    let models = loaded(&dir);
    let mut all = Vec::new();
    for (mi, (m, _, _)) in models.iter().enumerate() {
        let text = std::fs::read_to_string(m.join("quant.toml")).expect("quant.toml");
        let t: toml::Table = toml::from_str(&text).expect("quant.toml parses");
        let mut keys = Vec::new();
        toml_leaves(&t, "", &mut keys);
        keys.extend(QUANT_KEYS.iter().map(|k| k.to_string()));
        keys.sort();
        keys.dedup();
        for k in keys {
            for x in 0..TOML_MUTATIONS.len() {
                all.push((mi, t.clone(), k.clone(), x));
            }
        }
    }
    let n = cases_to_run().unwrap_or(DEFAULT_CASES).div_ceil(2).min(all.len());
    let mut rng = ChaCha8Rng::seed_from_u64(SEED ^ 3);
    let (sample, _) = all.partial_shuffle(&mut rng, n);
    let mut defects = Vec::new();
    for (mi, t, key, x) in sample.iter() {
        let (model, _, host) = &models[*mi];
        let mut t = t.clone();
        toml_mutate(&mut t, key, TOML_MUTATIONS[*x]);
        let config = std::fs::read_to_string(model.join("config.json")).expect("config");
        let m = write_model(&dir, model, &config);
        std::fs::write(m.join("quant.toml"), toml::to_string(&t).expect("toml")).expect("write");
        let text = scenario_text(&m, *host, false);
        let f = dir.join("s.toml");
        std::fs::write(&f, &text).expect("write");
        let fs = f.display().to_string();
        let q = m.join("quant.toml").display().to_string();
        let name = model.file_name().expect("name").to_string_lossy();
        let what = format!("{name} quant.toml {key} {:?}", TOML_MUTATIONS[*x]);
        match catch_unwind(AssertUnwindSafe(|| tpsim(&["run", &fs, "--json"]))) {
            Err(_) => found(&mut defects, format!("{what}: panicked")),
            Ok(o) if o.code == 2 => {
                let first = o.stderr.lines().next().unwrap_or("");
                let names_file =
                    first.starts_with(&format!("error: {fs}")) || first.starts_with(&format!("error: {q}"));
                let names_key = first.contains("key `") || first.contains("quantization `");
                if !(names_file && names_key) {
                    found(
                        &mut defects,
                        format!("{what}: exit 2 without the file and a key: {first}"),
                    );
                }
            }
            Ok(_) => {
                if let Err(e) = run_case(&dir, "s.toml", &text) {
                    found(&mut defects, format!("{what}: {e}"));
                }
            }
        }
    }
    report(&defects, n);
}

/// Valid but absurd models on both engines: every width of the text model at its bound (2^20,
/// 10^4 layers; refused: past `MAX_MODEL_BYTES`), and a large one under it (vocabulary 2^20,
/// width 2^16, 1,000 layers: a finite report, the engine refusing it for memory). Pass:
/// `garbage_in`'s checks.
#[test]
fn absurd_but_valid_models_are_refused_or_bounded() {
    let dir = scratch("absurd");
    let models = [
        "llama-3.1-8b",
        "qwen3-235b-a22b",
        "deepseek-v3",
        "qwen3-next-80b-a3b",
        "nemotron-h-47b",
        "gpt-oss-20b",
        "gemma-3-27b-it",
    ];
    let at_bound: &[(&str, u64)] = &[
        ("hidden_size", 1 << 20),
        ("intermediate_size", 1 << 20),
        ("moe_intermediate_size", 1 << 20),
        ("num_experts", 1 << 20),
        ("n_routed_experts", 1 << 20),
        ("num_local_experts", 1 << 20),
        ("vocab_size", 1 << 20),
        ("num_hidden_layers", 10_000),
    ];
    let large: &[(&str, u64)] = &[
        ("vocab_size", 1 << 20),
        ("hidden_size", 1 << 16),
        ("num_hidden_layers", 1000),
    ];
    let mut defects = Vec::new();
    let mut ran = 0;
    for name in models {
        let model = PathBuf::from(scenario(&format!("models/{name}")));
        let text = std::fs::read_to_string(model.join("config.json")).expect("config");
        let base: Value = serde_json::from_str(&tpsim_model::llm::non_finite_to_null(&text)).expect("json");
        for (what, set) in [("at the bounds", at_bound), ("large", large)] {
            let mut v = base.clone();
            if let Some(t) = text_section(&mut v) {
                for (k, x) in set {
                    if t.contains_key(*k) || *k == "num_hidden_layers" {
                        t.insert((*k).to_string(), Value::from(*x));
                    }
                }
                // Layer lists follow the layer count or the case is refused for their length.
                for k in ["layer_types", "layers_block_type"] {
                    t.remove(k);
                }
            }
            for engine in ["sglang", "vllm"] {
                ran += 1;
                let m = write_model(&dir, &model, &render(&v));
                let text = scenario_text(&m, ("h200-8x-nvlink", engine, 8, ""), false);
                if let Err(e) = run_case(&dir, "s.toml", &text) {
                    found(&mut defects, format!("{name} {what} on {engine}: {e}"));
                }
            }
        }
    }
    report(&defects, ran);
}
