//! The CUDA driver side of `bench` (feature `cuda`): finding the driver without panicking, opening
//! one context per GPU, device properties and versions, event timing and peer-access switches.
//!
//! cudarc's `dynamic-loading` resolves libcuda lazily and **panics** when it is missing, so
//! [`probe`] first asks `is_culib_present` (which only tries to `dlopen` the candidates) and
//! reports a missing driver as an error; only then is anything else called.

// The driver calls below that cudarc's safe API does not cover (library probes, peer access, the
// driver version, pinned host allocation) are `unsafe` FFI; each block says why it is sound.
#![allow(unsafe_code)]

use std::sync::Arc;

use cudarc::driver::sys::{self, CUdevice_attribute as Attr, CUgraphInstantiate_flags, CUstreamCaptureMode};
use cudarc::driver::{CudaContext, CudaEvent, CudaStream, DriverError};

use super::facts::DeviceInfo;

/// Why a benchmark (or the whole bench) could not run.
#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    /// libcuda is missing or `cuInit` failed: no usable NVIDIA driver.
    #[error("no usable NVIDIA driver: {0}")]
    NoDriver(String),
    /// The driver works but reports no GPU.
    #[error(
        "the NVIDIA driver reports no CUDA device (is the GPU visible? check CUDA_VISIBLE_DEVICES and `nvidia-smi`)"
    )]
    NoDevice,
    /// A CUDA library other than the driver (cuBLAS, NVRTC, NCCL) is missing.
    #[error("{0}")]
    MissingLibrary(String),
    /// A driver call failed.
    #[error("{what}: {source}")]
    Driver {
        what: String,
        #[source]
        source: DriverError,
    },
    /// Any other library error (cuBLAS, NVRTC, NCCL), with its context.
    #[error("{0}")]
    Other(String),
}

/// Attach context to a driver error.
pub(super) trait Ctx<T> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, BenchError>;
}

impl<T> Ctx<T> for Result<T, DriverError> {
    fn ctx(self, what: impl FnOnce() -> String) -> Result<T, BenchError> {
        self.map_err(|source| BenchError::Driver { what: what(), source })
    }
}

/// Check that the driver can be loaded and initialised, without the panics of cudarc's lazy loader.
pub fn probe() -> Result<(), BenchError> {
    // SAFETY: `is_culib_present` dlopens each candidate name and drops the handle; loading libcuda
    // runs its initialisers, as in any CUDA program. No symbol is called.
    if !unsafe { sys::is_culib_present() } {
        return Err(BenchError::NoDriver(
            "libcuda.so (the CUDA library of the NVIDIA driver) could not be loaded; `bench` needs an NVIDIA GPU \
             with its driver installed (check `nvidia-smi`, and LD_LIBRARY_PATH if the driver lives elsewhere)"
                .to_string(),
        ));
    }
    cudarc::driver::result::init().map_err(|e| BenchError::NoDriver(format!("cuInit failed: {e}")))?;
    let n = CudaContext::device_count().ctx(|| "cuDeviceGetCount".to_string())?;
    if n < 1 {
        return Err(BenchError::NoDevice);
    }
    Ok(())
}

/// Whether a CUDA library other than the driver can be loaded, with the library named in the error.
pub fn require_library(name: &str, present: bool, hint: &str) -> Result<(), BenchError> {
    if present {
        Ok(())
    } else {
        Err(BenchError::MissingLibrary(format!(
            "{name} could not be loaded{hint}"
        )))
    }
}

/// One primary context per GPU, with cudarc's automatic event tracking off: the benchmarks
/// synchronise explicitly, and tracking would add event records between timed calls.
pub fn open_all() -> Result<Vec<Arc<CudaContext>>, BenchError> {
    let n = CudaContext::device_count().ctx(|| "cuDeviceGetCount".to_string())?;
    let mut ctxs = Vec::new();
    for i in 0..n.max(0) as usize {
        let ctx = CudaContext::new(i).ctx(|| format!("creating a context on GPU {i}"))?;
        // SAFETY: no stream or allocation exists yet in this context, so nothing depends on the
        // tracking being on; every benchmark synchronises its streams before reading results.
        unsafe { ctx.disable_event_tracking() };
        ctxs.push(ctx);
    }
    Ok(ctxs)
}

/// Driver-reported properties of one GPU.
pub fn device_info(ctx: &Arc<CudaContext>) -> Result<DeviceInfo, BenchError> {
    let i = ctx.ordinal();
    let attr = |a: Attr| {
        ctx.attribute(a)
            .map(|v| v.max(0) as u64)
            .ctx(|| format!("reading {a:?} of GPU {i}"))
    };
    let (major, minor) = ctx
        .compute_capability()
        .ctx(|| format!("compute capability of GPU {i}"))?;
    let pci_bus_id = format!(
        "{:04x}:{:02x}:{:02x}.0",
        attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID)?,
        attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID)?,
        attr(Attr::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID)?
    );
    let pcie = super::facts::pcie_links_from_sysfs(&pci_bus_id);
    Ok(DeviceInfo {
        ordinal: i as u32,
        name: ctx.name().ctx(|| format!("name of GPU {i}"))?,
        total_mem_bytes: ctx.total_mem().ctx(|| format!("memory of GPU {i}"))? as u64,
        sm_count: attr(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)? as u32,
        cc: (major.max(0) as u32, minor.max(0) as u32),
        pci_bus_id,
        pcie,
        l2_bytes: attr(Attr::CU_DEVICE_ATTRIBUTE_L2_CACHE_SIZE)?,
        mem_clock_khz: attr(Attr::CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE)?,
        mem_bus_bits: attr(Attr::CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH)?,
    })
}

/// `cuDriverGetVersion`: the CUDA version the driver supports (e.g. 12080).
pub fn cuda_driver_api_version() -> Option<i32> {
    let mut v = 0;
    // SAFETY: the driver is loaded (probe succeeded) and `v` is a valid out-pointer.
    let r = unsafe { sys::cuDriverGetVersion(&mut v) };
    (r == sys::CUresult::CUDA_SUCCESS).then_some(v)
}

/// `ncclGetVersion`, when libnccl can be loaded.
pub fn nccl_version_code() -> Option<i32> {
    // SAFETY: as in `probe`: only dlopen.
    if !unsafe { cudarc::nccl::sys::is_culib_present() } {
        return None;
    }
    cudarc::nccl::result::get_nccl_version().ok()
}

/// The kernel-module version, from `/proc/driver/nvidia/version` (Linux).
pub fn kernel_driver_version() -> Option<String> {
    std::fs::read_to_string("/proc/driver/nvidia/version")
        .ok()
        .and_then(|t| super::facts::parse_driver_version(&t))
}

/// A pair of timing events on one context.
#[derive(Debug)]
pub struct Timer {
    start: CudaEvent,
    end: CudaEvent,
}

impl Timer {
    /// Two events with timing enabled (cudarc's default disables it).
    pub fn new(ctx: &Arc<CudaContext>) -> Result<Timer, BenchError> {
        let ev = || {
            ctx.new_event(Some(sys::CUevent_flags::CU_EVENT_DEFAULT))
                .ctx(|| format!("creating an event on GPU {}", ctx.ordinal()))
        };
        Ok(Timer {
            start: ev()?,
            end: ev()?,
        })
    }

    /// Milliseconds the work that `f` enqueues on `stream` takes on the GPU.
    pub fn time_ms(
        &self,
        stream: &Arc<CudaStream>,
        f: impl FnOnce() -> Result<(), BenchError>,
    ) -> Result<f64, BenchError> {
        self.start
            .record(stream)
            .ctx(|| "recording a start event".to_string())?;
        f()?;
        self.end
            .record(stream)
            .ctx(|| "recording an end event".to_string())?;
        let ms = self
            .start
            .elapsed_ms(&self.end)
            .ctx(|| "reading an event time".to_string())?;
        Ok(f64::from(ms))
    }

    /// Record the start event (for timings spanning several streams' work).
    pub fn start(&self, stream: &Arc<CudaStream>) -> Result<(), BenchError> {
        self.start
            .record(stream)
            .ctx(|| "recording a start event".to_string())
    }

    /// Record the end event and wait for the elapsed time.
    pub fn stop_ms(&self, stream: &Arc<CudaStream>) -> Result<f64, BenchError> {
        self.end
            .record(stream)
            .ctx(|| "recording an end event".to_string())?;
        Ok(f64::from(
            self.start
                .elapsed_ms(&self.end)
                .ctx(|| "reading an event time".to_string())?,
        ))
    }
}

/// Whether GPU `a` can map GPU `b`'s memory (`cuDeviceCanAccessPeer`).
pub fn can_access_peer(a: &Arc<CudaContext>, b: &Arc<CudaContext>) -> Result<bool, BenchError> {
    let mut v = 0;
    // SAFETY: both devices come from live contexts; `v` is a valid out-pointer.
    unsafe { sys::cuDeviceCanAccessPeer(&mut v, a.cu_device(), b.cu_device()) }
        .result()
        .ctx(|| format!("cuDeviceCanAccessPeer({}, {})", a.ordinal(), b.ordinal()))?;
    Ok(v != 0)
}

/// Turn peer access from `from` to `to` on or off (`cuCtxEnablePeerAccess`/`cuCtxDisablePeerAccess`);
/// already in the asked state is not an error.
pub fn set_peer_access(from: &Arc<CudaContext>, to: &Arc<CudaContext>, on: bool) -> Result<(), BenchError> {
    from.bind_to_thread()
        .ctx(|| format!("binding GPU {}", from.ordinal()))?;
    // SAFETY: `to` is a live context (held by the Arc for the whole call) and `from` is current.
    let r = unsafe {
        if on {
            sys::cuCtxEnablePeerAccess(to.cu_ctx(), 0)
        } else {
            sys::cuCtxDisablePeerAccess(to.cu_ctx())
        }
    };
    use sys::CUresult::*;
    match r {
        CUDA_SUCCESS | CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED | CUDA_ERROR_PEER_ACCESS_NOT_ENABLED => Ok(()),
        e => Err(BenchError::Driver {
            what: format!(
                "turning peer access {} from GPU {} to GPU {}",
                if on { "on" } else { "off" },
                from.ordinal(),
                to.ordinal()
            ),
            source: DriverError(e),
        }),
    }
}

/// Whether libcuda can be loaded at all (a safe wrapper of the probe's first step, for callers and
/// tests that must not touch the driver when it is absent).
pub fn driver_present() -> bool {
    // SAFETY: only dlopen, as in `probe`.
    unsafe { sys::is_culib_present() }
}

/// µs per call of `call`, `repeats` samples each way: `eager_calls` calls issued back to back from the
/// host, then `graph_calls` calls captured once in a CUDA graph and replayed whole, as engines run
/// decode. The stream is synchronised before the capture; a failed capture still ends it, so the
/// stream stays usable.
pub fn eager_and_graph_us(
    stream: &Arc<CudaStream>,
    timer: &Timer,
    repeats: u32,
    (eager_calls, graph_calls): (u64, u64),
    mut call: impl FnMut() -> Result<(), BenchError>,
) -> Result<(Vec<f64>, Vec<f64>), BenchError> {
    let gpu = stream.context().ordinal();
    let on = |what: &str| format!("{what} on GPU {gpu}");
    let mut eager = Vec::new();
    for _ in 0..repeats {
        let ms = timer.time_ms(stream, || (0..eager_calls).try_for_each(|_| call()))?;
        eager.push(ms * 1e3 / eager_calls.max(1) as f64);
    }
    stream.synchronize().ctx(|| on("synchronising"))?;
    stream
        .begin_capture(CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_RELAXED)
        .ctx(|| on("starting a CUDA graph capture"))?;
    let captured = (0..graph_calls).try_for_each(|_| call());
    let graph = stream
        .end_capture(CUgraphInstantiate_flags::CUDA_GRAPH_INSTANTIATE_FLAG_AUTO_FREE_ON_LAUNCH)
        .ctx(|| on("ending a CUDA graph capture"))?;
    captured?;
    let graph = graph.ok_or_else(|| BenchError::Other(on("the CUDA graph capture recorded nothing")))?;
    graph.upload().ctx(|| on("uploading a CUDA graph"))?;
    graph.launch().ctx(|| on("replaying a CUDA graph"))?;
    let mut replayed = Vec::new();
    for _ in 0..repeats {
        let ms = timer.time_ms(stream, || graph.launch().ctx(|| on("replaying a CUDA graph")))?;
        replayed.push(ms * 1e3 / graph_calls.max(1) as f64);
    }
    Ok((eager, replayed))
}
