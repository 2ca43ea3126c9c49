//! Efficiency curves by op class (issue #4 item 3): `[compute.curves.<class>]` in a preset,
//! `[hardware.compute.curves.<class>]` inline and `[compute.curves.<class>]` in a profile. Without
//! curves every prediction is unchanged; a curve moves only its own class; bad curves are exit-2
//! errors naming the file, the key and what was expected.

use crate::common::*;

/// Llama-3.1-8B on one H100 SXM (scenarios/examples/llama-3.1-8b-h100.toml) plus `extra` after the
/// `[hardware]` section, written beside an optional `box.toml` profile.
fn llama_with(name: &str, extra: &str, profile: Option<&str>) -> String {
    let text = std::fs::read_to_string(scenario("examples/llama-3.1-8b-h100.toml")).unwrap();
    let from = "preset = \"h100-sxm-1x\"\n";
    assert_eq!(text.matches(from).count(), 1);
    let dir = scratch(name);
    let p = dir.join("scenario.toml");
    std::fs::write(&p, text.replacen(from, &format!("{from}{extra}"), 1)).unwrap();
    if let Some(prof) = profile {
        std::fs::write(dir.join("box.toml"), prof).unwrap();
    }
    p.display().to_string()
}

fn by_op(j: &serde_json::Value, op: &str) -> f64 {
    f(&j["breakdown_by_op"][op])
}

#[test]
fn a_curve_moves_only_its_class_by_the_hand_computed_amount() {
    let base = run_json(&scenario("examples/llama-3.1-8b-h100.toml"));
    // Preset: 3.35 TB/s × 0.80, 3 µs per kernel. LM head per token: 128256 × 4096 × 2 B =
    // 1 050 673 152 B → 392.042221 µs + 3 µs = 0.395042221 ms (tolerance 1 ns).
    assert!((by_op(&base, "lm_head") - 0.395_042_221).abs() < 1e-6);
    let file = llama_with(
        "curves-lm-head",
        "\n[hardware.compute.curves.lm_head]\npoints = [[1e8, 0.4], [1e10, 0.9]]\n",
        None,
    );
    let j = run_json(&file);
    // ln(1.050673152e9 / 1e8) / ln(100) = 2.352015 / 4.605170 = 0.510733 of the way from 0.4 to
    // 0.9 → 0.655366; 1.050673152e9 B ÷ (3.35e12 × 0.655366) = 478.565 µs, + 3 µs.
    let t = ((1.050_673_152e9f64 / 1e8).ln() / 100f64.ln()) * 0.5 + 0.4;
    let expect_ms = (1.050_673_152e9 / (3.35e12 * t) * 1e6 + 3.0) / 1e3;
    assert!((expect_ms - 0.481_565).abs() < 1e-5, "{expect_ms}");
    assert!(
        (by_op(&j, "lm_head") - expect_ms).abs() < 1e-6,
        "{} vs {expect_ms}",
        by_op(&j, "lm_head")
    );
    // Every other class is untouched, to the bit.
    for op in ["attention", "mlp", "embed", "sync"] {
        assert_eq!(by_op(&j, op).to_bits(), by_op(&base, op).to_bits(), "{op}");
    }
}

#[test]
fn a_flat_default_curve_at_the_preset_value_changes_nothing() {
    let base = run_json(&scenario("examples/llama-3.1-8b-h100.toml"));
    let file = llama_with(
        "curves-flat",
        "\n[hardware.compute.curves.default]\npoints = [[4096, 0.8]]\nflops_points = [[1e6, 0.5], [1e9, 0.5]]\n",
        None,
    );
    let j = run_json(&file);
    assert_eq!(j["throughput"], base["throughput"]);
    assert_eq!(j["breakdown_by_op"], base["breakdown_by_op"]);
}

/// A profile carrying a default curve (as `tpsim-calibrate fit --curves` writes it).
const PROFILE: &str = r#"
[provenance]
tool = "hand"

[compute.curves.default]
points = [[1e6, 0.5], [1e9, 0.5]]
ci = [[0.45, 0.55], [0.45, 0.55]]
source = "test"
"#;

#[test]
fn profile_curves_sit_between_the_preset_and_the_inline_ones() {
    let base = run_json(&scenario("examples/llama-3.1-8b-h100.toml"));
    let file = llama_with("curves-profile", "profile = \"box.toml\"\n", Some(PROFILE));
    let j = run_json(&file);
    assert_eq!(j["hardware"]["profile"]["curves"], serde_json::json!(["default"]));
    // Every class falls back to the default 0.5 (was 0.8): the LM head's memory time × 1.6.
    let lm = (by_op(&j, "lm_head") * 1e3 - 3.0) / (by_op(&base, "lm_head") * 1e3 - 3.0);
    assert!((lm - 1.6).abs() < 1e-6, "{lm}");
    // An inline curve of the same class wins over the profile's.
    let file = llama_with(
        "curves-profile-inline",
        "profile = \"box.toml\"\n\n[hardware.compute.curves.default]\npoints = [[1.0, 0.8]]\n",
        Some(PROFILE),
    );
    let j = run_json(&file);
    assert_eq!(j["breakdown_by_op"], base["breakdown_by_op"]);
    assert_eq!(
        j["hardware"]["profile"]["overridden_inline"],
        serde_json::json!(["compute.curves.default"])
    );
}

fn bad(name: &str, extra: &str, profile: Option<&str>) -> String {
    let file = llama_with(name, extra, profile);
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 2, "stdout: {}\nstderr: {}", o.stdout, o.stderr);
    o.stderr
}

#[test]
fn bad_curves_name_the_file_the_key_and_what_was_expected() {
    let e = bad(
        "curves-unsorted",
        "\n[hardware.compute.curves.mlp]\npoints = [[1e6, 0.5], [1e5, 0.6]]\n",
        None,
    );
    assert!(e.contains("scenario.toml"), "{e}");
    assert!(e.contains("hardware.compute.curves.mlp.points"), "{e}");
    assert!(e.contains("strictly increasing size"), "{e}");
    let e = bad(
        "curves-range",
        "\n[hardware.compute.curves.moe]\nflops_points = [[1e6, 1.5]]\n",
        None,
    );
    assert!(
        e.contains("hardware.compute.curves.moe.flops_points") && e.contains("outside (0, 1]"),
        "{e}"
    );
    let e = bad(
        "curves-empty",
        "\n[hardware.compute.curves.mlp]\npoints = []\n",
        None,
    );
    assert!(e.contains("at least one [size, efficiency] point"), "{e}");
    let e = bad(
        "curves-class",
        "\n[hardware.compute.curves.gemv]\npoints = [[1, 0.5]]\n",
        None,
    );
    assert!(
        e.contains("hardware.compute.curves.gemv") && e.contains("expected one of default, attention"),
        "{e}"
    );
    let e = bad(
        "curves-none",
        "\n[hardware.compute.curves.mlp]\nsource = \"x\"\n",
        None,
    );
    assert!(e.contains("no curve: expected `points"), "{e}");
    let e = bad(
        "curves-key",
        "\n[hardware.compute.curves.mlp]\npoint = [[1, 0.5]]\n",
        None,
    );
    assert!(e.contains("unknown field `point`"), "{e}");
    // In a profile: the profile file, its key and line (line 6 of PROFILE holds `points`).
    let e = bad(
        "curves-profile-bad",
        "profile = \"box.toml\"\n",
        Some(&PROFILE.replace("[1e9, 0.5]]\nci", "[1e9, 0.0]]\nci")),
    );
    assert!(e.contains("box.toml:6"), "{e}");
    assert!(
        e.contains("compute.curves.default.points") && e.contains("outside (0, 1]"),
        "{e}"
    );
    let e = bad(
        "curves-profile-ci",
        "profile = \"box.toml\"\n",
        Some(&PROFILE.replace("[0.45, 0.55]]", "[0.55, 0.6]]")),
    );
    assert!(
        e.contains("compute.curves.default.ci") && e.contains("contain the efficiency 0.5"),
        "{e}"
    );
}

#[test]
fn a_preset_file_carries_curves_and_its_errors_name_it() {
    let text = std::fs::read_to_string(scenario("hardware/h100-sxm-1x.toml")).unwrap();
    let dir = scratch("curves-preset");
    let preset = dir.join("h100-curves.toml");
    std::fs::write(
        &preset,
        format!("{text}\n[compute.curves.lm_head]\npoints = [[1e8, 0.4], [1e10, 0.9]]\n"),
    )
    .unwrap();
    let inline = run_json(&llama_with(
        "curves-preset-inline",
        "\n[hardware.compute.curves.lm_head]\npoints = [[1e8, 0.4], [1e10, 0.9]]\n",
        None,
    ));
    let p = preset.display().to_string();
    let file = llama_with("curves-preset-run", "", None).replace("scenario.toml", "s2.toml");
    let t = std::fs::read_to_string(scenario("examples/llama-3.1-8b-h100.toml"))
        .unwrap()
        .replace("preset = \"h100-sxm-1x\"", &format!("preset = \"{p}\""));
    std::fs::write(&file, t).unwrap();
    let j = run_json(&file);
    assert_eq!(j["breakdown_by_op"], inline["breakdown_by_op"]);

    std::fs::write(
        &preset,
        format!("{text}\n[compute.curves.lm_head]\npoints = [[1e8, 0.4], [1e7, 0.9]]\n"),
    )
    .unwrap();
    let o = tpsim(&["run", &file]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(o.stderr.contains("h100-curves.toml"), "{}", o.stderr);
    assert!(o.stderr.contains("compute.curves.lm_head.points"), "{}", o.stderr);
}
