//! `tpsim-calibrate crossval` (issue #14: out-of-sample error figures). The full tables come from the
//! release command (book/src/calibration.md, "Out-of-sample figures"); these tests pin its behaviour on
//! small inputs: the bundled systems file classifies every sized row of the measured table; a fold whose
//! training rows cannot see a constant keeps its prior and predicts the held-out system with it; a fold
//! never reads its held-out rows; the output is the same bytes for any thread count; bad input exits 2.

use crate::common::*;
use std::path::{Path, PathBuf};
use tpsim::scenario::{self, profile as prof};
use tpsim_calibrate::crossval::{NOT_DETERMINED, allreduce, systems, throughput as cvt};
use tpsim_calibrate::fit::{rows, throughput};

fn repo(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..").join(rel)
}

fn bundled_systems() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crossval/allreduce-systems.toml")
}

#[test]
fn the_bundled_systems_file_classifies_every_sized_row() {
    let s = systems::load(&bundled_systems(), Path::new(&data("allreduce.tsv"))).unwrap();
    let got: Vec<(&str, usize)> = s.systems.iter().map(|x| (x.name.as_str(), x.rows())).collect();
    assert_eq!(
        got,
        [
            ("c-payne WRX90 (Group A + B)", 24),
            ("4x Turin same NUMA", 7),
            ("luke (3 switches)", 12),
            ("Grimulkan (4 switches)", 1),
            ("Festr (dual Turin)", 1),
            // Issue #19 point 1: lines 51-79 and the same host's other layouts, 97-183.
            ("kalavai 4090 host (SHM)", 116),
            ("tinybox (6x RTX 4090)", 1),
            ("4x V100 PLX", 12),
            // Issue #19 point 1 (more SHM hosts): lines 186-205 and 206-225.
            ("Syncopate 4x RTX 5090, 2x EPYC 9V74 (SHM)", 20),
            ("Syncopate 4x RTX 5090, 1x EPYC 9B14 (SHM)", 20),
            // A DGX A100 with NCCL_P2P_DISABLE=1: lines 226-229.
            ("DGX A100, NCCL_P2P_DISABLE=1 (SHM)", 4),
            // 2x RTX 2080 Ti behind one Gen3 switch of an AutoDL host: lines 230-257.
            ("AutoDL 2x RTX 2080 Ti, one Gen3 switch (SHM)", 28),
            // 8x RTX 4090 of a 2x EPYC 7542 host on the stock driver: lines 258-282.
            ("charlie0129 8x RTX 4090, 2x EPYC 7542 (SHM)", 25),
            // 4x RTX PRO 6000 on one NUMA node of a dual EPYC 9575F, NCCL 2.29.7 over SHM: lines 316-324.
            (
                "PR 2080: 4x RTX PRO 6000, dual EPYC 9575F, one NUMA node (SHM)",
                9
            ),
        ]
    );
    // Every system names its class (issue #19's target is per class).
    let classes: Vec<&str> = s.systems.iter().map(|x| x.class.as_str()).collect();
    assert_eq!(
        classes,
        [
            "p2p-switch",
            "p2p-root-complex",
            "p2p-switch",
            "p2p-switch",
            "p2p-root-complex",
            "shm-host",
            "p2p-root-complex",
            "p2p-switch",
            "shm-host",
            "shm-host",
            "shm-host",
            "shm-host",
            "shm-host",
            "shm-host",
        ]
    );
    // The 280 rows the allreduce validation compares; lines 33, 34, 36 are sweep averages; 38, 93-95
    // and 96 (8× MI300X over xGMI, issue #17 point 4: checked in tests/tests/accel.rs) are excluded with
    // a reason; so are 184-185 (issue #19 points 1-2: 4× H800 over NVLink, eager vs CUDA graph, checked
    // in tests/tests/launch_nccl.rs), 283-307 (charlie0129's host with tinygrad's P2P driver: which
    // hops went P2P is not stated) and 308-315 (shmdata: an 8x A40 node over SHM whose source states
    // neither its CPU nor its host PCIe generation).
    assert_eq!(s.unsized_rows, 3);
    let ex: Vec<&[usize]> = s.excluded.iter().map(|e| e.lines.as_slice()).collect();
    let p2p_driver: Vec<usize> = (283..=307).collect();
    let a40: Vec<usize> = (308..=315).collect();
    // shm57: lines 325-349, aikitoria's 8x RTX 5090 (P2P driver, dual Turin), recorded, not predicted.
    let aikitoria: Vec<usize> = (325..=349).collect();
    assert_eq!(
        ex,
        [
            &[38][..],
            &[93, 94, 95][..],
            &[96][..],
            &[184, 185][..],
            &p2p_driver[..],
            &a40[..],
            &aikitoria[..]
        ]
    );
    // Every shared constant the presets fitted to rows of this table is one of the shared constants
    // (tests/data/allreduce.tsv is named in their [fitted.*] rows), and no prior is the presets' value
    // where that value came from the table.
    let names: Vec<&str> = s.shared.iter().map(|c| c.name.as_str()).collect();
    for n in [
        "nccl_channel_bw",
        "shm_copy_bw",
        "shm_step_cost",
        "shm_cross_socket_step_cost",
        "nccl_simple_step_latency",
        "collapse_factor",
    ] {
        assert!(names.contains(&n), "{n} missing from {names:?}");
    }
    for sys in &s.systems {
        for part in &sys.parts {
            for (n, f) in &part.hardware.fitted {
                if f.rows.contains("allreduce.tsv") {
                    assert!(
                        names.contains(&n.as_str()),
                        "{}: {n} is fitted to allreduce.tsv rows but not shared",
                        part.preset
                    );
                }
            }
        }
    }
    // c-payne Group A is on lines 2, 4, … 24 and Group B on 3, 5, … 25.
    let cpayne = &s.systems[0];
    assert_eq!(cpayne.parts[0].lines, (2..=24).step_by(2).collect::<Vec<_>>());
    assert_eq!(cpayne.parts[1].lines, (3..=25).step_by(2).collect::<Vec<_>>());
    // Syncopate box A: the same-socket pairs (186-193), the cross-socket pairs (194-201), all four.
    let a = &s.systems[8];
    assert_eq!(a.parts[0].lines, (186..=193).collect::<Vec<_>>());
    assert_eq!(a.parts[1].lines, (194..=201).collect::<Vec<_>>());
    assert_eq!(a.parts[2].lines, (202..=205).collect::<Vec<_>>());
    assert_eq!(s.systems[9].parts[0].lines, (206..=225).collect::<Vec<_>>());
    assert_eq!(s.systems[10].parts[0].lines, (226..=229).collect::<Vec<_>>());
    assert_eq!(s.systems[11].parts[0].lines, (230..=257).collect::<Vec<_>>());
    assert_eq!(s.systems[12].parts[0].lines, (258..=282).collect::<Vec<_>>());
    assert_eq!(s.systems[13].parts[0].lines, (316..=324).collect::<Vec<_>>());
}

/// A table of a few rows of `tests/data/allreduce.tsv` (its header and the given lines), cheap enough
/// for a debug build: the 4-GPU Turin box (P2P, NCCL), three rows of the 2× RTX 4090 (SHM) and the
/// tinybox.
const LINES: &[usize] = &[26, 28, 30, 31, 51, 66, 73, 80];

fn small_table(scale_4090: f64) -> String {
    let text = std::fs::read_to_string(data("allreduce.tsv")).unwrap();
    let all: Vec<&str> = text.lines().collect();
    let mut out = vec![all[0].to_string()];
    for &l in LINES {
        let mut f: Vec<String> = all[l - 1].split('\t').map(str::to_string).collect();
        if f[3].contains("bus 0x1a/0x1b") {
            let t: f64 = f[6].parse().unwrap();
            f[6] = format!("{}", t * scale_4090);
        }
        out.push(f.join("\t"));
    }
    out.join("\n") + "\n"
}

const SMALL_SYSTEMS: &str = r#"
schema = "tpsim-crossval-systems/1"

[[shared]]
name = "nccl_channel_bw"
prior = 24.0
source = "NCCL per-channel speed"

[[shared]]
name = "shm_copy_bw"
prior = 30.3
source = "ASUS box"

[[shared]]
name = "shm_step_cost"
prior = 0.34
source = "one link traversal"

[[system]]
name = "turin"
class = "p2p-root-complex"
[[system.rows]]
topology = "4 GPUs same NUMA socket"
algorithm = "NCCL default"
preset = "rtx-pro-6000-4x-turin-same-numa"
env = ["NCCL_P2P_LEVEL=SYS"]

[[system]]
name = "4090"
class = "shm-host"
[[system.rows]]
topology = "bus 0x1a/0x1b"
algorithm = "auto"
preset = "rtx-4090-2x-no-p2p"

[[system]]
name = "tinybox"
class = "p2p-root-complex"
[[system.rows]]
topology = "tinybox"
algorithm = "auto"
preset = "rtx-4090-6x-tinybox"
env = ["NCCL_P2P_LEVEL=SYS"]
"#;

fn small(scale_4090: f64) -> systems::Systems {
    systems::parse(SMALL_SYSTEMS, "small.toml", &small_table(scale_4090), "small.tsv").unwrap()
}

#[test]
fn a_fold_that_cannot_see_the_shm_rows_keeps_the_shm_priors_and_predicts_with_them() {
    let s = small(1.0);
    let r = allreduce::crossval(&s, "small.tsv", "small.toml").unwrap();
    let names: Vec<&str> = r.systems.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["turin", "4090", "tinybox"]);
    assert_eq!(r.systems.iter().map(|x| x.rows).collect::<Vec<_>>(), [4, 3, 1]);
    // Without the 4090 no training row goes through SHM: both SHM constants keep their priors, and
    // the report says why; the channel rate is still fitted (the Turin rows run Simple over P2P).
    let fold = &r.systems[1].fold;
    for (c, prior) in fold[1..].iter().zip([30.3, 0.34]) {
        assert_eq!(c.prior_reason.as_deref(), Some(NOT_DETERMINED), "{c:?}");
        assert!((c.value - prior).abs() < 1e-12 && c.ci_low.is_none(), "{c:?}");
    }
    assert_eq!(fold[0].prior_reason, None, "{:?}", fold[0]);
    // The held-out 4090 rows are those of the preset with the SHM priors in place (the channel rate is
    // P2P-only and does not enter): the same numbers as `tpsim collective` with those values.
    let mut hw = scenario::hardware_from_preset("rtx-4090-2x-no-p2p").unwrap();
    prof::set(&mut hw.params, "shm_copy_bw", 30.3).unwrap();
    prof::set(&mut hw.params, "shm_step_cost", 0.34).unwrap();
    let want = rows::predict(&hw, &s.systems[1].parts[0].rows);
    let got: Vec<f64> = r.systems[1]
        .row_predictions
        .iter()
        .map(|x| x.left_out_us)
        .collect();
    for (g, w) in got.iter().zip(&want) {
        assert!((g / w - 1.0).abs() < 1e-5, "{got:?} vs {want:?}");
    }
    // With the 4090 in the training rows the SHM copy rate is fitted: its prior, 30.3 GB/s, does not
    // bind on a Gen4 box, so the fit starts a decade below, where the rows respond. It lands at 2.04 GB/s
    // (the 32 MB row alone says 2.21 GB/s; the 256 KB row pulls it down), interval [1.36, 3.06].
    let bw = &r.joint[1];
    assert_eq!(bw.prior_reason, None, "{bw:?}");
    assert!(bw.moved() && (bw.start - 3.03).abs() < 1e-9, "{bw:?}");
    assert!((bw.value / 2.039_15 - 1.0).abs() < 0.01, "{bw:?}");
    // The text names the fallback.
    let t = allreduce::text(&r);
    assert!(t.contains("30.30 (prior)"), "{t}");
    assert!(t.contains("out-of-sample") && t.contains("in-sample"), "{t}");
}

#[test]
fn class_figures_pool_the_rows_of_their_systems() {
    // Issue #19's target is per system class: the Turin box and the tinybox are "p2p-root-complex"
    // (4 + 1 rows), the 4090 host "shm-host" (3 rows). Each class's median pools its systems' rows, so
    // it is recomputed here from the rows' own left-out predictions (printed to 6 significant digits:
    // agreement to 1e-4 relative).
    let s = small(1.0);
    let r = allreduce::crossval(&s, "small.tsv", "small.toml").unwrap();
    let names: Vec<(&str, usize, usize)> = r
        .classes
        .iter()
        .map(|c| (c.class.as_str(), c.systems.len(), c.left_out.rows))
        .collect();
    assert_eq!(names, [("p2p-root-complex", 2, 5), ("shm-host", 1, 3)]);
    let errors = |sys: &[usize]| -> Vec<f64> {
        let mut e: Vec<f64> = sys
            .iter()
            .flat_map(|&k| &r.systems[k].row_predictions)
            .map(|x| (x.left_out_us / x.measured_us - 1.0).abs())
            .collect();
        e.sort_by(f64::total_cmp);
        e
    };
    let rc = errors(&[0, 2]);
    assert_eq!(rc.len(), 5);
    let want = rc[2];
    let got = r.classes[0].left_out.median_abs_error;
    assert!((got / want - 1.0).abs() < 1e-4, "{got} vs {want} ({rc:?})");
    let shm = errors(&[1]);
    let got = r.classes[1].left_out.median_abs_error;
    assert!((got / shm[1] - 1.0).abs() < 1e-4, "{got} vs {shm:?}");
    // A one-system class's row median is that system's median; the two-system class's median of
    // system medians is their mean.
    assert!((got - r.systems[1].left_out.median_abs_error).abs() < 1e-12);
    let mean = (r.systems[0].left_out.median_abs_error + r.systems[2].left_out.median_abs_error) / 2.0;
    assert!((r.classes[0].left_out_median_of_system_medians / mean - 1.0).abs() < 1e-5);
    // The text prints the class table with the 20 % target.
    let t = allreduce::text(&r);
    assert!(
        t.contains("per system class") && t.contains("≤ 20 % per class"),
        "{t}"
    );
    assert!(
        t.lines()
            .any(|l| l.starts_with("shm-host") && l.contains(" 1 ") && l.contains(" 3 ")),
        "{t}"
    );
}

#[test]
fn a_fold_never_reads_its_held_out_rows() {
    // The 4090's measured times tripled: the fold that holds the 4090 out fits exactly the same values;
    // the folds that train on it (and the joint fit) move.
    let (a, b) = (small(1.0), small(3.0));
    let (ra, rb) = (
        allreduce::crossval(&a, "t", "s").unwrap(),
        allreduce::crossval(&b, "t", "s").unwrap(),
    );
    assert_eq!(ra.systems[1].fold, rb.systems[1].fold);
    assert_eq!(
        ra.systems[1]
            .row_predictions
            .iter()
            .map(|x| x.left_out_us)
            .collect::<Vec<_>>(),
        rb.systems[1]
            .row_predictions
            .iter()
            .map(|x| x.left_out_us)
            .collect::<Vec<_>>()
    );
    assert_ne!(ra.joint, rb.joint);
    assert_ne!(ra.systems[0].fold, rb.systems[0].fold);
    // And fit_shared on the training systems alone gives that fold's values.
    let memo = allreduce::Memo::default();
    let (direct, _) = allreduce::fit_shared(&a, &[0, 2], &memo).unwrap();
    assert_eq!(direct, ra.systems[1].fold);
}

#[test]
fn the_same_bytes_for_any_thread_count() {
    let dir = scratch("crossval-threads");
    let sys = write(&dir, "small.toml", SMALL_SYSTEMS);
    let tsv = write(&dir, "small.tsv", &small_table(1.0));
    let args = [
        "crossval",
        "allreduce",
        "--systems",
        &sys,
        "--data",
        &tsv,
        "--json",
    ];
    let run = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap()
            .install(|| calibrate(&args))
    };
    let (one, two) = (run(1), run(2));
    assert_eq!(one.code, 0, "{}", one.stderr);
    assert_eq!(one.stdout, two.stdout);
    let j: serde_json::Value = serde_json::from_str(&one.stdout).unwrap();
    assert_eq!(j["systems"].as_array().unwrap().len(), 3);
    assert_eq!(j["systems"][1]["fold"][1]["prior_reason"], NOT_DETERMINED);
    // The text tables come out the same way.
    let text = calibrate(&args[..args.len() - 1]);
    assert_eq!(text.code, 0, "{}", text.stderr);
    assert!(text.stdout.contains("without 4090"), "{}", text.stdout);
}

#[test]
fn bad_systems_files_and_tables_exit_2_naming_what_is_wrong() {
    let dir = scratch("crossval-bad");
    let tsv = write(&dir, "small.tsv", &small_table(1.0));
    let cases: Vec<(String, &str)> = vec![
        // The tinybox row matches no set.
        (
            SMALL_SYSTEMS.replace("topology = \"tinybox\"", "topology = \"nowhere\""),
            "small.tsv:9: no [[system.rows]] set or [[excluded]] entry",
        ),
        // A set that claims a row of another.
        (
            SMALL_SYSTEMS.replace("topology = \"tinybox\"", "topology = \"\""),
            "all match this row: expected exactly one",
        ),
        // Issue #19: every system names its class, one of three.
        (
            SMALL_SYSTEMS.replace("class = \"shm-host\"", "class = \"shm\""),
            "system[1] (4090).class: `shm`: expected one of \"p2p-switch\", \"p2p-root-complex\", \"shm-host\"",
        ),
        (
            SMALL_SYSTEMS.replace("class = \"shm-host\"\n", ""),
            "missing field `class`",
        ),
        (
            SMALL_SYSTEMS.replace("prior = 0.34", "prior = 0.0"),
            "shared[2] (shm_step_cost).prior: expected a value > 0",
        ),
        (
            SMALL_SYSTEMS.replace("name = \"shm_copy_bw\"", "name = \"shm_copy\""),
            "`shm_copy` is not a profile parameter",
        ),
        (
            SMALL_SYSTEMS.replace(
                "algorithm = \"auto\"\npreset = \"rtx-4090-2x-no-p2p\"",
                "algorithm = \"auto\"\npreset = \"rtx-4090-2x-no-p2p\"\nalgo = \"custom-pull\"",
            ),
            "system[1] (4090).rows[0].algo: --algo `custom-pull`",
        ),
        // shmpool: a row set's NCCL release must be one tpsim models.
        (
            SMALL_SYSTEMS.replace(
                "algorithm = \"auto\"\npreset = \"rtx-4090-2x-no-p2p\"",
                "algorithm = \"auto\"\npreset = \"rtx-4090-2x-no-p2p\"\nnccl_version = \"2.99.1\"",
            ),
            "system[1] (4090).rows[0].nccl_version",
        ),
        (
            SMALL_SYSTEMS.replace(
                "[[system]]\nname = \"turin\"",
                "[[system]]\nname = \"turin\"\nkeep = [\"collapse_factor\"]",
            ),
            "system[0] (turin).keep: `collapse_factor` is not a [[shared]] constant",
        ),
        (
            SMALL_SYSTEMS.replace("source = \"ASUS box\"", "source = \"ASUS box\"\nunit = \"GB/s\""),
            "unknown field `unit`",
        ),
        (
            SMALL_SYSTEMS.replace("tpsim-crossval-systems/1", "v2"),
            "schema `v2`: expected \"tpsim-crossval-systems/1\"",
        ),
    ];
    for (k, (text, want)) in cases.iter().enumerate() {
        let sys = write(&dir, &format!("s{k}.toml"), text);
        let o = calibrate(&["crossval", "allreduce", "--systems", &sys, "--data", &tsv]);
        assert_eq!(o.code, 2, "case {k}: {}", o.stderr);
        assert!(o.stderr.contains(want), "case {k}: {}", o.stderr);
    }
    // A bad time in a claimed row names its line and column.
    let bad = write(
        &dir,
        "bad.tsv",
        &small_table(1.0).replacen("\t11.17\t", "\tfast\t", 1),
    );
    let sys = write(&dir, "ok.toml", SMALL_SYSTEMS);
    let o = calibrate(&["crossval", "allreduce", "--systems", &sys, "--data", &bad]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("bad.tsv:2: time_us `fast`: expected a time in µs > 0"),
        "{}",
        o.stderr
    );
    // A size past the simulator's 1 TiB limit (inputaudit: 2^63 B overflowed the flow clock).
    let text = small_table(1.0);
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut f: Vec<&str> = lines[1].split('\t').collect();
    f[5] = "9223372036854775808";
    lines[1] = f.join("\t");
    let huge = write(&dir, "huge.tsv", &(lines.join("\n") + "\n"));
    let o = calibrate(&["crossval", "allreduce", "--systems", &sys, "--data", &huge]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("huge.tsv:2: size_bytes `9223372036854775808`: expected an integer from 1 to 1 TiB"),
        "{}",
        o.stderr
    );
    let o = calibrate(&[
        "crossval",
        "allreduce",
        "--systems",
        "missing.toml",
        "--data",
        &tsv,
    ]);
    assert_eq!(o.code, 2);
    assert!(o.stderr.contains("missing.toml: cannot read"), "{}", o.stderr);
}

/// The Hopper pairs with `--group model`: the two Llama-3.1-8B rows form one group, so the fold that
/// holds them out trains on the Kimi row alone, one row for one parameter: kernel_overhead keeps its
/// start value (the template's 2 µs of h100-pcie-2x-nvlink-bridge), and the Llama rows are predicted
/// with it, exactly as a run of their scenarios with kernel_overhead = 2 µs.
#[test]
fn a_fold_with_one_training_row_per_parameter_predicts_with_the_start_value() {
    let hw = scenario::hardware_from_preset("h100-pcie-2x-nvlink-bridge").unwrap();
    let mut pairs =
        throughput::read_pairs(&PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("crossval/hopper-pairs.tsv"))
            .unwrap();
    throughput::set_output_len(&mut pairs, 4);
    let groups = cvt::groups_of(&pairs, &cvt::GroupBy::parse("model"), "hopper-pairs.tsv").unwrap();
    assert_eq!(groups, ["Llama-3.1-8B", "Kimi-K2.5", "Llama-3.1-8B"]);
    let names = vec!["kernel_overhead".to_string()];
    let cvt::Outcome {
        in_sample,
        groups: reports,
        rows,
        ..
    } = cvt::crossval(&hw, &pairs, &groups, &names).unwrap();
    assert_eq!(in_sample[0].prior_reason, None);
    let llama = &reports[0];
    assert_eq!((llama.name.as_str(), llama.training_rows), ("Llama-3.1-8B", 1));
    assert_eq!(
        llama.fold[0].prior_reason.as_deref(),
        Some("1 training rows for 1 constants: not determined")
    );
    assert!((llama.fold[0].value - 2.0).abs() < 1e-12);
    for (p, r) in pairs.iter().zip(&rows).filter(|(_, r)| r.group == "Llama-3.1-8B") {
        let want = throughput::predict(p, &names, &hw.params).unwrap();
        assert!((r.left_out_tok_s / want - 1.0).abs() < 1e-5, "{r:?} vs {want}");
    }
    // The Kimi fold trains on the two Llama rows: fitted, and its value differs from the in-sample one.
    assert_eq!(reports[1].fold[0].prior_reason, None);
    assert!((reports[1].fold[0].value - in_sample[0].value).abs() > 1e-3);
}

#[test]
fn throughput_groups_must_be_a_column_of_the_table() {
    let o = calibrate(&[
        "crossval",
        "hopper",
        "--group",
        "engine",
        "--pairs",
        &repo("calibrate/crossval/hopper-pairs.tsv").display().to_string(),
    ]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("no `engine` column: expected --group to name a column of the table"),
        "{}",
        o.stderr
    );
}

/// VALIDATION, out-of-sample: the Hopper presets' `kernel_overhead` was chosen on three decode rates
/// (`calibrate/crossval/hopper-pairs.tsv`); fitted on any two of them, it must predict the third within
/// the project's decode-throughput target, ±20 % (book/src/validation.md, "Targets"). |error| left out
/// today: Llama-3.1-8B 1× H100 10.1 %, Llama-3.1-8B 1× H200 0.5 %, and **Kimi-K2.5 8× H200 21.4 %: a
/// known miss** since autoar (2026-12-03) gave the Kimi scenario the engine's own custom allreduce on
/// NVLink (SGLang's default, which the cookbook run used) instead of NCCL: NCCL's slower allreduce was
/// hiding a Hopper step cost tpsim misses (book/src/validation.md, "The engine's default allreduce").
/// hopperstep charged the custom kernel the graph's per-kernel gap on NVLink (vLLM PR #24111's
/// in-graph rows), which narrowed the fold from 29.2 % to 21.4 % without closing it. The fold is
/// asserted to still miss, so whatever closes it fails here and moves it back to the target. (Before
/// autoar: 7.8 %, 6.3 %, 3.2 %; before hopperstep 11.5 %, 29.2 %, 2.5 %.)
#[test]
fn validation_hopper_kernel_overhead_leave_one_out_within_target() {
    let pairs = repo("calibrate/crossval/hopper-pairs.tsv");
    let o = calibrate(&[
        "crossval",
        "hopper",
        "--pairs",
        &pairs.display().to_string(),
        "--json",
    ]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let j: serde_json::Value = serde_json::from_str(&o.stdout).expect("JSON");
    let groups = j["groups"].as_array().expect("groups");
    assert_eq!(groups.len(), 3, "one fold per Hopper row");
    for g in groups {
        let left_out = f(&g["left_out"]["median_abs_error"]);
        assert_eq!(g["training_rows"], 2, "{}", g["name"]);
        if g["name"] == "Kimi-K2.5 8x H200 (1/TPOT)" {
            assert!(
                left_out > 0.20,
                "the Kimi fold now meets the target ({:.1} %): move it back to the ±20 % rows",
                left_out * 100.0
            );
            continue;
        }
        assert!(
            left_out <= 0.20,
            "{}: {:.1} % out-of-sample, outside the ±20 % target",
            g["name"],
            left_out * 100.0
        );
    }
}

/// `--check`, the validation gate CI runs: a system whose out-of-sample median misses the 15 % target
/// needs a `known_miss` in the systems file, and a system that meets it must not carry one.
#[test]
fn check_holds_the_known_misses_to_the_figures() {
    let mut s = small(1.0);
    let r = allreduce::crossval(&s, "small.tsv", "small.toml").unwrap();
    let missing: Vec<&str> = r
        .systems
        .iter()
        .filter(|x| x.left_out.median_abs_error > allreduce::TARGET)
        .map(|x| x.name.as_str())
        .collect();
    // The small table's 4090 fold keeps the SHM priors (30.3 GB/s, 14× the host's rate): a miss.
    assert!(missing.contains(&"4090"), "{missing:?}");
    let f = allreduce::check(&s, &r);
    assert_eq!(f.len(), missing.len(), "{f:?}");
    assert!(
        f.iter()
            .any(|m| m.starts_with("4090: out-of-sample median |error|") && m.contains("lists no known_miss")),
        "{f:?}"
    );
    for sys in s.systems.iter_mut() {
        if missing.contains(&sys.name.as_str()) {
            sys.known_miss = Some("a reason".into());
        }
    }
    assert!(allreduce::check(&s, &r).is_empty());
    // A known miss on a system within the target is stale: reported, so the list shrinks with the errors.
    let within = r
        .systems
        .iter()
        .find(|x| x.left_out.median_abs_error <= allreduce::TARGET)
        .expect("some system within the target");
    let i = s.systems.iter().position(|x| x.name == within.name).unwrap();
    s.systems[i].known_miss = Some("stale".into());
    let f = allreduce::check(&s, &r);
    assert_eq!(f.len(), 1, "{f:?}");
    assert!(f[0].contains("is now within the 15 % target"), "{f:?}");
}

#[test]
fn holding_out_one_class_gives_the_full_runs_figures_for_its_systems() {
    // `crossval allreduce --class CLASS` runs the joint fit and the folds of that class's systems only;
    // each fold still trains on every other system, so the class's systems come out exactly as in the
    // full run (same folds, same predictions) and the class line is the full run's. Here the
    // "p2p-root-complex" class is the Turin box and the tinybox (systems 0 and 2).
    let s = small(1.0);
    let full = allreduce::crossval(&s, "small.tsv", "small.toml").unwrap();
    let part = allreduce::crossval_class(&s, "small.tsv", "small.toml", Some("p2p-root-complex")).unwrap();
    let names: Vec<&str> = part.systems.iter().map(|x| x.name.as_str()).collect();
    assert_eq!(names, ["turin", "tinybox"]);
    assert_eq!(part.systems[0], full.systems[0]);
    assert_eq!(part.systems[1], full.systems[2]);
    assert_eq!(part.joint, full.joint);
    assert_eq!(part.classes.len(), 1);
    assert_eq!(part.classes[0], full.classes[0]);
    // Its "all rows" lines cover the class's 5 rows only.
    assert_eq!(part.overall.left_out, full.classes[0].left_out);
    assert_eq!(part.overall.left_out.rows, 5);
    // The one-system class: the 4090's fold, which cannot see an SHM row.
    let shm = allreduce::crossval_class(&s, "small.tsv", "small.toml", Some("shm-host")).unwrap();
    assert_eq!(shm.systems.len(), 1);
    assert_eq!(shm.systems[0], full.systems[1]);
    // A class no system has is bad input, named with the expected ones.
    let e = allreduce::crossval_class(&s, "small.tsv", "small.toml", Some("p2p-switch"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("--class `p2p-switch`") && e.contains("shm-host"),
        "{e}"
    );
}
