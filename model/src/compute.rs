//! Kernel cost, first cut (DESIGN.md §3.4): an op costs
//! max(bytes ÷ achieved bandwidth, flops ÷ achieved throughput) + a fixed overhead, with achieved
//! rates = datasheet × an efficiency from the hardware preset or profile. The efficiency is the
//! op class's curve at the op's size per kernel when the hardware has one ([`crate::curves`], issue
//! #4), else the single `mem_efficiency` / `flops_efficiency`.

use crate::curves::{Curves, OpClass};
use crate::llm::{LowFlops, WeightDtype};
use crate::units::Duration;

/// Achieved rates of one GPU.
#[derive(Debug, Clone, PartialEq)]
pub struct ComputeRates {
    /// Datasheet memory bandwidth, bytes/s.
    pub mem_bytes_per_s: f64,
    /// Fraction of it that weight-streaming kernels achieve (0, 1].
    pub mem_efficiency: f64,
    /// Datasheet dense bf16 throughput, FLOP/s.
    pub flops_per_s: f64,
    /// Fraction of it that decode-shaped GEMMs achieve (0, 1].
    pub flops_efficiency: f64,
    /// fp8rate: the datasheet dense FP8 tensor rate, FLOP/s, where the engine runs fp8-weight GEMMs
    /// as FP8 tensor-core GEMMs on this GPU; `None`: they run at the bf16 rate (weight-only Marlin
    /// below SM 8.9, or no figure).
    pub fp8_flops_per_s: Option<f64>,
    /// fp8rate: the same for NVFP4-weight GEMMs (dense FP4 rate, SM 10.0 / 12.0).
    pub fp4_flops_per_s: Option<f64>,
    /// Fixed cost per kernel (launch gap inside a CUDA graph, prologue), µs.
    pub kernel_overhead_us: f64,
    /// Efficiency curves by op class (empty: the single efficiencies above apply everywhere).
    pub curves: Curves,
}

impl ComputeRates {
    /// Cost of an op reading `bytes` and doing `flops`, made of `kernels` kernels, with the
    /// `default` class's curves (a lone GEMM, the embedding lookup, the EAGLE-3 fusion).
    pub fn op_time(&self, bytes: f64, flops: f64, kernels: u32) -> Duration {
        self.op_time_for(OpClass::Default, bytes, flops, kernels)
    }

    /// Achieved memory efficiency of a `class` kernel moving `bytes_per_kernel` bytes.
    pub fn mem_efficiency_for(&self, class: OpClass, bytes_per_kernel: f64) -> f64 {
        self.curves
            .mem(class)
            .map_or(self.mem_efficiency, |c| c.at(bytes_per_kernel))
    }

    /// Achieved FLOP efficiency of a `class` kernel doing `flops_per_kernel` FLOPs.
    pub fn flops_efficiency_for(&self, class: OpClass, flops_per_kernel: f64) -> f64 {
        self.curves
            .flops(class)
            .map_or(self.flops_efficiency, |c| c.at(flops_per_kernel))
    }

    /// Cost of a `class` op whose reads are `parts`, each `(bytes, format)` (`None`: not weights,
    /// e.g. the KV cache), doing `flops` in `kernels` kernels. The class curve is read at the whole
    /// op's bytes per kernel, as [`ComputeRates::op_time_for`]; each weight part then streams at that
    /// efficiency × its format's factor ([`Curves::format_factor`], at the same bytes per kernel).
    /// Without format curves (every factor 1) this is `op_time_for` on the summed bytes, to the bit.
    pub fn op_time_formats(
        &self,
        class: OpClass,
        parts: &[(f64, Option<WeightDtype>)],
        flops: f64,
        kernels: u32,
    ) -> Duration {
        self.op_time_streams(class, parts, None, flops, kernels)
    }

    /// [`ComputeRates::op_time_formats`] where the non-weight parts (`None`) are KV-cache reads of
    /// attention `backend`: they stream at the class efficiency × the backend's factor
    /// ([`Curves::backend_factor`], 1 without a curve or a backend). Without format and backend
    /// curves this is `op_time_for` on the summed bytes, to the bit.
    pub fn op_time_streams(
        &self,
        class: OpClass,
        parts: &[(f64, Option<WeightDtype>)],
        backend: Option<&str>,
        flops: f64,
        kernels: u32,
    ) -> Duration {
        self.op_time_gemms(class, parts, backend, flops, LowFlops::NONE, kernels)
    }

    /// fp8rate: [`ComputeRates::op_time_streams`] where `low` of the op's `flops` are GEMMs on fp8 or
    /// NVFP4 weights that run at that format's rate ([`ComputeRates::flop_time_s`]). With `low` zero
    /// (or no low-precision rates) this is `op_time_streams`, to the bit.
    pub fn op_time_gemms(
        &self,
        class: OpClass,
        parts: &[(f64, Option<WeightDtype>)],
        backend: Option<&str>,
        flops: f64,
        low: LowFlops,
        kernels: u32,
    ) -> Duration {
        let low = self.applied_low(low);
        let bytes: f64 = parts.iter().map(|p| p.0).sum();
        if low.is_none() && self.curves.formats.is_empty() && self.curves.attention_backends.is_empty() {
            return self.op_time_for(class, bytes, flops, kernels);
        }
        let mem_s = self.stream_mem_s(class, parts, backend, kernels);
        let flop_s = self.flop_time_s(class, flops, low, kernels);
        let s = mem_s.max(flop_s);
        Duration::from_us_f64(s * 1e6 + kernels as f64 * self.kernel_overhead_us)
    }

    /// The low-precision FLOPs that run at their own rate on this GPU: a part whose format has no
    /// rate (`fp8_flops_per_s` / `fp4_flops_per_s` `None`) runs at the bf16 rate and is dropped, and
    /// so are block-scaled fp8 FLOPs (`LowFlops::fp8_block`): the caller moves those it knows to run
    /// at the FP8 rate into `fp8` (`sim`'s `passes::gemm_rate`).
    fn applied_low(&self, low: LowFlops) -> LowFlops {
        LowFlops {
            fp8: if self.fp8_flops_per_s.is_some() {
                low.fp8
            } else {
                0.0
            },
            fp8_block: 0.0,
            fp4: if self.fp4_flops_per_s.is_some() {
                low.fp4
            } else {
                0.0
            },
        }
    }

    /// fp8rate: the FLOP time in seconds of an op doing `flops` FLOPs in `kernels` kernels, `low` of
    /// them GEMMs on fp8 / NVFP4 weights. The efficiencies are read at the whole op's FLOPs per
    /// kernel: the bf16 part at the class's curve (or `flops_efficiency`) × the bf16 rate; each
    /// low-precision part at its format's FLOP curve (`[compute.formats.<dtype>] flops_points`,
    /// a fraction of the format's own peak), else the class's efficiency borrowed, × the format's
    /// rate. Parts without a rate on this GPU stay in the bf16 part. Low parts are capped at the
    /// op's FLOPs.
    pub fn flop_time_s(&self, class: OpClass, flops: f64, low: LowFlops, kernels: u32) -> f64 {
        let per = flops / f64::from(kernels.max(1));
        let eff = self.flops_efficiency_for(class, per);
        let low = self.applied_low(low);
        if low.is_none() {
            return flops / (self.flops_per_s * eff);
        }
        let fp8 = low.fp8.clamp(0.0, flops.max(0.0));
        let fp4 = low.fp4.clamp(0.0, (flops - fp8).max(0.0));
        let rest = (flops - fp8 - fp4).max(0.0);
        let part = |f: f64, peak: Option<f64>, dtype: WeightDtype| match peak {
            Some(p) if f > 0.0 => {
                let e = self.curves.format_flops.get(&dtype).map_or(eff, |c| c.at(per));
                f / (p * e)
            }
            _ => 0.0,
        };
        rest / (self.flops_per_s * eff)
            + part(fp8, self.fp8_flops_per_s, WeightDtype::Fp8)
            + part(fp4, self.fp4_flops_per_s, WeightDtype::Nvfp4)
    }

    /// The memory time of an op's parts in seconds, as [`ComputeRates::op_time_streams`] costs it:
    /// each part at the class efficiency for the bytes per kernel × its format's (weights) or the
    /// attention backend's (`None` parts) factor; without format or backend curves, the summed bytes
    /// at the class efficiency.
    fn stream_mem_s(
        &self,
        class: OpClass,
        parts: &[(f64, Option<WeightDtype>)],
        backend: Option<&str>,
        kernels: u32,
    ) -> f64 {
        let per = f64::from(kernels.max(1));
        let bytes: f64 = parts.iter().map(|p| p.0).sum();
        let mem_eff = self.mem_efficiency_for(class, bytes / per);
        if self.curves.formats.is_empty() && self.curves.attention_backends.is_empty() {
            return bytes / (self.mem_bytes_per_s * mem_eff);
        }
        parts
            .iter()
            .map(|&(b, f)| {
                let factor = match f {
                    Some(d) => self.curves.format_factor(d, bytes / per),
                    None => self.curves.backend_factor(backend, bytes / per),
                };
                b / (self.mem_bytes_per_s * mem_eff * factor)
            })
            .sum()
    }

    /// The FLOPs per kernel of an op costed as [`ComputeRates::op_time_streams`] when its FLOP time
    /// is at least its memory time (the FLOP efficiency sets its cost), else `None` (memory-bound, or
    /// no FLOPs). Issue #18 (prefillgpus): the report says whether a prefill's FLOP-bound kernels lie
    /// inside the range a FLOP-efficiency curve was measured on.
    pub fn flop_bound_kernel_flops(
        &self,
        class: OpClass,
        parts: &[(f64, Option<WeightDtype>)],
        backend: Option<&str>,
        flops: f64,
        kernels: u32,
    ) -> Option<f64> {
        self.flop_bound_gemm_flops(class, parts, backend, flops, LowFlops::NONE, kernels)
    }

    /// fp8rate: [`ComputeRates::flop_bound_kernel_flops`] with `low` of the FLOPs at their
    /// format's rate ([`ComputeRates::flop_time_s`]).
    pub fn flop_bound_gemm_flops(
        &self,
        class: OpClass,
        parts: &[(f64, Option<WeightDtype>)],
        backend: Option<&str>,
        flops: f64,
        low: LowFlops,
        kernels: u32,
    ) -> Option<f64> {
        if flops <= 0.0 {
            return None;
        }
        let per = f64::from(kernels.max(1));
        let mem_s = self.stream_mem_s(class, parts, backend, kernels);
        let flop_s = self.flop_time_s(class, flops, low, kernels);
        (flop_s >= mem_s).then_some(flops / per)
    }

    /// Cost of a `class` op reading `bytes` and doing `flops`, made of `kernels` kernels: the
    /// curves are read at the size of one kernel (bytes and FLOPs ÷ kernels, the whole op for 0).
    pub fn op_time_for(&self, class: OpClass, bytes: f64, flops: f64, kernels: u32) -> Duration {
        let per = f64::from(kernels.max(1));
        let mem_eff = self.mem_efficiency_for(class, bytes / per);
        let flops_eff = self.flops_efficiency_for(class, flops / per);
        let mem_s = bytes / (self.mem_bytes_per_s * mem_eff);
        let flop_s = flops / (self.flops_per_s * flops_eff);
        let s = mem_s.max(flop_s);
        Duration::from_us_f64(s * 1e6 + kernels as f64 * self.kernel_overhead_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flop_bound_kernel_flops_only_for_flop_bound_ops() {
        // 1 TB/s at 1.0 and 100 TFLOPS at 0.5: an op of 1 GB (1 ms of memory) is FLOP-bound from
        // 5e10 FLOPs (1 ms at 50 TFLOPS) on; by hand.
        let r = ComputeRates {
            mem_bytes_per_s: 1e12,
            mem_efficiency: 1.0,
            flops_per_s: 1e14,
            flops_efficiency: 0.5,
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
            kernel_overhead_us: 0.0,
            curves: Curves::default(),
        };
        let parts = [(1e9, None)];
        assert_eq!(
            r.flop_bound_kernel_flops(OpClass::Mlp, &parts, None, 4.9e10, 2),
            None
        );
        assert_eq!(
            r.flop_bound_kernel_flops(OpClass::Mlp, &parts, None, 6e10, 4),
            Some(1.5e10)
        );
        assert_eq!(
            r.flop_bound_kernel_flops(OpClass::Mlp, &parts, None, 0.0, 1),
            None
        );
    }

    #[test]
    fn low_precision_flops_run_at_their_format_rate() {
        use crate::curves::Curve;
        // bf16 1 PFLOP/s at 0.5; 1e12 FLOPs in 2 kernels, 6e11 of them on fp8 weights.
        let mut r = ComputeRates {
            mem_bytes_per_s: 1e12,
            mem_efficiency: 1.0,
            flops_per_s: 1e15,
            flops_efficiency: 0.5,
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
            kernel_overhead_us: 0.0,
            curves: Curves::default(),
        };
        let low = LowFlops {
            fp8: 6e11,
            ..LowFlops::NONE
        };
        let parts = [(1e6, Some(WeightDtype::Fp8))];
        // No FP8 rate (an Ampere GPU: Marlin): everything at 5e14 → 2 ms, as without `low`.
        let t = r.op_time_gemms(OpClass::Mlp, &parts, None, 1e12, low, 2);
        assert_eq!(t, r.op_time_formats(OpClass::Mlp, &parts, 1e12, 2));
        assert!((t.as_ms_f64() - 2.0).abs() < 1e-9, "{t}");
        // FP8 at 2 PFLOP/s borrowing the class's 0.5: 4e11 / 5e14 + 6e11 / 1e15 = 0.8 + 0.6 ms.
        r.fp8_flops_per_s = Some(2e15);
        let t = r.op_time_gemms(OpClass::Mlp, &parts, None, 1e12, low, 2);
        assert!((t.as_ms_f64() - 1.4).abs() < 1e-9, "{t}");
        // With the format's own curve, read at the op's 5e11 FLOPs per kernel (halfway in ln between
        // 1e11 → 0.4 and 2.5e12 → 0.8 is 5e11 → 0.6): 0.8 + 6e11 / 1.2e15 = 0.8 + 0.5 = 1.3 ms.
        r.curves.format_flops.insert(
            WeightDtype::Fp8,
            Curve::new(vec![(1e11, 0.4), (2.5e12, 0.8)]).unwrap(),
        );
        let t = r.op_time_gemms(OpClass::Mlp, &parts, None, 1e12, low, 2);
        assert!((t.as_ms_f64() - 1.3).abs() < 1e-9, "{t}");
        // Block-scaled fp8 left to the compute model runs at bf16 (2 ms), as does fp4 without an
        // FP4 rate.
        let block = LowFlops {
            fp8_block: 6e11,
            ..LowFlops::NONE
        };
        let t = r.op_time_gemms(OpClass::Mlp, &parts, None, 1e12, block, 2);
        assert!((t.as_ms_f64() - 2.0).abs() < 1e-9, "{t}");
        let fp4 = LowFlops {
            fp4: 6e11,
            ..LowFlops::NONE
        };
        let t = r.op_time_gemms(OpClass::Mlp, &parts, None, 1e12, fp4, 2);
        assert!((t.as_ms_f64() - 2.0).abs() < 1e-9, "{t}");
        // Memory-bound ops are unchanged: 1 GB at 1 TB/s = 1 ms whatever the FLOP rate.
        let t = r.op_time_gemms(OpClass::Mlp, &[(1e9, None)], None, 1e9, low, 1);
        assert!((t.as_ms_f64() - 1.0).abs() < 1e-9, "{t}");
        // The prefill record agrees: FLOP-bound at 1.3 ms against 1 µs of memory.
        assert_eq!(
            r.flop_bound_gemm_flops(OpClass::Mlp, &parts, None, 1e12, low, 2),
            Some(5e11)
        );
    }

    #[test]
    fn memory_bound_decode() {
        // hardware-and-models.md: 6.0 GB per GPU per token at 1.79 TB/s = 3.352 ms (the floor).
        let r = ComputeRates {
            mem_bytes_per_s: 1.79e12,
            mem_efficiency: 1.0,
            flops_per_s: 5e14,
            flops_efficiency: 1.0,
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
            kernel_overhead_us: 0.0,
            curves: Curves::default(),
        };
        let t = r.op_time(6.0e9, 2.0 * 3.0e9, 0);
        assert!((t.as_ms_f64() - 3.351_955).abs() < 1e-5, "{t}");
        // Compute-bound: 1e12 FLOP at 5e14 × 0.5 = 4 ms, plus 2 kernels × 3 µs.
        let r = ComputeRates {
            flops_efficiency: 0.5,
            kernel_overhead_us: 3.0,
            ..r
        };
        assert!((r.op_time(1e6, 1e12, 2).as_ms_f64() - 4.006).abs() < 1e-9);
    }

    #[test]
    fn format_factors_scale_only_their_own_bytes() {
        use crate::curves::Curve;
        let mut r = ComputeRates {
            mem_bytes_per_s: 1e12,
            mem_efficiency: 0.8,
            flops_per_s: 1e15,
            flops_efficiency: 0.5,
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
            kernel_overhead_us: 1.0,
            curves: Curves::default(),
        };
        let parts = [
            (4e6, Some(WeightDtype::Bf16)),
            (8e6, Some(WeightDtype::Nvfp4)),
            (2e6, None),
        ];
        // No format curves: exactly op_time_for on the 14 MB summed.
        assert_eq!(
            r.op_time_formats(OpClass::Moe, &parts, 1e6, 2),
            r.op_time_for(OpClass::Moe, 14e6, 1e6, 2)
        );
        // nvfp4 at 0.5 flat: 4 MB + 2 MB at 0.8 TB/s = 7.5 µs; 8 MB at 0.4 TB/s = 20 µs;
        // + 2 kernels × 1 µs = 29.5 µs (FLOPs: 1e6 / 5e14 = 0.002 µs, not binding).
        r.curves
            .formats
            .insert(WeightDtype::Nvfp4, Curve::new(vec![(1.0, 0.5)]).unwrap());
        let t = r.op_time_formats(OpClass::Moe, &parts, 1e6, 2);
        assert!((t.as_us_f64() - 29.5).abs() < 1e-9, "{t}");
        // A curve is read at the op's bytes per kernel: 7 MB per kernel, halfway in ln between
        // 1 MB (0.25) and 49 MB (0.75) → 0.5, the same 29.5 µs.
        r.curves.formats.insert(
            WeightDtype::Nvfp4,
            Curve::new(vec![(1e6, 0.25), (49e6, 0.75)]).unwrap(),
        );
        let t = r.op_time_formats(OpClass::Moe, &parts, 1e6, 2);
        assert!((t.as_us_f64() - 29.5).abs() < 1e-6, "{t}");
        // An attention backend's factor applies to the non-weight (KV) part only: flashinfer at 0.5
        // → the 2 MB KV part at 0.4 TB/s = 5 µs instead of 2.5: 32 µs.
        r.curves
            .attention_backends
            .insert("flashinfer".into(), Curve::new(vec![(1.0, 0.5)]).unwrap());
        let t = r.op_time_streams(OpClass::Moe, &parts, Some("flashinfer"), 1e6, 2);
        assert!((t.as_us_f64() - 32.0).abs() < 1e-6, "{t}");
        let t = r.op_time_streams(OpClass::Moe, &parts, Some("triton"), 1e6, 2);
        assert!((t.as_us_f64() - 29.5).abs() < 1e-6, "{t}");
        // Other formats are untouched: bf16-only parts cost what op_time_for says.
        let bf16 = [(14e6, Some(WeightDtype::Bf16))];
        assert_eq!(
            r.op_time_formats(OpClass::Mlp, &bf16, 0.0, 1),
            r.op_time_for(OpClass::Mlp, 14e6, 0.0, 1)
        );
    }

    #[test]
    fn curves_by_class_and_size_per_kernel() {
        use crate::curves::{ClassCurves, Curve};
        let mut r = ComputeRates {
            mem_bytes_per_s: 1e12,
            mem_efficiency: 0.8,
            flops_per_s: 1e15,
            flops_efficiency: 0.5,
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
            kernel_overhead_us: 1.0,
            curves: Curves::default(),
        };
        r.curves.classes.insert(
            OpClass::Mlp,
            ClassCurves {
                mem: Some(Curve::new(vec![(1e6, 0.4), (1e8, 0.9)]).unwrap()),
                flops: None,
            },
        );
        // Mlp, 2 kernels of 1e7 B each: halfway in ln between the points → 0.65;
        // 2e7 B ÷ (1e12 × 0.65) = 30.769 µs, + 2 × 1 µs = 32.769 µs. FLOPs negligible.
        let t = r.op_time_for(OpClass::Mlp, 2e7, 1e6, 2);
        assert!((t.as_us_f64() - (2e7 / 0.65e12 * 1e6 + 2.0)).abs() < 1e-6, "{t}");
        // Attention has no curve and there is no default: the single 0.8 → 25 µs + 1 µs.
        let t = r.op_time_for(OpClass::Attention, 2e7, 1e6, 1);
        assert!((t.as_us_f64() - 26.0).abs() < 1e-6, "{t}");
        // Below the first point the curve is flat: 1e5 B at 0.4 → 0.25 µs + 1 µs.
        let t = r.op_time_for(OpClass::Mlp, 1e5, 0.0, 1);
        assert!((t.as_us_f64() - 1.25).abs() < 1e-6, "{t}");
        // Without curves, op_time and op_time_for agree to the picosecond.
        r.curves = Curves::default();
        assert_eq!(
            r.op_time(3.3e9, 7.1e11, 5),
            r.op_time_for(OpClass::Moe, 3.3e9, 7.1e11, 5)
        );
    }
}
