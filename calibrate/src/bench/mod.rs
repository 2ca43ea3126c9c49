//! `tpsim-calibrate bench`: microbenchmarks of this machine's GPUs, written as a measurement file
//! (`tpsim-measurements/1`).
//!
//! Always compiled and unit-tested without a GPU: [`plan`] (families, sizes, iteration counts,
//! statistics, bandwidth and latency formulas), [`shapes`] (decode GEMM shapes from model configs),
//! [`facts`] (device properties, versions, assembly of the measurement file).
//! - [`cli`]: the `bench` subcommand's arguments and entry point.
//! - With the `cuda` feature: `driver` (probe, contexts, timing), one module per benchmark
//!   (`mem`, `p2p`, `gemm`, `stream`, `nccl`) and `measure` (re-exported from this module), which runs them.

pub mod cli;
pub mod facts;
pub mod plan;
pub mod shapes;

#[cfg(feature = "gpu")]
pub mod driver;
#[cfg(feature = "gpu")]
mod gemm;
#[cfg(feature = "gpu")]
mod mem;
#[cfg(feature = "gpu")]
mod nccl;
#[cfg(feature = "gpu")]
mod p2p;
#[cfg(feature = "gpu")]
mod stream;

#[cfg(feature = "gpu")]
pub use measure_impl::measure;

#[cfg(feature = "gpu")]
mod measure_impl {
    use std::io::Write;

    use super::driver::{self, BenchError};
    use super::facts::{self, MachineFacts};
    use super::plan::{Family, Plan};
    use crate::measurement::MeasurementFile;

    /// Run the selected benchmarks and assemble the measurement file. Fails only when no GPU can be
    /// used at all (no driver, no device); a benchmark that fails is skipped with a warning on `err`
    /// and in the file's notes, keeping the records it produced before failing.
    pub fn measure(plan: &Plan, err: &mut dyn Write) -> Result<MeasurementFile, BenchError> {
        driver::probe()?;
        let ctxs = driver::open_all()?;
        let devices = ctxs
            .iter()
            .map(driver::device_info)
            .collect::<Result<Vec<_>, _>>()?;
        for d in &devices {
            let _ = writeln!(err, "{}", d.note());
        }
        let machine = MachineFacts {
            hostname: facts::hostname(),
            driver_version: driver::kernel_driver_version(),
            cuda_driver_api: driver::cuda_driver_api_version(),
            nccl_code: driver::nccl_version_code(),
            devices,
        };
        let mut records = Vec::new();
        let mut warnings = Vec::new();
        for fam in Family::ALL.into_iter().filter(|f| plan.runs(*f)) {
            let _ = writeln!(err, "bench {} ...", fam.name());
            let r = match fam {
                Family::Mem => super::mem::run(&ctxs, plan, &mut records, err),
                Family::Gemm => super::gemm::run(&ctxs[0], &machine.devices[0], plan, &mut records, err),
                Family::Stream => super::stream::run(&ctxs[0], &machine.devices[0], plan, &mut records, err),
                Family::P2p | Family::Nccl if ctxs.len() < 2 => Err(BenchError::Other(format!(
                    "needs at least 2 GPUs, this machine has {}",
                    ctxs.len()
                ))),
                Family::P2p => super::p2p::run(&ctxs, plan, &mut records, &mut warnings, err),
                Family::Nccl => super::nccl::run(&ctxs, plan, &mut records, err),
            };
            if let Err(e) = r {
                let w = format!("{} skipped: {e}", fam.name());
                let _ = writeln!(err, "warning: {w}");
                warnings.push(w);
            }
        }
        Ok(facts::assemble(&machine, plan, records, warnings))
    }
}
