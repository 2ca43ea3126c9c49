//! Issue #19 point 3: custom allreduce kernels as they run.
//!
//! - [`pull`]: vLLM/SGLang's one-shot and two-shot (`custom_all_reduce.cuh`): peer *reads*, whose
//!   per-reader rate is a Little's-law bound (bytes in flight ÷ read round trip) from the kernel's
//!   launch shape and the GPU's outstanding-read capacity, capped by the links.
//! - [`flashinfer_ipc`]: FlashInfer's PCIe-IPC allreduce (what SGLang 0.5.23 runs under
//!   `SGLANG_ENABLE_PCIE_IPC_ALLREDUCE`): posted *writes* on its seed policy's kernel, with the
//!   4 + 4 island decomposition on 8 ranks and its flag barriers.
//!
//! Both lower to the DAG of sends that `crate::allreduce` executes on the flow network.

pub mod flashinfer_ipc;
pub mod pull;
