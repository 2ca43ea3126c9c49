//! ttft55 (issue #18): what the benchmark clients and the engines' front ends add to a light-load
//! TTFT, read from the clients' and engines' code, against the 15 SGLang rows of ttft54's table at
//! about 1,000 prompt tokens. book/src/validation.md, "Client, front end and request lengths at
//! light load (ttft55)", gives the sources. Nothing here was fitted to any row.
//!
//! - The SGLang cookbook rows ran `bench_serving --dataset-name random --random-input-len 1000
//!   --random-output-len 1000 --num-prompts 10` with the default `--seed 1` and
//!   `--random-range-ratio 0.0`: sglang 0.5.9 `bench_serving.py` seeds numpy with the seed
//!   (`np.random.seed(args.seed)` in `run_benchmark`) and draws the input lengths, then the output
//!   lengths, with `np.random.randint(max(int(1000 × 0.0), 1), 1000 + 1, size=10)`
//!   (`compute_random_lens`). Numpy's legacy `randint` draws a bounded int64 from MT19937 seeded by
//!   `init_genrand(1)` with 32-bit masked rejection (numpy `random_bounded_uint64_fill`, rng ≤
//!   0xFFFFFFFF, `use_masked`). Replayed here, they are the ten prompts and outputs the rows ran,
//!   which their notes confirm (6,101 input and 4,220 output tokens; lines 219, 222 and 236 state 4,210).
//! - With those exact lengths (a trace) tpsim's TTFT p50 stays where its own draws put it: its
//!   SGLang prefill at c 1 is host-bound, so the length draw is not the miss.
//! - A measured bound on SGLang's time outside the forward (HTTP, chat template, tokenizer manager,
//!   scheduler, detokenizer, SSE, the client): tenstorrent/tt-inference-server issue 3560 (comment of
//!   2026-05-18) ran `vllm bench serve --backend openai-chat --random-input-len 128 --max-concurrency
//!   1` against SGLang over a CPU mock whose every forward busy-waits 1000 / 380 = 2.632 ms: median
//!   TTFT 9.54 ms, so ≤ 9.54 − 2.632 = 6.908 ms per request lie outside the forward (the prefill is
//!   one mock forward). Added to tpsim, that time leaves every SGLang row under 0.8 of its measured
//!   TTFT.
//! - vLLM raises gpt-oss's largest CUDA-graph capture size (`scenario::gpt_oss_graphs`): 1,024 in
//!   0.10.1.1 – 0.10.2 and 0.11.1 on, 992 in 0.11.0, so a prefill up to that size runs under the
//!   graphs (ttft54's limit), unless the user set a size.

use crate::common::*;
use crate::ttft54::{Group, ROWS, compare, gpt_oss_ttft_at};

/// MT19937 as numpy's legacy `RandomState(seed)` seeds it (`init_genrand`: mt[0] = seed,
/// mt[i] = 1812433253 × (mt[i−1] ^ (mt[i−1] >> 30)) + i), with the reference tempering.
struct Mt {
    mt: [u32; 624],
    i: usize,
}

impl Mt {
    fn new(seed: u32) -> Mt {
        let mut mt = [0u32; 624];
        mt[0] = seed;
        for i in 1..624 {
            mt[i] = 1_812_433_253u32
                .wrapping_mul(mt[i - 1] ^ (mt[i - 1] >> 30))
                .wrapping_add(i as u32);
        }
        Mt { mt, i: 624 }
    }

    fn next_u32(&mut self) -> u32 {
        if self.i >= 624 {
            for k in 0..624 {
                let y = (self.mt[k] & 0x8000_0000) | (self.mt[(k + 1) % 624] & 0x7fff_ffff);
                let mag = if y & 1 == 1 { 0x9908_b0df } else { 0 };
                self.mt[k] = self.mt[(k + 397) % 624] ^ (y >> 1) ^ mag;
            }
            self.i = 0;
        }
        let mut y = self.mt[self.i];
        self.i += 1;
        y ^= y >> 11;
        y ^= (y << 7) & 0x9d2c_5680;
        y ^= (y << 15) & 0xefc6_0000;
        y ^ (y >> 18)
    }

    /// numpy's legacy `randint(low, high, size=n)` for a range under 2^32: mask = the smallest
    /// all-ones value ≥ high − 1 − low, each draw `next_u32 & mask`, rejected while above the range.
    fn randint(&mut self, low: u32, high: u32, n: usize) -> Vec<u32> {
        let rng = high - 1 - low;
        let mut mask = rng;
        for s in [1, 2, 4, 8, 16] {
            mask |= mask >> s;
        }
        (0..n)
            .map(|_| {
                loop {
                    let v = self.next_u32() & mask;
                    if v <= rng {
                        break low + v;
                    }
                }
            })
            .collect()
    }
}

/// bench_serving's `--dataset-name random` lengths for `--random-input-len 1000
/// --random-output-len 1000 --num-prompts 10`, seed 1, range ratio 0.0: (prompts, outputs).
fn cookbook_lengths() -> (Vec<u32>, Vec<u32>) {
    let mut g = Mt::new(1);
    // max(int(1000 × 0.0), 1) = 1 to 1000 + 1 (exclusive), input lengths first.
    let input = g.randint(1, 1001, 10);
    let output = g.randint(1, 1001, 10);
    (input, output)
}

/// The throughput.tsv lines whose notes state the cookbook run's "6101 input and 4220 output
/// tokens" (random 1000/1000, 10 prompts, c 1; lines 219, 222, 236: 4210 output).
const COOKBOOK_LINES: [usize; 9] = [213, 219, 222, 226, 230, 233, 236, 253, 256];

/// (input, output) token totals the notes of throughput.tsv line `line` state ("N input and M
/// output tokens").
fn stated_totals(line: usize) -> (u32, u32) {
    let t = read_tsv(&data_path("throughput.tsv"));
    let n = t.col("notes");
    let row = t
        .rows
        .iter()
        .find(|r| r.line == line)
        .unwrap_or_else(|| panic!("throughput.tsv has no line {line}"));
    let notes = row.get(n);
    let at = notes
        .find(" input and ")
        .unwrap_or_else(|| panic!("line {line}: no 'N input and M output tokens'"));
    let before: String = notes[..at]
        .chars()
        .rev()
        .take_while(|c| c.is_ascii_digit())
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    let after: String = notes[at + " input and ".len()..]
        .chars()
        .take_while(|c| c.is_ascii_digit())
        .collect();
    (before.parse().unwrap(), after.parse().unwrap())
}

#[test]
fn bench_serving_seed_1_draws_the_lengths_the_cookbook_rows_state() {
    let (input, output) = cookbook_lengths();
    // The replay (MT19937 from seed 1, 10-bit mask 1023 for the range 0..=999, rejection above 999).
    assert_eq!(input, [38, 236, 909, 73, 768, 906, 716, 646, 848, 961]);
    assert_eq!(output, [145, 130, 973, 584, 750, 509, 391, 282, 179, 277]);
    // 38 + 236 + 909 + 73 + 768 + 906 + 716 + 646 + 848 + 961 = 6,101;
    // 145 + 130 + 973 + 584 + 750 + 509 + 391 + 282 + 179 + 277 = 4,220. bench_serving subtracts
    // the tokenizer's `num_special_tokens_to_add()` from each input length before it sums them, so
    // equal totals also say those tokenizers add none.
    let sums = (input.iter().sum::<u32>(), output.iter().sum::<u32>());
    assert_eq!(sums, (6101, 4220));
    for line in COOKBOOK_LINES {
        // Lines 219, 222 and 236 (GLM-4.6, Qwen3-235B, DeepSeek-R1-0528: the SGLang 0.5.6 runs on
        // 8× B200) state 4,210 output tokens, 10 fewer than the draws. 0.5.6's and 0.5.6.post2's
        // `async_request_sglang_generate` count a request's outputs the same way (the last
        // non-empty chunk's `meta_info.completion_tokens`), so the client does not explain it; the
        // cause was not read. Their inputs agree.
        let want = if [219, 222, 236].contains(&line) {
            (sums.0, sums.1 - 10)
        } else {
            sums
        };
        assert_eq!(stated_totals(line), want, "throughput.tsv line {line}");
    }
    // The median request's prompt: sorted, the 5th and 6th are 716 and 768 (numpy's median of ten
    // is their mean, 742 tokens), not the 1,000 the page's headline names.
    let mut s = input.clone();
    s.sort_unstable();
    assert_eq!((s[4], s[5]), (716, 768));
}

/// The row scenario `file` with its workload replaced by the cookbook's ten requests (a trace, closed
/// loop at the scenario's concurrency 1), written to a scratch folder; returns its path.
fn with_cookbook_trace(file: &str, name: &str) -> String {
    let (input, output) = cookbook_lengths();
    let p = edited_variant(&format!("validation/{file}"), name, |t| {
        t.lines()
            .filter(|l| {
                !l.starts_with("prompt_len") && !l.starts_with("output_len") && !l.starts_with("num_requests")
            })
            .map(|l| {
                if l.starts_with("concurrency") {
                    format!("{l}\ntrace = \"cookbook.jsonl\"")
                } else {
                    l.to_string()
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    });
    let trace: String = input
        .iter()
        .zip(&output)
        .map(|(i, o)| format!("{{\"prompt\": {i}, \"output\": {o}}}\n"))
        .collect();
    let dir = std::path::Path::new(&p).parent().unwrap();
    std::fs::write(dir.join("cookbook.jsonl"), trace).unwrap();
    p
}

#[test]
fn exact_cookbook_lengths_leave_the_sglang_ttft_where_it_was() {
    // Two rows: MiniMax-M2.5 on 8× H100 (line 213, whose TPOT moves most with the exact outputs)
    // and DeepSeek-R1-0528 on 8× B200 (line 236, the largest GPU share of the prefill). Their p50
    // TTFTs from tpsim's own draws are 49.49 and 63.25 ms (ttft54's table); with the exact lengths
    // they stay within 0.5 %: the eager prefill's launches (31.7 µs each) outlast the GPU work of a
    // 716–768-token prompt as of a 1,000-token one.
    for (line, file) in [
        (213, "minimax-m2.5-fp8-h100x8-sglang-0.5.9-tp8-ep8-1k1k-c1.toml"),
        (236, "deepseek-r1-0528-b200x8-sglang-0.5.6-tp8-1k1k-c1.toml"),
    ] {
        let drawn = f(&run_json(&scenario(&format!("validation/{file}")))["serving"]["ttft_ms"]["p50"]);
        let exact_file = with_cookbook_trace(file, &format!("ttft55-trace-{line}"));
        let v = run_json(&exact_file);
        assert_eq!(v["verdict"], "ok", "{exact_file}");
        let exact = f(&v["serving"]["ttft_ms"]["p50"]);
        assert!(
            (exact / drawn - 1.0).abs() < 0.005,
            "line {line}: p50 TTFT {drawn:.2} ms drawn, {exact:.2} ms with the run's lengths"
        );
    }
}

/// SGLang's time outside the forward at c 1, measured over a mock device (tt-inference-server issue
/// 3560): median TTFT 9.54 ms less one forward of 1000 / 380 = 2.632 ms.
const SGLANG_OUTSIDE_FORWARD_MS: f64 = 9.54 - 1000.0 / 380.0;

/// What tpsim now charges of it (sglfront60, `serve::sglang_front::REQUEST_PATH_PS`): 9.54 − 2 ×
/// 2.94 = 3.66 ms of request path outside the scheduler's rounds.
const SGLANG_REQUEST_PATH_MS: f64 = 9.54 - 2.0 * 2.94;

#[test]
fn sglang_time_outside_the_forward_cannot_close_the_cluster() {
    // 9.54 − 2.6316 = 6.908 ms (to 1 µs), of which tpsim's TTFT holds 3.66 since sglfront60: the
    // bound adds the other 3.248 ms.
    assert!((SGLANG_OUTSIDE_FORWARD_MS - 6.908).abs() < 0.001);
    let extra = SGLANG_OUTSIDE_FORWARD_MS - SGLANG_REQUEST_PATH_MS;
    assert!((extra - 3.248).abs() < 0.001);
    let rows: Vec<_> = ROWS
        .iter()
        .filter(|r| matches!(r.2, Group::SglNvidia | Group::SglRocm))
        .map(compare)
        .collect();
    assert_eq!(rows.len(), 15);
    println!("| throughput.tsv line | measured ms | tpsim ms | + 3.248 ms | ratio then |");
    println!("|---|---|---|---|---|");
    for (line, _, m, p) in &rows {
        let with = p + extra;
        println!("| {line} | {m:.2} | {p:.2} | {with:.2} | {:.3} |", with / m);
        // The largest such ratio is gpt-oss-120b's (line 229): (18.44 + 6.908) / 31.79 = 0.797
        // before sglttft59, 0.859 after it (SGLang's overlap loop runs the decode launched before
        // the last request finished once more, `serve::sglang_first_token`); with sglfront60's
        // request path in tpsim's 22.09 ms, (22.09 + 3.248) / 31.79 = 0.797 again.
        assert!(with / m < 0.8, "line {line}: {with:.2} ms against {m:.2} ms");
    }
}

/// The TTFT's slope in the host launch cost (1 → 2 ms a launch) of row 247's gpt-oss-20b scenario
/// with a `prompt`-token prompt at vLLM `version`, `extra` lines added to `[engine]` (ms), between
/// 3 and 4 ms a launch (the host the bottleneck even over 1,000 tokens' GPU work).
fn launch_slope(prompt: u32, version: &str, extra: &str) -> f64 {
    gpt_oss_ttft_at(prompt, 4000, version, extra) - gpt_oss_ttft_at(prompt, 3000, version, extra)
}

#[test]
fn vllm_raises_gpt_oss_capture_list_by_release() {
    // Graphed (PIECEWISE): one eager attention call a layer, 24 layers × (4,000 − 3,000) µs =
    // 24.0 ms, within 2 %. Ungraphed: every kernel launched, at least 8 a layer × 24 = 192 ms.
    let graphed = |ms: f64| (ms / 24.0 - 1.0).abs() < 0.02;
    // tpsim costs a prompt between two 64-token buckets by interpolating their shapes' costs (a
    // simulator resolution: 1,025 tokens cost 1/64 of the way to 1,088's), so each side is tested
    // on a bucket's edge.
    // vLLM 0.14.1: `max_cudagraph_capture_size` = 1,024 for gpt-oss: 1,024 tokens graphed, 1,088 not.
    let (at, above) = (launch_slope(1024, "0.14.1", ""), launch_slope(1088, "0.14.1", ""));
    assert!(graphed(at), "0.14.1, 1,024 tokens: slope {at:.2} ms");
    assert!(above > 192.0, "0.14.1, 1,088 tokens: slope {above:.2} ms");
    // vLLM 0.11.0: the scheduler list 1, 2, 4, 8…248, 256…992: 960 graphed, 1,024 not.
    let (at, above) = (launch_slope(960, "0.11.0", ""), launch_slope(1024, "0.11.0", ""));
    assert!(graphed(at), "0.11.0, 960 tokens: slope {at:.2} ms");
    assert!(above > 192.0, "0.11.0, 1,024 tokens: slope {above:.2} ms");
    // A size the user set keeps the engine's hands off: `--max-cudagraph-capture-size 512` on
    // 0.14.1 leaves 1,000 tokens above the largest graph.
    let set = launch_slope(1000, "0.14.1", "max_cudagraph_capture_size = 512\n");
    assert!(
        set > 192.0,
        "0.14.1 with 512 set, 1,000 tokens: slope {set:.2} ms"
    );
}

#[test]
fn gpt_oss_on_mi300x_c1_runs_its_prefills_under_the_graphs() {
    // Line 99 (gpt-oss-120b, 8× MI300X, vLLM 0.17.0, prompts 819–1,024 tokens): every prompt is
    // within 1,024, so its TTFT is the graphed one (ttft54's table: 6.28 ms before its limit, 15.90
    // ms with it), 6.27 ms, not the ungraphed one: farther from the measured 33.6 ms. Since
    // vllmttft61 every vLLM 0.17 request also pays its request path, 2 ms of microbatch wait and
    // 1 µs a prompt token (the prompts' mean ≈ 921.5 tokens, uniform on 819–1,024): 6.27 + 2 + 0.92
    // = 9.19 ms, within 2 % (ungraphed it would read 15.90 + 2.92 = 18.82).
    let v = run_json(&scenario("validation/gpt-oss-120b-mi300x-vllm-0.17-tp8-c1.toml"));
    let mean = f(&v["serving"]["ttft_ms"]["mean"]);
    assert!((mean / 9.19 - 1.0).abs() < 0.02, "mean TTFT {mean:.2} ms");
}
