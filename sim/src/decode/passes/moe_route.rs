//! moeroute62 (issue #17 / #18): the router's top-k as each engine runs it for biased grouped
//! top-k models (sigmoid scores plus an fp32 `e_score_correction_bias`, `n_group` / `topk_group`
//! from `config.json`: DeepSeek-V3 / R1 / V3.2, Kimi-K2 / K2.5 / Kimi-VL, GLM-4.5 / 4.6 / 4.7,
//! GLM-4.7-Flash, GLM-5; vLLM's MiniMax-M2 with `use_routing_bias`). The engine-neutral template
//! (`tpsim_model::llm::forward::ffn_kernels`) counts one top-k kernel a MoE layer; what the engines
//! launch depends on the release, the expert count and the groups. Each kernel is charged as the
//! template charges any other (bytes at the stream rate plus `kernel_overhead`: a decode-sized
//! routing kernel is all overhead); a torch chain under a CUDA graph is still one kernel per op.
//!
//! **SGLang** (`layers/moe/topk.py` `biased_grouped_topk_gpu`, read in the wheels 0.5.3, 0.5.3.post3,
//! 0.5.4 – 0.5.11; CUDA), first branch that holds:
//! 1. 0.5.8+: FlashInfer's `fused_topk_deepseek` when no shared expert is fused into the routed
//!    kernel (0.5.11: the routed top-k counted apart), the expert count is a power of two, top-k
//!    ≤ 8, `topk_group ≤ n_group`, `topk_group × n_group ≥ top-k` and either `n_group > 1` with
//!    ≤ 32 experts a group and `experts a group × topk_group ≤ 128`, or one group of ≤ 384 experts;
//! 2. sgl-kernel's `moe_fused_gate` when a group holds ≤ 32 experts (`MAX_VPT`) and the expert
//!    count is a power of two (DeepSeek-V3: 256 / 8);
//! 3. 0.5.6+: `kimi_k2_moe_fused_gate` for 384 experts in one group (Kimi-K2 / K2.5);
//! 4. 0.5.11+: the JIT `grouped_topk` for one group kept of one, no fused shared expert, ≤ 512
//!    experts, top-k ≤ 8;
//! 5. else `biased_grouped_topk_impl`, a `torch.compile`d (inductor) chain: sigmoid + bias,
//!    `topk(2)` per group (sorted: `gatherTopK` and its bitonic sort, two launches), the group sum,
//!    the group `topk`, the group mask (zero fill and `scatter_`), `masked_fill`, the expert `topk`,
//!    the gather with renormalisation and casts: [`TORCH_CHAIN_KERNELS`] = 9 launches (counted
//!    from the source, inductor fusing each run of pointwise ops it can; tokenspeed PR 171 states
//!    "8-10 launches per layer per decode step" for the same compiled reference at DeepSeek-V3's
//!    shape, and times it at 100.5 µs a call eager at batch 1 on an unnamed GPU against 18.4 µs
//!    for one fused Triton kernel). GLM-4.5 / 4.6 / 4.7 (160 experts, one group: not a power of
//!    two, 160 > 32) take it in every release up to 0.5.10; GLM-4.7-Flash (64, one group) up to
//!    0.5.7; Kimi-K2 up to 0.5.5.
//!
//! Branches 1–4 run one kernel on float32 logits: each casts `gating_output.to(torch.float32)`
//! first, one kernel more where the router GEMM wrote bf16 — everywhere but DeepSeek's `MoEGate`
//! on `dsv3_router_gemm` (`models/deepseek_v2.py`, 0.5.3 – 0.5.9: hidden 7168, 256 or 384 experts,
//! ≤ 16 tokens, SM ≥ 9.0 → float32 out). Runners that route inside the MoE kernel
//! (`flashinfer_trtllm`, `flashinfer_mxfp4`, `triton_kernel`; `passes::sgl_qwen3_next`) launch none
//! of this. Releases before 0.5.3 and after 0.5.11 are not read: the template's one kernel.
//!
//! **vLLM** (`fused_moe/fused_moe.py` `grouped_topk`, from 0.15 `fused_moe/router/
//! grouped_topk_router.py`; read in 0.8.5, 0.9.2, 0.10.1, 0.10.2, 0.11.0, 0.12.0 – 0.17.0, 0.19.0):
//! `grouped_topk` is `torch.compile`d; with `VLLM_USE_FUSED_MOE_GROUPED_TOPK` (default on, from
//! 0.10.2, vllm PR 23274), CUDA, `n_group ≤ 32`, top-k ≤ 32 and a correction bias it calls
//! `ops.grouped_topk`. The op's launches were read off the wheels' `_moe_C.abi3.so` symbols:
//! `topk_with_k2_kernel` then `group_idx_and_topk_idx_kernel` in 0.10.2 – 0.14.x (two kernels,
//! also the order of `invokeNoAuxTc` in `csrc/moe/grouped_topk_kernels.cu`), one
//! `grouped_topk_fused_kernel` from 0.15.0 (vllm PR 32058; 0.17 adds the small-expert-count
//! variant, still one). Around it:
//! - 0.10.2, 0.11.x: the sigmoid, the bias add and its cast in one inductor kernel before the op,
//!   `topk_values.to(torch.float32)` after it where the logits are bf16: 3 kernels (fp32 logits:
//!   GLM-4.x's fp32 gate, MiniMax's) or 4 (bf16: DeepSeek's `ReplicatedLinear` gate);
//! - 0.12, 0.13: the sigmoid inside the op; `e_score_correction_bias.to(gating_output.dtype)`
//!   before it where the logits are bf16: 2 or 3;
//! - 0.14: the op alone, float32 out: 2; 0.15+: 1 (the template's).
//!
//! Without the fused op (releases before 0.10.2) the compiled chain runs: the same ops as SGLang's
//! chain, [`TORCH_CHAIN_KERNELS`]. MiniMax-M2 routes through `grouped_topk` with one group up to
//! 0.14 (`models/minimax_m2.py` `use_grouped_topk=True, num_expert_group=1`), through
//! `FusedTopKBiasRouter`'s one `topk_sigmoid` from 0.15. ROCm (AITER's `biased_grouped_topk`) and
//! models without a correction bias (DeepSeek-V2, Mistral Large 3: softmax `grouped_topk`) keep the
//! template's count.

use crate::scenario::{EngineKind, Scenario, accel::GpuVendor};
use tpsim_model::llm::{Architecture, ForwardPass, ModelSpec};

/// Launches of SGLang's `biased_grouped_topk_impl` / vLLM's compiled `grouped_topk` chain under
/// inductor, a MoE layer (module doc: counted from the source; tokenspeed PR 171: 8–10).
pub const TORCH_CHAIN_KERNELS: u32 = 9;

/// The routing path an engine takes for a biased grouped top-k (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// SGLang 0.5.8+: FlashInfer's `fused_topk_deepseek`.
    SglFlashinfer,
    /// SGLang: sgl-kernel's `moe_fused_gate`.
    SglMoeFusedGate,
    /// SGLang 0.5.6+: sgl-kernel's `kimi_k2_moe_fused_gate`.
    SglKimiK2Gate,
    /// SGLang 0.5.11+: the JIT `grouped_topk` for one group.
    SglJitGroupedTopk,
    /// SGLang's `torch.compile`d `biased_grouped_topk_impl`.
    SglTorchChain,
    /// vLLM's `ops.grouped_topk` (`_moe_C`) with the release's casts around it.
    VllmGroupedTopkOp,
    /// vLLM's `torch.compile`d `grouped_topk` (no fused op).
    VllmTorchChain,
}

impl Path {
    /// The engine's name for the path, as `tpsim run` prints it.
    pub fn name(self) -> &'static str {
        match self {
            Path::SglFlashinfer => "flashinfer fused_topk_deepseek",
            Path::SglMoeFusedGate => "sgl-kernel moe_fused_gate",
            Path::SglKimiK2Gate => "sgl-kernel kimi_k2_moe_fused_gate",
            Path::SglJitGroupedTopk => "JIT grouped_topk",
            Path::SglTorchChain => "biased_grouped_topk_impl (torch.compile chain)",
            Path::VllmGroupedTopkOp => "_moe_C grouped_topk",
            Path::VllmTorchChain => "grouped_topk (torch.compile chain)",
        }
    }
}

/// The routing an engine runs for one MoE layer: its path and the kernels it launches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Route {
    /// Which code path.
    pub path: Path,
    /// Kernels a MoE layer, the casts around the path included.
    pub kernels: u32,
}

/// The routers this module reads: biased grouped top-k (`routing_bias` with both groups in the
/// config) of the DeepSeek-V3 and GLM-4.x MoE families.
fn biased_grouped(model: &ModelSpec) -> Option<(u64, u64)> {
    let family = matches!(
        model.arch,
        Architecture::DeepseekV3
            | Architecture::KimiK25
            | Architecture::KimiVl
            | Architecture::DeepseekV32
            | Architecture::GlmMoeDsa
            | Architecture::Glm4Moe
            | Architecture::Glm4vMoe
            | Architecture::Glm4MoeLite
    );
    if family && model.routing_bias {
        model.expert_groups
    } else {
        None
    }
}

/// SGLang's `MoEGate` writes float32 logits through `dsv3_router_gemm` (module doc).
fn sglang_fp32_logits(s: &Scenario, model: &ModelSpec, experts: u64, tokens: u32) -> bool {
    let deepseek_gate = matches!(
        model.arch,
        Architecture::DeepseekV3 | Architecture::KimiK25 | Architecture::DeepseekV32
    );
    deepseek_gate
        && model.hidden == 7168
        && matches!(experts, 256 | 384)
        && tokens <= 16
        && tpsim_model::hw::sm_version(&s.hardware.gpu.compute_capability) >= 90
}

/// SGLang's branch (module doc) for release `r`, `experts` routed experts in `groups`, a routed
/// top-k of `topk`, with or without the shared expert fused into the routed kernel.
fn sglang_path(r: &[u64], experts: u64, groups: (u64, u64), topk: u64, fused_shared: bool) -> Path {
    let (n, k) = groups;
    let per_group = experts / n.max(1);
    let pow2 = experts.is_power_of_two();
    let at_least = |v: &[u64]| r >= v;
    let flashinfer_fits = if n > 1 {
        per_group <= 32 && per_group * k <= 128
    } else {
        experts <= 384
    };
    // 0.5.8 – 0.5.10 refuse a fused shared expert; 0.5.11 routes the routed top-k apart.
    let shared_ok = !fused_shared || at_least(&[0, 5, 11]);
    if at_least(&[0, 5, 8]) && shared_ok && pow2 && topk <= 8 && k <= n && k * n >= topk && flashinfer_fits {
        Path::SglFlashinfer
    } else if per_group <= 32 && pow2 {
        Path::SglMoeFusedGate
    } else if at_least(&[0, 5, 6]) && experts == 384 && n == 1 {
        Path::SglKimiK2Gate
    } else if at_least(&[0, 5, 11]) && n == 1 && k == 1 && !fused_shared && experts <= 512 && topk <= 8 {
        Path::SglJitGroupedTopk
    } else {
        Path::SglTorchChain
    }
}

/// vLLM's kernels for the fused op at release `r` (module doc), with float32 or bf16 logits.
fn vllm_op_kernels(r: &[u64], fp32_logits: bool) -> u32 {
    let bf16 = u32::from(!fp32_logits);
    if r >= [0, 15].as_slice() {
        1
    } else if r >= [0, 14].as_slice() {
        2
    } else if r >= [0, 12].as_slice() {
        2 + bf16
    } else {
        3 + bf16
    }
}

/// The route `s`'s engine takes for a MoE layer of `model` in a pass of `tokens` tokens; `None`
/// where the template's one kernel stands (module doc: other models, runners that route inside
/// the MoE kernel, non-NVIDIA GPUs, releases not read).
pub fn route(s: &Scenario, model: &ModelSpec, tokens: u32) -> Option<Route> {
    if s.hardware.accel.vendor != GpuVendor::Nvidia {
        return None;
    }
    let backend = s.engine.moe_backend.as_deref();
    if backend.is_some_and(|b| super::sgl_qwen3_next::TOPK_ELSEWHERE_BACKENDS.contains(&b)) {
        return None;
    }
    let moe = model.moe?;
    let r = crate::engine_args_versions::release(&s.engine.release().version)?;
    let experts = moe.n_routed_experts;
    match s.engine.kind {
        EngineKind::Sglang => {
            let groups = biased_grouped(model)?;
            if r.as_slice() < [0, 5, 3].as_slice() || r.as_slice() >= [0, 5, 12].as_slice() {
                return None;
            }
            let fused_shared = super::sgl_fused_shared::fuses(s, model);
            let path = sglang_path(&r, experts, groups, moe.num_experts_per_tok, fused_shared);
            let kernels = match path {
                Path::SglTorchChain => TORCH_CHAIN_KERNELS,
                _ => 1 + u32::from(!sglang_fp32_logits(s, model, experts, tokens)),
            };
            Some(Route { path, kernels })
        }
        EngineKind::Vllm => {
            let minimax = model.arch == Architecture::MiniMaxM2
                && model.routing_bias
                && r.as_slice() < [0, 15].as_slice();
            let (n, _) = if minimax { (1, 1) } else { biased_grouped(model)? };
            let fused = r.as_slice() >= [0, 10, 2].as_slice() && n <= 32 && moe.num_experts_per_tok <= 32;
            Some(if fused {
                Route {
                    path: Path::VllmGroupedTopkOp,
                    kernels: vllm_op_kernels(&r, model.router_gate_fp32()),
                }
            } else {
                Route {
                    path: Path::VllmTorchChain,
                    kernels: TORCH_CHAIN_KERNELS,
                }
            })
        }
    }
}

/// Adds each MoE layer's routing kernels beyond the template's one to `fp`, a pass of `tokens`
/// tokens of `model` under `s`.
pub(crate) fn apply(fp: &mut ForwardPass, s: &Scenario, model: &ModelSpec, tokens: u32) {
    let Some(r) = route(s, model, tokens) else {
        return;
    };
    let extra = r.kernels.saturating_sub(1);
    for l in &mut fp.layers {
        if l.is_moe && l.ffn_kernels > 0 {
            l.ffn_kernels += extra;
        }
    }
}

/// The line `tpsim run` prints for the scenario's routing at one token a pass: the path and its
/// kernels a MoE layer (one included); `None` where [`route`] reads none.
pub fn describe(s: &Scenario) -> Option<String> {
    let r = route(s, &s.model, 1)?;
    Some(format!(
        "{} — {} kernel{} a MoE layer",
        r.path.name(),
        r.kernels,
        if r.kernels == 1 { "" } else { "s" }
    ))
}

#[cfg(test)]
mod tests {
    use super::super::{Builder, collective_costs, durations};
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path as FsPath;

    /// `model` on `hardware` under `engine` release `version` at TP `tp`, `extra` engine lines.
    fn scenario(hardware: &str, model: &str, engine: &str, version: &str, tp: u32, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hardware}\"\n[model]\npreset = \"{model}\"\n[engine]\n\
             name = \"{engine}\"\nversion = \"{version}\"\ntp = {tp}\ntrust_remote_code = true\n{extra}\
             [workload]\nconcurrency = 1\nprompt_len = 1000\noutput_len = 100\n"
        );
        load_str(&text, FsPath::new("moe-route.toml")).expect("scenario")
    }

    fn of(s: &Scenario, tokens: u32) -> Option<(Path, u32)> {
        route(s, &s.model, tokens).map(|r| (r.path, r.kernels))
    }

    /// SGLang's branches (`topk.py` `biased_grouped_topk_gpu`, wheels 0.5.3 – 0.5.11) by hand for
    /// the configs' shapes: DeepSeek-V3 256 experts in 8 groups (32 a group) keeping 4, top-8;
    /// GLM-4.6 160 in one group; Kimi-K2.5 384 in one; GLM-4.7-Flash 64 in one, top-4 (FlashInfer
    /// needs `topk_group × n_group ≥ top-k`: 1 < 4); GLM-5 256 in one, top-8 (1 < 8).
    #[test]
    fn sglang_branch_by_release_and_shape() {
        use Path::*;
        let ds = |r: &[u64], fused| sglang_path(r, 256, (8, 4), 8, fused);
        assert_eq!(ds(&[0, 5, 6], true), SglMoeFusedGate);
        assert_eq!(ds(&[0, 5, 8], true), SglMoeFusedGate); // 0.5.8 – 0.5.10: no fused shared expert
        assert_eq!(ds(&[0, 5, 8], false), SglFlashinfer);
        assert_eq!(ds(&[0, 5, 11], true), SglFlashinfer); // 0.5.11: the routed top-k apart
        let glm = |r: &[u64]| sglang_path(r, 160, (1, 1), 8, false);
        for r in [[0, 5, 3], [0, 5, 6], [0, 5, 9], [0, 5, 10]] {
            assert_eq!(glm(&r), SglTorchChain, "{r:?}");
        }
        assert_eq!(glm(&[0, 5, 11]), SglJitGroupedTopk);
        let kimi = |r: &[u64]| sglang_path(r, 384, (1, 1), 8, false);
        assert_eq!(kimi(&[0, 5, 5]), SglTorchChain);
        assert_eq!(kimi(&[0, 5, 6]), SglKimiK2Gate);
        assert_eq!(kimi(&[0, 5, 9]), SglKimiK2Gate); // 384 is no power of two: not FlashInfer
        assert_eq!(sglang_path(&[0, 5, 9], 64, (1, 1), 4, false), SglTorchChain);
        assert_eq!(sglang_path(&[0, 5, 11], 64, (1, 1), 4, false), SglJitGroupedTopk);
        assert_eq!(sglang_path(&[0, 5, 9], 256, (1, 1), 8, false), SglTorchChain);
    }

    /// vLLM's kernels around `ops.grouped_topk` (two kernels to 0.14, one from 0.15: the wheels'
    /// `_moe_C.abi3.so` symbols), fp32 and bf16 logits.
    #[test]
    fn vllm_op_kernels_by_release() {
        for (r, fp32, bf16) in [
            (&[0, 10, 2][..], 3, 4),
            (&[0, 11, 0], 3, 4),
            (&[0, 12, 0], 2, 3),
            (&[0, 13, 0], 2, 3),
            (&[0, 14, 1], 2, 2),
            (&[0, 15, 0], 1, 1),
            (&[0, 17, 0], 1, 1),
        ] {
            assert_eq!(
                (vllm_op_kernels(r, true), vllm_op_kernels(r, false)),
                (fp32, bf16),
                "{r:?}"
            );
        }
    }

    /// The routes of the brief's rows: GLM-4.6 under SGLang 0.5.6.post1 on 8× B200 (the chain, 9);
    /// GLM-4.6 under vLLM 0.11.0 on 8× H200 (fp32 gate: 3); DeepSeek-R1 under vLLM 0.11.0 (bf16
    /// gate: 4) and 0.9.2 (no fused op: the chain); DeepSeek-V3 under SGLang 0.5.6 on 8× H200 with
    /// the shared expert fused (`moe_fused_gate`: 1 kernel on `dsv3_router_gemm`'s fp32 logits to 16
    /// tokens, 2 with the bf16 cast above), and under 0.5.6's `flashinfer_trtllm` on B200 (routed
    /// inside the MoE kernel: none); vLLM's MiniMax-M2.5 (1 group, fp32 gate) at 0.14.0 and 0.15.0;
    /// MI300X: none.
    #[test]
    fn routes_of_the_brief_rows() {
        use Path::*;
        let glm = scenario("b200-8x-nvlink", "glm-4.6", "sglang", "0.5.6.post1", 8, "");
        assert_eq!(of(&glm, 1), Some((SglTorchChain, 9)));
        let glm_v = scenario("h200-8x-nvlink", "glm-4.6", "vllm", "0.11.0", 8, "");
        assert_eq!(of(&glm_v, 1), Some((VllmGroupedTopkOp, 3)));
        let ds_v = scenario("h200-8x-nvlink", "deepseek-v3", "vllm", "0.11.0", 8, "");
        assert_eq!(of(&ds_v, 4), Some((VllmGroupedTopkOp, 4)));
        let ds_old = scenario("h200-8x-nvlink", "deepseek-v3", "vllm", "0.9.2", 8, "");
        assert_eq!(of(&ds_old, 4), Some((VllmTorchChain, 9)));
        let ds_s = scenario("h200-8x-nvlink", "deepseek-v3", "sglang", "0.5.6", 8, "");
        assert_eq!(of(&ds_s, 16), Some((SglMoeFusedGate, 1)));
        assert_eq!(of(&ds_s, 17), Some((SglMoeFusedGate, 2)));
        let ds_b200 = scenario("b200-8x-nvlink", "deepseek-v3", "sglang", "0.5.6", 8, "");
        assert_eq!(ds_b200.engine.moe_backend.as_deref(), Some("flashinfer_trtllm"));
        assert_eq!(of(&ds_b200, 1), None);
        let mm = |v: &str| scenario("h100-sxm-8x-nvlink", "minimax-m2.5", "vllm", v, 4, "");
        assert_eq!(of(&mm("0.14.0"), 1), Some((VllmGroupedTopkOp, 2)));
        assert_eq!(of(&mm("0.15.0"), 1), None);
        let amd = scenario("mi300x-8x-xgmi", "glm-4.6", "sglang", "0.5.6", 8, "");
        assert_eq!(of(&amd, 1), None);
    }

    /// The charge lands in the decode's MoE op: GLM-4.6 under SGLang on 8× H200 at TP 8, one decode
    /// step of one token, layer 3's MoE op costs 7 kernels more under 0.5.10 (the chain, 9) than under
    /// 0.5.11 (the JIT `grouped_topk` and the bf16 logits' cast, 2), each a routing-sized kernel at
    /// the H200 template's `kernel_overhead` of 3 µs: 21 µs (± 0.05 µs: the kernels' few bytes).
    #[test]
    fn the_decode_moe_op_carries_the_routing_kernels() {
        let moe_us = |v: &str| {
            let s = scenario("h200-8x-nvlink", "glm-4.6", "sglang", v, 8, "");
            let costs = collective_costs(&s);
            let mut b = Builder::new(&s, &costs);
            let d = b.simulate(1, 1000, false).expect("decode");
            durations(&d.graph, "decode: L3 moe")[0].as_us_f64()
        };
        let (chain, jit) = (moe_us("0.5.10"), moe_us("0.5.11"));
        assert!((chain - jit - 21.0).abs() < 0.05, "{chain} {jit}");
    }
}
