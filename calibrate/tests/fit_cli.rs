//! `tpsim-calibrate fit` on small inputs: determinism, and every class of bad input gives exit code 2
//! with a message naming what is wrong.

use std::path::PathBuf;
use tpsim_calibrate::fit::cli::{FitArgs, run};
use tpsim_calibrate::measurement::{MeasurementFile, Provenance, Record};

const PRESET: &str = "rtx-pro-6000-8x-2switch-trpro";

fn tmp(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(name)
}

/// Allreduces on the 4 GPUs of one switch, 4 KiB … 128 KiB, with made-up times of 6 to 13.5 µs
/// (they only need to be fittable); `backend` `custom` (one-shot, flag barriers over the links) or
/// `nccl`.
fn small(name: &str, backend: &str) -> PathBuf {
    let mut m = MeasurementFile::new(Provenance {
        tool: "synthetic".into(),
        machine: Some("test-box".into()),
        ..Provenance::default()
    });
    for (k, size) in [4096u64, 8192, 16384, 32768, 65536, 131072]
        .into_iter()
        .enumerate()
    {
        m.records.push(Record::Collective {
            op: "allreduce".into(),
            n_gpus: 4,
            size_bytes: size,
            time_us: 6.0 + k as f64 * 1.5,
            busbw_gbps: None,
            backend: Some(backend.into()),
            env: vec!["NCCL_P2P_LEVEL=SYS".into()],
            placement: None,
        });
    }
    let p = tmp(name);
    std::fs::write(&p, serde_json::to_string(&m).unwrap()).unwrap();
    p
}

fn args(files: Vec<PathBuf>, params: &[&str]) -> FitArgs {
    FitArgs {
        measurements: files,
        hardware: PRESET.into(),
        gpus: None,
        params: params.iter().map(|s| s.to_string()).collect(),
        out: None,
        holdout: None,
        date: None,
        machine: None,
        curves: false,
    }
}

fn fit(a: FitArgs) -> (i32, String, String) {
    let (mut o, mut e) = (Vec::new(), Vec::new());
    let code = run(a, &mut o, &mut e);
    (
        code,
        String::from_utf8_lossy(&o).into_owned(),
        String::from_utf8_lossy(&e).into_owned(),
    )
}

#[test]
fn same_input_gives_the_same_profile_bytes() {
    let meas = small("det.json", "custom");
    let mut outs = Vec::new();
    for k in 0..2 {
        let out = tmp(&format!("det-{k}.toml"));
        let mut a = args(vec![meas.clone()], &["pcie_hop_latency"]);
        a.out = Some(out.clone());
        let (code, stdout, stderr) = fit(a);
        assert_eq!(code, 0, "{stderr}");
        assert!(stdout.contains("pcie_hop_latency"), "{stdout}");
        outs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(outs[0], outs[1]);
    let text = String::from_utf8(outs.remove(0)).unwrap();
    assert!(text.contains("machine = \"test-box\""), "{text}");
    assert!(!text.contains("date"), "no date unless given: {text}");
}

#[test]
fn a_parameter_no_row_depends_on_is_refused() {
    // NCCL rings pay NCCL's per-step latency, not the links': NCCL rows cannot pin the hop latency.
    let (code, _, e) = fit(args(vec![small("nccl.json", "nccl")], &["pcie_hop_latency"]));
    assert_eq!(code, 2);
    assert!(
        e.contains("no row is sensitive to pcie_hop_latency; drop it from --params"),
        "{e}"
    );
    // With the default --params the same parameter is left at the preset's value, with a note.
    let (code, o, e) = fit(args(vec![small("nccl-default.json", "nccl")], &[]));
    assert_eq!(code, 0, "{e}");
    assert!(
        o.starts_with("note: no row is sensitive to pcie_hop_latency"),
        "{o}"
    );
    assert!(o.contains("\npcie_gen5_x16_bw "), "{o}");
}

#[test]
fn bad_parameters_are_refused() {
    let meas = small("bad-params.json", "custom");
    let (code, _, e) = fit(args(vec![meas.clone()], &["pcie_hop_latncy"]));
    assert_eq!(code, 2);
    assert!(e.contains("`pcie_hop_latncy` is not a fittable parameter"), "{e}");
    let (code, _, e) = fit(args(vec![meas.clone()], &["force_p2p"]));
    assert_eq!(code, 2);
    assert!(e.contains("`force_p2p` is not a fittable parameter"), "{e}");
    let (code, _, e) = fit(args(
        vec![meas.clone()],
        &["pcie_hop_latency", "pcie_hop_latency"],
    ));
    assert_eq!(code, 2);
    assert!(e.contains("listed twice"), "{e}");
    // Six rows cannot carry six parameters and an interval.
    let many = [
        "pcie_hop_latency",
        "root_complex_latency",
        "pcie_gen5_x16_bw",
        "staged_latency",
        "nccl_channel_bw",
        "root_complex_bw",
    ];
    let (code, _, e) = fit(args(vec![meas], &many));
    assert_eq!(code, 2);
    assert!(e.contains("6 rows to fit for 6 parameters"), "{e}");
}

#[test]
fn bad_files_are_named() {
    let p = tmp("not-json.json");
    std::fs::write(
        &p,
        "{ \"schema\": \"tpsim-measurements/1\",\n  \"records\": oops }",
    )
    .unwrap();
    let (code, _, e) = fit(args(vec![p.clone()], &[]));
    assert_eq!(code, 2);
    assert!(
        e.contains(&p.display().to_string()) && e.contains("line 2"),
        "{e}"
    );

    let p = tmp("other-schema.json");
    std::fs::write(&p, r#"{"schema":"x/2","provenance":{"tool":"t"},"records":[]}"#).unwrap();
    let (code, _, e) = fit(args(vec![p], &[]));
    assert_eq!(code, 2);
    assert!(
        e.contains("schema `x/2`: expected \"tpsim-measurements/1\""),
        "{e}"
    );

    let p = tmp("no-collectives.json");
    std::fs::write(
        &p,
        r#"{"schema":"tpsim-measurements/1","provenance":{"tool":"t"},"records":[]}"#,
    )
    .unwrap();
    let (code, _, e) = fit(args(vec![p], &[]));
    assert_eq!(code, 2);
    assert!(e.contains("no collective or bf16/fp16 gemm record"), "{e}");

    let mut a = args(vec![small("holdout.json", "custom")], &["pcie_hop_latency"]);
    a.holdout = Some("size=999".into());
    let (code, _, e) = fit(a);
    assert_eq!(code, 2);
    assert!(
        e.contains("--holdout `size=999`: no row label contains it"),
        "{e}"
    );

    let mut a = args(vec![small("unknown-hw.json", "custom")], &[]);
    a.hardware = "no-such-box".into();
    let (code, _, e) = fit(a);
    assert_eq!(code, 2);
    assert!(e.contains("unknown hardware preset `no-such-box`"), "{e}");
}

#[test]
fn a_size_past_any_gpu_is_refused_not_a_panic() {
    // inputaudit left `fit` unguarded for sizes near 2^63: a row of 2^63 bytes must be refused with the
    // row named (exit 2), as `check` skips it, never overflow inside the flow simulation.
    let mut m = MeasurementFile::new(Provenance {
        tool: "synthetic".into(),
        ..Provenance::default()
    });
    for (k, size) in [4096u64, 8192, 16384, 1 << 63, u64::MAX].into_iter().enumerate() {
        m.records.push(Record::Collective {
            op: "allreduce".into(),
            n_gpus: 4,
            size_bytes: size,
            time_us: 6.0 + k as f64,
            busbw_gbps: None,
            backend: Some("custom".into()),
            env: vec![],
            placement: None,
        });
    }
    let p = tmp("huge-sizes.json");
    std::fs::write(&p, serde_json::to_string(&m).unwrap()).unwrap();
    let (code, o, e) = fit(args(vec![p.clone()], &["pcie_hop_latency"]));
    assert_eq!(code, 2, "{o}\n{e}");
    assert!(
        e.contains("records[3]: size_bytes 9223372036854775808: more bytes than any GPU holds")
            && e.contains(&p.display().to_string()),
        "{e}"
    );
    // A GEMM whose operand bytes overflow u64 (m = k = 2^32: m·k = 2^64).
    let mut m = MeasurementFile::new(Provenance {
        tool: "synthetic".into(),
        ..Provenance::default()
    });
    m.records.push(Record::Gemm {
        m: 1 << 32,
        n: 8,
        k: 1 << 32,
        dtype: "bf16".into(),
        time_us: 10.0,
        launch: None,
    });
    let p = tmp("huge-gemm.json");
    std::fs::write(&p, serde_json::to_string(&m).unwrap()).unwrap();
    let (code, o, e) = fit(args(vec![p], &[]));
    assert_eq!(code, 2, "{o}\n{e}");
    assert!(
        e.contains("records[0]: gemm m=4294967296 n=8 k=4294967296: more bytes"),
        "{e}"
    );
}
