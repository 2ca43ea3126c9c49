//! deploys27 (issue #18): new out-of-sample SGLang deployment rows from two sources independent of the
//! earlier rounds — sgl-project/sglang pull-request descriptions whose before/after tables give a
//! `bench_serving` figure with its full command:
//!
//! - pull request 5877 ("[qwen3] Add L20 fused moe config for qwen3 30b", 2025-04-29, closed unmerged):
//!   Qwen3-30B-A3B bf16 on L20 (PCIe, 48 GB) at TP 2 and TP 4, `--request-rate 10`, 100 prompts of 1000
//!   tokens, 2000 output tokens each; the "Before" column (no L20 fused-MoE file: what SGLang shipped);
//! - pull request 12343 ("Triton fused_moe_kernel support ep moe tuning", 2025-10-29, merged):
//!   Qwen3-30B-A3B-FP8 on 4× H200 at TP 4 with EP 4, one request at a time, 4096 + 1024 tokens; the
//!   "main branch" block (the default MoE tile, warned), its output rate from the printed duration;
//! - pull request 7687 ("Add H200 fused MoE kernel configs for DeepSeek-V3 in triton 3.3.1", 2025-07-01,
//!   merged): DeepSeek-V3 FP8 at TP 16 over two H200 nodes, 8 in flight, 1024 + 512 tokens, after the
//!   PR's config (102,400 tokens in 409.60 s);
//! - pull request 6111 ("adding Triton configs for DeepSeekV3 FusedMoE kernel on Blackwell", 2025-05-08,
//!   merged): DeepSeek-V3 FP8 on 8× B200 at TP 8 with triton attention, `bench_one_batch_server` batches
//!   of 1 and 32, 512 + 512 tokens, "After tuning".
//!
//! Each run is written as a scenario (`scenarios/validation/qwen3-30b-a3b-*-sglang-*.toml`, assumptions
//! listed there: the release, the L20 box's layout, 0.4.6's `mem_fraction_static` default for the L20
//! runs) and compared with the **default (uncalibrated) profile** against
//! [`TARGET`](crate::throughput_rows::TARGET) and [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES):
//! tpsim's end-to-end output rate (output tokens ÷ the whole run, prefill and queueing included) against
//! the PR's "Output token throughput". The measured value is read from `tests/data/throughput.tsv`, never
//! copied into a scenario.
//!
//! Searched this round and not taken (the `issues` corpus's stored excerpts): sglang pull request 5849
//! (Qwen3-30B / 235B bf16 and FP8 at TP 1-8, the same request-rate-10 commands: the GPU is not named in
//! the stored text), 7445 (Qwen3-235B-A22B-FP8 TP 4, c 16: GPU not named; only the "before tuning"
//! block is stored), 5839 and 5850 (H20 tables whose command is only referenced, #5740, as newdeploys8
//! found for 5846), 9278 (gpt-oss-120b TP 4: GPU not named), 8852 (Qwen3-Coder-480B on H200: the
//! checkpoint and TP are not printed), 9204 (Qwen3-235B-A22B-FP8 on B200: lengths drawn at the default
//! range ratio, the launch not printed), 18195 (Qwen3-Coder-Next-FP8 on H100 TP 2, chat backend with
//! random lengths at range ratio 0: the run's duration is 2.3× what its median ITL and token count imply,
//! book/src/validation.md "deploys27"; left for a next round), vllm-project/vllm issue 11539 (lhl's
//! DeepSeek-V3 SGLang runs: the box is not stated in the excerpt) and sglang issue 3196 (a client script,
//! no bench_serving table).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES)
//! gives the measured and predicted figures. [`every_deploys27_row_is_compared`] fails if a row of these
//! sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate_e2e_row;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS27_SOURCES: &[(&str, &str)] = &[
    (SRC_5877, "Qwen3-30B-A3B"),
    (SRC_12343, "Qwen3-30B-A3B-FP8"),
    (SRC_7687, "DeepSeek-V3"),
    (SRC_6111, "DeepSeek-V3"),
];

const SRC_5877: &str = "github.com/sgl-project/sglang pull 5877 (description, 2025-04-29";
const SRC_12343: &str = "github.com/sgl-project/sglang pull 12343 (description, 2025-10-29";
const SRC_7687: &str = "github.com/sgl-project/sglang pull 7687 (description, 2025-07-01";
const SRC_6111: &str = "github.com/sgl-project/sglang pull 6111 (description, 2025-05-08";

/// The rows: (source, model, notes prefix, the printed figure in tok/s, scenario file, label).
const ROWS: &[(&str, &str, &str, f64, &str, &str)] = &[
    (
        SRC_5877,
        "Qwen3-30B-A3B",
        "L20 TP 2 random 1000/2000 rate 10:",
        1387.86,
        "qwen3-30b-a3b-l20x8-sglang-tp2-rate10.toml",
        "Qwen3-30B-A3B bf16, SGLang (0.4.6 era), 2× L20 TP 2, random 1000/2000 at 10 req/s (end-to-end output rate)",
    ),
    (
        SRC_5877,
        "Qwen3-30B-A3B",
        "L20 TP 4 random 1000/2000 rate 10:",
        2186.99,
        "qwen3-30b-a3b-l20x8-sglang-tp4-rate10.toml",
        "Qwen3-30B-A3B bf16, SGLang (0.4.6 era), 4× L20 TP 4, random 1000/2000 at 10 req/s (end-to-end output rate)",
    ),
    (
        SRC_12343,
        "Qwen3-30B-A3B-FP8",
        "H200 TP 4 EP 4 random 4096/1024 c 1:",
        213.74,
        "qwen3-30b-a3b-fp8-h200x8-sglang-tp4-ep4-c1.toml",
        "Qwen3-30B-A3B-FP8, SGLang (main, Oct 2025), 4× H200 TP 4 EP 4, random 4096/1024 c 1 (end-to-end output rate)",
    ),
    (
        SRC_7687,
        "DeepSeek-V3",
        "2 nodes x 8 H200 TP 16 random 1024/512 c 8:",
        250.00,
        "deepseek-v3-h200x16-2node-sglang-tp16-c8.toml",
        "DeepSeek-V3 FP8, SGLang (0.4.8 era), 16× H200 (2 nodes) TP 16, random 1024/512 c 8 (end-to-end output rate)",
    ),
    (
        SRC_6111,
        "DeepSeek-V3",
        "B200 TP 8 triton attention bench_one_batch_server batch 1 ",
        46.75,
        "deepseek-v3-b200x8-sglang-tp8-triton-bs1.toml",
        "DeepSeek-V3 FP8, SGLang (0.4.6 era), 8× B200 TP 8 triton attention, 512/512 batch 1 (end-to-end output rate)",
    ),
    (
        SRC_6111,
        "DeepSeek-V3",
        "B200 TP 8 triton attention bench_one_batch_server batch 32 ",
        1179.25,
        "deepseek-v3-b200x8-sglang-tp8-triton-bs32.toml",
        "DeepSeek-V3 FP8, SGLang (0.4.6 era), 8× B200 TP 8 triton attention, 512/512 batch 32 (end-to-end output rate)",
    ),
];

/// Row `i` of [`ROWS`]: the measured value (checked against the printed figure) against tpsim's
/// end-to-end output rate.
fn row(i: usize) {
    let (src, model, note, printed, file, label) = ROWS[i];
    validate_e2e_row((src, model), (note, printed), file, label, 1.0);
}

#[test]
pub(crate) fn validation_qwen3_30b_a3b_l20x8_sglang_tp2_rate10() {
    // "Before Output Token Throughput (tok/s)" 1387.86 at TP 2: 100 × 2000 = 200,000 output tokens in
    // 200,000 / 1387.86 = 144.1 s.
    row(0);
}

#[test]
pub(crate) fn validation_qwen3_30b_a3b_l20x8_sglang_tp4_rate10() {
    // "Before Output Token Throughput (tok/s)" 2186.99 at TP 4: 200,000 / 2186.99 = 91.4 s.
    row(1);
}

#[test]
pub(crate) fn validation_qwen3_30b_a3b_fp8_h200x4_sglang_tp4_ep4_c1() {
    // "Benchmark duration (s): 479.09" for 100 requests of 1024 output tokens (range ratio 1, ignore_eos):
    // 102,400 / 479.09 = 213.74 tok/s (rounded to 0.01; the row holds 213.74).
    assert!((102_400.0_f64 / 479.09 - 213.74).abs() < 0.005);
    row(2);
}

#[test]
pub(crate) fn validation_deepseek_v3_h200x16_2node_sglang_tp16_c8() {
    // "Benchmark duration (s): 437.69 -> 409.60", "Total generated tokens: 102400" (200 × 512): after
    // the PR's config 102,400 / 409.60 = 250.00 tok/s.
    assert!((102_400.0_f64 / 409.60 - 250.00).abs() < 0.005);
    row(3);
}

#[test]
pub(crate) fn validation_deepseek_v3_b200x8_sglang_tp8_triton_bs1() {
    // "batch size: 1, latency: 10.95 s, output throughput: 46.75 token/s" (512 / 10.95 = 46.76: the
    // printed latency is rounded).
    assert!((512.0_f64 / 10.95 - 46.75).abs() < 0.02);
    row(4);
}

#[test]
pub(crate) fn validation_deepseek_v3_b200x8_sglang_tp8_triton_bs32() {
    // "batch size: 32, latency: 13.89 s, output throughput: 1179.25 token/s" (32 × 512 / 13.89 =
    // 1179.6: the printed latency is rounded).
    assert!((16_384.0_f64 / 13.89 - 1179.25).abs() < 0.5);
    row(5);
}

/// One scenario's expected settings: (file, box preset, model preset, tp, ep_size (0: none),
/// mem_fraction_static ("": default), concurrency (0: open loop), requests, prompt, output).
type Case = (
    &'static str,
    &'static str,
    &'static str,
    u64,
    u64,
    &'static str,
    u64,
    u64,
    u64,
    u64,
);

#[test]
fn scenarios_are_the_prs_runs() {
    // (file, box preset, model preset, tp, ep_size (0: none), mem_fraction_static (0: default),
    //  concurrency (0: open loop), requests, prompt, output).
    // 5877: `--tp 2/4`, `--num-prompts 100 --request-rate 10 --random-input-len 1000
    // --random-output-len 2000 --random-range-ratio 1`; 0.4.6's default mem_fraction_static is 0.87 at
    // tp 2 and 0.85 at tp 4 (sglang 0.4.6 wheel, srt/server_args.py).
    // 12343: `--tp-size 4 --ep 4`, `--random-input-len 4096 --random-output-len 1024
    // --random-range-ratio 1 --num-prompts 100 --max-concurrency 1`.
    let cases: &[Case] = &[
        (
            ROWS[0].4,
            "l20-8x-pcie",
            "qwen3-30b-a3b",
            2,
            0,
            "0.87",
            0,
            100,
            1000,
            2000,
        ),
        (
            ROWS[1].4,
            "l20-8x-pcie",
            "qwen3-30b-a3b",
            4,
            0,
            "0.85",
            0,
            100,
            1000,
            2000,
        ),
        (
            ROWS[2].4,
            "h200-8x-nvlink",
            "qwen3-30b-a3b-fp8",
            4,
            4,
            "",
            1,
            100,
            4096,
            1024,
        ),
    ];
    for &(file, hw, model, tp, ep, mfs, conc, reqs, prompt, output) in cases {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert!(text.contains(&format!("\npreset = \"{hw}\"\n")), "{file}");
        assert!(text.contains(&format!("\npreset = \"{model}\"\n")), "{file}");
        assert!(text.contains("\nname = \"sglang\"\n"), "{file}");
        assert!(
            !text.contains("\nversion ="),
            "{file}: the release is assumed, not set"
        );
        assert_eq!(scenario_int_key(&text, "tp"), tp, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), reqs, "{file}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), prompt, "{file}");
        assert_eq!(scenario_int_key(&text, "output_len"), output, "{file}");
        if ep > 0 {
            assert_eq!(scenario_int_key(&text, "ep_size"), ep, "{file}");
        } else {
            assert!(!text.contains("ep_size"), "{file}");
        }
        if mfs.is_empty() {
            assert!(!text.contains("mem_fraction_static"), "{file}");
        } else {
            assert!(
                text.contains(&format!("\nmem_fraction_static = {mfs}\n")),
                "{file}"
            );
        }
        if conc > 0 {
            assert_eq!(scenario_int_key(&text, "concurrency"), conc, "{file}");
            assert!(!text.contains("request_rate"), "{file}");
        } else {
            assert!(text.contains("\nrequest_rate = 10.0\n"), "{file}");
            assert!(!text.contains("concurrency"), "{file}");
        }
    }
    // The rows say the same tp (and, for the closed-loop row, the concurrency).
    for (i, &(src, model, note, _, file, _)) in ROWS.iter().enumerate() {
        let r = throughput_row(src, model, note);
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        assert_eq!(r.tp, scenario_int_key(&text, "tp"), "{file}");
        if i >= 2 {
            assert_eq!(r.concurrency, scenario_int_key(&text, "concurrency"), "{file}");
        }
    }
}

#[test]
fn every_deploys27_row_is_compared() {
    // Two L20 rows of pull request 5877, one H200 row of pull request 12343, one two-node H200 row of
    // 7687 and two B200 rows of 6111; the tests above compare each once.
    assert_eq!(ROWS.len(), 6);
    assert_eq!(throughput_rows_per_source(DEPLOYS27_SOURCES), [2, 1, 1, 2]);
    // The 6111 scenarios ask for the PR's launch flags.
    for i in [4, 5] {
        let text = std::fs::read_to_string(scenario(&format!("validation/{}", ROWS[i].4))).unwrap();
        assert!(
            text.contains("\nattention_backend = \"triton\"\n"),
            "{}",
            ROWS[i].4
        );
        assert!(text.contains("\ndisable_radix_cache = true\n"), "{}", ROWS[i].4);
    }
}
