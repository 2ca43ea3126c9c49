//! sgldualstream (issue #17): SGLang runs a MoE layer's shared experts on the current CUDA stream
//! while the router, top-k and routed experts run on a second stream (`alt_stream`), then joins
//! the two (`forward_normal_dual_stream`: `alt_stream.wait_stream(current)`, the shared experts,
//! `with torch.cuda.stream(alt_stream):` the routed path, `current.wait_stream(alt_stream)`, the
//! add). Read in the SGLang wheels 0.4.6, 0.4.7, 0.4.8, 0.4.9, 0.4.10, 0.5.1 … 0.5.9
//! (`python/sglang/srt/models/`):
//!
//! | model file (tpsim architectures) | first release | gate on the pass |
//! |---|---|---|
//! | `deepseek_v2.py` `DeepseekV2MoE.forward` (DeepSeek-V2/V3/R1, V3.2, Kimi-K2/K2.5, Kimi-VL) | 0.4.8 (0.4.7: only the attention's q/k norms use `alt_stream`) | 0.4.8 – 0.5.5: `hidden_states.shape[0] <= DUAL_STREAM_TOKEN_THRESHOLD` (1024), any pass, eager or graph; 0.5.6 on: `get_is_capture_mode()`, passes replayed from a CUDA graph |
//! | `qwen2_moe.py` `Qwen2MoeSparseMoeBlock.forward` (Qwen2-MoE; Qwen3-Next, `qwen3_next.py`; Qwen3.5 MoE, `qwen3_5.py` 0.5.9) | 0.5.2 (0.5.1 has no `alt_stream` in the file) | 0.5.2: ≤ 1024 tokens, any pass; 0.5.3 – 0.5.6: ≤ 1024 tokens and `get_is_capture_mode()`; 0.5.7 on: `get_is_capture_mode()` |
//! | `llama4.py` `Llama4MoE._forward_core` (Llama-4) | 0.4.7 | every pass `if _is_cuda` (`_forward_core_shared_routed_overlap`) |
//! | `bailing_moe.py` (Ling / Ring 2.0) | 0.5.3 | 0.5.3 – 0.5.6: ≤ 1024 tokens and `get_is_capture_mode()`; 0.5.7 on: `get_is_capture_mode()` |
//! | `hunyuan_v3.py` `HYV3MoEFused.forward` (Hy3; families36, wheels 0.5.11 – 0.5.23 read) | 0.5.11 (the model's first release) | `get_is_capture_mode()` (`_forward_dual_stream`: shared MLP on the current stream, router and routed experts on `alt_stream`) |
//!
//! Every one needs `alt_stream`, created only `if _is_cuda` (NVIDIA; `None` on ROCm), a layer with
//! shared experts, no DeepEP all-to-all (`_enable_deepep_moe` / `_enable_a2a_moe` /
//! `is_deepep()` take `forward_deepep`; tpsim's `passes::moe_a2a` costs that path), and for
//! `deepseek_v2.py` `num_fused_shared_experts == 0`: `DeepseekV2ForCausalLM.
//! determine_num_fused_shared_experts` (0.4.8, 0.5.2, 0.5.8, 0.5.9) fuses the shared expert into
//! the routed MoE kernel, as one more expert, for `architectures[0] == "DeepseekV3ForCausalLM"`
//! with 256 routed experts and 1 shared expert on NVIDIA SM 8.0 and newer, without expert
//! parallelism (0.4.8: `enable_ep_moe` / `enable_deepep_moe`; 0.5.2 on:
//! `get_moe_expert_parallel_world_size() > 1`) or DeepEP, unless
//! `--disable-shared-experts-fusion` (no tpsim key). So DeepSeek-V3/R1 on CUDA without EP never
//! take the dual-stream path; Kimi-K2 (384 experts) and DeepSeek-V3.2
//! (`DeepseekV32ForCausalLM`) do. `get_is_capture_mode()` is true while a CUDA-graph runner
//! captures, so it holds for decode (and target-verify / draft) batches replayed from a graph
//! and not for eager passes: SGLang's extend (prefill) passes without piecewise graphs, decode
//! batches above `cuda_graph_max_bs`, `disable_cuda_graph`. (Under `--enable-piecewise-cuda-graph`
//! whether the extend capture sets the flag was not read: tpsim leaves extends serial.)
//!
//! Not covered: `glm4_moe.py` (GLM-4.5/4.6) fuses its shared expert on CUDA SM 8.0+ without EP
//! (0.5.8 `Glm4MoeForCausalLM.determine_num_fused_shared_experts`): its fused layout (one kernel set
//! for routed + shared) is not modelled (a lead); DeepSeek-V3/R1's is, in `passes::sgl_fused_shared`
//! (sglstep).
//!
//! **Cost.** The two streams' kernels run at once, but they read the same HBM: the overlap hides
//! what a kernel costs beyond its bytes — the per-kernel fixed cost (`kernel_overhead`: launch
//! gap, prologue, tail) and the fixed costs of the MoE backend — not the bytes. So the block
//! costs its serial kernels (the norm before the fork and the add after the join) plus the
//! longest of: the shared stream's time alone, the routed stream's time alone, and the memory
//! (or FLOP) time of both streams' reads together, which neither stream can beat while sharing
//! the bandwidth. Each stream's time alone is its part of the op's roofline plus its kernels'
//! fixed cost; the split of the roofline between the streams is in proportion to the two parts'
//! roofline at the op's efficiency, so the sum is the serial op's roofline to the bit, and
//! without the overlap the formula gives the serial cost. The fork and the join are graph edges
//! under capture (`wait_stream` records an event that the other stream waits on), no kernel: the
//! join is charged [`CROSS_STREAM_GAP`], the gap between the two streams a profile of this path
//! shows (sglang PR 29142, Kimi-K2.5 NVFP4: "~300 ns cross stream gap"), once per MoE half. Eager
//! (0.4.8 – 0.5.5 / 0.5.2 passes outside graphs) the fork and join are also two host calls
//! (`cudaEventRecord`, `cudaStreamWaitEvent`) each, whose host cost is not measured, so not
//! charged. With an eager host tpsim's launches are unchanged: the host still
//! launches every kernel of both streams one after the other.

use super::{Builder, Pass};
use crate::scenario::accel::GpuVendor;
use crate::scenario::cudagraph_mode::DecodeLaunch;
use crate::scenario::{EngineKind, Scenario};
use tpsim_model::curves::OpClass;
use tpsim_model::llm::{Architecture, LayerWork, ModelSpec, WeightDtype};
use tpsim_model::units::Duration;

/// SGLang's `DUAL_STREAM_TOKEN_THRESHOLD` (`deepseek_v2.py` 0.4.8 – 0.5.5, `qwen2_moe.py` 0.5.2 –
/// 0.5.6, `bailing_moe.py` 0.5.3 – 0.5.6): the most tokens a pass may have to take the dual-stream
/// path where the rule has a threshold.
pub(crate) const DUAL_STREAM_TOKEN_THRESHOLD: u32 = 1024;

/// The gap between the two streams at the join, as a profile of SGLang's dual-stream MoE shows it
/// (sglang PR 29142's description, Kimi-K2.5 NVFP4: "~300 ns cross stream gap").
pub(crate) const CROSS_STREAM_GAP: Duration = Duration::from_ns(300);

/// Kernels of the MoE half that stay on the current stream outside the two branches: the
/// post-attention RMSNorm before the fork and the `final_hidden_states + shared_output` add after
/// the join (two of `tpsim_model::llm::forward::ffn_kernels`'s count).
pub(crate) const SERIAL_KERNELS: u32 = 2;

/// Kernels of the shared expert's MLP on its stream: gate_up GEMM, SiluAndMul, down GEMM (the
/// template's "4 for shared experts (gate_up, act, down, add)" less the add, which follows the
/// join; `tpsim_model::llm::forward::ffn_kernels`).
pub(crate) const SHARED_MLP_KERNELS: u32 = 3;

/// How a model file gates the dual-stream path on a pass (module doc's table).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Gate {
    /// Passes of at most [`DUAL_STREAM_TOKEN_THRESHOLD`] tokens, eager or graph.
    Tokens,
    /// Passes of at most [`DUAL_STREAM_TOKEN_THRESHOLD`] tokens replayed from a CUDA graph.
    TokensCaptured,
    /// Passes replayed from a CUDA graph.
    Captured,
    /// Every pass.
    Always,
}

/// The gate of `arch`'s model file in SGLang `version` (module doc's table); `None`: that release's
/// file runs the shared experts serially (or the version cannot be read).
pub(crate) fn gate(arch: Architecture, version: &str) -> Option<Gate> {
    use Architecture as A;
    let (a, b, c, _) = tpsim_model::sglang_fraction_early::release_post(version)?;
    let v = (a, b, c);
    match arch {
        // families31 (issue #17): Mistral Large 3 runs `deepseek_v2.py`'s `DeepseekV2MoE` (its class
        // subclasses `DeepseekV3ForCausalLM`, `models/mistral_large_3.py`).
        A::DeepseekV2 | A::DeepseekV3 | A::KimiK25 | A::KimiVl | A::DeepseekV32 | A::MistralLarge3 => match v
        {
            _ if v < (0, 4, 8) => None,
            _ if v <= (0, 5, 5) => Some(Gate::Tokens),
            _ => Some(Gate::Captured),
        },
        A::Qwen2Moe | A::Qwen3Next | A::Qwen35Moe => match v {
            _ if v < (0, 5, 2) => None,
            (0, 5, 2) => Some(Gate::Tokens),
            _ if v <= (0, 5, 6) => Some(Gate::TokensCaptured),
            _ => Some(Gate::Captured),
        },
        A::Llama4 if v >= (0, 4, 7) => Some(Gate::Always),
        A::BailingMoeV2 => match v {
            _ if v < (0, 5, 3) => None,
            _ if v <= (0, 5, 6) => Some(Gate::TokensCaptured),
            _ => Some(Gate::Captured),
        },
        // families36 (issue #17): Hy3 (module doc's table).
        A::Hy3 if v >= (0, 5, 11) => Some(Gate::Captured),
        _ => None,
    }
}

/// Whether SGLang fuses `model`'s shared expert into the routed MoE kernel
/// (`determine_num_fused_shared_experts`, module doc): DeepSeek-V3/R1's layout (256 routed, 1
/// shared) on NVIDIA SM 8.0+ without expert parallelism or DeepEP, and not under the
/// `flashinfer_trtllm` MoE runner (sm100moe: `server_args.py` `_handle_moe_kernel_config`, 0.5.2
/// to 0.5.9 wheels, sets `disable_shared_experts_fusion = True` for it and warns "FlashInfer TRTLLM
/// MoE is enabled. --disable-shared-experts-fusion is automatically set.").
pub(crate) fn fused_shared_expert(s: &Scenario, model: &ModelSpec) -> bool {
    fuses_shared_expert(
        model,
        s.hardware.accel.vendor,
        &s.hardware.gpu.compute_capability,
        s.engine.ep_size,
        s.engine.moe_a2a.is_some(),
        s.engine.moe_backend.as_deref(),
    )
}

/// [`fused_shared_expert`] from its inputs, for the scenario resolver (moetable: the fused layer's
/// expert count names SGLang's config file, `scenario::moe_configs`).
pub(crate) fn fuses_shared_expert(
    model: &ModelSpec,
    vendor: GpuVendor,
    compute_capability: &str,
    ep_size: u32,
    a2a: bool,
    moe_backend: Option<&str>,
) -> bool {
    moe_backend != Some("flashinfer_trtllm")
        && model.arch == Architecture::DeepseekV3
        && model
            .moe
            .is_some_and(|m| m.n_routed_experts == 256 && m.n_shared_experts == 1)
        && vendor == GpuVendor::Nvidia
        && tpsim_model::hw::sm_major(compute_capability) >= 8
        && ep_size <= 1
        && !a2a
}

/// Whether MoE layer `l` of `model`, in a pass of `tokens` tokens (`captured`: replayed from a CUDA
/// graph), runs its shared experts on a second stream under `s` (module doc).
pub(crate) fn overlaps(s: &Scenario, model: &ModelSpec, l: &LayerWork, tokens: u32, captured: bool) -> bool {
    if s.engine.kind != EngineKind::Sglang
        || s.hardware.accel.vendor != GpuVendor::Nvidia
        || !l.is_moe
        || l.shared_ffn_bytes.0 == 0
        || tokens == 0
        || s.engine.moe_a2a.is_some()
        || fused_shared_expert(s, model)
    {
        return false;
    }
    let small = tokens <= DUAL_STREAM_TOKEN_THRESHOLD;
    match gate(model.arch, &s.engine.release().version) {
        None => false,
        Some(Gate::Tokens) => small,
        Some(Gate::TokensCaptured) => small && captured,
        Some(Gate::Captured) => captured,
        Some(Gate::Always) => true,
    }
}

/// Kernels SGLang adds on the shared stream of `model`'s MoE layer in `version` beyond the MLP's
/// three: the `Qwen2MoeSparseMoeBlock` gate (`shared_expert_gate` GEMM, sigmoid, multiply:
/// `passes::sgl_qwen3_next`, already in the layer's count) and, from 0.5.3 on, the
/// `hidden_states.clone()` its dual-stream path hands the shared expert (`qwen2_moe.py`
/// `forward_normal_dual_stream`; 0.5.2 passes them as they are). Returns (kernels already counted
/// in `ffn_kernels`, kernels added by the dual-stream path).
pub(crate) fn shared_extra_kernels(model: &ModelSpec, version: &str) -> (u32, u32) {
    if !super::sgl_qwen3_next::shared_gate_arch(model.arch) {
        return (0, 0);
    }
    let clone = tpsim_model::sglang_fraction_early::release_post(version)
        .is_some_and(|(a, b, c, _)| (a, b, c) >= (0, 5, 3));
    (
        super::sgl_qwen3_next::SHARED_EXPERT_GATE_KERNELS,
        u32::from(clone),
    )
}

/// One stream's share of an overlapped MoE half, µs: `mem` the part of the op's roofline (memory
/// or FLOP time) its reads take, `fixed` its kernels' fixed costs.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct StreamWork {
    pub mem: f64,
    pub fixed: f64,
}

/// The overlapped MoE half, µs: the serial kernels' fixed cost `serial` plus the longest of the
/// two streams alone and their rooflines together (module doc). Without overlap the same parts
/// cost `serial + a.mem + a.fixed + b.mem + b.fixed`.
pub(crate) fn overlapped_us(serial: f64, a: StreamWork, b: StreamWork) -> f64 {
    let floor = a.mem + b.mem;
    serial + floor.max(a.mem + a.fixed).max(b.mem + b.fixed)
}

/// The MoE half as `Builder::ffn_time` costs it serially, before its activation quantization:
/// the op's time (roofline plus `kernels` fixed costs plus the backend's fixed cost), its kernel
/// count without the quantization kernels, the backend's fixed cost in µs, the op class and the
/// parts it reads (the always-read part in the dense format, the routed experts in theirs).
pub(super) struct SerialFfn {
    pub time: Duration,
    pub kernels: u32,
    pub backend_fixed_us: f64,
    pub class: OpClass,
    pub parts: [(f64, Option<WeightDtype>); 2],
}

impl Builder<'_> {
    /// The MoE half of layer `l` with its shared experts on a second stream (module doc), its
    /// activation quantization included; `None` where SGLang runs it serially.
    pub(super) fn dual_stream_ffn(&self, pass: &Pass, l: &LayerWork, f: &SerialFfn) -> Option<Duration> {
        // `get_is_capture_mode()`: a pass replayed from a CUDA graph, not one carrying prompt tokens
        // (SGLang's extend passes are eager without piecewise graphs: `decode::prefill_is_eager`).
        let captured = self.launch() == DecodeLaunch::Full && !self.recording.get();
        let tokens = pass.shape.tokens;
        if !overlaps(self.s, pass.model, l, tokens, captured) {
            return None;
        }
        let o = self.rates.kernel_overhead_us;
        let (gate_k, clone_k) = shared_extra_kernels(pass.model, &self.s.engine.release().version);
        let shared_k = SHARED_MLP_KERNELS + gate_k;
        let routed_k = f.kernels.checked_sub(SERIAL_KERNELS + shared_k)?;
        // The op's roofline (memory or FLOP time), split between the streams in proportion to the
        // two parts' rooflines at the op's efficiency (no fixed costs: 0 kernels).
        let roof = (f.time.as_us_f64() - f64::from(f.kernels) * o - f.backend_fixed_us).max(0.0);
        let [(fixed_b, dense), experts] = f.parts;
        let shared_b = (l.shared_ffn_bytes.0 as f64).min(fixed_b);
        // fp8rate: each stream's fp8 / NVFP4 GEMMs at their rate (`passes::gemm_rate`); the router
        // is never quantized, so the fixed part's low-precision FLOPs are the shared experts'.
        let rs = self
            .rates
            .op_time_gemms(
                f.class,
                &[(shared_b, dense)],
                None,
                l.shared_ffn_flops,
                self.dense_low_flops(l.ffn_low_flops),
                0,
            )
            .as_us_f64();
        let rr = self
            .rates
            .op_time_gemms(
                f.class,
                &[(fixed_b - shared_b, dense), experts],
                None,
                (l.ffn_flops - l.shared_ffn_flops).max(0.0),
                self.expert_low_flops(l),
                0,
            )
            .as_us_f64();
        let share = if rs + rr > 0.0 { rs / (rs + rr) } else { 0.0 };
        // Activation quantization: the shared experts' on their stream, the rest on the routed one.
        let (qk_a, qk_b) = (
            l.shared_quant_kernels,
            l.ffn_quant_kernels.saturating_sub(l.shared_quant_kernels),
        );
        let q_a = self.quant_time(l.shared_quant_bytes.0, qk_a).as_us_f64();
        let q_b = self
            .quant_time(l.ffn_quant_bytes.0.saturating_sub(l.shared_quant_bytes.0), qk_b)
            .as_us_f64();
        // The clone of the hidden states (0.5.3+ `qwen2_moe.py`): read and written once.
        let clone_bytes = 2 * u64::from(tokens) * pass.model.hidden * pass.model.activation_bytes();
        let clone = if clone_k > 0 {
            self.rates
                .op_time_for(OpClass::Default, clone_bytes as f64, 0.0, clone_k)
                .as_us_f64()
        } else {
            0.0
        };
        let fixed_a = f64::from(shared_k + qk_a + clone_k) * o;
        let fixed_b = f64::from(routed_k + qk_b) * o + f.backend_fixed_us;
        let a = StreamWork {
            mem: roof * share + (q_a + clone - f64::from(qk_a + clone_k) * o).max(0.0),
            fixed: fixed_a,
        };
        let b = StreamWork {
            mem: roof * (1.0 - share) + (q_b - f64::from(qk_b) * o).max(0.0),
            fixed: fixed_b,
        };
        Some(Duration::from_us_f64(overlapped_us(f64::from(SERIAL_KERNELS) * o, a, b)) + CROSS_STREAM_GAP)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn gates_by_release_as_read() {
        use Architecture as A;
        // deepseek_v2.py: none in 0.4.7, ≤ 1024 tokens 0.4.8 – 0.5.5, capture only from 0.5.6.
        assert_eq!(gate(A::DeepseekV3, "0.4.7"), None);
        assert_eq!(gate(A::DeepseekV3, "0.4.8"), Some(Gate::Tokens));
        assert_eq!(gate(A::KimiK25, "0.5.5"), Some(Gate::Tokens));
        assert_eq!(gate(A::DeepseekV3, "0.5.6"), Some(Gate::Captured));
        // qwen2_moe.py: none in 0.5.1, tokens in 0.5.2, tokens and capture 0.5.3 – 0.5.6.
        assert_eq!(gate(A::Qwen3Next, "0.5.1"), None);
        assert_eq!(gate(A::Qwen3Next, "0.5.2"), Some(Gate::Tokens));
        assert_eq!(gate(A::Qwen2Moe, "0.5.6"), Some(Gate::TokensCaptured));
        assert_eq!(gate(A::Qwen35Moe, "0.5.9"), Some(Gate::Captured));
        assert_eq!(gate(A::Llama4, "0.4.6"), None);
        assert_eq!(gate(A::Llama4, "0.4.7"), Some(Gate::Always));
        assert_eq!(gate(A::BailingMoeV2, "0.5.2"), None);
        assert_eq!(gate(A::BailingMoeV2, "0.5.7.post1"), Some(Gate::Captured));
        // No shared experts or not read.
        assert_eq!(gate(A::MiniMaxM2, "0.5.8"), None);
        assert_eq!(gate(A::Glm4Moe, "0.5.8"), None);
        assert_eq!(gate(A::DeepseekV3, "main"), None);
    }

    use super::super::{Builder, collective_costs, durations};
    use crate::scenario::load_str;
    use std::path::Path;

    /// `model` on 8× H200 (NVLink) under SGLang at TP `tp`, with the extra engine lines `extra`.
    fn scenario(model: &str, tp: u32, extra: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"h200-8x-nvlink\"\n[model]\npreset = \"{model}\"\n[engine]\n\
             name = \"sglang\"\ntp = {tp}\ntrust_remote_code = true\n{extra}\
             [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
        );
        load_str(&text, Path::new("sgl-dual-stream.toml")).expect("scenario")
    }

    /// sm100moe: DeepSeek-V3 (block FP8, 256 routed + 1 shared) at TP 8 under SGLang 0.5.8. On
    /// 8× H200 the shared expert is fused (`determine_num_fused_shared_experts`); on 8× B200 the
    /// engine picks `flashinfer_trtllm` (`server_args.py`: fp8 on SM 10.x), whose
    /// `_handle_moe_kernel_config` sets `disable_shared_experts_fusion`: not fused. Stating
    /// `moe_backend = "triton"` on B200 fuses it again.
    #[test]
    fn trtllm_runner_unfuses_the_deepseek_shared_expert() {
        let at = |hw: &str, extra: &str| {
            let text = format!(
                "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"deepseek-v3\"\n[engine]\n\
                 name = \"sglang\"\nversion = \"0.5.8\"\ntp = 8\ntrust_remote_code = true\n{extra}\
                 [workload]\nconcurrency = 1\nprompt_len = 128\noutput_len = 16\n"
            );
            load_str(&text, Path::new("sgl-dual-stream-b200.toml")).expect("scenario")
        };
        let h200 = at("h200-8x-nvlink", "");
        assert!(fused_shared_expert(&h200, &h200.model));
        let b200 = at("b200-8x-nvlink", "");
        assert_eq!(b200.engine.moe_backend.as_deref(), Some("flashinfer_trtllm"));
        assert!(!fused_shared_expert(&b200, &b200.model));
        let triton = at("b200-8x-nvlink", "moe_backend = \"triton\"\n");
        assert!(fused_shared_expert(&triton, &triton.model));
    }

    /// Layer `layer`'s MoE half of a one-token decode (replayed from a CUDA graph) and of a
    /// one-token extend (eager, never overlapped in 0.5.6+), µs on rank 0.
    fn moe_us(s: &Scenario, layer: usize) -> (f64, f64) {
        let costs = collective_costs(s);
        let mut b = Builder::new(s, &costs);
        let d = b.simulate(1, 64, false).expect("decode");
        let p = b.simulate_prefill(1, 1, false).expect("prefill");
        let us = |g: &crate::exec::TaskGraph, name: &str| durations(g, name)[0].as_us_f64();
        (
            us(&d.graph, &format!("decode: L{layer} moe")),
            us(&p.graph, &format!("prefill: L{layer} moe")),
        )
    }

    /// Qwen3-Next-80B-A3B bf16 at TP 4, one token, SGLang 0.5.8 (`qwen2_moe.py`
    /// `Qwen2MoeSparseMoeBlock.forward`: `get_is_capture_mode()`). The routed stream (8 kernels:
    /// router, top-k and its second kernel, align, w13, act, w2, sum, at 3 µs each, and 10 experts'
    /// shards) is the longest, so the decode's MoE half is the serial one less the shared stream's
    /// own time plus the join's gap; the clone the 0.5.3+ path adds runs on the shared stream and
    /// hides with it. By hand, H200 template: 4.8 TB/s × 0.80 (pcie-nccl-host `mem_efficiency`),
    /// 3 µs per kernel (hopper-sxm `kernel_overhead`): shared expert 3 × 2048 × 512 × 2 B ÷ 4 =
    /// 1,572,864 B → 0.4096 µs, its 3 MLP kernels and 3 gate kernels 18 µs; the gap 0.3 µs.
    /// Serial − overlapped = 18.4096 − 0.3 = 18.1096 µs (± 0.01: times are integer nanoseconds).
    /// The one-token extend is eager: serial in 0.5.8. In 0.5.2 the path takes every pass of
    /// ≤ 1024 tokens, so the extend overlaps as the decode does.
    #[test]
    fn qwen3_next_decode_hides_the_shared_stream() {
        let s = scenario("qwen3-next-80b-a3b", 4, "");
        let (decode, extend) = moe_us(&s, 0);
        let saved = extend - decode;
        assert!(
            (saved - 18.1096).abs() < 0.01,
            "saved {saved} µs ({extend} → {decode})"
        );
        let old = scenario(
            "qwen3-next-80b-a3b",
            4,
            // moetable: 0.5.2 ships no H200 E=512,N=128 file (untuned by default, 15.69 µs a
            // MoE layer more); tuned here so that the comparison is the streams' alone.
            "version = \"0.5.2\"\nmoe_tuned_config = true\n[engine.costs]\nera = \"late-2025\"\n",
        );
        let (d, e) = moe_us(&old, 0);
        // 0.5.2: ≤ 1024 tokens whatever the launch, so the extend overlaps too: both save
        // 18.4096 − 0.3 µs against 0.5.8's serial extend.
        assert!((d - e).abs() < 0.002, "0.5.2: decode {d} µs, extend {e} µs");
        assert!((extend - d - 18.1096).abs() < 0.01, "0.5.2 decode {d} µs");
    }

    /// DeepSeek-V3 (256 routed, 1 shared) fuses its shared expert on SM 9.0 without EP
    /// (`determine_num_fused_shared_experts`): no dual stream, decode = extend. Kimi-K2.5 (384
    /// experts, `KimiK25`) takes the path: its decode is shorter.
    #[test]
    fn fused_deepseek_stays_serial_and_kimi_overlaps() {
        let s = scenario("deepseek-v3", 8, "");
        let (d, e) = moe_us(&s, 3);
        assert!((d - e).abs() < 0.002, "DeepSeek-V3: decode {d} µs, extend {e} µs");
        let k = scenario("kimi-k2.5", 8, "");
        let (d, e) = moe_us(&k, 3);
        assert!(e - d > 9.0, "Kimi-K2.5: decode {d} µs, extend {e} µs");
    }

    #[test]
    fn overlap_is_bounded_by_the_shared_bandwidth() {
        // By hand: shared 2 µs of reads + 4 µs fixed, routed 20 µs + 30 µs, serial 6 µs.
        let a = StreamWork { mem: 2.0, fixed: 4.0 };
        let b = StreamWork {
            mem: 20.0,
            fixed: 30.0,
        };
        // The routed stream alone is longest: 6 + 50 = 56 (serial: 6 + 6 + 50 = 62).
        assert!((overlapped_us(6.0, a, b) - 56.0).abs() < 1e-12);
        // Both streams' reads together are longest when the fixed costs are small: 6 + 22.
        let b2 = StreamWork {
            mem: 20.0,
            fixed: 1.0,
        };
        assert!((overlapped_us(6.0, a, b2) - 28.0).abs() < 1e-12);
    }
}
