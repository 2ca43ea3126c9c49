//! FlashInfer's PCIe-IPC allreduce as SGLang selects it (issue #17, 3):
//! `SGLANG_ENABLE_PCIE_IPC_ALLREDUCE` in `[engine.env]` (SGLang 0.5.23
//! `srt/distributed/device_communicators/pcie_ipc_ar.py`; the file is absent from the 0.5.20 wheel
//! and every earlier one checked, so a scenario naming such a version — or none, whose release is
//! tpsim's current SGLang, 0.5.8 (`crate::engine_release`) — gets the variable ignored, with a
//! warning).
//!
//! What SGLang 0.5.23 does with it: the TP group (world sizes 2, 4, 8 only) builds the backend;
//! `GroupCoordinator` tries it before quick/custom allreduce and NCCL (`parallel_state.py`); a
//! reduction goes to it when it is bf16 and has at most `max_numel` elements, `max_numel` being
//! `SGLANG_PCIE_IPC_MAX_NUMEL` when set, else the widest decode reduction: CUDA-graph `max_bs` ×
//! (draft tokens with speculative decoding, else 1) × hidden (`_decode_width`; without CUDA graphs
//! the fixed fallback width 64 and a warning). Its kernels stage their pushes — one outbound and one
//! inbound stream per rank — which is tpsim's `custom staged-push` (`sim::allreduce`).

use super::{EngineKind, Resolver, ScenarioError};
use std::collections::BTreeMap;

/// The two SGLang variables, taken out of `[engine.env]` before NCCL reads it.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PcieIpcVars {
    pub enable: bool,
    pub max_numel: Option<u64>,
}

/// SGLang 0.5.23 `pcie_ipc_ar.py` `_FALLBACK_DECODE_WIDTH`.
const FALLBACK_DECODE_WIDTH: u64 = 64;

impl Resolver<'_> {
    /// Removes and parses `SGLANG_ENABLE_PCIE_IPC_ALLREDUCE` (SGLang's `EnvBool`: true/1/yes/y,
    /// false/0/no/n, any case) and `SGLANG_PCIE_IPC_MAX_NUMEL` (`EnvInt`; 0 = derive) from the
    /// environment map.
    pub(super) fn take_pcie_ipc_vars(
        &self,
        env: &mut BTreeMap<String, String>,
    ) -> Result<PcieIpcVars, ScenarioError> {
        let mut out = PcieIpcVars::default();
        if let Some(v) = env.remove("SGLANG_ENABLE_PCIE_IPC_ALLREDUCE") {
            out.enable = match v.to_ascii_lowercase().as_str() {
                "true" | "1" | "yes" | "y" => true,
                "false" | "0" | "no" | "n" => false,
                _ => {
                    return Err(self.invalid(
                        "engine.env.SGLANG_ENABLE_PCIE_IPC_ALLREDUCE",
                        format!("\"{v}\" is not a valid boolean value (SGLang's text; expected true/1/yes/y or false/0/no/n)"),
                    ));
                }
            };
        }
        if let Some(v) = env.remove("SGLANG_PCIE_IPC_MAX_NUMEL") {
            let n: i64 = v.trim().parse().map_err(|_| {
                self.invalid(
                    "engine.env.SGLANG_PCIE_IPC_MAX_NUMEL",
                    format!("\"{v}\" is not a valid integer value (SGLang's text)"),
                )
            })?;
            out.max_numel = (n > 0).then_some(n as u64);
        }
        Ok(out)
    }

    /// The largest message (bytes, bf16) the PCIe-IPC allreduce takes, or `None` when it is off.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn pcie_ipc_max_bytes(
        &self,
        vars: &PcieIpcVars,
        kind: EngineKind,
        release: &crate::engine_release::Release,
        tp: u32,
        cuda_graph_max_bs: u64,
        cuda_graph: bool,
        draft_tokens: Option<u64>,
        hidden: u64,
        warnings: &mut Vec<String>,
    ) -> Option<u64> {
        if !vars.enable || tp <= 1 {
            return None;
        }
        if kind == EngineKind::Vllm {
            warnings.push("SGLANG_ENABLE_PCIE_IPC_ALLREDUCE is an SGLang variable: vLLM ignores it".into());
            return None;
        }
        if before_0_5_23(&release.version) {
            let v = &release.version;
            let assumed = if release.assumed {
                " (assumed: engine.version not set; set engine.version = \"0.5.23\" to use it)"
            } else {
                ""
            };
            warnings.push(format!(
                "SGLang {v}{assumed} has no FlashInfer PCIe-IPC allreduce (pcie_ipc_ar.py appears in 0.5.23 of the wheels checked): SGLANG_ENABLE_PCIE_IPC_ALLREDUCE is ignored"
            ));
            return None;
        }
        if !matches!(tp, 2 | 4 | 8) {
            // SGLang logs this at debug level only ("unsupported world size").
            warnings.push(format!(
                "FlashInfer PCIe-IPC all-reduce skipped: unsupported world size {tp} (2, 4 or 8)"
            ));
            return None;
        }
        let numel = match vars.max_numel {
            Some(n) => n,
            None => {
                let width = if cuda_graph {
                    cuda_graph_max_bs * draft_tokens.unwrap_or(1).max(1)
                } else {
                    warnings.push(format!(
                        "FlashInfer PCIe-IPC is sizing its workspace from the fixed fallback width {FALLBACK_DECODE_WIDTH}, not from this server's decode config; set SGLANG_PCIE_IPC_MAX_NUMEL to override."
                    ));
                    FALLBACK_DECODE_WIDTH
                };
                width * hidden
            }
        };
        // bf16: 2 bytes per element (the backend serves bf16 only).
        Some(numel.saturating_mul(2))
    }
}

/// Whether an SGLang version text is before 0.5.23 (unparsable text: not before).
fn before_0_5_23(v: &str) -> bool {
    let t = v.trim().trim_start_matches('v');
    let mut it = t.split(['.', 'r', 'p']).filter_map(|x| x.parse::<u32>().ok());
    let (a, b, c) = (it.next(), it.next(), it.next());
    match (a, b, c) {
        (Some(a), Some(b), Some(c)) => (a, b, c) < (0, 5, 23),
        (Some(a), Some(b), None) => (a, b) < (0, 5),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::before_0_5_23;

    #[test]
    fn version_cut() {
        assert!(before_0_5_23("0.5.9"));
        assert!(before_0_5_23("0.5.20"));
        assert!(before_0_5_23("0.5.8.post1"));
        assert!(!before_0_5_23("0.5.23"));
        assert!(!before_0_5_23("0.6.0"));
    }
}
