//! Issue #17 point 4: where vLLM's QuickReduce runs (`tpsim_model::quick_reduce` has its window and
//! codecs, `sim::allreduce` its timing). vLLM 0.11.0 builds it only on ROCm
//! (`cuda_communicator.py`: `if current_platform.is_rocm()`) and `QuickAllReduce.__init__` disables
//! itself, with these messages, on anything but gfx94x/gfx95x (MI300 series and MI355X), a world size
//! other than 2, 4 or 8, or more than two GPUs that are not fully connected.

use crate::scenario::Hardware;
use crate::scenario::accel::GpuVendor;
use tpsim_model::quick_reduce::WORLD_SIZES;

/// Why vLLM would not run QuickReduce on `gpus` GPUs of `hw` (its log text), or `None` when it would.
pub fn refusal(hw: &Hardware, gpus: usize) -> Option<String> {
    if hw.accel.vendor != GpuVendor::Amd {
        return Some(format!(
            "{}: vLLM builds its quick allreduce only on ROCm (\"Custom quick allreduce is only supported on ROCm MI300 series.\")",
            hw.gpu.name
        ));
    }
    if !WORLD_SIZES.contains(&(gpus as u32)) {
        return Some(format!(
            "\"Custom quick allreduce is disabled due to an unsupported world size: {gpus}. Supported world sizes: [2, 4, 8].\""
        ));
    }
    if gpus > 2 && hw.accel.xgmi.is_none() {
        return Some(
            "\"Custom quick allreduce is disabled because it's not supported on more than two PCIe-only GPUs.\"".into(),
        );
    }
    None
}
