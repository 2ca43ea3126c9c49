//! Issue #17 (cmdkey): the scenario key `engine.command`, the launch command kept as typed. The
//! loader reads it through `tpsim import-command`'s own code, so a file holding a surveyed command
//! (`tests/data/launch-commands/`, each published command copied with its source) parses to exactly
//! the sections `tpsim import-command` writes for it; `tpsim engine-args` on the file prints a
//! command that imports back to the same sections; a key the file sets against the command, and a
//! flag the release does not define, are refused with exit 2.

use crate::common::{scenario, scratch, tpsim};
use std::path::{Path, PathBuf};
use tpsim::engine_args;
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::{ScenarioFile, load_str, parse_file, parse_toml};

const BOX: &str = "rtx-pro-6000-8x-1switch";

fn survey(n: u32) -> String {
    let p =
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(format!("../tests/data/launch-commands/{n:02}.sh"));
    std::fs::read_to_string(p).expect("survey command")
}

/// A scenario holding survey command `n` in `engine.command` (a TOML literal string, as the book
/// shows), `keys` more `[engine]` lines, and a draft acceptance when `spec`.
fn with_command(n: u32, keys: &str, spec: bool) -> String {
    let acceptance = if spec {
        "\n[speculative]\nacceptance = { alpha = 0.7 }\n"
    } else {
        ""
    };
    format!(
        "[hardware]\npreset = \"{BOX}\"\n\n[engine]\n{keys}command = '''\n{}'''\n{acceptance}",
        survey(n)
    )
}

fn import_opts(hardware: HardwareFrom, spec: bool) -> Options {
    Options {
        hardware,
        engine_version: None,
        model_preset: None,
        model_config: None,
        acceptance: spec.then(|| "alpha = 0.7".to_string()),
        output: None,
    }
}

/// (survey command, speculates): 1 (SGLang, Qwen3.5-397B NVFP4, five environment assignments),
/// 3 (the same with SGLang's EAGLE/NEXTN flags and an fp8 KV cache), 4 (vLLM with MTP through
/// `--speculative-config`, `--max-model-len -1`), 7 (vLLM, MiniMax-M2.5 with expert parallelism) and
/// 16 (`python -m vllm.entrypoints.openai.api_server --model models/Qwen3-8B`).
const COMMANDS: [(u32, bool); 5] = [(1, false), (3, true), (4, true), (7, false), (16, false)];

/// The sections of a file with `engine.command` equal, field for field, those of the file
/// `tpsim import-command` writes for the same command on the same box (the `Debug` of the parsed
/// `ScenarioFile`: every key and value); both resolve to the same engine command.
#[test]
fn expansion_equals_import_command() {
    let path = Path::new("command.toml");
    for (n, spec) in COMMANDS {
        let text = with_command(n, "", spec);
        let (raw, notes) = parse_file(&text, path).unwrap_or_else(|e| panic!("command {n}: {e}"));
        let imported = build::import(&survey(n), &import_opts(HardwareFrom::Preset(BOX.into()), spec))
            .unwrap_or_else(|e| panic!("command {n}: {e}"));
        let expected: ScenarioFile = parse_toml(&imported.text, path).expect("imported parses");
        assert_eq!(
            format!("{raw:#?}"),
            format!("{expected:#?}"),
            "command {n}\n{}",
            imported.text
        );
        assert_eq!(notes, imported.notes, "command {n}");
        let s = load_str(&text, path).unwrap_or_else(|e| panic!("command {n}: {e}"));
        let c = engine_args::command(&s, &raw, &text).expect("prints");
        let s2 = load_str(&imported.text, path).expect("imported loads");
        let c2 = engine_args::command(&s2, &expected, &imported.text).expect("prints");
        assert_eq!(
            (&c.program, &c.args, &c.env),
            (&c2.program, &c2.args, &c2.env),
            "command {n}"
        );
        // The notes are the scenario's warnings, after the engine's own.
        for note in &imported.notes {
            let w = format!("engine.command: {note}");
            assert!(
                s.warnings.contains(&w),
                "command {n}: {w} not in {:?}",
                s.warnings
            );
        }
    }
}

/// `tpsim engine-args` on such a file (exit 0) prints a command equivalent to the file's own: read
/// back by `tpsim import-command --from FILE`, it resolves to the same model, engine settings
/// (every field of the resolved `[engine]`, `Debug`), speculation and workload, and prints the same
/// command again. Spellings may differ where the engine takes two: command 4's `--max-model-len -1`
/// comes back as `auto`, its deprecated `qwen3_next_mtp` as `mtp` (vLLM's rename), the model path
/// as the preset's HuggingFace id, the environment as the variables tpsim models.
#[test]
fn engine_args_prints_an_equivalent_command() {
    let dir = scratch("command-key-round-trip");
    for (n, spec) in COMMANDS {
        let f = dir.join(format!("cmd{n:02}.toml"));
        std::fs::write(&f, with_command(n, "", spec)).unwrap();
        let (s, c) = engine_args::for_file(&f).unwrap_or_else(|e| panic!("command {n}: {e}"));
        let o = tpsim(&["engine-args", f.to_str().unwrap()]);
        assert_eq!(o.code, 0, "command {n}: {}", o.stderr);
        let back = build::import(&o.stdout, &import_opts(HardwareFrom::Scenario(f.clone()), spec))
            .unwrap_or_else(|e| panic!("command {n}: {e}\n{}", o.stdout));
        let s2 = load_str(&back.text, &f).expect("loads");
        let raw2: ScenarioFile = parse_toml(&back.text, &f).expect("parses");
        let c2 = engine_args::command(&s2, &raw2, &back.text).expect("prints");
        assert_eq!(
            (&c.program, &c.args, &c.env),
            (&c2.program, &c2.args, &c2.env),
            "command {n}"
        );
        let resolved = |s: &tpsim::scenario::Scenario| {
            format!(
                "{:#?}",
                (&s.model_name, &s.model, &s.engine, &s.speculative, &s.workload)
            )
        };
        assert_eq!(resolved(&s), resolved(&s2), "command {n}\n{}", o.stdout);
    }
}

/// A key the file sets to another value than the command's is refused naming the file (and line),
/// the key and both values: survey command 1 says `--tp-size 4`, `--mem-fraction-static 0.85` and
/// SGLang; without a TP flag the command's tp is the engine's default 1; a Docker tag names the
/// release; a model path names its preset. Agreeing values load. `validate`, `run`, `memory` and
/// `engine-args` exit 2 on the conflict.
#[test]
fn conflicting_keys_are_refused_naming_both_values() {
    let path = Path::new("conflict.toml");
    let agree = with_command(
        1,
        "tp = 4\nmem_fraction_static = 0.85\nname = \"sglang\"\n",
        false,
    );
    assert_eq!(load_str(&agree, path).expect("agreeing keys load").engine.tp, 4);
    let e = load_str(&with_command(1, "tp = 8\n", false), path)
        .expect_err("tp 8 against --tp-size 4")
        .to_string();
    assert!(
        e.starts_with("conflict.toml:5: key `engine.tp`: the file sets 8 and its engine.command sets 4"),
        "{e}"
    );
    let e = load_str(&with_command(1, "mem_fraction_static = 0.9\n", false), path)
        .expect_err("0.9 against 0.85")
        .to_string();
    assert!(
        e.contains("key `engine.mem_fraction_static`: the file sets 0.9 and its engine.command sets 0.85"),
        "{e}"
    );
    let e = load_str(&with_command(1, "name = \"vllm\"\n", false), path)
        .expect_err("engine name")
        .to_string();
    assert!(
        e.contains("key `engine.name`: the file sets \"vllm\" and its engine.command sets \"sglang\""),
        "{e}"
    );
    // No TP flag: the engine's default (SGLang 0.5.8 `ServerArgs.tp_size = 1`) is the command's.
    let plain = "[hardware]\npreset = \"h100-sxm-1x\"\n[engine]\ntp = 2\ncommand = \"python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct\"\n";
    let e = load_str(plain, path).expect_err("default tp").to_string();
    assert!(
        e.contains("key `engine.tp`: the file sets 2 and its engine.command gives no flag for it, so the engine's default, 1"),
        "{e}"
    );
    // A Docker tag names the release: another `engine.version` is a conflict.
    let docker = "[hardware]\npreset = \"h100-sxm-1x\"\n[engine]\nversion = \"0.12.0\"\ncommand = \"docker run --gpus all vllm/vllm-openai:v0.11.0 --model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192\"\n";
    let e = load_str(docker, path).expect_err("version").to_string();
    assert!(
        e.contains("key `engine.version`: the file sets \"0.12.0\" and its engine.command runs the release of its Docker image tag, \"0.11.0\""),
        "{e}"
    );
    // The file's `[model] preset` against a path naming another bundled preset.
    let model = "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"qwen3-8b\"\n[engine]\ncommand = \"vllm serve meta-llama/Llama-3.1-8B-Instruct\"\n";
    let e = load_str(model, path).expect_err("preset").to_string();
    assert!(
        e.contains("key `model.preset`: the file sets \"qwen3-8b\" and its engine.command serves `meta-llama/Llama-3.1-8B-Instruct`, the preset \"llama-3.1-8b\""),
        "{e}"
    );
    let dir = scratch("command-key-conflict");
    let f = dir.join("conflict.toml");
    std::fs::write(&f, with_command(1, "tp = 8\n", false)).unwrap();
    for cmd in ["validate", "run", "memory", "engine-args"] {
        let o = tpsim(&[cmd, f.to_str().unwrap()]);
        assert_eq!(o.code, 2, "{cmd}: {}", o.stdout);
        assert!(
            o.stderr
                .contains("conflict.toml:5: key `engine.tp`: the file sets 8"),
            "{cmd}: {}",
            o.stderr
        );
    }
}

/// A flag the release does not define stops the load with the engine's argparse text (vLLM 0.19.0
/// `vllm serve`; SGLang 0.5.8 for survey command 8's fork-only `--enable-pcie-oneshot-allreduce`),
/// under the key `engine.command`, exit 2; a command that is not a string is refused too.
#[test]
fn unknown_flags_in_the_command_are_refused_with_argparse_text() {
    let dir = scratch("command-key-unknown");
    let f = dir.join("unknown.toml");
    std::fs::write(
        &f,
        "[hardware]\npreset = \"h100-sxm-1x\"\n[engine]\ncommand = \"vllm serve meta-llama/Llama-3.1-8B-Instruct --no-such-flag\"\n",
    )
    .unwrap();
    let o = tpsim(&["validate", f.to_str().unwrap()]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains(
            "unknown.toml:4: key `engine.command`: vLLM 0.19.0 refuses it: argparse stops with \"vllm serve: error: \
             unrecognized arguments: --no-such-flag\""
        ),
        "{}",
        o.stderr
    );
    let e = load_str(&with_command(8, "", false), Path::new("s8.toml"))
        .expect_err("fork flag")
        .to_string();
    assert!(
        e.contains("launch_server.py: error: unrecognized arguments: --enable-pcie-oneshot-allreduce"),
        "{e}"
    );
    let e = load_str(
        "[hardware]\npreset = \"h100-sxm-1x\"\n[engine]\ncommand = [\"vllm\", \"serve\"]\n",
        Path::new("list.toml"),
    )
    .expect_err("not a string")
    .to_string();
    assert!(e.contains("key `engine.command`: expected a string"), "{e}");
}

/// The bundled example (survey command 7 kept as published) resolves to the keys read off it
/// (`--tensor-parallel-size 8`, `--enable-expert-parallel`, `--gpu-memory-utilization 0.9`,
/// `--max-model-len -1`: auto, the MiniMax-M2.5 preset), and `tpsim sweep --set engine.tp=…` sweeps
/// a key a command states: the command's keys are the base, the axis overrides them (no conflict).
#[test]
fn bundled_example_and_sweep() {
    let f = scenario("examples/minimax-m2.5-vllm-command-rtx6000x8.toml");
    let (s, c) = engine_args::for_file(Path::new(&f)).expect("example");
    assert_eq!((s.engine.tp, s.engine.ep_size), (8, 8));
    assert!(s.engine.max_model_len_auto);
    assert_eq!(s.model_name, "minimax-m2.5");
    assert_eq!(c.value_of("--gpu-memory-utilization"), Some("0.9"));
    assert!(c.args.iter().any(|a| a == "--enable-expert-parallel"));
    let dir = scratch("command-key-sweep");
    let base = dir.join("sweep.toml");
    std::fs::write(
        &base,
        "[hardware]\npreset = \"h100-sxm-8x-nvlink\"\n[engine]\ncommand = \"vllm serve meta-llama/Llama-3.1-8B-Instruct \
         --tensor-parallel-size 2 --max-model-len 8192\"\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 8\n",
    )
    .unwrap();
    let o = tpsim(&[
        "sweep",
        base.to_str().unwrap(),
        "--quiet",
        "--set",
        "engine.tp=2,4",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(
        o.stdout.lines().count(),
        3,
        "a header and two points:\n{}",
        o.stdout
    );
}
