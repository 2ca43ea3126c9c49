//! b200_59 (issue #18): the B200 per-step gap is SGLang's, not the B200 template's.
//!
//! Every SGLang decode row on B200 with 16-bit, block-FP8 or ModelOpt NVFP4 experts is optimistic
//! in tpsim (+26 to +85 %), while every vLLM row on the same template is within ±13 %
//! (book/src/validation.md, "The B200 step (b200_59)"). The controlled pair is deploys28's: one
//! 8× B200 guest, nvidia/Kimi-K2.5-NVFP4, random 8000/8000 at one stream, vLLM 0.17.0 and SGLang
//! 0.5.9 from the same compose recipe (github.com/cloudrift-ai/deplodock,
//! `experiments/Kimi-K2.5/baseline_b200/2026-03-13_19-40-32_c599125b`): median TPOT 6.77 and
//! 11.80 ms, a ratio of 1.743. These tests hold the decomposition's two claims against the
//! simulator, so the book's reasoning fails loudly if the model moves under it:
//!
//! 1. no template constant moves tpsim's SGLang / vLLM step ratio toward the measured one: the
//!    two engines' steps share the GPU's bandwidth efficiency and per-kernel cost, so they scale
//!    together;
//! 2. the per-kernel cost that brings the SGLang rows within ±20 % (5 µs, against the borrowed
//!    Hopper fit of 3 µs) pushes the controls out: the vLLM row of the pair and SGLang's own
//!    gpt-oss-120b row (FlashInfer's MXFP4 MoE, within today).

use crate::common::*;

/// The pair's source prefix in `tests/data/throughput.tsv` (deploys28's rows).
const PAIR: &str = "github.com/cloudrift-ai/deplodock (read at ef84dbe) experiments/Kimi-K2.5/baseline_b200/2026-03-13_19-40-32_c599125b, b200x8_";

/// The pair's scenarios: (source suffix, scenario file under `validation/`).
const VLLM: (&str, &str) = ("vi-vllm", "kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c1.toml");
const SGLANG: (&str, &str) = (
    "si-lms-sglang",
    "kimi-k2.5-nvfp4-b200x8-sglang-0.5.9-tp8-8k8k-c1.toml",
);

/// SGLang's gpt-oss-120b row on 8× B200 (newdeploys17: the sgl-cookbook's GPT-OSS page, 0.5.6,
/// ShareGPT at one stream, median TPOT 2.31 ms).
const GPT_OSS: (&str, &str, &str) = (
    "github.com/sgl-project/sgl-cookbook docs/autoregressive/OpenAI/GPT-OSS.md",
    "gpt-oss-120b",
    "gpt-oss-120b-b200x8-sglang-0.5.6-tp8-sharegpt-c1.toml",
);

/// The measured output rate (tok/s, 1000 ÷ median TPOT) of the pair's row for `suffix`.
fn pair_measured(suffix: &str) -> f64 {
    measured_throughput(&format!("{PAIR}{suffix}"), "Kimi-K2.5", |n| {
        n.starts_with("8x B200 TP 8 random 8000/8000 c 1:")
    })
}

/// tpsim's median TPOT (ms) for `validation/FILE` with `params` (TOML lines under `[hardware]`,
/// e.g. `params.kernel_overhead = "5us"`; empty: the bundled template), run from scratch `name`.
fn tpot(file: &str, name: &str, params: &str) -> f64 {
    let path = if params.is_empty() {
        scenario(&format!("validation/{file}"))
    } else {
        edited_variant(&format!("validation/{file}"), name, |t| {
            t.replacen("[hardware]\n", &format!("[hardware]\n{params}\n"), 1)
        })
    };
    f(&run_json(&path)["serving"]["tpot_ms"]["p50"])
}

/// Signed error of tpsim's rate against the measured one: (1000 / tpot) / measured − 1.
fn error(measured_tok_s: f64, tpot_ms: f64) -> f64 {
    1000.0 / tpot_ms / measured_tok_s - 1.0
}

/// Claim 1. Measured: 1000 / 6.77 = 147.71 and 1000 / 11.80 = 84.75 tok/s (the rows, ± 0.005), a
/// ratio of 1.743. tpsim's SGLang / vLLM TPOT ratio at the bundled template (3 µs a kernel, 0.80 of
/// 7.67 TB/s) was 7.84 / 6.04 = 1.298, at `kernel_overhead = "5us"` 12.21 / 9.20 = 1.327 and at
/// `mem_efficiency = 0.6` 8.15 / 6.36 = 1.281 (`tpsim run --json`, b200_59): the template's two
/// borrowed constants move the ratio by 0.03 where the pair needs 0.44. Asserted: every ratio in
/// [1.20, 1.40], at least 0.34 under the measured one.
#[test]
fn template_constants_leave_the_engine_ratio() {
    let (v, s) = (pair_measured(VLLM.0), pair_measured(SGLANG.0));
    assert!((v - 147.71).abs() < 0.005 && (s - 84.75).abs() < 0.005, "{v} {s}");
    let measured = v / s;
    assert!((measured - 1.743).abs() < 0.001, "{measured}");
    for (name, params) in [
        ("bundled", ""),
        ("ko5", "params.kernel_overhead = \"5us\""),
        ("mem06", "params.mem_efficiency = 0.6"),
    ] {
        let ratio = tpot(SGLANG.1, &format!("{name}-s"), params) / tpot(VLLM.1, &format!("{name}-v"), params);
        assert!((1.20..=1.40).contains(&ratio), "{name}: {ratio}");
        assert!(measured - ratio > 0.34, "{name}: {ratio}");
    }
}

/// Claim 2. At `kernel_overhead = "5us"` tpsim's SGLang Kimi row comes within (11.80 against 12.21
/// ms, −3.3 %), but the vLLM row of the same box falls to 6.77 against 9.20 ms (−26.4 %) and SGLang's
/// gpt-oss-120b row to 2.31 against 3.04 ms (−24.0 %) (`tpsim run --json`, b200_59; the bundled
/// template gives +12.0 % and +18.4 %). Asserted: the SGLang row within ±20 %, both controls below
/// −20 % — a per-kernel cost that explains the SGLang step breaks the rows that now fit.
#[test]
fn a_per_kernel_cost_that_fits_sglang_breaks_the_controls() {
    let ko5 = "params.kernel_overhead = \"5us\"";
    let sglang = error(pair_measured(SGLANG.0), tpot(SGLANG.1, "fit-s", ko5));
    let vllm = error(pair_measured(VLLM.0), tpot(VLLM.1, "fit-v", ko5));
    let gpt_oss_measured = measured_throughput(GPT_OSS.0, GPT_OSS.1, |n| {
        n.starts_with("8x B200 TP 8 ShareGPT c 1:")
    });
    assert!(
        (gpt_oss_measured - 1000.0 / 2.31).abs() < 0.005,
        "{gpt_oss_measured}"
    );
    let gpt_oss = error(gpt_oss_measured, tpot(GPT_OSS.2, "fit-g", ko5));
    assert!(sglang.abs() < 0.20, "SGLang Kimi c 1 at 5 µs: {sglang}");
    assert!(vllm < -0.20, "vLLM Kimi c 1 at 5 µs: {vllm}");
    assert!(gpt_oss < -0.20, "SGLang gpt-oss c 1 at 5 µs: {gpt_oss}");
}
