//! graphmode: vLLM's `compilation_config.cudagraph_mode` (`engine.cudagraph_mode`), how the engine
//! launches a decode step's kernels: one full CUDA graph, piecewise graphs with each layer's
//! attention run eagerly between the captured pieces, or no graphs at all.
//!
//! Sources (vLLM, read for graphmode):
//! - the five modes and what each runs for a uniform decode batch and for a mixed one: `CUDAGraphMode`
//!   in `vllm/config/compilation.py` (NONE, PIECEWISE, FULL, FULL_DECODE_ONLY = (FULL, NONE),
//!   FULL_AND_PIECEWISE = (FULL, PIECEWISE); `decode_mode` is the first of a pair, `mixed_mode` the
//!   second); the string is read by name, upper-cased (`validate_cudagraph_mode_before`);
//! - the default: FULL_AND_PIECEWISE from vLLM 0.11.0 (PR 25444, "Change default CUDAGraphMode from
//!   PIECEWISE to FULL_AND_PIECEWISE", merged in the week of 2025-09-26 before the 0.11.0 release);
//!   PIECEWISE before, from 0.8.0 (the V1 engine's piecewise graphs, PR 9715; V1 the default engine
//!   from 0.8.0); before 0.8.0 the V0 engine's `CUDAGraphRunner` (`vllm/worker/model_runner.py`)
//!   captured whole decode forwards and ran prefills eagerly, which is FULL_DECODE_ONLY's split;
//! - `--enforce-eager` sets the mode to NONE whatever was asked (`VllmConfig.__post_init__`);
//! - the attention backends' CUDA-graph support and the downgrades vLLM makes for it once the
//!   backends are built: `scenario::cudagraph_support` (graphverify).
//!
//! What tpsim charges for it (`decode::passes::Builder`): NONE is costed as `--enforce-eager` (every
//! modelled kernel launched by the host, `engine.costs.launch_overhead`); PIECEWISE as graphs with
//! each attention layer's core launched by the host between two pieces ([`PIECEWISE_SPLIT_HOST`]).
//! The modes with full graphs replay one graph for a decode step, as before. Prefill and mixed
//! (prefill + decode) steps run the mode's `mixed_mode` (graphverify): FULL_AND_PIECEWISE's
//! PIECEWISE, FULL_DECODE_ONLY's NONE (eager), FULL's FULL.

use super::{EngineKind, Resolver, ScenarioError};
use tpsim_model::units::Duration;

/// vLLM's `CUDAGraphMode`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CudagraphMode {
    None,
    Piecewise,
    Full,
    FullDecodeOnly,
    FullAndPiecewise,
}

impl CudagraphMode {
    /// All modes in vLLM's order, with their names.
    pub const ALL: [(CudagraphMode, &'static str); 5] = [
        (CudagraphMode::None, "NONE"),
        (CudagraphMode::Piecewise, "PIECEWISE"),
        (CudagraphMode::Full, "FULL"),
        (CudagraphMode::FullDecodeOnly, "FULL_DECODE_ONLY"),
        (CudagraphMode::FullAndPiecewise, "FULL_AND_PIECEWISE"),
    ];

    /// vLLM's name of the mode.
    pub fn name(self) -> &'static str {
        Self::ALL
            .iter()
            .find(|(m, _)| *m == self)
            .map_or("NONE", |(_, n)| n)
    }

    /// The mode named `s` (vLLM upper-cases the string first).
    pub fn parse(s: &str) -> Option<CudagraphMode> {
        let up = s.trim().to_ascii_uppercase();
        Self::ALL.iter().find(|(_, n)| *n == up).map(|(m, _)| *m)
    }

    /// How a uniform decode batch runs (`decode_mode`).
    pub fn decode(self) -> DecodeLaunch {
        match self {
            CudagraphMode::None => DecodeLaunch::Eager,
            CudagraphMode::Piecewise => DecodeLaunch::Piecewise,
            CudagraphMode::Full | CudagraphMode::FullDecodeOnly | CudagraphMode::FullAndPiecewise => {
                DecodeLaunch::Full
            }
        }
    }

    /// How a prefill or mixed (non-uniform) batch runs (`mixed_mode`: the second of a pair).
    pub fn mixed(self) -> DecodeLaunch {
        match self {
            CudagraphMode::None | CudagraphMode::FullDecodeOnly => DecodeLaunch::Eager,
            CudagraphMode::Piecewise | CudagraphMode::FullAndPiecewise => DecodeLaunch::Piecewise,
            CudagraphMode::Full => DecodeLaunch::Full,
        }
    }
}

/// How a decode step's kernels reach the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DecodeLaunch {
    /// One captured graph.
    Full,
    /// Captured pieces with each layer's attention launched by the host between them.
    Piecewise,
    /// Every kernel launched by the host.
    Eager,
}

/// Host time of one piecewise split beyond the eager attention call itself: the replay of one more
/// captured piece (vLLM's piecewise backend and CUDA-graph wrapper in Python, `cudaGraphLaunch`).
/// Measured: vLLM PR 9715 (youkaichao, 2024-10-28, `tests/compile/piecewise/test_toy_llama.py`
/// `benchmark`): a 2-layer toy model (hidden 40) at batch 1 takes 71.80 µs with one full graph and
/// 91.30 µs with the attention split out (3 pieces, 2 eager attention calls); the tiny GPU work makes
/// both host time: (91.30 − 71.80) / 2 = 9.75 µs a split, the toy attention's own eager ops included
/// (an upper bound on the piece replay alone).
pub const PIECEWISE_SPLIT_HOST: Duration = Duration::from_ns(9_750);

/// The default mode of vLLM release `version` (see the module doc).
pub fn default_mode(version: &str) -> CudagraphMode {
    match crate::engine_args_versions::release(version) {
        Some(r) if r < vec![0, 8] => CudagraphMode::FullDecodeOnly,
        Some(r) if r < vec![0, 11] => CudagraphMode::Piecewise,
        _ => CudagraphMode::FullAndPiecewise,
    }
}

impl Resolver<'_> {
    /// vLLM's cudagraph mode as the engine settles on it (`None` under SGLang); `given`: the
    /// scenario's `engine.cudagraph_mode`; `cuda_graph`: `engine.cuda_graph` (false:
    /// `--enforce-eager`). The attention backend's downgrades come later
    /// (`Resolver::settle_cudagraph_mode`), once vLLM's own backend pick is known.
    pub(super) fn cudagraph_mode(
        &self,
        given: Option<&str>,
        kind: EngineKind,
        version: &str,
        cuda_graph: bool,
        warnings: &mut Vec<String>,
    ) -> Result<Option<CudagraphMode>, ScenarioError> {
        let key = "engine.cudagraph_mode";
        if kind == EngineKind::Sglang {
            if given.is_some() {
                return Err(self.invalid(
                    key,
                    "a vLLM setting (compilation_config.cudagraph_mode): with SGLang use cuda_graph = false \
                     (--disable-cuda-graph) or enable_piecewise_cuda_graph",
                ));
            }
            return Ok(None);
        }
        let asked = match given {
            Some(s) => Some(CudagraphMode::parse(s).ok_or_else(|| {
                let names: Vec<&str> = CudagraphMode::ALL.iter().map(|(_, n)| *n).collect();
                self.invalid(
                    key,
                    format!(
                        "\"{s}\": expected one of {} (vLLM's CUDAGraphMode)",
                        names.join(", ")
                    ),
                )
            })?),
            None => None,
        };
        if asked.is_some() && crate::engine_args_versions::release(version).is_some_and(|r| r < vec![0, 11]) {
            return Err(self.invalid(
                key,
                format!(
                    "tpsim reads cudagraph_mode from vLLM 0.11.0 (its default there: FULL_AND_PIECEWISE); vLLM \
                     {version}'s compilation config was not read: leave the key out (PIECEWISE) or set \
                     engine.version"
                ),
            ));
        }
        if !cuda_graph {
            if let Some(m) = asked.filter(|&m| m != CudagraphMode::None) {
                warnings.push(format!(
                    "engine.cudagraph_mode = \"{}\" is replaced by NONE: engine.cuda_graph = false is \
                     --enforce-eager, under which vLLM captures no graphs (VllmConfig.__post_init__)",
                    m.name()
                ));
            }
            return Ok(Some(CudagraphMode::None));
        }
        Ok(Some(asked.unwrap_or_else(|| default_mode(version))))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_parse_case_insensitively_and_map_to_decode_launches() {
        assert_eq!(CudagraphMode::parse("piecewise"), Some(CudagraphMode::Piecewise));
        assert_eq!(
            CudagraphMode::parse("FULL_DECODE_ONLY"),
            Some(CudagraphMode::FullDecodeOnly)
        );
        assert_eq!(CudagraphMode::parse("full-decode-only"), None);
        assert_eq!(CudagraphMode::FullAndPiecewise.decode(), DecodeLaunch::Full);
        assert_eq!(CudagraphMode::Piecewise.decode(), DecodeLaunch::Piecewise);
        assert_eq!(CudagraphMode::None.decode(), DecodeLaunch::Eager);
        // compilation.py `CUDAGraphMode`: FULL_AND_PIECEWISE = (FULL, PIECEWISE), FULL_DECODE_ONLY =
        // (FULL, NONE): mixed batches piecewise and eager.
        assert_eq!(CudagraphMode::FullAndPiecewise.mixed(), DecodeLaunch::Piecewise);
        assert_eq!(CudagraphMode::FullDecodeOnly.mixed(), DecodeLaunch::Eager);
        assert_eq!(CudagraphMode::Full.mixed(), DecodeLaunch::Full);
        // PR 25444: FULL_AND_PIECEWISE from 0.11.0, PIECEWISE before.
        assert_eq!(default_mode("0.10.2"), CudagraphMode::Piecewise);
        assert_eq!(default_mode("0.11.0"), CudagraphMode::FullAndPiecewise);
        assert_eq!(default_mode("0.16.0"), CudagraphMode::FullAndPiecewise);
        // PR 9715: (91.30 − 71.80) / 2 µs.
        assert!((PIECEWISE_SPLIT_HOST.as_us_f64() - (91.30 - 71.80) / 2.0).abs() < 1e-9);
        // V0 (before 0.8.0): whole decode forwards captured.
        assert_eq!(default_mode("0.5.3.post1"), CudagraphMode::FullDecodeOnly);
    }
}
