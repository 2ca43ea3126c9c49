//! deploys26 (issue #18): out-of-sample deployment rows from a consumer PCIe box and a source independent
//! of cloudrift and dennislee22 — github.com/er0080/vllm-benchmarking, a vLLM sweep framework whose
//! author ran it on host `ubuntu-llm`: 2× GeForce RTX 3090 on an Intel Core i9-9900K / Z390 desktop, both
//! GPUs on CPU root ports at PCIe 3.0 x8, the stock driver 610.43.02 (no P2P), vLLM 0.25.1
//! (`docs/hardware-verification.md`; the box in `docs/findings/vllm-custom-allreduce-cuda-ipc-p2p.md` §3,
//! read at commit 34246e6). Its first real sweep (2026-08-17): Qwen3.5-9B bf16 at `--tensor-parallel-size`
//! 1 and 2 × `vllm bench serve` max concurrency 4, 16 and 64, two replicates each, served with
//! `--max-model-len 8192 --gpu-memory-utilization 0.90 --max-num-seqs 64` (`docs/tuning-playbook.md`,
//! commit 1949e7f, 2026-08-18). The playbook's "Pareto frontier" table prints each point's per-user rate,
//! 1000 ÷ the mean TPOT; that is the row (`tests/data/throughput.tsv`), compared with 1000 ÷ tpsim's
//! **mean** TPOT under the **default (uncalibrated) profile**, against
//! [`TARGET`](crate::throughput_rows::TARGET) and [`KNOWN_MISSES`](crate::throughput_rows::KNOWN_MISSES).
//! Each point is a scenario (`scenarios/validation/qwen3.5-9b-rtx3090x{1,2}-vllm-0.25-tp*-c*.toml`); the new
//! preset `hardware/rtx-3090-2x-i9-9900k-gen3x8` is the box. The TP 1 points run on one GPU of it: they
//! separate the card's step from the TP 2 collectives.
//!
//! **Assumed**: the prompt and output lengths (the source names neither). At every TP 1 point the output
//! rate is 0.1999 of the total (140 of 703, 359 of 1796, 336 of 1681 tok/s: the playbook's "Response to
//! load" and frontier tables), so a prompt is 4 × its output. The scale: at TP 1 c 4, four streams at
//! 40.8 tok/s would emit 163.2 tok/s and emitted 140, so a request lasts 4 × out ÷ 140 s, of which
//! (out − 1) × 24.5 ms decoding and 0.00407 × out + 0.0245 s waiting for its first token; that mean TTFT
//! stays under the point's p99 TTFT (0.68 s) only for out ≤ 161. 512 in / 128 out is taken
//! ([`lengths_follow_the_sources_token_split`]). The per-user rate depends on this more than the token
//! ratio suggests: at 512/128 tpsim runs the TP 2 c 4 point's four requests in lock-step (their prefills in
//! one step, no prefill inside a decode step: mean TPOT 14.23 ms), at 1024/256 it staggers them (18.71 ms;
//! 2048/512: 18.22 ms). The source's peak KV use at TP 1 c 4, 25 %, was 10.8 % in tpsim's pool (2.98 GiB,
//! 528-token pages) at 512/128; hybpage53 traced it to the pool, not the lengths: vLLM's profile run
//! peaks in the Qwen3-VL vision encoder (tests/tests/hybpage53.rs), and the pool of 1.62 GiB is 20 % full.
//!
//! Searched this round and not taken: the same repository's speculative-decoding sweeps (Qwen3.8-27B-FP8:
//! no preset, MTP), its P2P-patched-driver runs (custom allreduce returned NaN: not a serving figure); the
//! alexander-ollman.github.io dual-3090 Qwen3.6 post and the gitcode.csdn.net 8× RTX 5090 Qwen3.6-27B
//! post (no preset; QPS, not a decode rate); spike.blog.csdn.net 150495514 (Qwen2.5-VL-32B on 4× 48 GB
//! RTX 4090: no preset); the ai-hpc.github.io L40S pages (commands, no results); evokernel-specs' L40S
//! and A100 "cases" (synthesized, its own attestation says so); a Reddit 2× RTX PRO 6000 Qwen3.5-122B post
//! (no preset; NEXTN speculative decoding).
//!
//! VALIDATION, out-of-sample: no constant was fitted to these rows. Each miss's reason (KNOWN_MISSES) gives
//! the measured and predicted step. [`every_deploys26_row_is_compared`] fails if a row of this source is
//! added without a test here.

use crate::common::*;
use crate::throughput_rows::validate;

/// The (source prefix, model) of every row compared in this file; `throughput_rows.rs`'s coverage test
/// accepts a row of `throughput.tsv` that matches one of them.
pub(crate) const DEPLOYS26_SOURCES: &[(&str, &str)] = &[(SRC, "Qwen3.5-9B")];

const SRC: &str = "github.com/er0080/vllm-benchmarking docs/tuning-playbook.md (commit 1949e7f";

/// The rows: (notes prefix, the playbook's per-user rate in tok/s, scenario file, label).
const ROWS: &[(&str, f64, &str, &str)] = &[
    (
        "TP 2 c 4:",
        63.6,
        "qwen3.5-9b-rtx3090x2-vllm-0.25-tp2-c4.toml",
        "Qwen3.5-9B bf16, vLLM 0.25.1, 2× RTX 3090 (i9-9900K, PCIe 3.0 x8, no P2P) TP 2, random 512/128 (assumed) c 4 (per-user, mean TPOT)",
    ),
    (
        "TP 2 c 16:",
        32.3,
        "qwen3.5-9b-rtx3090x2-vllm-0.25-tp2-c16.toml",
        "Qwen3.5-9B bf16, vLLM 0.25.1, 2× RTX 3090 (i9-9900K, PCIe 3.0 x8, no P2P) TP 2, random 512/128 (assumed) c 16 (per-user, mean TPOT)",
    ),
    (
        "TP 2 c 64:",
        12.0,
        "qwen3.5-9b-rtx3090x2-vllm-0.25-tp2-c64.toml",
        "Qwen3.5-9B bf16, vLLM 0.25.1, 2× RTX 3090 (i9-9900K, PCIe 3.0 x8, no P2P) TP 2, random 512/128 (assumed) c 64 (per-user, mean TPOT)",
    ),
    (
        "TP 1 c 4:",
        40.8,
        "qwen3.5-9b-rtx3090x1-vllm-0.25-tp1-c4.toml",
        "Qwen3.5-9B bf16, vLLM 0.25.1, 1× RTX 3090 (i9-9900K box) TP 1, random 512/128 (assumed) c 4 (per-user, mean TPOT)",
    ),
    (
        "TP 1 c 16:",
        29.0,
        "qwen3.5-9b-rtx3090x1-vllm-0.25-tp1-c16.toml",
        "Qwen3.5-9B bf16, vLLM 0.25.1, 1× RTX 3090 (i9-9900K box) TP 1, random 512/128 (assumed) c 16 (per-user, mean TPOT)",
    ),
    (
        "TP 1 c 64:",
        22.9,
        "qwen3.5-9b-rtx3090x1-vllm-0.25-tp1-c64.toml",
        "Qwen3.5-9B bf16, vLLM 0.25.1, 1× RTX 3090 (i9-9900K box) TP 1, random 512/128 (assumed) c 64 (per-user, mean TPOT)",
    ),
];

/// Row `i` of [`ROWS`]: the playbook's per-user rate (1000 ÷ mean TPOT) against 1000 ÷ tpsim's mean TPOT.
fn row(i: usize) {
    let (note, rate, file, label) = ROWS[i];
    let m = measured_throughput(SRC, "Qwen3.5-9B", |n| n.starts_with(note));
    assert!((m - rate).abs() < 0.005, "{label}: {m}");
    let v = run_json(&scenario(&format!("validation/{file}")));
    validate(label, (m, m), 1000.0 / f(&v["serving"]["tpot_ms"]["mean"]));
}

#[test]
pub(crate) fn validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c4() {
    // "TP=2, concurrency 4 | 509 | 63.6": 63.6 tok/s a user, a mean TPOT of 1000 ÷ 63.6 = 15.72 ms.
    row(0);
}

#[test]
pub(crate) fn validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c16() {
    // "TP=2, concurrency 16 | 997 | 32.3": 1000 ÷ 32.3 = 30.96 ms.
    row(1);
}

#[test]
pub(crate) fn validation_qwen3_5_9b_rtx3090x2_vllm_0_25_tp2_c64() {
    // "TP=2, concurrency 64 | 1452 | 12.0"; the traps section prints the mean TPOT, 83.1 ms:
    // 1000 ÷ 83.1 = 12.03 tok/s, the table's 12.0.
    row(2);
}

#[test]
pub(crate) fn validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c4() {
    // "TP=1, concurrency 4 | 703 | 40.8": 1000 ÷ 40.8 = 24.51 ms.
    row(3);
}

#[test]
pub(crate) fn validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c16() {
    // "TP=1, concurrency 16 | 1796 | 29.0": 1000 ÷ 29.0 = 34.48 ms.
    row(4);
}

#[test]
pub(crate) fn validation_qwen3_5_9b_rtx3090x1_vllm_0_25_tp1_c64() {
    // "TP=1, concurrency 64 | 1681 | 22.9"; the traps section's mean TPOT 43.6 ms: 1000 ÷ 43.6 = 22.94.
    row(5);
}

#[test]
fn scenarios_are_the_sweeps_points() {
    // Each scenario: the row's TP and concurrency, 128 prompts ("A p99 over 128 prompts"), the playbook's
    // server flags, vLLM 0.25.1, the er0080 box.
    for &(note, _, file, _) in ROWS {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        let r = throughput_row(SRC, "Qwen3.5-9B", note);
        assert_eq!(scenario_int_key(&text, "tp"), r.tp, "{file}");
        assert_eq!(scenario_int_key(&text, "concurrency"), r.concurrency, "{file}");
        assert_eq!(scenario_int_key(&text, "num_requests"), 128, "{file}");
        assert_eq!(scenario_int_key(&text, "max_model_len"), 8192, "{file}");
        assert_eq!(scenario_int_key(&text, "max_num_seqs"), 64, "{file}");
        assert!(text.contains("\ngpu_memory_utilization = 0.90\n"), "{file}");
        assert!(text.contains("\nname = \"vllm\"\nversion = \"0.25.1\""), "{file}");
        assert!(text.contains("\npreset = \"qwen3.5-9b\"\n"), "{file}");
        assert!(
            text.contains("\npreset = \"rtx-3090-2x-i9-9900k-gen3x8\"\n"),
            "{file}"
        );
    }
}

#[test]
fn lengths_follow_the_sources_token_split() {
    // The source's TP 1 points (output tok/s, total tok/s/GPU): (140, 703), (359, 1796), (336, 1681).
    // Output ÷ total = 0.1991, 0.1999, 0.1999: a prompt is (1 − 0.2) ÷ 0.2 = 4 × its output.
    for (out, total) in [(140.0, 703.0), (359.0, 1796.0), (336.0, 1681.0)] {
        assert!((out / total - 0.2_f64).abs() < 0.001, "{out} / {total}");
    }
    // TP 1 c 4: a request lasts 4 × n ÷ 140 s and decodes (n − 1) × 1 ÷ 40.8 s, so its mean TTFT is
    // n × (4 ÷ 140 − 1 ÷ 40.8) + 1 ÷ 40.8 = 0.00406 × n + 0.0245 s; under the p99 TTFT 0.68 s:
    // n ≤ (0.68 − 0.0245) ÷ 0.00406 = 161.
    let per_token: f64 = 4.0 / 140.0 - 1.0 / 40.8;
    let n_max = ((0.68 - 1.0 / 40.8) / per_token).floor() as u64;
    assert_eq!(n_max, 161);
    for &(_, _, file, _) in ROWS {
        let text = std::fs::read_to_string(scenario(&format!("validation/{file}"))).unwrap();
        let (p, o) = (
            scenario_int_key(&text, "prompt_len"),
            scenario_int_key(&text, "output_len"),
        );
        assert_eq!(p, 4 * o, "{file}");
        assert!(o <= n_max, "{file}: output_len {o}");
    }
}

#[test]
fn the_box_runs_nccl_over_shm() {
    // The stock driver gives the GeForce cards no peer access (`nvidia-smi topo -p2p rw` read GNS until
    // the patch, findings §4.1), so vLLM's custom allreduce is off and NCCL falls back to SHM. The decode
    // allreduce of four tokens: 4 × 4,096 hidden × 2 B = 32,768 B.
    let v = run_json(&scenario("validation/qwen3.5-9b-rtx3090x2-vllm-0.25-tp2-c4.toml"));
    let c = &v["collectives"];
    assert_eq!(c["backend"], "nccl");
    assert_eq!(c["transport"], "shm");
    assert_eq!(c["decode_allreduce_bytes"], 4 * 4096 * 2);
}

#[test]
fn every_deploys26_row_is_compared() {
    // Six rows of one model (three TP 2, three TP 1); the tests above compare each once.
    assert_eq!(ROWS.len(), 6);
    assert_eq!(throughput_rows_per_source(DEPLOYS26_SOURCES), [6]);
}
