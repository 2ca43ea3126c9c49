//! deploys39 (issues #17 / #18): new decode rows on deploys38's 2-GPU PCIe-switch box — Visual-Synthesizer's
//! 2× RTX PRO 6000 Blackwell rig (github.com/Visual-Synthesizer/rtx6kpro, `benchmarks/inference-throughput/`,
//! `b650d4u-2gpu.md`: an AsRock Rack B650D4U, an EPYC 4564P, both GPUs behind one c-payne PM50100 Gen5 switch),
//! modelled by `hardware/rtx-pro-6000-8x-1switch` as deploys38 did. The three vLLM nightly files deploys38 set
//! aside for want of NVFP4 presets (now bundled by presets62), each at ctx 0 and concurrency 1, 8, 32, 128:
//!
//! - `vllm_gemma4-31b_nvfp4_2gpu_v0.19.1rc1.dev42+gd56e95223.json` (commit 48aae4b, run 2026-04-07):
//!   "Gemma-4-31B" NVFP4: 66.98, 472.83, 1507.50, 3573.86 tok/s.
//! - `vllm_qwen35-27b_nvfp4_2gpu_v0.19.1rc1.dev42+gd56e95223.json` (same commit and night): "Qwen3.5-27B"
//!   NVFP4: 80.47, 529.19, 1782.64, 3464.62 tok/s.
//! - `vllm_qwen35-122b_nvfp4_2gpu_nomtp_v0.19.1rc1.dev42+gd56e95223.json` (same commit and night):
//!   "Qwen3.5-122B" NVFP4 without MTP: 113.53, 575.01, 1471.98, 3241.98 tok/s.
//!
//! No launch file was committed for these three; each scenario (`scenarios/validation/{gemma-4-31b,
//! qwen3.5-27b,qwen3.5-122b-a10b}-nvfp4-pro6000x2-plx-vllm-0.19.1-tp2-c*.toml`) takes the flags of the same
//! night's Qwen3.5-122B MTP `.cmd` (commit 2aa79a7) without its speculative config, and says in its header
//! what it assumes: the checkpoint (no publisher is named), the prompt's tokens, the output length.
//!
//! **What is compared**: `benchmark_sglang.py` (commit 48aae4b) sends the same chat request on `C` streams
//! for a 30 s cell; under vLLM the figure is the client's completion tokens ÷ the cell's wall time (every
//! stream ran the whole window in these files), the decode rate of a full batch, compared with tpsim's
//! `throughput.output_tok_s` (decode tokens ÷ decode time), default (uncalibrated) profile, held to
//! [`TARGET`](crate::throughput_rows::TARGET) or listed in
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES).
//!
//! Searched this round and not taken: the same directory's `vllm_qwen35-122b_nvfp4_2gpu_b650d4u_plx.json`
//! (the night before, launch not recorded, `aggregate_tps` 0 throughout: its tokens ÷ wall time, 99.93 /
//! 461.08 / 1405.77 / 3151.49 tok/s, are the box's night-to-night spread, −12.0 to −2.8 % from the row's
//! file), the MTP files, the 1-GPU files; ollama.linkworksinc.com's 4× RTX 3090 Gemma-4-31B AWQ (deploys37's
//! reason); pavlokhmel.com's TP vs DP page (a Dell XE9680 with 8× H100, not a PCIe box).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. [`every_deploys39_row_is_compared`]
//! fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The prefix every source of this file shares.
const DIR: &str = "github.com/Visual-Synthesizer/rtx6kpro benchmarks/inference-throughput/";

/// One result file of the box: its name, the table's model, the scenario stem, the stated figures.
struct File {
    /// The JSON file's name under [`DIR`].
    json: &'static str,
    /// The `model` column of its rows.
    model: &'static str,
    /// The scenario files' stem under `scenarios/validation/`.
    stem: &'static str,
    /// The model preset the scenarios load.
    preset: &'static str,
    /// The file's `aggregate_tps` at ctx 0, tok/s, in [`CONCURRENCY`] order (rounded to 0.01).
    stated: [f64; 4],
}

/// The three files, in the order of the module doc.
const FILES: [File; 3] = [
    File {
        json: "vllm_gemma4-31b_nvfp4_2gpu_v0.19.1rc1.dev42+gd56e95223.json",
        model: "Gemma-4-31B",
        stem: "gemma-4-31b-nvfp4-pro6000x2-plx-vllm-0.19.1-tp2",
        preset: "gemma-4-31b-it-nvfp4",
        stated: [66.98, 472.83, 1507.50, 3573.86],
    },
    File {
        json: "vllm_qwen35-27b_nvfp4_2gpu_v0.19.1rc1.dev42+gd56e95223.json",
        model: "Qwen3.5-27B",
        stem: "qwen3.5-27b-nvfp4-pro6000x2-plx-vllm-0.19.1-tp2",
        preset: "qwen3.5-27b",
        stated: [80.47, 529.19, 1782.64, 3464.62],
    },
    File {
        json: "vllm_qwen35-122b_nvfp4_2gpu_nomtp_v0.19.1rc1.dev42+gd56e95223.json",
        model: "Qwen3.5-122B-A10B",
        stem: "qwen3.5-122b-a10b-nvfp4-pro6000x2-plx-vllm-0.19.1-tp2",
        preset: "qwen3.5-122b-a10b-nvfp4",
        stated: [113.53, 575.01, 1471.98, 3241.98],
    },
];

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS39_SOURCES: &[(&str, &str)] = &[
    (
        "github.com/Visual-Synthesizer/rtx6kpro benchmarks/inference-throughput/vllm_gemma4-31b_nvfp4_2gpu_v0.19.1rc1.dev42+gd56e95223.json",
        "Gemma-4-31B",
    ),
    (
        "github.com/Visual-Synthesizer/rtx6kpro benchmarks/inference-throughput/vllm_qwen35-27b_nvfp4_2gpu_v0.19.1rc1.dev42+gd56e95223.json",
        "Qwen3.5-27B",
    ),
    (
        "github.com/Visual-Synthesizer/rtx6kpro benchmarks/inference-throughput/vllm_qwen35-122b_nvfp4_2gpu_nomtp_v0.19.1rc1.dev42+gd56e95223.json",
        "Qwen3.5-122B-A10B",
    ),
];

/// The concurrencies taken from each file (ctx 0).
const CONCURRENCY: [u32; 4] = [1, 8, 32, 128];

/// The label of a row (a known miss is listed under it).
pub(crate) fn label(model: &str, c: u32) -> String {
    format!(
        "{model} NVFP4, vLLM 0.19.1rc1, 2× RTX PRO 6000 (PLX switch) TP 2, c {c} (Visual-Synthesizer 2026-04-07)"
    )
}

/// The scenario file of a row.
fn file(rf: &File, c: u32) -> String {
    format!("validation/{}-c{c}.toml", rf.stem)
}

/// tpsim's decode tokens a second for a row's scenario, with its peak running requests.
fn predicted(rf: &File, c: u32) -> (f64, u64) {
    let v = run_json(&scenario(&file(rf, c)));
    let peak = v["serving"]["peak_running"].as_u64().expect("peak_running");
    (f(&v["throughput"]["output_tok_s"]), peak)
}

/// Compares the four rows of one file: the table's figure (checked against the stated one) against
/// tpsim's, with every stream running at once as in the bench's cell.
fn compare(rf: &File) {
    let src = format!("{DIR}{}", rf.json);
    for (c, s) in CONCURRENCY.into_iter().zip(rf.stated) {
        let m = measured_throughput(&src, rf.model, |n| n.contains(&format!("concurrency {c}:")));
        assert!((m - s).abs() < 1e-9, "{} c {c}: {m}", rf.model);
        let (p, peak) = predicted(rf, c);
        assert_eq!(peak, u64::from(c), "{} c {c}: peak_running {peak}", rf.model);
        validate(&label(rf.model, c), (m, m), p);
    }
}

#[test]
pub(crate) fn validation_plx_pro6000_x2_vllm_0_19_1_gemma4_31b_nvfp4() {
    compare(&FILES[0]);
}

#[test]
pub(crate) fn validation_plx_pro6000_x2_vllm_0_19_1_qwen35_27b_nvfp4() {
    compare(&FILES[1]);
}

#[test]
pub(crate) fn validation_plx_pro6000_x2_vllm_0_19_1_qwen35_122b_nvfp4() {
    compare(&FILES[2]);
}

/// Each scenario is the assumed launch: the box, the preset, TP 2, the MTP `.cmd`'s flags less its
/// speculative config, C streams; `--max-model-len 32768` only for the 122B (its ctx 131072 cells returned
/// nothing; Gemma's and the 27B's ran).
#[test]
fn scenarios_are_the_assumed_launch() {
    for rf in &FILES {
        for c in CONCURRENCY {
            let name = file(rf, c);
            let text = std::fs::read_to_string(scenario(&name)).unwrap();
            let lines = [
                "preset = \"rtx-pro-6000-8x-1switch\"".to_string(),
                format!("preset = \"{}\"", rf.preset),
                "name = \"vllm\"".to_string(),
                "version = \"0.19.1\"".to_string(),
                "tp = 2".to_string(),
                "gpu_memory_utilization = 0.90".to_string(),
                "max_num_seqs = 128".to_string(),
                "attention_backend = \"TRITON_ATTN\"".to_string(),
                "enable_prefix_caching = true".to_string(),
                format!("concurrency = {c}"),
            ];
            for line in lines {
                assert!(text.contains(&format!("\n{line}\n")), "{name}: no `{line}`");
            }
            assert_eq!(
                text.contains("\nmax_model_len = 32768\n"),
                rf.model == "Qwen3.5-122B-A10B",
                "{name}"
            );
            assert!(!text.contains("[speculative]"), "{name}");
        }
    }
}

#[test]
fn every_deploys39_row_is_compared() {
    // Four rows a file; the three validation tests compare each once.
    assert_eq!(throughput_rows_per_source(DEPLOYS39_SOURCES), [4, 4, 4]);
    for (rf, (src, model)) in FILES.iter().zip(DEPLOYS39_SOURCES) {
        assert_eq!(format!("{DIR}{}", rf.json), *src);
        assert_eq!(rf.model, *model);
    }
}

/// The measured step (C ÷ tok/s) against tpsim's, file by file. On the two dense checkpoints the gap
/// grows with the batch: since sm120fp4_64 (FlashInfer's SM120 CUTLASS FP4 GEMM walk and
/// `scaled_fp4_quant`, `passes::sm120_fp4`) tpsim's step is long at c 1 and short at c 128 (Gemma
/// 14.93 − 16.68 = −1.75 ms at c 1 to 35.82 − 32.86 = +2.96 ms at c 128; the 27B −2.54 to +3.44 ms;
/// before it, short throughout: 1.74 → 6.65 and 0.72 → 6.76 ms); on the 122B MoE tpsim's is long at
/// every concurrency (1.34 ms at c 1 to 8.61 at c 128), deploys38's MiniMax pattern
/// (`throughput_rows::DEPLOYS39_MOE_MISS`). Holds the signs, the dense gaps' growth (over 4 ms from c 1
/// to c 128) and tpsim's c 128 step (± 0.3 ms; 32.86, 33.50, 48.09 ms) so that a change to these costs
/// shows here first.
#[test]
fn step_gap_by_file() {
    let step = |c: u32, tok_s: f64| f64::from(c) / tok_s * 1000.0;
    // By hand from the stated figures: 128 / 3573.86, 128 / 3464.62, 128 / 3241.98 tok/s.
    let measured_c128 = [35.815, 36.945, 39.482];
    for ((rf, tpsim_c128), m128) in FILES.iter().zip([32.86, 33.50, 48.09]).zip(measured_c128) {
        assert!((step(128, rf.stated[3]) - m128).abs() < 0.005, "{}", rf.model);
        let dense = rf.model != "Qwen3.5-122B-A10B";
        let mut gaps = Vec::new();
        for (c, s) in CONCURRENCY.into_iter().zip(rf.stated) {
            let (p, _) = predicted(rf, c);
            let (measured, tpsim) = (step(c, s), step(c, p));
            if c == 128 {
                assert!(
                    (tpsim - tpsim_c128).abs() < 0.3,
                    "{} c 128: tpsim's step {tpsim:.2} ms",
                    rf.model
                );
            }
            gaps.push(measured - tpsim);
        }
        if dense {
            assert!(gaps[0] < 0.0 && gaps[3] > 0.0, "{}: {gaps:?}", rf.model);
            assert!(gaps[3] - gaps[0] > 4.0, "{}: {gaps:?}", rf.model);
        } else {
            assert!(gaps.iter().all(|g| *g < 0.0), "{}: {gaps:?}", rf.model);
        }
    }
}
