//! w4a16cost61 (issue #17): the rates the dense linears of a vLLM W4A16 checkpoint are costed with.
//!
//! vLLM runs an AWQ / GPTQ checkpoint's dense linears with Machete, Marlin or the unconverted kernels
//! by release and SM (`scenario::vllm_w4a16`, [`crate::scenario::Engine::w4a16_kernel`]). Where the
//! bundled micro-benchmarks measure that kernel on that SM (`tpsim_model::llm::w4a16_cost`, tests/data/
//! w4a16-kernels.tsv: Marlin on SM 9.0, 0.54 of the fp16 GEMM's streaming efficiency at M 1–4), the
//! int4 weight bytes of the attention projections and of a dense MLP stream at that factor × their
//! format's factor (`[compute.formats.int4]`, 1 without one), read at the pass's rows (its tokens).
//! Everything else costs what it did: other formats, the KV reads, the FLOPs, and a MoE layer's FFN
//! (the routed experts run vLLM's MoE kernels, which no bundled row measures; the shared experts
//! in the same op keep the class efficiency too).
//!
//! ampere62: under vLLM's FP8 Marlin ([`crate::scenario::Engine::fp8_marlin`]: SM < 8.9, or forced)
//! the dense linears' fp8 weight bytes stream the same way at `w4a16_cost::fp8_marlin_factor` (SM 8.x:
//! Marlin's int4 rows of the A100, borrowed), and the int4 ones of an AWQ / GPTQ checkpoint on SM 8.x
//! at Marlin's own SM 8.0 rows.

use std::borrow::Cow;

use tpsim_model::compute::ComputeRates;
use tpsim_model::curves::Curve;
use tpsim_model::llm::WeightDtype;
use tpsim_model::llm::w4a16_cost;

use super::Builder;

/// `rates` with format `dtype`'s streaming factor multiplied by `factor` (a one-point curve of
/// `factor` where `rates` has no curve for it).
pub(super) fn scaled_format(rates: &ComputeRates, dtype: WeightDtype, factor: f64) -> ComputeRates {
    let mut r = rates.clone();
    let points = match r.curves.formats.get(&dtype) {
        Some(c) => c.points().iter().map(|&(s, e)| (s, e * factor)).collect(),
        None => vec![(1.0, factor)],
    };
    if let Ok(c) = Curve::new(points) {
        r.curves.formats.insert(dtype, c);
    }
    r
}

impl Builder<'_> {
    /// The rates a dense linear op of a pass of `tokens` rows is costed with: the W4A16 kernel's
    /// factor applied to int4 bytes where it has one (module doc), else the GPU's rates unchanged.
    pub(super) fn dense_rates(&self, tokens: u32) -> Cow<'_, ComputeRates> {
        let sm = tpsim_model::hw::sm_version(&self.s.hardware.gpu.compute_capability);
        let int4 = self
            .s
            .engine
            .w4a16_kernel
            .and_then(|k| w4a16_cost::factor(k, sm, tokens));
        let fp8 = if self.s.engine.fp8_marlin {
            w4a16_cost::fp8_marlin_factor(sm, tokens)
        } else {
            None
        };
        if int4.is_none() && fp8.is_none() {
            return Cow::Borrowed(&self.rates);
        }
        let mut r = self.rates.clone();
        if let Some(f) = int4 {
            r = scaled_format(&r, WeightDtype::Int4, f.value);
        }
        if let Some(f) = fp8 {
            r = scaled_format(&r, WeightDtype::Fp8, f.value);
        }
        Cow::Owned(r)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tpsim_model::units::Duration;

    /// An int4 part streams `factor` times slower; a bf16 part beside it is untouched: on rates of
    /// 1e12 B/s at efficiency 0.5 without curves, 1e6 int4 bytes take 2 µs, at factor 0.5 4 µs, and
    /// 1e6 bf16 bytes stay 2 µs (no FLOPs, no kernel overhead).
    #[test]
    fn w4a16cost61_int4_bytes_only() {
        let rates = ComputeRates {
            mem_bytes_per_s: 1e12,
            mem_efficiency: 0.5,
            flops_per_s: 1e15,
            flops_efficiency: 0.5,
            fp8_flops_per_s: None,
            fp4_flops_per_s: None,
            kernel_overhead_us: 0.0,
            curves: Default::default(),
        };
        let s = scaled_format(&rates, WeightDtype::Int4, 0.5);
        let int4 = [(1e6, Some(WeightDtype::Int4))];
        let bf16 = [(1e6, Some(WeightDtype::Bf16))];
        let t = |r: &ComputeRates, p: &[(f64, Option<WeightDtype>)]| {
            r.op_time_formats(tpsim_model::curves::OpClass::Attention, p, 0.0, 1)
        };
        assert_eq!(t(&rates, &int4), Duration::from_us_f64(2.0));
        assert_eq!(t(&s, &int4), Duration::from_us_f64(4.0));
        assert_eq!(t(&s, &bf16), Duration::from_us_f64(2.0));
        // An existing int4 curve is multiplied point by point.
        let twice = scaled_format(&s, WeightDtype::Int4, 0.5);
        assert_eq!(twice.curves.formats[&WeightDtype::Int4].points(), &[(1.0, 0.25)]);
    }
}
