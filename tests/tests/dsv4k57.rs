//! dsv4k57 (issue #17): the serving gap of sglang pull 33109's DeepSeek-V4-Flash run on 4× H200 (dsv4k56's
//! known miss, +65.8 %), probed and recorded; the same table's c 4,096 row as a second validation row.
//!
//! **The row: sglang pull request 33083** ("[Docs] Add DeepSeek-V4 Flash Official (0731) recipe", 2026-07-31), its
//! H200 table, row "High-throughput / Marlin target-only | 4096 | 4096": P50 TTFT 505,508.73 ms, P50 TPOT 123.97 ms,
//! 4,542 total tok/s a GPU. It is the table of pull 33109 (same author, same day: SGLang v0.5.16, 4× H200, TP 4,
//! `--moe-runner-backend marlin`, no draft), whose stored description cuts this row off after "123" (why dsv4k56 left
//! it). Scenario `scenarios/validation/deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c4096.toml`.
//!
//! **What the two rows say together.** Both high-throughput rows measure a P50 TPOT of 123.8 – 124.0 ms at 1,024 and
//! 4,096 clients: with SGLang's 256-request cap (the DeepSeek-V4 hook) the steady state is the same 256 running
//! requests sharing their steps with the admitted prompts' chunked prefills; tpsim agrees that the steady state does
//! not move (88.92 and 89.05 ms) but is 0.72× the measured TPOT at both (0.60× before this round). What was checked against
//! SGLang 0.5.16's code for this configuration (validation.md "DeepSeek-V4 (dsv4k57)"): `chunked_prefill_size`
//! 8,192 (`server_args.py` `_handle_gpu_memory_settings`, the 90 – 160 GiB band; the DeepSeek-V4 override in
//! `arg_groups/overrides.py` `_deepseek_v4_overrides` sets only the attention backend, page 256, the SWA ratio 0.1
//! and the NVFP4 runner, and `arg_groups/deepseek_v4_hook.py` only `max_running_requests` 256), as tpsim's; the
//! decode batch graphed (`cuda_graph_max_bs` 512 at tp ≥ 4 on a 141 GB card); the KV pool not limiting (tpsim's
//! peak use 11.2 % of 10,898,432 tokens; 256 × (8,192 + 1,024) = 2,359,296 tokens at most, 21.6 %): no retraction.
//! What is left is cost, and mostly prefill. Fixed from a source: the H200 template now carries the H100's Marlin
//! MoE ceiling (`[compute.moe_backends.marlin]` 0.257, sgl-project/sglang PR 38884's nsys capture of these very
//! experts at a 16,384-token prefill forward; same SM 9.0 die and clocks), and `sim::decode::passes` applies the
//! backend's ceiling to DeepSeek-V4's routed experts, which the generic quantization left as bf16: the c 1,024 row
//! +65.8 → +39.2 %, this row +65.9 → +39.1 %. What remains: in tpsim's c 1,024 run 74.5 % of the 364.1 s makespan
//! is prefill (271.3 s), and the measured makespan the total throughput implies (≈ 516 s) leaves ≈ 423 s for
//! prefill if the decode steps were tpsim's (92.8 s): a prefill 1.56× tpsim's would close the row. No source
//! measures DeepSeek-V4's other prefill kernels on Hopper (FlashMLA sparse prefill, the C4 indexer and
//! compressors, the block-fp8 projections); the numbers are recorded.
//!
//! VALIDATION, out-of-sample: nothing was fitted to the row. It is a known miss (`throughput_rows::KNOWN_MISSES`).

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of the rows compared here (`throughput_rows.rs`'s coverage test).
pub(crate) const DSV4K57_SOURCES: &[(&str, &str)] = &[(SRC_33083, "DeepSeek-V4-Flash-0731")];

/// The prefix of the row's source: sglang pull request 33083's description.
const SRC_33083: &str = "github.com/sgl-project/sglang pull 33083 (description, 2026-07-31";

/// The row's label (also its `KNOWN_MISSES` key).
const LABEL_33083_C4096: &str = "DeepSeek-V4-Flash-0731 FP4 (Marlin), SGLang 0.5.16, 4× H200 TP 4, random 8k/1k c 4096 (per-stream P50 TPOT)";

/// The scenario as run (default profile): P50 TPOT 89.05 ms (± 0.5 %: deterministic; the band only absorbs a
/// changed float summation order), the c 1,024 scenario's 88.92 within 0.2 % (the steady state of 256 running
/// requests); P50 TTFT 348.8 s (± 1 %) against the table's 505.5 s (0.69×); 256 running at most. tpsim's per-stream
/// rate 1000 ÷ 89.05 = 11.23 tok/s against the table's 1000 ÷ 123.97 = 8.07 (`throughput.tsv`): +39.1 %, a known
/// miss (before the H200 Marlin ceiling: 74.69 ms, 290.5 s, +65.9 %).
#[test]
pub(crate) fn validation_deepseek_v4_flash_h200x4_sglang_0_5_16_tp4_c4096() {
    let measured = measured_throughput(SRC_33083, "DeepSeek-V4-Flash-0731", |n| n.contains("c 4096"));
    assert!((measured - 8.07).abs() < 1e-9, "{measured}");
    let j = run_json(&scenario(
        "validation/deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c4096.toml",
    ));
    assert_eq!(j["verdict"], "ok", "{j}");
    assert_eq!(j["serving"]["peak_running"], 256, "{j}");
    assert_eq!(j["serving"]["preemptions"], 0, "{j}");
    let tpot = f(&j["serving"]["tpot_ms"]["p50"]);
    assert!((tpot / 89.05 - 1.0).abs() < 0.005, "P50 TPOT {tpot}");
    let ttft = f(&j["serving"]["ttft_ms"]["p50"]);
    assert!((ttft / 348_820.1 - 1.0).abs() < 0.01, "P50 TTFT {ttft}");
    // Not KV-limited: 256 × (8,192 + 1,024) = 2,359,296 tokens at most of the 10,898,432-token pool (21.6 %);
    // the run peaks at 11.2 % (± 0.1 point).
    let kv = f(&j["serving"]["peak_kv_utilisation"]);
    assert!((kv - 0.112).abs() < 0.001, "peak KV {kv}");
    assert!(warned(&j, "DeepSeek-V4's decode step is an extrapolation"), "{j}");
    validate(LABEL_33083_C4096, (measured, measured), 1000.0 / tpot);
}

/// The c 1,024 scenario rewritten for the prefill probes of validation.md "DeepSeek-V4 (dsv4k57)": `clients`
/// clients, `requests` requests, the prompt and output lengths as TOML values, the model config by absolute path.
fn probe(name: &str, clients: u32, requests: u32, prompt: &str, output: &str) -> serde_json::Value {
    let config = data_path("models/deepseek-v4-flash/config.json");
    let file = edited_variant(
        "validation/deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c1024.toml",
        name,
        |t| {
            t.replace("concurrency = 1024", &format!("concurrency = {clients}"))
                .replace("num_requests = 2048", &format!("num_requests = {requests}"))
                .replace("{ random = 8192, range_ratio = 0.0 }", prompt)
                .replace("{ random = 1024, range_ratio = 0.0 }", output)
                .replace(
                    "../../tests/data/models/deepseek-v4-flash/config.json",
                    &config.display().to_string(),
                )
        },
    );
    let j = run_json(&file);
    assert_eq!(j["verdict"], "ok", "{j}");
    j
}

/// The prefill figures validation.md "DeepSeek-V4 (dsv4k57)" records, as run (± 1 %: deterministic; the band only
/// absorbs a changed float summation order). One prompt alone (1 client, 1 request, 2 output tokens): TTFT 70.4 ms
/// at 2,048 tokens (tpsim's flat floor from 512 tokens up) and 280.5 ms at 8,192 (216.4 before the Marlin ceiling;
/// 66.8 and 277.3 before sglfront60 put SGLang's 3.66 ms request path in front of the scheduler's queue),
/// where the attention is counted dense causal (2 × 8,192² ÷ 2 × 64 ÷ 4 heads × (512 + 512) = 1.10e12 FLOPs a layer
/// and rank). The DSpark rows' workload without the draft (1 client, 32 requests, random 8k/1k): P50 TTFT 91.9 ms
/// (84.5 before sglttft59: SGLang's overlap scheduler picks the next request one step late and sends a prefill's first
/// token after the next launch; sglfront60's request path does not move it: each next request reaches the scheduler
/// 3.66 ms after it is sent, while the step that finished its predecessor still runs, and waits for that step as before)
/// against the table's 308.29 ms with DSpark (0.30×; a probe, not a row: DSpark's draft prefill is in the measured
/// figure).
#[test]
fn prefill_probes_as_recorded() {
    let ttft = |j: &serde_json::Value| f(&j["serving"]["ttft_ms"]["p50"]);
    let one = |len: u32| probe(&format!("dsv4k57-one-{len}"), 1, 1, &len.to_string(), "2");
    let t = ttft(&one(2048));
    assert!((t / 70.4 - 1.0).abs() < 0.01, "2,048-token TTFT {t}");
    let t = ttft(&one(8192));
    assert!((t / 280.5 - 1.0).abs() < 0.01, "8,192-token TTFT {t}");
    let j = probe(
        "dsv4k57-c1",
        1,
        32,
        "{ random = 8192, range_ratio = 0.0 }",
        "{ random = 1024, range_ratio = 0.0 }",
    );
    let t = ttft(&j);
    assert!((t / 91.9 - 1.0).abs() < 0.01, "c 1 P50 TTFT {t}");
}

/// Every row of these sources has a test here.
#[test]
fn every_dsv4k57_row_is_compared() {
    assert_eq!(throughput_rows_per_source(DSV4K57_SOURCES), [1]);
}
