//! args58 (issue #17): the engine-flag lists' value kinds as each release's parsers give them
//! (`tests/data/engine-args/extract.py` `type_kind` / `vllm_field_types`), the refusal texts of those
//! parsers, and vLLM's `mp` executor across boxes (launch-commands.tsv rows 134, 125 and 139).

use crate::cmdsurvey55::{options, row};
use crate::common::data_path;
use tpsim::engine_args_versions::list_for;
use tpsim::import_command_build as build;
use tpsim::scenario::EngineKind;

/// The kind and choices the bundled list of `engine` `version` gives `flag`.
fn spec(engine: EngineKind, version: &str, flag: &str) -> (String, Option<Vec<String>>) {
    let l = list_for(engine, version).expect("list");
    let s = l
        .flags()
        .get(flag)
        .cloned()
        .unwrap_or_else(|| panic!("{flag} in {}", l.file()));
    (s.kind, s.choices)
}

/// vLLM 0.11.0 `engine/arg_utils.py` `_compute_kwargs`: `MultiModalConfig.limit_per_prompt:
/// dict[str, int]` (config/multimodal.py) is a dict without str → `parse_type(json.loads)`; before
/// args58 the list said `int` (the `int` inside the dict's brackets). 0.34.0: the field is
/// `MultiModalDummyOptions` (a dict subclass, not builtin) → `str`. The speculative config is
/// re-typed `optional_type(json.loads)` after get_kwargs (0.10.1.1 – 0.34.0); the transfer
/// configs are config dataclasses → `parse_dataclass` (pydantic).
#[test]
fn vllm_kinds_follow_compute_kwargs() {
    let v = EngineKind::Vllm;
    assert_eq!(spec(v, "0.11.0", "--limit-mm-per-prompt").0, "json-parse");
    assert_eq!(spec(v, "0.8.5", "--limit-mm-per-prompt").0, "json-parse");
    assert_eq!(spec(v, "0.34.0", "--limit-mm-per-prompt").0, "str");
    assert_eq!(spec(v, "0.10.1.1", "--speculative-config").0, "json-parse");
    assert_eq!(spec(v, "0.19.0", "--speculative-config").0, "json-parse");
    assert_eq!(spec(v, "0.11.0", "--kv-transfer-config").0, "json-dataclass");
    // `max_model_len: SkipValidation[int]` (0.11.0 config/model.py): pydantic's wrapper unwrapped, int.
    assert_eq!(spec(v, "0.11.0", "--max-model-len").0, "int");
    // `--scheduling-policy` is `SchedulerConfig.policy` (`scheduler_kwargs`, 0.34.0 arg_utils.py), not
    // `EPLBConfig.policy` ("default"), which the field-name look-up picked before args58.
    assert_eq!(
        spec(v, "0.34.0", "--scheduling-policy").1,
        Some(vec!["fcfs".to_string(), "priority".to_string()])
    );
    // 0.9.1 `task: Literal[TaskOption, Literal["draft"]]`: typing flattens the nested Literal, so
    // "draft" is a choice with TaskOption's eight.
    let task = spec(v, "0.9.1", "--task").1.expect("choices");
    assert_eq!(task.len(), 9);
    assert_eq!(task.last().map(String::as_str), Some("draft"));
    // `Optional[Literal]` (0.11.0 `_compute_kwargs`: "None" appended to the choices).
    let q = spec(v, "0.11.0", "--quantization").1.expect("choices");
    assert_eq!(q.last().map(String::as_str), Some("None"));
    // Single-dash aliases are recorded with their row (0.19.0 `"--speculative-config", "-sc"`).
    let l = list_for(v, "0.19.0").expect("list");
    assert_eq!(l.row("--speculative-config"), ["--speculative-config", "-sc"]);
    assert!(!l.flags().contains_key("-sc"), "keys stay the `--` names");
}

/// SGLang 0.5.9 `server_args.py`: `--forward-hooks` `type=json_list_type` (utils/common.py); 0.5.10:
/// `--context-length`, `--max-total-tokens`, `--max-prefill-tokens` `type=human_readable_int` (str
/// in the lists before args58); 0.5.9 `--context-length` plain `int`.
#[test]
fn sglang_kinds_follow_the_type_parsers() {
    let s = EngineKind::Sglang;
    assert_eq!(spec(s, "0.5.9", "--forward-hooks").0, "json-list");
    assert_eq!(spec(s, "0.5.9", "--context-length").0, "int");
    for f in ["--context-length", "--max-total-tokens", "--max-prefill-tokens"] {
        assert_eq!(spec(s, "0.5.10", f).0, "int-si", "{f}");
        assert_eq!(spec(s, "0.5.23", f).0, "int-si", "{f}");
    }
}

/// The extractor's header names every kind it writes; the lists hold no other.
#[test]
fn every_list_kind_is_one_the_header_names() {
    let known = [
        "flag",
        "int",
        "int-si",
        "float",
        "str",
        "json",
        "json-parse",
        "json-list",
        "json-dataclass",
        "deprecated",
        // cmdsurvey63: SGLang's deprecated aliases storing a value (`DeprecatedAliasStoreAction`).
        "alias-int",
        "alias-str",
    ];
    let dir = data_path("engine-args");
    let mut seen = std::collections::BTreeSet::new();
    for e in std::fs::read_dir(&dir).expect("dir") {
        let p = e.expect("entry").path();
        if p.extension().is_none_or(|x| x != "txt") {
            continue;
        }
        let text = std::fs::read_to_string(&p).expect("read");
        for l in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
            let kind = l.split('\t').nth(1).expect("kind");
            assert!(known.contains(&kind), "{}: {l}", p.display());
            seen.insert(kind.to_string());
        }
    }
    // Every kind occurs in some list (json: SGLang's `type=json.loads`).
    assert_eq!(seen.len(), known.len(), "{seen:?}");
}

/// Row 134 (vllm recipes Qwen3-Next, B200 server command): `--speculative-config {"method":
/// "qwen3_next_mtp", "num_speculative_tokens": 2}` unquoted; bash removes the quotes and splits at
/// the blanks, so argparse hands `{method:` to `optional_type(json.loads)` (0.19.0
/// engine/arg_utils.py), whose `parse_type` raises "Value {method: cannot be converted to <function
/// loads …>."; argparse names the flag by both option strings, `--speculative-config/-sc`.
#[test]
fn unquoted_json_is_refused_with_vllms_parser_text() {
    let r = row(134);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(
        e.contains(
            "vllm serve: error: argument --speculative-config/-sc: Value {method: cannot be converted to \
             <function loads at 0x…>."
        ),
        "{e}"
    );
    // Row 125 at 0.11.0: `--limit-mm-per-prompt image=50,video=2` (vLLM 0.8's syntax), not JSON.
    let r = row(125);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(
        e.contains("argument --limit-mm-per-prompt: Value image=50,video=2 cannot be converted to"),
        "{e}"
    );
    // The quoted form imports (the same command with the JSON in single quotes).
    let quoted = r
        .command
        .replace("image=50,video=2", "'{\"image\": 50, \"video\": 2}'");
    let e = build::import(&quoted, &options(&r)).err().unwrap_or_default();
    assert!(!e.contains("--limit-mm-per-prompt"), "{e}");
}

/// Row 139 (vllm recipes Qwen3.5, GB200 head node): `--nnodes 2 --node-rank 0 --master-addr …`.
/// vLLM 0.12.0 – 0.34.0 `config/parallel.py` `ParallelConfig.__post_init__`: CUDA with nnodes > 1
/// defaults to the `mp` executor, and 0.19.0 `config/vllm.py` turns async scheduling off only for an
/// executor without `supports_async_scheduling` (Ray; `mp` has it: v1/executor/multiproc_executor.py),
/// so the import states `mp` and async scheduling stays on. A `ray` launch of the same TP 8 on 2 × 4
/// GPUs turns it off with 0.19.0's warning text.
#[test]
fn multi_node_mp_keeps_async_scheduling() {
    let r = row(139);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(
        i.text.contains("distributed_executor_backend = \"mp\""),
        "{}",
        i.text
    );
    // `--master-addr <head_node_ip>` is left out (engine-args prints HEAD_NODE_IP on every node).
    assert!(
        !i.text
            .lines()
            .any(|l| l.starts_with("extra_args") && l.contains("--master-addr")),
        "{}",
        i.text
    );
    assert!(
        i.notes
            .iter()
            .any(|n| n.starts_with("--master-addr <head_node_ip>: node 0's address")),
        "{:?}",
        i.notes
    );
    let s = tpsim::scenario::load_str(&i.text, std::path::Path::new("r139.toml")).expect("loads");
    assert!(s.engine.mp_nodes);
    assert!(
        s.engine.async_scheduling,
        "vLLM 0.19.0 keeps async scheduling under mp"
    );
    assert!(
        !s.warnings
            .iter()
            .any(|w| w.contains("Async scheduling will be disabled")),
        "{:?}",
        s.warnings
    );

    let ray = i.text.replace(
        "distributed_executor_backend = \"mp\"",
        "distributed_executor_backend = \"ray\"",
    );
    let s = tpsim::scenario::load_str(&ray, std::path::Path::new("r139-ray.toml")).expect("loads");
    assert!(!s.engine.async_scheduling);
    assert!(
        s.warnings.iter().any(|w| w
            == "Async scheduling will be disabled because it is not supported with the `ray` distributed executor \
                backend. (vLLM's warning)"),
        "{:?}",
        s.warnings
    );
}

/// `engine.distributed_executor_backend = "mp"` across boxes before vLLM 0.12.0 (0.11.0 has no
/// `--nnodes`: vllm-0.11.0.txt) is refused; on SGLang the key is refused.
#[test]
fn mp_across_boxes_needs_vllm_0_12() {
    let r = row(139);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    // Llama 3.1 70B (served by 0.11.0) in Qwen3.5's place, TP 8 on the 2 × 4 GB200 slice.
    let old = i
        .text
        .replace("name = \"vllm\"", "name = \"vllm\"\nversion = \"0.11.0\"")
        .replace("preset = \"qwen3.5-397b-a17b\"", "preset = \"llama-3.1-70b\"");
    assert_ne!(old, i.text);
    let e = tpsim::scenario::load_str(&old, std::path::Path::new("r139-011.toml")).expect_err("refused");
    assert!(e.to_string().contains("vLLM 0.11.0 has no --nnodes"), "{e}");
    // The same at 0.12.0, the first release with --nnodes (vllm-0.12.0.txt), loads.
    let new = old.replace("version = \"0.11.0\"", "version = \"0.12.0\"");
    let s = tpsim::scenario::load_str(&new, std::path::Path::new("r139-012.toml")).expect("0.12.0 loads");
    assert!(s.engine.mp_nodes);
    let sgl = i.text.replace("name = \"vllm\"", "name = \"sglang\"");
    let e = tpsim::scenario::load_str(&sgl, std::path::Path::new("r139-sgl.toml")).expect_err("refused");
    assert!(
        e.to_string().contains("engine.distributed_executor_backend"),
        "{e}"
    );
}

/// `tpsim engine-args` for an `mp` scenario across boxes: one `vllm serve` per node with `--nnodes 2
/// --node-rank R --master-addr HEAD_NODE_IP`, `--headless` on node 1 (0.12.0 entrypoints/cli/serve.py
/// `run_headless`), no `ray start`; and it reads back as `mp`.
#[test]
fn engine_args_prints_the_mp_launch_per_node() {
    let r = row(139);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    let dir = crate::common::scratch("args58-mp");
    let path = dir.join("r139.toml");
    std::fs::write(&path, &i.text).expect("write");
    let o = crate::common::tpsim(&["engine-args", path.to_str().expect("utf-8"), "--json"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("json");
    let text = j.to_string();
    assert!(!text.contains("ray start"), "{text}");
    assert!(
        text.contains(
            "\"--nnodes\",\"2\",\"--node-rank\",\"1\",\"--master-addr\",\"HEAD_NODE_IP\",\"--headless\""
        ),
        "{text}"
    );
    assert!(
        text.contains("\"--nnodes\",\"2\",\"--node-rank\",\"0\",\"--master-addr\",\"HEAD_NODE_IP\"]"),
        "{text}"
    );
}
