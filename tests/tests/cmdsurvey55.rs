//! cmdsurvey55 (issue #17): real, public launch commands, as their authors posted them, through
//! `tpsim import-command`. `tests/data/launch-commands.tsv` holds 45 of them (GitHub issues and pull
//! requests of SGLang, vLLM and their users, the engines' docs and recipes, a forum post), each with
//! its source, date, the box it ran on and the outcome tpsim gives; every row is imported here and
//! must give that outcome, so a change that breaks a real command fails. The table and its counts:
//! book/src/scenarios.md, "Launch commands surveyed (cmdsurvey55)".

use crate::common::{scratch, tpsim};
use std::path::{Path, PathBuf};
use tpsim::import_command_build::{self as build, HardwareFrom, Options};
use tpsim::scenario::EngineKind;

/// One row of the survey table (cmdsurvey57 reads the table through this module too).
pub(crate) struct Row {
    pub(crate) n: u32,
    pub(crate) source: String,
    pub(crate) date: String,
    pub(crate) hardware: String,
    pub(crate) options: String,
    pub(crate) class: String,
    pub(crate) expected: String,
    pub(crate) command: String,
}

/// `\n` → new line, `\\` → `\` (the file's escapes for a script's lines).
fn unescape(s: &str) -> String {
    let mut out = String::new();
    let mut it = s.chars();
    while let Some(c) = it.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match it.next() {
            Some('n') => out.push('\n'),
            Some('\\') => out.push('\\'),
            Some(o) => panic!("unknown escape \\{o} in {s}"),
            None => out.push('\\'),
        }
    }
    out
}

pub(crate) fn rows() -> Vec<Row> {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/launch-commands.tsv");
    let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    let mut lines = text.lines().filter(|l| !l.starts_with('#'));
    let header = lines.next().expect("header");
    assert_eq!(
        header,
        "n\tsource\tdate\tengine\tversion\tbox\thardware\toptions\tclass\texpected\tcommand"
    );
    lines
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            assert_eq!(f.len(), 11, "{l}");
            Row {
                n: f[0].parse().expect("row number"),
                source: f[1].into(),
                date: f[2].into(),
                hardware: f[6].into(),
                options: f[7].into(),
                class: f[8].into(),
                expected: f[9].into(),
                command: unescape(f[10]),
            }
        })
        .collect()
}

/// The import options of a row: its box, and `--engine-version X` / `--acceptance …` when given.
/// Import options for a command on the `hardware` preset at `version` (the later surveys' own
/// variants of a row).
pub(crate) fn on(hardware: &str, version: Option<&str>) -> Options {
    Options {
        hardware: HardwareFrom::Preset(hardware.into()),
        engine_version: version.map(str::to_string),
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    }
}

/// Whether an imported scenario's text has `line` as one of its lines.
pub(crate) fn has_line(text: &str, line: &str) -> bool {
    text.lines().any(|l| l == line)
}

/// The survey's rows `range`, checked to be consecutive, each naming its source (a repository thread
/// or file) and dated, unless `excused` says its source stands for the date.
pub(crate) fn survey_rows(range: std::ops::RangeInclusive<u32>, excused: impl Fn(&Row) -> bool) -> Vec<Row> {
    let rows: Vec<_> = rows().into_iter().filter(|r| range.contains(&r.n)).collect();
    let ns: Vec<u32> = rows.iter().map(|r| r.n).collect();
    assert_eq!(ns, range.collect::<Vec<_>>());
    for r in &rows {
        assert!(r.source.contains('/'), "row {}: {}", r.n, r.source);
        let dated = r.date.len() == 10 && r.date.as_bytes()[4] == b'-';
        assert!(dated || excused(r), "row {}: no date", r.n);
    }
    rows
}

pub(crate) fn options(r: &Row) -> Options {
    let mut o = Options {
        hardware: HardwareFrom::Preset(r.hardware.clone()),
        engine_version: None,
        model_preset: None,
        model_config: None,
        acceptance: None,
        output: None,
    };
    // cmdsurvey62: `--engine-version X` may be followed by `--acceptance …`.
    let mut rest = r.options.as_str();
    if let Some(v) = rest.strip_prefix("--engine-version ") {
        let (v, after) = v.split_once(' ').unwrap_or((v, ""));
        o.engine_version = Some(v.into());
        rest = after;
    }
    if let Some(a) = rest.strip_prefix("--acceptance ") {
        o.acceptance = Some(a.into());
    } else {
        assert!(rest.is_empty(), "row {}: options {}", r.n, r.options);
    }
    o
}

/// How many of `rows` fall in each of the book's outcome classes, in the book's order: ok, refused
/// for the model, the release, the box, not modelled, not a command, the user's own path; doubtful.
pub(crate) fn class_counts(rows: &[Row]) -> [usize; 8] {
    let count = |c: &str| rows.iter().filter(|r| r.class == c).count();
    [
        count("ok"),
        count("refused: model"),
        count("refused: release"),
        count("refused: box"),
        count("refused: not modelled"),
        count("refused: not a command"),
        count("refused: user's path"),
        count("doubtful"),
    ]
}

/// Issue #17 point 6, for the surveys from cmdsurvey63 on: every row of `rows` whose outcome is ok,
/// imported and printed back by `tpsim engine-args`, must carry only flags its simulated release defines
/// and does not deprecate (checked against the list file by `engine_args_versions`' own reader).
/// vLLM's `-O<n>` is the release's own shorthand: 0.11's `FlexibleArgumentParser.parse_args` rewrites
/// it to `-O.level=<n>` before argparse runs (`vllm/utils/__init__.py`), which the list file (argparse's
/// names) cannot show. Returns the rows checked, in order.
pub(crate) fn rows_printed_back_with_only_their_releases_flags(rows: &[Row]) -> Vec<u32> {
    use crate::engine_args_versions::{kinds, unknown_or_deprecated};
    let mut checked = Vec::new();
    for r in rows.iter().filter(|r| r.expected == "ok") {
        let i = build::import(&r.command, &options(r)).unwrap_or_else(|e| panic!("row {}: {e}", r.n));
        let p = Path::new("imported.toml");
        let s = tpsim::scenario::load_str(&i.text, p).unwrap_or_else(|e| panic!("row {}: {e}", r.n));
        let raw = tpsim::scenario::parse_toml(&i.text, p).expect("parses");
        let c = tpsim::engine_args::command(&s, &raw, &i.text).unwrap_or_else(|e| panic!("row {}: {e}", r.n));
        let list = tpsim::engine_args_versions::list_for(c.engine, &c.version).expect("a list");
        let vllm = c.engine == EngineKind::Vllm;
        let args: Vec<String> = c
            .args
            .iter()
            .filter(|a| !(vllm && a.strip_prefix("-O").is_some_and(|l| l.parse::<u8>().is_ok())))
            .cloned()
            .collect();
        let bad = unknown_or_deprecated(&args, usize::from(vllm), &kinds(&list.file()));
        assert!(
            bad.is_empty(),
            "row {} at {}: {bad:?} in {:?}",
            r.n,
            c.version,
            c.args
        );
        checked.push(r.n);
    }
    checked
}

pub(crate) fn row(n: u32) -> Row {
    rows().into_iter().find(|r| r.n == n).expect("row")
}

/// Every row gives its recorded outcome: `ok` imports and the written scenario loads; otherwise the
/// import is refused (exit 2) with the recorded text in its message.
#[test]
fn every_surveyed_command_gives_its_recorded_outcome() {
    let rows = rows();
    for r in &rows {
        let got = build::import(&r.command, &options(r));
        if r.expected == "ok" {
            let i = got.unwrap_or_else(|e| panic!("row {} ({}): {e}", r.n, r.source));
            tpsim::scenario::load_str(&i.text, Path::new("imported.toml"))
                .unwrap_or_else(|e| panic!("row {}: {e}\n{}", r.n, i.text));
        } else {
            match got {
                Ok(i) => panic!("row {} ({}) imports:\n{}", r.n, r.source, i.text),
                Err(e) => assert!(
                    e.contains(&r.expected),
                    "row {}: `{}` not in: {e}",
                    r.n,
                    r.expected
                ),
            }
        }
    }
}

/// The table holds 45 commands, 60–104, each naming a source and a date (or the docs page), and the
/// class counts the book states: 13 ok (row 95 since presets55's `glm-4.5-air`, row 78 since
/// presets57's `qwen3-vl-235b-a22b-instruct`, row 67 since presets59's alias `Qwen/Qwen3.6-35B-A3B`,
/// row 100 since presets61's `deepseek-v4-flash`, row 80 since vllmmtp64's `glm4_moe_lite_mtp`),
/// 17 no preset, 7 refused by the release, 1 box, 3 not modelled (row 99 since presets61: DeepSeek-V4
/// under vLLM 0.22.1; from args58 to presets61 it was "no preset", vLLM ≥ 0.12's `tokenizer_mode:
/// TokenizerMode | str` taking any name), 1 not a command, 1 the user's own path, 2 doubtful
/// (45 = 13 + 17 + 7 + 1 + 3 + 1 + 1 + 2).
#[test]
fn the_survey_has_45_sourced_rows_in_the_books_classes() {
    // cmdsurvey57's rows (105 on) are counted by its own suite.
    let rows: Vec<Row> = rows().into_iter().filter(|r| r.n <= 104).collect();
    assert_eq!(rows.len(), 45);
    let ns: Vec<u32> = rows.iter().map(|r| r.n).collect();
    assert_eq!(ns, (60..=104).collect::<Vec<_>>());
    for r in &rows {
        assert!(r.source.contains('/'), "row {}: {}", r.n, r.source);
        let dated = r.date.len() == 10 && r.date.as_bytes()[4] == b'-';
        assert!(dated || r.source.starts_with("docs."), "row {}: no date", r.n);
    }
    let got = class_counts(&rows);
    assert_eq!(got, [13, 17, 7, 1, 3, 1, 1, 2]);
}

/// Row 68 (sglang issue 5338): `docker run … lmsysorg/sglang:blackwell bash -c "pip install … &&
/// python3 -m sglang.launch_server --model /mnt/llms/models/Qwen2.5-7B-Instruct --tp 1 --port 5000"`.
/// Before cmdsurvey55 the import stopped at "no engine command after the image"; the shell's string
/// is now read: SGLang, the local path by its last component `Qwen2.5-7B-Instruct` (qwen2.5-7b's
/// repository `Qwen/Qwen2.5-7B-Instruct`), tp 1, the port kept, the image noted (its tag `blackwell`
/// names no release).
#[test]
fn a_shell_string_after_the_image_is_read() {
    let r = row(68);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(
        i.text.lines().any(|l| l == "preset = \"qwen2.5-7b\""),
        "{}",
        i.text
    );
    assert!(i.text.lines().any(|l| l == "name = \"sglang\""), "{}", i.text);
    assert!(i.text.lines().any(|l| l == "tp = 1"), "{}", i.text);
    assert!(
        i.text.lines().any(|l| l == "extra_args = [\"--port\", \"5000\"]"),
        "{}",
        i.text
    );
    assert!(
        i.notes.iter().any(|n| n.contains("lmsysorg/sglang:blackwell")),
        "{:?}",
        i.notes
    );
    let s = tpsim::scenario::load_str(&i.text, Path::new("imported.toml")).expect("loads");
    assert_eq!(s.engine.kind, EngineKind::Sglang);
    assert_eq!(s.engine.tp, 1);
    // `bash -c` with no engine in its string is still no launch.
    let none = build::import(
        "docker run --gpus all lmsysorg/sglang:latest bash -c \"nvidia-smi\"",
        &options(&r),
    )
    .expect_err("no engine");
    assert!(none.contains("no engine"), "{none}");
}

/// Row 81 (vllm issue 6689, 2024-07-23): `meta-llama/Meta-Llama-3.1-8B-Instruct`, the Instruct
/// repository's name before Meta renamed it, is llama-3.1-8b (`hf-ids.toml` `[aliases]`), with
/// `--max-model-len 1024` on 1× L4.
#[test]
fn the_old_llama_3_1_instruct_name_resolves() {
    let r = row(81);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(
        i.text.lines().any(|l| l == "preset = \"llama-3.1-8b\""),
        "{}",
        i.text
    );
    assert!(i.text.lines().any(|l| l == "max_model_len = 1024"), "{}", i.text);
}

/// Row 83 (docs.sglang.ai): `python -m sglang_router.launch_server … --dp 2 --tp 2` is named as the
/// router (its `--dp` replicas behind a load balancer), not "no engine launch found".
#[test]
fn the_sglang_router_is_named() {
    let r = row(83);
    let e = build::import(&r.command, &options(&r)).expect_err("refused");
    assert!(
        e.contains("sglang_router.launch_server starts `--dp` SGLang servers"),
        "{e}"
    );
    assert!(!e.contains("no engine launch found"), "{e}");
}

/// Row 100 (sglang PR 28620): `docker run … -v /llm/hub/deepseek/DeepSeek-V4-Flash:/model …
/// lmsysorg/sglang:latest-cu129 sglang serve --model-path /model …`. The container's `/model` is the
/// host's directory (Docker's `--volume HOST:CONTAINER`), so the model is named by that directory
/// (since presets61 the preset `deepseek-v4-flash`, by its last component) and the mount is noted;
/// before cmdsurvey55 the path `/model` itself was looked up. A path under the mount keeps its rest; a
/// path outside it is left as written.
#[test]
fn a_model_path_inside_the_container_is_read_by_its_mount() {
    let r = row(100);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(has_line(&i.text, "preset = \"deepseek-v4-flash\""), "{}", i.text);
    assert!(
        i.notes
            .iter()
            .any(|n| n.contains("/llm/hub/deepseek/DeepSeek-V4-Flash")),
        "{:?}",
        i.notes
    );
    let mounts = vec![("/models".to_string(), "/data/hf".to_string())];
    let mut notes = Vec::new();
    let p = tpsim::import_command::unmount(&mounts, "/models/Qwen3-8B/", &mut notes);
    assert_eq!(p, "/data/hf/Qwen3-8B");
    assert_eq!(notes.len(), 1);
    assert_eq!(
        tpsim::import_command::unmount(&mounts, "/models2/x", &mut notes),
        "/models2/x"
    );
    assert_eq!(
        tpsim::import_command::unmount(&mounts, "Qwen/Qwen3-8B", &mut notes),
        "Qwen/Qwen3-8B"
    );
    assert_eq!(notes.len(), 1);
    // Imported through a mount, a bundled model resolves by the host directory's name.
    let c = "docker run --gpus all -v /data/hf/Qwen3-8B:/m vllm/vllm-openai:v0.11.0 /m --max-model-len 8192";
    let i = build::import(c, &options(&row(68))).expect("imports");
    assert!(i.text.lines().any(|l| l == "preset = \"qwen3-8b\""), "{}", i.text);
}

/// Row 75 (rtx6kpro issue 7): a compose file's `command: >` for the vLLM image, `/models/Qwen3.5-397B-A17B-FP8
/// --tensor-parallel-size 2 …`, starts no program: still no launch, and the message says that the image's
/// arguments need `vllm serve` in front. A line that is not arguments keeps the plain message.
#[test]
fn arguments_alone_are_refused_with_the_program_to_add() {
    let r = row(75);
    let e = build::import(&r.command, &options(&r)).expect_err("no program");
    assert!(e.contains("no engine launch found"), "{e}");
    assert!(
        e.contains("need that program in front: `vllm serve MODEL …`"),
        "{e}"
    );
    let plain = build::import("echo hello", &options(&r)).expect_err("no program");
    assert!(!plain.contains("need that program"), "{plain}");
}

/// Row 103 (vllm issue 17327, Silencezjl, vLLM 0.8.5 on 4× H20 96 GB): `vllm serve ./Qwen3-235B-A22B
/// --tensor-parallel-size 4` "runs out of memory" (OOM), as the poster reports. The local path is
/// read by its last component (qwen3-235b-a22b, bf16), and `tpsim memory` stops at weight loading.
/// By hand, per rank at tp 4 (the preset's config.json: hidden 4096, 94 layers, 64 / 4 heads of 128,
/// 128 experts of 1536, vocab 151,936, untied): attention (4096·8192·2 + 4096·512·2) / 4 = 17.83 M,
/// experts 128·3·4096·1536 / 4 = 603.98 M, router 4096·128 = 0.52 M per layer; × 94 = 58.50 G;
/// embedding and LM head 2·151936·4096 / 4 = 311.16 M; 58.81 G parameters × 2 B = 109.5 GiB, above
/// the card's 96 GB. tpsim prints 109.55 GiB (norms included); ±0.5 %.
#[test]
fn the_h20_oom_is_the_posters_verdict() {
    let r = row(103);
    let i = build::import(&r.command, &options(&r)).expect("imports");
    assert!(
        i.text.lines().any(|l| l == "preset = \"qwen3-235b-a22b\""),
        "{}",
        i.text
    );
    let d = scratch("h20");
    let f = d.join("s.toml");
    std::fs::write(&f, &i.text).expect("write");
    let o = tpsim(&["memory", f.to_str().expect("utf-8")]);
    assert!(
        o.stdout.contains("Verdict: OOM at weight loading"),
        "{}{}",
        o.stdout,
        o.stderr
    );
    let gib: f64 = o
        .stdout
        .split("while creating the weights: ")
        .nth(1)
        .and_then(|t| t.split(" GiB per rank").next())
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{}", o.stdout));
    assert!((gib / 109.5 - 1.0).abs() < 0.005, "{gib} GiB per rank");
}
