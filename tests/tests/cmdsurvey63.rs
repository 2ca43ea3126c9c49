//! cmdsurvey63 (issue #17): 20 more real, public launch commands of April – September 2026 (rows
//! 233–252 of `tests/data/launch-commands.tsv`: GitHub issues and pull requests of vLLM, vllm-ascend,
//! SGLang, the vLLM recipes, ktransformers, flashinfer, ROCm/ATOM, Hygon's plugin and cookbook and users'
//! toolboxes; vLLM 0.17 – 0.33, SGLang 0.5.10 – 0.5.14 and forks). Every row's outcome is checked by
//! cmdsurvey55's `every_surveyed_command_gives_its_recorded_outcome`; this suite counts the new rows'
//! classes (book/src/scenarios.md, "Launch commands surveyed (cmdsurvey63)"), pins each fix of a
//! wrapper or flag tpsim refused or misread where the engine accepts it, and checks that
//! `tpsim engine-args` prints back, for every row that imports, only flags the release defines
//! (issue #17 point 6).

use crate::cmdsurvey55::{class_counts, has_line, on, options, row, survey_rows};
use crate::engine_args_versions::{kinds, unknown_or_deprecated};
use std::path::Path;
use tpsim::engine_args;
use tpsim::engine_args_versions::list_for;
use tpsim::import_command_build as build;
use tpsim::scenario::{self, EngineKind};

/// Rows 233–252, each naming its source and dated; the classes the book counts: 4 ok (233, 241,
/// 242, 247), 11 no preset (235, 237, 239, 240, 243, 244, 245, 248 – 251), 2 refused by the release
/// (238: ktransformers' `--kt-*` flags; 246: `--quantization per_token_nvfp4`, a name no release
/// shipped), 0 box, 1 not modelled (236: vLLM DP + EP over 16 devices), 0 not a command, 1 the user's
/// own path (234: `--model /model`), 1 doubtful (252: a Hygon DCU launch read on an AMD box)
/// (20 = 4 + 11 + 2 + 0 + 1 + 0 + 1 + 1). Before cmdsurvey63's fix row 233 was refused ("no engine
/// launch found").
#[test]
fn the_63_survey_has_20_sourced_rows_in_the_books_classes() {
    let rows = survey_rows(233..=252, |_| false);
    assert_eq!(class_counts(&rows), [4, 11, 2, 0, 1, 0, 1, 1]);
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
/// and 247 at tpsim's current vLLM).
#[test]
fn engine_args_prints_back_only_the_releases_flags() {
    let mut checked = Vec::new();
    for r in survey_rows(233..=252, |_| false)
        .iter()
        .filter(|r| r.expected == "ok")
    {
        let i = build::import(&r.command, &options(r)).unwrap_or_else(|e| panic!("row {}: {e}", r.n));
        let p = Path::new("imported.toml");
        let s = scenario::load_str(&i.text, p).unwrap_or_else(|e| panic!("row {}: {e}", r.n));
        let raw = scenario::parse_toml(&i.text, p).expect("parses");
        let c = engine_args::command(&s, &raw, &i.text).unwrap_or_else(|e| panic!("row {}: {e}", r.n));
        let list = list_for(c.engine, &c.version).expect("a list");
        let positional = usize::from(c.engine == EngineKind::Vllm);
        let bad = unknown_or_deprecated(&c.args, positional, &kinds(&list.file()));
        assert!(
            bad.is_empty(),
            "row {} at {}: {bad:?} in {:?}",
            r.n,
            c.version,
            c.args
        );
        checked.push(r.n);
    }
    assert_eq!(checked, [233, 241, 242, 247]);
}
