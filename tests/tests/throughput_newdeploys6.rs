//! Sixth round of new deployments (newdeploys6): single-GPU rows of the GPUStack performance lab
//! (github.com/gpustack/gpustack `docs/performance-lab/`, commit 47277d7) that newdeploys3 left out —
//! dense Qwen3 models on one H100 SXM or one A100 SXM, each written as the page's serving command reads
//! (`scenarios/validation/qwen3-{8b,14b}-*.toml`), compared with the **default (uncalibrated)
//! profile** against the same target and known-miss list as `tests/tests/throughput_rows.rs`
//! ([`TARGET`](crate::throughput_rows::TARGET),
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES)). The measured value is read from
//! `tests/data/throughput.tsv`, never copied into a scenario.
//!
//! - `qwen3-8b/h100-latency.md` (last changed 6ceec5b, 2026-03-20): Qwen3-8B on one H100 SXM, ShareGPT
//!   at 4 in flight (`vllm bench serve … --num-prompts 100 --max-concurrency 4`), the same client against
//!   vLLM v0.11.0 (`vllm serve Qwen/Qwen3-8B`), SGLang v0.5.3.post3 (`python3 -m sglang.launch_server
//!   --model-path Qwen/Qwen3-8B`) and SGLang with the FP8 checkpoint (`--model-path Qwen/Qwen3-8B-FP8`):
//!   a decode measurement — compared as 1000 ÷ the median TPOT (per-stream decode speed);
//! - `qwen3-14b/a100.md` and `qwen3-14b/h100.md` (last changed 1f37f1b, 2026-01-06), "Other Benchmark
//!   Cases", baseline (`vllm serve Qwen/Qwen3-14B`, vLLM v0.11.0): the random 4000/200 and 2000/100
//!   bursts (500 requests at once), compared as tpsim's end-to-end output rate against "Output token
//!   throughput" (as newdeploys3's bursts).
//!
//! Not taken: the pages' 128/4 bursts (4 output tokens: nothing to decode) and 32000/100 bursts (a
//! prefill measurement); the optimized runs (TensorRT-LLM on the A100 pages, which tpsim does not model;
//! SGLang FP8 on `qwen3-14b/h100.md`, left for a next round); the speculative-decoding runs of
//! `qwen3-8b/h100-latency.md` (EAGLE3 draft `Tengyunw/qwen3_8b_eagle3`, no preset); the TensorRT-LLM run of
//! its engine table; `qwen3-32b/*.md` (no bf16 Qwen3-32B preset yet).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows.
//! [`every_newdeploys6_row_is_compared`] fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const NEWDEPLOYS6_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/gpustack/gpustack docs/performance-lab/qwen3-8b/h100-latency.md",
        "Qwen3-8B",
    ),
    (
        "github.com/gpustack/gpustack docs/performance-lab/qwen3-14b/",
        "Qwen3-14B",
    ),
];

/// The measured `output_tok_s` of the one row of source `i` whose notes start with `note`.
fn measured(i: usize, note: &str) -> f64 {
    let (src, model) = NEWDEPLOYS6_SOURCES[i];
    measured_throughput(src, model, |n| n.starts_with(note))
}

/// One ShareGPT c 4 row of `qwen3-8b/h100-latency.md`: the row (1000 ÷ the printed median TPOT, stored
/// rounded to 0.1, checked to 0.05 tok/s) against 1000 ÷ tpsim's median TPOT of `file`.
fn sharegpt_c4(note: &str, tpot_ms: f64, file: &str, label: &str) {
    let m = measured(0, note);
    assert!((m - 1000.0 / tpot_ms).abs() < 0.05, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"]["p50"]));
}

/// One burst row of `qwen3-14b/*.md`: the row's output rate (checked against the printed figure) against
/// tpsim's end-to-end output rate of `file`.
fn burst(note: &str, printed: f64, file: &str, label: &str) {
    let m = measured(1, note);
    assert!((m - printed).abs() < 1e-9, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), f(&v["throughput"]["e2e_output_tok_s"]));
}

#[test]
pub(crate) fn validation_qwen3_8b_h100_vllm_0_11_sharegpt_c4() {
    // "Median TPOT (ms): 7.40" under `vllm serve Qwen/Qwen3-8B`.
    sharegpt_c4(
        "vLLM ShareGPT batch size 4:",
        7.40,
        "qwen3-8b-h100-vllm-0.11-sharegpt-c4.toml",
        "Qwen3-8B bf16, vLLM 0.11.0, 1× H100, ShareGPT c 4 (per-stream TPOT)",
    );
}

#[test]
pub(crate) fn validation_qwen3_8b_h100_sglang_0_5_3_sharegpt_c4() {
    // "Median TPOT (ms): 7.14" under `python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B`.
    sharegpt_c4(
        "SGLang ShareGPT batch size 4:",
        7.14,
        "qwen3-8b-h100-sglang-0.5.3-sharegpt-c4.toml",
        "Qwen3-8B bf16, SGLang 0.5.3.post3, 1× H100, ShareGPT c 4 (per-stream TPOT)",
    );
}

#[test]
pub(crate) fn validation_qwen3_8b_fp8_h100_sglang_0_5_3_sharegpt_c4() {
    // "Median TPOT (ms): 5.58" under `python3 -m sglang.launch_server --model-path Qwen/Qwen3-8B-FP8`.
    sharegpt_c4(
        "SGLang FP8 ShareGPT batch size 4:",
        5.58,
        "qwen3-8b-fp8-h100-sglang-0.5.3-sharegpt-c4.toml",
        "Qwen3-8B FP8 (block 128), SGLang 0.5.3.post3, 1× H100, ShareGPT c 4 (per-stream TPOT)",
    );
}

#[test]
pub(crate) fn validation_qwen3_14b_a100_vllm_0_11_bursts() {
    // "Output token throughput (tok/s)": 245.13 (4K) and 284.64 (2K) on one A100 SXM.
    for (k, note, printed) in [
        ("4k", "A100 random 4K input:", 245.13),
        ("2k", "A100 random 2K input:", 284.64),
    ] {
        burst(
            note,
            printed,
            &format!("qwen3-14b-a100-vllm-0.11-burst-{k}.toml"),
            &format!("Qwen3-14B bf16, vLLM 0.11.0, 1× A100 SXM, burst of 500 ({k})"),
        );
    }
}

#[test]
pub(crate) fn validation_qwen3_14b_h100_vllm_0_11_bursts() {
    // "Output token throughput (tok/s)": 438.56 (4K) and 505.51 (2K) on one H100 SXM.
    for (k, note, printed) in [
        ("4k", "H100 random 4K input:", 438.56),
        ("2k", "H100 random 2K input:", 505.51),
    ] {
        burst(
            note,
            printed,
            &format!("qwen3-14b-h100-vllm-0.11-burst-{k}.toml"),
            &format!("Qwen3-14B bf16, vLLM 0.11.0, 1× H100 SXM, burst of 500 ({k})"),
        );
    }
}

#[test]
fn every_newdeploys6_row_is_compared() {
    // Three Qwen3-8B rows and four Qwen3-14B rows; the tests above compare each once.
    assert_eq!(throughput_rows_per_source(NEWDEPLOYS6_SOURCES), [3, 4]);
}

/// The page's printed statistics of one vLLM burst on `qwen3-14b/h100.md` ("Baseline benchmark
/// results"): (median ITL, P99 ITL, mean ITL, median TPOT, median TTFT) in ms and the output rate in
/// tok/s.
struct PageBurst {
    itl_p50: f64,
    itl_p99: f64,
    itl_mean: f64,
    tpot_p50: f64,
    ttft_p50: f64,
    rate: f64,
}

/// "random 4K input" and "random 2K input" of `qwen3-14b/h100.md` (commit 47277d7), copied from the
/// page's text.
const H100_PAGE_4K: PageBurst = PageBurst {
    itl_p50: 43.93,
    itl_p99: 656.79,
    itl_mean: 132.11,
    tpot_p50: 139.68,
    ttft_p50: 110_734.54,
    rate: 438.56,
};
const H100_PAGE_2K: PageBurst = PageBurst {
    itl_p50: 46.01,
    itl_p99: 642.06,
    itl_mean: 204.84,
    tpot_p50: 231.62,
    ttft_p50: 49_138.28,
    rate: 505.51,
};

/// The H100 burst file `k` rewritten by `edit` (old, new) into a scratch file; its `tpsim run --json`.
#[track_caller]
fn h100_burst_variant(k: &str, name: &str, old: &str, new: &str) -> serde_json::Value {
    let file = scenario(&format!("validation/qwen3-14b-h100-vllm-0.11-burst-{k}.toml"));
    let text = std::fs::read_to_string(&file).expect("burst scenario");
    assert!(text.contains(old), "{file}: no `{old}`");
    let dir = scratch(&format!("h100mixed-{k}-{name}"));
    let path = dir.join("s.toml");
    std::fs::write(&path, text.replacen(old, new, 1)).expect("write variant");
    run_json(&path.display().to_string())
}

/// h100mixed: the elimination behind `GPUSTACK_H100_BURST_MISS`, on the page's own step statistics.
/// In these KV-bound bursts most steps are decode-only (the median ITL: ~60 running requests at ~4K
/// context, memory-bound) and about one in seven carries two whole prompts (8,192 tokens, the P99
/// ITL: FLOP-bound). The page's median ITL is 1.56x tpsim's and its P99 1.90x, so the gap is on both
/// sides of the roofline:
/// - a FLOP-side cause alone (GEMM or FlashAttention-3 prefill rate, SM clocks: half the template's
///   0.72 plateau, a flat 0.36) moves the P99 onto the page's but leaves the decode-only step where
///   it is (memory-bound; within 1 %), still under 0.7x the page's median ITL;
/// - a host-side cause alone (16 ms more per step, what the median ITL asks) leaves the two-prompt
///   step under 0.6x the page's P99;
/// - the bundled H100 PCIe template (datasheet 2.0 TB/s and 756 TFLOPS, its 0.80 memory efficiency)
///   lands the median ITL of both bursts within 10 % (+5.8 %, +1.0 %): the page's decode steps are
///   those of a GPU with an H100 PCIe's memory bandwidth. Until curves56 the template's FLOP
///   efficiency was an assumed flat 0.50 and every printed statistic agreed within 10 %; with the
///   measured square-GEMM curve (0.65 of 756 TFLOPS from 1.37e11 FLOPs, zzc0721 issue 95) the
///   prefill-laden statistics run short: P99 ITL −23.5 / −26.3 %, mean ITL −18.2 / −23.3 %, median
///   TPOT −19.8 / −25.5 %, median TTFT −14.4 / −25.9 %, output rate +17.4 / +31.9 % (4K / 2K). The
///   page's prefill is slower than the square-GEMM plateau, as the book finds for the L40S and 4090
///   (square-GEMM ceilings overstate prefill); recorded, not fitted. Tolerances: 1 % (unchanged),
///   10 % (median ITL), ± 1 point on each recorded error, the 0.6/0.7 bounds hold with margin (tpsim
///   0.53-0.64 at 4K).
#[test]
fn gpustack_h100_burst_steps_match_a_2_tb_s_gpu() {
    let stats = |v: &serde_json::Value| {
        let s = &v["serving"];
        [
            f(&s["itl_ms"]["p50"]),
            f(&s["itl_ms"]["p99"]),
            f(&s["itl_ms"]["mean"]),
            f(&s["tpot_ms"]["p50"]),
            f(&s["ttft_ms"]["p50"]),
            f(&v["throughput"]["e2e_output_tok_s"]),
        ]
    };
    let sxm = stats(&run_json(&scenario(
        "validation/qwen3-14b-h100-vllm-0.11-burst-4k.toml",
    )));
    let page = &H100_PAGE_4K;
    assert!(sxm[0] < 0.7 * page.itl_p50, "SXM median ITL {}", sxm[0]);
    assert!(sxm[1] < 0.6 * page.itl_p99, "SXM P99 ITL {}", sxm[1]);

    let preset = "preset = \"h100-sxm-1x\"";
    let flop = stats(&h100_burst_variant(
        "4k",
        "flop",
        preset,
        "preset = \"h100-sxm-1x\"\n[hardware.params]\nflops_efficiency = 0.36",
    ));
    assert!(
        (flop[0] / sxm[0] - 1.0).abs() < 0.01,
        "FLOP-only median ITL {}",
        flop[0]
    );
    assert!(flop[0] < 0.7 * page.itl_p50, "FLOP-only median ITL {}", flop[0]);
    assert!(
        (flop[1] / page.itl_p99 - 1.0).abs() < 0.10,
        "FLOP-only P99 {}",
        flop[1]
    );

    let host = stats(&h100_burst_variant(
        "4k",
        "host",
        "tp = 1",
        "tp = 1\n[engine.costs]\nhost_overhead = \"16ms\"",
    ));
    assert!(
        (host[0] / page.itl_p50 - 1.0).abs() < 0.10,
        "host median ITL {}",
        host[0]
    );
    assert!(host[1] < 0.6 * page.itl_p99, "host P99 ITL {}", host[1]);

    let pcie = "extends = \"h100-pcie\"\n[hardware.topology]\ngpus = [\"socket0/root0\"]";
    // curves56: tpsim / page − 1 for (median ITL, P99 ITL, mean ITL, median TPOT, median TTFT,
    // output rate) with the template's measured curve; the median ITL's is checked against 10 %.
    // vllmchunk59: a mixed step's prefill chunk now attends over its own prefix, not at the decodes'
    // context: the mixed steps are cheaper, the P99 / mean ITL and TPOT shorter and the rate higher
    // (4k: −0.235 / −0.182 / −0.198 / −0.144 / +0.174 before; 2k: −0.263 / −0.233 / −0.255 / −0.259 /
    // +0.319).
    let recorded: [[f64; 6]; 2] = [
        [0.058, -0.284, -0.217, -0.234, -0.183, 0.227],
        [0.010, -0.287, -0.253, -0.275, -0.279, 0.355],
    ];
    for ((k, note, page), errors) in [
        ("4k", "H100 random 4K input:", &H100_PAGE_4K),
        ("2k", "H100 random 2K input:", &H100_PAGE_2K),
    ]
    .into_iter()
    .zip(recorded)
    {
        // The copied rate is the row's (tests/data/throughput.tsv).
        assert!((measured(1, note) - page.rate).abs() < 1e-9, "{k}");
        let got = stats(&h100_burst_variant(k, "pcie", preset, pcie));
        let want = [
            page.itl_p50,
            page.itl_p99,
            page.itl_mean,
            page.tpot_p50,
            page.ttft_p50,
            page.rate,
        ];
        // The median ITL (memory-bound) within 10 %; the other five are the recorded misses, each its
        // measured signed error ± 1 point.
        assert!(
            (got[0] / want[0] - 1.0).abs() < 0.10,
            "{k} PCIe median ITL: {} vs {}",
            got[0],
            want[0]
        );
        for (i, ((g, w), e)) in got.iter().zip(want).zip(errors).enumerate().skip(1) {
            let err = g / w - 1.0;
            assert!(
                (err - e).abs() < 0.01,
                "{k} PCIe statistic {i}: {g} vs {w} ({err:+.3}, recorded {e:+.3})"
            );
        }
    }
}
