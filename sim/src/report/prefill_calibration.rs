//! Issue #18 (prefillgpus): whether a run's prefill cost rests on measured FLOP efficiencies.
//!
//! A prefill's time is its FLOP-bound kernels' FLOPs over the GPU's achieved FLOP rate. That rate is
//! the hardware's FLOP-efficiency curve at each kernel's FLOPs, or the flat `flops_efficiency` when
//! the GPU has no curve. A curve's `flops_range` says over which FLOPs per kernel its efficiencies
//! rest on measurements (the GEMM sweeps or prefill rows it comes from); a kernel outside it runs at
//! an extrapolated (or assumed) efficiency. The report says which, naming the range, so a TTFT
//! figure is never read as calibrated when it is not.

use crate::decode::PrefillKernels;
use crate::scenario::Scenario;
use serde::Serialize;
use tpsim_model::curves::OpClass;

/// How far the prefill/TTFT figures rest on measured FLOP efficiencies (JSON
/// `prefill_calibration`; absent when the run costed no FLOP-bound prefill kernel).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PrefillCalibration {
    /// "measured range": every FLOP-bound prefill kernel lies inside the curve's measured range;
    /// "extrapolation": some lie outside it; "uncalibrated": the GPU has no FLOP-efficiency curve
    /// (every kernel runs at the flat `flops_efficiency`) or its curve states no measured range.
    pub status: &'static str,
    /// Smallest and largest FLOPs per kernel of the FLOP-bound prefill ops simulated.
    pub kernel_flops: [f64; 2],
    /// The FLOPs per kernel the curve was measured on (`[compute.curves.default] flops_range`);
    /// null without a curve or without a stated range.
    pub measured_range: Option<[f64; 2]>,
    /// Share of the FLOP-bound prefill FLOPs (each distinct shape once) run in kernels outside the
    /// curve's measured domain (dense bf16/fp16 GEMMs within the range; MoE and quantized-weight
    /// ops are outside), in [0, 1] (1 without a range).
    pub outside_share: f64,
    /// The FLOP curve's `source` (what it was measured or fitted on), null without one.
    pub curve_source: Option<String>,
    /// One sentence saying the above, as `tpsim run` prints it.
    pub note: String,
}

/// The prefill calibration of a run whose prefill kernels are `k`; `None` when none was FLOP-bound.
pub fn build(s: &Scenario, k: &PrefillKernels) -> Option<PrefillCalibration> {
    if k.flops <= 0.0 {
        return None;
    }
    let kernel_flops = [k.min, k.max];
    let span = format!("{:.2e}–{:.2e} FLOPs per kernel", k.min, k.max);
    let curve = OpClass::ALL.iter().any(|&c| s.hardware.curves.flops(c).is_some());
    let hw = &s.hardware.name;
    if !curve {
        let eff = s.hardware.params.flops_efficiency;
        return Some(PrefillCalibration {
            status: "uncalibrated",
            kernel_flops,
            measured_range: None,
            outside_share: 1.0,
            curve_source: None,
            note: format!(
                "prefill/TTFT uncalibrated: {hw} has no FLOP-efficiency curve, so its FLOP-bound prefill \
                 kernels ({span}) run at the flat flops_efficiency {eff}"
            ),
        });
    }
    let outside_share = (k.outside_flops / k.flops).clamp(0.0, 1.0);
    let Some([lo, hi]) = s.hardware.flops_range else {
        return Some(PrefillCalibration {
            status: "uncalibrated",
            kernel_flops,
            measured_range: None,
            outside_share: 1.0,
            curve_source: s.hardware.flops_curve_source.clone(),
            note: format!(
                "prefill/TTFT uncalibrated: the FLOP-efficiency curve of {hw} states no measured range \
                 (flops_range), so none of its FLOP-bound prefill kernels ({span}) is known to lie on measurements"
            ),
        });
    };
    let range = format!("{lo:.2e}–{hi:.2e}");
    let (status, note) = if k.outside_flops > 0.0 {
        let how = if k.outside_flops >= k.flops {
            "an extrapolation: all".to_string()
        } else {
            format!("partly an extrapolation: {:.0} %", 100.0 * outside_share)
        };
        (
            "extrapolation",
            format!(
                "prefill/TTFT {how} of the FLOP-bound prefill FLOPs run in kernels \
                 outside what the FLOP-efficiency curve of {hw} was measured on (dense bf16/fp16 GEMMs of \
                 {range} FLOPs per kernel; MoE and quantized-weight ops count as outside); its kernels span {span}"
            ),
        )
    } else {
        (
            "measured range",
            format!(
                "prefill/TTFT within the measured range: every FLOP-bound prefill kernel ({span}) is a dense \
                 bf16/fp16 GEMM inside the {range} FLOPs per kernel the FLOP-efficiency curve of {hw} was \
                 measured on"
            ),
        )
    };
    Some(PrefillCalibration {
        status,
        kernel_flops,
        measured_range: Some([lo, hi]),
        outside_share,
        curve_source: s.hardware.flops_curve_source.clone(),
        note,
    })
}
