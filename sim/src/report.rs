//! Reports: the JSON object of `tpsim run --json` (schema in book/src/json.md; keep it stable) and
//! the text report built from the same object.

use crate::decode::{LoopResult, MemoryPlan, Prediction, Verdict};
use crate::exec::Category;
use crate::scenario::{AllreduceBackend, Scenario};
use serde::Serialize;
use std::collections::BTreeMap;
use tpsim_model::hw::{PathClass, Transport};
use tpsim_model::llm::coverage::{self, EngineCoverage};
use tpsim_model::llm::{Architecture, ForwardPass};
use tpsim_model::units::Bytes;

mod hardware;
mod run_header; // issue #17: vLLM's speculative terms, the NCCL version in use
pub mod serving; // issue #18: the serving loop's statistics
pub use hardware::{HardwareReport, ProfileParamReport, ProfileReport};
pub mod intervals; // issue #19 point 6
pub mod prefill_calibration; // issue #18 (prefillgpus)

/// Version of the JSON schema; bump on any incompatible change.
pub const SCHEMA_VERSION: u32 = 2;

/// The engine's verdict on a scenario, serialized as its lowercase name ("ok", "oom", "rejected").
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum EngineVerdict {
    /// It starts and serves the workload.
    Ok,
    /// It would not start: the memory plan fails.
    Oom,
    /// It starts but refuses the workload's requests.
    Rejected,
}

impl EngineVerdict {
    /// Every verdict.
    pub const ALL: [EngineVerdict; 3] = [EngineVerdict::Ok, EngineVerdict::Oom, EngineVerdict::Rejected];

    /// The name reports, sweep rows and baselines use.
    pub fn as_str(self) -> &'static str {
        match self {
            EngineVerdict::Ok => "ok",
            EngineVerdict::Oom => "oom",
            EngineVerdict::Rejected => "rejected",
        }
    }

    /// The verdict named `name`, or None.
    pub fn from_name(name: &str) -> Option<EngineVerdict> {
        EngineVerdict::ALL.into_iter().find(|v| v.as_str() == name)
    }

    /// The memory plan's verdict: `Ok` or `Oom`.
    pub fn of_memory(v: &Verdict) -> EngineVerdict {
        match v {
            Verdict::Ok => EngineVerdict::Ok,
            Verdict::Oom { .. } => EngineVerdict::Oom,
        }
    }
}

impl std::fmt::Display for EngineVerdict {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.pad(self.as_str())
    }
}

/// The whole `tpsim run --json` object.
#[derive(Debug, Clone, Serialize)]
pub struct RunReport {
    pub schema_version: u32,
    pub tpsim_version: &'static str,
    pub scenario: ScenarioSummary,
    /// The engine's verdict on the scenario: "ok"; "oom" when it would not start (the memory plan's
    /// verdict); "rejected" when it starts but refuses the workload's requests (a prompt longer than
    /// the context, an empty prompt). Anything but "ok" means nothing is decoded or reported.
    pub verdict: EngineVerdict,
    /// The engine's own error text when the verdict is not "ok" (null otherwise).
    pub error: Option<String>,
    /// Settings the engine would adjust at start-up, with the warning it logs (e.g. SGLang's
    /// "speculative_num_draft_tokens is adjusted to …"); the prediction uses the adjusted values.
    pub warnings: Vec<String>,
    /// The box and the profile applied to it (which parameters came from it, with intervals).
    pub hardware: HardwareReport,
    /// Null when the verdict is not "ok": an engine that does not start has no throughput.
    pub throughput: Option<Throughput>,
    /// Issue #18: latency percentiles, request throughput, preemptions, refusals and KV use over
    /// time of the serving loop (null when the verdict is not "ok").
    pub serving: Option<serving::Serving>,
    /// Mean critical-path ms per iteration by category: compute, collective, host, sync, idle.
    pub breakdown: BTreeMap<String, f64>,
    /// Mean critical-path ms per iteration by op class: attention, moe, mlp, lm_head, embed,
    /// fusion, allreduce, allgather, host, sync, idle (sums to the mean iteration time).
    pub breakdown_by_op: BTreeMap<String, f64>,
    /// The category with the most time per iteration (idle excluded).
    pub bottleneck: String,
    pub memory: MemoryReport,
    pub collectives: Collectives,
    pub spec: Option<SpecReport>,
    /// Physical floors to compare against.
    pub floor: Floor,
    /// The fitted constants this prediction used, derived from what it simulated: each was fitted
    /// to the rows it names, so agreement with those rows is consistency, not accuracy (sorted by
    /// name; empty when every parameter it used is a datasheet fact, derived or assumed).
    pub fitted_constants: Vec<FittedUse>,
    /// What tpsim reproduces of this model's architecture under this engine and which public
    /// start-up logs or measurements check it (book/src/coverage.md); `checks` empty: none does.
    pub model_checks: ModelChecks,
    /// Issue #18 (load): the scenario's `[slo]`, its objectives at their percentile and the goodput
    /// (absent without `[slo]` or when the engine does not serve the scenario).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub slo: Option<SloReport>,
    // Issue #19 point 6: prediction intervals and the profile's calibrated range.
    /// 95 % intervals of tok/s, TPOT, TTFT and the decode allreduce, propagated from the profile's
    /// fitted intervals (`crate::intervals`); absent when the profile has none, without a profile,
    /// or when the engine does not serve the scenario. Only `tpsim run` computes it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub intervals: Option<intervals::IntervalsReport>,
    /// Issue #18 (prefillgpus): whether the prefill/TTFT figures rest on measured FLOP efficiencies
    /// (the GPU's FLOP curve and the range it was measured on) or are an extrapolation or
    /// uncalibrated; absent when the engine does not serve the scenario or no prefill kernel was
    /// FLOP-bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prefill_calibration: Option<prefill_calibration::PrefillCalibration>,
    /// Whether the scenario lies inside the span of rows the profile was fitted on; absent
    /// without a profile.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub calibrated_range: Option<intervals::RangeReport>,
}

/// Issue #18 (load): how a run fares against the scenario's `[slo]`.
#[derive(Debug, Clone, Serialize)]
pub struct SloReport {
    pub objectives: crate::slo::Slo,
    /// Each objective's measured percentile and whether it is met.
    pub checks: Vec<crate::slo::Check>,
    pub goodput: crate::slo::Goodput,
}

/// The coverage of the scenario's model under its engine ([`tpsim_model::llm::coverage`]).
#[derive(Debug, Clone, Serialize)]
pub struct ModelChecks {
    /// The architecture tpsim lowered the model to.
    pub architecture: Architecture,
    /// The families that architecture serves.
    pub families: &'static str,
    /// What is exact, approximate or refused, and what checks it, under this engine.
    #[serde(flatten)]
    pub engine: EngineCoverage,
}

/// One fitted constant a prediction used.
#[derive(Debug, Clone, Serialize)]
pub struct FittedUse {
    /// The `[hardware.params]` key, or `compute.curves.<class>` for a fitted efficiency curve.
    pub name: String,
    /// Its value, in `unit`.
    pub value: f64,
    /// `GB/s`, `us`, `GiB` or `""` (fractions, factors).
    pub unit: String,
    /// What it was fitted to.
    pub rows: String,
    /// The command that refits it.
    pub refit: String,
    /// The preset or profile that declares it.
    pub file: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct ScenarioSummary {
    pub file: String,
    pub seed: u64,
    pub hardware: String,
    pub gpus: usize,
    pub model: String,
    pub engine: String,
    /// Issue #17 (consistency): the engine release simulated — `engine.version`, or tpsim's current
    /// release when the scenario names none (`assumed`: true; `crate::engine_release`).
    pub engine_version: crate::engine_release::Release,
    /// Issue #17 (vllmv0): vLLM's V0 engine and the host time of its step on the critical path
    /// (`scenario::vllm_v0`); absent under V1 and SGLang.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub v0_engine: Option<String>,
    /// Tensor-parallel size as the engine's flag gives it (`--tp-size` / `--tensor-parallel-size`):
    /// under vLLM data parallelism on a MoE model the per-DP-rank tp (the MoE layers span dp × tp).
    pub tp: u32,
    /// Data-parallel size as the engine's flag gives it (`--dp-size` / `--data-parallel-size`); 1 without.
    pub dp: u32,
    pub allreduce: AllreduceBackend,
    /// Issues #17 point 3, #19 point 3: null when the scenario set `engine.allreduce`; otherwise why
    /// `allreduce` is the engine's default ("vLLM custom allreduce, 8 fully connected GPUs").
    pub allreduce_engine_default: Option<String>,
    pub concurrency: u32,
    pub num_requests: u32,
    /// Prompt and output tokens per request: the fixed value, or the mean of a uniform range
    /// (rounded); `prompt_len_dist`/`output_len_dist` say which ("1024" or "512..=2048").
    pub prompt_len: u32,
    pub output_len: u32,
    pub prompt_len_dist: String,
    pub output_len_dist: String,
    /// "eagle3 steps=3 topk=1 draft_tokens=4 draft=…" (SGLang's terms), "eagle3
    /// num_speculative_tokens=3 draft=…" (vLLM's), or null.
    pub speculative: Option<String>,
    /// vllmattn: under vLLM, the attention backend in force — `"FLASH_ATTN (vLLM default)"` when vLLM
    /// picks it (`scenario::attention_backend::vllm_default`), the name alone when the scenario sets
    /// it; absent without one (ROCm, releases whose rule tpsim has not read) and under SGLang.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attention_backend: Option<String>,
    /// moeroute62: the router's top-k path for a biased grouped top-k model (DeepSeek-V3, Kimi-K2,
    /// GLM-4.x MoE, vLLM's MiniMax-M2) and its kernels a MoE layer at one token a pass, e.g.
    /// `"biased_grouped_topk_impl (torch.compile chain) — 9 kernels a MoE layer"`
    /// (`decode::passes::moe_route`); absent for other routers, non-NVIDIA GPUs, runners that route
    /// inside the MoE kernel and releases whose rule was not read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub moe_routing: Option<String>,
    // Issue #17: parallelism beyond TP.
    /// "dp 8 × attention tp 1 (gather/scatter around each MLP/MoE)" under SGLang DP attention; absent
    /// otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub dp_attention: Option<String>,
    /// "pp 2 × tp 4: stages of layers [0, 40), [40, 80); 2 micro-batches in flight" with pipeline
    /// parallelism; absent otherwise.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pipeline: Option<String>,
    // Issue #17 (report fixes): the NCCL release the collectives use and where it came from
    // (`engine.nccl_version`, the engine version's torch pin, or tpsim's NCCL model).
    pub nccl_version: String,
    pub nccl_version_source: String,
}

#[derive(Debug, Clone, Serialize)]
pub struct Throughput {
    /// Output tokens per second over all requests, during decode (SGLang's "gen throughput"). This
    /// and the other decode figures (`per_request_tok_s`, `tpot_ms`, `itl_*`, `mean_iteration_ms`)
    /// are null when no decode iteration runs (every request ends with its first token,
    /// output_len = 1): the prefill figures are then the whole answer.
    pub output_tok_s: Option<f64>,
    /// Output tokens per second end to end: all output tokens over decode + prefill time.
    pub e2e_output_tok_s: f64,
    /// Mean time to first token (the prefill that admitted the request), ms.
    pub ttft_ms: f64,
    /// Total prefill time of the run, ms.
    pub prefill_time_ms: f64,
    /// Output tokens per second of one request.
    pub per_request_tok_s: Option<f64>,
    /// Mean over requests of (decode time ÷ tokens after the first), ms (bench_serving's TPOT).
    pub tpot_ms: Option<f64>,
    /// Median / 99th percentile of per-iteration time per accepted token, ms.
    pub itl_p50_ms: Option<f64>,
    pub itl_p99_ms: Option<f64>,
    pub iterations: u64,
    pub output_tokens: u64,
    pub decode_time_ms: f64,
    pub mean_iteration_ms: Option<f64>,
    /// Distinct iteration shapes simulated (the rest were reused).
    pub distinct_shapes: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct MemoryReport {
    /// "ok" or "oom".
    pub verdict: EngineVerdict,
    /// Engine memory rules in force (`late-2025`, …, `v1` for vLLM) and where they came from.
    pub era: String,
    pub era_source: String,
    pub kv_tokens: u64,
    /// Token slots of the draft's KV pool (speculative SGLang runs).
    pub draft_kv_tokens: Option<u64>,
    /// SGLang's `max_running_requests`: the decode batch never exceeds it.
    pub max_running_requests: Option<u64>,
    /// Where the workload exceeds what the plan lets the engine run at once.
    pub warnings: Vec<String>,
    pub kv_pool_gib: f64,
    pub cell_size_bytes: u64,
    pub draft_cell_size_bytes: Option<u64>,
    pub mem_fraction_static: f64,
    /// Whether the fraction is SGLang's default for the era (the scenario did not set it).
    pub mem_fraction_static_default: bool,
    /// The factor SGLang applied to the fraction for a multimodal model: `adjust_mem_fraction_for_vlm`
    /// on its default from 0.4.10, a flat 0.90 on the default in 0.4.9, the model runner's 0.95 (0.4.0 –
    /// 0.4.4) or 0.90 (0.4.5 – 0.4.8) on any fraction (None for text-only models, a given fraction
    /// under a default-only rule, or releases without the rule).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mem_fraction_vlm_factor: Option<f64>,
    pub total_gib: f64,
    pub total_source: crate::decode::Source,
    pub available_gib: f64,
    pub available_source: crate::decode::Source,
    pub rest_gib: f64,
    pub min_mem_fraction_static: Option<f64>,
    pub headroom_mib: f64,
    pub oom: Option<OomReport>,
    pub entries: Vec<crate::decode::MemEntry>,
}

#[derive(Debug, Clone, Serialize)]
pub struct OomReport {
    pub step: String,
    pub message: String,
    pub missing_mib: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Collectives {
    pub backend: AllreduceBackend,
    /// NCCL transport on the ring: "p2p" or "shm".
    pub transport: Transport,
    pub p2p_level: PathClass,
    pub staged_peer_loads: bool,
    /// Allreduces in one target forward pass (embedding + 2 per layer, + 1 per layer for a q/k norm
    /// over all heads such as MiniMax-M2's).
    pub allreduces_per_pass: u32,
    /// The same count for a verify pass (issue #6's name; null without speculation).
    pub allreduces_per_verify_pass: Option<u32>,
    pub decode_allreduce_bytes: u64,
    pub decode_allreduce_us: f64,
    pub decode_algorithm: String,
    pub verify_allreduce_bytes: Option<u64>,
    pub verify_allreduce_us: Option<f64>,
    pub verify_pass_allreduce_ms: Option<f64>,
    /// A q/k norm over all heads (MiniMax-M2): bytes of one of its per-layer statistics allreduces in
    /// a decode pass (`null` when the model has none or tp = 1).
    pub qk_norm_allreduce_bytes: Option<u64>,
    /// Its time, µs.
    pub qk_norm_allreduce_us: Option<f64>,
    /// How it runs (an 8-byte vLLM message is not a 16-byte multiple: NCCL, even at tp 2).
    pub qk_norm_algorithm: Option<String>,
    /// rope17 (issue #17): vLLM DP's MoE dispatch and combine in one decode pass (sizes, calls,
    /// per-call time; `decode::passes::vllm_dp::MoeExchange`); `null` off vLLM DP on a MoE model.
    pub moe_exchange: Option<crate::decode::MoeExchange>,
    /// Engine rules the scenario goes against, in words.
    pub warnings: Vec<String>,
}

#[derive(Debug, Clone, Serialize)]
pub struct SpecReport {
    pub accept_len_mean: f64,
    pub expected_accept_len: f64,
    pub tok_s_without_spec: f64,
    pub break_even_accept_len: Option<f64>,
    /// Mean iteration time / mean plain decode step time.
    pub iteration_ratio: f64,
    pub iteration_ms: f64,
    pub plain_step_ms: f64,
}

#[derive(Debug, Clone, Serialize)]
pub struct Floor {
    /// Weights read per rank by one 1-token-per-request decode pass, GiB.
    pub weights_read_gib_per_step: f64,
    /// KV cache read per rank by that pass at the prompt length (hybrids: plus the recurrent states
    /// read and written), GiB.
    pub kv_read_gib_per_step: f64,
    /// Weights + KV at the datasheet memory bandwidth, ms.
    pub memory_floor_ms_per_step: f64,
    /// Allreduces × one flag round trip over the fastest neighbour path, ms: no allreduce
    /// algorithm can beat a round trip.
    pub comm_floor_ms_per_step: f64,
    /// Physical floor of the time per output token without speculation: memory + communication.
    pub tpot_ms: f64,
    /// Predicted time per output token ÷ the floor (≥ 1); null without a prediction.
    pub gap: Option<f64>,
}

/// Builds the report object.
pub fn build(s: &Scenario, p: &Prediction) -> RunReport {
    build_with(s, p, true)
}

/// [`build`], with `fitted_constants` left empty unless `fitted` is true. Finding which fitted
/// constants the collectives read simulates every collective of the prediction again under each
/// perturbed parameter ([`crate::decode::passes::Costs::params_used`]): 38 % of a sweep point's CPU
/// (speed64, `perf` of a DeepSeek-R1 SGLang grid), spent for a field that sweep rows, regression
/// metrics, capacity searches and interval figures never read. Every other field is [`build`]'s.
pub fn build_with(s: &Scenario, p: &Prediction, fitted: bool) -> RunReport {
    let m = &p.main;
    let c = running(s, p);
    let (verdict, error) = engine_verdict(s, p);
    let serves = verdict == EngineVerdict::Ok;
    // Decode figures exist only when an iteration ran (output_len = 1 ends at the prefill).
    let decodes = serves && m.iterations > 0;
    let breakdown = breakdown(m, decodes);
    let bottleneck = bottleneck(&breakdown);
    // dpep17 (issue #17): under vLLM DP the TP collectives are one DP rank's (its tp, its share of
    // the batch: `passes::vllm_dp`), and a step reads that rank's attention and dense layers plus
    // its experts' share of the gathered batch; `engine.tp` is the MoE's flattened dp × tp there.
    let (fp1, weights) = match s.engine.vllm_dp {
        Some(v) => {
            let mut fp1 = s.model.forward_pass(v.tp, c.div_ceil(v.dp));
            // Sequence-parallel MoE all-gathers the rows back in the TP group instead of
            // all-reducing the MoE output (`passes::vllm_dp`).
            if v.sequence_parallel {
                let moe = fp1.layers.iter().filter(|l| l.is_moe).count() as u32;
                fp1.allreduces = fp1.allreduces.saturating_sub(moe);
            }
            (fp1, vllm_dp_step_weights(s, v, c))
        }
        None => {
            let fp1 = s.model.forward_pass(s.engine.tp, c);
            // rope17 (issue #17): under SGLang's DP attention a rank reads its attention group's
            // shard of the attention, not the full tp's (`dp_attention_step_weights`).
            let w = match s.engine.dp_attention {
                Some(d) => dp_attention_step_weights(s, d, c),
                None => fp1.weight_bytes(),
            };
            (fp1, w)
        }
    };
    let per_pass = fp1.allreduces + fp1.qk_norm_allreduces + fp1.lightning_norm_allreduces;
    RunReport {
        schema_version: SCHEMA_VERSION,
        tpsim_version: env!("CARGO_PKG_VERSION"),
        scenario: scenario_summary(s, c),
        verdict,
        error,
        warnings: s.warnings.clone(),
        hardware: hardware::build(&s.hardware),
        throughput: serves.then(|| throughput(m, decodes)),
        serving: serves.then(|| serving::build(m)),
        breakdown,
        breakdown_by_op: if decodes { m.by_op_ms() } else { BTreeMap::new() },
        bottleneck,
        memory: memory_report(s, &p.memory),
        collectives: collectives(s, p, c, &fp1),
        spec: spec_report(s, p, decodes),
        floor: floor(s, p, weights, per_pass, decodes.then(|| m.tpot_ms())),
        fitted_constants: if fitted { fitted_used(s, p) } else { Vec::new() },
        model_checks: model_checks(s),
        slo: s.slo.as_ref().filter(|_| serves).map(|slo| SloReport {
            objectives: slo.clone(),
            checks: crate::slo::check(&slo.targets(), m),
            goodput: crate::slo::goodput(slo, m),
        }),
        intervals: None,
        prefill_calibration: serves
            .then(|| prefill_calibration::build(s, &m.prefill_kernels))
            .flatten(),
        calibrated_range: crate::intervals::calibrated_range(s, c, fp1.allreduce_bytes.0),
    }
}

/// The critical path's decode time by category, ms (empty when nothing decoded).
fn breakdown(m: &LoopResult, decodes: bool) -> BTreeMap<String, f64> {
    Category::ALL
        .iter()
        .filter(|c| {
            matches!(
                c,
                Category::Compute | Category::Collective | Category::Host | Category::Sync | Category::Idle
            )
        })
        .filter(|_| decodes)
        .map(|cat| {
            (
                cat.as_str().to_string(),
                m.breakdown_ms().get(cat).copied().unwrap_or(0.0),
            )
        })
        .collect()
}

/// The largest category of the breakdown other than idle (the first on ties), or "none".
fn bottleneck(breakdown: &BTreeMap<String, f64>) -> String {
    breakdown
        .iter()
        .filter(|(k, _)| k.as_str() != Category::Idle.as_str())
        .fold(None::<(&String, f64)>, |best, (k, v)| match best {
            Some((_, bv)) if bv >= *v => best,
            _ => Some((k, *v)),
        })
        .map_or_else(|| "none".to_string(), |(k, _)| k.clone())
}

/// What the scenario is: its file, box, model, engine, speculation and workload.
fn scenario_summary(s: &Scenario, c: u32) -> ScenarioSummary {
    ScenarioSummary {
        file: s.file.display().to_string(),
        seed: s.seed,
        hardware: s.hardware.name.clone(),
        gpus: s.hardware.topology.gpu_count(),
        model: s.model_name.clone(),
        // A V0 run's host costs are the V0 loop's (`engine.v0`), not the preset's era: say so.
        engine: match s.engine.v0 {
            Some(_) => format!("{} (V0 engine)", s.engine.name),
            None => format!("{} ({} era)", s.engine.name, s.engine.costs.era),
        },
        engine_version: s.engine.release(),
        v0_engine: s.engine.v0.map(|v| {
            format!(
                "{}: {} of host time per decode step at batch 1 before the forward (replaces engine.costs.host_overhead)",
                v.label(),
                v.step_host(1)
            )
        }),
        // Issue #17: the engine's own flags (vLLM's `-tp 2 -dp 4` is tp 2, dp 4; the flattened MoE size
        // is in `dp_attention`'s text).
        tp: s.engine.vllm_dp.map_or(s.engine.tp, |v| v.tp),
        dp: s.engine.dp_attention.map_or(s.engine.replicas, |d| d.dp),
        allreduce: s.engine.allreduce,
        allreduce_engine_default: s.engine.allreduce_default.clone(),
        dp_attention: s.engine.dp_attention.map(|d| match s.engine.vllm_dp {
            // Issue #17 point 1 (vllmdp).
            Some(v) => format!(
                "vLLM dp {} × tp {}: MoE over the {} ranks ({}), {} before and {} after each MoE layer",
                v.dp,
                v.tp,
                s.engine.tp,
                if v.ep { "expert parallel" } else { "TP-style experts" },
                "all-gather",
                match v.backend {
                    crate::scenario::vllm_dp::Backend::AllgatherReducescatter => "reduce-scatter",
                    crate::scenario::vllm_dp::Backend::Naive => "allreduce",
                }
            ),
            None => format!(
                "dp {} × attention tp {}: all-gather before and reduce-scatter after each MLP/MoE over the {} ranks",
                d.dp, d.attn_tp, s.engine.tp
            ),
        }),
        pipeline: (s.engine.pp > 1).then(|| {
            let rule = match s.engine.kind {
                crate::scenario::EngineKind::Vllm => tpsim_model::pipeline::Partition::Vllm,
                crate::scenario::EngineKind::Sglang => tpsim_model::pipeline::Partition::Sglang,
            };
            let ranges: Vec<String> =
                tpsim_model::pipeline::stage_ranges(s.model.num_layers, s.engine.pp, rule)
                    .iter()
                    .map(|(a, b)| format!("[{a}, {b})"))
                    .collect();
            format!(
                "pp {} × tp {}: stages of layers {}; {} micro-batches in flight",
                s.engine.pp,
                s.engine.tp,
                ranges.join(", "),
                s.engine.pp
            )
        }),
        concurrency: c,
        num_requests: s.workload.num_requests,
        prompt_len: s.workload.prompt_len.mean().round() as u32,
        output_len: s.workload.output_len.mean().round() as u32,
        prompt_len_dist: s.workload.prompt_len.to_string(),
        output_len_dist: s.workload.output_len.to_string(),
        speculative: run_header::speculative_terms(s),
        attention_backend: match (s.engine.kind, &s.engine.attention_backend) {
            (crate::scenario::EngineKind::Vllm, Some(b)) if s.engine.attention_backend_vllm_default => {
                Some(format!("{b} (vLLM default)"))
            }
            (crate::scenario::EngineKind::Vllm, Some(b)) => Some(b.clone()),
            _ => None,
        },
        moe_routing: crate::decode::passes::moe_route::describe(s),
        nccl_version: run_header::nccl_version(s).0,
        nccl_version_source: run_header::nccl_version(s).1,
    }
}

/// Throughput and latencies of a run; the decode figures only when an
/// iteration ran.
fn throughput(m: &LoopResult, decodes: bool) -> Throughput {
    let dec = |v: f64| decodes.then_some(v);
    Throughput {
        output_tok_s: dec(m.output_tok_s()),
        // Per request: over the mean running batch the scheduler kept (issue #18), not the
        // workload's concurrency, which KV or an open loop may never reach.
        // Issue #17 (dp): over every replica's batch.
        per_request_tok_s: dec(m.output_tok_s() / (m.mean_batch() * f64::from(m.replicas.max(1))).max(1.0)),
        tpot_ms: dec(m.tpot_ms()),
        e2e_output_tok_s: m.e2e_output_tok_s(),
        ttft_ms: m.ttft_ms(),
        prefill_time_ms: m.prefill_time.as_ms_f64(),
        itl_p50_ms: dec(m.tpot_percentile_ms(50.0)),
        itl_p99_ms: dec(m.tpot_percentile_ms(99.0)),
        iterations: m.iterations,
        output_tokens: m.output_tokens,
        decode_time_ms: m.total_time.as_ms_f64(),
        mean_iteration_ms: dec(m.mean_iteration_ms),
        distinct_shapes: m.distinct_shapes,
    }
}

/// The memory plan as reported.
fn memory_report(s: &Scenario, mem: &MemoryPlan) -> MemoryReport {
    MemoryReport {
        verdict: EngineVerdict::of_memory(&mem.verdict),
        era: if s.engine.kind == crate::scenario::EngineKind::Vllm {
            // vllmv0mem: a V0 release sizes its KV cache with V0's rule.
            if s.engine.v0.is_some() { "v0" } else { "v1" }.into()
        } else {
            s.engine.era.name().into()
        },
        era_source: s.engine.era_source.clone(),
        kv_tokens: mem.kv_tokens,
        draft_kv_tokens: mem.draft_kv_tokens,
        max_running_requests: mem.max_running_requests,
        warnings: memory_warnings(s, mem),
        kv_pool_gib: mem.kv_pool.as_gib_f64(),
        cell_size_bytes: mem.cell_size,
        draft_cell_size_bytes: mem.draft_cell_size,
        mem_fraction_static: mem.mem_fraction_static,
        mem_fraction_static_default: s.engine.fraction_is_default,
        mem_fraction_vlm_factor: vlm_fraction_factor(s),
        total_gib: mem.total_gib,
        total_source: mem.total_source,
        available_gib: mem.available_gib,
        available_source: mem.available_source,
        rest_gib: mem.rest_gib,
        min_mem_fraction_static: mem.min_mem_fraction_static,
        headroom_mib: mem.headroom.as_mib_f64(),
        oom: oom_report(&mem.verdict),
        entries: mem.entries.clone(),
    }
}

/// The failing step of a plan that does not start.
fn oom_report(verdict: &Verdict) -> Option<OomReport> {
    match verdict {
        Verdict::Ok => None,
        Verdict::Oom {
            step,
            message,
            missing,
        } => Some(OomReport {
            step: step.clone(),
            message: message.clone(),
            missing_mib: missing.as_mib_f64(),
        }),
    }
}

/// The collectives of one decode pass of `c` requests (`fp1`), of a verify pass and of the q/k-norm
/// statistics: how many, their sizes, times and algorithms.
fn collectives(s: &Scenario, p: &Prediction, c: u32, fp1: &ForwardPass) -> Collectives {
    let tp = s.engine.tp;
    let ar1 = p.costs.allreduce(fp1.allreduce_bytes);
    let per_pass = fp1.allreduces + fp1.qk_norm_allreduces + fp1.lightning_norm_allreduces;
    // The q/k-norm statistics allreduce, sized as the engine sends it (decode::passes).
    let qk = (fp1.qk_norm_allreduces > 0).then(|| {
        let padded = s.engine.kind == crate::scenario::EngineKind::Sglang;
        p.costs
            .allreduce(Bytes(tpsim_model::llm::qk_norm_stats_bytes(u64::from(c), padded)))
    });
    let (verify_bytes, verify_us, verify_ms) = match &s.speculative {
        Some(sp) => {
            let fpv = s.model.forward_pass(tp, c * sp.num_draft_tokens);
            let arv = p.costs.allreduce(fpv.allreduce_bytes);
            let us = arv.time.as_us_f64();
            (
                Some(fpv.allreduce_bytes.0),
                Some(us),
                Some(us * fpv.allreduces as f64 / 1000.0),
            )
        }
        None => (None, None, None),
    };
    Collectives {
        backend: p.costs.backend,
        transport: p.costs.transport(),
        p2p_level: p.costs.p2p_level(),
        staged_peer_loads: p.costs.staged_peer_loads(),
        allreduces_per_pass: per_pass,
        allreduces_per_verify_pass: s.speculative.as_ref().map(|_| per_pass),
        decode_allreduce_bytes: ar1.bytes.0,
        decode_allreduce_us: ar1.time.as_us_f64(),
        decode_algorithm: ar1.algorithm,
        verify_allreduce_bytes: verify_bytes,
        verify_allreduce_us: verify_us,
        verify_pass_allreduce_ms: verify_ms,
        qk_norm_allreduce_bytes: qk.as_ref().map(|q| q.bytes.0),
        qk_norm_allreduce_us: qk.as_ref().map(|q| q.time.as_us_f64()),
        qk_norm_algorithm: qk.map(|q| q.algorithm),
        moe_exchange: crate::decode::passes::vllm_dp::moe_exchange(s, &p.costs, c),
        warnings: engine_warnings(s),
    }
}

/// Speculation against the same box without it (when the scenario speculates and decoded).
fn spec_report(s: &Scenario, p: &Prediction, decodes: bool) -> Option<SpecReport> {
    let m = &p.main;
    match (&s.speculative, &p.without_spec) {
        (Some(sp), Some(plain)) if decodes => Some(SpecReport {
            accept_len_mean: m.accept_len_mean,
            expected_accept_len: sp.acceptance.expected_accept_len(
                sp.num_steps,
                sp.topk,
                sp.num_draft_tokens,
            ),
            tok_s_without_spec: plain.output_tok_s(),
            break_even_accept_len: p.break_even_accept_len,
            iteration_ratio: if plain.mean_iteration_ms > 0.0 {
                m.mean_iteration_ms / plain.mean_iteration_ms
            } else {
                0.0
            },
            iteration_ms: m.mean_iteration_ms,
            plain_step_ms: plain.mean_iteration_ms,
        }),
        _ => None,
    }
}

/// Parameters every prediction uses: the memory plan reads `context_overhead`, every kernel the
/// efficiencies and the per-kernel overhead.
const ALWAYS_USED: &[&str] = &[
    "context_overhead",
    "mem_efficiency",
    "flops_efficiency",
    "kernel_overhead",
];

/// The fitted constants of the scenario's hardware that this prediction used: the always-used ones,
/// and the others when a collective the prediction simulated depends on them.
fn model_checks(s: &Scenario) -> ModelChecks {
    let c = coverage::coverage(s.model.arch);
    ModelChecks {
        architecture: c.arch,
        families: c.families,
        engine: match s.engine.kind {
            crate::scenario::EngineKind::Sglang => c.sglang,
            crate::scenario::EngineKind::Vllm => c.vllm,
        },
    }
}

fn fitted_used(s: &Scenario, p: &Prediction) -> Vec<FittedUse> {
    let hw = &s.hardware;
    let others: Vec<&str> = hw
        .fitted
        .keys()
        .map(String::as_str)
        .filter(|n| !ALWAYS_USED.contains(n))
        .collect();
    let used = p.costs.params_used(hw, &others);
    hw.fitted
        .iter()
        .filter(|(n, _)| {
            ALWAYS_USED.contains(&n.as_str()) || used.contains(n) || n.starts_with("compute.curves.")
        })
        .filter_map(|(n, f)| {
            let (value, unit) = match n.strip_prefix("compute.curves.") {
                // A fitted curve (issue #18, prefill3) is read by every kernel of its class; its
                // value is the efficiency of its last FLOP point (the fitted plateau).
                Some(class) => {
                    let class = tpsim_model::curves::OpClass::from_key(class).ok()?;
                    (hw.curves.flops(class)?.points().last()?.1, String::new())
                }
                None => (
                    crate::scenario::profile::get(&hw.params, n)?,
                    crate::scenario::profile::param_unit(n)?.as_str().to_string(),
                ),
            };
            Some(FittedUse {
                name: n.clone(),
                value,
                unit,
                rows: f.rows.clone(),
                refit: f.refit.clone(),
                file: f.file.clone(),
            })
        })
        .collect()
}

/// dpep17: the weights the busiest rank reads in one decode step under vLLM DP, as
/// `passes::vllm_dp` lowers it: each layer's attention (and a dense layer's MLP) at the DP rank's
/// tp over its ⌈c / dp⌉ requests, a MoE layer's experts over dp × tp devices for the gathered
/// batch, the embedding and LM head at the rank's tp.
fn vllm_dp_step_weights(s: &Scenario, v: crate::scenario::vllm_dp::VllmDp, c: u32) -> Bytes {
    let local = c.div_ceil(v.dp);
    let attn = s.model.forward_pass(v.tp, local);
    let ffn = s.model.forward_pass(v.world(), local * v.dp);
    let layers = attn.layers.iter().zip(&ffn.layers).fold(0u64, |a, (la, lf)| {
        let f = if lf.is_moe {
            lf.ffn_weight_bytes.0
        } else {
            la.ffn_weight_bytes.0
        };
        a.saturating_add(la.attn_weight_bytes.0).saturating_add(f)
    });
    Bytes(
        layers
            .saturating_add(attn.embed_bytes.0)
            .saturating_add(attn.lm_head_bytes.0),
    )
}

/// rope17 (issue #17): the weights one rank reads in a decode step of `c` requests under SGLang's
/// DP attention, as the iteration graph runs it (`decode::passes::dp_attention`, SGLang 0.5.9):
/// attention projections and the vocab-parallel embedding at the attention TP (`qwen3_moe.py` etc.
/// shard heads by `get_attention_tp_size()`; `VocabParallelEmbedding(…,
/// use_attn_tp_group=is_dp_attention_enabled())`) over the group's ⌈c / dp⌉ requests; the MLP/MoE
/// and the LM head (`use_attn_tp_group=enable_dp_lm_head`, off by default) at tp over every
/// group's tokens, each padded to the busiest group.
fn dp_attention_step_weights(s: &Scenario, d: crate::scenario::dp_attention::DpAttention, c: u32) -> Bytes {
    let local = c.div_ceil(d.dp.max(1));
    let attn = s.model.forward_pass(d.attn_tp, local);
    let ffn = s.model.forward_pass(s.engine.tp, local * d.dp.max(1));
    let layers = attn.layers.iter().zip(&ffn.layers).fold(0u64, |a, (la, lf)| {
        a.saturating_add(la.attn_weight_bytes.0)
            .saturating_add(lf.ffn_weight_bytes.0)
    });
    Bytes(
        layers
            .saturating_add(attn.embed_bytes.0)
            .saturating_add(ffn.lm_head_bytes.0),
    )
}

/// The physical floor of one plain decode step (DESIGN.md §2.4): weights and KV at the datasheet
/// bandwidth, plus one flag round trip per allreduce over the fastest neighbour path.
fn floor(s: &Scenario, p: &Prediction, weights: Bytes, allreduces: u32, tpot_ms: Option<f64>) -> Floor {
    // The mean running batch of the run (issue #18: KV or arrivals may keep it below the
    // workload's concurrency); the configured one when nothing decoded.
    let c = if p.main.iterations > 0 {
        (p.main.mean_batch().round() as u64).max(1)
    } else {
        u64::from(running(s, p))
    };
    // Hybrids (Qwen3.5) also read and write each request's recurrent state in every linear layer;
    // it is counted with the KV read.
    // dpep17: with DP attention (SGLang's, or vLLM's DP ranks) a rank holds the KV heads and states
    // of its attention TP and reads its own group's ⌈c / dp⌉ requests (`decode::dp_attention`).
    let (attn_tp, groups) = s
        .engine
        .dp_attention
        .map_or((s.engine.tp, 1), |d| (d.attn_tp, u64::from(d.dp.max(1))));
    let c = c.div_ceil(groups);
    let state = 2 * s.model.linear_state_bytes_per_req(attn_tp) * c;
    // Local layers (sliding / chunked, issue #16) read only their window or current chunk.
    let m = &s.model;
    let ctx = s.workload.prompt_len.mean().round() as u64;
    let per_layer = m.kv_cell_bytes(attn_tp) / u64::from(m.kv_layers().max(1));
    // dsv4dec55 (issue #17): DeepSeek-V4 reads its window, compressed slots and indexer keys
    // (`llm::deepseek_v4_decode::step_kv_read_bytes`).
    let read = if let Some(g) = &m.deepseek_v4 {
        tpsim_model::llm::deepseek_v4_decode::step_kv_read_bytes(g, ctx)
    } else if let Some(g) = &m.minimax_m3 {
        // families38 (issue #17): MiniMax-M3 reads the chosen blocks' K/V and every index key on its
        // MSA layers (`llm::minimax_m3::Geometry::step_kv_read_bytes`).
        g.step_kv_read_bytes(u64::from(attn_tp), ctx)
    } else if m.sliding_layers() == 0 {
        m.kv_cell_bytes(attn_tp) * ctx
    } else {
        let tokens: u64 = m
            .mixers
            .iter()
            .filter(|x| **x != tpsim_model::llm::Mixer::Linear)
            .map(|x| tpsim_model::llm::local_kv_tokens(*x, m.local_window(*x), ctx))
            .sum();
        per_layer * tokens
    };
    let kv = Bytes(read * c + state);
    let bw = s.hardware.gpu.memory_bandwidth;
    let memory_ms = bw.transfer_time(weights).as_ms_f64() + bw.transfer_time(kv).as_ms_f64();
    let ranks = &p.costs.comm.ranks;
    let hop = (0..ranks.len())
        .filter(|_| ranks.len() > 1)
        .map(|i| {
            p.costs
                .comm
                .fabric
                .path(ranks[i], ranks[(i + 1) % ranks.len()])
                .latency
        })
        .min()
        .unwrap_or(tpsim_model::units::Duration::ZERO);
    let comm_ms = allreduces as f64 * 2.0 * hop.as_ms_f64();
    let floor_ms = memory_ms + comm_ms;
    Floor {
        weights_read_gib_per_step: weights.as_gib_f64(),
        kv_read_gib_per_step: kv.as_gib_f64(),
        memory_floor_ms_per_step: memory_ms,
        comm_floor_ms_per_step: comm_ms,
        tpot_ms: floor_ms,
        gap: tpot_ms.map(|t| if floor_ms > 0.0 { t / floor_ms } else { 0.0 }),
    }
}

/// The engine's verdict and its own error text: "oom" with the start-up error when the memory plan
/// fails, else "rejected" with the request error when it refuses the workload's requests, else "ok".
fn engine_verdict(s: &Scenario, p: &Prediction) -> (EngineVerdict, Option<String>) {
    match &p.memory.verdict {
        Verdict::Oom { message, .. } => (EngineVerdict::Oom, Some(message.clone())),
        Verdict::Ok => match crate::decode::rejection(s) {
            Some(message) => (EngineVerdict::Rejected, Some(message)),
            // Issue #18: every request refused one by one (e.g. longer than the KV pool).
            None if p.main.finished == 0 && p.main.rejected > 0 => {
                (EngineVerdict::Rejected, p.main.first_rejection.clone())
            }
            None => (EngineVerdict::Ok, None),
        },
    }
}

fn running(s: &Scenario, p: &Prediction) -> u32 {
    crate::decode::running_requests(s, &p.memory)
}

/// SGLang's reduction of the fraction for a multimodal model, when one applied (memlogs, issue #17:
/// by release, `tpsim_model::sglang_vlm_fraction`; resolved with the scenario).
fn vlm_fraction_factor(s: &Scenario) -> Option<f64> {
    s.engine.mem_fraction_vlm_factor
}

/// Where the workload exceeds what the engine's memory plan lets it run at once. The plan is one
/// pool's: under DP attention (SGLang) or vLLM's DP ranks each group holds its own pool and
/// `max_running_requests`, and each data-parallel replica its own (issue #17), so the requests are
/// compared per group: ⌈running ÷ groups⌉ against one pool.
fn memory_warnings(s: &Scenario, mem: &crate::decode::MemoryPlan) -> Vec<String> {
    let mut w = mem.notes.clone();
    let groups =
        u64::from(s.engine.dp_attention.map_or(1, |d| d.dp).max(1)) * u64::from(s.engine.replicas.max(1));
    let cap = mem.max_running_requests.map(|m| m.saturating_mul(groups));
    if let Some(cap) = cap
        && u64::from(s.workload.concurrency) > cap
        && mem.kv_tokens > 0
    {
        let m = mem.max_running_requests.unwrap_or(cap);
        let per = if groups > 1 {
            format!(" per group × {groups} groups = {cap}")
        } else {
            String::new()
        };
        w.push(format!(
            "concurrency {} exceeds SGLang's max_running_requests = {m}{per}: at most {cap} requests decode at \
             once, the rest queue (set engine.max_running_requests to change it)",
            s.workload.concurrency
        ));
    }
    let per_request = s.workload.prompt_len.max() as u64 + s.workload.output_len.max() as u64;
    let running = u64::from(s.workload.concurrency).min(cap.unwrap_or(u64::MAX));
    let per_group = running.div_ceil(groups);
    if mem.kv_tokens > 0 && per_group * per_request > mem.kv_tokens {
        let share = if groups > 1 {
            format!(" ({running} requests over {groups} pools)")
        } else {
            String::new()
        };
        // Issue #18: the serving loop admits by free KV and retracts (SGLang) or preempts (vLLM)
        // as the engine does; the report's serving figures count them.
        w.push(format!(
            "{per_group} requests × {per_request} tokens{share} exceed one KV pool ({} tokens): the scheduler \
             admits fewer at once and retracts or preempts as the engine does (see preemptions/retractions)",
            mem.kv_tokens
        ));
    }
    w
}

/// Where the scenario departs from what the stock engine would do (engine-memory.md, "Custom
/// allreduce: when it runs").
fn engine_warnings(s: &Scenario) -> Vec<String> {
    let mut w = Vec::new();
    let tp = s.engine.tp;
    // Only a custom allreduce the scenario asked for: one the engine chose itself
    // (`allreduce_default`, autoar) is the stock engine's behaviour.
    if s.engine.allreduce == AllreduceBackend::Custom && s.engine.allreduce_default.is_none() {
        if tp > 2 && !s.hardware.gpu.nvlink {
            // Both engines' `custom_all_reduce.py` (SGLang 0.5.9, vLLM 0.19.0): "Custom allreduce is
            // disabled because it's not supported on more than two PCIe-only GPUs."
            let engine = match s.engine.kind {
                crate::scenario::EngineKind::Sglang => "SGLang",
                crate::scenario::EngineKind::Vllm => "vLLM",
            };
            w.push(format!(
                "stock {engine} disables its custom allreduce on more than two PCIe-only GPUs (tp = {tp}); this \
                 models a local patch that forces it on"
            ));
        }
        if !matches!(tp, 2 | 4 | 6 | 8) {
            w.push(format!(
                "the custom allreduce supports world sizes 2, 4, 6 and 8; tp = {tp} falls back to NCCL"
            ));
        }
    }
    w
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn verdict_names_round_trip() {
        for v in EngineVerdict::ALL {
            assert_eq!(EngineVerdict::from_name(v.as_str()), Some(v));
            assert_eq!(serde_json::to_value(v).unwrap(), v.as_str());
        }
        assert_eq!(EngineVerdict::from_name("OK"), None);
    }
}
