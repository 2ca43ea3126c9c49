//! cmdsurvey64 (issue #17): 20 more real, public launch commands of January – August 2026 (rows
//! 253–272 of `tests/data/launch-commands.tsv`: GitHub issues and pull requests of vLLM, vllm-ascend,
//! SGLang, sglang-jax, intel/llm-scaler and vllm-windows; vLLM 0.11 – 0.24 and forks, SGLang 0.5.9 –
//! 0.5.19 and branches). Every row's outcome is checked by cmdsurvey55's
//! `every_surveyed_command_gives_its_recorded_outcome`; this suite counts the new rows' classes
//! (book/src/scenarios.md, "Launch commands surveyed (cmdsurvey64)"), pins the two fixes (a shell
//! prompt copied in front of the program; SGLang's own `--dcp-size`), and checks that `tpsim
//! engine-args` prints back, for every row that imports, only flags the release defines.

use crate::cmdsurvey55::{
    class_counts, has_line, on, options, row, rows_printed_back_with_only_their_releases_flags, survey_rows,
};
use std::path::Path;
use tpsim::import_command_build as build;
use tpsim::scenario;

/// Rows 253–272, each naming its source and dated but for 271 (a comment of vllm issue 48602 whose
/// date was not read; its date column says so). The classes the book counts: 3 ok (253, 254, 272),
/// 9 no preset (255, 257, 261, 263 – 268), 2 refused by the release (258: SGLang's start-up check that
/// MiniMax-M2.7's moe_intermediate_size 1536 / tp 8 = 192 is no multiple of the FP8 block 128 — the
/// failure the issue reports; 270: the post's unquoted JSON, which the shell splits into words
/// argparse does not take), 0 box, 6 not modelled (256: a draft with pipeline parallelism; 259, 260,
/// 271: DeepSeek-V4's MTP draft and DeepSeek-V4 under vLLM; 262: SGLang-JAX; 269: SGLang's diffusion
/// server), 0 not a command, 0 the user's own path, 0 doubtful (20 = 3 + 9 + 2 + 0 + 6 + 0 + 0 + 0).
/// Before cmdsurvey64's prompt fix row 258 was "not a command" ("no engine launch found"):
/// [3, 9, 1, 0, 6, 1, 0, 0].
#[test]
fn the_64_survey_has_20_sourced_rows_in_the_books_classes() {
    let rows = survey_rows(253..=272, |r| r.n == 271 && r.date.contains("not read"));
    assert_eq!(class_counts(&rows), [3, 9, 2, 0, 6, 0, 0, 0]);
}

/// The scenario text without the import's comment lines (the notes), to compare two imports'
/// keys.
fn keys_of(text: &str) -> String {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Row 258 (sglang issue 23265, "Unable to Load MiniMax 2.7 on 8 GPUs"): the post copies the
/// terminal's prompt, `~$ sglang serve …`. Bash's default prompt `\u@\h:\w\$` ends in `$` (`#` for
/// root; Bash manual, "Controlling the Prompt"). Before cmdsurvey64 the import stopped at "no engine
/// launch found"; now the prompt word is left out with a note, and the row reaches SGLang's own
/// refusal: tp 8 splits MiniMax-M2.7's moe_intermediate_size 1536 into 1536 / 8 = 192 per rank, no
/// multiple of the FP8 block 128 — the failure the issue reports. The same launch without the prompt
/// gives the same refusal; `$`, `user@host:~/dir$` and root's `root@host:/#` prompts read the same
/// scenario as the bare command; a prompt in front of something else is still no launch, and a first
/// word starting with `-` is no prompt (one holding `=` is the shell's assignment, as before).
#[test]
fn a_shell_prompt_in_front_of_the_program_is_left_out() {
    let r = row(258);
    let e = build::import(&r.command, &options(&r)).expect_err("tp 8");
    assert!(e.contains("tp = 8 does not work for minimax_m2"), "{e}");
    assert!(
        e.contains("# `~$` in front of the program is a shell prompt copied with the command, left out"),
        "{e}"
    );
    let bare = r.command.replacen("~$ ", "", 1);
    assert_ne!(bare, r.command);
    let e2 = build::import(&bare, &options(&r)).expect_err("tp 8");
    assert!(e2.contains("tp = 8 does not work for minimax_m2"), "{e2}");
    let o = on("h200-8x-nvlink", Some("0.19.0"));
    let plain = build::import("vllm serve google/gemma-4-31B-it -tp 2", &o)
        .expect("bare")
        .text;
    for prompt in ["$", "~$", "user@gpu-box:~/work$", "root@host:/#"] {
        let c = format!("{prompt} vllm serve google/gemma-4-31B-it -tp 2");
        let i = build::import(&c, &o).unwrap_or_else(|e| panic!("{c}: {e}"));
        assert_eq!(keys_of(&i.text), keys_of(&plain), "{c}");
        assert!(
            i.notes
                .iter()
                .any(|n| n.starts_with(&format!("`{prompt}` in front"))),
            "{c}: {:?}",
            i.notes
        );
    }
    for c in ["~$ ls -la", "-x$ vllm serve google/gemma-4-31B-it -tp 2"] {
        let e = build::import(c, &o).expect_err(c);
        assert!(e.contains("no engine launch found"), "{c}: {e}");
    }
}

/// Row 270 (sglang issue 34260, Kimi-K3 on 8 GPUs with `--dcp-size 8`) with its JSON quoted as the
/// poster's shell must have had it. SGLang 0.5.15 – 0.5.23 define their own `--dcp-size|--decode-
/// context-parallel-size` (`server_args.py` field `dcp_size`); before cmdsurvey64 the import read it
/// as vLLM's `engine.dcp_size`, and the scenario was refused with "a vLLM setting
/// (--decode-context-parallel-size): not an SGLang option". Now it stays in `engine.extra_args`,
/// accepted by the engine and warned about (tpsim does not model SGLang's DCP), under either name;
/// vLLM's `--decode-context-parallel-size 8` is still `dcp_size = 8`, and SGLang 0.5.14, which has no
/// such flag, still refuses it as argparse does.
#[test]
fn sglangs_own_dcp_size_stays_an_extra_argument() {
    let r = row(270);
    let quoted = r.command.replace(
        r#"{"enable_multithread_load": true,"num_threads": 4}"#,
        r#"'{"enable_multithread_load": true,"num_threads": 4}'"#,
    );
    assert_ne!(quoted, r.command);
    let sglang = |c: &str, v: &str| build::import(c, &on("b200-8x-nvlink", Some(v)));
    for c in [
        quoted.clone(),
        "sglang serve --model-path moonshotai/Kimi-K3 --tp 8 --decode-context-parallel-size 8".into(),
    ] {
        let i = sglang(&c, "0.5.19").unwrap_or_else(|e| panic!("{c}: {e}"));
        assert!(has_line(&i.text, "preset = \"kimi-k3\""), "{}", i.text);
        assert!(!i.text.contains("dcp_size"), "{}", i.text);
        let s = scenario::load_str(&i.text, Path::new("imported.toml")).expect("loads");
        assert!(
            s.warnings
                .iter()
                .any(|w| w.contains("is accepted by the engine but not modelled")
                    && (w.contains("`--dcp-size 8`") || w.contains("`--decode-context-parallel-size 8`"))),
            "{:?}",
            s.warnings
        );
    }
    let e = sglang(
        "sglang serve --model-path moonshotai/Kimi-K3 --tp 8 --dcp-size 8",
        "0.5.14",
    )
    .expect_err("0.5.14");
    assert!(e.contains("unrecognized arguments: --dcp-size"), "{e}");
    let v = build::import(
        "vllm serve deepseek-ai/DeepSeek-V3 --tensor-parallel-size 8 --decode-context-parallel-size 8",
        &on("h200-8x-nvlink", Some("0.19.0")),
    )
    .expect("vLLM");
    assert!(has_line(&v.text, "dcp_size = 8"), "{}", v.text);
}

/// Issue #17 point 6: `tpsim engine-args` on every row of this survey that imports prints back a
/// command whose every flag the simulated release defines and does not deprecate (rows 253 at SGLang
/// 0.5.9, 254 at vLLM 0.11.2, 272 at SGLang 0.5.19; 254's `-O3` is taken as vLLM 0.11's parser takes it).
#[test]
fn engine_args_prints_back_only_the_releases_flags() {
    let rows = survey_rows(253..=272, |r| r.n == 271);
    assert_eq!(
        rows_printed_back_with_only_their_releases_flags(&rows),
        [253, 254, 272]
    );
}
