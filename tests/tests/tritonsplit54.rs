//! tritonsplit54 (issue #18): SGLang's Triton decode attention as it runs — the KV splits of its
//! stage-1 kernel, the fp32 partials it writes and the stage-2 reduce kernel that re-reads them
//! (`sim/src/decode/passes/sgl_triton_split.rs`, read in the SGLang 0.5.7, 0.5.8 and 0.5.13 wheels).
//! Each test runs one scenario at SGLang 0.5.14 (the last release whose split rule was read) and at
//! 0.5.15 (not read: nothing applied; tpsim's other rules are the same for both, so before this
//! change the two gave the same figures) and checks the difference per decode step by hand.

use crate::common::{f, run_json, scratch};

/// `[hardware]` preset, `[model]` preset, SGLang `version`, concurrency, prompt and output lengths.
fn step_ms(
    hw: &str,
    model: &str,
    version: &str,
    extra: &str,
    conc: u32,
    prompt: u32,
    out: u32,
) -> (f64, f64) {
    let d = scratch(&format!("{model}-{version}"));
    let text = format!(
        "[hardware]\npreset = \"{hw}\"\n[model]\npreset = \"{model}\"\n[engine]\nname = \"sglang\"\n\
         version = \"{version}\"\ntp = 1\n{extra}\n[workload]\nconcurrency = {conc}\nnum_requests = {conc}\n\
         prompt_len = {prompt}\noutput_len = {out}\n"
    );
    let p = d.join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    let j = run_json(&p.display().to_string());
    (
        f(&j["throughput"]["mean_iteration_ms"]),
        f(&j["throughput"]["ttft_ms"]),
    )
}

/// Llama-3.1-8B on one H200 (no `dram_latency_ns`: no tile floor), `attention_backend = "triton"`,
/// one request of 1,024 + 64 tokens. Per decode layer (32 query heads, 8 KV heads → 4 a group, head
/// 128): `get_num_kv_splits_triton` with 132 SMs: ext = 132 × log2(1,024 / 64) = 528 (more at longer
/// context), token_grid = 1 × cdiv(32, min(16, 4)) = 8 → cdiv(528, 8) = 66 → `max_kv_splits` 8 →
/// 8 splits. Partials 1 × 32 × 8 × (128 + 1) × 4 = 132,096 B written by stage 1 (attention op) and
/// read by stage 2 with its output 32 × 128 × 2 = 8,192 B: 140,288 B, plus stage 2's fixed cost
/// (hopper-sxm's fitted 3.0 µs). At 0.80 × 4.8 TB/s = 3.84 TB/s: 132,096 / 3.84e12 = 0.034400 µs,
/// 140,288 / 3.84e12 = 0.036533 µs; (0.034400 + 0.036533 + 3.0) × 32 layers = 98.270 µs a step
/// (0.1 %: the picosecond rounding of each op). The prefill is untouched.
#[test]
fn h200_llama_8b_pays_the_reduce_kernel_and_partials() {
    let run = |v| {
        step_ms(
            "h200-8x-nvlink",
            "llama-3.1-8b",
            v,
            "attention_backend = \"triton\"",
            1,
            1024,
            64,
        )
    };
    let (read, read_ttft) = run("0.5.14");
    let (unread, unread_ttft) = run("0.5.15");
    let expected_us = (132_096.0 / 3.84e12 + 140_288.0 / 3.84e12) * 1e6 * 32.0 + 3.0 * 32.0;
    let got_us = (read - unread) * 1000.0;
    assert!(
        (got_us - expected_us).abs() < 0.001 * expected_us,
        "{got_us} µs vs {expected_us}"
    );
    // The prefill is the same pass in both (integer picoseconds): equal to the femtosecond.
    assert!(
        (read_ttft - unread_ttft).abs() < 1e-9,
        "{read_ttft} vs {unread_ttft}"
    );
}

/// Gemma 4 31B on one MI300X (SGLang's default backend for it there: triton; `max_kv_splits` 16 on
/// HIP; 304 CUs; no `dram_latency_ns`), 16 requests of 1,024 + 32 tokens (decode context 1,024 –
/// 1,055). Sliding layers (50; 32 query heads, 16 KV heads → group 2, head 256, window 1,024 → the
/// split count on 1,024 tokens): ext = 304 × log2(16) = 1,216, token_grid = 16 × cdiv(32, 2) = 256
/// → cdiv(1216, 256) = 5 → 5 splits: partials 16 × 32 × 5 × 257 × 4 = 2,631,680 B, output 16 × 32 ×
/// 256 × 2 = 262,144 B. Full layers (10; 4 KV heads → group 8, head 512): ext ≥ 1,216 (1,229 at
/// 1,055), token_grid = 16 × cdiv(32, 8) = 64 → ≥ 19 → 16 splits: partials 16 × 32 × 16 × 513 × 4 =
/// 16,809,984 B, output 16 × 32 × 512 × 2 = 524,288 B. At 0.72 × 5.3 TB/s = 3.816 TB/s with the
/// gfx942 per-kernel cost 4.3 µs: sliding (2,631,680 + 2,893,824) / 3.816e12 = 1.44798 µs + 4.3 =
/// 5.74798 µs × 50 = 287.399 µs; full (16,809,984 + 17,334,272) / 3.816e12 = 8.94765 µs + 4.3 =
/// 13.24765 × 10 = 132.477 µs; 419.875 µs a step, 1.8 % of tpsim's 22.73 ms step: the split's cost is
/// mostly the second kernel, not the per-request bytes (0.1 %).
#[test]
fn mi300x_gemma4_31b_step_by_hand() {
    let run = |v| {
        step_ms(
            "mi300x-8x-xgmi",
            "gemma-4-31b-it",
            v,
            "mem_fraction_static = 0.8",
            16,
            1024,
            32,
        )
    };
    let (read, _) = run("0.5.14");
    let (unread, _) = run("0.5.15");
    let sliding = (2_631_680.0 + 2_893_824.0) / 3.816e12 * 1e6 + 4.3;
    let full = (16_809_984.0 + 17_334_272.0) / 3.816e12 * 1e6 + 4.3;
    let expected_us = 50.0 * sliding + 10.0 * full;
    let got_us = (read - unread) * 1000.0;
    assert!(
        (got_us - expected_us).abs() < 0.001 * expected_us,
        "{got_us} µs vs {expected_us}"
    );
}
