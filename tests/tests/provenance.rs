//! Issue #19 point 1: every `[params]` and `[host]` value of a hardware preset or template says where it
//! comes from, as the first thing in its line's comment: `[datasheet]`, `[derived]` (computed from other
//! facts), `[measured]` (read off a measurement outside `tests/data/allreduce.tsv`'s fits), `[fitted]`
//! (fitted to rows, which the comment or the file's `[fitted.<key>]` names) or `[assumed]`
//! (scenarios/hardware/README.md, "Provenance").

use std::path::{Path, PathBuf};

const LABELS: [&str; 5] = ["[datasheet]", "[derived]", "[measured]", "[fitted]", "[assumed]"];

/// The `key` lines of the `[params]` and `[host]` sections of `text` that carry no label.
fn unlabelled(text: &str) -> Vec<String> {
    let mut section = String::new();
    let mut out = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let t = line.trim();
        if t.starts_with('[') {
            section = t.to_string();
            continue;
        }
        if t.starts_with('#') || !t.contains('=') || !(section == "[params]" || section == "[host]") {
            continue;
        }
        let comment = line.split_once('#').map_or("", |(_, c)| c.trim_start());
        if !LABELS.iter().any(|l| comment.starts_with(l)) {
            out.push(format!("line {}: {t}", i + 1));
        }
    }
    out
}

fn toml_files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("hardware dir")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "toml"))
        .collect();
    v.sort();
    v
}

#[test]
fn every_params_and_host_value_of_a_hardware_file_says_where_it_comes_from() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/hardware");
    let mut files = toml_files(&root);
    files.extend(toml_files(&root.join("templates")));
    assert!(files.len() > 40, "{} files", files.len());
    let mut missing = Vec::new();
    for f in &files {
        let text = std::fs::read_to_string(f).expect("read");
        for l in unlabelled(&text) {
            missing.push(format!("{}: {l}", f.display()));
        }
    }
    assert!(
        missing.is_empty(),
        "values without a provenance label:\n{}",
        missing.join("\n")
    );
}

/// The check itself: an unlabelled value, a label later in the comment, and a value outside
/// `[params]`/`[host]` (not checked).
#[test]
fn the_label_check_finds_what_it_should() {
    let text = "[gpu]\nname = \"x\"\n[params]\na = 1  # [measured] ping-pong\nb = 2\nc = 3  # from a table [fitted]\n\
                [host]\nsockets = 2  # [derived] bus numbers\n";
    assert_eq!(
        unlabelled(text),
        ["line 5: b = 2", "line 6: c = 3  # from a table [fitted]"]
    );
}
