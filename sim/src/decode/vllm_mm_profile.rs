//! vllmmem60 (issue #17): release-dependent parts of vLLM's profile run that engine-memory.tsv lines
//! 51 (vLLM 0.10.2, Qwen3-Next on 2× H200) and 54 (vLLM 0.11.0, Qwen3-VL-30B-A3B on 4× RTX 3090)
//! showed tpsim reading with 0.19.0's code.
//!
//! - **The fused-MoE workspace is a per-layer temporary before 0.14.0.** vLLM 0.10.2 – 0.13.0's
//!   `UnquantizedFusedMoEMethod.forward_cuda` (`fused_moe/layer.py`, from 0.12.0
//!   `unquantized_fused_moe_method.py`) calls `fused_experts` → `fused_moe.py` `fused_experts_impl`,
//!   which allocates `cache13` and `intermediate_cache2` with `torch.empty` on every call: they are
//!   freed when the layer returns, so they add to the forward pass's moment, not to the sampler's.
//!   0.14.0 calls `self.kernel(...)`, the modular kernel whose buffers come from
//!   `v1/worker/workspace.py`'s `WorkspaceManager` (0.13.0 on) and stay for the process, as
//!   `tpsim_model::vllm_startup::peak_activation` counts them (read in the 0.10.2, 0.11.0, 0.12.0,
//!   0.13.0, 0.14.0 and 0.19.0 wheels).
//! - **Qwen3-VL's profile item is a video in 0.11.0 – 0.12.x**, and its output is expanded to the
//!   whole encoder budget. `qwen3_vl.py` `get_max_video_tokens` returns the video's soft tokens ×
//!   12.5 (each frame's "<{timestamp} seconds>" text, the NOTE there), so the video is the modality
//!   with the most tokens, and `v1/worker/gpu_model_runner.py` `profile_run` runs the encoder on one
//!   video "of the maximum feature size" and, since its output is shorter than the budget, stores
//!   `output.new_zeros((encoder_budget, width))` copies of it; the loop variable `output` keeps the
//!   original (a `split` view of the encoder's whole output) alive, and the batch its pixels, until
//!   `profile_run` returns. 0.13.0 drops both the × 12.5 and the expansion (0.11.0, 0.11.1, 0.12.0,
//!   0.13.0 wheels). The video's soft tokens, 12,288, are line 54's logged budget ("Encoder cache will
//!   be initialized with a budget of 153600 tokens, and profiled with 1 video items of the maximum
//!   feature size") ÷ 12.5; they are what `video_smart_resize` allows under the Qwen3-VL video
//!   processor's `longest_edge` 25,165,824 pixels over `temporal_patch_size` 2 × (16 × 2)² pixels a
//!   token (the checkpoint's `video_preprocessor_config.json` was not read: the logged budget is the
//!   source).
//! - **DeepStack buffers count as weights.** `Qwen3VLForConditionalGeneration.__init__` (0.11.0,
//!   0.13.0, 0.19.0) registers `deepstack_num_level` `torch.zeros(max_num_batched_tokens,
//!   text_config.hidden_size)` buffers while the model is built on the device in the model dtype, so
//!   "Model loading took" includes them (line 54: 3 × 2,048 × 2,048 × 2 B = 24 MiB, the 0.023 GiB
//!   tpsim's weights were short of the log).

use crate::scenario::Scenario;
use crate::scenario::flashinfer_sampler::triple;
use tpsim_model::llm::{VisionFamily, VisionTower};

/// The first release whose unquantized fused-MoE workspace outlives the layer (module doc).
pub const MOE_WORKSPACE_KEPT_FROM: [u64; 3] = [0, 14, 0];

/// Releases whose Qwen3-VL profile item is the × 12.5 video, expanded to the budget (module doc):
/// from 0.11.0 (the first with `qwen3_vl.py`) up to, not including, 0.13.0.
pub const QWEN3VL_VIDEO_PROFILE: ([u64; 3], [u64; 3]) = ([0, 11, 0], [0, 13, 0]);

/// The Qwen3-VL dummy video's soft tokens (after the 2 × 2 merger), line 54's logged budget 153,600
/// ÷ 12.5 (module doc).
pub const QWEN3VL_VIDEO_SOFT_TOKENS: u64 = 12_288;

/// `get_max_video_tokens`'s factor for the timestamp text around each video token (0.11.0 – 0.12.x
/// `qwen3_vl.py`: `video_soft_tokens * 12.5`), as the exact ratio 25 / 2.
const VIDEO_TOKEN_FACTOR: (u64, u64) = (25, 2);

fn release(s: &Scenario) -> Option<[u64; 3]> {
    (s.engine.kind == crate::scenario::EngineKind::Vllm && s.engine.v0.is_none())
        .then(|| triple(&s.engine.release().version))
        .flatten()
}

/// Whether this vLLM release frees the unquantized fused-MoE workspace after each layer (before
/// [`MOE_WORKSPACE_KEPT_FROM`]); unknown releases keep 0.19's rule. Not with DP + EP from 0.11.0:
/// there `FusedMoEParallelConfig.use_all2all_kernels` (`dp_size > 1 and use_ep`) gives the layer a
/// `FusedMoEModularKernel`, whose 0.11.0 – 0.13.0 `SharedResizableBuffer`s stay allocated
/// (`fused_moe/modular_kernel.py`); 0.10.2's modular kernel still allocates per call.
pub(super) fn moe_workspace_transient(s: &Scenario) -> bool {
    let all2all = s.engine.vllm_dp.is_some_and(|d| d.dp > 1 && d.ep);
    release(s).is_some_and(|v| v < MOE_WORKSPACE_KEPT_FROM && !(all2all && v >= [0, 11, 0]))
}

/// The Qwen3-VL tower (with or without DeepStack) when this release profiles it with the expanded
/// video (module doc).
fn qwen3vl_video_tower(s: &Scenario) -> Option<VisionTower> {
    let v = s.model.vision?;
    let (from, until) = QWEN3VL_VIDEO_PROFILE;
    (v.family == VisionFamily::Qwen3Vit && release(s).is_some_and(|r| r >= from && r < until)).then_some(v)
}

/// Bytes the 0.11.0 – 0.12.x video profile leaves alive through the decoder's dummy pass and
/// sampler, or `None` where it does not apply. The encoder budget is max(`budget` =
/// `max_num_batched_tokens`, 153,600) (`v1/core/encoder_cache_manager.py` `compute_mm_encoder_budget`,
/// the compute and cache budgets alike), `items` = budget ÷ 153,600 videos; each holds
/// `soft × merge` patches of pixels in the model dtype, one `[soft, width]` output and (the output
/// being shorter than the budget) one `[budget, width]` copy, `width` = `text_hidden × (1 + DeepStack
/// mergers)`. Line 54 (tp 4, bf16, budget 2,048): 49,152 × 1,536 × 2 + 12,288 × 8,192 × 2 + 153,600
/// × 8,192 × 2 = 150,994,944 + 201,326,592 + 2,516,582,400 = 2,868,903,936 B.
pub(super) fn qwen3vl_video_leftovers(s: &Scenario, budget: u64, dtype: u64) -> Option<u64> {
    let v = qwen3vl_video_tower(s)?;
    let (num, den) = VIDEO_TOKEN_FACTOR;
    let item_tokens = QWEN3VL_VIDEO_SOFT_TOKENS * num / den;
    let encoder_budget = budget.max(item_tokens);
    let items = encoder_budget / item_tokens;
    let width = v.text_hidden * (1 + v.deepstack_mergers);
    let pixels = QWEN3VL_VIDEO_SOFT_TOKENS * v.merge * v.temporal_patch * v.patch * v.patch * dtype;
    let output = QWEN3VL_VIDEO_SOFT_TOKENS * width * dtype;
    let expanded = if QWEN3VL_VIDEO_SOFT_TOKENS < encoder_budget {
        encoder_budget * width * dtype
    } else {
        0
    };
    Some(items * (pixels + output + expanded))
}

/// The soft tokens of the dummy item the Qwen3-VL encoder's own forward runs on where the video
/// profile applies (its patches are `× merge`), else `None` (the image rule).
pub(super) fn qwen3vl_video_forward_tokens(s: &Scenario, budget: u64) -> Option<u64> {
    qwen3vl_video_tower(s)?;
    let (num, den) = VIDEO_TOKEN_FACTOR;
    let item_tokens = QWEN3VL_VIDEO_SOFT_TOKENS * num / den;
    Some(budget.max(item_tokens) / item_tokens * QWEN3VL_VIDEO_SOFT_TOKENS)
}

/// The DeepStack input buffers a Qwen3-VL model registers at construction (module doc):
/// `mergers × max_num_batched_tokens × text_hidden × dtype` bytes on every vLLM V1 rank that holds the
/// tower; 0 for other models.
pub(super) fn deepstack_buffer_bytes(s: &Scenario, max_num_batched_tokens: u64, dtype: u64) -> u64 {
    match s.model.vision {
        Some(v) if v.family == VisionFamily::Qwen3Vit && v.deepstack_mergers > 0 && release(s).is_some() => {
            v.deepstack_mergers * max_num_batched_tokens * v.text_hidden * dtype
        }
        _ => 0,
    }
}
