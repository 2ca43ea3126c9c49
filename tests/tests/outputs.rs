//! No output overwrites an input (issue #14, point 3.4): `--trace`, `sweep --out`/`--plot` and
//! `merge --out` refuse a path that is the same file as one of the command's inputs — the scenario,
//! a file it reads, a shard — by path, symbolic or hard link, with exit 2, before any work; outputs
//! are written through a temporary file and a rename (tpsim::files).

use crate::common::*;
use std::path::Path;

fn refused(o: &Out, input: &Path) {
    assert_eq!(o.code, 2, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    assert!(
        o.stderr
            .contains("refusing to write: it is the same file as the input")
            && o.stderr.contains(&input.display().to_string()),
        "{}",
        o.stderr
    );
}

/// A copy of the seed baseline in a scratch folder, whose hardware preset is a relative file there.
fn scenario_with_local_preset(name: &str) -> (std::path::PathBuf, std::path::PathBuf) {
    let d = scratch(name);
    let hw = d.join("box.toml");
    std::fs::copy(scenario("hardware/rtx-pro-6000-8x-dual-turin-direct.toml"), &hw).unwrap();
    let text = std::fs::read_to_string(scenario("seed/baseline.toml"))
        .unwrap()
        .replace(
            "preset = \"rtx-pro-6000-8x-dual-turin-direct\"",
            "preset = \"box.toml\"",
        );
    let s = d.join("s.toml");
    std::fs::write(&s, text).unwrap();
    (s, hw)
}

#[test]
fn trace_never_overwrites_the_scenario_or_a_file_it_reads() {
    let (s, hw) = scenario_with_local_preset("outputs-trace");
    let before = std::fs::read(&s).unwrap();
    let sp = s.to_str().unwrap();
    refused(&tpsim(&["run", sp, "--trace", sp]), &s);
    // A file the scenario reads (its relative hardware preset).
    let hw_before = std::fs::read(&hw).unwrap();
    refused(&tpsim(&["run", sp, "--trace", hw.to_str().unwrap()]), &hw);
    // Another spelling, a symbolic link, a hard link.
    let dir = s.parent().unwrap();
    let dotted = dir.join(".").join("s.toml");
    let sym = dir.join("sym.json");
    let hard = dir.join("hard.json");
    std::os::unix::fs::symlink(&s, &sym).unwrap();
    std::fs::hard_link(&s, &hard).unwrap();
    for out in [&dotted, &sym, &hard] {
        refused(&tpsim(&["run", sp, "--trace", out.to_str().unwrap()]), &s);
    }
    assert_eq!(std::fs::read(&s).unwrap(), before, "the scenario is untouched");
    assert_eq!(std::fs::read(&hw).unwrap(), hw_before, "the preset is untouched");
    // A new file is written whole, with no temporary left beside it.
    let t = dir.join("t.json");
    let o = tpsim(&["run", sp, "--trace", t.to_str().unwrap()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_slice(&std::fs::read(&t).unwrap()).unwrap();
    assert!(j["traceEvents"].is_array());
    let leftovers: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
    // A folder that does not exist is a failure to write (exit 1), as before.
    let o = tpsim(&["run", sp, "--trace", "/nonexistent/t.json"]);
    assert_eq!(o.code, 1, "{}", o.stderr);
    assert!(
        o.stderr.contains("/nonexistent/t.json: cannot write"),
        "{}",
        o.stderr
    );
}

#[test]
fn sweep_and_merge_outputs_never_overwrite_their_inputs() {
    let (s, hw) = scenario_with_local_preset("outputs-sweep");
    let sp = s.to_str().unwrap();
    let set = ["--quiet", "--set", "engine.mem_fraction_static=0.55,0.88"];
    let sweep = |extra: &[&str]| {
        let mut a = vec!["sweep", sp];
        a.extend_from_slice(&set);
        a.extend_from_slice(extra);
        tpsim(&a)
    };
    refused(&sweep(&["--out", sp]), &s);
    refused(&sweep(&["--out", hw.to_str().unwrap()]), &hw);
    refused(&sweep(&["--plot", sp, "--x", "engine.mem_fraction_static"]), &s);
    // --out and --plot the same file: the chart would replace the rows.
    let dir = s.parent().unwrap();
    let both = dir.join("both");
    std::fs::write(&both, "").unwrap();
    let b = both.to_str().unwrap();
    refused(
        &sweep(&["--out", b, "--plot", b, "--x", "engine.mem_fraction_static"]),
        &both,
    );
    // Shards, then a merge whose --out is one of them.
    let (a1, a2) = (dir.join("1.csv"), dir.join("2.csv"));
    for (i, f) in [(1, &a1), (2, &a2)] {
        let shard = format!("{i}/2");
        let o = sweep(&["--shard", &shard, "--out", f.to_str().unwrap()]);
        assert_eq!(o.code, 0, "{}", o.stderr);
    }
    let before = std::fs::read(&a1).unwrap();
    let o = tpsim(&[
        "merge",
        a1.to_str().unwrap(),
        a2.to_str().unwrap(),
        "--out",
        a1.to_str().unwrap(),
    ]);
    refused(&o, &a1);
    assert_eq!(std::fs::read(&a1).unwrap(), before);
    let m = dir.join("all.csv");
    let o = tpsim(&[
        "merge",
        a1.to_str().unwrap(),
        a2.to_str().unwrap(),
        "--out",
        m.to_str().unwrap(),
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert_eq!(std::fs::read_to_string(&m).unwrap().lines().count(), 3);
}
