//! Efficiency curves (DESIGN.md §3.4, issue #4): the fraction of the datasheet memory bandwidth (or
//! FLOP rate) a kernel achieves, as a function of the bytes (or FLOPs) one kernel moves, per op
//! class. Small kernels do not reach the streaming bandwidth a large GEMV does; a curve says by how
//! much. A curve is a list of `(size, efficiency)` points, piecewise-linear in ln(size) between
//! points and flat beyond the first and last point. Classes without a curve fall back to the
//! `default` class's curve, then to the single `mem_efficiency` / `flops_efficiency` of the
//! hardware, so hardware without curves costs exactly what it did before curves existed.

use std::collections::BTreeMap;

use crate::llm::WeightDtype;

/// The op classes a curve can be given for: the decode passes' `by op` names (`sim` breakdown) plus
/// `default`, the curve of every class that has none of its own.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum OpClass {
    /// Fallback for every class without its own curve (and for a lone GEMM benchmark).
    Default,
    /// Attention layers: QKV/O weight streaming plus the KV-cache reads.
    Attention,
    /// Dense MLP layers (weight-streaming GEMV/GEMM).
    Mlp,
    /// MoE expert GEMMs (routed experts, plus shared experts and router).
    Moe,
    /// The LM head (vocabulary-parallel GEMM).
    LmHead,
}

impl OpClass {
    /// Every class, in key order.
    pub const ALL: [OpClass; 5] = [
        OpClass::Default,
        OpClass::Attention,
        OpClass::Mlp,
        OpClass::Moe,
        OpClass::LmHead,
    ];

    /// The key of the class in `[compute.curves.<key>]`.
    pub fn key(self) -> &'static str {
        match self {
            OpClass::Default => "default",
            OpClass::Attention => "attention",
            OpClass::Mlp => "mlp",
            OpClass::Moe => "moe",
            OpClass::LmHead => "lm_head",
        }
    }

    /// The class named `key`, or an error listing the valid keys.
    pub fn from_key(key: &str) -> Result<OpClass, CurveError> {
        OpClass::ALL
            .into_iter()
            .find(|c| c.key() == key)
            .ok_or_else(|| CurveError::UnknownClass(key.to_string()))
    }
}

/// The weight format named `key` in `[compute.formats.<key>]`, or an error listing the valid keys.
pub fn format_from_key(key: &str) -> Result<WeightDtype, CurveError> {
    WeightDtype::from_name(key).ok_or_else(|| CurveError::UnknownFormat(key.to_string()))
}

/// Why a curve (or a class name) is invalid. Messages say what was expected.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CurveError {
    #[error("`{0}` is not an op class: expected one of default, attention, mlp, moe, lm_head")]
    UnknownClass(String),
    #[error("`{0}` is not a weight format: expected one of bf16, fp16, fp32, fp8, int4, int8, nvfp4, mxfp4")]
    UnknownFormat(String),
    #[error("no points: expected at least one [size, efficiency] point")]
    Empty,
    #[error("point {index}: [{size}, {efficiency}] is not finite: expected finite numbers")]
    NotFinite {
        index: usize,
        size: f64,
        efficiency: f64,
    },
    #[error("point {index}: size {size} is not > 0: expected a size in bytes (or FLOPs) > 0")]
    SizeNotPositive { index: usize, size: f64 },
    #[error(
        "point {index}: size {size} is not above the previous point's {previous}: expected points sorted by strictly increasing size"
    )]
    NotSorted { index: usize, size: f64, previous: f64 },
    #[error("point {index}: efficiency {efficiency} is outside (0, 1]")]
    Efficiency { index: usize, efficiency: f64 },
}

/// Achieved efficiency versus size per kernel: validated, sorted points.
#[derive(Debug, Clone, PartialEq)]
pub struct Curve {
    points: Vec<(f64, f64)>,
}

impl Curve {
    /// Checks and wraps `points` (`(size, efficiency)`; sizes in bytes or FLOPs per kernel, > 0,
    /// strictly increasing; efficiencies in (0, 1]; at least one point; everything finite).
    pub fn new(points: Vec<(f64, f64)>) -> Result<Curve, CurveError> {
        if points.is_empty() {
            return Err(CurveError::Empty);
        }
        for (index, &(size, efficiency)) in points.iter().enumerate() {
            if !(size.is_finite() && efficiency.is_finite()) {
                return Err(CurveError::NotFinite {
                    index,
                    size,
                    efficiency,
                });
            }
            if size <= 0.0 {
                return Err(CurveError::SizeNotPositive { index, size });
            }
            if !(efficiency > 0.0 && efficiency <= 1.0) {
                return Err(CurveError::Efficiency { index, efficiency });
            }
            if index > 0 && size <= points[index - 1].0 {
                return Err(CurveError::NotSorted {
                    index,
                    size,
                    previous: points[index - 1].0,
                });
            }
        }
        Ok(Curve { points })
    }

    /// The points, `(size, efficiency)`, by increasing size.
    pub fn points(&self) -> &[(f64, f64)] {
        &self.points
    }

    /// The efficiency at `size` per kernel: linear in ln(size) between the two points around it,
    /// the end value beyond either end (and for sizes ≤ 0, such as a kernel that reads nothing).
    pub fn at(&self, size: f64) -> f64 {
        let p = &self.points;
        let (first, last) = (p[0], p[p.len() - 1]);
        if size.is_nan() || size <= first.0 {
            return first.1;
        }
        if size >= last.0 {
            return last.1;
        }
        // First point strictly above `size`; it exists and is not the first (size > first.0).
        let hi = p.partition_point(|q| q.0 <= size);
        let (a, b) = (p[hi - 1], p[hi]);
        let t = (size.ln() - a.0.ln()) / (b.0.ln() - a.0.ln());
        a.1 + t * (b.1 - a.1)
    }
}

/// The curves of one op class: memory efficiency versus bytes per kernel, FLOP efficiency versus
/// FLOPs per kernel; either may be absent (then the next fallback applies to that rate).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ClassCurves {
    pub mem: Option<Curve>,
    pub flops: Option<Curve>,
}

/// All curves of one GPU, by class. Empty by default: every rate falls back to the single value.
#[derive(Clone, Default, PartialEq)]
pub struct Curves {
    pub classes: BTreeMap<OpClass, ClassCurves>,
    /// Issue #16: relative weight-streaming efficiency of the kernels that read weights stored in a
    /// given format (`[compute.formats.<dtype>]`, dtype as in `quant.toml`), versus bytes per
    /// kernel. It multiplies the op class's memory efficiency for the bytes in that format only: a
    /// batch-1 NVFP4 GEMV on SM 12.0 does not stream its weights as well as a Marlin INT4 one. A
    /// format without a curve streams at factor 1 (the class's efficiency), so hardware without
    /// format curves costs exactly what it did before.
    pub formats: BTreeMap<WeightDtype, Curve>,
    /// fp8rate: FLOP efficiency of the GEMMs on weights in a low-precision tensor-core format (fp8,
    /// nvfp4), as a fraction of that format's own dense peak (`gpu.fp8_tflops` / `fp4_tflops`),
    /// versus FLOPs per kernel (`[compute.formats.<dtype>] flops_points`). A format without one
    /// borrows the op class's bf16 FLOP efficiency (`ComputeRates::flop_time_s`).
    pub format_flops: BTreeMap<WeightDtype, Curve>,
    /// Issue #16: relative efficiency of the decode attention kernel's KV-cache reads per attention
    /// backend (`[compute.attention_backends.<name>]`, SGLang's `--attention-backend` names), versus
    /// bytes per kernel; the scenario's backend (`engine.attention_backend`) picks it. None: factor 1.
    pub attention_backends: BTreeMap<String, Curve>,
    /// Issue #18/#19 (sm120decode): fixed time, in µs, that a MoE layer's expert kernels cost on this
    /// GPU with a given MoE kernel backend (`[compute.moe_backends.<name>] overhead_us`), on top of the
    /// template's streaming cost; the scenario's `engine.moe_backend` picks it. Measured as the
    /// difference between two backends of one engine on one box (flat in batch on RTX PRO 6000:
    /// FlashInfer's CUTLASS NVFP4 grouped GEMM against b12x), so the backend without an entry costs
    /// what the template says. None, or a backend without an entry: no extra time.
    pub moe_backends: BTreeMap<String, f64>,
    /// burstprefill: the FLOP-efficiency ceiling of a MoE kernel backend's expert GEMMs on this GPU
    /// (`[compute.moe_backends.<name>] flops_efficiency`, a fraction of the dense bf16 peak): a
    /// dequantizing W4A16 grouped GEMM (Marlin) stays far below the tensor-core rate at prefill
    /// sizes. A backend without one: the op class's curve alone.
    pub moe_backend_flops: BTreeMap<String, f64>,
}

/// Format and backend maps are shown only when set, so hardware without them prints as before.
impl std::fmt::Debug for Curves {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut d = f.debug_struct("Curves");
        d.field("classes", &self.classes);
        if !self.formats.is_empty() {
            d.field("formats", &self.formats);
        }
        if !self.format_flops.is_empty() {
            d.field("format_flops", &self.format_flops);
        }
        if !self.attention_backends.is_empty() {
            d.field("attention_backends", &self.attention_backends);
        }
        if !self.moe_backends.is_empty() {
            d.field("moe_backends", &self.moe_backends);
        }
        if !self.moe_backend_flops.is_empty() {
            d.field("moe_backend_flops", &self.moe_backend_flops);
        }
        d.finish()
    }
}

impl Curves {
    /// Whether no class and no format has a curve.
    pub fn is_empty(&self) -> bool {
        self.formats.is_empty()
            && self.format_flops.is_empty()
            && self.attention_backends.is_empty()
            && self.moe_backends.is_empty()
            && self.moe_backend_flops.is_empty()
            && self
                .classes
                .values()
                .all(|c| c.mem.is_none() && c.flops.is_none())
    }

    /// The relative efficiency of the KV-cache reads of attention `backend` in a kernel moving
    /// `bytes_per_kernel` bytes: its curve there, 1 without one (or without a backend).
    pub fn backend_factor(&self, backend: Option<&str>, bytes_per_kernel: f64) -> f64 {
        backend
            .and_then(|b| self.attention_backends.get(b))
            .map_or(1.0, |c| c.at(bytes_per_kernel))
    }

    /// The fixed time in µs one MoE layer's expert kernels add with MoE kernel `backend`
    /// (`[compute.moe_backends]`): its `overhead_us`, 0 without an entry (or without a backend).
    pub fn moe_backend_overhead_us(&self, backend: Option<&str>) -> f64 {
        backend
            .and_then(|b| self.moe_backends.get(b))
            .copied()
            .unwrap_or(0.0)
    }

    /// The FLOP-efficiency ceiling of MoE kernel `backend`'s expert GEMMs
    /// (`[compute.moe_backends] flops_efficiency`); `None` without one (or without a backend).
    pub fn moe_backend_flops_efficiency(&self, backend: Option<&str>) -> Option<f64> {
        backend.and_then(|b| self.moe_backend_flops.get(b)).copied()
    }

    /// The relative streaming efficiency of weights in `dtype` read by a kernel moving
    /// `bytes_per_kernel` bytes: the format's curve there, 1 without one.
    pub fn format_factor(&self, dtype: WeightDtype, bytes_per_kernel: f64) -> f64 {
        self.formats.get(&dtype).map_or(1.0, |c| c.at(bytes_per_kernel))
    }

    /// The memory curve in force for `class`: its own, else `default`'s.
    pub fn mem(&self, class: OpClass) -> Option<&Curve> {
        self.pick(class, |c| c.mem.as_ref())
    }

    /// The FLOP curve in force for `class`: its own, else `default`'s.
    pub fn flops(&self, class: OpClass) -> Option<&Curve> {
        self.pick(class, |c| c.flops.as_ref())
    }

    fn pick<'a>(
        &'a self,
        class: OpClass,
        f: impl Fn(&'a ClassCurves) -> Option<&'a Curve>,
    ) -> Option<&'a Curve> {
        self.classes
            .get(&class)
            .and_then(&f)
            .or_else(|| self.classes.get(&OpClass::Default).and_then(&f))
    }
}

#[cfg(test)]
// Exact equality is the point: beyond the ends the stored value itself comes back.
#[allow(clippy::float_cmp)]
mod tests {
    use super::*;

    fn curve(p: &[(f64, f64)]) -> Curve {
        Curve::new(p.to_vec()).unwrap()
    }

    #[test]
    fn interpolates_in_log_size_and_is_flat_beyond_the_ends() {
        let c = curve(&[(1e3, 0.2), (1e5, 0.6), (1e7, 0.9)]);
        // Ends and beyond: flat.
        assert_eq!(c.at(1.0), 0.2);
        assert_eq!(c.at(0.0), 0.2);
        assert_eq!(c.at(1e3), 0.2);
        assert_eq!(c.at(1e7), 0.9);
        assert_eq!(c.at(1e9), 0.9);
        // 1e4 is halfway between 1e3 and 1e5 in ln: 0.2 + 0.5 × 0.4 = 0.4.
        assert!((c.at(1e4) - 0.4).abs() < 1e-12);
        // 1e6 halfway between 1e5 and 1e7: 0.6 + 0.5 × 0.3 = 0.75.
        assert!((c.at(1e6) - 0.75).abs() < 1e-12);
        // A point itself.
        assert!((c.at(1e5) - 0.6).abs() < 1e-12);
        // 10^3.5 is a quarter of the way from 1e3 to 1e5 in ln: 0.2 + 0.25 × 0.4 = 0.3.
        assert!((c.at(10f64.powf(3.5)) - 0.3).abs() < 1e-12);
        // One point: constant.
        let one = curve(&[(4096.0, 0.7)]);
        assert_eq!(one.at(1.0), 0.7);
        assert_eq!(one.at(1e12), 0.7);
    }

    #[test]
    fn rejects_bad_points() {
        assert_eq!(Curve::new(vec![]), Err(CurveError::Empty));
        assert!(matches!(
            Curve::new(vec![(1.0, f64::NAN)]),
            Err(CurveError::NotFinite { index: 0, .. })
        ));
        assert_eq!(
            Curve::new(vec![(0.0, 0.5)]),
            Err(CurveError::SizeNotPositive { index: 0, size: 0.0 })
        );
        assert_eq!(
            Curve::new(vec![(10.0, 0.5), (10.0, 0.6)]),
            Err(CurveError::NotSorted {
                index: 1,
                size: 10.0,
                previous: 10.0
            })
        );
        assert_eq!(
            Curve::new(vec![(10.0, 1.5)]),
            Err(CurveError::Efficiency {
                index: 0,
                efficiency: 1.5
            })
        );
        assert!(Curve::new(vec![(10.0, 0.0)]).is_err());
        assert!(Curve::new(vec![(10.0, 1.0)]).is_ok());
        assert_eq!(
            OpClass::from_key("gemv"),
            Err(CurveError::UnknownClass("gemv".into()))
        );
        assert_eq!(OpClass::from_key("lm_head"), Ok(OpClass::LmHead));
    }

    #[test]
    fn classes_fall_back_to_default() {
        let mut cs = Curves::default();
        assert!(cs.is_empty());
        cs.classes.insert(
            OpClass::Default,
            ClassCurves {
                mem: Some(curve(&[(1.0, 0.5)])),
                flops: None,
            },
        );
        cs.classes.insert(
            OpClass::Moe,
            ClassCurves {
                mem: Some(curve(&[(1.0, 0.3)])),
                flops: Some(curve(&[(1.0, 0.4)])),
            },
        );
        assert_eq!(cs.mem(OpClass::Moe).map(|c| c.at(1.0)), Some(0.3));
        assert_eq!(cs.mem(OpClass::Mlp).map(|c| c.at(1.0)), Some(0.5));
        assert_eq!(cs.flops(OpClass::Moe).map(|c| c.at(1.0)), Some(0.4));
        assert!(cs.flops(OpClass::Mlp).is_none());
    }
}
