//! vllmttft61 (issue #18): vLLM's request path before the engine core (`tpsim::serve::vllm_front`:
//! the tokenizer's 2 ms microbatch wait from 0.10.1 to 0.23.x and 1 µs a prompt token of
//! tokenization) and what it does to a closed loop whose outputs all have one length: the
//! deplodock Kimi-K2.5-NVFP4 8× B200 sweep under vLLM 0.17.0 (tests/data/throughput.tsv lines 291,
//! 293, 313 – 316; vllmfront60's rows), and the per-token bound of the API server's streaming
//! (vLLM PR 27869, `tests/data/frontend-costs.tsv` line 8), which stays unadopted.
//!
//! The mechanism (book/src/validation.md, "vLLM's request path and the closed loop's standing
//! queue (vllmttft61)"): every output is 8,000 tokens, so in the closed loop the running requests
//! finish one a step and each finish sends a new 8,000-token prompt. vLLM 0.17's 8,192-token budget
//! on a B200 takes one such prompt a step. A new request that reaches the waiting queue after the
//! step that follows its predecessor's end has begun misses it; that step is a decode (nothing
//! waited), in which the next request finishes, and from then on every step is a prefill that
//! also finishes one request: the queue the first misses built stays, and each later arrival waits
//! for the prompts ahead of it.

use super::common::*;
use super::frontend_sources::cost_row;
use super::vllmfront60::measured;

/// tpsim's median TTFT (ms) on the deplodock Kimi-K2.5 scenario at concurrency `c`, with `extra`
/// TOML appended (empty: the file as it is).
fn kimi_p50(c: u32, extra: &str) -> f64 {
    let file = scenario(&format!(
        "validation/kimi-k2.5-nvfp4-b200x8-vllm-0.17-tp8-8k8k-c{c}.toml"
    ));
    if extra.is_empty() {
        return f(&run_json(&file)["serving"]["ttft_ms"]["p50"]);
    }
    let dir = scratch(&format!("kimi-c{c}"));
    let path = dir.join("s.toml");
    let text = std::fs::read_to_string(&file).unwrap() + extra;
    std::fs::write(&path, text).unwrap();
    f(&run_json(&path.display().to_string())["serving"]["ttft_ms"]["p50"])
}

/// The sources' figures, by hand. Issue 19012: "about 1k tokens/ms" = 1.0 µs a prompt token (the
/// figure `serve::vllm_front` charges). PR 27869: 34,078.85 streamed tok/s through one API server
/// at `--stream-interval 1` bound its cost at 1e6 / 34,078.85 = 29.34 µs a token.
#[test]
fn vllmttft61_sourced_figures() {
    let tok = cost_row(
        7,
        "https://github.com/vllm-project/vllm/issues/19012",
        "tokenize_per_prompt_token",
    );
    assert!((tok - 1.0).abs() < 1e-12, "{tok}");
    assert_eq!(
        tpsim::serve::vllm_front::TOKENIZE_PER_PROMPT_TOKEN_PS,
        (tok * 1e6) as u64
    );
    let rate = cost_row(
        8,
        "https://github.com/vllm-project/vllm/pull/27869",
        "streamed_output_tok_s",
    );
    let bound_us = 1e6 / rate;
    assert!((bound_us - 29.34).abs() < 0.005, "{bound_us}");
}

/// At the Kimi c 8 and c 16 rows' token rates (c × the rows' per-request 109.41 and 84.03 tok/s:
/// 875.28 and 1,344.48 tok/s) one API server at PR 27869's bound is 2.57 % and 3.94 % busy (hand:
/// rate × 29.34 µs); asserted under 5 %. Such a server delays each step's chunks by one job
/// (c × 29.34 µs: 0.23 and 0.47 ms) and forms no queue, so the bound cannot be the rows'
/// 530 – 670 ms wait as a queue (vllmfront60's lead (1)).
#[test]
fn output_processing_bound_keeps_the_api_server_idle_at_the_kimi_rows() {
    let bound_us = 1e6
        / cost_row(
            8,
            "https://github.com/vllm-project/vllm/pull/27869",
            "streamed_output_tok_s",
        );
    let t = read_tsv(&data_path("throughput.tsv"));
    let (b, out) = (t.col("batch_or_concurrency"), t.col("output_tok_s"));
    for (line, c, hand) in [(293, 8u32, 0.0257), (313, 16, 0.0394)] {
        let r = t.rows.iter().find(|r| r.line == line).unwrap();
        assert_eq!(r.get(b), format!("{c}"), "line {line}");
        let busy = f64::from(c) * r.get(out).parse::<f64>().unwrap() * bound_us * 1e-6;
        assert!((busy - hand).abs() < 5e-4, "line {line}: busy {busy:.4}");
        assert!(busy < 0.05, "line {line}: {busy:.4}");
    }
}

/// The request path at c 1: 2 ms + 8,000 × 1 µs = 10 ms on top of the engine's prefill, so the c 1
/// median reads 107.58 + 10.00 = 117.58 ms by hand (117.51 measured by tpsim: the first token's
/// step starts 10 ms later, within 0.1 ms of the hand sum). Tolerance ±0.2 ms.
#[test]
fn kimi_c1_pays_the_request_path_once() {
    let c1 = kimi_p50(1, "");
    assert!((c1 - 117.58).abs() <= 0.2, "c 1 median {c1:.2} ms");
}

/// The standing queue (module doc). At c 8 the 10 ms path is longer than tpsim's decode step at
/// c 8 (8.25 ms, its median TPOT), so a new request misses the step after its predecessor's end:
/// its median TTFT is three prefill steps and the path, 320.24 ms (2.73× tpsim's c 1; the engine
/// measures 719.49, 3.81× its c 1). At c 16 the decode step (10.54 ms) is longer than the path, so
/// only the first step is missed: 215.69 ms (the engine: 856.61). Pinned to ±1 %; and both stay
/// under 0.5 of the measured medians — what is left of vllmfront60's wait (book).
#[test]
fn kimi_staggered_arrivals_queue_behind_earlier_prompts() {
    let c1 = kimi_p50(1, "");
    for (c, want) in [(8, 320.24), (16, 215.69)] {
        let p50 = kimi_p50(c, "");
        assert!(
            (p50 / want - 1.0).abs() <= 0.01,
            "c {c}: median {p50:.2} ms against {want} (c 1 {c1:.2})"
        );
        let ratio = p50 / measured(c);
        assert!(ratio < 0.5, "c {c}: tpsim ÷ measured {ratio:.3}");
    }
    // At c 8 the queue holds two prompts ahead of the new one: more than 2.5 of the c 1 medians.
    assert!(kimi_p50(8, "") / c1 > 2.5);
}

/// The output-processing bound added as a per-token job of the one API server (`[engine.costs]
/// frontend_output_token_cost = "29.34us"`, not adopted) moves the c 8 median by less than 1 %
/// (320.24 ms without it): the server, under 3 % busy, delays the first chunk by one step's job
/// (8 × 29.34 µs = 0.23 ms) and the next request's arrival by as little.
#[test]
fn kimi_c8_with_the_output_processing_bound_barely_moves() {
    let with = kimi_p50(8, "\n[engine.costs]\nfrontend_output_token_cost = \"29.34us\"\n");
    assert!((with / 320.24 - 1.0).abs() < 0.01, "c 8 median {with:.2} ms");
}
