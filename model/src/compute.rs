//! Kernel cost, first cut (DESIGN.md §3.4): an op costs
//! max(bytes ÷ achieved bandwidth, flops ÷ achieved throughput) + a fixed overhead, with achieved
//! rates = datasheet × an efficiency from the hardware preset or profile. Issue #4 replaces the single
//! efficiencies with curves by op class and size.

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
    /// Fixed cost per kernel (launch gap inside a CUDA graph, prologue), µs.
    pub kernel_overhead_us: f64,
}

impl ComputeRates {
    /// Cost of an op reading `bytes` and doing `flops`, made of `kernels` kernels.
    pub fn op_time(&self, bytes: f64, flops: f64, kernels: u32) -> Duration {
        let mem_s = bytes / (self.mem_bytes_per_s * self.mem_efficiency);
        let flop_s = flops / (self.flops_per_s * self.flops_efficiency);
        let s = mem_s.max(flop_s);
        Duration::from_us_f64(s * 1e6 + kernels as f64 * self.kernel_overhead_us)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn memory_bound_decode() {
        // hardware-and-models.md: 6.0 GB per GPU per token at 1.79 TB/s = 3.352 ms (the floor).
        let r = ComputeRates {
            mem_bytes_per_s: 1.79e12,
            mem_efficiency: 1.0,
            flops_per_s: 5e14,
            flops_efficiency: 1.0,
            kernel_overhead_us: 0.0,
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
}
