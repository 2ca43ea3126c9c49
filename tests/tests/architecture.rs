//! The crate boundaries of book/src/architecture.md ("Invariants"), checked on the sources: what each
//! crate deliberately does not do. A check that finds a violation names the file and line.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// Every `.rs` file under `dir`, sorted.
fn sources(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("source dir") {
            let p = e.expect("entry").path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

/// Lines of the files under `dir` (outside `skip`) that contain one of `needles`, comments left out.
fn offending(dir: &str, skip: &[&str], needles: &[&str]) -> Vec<String> {
    let base = root().join(dir);
    let mut found = Vec::new();
    for f in sources(&base) {
        let rel = f.strip_prefix(root()).unwrap().display().to_string();
        if skip.iter().any(|s| rel.starts_with(s)) {
            continue;
        }
        let text = std::fs::read_to_string(&f).expect("read source");
        for (i, line) in text.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if let Some(n) = needles.iter().find(|n| code.contains(*n)) {
                found.push(format!("{rel}:{}: `{n}`", i + 1));
            }
        }
    }
    found
}

#[test]
fn model_reads_no_file_clock_or_environment_and_prints_nothing() {
    let bad = offending(
        "model/src",
        &[],
        &[
            "std::fs",
            "std::time",
            "std::env",
            "std::process",
            "std::io::std",
            "println!",
            "eprintln!",
            "print!(",
            "File::",
        ],
    );
    assert!(bad.is_empty(), "model is pure (no I/O, no clock): {bad:#?}");
}

#[test]
fn the_sim_library_prints_nothing() {
    let bad = offending(
        "sim/src",
        &[],
        &[
            "println!",
            "eprintln!",
            "print!(",
            "std::process::exit",
            "std::io::stdout",
            "std::io::stderr",
        ],
    );
    assert!(
        bad.is_empty(),
        "sim's library returns values and errors; the CLI (sim/cli) prints: {bad:#?}"
    );
}

#[test]
fn user_files_are_read_and_written_only_through_sim_files() {
    // `tpsim::files` refuses non-regular and oversized inputs and outputs that overwrite an input
    // (issue #14); reading or writing a user's file any other way would bypass both.
    let needles = [
        "read_to_string",
        "File::open",
        "File::create",
        "fs::write",
        "fs::read(",
    ];
    let mut bad = offending("sim/src", &["sim/src/files.rs"], &needles);
    bad.extend(offending("sim/cli/src", &[], &needles));
    bad.extend(offending("calibrate/src", &["calibrate/src/bench/"], &needles));
    assert!(bad.is_empty(), "go through tpsim::files: {bad:#?}");
}

#[test]
fn dependencies_point_one_way() {
    let deps = |krate: &str| {
        let text = std::fs::read_to_string(root().join(krate).join("Cargo.toml")).expect("Cargo.toml");
        let t: toml::Table = toml::from_str(&text).expect("toml");
        t.get("dependencies")
            .and_then(|d| d.as_table())
            .map(|d| d.keys().cloned().collect::<Vec<_>>())
            .unwrap_or_default()
    };
    let model = deps("model");
    // The library carries no command line (issue #15): argument parsing, progress bars, plots and
    // the text reports are tpsim-cli's (sim/cli), and nothing but tests and the binary depends on it.
    let sim_lib = deps("sim");
    for cli_only in ["clap", "indicatif", "plotters", "tpsim-cli"] {
        assert!(
            !sim_lib.iter().any(|d| d == cli_only),
            "the tpsim library does not depend on {cli_only}: {sim_lib:?}"
        );
    }
    let calibrate = deps("calibrate");
    assert!(
        !calibrate.iter().any(|d| d == "tpsim-cli"),
        "calibrate uses the tpsim library, never the CLI crate: {calibrate:?}"
    );
    let cli_paths = offending("calibrate/src", &[], &["tpsim::cli", "tpsim_cli"]);
    assert!(
        cli_paths.is_empty(),
        "calibrate uses the tpsim library, never the CLI: {cli_paths:#?}"
    );
    assert!(
        !model.iter().any(|d| d.starts_with("tpsim")),
        "model depends on no other tpsim crate: {model:?}"
    );
    let sim = deps("sim");
    assert!(
        !sim.iter().any(|d| d == "tpsim-calibrate"),
        "sim never imports calibrate (it reads the profile files calibrate writes): {sim:?}"
    );
}

/// The first paragraph of a source file's `//!` module doc, on one line (`None` when the file has none).
/// A crate root's doc opens with a `# title` line: the title and the paragraph after it, joined by ": ".
fn module_summary(text: &str) -> Option<String> {
    let mut paragraphs: Vec<Vec<&str>> = vec![Vec::new()];
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("//!") else {
            break;
        };
        let rest = rest.trim();
        let current = paragraphs.last_mut().expect("one paragraph at least");
        if rest.is_empty() {
            if !current.is_empty() {
                paragraphs.push(Vec::new());
            }
        } else {
            current.push(rest);
        }
    }
    let mut parts = paragraphs.into_iter().filter(|p| !p.is_empty());
    let first = parts.next()?.join(" ");
    match first.strip_prefix('#') {
        Some(title) => {
            let title = title.trim_start_matches('#').trim();
            Some(match parts.next() {
                Some(body) => format!("{title}: {}", body.join(" ")),
                None => title.to_string(),
            })
        }
        None => Some(first),
    }
}

/// Test-only files: named `tests*.rs` / `*_tests.rs` / `test_util.rs`, or under a `tests` folder.
fn is_test_file(rel: &str) -> bool {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    name.starts_with("tests")
        || name.ends_with("_tests.rs")
        || name == "test_util.rs"
        || rel.contains("/tests/")
}

/// book/src/modules.md as the sources say it should read: one table a crate, a row a module with the
/// first paragraph of its `//!` doc.
fn module_index() -> Result<String, Vec<String>> {
    let crates = [
        ("tpsim-model", "model/src"),
        ("tpsim (library)", "sim/src"),
        ("tpsim-cli (the `tpsim` binary)", "sim/cli/src"),
        ("tpsim-calibrate", "calibrate/src"),
    ];
    let mut out = String::from(
        "# Module index\n\n\
         Every source module of the four crates with the first paragraph of its `//!` doc: the long form of\n\
         the [Architecture](architecture.md) chapter's code map. Generated from the sources and checked by\n\
         `cargo test -p tpsim-tests --test integration architecture::module_index_matches_the_sources`;\n\
         `TPSIM_BLESS_BOOK=1` on that command rewrites this page after a module is added, renamed or\n\
         re-documented. Test-only files are left out.\n",
    );
    let mut undocumented = Vec::new();
    for (name, dir) in crates {
        out.push_str(&format!("\n## {name}\n\n| module | what it is |\n|---|---|\n"));
        for f in sources(&root().join(dir)) {
            let rel = f.strip_prefix(root()).unwrap().display().to_string();
            if is_test_file(&rel) {
                continue;
            }
            let text = std::fs::read_to_string(&f).expect("read source");
            match module_summary(&text) {
                Some(s) => out.push_str(&format!("| `{rel}` | {} |\n", s.replace('|', "\\|"))),
                None => undocumented.push(rel),
            }
        }
    }
    if undocumented.is_empty() {
        Ok(out)
    } else {
        Err(undocumented)
    }
}

#[test]
fn module_index_matches_the_sources() {
    let want = module_index().unwrap_or_else(|files| panic!("modules without a `//!` doc: {files:#?}"));
    let path = root().join("book/src/modules.md");
    if std::env::var_os("TPSIM_BLESS_BOOK").is_some_and(|v| v == "1") {
        std::fs::write(&path, &want).expect("write book/src/modules.md");
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "book/src/modules.md is out of date with the sources' module docs; rerun with TPSIM_BLESS_BOOK=1"
    );
}

#[test]
fn module_summaries_read_the_first_doc_paragraph() {
    let text = "//! The executor: runs a DAG\n//! of tasks.\n//!\n//! Details.\nuse x;\n";
    assert_eq!(
        module_summary(text).as_deref(),
        Some("The executor: runs a DAG of tasks.")
    );
    assert_eq!(module_summary("use x;\n//! late\n"), None);
    assert_eq!(
        module_summary("//! # tpsim-model — costs\n//!\n//! Pure functions.\n//!\n//! More.\n").as_deref(),
        Some("tpsim-model — costs: Pure functions.")
    );
    assert!(is_test_file("model/src/llm/tests_fam.rs"));
    assert!(is_test_file("sim/src/scenario/attention_backend_tests.rs"));
    assert!(is_test_file("calibrate/src/bench/plan/tests.rs"));
    assert!(!is_test_file("sim/src/exec.rs"));
}
