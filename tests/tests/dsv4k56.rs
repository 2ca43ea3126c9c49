//! dsv4k56 (issue #17): DeepSeek-V4's decode-layer kernels counted from SGLang 0.5.16's forward path
//! (`tpsim_model::llm::deepseek_v4_layer`'s module doc names each launch, file and function), and the
//! first public DeepSeek-V4 serving run as a validation row.
//!
//! **The row: sglang pull request 33109** ("[Docs] Add verified H200 and B200 DeepSeek-V4 Flash Official
//! results", 2026-07-31), table "H200 results", row "High-throughput / Marlin target-only | 1024 | 2048":
//! DeepSeek-V4-Flash-0731 at TP 4 on 4× H200 under SGLang v0.5.16, `--moe-runner-backend marlin`, no
//! speculative decoding; bench_serving random (caps 8,192 / 1,024), 2,048 requests at concurrency 1,024:
//! P50 TTFT 195,108.42 ms, P50 TPOT 123.81 ms, 4,573 total tok/s a GPU. Scenario
//! `scenarios/validation/deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c1024.toml` (assumptions there).
//!
//! What the figure measures: each request's TPOT under a closed loop of 1,024 clients, of which at most
//! 256 run (SGLang's DeepSeek-V4 hook, dsv4run55) while the rest queue; the running requests' decode steps
//! share the GPU with the chunked prefills of the requests admitted as others finish. It is a loaded TPOT,
//! not a decode step: tpsim's own P50 TPOT on the scenario (88.92 ms since dsv4k57, 74.69 before) is 4.3× its
//! P50 inter-token latency (20.92 ms) for that reason.
//!
//! Not taken: the same table's c 4,096 row (its TPOT is cut off in the stored description), its DSpark rows
//! (tpsim refuses DeepSeek-V4 drafts), the B200 rows (TP 8 / DP 8: DP attention is refused), and the SGLang
//! cookbook's DeepSeek-V4 re-benchmark (sglang pull 31363, SGLang 0.5.15.post1: the FP8 Flash repackage, whose
//! expert format under that release was not checked against `ExpertFormat::sglang_cuda_by_release`, nor its
//! launch flags read: left for a later round).
//!
//! VALIDATION, out-of-sample: nothing was fitted to the row. It is a known miss
//! (`throughput_rows::KNOWN_MISSES`): tpsim's per-stream rate is 1.66× the measured one.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of the rows compared here (`throughput_rows.rs`'s coverage test).
pub(crate) const DSV4K56_SOURCES: &[(&str, &str)] = &[(SRC_33109, "DeepSeek-V4-Flash-0731")];

/// The prefix of the row's source: sglang pull request 33109's description.
const SRC_33109: &str = "github.com/sgl-project/sglang pull 33109 (description, 2026-07-31";

/// The row's label (also its `KNOWN_MISSES` key).
const LABEL_33109_C1024: &str = "DeepSeek-V4-Flash-0731 FP4 (Marlin), SGLang 0.5.16, 4× H200 TP 4, random 8k/1k c 1024 (per-stream P50 TPOT)";

/// Kernels of one layer of each kind, counted from SGLang 0.5.16 (module doc of
/// `llm::deepseek_v4_layer`): attention, ratio 0: mHC pre 2 + `wqkv_a` 2 + `q_norm` 1 + `wq_b` 2 +
/// q norm-rope 1 + KV norm-rope-store 1 + FlashMLA sparse 2 + inverse rope 1 + `wo_a` 2 + `wo_b` 2 + mHC
/// post 1 = 17; a compressor `wkv_gate` 1 + compress 1 + store 1 = 3 (ratio 128: 20); the C4 indexer
/// `weights_proj` 1 + `wq_b` 2 + q rope-hadamard-quant 1 + its compressor 3 + logits 1 + top-k 1 = 9
/// (ratio 4: 17 + 3 + 9 = 29). Feed-forward: the generic MoE half with shared experts 12 − its RMSNorm
/// (fused into mHC pre) 1 + mHC pre 2 + post 1 = 14. Flash's layers 0, 2, 3 are ratio 0, 4, 128. A step:
/// 2 × 17 + 21 × 29 + 20 × 20 = 34 + 609 + 400 = 1,043 attention and 43 × 14 = 602 feed-forward launches.
/// Exact (integers).
#[test]
fn kernels_counted_from_sglang_0_5_16() {
    let fp = deepseek_v4_flash().forward_pass(8, 1);
    let k = |i: usize| {
        (
            fp.layers[i].attn_kernels,
            fp.layers[i].ffn_kernels,
            fp.layers[i].dsv4_ratio,
        )
    };
    assert_eq!(k(0), (17, 14, Some(0)));
    assert_eq!(k(2), (29, 14, Some(4)));
    assert_eq!(k(3), (20, 14, Some(128)));
    let attn: u32 = fp.layers.iter().map(|l| l.attn_kernels).sum();
    let ffn: u32 = fp.layers.iter().map(|l| l.ffn_kernels).sum();
    assert_eq!((attn, ffn), (1_043, 602));
}

/// SGLang's launches by release and MoE runner (`deepseek_v4_layer::sglang_kernels`, module doc): under
/// `--moe-runner-backend marlin` every feed-forward half is 3 mHC + 1 router + 1 top-k + 11 Marlin
/// (zeros, align, zeros, w13, 5 swiglu-limit ops, w2, sum) + 4 shared expert + 1 add = 21; from 0.5.19 a pass
/// of ≤ 32 tokens fuses each mHC post with the next pre: 17 − 1 = 16, 29 − 1 = 28, 14 − 1 = 13, the last
/// layer's feed-forward half 14; at 33 tokens, or in 0.5.16, nothing changes. Exact (integers).
#[test]
fn kernels_by_release_and_moe_runner() {
    use tpsim_model::llm::deepseek_v4_layer::sglang_kernels;
    let base = deepseek_v4_flash().forward_pass(8, 1).layers;
    let run = |release: &[u64], tokens: u64, marlin: bool| {
        let mut l = base.clone();
        sglang_kernels(&mut l, release, tokens, marlin);
        l
    };
    let l = run(&[0, 5, 16], 8, true);
    assert!(l.iter().all(|x| x.ffn_kernels == 21));
    assert_eq!((l[0].attn_kernels, l[2].attn_kernels), (17, 29));
    let l = run(&[0, 5, 19], 32, false);
    assert_eq!((l[0].attn_kernels, l[0].ffn_kernels), (16, 13));
    assert_eq!((l[2].attn_kernels, l[3].attn_kernels), (28, 19));
    assert_eq!(l[42].ffn_kernels, 14);
    let l = run(&[0, 5, 23], 33, false);
    assert_eq!((l[0].attn_kernels, l[0].ffn_kernels), (17, 14));
    let l = run(&[0, 5, 16], 8, false);
    assert_eq!((l[0].attn_kernels, l[0].ffn_kernels), (17, 14));
}

/// The scenario as run (default profile): P50 TPOT 88.92 ms (± 0.5 %: the run is deterministic; the
/// band only absorbs a changed float summation order), P50 TTFT 134.8 s (± 1 %), 256 requests running at
/// most. tpsim's per-stream rate 1000 ÷ 88.92 = 11.25 tok/s against the table's 1000 ÷ 123.81 = 8.08
/// (`throughput.tsv`): +39.2 %, a known miss. The TTFT is 0.69× the table's 195,108 ms. dsv4k57: the H200
/// template's Marlin MoE ceiling (0.257 of the bf16 peak, sglang PR 38884's H100 capture of these experts)
/// now binds DeepSeek-V4's prefill chunks: 74.69 → 88.92 ms, 113.0 → 134.8 s (+65.8 → +39.2 %).
#[test]
pub(crate) fn validation_deepseek_v4_flash_h200x4_sglang_0_5_16_tp4_c1024() {
    let measured = measured_throughput(SRC_33109, "DeepSeek-V4-Flash-0731", |n| n.contains("c 1024"));
    assert!((measured - 8.08).abs() < 1e-9, "{measured}");
    let j = run_json(&scenario(
        "validation/deepseek-v4-flash-h200x4-sglang-0.5.16-tp4-8k1k-c1024.toml",
    ));
    assert_eq!(j["verdict"], "ok", "{j}");
    assert_eq!(j["serving"]["peak_running"], 256, "{j}");
    let tpot = f(&j["serving"]["tpot_ms"]["p50"]);
    assert!((tpot / 88.92 - 1.0).abs() < 0.005, "P50 TPOT {tpot}");
    let ttft = f(&j["serving"]["ttft_ms"]["p50"]);
    assert!((ttft / 134_758.9 - 1.0).abs() < 0.01, "P50 TTFT {ttft}");
    // The warning stays: the row is outside ±20 %.
    assert!(warned(&j, "DeepSeek-V4's decode step is an extrapolation"), "{j}");
    validate(LABEL_33109_C1024, (measured, measured), 1000.0 / tpot);
}

/// Every row of these sources has a test here.
#[test]
fn every_dsv4k56_row_is_compared() {
    assert_eq!(throughput_rows_per_source(DSV4K56_SOURCES), [1]);
}
