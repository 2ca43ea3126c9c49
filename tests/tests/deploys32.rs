//! deploys32 (issue #18): multi-GPU tensor-parallel rows on PCIe from a source other than
//! local-inference-lab/rtx6kpro.
//!
//! **cloudrift's deplodock, `experiments/Qwen3.5/Qwen3.5-122B-A10B-FP8/vllm/`** (github.com/cloudrift-ai/deplodock,
//! added by PR #91 as 93e08c10 on 2026-04-08, the files read at 9da9d04): two runs of one recipe, each a
//! `pro6000x8_cl262144_vllm_benchmark.txt` holding vLLM's "Serving Benchmark Result" block, the docker compose
//! that launched the engine, the client command and the box's system information. Qwen/Qwen3.5-122B-A10B-FP8
//! under vLLM (`vllm/vllm-openai`, no tag) at **tensor parallel 8 on 8× RTX PRO 6000 Blackwell Max-Q** in a KVM
//! guest of a Xeon Platinum 8468V whose eight GPUs sit on the guest's root bus (00:10.0-00:17.0): every pair
//! is a host-bridge path, so NCCL at its default P2P level (PXB) takes SHM for every hop
//! (`hardware/rtx-pro-6000-max-q-8x-kvm-xeon-8468v.toml`). Server: `--gpu-memory-utilization=0.8
//! --tensor-parallel-size 8 --max-model-len 262144 --max-num-seqs 64 --enable-prefix-caching
//! --language-model-only`; client: `vllm bench serve --max-concurrency 64 --random-input-len 4000
//! --random-output-len 4000`, 128 prompts in the run of 2026-04-04 (`2026-04-03_20-40-41_7370fb7f`) and 64 in
//! the run of 2026-04-08 (`2026-04-07_21-47-22_7370fb7f`; the same VM, up four days by then).
//!
//! **Assumed** (the files do not say): the release, vLLM 0.19.0 ("latest" then: PyPI upload 2026-04-03 04:05
//! UTC, 0.19.1 on 2026-04-18); the FP8 checkpoint as block FP8 (e4m3, fp32 scale per 128×128 block on the
//! decoder linears) over the `qwen3.5-122b-a10b` preset's bf16 config, as `qwen3.5-397b-a17b-fp8` assumes for
//! the 397B FP8 release; the physical host behind the VM (the guest shows one socket; the 8468V's 8 DDR5-4800
//! channels and the SHM read efficiency borrowed from the Syncopate Genoa box, as cloudrift's bare-metal
//! 8-GPU preset does).
//!
//! **What is compared**: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT, default
//! (uncalibrated) profile, held to [`TARGET`](crate::throughput_rows::TARGET). As run (before the lead
//! re-blesses): 128 prompts +12.1 % (tpsim 27.60 ms against 30.94), 64 prompts +14.5 % (25.72 against 29.45).
//! tpsim's step is MoE 10.70 ms, attention 7.42, allreduce 8.20 (NCCL Ring/LL over SHM), allgather 1.09 a mean
//! iteration of 27.55 ms (64-prompt run): the SHM allreduces are a third of it. Not compared, recorded: the
//! files' median TTFT is 20,304 ms (64 prompts at once) and 3,415 ms (128), tpsim's 7,847 and 1,007 ms — its
//! prefill on this box is 2.6-3.4× fast (the Max-Q template's flat 0.50 FLOP curve, not measured), which also
//! shortens the second wave's prefill chunks inside the 128-prompt run's decode steps.
//!
//! Read and not taken this round: cloudrift-ai/server-benchmark's
//! `results/rtx4900_rtx5900_pro6000_08_10_2025/tensor-parallel/rtx5090_x_4_cpatonn_GLM-4.5-Air-AWQ-4bit_vllm_benchmark.txt`
//! (commit f8e34f1: GLM-4.5-Air AWQ at tensor parallel 4 with expert parallelism on 4× RTX 5090, c 200, output
//! 1,153.51 tok/s, median TPOT 162.22 ms): tpsim refuses tp 4 under the int4 group-128 layout that the
//! repository's other AWQ rows assume (the dense layer's 10,944 / 4 = 2,736 rows per rank are not a multiple
//! of 128), where the engine ran; cpatonn's checkpoint (an llm-compressor export) was not read, and what it
//! leaves unquantized or which group size it uses decides whether tp 4 loads. The same directory's GLM-4.5-Air
//! pipeline-parallel rows (4× RTX 5090 PP 4, 4× RTX 4090 PP 4, 2× L40S PP 2) rest on the same unread layout.
//! kentino.com's "Case Study: 4x RTX 4090 AI Workstation" (Llama 3.3 70B AWQ under vLLM TP 4: the stored text
//! stops before its figures); two reports of an 8× RTX 4090 box (Qwen2.5-14B / 32B under vLLM TP 2 / 4, code
//! index ids 48195622640 and 48068831032: a custom non-streaming client with temperature 0.7 and no stated
//! output lengths, or genai-bench's sonnet dataset with a `--max-running-requests` flag vLLM does not have);
//! the r/LocalLLaMA 4090 / 5090 / PRO 6000 comparison by cloudrift (pipeline parallel, replicas behind nginx:
//! the server-benchmark rows already taken); evokernel's 4× L40S case (its own citation says "synthesized");
//! r/LocalLLaMA 1rrfqlu (Qwen3.5-397B NVFP4 on 4× RTX PRO 6000, TP 4, 50.5 tok/s single stream: Windows 11 + WSL2,
//! a vLLM 0.17.0rc1 nightly, no prompt length); Visual-Synthesizer's 2× RTX PRO 6000 Qwen3.5-122B NVFP4 post (SGLang
//! b12x kernels with NEXTN speculative decoding; its data live in a fork of rtx6kpro, the source this round was
//! to get away from); techhivelabs.net's and dehydratedwater.dev's Qwen3.5 / Qwen3.6 posts on 2 of 4 RTX 3090 at
//! TP 2 under vLLM 0.20.0 (the stored text stops before the figures; AutoRound / AWQ checkpoints and MTP).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. [`every_deploys32_row_is_compared`] fails
//! if a row of this source is added without a test here.

use crate::common::*;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test accepts
/// a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS32_SOURCES: &[(&str, &str)] = &[(SRC_122B, "Qwen3.5-122B-A10B")];

/// The source prefix of the two runs (each row's source continues with its run directory).
const SRC_122B: &str = "github.com/cloudrift-ai/deplodock (files read at 9da9d04; added by PR #91 as 93e08c10) experiments/Qwen3.5/Qwen3.5-122B-A10B-FP8/vllm/";

/// The runs: (prompts, the file's median TPOT in ms, the run directory).
const RUNS_122B: &[(u64, f64, &str)] = &[
    (128, 30.94, "2026-04-03_20-40-41_7370fb7f"),
    (64, 29.45, "2026-04-07_21-47-22_7370fb7f"),
];

/// The scenario of the run of `np` prompts.
fn file_122b(np: u64) -> String {
    format!("qwen3.5-122b-a10b-fp8-pro6000maxqx8-vllm-0.19-tp8-4k4k-c64-np{np}.toml")
}

/// The notes prefix of the run of `np` prompts.
fn note_122b(np: u64) -> String {
    format!("8x RTX PRO 6000 Max-Q TP 8 random 4000/4000 c 64, {np} prompts:")
}

/// The label [`validate`](crate::throughput_rows::validate) files the run of `np` prompts under.
pub(crate) fn label_122b(np: u64) -> String {
    format!(
        "Qwen3.5-122B-A10B FP8, vLLM 0.19.0 (latest), 8× RTX PRO 6000 Max-Q TP 8 (KVM guest, SHM), random 4k/4k c 64, {np} prompts (per-stream TPOT)"
    )
}

/// Compares run `i` of [`RUNS_122B`]: 1000 ÷ the file's median TPOT against 1000 ÷ tpsim's median TPOT.
fn compare_122b(i: usize) {
    let (np, tpot_ms, _) = RUNS_122B[i];
    compare_tpot_row(
        (SRC_122B, "Qwen3.5-122B-A10B", &note_122b(np)),
        tpot_ms,
        &file_122b(np),
        &label_122b(np),
    );
}

#[test]
pub(crate) fn validation_qwen3_5_122b_fp8_vllm_pro6000maxqx8_tp8_4k4k_c64_np128() {
    // Median TPOT 30.94 ms → 1000 ÷ 30.94 = 32.32 tok/s a stream.
    compare_122b(0);
}

#[test]
pub(crate) fn validation_qwen3_5_122b_fp8_vllm_pro6000maxqx8_tp8_4k4k_c64_np64() {
    // Median TPOT 29.45 ms → 1000 ÷ 29.45 = 33.96 tok/s a stream.
    compare_122b(1);
}

/// Each scenario runs its file's launch and client: tp 8, max_num_seqs 64, gpu_memory_utilization 0.8,
/// max_model_len 262,144, 64 in flight, the run's prompt count, 4,000 in and 4,000 out; each row's source
/// names its run directory and its notes the same median TPOT.
#[test]
fn scenarios_run_the_files_launch_and_client() {
    for &(np, tpot_ms, dir) in RUNS_122B {
        let text =
            std::fs::read_to_string(scenario(&format!("validation/{}", file_122b(np)))).expect("scenario");
        assert_eq!(scenario_int_key(&text, "tp"), 8, "np {np}");
        assert_eq!(scenario_int_key(&text, "max_num_seqs"), 64, "np {np}");
        assert_eq!(scenario_int_key(&text, "max_model_len"), 262_144, "np {np}");
        assert_eq!(scenario_int_key(&text, "concurrency"), 64, "np {np}");
        assert_eq!(scenario_int_key(&text, "num_requests"), np, "np {np}");
        assert_eq!(scenario_int_key(&text, "prompt_len"), 4000, "np {np}");
        assert_eq!(scenario_int_key(&text, "output_len"), 4000, "np {np}");
        assert!(text.contains("gpu_memory_utilization = 0.8\n"), "np {np}");
        assert!(text.contains("version = \"0.19.0\""), "np {np}");
        assert!(
            text.contains("preset = \"rtx-pro-6000-max-q-8x-kvm-xeon-8468v\""),
            "np {np}"
        );
        let src = format!("{SRC_122B}{dir}, pro6000x8_cl262144_vllm_benchmark.txt");
        let note = format!("{} 1000 / median TPOT {tpot_ms:.2} ms", note_122b(np));
        let m = measured_throughput(&src, "Qwen3.5-122B-A10B", |n| n.starts_with(&note));
        // 1000 ÷ 30.94 = 32.32, 1000 ÷ 29.45 = 33.96: two decimals in the table.
        assert!((m - 1000.0 / tpot_ms).abs() < 0.005, "np {np}: {m}");
    }
}

/// The VM's GPUs share one root bus, so every pair is a host-bridge path and NCCL (default P2P level PXB)
/// moves the decode allreduce over SHM. By hand: 64 running × hidden 3,072 × 2 B (bf16) = 393,216 B a decode
/// allreduce, and 2 a layer × 48 layers + 1 (the vocabulary-parallel embedding) = 97 a pass. Fails if the
/// topology stops meaning SHM here or the per-pass count or size changes.
#[test]
fn vm_root_bus_allreduces_over_shm() {
    let v = run_json(&scenario(&format!("validation/{}", file_122b(64))));
    let c = &v["collectives"];
    assert_eq!(c["transport"], "shm", "{c}");
    assert_eq!(c["p2p_level"], "PXB", "{c}");
    assert_eq!(c["decode_allreduce_bytes"].as_u64(), Some(64 * 3072 * 2), "{c}");
    assert_eq!(c["allreduces_per_pass"].as_u64(), Some(2 * 48 + 1), "{c}");
}

/// The two runs differ only in their prompt count: with 128 prompts at 64 in flight, the second wave's
/// 4,000-token prefills land in the first wave's decode steps, so the median request's TPOT is longer — the
/// files: 30.94 against 29.45 ms (+5.1 %). tpsim as run: 27.60 against 25.72 ms (+7.3 %). Fails if tpsim's
/// 128-prompt median TPOT is not at least 2 % over its 64-prompt one.
#[test]
fn second_wave_lengthens_the_median_tpot() {
    let tpot = |np: u64| {
        f(&run_json(&scenario(&format!("validation/{}", file_122b(np))))["serving"]["tpot_ms"]["p50"])
    };
    let (t128, t64) = (tpot(128), tpot(64));
    assert!(
        t128 > t64 * 1.02,
        "tpsim 128 prompts {t128} ms, 64 prompts {t64} ms"
    );
    // The files: 30.94 / 29.45 = 1.051.
    assert!(RUNS_122B[0].1 / RUNS_122B[1].1 > 1.02);
}

/// The release is assumed ("latest" on 2026-04-04 and 04-08: vLLM 0.19.0 by the PyPI dates; 0.18.1 if the image
/// lagged). tpsim's step on this box does not depend on which: as run, median TPOT 25.72 ms under 0.19.0 and under
/// 0.18.1 (and 0.17.1; 25.69 under 0.20.0). Fails if the 64-prompt run under 0.18.1 moves more than 1 % from
/// 0.19.0's, i.e. if a rule tpsim models by release starts to matter for this row (then the assumption must be
/// argued, not just stated).
#[test]
fn the_assumed_release_does_not_move_the_row() {
    let path = scenario(&format!("validation/{}", file_122b(64)));
    let text = std::fs::read_to_string(&path).expect("scenario");
    let older = text.replace("version = \"0.19.0\"", "version = \"0.18.1\"");
    assert_ne!(older, text);
    let dir = scratch("release");
    let older_path = dir.join("np64-0.18.1.toml");
    // The hardware and model presets are named, not pathed, so the copy resolves from any folder.
    std::fs::write(&older_path, older).expect("write");
    let t19 = f(&run_json(&path)["serving"]["tpot_ms"]["p50"]);
    let t18 = f(&run_json(older_path.to_str().expect("utf-8"))["serving"]["tpot_ms"]["p50"]);
    assert!((t18 / t19 - 1.0).abs() < 0.01, "0.19.0 {t19} ms, 0.18.1 {t18} ms");
}

#[test]
fn every_deploys32_row_is_compared() {
    // Two runs (128 and 64 prompts); the tests above compare each once.
    assert_eq!(RUNS_122B.len(), 2);
    assert_eq!(throughput_rows_per_source(DEPLOYS32_SOURCES), [2]);
}
