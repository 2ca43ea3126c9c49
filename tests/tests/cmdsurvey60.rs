//! cmdsurvey60 (issue #17): 16 more real, public launch commands (rows 197–212 of
//! `tests/data/launch-commands.tsv`: GitHub issues and pull requests of vLLM, SGLang, the vLLM recipes,
//! KServe, GPUStack and users' projects, 2025–2026), most for PCIe boxes (RTX PRO 6000, RTX 5090,
//! RTX 4090, L20, L40) and recent releases. Every row's outcome is checked by cmdsurvey55's
//! `every_surveyed_command_gives_its_recorded_outcome`; this suite counts the new rows' classes
//! (book/src/scenarios.md, "Launch commands surveyed (cmdsurvey60)") and pins each importer fix on
//! its row and on a variant with a bundled model.

use crate::cmdsurvey55::{class_counts, has_line, on, options, row, survey_rows};
use tpsim::import_command_build as build;

/// Rows 197–212, each naming its source and dated (a recipe by its `date_updated`); the classes the
/// book counts: 3 ok (rows 201, 208; 212 since presets61's `qwen3-0.6b`), 5 no preset, 0 refused by
/// the release, 0 box, 4 not modelled (207, SGLang's router; 197, 198, 199 since presets61's
/// `deepseek-v4-flash`: DeepSeek-V4 under vLLM), 1 not a command (205), 0 the user's own path,
/// 3 doubtful (203, 204, 211) (16 = 3 + 5 + 0 + 0 + 4 + 1 + 0 + 3). presets64: row 200 (`qwen3.6-35b-a3b-fp8`)
/// is ok, row 202 (`qwen3.6-27b-fp8`, imported with `--acceptance 'alpha = 0.7'`) reaches vLLM's MTP draft for
/// qwen3_5_text, which vllmmtp64 models from 0.17.0 (the default release 0.19.0): 5 ok, 3 no preset, 4 not
/// modelled (16 = 5 + 3 + 0 + 0 + 4 + 1 + 0 + 3).
#[test]
fn the_60_survey_has_16_sourced_rows_in_the_books_classes() {
    let rows = survey_rows(197..=212, |_| false);
    assert_eq!(class_counts(&rows), [5, 3, 0, 0, 4, 1, 0, 3]);
}

/// Row 207 (QwenLM/Qwen3-VL issue 1746): the posted command's last line ends in `\` and nothing
/// follows. The shell removes the `\`-newline pair (Bash manual 3.1.2.1) and the end of the input
/// ends the command, which runs (`printf 'echo a \\\n' | bash` prints `a`); before cmdsurvey60 tpsim
/// called it "an unclosed quote". Now the command is read: SGLang's router, named as such. A bundled
/// model's launch ending the same way imports; an open quote is still refused.
#[test]
fn a_text_ending_in_a_continuation_is_a_whole_command() {
    let r = row(207);
    let e = build::import(&r.command, &options(&r)).expect_err("the router");
    assert!(
        e.contains("sglang_router.launch_server starts `--dp` SGLang servers"),
        "{e}"
    );
    assert!(!e.contains("unclosed quote"), "{e}");

    let c = "python -m sglang.launch_server \\\n    --model-path Qwen/Qwen3-8B \\\n    --tp 2 \\\n";
    let i = build::import(c, &on("rtx-4090-2x-no-p2p", Some("0.5.4"))).expect("imports");
    assert!(has_line(&i.text, "preset = \"qwen3-8b\""), "{}", i.text);
    assert!(has_line(&i.text, "tp = 2"), "{}", i.text);
    let open = "vllm serve Qwen/Qwen3-8B --served-model-name 'qwen \\\n";
    let e = build::import(open, &on("rtx-4090-2x-no-p2p", None)).expect_err("open quote");
    assert!(e.contains("unclosed quote"), "{e}");
}

/// Row 203 (zai-org/Open-AutoGLM issue 75): the posted command ends `--port 8000` and a backquote
/// that opens no pair. In bash a backquote starts a command substitution (Bash manual 3.5.4); left
/// open, bash stops with "unexpected EOF while looking for matching ``'" and runs nothing. Before
/// cmdsurvey60 shlex kept the backquote in the word and SGLang 0.5.6.post1's argparse was said to
/// refuse `--port 8000``; now the shell's error is given. (The poster reports the command ran, so
/// the backquote is likely the Markdown's: the row is doubtful.) Without the backquote, a bundled
/// model's command with the row's `--attention-backend flashinfer` imports with its port (without it,
/// SGLang 0.5.6.post1's default on compute capability 12.0 is TRTLLM MHA, which it refuses there).
#[test]
fn an_unmatched_backquote_is_the_shells_error() {
    let r = row(203);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(e.contains("the command has an unmatched backquote"), "{e}");
    assert!(!e.contains("invalid int value"), "{e}");

    let v = on("rtx-5090-2x-no-p2p", Some("0.5.6.post1"));
    let e = build::import(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfer --port 8000`",
        &v,
    )
    .expect_err("refused");
    assert!(e.contains("unmatched backquote"), "{e}");
    let i = build::import(
        "python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B --attention-backend flashinfer --port 8000",
        &v,
    )
    .expect("imports");
    assert!(
        has_line(&i.text, "attention_backend = \"flashinfer\""),
        "{}",
        i.text
    );
    assert!(
        has_line(&i.text, "extra_args = [\"--port\", \"8000\"]"),
        "{}",
        i.text
    );
}

/// Row 205 (kserve issue 5773): KServe's single-node template renders `eval "exec vllm serve
/// /mnt/models \ … ${ACCESS_LOG_ARGS} \ … ${VLLM_ADDITIONAL_ARGS} \ $@"`. `eval` joins its arguments
/// and runs them as the shell's input (Bash manual 4.1); before cmdsurvey60 tpsim found "no engine
/// launch". Now the string is read: vLLM's argparse meets `${ACCESS_LOG_ARGS}`, which the template's
/// environment sets and the text does not, and the refusal says so. A bundled model's `eval "exec
/// vllm serve …"` imports.
#[test]
fn eval_runs_its_string() {
    let r = row(205);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(e.contains("unrecognized arguments: ${ACCESS_LOG_ARGS}"), "{e}");
    assert!(
        e.contains("`${ACCESS_LOG_ARGS}` is a shell variable the text does not set"),
        "{e}"
    );
    assert!(!e.contains("no engine launch found"), "{e}");

    let c = "eval \"exec vllm serve Qwen/Qwen3-8B \\\n  --max-model-len 8192 \\\n  --port 8000\"";
    let i = build::import(c, &on("rtx-4090-2x-no-p2p", Some("0.11.0"))).expect("imports");
    assert!(has_line(&i.text, "preset = \"qwen3-8b\""), "{}", i.text);
    assert!(has_line(&i.text, "max_model_len = 8192"), "{}", i.text);
}

/// Row 212 (gpustack issue 4280): a container's `Args`, `tini -- vllm serve …/model_scope/Qwen/Qwen3-0.6B
/// --tensor-parallel-size 1 --pipeline-parallel-size 2 --distributed-executor-backend ray …`. tini
/// (Docker's init, `docker run --init`) runs the program after its `--`; before cmdsurvey60 tpsim
/// found "no engine launch". Now the model is reached, and since presets61 it is the preset
/// `qwen3-0.6b` (before: no preset for Qwen3-0.6B). Another bundled model's same Args import at vLLM
/// 0.14.1: tp 1, pp 2 over Ray, with vLLM's warning that async scheduling is off under pipeline
/// parallelism.
#[test]
fn tini_runs_the_program_after_its_dashes() {
    let r = row(212);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(has_line(&i.text, "preset = \"qwen3-0.6b\""), "{}", i.text);
    assert!(has_line(&i.text, "pp_size = 2"), "{}", i.text);
    let c = "tini -- vllm serve Qwen/Qwen3-8B --max-model-len 8192 --tensor-parallel-size 1 \
             --pipeline-parallel-size 2 --distributed-executor-backend ray --port 40052";
    let i = build::import(c, &on("rtx-4090-2x-no-p2p", Some("0.14.1"))).expect("imports");
    for line in [
        "preset = \"qwen3-8b\"",
        "tp = 1",
        "pp_size = 2",
        "distributed_executor_backend = \"ray\"",
        "max_model_len = 8192",
    ] {
        assert!(has_line(&i.text, line), "{line}\n{}", i.text);
    }
}
