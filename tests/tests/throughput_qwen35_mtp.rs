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
    "the measured MTP=2 step costs 1.84x a plain one (2.784 accepted tokens at 130 tok/s = 21.42 ms against \
     11.66 ms), tpsim's 1.43x; no piece of vLLM 0.17's MTP step is left out (vllmmtp: book/src/validation.md, \
     \"The vLLM 0.17 MTP step\"): the series' own no-MTP rows cost 2.93 ms per added request from batch 1 \
     to 2 where tpsim costs 0.88 (the same page's voipmonitor run 1.28), and the verify's two extra tokens \
     at that cost give 21.08 ms (-1.6 %); the series' steep batch cost is the no-MTP rows' unexplained miss",
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
pub(crate) fn validation_vllm_mtp2_ratio_and_absolute() {
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
    // vLLM 0.11.0 has no qwen3_5_mtp module (its method detection would fall through to
    // "draft_model"); since release52 it is refused first for the model itself: 0.11.0's registry has
    // no Qwen3.5 class (registered from 0.17.0, with `qwen3_5_mtp`), exit 2 naming the key.
    let o = tpsim(&["run", &scenario("refuse", "0.11.0", 1, MTP2)]);
    assert_eq!(o.code, 2, "{}", o.stderr);
    assert!(
        o.stderr.contains(
            "key `engine.version`: vLLM 0.11.0 has no registry entries for Qwen3_5ForConditionalGeneration"
        ) && o.stderr.contains("vLLM registers them from 0.17.0"),
        "{}",
        o.stderr
    );
}

/// Issue #18/#17 (vllmmtp): the MTP=2 step against the plain step, by hand from the rows, and why
/// tpsim's is cheaper at batch 1.
///
/// Measured (throughput.tsv lines 9-20, spec-decode.tsv line 497): a plain step is `b / none` s, an MTP
/// step `b × τ / mtp` s with τ = 1 + 2 × 147,689 / 165,550 = 2.78422 accepted tokens per step (the
/// acceptance over the whole series; the source gives no per-concurrency figure). Hand values (ms):
/// bs 1 11.655 / 21.417 = 1.8376; bs 2 14.588 / 26.180 = 1.7946; bs 5 21.349 / 38.821 = 1.8184;
/// bs 10 29.913 / 48.548 = 1.6230; bs 20 40.692 / 74.835 = 1.8391; bs 32 52.814 / 96.570 = 1.8285.
/// The measured ratio is flat (1.79-1.84 but for bs 10) where tpsim's grows with the batch (1.43 at
/// bs 1: a verify of 3 tokens is cheap next to the batch-1 weight read).
///
/// The batch-1 gap is the series' cost per added token: its no-MTP rows cost 14.588 − 11.655 = 2.933 ms
/// more at 2 requests than at 1, tpsim 0.875 ms (the same page's voipmonitor vLLM run,
/// moe-backend-sm120.tsv lines 16-17: 2000/131.2 − 1000/71.6 = 1.277 ms). Costing the verify's two
/// extra tokens at the series' own figure instead of tpsim's (per request ≈ per token here: at ~1K
/// context the MoE expert reads, not the KV, set the added cost; an assumption, stated): 16.960 + 2 ×
/// (2.933 − 0.875) = 21.076 ms against 21.417 measured (−1.6 %). Held to ±5 %: the check of this
/// decomposition, not of a prediction (it borrows the same series' no-MTP rows, in-sample).
#[test]
fn mtp_step_ratio_by_hand_and_the_series_cost_per_token() {
    let tau: f64 = 1.0 + 2.0 * 147_689.0 / 165_550.0;
    assert!((tau - 2.784_222).abs() < 1e-6, "{tau}");
    let hand = [1.8376, 1.7946, 1.8184, 1.6230, 1.8391, 1.8285];
    for ((batch, none, mtp), h) in ROWS.into_iter().zip(hand) {
        let b = f64::from(batch);
        let ratio = (b * tau / mtp) / (b / none);
        assert!((ratio - h).abs() < 1e-4, "bs {batch}: {ratio} vs {h}");
    }
    let j1 = run_json(&scenario("step", "0.17.0", 1, MTP2));
    let j2 = run_json(&scenario("step", "0.17.0", 2, MTP2));
    let (iter1, plain1) = (f(&j1["spec"]["iteration_ms"]), f(&j1["spec"]["plain_step_ms"]));
    let plain2 = f(&j2["spec"]["plain_step_ms"]);
    let measured_step = 1e3 * tau / 130.0;
    let series_per_token: f64 = 1e3 * (2.0 / 137.1 - 1.0 / 85.8);
    assert!((series_per_token - 2.9329).abs() < 1e-3, "{series_per_token}");
    let tpsim_per_token = plain2 - plain1;
    let adjusted = iter1 + 2.0 * (series_per_token - tpsim_per_token);
    println!(
        "Qwen3.5 NVFP4, vLLM MTP=2 step at bs 1: measured {measured_step:.3} ms = {:.3} x plain; tpsim \
         {iter1:.3} ms = {:.3} x plain {plain1:.3} ms; per added token: series {series_per_token:.3} ms, \
         tpsim {tpsim_per_token:.3} ms; tpsim with the series' per-token cost {adjusted:.3} ms = {:.3} x \
         ({:+.1} %)",
        measured_step / (1e3 / 85.8),
        iter1 / plain1,
        adjusted / plain1,
        (adjusted / measured_step - 1.0) * 100.0
    );
    // tpsim's own step ratio stays below the measured one by more than the target: listed above.
    assert!(iter1 / plain1 < 1.8376 * (1.0 - TARGET), "{}", iter1 / plain1);
    assert!(
        (adjusted / measured_step - 1.0).abs() < 0.05,
        "{adjusted} vs {measured_step}"
    );
}

/// Issue #18/#17 (vllmmtp): the draft passes as vLLM 0.17.0 runs them for nvidia's NVFP4 checkpoint.
///
/// - The MTP layer's MoE is BF16: the checkpoint stores the whole MTP branch in BF16 and its
///   `hf_quant_config.json` excludes `mtp.layers.0*` (vllm-project/vllm PR 38832), so vLLM builds it
///   with its unquantized MoE kernel, not FlashInfer's CUTLASS NVFP4 one: switching `engine.moe_backend`
///   from `b12x` (0 µs) to `flashinfer_cutlass` (63.66 µs, the template's `[compute.moe_backends]`) adds
///   exactly 63.66 µs to every verify MoE layer and nothing to the draft's.
/// - Each draft token's logits cover the full vocabulary (`eagle.py` `_greedy_sample`:
///   `compute_logits(…).argmax(dim=-1)`; Qwen3.5's MTP has no draft vocabulary): draft 2's LM head, one
///   row, costs what the plain step's one-row LM head costs, the whole 248,320 × 4,096 bf16 shard.
#[test]
fn vllm_mtp_draft_moe_unquantized_and_full_vocab_head() {
    let first_shape = |backend: &str, spec: &str| {
        let text = std::fs::read_to_string(scenario(backend, "0.17.0", 1, spec))
            .expect("scenario")
            .replace(
                "moe_backend = \"flashinfer_cutlass\"",
                &format!("moe_backend = \"{backend}\""),
            );
        let p = scratch(&format!("qwen35-mtp-draftmoe-{backend}-{}", spec.len())).join("s.toml");
        std::fs::write(&p, text).expect("write scenario");
        let s = tpsim::load(std::path::Path::new(&p)).expect("scenario");
        tpsim::predict(&s).expect("predict")
    };
    let dur = |pred: &tpsim::decode::Prediction, name: &str| -> f64 {
        pred.trace_shapes
            .iter()
            .flat_map(|sh| sh.graph.iter())
            .find(|(_, t)| t.name == name)
            .unwrap_or_else(|| panic!("no task {name}"))
            .1
            .duration
            .as_us_f64()
    };
    let (cutlass, b12x) = (first_shape("flashinfer_cutlass", MTP2), first_shape("b12x", MTP2));
    for layer in ["L0", "L30", "L59"] {
        let name = format!("verify: {layer} moe");
        let extra = dur(&cutlass, &name) - dur(&b12x, &name);
        assert!((extra - 63.66).abs() < 1e-3, "{name}: +{extra} µs");
    }
    for pass in ["draft 1", "draft 2"] {
        let name = format!("{pass}: L0 moe");
        let (a, b) = (dur(&cutlass, &name), dur(&b12x, &name));
        // Equal to the picosecond (1e-6 µs): no backend overhead on the BF16 draft MoE.
        assert!((a - b).abs() < 1e-6, "{name}: {a} vs {b} µs");
    }
    // The draft's one-row LM head against the target's one-row LM head of a plain step ("decode", the
    // same scenario without `[speculative]`): 248,320 × 4,096 × 2 B ÷ 4 = 508,559,360 B per rank.
    let head = dur(&cutlass, "draft 2: lm head");
    let plain = dur(&first_shape("flashinfer_cutlass", ""), "decode: lm head");
    assert!((head - plain).abs() < 1e-6, "{head} vs {plain} µs");
}

/// Issue #18/#17 (vllmmtp): the figures book/src/validation.md gives for the MTP-scaling series'
/// settings and for the proposer's host overlap, reproduced (tpsim's own behaviour, not a validation):
/// - counting prefill in the wall time (vllm-benchmark-suite's `tokens_per_second`) with 500 output
///   tokens costs tpsim 2.5 % at c 32 (840.5 against 862.4 tok/s), far from the series' 30 %;
/// - a 32-token prompt instead of 1,024 raises tpsim's c 32 rate by 14 % (986.8 against 864.7) and its
///   c 1 rate by < 1 % (84.4 against 84.3);
/// - with the proposer's host work hidden (`draft_step_overhead = "0us"`, what vLLM ≥ 0.14's async
///   scheduling with the padded drafter batch would do) the bs-1 MTP ÷ none ratio rises to 2.187
///   (+44 % against the measured 1.515): modelling the overlap widens the gap, so the gap is not host
///   time the model lacks.
#[test]
fn mtp_scaling_series_settings_and_the_proposer_overlap() {
    let run = |tag: &str, batch: u32, spec: &str, edit: &dyn Fn(String) -> String| {
        let text = edit(std::fs::read_to_string(scenario(tag, "0.17.0", batch, spec)).expect("scenario"));
        let p = scratch(&format!("qwen35-mtp-settings-{tag}-{batch}")).join("s.toml");
        std::fs::write(&p, text).expect("write scenario");
        run_json(&p.display().to_string())
    };
    let same = |t: String| t;
    let out500 = |t: String| t.replace("output_len = 512", "output_len = 500");
    let short = |t: String| t.replace("prompt_len = 1024", "prompt_len = 32");
    let j = run("wall", 32, "", &out500);
    let (decode, e2e) = (
        f(&j["throughput"]["output_tok_s"]),
        f(&j["throughput"]["e2e_output_tok_s"]),
    );
    println!("c 32, 500 output tokens: decode {decode:.1}, counting prefill {e2e:.1} tok/s");
    assert!(e2e / decode > 0.95, "{e2e} vs {decode}");
    for (batch, lo, hi) in [(1, 0.0, 0.01), (32, 0.10, 0.20)] {
        let long = f(&run("ctx1k", batch, "", &same)["throughput"]["output_tok_s"]);
        let s = f(&run("ctx0", batch, "", &short)["throughput"]["output_tok_s"]);
        println!("c {batch}: 1,024-token prompts {long:.1}, 32-token prompts {s:.1} tok/s");
        assert!((lo..hi).contains(&(s / long - 1.0)), "c {batch}: {s} vs {long}");
    }
    let hidden = |t: String| {
        t.replace(
            "[engine.env]",
            "[engine.costs]\ndraft_step_overhead = \"0us\"\n\n[engine.env]",
        )
    };
    let j = run("overlap", 1, MTP2, &hidden);
    let ratio = f(&j["throughput"]["output_tok_s"]) / f(&j["spec"]["tok_s_without_spec"]);
    println!("bs 1, proposer host hidden: MTP ÷ none {ratio:.3} (measured 1.515)");
    assert!(ratio / 1.515 - 1.0 > 0.40, "{ratio}");
}
