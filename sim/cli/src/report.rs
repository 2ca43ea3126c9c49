//! The human-readable `tpsim run` report ([`tpsim::report::RunReport`]).

use std::fmt::Write as _;
use tpsim::decode::Source;
use tpsim::report::EngineVerdict;
pub(crate) use tpsim::report::*;
use tpsim::scenario::AllreduceBackend;
use tpsim_model::units::Bytes;

/// The human-readable report.
pub fn text(r: &RunReport) -> String {
    let mut o = String::new();
    header_text(&mut o, r);
    memory_text(&mut o, &r.scenario, &r.memory);
    if r.verdict == EngineVerdict::Rejected {
        rejected_text(&mut o, r);
    }
    match &r.throughput {
        Some(t) => {
            decode_text(&mut o, r, t);
            if let Some(sv) = &r.serving {
                serving_text(&mut o, sv);
            }
        }
        None => {
            let _ = writeln!(
                o,
                "Decode: none — {} (see the verdict above): no token is decoded, so there is no throughput",
                verdict_words(r.verdict)
            );
            let _ = writeln!(o);
        }
    }
    crate::intervals::text(&mut o, r); // issue #19 point 6
    collectives_text(&mut o, &r.collectives);
    floor_text(&mut o, &r.floor);
    fitted_text(&mut o, &r.fitted_constants);
    if let Some(p) = &r.prefill_calibration {
        // Issue #18 (prefillgpus): whether the prefill/TTFT figures rest on measured FLOP rates.
        let _ = writeln!(o, "Prefill FLOP rate: {}", p.note);
        if let Some(src) = &p.curve_source {
            let _ = writeln!(o, "  curve: {src}");
        }
    }
    model_checks_text(&mut o, &r.scenario.engine, &r.model_checks);
    slo_text(&mut o, r); // issue #18 (load)
    o
}

/// Issue #18 (load): the `[slo]` objectives and the goodput.
fn slo_text(o: &mut String, r: &RunReport) {
    let Some(s) = &r.slo else { return };
    let _ = writeln!(o);
    let _ = writeln!(o, "SLO (p{} of requests)", s.objectives.percentile);
    for c in &s.checks {
        let _ = writeln!(
            o,
            "  {:<10} {:>10.2} ms  limit {:>10.2} ms  {}",
            c.target.name(),
            c.measured_ms,
            c.target.ms,
            if c.met { "met" } else { "MISSED" }
        );
    }
    let g = &s.goodput;
    let _ = writeln!(
        o,
        "  goodput    {} of {} requests meet every objective{} — {:.3} req/s",
        g.good_requests,
        g.requests,
        if g.exact {
            ""
        } else {
            " (at most: per-request outcomes come with the serving loop)"
        },
        g.request_goodput
    );
}

/// The header: version, file, hardware, model and engine, speculative decoding, workload.
fn header_text(o: &mut String, r: &RunReport) {
    let sc = &r.scenario;
    let _ = writeln!(o, "tpsim {} — {}", r.tpsim_version, sc.file);
    let _ = writeln!(o, "  hardware  {} ({} GPUs)", sc.hardware, sc.gpus);
    o.push_str(&hardware_text(&r.hardware));
    let _ = writeln!(
        o,
        "  model     {}   engine {}  tp={}{}  allreduce={}",
        sc.model,
        sc.engine,
        sc.tp,
        if sc.dp > 1 {
            format!(" dp={}", sc.dp)
        } else {
            String::new()
        },
        backend_name(sc.allreduce)
            + &match &sc.allreduce_engine_default {
                // tp 1 has no allreduce to explain.
                Some(why) if sc.tp > 1 => format!(" (engine default: {why})"),
                _ => String::new(),
            }
    );
    if let Some(d) = &sc.dp_attention {
        let _ = writeln!(o, "  dp-attn   {d}");
    }
    if let Some(p) = &sc.pipeline {
        let _ = writeln!(o, "  pipeline  {p}");
    }
    if let Some(sp) = &sc.speculative {
        let _ = writeln!(o, "  spec      {sp}");
    }
    // Issue #17 (consistency): the engine release simulated, stated or assumed.
    let _ = writeln!(o, "  release   {}", sc.engine_version.label());
    // Issue #17 (vllmv0): the V0 engine of releases before 0.8.
    if let Some(v0) = &sc.v0_engine {
        let _ = writeln!(o, "  engine    {v0}");
    }
    // vllmattn: vLLM's attention backend, its own pick or the scenario's.
    if let Some(b) = &sc.attention_backend {
        let _ = writeln!(o, "  attention {b}");
    }
    // moeroute62: the router's top-k path where it is not the template's one kernel.
    if let Some(r) = &sc.moe_routing {
        let _ = writeln!(o, "  routing   {r}");
    }
    // Issue #17: the NCCL release in use and where it came from.
    let _ = writeln!(o, "  nccl      {} ({})", sc.nccl_version, sc.nccl_version_source);
    let _ = writeln!(
        o,
        "  workload  concurrency={} requests={} prompt={} output={}  seed={}",
        sc.concurrency, sc.num_requests, sc.prompt_len_dist, sc.output_len_dist, sc.seed
    );
    let _ = writeln!(o);
}

/// The memory section: the engine's rules, the figures, the warnings and the verdict.
fn memory_text(o: &mut String, sc: &ScenarioSummary, m: &MemoryReport) {
    if sc.engine.starts_with("vllm") {
        let _ = writeln!(o, "Memory (per GPU, vLLM v1 rules)");
        let _ = writeln!(
            o,
            "  device {:.2} GiB; requested = device × gpu_memory_utilization {} = {:.2} GiB",
            m.total_gib, m.mem_fraction_static, m.available_gib
        );
        let _ = writeln!(
            o,
            "  KV = requested − weights − peak activation − non-torch = {:.4} GiB; cell {} B/token",
            m.rest_gib, m.cell_size_bytes
        );
    } else {
        let _ = writeln!(
            o,
            "Memory (per GPU, SGLang {} rules, from {})",
            m.era, m.era_source
        );
        let _ = writeln!(
            o,
            "  total {:.2} GiB ({})  available after weights {:.2} GiB ({})  mem_fraction_static {:.4}{}",
            m.total_gib,
            source_name(m.total_source),
            m.available_gib,
            source_name(m.available_source),
            m.mem_fraction_static,
            match (m.mem_fraction_static_default, m.mem_fraction_vlm_factor) {
                (true, Some(v)) =>
                    format!(" (SGLang's default, × {v:.4} for the vision tower: adjust_mem_fraction_for_vlm)"),
                (true, None) => " (SGLang's default)".to_string(),
                _ => String::new(),
            }
        );
        let _ = writeln!(
            o,
            "  rest = available − total × (1 − f) = {:.4} GiB; cell {} B/token",
            m.rest_gib, m.cell_size_bytes
        );
        if let Some(r) = m.max_running_requests {
            let _ = writeln!(o, "  max_running_requests {r}");
        }
    }
    for warning in &m.warnings {
        let _ = writeln!(o, "  warning: {warning}");
    }
    match &m.oom {
        None => {
            let _ = writeln!(
                o,
                "  verdict OK: KV cache {} tokens ({:.2} GiB); headroom after the last allocation {:.0} MiB",
                m.kv_tokens, m.kv_pool_gib, m.headroom_mib
            );
        }
        Some(oom) => {
            let _ = writeln!(
                o,
                "  verdict OOM at {}: missing {:.0} MiB",
                oom.step, oom.missing_mib
            );
            let _ = writeln!(o, "  the engine would print: {}", oom.message);
        }
    }
    if let Some(f) = m.min_mem_fraction_static {
        let knob = if sc.engine.starts_with("vllm") {
            "gpu_memory_utilization"
        } else {
            "mem_fraction_static"
        };
        let _ = writeln!(o, "  smallest {knob} that starts: {f:.4}");
    }
    let _ = writeln!(o);
}

/// The requests section of an engine that rejects every request of the workload (its shortest
/// is refused; `tpsim::decode::rejection`).
fn rejected_text(o: &mut String, r: &RunReport) {
    let sc = &r.scenario;
    let _ = writeln!(
        o,
        "Requests: rejected — every request is refused by the engine, the shortest ({} prompt + {} output tokens) too:",
        min_of(&sc.prompt_len_dist),
        min_of(&sc.output_len_dist)
    );
    let _ = writeln!(
        o,
        "  the engine would answer: {}",
        r.error.as_deref().unwrap_or("")
    );
    let _ = writeln!(o);
}

/// The collectives section: the backend and path, the decode (q/k-norm, verify) allreduces.
fn collectives_text(o: &mut String, c: &Collectives) {
    let nccl_path = format!("NCCL over {} (P2P level {})", c.transport, c.p2p_level);
    let staged = if c.staged_peer_loads {
        "; kernel peer loads staged through system memory"
    } else {
        ""
    };
    let _ = match c.backend {
        AllreduceBackend::Nccl => writeln!(o, "Collectives: {nccl_path}{staged}"),
        AllreduceBackend::Custom => {
            writeln!(
                o,
                "Collectives: custom allreduce{staged}; all-gathers and fallbacks on {nccl_path}"
            )
        }
    };
    // dpep17: one DP rank of tp 1 under vLLM DP runs no allreduce (its MoE exchange is the dp line's).
    let _ = if c.allreduces_per_pass == 0 {
        writeln!(o, "  no allreduce per target pass")
    } else {
        writeln!(
            o,
            "  {} allreduces per target pass; decode allreduce {} → {:.1} µs ({})",
            c.allreduces_per_pass,
            Bytes(c.decode_allreduce_bytes),
            c.decode_allreduce_us,
            c.decode_algorithm
        )
    };
    if let (Some(b), Some(us), Some(alg)) = (
        c.qk_norm_allreduce_bytes,
        c.qk_norm_allreduce_us,
        &c.qk_norm_algorithm,
    ) {
        let _ = writeln!(
            o,
            "  of which 1 per layer for the q/k-norm statistics: {} → {us:.1} µs ({alg})",
            Bytes(b)
        );
    }
    if let (Some(b), Some(us), Some(ms)) = (
        c.verify_allreduce_bytes,
        c.verify_allreduce_us,
        c.verify_pass_allreduce_ms,
    ) {
        let _ = writeln!(
            o,
            "  verify allreduce {} → {:.1} µs; {:.2} ms of allreduce per verify pass",
            Bytes(b),
            us,
            ms
        );
    }
    for warning in &c.warnings {
        let _ = writeln!(o, "  warning: {warning}");
    }
}

/// The floor line: what reading the weights and KV, and the allreduce round trips, cost at least.
fn floor_text(o: &mut String, fl: &Floor) {
    let gap = fl
        .gap
        .map_or_else(String::new, |g| format!(", prediction {g:.2}× the floor"));
    let _ = writeln!(
        o,
        "Floor: {:.2} GiB weights + {:.2} GiB KV per rank per step → {:.2} ms; {:.3} ms of allreduce round trips; \
         TPOT floor {:.2} ms{gap}",
        fl.weights_read_gib_per_step,
        fl.kv_read_gib_per_step,
        fl.memory_floor_ms_per_step,
        fl.comm_floor_ms_per_step,
        fl.tpot_ms,
    );
    let _ = writeln!(o);
}

/// The fitted constants the prediction used, with how to refit each.
fn fitted_text(o: &mut String, fitted: &[FittedUse]) {
    if fitted.is_empty() {
        let _ = writeln!(
            o,
            "Fitted constants used: none (every parameter is a datasheet fact, derived from facts, or assumed; see the preset)"
        );
    } else {
        let _ = writeln!(
            o,
            "Fitted constants used (agreement with their own rows is consistency, not accuracy):"
        );
        for f in fitted {
            let unit = if f.unit.is_empty() {
                String::new()
            } else {
                format!(" {}", f.unit)
            };
            let _ = writeln!(o, "  - {} = {}{unit}: fitted to {}", f.name, f.value, f.rows);
            let _ = writeln!(o, "    refit: {}", f.refit);
        }
    }
}

/// What of the model tpsim reproduces under this engine and what checks it (book: Model coverage).
fn model_checks_text(o: &mut String, engine: &str, m: &ModelChecks) {
    let e = &m.engine;
    let _ = writeln!(o);
    let _ = writeln!(
        o,
        "Model coverage ({:?}: {}; {engine}): weights {}, KV cell {}, pool {}, cost {}",
        m.architecture,
        m.families,
        e.weights.as_str(),
        e.kv_cell.as_str(),
        e.pool.as_str(),
        e.cost.as_str()
    );
    if e.checks.is_empty() {
        let _ = writeln!(
            o,
            "  checked by: no public start-up log or measurement of this architecture under this engine; \
             tpsim follows the engine's code, unverified"
        );
    } else {
        for c in e.checks {
            let _ = writeln!(o, "  checked by: {} (test {})", c.source, c.test);
        }
    }
}

/// The smallest length of a distribution as the report prints it (`1024`, `100..=200`,
/// `random 819..=1024`).
fn min_of(dist: &str) -> &str {
    let lo = dist.split("..=").next().unwrap_or(dist);
    lo.rsplit(' ').next().unwrap_or(lo)
}

/// The backend as the report's header names it.
pub fn backend_name(b: AllreduceBackend) -> String {
    match b {
        AllreduceBackend::Nccl => "Nccl",
        AllreduceBackend::Custom => "Custom",
    }
    .to_string()
}

/// Where a figure of the memory plan came from, as the text tables name it.
pub fn source_name(s: Source) -> &'static str {
    match s {
        Source::Observed => "Observed",
        Source::Modeled => "Modeled",
        Source::EngineRule => "EngineRule",
    }
}

/// What a verdict other than "ok" means, in words.
pub fn verdict_words(verdict: EngineVerdict) -> &'static str {
    match verdict {
        EngineVerdict::Oom => "the engine would not start",
        EngineVerdict::Rejected => "the engine rejects the requests",
        EngineVerdict::Ok => "the engine would not run this scenario",
    }
}

/// Issue #18: the serving loop's section (latency percentiles, request rate, preemptions, refusals).
fn serving_text(o: &mut String, sv: &tpsim::report::serving::Serving) {
    let l = |x: &tpsim::report::serving::Latency| {
        format!(
            "mean {:.2}, p50 {:.2}, p90 {:.2}, p99 {:.2}",
            x.mean, x.p50, x.p90, x.p99
        )
    };
    let _ = writeln!(o, "Serving");
    let _ = writeln!(o, "  TTFT ms (from arrival)  {}", l(&sv.ttft_ms));
    let _ = writeln!(o, "  TPOT ms (per request)   {}", l(&sv.tpot_ms));
    let _ = writeln!(o, "  ITL ms                  {}", l(&sv.itl_ms));
    let _ = writeln!(o, "  E2E latency ms          {}", l(&sv.e2e_ms));
    match (sv.dp_groups, sv.peak_group_kv_utilisation) {
        (Some(n), Some(busiest)) => {
            let _ = writeln!(
                o,
                "  {} requests finished in {:.1} ms ({:.3} req/s); peak {} running, {} waiting (summed \
                 over {n} DP-attention groups); peak KV use {:.1} % of all groups' pools, busiest \
                 group {:.1} % of its own",
                sv.finished,
                sv.makespan_ms,
                sv.request_throughput,
                sv.peak_running,
                sv.peak_waiting,
                sv.peak_kv_utilisation * 100.0,
                busiest * 100.0
            );
        }
        _ => {
            let _ = writeln!(
                o,
                "  {} requests finished in {:.1} ms ({:.3} req/s); peak {} running, {} waiting; peak KV use {:.1} %",
                sv.finished,
                sv.makespan_ms,
                sv.request_throughput,
                sv.peak_running,
                sv.peak_waiting,
                sv.peak_kv_utilisation * 100.0
            );
        }
    }
    if let Some(c) = sv.clipped_outputs {
        let _ = writeln!(
            o,
            "  {c} requests' outputs clipped to the scheduler's max_req_len (SGLang init_req_max_new_tokens)"
        );
    }
    let _ = writeln!(
        o,
        "  preemptions/retractions {}; rejected {}{}",
        sv.preemptions,
        sv.rejected,
        if sv.overloaded {
            "; OVERLOADED: the waiting queue grows without bound"
        } else {
            ""
        }
    );
    if let Some(m) = &sv.first_rejection {
        let _ = writeln!(o, "  first refusal: {m}");
    }
    if let Some(f) = &sv.frontend {
        let _ = writeln!(
            o,
            "  front end ({} API server{}): busy {:.1} %; input wait mean {:.2} ms, max {:.2} ms; \
             to the engine {:.2} ms; first chunk +{:.2} ms",
            f.servers,
            if f.servers == 1 { "" } else { "s" },
            f.busy_fraction * 100.0,
            f.input_wait_mean_ms,
            f.input_wait_max_ms,
            f.to_engine_mean_ms,
            f.first_chunk_delay_mean_ms
        );
    }
    // Issue #18 (kimitok54): SGLang's detokenizer process.
    if let Some(d) = &sv.detokenizer {
        let _ = writeln!(
            o,
            "  detokenizer (SGLang, Kimi tiktoken tokenizer's slow decode): busy {:.1} %; largest lag {:.2} ms{}",
            d.busy_fraction * 100.0,
            d.max_lag_ms,
            if d.bound {
                "; DETOKENIZER-BOUND: the client gets its tokens at the detokenizer's pace"
            } else {
                ""
            }
        );
    }
    let _ = writeln!(o);
}

/// The decode and per-iteration breakdown sections of the text report (an engine that starts).
fn decode_text(o: &mut String, r: &RunReport, t: &Throughput) {
    let prefill = |o: &mut String| {
        let _ = writeln!(
            o,
            "  prefill: time to first token {:.2} ms; end to end {:.1} tok/s including {:.1} ms of prefill",
            t.ttft_ms, t.e2e_output_tok_s, t.prefill_time_ms
        );
    };
    let (Some(tok_s), Some(per_request), Some(tpot), Some(p50), Some(p99), Some(mean)) = (
        t.output_tok_s,
        t.per_request_tok_s,
        t.tpot_ms,
        t.itl_p50_ms,
        t.itl_p99_ms,
        t.mean_iteration_ms,
    ) else {
        // No decode iteration: every request ends with the token its prefill produced.
        let _ = writeln!(
            o,
            "Decode: none — every request ends with its first token (output_len = {}), which the prefill \
             produces: no decode iteration, so no decode throughput or time per output token",
            r.scenario.output_len_dist
        );
        prefill(o);
        let _ = writeln!(o);
        return;
    };
    let _ = writeln!(o, "Decode");
    let _ = writeln!(
        o,
        "  output throughput  {tok_s:.1} tok/s ({per_request:.1} tok/s per request)"
    );
    let _ = writeln!(
        o,
        "  time per output token  {tpot:.2} ms (p50 {p50:.2}, p99 {p99:.2})"
    );
    let _ = writeln!(
        o,
        "  iterations {} of {mean:.2} ms mean; {} distinct shapes simulated",
        t.iterations, t.distinct_shapes
    );
    prefill(o);
    if let Some(sp) = &r.spec {
        let _ = writeln!(
            o,
            "  speculation: accept length {:.2} (expected {:.2}); without it {:.1} tok/s; iteration {:.2} ms = {:.2} × plain step {:.2} ms",
            sp.accept_len_mean,
            sp.expected_accept_len,
            sp.tok_s_without_spec,
            sp.iteration_ms,
            sp.iteration_ratio,
            sp.plain_step_ms
        );
        if let Some(be) = sp.break_even_accept_len {
            let _ = writeln!(o, "  break-even acceptance length {be:.2}");
        }
    }
    let _ = writeln!(o);
    let _ = writeln!(o, "Per-iteration breakdown (critical path, ms)");
    for (k, v) in &r.breakdown {
        let _ = writeln!(o, "  {k:<11} {v:>9.3}");
    }
    let ops: Vec<String> = r
        .breakdown_by_op
        .iter()
        .filter(|(_, v)| **v > 0.0)
        .map(|(k, v)| format!("{k} {v:.2}"))
        .collect();
    let _ = writeln!(o, "  by op (ms): {}", ops.join(", "));
    let _ = writeln!(o, "  bottleneck: {}", r.bottleneck);
    let _ = writeln!(o);
}

/// Text lines under the report's `hardware` line: one per profile parameter, e.g.
/// `  profile   pcie_hop_latency = 0.5 us [0.48, 0.52]  (fit: 17 collective rows, R² = 0.99)`.
pub fn hardware_text(h: &HardwareReport) -> String {
    let mut o = String::new();
    let Some(p) = &h.profile else {
        return o;
    };
    let _ = writeln!(
        o,
        "  profile   {} ({}{})",
        p.file,
        p.tool,
        p.date.as_deref().map(|d| format!(", {d}")).unwrap_or_default()
    );
    for v in &p.params {
        let unit = if v.unit.is_empty() {
            String::new()
        } else {
            format!(" {}", v.unit)
        };
        let ci = match (v.ci_low, v.ci_high) {
            (Some(lo), Some(hi)) => format!(" [{lo}, {hi}]"),
            _ => String::new(),
        };
        let _ = writeln!(
            o,
            "            {} = {}{unit}{ci}  ({})",
            v.name, v.value, v.source
        );
    }
    if !p.curves.is_empty() {
        let _ = writeln!(o, "            efficiency curves: {}", p.curves.join(", "));
    }
    if !p.overridden_inline.is_empty() {
        let _ = writeln!(
            o,
            "            overridden by the scenario: {}",
            p.overridden_inline.join(", ")
        );
    }
    o
}
