//! The per-rank memory plan of the scenario (first cut of issue #5): SGLang's KV sizing from
//! observed or modeled free memory, then every allocation after the pool checked against what is left.

use crate::scenario::{AllreduceBackend, Engine, EngineKind, Scenario};

// dsv4run55 (issue #17): DeepSeek-V4's pools by SGLang's own configurator.
pub(crate) mod dsv4;
mod vllm_sliding; // families39 (issue #17): vLLM's sliding-window groups: start-up check, reported tokens
use tpsim_model::llm::{NsaBudgetRule, NsaKv};
use tpsim_model::memory::{
    LateAllocation, LateVerdict, SglangEra, SglangKvInput, SglangKvPlan, SpecShape, TORCH_OOM,
    check_late_allocations, sglang_kv_plan, sglang_min_fraction, sglang_no_kv_memory_error,
    sglang_not_enough_memory, sglang_spring_cell_size, sglang_swa_split,
};
use tpsim_model::memory::{VllmKvGroups, VllmKvInput, VllmKvPlan, vllm_kv_groups, vllm_kv_plan};
use tpsim_model::state_pool::{
    SGLANG_0_5_8_NO_RADIX_SLOTS, SglangStatePool, sglang_state_pool, sglang_state_pool_without_radix,
};
use tpsim_model::units::Bytes;

/// Where a figure of the plan came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// From `[engine.observed]` (a real log).
    Observed,
    /// Computed by tpsim's models.
    Modeled,
    /// The engine's own arithmetic.
    EngineRule,
}

/// What an allocation of the plan is. Serialized (and displayed) as its name in the memory table,
/// e.g. "target weights".
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum MemKind {
    /// SGLang: the CUDA context and NCCL's communicators, before `total` is measured.
    Context,
    /// vLLM: what is used before start-up (CUDA context, NCCL).
    ContextBeforeStartup,
    /// The custom allreduce's IPC buffers.
    CustomAllreduceBuffers,
    TargetWeights,
    DraftWeights,
    /// mem50 (issue #17 point 5): SGLang's RoPE cos/sin caches, built while the model is constructed
    /// (`tpsim_model::rope_cache`), inside "Load weight end … mem usage" beside the weights.
    RopeCaches,
    /// mem50: the caching allocator's segments SGLang's weight load keeps beyond the tensors' bytes
    /// after `empty_cache` (`ModelSpec::sglang_load_segment_overhead`), inside the same "mem usage".
    LoadSegments,
    /// SGLang's pool of recurrent states (hybrid models) for `slots` requests.
    StatePool {
        slots: u64,
    },
    TargetKvPool,
    /// SGLang's hybrid SWA pool: the part for the sliding-window (or chunked) layers.
    TargetKvPoolSwa {
        layers: u64,
        tokens: u64,
    },
    /// SGLang's hybrid SWA pool: the part for the full-attention layers.
    TargetKvPoolFull {
        layers: u64,
        tokens: u64,
    },
    DraftKvPool,
    TargetCudaGraphs,
    DraftCudaGraphs,
    Activations,
    /// vLLM: the profile run's peak activation.
    PeakActivation,
    /// vLLM: memory outside torch's allocator that grows during the profile.
    NonTorchGrowth,
    /// vLLM's KV cache.
    KvCache,
    /// Issue #17 point 1 (ep): DeepEP's NVLink and low-latency buffers (SGLang `--moe-a2a-backend deepep`).
    DeepEpBuffers,
    /// vrows3 (issue #17 point 4): SGLang's aiter attention workspace on ROCm (MHA models).
    AiterWorkspace,
}

impl MemKind {
    /// The name the memory table, `--json` and the engine's error texts use.
    pub fn name(self) -> std::borrow::Cow<'static, str> {
        std::borrow::Cow::Borrowed(match self {
            MemKind::Context => "CUDA context, NCCL communicators",
            MemKind::ContextBeforeStartup => "CUDA context, NCCL (before start-up)",
            MemKind::CustomAllreduceBuffers => "custom-allreduce IPC buffers",
            MemKind::TargetWeights => "target weights",
            MemKind::DraftWeights => "draft weights",
            MemKind::RopeCaches => "RoPE cos/sin caches",
            MemKind::LoadSegments => "weight-load allocator segments",
            MemKind::StatePool { slots } => {
                return std::borrow::Cow::Owned(format!("state pool, {slots} requests"));
            }
            MemKind::TargetKvPool => "target KV pool",
            MemKind::TargetKvPoolSwa { layers, tokens } => {
                return std::borrow::Cow::Owned(format!(
                    "target KV pool, SWA layers ({layers} × {tokens} tokens)"
                ));
            }
            MemKind::TargetKvPoolFull { layers, tokens } => {
                return std::borrow::Cow::Owned(format!(
                    "target KV pool, full layers ({layers} × {tokens} tokens)"
                ));
            }
            MemKind::DraftKvPool => "draft KV pool",
            MemKind::TargetCudaGraphs => "target CUDA graphs",
            MemKind::DraftCudaGraphs => "draft CUDA graphs",
            MemKind::Activations => "activations",
            MemKind::PeakActivation => "peak activation (profile run)",
            MemKind::NonTorchGrowth => "non-torch growth",
            MemKind::KvCache => "KV cache",
            MemKind::DeepEpBuffers => "DeepEP buffers",
            MemKind::AiterWorkspace => "aiter attention workspace",
        })
    }
}

impl std::fmt::Display for MemKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(&self.name())
    }
}

impl serde::Serialize for MemKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.name())
    }
}

/// When an allocation happens in the engine's start-up, relative to its measurements.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
pub enum Moment {
    /// SGLang: before `total` (free memory after init) is measured.
    #[serde(rename = "before total")]
    BeforeTotal,
    /// SGLang: before `available` (free memory after the weights) is measured.
    #[serde(rename = "before available")]
    BeforeAvailable,
    /// Inside the KV budget.
    #[serde(rename = "kv pool")]
    KvPool,
    /// SGLang: after the KV pool, out of what is left.
    #[serde(rename = "after pool")]
    AfterPool,
    /// vLLM: before start-up.
    #[serde(rename = "before start")]
    BeforeStart,
    /// vLLM: while loading the model.
    #[serde(rename = "load")]
    Load,
    /// vLLM: during the profile run.
    #[serde(rename = "profile")]
    Profile,
}

impl Moment {
    /// Every moment.
    pub const ALL: [Moment; 7] = [
        Moment::BeforeTotal,
        Moment::BeforeAvailable,
        Moment::KvPool,
        Moment::AfterPool,
        Moment::BeforeStart,
        Moment::Load,
        Moment::Profile,
    ];

    /// The name the memory table and `--json` use.
    pub fn as_str(self) -> &'static str {
        match self {
            Moment::BeforeTotal => "before total",
            Moment::BeforeAvailable => "before available",
            Moment::KvPool => "kv pool",
            Moment::AfterPool => "after pool",
            Moment::BeforeStart => "before start",
            Moment::Load => "load",
            Moment::Profile => "profile",
        }
    }
}

impl std::fmt::Display for Moment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// One allocation on a rank.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MemEntry {
    /// What it is (serialized as `name`).
    #[serde(rename = "name")]
    pub kind: MemKind,
    pub bytes: u64,
    pub moment: Moment,
    pub source: Source,
}

/// The start-up verdict.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Ok,
    Oom {
        /// The start-up step that fails.
        step: String,
        /// The engine's error text.
        message: String,
        /// How much is missing.
        missing: Bytes,
    },
}

/// SGLang's two pools of its hybrid SWA KV pool (`mem_cache/swa_memory_pool.py` `SWAKVPool`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SwaPools {
    /// Full-attention layers and their token slots (`full_max_total_num_tokens`).
    pub full_layers: u64,
    pub full_tokens: u64,
    /// Bytes of the full pool: (full_tokens + page) × per-layer cell × full_layers.
    pub full_bytes: u64,
    /// Local (sliding / chunked) layers and their token slots (`swa_max_total_num_tokens`).
    pub swa_layers: u64,
    pub swa_tokens: u64,
    pub swa_bytes: u64,
}

/// vLLM's KV-cache groups (`memory::vllm_kv_groups`) when the hybrid manager keeps several.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KvGroups {
    pub group_size: u64,
    pub num_groups: u64,
    /// Padding layers vLLM adds to fill the last group of each type.
    pub padding_layers: u64,
}

/// vLLM's KV-cache pool of a hybrid Mamba-2 / Gated DeltaNet model in blocks (issue #18,
/// hybridserve): what the serving loop allocates from (`serve::core::StateRule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct VllmHybridPool {
    /// `num_gpu_blocks`: blocks of `group_size` pages each.
    pub num_blocks: u64,
    /// Tokens per attention block (vLLM's raised block size).
    pub block_size: u64,
    /// Groups of attention layers: a request's token page takes a block in each.
    pub attention_groups: u64,
    /// Groups of recurrent layers: a request's state takes a block in each.
    pub state_groups: u64,
    /// `mamba_cache_mode = "align"` (prefix caching from vLLM 0.15); "none" otherwise.
    pub align: bool,
    /// State blocks per state group and request as vLLM counts them for its "Maximum concurrency"
    /// (`MambaSpec.max_memory_usage_bytes`: 1, 2 in "align" mode, + speculative blocks).
    pub state_pages: u64,
}

impl VllmHybridPool {
    /// Blocks a request of `tokens` tokens holds at most: ⌈tokens / block⌉ per attention group and
    /// `state_pages` per state group.
    pub fn blocks_per_request(&self, tokens: u64) -> u64 {
        self.attention_groups * tokens.div_ceil(self.block_size.max(1)) + self.state_groups * self.state_pages
    }

    /// Requests of `tokens` tokens the pool holds at once.
    pub fn max_requests(&self, tokens: u64) -> u64 {
        self.num_blocks / self.blocks_per_request(tokens).max(1)
    }

    /// The longest request (tokens, whole blocks) each of `n` concurrent requests can hold.
    pub fn max_tokens_at(&self, n: u64) -> u64 {
        let per = self.num_blocks / n.max(1);
        let attention =
            per.saturating_sub(self.state_groups * self.state_pages) / self.attention_groups.max(1);
        attention * self.block_size
    }
}

/// The memory plan of one rank (all ranks are alike in a TP group).
#[derive(Debug, Clone, PartialEq)]
pub struct MemoryPlan {
    pub verdict: Verdict,
    pub total_gib: f64,
    pub total_source: Source,
    pub available_gib: f64,
    pub available_source: Source,
    pub mem_fraction_static: f64,
    pub cell_size: u64,
    /// DSA models (h2, issue #16): bytes per token the KV pool actually holds, when the engine's
    /// budget (`cell_size`) differs from it (SGLang ≤ 0.5.16 with fp8 KV: 708 vs 788 B per layer).
    pub pool_cell_size: Option<u64>,
    pub rest_gib: f64,
    pub kv_tokens: u64,
    pub kv_pool: Bytes,
    pub draft_cell_size: Option<u64>,
    /// Token slots of the draft's KV pool (SGLang with speculation; the era decides, see
    /// `tpsim_model::memory::SglangKvPlan::draft_tokens`).
    pub draft_kv_tokens: Option<u64>,
    /// SGLang's request pool size and the scheduler's `max_running_requests` (None under vLLM).
    pub max_num_reqs: Option<u64>,
    pub max_running_requests: Option<u64>,
    pub min_mem_fraction_static: Option<f64>,
    /// Free memory left after the last allocation (0 when the start fails).
    pub headroom: Bytes,
    pub entries: Vec<MemEntry>,
    /// SGLang's hybrid SWA pool when the engine uses one (Llama-4, gpt-oss; issue #16).
    pub swa: Option<SwaPools>,
    /// vLLM's hybrid KV-cache groups when there is more than one (issue #16).
    pub kv_groups: Option<KvGroups>,
    /// vLLM's "Maximum concurrency for L tokens per request: C" as (L, C), where tpsim computes it as
    /// vLLM does (hybrid Mamba-2 / Gated DeltaNet models, `vllm_hybrid`); `None` otherwise.
    pub vllm_concurrency: Option<(u64, f64)>,
    /// vLLM's pool of a hybrid Mamba-2 / Gated DeltaNet model in blocks (`None` otherwise).
    pub vllm_hybrid_pool: Option<VllmHybridPool>,
    /// vllmv0mem: what vLLM's V0 engine logs for this plan (`None`: V1, or SGLang).
    pub vllm_v0: Option<super::vllm_v0_kv::V0Log>,
    /// Where the plan is approximate (reported as warnings).
    pub notes: Vec<String>,
    /// rope51: with an observed "Load weight end" mem usage, what tpsim models of it and the gap
    /// (`load_usage`; printed under the memory table, not a warning). SGLang only.
    pub load_note: Option<String>,
    /// dsv4run55: the lines the engine logs for its own pool sizing (DeepSeek-V4's "DSV4 …" lines,
    /// `memory::dsv4`), printed before the pool line; empty for other models.
    pub engine_lines: Vec<String>,
}

/// Builds the plan.
pub fn plan_memory(s: &Scenario) -> MemoryPlan {
    if s.engine.kind == EngineKind::Vllm {
        return plan_vllm(s);
    }
    SglangStartup::new(s).plan()
}

/// The custom allreduce's IPC buffers, when the scenario uses it.
fn custom_allreduce_buffers(e: &Engine) -> Bytes {
    if e.allreduce == AllreduceBackend::Custom {
        e.costs.custom_allreduce_buffers
    } else {
        Bytes(0)
    }
}

/// SGLang's start-up (engine-memory.md), one method per step: the measurements of `total` and
/// `available`, the cell, the state pool, the KV profile and its pools (NSA, SWA), the verdict and
/// the allocations after the pool.
struct SglangStartup<'a> {
    s: &'a Scenario,
    e: &'a Engine,
    /// Spring 2026 counts the draft's weights before the KV profile (engine-memory.md, eras table);
    /// earlier eras load them after the pool, out of the reserve.
    spring: bool,
    draft_weights: Bytes,
}

/// `total` (free memory after init) and `available` (free memory after the weights) as SGLang
/// measures them, with the allocations made before each.
struct Measured {
    entries: Vec<MemEntry>,
    total_gib: f64,
    total_source: Source,
    available_gib: f64,
    available_source: Source,
    /// rope51: what tpsim models of an observed "Load weight end" mem usage (`load_usage`).
    note: Option<String>,
}

impl Measured {
    /// The plan of what start-up measured (totals, the memory entries, the load note) with nothing
    /// sized yet: verdict Ok, no KV pool, no tokens, no engine lines. Each engine's planner fills the
    /// pool fields with struct update syntax (`MemoryPlan { kv_tokens, ..m.into_plan(f) }`), so the
    /// three plans (SGLang, SGLang's DeepSeek-V4 configurator, vLLM) share one base.
    fn into_plan(self, mem_fraction_static: f64) -> MemoryPlan {
        MemoryPlan {
            verdict: Verdict::Ok,
            total_gib: self.total_gib,
            total_source: self.total_source,
            available_gib: self.available_gib,
            available_source: self.available_source,
            mem_fraction_static,
            cell_size: 0,
            pool_cell_size: None,
            rest_gib: 0.0,
            kv_tokens: 0,
            kv_pool: Bytes(0),
            draft_cell_size: None,
            draft_kv_tokens: None,
            max_num_reqs: None,
            max_running_requests: None,
            min_mem_fraction_static: None,
            headroom: Bytes(0),
            entries: self.entries,
            swa: None,
            kv_groups: None,
            vllm_concurrency: None,
            vllm_hybrid_pool: None,
            vllm_v0: None,
            notes: Vec::new(),
            load_note: self.note,
            engine_lines: Vec::new(),
        }
    }
}

/// The KV cell SGLang budgets per token, and the DSA pool's layout when the model has one.
struct Cells {
    nsa: Option<NsaKv>,
    nsa_rule: NsaBudgetRule,
    /// The target's own cell.
    target_cell: u64,
    /// The cell the budget divides by (spring 2026 with speculation: with the draft's layers).
    cell: u64,
}

impl<'a> SglangStartup<'a> {
    fn new(s: &'a Scenario) -> Self {
        let e = &s.engine;
        SglangStartup {
            s,
            e,
            spring: e.era >= SglangEra::Spring2026,
            draft_weights: s
                .speculative
                .as_ref()
                .map(|sp| sp.draft_weights)
                .unwrap_or(Bytes(0)),
        }
    }

    fn plan(&self) -> MemoryPlan {
        let (s, e) = (self.s, self.e);
        if let Some(g) = &s.model.deepseek_v4 {
            return self.plan_dsv4(g);
        }
        let m = self.measure();
        let cells = self.cells();
        let (state_pool, state_gib) = self.state_pool(m.total_gib, m.available_gib);
        // Local/global attention (issue #16): does SGLang split the KV pool into full and SWA pools?
        let (swa_on, mut notes) = sglang_uses_swa_pool(s);
        notes.extend(self.hybrid_notes(state_pool.is_some()));
        let spec = self.spec_shape();
        let mut kv = self.kv_profile(&m, state_gib, &cells, spec);
        let min_f = self.min_fraction(&m, cells.cell, spec);
        // The hybrid SWA split of the profiled (capped, page-floored) tokens (`sglang_swa_split`): from
        // here on `max_total_num_tokens` is the full pool's count.
        let swa = (swa_on && kv.starts).then(|| self.swa_pools(&kv, cells.target_cell));
        if let Some(w) = swa {
            self.apply_swa(&mut kv, w, m.available_gib);
        }
        let mut plan = MemoryPlan {
            swa,
            cell_size: cells.cell,
            pool_cell_size: cells.nsa.map(|n| n.pool_cell()).filter(|&c| c != cells.cell),
            // The engine's `rest` (the state pool, listed as an entry, comes out of it).
            rest_gib: kv.rest_gib + state_gib,
            kv_tokens: kv.tokens,
            kv_pool: kv.pool_bytes,
            draft_cell_size: s
                .speculative
                .as_ref()
                .map(|sp| sp.draft.kv_cell_bytes(super::dp_attention::attention_tp(e))),
            draft_kv_tokens: s.speculative.as_ref().map(|_| kv.draft_tokens),
            max_num_reqs: Some(kv.max_num_reqs),
            // Issue #17: under DP attention, the group's share of the server's setting.
            max_running_requests: Some(super::dp_attention::per_group_running(
                e,
                kv.max_running_requests,
                kv.max_num_reqs,
            )),
            min_mem_fraction_static: min_f,
            notes,
            ..m.into_plan(e.mem_fraction_static)
        };
        if let Some(n) = cells.nsa {
            plan.notes.push(nsa_note(e, &n, cells.nsa_rule, &kv));
        }
        if let Some(p) = state_pool {
            plan.max_running_requests = plan.max_running_requests.map(|m| m.min(p.max_running_requests));
            plan.entries.push(MemEntry {
                kind: MemKind::StatePool { slots: p.slots },
                bytes: p.bytes + p.intermediate_bytes,
                moment: Moment::KvPool,
                source: Source::EngineRule,
            });
        }
        if !kv.starts {
            plan.verdict = self.profile_oom(&kv, cells.cell, plan.available_gib, plan.total_gib);
            plan.max_running_requests = None;
            plan.draft_kv_tokens = plan.draft_kv_tokens.map(|_| 0);
            return plan;
        }
        if !kv.pool_fits {
            // The free memory the pool was checked against: after the state pool, which the KV
            // profile took out of `available` (`kv_profile`).
            plan.verdict = pool_oom(&kv, cells.nsa.is_some(), plan.available_gib - state_gib);
            return plan;
        }
        plan.entries.extend(kv_pool_entries(swa, &kv));
        self.allocate_after_pool(&mut plan, &kv);
        plan
    }

    /// The CUDA context and NCCL's communicators (and the custom allreduce's buffers) before `total`
    /// is measured; the weights (spring 2026: the draft's too) before `available` is.
    fn measure(&self) -> Measured {
        let (s, e) = (self.s, self.e);
        let gib = |b: Bytes| b.as_gib_f64();
        let device = Bytes(s.hardware.gpu.memory_total_mib * Bytes::MIB);
        let custom = custom_allreduce_buffers(e);
        // mem49/mem50 (issue #17 point 5): "Load weight end"'s mem usage is the weights (the
        // parameters' bytes, their own entry), the RoPE caches and the allocator's kept segments
        // (their own entries, [`sglang_load_extra`]); `available` is `total` less their sum.
        let weights = super::dp_attention::weights_per_rank(s);
        let extra = sglang_load_extra(s);
        let loaded = Bytes(
            weights
                .0
                .saturating_add(extra.rope)
                .saturating_add(extra.segments),
        );
        let mut entries = vec![MemEntry {
            kind: MemKind::Context,
            bytes: s.hardware.params.context_overhead.0,
            moment: Moment::BeforeTotal,
            source: Source::Modeled,
        }];
        if custom.0 > 0 {
            entries.push(MemEntry {
                kind: MemKind::CustomAllreduceBuffers,
                bytes: custom.0,
                moment: Moment::BeforeTotal,
                source: Source::Modeled,
            });
        }
        let obs = e.observed.as_ref();
        let (total_gib, total_source) = match obs.and_then(|o| o.free_after_init_gib) {
            Some(v) => (v, Source::Observed),
            None => (
                gib(Bytes(
                    device
                        .0
                        .saturating_sub(s.hardware.params.context_overhead.0 + custom.0),
                )),
                Source::Modeled,
            ),
        };
        entries.push(MemEntry {
            kind: MemKind::TargetWeights,
            bytes: weights.0,
            moment: Moment::BeforeAvailable,
            source: Source::Modeled,
        });
        for (kind, bytes, source) in [
            (MemKind::RopeCaches, extra.rope, Source::EngineRule),
            (MemKind::LoadSegments, extra.segments, Source::Modeled),
        ] {
            if bytes > 0 {
                entries.push(MemEntry {
                    kind,
                    bytes,
                    moment: Moment::BeforeAvailable,
                    source,
                });
            }
        }
        if self.spring && self.draft_weights.0 > 0 {
            entries.push(MemEntry {
                kind: MemKind::DraftWeights,
                bytes: self.draft_weights.0,
                moment: Moment::BeforeAvailable,
                source: Source::Modeled,
            });
        }
        let (available_gib, available_source) = self.available(total_gib, loaded);
        // The logged "mem usage" holds the RoPE caches and the kept segments too: the observed
        // figure stands for all three (rope51: also when the log gives it as the drop of free memory
        // across the load), their modelled sum and its gap go to a note (`load_usage`).
        let usage = match (
            obs.and_then(|o| o.weights_gib),
            obs.and_then(|o| o.free_after_init_gib),
            obs.and_then(|o| o.free_after_weights_gib),
        ) {
            (Some(w), _, _) => Some((w, "engine.observed.weights_gib")),
            (None, Some(t), Some(a)) => {
                Some((t - a, "free_after_init_gib − free_after_weights_gib, observed"))
            }
            _ => None,
        };
        let note = usage.map(|(u, how)| super::load_usage::fold_observed(&mut entries, u, how));
        Measured {
            entries,
            total_gib,
            total_source,
            available_gib,
            available_source,
            note,
        }
    }

    /// `available`: observed, or `total` less the weights (spring 2026: less the draft's too).
    fn available(&self, total_gib: f64, weights: Bytes) -> (f64, Source) {
        let gib = |b: Bytes| b.as_gib_f64();
        let obs = self.e.observed.as_ref();
        let early_draft = if self.spring { self.draft_weights } else { Bytes(0) };
        match (
            obs.and_then(|o| o.free_after_weights_gib),
            obs.and_then(|o| o.weights_gib),
        ) {
            (Some(v), _) => ((v - gib(early_draft)).max(0.0), Source::Observed),
            (None, Some(w)) => ((total_gib - w - gib(early_draft)).max(0.0), Source::Observed),
            (None, None) => (
                (total_gib - gib(weights) - gib(early_draft)).max(0.0),
                Source::Modeled,
            ),
        }
    }

    /// The cell per token. DSA (DeepSeek-V3.2, GLM-5): SGLang budgets per its version's rule and
    /// allocates the NSA pool's own layout (tpsim_model::llm::dsa).
    fn cells(&self) -> Cells {
        let s = self.s;
        let nsa = s
            .model
            .nsa_kv(s.model.quantization.kv_cache_dtype.bytes(s.model.dtype));
        let nsa_rule = nsa_budget_rule(self.e);
        let target_cell = match nsa {
            Some(n) => n.budget_cell(nsa_rule),
            // families6 (issue #17): SGLang's pool holds every decoder layer of a Llama-Nemotron NAS
            // model, no-op attention blocks included (`llm::nemotron_nas`); a pipeline stage's cell
            // already counts them (`ModelSpec::pipeline_stages` under SGLang's rule).
            // families23 (issue #17): SGLang's MiMo-V2-Flash cell by release: 0.5.7 / 0.5.8 count the
            // global layer's cell over every layer, 0.5.9 on each kind over its own layers
            // (`tpsim_model::llm::mimo_v2`).
            None if s.engine.pp <= 1 && s.model.mimo_v2.is_some() => s
                .model
                .mimo_v2_sglang_cell(
                    super::dp_attention::attention_tp(self.e),
                    mimo_before_0_5_9(self.e),
                )
                .unwrap_or_else(|| super::dp_attention::kv_cell(s)),
            None if s.engine.pp <= 1 => s.model.sglang_kv_cell_bytes(super::dp_attention::kv_cell(s)),
            None => super::dp_attention::kv_cell(s),
        };
        // Spring 2026: the target's cell carries the EAGLE draft's layers (KV-holding layers only).
        let cell = match &s.speculative {
            Some(sp) if self.spring => {
                sglang_spring_cell_size(target_cell, sp.draft.kv_layers(), s.model.kv_layers())
            }
            _ => target_cell,
        };
        Cells {
            nsa,
            nsa_rule,
            target_cell,
            cell,
        }
    }

    /// Hybrid linear-attention models: the state pool comes out of `rest` before the KV pool
    /// (tpsim_model::state_pool); passing a smaller `available` lowers `rest` by the same amount.
    /// The pool and the GiB it takes out of `rest`.
    fn state_pool(&self, total_gib: f64, available_gib: f64) -> (Option<SglangStatePool>, f64) {
        let (s, e) = (self.s, self.e);
        let per_req = s
            .model
            .linear_state_bytes_per_req(super::dp_attention::attention_tp(e));
        let rest = available_gib - total_gib * (1.0 - e.mem_fraction_static);
        // Issue #18 (hybridserve): with `--disable-radix-cache` (no speculation) every state slot can
        // run a request, and the slots follow `--max-running-requests` (0.5.8: else 512)
        // (`tpsim_model::state_pool::sglang_state_pool_without_radix`). The 0.5.8 rule applies up to
        // 0.5.8 (earlier releases not read), 0.5.9's after, the spring-2026 era included [assumed].
        let no_radix = !e.scheduler.prefix_cache && s.speculative.is_none();
        let state_pool = (per_req > 0).then(|| {
            if no_radix {
                let dp = u64::from(super::dp_attention::dp(e).max(1));
                let before_0_5_9 =
                    crate::engine_args_versions::release(&e.release().version).is_none_or(|r| {
                        [
                            r.first().copied().unwrap_or(0),
                            r.get(1).copied().unwrap_or(0),
                            r.get(2).copied().unwrap_or(0),
                        ] < [0, 5, 9]
                    });
                sglang_state_pool_without_radix(
                    rest,
                    per_req,
                    e.max_running_requests.map(|m| m / dp),
                    before_0_5_9.then_some(SGLANG_0_5_8_NO_RADIX_SLOTS / dp),
                )
            } else {
                sglang_state_pool(
                    rest,
                    per_req,
                    s.speculative.as_ref().map(|sp| u64::from(sp.num_draft_tokens)),
                    e.max_running_requests,
                )
            }
        });
        let state_gib = state_pool.map_or(0.0, |p| rest - p.rest_after_gib);
        (state_pool, state_gib)
    }

    /// Where the plan of a hybrid linear-attention model with speculation is approximate.
    fn hybrid_notes(&self, has_state_pool: bool) -> Vec<String> {
        let mut notes = Vec::new();
        let speculative = self.s.speculative.is_some();
        if has_state_pool && speculative && self.spring {
            notes.push(
                "draft KV share approximate: the spring-2026 cell × (1 + draft layers / target layers) rule is applied \
                 with full-attention layer counts for this hybrid model (not verified against SGLang's hybrid pools)"
                    .to_string(),
            );
        }
        if has_state_pool && speculative {
            notes.push(
                "state pool sizing approximate: SGLang's speculative intermediate-state reservation is modelled with \
                 the default radix cache and no_buffer strategy (3 slots per request)"
                    .to_string(),
            );
        }
        notes
    }

    fn spec_shape(&self) -> Option<SpecShape> {
        self.s.speculative.as_ref().map(|sp| SpecShape {
            num_steps: u64::from(sp.num_steps),
            topk: u64::from(sp.topk),
            num_draft_tokens: u64::from(sp.num_draft_tokens),
        })
    }

    /// SGLang's KV profile (`sglang_kv_plan`) over what the state pool leaves.
    fn kv_profile(
        &self,
        m: &Measured,
        state_gib: f64,
        cells: &Cells,
        spec: Option<SpecShape>,
    ) -> SglangKvPlan {
        let e = self.e;
        let mut kv = sglang_kv_plan(&SglangKvInput {
            total_gib: m.total_gib,
            available_gib: m.available_gib - state_gib,
            mem_fraction_static: e.mem_fraction_static,
            cell_size: cells.cell,
            page_size: e.page_size,
            max_total_tokens: e.max_total_tokens,
            era: e.era,
            context_len: e.context_len,
            max_running_requests: e.max_running_requests,
            spec,
        });
        // DSA: the pool is `NSATokenToKVPool`'s size, not tokens × budget; what it holds beyond `rest`
        // comes out of the (1 − f) reserve, and PyTorch fails the allocation if it exceeds the free memory.
        if let Some(n) = cells.nsa
            && kv.starts
        {
            let pool = n.sglang_pool_bytes(kv.tokens, e.page_size.max(1));
            let available = Bytes::from_gib_f64(m.available_gib - state_gib);
            kv.pool_bytes = Bytes(pool);
            kv.pool_fits = pool <= available.0;
            kv.free_after_pool = Bytes(available.0.saturating_sub(pool));
        }
        kv
    }

    /// The smallest `mem_fraction_static` that starts.
    fn min_fraction(&self, m: &Measured, cell: u64, spec: Option<SpecShape>) -> Option<f64> {
        let e = self.e;
        // Mid 2025: the speculative inflation (at the threshold the request pool is at its floor of 2048
        // unless configured) lets the engine start with a negative profile.
        let inflation = match (e.era, spec) {
            (SglangEra::Mid2025, Some(sp)) => {
                e.max_running_requests.unwrap_or(2048) * (sp.num_steps * sp.topk + sp.num_draft_tokens) + 100
            }
            _ => 0,
        };
        if inflation > 0 {
            let need = (e.page_size.max(1) as f64 - inflation as f64) * cell as f64 / (1u64 << 30) as f64;
            Some((1.0 - (m.available_gib - need) / m.total_gib).clamp(0.0, 1.0))
        } else {
            sglang_min_fraction(m.total_gib, m.available_gib, cell, e.page_size)
        }
    }

    /// The hybrid SWA pool's full and SWA parts for the profiled tokens (`sglang_swa_split`).
    fn swa_pools(&self, kv: &SglangKvPlan, target_cell: u64) -> SwaPools {
        let (s, e) = (self.s, self.e);
        let n_swa = u64::from(s.model.sliding_layers());
        let n_full = u64::from(s.model.kv_layers()) - n_swa;
        let layer = target_cell / u64::from(s.model.kv_layers().max(1));
        // families23 (issue #17): MiMo-V2-Flash's full and sliding layers hold different cells (SGLang
        // `SWAKVPool` with `swa_head_num` / `swa_head_dim` / `swa_v_head_dim`).
        let (full_layer, swa_layer) = s
            .model
            .mimo_v2_layer_cells(super::dp_attention::attention_tp(e))
            .unwrap_or((layer, layer));
        // families23 (issue #17): MiMo-V2-Flash's split follows its release, not the memory era (read at
        // 0.5.7 / 0.5.8: the layer-count split; 0.5.9 / 0.5.10: the bytes-weighted one).
        let era = match s.model.mimo_v2 {
            Some(_) if mimo_before_0_5_9(e) => SglangEra::Late2025,
            Some(_) => SglangEra::Spring2026,
            None => e.era,
        };
        let split = sglang_swa_split(
            era,
            kv.tokens,
            n_full,
            n_swa,
            (full_layer, swa_layer),
            e.swa_full_tokens_ratio,
            e.page_size,
        );
        let page = e.page_size.max(1);
        SwaPools {
            full_layers: n_full,
            full_tokens: split.full_tokens,
            full_bytes: (split.full_tokens + page) * full_layer * n_full,
            swa_layers: n_swa,
            swa_tokens: split.swa_tokens,
            swa_bytes: (split.swa_tokens + page) * swa_layer * n_swa,
        }
    }

    /// The KV plan with the SWA pools in place of the plain one: the full pool's tokens, both pools'
    /// bytes, the request cap and the draft's pool follow.
    fn apply_swa(&self, kv: &mut SglangKvPlan, w: SwaPools, available_gib: f64) {
        let e = self.e;
        let pool = w.full_bytes + w.swa_bytes;
        let available = Bytes::from_gib_f64(available_gib.max(0.0));
        kv.tokens = w.full_tokens;
        kv.pool_bytes = Bytes(pool);
        kv.free_after_pool = Bytes(available.0.saturating_sub(pool));
        kv.pool_fits = pool <= available.0;
        kv.max_running_requests = e
            .max_running_requests
            .unwrap_or(w.full_tokens / 2)
            .min(kv.max_num_reqs);
        if self.s.speculative.is_some() {
            // The draft's pool follows the SWA-adjusted count (`draft_runner_cache_size = full`).
            kv.draft_tokens = w.full_tokens;
        }
    }

    /// The verdict when the KV profile leaves no room for one page.
    fn profile_oom(&self, kv: &SglangKvPlan, cell: u64, available_gib: f64, total_gib: f64) -> Verdict {
        let e = self.e;
        let need = (e.page_size.max(1) * cell) as f64 / (1u64 << 30) as f64;
        Verdict::Oom {
            step: "KV cache profile (rest = available − total × (1 − mem_fraction_static) ≤ 0)".into(),
            message: if self.spring && kv.rest_gib <= 0.0 {
                sglang_no_kv_memory_error(e.mem_fraction_static, available_gib, total_gib)
            } else {
                // release52: 0.5.10–0.5.13 (late-2025 rules) already print the spring form, `Current
                // value: mem_fraction_static=…` (`MemoryPoolConfig.__post_init__` in 0.5.10's
                // `model_runner_kv_cache_mixin.py`; 0.5.9's appends `self.server_args.…=`).
                let v = crate::engine_args_versions::release(&e.release().version).unwrap_or_default();
                let text_era = if e.era == SglangEra::Late2025 && v.as_slice() >= [0, 5, 10].as_slice() {
                    SglangEra::Spring2026
                } else {
                    e.era
                };
                sglang_not_enough_memory(text_era, e.mem_fraction_static)
            },
            missing: Bytes::from_gib_f64(need - kv.rest_gib),
        }
    }

    /// What is allocated after the pool, in order, and their check against what the pool left: the
    /// entries, the headroom or the verdict of the first that does not fit.
    fn allocate_after_pool(&self, plan: &mut MemoryPlan, kv: &SglangKvPlan) {
        let observed_graphs = self
            .e
            .observed
            .as_ref()
            .and_then(|o| o.cuda_graph_gib)
            .map(Bytes::from_gib_f64);
        let late = self.late_allocations(kv, observed_graphs);
        for &(kind, bytes) in &late {
            let observed = kind == MemKind::TargetCudaGraphs && observed_graphs.is_some();
            plan.entries.push(MemEntry {
                kind,
                bytes: bytes.0,
                moment: Moment::AfterPool,
                source: if observed {
                    Source::Observed
                } else if kind == MemKind::AiterWorkspace {
                    Source::EngineRule
                } else {
                    Source::Modeled
                },
            });
        }
        let allocs: Vec<LateAllocation> = late
            .iter()
            .map(|&(kind, bytes)| LateAllocation {
                name: kind.name().into_owned(),
                bytes,
            })
            .collect();
        match check_late_allocations(kv.free_after_pool, &allocs) {
            LateVerdict::Fits { headroom } => plan.headroom = headroom,
            LateVerdict::Fails { index, missing } => {
                plan.verdict = Verdict::Oom {
                    step: format!("allocating {} after the KV pool", late[index].0),
                    message: TORCH_OOM.into(),
                    missing,
                };
            }
        }
    }

    /// The draft's weights (before spring 2026) and KV pool, the CUDA graphs and the activations.
    fn late_allocations(&self, kv: &SglangKvPlan, observed_graphs: Option<Bytes>) -> Vec<(MemKind, Bytes)> {
        let (s, e) = (self.s, self.e);
        let mut late: Vec<(MemKind, Bytes)> = Vec::new();
        // vrows3 (issue #17 point 4): the target's attention backend is built right after its pool.
        late.extend(super::aiter_workspace::late(s, kv.max_num_reqs));
        if let Some(sp) = &s.speculative {
            if !self.spring {
                late.push((MemKind::DraftWeights, self.draft_weights));
            }
            // The draft's pool: the target's token count (early 2025: more, see SglangKvPlan), its own
            // geometry, one padded page (engine-memory.md, step 10).
            let dcell = sp.draft.kv_cell_bytes(super::dp_attention::attention_tp(e));
            late.push((
                MemKind::DraftKvPool,
                Bytes((kv.draft_tokens + e.page_size) * dcell),
            ));
        }
        // Issue #17 point 1 (ep): DeepEP's buffers, allocated at the first dispatch (`decode::moe_a2a`).
        if let Some(b) = super::moe_a2a::buffer_bytes(s) {
            late.push((MemKind::DeepEpBuffers, Bytes(b)));
        }
        if e.cuda_graph {
            late.push((
                MemKind::TargetCudaGraphs,
                observed_graphs.unwrap_or(e.costs.target_cuda_graph_memory),
            ));
            if s.speculative.is_some() {
                late.push((MemKind::DraftCudaGraphs, e.costs.draft_cuda_graph_memory));
            }
        }
        late.push((MemKind::Activations, e.costs.activation_memory));
        late
    }
}

/// The verdict when the target's KV pool, larger than what the profile budgeted, does not fit in
/// `available_gib` (the free memory its fit was checked against; the missing bytes saturate at 0).
fn pool_oom(kv: &SglangKvPlan, nsa: bool, available_gib: f64) -> Verdict {
    Verdict::Oom {
        step: if nsa {
            "allocating the target KV pool (NSATokenToKVPool larger than its budget)".into()
        } else {
            "allocating the target KV pool (inflated beyond the profile)".into()
        },
        message: TORCH_OOM.into(),
        missing: Bytes(
            kv.pool_bytes
                .0
                .saturating_sub(Bytes::from_gib_f64(available_gib.max(0.0)).0),
        ),
    }
}

/// The target's KV pool: one entry, or the SWA and full parts of a hybrid SWA pool.
fn kv_pool_entries(swa: Option<SwaPools>, kv: &SglangKvPlan) -> Vec<MemEntry> {
    match swa {
        Some(w) => vec![
            MemEntry {
                kind: MemKind::TargetKvPoolSwa {
                    layers: w.swa_layers,
                    tokens: w.swa_tokens,
                },
                bytes: w.swa_bytes,
                moment: Moment::KvPool,
                source: Source::EngineRule,
            },
            MemEntry {
                kind: MemKind::TargetKvPoolFull {
                    layers: w.full_layers,
                    tokens: w.full_tokens,
                },
                bytes: w.full_bytes,
                moment: Moment::KvPool,
                source: Source::EngineRule,
            },
        ],
        None => vec![MemEntry {
            kind: MemKind::TargetKvPool,
            bytes: kv.pool_bytes.0,
            moment: Moment::KvPool,
            source: Source::EngineRule,
        }],
    }
}

/// The note on a DSA model's KV: what SGLang budgets, what its pool allocates, and where the
/// difference comes from.
fn nsa_note(e: &Engine, n: &NsaKv, nsa_rule: NsaBudgetRule, kv: &SglangKvPlan) -> String {
    let over = kv.pool_bytes.as_gib_f64() - kv.rest_gib;
    format!(
        "DeepSeek DSA KV: SGLang budgets {} B per token per layer ({:?} rule, {} era) and its NSATokenToKVPool \
         allocates {} (latent {} + indexer {}); the pool is {:.2} GiB {} rest, {}",
        n.budget_cell(nsa_rule) / n.layers.max(1),
        nsa_rule,
        e.era.name(),
        n.pool_cell() / n.layers.max(1),
        n.latent_pool,
        n.index,
        over.abs(),
        if over > 0.0 { "above" } else { "within" },
        if over > 0.0 {
            "taken from the (1 − mem_fraction_static) reserve meant for CUDA graphs and activations"
        } else {
            "as budgeted"
        }
    )
}

/// Whether SGLang sizes this model's KV cache as a hybrid SWA pool, and the warnings it prints when
/// it turns that off (issue #16).
///
/// - 0.5.8 / 0.5.9 (`configs/model_config.py` `is_hybrid_swa_model`): only Llama-4
///   (`Llama4ForConditionalGeneration`), gpt-oss (`GptOssForCausalLM`) and, families23,
///   MiMo-V2-Flash (`MiMoV2FlashForCausalLM`, in the list from 0.5.7, its first release) get one; every other model with sliding windows (Gemma-2/3, Mistral, Mixtral) gets the plain pool
///   sized as if every layer were global.
/// - `server_args.py` `_handle_model_specific_adjustments` turns it off for Gemma-2/3 (warning "Disable
///   hybrid SWA memory for <arch> as it is not yet supported."), and for gpt-oss with the
///   `trtllm_mha` attention backend (the default on SM100, `is_sm100_supported`: compute capability
///   10.x) or with speculative decoding, each with its warning.
/// - `--disable-hybrid-swa-memory` turns it off silently.
/// - Before the late-2025 era tpsim has not read the rules (0.5.5 needed `--hybrid-kvcache-ratio` for
///   Llama-4 and disabled gpt-oss): the plain pool is used, with a note.
fn sglang_uses_swa_pool(s: &Scenario) -> (bool, Vec<String>) {
    use tpsim_model::llm::Architecture;
    let m = &s.model;
    if m.sliding_layers() == 0 {
        return (false, Vec::new());
    }
    let e = &s.engine;
    match m.arch {
        Architecture::Gemma2 | Architecture::Gemma3 => {
            let arch = match (m.arch, m.has_vision) {
                (Architecture::Gemma2, _) => "Gemma2ForCausalLM",
                (_, true) => "Gemma3ForConditionalGeneration",
                _ => "Gemma3ForCausalLM",
            };
            (
                false,
                vec![format!(
                    "SGLang: Disable hybrid SWA memory for {arch} as it is not yet supported. (every layer's KV is \
                     sized for the full context; the window only saves reads)"
                )],
            )
        }
        // families5 (issue #17): SGLang 0.5.9 `server_args.py` turns the pool off for EXAONE 4 with a
        // `sliding_window_pattern` (`scenario::exaone4`), with this warning.
        Architecture::Exaone4 => (
            false,
            vec![
                "SGLang: Disabling hybrid SWA memory for Exaone4ForCausalLM as it is not yet supported. (every \
                 layer's KV is sized for the full context; the window only saves reads)"
                    .to_string(),
            ],
        ),
        // families23 (issue #17): MiMo-V2-Flash always (SGLang 0.5.7 – 0.5.10 `is_hybrid_swa_model`);
        // `--disable-hybrid-swa-memory` turns it off.
        Architecture::MiMoV2Flash => (!e.disable_hybrid_swa_memory, Vec::new()),
        // families28 (issue #17): Step-3.5-Flash always (SGLang 0.5.9 `is_hybrid_swa_model` lists
        // `Step3p5ForCausalLM`, its first release); `--disable-hybrid-swa-memory` turns it off.
        Architecture::Step3p5 => (!e.disable_hybrid_swa_memory, Vec::new()),
        // families30 (issue #17): Gemma 4 always (SGLang 0.5.11 – 0.5.23 `configs/model_config.py` lists
        // `Gemma4ForCausalLM` / `Gemma4ForConditionalGeneration` in `is_hybrid_swa_model`; no override
        // turns it off); `--disable-hybrid-swa-memory` turns it off.
        Architecture::Gemma4 => (!e.disable_hybrid_swa_memory, Vec::new()),
        Architecture::Llama4 | Architecture::GptOss => {
            if e.era < SglangEra::Late2025 {
                return (
                    false,
                    vec![
                        "KV pool approximate: SGLang's hybrid SWA pool rules before 0.5.3 are not modelled; every \
                         local layer is counted as full attention"
                            .to_string(),
                    ],
                );
            }
            if e.disable_hybrid_swa_memory {
                return (false, Vec::new());
            }
            // 0.5.5 / 0.5.6 (`configs/model_config.py` `is_hybrid_model`): Llama-4 gets the SWA pool
            // only with `--hybrid-kvcache-ratio` (default none), which tpsim does not take: plain pool.
            if m.arch == Architecture::Llama4 && before_0_5_8(&e.release().version) {
                return (
                    false,
                    vec![
                        "KV pool: SGLang before 0.5.8 sizes Llama-4 as one pool over all layers unless \
                         --hybrid-kvcache-ratio is given (not modelled)"
                            .to_string(),
                    ],
                );
            }
            if m.arch == Architecture::GptOss {
                if s.hardware.gpu.compute_capability.starts_with("10.") {
                    return (
                        false,
                        vec![
                            "SGLang: Disable hybrid SWA memory for GPT-OSS model with trtllm_mha attention backend."
                                .to_string(),
                        ],
                    );
                }
                if s.speculative.is_some() {
                    return (
                        false,
                        vec![
                            "SGLang: Disable hybrid SWA memory for GPT-OSS model with speculative decoding."
                                .to_string(),
                        ],
                    );
                }
            }
            (true, Vec::new())
        }
        _ => (false, Vec::new()),
    }
}

/// What SGLang's weight load leaves on a rank beyond the parameters' bytes, bytes (mem50: each its own
/// memory entry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct SglangLoadExtra {
    /// The RoPE cos/sin caches (`MemKind::RopeCaches`).
    pub rope: u64,
    /// The allocator's segments kept beyond the live tensors (`MemKind::LoadSegments`).
    pub segments: u64,
}

/// mem49 (issue #17 point 5): what SGLang's "Load weight end … mem usage" holds on each rank beyond
/// the checkpoint's bytes, taken out of `total` with the weights, so the KV profile's `available` is
/// that much lower (mem50: as entries of their own beside the weights):
/// - the RoPE cos/sin caches it builds while it constructs the model (`tpsim_model::rope_cache`:
///   float32 on CUDA from 0.4.3, the model dtype on ROCm and before; LongRoPE's three buffers);
/// - the caching allocator's segments: SGLang reads the free memory after `torch.cuda.empty_cache()`,
///   which keeps every segment holding a tensor whole (`ModelSpec::sglang_load_segment_overhead`):
///   a 12.5 MiB `o_proj` shard holds a 14 MiB segment, an 85 MiB `gate_up_proj` one 86 MiB. On a
///   plain TP rank only (pipeline stages and DP attention: 0, their tensor lists are not built).
pub(crate) fn sglang_load_extra(s: &Scenario) -> SglangLoadExtra {
    use tpsim_model::llm::{KvCacheDtype, LoadGpu};
    use tpsim_model::rope_cache::{RopeRule, rope_cache_tensors};
    // dsv4run55 (issue #17): DeepSeek-V4 builds its own two `freqs_cis` tables over the config's
    // positions (`llm::deepseek_v4_weights::sglang_freqs_cis_bytes`); its allocator segments are not
    // modelled (assumed 0: its tensor list is not the generic one).
    if let Some(g) = &s.model.deepseek_v4 {
        return SglangLoadExtra {
            rope: tpsim_model::llm::deepseek_v4_weights::sglang_freqs_cis_bytes(
                g,
                s.model.context_len.unwrap_or(DSV4_POSITIONS),
            ),
            segments: 0,
        };
    }
    let release = crate::engine_args_versions::release(&s.engine.release().version);
    let nvidia = s.hardware.accel.vendor == crate::scenario::accel::GpuVendor::Nvidia;
    let dtype = KvCacheDtype::Auto.bytes(s.model.dtype);
    let rule = RopeRule::sglang(release.as_deref(), nvidia);
    let ropes = match served_context_rope(s, release.as_deref()) {
        Some(m) => rope_cache_tensors(&m, rule, dtype),
        None => rope_cache_tensors(&s.model, rule, dtype),
    };
    // grok52 (issue #17): Grok's cache in every layer (`tpsim_model::llm::grok`), float32 on CUDA.
    let layer_elem = tpsim_model::rope_cache::grok_layer_rope_elem(release.as_deref(), nvidia);
    let per_layer: u64 = tpsim_model::rope_cache::layer_rope_tensors(&s.model, layer_elem)
        .iter()
        .sum();
    let rope: u64 = ropes.iter().sum::<u64>().saturating_add(per_layer);
    let plain_tp = super::pipeline::binding_stage(s).is_none() && s.engine.dp_attention.is_none();
    let segments = if plain_tp {
        let gpu = if nvidia {
            LoadGpu::nvidia(&s.hardware.gpu)
        } else {
            LoadGpu::rocm(&s.hardware.gpu)
        };
        let rope_dtype = if rule.fp32 { 4 } else { dtype };
        s.model
            .sglang_load_segment_overhead_grok(s.engine.tp, &ropes, rope_dtype, dtype, layer_elem, &gpu)
    } else {
        0
    };
    SglangLoadExtra { rope, segments }
}

/// dsv4run55: the positions DeepSeek-V4-Flash's config declares (`max_position_embeddings`
/// 1,048,576), for a config without the key.
const DSV4_POSITIONS: u64 = 1 << 20;

/// grok52 (issue #17): the model with `context_len` = the served context (`--context-length`, else
/// `max_position_embeddings`) where SGLang sizes its shared RoPE cache by `hf_config.context_len`,
/// which `configs/model_config.py` sets from 0.5.3 (`self.hf_config.context_len = self.context_len`;
/// the 0.5.1 and 0.5.2 wheels have no such line): Grok (`grok.py` `Grok1DecoderLayer`: `max_position =
/// config.context_len if hasattr(config, "context_len") else config.max_position_embeddings`, every
/// wheel from 0.5.1) from 0.5.3, and MiMo-V2-Flash from 0.5.11 (`models/mimo_v2.py`
/// `MiMoV2DecoderLayer`: `getattr(config, "context_len", getattr(config, "max_position_embeddings",
/// 32768))`; 0.5.7 – 0.5.10's `mimo_v2_flash.py` reads `max_position_embeddings`). `None`
/// elsewhere (the config's rows). An unreadable version counts as the newest.
fn served_context_rope(s: &Scenario, release: Option<&[u64]>) -> Option<tpsim_model::llm::ModelSpec> {
    use tpsim_model::llm::Architecture;
    let at_least =
        |min: [u64; 3]| release.is_none_or(|r| [0, 1, 2].map(|i| r.get(i).copied().unwrap_or(0)) >= min);
    let reads_context = match s.model.arch {
        Architecture::Grok1 => at_least([0, 5, 3]),
        Architecture::MiMoV2Flash => at_least([0, 5, 11]),
        _ => false,
    };
    reads_context.then(|| {
        let mut m = s.model.clone();
        m.context_len = Some(s.engine.context_len);
        m
    })
}

/// families23 (issue #17): whether the engine's SGLang release predates 0.5.9, where MiMo-V2-Flash's
/// cell and pool split changed (`model_runner_kv_cache_mixin.py`, read at 0.5.7, 0.5.8, 0.5.9, 0.5.10).
/// An unreadable version counts as 0.5.9 or later.
fn mimo_before_0_5_9(e: &crate::scenario::Engine) -> bool {
    crate::engine_args_versions::release(&e.release().version)
        .is_some_and(|r| [0, 1, 2].map(|i| r.get(i).copied().unwrap_or(0)) < [0, 5, 9])
}

/// Whether an SGLang version string (`0.5.6`, `v0.5.5.post1`) is older than 0.5.8, the first version
/// read with the `is_hybrid_swa_model` list (0.5.7 unread: treated as older). Unparsable: false.
fn before_0_5_8(v: &str) -> bool {
    let nums: Vec<u64> = v
        .trim_start_matches('v')
        .split('.')
        .take(3)
        .map_while(|p| {
            let d: String = p.chars().take_while(char::is_ascii_digit).collect();
            d.parse().ok()
        })
        .collect();
    match nums.as_slice() {
        [a, b, c] => (*a, *b, *c) < (0, 5, 8),
        _ => false,
    }
}

/// vLLM v1's plan (engine-memory.md, "vLLM"): observed values from `[engine.observed]` where given.
fn plan_vllm(s: &Scenario) -> MemoryPlan {
    use tpsim_model::llm::online_quant::OnlineLoad;
    let e = &s.engine;
    let tp = e.tp;
    // Issue #17 point 5: torch's device total, and the start-up parts modelled (vllm_parts).
    let (total_gib, total_note) = super::vllm_parts::torch_total_gib(s);
    let m = VllmMeasured::of(s, total_gib);
    let cell = vllm_cell(s);
    let (layout, mut notes) = VllmLayout::of(s, cell);
    notes.extend(total_note);
    notes.extend(super::vllm_sampler_rule::note(s)); // vrows3: the sampler rule by vLLM version
    notes.extend(super::vllm_parts::non_torch_note(s)); // vllmold52: 0.10.1.x's measured growth
    // vgraph53 (issue #17): vLLM ≥ 0.20 subtracts its CUDA-graph estimate from the KV budget; a
    // measurement, taken from `[engine.observed]` or left out with a note (`vllm_graph_estimate`).
    let graphs = super::vllm_graph_estimate::GraphEstimate::of(s, total_gib);
    notes.extend(graphs.notes.iter().cloned());
    // Issue #17: the draft's weights (counted with the target's unless the load was observed) and
    // its pages in every block (`vllm_spec_memory`).
    let draft = super::vllm_spec_memory::DraftMemory::of(s);
    let draft_weights_gib = match m.weights.1 {
        Source::Observed => 0.0,
        _ => draft.weights.as_gib_f64(),
    };
    let plan_cell = layout.plan_cell + draft.cell;
    // Issue #17/#18 (vllmmaxlen): without `--max-model-len` vLLM checks the length it derives from
    // config.json (`vllm_max_model_len`), and says so here.
    let max_model_len = vllm_max_model_len(s);
    if e.max_model_len.is_none() {
        notes.push(format!(
            "max_model_len {max_model_len} (vLLM default: from config.json max_position_embeddings; \
             engine.max_model_len not set — vLLM refuses to start if one request of this length does not fit)"
        ));
    }
    let input = VllmKvInput {
        total_gib,
        free_at_start_gib: m.free_at_start.0,
        gpu_memory_utilization: e.gpu_memory_utilization,
        weights_gib: m.weights.0 + draft_weights_gib,
        peak_activation_gib: m.activation.0,
        // vgraph53: the CUDA-graph estimate is subtracted beside the non-torch growth
        // (`requested_memory − non_kv_cache_memory − estimate`); its own entry below.
        non_torch_gib: m.non_torch.0 + graphs.applied_gib,
        cell_size: plan_cell,
        block_size: layout.block_size,
        // A hybrid's start-up check counts its state pages (`vllm_hybrid::Hybrid::refusal`).
        // With decode context parallelism the check is made below (each rank holds ⌈len / dcp⌉).
        max_model_len: (layout.hybrid.is_none() && e.dcp <= 1).then_some(max_model_len),
    };
    let mut plan = match e.kv_cache_memory_bytes {
        Some(b) => tpsim_model::memory::vllm_kv_plan_with_bytes(&input, b),
        None => vllm_kv_plan(&input),
    };
    // vllmv0mem (issue #17 point 5): a V0 release sizes its blocks with its own rule.
    let mut vllm_v0 = None;
    if let Some(v0) = &e.v0 {
        let (p, log) = super::vllm_v0_kv::plan(s, v0, &input, max_model_len, &mut notes);
        plan = p;
        vllm_v0 = Some(log);
    }
    if e.dcp > 1 && layout.hybrid.is_none() && plan.error.is_none() {
        plan.error = tpsim_model::memory::vllm_max_len_refusal(
            max_model_len,
            u64::from(e.dcp),
            plan_cell,
            plan.tokens,
            plan.available_kv_gib,
        );
    }
    // vLLM's estimate of the longest request that fits sums each layer type's own use (a sliding
    // window caps its layers'); `vllm_kv_plan` counts one page size, so with several KV groups the
    // refusal is given without the estimate rather than with a figure vLLM would not print.
    if layout.groups.num_groups > 1
        && let Some(err) = plan.error.as_mut()
        && let Some(at) = err.find(" Based on the available memory")
    {
        err.truncate(at);
    }
    // Issue #17 (sglogs2): with sliding-window groups the check counts each layer type's own need
    // (`tpsim_model::vllm_sliding_check`), which vLLM prints with its estimate.
    if vllm_v0.is_none()
        && let Some(msg) = vllm_sliding_refusal(s, &layout, &plan, draft.cell, total_gib)
    {
        plan.error = msg;
    }
    let mut entries = m.entries(total_gib);
    if graphs.applied_gib > 0.0 {
        entries.push(MemEntry {
            kind: MemKind::TargetCudaGraphs,
            bytes: Bytes::from_gib_f64(graphs.applied_gib).0,
            moment: Moment::Profile,
            source: Source::Observed,
        });
    }
    let pool = Bytes(plan.tokens * plan_cell);
    let draft_pool = Bytes(plan.tokens * draft.cell);
    plan.tokens = layout
        .groups
        .reported_tokens(plan.blocks, layout.block_size.max(1));
    // families39 (issue #17): from 0.21.0 vLLM logs the sliding-window groups' figure as concurrency ×
    // length; tpsim's pool stays the tokens every group holds at once (what its scheduler serves).
    notes.extend(vllm_sliding::reported_note(
        s,
        &layout,
        (plan.blocks, plan.tokens),
        max_model_len,
        total_gib,
    ));
    // Issue #17 (vllmhybrid): the state pages share the blocks; vLLM's token figure and concurrency.
    let mut vllm_concurrency = None;
    let mut vllm_hybrid_pool = None;
    if let Some(h) = &layout.hybrid {
        let l = &h.layout;
        vllm_hybrid_pool = Some(VllmHybridPool {
            num_blocks: plan.blocks,
            block_size: l.block_size,
            attention_groups: l.attention_groups,
            state_groups: l.state_groups,
            align: h.align_mode(e.scheduler.prefix_cache),
            state_pages: h.state_pages,
        });
        plan.tokens = l.reported_tokens(&h.rules, plan.blocks, h.max_model_len, h.state_pages);
        vllm_concurrency = Some((
            h.max_model_len,
            l.max_concurrency(plan.blocks, h.max_model_len, h.state_pages),
        ));
        if plan.error.is_none()
            && let Some(msg) = h.refusal(Bytes::from_gib_f64(plan.available_kv_gib.max(0.0)).0)
        {
            plan.error = Some(msg);
        }
    }
    if draft_weights_gib > 0.0 {
        entries.insert(
            2,
            MemEntry {
                kind: MemKind::DraftWeights,
                bytes: draft.weights.0,
                moment: Moment::Load,
                source: Source::Modeled,
            },
        );
    }
    // Issue #17: vLLM 0.11 `v1/core/kv_cache_utils.py` reports dcp × the tokens under decode
    // context parallelism ("Multiplying the GPU KV cache size by the dcp_world_size"): each rank
    // stores 1/dcp of every request's tokens.
    plan.tokens = plan.tokens.saturating_mul(u64::from(e.dcp.max(1)));
    if e.dcp > 1 {
        notes.push(format!(
            "vLLM: \"Multiplying the GPU KV cache size by the dcp_world_size {}.\" (the tokens are the DCP \
             group's: each rank's pool holds 1/{} of every request)",
            e.dcp, e.dcp
        ));
    }
    if plan.tokens > 0 {
        entries.push(MemEntry {
            kind: MemKind::KvCache,
            bytes: pool.0 - draft_pool.0,
            moment: Moment::KvPool,
            source: Source::EngineRule,
        });
        if draft_pool.0 > 0 {
            entries.push(MemEntry {
                kind: MemKind::DraftKvPool,
                bytes: draft_pool.0,
                moment: Moment::KvPool,
                source: Source::EngineRule,
            });
        }
    }
    if s.speculative.is_some() && layout.groups.num_groups > 1 {
        notes.push(
            "draft KV approximate: the draft's pages are added to every block of vLLM's hybrid KV-cache groups; \
             vLLM places the draft layers in one group"
                .to_string(),
        );
    }
    // Smallest gpu_memory_utilization that starts: (weights + activation + non-torch + the KV the
    // start-up check asks for) / total. The check (issue #17/#18, vllmmaxlen) wants one request of
    // `max_model_len` — ⌈⌈len / dcp⌉ / block⌉ blocks per rank — where one page size holds every layer
    // (a hybrid or sliding-window model keeps the one-block floor: its need is counted elsewhere).
    let block = layout.block_size.max(1);
    let block_gib = (block * plan_cell) as f64 / (1u64 << 30) as f64;
    let need_gib = if layout.hybrid.is_none() && layout.groups.num_groups <= 1 {
        let per_rank = max_model_len.div_ceil(u64::from(e.dcp.max(1)));
        // In f64: a user's length may be any positive i64, whose bytes overflow u64.
        (per_rank.div_ceil(block) * block) as f64 * plan_cell as f64 / (1u64 << 30) as f64
    } else {
        block_gib
    };
    let min_util = (m.weights.0
        + draft_weights_gib
        + m.activation.0
        + m.non_torch.0
        + graphs.applied_gib
        + need_gib.max(block_gib))
        / total_gib;
    let mut verdict = vllm_verdict(&plan, need_gib.max(block_gib), m.free_at_start.0);
    // Issue #17 (sglanglogs, engine-memory.tsv line 59): weights that do not fit in the memory left
    // beside the CUDA context fail while the model is created, before the profile run. vLLM 0.28.0
    // with DeepSeek-R1-0528 FP8 at TP 8 on 8× H100 died in `fp8.py` `Fp8MoEMethod.create_weights`
    // (`torch.empty` of one layer's w13) with torch's "CUDA out of memory. Tried to allocate 896.00
    // MiB"; the KV profile and its "No available memory for the cache blocks" are never reached.
    // vLLM's start-up check ("Free memory on device … is less than desired") runs earlier and keeps
    // its verdict.
    let refused_at_start =
        plan.available_kv_gib == 0.0 && plan.error.as_ref().is_some_and(|e| e.contains("Free memory"));
    let load_gib = m.weights.0 + draft_weights_gib;
    if !refused_at_start && load_gib > m.free_at_start.0 {
        verdict = Verdict::Oom {
            step: "weight loading (the weights exceed the free memory)".into(),
            message: format!(
                "torch.OutOfMemoryError: CUDA out of memory while creating the weights: {load_gib:.2} GiB per \
                 rank, {:.2} GiB free beside the CUDA context",
                m.free_at_start.0
            ),
            missing: Bytes::from_gib_f64(load_gib - m.free_at_start.0),
        };
    }
    // vLLM's `--kv-cache-memory-bytes`: the budget is not checked against the memory left; a KV
    // cache that does not fit beside the weights and the profile's peak fails when allocated.
    if let Some(b) = e.kv_cache_memory_bytes {
        let kv_gib = b as f64 / (1u64 << 30) as f64;
        notes.push(format!(
            "vLLM: reserved {kv_gib:.2} GiB memory for KV Cache as specified by kv_cache_memory_bytes config and \
             skipped memory profiling. This does not respect the gpu_memory_utilization config."
        ));
        let need = m.weights.0 + draft_weights_gib + m.activation.0 + m.non_torch.0 + kv_gib;
        if matches!(verdict, Verdict::Ok) && need > m.free_at_start.0 {
            verdict = Verdict::Oom {
                step: "allocating the KV cache (kv_cache_memory_bytes)".into(),
                message: format!(
                    "torch.OutOfMemoryError: CUDA out of memory: the {kv_gib:.2} GiB KV cache of \
                     kv_cache_memory_bytes needs {need:.2} GiB with the weights and the profile's peak; {:.2} \
                     GiB free",
                    m.free_at_start.0
                ),
                missing: Bytes::from_gib_f64(need - m.free_at_start.0),
            };
        }
    }
    // Issue #17 (onlinequant): `--quantization fp8` on a bf16 checkpoint holds model-dtype weights
    // while loading (all of them up to vLLM 0.13, one layer from 0.14); the load runs after the
    // start-up free-memory check.
    if let Some(peak) = super::vllm_parts::online_load_peak(s) {
        let after = s.model.quantization.online == Some(OnlineLoad::AfterLoading);
        let what = if after {
            "vLLM (≤ 0.13) quantizes to fp8 after loading every weight in"
        } else {
            "vLLM (≥ 0.14, PR #31914) materializes and quantizes each layer as it loads, in"
        };
        notes.push(format!(
            "{what} {}: the load peaks at {:.2} GiB per rank",
            s.model.dtype.name(),
            peak.as_gib_f64()
        ));
        let startup_refused =
            plan.available_kv_gib == 0.0 && plan.error.as_ref().is_some_and(|e| e.contains("Free memory"));
        if !startup_refused && peak.as_gib_f64() > m.free_at_start.0 {
            verdict = Verdict::Oom {
                step: "weight loading (model-dtype weights before fp8 quantization)".into(),
                message: format!(
                    "CUDA out of memory while loading the weights: {:.2} GiB per rank at the peak, {:.2} \
                     GiB free ({what} {})",
                    peak.as_gib_f64(),
                    m.free_at_start.0,
                    s.model.dtype.name()
                ),
                missing: Bytes::from_gib_f64(peak.as_gib_f64() - m.free_at_start.0),
            };
        }
    }
    let headroom = if plan.error.is_none() {
        Bytes::from_gib_f64((plan.available_kv_gib - pool.as_gib_f64()).max(0.0))
    } else {
        Bytes(0)
    };
    if s.model.linear_state_bytes_per_req(tp) > 0 && layout.hybrid.is_none() {
        notes.push(
            "state pool sizing approximate: vLLM's pages for the linear-attention states are not modelled; \
             the KV cache counts only the full-attention layers and is optimistic"
                .to_string(),
        );
    }
    MemoryPlan {
        vllm_v0,
        kv_groups: layout.kv_groups(),
        vllm_concurrency,
        vllm_hybrid_pool,
        notes,
        verdict,
        cell_size: cell,
        rest_gib: plan.available_kv_gib,
        kv_tokens: plan.tokens,
        kv_pool: Bytes(pool.0 - draft_pool.0),
        draft_cell_size: s.speculative.as_ref().map(|_| draft.cell),
        draft_kv_tokens: s.speculative.as_ref().map(|_| plan.tokens),
        min_mem_fraction_static: (min_util <= 1.0).then_some(min_util),
        headroom,
        ..Measured {
            entries,
            total_gib,
            total_source: Source::Modeled,
            available_gib: plan.requested_gib,
            available_source: Source::EngineRule,
            note: None,
        }
        .into_plan(e.gpu_memory_utilization)
    }
}

/// What vLLM's start-up measures before the KV cache (GiB, each with its source): free memory at
/// start, the weights, the profile run's peak activation and non-torch growth.
struct VllmMeasured {
    free_at_start: (f64, Source),
    weights: (f64, Source),
    activation: (f64, Source),
    non_torch: (f64, Source),
}

impl VllmMeasured {
    fn of(s: &Scenario, total_gib: f64) -> Self {
        let e = &s.engine;
        let obs = e.observed.as_ref();
        let custom = custom_allreduce_buffers(e);
        let pick = |o: Option<f64>, modeled: Bytes| -> (f64, Source) {
            match o {
                Some(v) => (v, Source::Observed),
                None => (modeled.as_gib_f64(), Source::Modeled),
            }
        };
        let context = Bytes(s.hardware.params.context_overhead.0 + custom.0);
        VllmMeasured {
            free_at_start: pick(
                obs.and_then(|o| o.free_at_start_gib),
                Bytes::from_gib_f64((total_gib - context.as_gib_f64()).max(0.0)),
            ),
            weights: pick(obs.and_then(|o| o.weights_gib), super::vllm_parts::weights(s)),
            activation: pick(
                obs.and_then(|o| o.peak_activation_gib),
                super::vllm_parts::activation(s, total_gib).unwrap_or(e.costs.activation_memory),
            ),
            non_torch: pick(obs.and_then(|o| o.non_torch_gib), super::vllm_parts::non_torch(s)),
        }
    }

    /// The entries before the KV cache: the context before start-up, the weights at load, the
    /// activation and non-torch growth of the profile run.
    fn entries(&self, total_gib: f64) -> Vec<MemEntry> {
        let gib = |v: f64| Bytes::from_gib_f64(v.max(0.0)).0;
        vec![
            MemEntry {
                kind: MemKind::ContextBeforeStartup,
                bytes: gib(total_gib - self.free_at_start.0),
                moment: Moment::BeforeStart,
                source: self.free_at_start.1,
            },
            MemEntry {
                kind: MemKind::TargetWeights,
                bytes: gib(self.weights.0),
                moment: Moment::Load,
                source: self.weights.1,
            },
            MemEntry {
                kind: MemKind::PeakActivation,
                bytes: gib(self.activation.0),
                moment: Moment::Profile,
                source: self.activation.1,
            },
            MemEntry {
                kind: MemKind::NonTorchGrowth,
                bytes: gib(self.non_torch.0),
                moment: Moment::Profile,
                source: self.non_torch.1,
            },
        ]
    }
}

/// How vLLM lays the model's KV out in blocks: its groups, the cell per token of a block and the
/// padding layers of the groups.
struct VllmLayout {
    groups: VllmKvGroups,
    plan_cell: u64,
    padding_layers: u64,
    /// Tokens per block: `--block-size`, or the size vLLM sets for a hybrid.
    block_size: u64,
    /// A hybrid Mamba-2 / Gated DeltaNet model's layout (issue #17, `vllm_hybrid`).
    hybrid: Option<super::vllm_hybrid::Hybrid>,
}

impl VllmLayout {
    /// The layout for the model's `cell`, and the warnings vLLM prints about it.
    fn of(s: &Scenario, cell: u64) -> (Self, Vec<String>) {
        if let Some(h) = super::vllm_hybrid::of(s, cell) {
            // Pages of `group_size` layers per block: per token of a block, group_size × the attention
            // bytes per token per layer (the state pages are padded to the same page).
            let counts = [h.attention_layers, h.state_layers];
            let (padding_layers, mut notes) = vllm_padding(&counts, &h.layout.groups);
            notes.extend(h.notes.iter().cloned());
            let layout = VllmLayout {
                groups: h.layout.groups,
                plan_cell: h.layout.groups.cell_size(cell / h.attention_layers),
                padding_layers,
                block_size: h.layout.block_size,
                hybrid: Some(h),
            };
            return (layout, notes);
        }
        let (hybrid, mut notes) = vllm_uses_hybrid_manager(s);
        let counts = if hybrid {
            s.model.kv_layer_counts()
        } else {
            vec![u64::from(s.model.kv_layers())]
        };
        let groups = vllm_kv_groups(&counts);
        let plan_cell = if hybrid {
            groups.cell_size(cell / u64::from(s.model.kv_layers().max(1)))
        } else {
            cell
        };
        let (padding_layers, padding_notes) = vllm_padding(&counts, &groups);
        notes.extend(padding_notes);
        let layout = VllmLayout {
            groups,
            plan_cell,
            padding_layers,
            block_size: s.engine.page_size,
            hybrid: None,
        };
        (layout, notes)
    }

    /// The groups, when the hybrid manager keeps more than one.
    fn kv_groups(&self) -> Option<KvGroups> {
        (self.groups.num_groups > 1).then_some(KvGroups {
            group_size: self.groups.group_size,
            num_groups: self.groups.num_groups,
            padding_layers: self.padding_layers,
        })
    }
}

/// vLLM's KV cell per token. DSA: one uniform-type group of latent + indexer pages per layer
/// (fp8_ds_mla 656 + 132, bf16 1,152 + 132 B per token per layer; tpsim_model::llm::dsa) — vLLM
/// allocates what it budgets.
fn vllm_cell(s: &Scenario) -> u64 {
    // grok52 (issue #17): MiMo-V2-Flash's unified pages, V padded to the q/k width before 0.20
    // (vllmnew53: `crate::scenario::vllm_diffkv`; `tpsim_model::llm::ModelSpec::mimo_v2_vllm_cell`).
    let pad_v = crate::scenario::vllm_diffkv::pads_v(&s.engine.release().version);
    if let Some(c) = s
        .model
        .mimo_v2_vllm_cell(s.engine.tp, vllm_uses_hybrid_manager(s).0, pad_v)
    {
        return c;
    }
    match s
        .model
        .nsa_kv(s.model.quantization.kv_cache_dtype.bytes(s.model.dtype))
    {
        Some(n) => n.pool_cell(),
        None => super::dp_attention::kv_cell(s),
    }
}

/// Whether vLLM's hybrid KV-cache manager keeps this model's attention types apart, and the warnings
/// it prints when it does not.
///
/// Sliding-window + full attention (gpt-oss): vLLM's hybrid allocator puts `group_size` layers'
/// pages in one block and reports blocks // groups × block_size tokens (`vllm_kv_groups`). One
/// attention type is one group of all its layers, i.e. the plain cell.
/// Local/global attention (issue #16): vLLM 0.11 turns the hybrid manager off for chunked local
/// attention (Llama-4) by default (`config/__init__.py` `VllmConfig.__post_init__`, with its
/// warning), or on `--disable-hybrid-kv-cache-manager`; `unify_hybrid_kv_cache_specs` then makes
/// every layer full attention (its warning): one group of all layers, the plain cell.
fn vllm_uses_hybrid_manager(s: &Scenario) -> (bool, Vec<String>) {
    let mut notes = Vec::new();
    let chunked = s
        .model
        .mixers
        .contains(&tpsim_model::llm::Mixer::ChunkedAttention);
    let local = u64::from(s.model.sliding_layers());
    let mixed = local > 0 && local < u64::from(s.model.kv_layers());
    if chunked {
        notes.push(
            "vLLM: There is a latency regression when using chunked local attention with the hybrid KV cache \
             manager. Disabling it, by default. To enable it, set the environment \
             VLLM_ALLOW_CHUNKED_LOCAL_ATTN_WITH_HYBRID_KV_CACHE=1."
                .to_string(),
        );
    }
    let hybrid = mixed && !chunked && !s.engine.disable_hybrid_kv_cache_manager;
    if mixed && !hybrid {
        notes.push(
            "vLLM: Hybrid KV cache manager is disabled for this hybrid model, This means we do not enable any \
             optimizations for saving KV cache memory (e.g., dropping the KV cache outside the sliding window). \
             The compute of layers like sliding window is still saved."
                .to_string(),
        );
    }
    (hybrid, notes)
}

/// `_get_kv_cache_groups_uniform_page_size`: each type's last group is padded to group_size layers,
/// with a warning per type. The padding layers and the warnings.
fn vllm_padding(counts: &[u64], groups: &VllmKvGroups) -> (u64, Vec<String>) {
    let mut notes = Vec::new();
    let mut padding_layers = 0;
    if groups.num_groups > 1 {
        for n in counts.iter().copied().filter(|&n| n > 0) {
            let pad = groups.group_size - n % groups.group_size;
            if pad != groups.group_size {
                padding_layers += pad;
                notes.push(format!(
                    "vLLM: Add {pad} padding layers, may waste at most {:.2}% KV cache memory",
                    pad as f64 / n as f64 * 100.0
                ));
            }
        }
    }
    (padding_layers, notes)
}

/// vLLM's `max_model_len`: `--max-model-len` when given, else the length it derives from the model's
/// config.json. vLLM `config/model.py` `_get_and_verify_max_len` (0.11.0; same rule in 0.19.0) takes
/// the smallest of `max_position_embeddings`, `n_positions`, `max_seq_len`, `seq_length`,
/// `max_target_positions`, `max_sequence_length`, `max_seq_length`, `seq_len` (a config
/// `model_max_length` overrides them, the tokenizer's caps them), then multiplies by
/// `rope_scaling.factor` unless the rope type is `su`/`longrope`/`llama3` (yarn: factor ×
/// `original_max_position_embeddings`; Gemma-3 skipped). The model preset carries
/// `max_position_embeddings` only ([`tpsim_model::llm::ModelSpec::context_len`]), so a config whose
/// length comes from another key, a tokenizer cap or a yarn/dynamic factor is approximated by it.
/// `engine.context_length` (SGLang's flag) is not vLLM's and does not count here, except as the
/// fallback when the config has no length at all (vLLM would assume 2048 there).
pub(crate) fn vllm_max_model_len(s: &Scenario) -> u64 {
    s.engine
        .max_model_len
        .or(s.model.context_len)
        .unwrap_or(s.engine.context_len)
}

/// vLLM's start-up check of one `--max-model-len` request for a model whose sliding-window layers
/// keep their own KV-cache groups (the hybrid KV cache manager on, no Mamba state): the full layers'
/// ⌈len / block⌉ pages plus the sliding layers' ⌈min(window − 1 + max_num_batched_tokens, len) /
/// block⌉ + 1 (`tpsim_model::vllm_sliding_check`; by layer up to 0.13, padded to whole groups from
/// 0.14). `Some(new error)` when it decides differently from the single-page-size check of
/// `vllm_kv_plan` (which counts one group's pages per token only), `None` to keep that one: no
/// `--max-model-len`, no sliding group, a draft's pages in the blocks (not modelled here), or an
/// earlier error that is not this check's.
fn vllm_sliding_refusal(
    s: &Scenario,
    layout: &VllmLayout,
    plan: &tpsim_model::memory::VllmKvPlan,
    draft_cell: u64,
    total_gib: f64,
) -> Option<Option<String>> {
    let len = vllm_max_model_len(s);
    if draft_cell > 0
        || plan.error.as_ref().is_some_and(|t| !t.contains("max seq len"))
        || plan.available_kv_gib <= 0.0
    {
        return None;
    }
    let (check, _) = vllm_sliding::check(s, layout, total_gib)?;
    const GIB: f64 = (1u64 << 30) as f64;
    let available = (plan.available_kv_gib * GIB) as u64;
    let need = check.needed_bytes(len);
    if need <= available {
        return Some(None);
    }
    let best = check.estimate_max_model_len(len, available);
    let estimate = if best > 0 {
        format!(" Based on the available memory, the estimated maximum model length is {best}.")
    } else {
        String::new()
    };
    Some(Some(format!(
        "ValueError: To serve at least one request with the model's max seq len ({len}), ({:.2} GiB KV cache is \
         needed, which is larger than the available KV cache memory ({:.2} GiB).{estimate}",
        need as f64 / GIB,
        plan.available_kv_gib
    )))
}

/// vLLM's start-up verdict: its start-up check on free memory, or the KV profile's error.
fn vllm_verdict(plan: &VllmKvPlan, block_gib: f64, free_at_start: f64) -> Verdict {
    match &plan.error {
        None => Verdict::Ok,
        Some(msg) => Verdict::Oom {
            step: if plan.available_kv_gib == 0.0 && msg.contains("Free memory") {
                "start-up check (free memory < total × gpu_memory_utilization)".into()
            } else {
                "KV cache profile (requested − weights − activation − non-torch)".into()
            },
            message: msg.clone(),
            missing: Bytes::from_gib_f64(if msg.contains("Free memory") {
                plan.requested_gib - free_at_start
            } else {
                block_gib - plan.available_kv_gib
            }),
        },
    }
}

/// Which SGLang budget rule applies to a DSA model (h2, issue #16; `NsaBudgetRule`): a release of
/// 0.5.17 or later (the fix, `pool_configurator.py` `_compute_cell_size`) budgets what the pool
/// allocates; 0.5.14–0.5.16, spring-2026 by their memory era (release52), still budget latent +
/// indexer (`model_executor/pool_configurator.py` `_compute_cell_size` of 0.5.16: the indexer term
/// over `kv_lora_rank + qk_rope_head_dim`, without 0.5.17's `calculate_mla_kv_cache_dim`); otherwise
/// by era. Without `engine.version` the release is
/// `crate::engine_release::CURRENT_SGLANG` (0.5.9), before the fix.
fn nsa_budget_rule(e: &crate::scenario::Engine) -> tpsim_model::llm::NsaBudgetRule {
    use tpsim_model::llm::NsaBudgetRule;
    let v = crate::engine_args_versions::release(&e.release().version).unwrap_or_default();
    if v.as_slice() >= [0, 5, 17].as_slice() {
        NsaBudgetRule::Allocated
    } else if e.era == SglangEra::Spring2026 && v.as_slice() >= [0, 5, 14].as_slice() {
        NsaBudgetRule::LatentAndIndexer
    } else {
        NsaBudgetRule::for_era(e.era)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn moments_serialize_as_their_names() {
        for m in Moment::ALL {
            assert_eq!(serde_json::to_value(m).unwrap(), m.as_str());
            assert_eq!(format!("{m:<18}|"), format!("{:<18}|", m.as_str()));
        }
    }

    #[test]
    fn kinds_serialize_as_their_names() {
        for (k, name) in [
            (MemKind::TargetWeights, "target weights"),
            (MemKind::StatePool { slots: 96 }, "state pool, 96 requests"),
            (MemKind::TargetCudaGraphs, "target CUDA graphs"),
        ] {
            assert_eq!(k.name(), name);
            assert_eq!(serde_json::to_value(k).unwrap(), name);
            assert_eq!(format!("{k:<36}|"), format!("{name:<36}|"));
        }
    }
}
