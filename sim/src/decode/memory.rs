//! The per-rank memory plan of the scenario (first cut of issue #5): SGLang's KV sizing from
//! observed or modeled free memory, then every allocation after the pool checked against what is left.

use crate::scenario::{AllreduceBackend, Scenario};
use tpsim_model::memory::{
    LateAllocation, LateVerdict, SGLANG_NOT_ENOUGH_MEMORY, SglangKvInput, TORCH_OOM, check_late_allocations,
    sglang_kv_plan, sglang_min_fraction,
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
    pub rest_gib: f64,
    pub kv_tokens: u64,
    pub kv_pool: Bytes,
    pub draft_cell_size: Option<u64>,
    pub min_mem_fraction_static: Option<f64>,
    /// Free memory left after the last allocation (0 when the start fails).
    pub headroom: Bytes,
    pub entries: Vec<MemEntry>,
}

/// Builds the plan.
pub fn plan_memory(s: &Scenario) -> MemoryPlan {
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
    let (available_gib, available_source) = match obs.and_then(|o| o.free_after_weights_gib) {
        Some(v) => (v, Source::Observed),
        None => ((total_gib - gib(weights)).max(0.0), Source::Modeled),
    };
    let cell = s.model.kv_cell_bytes(tp);
    let kv = sglang_kv_plan(&SglangKvInput {
        total_gib,
        available_gib,
        mem_fraction_static: e.mem_fraction_static,
        cell_size: cell,
        page_size: e.page_size,
        max_total_tokens: e.max_total_tokens,
    });
    let min_f = sglang_min_fraction(total_gib, available_gib, cell, e.page_size);
    let mut plan = MemoryPlan {
        verdict: Verdict::Ok,
        total_gib,
        total_source,
        available_gib,
        available_source,
        mem_fraction_static: e.mem_fraction_static,
        cell_size: cell,
        rest_gib: kv.rest_gib,
        kv_tokens: kv.tokens,
        kv_pool: kv.pool_bytes,
        draft_cell_size: s.speculative.as_ref().map(|sp| sp.draft.kv_cell_bytes(tp)),
        min_mem_fraction_static: min_f,
        headroom: Bytes(0),
        entries,
    };
    if !kv.starts {
        let need = (e.page_size.max(1) * cell) as f64 / (1u64 << 30) as f64;
        plan.verdict = Verdict::Oom {
            step: "KV cache profile (rest = available − total × (1 − mem_fraction_static) ≤ 0)".into(),
            message: SGLANG_NOT_ENOUGH_MEMORY.into(),
            missing: Bytes::from_gib_f64(need - kv.rest_gib),
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
        late.push(LateAllocation {
            name: "draft weights".into(),
            bytes: sp.draft.weight_bytes_per_rank(tp),
        });
        // Late-2025 era: the draft pool has the target's token count (engine-memory.md, step 10).
        let dcell = sp.draft.kv_cell_bytes(tp);
        late.push(LateAllocation {
            name: "draft KV pool".into(),
            bytes: Bytes((kv.tokens + e.page_size) * dcell),
        });
    }
    if e.cuda_graph {
        late.push(LateAllocation {
            name: "target CUDA graphs".into(),
            bytes: e.costs.target_cuda_graph_memory,
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
        plan.entries.push(MemEntry {
            name: a.name.clone(),
            bytes: a.bytes.0,
            moment: "after pool",
            source: Source::Modeled,
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
