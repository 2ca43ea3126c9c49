//! deploys36 (issues #17 / #18): new decode rows on a PCIe multi-GPU box under a recent engine —
//! github.com/noonghunna/club-3090's Qwen3.6-35B-A3B reports on 2× RTX 5090 (vLLM 0.25.1, TP 2), which
//! earlier rounds set aside for want of a preset; `Qwen/Qwen3.6-35B-A3B` is now an alias of
//! `qwen3.5-35b-a3b` (presets59, scenarios/models/hf-ids.toml).
//!
//! **Source**: issues 851 ("[bench] 2x5090 / vllm-qwen36-35b-a3b-dual") and 858 ("[bench] 2x5090 /
//! vllm/qwen-35b-a3b-dual-nvfp4"), both by @paulp83 on 2026-08-02, and their rows in BENCHMARKS.md (repository
//! snapshot at 4a29ab5). One box (Ryzen 9 9950X3D, Gigabyte B850 AI TOP, both GPUs at PCIe 5.0 x8, no power
//! cap, no NVLink: `hardware/rtx-5090-2x-ryzen-9950x3d-gen5x8`), the composes as they stood that day
//! (`models/qwen3.6-35b-a3b/vllm/compose/dual/{autoround-int4,nvfp4}/fp8.yml` at cb14701 / f46eb54):
//! `vllm/vllm-openai:v0.25.1`, TP 2, `--max-num-seqs 1`, fp8 KV, prefix caching, `NCCL_P2P_DISABLE=1` and
//! `--disable-custom-all-reduce`, no speculative decoding (the built-in MTP head is off by design on this
//! MoE). Two checkpoints: Intel/Qwen3.6-35B-A3B-int4-mixed-AutoRound (`--quantization auto_round --dtype
//! float16`) and nvidia/Qwen3.6-35B-A3B-NVFP4 (`--quantization modelopt`); neither checkpoint's
//! quantization config was found in a public copy, so their layouts are assumed (each scenario's header).
//!
//! **What is compared**: `scripts/bench.sh` (at 57def5a) streams one chat request at a time (three warm-ups,
//! five measured runs; the narrative prompt, `max_tokens` 1000, thinking off) and reports decode_TPS =
//! completion tokens / (wall − TTFT): one stream's decode rate. The row is its mean over the five runs,
//! against 1000 ÷ tpsim's mean TPOT of the scenario (default, uncalibrated profile), held to
//! [`TARGET`](crate::throughput_rows::TARGET) or listed in
//! [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES). decode_TPS counts n tokens over n − 1
//! inter-token gaps plus the first token's decode share, so it exceeds 1000 ÷ the mean inter-token time by
//! at most n / (n − 1) − 1 = 0.1 % at n = 1000: not corrected.
//!
//! Searched this round and not taken (issues corpus, the repository snapshot, find_string / code corpus):
//! club-3090's Qwen3.6-27B rows (dense; every vLLM row runs MTP n = 3 and an AutoRound / NVFP4 / FP8
//! checkpoint — no Qwen3.6-27B preset: no public byte copy of its config.json was found, only links to the
//! Hub file and a re-indented dump in the code index, whose text config has qwen3.5-27b's geometry key for
//! key); Qwen3.8-27B, Gemma 4, Tess-4, ThinkingCap, Agents-A1, Qwen-AgentWorld (no preset, or fine-tunes);
//! the first-party 2× RTX 3090 Qwen3.6-35B-A3B rows (182.3 decode under v0.22.0 on 2026-05-30, the unsloth
//! NVFP4-Fast 179.5, the preview nightly 187.0: a 230 W power cap, which tpsim does not model, and the host
//! not described; the MTP A/B at 16K on a nightly); issue 769 (an RTX 5090 paired with an RTX 3090 Ti: tpsim
//! has one GPU type a box); issues 612 / 619 (one RTX 5090, TP 1: not a multi-GPU box); issue 652 (@guybrush01,
//! 2× RTX 5090 at x8, 2026-07-09, narrative decode_TPS 257.52: the stored excerpts do not name the compose,
//! checkpoint or vLLM release, and BENCHMARKS.md has no row of it); issue 873's P2P
//! A/B on the same box (a different sitting whose P2P-off baseline is 17.7 % below issue 858's, with the
//! link reported at Gen4 x8: BENCHMARKS.md leaves it "Unresolved"); the llama.cpp / ik_llama rows (not an
//! engine tpsim models). Beyond club-3090 (pages and issues corpora, 2025–2026 runs on vLLM ≥ 0.15 or SGLang
//! ≥ 0.5.6 on RTX PRO 6000 / RTX 5090 / L40S boxes): gigagpu.com's dual-5090 page (round ITL figures, no
//! release or lengths), cloudrift's RTX 4090 / 5090 / PRO 6000 posts (pipeline parallel and replicas, taken
//! or set aside before), evokernel's 4× L40S case (synthesized) and the ai-hpc L40S ×12 pages (commands
//! only) — nothing new with a launch, lengths and a decode figure.
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. [`every_deploys36_row_is_compared`]
//! fails if a row of these sources is added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS36_SOURCES: &[(&str, &str)] = &[
    ("github.com/noonghunna/club-3090 issue 851 ", "Qwen3.6-35B-A3B"),
    ("github.com/noonghunna/club-3090 issue 858 ", "Qwen3.6-35B-A3B"),
];

/// One row: (source prefix, the narrative decode_TPS mean, scenario file, label).
type Row = (&'static str, f64, &'static str, &'static str);

/// The rows, in [`DEPLOYS36_SOURCES`] order.
const ROWS: [Row; 2] = [
    (
        DEPLOYS36_SOURCES[0].0,
        252.01,
        "qwen3.6-35b-a3b-autoround-int4-rtx5090x2-vllm-0.25-tp2-c1.toml",
        "Qwen3.6-35B-A3B AutoRound INT4, vLLM 0.25.1, 2× RTX 5090 TP 2, bench.sh single stream (club-3090 #851)",
    ),
    (
        DEPLOYS36_SOURCES[1].0,
        274.1,
        "qwen3.6-35b-a3b-nvfp4-rtx5090x2-vllm-0.25-tp2-c1.toml",
        "Qwen3.6-35B-A3B NVFP4, vLLM 0.25.1, 2× RTX 5090 TP 2, bench.sh single stream (club-3090 #858)",
    ),
];

/// Compares `row`: the table's figure (checked against the issue's) against 1000 ÷ tpsim's mean TPOT.
fn compare(row: &Row) {
    let (src, decode_tps, file, label) = *row;
    let m = measured_throughput(src, "Qwen3.6-35B-A3B", |_| true);
    assert!((m - decode_tps).abs() < 1e-9, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"]["mean"]));
}

#[test]
pub(crate) fn validation_club3090_rtx5090_x2_vllm_0_25_autoround_int4() {
    // Issue 851's narrative summary: "decode_TPS mean= 252.01 std= 0.19 CV= 0.1%". tpsim (as run on this
    // branch): mean TPOT 4.19 ms → 238.5 tok/s, −5.4 %.
    compare(&ROWS[0]);
}

#[test]
pub(crate) fn validation_club3090_rtx5090_x2_vllm_0_25_nvfp4() {
    // BENCHMARKS.md's issue 858 row: "decode 274.1 / 274.6" (narrative / code). tpsim: mean TPOT 3.76 ms →
    // 265.7 tok/s, −3.1 %.
    compare(&ROWS[1]);
}

/// Each scenario is its compose's launch on the reporter's box: vLLM 0.25.1, TP 2, one sequence, the
/// compose's memory flags, fp8 e4m3 KV, NCCL allreduce (custom allreduce disabled), one stream of 1000
/// output tokens, no speculative decoding.
#[test]
fn scenarios_are_the_composes_launch() {
    for (_, _, file, _) in &ROWS {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        for line in [
            "preset = \"rtx-5090-2x-ryzen-9950x3d-gen5x8\"",
            "preset = \"qwen3.5-35b-a3b\"",
            "version = \"0.25.1\"",
            "allreduce = \"nccl\"",
            "gpu_memory_utilization = 0.92",
            "enable_prefix_caching = true",
        ] {
            assert!(text.contains(&format!("\n{line}\n")), "{file}: no `{line}`");
        }
        assert!(text.contains("kv_cache_dtype = \"fp8_e4m3\""), "{file}");
        club3090_single_stream_launch(&text, file);
    }
}

/// The issues' logged KV pools (BENCHMARKS.md: "KV pool 17.02 GiB / 3,382,054 tok" for issue 851, "16.58 GiB
/// / 3,292,687 tok" for 858) against tpsim's. tpsim leaves out vLLM's CUDA-graph memory estimate (its
/// warning; 0.17-0.36 GiB a rank in the two logs it cites), so its pool is larger; as run, 18.03 GiB /
/// 3,582,634 tokens (+5.9 %) and 17.92 GiB / 3,560,789 (+8.1 %). Held within +10 % of the logged count, and
/// never below it. The larger NVFP4 excess (0.44 GiB less pool than AutoRound's in the logs, 0.11 GiB in
/// tpsim) says the assumed NVFP4 layout is lighter than nvidia's checkpoint by about 0.3 GiB a rank.
/// Since enginemem64 (stop 64) the non-P2P torch group's NCCL start-up pages replace the fitted
/// remainder (`NCCL_P2P_DISABLE=1` here: SHM), less non-torch memory a rank: 3,646,184 (+7.8 %)
/// and 3,626,325 (+10.13 %). The NVFP4 row's bound adds the layout's 0.33 GiB (0.44 − 0.11, from the logs:
/// in sample, a consistency check, not accuracy) over its 16.58 GiB logged pool, 2.0 %: +12 %.
#[test]
fn kv_pools_against_the_logs() {
    for (((_, _, file, label), logged), upper) in
        ROWS.iter().zip([3_382_054.0, 3_292_687.0]).zip([1.10, 1.12])
    {
        let v = run_json(&scenario(&format!("validation/{file}")));
        let tokens = f(&v["memory"]["kv_tokens"]);
        let ratio = tokens / logged;
        assert!(
            (1.0..upper).contains(&ratio),
            "{label}: tpsim {tokens} tokens, {ratio:.4} of the log"
        );
    }
}

#[test]
fn every_deploys36_row_is_compared() {
    // Two rows, one an issue; the tests above compare each once.
    assert_eq!(throughput_rows_per_source(DEPLOYS36_SOURCES), [1, 1]);
}

/// The launch every club-3090 dual-card compose shares (deploys36, deploys37): TP 2, 262,144-token
/// context, one sequence, an 8,192-token batch budget, no speculative decoding; bench.sh's one stream
/// of 1,000 output tokens.
pub(crate) fn club3090_single_stream_launch(text: &str, file: &str) {
    assert!(!text.contains("[speculative]"), "{file}");
    for (key, value) in [
        ("tp", 2),
        ("max_model_len", 262_144),
        ("max_num_seqs", 1),
        ("max_num_batched_tokens", 8192),
        ("concurrency", 1),
        ("output_len", 1000),
    ] {
        assert_eq!(scenario_int_key(text, key), value, "{file}: {key}");
    }
}
