//! vmem56 (issue #17): where engine-memory.tsv line 23 (vLLM 0.19.0, Llama-3.1-8B-Instruct with
//! `--dtype float32` on one H100 SXM, gpu_memory_utilization 0.95, max_model_len 8192) loses the
//! bytes tpsim does not count, from the row's own block count — the recorded miss of
//! `vllm_startup::MISSES` (+0.84 % tokens) narrowed to one part and one size.
//!
//! The arithmetic (log: llm-d-planner `accuracy/results/v0.19.0/logs/
//! meta-llama-llama-3--h100-80gb--tp1pp1dp1--8192-dtf32.log`, commit d3121e0):
//! - the pool is 10,956 blocks of 16 tokens × 262,144 B (32 layers × K and V × 8 KV heads × 128 ×
//!   4 B) = 4 MiB, so "Available KV cache memory" lies in [10,956, 10,957) × 4 MiB =
//!   [42.796875, 42.800781) GiB (the log prints 42.8);
//! - requested 0.95 × 79.19 GiB (the preset's torch total, which reproduces lines 18, 22, 35 and 42
//!   to the token) = 75.2305 GiB and weights 30,697.016 MiB (29.9776 GiB; logged 29.98) leave
//!   activation + non-torch in (2.45216, 2.45607] GiB, where tpsim counts 1.84375 + 0.25 = 2.09375:
//!   0.3584–0.3623 GiB short;
//! - with the non-torch growth the log prints as 0.25 (0.245 ≤ x < 0.255) and the peak it prints as
//!   2.21 (2.205 ≤ x < 2.215), the peak activation lies in [2.205, 2.2110) GiB.
//!
//! What fits that window and what does not (tolerance: none beyond the window, which is the
//! rounding of the logged figures):
//! - the forward pass (tpsim's binding term in float32, 8192 × (3 × 14,336 + 4 × 4096) × 4 B + the
//!   32 MiB cuBLAS workspace = 1.84375 GiB) plus any whole number of [8192, 1024 k] float32 tensors
//!   (every Llama-3.1-8B width — 1024 KV, 4096 hidden, 6144 qkv, 14,336 MLP — is a multiple of
//!   1024): k = 11 gives 2.1875 and k = 12 gives 2.21875, both outside: the forward pass cannot
//!   hold the missing bytes;
//! - the dummy sampler as tpsim counts it for float32 (12 B per logit, the model-dtype logits and
//!   the `.to(float32)` copy being one tensor) PLUS one more [1024, 128,256] float32 tensor:
//!   (8192 + 2 × 1024) × 4096 × 4 = 167,772,160 + 1024 × 128,256 × 16 = 2,101,346,304 + the Triton
//!   top-k/top-p scratch 132 × 128,256 × 4 = 67,719,168 + cuBLAS 33,554,432 = 2,370,392,064 B =
//!   2.20763 GiB: inside. That is the bf16 rule's count (model-dtype logits + 12 B) applied to
//!   float32 logits as if `.to(float32)` copied them.
//!
//! vLLM 0.19.0's sources read for this stop (wheel `vllm-0.19.0-cp38-abi3-manylinux_2_31_x86_64`)
//! show no such tensor: `gpu_model_runner.py` `_dummy_sampler_run` (the `logits` it holds,
//! `rand_like`), `v1/sample/sampler.py` `Sampler.forward` / `apply_logits_processors` /
//! `sample` (no penalties, no bad words, no logprobs, `div_` in place), `ops/topk_topp_sampler.py`
//! `forward_native` / `apply_top_k_top_p` / `random_sample`, `ops/topk_topp_triton.py`
//! `apply_top_k_top_p_triton` (in place, scratch keyed by float32 in both dtypes),
//! `model_executor/layers/logits_processor.py` `_get_logits` (128,256 = 2004 × 64: no padding, so
//! the `[..., :org_vocab_size]` slice stays contiguous and `softmax` needs no contiguous copy) and
//! `layers/utils.py` `default_unquantized_gemm` (`F.linear`); `gpu_worker.py`
//! `determine_available_memory` reads the torch peak right after `profile_run` (before the CUDA-graph
//! estimate). The size is identified, the tensor is not, so nothing is modelled (not fitted to this
//! one row): recording the allocator's history on an H100 (`torch.cuda.memory._record_memory_history`
//! around `profile_run` with `--dtype float32`) would name it.

use crate::common::{data_path, read_tsv};
use std::path::Path;

const GIB: f64 = (1u64 << 30) as f64;

/// Line 23's cells: (kv_tokens, the notes' `blocks=`, `activation=`, `non_torch_fwd=`).
fn line_23() -> (u64, u64, f64, f64) {
    let t = read_tsv(&data_path("engine-memory.tsv"));
    let r = t.rows.iter().find(|r| r.line == 23).expect("line 23");
    assert_eq!(r.get(t.col("model")), "meta-llama/Llama-3.1-8B-Instruct");
    let notes = r.get(t.col("notes"));
    assert!(notes.contains("dtype=torch.float32"), "{notes}");
    let note = |k: &str| -> f64 {
        notes
            .split(';')
            .filter_map(|kv| kv.trim().split_once('='))
            .find(|(key, _)| *key == k)
            .and_then(|(_, v)| v.trim().parse().ok())
            .unwrap_or_else(|| panic!("line 23 notes: no {k}"))
    };
    let tokens = r.get(t.col("kv_tokens")).trim().parse().expect("kv_tokens");
    (
        tokens,
        note("blocks") as u64,
        note("activation"),
        note("non_torch_fwd"),
    )
}

/// Line 23's scenario, as `vllm_startup` builds it (`engine.dtype = "float32"`).
const LINE_23: &str = "[hardware]\npreset = \"h100-sxm-1x\"\n[model]\npreset = \"llama-3.1-8b\"\n\
[engine]\nname = \"vllm\"\ntp = 1\ngpu_memory_utilization = 0.95\nmax_model_len = 8192\ndtype = \"float32\"\n";

/// The window of activation + non-torch bytes (GiB) that the logged block count allows, and the
/// modelled weights / activation / non-torch (GiB).
fn window() -> ((f64, f64), [f64; 3], u64) {
    use tpsim::decode::MemKind;
    let s = tpsim::scenario::load_str(LINE_23, Path::new("line23.toml")).expect("line 23 loads");
    let p = tpsim::plan_memory(&s);
    let part = |k: MemKind| {
        p.entries
            .iter()
            .find(|e| e.kind == k)
            .map_or(0.0, |e| e.bytes as f64 / GIB)
    };
    let parts = [
        part(MemKind::TargetWeights),
        part(MemKind::PeakActivation),
        part(MemKind::NonTorchGrowth),
    ];
    let (_, blocks, _, _) = line_23();
    // 16-token blocks of 262,144 B per token (float32 K and V, 32 layers, 8 KV heads of 128).
    assert_eq!(p.cell_size, 262_144);
    let block = (16 * p.cell_size) as f64 / GIB;
    let (avail_lo, avail_hi) = (blocks as f64 * block, (blocks + 1) as f64 * block);
    let free = p.available_gib - parts[0];
    ((free - avail_hi, free - avail_lo), parts, p.kv_tokens)
}

#[test]
fn line_23_float32_gap_is_one_logits_sized_float32_tensor() {
    let (logged_tokens, blocks, logged_act, logged_nt) = line_23();
    assert_eq!((logged_tokens, blocks), (175_296, 10_956));
    let ((sum_lo, sum_hi), [w, act, nt], tokens) = window();
    // The recorded miss: 176,768 tokens (11,048 blocks), +0.840 %.
    assert_eq!(tokens, 176_768);
    // Weights 30,697.016 MiB, activation 1888 MiB, non-torch 256 MiB (by hand above).
    assert!((w - 29.97755).abs() < 1e-4, "weights {w}");
    assert!((act - 1.84375).abs() < 1e-9, "activation {act}");
    assert!((nt - 0.25).abs() < 1e-9, "non-torch {nt}");
    // activation + non-torch in (2.45216, 2.45607] GiB; tpsim is short by 0.3584–0.3623 GiB.
    assert!(
        (sum_lo - 2.45216).abs() < 5e-5 && (sum_hi - 2.45607).abs() < 5e-5,
        "{sum_lo} {sum_hi}"
    );
    let (short_lo, short_hi) = (sum_lo - act - nt, sum_hi - act - nt);
    assert!(
        (short_lo - 0.3584).abs() < 1e-4 && (short_hi - 0.3623).abs() < 1e-4,
        "{short_lo} {short_hi}"
    );
    // The peak activation window: the pool's and the two printed figures' (± 0.005 each).
    let act_lo = (sum_lo - (logged_nt + 0.005)).max(logged_act - 0.005);
    let act_hi = (sum_hi - (logged_nt - 0.005)).min(logged_act + 0.005);
    assert!(
        (act_lo - 2.205).abs() < 1e-9 && (act_hi - 2.2110).abs() < 1e-4,
        "{act_lo} {act_hi}"
    );
    let inside = |gib: f64| gib >= act_lo && gib < act_hi;
    // The forward pass plus k whole [8192, 1024] float32 tensors: none lands in the window.
    let forward = 8192.0 * (3.0 * 14_336.0 + 4.0 * 4096.0) * 4.0 / GIB + 32.0 / 1024.0;
    assert!(
        (forward - act).abs() < 1e-9,
        "the forward pass binds in float32: {forward}"
    );
    for k in 0..=32 {
        let candidate = forward + (8192 * 1024 * 4 * k) as f64 / GIB;
        assert!(
            !inside(candidate),
            "forward + {k} × [8192, 1024] fp32 = {candidate} fits"
        );
    }
    // The sampler with one more [1024, 128,256] float32 tensor: 2,370,392,064 B, inside.
    let sampler_plus_one =
        (8192 + 2 * 1024) * 4096 * 4 + 1024 * 128_256 * 16 + 132 * 128_256 * 4 + 33_554_432;
    assert_eq!(sampler_plus_one, 2_370_392_064u64);
    let g = sampler_plus_one as f64 / GIB;
    assert!(inside(g), "{g} outside [{act_lo}, {act_hi})");
    // Without the extra tensor the sampler (1.7183 GiB) is below the forward pass: tpsim's 1.84375.
    let sampler = g - (1024 * 128_256 * 4) as f64 / GIB;
    assert!((sampler - 1.71834).abs() < 1e-4 && sampler < act, "{sampler}");
}

/// What line 23 would read if the extra tensor were counted (not modelled: its source is not
/// found): requested − weights − 2.20763 − 0.25 = 42.79535 GiB → ⌊/ 4 MiB⌋ = 10,955 blocks =
/// 175,280 tokens, −0.009 % against the logged 175,296 — so this one tensor is the whole miss.
#[test]
fn line_23_with_the_tensor_would_be_within_0_3_percent() {
    let (logged_tokens, _, _, _) = line_23();
    let s = tpsim::scenario::load_str(LINE_23, Path::new("line23.toml")).expect("line 23 loads");
    let p = tpsim::plan_memory(&s);
    let weights = p
        .entries
        .iter()
        .find(|e| e.kind == tpsim::decode::MemKind::TargetWeights)
        .map(|e| e.bytes as f64 / GIB)
        .expect("weights");
    let rest = p.available_gib - weights - 2_370_392_064f64 / GIB - 0.25;
    assert!((rest - 42.79535).abs() < 1e-4, "{rest}");
    let blocks = (rest * GIB / (16.0 * 262_144.0)).floor() as u64;
    assert_eq!(blocks, 10_955);
    let err = (blocks * 16) as f64 / logged_tokens as f64 - 1.0;
    assert!((err - -0.0000913).abs() < 1e-6, "{err}");
}

/// vmem56 (issue #17): engine-memory.tsv lines 69–71, three more start-ups of the log set behind
/// line 39 (llm-d-benchmark `config_explorer/empirical-vllm-memory-results.md`, vLLM ~0.11 on one or
/// two H100s of 79.18 GiB, gpu_memory_utilization 0.90, max_model_len 16000). The file quotes the
/// weights, the profile's parts and "Available KV cache memory", not the token count, so the KV
/// budget in GiB is what is compared. Nothing was fitted to them. Their peaks were already compared
/// (without rows) by `vllm_sort_sampler::vllm_0_11_peak_activations_of_llm_d_benchmark`, which checks
/// the code-derived 0.11 sorting sampler (38 B per logit) on this document; what the rows add is the
/// whole plan through the scenario path: the weights per rank and the KV budget.
///
/// By hand, activation = (8192 + 2 × 1024) × hidden × 2 + 1024 × vocab × 38 + 32 MiB cuBLAS:
/// - line 69, Llama-3.1-8B (hidden 4096, vocab 128,256): 83,886,080 + 4,990,697,472 + 33,554,432 =
///   5,108,137,984 B = 4.7573 GiB (logged 4.76);
/// - line 70, Qwen3-32B (hidden 5120, vocab 151,936): 104,857,600 + 5,912,338,432 + 33,554,432 =
///   6,050,750,464 B = 5.6352 GiB (logged 5.64);
/// - line 71, Llama-3.3-70B FP8-dynamic at tp 2 (hidden 8192): 167,772,160 + 4,990,697,472 +
///   33,554,432 = 5,192,024,064 B = 4.8355 GiB (logged 4.84).
///
/// Weights per rank: 14.9888 (14.99), 61.0345 (61.03), 33.8807 (33.88) GiB.
/// Requested 0.90 × 79.18 = 71.262 GiB (`[hardware.gpu] torch_total_gib = 79.18`, the file's total).
/// With the log's non-torch growth in `[engine.observed]`, the budget is 71.262 − weights −
/// activation − non-torch: 51.386 (51.38), 4.452 (4.45), 31.996 (32.0) GiB — within ± 0.015 GiB (the
/// three logged inputs' rounding, ± 0.005 each).
///
/// With tpsim's own non-torch growth (vLLM 0.19's, `engines/vllm.toml`: 0.25 GiB at tp 1, 0.59 at tp
/// 2 without FlashInfer's fusion workspace, which vLLM 0.11 does not build: vmemtp57) the budgets are
/// 51.266, 4.342 and 31.956 GiB: −0.22 %, −2.4 % and −0.14 %, recorded misses of one part (line 71
/// was 30.456, −4.8 %, while the 0.19 tp-2 growth of 2.09 GiB, workspace included, applied). vLLM ~0.11 grows 0.13–0.14 GiB at tp 1 (line 39 too) and 0.55 at tp 2, where 0.19 grows
/// 0.24–0.25 and 2.09–2.13 (0.19 profiles the CUDA graphs inside `memory_profiling`; 0.11 does not,
/// line 39's note). tpsim has no 0.11 non-torch rule; two values from one log set would be a fit,
/// so none is made here.
#[test]
fn llm_d_benchmark_vllm_0_11_h100_rows() {
    use tpsim::decode::MemKind;
    let t = read_tsv(&data_path("engine-memory.tsv"));
    // (line, model, preset, extra model keys, tp, weights, activation, non-torch: by hand above;
    // the budget with the logged non-torch; the budget with tpsim's).
    let cases = [
        (
            69,
            "meta-llama/Llama-3.1-8B-Instruct",
            "llama-3.1-8b",
            "",
            1,
            14.9888,
            4.7573,
            51.386,
            51.266,
        ),
        (
            70,
            "Qwen/Qwen3-32B",
            "qwen3-32b",
            "",
            1,
            61.0345,
            5.6352,
            4.452,
            4.342,
        ),
        (
            71,
            "RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic",
            "llama-3.1-70b",
            "quantization = { dtype = \"fp8\", per_channel = true }\n",
            2,
            33.8807,
            4.8355,
            31.996,
            31.956,
        ),
    ];
    for (line, model, preset, extra, tp, weights, activation, budget_logged_nt, budget_modelled) in cases {
        let r = t.rows.iter().find(|r| r.line == line).expect("row");
        assert_eq!(r.get(t.col("model")), model, "line {line}");
        assert_eq!(r.get(t.col("engine")), "vllm");
        let num = |c: &str| -> f64 {
            r.get(t.col(c))
                .split_whitespace()
                .next()
                .and_then(|v| v.parse().ok())
                .unwrap_or_else(|| panic!("line {line} {c}"))
        };
        let notes = r.get(t.col("notes"));
        let note = |k: &str| -> f64 {
            notes
                .split(';')
                .filter_map(|kv| kv.trim().split_once('='))
                .find(|(key, _)| *key == k)
                .and_then(|(_, v)| v.trim().parse().ok())
                .unwrap_or_else(|| panic!("line {line} notes: no {k}"))
        };
        let (logged_w, logged_act, logged_nt, logged_kv) = (
            num("weight_mem_gb"),
            note("activation"),
            note("non_torch_fwd"),
            num("k_size_gb"),
        );
        let hw = if tp == 1 {
            "h100-sxm-1x"
        } else {
            "h100-sxm-8x-nvlink"
        };
        let text = |observed: &str| {
            format!(
                "[hardware]\npreset = \"{hw}\"\n[hardware.gpu]\ntorch_total_gib = 79.18\n[model]\npreset = \"{preset}\"\n\
                 {extra}[engine]\nname = \"vllm\"\nversion = \"0.11.0\"\ntp = {tp}\ngpu_memory_utilization = {}\n\
                 max_model_len = 16000\n{observed}",
                num("mem_frac")
            )
        };
        let plan = |observed: &str| {
            let s = tpsim::scenario::load_str(&text(observed), Path::new(&format!("line{line}.toml")))
                .unwrap_or_else(|e| panic!("line {line}: {e}"));
            tpsim::plan_memory(&s)
        };
        let p = plan("");
        let part = |k: MemKind| {
            p.entries
                .iter()
                .find(|e| e.kind == k)
                .map_or(0.0, |e| e.bytes as f64 / GIB)
        };
        let (w, act) = (part(MemKind::TargetWeights), part(MemKind::PeakActivation));
        assert!((w - weights).abs() < 1e-3, "line {line} weights {w}");
        assert!((act - activation).abs() < 1e-3, "line {line} activation {act}");
        // Against the log: weights and activation within its 2-decimal rounding (± 0.005).
        assert!(
            (w - logged_w).abs() <= 0.005,
            "line {line} weights {w} vs {logged_w}"
        );
        assert!(
            (act - logged_act).abs() <= 0.005,
            "line {line} activation {act} vs {logged_act}"
        );
        // tpsim's own budget: the recorded non-torch miss.
        assert!(
            (p.rest_gib - budget_modelled).abs() < 2e-3,
            "line {line} budget {}",
            p.rest_gib
        );
        // With the log's non-torch growth: within ± 0.015 GiB of the logged budget.
        let q = plan(&format!("[engine.observed]\nnon_torch_gib = {logged_nt}\n"));
        assert!(
            (q.rest_gib - budget_logged_nt).abs() < 2e-3,
            "line {line} budget {}",
            q.rest_gib
        );
        assert!(
            (q.rest_gib - logged_kv).abs() <= 0.015,
            "line {line}: {} vs logged {logged_kv}",
            q.rest_gib
        );
    }
}

/// vmem56: the same document's Qwen3-32B start at max_model_len 32000 is listed as FAILED (its
/// error text is not quoted, so it is not a row). One request needs 32000 × 262,144 B (64 layers × K
/// and V × 8 KV heads × 128 × 2 B) = 8,388,608,000 B = 7.8125 GiB of KV cache against the 4.45 GiB
/// the 16000 start had (line 70): vLLM 0.11's `check_enough_kv_cache_memory` refuses, and so does
/// the scenario, with that check's text (tpsim's own budget: 4.34 GiB, line 70's recorded non-torch
/// miss).
#[test]
fn llm_d_benchmark_qwen3_32b_32000_is_refused() {
    use tpsim::decode::Verdict;
    let text = "[hardware]\npreset = \"h100-sxm-1x\"\n[hardware.gpu]\ntorch_total_gib = 79.18\n[model]\n\
                preset = \"qwen3-32b\"\n[engine]\nname = \"vllm\"\nversion = \"0.11.0\"\ntp = 1\n\
                gpu_memory_utilization = 0.90\nmax_model_len = 32000\n";
    let s = tpsim::scenario::load_str(text, Path::new("qwen3-32b-32000.toml")).expect("loads");
    let p = tpsim::plan_memory(&s);
    assert_eq!(p.cell_size, 262_144);
    match &p.verdict {
        Verdict::Oom { message, .. } => assert!(
            message.contains("max seq len (32000), (7.81 GiB KV cache is needed"),
            "{message}"
        ),
        v => panic!("must be refused, got {v:?}"),
    }
}
