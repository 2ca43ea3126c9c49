//! Issue #17 point 1: the all-to-all MoE path — SGLang 0.5.9 `--moe-a2a-backend deepep` with
//! `--deepep-mode`, and vLLM 0.11's `VLLM_ALL2ALL_BACKEND` — checked and resolved as the engines and
//! DeepEP do, with DeepEP's buffer sizes.
//!
//! SGLang 0.5.9 `server_args.py` `_handle_a2a_moe`: with `deepep` the EP size becomes the TP size
//! (logged), and `deepep_mode = normal` turns CUDA graphs off (logged). `layers/moe/utils.py`
//! `DeepEPMode.resolve`: `auto` runs the normal kernels for batches with an extend (prefill) and the
//! low-latency ones otherwise. Environment (`environ.py`): `SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK`
//! (default 128, at most 1024: `token_dispatcher/deepep.py` asserts it) and
//! `SGLANG_DEEPEP_BF16_DISPATCH` (default false: dispatch in FP8).
//!
//! DeepEP (github deepseek-ai/DeepEP at dd758caf, `csrc/legacy/config.hpp`,
//! `deep_ep/buffers/legacy.py`, `deep_ep/utils/envs.py`) is the library whose limits apply: it needs
//! NVLink inside a node (README "Requirements": "NVLink for intranode communication"), its normal
//! kernels know only the EP sizes of `Buffer.get_dispatch_config` (2, 4, 8, 16, …), and the
//! low-latency layout needs the experts to divide evenly over the ranks (SGLang's
//! `get_deepep_buffer` asserts `num_experts % group.size() == 0`).

use super::{EngineKind, Hardware, ScenarioError};
use std::collections::BTreeMap;
use tpsim_model::llm::{Ffn, ModelSpec};

/// SGLang's `--deepep-mode` (`server_args.py`: `auto`, `normal`, `low_latency`; default `auto`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DeepEpMode {
    Auto,
    Normal,
    LowLatency,
}

impl DeepEpMode {
    fn parse(s: &str) -> Option<Self> {
        match s {
            "auto" => Some(DeepEpMode::Auto),
            "normal" => Some(DeepEpMode::Normal),
            "low_latency" => Some(DeepEpMode::LowLatency),
            _ => None,
        }
    }
    /// Whether the normal (high-throughput) buffers are allocated (`DeepEPMode.enable_normal`).
    pub fn enables_normal(self) -> bool {
        matches!(self, DeepEpMode::Normal | DeepEpMode::Auto)
    }
    /// Whether the low-latency buffer is allocated (`DeepEPMode.enable_low_latency`).
    pub fn enables_low_latency(self) -> bool {
        matches!(self, DeepEpMode::LowLatency | DeepEpMode::Auto)
    }
    /// The kernels a pass runs (`DeepEPMode.resolve(is_extend_in_batch)`): `true` = low latency.
    pub fn low_latency_for(self, extend: bool) -> bool {
        match self {
            DeepEpMode::Auto => !extend,
            DeepEpMode::Normal => false,
            DeepEpMode::LowLatency => true,
        }
    }
}

/// The all-to-all path as resolved (SGLang + DeepEP; the only one costed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MoeA2a {
    pub mode: DeepEpMode,
    /// `SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK` (default 128).
    pub max_dispatch_tokens_per_rank: u64,
    /// `SGLANG_DEEPEP_BF16_DISPATCH`: dispatch in BF16 instead of FP8 (default false).
    pub bf16_dispatch: bool,
}

/// vLLM 0.11 `envs.py` `VLLM_ALL2ALL_BACKEND` choices (default `allgather_reducescatter`).
pub const VLLM_ALL2ALL_BACKENDS: [&str; 6] = [
    "naive",
    "pplx",
    "deepep_high_throughput",
    "deepep_low_latency",
    "allgather_reducescatter",
    "flashinfer_all2allv",
];

/// SGLang `environ.py` `SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK` default.
const DEFAULT_MAX_DISPATCH_TOKENS: u64 = 128;
/// SGLang `token_dispatcher/deepep.py` `_DeepEPDispatcherImplBase.__init__`: asserted upper bound.
const MAX_DISPATCH_TOKENS_LIMIT: u64 = 1024;
/// DeepEP `deep_ep/buffers/legacy.py` `get_dispatch_config` / `get_combine_config`: the EP sizes
/// with a normal-kernel config ("Unsupported number of EP ranks" otherwise).
const DEEPEP_NORMAL_RANKS: [u32; 12] = [2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 144, 160];

/// The keys and environment this module reads.
#[derive(Debug)]
pub struct A2aInput<'a> {
    pub kind: EngineKind,
    pub moe_a2a_backend: Option<&'a str>,
    pub deepep_mode: Option<&'a str>,
    pub all2all_backend: Option<&'a str>,
    pub enable_expert_parallel: bool,
    pub tp: u32,
    /// Issue #17 point 1 (vllmdp): vLLM runs data-parallel on a MoE model (`scenario::vllm_dp`
    /// resolves the backend then).
    pub vllm_dp: bool,
}

/// Resolves the all-to-all path: `Some` for SGLang with `deepep`, `None` for the allreduce path.
/// Takes SGLang's two DeepEP variables out of `env` (before NCCL reads it); turns CUDA graphs off
/// for `deepep_mode = normal`, as SGLang does; pushes what the engine logs to `warnings`.
pub fn resolve(
    a: &A2aInput,
    env: &mut BTreeMap<String, String>,
    hw: &Hardware,
    model: &ModelSpec,
    cuda_graph: &mut bool,
    warnings: &mut Vec<String>,
    invalid: impl Fn(&str, String) -> ScenarioError,
) -> Result<Option<MoeA2a>, ScenarioError> {
    let max_tokens = match env.remove("SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK") {
        None => DEFAULT_MAX_DISPATCH_TOKENS,
        Some(v) => v.trim().parse::<u64>().map_err(|_| {
            invalid(
                "engine.env.SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
                format!("\"{v}\" is not a valid integer value (SGLang's text)"),
            )
        })?,
    };
    let bf16_dispatch = match env.remove("SGLANG_DEEPEP_BF16_DISPATCH") {
        None => false,
        Some(v) => match v.to_ascii_lowercase().as_str() {
            "true" | "1" | "yes" | "y" => true,
            "false" | "0" | "no" | "n" => false,
            _ => {
                return Err(invalid(
                    "engine.env.SGLANG_DEEPEP_BF16_DISPATCH",
                    format!(
                        "\"{v}\" is not a valid boolean value (SGLang's text; expected true/1/yes/y or false/0/no/n)"
                    ),
                ));
            }
        },
    };
    match a.kind {
        EngineKind::Vllm => {
            if a.deepep_mode.is_some() {
                return Err(invalid(
                    "engine.deepep_mode",
                    "an SGLang setting (--deepep-mode): vLLM picks DeepEP's kernels with all2all_backend \
                     (VLLM_ALL2ALL_BACKEND = deepep_high_throughput / deepep_low_latency)"
                        .into(),
                ));
            }
            if let Some(b) = a.all2all_backend {
                if !VLLM_ALL2ALL_BACKENDS.contains(&b) {
                    return Err(invalid(
                        "engine.all2all_backend",
                        format!(
                            "`{b}`: expected one of vLLM 0.11's {}",
                            VLLM_ALL2ALL_BACKENDS.join(", ")
                        ),
                    ));
                }
                // vLLM 0.11 `fused_moe/config.py` `FusedMoEParallelConfig.use_all2all_kernels`:
                // dp_size > 1 and use_ep; under DP on a MoE model `scenario::vllm_dp` uses it.
                if a.vllm_dp {
                    return Ok(None);
                }
                warnings.push(format!(
                    "vLLM uses VLLM_ALL2ALL_BACKEND={b} only with data parallelism and expert parallelism \
                     (FusedMoEParallelConfig.use_all2all_kernels: dp_size > 1 and use_ep); at dp 1{} the MoE \
                     output is all-reduced over the TP group",
                    if a.enable_expert_parallel {
                        ""
                    } else {
                        " and without enable_expert_parallel"
                    }
                ));
            }
            Ok(None)
        }
        EngineKind::Sglang => {
            if a.all2all_backend.is_some() {
                return Err(invalid(
                    "engine.all2all_backend",
                    "a vLLM setting (VLLM_ALL2ALL_BACKEND): with SGLang use moe_a2a_backend and deepep_mode"
                        .into(),
                ));
            }
            let mode = match a.deepep_mode {
                None => DeepEpMode::Auto,
                Some(m) => DeepEpMode::parse(m).ok_or_else(|| {
                    invalid(
                        "engine.deepep_mode",
                        format!("`{m}`: expected one of SGLang's auto, normal, low_latency"),
                    )
                })?,
            };
            if a.moe_a2a_backend != Some("deepep") {
                return Ok(None);
            }
            sglang_deepep(a.tp, mode, max_tokens, hw, model, &invalid)?;
            // SGLang 0.5.9 `_handle_a2a_moe`.
            if mode == DeepEpMode::Normal && *cuda_graph {
                *cuda_graph = false;
                warnings.push("SGLang: \"Cuda graph is disabled because deepep_mode=`normal`\"".into());
            }
            warnings.push(format!(
                "SGLang: \"DeepEP MoE is enabled. The expert parallel size is adjusted to be the same as the tensor \
                 parallel size[{}].\"",
                a.tp
            ));
            Ok(Some(MoeA2a {
                mode,
                max_dispatch_tokens_per_rank: max_tokens,
                bf16_dispatch,
            }))
        }
    }
}

/// The refusals of SGLang's DeepEP path: the engine's and DeepEP's own conditions.
fn sglang_deepep(
    tp: u32,
    mode: DeepEpMode,
    max_tokens: u64,
    hw: &Hardware,
    model: &ModelSpec,
    invalid: &impl Fn(&str, String) -> ScenarioError,
) -> Result<(), ScenarioError> {
    let key = "engine.moe_a2a_backend";
    let Some(n_experts) = model.layers.iter().find_map(|l| match l {
        Ffn::Moe(m) => Some(m.n_routed_experts),
        _ => None,
    }) else {
        return Err(invalid(
            key,
            "`deepep`: expert parallelism needs a MoE model".into(),
        ));
    };
    if !hw.gpu.nvlink {
        // DeepEP's intranode kernels write into peers' memory over NVLink; DeepEP checks the links
        // (`deep_ep/utils/envs.py` `check_nvlink_connections`, NVML's NVLink P2P status) and its README
        // lists NVLink as a requirement. The PCIe-only variant lives on the unreleased `hybrid-ep` branch.
        return Err(invalid(
            key,
            format!(
                "`deepep`: DeepEP requires \"NVLink for intranode communication\" (DeepEP README, Requirements) and \
                 {} has none (its intranode kernels write into peers' memory over NVLink; for GPUs it sees as PCIe \
                 its NVML check asserts \"GPU i and GPU j are not connected via NVLink\"). On a PCIe box use \
                 \"none\" (the allreduce path, with ep_size = tp for expert parallelism)",
                hw.gpu.name
            ),
        ));
    }
    if mode.enables_normal() && !DEEPEP_NORMAL_RANKS.contains(&tp) {
        return Err(invalid(
            key,
            format!(
                "`deepep` at tp {tp}: DeepEP asserts \"Unsupported number of EP ranks: {tp}\" (Buffer.get_dispatch_config)"
            ),
        ));
    }
    if mode.enables_low_latency() && !n_experts.is_multiple_of(u64::from(tp.max(1))) {
        return Err(invalid(
            key,
            format!(
                "`deepep` at tp {tp}: the low-latency buffer needs the {n_experts} experts to divide over the ranks \
                 (SGLang get_deepep_buffer asserts num_experts % group.size() == 0)"
            ),
        ));
    }
    if max_tokens > MAX_DISPATCH_TOKENS_LIMIT || max_tokens == 0 {
        return Err(invalid(
            "engine.env.SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK",
            format!(
                "{max_tokens}: SGLang asserts num_max_dispatch_tokens_per_rank <= 1024 (and it must be positive)"
            ),
        ));
    }
    Ok(())
}

/// DeepEP `csrc/legacy/config.hpp` `Config::get_nvl_buffer_size_hint` for one node (≤ 8 ranks):
/// `num_sms` / 2 channels × ranks × (chunked receive tokens × (hidden bytes + source meta 8 B +
/// 128 top-k indices × 8 B + 128 top-k weights × 4 B + 128 scales × 4 B) + 5 ints), rounded up to
/// 128 B. `recv_tokens`: the config's `num_max_nvl_chunked_recv_tokens`.
pub fn nvl_buffer_bytes(hidden_bytes: u64, ranks: u64, num_sms: u64, recv_tokens: u64) -> u64 {
    // Constants of `get_nvl_buffer_size_hint` (kNumMaxTopK = kNumMaxScales = 128; int64 top-k
    // indices, `EP_NUM_TOPK_IDX_BITS` 64; `internode::SourceMeta` two ints; one RDMA rank:
    // (2 × 1 + 3) ints per channel and rank).
    let channels = num_sms / 2;
    let slots = channels * ranks * recv_tokens;
    let n = channels * ranks * 5 * 4 + slots * (hidden_bytes + 8 + 128 * 8 + 128 * 4 + 128 * 4);
    n.div_ceil(128) * 128
}

/// DeepEP `csrc/legacy/config.hpp` `LowLatencyLayout` / `get_low_latency_rdma_size_hint`: two
/// (odd/even) send, receive and signalling buffers, sized for `max_tokens` tokens per rank and
/// `experts` experts at hidden size `hidden`.
pub fn low_latency_buffer_bytes(max_tokens: u64, hidden: u64, experts: u64) -> u64 {
    let scales = hidden / 128;
    // An int4 header, then the larger of BF16 hidden and FP8 hidden + float scales.
    let dispatch_msg = 16 + (hidden * 2).max(hidden + scales * 4);
    // Per-128-channel min/max (bf16 × 2) + BF16 hidden.
    let combine_msg = scales * 4 + hidden * 2;
    let send = (max_tokens * dispatch_msg).max(experts * max_tokens * combine_msg);
    let recv = (experts * max_tokens * dispatch_msg).max(experts * max_tokens * combine_msg);
    let signal = (experts * 4).div_ceil(128) * 128;
    let total = 2 * (send + recv + signal);
    // `((num_bytes + 128) / 128) * 128` (LEGACY_NUM_BUFFER_ALIGNMENT_BYTES = 128).
    (total + 128) / 128 * 128
}

/// DeepEP `Buffer.num_sms` default (SGLang's `DeepEPConfig` uses it without `--deepep-config`).
pub const DEEPEP_NUM_SMS: u64 = 20;

/// DeepEP `legacy.py` `get_dispatch_config` / `get_combine_config` `num_max_nvl_chunked_recv_tokens`
/// for `ranks` (the larger of the two; equal for every size DeepEP lists up to 160).
fn nvl_recv_tokens(ranks: u64) -> u64 {
    match ranks {
        0..=8 => 256,
        9..=64 => 288,
        65..=96 => 480,
        97..=128 => 560,
        _ => 720,
    }
}

impl MoeA2a {
    /// The DeepEP buffers one rank allocates (SGLang `DeepEPBuffer.get_deepep_buffer`: NVL bytes for
    /// the normal kernels, the RDMA/NVSHMEM buffer for low latency), for `ranks` ranks in one node;
    /// SGLang passes `param_bytes = 2` (BF16) as the hidden element size.
    pub fn buffer_bytes(&self, hidden: u64, ranks: u64, experts: u64) -> u64 {
        let nvl = if self.mode.enables_normal() {
            nvl_buffer_bytes(hidden * 2, ranks, DEEPEP_NUM_SMS, nvl_recv_tokens(ranks))
        } else {
            0
        };
        let ll = if self.mode.enables_low_latency() {
            low_latency_buffer_bytes(self.max_dispatch_tokens_per_rank, hidden, experts)
        } else {
            0
        };
        nvl + ll
    }
}

/// The warning when a decode batch of the workload's `concurrency` requests gives a rank more tokens
/// than the low-latency buffer holds: DeepEP asserts `x.size(0) <= num_max_dispatch_tokens_per_rank`
/// (`csrc/legacy/buffer.hpp` `low_latency_dispatch`) and SGLang does not cap its batch for it, so the
/// engine would stop at the first such batch. tpsim still costs the batch.
pub fn batch_warning(a: Option<MoeA2a>, tp: u32, concurrency: u32) -> Option<String> {
    let a = a.filter(|a| a.mode.enables_low_latency())?;
    let per_rank = u64::from(concurrency.div_ceil(tp.max(1)));
    (per_rank > a.max_dispatch_tokens_per_rank).then(|| {
        format!(
            "DeepEP low-latency dispatch: a decode batch of {concurrency} requests puts {per_rank} tokens on each of              the {tp} ranks, above SGLANG_DEEPEP_NUM_MAX_DISPATCH_TOKENS_PER_RANK = {}; DeepEP asserts              x.size(0) <= num_max_dispatch_tokens_per_rank and SGLang does not cap its batch for it (raise the              variable, at most 1024)",
            a.max_dispatch_tokens_per_rank
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// DeepSeek-V3 (hidden 7,168, 256 experts) on 8 ranks, by hand from `config.hpp`:
    /// NVL: 10 channels × 8 ranks = 80; 80 × 5 × 4 = 1,600 B of counters; 80 × 256 = 20,480 slots ×
    /// (14,336 + 8 + 1,024 + 512 + 512 = 16,392) = 335,708,160; total 335,709,760 → ↑128 = 335,709,824.
    /// Low latency, 128 tokens: dispatch msg 16 + max(14,336, 7,168 + 224) = 14,352; combine msg
    /// 224 + 14,336 = 14,560; send = max(1,837,056, 256 × 128 × 14,560 = 477,102,080); recv =
    /// max(470,286,336, 477,102,080); signal 1,024; 2 × (477,102,080 × 2 + 1,024) = 1,908,410,368;
    /// + 128 = 1,908,410,496.
    #[test]
    fn deepep_buffers_for_deepseek_v3_on_8_ranks() {
        assert_eq!(nvl_buffer_bytes(14_336, 8, 20, 256), 335_709_824);
        assert_eq!(low_latency_buffer_bytes(128, 7_168, 256), 1_908_410_496);
        let a = MoeA2a {
            mode: DeepEpMode::Auto,
            max_dispatch_tokens_per_rank: 128,
            bf16_dispatch: false,
        };
        assert_eq!(a.buffer_bytes(7_168, 8, 256), 335_709_824 + 1_908_410_496);
        let ll = MoeA2a {
            mode: DeepEpMode::LowLatency,
            ..a
        };
        assert_eq!(ll.buffer_bytes(7_168, 8, 256), 1_908_410_496);
    }

    /// 2,048 requests on 8 ranks: 256 tokens per rank > 128 (SGLang's default) → warned; 1,024 → 128,
    /// not above → none; normal mode has no such buffer → none.
    #[test]
    fn low_latency_batch_limit() {
        let a = MoeA2a {
            mode: DeepEpMode::Auto,
            max_dispatch_tokens_per_rank: 128,
            bf16_dispatch: false,
        };
        assert!(batch_warning(Some(a), 8, 2048).is_some_and(|w| w.contains("256 tokens")));
        assert!(batch_warning(Some(a), 8, 1024).is_none());
        let n = MoeA2a {
            mode: DeepEpMode::Normal,
            ..a
        };
        assert!(batch_warning(Some(n), 8, 2048).is_none());
    }

    #[test]
    fn auto_runs_normal_for_extends_and_low_latency_for_decode() {
        assert!(!DeepEpMode::Auto.low_latency_for(true));
        assert!(DeepEpMode::Auto.low_latency_for(false));
        assert!(!DeepEpMode::Normal.low_latency_for(false));
        assert!(DeepEpMode::LowLatency.low_latency_for(true));
    }
}
