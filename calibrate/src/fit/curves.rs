//! `fit --curves`: the `default` class's memory-efficiency curve (`tpsim_model::curves`) fitted to
//! GEMM records of many sizes.
//!
//! Memory-bound GEMM rows (at the start rates: bytes ÷ achieved bandwidth above FLOPs ÷ achieved
//! rate) are grouped by size bucket, one bucket per power of 4 of the bytes one kernel moves. Every
//! bucket with at least [`MIN_ROWS_PER_POINT`] rows gets a curve point at the geometric mean of its
//! rows' bytes. The points' efficiencies are fitted jointly, each row predicted by tpsim's kernel
//! cost with the curve in place (rows between points use the interpolation, rows beyond the ends
//! the flat ends), by the same robust Levenberg–Marquardt on log time and log efficiency as the
//! parameters ([`super::lm`]), with 95 % Student-t intervals (statrs). `kernel_overhead` and the
//! FLOP rate are held at the hardware's values.

use super::lm;
use super::{Errors, FitError, Row};
use crate::measurement::{MeasurementFile, Record};
use statrs::distribution::{ContinuousCDF, StudentsT};
use std::collections::BTreeMap;
use tpsim::scenario::Hardware;
use tpsim_model::curves::{Curve, OpClass};
use tpsim_model::llm::{WeightDtype, WeightFormat};

/// Rows a size bucket needs to get its own point: two more than the one parameter it adds, so
/// every point is over-determined by its own rows.
pub const MIN_ROWS_PER_POINT: usize = 3;
/// As for parameters ([`super::MAX_FACTOR`]): a point may move 100× down from its start (and up to 1).
const MAX_FACTOR: f64 = 100.0;

/// One fitted curve point.
#[derive(Debug, Clone, PartialEq)]
pub struct CurvePoint {
    /// Bytes per kernel where the point sits (geometric mean of its bucket's rows).
    pub bytes: f64,
    /// Rows in its bucket.
    pub rows: usize,
    pub start: f64,
    pub efficiency: f64,
    /// 95 % interval, clipped to (start ÷ 100, 1].
    pub ci_low: f64,
    pub ci_high: f64,
    pub at_bound: bool,
}

/// A fitted curve and its quality.
#[derive(Debug, Clone)]
pub struct CurveFit {
    pub class: OpClass,
    pub points: Vec<CurvePoint>,
    /// Memory-bound rows fitted; GEMM rows left out as FLOP-bound.
    pub rows: usize,
    pub flop_bound: usize,
    pub r2: f64,
    pub rms_log_error: f64,
    pub before: Errors,
    pub after: Errors,
    /// The per-kernel fixed cost held during the fit, µs.
    pub kernel_overhead_us: f64,
    /// The hardware with the fitted curve in place.
    pub hardware: Hardware,
}

fn with_curve(hw: &Hardware, class: OpClass, pts: &[(f64, f64)]) -> Result<Hardware, String> {
    let mut h = hw.clone();
    let curve = Curve::new(pts.to_vec()).map_err(|e| e.to_string())?;
    let entry = h.curves.classes.entry(class).or_default();
    entry.mem = Some(curve);
    Ok(h)
}

fn times(hw: &Hardware, class: OpClass, rows: &[(f64, f64, f64)]) -> Vec<f64> {
    let rates = hw.compute_rates();
    rows.iter()
        .map(|(b, f, _)| rates.op_time_for(class, *b, *f, 1).as_us_f64().max(1e-6))
        .collect()
}

fn errors(pred: &[f64], rows: &[(f64, f64, f64)]) -> Errors {
    let e: Vec<f64> = pred
        .iter()
        .zip(rows)
        .map(|(p, r)| ((p - r.2) / r.2).abs())
        .collect();
    Errors {
        rows: e.len(),
        median_abs: lm::median(e.clone()),
        worst_abs: e.iter().copied().fold(0.0, f64::max),
    }
}

/// Fits the `default` memory-efficiency curve of `hw` to the GEMM rows among `rows`.
pub fn fit_curve(hw: &Hardware, rows: &[Row]) -> Result<CurveFit, FitError> {
    let class = OpClass::Default;
    let rates = hw.compute_rates();
    let mut used = Vec::new();
    let mut flop_bound = 0;
    for r in rows {
        // Issue #4 curves: GEMMs and streaming reads alike (an empty kernel has no bytes to place).
        let Some((bytes, flops)) = r.op.kernel_bytes_flops().filter(|(b, _)| *b > 0.0) else {
            continue;
        };
        let mem_s = bytes / (rates.mem_bytes_per_s * rates.mem_efficiency_for(class, bytes));
        let flop_s = flops / (rates.flops_per_s * rates.flops_efficiency_for(class, flops));
        if flop_s > mem_s {
            flop_bound += 1;
        } else {
            used.push((bytes, flops, r.measured_us));
        }
    }
    let mut buckets: BTreeMap<i64, Vec<f64>> = BTreeMap::new();
    for (b, _, _) in &used {
        // Power-of-4 bucket of the bytes (floor of log₄; GEMM bytes are ≥ 6).
        let key = (b.ln() / 4f64.ln()).floor() as i64;
        buckets.entry(key).or_default().push(*b);
    }
    let sizes: Vec<(f64, usize)> = buckets
        .values()
        .filter(|v| v.len() >= MIN_ROWS_PER_POINT)
        .map(|v| {
            let mean_ln = v.iter().map(|b| b.ln()).sum::<f64>() / v.len() as f64;
            (mean_ln.exp(), v.len())
        })
        .collect();
    if sizes.is_empty() {
        return Err(FitError::Usage(format!(
            "--curves: no size bucket (power of 4 of the bytes) holds {MIN_ROWS_PER_POINT} memory-bound bf16/fp16 gemm rows ({} memory-bound, {flop_bound} FLOP-bound)",
            used.len()
        )));
    }
    let start: Vec<f64> = sizes
        .iter()
        .map(|(b, _)| rates.mem_efficiency_for(class, *b))
        .collect();
    let theta0: Vec<f64> = start.iter().map(|v| v.ln()).collect();
    let lower: Vec<f64> = theta0.iter().map(|t| t - MAX_FACTOR.ln()).collect();
    let upper = vec![0.0; theta0.len()];
    let points = |theta: &[f64]| -> Vec<(f64, f64)> {
        sizes
            .iter()
            .zip(theta)
            .map(|((b, _), t)| (*b, t.exp().min(1.0)))
            .collect()
    };
    let y: Vec<f64> = used.iter().map(|r| r.2.ln()).collect();
    let mut model = |theta: &[f64]| -> Result<Vec<f64>, String> {
        let h = with_curve(hw, class, &points(theta))?;
        Ok(times(&h, class, &used).iter().map(|t| t.ln()).collect())
    };
    let name = |i: usize| format!("the curve point at {:.4e} B", sizes[i].0);
    let sol = lm::solve(&mut model, &y, &theta0, &lower, &upper).map_err(|e| match e {
        lm::LmError::Model(m) => FitError::Usage(m),
        lm::LmError::Insensitive { index } => FitError::Insensitive(name(index)),
        lm::LmError::Collinear { a, b } => FitError::Collinear(name(a), name(b)),
        lm::LmError::TooFewRows { rows, params } => FitError::TooFewRows { rows, params },
        lm::LmError::Singular => FitError::Singular("the curve points".into()),
    })?;
    let t = StudentsT::new(0.0, 1.0, sol.dof as f64)
        .map_err(|e| FitError::Usage(format!("Student-t with {} dof: {e}", sol.dof)))?
        .inverse_cdf(0.975);
    let fitted_points = sizes
        .iter()
        .enumerate()
        .map(|(k, (bytes, n))| {
            let half = t * sol.covariance[k][k].max(0.0).sqrt();
            let th = sol.theta[k];
            CurvePoint {
                bytes: *bytes,
                rows: *n,
                start: start[k],
                efficiency: th.exp().min(1.0),
                ci_low: (th - half).clamp(lower[k], upper[k]).exp(),
                ci_high: (th + half).clamp(lower[k], upper[k]).exp(),
                at_bound: (th - lower[k]).abs() < 1e-6 || (upper[k] - th).abs() < 1e-6,
            }
        })
        .collect();
    let fitted = with_curve(hw, class, &points(&sol.theta)).map_err(FitError::Usage)?;
    let mean = y.iter().sum::<f64>() / y.len() as f64;
    let ss_tot: f64 = y.iter().map(|v| (v - mean).powi(2)).sum();
    let ss_res: f64 = sol.residuals.iter().map(|r| r * r).sum();
    Ok(CurveFit {
        class,
        points: fitted_points,
        rows: used.len(),
        flop_bound,
        r2: if ss_tot > 0.0 { 1.0 - ss_res / ss_tot } else { 1.0 },
        rms_log_error: (ss_res / y.len() as f64).sqrt(),
        before: errors(&times(hw, class, &used), &used),
        after: errors(&times(&fitted, class, &used), &used),
        kernel_overhead_us: rates.kernel_overhead_us,
        hardware: fitted,
    })
}

/// Issue #16: a `gemm` record whose weights are in a quantized format (`dtype` fp8, int8, int4,
/// nvfp4 or mxfp4), for `fit --curves`'s format factors ([`fit_formats`]).
#[derive(Debug, Clone)]
pub struct QuantGemm {
    pub label: String,
    pub m: u64,
    pub n: u64,
    pub k: u64,
    pub format: WeightFormat,
    pub measured_us: f64,
}

/// The nominal storage of a quantized `gemm` record's weights (the record says only the dtype): fp8
/// with one fp32 scale per tensor, int8 with one per output channel, int4 in groups of 128 with fp16
/// scales (the usual GPTQ/AWQ Marlin checkpoint), nvfp4 and mxfp4 as their specs; `None` for
/// unquantized or unknown dtypes.
pub fn record_format(dtype: &str) -> Option<WeightFormat> {
    let d = WeightDtype::from_name(dtype)?;
    let mut f = WeightFormat::plain(d);
    match d {
        WeightDtype::Int8 => f.per_channel = true,
        WeightDtype::Int4 => {
            f.group_size = Some(128);
            f.scale_dtype = Some(tpsim_model::llm::ScaleDtype::Fp16);
        }
        WeightDtype::Fp8 | WeightDtype::Nvfp4 | WeightDtype::Mxfp4 => {}
        WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp32 => return None,
    }
    Some(f)
}

/// The quantized `gemm` records of `m` (named `file` in labels and errors).
pub fn quant_gemms_of(file: &str, meas: &MeasurementFile) -> Result<Vec<QuantGemm>, FitError> {
    let mut out = Vec::new();
    let filter = meas.launch_filter();
    for (i, r) in meas.records.iter().enumerate() {
        let Record::Gemm {
            m,
            n,
            k,
            dtype,
            time_us,
            launch,
        } = r
        else {
            continue;
        };
        let Some(format) = record_format(dtype) else {
            continue;
        };
        let bad = |message: String| FitError::Input {
            file: file.to_string(),
            message: format!("records[{i}]: {message}"),
        };
        if !filter.compared(launch.as_deref()).map_err(bad)? {
            continue;
        }
        if !(time_us.is_finite() && *time_us > 0.0) {
            return Err(bad(format!("time_us {time_us}: expected a time > 0 µs")));
        }
        if *m == 0 || *n == 0 || *k == 0 {
            return Err(bad("expected m, n, k ≥ 1".into()));
        }
        out.push(QuantGemm {
            label: format!("{file}#{i} gemm m={m} n={n} k={k} {dtype}"),
            m: *m,
            n: *n,
            k: *k,
            format,
            measured_us: *time_us,
        });
    }
    Ok(out)
}

/// Bytes and FLOPs of a quantized GEMM: bf16 activations in (m×k) and out (m×n), the k×n weight in
/// its format (n output rows of k inputs, `WeightFormat::tensor_bytes`), 2·m·n·k FLOPs.
fn quant_parts(g: &QuantGemm) -> ([(f64, Option<WeightDtype>); 2], f64) {
    let act = 2.0 * (g.m as f64 * g.k as f64 + g.m as f64 * g.n as f64);
    let w = g.format.tensor_bytes(g.n, g.k) as f64;
    (
        [(act, None), (w, Some(g.format.dtype))],
        2.0 * g.m as f64 * g.n as f64 * g.k as f64,
    )
}

/// Predicted time of a quantized GEMM on `hw` (the `default` class, its format's factor), µs.
pub fn quant_gemm_us(hw: &Hardware, g: &QuantGemm) -> f64 {
    let (parts, flops) = quant_parts(g);
    hw.compute_rates()
        .op_time_formats(OpClass::Default, &parts, flops, 1)
        .as_us_f64()
        .max(1e-6)
}

/// One fitted format factor.
#[derive(Debug, Clone)]
pub struct FormatFit {
    pub format: WeightDtype,
    /// Memory-bound rows fitted; FLOP-bound rows of the format left out.
    pub rows: usize,
    pub flop_bound: usize,
    pub factor: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    pub at_bound: bool,
    pub before: Errors,
    pub after: Errors,
}

fn with_factor(hw: &Hardware, d: WeightDtype, f: f64) -> Result<Hardware, String> {
    let mut h = hw.clone();
    h.curves
        .formats
        .insert(d, Curve::new(vec![(1.0, f.min(1.0))]).map_err(|e| e.to_string())?);
    Ok(h)
}

/// Fits, per weight format with at least [`MIN_ROWS_PER_POINT`] memory-bound rows, one constant
/// factor on its memory efficiency (`[compute.formats.<dtype>]`, a one-point curve) to the
/// quantized GEMM rows, with `hw`'s curves (fit the `default` curve first) and kernel overhead
/// held: the same robust Levenberg–Marquardt on log time as the curve points, bounded to
/// [1/100, 1]. Formats with fewer rows are left out.
pub fn fit_formats(hw: &Hardware, gemms: &[QuantGemm]) -> Result<Vec<FormatFit>, FitError> {
    let mut by: BTreeMap<WeightDtype, Vec<&QuantGemm>> = BTreeMap::new();
    for g in gemms {
        by.entry(g.format.dtype).or_default().push(g);
    }
    let rates = hw.compute_rates();
    let mut out = Vec::new();
    for (d, all) in by {
        let mut used = Vec::new();
        let mut flop_bound = 0;
        for g in all {
            let (parts, flops) = quant_parts(g);
            let bytes: f64 = parts.iter().map(|p| p.0).sum();
            let mem_s = bytes / (rates.mem_bytes_per_s * rates.mem_efficiency_for(OpClass::Default, bytes));
            let flop_s = flops / (rates.flops_per_s * rates.flops_efficiency_for(OpClass::Default, flops));
            if flop_s > mem_s {
                flop_bound += 1;
            } else {
                used.push(g);
            }
        }
        if used.len() < MIN_ROWS_PER_POINT {
            continue;
        }
        let y: Vec<f64> = used.iter().map(|g| g.measured_us.ln()).collect();
        let pred = |h: &Hardware| -> Vec<f64> { used.iter().map(|g| quant_gemm_us(h, g)).collect() };
        let mut model = |theta: &[f64]| -> Result<Vec<f64>, String> {
            let h = with_factor(hw, d, theta[0].exp())?;
            Ok(pred(&h).iter().map(|t| t.ln()).collect())
        };
        let (lower, upper) = (-MAX_FACTOR.ln(), 0.0);
        let sol = lm::solve(&mut model, &y, &[0.0], &[lower], &[upper]).map_err(|e| match e {
            lm::LmError::Model(m) => FitError::Usage(m),
            lm::LmError::Insensitive { .. } | lm::LmError::Collinear { .. } | lm::LmError::Singular => {
                FitError::Insensitive(format!("the {} format factor", d.name()))
            }
            lm::LmError::TooFewRows { rows, params } => FitError::TooFewRows { rows, params },
        })?;
        let t = StudentsT::new(0.0, 1.0, sol.dof as f64)
            .map_err(|e| FitError::Usage(format!("Student-t with {} dof: {e}", sol.dof)))?
            .inverse_cdf(0.975);
        let th = sol.theta[0];
        let half = t * sol.covariance[0][0].max(0.0).sqrt();
        let fitted = with_factor(hw, d, th.exp()).map_err(FitError::Usage)?;
        let err = |p: Vec<f64>| -> Errors {
            let e: Vec<f64> = p
                .iter()
                .zip(&used)
                .map(|(p, g)| ((p - g.measured_us) / g.measured_us).abs())
                .collect();
            Errors {
                rows: e.len(),
                median_abs: lm::median(e.clone()),
                worst_abs: e.iter().copied().fold(0.0, f64::max),
            }
        };
        out.push(FormatFit {
            format: d,
            rows: used.len(),
            flop_bound,
            factor: th.exp().min(1.0),
            ci_low: (th - half).clamp(lower, upper).exp(),
            ci_high: (th + half).clamp(lower, upper).exp(),
            at_bound: (th - lower).abs() < 1e-6 || (upper - th).abs() < 1e-6,
            before: err(pred(hw)),
            after: err(pred(&fitted)),
        });
    }
    Ok(out)
}
