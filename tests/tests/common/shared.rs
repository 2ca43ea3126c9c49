//! Helpers shared by the integration tests of `tpsim-tests` and `tpsim-calibrate`: the measured TSV
//! tables read through the `csv` crate, and the check that every test file is declared in the one
//! integration binary. Included by both crates' `common` modules (`#[path]`), so it is written once.

use std::path::Path;

/// A tab-separated table with one header line, as the `csv` crate reads it.
#[derive(Debug)]
pub struct Tsv {
    pub header: Vec<String>,
    pub rows: Vec<TsvRow>,
}

/// One record of a [`Tsv`]: its line in the file (the header is line 1) and its cells.
#[derive(Debug)]
pub struct TsvRow {
    pub line: usize,
    pub cells: Vec<String>,
}

impl Tsv {
    /// The index of the column named `name`; panics when there is none.
    pub fn col(&self, name: &str) -> usize {
        self.header
            .iter()
            .position(|h| h == name)
            .unwrap_or_else(|| panic!("no `{name}` column in {:?}", self.header))
    }
}

impl TsvRow {
    /// Cell `i`, or "" when the row is shorter.
    pub fn get(&self, i: usize) -> &str {
        self.cells.get(i).map_or("", String::as_str)
    }
}

/// Reads a tab-separated table: cells verbatim (no quoting: a `"` is an ordinary character), rows may
/// be shorter or longer than the header, blank lines are skipped.
pub fn read_tsv(path: &Path) -> Tsv {
    let mut r = csv::ReaderBuilder::new()
        .delimiter(b'\t')
        .flexible(true)
        .quoting(false)
        .from_path(path)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let header = r
        .headers()
        .unwrap_or_else(|e| panic!("{}: header: {e}", path.display()))
        .iter()
        .map(str::to_string)
        .collect();
    let rows = r
        .records()
        .map(|rec| rec.unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .filter(|rec| rec.iter().any(|c| !c.trim().is_empty()))
        .map(|rec| TsvRow {
            line: rec.position().map_or(0, |p| p.line() as usize),
            cells: rec.iter().map(str::to_string).collect(),
        })
        .collect();
    Tsv { header, rows }
}

/// The `*.rs` files of `dir` (a crate's `tests/`) that `main_src` (its `main.rs`) does not declare as
/// `mod NAME;`: with `autotests = false` such a file would silently never be built or run.
pub fn undeclared_test_files(dir: &Path, main_src: &str) -> Vec<String> {
    let mut missing = Vec::new();
    for e in std::fs::read_dir(dir).expect("tests/") {
        let p = e.expect("dir entry").path();
        let Some(stem) = p.file_stem().map(|s| s.to_string_lossy().into_owned()) else {
            continue;
        };
        if p.extension().is_some_and(|x| x == "rs")
            && stem != "main"
            && !main_src.contains(&format!("\nmod {stem};\n"))
        {
            missing.push(stem);
        }
    }
    missing.sort();
    missing
}
