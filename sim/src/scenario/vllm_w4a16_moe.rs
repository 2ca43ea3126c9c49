//! moew4a16_62 (issue #17): the kernel vLLM runs a W4A16 checkpoint's routed experts with, and its
//! log line.
//!
//! Read in the vLLM 0.11.0, 0.19.0 and 0.24.0 wheels (PyPI): an AWQ MoE layer gets `AWQMoEMethod`
//! (0.11.0 / 0.19.0 `quantization/awq_marlin.py`; 0.24.0 `auto_awq.py` `AutoAWQMoEMethod`), a GPTQ one
//! the GPTQ Marlin MoE method (`gptq_marlin.py`), a compressed-tensors one
//! `CompressedTensorsWNA16MarlinMoEMethod` (`compressed_tensors_moe.py`) — each `fused_marlin_moe` — when
//! `check_moe_marlin_supports_layer` holds ([`marlin_moe_supports`]); otherwise AWQ and GPTQ warn
//! "Layer '…' is not supported by AWQMoeMarlin. Falling back to Moe WNA16 kernels." (GPTQMoeMarlin
//! for GPTQ) and run the Triton `moe_wna16` kernel, compressed-tensors logs "Using
//! CompressedTensorsWNA16MoEMethod". 0.24.0 picks among WNA16 MoE backends (`fused_moe/oracle/
//! int_wna16.py` `select_wna16_moe_backend`: FlashInfer TRT-LLM MXINT4, then MARLIN); tpsim takes
//! MARLIN on SM 9.0, where that TRT-LLM kernel does not run (vllm PR 32437: SM 10.0). Below
//! Marlin's minimum capability (SM 8.0; 7.5 from 0.14: `Int4Rules::marlin_min_sm`) nothing is set.
//!
//! The decode passes cost `fused_marlin_moe` from its measured fit where the SM has one
//! (`tpsim_model::llm::w4a16_moe_cost`: SM 9.0, H20 rows), and the note says so; `moe_wna16` and
//! `fused_marlin_moe` elsewhere keep the op class's efficiency.

use super::accel::GpuVendor;
use super::{Engine, EngineKind, Hardware, Resolver};
use tpsim_model::llm::w4a16_moe_cost::{self, W4a16MoeKernel, marlin_moe_supports};
use tpsim_model::llm::{ModelSpec, WeightDtype};

impl Resolver<'_> {
    /// Sets [`Engine::w4a16_moe_kernel`] for a MoE `model` whose routed experts are group-scaled
    /// int4 under vLLM `eng` on NVIDIA `hw`, and notes the choice (module doc) in `warnings`.
    pub(super) fn vllm_w4a16_moe(
        &self,
        model: &ModelSpec,
        method: Option<&str>,
        eng: &mut Engine,
        hw: &Hardware,
        warnings: &mut Vec<String>,
    ) {
        if eng.kind != EngineKind::Vllm || hw.accel.vendor != GpuVendor::Nvidia {
            return;
        }
        let (Some(moe), f) = (model.moe, model.quantization.expert_format()) else {
            return;
        };
        if f.dtype != WeightDtype::Int4 || f.group_size.is_none() || f.block_size.is_some() {
            return;
        }
        let version = eng.release().version;
        let sm = tpsim_model::hw::sm_version(&hw.gpu.compute_capability);
        if sm < super::vllm_w4a16::int4_rules(&version).marlin_min_sm {
            return;
        }
        let group = u64::from(f.group_size.unwrap_or(0));
        // Under expert parallelism each rank holds whole experts; under TP the intermediate is split.
        let shard = if eng.ep_size > 1 {
            moe.moe_intermediate
        } else {
            moe.moe_intermediate / u64::from(eng.tp.max(1))
        };
        if !marlin_moe_supports(model.hidden, shard, group) {
            eng.w4a16_moe_kernel = Some(W4a16MoeKernel::MoeWna16);
            let line = match method {
                Some("gptq") => {
                    "Layer '…experts' is not supported by GPTQMoeMarlin. Falling back to Moe WNA16 kernels."
                }
                Some("compressed-tensors") => "Using CompressedTensorsWNA16MoEMethod",
                _ => "Layer '…experts' is not supported by AWQMoeMarlin. Falling back to Moe WNA16 kernels.",
            };
            warnings.push(format!(
                "vLLM {version} logs: \"{line}\" (hidden {}, expert intermediate {shard} a rank, group {group}: \
                 fused_marlin_moe needs hidden % 128 and intermediate % max(64, group)); tpsim costs the \
                 moe_wna16 experts at the op class's efficiency (no benchmark of it is bundled)",
                model.hidden
            ));
            return;
        }
        eng.w4a16_moe_kernel = Some(W4a16MoeKernel::FusedMarlinMoe);
        match w4a16_moe_cost::fit(sm) {
            Some(fit) => warnings.push(format!(
                "vLLM's fused_marlin_moe on SM {sm}: tpsim costs each MoE layer's routed experts at {:.1} µs a \
                 call over its {} kernels plus their int4 weights streamed at {:.3} of the op class's \
                 efficiency ({:.3} TB/s on an H20's 4.0), and caps their FLOPs at the template's Marlin MoE \
                 ceiling (a fit to {} timings on an H20, SM 9.0, transferred; tests/data/w4a16-moe-kernels.tsv)",
                fit.fixed_us,
                w4a16_moe_cost::CALL_KERNELS,
                fit.factor,
                fit.rate_tb_s,
                fit.rows
            )),
            None => warnings.push(format!(
                "vLLM's fused_marlin_moe on SM {sm}: no timing of it is bundled for this SM; tpsim streams the \
                 routed experts' int4 weights at the op class's efficiency (SM 9.0 measures {} of it; \
                 tests/data/w4a16-moe-kernels.tsv)",
                w4a16_moe_cost::fit(90).map_or(String::from("a fit"), |f| format!("{:.3}", f.factor))
            )),
        }
    }
}
