//! The text of `tpsim memory` ([`tpsim::memory`]).

use std::fmt::Write as _;
pub(crate) use tpsim::memory::*;
use tpsim::scenario::EngineKind;
use tpsim::scenario::Scenario;

/// The table.
pub fn text(s: &Scenario, a: &MemoryAnswer) -> String {
    let mut o = String::new();
    // dpep17: under vLLM DP `engine.tp` is the MoE's flattened dp × tp; the engine's flags are one
    // DP rank's tp and the DP size.
    let tp = match s.engine.vllm_dp {
        Some(v) => format!("tp {} × dp {}", v.tp, v.dp),
        None => format!("tp {}", s.engine.tp),
    };
    let _ = writeln!(
        o,
        "Memory plan per GPU — {} on {} ({tp}, {} {} rules, from {})",
        s.model_name, s.hardware.name, s.engine.name, a.era, a.era_source
    );
    // Issue #17 (consistency): the engine release whose rules apply, stated or assumed.
    let _ = writeln!(o, "  release {}", a.engine_version.label());
    let _ = writeln!(o, "  {:<36} {:>12}  {:<17} source", "allocation", "MiB", "when");
    for e in &a.entries {
        let _ = writeln!(
            o,
            "  {:<36} {:>12.1}  {:<17} {}",
            e.name,
            e.mib,
            e.moment,
            crate::report::source_name(e.source)
        );
    }
    let _ = writeln!(
        o,
        "  total (free after init) {:.2} GiB, available after weights {:.2} GiB, mem_fraction_static {}",
        a.total_gib, a.available_gib, a.mem_fraction_static
    );
    // rope51: what tpsim models of an observed "Load weight end" mem usage.
    if let Some(n) = &a.load_note {
        let _ = writeln!(o, "  {n}");
    }
    // vgraph53: vLLM's CUDA-graph estimate, when the plan leaves it out.
    if let Some(n) = &a.graph_estimate_note {
        let _ = writeln!(o, "  {n}");
    }
    let _ = writeln!(
        o,
        "  rest = {:.4} GiB → {} tokens of {} B ({:.2} GiB)",
        a.rest_gib, a.kv_tokens, a.cell_size_bytes, a.kv_pool_gib
    );
    if let Some(c) = a.kv_cache.pool_cell_size_bytes.filter(|_| a.kv_tokens > 0) {
        let _ = writeln!(
            o,
            "  budget {} B per token, pool allocates {} B per token ({:+.2} GiB against rest)",
            a.cell_size_bytes,
            c,
            a.kv_pool_gib - a.rest_gib
        );
    }
    if let (Some(d), Some(reqs), Some(running)) = (
        a.kv_cache.draft_tokens,
        a.kv_cache.max_num_reqs,
        a.kv_cache.max_running_requests,
    ) {
        let _ = writeln!(
            o,
            "  draft KV pool {d} tokens; max_num_reqs {reqs}, max_running_requests {running}"
        );
    } else if let Some(running) = a.kv_cache.max_running_requests {
        let _ = writeln!(o, "  max_running_requests {running}");
    }
    match (&a.failing_step, &a.error) {
        (Some(step), Some(err)) => {
            let _ = writeln!(
                o,
                "Verdict: OOM at {step}, missing {:.0} MiB\n  {err}",
                a.missing_mib.unwrap_or(0.0)
            );
        }
        _ => {
            let _ = writeln!(
                o,
                "Verdict: starts; {:.0} MiB left after the last allocation",
                a.headroom_mib
            );
        }
    }
    if let Some(f) = a.min_mem_fraction_static {
        let knob = if s.engine.kind == EngineKind::Vllm {
            "gpu_memory_utilization"
        } else {
            "mem_fraction_static"
        };
        let _ = writeln!(o, "  smallest {knob} that starts: {f:.4}");
    }
    // Issue #17: SGLang DP attention keeps one pool and scheduler per attention group.
    // Issue #17 point 1 (vllmdp): vLLM's DP ranks of a MoE model, likewise.
    if let Some(v) = s.engine.vllm_dp {
        let _ = writeln!(
            o,
            "  vLLM data parallelism: {} DP ranks of tp {} ({} GPUs), the experts over all {}; each rank with this plan \
             and its own KV pool ({} tokens each, {} in all)",
            v.dp,
            v.tp,
            v.world(),
            v.world(),
            a.kv_tokens,
            a.kv_tokens_all_replicas
        );
    } else if let Some(d) = s.engine.dp_attention {
        let _ = writeln!(
            o,
            "  DP attention: {} groups of attention TP {}, each with its own KV pool and requests (box: {} × the pool)",
            d.dp, d.attn_tp, d.dp
        );
    }
    // Issue #17 (dp): data-parallel replicas, each an engine with the plan above.
    if a.replicas > 1 {
        let _ = writeln!(
            o,
            "  data-parallel replicas: {} engines of tp {} × pp {} GPUs ({} GPUs), each with this plan; KV {} tokens each, {} in all",
            a.replicas,
            s.engine.tp,
            s.engine.pp.max(1),
            a.replicas * s.engine.tp * s.engine.pp.max(1),
            a.kv_tokens,
            a.kv_tokens_all_replicas
        );
    }
    let _ = writeln!(
        o,
        "  largest context per request at concurrency {}: {} tokens; largest concurrency at {} + {} tokens: {}",
        s.workload.concurrency,
        a.max_context_at_concurrency,
        s.workload.prompt_len,
        s.workload.output_len,
        a.max_concurrency_at_context
    );
    o
}

/// The delta as text.
pub fn delta_text(a_name: &str, b_name: &str, d: &Delta) -> String {
    let mut o = String::new();
    let _ = writeln!(o, "From {a_name} to {b_name}:");
    let _ = writeln!(
        o,
        "  {:<36} {:>12} {:>12} {:>12}",
        "allocation", "A MiB", "B MiB", "Δ MiB"
    );
    for (n, a, b) in &d.entries {
        if (a - b).abs() > 0.05 {
            let _ = writeln!(o, "  {n:<36} {a:>12.1} {b:>12.1} {:>+12.1}", b - a);
        }
    }
    let _ = writeln!(
        o,
        "  KV budget (rest) {:+.1} MiB = {:+.1} (free after weights) {:+.1} (free after init × (1 − f)) {:+.1} (fraction × total); KV tokens {:+}",
        d.rest_mib, d.from_available_mib, d.from_total_mib, d.from_fraction_mib, d.kv_tokens
    );
    o
}
