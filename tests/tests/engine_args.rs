//! `tpsim engine-args` (issue #17 point 6): every bundled seed and example scenario yields a command
//! the engine accepts at its version — each flag one the engine defines, each value one it parses —
//! checked against the argument lists extracted from the engines' sources
//! (`tests/data/engine-args/*.txt`, written by `tests/data/engine-args/extract.py` from SGLang's
//! `server_args.py` and vLLM's `engine/arg_utils.py`); refusals carry the engine's own text; and the
//! book's scenario reference names the engine flag of every scenario key.

use crate::common::{data_path, edited_variant, scenario, scratch, tpsim};
use std::collections::BTreeMap;
use std::path::Path;
use tpsim::engine_args::{self, EngineCommand};
use tpsim::scenario::EngineKind;

/// One accepted flag: its value kind and, when the engine restricts them, the allowed values.
#[derive(Debug, Clone)]
pub(crate) struct Flag {
    pub(crate) kind: String,
    choices: Option<Vec<String>>,
}

/// The flags of `tests/data/engine-args/<file>`, every alias a key.
pub(crate) fn accepted(file: &str) -> BTreeMap<String, Flag> {
    let p = data_path(&format!("engine-args/{file}"));
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut m = BTreeMap::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let cols: Vec<&str> = line.split('\t').collect();
        let flag = Flag {
            kind: cols[1].to_string(),
            choices: cols.get(2).map(|c| c.split(',').map(String::from).collect()),
        };
        for name in cols[0].split('|') {
            m.insert(name.to_string(), flag.clone());
        }
    }
    m
}

/// The argument list a command is checked against: the engine's list for the newest release at or
/// below the version it targets (`tpsim::engine_args_versions::list_for`; a post-release such as
/// `0.5.8.post1` counts as its release: post-releases fix packaging and bugs, and the lists hold only
/// releases).
fn list_for(c: &EngineCommand) -> String {
    tpsim::engine_args_versions::list_for(c.engine, &c.version)
        .map(|l| l.file())
        .unwrap_or_else(|| panic!("no argument list at or below {:?} {}", c.engine, c.version))
}

/// Checks `args` (after the program; vLLM's first is the positional model) against `flags` as the
/// engine's argparse would: known flag, a value where one is taken, the value parses as its kind and
/// is one of the choices. Returns the first problem.
pub(crate) fn check_args(
    args: &[String],
    positional: usize,
    flags: &BTreeMap<String, Flag>,
) -> Result<(), String> {
    let mut i = positional;
    if args.len() < positional || args[..positional].iter().any(|a| a.starts_with('-')) {
        return Err(format!(
            "expected {positional} positional argument(s) first: {args:?}"
        ));
    }
    while i < args.len() {
        let name = &args[i];
        let f = flags
            .get(name)
            .ok_or_else(|| format!("unrecognized argument {name}"))?;
        if f.kind == "deprecated" {
            return Err(format!("{name} is deprecated"));
        }
        if f.kind == "flag" {
            i += 1;
            continue;
        }
        let v = args
            .get(i + 1)
            .ok_or_else(|| format!("{name}: expected one argument"))?;
        let ok = match f.kind.as_str() {
            // vLLM ≥ 0.14 parses `--max-model-len` with `human_readable_int_or_auto`
            // (`engine/arg_utils.py`): `auto` too (the lists give its kind as int).
            "int" if name == "--max-model-len" => v.parse::<i64>().is_ok() || v == "auto",
            "int" => v.parse::<i64>().is_ok(),
            "float" => v.parse::<f64>().is_ok_and(f64::is_finite),
            // args58: the JSON parsers by kind (extract.py `type_kind`), SGLang's human-readable ints.
            k if k.starts_with("json") => serde_json::from_str::<serde_json::Value>(v).is_ok(),
            "int-si" => tpsim::scenario::arg_types::sglang_human_int(v).is_ok(),
            _ => !v.starts_with("--"),
        };
        if !ok {
            return Err(format!("{name}: invalid {} value: '{v}'", f.kind));
        }
        if let Some(c) = &f.choices
            && !c.contains(v)
        {
            return Err(format!("{name}: invalid choice: '{v}' (choose from {c:?})"));
        }
        i += 2;
    }
    Ok(())
}

fn bundled(dir: &str) -> Vec<std::path::PathBuf> {
    let mut v: Vec<_> = std::fs::read_dir(scenario(dir))
        .expect("scenario dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_seed_and_example_command_is_one_the_engine_accepts() {
    let mut checked = 0;
    for file in bundled("seed").into_iter().chain(bundled("examples")) {
        let (_, c) = engine_args::for_file(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let flags = accepted(&list_for(&c));
        let positional = usize::from(c.engine == EngineKind::Vllm);
        check_args(&c.args, positional, &flags)
            .unwrap_or_else(|e| panic!("{}: {} {}: {e}", file.display(), list_for(&c), c.args.join(" ")));
        // Issue #17 point 4: every node's command of a multi-node launch as well.
        for n in c.nodes.iter().filter(|n| !n.args.is_empty()) {
            check_args(&n.args, positional, &flags)
                .unwrap_or_else(|e| panic!("{} node {}: {e}", file.display(), n.node));
        }
        // The model argument is a HuggingFace repository (owner/name), never the placeholder.
        let model = if positional == 1 {
            c.args[0].clone()
        } else {
            c.value_of("--model-path").expect("--model-path").to_string()
        };
        assert_eq!(model.split('/').count(), 2, "{}: model `{model}`", file.display());
        for k in c.env.keys() {
            assert!(
                ["NCCL_", "SGLANG_", "VLLM_", "CUDA_"]
                    .iter()
                    .any(|p| k.starts_with(p)),
                "{}: env {k}",
                file.display()
            );
        }
        checked += 1;
    }
    // 4 seed scenarios + 14 examples at the time of writing; more may be added, none removed.
    assert!(checked >= 18, "checked {checked} scenarios");
}

/// The checker itself rejects what argparse rejects (else the test above could not fail).
#[test]
fn the_checker_rejects_unknown_flags_bad_values_and_choices() {
    let sg = accepted("sglang-0.5.9.txt");
    let args = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(check_args(&args(&["--tp-size", "8", "--disable-cuda-graph"]), 0, &sg).is_ok());
    // SGLang accepts `--tensor-parallel-size` as an alias, but not vLLM's `--max-num-seqs`.
    assert!(check_args(&args(&["--tensor-parallel-size", "8"]), 0, &sg).is_ok());
    assert!(check_args(&args(&["--max-num-seqs", "8"]), 0, &sg).is_err());
    assert!(check_args(&args(&["--tp-size", "2.5"]), 0, &sg).is_err());
    assert!(check_args(&args(&["--mem-fraction-static", "most"]), 0, &sg).is_err());
    // server_args.py 0.5.9 kv-cache-dtype choices: auto, fp8_e5m2, fp8_e4m3, bf16, bfloat16, fp4_e2m1.
    assert!(check_args(&args(&["--kv-cache-dtype", "fp8_e4m3"]), 0, &sg).is_ok());
    assert!(check_args(&args(&["--kv-cache-dtype", "fp16"]), 0, &sg).is_err());
    assert!(check_args(&args(&["--speculative-algorithm", "eagle3"]), 0, &sg).is_err());
    let vl = accepted("vllm-0.11.0.txt");
    assert!(check_args(&args(&["m/x", "--block-size", "16", "--enforce-eager"]), 1, &vl).is_ok());
    // vLLM 0.11.0 `BlockSize` = Literal[1, 8, 16, 32, 64, 128].
    assert!(check_args(&args(&["m/x", "--block-size", "24"]), 1, &vl).is_err());
    assert!(check_args(&args(&["m/x", "--page-size", "16"]), 1, &vl).is_err());
    assert!(check_args(&args(&["--block-size", "16"]), 1, &vl).is_err());
}

/// The seed's NCCL_P2P_LEVEL scenario, by hand from its file: tp 8, --trust-remote-code (kimi-k2.5
/// is listed in hf-ids.toml `[trust_remote_code]`: vLLM recipe moonshotai/Kimi-K2.5.md), mem_fraction_static 0.88,
/// page_size 1, allreduce nccl (→ --disable-custom-all-reduce), EAGLE-3 with the Kimi-K2.5 drafter,
/// 3 steps, topk 1, 4 draft tokens, NCCL_P2P_LEVEL=SYS in the environment; no engine.version, so
/// SGLang 0.5.9 (`tpsim::engine_release::CURRENT_SGLANG`, release52), and the header says it is
/// assumed.
#[test]
fn seed_nccl_p2p_command() {
    let o = tpsim(&["engine-args", &scenario("seed/nccl-p2p.toml")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let cmd: Vec<&str> = o.stdout.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(
        cmd,
        [
            "NCCL_P2P_LEVEL=SYS \\",
            "python -m sglang.launch_server \\",
            "  --model-path moonshotai/Kimi-K2.5 \\",
            "  --tp-size 8 \\",
            "  --trust-remote-code \\",
            "  --mem-fraction-static 0.88 \\",
            "  --page-size 1 \\",
            "  --disable-custom-all-reduce \\",
            "  --speculative-algorithm EAGLE3 \\",
            "  --speculative-draft-model-path lightseekorg/kimi-k2.5-eagle3 \\",
            "  --speculative-num-steps 3 \\",
            "  --speculative-eagle-topk 1 \\",
            "  --speculative-num-draft-tokens 4",
        ]
    );
    assert!(o.stdout.starts_with("# "), "{}", o.stdout);
    assert!(
        o.stdout.lines().next().is_some_and(
            |l| l.ends_with(": SGLang 0.5.9 (assumed: engine.version not set; set it to pin another)")
        ),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("# [engine.observed]: simulator only"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout.contains("# speculative.acceptance: simulator only"),
        "{}",
        o.stdout
    );
}

/// vLLM: the positional model, `--tensor-parallel-size`, `--gpu-memory-utilization`, `--block-size`
/// from the gpt-oss example's file (tp 2, 0.9, 16), as JSON; no `--disable-custom-all-reduce`, since
/// the file leaves `engine.allreduce` to the engine (autoar).
#[test]
fn vllm_example_as_json() {
    let o = tpsim(&[
        "engine-args",
        &scenario("examples/gpt-oss-120b-rtx6000x2.toml"),
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    assert_eq!(j["engine"], "vllm");
    // No engine.version: vLLM 0.19.0 (`tpsim::engine_release::CURRENT_VLLM`), assumed.
    assert_eq!(j["version"], "0.19.0");
    assert_eq!(j["version_from_scenario"], false);
    assert_eq!(j["program"], serde_json::json!(["vllm", "serve"]));
    assert_eq!(
        j["args"],
        serde_json::json!([
            "openai/gpt-oss-120b",
            "--tensor-parallel-size",
            "2",
            "--gpu-memory-utilization",
            "0.9",
            "--block-size",
            "16"
        ])
    );
}

fn write(name: &str, text: &str) -> String {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p.display().to_string()
}

/// Settings that map to flags only when the file states them, and their values.
#[test]
fn stated_settings_map_to_flags() {
    let f = write(
        "flags",
        r#"
[hardware]
preset = "h100-sxm-1x"
[model]
preset = "llama-3.1-8b"
quantization = { dtype = "bf16", kv_cache_dtype = "fp8_e4m3" }
[engine]
tp = 1
context_length = 8192
max_running_requests = 16
page_size = 16
max_total_tokens = 100000
cuda_graph = false
disable_overlap_schedule = true
attention_backend = "flashinfer"
[engine.env]
NCCL_PROTO = "Simple"
"#,
    );
    let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
    assert_eq!(c.value_of("--context-length"), Some("8192"));
    assert_eq!(c.value_of("--max-running-requests"), Some("16"));
    assert_eq!(c.value_of("--page-size"), Some("16"));
    assert_eq!(c.value_of("--max-total-tokens"), Some("100000"));
    assert_eq!(c.value_of("--kv-cache-dtype"), Some("fp8_e4m3"));
    assert_eq!(c.value_of("--attention-backend"), Some("flashinfer"));
    assert!(c.args.contains(&"--disable-cuda-graph".to_string()));
    assert!(c.args.contains(&"--disable-overlap-schedule".to_string()));
    // tp 1: no allreduce, no allreduce flag.
    assert!(!c.args.iter().any(|a| a.contains("all-reduce")), "{:?}", c.args);
    // Not stated: left to SGLang's default, with tpsim's value in a note.
    assert_eq!(c.value_of("--mem-fraction-static"), None);
    assert!(
        c.notes
            .iter()
            .any(|n| n.starts_with("engine.mem_fraction_static not set"))
    );
    assert_eq!(c.env.get("NCCL_PROTO").map(String::as_str), Some("Simple"));
    check_args(&c.args, 0, &accepted(&list_for(&c))).expect("accepted by SGLang 0.5.9 (no engine.version)");
}

/// vLLM names: max_running_requests → --max-num-seqs, page_size → --block-size, max_total_tokens →
/// --num-gpu-blocks-override = 65,536 / 32 = 2048 blocks, cuda_graph = false → --enforce-eager, bf16
/// KV → `bfloat16` (vLLM's CacheDType spelling).
#[test]
fn vllm_names() {
    let f = write(
        "vllm",
        r#"
[hardware]
preset = "h100-sxm-1x"
[model]
preset = "llama-3.1-8b"
quantization = { dtype = "bf16", kv_cache_dtype = "bf16" }
[engine]
name = "vllm"
tp = 1
max_model_len = 4096
max_running_requests = 32
page_size = 32
max_total_tokens = 65536
cuda_graph = false
"#,
    );
    let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
    assert_eq!(c.args[0], "meta-llama/Llama-3.1-8B-Instruct");
    assert_eq!(c.value_of("--max-model-len"), Some("4096"));
    assert_eq!(c.value_of("--max-num-seqs"), Some("32"));
    assert_eq!(c.value_of("--block-size"), Some("32"));
    assert_eq!(c.value_of("--num-gpu-blocks-override"), Some("2048"));
    assert_eq!(c.value_of("--kv-cache-dtype"), Some("bfloat16"));
    assert!(c.args.contains(&"--enforce-eager".to_string()));
    check_args(&c.args, 1, &accepted(&list_for(&c))).expect("accepted by vLLM 0.19.0 (no engine.version)");
}

/// A context longer than the model's: SGLang's refusal (configs/model_config.py 0.5.9), exit 2.
/// Llama-3.1-8B's max_position_embeddings is 131,072.
#[test]
fn sglang_refuses_a_context_beyond_the_model() {
    let f = write(
        "ctx",
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\ntp = 1\ncontext_length = 200000\n",
    );
    let o = tpsim(&["engine-args", &f]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains(
            "User-specified context_length (200000) is greater than the derived context_length (131072)"
        ),
        "{}",
        o.stderr
    );
    assert!(o.stderr.contains("engine.context_length"), "{}", o.stderr);
    assert!(o.stdout.is_empty());
}

/// vLLM's refusal of a max_model_len beyond the model's (config/model.py 0.11.0), exit 2.
#[test]
fn vllm_refuses_a_max_model_len_beyond_the_model() {
    let f = write(
        "mml",
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\ntp = 1\nmax_model_len = 131073\n",
    );
    let o = tpsim(&["engine-args", &f]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("User-specified max_model_len (131073) is greater than the derived max_model_len"),
        "{}",
        o.stderr
    );
}

/// A config.json path maps to its directory (where the engine expects the weights).
#[test]
fn a_config_path_maps_to_its_directory() {
    let d = scratch("cfg");
    let cfg = std::fs::read_to_string(scenario("models/llama-3.1-8b/config.json")).expect("config");
    std::fs::create_dir_all(d.join("ckpt")).expect("dir");
    std::fs::write(d.join("ckpt/config.json"), cfg).expect("write");
    let f = d.join("s.toml");
    std::fs::write(
        &f,
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\nconfig = \"ckpt/config.json\"\n[engine]\ntp = 1\n",
    )
    .expect("write");
    let (_, c) = engine_args::for_file(&f).expect("command");
    assert_eq!(
        c.value_of("--model-path"),
        Some(d.join("ckpt").display().to_string().as_str())
    );
}

/// A missing file is bad input (exit 2), as for every command.
#[test]
fn missing_scenario_exits_2() {
    let o = tpsim(&["engine-args", "/nonexistent/scenario.toml"]);
    assert_eq!(o.code, 2);
}

/// The keys of a `Deserialize` struct, as serde's derive hands them to `deserialize_struct` (its
/// `FIELDS`): the probe records them and stops. Works for every section of the scenario schema,
/// `mergeable!` or not, and through `try_from` (the raw struct's keys).
fn keys_of<T: serde::de::DeserializeOwned>() -> Vec<&'static str> {
    #[derive(Debug)]
    struct Stop;
    impl std::fmt::Display for Stop {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("probe")
        }
    }
    impl std::error::Error for Stop {}
    impl serde::de::Error for Stop {
        fn custom<M: std::fmt::Display>(_: M) -> Self {
            Stop
        }
    }
    struct Probe<'a>(&'a mut Vec<&'static str>);
    impl<'de> serde::Deserializer<'de> for Probe<'_> {
        type Error = Stop;
        fn deserialize_any<V: serde::de::Visitor<'de>>(self, _: V) -> Result<V::Value, Stop> {
            Err(Stop)
        }
        fn deserialize_struct<V: serde::de::Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Stop> {
            self.0.extend_from_slice(fields);
            Err(Stop)
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes byte_buf option
            unit unit_struct newtype_struct seq tuple tuple_struct map enum identifier ignored_any
        }
    }
    let mut v = Vec::new();
    let _ = T::deserialize(Probe(&mut v));
    v
}

/// Every scenario key, with its TOML path (`<…>` for a table's own names).
fn every_scenario_key() -> Vec<String> {
    use tpsim::scenario as s;
    let sections: Vec<(&str, Vec<&str>)> = vec![
        ("", keys_of::<s::ScenarioFile>()),
        ("hardware.", keys_of::<s::HardwareSection>()),
        ("hardware.gpu.", s::GpuSection::FIELDS.to_vec()),
        ("hardware.topology.", keys_of::<s::TopologySection>()),
        (
            "hardware.topology.nodes.<name>.",
            keys_of::<tpsim_model::topo::NodeAttrs>(),
        ),
        ("hardware.params.", s::ParamsSection::FIELDS.to_vec()),
        ("hardware.compute.", keys_of::<s::ComputeSection>()),
        ("hardware.compute.curves.<class>.", keys_of::<s::CurveSection>()),
        ("hardware.fitted.<param>.", keys_of::<s::FittedSection>()),
        ("model.", keys_of::<s::ModelSection>()),
        ("model.quantization.", keys_of::<tpsim_model::llm::Quantization>()),
        ("engine.", keys_of::<s::EngineSection>()),
        ("engine.costs.", s::CostsSection::FIELDS.to_vec()),
        ("engine.observed.", keys_of::<s::ObservedSection>()),
        ("speculative.", keys_of::<s::SpeculativeSection>()),
        ("speculative.acceptance.", keys_of::<s::AcceptanceSection>()),
        ("workload.", keys_of::<s::WorkloadSection>()),
    ];
    let mut keys = Vec::new();
    for (prefix, fields) in sections {
        assert!(!fields.is_empty(), "the probe found no keys under `{prefix}`");
        keys.extend(fields.into_iter().map(|f| format!("{prefix}{f}")));
    }
    keys
}

/// The `## Engine flags by key` section of book/src/scenarios.md.
fn flags_section() -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("../book/src/scenarios.md");
    let md = std::fs::read_to_string(&p).expect("scenarios.md");
    let start = md
        .find("\n## Engine flags by key")
        .expect("a `## Engine flags by key` section in scenarios.md");
    let rest = &md[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    rest[..end].to_string()
}

/// Issue #17 "Done when": the scenario reference lists every key with the engine flag it mirrors.
/// Each row is `| `key` | SGLang | vLLM |`, each flag cell a `--flag`, an environment variable, or
/// "simulator only" / "(none)" with a reason.
#[test]
fn book_names_the_engine_flag_of_every_scenario_key() {
    let section = flags_section();
    let mut rows = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.split('|').map(str::trim).collect();
        let key = cells[1].trim_matches('`').to_string();
        rows.insert(key, (cells[2].to_string(), cells[3].to_string()));
    }
    let keys = every_scenario_key();
    // Spot checks that the probe sees what the schema declares.
    for k in [
        "seed",
        "engine.tp",
        "hardware.params.nccl_channel_bw",
        "model.quantization.kv_cache_dtype",
    ] {
        assert!(keys.iter().any(|x| x == k), "probe missed {k}: {keys:?}");
    }
    let missing: Vec<&String> = keys.iter().filter(|k| !rows.contains_key(*k)).collect();
    assert!(
        missing.is_empty(),
        "book/src/scenarios.md `## Engine flags by key` has no row for: {missing:?}"
    );
    for (k, (sg, vl)) in &rows {
        for cell in [sg, vl] {
            assert!(
                ["--", "simulator only", "(none", "_", "vllm serve", "positional"]
                    .iter()
                    .any(|w| cell.contains(w)),
                "row `{k}`: cell `{cell}` names no flag, environment variable or reason"
            );
        }
    }
    // The rows of the keys the engine-args command maps agree with its flags (SGLang, vLLM).
    for (k, sg, vl) in [
        ("engine.tp", "--tp-size", "--tensor-parallel-size"),
        ("engine.page_size", "--page-size", "--block-size"),
        (
            "engine.max_running_requests",
            "--max-running-requests",
            "--max-num-seqs",
        ),
        ("engine.cuda_graph", "--disable-cuda-graph", "--enforce-eager"),
    ] {
        let (a, b) = &rows[k];
        assert!(a.contains(sg) && b.contains(vl), "row `{k}`: {a} | {b}");
    }
}

/// Issue #17 (vrows): `engine.dtype` is `--dtype` in both engines, with the value as written (the
/// engine-args lists: `--dtype` choices auto, half, float16, bfloat16, float, float32 in SGLang 0.5.9
/// (sglang-0.5.9.txt line 26) and vLLM 0.19.0, the releases of a scenario without `engine.version`).
#[test]
fn engine_dtype_maps_to_dtype() {
    for (engine, list, positional) in [("vllm", "vllm-0.19.0.txt", 1), ("sglang", "sglang-0.5.9.txt", 0)] {
        let f = write(
            &format!("dtype-{engine}"),
            &format!(
                "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
                 [engine]\nname = \"{engine}\"\ntp = 1\ndtype = \"half\"\n"
            ),
        );
        let (s, c) = engine_args::for_file(Path::new(&f)).expect("command");
        assert_eq!(c.value_of("--dtype"), Some("half"), "{engine}");
        check_args(&c.args, positional, &accepted(list)).expect(list);
        // Llama-3.1-8B's checkpoint is bf16: the engines warn "Casting torch.bfloat16 to torch.float16."
        assert!(
            s.warnings
                .iter()
                .any(|w| w.ends_with("Casting torch.bfloat16 to torch.float16.")),
            "{:?}",
            s.warnings
        );
    }
}

/// Issue #17 point 4: pp 2 × tp 8 on two 8-GPU boxes launches on two nodes. SGLang: the same command
/// on each with `--nnodes 2 --node-rank R --dist-init-addr HEAD_NODE_IP:5000` (server_args.py 0.5.8);
/// vLLM 0.11: `ray start --head` on node 0, `ray start --address=HEAD_NODE_IP:6379` on node 1, and
/// `vllm serve … --distributed-executor-backend ray` on node 0 only (docs/serving/parallelism_scaling.md).
#[test]
fn multi_node_scenarios_launch_on_every_node() {
    let f = scenario("examples/deepseek-v3-pp2-tp8-sglang-h200x16-2node.toml");
    let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
    assert_eq!(c.nodes.len(), 2);
    for (r, n) in c.nodes.iter().enumerate() {
        let tail: Vec<&str> = n.args[n.args.len() - 6..].iter().map(String::as_str).collect();
        let rank = r.to_string();
        assert_eq!(
            tail,
            [
                "--nnodes",
                "2",
                "--node-rank",
                rank.as_str(),
                "--dist-init-addr",
                "HEAD_NODE_IP:5000"
            ]
        );
        assert!(n.setup.is_empty());
    }
    assert_eq!(c.args, c.nodes[0].args);
    let f = scenario("examples/deepseek-v3-pp2-tp8-vllm-h200x16-2node.toml");
    let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
    assert_eq!(c.value_of("--distributed-executor-backend"), Some("ray"));
    assert_eq!(c.value_of("--pipeline-parallel-size"), Some("2"));
    assert_eq!(c.nodes.len(), 2);
    assert_eq!(c.nodes[0].setup, ["ray start --head --port=6379"]);
    assert_eq!(c.nodes[0].args, c.args);
    assert_eq!(c.nodes[1].setup, ["ray start --address=HEAD_NODE_IP:6379"]);
    assert!(c.nodes[1].args.is_empty());
    // The text form prints a block per node.
    let o = tpsim(&["engine-args", &f]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("# node 0 (head)\nray start --head --port=6379\nvllm serve"),
        "{}",
        o.stdout
    );
    assert!(
        o.stdout
            .contains("# node 1\nray start --address=HEAD_NODE_IP:6379\n"),
        "{}",
        o.stdout
    );
    // A single-box scenario has no per-node list.
    let (_, c) = engine_args::for_file(Path::new(&scenario(
        "examples/llama-3.1-70b-pp2-tp4-rtx6000x8.toml",
    )))
    .expect("command");
    assert!(c.nodes.is_empty());
    assert_eq!(c.value_of("--nnodes"), None);
}

// Issue #18 point 1 (schedkeys): the scheduler keys become SGLang 0.5.9's / vLLM 0.11.0's flags.
#[test]
fn scheduler_keys_map_to_flags() {
    let f = write(
        "sched-sglang",
        r#"
[hardware]
preset = "h100-sxm-1x"
[model]
preset = "llama-3.1-8b"
[engine]
tp = 1
chunked_prefill_size = -1
max_prefill_tokens = 8192
schedule_conservativeness = 1.3
disable_radix_cache = true
schedule_policy = "fcfs"
enable_mixed_chunk = true
"#,
    );
    let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
    assert_eq!(c.value_of("--chunked-prefill-size"), Some("-1"));
    assert_eq!(c.value_of("--max-prefill-tokens"), Some("8192"));
    assert_eq!(c.value_of("--schedule-conservativeness"), Some("1.3"));
    assert_eq!(c.value_of("--schedule-policy"), Some("fcfs"));
    assert!(
        c.args.contains(&"--disable-radix-cache".to_string()),
        "{:?}",
        c.args
    );
    assert!(
        c.args.contains(&"--enable-mixed-chunk".to_string()),
        "{:?}",
        c.args
    );
    check_args(&c.args, 0, &accepted(&list_for(&c))).expect("accepted by SGLang 0.5.9 (no engine.version)");
    let vllm = |on: bool| {
        let f = write(
            &format!("sched-vllm-{on}"),
            &format!(
                "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\n\
                 name = \"vllm\"\ntp = 1\nenable_prefix_caching = {on}\nenable_chunked_prefill = true\n\
                 long_prefill_token_threshold = 256\n"
            ),
        );
        engine_args::for_file(Path::new(&f)).expect("command").1
    };
    let c = vllm(true);
    assert!(
        c.args.contains(&"--enable-prefix-caching".to_string()),
        "{:?}",
        c.args
    );
    assert!(
        c.args.contains(&"--enable-chunked-prefill".to_string()),
        "{:?}",
        c.args
    );
    assert_eq!(c.value_of("--long-prefill-token-threshold"), Some("256"));
    check_args(&c.args, 1, &accepted(&list_for(&c))).expect("accepted by vLLM 0.19.0 (no engine.version)");
    // false: the negative form argparse.BooleanOptionalAction adds (vLLM 0.11.0 arg_utils.py
    // `get_kwargs`), which the flag list (positive names only) does not hold.
    let c = vllm(false);
    assert!(
        c.args.contains(&"--no-enable-prefix-caching".to_string()),
        "{:?}",
        c.args
    );
    assert!(
        !c.args.contains(&"--enable-prefix-caching".to_string()),
        "{:?}",
        c.args
    );
}

/// Issue #17 (onlinequant): `engine.quantization` is `--quantization` in both engines, with the value
/// as written; `fp8` is one of the choices of SGLang 0.5.9 (sglang-0.5.9.txt line 27) and vLLM
/// 0.19.0 (vllm-0.19.0.txt line 20), the releases of a scenario without `engine.version`.
#[test]
fn engine_quantization_maps_to_quantization() {
    for (engine, list, positional) in [("vllm", "vllm-0.19.0.txt", 1), ("sglang", "sglang-0.5.9.txt", 0)] {
        let f = write(
            &format!("quantization-{engine}"),
            &format!(
                "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
                 [engine]\nname = \"{engine}\"\ntp = 1\nquantization = \"fp8\"\n"
            ),
        );
        let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
        assert_eq!(c.value_of("--quantization"), Some("fp8"), "{engine}");
        check_args(&c.args, positional, &accepted(list)).expect(list);
    }
    // Without the key, no flag: the engine reads the checkpoint's own method.
    let (_, c) = engine_args::for_file(Path::new(&scenario("examples/llama-3.1-8b-vllm-h100-tp4.toml")))
        .expect("command");
    assert_eq!(c.value_of("--quantization"), None);
}

/// Issue #17 (mambadtype): the state dtype keys print as vLLM's flags with the values given, and the
/// command passes the release's list (`vllm-0.19.0.txt` lines 102–103, `vllm-0.11.0.txt` lines
/// 93–94); a value outside the release's choices is bad input (exit 2, naming the key). release52:
/// vLLM 0.11.0 has no Qwen3.5 (registered from 0.17.0), so its case is Qwen3-Next
/// (`Qwen3NextForCausalLM` in 0.11.0's `registry.py`).
#[test]
fn mamba_dtypes_map_to_vllm_flags() {
    for (version, list, ssm, model) in [
        ("0.19.0", "vllm-0.19.0.txt", "float16", "qwen3.5-9b"),
        ("0.11.0", "vllm-0.11.0.txt", "float32", "qwen3-next-80b-a3b"),
    ] {
        let f = write(
            &format!("mamba-{version}"),
            &format!(
                "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"vllm\"\n\
                 version = \"{version}\"\ntp = 1\nmamba_cache_dtype = \"auto\"\nmamba_ssm_cache_dtype = \"{ssm}\"\n"
            ),
        );
        let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
        assert_eq!(c.value_of("--mamba-cache-dtype"), Some("auto"), "{version}");
        assert_eq!(c.value_of("--mamba-ssm-cache-dtype"), Some(ssm), "{version}");
        check_args(&c.args, 1, &accepted(list)).expect(list);
    }
    let f = write(
        "mamba-bad",
        "[hardware]\npreset = \"rtx-4090-1x\"\n[model]\npreset = \"qwen3-next-80b-a3b\"\n[engine]\nname = \"vllm\"\n\
         version = \"0.11.0\"\ntp = 1\nmamba_ssm_cache_dtype = \"float16\"\n",
    );
    let o = tpsim(&["engine-args", &f]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains("engine.mamba_ssm_cache_dtype")
            && o.stderr.contains("expected one of auto, float32"),
        "{}",
        o.stderr
    );
}

/// Issue #17 (hybridserve): under SGLang `engine.mamba_ssm_cache_dtype` prints as
/// `--mamba-ssm-dtype` with the value given, and the command passes the release's list
/// (`sglang-0.5.9.txt` line 197: float32, bfloat16, float16; `sglang-0.5.8.txt` line 194: float32,
/// bfloat16). release52: SGLang 0.5.8 has no Qwen3.5 (`models/qwen3_5.py` from 0.5.9), so its case is
/// Qwen3-Next (`models/qwen3_next.py` from 0.5.2); both releases are placed in the late-2025 era by
/// their version, so no `engine.costs.era` is needed.
#[test]
fn mamba_ssm_dtype_maps_to_sglang_flag() {
    for (version, list, ssm, model) in [
        ("0.5.9", "sglang-0.5.9.txt", "float16", "qwen3.5-9b"),
        ("0.5.8", "sglang-0.5.8.txt", "bfloat16", "qwen3-next-80b-a3b"),
    ] {
        let f = write(
            &format!("sglang-mamba-{version}"),
            &format!(
                "[hardware]\npreset = \"rtx-4090-2x-no-p2p\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \
                 \"sglang\"\nversion = \"{version}\"\ntp = 2\nmamba_ssm_cache_dtype = \"{ssm}\"\n"
            ),
        );
        let (_, c) = engine_args::for_file(Path::new(&f)).expect("command");
        assert_eq!(c.value_of("--mamba-ssm-dtype"), Some(ssm), "{version}");
        assert_eq!(c.value_of("--mamba-ssm-cache-dtype"), None, "{version}");
        check_args(&c.args, 0, &accepted(list)).expect(list);
    }
}

/// The `[model] preset` of a scenario file (`None`: a config path or a preset directory).
fn preset_of(file: &Path) -> Option<String> {
    let text = std::fs::read_to_string(file).expect("scenario");
    // Issue #17 (cmdkey): with `engine.command`, the preset its model path names (as loaded).
    let (raw, _) = tpsim::scenario::parse_file(&text, file).expect("scenario");
    raw.model?.preset.filter(|p| !p.contains('/'))
}

/// Issue #17 (trustcode): the presets decided in `scenarios/models/hf-ids.toml`
/// `[trust_remote_code]`, each from the source its comment names: `true` where the engine's recipe or
/// the model's page launches with `--trust-remote-code` (vLLM recipes moonshotai/Kimi-K2.5.md and
/// NVIDIA/Nemotron-3-Nano-30B-A3B.md; SGLang benchmark/deepseek_v3/README.md; MiniMax-M2.5's
/// docs/vllm_deploy_guide.md; the Kimi-VL and Ling-2.0 model pages), `false` where the recipe's
/// command has no flag (vLLM recipes Ernie/Ernie4.5.md, GLM/GLM5.md), absent where nothing settles
/// it (the phi presets, nemotron-nano-9b-v2, nemotron-h-47b, llama).
#[test]
fn trust_remote_code_table_holds_the_sourced_decisions() {
    use engine_args::preset_trust_remote_code as t;
    for p in [
        "kimi-k2.5",
        "kimi-vl-a3b",
        "deepseek-v3",
        "minimax-m2.5",
        "minimax-m2.5-awq",
        "minimax-m2.5-nvfp4",
        "ling-mini-2.0",
        "ling-flash-2.0",
        "nemotron-3-nano-30b-a3b",
    ] {
        assert_eq!(t(p), Some(true), "{p}");
    }
    for p in ["ernie-4.5-21b-a3b", "glm-5", "glm-5-fp8"] {
        assert_eq!(t(p), Some(false), "{p}");
    }
    for p in [
        "phi-3.5-mini",
        "phi-4-mini",
        "nemotron-nano-9b-v2",
        "llama-3.1-8b",
        "kimi-k2.5-eagle3",
    ] {
        assert_eq!(t(p), None, "{p}");
    }
    // Every entry names a bundled preset (a typo would silently never match).
    let text = std::fs::read_to_string(scenario("models/hf-ids.toml")).expect("hf-ids.toml");
    let v: toml::Value = toml::from_str(&text).expect("toml");
    let table = v["trust_remote_code"].as_table().expect("[trust_remote_code]");
    for name in table.keys() {
        assert!(
            Path::new(&scenario(&format!("models/{name}/config.json"))).exists(),
            "hf-ids.toml [trust_remote_code] names `{name}`, which is no bundled preset"
        );
    }
    // Every bundled preset whose config.json carries `auto_map` (repository code) is decided in the
    // table or named in its "Not listed" comment with the reason.
    for e in std::fs::read_dir(scenario("models")).expect("models") {
        let dir = e.expect("entry").path();
        let Ok(cfg) = std::fs::read_to_string(dir.join("config.json")) else {
            continue;
        };
        // Text, not JSON: some bundled configs hold `Infinity`, which strict JSON refuses.
        let name = dir.file_name().unwrap().to_string_lossy().to_string();
        if cfg.contains("\"auto_map\"") && !table.contains_key(&name) {
            let comment: String = text
                .split("[trust_remote_code]")
                .next()
                .unwrap()
                .lines()
                .rev()
                .take_while(|l| l.starts_with('#'))
                .collect();
            assert!(
                comment.contains(&name),
                "{name}: config.json has auto_map but hf-ids.toml neither decides it nor says why not"
            );
        }
    }
}

/// Every bundled seed and example command carries `--trust-remote-code` exactly when its preset is
/// listed `true` (and no bundled file overrides the table). kimi-k2.5-h200x8.toml (SGLang) and
/// ling-flash-2.0-vllm-rtx6000x4.toml (vLLM) carry it; glm-5-fp8-rtx6000x8.toml does not.
#[test]
fn bundled_commands_carry_trust_remote_code_as_listed() {
    let mut with = Vec::new();
    for file in bundled("seed").into_iter().chain(bundled("examples")) {
        let (_, c) = engine_args::for_file(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let listed = preset_of(&file)
            .and_then(|p| engine_args::preset_trust_remote_code(&p))
            .unwrap_or(false);
        let has = c.args.iter().any(|a| a == "--trust-remote-code");
        assert_eq!(has, listed, "{}: {}", file.display(), c.args.join(" "));
        for n in c.nodes.iter().filter(|n| !n.args.is_empty()) {
            assert_eq!(n.args.iter().any(|a| a == "--trust-remote-code"), listed);
        }
        if has {
            with.push(file.file_name().unwrap().to_string_lossy().to_string());
        }
    }
    for f in ["kimi-k2.5-h200x8.toml", "ling-flash-2.0-vllm-rtx6000x4.toml"] {
        assert!(with.iter().any(|w| w == f), "{f} lacks the flag: {with:?}");
    }
    assert!(!with.iter().any(|w| w == "glm-5-fp8-rtx6000x8.toml"));
}

/// `engine.trust_remote_code` overrides the table both ways, under both engines; turning it off for
/// a listed preset leaves a note.
#[test]
fn engine_trust_remote_code_overrides_the_table() {
    let run = |name: &str, preset: &str, engine: &str, key: &str| {
        let f = write(
            name,
            &format!(
                "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"{preset}\"\n[engine]\nname = \"{engine}\"\ntp = 1\n{key}\n"
            ),
        );
        engine_args::for_file(Path::new(&f)).expect("command").1
    };
    let has = |c: &EngineCommand| c.args.iter().any(|a| a == "--trust-remote-code");
    for engine in ["sglang", "vllm"] {
        // llama-3.1-8b is not listed: nothing by default, the flag when stated.
        let c = run(&format!("trc-llama-{engine}"), "llama-3.1-8b", engine, "");
        assert!(!has(&c), "{:?}", c.args);
        let c = run(
            &format!("trc-llama-on-{engine}"),
            "llama-3.1-8b",
            engine,
            "trust_remote_code = true",
        );
        assert!(has(&c), "{:?}", c.args);
        check_args(
            &c.args,
            usize::from(c.engine == EngineKind::Vllm),
            &accepted(&list_for(&c)),
        )
        .expect("accepted");
        // ling-mini-2.0 (listed true): off on request, with a note.
        let c = run(
            &format!("trc-ling-off-{engine}"),
            "ling-mini-2.0",
            engine,
            "trust_remote_code = false",
        );
        assert!(!has(&c), "{:?}", c.args);
        assert!(
            c.notes
                .iter()
                .any(|n| n.starts_with("engine.trust_remote_code = false")),
            "{:?}",
            c.notes
        );
    }
}

/// A `[model] config` whose config.json carries `auto_map` (the bundled deepseek-v3 one:
/// `configuration_deepseek.DeepseekV3Config`) gets a note, not the flag; one without (llama-3.1-8b)
/// gets neither.
#[test]
fn a_config_with_auto_map_gets_a_note() {
    for (preset, auto_map) in [("deepseek-v3", true), ("llama-3.1-8b", false)] {
        let d = scratch(&format!("trc-cfg-{preset}"));
        let cfg = std::fs::read_to_string(scenario(&format!("models/{preset}/config.json"))).expect("config");
        assert_eq!(cfg.contains("\"auto_map\""), auto_map, "{preset}");
        std::fs::create_dir_all(d.join("ckpt")).expect("dir");
        std::fs::write(d.join("ckpt/config.json"), cfg).expect("write");
        let f = d.join("s.toml");
        std::fs::write(
            &f,
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\nconfig = \"ckpt/config.json\"\n[engine]\ntp = 8\n",
        )
        .expect("write");
        let (_, c) = engine_args::for_file(&f).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert!(!c.args.iter().any(|a| a == "--trust-remote-code"), "{:?}", c.args);
        let noted = c.notes.iter().any(|n| n.contains("`auto_map`"));
        assert_eq!(noted, auto_map, "{preset}: {:?}", c.notes);
    }
}

/// Issue #17 (mistralfmt): Mistral Large 3's repository ships Mistral's `params.json`, no Hugging Face
/// config.json (the preset's README), and its model card launches vLLM with `--tokenizer_mode
/// mistral --config_format mistral --load_format mistral`: `tpsim engine-args` prints the three flags
/// under vLLM (once, also when an imported command already states one in `engine.extra_args`), and
/// none under SGLang, which maps the checkpoint by its path (SGLang 0.5.9 `hf_transformers_utils.py`
/// `get_config`). The whole vLLM command is then checked against vLLM 0.13.0's nearest bundled list
/// by `every_seed_and_example_command_is_one_the_engine_accepts`.
#[test]
fn mistral_format_checkpoint_gets_vllms_three_flags() {
    let o = tpsim(&[
        "engine-args",
        &scenario("examples/mistral-large-3-fp8-vllm-h200x8.toml"),
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    let args: Vec<String> = serde_json::from_value(j["args"].clone()).expect("args");
    let after = |f: &str| {
        let i = args
            .iter()
            .position(|a| a == f)
            .unwrap_or_else(|| panic!("{f} in {args:?}"));
        args[i + 1].clone()
    };
    for f in ["--tokenizer-mode", "--config-format", "--load-format"] {
        assert_eq!(after(f), "mistral", "{f}");
        assert_eq!(args.iter().filter(|a| *a == f).count(), 1, "{f} once");
    }
    assert!(
        o.stdout
            .contains("Mistral's format (params.json, no config.json)"),
        "{}",
        o.stdout
    );

    // Stated in engine.extra_args (as `tpsim import-command` writes it): printed once, as written.
    let f = edited_variant(
        "examples/mistral-large-3-fp8-vllm-h200x8.toml",
        "mistralfmt-stated",
        |t| {
            let e = t.replace(
                "max_model_len = 65536",
                "max_model_len = 65536\nextra_args = [\"--tokenizer-mode\", \"mistral\"]",
            );
            assert_ne!(e, t);
            e
        },
    );
    let o = tpsim(&["engine-args", &f, "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    let args: Vec<String> = serde_json::from_value(j["args"].clone()).expect("args");
    for f in ["--tokenizer-mode", "--config-format", "--load-format"] {
        assert_eq!(args.iter().filter(|a| *a == f).count(), 1, "{f} once in {args:?}");
    }

    // Under SGLang: none of them.
    let o = tpsim(&[
        "engine-args",
        &edited_variant(
            "examples/mistral-large-3-fp8-vllm-h200x8.toml",
            "mistralfmt-sglang",
            |t| {
                t.replace("name = \"vllm\"", "name = \"sglang\"")
                    .replace("version = \"0.13.0\"", "version = \"0.5.9\"")
                    .replace("max_model_len = 65536", "context_length = 65536")
            },
        ),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(!o.stdout.contains("--load-format"), "{}", o.stdout);
}
