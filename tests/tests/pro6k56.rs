//! pro6k56 (issue #18): the RTX PRO 6000 per-request decode gap of the Qwen3-Coder-Next FP8 rows
//! (newdeploys19, deploys30: tpsim's step grows about twice as fast with the batch as the deplodock
//! files' under vLLM 0.15.1 / 0.16.0), read in the engine's code and in kernel timings on SM 12.0.
//!
//! **1. Fixed: the Gated DeltaNet state's width under vLLM.** tpsim's decode read and wrote each
//! request's SSM state in every Gated DeltaNet layer at float32 (SGLang's default, which the lowering
//! starts from) under vLLM too, while vLLM allocates it — and its decode kernel loads and stores it — at
//! the dtype `MambaStateDtypeCalculator.gated_delta_net_state_dtype` returns: up to 0.16 the
//! `--mamba-cache-dtype` for both states (`auto` = the model dtype, bfloat16 for Qwen3-Next; vllm
//! 0.10.2 / 0.11.0 / 0.15.1 / 0.16.0 wheels, `model_executor/layers/mamba/mamba_utils.py`, and
//! `models/qwen3_next.py` `get_state_dtype` / `get_mamba_state_dtype_from_config`, which pass no SSM
//! dtype); from 0.17.0 the SSM state takes `--mamba-ssm-cache-dtype`, whose `auto` the config's
//! `mamba_ssm_dtype` replaces (Qwen3.5: float32; 0.17.0 / 0.19.0 / 0.28.0 wheels). tpsim's vLLM memory
//! plan already sized the state page so (`decode::vllm_hybrid`); the decode now reads the same width
//! (`VllmHybridRules::gdn_ssm_bytes`, `scenario::mamba_dtype::apply_vllm`), and before 0.17 a
//! `--mamba-ssm-cache-dtype` is reported as not applied instead of sizing the page.
//! Qwen3-Coder-Next: 36 Gated DeltaNet layers × 32 value heads × 128 × 128 × 2 B less a request a
//! step, read and written: 75.5 MB a request, about 0.05 ms at the Server template's 0.893 × 1.597 TB/s (server58; 0.80 × 1.79 TB/s before).
//!
//! **2. Located, not fitted: the rest of the per-request gap is the routing, not the MoE kernel.**
//! vLLM PR 39183 times the triton fused-MoE call of Qwen3.5-35B-A3B-FP8 — the same expert shape as
//! Qwen3-Next (hidden 2048, moe_intermediate 512, fp8 block [128, 128]) — on an RTX PRO 6000 Server
//! Edition at batches 1 – 96 under benchmark_moe.py's uniform random routing (tests/data/
//! moe-batch-sm120.tsv). Between batches 16 and 96 the call grows by the distinct experts it touches at
//! 2.17 µs an expert, tpsim's template cost of the same expert (3,145,728 B at 0.80 × 1.79 TB/s =
//! 2.20 µs; since server58 the Server Edition's 0.893 × 1.597 TB/s = 2.21 µs) within 1.5 %. At that measured cost, the experts that independent uniform routing adds from a
//! batch of 8 to one of 32 in Qwen3-Coder-Next's 48 MoE layers take 17.20 ms — more than the files'
//! whole step grows from c 8 to c 32 (12.48 ms). So the measured kernel cannot be what tpsim has wrong:
//! the served batches touch fewer distinct experts than uniform routing does (their routing is
//! concentrated). `model.routing_skew` stays 0: no source gives Qwen3-Next's routing on this
//! workload, and nothing is fitted to the rows.
//!
//! VALIDATION, out-of-sample: the rows' errors before → after are in book/src/validation.md
//! ("pro6k56"); the known misses' reasons (tests/tests/throughput_rows.rs) were re-derived.

use crate::common::*;

/// The Qwen3-Coder-Next FP8 scenario of the deplodock sweep at c 8 (newdeploys19), vLLM 0.16.0.
const CODER_NEXT_C8: &str = "validation/qwen3-coder-next-fp8-pro6000x1-vllm-0.16-tp1-4k4k-c8.toml";

/// GDDR7 bandwidth of the RTX PRO 6000 Server Edition, PR 39183's card (template `memory_bandwidth`,
/// 12481 MHz; 1.79e12 before server58), bytes/s.
const DRAM_BYTES_PER_S: f64 = 1.597e12;
/// The Server template's streaming efficiency (`templates/rtx-pro-6000-server.toml` `mem_efficiency`,
/// measured, server58; pcie-nccl-host's assumed 0.80 before).
const MEM_EFFICIENCY: f64 = 0.893;

/// The c 8 scenario at one request in flight with `engine` lines added, under vLLM `version`.
fn one_request(name: &str, version: &str, engine: &str) -> serde_json::Value {
    let f = edited_variant(CODER_NEXT_C8, name, |t| {
        t.replace("version = \"0.16.0\"", &format!("version = \"{version}\""))
            .replace("max_num_seqs = 8\n", &format!("max_num_seqs = 1\n{engine}"))
            .replace("concurrency = 8\n", "concurrency = 1\n")
    });
    run_json(&f)
}

/// Bytes the floor's KV-and-state read counts a step.
fn kv_read_bytes(run: &serde_json::Value) -> f64 {
    f(&run["floor"]["kv_read_gib_per_step"]) * (1u64 << 30) as f64
}

/// The model's Gated DeltaNet SSM state of one request over its linear layers at one byte an element,
/// from the preset's config.json: 48 layers, every 4th full attention → 36 linear layers; 32 value
/// heads × 128 (key dim) × 128 (value dim) = 524,288 elements a layer; 36 × 524,288 = 18,874,368.
fn ssm_elements() -> u64 {
    let text = std::fs::read_to_string(
        std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../scenarios/models/qwen3-next-80b-a3b-fp8/config.json"),
    )
    .unwrap();
    let c: serde_json::Value = serde_json::from_str(&text).unwrap();
    let n = |k: &str| c[k].as_u64().unwrap();
    let linear = n("num_hidden_layers") - n("num_hidden_layers") / n("full_attention_interval");
    assert_eq!(linear, 36);
    let e = linear * n("linear_num_value_heads") * n("linear_key_head_dim") * n("linear_value_head_dim");
    assert_eq!(e, 18_874_368);
    e
}

/// vLLM 0.16.0 keeps Qwen3-Next's SSM state at the model dtype (bfloat16): `--mamba-cache-dtype
/// float32` doubles it. By hand, one request, read and written once a decode step: 2 passes × 18,874,368
/// elements × (4 − 2) B = 75,497,472 B more a step (the conv state's reads are the same: tpsim keeps
/// them at 2 B). Before pro6k56 both runs read float32 and the difference was 0. Exact to 1 B (the
/// floor's GiB figure is a binary fraction of these integers).
#[test]
fn vllm_0_16_reads_the_gdn_state_at_the_model_dtype() {
    let auto = one_request("pro6k56-auto", "0.16.0", "");
    let fp32 = one_request("pro6k56-cache32", "0.16.0", "mamba_cache_dtype = \"float32\"\n");
    let by_hand = 2 * ssm_elements() * (4 - 2);
    assert_eq!(by_hand, 75_497_472);
    let by_hand = by_hand as f64;
    let diff = kv_read_bytes(&fp32) - kv_read_bytes(&auto);
    assert!((diff - by_hand).abs() <= 1.0, "{diff} against {by_hand}");
    // The step's whole KV-and-state read at bf16: the KV of 4,000 tokens × 24,576 B (12 full layers ×
    // 2 KV heads × 256 × 2 × 2 B) = 98,304,000 plus 2 × 36 × (conv 8,192 × 3 × 2 B + SSM 524,288 × 2 B)
    // = 2 × 36 × 1,097,728 = 79,036,416: 177,340,416 B.
    assert!(
        (kv_read_bytes(&auto) - 177_340_416.0).abs() <= 1.0,
        "{}",
        kv_read_bytes(&auto)
    );
}

/// Before 0.17 vLLM's Gated DeltaNet layers do not read `--mamba-ssm-cache-dtype`
/// (`gated_delta_net_state_dtype` has no such argument in 0.16.0): the flag changes neither the decode's
/// reads nor the state page, and tpsim says so. From 0.17.0 it is read: float32 adds the same
/// 75,497,472 B a step as above. Exact to 1 B.
#[test]
fn mamba_ssm_cache_dtype_is_read_for_gdn_from_vllm_0_17() {
    let flag = "mamba_ssm_cache_dtype = \"float32\"\n";
    let auto_16 = one_request("pro6k56-auto16", "0.16.0", "");
    let ssm_16 = one_request("pro6k56-ssm16", "0.16.0", flag);
    assert!((kv_read_bytes(&ssm_16) - kv_read_bytes(&auto_16)).abs() <= 1.0);
    assert_eq!(
        ssm_16["memory"]["kv_tokens"], auto_16["memory"]["kv_tokens"],
        "the state page is the same at 0.16"
    );
    assert!(
        memory_warnings(&ssm_16)
            .iter()
            .any(|w| w.contains("--mamba-ssm-cache-dtype='float32' is not applied")),
        "{:?}",
        memory_warnings(&ssm_16)
    );
    let auto_17 = one_request("pro6k56-auto17", "0.17.0", "");
    let ssm_17 = one_request("pro6k56-ssm17", "0.17.0", flag);
    let diff = kv_read_bytes(&ssm_17) - kv_read_bytes(&auto_17);
    assert!((diff - 75_497_472.0).abs() <= 1.0, "{diff}");
    assert!(
        !memory_warnings(&ssm_17)
            .iter()
            .any(|w| w.contains("is not applied"))
    );
}

/// The PR 39183 rows: (batch, default µs, tuned µs).
fn pr39183() -> Vec<(u64, f64, f64)> {
    let t = read_tsv(&data_path("moe-batch-sm120.tsv"));
    let (b, d, tu, e, k, h, n) = (
        t.col("batch"),
        t.col("default_us"),
        t.col("tuned_us"),
        t.col("experts"),
        t.col("top_k"),
        t.col("hidden"),
        t.col("n_per_rank"),
    );
    t.rows
        .iter()
        .map(|r| {
            // The expert shape these figures are for: Qwen3.5-35B-A3B at TP 1.
            assert_eq!(
                [r.get(e), r.get(k), r.get(h), r.get(n)],
                ["256", "8", "2048", "512"],
                "line {}",
                r.line
            );
            let num = |i: usize| r.get(i).parse::<f64>().unwrap();
            (r.get(b).parse::<u64>().unwrap(), num(d), num(tu))
        })
        .collect()
}

/// Expected distinct experts of `e` touched by `n` tokens choosing `k` each, independently and
/// uniformly (benchmark_moe.py's random router; tpsim's `expected_distinct_experts`): e·(1 − (1 − k/e)^n).
fn distinct(e: f64, k: f64, n: f64) -> f64 {
    e * (1.0 - (1.0 - k / e).powf(n))
}

/// One expert's fp8 weights: (w13: 2 × 512 × 2048 + w2: 2048 × 512) × 1 B = 3,145,728 B (the block
/// scales, one fp32 per 128 × 128, add 0.02 % and are left out), for both Qwen3.5-35B-A3B and
/// Qwen3-Next (hidden 2048, moe_intermediate 512).
const EXPERT_BYTES: f64 = 3.0 * 2048.0 * 512.0;

/// PR 39183's call time grows with the distinct experts it touches. Batches 1 – 4 (≤ 30.5 experts,
/// ≤ 96 MB) run above the GDDR7 datasheet rate — 4: D = 256 × (1 − (248/256)^4) = 30.53 experts,
/// 96.0 MB in 42.25 µs = 2.27 TB/s — so they are L2 reads (no flush between the benchmark's replays).
/// From 16 to 96 the touched experts go 101.96 → 243.85 (Δ 141.89, 446 MB) and the call 242.00 → 550.28
/// µs (default; tuned 241.80 → 540.70): 2.173 (2.107) µs an expert, 1.448 (1.493) TB/s, 0.81 (0.83) of
/// the datasheet. tpsim's template charges an expert 3,145,728 / (0.893 × 1.597e12) = 2.206 µs (server58;
/// 2.197 at 0.80 × 1.79e12 before): within 1.5 % of the default config's increment (tolerance 3 %), and 4.7 %
/// of the tuned one's (tolerance 5 %).
#[test]
fn moe_call_cost_per_expert_on_sm120_matches_the_template() {
    let rows = pr39183();
    let at = |b: u64| *rows.iter().find(|r| r.0 == b).unwrap();
    let d = |b: f64| distinct(256.0, 8.0, b);
    let l2_rate = d(4.0) * EXPERT_BYTES / (at(4).1 * 1e-6);
    assert!((l2_rate / 1e12 - 2.27).abs() < 0.01, "{l2_rate}");
    assert!(l2_rate > DRAM_BYTES_PER_S);
    let template_us = EXPERT_BYTES / (MEM_EFFICIENCY * DRAM_BYTES_PER_S) * 1e6;
    assert!((template_us - 2.206).abs() < 0.001, "{template_us}");
    let per_expert = |col: fn(&(u64, f64, f64)) -> f64| (col(&at(96)) - col(&at(16))) / (d(96.0) - d(16.0));
    let default_us = per_expert(|r| r.1);
    let tuned_us = per_expert(|r| r.2);
    assert!((default_us - 2.173).abs() < 0.001, "{default_us}");
    assert!((tuned_us - 2.107).abs() < 0.001, "{tuned_us}");
    assert!((template_us / default_us - 1.0).abs() < 0.03);
    assert!((template_us / tuned_us - 1.0).abs() < 0.05);
}

/// The files' step grows less from c 8 to c 32 than uniform routing's MoE alone would at the measured
/// kernel cost. Qwen3-Coder-Next (512 experts, top 10, 48 MoE layers) at the CUDA-graph batches 8 and
/// 32 (vLLM 0.16.0 captures both): D(8) = 74.74, D(32) = 239.64 experts a layer; Δ 164.90 × 48 layers ×
/// 2.173 µs (PR 39183's default increment, the test above) = 17.20 ms. The sweep's median TPOT
/// (tests/data/throughput.tsv, deplodock 2026-03-04: 1000 / 62.66 = 15.96 ms at c 8, 1000 / 35.16 =
/// 28.44 at c 32) grows 12.48 ms, KV and state reads included: uniform routing's MoE is 1.38× the whole
/// measured growth (asserted > 1.3), so the served batches touch fewer distinct experts than uniform
/// routing does. tpsim's own growth, by the same count at its template cost (2.206 µs), is 17.46 ms of
/// MoE: its per-request MoE is uniform routing's.
#[test]
fn uniform_routing_moe_outgrows_the_measured_step() {
    let rows = pr39183();
    let at = |b: u64| *rows.iter().find(|r| r.0 == b).unwrap();
    let d256 = |b: f64| distinct(256.0, 8.0, b);
    let per_expert_us = (at(96).1 - at(16).1) / (d256(96.0) - d256(16.0));
    let d512 = |b: f64| distinct(512.0, 10.0, b);
    assert!((d512(8.0) - 74.74).abs() < 0.01 && (d512(32.0) - 239.64).abs() < 0.01);
    let uniform_ms = (d512(32.0) - d512(8.0)) * 48.0 * per_expert_us / 1e3;
    assert!((uniform_ms - 17.20).abs() < 0.01, "{uniform_ms}");
    let src = "github.com/cloudrift-ai/deplodock (commit 9da9d04) experiments/Qwen3-Coder-Next-FP8/optimal_mcr_pro6000_vllm";
    let step = |c: &str| {
        1000.0
            / measured_throughput(src, "Qwen3-Coder-Next", |n| {
                n.contains(&format!("TP 1 random 4000/4000 c {c}:"))
            })
    };
    let measured_growth = step("32") - step("8");
    assert!((measured_growth - 12.48).abs() < 0.01, "{measured_growth}");
    assert!(
        uniform_ms / measured_growth > 1.3,
        "{uniform_ms} / {measured_growth}"
    );
    let template_ms =
        (d512(32.0) - d512(8.0)) * 48.0 * EXPERT_BYTES / (MEM_EFFICIENCY * DRAM_BYTES_PER_S) * 1e3;
    assert!((template_ms - 17.46).abs() < 0.01, "{template_ms}");
}
