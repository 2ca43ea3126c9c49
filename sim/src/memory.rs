//! `tpsim memory`: the per-rank memory plan of a scenario as a table, its thresholds, and the lines
//! SGLang would print at start-up (`--log`), so a user can diff them against a real log.

use crate::decode::{MemKind, MemoryPlan, Moment, Source, Verdict, plan_memory};
use crate::report::EngineVerdict;
use crate::scenario::{EngineKind, Scenario};
use serde::Serialize;
use std::fmt::Write as _;
use tpsim_model::llm::Attention;
use tpsim_model::units::Bytes;

/// One allocation of the plan, for `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Entry {
    /// What it is, serialized as its name.
    pub name: MemKind,
    pub mib: f64,
    pub moment: Moment,
    pub source: Source,
}

/// The KV cache as the engine sizes it.
#[derive(Debug, Clone, Serialize)]
pub struct KvCache {
    /// SGLang's `max_total_num_tokens` (vLLM: "GPU KV cache size" in tokens).
    pub max_total_num_tokens: u64,
    /// Bytes the target pool allocates (SGLang: one padded page included).
    pub bytes: u64,
    /// Bytes per token per rank (spring 2026 with EAGLE: including the draft's share).
    pub cell_size_bytes: u64,
    /// DSA models: bytes per token the pool holds when they differ from the budget (`cell_size_bytes`).
    pub pool_cell_size_bytes: Option<u64>,
    /// Token slots of the draft's pool (speculative runs).
    pub draft_tokens: Option<u64>,
    /// SGLang's request pool (`max_num_reqs`) and the scheduler's `max_running_requests`.
    pub max_num_reqs: Option<u64>,
    pub max_running_requests: Option<u64>,
}

/// The `tpsim memory --json` object.
#[derive(Debug, Clone, Serialize)]
pub struct MemoryAnswer {
    pub verdict: EngineVerdict,
    /// The engine's memory rules: `early-2025` … `spring-2026` for SGLang, `v1` for vLLM, and where
    /// that choice came from (`engine.costs.era`, `engine.version …`, or the engine preset).
    pub era: String,
    pub era_source: String,
    /// Issue #17 (consistency): the engine release whose memory rules apply — `engine.version`, or
    /// tpsim's current release (`assumed`: true; `crate::engine_release`).
    pub engine_version: crate::engine_release::Release,
    pub kv_cache: KvCache,
    pub failing_step: Option<String>,
    pub error: Option<String>,
    pub missing_mib: Option<f64>,
    pub total_gib: f64,
    pub available_gib: f64,
    pub mem_fraction_static: f64,
    pub rest_gib: f64,
    pub cell_size_bytes: u64,
    pub kv_tokens: u64,
    pub kv_pool_gib: f64,
    pub headroom_mib: f64,
    /// Smallest mem_fraction_static with which the KV profile yields a page.
    pub min_mem_fraction_static: Option<f64>,
    /// Largest context (prompt + output) per request at the configured concurrency.
    pub max_context_at_concurrency: u64,
    /// Largest concurrency at the configured context (mean prompt + mean output).
    pub max_concurrency_at_context: u64,
    pub entries: Vec<Entry>,
    /// Issue #17 (dp): data-parallel replicas (each its own engine on tp × pp GPUs with the plan
    /// above and its own KV pool) and their KV tokens together (with vLLM's DP ranks of a MoE
    /// model, issue #17 point 1: every rank's pool).
    pub replicas: u32,
    pub kv_tokens_all_replicas: u64,
    /// rope51: with an observed "Load weight end" mem usage (SGLang), what tpsim models of it and
    /// how far that is from the log (`decode::MemoryPlan::load_note`); absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub load_note: Option<String>,
    /// vgraph53 (issue #17): under vLLM, the CUDA-graph memory estimate the engine subtracts from the
    /// KV budget and the scenario does not give (`decode::GraphEstimate`): the plan leaves it out and
    /// says so here; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub graph_estimate_note: Option<String>,
}

/// Builds the answer.
pub fn answer(s: &Scenario, p: &MemoryPlan) -> MemoryAnswer {
    let (failing_step, error, missing) = match &p.verdict {
        Verdict::Ok => (None, None, None),
        Verdict::Oom {
            step,
            message,
            missing,
        } => (
            Some(step.clone()),
            Some(message.clone()),
            Some(missing.as_mib_f64()),
        ),
    };
    let w = &s.workload;
    let ctx = (w.prompt_len.mean() + w.output_len.mean()).round().max(1.0) as u64;
    let groups = u64::from(s.engine.dp_attention.map_or(1, |d| d.dp));
    // Issue #17 (dp): data-parallel replicas each hold a pool and a share of the requests, as the
    // DP-attention groups do.
    let groups = groups * u64::from(s.engine.replicas.max(1));
    let era = if s.engine.kind == EngineKind::Vllm {
        // vllmv0mem: a V0 release sizes its KV cache with V0's rule.
        if s.engine.v0.is_some() { "v0" } else { "v1" }.to_string()
    } else {
        s.engine.era.name().to_string()
    };
    MemoryAnswer {
        verdict: EngineVerdict::of_memory(&p.verdict),
        era,
        era_source: s.engine.era_source.clone(),
        engine_version: s.engine.release(),
        kv_cache: KvCache {
            max_total_num_tokens: p.kv_tokens,
            bytes: p.kv_pool.0,
            cell_size_bytes: p.cell_size,
            pool_cell_size_bytes: p.pool_cell_size,
            draft_tokens: p.draft_kv_tokens,
            max_num_reqs: p.max_num_reqs,
            max_running_requests: p.max_running_requests,
        },
        failing_step,
        error,
        missing_mib: missing,
        total_gib: p.total_gib,
        available_gib: p.available_gib,
        mem_fraction_static: p.mem_fraction_static,
        rest_gib: p.rest_gib,
        cell_size_bytes: p.cell_size,
        kv_tokens: p.kv_tokens,
        kv_pool_gib: p.kv_pool.as_gib_f64(),
        headroom_mib: p.headroom.as_mib_f64(),
        min_mem_fraction_static: p.min_mem_fraction_static,
        // Issue #17: under DP attention each of the dp groups has its own pool and its share of the
        // requests (dp = 1 otherwise).
        // Issue #18 (hybridserve): a vLLM hybrid's requests hold blocks of its block size in each
        // attention group plus their state blocks (`VllmHybridPool`), not tokens of `kv_tokens`.
        max_context_at_concurrency: match p.vllm_hybrid_pool {
            Some(h) => h.max_tokens_at(u64::from(w.concurrency.max(1)).div_ceil(groups)),
            None => p.kv_tokens / u64::from(w.concurrency.max(1)).div_ceil(groups),
        },
        // Hybrids: the state pool caps the running requests (SGLang `_resolve_max_num_reqs`).
        max_concurrency_at_context: groups
            * match (p.max_running_requests, p.vllm_hybrid_pool) {
                (_, Some(h)) => h.max_requests(ctx),
                (Some(m), None) if s.model.linear_state_bytes_per_req(s.engine.tp) > 0 => {
                    (p.kv_tokens / ctx).min(m)
                }
                _ => p.kv_tokens / ctx,
            },
        entries: p
            .entries
            .iter()
            .map(|e| Entry {
                name: e.kind,
                mib: Bytes(e.bytes).as_mib_f64(),
                moment: e.moment,
                source: e.source,
            })
            .collect(),
        replicas: s.engine.replicas.max(1),
        // Issue #17 point 1 (vllmdp): vLLM's DP ranks of a MoE model each hold a pool too.
        kv_tokens_all_replicas: p.kv_tokens
            * u64::from(s.engine.replicas.max(1))
            * u64::from(s.engine.vllm_dp.map_or(1, |v| v.dp)),
        load_note: p.load_note.clone(),
        graph_estimate_note: (s.engine.kind == EngineKind::Vllm)
            .then(|| crate::decode::GraphEstimate::of(s, p.total_gib))
            .filter(|g| g.missing)
            .and_then(|g| g.notes.into_iter().next()),
    }
}

/// The lines SGLang prints at start-up for this plan (late-2025 formats, engine-memory.md steps 4–11;
/// "GB" means GiB there). Values the plan does not know (times, context length) are not printed.
pub fn log(s: &Scenario, p: &MemoryPlan) -> String {
    if s.engine.kind == EngineKind::Vllm {
        return vllm_log(s, p);
    }
    let mut o = String::new();
    let _ = writeln!(o, "Load weight begin. avail mem={:.2} GB", p.total_gib);
    // Spring 2026 counts the draft's weights before the profile; the target's own "Load weight end"
    // line is printed before they load.
    let early_draft = p
        .entries
        .iter()
        .find(|e| e.kind == MemKind::DraftWeights && e.moment == Moment::BeforeAvailable)
        .map_or(0.0, |e| Bytes(e.bytes).as_gib_f64());
    let after_target = p.available_gib + early_draft;
    let _ = writeln!(
        o,
        "Load weight end. avail mem={:.2} GB, mem usage={:.2} GB.",
        after_target,
        p.total_gib - after_target
    );
    if s.engine.era >= tpsim_model::memory::SglangEra::Spring2026 {
        let _ = writeln!(
            o,
            "Memory profiling: available_gpu_memory={:.2} GB, total_gpu_memory={:.2} GB, mem_fraction_static={:.2}, rest_memory={:.2} GB",
            p.available_gib, p.total_gib, p.mem_fraction_static, p.rest_gib
        );
    }
    if let Verdict::Oom { message, step, .. } = &p.verdict
        && (p.kv_tokens == 0 || step.starts_with("allocating the target KV pool"))
    {
        let _ = writeln!(o, "{message}");
        return o;
    }
    // The engine's own warnings (issue #16: SWA pool turned off) where it prints them.
    for n in &p.notes {
        if let Some(w) = n.strip_prefix("SGLang: ") {
            let _ = writeln!(o, "WARNING {w}");
        }
    }
    let pool = p.kv_pool.as_gib_f64();
    // dsv4run55: DeepSeek-V4's configurator lines stand for the pool line (`decode::memory::dsv4`).
    for line in &p.engine_lines {
        let _ = writeln!(o, "{line}");
    }
    // Hybrid SWA pool (issue #16): the split, then each sub-pool's line (SWA first), then the total
    // (SGLang 0.5.8 `set_num_tokens_hybrid_swa`, `memory_pool.py` `MHATokenToKVPool`,
    // `swa_memory_pool.py` `SWAKVPool`).
    if let Some(w) = p.swa {
        let _ = writeln!(
            o,
            "Use sliding window memory pool. full_layer_tokens={}, swa_layer_tokens={}",
            w.full_tokens, w.swa_tokens
        );
        for (tokens, bytes) in [(w.swa_tokens, w.swa_bytes), (w.full_tokens, w.full_bytes)] {
            let half = Bytes(bytes).as_gib_f64() / 2.0;
            let _ = writeln!(
                o,
                "KV Cache is allocated. #tokens: {tokens}, K size: {half:.2} GB, V size: {half:.2} GB"
            );
        }
        let _ = writeln!(
            o,
            "SWAKVPool mem usage: {pool:.2} GB, swa size: {}, full size: {}",
            w.swa_tokens, w.full_tokens
        );
    } else if p.engine_lines.is_empty() {
        match s.model.attention {
            Attention::Mla { .. } => {
                let _ = writeln!(
                    o,
                    "KV Cache is allocated. #tokens: {}, KV size: {:.2} GB",
                    p.kv_tokens, pool
                );
            }
            Attention::Gqa { .. } => {
                let _ = writeln!(
                    o,
                    "KV Cache is allocated. #tokens: {}, K size: {:.2} GB, V size: {:.2} GB",
                    p.kv_tokens,
                    pool / 2.0,
                    pool / 2.0
                );
            }
        }
    }
    let after_pool = p.available_gib - pool;
    let _ = writeln!(o, "Memory pool end. avail mem={after_pool:.2} GB");
    let graphs = p
        .entries
        .iter()
        .find(|e| e.kind == MemKind::TargetCudaGraphs)
        .map_or(0.0, |e| Bytes(e.bytes).as_gib_f64());
    if s.engine.cuda_graph {
        let _ = writeln!(
            o,
            "Capture cuda graph begin. This can take up to several minutes. avail mem={after_pool:.2} GB"
        );
        let _ = writeln!(
            o,
            "Capture cuda graph end. mem usage={graphs:.2} GB. avail mem={:.2} GB.",
            after_pool - graphs
        );
    }
    if let Verdict::Oom { message, step, .. } = &p.verdict {
        let _ = writeln!(o, "{message}  (at: {step})");
        return o;
    }
    let _ = writeln!(
        o,
        "max_total_num_tokens={}, max_running_requests={}, context_len={}, available_gpu_mem={:.2} GB",
        p.kv_tokens,
        p.max_running_requests.unwrap_or(0),
        s.engine.context_len,
        p.headroom.as_gib_f64()
    );
    o
}

/// The lines vLLM's v1 worker logs for this plan (engine-memory.md, "vLLM": "Available KV cache
/// memory", "GPU KV cache size", "Maximum concurrency for L tokens per request").
fn vllm_log(s: &Scenario, p: &MemoryPlan) -> String {
    let mut o = String::new();
    if let Some(v0) = &p.vllm_v0 {
        return vllm_v0_log(p, v0);
    }
    if let Some(w) = p.entries.iter().find(|e| e.kind == MemKind::TargetWeights) {
        let _ = writeln!(o, "Model loading took {:.4} GiB", Bytes(w.bytes).as_gib_f64());
    }
    if let Verdict::Oom { message, .. } = &p.verdict {
        let _ = writeln!(o, "{message}");
        return o;
    }
    let _ = writeln!(o, "Available KV cache memory: {:.2} GiB", p.rest_gib);
    // The engine's own warnings (issue #16: hybrid manager off, padding layers).
    for n in &p.notes {
        if let Some(w) = n.strip_prefix("vLLM: ") {
            // vLLM logs its hybrid-layout adjustments at INFO (issue #17, vllmhybrid).
            let info = [
                "Setting attention block size",
                "Padding mamba page size",
                "Updating mamba_ssm_cache_dtype",
                "Hybrid or mamba-based",
            ];
            let level = if info.iter().any(|p| w.starts_with(p)) {
                "INFO"
            } else {
                "WARNING"
            };
            let _ = writeln!(o, "{level} {w}");
        }
    }
    let _ = writeln!(o, "GPU KV cache size: {} tokens", p.kv_tokens);
    // Issue #17 (vllmhybrid): vLLM's own figure, at max_model_len, where the plan has it.
    if let Some((len, c)) = p.vllm_concurrency {
        let _ = writeln!(o, "Maximum concurrency for {len} tokens per request: {c:.2}x");
        return o;
    }
    let w = &s.workload;
    let len = (w.prompt_len.max() + w.output_len.max()).max(1);
    let _ = writeln!(
        o,
        "Maximum concurrency for {len} tokens per request: {:.2}x",
        p.kv_tokens as f64 / f64::from(len)
    );
    o
}

/// vllmv0mem: the lines vLLM's V0 engine logs (`model_runner.py` "Loading model weights took X GB"
/// in 0.5.3.post1–0.7.3; from 0.6.5 `worker.py`'s profiling summary; the executor's "# GPU blocks: N,
/// # CPU blocks: M"; from 0.6.3 "Maximum concurrency for L tokens per request: C"), then the error,
/// if the start fails.
fn vllm_v0_log(p: &MemoryPlan, v0: &crate::decode::V0Log) -> String {
    let mut o = String::new();
    if let Some(w) = p.entries.iter().find(|e| e.kind == MemKind::TargetWeights) {
        let _ = writeln!(
            o,
            "Loading model weights took {:.4} GB",
            Bytes(w.bytes).as_gib_f64()
        );
    }
    for l in &v0.profiling {
        let _ = writeln!(o, "{l}");
    }
    let _ = writeln!(o, "{}", v0.blocks);
    if let Some((len, c)) = v0.concurrency {
        let _ = writeln!(o, "Maximum concurrency for {len} tokens per request: {c:.2}x");
    }
    if let Verdict::Oom { message, .. } = &p.verdict {
        let _ = writeln!(o, "{message}");
    }
    o
}

/// Where the KV budget moved between two plans (SGLang rules): with rest = A − T × (1 − f),
/// rest_B − rest_A = ΔA − (1 − f_B) × ΔT + T_A × Δf exactly — e.g. buffers Δ allocated before `total`
/// lower both A and T, so the budget moves by −Δ + (1 − f) × Δ = −f × Δ (seed-story R3).
#[derive(Debug, Clone, Serialize)]
pub struct Delta {
    pub rest_mib: f64,
    /// Contribution of the free memory after weights (ΔA).
    pub from_available_mib: f64,
    /// Contribution of the free memory after init (−(1 − f_B) × ΔT).
    pub from_total_mib: f64,
    /// Contribution of the fraction (T_A × Δf).
    pub from_fraction_mib: f64,
    pub kv_tokens: i64,
    /// Per allocation present in either plan: (what, serialized as its name; MiB in A, MiB in B).
    pub entries: Vec<(MemKind, f64, f64)>,
}

/// The delta from plan `a` to plan `b`.
pub fn delta(a: &MemoryPlan, b: &MemoryPlan) -> Delta {
    const MIB_PER_GIB: f64 = 1024.0;
    let d_avail = b.available_gib - a.available_gib;
    let d_total = b.total_gib - a.total_gib;
    let d_f = b.mem_fraction_static - a.mem_fraction_static;
    let mut kinds: Vec<MemKind> = a.entries.iter().chain(&b.entries).map(|e| e.kind).collect();
    kinds.dedup();
    let mut seen = Vec::new();
    let mut entries = Vec::new();
    for k in kinds {
        if seen.contains(&k) {
            continue;
        }
        let size = |p: &MemoryPlan| {
            p.entries
                .iter()
                .find(|e| e.kind == k)
                .map_or(0.0, |e| Bytes(e.bytes).as_mib_f64())
        };
        entries.push((k, size(a), size(b)));
        seen.push(k);
    }
    Delta {
        rest_mib: (b.rest_gib - a.rest_gib) * MIB_PER_GIB,
        from_available_mib: d_avail * MIB_PER_GIB,
        from_total_mib: -(1.0 - b.mem_fraction_static) * d_total * MIB_PER_GIB,
        from_fraction_mib: a.total_gib * d_f * MIB_PER_GIB,
        kv_tokens: b.kv_tokens as i64 - a.kv_tokens as i64,
        entries,
    }
}

/// Runs the plan for a scenario.
pub fn plan(s: &Scenario) -> MemoryPlan {
    plan_memory(s)
}
