//! cmdsurvey63 (issue #17): 20 more real, public launch commands of April – September 2026 (rows
//! 233–252 of `tests/data/launch-commands.tsv`: GitHub issues and pull requests of vLLM, vllm-ascend,
//! SGLang, the vLLM recipes, ktransformers, flashinfer, ROCm/ATOM, Hygon's plugin and cookbook and users'
//! toolboxes; vLLM 0.17 – 0.33, SGLang 0.5.10 – 0.5.14 and forks). Every row's outcome is checked by
//! cmdsurvey55's `every_surveyed_command_gives_its_recorded_outcome`; this suite counts the new rows'
//! classes (book/src/scenarios.md, "Launch commands surveyed (cmdsurvey63)"), pins each fix of a
//! wrapper or flag tpsim refused or misread where the engine accepts it, and checks that
//! `tpsim engine-args` prints back, for every row that imports, only flags the release defines
//! (issue #17 point 6).

use crate::cmdsurvey55::{
    class_counts, has_line, on, options, row, rows_printed_back_with_only_their_releases_flags, survey_rows,
};
use std::path::Path;
use tpsim::engine_args;
use tpsim::import_command_build as build;
use tpsim::scenario;

/// Rows 233–252, each naming its source and dated; the classes the book counts: 4 ok (233, 241,
/// 242, 247), 11 no preset (235, 237, 239, 240, 243, 244, 245, 248 – 251), 2 refused by the release
/// (238: ktransformers' `--kt-*` flags; 246: `--quantization per_token_nvfp4`, a name no release
/// shipped), 0 box, 1 not modelled (236: vLLM DP + EP over 16 devices), 0 not a command, 1 the user's
/// own path (234: `--model /model`), 1 doubtful (252: a Hygon DCU launch read on an AMD box)
/// (20 = 4 + 11 + 2 + 0 + 1 + 0 + 1 + 1). Before cmdsurvey63's fix row 233 was refused ("no engine
/// launch found"). presets64: row 240 reads `qwen3.6-35b-a3b-fp8` and imports: 5 ok, 10 no preset
/// (20 = 5 + 10 + 2 + 0 + 1 + 0 + 1 + 1).
#[test]
fn the_63_survey_has_20_sourced_rows_in_the_books_classes() {
    let rows = survey_rows(233..=252, |_| false);
    assert_eq!(class_counts(&rows), [5, 10, 2, 0, 1, 0, 1, 1]);
}

/// Row 233 (vllm issue 41647, gemma-4-31B-it on 2× H200): `… NCCL_DEBUG_SUBSYS=… stdbuf -oL -eL
/// .venv/bin/vllm serve google/gemma-4-31B-it …`. GNU coreutils `stdbuf OPTION… COMMAND` runs COMMAND
/// with its streams' buffering changed (`-i`/`-o`/`-e MODE`, attached or the next word, or
/// `--input`/`--output`/`--error=MODE`); before cmdsurvey63 the import stopped at "no engine launch
/// found". Now the wrapper is skipped as `nohup` is: the row reads gemma-4-31b-it at tp 2 with the
/// assignments in front, the same scenario as the launch without `stdbuf`, with the option spelt
/// every way coreutils takes it; `stdbuf` in front of something else is still no launch.
#[test]
fn stdbuf_in_front_of_the_engine_is_read_through() {
    let r = row(233);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(has_line(&i.text, "preset = \"gemma-4-31b-it\""), "{}", i.text);
    assert!(has_line(&i.text, "tp = 2"), "{}", i.text);
    assert!(has_line(&i.text, "max_model_len = 200000"), "{}", i.text);
    let without = r.command.replace("stdbuf -oL -eL ", "");
    assert_ne!(without, r.command);
    let plain = build::import(&without, &options(&r)).expect("imports").text;
    assert_eq!(i.text, plain);
    let o = on("h200-8x-nvlink", Some("0.19.0"));
    let bare = build::import("vllm serve google/gemma-4-31B-it -tp 2", &o)
        .expect("bare")
        .text;
    for prefix in [
        "stdbuf -o L",
        "stdbuf --output=L --error=L",
        "stdbuf -i0 -o L -e L",
        "nohup stdbuf -oL",
    ] {
        let c = format!("{prefix} vllm serve google/gemma-4-31B-it -tp 2");
        assert_eq!(
            build::import(&c, &o).unwrap_or_else(|e| panic!("{c}: {e}")).text,
            bare,
            "{c}"
        );
    }
    let e = build::import("stdbuf -oL python train.py --tp 2", &o).expect_err("no launch");
    assert!(e.contains("no engine launch found"), "{e}");
}

/// Issue #17 point 6: `tpsim engine-args` on every row of this survey that imports prints back a
/// command whose every flag the simulated release defines and does not deprecate, checked against
/// the list file by `engine_args_versions`' own reader (rows 233 at vLLM 0.19.0, 241 at 0.25.1, 242
/// and 247 at tpsim's current vLLM; 240 at 0.19.0 since presets64's `qwen3.6-35b-a3b-fp8`).
#[test]
fn engine_args_prints_back_only_the_releases_flags() {
    let rows = survey_rows(233..=252, |_| false);
    assert_eq!(
        rows_printed_back_with_only_their_releases_flags(&rows),
        [233, 240, 241, 242, 247]
    );
}

/// The survey's option set for row `n`, at SGLang `version` (the later releases its users move to).
fn at(n: u32, version: &str) -> (String, build::Options) {
    let r = row(n);
    let mut o = options(&r);
    o.engine_version = Some(version.into());
    (r.command, o)
}

/// Row 245 (sglang PR 29905, the cookbook's `sglang serve --model-path nvidia/Qwen3.6-27B-NVFP4 …
/// --mamba-radix-cache-strategy extra_buffer`, read with the qwen3.5-27b preset for the checkpoint
/// no preset describes): SGLang 0.5.14 renames `--mamba-scheduler-strategy` to
/// `--mamba-radix-cache-strategy` (`server_args.py`: the field `mamba_radix_cache_strategy`, the old
/// name a `DeprecatedAliasStoreAction` with `dest="mamba_radix_cache_strategy"`). Before cmdsurvey63
/// the new name stayed in `extra_args`, "accepted by the engine but not modelled"; now it is
/// `engine.mamba_scheduler_strategy`, read by 0.5.14's `_validate_mamba_extra_buffer`: the radix
/// cache kept, and `tpsim engine-args` prints it back under the release's name.
#[test]
fn mamba_radix_cache_strategy_is_the_strategy_from_0_5_14() {
    let (command, mut o) = at(245, "0.5.14");
    o.model_preset = Some("qwen3.5-27b".into());
    let i = build::import(&command, &o).expect("imports");
    assert!(
        has_line(&i.text, "mamba_scheduler_strategy = \"extra_buffer\""),
        "{}",
        i.text
    );
    assert!(!i.text.contains("--mamba-radix-cache-strategy"), "{}", i.text);
    let p = Path::new("imported.toml");
    let s = scenario::load_str(&i.text, p).expect("loads");
    assert!(s.engine.scheduler.prefix_cache);
    assert!(
        s.warnings.iter().any(|w| w.contains(
            "SGLang 0.5.14: --mamba-radix-cache-strategy extra_buffer keeps the radix cache for \
             Qwen3_5ForConditionalGeneration"
        )),
        "{:?}",
        s.warnings
    );
    let raw = scenario::parse_toml(&i.text, p).expect("parses");
    let c = engine_args::command(&s, &raw, &i.text).expect("prints");
    assert_eq!(c.value_of("--mamba-radix-cache-strategy"), Some("extra_buffer"));
}

/// SGLang 0.5.13 – 0.5.19 keep renamed flags as deprecated aliases that still take their value
/// (`arg_groups/argparse_actions.py` `DeprecatedAliasStoreAction`: a warning, then
/// `setattr(namespace, self.dest, values)`); `extract.py` wrote them as value-less `deprecated`, so
/// before cmdsurvey63 row 222's launch (sglang issue 28312: `--mamba-scheduler-strategy
/// extra_buffer`) moved to 0.5.15 was refused with "unrecognized arguments: extra_buffer", and
/// `--cuda-graph-max-bs 64` — presets12's and many surveyed SGLang lines — with "unrecognized
/// arguments: 64" at 0.5.14 – 0.5.19. The lists now say `alias-str` / `alias-int`: both import, and
/// engine-args prints the replacements (`--mamba-radix-cache-strategy`, `--cuda-graph-max-bs-decode`).
/// 0.5.20 drops the alias: the old strategy flag is refused there as SGLang refuses it.
#[test]
fn deprecated_aliases_take_their_values_to_0_5_19() {
    let graphs = |c: &str| format!("{c} --cuda-graph-max-bs 64");
    for v in ["0.5.14", "0.5.15", "0.5.19"] {
        let (command, o) = at(222, v);
        let i = build::import(&graphs(&command), &o).unwrap_or_else(|e| panic!("{v}: {e}"));
        assert!(
            has_line(&i.text, "mamba_scheduler_strategy = \"extra_buffer\""),
            "{v}: {}",
            i.text
        );
        assert!(has_line(&i.text, "cuda_graph_max_bs = 64"), "{v}: {}", i.text);
        let p = Path::new("imported.toml");
        let s = scenario::load_str(&i.text, p).unwrap_or_else(|e| panic!("{v}: {e}"));
        let raw = scenario::parse_toml(&i.text, p).expect("parses");
        let c = engine_args::command(&s, &raw, &i.text).expect("prints");
        assert_eq!(
            c.value_of("--mamba-radix-cache-strategy"),
            Some("extra_buffer"),
            "{v}"
        );
        assert_eq!(c.value_of("--cuda-graph-max-bs-decode"), Some("64"), "{v}");
        assert!(
            !c.args.iter().any(|a| a == "--mamba-scheduler-strategy"),
            "{v}: {:?}",
            c.args
        );
    }
    let (command, o) = at(222, "0.5.20");
    let e = build::import(&command, &o).expect_err("0.5.20 has no alias");
    assert!(
        e.contains("unrecognized arguments: --mamba-scheduler-strategy"),
        "{e}"
    );
}

/// Garbage for a deprecated alias that stores a value (`alias-int` / `alias-str` in the flag lists):
/// argparse's own refusals on row 222's launch at 0.5.19 — no value, a non-integer, a choice the
/// new flag does not list (refused when the imported scenario loads, with the new flag's choices) —
/// never a scenario.
#[test]
fn garbage_for_a_deprecated_alias_gets_argparses_refusal() {
    let (command, o) = at(222, "0.5.19");
    for (extra, want) in [
        (
            " --cuda-graph-max-bs",
            "argument --cuda-graph-max-bs: expected one argument",
        ),
        (
            " --cuda-graph-max-bs abc",
            "argument --cuda-graph-max-bs: invalid int value: 'abc'",
        ),
        (
            " --mamba-scheduler-strategy bogus",
            "invalid choice: 'bogus' (choose from 'auto', 'no_buffer', 'extra_buffer'",
        ),
    ] {
        let e = build::import(&format!("{command}{extra}"), &o).expect_err(extra);
        assert!(e.contains(want), "{extra}: {e}");
    }
}

/// SGLang 0.5.14's `_validate_mamba_extra_buffer` refusals of a stated extra buffer, on variants of
/// row 222's launch (sglang issue 28312, Qwen3.5-9B with NEXTN): on an AMD GPU ("extra_buffer needs
/// CUDA/MUSA/NPU (FLA)."), `extra_buffer_lazy` with a draft, and LFM2 (not in
/// `_support_mamba_cache_extra_buffer`).
#[test]
fn a_stated_extra_buffer_is_refused_as_0_5_14_refuses_it() {
    let (command, o) = at(222, "0.5.14");
    let mut amd = o.clone();
    amd.hardware = build::HardwareFrom::Preset("mi355x-8x-xgmi".into());
    let e = build::import(&command, &amd).expect_err("ROCm");
    assert!(e.contains("\"extra_buffer needs CUDA/MUSA/NPU (FLA).\""), "{e}");
    let lazy = command.replace("extra_buffer", "extra_buffer_lazy");
    let e = build::import(&lazy, &o).expect_err("lazy with a draft");
    assert!(e.contains("\"extra_buffer_lazy unsupported with spec.\""), "{e}");
    let lfm = "python -m sglang.launch_server --model-path LiquidAI/LFM2-1.2B --mamba-radix-cache-strategy extra_buffer";
    let e = build::import(lfm, &on("h100-sxm-8x-nvlink", Some("0.5.14"))).expect_err("LFM2");
    assert!(
        e.contains("\"extra_buffer is not supported for Lfm2ForCausalLM; use no_buffer.\""),
        "{e}"
    );
}

/// Rows 222 (sglang issue 28312) and 252 (Hygon's cookbook) export `SGLANG_ENABLE_SPEC_V2=1`, as the
/// SGLang MTP recipes do; before cmdsurvey63 it went into the note's list of variables tpsim does not
/// read, with no reason. SGLang 0.5.9's `server_args.py` turns the overlap scheduler on for EAGLE /
/// EAGLE3 / STANDALONE drafts under it; tpsim simulates the speculative step without the overlap, and
/// now says so by name (the variable stays out of `[engine.env]`).
#[test]
fn spec_v2_is_said_plainly_to_be_left_out() {
    let r = row(222);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(
        i.notes.iter().any(|n| n.starts_with(
            "SGLANG_ENABLE_SPEC_V2=1 left out: SGLang's spec v2 keeps the overlap scheduler on"
        ) && n.contains("tpsim simulates the speculative step without the overlap")),
        "{:?}",
        i.notes
    );
    assert!(
        !i.text.lines().any(|l| l.starts_with("SGLANG_ENABLE_SPEC_V2")),
        "{}",
        i.text
    );
    assert!(
        i.notes
            .iter()
            .all(|n| !n.contains("not read by tpsim") || !n.contains(" SGLANG_ENABLE_SPEC_V2=")),
        "{:?}",
        i.notes
    );
}
