//! vLLM start-up parts predicted from the scenario (issue #17 point 5): torch's device total, the
//! weights as vLLM counts them, the profile run's peak activation and non-torch growth. The rules
//! are `tpsim_model::vllm_startup`'s; this file picks their inputs from the scenario.
//! `[engine.observed]` values replace these (see `memory::VllmMeasured`).

use super::vllm_sampler_rule::SamplerRule;
use crate::scenario::Scenario;
use tpsim_model::llm::WeightDtype;
use tpsim_model::llm::{Architecture, KvCacheDtype, LoadGpu, VisionFamily};
use tpsim_model::rope_cache::{RopeRule, rope_cache_tensors};
use tpsim_model::units::Bytes;
use tpsim_model::vllm_nontorch::{
    GroupLinks, PRE_0_18_SM8_BASE_GIB, comm_part_bytes, pre_0_18_sm8_base, snapshot_precedes_dist_init,
};
use tpsim_model::vllm_startup::{
    ProfileShape, cublas_workspace_bytes, encoder_profile_bytes, moe_workspace_bytes, non_torch_growth_pp,
    non_torch_growth_v0_10_1, peak_activation, pp_intermediate_bytes, topk_topp_stack_growth,
};
use tpsim_model::vllm_vit_profile::{QWEN3_VIT_MAX_IMAGE_TOKENS, VitShape, qwen3_vit_forward_peak_bytes};

/// The device total vLLM sizes `gpu_memory_utilization` against (GiB): the GPU preset's
/// `torch_total_gib`, else nvidia-smi's `memory_total_mib` with a note (torch's is smaller by the
/// driver's reserve, e.g. 79.19 against 79.65 GiB on an H100 80 GB).
pub(super) fn torch_total_gib(s: &Scenario) -> (f64, Option<String>) {
    let g = &s.hardware.gpu;
    match g.torch_total_gib {
        Some(t) => (t, None),
        None => (
            g.memory_total_mib as f64 / 1024.0,
            Some(format!(
                "vLLM total memory: the GPU preset has no torch_total_gib (torch.cuda.mem_get_info's total); \
                 nvidia-smi's {} MiB used, which overstates vLLM's budget by the driver's reserve",
                g.memory_total_mib
            )),
        ),
    }
}

/// vLLM's "Model loading took X GiB": the checkpoint's bytes per rank plus the RoPE cos/sin caches
/// built while the model is constructed (`tpsim_model::vllm_startup::rope_cache_bytes`), plus the
/// caching allocator's block rounding (vrows4, [`block_overhead`]).
/// One cache of `max_position_embeddings × head_dim` elements (the partial rotary width where the
/// model rotates part of the head, four times the rows for M-RoPE: `tpsim_model::llm::partial_rotary`) per distinct RoPE (none for Nemotron-H,
/// whose attention has no rotary embedding); Gemma-3 builds two —
/// its sliding layers' plain one and its global layers' linear-scaled one with 8× the rows (the
/// published gemma-3-4b/12b/27b-it configs' `rope_scaling = {rope_type: linear, factor: 8}`; vLLM
/// `models/gemma3.py` gives the sliding layers `rope_local_base_freq` without scaling). MLA models
/// (grok52): the `deepseek_yarn` cache of `original_max_position_embeddings × factor` rows ×
/// `qk_rope_head_dim` in the model dtype, and the DSA indexer's own from 0.13.0
/// (`tpsim_model::rope_cache`).
pub(super) fn weights(s: &Scenario) -> Bytes {
    let ropes = rope_caches(s);
    let rope: u64 = ropes.iter().sum();
    // The checkpoint's share on this rank: the binding pipeline stage's, or at DP attention's
    // split (issue #17; `dp_attention::weights_per_rank`), plus the stage's RoPE cache.
    // Saturating (cfgfuzz): an absurd but valid model (2^20-wide experts, 10^4 layers) has a
    // checkpoint near u64::MAX bytes; the start-up check then refuses it.
    Bytes(
        super::dp_attention::weights_per_rank(s)
            .0
            .saturating_add(rope)
            .saturating_add(block_overhead(s, &ropes))
            .saturating_add(deepstack_buffers(s)),
    )
}

/// vllmmem60 (issue #17): Qwen3-VL's DeepStack input buffers, built with the model
/// (`super::vllm_mm_profile::deepstack_buffer_bytes`), `max_num_batched_tokens` rows each.
fn deepstack_buffers(s: &Scenario) -> u64 {
    let dtype = KvCacheDtype::Auto.bytes(s.model.dtype);
    let tokens = batch_shape(s, torch_total_gib(s).0).0;
    super::vllm_mm_profile::deepstack_buffer_bytes(s, tokens, dtype)
}

/// The RoPE cos/sin caches the model builds, bytes each (see [`weights`]); mem49: the rules per
/// release, LongRoPE's short and long caches included, are `tpsim_model::rope_cache`'s.
fn rope_caches(s: &Scenario) -> Vec<u64> {
    let release = crate::engine_args_versions::release(&s.engine.release().version);
    let dtype = KvCacheDtype::Auto.bytes(s.model.dtype);
    // families27 (issue #17): MiniMax-Text-01 / M1 (vLLM 0.11.0 `minimax_text_01.py`): the model copies
    // `max_model_len` into its config and builds `get_rope(..., max_position=min(max_position_embeddings,
    // max_model_len), dtype=torch.float32)`, kept float32 (`rotary_embedding/base.py`:
    // `cache.to(dtype)`), one instance shared by the softmax layers.
    if s.model.arch == tpsim_model::llm::Architecture::MiniMaxText01 {
        let mut m = s.model.clone();
        let len = s.engine.max_model_len.unwrap_or(s.engine.context_len);
        m.context_len = m.context_len.map(|c| c.min(len));
        return rope_cache_tensors(&m, RopeRule::vllm(release.as_deref()), 4);
    }
    // vgptoss56 (issue #17): gpt-oss asks for a float32 cache too (`models/gpt_oss.py`
    // `OAIAttention.__init__`: `get_rope(..., dtype=torch.float32)`, read in the 0.10.1.1, 0.10.2,
    // 0.11.0, 0.14.1 and 0.19.0 wheels), its YaRN rows `original_max_position_embeddings × factor`
    // = 4,096 × 32 = `max_position_embeddings` (`yarn_scaling_rope.py` `_compute_cos_sin_cache`).
    let dtype = if s.model.arch == tpsim_model::llm::Architecture::GptOss {
        4
    } else {
        dtype
    };
    rope_cache_tensors(&s.model, RopeRule::vllm(release.as_deref()), dtype)
}

/// vrows4 (issue #17): what the caching allocator's blocks hold beyond the tensors' bytes
/// (`tpsim_model::torch_alloc`; vLLM's figure is `memory_allocated()`, which counts whole blocks):
/// a large tensor whose 2 MiB-rounded segment would leave ≤ 1 MiB is given the whole segment. On a
/// plain TP rank only (`ModelSpec::vllm_load_block_overhead`); pipeline stages and DP layouts: 0
/// (their tensor lists are not built). int4 layers are processed by the kernel vLLM picks for the
/// GPU and release (`tpsim_model::llm::Int4Kernel`: Machete on Hopper, Marlin elsewhere on CUDA;
/// w4a16_60: by release, `scenario::vllm_w4a16`).
fn block_overhead(s: &Scenario, ropes: &[u64]) -> u64 {
    let plain_tp = super::pipeline::binding_stage(s).is_none()
        && s.engine.vllm_dp.is_none()
        && s.engine.dp_attention.is_none();
    if plain_tp {
        let dtype = KvCacheDtype::Auto.bytes(s.model.dtype);
        let gpu = match s.hardware.accel.vendor {
            crate::scenario::accel::GpuVendor::Nvidia => LoadGpu::nvidia(&s.hardware.gpu),
            crate::scenario::accel::GpuVendor::Amd => LoadGpu::rocm(&s.hardware.gpu),
        };
        // w4a16_60: the release's int4 kernel rules (Machete / Marlin, AWQ's direct repack ≤ 0.17).
        let gpu = gpu.with_int4_rules(crate::scenario::vllm_w4a16::int4_rules(
            &s.engine.release().version,
        ));
        s.model.vllm_load_block_overhead(s.engine.tp, ropes, dtype, &gpu)
    } else {
        0
    }
}

/// Issue #17 (onlinequant): the caching allocator's peak during one rank's vLLM load when the
/// weights are quantized at load time (`ModelSpec::vllm_load_peak`: the model-dtype weights plus one
/// layer's fp8 copy), with the RoPE caches; `None` without online quantization or off a plain TP
/// rank (pipeline stages and DP layouts have no tensor list).
pub(super) fn online_load_peak(s: &Scenario) -> Option<Bytes> {
    let plain_tp = super::pipeline::binding_stage(s).is_none()
        && s.engine.vllm_dp.is_none()
        && s.engine.dp_attention.is_none();
    if s.model.quantization.online.is_none() || !plain_tp {
        return None;
    }
    let ropes = rope_caches(s);
    let dtype = KvCacheDtype::Auto.bytes(s.model.dtype);
    let gpu = match s.hardware.accel.vendor {
        crate::scenario::accel::GpuVendor::Nvidia => LoadGpu::nvidia(&s.hardware.gpu),
        crate::scenario::accel::GpuVendor::Amd => LoadGpu::rocm(&s.hardware.gpu),
    };
    let gpu = gpu.with_int4_rules(crate::scenario::vllm_w4a16::int4_rules(
        &s.engine.release().version,
    ));
    Some(Bytes(s.model.vllm_load_peak(s.engine.tp, &ropes, dtype, &gpu)))
}

/// `max_num_batched_tokens` and `max_num_seqs`: the scenario's, else vLLM's defaults for the GPU. The
/// serving loop's budget also under V0 (whose own scheduler, prefills apart from decodes, is not
/// modelled); V0's profile run has its own shape (`vllm_v0_kv::batch_shape`).
pub(super) fn batch_shape(s: &Scenario, total_gib: f64) -> (u64, u64) {
    // vllmchunk59: the defaults by release and GPU, capped as the release caps them; a budget below
    // a given max_num_seqs is refused when the scenario is resolved.
    crate::scenario::vllm_shape(
        &s.hardware.gpu,
        total_gib,
        (&s.engine.release().version, s.engine.v0.is_some()),
        (s.engine.max_num_batched_tokens, s.engine.max_num_seqs),
        s.engine.context_len,
    )
}

/// The profile run's peak activation (`tpsim_model::vllm_startup::peak_activation`), or `None`
/// when the engine preset lacks the coefficients. vllmkv (issue #17): when the binding pipeline
/// stage is not the first, plus the buffers it receives its input into
/// (`tpsim_model::vllm_startup::pp_intermediate_bytes`), alive through the sampler.
pub(super) fn activation(s: &Scenario, total_gib: f64) -> Option<Bytes> {
    let p = s.engine.costs.vllm_startup?;
    // vllmv0mem: V0's profile run uses V0's defaults (`vllm_v0_kv::batch_shape`).
    let (tokens, seqs) = match &s.engine.v0 {
        Some(v0) => super::vllm_v0_kv::batch_shape(s, v0),
        None => batch_shape(s, total_gib),
    };
    let dtype = KvCacheDtype::Auto.bytes(s.model.dtype);
    // vrows3 (issue #17 point 5): vLLM ≤ 0.12 sorts the logits in its dummy sampler; installkind:
    // 0.9.0 – 0.11.0 with FlashInfer installed samples through FlashInfer instead.
    // vllmv0mem: V0's sampler (`model_executor/layers/sampler.py` `_apply_top_k_top_p`) sorts the
    // logits in every release; the V1 FlashInfer path does not exist there.
    let rule = match super::vllm_sampler_rule::rule(s) {
        _ if s.engine.v0.is_some() => tpsim_model::vllm_sort_sampler::peak_activation_sorting,
        SamplerRule::Sort => tpsim_model::vllm_sort_sampler::peak_activation_sorting,
        SamplerRule::FlashInfer => tpsim_model::vllm_flashinfer_sampler::peak_activation_flashinfer,
        SamplerRule::InPlace => peak_activation,
        // vllmsampler: 0.21 on samples the dummy batch through FlashInfer, then the Triton filter.
        SamplerRule::FlashInferThenInPlace => {
            tpsim_model::vllm_flashinfer_sampler::peak_activation_flashinfer_then_native
        }
    };
    let received = match super::pipeline::binding_stage(s) {
        Some(st) if st.index > 0 => pp_intermediate_bytes(tokens, s.model.hidden, dtype),
        _ => 0,
    };
    // hybpage53 (issue #18): the Qwen3-VL encoder's own forward runs first and can be the peak.
    let encoder_forward = if s.engine.v0.is_none() {
        qwen3_vit_forward_bytes(s, tokens, dtype)
    } else {
        0
    };
    let encoder_peak = Bytes(encoder_forward + cublas_workspace_bytes(s.hardware.gpu.sm_major()));
    let shape = ProfileShape {
        max_num_batched_tokens: tokens,
        max_num_seqs: seqs,
        hidden: s.model.hidden,
        // The dense MLP's share on this rank (column-parallel gate_up / row-parallel down).
        mlp_intermediate: s.model.dense_intermediate / u64::from(s.engine.tp.max(1)),
        // phi2 (issue #17): Phi's MLP is fc1 → GELU → fc2, not gated; families13: StarCoder2's
        // c_fc → GELU → c_proj likewise (`models/starcoder2.py`).
        // families18: Arcee's up_proj → ReLU² → down_proj likewise (`models/arcee.py`).
        // families21: Apertus's up_proj → xIELU → down_proj likewise (`models/apertus.py`).
        mlp_gated: !matches!(
            s.model.arch,
            Architecture::Phi | Architecture::Starcoder2 | Architecture::Arcee | Architecture::Apertus
        ),
        vocab: s.model.vocab,
        dtype_bytes: dtype,
        sm_count: u64::from(s.hardware.gpu.sm_count),
        encoder_bytes: encoder_bytes(s, tokens, dtype),
        moe_workspace: moe_workspace(s, tokens, dtype),
        cublas_workspace: cublas_workspace_bytes(s.hardware.gpu.sm_major()),
    };
    // vllmmem60: before 0.14.0 the fused-MoE workspace is freed after each layer
    // (`super::vllm_mm_profile::moe_workspace_transient`): it joins the forward pass's moment (the
    // four residual-stream tensors and the dense MLP of `forward_peak_bytes`) instead of staying
    // through the sampler.
    let decoder_peak = if super::vllm_mm_profile::moe_workspace_transient(s) {
        let kept = ProfileShape {
            moe_workspace: 0,
            ..shape
        };
        let layer = tpsim_model::vllm_startup::forward_peak_bytes(&shape)
            + shape.moe_workspace
            + shape.encoder_bytes
            + shape.cublas_workspace;
        rule(&p, &kept).max(Bytes(layer))
    } else {
        rule(&p, &shape)
    };
    let peak = if encoder_forward > 0 {
        decoder_peak.max(encoder_peak)
    } else {
        decoder_peak
    };
    Some(Bytes(received) + peak)
}

/// hybpage53 (issue #18): bytes alive at the widest moment of the Qwen3-VL vision tower's forward in
/// vLLM's profile run (`tpsim_model::vllm_vit_profile`): `qwen3_vit_items` dummy images of
/// [`QWEN3_VIT_MAX_IMAGE_TOKENS`] tokens in one batch, the MLP sharded over tp. 0 for other towers (their forward
/// peaks are not modelled) and text-only models.
pub(super) fn qwen3_vit_forward_bytes(s: &Scenario, budget: u64, dtype: u64) -> u64 {
    match s.model.vision {
        Some(v) if v.family == VisionFamily::Qwen3Vit => qwen3_vit_forward_peak_bytes(&VitShape {
            // vllmmem60: 0.11.0 – 0.12.x run the encoder on the dummy video instead.
            tokens: super::vllm_mm_profile::qwen3vl_video_forward_tokens(s, budget)
                .unwrap_or(qwen3_vit_items(budget) * QWEN3_VIT_MAX_IMAGE_TOKENS),
            merge: v.merge,
            // `VisionTower::temporal_patch` of this family already counts the 3 input channels.
            patch_values: v.temporal_patch * v.patch * v.patch,
            hidden: v.hidden,
            intermediate: v.intermediate,
            tp: u64::from(s.engine.tp.max(1)),
            dtype_bytes: dtype,
        }),
        _ => 0,
    }
}

/// What the multimodal encoder profile leaves alive through the decoder's dummy pass
/// (`tpsim_model::vllm_startup::encoder_profile_bytes`): for any vision model, one
/// `budget × text_hidden` copy of encoder outputs in the model dtype, the encoder budget being
/// `max_num_batched_tokens`; for Gemma-3's SigLIP also the dummy batch's pixels: 896-pixel images
/// (the preset's 64 × 64 patch grid × 14-pixel patches) of 256 tokens each (`mm_tokens_per_image`),
/// `budget // 256` of them, in the model dtype. Other towers' pixels: not modelled (Pixtral's two
/// 1540-pixel dummies would add 0.03 GiB). hybpage53: the Qwen3-VL tower's batch of images of the
/// maximum feature size (pixels and outputs, below).
///
/// vLLM 0.11.0's `profile_run` expands EACH item's output to `budget` rows; for Gemma-3 that is 32
/// copies (1.9 GiB). vLLM 0.19.0's `profile_run` stores each item's own output
/// (`encoder_cache["tmp_{i}"]`), `items × tokens per item` ≈ one budget's worth in all, which the
/// 0.19 rows agree with (engine-memory.tsv line 17: 3.94 GiB peak in all).
fn encoder_bytes(s: &Scenario, budget: u64, dtype: u64) -> u64 {
    // vllmmem60: 0.11.0 – 0.12.x profile Qwen3-VL with a video expanded to the encoder budget.
    if let Some(b) = super::vllm_mm_profile::qwen3vl_video_leftovers(s, budget, dtype) {
        return b;
    }
    match s.model.vision {
        Some(v) if s.model.arch == Architecture::KimiVl => moonvit_profile_bytes(&v, budget, dtype),
        Some(v) if v.family == VisionFamily::Siglip && v.pos_emb_cells > 0 => {
            let side = (v.pos_emb_cells as f64).sqrt().round() as u64 * v.patch;
            let tokens_per_image = 256;
            encoder_profile_bytes(
                budget / tokens_per_image,
                3 * side * side * dtype,
                budget,
                v.text_hidden,
                dtype,
            )
        }
        // hybpage53: the Qwen3-VL tower's dummy batch holds `qwen3_vit_items` images of the maximum
        // feature size, their pixels in the model dtype and their outputs, `text_hidden` × (1 + the
        // DeepStack mergers) wide (`Qwen3_VisionTransformer.forward` concatenates them).
        Some(v) if v.family == VisionFamily::Qwen3Vit => {
            let patches = QWEN3_VIT_MAX_IMAGE_TOKENS * v.merge;
            encoder_profile_bytes(
                qwen3_vit_items(budget),
                patches * v.temporal_patch * v.patch * v.patch * dtype,
                qwen3_vit_items(budget) * QWEN3_VIT_MAX_IMAGE_TOKENS,
                v.text_hidden * (1 + v.deepstack_mergers),
                dtype,
            )
        }
        Some(v) => encoder_profile_bytes(0, 0, budget, v.text_hidden, dtype),
        None => 0,
    }
}

/// hybpage53: images in the Qwen3-VL encoder's profile batch: the encoder budget, max(`budget` =
/// `max_num_batched_tokens`, the largest item's tokens), over the largest item's tokens
/// (`multimodal/encoder_budget.py`: `mm_max_items_per_batch`; at least one).
fn qwen3_vit_items(budget: u64) -> u64 {
    (budget / QWEN3_VIT_MAX_IMAGE_TOKENS).max(1)
}

/// The profile run's non-torch growth (`tpsim_model::vllm_startup::non_torch_growth_pp`: vllmkv,
/// line 24's 0.07 GiB base at pp > 1), or the
/// preset's `non_torch_memory` alone without the coefficients. vllmrows (issue #17): plus the
/// local-memory reserve that the dummy sampler's Triton top-k/top-p kernel adds when its stack
/// frame for this vocabulary exceeds CUDA's default (`tpsim_model::vllm_startup::
/// topk_topp_stack_growth`; granite's odd vocabularies on Hopper); not where the dummy sampler only
/// sorts (vLLM ≤ 0.16) or only goes through FlashInfer (vllmsampler: 0.9 – 0.20). vmemtp57: plus
/// FlashInfer's allreduce-fusion workspace where vLLM builds it (`super::vllm_fi_workspace`).
/// nontorch61: the comm part by NCCL transport and release window
/// (`tpsim_model::vllm_nontorch::comm_part_bytes`, `group_links`, `dist_init_in_window`).
pub(super) fn non_torch(s: &Scenario) -> Bytes {
    match s.engine.costs.vllm_startup {
        Some(p) => {
            let triton = matches!(
                super::vllm_sampler_rule::rule(s),
                SamplerRule::InPlace | SamplerRule::FlashInferThenInPlace
            );
            let stack = if !triton {
                Bytes(0)
            } else {
                topk_topp_stack_growth(
                    s.hardware.gpu.sm_major(),
                    u64::from(s.hardware.gpu.sm_count),
                    s.model.vocab,
                )
            };
            let growth = if is_v0_10_1(s) {
                non_torch_growth_v0_10_1(&p, s.engine.tp, s.engine.pp)
            } else {
                // nontorch61: the comm part by transport and by the release's snapshot position.
                let base = non_torch_growth_pp(&p, 1, s.engine.pp);
                let fitted = non_torch_growth_pp(&p, s.engine.tp, s.engine.pp).0 - base.0;
                // vllmmem63: Ampere / Ada before 0.18 measure their own single-GPU base.
                let base = if s.engine.pp <= 1 && sm8_base_applies(s) {
                    Bytes::from_gib_f64(PRE_0_18_SM8_BASE_GIB)
                } else {
                    base
                };
                base + Bytes(comm_part_bytes(
                    fitted,
                    s.engine.tp,
                    group_links(s),
                    dist_init_in_window(s),
                ))
            };
            // vmemtp57: FlashInfer's allreduce-fusion workspace (NVSwitch Hopper / Blackwell, ≥ 0.17).
            let tokens = batch_shape(s, torch_total_gib(s).0).0;
            growth + stack + Bytes(super::vllm_fi_workspace::bytes(s, tokens))
        }
        None => s.engine.costs.non_torch_memory.unwrap_or(Bytes(0)),
    }
}

/// nontorch61 (issue #17): how the scenario's TP group is connected — NCCL's ring over P2P on every
/// hop (`crate::comm::Comm`'s hop transports) and whether vLLM's custom allreduce is on (the
/// scenario's resolved `engine.allreduce`, `crate::scenario::allreduce_default`).
///
/// enginemem64: and the channels its NCCL communicator runs (`RingGraph::comm_channels`, tpsim's port
/// of NCCL's search), which size the communicator's initialisation pages.
fn group_links(s: &Scenario) -> GroupLinks {
    if s.engine.tp <= 1 {
        return GroupLinks {
            p2p: true,
            custom_ar: s.engine.allreduce == crate::scenario::AllreduceBackend::Custom,
            channels: 1,
        };
    }
    let comm = crate::comm::Comm::new(&s.hardware, s.engine.tp as usize, &s.engine.env);
    let p2p = comm
        .hop_transports
        .iter()
        .all(|&t| t == tpsim_model::hw::Transport::P2p);
    GroupLinks {
        p2p,
        custom_ar: s.engine.allreduce == crate::scenario::AllreduceBackend::Custom,
        channels: comm.graph.comm_channels,
    }
}

/// nontorch61: whether the release takes its memory snapshot before the distributed init
/// (`tpsim_model::vllm_nontorch::snapshot_precedes_dist_init`: vLLM before 0.11.0); false for an
/// unparsed version and for the V0 engine (its own rules, `vllm_v0_kv`).
fn dist_init_in_window(s: &Scenario) -> bool {
    s.engine.v0.is_none()
        && crate::scenario::flashinfer_sampler::triple(&s.engine.release().version)
            .is_some_and(snapshot_precedes_dist_init)
}

/// vllmmem63 (issue #17): whether the single-GPU base is the Ampere / Ada figure measured before
/// vLLM 0.18 (`tpsim_model::vllm_nontorch::pre_0_18_sm8_base`); false for the V0 engine and an
/// unparsed version.
fn sm8_base_applies(s: &Scenario) -> bool {
    s.engine.v0.is_none()
        && crate::scenario::flashinfer_sampler::triple(&s.engine.release().version)
            .is_some_and(|v| pre_0_18_sm8_base(v, s.hardware.gpu.sm_major()))
}

/// vllmold52 (issue #17): whether the scenario runs vLLM 0.10.1.x's V1 engine, whose profile run's
/// non-torch growth is measured apart (`tpsim_model::vllm_startup::V0_10_1_NON_TORCH_GIB`); the V0
/// engine has its own rules (`vllm_v0_kv`).
fn is_v0_10_1(s: &Scenario) -> bool {
    s.engine.kind == crate::scenario::EngineKind::Vllm
        && s.engine.v0.is_none()
        && crate::scenario::flashinfer_sampler::triple(&s.engine.release().version) == Some([0, 10, 1])
}

/// vllmold52: the plan's note where the 0.10.1.x figures are used: measured on one host (A100, NCCL
/// over SHM), extrapolated elsewhere.
pub(super) fn non_torch_note(s: &Scenario) -> Option<String> {
    (is_v0_10_1(s)
        && s.engine.costs.vllm_startup.is_some()
        && s.engine.observed.as_ref().and_then(|o| o.non_torch_gib).is_none())
    .then(|| {
        "vLLM 0.10.1.x: the profile run's non-torch growth is the 0.0175 GiB (+0.119 GiB at tp > 1) measured \
         on A100s whose NCCL ran over SHM (engine-memory.tsv lines 64-67); other GPUs and P2P/NVLink groups \
         are extrapolated"
            .to_string()
    })
}

/// vrows2 (issue #17): what Kimi-VL's encoder profile leaves alive (vLLM 0.19.0 `profile_run` with
/// `models/kimi_vl.py` and `models/moonvit.py`):
/// - the dummy batch (`_get_mm_dummy_batch`, referenced until `profile_run` returns): `items` copies
///   of one 1024 × 1024 dummy image (`MaxImageTokenMeta`), its 14-pixel patches in the model dtype
///   (`InputProcessingContext._postprocess_output` casts floating outputs), after the processor
///   scales it to `in_token_limit` = 4096 patches (KimiVLImageProcessor's config, as a public copy
///   of Kimi-VL-A3B-Instruct's lists it: find_string id 68395533418) and pads it to whole 2 × 2
///   merge cells: ⌊1024 × √(4096 / 73²)⌋ = 897 px → 924 px = 66 × 66 patches → 33 × 33 = 1089
///   tokens (`KimiVLProcessingInfo.get_num_image_tokens`);
/// - the encoder outputs, one per item (`encoder_cache["tmp_{i}"]`): `items × tokens × text_hidden`;
/// - MoonViT's `Rope2DPosEmb.precomputed_freqs_cis`, a `cached_property` built on first use:
///   512 × 512 positions × head_dim / 2 complex64 (8 B).
///
/// `items` = the encoder budget (`max_num_batched_tokens`) // tokens per image
/// (`multimodal/encoder_budget.py` `_get_max_items`), at least 1.
fn moonvit_profile_bytes(v: &tpsim_model::llm::VisionTower, budget: u64, dtype: u64) -> u64 {
    const DUMMY_SIDE: f64 = 1024.0;
    const IN_TOKEN_LIMIT: f64 = 4096.0;
    let patch = v.patch.max(1);
    // `merge` counts the patches of one token (2 × 2 = 4): the cell edge is √merge patches.
    let cell = patch * ((v.merge.max(1) as f64).sqrt().round() as u64);
    let per_side = (DUMMY_SIDE as u64 / patch) as f64;
    let side = if per_side * per_side > IN_TOKEN_LIMIT {
        (DUMMY_SIDE * (IN_TOKEN_LIMIT / (per_side * per_side)).sqrt()).floor() as u64
    } else {
        DUMMY_SIDE as u64
    };
    let padded = side.div_ceil(cell) * cell;
    let patches = (padded / patch).pow(2);
    let tokens = (padded / cell).pow(2);
    let items = (budget / tokens).max(1);
    let freqs = 512 * 512 * (v.hidden / v.heads.max(1) / 2) * 8;
    encoder_profile_bytes(
        items,
        patches * 3 * patch * patch * dtype,
        items * tokens,
        v.text_hidden,
        dtype,
    ) + freqs
}

/// vrows2 (issue #17): the fused-MoE workspace of the profile run
/// (`tpsim_model::vllm_startup::moe_workspace_bytes`) when the routed experts take vLLM's
/// unquantized Triton path (bf16/fp16/fp32 experts); quantized experts (fp8, mxfp4, int4, …) run
/// other kernels — gpt-oss's mxfp4 on Hopper a monolithic Triton kernel without this workspace
/// (engine-memory.tsv lines 30-31 show none) — and are not modelled (0).
fn moe_workspace(s: &Scenario, tokens: u64, dtype: u64) -> u64 {
    let Some(moe) = &s.model.moe else {
        return 0;
    };
    let q = &s.model.quantization;
    let experts = q.experts.as_ref().unwrap_or(&q.weights).dtype;
    if !matches!(experts, WeightDtype::Bf16 | WeightDtype::Fp16 | WeightDtype::Fp32) {
        return 0;
    }
    let inter = moe.moe_intermediate / u64::from(s.engine.tp.max(1));
    moe_workspace_bytes(tokens, moe.num_experts_per_tok, inter, s.model.hidden, dtype)
}
