//! Presets that inherit (issue #15, point 3). First: the resolved hardware of every bundled preset,
//! checked in, so that rewriting the presets on templates cannot move a value.

use std::fmt::Write as _;
use std::path::Path;

/// The checked-in resolution of every bundled preset, taken before the presets were rewritten on
/// templates: a preset that resolves to anything else fails [`every_bundled_preset_resolves_as_before`].
const EXPECTED: &str = "tests/expect/presets-resolved.txt";

/// Every resolved field of a bundled preset that a prediction can read, one per line (the file a
/// fitted mark was declared in is left out: that is where the mark now lives, not a value).
fn resolved(name: &str) -> String {
    let hw = tpsim::scenario::hardware_from_preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
    let fitted: Vec<(&String, &String, &String)> =
        hw.fitted.iter().map(|(n, f)| (n, &f.rows, &f.refit)).collect();
    let mut o = String::new();
    let _ = writeln!(o, "[{name}]");
    let _ = writeln!(o, "name = {:?}", hw.name);
    let _ = writeln!(o, "cpu_amd = {}", hw.cpu_amd);
    let _ = writeln!(o, "gpu = {:?}", hw.gpu);
    let _ = writeln!(o, "params = {:?}", hw.params);
    let _ = writeln!(o, "topology = {:?}", hw.topology);
    let _ = writeln!(o, "curves = {:?}", hw.curves);
    let _ = writeln!(o, "fitted = {fitted:?}");
    o
}

fn all_resolved() -> String {
    let mut o = String::from(
        "# The resolved hardware of every bundled preset (tests/tests/presets_extend.rs). Written from the\n\
         # presets as they were before they were rewritten on templates (issue #15): a preset edit that\n\
         # changes a value fails the test. Rewrite it (TPSIM_UPDATE_EXPECT=1) only with a change meant to\n\
         # move predictions, in the same commit as `tpsim regress --update`.\n",
    );
    for name in tpsim::presets::names("hardware") {
        o.push_str(&resolved(name));
    }
    o
}

#[test]
fn every_bundled_preset_resolves_as_before() {
    let file = Path::new(env!("CARGO_MANIFEST_DIR")).join(EXPECTED.trim_start_matches("tests/"));
    let now = all_resolved();
    if std::env::var_os("TPSIM_UPDATE_EXPECT").is_some() {
        std::fs::write(&file, &now).expect("write the expectation");
    }
    let want = std::fs::read_to_string(&file).expect("the expectation file");
    for (i, (a, b)) in want.lines().zip(now.lines()).enumerate() {
        assert_eq!(a, b, "{EXPECTED} line {}", i + 1);
    }
    assert_eq!(
        want.lines().count(),
        now.lines().count(),
        "{EXPECTED}: line count"
    );
}
