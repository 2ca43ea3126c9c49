//! Issue #17 (engine-flag lists by version): `tpsim engine-args` for the versions users run now —
//! SGLang 0.5.23, vLLM 0.12.0, 0.19.0 and 0.33.0 — whose argument lists `tests/data/engine-args/extract.py`
//! wrote from the releases on PyPI. Every bundled seed and example scenario, re-targeted at each newer
//! version, yields a command whose every flag that version defines (checked here against the list file
//! by an independent reader), or a refusal that names the flag and the version. The renames are the
//! engine's own (SGLang 0.5.23 `server_args.py`, the `new_flag` of its `DeprecatedStoreTrueAction`s).

use crate::common::{bundled_seed_and_examples, data_path, scenario, scratch};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use tpsim::engine_args::{self, EngineCommand};
use tpsim::engine_args_versions::list_for;
use tpsim::scenario::{self, EngineKind, ScenarioError, ScenarioFile};

/// flag name → value kind, read straight from the list file (not through the simulator's reader).
pub(crate) fn kinds(file: &str) -> BTreeMap<String, String> {
    let text = std::fs::read_to_string(data_path(&format!("engine-args/{file}"))).expect("list file");
    let mut m = BTreeMap::new();
    for l in text.lines().filter(|l| !l.starts_with('#') && !l.is_empty()) {
        let mut cols = l.split('\t');
        let names = cols.next().expect("names");
        let kind = cols.next().expect("kind").to_string();
        for n in names.split('|') {
            m.insert(n.to_string(), kind.clone());
        }
    }
    m
}

/// The command for `path` with `engine.version` replaced by `version`.
fn command_at(path: &Path, version: &str) -> Result<EngineCommand, ScenarioError> {
    let mut s = scenario::load(path).expect("bundled scenario loads");
    let text = std::fs::read_to_string(path).expect("read");
    let raw: ScenarioFile = scenario::parse_toml(&text, path).expect("parse");
    s.engine.version = Some(version.to_string());
    engine_args::command(&s, &raw, &text)
}

/// The flag tokens of `args` (after `positional` leading arguments) that `list` lacks or deprecates.
pub(crate) fn unknown_or_deprecated(
    args: &[String],
    positional: usize,
    list: &BTreeMap<String, String>,
) -> Vec<String> {
    let mut bad = Vec::new();
    let mut i = positional;
    while i < args.len() {
        match list.get(&args[i]).map(String::as_str) {
            None | Some("deprecated") => bad.push(args[i].clone()),
            // cmdsurvey63: a deprecated alias taking a value (SGLang's `DeprecatedAliasStoreAction`).
            Some(k) if k.starts_with("alias-") => {
                bad.push(args[i].clone());
                i += 1;
            }
            Some("flag") => {}
            Some(_) => i += 1,
        }
        i += 1;
    }
    bad
}

#[test]
fn every_seed_and_example_at_the_newer_versions_is_accepted_or_refused_with_a_reason() {
    let mut accepted = BTreeMap::<&str, usize>::new();
    for file in bundled_seed_and_examples() {
        let engine = scenario::load(&file).expect("loads").engine.kind;
        let versions: &[&str] = match engine {
            EngineKind::Sglang => &["0.5.23"],
            EngineKind::Vllm => &["0.12.0", "0.19.0", "0.33.0"],
        };
        for &v in versions {
            match command_at(&file, v) {
                Ok(c) => {
                    let list_file = match engine {
                        EngineKind::Sglang => format!("sglang-{v}.txt"),
                        EngineKind::Vllm => format!("vllm-{v}.txt"),
                    };
                    let list = kinds(&list_file);
                    let positional = usize::from(engine == EngineKind::Vllm);
                    let bad = unknown_or_deprecated(&c.args, positional, &list);
                    assert!(
                        bad.is_empty(),
                        "{} at {v}: {bad:?} not in {list_file}",
                        file.display()
                    );
                    for n in c.nodes.iter().filter(|n| !n.args.is_empty()) {
                        let bad = unknown_or_deprecated(&n.args, positional, &list);
                        assert!(
                            bad.is_empty(),
                            "{} node {} at {v}: {bad:?}",
                            file.display(),
                            n.node
                        );
                    }
                    assert_eq!(c.version, v);
                    *accepted.entry(v).or_default() += 1;
                }
                Err(e) => {
                    let m = e.to_string();
                    assert!(
                        m.contains("engine.version") && m.contains(v) && m.contains("--"),
                        "{} at {v}: refusal without a reason: {m}",
                        file.display()
                    );
                }
            }
        }
    }
    // 26 SGLang and 6 vLLM scenarios at the time of writing: every one is accepted at the newer
    // versions (the renames below cover what SGLang 0.5.23 deprecated).
    assert!(accepted["0.5.23"] >= 26, "{accepted:?}");
    assert!(
        accepted["0.12.0"] >= 6 && accepted["0.19.0"] >= 6 && accepted["0.33.0"] >= 6,
        "{accepted:?}"
    );
}

/// SGLang 0.5.23 server_args.py: `--enable-dp-attention` is a `DeprecatedStoreTrueAction` with
/// `new_flag="--attn-dp-size <dp-size>"`; the DP-attention example (dp_size = 8) prints that instead.
#[test]
fn sglang_0_5_23_spells_dp_attention_as_attn_dp_size() {
    let f = PathBuf::from(scenario("examples/deepseek-v3-dp-attention-h200x8.toml"));
    let old = command_at(&f, "0.5.8").expect("0.5.8");
    assert!(old.args.iter().any(|a| a == "--enable-dp-attention"));
    assert_eq!(old.value_of("--dp-size"), Some("8"));
    let new = command_at(&f, "0.5.23").expect("0.5.23");
    assert_eq!(new.value_of("--attn-dp-size"), Some("8"));
    assert!(
        !new.args
            .iter()
            .any(|a| a == "--enable-dp-attention" || a == "--dp-size")
    );
    assert!(
        new.notes
            .iter()
            .any(|n| n.contains("--enable-dp-attention is deprecated"))
    );
}

/// SGLang 0.5.23: `--disable-cuda-graph` deprecated for `--cuda-graph-backend-{decode,prefill}=disabled`;
/// `--enable-piecewise-cuda-graph` gone, piecewise prefill graphs being `--cuda-graph-backend-prefill
/// breakable` (model_executor/cuda_graph_config.py). 0.5.9 keeps the old spellings.
#[test]
fn sglang_0_5_23_spells_cuda_graph_settings_as_backends() {
    // tpsim places no SGLang version after 0.5.8 in a memory era by itself: the file names one.
    let base = std::fs::read_to_string(scenario("seed/baseline.toml")).expect("seed");
    let write = |name: &str, extra: &str, version: &str| {
        let p = scratch(name).join("scenario.toml");
        let text = base.replacen(
            "[engine]\n",
            &format!("[engine]\nversion = \"{version}\"\ncosts.era = \"spring-2026\"\n{extra}\n"),
            1,
        );
        assert_ne!(text, base, "seed has an [engine] table");
        std::fs::write(&p, text).expect("write");
        p
    };
    let p = write("eav-nograph.toml", "cuda_graph = false", "0.5.23");
    let (_, c) = engine_args::for_file(&p).expect("0.5.23 no graphs");
    assert_eq!(c.value_of("--cuda-graph-backend-decode"), Some("disabled"));
    assert_eq!(c.value_of("--cuda-graph-backend-prefill"), Some("disabled"));
    assert!(!c.args.iter().any(|a| a == "--disable-cuda-graph"));
    let p = write("eav-pw.toml", "enable_piecewise_cuda_graph = true", "0.5.23");
    let (_, c) = engine_args::for_file(&p).expect("0.5.23 piecewise");
    assert_eq!(c.value_of("--cuda-graph-backend-prefill"), Some("breakable"));
    assert!(!c.args.iter().any(|a| a == "--enable-piecewise-cuda-graph"));
    let p = write("eav-pw-059.toml", "enable_piecewise_cuda_graph = true", "0.5.9");
    let (_, c) = engine_args::for_file(&p).expect("0.5.9 piecewise");
    assert!(c.args.iter().any(|a| a == "--enable-piecewise-cuda-graph"));
    assert!(c.value_of("--cuda-graph-backend-prefill").is_none());
}

/// A flag the version lacks is refused with the flag, the version and the list named. vLLM 0.12.0
/// has no `--moe-a2a-backend` (an SGLang flag); the command builder never prints one for vLLM, so
/// the check is driven directly.
#[test]
fn a_flag_the_version_lacks_is_refused_by_name() {
    let list = list_for(EngineKind::Vllm, "0.12.0").expect("list");
    let mut args: Vec<String> = [
        "m/x",
        "--tensor-parallel-size",
        "2",
        "--moe-a2a-backend",
        "deepep",
    ]
    .map(String::from)
    .to_vec();
    let err = tpsim::engine_args_versions::adapt(list, &mut args, &mut Vec::new()).expect_err("refused");
    assert!(err.contains("vLLM 0.12.0 has no flag --moe-a2a-backend"), "{err}");
    assert!(err.contains("vllm-0.12.0.txt"), "{err}");
    // A value outside the version's choices: vLLM 0.11.0 block sizes are 1..128; 0.12.0 adds 256.
    let mut args: Vec<String> = ["m/x", "--block-size", "256"].map(String::from).to_vec();
    let l011 = list_for(EngineKind::Vllm, "0.11.0").expect("list");
    assert!(tpsim::engine_args_versions::adapt(l011, &mut args.clone(), &mut Vec::new()).is_err());
    assert!(tpsim::engine_args_versions::adapt(list, &mut args, &mut Vec::new()).is_ok());
}
