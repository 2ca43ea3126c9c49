//! The book cannot rot: every command shown in `book/src/*.md` runs here, and its shown output is
//! checked against the real output.
//!
//! Rules (also stated in the book's architecture chapter):
//! - In a fenced block tagged `console`, a line starting with `$ ` is a command (a trailing ` \`
//!   continues it on the next line). Words are split as a POSIX shell would (quotes, `#` comments).
//! - The command runs in-process through the runner of its program (`tpsim`;
//!   `cargo run [--release] [-q] (-p|--bin) PROGRAM -- ARGS` is `PROGRAM ARGS` without cargo's build
//!   messages), from the repository root: paths in the book are relative to it.
//! - The exit code must be 0, or N when the line ends with the comment `# exit N`.
//! - The lines after a command, up to the next command or the block's end, are its expected
//!   output (stdout, then stderr): each must equal a real line after trimming trailing spaces, in
//!   order and contiguous; a line `...` stands for any number of real lines. A command shown with no
//!   output lines is checked for its exit code only.
//! - Files the book writes (`--trace`, `--out`, `--plot`, …) must go under `/tmp/`.
//! - A program without a runner (`cargo test`, `mdbook`, …) is allowed only in a block tagged
//!   `console,no-run`, and so is a command that must not run here (`tpsim regress --update` rewrites
//!   the repository's baselines); they are listed as skipped and may show no output.
//! - `TPSIM_BLESS_BOOK=1 cargo test -p tpsim-tests --test integration book::` rewrites the shown
//!   output of the commands that fail (whole outputs whole; elided ones line by line, numbers aside): review the
//!   diff, then run the test again.
//! - `$ ` lines in `sh`, `bash`, `shell` or `text` blocks, and `tpsim …`/`cargo run …` lines in
//!   `sh`, `bash` or `shell` blocks, are errors: they would escape the test.

use crate::common;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The repository root, made the process's working directory once (the book's paths are relative to
/// it). The other modules of the integration test binary share the process and use absolute paths
/// only (`common::scenario`, `common::data_path`, `common::scratch`), so the change does not reach them.
fn repo_root() -> &'static Path {
    static ROOT: OnceLock<PathBuf> = OnceLock::new();
    ROOT.get_or_init(|| {
        let root = Path::new(env!("CARGO_MANIFEST_DIR"))
            .parent()
            .expect("tests/ has a parent")
            .canonicalize()
            .expect("repository root");
        std::env::set_current_dir(&root).expect("cd to the repository root");
        root
    })
}

/// Exit code and combined output (stdout lines, then stderr lines) of one command.
struct Outcome {
    code: i32,
    output: String,
}

type Runner = fn(&[String]) -> Result<Outcome, String>;

/// Program name → runner. Add `tpsim-calibrate` here once its library exposes `cli::main_with_args`.
fn runners() -> BTreeMap<&'static str, Runner> {
    let mut m: BTreeMap<&'static str, Runner> = BTreeMap::new();
    m.insert("tpsim", run_tpsim);
    m.insert("tpsim-calibrate", run_calibrate);
    m
}

fn run_tpsim(args: &[String]) -> Result<Outcome, String> {
    run_in_process(tpsim_cli::main_with_args, "tpsim", args)
}

fn run_calibrate(args: &[String]) -> Result<Outcome, String> {
    run_in_process(tpsim_calibrate::cli::main_with_args, "tpsim-calibrate", args)
}

/// Runs a CLI through its in-process entry point; stdout then stderr, as the book shows them.
fn run_in_process(
    main: fn(&[OsString], &mut dyn std::io::Write, &mut dyn std::io::Write) -> i32,
    name: &str,
    args: &[String],
) -> Result<Outcome, String> {
    let mut argv: Vec<OsString> = vec![name.into()];
    argv.extend(args.iter().map(OsString::from));
    let (mut out, mut err) = (Vec::new(), Vec::new());
    let code = main(&argv, &mut out, &mut err);
    let mut output = String::from_utf8_lossy(&out).into_owned();
    output.push_str(&String::from_utf8_lossy(&err));
    Ok(Outcome { code, output })
}

/// `cargo run [--release] [-q] [--locked] (-p|--bin) PROGRAM -- ARGS` is `PROGRAM ARGS` (cargo's
/// build messages aside; `tpsim` is the binary of package `tpsim-cli`, `tpsim-calibrate` the binary
/// of its package of that name); `None` for any other cargo command.
fn cargo_run_target(args: &[String]) -> Option<(String, Vec<String>)> {
    let sep = args.iter().position(|a| a == "--")?;
    let mut flags: Vec<&str> = args[..sep].iter().map(String::as_str).collect();
    flags.retain(|a| !matches!(*a, "--release" | "-q" | "--quiet" | "--locked"));
    match flags.as_slice() {
        ["run", "-p" | "--bin", program] => Some((program.to_string(), args[sep + 1..].to_vec())),
        _ => None,
    }
}

/// One `$ ` command of a console block.
#[derive(Debug)]
struct Command {
    file: String,
    line: usize,
    text: String,
    no_run: bool,
    expected_code: i32,
    expected: Vec<String>,
    /// 0-based index in the file of the first expected-output line (for `TPSIM_BLESS_BOOK`).
    output_start: usize,
}

/// What one file holds: its commands, and errors found while reading it.
#[derive(Debug, Default)]
struct Parsed {
    commands: Vec<Command>,
    errors: Vec<String>,
}

/// The exit code a command line asks for with a trailing `# exit N` (0 without one).
fn expected_exit(text: &str) -> Result<i32, String> {
    match text.rsplit_once("# exit ") {
        Some((_, n)) if !n.trim().is_empty() => n
            .trim()
            .parse()
            .map_err(|_| format!("`# exit {n}`: expected an integer exit code")),
        _ => Ok(0),
    }
}

/// Extracts the commands of every `console` block of one markdown file.
fn parse(file: &str, text: &str) -> Parsed {
    let mut p = Parsed::default();
    let mut lines = text.lines().enumerate().peekable();
    while let Some((i, line)) = lines.next() {
        let Some(info) = line.trim_start().strip_prefix("```") else {
            continue;
        };
        let fence_indent = line.len() - line.trim_start().len();
        let tags: Vec<&str> = info.split(',').map(str::trim).collect();
        let console = tags.first() == Some(&"console");
        let no_run = console && tags.contains(&"no-run");
        let shell_like = matches!(tags.first(), Some(&("sh" | "bash" | "shell" | "text")));
        let mut current: Option<Command> = None;
        let mut pending_continuation = false;
        loop {
            let Some((j, l)) = lines.next() else {
                p.errors
                    .push(format!("{file}:{}: unterminated code block", i + 1));
                break;
            };
            if l.trim_start().starts_with("```") && l.len() - l.trim_start().len() <= fence_indent + 3 {
                break;
            }
            let shell_cmd = matches!(tags.first(), Some(&("sh" | "bash" | "shell")))
                && (l.starts_with("tpsim") || l.starts_with("cargo run"));
            if shell_like && (l.starts_with("$ ") || shell_cmd) {
                p.errors.push(format!(
                    "{file}:{}: a command in a ```{} block is never run: use a ```console block",
                    j + 1,
                    tags[0]
                ));
            }
            if !console {
                continue;
            }
            if pending_continuation {
                let c = current.as_mut().expect("continuation follows a command");
                let part = l.trim();
                pending_continuation = part.ends_with('\\');
                c.text.push(' ');
                c.text.push_str(part.trim_end_matches('\\').trim_end());
                c.output_start = j + 1;
                continue;
            }
            if let Some(cmd) = l.strip_prefix("$ ") {
                p.commands.extend(current.take());
                pending_continuation = cmd.trim_end().ends_with('\\');
                current = Some(Command {
                    file: file.to_string(),
                    line: j + 1,
                    text: cmd.trim_end().trim_end_matches('\\').trim_end().to_string(),
                    no_run,
                    expected_code: 0,
                    expected: Vec::new(),
                    output_start: j + 1,
                });
            } else if let Some(c) = current.as_mut() {
                c.expected.push(l.trim_end().to_string());
            } else if !l.trim().is_empty() {
                p.errors.push(format!(
                    "{file}:{}: output line before any `$ ` command in a console block",
                    j + 1
                ));
            }
        }
        p.commands.extend(current.take());
    }
    for c in &mut p.commands {
        while c.expected.last().is_some_and(|l| l.is_empty()) {
            c.expected.pop();
        }
        match expected_exit(&c.text) {
            Ok(code) => c.expected_code = code,
            Err(e) => p.errors.push(format!("{}:{}: {e}", c.file, c.line)),
        }
    }
    p
}

/// Does `real` match the `pattern` lines, where a `...` line matches any number of real lines?
/// On failure, says which expected line was not found where it should be.
fn matches(pattern: &[String], real: &[String]) -> Result<(), String> {
    // dp[i][j]: pattern[i..] matches real[j..].
    let (n, m) = (pattern.len(), real.len());
    let mut dp = vec![vec![false; m + 1]; n + 1];
    dp[n][m] = true;
    for i in (0..n).rev() {
        for j in (0..=m).rev() {
            dp[i][j] = if pattern[i] == "..." {
                dp[i + 1][j] || (j < m && dp[i][j + 1])
            } else {
                j < m && pattern[i] == real[j] && dp[i + 1][j + 1]
            };
        }
    }
    if dp[0][0] {
        return Ok(());
    }
    // Diagnose: walk the pattern greedily and name the first line that cannot be placed.
    let mut j = 0;
    let mut elided = false;
    for p in pattern {
        if p == "..." {
            elided = true;
            continue;
        }
        let found = if elided {
            real[j..].iter().position(|r| r == p).map(|k| j + k)
        } else {
            (j < m && real[j] == *p).then_some(j)
        };
        match found {
            Some(k) => j = k + 1,
            None => {
                let actual = real.get(j).map_or("<end of output>", String::as_str);
                return Err(if elided {
                    format!("expected line\n      {p}\n    is not in the real output after line {j}")
                } else {
                    format!(
                        "expected line\n      {p}\n    but real line {} is\n      {actual}",
                        j + 1
                    )
                });
            }
        }
        elided = false;
    }
    Err(format!(
        "the real output goes on after the last shown line (add `...` to elide): {}",
        real.get(j).map_or("", String::as_str)
    ))
}

/// Flags whose value is a file the command writes: the book must point them under /tmp/.
const WRITE_FLAGS: &[&str] = &["--trace", "--out", "--output", "--plot", "--csv", "-o"];

fn check_write_targets(args: &[String]) -> Result<(), String> {
    for (i, a) in args.iter().enumerate() {
        let (flag, value) = match a.split_once('=') {
            Some((f, v)) if f.starts_with('-') => (f, Some(v.to_string())),
            _ => (a.as_str(), args.get(i + 1).cloned()),
        };
        if WRITE_FLAGS.contains(&flag) {
            let v = value.unwrap_or_default();
            if !v.starts_with("/tmp/") {
                return Err(format!(
                    "`{flag} {v}` writes outside /tmp/: the book writes only to /tmp/…"
                ));
            }
            if let Some(dir) = Path::new(&v).parent() {
                std::fs::create_dir_all(dir).map_err(|e| format!("mkdir {}: {e}", dir.display()))?;
            }
        }
    }
    Ok(())
}

/// Output as the book compares it: lines with trailing spaces trimmed, trailing empty lines dropped.
fn output_lines(output: &str) -> Vec<String> {
    let mut v: Vec<String> = output.lines().map(|l| l.trim_end().to_string()).collect();
    while v.last().is_some_and(|l| l.is_empty()) {
        v.pop();
    }
    v
}

/// A line with every number replaced by `#`: how a shown line is found again once its figures moved.
fn shape(line: &str) -> String {
    let mut out = String::new();
    let mut in_number = false;
    for ch in line.chars() {
        let numeric = ch.is_ascii_digit() || (in_number && ch == '.');
        if numeric && !in_number {
            out.push('#');
        } else if !numeric {
            out.push(ch);
        }
        in_number = numeric;
    }
    out
}

/// New shown output for `TPSIM_BLESS_BOOK=1`: the whole real output when the book showed it whole;
/// otherwise each shown line replaced by the next real line of the same shape (numbers aside), the
/// `...` kept. A line whose shape is gone stays as it was, for a person to fix.
fn bless(shown: &[String], real: &[String]) -> Vec<String> {
    if !shown.iter().any(|l| l == "...") {
        return real.to_vec();
    }
    let mut next = 0;
    shown
        .iter()
        .map(|l| {
            if l == "..." {
                return l.clone();
            }
            match real[next.min(real.len())..]
                .iter()
                .position(|r| shape(r) == shape(l))
            {
                Some(k) => {
                    next += k + 1;
                    real[next - 1].clone()
                }
                None => l.clone(),
            }
        })
        .collect()
}

/// Runs one command; `Ok(true)` when it ran and matched, `Ok(false)` when skipped (no-run).
fn execute(c: &Command, runners: &BTreeMap<&'static str, Runner>) -> Result<bool, String> {
    let words = shlex::split(&c.text).ok_or("unbalanced quotes")?;
    let (program, args) = words.split_first().ok_or("empty command")?;
    if ["|", ">", ">>", "<", "&&", ";", "2>&1"]
        .iter()
        .any(|op| args.iter().any(|a| a == op))
    {
        return Err("pipes, redirections and command lists are not supported".into());
    }
    // `cargo run -p PROGRAM -- ARGS` (or `--bin PROGRAM`) runs as `PROGRAM ARGS`.
    let (program, args) = match (program.as_str(), cargo_run_target(args)) {
        ("cargo", Some((p, a))) => (p, a),
        _ => (program.clone(), args.to_vec()),
    };
    let args = args.as_slice();
    if c.no_run {
        // Skipped and listed; a shown output would go unchecked, so a no-run command shows none.
        if !c.expected.is_empty() {
            return Err(
                "a `console,no-run` command shows output that nobody checks: run it in a \
                        `console` block, or show no output"
                    .into(),
            );
        }
        return Ok(false);
    }
    let Some(runner) = runners.get(program.as_str()) else {
        return Err(format!(
            "no runner for program `{program}`{}: tag the block `console,no-run` or add a runner",
            if program == "cargo" {
                format!(" (`cargo {}`)", args.join(" "))
            } else {
                String::new()
            }
        ));
    };
    check_write_targets(args)?;
    let outcome = runner(args)?;
    let real = output_lines(&outcome.output);
    if outcome.code != c.expected_code {
        let head: Vec<&str> = real.iter().take(20).map(String::as_str).collect();
        return Err(format!(
            "exit code {} (expected {}); output:\n{}",
            outcome.code,
            c.expected_code,
            head.join("\n")
        ));
    }
    if !c.expected.is_empty() {
        matches(&c.expected, &real).map_err(|e| {
            let shown: Vec<&str> = real.iter().take(80).map(String::as_str).collect();
            format!("{e}\n  real output:\n{}", shown.join("\n"))
        })?;
    }
    Ok(true)
}

/// For `TPSIM_BLESS_BOOK`: the command's new shown output, when it exits as the book says.
fn rerun_for_bless(c: &Command, runners: &BTreeMap<&'static str, Runner>) -> Option<Vec<String>> {
    if c.no_run {
        return None; // never run what the book says must not run here
    }
    let words = shlex::split(&c.text)?;
    let (program, args) = words.split_first()?;
    let (program, args) = match (program.as_str(), cargo_run_target(args)) {
        ("cargo", Some((p, a))) => (p, a),
        _ => (program.clone(), args.to_vec()),
    };
    check_write_targets(&args).ok()?;
    let outcome = runners.get(program.as_str())?(&args).ok()?;
    (outcome.code == c.expected_code).then(|| bless(&c.expected, &output_lines(&outcome.output)))
}

/// The book's chapters, sorted by file name.
fn chapters() -> Vec<(String, String)> {
    let dir = repo_root().join("book/src");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("book/src")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = format!("book/src/{}", p.file_name().expect("name").to_string_lossy());
            (name, std::fs::read_to_string(&p).expect("read chapter"))
        })
        .collect()
}

#[test]
// The wall clock only measures this test's own duration, printed for whoever keeps the book test fast;
// it never reaches a simulation.
#[allow(clippy::disallowed_methods)]
fn every_command_in_the_book_runs_and_prints_what_the_book_shows() {
    let runners = runners();
    let mut failures = Vec::new();
    let mut summary = Vec::new();
    let mut total_ran = 0;
    // TPSIM_BLESS_BOOK=1 rewrites the shown output of failing commands (review the diff, then rerun).
    let bless_mode = std::env::var_os("TPSIM_BLESS_BOOK").is_some_and(|v| v == "1");
    let start = std::time::Instant::now();
    for (file, text) in chapters() {
        let parsed = parse(&file, &text);
        failures.extend(parsed.errors);
        let (mut ran, mut skipped) = (0, Vec::new());
        let file_start = std::time::Instant::now();
        let mut blessed: Vec<(usize, usize, Vec<String>)> = Vec::new();
        for c in &parsed.commands {
            match execute(c, &runners) {
                Ok(true) => ran += 1,
                Ok(false) => skipped.push(format!("{}:{} `{}`", c.file, c.line, c.text)),
                Err(e) => {
                    if let Some(new) = bless_mode.then(|| rerun_for_bless(c, &runners)).flatten() {
                        blessed.push((c.output_start, c.expected.len(), new));
                    }
                    failures.push(format!("{}:{}: `$ {}`: {e}", c.file, c.line, c.text));
                }
            }
        }
        if !blessed.is_empty() {
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            for (start, len, new) in blessed.into_iter().rev() {
                lines.splice(start..start + len, new);
            }
            std::fs::write(repo_root().join(&file), lines.join("\n") + "\n").expect("write chapter");
            println!("{file}: rewrote the shown output of failing commands (TPSIM_BLESS_BOOK)");
        }
        total_ran += ran;
        summary.push(format!(
            "{file}: {ran} commands ran, {} skipped (no-run), {:.1} s",
            skipped.len(),
            file_start.elapsed().as_secs_f64()
        ));
        summary.extend(skipped.into_iter().map(|s| format!("    skipped {s}")));
    }
    println!("{}", summary.join("\n"));
    println!("{total_ran} commands in {:.1} s", start.elapsed().as_secs_f64());
    assert!(
        failures.is_empty(),
        "{} book command(s) failed:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
    assert!(total_ran >= 10, "the book test ran only {total_ran} commands");
}

fn lines(s: &str) -> Vec<String> {
    s.lines().map(str::to_string).collect()
}

#[test]
fn blessing_keeps_the_elisions_and_follows_the_numbers() {
    let real = lines("head 1\nspeed 12.5 tok/s\nother\ntail 3");
    assert_eq!(
        bless(&lines("head 0"), &real),
        real,
        "a whole output is replaced whole"
    );
    let shown = lines("...\nspeed 9.0 tok/s\n...\ngone 1");
    assert_eq!(bless(&shown, &real), lines("...\nspeed 12.5 tok/s\n...\ngone 1"));
    assert_eq!(shape("x 1.25 ms, 3"), "x # ms, #");
}

#[test]
fn only_prose_counts_as_documentation() {
    let w = documented_words("`a_b` and `c`\n```toml\n`d`\ne = 1\n```\n[x.y]\nplain");
    let w: Vec<&str> = w.iter().map(String::as_str).collect();
    assert_eq!(w, ["a_b", "c", "x", "y"]);
}

#[test]
fn output_patterns_match_exactly_or_with_elision() {
    let real = lines("a\nb\nc\nd");
    assert!(matches(&lines("a\nb\nc\nd"), &real).is_ok());
    assert!(matches(&lines("a\n...\nd"), &real).is_ok());
    assert!(matches(&lines("...\nc\n..."), &real).is_ok());
    assert!(
        matches(&lines("...\nb\nd"), &real).is_err(),
        "b and d are not contiguous"
    );
    assert!(
        matches(&lines("a\nb"), &real).is_err(),
        "output goes on without `...`"
    );
    assert!(
        matches(&lines("b\n..."), &real).is_err(),
        "must start at the first line"
    );
    assert!(
        matches(&lines("a\n...\nx"), &real).is_err(),
        "x is not in the output"
    );
    assert!(matches(&lines("...\n...\nd"), &real).is_ok());
}

#[test]
fn console_blocks_are_parsed_into_commands_codes_and_outputs() {
    let md = "text\n```console\n$ tpsim validate a.toml # exit 2\nerror: a\n\n$ tpsim topo \\\n  --gpus 2\n```\n\
              ```console,no-run\n$ cargo test --workspace\n```\n```sh\n$ tpsim run x\n```\n";
    let p = parse("x.md", md);
    assert_eq!(p.commands.len(), 3);
    assert_eq!(p.commands[0].expected_code, 2);
    assert_eq!(p.commands[0].expected, ["error: a"]);
    assert_eq!(p.commands[1].text, "tpsim topo --gpus 2");
    assert_eq!(p.commands[1].line, 6);
    assert!(p.commands[2].no_run);
    assert_eq!(p.errors.len(), 1, "{:?}", p.errors);
    assert!(p.errors[0].starts_with("x.md:13:"), "{:?}", p.errors);
}

/// Every word of every backtick span and every `[section]` header of a chapter's prose: fenced code
/// blocks do not count (a key that only appears in an example is not documented).
fn documented_words(md: &str) -> std::collections::BTreeSet<String> {
    let mut in_fence = false;
    let prose: String = md
        .lines()
        .filter(|l| {
            if l.trim_start().starts_with("```") {
                in_fence = !in_fence;
                return false;
            }
            !in_fence
        })
        .collect::<Vec<_>>()
        .join("\n");
    let mut spans: Vec<&str> = prose.split('`').skip(1).step_by(2).collect();
    spans.extend(prose.lines().filter(|l| l.trim_start().starts_with('[')));
    spans
        .iter()
        .flat_map(|s| s.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')))
        .filter(|w| !w.is_empty())
        .map(str::to_string)
        .collect()
}

/// Every object key of a JSON value, at any depth (inside arrays too).
fn json_keys(v: &serde_json::Value, out: &mut std::collections::BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                json_keys(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| json_keys(x, out)),
        _ => {}
    }
}

#[test]
fn json_reference_names_every_key_that_run_and_memory_emit() {
    let root = repo_root();
    let md = std::fs::read_to_string(root.join("book/src/json.md")).expect("json.md");
    let documented = documented_words(&md);
    let mut keys = std::collections::BTreeSet::new();
    // The baseline (speculative, starts) and low-fraction (OOM: the `oom` object) cover every
    // optional part of the run object; memory --json of both and of the vLLM example cover the memory
    // object, and --against its delta.
    let against = [
        "memory",
        "scenarios/seed/baseline.toml",
        "--against",
        "scenarios/seed/custom-ar.toml",
        "--json",
    ];
    for args in [
        &["run", "scenarios/seed/baseline.toml", "--json"][..],
        &["run", "scenarios/seed/low-fraction.toml", "--json"],
        &["memory", "scenarios/seed/baseline.toml", "--json"],
        &["memory", "scenarios/seed/low-fraction.toml", "--json"],
        &["memory", "book/examples/llama-3.1-8b-h100-vllm.toml", "--json"],
        &against,
    ] {
        let o = common::tpsim(args);
        // `run` of the OOM scenario exits 3 (the engine's verdict) and still prints the object.
        let ok = if args[0] == "run" && args[1].contains("low-fraction") {
            3
        } else {
            0
        };
        assert_eq!(o.code, ok, "tpsim {}: {}", args.join(" "), o.stderr);
        let v: serde_json::Value = serde_json::from_str(&o.stdout).expect("valid JSON");
        json_keys(&v, &mut keys);
    }
    assert!(keys.len() > 50, "only {} keys: the walk is broken", keys.len());
    let missing: Vec<&String> = keys.iter().filter(|k| !documented.contains(*k)).collect();
    assert!(
        missing.is_empty(),
        "book/src/json.md does not document these keys of `tpsim run --json` / `tpsim memory --json`: {missing:?}"
    );
}

/// Field names of the scenario schema: `name: Type,` lines inside the structs (and the
/// `mergeable!` macro bodies) of `sim/src/scenario/schema.rs`, under their `#[serde(rename)]` names.
fn schema_fields(src: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut rename: Option<String> = None;
    for l in src.lines() {
        let t = l.trim_start();
        if l.len() == t.len() || t.starts_with("//") {
            continue; // top-level items and comments
        }
        if let Some(r) = t.strip_prefix("#[serde(rename = \"") {
            rename = r.split('"').next().map(str::to_string);
            continue;
        }
        let t = t.strip_prefix("pub ").unwrap_or(t);
        let Some((name, ty)) = t.split_once(':') else {
            continue;
        };
        let is_ident = !name.is_empty()
            && name
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_');
        let ty = ty.trim();
        if is_ident && ty.starts_with(|c: char| c.is_ascii_alphabetic()) && ty.ends_with(',') {
            fields.push(rename.take().unwrap_or_else(|| name.to_string()));
        }
    }
    fields
}

#[test]
fn scenario_reference_names_every_schema_field() {
    let root = repo_root();
    let src = std::fs::read_to_string(root.join("sim/src/scenario/schema.rs")).expect("schema.rs");
    let mut fields = schema_fields(&src);
    let topo = std::fs::read_to_string(root.join("model/src/topo.rs")).expect("topo.rs");
    let attrs = topo
        .split("pub struct NodeAttrs")
        .nth(1)
        .and_then(|s| s.split_once('}'))
        .map(|(body, _)| schema_fields(body))
        .expect("NodeAttrs in model/src/topo.rs");
    fields.extend(attrs);
    for known in [
        "seed",
        "memory_total_mib",
        "nvlink_latency",
        "free_after_init_gib",
        "output_len",
        "gen",
    ] {
        assert!(
            fields.iter().any(|f| f == known),
            "the scan missed `{known}`: {fields:?}"
        );
    }
    let md = std::fs::read_to_string(root.join("book/src/scenarios.md")).expect("scenarios.md");
    let documented = documented_words(&md);
    let mut missing: Vec<&String> = fields.iter().filter(|f| !documented.contains(*f)).collect();
    // Every bundled hardware, engine and model preset is listed too, and every hardware template.
    let mut presets = Vec::new();
    for dir in [
        "scenarios/hardware",
        "scenarios/hardware/templates",
        "scenarios/engines",
        "scenarios/models",
    ] {
        for e in std::fs::read_dir(root.join(dir)).expect("preset dir") {
            let p = e.expect("dir entry").path();
            if p.is_dir() && p.ends_with("hardware/templates") {
                continue;
            } else if p.is_dir() {
                presets.push(p.file_name().expect("name").to_string_lossy().into_owned());
            } else if p.extension().is_some_and(|x| x == "toml") {
                presets.push(p.file_stem().expect("name").to_string_lossy().into_owned());
            }
        }
    }
    presets.sort();
    let missing_presets: Vec<&String> = presets
        .iter()
        .filter(|p| !md.contains(&format!("`{p}`")))
        .collect();
    assert!(
        missing_presets.is_empty(),
        "book/src/scenarios.md does not list these bundled presets: {missing_presets:?}"
    );
    missing.dedup();
    assert!(
        missing.is_empty(),
        "book/src/scenarios.md does not document these scenario keys: {missing:?}"
    );
}

#[test]
fn commands_that_escape_the_rules_are_refused() {
    repo_root();
    let cmd = |text: &str, no_run: bool| Command {
        file: "x.md".into(),
        line: 1,
        text: text.into(),
        no_run,
        expected_code: 0,
        expected: Vec::new(),
        output_start: 2,
    };
    let r = runners();
    let e = execute(
        &cmd("tpsim run scenarios/seed/baseline.toml --trace out.json", false),
        &r,
    );
    assert!(e.unwrap_err().contains("outside /tmp/"));
    let e = execute(&cmd("mdbook build book", false), &r);
    assert!(e.unwrap_err().contains("no runner for program `mdbook`"));
    assert_eq!(execute(&cmd("mdbook build book", true), &r), Ok(false));
    let mut shown = cmd("tpsim regress --update", true);
    shown.expected = vec!["anything".into()];
    assert!(execute(&shown, &r).unwrap_err().contains("nobody checks"));
    let e = execute(&cmd("cargo test --workspace", false), &r);
    assert!(
        e.unwrap_err()
            .contains("no runner for program `cargo` (`cargo test --workspace`)")
    );
    let e = execute(
        &cmd("tpsim validate scenarios/seed/baseline.toml | head", false),
        &r,
    );
    assert!(e.unwrap_err().contains("pipes"));
    // A wrong exit code and a wrong line both fail.
    let mut c = cmd("tpsim validate book/examples/bad/typo.toml", false);
    assert!(execute(&c, &r).unwrap_err().contains("exit code 2 (expected 0)"));
    c.expected_code = 2;
    c.expected = vec!["error: something else".into()];
    assert!(execute(&c, &r).is_err());
    c.expected = vec!["...".into()];
    assert_eq!(execute(&c, &r), Ok(true));
}
