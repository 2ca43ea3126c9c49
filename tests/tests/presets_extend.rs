//! Presets that inherit (issue #15, point 3): a hardware file may `extends = "<template>"`; the
//! template's keys are merged under its own, key by key; a `[fitted]` mark follows its value; cycles
//! and unknown templates are bad input; `tpsim validate --explain KEY` names the file a value came
//! from. The bundled presets are written on templates and resolve exactly as before.

use crate::common::*;
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

/// Writes `files` (name, text) into a fresh scratch folder and returns its path.
#[track_caller]
fn files(name: &str, files: &[(&str, &str)]) -> std::path::PathBuf {
    let dir = scratch(name);
    for (f, text) in files {
        std::fs::write(dir.join(f), text).expect("write");
    }
    dir
}

/// Every resolved field of a hardware description but its name and the files of its fitted marks.
fn values(hw: &tpsim::scenario::Hardware) -> String {
    format!(
        "{:?}\n{:?}\n{:?}\n{:?}\n{}\n{:?}",
        hw.gpu,
        hw.params,
        hw.topology,
        hw.curves,
        hw.cpu_amd,
        hw.fitted.keys().collect::<Vec<_>>()
    )
}

fn hardware(path: &Path) -> tpsim::scenario::Hardware {
    let p = path.display().to_string();
    tpsim::scenario::hardware_from_preset(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

const BASE: &str = r#"# a template of shared constants
[gpu]
name = "Base GPU"
memory_total_mib = 1000
memory_bandwidth = "1TB/s"
bf16_tflops = 100.0
sm_count = 10
compute_capability = "9.0"
pcie_gen = 5
pcie_width = 16
p2p = true

[params]
context_overhead = "1GiB"
mem_efficiency = 0.8
flops_efficiency = 0.5
kernel_overhead = "2us"
pcie_gen5_x16_bw = "50GB/s"
pcie_gen4_x16_bw = "25GB/s"
pcie_hop_latency = "0.3us"
root_complex_latency = "0.4us"
root_complex_bw = "100GB/s"
inter_socket_bw = "100GB/s"
inter_socket_latency = "0.2us"
host_memory_bw = "400GB/s"
shm_copy_bw = "2GB/s"
nccl_channel_bw = "11GB/s"
nccl_simple_step_latency = "3us"
nccl_eager_launch = "3.5us"
shm_step_cost = "0.2us"
shm_cross_socket_step_cost = "14us"
collapse_min_roots = 2
collapse_min_sources = 2
collapse_factor = 0.25
staged_peer_read_factor = 15.0
staged_latency = "14us"
force_p2p = false

[compute.curves.default]
points = [[1e6, 0.5], [1e9, 0.8]]

[fitted.nccl_channel_bw]
rows = "base rows"
refit = "base refit"

[fitted.shm_step_cost]
rows = "base rows"
refit = "base refit"

[fitted.collapse_factor]
rows = "base rows"
refit = "base refit"
"#;

/// A template over BASE: a new GPU name, a channel rate of its own (its fitted mark dropped), a new
/// SHM step with a mark of its own, and a curve class of its own.
const MID: &str = r#"extends = "base.toml"

[gpu]
name = "Mid GPU"

[params]
nccl_channel_bw = "12GB/s"
shm_step_cost = "0.3us"

[compute.curves.mlp]
points = [[1e6, 0.6], [1e9, 0.9]]

[fitted.shm_step_cost]
rows = "mid rows"
refit = "mid refit"
"#;

/// A box over MID.
const BOX: &str = r#"name = "a box"
cpu_vendor = "intel"
extends = "mid.toml"

[topology]
gpus = ["socket0/root0/switch0", "socket0/root0/switch0"]

[topology.nodes.switch0]
gen = 4

[params]
kernel_overhead = "3us"
"#;

/// The same box written out whole: what the chain must resolve to.
fn flat() -> String {
    let params = BASE
        .split("[params]\n")
        .nth(1)
        .and_then(|p| p.split("\n[compute").next())
        .expect("BASE [params]")
        .replace("kernel_overhead = \"2us\"", "kernel_overhead = \"3us\"")
        .replace("nccl_channel_bw = \"11GB/s\"", "nccl_channel_bw = \"12GB/s\"")
        .replace("shm_step_cost = \"0.2us\"", "shm_step_cost = \"0.3us\"");
    let gpu = BASE
        .split("[gpu]\n")
        .nth(1)
        .and_then(|g| g.split("\n[params]").next())
        .expect("BASE [gpu]")
        .replace("Base GPU", "Mid GPU");
    format!(
        "name = \"a box\"\ncpu_vendor = \"intel\"\n\n[gpu]\n{gpu}\n[topology]\ngpus = [\"socket0/root0/switch0\", \"socket0/root0/switch0\"]\n\n\
         [topology.nodes.switch0]\ngen = 4\n\n[params]\n{params}\n\
         [compute.curves.default]\npoints = [[1e6, 0.5], [1e9, 0.8]]\n\n[compute.curves.mlp]\npoints = [[1e6, 0.6], [1e9, 0.9]]\n\n\
         [fitted.shm_step_cost]\nrows = \"mid rows\"\nrefit = \"mid refit\"\n\n\
         [fitted.collapse_factor]\nrows = \"base rows\"\nrefit = \"base refit\"\n"
    )
}

#[test]
fn a_template_chain_merges_exactly_as_the_box_written_out() {
    let flat = flat();
    let dir = files(
        "chain",
        &[
            ("base.toml", BASE),
            ("mid.toml", MID),
            ("box.toml", BOX),
            ("flat.toml", &flat),
        ],
    );
    let chain = hardware(&dir.join("box.toml"));
    let whole = hardware(&dir.join("flat.toml"));
    assert_eq!(values(&chain), values(&whole));
    assert_eq!(chain.name, "a box");
    // The child's values win; the others come from below.
    assert_eq!(chain.gpu.name, "Mid GPU");
    assert_eq!(chain.gpu.memory_total_mib, 1000);
    assert!((chain.params.nccl_channel_bw.as_gbps() - 12.0).abs() < 1e-9);
    assert!((chain.params.kernel_overhead.as_us_f64() - 3.0).abs() < 1e-9);
    assert!((chain.params.collapse_factor - 0.25).abs() < 1e-12);
    assert_eq!(chain.curves.classes.len(), 2, "default from BASE, mlp from MID");
    // A fitted mark follows its value: MID set nccl_channel_bw without a mark (dropped), declared
    // its own shm_step_cost; collapse_factor keeps BASE's.
    let marks: Vec<(&str, &str, &str)> = chain
        .fitted
        .iter()
        .map(|(n, f)| (n.as_str(), f.rows.as_str(), f.file.as_str()))
        .collect();
    let base = dir.join("base.toml").display().to_string();
    let mid = dir.join("mid.toml").display().to_string();
    assert_eq!(marks.len(), 2, "{marks:?}");
    assert_eq!(marks[0].0, "collapse_factor");
    assert_eq!(marks[0].1, "base rows");
    assert!(marks[0].2.ends_with("base.toml"), "{}: {base}", marks[0].2);
    assert_eq!(marks[1].0, "shm_step_cost");
    assert_eq!(marks[1].1, "mid rows");
    assert!(marks[1].2.ends_with("mid.toml"), "{}: {mid}", marks[1].2);
    // The same through the CLI: one collective on both, byte for byte.
    let run = |f: &str| {
        let o = tpsim(&[
            "collective",
            "--hardware",
            &dir.join(f).display().to_string(),
            "--sizes",
            "4K..64M",
            "--json",
        ]);
        assert_eq!(o.code, 0, "{}", o.stderr);
        o.stdout
    };
    assert_eq!(run("box.toml"), run("flat.toml"));
}

#[test]
fn a_scenario_may_extend_a_template_and_its_inline_keys_win() {
    // The seed box written in the scenario itself over the bundled GPU template: the same prediction
    // as the bundled preset (whose only keys beyond the template are name, vendor and topology).
    let text = std::fs::read_to_string(scenario("seed/baseline.toml")).expect("baseline");
    let from = "preset = \"rtx-pro-6000-8x-dual-turin-direct\"";
    let preset =
        std::fs::read_to_string(scenario("hardware/rtx-pro-6000-8x-dual-turin-direct.toml")).unwrap();
    let paths = preset
        .split("[topology]\n")
        .nth(1)
        .expect("the preset's topology");
    let inline = text.replacen(
        from,
        "extends = \"rtx-pro-6000-server\"\nname = \"8x RTX PRO 6000 Blackwell Server, dual EPYC Turin, direct-attach (seed box)\"\ncpu_vendor = \"amd\"",
        1,
    );
    let inline = format!("{inline}\n[hardware.topology]\n{paths}");
    let dir = files("inline-extends", &[("s.toml", &inline)]);
    let a = run_json(&scenario("seed/baseline.toml"));
    let b = run_json(&dir.join("s.toml").display().to_string());
    assert_eq!(a["throughput"], b["throughput"]);
    assert_eq!(a["memory"], b["memory"]);
    assert_eq!(a["collectives"], b["collectives"]);
    assert_eq!(a["fitted_constants"], b["fitted_constants"]);
    // preset and extends together: bad input naming the key.
    let both = text.replacen(from, &format!("{from}\nextends = \"rtx-pro-6000-server\""), 1);
    let dir = files("inline-both", &[("s.toml", &both)]);
    let o = tpsim(&["validate", &dir.join("s.toml").display().to_string()]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr
            .contains("s.toml:8: key `hardware.extends`: give either `preset`"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_cycle_exits_2_naming_the_files() {
    let dir = files(
        "cycle",
        &[
            ("a.toml", "extends = \"b.toml\"\nname = \"a\"\n"),
            ("b.toml", "# b\nextends = \"a.toml\"\n"),
            ("self.toml", "extends = \"self.toml\"\n"),
        ],
    );
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("a.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    // Named where the cycle closes: b.toml's `extends`, line 2.
    assert!(o.stderr.contains("b.toml:2: key `extends`"), "{}", o.stderr);
    assert!(o.stderr.contains("extends cycle"), "{}", o.stderr);
    assert!(
        o.stderr.contains("a.toml → ") && o.stderr.contains("b.toml → "),
        "the chain is spelled out: {}",
        o.stderr
    );
    let o = tpsim(&["topo", "--hardware", &dir.join("self.toml").display().to_string()]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr.contains("self.toml:1: key `extends`") && o.stderr.contains("extends cycle"),
        "{}",
        o.stderr
    );
}

#[test]
fn a_chain_longer_than_the_bound_exits_2() {
    // t0 extends t1 … t8: nine files, one more than MAX_CHAIN.
    let n = tpsim::scenario::layers::MAX_CHAIN + 1;
    let texts: Vec<(String, String)> = (0..n)
        .map(|i| {
            let text = if i + 1 < n {
                format!("extends = \"t{}.toml\"\n", i + 1)
            } else {
                String::new()
            };
            (format!("t{i}.toml"), text)
        })
        .collect();
    let refs: Vec<(&str, &str)> = texts.iter().map(|(a, b)| (a.as_str(), b.as_str())).collect();
    let dir = files("deep", &refs);
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("t0.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains(&format!(
            "t{}.toml:1: key `extends`",
            tpsim::scenario::layers::MAX_CHAIN - 1
        )) && o.stderr.contains("more than 8 files in one extends chain"),
        "{}",
        o.stderr
    );
}

#[test]
fn an_unknown_template_exits_2_listing_the_templates() {
    let dir = files(
        "unknown",
        &[
            ("box.toml", "name = \"x\"\n\nextends = \"rtx-pro-9000\"\n"),
            ("preset.toml", "extends = \"rtx-pro-6000-8x-dual-turin-direct\"\n"),
            ("missing.toml", "extends = \"nowhere/t.toml\"\n"),
        ],
    );
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("box.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains(
            "box.toml:3: key `extends`: unknown hardware template `rtx-pro-9000`; expected one of: "
        ),
        "{}",
        o.stderr
    );
    for t in tpsim::presets::names("hardware-template") {
        assert!(o.stderr.contains(t), "{t} is listed: {}", o.stderr);
    }
    // A preset is not a template.
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("preset.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("`rtx-pro-6000-8x-dual-turin-direct` is a hardware preset, not a template"),
        "{}",
        o.stderr
    );
    // A file that is not there: named, with the file that names it.
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("missing.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("missing.toml:1: key `extends`: cannot read template file")
            && o.stderr.contains("nowhere/t.toml"),
        "{}",
        o.stderr
    );
    // In a scenario: the scenario's key and line.
    let s = baseline_with(
        "unknown-in-scenario",
        "preset = \"rtx-pro-6000-8x-dual-turin-direct\"",
        "extends = \"rtx-pro-9000\"",
    );
    let o = tpsim(&["validate", &s]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("scenario.toml:7: key `hardware.extends`: unknown hardware template `rtx-pro-9000`"),
        "{}",
        o.stderr
    );
}

#[test]
fn errors_in_a_template_name_the_template_its_line_and_key() {
    // A value that parses but is wrong, supplied by a template: the template's file and line.
    let bad_gen = BASE.replace("pcie_gen = 5", "pcie_gen = 7");
    let line = bad_gen.lines().position(|l| l == "pcie_gen = 7").unwrap() + 1;
    let dir = files(
        "template-errors",
        &[("base.toml", &bad_gen), ("mid.toml", MID), ("box.toml", BOX)],
    );
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("box.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2, "{}", o.stdout);
    assert!(
        o.stderr.contains(&format!(
            "base.toml:{line}: key `hardware.gpu.pcie_gen`: 7 is not a PCIe generation"
        )),
        "{}",
        o.stderr
    );
    // A typo: the template's line, column and key.
    let typo = MID.replace("shm_step_cost = \"0.3us\"", "shm_stepcost = \"0.3us\"");
    let dir = files(
        "template-typo",
        &[("base.toml", BASE), ("mid.toml", &typo), ("box.toml", BOX)],
    );
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("box.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("mid.toml:8:1: key `params.shm_stepcost`: unknown field `shm_stepcost`"),
        "{}",
        o.stderr
    );
    // A template cannot name a GPU count.
    let dir = files(
        "template-gpus",
        &[("t.toml", "gpus = 2\n"), ("box.toml", "extends = \"t.toml\"\n")],
    );
    let o = tpsim(&[
        "validate",
        "--hardware",
        &dir.join("box.toml").display().to_string(),
    ]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("a hardware template cannot itself name a preset, a profile or a GPU count"),
        "{}",
        o.stderr
    );
}

/// `tpsim validate --hardware PRESET --explain KEY`'s output.
fn explain(preset: &str, key: &str) -> String {
    let o = tpsim(&["validate", "--hardware", preset, "--explain", key]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    o.stdout
}

#[test]
fn explain_names_the_template_of_a_shared_constant_and_the_preset_of_a_box_value() {
    let asus = "rtx-pro-6000-8x-asus-esc8000a-e13p";
    // A shared constant: the template that declares it, its mark there too.
    let e = explain(asus, "hardware.params.nccl_channel_bw");
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines[0], "hardware.params.nccl_channel_bw = \"11.5GB/s\"");
    assert!(
        lines[1].starts_with("  set in     <preset hardware/templates/pcie-nccl-host.toml>:")
            && lines[1].ends_with(" (template)"),
        "{e}"
    );
    assert!(
        e.contains("  fitted to  tests/data/allreduce.tsv lines 22-25"),
        "{e}"
    );
    // A GPU figure: the GPU template.
    let e = explain(asus, "gpu.memory_bandwidth");
    assert!(
        e.starts_with("hardware.gpu.memory_bandwidth = \"1.597TB/s\"\n  set in     <preset hardware/templates/rtx-pro-6000-server.toml>:"),
        "{e}"
    );
    // A box-specific value: the preset, over the template's, with its own fitted mark.
    let e = explain(asus, "hardware.params.shm_copy_bw");
    let lines: Vec<&str> = e.lines().collect();
    assert_eq!(lines[0], "hardware.params.shm_copy_bw = \"30.3GB/s\"");
    assert!(
        lines[1].starts_with(&format!("  set in     <preset hardware/{asus}.toml>:")),
        "{e}"
    );
    assert!(
        lines[2].starts_with("  overrides  \"2.2GB/s\" in <preset hardware/templates/pcie-nccl-host.toml>:"),
        "{e}"
    );
    assert!(
        e.contains("  fitted to  this box's own 4-GPU default-NCCL busbw"),
        "{e}"
    );
    // An Intel box's collapse factor: the template's mark is dropped, and explain says so.
    let e = explain("h200-8x-nvlink", "hardware.fitted.collapse_factor");
    assert!(e.starts_with("hardware.fitted.collapse_factor: not fitted\n  dropped    the mark of <preset hardware/templates/pcie-nccl-host.toml>:"), "{e}");
    // The line it names is where the key is written.
    let template =
        std::fs::read_to_string(scenario("hardware/templates/pcie-nccl-host.toml")).expect("template");
    let e = explain("rtx-pro-6000-8x-dual-turin-direct", "params.nccl_channel_bw");
    let line: usize = e
        .split("pcie-nccl-host.toml>:")
        .nth(1)
        .and_then(|r| r.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("a line number");
    assert!(
        template
            .lines()
            .nth(line - 1)
            .unwrap()
            .starts_with("nccl_channel_bw = ")
    );
    // In a scenario, an inline key is the scenario's, over the template's.
    let s = baseline_with(
        "explain-inline",
        "[engine]",
        "[hardware.params]\nnccl_channel_bw = \"12GB/s\"\n\n[engine]",
    );
    let o = tpsim(&["validate", &s, "--explain", "hardware.params.nccl_channel_bw"]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(o.stdout.contains("scenario.toml:"), "{}", o.stdout);
    assert!(
        o.stdout.contains(
            " (scenario)\n  overrides  \"11.5GB/s\" in <preset hardware/templates/pcie-nccl-host.toml>:"
        ),
        "{}",
        o.stdout
    );
    assert!(o.stdout.contains("  not fitted: the value of "), "{}", o.stdout);
    // Without --explain, validate prints its one line as before.
    let o = tpsim(&["validate", &scenario("seed/baseline.toml")]);
    assert_eq!(o.code, 0);
    assert!(
        o.stdout
            .ends_with(": ok (kimi-k2.5 on 8 GPUs, tp 8, speculative)\n"),
        "{}",
        o.stdout
    );
    // A key that is not a hardware key: bad input, listing the keys.
    let o = tpsim(&["validate", "--hardware", asus, "--explain", "engine.tp"]);
    assert_eq!(o.code, 2);
    assert!(
        o.stderr
            .contains("error: --explain: key `engine.tp`: expected hardware.name"),
        "{}",
        o.stderr
    );
}

#[test]
fn every_bundled_preset_extends_a_template_and_every_template_is_used() {
    let mut used = std::collections::BTreeSet::new();
    for name in tpsim::presets::names("hardware") {
        let text = std::fs::read_to_string(scenario(&format!("hardware/{name}.toml"))).expect("preset");
        assert!(text.contains("\nextends = \""), "{name} extends no template");
        let hw = tpsim::scenario::hardware_from_preset(name).expect("resolves");
        let layers: Vec<&tpsim::scenario::layers::Layer> = hw.layers.iter().collect();
        // Templates below, the preset on top; the shared constants at the bottom of every chain.
        assert!(layers.len() >= 3, "{name}: {:?}", hw.layers);
        assert_eq!(layers[0].file, "<preset hardware/templates/pcie-nccl-host.toml>");
        let (top, below) = layers.split_last().unwrap();
        assert_eq!(top.file, format!("<preset hardware/{name}.toml>"));
        for l in below {
            assert_eq!(l.kind, tpsim::scenario::layers::LayerKind::Template, "{name}");
            used.insert(l.file.clone());
        }
    }
    for t in tpsim::presets::names("hardware-template") {
        let file = format!("<preset hardware/templates/{t}.toml>");
        assert!(used.contains(&file), "no preset extends {file}");
        // A template is not a preset.
        let o = tpsim(&["topo", "--hardware", t]);
        assert_eq!(o.code, 2, "{t}");
        assert!(o.stderr.contains("unknown hardware preset"), "{}", o.stderr);
    }
}

#[test]
fn explain_refuses_a_key_that_names_nothing() {
    for (key, needle) in [
        ("", "key ``: expected hardware.name"),
        ("hardware.nosuch.x", "key `nosuch.x`: expected hardware.name"),
        (
            "hardware.params.shm_copy_bw.extra",
            "key `params.shm_copy_bw.extra`: expected",
        ),
        (
            "hardware.params.bogus",
            "`bogus` is not a key of [params]: expected one of",
        ),
    ] {
        let o = tpsim(&["validate", "--hardware", "v100-4x-plx", "--explain", key]);
        assert_eq!(o.code, 2, "{key}: {}", o.stdout);
        assert!(
            o.stderr.contains("--explain") && o.stderr.contains(needle),
            "{key}: {}",
            o.stderr
        );
        assert!(o.stdout.is_empty(), "{key}: {}", o.stdout);
    }
}
