//! Qwen3.5-397B-A17B with its own MTP layer under vLLM (`method = "mtp"`, `num_speculative_tokens = 2`)
//! on 4× RTX PRO 6000 Blackwell against `tests/data/throughput.tsv` lines 9–20 (rtx6kpro
//! benchmarks/results.md "Qwen3.5 MTP Scaling": a vLLM nightly, page dated 2026-03-09, nvidia NVFP4, TP 4,
//! each concurrency measured without MTP and with MTP=2 in one series).
//!
//! Setup as `throughput_qwen35` (default uncalibrated profile of `rtx-pro-6000-4x-turin-same-numa`,
//! `qwen3.5-397b-a17b-nvfp4`, `NCCL_P2P_LEVEL = SYS`, 1024-token prompts, 512 output tokens: the source
//! states "1K context" and no output length), with `engine.version = "0.17.0"`: the first release with
//! `qwen3_5_mtp.py` (the rows ran a nightly that already had it; the page was first committed 2026-03-09).
//!
//! MoE backend (sm120decode): `engine.moe_backend = "flashinfer_cutlass"`, what vLLM's NVFP4 MoE oracle
//! (`fused_moe/oracle/nvfp4.py`) reaches on SM 12.0 in the March-2026 nightlies (its TRTLLM and CuteDSL
//! kernels are SM 10.0 only; the b12x wrapper came later): the template's `[compute.moe_backends]`
//! overhead, derived from SGLang rows of another page section (`moe_backend_sm120`), not from these.
//!
//! Acceptance: the profile `qwen3.5-397b-mtp-vllm-rtx6kpro`, which restates the same source's measured
//! 89.2 % (accept length 2.784, `tests/data/spec-decode.tsv` line 497) over these very runs: the
//! acceptance is an input here, not something validated. Its workload is the rows' own (same runs), one
//! figure for all concurrencies (the source's 32-request log line reads 2.82, line 498).
//!
//! VALIDATION, out-of-sample (nothing fitted to these rows but the acceptance above):
//! - the MTP ÷ none ratio per concurrency, predicted (`output_tok_s ÷ spec.tok_s_without_spec` of one
//!   run) against measured (1.52, 1.55, 1.53, 1.72, 1.51, 1.52): this checks the speculation model (draft
//!   passes, the verify of 3 tokens per request) apart from the absolute kernel-speed miss, held to
//!   the project's ±20 % target; misses are listed in [`RATIO_MISSES`] with their reason;
//! - the absolute MTP rows (and results.md's single-batch vLLM MTP=2 row, line 6) through
//!   [`crate::throughput_rows::validate`] (listed as known misses there, like the no-MTP rows of the
//!   same series).

use crate::common::*;
use crate::throughput_rows::{TARGET, validate};

/// MTP ÷ none ratios outside [`TARGET`], with the reason (book/src/validation.md, "Known misses").
const RATIO_MISSES: &[(u32, &str)] = &[(
    1,
    "with the FlashInfer CUTLASS MoE overhead (sm120decode) the no-MTP step pays 3.82 ms per token and the MTP step the same per 2.78 tokens, so tpsim's gain rises to 1.93 (1.69 without the overhead, +11.5 %); the measured 1.515 says the MTP step costs 1.84x a plain one, which the verify and draft passes as modelled (1.44x) do not reach: the speculative step's extra cost is not modelled",
)];

/// The vLLM Qwen3.5 scenario at `batch` concurrent requests with `spec` appended; returns its path.
fn scenario(name: &str, version: &str, batch: u32, spec: &str) -> String {
    let text = format!(
        "seed = 1\n\n[hardware]\npreset = \"rtx-pro-6000-4x-turin-same-numa\"\n\n[model]\n\
         preset = \"qwen3.5-397b-a17b-nvfp4\"\n\n[engine]\nname = \"vllm\"\nversion = \"{version}\"\ntp = 4\n\
         moe_backend = \"flashinfer_cutlass\"\n\n\
         [engine.env]\nNCCL_P2P_LEVEL = \"SYS\"\n\n{spec}[workload]\nconcurrency = {batch}\n\
         prompt_len = 1024\noutput_len = 512\n"
    );
    let p = scratch(&format!("qwen35-mtp-{name}-{batch}")).join("s.toml");
    std::fs::write(&p, text).expect("write scenario");
    p.display().to_string()
}

const MTP2: &str = "[speculative]\nalgorithm = \"mtp\"\nnum_speculative_tokens = 2\n\
                    acceptance = { profile = \"qwen3.5-397b-mtp-vllm-rtx6kpro\" }\n\n";

/// (concurrency, measured none, measured MTP=2): throughput.tsv lines 9–20, aggregate tok/s.
const ROWS: [(u32, f64, f64); 6] = [
    (1, 85.8, 130.0),
    (2, 137.1, 212.7),
    (5, 234.2, 358.6),
    (10, 334.3, 573.5),
    (20, 491.5, 744.1),
    (32, 605.9, 922.6),
];

#[test]
fn validation_vllm_mtp2_ratio_and_absolute() {
    let mut misses = Vec::new();
    for (batch, none, mtp) in ROWS {
        let j = run_json(&scenario("ratio", "0.17.0", batch, MTP2));
        let with = f(&j["throughput"]["output_tok_s"]);
        let without = f(&j["spec"]["tok_s_without_spec"]);
        let (pred, meas) = (with / without, mtp / none);
        let err = pred / meas - 1.0;
        let listed = RATIO_MISSES.iter().find(|(b, _)| *b == batch);
        println!(
            "Qwen3.5 NVFP4, vLLM MTP=2 ÷ none, bs {batch}: measured {meas:.3}, predicted {pred:.3} \
             ({with:.1} ÷ {without:.1} tok/s), error {:+.1} %",
            err * 100.0
        );
        match (err.abs() <= TARGET, listed) {
            (true, Some(_)) => misses.push(format!("bs {batch}: now within ±20 %: unlist it")),
            (false, None) => misses.push(format!(
                "bs {batch}: ratio {pred:.3} vs {meas:.3} ({:+.1} %)",
                err * 100.0
            )),
            _ => {}
        }
        validate(
            &format!("Qwen3.5 NVFP4, vLLM MTP-scaling MTP=2, bs {batch}"),
            (mtp, mtp),
            with,
        );
        if batch == 1 {
            // benchmarks/results.md single-batch table, vLLM, NVFP4, MTP=2: 130 (malaiwah; throughput.tsv
            // line 6, the same figure as the series' batch-1 row).
            validate("Qwen3.5 NVFP4, vLLM results.md MTP=2, bs 1", (130.0, 130.0), with);
        }
    }
    assert!(misses.is_empty(), "{misses:?}");
}

#[test]
fn vllm_mtp_draft_shares_the_head_and_splits_fc() {
    // vLLM ≥ 0.17 loads Qwen3.5's MTP layer as SGLang's figure (3,353,396,224 B per rank at tp 4,
    // throughput_qwen35::mtp_draft_is_the_bf16_mtp_layer) less the replicated fc (2 × 4096 × 4096 × 2 =
    // 67,108,864 B) plus its ColumnParallelLinear quarter (16,777,216 B); embedding and LM head are the
    // target's (`llm_base_proposer.py` "Sharing target model … weights with the draft model").
    let j = run_json(&scenario("mem", "0.17.0", 1, MTP2));
    let draft = entry_bytes(&j, "draft weights");
    assert_eq!(draft, 3_353_396_224 - 67_108_864 + 16_777_216);
    // vLLM's warning for k > 1, as later builds print it.
    assert!(
        j["warnings"]
            .to_string()
            .contains("will run multiple times of forward on same MTP")
    );
    // The profile restates the measured 2.784 (spec-decode.tsv line 497); 6-digit rate: ±1e-4.
    let tau = f(&j["spec"]["expected_accept_len"]);
    assert!((tau - 2.784_222).abs() < 1e-4, "{tau}");
}

#[test]
fn vllm_0_11_refuses_qwen35_mtp() {
    // vLLM 0.11.0 has no qwen3_5_mtp module: its method detection falls
    // through to "draft_model", which it refuses (exit 2, vLLM's text and why).
    let o = tpsim(&["run", &scenario("refuse", "0.11.0", 1, MTP2)]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr
            .contains("Speculative decoding with draft model is not supported yet")
            && o.stderr.contains("qwen3_5_mtp")
            && o.stderr.contains("0.17.0"),
        "{}",
        o.stderr
    );
}
