//! flags55 (issue #17): `tpsim engine-args` for every release the bundled scenarios name. The flag
//! lists of SGLang 0.4.0 – 0.5.7 and vLLM 0.2.6 – 0.10.2, 0.13.0 – 0.17.0 and 0.25.1 (written by
//! `tests/data/engine-args/extract.py` from the PyPI wheels), the flags renamed between those releases
//! (each printed in the target release's spelling), and the Done-when of #17: every seed, example and
//! validation scenario yields a command whose every flag its release defines.

use crate::common::{scenario, scratch};
use crate::engine_args::{accepted, check_args};
use std::path::{Path, PathBuf};
use tpsim::engine_args::{self, EngineCommand};
use tpsim::engine_args_versions::list_for;
use tpsim::scenario::EngineKind;

/// The spec line of `flag` in `tests/data/engine-args/<file>` (kind, choices), or `None`.
fn spec(file: &str, flag: &str) -> Option<String> {
    accepted(file).get(flag).map(|f| f.kind.clone())
}

/// Flags each release defines, read in the wheels (the lists are extract.py's output of them).
#[test]
fn lists_hold_each_releases_flags() {
    // SGLang 0.4.0.post1 server_args.py adds `--expert-parallel-size` / `--ep-size` (int) and
    // `--enable-ep-moe` (store_true) to 0.4.0's arguments.
    assert_eq!(spec("sglang-0.4.0.txt", "--ep-size"), None);
    assert_eq!(
        spec("sglang-0.4.0.post1.txt", "--ep-size").as_deref(),
        Some("int")
    );
    assert_eq!(
        spec("sglang-0.4.0.post1.txt", "--expert-parallel-size").as_deref(),
        Some("int")
    );
    assert_eq!(
        spec("sglang-0.4.0.post1.txt", "--enable-ep-moe").as_deref(),
        Some("flag")
    );
    // DataCrunch's launch flag: `--enable-torch-compile` (store_true) in 0.4.0.post1.
    assert_eq!(
        spec("sglang-0.4.0.post1.txt", "--enable-torch-compile").as_deref(),
        Some("flag")
    );
    // `--page-size` first in 0.4.4.post4 of the wheels read (absent from 0.4.3).
    assert_eq!(spec("sglang-0.4.3.txt", "--page-size"), None);
    assert_eq!(spec("sglang-0.4.6.txt", "--page-size").as_deref(), Some("int"));
    // `--enable-flashinfer-mla`: store_true in 0.4.3, a DeprecatedAction in 0.4.6, gone in 0.4.10.
    assert_eq!(
        spec("sglang-0.4.3.txt", "--enable-flashinfer-mla").as_deref(),
        Some("flag")
    );
    assert_eq!(
        spec("sglang-0.4.6.txt", "--enable-flashinfer-mla").as_deref(),
        Some("deprecated")
    );
    assert_eq!(spec("sglang-0.4.10.txt", "--enable-flashinfer-mla"), None);
    // Piecewise CUDA graphs: none in 0.5.3, `--enable-piecewise-cuda-graph` in 0.5.3.post3.
    assert_eq!(spec("sglang-0.5.3.txt", "--enable-piecewise-cuda-graph"), None);
    assert_eq!(
        spec("sglang-0.5.3.post3.txt", "--enable-piecewise-cuda-graph").as_deref(),
        Some("flag")
    );
    // `--moe-runner-backend` first in 0.5.1 (absent from 0.5.0rc0).
    assert_eq!(spec("sglang-0.5.0rc0.txt", "--moe-runner-backend"), None);
    assert_eq!(
        spec("sglang-0.5.1.txt", "--moe-runner-backend").as_deref(),
        Some("str")
    );
    // vLLM: `--num-scheduler-steps` (V0's multi-step) in 0.8.5, gone in 0.10.2; `--enable-log-requests`
    // added in 0.10.1.1 beside `--disable-log-requests` (0.9.1 has only the latter).
    assert_eq!(
        spec("vllm-0.8.5.txt", "--num-scheduler-steps").as_deref(),
        Some("int")
    );
    assert_eq!(spec("vllm-0.10.2.txt", "--num-scheduler-steps"), None);
    assert_eq!(spec("vllm-0.9.1.txt", "--enable-log-requests"), None);
    assert_eq!(
        spec("vllm-0.9.1.txt", "--disable-log-requests").as_deref(),
        Some("flag")
    );
    assert_eq!(
        spec("vllm-0.10.1.1.txt", "--enable-log-requests").as_deref(),
        Some("flag")
    );
    // ... where `--disable-log-requests` is `deprecated=True` (accepted with a warning), in 0.11.0 too.
    assert_eq!(
        spec("vllm-0.10.1.1.txt", "--disable-log-requests").as_deref(),
        Some("deprecated")
    );
    assert_eq!(
        spec("vllm-0.11.0.txt", "--disable-log-requests").as_deref(),
        Some("deprecated")
    );
    // vLLM 0.2.6 has no custom allreduce flag; 0.5.3.post1 has it. 0.8.5's `--max-model-len` is
    // `human_readable_int` (an int); 0.5.4's `--enable-chunked-prefill` takes an optional value.
    assert_eq!(spec("vllm-0.2.6.txt", "--disable-custom-all-reduce"), None);
    assert_eq!(
        spec("vllm-0.5.3.post1.txt", "--disable-custom-all-reduce").as_deref(),
        Some("flag")
    );
    assert_eq!(spec("vllm-0.8.5.txt", "--max-model-len").as_deref(), Some("int"));
    assert_eq!(
        spec("vllm-0.5.4.txt", "--enable-chunked-prefill").as_deref(),
        Some("flag")
    );
    assert_eq!(spec("vllm-0.2.6.txt", "--enable-chunked-prefill"), None);
}

/// A version is checked against the newest list at or below it; a post-release with a list of its
/// own gets that list, one without gets its release's.
#[test]
fn versions_pick_their_list() {
    let v = |e, s| list_for(e, s).map(|l| l.version);
    assert_eq!(v(EngineKind::Sglang, "0.4.0"), Some("0.4.0"));
    assert_eq!(v(EngineKind::Sglang, "0.4.0.post1"), Some("0.4.0.post1"));
    assert_eq!(v(EngineKind::Sglang, "0.4.0.post2"), Some("0.4.0.post1"));
    assert_eq!(v(EngineKind::Sglang, "0.4.1"), Some("0.4.0.post1"));
    assert_eq!(v(EngineKind::Sglang, "0.5.3.post1"), Some("0.5.3"));
    assert_eq!(v(EngineKind::Sglang, "0.5.3.post3"), Some("0.5.3.post3"));
    assert_eq!(v(EngineKind::Sglang, "0.5.6.post2"), Some("0.5.6.post1"));
    assert_eq!(v(EngineKind::Sglang, "0.5.8.post1"), Some("0.5.8"));
    assert_eq!(v(EngineKind::Sglang, "0.3.6"), None);
    assert_eq!(v(EngineKind::Vllm, "0.2.6"), Some("0.2.6"));
    assert_eq!(v(EngineKind::Vllm, "0.2.5"), None);
    // 0.8.5.post1's arguments are 0.8.5's (extract.py on both wheels: the same lines).
    assert_eq!(v(EngineKind::Vllm, "0.8.5.post1"), Some("0.8.5"));
    assert_eq!(v(EngineKind::Vllm, "0.10.1"), Some("0.9.1"));
    assert_eq!(v(EngineKind::Vllm, "0.10.1.1"), Some("0.10.1.1"));
    assert_eq!(v(EngineKind::Vllm, "0.18.1"), Some("0.17.0"));
    assert_eq!(v(EngineKind::Vllm, "0.25.1"), Some("0.25.1"));
}

fn write(name: &str, text: &str) -> PathBuf {
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    p
}

fn command(name: &str, text: &str) -> EngineCommand {
    let p = write(name, text);
    engine_args::for_file(&p)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .1
}

fn has(c: &EngineCommand, flag: &str) -> bool {
    c.args.iter().any(|a| a == flag)
}

/// SGLang 0.4.0.post1 – 0.4.10: EP MoE is `--enable-ep-moe` (ep = tp), 0.5.x `--ep-size`.
#[test]
fn ep_size_is_enable_ep_moe_before_0_5() {
    let text = |v: &str| {
        format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"mixtral-8x7b\"\n[engine]\nname = \"sglang\"\n\
             version = \"{v}\"\ntp = 8\nep_size = 8\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 8\n"
        )
    };
    let old = command("ep-old", &text("0.4.0.post1"));
    assert!(has(&old, "--enable-ep-moe"), "{:?}", old.args);
    assert!(!has(&old, "--ep-size"), "{:?}", old.args);
    assert_eq!(old.value_of("--tp-size"), Some("8"));
    let new = command("ep-new", &text("0.5.8"));
    assert_eq!(new.value_of("--ep-size"), Some("8"));
    assert!(!has(&new, "--enable-ep-moe"), "{:?}", new.args);
}

/// SGLang 0.4.3: an MLA model on FlashInfer is `--enable-flashinfer-mla` (model_runner.py forces
/// triton otherwise); 0.5.8 takes `--attention-backend flashinfer`.
#[test]
fn flashinfer_mla_flag_in_0_4_3() {
    let text = |v: &str| {
        format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"deepseek-v3\"\n[engine]\nname = \"sglang\"\n\
             version = \"{v}\"\ntp = 8\nattention_backend = \"flashinfer\"\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 8\n"
        )
    };
    let old = command("mla-old", &text("0.4.3"));
    assert!(has(&old, "--enable-flashinfer-mla"), "{:?}", old.args);
    assert_eq!(old.value_of("--attention-backend"), None, "{:?}", old.args);
    let new = command("mla-new", &text("0.5.8"));
    assert_eq!(new.value_of("--attention-backend"), Some("flashinfer"));
    assert!(!has(&new, "--enable-flashinfer-mla"));
}

/// Piecewise graphs off: no flag where the release has none (0.5.3); 0.5.13's
/// `--disable-piecewise-cuda-graph` (flags53).
#[test]
fn piecewise_off_needs_no_flag_before_piecewise_graphs() {
    let text = |v: &str| {
        format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"llama-3.1-70b\"\n[engine]\nname = \"sglang\"\n\
             version = \"{v}\"\ntp = 4\nenable_piecewise_cuda_graph = false\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 8\n"
        )
    };
    let old = command("pw-old", &text("0.5.3"));
    assert!(
        !old.args.iter().any(|a| a.contains("piecewise")),
        "{:?}",
        old.args
    );
    assert!(
        old.notes
            .iter()
            .any(|n| n.contains("SGLang 0.5.3 has no piecewise CUDA graphs"))
    );
    let new = command("pw-new", &text("0.5.13"));
    assert!(has(&new, "--disable-piecewise-cuda-graph"), "{:?}", new.args);
}

/// vLLM 0.5.4 booleans are `store_true` / `StoreBoolean`: no `--no-x`.
#[test]
fn vllm_0_5_booleans_have_no_negation() {
    let text = |v: &str| {
        format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
             version = \"{v}\"\ntp = 1\nenable_prefix_caching = false\nenable_chunked_prefill = false\n\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 8\n"
        )
    };
    let old = command("bool-old", &text("0.5.4"));
    // enable_prefix_caching: bool = False (0.5.4 arg_utils.py): the default, no flag.
    assert!(
        !old.args.iter().any(|a| a.contains("prefix-caching")),
        "{:?}",
        old.args
    );
    assert!(has(&old, "--enable-chunked-prefill=false"), "{:?}", old.args);
    let new = command("bool-new", &text("0.19.0"));
    assert!(has(&new, "--no-enable-prefix-caching"), "{:?}", new.args);
    assert!(has(&new, "--no-enable-chunked-prefill"), "{:?}", new.args);
}

/// vLLM's V0 multi-step: `--num-scheduler-steps` (int) in 0.8.5's `arg_utils.py`, gone from 0.10.2's,
/// whose argparse would stop at it ("unrecognized arguments"): printed at 0.8.5, refused at 0.10.2 naming
/// the flag and the list.
#[test]
fn num_scheduler_steps_until_v0_is_gone() {
    let text = |v: &str| {
        format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"llama-3.1-8b\"\n[engine]\nname = \"vllm\"\n\
             version = \"{v}\"\ntp = 1\nnum_scheduler_steps = 8\n[workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 8\n"
        )
    };
    let old = command("nss-old", &text("0.8.5"));
    assert_eq!(old.value_of("--num-scheduler-steps"), Some("8"));
    let p = write("nss-new", &text("0.10.2"));
    let e = engine_args::for_file(&p)
        .expect_err("0.10.2 has no --num-scheduler-steps")
        .to_string();
    assert!(
        e.contains("vLLM 0.10.2 has no flag --num-scheduler-steps") && e.contains("vllm-0.10.2.txt"),
        "{e}"
    );
}

/// vLLM 0.2.6 (the A30 rows): `python -m vllm.entrypoints.openai.api_server --model …`, and no
/// custom-allreduce flag (0.2.6 has none; 0.3.0's arg_utils.py first defines it).
#[test]
fn vllm_0_2_6_command() {
    let (_, c) = engine_args::for_file(Path::new(&scenario(
        "validation/llama-2-13b-a30x2-vllm-nccl.toml",
    )))
    .expect("0.2.6 row");
    assert_eq!(c.program, ["python", "-m", "vllm.entrypoints.openai.api_server"]);
    assert_eq!(c.value_of("--model"), Some("meta-llama/Llama-2-13b-hf"));
    assert_eq!(c.value_of("--tensor-parallel-size"), Some("2"));
    assert!(!has(&c, "--disable-custom-all-reduce"), "{:?}", c.args);
    check_args(&c.args, 0, &accepted("vllm-0.2.6.txt")).expect("0.2.6 flags");
    // The same scenario at 0.5.4 keeps `vllm serve` and the flag.
    let text = std::fs::read_to_string(scenario("validation/llama-2-13b-a30x2-vllm-nccl.toml"))
        .expect("read")
        .replace("version = \"0.2.6\"", "version = \"0.5.4\"");
    let c = command("a30-054", &text);
    assert_eq!(c.program, ["vllm", "serve"]);
    assert!(has(&c, "--disable-custom-all-reduce"), "{:?}", c.args);
}

fn toml_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for e in std::fs::read_dir(dir).expect("scenario dir") {
        let p = e.expect("entry").path();
        if p.is_dir() {
            toml_files(&p, out);
        } else if p.extension().is_some_and(|x| x == "toml") {
            out.push(p);
        }
    }
}

/// #17's Done-when, extended to the validation rows: every seed, example and validation scenario
/// yields a command checked against its own release's list (none left unchecked), every flag and
/// value one that release's argparse takes.
#[test]
fn every_bundled_scenario_prints_flags_its_release_defines() {
    let mut files = Vec::new();
    for d in ["seed", "examples", "validation"] {
        toml_files(Path::new(&scenario(d)), &mut files);
    }
    files.sort();
    let mut checked = 0;
    let mut refused = Vec::new();
    for file in &files {
        let c = match engine_args::for_file(file) {
            Ok((_, c)) => c,
            Err(e) => {
                refused.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        let list = list_for(c.engine, &c.version).unwrap_or_else(|| {
            panic!(
                "{}: no list at or below {:?} {}",
                file.display(),
                c.engine,
                c.version
            )
        });
        let flags = accepted(&list.file());
        let positional = usize::from(c.engine == EngineKind::Vllm && !list.vllm_module_server());
        // vLLM from 0.8.5 gives each bool field `--no-x` as well (`get_kwargs`: BooleanOptionalAction);
        // the lists hold `--x`.
        let args: Vec<String> = c
            .args
            .iter()
            .map(|a| match a.strip_prefix("--no-") {
                Some(base)
                    if list.negatable()
                        && flags.get(&format!("--{base}")).is_some_and(|f| f.kind == "flag") =>
                {
                    format!("--{base}")
                }
                _ => a.clone(),
            })
            .collect();
        check_args(&args, positional, &flags)
            .unwrap_or_else(|e| panic!("{}: {} {}: {e}", file.display(), list.file(), c.args.join(" ")));
        for n in c.nodes.iter().filter(|n| !n.args.is_empty()) {
            check_args(&n.args, positional, &flags)
                .unwrap_or_else(|e| panic!("{} node {}: {e}", file.display(), n.node));
        }
        assert!(
            !c.notes.iter().any(|n| n.starts_with("no argument list")),
            "{}: unchecked",
            file.display()
        );
        checked += 1;
    }
    // No bundled scenario states what its engine would refuse.
    assert!(refused.is_empty(), "{refused:#?}");
    // 394 seed, example and validation files at the time of writing; more may be added, none removed.
    assert!(checked >= 394, "checked {checked}");
}
