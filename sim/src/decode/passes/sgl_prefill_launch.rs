//! pcglaunch18 (issue #18): the host launches of SGLang's prefill (extend) forward per decoder
//! layer, eager and under `--enable-piecewise-cuda-graph` (PCG), read from the PyPI wheels.
//!
//! **Eager.** tpsim's layer template (`tpsim_model::llm::forward::attention_kernels`,
//! `ffn_kernels`) counts one launch per modelled module. SGLang's eager extend launches these too:
//! - **Activation quantization of per-tensor / per-channel FP8 linears.** Block-FP8 GEMMs count
//!   theirs already (`llm::act_quant`). A non-block FP8 linear on a GPU with FP8 tensor cores runs
//!   `apply_fp8_linear` (0.5.5 – 0.5.8 `layers/quantization/fp8_utils.py`; `Fp8LinearMethod.apply`
//!   in `fp8.py` for `--quantization fp8`, `ModelOptFp8LinearMethod.apply` in `modelopt_quant.py`).
//!   Its CUDA path quantizes the input first: with a static scale `static_quant_fp8` (one Triton
//!   kernel, `fp8_kernel.py`), without one `sglang_per_token_quant_fp8` (one `sgl_per_token_quant_fp8`
//!   kernel). Then `fp8_scaled_mm`. So one more launch per distinct linear: a GQA layer's
//!   `qkv_proj`, `o_proj`, and a dense MLP's `gate_up_proj`, `down_proj`. Not counted: MLA and the
//!   fused MoE on per-tensor FP8 (not read), and GPUs below SM 8.9, which run FP8 weight-only
//!   through Marlin (`online_quant`), quantizing no activations.
//! - **A second `kv_b_proj`** in SGLang 0.5.6.x's un-absorbed MLA extend (ttft63,
//!   `passes::sgl_mla_kv_b`).
//! - **The KV-cache store** (`layer_kernels::kv_store_kernels`: 2 index copies up to 0.5.7, one
//!   `store_cache` from 0.5.8, one for MLA). The decode passes cost it on the GPU only.
//! - **The q copy** of a GQA attention: FA3's `forward_extend` and FlashInfer's ragged prefill call
//!   `q.contiguous()` (q is a column slice of `qkv.split`, `models/llama.py`): 1. Triton's
//!   `forward_extend` copies `k` and `v` instead (`k.contiguous()`, `v.contiguous()`): 2.
//!   `trtllm_mha` (c1llama18, 0.5.5 `trtllm_mha_backend.py` `forward_extend`): the KV store,
//!   `q.contiguous()` (after `q.to(float8_e4m3fn)` with an fp8 cache, which leaves it contiguous)
//!   and `trtllm_batch_context_with_kv_cache`: FA3's count, 1. Other backends were not read:
//!   counted as FA3. MLA passes views: 0 (`trtllm_mla`'s fresh-prompt extend too: the ragged
//!   `trtllm_ragged_attention_deepseek` on the MHA path's k and v).
//!
//! Llama-3.1-8B FP8 at TP 8, 0.5.5 FA3: tpsim's 11 a layer (5 attention + 4 MLP kernels + 2
//! allreduces) + 4 quantizations + 2 stores + 1 q copy = 18, the wheel's count (book,
//! "What runs outside the piecewise graphs (sglattn)").
//!
//! **PCG, by release.** The compiled model is split at the attention op
//! (`sglang.unified_attention_with_output`, `layers/radix_attention.py`) and, in some releases, at
//! the NCCL allreduce (`sglang.inplace_all_reduce`); each piece between splits replays one CUDA
//! graph (`compilation/cuda_piecewise_backend.py`), each split op runs eagerly:
//! - 0.5.3.post3 – 0.5.4: split at the attention only (`compilation/backend.py`); the allreduces
//!   stay inside the pieces;
//! - 0.5.4.post1 – 0.5.5.post3: split at both, and `piecewise_cuda_graph_runner.py` `replay` sets
//!   `tp_group.ca_comm.disabled = True`, so every TP allreduce is NCCL's in-place op: a split;
//! - 0.5.6 – 0.5.6.post2: `SPLIT_OPS` = the attention (and `gdn_with_output`) only, custom
//!   allreduce still disabled (`disable_ca_comm`): the NCCL allreduce is captured;
//! - 0.5.7 – 0.5.9: `inplace_all_reduce` is a split again (0.5.7 `compilation_config.py`
//!   `split_ops`; 0.5.8 `@register_split_op` in `distributed/parallel_state.py`) and custom
//!   allreduce stays on: `GroupCoordinator.all_reduce` takes the custom kernel (an out-of-place
//!   op, captured) when `should_custom_ar` (`custom_all_reduce.py`: world size 2 or full NVLink,
//!   `inp_size < max_size`, `_MAX_CAR_SIZE` 8 MiB on CUDA), else the split in-place NCCL op.
//!
//! So a layer costs the host one replay per split (the piece after it), the attention op's
//! launches (the KV store, the q copy, the kernel and the op's `output.copy_(ret)`: Llama on FA3
//! 5 in 0.5.5, 4 from 0.5.8; MLA 3) and each split allreduce (one NCCL call). Each launch and replay
//! costs `launch_overhead` (an allreduce the larger of it and `nccl_eager_launch`, as eager).
//! Gated-DeltaNet layers split at `gdn_with_output` from 0.5.6 (one replay + the layer's modelled
//! kernels). The per-forward splits (the embedding's allreduce, the first piece) are not counted.

use crate::decode::DecodeError;
use crate::exec::{Category, Task, TaskGraph, TaskId};
use crate::scenario::cudagraph_mode::DecodeLaunch;
use crate::scenario::{AllreduceBackend, EngineKind, Scenario, accel::GpuVendor};
use tpsim_model::llm::{Attention, LayerWork, Mixer, ModelSpec, WeightDtype};
use tpsim_model::units::Duration;

/// `_MAX_CAR_SIZE` on CUDA (SGLang 0.5.7 / 0.5.8 `distributed/device_communicators/custom_all_reduce.py`).
const CUSTOM_AR_MAX_BYTES: u64 = 8192 * 1024;

/// Where an SGLang release splits its piecewise graphs at the TP allreduce (module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum AllreduceSplit {
    /// Captured inside the pieces (0.5.3.post3 – 0.5.4, 0.5.6.x).
    Never,
    /// Every allreduce, custom allreduce disabled during replay (0.5.4.post1 – 0.5.5.x).
    Always,
    /// The allreduces the custom kernel does not take (0.5.7+).
    UnlessCustom,
}

/// The release's rule (module doc); an unversioned scenario gets the newest read (0.5.9).
pub(crate) fn allreduce_split(version: &str) -> AllreduceSplit {
    let r = crate::engine_args_versions::release(version).unwrap_or_else(|| vec![0, 5, 9]);
    // `release` drops a ".postN" tail: 0.5.4.post1 is the first with the allreduce split.
    let post = version.contains(".post");
    if r < vec![0, 5, 4] || (r == vec![0, 5, 4] && !post) {
        AllreduceSplit::Never
    } else if r < vec![0, 5, 6] {
        AllreduceSplit::Always
    } else if r < vec![0, 5, 7] {
        AllreduceSplit::Never
    } else {
        AllreduceSplit::UnlessCustom
    }
}

/// Whether a TP allreduce of `bytes` is a split op of the piecewise graphs under `s`.
pub(crate) fn allreduce_is_split(s: &Scenario, bytes: u64) -> bool {
    if s.engine.tp <= 1 {
        return false;
    }
    match allreduce_split(&s.engine.release().version) {
        AllreduceSplit::Never => false,
        AllreduceSplit::Always => true,
        AllreduceSplit::UnlessCustom => {
            !(s.engine.allreduce == AllreduceBackend::Custom && bytes < CUSTOM_AR_MAX_BYTES)
        }
    }
}

/// Whether the dense linears of `model` run `apply_fp8_linear` with an activation quantization
/// of their own on `s`'s GPU (per-tensor or per-channel FP8, not block, FP8 tensor cores).
pub(crate) fn per_tensor_fp8(s: &Scenario, model: &ModelSpec) -> bool {
    let w = model.quantization.weights;
    let sm = tpsim_model::hw::sm_version(&s.hardware.gpu.compute_capability);
    w.dtype == WeightDtype::Fp8
        && w.block_size.is_none()
        && s.hardware.accel.vendor == GpuVendor::Nvidia
        && sm >= tpsim_model::llm::online_quant::FP8_TENSOR_CORE_SM
}

/// The copies SGLang's attention backend makes of a GQA layer's q (or k and v) before its extend
/// kernel (module doc); 0 for MLA.
fn q_copies(s: &Scenario, model: &ModelSpec) -> u32 {
    if matches!(model.attention, Attention::Mla { .. }) {
        return 0;
    }
    match s.engine.attention_backend.as_deref() {
        Some("triton") => 2,
        _ => 1,
    }
}

fn softmax(l: &LayerWork) -> bool {
    l.attn_kernels > 0 && !matches!(l.mixer, Mixer::Linear | Mixer::Absent)
}

/// Launches SGLang's eager extend adds to layer `l`'s attention half and FFN half beyond the
/// modelled kernels (module doc); `store`: the KV-store kernels a full-attention layer launches
/// (`layer_kernels::kv_store_kernels`).
pub(crate) fn eager_extra(s: &Scenario, model: &ModelSpec, l: &LayerWork, store: u32) -> (u32, u32) {
    if s.engine.kind != EngineKind::Sglang {
        return (0, 0);
    }
    let quant = per_tensor_fp8(s, model) && !matches!(model.attention, Attention::Mla { .. });
    let attn = if softmax(l) {
        super::layer_kernels::layer_store_kernels(l, store)
            + q_copies(s, model)
            + 2 * u32::from(quant)
            // ttft63: 0.5.6.x's MLA extend runs `kv_b_proj` twice (`passes::sgl_mla_kv_b`).
            + super::sgl_mla_kv_b::extra_launches(s, model, l)
    } else {
        // sglprefill61: Qwen3-Next's Gated DeltaNet copies before 0.5.10 (`passes::sgl_gdn_prefill`).
        super::sgl_gdn_prefill::eager_extend_extra(s, model, l)
    };
    let ffn = if l.ffn_kernels > 0 && !l.is_moe && quant {
        2
    } else {
        0
    };
    (attn, ffn)
}

/// The host launches of layer `l` under SGLang's piecewise graphs before its attention kernel
/// runs: the replay of the piece that ends at the attention op and the op's own launches (module
/// doc); 0 for a layer with no split op.
pub(crate) fn pcg_attention_launches(s: &Scenario, model: &ModelSpec, l: &LayerWork, store: u32) -> u32 {
    if l.attn_kernels == 0 {
        return 0;
    }
    if softmax(l) {
        // The KV store, the q copy, the kernel and the op's output copy.
        let stores = super::layer_kernels::layer_store_kernels(l, store);
        1 + stores + q_copies(s, model) + 1 + 1
    } else if l.mixer == Mixer::Linear
        && crate::engine_args_versions::release(&s.engine.release().version)
            .is_none_or(|r| r >= vec![0, 5, 6])
    {
        // `gdn_with_output` (0.5.6 `SPLIT_OPS`): one replay and the layer's modelled kernels.
        1 + l.attn_kernels
    } else {
        0
    }
}

impl super::Builder<'_> {
    /// Whether the pass being built is an SGLang prefill (extend, no decodes in it).
    fn sgl_prefill(&self, pass: &super::Pass) -> bool {
        self.s.engine.kind == EngineKind::Sglang && self.recording.get() && pass.shape.ctx == 0
    }

    /// Whether the pass being built is an SGLang prefill replaying piecewise graphs.
    fn sgl_pcg(&self, pass: &super::Pass) -> bool {
        self.sgl_prefill(pass)
            && self.s.engine.enable_piecewise_cuda_graph
            && self.launch() != DecodeLaunch::Eager
    }

    /// [`eager_extra`] in an eager SGLang prefill; c1llama18: `sgl_decode_launch::eager_extra` in
    /// a decode step (one token a sequence) under `--disable-cuda-graph`; (0, 0) otherwise.
    pub(super) fn sgl_eager_extra(&self, pass: &super::Pass, l: &LayerWork) -> (u32, u32) {
        if self.launch() != DecodeLaunch::Eager || self.s.engine.kind != EngineKind::Sglang {
            (0, 0)
        } else if self.sgl_prefill(pass) {
            eager_extra(self.s, pass.model, l, pass.kv_store)
        } else if !self.s.engine.cuda_graph
            && !self.recording.get()
            && pass.shape.ctx > 0
            && pass.shape.tokens == pass.shape.seqs
        {
            super::sgl_decode_launch::eager_extra(self.s, pass.model, l, pass.shape.tokens)
        } else {
            (0, 0)
        }
    }

    /// [`pcg_attention_launches`] in an SGLang prefill under piecewise graphs; 0 otherwise.
    pub(super) fn sgl_pcg_attention(&self, pass: &super::Pass, l: &LayerWork) -> u32 {
        if self.sgl_pcg(pass) {
            pcg_attention_launches(self.s, pass.model, l, pass.kv_store)
        } else {
            0
        }
    }

    /// Each rank's host task of `launches` launches at `launch_overhead` (none for 0).
    pub(super) fn sgl_pcg_launch(
        &self,
        g: &mut TaskGraph,
        name: &str,
        launches: u32,
    ) -> Result<Vec<TaskId>, DecodeError> {
        let cost = self.s.engine.costs.launch_overhead.times(u64::from(launches));
        self.pcg_host_tasks(g, name, launches > 0, cost)
    }

    /// Under piecewise graphs, each rank's launch of a split allreduce (one NCCL call, as eager:
    /// the larger of `launch_overhead` and `nccl_eager_launch`) and the replay of the piece after it.
    pub(super) fn sgl_pcg_allreduce(
        &self,
        g: &mut TaskGraph,
        pass: &super::Pass,
        name: &str,
    ) -> Result<Vec<TaskId>, DecodeError> {
        let on = self.sgl_pcg(pass) && allreduce_is_split(self.s, pass.fp.allreduce_bytes.0);
        let lo = self.s.engine.costs.launch_overhead;
        let cost = lo + lo.max(self.s.hardware.params.nccl_eager_launch);
        self.pcg_host_tasks(g, name, on, cost)
    }

    fn pcg_host_tasks(
        &self,
        g: &mut TaskGraph,
        name: &str,
        on: bool,
        cost: Duration,
    ) -> Result<Vec<TaskId>, DecodeError> {
        if !on {
            return Ok(Vec::new());
        }
        self.launchers
            .iter()
            .map(|&l| {
                g.add(Task::new(format!("launch {name} (sglang piecewise)"), Category::Host, cost).on([l]))
                    .map_err(DecodeError::from)
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::scenario::load_str;
    use std::path::Path;

    fn load(hw: &str, model: &str, engine: &str) -> Scenario {
        let text = format!(
            "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n{engine}\n\
             [workload]\nconcurrency = 1\nprompt_len = 1024\noutput_len = 16\n"
        );
        load_str(&text, Path::new("sgl-prefill-launch.toml")).expect("scenario")
    }

    /// The releases' split rules, each from its wheel (module doc).
    #[test]
    fn allreduce_splits_by_release() {
        use AllreduceSplit::*;
        for (v, want) in [
            ("0.5.3.post3", Never), // compilation/backend.py: ["sglang.unified_attention_with_output"]
            ("0.5.4", Never),
            ("0.5.4.post1", Always), // + "sglang.inplace_all_reduce", ca_comm.disabled = True
            ("0.5.5", Always),
            ("0.5.5.post3", Always),
            ("0.5.6", Never), // SPLIT_OPS: attention, gdn_with_output; disable_ca_comm
            ("0.5.6.post2", Never),
            ("0.5.7", UnlessCustom), // compilation_config.py split_ops + inplace_all_reduce
            ("0.5.8", UnlessCustom), // @register_split_op inplace_all_reduce
            ("0.5.9", UnlessCustom),
        ] {
            assert_eq!(allreduce_split(v), want, "{v}");
        }
    }

    /// Llama-3.1-8B `--quantization fp8` at TP 8 on H200 (FA3), the ttft.tsv row 2 scenario:
    /// eager, 0.5.5: 4 quantizations (qkv_proj, o_proj | gate_up_proj, down_proj) + 2 KV index
    /// copies + 1 q copy = 5 | 2 more than tpsim's 5 + 4 kernels; with the 2 allreduces 18 a layer.
    /// 0.5.8: one `store_cache`, 17. PCG: 0.5.5 one replay + store 2 + q copy + FA3 + output copy
    /// = 6 before the attention, and both allreduces split (1,024 tokens × 4,096 × 2 B = 8 MiB,
    /// custom AR disabled); 0.5.8: 5, and 8 MiB is not under `_MAX_CAR_SIZE`: still split; at 512
    /// tokens (4 MiB) custom AR takes it: captured. 0.5.6: never split.
    #[test]
    fn llama_fp8_tp8_counts() {
        let s = load(
            "h200-8x-nvlink",
            "llama-3.1-8b",
            "version = \"0.5.5\"\ntp = 8\nquantization = \"fp8\"",
        );
        assert_eq!(s.engine.attention_backend.as_deref(), Some("fa3"));
        let store = super::super::layer_kernels::kv_store_kernels(&s, &s.model);
        assert_eq!(store, 2);
        let l = s.model.forward_pass(8, 1024).layers[0];
        assert_eq!((l.attn_kernels, l.ffn_kernels), (5, 4));
        let (a, f) = eager_extra(&s, &s.model, &l, store);
        assert_eq!((a, f), (5, 2));
        assert_eq!(l.attn_kernels + a + l.ffn_kernels + f + 2, 18);
        assert_eq!(pcg_attention_launches(&s, &s.model, &l, store), 6);
        assert!(allreduce_is_split(&s, 8 << 20));
        let s8 = load(
            "h200-8x-nvlink",
            "llama-3.1-8b",
            "version = \"0.5.8\"\ntp = 8\nquantization = \"fp8\"",
        );
        assert_eq!(s8.engine.allreduce, AllreduceBackend::Custom);
        let store8 = super::super::layer_kernels::kv_store_kernels(&s8, &s8.model);
        assert_eq!(eager_extra(&s8, &s8.model, &l, store8), (4, 2));
        assert_eq!(pcg_attention_launches(&s8, &s8.model, &l, store8), 5);
        assert!(allreduce_is_split(&s8, 8 << 20));
        assert!(!allreduce_is_split(&s8, 4 << 20));
        let s6 = load("h200-8x-nvlink", "llama-3.1-8b", "version = \"0.5.6\"\ntp = 8");
        assert!(!allreduce_is_split(&s6, 8 << 20));
        // bf16 weights: no quantization launches.
        let store6 = super::super::layer_kernels::kv_store_kernels(&s6, &s6.model);
        assert_eq!(eager_extra(&s6, &s6.model, &l, store6), (3, 0));
    }

    /// Kimi-K2 / DeepSeek-V3 MLA (block FP8: its quantizations are in the template already):
    /// eager adds the one `set_mla_kv_buffer` store; PCG: a replay, the store, FA3 and the output
    /// copy = 4 before the attention.
    #[test]
    fn mla_counts() {
        let s = load("h200-8x-nvlink", "deepseek-v3", "version = \"0.5.5\"\ntp = 8");
        let store = super::super::layer_kernels::kv_store_kernels(&s, &s.model);
        let l = s.model.forward_pass(8, 1024).layers[3];
        assert!(l.is_moe);
        assert_eq!(eager_extra(&s, &s.model, &l, store), (1, 0));
        assert_eq!(pcg_attention_launches(&s, &s.model, &l, store), 4);
    }
}
