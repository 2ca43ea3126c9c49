//! fp8rate (issue #17 point 4): the GPU templates' dense FP8 / FP4 tensor rates (datasheets), the
//! H200's measured FP8 efficiency curve, and the checks on the keys. The rule that uses them (which
//! GEMM FLOPs run at those rates): `sim/src/decode/passes/gemm_rate.rs`; the costing:
//! `tpsim_model::compute::ComputeRates::flop_time_s` (unit tests there and in `llm::low_flops`).
//! Book: book/src/validation.md, "FP8 and FP4 GEMM rates (fp8rate)".

use crate::common::{median, scenario, scratch, tpsim};
use tpsim::scenario::hardware_from_preset;
use tpsim_model::llm::WeightDtype;

/// Each box preset's GPU: (preset, fp8 TFLOP/s, fp4 TFLOP/s), as the datasheets give them dense
/// (sparse figures halved), cited in the templates.
#[test]
fn templates_carry_the_datasheet_fp8_and_fp4_rates() {
    let cases: &[(&str, Option<f64>, Option<f64>)] = &[
        // H100 SXM / H200 datasheets: FP8 3,958 with sparsity → 1,979 dense; no FP4 on Hopper.
        ("h100-sxm-8x-nvlink", Some(1979.0), None),
        ("h200-8x-nvlink", Some(1979.0), None),
        // H100 PCIe datasheet: 3,026 with sparsity → 1,513.
        ("h100-pcie-2x-nvlink-bridge", Some(1513.0), None),
        // H20 product brief: FP8 296 dense (BF16 148).
        ("h20-8x-nvlink", Some(296.0), None),
        // L40S datasheet: FP8 1,466 with sparsity → 733; L4 datasheet: 485 → 242.5.
        ("l40s-8x-pcie", Some(733.0), None),
        ("l4-1x", Some(242.5), None),
        // Ada whitepaper v2.02, Appendix A: RTX 4090 FP8 with FP32 accumulate 330.3 dense (half the
        // FP16-accumulate 660.6). The 48 GB board inherits it.
        ("rtx-4090-1x", Some(330.3), None),
        ("rtx-4090-48gb-4x-no-p2p", Some(330.3), None),
        // GeForce Blackwell (RTX 5090): FP8 with FP32 accumulate 419, NVFP4 1,676 (3,352 sparse / 2).
        ("rtx-5090-8x-no-p2p", Some(419.0), Some(1676.0)),
        // RTX PRO 6000 Blackwell (hardware-and-models.md): FP8 ≈ 1 PFLOP/s, FP4 ≈ 2.
        ("rtx-pro-6000-8x-1switch", Some(1000.0), Some(2000.0)),
        // DGX B200: 72 / 144 PFLOPS FP8 / FP4 sparse per 8 GPUs → 4,500 / 9,000 dense per GPU;
        // GB200 NVL72: 720 / 1,440 per 72 GPUs → 5,000 / 10,000.
        ("b200-8x-nvlink", Some(4500.0), Some(9000.0)),
        ("gb200-nvl72-8x-slice", Some(5000.0), Some(10000.0)),
        // No FP8 tensor cores below SM 8.9: FP8 checkpoints run weight-only (Marlin) at bf16.
        ("a100-sxm4-80gb-1x", None, None),
        ("a30-2x-pcie", None, None),
        ("a40-1x", None, None),
        ("rtx-3090-2x-ryzen-5900x", None, None),
        ("rtx-2080-ti-2x-autodl-xeon-shm", None, None),
        ("v100-4x-plx", None, None),
    ];
    for &(preset, fp8, fp4) in cases {
        let hw = hardware_from_preset(preset).unwrap_or_else(|e| panic!("{preset}: {e}"));
        assert_eq!((hw.gpu.fp8_tflops, hw.gpu.fp4_tflops), (fp8, fp4), "{preset}");
        // FP8 at 2× the dense bf16 figure wherever both come from the same datasheet table (the
        // GeForce parts at FP32 accumulate too: 330.3 / 165, 419 / 209.5), within the datasheets'
        // rounding: L40S 733 / 362 = 2.025 (its datasheet's BF16 is 362.05).
        if let Some(f) = fp8 {
            let ratio = f / hw.gpu.bf16_tflops;
            assert!((ratio - 2.0).abs() < 0.03, "{preset}: fp8 / bf16 = {ratio}");
        }
        let r = hw.compute_rates();
        assert_eq!(r.fp8_flops_per_s, fp8.map(|t| t * 1e12), "{preset}");
        assert_eq!(r.fp4_flops_per_s, fp4.map(|t| t * 1e12), "{preset}");
    }
}

/// The H200's FP8 FLOP curve is the bucket medians of the 32 `gemm_fp8` rows of
/// measurements/h200-prefill.tsv (torch._scaled_mm, per-tensor), each TFLOPS ÷ 1,979, grouped by
/// ⌊log₄ FLOPs⌋ as the bf16 curve (tests/tests/gpu_efficiency.rs), at each group's geometric-mean size.
#[test]
fn h200_fp8_curve_is_the_measured_scaled_mm_rows() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../measurements/h200-prefill.tsv");
    let text = std::fs::read_to_string(&path).expect("measurements/h200-prefill.tsv");
    let mut buckets: std::collections::BTreeMap<i64, Vec<(f64, f64)>> = Default::default();
    let mut all = Vec::new();
    for line in text.lines().filter(|l| l.starts_with("gemm_fp8\t")) {
        let c: Vec<&str> = line.split('\t').collect();
        let flops: f64 = c[5].parse().unwrap();
        let tflops: f64 = c[7].parse().unwrap();
        let key = (flops.ln() / 4f64.ln()).floor() as i64;
        buckets.entry(key).or_default().push((flops, tflops / 1979.0));
        all.push(tflops / 1979.0);
    }
    assert_eq!(all.len(), 32);
    // The brief's figure: median 0.63 of 1,979 over all 32.
    assert!((median(&all) - 0.630).abs() < 0.0005, "{}", median(&all));
    let hw = hardware_from_preset("h200-8x-nvlink").unwrap();
    let curve = hw.compute_rates().curves.format_flops[&WeightDtype::Fp8].clone();
    for (key, size, eff) in [
        (17, 3.06e10, 0.523),
        (18, 1.24e11, 0.586),
        (19, 5.50e11, 0.631),
        (20, 2.15e12, 0.640),
    ] {
        let v = &buckets[&key];
        let gm = (v.iter().map(|(f, _)| f.ln()).sum::<f64>() / v.len() as f64).exp();
        let med = median(&v.iter().map(|(_, e)| *e).collect::<Vec<_>>());
        assert!((gm / size - 1.0).abs() < 0.005, "bucket {key}: size {gm}");
        assert!((med - eff).abs() < 0.0005, "bucket {key}: median {med}");
        assert!((curve.at(size) - eff).abs() < 1e-12, "curve at {size}");
    }
    // At the plateau the FP8 GEMMs run 1.87× the bf16 ones: 0.640 × 1,979 against 0.686 × 990.
    let bf16 = hw
        .curves
        .flops(tpsim_model::curves::OpClass::Default)
        .unwrap()
        .at(2.15e12);
    let speedup = 0.640 * 1979.0 / (bf16 * 990.0);
    assert!((speedup - 1.865).abs() < 0.001, "{speedup}");
    // Other GPUs have no FP8 curve: they borrow the bf16 one.
    let b200 = hardware_from_preset("b200-8x-nvlink").unwrap();
    assert!(b200.compute_rates().curves.format_flops.is_empty());
}

/// Runs `file` with `[hardware.gpu]` `extra` added before `[model]`; returns exit code and stderr.
fn run_with_gpu(name: &str, file: &str, extra: &str) -> (i32, String) {
    let text = std::fs::read_to_string(scenario(file)).expect("scenario");
    let text = text.replacen("[model]", &format!("[hardware.gpu]\n{extra}\n\n[model]"), 1);
    let p = scratch(name).join("scenario.toml");
    std::fs::write(&p, text).expect("write");
    let o = tpsim(&["run", &p.display().to_string()]);
    (o.code, o.stderr)
}

#[test]
fn bad_fp8_and_fp4_rates_are_refused_naming_the_key() {
    let a100 = "validation/gpt-oss-120b-a100-vllm-0.11-tp1-burst-2k.toml";
    let h100 = "validation/gpt-oss-20b-h100-vllm-0.11-burst-2k.toml";
    // An A100 (SM 8.0) has no FP8 tensor cores, an H100 (SM 9.0) no FP4 ones.
    let (code, e) = run_with_gpu("fp8-a100", a100, "fp8_tflops = 624.0");
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("hardware.gpu.fp8_tflops") && e.contains("SM 8.9"),
        "{e}"
    );
    let (code, e) = run_with_gpu("fp4-h100", h100, "fp4_tflops = 3958.0");
    assert_eq!(code, 2, "{e}");
    assert!(
        e.contains("hardware.gpu.fp4_tflops") && e.contains("SM 10.0"),
        "{e}"
    );
    // Below the bf16 rate (989 on the H100), or not finite.
    for (name, v) in [("fp8-low", "500.0"), ("fp8-nan", "nan"), ("fp8-inf", "inf")] {
        let (code, e) = run_with_gpu(name, h100, &format!("fp8_tflops = {v}"));
        assert_eq!(code, 2, "{name}: {e}");
        assert!(
            e.contains("hardware.gpu.fp8_tflops") && e.contains("above bf16_tflops"),
            "{e}"
        );
    }
    // A valid override runs.
    let (code, e) = run_with_gpu("fp8-ok", h100, "fp8_tflops = 1900.0");
    assert_eq!(code, 0, "{e}");
}

/// A profile may give fp8 / nvfp4 an FLOP curve of their own (`[compute.formats.<dtype>]
/// flops_points`, a fraction of the format's peak); it is accepted and read as such.
#[test]
fn a_profile_may_give_the_fp8_and_nvfp4_flop_curves() {
    let dir = scratch("fp8rate-profile");
    let prof = dir.join("p.toml");
    std::fs::write(
        &prof,
        "[provenance]\ntool = \"hand\"\n\n[compute.formats.fp8]\nflops_points = [[1e10, 0.4], [1e12, 0.7]]\n\
         \n[compute.formats.nvfp4]\nflops_points = [[1e12, 0.5]]\n",
    )
    .unwrap();
    let scn = dir.join("s.toml");
    std::fs::write(
        &scn,
        format!(
            "[hardware]\npreset = \"h100-sxm-1x\"\nprofile = {:?}\n[model]\npreset = \"llama-3.1-8b\"\n\
             [engine]\nname = \"sglang\"\ntp = 1\n",
            prof.display().to_string()
        ),
    )
    .unwrap();
    let o = tpsim(&["validate", &scn.display().to_string()]);
    assert_eq!(o.code, 0, "{}", o.stderr);
    let s = tpsim::scenario::load(&scn).expect("scenario");
    let c = &s.hardware.curves.format_flops;
    // 1e11 is halfway in ln between 1e10 (0.4) and 1e12 (0.7): 0.55.
    assert!((c[&WeightDtype::Fp8].at(1e11) - 0.55).abs() < 1e-12);
    assert!((c[&WeightDtype::Nvfp4].at(1.0) - 0.5).abs() < 1e-12);
}
