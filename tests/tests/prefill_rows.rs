//! Prefill time against the measured rows of `tests/data/prefill.tsv` (issue #18 fidelity): each row
//! runs its scenario under `scenarios/validation/prefill/` (one prefill batch of `batch` prompts of
//! `input_len` tokens, one output token) and compares tpsim's `prefill_time_ms` with the engine's
//! figure (SGLang `bench_one_batch`'s "Prefill. latency" times one extend forward between two device
//! synchronisations, which is what tpsim's prefill iteration costs; the other rows say what they time).
//!
//! Kinds of rows (prefill3, prefillgpus, prefillrows):
//! - VALIDATION, out-of-sample: lines 2-6, 22-24. Nothing was fitted to them: their GPUs' kernel
//!   efficiencies are the templates' assumptions (`flops_efficiency` 0.50, `mem_efficiency` 0.80) or
//!   curves built from GEMM measurements, not from prefill rows; the collective constants were
//!   fitted to `allreduce.tsv`, another data set.
//! - MODEL SELECTION: lines 19-21 ([`SELECTION_LINES`]) chose the L40S's flat 0.50; lines 25-29
//!   ([`SAME_SOURCE_LINES`]) are held out from that choice but come from the same machine and notes.
//! - CALIBRATION, in-sample: lines 7-18 (A100). The A100 template's FLOP-efficiency curve was fitted
//!   to them ([`FITTED_LINES`]), so agreement here is consistency, not accuracy; their accuracy is the
//!   leave-one-source-out figures of `prefill_curve.rs`.
//!
//! Each row is held to [`TARGET`] (the project's ±20 %, as `throughput_rows`); a row outside it is a
//! documented miss in [`KNOWN_MISSES`] with its cause, and book/src/validation.md ("Prefill") lists the
//! same rows. The test fails when a listed miss comes within the target (remove it from both lists)
//! and when an unlisted row leaves it. `cargo test -p tpsim-tests --test integration prefill_rows:: --
//! --nocapture` prints the book's table.

use crate::common::*;

/// The project's target: |predicted ÷ measured − 1| ≤ 20 % (book/src/validation.md).
const TARGET: f64 = 0.20;

/// (line of prefill.tsv, scenario under `scenarios/validation/prefill/`, label, prefill iterations
/// the scenario must run: 1 unless the engine chunks the prompt).
pub(crate) const ROWS: &[(usize, &str, &str, u64)] = &[
    (
        2,
        "dsv3-h200x8-sglang-bs1-in1000.toml",
        "DeepSeek-V3 FP8, 8× H200, bs 1 × 1000",
        1,
    ),
    (
        3,
        "dsv31-h200x8-sglang-bs16-in512.toml",
        "DeepSeek-V3.1 FP8, 8× H200, bs 16 × 512",
        1,
    ),
    (
        4,
        "llama3-8b-mi300x-sglang-bs32-in256.toml",
        "Llama-3-8B bf16, 1× MI300X, bs 32 × 256",
        1,
    ),
    (
        5,
        "qwen2-7b-a30-sglang-bs1-in200.toml",
        "Qwen2-7B bf16, 1× A30, bs 1 × 200",
        1,
    ),
    (
        6,
        "dsv3-mi300x8-sglang-bs32-in128.toml",
        "DeepSeek-V3 FP8, 8× MI300X, bs 32 × 128",
        1,
    ),
    (
        7,
        "qwen25-7b-a100-sglang-bs1-in1024.toml",
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 1024",
        1,
    ),
    (
        8,
        "qwen25-7b-a100-sglang-bs1-in4096.toml",
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 4096",
        1,
    ),
    (
        9,
        "qwen25-7b-a100-sglang-bs1-in8192.toml",
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 8192",
        1,
    ),
    // SGLang's default chunked_prefill_size on an 80 GB GPU is 8192: two chunks.
    (
        10,
        "qwen25-7b-a100-sglang-bs1-in16384.toml",
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 16384",
        2,
    ),
    (
        11,
        "qwen25-7b-a100-sglang-bs1-in2048.toml",
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 2048",
        1,
    ),
    (
        12,
        "llama2-13b-a100-tgi-bs100-in40.toml",
        "Llama-2-13B fp16 (TGI), 1× A100, bs 100 × 40",
        1,
    ),
    (
        13,
        "llama2-13b-a100-tgi-bs150-in40.toml",
        "Llama-2-13B fp16 (TGI), 1× A100, bs 150 × 40",
        1,
    ),
    (
        14,
        "llama2-13b-a100-tgi-bs200-in40.toml",
        "Llama-2-13B fp16 (TGI), 1× A100, bs 200 × 40",
        1,
    ),
    (
        15,
        "llama2-13b-a100-tgi-bs250-in40.toml",
        "Llama-2-13B fp16 (TGI), 1× A100, bs 250 × 40",
        1,
    ),
    (
        16,
        "llama2-13b-a100-tgi-bs300-in40.toml",
        "Llama-2-13B fp16 (TGI), 1× A100, bs 300 × 40",
        1,
    ),
    (
        17,
        "llama2-13b-a100-tgi-bs350-in40.toml",
        "Llama-2-13B fp16 (TGI), 1× A100, bs 350 × 40",
        1,
    ),
    (
        18,
        "llama2-13b-a100-tgi-bs400-in40.toml",
        "Llama-2-13B fp16 (TGI), 1× A100, bs 400 × 40",
        1,
    ),
    // Issue #18 (prefillgpus): vLLM `bench latency --output-len 1` on one L40S; vLLM's LLM class
    // schedules 8,192 tokens per step on a GPU under 70 GiB.
    (
        19,
        "llama31-8b-l40s-vllm-bs1-in8192.toml",
        "Llama-3.1-8B bf16 (vLLM), 1× L40S, bs 1 × 8192",
        1,
    ),
    (
        20,
        "llama31-8b-l40s-vllm-bs1-in16384.toml",
        "Llama-3.1-8B bf16 (vLLM), 1× L40S, bs 1 × 16384",
        2,
    ),
    (
        21,
        "llama31-8b-l40s-vllm-bs1-in32768.toml",
        "Llama-3.1-8B bf16 (vLLM), 1× L40S, bs 1 × 32768",
        4,
    ),
    // DERIVED: a TTFT p99 read as one 2,048-token step (tests/data/prefill.tsv notes).
    (
        22,
        "mistral-7b-rtx4090-vllm-bs8-in256.toml",
        "Mistral-7B bf16 (vLLM), 1× RTX 4090, bs 8 × 256 (derived from TTFT p99)",
        1,
    ),
    // prefillrows: SGLang bench_one_batch, DeepSeek-R1 (DeepSeek-V3's architecture).
    (
        23,
        "dsr1-h200x8-sglang-bs1-in128.toml",
        "DeepSeek-R1 FP8, 8× H200, bs 1 × 128",
        1,
    ),
    // bench_one_batch extends the 64 prompts in one forward (no scheduler): chunking off.
    (
        24,
        "dsr1-mi300x8-sglang-bs64-in512.toml",
        "DeepSeek-R1 FP8, 8× MI300X (SGLang 0.4.4), bs 64 × 512",
        1,
    ),
    // prefillrows: the L40S notes of lines 19-21, longer prompts and a second model; vLLM's LLM
    // class schedules 8,192 tokens per step on a GPU under 70 GiB.
    (
        25,
        "llama31-8b-l40s-vllm-bs1-in65536.toml",
        "Llama-3.1-8B bf16 (vLLM), 1× L40S, bs 1 × 65536",
        8,
    ),
    (
        26,
        "llama31-8b-l40s-vllm-bs1-in131071.toml",
        "Llama-3.1-8B bf16 (vLLM), 1× L40S, bs 1 × 131071",
        16,
    ),
    (
        27,
        "qwen25-32b-awq-l40s-vllm-bs1-in8192.toml",
        "Qwen2.5-32B AWQ (vLLM), 1× L40S, bs 1 × 8192",
        1,
    ),
    (
        28,
        "qwen25-32b-awq-l40s-vllm-bs1-in16384.toml",
        "Qwen2.5-32B AWQ (vLLM), 1× L40S, bs 1 × 16384",
        2,
    ),
    (
        29,
        "qwen25-32b-awq-l40s-vllm-bs1-in32768.toml",
        "Qwen2.5-32B AWQ (vLLM), 1× L40S, bs 1 × 32768",
        4,
    ),
];

/// Rows that chose between two ways to cost a GPU (issue #18, prefillgpus): the L40S rows (lines
/// 19-21) rejected a FLOP curve built from its GEMM ceiling (0.66 of the measured time) for the flat
/// assumed 0.50 the template keeps, so they are a model-selection check of the 0.50, not independent
/// validation of it.
pub(crate) const SELECTION_LINES: std::ops::RangeInclusive<usize> = 19..=21;

/// Rows held out from the L40S choice but measured on its machine (prefillrows): lines 25-29 come
/// from the research notes of lines 19-21 (same L40S, same vLLM fork, same harness), at longer
/// prompts (Llama-3.1-8B at 64K and 128K, attention-heavy where lines 19-21 are GEMM-heavy) and on a
/// second model and weight format (Qwen2.5-32B AWQ). Nothing was fitted or chosen on them, but a
/// machine-wide bias of that box would be shared with the rows that chose its 0.50, so they are
/// reported apart from the independent out-of-sample rows.
pub(crate) const SAME_SOURCE_LINES: std::ops::RangeInclusive<usize> = 25..=29;

/// The rows the A100 template's `[compute.curves.default]` FLOP curve was fitted to (prefill3):
/// sglang PR 38189 (lines 7-11) and TGI PR 1243 (lines 12-18). In-sample: consistency, not accuracy.
pub(crate) const FITTED_LINES: std::ops::RangeInclusive<usize> = 7..=18;

/// Rows outside [`TARGET`], each with its cause (book/src/validation.md, "Prefill").
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "DeepSeek-V3 FP8, 8× H200, bs 1 × 1000",
        "a fixed per-forward host cost of SGLang's eager DeepSeek path: lines 2-3 give 180 ms for 1,000 tokens and 289 ms for 8,192, an intercept of ≈ 165 ms. dsprefill: tpsim is host-bound here already (45.6 ms of GPU work, every touched expert's weights included; 50.5 ms with 31.7 µs for each of its ≈ 26 launches a layer); the row implies ≈ 69 launches a layer at that cost, and SGLang 0.4.5's eager MLA extend path (MHA branch, native DeepSeek rope, triton fused MoE) issues ≈ 63 device launches a MoE layer by count: the launch count per layer, not modelled (per-release counts needed)",
    ),
    (
        "DeepSeek-V3.1 FP8, 8× H200, bs 16 × 512",
        "sglstep + fp8rate: 0.800 (at the edge) -> 0.651 (188.2 ms). sglstep: SGLang fuses DeepSeek-V3's shared expert into the routed MoE kernel (0.4.8 and 0.5.8 `deepseek_v2.py` `determine_num_fused_shared_experts`; passes/sgl_fused_shared.rs), so tpsim's MoE op launches 10 kernels a layer where it launched 16: 348 host launches fewer in this eager forward. fp8rate: SGLang's DeepGEMM dense linears (attention projections, dense MLPs) run at the H200's FP8 rate (1,979 TFLOPS, the measured scaled_mm efficiency 0.52-0.64, measurements/h200-prefill.tsv). Lines 2-3 differ by 109.4 ms measured for 7,192 more tokens where tpsim's two predictions differ by more: tpsim's per-token cost is not short; what is missing is the fixed per-forward host cost of line 2 (~165 ms, SGLang's eager DeepSeek path). Not compensated",
    ),
    (
        "Llama-3-8B bf16, 1× MI300X, bs 32 × 256",
        "the row implies ≈ 0.35 of the 1,307 TFLOPS datasheet for an 8,192-token batch (ROCm 6.2, Triton attention, October 2024); newgpueff's MI300X FLOP curve, from matmul benchmarks (0.55: stas00/ml-engineering MAMF 668.4 and 781.9 TFLOPS at their best shapes), is above it and takes the ratio 0.706 -> 0.642 (rocm: 0.645 with the per-kernel cost measured in a gfx942 decode trace, 4.3 us): the served GEMM shapes and attention run below the best-shape rate, not measured",
    ),
    (
        "DeepSeek-V3 FP8, 8× MI300X, bs 32 × 128",
        "the first DeepSeek-V3 support on ROCm (FP8 e4m3fnuz, MLA bmm cast to bf16, untuned Triton MoE) plus the eager per-forward host cost of line 2; 4.3× the prediction (ratio 0.232 with rocm's 4.3 us per kernel)",
    ),
    (
        "DeepSeek-R1 FP8, 8× H200, bs 1 × 128",
        "prefillrows: the fixed per-forward host cost of SGLang's eager DeepSeek path, as line 2: 196 ms for 128 tokens (January 2025 image) against line 2's 180 ms for 1,000 (April 2025) and line 3's 289 ms for 8,192, so the measured time barely depends on the tokens. dsprefill: tpsim's 50.4 ms is host-bound (28.9 ms of GPU work, the union of 251.6 touched experts' weights included; ≈ 26 launches a layer at 31.7 µs); the row implies ≈ 87 launches a layer, SGLang 0.4.5's eager MLA extend path issues ≈ 63 by count: the launch count per layer, not modelled",
    ),
    (
        "DeepSeek-R1 FP8, 8× MI300X (SGLang 0.4.4), bs 64 × 512",
        "prefillrows: a 32,768-token forward (3.13 s), where a per-forward host cost is amortised, runs 3.6× tpsim's 0.86 s: SGLang 0.4.4's ROCm DeepSeek path without AITER (triton block-FP8 GEMMs and fused MoE on gfx942) is far below the MI300X curve tpsim takes from dense bf16 matmuls; the same run with AITER's kernels printed 1.51 s, still 1.75× tpsim. Same class as line 6; not located per kernel",
    ),
    (
        "Mistral-7B bf16 (vLLM), 1× RTX 4090, bs 8 × 256 (derived from TTFT p99)",
        "fast: the RTX 4090 curve's plateau is the card's best square-GEMM rate (1.00 of 165 TFLOPS, a short burst at boost clocks), above what a 2,048-token prefill sustains; the derived figure also carries the API server's and client's time (the same run's median TTFT at concurrency 4 is 53 ms where tpsim gives 45.5). At the flat 0.50 it was 1.30x slow",
    ),
];

/// The measured prefill seconds of prefill.tsv line `line` (1 = header).
pub(crate) fn measured_s(line: usize) -> f64 {
    let t = read_tsv(&data_path("prefill.tsv"));
    let r = &t.rows[line - 2];
    r.get(t.col("prefill_s"))
        .parse()
        .unwrap_or_else(|_| panic!("prefill.tsv line {line}: prefill_s"))
}

/// tpsim's prefill time (ms) of a validation scenario; checks it ran as `iterations` prefill
/// iterations (one request's chunks, nothing else in the box).
pub(crate) fn predicted_ms(file: &str, iterations: u64) -> f64 {
    let v = run_json(&scenario(&format!("validation/prefill/{file}")));
    assert_eq!(
        v["serving"]["prefill_iterations"], iterations,
        "{file}: {iterations} prefill iteration(s)"
    );
    f(&v["throughput"]["prefill_time_ms"])
}

#[test]
fn prefill_rows_within_target_or_known_miss() {
    // (ratio, |error|) of the out-of-sample rows, of the model-selection ones and of the in-sample
    // (fitted) ones.
    let (mut out, mut same, mut sel, mut fit) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let mut failures = Vec::new();
    for &(line, file, label, iterations) in ROWS {
        let m = measured_s(line) * 1e3;
        let p = predicted_ms(file, iterations);
        let ratio = p / m;
        let fitted = FITTED_LINES.contains(&line);
        let selected = SELECTION_LINES.contains(&line);
        let same_source = SAME_SOURCE_LINES.contains(&line);
        if fitted {
            &mut fit
        } else if selected {
            &mut sel
        } else if same_source {
            &mut same
        } else {
            &mut out
        }
        .push((ratio, (ratio - 1.0).abs()));
        let within = (ratio - 1.0).abs() <= TARGET;
        let miss = KNOWN_MISSES.iter().any(|(l, _)| *l == label);
        println!(
            "prefill.tsv line {line} | {label} | measured {m:.1} ms | predicted {p:.1} ms | ratio {ratio:.3} | {}{}",
            match (within, miss) {
                (true, _) => "within ±20 %",
                (false, true) => "known miss",
                (false, false) => "MISS",
            },
            if fitted {
                " (in-sample)"
            } else if selected {
                " (model selection)"
            } else if same_source {
                " (held out, selection's source)"
            } else {
                ""
            }
        );
        match (within, miss) {
            (true, true) => failures.push(format!(
                "{label}: now within ±20 % (ratio {ratio:.3}): remove it from KNOWN_MISSES and the book"
            )),
            (false, false) => failures.push(format!(
                "{label}: predicted {p:.1} ms vs measured {m:.1} ms (ratio {ratio:.3}), outside ±20 %"
            )),
            _ => {}
        }
    }
    let mut held: Vec<(f64, f64)> = out.iter().chain(same.iter()).copied().collect();
    for (what, v) in [
        ("out of sample (lines 2-6, 22-24)", &mut out),
        ("held out, the selection's source (lines 25-29)", &mut same),
        ("both together (lines 2-6, 22-29)", &mut held),
        ("model selection (lines 19-21)", &mut sel),
        ("in-sample, fitted (lines 7-18)", &mut fit),
    ] {
        let mut ratios: Vec<f64> = v.iter().map(|x| x.0).collect();
        let mut errors: Vec<f64> = v.iter().map(|x| x.1).collect();
        ratios.sort_by(f64::total_cmp);
        errors.sort_by(f64::total_cmp);
        println!(
            "{what}: median predicted ÷ measured {:.3}; median |error| {:.1} %; {} of {} within ±20 %",
            ratios[ratios.len() / 2],
            errors[errors.len() / 2] * 100.0,
            errors.iter().filter(|e| **e <= TARGET).count(),
            errors.len()
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// tpsim's prefill time (ms) of a validation scenario with the FLOP efficiency forced flat at
/// `flops` (an inline `[hardware.compute.curves.default]` of one point over the preset's curve), so a
/// hand count of the FLOPs can be checked at one rate.
pub(crate) fn with_flat_flops_ms(file: &str, iterations: u64, flops: f64) -> f64 {
    with_curve_ms(file, iterations, &format!("[[1.0, {flops}]]"))
}

/// tpsim's prefill time (ms) of a validation scenario under the inline FLOP curve `points` (TOML
/// array of `[FLOPs per kernel, efficiency]`); checks its prefill iteration count as `predicted_ms`.
pub(crate) fn with_curve_ms(file: &str, iterations: u64, points: &str) -> f64 {
    let base = std::fs::read_to_string(scenario(&format!("validation/prefill/{file}"))).expect("scenario");
    let text = format!("{base}\n[hardware.compute.curves.default]\nflops_points = {points}\n");
    let tag: String = points.chars().filter(char::is_ascii_alphanumeric).collect();
    // Tests of one process run in parallel and may cost the same row under the same curve: each
    // call gets its own file (a shared name raced: one test removed the other's file).
    static CALL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = tmp_root().join(format!("tpsim-prefill-{n}-{tag}-{file}"));
    std::fs::write(&p, text).expect("write scenario");
    let v = run_json(&p.display().to_string());
    let _ = std::fs::remove_file(&p);
    assert_eq!(
        v["serving"]["prefill_iterations"], iterations,
        "{file}: {iterations} prefill iteration(s)"
    );
    f(&v["throughput"]["prefill_time_ms"])
}

/// Line 5 by hand: a 200-token prefill is costed as 200 tokens, not as its 256-token bucket
/// (`serve::core::extend_cost`). Qwen2-7B's linear layers per token and layer: q and o 3584 × 3584
/// each, k and v 3584 × 512 each, gate/up/down 3 × 3584 × 18944 = 233.0 M parameters; × 28 layers =
/// 6.525 G, so 2 × 6.525 G × 200 = 2.610 TFLOP, which at 0.50 × 165 TFLOPS (A30 datasheet × the
/// assumed efficiency) is 31.6 ms; every GEMM is compute-bound at 200 tokens (2.610 TFLOP in 31.6 ms
/// against 13.05 GB of weights in 17.5 ms at 0.80 × 933 GB/s). Attention over the prompt, the LM head
/// of the last token, norms, the 2 µs per kernel and the host's 0.32 ms add a few ms: tpsim's
/// figure lies within [31.6, 31.6 + 4] ms. Costed as 256 tokens it would be ≥ 40.5 ms.
#[test]
fn qwen2_a30_prefill_costs_its_200_tokens_line_5() {
    let p = predicted_ms("qwen2-7b-a30-sglang-bs1-in200.toml", 1);
    let params: f64 = 28.0 * (2.0 * 3584.0 * 3584.0 + 2.0 * 3584.0 * 512.0 + 3.0 * 3584.0 * 18944.0);
    let floor_ms: f64 = 2.0 * params * 200.0 / (0.5 * 165e12) * 1e3;
    assert!((floor_ms - 31.64).abs() < 0.05, "hand figure {floor_ms:.2} ms");
    assert!(
        p >= floor_ms && p <= floor_ms + 4.0,
        "prefill of 200 tokens: {p:.2} ms, expected within [{floor_ms:.1}, {:.1}] ms",
        floor_ms + 4.0
    );
}

/// Line 9 by hand, at the template's assumed flat 0.50 (the curve overridden inline: this checks
/// the FLOP count). One 8,192-token Qwen2.5-7B prompt on one A100 80 GB. Linear layers: 6.525 G
/// parameters (line 5's count, the same shapes), 2 × 6.525 G × 8,192 = 1.0691e14 FLOP; causal
/// attention over the prompt: 28 heads × (128 + 128) = 7,168 per key, 8,192² / 2 × 2 × 7,168 × 28
/// layers = 1.3469e13 FLOP; both at 0.50 × 312 TFLOPS (A100 datasheet × the assumed efficiency):
/// 685.3 + 86.3 = 771.7 ms. Norms, RoPE, the last token's LM head, the host's schedule and the
/// eager launches add a few ms: tpsim's figure lies within [771.7, 771.7 + 4] ms. The engine took
/// 523.1 ms (TTFT): 1.204e14 FLOP at 230 TFLOPS, 0.74 of the datasheet.
#[test]
fn qwen25_a100_prefill_flops_by_hand_line_9() {
    let p = with_flat_flops_ms("qwen25-7b-a100-sglang-bs1-in8192.toml", 1, 0.5);
    let params: f64 = 28.0 * (2.0 * 3584.0 * 3584.0 + 2.0 * 3584.0 * 512.0 + 3.0 * 3584.0 * 18944.0);
    let t: f64 = 8192.0;
    let linear = 2.0 * params * t;
    let attention = t * t / 2.0 * 2.0 * (28.0 * 256.0) * 28.0;
    let floor_ms = (linear + attention) / (0.5 * 312e12) * 1e3;
    assert!((floor_ms - 771.67).abs() < 0.05, "hand figure {floor_ms:.2} ms");
    assert!(
        p >= floor_ms && p <= floor_ms + 4.0,
        "prefill of 8192 tokens: {p:.2} ms, expected within [{floor_ms:.1}, {:.1}] ms",
        floor_ms + 4.0
    );
}

/// Line 9 by hand with the A100 template's FLOP curve (prefill3: `[[5e10, 0.50], [4.64e11, 0.82]]`,
/// linear in ln(FLOPs per kernel)). Per layer: the MLP's 2 × 3 × 3584 × 18944 × 8,192 = 3.337e12 FLOP
/// over its 4 kernels is 8.34e11 per kernel, past the last point: 0.82. The attention block's
/// 2 × (3584 × 4608 + 3584²) × 8,192 = 4.811e11 of projections plus 8,192² × 7,168 = 4.810e11 of
/// causal attention over its 5 kernels is 1.924e11 per kernel: 0.50 + 0.32 × ln(1.924e11 / 5e10) ÷
/// ln(4.64e11 / 5e10) = 0.50 + 0.32 × 0.6049 = 0.6936. × 28 layers at 312 TFLOPS: 3.337e12 × 28 ÷
/// (0.82 × 312e12) = 365.2 ms plus 9.621e11 × 28 ÷ (0.6936 × 312e12) = 124.5 ms = 489.7 ms, within
/// [489.7, 489.7 + 4] ms with the same small parts as above. The engine took 523.1 ms (in-sample: the
/// curve was fitted to this row among others).
#[test]
fn qwen25_a100_prefill_with_the_curve_by_hand_line_9() {
    let p = predicted_ms("qwen25-7b-a100-sglang-bs1-in8192.toml", 1);
    let t: f64 = 8192.0;
    let mlp = 2.0 * 3.0 * 3584.0 * 18944.0 * t;
    let attn = 2.0 * (3584.0 * 4608.0 + 3584.0 * 3584.0) * t + t * t * 7168.0;
    let e_attn = 0.5 + 0.32 * (attn / 5.0 / 5e10).ln() / (4.64e11_f64 / 5e10).ln();
    assert!((e_attn - 0.6936).abs() < 5e-4, "attention efficiency {e_attn:.4}");
    let floor_ms = 28.0 * (mlp / (0.82 * 312e12) + attn / (e_attn * 312e12)) * 1e3;
    assert!((floor_ms - 489.7).abs() < 0.1, "hand figure {floor_ms:.2} ms");
    assert!(
        p >= floor_ms && p <= floor_ms + 4.0,
        "prefill of 8192 tokens: {p:.2} ms, expected within [{floor_ms:.1}, {:.1}] ms",
        floor_ms + 4.0
    );
}

/// Issue #18 (prefillmix): the A100 PCIe's own FLOP curve, from its GEMM ceiling
/// (`templates/a100-pcie-80gb.toml`: stas00/ml-engineering's MAMF table, 252.9 of 312 TFLOPS = 0.81 from
/// 1.37e11 FLOPs per kernel), by hand on line 9's prompt moved to the PCIe card (SGLang, one forward of
/// 8,192 Qwen2.5-7B tokens): the MLP's 4 kernels of 3.337e12 ÷ 4 = 8.34e11 FLOPs and the attention
/// block's 5 kernels of 9.621e11 ÷ 5 = 1.92e11 each lie on the plateau, so 28 × (3.337e12 + 9.621e11) ÷
/// (0.81 × 312e12) = 476.3 ms, within [476.3, 476.3 + 4] ms (the small parts of line 9's test). Where
/// the SXM's curve, fitted to prefill rows, gives line 9 489.7 ms, the PCIe card's measured ceiling
/// gives a faster forward: its GEMMs are measured at 0.81 from 1.37e11 FLOPs, while the fitted curve
/// reaches 0.82 only at 4.64e11. No prefill row was measured on an A100 PCIe: this checks the curve's
/// arithmetic, not its accuracy.
#[test]
fn a100_pcie_gemm_curve_by_hand() {
    let base = std::fs::read_to_string(scenario(
        "validation/prefill/qwen25-7b-a100-sglang-bs1-in8192.toml",
    ))
    .expect("scenario");
    assert!(base.contains("preset = \"a100-sxm4-80gb-1x\""));
    let text = base.replace(
        "preset = \"a100-sxm4-80gb-1x\"",
        "preset = \"a100-pcie-80gb-2x-cross-socket\"",
    );
    let p = tmp_root().join("tpsim-prefill-pcie.toml");
    std::fs::write(&p, text).expect("write scenario");
    let v = run_json(&p.display().to_string());
    let _ = std::fs::remove_file(&p);
    assert_eq!(v["serving"]["prefill_iterations"], 1, "one forward");
    let ms = f(&v["throughput"]["prefill_time_ms"]);
    let t: f64 = 8192.0;
    let mlp = 2.0 * 3.0 * 3584.0 * 18944.0 * t;
    let attn = 2.0 * (3584.0 * 4608.0 + 3584.0 * 3584.0) * t + t * t * 7168.0;
    assert!(
        mlp / 4.0 >= 1.37e11 && attn / 5.0 >= 1.37e11,
        "both on the plateau"
    );
    let floor_ms = 28.0 * (mlp + attn) / (0.81 * 312e12) * 1e3;
    assert!((floor_ms - 476.3).abs() < 0.1, "hand figure {floor_ms:.2} ms");
    assert!(
        ms >= floor_ms && ms <= floor_ms + 4.0,
        "PCIe prefill of 8192 tokens: {ms:.2} ms, expected within [{floor_ms:.1}, {:.1}] ms",
        floor_ms + 4.0
    );
    // The curve's source in the report: measured, not fitted.
    let cal = &v["prefill_calibration"];
    assert!(
        cal.to_string()
            .contains("[measured] bf16 matmul ceiling of the A100 PCIe"),
        "{cal}"
    );
}

/// Line 10 by hand, the prefix attention of a chunked prompt, at a flat 0.50 (the A100 curve
/// overridden inline: this checks the FLOP count): SGLang prefills a 16,384-token prompt
/// on an 80 GB GPU as two 8,192-token chunks (`chunked_prefill_size` 8192), and the second chunk's
/// extend attention also reads the first chunk's 8,192 cached tokens: 8,192 queries × 8,192 keys ×
/// 2 × 28 heads × (128 + 128) × 28 layers = 2.6937e13 FLOP, 172.7 ms at 0.50 × 312 TFLOPS (the
/// 470 MB of cached KV it reads take 0.3 ms at 0.80 × 2,039 GB/s, under the FLOPs). Before the
/// serving loop carried the prefix into the prefill's cost (`IterationCosts::prefill_after`), tpsim's
/// 16,384 was twice its 8,192 to the microsecond, where the engine took 2.18× (1,141.4 ÷ 523.1 ms).
#[test]
fn chunked_prefill_pays_the_prefix_attention_line_10() {
    let one = with_flat_flops_ms("qwen25-7b-a100-sglang-bs1-in8192.toml", 1, 0.5);
    let two = with_flat_flops_ms("qwen25-7b-a100-sglang-bs1-in16384.toml", 2, 0.5);
    let prefix_ms: f64 = 2.0 * 8192.0 * 8192.0 * (28.0 * 256.0) * 28.0 / (0.5 * 312e12) * 1e3;
    assert!((prefix_ms - 172.67).abs() < 0.05, "hand figure {prefix_ms:.2} ms");
    let extra = two - 2.0 * one;
    assert!(
        (extra - prefix_ms).abs() < 0.5,
        "16384 tokens: {two:.2} ms = 2 × {one:.2} ms + {extra:.2} ms, expected + {prefix_ms:.2} ms"
    );
    let (m8, m16) = (measured_s(9), measured_s(10));
    assert!((m16 / m8 - 2.182).abs() < 0.001, "measured ratio {:.4}", m16 / m8);
}

/// Line 27 by hand (prefillrows): one 8,192-token Qwen2.5-32B AWQ prompt on an L40S at the
/// template's flat 0.50 of 362 TFLOPS. tpsim costs the AWQ (awq_marlin) GEMMs by their FLOPs at the
/// bf16 tensor rate, the int4 weights only shrinking the bytes read. Per layer the linears hold
/// q and o 5120 × 5120, k and v 5120 × 1024, gate/up/down 3 × 5120 × 27648 = 487.59 M parameters; × 64
/// layers = 31.205 G, so 2 × 31.205 G × 8,192 = 5.1127e14 FLOP; causal attention adds 8,192² ÷ 2 × 2 ×
/// (40 heads × 256) × 64 layers = 4.398e13: 5.5525e14 FLOP at 181 TFLOPS = 3,067.7 ms. Norms, RoPE,
/// the last token's LM head and vLLM's host step add a few ms: tpsim's figure lies within
/// [3,067.7, 3,067.7 + 8] ms. The notes measured 3,489.2 ms (ratio ≈ 0.88): AWQ's in-kernel
/// dequantisation, which the notes name, is not costed.
#[test]
fn qwen25_32b_awq_l40s_flops_by_hand_line_27() {
    let p = predicted_ms("qwen25-32b-awq-l40s-vllm-bs1-in8192.toml", 1);
    let per_layer: f64 = 2.0 * 5120.0 * 5120.0 + 2.0 * 5120.0 * 1024.0 + 3.0 * 5120.0 * 27648.0;
    assert!((per_layer - 487.59e6).abs() < 0.01e6, "{per_layer}");
    let t: f64 = 8192.0;
    let flops = 2.0 * 64.0 * per_layer * t + t * t / 2.0 * 2.0 * (40.0 * 256.0) * 64.0;
    let floor_ms = flops / (0.5 * 362e12) * 1e3;
    assert!((floor_ms - 3067.7).abs() < 0.1, "hand figure {floor_ms:.2} ms");
    assert!(
        p >= floor_ms && p <= floor_ms + 8.0,
        "prefill of 8192 tokens: {p:.2} ms, expected within [{floor_ms:.1}, {:.1}] ms",
        floor_ms + 8.0
    );
    let m = measured_s(27) * 1e3;
    assert!((m - 3489.2).abs() < 1e-6, "line 27: {m} ms");
}

/// Lines 23 and 2-3 side by side (prefillrows): SGLang's eager DeepSeek prefill on 8× H200 takes
/// about the same time whatever the tokens — 196.35 ms for 128, 179.55 ms for 1,000 (another
/// release), 288.94 ms for 16 × 512 — while tpsim's figure grows with the tokens from a small base.
/// The test pins both shapes: the measured 128-token forward is at least 0.9 of the 1,000-token one,
/// and tpsim's 128-token forward is under a third of the measured one (the per-forward host cost the
/// known miss names is missing, not a per-token cost).
#[test]
fn deepseek_h200_prefill_is_flat_in_tokens_lines_2_and_23() {
    let (m128, m1000) = (measured_s(23) * 1e3, measured_s(2) * 1e3);
    assert!(m128 >= 0.9 * m1000, "measured {m128} vs {m1000} ms");
    let p128 = predicted_ms("dsr1-h200x8-sglang-bs1-in128.toml", 1);
    let p1000 = predicted_ms("dsv3-h200x8-sglang-bs1-in1000.toml", 1);
    assert!(p128 < m128 / 3.0, "tpsim {p128:.1} ms vs measured {m128:.1} ms");
    assert!(
        p128 <= p1000,
        "tpsim: 128 tokens {p128:.1} ms, 1000 tokens {p1000:.1} ms"
    );
}

/// tpsim's prefill time (ms) of a validation scenario whose SGLang `launch_overhead` (the eager
/// per-kernel host cost, engines/sglang.toml) is set to `launch`; one prefill iteration.
fn with_launch_ms(file: &str, launch: &str) -> f64 {
    let base = std::fs::read_to_string(scenario(&format!("validation/prefill/{file}"))).expect("scenario");
    let head = "[engine]\nname = \"sglang\"\ntp = 8\n";
    let text = base.replace(
        head,
        &format!("{head}[engine.costs]\nlaunch_overhead = \"{launch}\"\n"),
    );
    assert_ne!(text, base, "{file}: engine section not found");
    let tag: String = launch.chars().filter(char::is_ascii_alphanumeric).collect();
    // One file per call: tests run in parallel (as `with_curve_ms`).
    static CALL: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = CALL.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let p = tmp_root().join(format!("tpsim-launch-{n}-{tag}-{file}"));
    std::fs::write(&p, text).expect("write scenario");
    let v = run_json(&p.display().to_string());
    let _ = std::fs::remove_file(&p);
    assert_eq!(
        v["serving"]["prefill_iterations"], 1,
        "{file}: one prefill iteration"
    );
    f(&v["throughput"]["prefill_time_ms"])
}

/// dsprefill: tpsim already charges the union of the routed experts' weights at a DeepSeek
/// prefill, so the missing ~150 ms of lines 2 and 23 are not expert reads. By hand, line 23 (128
/// tokens, top 8 of 256 experts, independent uniform routing as `decode::routing`): expected
/// distinct experts 256 × (1 − (1 − 8/256)^128) = 251.6; each expert's per-rank slice at TP 8 is
/// 3 × 7,168 × 2,048 / 8 = 5,505,024 FP8 bytes (config.json of the deepseek-v3 preset: hidden 7,168,
/// moe_intermediate 2,048); × 58 MoE layers (61 − first_k_dense_replace 3) = 80.34 GB per rank,
/// which at the H200's full 4.8 TB/s (datasheet; any efficiency ≤ 1 only lengthens it) takes
/// ≥ 16.7 ms. tpsim's GPU-only time (launch cost 0) must hold at least that, and stays under a fifth
/// of the measured 196.35 ms: the GPU work tpsim prices, whole expert union included, cannot be
/// what the row lacks.
#[test]
fn deepseek_h200_prefill_reads_every_touched_expert_line_23() {
    let (e, k, n) = (256.0_f64, 8.0_f64, 128.0_f64);
    let touched = e * (1.0 - (1.0 - k / e).powf(n));
    assert!(
        (touched - 251.6).abs() < 0.05,
        "expected distinct experts {touched}"
    );
    let bytes = touched * 3.0 * 7168.0 * 2048.0 / 8.0 * 58.0;
    let floor_ms = bytes / 4.8e12 * 1e3;
    assert!((floor_ms - 16.74).abs() < 0.05, "floor {floor_ms} ms");
    let gpu = with_launch_ms("dsr1-h200x8-sglang-bs1-in128.toml", "0us");
    let m = measured_s(23) * 1e3;
    assert!(
        gpu >= floor_ms,
        "GPU-only {gpu:.1} ms < expert floor {floor_ms:.1} ms"
    );
    assert!(gpu < 0.2 * m, "GPU-only {gpu:.1} ms vs measured {m:.1} ms");
}

/// dsprefill: both small DeepSeek rows are host-bound in tpsim already (the eager launches exceed
/// the GPU work), and what separates tpsim from the rows is the number of host launches per layer.
/// With a 1 ms launch cost the forward costs ≈ its launch count in ms: tpsim issues < 30 launches a
/// layer (61 layers; allreduces included). The rows imply, at engines/sglang.toml's 31.7 µs per
/// launch, (measured − tpsim's GPU-only time) ÷ 61 ÷ 31.7 µs = 69 (line 2) and 87 (line 23)
/// launches a layer, more than twice tpsim's count (asserted > 60); SGLang 0.4.5's
/// eager MLA extend path (`DeepseekV2AttentionMLA.forward_normal`, the native
/// `DeepseekScalingRotaryEmbedding.forward`, the triton fused MoE, read in the 0.4.5 wheel) issues
/// ≈ 63 device launches a MoE layer by count (book/src/validation.md, "DeepSeek prefill on Hopper
/// (dsprefill)").
#[test]
fn deepseek_h200_prefill_is_host_bound_and_short_of_launches_lines_2_and_23() {
    for (line, file) in [
        (2, "dsv3-h200x8-sglang-bs1-in1000.toml"),
        (23, "dsr1-h200x8-sglang-bs1-in128.toml"),
    ] {
        let gpu = with_launch_ms(file, "0us");
        let plain = predicted_ms(file, 1);
        assert!(
            plain > gpu + 1.0,
            "line {line}: {plain:.1} ms vs GPU-only {gpu:.1} ms"
        );
        let per_layer = with_launch_ms(file, "1ms") / 61.0;
        assert!(
            (20.0..30.0).contains(&per_layer),
            "line {line}: {per_layer:.1} launches a layer"
        );
        let implied = (measured_s(line) * 1e3 - gpu) / 61.0 / 0.0317;
        assert!(
            implied > 60.0,
            "line {line}: the row implies {implied:.1} launches a layer"
        );
    }
}

#[test]
fn every_row_has_a_scenario() {
    let t = read_tsv(&data_path("prefill.tsv"));
    assert_eq!(t.rows.len(), ROWS.len(), "prefill.tsv rows vs ROWS");
    for (i, &(line, ..)) in ROWS.iter().enumerate() {
        assert_eq!(line, i + 2, "ROWS in file order");
    }
    for (label, _) in KNOWN_MISSES {
        assert!(ROWS.iter().any(|r| r.2 == *label), "unknown miss label {label}");
    }
}

/// The structural point behind line 2's miss: SGLang runs an extend batch without CUDA graphs
/// (`model_runner.py` replays graphs only for decode, target-verify and idle batches), so each
/// kernel of a prefill is launched by the host. With a launch cost far above the kernels' GPU time
/// the one-prompt prefill becomes host-bound, and `--enable-piecewise-cuda-graph` removes most of
/// that cost: only the piece replays and the attention op stay on the host (pcglaunch18,
/// `decode::passes::sgl_prefill_launch`).
#[test]
fn sglang_prefill_pays_eager_launches_unless_piecewise_graphs() {
    let base = std::fs::read_to_string(scenario("validation/prefill/qwen2-7b-a30-sglang-bs1-in200.toml"))
        .expect("scenario");
    let dir = scratch("eager");
    let run = |extra: &str, name: &str| {
        let p = dir.join(name);
        let text = base.replace(
            "[engine]\nname = \"sglang\"\ntp = 1\n",
            &format!("[engine]\nname = \"sglang\"\ntp = 1\n{extra}"),
        );
        assert_ne!(text, base, "engine section not found");
        std::fs::write(&p, text).unwrap();
        f(&run_json(&p.display().to_string())["throughput"]["prefill_time_ms"])
    };
    let plain = predicted_ms("qwen2-7b-a30-sglang-bs1-in200.toml", 1);
    // 1 ms per launch: 28 layers × (5 attention + 4 MLP kernels + pcglaunch18's KV store and q copy:
    // unversioned = the newest rules, one `store_cache`; FlashInfer on the A30, `q.contiguous()`) +
    // 56 hidden-state allreduces on one GPU (none: tp 1) + embedding and LM head ≥ 310 launches, so
    // ≥ 310 ms of host time.
    let slow = run("[engine.costs]\nlaunch_overhead = \"1ms\"\n", "slow.toml");
    assert!(
        slow >= 310.0,
        "prefill with 1 ms launches: {slow:.1} ms (plain {plain:.1} ms)"
    );
    let graphed = run(
        "enable_piecewise_cuda_graph = true\n[engine.costs]\nlaunch_overhead = \"1ms\"\n",
        "graphed.toml",
    );
    // Piecewise: per layer one replay + the attention op (store, q copy, kernel, output copy) = 5,
    // no allreduce at tp 1: 28 × 5 = 140 launches, 140 ms, plus at most the GPU work of the eager
    // prefill (`plain`, GPU-bound at 31.7 µs a launch).
    assert!(
        graphed >= 140.0 && graphed <= 140.0 + plain && graphed < slow,
        "piecewise graphs: {graphed:.1} ms, 140 launches of 1 ms (plain {plain:.1} ms, eager {slow:.1} ms)"
    );
}

/// A `flops_efficiency` set inline on an A100 scenario means a flat rate: it replaces the template's
/// FLOP curve (prefill3), so line 9 costs what a flat inline curve at the same value costs, and the
/// curve is no longer listed as a fitted constant the run used.
#[test]
fn an_inline_flops_efficiency_replaces_the_a100_curve() {
    let file = "qwen25-7b-a100-sglang-bs1-in8192.toml";
    let base = std::fs::read_to_string(scenario(&format!("validation/prefill/{file}"))).expect("scenario");
    let p = scratch("flat").join("s.toml");
    std::fs::write(
        &p,
        format!("{base}\n[hardware.params]\nflops_efficiency = 0.75\n"),
    )
    .expect("write");
    let v = run_json(&p.display().to_string());
    let inline = f(&v["throughput"]["prefill_time_ms"]);
    let flat = with_flat_flops_ms(file, 1, 0.75);
    assert!((inline - flat).abs() < 1e-9, "{inline} vs {flat} ms");
    assert!(
        (inline - predicted_ms(file, 1)).abs() > 10.0,
        "the curve still applies: {inline} ms"
    );
    let names: Vec<&str> = v["fitted_constants"]
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|c| c["name"].as_str())
        .collect();
    assert!(!names.contains(&"compute.curves.default"), "{names:?}");
}
