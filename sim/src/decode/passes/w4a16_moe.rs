//! moew4a16_62 (issue #17): a MoE layer's routed experts under vLLM's `fused_marlin_moe`
//! (`scenario::vllm_w4a16_moe`), costed from the call's measured fit on the GPU's SM
//! (`tpsim_model::llm::w4a16_moe_cost`: SM 9.0, FlagGems PR 3609's H20 timings, transferred).
//!
//! Three parts, each where the fit exists: the experts' int4 bytes stream at the fit's factor × the
//! op class's efficiency (0.520: 1.665 TB/s of an H20's 4.0 against the template's 0.80); the call's
//! fixed part over the template's per-kernel cost, `fixed_us − 5 × kernel_overhead_us` (50.60 − 15 =
//! 35.60 µs a layer on the Hopper template); and the FLOPs capped at the template's Marlin MoE
//! ceiling (`[compute.moe_backends.marlin] flops_efficiency`, sglang PR 38884, which the fit's FLOP-bound
//! H20 row matches: 0.253 against 0.257). Int4 shared experts in the same op take the factor too (an
//! approximation: they run dense Marlin, 0.54 on an H100). Other formats, engines, an explicit
//! non-Marlin `engine.moe_backend` and DeepEP all-to-all keep what they cost before.

use tpsim_model::llm::w4a16_moe_cost::{self, CALL_KERNELS, MarlinMoeFit, W4a16MoeKernel};

use super::Builder;

impl Builder<'_> {
    /// The fused Marlin MoE fit this deployment's routed experts are costed with (module doc);
    /// `None` where it does not apply.
    pub(super) fn marlin_moe_fit(&self) -> Option<MarlinMoeFit> {
        let e = &self.s.engine;
        let marlin = e.w4a16_moe_kernel == Some(W4a16MoeKernel::FusedMarlinMoe)
            && matches!(e.moe_backend.as_deref(), None | Some("marlin"))
            && e.moe_a2a.is_none();
        if !marlin {
            return None;
        }
        w4a16_moe_cost::fit(tpsim_model::hw::sm_version(
            &self.s.hardware.gpu.compute_capability,
        ))
    }
}

/// The fused call's fixed cost over what the template charges for its kernels, µs: `fit.fixed_us −`
/// [`CALL_KERNELS`] `× kernel_overhead_us`, never below 0.
pub(super) fn extra_us(fit: &MarlinMoeFit, kernel_overhead_us: f64) -> f64 {
    (fit.fixed_us - f64::from(CALL_KERNELS) * kernel_overhead_us).max(0.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On the Hopper template (3 µs a kernel): 50.60 − 5 × 3 = 35.60 µs (± 0.01); a template that
    /// already charges more than the fit never gets a negative part.
    #[test]
    fn moew4a16_62_fixed_part_over_the_template() {
        let fit = w4a16_moe_cost::fit(90).unwrap();
        assert!(
            (extra_us(&fit, 3.0) - 35.60).abs() < 0.01,
            "{}",
            extra_us(&fit, 3.0)
        );
        assert!(extra_us(&fit, 20.0).abs() < 1e-12);
    }
}
