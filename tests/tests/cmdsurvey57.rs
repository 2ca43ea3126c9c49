//! cmdsurvey57 (issue #17): 45 more real, public launch commands (rows 105–149 of
//! `tests/data/launch-commands.tsv`: GitHub issues and pull requests of SGLang, vLLM, model and tool
//! repositories of 2024–2026, and the vLLM recipes' Qwen3-Next / Qwen3.5 pages), and the importer's
//! fixes they called for. Every row's outcome is checked by cmdsurvey55's
//! `every_surveyed_command_gives_its_recorded_outcome` (it reads the whole table); this suite counts
//! the new rows' classes (book/src/scenarios.md, "Launch commands surveyed (cmdsurvey57)") and pins
//! each fix on its row and on a variant with a bundled model.

use crate::cmdsurvey55::{class_counts, has_line, on, options, row, survey_rows};
use crate::common::{scratch, tpsim};
use std::path::Path;
use tpsim::import_command_build as build;

/// Rows 105–149: each names its source (a repository thread, or a recipe file with its commit) and
/// a date unless a recipe commit or "date not read" stands for it; the classes the book counts:
/// 26 ok (row 148 since presets57's `qwen3-vl-235b-a22b-instruct`; 107, 108 and 127 since presets58's
/// MiniMax-M2 and DeepSeek-V3.1 aliases; 133 since vllmmtp64's `qwen3_next_mtp`), 10 no preset, 4
/// refused by the release, 0 box, 0 not modelled, 1 not a command, 3 the user's own path (117 since
/// presets58's `deepseek-v3.1-nvfp4`: its path ends in `main`), 1 doubtful
/// (45 = 26 + 10 + 4 + 0 + 0 + 1 + 3 + 1).
#[test]
fn the_57_survey_has_45_sourced_rows_in_the_books_classes() {
    let rows = survey_rows(105..=149, |r| {
        r.source.contains(" @") || r.source.contains("date not read")
    });
    let got = class_counts(&rows);
    assert_eq!(got, [26, 10, 4, 0, 0, 1, 3, 1]);
}

/// Row 117 (sglang issue 17880): `nohup python -m sglang.launch_server … --model-path
/// /data/DeepSeek-V3.1-NVFP4/main > 6000d.log 2>&1 &`. Before cmdsurvey57 the redirection reached
/// argparse ("unrecognized arguments: >"); bash applies it and never passes it on (Bash manual 3.6),
/// so the refusal is now the model's (no bundled DeepSeek-V3.1 NVFP4). A bundled model with the same
/// tail imports, the redirections noted.
#[test]
fn redirections_are_the_shells_not_the_engines() {
    let r = row(117);
    let e = build::import(&r.command, &options(&r)).expect_err("no preset");
    assert!(
        e.contains("`/data/DeepSeek-V3.1-NVFP4/main` is no bundled model preset"),
        "{e}"
    );
    assert!(!e.contains("unrecognized arguments: >"), "{e}");
    let c = "nohup python -m sglang.launch_server --model-path Qwen/Qwen3-8B --tp 2 > s.log 2>&1 &";
    let i = build::import(c, &on("rtx-4090-2x-no-p2p", None)).expect("imports");
    assert!(has_line(&i.text, "preset = \"qwen3-8b\""), "{}", i.text);
    assert!(has_line(&i.text, "tp = 2"), "{}", i.text);
    assert!(
        i.notes.iter().any(|n| n.ends_with("left out: > s.log 2>&1")),
        "{:?}",
        i.notes
    );
}

/// Row 122 (vllm issue 33155, tonyaw, vLLM 0.11.2, 1× H100): a script with `model_name="openai/gpt-oss-120b"`,
/// `max_model_len=$((85 * 1024))`, then `… uv run vllm serve $model_name … --port $port -O3 …
/// --max-model-len $max_model_len >> "$LOG_FILE" 2>&1 &`. Before cmdsurvey57: "no engine launch
/// found". Now: `uv run` runs the program, `$((85 * 1024))` is 85 × 1024 = 87,040, the unset `$port`
/// (the server's address) is left out with a note, `-O3` is vLLM's optimization level (accepted, not
/// modelled), the redirections are the shell's. The poster's verdict: it starts (85K context on one
/// H100 at 0.97).
#[test]
fn a_uv_run_script_with_arithmetic_imports() {
    let r = row(122);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(has_line(&i.text, "preset = \"gpt-oss-120b\""), "{}", i.text);
    assert!(has_line(&i.text, "max_model_len = 87040"), "{}", i.text);
    assert!(has_line(&i.text, "gpu_memory_utilization = 0.97"), "{}", i.text);
    assert!(i.text.contains("\"-O3\""), "{}", i.text);
    assert!(
        i.notes
            .iter()
            .any(|n| n.starts_with("--port $port: the server's address")),
        "{:?}",
        i.notes
    );
    let d = scratch("cmdsurvey57-uv");
    let f = d.join("s.toml");
    std::fs::write(&f, &i.text).expect("write");
    let o = tpsim(&["memory", f.to_str().expect("utf-8")]);
    assert!(o.stdout.contains("Verdict: starts"), "{}{}", o.stdout, o.stderr);
    // A variable that a key reads, unset in the text, is named rather than read as argparse would
    // read the literal `$N`.
    let e = build::import(
        "vllm serve openai/gpt-oss-20b --max-num-seqs $N",
        &on("h100-sxm-1x", Some("0.11.0")),
    )
    .expect_err("unset");
    assert!(
        e.contains("`$N` is a shell variable the text does not set"),
        "{e}"
    );
}

/// Row 121 (vllm issue 31422, a vLLM maintainer's B200 run, 2026-02): `vllm serve openai/gpt-oss-20b
/// -tp=2 --attention-backend=triton_attn`. vLLM 0.13.0 – 0.19.0 read the name as
/// `AttentionBackendEnum[value.upper()]` (`vllm/config/attention.py` `validate_backend_before`, for
/// the flag and for `VLLM_ATTENTION_BACKEND`), so it runs TRITON_ATTN; before cmdsurvey57 tpsim
/// refused "Unknown attention backend: 'triton_attn'". vLLM 0.11.0 looks the environment's name up
/// as written and still refuses it.
#[test]
fn a_lowercase_attention_backend_is_vllms_from_0_13() {
    let r = row(121);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml")).expect("loads");
    assert_eq!(s.engine.attention_backend.as_deref(), Some("TRITON_ATTN"));
    assert_eq!(s.engine.tp, 2);
    let env = "VLLM_ATTENTION_BACKEND=triton_attn vllm serve openai/gpt-oss-20b";
    let i = build::import(env, &on("h100-sxm-1x", Some("0.13.0"))).expect("imports");
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml")).expect("loads");
    assert_eq!(s.engine.attention_backend.as_deref(), Some("TRITON_ATTN"));
    let e = build::import(env, &on("h100-sxm-1x", Some("0.11.0"))).expect_err("0.11 refuses");
    assert!(e.contains("Unknown attention backend: 'triton_attn'"), "{e}");
}

/// Row 119 (sglang issue 6296): a script run once per node, `--nnodes 2 --node-rank $1`. Before
/// cmdsurvey57 argparse's check met the literal `$1` ("invalid int value: '$1'"); the node flags are
/// left out anyway (the box gives the nodes), so the unset value is now noted and the import goes on
/// to the next verdict, the NextN draft's path (no preset). With a bundled model and no draft it
/// imports on the 16-GPU box.
#[test]
fn an_unset_node_rank_is_left_out() {
    let r = row(119);
    let e = build::import(&r.command, &options(&r)).expect_err("draft");
    assert!(
        e.contains("DeepSeek-V3-0324-NextN` is no bundled model preset"),
        "{e}"
    );
    let c = "python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --nnodes 2 --node-rank $1 --tp-size 16";
    let i = build::import(c, &on("h200-16x-2node-ib", Some("0.5.8"))).expect("imports");
    assert!(has_line(&i.text, "tp = 16"), "{}", i.text);
    assert!(
        i.notes
            .iter()
            .any(|n| n.starts_with("--node-rank $1: the nodes come from the box")),
        "{:?}",
        i.notes
    );
}

/// Row 111 (vllm issue 22793): each `\` of a `sudo docker run` is followed by an empty line, which
/// ends the command in a shell; before cmdsurvey57 the message guessed at an unknown option ("no image
/// after the options"). The same command without the empty lines imports: the image `gptoss` names no
/// release, so at 0.11.0 `VLLM_ATTENTION_BACKEND=TRITON_ATTN_VLLM_V1` (0.10's name) is refused as
/// 0.11.0 refuses it.
#[test]
fn an_empty_line_after_a_continuation_ends_the_command() {
    let r = row(111);
    let e = build::import(&r.command, &options(&r)).expect_err("ended");
    assert!(e.contains("nothing follows `docker run`"), "{e}");
    assert!(
        e.contains("followed by an empty line ends the command there"),
        "{e}"
    );
    let joined = r.command.replace("\\\n\n", "\\\n");
    let e = build::import(&joined, &options(&r)).expect_err("0.11.0 backend");
    assert!(
        e.contains("Unknown attention backend: 'TRITON_ATTN_VLLM_V1'"),
        "{e}"
    );
}

/// vLLM's `-O3` (row 122): `FlexibleArgumentParser` rewrites it to `-O.level=3` of
/// `--compilation-config` in 0.10.1 – 0.11.x and to `--optimization-level 3` from 0.12.0 (where the
/// release lists that flag); either way argparse accepts it, where tpsim refused "unrecognized
/// arguments: -O3" before cmdsurvey57. `-O` then a non-number is still no flag of 0.19.0.
#[test]
fn vllm_dash_o_levels_are_accepted_by_release() {
    for v in ["0.10.1.1", "0.11.0", "0.19.0"] {
        let i = build::import("vllm serve Qwen/Qwen3-8B -O3", &on("h100-sxm-1x", Some(v)))
            .unwrap_or_else(|e| panic!("{v}: {e}"));
        assert!(has_line(&i.text, "extra_args = [\"-O3\"]"), "{v}: {}", i.text);
    }
    let e = build::import("vllm serve Qwen/Qwen3-8B -Q3", &on("h100-sxm-1x", Some("0.19.0")))
        .expect_err("unknown");
    assert!(e.contains("unrecognized arguments: -Q3"), "{e}");
}
