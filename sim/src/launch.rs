//! Issue #19 points 1-2: how an NCCL collective is launched, and what that adds to its time.
//!
//! nccl-tests launches its operations back to back from the host (`-G 0`, its default) or replays
//! them from a CUDA graph (`-G N`); engines capture their decode step in a CUDA graph. An eager call
//! costs the host NCCL's enqueue (argument checks, planning, the work upload and the kernel launch,
//! `enqueue.cc` `ncclEnqueueCheck` → `ncclLaunchPrepare` → `ncclLaunchKernel`) before the GPU can
//! run it; a graph replay has no per-call host work. Back-to-back eager calls overlap that host work
//! with the GPU's previous call, so a call takes the longer of the two: the GPU's time, or the host's
//! per-call cost (`nccl_eager_launch`, a hardware parameter with its source in the preset template)
//! when the GPU is faster than the host can issue. Replayed from a graph a call takes the GPU's time.

use serde::Serialize;
use tpsim_model::units::Duration;

/// How a collective is launched. Serialized as its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Launch {
    /// One host call per operation (nccl-tests without `-G`, engines without CUDA graphs).
    #[default]
    Eager,
    /// Replayed from a captured CUDA graph (nccl-tests `-G N`, engines' decode graphs).
    Graph,
}

impl Launch {
    /// Both modes, in `--launch`'s documented order.
    pub const ALL: [Launch; 2] = [Launch::Eager, Launch::Graph];

    /// The name `--launch` and the systems file use.
    pub fn as_str(self) -> &'static str {
        match self {
            Launch::Eager => "eager",
            Launch::Graph => "graph",
        }
    }

    /// The mode named `name` (`eager` or `graph`), or None.
    pub fn from_name(name: &str) -> Option<Launch> {
        Launch::ALL.into_iter().find(|l| l.as_str() == name)
    }

    /// The mode of an engine: graph when it captures CUDA graphs, eager otherwise.
    pub fn of_engine(cuda_graph: bool) -> Launch {
        if cuda_graph { Launch::Graph } else { Launch::Eager }
    }

    /// Time per call of a collective whose GPU side takes `gpu`, back to back, when one eager call
    /// costs the host `eager_host`: the longer of the two eagerly, the GPU's time from a graph.
    pub fn per_call(self, gpu: Duration, eager_host: Duration) -> Duration {
        match self {
            Launch::Eager => gpu.max(eager_host),
            Launch::Graph => gpu,
        }
    }
}

impl std::fmt::Display for Launch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// `tpsim collective --launch MODE --nccl-version V`: sets the setup's launch mode and, when given,
/// the NCCL release (bad values: the command's usage error, naming the flag and what it expects).
pub fn apply_options(
    setup: &mut crate::collective::Setup,
    launch: &str,
    nccl_version: Option<&str>,
) -> Result<(), crate::collective::CmdError> {
    use crate::collective::CmdError;
    setup.launch = Launch::from_name(launch)
        .ok_or_else(|| CmdError::Usage(format!("--launch `{launch}`: expected eager or graph")))?;
    if let Some(v) = nccl_version {
        setup.env.version = tpsim_model::nccl::NcclVersion::parse(v)
            .map_err(|e| CmdError::Usage(format!("--nccl-version {e}")))?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for l in Launch::ALL {
            assert_eq!(Launch::from_name(l.as_str()), Some(l));
            assert_eq!(serde_json::to_value(l).unwrap(), l.as_str());
        }
        assert_eq!(Launch::from_name("Graph"), None);
        assert_eq!(Launch::default(), Launch::Eager);
        assert_eq!(Launch::of_engine(true), Launch::Graph);
    }

    /// A 2 µs GPU call behind a 3.5 µs host: 3.5 µs eagerly, 2 µs from a graph; a 13 µs call is
    /// 13 µs either way (the host's 3.5 µs hide behind it).
    #[test]
    fn per_call_takes_the_longer_side_only_eagerly() {
        let host = Duration::from_us_f64(3.5);
        let fast = Duration::from_us_f64(2.0);
        let slow = Duration::from_us_f64(13.0);
        assert_eq!(Launch::Eager.per_call(fast, host), host);
        assert_eq!(Launch::Graph.per_call(fast, host), fast);
        assert_eq!(Launch::Eager.per_call(slow, host), slow);
        assert_eq!(Launch::Graph.per_call(slow, host), slow);
    }
}
