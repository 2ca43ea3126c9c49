//! flags53 (issue #17): SGLang's argument lists for every release 0.5.10 – 0.5.22
//! (`tests/data/engine-args/sglang-0.5.N.txt`, written by `extract.py` from the sglang-0.5.N wheels on
//! PyPI), so `engine.enable_piecewise_cuda_graph = false` prints and imports as each release spells it:
//! `--disable-piecewise-cuda-graph` from 0.5.10 (`server_args.py`, a `DeprecatedStoreConstAction` naming
//! `--cuda-graph-backend-prefill=disabled` in 0.5.14 – 0.5.19), gone in 0.5.20.

use std::path::Path;
use tpsim::engine_args::{self, EngineCommand};
use tpsim::engine_args_versions::list_for;
use tpsim::scenario::{EngineKind, ScenarioFile};

/// The command of Llama-3.1-8B on one H100 under SGLang `version` with extra `[engine]` lines.
fn command(version: &str, keys: &str) -> EngineCommand {
    let text = format!(
        "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"sglang\"\n\
         version = \"{version}\"\ntp = 1\n{keys}"
    );
    let path = Path::new("flags53.toml");
    let s = tpsim::scenario::load_str(&text, path).unwrap();
    let raw: ScenarioFile = tpsim::scenario::parse_toml(&text, path).unwrap();
    engine_args::command(&s, &raw, &text).unwrap()
}

fn has(c: &EngineCommand, flag: &str) -> bool {
    c.args.iter().any(|a| a == flag)
}

/// The row of `flag` in SGLang `version`'s list: its kind (`flag`, `deprecated`, …), `None` if absent.
fn kind(version: &str, flag: &str) -> Option<String> {
    let l = list_for(EngineKind::Sglang, version).unwrap();
    assert_eq!(l.version, version, "a list of its own for {version}");
    l.flags().get(flag).map(|s| s.kind.clone())
}

/// sglang-0.5.9 `server_args.py` has only `--enable-piecewise-cuda-graph` (store_true); 0.5.10 adds
/// `--disable-piecewise-cuda-graph` (store_true) and makes the enable flag a `DeprecatedAction`;
/// 0.5.14 – 0.5.19 register it with `DeprecatedStoreConstAction` (`add_cli_args`), next to the
/// `ServerArgs` field `disable_prefill_cuda_graph`; 0.5.20 has neither piecewise flag.
#[test]
fn lists_by_release() {
    let off = "--disable-piecewise-cuda-graph";
    assert_eq!(kind("0.5.9", off), None);
    assert_eq!(
        kind("0.5.9", "--enable-piecewise-cuda-graph").as_deref(),
        Some("flag")
    );
    assert_eq!(kind("0.5.10", off).as_deref(), Some("flag"));
    assert_eq!(
        kind("0.5.10", "--enable-piecewise-cuda-graph").as_deref(),
        Some("deprecated")
    );
    assert_eq!(kind("0.5.13", off).as_deref(), Some("flag"));
    for v in ["0.5.14", "0.5.19"] {
        assert_eq!(kind(v, off).as_deref(), Some("deprecated"), "{v}");
        assert_eq!(
            kind(v, "--disable-prefill-cuda-graph").as_deref(),
            Some("flag"),
            "{v}"
        );
        assert_eq!(kind(v, "--enable-piecewise-cuda-graph"), None, "{v}");
    }
    assert_eq!(kind("0.5.20", off), None);
    assert_eq!(
        kind("0.5.20", "--cuda-graph-backend-prefill").as_deref(),
        Some("str")
    );
    // 0.5.14's `ServerArgs` fields are read (its `--tp-size` is an `A[int, Arg(aliases=…)]` field).
    assert_eq!(kind("0.5.14", "--tensor-parallel-size").as_deref(), Some("int"));
}

/// The printed command per release for `enable_piecewise_cuda_graph = false`.
#[test]
fn printed_per_release() {
    let key = "enable_piecewise_cuda_graph = false\n";
    let c = command("0.5.13", key);
    assert_eq!(c.version, "0.5.13");
    assert!(has(&c, "--disable-piecewise-cuda-graph"), "{:?}", c.args);
    // Without the key: no flag (the engine's default, prefill graphs on).
    assert!(!has(&command("0.5.13", ""), "--disable-piecewise-cuda-graph"));
    // 0.5.16: still accepted, with SGLang's deprecation (a note).
    let c = command("0.5.16", key);
    assert!(has(&c, "--disable-piecewise-cuda-graph"), "{:?}", c.args);
    assert!(
        c.notes
            .iter()
            .any(|n| n.contains("--disable-piecewise-cuda-graph is deprecated in SGLang 0.5.16")),
        "{:?}",
        c.notes
    );
    // 0.5.20 and 0.5.23: the replacement 0.5.14's deprecation names.
    for v in ["0.5.20", "0.5.23"] {
        let c = command(v, key);
        assert!(!has(&c, "--disable-piecewise-cuda-graph"), "{v}: {:?}", c.args);
        assert_eq!(
            c.value_of("--cuda-graph-backend-prefill"),
            Some("disabled"),
            "{v}"
        );
    }
    // 0.5.9: graphs opt-in, `false` is the default: no flag, a note.
    let c = command("0.5.9", key);
    assert!(!has(&c, "--disable-piecewise-cuda-graph"), "{:?}", c.args);
    assert!(
        c.notes.iter().any(|n| n.contains("its default needs no flag")),
        "{:?}",
        c.notes
    );
}

/// An imported SGLang 0.5.14 command with `--disable-piecewise-cuda-graph` (deprecated there, still
/// accepted) states `enable_piecewise_cuda_graph = false`; Llama-3.1-8B on one H100 then resolves the
/// fraction without the prefill graphs' reserve (tests/tests/sglres53.rs: 512 + 1.5 × 8192 + 2 × 256 +
/// 128 = 13,440 MiB → round((81,559 − 13,440) / 81,559, 3) = 0.835, against 0.830 with the 464 MiB of
/// 58 prefill sizes). Compared within 5e-7 (both round to three decimals).
#[test]
fn imported_0_5_14_command() {
    use tpsim::import_command_build::{self as build, HardwareFrom, Options};
    let o = Options {
        hardware: HardwareFrom::Preset("h100-sxm-1x".into()),
        engine_version: Some("0.5.14".into()),
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    };
    let cmd = "python3 -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct";
    let fraction = |cmd: &str| {
        let i = build::import(cmd, &o).unwrap();
        let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml")).unwrap();
        (i.text, s.engine.mem_fraction_static)
    };
    let (text, off) = fraction(&format!("{cmd} --disable-piecewise-cuda-graph"));
    assert!(text.contains("enable_piecewise_cuda_graph = false"), "{text}");
    assert!((off - 0.835).abs() < 5e-7, "{off}");
    assert!((fraction(cmd).1 - 0.830).abs() < 5e-7);
}
