//! The per-rank memory plan of the scenario (first cut of issue #5): SGLang's KV sizing from
//! observed or modeled free memory, then every allocation after the pool checked against what is left.

use crate::scenario::{AllreduceBackend, EngineKind, Scenario};
use tpsim_model::memory::{
    LateAllocation, LateVerdict, SglangEra, SglangKvInput, SpecShape, TORCH_OOM, check_late_allocations,
    sglang_kv_plan, sglang_min_fraction, sglang_no_kv_memory_error, sglang_not_enough_memory,
    sglang_spring_cell_size,
};
use tpsim_model::memory::{VllmKvInput, vllm_kv_groups, vllm_kv_plan};
use tpsim_model::state_pool::sglang_state_pool;
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

/// One allocation on a rank.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct MemEntry {
    pub name: String,
    pub bytes: u64,
    /// "before total", "before available", "kv pool", "after pool".
    pub moment: &'static str,
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
    /// Where the plan is approximate (reported as warnings).
    pub notes: Vec<String>,
}

/// Builds the plan.
pub fn plan_memory(s: &Scenario) -> MemoryPlan {
    if s.engine.kind == EngineKind::Vllm {
        return plan_vllm(s);
    }
    let e = &s.engine;
    let tp = e.tp;
    let gib = |b: Bytes| b.as_gib_f64();
    let device = Bytes(s.hardware.gpu.memory_total_mib * Bytes::MIB);
    let custom = if e.allreduce == AllreduceBackend::Custom {
        e.costs.custom_allreduce_buffers
    } else {
        Bytes(0)
    };
    let weights = s.model.weight_bytes_per_rank(tp);
    let mut entries = vec![MemEntry {
        name: "CUDA context, NCCL communicators".into(),
        bytes: s.hardware.params.context_overhead.0,
        moment: "before total",
        source: Source::Modeled,
    }];
    if custom.0 > 0 {
        entries.push(MemEntry {
            name: "custom-allreduce IPC buffers".into(),
            bytes: custom.0,
            moment: "before total",
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
        name: "target weights".into(),
        bytes: weights.0,
        moment: "before available",
        source: Source::Modeled,
    });
    // Spring 2026 counts the draft's weights before the KV profile (engine-memory.md, eras table);
    // earlier eras load them after the pool, out of the reserve.
    let spring = e.era >= SglangEra::Spring2026;
    let draft_weights = s
        .speculative
        .as_ref()
        .map(|sp| sp.draft_weights)
        .unwrap_or(Bytes(0));
    if spring && draft_weights.0 > 0 {
        entries.push(MemEntry {
            name: "draft weights".into(),
            bytes: draft_weights.0,
            moment: "before available",
            source: Source::Modeled,
        });
    }
    let early_draft = if spring { draft_weights } else { Bytes(0) };
    let (available_gib, available_source) = match (
        obs.and_then(|o| o.free_after_weights_gib),
        obs.and_then(|o| o.weights_gib),
    ) {
        (Some(v), _) => ((v - gib(early_draft)).max(0.0), Source::Observed),
        (None, Some(w)) => ((total_gib - w - gib(early_draft)).max(0.0), Source::Observed),
        (None, None) => (
            (total_gib - gib(weights) - gib(early_draft)).max(0.0),
            Source::Modeled,
        ),
    };
    if let Some(w) = obs.and_then(|o| o.weights_gib)
        && let Some(entry) = entries.iter_mut().find(|e| e.name == "target weights")
    {
        entry.bytes = Bytes::from_gib_f64(w).0;
        entry.source = Source::Observed;
    }
    // DSA (DeepSeek-V3.2, GLM-5): SGLang budgets per its version's rule and allocates the NSA pool's
    // own layout (tpsim_model::llm::dsa).
    let nsa = s
        .model
        .nsa_kv(s.model.quantization.kv_cache_dtype.bytes(s.model.dtype));
    let nsa_rule = nsa_budget_rule(e);
    let target_cell = match nsa {
        Some(n) => n.budget_cell(nsa_rule),
        None => s.model.kv_cell_bytes(tp),
    };
    // Spring 2026: the target's cell carries the EAGLE draft's layers (KV-holding layers only).
    let cell = match &s.speculative {
        Some(sp) if spring => sglang_spring_cell_size(target_cell, sp.draft.kv_layers(), s.model.kv_layers()),
        _ => target_cell,
    };
    // Hybrid linear-attention models: the state pool comes out of `rest` before the KV pool
    // (tpsim_model::state_pool); passing a smaller `available` lowers `rest` by the same amount.
    let per_req = s.model.linear_state_bytes_per_req(tp);
    let state_pool = (per_req > 0).then(|| {
        sglang_state_pool(
            available_gib - total_gib * (1.0 - e.mem_fraction_static),
            per_req,
            s.speculative.as_ref().map(|sp| u64::from(sp.num_draft_tokens)),
            e.max_running_requests,
        )
    });
    let state_gib = state_pool.map_or(0.0, |p| {
        (available_gib - total_gib * (1.0 - e.mem_fraction_static)) - p.rest_after_gib
    });
    let mut notes = Vec::new();
    // gpt-oss under SGLang. A 2026 build sizes the pools in `model_executor/pool_configurator.py`
    // `HybridSWAPoolConfigurator`: max tokens = rest // (full B/token × full layers + swa_full_tokens_ratio
    // × window B/token × window layers), window pool = ratio × full pool (server default ratio 0.8);
    // older eras size them in `model_runner.py`. Not implemented (per era, unverified against logs).
    if s.model.sliding_layers() > 0 {
        notes.push(
            "KV pool approximate: SGLang's SWA pool (separate full and sliding-window pools, the window pool \
             swa_full_tokens_ratio × the full one) is not modelled; every sliding-window layer is counted as full \
             attention (fewer tokens than SGLang reports)"
                .to_string(),
        );
    }
    if state_pool.is_some() && s.speculative.is_some() && spring {
        notes.push(
            "draft KV share approximate: the spring-2026 cell × (1 + draft layers / target layers) rule is applied \
             with full-attention layer counts for this hybrid model (not verified against SGLang's hybrid pools)"
                .to_string(),
        );
    }
    if state_pool.is_some() && s.speculative.is_some() {
        notes.push(
            "state pool sizing approximate: SGLang's speculative intermediate-state reservation is modelled with \
             the default radix cache and no_buffer strategy (3 slots per request)"
                .to_string(),
        );
    }
    let spec = s.speculative.as_ref().map(|sp| SpecShape {
        num_steps: u64::from(sp.num_steps),
        topk: u64::from(sp.topk),
        num_draft_tokens: u64::from(sp.num_draft_tokens),
    });
    let mut kv = sglang_kv_plan(&SglangKvInput {
        total_gib,
        available_gib: available_gib - state_gib,
        mem_fraction_static: e.mem_fraction_static,
        cell_size: cell,
        page_size: e.page_size,
        max_total_tokens: e.max_total_tokens,
        era: e.era,
        context_len: e.context_len,
        max_running_requests: e.max_running_requests,
        spec,
    });
    // DSA: the pool is `NSATokenToKVPool`'s size, not tokens × budget; what it holds beyond `rest`
    // comes out of the (1 − f) reserve, and PyTorch fails the allocation if it exceeds the free memory.
    if let Some(n) = nsa
        && kv.starts
    {
        let pool = n.sglang_pool_bytes(kv.tokens, e.page_size.max(1));
        let available = Bytes::from_gib_f64(available_gib - state_gib);
        kv.pool_bytes = Bytes(pool);
        kv.pool_fits = pool <= available.0;
        kv.free_after_pool = Bytes(available.0.saturating_sub(pool));
    }
    // Mid 2025: the speculative inflation (at the threshold the request pool is at its floor of 2048
    // unless configured) lets the engine start with a negative profile.
    let inflation = match (e.era, spec) {
        (SglangEra::Mid2025, Some(sp)) => {
            e.max_running_requests.unwrap_or(2048) * (sp.num_steps * sp.topk + sp.num_draft_tokens) + 100
        }
        _ => 0,
    };
    let min_f = if inflation > 0 {
        let need = (e.page_size.max(1) as f64 - inflation as f64) * cell as f64 / (1u64 << 30) as f64;
        Some((1.0 - (available_gib - need) / total_gib).clamp(0.0, 1.0))
    } else {
        sglang_min_fraction(total_gib, available_gib, cell, e.page_size)
    };
    let mut plan = MemoryPlan {
        verdict: Verdict::Ok,
        total_gib,
        total_source,
        available_gib,
        available_source,
        mem_fraction_static: e.mem_fraction_static,
        cell_size: cell,
        pool_cell_size: nsa.map(|n| n.pool_cell()).filter(|&c| c != cell),
        // The engine's `rest` (the state pool, listed as an entry, comes out of it).
        rest_gib: kv.rest_gib + state_gib,
        kv_tokens: kv.tokens,
        kv_pool: kv.pool_bytes,
        draft_cell_size: s.speculative.as_ref().map(|sp| sp.draft.kv_cell_bytes(tp)),
        draft_kv_tokens: s.speculative.as_ref().map(|_| kv.draft_tokens),
        max_num_reqs: Some(kv.max_num_reqs),
        max_running_requests: Some(kv.max_running_requests),
        min_mem_fraction_static: min_f,
        headroom: Bytes(0),
        entries,
        notes,
    };
    if let Some(n) = nsa {
        let over = kv.pool_bytes.as_gib_f64() - kv.rest_gib;
        plan.notes.push(format!(
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
        ));
    }
    if let Some(p) = state_pool {
        plan.max_running_requests = plan.max_running_requests.map(|m| m.min(p.max_running_requests));
        plan.entries.push(MemEntry {
            name: format!("state pool, {} requests", p.slots),
            bytes: p.bytes + p.intermediate_bytes,
            moment: "kv pool",
            source: Source::EngineRule,
        });
    }
    if !kv.starts {
        let need = (e.page_size.max(1) * cell) as f64 / (1u64 << 30) as f64;
        plan.verdict = Verdict::Oom {
            step: "KV cache profile (rest = available − total × (1 − mem_fraction_static) ≤ 0)".into(),
            message: if spring && kv.rest_gib <= 0.0 {
                sglang_no_kv_memory_error(e.mem_fraction_static, available_gib, total_gib)
            } else {
                sglang_not_enough_memory(e.era, e.mem_fraction_static)
            },
            missing: Bytes::from_gib_f64(need - kv.rest_gib),
        };
        plan.max_running_requests = None;
        plan.draft_kv_tokens = plan.draft_kv_tokens.map(|_| 0);
        return plan;
    }
    if !kv.pool_fits {
        plan.verdict = Verdict::Oom {
            step: if nsa.is_some() {
                "allocating the target KV pool (NSATokenToKVPool larger than its budget)".into()
            } else {
                "allocating the target KV pool (inflated beyond the profile)".into()
            },
            message: TORCH_OOM.into(),
            missing: Bytes(kv.pool_bytes.0 - Bytes::from_gib_f64(available_gib).0),
        };
        return plan;
    }
    plan.entries.push(MemEntry {
        name: "target KV pool".into(),
        bytes: kv.pool_bytes.0,
        moment: "kv pool",
        source: Source::EngineRule,
    });
    let mut late = Vec::new();
    if let Some(sp) = &s.speculative {
        if !spring {
            late.push(LateAllocation {
                name: "draft weights".into(),
                bytes: draft_weights,
            });
        }
        // The draft's pool: the target's token count (early 2025: more, see SglangKvPlan), its own
        // geometry, one padded page (engine-memory.md, step 10).
        let dcell = sp.draft.kv_cell_bytes(tp);
        late.push(LateAllocation {
            name: "draft KV pool".into(),
            bytes: Bytes((kv.draft_tokens + e.page_size) * dcell),
        });
    }
    let observed_graphs = obs.and_then(|o| o.cuda_graph_gib).map(Bytes::from_gib_f64);
    if e.cuda_graph {
        late.push(LateAllocation {
            name: "target CUDA graphs".into(),
            bytes: observed_graphs.unwrap_or(e.costs.target_cuda_graph_memory),
        });
        if s.speculative.is_some() {
            late.push(LateAllocation {
                name: "draft CUDA graphs".into(),
                bytes: e.costs.draft_cuda_graph_memory,
            });
        }
    }
    late.push(LateAllocation {
        name: "activations".into(),
        bytes: e.costs.activation_memory,
    });
    for a in &late {
        let observed = a.name == "target CUDA graphs" && observed_graphs.is_some();
        plan.entries.push(MemEntry {
            name: a.name.clone(),
            bytes: a.bytes.0,
            moment: "after pool",
            source: if observed {
                Source::Observed
            } else {
                Source::Modeled
            },
        });
    }
    match check_late_allocations(kv.free_after_pool, &late) {
        LateVerdict::Fits { headroom } => plan.headroom = headroom,
        LateVerdict::Fails { index, missing } => {
            plan.verdict = Verdict::Oom {
                step: format!("allocating {} after the KV pool", late[index].name),
                message: TORCH_OOM.into(),
                missing,
            };
        }
    }
    plan
}

/// vLLM v1's plan (engine-memory.md, "vLLM"): observed values from `[engine.observed]` where given.
fn plan_vllm(s: &Scenario) -> MemoryPlan {
    let e = &s.engine;
    let tp = e.tp;
    let obs = e.observed.as_ref();
    let total_gib = s.hardware.gpu.memory_total_mib as f64 / 1024.0;
    let custom = if e.allreduce == AllreduceBackend::Custom {
        e.costs.custom_allreduce_buffers
    } else {
        Bytes(0)
    };
    let pick = |o: Option<f64>, modeled: Bytes| -> (f64, Source) {
        match o {
            Some(v) => (v, Source::Observed),
            None => (modeled.as_gib_f64(), Source::Modeled),
        }
    };
    let context = Bytes(s.hardware.params.context_overhead.0 + custom.0);
    let (free_at_start, free_src) = pick(
        obs.and_then(|o| o.free_at_start_gib),
        Bytes::from_gib_f64((total_gib - context.as_gib_f64()).max(0.0)),
    );
    let (weights, w_src) = pick(obs.and_then(|o| o.weights_gib), s.model.weight_bytes_per_rank(tp));
    let (activation, a_src) = pick(obs.and_then(|o| o.peak_activation_gib), e.costs.activation_memory);
    let (non_torch, n_src) = pick(
        obs.and_then(|o| o.non_torch_gib),
        e.costs.non_torch_memory.unwrap_or(Bytes(0)),
    );
    // DSA: one uniform-type group of latent + indexer pages per layer (fp8_ds_mla 656 + 132, bf16
    // 1,152 + 132 B per token per layer; tpsim_model::llm::dsa) — vLLM allocates what it budgets.
    let cell = match s
        .model
        .nsa_kv(s.model.quantization.kv_cache_dtype.bytes(s.model.dtype))
    {
        Some(n) => n.pool_cell(),
        None => s.model.kv_cell_bytes(tp),
    };
    // Sliding-window + full attention (gpt-oss): vLLM's hybrid allocator puts `group_size` layers'
    // pages in one block and reports blocks // groups × block_size tokens (`vllm_kv_groups`). One
    // attention type is one group of all its layers, i.e. the plain cell.
    let groups = vllm_kv_groups(&s.model.kv_layer_counts());
    let plan_cell = if s.model.sliding_layers() > 0 {
        groups.cell_size(cell / u64::from(s.model.kv_layers().max(1)))
    } else {
        cell
    };
    let mut plan = vllm_kv_plan(&VllmKvInput {
        total_gib,
        free_at_start_gib: free_at_start,
        gpu_memory_utilization: e.gpu_memory_utilization,
        weights_gib: weights,
        peak_activation_gib: activation,
        non_torch_gib: non_torch,
        cell_size: plan_cell,
        block_size: e.page_size,
        max_model_len: e.max_model_len,
    });
    let gib = |v: f64| Bytes::from_gib_f64(v.max(0.0)).0;
    let mut entries = vec![
        MemEntry {
            name: "CUDA context, NCCL (before start-up)".into(),
            bytes: gib(total_gib - free_at_start),
            moment: "before start",
            source: free_src,
        },
        MemEntry {
            name: "target weights".into(),
            bytes: gib(weights),
            moment: "load",
            source: w_src,
        },
        MemEntry {
            name: "peak activation (profile run)".into(),
            bytes: gib(activation),
            moment: "profile",
            source: a_src,
        },
        MemEntry {
            name: "non-torch growth".into(),
            bytes: gib(non_torch),
            moment: "profile",
            source: n_src,
        },
    ];
    let pool = Bytes(plan.tokens * plan_cell);
    plan.tokens = groups.reported_tokens(plan.blocks, e.page_size.max(1));
    if plan.tokens > 0 {
        entries.push(MemEntry {
            name: "KV cache".into(),
            bytes: pool.0,
            moment: "kv pool",
            source: Source::EngineRule,
        });
    }
    // Smallest gpu_memory_utilization that yields one block: (weights + activation + non-torch + one
    // block) / total.
    let block_gib = (e.page_size.max(1) * plan_cell) as f64 / (1u64 << 30) as f64;
    let min_util = (weights + activation + non_torch + block_gib) / total_gib;
    let verdict = match &plan.error {
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
    };
    let headroom = if plan.error.is_none() {
        Bytes::from_gib_f64((plan.available_kv_gib - pool.as_gib_f64()).max(0.0))
    } else {
        Bytes(0)
    };
    let notes = if s.model.linear_state_bytes_per_req(tp) > 0 {
        vec![
            "state pool sizing approximate: vLLM's pages for the linear-attention states are not modelled; \
             the KV cache counts only the full-attention layers and is optimistic"
                .to_string(),
        ]
    } else {
        Vec::new()
    };
    MemoryPlan {
        notes,
        verdict,
        total_gib,
        total_source: Source::Modeled,
        available_gib: plan.requested_gib,
        available_source: Source::EngineRule,
        mem_fraction_static: e.gpu_memory_utilization,
        cell_size: cell,
        pool_cell_size: None,
        rest_gib: plan.available_kv_gib,
        kv_tokens: plan.tokens,
        kv_pool: pool,
        draft_cell_size: None,
        draft_kv_tokens: None,
        max_num_reqs: None,
        max_running_requests: None,
        min_mem_fraction_static: (min_util <= 1.0).then_some(min_util),
        headroom,
        entries,
    }
}

/// Which SGLang budget rule applies to a DSA model (h2, issue #16; `NsaBudgetRule`): by era, except
/// that an explicit `engine.version` of 0.5.17 or later (the fix, `pool_configurator.py`
/// `_compute_cell_size`) budgets what the pool allocates.
fn nsa_budget_rule(e: &crate::scenario::Engine) -> tpsim_model::llm::NsaBudgetRule {
    use tpsim_model::llm::NsaBudgetRule;
    let fixed = e.version.as_deref().is_some_and(|v| {
        let mut it = v.trim().trim_start_matches(['~', 'v', 'V']).split('.').map(|p| {
            p.chars()
                .take_while(char::is_ascii_digit)
                .collect::<String>()
                .parse::<u32>()
                .ok()
        });
        matches!((it.next().flatten(), it.next().flatten(), it.next().flatten()), (Some(0), Some(5), Some(p)) if p >= 17)
    });
    if fixed {
        NsaBudgetRule::Allocated
    } else {
        NsaBudgetRule::for_era(e.era)
    }
}
