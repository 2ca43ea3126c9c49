//! The Ampere templates' decode `mem_efficiency` (templates/a100-sxm4.toml, inherited by the A100
//! PCIe and assumed for the A30) is DERIVED, not fitted to a validation row: pytorch-labs/gpt-fast's
//! README measures Llama-2-7B bf16 at batch 1 on an A100-80GB (power limited to 330 W) at 104.9 tok/s,
//! i.e. 1000 ÷ 104.9 = 9.533 ms per token. tpsim's step of that run (codellama-7b: Llama-2-7B's
//! shapes; 1× A100 SXM4 80GB; a 5-token prompt, 200 output tokens) is streaming ÷ efficiency plus
//! kernel overhead, so the efficiency that reproduces 9.533 ms is streaming ÷ (9.533 − overhead).
//! Hand computation (release build, 2026-12): TPOT 6.54 ms at efficiency 1.0 without kernel overhead,
//! 7.12 ms with the template's 2 µs → 6.54 ÷ (9.533 − 0.58) = 0.7295 → 0.73. Since vllmfusion each of
//! the 32 layers also launches vLLM's KV-cache store (`reshape_and_cache_flash`): 32 × 2 µs = 0.064 ms
//! more overhead, 6.54 ÷ (9.533 − 0.644) = 0.7357; the template keeps 0.73, which still reproduces the
//! measured step within 1 % (checked below). In-sample by construction: this recomputes the
//! derivation, it validates nothing.

use crate::common::*;

/// gpt-fast README, "Benchmarks run on an A100-80GB, power limited to 330W": Llama-2-7B Base.
const GPT_FAST_LLAMA2_7B_TOK_S: f64 = 104.9;

/// TPOT p50 (ms) of the gpt-fast run as tpsim costs it, with `params` lines in `[hardware.params]`.
fn tpot_ms(params: &str, tag: &str) -> f64 {
    let text = format!(
        "seed = 1\n[hardware]\npreset = \"a100-sxm4-80gb-1x\"\n[hardware.params]\n{params}\n\
         [model]\npreset = \"codellama-7b\"\n[engine]\nname = \"vllm\"\ntp = 1\n\
         [workload]\nconcurrency = 1\nnum_requests = 1\nprompt_len = 5\noutput_len = 200\n"
    );
    let p = scratch(tag).join("s.toml");
    std::fs::write(&p, text).expect("write");
    let v = run_json(p.to_str().expect("utf-8"));
    f(&v["serving"]["tpot_ms"]["p50"])
}

#[test]
fn ampere_mem_efficiency_derivation() {
    let measured = 1000.0 / GPT_FAST_LLAMA2_7B_TOK_S; // 9.533 ms
    let stream = tpot_ms("mem_efficiency = 1.0\nkernel_overhead = \"0us\"", "stream");
    let with_overhead = tpot_ms("mem_efficiency = 1.0", "overhead");
    let overhead = with_overhead - stream;
    let derived = stream / (measured - overhead);
    // The hand computation above: 0.7357 (±0.005: the TPOT percentiles' 0.01 ms rounding).
    assert!((derived - 0.7357).abs() < 0.005, "derived {derived}");
    // The template's rounded 0.73 reproduces the measured step within 1 %.
    let template = tpot_ms("", "template");
    assert!(
        (template / measured - 1.0).abs() < 0.01,
        "template {template} ms vs measured {measured} ms"
    );
}
