//! Issue #14: every fitted constant names its rows, and a report lists the fitted constants its
//! prediction used, derived from what it simulated (not a static list).

use crate::common::*;

/// The `name`s of `fitted_constants` in a run's JSON.
fn fitted_names(j: &serde_json::Value) -> Vec<String> {
    j["fitted_constants"]
        .as_array()
        .expect("fitted_constants is an array")
        .iter()
        .map(|c| c["name"].as_str().expect("name").to_string())
        .collect()
}

#[test]
fn nccl_over_p2p_uses_the_p2p_ring_constants_not_the_shm_ones() {
    // NCCL_P2P_LEVEL=SYS on the seed box: every hop is P2P, the dual-AMD simple order runs Simple, so
    // the channel rate and the Simple step apply; the SHM constants do not.
    let j = run_json(&scenario("seed/nccl-p2p.toml"));
    assert_eq!(j["collectives"]["transport"], "p2p");
    assert_eq!(fitted_names(&j), ["nccl_channel_bw", "nccl_simple_step_latency"]);
    let c = &j["fitted_constants"][0];
    assert!((f(&c["value"]) - 11.5).abs() < 1e-9, "{c}");
    assert_eq!(c["unit"], "GB/s");
    assert!(
        c["rows"]
            .as_str()
            .unwrap()
            .contains("tests/data/allreduce.tsv lines 22-25"),
        "{c}"
    );
    // The seed box's preset inherits the mark with the value from the template that declares both.
    assert_eq!(c["file"], "<preset hardware/templates/pcie-nccl-host.toml>");
    assert!(
        c["refit"]
            .as_str()
            .unwrap()
            .starts_with("tpsim-calibrate crossval allreduce")
    );
}

#[test]
fn a_value_set_inline_is_no_longer_the_fitted_one() {
    let p = baseline_with(
        "inline-shm",
        "[engine]",
        "[hardware.params]\nshm_copy_bw = \"3GB/s\"\n\n[engine]",
    );
    let j = run_json(&p);
    assert_eq!(fitted_names(&j), ["shm_cross_socket_step_cost", "shm_step_cost"]);
}

#[test]
fn a_profile_parameter_is_fitted_and_names_the_profile() {
    let profile = scenario("profiles/retired/rtx-pro-6000-throughput-fit.toml");
    let p = baseline_with(
        "profile",
        "gpus = 8\n",
        &format!("gpus = 8\nprofile = \"{profile}\"\n"),
    );
    let j = run_json(&p);
    let names = fitted_names(&j);
    assert!(names.contains(&"kernel_overhead".to_string()), "{names:?}");
    let k = j["fitted_constants"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["name"] == "kernel_overhead")
        .unwrap();
    assert!((f(&k["value"]) - 5.14715).abs() < 1e-9, "{k}");
    assert_eq!(k["rows"], "scenarios/validation/throughput-pairs.tsv");
    assert!(
        k["refit"]
            .as_str()
            .unwrap()
            .starts_with("tpsim-calibrate fit-throughput scenarios/validation/throughput-pairs.tsv"),
        "{k}"
    );
    assert!(
        k["file"]
            .as_str()
            .unwrap()
            .ends_with("rtx-pro-6000-throughput-fit.toml")
    );
}

#[test]
fn the_text_report_names_the_rows_and_the_refit_command() {
    let o = tpsim(&["run", &scenario("seed/baseline.toml")]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    assert!(
        o.stdout
            .contains("Fitted constants used (agreement with their own rows is consistency, not accuracy):")
    );
    assert!(
        o.stdout
            .contains("  - shm_cross_socket_step_cost = 14 us: fitted to seed-story S2")
    );
}

/// A hardware file (path preset) with `extra` appended: the seed box's preset text.
fn hardware_with(name: &str, extra: &str) -> String {
    let preset =
        std::fs::read_to_string(scenario("hardware/rtx-pro-6000-8x-dual-turin-direct.toml")).expect("preset");
    let dir = scratch(name);
    std::fs::write(dir.join("box.toml"), format!("{preset}\n{extra}")).expect("write");
    let s = std::fs::read_to_string(scenario("seed/baseline.toml")).expect("baseline");
    let s = s.replacen(
        "preset = \"rtx-pro-6000-8x-dual-turin-direct\"",
        "preset = \"box.toml\"",
        1,
    );
    let p = dir.join("scenario.toml");
    std::fs::write(&p, s).expect("write");
    p.display().to_string()
}

#[test]
fn bad_fitted_entries_are_rejected_naming_the_key() {
    let cases = [
        (
            "[fitted.bogus]\nrows = \"r\"\nrefit = \"c\"\n",
            "fitted.bogus",
            "is not a fittable parameter",
        ),
        (
            "[fitted.nvlink_bw]\nrows = \"r\"\nrefit = \"c\"\n",
            "fitted.nvlink_bw",
            "does not set it",
        ),
        (
            "[params]\nhost_memory_bw = \"400GB/s\"\n[fitted.host_memory_bw]\nrows = \"\"\nrefit = \"c\"\n",
            "fitted.host_memory_bw",
            "non-empty `rows`",
        ),
        (
            "[params]\nhost_memory_bw = \"400GB/s\"\n[fitted.host_memory_bw]\nrows = \"r\"\n",
            "refit",
            "missing field",
        ),
        // The value comes from the preset's template: a mark belongs in the file that sets the value.
        (
            "[fitted.host_memory_bw]\nrows = \"r\"\nrefit = \"c\"\n",
            "fitted.host_memory_bw",
            "does not set it",
        ),
    ];
    for (i, (extra, key, needle)) in cases.iter().enumerate() {
        let p = hardware_with(&format!("bad-{i}"), extra);
        let o = tpsim(&["validate", &p]);
        assert_eq!(o.code, 2, "{extra}: {}", o.stderr);
        assert!(o.stderr.contains(key), "{extra}: {}", o.stderr);
        assert!(o.stderr.contains(needle), "{extra}: {}", o.stderr);
        assert!(o.stderr.contains("box.toml"), "{extra}: {}", o.stderr);
    }
}

#[test]
fn every_bundled_fitted_entry_resolves_and_the_shared_constants_are_declared() {
    // Each hardware file (preset or template) that sets a shared collective constant at its fitted
    // value declares it fitted in the same file.
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../scenarios/hardware");
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("templates")] {
        for e in std::fs::read_dir(&dir).expect("hardware/") {
            let p = e.expect("entry").path();
            if p.extension().and_then(|x| x.to_str()) == Some("toml") {
                files.push(p);
            }
        }
    }
    let shared = [
        ("nccl_channel_bw = \"11.5GB/s\"", "[fitted.nccl_channel_bw]"),
        (
            "nccl_simple_step_latency = \"2.83us\"",
            "[fitted.nccl_simple_step_latency]",
        ),
        ("shm_step_cost = \"0.2us\"", "[fitted.shm_step_cost]"),
        (
            "shm_cross_socket_step_cost = \"14us\"",
            "[fitted.shm_cross_socket_step_cost]",
        ),
        ("kernel_overhead = \"3us\"", "[fitted.kernel_overhead]"),
    ];
    for p in &files {
        let text = std::fs::read_to_string(p).expect("read");
        for (line, key) in shared {
            if text.contains(line) {
                assert!(text.contains(key), "{}: {line} without {key}", p.display());
            }
        }
    }
    // And every preset resolves with the marks of those it uses at their fitted values: a preset or
    // template that sets one again without its entry would drop the mark, and a report would hide
    // a fitted constant.
    let mut n = 0;
    for name in tpsim::presets::names("hardware") {
        let hw = tpsim::scenario::hardware_from_preset(name).unwrap_or_else(|e| panic!("{name}: {e}"));
        for (param, fitted_value) in [
            ("nccl_channel_bw", 11.5),
            ("nccl_simple_step_latency", 2.83),
            ("shm_step_cost", 0.2),
            ("shm_cross_socket_step_cost", 14.0),
            ("kernel_overhead", 3.0),
        ] {
            let v = tpsim::scenario::profile::get(&hw.params, param).expect("a profile parameter");
            if (v - fitted_value).abs() < 1e-9 {
                assert!(
                    hw.fitted.contains_key(param),
                    "{name}: {param} = {v} without its [fitted] mark"
                );
                n += 1;
            }
        }
        let o = tpsim(&["topo", "--hardware", name]);
        assert_eq!(o.code, 0, "{name}: {}", o.stderr);
    }
    assert!(n >= 18 * 4, "{n} fitted declarations checked");
}
