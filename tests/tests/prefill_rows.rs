//! Prefill time against the measured rows of `tests/data/prefill.tsv` (issue #18 fidelity), with the
//! **default (uncalibrated) profile**: each row runs its scenario under `scenarios/validation/prefill/`
//! (one prefill batch of `batch` prompts of `input_len` tokens, one output token) and compares tpsim's
//! `prefill_time_ms` with the engine's printed "Prefill. latency" (SGLang `bench_one_batch` times one
//! extend forward between two device synchronisations, which is what tpsim's prefill iteration costs).
//!
//! VALIDATION, out-of-sample: nothing was fitted to these rows. The kernel efficiencies are the
//! templates' assumptions (`flops_efficiency` 0.50 [assumed], `mem_efficiency` 0.80 [assumed]); the
//! collective constants were fitted to `allreduce.tsv`, another data set. Each row is held to
//! [`TARGET`] (the project's ±20 %, as `throughput_rows`); a row outside it is a documented miss in
//! [`KNOWN_MISSES`] with its cause, and book/src/validation.md ("Prefill") lists the same rows. The
//! test fails when a listed miss comes within the target (remove it from both lists) and when an
//! unlisted row leaves it. `cargo test -p tpsim-tests --test integration prefill_rows:: -- --nocapture`
//! prints the book's table.

use crate::common::*;

/// The project's target: |predicted ÷ measured − 1| ≤ 20 % (book/src/validation.md).
const TARGET: f64 = 0.20;

/// (line of prefill.tsv, scenario under `scenarios/validation/prefill/`, label, prefill iterations
/// the scenario must run: 1 unless the engine chunks the prompt).
const ROWS: &[(usize, &str, &str, u64)] = &[
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
];

/// Rows outside [`TARGET`], each with its cause (book/src/validation.md, "Prefill").
const KNOWN_MISSES: &[(&str, &str)] = &[
    (
        "DeepSeek-V3 FP8, 8× H200, bs 1 × 1000",
        "a fixed per-forward host cost of SGLang's eager DeepSeek path: lines 2-3 give 180 ms for 1,000 tokens and 289 ms for 8,192, an intercept of ≈ 165 ms; tpsim's eager launch cost (5 µs per kernel, assumed) stays under the GPU time",
    ),
    (
        "Llama-3-8B bf16, 1× MI300X, bs 32 × 256",
        "MI300X kernels at efficiencies borrowed from NVIDIA fits: the row implies ≈ 0.35 of the 1,307 TFLOPS datasheet for an 8,192-token batch (ROCm 6.2, Triton attention, October 2024)",
    ),
    (
        "DeepSeek-V3 FP8, 8× MI300X, bs 32 × 128",
        "the first DeepSeek-V3 support on ROCm (FP8 e4m3fnuz, MLA bmm cast to bf16, untuned Triton MoE) plus the eager per-forward host cost of line 2; 4.7× the prediction",
    ),
    (
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 4096",
        "the assumed flops_efficiency 0.50 is low for large-M GEMMs on A100: lines 8-9 imply ≈ 0.72-0.74 of the 312 TFLOPS datasheet (5.68e13 FLOP in 251.8 ms, 1.20e14 in 523.1 ms); tpsim is 1.45× slow",
    ),
    (
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 8192",
        "as line 8: ≈ 0.74 of the datasheet achieved (0.75 at the margin between lines 8 and 9); tpsim is 1.48× slow",
    ),
    (
        "Qwen2.5-7B bf16, 1× A100 80GB, bs 1 × 16384",
        "as lines 8-9: the assumed 0.50 of the datasheet; two 8192-token chunks, the second attending over the first's 8192 cached tokens (costed since this row: 2.69e13 FLOP, 173 ms at the assumed rate); tpsim is 1.51× slow",
    ),
];

/// The measured prefill seconds of prefill.tsv line `line` (1 = header).
fn measured_s(line: usize) -> f64 {
    let t = read_tsv(&data_path("prefill.tsv"));
    let r = &t.rows[line - 2];
    r.get(t.col("prefill_s"))
        .parse()
        .unwrap_or_else(|_| panic!("prefill.tsv line {line}: prefill_s"))
}

/// tpsim's prefill time (ms) of a validation scenario; checks it ran as `iterations` prefill
/// iterations (one request's chunks, nothing else in the box).
fn predicted_ms(file: &str, iterations: u64) -> f64 {
    let v = run_json(&scenario(&format!("validation/prefill/{file}")));
    assert_eq!(
        v["serving"]["prefill_iterations"], iterations,
        "{file}: {iterations} prefill iteration(s)"
    );
    f(&v["throughput"]["prefill_time_ms"])
}

#[test]
fn prefill_rows_within_target_or_known_miss() {
    let mut ratios = Vec::new();
    let mut failures = Vec::new();
    let mut errors = Vec::new();
    for &(line, file, label, iterations) in ROWS {
        let m = measured_s(line) * 1e3;
        let p = predicted_ms(file, iterations);
        let ratio = p / m;
        ratios.push(ratio);
        errors.push((ratio - 1.0).abs());
        let within = (ratio - 1.0).abs() <= TARGET;
        let miss = KNOWN_MISSES.iter().any(|(l, _)| *l == label);
        println!(
            "prefill.tsv line {line} | {label} | measured {m:.1} ms | predicted {p:.1} ms | ratio {ratio:.3} | {}",
            match (within, miss) {
                (true, _) => "within ±20 %",
                (false, true) => "known miss",
                (false, false) => "MISS",
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
    ratios.sort_by(f64::total_cmp);
    errors.sort_by(f64::total_cmp);
    println!(
        "median predicted ÷ measured (out of sample): {:.3}; median |error| {:.1} %; {} of {} within ±20 %",
        ratios[ratios.len() / 2],
        errors[errors.len() / 2] * 100.0,
        errors.iter().filter(|e| **e <= TARGET).count(),
        errors.len()
    );
    assert!(failures.is_empty(), "{}", failures.join("\n"));
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

/// Line 9 by hand: one 8,192-token Qwen2.5-7B prompt on one A100 80 GB. Linear layers: 6.525 G
/// parameters (line 5's count, the same shapes), 2 × 6.525 G × 8,192 = 1.0691e14 FLOP; causal
/// attention over the prompt: 28 heads × (128 + 128) = 7,168 per key, 8,192² / 2 × 2 × 7,168 × 28
/// layers = 1.3469e13 FLOP; both at 0.50 × 312 TFLOPS (A100 datasheet × the assumed efficiency):
/// 685.3 + 86.3 = 771.7 ms. Norms, RoPE, the last token's LM head, the host's schedule and the
/// eager launches add a few ms: tpsim's figure lies within [771.7, 771.7 + 4] ms. The engine took
/// 523.1 ms (TTFT): 1.204e14 FLOP at 230 TFLOPS, 0.74 of the datasheet — the known miss of
/// [`KNOWN_MISSES`].
#[test]
fn qwen25_a100_prefill_by_hand_line_9() {
    let p = predicted_ms("qwen25-7b-a100-sglang-bs1-in8192.toml", 1);
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

/// Line 10 by hand, the prefix attention of a chunked prompt: SGLang prefills a 16,384-token prompt
/// on an 80 GB GPU as two 8,192-token chunks (`chunked_prefill_size` 8192), and the second chunk's
/// extend attention also reads the first chunk's 8,192 cached tokens: 8,192 queries × 8,192 keys ×
/// 2 × 28 heads × (128 + 128) × 28 layers = 2.6937e13 FLOP, 172.7 ms at 0.50 × 312 TFLOPS (the
/// 470 MB of cached KV it reads take 0.3 ms at 0.80 × 2,039 GB/s, under the FLOPs). Before the
/// serving loop carried the prefix into the prefill's cost (`IterationCosts::prefill_after`), tpsim's
/// 16,384 was twice its 8,192 to the microsecond, where the engine took 2.18× (1,141.4 ÷ 523.1 ms).
#[test]
fn chunked_prefill_pays_the_prefix_attention_line_10() {
    let one = predicted_ms("qwen25-7b-a100-sglang-bs1-in8192.toml", 1);
    let two = predicted_ms("qwen25-7b-a100-sglang-bs1-in16384.toml", 2);
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
/// the one-prompt prefill becomes host-bound, and `--enable-piecewise-cuda-graph` removes that cost.
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
    // 1 ms per launch: 28 layers × (5 attention + 4 MLP kernels) + 56 hidden-state allreduces on one
    // GPU (none: tp 1) + embedding and LM head ≥ 252 launches, so ≥ 252 ms of host time.
    let slow = run("[engine.costs]\nlaunch_overhead = \"1ms\"\n", "slow.toml");
    assert!(
        slow >= 252.0,
        "prefill with 1 ms launches: {slow:.1} ms (plain {plain:.1} ms)"
    );
    let graphed = run(
        "enable_piecewise_cuda_graph = true\n[engine.costs]\nlaunch_overhead = \"1ms\"\n",
        "graphed.toml",
    );
    assert!(
        (graphed / plain - 1.0).abs() < 1e-9,
        "piecewise graphs: {graphed} ms vs {plain} ms without launch costs"
    );
}
