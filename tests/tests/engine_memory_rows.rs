//! Issue #5's data check: every row of `tests/data/engine-memory.tsv` replayed from its observed
//! inputs through the library (`tpsim_model::memory::sglang_kv_plan` / `vllm_kv_plan`), one test per
//! row, named `<engine>_<version>_<model>_<gpu>_<tp>`.
//!
//! Tolerances (issue #5, "Done when"): SGLang tokens within 0.3 % (exact where the log's rounding
//! allows), OOM rows OOM with the engine's minimum fraction; vLLM within 1 %. On top of that each test
//! checks the *rounding band*: the logs print GiB with 2 decimals, i.e. ± 0.005 GiB per printed input,
//! which is ± 0.005 × 2^30 / (bytes per token or per block) tokens or blocks — computed per row below.
//!
//! Cell sizes: from the bundled presets (`scenarios/models/*/config.json` via `ModelSpec::kv_cell_bytes`)
//! where one exists; otherwise constants with their source next to them. "planner csv" is
//! github.com/llm-d-incubation/llm-d-planner `accuracy/results/v0.19.0/results_predicted.csv` at
//! commit d3121e0 (its columns `num_hidden_layers`, `num_kv_heads`, `head_dimension`, read by the
//! planner from each model's HF config.json); "vLLM log" is the row's own log in
//! `accuracy/results/v0.19.0/logs/` of the same commit.

use crate::common::{data_path, preset_spec, read_tsv};
use std::collections::BTreeMap;
use tpsim_model::llm::{KvCacheDtype, WeightDtype};
use tpsim_model::memory::{
    SglangEra, SglangKvInput, SglangKvPlan, SpecShape, VllmKvInput, sglang_era_from_version, sglang_kv_plan,
    sglang_min_fraction, sglang_no_kv_memory_error, vllm_kv_groups, vllm_kv_plan,
};

pub(crate) const GIB: f64 = (1u64 << 30) as f64;

/// The memory plan of a scenario written for one row of `engine-memory.tsv`; `line` names the row in
/// any load error.
pub(crate) fn plan_for_line(text: &str, line: usize) -> tpsim::decode::MemoryPlan {
    let where_ = format!("engine-memory.tsv line {line}");
    let s = tpsim::scenario::load_str(text, std::path::Path::new(&where_)).unwrap();
    tpsim::plan_memory(&s)
}

/// The bytes of a plan's entries of one kind, GiB (the parts the engines' start-up lines print).
pub(crate) fn part_gib(p: &tpsim::decode::MemoryPlan, kind: tpsim::decode::MemKind) -> f64 {
    p.entries
        .iter()
        .filter(|e| e.kind == kind)
        .map(|e| e.bytes as f64 / GIB)
        .sum()
}

/// The target model's weights in a plan, GiB (what the engines log as weights / "Model loading took").
pub(crate) fn target_weights_gib(p: &tpsim::decode::MemoryPlan) -> f64 {
    part_gib(p, tpsim::decode::MemKind::TargetWeights)
}

/// One row of engine-memory.tsv: header → value.
pub(crate) type Row = BTreeMap<String, String>;

/// The row on `line` (the file's line number; the header is line 1), after checking its model column
/// so that a reordered file fails loudly instead of testing the wrong row.
pub(crate) fn row(line: usize, model: &str) -> Row {
    let t = read_tsv(&data_path("engine-memory.tsv"));
    let rec = t.rows.iter().find(|r| r.line == line);
    let rec = rec.unwrap_or_else(|| panic!("engine-memory.tsv has no line {line}"));
    let r: Row = t
        .header
        .iter()
        .enumerate()
        .map(|(i, h)| (h.clone(), rec.get(i).to_string()))
        .collect();
    assert_eq!(r["model"], model, "engine-memory.tsv line {line}");
    r
}

/// The leading number of a cell ("160.63 (KV total)" → 160.63).
pub(crate) fn num(r: &Row, key: &str) -> f64 {
    let s = &r[key];
    s.split_whitespace()
        .next()
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("{key}: not a number: {s:?}"))
}

/// A `key=value` of the notes column ("activation=0.77; blocks=7891; …").
pub(crate) fn note(r: &Row, key: &str) -> Option<f64> {
    r["notes"]
        .split(';')
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == key)
        .and_then(|(_, v)| v.trim().parse().ok())
}

/// GQA/MHA bytes per token per rank: max(1, kv_heads / tp) × 2 (K and V) × head_dim × layers × dtype.
pub(crate) fn gqa_cell(kv_heads: u64, head_dim: u64, layers: u64, dtype_bytes: u64, tp: u64) -> u64 {
    (kv_heads / tp).max(1) * 2 * head_dim * layers * dtype_bytes
}

pub(crate) fn relative(a: f64, b: f64) -> f64 {
    (a - b).abs() / b
}

// ------------------------------------------------------------------------------------------------
// SGLang
// ------------------------------------------------------------------------------------------------

/// SGLang's profile on the row's logged inputs: `total` = avail before load, `available` = avail
/// after load, f = mem_frac (reference/engine-memory.md, start-up steps 3–6).
/// The era comes from the row's `engine_version` (`sglang_era_from_version`); `era` is used only where
/// the version names no release (the DeepSeek-V4 images), and must agree otherwise.
fn sglang(r: &Row, era: SglangEra, cell: u64, spec: Option<SpecShape>) -> SglangKvPlan {
    let from_version = sglang_era_from_version(&r["engine_version"]);
    assert!(
        from_version.is_none_or(|e| e == era),
        "{}: {from_version:?}",
        r["engine_version"]
    );
    sglang_kv_plan(&SglangKvInput {
        total_gib: num(r, "avail_before_load_gb"),
        available_gib: num(r, "avail_after_load_gb"),
        mem_fraction_static: num(r, "mem_frac"),
        cell_size: cell,
        page_size: 1,
        max_total_tokens: None,
        era,
        context_len: 131_072,
        max_running_requests: None,
        spec,
    })
}

/// Asserts the 0.3 % and the rounding band `band` (tokens), and returns (predicted, logged).
pub(crate) fn check_sglang(name: &str, p: &SglangKvPlan, r: &Row, band: f64) -> (u64, u64) {
    let logged = num(r, "kv_tokens") as u64;
    println!("{name}: predicted {} logged {logged} (band ±{band:.0})", p.tokens);
    assert!(p.starts, "{name}");
    assert!(
        relative(p.tokens as f64, logged as f64) <= 0.003,
        "{name}: {} vs {logged} beyond 0.3 %",
        p.tokens
    );
    assert!(
        (p.tokens as f64 - logged as f64).abs() <= band,
        "{name}: {} vs {logged} beyond the rounding band ±{band:.0}",
        p.tokens
    );
    // The allocation line pins the cell: SGLang allocates (tokens + page) slots and prints K and V
    // sizes (MHA/GQA: half the cell each) or the total (MLA), in GiB to 2 decimals.
    if let Some(k) = r["k_size_gb"]
        .split_whitespace()
        .next()
        .and_then(|t| t.parse::<f64>().ok())
    {
        let share = if r["v_size_gb"].is_empty() { 1 } else { 2 };
        let printed = (logged + 1) as f64 * (p.pool_bytes.0 / (p.tokens + 1) / share) as f64 / GIB;
        assert!(
            (printed - k).abs() < 0.005,
            "{name}: K size {printed:.4} vs logged {k}"
        );
    }
    (p.tokens, logged)
}

/// Rounding band of SGLang's profile in tokens: rest = avail − total × (1 − f), both printed to
/// 2 decimals → ± 0.005 × (2 − f) GiB.
pub(crate) fn sglang_band(r: &Row, cell: u64) -> f64 {
    0.005 * (2.0 - num(r, "mem_frac")) * GIB / cell as f64
}

#[test]
fn sglang_0_4_3_qwq_32b_l4_tp4() {
    // didier-durand/llms-in-clouds: QwQ-32B (preset qwq-32b: 64 layers, 8 KV heads × 128) at tp 4 →
    // 2 heads per rank: 2 × 2 × 128 × 64 × 2 = 65,536 B. rest = 6.09 − 21.63 × 0.15 = 2.8455 GiB →
    // 46,620 tokens; logged 46,611. Band ± 0.00575 GiB = ± 94 tokens (tp 4: the "avail mem" lines are
    // rank-local, SGLang uses the minimum over ranks — 9 tokens is well inside).
    let r = row(2, "Qwen/QwQ-32B");
    let cell = preset_spec("qwq-32b").kv_cell_bytes(4);
    assert_eq!(cell, 65_536);
    // Issue #17: ~0.4.3.post4 is a mid-2025 KV version (its wheel inflates the speculative pool; no
    // speculation here, so the same tokens) with the early-2025 default fraction: the TP table gives
    // 0.85 at tp 4, the row's mem_frac.
    let p = sglang(&r, SglangEra::Mid2025, cell, None);
    assert_eq!(p.tokens, 46_620);
    assert_eq!(
        tpsim_model::sglang_eras::sglang_fraction_era_from_version(&r["engine_version"]),
        Some(SglangEra::Early2025)
    );
    check_sglang("qwq-32b", &p, &r, sglang_band(&r, cell));
    // The log's K size: (46,611 + 1) × 32,768 B = 1.42 GiB ("K size: 1.42 GB").
    assert!(((46_612.0 * 32_768.0) / GIB - num(&r, "k_size_gb")).abs() < 0.005);
}

#[test]
fn sglang_0_5_8_kimi_k2_5_mi355x_tp8() {
    // find_string id 1272019175: Kimi-K2.5 (preset kimi-k2.5, MLA 576 × 61 layers × 2 B = 70,272 B, not
    // divided by TP) on 8× MI355X, f = 0.8260405859375 (the auto value, see memory.rs). rest = 209.98 −
    // 283.56 × 0.17396 = 160.652 GiB → 2,454,730 tokens; logged 2,454,421 (−309, 0.013 %). The 2-decimal
    // band is ± 0.00587 GiB = ± 90 tokens, but the two "avail mem" figures are rank-local while SGLang
    // takes the minimum over 8 ranks: the log's own "KV size: 160.63 GB" = (2,454,421 + 1) × 70,272 B
    // shows the engine's rest was 0.02 GiB below the printing rank's. Tested: 0.3 %, and the logged KV
    // size from the logged count with the preset's cell (which pins the cell exactly).
    let r = row(3, "moonshotai/Kimi-K2.5");
    let cell = preset_spec("kimi-k2.5").kv_cell_bytes(8);
    assert_eq!(cell, 70_272);
    let p = sglang(&r, SglangEra::Late2025, cell, None);
    assert_eq!(p.tokens, 2_454_730);
    // Quirk band: min over 8 ranks, ± 0.05 GiB (as tests/engine_memory.rs) = ± 764 tokens.
    check_sglang("kimi-k2.5", &p, &r, 0.05 * GIB / cell as f64);
    let kv = (2_454_421.0 + 1.0) * cell as f64 / GIB;
    assert!((kv - 160.63).abs() < 0.005, "{kv}");
}

#[test]
fn sglang_0_4_1_llama_3_1_8b_h100_tp1() {
    // docs.sglang.ai send_request.html (2025-01-23): Llama-3.1-8B (preset llama-3.1-8b: 32 layers, 8 KV
    // heads × 128, bf16 → 131,072 B). rest = 63.72 − 78.81 × 0.12 = 54.2628 GiB → 444,520 tokens;
    // logged 444,500 (−20). Band ± 0.0056 GiB = ± 46 tokens.
    let r = row(4, "meta-llama/Meta-Llama-3.1-8B-Instruct");
    let cell = preset_spec("llama-3.1-8b").kv_cell_bytes(1);
    let p = sglang(&r, SglangEra::Early2025, cell, None);
    assert_eq!(p.tokens, 444_520);
    check_sglang("llama-3.1-8b", &p, &r, sglang_band(&r, cell));
}

#[test]
fn sglang_2026_07_deepseek_v4_pro_h200_tp8_oom() {
    // InferenceX issue 2128: DeepSeek-V4-Pro FP8 on 8× H200, f = 0.88, 12.25 GiB free after 125.65 GiB of
    // weights; the row's 137.90 GiB before loading is *derived* (12.25 + 125.65). rest = 12.25 − 137.90 ×
    // 0.12 = −4.298 GiB → no tokens: OOM at the KV profile, whatever the cell size (the verdict needs no
    // DeepSeek-V4 cell; 70,272 B is a placeholder). SGLang printed "minimum viable … = 0.9113": tpsim's
    // formula 1 − 12.25 / 137.90 = 0.91117 prints 0.9112 — 0.0001 apart because the pre-load figure is
    // derived: SGLang's own pre-load free memory was ≥ 138.03 GiB (+0.1 %), which prints 0.9113.
    let r = row(5, "deepseek-ai/DeepSeek-V4-Pro (FP8)");
    let p = sglang(&r, SglangEra::Spring2026, 70_272, None);
    assert!(!p.starts);
    assert_eq!(p.tokens, 0);
    assert!((p.rest_gib + 4.298).abs() < 1e-9, "{}", p.rest_gib);
    let (total, avail, f) = (
        num(&r, "avail_before_load_gb"),
        num(&r, "avail_after_load_gb"),
        num(&r, "mem_frac"),
    );
    let min = sglang_min_fraction(total, avail, 70_272, 1).unwrap();
    assert!((min - 0.9113).abs() < 0.0002, "{min}");
    assert!(sglang_no_kv_memory_error(f, avail, total).contains("= 0.9112)"));
    assert!(sglang_no_kv_memory_error(f, avail, 138.03).contains("= 0.9113)"));
    // At the printed suggestion (0.912, derived pre-load) the profile starts; 0.911 does not.
    for (f, starts) in [(0.912, true), (0.911, false)] {
        let mut r2 = r.clone();
        r2.insert("mem_frac".into(), f.to_string());
        assert_eq!(
            sglang(&r2, SglangEra::Spring2026, 70_272, None).starts,
            starts,
            "{f}"
        );
    }
}

#[test]
fn sglang_dsv4_branch_deepseek_v4_flash_h20_tp8_rest_memory() {
    // find_string id 54684172587: the spring-2026 "Memory profiling" line prints rest_memory = 19.58 GiB
    // with total_gpu_memory = 93.58 (the `total`), available 57.01, f = 0.60: 57.01 − 93.58 × 0.40 =
    // 19.578 → 19.58 (± 0.007 GiB from the printed inputs). The row's 93.61 (avail before load) would give
    // 19.566 → 19.57: SGLang used the 93.58 it printed, the minimum over ranks.
    let mut r = row(6, "DeepSeek-V4-Flash-Base");
    let logged_rest = num(&r, "k_size_gb");
    r.insert("avail_before_load_gb".into(), "93.58".into());
    let p = sglang(&r, SglangEra::Spring2026, 70_272, None);
    assert!((p.rest_gib - logged_rest).abs() <= 0.005, "{}", p.rest_gib);
}

// The row's tokens (1,317,632 from 19.58 GiB at 15,955.85 B a full token) are checked against SGLang's
// DeepSeek-V4 pool rule in families33::dsv4_branch_log_on_h20_by_the_0_5_12_rule
// (`tpsim_model::llm::deepseek_v4_pools`), which replaced the ignored placeholder that stood here.

#[test]
fn sglang_0_5_2_grok_2_fp8_h100_tp8() {
    // find_string id 45518106035 (blog "Grok2 OnPrem Deployment via sglang"), mid-2025 era, f = 0.831
    // (auto). Grok-2's config.json was not found in the reference corpus: the per-rank cell comes from the
    // log's own allocation line, "K size: 13.79 GB" for 903,439 + 1 slots → 13.79 × 2^30 / 903,440 =
    // 16,384 ± 6 B of K per token, i.e. 16,384 for K and V each = 32,768 B (1 KV head per rank × 128 ×
    // 64 layers × 2 B). rest = 40.69 − 77.43 × 0.169 = 27.6043 GiB → 904,538 tokens; logged 903,439
    // (+1,099, 0.12 %). tp 8 with rank-local "avail mem" lines: quirk band ± 0.05 GiB = ± 1,638 tokens.
    let r = row(7, "xai-org/grok-2 (fp8 online quant)");
    let k_per_token = num(&r, "k_size_gb") * GIB / 903_440.0;
    assert!((k_per_token - 16_384.0).abs() < 7.0, "{k_per_token}");
    let cell = 2 * 16_384;
    let p = sglang(&r, SglangEra::Mid2025, cell, None);
    assert_eq!(p.tokens, 904_538);
    check_sglang("grok-2", &p, &r, 0.05 * GIB / cell as f64);
}

#[test]
fn sglang_0_4_1_llama_3_2_1b_h100_tp1() {
    // sgl-project.github.io native_api.html (2025-01-16). Llama-3.2-1B: 16 layers, 8 KV heads, head_dim
    // 64 (find_string id 65742708231, a copy of its HF config) → 8 × 2 × 64 × 16 × 2 = 32,768 B.
    // rest = 76.39 − 78.81 × 0.12 = 66.9328 GiB → 2,193,253 tokens; logged 2,193,171 (−82). Band
    // ± 0.0056 GiB = ± 184 tokens. K size check: 2,193,172 × 16,384 B = 33.47 GiB as logged.
    let r = row(8, "meta-llama/Llama-3.2-1B-Instruct");
    let cell = gqa_cell(8, 64, 16, 2, 1);
    let p = sglang(&r, SglangEra::Early2025, cell, None);
    assert_eq!(p.tokens, 2_193_253);
    check_sglang("llama-3.2-1b", &p, &r, sglang_band(&r, cell));
    assert!((2_193_172.0 * 16_384.0 / GIB - num(&r, "k_size_gb")).abs() < 0.005);
}

#[test]
fn sglang_0_4_1_skywork_reward_llama_3_1_8b_h100_tp1() {
    // Same docs build: Skywork-Reward-Llama-3.1-8B-v0.2 is a LlamaForSequenceClassification fine-tune of
    // Llama-3.1-8B (same decoder, preset llama-3.1-8b: 131,072 B). rest = 64.70 − 9.4572 = 55.2428 GiB →
    // 452,549 tokens; logged 452,516 (−33). Band ± 46 tokens.
    let r = row(9, "Skywork/Skywork-Reward-Llama-3.1-8B-v0.2");
    let cell = preset_spec("llama-3.1-8b").kv_cell_bytes(1);
    let p = sglang(&r, SglangEra::Early2025, cell, None);
    assert_eq!(p.tokens, 452_549);
    check_sglang("skywork-reward", &p, &r, sglang_band(&r, cell));
}

#[test]
fn sglang_0_4_2_llama_2_7b_eagle_h100_tp1() {
    // speculative_decoding.html (2025-02-01): Llama-2-7b-chat fp16 with EAGLE (steps 5, topk 8, draft 64),
    // f = 0.70. Llama-2-7B is MHA: 32 layers × 32 KV heads × 128 (planner csv, CodeLlama-7b-hf is the same
    // Llama-2-7B geometry: 32 / 32 / 128) → 524,288 B in fp16. rest = 66.15 − 78.81 × 0.30 = 42.507 GiB
    // → 87,054 tokens; logged 87,056 (+2). Band ± 0.0065 GiB = ± 13 tokens. Early 2025: the target keeps
    // its profiled count (the draft's pool is sized separately).
    let r = row(10, "meta-llama/Llama-2-7b-chat-hf (fp16)");
    let cell = gqa_cell(32, 128, 32, 2, 1);
    let spec = SpecShape {
        num_steps: 5,
        topk: 8,
        num_draft_tokens: 64,
    };
    let p = sglang(&r, SglangEra::Early2025, cell, Some(spec));
    assert_eq!(p.tokens, 87_054);
    check_sglang("llama-2-7b eagle", &p, &r, sglang_band(&r, cell));
}

#[test]
fn sglang_0_3_5_llama_3_1_8b_h100_tp1() {
    // send_request.html (2024-11-01): an older build with 78.59 GiB free before loading. rest = 63.50 −
    // 78.59 × 0.12 = 54.0692 GiB → 442,934 tokens; logged 442,913 (−21). Band ± 46 tokens.
    let r = row(11, "meta-llama/Meta-Llama-3.1-8B-Instruct");
    let cell = preset_spec("llama-3.1-8b").kv_cell_bytes(1);
    let p = sglang(&r, SglangEra::Early2025, cell, None);
    assert_eq!(p.tokens, 442_934);
    check_sglang("llama-3.1-8b 0.3.5", &p, &r, sglang_band(&r, cell));
}

#[test]
fn sglang_0_3_5_gte_qwen2_7b_embedding_shared_h100_tp1() {
    // embedding_model.html (2024-11-02), on an H100 shared with another process (47.27 GiB free): the
    // formula uses the free memory, not the card's. gte-Qwen2-7B-instruct is Qwen2-7B: 28 layers, 4 KV
    // heads × 128 (the Qwen2.5-7B numbers in the planner csv; same decoder geometry) → 57,344 B in fp16.
    // rest = 32.91 − 47.27 × 0.12 = 27.2376 GiB → 510,012 tokens; logged 509,971 (−41). Band ± 105.
    let r = row(12, "Alibaba-NLP/gte-Qwen2-7B-instruct (embedding)");
    let cell = gqa_cell(4, 128, 28, 2, 1);
    let p = sglang(&r, SglangEra::Early2025, cell, None);
    assert_eq!(p.tokens, 510_012);
    check_sglang("gte-qwen2-7b", &p, &r, sglang_band(&r, cell));
}

// ------------------------------------------------------------------------------------------------
// vLLM 0.19.0 (llm-d-planner accuracy runs, H100 80GB SXM, torch total 79.19 GiB)
// ------------------------------------------------------------------------------------------------

/// What a vLLM row needs besides the TSV: bytes per token of one layer's page (per rank) and the
/// attention layers of each type on this rank (one entry for a model with one attention type).
pub(crate) struct VllmGeometry {
    pub(crate) per_layer_token_bytes: u64,
    pub(crate) layers_per_type: &'static [u64],
}

/// Predicted and logged figures of one vLLM row.
#[derive(Debug)]
pub(crate) struct VllmCheck {
    pub(crate) predicted_tokens: u64,
    pub(crate) logged_tokens: u64,
    pub(crate) predicted_blocks: u64,
}

/// Replays a vLLM 0.19 row: `requested = 79.19 × util` ("H100 total 79.19 GiB" in the notes), minus
/// weights, peak activation and non-torch growth (the row's `weight_mem_gb`, `activation=`,
/// `non_torch_fwd=`), cut into blocks of 16 × page bytes × group size and reported as
/// blocks // groups × 16 tokens (vLLM `kv_cache_utils.py`, see `vllm_kv_groups`). Asserts:
/// 1. from the logged "Available KV cache memory" (± 0.005 GiB), the logged `blocks=` is inside the
///    band of block counts that memory allows, and the logged blocks give the logged tokens exactly;
/// 2. the replay from the inputs is within 1 % (issue #5) and within the inputs' rounding band
///    (± 0.005 GiB on each of total × util, weights, activation, non-torch: ± 0.02 GiB).
fn check_vllm(name: &str, r: &Row, g: &VllmGeometry, weights: f64, act: f64, non_torch: f64) -> VllmCheck {
    let groups = vllm_kv_groups(g.layers_per_type);
    let cell = groups.cell_size(g.per_layer_token_bytes);
    let per_block = (16 * cell) as f64;
    // torch's device total, printed by every 0.19 log ("Free memory on device (78.68/79.19 GiB)").
    assert!(r["notes"].contains("H100 total 79.19 GiB"), "{name}");
    let total = 79.19;
    let plan = vllm_kv_plan(&VllmKvInput {
        total_gib: total,
        free_at_start_gib: num(r, "avail_before_load_gb"),
        gpu_memory_utilization: num(r, "mem_frac"),
        weights_gib: weights,
        peak_activation_gib: act,
        non_torch_gib: non_torch,
        cell_size: cell,
        block_size: 16,
        max_model_len: note(r, "max_model_len").map(|l| l as u64),
    });
    assert!(plan.error.is_none(), "{name}: {:?}", plan.error);
    let predicted_tokens = groups.reported_tokens(plan.blocks, 16);
    let logged_tokens = num(r, "kv_tokens") as u64;
    let logged_kv = num(r, "k_size_gb");
    let band = |gib: f64, eps: f64| {
        (
            ((gib - eps) * GIB / per_block).floor() as u64,
            ((gib + eps) * GIB / per_block).floor() as u64,
        )
    };
    println!(
        "{name}: predicted {predicted_tokens} tokens ({} blocks, KV {:.4} GiB), logged {logged_tokens} \
         ({:?} blocks, KV {logged_kv} GiB), groups {groups:?}",
        plan.blocks,
        plan.available_kv_gib,
        note(r, "blocks")
    );
    // 1. The engine's own intermediate: logged KV GiB → blocks → tokens.
    if let Some(blocks) = note(r, "blocks").map(|b| b as u64) {
        let (lo, hi) = band(logged_kv, 0.005);
        assert!(
            (lo..=hi).contains(&blocks),
            "{name}: logged {blocks} blocks outside [{lo}, {hi}] allowed by {logged_kv} GiB"
        );
        assert_eq!(groups.reported_tokens(blocks, 16), logged_tokens, "{name}");
    }
    // 2. The replay from the logged inputs.
    assert!(
        relative(predicted_tokens as f64, logged_tokens as f64) <= 0.01,
        "{name}: {predicted_tokens} vs {logged_tokens} beyond 1 %"
    );
    let (lo, hi) = band(plan.available_kv_gib, 0.02);
    let (lo_t, hi_t) = (groups.reported_tokens(lo, 16), groups.reported_tokens(hi, 16));
    assert!(
        (lo_t..=hi_t).contains(&logged_tokens),
        "{name}: logged {logged_tokens} outside the inputs' band [{lo_t}, {hi_t}]"
    );
    VllmCheck {
        predicted_tokens,
        logged_tokens,
        predicted_blocks: plan.blocks,
    }
}

/// [`check_vllm`] with the row's own weights, activation and non-torch figures.
pub(crate) fn vllm_row(name: &str, line: usize, model: &str, g: &VllmGeometry) -> VllmCheck {
    let r = row(line, model);
    assert!(r["notes"].contains("status=ok"), "{name}: {}", r["notes"]);
    let (w, a, n) = (
        num(&r, "weight_mem_gb"),
        note(&r, "activation").unwrap(),
        note(&r, "non_torch_fwd").unwrap(),
    );
    check_vllm(name, &r, g, w, a, n)
}

/// Bytes per token of one layer's page for a at `tp`, with an optional dtype override.
pub(crate) fn preset_layer_bytes(
    name: &str,
    tp: u32,
    kv: Option<KvCacheDtype>,
    dtype: Option<WeightDtype>,
) -> u64 {
    let mut m = preset_spec(name);
    if let Some(kv) = kv {
        m.quantization.kv_cache_dtype = kv;
    }
    if let Some(d) = dtype {
        m.dtype = d;
    }
    m.kv_cell_bytes(tp) / u64::from(m.num_layers)
}

#[test]
fn vllm_0_19_codellama_7b_h100_tp1() {
    // CodeLlama-7b-hf: 32 layers, MHA 32 KV heads × 128 (planner csv) → 16,384 B/layer, 524,288 B/token.
    // 75.2305 − 12.56 − 0.77 − 0.25 = 61.6505 GiB → 7,891 blocks = 126,256 tokens = logged (exact). The
    // logged 61.66 GiB allows 7,891–7,893 blocks (± 0.64 block); the inputs' band ± 2.6 blocks.
    let c = vllm_row(
        "codellama-7b",
        13,
        "codellama/CodeLlama-7b-hf",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(32, 128, 1, 2, 1),
            layers_per_type: &[32],
        },
    );
    assert_eq!(c.predicted_tokens, c.logged_tokens);
}

#[test]
fn vllm_0_19_llama_3_3_70b_fp8_dynamic_h100_tp2() {
    // Llama-3.3-70B = preset llama-3.1-70b's geometry (80 layers, 8 KV heads × 128); fp8-dynamic weights
    // keep the KV in bf16 (`kv_cache_dtype auto`). tp 2 → 4 heads: 4,096 B/layer, 327,680 B/token.
    // 37.2905 GiB → 15,274 blocks = 244,384 tokens; logged 244,304 (+80, 0.03 %); band ± 8 blocks.
    let c = vllm_row(
        "llama-3.3-70b fp8 tp2",
        14,
        "RedHatAI/Llama-3.3-70B-Instruct-fp8-dynamic",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("llama-3.1-70b", 2, None, None),
            layers_per_type: &[80],
        },
    );
    assert_eq!(c.predicted_blocks, 15_274);
}

#[test]
fn vllm_0_19_qwen2_5_7b_fp8_dynamic_h100_tp1() {
    // Qwen2.5-7B: 28 layers, 4 KV heads × 128 (planner csv) → 2,048 B/layer. 64.6405 GiB → 75,647 blocks
    // = 1,210,352 tokens; logged 1,210,304 (+48); logged 64.64 GiB allows 75,641–75,653 blocks.
    vllm_row(
        "qwen2.5-7b fp8-dynamic",
        15,
        "RedHatAI/Qwen2.5-7B-Instruct-fp8-dynamic",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(4, 128, 1, 2, 1),
            layers_per_type: &[28],
        },
    );
}

#[test]
fn vllm_0_19_gemma_2_2b_h100_tp1() {
    // Gemma-2-2B: 26 layers alternating sliding-window (4096) / full, 4 KV heads × 256 (find_string id
    // 8286455129, a copy of google/gemma-2-2b's config.json; the vLLM log's custom-op count
    // 'gelu_and_mul': 26 and AttentionSelectorConfig(head_size=256) agree) → 4,096 B/layer. vLLM's
    // hybrid manager: 13 + 13 layers → groups of 13, 2 groups: blocks = KV / (16 × 4,096 × 13), tokens =
    // blocks // 2 × 16. 66.4705 GiB → 83,773 blocks → 670,176 tokens; logged 83,770 / 670,160.
    let c = vllm_row(
        "gemma-2-2b",
        16,
        "google/gemma-2-2b-it",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("gemma-2-2b-it", 1, None, Some(WeightDtype::Bf16)),
            layers_per_type: &[13, 13],
        },
    );
    assert_eq!(c.predicted_blocks, 83_773);
}

#[test]
fn vllm_0_19_gemma_3_12b_h100_tp1() {
    // Gemma-3-12B: 48 layers, 5 sliding (1024) : 1 full → 40 + 8, 8 KV heads (find_string id 66438928834,
    // a copy of its text_config), head_dim 256 (vLLM log: AttentionSelectorConfig(head_size=256); 48
    // 'gelu_and_mul' ops) → 8,192 B/layer; groups of 8, 6 groups. 47.7305 GiB → 48,876 blocks // 6 × 16 =
    // 130,336 tokens; logged 48,867 blocks / 130,304 (+32, 0.02 %); band ± 21 blocks.
    vllm_row(
        "gemma-3-12b",
        17,
        "google/gemma-3-12b-it",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("gemma-3-12b-it", 1, None, None),
            layers_per_type: &[8, 40],
        },
    );
}

#[test]
fn vllm_0_19_gemma_3_4b_h100_tp1() {
    // Gemma-3-4B: 34 layers, pattern 6 → full layers 5, 11, 17, 23, 29 = 5 full + 29 sliding, 4 KV heads
    // × 256 (find_string ids 55826769694 and 10105575932, copies of its text_config) → 4,096 B/layer.
    // Groups of 5: 1 + 6 = 7 groups, one padding layer (the vLLM log: "Add 1 padding layers, may waste
    // at most 3.45% KV cache memory"). 62.5105 GiB / (16 × 4,096 × 5) = 204,834 blocks // 7 × 16 =
    // 468,192 tokens; logged 204,817 / 468,144 (+48, 0.01 %). Without the grouping (cell = 34 layers ×
    // 4,096 B) the prediction is 481,968 tokens, 2.95 % high: the class of rows memory.rs now models.
    let c = vllm_row(
        "gemma-3-4b",
        18,
        "google/gemma-3-4b-it",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("gemma-3-4b-it", 1, None, None),
            layers_per_type: &[5, 29],
        },
    );
    let flat = (62.5105 * GIB / (16.0 * 34.0 * 4_096.0)).floor() * 16.0;
    assert!(relative(flat, c.logged_tokens as f64) > 0.02);
}

#[test]
fn vllm_0_19_granite_3_1_2b_h100_tp1() {
    // granite-3.1-2b: 40 layers, 8 KV heads × 64 (planner csv) → 2,048 B/layer. 69.2805 GiB → 56,754
    // blocks = 908,064 tokens; logged 56,753 / 908,048 (+16).
    vllm_row(
        "granite-3.1-2b",
        19,
        "ibm-granite/granite-3.1-2b-instruct",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 64, 1, 2, 1),
            layers_per_type: &[40],
        },
    );
}

#[test]
fn vllm_0_19_granite_3_3_8b_h100_tp1() {
    // granite-3.3-8b: 40 layers, 8 KV heads × 128 (planner csv) → 4,096 B/layer. 58.6705 GiB → 24,031
    // blocks = 384,496; logged 24,027 / 384,432 (+64, 0.02 %); inputs' band ± 8 blocks.
    vllm_row(
        "granite-3.3-8b",
        20,
        "ibm-granite/granite-3.3-8b-instruct",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 128, 1, 2, 1),
            layers_per_type: &[40],
        },
    );
}

#[test]
fn vllm_0_19_llama_3_1_8b_kv_fp8_h100_tp1() {
    // Preset llama-3.1-8b with `--kv-cache-dtype fp8`: 8 × 2 × 128 × 1 B = 2,048 B/layer (65,536 B/token).
    // 58.1005 GiB → 59,494 blocks = 951,904; logged 59,502 / 952,032 (−128, 0.013 %); band ± 20 blocks.
    vllm_row(
        "llama-3.1-8b kv fp8",
        21,
        "meta-llama/Llama-3.1-8B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("llama-3.1-8b", 1, Some(KvCacheDtype::Fp8E4m3), None),
            layers_per_type: &[32],
        },
    );
}

#[test]
fn vllm_0_19_llama_3_1_8b_quant_fp8_h100_tp1() {
    // `--quantization fp8` (weights only: 8.49 GiB), KV bf16: 4,096 B/layer. 64.6005 GiB → 33,075
    // blocks = 529,200; logged 33,078 / 529,248 (−48).
    vllm_row(
        "llama-3.1-8b quant fp8",
        22,
        "meta-llama/Llama-3.1-8B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("llama-3.1-8b", 1, None, None),
            layers_per_type: &[32],
        },
    );
}

#[test]
fn vllm_0_19_llama_3_1_8b_fp32_h100_tp1() {
    // `--dtype float32`: KV `auto` follows the model dtype, 4 B → 8,192 B/layer (262,144 B/token).
    // 42.7905 GiB → 10,954 blocks = 175,264; logged 10,956 / 175,296 (−32); band ± 5 blocks.
    vllm_row(
        "llama-3.1-8b fp32",
        23,
        "meta-llama/Llama-3.1-8B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("llama-3.1-8b", 1, None, Some(WeightDtype::Fp32)),
            layers_per_type: &[32],
        },
    );
}

#[test]
fn vllm_0_19_llama_3_1_8b_h100_pp4() {
    // Pipeline parallel 4: each stage holds 8 of the 32 layers (4,096 B/layer → 32,768 B/token) and
    // profiles its own memory; vLLM takes the minimum block count over the workers. Only PP0 prints
    // "Available KV cache memory: 69.8 GiB" (the row's KV figure), but the vLLM log's per-worker
    // "Memory profiling" lines show PP3 (the last stage: lm_head 4.26 GiB of weights, sampler peak
    // 2.01 GiB) binding: 75.23 − 6.34 = 68.89 GiB. The row's mix (4.26 / 1.05 / 0.07) is not one
    // worker's. Replayed per stage from the vLLM log:
    //   PP0 4.26 / 1.10 / 0.07 → 69.8005 GiB → 142,951 blocks
    //   PP1, PP2 3.28 / 1.05 / 0.07 → 70.8305 GiB → 145,060 blocks
    //   PP3 4.26 / 2.01 / 0.07 → 68.8905 GiB → 141,087 blocks ← min
    // logged 141,079 blocks = 2,257,264 tokens (−8 blocks, 0.006 %; inputs' band ± 41 blocks). With
    // PP0's figure alone the prediction is 1.3 % high, outside the 1 %.
    let r = row(24, "meta-llama/Llama-3.1-8B-Instruct");
    assert_eq!(note(&r, "pp"), Some(4.0));
    let g = VllmGeometry {
        per_layer_token_bytes: preset_layer_bytes("llama-3.1-8b", 1, None, None),
        layers_per_type: &[8],
    };
    // Per-stage inputs from the vLLM log (PP0 prints the row's KV line, so check 1 runs on PP0 with
    // the binding stage's count substituted below).
    let stages = [
        (4.26, 1.10, 0.07),
        (3.28, 1.05, 0.07),
        (3.28, 1.05, 0.07),
        (4.26, 2.01, 0.07),
    ];
    let mut blocks = Vec::new();
    for (w, a, n) in stages {
        let p = vllm_kv_plan(&VllmKvInput {
            total_gib: 79.19,
            free_at_start_gib: num(&r, "avail_before_load_gb"),
            gpu_memory_utilization: num(&r, "mem_frac"),
            weights_gib: w,
            peak_activation_gib: a,
            non_torch_gib: n,
            cell_size: g.per_layer_token_bytes * 8,
            block_size: 16,
            max_model_len: Some(8_192),
        });
        blocks.push(p.blocks);
    }
    assert_eq!(blocks, vec![142_951, 145_060, 145_060, 141_087]);
    let min = *blocks.iter().min().unwrap();
    let logged_blocks = note(&r, "blocks").unwrap() as u64;
    assert!(min.abs_diff(logged_blocks) <= 41, "{min} vs {logged_blocks}");
    assert_eq!(logged_blocks * 16, num(&r, "kv_tokens") as u64);
    // The binding stage through the common check (1 % and the inputs' band on tokens).
    let mut r3 = r.clone();
    r3.insert("k_size_gb".into(), "68.89".into());
    check_vllm("llama-3.1-8b pp4 (PP3)", &r3, &g, 4.26, 2.01, 0.07);
    // PP0 alone: 142,951 × 16 = 2,287,216, 1.33 % high.
    assert!(relative((blocks[0] * 16) as f64, num(&r, "kv_tokens")) > 0.01);
}

#[test]
fn vllm_0_19_llama_3_1_8b_h100_tp4() {
    // tp 4 → 2 KV heads per rank: 1,024 B/layer. 67.4405 GiB → 138,118 blocks = 2,209,888; logged
    // 138,112 / 2,209,792 (+96, 0.004 %); logged 67.44 GiB allows 138,106–138,127.
    vllm_row(
        "llama-3.1-8b tp4",
        25,
        "meta-llama/Llama-3.1-8B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("llama-3.1-8b", 4, None, None),
            layers_per_type: &[32],
        },
    );
}

#[test]
fn vllm_0_19_phi_2_h100_tp1() {
    // phi-2: 32 layers, MHA 32 × 80 (planner csv), fp16 → 10,240 B/layer, 327,680 B/token; max_model_len
    // 2048. 69.0105 GiB → 14,133 blocks = 226,128; logged 14,132 / 226,112 (+16); band ± 1 block.
    vllm_row(
        "phi-2",
        26,
        "microsoft/phi-2",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(32, 80, 1, 2, 1),
            layers_per_type: &[32],
        },
    );
}

#[test]
fn vllm_0_19_mistral_small_3_1_24b_h100_tp1() {
    // Mistral-Small-3.1-24B: 40 layers, 8 KV heads × 128 (planner csv) → 4,096 B/layer. 28.1905 GiB →
    // 11,546 blocks = 184,736; logged 11,547 / 184,752 (−16).
    vllm_row(
        "mistral-small-3.1-24b",
        27,
        "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 128, 1, 2, 1),
            layers_per_type: &[40],
        },
    );
}

#[test]
fn vllm_0_19_kimi_dev_72b_h100_tp2() {
    // Kimi-Dev-72B (Qwen2 architecture): 80 layers, 8 KV heads × 128 (planner csv); tp 2 → 4 heads ×
    // 2 (K, V) × 128 × 2 B = 2,048 B/layer, 163,840 B/token. 3.0305 GiB → 1,241 blocks = 19,856; logged 1,236 / 19,776 (+80, 0.4 %): a small
    // KV budget, so the inputs' ± 0.02 GiB is ± 8 blocks (0.66 %). Within 1 %.
    vllm_row(
        "kimi-dev-72b tp2",
        28,
        "moonshotai/Kimi-Dev-72B",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 128, 1, 2, 2),
            layers_per_type: &[80],
        },
    );
}

#[test]
fn vllm_0_19_kimi_vl_a3b_h100_tp1() {
    // Kimi-VL-A3B: a DeepSeek-V3-style MLA decoder. The planner csv reads it as MHA 16 × 128 (wrong for
    // the cache); the vLLM log shows AttentionSelectorConfig(head_size=576, use_mla=True), i.e.
    // kv_lora_rank 512 + qk_rope_head_dim 64, and 27 MLA layers ('mla_decode_concat_quant_fp8': 27) →
    // 576 × 2 B = 1,152 B/layer (31,104 B/token), not divided by TP. 41.3205 GiB → 89,151 blocks =
    // 1,426,416; logged 89,148 / 1,426,368 (+48). The planner's MHA reading would give 221,184 B/token
    // and 7.1× fewer tokens.
    // fam (issue #16): the geometry comes from the kimi-vl-a3b preset (reconstructed config, see its
    // README), which must agree with the log's 576 × 27.
    let m = preset_spec("kimi-vl-a3b");
    assert_eq!(m.num_layers, 27);
    let per_layer = preset_layer_bytes("kimi-vl-a3b", 1, None, None);
    assert_eq!(per_layer, 576 * 2);
    vllm_row(
        "kimi-vl-a3b",
        29,
        "moonshotai/Kimi-VL-A3B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: per_layer,
            layers_per_type: &[27],
        },
    );
}

// fam (issue #16): tpsim's own weights of the kimi-vl-a3b preset against the row's "Model loading took".
#[test]
fn vllm_0_19_kimi_vl_a3b_weights_h100_tp1() {
    // Text tower (Moonlight-size MLA MoE, 27 layers, 64 experts + 2 shared) + MoonViT 27 × 1152 +
    // projector, bf16, with the absorbed w_kc/w_vc copies: 32,928,561,632 B = 30.667 GiB
    // (model/src/llm/tests_fam.rs) vs logged 30.74 GiB: −0.24 %, inside the 0.3 % (the logged
    // figure also counts small non-weight buffers, as for lines 20 and 27).
    let err = check_weights(
        29,
        "moonshotai/Kimi-VL-A3B-Instruct",
        preset_weights_gib("kimi-vl-a3b", 1, None),
        0.0,
    );
    assert!(err < 0.0, "{err}");
}

#[test]
fn vllm_0_19_gpt_oss_20b_h100_tp1_failed_after_kv() {
    // status=failed. gpt-oss-20b: 24 layers alternating sliding (128) / full, 8 KV heads × 64
    // (ParagEkbote/hf-model-inspector model_inspection_report.md and EchoCog/gpt-oss-20b
    // docs/gpt-oss-20b-architecture.md, both from its config.json) → 2,048 B/layer; groups of 12, 2
    // groups. The KV step succeeded — "Available KV cache memory: 58.47 GiB", "GPU KV cache size:
    // 1,277,184 tokens" — and the engine died later: "RuntimeError: CUDA out of memory occurred when
    // warming up sampler with 1024 dummy requests" (786 MiB asked, 552.5 MiB free). tpsim's vLLM plan
    // does not model the sampler warm-up, so it predicts a start; the test checks the KV step (58.4705
    // GiB → 159,663 blocks → 1,277,296 tokens, +112, 0.009 %) and that the KV plan raises no error, and
    // records the failure in the comment (the allocation after the pool is 233.5 MiB short).
    let r = row(30, "openai/gpt-oss-20b");
    assert!(r["notes"].contains("status=failed"));
    let c = check_vllm(
        "gpt-oss-20b tp1",
        &r,
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 64, 1, 2, 1),
            layers_per_type: &[12, 12],
        },
        num(&r, "weight_mem_gb"),
        note(&r, "activation").unwrap(),
        note(&r, "non_torch_fwd").unwrap(),
    );
    assert_eq!(c.predicted_blocks, 159_663);
}

#[test]
fn vllm_0_19_gpt_oss_20b_h100_tp2() {
    // tp 2, gpu_memory_utilization 0.90 (requested 71.27): 4 KV heads per rank → 1,024 B/layer; 2
    // groups of 12. 59.321 GiB → 323,971 blocks // 2 × 16 = 2,591,760; logged 323,972 / 2,591,776 (−16).
    vllm_row(
        "gpt-oss-20b tp2",
        31,
        "openai/gpt-oss-20b",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 64, 1, 2, 2),
            layers_per_type: &[12, 12],
        },
    );
}

#[test]
fn vllm_0_19_qwen2_5_7b_kv_fp8_h100_tp1() {
    // Qwen2.5-7B with fp8 KV: 4 × 2 × 128 × 1 B = 1,024 B/layer. 58.5305 GiB → 136,994 blocks =
    // 2,191,904; logged 137,000 / 2,192,000 (−96, 0.004 %).
    vllm_row(
        "qwen2.5-7b kv fp8",
        32,
        "Qwen/Qwen2.5-7B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(4, 128, 1, 1, 1),
            layers_per_type: &[28],
        },
    );
}

#[test]
fn vllm_0_19_qwen2_5_7b_h100_tp1() {
    // bf16 KV: 2,048 B/layer. 58.5305 GiB → 68,497 blocks = 1,095,952; logged 68,500 / 1,096,000 (−48).
    vllm_row(
        "qwen2.5-7b",
        33,
        "Qwen/Qwen2.5-7B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(4, 128, 1, 2, 1),
            layers_per_type: &[28],
        },
    );
}

#[test]
fn vllm_0_19_qwen2_5_7b_h100_tp4() {
    // tp 4 → 1 KV head per rank: 512 B/layer. 67.3405 GiB → 315,230 blocks = 5,043,680; logged 315,205 /
    // 5,043,280 (+400, 0.008 %); logged 67.34 GiB allows 315,204–315,251 blocks.
    vllm_row(
        "qwen2.5-7b tp4",
        34,
        "Qwen/Qwen2.5-7B-Instruct",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(4, 128, 1, 2, 4),
            layers_per_type: &[28],
        },
    );
}

#[test]
fn vllm_0_19_qwen3_8b_h100_tp1() {
    // Qwen3-8B: 36 layers, 8 KV heads × 128 (find_string ids 52018680971 and 56727830543, copies of its
    // config.json) → 4,096 B/layer. 57.5005 GiB → 26,169 blocks = 418,704; logged 26,168 / 418,688.
    vllm_row(
        "qwen3-8b",
        35,
        "Qwen/Qwen3-8B",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 128, 1, 2, 1),
            layers_per_type: &[36],
        },
    );
}

#[test]
fn vllm_0_19_llama_3_1_8b_w4a16_h100_tp1() {
    // w4a16 (gptq_marlin), dtype fp16: KV fp16 = 4,096 B/layer. 67.7105 GiB → 34,667 blocks = 554,672;
    // logged 34,669 / 554,704 (−32).
    vllm_row(
        "llama-3.1-8b w4a16",
        36,
        "RedHatAI/Meta-Llama-3.1-8B-Instruct-quantized.w4a16",
        &VllmGeometry {
            per_layer_token_bytes: preset_layer_bytes("llama-3.1-8b", 1, None, Some(WeightDtype::Fp16)),
            layers_per_type: &[32],
        },
    );
}

#[test]
fn vllm_0_19_mistral_small_3_1_24b_w8a8_h100_tp2() {
    // w8a8 weights, bf16 KV; tp 2 → 4 KV heads: 2,048 B/layer. 59.0205 GiB → 48,349 blocks = 773,584 =
    // logged (exact).
    let c = vllm_row(
        "mistral-small w8a8 tp2",
        37,
        "RedHatAI/Mistral-Small-3.1-24B-Instruct-2503-quantized.w8a8",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(8, 128, 1, 2, 2),
            layers_per_type: &[40],
        },
    );
    assert_eq!(c.predicted_tokens, c.logged_tokens);
}

#[test]
fn vllm_0_19_qwen2_5_7b_w8a8_h100_tp1() {
    // 64.6305 GiB → 75,636 blocks = 1,210,176; logged 75,642 / 1,210,272 (−96, 0.008 %).
    vllm_row(
        "qwen2.5-7b w8a8",
        38,
        "RedHatAI/Qwen2.5-7B-Instruct-quantized.w8a8",
        &VllmGeometry {
            per_layer_token_bytes: gqa_cell(4, 128, 1, 2, 1),
            layers_per_type: &[28],
        },
    );
}

#[test]
fn vllm_0_11_llama_3_3_70b_fp8_h100_tp1_oom() {
    // llm-d-benchmark empirical-vllm-memory-results.md: Llama-3.3-70B FP8-dynamic on one H100 at
    // gpu_memory_utilization 0.90. Torch's total for an H100 80GB is 79.19 GiB (the 0.19 logs above);
    // requested 71.271 GiB − 67.72 (weights) − 4.84 (activation) − 0.14 (non-torch) = −1.429 GiB: the
    // row's "−1.44 (KV total)" within the inputs' ± 0.02 GiB. vLLM fails with "No available memory for
    // the cache blocks".
    let r = row(39, "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic");
    let p = vllm_kv_plan(&VllmKvInput {
        total_gib: 79.19,
        free_at_start_gib: num(&r, "avail_before_load_gb"),
        gpu_memory_utilization: num(&r, "mem_frac"),
        weights_gib: num(&r, "weight_mem_gb"),
        peak_activation_gib: 4.84,
        non_torch_gib: 0.14,
        cell_size: preset_spec("llama-3.1-70b").kv_cell_bytes(1),
        block_size: 16,
        max_model_len: None,
    });
    assert!(
        (p.available_kv_gib - num(&r, "k_size_gb")).abs() <= 0.02,
        "{}",
        p.available_kv_gib
    );
    assert_eq!(p.tokens, 0);
    let e = p.error.expect("OOM");
    assert!(e.contains("No available memory for the cache blocks"), "{e}");
    assert!(r["notes"].contains("No available memory for the cache blocks"));
}

#[test]
fn every_row_has_a_test() {
    // 11 SGLang rows (lines 2–12; line 6 has two tests), 26 vLLM 0.19 rows (lines 13–38), 1 vLLM ~0.11
    // row (line 39); lines 40–48 (2 SGLang, 7 vLLM) are tested in `engine_memory_logs`; line 49
    // (vLLM, Nemotron-Nano-9B-v2) in `nemotron_h`; line 50 (vLLM 0.11.0, --quantization fp8) in
    // `online_quant`; lines 51–55 (vLLM 0.10.2 Qwen3-Next, vLLM 0.11.0 Mistral-7B GPTQ, vLLM 0.18.0
    // on Ascend Qwen3-VL-8B, vLLM 0.11.0 Qwen3-VL-30B-A3B, SGLang ~0.4.4 Llama-3.1-8B + EAGLE-3) and 56
    // (SGLang 2025-06 Qwen2.5-VL-7B) in `memlogs`; lines 57–60 (SGLang 2026-08 Qwen3-30B-A3B-FP8,
    // SGLang 0.5.13 Qwen3-30B-A3B, vLLM 0.28.0 DeepSeek-R1-0528 out of memory while loading, SGLang
    // 2026-08 DeepSeek-R1-0528 with CPU experts) in `sglanglogs`; lines 61–63 (vLLM 0.10.1 / ~0.11 /
    // 0.14.1 gpt-oss-120b on one H100) in `gpt_oss_logs`; lines 64–67 (vLLM 0.10.1.1 Qwen2-7B-Instruct on
    // one and two A100s, vllmold52) in `vllmold52`; line 68 (SGLang 0.5.13.post1 Qwen3-32B on 4× RTX
    // 5090) in `sglres53`; lines 69–71 (vLLM ~0.11 Llama-3.1-8B, Qwen3-32B and Llama-3.3-70B FP8 at tp
    // 2 on H100s, the log set of line 39) in `vmem56`; lines 72–73 (vLLM ~0.11 gpt-oss-20b and
    // gpt-oss-120b on one H100, the same log set) in `vgptoss56`; lines 74–78 (vLLM 0.10.2 Qwen3-8B-FP8 on
    // a 23.53-GiB card, llava-v1.6-mistral-7b on an H100, Qwen3-235B-A22B-FP8 on 8× L40S, Qwen2.5-Omni-7B
    // on an A100 40GB; vLLM 0.11.1.dev OPT-2.7B on 4× A30) in `vllmmem63`.
    // A new row fails this until it gets its own test.
    let engines: Vec<String> = read_tsv(&data_path("engine-memory.tsv"))
        .rows
        .iter()
        .map(|r| r.get(1).to_string())
        .collect();
    assert_eq!(engines.len(), 77);
    assert_eq!(engines.iter().filter(|e| *e == "sglang").count(), 19);
    assert_eq!(engines.iter().filter(|e| *e == "vllm").count(), 58);
}

#[test]
fn vllm_0_19_weights_of_bundled_vlm_and_granite_presets() {
    // tpsim's own weights per rank (not the logged figure the KV checks above take as input) against
    // vLLM 0.19's "Model loading took X GiB" on 1× H100, within 0.3 % (the line also counts small
    // non-weight buffers, so tpsim may be slightly below):
    // - line 27, Mistral-Small-3.1-24B (same architecture and sizes as the bundled
    //   mistral-small-3.2-24b: Pixtral tower + projector + 40-layer text tower, tp 1, nothing
    //   sharded): 48,022,722,560 B = 44.724 GiB vs logged 44.76 (−0.08 %);
    // - line 20, granite-3.3-8b (tied 49,216-row padded vocabulary): 16,342,196,224 B = 15.220 GiB vs
    //   logged 15.25 (−0.20 %).
    for (line, model, name, tp) in [
        (
            27,
            "mistralai/Mistral-Small-3.1-24B-Instruct-2503",
            "mistral-small-3.2-24b",
            1,
        ),
        (20, "ibm-granite/granite-3.3-8b-instruct", "granite-3.3-8b", 1),
    ] {
        let r = row(line, model);
        let logged = num(&r, "weight_mem_gb");
        let ours = preset_spec(name).weight_bytes_per_rank(tp).0 as f64 / GIB;
        let err = (ours - logged) / logged;
        assert!(
            (-0.003..=0.0).contains(&err),
            "line {line} {name}: tpsim {ours:.3} GiB vs logged {logged} GiB ({:+.2} %)",
            err * 100.0
        );
    }
}

// h5 (issue #16): tpsim's own weights of the Gemma presets made for rows 16–18 against vLLM 0.19's
// "Model loading took X GiB" (the row's `weight_mem_gb`), 1× H100, tp 1.

/// tpsim's weights per rank of a in GiB, with the model dtype forced where the engine serves
/// the checkpoint in another dtype.
pub(crate) fn preset_weights_gib(name: &str, tp: u32, dtype: Option<WeightDtype>) -> f64 {
    let mut m = preset_spec(name);
    if let Some(d) = dtype {
        m.dtype = d;
    }
    m.weight_bytes_per_rank(tp).0 as f64 / GIB
}

/// Asserts tpsim's figure (plus `extra_gib` of explained non-weight buffers) is within 0.3 % of the
/// row's logged weights, and returns the signed error of the figure.
pub(crate) fn check_weights(line: usize, model: &str, ours_gib: f64, extra_gib: f64) -> f64 {
    let r = row(line, model);
    let logged = num(&r, "weight_mem_gb");
    let err = (ours_gib + extra_gib - logged) / logged;
    println!(
        "line {line} {model}: tpsim {ours_gib:.4} GiB + {extra_gib:.4} = {:.4} vs logged {logged} ({:+.2} %)",
        ours_gib + extra_gib,
        err * 100.0
    );
    assert!(
        err.abs() <= 0.003,
        "line {line} {model}: tpsim {ours_gib:.4} + {extra_gib:.4} GiB vs logged {logged} GiB ({:+.2} %)",
        err * 100.0
    );
    err
}

/// vLLM's rotary cos/sin cache of one RoPE instance, in GiB: `max_len × rotary_dim` elements at the
/// model dtype (2 B), `max_len` = `max_position_embeddings` (× the factor for linear scaling: vLLM
/// `rotary_embedding` `LinearScalingRotaryEmbedding._compute_cos_sin_cache` builds
/// `max_position_embeddings × scaling_factor` rows). `get_rope` caches instances by their arguments,
/// so all layers of one kind share one cache.
fn rope_cache_gib(max_len: u64, rotary_dim: u64) -> f64 {
    (max_len * rotary_dim * 2) as f64 / GIB
}

#[test]
fn vllm_0_19_gemma_2_2b_weights_h100_tp1() {
    // Preset gemma-2-2b-it (26 layers, hidden 2304, MLP 9216, 8 heads / 4 KV × 256, tied 256,000 ×
    // 2304 embedding): 2,614,341,888 parameters. The checkpoint is float32 (`torch_dtype`); vLLM's
    // `--dtype auto` serves a float32 checkpoint in bfloat16 on Hopper (the log's 4.9 GiB is the bf16
    // size; fp32 would be 9.74 GiB), so the weights are taken at bf16: 5,228,683,776 B = 4.8696 GiB vs
    // logged 4.9 (4.90: the csv drops trailing zeros), −0.62 %. vLLM also holds the RoPE cos/sin cache
    // (8,192 positions × 256 × 2 B = 0.0039 GiB; the same cache explains the ≈ 0.03 GiB gaps of the
    // 131,072-position Llama-3.1-8B / granite-3.3-8b / Mistral-Small rows), leaving 4.8735 GiB, −0.54 %:
    // 0.026 GiB (28 MB) that this test does NOT explain (no other buffer of vLLM's Gemma-2 found). The
    // issue's 0.3 % is therefore not met by the tensors' bytes; the test pins that gap (−0.54 % ±
    // 0.05 %) so that any change to the preset's weights shows here. vrows4: the gap is the caching
    // allocator's blocks, 27 MiB (`vllm_weight_blocks::gemma_2_2b_it_tp1`), which vLLM's weights part
    // adds (4.8999 GiB, −0.002 %).
    let ours = preset_weights_gib("gemma-2-2b-it", 1, Some(WeightDtype::Bf16));
    assert!((ours - 4.8696).abs() < 5e-5, "{ours}");
    let r = row(16, "google/gemma-2-2b-it");
    let logged = num(&r, "weight_mem_gb");
    let with_rope = ours + rope_cache_gib(8_192, 256);
    let err = (with_rope - logged) / logged;
    println!(
        "line 16 gemma-2-2b-it: tpsim {ours:.4} + rope = {with_rope:.4} GiB vs logged {logged} ({:+.2} %)",
        err * 100.0
    );
    assert!((err + 0.0054).abs() <= 0.0005, "{:+.3} %", err * 100.0);
}

#[test]
fn vllm_0_19_gemma_3_12b_weights_h100_tp1() {
    // Preset gemma-3-12b-it: text tower (48 layers, hidden 3840, MLP 15360, 16 heads / 8 KV × 256, q/k
    // norms, tied 262,208-row embedding) + SigLIP tower (27 × 1152) + projector: 24,374,650,080 B =
    // 22.7007 GiB at bf16. Logged 23.31 GiB: −2.61 %. The gap is vLLM's RoPE caches, allocated while
    // loading: Gemma-3's global layers use linear RoPE scaling, factor 8 (published gemma-3-12b-it
    // `rope_scaling`, as in the gemma-3-27b-it preset; the text_config copy the preset comes from omits
    // it), so their cache has 131,072 × 8 = 1,048,576 rows × 256 × 2 B = 0.5 GiB; the sliding layers'
    // plain cache 131,072 × 256 × 2 B = 0.0625 GiB. 22.7007 + 0.5625 = 23.2632 GiB vs 23.31: −0.20 %.
    let ours = preset_weights_gib("gemma-3-12b-it", 1, None);
    assert!((ours - 22.7007).abs() < 5e-5, "{ours}");
    let rope = rope_cache_gib(131_072 * 8, 256) + rope_cache_gib(131_072, 256);
    assert!((rope - 0.5625).abs() < 1e-12);
    let err = check_weights(17, "google/gemma-3-12b-it", ours, rope);
    assert!(err < 0.0, "{err}");
}

#[test]
fn vllm_0_19_gemma_3_4b_weights_h100_tp1() {
    // Preset gemma-3-4b-it: text tower (34 layers, hidden 2560, MLP 10240, 8 heads / 4 KV × 256, tied
    // 262,208-row embedding) + SigLIP tower + projector: 8,600,158,944 B = 8.0095 GiB at bf16. Logged
    // 8.58 GiB: −6.65 % before buffers; with the same RoPE caches as the 12B (0.5625 GiB, linear
    // factor 8 on the global layers) 8.5720 GiB: −0.09 %.
    let ours = preset_weights_gib("gemma-3-4b-it", 1, None);
    assert!((ours - 8.0095).abs() < 5e-5, "{ours}");
    let rope = rope_cache_gib(131_072 * 8, 256) + rope_cache_gib(131_072, 256);
    check_weights(18, "google/gemma-3-4b-it", ours, rope);
}
