//! w4a16_60 (issue #17): a W4A16 checkpoint (AWQ or GPTQ: 4-bit weights with group scales) under vLLM
//! — the method and linear kernel the release runs, its INFO lines as notes, and its refusals
//! (`tpsim_model::llm::vllm_w4a16`, read in the vLLM 0.8.0 – 0.34.0 wheels).
//!
//! The checkpoint is AWQ or GPTQ as its config.json's `quant_method` says; a preset whose quant.toml
//! describes the int4 weights without a checkpoint config (the bundled `*-awq` presets) is read as
//! AWQ with zero points and as symmetric GPTQ without. The rule looks at the dense linears' format,
//! else the routed experts'. ROCm is not modelled here (`_POSSIBLE_KERNELS[ROCM]` has neither Machete
//! nor Marlin). w4a16cost61: the kernel is kept in [`Engine::w4a16_kernel`]; the decode passes stream
//! the dense linears' int4 bytes at its measured factor where tests/data/w4a16-kernels.tsv has rows
//! for it and the SM (`tpsim_model::llm::w4a16_cost`: Marlin on SM 9.0 and, since ampere62, SM 8.x), else at the op class's
//! efficiency as before (Machete, Marlin elsewhere, the unconverted AWQ / ExLlama kernels).

use super::accel::GpuVendor;
use super::{Engine, EngineKind, Hardware, Resolver, ScenarioError};
use tpsim_model::llm::vllm_w4a16::{Int4Rules, W4a16Checkpoint, vllm_method};
use tpsim_model::llm::{ModelSpec, WeightDtype, WeightFormat};

/// The release's W4A16 rules (`Int4Rules::vllm`) for `version`; 0.19.0's when it does not parse.
pub fn int4_rules(version: &str) -> Int4Rules {
    crate::engine_args_versions::release(version)
        .map(|r| Int4Rules::vllm(&r))
        .unwrap_or_default()
}

/// The int4 group-scaled format the rule reads: the dense linears', else the routed experts'.
fn w4a16_format(model: &ModelSpec) -> Option<WeightFormat> {
    let q = &model.quantization;
    let grouped =
        |f: &WeightFormat| f.dtype == WeightDtype::Int4 && f.group_size.is_some() && f.block_size.is_none();
    [q.weights, q.expert_format()].into_iter().find(grouped)
}

impl Resolver<'_> {
    /// Checks a W4A16 `model` (its checkpoint's `method`) under vLLM `eng` on `hw` and notes vLLM's
    /// log lines in `warnings`; vLLM's refusal (below the method's minimum capability, bf16 on an
    /// fp16-only method) as an error on `model`.
    pub(super) fn vllm_w4a16(
        &self,
        model: &ModelSpec,
        method: Option<&str>,
        eng: &mut Engine,
        hw: &Hardware,
        warnings: &mut Vec<String>,
    ) -> Result<(), ScenarioError> {
        if eng.kind != EngineKind::Vllm || hw.accel.vendor != GpuVendor::Nvidia {
            return Ok(());
        }
        let Some(f) = w4a16_format(model) else {
            return Ok(());
        };
        let ckpt = match method {
            Some("awq") => W4a16Checkpoint::Awq,
            Some("gptq") => W4a16Checkpoint::Gptq,
            Some(_) => return Ok(()), // compressed-tensors and the others: their own methods
            None if f.zero_point => W4a16Checkpoint::Awq,
            None => W4a16Checkpoint::Gptq,
        };
        let version = eng.release().version;
        let rules = int4_rules(&version);
        let sm = tpsim_model::hw::sm_version(&hw.gpu.compute_capability);
        let tp = u64::from(eng.tp.max(1));
        // The first quantized linear, layer 0's `qkv_proj` on a rank (for the kernel line).
        let qkv = (model.heads + 2 * model.kv_heads).saturating_mul(model.head_dim) / tp;
        let group = f.group_size.unwrap_or(0);
        // Below SM 8.0 vLLM's `dtype = auto` serves a bf16 checkpoint in float16 (0.13.0
        // `config/model.py` `_resolve_auto_dtype`: the platform's first supported dtype when the
        // config's is not supported), so only Ampere and later run these layers in bf16.
        let bf16 = model.dtype == WeightDtype::Bf16 && sm >= 80;
        match vllm_method(&rules, ckpt, group, f.zero_point, sm, bf16, (model.hidden, qkv)) {
            Ok(m) => {
                for line in m.log {
                    warnings.push(format!("vLLM {version} logs: \"{line}\""));
                }
                eng.w4a16_kernel = Some(m.kernel);
                let dense_int4 = model.quantization.weights.dtype == WeightDtype::Int4;
                if let (Some(k), true) = (tpsim_model::llm::w4a16_cost::factor(m.kernel, sm, 1), dense_int4) {
                    // ampere62: an Ampere SM without rows of its own borrows SM 8.0's.
                    let on = if k.measured_sm == sm {
                        String::new()
                    } else {
                        format!(" on SM {}, borrowed", k.measured_sm)
                    };
                    warnings.push(format!(
                        "vLLM's {} kernel on SM {sm}: tpsim streams the dense linears' int4 weights at {:.3} of the \
                         fp16 GEMM's efficiency at one row (measured{on} at M {} to {}, the nearest end held beyond; \
                         tests/data/w4a16-kernels.tsv)",
                        m.kernel.name(),
                        k.value,
                        k.m_range[0],
                        k.m_range[1]
                    ));
                } else if dense_int4 && m.marlin_family {
                    // Honest output: no bundled benchmark of this kernel on this SM
                    // (tests/data/w4a16-kernels.tsv has Marlin on SM 8.x and 9.0 only).
                    warnings.push(format!(
                        "vLLM's {} kernel on SM {sm}: no benchmark of it is bundled; tpsim streams the dense \
                         linears' int4 weights at the int4 format's efficiency, unmeasured for this kernel \
                         (Marlin on SM 90 measures 0.54 of the fp16 GEMM's; tests/data/w4a16-kernels.tsv)",
                        m.kernel.name()
                    ));
                }
                if !m.marlin_family {
                    warnings.push(format!(
                        "vLLM {version} runs this checkpoint with `{}`, its unconverted kernels (not Marlin: \
                         compute capability {sm}, group {group}); tpsim costs them as Marlin's (no benchmark of \
                         them is bundled) and counts their weights as stored",
                        m.method
                    ));
                }
                Ok(())
            }
            Err(text) => Err(self.invalid(
                "model",
                format!(
                    "vLLM {version} refuses this W4A16 checkpoint on compute capability {sm}: \"{text}\""
                ),
            )),
        }
    }
}
