//! mi300x63 (issue #18): the largest SGLang-on-MI300X miss group, DeepSeek-V3.1 FP8 on 8× MI300X under
//! SGLang 0.5.7 (sgl-cookbook `DeepSeek-V3_1.md`, nine rows of `tests/data/throughput.tsv`), decomposed
//! by what each row's benchmark puts into a decode step (book/src/validation.md, "The DeepSeek-V3.1
//! MI300X gap follows the prompt load (mi300x63)"). Nothing is modelled and nothing fitted: these tests
//! pin the arithmetic that locates the gap.
//!
//! The page's `bench_serving` prints the input and output tokens of every run; a closed loop at
//! concurrency `c` emits `c` output tokens a decode step, so it prefills `c × input ÷ output` prompt
//! tokens a step on average, and SGLang runs those prefill batches between decode steps (mixed chunks
//! off by default), inside every running request's TPOT. At one concurrency the 8K/1K and 1K/8K runs
//! differ in that load by 60×, in the decode context by about 1.2K tokens a request.

use crate::common::{edited_variant, f, run_json, scenario};

/// One cookbook row: (scenario under `scenarios/validation/`, the page's median TPOT in ms, its input
/// and output tokens, its concurrency). Figures: `tests/data/throughput.tsv` lines 345–353.
type Row = (&'static str, f64, f64, f64, f64);

/// 1K/8K at concurrency 16 (throughput.tsv line 349).
const R1K8K_C16: Row = (
    "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c16",
    34.00,
    39668.0,
    318306.0,
    16.0,
);
/// 8K/1K at concurrency 16 (line 352).
const R8K1K_C16: Row = (
    "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c16",
    52.09,
    300020.0,
    41669.0,
    16.0,
);
/// 1K/8K at concurrency 64 (line 350).
const R1K8K_C64: Row = (
    "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k8k-c64",
    55.10,
    158939.0,
    1301025.0,
    64.0,
);
/// 8K/1K at concurrency 64 (line 353).
const R8K1K_C64: Row = (
    "deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c64",
    103.45,
    1273893.0,
    170000.0,
    64.0,
);

/// tpsim's median TPOT (ms) of a row's scenario.
fn tpot(row: Row) -> f64 {
    f(&run_json(&scenario(&format!("validation/{}.toml", row.0)))["serving"]["tpot_ms"]["p50"])
}

/// Prompt tokens a decode step prefills on average: `c × input ÷ output`.
fn prompt_per_step(row: Row) -> f64 {
    row.4 * row.2 / row.3
}

/// The two pairs at one concurrency each: measured − tpsim (ms) grows with the prompt tokens a step,
/// by 0.1231 ms a prompt token at c 16 ((17.29 − 3.35) ÷ (115.20 − 1.99)) and 0.0693 at c 64
/// ((39.46 − 6.75) ÷ (479.58 − 7.82)); tpsim's own TPOTs (± 0.01 ms) are 30.65 / 34.80 (c 16) and
/// 48.35 / 63.99 (c 64), with AITER's untuned q_b / o_proj charged (`passes::aiter_blockscale`; 27.50 /
/// 31.69 and 45.26 / 60.83 before, slopes 0.1228 and 0.0695: the charge is the same in both rows of a
/// pair). The context difference inside each pair (about 1.2K tokens a request) moves tpsim's decode
/// step by 0.5 (c 16) and 1.3 ms (c 64) only (ITL medians 30.32 / 30.82, 47.75 / 49.02), so the pairs'
/// slope is the prompt load's.
#[test]
fn gap_follows_the_prompt_tokens_a_step() {
    let mut slopes = Vec::new();
    for (short, long, want) in [
        (R1K8K_C16, R8K1K_C16, [30.65, 34.80, 3.35, 17.29, 1.99, 115.20]),
        (R1K8K_C64, R8K1K_C64, [48.35, 63.99, 6.75, 39.46, 7.82, 479.58]),
    ] {
        let (ts, tl) = (tpot(short), tpot(long));
        assert!((ts - want[0]).abs() < 0.01, "{}: {ts}", short.0);
        assert!((tl - want[1]).abs() < 0.01, "{}: {tl}", long.0);
        let (gs, gl) = (short.1 - ts, long.1 - tl);
        assert!(
            (gs - want[2]).abs() < 0.01 && (gl - want[3]).abs() < 0.01,
            "{gs} {gl}"
        );
        let (ps, pl) = (prompt_per_step(short), prompt_per_step(long));
        assert!(
            (ps - want[4]).abs() < 0.01 && (pl - want[5]).abs() < 0.01,
            "{ps} {pl}"
        );
        slopes.push((gl - gs) / (pl - ps));
    }
    assert!((slopes[0] - 0.1231).abs() < 0.0005, "{slopes:?}");
    assert!((slopes[1] - 0.0693).abs() < 0.0005, "{slopes:?}");
}

/// tpsim's marginal prefill cost of DeepSeek-V3.1 on 8× MI300X under SGLang 0.5.7: the 1K/1K c 1
/// scenario with every prompt 1,000 or 8,000 tokens (3 requests, 50 output tokens): median TTFT 83.82
/// and 277.83 ms (± 0.05; each holds one decode step, the first token coming after the next launch),
/// (277.83 − 83.82) ÷ 7,000 = 0.0277 ms a prompt token. The page's own c 1 rows
/// (lines 345, 348, 351: median TTFT 213.58, 156.19 and 481.38 ms over 6,101, 6,101 and 41,941 input
/// tokens in 10 prompts) rise (481.38 − 213.58) ÷ 3,584 = 0.0747 to (481.38 − 156.19) ÷ 3,584 =
/// 0.0907 ms a prompt token of the mean prompt: 2.7–3.3× tpsim's, the size of the per-step slopes
/// above (0.069–0.123 ms). Both sides say the prompt's tokens cost the MI300X about three times what
/// tpsim charges; the TTFT slope is the page's, so it is used as a check here, never as a constant.
#[test]
fn prefill_per_token_against_the_pages_ttft_slope() {
    let ttft = |prompt: u32| {
        let file = "validation/deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c1.toml";
        let j = run_json(&edited_variant(file, &format!("mi300x63-p{prompt}"), |t| {
            let w = t.find("[workload]").expect("[workload]");
            format!(
                "{}[workload]\nconcurrency = 1\nnum_requests = 3\nprompt_len = {prompt}\noutput_len = 50\n",
                &t[..w]
            )
        }));
        f(&j["serving"]["ttft_ms"]["p50"])
    };
    let (t1, t8) = (ttft(1000), ttft(8000));
    assert!(
        (t1 - 83.82).abs() < 0.05 && (t8 - 277.83).abs() < 0.05,
        "{t1} {t8}"
    );
    let tpsim_slope = (t8 - t1) / 7000.0;
    assert!((tpsim_slope - 0.0277).abs() < 0.0001, "{tpsim_slope}");
    let mean_prompt_gap: f64 = (41941.0 - 6101.0) / 10.0;
    let page = [
        (481.38 - 213.58) / mean_prompt_gap,
        (481.38 - 156.19) / mean_prompt_gap,
    ];
    assert!(
        (page[0] - 0.0747).abs() < 0.0001 && (page[1] - 0.0907).abs() < 0.0001,
        "{page:?}"
    );
    let ratio = [page[0] / tpsim_slope, page[1] / tpsim_slope];
    assert!(ratio[0] > 2.6 && ratio[1] < 3.4, "{ratio:?}");
}

/// The c 1 rows carry no prefill inside their TPOT (one request at a time) and still differ by the
/// decode context: 1K/1K 23.90, 1K/8K 24.51, 8K/1K 25.05 ms (lines 345, 348, 351) at mean contexts of
/// about 0.88K, 3.28K and 4.46K tokens (the mean prompt 610 or 4,194 plus the token-weighted mean
/// output position, 265 at 1K and 2,667 at 8K for lengths uniform in 1..=N: N ÷ 3 + 1 ÷ 2, about).
/// Per 1K tokens of context the page's step grows (24.51 − 23.90) ÷ 2.33 = 0.261 and (25.05 − 23.90) ÷
/// 3.58 = 0.321 ms; tpsim's (20.28 → 20.32 ms) 0.011. At one sequence that is 0.26–0.32 ms ÷ 61 layers =
/// 4.3–5.3 µs a layer per 1K tokens (1.15 MB of the 576-wide bf16 latent cache: 0.22–0.27 TB/s): the
/// MLA decode at batch 1 on gfx942 runs latency-bound, a lead (AITER's persistent `mla_decode_fwd`,
/// SGLang 0.5.7 `aiter_backend.py`, at most 64 KV splits a sequence), not modelled.
#[test]
fn c1_rows_grow_with_the_context_over_fifteen_times_tpsims_rate() {
    let ctx = |prompt: f64, out_n: f64| prompt + out_n / 3.0 + 0.5;
    let (c11, c18, c81) = (ctx(610.1, 1000.0), ctx(610.1, 8000.0), ctx(4194.1, 1000.0));
    assert!((c11 - 944.0).abs() < 1.0 && (c18 - 3277.4).abs() < 1.0 && (c81 - 4528.0).abs() < 1.0);
    let page = [
        (24.51 - 23.90) / ((c18 - c11) / 1000.0),
        (25.05 - 23.90) / ((c81 - c11) / 1000.0),
    ];
    assert!(
        (page[0] - 0.261).abs() < 0.002 && (page[1] - 0.321).abs() < 0.002,
        "{page:?}"
    );
    let t =
        |name: &str| f(&run_json(&scenario(&format!("validation/{name}.toml")))["serving"]["tpot_ms"]["p50"]);
    let (t11, t81) = (
        t("deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-1k1k-c1"),
        t("deepseek-v3.1-mi300x8-sglang-0.5.7-tp8-8k1k-c1"),
    );
    assert!(
        (t11 - 20.28).abs() < 0.01 && (t81 - 20.32).abs() < 0.01,
        "{t11} {t81}"
    );
    let tpsim = (t81 - t11) / ((c81 - c11) / 1000.0);
    assert!(tpsim < 0.02 && page[1] / tpsim > 15.0, "{tpsim}");
}
